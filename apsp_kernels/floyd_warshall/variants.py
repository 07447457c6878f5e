"""Floyd-Warshall variants of bodra (Sec. 2.3, Table 3, Fig. 6) on the dense matrix, with parents.

* :class:`SuperNaive` is the project's per-k kernel (:mod:`.per_k`, one thread per entry on a
  32 x 32-thread 2D grid, as the author) with a ``max_k`` prefix for timing.
* :class:`SuperNaiveShared`: 1D blocks of 1024 threads, one block row per matrix row; the
  block's first thread loads d[i][k] into shared memory and the block reads it from there.
* :class:`NaiveRows`: one thread per row i looping over every column j (1024-thread blocks,
  as the author; ``threads`` changes that).

:class:`DenseFW` holds what they share (and what :mod:`apsp_kernels.blocked_fw.three_phase`
uses): the distance and predecessor matrices on the GPU, padded to a multiple of ``pad``
with isolated vertices; ``pred[i][j]`` is the vertex before j on a shortest i->j path (the
author stores the intermediate k instead, which is not a predecessor and cannot be followed
back; keeping pred[k][j] costs the same one write per improvement).

Options of every variant:

* ``parents=True`` (the author always computes them).
* ``max_k``: stop after that many values of k (the tiled variants after ceil(max_k / 32)
  rounds), for timing a prefix. The result is then final only for paths whose intermediate
  vertices are all < max_k; the time scales with k because every step reads the same data.
* ``host_io=True``: like the author's program, upload the n x n distance and parent matrices
  built on the host (built once per graph and cached, outside any timing, as the author builds
  them before starting its timer) and download both in ``solution()``; with the timing scope
  ``with_transfers`` that times upload + kernels + download. By default the matrices are built
  on the GPU from the CSR arrays in ``reset()`` and stay there.

INF: the author's ``INT_MAX`` needs a test before each addition; the project's
``INF_INT32 = 2**30 - 1`` (:mod:`apsp_kernels.inf`) makes INF + INF safe, so the kernels add
without tests. Negative weights are rejected (the Solver base does that).
"""
from __future__ import annotations

import weakref

import numpy as np

from .. import gpu
from ..errors import InputError
from ..inf import KERNEL_SUFFIX
from ..solver import Solution, Solver
from .per_k import FloydWarshallPerK
from .prefix import k_steps

_CU = gpu.cu_path(__file__, "variants.cu")
_HOST_MATRICES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
MAX_GRID_Y = 65535


def host_matrices(graph, size: int):
    """(distances, parents, out_distances, out_parents) host arrays padded to ``size``, cached.

    As the author's program, the matrices exist before the timer starts; ours are in pinned
    (page-locked) memory so that the timed copies run at full PCIe speed, and the download
    buffers are allocated once too.
    """
    cache = _HOST_MATRICES.setdefault(graph, {})
    if size not in cache:
        cache.clear()
        src, dst, w = graph.dense_arcs
        dist, out_dist = (_pinned((size, size), graph.dtype) for _ in range(2))
        parent, out_parent = (_pinned((size, size), np.int32) for _ in range(2))
        dist.fill(graph.inf)
        dist[src, dst] = w
        np.fill_diagonal(dist, 0)
        parent.fill(-1)
        parent[src, dst] = src
        cache[size] = (dist, parent, out_dist, out_parent)
    return cache[size]


def _pinned(shape, dtype) -> np.ndarray:
    import cupyx
    return cupyx.empty_pinned(shape, dtype=dtype)


