"""Many shortest-path trees per sweep: batched PHAST on the GPU (project fast path, issue 30).

Delling, Goldberg, Nowatzyk, Werneck, "PHAST: Hardware-accelerated shortest path trees" (IPDPS
2011; JPDC 2013, Sec. 4-5, GPHAST with k trees per sweep): after a one-off contraction (kept on
the Graph, :func:`.layout.hierarchy_of`), a tree is a short upward search plus one downward
sweep over the vertices in level order, the same for every source, so a sweep carries K trees:
distances vertex-major, K per vertex and group (``phast_batched.cu``). One launch runs every
group of a block of sources side by side (one CUDA block per group for the upward searches and
the small top levels, then one launch per large level), and the rows come back as
(len(sources), n) in the graph's numbering.

:func:`multi_source_distances` has the contract of :func:`apsp_kernels.multi_source.multi_source_distances`
(CuPy rows in the kernels' representation), so that ``distributed.all_sources`` runs it per block;
:class:`PhastBatchedSSSP` is the Solver (registry ``fast:phast_batched``). Stats:
``preprocessing_s`` (host contraction, not timed; 0 when the Graph had it), ``compile_s`` (numba
compiling the contraction in this process, once, before it; not in either time), ``levels``,
``shortcuts``, ``launches``, ``K``, ``groups``.
"""
from __future__ import annotations

import weakref

import numpy as np

from .. import gpu
from ..errors import InputError
from ..solver import Solution, Solver, checked_sources
from ..inf import kernel_suffix
from .layout import SweepLayout, first_top_level, hierarchy_of, layout, padded_sources
from .contraction import compile_seconds
from .phast import MAX_MEAN_DEGREE

_CU = gpu.cu_path(__file__, "phast_batched.cu")
K_CHOICES = (32, 64, 128, 256)
DEFAULT_K = 64  # trees per sweep: fastest or within 2 % at 8192 sources per launch on NY and BAY (H100)
# phb_upper: one CUDA block per group of K sources, latency bound, so as many warps as a block holds while the
# groups fit one a multiprocessor. With the top levels from 128 vertices down and arcs' rows loaded ahead
# (phast_batched.cu) a sweep of 1024 sources of the 16M stand-in took 74.5 ms against 83.4 at 512 threads, 256
# and one row at a time; NY's and BAY's of 16384 sources 25.0 and 22.0 ms against 33.5 and 26.1 (one H200, CUDA
# events, best of 4). More groups than that: fewer threads a group, more of them resident (upper_threads).
THREADS = 1024
UPPER_THREADS = (1024, 512, 256)  # threads a group: one, two or four groups a multiprocessor (64 registers a thread)
DOWN_THREADS = 256     # phb_down: a warp per (vertex, group)
TOP_LEVEL_MAX = 128    # levels of at most this many vertices run inside phb_upper
MAX_COLUMNS = 1 << 14  # sources per launch at most (the working matrix is n x that)
AUTO_ENTRIES = 1 << 30  # batch="auto": a working matrix of about 2**30 distances
_LAYOUTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def suits(graph) -> bool:
    """Road-like enough for a hierarchy: non-negative weights, at most MAX_MEAN_DEGREE arcs per vertex."""
    return graph.m <= MAX_MEAN_DEGREE * graph.n and not graph.has_negative_weights


def check_graph(graph, who: str) -> str:
    """The kernel suffix, or InputError before anything is contracted or allocated."""
    suffix = kernel_suffix(graph, who)
    graph.require_nonnegative(who)
    if graph.m > MAX_MEAN_DEGREE * graph.n:
        raise InputError(f"{who} contracts road-like graphs (at most {MAX_MEAN_DEGREE:g} arcs per vertex), "
                         f"but {graph.name} has {graph.m / graph.n:.2f}: use fast:multi_source")
    graph.check_int32_range(who)
    return suffix


