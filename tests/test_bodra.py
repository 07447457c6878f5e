"""bodra on the CPU: registry, input checks, CPU baselines, prefix checks, drivers (smoke)."""
import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

from apsp_kernels import generators, gpu, oracle, profiles, registry, report
from apsp_kernels.errors import InputError
from apsp_kernels.experiments import bodra as exp
from apsp_kernels.graph import Graph
from apsp_kernels.inf import INF_INT32
from apsp_kernels.profiles import PROFILES
from apsp_kernels.records import Record
from apsp_kernels.timing import run

GPU_METHODS = ("bf_naive", "bf_stride", "bf_stride_flag", "dijkstra_naive_apsp", "fw_super_naive",
               "fw_super_naive_shared", "fw_naive", "fw_tiled", "fw_tiled_shared")
CPU_METHODS = ("bf_serial", "dijkstra_serial", "fw_serial")
NONNEGATIVE_ONLY = ("dijkstra_naive_apsp", "dijkstra_serial", "fw_super_naive",
                    "fw_super_naive_shared", "fw_naive", "fw_tiled", "fw_tiled_shared", "fw_serial")


def negative_graph(n=6):
    """Negative arcs, no negative cycle."""
    src = [0, 0, 1, 2, 3, 4]
    dst = [1, 2, 3, 3, 4, 5]
    w = [4, 1, -2, 5, -1, 3]
    return Graph.from_edges(n, src, dst, w, name="negative")


def negative_cycle_graph():
    return Graph.from_edges(4, [0, 1, 2, 2], [1, 2, 1, 3], [1, -3, 1, 2], name="negcycle")


def unreachable_graph(seed=3):
    rng = np.random.default_rng(seed)
    n = 60
    src = rng.integers(0, 40, 150)
    dst = rng.integers(0, 40, 150)
    return Graph.from_edges(n, src, dst, rng.integers(0, 30, 150), name="unreachable")


# ------------------------------------------------------------------------------ registry
def test_registry_lists_every_method_of_the_paper():
    names = {m.name for m in registry.methods("bodra")}
    assert set(GPU_METHODS) | set(CPU_METHODS) == names
    for m in registry.methods("bodra"):
        cls = m.solver_class()
        assert m.gpu == cls.on_gpu, m.name
    assert dict(registry.get("bodra", "fw_super_naive").params) == {"parents": True}
    assert dict(registry.get("bodra", "bf_stride_flag").params) == {"variant": "stride_flag"}


def test_super_naive_is_the_projects_per_k_solver():
    from apsp_kernels.floyd_warshall.per_k import FloydWarshallPerK
    cls = registry.get("bodra", "fw_super_naive").solver_class()
    assert issubclass(cls, FloydWarshallPerK)
    s = registry.get("bodra", "fw_super_naive").make(generators.ring(40))
    assert s.parents and s.block == (32, 32) and s.k_steps == 40
    assert registry.get("bodra", "fw_super_naive").make(generators.ring(40), max_k=7).k_steps == 7


# ------------------------------------------------------------------------------ input checks
@pytest.mark.parametrize("name", NONNEGATIVE_ONLY)
def test_negative_weights_are_rejected_naming_the_method(name):
    with pytest.raises(InputError, match="non-negative"):
        registry.get("bodra", name).make(negative_graph())


@pytest.mark.parametrize("name", ("bf_naive", "bf_stride", "bf_stride_flag", "bf_serial"))
def test_bellman_ford_accepts_negative_weights(name):
    solver = registry.get("bodra", name).make(negative_graph())
    assert solver.accepts_negative
    assert list(solver.sources) == [0]


FLOAT_METHODS = ("bf_naive", "bf_stride", "bf_stride_flag", "fw_tiled", "fw_tiled_shared")  # _f32/_f64 kernels


@pytest.mark.parametrize("name", [m for m in GPU_METHODS if m not in FLOAT_METHODS] + ["bf_serial"])
def test_float_weights_are_rejected(name):
    g = generators.random_digraph(20, 60, w_max=9, seed=1, dtype=np.float32)
    with pytest.raises(InputError, match="int32"):
        registry.get("bodra", name).make(g)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", FLOAT_METHODS)
