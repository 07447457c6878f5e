"""download on a GPU: the conversion kernels equal to_public bit for bit, every host mode gives the
same rows as the plain path, page-locked results are page-locked, and a returned array stays
valid while later calls reuse the pool."""
import gc

import numpy as np
import pytest
from scipy.sparse import csgraph

import apsp_kernels
from apsp_kernels import download, generators
from apsp_kernels.inf import INF_INT32, to_public

pytestmark = pytest.mark.gpu


@pytest.fixture
def cp():
    import cupy
    return cupy


def device_matrix(cp, dtype, rows, cols, rng):
    if dtype == np.int32:
        m = rng.integers(0, 10**6, (rows, cols)).astype(np.int32)
        m[rng.random((rows, cols)) < 0.2] = INF_INT32
        m[0, :3] = [INF_INT32 + 7, 2**31 - 1, 0]
    else:
        m = (rng.random((rows, cols)) * 1e6).astype(dtype)
        m[rng.random((rows, cols)) < 0.2] = np.inf
        m[0, :3] = [np.inf, 0.0, np.finfo(dtype).max]
    return m, cp.asarray(m)


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_device_conversion_is_to_public(cp, rng, dtype):
    host, dev = device_matrix(cp, dtype, 70, 90, rng)
    got = download.public_rows(dev[:, :81])  # strided source
    assert isinstance(got, cp.ndarray) and same_bits(got.get(), to_public(host[:, :81]))
    pred = rng.integers(-2, 90, (70, 90)).astype(np.int32)
    assert np.array_equal(download.predecessor_rows(cp.asarray(pred), -9999).get(),
                          np.where(pred < 0, -9999, pred))


@pytest.mark.parametrize("mode", ["pinned", "staged", "pageable"])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
@pytest.mark.parametrize("rows", [slice(0, 300), slice(17, 250), np.array([299, 0, 5, 5, 120])])
def test_every_mode_lands_the_same_rows(cp, rng, monkeypatch, mode, dtype, rows):
    monkeypatch.setattr(download, "BLOCK_BYTES", 7 * 260 * 8)  # 7 rows per block: many blocks in flight
    host, dev = device_matrix(cp, dtype, 300, 264, rng)
    with download.host_memory(mode):
        got = download.rows_to_host(dev, rows, 260)
    assert isinstance(got, np.ndarray) and same_bits(got, to_public(host[rows, :260]))
    pred = rng.integers(-1, 260, (300, 264)).astype(np.int32)
    with download.host_memory(mode):
        got = download.rows_to_host(cp.asarray(pred), rows, 260, "predecessors", none=-9999)
    assert np.array_equal(got, np.where(pred[rows, :260] < 0, -9999, pred[rows, :260]))


def test_on_a_non_blocking_current_stream(cp, rng, monkeypatch):
    monkeypatch.setattr(download, "BLOCK_BYTES", 5 * 100 * 8)
    host, dev = device_matrix(cp, np.int32, 64, 100, rng)
    with cp.cuda.Stream(non_blocking=True):
        dev2 = dev + 1  # produced on this stream: the copies must wait for it
        dev2[dev >= INF_INT32] = INF_INT32
        with download.host_memory("pinned"):
            got = download.rows_to_host(dev2, slice(0, 64), 100)
    want = to_public(np.where(host >= INF_INT32, INF_INT32, host + 1).astype(np.int32))
    assert same_bits(got, want)


