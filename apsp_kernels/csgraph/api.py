"""``shortest_path`` and friends with ``scipy.sparse.csgraph``'s signatures and return conventions.

Distances are float64 with np.inf for unreachable, shape ``indices.shape + (n,)`` (``(n,)`` for
an int ``indices``, ``(n, n)`` without); predecessors int32 of the same shape with -9999 where
there is none; a negative cycle raises :class:`~apsp_kernels.errors.NegativeCycleError` (also
SciPy's). NumPy and SciPy input gives NumPy output; CuPy and cupyx.scipy.sparse input gives
CuPy output and stays on the device. Input conventions: :mod:`apsp_kernels.csgraph.inputs`.

Negative weights: ``dijkstra`` and ``method="D"`` warn with SciPy's words (a UserWarning
starting "Graph has negative weights"), then run Johnson's algorithm, so the distances are exact
and a negative cycle that a source reaches raises NegativeCycleError (SciPy's Dijkstra would go on). ``"auto"`` picks
``"BF"`` or ``"J"``.

Predecessors form a shortest-path tree and are the same run to run. Ties (several in-neighbours
``u`` of ``v`` with ``d[u] + w(u, v) == d[v]``): the GPU's SSSP families (``D``, ``BF``, ``J``
and the project's SSSP families) take the smallest-numbered such ``u`` when every weight is
positive; with a zero or negative weight, the one with the fewest arcs from the source, then the
smallest-numbered (a zero-weight cycle could otherwise close). The dense families (``FW`` and
the project's) keep the ``u`` of Floyd-Warshall's last strict improvement, ``k`` ascending, as
SciPy's ``floyd_warshall`` does. Without a GPU, SciPy's own choice.

Where this differs from SciPy: a negative cycle always raises (SciPy's Dijkstra returns
inaccurate distances), ``dijkstra``'s ``limit`` cuts distances after the search (the same
answer as SciPy's for non-negative weights), ``overwrite`` writes the result into the input only
for ``floyd_warshall`` / ``method="FW"`` on a C-ordered float64 NumPy array, as SciPy, and COO,
DOK, DIA and BSR input is accepted by every method (SciPy refuses the last three).
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph as scipy_csgraph

from .. import gpu
from ..errors import GPUMemoryError, InputError, NegativeCycleError
from ..host import host_available_bytes
from ..solver import to_host
from . import auto
from .families import FAMILIES, HOST, family
from .inputs import NEGATIVE_AS_GIVEN, Prepared, prepare
from .reweighting import johnson_rows
from .paths import NO_PREDECESSOR
from .runner import run_family

_said = set()
SCIPY_FUNCTION = {"FW": "floyd_warshall", "D": "dijkstra", "BF": "bellman_ford", "J": "johnson",
                  "auto": "shortest_path(method='auto')"}
NEGATIVE_DIJKSTRA = ("Graph has negative weights: dijkstra will give inaccurate results if the graph "
                     "contains negative cycles. Consider johnson or bellman_ford.")  # SciPy 1.17's words


class HostWarning(UserWarning):
    """Said once per process: no CUDA GPU is usable, SciPy runs on the host."""


def shortest_path(csgraph, method="auto", directed=True, return_predecessors=False,
                  unweighted=False, overwrite=False, indices=None, *, dtype=None, explain=False):
    """Shortest-path distances as ``scipy.sparse.csgraph.shortest_path``, on the GPU.

    ``method``: ``"auto"`` (chosen per input from a table measured on a GPU), SciPy's ``"FW"``,
    ``"D"``, ``"BF"``, ``"J"`` (Johnson: Bellman-Ford potentials, then batched SSSPs), one of
    the project's families ``"rkleene"``, ``"rkleene_fast"``, ``"blocked_fw"``,
    ``"task_parallel"``, ``"harish"``, ``"spmv"``, ``"worklist"``, ``"multi_source"``,
    ``"phast"``, or ``"scipy"`` (SciPy itself, on the host); ``"johnson"``, ``"dijkstra"``, ``"bellman_ford"``
    and ``"floyd_warshall"`` name SciPy's four. Without a GPU every method runs its SciPy
    equivalent on the host, and ``explain`` says which. ``indices`` with ``"FW"`` raise, as in
    SciPy (the dense families ``"blocked_fw"`` and ``"rkleene"`` take them). ``explain=True``
    prints which method ran and why; a callable receives the
    :class:`~apsp_kernels.csgraph.auto.Choice` instead. Conventions, ties and negative weights:
    :mod:`apsp_kernels.csgraph.api`.

    ``dtype``: ``None`` (float weights in float64, whole numbers exact in int32 or float64),
    ``np.float64``, or ``np.float32`` to opt in to float32 kernels (about 7 digits); the
    precision contract: :mod:`apsp_kernels.csgraph.inputs`. Distances are float64 either way.
    """
    asked = _asked(method)
    if asked == "FW" and indices is not None:
        raise InputError("Cannot specify indices with method == 'FW' (as SciPy: Floyd-Warshall computes "
                         "every row); leave indices out, or use method='auto', 'D', or a dense family "
                         "that takes indices ('blocked_fw', 'rkleene')")
    prep = prepare(csgraph, directed, unweighted, dtype)
    sources, shape = _sources(indices, prep.graph.n)
    if asked == "D":
        asked = _dijkstra_on_negative_weights(prep, asked, unweighted)
    dist, pred = _solve(prep, asked, sources, return_predecessors, explain, method)
    if overwrite and asked == "FW":
        dist = _overwrite(csgraph, dist)
    return _result(dist, pred, shape, return_predecessors)


def dijkstra(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False,
             limit=np.inf, min_only=False, *, method="D", dtype=None, explain=False):
    """As ``scipy.sparse.csgraph.dijkstra`` (``limit``, ``min_only`` included). Negative weights:
    SciPy's warning, then Johnson's algorithm (exact; a negative cycle raises)."""
    asked = _asked(method)
    if not limit >= 0:
        raise InputError(f"limit must be >= 0, got {limit!r}")
    prep = prepare(csgraph, directed, unweighted, dtype)
    sources, shape = _sources(indices, prep.graph.n)
    if min_only and not len(sources):
        raise InputError("min_only needs at least one source in indices, got none")
    asked = _dijkstra_on_negative_weights(prep, asked, unweighted)
    dist, pred = _solve(prep, asked, sources, return_predecessors or min_only, explain, method)
    if limit != np.inf:
        beyond = dist > limit
        dist[beyond] = np.inf
        if pred is not None:
            pred[beyond] = NO_PREDECESSOR
    if min_only:
        return _min_only(dist, pred, sources, return_predecessors)
    return _result(dist, pred, shape, return_predecessors)


def bellman_ford(csgraph, directed=True, indices=None, return_predecessors=False,
                 unweighted=False, *, method="BF", dtype=None, explain=False):
    """As ``scipy.sparse.csgraph.bellman_ford``: negative weights allowed; a negative cycle that
    a source reaches raises NegativeCycleError."""
    return shortest_path(csgraph, method, directed, return_predecessors, unweighted,
                         indices=indices, dtype=dtype, explain=explain)


def johnson(csgraph, directed=True, indices=None, return_predecessors=False,
            unweighted=False, *, method="J", dtype=None, explain=False):
    """As ``scipy.sparse.csgraph.johnson``: on the GPU, Bellman-Ford potentials then the
    reweighted graph's batched SSSPs (:mod:`apsp_kernels.csgraph.reweighting`); without a GPU,
    SciPy's ``johnson``. A negative cycle anywhere raises NegativeCycleError, as SciPy's."""
    return shortest_path(csgraph, method, directed, return_predecessors, unweighted,
                         indices=indices, dtype=dtype, explain=explain)


def floyd_warshall(csgraph, directed=True, return_predecessors=False, unweighted=False,
                   overwrite=False, *, method="FW", dtype=None, explain=False):
    """As ``scipy.sparse.csgraph.floyd_warshall``: all pairs on the dense matrix."""
    return shortest_path(csgraph, method, directed, return_predecessors, unweighted, overwrite,
                         dtype=dtype, explain=explain)


# ----------------------------------------------------------------------------- internals
def _asked(method) -> str:
    """``"auto"``, ``"scipy"`` or a family's name; ValueError listing the names for any other."""
    if method == "auto":
        return "auto"
    fam = family(method) if isinstance(method, str) else family(repr(method))
    return HOST if fam is None else fam.name