def test_float_weights_are_taken_by_the_float_kernels(name, dtype):
    g = generators.random_digraph(20, 60, w_max=9, seed=1, dtype=dtype)
    assert g.dtype == dtype
    assert registry.get("bodra", name).make(g).graph is g


def test_bad_parameters_raise_clear_errors():
    g = generators.ring(10)
    bf = registry.get("bodra", "bf_naive")
    with pytest.raises(InputError, match="mode"):
        bf.make(g, mode="fast")
    with pytest.raises(InputError, match="variant"):
        bf.make(g, variant="warp")
    with pytest.raises(InputError, match="threads"):
        bf.make(g, threads=100)
    with pytest.raises(InputError, match="check_every"):
        bf.make(g, mode="early_exit", check_every=0)
    with pytest.raises(InputError, match="max_k"):
        registry.get("bodra", "fw_tiled").make(g, max_k=-1)
    with pytest.raises(InputError, match="threads"):
        registry.get("bodra", "dijkstra_naive_apsp").make(g, threads=48)
    with pytest.raises(ValueError, match="sources"):
        bf.make(g, sources=[10])


def test_constructors_compute_sizes_without_a_gpu():
    g = generators.random_digraph(70, 300, w_max=100, seed=2)
    tiled = registry.get("bodra", "fw_tiled_shared").make(g)
    assert tiled.size == 96 and tiled.tiles == 3 and tiled.rounds == 3
    assert tiled.bytes_needed() >= 2 * 96 * 96 * 4
    assert registry.get("bodra", "fw_tiled").make(g, max_k=40).rounds == 2
    naive = registry.get("bodra", "fw_naive").make(g, parents=False)
    assert naive.size == 70 and naive.bytes_needed() >= 70 * 70 * 4
    dij = registry.get("bodra", "dijkstra_naive_apsp").make(g)
    assert dij.ldc % 4 == 0 and dij.ldc >= 70 and dij.max_extractions == 70
    bf = registry.get("bodra", "bf_stride").make(g)
    assert bf.blocks == 1 and bf.n_iter == 69
    assert registry.get("bodra", "bf_naive").make(g, max_iterations=5).n_iter == 5


# ------------------------------------------------------------------------------ CPU baselines
@pytest.mark.parametrize("mode", ("faithful", "early_exit"))
@pytest.mark.parametrize("graph", [negative_graph(), unreachable_graph(),
                                   generators.random_digraph(120, 500, w_max=100, seed=4),
                                   Graph.from_edges(1, [], [], [], name="n1")],
                         ids=lambda g: g.name)
def test_serial_bellman_ford_matches_the_oracle(graph, mode):
    for source in (0, graph.n - 1):
        rec = run(registry.get("bodra", "bf_serial"), graph, experiment="test", sources=[source],
                  params={"mode": mode}, repeats=1, warmup=0)
        assert rec.verified, (rec.verify_scope, rec.skipped)
        assert "predecessors" in rec.verify_scope
        if mode == "early_exit" and graph.n > 1:
            assert rec.stat("converged_after") <= graph.n - 1


def test_serial_bellman_ford_prefix_past_convergence_is_final():
    g = generators.random_digraph(200, 800, w_max=50, seed=5)
    early = run(registry.get("bodra", "bf_serial"), g, experiment="t", params={"mode": "early_exit"},
                repeats=1, warmup=0)
    c = early.stat("converged_after")
    rec = run(registry.get("bodra", "bf_serial"), g, experiment="t",
              params={"mode": "faithful", "max_iterations": c}, repeats=1, warmup=0)
    assert rec.verified and rec.stat("iterations") == c and rec.stat("truncated")


def test_serial_bellman_ford_rejects_a_negative_cycle():
    with pytest.raises(InputError, match="negative cycle"):
        run(registry.get("bodra", "bf_serial"), negative_cycle_graph(), experiment="t",
            params={"mode": "early_exit"}, repeats=1, warmup=0)


def test_scipy_dijkstra_baseline_matches_the_oracle():
    g = unreachable_graph()
    rec = run(registry.get("bodra", "dijkstra_serial"), g, experiment="t", repeats=1, warmup=0)
    assert rec.verified and "predecessors" in rec.verify_scope
    rec = run(registry.get("bodra", "dijkstra_serial"), g, experiment="t", sources=[3, 7],
              repeats=1, warmup=0, scale=30.0, extrapolation="sampled")
    assert rec.verified and rec.extrapolated


