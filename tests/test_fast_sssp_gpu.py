"""fast:sssp_worklist and fast:multi_source (GPU) against the oracle: small and awkward graphs,
long chains, road-like grids, zero weights, disconnected parts, int32 and float32, subsets of
sources, K not a multiple of 32 and K = n, and the device-level multi_source_distances."""
import numpy as np
import pytest

from apsp_kernels import generators, oracle, registry
from apsp_kernels.errors import InputError
from apsp_kernels.graph import Graph
from apsp_kernels.inf import INF_INT32

pytestmark = pytest.mark.gpu

WORKLIST = registry.get("fast", "sssp_worklist")
MULTI = registry.get("fast", "multi_source")
MULTI_PATHS = registry.get("fast", "multi_source_paths")


def random_graph(n, m, seed, w_low=0, w_high=50, dtype=np.int32, undirected=False):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(w_low, w_high + 1, m) if dtype == np.int32 else rng.uniform(w_low, w_high, m)
    return Graph.from_edges(n, src, dst, w, dtype=dtype, undirected=undirected, name=f"rand{n}_{m}_{seed}")


def chain(n, w=3):
    u = np.arange(n - 1)
    return Graph.from_edges(n, u, u + 1, np.full(n - 1, w), name=f"chain{n}")


def solve(method, g, sources, **params):
    s = method.make(g, sources=sources, **params)
    s.solve_once()
    return s


def check(method, g, sources, **params):
    s = solve(method, g, sources, **params)
    sol = s.solution()
    assert sol.rows().shape == (g.n if sources is None else len(sources), g.n)
    result = oracle.verify(sol, g)
    assert result["verified"], (g.name, list(sources)[:8], params, result, s.stats)
    return s


GRAPHS = {
    "tiny_n1": lambda: Graph.from_edges(1, [], [], []),
    "no_arcs": lambda: Graph.from_edges(5, [], [], []),
    "sparse_unreachable": lambda: random_graph(300, 200, 1),
    "random": lambda: random_graph(2000, 12000, 2),
    "random_f32": lambda: random_graph(2000, 12000, 3, dtype=np.float32),
    "zero_weights": lambda: random_graph(800, 6000, 4, w_low=0, w_high=1),
    "zero_weights_f32": lambda: random_graph(800, 6000, 5, w_low=0, w_high=1, dtype=np.float32),
    "chain_5000": lambda: chain(5000),
    "two_parts": lambda: Graph.from_edges(6, [0, 1, 3, 4], [1, 2, 4, 5], [1, 2, 3, 4]),
    "road_like": lambda: generators.road_like(20000, 50000, seed=6),
    "road_like_f32": lambda: generators.road_like(5000, 12000, seed=7, dtype=np.float32),
}


