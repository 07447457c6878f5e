"""Serial Bellman-Ford on one CPU core (numba): the CPU column of bodra's Table 1.

Like the author's ``runCpuBellmanFord``: one distance array updated in place while the passes
sweep the vertices in order (so a pass already sees this pass's improvements, and it needs
fewer passes than the two-array GPU version), with the parent set at each improvement.
``mode="faithful"`` runs |V|-1 passes, ``mode="early_exit"`` stops after a pass that changes
nothing; ``max_iterations`` cuts either to a prefix (for timing). A negative cycle reachable from
the source raises :class:`InputError`. INF: see :mod:`apsp_kernels.sssp_iterative.bellman_ford`.
"""
from __future__ import annotations

from ..numba_cache import njit
import numpy as np

from ..errors import InputError, NegativeCycleError
from ..inf import INF_INT32
from ..solver import Solution, Solver
from .bellman_ford import MODES


@njit(cache=True)
def bellman_ford_serial(indptr, indices, weights, source, passes, early_exit, dist, pred):
    """In-place Bellman-Ford; returns (passes run, whether the last pass changed something)."""
    n = dist.shape[0]
    dist[:] = INF_INT32
    pred[:] = -1
    dist[source] = 0
    done = 0
    changed = True
    while done < passes:
        changed = False
        for i in range(n):
            du = dist[i]
            if du >= INF_INT32:
                continue
            for e in range(indptr[i], indptr[i + 1]):
                v = indices[e]
                cand = du + weights[e]
                if cand < dist[v]:
                    dist[v] = cand
                    pred[v] = i
                    changed = True
        done += 1
        if early_exit and not changed:
            break
    return done, changed


@njit(cache=True)
def has_relaxable_arc(indptr, indices, weights, dist):
    for i in range(dist.shape[0]):
        du = dist[i]
        if du >= INF_INT32:
            continue
        for e in range(indptr[i], indptr[i + 1]):
            if du + weights[e] < dist[indices[e]]:
                return True
    return False


class BellmanFordSerial(Solver):
    """Serial in-place Bellman-Ford (numba, one thread) from each of ``sources`` (default: vertex 0)."""

    on_gpu = False
    accepts_negative = True
    all_pairs = False
    vertex_0_by_default = True

    def __init__(self, graph, sources=None, mode="faithful", max_iterations=None):
        super().__init__(graph, sources)
        graph.require_int32("BellmanFordSerial")
        if mode not in MODES:
            raise InputError(f"BellmanFordSerial: mode must be one of {MODES}, got {mode!r}")
        if max_iterations is not None and int(max_iterations) < 0:
            raise InputError("BellmanFordSerial: max_iterations must be >= 0")
        self.mode = mode
        full = graph.n - 1
        self.passes = full if max_iterations is None else min(full, int(max_iterations))
        self.stats = {"mode": mode, "full_iterations": full, "order": "in place (Gauss-Seidel)"}

    def setup(self):
        g = self.graph
        self.dist = np.empty((len(self.sources), g.n), dtype=np.int32)
        self.pred = np.empty((len(self.sources), g.n), dtype=np.int32)
        tiny = np.zeros(2, dtype=np.int32)  # compile outside the timed region
        bellman_ford_serial(np.zeros(3, np.int32), tiny[:1], tiny[:1], 0, 1, True, tiny.copy(), tiny.copy())
        has_relaxable_arc(np.zeros(3, np.int32), tiny[:1], tiny[:1], tiny.copy())

    def compute(self):
        g = self.graph
        total, converged = 0, []
        for row, s in enumerate(self.sources):
            done, changed = bellman_ford_serial(g.indptr, g.indices, g.weights, int(s), self.passes,
                                                self.mode == "early_exit", self.dist[row], self.pred[row])
            total += done
            if self.mode == "early_exit":
                converged.append(int(done) if not changed else None)
            if (done == g.n - 1 and changed and g.has_negative_weights
                    and has_relaxable_arc(g.indptr, g.indices, g.weights, self.dist[row])):
                raise NegativeCycleError(f"BellmanFordSerial: {g.name} has a negative cycle reachable from "
                                 f"source {s}; shortest paths are undefined")
        self.stats["iterations"] = int(total)
        self.stats["truncated"] = self.passes < g.n - 1
        if self.mode == "early_exit":
            self.stats["converged_after"] = converged[0] if len(converged) == 1 else converged

    def solution(self) -> Solution:
        return Solution(self.dist, self.sources, self.graph.n, pred=self.pred, stats=self.stats)
