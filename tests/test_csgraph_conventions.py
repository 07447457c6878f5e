"""scipy.sparse.csgraph's conventions, as our own tests: the same input gives SciPy's answer.

Without a GPU every method runs SciPy on the host, after our conversion of the input: these
tests check that conversion (dense non-edges, explicit zeros, duplicates, symmetrisation,
unweighted, indices, predecessors) and the conventions of what comes back."""
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csgraph as scipy_csgraph

import apsp_kernels.csgraph as ak
from apsp_kernels import Graph, generators
from apsp_kernels.csgraph import api, inputs
from apsp_kernels.errors import InputError, NegativeCycleError

RNG = np.random.default_rng(7)
DENSE = np.where(RNG.random((12, 12)) < 0.3, RNG.integers(1, 20, (12, 12)), 0).astype(float)
DENSE[3, 4], DENSE[4, 5] = np.inf, np.nan  # non-edges too


@pytest.fixture(autouse=True)
def fresh_notices():
    api._said.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def same(ours, theirs):
    for a, b in zip(ours if isinstance(ours, tuple) else (ours,), theirs if isinstance(theirs, tuple) else (theirs,)):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("method", ["auto", "D", "BF", "FW", "J", "rkleene", "task_parallel", "spmv", "scipy"])
@pytest.mark.parametrize("directed", [True, False])
def test_dense_input_zero_inf_nan_are_no_edges(method, directed):
    ours = ak.shortest_path(DENSE, method=method, directed=directed, return_predecessors=True)
    dist = scipy_csgraph.shortest_path(DENSE, directed=directed)
    same(ours[0], dist)
    assert ours[1].dtype == np.int32 and (ours[1][np.isinf(dist)] == -9999).all()


def test_sparse_explicit_zeros_are_edges():
    a = sp.csr_array((np.array([0.0, 5.0]), (np.array([0, 1]), np.array([1, 2]))), shape=(3, 3))
    same(ak.shortest_path(a), scipy_csgraph.shortest_path(a))
    assert ak.shortest_path(a)[0, 1] == 0


def test_coo_duplicates_are_summed_csr_duplicates_keep_the_smallest():
    coo = sp.coo_matrix((np.array([1.0, 2.0]), (np.array([0, 0]), np.array([1, 1]))), shape=(2, 2))
    assert ak.shortest_path(coo)[0, 1] == 3 == scipy_csgraph.shortest_path(coo, method="D")[0, 1]
    csr = sp.csr_matrix((np.array([1.0, 2.0]), np.array([1, 1]), np.array([0, 2, 2])), shape=(2, 2))
    assert ak.shortest_path(csr)[0, 1] == 1 == scipy_csgraph.shortest_path(csr, method="D")[0, 1]


def test_undirected_takes_the_smaller_weight_each_way():
    a = np.array([[0, 5.0], [2, 0]])
    same(ak.shortest_path(a, directed=False), scipy_csgraph.shortest_path(a, directed=False))
    assert ak.shortest_path(a, directed=False)[0, 1] == 2


def test_unweighted_counts_every_stored_entry_once():
    a = sp.csr_matrix((np.array([0.0, 7.0, 3.0]), (np.array([0, 1, 0]), np.array([1, 2, 2]))), shape=(3, 3))
    same(ak.shortest_path(a, unweighted=True), scipy_csgraph.shortest_path(a, unweighted=True))


def valid_predecessors(dist, pred, sources, weights):
    """-9999 at the sources and where unreachable; else an arc u -> v with dist[u] + w == dist[v]
    (on a GPU a method may pick another of several equally short paths than SciPy does)."""
    dist, pred = np.atleast_2d(dist), np.atleast_2d(pred)
    for row, s in enumerate(np.atleast_1d(sources)):
        d, p = dist[row], pred[row]
        assert p[s] == -9999 and (p[np.isinf(d)] == -9999).all()
        v = np.flatnonzero(np.isfinite(d) & (np.arange(len(d)) != s))
        np.testing.assert_array_equal(d[p[v]] + weights[p[v], v], d[v])


@pytest.mark.parametrize("indices", [4, [0, 5, 11], np.array([2])])
def test_indices_int_gives_a_row_and_array_gives_rows(indices):
    dist, pred = ak.shortest_path(DENSE, indices=indices, return_predecessors=True)
    want, _ = scipy_csgraph.shortest_path(DENSE, indices=indices, return_predecessors=True)
    same(dist, want)
    assert dist.ndim == (1 if np.ndim(indices) == 0 else 2) and pred.dtype == np.int32
    valid_predecessors(dist, pred, indices, np.nan_to_num(DENSE, nan=0))


