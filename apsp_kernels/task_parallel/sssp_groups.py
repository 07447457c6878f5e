"""okuyama's task-parallel SSSP-based APSP (§5.1, Fig. 6b-9): N sources per group.

The sources are split into groups of N; a group's N SSSP problems run together with one
thread per (vertex, problem). ``Ma``/``Ca``/``Ua`` are interleaved so that the N problems of
a vertex are contiguous (Fig. 8b). A block holds B vertices x P problems (the paper: N = P =
32, B = 4, 128 threads); larger N span several blocks per vertex (grid.y = ceil(W / P)),
where W is N rounded up to a multiple of 32.

* ``shared=False`` (``task_parallel_unshared``): the scattering kernel reads the adjacency
  from global memory in every thread.
* ``shared=True`` (``task_parallel_shared``, Fig. 9): the P threads of a vertex share an
  "any of my problems is active" bit and copy the adjacency into shared memory together,
  P arcs per chunk, so any out-degree works (the complete graph's 4676).

``paths=True`` runs the §5.3 recording kernel after each group (predecessors written over
``Ua``). ``reduce=True`` keeps per-source eccentricity, reach count and checksum instead
of the ``len(sources) x n`` matrix; the solution then holds the rows of the last group,
which is what ``timing.run`` verifies. The host checks convergence once per
``check_every`` iterations (:class:`~apsp_kernels.sssp_iterative.harish.StampedBatches`).
"""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..errors import InputError
from ..graph import CYCLE_WARNING
from ..solver import Solution, Solver
from ..inf import kernel_suffix
from ..sssp_iterative.harish import WORD, Reductions, StampedBatches
from .paths import PathRecorder

_CU = gpu.cu_path(__file__, "sssp_groups.cu")
MAX_BLOCK = 1024
CHECK_BLOCK = 256
AUTO_ENTRIES = 1 << 22  # "auto" group size: about 4M (vertex, problem) cells, ~36 MB of state


def round_up(x: int, k: int) -> int:
    return (x + k - 1) // k * k


def paper_memory_words(n: int, m: int, N: int) -> int:
    """okuyama §5.2: the proposed kernels need (3N + 1)|V| + 2|E| words."""
    return (3 * N + 1) * n + 2 * m


