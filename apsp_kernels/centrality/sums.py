"""Per-block sums of distance rows, merged by addition: what every centrality is read from.

For rows ``dist`` (k sources x n vertices, entries ``>= inf`` unreachable):

* per source: ``eccentricity`` (the largest finite distance), ``reach_out`` (vertices reached,
  itself included), ``sum_out`` (their distances), ``harmonic_out`` (sum of ``1 / d`` over
  ``0 < d < inf``; only when asked, for harmonic centrality of a few vertices on the reversed graph);
* per vertex (column): ``sum_in``, ``reach_in``, ``harmonic_in``, the same over the sources.

On the device the rows go through :func:`apsp_kernels.distributed.reductions.block_partial`'s
kernels (one pass per direction, no n x k temporaries); on the host through NumPy in slices of
rows. Sums of distances and of ``1 / d`` are kept in 128-bit fixed point
(:mod:`apsp_kernels.distributed.fixed_sums`, with the graph's scales): the same bits however the
sources are cut into blocks, on the host, on one GPU in this process or on a cluster; exact for
whole-number weights.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..arrays import array_module
from ..distributed import fixed_sums, reductions
from ..distributed.fixed_sums import Scales
from ..solver import to_host

NO_BINS = np.array([0.0, 1.0])  # block_partial's histogram is not used here: the smallest it takes
SLICE_BYTES = 1 << 27  # float64 temporaries of one slice of rows, on the host or the device


@dataclass
class Sums:
    """Sums over the sources done so far (see the module docstring). ``scales``: the graph's
    fixed-point scales (:func:`~apsp_kernels.distributed.fixed_sums.scales_for` of the graph and
    ``len(sources)``); None does for integer rows only."""

    n: int
    sources: np.ndarray
    harmonic_out_wanted: bool = False
    scales: Scales | None = None
    per_source: dict = field(init=False)
    fixed: dict = field(init=False)  # per vertex: "sum_in", "harmonic_in" in fixed point ((n, 2) uint64), "reach_in"
    done: int = 0

    def __post_init__(self):
        k = len(self.sources)
        self.per_source = {"eccentricity": np.zeros(k), "reach_out": np.zeros(k, np.int64), "sum_out": np.zeros(k)}
        if self.harmonic_out_wanted:
            self.per_source["harmonic_out"] = np.zeros(k)
        self.fixed = {"sum_in": fixed_sums.zeros(self.n), "reach_in": np.zeros(self.n, np.int64),
                      "harmonic_in": fixed_sums.zeros(self.n)}

    @property
    def per_target(self) -> dict:
        """Per vertex: ``sum_in`` and ``harmonic_in`` (float64, rounded once from fixed point), ``reach_in``."""
        if self.scales is None:
            return {"sum_in": np.zeros(self.n), "reach_in": self.fixed["reach_in"], "harmonic_in": np.zeros(self.n)}
        return {"sum_in": fixed_sums.to_float(self.fixed["sum_in"], self.scales.distance),
                "reach_in": self.fixed["reach_in"],
                "harmonic_in": fixed_sums.to_float(self.fixed["harmonic_in"], self.scales.inverse)}

    def add(self, dist, inf) -> None:
        """The rows of the next ``len(dist)`` sources."""
        start, stop = self.done, self.done + dist.shape[0]
        self.scales = reductions.rows_scales(dist, self.scales)
        part = block_sums(dist, inf, self.sources[start:stop], self.harmonic_out_wanted, self.scales)
        for key in self.per_source:
            self.per_source[key][start:stop] = part[key]
        self._add_fixed(part)
        self.done = stop

    def _add_fixed(self, part: dict) -> None:
        fixed_sums.add(self.fixed["sum_in"], part["sum_in"])
        fixed_sums.add(self.fixed["harmonic_in"], part["harmonic_in"])
        self.fixed["reach_in"] += part["reach_in"]

    def extend(self, rest: "Sums") -> "Sums":
        """These sums (their first ``done`` sources) with ``rest``'s, the sources after them, added."""
        if rest.done and not (self.scales and rest.scales and self.scales.matches(rest.scales.as_array())):
            raise RuntimeError(f"sums with scales {rest.scales} cannot join sums with {self.scales}")
        for key in self.per_source:
            self.per_source[key][self.done:self.done + len(rest.sources)] = rest.per_source[key]
        self._add_fixed(rest.fixed)
        self.done += rest.done
        return self

    def add_reductions(self, red) -> None:
        """Every source at once from a distributed run's :class:`~apsp_kernels.distributed.Reductions`."""
        ps = red.per_source
        for key in ("eccentricity", "reach_out", "sum_out"):
            self.per_source[key][:] = ps[key].to_numpy()
        scales = red.fixed["scales"]
        if scales is not None:
            if self.scales is not None and not self.scales.matches(scales):
                raise RuntimeError(f"the run summed with scales {list(scales)}, these sums expect {self.scales}")
            self.scales = self.scales or Scales.from_array(scales)
            self._add_fixed({"sum_in": red.fixed["sum_in"], "harmonic_in": red.fixed["harmonic_in"],
                             "reach_in": red.per_vertex["reach_in"].to_numpy()})
        self.done = len(self.sources)

    def copy(self) -> "Sums":
        """A copy whose arrays the caller may change (the cache keeps the original)."""
        out = Sums(self.n, self.sources.copy(), self.harmonic_out_wanted, self.scales)
        out.per_source = {k: v.copy() for k, v in self.per_source.items()}
        out.fixed = {k: v.copy() for k, v in self.fixed.items()}
        out.done = self.done
        return out

    def nbytes(self) -> int:
        return sum(v.nbytes for d in (self.per_source, self.fixed) for v in d.values())

    def closeness_in(self, wf_improved: bool = True) -> np.ndarray:
        """NetworkX's closeness of every vertex over the distances from the sources to it."""
        return closeness(self.per_target["sum_in"], self.fixed["reach_in"], self.n, wf_improved)

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


