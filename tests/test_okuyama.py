"""okuyama (issue 6): CPU tests. GPU kernels run in tests/test_okuyama_gpu.py; here the
host side of the GPU solvers (groups, batches and stamps, launch shapes, argument dtypes,
layouts, outputs) runs against a numpy emulation of each kernel."""
import ctypes

import numpy as np
import pandas as pd
import pytest

from apsp_kernels import Graph, generators, gpu, oracle, registry, report, timing
from apsp_kernels.dijkstra import cpu_all_pairs
from apsp_kernels.errors import InputError
from apsp_kernels.experiments import okuyama as ex
from apsp_kernels.inf import INF_INT32
from apsp_kernels.records import Record
from apsp_kernels.sssp_iterative import harish
from apsp_kernels.task_parallel import paths, sssp_groups
from apsp_kernels.task_parallel.sssp_groups import TaskParallelSSSP, group_layout

OKUYAMA_METHODS = {"harish", "task_parallel_unshared", "task_parallel_shared",
                   "task_parallel_unshared_tuned", "task_parallel_shared_tuned",
                   "task_parallel_shared_paths", "dijkstra_cpu", "dijkstra_rustworkx",
                   "dijkstra_scipy"}


def random_graph(n, m, seed=0, w_max=20):
    rng = np.random.default_rng(seed)
    return Graph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m),
                            rng.integers(1, w_max + 1, m), name=f"rand{n}-{m}-{seed}")


def small_graphs():
    yield random_graph(37, 150, 1)
    yield random_graph(70, 90, 2)                       # sparse: unreachable pairs
    yield generators.random_digraph(50, 200, seed=3)
    yield generators.rmat(64, 200, w_max=50, seed=4)
    yield generators.ring(33)
    yield generators.complete(12, w=3)
    yield Graph.from_edges(1, [], [], [])
    yield Graph.from_edges(2, [0], [1], [5])
    yield Graph.from_edges(3, [0, 1, 2], [1, 2, 0], [1, 2, 3])


# ------------------------------------------------------------------ registry and inputs
def test_registry_has_every_method():
    names = {m.name for m in registry.methods("okuyama")}
    assert names == OKUYAMA_METHODS
    for m in registry.methods("okuyama"):
        assert m.solver_class() is not None
        assert m.gpu == (not m.name.startswith("dijkstra"))


@pytest.mark.parametrize("name", sorted(OKUYAMA_METHODS - {"dijkstra_rustworkx"}))
def test_negative_weights_are_rejected_naming_the_method(name):
    g = Graph.from_edges(3, [0, 1], [1, 2], [2, -1])
    with pytest.raises(InputError, match=r"(?i)harish|taskparallel|dijkstra"):
        registry.get("okuyama", name).make(g)


def test_paths_need_positive_weights():
    g = Graph.from_edges(3, [0, 1], [1, 2], [0, 1])
    with pytest.raises(InputError, match="positive weights"):
        TaskParallelSSSP(g, paths=True)
    TaskParallelSSSP(g, paths=False)  # zero weights are fine for costs


def test_bad_parameters():
    g = random_graph(10, 30)
    for bad in ({"N": 0}, {"N": "many"}, {"B": 0}, {"B": 33}, {"check_every": 0}):
        with pytest.raises(InputError):
            TaskParallelSSSP(g, **bad)
    with pytest.raises(InputError):
        harish.Harish(g, block=100)
    with pytest.raises(InputError):
        harish.Harish(g, check_every=0)


# ------------------------------------------------------------------ layout and memory model
def test_group_layout_paper_and_large_groups():
    lay = group_layout(32, 4, 4677, 4677)
    assert (lay["N"], lay["W"], lay["P"], lay["threads_per_block"], lay["grid_y"]) == (32, 32, 32, 128, 1)
    assert lay["groups"] == 147
    lay = group_layout("all", 1, 4677, 4677)
    assert lay["N"] == 4677 and lay["W"] == 4704 and lay["P"] == 1024 and lay["grid_y"] == 5
    lay = group_layout(50, "auto", 100, 7)          # N above the source count
    assert lay["N"] == 7 and lay["W"] == 32 and lay["groups"] == 1
    lay = group_layout("auto", "auto", 4677, 4677)
    assert lay["N"] in (512, 1024) and lay["threads_per_block"] <= 1024
    assert group_layout("auto", "auto", 1 << 20, 1 << 20)["N"] == 32
    assert group_layout(64, "auto", 10, 100)["B"] == 2


