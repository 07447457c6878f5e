"""Bellman-Ford on the GPU (bodra, Sec. 2.1, Table 1, Fig. 5): naive, stride and stride+flag.

Each iteration is two launches: a relax kernel reads ``prev`` and lowers ``dist`` with
``atomicMin`` (two arrays, so an iteration sees only the previous iteration's costs), then an
update kernel copies ``dist`` into ``prev``. After the last iteration a parent kernel sets
``pred[v]`` to an in-neighbour ``u`` with ``dist[u] + w(u, v) == dist[v]`` (it scans the reverse
graph, so each ``v`` has one writer; the author's kernel scans out-arcs and lets writers race).

Variants (``variant``): ``naive`` launches one thread per vertex; ``stride`` launches half that
many blocks and loops grid-stride, like the author's code; ``stride_flag`` also keeps a flag per
vertex and relaxes only the out-arcs of vertices whose distance dropped in the last iteration.

Modes (``mode``):

* ``faithful`` runs |V|-1 iterations (2(|V|-1) launches) with no convergence test, as the
  author's code does. ``max_iterations`` cuts that to a prefix, for timing only: the result is
  final only when the prefix covers convergence (``stats["converged_after"]`` of an early-exit
  run of the same variant says when).
* ``early_exit`` stops after the first iteration that changes no distance. No host sync per
  iteration: iteration ``t`` of a batch of ``check_every`` iterations sets ``changed[t]`` on the
  device, and the host reads the array once per batch, so at most ``check_every - 1`` no-op
  iterations run after convergence. ``stats["converged_after"]`` is the 1-based index of the
  first iteration that changed nothing.

When all |V|-1 iterations ran without converging, one more kernel checks whether an arc can
still be relaxed; if so a negative cycle is reachable and :class:`NegativeCycleError` is raised.

Weights: int32, float32 or float64 (kernel suffixes ``_i32``, ``_f32``, ``_f64``); the float
variants keep +inf for unreachable vertices and lower distances with a compare-and-swap loop
(negative values do not order as their bit patterns). INF: the author's code stores
``INT_MAX`` and tests ``prevDistance[i] != INF`` before adding a weight (``INT_MAX + w`` would overflow). We use the project's sentinel ``INF_INT32 = 2**30 - 1``
(:mod:`apsp_kernels.inf`): an unreached vertex still never relaxes its arcs (``prev[i] >= INF``
is tested), and any ``dist + w`` stays inside int32: :meth:`Graph.check_int32_range` refuses,
before anything runs, a graph whose distances or walk lengths could reach ``2**30 - 1``.
"""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..errors import InputError, NegativeCycleError
from ..inf import KERNEL_SUFFIX
from ..solver import Solution, Solver
from .tree import tree_predecessors

_CU = gpu.cu_path(__file__, "bellman_ford.cu")
VARIANTS = ("naive", "stride", "stride_flag")
MODES = ("faithful", "early_exit")


