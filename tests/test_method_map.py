"""The method map's driver (apsp_kernels.experiments.method_map) on the CPU: prediction, planning
and skips, the sweep's bookkeeping with a stand-in timer, winners, rates, the decision table."""
import json
import math
import time

import numpy as np
import pandas as pd
import pytest

from apsp_kernels import generators, registry
from apsp_kernels.errors import InputError
from apsp_kernels.csgraph import auto
from apsp_kernels.experiments import method_map as mm
from apsp_kernels.profiles import PROFILES
from apsp_kernels.records import Record

DENSE = registry.get("pandey", "rkleene")
SSSP = registry.get("okuyama", "harish")


def test_config_per_profile():
    for profile in PROFILES:
        cfg = mm.config(profile)
        assert cfg["cap_s"] > 0 and cfg["budget_s"] > 0 and cfg["repeats"] >= 1
        assert set(cfg["topologies"]) == set(mm.TOPOLOGIES)
    default = mm.config("default")
    assert default["sizes"][0] == 256 and default["sizes"][-1] == 32768
    assert mm.config("paper")["sizes"] == tuple(2 ** e for e in range(8, 16))  # every power of two
    assert max(mm.config("smoke")["sizes"]) <= 128


def test_methods_are_classified_from_the_registry():
    keys = {m.key for m in mm.map_methods()}
    # every GPU method, fast included, but a per-graph host preprocessing (timed on the roads instead)
    assert keys == {m.key for m in registry.methods() if m.gpu} - {"fast:sssp_phast", "fast:phast_batched"}
    assert DENSE.key in mm.dense_keys() and SSSP.key not in mm.dense_keys()
    assert mm.per_source(registry.get("okuyama", "task_parallel_shared_tuned"))
    assert mm.per_source(registry.get("liu", "sssp_spmv")) and not mm.per_source(DENSE)


def test_cells_cover_topologies_and_cap_nothing_themselves():
    cfg = {**mm.config("smoke"), "sizes": (64, 128), "densities": (2, 8, 256)}
    cells = mm.cells(cfg)
    assert [c["n"] for c in cells] == sorted(c["n"] for c in cells)  # smallest n first
    random64 = [c["density"] for c in cells if c["topology"] == "random" and c["n"] == 64]
    assert random64 == [2, 8]  # 256 arcs per vertex do not exist at n = 64
    complete = next(c for c in cells if c["topology"] == "complete" and c["n"] == 128)
    assert complete["m"] == 128 * 127
    for c in cells[:8]:
        g = mm.make_graph(c["topology"], c["n"], c["density"], cfg)
        assert g.n == c["n"] and g.m == c["m"]


def test_prediction_scales_dense_as_n_cubed_and_sssp_as_sources_times_m():
    assert mm.predict_ms([], False, 128, 256, 128) is None
    dense = [mm.Point(64, 128, 64, 2.0)]
    assert mm.predict_ms(dense, False, 128, 256, 128) == pytest.approx(16.0)
    sssp = [mm.Point(64, 128, 8, 4.0)]  # 0.5 ms per source
    assert mm.predict_ms(sssp, True, 128, 256, 32) == pytest.approx(0.5 * 2 * 32)


def test_prediction_follows_a_steeper_observed_growth_up_to_m_squared():
    ring = [mm.Point(64, 64, 1, 1.0), mm.Point(128, 128, 1, 4.0)]  # per source ~ m^2
    assert mm.predict_ms(ring, True, 256, 256, 1) == pytest.approx(16.0)
    wild = [mm.Point(64, 64, 1, 1.0), mm.Point(128, 128, 1, 64.0)]
    assert mm.predict_ms(wild, True, 256, 256, 1) == pytest.approx(64.0 * 4)  # exponent capped at 2
    flat = [mm.Point(64, 128, 64, 5.0), mm.Point(128, 256, 128, 5.0)]  # launch-bound: n^3 still
    assert mm.predict_ms(flat, False, 256, 512, 256) == pytest.approx(40.0)


def cfg_for_plans(**over):
    return {**mm.config("default"), "cap_s": 0.1, "sample_s": 0.01, "min_sources": 4,
            "oracle_arcs": 1 << 30, **over}


def test_a_run_predicted_above_the_cap_is_skipped_with_the_prediction():
    cfg = cfg_for_plans()
    hist = [mm.Point(64, 128, 64, 20.0)]
    plan = mm.plan_run("apsp", False, True, hist, 128, 256, cfg)
    assert plan.skip.startswith("predicted 0.16 s") and "cap 0.1 s" in plan.skip
    assert plan.predicted_ms == pytest.approx(160.0)
    ok = mm.plan_run("apsp", False, True, [mm.Point(64, 128, 64, 2.0)], 128, 256, cfg)
    assert not ok.skip and ok.k == 128 and ok.sources is None and ok.scale == 1.0
    assert ok.repeats == cfg["repeats"]  # 16 ms is below long_run_s
    first = mm.plan_run("apsp", False, True, [], 128, 256, cfg)
    assert not first.skip and first.predicted_ms is None  # nothing to predict from: it runs


def test_budget_skips_a_run_that_would_not_finish_in_time():
    cfg = cfg_for_plans(cap_s=10.0)
    plan = mm.plan_run("apsp", False, True, [mm.Point(64, 128, 64, 100.0)], 128, 256, cfg,
                       remaining_s=1.0)
    assert "time budget" in plan.skip and plan.predicted_ms == pytest.approx(800.0)


