"""The ``max_k`` prefix every FW variant takes for timing part of a run (bodra Table 3)."""
from __future__ import annotations

from ..errors import InputError


def k_steps(n: int, max_k, owner: str) -> int:
    """Values of k a run performs: all ``n``, or the first ``max_k`` (results then final only for
    paths whose intermediate vertices are all < max_k)."""
    if max_k is None:
        return n
    if int(max_k) < 0:
        raise InputError(f"{owner}: max_k must be >= 0, got {max_k}")
    return min(n, int(max_k))
