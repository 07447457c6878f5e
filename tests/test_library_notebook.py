"""The library notebook's driver (apsp_kernels.experiments.library) on tiny graphs, on the CPU."""
import json

import numpy as np
import pytest
from scipy.sparse import csgraph

from apsp_kernels import generators
from apsp_kernels.experiments import library as lib
from apsp_kernels.profiles import PROFILES


@pytest.fixture(scope="module")
def small():
    g = generators.k_regular_digraph(64, 4, seed=0, w_low=1, w_high=101, dtype=np.int32)
    return g, g.to_scipy()


def smoke_case(name="regular_apsp"):
    return next(c for c in lib.config("smoke")["cases"] if c["case"] == name)


def test_config_per_profile():
    cfgs = {p: lib.config(p) for p in PROFILES}
    names = [c["case"] for c in cfgs["default"]["cases"]]
    assert names == ["ny_sssp", "gnutella04_apsp", "regular_apsp", "dense_apsp"]
    for cfg in cfgs.values():
        assert [c["case"] for c in cfg["cases"]] == names and cfg["repeats"] >= 1
    by_case = {p: {c["case"]: c for c in cfg["cases"]} for p, cfg in cfgs.items()}
    # smoke: tiny generated stand-ins, no dataset
    assert all(c["graph"]["kind"] != "dataset" for c in by_case["smoke"].values())
    assert all(c["graph"].get("n", 0) <= 200 for c in by_case["smoke"].values())
    # default: the papers' graphs and sizes
    d = by_case["default"]
    assert d["ny_sssp"]["graph"] == {"kind": "dataset", "name": "NY"} and d["ny_sssp"]["sources"] == 0
    assert d["gnutella04_apsp"]["graph"] == {"kind": "dataset", "name": "gnutella04"}
    assert d["regular_apsp"]["graph"]["n"] == 4096 and d["dense_apsp"]["graph"]["n"] == 2048
    # paper samples at least as many NetworkX sources as default
    for name in names:
        assert (by_case["paper"][name]["networkx_sample"] or 1 << 30) >= (d[name]["networkx_sample"] or 0)


def test_smoke_graphs_are_small_labelled_stand_ins():
    g = lib.build_graph(smoke_case("ny_sssp")["graph"])
    assert g.n == 200 and g.is_stand_in and "USA-road-d.NY" in g.meta["label"]
    assert not lib.build_graph(smoke_case("dense_apsp")["graph"]).is_stand_in


def test_verification_marks_a_wrong_result_unverified(small):
    g, A = small
    sources = np.arange(g.n)
    ref = lib.Reference(A)
    right = csgraph.dijkstra(A)
    ok = lib.verify(right, sources, ref)
    assert ok["verified"] and ok["max_error"] == 0 and ok["verify_scope"].startswith(f"all {g.n} rows")
    wrong = right.copy()
    wrong[5, 7] += 1
    bad = lib.verify(wrong, sources, ref)
    assert not bad["verified"] and bad["max_error"] == 1
    assert not lib.verify(right[:3], sources, ref)["verified"]  # wrong shape


def test_verification_samples_rows_above_4096():
    g = generators.k_regular_digraph(4200, 2, seed=1, w_low=1, w_high=10, dtype=np.int32)
    A = g.to_scipy()
    sources = np.arange(g.n)
    got = np.zeros((g.n, g.n))  # wrong everywhere: every sampled row fails
    res = lib.verify(got, sources, lib.Reference(A))
    assert not res["verified"] and res["verify_scope"].startswith("64 sampled of 4200 rows")


def test_scipy_baseline_extrapolates_and_is_labelled(small):
    g, A = small
    case = {**smoke_case(), "scipy_sample": 8}
    cfg = {"repeats": 1, "budget_s": 1.0, "seed": 0, "profile": "smoke"}
    rec, ref = lib.run_scipy(case, g, A, np.arange(g.n), cfg)
    assert rec.extrapolated and "8 of 64" in rec.extrapolation and rec.timing_scope == "cpu"
    assert rec.stat("timed_sources") == 8 and rec.time_ms_median > 0
    assert ref.full is None  # the sample cannot serve as the reference: rows are computed instead
    note = lib.case_table([rec])["note"].iloc[0]
    assert note.startswith("EXTRAPOLATED") and "8 of 64" in note


def test_run_case_on_the_cpu(small):
    cfg = lib.config("smoke")
    case = {**smoke_case(), "networkx_sample": 4}
    recs = lib.run_case(case, cfg)
    assert [lib.implementation(r) for r in recs] == ["auto", "scipy", "networkx"]
    auto, scipy_rec, nx_rec = recs
    assert all(r.paper == "library" and r.experiment == "regular_apsp" for r in recs)
    assert auto.timing_scope == "with_transfers" and scipy_rec.timing_scope == "cpu"
    assert auto.verified and scipy_rec.verified and nx_rec.verified
    assert nx_rec.extrapolated and not auto.extrapolated
    assert auto.device and auto.git_commit == scipy_rec.git_commit  # filled by Record itself
    assert json.loads(auto.stats)["family"] == auto.method.split(" -> ")[1]
    table = lib.case_table(recs)
    assert table.loc[1, "speedup_vs_scipy"] == 1.0
    over = lib.overview({"regular_apsp": recs})
    assert "networkx EXTRAPOLATED from 4 sources" in over["note"].iloc[0]


