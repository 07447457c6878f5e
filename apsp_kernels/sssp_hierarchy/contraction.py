"""A contraction hierarchy without witness searches, and the level order the sweeps follow.

Vertices are contracted by fewest arcs plus level (in rounds of local minima, or one at a time
from a lazy heap; the level term keeps the hierarchy shallow: in heap order USA-road-d.NY gets
397 levels instead of 767, a path 13 instead of n):
contracting ``v`` adds, for every in-neighbour ``u`` and out-neighbour ``w`` still present, the
shortcut ``u -> w`` weighing
``w(u, v) + w(v, w)`` (kept when lighter than the arc already there). Without witness searches
every path through ``v`` keeps a shortcut, so the hierarchy is exact for any non-negative
weights: each shortest path has an equally short one that climbs to its highest vertex and then
descends (Gaussian elimination in the (min,+) semiring). ``level[v]`` is one more than the
highest level among the neighbours contracted before ``v``; every arc joins two levels, so a
level's vertices are independent and each level is one parallel step of PHAST's sweeps (Delling,
Goldberg, Nowatzyk, Werneck, "PHAST: Hardware-accelerated shortest path trees", IPDPS 2011).
On the host, once per graph, in numba: in parallel rounds of independent vertices (:mod:`.rounds`,
the default; USA-road-d.NY: 1.98 M shortcuts, 373 levels) or one vertex at a time in heap order
(:mod:`.elimination`, ``parallel=False``; NY: 1.89 M shortcuts, 397 levels).
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..graph import Graph
from ..host import max_threads, numba_threads

MAX_SHORTCUTS_PER_ARC = 8  # beyond this the graph is not road-like: contraction would not pay
# the rounds (.rounds), NY on the 32 cores of a 2 x H100 host (experiments.contraction_time, best of 3):
# 0.31 s against the heap order's 1.93 s; on one thread 2.49 s against 2.10 s
PARALLEL = True
# threads at most: NY on a 64-core 4 x H100 host took 0.277 s on 32 threads against 0.318 s on 64 (BAY
# 0.18 against 0.24 s); the rounds' many short parallel regions each wait for their slowest thread, and on
# every core of a host busy with other work, or freshly started, NY took 14-37 s instead of 0.3-0.4 s (a
# fresh process also compiled the contraction inside that time: see COMPILE_SECONDS)
MAX_THREADS = 32
# seconds numba took to compile the contraction, per (weight dtype, parallel), in this process: 40.9 s on a
# 2-core host with a cold on-disk cache (a fresh install or machine), 0.38 s loading a warm one. cross_paper
# read 14.4 s (H200) and 57.1 s (H100) for NY's contraction, its first in the process, with the compile
# inside; :func:`compile_for` keeps it out of the contraction's time
COMPILE_SECONDS: dict[tuple[str, bool], float] = {}
# seconds a cold compile of the contraction takes, shown before it starts (a weight kind, integer or float,
# compiles every function; float32 after float64 only by_level's, 5 s): 45.2 s (int32) and 44.6 s (float64)
# on a 32-core H200 host with empty caches (results/library/records_first_call.csv, the precompile's row);
# 41 s on a 2-core host. Compiling fewer functions parallel=True does not pay: without any, 25 s of CPU
# against 43 s, but NY's contraction runs 2.5 s on one thread against 0.3 s on 32
COLD_COMPILE_SECONDS = 45.0


def threads() -> int:
    """The numba threads :func:`contract` runs on: the cores this process may use, at most
    ``MAX_THREADS`` (and NUMBA_NUM_THREADS)."""
    return min(MAX_THREADS, max_threads())


def compile_for(dtype, parallel: bool | None = None) -> float:
    """Compile (numba) the contraction for weights of ``dtype``, by contracting a 4-cycle, once per
    process; the seconds it took now (0 once compiled). Kept in :data:`COMPILE_SECONDS`. Where
    numba's on-disk cache lacks it (a fresh install or machine), a :class:`OneTimeCompile` warning
    says so first, with the expected seconds and the cache folder."""
    key = _compile_key(dtype, parallel)
    if key in COMPILE_SECONDS:
        return 0.0
    if not compiled_on_disk(dtype, parallel):
        from ..numba_cache import OneTimeCompile  # numba imports on first use, not with the package
        warnings.warn(compile_notice(dtype, parallel), OneTimeCompile, stacklevel=2)
    ring = Graph(4, np.arange(0, 9, 2, dtype=np.int32),
                 np.array([1, 3, 0, 2, 1, 3, 0, 2], dtype=np.int32), np.ones(8, dtype=np.dtype(dtype)),
                 name="4-cycle")
    start = time.perf_counter()
    contract(ring, parallel=key[1])
    COMPILE_SECONDS[key] = time.perf_counter() - start
    return COMPILE_SECONDS[key]


def entry_points(dtype, parallel: bool | None = None) -> list[tuple]:
    """(numba dispatcher, argument types) of the contraction's two top-level calls for a graph of
    weight ``dtype`` (as :func:`_contract` makes them; every other function is compiled inside them)."""
    from numba import from_dtype, types

    from . import elimination, rounds

    def array(kind):
        return types.Array(from_dtype(np.dtype(kind)), 1, "C")
    i64, exact = types.int64, (np.int64 if np.issubdtype(np.dtype(dtype), np.integer) else np.float64)
    arcs = (array(np.int64), array(np.int64), array(exact))
    if _compile_key(dtype, parallel)[1]:
        first = (rounds.eliminate_in_rounds, (i64, *arcs, i64, i64))
    else:
        first = (elimination.eliminate, (i64, *arcs, i64))
    return [first, (elimination.by_level, (i64, array(np.int64), array(np.int64), *arcs, array(dtype)))]


def compiled_on_disk(dtype, parallel: bool | None = None) -> bool:
    """Whether the contraction for ``dtype`` needs no compile here: compiled in this process or
    in numba's on-disk cache (:func:`apsp_kernels.numba_cache.is_cached`)."""
    from ..numba_cache import is_cached
    return all(is_cached(dispatcher, argtypes) for dispatcher, argtypes in entry_points(dtype, parallel))


