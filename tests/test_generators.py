"""Generators: exact sizes, seeding, structure, and the papers' published graph statistics."""
import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components

from apsp_kernels import generators as gen
from apsp_kernels import report
from apsp_kernels.errors import InputError
from apsp_kernels.graph import Graph



def assert_simple(g: Graph):
    """No self loops, no parallel arcs (CSR rows strictly increasing)."""
    src = g.sources_of_arcs
    assert not (src == g.indices).any(), "self loop"
    same_row = src[1:] == src[:-1]
    assert (g.indices[1:][same_row] > g.indices[:-1][same_row]).all(), "duplicate arc"


def strong_components(g: Graph) -> int:
    return connected_components(g.to_scipy(), directed=True, connection="strong")[0]


def assert_same(g1: Graph, g2: Graph):
    assert g1.n == g2.n
    np.testing.assert_array_equal(g1.indptr, g2.indptr)
    np.testing.assert_array_equal(g1.indices, g2.indices)
    np.testing.assert_array_equal(g1.weights, g2.weights)


def differs(g1: Graph, g2: Graph) -> bool:
    return not (np.array_equal(g1.indices, g2.indices) and np.array_equal(g1.weights, g2.weights))


def assert_meta(g: Graph, generator: str):
    assert g.meta["generator"] == generator
    assert g.meta["source"] == "generated"
    assert isinstance(g.meta["params"], dict)
    assert g.meta["label"]


# ------------------------------------------------------------------ random
def test_random_digraph_size_weights_and_strong_connectivity():
    g = gen.random_digraph(500, 2000, seed=3)
    assert (g.n, g.m) == (500, 2000)
    assert_simple(g)
    assert g.min_weight >= 1 and g.max_weight <= 500  # w_max defaults to n
    assert strong_components(g) == 1                   # the Hamiltonian cycle
    assert g.dtype == np.int32
    assert_meta(g, "random_digraph")
    assert g.meta["params"]["w_max"] == 500


def test_random_digraph_seeds():
    assert_same(gen.random_digraph(300, 1200, seed=1), gen.random_digraph(300, 1200, seed=1))
    assert differs(gen.random_digraph(300, 1200, seed=1), gen.random_digraph(300, 1200, seed=2))


@pytest.mark.parametrize("n,m", [(30, 800), (30, 870), (5, 5), (2, 2)])
def test_random_digraph_dense_and_edge_cases(n, m):
    g = gen.random_digraph(n, m, w_max=4096, seed=0)
    assert (g.n, g.m) == (n, m)
    assert_simple(g)
    assert strong_components(g) == 1
    assert g.max_weight <= 4096


def test_random_digraph_rejects_impossible_m():
    with pytest.raises(InputError, match="Hamiltonian"):
        gen.random_digraph(10, 9)
    with pytest.raises(InputError, match="n\\(n-1\\)"):
        gen.random_digraph(10, 91)


# ------------------------------------------------------------------- R-MAT
def test_rmat_matches_okuyama_power_law_statistics():
    """Okuyama Table 1: |V|=4677, |E|=16K, max out-degree 834, mean 3.5, 84 % below 3."""
    g = gen.rmat(4677, 16384, w_max=4096, seed=0)
    d = gen.describe(g)
    assert (g.n, g.m) == (4677, 16384)
    assert_simple(g)
    assert d["mean_out_degree"] == pytest.approx(3.5, abs=0.01)
    assert 500 <= d["max_out_degree"] <= 1200
    assert 0.80 <= d["frac_out_degree_lt3"] <= 0.88
    assert 1 <= g.min_weight and g.max_weight <= 4096
    assert strong_components(g) > 1   # no cycle added: unreachable pairs stay INF
    assert_meta(g, "rmat")


def test_rmat_seeds_and_errors():
    assert_same(gen.rmat(1000, 4000, seed=5), gen.rmat(1000, 4000, seed=5))
    assert differs(gen.rmat(1000, 4000, seed=5), gen.rmat(1000, 4000, seed=6))
    with pytest.raises(InputError, match="sum to 1"):
        gen.rmat(100, 300, a=0.5, b=0.5, c=0.5, d=0.0)


# ------------------------------------------------------------ ring, complete
def test_ring():
    g = gen.ring(7, w=3)
    assert (g.n, g.m) == (7, 7)
    np.testing.assert_array_equal(g.indices, (np.arange(7) + 1) % 7)
    assert (g.weights == 3).all()
    assert strong_components(g) == 1
    assert_meta(g, "ring")


def test_complete():
    g = gen.complete(6)
    assert (g.n, g.m) == (6, 30)
    assert_simple(g)
    dense = g.dense()
    assert (dense == 1).sum() == 30 and (np.diag(dense) == 0).all()
    assert_meta(g, "complete")