def grid_blocks(n: int, threads: int, variant: str) -> int:
    """Blocks per launch: one thread per vertex (naive) or half of those blocks (stride), as the author."""
    full = max(1, -(-n // threads))
    return full if variant == "naive" else max(1, full // 2)


class BellmanFordGPU(Solver):
    """Single-source Bellman-Ford from each of ``sources`` (default: vertex 0), one after another.

    ``threads`` per block (1024 as the author); ``blocks`` overrides the grid of the stride variants.
    """

    accepts_negative = True
    all_pairs = False
    vertex_0_by_default = True

    def __init__(self, graph, sources=None, variant="stride_flag", mode="faithful",
                 max_iterations=None, check_every=16, threads=1024, blocks=None):
        super().__init__(graph, sources)
        name = f"BellmanFordGPU[{variant}]"
        if variant not in VARIANTS:
            raise InputError(f"{name}: variant must be one of {VARIANTS}")
        if mode not in MODES:
            raise InputError(f"{name}: mode must be one of {MODES}, got {mode!r}")
        threads = int(threads)
        if threads < 32 or threads > 1024 or threads % 32:
            raise InputError(f"{name}: threads must be a multiple of 32 in [32, 1024], got {threads}")
        if int(check_every) < 1:
            raise InputError(f"{name}: check_every must be >= 1")
        if max_iterations is not None and int(max_iterations) < 0:
            raise InputError(f"{name}: max_iterations must be >= 0")
        self.variant, self.mode, self.threads = variant, mode, threads
        self.check_every = int(check_every)
        full = graph.n - 1
        self.n_iter = full if max_iterations is None else min(full, int(max_iterations))
        self.blocks = int(blocks) if blocks and variant != "naive" else grid_blocks(graph.n, threads, variant)
        self.stats = {"variant": variant, "mode": mode, "threads": threads, "blocks": self.blocks,
                      "full_iterations": full}

    def bytes_needed(self) -> int:
        n, m, k = self.graph.n, self.graph.m, len(self.sources)
        item = self.graph.dtype.itemsize
        csr = 2 * (4 * (n + 1) + (4 + item) * m)  # forward + reverse CSR
        work = (2 * item + 4) * n + n + 4 * self.check_every + 4
        return csr + work + (item + 4) * k * n

    def setup(self):
        cp = self.cp = gpu.cupy()
        g, rev = self.graph, self.graph.reverse
        mod = gpu.load_module(_CU)
        sfx = KERNEL_SUFFIX[g.dtype]
        self.k_relax = mod.get_function(f"bf_relax_{self.variant}_{sfx}")
        self.k_update = mod.get_function(f"bf_update_{self.variant}_{sfx}")
        self.k_parent = mod.get_function(f"bf_parent_{sfx}")
        self.k_check = mod.get_function(f"bf_find_relaxable_{sfx}")
        self.indptr, self.indices, self.weights = (cp.asarray(a) for a in (g.indptr, g.indices, g.weights))
        self.rindptr, self.rindices, self.rweights = (cp.asarray(a) for a in (rev.indptr, rev.indices, rev.weights))
        n = g.n
        self.prev = cp.empty(n, dtype=g.dtype)
        self.dist = cp.empty(n, dtype=g.dtype)
        self.pred = cp.empty(n, dtype=cp.int32)
        self.flag = cp.zeros(n, dtype=cp.uint8)
        self.changed = cp.zeros(self.check_every, dtype=cp.int32)
        self.found = cp.zeros(1, dtype=cp.int32)
        self.out_dist = cp.empty((len(self.sources), n), dtype=g.dtype)
        self.out_pred = cp.empty((len(self.sources), n), dtype=cp.int32)
        nn = np.int32(n)
        csr = (self.indptr, self.indices, self.weights)
        if self.variant == "stride_flag":
            self.relax_args = csr + (self.prev, self.dist, self.flag, nn)
            self.update_args = [(self.prev, self.dist, self.flag, self.changed, np.int32(t), nn)
                                for t in range(self.check_every)]
        else:
            self.relax_args = csr + (self.prev, self.dist, nn)
            self.update_args = [(self.prev, self.dist, self.changed, np.int32(t), nn)
                                for t in range(self.check_every)]

    def compute(self):
        totals = {"iterations": 0, "launches": 0, "host_syncs": 0}
        converged = []
        for row, s in enumerate(self.sources):
            iters, conv, syncs = self._run_source(int(s), row)
            totals["iterations"] += iters
            totals["launches"] += 2 * iters + 1
            totals["host_syncs"] += syncs
            converged.append(conv)
        self.stats.update(totals)
        if self.mode == "early_exit":
            self.stats["converged_after"] = converged[0] if len(converged) == 1 else converged
        self.stats["truncated"] = self.n_iter < self.graph.n - 1

    def _run_source(self, s: int, row: int):
        grid, block = (self.blocks,), (self.threads,)
        self.prev.fill(self.graph.inf)
        self.prev[s] = 0
        self.dist.fill(self.graph.inf)
        self.dist[s] = 0
        if self.variant == "stride_flag":
            self.flag.fill(0)
            self.flag[s] = 1
        relax, update = self.k_relax, self.k_update
        relax_args, update_args = self.relax_args, self.update_args
        done, conv, syncs = 0, None, 0
        if self.mode == "faithful":
            for _ in range(self.n_iter):
                relax(grid, block, relax_args)
                update(grid, block, update_args[0])
            done = self.n_iter
        else:
            while done < self.n_iter:
                batch = min(self.check_every, self.n_iter - done)
                self.changed.fill(0)
                for t in range(batch):
                    relax(grid, block, relax_args)
                    update(grid, block, update_args[t])
                done += batch
                flags = self.changed[:batch].get()
                syncs += 1
                idle = np.flatnonzero(flags == 0)
                if idle.size:
                    conv = done - batch + int(idle[0]) + 1
                    break
        if done == self.graph.n - 1 and conv is None:
            syncs += self._reject_negative_cycle(s, grid, block)
        if self.graph.min_weight > 0:
            self.k_parent(grid, block, (self.rindptr, self.rindices, self.rweights, self.dist, self.pred,
                                        np.int32(s), np.int32(self.graph.n)))
        else:
            tree_predecessors(self.graph, self.dist, s, self.pred)
        self.out_dist[row] = self.dist
        self.out_pred[row] = self.pred
        return done, conv, syncs

    def _reject_negative_cycle(self, s, grid, block) -> int:
        """Raise when an arc is still relaxable after |V|-1 iterations; returns the host syncs used."""
        if not self.graph.has_negative_weights:
            return 0  # without negative arcs |V|-1 iterations always converge
        self.found.fill(0)
        self.k_check(grid, block, (self.indptr, self.indices, self.weights, self.dist, self.found,
                                   np.int32(self.graph.n)))
        if int(self.found.get()[0]):
            raise NegativeCycleError(f"BellmanFordGPU[{self.variant}]: {self.graph.name} has a negative "
                             f"cycle reachable from source {s}; shortest paths are undefined")
        return 1

    def solution(self) -> Solution:
        return Solution(self.out_dist, self.sources, self.graph.n, pred=self.out_pred, stats=self.stats)
