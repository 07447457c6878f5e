"""Random k-out-regular digraphs with float weights: Takafuji et al. Table I and II.

The paper's inputs are "4-regular graphs with random float distances": every
vertex gets k distinct out-neighbours (no self loops), uniform over the
k-subsets of the other n-1 vertices; in-degrees vary (mean k). Bulk runs
(Table II) take m such instances; ``k_regular_arcs`` returns them compactly as
(m, n, k) target and weight arrays, from which ``dense_from_arcs`` builds the
(m, P, P) matrices a bulk blocked-FW solver works on, on the host or, with
``xp=cupy``, directly on the GPU (the host never holds the m*P*P floats).
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..graph import Graph
from ._common import build, positive_int


def _distinct_offsets(draw, rows: int, pool: int, k: int, xp=np):
    """(rows, k) sorted int64: per row a uniform k-subset of [0, pool) (Floyd's algorithm);
    ``draw(col, high)`` gives ``rows`` uniform integers in [0, high) for column ``col``."""
    out = xp.empty((rows, k), dtype=xp.int64)
    for col, j in enumerate(range(pool - k, pool)):
        t = draw(col, j + 1)
        seen = (out[:, :col] == t[:, None]).any(axis=1)
        out[:, col] = xp.where(seen, j, t)
    out.sort(axis=1)
    return out


def _checked_degree(fn: str, n, k, w_low, w_high) -> tuple[int, int]:
    n = positive_int(fn, "n", n, low=2)
    k = positive_int(fn, "k", k, low=0)
    if k > n - 1:
        raise InputError(f"{fn}: out-degree k={k} needs n > k distinct other vertices, got n={n}")
    if not w_high >= w_low:
        raise InputError(f"{fn}: the weight range [{w_low}, {w_high}) is empty")
    return n, k


def _float32_weights(unit, w_low, w_high, xp=np):
    """float32 weights in [w_low, w_high) from uniform [0, 1) float64 draws."""
    weights = (w_low + (w_high - w_low) * unit).astype(xp.float32)
    if w_high > w_low:  # float32 rounding must not reach w_high
        xp.minimum(weights, np.nextafter(np.float32(w_high), np.float32(-np.inf)), out=weights)
    return weights


def k_regular_arcs(m, n, k=4, seed=0, w_low=0.0, w_high=1.0, dtype=np.float32):
    """``m`` random k-out-regular digraphs as ``(targets, weights)``, both shaped (m, n, k).

    ``targets[i, u]`` are the k distinct out-neighbours of vertex u in instance i
    (int32, ascending, never u); ``weights`` are uniform in ``[w_low, w_high)``
    (float32; with ``dtype=np.int32`` integers in that half-open range).
    """
    m = positive_int("k_regular_arcs", "m (instances)", m)
    n, k = _checked_degree("k_regular_arcs", n, k, w_low, w_high)
    rng = np.random.default_rng(seed)
    off = _distinct_offsets(lambda col, high: rng.integers(0, high, size=m * n), m * n, n - 1, k)
    u = np.arange(n, dtype=np.int64)[None, :, None]
    off = off.reshape(m, n, k)
    targets = (off + (off >= u)).astype(np.int32)
    if np.dtype(dtype) == np.int32:
        weights = rng.integers(w_low, max(w_high, w_low + 1), size=(m, n, k)).astype(np.int32)
    else:
        weights = _float32_weights(rng.random((m, n, k)), w_low, w_high)
    return targets, weights


_GOLDEN = 0x9E3779B97F4A7C15  # odd: i -> i * _GOLDEN is a bijection modulo 2^64
_MASK64 = (1 << 64) - 1


def _mix(x, xp=np):
    """SplitMix64's finaliser on a uint64 array (a bijection; wraps modulo 2^64)."""
    x = (x ^ (x >> xp.uint64(30))) * xp.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> xp.uint64(27))) * xp.uint64(0x94D049BB133111EB)
    return x ^ (x >> xp.uint64(31))