# ------------------------------------------------------------ k-regular
def test_k_regular_digraph_structure():
    g = gen.k_regular_digraph(256, k=4, seed=2)
    assert (g.n, g.m) == (256, 1024)
    assert (g.degrees == 4).all()
    assert_simple(g)
    assert g.dtype == np.float32
    assert g.min_weight >= 0.0 and g.max_weight < 1.0
    assert_meta(g, "k_regular_digraph")
    assert_same(g, gen.k_regular_digraph(256, k=4, seed=2))
    assert differs(g, gen.k_regular_digraph(256, k=4, seed=3))


def test_k_regular_near_complete_is_still_simple():
    g = gen.k_regular_digraph(9, k=8, seed=0, w_low=1.0, w_high=2.0)
    assert g.m == 72 and (g.degrees == 8).all()
    assert_simple(g)
    with pytest.raises(InputError, match="out-degree"):
        gen.k_regular_digraph(4, k=4)


def test_k_regular_batch_and_dense_batch_agree():
    m, n = 5, 40
    graphs = gen.k_regular_batch(m, n, k=4, seed=7)
    dense = gen.k_regular_dense_batch(m, n, k=4, seed=7, padded_n=64)
    assert dense.shape == (m, 64, 64) and dense.dtype == np.float32
    for i, g in enumerate(graphs):
        assert (g.degrees == 4).all()
        assert_simple(g)
        np.testing.assert_array_equal(dense[i, :n, :n], g.dense())
    assert np.isinf(dense[:, n:, :n]).all() and np.isinf(dense[:, :n, n:]).all()
    assert (np.diagonal(dense, axis1=1, axis2=2) == 0).all()
    assert differs(graphs[0], graphs[1])
    targets, weights = gen.k_regular_arcs(m, n, k=4, seed=7)
    assert targets.shape == weights.shape == (m, n, 4)
    assert_same(gen.k_regular_batch(1, n, seed=7)[0], gen.k_regular_digraph(n, seed=7))



def assert_k_regular_arcs(targets, weights, n, k, w_low, w_high):
    """k distinct out-neighbours per vertex, ascending, never the vertex; weights in range."""
    assert targets.dtype == np.int32 and weights.dtype == np.float32 and targets.shape[1:] == (n, k)
    assert ((targets >= 0) & (targets < n)).all()
    assert (np.diff(targets, axis=2) > 0).all(), "a repeated or unsorted neighbour"
    assert not (targets == np.arange(n)[None, :, None]).any(), "self loop"
    assert ((weights >= w_low) & (weights < w_high)).all()


def test_counter_based_arcs_are_simple_seeded_uniform_and_split_free():
    m, n = 400, 12
    targets, weights = gen.k_regular_arcs_of(0, m, n, k=4, seed=3, w_low=1.0, w_high=2.0)
    assert targets.shape == (m, n, 4)
    assert_k_regular_arcs(targets, weights, n, 4, 1.0, 2.0)
    part = gen.k_regular_arcs_of(150, 20, n, k=4, seed=3, w_low=1.0, w_high=2.0)
    assert np.array_equal(part[0], targets[150:170]) and np.array_equal(part[1], weights[150:170])
    other, _ = gen.k_regular_arcs_of(0, m, n, k=4, seed=4)
    assert not np.array_equal(targets, other)
    # every other vertex is an out-neighbour with probability k / (n - 1)
    share = np.stack([np.bincount(targets[:, u].ravel(), minlength=n) / m for u in range(n)])
    assert np.abs(share[~np.eye(n, dtype=bool)] - 4 / 11).max() < 0.1 and (np.diag(share) == 0).all()
    assert abs(float(weights.mean()) - 1.5) < 0.01
    with pytest.raises(InputError, match="out-degree k=4 needs n > k"):
        gen.k_regular_arcs_of(0, 1, 4, k=4)


@pytest.mark.gpu
def test_counter_based_arcs_are_the_same_on_the_gpu():
    import cupy
    host = gen.k_regular_arcs_of(70, 9, 300, k=4, seed=11, w_low=0.5, w_high=9.0)
    device = gen.k_regular_arcs_of(70, 9, 300, k=4, seed=11, w_low=0.5, w_high=9.0, xp=cupy)
    assert all(isinstance(a, cupy.ndarray) for a in device)
    assert np.array_equal(host[0], device[0].get()) and np.array_equal(host[1], device[1].get())


# ------------------------------------------------------------ dense (Pandey)
def test_dense_random():
    g = gen.dense_random(64, seed=1)
    assert (g.n, g.m) == (64, 64 * 63)
    assert_simple(g)
    assert g.min_weight == 1 and g.max_weight == 10
    assert_meta(g, "dense_random")
    assert differs(g, gen.dense_random(64, seed=2))
    half = gen.dense_random(64, seed=1, density=0.5)
    assert half.m == round(0.5 * 64 * 63)
    assert_simple(half)


