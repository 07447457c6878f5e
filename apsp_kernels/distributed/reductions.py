"""All-sources reductions, computed per block on the worker's device without keeping the rows.

Definitions follow NetworkX for directed graphs (weighted by the arc weights):

* eccentricity(s) = max_v d(s, v) over the vertices s reaches (NetworkX raises unless the graph
  is strongly connected; there the two agree). diameter / radius = max / min eccentricity.
* closeness(u) = (r - 1) / sum_v d(v, u) * (r - 1) / (n - 1), over the r vertices that reach u
  (u included): ``nx.closeness_centrality`` (incoming distances, ``wf_improved=True``).
* harmonic(u) = sum over v with 0 < d(v, u) < inf of 1 / d(v, u): ``nx.harmonic_centrality``.
* reach_out(s) / reach_in(u): vertices s reaches / that reach u, themselves included.
* histogram: ordered pairs (s, v), s != v, v reachable, counted in fixed bins given up front
  (numpy.histogram's edges; pairs outside them are counted in ``outside``), so blocks merge by
  addition.

A block yields per-source values (its rows) and per-target partial sums (columns); the column
sums of all blocks are added up (on the workers, then once on the client: :mod:`.worker_sums`).
Sums of distances and of ``1 / d`` are kept in 128-bit fixed point (:mod:`.fixed_sums`, scales
per graph from :func:`.fixed_sums.scales_for`), so every
reduction is the same bits for any number of workers, block size and finishing order, on the
host and on the device alike; they become float64 once, in :class:`Reductions`. Exact for
int32 weights; for float weights see :mod:`.fixed_sums` for the precision.
Code is xp-generic: numpy on CPU workers, cupy on GPU workers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import oracle
from . import fixed_sums
from .fixed_sums import Scales
from ..arrays import array_module
from ..errors import InputError
from ..inf import KERNEL_SUFFIX
from ..solver import to_host

PER_SOURCE = ("eccentricity", "reach_out", "sum_out")
PER_TARGET = ("sum_in", "reach_in", "harmonic_in")
FIXED = ("sum_in", "harmonic_in")  # per-target sums in fixed point: (n, 2) uint64
# the scales of integer rows when none are given: up to 2**31 terms below 2**30 (the int32 INF): exact
WHOLE_ROWS = Scales(distance=64, inverse=93, cap=float(2 ** 30))


def check_bins(bins) -> np.ndarray:
    edges = np.asarray(bins, dtype=np.float64)
    if edges.ndim != 1 or len(edges) < 2 or not np.all(np.isfinite(edges)) or np.any(np.diff(edges) <= 0):
        raise InputError(f"histogram bins must be >= 2 finite, increasing edges, got {bins!r}")
    return edges


def default_bins(graph, count: int = 64) -> np.ndarray:
    """``count`` equal bins from 0 to an upper bound on every distance, so that none falls outside;
    for int weights, bins of one integer width (each holds as many distances; the fast in-place
    reductions find a bin by a multiply-high).

    When vertex 0 reaches every vertex and every vertex reaches it, d(u, v) <= d(u, 0) + d(0, v)
    bounds every distance by ecc_in(0) + ecc_out(0) (at most twice the diameter: two host Dijkstras,
    and the bins span the distances that occur); otherwise the graph's distance bound.
    """
    top = float(graph.distance_bound)
    if graph.n > 1:
        out = oracle.distances(graph, [0], method="dijkstra")
        into = oracle.distances(graph.reverse, [0], method="dijkstra")
        if np.isfinite(out).all() and np.isfinite(into).all():
            top = min(top, float(out.max() + into.max()))
    if np.dtype(graph.dtype).kind in "iu":
        return np.arange(count + 1) * float(max(1, math.ceil(top / count)))
    return np.linspace(0.0, max(top, 1.0), count + 1)


_CU = "reductions.cu"
MAX_EDGES_ON_DEVICE = 4096  # the device histogram keeps its bins in shared memory


def histogram_pairs(dist, inf, src, edges: np.ndarray):
    """(counts per bin, pairs): the reachable off-diagonal entries of ``dist`` (row i's diagonal
    at column ``src[i]``) counted with numpy.histogram's rule over ``edges``; on the device in
    one pass (``reductions.cu``) when it can, else by compacting the pairs (any array module).
    The counts are the same either way."""
    xp = array_module(dist)
    k, n = dist.shape
    dtype = np.dtype(dist.dtype)
    if not (kernels_take(xp, dist, inf) and 2 <= len(edges) <= MAX_EDGES_ON_DEVICE):
        reach = dist < inf
        off_diagonal = xp.ones((k, n), dtype=bool)
        off_diagonal[xp.arange(k), src] = False
        pairs = xp.where(reach, dist, 0).astype(xp.float64)[reach & off_diagonal]
        counts, _ = xp.histogram(pairs, bins=xp.asarray(edges))
        return counts.astype(xp.int64), xp.asarray(pairs.size, dtype=xp.int64)
    from .. import gpu
    kernel = gpu.load_module(gpu.cu_path(__file__, _CU)).get_function(f"red_histogram_{KERNEL_SUFFIX[dtype]}")
    out = xp.zeros(len(edges), dtype=xp.uint64)
    threads = 256
    rows = min(k, 1024)
    across = max(1, min(-(-n // threads), -(-2048 // rows)))
    kernel((across, rows), (threads,), (dist, np.int32(k), np.int64(n), dtype.type(inf), src,
                                         xp.asarray(edges, dtype=xp.float64), np.int32(len(edges)), out),
           shared_mem=8 * len(edges))
    return out[:-1].astype(xp.int64), out[-1].astype(xp.int64)


def block_partial(dist, inf, sources, edges: np.ndarray, scales: Scales | None = None) -> dict:
    """Reductions of the rows ``dist`` (k x n, entries >= ``inf`` unreachable) of ``sources``,
    as host numpy arrays: per source ``eccentricity``, ``reach_out``, ``sum_out`` (float64); per
    target ``reach_in`` and the fixed-point ``sum_in`` / ``harmonic_in`` ((n, 2) uint64, added
    with :func:`.fixed_sums.add`); ``histogram``, ``pairs``; ``scales`` (:meth:`Scales.as_array`).
    ``scales``: the graph's (:func:`.fixed_sums.scales_for`); None takes :data:`WHOLE_ROWS`,
    for integer rows only. On the device: two passes over the rows (``reductions.cu``: a CUDA
    block per row, a thread per column) and the histogram's one; on the host, numpy's. Both give
    the same bits."""
    xp = array_module(dist)
    k, n = dist.shape
    scales = rows_scales(dist, scales)
    src = xp.asarray(np.asarray(sources, dtype=np.int64))
    counts, pairs = histogram_pairs(dist, inf, src, edges)
    if kernels_take(xp, dist, inf):
        out = _device_sums(xp, dist, inf, scales)
    else:
        out = host_sums(xp, dist, inf, scales)
    out.update(histogram=counts, pairs=pairs)
    out = {key: to_host(value) for key, value in out.items()}
    check_cap(out["eccentricity"], scales)
    out["sum_out"] = fixed_sums.to_float(out["sum_out"], scales.distance)
    out["scales"] = scales.as_array()
    return out


def rows_scales(dist, scales: Scales | None) -> Scales:
    """``scales``, or :data:`WHOLE_ROWS` for integer rows; InputError for float rows without scales."""
    if scales is not None:
        return scales
    if np.dtype(dist.dtype).kind in "iu":
        return WHOLE_ROWS
    raise InputError(f"float distance rows ({np.dtype(dist.dtype).name}) need their graph's fixed-point scales: "
                     f"pass scales=fixed_sums.scales_for(graph, len(sources))")


def check_cap(eccentricity, scales: Scales) -> None:
    """RuntimeError when a distance exceeds what ``scales`` hold (rows of another graph)."""
    ecc = np.asarray(eccentricity)
    if ecc.size and float(ecc.max()) > scales.cap:
        raise RuntimeError(f"a distance of {float(ecc.max()):g} exceeds {scales.cap:g}, the largest the "
                           f"fixed-point sums were scaled for: were the scales made for another graph?")


def kernels_take(xp, dist, inf) -> bool:
    """Whether ``reductions.cu`` takes these rows: a non-empty, C-ordered device array of a kernel dtype."""
    dtype = np.dtype(dist.dtype)
    return bool(xp is not np and dtype in KERNEL_SUFFIX and dist.shape[0] and dist.shape[1]
                and dist.flags.c_contiguous and (dtype.kind == "f" or np.isfinite(inf)))


def _device_sums(cp, dist, inf, scales: Scales) -> dict:
    from .. import gpu
    k, n = dist.shape
    dtype = np.dtype(dist.dtype)
    if dtype.kind in "iu" and scales.distance < 0:
        raise RuntimeError(f"whole distances need a distance scale >= 0, got {scales}")
    module = gpu.load_module(gpu.cu_path(__file__, _CU))
    sfx = KERNEL_SUFFIX[dtype]
    out = {"eccentricity": cp.empty(k), "reach_out": cp.empty(k, dtype=cp.int64),
           "sum_out": cp.empty((k, 2), dtype=cp.uint64), "sum_in": cp.empty((n, 2), dtype=cp.uint64),
           "reach_in": cp.empty(n, dtype=cp.int64), "harmonic_in": cp.empty((n, 2), dtype=cp.uint64)}
    module.get_function(f"red_rows_{sfx}")((k,), (256,), (dist, np.int64(n), dtype.type(inf), np.int32(scales.distance),
                                                         out["eccentricity"], out["reach_out"], out["sum_out"]))
    module.get_function(f"red_columns_{sfx}")((-(-n // 256),), (256,), (dist, np.int32(k), np.int64(n),
                                                                        dtype.type(inf), np.int32(scales.distance),
                                                                        np.int32(scales.inverse), out["sum_in"],
                                                                        out["reach_in"], out["harmonic_in"]))
    return out


def host_sums(xp, dist, inf, scales: Scales) -> dict:
    """The per-source and per-target sums of rows with array module ``xp`` (NumPy, or CuPy where
    the kernels do not take them), as :func:`block_partial` gives them but ``sum_out`` still in
    fixed point ((k, 2) uint64); the same bits as ``reductions.cu``."""
    k, n = dist.shape
    reach = dist < inf
    d = xp.where(reach, dist, 0).astype(xp.float64)
    with np.errstate(divide="ignore"):
        inverse = xp.where(d > 0, 1.0 / xp.where(d > 0, d, 1.0), 0.0)
    return {"eccentricity": d.max(axis=1) if n else xp.zeros(k), "reach_out": reach.sum(axis=1, dtype=xp.int64),
            "sum_out": fixed_sums.sums(d, scales.distance, axis=1),
            "sum_in": fixed_sums.sums(d, scales.distance, axis=0), "reach_in": reach.sum(axis=0, dtype=xp.int64),
            "harmonic_in": fixed_sums.sums(inverse, scales.inverse, axis=0)}


@dataclass
class Accumulator:
    """Merges block partials on the client: rows by position, columns and histogram by addition
    (fixed point: the same bits whatever blocks there are and whatever order they arrive in)."""

    n: int
    sources: np.ndarray
    edges: np.ndarray
    per_source: dict = field(init=False)
    per_target: dict = field(init=False)
    histogram: np.ndarray = field(init=False)
    pairs: int = 0
    done: np.ndarray = field(init=False)
    scales: np.ndarray | None = None  # the fixed-point scales (distance, inverse) of the first block; all match

    def __post_init__(self):
        k = len(self.sources)
        self.per_source = {"eccentricity": np.full(k, np.nan), "reach_out": np.zeros(k, np.int64),
                           "sum_out": np.zeros(k)}
        self.per_target = {"sum_in": fixed_sums.zeros(self.n), "reach_in": np.zeros(self.n, np.int64),
                           "harmonic_in": fixed_sums.zeros(self.n)}
        self.histogram = np.zeros(len(self.edges) - 1, dtype=np.int64)
        self.done = np.zeros(k, dtype=bool)

    def add(self, start: int, partial: dict) -> None:
        """Merge the block of sources ``start``.. (``partial``: :func:`block_partial`'s, or without
        the per-vertex sums when its worker keeps them: those come in :meth:`add_per_vertex`)."""
        stop = start + len(partial["reach_out"])
        if self.done[start:stop].any():
            raise RuntimeError(f"sources {start}..{stop} merged twice")
        self._check_scales(partial["scales"], f"sources {start}..{stop}")
        for key in PER_SOURCE:
            self.per_source[key][start:stop] = partial[key]
        kept = [key for key in PER_TARGET if key not in partial]
        if kept and len(kept) < len(PER_TARGET):
            raise RuntimeError(f"sources {start}..{stop} came with only some per-vertex sums (no {kept})")
        if not kept:
            self.add_per_vertex(partial)
        self.histogram += partial["histogram"]
        self.pairs += int(partial["pairs"])
        self.done[start:stop] = True

    def add_per_vertex(self, sums: dict) -> None:
        """Add per-vertex sums (``sum_in``, ``harmonic_in``, ``reach_in`` and their ``scales``) of
        any set of blocks: a block's, or a worker's accumulator of many (:mod:`.worker_sums`)."""
        self._check_scales(sums["scales"], "per-vertex sums")
        for key in FIXED:
            fixed_sums.add(self.per_target[key], sums[key])
        self.per_target["reach_in"] += sums["reach_in"]

    def add_packed(self, scales, packed) -> None:
        """:meth:`add_per_vertex` of a worker's sums as they travelled (:class:`.sums_wire.Packed`),
        added from the payload."""
        self._check_scales(scales, "per-vertex sums")
        packed.add_into(self.per_target)

    def _check_scales(self, scales, what: str) -> None:
        scales = np.asarray(scales)
        if self.scales is None:
            self.scales = scales
        elif not np.array_equal(scales, self.scales):
            raise RuntimeError(f"{what} were summed with fixed-point scales {scales.tolist()}, "
                               f"the others with {self.scales.tolist()}")

    @property
    def complete(self) -> bool:
        return bool(self.done.all())

    def result(self) -> "Reductions":
        return Reductions(self)


def usable_partial(saved: dict | None, scales: Scales) -> dict | None:
    """A block's saved partial when it was summed with ``scales`` (else None: sum it again)."""
    if saved is None or "scales" not in saved or not scales.matches(saved["scales"]):
        return None
    return saved


