"""Closeness, harmonic centrality and the distance measures, with NetworkX's definitions.

Every function takes what :func:`apsp_kernels.shortest_path` takes (NumPy dense, SciPy sparse,
CuPy and cupyx sparse matrices, :class:`~apsp_kernels.graph.Graph`; SciPy's conventions for
zeros, explicit zeros and inf, :mod:`apsp_kernels.csgraph.inputs`), ``directed=``,
``unweighted=`` and ``dtype=``, and runs the sources as :mod:`apsp_kernels.centrality.engine`
says (one GPU in this process, ``client=`` a Dask cluster, SciPy on a host without a GPU).
Per-vertex results are float64 arrays (CuPy for CuPy input), scalars Python floats, vertex sets
ascending int64 arrays. Distances are Dijkstra's: a negative weight is refused (InputError)
before anything runs, as are an empty graph and a NaN weight in sparse input.

Definitions (NetworkX 3.6's, for a directed graph; an undirected one is ``directed=False``):

* ``closeness_centrality``: over the distances *to* ``u`` from the ``r`` vertices that reach it
  (``u`` included), ``(r - 1) / sum d(v, u)``, times ``(r - 1) / (n - 1)`` with ``wf_improved``
  (the default); 0 where that sum is 0 or ``n == 1``.
* ``harmonic_centrality``: ``sum 1 / d(v, u)`` over the sources ``v`` with ``0 < d(v, u) < inf``.
* ``eccentricity``: ``max_v d(s, v)``; raises :class:`NotConnectedError` when a source does
  not reach every vertex ("Found infinite path length because the digraph is not strongly
  connected", NetworkX's words; "...the graph is not connected" with ``directed=False``).
* ``diameter`` / ``radius``: the largest / smallest eccentricity; ``periphery`` / ``center``:
  the vertices whose eccentricity equals them; ``barycenter``: the vertices with the smallest
  sum of distances to the others. All need a (strongly) connected graph.
* ``average_shortest_path_length``: the sum of every distance over ``n (n - 1)``; 0 for one
  vertex; NotConnectedError ("Graph is not strongly connected." / "Graph is not connected.").

Sums are added in 128-bit fixed point and rounded to float64 once (:mod:`apsp_kernels.distributed.fixed_sums`):
exact for whole-number distances (below ``2**53``), within 1e-12 relative of NetworkX's otherwise
(NetworkX adds in its own order), and the same bits on the host, one GPU or a cluster of any size.
Where float distances tie only up to rounding, ``center`` and friends compare the values computed
here, as NetworkX compares its own.
"""
from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import connected_components

from ..csgraph.inputs import prepare
from ..errors import InputError
from ..sssp_hierarchy.layout import host_graph
from .engine import reduce_rows
from .sums import closeness


class NotConnectedError(InputError):
    """A measure needs every vertex reachable from every source, and the graph is not so."""


def _prepared(csgraph, directed, unweighted, dtype, who: str):
    prep = prepare(csgraph, directed, unweighted, dtype)
    if prep.graph.has_negative_weights:
        raise InputError(f"{who} runs Dijkstra's algorithm, but the graph has a negative weight "
                         f"(smallest {float(prep.graph.min_weight):g}); distances would be undefined: "
                         f"pass non-negative weights, or unweighted=True for hop counts")
    return prep


def _ids(values, n: int, who: str, name: str) -> np.ndarray:
    idx = np.asarray(values.get() if hasattr(values, "get") else values)
    if idx.dtype.kind == "b" or (idx.size and idx.dtype.kind not in "iu"):
        raise InputError(f"{who}: {name} must be vertex ids (ints), got {values!r}")
    flat = idx.reshape(-1).astype(np.int64)
    if flat.size and (flat.min() < 0 or flat.max() >= n):
        bad = flat[(flat < 0) | (flat >= n)][0]
        raise InputError(f"{who}: {name} holds {bad}, outside 0..{n - 1} (a graph of {n} vertices)")
    return flat.astype(np.int32)