@pytest.mark.parametrize("name", GRAPHS)
def test_worklist_against_oracle(name):
    g = GRAPHS[name]()
    sources = sorted({0, g.n - 1, g.n // 2})
    s = check(WORKLIST, g, sources)
    assert "predecessors" in oracle.verify(s.solution(), g)["verify_scope"]
    st = s.solution().stats
    assert st["pops"] >= len(sources) and st["relaxations"] >= 0 and st["rounds"] >= 1


@pytest.mark.parametrize("keep,grab,blocks_per_sm", [(1, 1, 1), (8, 256, 2), (256, 32, 8)])
def test_worklist_params_spill_and_grab(keep, grab, blocks_per_sm):
    g = generators.road_like(30000, 70000, seed=8)
    s = check(WORKLIST, g, [0, 123], keep=keep, grab=grab, blocks_per_sm=blocks_per_sm)
    if keep == 1:
        assert s.solution().stats["ring_pushes"] > 0  # the surplus went through the global ring


@pytest.mark.parametrize("hops", [1, 2, 16, 1024])
@pytest.mark.parametrize("name", ["random", "random_f32", "zero_weights", "chain_5000", "road_like",
                                  "road_like_f32", "two_parts"])
def test_worklist_chains_of_hops_within_a_round(name, hops):
    g = GRAPHS[name]()
    s = check(WORKLIST, g, sorted({0, g.n // 3, g.n - 1}), chain=hops, keep=16)
    assert s.solution().stats["chain"] == hops


def test_worklist_counts_work_and_repeats():
    g = generators.road_like(20000, 50000, seed=9)
    s = solve(WORKLIST, g, [0], parents=False)
    first = s.solution()
    assert first.pred is None
    rows, stats = first.rows(), dict(first.stats)
    assert stats["relaxations"] >= g.m - 10 and stats["updates"] >= g.n - 1
    assert stats["l2_bytes"] > stats["compulsory_bytes"] / 4
    s.reset()
    s.compute()
    assert np.array_equal(rows, s.solution().rows())
    assert oracle.verify(s.solution(), g)["verified"]


@pytest.mark.parametrize("name", GRAPHS)
@pytest.mark.parametrize("method", [MULTI, MULTI_PATHS], ids=["dist", "paths"])
def test_multi_source_against_oracle(name, method):
    g = GRAPHS[name]()
    rng = np.random.default_rng(g.n)
    sources = rng.permutation(g.n)[: min(g.n, 37)]
    check(method, g, sources)


@pytest.mark.parametrize("k", [1, 3, 31, 33, 100, 129, 300])
@pytest.mark.parametrize("K", [None, 32, 100])
def test_multi_source_group_sizes(k, K):
    g = random_graph(700, 3000, k, w_low=1)
    sources = np.random.default_rng(k).integers(0, g.n, k)  # repeats allowed
    s = check(MULTI_PATHS, g, sources, **({} if K is None else {"K": K}))
    assert s.stats["passes"] == -(-k // (K or k))


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_multi_source_all_pairs(dtype):
    g = generators.random_digraph(1000, 4000, w_max=1000, seed=1, dtype=dtype)
    s = check(MULTI, g, None, K=g.n)
    assert s.stats["passes"] == 1 and s.solution().rows().shape == (g.n, g.n)


def test_multi_source_deep_chain_batches():
    g = chain(3000)
    s = check(MULTI, g, [0, 1, 2999], check_every=1, max_batch=4)
    assert s.stats["sweeps"] >= 1 and s.stats["host_checks"] >= 1


def test_multi_source_distances_on_device_graph():
    import cupy as cp
    host = generators.road_like(10000, 24000, seed=3)
    g = Graph.from_edges(host.n, cp.asarray(host.sources_of_arcs), cp.asarray(host.indices),
                         cp.asarray(host.weights), name="road_device")
    from apsp_kernels.multi_source import bytes_needed, multi_source_distances
    sources = cp.asarray([5, 0, 9999, 5], dtype=cp.int32)
    stats = {}
    rows = multi_source_distances(g, sources, stats=stats)
    assert isinstance(rows, cp.ndarray) and rows.shape == (4, g.n) and rows.dtype == cp.int32
    assert rows.flags.c_contiguous and stats["sweeps"] >= 1
    want = oracle.distances(host, [5, 0, 9999, 5])
    got = rows.get().astype(np.float64)
    got[got >= INF_INT32] = np.inf
    np.testing.assert_array_equal(got, want)
    view, pred = multi_source_distances(host, [7, 8], contiguous=False, predecessors=True)
    assert view.shape == (2, host.n) and pred.shape == (2, host.n)
    np.testing.assert_array_equal(view.get(), multi_source_distances(host, [7, 8]).get())
    assert int(pred[0, 7]) == -1 and int(pred[1, 8]) == -1
    assert bytes_needed(host, 256) >= 256 * host.n * 4


def test_multi_source_refuses_bad_input():
    from apsp_kernels.multi_source import multi_source_distances
    g = random_graph(50, 200, 1)
    with pytest.raises(InputError, match="sources"):
        multi_source_distances(g, [50])
    with pytest.raises(InputError, match="empty"):
        multi_source_distances(g, [])
    with pytest.raises(InputError, match="K"):
        MULTI.make(g, sources=[0], K=0)
    neg = Graph.from_edges(3, [0, 1], [1, 2], [1, -1])
    with pytest.raises(InputError, match="non-negative"):
        multi_source_distances(neg, [0])
    with pytest.raises(InputError, match="keep"):
        WORKLIST.make(g, sources=[0], keep=0)
    with pytest.raises(InputError, match="chain"):
        WORKLIST.make(g, sources=[0], chain=0)
