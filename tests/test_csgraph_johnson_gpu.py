"""Johnson's algorithm, negative weights and predecessor ties on the GPU, against SciPy."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph as scipy_csgraph

import apsp_kernels.csgraph as ak
from apsp_kernels.csgraph import reweighting

pytestmark = pytest.mark.gpu


def negative_graph(n, seed=0, density=0.08):
    """Integer weights, some negative, no negative cycle: w = positive + p(u) - p(v)."""
    rng = np.random.default_rng(seed)
    a = sp.random(n, n, density=density, random_state=seed, format="coo")
    p = rng.integers(0, 40, n)
    w = rng.integers(1, 50, a.nnz) + p[a.row] - p[a.col]
    w[w == 0] = 1
    keep = a.row != a.col
    return sp.csr_matrix((w[keep].astype(np.float64), (a.row[keep], a.col[keep])), shape=(n, n))


@pytest.mark.parametrize("n", [2, 33, 300])
def test_johnson_equals_scipy_and_ran_on_the_gpu(n):
    a = negative_graph(n, seed=n)
    seen = []
    want_d, want_p = scipy_csgraph.johnson(a, return_predecessors=True)
    d, p = ak.johnson(a, return_predecessors=True, explain=seen.append)
    assert seen[0].family == "J"
    np.testing.assert_array_equal(d, want_d)
    assert ((p == -9999) == (np.isinf(want_d) | (want_d == 0) & (np.arange(n)[:, None] == np.arange(n)))).all()
    rows = np.arange(0, n, 4).reshape(-1, 1) if n > 4 else np.array([[0]])
    np.testing.assert_array_equal(ak.johnson(a, indices=rows), scipy_csgraph.johnson(a, indices=rows))
    _tree(a, d, p, np.arange(n))


def _tree(a, dist, pred, rows):
    dense = a.toarray()
    for i, s in enumerate(rows):
        reach = np.flatnonzero(np.isfinite(dist[i]) & (np.arange(a.shape[0]) != s))
        u = pred[i, reach]
        assert (u >= 0).all()
        np.testing.assert_array_equal(dist[i, u] + dense[u, reach], dist[i, reach])


def test_johnson_potentials_and_reweighting():
    import cupy as cp
    from apsp_kernels.csgraph.inputs import prepare
    g = prepare(negative_graph(120, seed=3)).graph
    h = reweighting.potentials(g, device=False)
    assert (h <= 0).all() and np.isfinite(h).all()
    r = reweighting.reweighted(g, h)
    assert r.min_weight >= 0 and r.m == g.m
    assert isinstance(cp.asarray(h), cp.ndarray)


def test_negative_cycles_raise_as_scipy():
    a = np.zeros((5, 5))
    a[0, 1], a[1, 2] = 2, -1
    a[3, 4], a[4, 3] = 1, -3
    with pytest.raises(scipy_csgraph.NegativeCycleError):
        ak.johnson(a, indices=[0])  # anywhere, as SciPy's johnson
    with pytest.raises(scipy_csgraph.NegativeCycleError):
        ak.shortest_path(a, method="J")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = ak.dijkstra(a, indices=[0, 1], return_predecessors=True)  # Johnson where the sources reach
    want = scipy_csgraph.bellman_ford(a, indices=[0, 1], return_predecessors=True)
    for x, y in zip(got, want):
        np.testing.assert_array_equal(x, y)


def test_dijkstra_with_negative_weights_warns_and_runs_johnson():
    a = negative_graph(200, seed=5)
    seen = []
    with pytest.warns(UserWarning, match="^Graph has negative weights: dijkstra will give"):
        d = ak.shortest_path(a, method="D", explain=seen.append)
    assert seen[0].family == "J" and "Johnson" in str(seen[0])
    np.testing.assert_array_equal(d, scipy_csgraph.johnson(a))


def test_auto_with_negative_weights_runs_bf_or_johnson():
    a = negative_graph(150, seed=9)
    for indices in (None, [0], list(range(40))):
        seen = []
        d = ak.shortest_path(a, indices=indices, explain=seen.append)
        assert seen[0].family in ("BF", "J"), str(seen[0])
        np.testing.assert_array_equal(d, scipy_csgraph.johnson(a, indices=indices))


def test_cupy_in_cupy_out_with_2d_indices_and_path_helpers():
    import cupy as cp
    a = negative_graph(64, seed=2)
    x = cp.asarray(a.toarray())
    idx = np.array([[0, 5], [9, 63]])
    d, p = ak.johnson(x, indices=idx, return_predecessors=True)
    assert isinstance(d, cp.ndarray) and d.shape == (2, 2, 64) and p.shape == (2, 2, 64)
    np.testing.assert_array_equal(d.get(), scipy_csgraph.johnson(a, indices=idx))
    full_d, full_p = ak.shortest_path(x, return_predecessors=True)
    m = ak.construct_dist_matrix(x, full_p)
    assert isinstance(m, cp.ndarray)
    np.testing.assert_array_equal(m.get(), scipy_csgraph.construct_dist_matrix(a, full_p.get()))
    tree = ak.reconstruct_path(x, full_p[0])
    assert type(tree).__module__.startswith("cupyx")


def smallest_tight_in_neighbour(dense, dist, s):
    """The tie rule with positive weights: the smallest u with d[u] + w(u, v) == d[v]."""
    n = len(dist)
    want = np.full(n, -9999)
    for v in range(n):
        if v == s or not np.isfinite(dist[v]):
            continue
        tight = [u for u in range(n) if dense[u, v] > 0 and dist[u] + dense[u, v] == dist[v]]
        want[v] = min(tight)
    return want


@pytest.mark.parametrize("method", ["D", "BF", "multi_source", "task_parallel"])
def test_predecessor_ties_take_the_smallest_vertex_and_repeat(method):
    side = 12  # a grid with unit weights: many shortest paths of equal length
    a = sp.diags([1, 1], [1, side], shape=(side * side, side * side)).tolil()
    for k in range(side - 1, side * side, side):
        if k + 1 < side * side:
            a[k, k + 1] = 0  # no wrap-around between rows
    a = sp.csr_matrix(a + a.T)
    a.eliminate_zeros()
    rows = [0, 5, 77]
    first = ak.shortest_path(a, method=method, indices=rows, return_predecessors=True)
    again = ak.shortest_path(a, method=method, indices=rows, return_predecessors=True)
    np.testing.assert_array_equal(first[1], again[1])
    dense = a.toarray()
    for i, s in enumerate(rows):
        np.testing.assert_array_equal(first[1][i], smallest_tight_in_neighbour(dense, first[0][i], s))


@pytest.mark.parametrize("method", ["BF", "multi_source", "J"])
def test_zero_weight_ties_take_fewest_arcs_then_smallest_vertex(method):
    # 0 -> 1, 0 -> 2 (weight 1); 1 <-> 2 with weight 0; 1 -> 3 and 2 -> 3 with weight 0
    a = sp.csr_matrix((np.array([1, 1, 0, 0, 0, 0.0]), (np.array([0, 0, 1, 2, 1, 2]), np.array([1, 2, 2, 1, 3, 3]))),
                      shape=(4, 4))
    for _ in range(2):
        d, p = ak.shortest_path(a, method=method, indices=0, return_predecessors=True)
        np.testing.assert_array_equal(d, [0, 1, 1, 1])
        np.testing.assert_array_equal(p, [-9999, 0, 0, 1])
