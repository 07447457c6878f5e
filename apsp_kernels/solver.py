"""The one interface every method implements, and the solution it returns.

Lifecycle, which lets the timing harness time only the algorithm:

1. ``Solver(graph, sources=None, **params)`` validates on the host (weights, sizes). ``sources``
   None means every vertex, or vertex 0 for the single-source methods (``vertex_0_by_default``).
2. ``bytes_needed()`` -> device bytes; checked against free memory before ``setup``.
3. ``setup()`` uploads inputs and allocates (untimed for kernel-only timing).
4. ``reset()`` restores the working state before each repetition (untimed).
5. ``compute()`` runs the algorithm: the timed region. Launches only; no host sync needed.
6. ``solution()`` returns a :class:`Solution` (may keep device arrays).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import download
from .errors import InputError
from .arrays import array_module
from .graph import Graph
from .inf import to_public


def to_host(x) -> np.ndarray:
    """numpy view of a numpy or cupy array."""
    if hasattr(x, "get") and not isinstance(x, np.ndarray):
        return x.get()
    return np.asarray(x)


@dataclass
class Solution:
    """Distances (and optionally predecessors) in the kernels' representation.

    The public contract, whatever the kernel: :meth:`to_numpy` / :meth:`rows` give float64
    distances of shape ``(len(sources), n)`` with np.inf for unreachable, row ``i`` for
    ``sources[i]``; :meth:`pred_rows` gives ``pred[i, v]``, the vertex before ``v`` on a
    shortest path from ``sources[i]``, -1 for the source and unreachable vertices.

    Inside, ``dist`` may be a cupy array, may be padded (wider, and taller, than ``n``), and
    its rows are either one per source (``by_vertex=False``) or one per vertex
    (``by_vertex=True``: the all-pairs solvers, which compute every row whatever sources
    were asked for). ``partial`` says why a solution holds fewer rows than the solver solved
    sources, by design (e.g. ``reduce=True`` keeps per-source reductions and the last rows).
    """

    dist: object
    sources: np.ndarray
    n: int
    pred: object | None = None
    stats: dict = field(default_factory=dict)
    by_vertex: bool = False
    partial: str = ""
    host: object | None = None  # a download.HostRows filled while the solver ran: every row, in order

    def _row_ids(self, which) -> np.ndarray | slice:
        pos = np.arange(len(self.sources)) if which is None else np.atleast_1d(np.asarray(which))
        ids = self.sources[pos] if self.by_vertex else pos
        if len(ids) and ids[0] == 0 and np.array_equal(ids, np.arange(len(ids))):
            return slice(0, len(ids))  # a view, no gather
        return ids

    def _take(self, matrix, which, device: bool):
        rows = matrix[self._row_ids(which), : self.n]
        return rows if device else to_host(rows)

    def rows(self, which=None, device: bool = False) -> np.ndarray:
        """Public (float64, np.inf) distances of the rows at positions ``which`` (all if None);
        a cupy array with ``device=True`` (for a solution held on the GPU). GPU rows come to the
        host through :func:`apsp_kernels.download.rows_to_host` (converted on the GPU, copied at
        the PCIe bound; the array may be page-locked memory from its pool)."""
        if array_module(self.dist) is np:
            return to_public(self._take(self.dist, which, False))
        if device:
            return download.public_rows(self._take(self.dist, which, True))
        if self.host is not None and which is None:
            host, self.host = self.host, None  # once: a later call gets an array of its own
            return host.result()
        return download.rows_to_host(self.dist, self._row_ids(which), self.n, "distances")

    def pred_rows(self, which=None, device: bool = False, none: int = -1) -> np.ndarray | None:
        """Predecessors (int32) of the rows at positions ``which``; ``none`` (-1, or SciPy's -9999)
        where there is none, mapped on the GPU for GPU rows."""
        if self.pred is None:
            return None
        if device or array_module(self.pred) is np:
            return download.predecessor_rows(self._take(self.pred, which, device), none)
        return download.rows_to_host(self.pred, self._row_ids(which), self.n, "predecessors", none)

    def to_numpy(self) -> np.ndarray:
        return self.rows()


def checked_sources(sources, n: int, who: str) -> np.ndarray:
    """``sources`` as int32 vertex ids (all ``n`` when None); InputError when one is out of range."""
    if sources is None:
        return np.arange(n, dtype=np.int32)
    ids = np.atleast_1d(np.asarray(sources))
    if ids.ndim != 1 or (ids.size and ids.dtype.kind not in "iu"):
        raise InputError(f"{who}: sources must be a 1-D sequence of vertex ids, got {sources!r}")
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        raise InputError(f"{who}: sources must lie in [0, {n}), got {ids.min()}..{ids.max()}")
    return ids.astype(np.int32)


class Solver:
    """Base class; see the module docstring for the lifecycle.

    Subclasses set ``on_gpu`` and ``accepts_negative`` and implement the hooks.
    ``self.stats`` collects counts a paper reports (iterations, kernel launches).
    """

    on_gpu = True
    accepts_negative = False
    all_pairs = True  # computes every source (FW family) vs. the ``sources`` given
    vertex_0_by_default = False  # sources=None: every vertex; True: vertex 0 (the papers' SSSP from vertex 0)
    host_preprocessing = False  # True: a one-off per-graph step on the host (seconds and more), not timed

    def __init__(self, graph: Graph, sources=None, **params):
        self.graph = graph
        self.params = params
        if sources is None and self.vertex_0_by_default:
            sources = [0]
        self.sources = checked_sources(sources, graph.n, type(self).__name__)
        if not self.accepts_negative:
            graph.require_nonnegative(type(self).__name__)
        graph.check_int32_range(type(self).__name__)
        self.stats: dict = {}

    def bytes_needed(self) -> int:
        return 0

    def setup(self) -> None:
        pass

    def reset(self) -> None:
        pass

    def compute(self) -> None:
        raise NotImplementedError

    def solution(self) -> Solution:
        raise NotImplementedError

    def solve_once(self, what: str = "") -> Solution:
        """The lifecycle in one call, outside the timing harness: refuse before allocating when
        the device memory is short (``what`` names the work in that error), set up, compute once."""
        if self.on_gpu:
            from . import gpu
            gpu.require_memory(self.bytes_needed(), what or f"{type(self).__name__} on {self.graph.n} vertices")
        self.setup()
        self.reset()
        self.compute()
        return self.solution()


class DenseInPlaceSolver(Solver):
    """All-pairs solvers that update the graph's dense matrix in place on the GPU.

    ``setup_matrix()`` builds the dense view once (``self.input``) and the working copy
    ``self.d``; ``reset()`` restores it between timed repetitions; subclasses may set
    ``self.pred`` (predecessor matrix) before ``solution()``.
    """

    pred = None

    def bytes_needed(self) -> int:
        return 2 * self.graph.dense_nbytes()  # the working matrix plus the input kept for reset()

    def setup_matrix(self):
        from . import gpu
        self.input = self.graph.dense_gpu()
        self.d = gpu.cupy().empty_like(self.input)

    def reset(self):
        self.d[...] = self.input

    def solution(self) -> Solution:
        return Solution(self.d, self.sources, self.graph.n, pred=self.pred, stats=self.stats,
                        by_vertex=True)