def test_memory_model_reproduces_the_papers_limits():
    mb512 = 512 * 2**20
    harish_max = mb512 // (4 * harish.paper_memory_words(1, 4))
    proposed_max = mb512 // (4 * sssp_groups.paper_memory_words(1, 4, 32))
    assert harish_max > 10_700_000        # the paper ran Harish at |V| = 10.7M
    assert 1_000_000 < proposed_max < 1_400_000  # and the proposed method failed at 1.2M
    cap = ex.capacity(ex.config("smoke"))
    assert set(cap["method"]) >= {"harish", "task_parallel (N=32)"}


def test_bytes_needed_grows_with_outputs():
    g = random_graph(100, 400)
    base = TaskParallelSSSP(g).bytes_needed()
    assert TaskParallelSSSP(g, paths=True).bytes_needed() > base
    assert TaskParallelSSSP(g, reduce=True).bytes_needed() < base
    assert harish.Harish(g, reduce=True).bytes_needed() < harish.Harish(g).bytes_needed()


# ------------------------------------------------------------------ CPU baselines
@pytest.mark.parametrize("cls", [cpu_all_pairs.DijkstraAllCores, cpu_all_pairs.DijkstraSciPy])
def test_cpu_baselines_match_the_oracle(cls):
    for g in small_graphs():
        for sources in (None, np.array([0, g.n - 1])):
            s = cls(g, sources=sources)
            s.setup()
            s.reset()
            s.compute()
            res = oracle.verify(s.solution(), g)
            assert res["verified"], (g, sources)


@pytest.mark.skipif(not cpu_all_pairs.rustworkx_available(), reason="rustworkx not installed")
def test_rustworkx_baseline_matches_the_oracle():
    for g in list(small_graphs())[:6]:
        rec = timing.run(registry.get("okuyama", "dijkstra_rustworkx"), g, experiment="t",
                         repeats=1, warmup=0)
        assert rec.verified, g


def test_cpu_stats_report_cores():
    g = random_graph(40, 100)
    rec = timing.run(registry.get("okuyama", "dijkstra_cpu"), g, experiment="t", repeats=1, warmup=0)
    assert rec.verified and rec.stat("threads") >= 1 and rec.stat("cpu_count") >= 1


# ------------------------------------------------------------------ host path checks
def scipy_predecessors(g, sources):
    from scipy.sparse import csgraph
    d, p = csgraph.dijkstra(g.to_scipy(), indices=sources, return_predecessors=True)
    return d, np.where(p < 0, -1, p)


def test_backtrace_and_check_paths():
    g = generators.random_digraph(60, 240, seed=5)
    sources = np.array([0, 7, 59])
    d, p = scipy_predecessors(g, sources)
    res = paths.check_paths(g, sources, p, d, pairs=100)
    assert res["all_valid"] and res["paths_checked"] == 100
    path = paths.backtrace(p[0], 0, 13)
    assert path[0] == 0 and path[-1] == 13
    assert paths.path_cost(g, path) == d[0, 13]
    broken = p.copy()
    broken[0, path[-1]] = path[-1]  # a self-cycle
    with pytest.raises(ValueError):
        paths.backtrace(broken[0], 0, 13)
    bad = p.copy()
    bad[1, bad[1] >= 0] = (bad[1, bad[1] >= 0] + 1) % g.n  # parents that are not arcs
    assert not paths.check_paths(g, sources, bad, d, pairs=100)["all_valid"]


def test_unreachable_backtrace_is_none():
    g = Graph.from_edges(3, [0], [1], [1])
    d, p = scipy_predecessors(g, [0])
    assert paths.backtrace(p[0], 0, 2) is None
    assert paths.backtrace(p[0], 0, 0) == [0]


