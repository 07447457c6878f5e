"""The one interface every method implements, and the solution it returns.

Lifecycle, which lets the timing harness time only the algorithm:

1. ``Solver(graph, sources=None, **params)`` validates on the host (weights, sizes).
2. ``bytes_needed()`` -> device bytes; checked against free memory before ``setup``.
3. ``setup()`` uploads inputs and allocates (untimed for kernel-only timing).
4. ``reset()`` restores the working state before each repetition (untimed).
5. ``compute()`` runs the algorithm: the timed region. Launches only; no host sync needed.
6. ``solution()`` returns a :class:`Solution` (may keep device arrays).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

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

    Row ``i`` of ``dist`` holds the distances from ``sources[i]``; ``dist`` may be a
    cupy array and may be wider than ``n`` (padding is ignored). ``pred[i, v]`` is
    the vertex before ``v`` on a shortest path from ``sources[i]``; -1 for the
    source and unreachable vertices.
    """

    dist: object
    sources: np.ndarray
    n: int
    pred: object | None = None
    stats: dict = field(default_factory=dict)

    def rows(self, which=None) -> np.ndarray:
        """Public (float64, np.inf) distances of the rows at positions ``which`` (all if None)."""
        d = self.dist
        if which is not None:
            d = d[np.asarray(which)]
        d = to_host(d)
        return to_public(d[..., : self.n])

    def pred_rows(self, which=None) -> np.ndarray | None:
        if self.pred is None:
            return None
        p = self.pred if which is None else self.pred[np.asarray(which)]
        return to_host(p)[..., : self.n]

    def to_numpy(self) -> np.ndarray:
        return self.rows()


class Solver:
    """Base class; see the module docstring for the lifecycle.

    Subclasses set ``on_gpu`` and ``accepts_negative`` and implement the hooks.
    ``self.stats`` collects counts a paper reports (iterations, kernel launches).
    """

    on_gpu = True
    accepts_negative = False
    all_pairs = True  # computes every source (FW family) vs. the ``sources`` given

    def __init__(self, graph: Graph, sources=None, **params):
        self.graph = graph
        self.params = params
        if sources is None:
            self.sources = np.arange(graph.n, dtype=np.int32)
        else:
            self.sources = np.atleast_1d(np.asarray(sources, dtype=np.int32))
            if self.sources.size and (self.sources.min() < 0 or self.sources.max() >= graph.n):
                raise ValueError(f"sources must lie in [0, {graph.n})")
        if not self.accepts_negative:
            graph.require_nonnegative(type(self).__name__)
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
        return Solution(self.d, np.arange(self.graph.n, dtype=np.int32), self.graph.n,
                        pred=self.pred, stats=self.stats)