def test_negative_and_empty_indices():
    same(ak.shortest_path(DENSE, indices=[-1, 0]), scipy_csgraph.shortest_path(DENSE, indices=[-1, 0]))
    for method in ("D", "spmv"):
        d, p = ak.shortest_path(DENSE, method=method, indices=[], return_predecessors=True)
        assert d.shape == p.shape == (0, 12) and d.dtype == np.float64 and p.dtype == np.int32


def test_the_functions_are_not_shadowed_by_the_method_families():
    import apsp_kernels
    import apsp_kernels.floyd_warshall.cpu  # noqa: F401  (the family package, not the function)
    assert callable(apsp_kernels.shortest_path) and callable(ak.floyd_warshall)


@pytest.mark.parametrize("indices", [12, -13, [0, 99]])
def test_indices_out_of_range(indices):
    with pytest.raises(ValueError, match="out of range"):
        ak.shortest_path(DENSE, indices=indices)


@pytest.mark.parametrize("fn", [ak.shortest_path, ak.bellman_ford])
def test_negative_cycle_is_scipy_s_error_too(fn):
    a = np.array([[0, 1.0, 0], [0, 0, -3], [1, 0, 0]])
    with pytest.raises(scipy_csgraph.NegativeCycleError):
        fn(a)
    with pytest.raises(NegativeCycleError):
        fn(np.array([[0, -1.0], [0, 0]]), directed=False)  # an undirected negative edge


def test_negative_weights_without_a_cycle():
    a = np.array([[0, 4.0, 1], [0, 0, 0], [0, -2, 0]])
    same(ak.bellman_ford(a, return_predecessors=True), scipy_csgraph.bellman_ford(a, return_predecessors=True))
    for run in (lambda: ak.dijkstra(a), lambda: ak.shortest_path(a, method="D")):
        with pytest.warns(UserWarning, match="^Graph has negative weights: dijkstra will give"):
            np.testing.assert_array_equal(run(), scipy_csgraph.johnson(a))


def test_dijkstra_limit_and_min_only():
    ours = ak.dijkstra(DENSE, indices=[0, 1], limit=15, return_predecessors=True)
    same(ours, scipy_csgraph.dijkstra(DENSE, indices=[0, 1], limit=15, return_predecessors=True))
    d, pred, origin = ak.dijkstra(DENSE, indices=[0, 1], min_only=True, return_predecessors=True)
    want = scipy_csgraph.dijkstra(DENSE, indices=[0, 1], min_only=True)
    np.testing.assert_array_equal(d, want)
    reach = np.isfinite(d) & (pred >= 0)
    np.testing.assert_allclose(d[pred[reach]] + DENSE[pred[reach], np.flatnonzero(reach)], d[reach])
    assert set(origin[np.isfinite(d)]) <= {0, 1}


def test_float_weights_are_float64_by_default_and_float32_only_when_asked():
    a = np.array([[0, 0.1, 0], [0, 0, 0.2], [0.3, 0, 0]])
    same(ak.floyd_warshall(a, method="scipy"), scipy_csgraph.floyd_warshall(a))
    np.testing.assert_allclose(ak.floyd_warshall(a), scipy_csgraph.floyd_warshall(a), rtol=1e-12)
    np.testing.assert_allclose(ak.floyd_warshall(a, dtype=np.float32), scipy_csgraph.floyd_warshall(a),
                               rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, bool, np.float32])
def test_input_dtypes(dtype):
    a = (DENSE > 0).astype(dtype) if dtype is bool else np.nan_to_num(DENSE, posinf=0).astype(dtype)
    same(ak.shortest_path(a), scipy_csgraph.shortest_path(a))


def test_graph_input_and_paths():
    g = Graph.from_edges(4, [0, 1, 2, 0], [1, 2, 3, 3], [1, 1, 1, 5])
    dist, pred = ak.shortest_path(g, indices=0, return_predecessors=True)
    np.testing.assert_array_equal(dist, [0, 1, 2, 3])
    assert ak.construct_path(pred, 0, 3) == [0, 1, 2, 3] and ak.construct_path(pred, 0, 0) == [0]
    assert ak.construct_path(np.array([-9999, 0, -9999]), 0, 2) == []
    tree = ak.reconstruct_path(g.to_scipy(), pred)
    assert tree.nnz == 3


