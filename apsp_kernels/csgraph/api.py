"""``shortest_path`` and friends with ``scipy.sparse.csgraph``'s signatures and return conventions.

Distances are float64 with np.inf for unreachable, shape ``(len(indices), n)`` (``(n,)`` for an
int ``indices``); predecessors int32 with -9999 where there is none; a negative cycle raises
:class:`~apsp_kernels.errors.NegativeCycleError` (also SciPy's). NumPy and SciPy input gives
NumPy output; CuPy and cupyx.scipy.sparse input gives CuPy output and stays on the device.
Input conventions: :mod:`apsp_kernels.csgraph.inputs`. Where this differs from SciPy:
``dijkstra`` refuses negative weights (SciPy warns and may be wrong), a negative self loop is
always a negative cycle, ``overwrite`` is accepted and ignored, and COO input is accepted by
every method.
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy.sparse import csgraph as scipy_csgraph

from .. import gpu
from ..errors import GPUMemoryError, InputError, NegativeCycleError
from ..host import host_available_bytes
from ..solver import to_host
from . import auto
from .families import HOST, family
from .inputs import Prepared, prepare
from .paths import NO_PREDECESSOR

_said = set()


def shortest_path(csgraph, method="auto", directed=True, return_predecessors=False,
                  unweighted=False, overwrite=False, indices=None, *, dtype=None, explain=False):
    """Shortest-path distances as ``scipy.sparse.csgraph.shortest_path``, on the GPU.

    ``method``: ``"auto"`` (chosen per input from a table measured on a GPU), SciPy's ``"FW"``,
    ``"D"``, ``"BF"``, ``"J"`` (runs BF: the same answers), or one of the project's families
    ``"rkleene"``, ``"rkleene_fast"``, ``"blocked_fw"``, ``"task_parallel"``, ``"harish"``,
    ``"spmv"``, ``"worklist"``, ``"multi_source"``, or ``"scipy"`` (SciPy itself, on the host). ``explain=True`` prints which method ran and why;
    a callable receives the :class:`~apsp_kernels.csgraph.auto.Choice` instead.

    ``dtype``: ``None`` (float weights in float64, whole numbers exact in int32 or float64),
    ``np.float64``, or ``np.float32`` to opt in to float32 kernels (about 7 digits); the
    precision contract: :mod:`apsp_kernels.csgraph.inputs`. Distances are float64 either way.
    """
    prep = prepare(csgraph, directed, unweighted, dtype)
    sources, scalar = _sources(indices, prep.graph.n)
    dist, pred = _solve(prep, method, sources, return_predecessors, explain)
    return _result(dist, pred, scalar, return_predecessors)


def dijkstra(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False,
             limit=np.inf, min_only=False, *, method="D", dtype=None, explain=False):
    """As ``scipy.sparse.csgraph.dijkstra`` (``limit``, ``min_only`` included); non-negative weights.
    ``dtype``: as :func:`shortest_path`."""
    prep = prepare(csgraph, directed, unweighted, dtype)
    if prep.graph.has_negative_weights:
        raise InputError("dijkstra needs non-negative weights (it would give wrong distances); "
                         "use bellman_ford, or shortest_path(method='BF')")
    sources, scalar = _sources(indices, prep.graph.n)
    dist, pred = _solve(prep, method, sources, return_predecessors or min_only, explain)
    if np.isfinite(limit):
        beyond = dist > limit
        dist[beyond] = np.inf
        if pred is not None:
            pred[beyond] = NO_PREDECESSOR
    if min_only:
        return _min_only(dist, pred, sources, return_predecessors)
    return _result(dist, pred, scalar, return_predecessors)


def bellman_ford(csgraph, directed=True, indices=None, return_predecessors=False,
                 unweighted=False, *, method="BF", dtype=None, explain=False):
    """As ``scipy.sparse.csgraph.bellman_ford``: negative weights allowed, negative cycles raise.
    ``dtype``: as :func:`shortest_path`."""
    return shortest_path(csgraph, method, directed, return_predecessors, unweighted,
                         indices=indices, dtype=dtype, explain=explain)


def floyd_warshall(csgraph, directed=True, return_predecessors=False, unweighted=False,
                   overwrite=False, *, method="FW", dtype=None, explain=False):
    """As ``scipy.sparse.csgraph.floyd_warshall``: all pairs on the dense matrix.
    ``dtype``: as :func:`shortest_path`."""
    return shortest_path(csgraph, method, directed, return_predecessors, unweighted, overwrite,
                         dtype=dtype, explain=explain)


# ----------------------------------------------------------------------------- internals
def _sources(indices, n: int) -> tuple[np.ndarray, bool]:
    if indices is None:
        return np.arange(n, dtype=np.int32), False
    idx = np.asarray(to_host(indices))
    if idx.ndim > 1 or (idx.size and idx.dtype.kind not in "iu"):
        raise InputError(f"indices must be an int or a 1-D array of ints, got {indices!r}")
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise InputError(f"indices out of range 0...{n - 1}: got {idx.min()}..{idx.max()}")
    return np.atleast_1d(np.where(idx < 0, idx + n, idx)).astype(np.int32), idx.ndim == 0


def _say_once(key: str, text: str, category=RuntimeWarning) -> None:
    if key not in _said:
        _said.add(key)
        warnings.warn(text, category, stacklevel=4)


def _solve(prep: Prepared, method: str, sources, predecessors: bool, explain):
    g = prep.graph
    _check_output_memory(prep, len(sources), predecessors)
    fam = None if method == "auto" else family(method)
    asked = "auto" if method == "auto" else (HOST if fam is None else fam.name)
    choice = auto.choose(g, len(sources), predecessors)
    if choice.family == HOST:
        _say_once("host", f"apsp_kernels: {choice.reason}" + ("" if asked in ("auto", HOST) else
                          f"; method={method!r} runs as SciPy's csgraph on the host"))
    order = [c[0] for c in choice.candidates] + ([] if prep.device else [HOST])
    if asked != "auto" and gpu.available():
        choice.reason = f"method={method!r} was asked for"
        order = [asked] + [name for name in order if name != asked]  # then auto's order, if it refuses
    elif asked == HOST:
        order = [HOST]
    refusals = []
    for name in order:
        try:
            result = _run_host(prep, sources, predecessors, asked) if name == HOST else \
                _run_family(family(name), prep, sources, predecessors)
        except NegativeCycleError:
            raise
        except (InputError, GPUMemoryError) as exc:
            refusals.append(f"{name}: {exc}")
            continue
        choice.family = name
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


def _run_family(fam, prep: Prepared, sources, predecessors: bool):
    g, device = prep.graph, prep.device
    method = fam.method(g.dtype, predecessors)
    if method is None:
        raise InputError(fam.refusal(g.dtype, predecessors))
    params = fam.params_for(predecessors, g.dtype)
    if fam.single_source:
        parts = [_run_method(method, g, [s], params, device) for s in sources]
        dist = _stack([p[0] for p in parts], device, g.n, np.float64)
        pred = _stack([p[1] for p in parts], device, g.n, np.int32) if predecessors else None
    else:
        dist, pred = _run_method(method, g, sources, params, device)
    return dist, (pred if predecessors else None)


def _run_method(method, g, sources, params, device: bool):
    sol = method.make(g, sources=sources, **params).solve_once(f"{method.key} on {g.n} vertices")
    return sol.rows(device=device), sol.pred_rows(device=device, none=NO_PREDECESSOR)


def _stack(parts, device: bool, n: int, dtype):
    xp = gpu.cupy() if device else np
    return xp.concatenate(parts) if parts else xp.empty((0, n), dtype=dtype)


def _run_host(prep: Prepared, sources, predecessors: bool, asked: str):
    """SciPy on the host: Bellman-Ford with negative weights (a cycle counts only where a source
    reaches it, as on the GPU), Floyd-Warshall where asked for all rows, else SciPy's "auto"."""
    a = prep.host_matrix()
    every = len(sources) == a.shape[0] and np.array_equal(sources, np.arange(len(sources)))
    if prep.graph.has_negative_weights:
        method = "BF"
    else:
        method = "FW" if asked == "FW" and every else "auto"
    try:
        out = scipy_csgraph.shortest_path(a, method=method, directed=True,
                                          indices=None if every else sources,
                                          return_predecessors=predecessors)
    except scipy_csgraph.NegativeCycleError as exc:
        raise NegativeCycleError(str(exc)) from None
    dist, pred = out if predecessors else (out, None)
    return np.atleast_2d(dist), (None if pred is None else np.atleast_2d(pred).astype(np.int32))


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


def _result(dist, pred, scalar: bool, return_predecessors: bool):
    if scalar:
        dist = dist[0]
        pred = None if pred is None else pred[0]
    return (dist, pred) if return_predecessors else dist


def _min_only(dist, pred, sources, return_predecessors: bool):
    xp = np if isinstance(dist, np.ndarray) else gpu.cupy()
    if not len(sources):
        raise InputError("min_only needs at least one source in indices")
    best = xp.argmin(dist, axis=0)
    cols = xp.arange(dist.shape[1])
    d = dist[best, cols]
    if not return_predecessors:
        return d
    p = pred[best, cols]
    origin = xp.asarray(sources)[best].astype(np.int32)
    origin[~xp.isfinite(d)] = NO_PREDECESSOR
    return d, p, origin
