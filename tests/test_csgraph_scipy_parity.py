"""Every input scipy.sparse.csgraph's shortest-path functions take, answered as SciPy answers
(without a GPU: after our conversion, SciPy's equivalent of the method asked, said so by explain=)."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph as scipy_csgraph

import apsp_kernels.csgraph as ak
from apsp_kernels.csgraph import api
from apsp_kernels.errors import InputError
from apsp_kernels.graph import Graph

RNG = np.random.default_rng(11)
W = np.where(RNG.random((9, 9)) < 0.35, RNG.integers(1, 30, (9, 9)), 0)
NEG = np.array([[0, 4, 1, 0], [0, 0, 0, 0], [0, -2, 0, 0], [0, 0, 0, 0]], dtype=float)
FUNCTIONS = ["shortest_path", "dijkstra", "bellman_ford", "johnson"]


@pytest.fixture(autouse=True)
def quiet():
    api._said.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ak.HostWarning)
        yield


def same(ours, theirs):
    for a, b in zip(ours if isinstance(ours, tuple) else (ours,), theirs if isinstance(theirs, tuple) else (theirs,)):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("fn", FUNCTIONS)
@pytest.mark.parametrize("shape", [(), (4,), (4, 1), (2, 2), (2, 1, 2), (0,), (0, 3)])
def test_indices_of_any_shape(fn, shape):
    idx = np.arange(int(np.prod(shape))).reshape(shape) % 9
    ours = getattr(ak, fn)(W, indices=idx, return_predecessors=True)
    theirs = getattr(scipy_csgraph, fn)(W, indices=idx, return_predecessors=True)
    assert ours[0].shape == shape + (9,)
    same(ours, theirs)


def test_min_only_with_indices_of_any_shape_and_limit():
    idx = np.array([[0, 4], [7, 0]])
    for limit in (np.inf, 20):
        ours = ak.dijkstra(W, indices=idx, min_only=True, return_predecessors=True, limit=limit)
        theirs = scipy_csgraph.dijkstra(W, indices=idx, min_only=True, return_predecessors=True, limit=limit)
        assert ours[0].shape == (9,)
        same(ours[0], theirs[0])
        same(ours[2], theirs[2])
    with pytest.raises(ValueError, match="limit must be >= 0"):
        ak.dijkstra(W, limit=-1)


DTYPES = [bool, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["dense", "csr", "csc", "lil"])
def test_every_dtype_scipy_takes(dtype, kind):
    a = (W > 0).astype(dtype) if dtype is bool else W.astype(dtype)
    if kind != "dense":
        if dtype is np.float16:
            pytest.skip("scipy.sparse has no float16 matrices")
        a = getattr(sp, f"{kind}_array")(a)
    same(ak.shortest_path(a, return_predecessors=True), scipy_csgraph.shortest_path(a, return_predecessors=True))
    same(ak.dijkstra(a, indices=[1, 2]), scipy_csgraph.dijkstra(a, indices=[1, 2]))


def test_masked_entries_are_no_edge():
    a = np.ma.masked_equal(W.astype(float), W[W > 0].min())
    same(ak.shortest_path(a, method="FW"), scipy_csgraph.shortest_path(a, method="FW"))


@pytest.mark.parametrize("call", [lambda f, a: f.dijkstra(a, return_predecessors=True),
                                  lambda f, a: f.shortest_path(a, method="D", return_predecessors=True)])
def test_negative_weights_in_dijkstra_warn_as_scipy_and_come_out_exact(call):
    with warnings.catch_warnings(record=True) as theirs_said:
        warnings.simplefilter("always")
        theirs = call(scipy_csgraph, NEG)
    with pytest.warns(UserWarning) as ours_said:
        ours = call(ak, NEG)
    assert str(ours_said[0].message).startswith(str(theirs_said[0].message))
    assert ours_said[0].category is theirs_said[0].category is UserWarning
    same(ours, scipy_csgraph.johnson(NEG, return_predecessors=True))
    same(ours, theirs)  # SciPy 1.17's Dijkstra gets this one right too


def test_a_negative_cycle_raises_where_a_source_reaches_it_and_anywhere_for_johnson():
    a = np.zeros((5, 5))
    a[0, 1], a[1, 2] = 2, -1
    a[3, 4], a[4, 3] = 1, -3  # a negative cycle that vertex 0 does not reach
    for fn in ("dijkstra", "bellman_ford", "shortest_path"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            same(getattr(ak, fn)(a, indices=[0, 1], return_predecessors=True),
                 scipy_csgraph.bellman_ford(a, indices=[0, 1], return_predecessors=True))
    for mod in (ak, scipy_csgraph):
        with pytest.raises(scipy_csgraph.NegativeCycleError):
            mod.johnson(a, indices=[0, 1])
        with pytest.raises(scipy_csgraph.NegativeCycleError):
            mod.shortest_path(a, method="BF", indices=[3])


def test_johnson_and_auto_with_negative_weights():
    same(ak.johnson(NEG, return_predecessors=True), scipy_csgraph.johnson(NEG, return_predecessors=True))
    for mod in (ak, scipy_csgraph):  # an undirected negative edge is a negative cycle, sources or not
        with pytest.raises(scipy_csgraph.NegativeCycleError):
            mod.johnson(NEG, directed=False, indices=[])
    same(ak.shortest_path(NEG), scipy_csgraph.shortest_path(NEG))


def test_overwrite_writes_the_result_into_a_float64_input_as_scipy():
    a, b = W.astype(float), W.astype(float)
    ours = ak.floyd_warshall(a, overwrite=True)
    theirs = scipy_csgraph.floyd_warshall(b, overwrite=True)
    assert ours is a
    same(a, b)
    same(ours, theirs)


def test_construct_dist_matrix_and_reconstruct_path_as_scipy():
    for directed in (True, False):
        _, pred = scipy_csgraph.shortest_path(W, directed=directed, return_predecessors=True)
        same(ak.construct_dist_matrix(W, pred, directed=directed),
             scipy_csgraph.construct_dist_matrix(W, pred, directed=directed))
        ours = ak.reconstruct_path(W, pred[2], directed=directed)
        theirs = scipy_csgraph.reconstruct_path(W, pred[2], directed=directed)
        assert (ours != theirs).nnz == 0
    with pytest.raises(TypeError):
        ak.construct_dist_matrix(W, pred.astype(np.int64))


@pytest.mark.parametrize("method,ran", [("D", "dijkstra"), ("BF", "bellman_ford"), ("J", "johnson"),
                                        ("FW", "floyd_warshall"), ("blocked_fw", "floyd_warshall"),
                                        ("multi_source", "dijkstra"), ("scipy", "shortest_path")])
def test_without_a_gpu_explain_says_which_scipy_function_ran(monkeypatch, method, ran):
    monkeypatch.setattr("apsp_kernels.gpu.available", lambda: False)
    seen = []
    ak.shortest_path(W, method=method, explain=seen.append)
    text = str(seen[0])
    assert text.startswith(f"method={method!r} asked; no CUDA GPU on this machine: ran SciPy's {ran}")
    assert "method='auto' chose" not in text
    seen.clear()
    ak.shortest_path(W, explain=seen.append)
    assert str(seen[0]).startswith("method='auto' chose 'scipy'")


@pytest.mark.parametrize("indices,says", [
    ("abc", "got 'abc' (str)"), (np.ma.masked, "masked"), ([True, False], "booleans"),
    ([0.5], "whole numbers"), (object(), "got <object"),
    (9, "index out of range: 9 for a graph of 9 vertices (valid: 0..8, or -9..-1"),
    ([0, 3, 12], "indices[2] = 12 for a graph of 9 vertices"),
    ([[0, 1], [-10, 2]], "indices[1, 0] = -10 for a graph of 9 vertices")])
def test_bad_indices_say_what_was_given(indices, says):
    with pytest.raises(InputError) as err:
        ak.shortest_path(W, indices=indices)
    assert says in str(err.value)


def test_unknown_method_lists_the_documented_names():
    with pytest.raises(ValueError) as err:
        ak.shortest_path(W, method="nope")
    text = str(err.value)
    for name in ("'auto'", "'FW'", "'D'", "'BF'", "'J'", "'blocked_fw'", "'multi_source'", "'scipy'"):
        assert name in text
        assert name.strip("'") in ak.shortest_path.__doc__
    for alias in ("'dijkstra'", "'floyd_warshall'"):
        assert alias not in text
    with pytest.raises(ValueError, match="Cannot specify indices with method == 'FW'"):
        ak.shortest_path(W, method="FW", indices=[0])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("w", [1e-8, -1e-9, 1e-40, 1.0000001e-8, 2e-8, -2e-8])
def test_dense_weights_within_1e_8_of_zero_are_no_edge_as_in_scipy(w, dtype):
    a = np.array([[0, w, 0], [0, 0, 1], [0, 0, 0]], dtype=dtype)
    want = scipy_csgraph.shortest_path(a, method="BF")
    np.testing.assert_array_equal(ak.shortest_path(a, method="BF"), want)


@pytest.mark.parametrize("w", [-1.0, -1e-9])  # dense -1e-9 is no edge, so SciPy does not warn there
@pytest.mark.parametrize("form", ["csr", "dense", "list", "graph"])
@pytest.mark.parametrize("call", ["dijkstra", "shortest_path_D"])
def test_unweighted_dijkstra_warns_of_a_negative_weight_as_scipy(form, call, w):
    a = sp.csr_matrix(np.array([[0, w, 0], [0, 0, 2], [0, 0, 0]], float))
    x = {"csr": a, "dense": a.toarray(), "list": a.toarray().tolist(), "graph": a}[form]
    theirs = 1 if form in ("csr", "graph") or w == -1.0 else 0

    def run(module):
        f = module.dijkstra if call == "dijkstra" else \
            (lambda g, **kw: module.shortest_path(g, method="D", **kw))
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            c = a.tocoo()
            given = Graph.from_edges(3, c.row, c.col, c.data, dtype=np.float64) if module is ak and \
                form == "graph" else x
            got = f(given, indices=0, unweighted=True)
        return got, sum("negative weights" in str(m.message) for m in seen)
    (want, warned), (got, ours_warned) = run(scipy_csgraph), run(ak)
    assert warned == theirs and ours_warned == theirs
    np.testing.assert_array_equal(got, want)