def _sources(indices, n: int) -> tuple[np.ndarray, tuple]:
    """The sources, flat int32, and the shape of the result (``indices.shape + (n,)``)."""
    if indices is None:
        return np.arange(n, dtype=np.int32), (n, n)
    what = f"{indices!r} ({type(indices).__name__})"
    if np.ma.is_masked(indices):
        raise InputError(f"indices must be ints, got masked values {what}")
    idx = np.asarray(to_host(indices))
    if idx.dtype.kind == "b":
        raise InputError(f"indices are vertex ids (ints), got booleans {what}; for a mask pass "
                         f"np.flatnonzero(mask)")
    if idx.dtype.kind not in "iuf":
        raise InputError(f"indices must be an int or an array of ints (any shape), got {what}")
    if idx.dtype.kind == "f" and idx.size and not bool((np.isfinite(idx) & (idx == np.round(idx))).all()):
        raise InputError(f"indices must be whole numbers (vertex ids), got {what}")
    flat = idx.reshape(-1)
    bad = np.flatnonzero((flat < -n) | (flat >= n))
    if bad.size:
        at = "" if idx.ndim == 0 else f"indices[{', '.join(map(str, np.unravel_index(bad[0], idx.shape)))}] = "
        raise InputError(f"index out of range: {at}{flat[bad[0]]:g} for a graph of {n} vertices "
                         f"(valid: 0..{n - 1}, or -{n}..-1 counting from the end)")
    flat = flat.astype(np.int64)
    return np.where(flat < 0, flat + n, flat).astype(np.int32), idx.shape + (n,)