def _out(values, prep):
    """Per-vertex results as the input's array module (CuPy in, CuPy out)."""
    if prep.device:
        from .. import gpu
        return gpu.cupy().asarray(values)
    return values


def _directedness(prep) -> bool:
    return not prep.graph.meta.get("undirected")


def _require_connected(prep, who: str, words: tuple[str, str]) -> None:
    """NotConnectedError, before any source runs, unless every vertex reaches every other."""
    g = host_graph(prep.graph)
    if g.n > 1 and connected_components(g.to_scipy(), directed=True, connection="strong",
                                        return_labels=False) > 1:
        raise NotConnectedError(f"{who}: {words[0] if _directedness(prep) else words[1]}")


ECCENTRICITY_WORDS = ("Found infinite path length because the digraph is not strongly connected",
                      "Found infinite path length because the graph is not connected")
AVERAGE_WORDS = ("Graph is not strongly connected.", "Graph is not connected.")


def closeness_centrality(csgraph, directed=True, unweighted=False, *, wf_improved=True, indices=None,
                         dtype=None, client=None, explain=False, progress=None):
    """NetworkX's ``closeness_centrality`` of every vertex (or of ``indices``, from one search per
    vertex on the reversed graph): float64 array. See :mod:`apsp_kernels.centrality.measures`."""
    who = "closeness_centrality"
    prep = _prepared(csgraph, directed, unweighted, dtype, who)
    g = prep.graph
    if client is not None and not wf_improved:
        raise InputError(f"{who}: client= gives closeness with wf_improved=True only; run without "
                         f"client= for wf_improved=False")
    if indices is not None and client is None:
        ids = _ids(indices, g.n, who, "indices")
        sums = reduce_rows(_reversed(prep), ids, what=who, explain=explain, progress=progress)
        return _out(closeness(sums.per_source["sum_out"], sums.per_source["reach_out"], g.n, wf_improved), prep)
    sums = reduce_rows(prep, np.arange(g.n), what=who, client=client, explain=explain, progress=progress)
    value = sums.closeness_in(wf_improved)
    return _out(value if indices is None else value[_ids(indices, g.n, who, "indices")], prep)


def harmonic_centrality(csgraph, directed=True, unweighted=False, *, nbunch=None, sources=None, dtype=None,
                        client=None, explain=False, progress=None):
    """NetworkX's ``harmonic_centrality``: for each vertex of ``nbunch`` (every vertex by
    default, in that order) the sum of ``1 / d(v, u)`` over the ``sources`` ``v`` (every vertex
    by default) with ``0 < d(v, u) < inf``: float64 array."""
    who = "harmonic_centrality"
    prep = _prepared(csgraph, directed, unweighted, dtype, who)
    n = prep.graph.n
    targets = None if nbunch is None else _ids(nbunch, n, who, "nbunch")
    froms = np.arange(n, dtype=np.int32) if sources is None else np.unique(_ids(sources, n, who, "sources"))
    if targets is not None and sources is None and client is None and len(np.unique(targets)) < n:
        # fewer targets than sources: one search per target on the reversed graph, as NetworkX
        wanted = np.unique(targets)
        sums = reduce_rows(_reversed(prep), wanted, what=who, harmonic_out=True, explain=explain,
                           progress=progress)
        return _out(sums.per_source["harmonic_out"][np.searchsorted(wanted, targets)], prep)
    sums = reduce_rows(prep, froms, what=who, client=client, explain=explain, progress=progress)
    value = sums.per_target["harmonic_in"]
    return _out(value if targets is None else value[targets], prep)


def _reversed(prep):
    """``prep`` with every arc turned around (distances to a vertex become distances from it)."""
    from ..csgraph.inputs import Prepared
    if not _directedness(prep):
        return prep
    return Prepared(prep.graph.reverse, prep.device)


