"""download: device rows to host memory (pinned pool, staged ring, conversions), on fake device
arrays that behave like asynchronous streams: conversions run when issued, copies only when
something waits for them, so a missing wait reads a slot too late or leaves a block uncopied."""
import gc

import numpy as np
import pytest

from apsp_kernels import download
from apsp_kernels.inf import INF_INT32, to_public
from apsp_kernels.solver import Solution


def numpy_public(src):
    """The device conversion's rule in NumPy: >= the dtype's sentinel -> inf, else the value."""
    unreachable = INF_INT32 if src.dtype == np.int32 else np.inf
    return np.where(src >= unreachable, np.inf, src.astype(np.float64))


class LazyDevice:
    """A NumPy stand-in for download.CudaSide with stream-like ordering (see the module docstring)."""

    def __init__(self, keep_bytes=download.POOL_KEEP_BYTES):
        self.pool = download.PinnedPool(bytearray, memoryview, keep_bytes)
        self.pending, self.ran = [], 0

    def empty(self, shape, dtype):
        return np.full(shape, -7, dtype=dtype)  # never a valid converted value

    def convert(self, src, slot, kind, none):
        if kind == "predecessors":
            slot[...] = np.where(src < 0, none, src)
            return slot
        if src.dtype == np.float64 and src.flags.c_contiguous:
            return src
        slot[...] = numpy_public(src)
        return slot

    def record_compute(self):
        return None

    def wait_compute(self, token):
        self._run(token)

    def copy_to_host(self, target, src, after):
        self.pending.append(lambda: np.copyto(target, src))
        return len(self.pending)

    def wait_host(self, token):
        self._run(token)

    def _run(self, upto):
        while self.ran < upto:
            self.pending[self.ran]()
            self.ran += 1


def matrix_of(dtype, rows, cols, rng):
    if dtype == np.int32:
        m = rng.integers(0, 1000, (rows, cols)).astype(np.int32)
        m[rng.random((rows, cols)) < 0.2] = INF_INT32
        m[0, :3] = [INF_INT32 + 5, 2**31 - 1, 0]  # INF + w also reads unreachable
    else:
        m = (rng.random((rows, cols)) * 1e3).astype(dtype)
        m[rng.random((rows, cols)) < 0.2] = np.inf
        m[0, :3] = [np.inf, 0.0, np.finfo(dtype).max]
    return m


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_the_device_rule_is_to_public_bit_for_bit(dtype, rng):
    m = matrix_of(dtype, 40, 33, rng)
    got, want = numpy_public(m), to_public(m)
    assert got.dtype == want.dtype == np.float64
    assert np.array_equal(got.view(np.int64), want.view(np.int64))


@pytest.mark.parametrize("mode", ["pinned", "staged", "pageable"])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
@pytest.mark.parametrize("rows", [slice(0, 37), slice(5, 23), np.array([36, 0, 7, 7, 12, 3])])
def test_rows_land_converted_in_every_mode(monkeypatch, rng, mode, dtype, rows):
    monkeypatch.setattr(download, "BLOCK_BYTES", 3 * 29 * 8)  # 3 rows of float64 per block: many blocks
    m = matrix_of(dtype, 37, 32, rng)  # padded: 32 columns, n = 29
    dev = LazyDevice()
    with download.host_memory(mode):
        got = download.rows_to_host(m, rows, 29, device=dev)
    want = to_public(m[rows, :29])
    assert got.dtype == np.float64 and got.shape == want.shape and got.flags.c_contiguous
    assert np.array_equal(got.view(np.int64), want.view(np.int64))


@pytest.mark.parametrize("mode", ["pinned", "staged", "pageable"])
@pytest.mark.parametrize("parts", [[37], [10, 10, 10, 7], [1, 35, 1], [4, 0, 33]])
def test_a_result_filled_by_parts_equals_the_whole(monkeypatch, rng, mode, parts):
    """HostRows: parts added as a solver's passes finish (each from its own device matrix, the
    slots reused across parts) land where they belong, as rows_to_host's one call."""
    monkeypatch.setattr(download, "BLOCK_BYTES", 3 * 29 * 8)
    m = matrix_of(np.int32, 37, 32, rng)
    dev = LazyDevice()
    with download.host_memory(mode):
        host = download.HostRows(37, 29, device=dev)
        at = 0
        for size in parts:
            host.add(m[at:at + size].copy(), at)
            at += size
        got = host.result()
    assert np.array_equal(got.view(np.int64), to_public(m[:, :29]).view(np.int64))


@pytest.mark.parametrize("mode", ["pinned", "staged"])
def test_predecessors_map_every_negative_to_none(monkeypatch, rng, mode):
    monkeypatch.setattr(download, "BLOCK_BYTES", 64)
    pred = rng.integers(-3, 50, (21, 17)).astype(np.int32)
    with download.host_memory(mode):
        got = download.rows_to_host(pred, slice(0, 21), 15, "predecessors", none=-9999, device=LazyDevice())
    want = np.where(pred[:, :15] < 0, -9999, pred[:, :15])
    assert got.dtype == np.int32 and np.array_equal(got, want)
    assert np.array_equal(download.predecessor_rows(pred, -9999), np.where(pred < 0, -9999, pred))


@pytest.mark.parametrize("mode, missing", [("pinned", "wait_compute"), ("pinned", "wait_host"),
                                           ("staged", "wait_host")])
