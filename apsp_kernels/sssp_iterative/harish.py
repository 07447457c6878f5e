"""Harish & Narayanan's SSSP-based APSP, as okuyama describe it (§4, Fig. 3 and 5).

One SSSP at a time on the GPU: arrays Va/Ea/Wa (the CSR graph), Ma (mask), Ca (cost) and
Ua (updated cost), one thread per vertex. Each iteration launches the scattering kernel
(active vertices atomicMin ``Ca[v] + w`` into ``Ua`` of their neighbours) and the checking
kernel (``Ca <- Ua`` where smaller, new mask, a global changed flag). The host repeats
until an iteration changes nothing, then moves to the next source.

Unlike the original, the host does not read the flag after every iteration: it launches
``check_every`` iterations per batch and reads the batch's flags once (see
:class:`StampedBatches`); the exact iteration count per SSSP is still known, so
``stats`` reports both the iterations (the paper's "launches per SSSP": 23 on the random
graph, 4677 on the ring) and the kernels actually launched.

Output: the ``len(sources) x n`` distance matrix, or with ``reduce=True`` only per-source
eccentricity, reach count and distance checksum (kept on the device; the solution then
holds the distance row of the last source only, which is what ``timing.run`` verifies).
"""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..errors import InputError
from ..inf import kernel_suffix
from ..solver import Solution, Solver

_CU = gpu.cu_path(__file__, "harish.cu")
WORD = 4


def paper_memory_words(n: int, m: int) -> int:
    """okuyama §5.2: Harish's kernels need 4|V| + 2|E| words of device memory."""
    return 4 * n + 2 * m


class StampedBatches:
    """Runs an iteration until it changes nothing, with one host sync per batch of iterations.

    ``iteration(prev_flag_ptr, flag_ptr, stamp)`` launches one scatter + check pair; the
    check kernel writes ``stamp`` into its flag slot when a cost decreased, and both kernels
    return at once when the previous slot (``prev_flag_ptr``, 0 for the first of a batch)
    lacks the stamp. Stamps only grow, so the flags never need clearing.
    """

    def __init__(self, cp, every: int):
        if int(every) < 1:
            raise InputError(f"check_every must be >= 1, got {every}")
        self.every = int(every)
        self.flags = cp.zeros(self.every, dtype=cp.int32)
        base = self.flags.data.ptr
        self.slots = [np.intp(base + WORD * j) for j in range(self.every)]
        self.prev = [np.intp(0)] + self.slots[:-1]
        self.stamp = 0
        self.syncs = 0

    def run(self, iteration, limit: int) -> tuple[int, int]:
        """(iterations until the first one that changed nothing, inclusive; iterations launched)."""
        launched = 0
        while True:
            self.stamp += 1
            stamp = np.int32(self.stamp)
            for j in range(self.every):
                iteration(self.prev[j], self.slots[j], stamp)
            flags = self.flags.get()
            self.syncs += 1
            quiet = np.flatnonzero(flags != self.stamp)
            if quiet.size:
                return launched + int(quiet[0]) + 1, launched + self.every
            launched += self.every
            if launched > limit:
                raise RuntimeError(f"no convergence after {launched} iterations (limit {limit}); "
                                   "a negative cycle or a kernel bug")


class Reductions:
    """Per-source eccentricity (largest finite distance), reach count and distance checksum."""

    def __init__(self, cp, count: int, dtype):
        self.cp = cp
        self.eccentricity = cp.full(count, -1, dtype=dtype)
        self.reached = cp.zeros(count, dtype=cp.int64)
        self.checksum = cp.zeros(count, dtype=cp.int64 if dtype == np.int32 else cp.float64)

    @staticmethod
    def nbytes(count: int) -> int:
        return count * (4 + 8 + 8)

    def add(self, columns, lo: int, inf) -> int:
        """Reduce ``columns`` (n x k: column i is source lo + i); returns the launches used."""
        cp = self.cp
        hi = lo + columns.shape[1]
        finite = columns < inf
        self.eccentricity[lo:hi] = cp.where(finite, columns, -1).max(axis=0)
        self.reached[lo:hi] = finite.sum(axis=0)
        self.checksum[lo:hi] = cp.where(finite, columns, 0).sum(axis=0, dtype=self.checksum.dtype)
        return 8

    def to_host(self) -> dict:
        return {"eccentricity": self.eccentricity.get(), "reached": self.reached.get(),
                "checksum": self.checksum.get()}


def host_reductions(dist_public: np.ndarray) -> dict:
    """The same reductions from public (float64, inf) rows, e.g. the oracle's, for checking."""
    finite = np.isfinite(dist_public)
    return {"eccentricity": np.where(finite, dist_public, -1).max(axis=1),
            "reached": finite.sum(axis=1),
            "checksum": np.where(finite, dist_public, 0).sum(axis=1)}


