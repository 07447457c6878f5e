"""liu (CPU parts): registry, input checks, array Dijkstra vs the oracle, COO->CSC, tables, smoke sweep."""
import numpy as np
import pandas as pd
import pytest

from apsp_kernels import generators, oracle, registry, report
from apsp_kernels.dijkstra import cpu_array
from apsp_kernels.errors import InputError
from apsp_kernels.experiments import liu as exp
from apsp_kernels.graph import Graph
from apsp_kernels.profiles import PROFILES
from apsp_kernels.sssp_iterative import spmv

CPU_METHODS = ("dijkstra_serial", "dijkstra_parallel")


def random_graph(n, m, seed, w_low=0, w_high=50, undirected=False, dtype=np.int32):
    """Random arcs, duplicates and loops included (from_edges cleans them); may leave vertices unreachable."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(w_low, w_high + 1, m) if dtype == np.int32 else rng.uniform(w_low, w_high, m)
    return Graph.from_edges(n, src, dst, w, dtype=dtype, undirected=undirected, name=f"rand{n}_{m}_{seed}")


def solve(name, g, source, **params):
    solver = registry.get("liu", name).make(g, sources=[source], **params)
    solver.solve_once()
    return solver


def test_registry_entries():
    names = {m.name: m for m in registry.methods("liu")}
    assert set(names) == {"dijkstra_serial", "dijkstra_parallel", "sssp_spmv"}
    assert not names["dijkstra_serial"].gpu and not names["dijkstra_parallel"].gpu
    assert names["sssp_spmv"].gpu
    for m in names.values():
        assert m.solver_class().all_pairs is False
        assert m.figure


@pytest.mark.parametrize("name", ["dijkstra_serial", "dijkstra_parallel", "sssp_spmv"])
def test_negative_weight_names_the_method(name):
    g = Graph.from_edges(3, [0, 1], [1, 2], [4, -1])
    with pytest.raises(InputError, match=registry.get("liu", name).impl.split(":")[1]):
        registry.get("liu", name).make(g, sources=[0])


@pytest.mark.parametrize("name", ["dijkstra_serial", "dijkstra_parallel", "sssp_spmv"])
def test_single_source_only(name):
    g = random_graph(5, 10, 0)
    with pytest.raises(InputError, match="single-source"):
        registry.get("liu", name).make(g, sources=[0, 1])


def test_parameter_checks():
    g = random_graph(5, 10, 0)
    with pytest.raises(InputError, match="threads"):
        cpu_array.DijkstraArrayParallel(g, threads=cpu_array.max_threads() + 1)
    with pytest.raises(InputError, match="threads"):
        cpu_array.DijkstraArrayParallel(g, threads=0)
    with pytest.raises(InputError, match="group"):
        spmv.SpmvSSSP(g, group=3)
    with pytest.raises(InputError, match="block"):
        spmv.SpmvSSSP(g, block=100)
    with pytest.raises(InputError, match="check_every"):
        spmv.SpmvSSSP(g, check_every=0)


@pytest.mark.parametrize("n,m,undirected", [(1, 0, False), (2, 1, False), (3, 2, True), (3, 0, False),
                                            (37, 60, False), (200, 900, True), (513, 1500, False)])
@pytest.mark.parametrize("name", CPU_METHODS)
def test_cpu_against_oracle(name, n, m, undirected):
    g = random_graph(n, m, seed=n + m, undirected=undirected)
    for source in sorted({0, n - 1, n // 2}):
        params = {"threads": min(3, cpu_array.max_threads())} if name == "dijkstra_parallel" else {}
        s = solve(name, g, source, **params)
        result = oracle.verify(s.solution(), g)
        assert result["verified"], (name, n, source, result)
        assert "predecessors" in result["verify_scope"]
        assert s.stats["source"] == source


def test_cpu_float32_and_zero_weights():
    g = random_graph(120, 600, seed=3, w_low=0, w_high=2, dtype=np.float32)
    for name in CPU_METHODS:
        assert oracle.verify(solve(name, g, 7).solution(), g)["verified"]


def test_parallel_matches_serial_exactly():
    g = generators.liu_min_degree(300, 8, seed=1)
    s = solve("dijkstra_serial", g, 11)
    for t in sorted({1, 2, cpu_array.max_threads()}):
        p = solve("dijkstra_parallel", g, 11, threads=t)
        assert np.array_equal(p.dist, s.dist) and np.array_equal(p.parent, s.parent)
        assert p.stats["threads"] == t


def test_adjacency_matrix_and_buffer_reuse():
    a = random_graph(50, 200, seed=1)
    b = random_graph(50, 300, seed=2)
    assert np.array_equal(cpu_array.adjacency_matrix(a), a.dense())
    sa = solve("dijkstra_serial", a, 0)
    assert np.array_equal(cpu_array.adjacency_matrix(b), b.dense())  # refills the shared buffer
    sa.reset()                                                         # must take a's matrix back
    sa.compute()
    assert oracle.verify(sa.solution(), a)["verified"]
    cpu_array.release_adjacency()


def test_host_memory_check(monkeypatch):
    cpu_array.release_adjacency()
    monkeypatch.setattr(cpu_array, "host_available_bytes", lambda: 1000)
    g = random_graph(100, 300, seed=1)
    assert not cpu_array.host_fits(g.dense_nbytes())
    with pytest.raises(cpu_array.HostMemoryError, match="adjacency matrix"):
        cpu_array.adjacency_matrix(g)


def test_coo_to_csc_matches_reverse():
    g = random_graph(300, 2000, seed=4)
    colptr, rows, w = spmv.coo_to_csc(np, g.n, g.sources_of_arcs, g.indices, g.weights)
    r = g.reverse
    assert np.array_equal(colptr, r.indptr)
    assert np.array_equal(rows, r.indices) and np.array_equal(w, r.weights)
    empty = Graph.from_edges(4, [], [], [])
    colptr, rows, w = spmv.coo_to_csc(np, 4, empty.sources_of_arcs, empty.indices, empty.weights)
    assert colptr.tolist() == [0] * 5 and rows.size == 0


def test_auto_group_and_bytes():
    assert spmv.auto_group(1000, 1000) == 1
    assert spmv.auto_group(40000, 800000) == 16
    assert spmv.auto_group(40000, 25_800_000) == 32
    assert spmv.bytes_per_sweep(10, 100) == 4 * 11 + 800 + 40


def test_published_tables_complete_and_consistent():
    pub = exp.published_long()
    for kind in exp.PUBLISHED:
        t = pub[pub["kind"] == kind]
        assert len(t) == 36 and t["seconds"].notna().all()
        assert set(t["n"]) == set(exp.PAPER_SIZES) and set(t["min_degree"]) == set(exp.PAPER_DEGREES)
    for table in ["fig1_serial", "fig1_openmp", "fig1_cuda_algorithm", "fig1_cuda_total",
                  "fig4_speedup_openmp", "fig4_speedup_cuda"]:
        assert report.published("liu", table)["source"].str.contains("liu-sssp-openmp-cuda.md").all()
    ser = pub[pub["kind"] == "serial"].set_index(["n", "min_degree"])["seconds"]
    sp = exp.published_speedups()
    for kind, denom in (("parallel_4", "parallel_4"), ("gpu_algorithm", "gpu_algorithm")):
        d = pub[pub["kind"] == denom].set_index(["n", "min_degree"])["seconds"]
        s = sp[sp["kind"] == kind].set_index(["n", "min_degree"])["speedup"]
        assert np.allclose(ser / d, s.reindex(d.index), rtol=1e-5)


@pytest.mark.parametrize("profile", PROFILES)
def test_config_sane(profile):
    cfg = exp.config(profile)
    assert cfg["profile"] == profile
    cells = {(n, d) for n in cfg["sizes"] for d in cfg["degrees"]}
    if cfg["cpu_cells"] != "all":
        assert set(cfg["cpu_cells"]) <= cells
    assert all(1 <= t <= cpu_array.max_threads() for t in cfg["threads"])
    if profile != "smoke":
        assert tuple(cfg["sizes"]) == exp.PAPER_SIZES and tuple(cfg["degrees"]) == exp.PAPER_DEGREES
        assert set(cfg["variant_cells"]) <= cells
    if profile == "paper":
        assert cfg["cpu_cells"] == "all" and cfg["cpu_cap_s"] == float("inf")


def test_smoke_sweep_and_tables():
    cfg = exp.config("smoke")
    records, edges = exp.sweep(cfg)
    assert len(edges) == len(cfg["sizes"]) * len(cfg["degrees"])
    for r in records:
        assert r.verified or r.skipped, r
    measured = exp.times(records)
    assert set(measured["kind"]) >= {"serial", "gpu_algorithm", "gpu_total"}
    assert measured[measured["kind"] == "serial"]["verified"].all()
    table = exp.side_by_side(measured, "serial", published=exp.published_long())
    assert len(table) == len(cfg["sizes"])
    assert len(exp.edges_table(edges)) == len(edges)
    sp = exp.speedups(measured)
    assert {"n", "min_degree", "kind", "speedup"} <= set(sp.columns)
    assert isinstance(exp.bandwidth_table(records), pd.DataFrame)
    for v in exp.verdicts(measured):
        assert {"claim", "published", "measured", "holds"} <= set(v)


def test_cpu_cells_skipped_with_reason():
    cfg = dict(exp.config("smoke"), cpu_cells=((200, 4),))
    g = exp.graph(400, 8, 0)
    recs = exp._cpu_runs(g, cfg, {})
    assert recs and all("MIN_DEGREE" in r.skipped for r in recs)
    cfg = dict(exp.config("smoke"), cpu_cap_s=1e-9)
    recs = exp._cpu_runs(g, cfg, {("dijkstra_serial", 1): (200, 1.0)})
    assert "projected" in recs[0].skipped


def _records_from_published(device=report.GOAL_GPU):
    """Records carrying the paper's own Fig. 1 numbers (to test the table and verdict logic), as if
    measured on ``device``."""
    from apsp_kernels.records import Record
    kinds = {"serial": ("dijkstra_serial", "cpu", {}), "parallel_4": ("dijkstra_parallel", "cpu", {"threads": 4}),
             "gpu_algorithm": ("sssp_spmv", "kernel", {}), "gpu_total": ("sssp_spmv", "with_transfers", {})}
    out = []
    for _, r in exp.published_long().iterrows():
        method, scope, params = kinds[r["kind"]]
        out.append(Record(paper="liu", experiment="fig1", method=method, graph=f"liu-n{r['n']}-deg{r['min_degree']}-s0",
                          n=int(r["n"]), m=int(r["n"]) * int(r["min_degree"]), params=params,
                          time_ms_median=r["seconds"] * 1e3, timing_scope=scope, verified=True,
                          stats={"sweeps": 10, "launches": 17, "host_checks": 2, "group": 16},
                          device=device))
    return out


def test_tables_and_verdicts_on_the_papers_own_numbers(monkeypatch):
    monkeypatch.setattr(cpu_array, "max_threads", lambda: 4)
    measured = exp.times(_records_from_published())
    sp = exp.speedups(measured)
    pub_sp = exp.published_speedups()
    for kind in ("parallel_4", "gpu_algorithm"):
        mine = sp[sp["kind"] == kind].set_index(["n", "min_degree"])["speedup"]
        theirs = pub_sp[pub_sp["kind"] == kind].set_index(["n", "min_degree"])["speedup"]
        assert np.allclose(mine, theirs.reindex(mine.index), rtol=1e-5)
    table = exp.side_by_side(measured, "gpu_total", published=exp.published_long())
    assert np.allclose(table["16 ours"], table["16 paper"])
    verdicts = {v["claim"]: v["holds"] for v in exp.verdicts(measured)}
    assert verdicts.pop("project target: GPU algorithm time at N=40000, MIN_DEGREE=16 <= 5 ms") is False
    assert all(verdicts.values()), verdicts
    assert len(exp.bandwidth_table(_records_from_published())) == 36
    elsewhere = {v["claim"]: v for v in exp.verdicts(exp.times(_records_from_published("NVIDIA H200")))}
    target = elsewhere["project target: GPU algorithm time at N=40000, MIN_DEGREE=16 <= 5 ms"]
    assert target["holds"] is None and "measured on NVIDIA H200, so not judged" in target["note"]


def test_failed_verification_drops_the_time():
    recs = _records_from_published()[:3]
    recs[0].verified = False
    measured = exp.times(recs)
    assert np.isnan(measured["seconds"].iloc[0]) and measured["skipped"].iloc[0].startswith("FAILED")


def test_edges_table_against_fig2():
    g = exp.graph(1250, 16, 0)
    edges = pd.DataFrame([{"n": 1250, "min_degree": 16, "undirected_edges": g.meta["undirected_edges"],
                           "sssp_source": exp.source_of(g), "generate_s": 0.0}])
    table = exp.edges_table(edges)
    assert table["paper_edges"].iloc[0] == 12492
    assert abs(table["ours / paper"].iloc[0] - 1) < 0.02
    assert exp.edges_verdict(table)["holds"] is True