def test_a_missing_wait_is_caught_by_the_lazy_device(monkeypatch, rng, missing, mode):
    """The fake is strict enough for the tests above to fail where an ordering is dropped (staged:
    the host's wait for block b - 1 already orders the conversion of block b + 1 into its slot)."""
    monkeypatch.setattr(download, "BLOCK_BYTES", 2 * 8 * 8)
    monkeypatch.setattr(LazyDevice, missing, lambda self, token: None)
    m = matrix_of(np.int32, 12, 8, rng)
    with download.host_memory(mode):
        got = download.rows_to_host(m, slice(0, 12), 8, device=LazyDevice())
    assert not np.array_equal(got, to_public(m))


def test_pool_arrays_stay_valid_and_memory_returns_only_when_unused():
    pool = download.PinnedPool(bytearray, memoryview)
    a = pool.array((100, 10), np.float64)
    a[...] = 1.0
    b = pool.array((100, 10), np.float64)
    b[...] = 2.0
    assert not np.shares_memory(a, b) and (a == 1.0).all() and a.flags.writeable
    address = a.__array_interface__["data"][0]
    view = a[3:]
    del a
    gc.collect()
    c = pool.array((100, 10), np.float64)  # the first block is still seen through ``view``
    assert c.__array_interface__["data"][0] != address and (view == 1.0).all()
    assert pool.allocations == 3
    del view
    gc.collect()
    d = pool.array((90, 10), np.float64)  # now it is free again, and reused
    assert d.__array_interface__["data"][0] == address and pool.allocations == 3
    assert (b == 2.0).all()


def test_pool_reuses_only_blocks_of_about_the_size_and_keeps_a_bounded_amount():
    pool = download.PinnedPool(bytearray, memoryview, keep_bytes=2 * download.ALLOC_UNIT)
    big = pool.array((download.ALLOC_UNIT,), np.uint8)  # one unit
    del big
    gc.collect()
    small = pool.array((10,), np.uint8)
    assert pool.allocations == 1  # 10 bytes still round to one unit: reused
    del small
    huge = [pool.array((3 * download.ALLOC_UNIT,), np.uint8) for _ in range(2)]
    assert pool.allocations == 3
    del huge
    gc.collect()
    assert pool.free_bytes() <= 2 * download.ALLOC_UNIT
    tiny = pool.array((1,), np.uint8)
    assert tiny.size == 1
    pool.release()
    assert pool.free_bytes() == 0


def test_auto_mode_picks_pageable_pinned_staged_by_size(monkeypatch):
    pool = download.PinnedPool(bytearray, memoryview)
    monkeypatch.setattr(download, "host_available_bytes", lambda: 1 << 40)
    monkeypatch.setattr(download, "PINNED_LIMIT_BYTES", 100 << 20)
    assert download.choose_mode(1000, pool) == "pageable"
    assert download.choose_mode(50 << 20, pool) == "pinned"
    keep = pool.array((60 << 20,), np.uint8)
    assert download.choose_mode(50 << 20, pool) == "staged"  # 60 + 50 MiB alive > the limit
    del keep
    gc.collect()
    assert download.choose_mode(50 << 20, pool) == "pinned"
    with download.host_memory("staged"):
        assert download.choose_mode(1000, pool) == "staged"
    with pytest.raises(ValueError, match="mode must be one of"):
        with download.host_memory("fast"):
            pass


def test_blocks_cover_every_row_once():
    for count, n in [(0, 5), (1, 1), (37, 29), (1000, 3), (3, 10**7)]:
        plan = download.blocks(count, n, 8, block_bytes=4096)
        covered = np.concatenate([np.arange(lo, hi) for lo, hi in plan]) if plan else np.array([], int)
        assert np.array_equal(covered, np.arange(count))


def test_host_solution_rows_and_predecessors_keep_the_contract(rng):
    dist = matrix_of(np.int32, 6, 6, rng)
    pred = rng.integers(-1, 6, (6, 6)).astype(np.int32)
    sol = Solution(dist, np.arange(6, dtype=np.int32), 5, pred=pred)
    assert np.array_equal(sol.rows(), to_public(dist[:, :5]))
    got = sol.pred_rows(none=-9999)
    assert np.array_equal(got, np.where(pred[:, :5] < 0, -9999, pred[:, :5]))
    assert not np.shares_memory(sol.pred_rows(), pred)  # a copy, as before


def test_multi_source_streams_a_large_host_result_in_passes():
    from apsp_kernels.generators import random_digraph
    from apsp_kernels.multi_source.solver import MultiSourceSSSP, STREAM_PASSES
    g = random_digraph(4677, 16384, seed=0)
    solver = MultiSourceSSSP(g)
    assert solver.stream_to_host() and solver.streaming
    assert len(solver.passes) == STREAM_PASSES and solver.K % 128 == 0
    assert [lo for lo, _ in solver.passes][1:] == [hi for _, hi in solver.passes][:-1]
    assert solver.passes[-1][1] == g.n and solver.pull.k == solver.K
    assert not MultiSourceSSSP(g, parents=True).stream_to_host()       # predecessors: one pass
    assert not MultiSourceSSSP(g, sources=range(100)).stream_to_host()  # small: one copy
    assert not MultiSourceSSSP(g, K=512).stream_to_host()               # passes already
