"""NetworkX's closeness, harmonic and betweenness centrality and distance measures on :mod:`apsp_kernels.centrality`.

The arcs (the lightest of parallel edges, undirected edges both ways) go to the library as a
SciPy matrix; its per-vertex results come back as NetworkX's dicts in G's node order, lengths as
ints for integer weights. What NetworkX reads from arguments the backend cannot honour, it runs
itself (``can_run`` says why): a callable weight or distance, a negative one (these are
Dijkstra's), precomputed ``e=`` or ``sp=``, ``barycenter(attr=)`` (it writes into G).
``usebounds=True`` is accepted: the exact eccentricities give the answer the bounds give.

Betweenness runs :mod:`apsp_kernels.centrality.betweenness` on the arcs in G's adjacency order (on
the GPU for whole weights on road-like graphs; on the host ties are counted in NetworkX's relaxation
order, self loops kept), sources sampled by the ``seed``
NetworkX hands over (``seed.sample(list(G), k)``, as NetworkX), rescaled by NetworkX's rules.
"""
from __future__ import annotations

import networkx as nx
import numpy as np

from .. import centrality as C
from ..centrality import betweenness as B
from .arcs import ArcGraph, weights_usable
from .registry import implements


def _weights(arguments, key: str):
    """A check: True, or why the weights named by argument ``key`` cannot run here."""
    weight = arguments.get(key)
    if callable(weight):
        return f"a callable {key} runs in NetworkX"
    return weights_usable(arguments["G"], weight, True)


def _check(*given: str, key: str = "weight"):
    """A check declining calls that pass any of the arguments ``given``, then checking weights."""
    def check(arguments):
        for name in given:
            if arguments.get(name) is not None:
                return f"{name}= given: NetworkX reads it itself"
        return _weights(arguments, key)
    return check


def _graph(G: ArcGraph, weight):
    g = G.weighted_by(weight)
    return g, g.matrix()


def _not_connected(G: ArcGraph, exc) -> nx.NetworkXError:
    words = C.measures.ECCENTRICITY_WORDS if "infinite path" in str(exc) else C.measures.AVERAGE_WORDS
    return nx.NetworkXError(words[0] if G.directed else words[1])


def _nodes(G: ArcGraph, nbunch) -> list:
    """``G.nbunch_iter(nbunch)``: every node for None, ``[nbunch]`` for a node, else those of the
    container that are in G (NetworkXError for what is neither)."""
    if nbunch is None:
        return list(G.nodes)
    if nbunch in G:
        return [nbunch]
    try:
        return [v for v in nbunch if v in G]
    except TypeError as exc:
        raise nx.NetworkXError(f"nbunch is not a node or a sequence of nodes: {exc}") from None


@implements(_check(key="distance"))
def closeness_centrality(G, u=None, distance=None, wf_improved=True):
    g, a = _graph(G, distance)
    if not len(g):
        return {}
    if u is not None:
        return float(C.closeness_centrality(a, wf_improved=wf_improved, indices=[g.vertex(u)])[0])
    return dict(zip(g.nodes, C.closeness_centrality(a, wf_improved=wf_improved).tolist()))


@implements(_check(key="distance"))
def harmonic_centrality(G, nbunch=None, distance=None, sources=None):
    g, a = _graph(G, distance)
    if nbunch is None and sources is None:  # every vertex from every source: no lists of nodes to build
        return dict(zip(g.nodes, C.harmonic_centrality(a).tolist())) if len(g) else {}
    targets = list(dict.fromkeys(_nodes(g, nbunch)))
    froms = _nodes(g, sources)
    if not targets:
        return {}
    if not froms:
        return {v: 0 for v in targets}
    value = C.harmonic_centrality(a, nbunch=[g.index[v] for v in targets],
                                  sources=None if sources is None else [g.index[v] for v in froms])
    return dict(zip(targets, value.tolist()))


def _eccentricities(g: ArcGraph, a, indices=None) -> np.ndarray:
    try:
        return C.eccentricity(a, indices=indices)
    except C.NotConnectedError as exc:
        raise _not_connected(g, exc) from None


@implements(_check("sp"))
def eccentricity(G, v=None, sp=None, weight=None):
    g, a = _graph(G, weight)
    nodes = list(dict.fromkeys(_nodes(g, v)))
    if not nodes:
        return {}
    e = dict(zip(nodes, g.lengths(_eccentricities(g, a, [g.index[x] for x in nodes]))))
    return e[v] if v in g else e


def _all_eccentricities(G, weight) -> dict:
    g, a = _graph(G, weight)
    if not len(g):
        return {}
    return dict(zip(g.nodes, g.lengths(_eccentricities(g, a))))


@implements(_check("e"))
def diameter(G, e=None, usebounds=False, weight=None):
    return max(_all_eccentricities(G, weight).values())


@implements(_check("e"))
def radius(G, e=None, usebounds=False, weight=None):
    return min(_all_eccentricities(G, weight).values())