# ------------------------------------------------------------------ numpy emulation of the kernels
class DevArray(np.ndarray):
    """A numpy array posing as a cupy array: ``.get()`` and ``.data.ptr``."""

    def get(self):
        return np.asarray(self).copy()

    @property
    def data(self):
        return type("Mem", (), {"ptr": self.ctypes.data})()


def _dev(a):
    return np.asarray(a).view(DevArray)


class FakeCupy:
    int32, int64, uint8, float64, float32 = np.int32, np.int64, np.uint8, np.float64, np.float32

    def __getattr__(self, name):
        fn = getattr(np, name)
        return lambda *a, **k: _dev(fn(*a, **k))


def _flag(ptr):
    return ctypes.c_int32.from_address(int(ptr))


def _check_args(args, spec):
    assert len(args) == len(spec), (len(args), spec)
    for a, kind in zip(args, spec):
        if kind == "p":
            assert isinstance(a, np.ndarray) or type(a) is np.intp, type(a)
        elif kind == "i":
            assert type(a) is np.int32, type(a)
        elif kind == "q":
            assert type(a) is np.int64, type(a)


def _skip(prev, stamp):
    return int(prev) != 0 and _flag(prev).value != int(stamp)


INF = {np.dtype(np.int32): INF_INT32, np.dtype(np.float32): np.inf}


class Kernel:
    def __init__(self, name):
        self.name = name
        self.base = name.rsplit("_", 1)[0]

    def __call__(self, grid, block, args, shared_mem=0):
        getattr(self, self.base)(tuple(grid), tuple(block), args, shared_mem)

    # harish.cu
    def harish_init(self, grid, block, args, smem):
        _check_args(args, "iippp")
        n, s, mask, cost, upd = args
        assert grid[0] * block[0] >= n
        inf = INF[cost.dtype]
        cost[:] = inf
        upd[:] = inf
        mask[:] = 0
        cost[s] = upd[s] = 0
        mask[s] = 1

    def harish_scatter(self, grid, block, args, smem):
        _check_args(args, "ppppppipii")
        indptr, indices, w, mask, cost, upd, n, prev, stamp, test = args
        assert grid[0] * block[0] >= n
        if _skip(prev, stamp):
            return
        for v in np.flatnonzero(mask[:n]):
            mask[v] = 0
            for e in range(indptr[v], indptr[v + 1]):
                upd[indices[e]] = min(upd[indices[e]], cost[v] + w[e])

    def harish_check(self, grid, block, args, smem):
        _check_args(args, "pppippi")
        mask, cost, upd, n, changed, prev, stamp = args
        assert grid[0] * block[0] >= n
        if _skip(prev, stamp):
            return
        dec = upd[:n] < cost[:n]
        cost[:n] = np.minimum(cost[:n], upd[:n])
        mask[:n] = dec
        if dec.any():
            _flag(changed).value = int(stamp)

    # sssp_groups.cu
    def _shape(self, grid, block, n, W):
        assert block[0] * block[1] <= 1024 and block[0] % 32 == 0 and block[1] <= 32
        assert grid[0] * block[1] >= n and grid[1] * block[0] >= W and grid[1] <= 65535

    def tp_init(self, grid, block, args, smem):
        _check_args(args, "piippp")
        src, n, W, M, C, U = args
        self._shape(grid, block, n, W)
        assert C.shape == (n, W) and src.shape[0] >= W
        src = src[:W]
        inf = INF[C.dtype]
        C[:] = inf
        U[:] = inf
        M[:] = 0
        for j, s in enumerate(src):
            if s >= 0:
                C[s, j] = U[s, j] = 0
                M[s, j] = 1

    def tp_scatter_unshared(self, grid, block, args, smem):
        _check_args(args, "ppppppiipii")
        indptr, indices, w, M, C, U, n, W, prev, stamp, test = args
        self._shape(grid, block, n, W)
        if self.base.endswith("_shared"):
            assert smem >= block[0] * block[1] * 8 and smem <= 48 * 1024
        if _skip(prev, stamp):
            return
        for v, j in zip(*np.nonzero(M)):
            M[v, j] = 0
            for e in range(indptr[v], indptr[v + 1]):
                U[indices[e], j] = min(U[indices[e], j], C[v, j] + w[e])

    tp_scatter_shared = tp_scatter_unshared

    def tp_check(self, grid, block, args, smem):
        _check_args(args, "pppqppi")
        M, C, U, quads, changed, prev, stamp = args
        assert quads * 4 == C.size and grid[0] * block[0] >= quads
        if _skip(prev, stamp):
            return
        dec = U < C
        C[:] = np.minimum(C, U)
        M[:] = dec
        if dec.any():
            _flag(changed).value = int(stamp)

    # paths.cu
    def tp_record_paths(self, grid, block, args, smem):
        _check_args(args, "ppppppii")
        rindptr, rindices, rw, C, pred, src, n, W = args
        self._shape(grid, block, n, W)
        assert C.shape == pred.shape == (n, W) and src.shape[0] >= W
        inf = INF[C.dtype]
        for v in range(n):
            for j in range(W):
                p = -1
                if src[j] >= 0 and v != src[j] and C[v, j] < inf:
                    for e in range(rindptr[v], rindptr[v + 1]):
                        if C[rindices[e], j] + rw[e] == C[v, j]:
                            p = rindices[e]
                            break
                pred[v, j] = p


