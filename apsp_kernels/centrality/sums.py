"""Per-block sums of distance rows, merged in source order: what every centrality is read from.

For rows ``dist`` (k sources x n vertices, entries ``>= inf`` unreachable):

* per source: ``eccentricity`` (the largest finite distance), ``reach_out`` (vertices reached,
  itself included), ``sum_out`` (their distances), ``harmonic_out`` (sum of ``1 / d`` over
  ``0 < d < inf``; only when asked, for harmonic centrality of a few vertices on the reversed graph);
* per vertex (column): ``sum_in``, ``reach_in``, ``harmonic_in``, the same over the sources.

On the device the rows go through :func:`apsp_kernels.distributed.reductions.block_partial`'s
kernels (one pass per direction, no n x k temporaries); on the host through NumPy in slices of
rows. The float64 sums of whole-number distances are exact (below ``2**53``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..arrays import array_module
from ..distributed import reductions
from ..solver import to_host

NO_BINS = np.array([0.0, 1.0])  # block_partial's histogram is not used here: the smallest it takes
SLICE_BYTES = 1 << 27  # float64 temporaries of one slice of rows, on the host or the device


@dataclass
class Sums:
    """Sums over the sources done so far (see the module docstring), merged in their order."""

    n: int
    sources: np.ndarray
    harmonic_out_wanted: bool = False
    per_source: dict = field(init=False)
    per_target: dict = field(init=False)
    done: int = 0

    def __post_init__(self):
        k = len(self.sources)
        self.per_source = {"eccentricity": np.zeros(k), "reach_out": np.zeros(k, np.int64), "sum_out": np.zeros(k)}
        if self.harmonic_out_wanted:
            self.per_source["harmonic_out"] = np.zeros(k)
        self.per_target = {"sum_in": np.zeros(self.n), "reach_in": np.zeros(self.n, np.int64),
                           "harmonic_in": np.zeros(self.n)}

    def add(self, dist, inf) -> None:
        """The rows of the next ``len(dist)`` sources."""
        start, stop = self.done, self.done + dist.shape[0]
        part = block_sums(dist, inf, self.sources[start:stop], self.harmonic_out_wanted)
        for key in self.per_source:
            self.per_source[key][start:stop] = part[key]
        for key in self.per_target:
            self.per_target[key] += part[key]
        self.done = stop

    def add_reductions(self, red) -> None:
        """Every source at once from a distributed run's :class:`~apsp_kernels.distributed.Reductions`."""
        ps = red.per_source
        for key in ("eccentricity", "reach_out", "sum_out"):
            self.per_source[key][:] = ps[key].to_numpy()
        pv = red.per_vertex
        self.per_target["reach_in"][:] = pv["reach_in"].to_numpy()
        self.per_target["harmonic_in"][:] = pv["harmonic"].to_numpy()
        self._closeness_in = pv["closeness"].to_numpy()  # the run keeps closeness, not sum_in
        self.done = len(self.sources)

    def copy(self) -> "Sums":
        """A copy whose arrays the caller may change (the cache keeps the original)."""
        out = Sums(self.n, self.sources.copy(), self.harmonic_out_wanted)
        out.per_source = {k: v.copy() for k, v in self.per_source.items()}
        out.per_target = {k: v.copy() for k, v in self.per_target.items()}
        out.done = self.done
        if hasattr(self, "_closeness_in"):
            out._closeness_in = self._closeness_in.copy()
        return out

    def nbytes(self) -> int:
        return sum(v.nbytes for d in (self.per_source, self.per_target) for v in d.values())

    def closeness_in(self, wf_improved: bool = True) -> np.ndarray:
        """NetworkX's closeness of every vertex over the distances from the sources to it."""
        if wf_improved and getattr(self, "_closeness_in", None) is not None:
            return self._closeness_in
        if getattr(self, "_closeness_in", None) is not None:
            raise ValueError("a distributed run gives closeness with wf_improved=True only")
        return closeness(self.per_target["sum_in"], self.per_target["reach_in"], self.n, wf_improved)

    @property
    def complete(self) -> bool:
        return self.done == len(self.sources)


def closeness(total, reach, n: int, wf_improved: bool = True) -> np.ndarray:
    """NetworkX's closeness from distance sums and reach counts (the vertex itself included):
    ``(r - 1) / total``, times ``(r - 1) / (n - 1)`` with ``wf_improved``; 0 where total is 0."""
    if wf_improved:
        return reductions.closeness(total, reach, n)
    total = np.asarray(total, dtype=np.float64)
    others = np.asarray(reach, dtype=np.float64) - 1.0
    ok = (total > 0) & (n > 1)
    value = np.zeros_like(total)
    value[ok] = others[ok] / total[ok]
    return value


def block_sums(dist, inf, sources, harmonic_out: bool = False) -> dict:
    """The sums of one block of rows as host NumPy arrays."""
    xp = array_module(dist)
    if reductions.kernels_take(xp, dist, inf):
        out = reductions.block_partial(dist, inf, np.asarray(sources), NO_BINS)
    else:
        parts = _sliced(xp, dist, inf, _host_part, concat=False)
        out = {key: np.concatenate([p[key] for p in parts]) for key in ("eccentricity", "reach_out", "sum_out")}
        for key in ("sum_in", "reach_in", "harmonic_in"):
            out[key] = sum(p[key] for p in parts) if parts else np.zeros(dist.shape[1])
    if harmonic_out:
        out["harmonic_out"] = _sliced(xp, dist, inf, _harmonic_out)
    return out


def _sliced(xp, dist, inf, fn, concat=True):
    k, n = dist.shape
    step = max(1, SLICE_BYTES // (8 * max(n, 1)))
    parts = [fn(xp, dist[lo:lo + step], inf) for lo in range(0, k, step)]
    return np.concatenate(parts) if concat else parts


def _finite(xp, dist, inf):
    reach = dist < inf
    return reach, xp.where(reach, dist, 0).astype(np.float64)


def _inverse(xp, d):
    return xp.where(d > 0, 1.0 / xp.where(d > 0, d, 1.0), 0.0)


def _harmonic_out(xp, dist, inf) -> np.ndarray:
    _, d = _finite(xp, dist, inf)
    return to_host(_inverse(xp, d).sum(axis=1))


def _host_part(xp, dist, inf) -> dict:
    return {key: to_host(value) for key, value in reductions.host_sums(xp, dist, inf).items()}
