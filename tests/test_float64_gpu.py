"""float64 on the GPU (issue 29, the precision contract): every family's float64 kernels give
SciPy's distances within summation-order rounding (relative 1e-12) on random float graphs,
dense and sparse, with predecessors that form shortest-path trees; float32 only when asked
(within float32's tolerance); weights of 1e-40 and 1e39 exact in float64 and refused with the
float32 opt-in; int64 weights above 2**30 answered exactly as SciPy answers them."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph as scipy_csgraph

import apsp_kernels.csgraph as ak
from apsp_kernels import oracle, registry
from apsp_kernels.csgraph import inputs
from apsp_kernels.csgraph.families import FAMILIES
from apsp_kernels.errors import InputError, NegativeCycleError
from apsp_kernels.graph import Graph

pytestmark = pytest.mark.gpu
RTOL = 1e-12
PRED_FAMILIES = [name for name, f in FAMILIES.items() if f.key(np.float64, True)]


def float_matrix(n, density=0.05, seed=0, low=0.01, high=10.0):
    """Random sparse digraph with non-integer float64 weights (no two paths tie by accident)."""
    rng = np.random.default_rng(seed)
    a = sp.random(n, n, density=density, random_state=seed, format="csr")
    a.data = rng.uniform(low, high, a.nnz) / 7.0
    a.setdiag(0)
    a.eliminate_zeros()
    return a


def assert_scipy_close(got, want, rtol=RTOL):
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == np.float64
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=rtol, atol=0)


def assert_tree(a, sources, pred, want, rooted=True):
    """pred (SciPy's -9999) is a shortest-path tree of the float64 graph of ``a``: every
    predecessor arc is tight and (``rooted``) following them from any reached vertex ends at
    the source within n steps (no cycle)."""
    g = inputs.prepare(a).graph
    assert g.dtype == np.float64 or not g.m  # a graph without arcs has no weights to widen
    sources = np.asarray(sources)
    assert oracle.check_predecessors(g, sources, np.where(pred == -9999, -1, pred), want)
    is_source = np.arange(a.shape[0]) == sources[:, None]
    assert ((pred == -9999) == (np.isinf(want) | (want == 0) & is_source)).all()
    if rooted:
        for row, s in enumerate(sources):
            cur = np.flatnonzero(np.isfinite(want[row]))
            for _ in range(a.shape[0]):
                cur = np.where(cur == s, s, pred[row, cur])
            assert (cur == s).all(), f"source {s}: predecessors go round a cycle"


@pytest.mark.parametrize("method", list(FAMILIES))
@pytest.mark.parametrize("n", [1, 2, 33, 130, 300])
def test_every_family_float64_equals_scipy(method, n):
    a = float_matrix(n, seed=n)
    assert a.nnz == 0 or inputs.prepare(a).graph.dtype == np.float64
    want = scipy_csgraph.shortest_path(a)
    assert_scipy_close(ak.shortest_path(a, method=method), want)
    sub = np.arange(0, n, 3)
    if method == "FW":
        with pytest.raises(ValueError, match="Cannot specify indices"):  # as SciPy
            ak.shortest_path(a, method=method, indices=sub)
    else:
        assert_scipy_close(ak.shortest_path(a, method=method, indices=sub), want[sub])
    assert_scipy_close(ak.shortest_path(a.toarray(), method=method), want)  # dense input


@pytest.mark.parametrize("method", PRED_FAMILIES)
@pytest.mark.parametrize("n", [2, 70, 257])
def test_every_family_float64_predecessors_form_trees(method, n):
    a = float_matrix(n, density=0.08, seed=100 + n)
    sources = np.arange(0, n, 5)
    want = scipy_csgraph.shortest_path(a, indices=sources)
    if method == "FW":  # every row (SciPy's FW takes no indices)
        dist, pred = (x[sources] for x in ak.shortest_path(a, method=method, return_predecessors=True))
    else:
        dist, pred = ak.shortest_path(a, method=method, indices=sources, return_predecessors=True)
    assert_scipy_close(dist, want)
    assert pred.dtype == np.int32 and pred.shape == want.shape
    assert_tree(a, sources, pred, want)


@pytest.mark.parametrize("method", list(FAMILIES))
def test_float32_only_when_asked_and_within_its_tolerance(method):
    a = float_matrix(150, seed=7)
    want = scipy_csgraph.shortest_path(a)
    got32 = ak.shortest_path(a, method=method, dtype=np.float32)
    assert_scipy_close(got32, want, rtol=1e-5)
    got64 = ak.shortest_path(a, method=method)
    assert_scipy_close(got64, want)
    fin = np.isfinite(want) & (want > 0)
    assert np.abs(got64[fin] / want[fin] - 1).max() < np.abs(got32[fin] / want[fin] - 1).max() or \
        np.array_equal(got32, got64)  # the default is the more precise one


def extreme_matrix(n=60, seed=3):
    """A ring (every vertex reachable) plus random chords, weights 1e-40, 1e39 and 1.5: the arc
    0 -> 1 weighs 1e-40, and n-1 is reached only by the arc n-2 -> n-1 of 1e39."""
    rng = np.random.default_rng(seed)
    src = np.r_[np.arange(n), rng.integers(0, n, 3 * n)]
    dst = np.r_[(np.arange(n) + 1) % n, rng.integers(0, n - 1, 3 * n)]
    w = rng.choice([1e-40, 1e39, 1.5], size=len(src))
    w[0], w[n - 2] = 1e-40, 1e39
    keep = src != dst
    return sp.csr_matrix((w[keep], (src[keep], dst[keep])), shape=(n, n))


@pytest.mark.parametrize("method", list(FAMILIES))
def test_tiny_and_huge_weights_are_exact_in_float64(method):
    a = extreme_matrix()
    want = scipy_csgraph.shortest_path(a)
    got = ak.shortest_path(a, method=method)
    assert_scipy_close(got, want)
    tiny = (want > 0) & (want < 1e-30)
    assert tiny[0, 1] and np.all(got[tiny] >= 1e-40)  # nothing flushed to 0
    assert (want[:-1, -1] >= 1e39).all() and np.isfinite(got[want >= 1e39]).all()  # nothing overflowed
    if FAMILIES[method].key(np.float64, True):
        dist, pred = ak.shortest_path(a, method=method, return_predecessors=True)
        # 1e39 + 1.5 == 1e39: an arc can be tight both ways, so only local tightness is asked here
        assert_tree(a, np.arange(a.shape[0]), pred, want, rooted=False)


@pytest.mark.parametrize("value", [1e-40, 1e39])
def test_tiny_and_huge_weights_are_refused_with_the_float32_opt_in(value):
    a = sp.csr_matrix(([1.5, value], ([0, 1], [1, 2])), shape=(3, 3))
    with pytest.raises(InputError, match="float32"):
        ak.shortest_path(a, dtype=np.float32)
    np.testing.assert_array_equal(ak.shortest_path(a), scipy_csgraph.shortest_path(a))


@pytest.mark.parametrize("method", list(FAMILIES))
def test_int64_weights_above_2_30_equal_scipy(method):
    rng = np.random.default_rng(11)
    n = 80
    a = sp.random(n, n, density=0.06, random_state=11, format="csr")
    a.data = rng.integers(2**30, 2**36, a.nnz).astype(np.int64)
    a = a.astype(np.int64)
    a.setdiag(0)
    a.eliminate_zeros()
    assert inputs.prepare(a).graph.dtype == np.float64
    want = scipy_csgraph.shortest_path(a)
    np.testing.assert_array_equal(ak.shortest_path(a, method=method), want)  # exact: sums < 2**53


@pytest.mark.parametrize("method", ["BF", "J", "auto"])
def test_negative_float_weights_equal_scipy(method):
    rng = np.random.default_rng(5)
    n = 120
    a = float_matrix(n, density=0.06, seed=5).tocoo()
    p = rng.uniform(0, 3, n)  # w + p(u) - p(v): negative arcs, no negative cycle
    a = sp.csr_matrix((a.data + p[a.row] - p[a.col], (a.row, a.col)), shape=(n, n))
    assert a.data.min() < 0
    want = scipy_csgraph.bellman_ford(a)
    assert_scipy_close(ak.bellman_ford(a, method=method) if method != "auto" else
                       ak.shortest_path(a, method="auto"), want, rtol=1e-11)
    dist, pred = ak.bellman_ford(a, indices=[0, 3], return_predecessors=True)
    assert_scipy_close(dist, want[[0, 3]], rtol=1e-11)
    g = inputs.prepare(a).graph
    assert oracle.check_predecessors(g, [0, 3], np.where(pred == -9999, -1, pred), want[[0, 3]])


def test_negative_float_cycle_raises():
    a = sp.csr_matrix(([1.5, -2.25, 0.5], ([0, 1, 2], [1, 2, 0])), shape=(3, 3))
    with pytest.raises(NegativeCycleError):
        ak.bellman_ford(a)


@pytest.mark.parametrize("variant", ["t128", "t128s4", "t128k32", "t128r1", "t64"])
def test_fast_float64_product_kernels(variant):
    from apsp_kernels.minplus.product_fast import measure_product
    out = measure_product(256, np.float64, variant, repeats=1, warmup=0, check_rows=16)
    assert out["checked"] is True and out["dtype"] == "float64"


@pytest.mark.parametrize("n", [1000, 1536])
def test_rkleene_fast_float64_large(n):
    """Batched, split-k (atomic min on float64 bit patterns) and FW-leaf kernels at sizes that
    use them; against SciPy's Dijkstra (float64)."""
    a = float_matrix(n, density=4.0 / n, seed=n)
    want = scipy_csgraph.dijkstra(a)
    assert_scipy_close(ak.shortest_path(a, method="rkleene_fast"), want)


@pytest.mark.parametrize("key", ["fast:minplus_squaring", "pandey:minplus_blocked", "pandey:fw_parallel",
                                 "bodra:fw_tiled", "bodra:fw_tiled_shared", "fast:sssp_worklist",
                                 "okuyama:task_parallel_shared", "okuyama:task_parallel_unshared",
                                 "fast:multi_source_paths", "liu:sssp_spmv", "bodra:bf_naive",
                                 "bodra:bf_stride"])
def test_registry_methods_verify_in_float64(key):
    """Methods behind the families, through the oracle (float64 tolerance 1e-12, predecessors)."""
    a = float_matrix(200, density=0.04, seed=9)
    g = inputs.prepare(a).graph
    method = registry.get(*key.split(":"))
    sources = None if method.make(g).all_pairs else [17] if key == "liu:sssp_spmv" else [0, 17, 101]
    sol = method.make(g, sources=sources).solve_once()
    result = oracle.verify(sol, g)
    assert result["verified"], result


def test_float32_kernels_refuse_float64_graphs():
    g = inputs.prepare(float_matrix(64)).graph
    with pytest.raises(InputError, match="float32 only"):
        registry.get("takafuji", "multi").make(g)


def test_worklist_float64_on_a_road_like_graph():
    from apsp_kernels.generators import road_like
    r = road_like(20_000, 50_000, seed=1)
    g = Graph(r.n, r.indptr, r.indices, r.weights * 0.37, name="road-f64")
    assert g.dtype == np.float64
    sol = registry.get("fast", "sssp_worklist").make(g, sources=[0, 999]).solve_once()
    assert oracle.verify(sol, g)["verified"]
