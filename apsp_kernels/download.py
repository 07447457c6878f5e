"""Rows of a device matrix to NumPy at the PCIe bound (issue 29, item 5).

What made a NumPy result slow was the destination, not the bus: a fresh pageable array is
faulted in page by page while the driver copies through its own staging buffer (2.9 GB/s for
the 175 MB all-pairs result of okuyama's 4677-vertex random graph on an H100, against 53 GB/s
into page-locked memory). Here the rows are converted on the GPU (distances: float64 with inf
for unreachable; predecessors: int32, negative -> the caller's "none"), a block at a time on the
current stream, and each block is copied on a second stream while the next one converts:

* ``pinned``: into a page-locked array from :class:`PinnedPool`, returned to the caller. Its
  memory goes back to the pool only once that array and every view of it are gone, so the next
  call of the same size pays neither ``cudaHostAlloc`` nor page faults;
* ``staged``: through two page-locked blocks into an ordinary array (results too large to keep
  page-locked), the host's copy of one block overlapping the transfer of the next;
* ``pageable``: straight into an ordinary array (results under ``PINNED_MIN_BYTES``).

:func:`host_memory` forces one of them (benchmarks, tests). The pool keeps at most
``POOL_KEEP_BYTES`` of free page-locked memory; :func:`release_pinned` frees it at once.
"""
from __future__ import annotations

import collections
import contextlib
import threading
import weakref

import numpy as np

from .host import host_available_bytes
from .inf import INF_INT32

BLOCK_BYTES = 32 << 20          # converted bytes per block (two blocks in flight)
PINNED_MIN_BYTES = 1 << 20      # smaller results: one plain copy
PINNED_LIMIT_BYTES = 8 << 30    # page-locked result memory alive at once (and at most 1/4 of the free host memory)
POOL_KEEP_BYTES = 4 << 30       # free page-locked memory kept for the next calls
ALLOC_UNIT = 2 << 20            # page-locked blocks are whole multiples of this
MODES = ("auto", "pinned", "staged", "pageable")
KINDS = {"distances": np.dtype(np.float64), "predecessors": np.dtype(np.int32)}

_forced = threading.local()


@contextlib.contextmanager
def host_memory(mode: str):
    """Within the block (this thread), results land in ``mode`` memory ("auto": the default rule)."""
    if mode not in MODES:
        raise ValueError(f"host_memory: mode must be one of {MODES}, got {mode!r}")
    before = getattr(_forced, "mode", "auto")
    _forced.mode = mode
    try:
        yield
    finally:
        _forced.mode = before