def _eccentricities(prep, who: str, client, explain, progress, indices=None) -> tuple[np.ndarray, object]:
    n = prep.graph.n
    if indices is None:
        _require_connected(prep, who, ECCENTRICITY_WORDS)
        ids = np.arange(n, dtype=np.int32)
    else:
        ids = _ids(indices, n, who, "indices")
    sums = reduce_rows(prep, ids, what=who, client=client, explain=explain, progress=progress)
    if (sums.per_source["reach_out"] < n).any():
        raise NotConnectedError(f"{who}: {ECCENTRICITY_WORDS[0] if _directedness(prep) else ECCENTRICITY_WORDS[1]}")
    return sums.per_source["eccentricity"], sums


def eccentricity(csgraph, directed=True, unweighted=False, *, indices=None, dtype=None, client=None,
                 explain=False, progress=None):
    """NetworkX's ``eccentricity`` of every vertex (or of ``indices``): float64 array;
    NotConnectedError when a source does not reach every vertex."""
    prep = _prepared(csgraph, directed, unweighted, dtype, "eccentricity")
    return _out(_eccentricities(prep, "eccentricity", client, explain, progress, indices)[0], prep)


def _extreme(csgraph, directed, unweighted, dtype, client, explain, progress, who: str, pick):
    prep = _prepared(csgraph, directed, unweighted, dtype, who)
    ecc, _ = _eccentricities(prep, who, client, explain, progress)
    return pick(ecc), prep


def diameter(csgraph, directed=True, unweighted=False, *, dtype=None, client=None, explain=False, progress=None):
    """NetworkX's ``diameter``: the largest eccentricity (float)."""
    return float(_extreme(csgraph, directed, unweighted, dtype, client, explain, progress, "diameter", np.max)[0])


def radius(csgraph, directed=True, unweighted=False, *, dtype=None, client=None, explain=False, progress=None):
    """NetworkX's ``radius``: the smallest eccentricity (float)."""
    return float(_extreme(csgraph, directed, unweighted, dtype, client, explain, progress, "radius", np.min)[0])


def center(csgraph, directed=True, unweighted=False, *, dtype=None, client=None, explain=False, progress=None):
    """NetworkX's ``center``: the vertices of eccentricity equal to the radius (ascending ids)."""
    ids, prep = _extreme(csgraph, directed, unweighted, dtype, client, explain, progress, "center",
                         lambda e: np.flatnonzero(e == e.min()))
    return _out(ids, prep)


def periphery(csgraph, directed=True, unweighted=False, *, dtype=None, client=None, explain=False,
              progress=None):
    """NetworkX's ``periphery``: the vertices of eccentricity equal to the diameter (ascending ids)."""
    ids, prep = _extreme(csgraph, directed, unweighted, dtype, client, explain, progress, "periphery",
                         lambda e: np.flatnonzero(e == e.max()))
    return _out(ids, prep)


def barycenter(csgraph, directed=True, unweighted=False, *, dtype=None, client=None, explain=False,
               progress=None):
    """NetworkX's ``barycenter``: the vertices with the smallest sum of distances to every other
    (ascending ids); NotConnectedError when one does not reach every vertex."""
    who = "barycenter"
    prep = _prepared(csgraph, directed, unweighted, dtype, who)
    _, sums = _eccentricities(prep, who, client, explain, progress)
    total = sums.per_source["sum_out"]
    return _out(np.flatnonzero(total == total.min()), prep)


def average_shortest_path_length(csgraph, directed=True, unweighted=False, *, dtype=None, client=None,
                                 explain=False, progress=None) -> float:
    """NetworkX's ``average_shortest_path_length``: every distance summed over ``n (n - 1)``."""
    who = "average_shortest_path_length"
    prep = _prepared(csgraph, directed, unweighted, dtype, who)
    n = prep.graph.n
    if n == 1:
        return 0.0
    _require_connected(prep, who, AVERAGE_WORDS)
    sums = reduce_rows(prep, np.arange(n), what=who, client=client, explain=explain, progress=progress)
    total = sums.per_source["sum_out"]
    if _whole(prep):  # exact: Python's int division rounds once, as NetworkX's
        return int(total.astype(np.int64).sum()) / (n * (n - 1))
    return float(total.sum() / (n * (n - 1)))


def _whole(prep) -> bool:
    g = prep.graph
    return g.dtype.kind in "iu" or bool(g.meta.get("integer_weights"))
