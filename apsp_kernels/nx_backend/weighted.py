"""NetworkX's weighted searches (``networkx.algorithms.shortest_paths.weighted`` and ``astar``)
on the library's distances and predecessor trees. Each keeps NetworkX's signature, its checks
in NetworkX's order (NodeNotFound, ValueError, NetworkXNoPath, NetworkXUnbounded) and its
return types; Dijkstra's functions decline negative weights (see the registry's checks).
"""
from __future__ import annotations

import numpy as np

import networkx as nx

from . import search
from .arcs import ArcGraph
from .registry import implements, no_heuristic


def _sources(G: ArcGraph, sources) -> list[int]:
    if not sources:
        raise ValueError("sources must not be empty")
    return [G.vertex(s, unhashable_is_missing=True) for s in sources]


def _lengths_and_paths(G: ArcGraph, idx, dist, pred, keep=None):
    targets = search.reached(dist, keep)
    return search.lengths(G, dist, idx, keep), search.paths(G, pred, targets.tolist())


# ----------------------------------------------------------------------------- Dijkstra
@implements()
def multi_source_dijkstra(G, sources, target=None, cutoff=None, weight="weight"):
    G = G.weighted_by(weight)
    idx = _sources(G, sources)
    if target in sources:
        return (0, [target])
    dist, pred = search.tree(G, idx)
    keep = search.within(cutoff)(dist)
    found = search.nx_dijkstra(G, dist, idx, keep)
    if found is not None:  # NetworkX's order and tree
        order, pred = found
        if target is None:
            return search.lengths_in_order(G, dist, order, idx), search.paths(G, pred, order.tolist())
    elif target is None:
        return _lengths_and_paths(G, idx, dist, pred, keep)
    j = search.to_target(G, dist if keep is None else np.where(keep, dist, np.inf), None, target,
                         "No path to {target}.")
    return G.length(dist[j]), search.path_to(G, pred, pred_root(pred, j), j)


def pred_root(pred, j: int) -> int:
    while pred[j] >= 0:
        j = pred[j]
    return j


@implements()
def multi_source_dijkstra_path(G, sources, cutoff=None, weight="weight"):
    return multi_source_dijkstra(G, sources, cutoff=cutoff, weight=weight)[1]


@implements()
def multi_source_dijkstra_path_length(G, sources, cutoff=None, weight="weight"):
    G = G.weighted_by(weight)
    idx = _sources(G, sources)
    dist = search.tree(G, idx, predecessors=False)[0]
    return search.nx_lengths(G, dist, idx, search.within(cutoff)(dist))


@implements()
def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
    return multi_source_dijkstra(G, {source}, target, cutoff, weight)


@implements()
def single_source_dijkstra_path(G, source, cutoff=None, weight="weight"):
    return multi_source_dijkstra(G, {source}, cutoff=cutoff, weight=weight)[1]


@implements()
def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    G = G.weighted_by(weight)
    i = G.vertex(source)
    row = search.row(G, i)
    return search.nx_lengths(G, row, [i], search.within(cutoff)(row))


@implements()
def dijkstra_path(G, source, target, weight="weight"):
    return single_source_dijkstra(G, source, target, weight=weight)[1]


@implements()
def dijkstra_path_length(G, source, target, weight="weight"):
    G = G.weighted_by(weight)
    i = G.vertex(source, unhashable_is_missing=True)
    if source == target:
        return 0
    row = search.row(G, i)
    return G.length(row[search.to_target(G, row, source, target)])


@implements()
def bidirectional_dijkstra(G, source, target, weight="weight"):
    G = G.weighted_by(weight)
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    if source == target:
        return (0, [source])
    i = G.index[source]
    dist, pred = search.tree(G, [i])
    j = search.to_target(G, dist, source, target, "No path between {source} and {target}.")
    return G.length(dist[j]), search.path_to(G, pred, i, j)


@implements()
def dijkstra_predecessor_and_distance(G, source, cutoff=None, weight="weight"):
    G = G.weighted_by(weight)
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} is not found in the graph")
    i = G.index[source]
    dist = search.row(G, i)
    keep = search.within(cutoff)(dist)
    return search.all_predecessors(G, dist, [i], keep), search.lengths(G, dist, [i], keep)


def _all_pairs(G, keep, make):
    for i, row in search.rows(G):
        yield G.nodes[i], make(G, i, row, keep(row))


@implements()
def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight"):
    G = G.weighted_by(weight)
    return _all_pairs(G, search.within(cutoff),
                      lambda G, i, row, keep: search.nx_lengths(G, row, [i], keep))


def _by_source(G, cutoff, make):
    for node in G.nodes:
        yield node, make(G, node, cutoff)


@implements()
def all_pairs_dijkstra(G, cutoff=None, weight="weight"):
    G = G.weighted_by(weight)
    return _by_source(G, cutoff, lambda G, s, c: multi_source_dijkstra(G, {s}, cutoff=c,
                                                                        weight=weight))