def compile_notice(dtype, parallel: bool | None = None) -> str:
    """What :func:`compile_for` says before a cold compile."""
    from ..numba_cache import cache_path
    dispatcher = entry_points(dtype, parallel)[0][0]
    return (f"apsp_kernels: compiling the road-network contraction for {np.dtype(dtype).name} weights on this "
            f"machine (one time, about {COLD_COMPILE_SECONDS:.0f} s; cached in {cache_path(dispatcher)}); "
            "`python -m apsp_kernels.precompile` does it ahead, at install")


def compile_seconds(dtype, parallel: bool | None = None) -> float:
    """What :func:`compile_for` took in this process for ``dtype`` (0 when it has not run)."""
    return COMPILE_SECONDS.get(_compile_key(dtype, parallel), 0.0)


def _compile_key(dtype, parallel: bool | None) -> tuple[str, bool]:
    return np.dtype(dtype).str, bool(PARALLEL if parallel is None else parallel)


@dataclass
class Hierarchy:
    """The graph renumbered by level (``order[new] = old``, ``rank[old] = new``), its arcs
    (original and shortcuts) as in-arc CSRs by target, split into arcs from lower levels (``up``,
    the upward sweep) and from higher ones (``down``), and ``level_ptr`` (a level's vertices are
    ``level_ptr[l] : level_ptr[l + 1]`` in the new numbering)."""

    order: np.ndarray
    rank: np.ndarray
    level_ptr: np.ndarray
    up: tuple        # (indptr, sources, weights) of the in-arcs from lower levels, new numbering
    down: tuple      # the same from higher levels
    shortcuts: int

    @property
    def levels(self) -> int:
        return len(self.level_ptr) - 1


def contract(graph, max_shortcuts_per_arc: int = MAX_SHORTCUTS_PER_ARC, parallel: bool | None = None,
             n_threads: int | None = None) -> Hierarchy:
    """The hierarchy of ``graph`` (non-negative weights); InputError when contraction would add
    more than ``max_shortcuts_per_arc`` shortcuts per arc (a graph far from road-like).
    ``parallel``: contract in parallel rounds (:mod:`.rounds`) instead of one vertex at a time
    in heap order (:mod:`.elimination`); None: ``PARALLEL``. Both are exact and deterministic
    (the same hierarchy on any number of threads); their orders, levels and shortcuts differ.
    ``n_threads``: numba threads of the parallel parts; None: :func:`threads`."""
    with numba_threads(n_threads or threads()):
        return _contract(graph, max_shortcuts_per_arc, parallel)


def _contract(graph, max_shortcuts_per_arc: int, parallel: bool | None) -> Hierarchy:
    from .elimination import by_level, eliminate  # numba: compiled on first use, cached on disk

    n = graph.n
    graph.require_nonnegative("contraction hierarchy")
    exact = np.int64 if np.issubdtype(graph.dtype, np.integer) else np.float64
    limit = max_shortcuts_per_arc * max(graph.m, 1) + 1024
    arcs = (np.asarray(graph.sources_of_arcs, dtype=np.int64), np.asarray(graph.indices, dtype=np.int64),
            np.asarray(graph.weights, dtype=exact))
    if PARALLEL if parallel is None else parallel:
        from . import rounds
        level, emitted, tail, head, weight, shortcuts, _ = rounds.eliminate_in_rounds(n, *arcs, limit,
                                                                                      rounds.ROUND_PAIRS)
    else:
        level, emitted, tail, head, weight, shortcuts = eliminate(n, *arcs, limit)
    if shortcuts < 0:
        raise InputError(f"contraction hierarchy: more than {max_shortcuts_per_arc} shortcuts per arc "
                         f"on {graph.name} (n = {n}, m = {graph.m}); it suits road-like graphs; use "
                         f"fast:sssp_worklist or okuyama's methods here")
    order, rank, level_ptr, up, down = by_level(n, level, emitted, tail, head, weight,
                                                np.zeros(0, dtype=graph.dtype))
    return Hierarchy(order=order, rank=rank, level_ptr=level_ptr, up=up, down=down, shortcuts=int(shortcuts))


def sweep_on_host(h: Hierarchy, source: int, inf) -> np.ndarray:
    """PHAST's two sweeps level by level with NumPy (the GPU kernels' reference): distances from
    ``source`` in the original numbering, ``inf`` where unreachable."""
    n = len(h.order)
    d = np.full(n, inf, dtype=h.up[2].dtype)
    d[h.rank[source]] = 0
    for levels, (indptr, srcs, wts) in ((range(h.levels), h.up), (range(h.levels - 1, -1, -1), h.down)):
        for lv in levels:
            lo, hi = h.level_ptr[lv], h.level_ptr[lv + 1]
            a, b = indptr[lo], indptr[hi]
            if a == b:
                continue
            du = d[srcs[a:b]]
            cand = np.where(du < inf, du + wts[a:b], inf)
            owner = np.repeat(np.arange(lo, hi), np.diff(indptr[lo:hi + 1]))
            np.minimum.at(d, owner, cand.astype(d.dtype))
    return d[h.rank]