class PinnedPool:
    """Page-locked host blocks handed out as NumPy arrays.

    ``allocate(nbytes)`` makes a block, ``lease(block)`` an object exposing it through the buffer
    protocol; the death of the object at the end of the array's base chain (the array and all its
    views gone) puts the block back. A block is reused for a
    request of at least half its size; free blocks beyond ``keep_bytes`` are freed, oldest first.
    """

    def __init__(self, allocate, lease, keep_bytes: int = POOL_KEEP_BYTES):
        self._allocate, self._lease, self.keep_bytes = allocate, lease, keep_bytes
        self._free: list[tuple[int, object]] = []          # (size, block), oldest first
        self._returned: collections.deque = collections.deque()  # appended by finalizers (any thread, any time)
        self._lock = threading.Lock()
        self.in_use_bytes = 0
        self.allocations = 0

    def array(self, shape, dtype) -> np.ndarray:
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        nbytes = max(1, count * dtype.itemsize)
        with self._lock:
            self._collect()
            entry = self._reuse(nbytes)
        if entry is None:
            size = -(-nbytes // ALLOC_UNIT) * ALLOC_UNIT
            entry = (size, self._allocate(size))
            self.allocations += 1
        with self._lock:
            self.in_use_bytes += entry[0]
        out = np.frombuffer(self._lease(entry[1]), dtype=dtype, count=count).reshape(shape)
        weakref.finalize(_owner(out), self._returned.append, entry)
        return out

    def in_use(self) -> int:
        """Bytes of blocks that arrays still use."""
        with self._lock:
            self._collect()
            return self.in_use_bytes

    def free_bytes(self) -> int:
        with self._lock:
            self._collect()
            return sum(size for size, _ in self._free)

    def release(self) -> None:
        """Free every block no array uses."""
        with self._lock:
            self._collect()
            self._free.clear()

    def _collect(self) -> None:
        while self._returned:
            entry = self._returned.popleft()
            self.in_use_bytes -= entry[0]
            self._free.append(entry)
        total = sum(size for size, _ in self._free)
        while self._free and total > self.keep_bytes:
            total -= self._free.pop(0)[0]

    def _reuse(self, nbytes: int):
        fits = [i for i, (size, _) in enumerate(self._free) if nbytes <= size <= 2 * nbytes + ALLOC_UNIT]
        if not fits:
            return None
        return self._free.pop(min(fits, key=lambda i: self._free[i][0]))


def _owner(array: np.ndarray):
    """The object at the end of ``array``'s base chain (NumPy points every view straight at it):
    it lives exactly as long as some array uses the memory. Not the lease itself: NumPy may keep a
    memoryview of its own that outlives it."""
    while isinstance(array, np.ndarray):
        array = array.base
    return array


def choose_mode(nbytes: int, pool: PinnedPool) -> str:
    """Where a result of ``nbytes`` lands (see the module docstring)."""
    forced = getattr(_forced, "mode", "auto")
    if forced != "auto":
        return forced
    if nbytes < PINNED_MIN_BYTES:
        return "pageable"
    limit = min(PINNED_LIMIT_BYTES, (host_available_bytes() or 1 << 62) // 4)
    return "pinned" if pool.in_use() + nbytes <= limit else "staged"


def blocks(count: int, n: int, itemsize: int, block_bytes: int | None = None) -> list[tuple[int, int]]:
    """Row ranges [lo, hi) of about ``block_bytes`` each (at least one row) covering ``count`` rows."""
    step = max(1, (block_bytes or BLOCK_BYTES) // max(1, itemsize * n))
    return [(lo, min(count, lo + step)) for lo in range(0, count, step)]


def rows_to_host(matrix, rows, n: int, kind: str = "distances", none: int = -1, device=None) -> np.ndarray:
    """``matrix[rows, :n]`` of a device matrix, converted on the device as ``kind`` says, in host
    memory: float64 with np.inf (distances) or int32 with ``none`` for negative entries
    (predecessors). ``rows``: a slice (step 1) or an index array."""
    count = rows.stop - rows.start if isinstance(rows, slice) else len(rows)
    host = HostRows(count, n, kind, none, device)
    host.add(matrix, 0, rows)
    return host.result()


class HostRows:
    """A ``(count, n)`` host result filled by parts as they are ready on the device (each part's
    rows converted and copied while the device goes on, e.g. with the next pass of a solver):
    :meth:`add` enqueues, :meth:`result` waits for every copy and returns the array."""

    def __init__(self, count: int, n: int, kind: str = "distances", none: int = -1, device=None):
        self.dtype, self.n, self.kind, self.none = KINDS[kind], n, kind, none
        self.dev = dev = device or _cuda()
        mode = choose_mode(count * n * self.dtype.itemsize, dev.pool)
        self.out = dev.pool.array((count, n), self.dtype) if mode == "pinned" else np.empty((count, n), self.dtype)
        plan = blocks(count, n, self.dtype.itemsize)
        self.step = plan[0][1] - plan[0][0] if plan else 0
        self.slots = [dev.empty((self.step, n), self.dtype) for _ in range(min(2, len(plan)))]
        self.ring = [dev.pool.array((self.step, n), self.dtype) for _ in self.slots] if mode == "staged" else None
        self.copied = [None] * len(self.slots)
        self.held = [None] * len(self.slots)  # a block copied straight from a temporary lives until its copy is done
        self.waiting = None  # staged: (copy done, lo, hi, slot) of the block whose host copy is next
        self.block = 0       # blocks enqueued so far (they take the slots in turn)
        self.last = None     # the copy event of the last block enqueued

    def add(self, matrix, at: int, rows=None) -> None:
        """Rows ``matrix[rows, :n]`` (all of ``matrix``'s rows when None) into result rows from ``at``."""
        if self.n == 0 or not self.slots:
            return
        rows = slice(0, matrix.shape[0]) if rows is None else rows
        count = rows.stop - rows.start if isinstance(rows, slice) else len(rows)
        dev, n = self.dev, self.n
        for lo in range(0, count, self.step):
            hi = min(count, lo + self.step)
            s = self.block % len(self.slots)
            self.block += 1
            if self.copied[s] is not None:
                dev.wait_compute(self.copied[s])  # the slot's last block has left it
            part = slice(rows.start + lo, rows.start + hi) if isinstance(rows, slice) else rows[lo:hi]
            src = self.held[s] = dev.convert(matrix[part, :n], self.slots[s][: hi - lo], self.kind, self.none)
            ready = dev.record_compute()
            first = at + lo
            target = self.ring[s][: hi - lo] if self.ring else self.out[first:first + hi - lo]
            self.copied[s] = self.last = dev.copy_to_host(target, src, ready)
            if self.ring:
                if self.waiting is not None:
                    _unstage(self.dev, self.out, self.ring, *self.waiting)
                self.waiting = (self.copied[s], first, first + hi - lo, s)

    def result(self) -> np.ndarray:
        if self.ring and self.waiting is not None:
            _unstage(self.dev, self.out, self.ring, *self.waiting)
            self.waiting = None
        elif self.last is not None:
            self.dev.wait_host(self.last)
        return self.out


def _unstage(dev, out, ring, done, lo, hi, s) -> None:
    dev.wait_host(done)
    np.copyto(out[lo:hi], ring[s][: hi - lo])


def public_rows(rows):
    """Device rows in the public representation (float64, inf), one pass, on the device."""
    dev = _cuda()
    if rows.dtype == np.float64:
        return rows.copy()
    return dev.convert(rows, dev.empty(rows.shape, np.float64), "distances", -1)


def predecessor_rows(rows, none: int = -1):
    """Predecessors as int32 with ``none`` for every negative entry (NumPy or CuPy, a new array)."""
    if isinstance(rows, np.ndarray):
        return np.where(rows < 0, np.int32(none), rows).astype(np.int32, copy=False)
    dev = _cuda()
    return dev.convert(rows, dev.empty(rows.shape, np.int32), "predecessors", none)


def array_to_host(x) -> np.ndarray:
    """A device array on the host, in a page-locked array from the shared pool where
    :func:`choose_mode` gives "pinned" (the next array of about its size reuses the memory once
    this one is gone), else in an ordinary one; a NumPy array as it is."""
    if isinstance(x, np.ndarray):
        return x
    side = _cuda()
    if choose_mode(x.nbytes, side.pool) != "pinned":
        return x.get()
    out = side.pool.array(x.shape, x.dtype)
    x.get(out=out)
    return out


def release_pinned() -> None:
    """Free the page-locked blocks no result uses (they are kept for the next calls otherwise)."""
    if _CUDA:
        for dev in _CUDA.values():
            dev.pool.release()


# ----------------------------------------------------------------------------- the CUDA side
_CUDA: dict = {}


def _cuda():
    from . import gpu
    cp = gpu.cupy()
    key = cp.cuda.Device().id
    if key not in _CUDA:
        _CUDA[key] = CudaSide(cp, _shared_pool(cp))
    return _CUDA[key]


_POOL: list = []


def _shared_pool(cp) -> PinnedPool:
    """One pool per process (hostAllocPortable: the blocks serve every device)."""
    if not _POOL:
        from cupy.cuda import pinned_memory
        flags = cp.cuda.runtime.hostAllocPortable
        _POOL.append(PinnedPool(lambda size: pinned_memory.PinnedMemory(size, flags),
                                lambda block: pinned_memory.PinnedMemoryPointer(block, 0)))
    return _POOL[0]


class CudaSide:
    """The device operations :func:`rows_to_host` needs: conversion kernels on the current stream,
    copies on a non-blocking stream of their own (a blocking one would wait for the legacy default
    stream's conversions and undo the overlap), ordered by events."""

    def __init__(self, cp, pool: PinnedPool):
        self.cp, self.pool = cp, pool
        self.copies = cp.cuda.Stream(non_blocking=True)
        self._public = cp.ElementwiseKernel("T x, T unreachable, float64 inf", "float64 y",
                                            "y = x >= unreachable ? inf : (double)x", "apsp_to_public")
        self._parents = cp.ElementwiseKernel("T p, int32 none", "int32 q", "q = p < 0 ? none : (int)p",
                                             "apsp_parents")

    def empty(self, shape, dtype):
        return self.cp.empty(shape, dtype=dtype)

    def convert(self, src, slot, kind: str, none: int):
        """``src`` converted into ``slot`` (or ``src`` itself where it is already in that form)."""
        if kind == "predecessors":
            return self._parents(src, np.int32(none), slot)
        if src.dtype == np.float64 and src.flags.c_contiguous:
            return src
        unreachable = INF_INT32 if src.dtype == np.int32 else np.inf
        return self._public(src, src.dtype.type(unreachable), np.float64(np.inf), slot)

    def record_compute(self):
        event = self.cp.cuda.Event(disable_timing=True)
        event.record(self.cp.cuda.get_current_stream())
        return event

    def wait_compute(self, event) -> None:
        self.cp.cuda.get_current_stream().wait_event(event)

    def copy_to_host(self, target: np.ndarray, src, after):
        runtime = self.cp.cuda.runtime
        self.copies.wait_event(after)
        runtime.memcpyAsync(target.ctypes.data, src.data.ptr, src.nbytes, runtime.memcpyDeviceToHost,
                            self.copies.ptr)
        done = self.cp.cuda.Event(disable_timing=True)
        done.record(self.copies)
        return done

    def wait_host(self, event) -> None:
        event.synchronize()