class Harish(Solver):
    """okuyama §4 baseline: Harish & Narayanan's iterative SSSP, one source at a time.

    ``block``: threads per block; ``check_every``: iterations per host flag check;
    ``test_first``: read ``Ua`` before the atomicMin and skip it when it cannot lower the
    value; ``reduce``: keep per-source reductions instead of the distance matrix.
    """

    name = "harish"
    all_pairs = False  # computes the sources asked for

    def __init__(self, graph, sources=None, block=256, check_every=8, test_first=True,
                 reduce=False):
        super().__init__(graph, sources)
        self.suffix = kernel_suffix(graph, "harish")
        self.block = int(block)
        if not 32 <= self.block <= 1024 or self.block % 32:
            raise InputError(f"harish: block must be a multiple of 32 in [32, 1024], got {block}")
        self.check_every = int(check_every)
        if self.check_every < 1:
            raise InputError(f"harish: check_every must be >= 1, got {check_every}")
        self.test_first = bool(test_first)
        self.reduce = bool(reduce)
        self._reset_stats()

    def _reset_stats(self):
        self.stats = {"sssp": int(len(self.sources)), "check_every": self.check_every,
                      "block": self.block, "test_first": self.test_first, "reduce": self.reduce}

    def bytes_needed(self) -> int:
        n, m, k = self.graph.n, self.graph.m, len(self.sources)
        item = self.graph.dtype.itemsize  # weights and distances: 4 or 8 bytes
        graph = WORD * (n + 1 + m) + item * m
        state = n * (2 * item + 1)
        out = Reductions.nbytes(k) if self.reduce else item * k * n
        return graph + state + out + 4096

    def setup(self):
        cp = gpu.cupy()
        g = self.graph
        mod = gpu.load_module(_CU)
        self.k_init = mod.get_function(f"harish_init_{self.suffix}")
        self.k_scatter = mod.get_function(f"harish_scatter_{self.suffix}")
        self.k_check = mod.get_function(f"harish_check_{self.suffix}")
        self.indptr, self.indices, self.weights = g.csr_gpu()
        n, k = g.n, len(self.sources)
        self.mask = cp.zeros(n, dtype=cp.uint8)
        self.updated = cp.empty(n, dtype=g.dtype)
        if self.reduce:
            self.cost = cp.empty(n, dtype=g.dtype)
            self.red = Reductions(cp, k, g.dtype)
            self.dist = None
        else:
            self.dist = cp.empty((k, n), dtype=g.dtype)
        self.batches = StampedBatches(cp, self.check_every)
        self.grid = ((n + self.block - 1) // self.block,)

    def reset(self):
        self._reset_stats()

    def compute(self):
        g = self.graph
        n = np.int32(g.n)
        block, grid = (self.block,), self.grid
        test = np.int32(self.test_first)
        iterations, launched, launches = [], 0, 0
        for i, s in enumerate(self.sources):
            cost = self.cost if self.reduce else self.dist[i]
            self.k_init(grid, block, (n, np.int32(s), self.mask, cost, self.updated))

            def iteration(prev, flag, stamp, cost=cost):
                self.k_scatter(grid, block, (self.indptr, self.indices, self.weights, self.mask,
                                             cost, self.updated, n, prev, stamp, test))
                self.k_check(grid, block, (self.mask, cost, self.updated, n, flag, prev, stamp))

            its, ran = self.batches.run(iteration, limit=g.n + self.check_every + 1)
            iterations.append(its)
            launched += ran
            launches += 1 + 2 * ran
            if self.reduce:
                launches += self.red.add(cost[:, None], i, g.inf)
        its = np.asarray(iterations) if iterations else np.zeros(1, dtype=int)
        k = max(len(self.sources), 1)
        self.stats.update(iterations_per_sssp_mean=float(its.mean()),
                          iterations_per_sssp_min=int(its.min()),
                          iterations_per_sssp_max=int(its.max()),
                          iterations_launched_per_sssp=launched / k,
                          kernel_launches=launches, launches_per_sssp=launches / k,
                          host_syncs=self.batches.syncs)
        self.batches.syncs = 0

    def reductions(self) -> dict:
        """Host copies of the per-source reductions (``reduce=True`` only)."""
        if not self.reduce:
            raise InputError("harish: reductions exist only with reduce=True")
        return self.red.to_host()

    def solution(self) -> Solution:
        if self.reduce:
            last = self.sources[-1:]
            return Solution(self.cost[None, :].copy(), last, self.graph.n, stats=self.stats,
                            partial="the last source's row (reduce=True)")
        return Solution(self.dist, self.sources, self.graph.n, stats=self.stats)