def _dijkstra_on_negative_weights(prep: Prepared, asked: str, unweighted: bool = False) -> str:
    """SciPy's warning for Dijkstra with a negative weight; Johnson runs instead of ``"D"``.
    ``unweighted``: the weights do not count, but SciPy warns for a negative edge as given (a dense
    entry within 1e-8 of 0 is no edge) all the same, and so does this."""
    if unweighted:
        if prep.graph.meta.get(NEGATIVE_AS_GIVEN):
            warnings.warn(NEGATIVE_DIJKSTRA, UserWarning, stacklevel=3)
        return asked
    if not prep.graph.has_negative_weights:
        return asked
    warnings.warn(NEGATIVE_DIJKSTRA + " apsp_kernels runs Johnson's algorithm instead: exact "
                  "distances, and a negative cycle that a source reaches raises NegativeCycleError.",
                  UserWarning, stacklevel=3)
    return "J" if asked == "D" else asked


def say_once(key: str, text: str, category=HostWarning) -> None:
    """``text`` as a warning once per process and ``key`` (the host notes of shortest_path and the centralities)."""
    if key not in _said:
        _said.add(key)
        warnings.warn(text, category, stacklevel=4)


def _solve(prep: Prepared, asked: str, sources, predecessors: bool, explain, given="auto"):
    g = prep.graph
    _check_output_memory(prep, len(sources), predecessors)
    choice = auto.choose(g, len(sources), predecessors)
    choice.asked = given if isinstance(given, str) else repr(given)
    swapped = asked == "J" and given not in ("J", "johnson")
    on_gpu = gpu.available()
    if not on_gpu:
        say_once("host", f"apsp_kernels: {choice.reason}")
    order = [c[0] for c in choice.candidates] + ([] if prep.device else [HOST])
    if asked == HOST:
        order = [HOST]
    elif asked != "auto" and on_gpu:
        choice.reason = "asked for"
        order = [asked] + [name for name in order if name != asked]  # then auto's order, if it refuses
    refusals = []
    for name in order:
        try:
            if name == HOST:
                result, ran = _run_host(prep, sources, predecessors, asked if not swapped else "D")
            else:
                result = _run_gpu(name, prep, sources, predecessors, anywhere=asked == "J" and not swapped)
        except NegativeCycleError:
            raise
        except (InputError, GPUMemoryError) as exc:
            refusals.append(f"{name}: {exc}")
            continue
        choice.family = name
        if name == HOST:
            why = "no CUDA GPU on this machine" if not on_gpu else (
                "asked for" if asked == HOST else "no GPU family took this input")
            choice.reason = f"{why}: ran SciPy's {ran} on the host"
        if swapped:
            choice.reason = f"a negative weight, so Johnson's algorithm instead of Dijkstra's; {choice.reason}"
        if refusals:
            choice.reason += "; refused first: " + "; ".join(refusals)
        _explain(explain, choice)
        return result
    raise InputError(f"no method could take this input ({'; '.join(refusals)})")


def _explain(explain, choice) -> None:
    if callable(explain):
        explain(choice)
    elif explain:
        print(choice)


def _run_gpu(name: str, prep: Prepared, sources, predecessors: bool, anywhere: bool):
    g = prep.graph
    if name == "J":
        return johnson_rows(g, prep.device, sources, predecessors, anywhere)
    return run_family(FAMILIES[name], g, prep.device, sources, predecessors)


def _scipy_method(asked: str, negative: bool, every: bool) -> str:
    """SciPy's method for what was asked: the same algorithm, or the nearest SciPy has. With a
    negative weight, "J" stands for Johnson where the sources reach (see :func:`_run_host`)."""
    if asked in ("BF", "J"):
        return asked
    if asked == "FW" or (asked in FAMILIES and FAMILIES[asked].all_pairs and every):
        return "FW" if every else ("J" if negative else "D")
    if asked in ("auto", HOST):
        return "J" if negative else "auto"
    return "J" if negative else "D"