@implements()
def all_pairs_dijkstra_path(G, cutoff=None, weight="weight"):
    G = G.weighted_by(weight)
    return _by_source(G, cutoff, lambda G, s, c: multi_source_dijkstra(G, {s}, cutoff=c,
                                                                        weight=weight)[1])


# ----------------------------------------------------------------------------- A* without a heuristic
def _astar(G, source, target, weight, cutoff):
    G = G.weighted_by(weight)
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    i, j = G.index[source], G.index[target]
    if i == j:
        return 0, [source]  # NetworkX's sum over no edges: the int 0
    dist, pred = search.tree(G, [i])
    if not np.isfinite(dist[j]) or (cutoff and dist[j] > cutoff):
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return G.length(dist[j]), search.path_to(G, pred, i, j)


@implements(no_heuristic)
def astar_path(G, source, target, heuristic=None, weight="weight", *, cutoff=None):
    return _astar(G, source, target, weight, cutoff)[1]


@implements(no_heuristic)
def astar_path_length(G, source, target, heuristic=None, weight="weight", *, cutoff=None):
    return _astar(G, source, target, weight, cutoff)[0]


# ----------------------------------------------------------------------------- Bellman-Ford
def _bellman_ford_source(G: ArcGraph, source, weight) -> tuple:
    """The graph weighted by ``weight`` and the source's index, or NetworkX's errors: an absent
    source, a negative self loop."""
    G = G.weighted_by(weight)
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} is not found in the graph")
    if ((G.src == G.dst) & (G.w < 0)).any():
        raise nx.NetworkXUnbounded("Negative cycle detected.")
    return G, G.index[source]


@implements()
def single_source_bellman_ford(G, source, target=None, weight="weight"):
    G = G.weighted_by(weight)
    if source == target:
        if source not in G:
            raise nx.NodeNotFound(f"Node {source} is not found in the graph")
        return (0, [source])
    i = G.vertex(source, what="Source")
    dist, pred = search.tree(G, [i])
    if target is None:
        return _lengths_and_paths(G, [i], dist, pred)
    j = search.to_target(G, dist, source, target)
    return G.length(dist[j]), search.path_to(G, pred, i, j)


@implements()
def single_source_bellman_ford_path(G, source, weight="weight"):
    return single_source_bellman_ford(G, source, weight=weight)[1]


@implements()
def single_source_bellman_ford_path_length(G, source, weight="weight"):
    G = G.weighted_by(weight)
    i = G.vertex(source)
    return search.lengths(G, search.row(G, i), [i])


@implements()
def bellman_ford_path(G, source, target, weight="weight"):
    return single_source_bellman_ford(G, source, target, weight)[1]


@implements()
def bellman_ford_path_length(G, source, target, weight="weight"):
    G = G.weighted_by(weight)
    if source == target:
        G.vertex(source, unhashable_is_missing=True)  # NetworkX tests ``source in G`` here
        return 0
    row = search.row(G, G.vertex(source))
    return G.length(row[search.to_target(G, row, source, target)])


@implements()
def bellman_ford_predecessor_and_distance(G, source, target=None, weight="weight",
                                          heuristic=False):
    G, i = _bellman_ford_source(G, source, weight)
    dist = search.row(G, i)
    return search.all_predecessors(G, dist, [i]), search.lengths(G, dist, [i])


@implements()
def goldberg_radzik(G, source, weight="weight"):
    G, i = _bellman_ford_source(G, source, weight)
    dist, pred = search.tree(G, [i])
    d = search.lengths(G, dist, [i])
    nodes = G.nodes
    return {v: (None if pred[G.index[v]] < 0 else nodes[pred[G.index[v]]]) for v in d}, d


@implements()
def all_pairs_bellman_ford_path_length(G, weight="weight"):
    G = G.weighted_by(weight)
    return _all_pairs(G, lambda row: None,
                      lambda G, i, row, keep: search.lengths(G, row, [i], keep))


@implements()
def all_pairs_bellman_ford_path(G, weight="weight"):
    G = G.weighted_by(weight)
    return _by_source(G, None, lambda G, s, c: single_source_bellman_ford(G, s, weight=weight)[1])


@implements()
def negative_edge_cycle(G, weight="weight", heuristic=True):
    G = G.weighted_by(weight)
    if not G.src.size or not G.negative:
        return False
    try:
        search.tree(G, range(len(G)), predecessors=False)
    except nx.NetworkXUnbounded:
        return True
    return False


@implements()
def johnson(G, weight="weight"):
    G = G.weighted_by(weight)
    if negative_edge_cycle(G, weight):
        raise nx.NetworkXUnbounded("Negative cycle detected.")
    return {G.nodes[i]: search.paths(G, pred, search.reached(dist).tolist())
            for i, (dist, pred) in ((i, search.tree(G, [i])) for i in range(len(G)))}