def test_pinned_results_are_page_locked_and_stay_valid_across_calls(cp, rng):
    download.release_pinned()
    host1, dev1 = device_matrix(cp, np.int32, 700, 700, rng)  # 3.9 MB of float64: above PINNED_MIN_BYTES
    host2, dev2 = device_matrix(cp, np.int32, 700, 700, rng)
    pool = download._cuda().pool
    first = download.rows_to_host(dev1, slice(0, 700), 700)
    attrs = cp.cuda.runtime.pointerGetAttributes(first.ctypes.data)
    assert attrs.type == cp.cuda.runtime.memoryTypeHost  # page-locked, not pageable (0)
    allocations = pool.allocations
    second = download.rows_to_host(dev2, slice(0, 700), 700)
    assert not np.shares_memory(first, second) and pool.allocations == allocations + 1
    assert same_bits(first, to_public(host1)) and same_bits(second, to_public(host2))
    view = first[10:20]
    del first
    gc.collect()
    third = download.rows_to_host(dev2, slice(0, 700), 700)  # ``view`` still holds the first block
    assert not np.shares_memory(third, view) and same_bits(view, to_public(host1)[10:20])
    del view
    gc.collect()
    fourth = download.rows_to_host(dev1, slice(0, 700), 700)  # the first block again: no new allocation
    assert pool.allocations == allocations + 2
    assert same_bits(fourth, to_public(host1)) and same_bits(second, to_public(host2))
    assert same_bits(third, to_public(host2))


@pytest.mark.parametrize("mode", ["auto", "pinned", "staged", "pageable"])
def test_shortest_path_numpy_out_equals_scipy_in_every_mode(mode):
    g = generators.random_digraph(1500, 6000, w_min=1, w_max=100, seed=3)
    A = g.to_scipy()
    with download.host_memory(mode):
        dist, pred = apsp_kernels.shortest_path(A, method="multi_source", return_predecessors=True)
        again = apsp_kernels.shortest_path(A, method="multi_source", indices=[5, 0, 1499])
    want, want_pred = csgraph.shortest_path(A, method="D", return_predecessors=True)
    assert isinstance(dist, np.ndarray) and dist.dtype == np.float64 and np.array_equal(dist, want)
    assert np.array_equal(again, want[[5, 0, 1499]])
    assert pred.dtype == np.int32 and ((pred == -9999) == (want_pred == -9999)).all()
    finite = np.isfinite(want)
    rows, cols = np.nonzero(finite & (pred != -9999))
    # every predecessor lies on a shortest path: dist[s, p] + w(p, v) == dist[s, v]
    w = A[pred[rows, cols], cols].A1
    assert np.array_equal(dist[rows, pred[rows, cols]] + w, dist[rows, cols])


def test_transfer_benchmark_rows_on_a_small_graph():
    from apsp_kernels.experiments import transfers
    cfg = {**transfers.config("smoke"), "n": 600, "m": 2400, "repeats": 2}
    recs = {r.method: r for r in transfers.measure(cfg)}
    for name in ("kernel", "cupy out", "numpy out", "numpy out, first call", "numpy out, staged",
                 "numpy out, pageable (before)", "rows to host (auto)", "rows to host (pageable)",
                 "copy: page-locked", "copy: pageable, fresh array", "copy: fresh array, cudaHostRegister"):
        assert recs[name].verified and not recs[name].skipped and recs[name].time_ms_median > 0, name
    assert recs["numpy out"].stat("page_locked") is True  # 600 x 600 float64: above PINNED_MIN_BYTES
    assert recs["numpy out, pageable (before)"].stat("page_locked") is False
    assert recs["copy: page-locked"].stat("GB_per_s") > 0


def test_an_array_lands_page_locked_from_the_pool_or_plain_when_small(cp, rng):
    download.release_pinned()
    big = cp.asarray(rng.integers(0, 255, 3 << 20).astype(np.uint8))  # above PINNED_MIN_BYTES
    small = cp.arange(1000, dtype=cp.uint64)
    got = download.array_to_host(big)
    assert np.array_equal(got, big.get())
    assert cp.cuda.runtime.pointerGetAttributes(got.ctypes.data).type == cp.cuda.runtime.memoryTypeHost
    allocations = download._cuda().pool.allocations
    del got
    gc.collect()
    again = download.array_to_host(big)  # the same block again
    assert download._cuda().pool.allocations == allocations and np.array_equal(again, big.get())
    plain = download.array_to_host(small)
    assert cp.cuda.runtime.pointerGetAttributes(plain.ctypes.data).type != cp.cuda.runtime.memoryTypeHost
    assert np.array_equal(plain, np.arange(1000, dtype=np.uint64))
    host = np.ones(3)
    assert download.array_to_host(host) is host