def test_sssp_based_all_pairs_samples_sources_and_labels_the_extrapolation():
    cfg = cfg_for_plans()
    n, m = 1024, 4096
    full = mm.plan_run("apsp", True, True, [], n, m, cfg, probe_ms=0.001)  # 1 ms for all: full
    assert full.k == n and full.scale == 1.0 and full.extrapolation == ""
    plan = mm.plan_run("apsp", True, True, [], n, m, cfg, probe_ms=0.1)  # 102 ms for all
    assert plan.k == 64 and plan.scale == 16 and len(plan.sources) == 64  # 10 ms / 0.1 -> 64
    assert "timed 64 of 1024 sources" in plan.extrapolation and "x 16" in plan.extrapolation
    assert (np.diff(plan.sources) > 0).all()
    order = mm.source_order(n, cfg["seed"])
    assert np.array_equal(plan.sources[plan.verify_rows], order[: len(plan.verify_rows)])
    tiny = mm.plan_run("apsp", True, True, [], n, m, cfg, probe_ms=50.0)
    assert tiny.k == cfg["min_sources"] and tiny.skip.startswith("predicted 0.2 s")
    one = mm.plan_run("sssp", True, True, [], n, m, cfg)
    assert one.k == 1 and one.sources[0] == order[0]


def test_a_run_the_method_refuses_is_not_applicable_not_a_failure(monkeypatch):
    """An InputError (SpmvSSSP asked for many sources, a float32 method on int32 path lengths past
    2^24) is a limit the method states: its series stops, and the failures table leaves it out."""
    g = generators.ring(64)
    cfg = mm.config("smoke")

    def refuse(method, graph, **kw):
        raise InputError("SpmvSSSP is single-source; got 64 sources")

    def crash(method, graph, **kw):
        raise ValueError("boom")

    plan = mm.plan_run("apsp", True, True, [], g.n, g.m, cfg)
    recs = []
    for fake in (refuse, crash):
        monkeypatch.setattr(mm.timing, "run", fake)
        recs.append(mm.run_planned(SSSP, "apsp", g, plan, cfg, {"series": "ring"}))
    refused, crashed = recs
    assert refused.skipped == "not applicable: SpmvSSSP is single-source; got 64 sources"
    assert crashed.skipped == "error: ValueError: boom"
    assert mm.ends_series(refused) and mm.ends_series(crashed)
    df = mm.frame(recs)
    assert list(mm.failures(df)["skipped"]) == ["error: ValueError: boom"]
    assert mm.coverage(df)["skips"].iloc[0] in ("not applicable: 1, error: 1", "error: 1, not applicable: 1")


def test_oracle_rows_follow_the_arc_budget():
    cfg = {"oracle_arcs": 1 << 20}
    assert mm.oracle_rows(256, 512, cfg) == 256
    assert mm.oracle_rows(32768, 1 << 23, cfg) == 2
    assert 2 < mm.oracle_rows(32768, 65536, cfg) <= 64


class FakeTimer:
    """Stands in for timing.run on a GPU: deterministic times, marks a chosen run unverified
    and raises for one method above n = 64."""

    def __init__(self, wrong=None):
        self.calls = []
        self.wrong = wrong

    def __call__(self, method, graph, *, experiment, sources=None, params=None, repeats=1,
                 warmup=1, verify_rows=None, scale=1.0, extrapolation="", profile=""):
        self.calls.append((method.key, experiment, graph.n))
        if method.key == "bodra:bf_stride_flag" and graph.n > 64:
            raise ValueError("boom")
        k = graph.n if sources is None else len(sources)
        if method.key == DENSE.key:
            ms = (graph.n / 64) ** 3
        elif method.gpu:
            ms = k * graph.m * 1e-4
        else:
            ms = k * graph.m * 1e-2
        return Record(paper=method.paper, experiment=experiment, method=method.name,
                      graph=graph.name, n=graph.n, m=graph.m, time_ms_median=ms * scale,
                      verified=(method.key, graph.n) != self.wrong, extrapolated=scale != 1.0,
                      extrapolation=extrapolation, timing_scope="kernel" if method.gpu else "cpu",
                      stats={"sweeps": 3} if method.gpu else {}, profile=profile)  # device: this machine's


@pytest.fixture
def fake_sweep(monkeypatch):
    timer = FakeTimer(wrong=(SSSP.key, 128))
    monkeypatch.setattr(mm.timing, "run", timer)
    cfg = {**mm.config("smoke"), "sizes": (64, 128, 256), "densities": (2,),
           "topologies": ("random", "ring", "complete"), "cap_s": 0.1, "max_arcs": 40000,
           "budget_s": 1e9}
    methods = [DENSE, SSSP, registry.get("bodra", "bf_stride_flag")]
    return mm.sweep(cfg, methods=methods), timer, cfg


def test_sweep_skips_by_cap_error_and_graph_size(fake_sweep):
    result, timer, cfg = fake_sweep
    df = mm.frame(result.records)
    dense = df[df["key"] == DENSE.key].set_index(["series", "n"])
    assert dense.loc[("random/d2", 128), "time_ms"] == 8.0
    capped = dense.loc[("random/d2", 256)]  # 8 ms x 8 = 64 ms < 100 ms: runs
    assert capped["time_ms"] == 64.0
    assert (DENSE.key, "apsp", 256) in timer.calls
    bf = df[(df["key"] == "bodra:bf_stride_flag") & (df["series"] == "ring")].set_index(["problem", "n"])
    assert bf.loc[("sssp", 128), "skipped"] == "error: ValueError: boom"
    assert bf.loc[("sssp", 256), "skipped"].startswith("skipped after n=128: error")
    assert ("bodra:bf_stride_flag", "sssp", 256) not in timer.calls  # the series stopped
    big = [c for c in result.cells if c["topology"] == "complete" and c["n"] == 256][0]
    assert "max_arcs" in big["status"]
    assert (df[df["graph"] == "complete-n256"]["skipped"].str.contains("max_arcs")).all()
    ref = df[df["key"] == "okuyama:dijkstra_scipy"]
    assert set(ref["problem"]) == {"apsp", "sssp"} and not ref["on_gpu"].any()


