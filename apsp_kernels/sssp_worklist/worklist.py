"""Work-efficient SSSP for road networks: an asynchronous worklist in one persistent launch.

The single-source problem of liu (Fig. 3/4, nvGraph's SpMV SSSP), bodra (Table 1, Bellman-Ford on
the DIMACS road graphs) and okuyama (§4, Harish & Narayanan's SSSP), solved the way ADDS-style
GPU worklists do: no synchronous rounds. A vertex is queued only when its distance drops, and it
is relaxed with the newest distances of the moment, so one pass along a long road covers many
hops while the synchronous methods need one round per hop (~1,200 rounds on USA-road-d.NY).
Each block keeps the vertices it just improved for its own next round (a hop per round, no
grid-wide barrier and no host round trip) and spills the surplus to a global ring that idle blocks
drain; the kernel ends when no vertex is queued or in flight (see ``worklist.cu``).

``stats``: ``pops`` (vertices relaxed), ``relaxations`` (arcs relaxed; beside Dijkstra's
``m log2 n`` as ``work_vs_dijkstra``), ``updates`` (distance decreases), ``ring_pushes``,
``rounds`` (the most rounds of one block), ``l2_bytes`` (bytes the kernel reads and writes,
from those counts) and ``compulsory_bytes`` (the CSR once plus the distance array). The counts
are read after the run (``solution()``, or the next ``reset()``), never inside the timed region;
asynchronous runs differ slightly from one run to the next.
"""
from __future__ import annotations

import math

import numpy as np

from .. import gpu
from ..errors import InputError
from ..solver import Solution, Solver
from ..inf import kernel_suffix
from ..sssp_iterative.tree import tree_predecessors

_CU = gpu.cu_path(__file__, "worklist.cu")
THREADS = 256           # WL_THREADS in worklist.cu
LOCAL = 2 * THREADS     # WL_LOCAL
PRED_BLOCK = 256
MAX_CHAIN = 1024
STAT_NAMES = ("pops", "relaxations", "updates", "ring_pushes", "rounds")


def ring_capacity(n: int) -> int:
    """A power of two above n: the ring never holds more than n items (one per queued vertex)."""
    return max(1024, 1 << int(n).bit_length())


def idle_key(dtype) -> int:
    """key of an unreached vertex in no queue: (bits of INF) << 1 | 1."""
    dtype = np.dtype(dtype)
    bits = (1 << 30) - 1 if dtype == np.int32 else 0x7FF0000000000000 if dtype == np.float64 else 0x7F800000
    return (bits << 1) | 1


def key_dtype(dtype) -> np.dtype:
    """The packed (distance, idle) key: 32 bits, or 64 for float64 distances."""
    return np.dtype(np.uint64 if np.dtype(dtype) == np.float64 else np.uint32)


def work_bytes(stats: dict, n: int, itemsize: int = 4) -> int:
    """Bytes moved by the kernel: per pop the key atomic and two row pointers, per arc its
    target, weight and the target's key (read + CAS), per ring item 12 bytes each way, and the
    final distance write; every access is an L2 transaction, most of them hits."""
    return int(stats["pops"] * 12 + stats["relaxations"] * (4 + itemsize + 8)
               + stats["updates"] * 4 + stats["ring_pushes"] * 24 + n * (4 + itemsize))


