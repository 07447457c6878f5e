"""Serial R-Kleene on one CPU core (numba): the baseline of pandey Fig. 11-13 and Table 1.

The recursion is the same :func:`~apsp_kernels.minplus.rkleene_plan.plan` as on the GPU, executed
by one compiled loop over the steps (products and FW base cases on views of one matrix).
:func:`certify` is an independent full check of a dense APSP result (all n^2 entries) that
the notebook uses where the oracle can only afford sampled rows.
"""
from __future__ import annotations

import numba
import numpy as np

from ..errors import InputError
from ..floyd_warshall.cpu import fw_serial_inplace
from ..inf import INF_INT32
from ..numba_cache import njit
from ..solver import Solution, Solver
from .rkleene_plan import DEFAULT_THRESHOLD, check_threshold, plan, plan_array


@njit(cache=True)
def _product(d, xr, xc, yr, yc, zr, zc, m, p, q):
    for i in range(m):
        x = d[xr + i, xc:xc + p]
        for k in range(q):
            y = d[yr + i, yc + k]
            z = d[zr + k, zc:zc + p]
            for j in range(p):
                cand = y + z[j]
                if cand < x[j]:
                    x[j] = cand


@njit(cache=True)
def run_plan(d, steps):
    """Execute a :func:`plan_array` table on the dense matrix ``d`` in place (one thread)."""
    for s in range(steps.shape[0]):
        op, xr, xc, yr, yc, zr, zc, m, p, q = steps[s]
        if op == 0:
            fw_serial_inplace(d[xr:xr + m, xr:xr + m], m)  # base case: FW on the diagonal block
        else:
            _product(d, xr, xc, yr, yc, zr, zc, m, p, q)
    return d


def rkleene_serial_inplace(d: np.ndarray, threshold: int = DEFAULT_THRESHOLD) -> np.ndarray:
    """Serial R-Kleene on the host matrix ``d`` (0 diagonal, INF off-edge) in place."""
    if d.ndim != 2 or d.shape[0] != d.shape[1]:
        raise InputError(f"rkleene_serial needs a square matrix, got shape {d.shape}")
    return run_plan(d, plan_array(plan(d.shape[0], threshold)))


class RKleeneSerial(Solver):
    """Serial R-Kleene (numba, one core) on the graph's dense view; ``threshold`` as on the GPU."""

    on_gpu = False

    def __init__(self, graph, sources=None, threshold: int = DEFAULT_THRESHOLD):
        super().__init__(graph, sources)
        self.threshold = check_threshold(threshold, type(self).__name__, limit=None)

    def setup(self):
        self.input = self.graph.dense()
        self.steps = plan_array(plan(self.graph.n, self.threshold))
        run_plan(self.input[:2, :2].copy(), plan_array(plan(2, 1)))  # compile outside the timing
        self.stats = {"threshold": self.threshold, "steps": int(self.steps.shape[0])}

    def reset(self):
        self.d = self.input.copy()

    def compute(self):
        run_plan(self.d, self.steps)

    def solution(self) -> Solution:
        return Solution(self.d, self.sources, self.graph.n, stats=self.stats, by_vertex=True)


@njit(parallel=True, cache=True)
def _bellman_violations(dist, w, inf):
    n = dist.shape[0]
    bad = np.zeros(n, dtype=np.int64)
    for i in numba.prange(n):
        best = np.full(n, inf, dtype=np.int64)
        for k in range(n):
            dik = np.int64(dist[i, k])
            if dik >= inf:
                continue
            for j in range(n):
                cand = dik + w[k, j]
                if cand < best[j]:
                    best[j] = cand
        for j in range(n):
            want = 0 if j == i else min(best[j], inf)
            got = min(np.int64(dist[i, j]), inf)
            if got != want:
                bad[i] += 1
    return bad


def certify(dist, weights: np.ndarray) -> dict:
    """Check ALL entries of an int32 APSP matrix by the Bellman equations (parallel CPU).

    ``weights`` is the dense int32 input (0 diagonal, INF off-edge) with every off-diagonal
    weight >= 1. Then ``D`` is the distance matrix iff ``D[i,i] = 0`` and
    ``D[i,j] = min_{k != j} D[i,k] + W[k,j]`` for ``j != i``: such a D is <= the true distance (induct
    along a shortest path) and each finite ``D[i,j]`` is realised by a walk (follow the
    minimising k back; positive weights make it strictly decrease to ``D[i,i] = 0``).
    Cost: one (min,+) product on all cores. Returns {"ok", "bad_entries", "scope"}.
    """
    from ..solver import to_host
    d = np.ascontiguousarray(to_host(dist))
    w = np.asarray(weights)
    n = w.shape[0]
    d = d[:n, :n]
    if d.dtype != np.int32 or w.dtype != np.int32:
        raise InputError("certify checks int32 matrices (float sums need a tolerance)")
    off = ~np.eye(n, dtype=bool)
    if n > 1 and (w[off] < 1).any():
        raise InputError("certify needs every off-diagonal weight >= 1 (zero weights break uniqueness)")
    w64 = np.minimum(w.astype(np.int64), INF_INT32)
    np.fill_diagonal(w64, INF_INT32)  # k = j would make the equation trivially hold
    bad = int(_bellman_violations(np.ascontiguousarray(d), w64, np.int64(INF_INT32)).sum())
    return {"ok": bad == 0, "bad_entries": bad,
            "scope": f"all {n * n} entries (Bellman-equation certificate)"}