def test_serial_floyd_warshall_matches_the_oracle():
    g = generators.random_digraph(90, 400, w_max=100, seed=6)
    rec = run(registry.get("bodra", "fw_serial"), g, experiment="t", repeats=1, warmup=0)
    assert rec.verified


# ------------------------------------------------------------------------------ prefix checks
def fw_prefix(g: Graph, k: int) -> np.ndarray:
    d = g.dense().astype(np.int64)
    for kk in range(k):
        d = np.minimum(d, d[:, kk:kk + 1] + d[kk:kk + 1, :])
    d[d >= INF_INT32] = INF_INT32
    return d


@pytest.mark.parametrize("k", (0, 1, 7, 30, 60))
def test_restricted_graph_gives_the_distances_after_k_floyd_warshall_steps(k):
    g = unreachable_graph(seed=k)
    want = fw_prefix(g, k)
    for s in (0, 5, 39, 59):
        h = exp.restricted_graph(g, s, k)
        got = oracle.distances(h, [s])[0]
        ref = want[s].astype(np.float64)
        ref[want[s] >= INF_INT32] = np.inf
        assert np.array_equal(got, ref), (k, s)


def test_fw_units_count_rounds_for_the_tiled_variants():
    assert exp.fw_units("fw_tiled", 100, 100) == 4
    assert exp.fw_units("fw_tiled_shared", 100, 33) == 2
    assert exp.fw_units("fw_naive", 100, 33) == 33
    assert exp.fw_units("fw_super_naive", 100, 500) == 100


def _record(p, ms, verified=True):
    return Record(paper="bodra", experiment="table1_prefix", method="bf_naive", graph="g", n=1001,
                  m=5, params={"mode": "faithful", "max_iterations": p}, time_ms_median=ms,
                  time_ms_min=ms, repeats=1, verified=verified, max_error=0.0, verify_scope="all 1 rows",
                  device="test")


def test_two_point_estimate_extends_the_post_convergence_slope():
    r1, r2 = _record(100, 50.0), _record(200, 60.0)
    est = exp.two_point_estimate(r1, r2, 100, 200, 1000, 80)
    assert est.experiment == "table1" and est.extrapolated and est.verified
    assert est.time_ms_median == pytest.approx(60.0 + 800 * 0.1)
    assert "max_iterations" not in json.loads(est.params)
    assert json.loads(est.stats)["prefix_iterations"] == [100, 200]
    noisy = exp.two_point_estimate(_record(100, 70.0), r2, 100, 200, 1000, 80)
    assert noisy.time_ms_median == pytest.approx(60.0 * 1000 / 200)
    assert not exp.two_point_estimate(_record(100, 50.0, verified=False), r2, 100, 200, 1000, 80).verified


def test_a_full_run_projected_beyond_the_budget_is_estimated_from_prefixes_and_says_why(monkeypatch):
    runs = []

    def fake_run(name, g, cfg, experiment, *, params=None, repeats=1, warmup=0, **kw):
        p = (params or {}).get("max_iterations")
        runs.append((experiment, p))
        rec = _record(p or 80, 8.0 if p is None else 8.0 + 0.1 * (p - 80))
        return dataclasses.replace(rec, method=name, experiment=experiment,
                                   stats=json.dumps({"converged_after": 80}))

    monkeypatch.setattr(exp, "_run", fake_run)
    g = Graph.from_edges(1001, [0], [1], [1], name="g")
    cfg = {**exp.config("paper"), "bf_run_budget_s": 0.05}  # in full: 8 ms x 1000 / 80 = 0.1 s
    out = exp.bf_runs("bf_serial", g, cfg)
    assert runs == [("table1_early_exit", None), ("table1_prefix", 80 + exp.BF_FALLBACK_STEP[False])]
    est = out[-1]
    assert est.extrapolated and est.extrapolation.startswith(
        "the full run projected at 0.1 s from the early-exit run (80 iterations), beyond the profile's 0.05 s")
    runs.clear()
    exp.bf_runs("bf_serial", g, {**cfg, "bf_run_budget_s": 1.0})  # within the budget: in full
    assert runs == [("table1_early_exit", None), ("table1", None)]


HERE = gpu.device_info()["device"]  # a resumed run reuses only records measured on this machine's device