class FakeModule:
    def get_function(self, name):
        k = Kernel(name)
        assert hasattr(k, k.base), name
        return k


@pytest.fixture
def emulated(monkeypatch):
    fake = FakeCupy()
    monkeypatch.setattr(gpu, "cupy", lambda: fake)
    monkeypatch.setattr(gpu, "load_module", lambda *a, **k: FakeModule())


def solve(solver):
    solver.setup()
    for _ in range(2):  # repetitions must not disturb each other
        solver.reset()
        solver.compute()
    return solver.solution()


@pytest.mark.parametrize("check_every", [1, 3, 8])
def test_emulated_harish(emulated, check_every):
    for g in small_graphs():
        sol = solve(harish.Harish(g, check_every=check_every))
        assert oracle.verify(sol, g)["verified"], g
        assert sol.stats["iterations_per_sssp_max"] <= g.n


def test_emulated_harish_counts_ring_iterations(emulated):
    g = generators.ring(40)
    s = harish.Harish(g, sources=[3, 17], check_every=8)
    sol = solve(s)
    assert oracle.verify(sol, g)["verified"]
    # n - 1 iterations that lower a cost, then one that changes nothing: the paper's |V| launches
    assert s.stats["iterations_per_sssp_min"] == s.stats["iterations_per_sssp_max"] == 40
    assert s.stats["iterations_launched_per_sssp"] == 40
    assert s.stats["host_syncs"] == 2 * 5


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("N,B", [(32, 4), (8, 1), (64, "auto"), ("all", "auto"), ("auto", 2)])
def test_emulated_task_parallel(emulated, shared, N, B):
    for g in small_graphs():
        s = TaskParallelSSSP(g, N=N, B=B, shared=shared, check_every=3)
        sol = solve(s)
        assert oracle.verify(sol, g)["verified"], (g, N, B)
        assert s.stats["groups"] == len(s.bounds)


def test_emulated_task_parallel_sources_and_float(emulated):
    g = generators.random_digraph(45, 180, seed=9)
    sources = np.array([44, 3, 3, 17])  # unsorted, repeated
    sol = solve(TaskParallelSSSP(g, sources=sources, N=3, B=2))
    assert list(sol.sources) == list(sources)
    assert oracle.verify(sol, g)["verified"]
    gf = Graph.from_edges(g.n, g.sources_of_arcs, g.indices, g.weights / 7.0, dtype=np.float32)
    assert oracle.verify(solve(TaskParallelSSSP(gf, N=16)), gf)["verified"]
    assert oracle.verify(solve(harish.Harish(gf, sources=[0, 5])), gf)["verified"]


