"""bodra on the GPU: every kernel against the oracle (distances and predecessors) on random graphs
with awkward sizes and unreachable vertices, prefixes, host I/O, and the real graphs."""
import numpy as np
import pytest

from apsp_kernels import datasets, generators, oracle, registry
from apsp_kernels.errors import DatasetUnavailable, InputError
from apsp_kernels.experiments import bodra as exp
from apsp_kernels.graph import Graph
from apsp_kernels.sampling import seeded_subset
from apsp_kernels.timing import run
import helpers

pytestmark = pytest.mark.gpu

BF = ("bf_naive", "bf_stride", "bf_stride_flag")
FW = ("fw_super_naive", "fw_super_naive_shared", "fw_naive", "fw_tiled", "fw_tiled_shared")


def unreachable_graph(n, seed, zero_weights=False):
    """Random arcs among the first 2n/3 vertices only: the rest is unreachable and isolated."""
    rng = np.random.default_rng(seed)
    core = max(1, 2 * n // 3)
    m = 4 * n
    w = rng.integers(0 if zero_weights else 1, 40, m)
    return Graph.from_edges(n, rng.integers(0, core, m), rng.integers(0, core, m), w,
                            name=f"unreach-n{n}-s{seed}")


def graphs():
    yield Graph.from_edges(1, [], [], [], name="n1")
    yield Graph.from_edges(2, [0], [1], [5], name="n2")
    yield Graph.from_edges(3, [0, 1, 2], [1, 2, 0], [1, 2, 3], name="n3")
    yield generators.random_digraph(33, 120, w_max=100, seed=1)
    yield generators.random_digraph(97, 400, w_max=100, seed=2)
    yield unreachable_graph(130, 3)
    yield unreachable_graph(65, 4, zero_weights=True)


GRAPHS = list(graphs())
IDS = [g.name for g in GRAPHS]


def solve(name, g, sources=None, **params):
    return helpers.solve("bodra", name, g, sources=sources, **params)


def check(solver, g):
    result = oracle.verify(solver.solution(), g)
    assert result["verified"], result
    return result


# ------------------------------------------------------------------------------ Bellman-Ford
@pytest.mark.parametrize("g", GRAPHS, ids=IDS)
@pytest.mark.parametrize("name", BF)
def test_bellman_ford_variants_match_the_oracle(name, g):
    for mode in ("faithful", "early_exit"):
        solver = solve(name, g, sources=[0, g.n - 1], mode=mode, check_every=4)
        res = check(solver, g)
        assert "predecessors" in res["verify_scope"]
        if mode == "faithful":
            assert solver.stats["iterations"] == 2 * (g.n - 1)


@pytest.mark.parametrize("name", BF)
def test_bellman_ford_negative_weights_and_cycles(name):
    g = Graph.from_edges(6, [0, 0, 1, 2, 3, 4], [1, 2, 3, 3, 4, 5], [4, 1, -2, 5, -1, 3], name="neg")
    for mode in ("faithful", "early_exit"):
        check(solve(name, g, mode=mode), g)
    cyc = Graph.from_edges(4, [0, 1, 2, 2], [1, 2, 1, 3], [1, -3, 1, 2], name="negcycle")
    with pytest.raises(InputError, match="negative cycle"):
        solve(name, cyc, mode="early_exit")


@pytest.mark.parametrize("name", BF)
def test_bellman_ford_small_blocks_and_prefix(name):
    g = generators.road_like(3000, 7400, seed=3)
    early = solve(name, g, mode="early_exit", threads=64, check_every=7)
    check(early, g)
    conv = early.stats["converged_after"]
    assert 1 <= conv <= g.n - 1 and early.stats["iterations"] >= conv
    prefix = solve(name, g, mode="faithful", max_iterations=conv, threads=64)
    check(prefix, g)  # a prefix that covers convergence is final
    assert prefix.stats["truncated"]


# ------------------------------------------------------------------------------ Dijkstra
@pytest.mark.parametrize("g", GRAPHS + [generators.random_digraph(257, 900, w_max=100, seed=5)],
                         ids=IDS + ["n257"])
def test_dijkstra_naive_matches_the_oracle(g):
    check(solve("dijkstra_naive_apsp", g), g)
    sources = np.arange(g.n)[::-1][: max(1, g.n // 2)]
    check(solve("dijkstra_naive_apsp", g, sources=sources, group_size=7, threads=64), g)


def test_dijkstra_prefix_settles_the_nearest_vertices():
    g = generators.random_digraph(200, 900, w_max=100, seed=6)
    solver = solve("dijkstra_naive_apsp", g, max_extractions=10)
    got = solver.solution().rows()
    want = oracle.distances(g)
    settled = np.isfinite(got) & (got == want)
    assert (settled.sum(axis=1) >= 10).all()


# ------------------------------------------------------------------------------ Floyd-Warshall
@pytest.mark.parametrize("g", GRAPHS, ids=IDS)
@pytest.mark.parametrize("name", FW)
def test_floyd_warshall_variants_match_the_oracle(name, g):
    if name.startswith("fw_tiled") and g.m and g.min_weight == 0:
        with pytest.raises(InputError, match="positive weights"):  # parents could form a cycle
            solve(name, g)
    else:
        check(solve(name, g), g)
    if name != "fw_super_naive":
        check(solve(name, g, parents=False), g)


@pytest.mark.parametrize("name", FW)
def test_floyd_warshall_prefix_matches_restricted_dijkstra(name):
    g = unreachable_graph(150, 7)
    k = 40
    sol = solve(name, g, max_k=k).solution()
    done = min(g.n, exp.fw_units(name, g.n, k) * (exp.TILE if name in exp.TILED else 1))
    rows = [0, 17, 99, 149]
    got, pred = sol.rows(rows), sol.pred_rows(rows)
    for pos, s in enumerate(rows):
        h = exp.restricted_graph(g, s, done)
        want = oracle.distances(h, [s])
        assert oracle.compare(got[pos:pos + 1], want, False)[0], (name, s)
        assert oracle.check_predecessors(h, [s], pred[pos:pos + 1], want)


@pytest.mark.parametrize("name", ("fw_tiled_shared", "fw_super_naive_shared", "fw_tiled"))
def test_host_io_and_with_transfers_scope(name):
    g = exp.four_regular(200, seed=1)
    rec = run(registry.get("bodra", name), g, experiment="test", params={"host_io": True},
              scope="with_transfers", repeats=2, warmup=1)
    assert rec.verified and rec.timing_scope == "with_transfers", rec
    rec = run(registry.get("bodra", name), g, experiment="test", params={"host_io": True},
              repeats=2, warmup=1)
    assert rec.verified, rec


def test_tiled_shared_on_a_4_regular_graph_of_1000_vertices():
    g = exp.four_regular(1000, seed=2)
    check(solve("fw_tiled_shared", g), g)


# ------------------------------------------------------------------------------ real graphs
def _load(name):
    try:
        return datasets.load(name)
    except DatasetUnavailable as exc:
        pytest.skip(str(exc))


def test_real_road_graph_bellman_ford_early_exit():
    g = _load("NY")
    for name in BF:
        rec = run(registry.get("bodra", name), g, experiment="test", params={"mode": "early_exit"},
                  repeats=1, warmup=0)
        assert rec.verified, rec


def test_real_gnutella_graph_fw_and_dijkstra():
    g = _load("gnutella04")
    for name in ("fw_tiled_shared", "fw_tiled"):
        rec = run(registry.get("bodra", name), g, experiment="test", repeats=1, warmup=0)
        assert rec.verified and "64 sampled" in rec.verify_scope, rec
    for name in ("fw_super_naive", "fw_super_naive_shared", "fw_naive"):
        solver = solve(name, g, max_k=128)
        sol = solver.solution()
        rows = [0, 5000]
        got, pred = sol.rows(rows), sol.pred_rows(rows)
        del solver, sol
        for pos, s in enumerate(rows):
            h = exp.restricted_graph(g, s, 128)
            want = oracle.distances(h, [s])
            assert oracle.compare(got[pos:pos + 1], want, False)[0], name
            assert oracle.check_predecessors(h, [s], pred[pos:pos + 1], want), name
    sources = seeded_subset(np.arange(g.n, dtype=np.int32), 256, 0)
    rec = run(registry.get("bodra", "dijkstra_naive_apsp"), g, experiment="test", sources=sources,
              repeats=1, warmup=0)
    assert rec.verified, rec
