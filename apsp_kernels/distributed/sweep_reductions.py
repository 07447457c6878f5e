"""A block's reductions read in place from batched PHAST's working matrix (issue 45, item 3).

Batched PHAST (Delling, Goldberg, Nowatzyk, Werneck, IPDPS 2011 / JPDC 2013, Sec. 4-5: GPHAST)
leaves a block's distances in a vertex-major working matrix (n x columns, the hierarchy's
numbering). When a run only reduces them (no store), :func:`phast_block` reduces that matrix in
one pass (``sweep_reductions.cu``) instead of transposing it into rows first: no rows buffer, so
twice the sources per sweep fit (a 16M-vertex graph: 1024 instead of 512 on an H100; its sweeps
ran at 1.24-1.28x their memory bound on H200s, ``results/paper/scale/continent``), and the
per-vertex sums go straight into the worker's accumulator on its GPU (:class:`SweepSums`, handed
to the client once per run by :mod:`.worker_sums`). The terms and their fixed-point sums are those of
:func:`.reductions.block_partial` (the same bits: tested on the device against it). Int distances in
bins of one integer width (the default ones) or in near-equal bins take kernels with no branch per
term (:func:`kernel_name`). The rows each downward launch leaves final can be reduced on a second
stream while the sweep goes on (:class:`Overlap`: passes over row ranges, :class:`RowReductions`,
the bits of one pass). Two ways of fusing the row terms (1/d on the FP64 pipe) with the
reads measured slower on the 16M stand-in (one H200, against these kernels): adding them in
batched PHAST's downward sweep (a warp a vertex and group adds its part: the sweep lost more than the
pass gained) and a CUDA block of column threads beside row warps fed through shared memory (half the
warps left to count the columns, the busier pipe). Nor did two working matrices of half the columns,
swept by turns on streams of their own, each sweep started halfway through the other's, so that one's
upward searches and last reductions would run beside the other's downward launches: a block of 8192
sources of the 16M stand-in took 1.25x as long (``results/paper/scale/continent_lanes_probe``). Nor did
counting the columns' terms in the downward launches that write the rows, so that the passes add only the rows'
terms: the same bits, but the 16M stand-in's sweeps took 1.78x as long, and its passes without the columns' terms
still 0.74 of the time with them (``results/paper/scale/continent_columns_in_sweep``). What did pay: fewer
instructions a term in the fast kernels (a warp's row sums into fixed point without a branch, a reciprocal of 0
from a seed of 0), 0.91 of the reductions' time with the same bits, and evict-first reads
(``results/paper/scale/continent_fewer_instructions``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .. import gpu
from ..inf import KERNEL_SUFFIX
from . import fixed_sums, reductions, sums_wire
from .fixed_sums import Scales

K = 128  # trees per sweep: at 16M vertices 103 µs a tree against 124 at K = 64 (H100, 1024 sources a sweep)
_CU = "sweep_reductions.cu"
CHUNK = 1024  # columns of a CUDA block (sweep_reductions.cu's SWR_CHUNK)
TILE = 8  # rows a CUDA block holds in shared memory at a time (SWR_TILE)
LANE_BINS = 256  # histograms up to this many bins count per lane in shared memory (SWR_LANE_BINS)
THREADS = 256  # a CUDA block's threads, four columns each (SWR_THREADS)
OWN = 4  # neighbouring columns a thread loads at once, aligned (SWR_OWN): a later launch starts at a multiple
# int distances: a row's 1/d summed exactly in two doubles a lane from this inverse scale up (SWR_EXACT_SCALE)
EXACT_SCALE = 83
FAST_PREFIX = "swr_reduce_i32_"  # the int kernels with no branch per term: _equal and _fast
SUMS_BYTES_PER_VERTEX = 40  # a run's per-vertex sums on a GPU (SweepSums): two 128-bit sums and a count


class SweepSums:
    """One run's per-vertex sums on this GPU (``sum_in``, ``harmonic_in`` in fixed point,
    ``reach_in``), in the hierarchy's numbering; :meth:`packed` and :meth:`result` give them in
    the graph's, on the host."""

    def __init__(self, n: int, scales: Scales, rank):
        cp = gpu.cupy()
        self.sum_in = cp.zeros((n, 2), dtype=cp.uint64)
        self.harmonic_in = cp.zeros((n, 2), dtype=cp.uint64)
        self.reach_in = cp.zeros(n, dtype=cp.uint64)
        self.scales = scales.as_array()
        self.rank = rank  # the graph's vertex -> its row of the working matrix
        self.blocks: set = set()

    def packed(self) -> sums_wire.Packed:
        """The sums in the graph's numbering as they travel to the client (:mod:`.sums_wire`:
        packed on the GPU, one copy to the host)."""
        return sums_wire.pack({"sum_in": self.sum_in, "harmonic_in": self.harmonic_in, "reach_in": self.reach_in},
                              order=self.rank)

    def result(self) -> dict:
        return self.packed().unpack()