def test_sweep_records_the_prediction_of_a_capped_run(monkeypatch):
    monkeypatch.setattr(mm.timing, "run", FakeTimer())
    cfg = {**mm.config("smoke"), "sizes": (64, 128, 256, 512), "densities": (2,),
           "topologies": ("random",), "cap_s": 0.1, "budget_s": 1e9}
    df = mm.frame(mm.sweep(cfg, methods=[DENSE]).records)
    row = df[(df["key"] == DENSE.key) & (df["n"] == 512)].iloc[0]
    assert row["skipped"].startswith("predicted 0.512 s") and row["predicted_ms"] == pytest.approx(512)
    assert math.isnan(row["time_ms"])


def test_sweep_stops_when_the_budget_is_spent(monkeypatch):
    monkeypatch.setattr(mm.timing, "run", FakeTimer())
    ticks = iter(range(0, 10 ** 6, 10))
    cfg = {**mm.config("smoke"), "sizes": (64, 128), "densities": (2,), "topologies": ("random",),
           "budget_s": 25}
    result = mm.sweep(cfg, methods=[DENSE], clock=lambda: next(ticks))
    assert result.cells[0]["status"] == "built" and "budget" in result.cells[-1]["status"]


def test_winners_take_the_fastest_verified_gpu_run(fake_sweep):
    result, _, _ = fake_sweep
    df = mm.frame(result.records)
    win = mm.winners(df, "apsp").set_index(["topology", "n"])
    # harish at n=128 on the random graph is faster than rkleene (8 ms) but not verified
    assert win.loc[("random", 128), "winner"] == DENSE.key
    assert win.loc[("random", 64), "winner"] == SSSP.key
    assert win.loc[("random", 64), "speedup_vs_scipy"] == pytest.approx(100.0)
    assert (win["winner"] != "okuyama:dijkstra_scipy").all()
    sssp = mm.winners(df, "sssp")
    assert set(sssp["winner"]) <= {SSSP.key, "bodra:bf_stride_flag", ""}


def test_a_cell_is_undecided_when_a_capped_method_is_predicted_faster():
    rec = lambda key, ms, skipped="", pred=None: Record(  # noqa: E731
        paper=key.split(":")[0], experiment="apsp", method=key.split(":")[1], graph="g", n=512,
        m=1024, time_ms_median=ms, verified=not skipped, skipped=skipped, device="Fake GPU",
        stats={"map": {"topology": "random", "density": 2, "series": "random/d2",
                       "predicted_ms": pred, "scale": 1.0}})
    df = mm.frame([rec("okuyama:harish", 500.0), rec("pandey:rkleene", np.nan, "predicted 0.3 s", 300.0)])
    assert mm.winners(df, "apsp").iloc[0]["undecided"] == "pandey:rkleene"


def test_rates_use_the_solvers_sweeps_or_a_labelled_lower_bound(fake_sweep):
    result, _, _ = fake_sweep
    df = mm.frame(result.records)
    rates = mm.rates(df, {DENSE.key})
    d = rates[(rates["key"] == DENSE.key) & (rates["n"] == 128)].iloc[0]
    assert d["rate"] == pytest.approx(128 ** 3 / 8e-3) and d["unit"] == "(min,+)/s"
    s = rates[(rates["key"] == SSSP.key) & (rates["n"] == 64)].iloc[0]
    assert s["exact_bytes"] and s["unit"] == "B/s"
    assert mm.relaxation_sweeps({}, 7) == (7.0, False)
    assert mm.relaxation_sweeps({"iterations_per_sssp_mean": 2.5, "sssp": 4}, 4) == (10.0, True)
    assert mm.relaxation_sweeps({"relaxations": 300}, 4, m=100) == (3.0, True)
    summary = mm.rate_summary(rates, {"minplus_int32_per_s": 1e12, "copy_bytes_per_s": 1e12})
    assert set(summary["method"]) >= {DENSE.key, SSSP.key}
    assert (summary["fraction_of_ceiling"] > 0).all()