def k_regular_arcs_of(first: int, count: int, n: int, k: int = 4, seed: int = 0, w_low=0.0,
                      w_high=1.0, xp=np):
    """Instances ``first .. first+count-1`` of a seeded family of k-out-regular digraphs, as
    ``k_regular_arcs`` returns them (targets int32, weights float32 in [w_low, w_high)).

    Each draw is a counter-based hash (SplitMix64) of (seed, instance, vertex, slot), so an
    instance does not depend on which others are made with it, and NumPy (``xp=np``) and CuPy
    (``xp=cupy``, on the GPU) give the same graphs bit for bit: a bulk run's shares are made
    where they are solved, in one vectorised pass.
    """
    first = positive_int("k_regular_arcs_of", "first (instance)", first, low=0)
    count = positive_int("k_regular_arcs_of", "count (instances)", count)
    n, k = _checked_degree("k_regular_arcs_of", n, k, w_low, w_high)
    rows = xp.arange(first * n, (first + count) * n, dtype=xp.uint64)
    keys = rows * xp.uint64(2 * k * _GOLDEN & _MASK64) + xp.uint64(int(seed) * 0xD1B54A32D192ED03 & _MASK64)

    def unit(slot: int):  # uniform in [0, 1) per row, exact in float64
        x = _mix(keys + xp.uint64(slot * _GOLDEN & _MASK64), xp)
        return (x >> xp.uint64(11)).astype(xp.float64) * 2.0**-53

    off = _distinct_offsets(lambda col, high: xp.floor(unit(col) * high).astype(xp.int64),
                            len(rows), n - 1, k, xp)
    u = (rows % xp.uint64(n)).astype(xp.int64)[:, None]
    targets = (off + (off >= u)).astype(xp.int32).reshape(count, n, k)
    weights = _float32_weights(xp.stack([unit(k + c) for c in range(k)], axis=1), w_low, w_high, xp)
    return targets, weights.reshape(count, n, k)


def dense_from_arcs(targets, weights, padded_n=None, xp=np):
    """(m, P, P) distance matrices from ``k_regular_arcs`` output: INF off-edge, 0 diagonal.

    ``P = padded_n or n``; padding vertices are isolated (INF rows and columns, 0
    diagonal), e.g. ``padded_n`` a multiple of the FW tile W = 32. float32 uses
    +inf, int32 the INF_INT32 sentinel. ``xp=cupy`` builds on the GPU from cupy
    inputs, after checking that the matrices fit.
    """
    m, n, k = targets.shape
    size = int(padded_n or n)
    if size < n:
        raise InputError(f"padded_n={size} is smaller than n={n}")
    dtype = np.dtype(weights.dtype)
    if xp is not np:
        from .. import gpu
        gpu.require_memory(m * size * size * dtype.itemsize, f"{m} dense {size}x{size} matrices")
    from ..inf import inf_for
    out = xp.full((m, size, size), inf_for(dtype), dtype=dtype)
    inst = xp.arange(m)[:, None, None]
    rows = xp.arange(n)[None, :, None]
    out[inst, rows, targets] = weights
    diag = xp.arange(size)
    out[:, diag, diag] = 0
    return out


def k_regular_dense_batch(m, n, k=4, seed=0, w_low=0.0, w_high=1.0, padded_n=None,
                          xp=np):
    """Takafuji et al. Table II input: ``m`` instances as one (m, P, P) float32 array.

    Instance i equals ``k_regular_batch(m, n, k, seed, ...)[i].dense()``. The array
    is m*P*P*4 bytes (m=512, n=2048: 8 GiB); for large batches generate on the GPU
    with ``xp=cupy``: only the compact arcs cross the bus.
    """
    targets, weights = k_regular_arcs(m, n, k, seed, w_low, w_high)
    if xp is not np:
        targets, weights = xp.asarray(targets), xp.asarray(weights)
    return dense_from_arcs(targets, weights, padded_n=padded_n, xp=xp)


def k_regular_batch(m, n, k=4, seed=0, w_low=0.0, w_high=1.0, dtype=np.float32,
                    name=None) -> list[Graph]:
    """The ``m`` instances of ``k_regular_arcs`` as Graphs (for the oracle, per-graph solvers)."""
    targets, weights = k_regular_arcs(m, n, k, seed, w_low, w_high, dtype)
    src = np.repeat(np.arange(n, dtype=np.int64), k)
    base = name or f"kregular-n{n}-k{k}-s{seed}"
    graphs = []
    for i in range(m):
        params = {"n": n, "k": k, "seed": seed, "w_low": w_low, "w_high": w_high,
                  "instance": i, "instances": m}
        graphs.append(build("k_regular_batch", n, src, targets[i].ravel(), weights[i].ravel(),
                            params=params, dtype=dtype,
                            name=base if m == 1 else f"{base}-i{i}",
                            label=f"random {k}-out-regular digraph (n={n}), instance {i} of {m}"))
    return graphs


def k_regular_digraph(n, k=4, seed=0, w_low=0.0, w_high=1.0, dtype=np.float32,
                      name=None) -> Graph:
    """Takafuji et al. Table I: one random k-out-regular digraph, weights in [w_low, w_high).

    The same graph as instance 0 of ``k_regular_arcs(1, n, k, seed, ...)``.
    """
    g = k_regular_batch(1, n, k, seed, w_low, w_high, dtype, name=name)[0]
    g.meta.update(generator="k_regular_digraph",
                  params={"n": n, "k": k, "seed": seed, "w_low": w_low, "w_high": w_high},
                  label=f"random {k}-out-regular digraph (n={n}, w in [{w_low}, {w_high}))")
    return g