def test_table1_saves_after_every_run_and_a_resumed_run_keeps_the_runs_it_finished(tmp_path, monkeypatch):
    ran, loaded = [], []
    monkeypatch.setattr(exp, "road_graph", lambda name, cfg: loaded.append(name) or
                        Graph.from_edges(3, [0], [1], [1], name=name))
    monkeypatch.setattr(exp, "bf_runs", lambda method, g, cfg: ran.append((g.name, method)) or [
        dataclasses.replace(_record(10, 1.0), graph=g.name, method=method, experiment="table1",
                            timestamp="2026-11-26T00:00:00+00:00", device=HERE)])
    cfg = {**exp.config("smoke"), "road_graphs": ("NY", "BAY"), "bf_cpu_graphs": ()}
    first = exp.table1(cfg, out_dir=tmp_path)
    assert len(first) == 2 * len(exp.BF_METHODS)
    saved = pd.read_csv(tmp_path / "records_table1.csv")
    assert list(saved["graph"]) == ["NY"] * len(exp.BF_METHODS) + ["BAY"] * len(exp.BF_METHODS)
    keep = len(exp.BF_METHODS) + 1  # killed during BAY's second variant
    (tmp_path / "records_table1.csv").write_text(
        "\n".join((tmp_path / "records_table1.csv").read_text().splitlines()[:1 + keep]) + "\n")
    (tmp_path / report.RESUME_FILE).write_text(json.dumps({"commit": "abc1234", "experiments": ["table1"]}))
    ran.clear(), loaded.clear()
    again = exp.table1(cfg, out_dir=tmp_path)  # NY and BAY's first variant from the records
    assert ran == [("BAY", m) for m in exp.BF_METHODS[1:]] and loaded == ["BAY"]
    assert [r.graph for r in again] == ["NY"] * len(exp.BF_METHODS) + ["BAY"] * len(exp.BF_METHODS)
    assert [r.method for r in again] == list(exp.BF_METHODS) * 2
    assert "table1" in " ".join(report.read_run(tmp_path)["resumed"]["experiments"])


def test_table3_saves_after_every_run_and_a_resumed_run_keeps_the_runs_it_finished(tmp_path, monkeypatch):
    ran = []
    monkeypatch.setattr(exp, "p2p_graph", lambda name, cfg: Graph.from_edges(3, [0], [1], [1], name=name))
    monkeypatch.setattr(exp, "fw_runs", lambda method, g, cfg: ran.append((g.name, method)) or [
        dataclasses.replace(_record(10, 1.0), graph=g.name, method=method, experiment="table3",
                            timestamp="2026-11-26T00:00:00+00:00", device=HERE)])
    cfg = {**exp.config("smoke"), "fw_graphs": ("gnutella04", "gnutella25"), "fw_serial_graphs": ("gnutella04",)}
    order = [("gnutella04", m) for m in exp.FW_METHODS + ("fw_serial",)] + [("gnutella25", m) for m in exp.FW_METHODS]
    first, memory = exp.table3(cfg, out_dir=tmp_path)
    assert ran == order and len(memory) == 2 * len(exp.FW_METHODS)
    saved = pd.read_csv(tmp_path / "records_table3.csv")
    assert list(zip(saved["graph"], saved["method"])) == order
    keep = 1 + len(exp.FW_METHODS) + 2  # killed during gnutella25's second variant
    (tmp_path / "records_table3.csv").write_text(
        "\n".join((tmp_path / "records_table3.csv").read_text().splitlines()[:keep]) + "\n")
    (tmp_path / report.RESUME_FILE).write_text(json.dumps({"commit": "abc1234", "experiments": ["table3"]}))
    ran.clear()
    again, memory = exp.table3(cfg, out_dir=tmp_path)
    assert ran == order[keep - 1:]
    assert [(r.graph, r.method) for r in again] == order and len(memory) == 2 * len(exp.FW_METHODS)
    assert "table3" in " ".join(report.read_run(tmp_path)["resumed"]["experiments"])


