"""SSSP by a (min,+) sparse matrix-vector product iterated to a fixed point on the GPU.

liu, Fig. 1 "CUDA SSSP" (algorithm time and total time with graph convert & transfer) and
Fig. 4 (CUDA speedup). The paper called nvGraph's ``nvgraphSssp``, a semiring SpMV on CSC;
nvGraph no longer ships, so this reproduces the method: ``d <- min(d, Aᵀ ⊗ d)`` with one
group of lanes per CSC column (the in-arcs of a vertex), in place, until a sweep changes
nothing; predecessors come from one more pass over the fixed point.

``setup`` does what the paper's "graph convert & transfer" did: the host COO arrays (in
the row-major order of a scan of the adjacency matrix) are copied to the device and
converted to CSC there (sort by destination). Timed with ``scope="with_transfers"`` it is
part of the total time; with the default kernel scope only ``compute`` is timed.
"""
from __future__ import annotations

import time

import numpy as np

from .. import gpu
from ..errors import InputError
from ..inf import KERNEL_SUFFIX
from ..solver import Solution, Solver
from .tree import tree_predecessors

_CU = gpu.cu_path(__file__, "spmv.cu")
_SUFFIX = KERNEL_SUFFIX
GROUPS = (1, 2, 4, 8, 16, 32)


def auto_group(n: int, m: int) -> int:
    """Lanes per column: about half the mean in-degree, a power of two in [1, 32]."""
    half = max(1.0, m / max(n, 1) / 2)
    return min(32, 1 << int(np.ceil(np.log2(half))))


def bytes_per_sweep(n: int, m: int, itemsize: int = 4) -> int:
    """Compulsory DRAM bytes of one full sweep: column pointers, row ids, weights, d[v].

    The gathers ``d[u]`` are not counted: the distance vector (4n bytes) stays in L2.
    """
    return 4 * (n + 1) + m * (4 + itemsize) + n * itemsize


class SpmvSSSP(Solver):
    """(min,+) SpMV fixed point on CSC; ``group`` lanes per column ("auto" or 1..32).

    ``check_every``: sweeps launched between host reads of the per-sweep changed flags
    (sweeps after the fixed point return at once). ``parents``: run the predecessor pass.
    """

    all_pairs = False
    vertex_0_by_default = True

    def __init__(self, graph, sources=None, group="auto", block=256, check_every=8, parents=True):
        super().__init__(graph, sources=sources)
        name = type(self).__name__
        if len(self.sources) != 1:
            raise InputError(f"{name} is single-source; got {len(self.sources)} sources")
        if graph.dtype not in _SUFFIX:
            raise InputError(f"{name}: weights must be int32, float32 or float64, not {graph.dtype}")
        self.source = int(self.sources[0])
        self.group = auto_group(graph.n, graph.m) if group == "auto" else int(group)
        if self.group not in GROUPS:
            raise InputError(f"{name}: group must be 'auto' or one of {GROUPS}, got {group!r}")
        self.block = int(block)
        if self.block % 32 or not 32 <= self.block <= 1024:
            raise InputError(f"{name}: block must be a multiple of 32 in [32, 1024], got {block}")
        self.check_every = int(check_every)
        if self.check_every < 1:
            raise InputError(f"{name}: check_every must be >= 1, got {check_every}")
        self.parents = bool(parents)
        self.max_sweeps = graph.n + 1  # Bellman-Ford bound: n-1 improving sweeps + 1 that confirms
        self.stats = {"source": self.source, "group": self.group, "block": self.block,
                      "check_every": self.check_every}

    def bytes_needed(self) -> int:
        n, m, item = self.graph.n, self.graph.m, self.graph.dtype.itemsize
        coo = m * (8 + item)
        convert = m * 16 + n * 8          # int64 sort keys + permutation, counts
        csc = 4 * (n + 1) + m * (4 + item)
        vectors = n * (item + 4) + 4 * (self.max_sweeps + 1)
        return coo + convert + csc + vectors

    # ------------------------------------------------------------------ setup
    def setup(self):
        """Host COO -> device (H2D) -> CSC on the device; allocate d, pred and flags."""
        cp = gpu.cupy()
        g, n = self.graph, self.graph.n
        mod = gpu.load_module(_CU)
        sfx = _SUFFIX[g.dtype]
        self.sweep_kernel = mod.get_function(f"spmv_sweep_g{self.group}_{sfx}")
        self.pred_kernel = mod.get_function(f"spmv_pred_g{self.group}_{sfx}")
        t0 = time.perf_counter()
        src = cp.asarray(g.sources_of_arcs)
        dst = cp.asarray(g.indices)
        w = cp.asarray(g.weights)
        cp.cuda.get_current_stream().synchronize()
        t1 = time.perf_counter()
        self.colptr, self.rows, self.w = coo_to_csc(cp, n, src, dst, w)
        del src, dst, w
        cp.cuda.get_current_stream().synchronize()
        t2 = time.perf_counter()
        self.d = cp.empty(n, dtype=g.dtype)
        self.pred = cp.full(n, -1, dtype=cp.int32)
        self.changed = cp.zeros(self.max_sweeps, dtype=cp.int32)
        self.grid = ((n * self.group + self.block - 1) // self.block,)
        self.stats.update(h2d_ms=(t1 - t0) * 1e3, convert_ms=(t2 - t1) * 1e3)

    def reset(self):
        self.d.fill(self.graph.inf)
        self.d[self.source] = 0
        self.changed.fill(0)
        self.pred.fill(-1)

    # ---------------------------------------------------------------- compute
    def compute(self):
        n = np.int32(self.graph.n)
        args = (self.colptr, self.rows, self.w)
        block = (self.block,)
        done = sweeps = checks = 0
        while sweeps == 0:
            if done >= self.max_sweeps:
                raise RuntimeError(f"SpmvSSSP: no fixed point after {self.max_sweeps} sweeps on "
                                   f"{self.graph.name}; this cannot happen without negative weights")
            hi = min(done + self.check_every, self.max_sweeps)
            for it in range(done, hi):
                self.sweep_kernel(self.grid, block, args + (self.d, self.changed, n, np.int32(it)))
            flags = self.changed[done:hi].get()  # the only host sync of the iteration
            checks += 1
            idle = np.flatnonzero(flags == 0)
            if idle.size:
                sweeps = done + int(idle[0]) + 1  # the first sweep without a change confirms
            done = hi
        launches = done
        if self.parents and self.graph.min_weight > 0:
            self.pred_kernel(self.grid, block, args + (self.d, self.pred, n, np.int32(self.source)))
            launches += 1
        elif self.parents:
            tree_predecessors(self.graph, self.d, self.source, self.pred)
        self.stats.update(sweeps=sweeps, launches=launches, host_checks=checks)

    def solution(self) -> Solution:
        return Solution(self.d[None, :], self.sources, self.graph.n,
                        pred=self.pred[None, :] if self.parents else None, stats=self.stats)


def coo_to_csc(cp, n, src, dst, w):
    """Device COO arcs (src -> dst, w) -> CSC (colptr, row ids, weights), columns = destinations.

    Arcs are ordered by (destination, source) with one radix sort of 64-bit keys; column
    pointers are the cumulative in-degree counts.
    """
    colptr = cp.zeros(n + 1, dtype=cp.int32)
    if src.size == 0:
        return colptr, src.astype(cp.int32), w
    order = cp.argsort(dst.astype(cp.int64) * n + src)
    rows = src[order].astype(cp.int32, copy=False)
    weights = w[order]
    colptr[1:] = cp.cumsum(cp.bincount(dst, minlength=n)).astype(cp.int32)
    return colptr, rows, weights
