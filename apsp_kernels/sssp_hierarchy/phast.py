"""SSSP on road networks by PHAST over a contraction hierarchy (project fast path, issue [peak]).

Delling, Goldberg, Nowatzyk, Werneck, "PHAST: Hardware-accelerated shortest path trees" (IPDPS
2011): after a one-off contraction (:mod:`.contraction`, on the host, cached per graph), a source's
distances are two sweeps over the vertices by level, up then down, each level one parallel step.
Beside liu Fig. 3/4 and bodra Table 1 (SSSP from vertex 0 of the DIMACS roads): the road's
shortest paths are up to 1,199 arcs long on NY, the hierarchy has far fewer levels, and most of
them are small enough for one block with the distances in shared memory (``phast.cu``).

``stats``: ``levels``, ``shortcuts`` (arcs the contraction added), ``launches`` per source,
``preprocessing_s`` (host seconds of the contraction, outside the timed region; 0 when cached),
``compile_s`` (numba compiling the contraction in this process, once, before it: not in either time),
``arcs_swept`` (in-arcs both sweeps read per source). Distances only: no predecessors (a shortcut
stands for a path). Non-negative weights; road-like graphs only (mean out-degree at most
``MAX_MEAN_DEGREE``, refused before contracting: elsewhere a hierarchy does not pay).
"""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..errors import InputError
from ..solver import Solution, Solver
from ..inf import kernel_suffix
from .contraction import Hierarchy, compile_seconds
from .layout import hierarchy_of

_CU = gpu.cu_path(__file__, "phast.cu")
THREADS = 256
TOP_THREADS = 1024
TOP_MAX = 12288  # vertices of the top levels in one block: 48 KB of shared memory
MAX_MEAN_DEGREE = 3.0  # the DIMACS roads have 2.4 .. 2.9 arcs per vertex
def hierarchy(graph) -> tuple[Hierarchy, float]:
    """The graph's contraction hierarchy (computed once per graph, kept on it: shared with
    :mod:`.phast_batched`) and the seconds it took now."""
    return hierarchy_of(graph)


def top_level(level_ptr: np.ndarray, top_max: int) -> int:
    """The lowest level from which the levels above hold at most ``top_max`` vertices."""
    n, levels = int(level_ptr[-1]), len(level_ptr) - 1
    first = levels
    while first > 0 and n - int(level_ptr[first - 1]) <= top_max:
        first -= 1
    return first


class PhastSSSP(Solver):
    """PHAST: one-off contraction on the host, then per source an upward and a downward sweep."""

    all_pairs = False
    vertex_0_by_default = True
    host_preprocessing = True

    def __init__(self, graph, sources=None, top_vertices=TOP_MAX, threads=THREADS):
        super().__init__(graph, sources)
        name = type(self).__name__
        if graph.m > MAX_MEAN_DEGREE * graph.n:
            raise InputError(f"{name} contracts road-like graphs (at most {MAX_MEAN_DEGREE:g} arcs per vertex), "
                             f"but {graph.name} has {graph.m / graph.n:.2f}: use fast:sssp_worklist")
        self.suffix = kernel_suffix(graph, name)
        self.top_vertices, self.threads = int(top_vertices), int(threads)
        if not 0 <= self.top_vertices <= TOP_MAX:
            raise InputError(f"{name}: top_vertices must lie in [0, {TOP_MAX}], got {top_vertices}")
        if not 32 <= self.threads <= 1024 or self.threads % 32:
            raise InputError(f"{name}: threads must be a multiple of 32 in [32, 1024], got {threads}")

    def _hierarchy(self) -> Hierarchy:
        h, seconds = hierarchy(self.graph)
        self.stats.setdefault("preprocessing_s", round(seconds, 3))
        self.stats.setdefault("compile_s", round(compile_seconds(self.graph.dtype), 3))
        return h

    def bytes_needed(self) -> int:
        h = self._hierarchy()
        arcs = len(h.up[1]) + len(h.down[1])
        item = self.graph.dtype.itemsize
        return 2 * 4 * (self.graph.n + 1) + arcs * (4 + item) + self.graph.n * (4 + 4 + item) \
            + len(self.sources) * self.graph.n * item + 4096

    def setup(self):
        cp = gpu.cupy()
        h, g = self._hierarchy(), self.graph
        mod = gpu.load_module(_CU)
        self.k_level, self.k_top, self.k_init, self.k_scatter = (
            mod.get_function(f"ph_{name}_{self.suffix}") for name in ("level", "top", "init", "scatter"))
        self.up = tuple(cp.asarray(a) for a in h.up)
        self.down = tuple(cp.asarray(a) for a in h.down)
        self.rank, self.rank_host = cp.asarray(h.rank), h.rank
        self.level_ptr = cp.asarray(h.level_ptr)
        self.ptr = h.level_ptr.tolist()
        self.first_top = top_level(h.level_ptr, self.top_vertices) if h.levels else 0
        self.top_bytes = (self.ptr[-1] - self.ptr[self.first_top]) * g.dtype.itemsize
        self.d = cp.empty(g.n, dtype=g.dtype)
        self.out = cp.empty((len(self.sources), g.n), dtype=g.dtype)
        self.grid = lambda count: (max(1, -(-count // self.threads)),)
        self.stats.update(levels=h.levels, shortcuts=h.shortcuts, top_levels=h.levels - self.first_top,
                          launches=2 + 2 * self.first_top + 2 * (self.first_top < h.levels),
                          arcs_swept=len(h.up[1]) + len(h.down[1]))

    def _level(self, arcs, lv):
        lo, hi = self.ptr[lv], self.ptr[lv + 1]
        if hi > lo:
            self.k_level(self.grid(hi - lo), (self.threads,), arcs + (self.d, np.int32(lo), np.int32(hi)))

    def _top(self, arcs, first, last):
        self.k_top((1,), (TOP_THREADS,), arcs + (self.d, self.level_ptr, np.int32(first), np.int32(last),
                                                np.int32(self.graph.n)), shared_mem=self.top_bytes)

    def compute(self):
        n, levels, top = self.graph.n, len(self.ptr) - 1, self.first_top
        for row, s in enumerate(self.sources):
            self.k_init(self.grid(n), (self.threads,), (self.d, np.int32(n), np.int32(self.rank_host[int(s)])))
            for lv in range(top):
                self._level(self.up, lv)
            if top < levels:
                self._top(self.up, top, levels - 1)
                self._top(self.down, levels - 1, top)
            for lv in range(top - 1, -1, -1):
                self._level(self.down, lv)
            self.k_scatter(self.grid(n), (self.threads,), (self.d, self.rank, self.out[row], np.int32(n)))

    def solution(self) -> Solution:
        return Solution(self.out, self.sources, self.graph.n, stats=self.stats)
