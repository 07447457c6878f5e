"""The one INF convention of the project.

* int32 distances use the sentinel ``INF_INT32 = 2**30 - 1``: ``INF + INF`` and
  ``INF + w`` for any weight ``w <= MAX_WEIGHT_INT32`` stay below ``2**31 - 1``, so
  kernels may add two distances without overflow checks. A value ``>= INF_INT32``
  means unreachable.
* float32 and float64 distances use ``+inf`` (float64 is what SciPy computes in; float32
  is an explicit opt-in, see :mod:`apsp_kernels.csgraph.inputs`).
* At the public API (``Solution.to_numpy``, the oracle) distances are float64
  with ``np.inf`` for unreachable, as in SciPy.
"""
import numpy as np

from .errors import InputError

INF_INT32 = (1 << 30) - 1
MAX_WEIGHT_INT32 = (1 << 31) - 1 - INF_INT32  # == 2**30, so INF + w never overflows
INF_FLOAT32 = np.float32(np.inf)
FLOAT64_EXACT_INT = 2**53  # float64 holds every integer below this

WEIGHT_DTYPES = (np.dtype(np.int32), np.dtype(np.float32), np.dtype(np.float64))
FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
KERNEL_SUFFIX = {np.dtype(np.int32): "i32", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
"""The suffix of a kernel's variant per distance dtype (``.cu`` files stamp all three)."""


def kernel_suffix(graph, method: str) -> str:
    """The kernel variant (``i32``/``f32``/``f64``) for the graph's weights, or InputError naming
    ``method``."""
    try:
        return KERNEL_SUFFIX[np.dtype(graph.dtype)]
    except KeyError:
        raise InputError(f"{method} takes int32, float32 or float64 weights, not {graph.dtype}") from None


def inf_for(dtype) -> int | float:
    """The sentinel for distances of ``dtype`` (int32, float32 or float64)."""
    dtype = np.dtype(dtype)
    if dtype == np.int32:
        return INF_INT32
    if dtype in FLOAT_DTYPES:
        return float("inf")
    raise TypeError(f"distances are int32, float32 or float64, not {dtype}")


def to_public(dist, dtype=None) -> np.ndarray:
    """Kernel representation -> float64 with np.inf for unreachable (numpy or cupy alike)."""
    if isinstance(dist, (list, tuple)) or np.isscalar(dist):
        dist = np.asarray(dist)
    dtype = np.dtype(dtype or dist.dtype)
    out = dist.astype(np.float64)
    if dtype == np.int32:
        out[dist >= INF_INT32] = np.inf
    return out


def from_public(dist, dtype) -> np.ndarray:
    """float with np.inf -> kernel representation of ``dtype``."""
    dist = np.asarray(dist, dtype=np.float64)
    dtype = np.dtype(dtype)
    if dtype == np.int32:
        out = np.full(dist.shape, INF_INT32, dtype=np.int32)
        finite = np.isfinite(dist)
        out[finite] = dist[finite].astype(np.int32)
        return out
    if dtype in FLOAT_DTYPES:
        return dist.astype(dtype)
    raise TypeError(f"distances are int32, float32 or float64, not {dtype}")