def bytes_needed(n: int, sources: int, itemsize: int) -> int:
    """Device bytes of one block beyond the layout (the sum of :func:`bytes_parts`)."""
    return sum(bytes_parts(n, sources, itemsize).values())


def bytes_parts(n: int, sources: int, itemsize: int) -> dict:
    """One block's device bytes beyond the layout: the working matrix, its stamps and buckets (one of
    each per vertex and group of K sources) and the run's per-vertex sums (40 B a vertex)."""
    from ..sssp_hierarchy.phast_batched import group_bytes
    columns = -(-sources // K) * K
    return {"working_matrix": n * columns * itemsize, "stamps_and_buckets": (columns // K) * group_bytes(n),
            "sums": SUMS_BYTES_PER_VERTEX * n}


@dataclass(frozen=True)
class SweepResults:
    """A block's per-source results as they left the GPU (one uint64 buffer: the order keys of the
    eccentricities, ``reach_out``, ``sum_out`` in fixed point, the bins' counts): a worker hands
    them over as they are and takes its next block, and :meth:`partial` unpacks them where they
    are merged (host work that would otherwise keep the GPU waiting: 5-6 ms a block of 16384
    sources inside a Dask worker, one H200)."""

    packed: np.ndarray
    count: int
    dtype: str
    scales: Scales

    def partial(self) -> dict:
        """The per-source part of :func:`.reductions.block_partial`; RuntimeError when a distance
        exceeds what the scales hold."""
        count, host = self.count, self.packed
        out = {"eccentricity": _distances(host[:count], np.dtype(self.dtype)),
               "reach_out": host[count:2 * count].astype(np.int64),
               "sum_out": fixed_sums.to_float(host[2 * count:4 * count].reshape(count, 2), self.scales.distance)}
        counts = host[4 * count:].astype(np.int64)
        out.update(histogram=counts[:-1], pairs=counts[-1])
        reductions.check_cap(out["eccentricity"], self.scales)
        out["scales"] = self.scales.as_array()
        return out


def as_partial(partial):
    """A block's partial as :func:`.reductions.block_partial` gives it (a :class:`SweepResults` unpacked)."""
    return partial.partial() if isinstance(partial, SweepResults) else partial


def reduce_matrix(D, count: int, inf, edges: np.ndarray, scales: Scales, sums: SweepSums | None) -> dict:
    """The per-source part of :func:`.reductions.block_partial` (``eccentricity``, ``reach_out``,
    ``sum_out``, ``histogram``, ``pairs``, ``scales``) of the first ``count`` columns of ``D``
    (each column's own row at distance 0, as a sweep leaves it); their per-vertex sums added to
    ``sums`` (None: not)."""
    return reduce_matrix_packed(D, count, inf, edges, scales, sums).partial()


def reduce_matrix_packed(D, count: int, inf, edges: np.ndarray, scales: Scales, sums: SweepSums | None,
                         gpu_share: float = 1.0) -> SweepResults:
    """:func:`reduce_matrix`'s results on the host as the GPU leaves them (:class:`SweepResults`),
    in one pass over every row (:class:`RowReductions`). ``gpu_share``: the part of the CUDA blocks
    the GPU holds at once that the kernel takes (below 1 it leaves room for a sweep on another
    stream; the same bits)."""
    _check_share(gpu_share)
    passes = RowReductions(D, count, inf, edges, scales, sums)
    passes.rows(0, D.shape[0], gpu_share)
    return passes.packed()


def _check_share(gpu_share: float) -> None:
    if not 0.0 < gpu_share <= 1.0:
        raise ValueError(f"gpu_share must be in (0, 1], got {gpu_share!r}")


class RowReductions:
    """A block's in-place reductions in passes over row ranges of a working matrix (each row in one
    pass, any cut, any order), adding into one buffer of the block's ``count`` per-source results:
    the bits of one pass over every row, since every term is an integer added atomically (or a
    maximum). A block swept in several launches of sources names each one's columns
    (:meth:`next_sweep`); the first pass of each takes its columns' own rows (distance 0) off the
    pairs, as numpy leaves them out."""

    def __init__(self, D, count: int, inf, edges: np.ndarray, scales: Scales, sums: SweepSums | None):
        if len(edges) > reductions.MAX_EDGES_ON_DEVICE:
            raise ValueError(f"at most {reductions.MAX_EDGES_ON_DEVICE} histogram edges on the device, "
                             f"got {len(edges)}")
        cp = gpu.cupy()
        self.count, self.scales, self.sums = count, scales, sums
        self.dtype = np.dtype(D.dtype)
        self.inf = self.dtype.type(inf)
        # the per-source results and the bins' counts in one buffer: one copy back to the host, one wait
        self.results = cp.zeros(4 * count + len(edges), dtype=cp.uint64)
        thresholds, self.per_unit = integer_bins(edges)
        self.n_edges = len(edges)
        self.bins = _bins_on_device(edges, thresholds)
        name = kernel_name(self.dtype, scales, thresholds, self.per_unit)
        self.kernel = _module().get_function(name)
        self.shared = shared_bytes(len(edges), self.dtype.itemsize, fast=name.startswith(FAST_PREFIX))
        if self.shared > 48 * 1024:
            self.kernel.max_dynamic_shared_size_bytes = self.shared
        self.resident = _resident_blocks(self.kernel, self.shared)
        self.launches = 0
        self.next_sweep(D, 0, count)

    def next_sweep(self, D, first: int, width: int) -> None:
        """The passes that follow read the block's sources ``first`` .. ``first + width - 1`` from
        the first columns of ``D``."""
        self.D, self.first, self.width, self.own_rows = D, first, width, True

    def rows(self, lo: int, hi: int, gpu_share: float = 1.0) -> None:
        """Queue the pass over rows ``lo`` .. ``hi`` - 1 on the current stream, its CUDA blocks at
        most ``gpu_share`` of those the GPU holds at once."""
        _check_share(gpu_share)
        if hi <= lo:
            return
        count, first, width, results = self.count, self.first, self.width, self.results
        ecc, reach_out = results[first:first + width], results[count + first:count + first + width]
        sum_out = results[2 * (count + first):2 * (count + first + width)].reshape(width, 2)
        counts = results[4 * count:]
        # the per-vertex accumulators, or (already counted: the kernel does not touch them) any pointer
        sums = self.sums
        into = ((sums.sum_in[lo:hi], sums.reach_in[lo:hi], sums.harmonic_in[lo:hi]) if sums is not None
                else (ecc,) * 3)
        stride, tiles, slots = self.D.shape[1], -(-(hi - lo) // TILE), int(self.resident * gpu_share)
        rows = self.D[lo:hi].ravel()  # a launch of later columns starts this far into every row
        for start, stop in column_launches(width, slots, tiles):
            chunks = -(-(stop - start) // CHUNK)  # one wave: as many CUDA blocks as the GPU (or its share) holds
            across = max(1, min(tiles, slots // chunks))
            self.kernel((across, chunks), (THREADS,),
                        (rows[start:], np.int32(hi - lo), np.int32(stride), np.int32(stop - start), self.inf,
                         np.int32(self.scales.distance), np.int32(self.scales.inverse), *self.bins,
                         np.int32(self.n_edges), np.uint32(self.per_unit), np.int32(sums is not None),
                         np.int32(self.own_rows), *into, ecc[start:stop], reach_out[start:stop], sum_out[start:stop],
                         counts), shared_mem=self.shared)
            self.launches += 1
        self.own_rows = False

    def packed(self) -> SweepResults:
        """The results on the host (waits for the current stream)."""
        return SweepResults(self.results.get(), self.count, self.dtype.str, self.scales)


def column_launches(width: int, slots: int, tiles: int) -> list[tuple[int, int]]:
    """The column ranges ``[(start, stop)]`` of one pass's launches over ``width`` columns, ``tiles``
    row tiles and ``slots`` CUDA blocks the GPU (or its share) holds at once. A launch of ``c`` chunks
    of :data:`CHUNK` columns gives each chunk ``slots // c`` CUDA blocks, and its time follows the rows
    of one: at 53 chunks and 132 slots, 106 blocks fill 80 % of the GPU. So the pass is cut in two where
    that is 10 % faster: the first columns (the partial chunk last, as one launch ends its row), then
    whole chunks (NY's and BAY's blocks of 52,928 and 53,568 sources, continent_block_size in
    results/paper/scale). Only where ``width`` is a multiple of :data:`OWN`: the later launch's rows
    then start aligned for the threads' vector loads. The same bits: each column's terms in one
    launch, every sum an integer."""
    if width % OWN:
        return [(0, width)]
    chunks = -(-width // CHUNK)

    def rows_a_block(c: int) -> int:
        return -(-tiles // max(1, min(tiles, slots // c)))
    best, cut = rows_a_block(chunks), 0
    for whole in range(1, min(chunks - 1, width // CHUNK) + 1):
        split = rows_a_block(chunks - whole) + rows_a_block(whole)
        if split < best:
            best, cut = split, whole
    if not cut or best > 0.9 * rows_a_block(chunks):
        return [(0, width)]
    return [(0, width - cut * CHUNK), (width - cut * CHUNK, width)]


def _module():
    """``sweep_reductions.cu``, compiled once a process (:func:`.gpu.load_module`)."""
    return gpu.load_module(gpu.cu_path(__file__, _CU))


_BINS: dict = {}  # the last bins' edges and thresholds on the device, by their bytes


def _bins_on_device(edges: np.ndarray, thresholds: np.ndarray) -> tuple:
    """The run's bin edges (float64) and integer thresholds on the device, uploaded once a run, not a block."""
    key = (np.asarray(edges, dtype=np.float64).tobytes(), thresholds.tobytes(), gpu.cupy().cuda.Device().id)
    if key not in _BINS:
        cp = gpu.cupy()
        _BINS.clear()
        _BINS[key] = (cp.asarray(edges, dtype=cp.float64), cp.asarray(thresholds))
    return _BINS[key]


def kernel_name(dtype: np.dtype, scales: Scales, thresholds: np.ndarray, per_unit: int) -> str:
    """For int distances whose bins count per lane and whose sums of 1/d are exact in two doubles,
    a kernel with no branch per term: ``swr_reduce_i32_equal`` for bins of one integer width of 2 or
    more (:func:`equal_width`: a bin by a multiply-high), ``swr_reduce_i32_fast`` for bins whose
    first guesses are within one bin (:func:`guess_within_one`); else the kernel of the dtype."""
    if (np.dtype(dtype) == np.int32 and 1 <= len(thresholds) - 1 <= LANE_BINS
            and scales.inverse >= EXACT_SCALE):
        if equal_width(thresholds) >= 2:
            return FAST_PREFIX + "equal"
        if guess_within_one(thresholds, per_unit):
            return FAST_PREFIX + "fast"
    return f"swr_reduce_{KERNEL_SUFFIX[np.dtype(dtype)]}"


def equal_width(thresholds: np.ndarray) -> int:
    """The bins' common integer width when every bin holds that many ints (the last one more: numpy
    closes the last bin, so ``integer_bins`` ends one past its edge), else 0."""
    t = np.asarray(thresholds, dtype=np.int64)
    if len(t) < 2:
        return 0
    steps = np.diff(t)
    steps[-1] -= 1
    return int(steps[0]) if steps[0] > 0 and np.all(steps == steps[0]) else 0


def first_guess(d, thresholds: np.ndarray, per_unit: int) -> np.ndarray:
    """sweep_reductions.cu's first guess of an int distance's bin (``d >= thresholds[0]``)."""
    offset = np.asarray(d, dtype=np.int64) - int(thresholds[0])
    guess = (offset.astype(np.uint64) * np.uint64(per_unit)) >> np.uint64(32)
    return np.minimum(guess, len(thresholds) - 2).astype(np.int64)


def guess_within_one(thresholds: np.ndarray, per_unit: int) -> bool:
    """Whether every int distance in the bins has its first guess within one bin of its own, so that
    one step each way finds it (equal bins do; uneven ones may not). The guess grows with d, so each
    bin's first and last distance bound its guesses."""
    t = np.asarray(thresholds, dtype=np.int64)
    bins = np.arange(len(t) - 1)
    taken = t[:-1] < t[1:]
    if not taken.any():
        return True
    first = first_guess(t[:-1][taken], t, per_unit)
    last = first_guess(t[1:][taken] - 1, t, per_unit)
    return bool(np.all(first >= bins[taken] - 1) and np.all(last <= bins[taken] + 1))


def _resident_blocks(kernel, shared: int) -> int:
    """CUDA blocks of ``kernel`` that the GPU holds at once (its occupancy times the multiprocessors)."""
    from cupy_backends.cuda.api import driver
    per_sm = driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, THREADS, shared)
    return max(1, int(per_sm)) * gpu.device_info()["sm_count"]


def shared_bytes(n_edges: int, itemsize: int, fast: bool = False) -> int:
    """Dynamic shared memory of a CUDA block. The general kernels: the tile, the edges, their integer
    thresholds and, for few bins, a counter per bin and lane; the fast ones (int distances): two
    tiles, each bin's two thresholds and a counter per bin and lane (and two rows of them more: the
    last edge's and the terms in no bin)."""
    bins = n_edges - 1
    if fast:
        return 2 * TILE * CHUNK * 4 + 8 * bins + (bins + 2) * 32 * 4
    return (TILE * CHUNK * itemsize + 8 * n_edges + 4 * (n_edges + n_edges % 2)
            + (bins * 32 * 4 if bins <= LANE_BINS else 0))


def integer_bins(edges: np.ndarray) -> tuple[np.ndarray, int]:
    """The edges as int32 thresholds for integer distances d (``d >= edges[b]`` exactly when
    ``d >= t[b]``: ceilings, the last edge's floor + 1 as an exclusive end, clipped to int32; no
    reached distance reaches the clip) and the multiplier of the kernel's first guess of a bin,
    bins / (hi - lo) in 32-bit fixed point."""
    edges = np.asarray(edges, dtype=np.float64)
    t = np.ceil(edges)
    t[-1] = np.floor(edges[-1]) + 1
    info = np.iinfo(np.int32)
    thresholds = np.clip(t, info.min, info.max).astype(np.int32)
    span = float(edges[-1] - edges[0])
    per_unit = (len(edges) - 1) * 2.0 ** 32 / span if span > 0 else np.inf
    return thresholds, int(min(per_unit, 2 ** 32 - 1))


def _distances(keys: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """float64 distances from ``sweep_reductions.cu``'s order keys."""
    if dtype.kind in "iu":
        return keys.astype(np.float64)
    if dtype == np.float32:
        return keys.astype(np.uint32).view(np.float32).astype(np.float64)
    return keys.view(np.float64)


@dataclass(frozen=True)
class Overlap:
    """How a block's reductions run beside its sweep (:func:`phast_block`): the rows the downward
    launches leave final are reduced on a second stream in segments of about 1 / ``segments`` of the
    rows (a large level cut into launches of that size), on at most ``gpu_share`` of the CUDA
    blocks the GPU holds at once while the sweep goes on, the last one on all of them after it.
    ``sweep_first``: the sweep's stream takes free multiprocessors before the reductions'."""

    segments: int = 32
    gpu_share: float = 0.5
    sweep_first: bool = True

    def __post_init__(self):
        _check_share(self.gpu_share)
        if isinstance(self.segments, bool) or not isinstance(self.segments, int) or self.segments < 1:
            raise ValueError(f"segments must be a positive int, got {self.segments!r}")


OVERLAP = Overlap()  # the fastest way of the overlap probe on the 16M stand-in (one H200)
MIN_SEGMENT_ROWS = 1 << 14  # fewer rows a pass would take less time than its launch and its atomics
_HIGH_PRIORITY, _LOW_PRIORITY = -5, 0  # CUDA clamps them to the device's range (0 the lowest)
_STREAMS: dict = {}


def _streams(sweep_first: bool) -> tuple:
    """This device's (sweep, reductions) streams, made once; neither waits for the null stream."""
    cp = gpu.cupy()
    key = (cp.cuda.Device().id, sweep_first)
    if key not in _STREAMS:
        _STREAMS[key] = (cp.cuda.Stream(non_blocking=True, priority=_HIGH_PRIORITY if sweep_first else _LOW_PRIORITY),
                         cp.cuda.Stream(non_blocking=True, priority=_LOW_PRIORITY))
    return _STREAMS[key]


class _AsSwept:
    """Queues a block's reduction passes on ``reduce_stream`` as the sweep on ``sweep_stream``
    leaves rows final (``finished``, descending): a pass once ``segment_rows`` are waiting, on
    ``share`` of the GPU; what is left after the last launch on all of it."""

    def __init__(self, passes: RowReductions, sweep_stream, reduce_stream, segment_rows: int, share: float):
        self.passes, self.sweep_stream, self.reduce_stream = passes, sweep_stream, reduce_stream
        self.segment_rows, self.share = segment_rows, share
        self.low = self.high = None

    def finished(self, lo: int, hi: int) -> None:
        if hi <= lo:
            return
        if self.high is None:
            self.high = hi
        self.low = lo
        if lo == 0:
            self._queue(1.0)
        elif self.high - self.low >= self.segment_rows:
            self._queue(self.share)

    def _queue(self, share: float) -> None:
        self.reduce_stream.wait_event(self.sweep_stream.record())
        with self.reduce_stream:
            self.passes.rows(self.low, self.high, share)
        self.high = self.low


def phast_block(graph, sources, edges: np.ndarray, scales: Scales, sums: SweepSums | None,
                packed: bool = False, overlap: Overlap | None = OVERLAP, columns: int | None = None) -> tuple:
    """Sweep ``sources`` (host ids) in launches of K-wide groups, at most ``columns`` sources each
    (None: all in one; the working matrix holds one launch's), and reduce the working matrix in
    place after each: ``(partial, stats)``, the partial without per-vertex sums (added to ``sums``),
    as the GPU left it with ``packed`` (:class:`SweepResults`: unpacked where it is merged).
    ``overlap``: the reductions of finished rows beside the rest of the sweep (:class:`Overlap`;
    None: after it). The same bits for any ``columns`` and ``overlap``. The launches are queued
    one after another on the GPU, the host waiting once, for the results.
    ``stats``: the sweeps' (``K``, ``levels``, ...) with ``setup_ms`` (host seconds before the
    first event: the layout, both modules' compile, the buffers; a worker's first block pays most
    of it), ``sweep_ms`` (with the reductions it overlapped), the part of it in the upward searches
    and top levels (one CUDA block a group of K sources) ``upper_ms``, ``reduce_ms`` (after the
    sweeps: what they did not hide, and the results' way to the host) and the part of it to the
    last reduction kernels' ends ``reduce_kernel_ms`` (CUDA events, summed over the launches of
    sources, ``sweeps``), ``reduce_passes`` and ``reduce_share`` (the GPU share of the passes beside
    a sweep)."""
    from ..sssp_hierarchy import phast_batched as PB
    from ..sssp_hierarchy.layout import padded_sources
    cp = gpu.cupy()
    began = time.perf_counter()
    sources = np.asarray(sources)
    count = len(sources)
    width = count if columns is None else max(1, min(int(columns), count))
    sweeps = PB.BatchedPhast(graph, K)
    gpu.require_memory(sweeps.bytes_needed(width, rows=False) + SUMS_BYTES_PER_VERTEX * graph.n,
                       f"batched PHAST of {width} sources at a time on {graph.name}, reduced in place")
    sweeps.setup()
    _module().compile()  # a first block's compile is setup, not reductions
    sweep_stream, reduce_stream = _streams(overlap is not None and overlap.sweep_first)
    sweep_stream.wait_event(cp.cuda.get_current_stream().record())  # the caller's work first (its sums)
    segment_rows = max(MIN_SEGMENT_ROWS, -(-graph.n // overlap.segments)) if overlap else graph.n + 1
    share = overlap.gpu_share if overlap else 1.0
    marks, ranks, launches = [], [], 0
    try:
        with sweep_stream:
            sweeps.allocate(width)
            passes = RowReductions(sweeps.D, count, graph.inf, edges, scales, sums)
            setup_ms = (time.perf_counter() - began) * 1e3
            for first in range(0, count, width):
                ids = sources[first:first + width]
                ranks.append(cp.asarray(padded_sources(sweeps.lay.rank, ids, K)))
                passes.next_sweep(sweeps.D, first, len(ids))
                start, upper, swept, reduced = (cp.cuda.Event() for _ in range(4))
                start.record()
                as_swept = _AsSwept(passes, sweep_stream, reduce_stream, segment_rows, share)
                launches += sweeps.sweep(ranks[-1], after_upper=upper, max_rows=segment_rows if overlap else None,
                                         finished=as_swept.finished)
                swept.record()
                reduced.record(reduce_stream)
                sweep_stream.wait_event(reduced)  # the next launch overwrites the matrix these passes read
                marks.append((start, upper, swept, reduced))
        with reduce_stream:
            partial = passes.packed()
            back = reduce_stream.record()
        back.synchronize()
    finally:
        reduce_stream.synchronize()  # no pass reads the working matrix once it is released
        sweeps.release()

    def ms(a, b) -> float:
        return sum(cp.cuda.get_elapsed_time(m[a], m[b]) for m in marks)

    kernel_ms = ms(2, 3)
    stats = dict(sweeps.stats, launches=launches, groups=sum(-(-len(r) // K) for r in ranks), sweeps=len(marks),
                 setup_ms=setup_ms, sweep_ms=ms(0, 2), upper_ms=ms(0, 1), reduce_kernel_ms=kernel_ms,
                 reduce_ms=kernel_ms + cp.cuda.get_elapsed_time(marks[-1][3], back),
                 reduce_passes=passes.launches, reduce_share=share)
    return (partial if packed else partial.partial()), stats


def device_rank(graph):
    """The graph's vertex -> working-matrix row, on the device (the layout's, uploaded once)."""
    from ..sssp_hierarchy.phast_batched import device_layout
    return device_layout(graph).rank