def test_emulated_paths(emulated):
    for g in list(small_graphs())[:6]:
        s = TaskParallelSSSP(g, N=16, B=2, paths=True)
        sol = solve(s)
        res = oracle.verify(sol, g)
        assert res["verified"] and "predecessors" in res["verify_scope"], g
        check = paths.check_paths(g, sol.sources, sol.pred_rows(), sol.rows(), pairs=50)
        assert check["all_valid"], check


def test_emulated_reduce_mode(emulated):
    g = generators.random_digraph(70, 210, seed=11)
    want = oracle.distances(g)
    s = TaskParallelSSSP(g, N=32, reduce=True, paths=True)
    sol = solve(s)
    assert list(sol.sources) == list(range(64, 70))  # the last group's rows
    assert "reduce=True" in sol.partial
    assert oracle.verify(sol, g)["verified"]
    got, ref = s.reductions(), harish.host_reductions(want)
    for key in ("eccentricity", "reached", "checksum"):
        np.testing.assert_array_equal(got[key], ref[key])
    h = harish.Harish(g, sources=[5, 9], reduce=True)
    sol = solve(h)
    assert list(sol.sources) == [9] and sol.partial and oracle.verify(sol, g)["verified"]
    np.testing.assert_array_equal(h.reductions()["checksum"], ref["checksum"][[5, 9]])


# ------------------------------------------------------------------ experiments (smoke)
def test_config_profiles():
    for p in ("smoke", "default", "paper"):
        cfg = ex.config(p)
        assert cfg["fig10_sizes"] == sorted(cfg["fig10_sizes"])
        assert set(cfg["table1_samples"]) == set(ex.TABLE1_TOPOLOGIES)
    assert ex.config("default")["table1_n"] == 4677
    with pytest.raises(ValueError):
        ex.config("huge")


def test_sample_plan_shares_sources_and_rows():
    cfg = ex.config("default")
    a = ex.sample_plan("harish", 8192, 32768, cfg, {})
    b = ex.sample_plan("dijkstra_cpu", 8192, 32768, cfg, {})
    assert a["scale"] == 8192 / 32 and a["extrapolation"]
    # the verified rows are the same sources for both methods (one oracle run)
    assert set(a["sources"][a["verify_rows"]]) <= set(b["sources"])
    full = ex.sample_plan("task_parallel_shared", 4677, 16384, cfg, {})
    assert full["sources"] is None and full["scale"] == 1 and len(full["verify_rows"]) == 4677
    tuned = ex.sample_plan("task_parallel_shared_tuned", 65536, 4 * 65536, cfg, {})
    assert len(tuned["sources"]) % 32 == 0 and 2 <= len(tuned["verify_rows"]) <= 64
    ring = ex.sample_plan("task_parallel_unshared", 4677, 4677, cfg, {}, {"tp_groups": 1})
    assert len(ring["sources"]) == 32


def test_experiments_run_in_smoke_profile():
    cfg = ex.config("smoke")
    r10 = ex.fig10(cfg)
    df = ex.frame(r10)
    cpu = df[df["method"] == "dijkstra_cpu"]
    assert cpu["verified"].all() and (cpu["time_s"] > 0).all()
    if not gpu.available():
        assert df[df["method"] == "harish"]["skipped"].str.contains("GPU").all()
    assert not ex.time_table(r10).empty
    assert "speedup_over_cpu" in ex.fig11_speedups(r10)
    r1 = ex.table1(cfg, methods=("task_parallel_shared", "dijkstra_cpu"))
    cmp = ex.table1_compare(r1, report.published("okuyama", "table1"))
    assert set(cmp["topology"]) == set(ex.TABLE1_TOPOLOGIES)
    assert cmp["published_s"].notna().all()
    assert isinstance(ex.fig14_overhead(ex.fig14(cfg)), pd.DataFrame)
    assert isinstance(ex.n_sweep_table(ex.n_sweep(cfg)), pd.DataFrame)


def test_published_tables():
    t1 = report.published("okuyama", "table1")
    assert len(t1) == 16 and t1["source"].str.contains("Table 1").all()
    assert t1.set_index(["method", "topology"]).loc[("task_parallel_shared", "complete"), "seconds"] == 77.3
    claims = report.published("okuyama", "claims").set_index("claim")
    assert claims.loc["launches_ring", "low"] == 4677
    assert claims.loc["path_overhead", "high"] == 7.7