def test_figures_render(fake_sweep, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    result, _, _ = fake_sweep
    df = mm.frame(result.records)
    for problem in mm.PROBLEMS:
        mm.plot_winners(mm.winners(df, problem), "t").savefig(tmp_path / f"{problem}.png")
    fig = mm.plot_roofline(mm.rates(df, {DENSE.key}), {"minplus_int32_per_s": 2e13,
                                                        "copy_bytes_per_s": 3e12, "launch_us": 2.0}, "r")
    fig.savefig(tmp_path / "r.png")
    mm.plot_winners(pd.DataFrame(), "empty")
    assert (tmp_path / "apsp.png").stat().st_size > 0


def test_decision_table_is_written_only_from_a_gpu_run(fake_sweep, tmp_path, monkeypatch):
    result, _, cfg = fake_sweep
    path = tmp_path / "decision_table.csv"
    assert mm.write_decision_table(result.records, cfg, path) is None and not path.exists()
    monkeypatch.setattr(mm.gpu, "available", lambda: True)
    table = mm.write_decision_table(result.records, {**cfg, "profile": "default"}, path)
    back = auto.load_table(path)
    assert list(back.columns) == auto.COLUMNS and len(back) == len(table) > 0
    assert set(back["method"]) <= {DENSE.key, SSSP.key, "bodra:bf_stride_flag"}
    assert "okuyama:dijkstra_scipy" not in set(back["method"])  # the host reference is no family
    assert set(back["problem"]) == {"all_pairs", "single_source"}
    wrong = back[(back["method"] == SSSP.key) & (back["n"] == 128) & (back["problem"] == "all_pairs")]
    assert wrong.empty  # unverified runs stay out
    assert back["source"].str.contains(" on ").all()


def test_auto_estimates_sssp_from_the_row_nearest_in_n_and_arcs_per_vertex():
    from apsp_kernels import generators
    from apsp_kernels.csgraph.families import FAMILIES
    key = FAMILIES["D"].int32
    table = pd.DataFrame([
        {"problem": "all_pairs", "dtype": "int32", "n": 16384, "m": 16384, "method": key,
         "family": "D", "time_ms": 16384 * 10.0, "device": "x", "source": "ring"},
        {"problem": "all_pairs", "dtype": "int32", "n": 4096, "m": 8192, "method": key,
         "family": "D", "time_ms": 4096 * 0.1, "device": "x", "source": "random"},
    ], columns=auto.COLUMNS)
    g = generators.random_digraph(4096, 16384, w_max=10, seed=0)
    est, note = auto._estimate(FAMILIES["D"], auto.index(table), g, g.n, False)
    assert "n=4096" in note and est == pytest.approx(0.1 * 2 * 4096)


def _sssp_row(family: str, graph: str, n: int, m: int, ms: float) -> dict:
    from apsp_kernels.csgraph.families import FAMILIES
    return {"problem": "single_source", "dtype": "int32", "n": n, "m": m, "family": family,
            "method": FAMILIES[family].int32, "time_ms": ms, "device": "x", "source": f"sssp on {graph}"}


def test_auto_keeps_a_road_network_on_the_road_rows(monkeypatch):
    """A road network is matched with the road-like rows of its arcs per vertex, not with the
    denser random graph nearest in m, so the worklist (fast on roads) wins over SpMV (fast on
    random graphs, slow over a road's hundreds of rounds); the library's NY case is this one."""
    from apsp_kernels import generators
    table = pd.DataFrame([
        _sssp_row("spmv", "roadlike", 4096, 10648, 1.1), _sssp_row("worklist", "roadlike", 4096, 10648, 0.43),
        _sssp_row("spmv", "random-d8", 4096, 32768, 0.24), _sssp_row("worklist", "random-d8", 4096, 32768, 0.39),
    ], columns=auto.COLUMNS)
    monkeypatch.setattr(auto.gpu, "available", lambda: True)
    monkeypatch.setattr(auto.gpu, "free_bytes", lambda: 1 << 40)
    road = generators.road_like(16384, 42598, seed=0)
    choice = auto.choose(road, 1, False, table)
    assert choice.family == "worklist", str(choice)
    est = dict((name, ms) for name, ms, _ in choice.candidates)
    assert est["worklist"] == pytest.approx(0.43 * road.m / 10648)
    dense = generators.random_digraph(16384, 131072, w_max=10, seed=0)
    assert auto.choose(dense, 1, False, table).family == "spmv"


def test_a_method_far_slower_than_the_cell_winner_leaves_its_series(monkeypatch):
    timer = FakeTimer()
    monkeypatch.setattr(mm.timing, "run", timer)
    cfg = {**mm.config("smoke"), "sizes": (64, 128), "densities": (2,), "topologies": ("random",),
           "cap_s": 100.0, "budget_s": 1e9, "dominated_x": 1.1, "dominated_from_n": 0}
    df = mm.frame(mm.sweep(cfg, methods=[DENSE, SSSP]).records)
    dense = df[(df["key"] == DENSE.key)].set_index("n")  # (n/64)^3 = 1 ms vs 64 sources x 128 arcs x 1e-4
    assert dense.loc[64, "time_ms"] == 1.0
    assert dense.loc[128, "skipped"].startswith("dominated: ") and (DENSE.key, "apsp", 128) not in timer.calls
    assert "x slower than " + SSSP.key in dense.loc[128, "skipped"]
    assert (SSSP.key, "apsp", 128) in timer.calls  # the winner goes on
    cov = mm.coverage(df).set_index(["key", "problem"])
    assert "dominated: 1" in cov.loc[(DENSE.key, "apsp"), "skips"]


def test_dominance_waits_for_sizes_where_the_work_decides(monkeypatch):
    timer = FakeTimer()
    monkeypatch.setattr(mm.timing, "run", timer)
    cfg = {**mm.config("smoke"), "sizes": (64, 128), "densities": (2,), "topologies": ("random",),
           "cap_s": 100.0, "budget_s": 1e9, "dominated_x": 1.1, "dominated_from_n": 128}
    mm.sweep(cfg, methods=[DENSE, SSSP])
    assert (DENSE.key, "apsp", 128) in timer.calls  # 64 is below dominated_from_n: still measured


def test_the_log_says_which_run_is_going_and_where_it_hangs(monkeypatch, tmp_path):
    slow = FakeTimer()

    def run(method, graph, **kw):
        if method.key == DENSE.key and graph.n == 128:
            time.sleep(0.5)  # longer than the watchdog: the log gets a stack
        return slow(method, graph, **kw)

    monkeypatch.setattr(mm.timing, "run", run)
    cfg = {**mm.config("smoke"), "sizes": (64, 128), "densities": (2,), "topologies": ("random",),
           "cap_s": 100.0, "budget_s": 1e9, "watchdog_s": 0.2}
    path = tmp_path / "map.log"
    with open(path, "w") as log:
        mm.sweep(cfg, methods=[DENSE], log=log)
    text = path.read_text()
    assert f"start {DENSE.key} apsp random-n128-d2 n=128" in text
    assert f"end   {DENSE.key} apsp random-n128-d2 n=128" in text and "start graph random/d2-n64" in text
    stack = text[text.index(f"start {DENSE.key} apsp random-n128"):text.index(f"end   {DENSE.key} apsp random-n128")]
    assert "most recent call first" in stack and "test_method_map.py" in stack and " in run" in stack


def test_a_capped_series_stops_and_its_all_pairs_run_is_predicted_from_it(monkeypatch):
    timer = FakeTimer()
    monkeypatch.setattr(mm.timing, "run", timer)
    cfg = {**mm.config("smoke"), "sizes": (64, 128, 256), "densities": (8,), "topologies": ("random",),
           "cap_s": 1e-4, "budget_s": 1e9}
    df = mm.frame(mm.sweep(cfg, methods=[SSSP]).records)
    rows = df[(df["key"] == SSSP.key) & (df["dtype"] == "int32")].set_index(["problem", "n"])["skipped"]
    # one source costs m x 1e-4 ms: 0.05 ms at n=64 (runs), 0.1 ms predicted at n=128 (> 0.1 ms cap)
    assert rows[("sssp", 64)] == "" and rows[("apsp", 64)].startswith("predicted")
    assert rows[("sssp", 128)].startswith("predicted") and rows[("apsp", 128)].startswith("capped at n=64")
    assert rows[("sssp", 256)].startswith("capped at n=128")
    assert [c for c in timer.calls if c[0] == SSSP.key] == [(SSSP.key, "sssp", 64)]


@pytest.mark.parametrize("cap_s,borrowed", [(0.5, False), (1.0, True)])
def test_a_series_that_starts_late_borrows_from_the_nearest_density(monkeypatch, cap_s, borrowed):
    timer = FakeTimer()
    monkeypatch.setattr(mm.timing, "run", timer)
    real = mm.densities
    monkeypatch.setattr(mm, "densities", lambda t, n, c: ([8] if n == 512 else []) if t == "rmat" else real(t, n, c))
    cfg = {**mm.config("smoke"), "sizes": (256, 512), "densities": (2, 8), "topologies": ("random", "rmat"),
           "cap_s": cap_s, "budget_s": 1e9}
    df = mm.frame(mm.sweep(cfg, methods=[DENSE]).records)
    late = df[(df["key"] == DENSE.key) & (df["series"] == "rmat/d8")].iloc[0]
    calls = [c for c in timer.calls if c == (DENSE.key, "apsp", 512)]
    if borrowed:  # random/d8 ran 512 ms at n=512: the late series is predicted from it and runs
        assert late["predicted_ms"] == pytest.approx(512.0) and late["time_ms"] == 512.0 and len(calls) == 3  # d2, d8, R-MAT d8
    else:  # random/d8 was capped at n=512 (512 ms > 500 ms): the late series inherits the stop
        assert "(in random/d8, the nearest density)" in late["skipped"] and calls == []


def test_all_sources_are_named_for_a_per_source_method():
    cfg = {**mm.config("smoke"), "sample_s": 10.0}
    plan = mm.plan_run("apsp", True, True, [], 64, 128, cfg, probe_ms=0.01)
    assert plan.k == 64 and np.array_equal(plan.sources, np.arange(64))  # None would mean vertex 0 only
    dense = mm.plan_run("apsp", False, True, [], 64, 128, cfg)
    assert dense.sources is None  # dense all-pairs solvers compute every row anyway


def test_a_run_whose_solver_solved_fewer_sources_is_no_result(fake_sweep):
    result, _, _ = fake_sweep
    rec = next(r for r in result.records if r.experiment == "apsp" and r.paper + ":" + r.method == SSSP.key
               and r.verified and r.n == 64)
    stats = json.loads(rec.stats)
    rec.stats = json.dumps({**stats, "sources": 1})  # it timed vertex 0 only, not the 64 planned
    df = mm.frame(result.records)
    row = df[(df["graph"] == rec.graph) & (df["key"] == SSSP.key) & (df["problem"] == "apsp")].iloc[0]
    assert row["short_of_sources"] and not row["ok"]
    assert (mm.failures(df)["graph"] == rec.graph).any()
    win = mm.winners(df, "apsp").set_index(["topology", "n"])
    assert win.loc[("random", 64), "winner"] != SSSP.key


def test_peaks_read_back_from_their_table(tmp_path):
    peaks = {"minplus_int32_per_s": 16.3e12, "copy_bytes_per_s": 2.9e12, "launch_us": 5.3, "device": "GPU X"}
    mm.peaks_table(peaks).to_csv(tmp_path / "table_peaks.csv", index=False)
    back = mm.peaks_from_table(tmp_path / "table_peaks.csv")
    assert back.keys() == {"minplus_int32_per_s", "copy_bytes_per_s", "launch_us"}
    assert all(back[k] == pytest.approx(peaks[k]) for k in back)


class Killed(BaseException):
    """The runner killing the notebook's kernel (not an error a sweep records and goes past)."""


def sweep_killed_at_256(monkeypatch, cfg, out_dir, **kw):
    """A sweep of DENSE and SSSP saving into ``out_dir``, killed when it reaches n = 256."""
    first = FakeTimer()

    def killed_at_256(method, graph, **more):
        if graph.n == 256:
            raise Killed()
        return first(method, graph, **more)

    monkeypatch.setattr(mm.timing, "run", killed_at_256)
    with pytest.raises(Killed):
        mm.sweep(cfg, methods=[DENSE, SSSP], out_dir=out_dir, **kw)


def test_a_killed_sweep_is_resumed_from_the_graphs_it_had_finished(monkeypatch, tmp_path):
    from apsp_kernels import report
    cfg = {**mm.config("smoke"), "sizes": (64, 128, 256), "densities": (2,),
           "topologies": ("random", "ring"), "cap_s": 0.1, "max_arcs": 40000, "budget_s": 1e9}
    methods = [DENSE, SSSP]
    monkeypatch.setattr(mm.timing, "run", FakeTimer())
    whole = mm.sweep(cfg, methods=methods)

    sweep_killed_at_256(monkeypatch, cfg, tmp_path)
    saved = pd.read_csv(tmp_path / "records_apsp.csv")
    assert set(saved["n"]) == {64, 128}
    # what reproduce --resume leaves for the rerun at the same profile and commit (test_runner)
    (tmp_path / report.RESUME_FILE).write_text(json.dumps({"commit": "abc", "experiments": ["sssp", "apsp"]}))
    again = FakeTimer()
    monkeypatch.setattr(mm.timing, "run", again)
    resumed = mm.sweep(cfg, methods=methods, out_dir=tmp_path)
    assert again.calls and {n for _, _, n in again.calls} == {256}

    def key(r):
        t = r.time_ms_median
        return (r.method, r.experiment, r.graph, None if t is None or math.isnan(t) else t, r.skipped or "")

    assert sorted(map(key, resumed.records)) == sorted(map(key, whole.records))
    assert len(pd.read_csv(tmp_path / "records_apsp.csv")) == sum(r.experiment == "apsp" for r in whole.records)
    names = list(report.read_run(tmp_path)["resumed"]["experiments"])
    assert any(name.startswith("sssp (") and "part it had finished" in name for name in names)


def test_a_resumed_sweep_counts_the_time_the_unfinished_one_had_spent(monkeypatch, tmp_path):
    from apsp_kernels import report
    ticks = iter(range(10**6))

    def clock():  # one second a reading
        return float(next(ticks))

    cfg = {**mm.config("smoke"), "sizes": (64, 128, 256), "densities": (2,), "topologies": ("random",),
           "cap_s": 0.1, "max_arcs": 40000, "budget_s": 1e9}
    sweep_killed_at_256(monkeypatch, cfg, tmp_path, clock=clock)
    saved = [r for p in mm.PROBLEMS for r in report.from_csv(tmp_path / f"records_{p}.csv")]
    spent = max(r.stat("sweep_s") for r in saved)
    assert spent > 0 and all(r.stat("sweep_s") is not None for r in saved if not r.skipped)
    (tmp_path / report.RESUME_FILE).write_text(json.dumps({"commit": "abc", "experiments": ["sssp", "apsp"]}))
    again = FakeTimer()
    monkeypatch.setattr(mm.timing, "run", again)
    resumed = mm.sweep({**cfg, "budget_s": spent - 0.5}, methods=[DENSE, SSSP], out_dir=tmp_path, clock=clock)
    assert not again.calls  # the budget was spent before the kill: n = 256 is not run
    assert any("time budget" in r.skipped and r.n == 256 for r in resumed.records)
    monkeypatch.setattr(mm.timing, "run", FakeTimer())
    (tmp_path / report.RESUME_FILE).write_text(json.dumps({"commit": "abc", "experiments": ["sssp", "apsp"]}))
    rest = mm.sweep({**cfg, "budget_s": spent + 1e6}, methods=[DENSE, SSSP], out_dir=tmp_path, clock=clock)
    assert any(r.n == 256 and not r.skipped for r in rest.records)  # budget left: n = 256 runs


# ------------------------------------------------------------------ the dtype axis (issue 29)
FW64 = registry.get("fast", "rkleene")  # the FW family's float64 (and int32) method


class DtypeTimer(FakeTimer):
    """FakeTimer that also keeps each graph's weights and times float64 graphs 1.25x (dense 2x)."""

    def __init__(self):
        super().__init__()
        self.weights = {}

    def __call__(self, method, graph, **kw):
        self.weights[graph.name] = np.asarray(graph.weights)
        rec = super().__call__(method, graph, **kw)
        if graph.dtype == np.float64:
            rec.time_ms_median *= 2.0 if method.key == FW64.key else 1.25
        return rec


@pytest.fixture
def dtype_sweep(monkeypatch):
    timer = DtypeTimer()
    monkeypatch.setattr(mm.timing, "run", timer)
    cfg = {**mm.config("smoke"), "sizes": (64, 128), "densities": (2,), "topologies": ("random", "ring"),
           "float64_sizes": (128,), "float64_series": ("random/d2",), "budget_s": 1e9, "cap_s": 10.0}
    return mm.sweep(cfg, methods=[DENSE, FW64, SSSP]), timer, cfg


def test_float64_twins_run_the_float64_families_on_fractional_weights(dtype_sweep):
    result, timer, cfg = dtype_sweep
    df = mm.frame(result.records)
    wide = df[df["dtype"] == "float64"]
    # only the chosen cell, only the float64 families' methods (not pandey's R-Kleene, not SciPy)
    assert set(wide["graph"]) == {"random-n128-d2-f64"} and set(wide["n"]) == {128}
    assert set(wide["key"]) == {FW64.key, SSSP.key}
    assert set(wide["problem"]) == {"apsp", "sssp"} and wide["ok"].all()
    assert (wide["series"] == "random/d2" + mm.FLOAT64_SERIES).all()
    assert (wide["base_series"] == "random/d2").all()
    w64, w32 = timer.weights["random-n128-d2-f64"], timer.weights["random-n128-d2"]
    assert w64.dtype == np.float64 and np.all((w64 - w32 >= 0) & (w64 - w32 < 1))
    assert np.any(w64 != np.round(w64))  # fractional: no kernel can take the integer path
    assert any(c.get("dtype") == "float64" and c["graph"] == "random-n128-d2-f64" for c in result.cells)
    # the int32 maps are unchanged by the twins
    assert (mm.winners(df, "apsp")["n"] == 128).sum() == 2  # random and ring cells, no float64 cell
    assert not df[df["dtype"] == "int32"]["graph"].str.endswith("-f64").any()


def test_float64_rows_reach_the_decision_table(dtype_sweep, tmp_path, monkeypatch):
    result, _, cfg = dtype_sweep
    monkeypatch.setattr(mm.gpu, "available", lambda: True)
    table = mm.write_decision_table(result.records, {**cfg, "profile": "default"}, tmp_path / "t.csv")
    wide = table[table["dtype"] == "float64"]
    assert set(wide["method"]) == {FW64.key, SSSP.key} and (wide["n"] == 128).all()
    assert set(table["dtype"]) == {"int32", "float64"}


def test_dtype_comparison_sets_float64_beside_int32_of_the_same_family(dtype_sweep):
    result, _, _ = dtype_sweep
    peaks = {"minplus_float64_per_s": 1e9}
    cmp = mm.dtype_comparison(mm.frame(result.records), peaks)
    fw = cmp[(cmp["family"] == "FW")].iloc[0]
    assert fw["int32_method"] == fw["float64_method"] == FW64.key and fw["n"] == 128
    assert fw["float64_over_int32"] == pytest.approx(2.0)
    assert fw["of_float64_peak"] == pytest.approx(128 ** 3 / (fw["float64_ms"] * 1e-3) / 1e9)
    harish = cmp[(cmp["family"] == "harish") & (cmp["problem"] == "sssp")].iloc[0]
    assert harish["float64_over_int32"] == pytest.approx(1.25) and np.isnan(harish["of_float64_peak"])
    assert set(cmp["series"]) == {"random/d2"}
    assert mm.dtype_comparison(mm.frame([]), peaks).empty


def _cmp_row(family, n, of_peak=np.nan, int_ms=1.0, f64_ms=1.0, problem="apsp", series="random/d8"):
    return {"family": family, "problem": problem, "series": series, "n": n, "m": 8 * n,
            "int32_ms": int_ms, "float64_ms": f64_ms, "float64_over_int32": f64_ms / int_ms,
            "extrapolated": False, "float64_T_per_s": 1.0, "of_float64_peak": of_peak}


def test_dtype_verdicts_judge_the_best_family_per_cell_against_the_targets():
    dense = pd.DataFrame([_cmp_row("FW", 8192, 0.85), _cmp_row("blocked_fw", 8192, 0.3),
                          _cmp_row("FW", 1024, 0.1)])  # below n = 8192: not judged
    road = pd.DataFrame([_cmp_row("D", 264346, int_ms=10.0, f64_ms=14.0, problem="road_sssp"),
                         _cmp_row("worklist", 264346, int_ms=8.0, f64_ms=13.0, problem="road_sssp")])
    out = mm.dtype_verdicts(dense, road, "USA-road-d.NY")
    assert out[0]["holds"] is True and "FW 85%" in out[0]["measured"]
    assert out[1]["holds"] is False and out[1]["measured"].startswith("1.62x")  # 13 / 8: fastest of each
    slow = pd.DataFrame([_cmp_row("FW", 8192, 0.85), _cmp_row("FW", 16384, 0.79, series="road")])
    assert mm.dtype_verdicts(slow, road.iloc[:1], "NY")[0]["holds"] is False
    assert mm.dtype_verdicts(slow, road.iloc[:1], "NY")[1]["holds"] is True  # 14 / 10
    none = mm.dtype_verdicts(mm.dtype_comparison(mm.frame([])), mm.dtype_comparison(mm.frame([])), "NY")
    assert [v["holds"] for v in none] == [None, None] and all("not run" in v["measured"] for v in none)
    assert all(any(e.matches(v["claim"]) for e in mm.EVIDENCE) for v in out)


def test_road_sssp_runs_every_sssp_family_in_both_weight_types(monkeypatch):
    timer = DtypeTimer()
    monkeypatch.setattr(mm.timing, "run", timer)
    cfg = mm.config("smoke")
    recs = mm.road_sssp(cfg, methods=[DENSE, FW64, SSSP, registry.get("fast", "sssp_worklist")])
    df = mm.frame(recs)
    assert set(df["experiment"]) == {"road_sssp"} and len(df) == 4  # 2 SSSP methods x 2 weight types
    assert set(zip(df["key"], df["dtype"])) == {(k, d) for k in (SSSP.key, "fast:sssp_worklist")
                                                for d in ("int32", "float64")}
    assert df.loc[df["dtype"] == "float64", "graph"].str.endswith("-f64").all()
    assert mm.road_graph(cfg["road"]).is_stand_in
    road = mm.dtype_comparison(df, {})
    assert set(road["family"]) == {"harish", "worklist"} and (road["float64_over_int32"] == 1.25).all()


def test_dtype_verdicts_name_their_records_through_evidence(dtype_sweep, tmp_path, monkeypatch):
    from apsp_kernels import provenance, report, verdicts
    result, _, cfg = dtype_sweep
    monkeypatch.setattr(mm, "DENSE_TARGET", (128, 0.8))
    monkeypatch.setattr(mm, "EVIDENCE", [mm.Evidence(r"float64 dense APSP", "apsp",
                                                      method=("rkleene", "fw_tiled_shared"),
                                                      where="n >= 128 and graph.str.endswith('-f64')"),
                                         mm.EVIDENCE[1]])
    monkeypatch.setattr(mm.timing, "run", DtypeTimer())
    report.save_records(result.records, tmp_path, "apsp")
    road = mm.road_sssp(cfg, methods=[SSSP])
    report.save_records(road, tmp_path, "road_sssp")
    mm.analyse_dtypes(result.records, road, {"minplus_float64_per_s": 1e6}, cfg, tmp_path)
    df = verdicts.annotate(tmp_path, mm.EVIDENCE)
    frame = verdicts.load_records(tmp_path)
    by_id = dict(zip(frame["id"], frame["graph"]))
    dense, sssp = df.iloc[0], df.iloc[1]
    assert dense["records"] and all(by_id[i] == "random-n128-d2-f64" for i in dense["records"].split())
    assert len(sssp["records"].split()) == 2 and sssp["basis"] != provenance.NOT_RUN
    assert (tmp_path / "table_dtype.csv").exists() and (tmp_path / "table_dtype_road.csv").exists()


def test_a_float64_twin_starts_from_its_int32_series_cap_but_not_its_dominance(monkeypatch):
    timer = FakeTimer()
    monkeypatch.setattr(mm.timing, "run", timer)
    cfg = {**mm.config("smoke"), "sizes": (64, 128), "densities": (8,), "topologies": ("random",),
           "cap_s": 1e-4, "budget_s": 1e9, "float64_sizes": (128,), "float64_series": ("random/d8",)}
    df = mm.frame(mm.sweep(cfg, methods=[SSSP]).records)
    wide = df[(df["dtype"] == "float64")].set_index("problem")["skipped"]
    assert wide["sssp"].startswith("capped at n=128") and wide["sssp"].endswith("(in its int32 series)")
    assert wide["apsp"].startswith("capped at n=64") and wide["apsp"].endswith("(in its int32 series)")
    stopped = {(SSSP.key, "apsp", "road"): "dominated: 20x slower", (SSSP.key, "sssp", "road"): "capped"}
    assert mm.int32_series((SSSP.key, "apsp", "road/f64"), {}, stopped) is None
    assert mm.int32_series((SSSP.key, "sssp", "road/f64"), {}, stopped) == (SSSP.key, "sssp", "road")
    assert mm.int32_series((SSSP.key, "sssp", "road"), {}, stopped) is None


def _row(family, dtype, n, m, ms, problem="all_pairs"):
    from apsp_kernels.csgraph.families import FAMILIES
    return {"problem": problem, "dtype": dtype, "n": n, "m": m, "family": family,
            "method": FAMILIES[family].key(dtype, False), "time_ms": ms, "device": "x",
            "source": f"{problem} on g"}


@pytest.fixture
def float64_graph():
    from apsp_kernels import generators
    return mm.as_float64(generators.random_digraph(4096, 32768, w_max=100, seed=0))


def test_auto_uses_measured_float64_rows_when_the_table_has_them(monkeypatch, float64_graph):
    g = float64_graph
    monkeypatch.setattr(auto.gpu, "available", lambda: True)
    monkeypatch.setattr(auto.gpu, "free_bytes", lambda: 1 << 40)
    table = pd.DataFrame([_row("FW", "int32", 4096, 32768, 10.0), _row("FW", "float64", 4096, 32768, 30.0),
                          _row("D", "int32", 4096, 32768, 20.0), _row("D", "float64", 4096, 32768, 25.0)],
                         columns=auto.COLUMNS)
    choice = auto.choose(g, g.n, False, table)
    est = {name: (ms, note) for name, ms, note in choice.candidates}
    assert est["FW"][0] == pytest.approx(30.0) and est["D"][0] == pytest.approx(25.0)
    assert "not measured" not in est["FW"][1] + est["D"][1]
    assert choice.family == "D" and "estimated" not in choice.reason


def test_auto_scales_the_32_bit_rows_of_a_family_without_float64_rows(monkeypatch, float64_graph):
    g = float64_graph
    monkeypatch.setattr(auto.gpu, "available", lambda: True)
    monkeypatch.setattr(auto.gpu, "free_bytes", lambda: 1 << 40)
    table = pd.DataFrame([_row("FW", "int32", 4096, 32768, 1.0), _row("D", "int32", 4096, 32768, 20.0),
                          _row("D", "float64", 4096, 32768, 25.0)], columns=auto.COLUMNS)
    choice = auto.choose(g, g.n, False, table)
    est = {name: (ms, note) for name, ms, note in choice.candidates}
    assert est["FW"][0] == pytest.approx(1.0 * auto.FLOAT64_DENSE_FACTOR)
    assert "float64 not measured: an estimate, the int32 rows" in est["FW"][1]
    assert est["D"][0] == pytest.approx(25.0) and "not measured" not in est["D"][1]  # D's own rows
    assert choice.family == "FW" and "no float64 rows for 'FW'" in choice.reason
    sssp = pd.DataFrame([_row("D", "int32", 4096, 32768, 2.0, "single_source")], columns=auto.COLUMNS)
    one = auto._estimate(auto.FAMILIES["D"], auto.index(sssp), g, 1, False)
    assert one[0] == pytest.approx(2.0 * auto.FLOAT64_SPARSE_FACTOR) and "bytes per arc" in one[1]