def test_verdicts_are_not_tested_without_a_gpu(small, monkeypatch):
    cfg = lib.config("smoke")
    results = {"regular_apsp": lib.run_case(smoke_case(), cfg)}
    monkeypatch.setattr(lib.gpu, "available", lambda: False)
    out = lib.verdicts(results)
    assert out[0]["holds"] is None and "no CUDA GPU" in out[0]["note"]
    assert {v["claim"] for v in out} >= {"shortest_path(method='auto') picks a method at least as fast "
                                         "as SciPy on every case"}


def test_scipy_picks_follows_scipys_rule(small):
    g, A = small
    assert lib.scipy_picks(A, None) == "D" and lib.scipy_picks(A, [0]) == "D"
    dense = generators.dense_random(32).to_scipy()
    assert lib.scipy_picks(dense, None) == "FW" and lib.scipy_picks(dense, [0, 1]) == "D"


def fake_gpu_auto(answer, calls):
    """Stands in for shortest_path on a GPU: reports a GPU-style Choice, returns ``answer(A, indices)``."""
    from apsp_kernels.csgraph import Choice

    def shortest_path(A, method="auto", indices=None, explain=None):
        calls.append(method)
        explain(Choice("FW", [("FW", 1.5, "from n=64 on test GPU, x n^3"), ("D", 9.0, "x k*m")],
                       [("BF", "needs non-negative weights")], "fastest estimate", "test table"))
        return answer(A, indices)
    return shortest_path


def test_a_gpu_choice_is_recorded_and_checked(small, monkeypatch):
    import types

    import apsp_kernels
    g, A = small
    cfg = {"repeats": 2, "budget_s": 10.0, "seed": 0, "profile": "smoke"}
    case, sources = smoke_case(), np.arange(g.n)
    monkeypatch.setattr(lib, "gpu", types.SimpleNamespace(available=lambda: True))
    calls = []
    monkeypatch.setattr(apsp_kernels, "shortest_path",
                        fake_gpu_auto(lambda A, idx: csgraph.dijkstra(A, indices=idx), calls))
    rec = lib.run_auto(case, g, A, sources, cfg, lib.Reference(A))
    assert len(calls) == 1 + 2  # one warm-up, then the timed repeats
    assert rec.method == "auto -> FW" and rec.verified and rec.repeats == 2
    assert rec.stat("estimate_ms") == 1.5 and rec.stat("warmup") == 1 and rec.stat("gpu")
    choices = lib.choices({"regular_apsp": [rec]})
    assert choices["chosen"].iloc[0] == "FW" and "D ~9 ms" in choices["candidates"].iloc[0]
    assert "BF: needs" in choices["excluded"].iloc[0]

    def off_by_one(A, idx):
        d = csgraph.dijkstra(A, indices=idx)
        d[0, 1] += 1
        return d
    monkeypatch.setattr(apsp_kernels, "shortest_path", fake_gpu_auto(off_by_one, []))
    wrong = lib.run_auto(case, g, A, sources, cfg, lib.Reference(A))
    assert not wrong.verified and wrong.max_error == 1
    scipy_rec, _ = lib.run_scipy(case, g, A, sources, cfg)
    verdict = lib.verdicts({"regular_apsp": [wrong, scipy_rec]})[0]
    assert verdict["holds"] is False  # an unverified result is never a win


def test_figures_render(small, monkeypatch, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    from apsp_kernels.csgraph import auto
    results = {"regular_apsp": lib.run_case(smoke_case(), lib.config("smoke"))}
    fig = lib.plot_times(results, "t")
    fig.savefig(tmp_path / "t.png")
    fig = lib.plot_decision_map(auto.load_table(), results, "m")
    fig.savefig(tmp_path / "m.png")
    fig = lib.plot_decision_map(auto.load_table(tmp_path / "missing.csv"), results, "m")
    assert (tmp_path / "t.png").stat().st_size > 0


def test_the_backends_path_rows_convert_g_in_every_call_of_one_row_and_once_for_the_cached_row(monkeypatch):
    import networkx as nx
    from apsp_kernels.experiments import parity
    from apsp_kernels.nx_backend.interface import BackendInterface
    calls = []
    convert = BackendInterface.convert_from_nx
    monkeypatch.setattr(BackendInterface, "convert_from_nx",
                        staticmethod(lambda *a, **kw: calls.append(1) or convert(*a, **kw)))
    cfg = parity.config("smoke") | {"repeats": 3, "budget_s": 60.0, "path_checks": 20,
                                    "path_graph": {"kind": "road_like", "n": 300, "m": 840, "for": "USA-road-d.NY"}}
    before = set(nx.config.warnings_to_ignore)
    recs = parity.path_rows(cfg)
    assert [r.method for r in recs] == ["apsp_kernels backend", parity.CACHED_PATHS, "networkx"]
    assert all(r.verified for r in recs) and nx.config.warnings_to_ignore == before
    assert len(calls) == 3  # each timed call of the first row; the cached row reuses the last conversion
    table = parity.path_table(recs)
    assert list(table["implementation"]) == [r.method for r in recs]
