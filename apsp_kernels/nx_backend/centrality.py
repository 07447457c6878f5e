"""NetworkX's closeness and harmonic centrality and distance measures on :mod:`apsp_kernels.centrality`.

The arcs (the lightest of parallel edges, undirected edges both ways) go to the library as a
SciPy matrix; its per-vertex results come back as NetworkX's dicts in G's node order, lengths as
ints for integer weights. What NetworkX reads from arguments the backend cannot honour, it runs
itself (``can_run`` says why): a callable weight or distance, a negative one (these are
Dijkstra's), precomputed ``e=`` or ``sp=``, ``barycenter(attr=)`` (it writes into G).
``usebounds=True`` is accepted: the exact eccentricities give the answer the bounds give.
"""
from __future__ import annotations

import networkx as nx
import numpy as np

from .. import centrality as C
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
    ecc = _eccentricities(g, a, [g.index[x] for x in nodes])
    e = {x: g.length(d) for x, d in zip(nodes, ecc.tolist())}
    return e[v] if v in g else e


def _all_eccentricities(G, weight) -> dict:
    g, a = _graph(G, weight)
    if not len(g):
        return {}
    return {x: g.length(d) for x, d in zip(g.nodes, _eccentricities(g, a).tolist())}


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