def test_serial_fw_prefix_is_final_below_k_and_scaled_with_its_reason():
    from apsp_kernels.floyd_warshall.cpu import FloydWarshallSerial
    g = Graph.from_edges(4, [0, 1, 2], [1, 2, 3], [1, 1, 1], name="path4")
    full = FloydWarshallSerial(g).solve_once("full").rows([0])
    part = FloydWarshallSerial(g, max_k=2).solve_once("prefix").rows([0])
    assert full[0, 3] == 3 and part[0, 2] == 2 and part[0, 3] > 3  # the path through 2 needs k = 2
    with pytest.raises(InputError, match="max_k must be >= 0, got -1"):
        FloydWarshallSerial(g, max_k=-1)
    cfg = exp.config("paper")
    rec = exp.fw_runs("fw_serial", Graph.from_edges(600, [0], [1], [1], name="g600"), cfg)[0]
    assert rec.extrapolated and "first 512 of 600 values of k" in rec.extrapolation
    assert "device call" in rec.extrapolation and rec.verified


# ------------------------------------------------------------------------------ published data
def test_published_tables_transcribe_the_paper():
    t1 = report.published("bodra", "table1")
    assert len(t1) == 24 and set(t1["dataset"]) == set(exp.ROAD_GRAPHS)
    ny = t1[(t1["dataset"] == "NY")].set_index("method")["time_s"]
    assert ny["bf_serial"] == 1320 and ny["bf_stride_flag"] == pytest.approx(3.91371)
    t2 = report.published("bodra", "table2").set_index("method")["time_s"]
    assert t2["dijkstra_naive_apsp"] == pytest.approx(119.941) and t2["dijkstra_serial"] == 1440
    t3 = report.published("bodra", "table3")
    assert len(t3) == 18
    g30 = t3[t3["dataset"] == "gnutella30"].set_index("method")["time_s"]
    assert g30["fw_tiled_shared"] == pytest.approx(82.3174) and math.isnan(g30["fw_serial"])
    claims = report.published("bodra", "claims")
    assert "bf_flag_vs_naive" in set(claims["claim_id"])
    assert "source" in t1 and t1["source"].str.contains("bodra").all()
    speed = report.published("bodra", "speed_reference").set_index("n")["time_ms"]
    assert speed[4096] == 62 and speed[8192] == 362


# ------------------------------------------------------------------------------ config + drivers
@pytest.mark.parametrize("profile", PROFILES)
def test_config_is_complete_for_every_profile(profile):
    cfg = exp.config(profile)
    assert cfg["profile"] == profile
    assert set(cfg["road_graphs"]) | set(cfg["road_skipped"]) == set(exp.ROAD_GRAPHS)
    assert set(exp.FW_METHODS) <= set(cfg["fw_prefix_k"]) <= set(exp.FW_METHODS) | {"fw_serial"}
    assert set(cfg["fw_prefix_why"]) <= {k for k, v in cfg["fw_prefix_k"].items() if v is not None}
    assert set(cfg["fw_graphs"]) <= set(exp.GNUTELLA)
    if profile == "paper":  # every GPU variant in full; the serial one from a prefix, saying why
        assert all(cfg["fw_prefix_k"][name] is None for name in exp.FW_METHODS)
        assert cfg["fw_prefix_k"]["fw_serial"] and "device call" in cfg["fw_prefix_why"]["fw_serial"]
        assert cfg["bf_gpu_prefix_min"] is None and cfg["road_graphs"] == exp.ROAD_GRAPHS
    if profile == "default":
        assert cfg["bench_sizes"] == (4096, 8192) and cfg["fw_graphs"] == exp.GNUTELLA
        assert {"NY", "BAY"} <= set(cfg["road_graphs"])


def test_each_profile_keeps_its_own_none():
    assert profiles.each("paper", smoke=1, default=2, paper=None) is None  # every source, no prefix
    assert profiles.choose("paper", smoke=1, default=2, paper=None) == 2   # choose: as default
    assert [profiles.each(p, smoke=1, default=2, paper=3) for p in PROFILES] == [1, 2, 3]
    with pytest.raises(ValueError, match="profile must be one of"):
        profiles.each("full", smoke=1, default=2, paper=3)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    """Every driver in the smoke profile (GPU rows are skipped records without a GPU)."""
    cfg = exp.config("smoke")
    out = tmp_path_factory.mktemp("bodra_smoke")
    t1 = report.save_records(exp.table1(cfg), out, "table1")
    t2 = report.save_records(exp.table2(cfg), out, "table2")
    recs3, memory = exp.table3(cfg)
    t3 = report.save_records(recs3, out, "table3")
    sp = report.save_records(exp.speed_reference(cfg), out, "speed")
    return cfg, t1, t2, t3, memory, sp