def block_sums(dist, inf, sources, harmonic_out: bool = False, scales: Scales | None = None) -> dict:
    """The sums of one block of rows as host NumPy arrays: per source floats, per vertex fixed
    point (as :func:`~apsp_kernels.distributed.reductions.block_partial` gives them)."""
    xp = array_module(dist)
    scales = reductions.rows_scales(dist, scales)
    if reductions.kernels_take(xp, dist, inf):
        out = reductions.block_partial(dist, inf, np.asarray(sources), NO_BINS, scales)
    else:
        parts = _sliced(xp, dist, inf, lambda xp, rows, inf: _host_part(xp, rows, inf, scales))
        out = {key: np.concatenate([p[key] for p in parts]) for key in ("eccentricity", "reach_out", "sum_out")}
        reductions.check_cap(out["eccentricity"], scales)
        out["sum_out"] = fixed_sums.to_float(out["sum_out"], scales.distance)
        out["sum_in"], out["harmonic_in"] = fixed_sums.zeros(dist.shape[1]), fixed_sums.zeros(dist.shape[1])
        out["reach_in"] = np.zeros(dist.shape[1], np.int64)
        for p in parts:
            fixed_sums.add(out["sum_in"], p["sum_in"])
            fixed_sums.add(out["harmonic_in"], p["harmonic_in"])
            out["reach_in"] += p["reach_in"]
    if harmonic_out:
        parts = _sliced(xp, dist, inf, lambda xp, rows, inf: _harmonic_out(xp, rows, inf, scales.inverse))
        out["harmonic_out"] = fixed_sums.to_float(np.concatenate(parts), scales.inverse)
    return out


def _sliced(xp, dist, inf, fn) -> list:
    k, n = dist.shape
    step = max(1, SLICE_BYTES // (8 * max(n, 1)))
    return [fn(xp, dist[lo:lo + step], inf) for lo in range(0, k, step)]


def _harmonic_out(xp, dist, inf, scale: int) -> np.ndarray:
    """Per row: the fixed-point sum of ``1 / d`` over ``0 < d < inf``, on the host."""
    d = xp.where(dist < inf, dist, 0).astype(np.float64)
    return to_host(fixed_sums.sums(xp.where(d > 0, 1.0 / xp.where(d > 0, d, 1.0), 0.0), scale, axis=1))


def _host_part(xp, dist, inf, scales) -> dict:
    return {key: to_host(value) for key, value in reductions.host_sums(xp, dist, inf, scales).items()}
