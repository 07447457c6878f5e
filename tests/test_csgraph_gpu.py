"""shortest_path on the GPU: CuPy and cupyx.scipy.sparse input gives CuPy output without moving
the graph or the result through the host, and an all-pairs result too large for the GPU is
refused before anything is allocated."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph as scipy_csgraph

import apsp_kernels.csgraph as ak
from apsp_kernels.csgraph.families import FAMILIES
from apsp_kernels.errors import InputError

pytestmark = pytest.mark.gpu
SMALL_COPY = 256  # convergence flags and scalar syncs (a few ints) may cross; no row or matrix


@pytest.fixture
def transfers(monkeypatch):
    """Bytes of every device->host (``ndarray.get``, hence ``cupy.asnumpy``) and host->device
    (``cupy.asarray``/``cupy.array`` of a NumPy array, ``ndarray.set``) copy while the test runs;
    the library reaches the device only through these."""
    import cupy as cp
    seen = {"to_host": [], "from_host": []}

    def wrap(owner, name, kind, size):
        original = getattr(owner, name)

        def counted(*args, **kw):
            seen[kind].append(size(*args))
            return original(*args, **kw)
        monkeypatch.setattr(owner, name, counted)

    host_bytes = lambda a, *rest: a.nbytes if isinstance(a, np.ndarray) else 0  # noqa: E731
    wrap(cp.ndarray, "get", "to_host", lambda self, *rest: self.nbytes)
    wrap(cp.ndarray, "set", "from_host", lambda self, a, *rest: a.nbytes)
    wrap(cp, "asarray", "from_host", host_bytes)
    wrap(cp, "array", "from_host", host_bytes)
    return seen


def random_matrix(n, seed=0):
    rng = np.random.default_rng(seed)
    a = sp.random(n, n, density=0.05, random_state=seed, format="csr")
    a.data = rng.integers(1, 50, a.nnz).astype(np.float64)
    return a


def test_the_counter_counts(transfers):
    import cupy as cp
    cp.arange(1000, dtype=cp.float64).get()
    assert 8000 in transfers["to_host"]


@pytest.mark.parametrize("kind", ["dense", "cupyx_csr"])
@pytest.mark.parametrize("method", ["auto", "FW", "D", "BF", "spmv"])
def test_cupy_in_cupy_out_without_host_copies(kind, method, transfers):
    import cupy as cp
    import cupyx.scipy.sparse as csp
    a = random_matrix(200)
    want_d, want_p = scipy_csgraph.shortest_path(a, indices=[0, 3, 9], return_predecessors=True)
    x = cp.asarray(a.toarray()) if kind == "dense" else csp.csr_matrix(a)
    transfers["to_host"].clear()
    transfers["from_host"].clear()
    if method == "FW":  # every row (SciPy's FW takes no indices), the three kept on the device
        d, p = (r[cp.asarray([0, 3, 9])] for r in ak.shortest_path(x, method=method, return_predecessors=True))
    else:
        d, p = ak.shortest_path(x, method=method, indices=[0, 3, 9], return_predecessors=True)
    moved = list(transfers["to_host"]), list(transfers["from_host"])
    assert isinstance(d, cp.ndarray) and isinstance(p, cp.ndarray)
    assert max(moved[0], default=0) <= SMALL_COPY, f"device->host copies {moved[0]}"
    assert max(moved[1], default=0) <= SMALL_COPY, f"host->device copies {moved[1]}"
    np.testing.assert_array_equal(d.get(), want_d)
    assert ((p.get() == -9999) == np.isinf(want_d) | (want_d == 0)).all()


@pytest.mark.parametrize("method", ["auto", *FAMILIES])
@pytest.mark.parametrize("n", [1, 2, 31, 33, 100])
def test_every_family_equals_scipy(method, n):
    a = random_matrix(n, seed=n)
    want = scipy_csgraph.shortest_path(a)
    np.testing.assert_array_equal(ak.shortest_path(a, method=method), want)
    sub = np.arange(0, n, 3)
    if method == "FW":
        with pytest.raises(ValueError, match="Cannot specify indices"):  # as SciPy
            ak.shortest_path(a, method=method, indices=sub)
        return
    np.testing.assert_array_equal(ak.shortest_path(a, method=method, indices=sub), want[sub])


def test_float_weights_run_in_float64_and_float32_only_when_asked():
    a = random_matrix(64)
    a.data = a.data / 7.0
    want = scipy_csgraph.shortest_path(a)
    got = ak.shortest_path(a, method="FW")
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert np.abs(got - want)[np.isfinite(want)].max() < 1e-9  # float32 would miss by ~1e-5
    np.testing.assert_allclose(ak.shortest_path(a, method="FW", dtype=np.float32), want, rtol=1e-5)


def test_too_large_for_the_gpu_is_refused_before_allocating():
    import cupy as cp
    import cupyx.scipy.sparse as csp
    n = 200_000  # 200000^2 float64 distances: 320 GB
    a = csp.csr_matrix(sp.csr_matrix((np.ones(1), (np.array([0]), np.array([1]))), shape=(n, n)))
    free_before = cp.cuda.runtime.memGetInfo()[0]
    with pytest.raises(InputError, match="320,000,000,000 bytes.*indices="):
        ak.shortest_path(a)
    assert cp.cuda.runtime.memGetInfo()[0] >= free_before - (64 << 20)


@pytest.mark.parametrize("case", ["canonical", "duplicates", "unsorted", "self_loop", "fractional", "float32"])
def test_cupyx_csr_in_any_format_gives_scipy_s_distances(case):
    import cupy as cp
    import cupyx.scipy.sparse as csp
    a = random_matrix(120, seed=7)
    if case == "fractional":
        a.data = a.data / 3.0
    if case == "float32":  # (cupyx.scipy.sparse holds no integer weights)
        a = a.astype(np.float32)
    if case == "self_loop":
        a = (a + sp.eye(120, format="csr") * 5).tocsr()
    host = a.copy()
    if case in ("duplicates", "unsorted"):
        coo = a.tocoo()
        order = np.random.default_rng(0).permutation(coo.nnz)
        rows, cols, vals = coo.row[order], coo.col[order], coo.data[order]
        if case == "duplicates":  # a lighter copy of every tenth arc: SciPy keeps the lighter
            rows, cols = np.concatenate([rows, rows[::10]]), np.concatenate([cols, cols[::10]])
            vals = np.concatenate([vals, vals[::10] / 2])
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=120))])
        by_row = np.argsort(rows, kind="stable")
        host = sp.csr_matrix((vals[by_row], cols[by_row], indptr), shape=a.shape)  # (rows, cols) would sum them
        assert not host.has_canonical_format
    want = scipy_csgraph.shortest_path(host)
    x = csp.csr_matrix(host)
    got = ak.shortest_path(x)
    assert isinstance(got, cp.ndarray) and got.dtype == np.float64
    np.testing.assert_allclose(got.get(), want, rtol=1e-12)


@pytest.mark.parametrize("method", ["auto", "multi_source"])
def test_numpy_rows_streamed_by_passes_equal_scipy_s(method):
    """n = 3000 all pairs (72 MB as float64): multi_source runs in passes, each pass's rows on their
    way to the host while the next computes (MultiSourceSSSP.stream_to_host)."""
    from apsp_kernels.csgraph.inputs import prepare
    from apsp_kernels.multi_source.solver import MultiSourceSSSP
    rng = np.random.default_rng(3)
    n, m = 3000, 12000
    a = sp.csr_matrix((rng.integers(1, 100, m).astype(np.float64),
                       (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))
    a.setdiag(0)
    a.eliminate_zeros()
    want = scipy_csgraph.shortest_path(a, method="D")
    assert MultiSourceSSSP(prepare(a).graph).stream_to_host()
    got = ak.shortest_path(a, method=method)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    np.testing.assert_array_equal(got, want)
    again = ak.shortest_path(a, method=method)
    assert again is not got and np.array_equal(again, want)  # the pool's next array, the same answer


def test_a_graph_on_the_device_gives_its_scipy_matrix_on_the_host():
    """Graph.to_scipy of CuPy CSR arrays (a GPU worker's copy of the graph; scale's CPU baseline
    in worker threads on a GPU host)."""
    import cupy as cp

    from apsp_kernels import generators
    from apsp_kernels.graph import Graph
    g = generators.road_like(300, 800, seed=5)
    device = Graph(g.n, cp.asarray(g.indptr), cp.asarray(g.indices), cp.asarray(g.weights), name=g.name)
    assert device.on_device
    got, want = device.to_scipy(), g.to_scipy()
    assert isinstance(got.data, np.ndarray) and (got != want).nnz == 0