def test_smoke_drivers_measure_the_cpu_rows(smoke):
    cfg, t1, t2, t3, memory, sp = smoke
    cpu = pd.concat([t1, t2, t3])
    cpu = cpu[cpu["timing_scope"] == "cpu"]
    assert len(cpu) and cpu["verified"].all()
    table1 = exp.table1_frame(t1, cfg)
    assert set(table1["graph"]) == set(exp.ROAD_GRAPHS)
    assert table1["paper s"].notna().any()
    ny_cpu = table1[(table1["graph"] == "NY") & (table1["method"] == exp.LABELS["bf_serial"])]
    assert ny_cpu["ours faithful s"].notna().all() and ny_cpu["iterations to converge"].notna().all()
    table2 = exp.table2_frame(t2)
    assert table2["ours s"].notna().any()
    table3 = exp.table3_frame(t3, memory)
    assert set(table3["graph"]) == set(exp.GNUTELLA)
    assert (memory["device bytes"] > 0).all()
    assert exp.fig5(table1) is not None and exp.fig6(table3) is not None


def test_smoke_drivers_skip_gpu_rows_with_a_reason_and_verdicts_stay_untested(smoke):
    from apsp_kernels import gpu
    if gpu.available():
        pytest.skip("a GPU is present: GPU rows run")
    cfg, t1, t2, t3, memory, sp = smoke
    gpu_rows = pd.concat([t1, t2, t3, sp])
    gpu_rows = gpu_rows[gpu_rows["timing_scope"] != "cpu"]
    assert len(gpu_rows) and (gpu_rows["skipped"].fillna("") != "").all()
    verdicts = exp.verdicts(pd.concat([t1, t2, t3]))
    assert len(verdicts) == 8 and all(v["holds"] is None for v in verdicts)
    assert exp.speed_verdict(exp.speed_frame(sp))["holds"] is None


def test_speed_verdict_against_the_authors_h100_code_is_judged_only_on_that_gpu():
    def speed(device):
        return pd.DataFrame({"n": [4096, 8192], "author device": "NVIDIA H100", "our device": device,
                             "ours ms (with copies)": [30.0, 400.0],
                             "author / ours (with copies)": [62 / 30, 362 / 400]})

    assert exp.speed_verdict(speed(report.GOAL_GPU))["holds"] is False
    elsewhere = exp.speed_verdict(speed("NVIDIA H200"))
    assert elsewhere["holds"] is None and "measured on NVIDIA H200, so not judged" in elsewhere["note"]
    assert "n=8192: 400.0 ms (0.91x)" in elsewhere["measured"]


def test_the_table2_pilot_is_no_timed_row_and_the_bound_it_sized_says_so(monkeypatch):
    from apsp_kernels.records import Record
    g = generators.k_regular_digraph(64, 3, seed=1, w_low=1, w_high=30, dtype=np.int32, name="gnutella04")

    def fake_run(name, graph, cfg, experiment, *, params=None, verify=True, sources=None, **kw):
        return Record(paper="bodra", experiment=experiment, method=name, graph=graph.name, n=graph.n, m=graph.m,
                      params=params or {}, time_ms_median=1000.0, time_ms_min=1000.0, repeats=1,
                      timing_scope="cpu" if name == "dijkstra_serial" else "kernel", verified=verify,
                      verify_scope="checked" if verify else "not checked")

    monkeypatch.setattr(exp, "p2p_graph", lambda name, cfg: g)
    monkeypatch.setattr(exp, "_run", fake_run)
    cfg = {**exp.config("default"), "dijkstra_pilot": 8, "dijkstra_budget_s": 1.0}
    records = exp.table2(cfg)
    by_experiment = {r.experiment: r for r in records}
    # the pilot's distances are not final, so no oracle checks it: it sizes the run and is kept as no row
    assert set(by_experiment) == {"table2", "table2_check"}  # bound 8 s > budget: check run
    bound = next(r for r in records if r.experiment == "table2" and r.method == "dijkstra_naive_apsp")
    assert bound.extrapolated and "first 8 extract-min steps (1000.0 ms, an unchecked pilot)" in bound.extrapolation
    assert by_experiment["table2_check"].verified
