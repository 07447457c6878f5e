"""Sums whose bits do not depend on how their terms are grouped: 128-bit fixed point.

A term ``x >= 0`` (a float64, e.g. a distance or ``1 / d``) counts as the integer
``round(x * 2**scale)`` (half up, from the bits of ``x``: the same on the host and in
``reductions.cu``), held as two uint64 words (low, high). Integer additions are associative, so
a sum over any cut of the sources into blocks, on any number of workers, in any finishing order,
is the same integer; it becomes a float64 once, at the end (:func:`to_float`: rounded to
nearest, ties to even, then times ``2**-scale``).

Precision. The scale is chosen per graph (:func:`scales_for`) so that the largest possible sum
stays below ``2**126``: ``max(n, sources) * cap`` with ``cap`` = 4 x the graph's distance bound D
for sums of distances and 2 / (smallest positive weight w_min) for sums of ``1 / d``. A term is
exact when it is a multiple of ``2**-scale``: every whole distance; every float64 ``d >= w_min``
once the distance scale is at least ``52 - floor(log2 w_min)``; every ``1 / d`` (``d <= cap``)
once the inverse scale is at least ``52 + ceil(log2 cap)``. So

* int32 weights: distance sums are exact, rounded once to float64 (exact below ``2**53``, as
  float64 accumulation was); harmonic sums too while ``n * D < 2**69``;
* any weights with ``n * D / w_min < 2**69`` (e.g. a million vertices, distances up to 10**14
  times the smallest weight): every term is exact, every sum is the exact sum rounded once
  (:attr:`Scales.relative_error` is 0);
* wider ranges: a term is off by at most ``2**-(scale + 1)``; as every term is positive, a sum's
  relative error is at most the largest relative error of a term (:attr:`Scales.relative_error`,
  at most ``16 * n * D / w_min * 2**-127``: below 1e-15 while ``n * D / w_min < 2**73``), plus
  float64's final rounding. Beyond :data:`WARN_ABOVE` (extreme weight ranges, e.g. 1e-20 next to
  1e20) :func:`scales_for` warns with the bound (:class:`FixedPointWarning`); the sums are then
  coarser but still the same bits on any number of workers.

Code is xp-generic (NumPy or CuPy); rows are taken in slices of :data:`SLICE_ELEMENTS` entries
so that the temporaries stay small.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..arrays import array_module

HEADROOM_BITS = 2  # every sum stays below 2**(128 - HEADROOM_BITS)
WARN_ABOVE = 2.0 ** -44  # a relative error bound above this warns (NetworkX's float sums: within 1e-12)
SLICE_ELEMENTS = 1 << 16  # a tile's float64 temporaries stay in cache
EXACT_TERMS = 1 << 11  # whole numbers below 2**42: this many add up below 2**53, exactly in float64
_M42 = np.uint64((1 << 42) - 1)


class FixedPointWarning(UserWarning):
    """The graph's weight range is too wide for 128-bit fixed point to keep float64's precision."""


@dataclass(frozen=True)
class Scales:
    """A term ``d`` of a distance sum counts ``d * 2**distance``; a term ``1 / d`` of a harmonic
    sum counts ``(1 / d) * 2**inverse``. ``cap``: the largest distance the scales hold (every
    block's eccentricities are checked against it); ``relative_error``: the bound on a sum's
    relative error beyond float64's final rounding (0.0 when every term is exact)."""

    distance: int
    inverse: int
    cap: float
    relative_error: float = 0.0

    def as_array(self) -> np.ndarray:
        """The two scales, as a block's partial stores them."""
        return np.array([self.distance, self.inverse], dtype=np.int64)

    @classmethod
    def from_array(cls, stored) -> "Scales":
        """Scales from :meth:`as_array` (the cap and error bound are not stored: inf and unknown)."""
        distance, inverse = (int(v) for v in np.asarray(stored))
        return cls(distance, inverse, math.inf, math.nan)

    def matches(self, stored) -> bool:
        """Whether ``stored`` (:meth:`as_array` of a saved partial) was made with these scales."""
        return stored is not None and np.array_equal(np.asarray(stored), self.as_array())


def _scale_under(biggest_sum: float) -> int:
    """The largest s with biggest_sum * 2**s < 2**(128 - HEADROOM_BITS)."""
    _, exponent = math.frexp(max(biggest_sum, 1e-300))  # biggest_sum < 2**exponent
    return 128 - HEADROOM_BITS - exponent


def scales_for(graph, count: int | None = None) -> Scales:
    """The scales of sums over ``count`` sources (None: every vertex) of the non-negative
    ``graph`` (see the module docstring). Warns (:class:`FixedPointWarning`) when the relative
    error bound exceeds :data:`WARN_ABOVE`."""
    if graph.on_device:  # the bound's float sum as the host adds it: the same scales in-process and on a cluster
        from ..sssp_hierarchy.layout import host_graph
        graph = host_graph(graph)
    terms = max(graph.n, int(count or 0), 1)
    positive = graph.weights[graph.weights > 0]
    w_min = float(positive.min()) if positive.size else 0.0
    bound = float(graph.distance_bound) if graph.m else 0.0
    cap = 4.0 * bound if bound > 0 else 1.0
    distance = _scale_under(terms * cap)
    inverse = _scale_under(terms * (2.0 / w_min if w_min else 1.0))
    error = 0.0
    if w_min:  # else every distance is 0: nothing to round
        whole = np.dtype(graph.dtype).kind in "iu"
        if not (whole and distance >= 0) and distance < 52 - math.floor(math.log2(w_min)):
            error = math.ldexp(1.0, -distance - 1) / w_min
        if inverse < 52 + math.ceil(math.log2(cap)):
            error = max(error, math.ldexp(cap, -inverse - 1))
    scales = Scales(distance, inverse, cap, error)
    if error > WARN_ABOVE:
        warnings.warn(f"{graph.name}: its weights span {w_min:g} to a distance bound of {bound:g} over "
                      f"{terms:,} terms, too wide for 128-bit fixed point: its distance and harmonic sums may "
                      f"be off by up to {error:.1e} relative (still the same bits on any number of workers); "
                      f"rescaling does not help, narrowing the weight range does", FixedPointWarning, stacklevel=2)
    return scales


def _chunks(xp, values, scale: int):
    """Each term's integer round-half-up(v * 2**scale) (below 2**126) as three float64 whole
    numbers below 2**42 (bits 0-41, 42-83, 84-125), all exact; the same integers as
    ``reductions.cu``'s ``fixed_add_double`` makes from the bits."""
    scaled = values * math.ldexp(1.0, scale // 2)  # by powers of two: exact (a term too small rounds to 0 anyway)
    scaled *= math.ldexp(1.0, scale - scale // 2)
    whole = xp.floor(scaled)
    scaled -= whole
    whole += scaled >= 0.5
    top = xp.floor(whole * 2.0 ** -84)
    whole -= top * 2.0 ** 84
    middle = xp.floor(whole * 2.0 ** -42)
    whole -= middle * 2.0 ** 42
    return whole, middle, top


def _add_chunk_sums(xp, acc, chunk_sums, at) -> None:
    """Add exact float64 sums of chunks (below 2**53 each) to the 42-bit limbs ``acc`` at ``at``."""
    carry = None
    for j, part in enumerate(chunk_sums):
        total = acc[j][at] + part.astype(xp.uint64) + (carry if carry is not None else np.uint64(0))
        if j == 2:
            acc[j][at] = total
        else:
            acc[j][at], carry = total & _M42, total >> np.uint64(42)


def sums(values, scale: int, axis: int):
    """The fixed-point sums of ``values`` (float64 >= 0, 2-D; zeros where a term is absent)
    along ``axis``: (length, 2) uint64 (low, high words). Chunks of at most :data:`EXACT_TERMS`
    terms are added in float64, exactly (every partial sum is a whole number below 2**53)."""
    xp = array_module(values)
    values = values.astype(xp.float64, copy=False)
    k, n = values.shape
    acc = [xp.zeros(n if axis == 0 else k, dtype=xp.uint64) for _ in range(3)]
    along = k if axis == 0 else n  # tiles at most EXACT_TERMS long along the axis, SLICE_ELEMENTS in all
    tile_along = max(1, min(EXACT_TERMS, along))
    tile_across = max(1, SLICE_ELEMENTS // tile_along)
    tile_rows, tile_cols = (tile_along, tile_across) if axis == 0 else (tile_across, tile_along)
    for lo in range(0, k, tile_rows):
        for col in range(0, n, tile_cols):
            parts = _chunks(xp, values[lo:lo + tile_rows, col:col + tile_cols], scale)
            at = slice(col, col + tile_cols) if axis == 0 else slice(lo, lo + tile_rows)
            _add_chunk_sums(xp, acc, [p.sum(axis=axis) for p in parts], at)
    low = acc[0] | (acc[1] << np.uint64(42))
    high = (acc[1] >> np.uint64(22)) | (acc[2] << np.uint64(20))
    return xp.stack([low, high], axis=-1)


def add(total, part):
    """``total += part`` for (..., 2) uint64 fixed-point sums, with the carry; returns ``total``."""
    xp = array_module(total)
    low, total_low = part[..., 0], total[..., 0]
    xp.add(total_low, low, out=total_low)
    xp.add(total[..., 1], total_low < low, out=total[..., 1])  # the low words that wrapped
    xp.add(total[..., 1], part[..., 1], out=total[..., 1])
    return total


def zeros(length: int):
    """``length`` empty fixed-point sums (host)."""
    return np.zeros((length, 2), dtype=np.uint64)


def _bit_length(xp, x):
    """Bits of each uint64 ``x`` (0 for 0)."""
    _, e = xp.frexp(x.astype(xp.float64))  # float(x) in [2**(L-1), 2**L]: e is L, or L + 1 when rounded up
    e = e.astype(xp.int64)
    below = (x >> xp.clip(e - 1, 0, 63).astype(xp.uint64)) == 0
    return xp.where(e - 1 >= 64, 64, xp.where(below & (e > 0), e - 1, e))


def to_float(fixed, scale: int):
    """(..., 2) uint64 fixed-point sums as float64: rounded to nearest (ties to even), times
    ``2**-scale`` (exact unless the result is subnormal). A sum wider than 64 bits keeps its top
    64, the bits under them folded into the lowest one (sticky, far below float64's 53), so that
    the one correctly rounded conversion of those 64 bits rounds the whole sum."""
    xp = array_module(fixed)
    low, high = fixed[..., 0], fixed[..., 1]
    past = _bit_length(xp, high).astype(xp.uint64)  # the sum's bits past the low word: 0 to 64
    shift = xp.maximum(past, np.uint64(1))  # 1 to 64, applied as shifts of at most 63
    top = (high << (np.uint64(64) - shift)) | ((low >> (shift - np.uint64(1))) >> np.uint64(1))
    top |= ((low << (np.uint64(64) - shift)) != 0).astype(xp.uint64)  # the low word's bits under the top 64
    wide = high != 0
    exponent = xp.where(wide, past.astype(xp.int32), xp.int32(0)) - xp.int32(scale)
    return xp.ldexp(xp.where(wide, top, low).astype(xp.float64), exponent.astype(xp.int32))
