"""The heaviest path of a DAG in Kahn's order (numba), for :mod:`apsp_kernels.bounds`."""
from .numba_cache import njit
import numpy as np


@njit(cache=True)
def heaviest_path(count, node_weight, tail, head, arc_weight):
    """Largest sum of node and arc weights along a path; arcs sorted by ``tail``."""
    start = np.zeros(count + 1, dtype=np.int64)
    indeg = np.zeros(count, dtype=np.int64)
    for e in range(tail.shape[0]):
        start[tail[e] + 1] += 1
        indeg[head[e]] += 1
    for c in range(count):
        start[c + 1] += start[c]
    best = node_weight.copy()
    stack = np.empty(count, dtype=np.int64)
    top = 0
    for c in range(count):
        if indeg[c] == 0:
            stack[top] = c
            top += 1
    result = 0
    while top:
        top -= 1
        c = stack[top]
        result = max(result, best[c])
        for e in range(start[c], start[c + 1]):
            h = head[e]
            best[h] = max(best[h], best[c] + arc_weight[e] + node_weight[h])
            indeg[h] -= 1
            if indeg[h] == 0:
                stack[top] = h
                top += 1
    return result