def _run_host(prep: Prepared, sources, predecessors: bool, asked: str):
    """SciPy on the host: ``((dist, pred), name of the SciPy function that ran)``. With negative
    weights, every method but an explicit ``"J"`` (SciPy's johnson: a negative cycle anywhere
    raises) runs johnson on the part of the graph the sources reach, so that, as on the GPU and
    in Bellman-Ford, only a negative cycle that a source reaches raises."""
    a = prep.host_matrix()
    every = len(sources) == a.shape[0] and np.array_equal(sources, np.arange(len(sources)))
    negative = prep.graph.has_negative_weights
    method = _scipy_method(asked, negative, every)
    keep = _reached(a, sources) if negative and method == "J" and asked != "J" and not every else None
    try:
        if keep is not None:
            out = _on_subgraph(a, keep, sources, predecessors)
        else:
            out = scipy_csgraph.shortest_path(a, method=method, directed=True,
                                              indices=None if every else sources,
                                              return_predecessors=predecessors)
    except scipy_csgraph.NegativeCycleError as exc:
        raise NegativeCycleError(str(exc)) from None
    dist, pred = out if predecessors else (out, None)
    pred = None if pred is None else np.atleast_2d(pred).astype(np.int32)
    name = SCIPY_FUNCTION[method] + (" on the vertices the sources reach" if keep is not None else "")
    return (np.atleast_2d(dist), pred), name


def _reached(a, sources) -> np.ndarray:
    """The vertices that ``sources`` reach in the CSR matrix ``a`` (one breadth-first search)."""
    n = a.shape[0]
    reach = np.zeros(n, dtype=bool)
    if len(sources):
        start = np.unique(sources)  # a virtual vertex n with an arc to each source; ones keep zero-weight arcs
        indptr = np.r_[a.indptr, a.indptr[-1] + len(start)]
        joined = sp.csr_matrix((np.ones(len(indptr) and indptr[-1]), np.r_[a.indices, start], indptr),
                               shape=(n + 1, n + 1))
        reach[scipy_csgraph.breadth_first_order(joined, n, return_predecessors=False)[1:]] = True
    return reach


def _on_subgraph(a, keep, sources, predecessors: bool):
    """SciPy's johnson on the vertices ``keep``, its rows laid out on all vertices."""
    ids = np.flatnonzero(keep)
    local = np.searchsorted(ids, sources)
    out = scipy_csgraph.johnson(a[ids][:, ids], directed=True, indices=local,
                                return_predecessors=predecessors)
    sub_dist, sub_pred = out if predecessors else (out, None)
    dist = np.full((len(sources), a.shape[0]), np.inf)
    dist[:, ids] = sub_dist
    if not predecessors:
        return dist
    pred = np.full(dist.shape, NO_PREDECESSOR, dtype=np.int32)
    pred[:, ids] = np.where(sub_pred >= 0, ids[np.maximum(sub_pred, 0)], NO_PREDECESSOR)
    return dist, pred


def _check_output_memory(prep: Prepared, k: int, predecessors: bool) -> None:
    n = prep.graph.n
    nbytes = k * n * (8 + 4 * predecessors)
    where = "GPU" if prep.device else "host"
    free = gpu.free_bytes() if prep.device else (host_available_bytes() or 1 << 62)
    if nbytes > 0.9 * free:
        raise InputError(f"the result ({k:,} x {n:,} distances{' and predecessors' if predecessors else ''}) "
                         f"needs {nbytes:,} bytes of {where} memory but {free:,} are free; ask for "
                         f"fewer rows at a time with indices= (e.g. batches of "
                         f"{max(1, int(0.5 * free // (n * (8 + 4 * predecessors)))):,} sources)")


def _overwrite(csgraph, dist):
    """SciPy's ``overwrite=True``: the result written into a C-ordered float64 NumPy input."""
    if isinstance(csgraph, np.ndarray) and csgraph.dtype == np.float64 and csgraph.flags.c_contiguous \
            and csgraph.flags.writeable and isinstance(dist, np.ndarray) and csgraph.shape == dist.shape:
        csgraph[...] = dist
        return csgraph
    return dist


def _result(dist, pred, shape: tuple, return_predecessors: bool):
    if dist.shape != shape:
        dist = dist.reshape(shape)
        pred = None if pred is None else pred.reshape(shape)
    return (dist, pred) if return_predecessors else dist


def _min_only(dist, pred, sources, return_predecessors: bool):
    """SciPy's ``min_only``: per vertex the nearest source (the first in ``indices`` at a tie)."""
    xp = np if isinstance(dist, np.ndarray) else gpu.cupy()
    best = xp.argmin(dist, axis=0)
    cols = xp.arange(dist.shape[1])
    d = dist[best, cols]
    if not return_predecessors:
        return d
    p = pred[best, cols]
    origin = xp.asarray(sources)[best].astype(np.int32)
    origin[~xp.isfinite(d)] = NO_PREDECESSOR
    return d, p, origin