class WorklistSSSP(Solver):
    """Asynchronous worklist SSSP from each of ``sources`` (default: vertex 0), one after another.

    ``keep``: items a block keeps for its next round (the rest go to the global ring; 1..256);
    ``grab``: items a block with room takes from the ring at once (1..256); ``chain``: hops a
    thread follows within one round (the first vertex it queued is relaxed at once; 1 = one hop
    per round; 1..1024; 4 was the fastest on USA-road-d.BAY on an H100, where NY did not
    depend on it); ``blocks_per_sm``: resident blocks per SM (the grid is that times the SM
    count); ``parents``: predecessors.
    """

    all_pairs = False
    vertex_0_by_default = True

    def __init__(self, graph, sources=None, keep=256, grab=64, chain=4, blocks_per_sm=4, parents=True):
        super().__init__(graph, sources)
        name = type(self).__name__
        self.suffix = kernel_suffix(graph, name)
        limits = (("keep", keep, THREADS), ("grab", grab, THREADS), ("chain", chain, MAX_CHAIN))
        for label, value, most in limits:
            if int(value) != value or not 1 <= int(value) <= most:
                raise InputError(f"{name}: {label} must be an int in [1, {most}], got {value!r}")
        if int(blocks_per_sm) != blocks_per_sm or not 1 <= int(blocks_per_sm) <= 8:
            raise InputError(f"{name}: blocks_per_sm must be an int in [1, 8], got {blocks_per_sm!r}")
        self.keep, self.grab, self.chain = int(keep), int(grab), int(chain)
        self.blocks_per_sm = int(blocks_per_sm)
        self.parents = bool(parents)
        self.capacity = ring_capacity(graph.n)
        self.stats = {"keep": self.keep, "grab": self.grab, "chain": self.chain,
                      "blocks_per_sm": self.blocks_per_sm,
                      "threads": THREADS, "ring_capacity": self.capacity}

    def bytes_needed(self) -> int:
        g, k = self.graph, len(self.sources)
        csr = 2 * (4 * (g.n + 1) + g.m * (4 + g.dtype.itemsize))  # forward + reverse (parents)
        state = key_dtype(g.dtype).itemsize * g.n + 12 * self.capacity * 2 + 64           # keys, ring + its reset copy
        return csr + state + k * g.n * (g.dtype.itemsize + 4)

    def setup(self):
        cp = self.cp = gpu.cupy()
        g = self.graph
        mod = gpu.load_module(_CU)
        self.kernel = mod.get_function(f"wl_sssp_{self.suffix}")
        self.pred_kernel = mod.get_function(f"wl_pred_{self.suffix}")
        self.csr = tuple(cp.asarray(a) for a in (g.indptr, g.indices, g.weights))
        self.positive = self.parents and g.m > 0 and bool(g.min_weight > 0)
        if self.positive:
            rev = g.reverse
            self.rcsr = tuple(cp.asarray(a) for a in (rev.indptr, rev.indices, rev.weights))
        self.key = cp.empty(g.n, dtype=key_dtype(g.dtype))
        self.ctl = cp.zeros(2, dtype=cp.uint64)
        self.pending = cp.zeros(1, dtype=cp.int32)
        self.seq0 = cp.arange(self.capacity, dtype=cp.uint64)
        self.seq = cp.empty_like(self.seq0)
        self.slots = cp.empty(self.capacity, dtype=cp.int32)
        self.counts = cp.zeros(len(STAT_NAMES) + 1, dtype=cp.uint64)  # + the stall flag
        self.out_dist = cp.empty((len(self.sources), g.n), dtype=g.dtype)
        self.out_pred = cp.full((len(self.sources), g.n), -1, dtype=cp.int32) if self.parents else None
        sms = gpu.device_info()["sm_count"] or 1
        self.grid = (max(1, min(sms * self.blocks_per_sm, -(-g.n // 32))),)
        self.stats["blocks"] = self.grid[0]
        self.ran = False

    def _prepare(self, source: int):
        self.key.fill(self.key.dtype.type(idle_key(self.graph.dtype)))  # 64-bit keys exceed int64
        self.key[source] = 0  # distance 0, queued (idle bit clear)
        self.ctl.fill(0)
        self.pending.fill(1)
        self.seq[...] = self.seq0

    def reset(self):
        if self.ran:  # the counts of the run before (reading them in compute would add a sync)
            self._record_counts()
        self.counts.fill(0)
        if len(self.sources):
            self._prepare(int(self.sources[0]))

    def compute(self):
        self.ran = True
        g = self.graph
        n = np.int32(g.n)
        for row, s in enumerate(self.sources):
            if row:
                self._prepare(int(s))
            dist = self.out_dist[row]
            self.kernel(self.grid, (THREADS,),
                        self.csr + (self.key, dist, self.ctl, self.pending, self.seq, self.slots,
                                    np.uint64(self.capacity - 1), self.counts, n, np.int32(s),
                                    np.int32(self.keep), np.int32(self.grab), np.int32(self.chain)))
            if self.positive:
                blocks = (-(-g.n // PRED_BLOCK),)
                self.pred_kernel(blocks, (PRED_BLOCK,), self.rcsr + (dist, self.out_pred[row], n, np.int32(s)))
            elif self.parents:
                tree_predecessors(g, dist, int(s), self.out_pred[row])

    def _record_counts(self):
        values = [int(c) for c in self.counts.get()]
        if values[-1]:
            raise RuntimeError(f"{type(self).__name__}: a block waited for work for seconds while "
                               f"vertices were still counted as queued on {self.graph.name}; the "
                               f"distances are not final (a bug in worklist.cu)")
        counts = dict(zip(STAT_NAMES, values))
        g, k = self.graph, len(self.sources)
        dijkstra = g.m * math.log2(max(g.n, 2))
        self.stats.update(counts, sources=k, dijkstra_m_log_n=dijkstra,
                          work_vs_dijkstra=counts["relaxations"] / max(k * dijkstra, 1),
                          l2_bytes=work_bytes(counts, g.n, g.dtype.itemsize),
                          compulsory_bytes=k * (4 * (g.n + 1) + g.m * (4 + g.dtype.itemsize)
                                                + g.n * (4 + g.dtype.itemsize)))

    def solution(self) -> Solution:
        self._record_counts()
        return Solution(self.out_dist, self.sources, self.graph.n, pred=self.out_pred, stats=self.stats)