def test_bad_input_is_refused_with_the_way_out():
    with pytest.raises(InputError, match="square"):
        ak.shortest_path(np.ones((2, 3)))
    with pytest.raises(ValueError, match="unknown method 'nope'.*auto"):
        ak.shortest_path(DENSE, method="nope")
    with pytest.raises(InputError, match="NaN"):
        ak.shortest_path(sp.csr_matrix(np.array([[0, np.nan], [1, 0]])))


def test_without_a_gpu_scipy_runs_and_says_so_once(monkeypatch):
    monkeypatch.setattr("apsp_kernels.gpu.available", lambda: False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ak.shortest_path(DENSE)
        ak.shortest_path(DENSE, method="D")
    notes = [w for w in seen if "SciPy" in str(w.message)]
    assert len(notes) == 1
    chosen = []
    ak.shortest_path(DENSE, explain=chosen.append)
    assert chosen[0].family == "scipy" and "no CUDA GPU" in chosen[0].reason


def test_result_too_large_is_refused_before_allocating(monkeypatch):
    monkeypatch.setattr(api, "host_available_bytes", lambda: 10**6)
    a = sp.csr_matrix((np.ones(1), (np.array([0]), np.array([1]))), shape=(1000, 1000))
    with pytest.raises(InputError, match="8,000,000 bytes.*indices="):
        ak.shortest_path(a)


@st.composite
def sparse_inputs(draw):
    """Small SciPy matrices of every kind prepare meets: duplicates, self loops, explicit zeros,
    inf entries, unsorted columns, whole, fractional, negative and oversized weights."""
    n = draw(st.integers(1, 9))
    k = draw(st.integers(0, 3 * n))
    src = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k))
    pool = [0.0, 1.0, 7.0, -2.0, 2.5, 1e-3, 2.0**31, 16777217.0, np.inf]
    w = draw(st.lists(st.sampled_from(pool), min_size=k, max_size=k))
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int64, np.int32]))
    w = np.asarray(w, dtype=np.float64)
    if np.dtype(dtype).kind == "i":
        w = np.clip(np.where(np.isfinite(w), np.trunc(w), 5), 0, np.iinfo(dtype).max)
    if draw(st.booleans()):  # a simple graph: what a canonical CSR can be
        pairs = sorted({(u, v): x for u, v, x in zip(src, dst, w) if u != v}.items())
        src, dst, w = [u for (u, _), _ in pairs], [v for (_, v), _ in pairs], np.array([x for _, x in pairs])
        k = len(src)
    coo = sp.coo_matrix((w.astype(dtype), (src, dst)), shape=(n, n))
    kind = draw(st.sampled_from(["coo", "csr_summed", "csr_unsummed", "csr_unsorted", "csc"]))
    if kind == "coo":
        return coo
    if kind == "csr_summed":
        return coo.tocsr()
    if kind == "csc":
        return coo.tocsc()
    order = np.lexsort((dst, src)) if kind == "csr_unsummed" else np.argsort(src, kind="stable")
    indptr = np.r_[0, np.cumsum(np.bincount(src, minlength=n))] if k else np.zeros(n + 1, int)
    return sp.csr_matrix((coo.data[order], np.asarray(dst, dtype=np.int64)[order], indptr), shape=(n, n))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(a=sparse_inputs())
def test_a_canonical_csr_becomes_the_graph_its_arcs_make(a):
    try:
        want = inputs.from_arcs(a.copy(), True, False)
    except InputError as exc:
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            inputs.prepare(a)
        return
    got = inputs.prepare(a)
    for name in ("indptr", "indices", "weights"):
        x, y = getattr(got.graph, name), getattr(want.graph, name)
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)
    assert got.rounded == want.rounded and got.graph.meta == want.graph.meta


def test_a_canonical_road_like_csr_takes_the_short_way():
    g = generators.k_regular_digraph(300, 3, seed=1, w_low=1, w_high=50, dtype=np.int32)
    a = sp.csr_matrix((g.weights.astype(np.float64), g.indices, g.indptr), shape=(g.n, g.n))
    assert inputs.canonical_csr_graph(a) is not None
    unsorted = a.copy()
    unsorted.indices[:2] = unsorted.indices[1::-1]
    unsorted.has_sorted_indices = False
    assert inputs.canonical_csr_graph(unsorted) is None
    assert inputs.canonical_csr_graph(a + sp.eye(g.n, format="csr")) is None  # self loops
