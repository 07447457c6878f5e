"""okuyama's space (:mod:`apsp_kernels.experiments.okuyama`): the methods it times, their labels
and colours, and the graphs and source order every experiment draws from."""
from __future__ import annotations

import functools

import numpy as np

from .. import generators


PAPER = "okuyama"
GPU_METHODS = ("harish", "task_parallel_unshared", "task_parallel_shared",
               "task_parallel_unshared_tuned", "task_parallel_shared_tuned")
CPU_METHODS = ("dijkstra_cpu", "dijkstra_rustworkx", "dijkstra_scipy")
LABELS = {
    "harish": "Harish (SSSP-based)",
    "task_parallel_unshared": "proposed w/o shared (N=32)",
    "task_parallel_shared": "proposed (N=32)",
    "task_parallel_unshared_tuned": "proposed w/o shared, tuned N",
    "task_parallel_shared_tuned": "proposed, tuned N",
    "task_parallel_shared_paths": "proposed + path recording",
    "dijkstra_cpu": "Dijkstra, all cores (numba)",
    "dijkstra_rustworkx": "Dijkstra, all cores (rustworkx)",
    "dijkstra_scipy": "Dijkstra, 1 thread (SciPy)",
}
TABLE1_TOPOLOGIES = ("random", "power_law", "ring", "complete")
COLORS = {name: f"C{i}" for i, name in enumerate(LABELS)}  # one colour per method in every plot
STAND_INS = ("random", "rmat")  # graph names of our generators standing in for the paper's tools


@functools.lru_cache(maxsize=24)
def graph(kind: str, n: int, m: int = 0, w_max: int | None = None, seed: int = 0):
    """The experiment graphs (cached: the same object for the same arguments).

    ``random``: generators.random_digraph (Hamiltonian cycle + uniform arcs, a stand-in for
    the DIMACS generator); ``power_law``: generators.rmat (a stand-in for the paper's
    power-law graph); ``ring`` and ``complete``: w = 1, the paper's graphs. The records of
    the stand-ins say so (``stand_in``, :data:`STAND_INS`).
    """
    if kind == "random":
        return generators.random_digraph(n, m, w_max=w_max, seed=seed)
    if kind == "power_law":
        return generators.rmat(n, m, w_max=w_max, seed=seed)
    if kind == "ring":
        return generators.ring(n, w=1)
    if kind == "complete":
        return generators.complete(n, w=1)
    raise ValueError(f"unknown graph kind {kind!r}")


@functools.lru_cache(maxsize=16)
def source_order(n: int, seed: int = 0) -> np.ndarray:
    """A seeded permutation of the vertices; samples are its prefixes."""
    return np.random.default_rng(seed + 7919).permutation(n).astype(np.int32)