def test_the_cpu_dijkstra_baselines_compute_only_the_sources_asked_for():
    assert cpu_all_pairs.DijkstraAllCores.all_pairs is False
    assert cpu_all_pairs.DijkstraSciPy.all_pairs is False
    assert cpu_all_pairs.DijkstraRustworkx.all_pairs is True


def _kill_after(path, keep: int):
    """The records file as a run killed after its first ``keep`` runs left it, and the runner's
    note that the experiment may be reused."""
    import json
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:1 + keep]) + "\n")
    (path.parent / report.RESUME_FILE).write_text(json.dumps({"commit": "abc1234",
                                                              "experiments": [path.stem.removeprefix("records_")]}))


@pytest.mark.parametrize("experiment", ["fig10", "n_sweep"])
def test_a_sweep_saves_every_run_and_a_resumed_one_measures_only_what_the_killed_one_had_not(
        experiment, tmp_path, monkeypatch):
    measured = []
    real = ex.run

    def counting(name, g, exp_name, cfg, params=None, **kw):
        measured.append((g.name, name, json_of(params)))
        return real(name, g, exp_name, cfg, params=params, **kw)

    json_of = lambda p: tuple(sorted((p or {}).items()))  # noqa: E731
    monkeypatch.setattr(ex, "run", counting)
    cfg = ex.config("smoke")
    sweep = getattr(ex, experiment)
    first = sweep(cfg, out_dir=tmp_path)
    order = list(measured)
    assert len(order) >= 4 and len(set(order)) == len(order)
    assert len(report.from_csv(tmp_path / f"records_{experiment}.csv")) == len(first) == len(order)

    _kill_after(tmp_path / f"records_{experiment}.csv", keep=3)
    measured.clear()
    again = sweep(cfg, out_dir=tmp_path)
    assert measured == order[3:]  # the three saved runs come from the records
    assert [(r.graph, r.method, r.params) for r in again] == [(r.graph, r.method, r.params) for r in first]
    assert [r.timestamp for r in again[:3]] == [r.timestamp for r in first[:3]]
    assert experiment in " ".join(report.read_run(tmp_path)["resumed"]["experiments"])


@pytest.mark.parametrize("seconds, expected", [(20.0, [(1, 0)]), (5.0, [(1, 0), (5, 0)])])
def test_a_paper_run_longer_than_its_budget_is_timed_once_and_a_shorter_one_repeats_after_it(
        seconds, expected, monkeypatch):
    calls = []

    def fake(method, g, *, repeats, warmup, scale, **kw):
        calls.append((repeats, warmup))
        return Record(paper="okuyama", experiment="t", method=method.name, graph=g.name, n=g.n, m=g.m,
                             repeats=repeats, time_ms_median=seconds * 1e3 * scale)

    monkeypatch.setattr(timing, "run", fake)
    cfg = ex.config("paper")
    assert cfg["long_run_s"] == 60.0 and cfg["repeats"] == 5
    g = generators.random_digraph(64, 256, seed=1)
    rec = ex.run("harish", g, "fig12", cfg)
    # 5 repeats of 20 s exceed 60 s: the one run is the record; of 5 s, it warms up the repeats
    assert calls == expected and rec.repeats == expected[-1][0]
    calls.clear()
    ex.run("harish", g, "fig12", ex.config("default"))
    assert calls == [(3, 1)]  # no budget outside the paper profile: the profile's repeats and warm-up


def test_a_skipped_rustworkx_row_on_a_generated_graph_says_it_is_a_stand_in():
    # the recheck used to mark these rows afterwards (recheck._okuyama_stand_ins)
    cfg = {**ex.config("smoke"), "rustworkx_max_n": 8}
    rec = ex.run("dijkstra_rustworkx", generators.random_digraph(64, 256, seed=0), "fig10", cfg)
    assert rec.skipped and rec.stand_in
    assert not ex.run("dijkstra_rustworkx", generators.ring(64), "fig10", cfg).stand_in