class Reductions:
    """The merged reductions: ``per_source`` and ``per_vertex`` frames, scalars, histogram."""

    def __init__(self, acc: Accumulator):
        n, all_sources = acc.n, acc.complete and len(acc.sources) == acc.n
        ps = acc.per_source
        self.per_source = pd.DataFrame({"vertex": acc.sources, **{k: ps[k] for k in PER_SOURCE}})
        self.per_source["closeness_out"] = closeness(ps["sum_out"], ps["reach_out"], n)
        pt = acc.per_target
        distance, inverse = acc.scales if acc.scales is not None else (0, 0)
        #: per vertex: the distances from the sources summed (float64, rounded once from fixed point)
        self.sum_in = fixed_sums.to_float(pt["sum_in"], int(distance))
        #: the per-vertex fixed-point sums ("sum_in", "harmonic_in") and their "scales", as merged
        self.fixed = {key: pt[key] for key in FIXED} | {"scales": acc.scales}
        self.per_vertex = pd.DataFrame({"vertex": np.arange(n), "reach_in": pt["reach_in"],
                                        "closeness": closeness(self.sum_in, pt["reach_in"], n),
                                        "harmonic": fixed_sums.to_float(pt["harmonic_in"], int(inverse))})
        self.all_sources = bool(all_sources)  # closeness / harmonic are final only then
        ecc = ps["eccentricity"][acc.done]
        self.diameter = float(ecc.max()) if len(ecc) else float("nan")
        self.radius = float(ecc.min()) if len(ecc) else float("nan")
        self.strongly_connected = bool(all_sources and (ps["reach_out"] == n).all())
        self.histogram = pd.DataFrame({"low": acc.edges[:-1], "high": acc.edges[1:],
                                       "pairs": acc.histogram})
        self.reachable_pairs = acc.pairs
        self.outside_bins = acc.pairs - int(acc.histogram.sum())
        self.sources_done = int(acc.done.sum())

    def same_as(self, other: "Reductions") -> bool:
        """Equal to ``other`` bit for bit: every frame, the histogram and the scalars."""
        return (pd.Series(self.summary()).equals(pd.Series(other.summary()))
                and self.per_source.equals(other.per_source) and self.per_vertex.equals(other.per_vertex)
                and self.histogram.equals(other.histogram))

    def summary(self) -> dict:
        return {"sources_done": self.sources_done, "all_sources": self.all_sources,
                "diameter": self.diameter, "radius": self.radius,
                "strongly_connected": self.strongly_connected,
                "reachable_pairs": self.reachable_pairs, "outside_bins": self.outside_bins}


def closeness(total, reach, n: int) -> np.ndarray:
    """NetworkX's closeness (wf_improved) from distance sums and reach counts (self included)."""
    total = np.asarray(total, dtype=np.float64)
    others = np.asarray(reach, dtype=np.float64) - 1.0
    ok = (total > 0) & (n > 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, others / total * (others / max(n - 1, 1)), 0.0)
