"""Serial Floyd-Warshall on one CPU core (numba): the baseline of bodra Table 3 and pandey Fig. 11-13."""
from __future__ import annotations

from ..numba_cache import njit

from ..solver import Solution, Solver
from .prefix import k_steps


@njit(cache=True)
def fw_serial_inplace(d, k_steps):
    """Classic triple loop on a dense matrix (INF sentinels add without overflow), for the first
    ``k_steps`` values of k (all n: the APSP)."""
    n = d.shape[0]
    for k in range(min(k_steps, n)):
        for i in range(n):
            dik = d[i, k]
            for j in range(n):
                cand = dik + d[k, j]
                if cand < d[i, j]:
                    d[i, j] = cand
    return d


class FloydWarshallSerial(Solver):
    """Serial FW (numba, one thread) on the graph's dense view. ``max_k`` stops after that many
    values of k, for timing a prefix (as the GPU variants' ``max_k``)."""

    on_gpu = False

    def __init__(self, graph, sources=None, max_k=None, **params):
        super().__init__(graph, sources, **params)
        self.k_steps = k_steps(graph.n, max_k, type(self).__name__)
        self.stats = {"k_steps": self.k_steps, "truncated": self.k_steps < graph.n}

    def setup(self):
        self.input = self.graph.dense()
        fw_serial_inplace(self.input[:2, :2].copy(), 2)  # compile outside the timed region

    def reset(self):
        self.d = self.input.copy()

    def compute(self):
        fw_serial_inplace(self.d, self.k_steps)

    def solution(self) -> Solution:
        return Solution(self.d, self.sources, self.graph.n, by_vertex=True)