# ------------------------------------------------------------ Liu
def fig2():
    """liu Fig. 2's edge counts, from the one transcription table."""
    t = report.published("liu", "fig2_edges")
    return {(int(n), int(d)): int(e) for n, d, e in zip(t["n"], t["min_degree"], t["edges"])}


def test_fig2_table_is_complete():
    table = fig2()
    assert len(table) == 36
    assert table[(1250, 16)] == 12492 and table[(1250, 512)] == 384116
    assert table[(40000, 16)] == 400074 and table[(40000, 512)] == 12924306


@pytest.mark.parametrize("n,deg", [(1250, 16), (1250, 64), (1250, 256), (2500, 32), (5000, 16)])
def test_liu_edge_counts_match_fig2(n, deg):
    g = gen.liu_min_degree(n, deg, seed=0)
    edges = g.meta["undirected_edges"]
    assert edges == pytest.approx(fig2()[(n, deg)], rel=0.03)
    assert g.m == 2 * edges


def test_liu_graph_structure():
    g = gen.liu_min_degree(600, 20, seed=4)
    assert g.n == 600 and g.degrees.min() >= 20
    assert_simple(g)
    a = g.to_scipy()
    assert (a != a.T).nnz == 0                                       # undirected
    assert connected_components(a, directed=False)[0] == 1           # spanning tree
    assert 1 <= g.min_weight and g.max_weight <= 100000
    assert 0 <= g.meta["sssp_source"] < 600
    assert_meta(g, "liu_min_degree")
    assert_same(g, gen.liu_min_degree(600, 20, seed=4))
    assert differs(g, gen.liu_min_degree(600, 20, seed=5))
    with pytest.raises(InputError, match="impossible"):
        gen.liu_min_degree(10, 10)


# ------------------------------------------------------------ road stand-in
def test_road_like():
    n, m = 20000, 48800
    g = gen.road_like(n, m, seed=1)
    assert (g.n, g.m) == (n, m)
    assert_simple(g)
    assert g.is_stand_in and g.meta["label"] == f"road-like stand-in (n={n}, m={m})"
    assert_meta(g, "road_like")
    assert g.degrees.max() <= 4
    assert 2.4 <= g.m / g.n <= 2.5
    assert (g.to_scipy() != g.to_scipy().T).nnz == 0                 # both directions
    assert strong_components(g) == 1
    assert 300 <= g.min_weight and g.max_weight <= 3000
    assert differs(g, gen.road_like(n, m, seed=2))
    assert gen.road_like(1001, 2501).m == 2500                      # odd m: m - 1 arcs
    with pytest.raises(InputError, match="arcs must lie"):
        gen.road_like(1000, 1000)


def test_road_like_with_rivers_crosses_them_at_bridges_and_contracts_as_a_road_network():
    from apsp_kernels.sssp_hierarchy import contraction
    n, m = 40000, 100000                                            # a 200 x 200 grid
    g = gen.road_like(n, m, seed=1, rivers=((16, 8),))
    assert (g.n, g.m) == (n, m) and strong_components(g) == 1 and g.degrees.max() <= 4
    assert_simple(g)
    assert g.name.endswith("-rivers") and "rivers ((16, 8),)" in g.meta["label"]
    assert g.meta["params"]["rivers"] == [[16, 8]]
    src, dst = np.asarray(g.sources_of_arcs), np.asarray(g.indices)
    col_from, col_to = src % 200, dst % 200
    across = (np.minimum(col_from, col_to) + 1) % 16 == 0            # a road over a river line (a column)
    across &= np.abs(col_from - col_to) == 1
    lines = 200 // 16
    assert 0 < across.sum() // 2 <= lines * (200 // 8 + 2)          # a bridge in 8, and what connects
    assert across.sum() // 2 < 0.25 * lines * 200                    # a river-free mesh: ~0.6 per row
    mesh = contraction.contract(gen.road_like(n, m, seed=1))
    rivers = contraction.contract(g)
    assert rivers.shortcuts < 0.7 * mesh.shortcuts and rivers.levels < mesh.levels
    with pytest.raises(InputError, match="river spacing must be >= 2"):
        gen.road_like(n, m, rivers=((1, 8),))
    with pytest.raises(InputError, match="off the rivers"):
        gen.road_like(n, 140000, rivers=((2, 1000),))


# ------------------------------------------------------------ describe
def test_describe():
    d = gen.describe(gen.ring(10, w=2))
    assert d["n"] == 10 and d["m"] == 10
    assert d["mean_out_degree"] == 1.0 and d["max_out_degree"] == 1
    assert d["frac_out_degree_lt3"] == 1.0
    assert d["w_min"] == 2 and d["w_max"] == 2
    assert d["generator"] == "ring" and d["stand_in"] is False