class DenseFW(Solver):
    """Dense distance + predecessor matrices on the GPU; subclasses implement ``compute``."""

    pad = 1  # the matrix side is rounded up to a multiple of this
    float_kernels = False  # True where the .cu file stamps _f32 and _f64 variants too

    def __init__(self, graph, sources=None, parents=True, max_k=None, host_io=False):
        super().__init__(graph, sources)
        if not self.float_kernels:
            graph.require_int32(type(self).__name__)
        self.dtype = np.dtype(graph.dtype)
        self.suffix = KERNEL_SUFFIX[self.dtype]
        self.parents = bool(parents)
        self.host_io = bool(host_io)
        self.size = -(-graph.n // self.pad) * self.pad
        self.k_steps = k_steps(graph.n, max_k, type(self).__name__)
        self.stats = {"k_steps": self.k_steps, "matrix_side": self.size, "parents": self.parents,
                      "host_io": self.host_io, "truncated": self.k_steps < graph.n}

    @property
    def ld(self) -> np.int64:
        return np.int64(self.size)

    def matrix_bytes(self) -> int:
        return self.size * self.size * self.dtype.itemsize

    def bytes_needed(self) -> int:
        return self.matrix_bytes() + self.size * self.size * 4 * self.parents + \
            (8 + self.dtype.itemsize) * self.graph.m

    def setup(self):
        cp = self.cp = gpu.cupy()
        shape = (self.size, self.size)
        self.d = cp.empty(shape, dtype=self.dtype)
        self.pred = cp.empty(shape, dtype=cp.int32) if self.parents else None
        if self.host_io:
            self._upload()
        else:
            g = self.graph
            self.arc_src, self.arc_dst, self.arc_w = (cp.asarray(a) for a in g.dense_arcs)
        self.fresh = self.host_io  # the upload above already holds the initial state
        self.load_kernels(gpu.load_module(self.cu_file))

    def _upload(self):
        dist, parent, _, _ = host_matrices(self.graph, self.size)
        self.d.set(dist)
        if self.parents:
            self.pred.set(parent)

    def reset(self):
        if self.fresh:
            self.fresh = False
        elif self.host_io:
            self._upload()
        else:
            cp = self.cp
            self.d.fill(self.graph.inf)
            self.d[self.arc_src, self.arc_dst] = self.arc_w
            cp.fill_diagonal(self.d, 0)
            if self.parents:
                self.pred.fill(-1)
                self.pred[self.arc_src, self.arc_dst] = self.arc_src

    @property
    def pred_arg(self):
        return self.pred if self.parents else np.intp(0)

    def solution(self) -> Solution:
        dist, pred = self.d, self.pred
        if self.host_io:  # the author's program copies both matrices back
            _, _, out_dist, out_pred = host_matrices(self.graph, self.size)
            dist = dist.get(out=out_dist)
            pred = pred.get(out=out_pred) if self.parents else None
        return Solution(dist, self.sources, self.graph.n, pred=pred, stats=self.stats,
                        by_vertex=True)

    cu_file = _CU

    def load_kernels(self, module) -> None:
        raise NotImplementedError


class SuperNaiveShared(DenseFW):
    """FW, one launch per k; 1D blocks of ``threads``, d[i][k] broadcast through shared memory."""

    def __init__(self, graph, sources=None, threads=1024, **kw):
        super().__init__(graph, sources, **kw)
        self.threads = _threads(threads, type(self).__name__)
        self.stats.update(threads=self.threads, launches=self.k_steps)

    def load_kernels(self, module):
        self.kernel = module.get_function("fw_super_naive_shared_i32")
        n = self.graph.n
        self.grid = (-(-n // self.threads), min(n, MAX_GRID_Y))

    def compute(self):
        n = np.int32(self.graph.n)
        for k in range(self.k_steps):
            self.kernel(self.grid, (self.threads,), (self.d, self.pred_arg, n, self.ld, np.int32(k)))


class NaiveRows(DenseFW):
    """FW, one launch per k; one thread per row (``threads`` per block) loops over the columns."""

    def __init__(self, graph, sources=None, threads=1024, **kw):
        super().__init__(graph, sources, **kw)
        self.threads = _threads(threads, type(self).__name__)
        self.stats.update(threads=self.threads, launches=self.k_steps)

    def load_kernels(self, module):
        self.kernel = module.get_function("fw_naive_rows_i32")
        self.grid = (-(-self.graph.n // self.threads),)

    def compute(self):
        n = np.int32(self.graph.n)
        for k in range(self.k_steps):
            self.kernel(self.grid, (self.threads,), (self.d, self.pred_arg, n, self.ld, np.int32(k)))


class SuperNaive(FloydWarshallPerK):
    """The project's per-k FW (:class:`FloydWarshallPerK`) with 32 x 32 blocks as the author,
    parents on, and a ``max_k`` prefix for timing (the kernel and the rest are unchanged)."""

    def __init__(self, graph, sources=None, block=(32, 32), parents=True, max_k=None):
        graph.require_int32(type(self).__name__)
        super().__init__(graph, sources, block=block, parents=parents, max_k=max_k)


def _threads(threads, name) -> int:
    threads = int(threads)
    if threads < 32 or threads > 1024 or threads % 32:
        raise InputError(f"{name}: threads must be a multiple of 32 in [32, 1024], got {threads}")
    return threads
