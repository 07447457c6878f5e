"""okuyama (issue 6) on the GPU: Harish, the task-parallel kernels (shared/unshared, several
N and B), path recording and reduce mode, each against the oracle."""
import numpy as np
import pytest

from apsp_kernels import Graph, datasets, generators, oracle, registry, timing
from apsp_kernels.sssp_iterative.harish import Harish, host_reductions
from apsp_kernels.task_parallel.paths import check_paths
from apsp_kernels.task_parallel.sssp_groups import TaskParallelSSSP

pytestmark = pytest.mark.gpu

GPU_METHODS = ["harish", "task_parallel_unshared", "task_parallel_shared",
               "task_parallel_unshared_tuned", "task_parallel_shared_tuned",
               "task_parallel_shared_paths"]


def random_graph(n, m, seed=0, w_max=50):
    rng = np.random.default_rng(seed)
    return Graph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m),
                            rng.integers(1, w_max + 1, m), name=f"rand{n}-{m}-{seed}")


def graphs():
    yield Graph.from_edges(1, [], [], [], name="n1")
    yield Graph.from_edges(2, [0], [1], [5], name="n2")
    yield Graph.from_edges(3, [0, 1, 2], [1, 2, 0], [1, 2, 3], name="n3")
    yield random_graph(37, 150, 1)                     # n not a multiple of B, P or 32
    yield random_graph(301, 400, 2)                    # sparse: many unreachable pairs
    yield generators.random_digraph(1000, 4000, seed=3)
    yield generators.rmat(700, 2500, w_max=4096, seed=4)   # hubs: degrees far above P
    yield generators.ring(130)
    yield generators.complete(90, w=2)


def solve(solver, repeats=2):
    solver.setup()
    for _ in range(repeats):
        solver.reset()
        solver.compute()
    return solver.solution()


@pytest.mark.parametrize("name", GPU_METHODS)
def test_methods_match_the_oracle(name):
    method = registry.get("okuyama", name)
    for g in graphs():
        rec = timing.run(method, g, experiment="test", repeats=1, warmup=1)
        assert not rec.skipped, rec.skipped
        assert rec.verified, (name, g, rec.max_error, rec.verify_scope)


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("N,B", [(32, 1), (32, 8), (64, "auto"), (96, 2), (256, "auto"),
                                 ("all", "auto"), ("all", 1)])
def test_group_shapes(shared, N, B):
    for g in (generators.random_digraph(1100, 4400, seed=5), generators.rmat(500, 3000, seed=6),
              random_graph(45, 100, 7)):
        sol = solve(TaskParallelSSSP(g, N=N, B=B, shared=shared))
        assert oracle.verify(sol, g)["verified"], (g, N, B)


def test_variants_of_the_loop():
    g = generators.random_digraph(600, 2400, seed=8)
    for kw in ({"check_every": 1}, {"check_every": 3, "test_first": False},
               {"check_every": 64}):
        assert oracle.verify(solve(TaskParallelSSSP(g, **kw)), g)["verified"], kw
        assert oracle.verify(solve(Harish(g, sources=[0, 77, 599], **kw)), g)["verified"], kw


def test_sampled_and_repeated_sources():
    g = generators.random_digraph(900, 3600, seed=9)
    sources = np.array([899, 5, 5, 400, 0])
    for solver in (TaskParallelSSSP(g, sources=sources, N=2, B=3),
                   TaskParallelSSSP(g, sources=sources, N="all", shared=False),
                   Harish(g, sources=sources)):
        sol = solve(solver)
        assert list(sol.sources) == list(sources)
        assert oracle.verify(sol, g)["verified"]


def test_float32_weights():
    base = generators.random_digraph(400, 1600, seed=10)
    g = Graph.from_edges(base.n, base.sources_of_arcs, base.indices, base.weights / 13.0,
                         dtype=np.float32)
    for solver in (TaskParallelSSSP(g, N=64, paths=True), Harish(g, sources=[1, 2, 3])):
        assert oracle.verify(solve(solver), g)["verified"]


def test_iteration_counts_match_the_paper_on_a_ring():
    n = 200
    g = generators.ring(n)
    h = Harish(g, sources=[0, 150])
    solve(h, repeats=1)
    assert h.stats["iterations_per_sssp_min"] == h.stats["iterations_per_sssp_max"] == n
    tp = TaskParallelSSSP(g, N=32)
    solve(tp, repeats=1)
    assert tp.stats["iterations_per_group_max"] == n
    c = Harish(generators.complete(50), sources=[3])
    solve(c, repeats=1)
    assert c.stats["iterations_per_sssp_max"] == 2


def test_paths_are_valid():
    for g in (generators.random_digraph(1500, 6000, seed=11), generators.rmat(800, 3000, seed=12),
              generators.ring(100)):
        s = TaskParallelSSSP(g, N=64, B="auto", paths=True)
        sol = solve(s)
        res = oracle.verify(sol, g)
        assert res["verified"] and "predecessors" in res["verify_scope"]
        check = check_paths(g, sol.sources, sol.pred_rows(), sol.rows(), pairs=300)
        assert check["all_valid"], check


def test_reduce_mode_keeps_reductions_and_the_last_group():
    g = generators.random_digraph(1300, 5200, seed=13)
    want = host_reductions(oracle.distances(g))
    tp = TaskParallelSSSP(g, N=128, reduce=True, paths=True)
    sol = solve(tp)
    assert list(sol.sources) == list(range(1280, 1300))
    assert oracle.verify(sol, g)["verified"]
    got = tp.reductions()
    for key in want:
        np.testing.assert_array_equal(got[key], want[key])
    h = Harish(g, sources=np.arange(0, 1300, 100), reduce=True)
    sol = solve(h)
    assert oracle.verify(sol, g)["verified"]
    np.testing.assert_array_equal(h.reductions()["checksum"], want["checksum"][::100])


def test_a_real_graph():
    g = datasets.load_or_stand_in("gnutella04")
    sources = np.arange(0, g.n, max(1, g.n // 96))[:96]
    for solver in (TaskParallelSSSP(g, sources=sources, N=32, paths=True),
                   TaskParallelSSSP(g, sources=sources, N="all", shared=False),
                   Harish(g, sources=sources[:8])):
        sol = solve(solver, repeats=1)
        assert oracle.verify(sol, g)["verified"], g


def test_bytes_needed_is_checked():
    g = generators.random_digraph(2000, 8000, seed=14)
    rec = timing.run(registry.get("okuyama", "task_parallel_shared"), g, experiment="t",
                     repeats=1, warmup=0, params={"N": "all"})
    assert rec.verified and rec.stat("N") == 2000
