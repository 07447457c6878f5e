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

A block yields per-source values (its rows) and per-target partial sums (columns); the client
adds the column sums of all blocks. Closeness and harmonic are exact once every source is done.
Code is xp-generic: numpy on CPU workers, cupy on GPU workers.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import oracle
from ..arrays import array_module
from ..errors import InputError
from ..inf import KERNEL_SUFFIX
from ..solver import to_host

PER_SOURCE = ("eccentricity", "reach_out", "sum_out")
PER_TARGET = ("sum_in", "reach_in", "harmonic_in")


def check_bins(bins) -> np.ndarray:
    edges = np.asarray(bins, dtype=np.float64)
    if edges.ndim != 1 or len(edges) < 2 or not np.all(np.isfinite(edges)) or np.any(np.diff(edges) <= 0):
        raise InputError(f"histogram bins must be >= 2 finite, increasing edges, got {bins!r}")
    return edges


def default_bins(graph, count: int = 64) -> np.ndarray:
    """``count`` equal bins from 0 to an upper bound on every distance, so that none falls outside.

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


def block_partial(dist, inf, sources, edges: np.ndarray) -> dict:
    """Reductions of the rows ``dist`` (k x n, entries >= ``inf`` unreachable) of ``sources``,
    as host numpy arrays. On the device: two passes over the rows (``reductions.cu``: a CUDA
    block per row, a thread per column adding the rows in order) and the histogram's one,
    the same sums every run; on the host, numpy's."""
    xp = array_module(dist)
    k, n = dist.shape
    src = xp.asarray(np.asarray(sources, dtype=np.int64))
    counts, pairs = histogram_pairs(dist, inf, src, edges)
    if kernels_take(xp, dist, inf):
        out = _device_sums(xp, dist, inf)
    else:
        out = host_sums(xp, dist, inf)
    out.update(histogram=counts, pairs=pairs)
    return {key: to_host(value) for key, value in out.items()}


def kernels_take(xp, dist, inf) -> bool:
    """Whether ``reductions.cu`` takes these rows: a non-empty, C-ordered device array of a kernel dtype."""
    dtype = np.dtype(dist.dtype)
    return bool(xp is not np and dtype in KERNEL_SUFFIX and dist.shape[0] and dist.shape[1]
                and dist.flags.c_contiguous and (dtype.kind == "f" or np.isfinite(inf)))


def _device_sums(cp, dist, inf) -> dict:
    from .. import gpu
    k, n = dist.shape
    dtype = np.dtype(dist.dtype)
    module = gpu.load_module(gpu.cu_path(__file__, _CU))
    sfx = KERNEL_SUFFIX[dtype]
    out = {"eccentricity": cp.empty(k), "reach_out": cp.empty(k, dtype=cp.int64), "sum_out": cp.empty(k),
           "sum_in": cp.empty(n), "reach_in": cp.empty(n, dtype=cp.int64), "harmonic_in": cp.empty(n)}
    module.get_function(f"red_rows_{sfx}")((k,), (256,), (dist, np.int64(n), dtype.type(inf), out["eccentricity"],
                                                         out["reach_out"], out["sum_out"]))
    module.get_function(f"red_columns_{sfx}")((-(-n // 256),), (256,), (dist, np.int32(k), np.int64(n),
                                                                        dtype.type(inf), out["sum_in"],
                                                                        out["reach_in"], out["harmonic_in"]))
    return out


def host_sums(xp, dist, inf) -> dict:
    """The per-source and per-target sums of rows with array module ``xp`` (NumPy, or CuPy where the kernels do not take them)."""
    k, n = dist.shape
    reach = dist < inf
    d = xp.where(reach, dist, 0).astype(xp.float64)
    with np.errstate(divide="ignore"):
        inverse = xp.where(d > 0, 1.0 / xp.where(d > 0, d, 1.0), 0.0)
    return {"eccentricity": d.max(axis=1) if n else xp.zeros(k), "reach_out": reach.sum(axis=1, dtype=xp.int64),
            "sum_out": d.sum(axis=1), "sum_in": d.sum(axis=0), "reach_in": reach.sum(axis=0, dtype=xp.int64),
            "harmonic_in": inverse.sum(axis=0)}


@dataclass
class Accumulator:
    """Merges block partials on the client: rows by position, columns and histogram by addition.

    The per-vertex float sums are added in the order of the sources' positions, whatever order
    the blocks arrive in (Dask returns them as they finish), so that a run's closeness and
    harmonic sums are the same, bit for bit, every time it runs with the same blocks."""

    n: int
    sources: np.ndarray
    edges: np.ndarray
    per_source: dict = field(init=False)
    per_target: dict = field(init=False)
    histogram: np.ndarray = field(init=False)
    pairs: int = 0
    done: np.ndarray = field(init=False)
    _waiting: dict = field(init=False)  # start -> (stop, per-vertex sums) of blocks not yet added
    _added: int = field(init=False)  # the per-vertex sums of positions [0, _added) are in

    def __post_init__(self):
        k = len(self.sources)
        self.per_source = {"eccentricity": np.full(k, np.nan), "reach_out": np.zeros(k, np.int64),
                           "sum_out": np.zeros(k)}
        self.per_target = {"sum_in": np.zeros(self.n), "reach_in": np.zeros(self.n, np.int64),
                           "harmonic_in": np.zeros(self.n)}
        self.histogram = np.zeros(len(self.edges) - 1, dtype=np.int64)
        self.done = np.zeros(k, dtype=bool)
        self._waiting, self._added = {}, 0

    def add(self, start: int, partial: dict) -> None:
        stop = start + len(partial["reach_out"])
        if self.done[start:stop].any():
            raise RuntimeError(f"sources {start}..{stop} merged twice")
        for key in PER_SOURCE:
            self.per_source[key][start:stop] = partial[key]
        self.histogram += partial["histogram"]
        self.pairs += int(partial["pairs"])
        self.done[start:stop] = True
        self._waiting[start] = (stop, {key: partial[key] for key in PER_TARGET})
        while self._added in self._waiting:
            self._add_per_target(self._added)

    def _add_per_target(self, start: int) -> None:
        stop, sums = self._waiting.pop(start)
        for key in PER_TARGET:
            self.per_target[key] += sums[key]
        self._added = stop

    def flush(self) -> None:
        """Add the per-vertex sums still waiting for a block before them (a run of some blocks
        only), in the order of their positions."""
        for start in sorted(self._waiting):
            self._add_per_target(start)

    @property
    def complete(self) -> bool:
        return bool(self.done.all())

    def result(self) -> "Reductions":
        self.flush()
        return Reductions(self)


class Reductions:
    """The merged reductions: ``per_source`` and ``per_vertex`` frames, scalars, histogram."""

    def __init__(self, acc: Accumulator):
        n, all_sources = acc.n, acc.complete and len(acc.sources) == acc.n
        ps = acc.per_source
        self.per_source = pd.DataFrame({"vertex": acc.sources, **{k: ps[k] for k in PER_SOURCE}})
        self.per_source["closeness_out"] = closeness(ps["sum_out"], ps["reach_out"], n)
        pt = acc.per_target
        self.per_vertex = pd.DataFrame({"vertex": np.arange(n), "reach_in": pt["reach_in"],
                                        "closeness": closeness(pt["sum_in"], pt["reach_in"], n),
                                        "harmonic": pt["harmonic_in"]})
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
    value = np.zeros_like(total)
    value[ok] = others[ok] / total[ok] * (others[ok] / (n - 1))
    return value
