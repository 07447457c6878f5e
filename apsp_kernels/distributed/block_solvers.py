"""Block solvers: the multi-source method a worker runs on one block of sources.

Each returns ``(dist, inf, stats)``: ``dist`` a (len(sources), n) array on the worker's
device (cupy on GPU workers, numpy on CPU workers), ``inf`` the value at and above which an
entry means unreachable. Keys:

* ``fast:phast_batched``: batched PHAST (``apsp_kernels.sssp_hierarchy.phast_batched``, K trees
  per sweep over a contraction hierarchy), the default on GPU workers for road-like graphs: the
  client contracts the graph once (:func:`prepare`), the hierarchy travels with the shared graph;
* ``fast:multi_source``: ``apsp_kernels.multi_source.multi_source_distances`` (batched
  K-source SSSP), used on GPU workers for the other graphs when it imports;
* ``okuyama:task_parallel_shared_tuned`` (or any registry key of a per-source Solver): the
  Solver lifecycle, ``Solution.rows(device=True)``; the GPU fallback;
* ``scipy:dijkstra``: SciPy's Dijkstra on the host, the block solver of CPU workers;
* a callable ``f(graph, sources, host_matrix) -> (dist, inf, stats)`` (picklable): ``graph``
  is the worker's copy (CSR on the device on GPU workers), ``host_matrix`` a SciPy CSR on CPU
  workers, else None.
"""
from __future__ import annotations

import importlib

import numpy as np

from .. import registry
from ..errors import InputError

MULTI_SOURCE = "fast:multi_source"
PHAST = "fast:phast_batched"
PHAST_MIN_N = 4096  # below this a hierarchy does not pay for itself in an all-sources run
# sources per block when all_sources is not told (block_size=None): PHAST's sweeps run best at
# their widest, 16384 columns (a tree of NY 3.1 us against 3.8 at 8192 on an H100, per_tree.csv in
# results/scale/phast); else the largest that fits (runner.default_block_size)
DEFAULT_BLOCK = {PHAST: 16384}
# sources per block of PHAST reduced in place (no rows kept), where they fit: fewer, wider blocks
# share a block's fixed costs and the gaps between tasks (continent_block_size in results/paper/scale)
IN_PLACE_BLOCK = 65536
SMALLEST_DEFAULT_BLOCK = 1024
FALLBACK_GPU = "okuyama:task_parallel_shared_tuned"
SCIPY = "scipy:dijkstra"
CPU_KEYS = (SCIPY,)


def multi_source_function():
    """``multi_source_distances`` when the module exists, else None."""
    try:
        module = importlib.import_module("apsp_kernels.multi_source")
    except ImportError:
        return None
    return getattr(module, "multi_source_distances", None)


def default_key(on_gpu: bool, graph=None) -> str:
    """SciPy on CPU workers; on GPU workers batched PHAST for a road-like ``graph``, else the
    multi-source pull (or the Solver fallback when it does not import)."""
    if not on_gpu:
        return SCIPY
    if graph is not None and graph.n >= PHAST_MIN_N:
        from ..sssp_hierarchy.phast_batched import suits
        if suits(graph):
            return PHAST
    return MULTI_SOURCE if multi_source_function() is not None else FALLBACK_GPU


def prepare(key: str, graph, chosen_by_default: bool) -> tuple[str, float]:
    """(key, host seconds of preprocessing): PHAST's hierarchy contracted once on the client and
    kept on the Graph, so that the graph shared with the workers carries it. A graph far from
    road-like falls back to the default multi-source key when PHAST was only the default."""
    if key != PHAST:
        return key, 0.0
    from ..sssp_hierarchy.layout import hierarchy_of
    try:
        return key, hierarchy_of(graph)[1]
    except InputError:
        if not chosen_by_default:
            raise
        return (MULTI_SOURCE if multi_source_function() is not None else FALLBACK_GPU), 0.0


def check_key(key: str, on_gpu: bool) -> str:
    """``key`` if a worker of that kind can run it; InputError naming the choices otherwise."""
    if callable(key):
        return key
    if not isinstance(key, str):
        raise InputError(f"block solver must be a registry key such as {FALLBACK_GPU!r}, or a "
                         f"callable; got {key!r}")
    if key in CPU_KEYS:
        return key
    if not on_gpu:
        raise InputError(f"block solver {key!r} needs GPU workers, but the cluster's workers have "
                         f"no GPU; use {SCIPY!r} (or block_solver=None for the default)")
    if key == MULTI_SOURCE:
        if multi_source_function() is None:
            raise InputError(f"{MULTI_SOURCE!r} is not installed (apsp_kernels.multi_source); use "
                             f"{FALLBACK_GPU!r}")
        return key
    paper, _, name = key.partition(":")
    try:
        method = registry.get(paper, name)
    except KeyError as exc:
        raise InputError(f"unknown block solver {key!r}: {exc.args[0]}; or {MULTI_SOURCE!r}, "
                         f"{SCIPY!r}") from None
    if not method.gpu or method.solver_class().all_pairs:
        raise InputError(f"block solver {key!r} must be a GPU method that solves the sources it is "
                         f"given (not an all-pairs kernel)")
    return key


def solve(key: str, graph, sources: np.ndarray, host_matrix=None):
    """Distances from ``sources`` on the worker's device: ``(dist, inf, stats)``."""
    if callable(key):
        return key(graph, sources, host_matrix)
    if key == SCIPY:
        from scipy.sparse import csgraph
        matrix = graph.to_scipy() if host_matrix is None else host_matrix
        return csgraph.dijkstra(matrix, directed=True, indices=sources), np.inf, {}
    if key == MULTI_SOURCE:
        stats: dict = {}
        return multi_source_function()(graph, sources, stats=stats), graph.inf, stats
    if key == PHAST:
        from ..sssp_hierarchy.phast_batched import multi_source_distances
        stats = {}
        return multi_source_distances(graph, sources, stats=stats), graph.inf, stats
    paper, _, name = key.partition(":")
    solver = registry.get(paper, name).make(graph, sources=sources)
    solution = solver.solve_once(f"block solver {key} on {len(sources)} sources")
    return solution.rows(device=True), np.inf, dict(solver.stats)


def reduces_in_place(key, on_gpu: bool, store: bool, keeps_sums: bool) -> bool:
    """Whether a block reduces batched PHAST's working matrix in place (:mod:`.sweep_reductions`):
    PHAST on a GPU worker, reductions kept on the worker, no rows to store."""
    return key == PHAST and on_gpu and not store and keeps_sums


def block_bytes(key: str, n: int, sources: int, itemsize: int, store: bool = True, in_place: bool = False) -> int:
    """Device bytes one block needs at most: the rows, and their float64 copy when they go to a
    ``store`` (the reductions read the rows in place); PHAST adds its vertex-major working matrix
    and the stamps and buckets of its groups, and has no rows when it reduces ``in_place`` (:func:`reduces_in_place`)."""
    if in_place:
        from .sweep_reductions import bytes_needed
        return bytes_needed(n, sources, itemsize)
    total = sources * n * (itemsize + (8 if store else 0))
    if key == PHAST:
        from ..sssp_hierarchy.phast_batched import group_bytes
        total += sources * n * itemsize + -(-sources // 32) * group_bytes(n)
    return total
