import numpy as np
import pytest

from apsp_kernels import INF_INT32, Graph
from apsp_kernels.errors import InputError
from apsp_kernels.inf import MAX_WEIGHT_INT32, from_public, to_public


def test_parallel_edges_keep_minimum_not_sum():
    g = Graph.from_edges(3, [0, 0, 0, 1], [1, 1, 1, 2], [7, 3, 5, 2])
    assert g.m == 2
    assert g.dense()[0, 1] == 3


def test_self_loops_dropped_and_negative_loop_rejected():
    g = Graph.from_edges(2, [0, 1], [0, 0], [4, 1])
    assert g.m == 1 and g.dense()[0, 0] == 0
    with pytest.raises(InputError, match="negative self loop"):
        Graph.from_edges(2, [1], [1], [-1])


def test_csr_sorted_and_reverse_is_transpose(rng):
    n, m = 40, 300
    g = Graph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 9, m))
    for v in range(n):
        row = g.indices[g.indptr[v]:g.indptr[v + 1]]
        assert (np.diff(row) > 0).all()
    np.testing.assert_array_equal(g.reverse.dense(), g.dense().T)


def test_dense_view_conventions():
    g = Graph.from_edges(3, [0], [2], [5])
    d = g.dense()
    assert d.dtype == np.int32 and d[0, 2] == 5 and d[2, 0] == INF_INT32
    assert (np.diag(d) == 0).all()
    gf = Graph.from_edges(3, [0], [2], [0.5], dtype=np.float32)
    assert np.isinf(gf.dense()[2, 0])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_weights_rejected(bad):
    with pytest.raises(InputError, match="finite"):
        Graph.from_edges(2, [0], [1], [bad], dtype=np.float32)


def test_int_overflow_guard():
    with pytest.raises(InputError, match="overflow"):
        Graph.from_edges(2, [0], [1], [MAX_WEIGHT_INT32 + 1])
    assert INF_INT32 + MAX_WEIGHT_INT32 <= np.iinfo(np.int32).max
    assert 2 * INF_INT32 <= np.iinfo(np.int32).max


def test_fractional_weights_need_float():
    with pytest.raises(InputError, match="float64"):
        Graph.from_edges(2, [0], [1], [0.5])


def test_ids_out_of_range():
    with pytest.raises(InputError, match="out of range"):
        Graph.from_edges(2, [0], [2], [1])


def test_undirected_stores_both_directions():
    g = Graph.from_edges(3, [0, 1], [1, 2], [4, 6], undirected=True)
    assert g.m == 4
    np.testing.assert_array_equal(g.dense(), g.dense().T)


def test_negative_weights_rejected_by_name():
    g = Graph.from_edges(2, [0], [1], [-3])
    with pytest.raises(InputError, match="MyMethod needs non-negative"):
        g.require_nonnegative("MyMethod")


def test_from_dense_roundtrip(rng):
    g = Graph.from_edges(20, rng.integers(0, 20, 80), rng.integers(0, 20, 80), rng.integers(1, 9, 80))
    h = Graph.from_dense(g.dense())
    np.testing.assert_array_equal(h.dense(), g.dense())


def test_public_conversion():
    raw = np.array([0, 5, INF_INT32], dtype=np.int32)
    pub = to_public(raw)
    assert pub.dtype == np.float64 and np.isinf(pub[2]) and pub[1] == 5
    np.testing.assert_array_equal(from_public(pub, np.int32), raw)


def test_distance_bound_sums_the_largest_vertex_maxima():
    g = Graph.from_edges(4, [0, 0, 1, 2], [1, 2, 2, 3], [10, 3, 7, 5])
    assert g.distance_bound == 10 + 7 + 5  # out-maxima 10, 7, 5, 0: the three largest
    g.check_int32_range("m")


def test_chain_past_the_int32_limit_is_refused_before_computing():
    chain = Graph.from_edges(5, [0, 1, 2, 3], [1, 2, 3, 4], [3 * 10**8] * 4)  # d(0, 4) = 1.2e9
    with pytest.raises(InputError, match="int32 distance limit"):
        chain.check_int32_range("m")
    with pytest.raises(InputError, match="int32 distance limit"):
        Graph.from_edges(2, [0], [1], [INF_INT32]).check_int32_range("m")


def test_symmetric_graph_bound_uses_eccentricity():
    n = 3001  # a star of 3000 heavy edges: the sum bound is past the limit, 2 ecc is not
    leaves = np.arange(1, n)
    g = Graph.from_edges(n, np.zeros(n - 1), leaves, np.full(n - 1, 10**6), undirected=True)
    assert g.distance_bound == 2 * 10**6
    g.check_int32_range("m")


def test_directed_graph_bound_follows_the_component_dag():
    # two stars of 3000 two-way spokes of 1e6 (sum of maxima 6e9), joined by one arc of 5
    spokes = np.arange(1, 3001)
    star = np.r_[np.zeros(3000, int), spokes], np.r_[spokes, np.zeros(3000, int)]
    src, dst = np.r_[star[0], star[0] + 3001, 0], np.r_[star[1], star[1] + 3001, 3001]
    g = Graph.from_edges(6002, src, dst, np.r_[np.full(12000, 10**6), 5])
    assert g.distance_bound == 2 * 10**6 + 5 + 2 * 10**6  # radius + arc + radius
    g.check_int32_range("m")


def test_the_weight_sum_clears_a_graph_without_the_full_bound():
    light = Graph.from_edges(4, [0, 0, 1, 2], [1, 2, 2, 3], [10, 3, 7, 5])
    light.check_int32_range("m")
    light.check_float32_exact("m")
    assert light.weight_sum == 25 and "distance_bound" not in light.__dict__
    # a star of 3000 two-way spokes of 1e7: a weight sum of 6e10 needs the bound, which clears it
    n = 3001
    star = Graph.from_edges(n, np.zeros(n - 1), np.arange(1, n), np.full(n - 1, 10**7), undirected=True)
    star.check_int32_range("m")
    assert star.weight_sum == 6 * 10**10 and star.__dict__["distance_bound"] == 2 * 10**7
    with pytest.raises(InputError, match="may reach 20,000,000 >= 2\\^24"):
        star.check_float32_exact("m")
    negative = Graph.from_edges(3, [0, 1], [1, 2], [-4, 1])
    assert negative.weight_sum == 5

def test_negative_weights_bound_counts_walks():
    g = Graph.from_edges(3, [0, 1], [1, 2], [-(2**29), 1])
    with pytest.raises(InputError, match="int32 distance limit"):
        g.check_int32_range("m")


def test_solve_once_runs_the_lifecycle_and_returns_the_solution():
    from apsp_kernels import oracle, registry
    g = Graph.from_edges(4, [0, 1, 2], [1, 2, 3], [5, 1, 2], name="chain4")
    sol = registry.get("pandey", "fw_serial").make(g).solve_once()
    assert oracle.verify(sol, g)["verified"] and sol.to_numpy()[0, 3] == 8


def test_as_stand_in_labels_a_copy_and_keeps_the_arrays():
    g = Graph.from_edges(3, [0, 1], [1, 2], [5, 7], name="g", meta={"source": "test"})
    s = g.as_stand_in("small stand-in for X", name="X", url="http://x")
    assert s.is_stand_in and not g.is_stand_in and g.name == "g" and s.name == "X"
    assert s.meta == {**g.meta, "stand_in": True, "label": "small stand-in for X", "url": "http://x"}
    assert s.meta["source"] == "test"
    assert s.indptr is g.indptr and s.weights is g.weights
    assert g.as_stand_in("same name").name == "g"