@implements(_check("e"))
def periphery(G, e=None, usebounds=False, weight=None):
    ecc = _all_eccentricities(G, weight)
    top = max(ecc.values())
    return [v for v, x in ecc.items() if x == top]


@implements(_check("e"))
def center(G, e=None, usebounds=False, weight=None):
    ecc = _all_eccentricities(G, weight)
    low = min(ecc.values())
    return [v for v, x in ecc.items() if x == low]


@implements(_check("attr", "sp"))
def barycenter(G, weight=None, attr=None, sp=None):
    g, a = _graph(G, weight)
    if not len(g):
        return []
    try:
        ids = C.barycenter(a)
    except C.NotConnectedError:
        raise nx.NetworkXNoPath(f"Input graph {g.to_nx()} is disconnected, so every induced subgraph "
                                "has infinite barycentricity.") from None
    return [g.nodes[i] for i in ids.tolist()]


def _betweenness_check(arguments):
    """Declines a callable or unusable weight, ``k`` outside ``1..len(G)`` (NetworkX raises its own
    error) and, for edges, a node that is a 2-tuple (NetworkX keeps nodes and edges in one dict)."""
    G, k = arguments["G"], arguments.get("k")
    if k is not None and not (isinstance(k, int) and 1 <= k <= len(G)):
        return f"k={k!r} is not a number of sources from 1 to len(G): NetworkX raises its own error"
    if "endpoints" not in arguments and any(isinstance(v, tuple) and len(v) == 2 for v in G):
        return "a node that is a 2-tuple: NetworkX's edge betweenness shares one dict between nodes and edges"
    return _weights(arguments, "weight")


def _brandes(g: ArcGraph, k, seed, endpoints: bool, edges: bool, every_if_all: bool, who: str):
    """(raw accumulation, the sampled sources or None) over the arcs of ``g`` in G's adjacency order."""
    order = np.lexsort((g.pos, g.src)) if g.pos is not None else np.lexsort((g.dst, g.src))
    src, dst = g.src[order], g.dst[order]
    indptr = np.r_[0, np.cumsum(np.bincount(src, minlength=len(g)))]
    weights = None if g.weight is None else g.w[order].astype(np.float64)
    if k is None or (every_if_all and k == len(g)):
        sources, sampled = np.arange(len(g)), None
    else:
        sources = sampled = np.asarray([g.index[v] for v in seed.sample(list(g.nodes), k)], dtype=np.int64)
    acc = B._run((indptr, dst, weights), sources, endpoints, edges, None, False, who)
    return acc, order, sampled


@implements(_betweenness_check)
def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    g = G.weighted_by(weight)
    if not len(g):
        return {}
    acc, _, sampled = _brandes(g, k, seed, endpoints, False, True, "betweenness_centrality")
    scale = B.rescale(len(g), normalized=normalized, directed=g.directed, endpoints=endpoints, sampled=sampled)
    return dict(zip(g.nodes, B._scaled(acc.vertices(), scale, sampled).tolist()))


@implements(_betweenness_check)
def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    g = G.weighted_by(weight)
    if not len(g):
        return {}
    acc, order, sampled = _brandes(g, k, seed, True, True, False, "edge_betweenness_centrality")
    n = len(g)
    per_arc = np.empty(len(order))
    per_arc[order] = acc.arcs()  # back to g's arc order (by tail, then head)
    key = g.src * n + g.dst
    if g.directed:
        listed, value = order, per_arc  # G.edges(): each node's successors in adjacency order
    else:  # each edge once, first end first in node order, and both of its arcs' paths
        listed = order[g.src[order] <= g.dst[order]]
        value = np.where(g.src == g.dst, per_arc, per_arc + per_arc[np.searchsorted(key, g.dst * n + g.src)])
    value = value * B.rescale(n, normalized=normalized, directed=g.directed, endpoints=True, sampled=sampled)[1]
    if g.multi_edges is not None:
        return _with_keys(g, key, value, weight)
    nodes = g.nodes
    return {(nodes[u], nodes[v]): x for u, v, x in zip(g.src[listed].tolist(), g.dst[listed].tolist(),
                                                        value[listed].tolist())}


def _with_keys(g: ArcGraph, arc_key: np.ndarray, value: np.ndarray, weight) -> dict:
    """NetworkX's ``_add_edge_keys``: an arc's value shared by its lightest parallel edges, 0 for the others,
    keyed (u, v, key) in G.edges order."""
    src, dst, keys, w = g.multi_edges
    at = np.searchsorted(arc_key, src * len(g) + dst)
    w = np.ones(len(keys)) if weight is None else np.asarray(w, dtype=np.float64)
    lightest = np.full(arc_key.size, np.inf)
    np.minimum.at(lightest, at, w)
    tied = w == lightest[at]
    share = value / np.maximum(np.bincount(at[tied], minlength=arc_key.size), 1)
    nodes, u, v = g.nodes, g.multi_edges[0].tolist(), g.multi_edges[1].tolist()
    return {(nodes[a], nodes[b], key): (float(share[i]) if t else 0.0)
            for a, b, key, i, t in zip(u, v, keys, at.tolist(), tied.tolist())}
