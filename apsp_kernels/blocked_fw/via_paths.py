"""Shortest paths from the intermediate-vertex matrix of the blocked FW kernels (Takafuji et
al.'s kernels with ``paths=True``).

``via[i, j]`` is the intermediate vertex k of the last improvement of (i, j), -1 when the
distance is the arc i -> j itself (or i = j, or unreachable). At the end
d(i, j) = d(i, k) + d(k, j) for k = via[i, j] (the last improvement set d(i, j) to a sum
that can only have shrunk since, and never below d(i, j)), so a path is path(i, k) + path(k, j).
With positive weights both halves have a smaller distance, so the recursion ends.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError


def _xp(a):
    try:
        import cupy as cp
        return cp.get_array_module(a)
    except ImportError:
        return np


def via_to_pred(via, dist, max_steps: int | None = None):
    """Predecessor matrix (pred[i, j] = vertex before j, -1 for i = j or unreachable) from
    ``via``; works on numpy or cupy (P, P) or (m, P, P) arrays.

    pred(i, j) = pred(k, j) with k = via[i, j] (path(k, j) is the tail of path(i, j)), so each
    entry follows k -> via[k, j] until -1; that start vertex is the predecessor.
    """
    xp = _xp(via)
    if via.ndim == 3:
        return xp.stack([via_to_pred(v, d, max_steps) for v, d in zip(via, dist)])
    P = via.shape[0]
    cols = xp.arange(P, dtype=xp.int32)[None, :]
    cur = xp.broadcast_to(xp.arange(P, dtype=xp.int32)[:, None], (P, P)).copy()
    k = via.copy()
    for _ in range(max_steps or P):
        active = k >= 0
        if not bool(active.any()):
            break
        cur = xp.where(active, k, cur)
        k = xp.where(active, via[cur, xp.broadcast_to(cols, (P, P))], -1)
    else:
        raise InputError("via_to_pred: the intermediate-vertex chains do not end (zero-weight cycle?)")
    pred = cur.astype(xp.int32)
    pred[~xp.isfinite(dist)] = -1
    idx = xp.arange(P)
    pred[idx, idx] = -1
    return pred


def reconstruct_path(via: np.ndarray, i: int, j: int, dist: np.ndarray | None = None) -> list[int]:
    """Vertices of a shortest path i -> j from the host matrix ``via`` ([] when unreachable,
    given ``dist``; [i] when i = j)."""
    via = np.asarray(via)
    if i == j:
        return [int(i)]
    if dist is not None and not np.isfinite(dist[i, j]):
        return []
    path, stack = [int(i)], [(int(i), int(j))]
    limit = via.shape[0]
    while stack:
        a, b = stack.pop()
        k = int(via[a, b])
        if k < 0:
            path.append(b)
        else:
            stack.append((k, b))
            stack.append((a, k))
        if len(path) > limit:
            raise InputError(f"reconstruct_path: path {i} -> {j} exceeds {limit} vertices")
    return path


def path_weight(graph, path: list[int]) -> float:
    """Sum of the arc weights along ``path`` (inf when an arc is missing)."""
    if len(path) < 2:
        return 0.0 if path else float("inf")
    g = graph.to_scipy().tocsr()
    total = 0.0
    for u, v in zip(path[:-1], path[1:]):
        lo, hi = g.indptr[u], g.indptr[u + 1]
        hit = np.flatnonzero(g.indices[lo:hi] == v)
        if hit.size == 0:
            return float("inf")
        total += float(g.data[lo + hit[0]])
    return total
