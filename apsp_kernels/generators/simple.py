"""Deterministic topologies of Okuyama et al. Table 1: the ring and the complete graph."""
from __future__ import annotations

import numpy as np

from ..graph import Graph
from ._common import build, decode_nonloop, positive_int


def ring(n, w=1, dtype=np.int32) -> Graph:
    """Okuyama et al. Table 1 "ring": the directed cycle 0 -> 1 -> ... -> n-1 -> 0, weight ``w``."""
    n = positive_int("ring", "n", n)
    src = np.arange(n, dtype=np.int64)
    dst = (src + 1) % n
    return build("ring", n, src, dst, np.full(n, w), params={"n": n, "w": w}, dtype=dtype,
                 name=f"ring-n{n}", label=f"directed ring (n={n}, w={w})")


def complete(n, w=1, dtype=np.int32) -> Graph:
    """Okuyama et al. Table 1 "complete": all n(n-1) arcs, weight ``w``."""
    n = positive_int("complete", "n", n)
    total = n * (n - 1)
    src, dst = decode_nonloop(np.arange(total, dtype=np.int64), n)
    return build("complete", n, src, dst, np.full(total, w), params={"n": n, "w": w},
                 dtype=dtype, name=f"complete-n{n}", label=f"complete digraph (n={n}, w={w})")
