"""Serial Dijkstra on the CPU with SciPy (bodra Table 2's CPU column, as a baseline).

This is ``scipy.sparse.csgraph.dijkstra`` (compiled, one core, a heap on the CSR graph:
O((n + m) log n) per source), NOT the author's CPU code, which scans a whole adjacency-matrix
row per settled vertex (O(n^2) per source). It is the same routine the oracle uses, so it is
a speed baseline, not an independent check.
"""
from __future__ import annotations

import numpy as np
from scipy.sparse import csgraph

from ..inf import from_public
from ..solver import Solution, Solver


class DijkstraSerialSciPy(Solver):
    """SciPy's Dijkstra from each of ``sources`` (default: all vertices), one after another."""

    on_gpu = False
    all_pairs = False

    def setup(self):
        self.csr = self.graph.to_scipy()
        self.stats = {"implementation": "scipy.sparse.csgraph.dijkstra (CSR, heap)"}

    def compute(self):
        self.dist_f, self.pred_raw = csgraph.dijkstra(self.csr, directed=True, indices=self.sources,
                                                      return_predecessors=True)

    def solution(self) -> Solution:
        dist = from_public(np.atleast_2d(self.dist_f), self.graph.dtype)
        pred = np.atleast_2d(self.pred_raw).astype(np.int32)
        pred[pred < 0] = -1
        return Solution(dist, self.sources, self.graph.n, pred=pred, stats=self.stats)