def auto_group_size(n: int, sources: int) -> int:
    """A power of two in [32, 1024] giving about AUTO_ENTRIES cells, at most all sources."""
    want = max(1, AUTO_ENTRIES // max(n, 1))
    size = 1 << int(np.floor(np.log2(want)))
    return int(max(1, min(max(32, min(size, 1024)), sources)))


def group_layout(N, B, n: int, sources: int) -> dict:
    """Resolve N ("auto", "all" or an int) and B ("auto" or an int) into the launch layout."""
    count = max(int(sources), 1)
    if N == "all":
        N = count
    elif N == "auto":
        N = auto_group_size(n, count)
    elif isinstance(N, str) or int(N) != N or int(N) < 1:
        raise InputError(f"task_parallel: N must be a positive int, 'auto' or 'all', got {N!r}")
    N = min(int(N), count)
    W = round_up(N, 32)
    if B == "auto":
        B = max(1, 128 // W)
    if isinstance(B, str) or int(B) != B or not 1 <= int(B) <= 32:
        raise InputError(f"task_parallel: B (vertices per block) must be in [1, 32], got {B!r}")
    B = int(B)
    P = min(W, MAX_BLOCK // B // 32 * 32)
    return {"N": N, "W": W, "B": B, "P": P, "threads_per_block": P * B,
            "grid_y": (W + P - 1) // P, "groups": (int(sources) + N - 1) // N}



def int32_cells(a):
    """The first ``a.size`` int32 cells of contiguous ``a``'s memory, shaped as ``a``: the layout in
    which the recording kernel writes predecessors over U (okuyama §5.3) whatever U's item size;
    ``a.view(int32)`` of a float64 ``a`` would interleave them with the rows' other halves."""
    return a.reshape(-1).view(np.int32)[: a.size].reshape(a.shape)

class TaskParallelSSSP(Solver):
    """okuyama §5: N SSSPs per group, shared (Fig. 9) or unshared scattering kernel.

    ``N``: sources per group (int, ``"auto"`` or ``"all"``); ``B``: vertices per block
    (int or ``"auto"``); ``shared``: Fig. 9 kernel; ``paths``: record predecessors;
    ``reduce``: per-source reductions instead of the matrix; ``check_every``: iterations
    per host flag check; ``test_first``: skip atomics that cannot lower ``Ua``.
    """

    all_pairs = False  # computes the sources asked for

    def __init__(self, graph, sources=None, N=32, B=4, shared=True, paths=False, reduce=False,
                 check_every=8, test_first=True):
        super().__init__(graph, sources)
        self.method = "task_parallel_" + ("shared" if shared else "unshared")
        self.suffix = kernel_suffix(graph, self.method)
        self.layout = group_layout(N, B, graph.n, len(self.sources))
        self.shared = bool(shared)
        self.paths = bool(paths)
        if self.paths:
            graph.require_positive(f"{self.method} with paths=True", CYCLE_WARNING)
        self.reduce = bool(reduce)
        self.check_every = int(check_every)
        if self.check_every < 1:
            raise InputError(f"{self.method}: check_every must be >= 1, got {check_every}")
        self.test_first = bool(test_first)
        N = self.layout["N"]
        self.bounds = [(lo, min(lo + N, len(self.sources))) for lo in range(0, len(self.sources), N)]
        self._reset_stats()

    def _reset_stats(self):
        lay = self.layout
        self.stats = {"sssp": int(len(self.sources)), "N": lay["N"], "W": lay["W"], "B": lay["B"],
                      "P": lay["P"], "threads_per_block": lay["threads_per_block"],
                      "groups": lay["groups"], "shared": self.shared, "paths": self.paths,
                      "reduce": self.reduce, "check_every": self.check_every,
                      "test_first": self.test_first}

    # ------------------------------------------------------------------ memory
    def bytes_needed(self) -> int:
        g, lay = self.graph, self.layout
        n, k, W = g.n, len(self.sources), lay["W"]
        item = g.dtype.itemsize  # weights and distances: 4 or 8 bytes
        graph = WORD * (n + 1 + g.m) + item * g.m
        state = n * W * (2 * item + 1)
        table = WORD * W * max(lay["groups"], 1)
        if self.reduce:
            out = Reductions.nbytes(k)
        else:
            out = k * n * (item + (WORD if self.paths else 0))
        extra = PathRecorder.nbytes(g) if self.paths else 0
        return graph + state + table + out + extra + 4096

    def paper_memory_bytes(self) -> int:
        return WORD * paper_memory_words(self.graph.n, self.graph.m, self.layout["N"])

    # ------------------------------------------------------------------ lifecycle
    def setup(self):
        cp = gpu.cupy()
        g, lay = self.graph, self.layout
        n, W = g.n, lay["W"]
        mod = gpu.load_module(_CU)
        kind = "shared" if self.shared else "unshared"
        self.k_init = mod.get_function(f"tp_init_{self.suffix}")
        self.k_scatter = mod.get_function(f"tp_scatter_{kind}_{self.suffix}")
        self.k_check = mod.get_function(f"tp_check_{self.suffix}")
        self.indptr, self.indices, self.weights = g.csr_gpu()
        table = np.full((max(lay["groups"], 1), W), -1, dtype=np.int32)
        for gi, (lo, hi) in enumerate(self.bounds):
            table[gi, : hi - lo] = self.sources[lo:hi]
        self.group_sources = cp.asarray(table)
        self.mask_flat = cp.zeros(n * W, dtype=cp.uint8)
        self.cost_flat = cp.empty(n * W, dtype=g.dtype)
        self.updated_flat = cp.empty(n * W, dtype=g.dtype)
        k = len(self.sources)
        self.recorder = PathRecorder(cp, g, self.suffix) if self.paths else None
        if self.reduce:
            self.red = Reductions(cp, k, g.dtype)
            self.dist_out = self.pred_out = None
        else:
            self.dist_out = cp.empty((n, k), dtype=g.dtype)
            self.pred_out = cp.empty((n, k), dtype=cp.int32) if self.paths else None
        self.batches = StampedBatches(cp, self.check_every)
        self.launch = [self._group_launch(hi - lo) for lo, hi in self.bounds]

    def _group_launch(self, k: int) -> dict:
        """Views and launch shapes of a group of k sources: its width is k rounded up to 32
        (a short last group runs narrower than W), its P at most that width."""
        n, lay = self.graph.n, self.layout
        width = round_up(k, 32)
        P = min(lay["P"], width)
        cells = n * width
        itemsize = np.dtype(self.graph.dtype).itemsize
        quads = cells // 4
        return {"W": width, "k": k, "block": (P, lay["B"]),
                "grid": ((n + lay["B"] - 1) // lay["B"], (width + P - 1) // P),
                "quads": np.int64(quads), "check_grid": ((quads + CHECK_BLOCK - 1) // CHECK_BLOCK,),
                "shared_bytes": P * lay["B"] * (4 + itemsize) if self.shared else 0,
                "mask": self.mask_flat[:cells].reshape(n, width),
                "cost": self.cost_flat[:cells].reshape(n, width),
                "updated": self.updated_flat[:cells].reshape(n, width)}

    def reset(self):
        self._reset_stats()

    def compute(self):
        g = self.graph
        n = np.int32(g.n)
        test = np.int32(self.test_first)
        iterations, launched, launches = [], 0, 0
        for gi, (lo, hi) in enumerate(self.bounds):
            L = self.launch[gi]
            W = np.int32(L["W"])
            mask, cost, updated = L["mask"], L["cost"], L["updated"]
            sources = self.group_sources[gi]
            self.k_init(L["grid"], L["block"], (sources, n, W, mask, cost, updated))
            scatter_args = (self.indptr, self.indices, self.weights, mask, cost, updated, n, W)

            def iteration(prev, flag, stamp, L=L, scatter_args=scatter_args):
                self.k_scatter(L["grid"], L["block"], scatter_args + (prev, stamp, test),
                               shared_mem=L["shared_bytes"])
                self.k_check(L["check_grid"], (CHECK_BLOCK,),
                             (L["mask"], L["cost"], L["updated"], L["quads"], flag, prev, stamp))

            its, ran = self.batches.run(iteration, limit=g.n + self.check_every + 1)
            iterations.append(its)
            launched += ran
            launches += 1 + 2 * ran
            k = hi - lo
            if self.paths:
                pred = int32_cells(updated)
                self.recorder.record(L["grid"], L["block"], cost, pred, sources, g.n, L["W"])
                launches += 1
            if self.reduce:
                launches += self.red.add(cost[:, :k], lo, g.inf)
            else:
                self.dist_out[:, lo:hi] = cost[:, :k]
                launches += 1
                if self.paths:
                    self.pred_out[:, lo:hi] = pred[:, :k]
                    launches += 1
        its = np.asarray(iterations) if iterations else np.zeros(1, dtype=int)
        self.stats.update(iterations_per_group_mean=float(its.mean()),
                          iterations_per_group_min=int(its.min()),
                          iterations_per_group_max=int(its.max()),
                          iterations_launched=launched, kernel_launches=launches,
                          launches_per_group=launches / max(len(self.bounds), 1),
                          host_syncs=self.batches.syncs)
        self.batches.syncs = 0

    def reductions(self) -> dict:
        """Host copies of the per-source reductions (``reduce=True`` only)."""
        if not self.reduce:
            raise InputError(f"{self.method}: reductions exist only with reduce=True")
        return self.red.to_host()

    def solution(self) -> Solution:
        if self.reduce:
            lo, hi = self.bounds[-1] if self.bounds else (0, 0)
            L = self.launch[-1] if self.launch else {"cost": self.cost_flat[:0].reshape(-1, 1),
                                                     "updated": self.updated_flat[:0].reshape(-1, 1)}
            dist = L["cost"][:, : hi - lo].T.copy()
            pred = int32_cells(L["updated"])[:, : hi - lo].T.copy() if self.paths else None
            return Solution(dist, self.sources[lo:hi], self.graph.n, pred=pred, stats=self.stats,
                            partial=f"the last group's {hi - lo} rows (reduce=True)")
        pred = self.pred_out.T if self.paths else None
        return Solution(self.dist_out.T, self.sources, self.graph.n, pred=pred, stats=self.stats)
