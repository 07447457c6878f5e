"""Maps each paper's method names to implementations.

Every paper has a module ``apsp_kernels/papers/<paper>.py`` with ``PAPER`` (title,
citation) and ``METHODS``, a list of :class:`Method`. The group ``fast`` holds the project's
own fast paths, kept beside the papers' kernels (which stay as the papers describe them). Implementations are named as
``"module:Class"`` strings and imported on first use, so listing methods never
imports CuPy.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

PAPERS = ("okuyama", "bodra", "takafuji", "pandey", "liu")
GROUPS = PAPERS + ("fast",)


@dataclass(frozen=True)
class Method:
    """One method of one paper.

    ``impl``: ``"apsp_kernels.floyd_warshall.per_k:FloydWarshallPerK"``;
    ``params``: fixed keyword arguments that select the paper's variant;
    ``figure``: the paper's figure/listing it implements.
    """

    paper: str
    name: str
    impl: str
    figure: str = ""
    params: tuple = ()
    gpu: bool = True
    description: str = ""

    @property
    def key(self) -> str:
        return f"{self.paper}:{self.name}"

    def solver_class(self):
        module, cls = self.impl.split(":")
        return getattr(importlib.import_module(module), cls)

    @property
    def host_preprocessing(self) -> bool:
        """Whether the method first builds something per graph on the host (seconds and more, not
        timed; e.g. PHAST's contraction hierarchy): Solver.host_preprocessing, False for the rest."""
        return getattr(self.solver_class(), "host_preprocessing", False)

    @property
    def vertex_0_by_default(self) -> bool:
        """Whether the solver, given no sources, solves vertex 0 only (the papers' SSSP)."""
        return getattr(self.solver_class(), "vertex_0_by_default", False)

    @property
    def on_generated_graphs(self) -> bool:
        """Whether sweeps over generated graphs time this method: GPU methods without a per-graph
        host preprocessing (each generated graph would pay it per call)."""
        return self.gpu and not self.host_preprocessing

    def make(self, graph, sources=None, **params):
        """Instantiate the solver with the method's fixed params plus ``params``."""
        merged = dict(self.params)
        merged.update(params)
        return self.solver_class()(graph, sources=sources, **merged)


def _paper_methods(paper: str) -> list[Method]:
    try:
        module = importlib.import_module(f"apsp_kernels.papers.{paper}")
    except ModuleNotFoundError as exc:
        if exc.name == f"apsp_kernels.papers.{paper}":
            return []
        raise
    return list(module.METHODS)


def methods(paper: str | None = None) -> list[Method]:
    """All registered methods (the papers' and the fast paths), or those of one group."""
    papers = GROUPS if paper is None else (paper,)
    return [m for p in papers for m in _paper_methods(p)]


def get(paper: str, name: str) -> Method:
    """The method ``name`` of ``paper``; the error lists what exists."""
    for m in _paper_methods(paper):
        if m.name == name:
            return m
    known = ", ".join(m.name for m in _paper_methods(paper)) or "none"
    raise KeyError(f"no method {name!r} for paper {paper!r}; known: {known}")