def upper_shared_bytes(threads: int, k: int, itemsize: int, levels: int) -> int:
    """phb_upper's dynamic shared memory: a row of K // 32 distances a thread, then a slot a level."""
    return threads * (k // 32) * itemsize + 4 * levels


def group_bytes(n: int) -> int:
    """Device bytes of one group of K sources beyond its columns: its stamps and its buckets, an int32
    of each a vertex."""
    return 2 * 4 * n


def upper_threads(groups: int, sms: int) -> int:
    """phb_upper's threads a group for a sweep of ``groups`` groups on ``sms`` multiprocessors: the most
    of :data:`UPPER_THREADS` with which every group is resident at once, else the fewest. A sweep of NY's
    52,928 sources (414 groups of 128) on an H200's 132 took 75.5 ms at 256 threads against 78.2 at 1024,
    BAY's 64,256 78.8 against 81.2; 128 groups ran best at 1024 (results/paper/scale/continent_upper_threads)."""
    for threads in UPPER_THREADS:
        if groups <= max(1, sms) * (THREADS // threads):
            return threads
    return UPPER_THREADS[-1]


def check_params(k, threads, top_level_max, who: str) -> tuple[int, int | None, int]:
    """``threads``: phb_upper's threads a group, or None (:func:`upper_threads` of each sweep)."""
    if isinstance(k, bool) or k not in K_CHOICES:
        raise InputError(f"{who}: K must be one of {K_CHOICES} (sources per sweep), got {k!r}")
    if threads is not None and (isinstance(threads, bool) or int(threads) != threads
                                or not 64 <= threads <= 1024 or threads % 32):
        raise InputError(f"{who}: threads must be None or a multiple of 32 in [64, 1024], got {threads!r}")
    if isinstance(top_level_max, bool) or int(top_level_max) != top_level_max or top_level_max < 0:
        raise InputError(f"{who}: top_level_max must be a non-negative int, got {top_level_max!r}")
    return int(k), None if threads is None else int(threads), int(top_level_max)


class DeviceLayout:
    """The sweep layout on the device, uploaded once per Graph."""

    def __init__(self, lay: SweepLayout):
        cp = gpu.cupy()
        self.host = lay
        self.level_ptr = cp.asarray(lay.level_ptr)
        self.level_of = cp.asarray(lay.level_of)
        self.rank = cp.asarray(lay.rank)
        self.up = tuple(cp.asarray(a) for a in lay.up)
        self.up_out = tuple(cp.asarray(a) for a in lay.up_out)
        self.down = tuple(cp.asarray(a) for a in lay.down)


def sweep_layout(graph) -> tuple[SweepLayout, float]:
    """(host layout, seconds spent contracting now) for ``graph``."""
    h, seconds = hierarchy_of(graph)
    cached = _LAYOUTS.get(graph)
    if cached is None or cached[0] is not h:
        cached = (h, layout(h), None)
        _LAYOUTS[graph] = cached
    return cached[1], seconds


def device_layout(graph) -> DeviceLayout:
    lay, _ = sweep_layout(graph)
    h, host, dev = _LAYOUTS[graph]
    if dev is None:
        dev = DeviceLayout(host)
        _LAYOUTS[graph] = (h, host, dev)
    return dev


class BatchedPhast:
    """Kernels and buffers for sweeps of up to ``columns`` sources on ``graph``, K per group."""

    who = "phast_batched"

    def __init__(self, graph, k=DEFAULT_K, threads=None, top_level_max=TOP_LEVEL_MAX):
        self.suffix = check_graph(graph, self.who)
        self.k, self.threads, self.top_level_max = check_params(k, threads, top_level_max, self.who)
        self.graph = graph
        self.lay, seconds = sweep_layout(graph)
        self.first_top = first_top_level(self.lay.level_ptr, self.top_level_max)
        self.ptr = self.lay.level_ptr.tolist()
        self.stats = {"preprocessing_s": round(seconds, 3),
                      "compile_s": round(compile_seconds(graph.dtype), 3), "levels": self.lay.levels,
                      "shortcuts": self.lay.shortcuts, "K": self.k, "top_levels": self.lay.levels - self.first_top,
                      "down_arcs": len(self.lay.down[1])}
        self.passes = 0

    def columns(self, count: int) -> int:
        return max(1, -(-int(count) // self.k)) * self.k

    def bytes_needed(self, count: int, rows: bool = True) -> int:
        """Device bytes of one launch of ``count`` sources (and the layout when not uploaded): the
        working matrix, a group's stamps and buckets, the sources' ranks, the rows."""
        n, item, c = self.graph.n, self.graph.dtype.itemsize, self.columns(count)
        total = n * c * item + (c // self.k) * group_bytes(n) + 4 * c + (count * n * item if rows else 0)
        cached = _LAYOUTS.get(self.graph)
        if cached is None or cached[2] is None:
            total += self.lay.nbytes
        return total

    def setup(self):
        mod = gpu.load_module(_CU)
        self.k_upper = mod.get_function(f"phb_upper_{self.suffix}_k{self.k}")
        self.k_down = mod.get_function(f"phb_down_{self.suffix}_k{self.k}")
        self.k_rows = mod.get_function(f"phb_rows_{self.suffix}")
        self.shared = upper_shared_bytes(self.threads or THREADS, self.k, self.graph.dtype.itemsize, self.lay.levels)
        if self.shared > gpu.max_shared_bytes():
            raise InputError(f"{self.who}: the hierarchy of {self.graph.name} has {self.lay.levels} levels, more than "
                             f"one CUDA block's shared memory holds a slot for with K={self.k}; use a smaller K "
                             f"or fast:multi_source")
        if self.shared > 48 * 1024:
            self.k_upper.max_dynamic_shared_size_bytes = self.shared
        self.dev = device_layout(self.graph)
        return self.release()

    def release(self):
        """Drop the working matrix, the stamps and the buckets (the next :meth:`allocate` makes them again)."""
        self.D = self.stamps = self.queues = None
        return self

    def allocate(self, count: int):
        """The working matrix and the stamps for launches of up to ``count`` sources (kept while
        later launches fit in them: a launch uses the first columns)."""
        cp = gpu.cupy()
        c = self.columns(count)
        if self.D is None or self.D.shape[1] < c:
            n = self.graph.n
            self.release()
            self.D = cp.empty((n, c), dtype=self.graph.dtype)
            self.stamps = cp.full((c // self.k, n), -1, dtype=cp.int32)
            self.queues = cp.empty((c // self.k, n), dtype=cp.int32)
            self.passes = 0
        return self

    def sweep(self, ranks, after_upper=None, max_rows: int | None = None, finished=None) -> int:
        """Distances from the padded ``ranks`` (device int32, -1 for no source) into the first
        columns of ``self.D`` (new numbering); returns the launches. ``after_upper``: a CUDA event
        recorded once the upward searches and the top levels are done (before the downward launches).
        ``max_rows``: a level's launch cut into launches of at most that many vertices (a level's
        vertices pull only from higher levels). ``finished(lo, hi)``: called as each launch is queued
        with the rows it leaves final, descending and contiguous (the top levels' first)."""
        c = int(ranks.shape[0])
        self.allocate(c)
        n, groups, d, stride = self.graph.n, c // self.k, self.dev, self.D.shape[1]
        i32 = np.int32
        self.upper(ranks)
        launches = 1
        if after_upper is not None:
            after_upper.record()
        if finished is not None:
            finished(self.ptr[self.first_top], n)
        per_block = DOWN_THREADS // 32
        for lv in range(self.first_top - 1, -1, -1):
            lo, hi = self.ptr[lv], self.ptr[lv + 1]
            step = max(1, int(max_rows)) if max_rows else max(1, hi - lo)
            for top in range(hi, lo, -step):
                bottom = max(lo, top - step)
                blocks = -(-(top - bottom) * groups // per_block)
                self.k_down((blocks,), (DOWN_THREADS,), (*d.down, self.D, self.stamps, i32(stride), i32(n),
                                                          i32(groups), i32(bottom), i32(top), i32(self.passes)))
                launches += 1
                if finished is not None:
                    finished(bottom, top)
        self.passes += 1
        return launches

    def upper(self, ranks) -> None:
        """The upward searches and the top levels of the sweep from ``ranks`` (:meth:`sweep`'s first launch)."""
        d, i32, groups = self.dev, np.int32, int(ranks.shape[0]) // self.k
        threads = self.threads or upper_threads(groups, gpu.device_info()["sm_count"])
        self.k_upper((groups,), (threads,),
                     (d.level_ptr, i32(self.lay.levels), i32(self.first_top), d.level_of, *d.up, *d.up_out, *d.down,
                      ranks, self.D, self.stamps, self.queues, i32(self.D.shape[1]), i32(self.graph.n),
                      i32(self.passes)),
                     shared_mem=upper_shared_bytes(threads, self.k, self.graph.dtype.itemsize, self.lay.levels))

    def rows(self, out, count: int):
        """``out`` ((count, n), the graph's numbering) from the last sweep."""
        n, stride = self.graph.n, self.D.shape[1]
        self.k_rows((-(-n // 32), -(-count // 32)), (32, 8), (self.D, self.dev.rank, out, np.int32(stride),
                                                              np.int32(n), np.int32(count)))
        return out

    def run(self, sources: np.ndarray, out) -> int:
        """Rows of ``sources`` (host ids) into ``out`` (device, (len(sources), n)); launches."""
        cp = gpu.cupy()
        ranks = cp.asarray(padded_sources(self.lay.rank, sources, self.k))
        launches = self.sweep(ranks)
        self.rows(out, len(sources))
        return launches + 1


def multi_source_distances(graph, sources, *, K=DEFAULT_K, threads=None, top_level_max=TOP_LEVEL_MAX,
                           stats=None):
    """Distances from every vertex of ``sources`` as a CuPy array of shape (len(sources), n).

    The contract of :func:`apsp_kernels.multi_source.multi_source_distances`: row i for
    ``sources[i]``, int32 with INF = 2**30 - 1 or float32 with +inf, on the device. All sources
    run in one launch (memory checked first: the n x len(sources) working matrix, the rows, the
    stamps). The hierarchy is contracted on the host on the first call per Graph (``stats``
    ``preprocessing_s``) and kept on it; a CuPy graph is brought to the host once for that.
    """
    cp = gpu.cupy()
    ids = sources.get() if hasattr(sources, "get") else sources
    ids = checked_sources(ids, graph.n, "phast_batched.multi_source_distances")
    if not len(ids):
        raise InputError("phast_batched.multi_source_distances: sources is empty; pass at least one vertex id")
    check_graph(graph, BatchedPhast.who)
    check_params(K, threads, top_level_max, BatchedPhast.who)
    if len(ids) > MAX_COLUMNS:
        raise InputError(f"phast_batched.multi_source_distances: at most {MAX_COLUMNS} sources per call, got "
                         f"{len(ids)}; split them into blocks (distributed.all_sources does)")
    sweeps = BatchedPhast(graph, K, threads, top_level_max)
    gpu.require_memory(sweeps.bytes_needed(len(ids)), f"phast_batched of {len(ids)} sources on {graph.name}")
    sweeps.setup()
    out = cp.empty((len(ids), graph.n), dtype=graph.dtype)
    launches = sweeps.run(ids, out)
    sweeps.release()
    if stats is not None:
        stats.update(sweeps.stats, launches=launches, groups=-(-len(ids) // sweeps.k))
    return out


class PhastBatchedSSSP(Solver):
    """Batched PHAST: the sources in launches of up to ``batch`` (K per group), rows in order.

    ``K``: trees per sweep (32, 64, 128 or 256); ``batch``: sources per launch ("auto": all of
    them up to :data:`MAX_COLUMNS` and a working matrix of :data:`AUTO_ENTRIES` distances);
    ``threads``: phb_upper's threads a group (None: :func:`upper_threads` of each sweep's groups);
    ``top_level_max``: see ``phast_batched.cu``.
    """

    all_pairs = False
    host_preprocessing = True

    def __init__(self, graph, sources=None, K=DEFAULT_K, batch="auto", threads=None,
                 top_level_max=TOP_LEVEL_MAX):
        super().__init__(graph, sources)
        name = type(self).__name__
        check_graph(graph, name)
        self.k, self.threads, self.top_level_max = check_params(K, threads, top_level_max, name)
        count = max(len(self.sources), 1)
        if batch == "auto":
            batch = min(count, MAX_COLUMNS, max(self.k, AUTO_ENTRIES // max(graph.n, 1) // self.k * self.k))
        elif isinstance(batch, (bool, str)) or int(batch) != batch or not 1 <= int(batch) <= MAX_COLUMNS:
            raise InputError(f"{name}: batch must be 'auto' or an int in [1, {MAX_COLUMNS}], got {batch!r}")
        self.batch = min(int(batch), count)
        self.sweeps = None

    def _sweeps(self) -> BatchedPhast:
        if self.sweeps is None:
            self.sweeps = BatchedPhast(self.graph, self.k, self.threads, self.top_level_max)
            self.stats.update(self.sweeps.stats, batch=self.batch)
        return self.sweeps

    def bytes_needed(self) -> int:
        return self._sweeps().bytes_needed(self.batch, rows=False) + len(self.sources) * self.graph.n * \
            self.graph.dtype.itemsize

    def setup(self):
        cp = gpu.cupy()
        self._sweeps().setup()
        self.out = cp.empty((len(self.sources), self.graph.n), dtype=self.graph.dtype)
        self.parts = [(lo, min(lo + self.batch, len(self.sources)))
                      for lo in range(0, len(self.sources), self.batch)]
        self.ranks = [cp.asarray(padded_sources(self.sweeps.lay.rank, self.sources[lo:hi], self.k))
                      for lo, hi in self.parts]
        self.sweeps.allocate(self.batch)

    def compute(self):
        launches = 0
        for (lo, hi), ranks in zip(self.parts, self.ranks):
            launches += self.sweeps.sweep(ranks) + 1
            self.sweeps.rows(self.out[lo:hi], hi - lo)
        self.stats["launches"] = launches

    def solution(self) -> Solution:
        return Solution(self.out, self.sources, self.graph.n, stats=self.stats)
