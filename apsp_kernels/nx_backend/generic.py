"""NetworkX's generic entry points (``networkx.algorithms.shortest_paths.generic``): each picks
the backend's own weighted or unweighted function exactly where NetworkX's picks its own."""
from __future__ import annotations

import networkx as nx
import numpy as np
from networkx.algorithms.shortest_paths.generic import _build_paths_from_predecessors
from scipy.sparse.csgraph import connected_components

from . import search, unweighted, weighted
from .registry import implements

_METHODS = ("dijkstra", "bellman-ford")


def _method(weight, method):
    if method not in _METHODS:
        raise ValueError(f"method not supported: {method}")
    return "unweighted" if weight is None else method


@implements()
def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
    method = _method(weight, method)
    if source is None and target is None:
        return {"unweighted": lambda: unweighted.all_pairs_shortest_path(G),
                "dijkstra": lambda: weighted.all_pairs_dijkstra_path(G, weight=weight),
                "bellman-ford": lambda: weighted.all_pairs_bellman_ford_path(G, weight=weight),
                }[method]()
    if source is None:  # from every node that reaches the target
        if method == "unweighted":
            return unweighted.single_target_shortest_path(G, target)
        G = G.weighted_by(weight)
        paths = (weighted.single_source_dijkstra_path if method == "dijkstra" else
                 weighted.single_source_bellman_ford_path)(G.reverse, target, weight=weight)
        return {v: p[::-1] for v, p in paths.items()}
    if target is None:
        if method == "unweighted":
            return unweighted.single_source_shortest_path(G, source)
        return (weighted.single_source_dijkstra_path if method == "dijkstra" else
                weighted.single_source_bellman_ford_path)(G, source, weight=weight)
    if method == "unweighted":
        return unweighted.bidirectional_shortest_path(G, source, target)
    if method == "dijkstra":
        return weighted.bidirectional_dijkstra(G, source, target, weight)[1]
    return weighted.bellman_ford_path(G, source, target, weight)


@implements()
def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    method = _method(weight, method)
    if source is None and target is None:
        return {"unweighted": lambda: unweighted.all_pairs_shortest_path_length(G),
                "dijkstra": lambda: weighted.all_pairs_dijkstra_path_length(G, weight=weight),
                "bellman-ford": lambda: weighted.all_pairs_bellman_ford_path_length(G, weight=weight),
                }[method]()
    if source is None:
        if method == "unweighted":
            return unweighted.single_target_shortest_path_length(G, target)
        G = G.weighted_by(weight)
        return (weighted.single_source_dijkstra_path_length if method == "dijkstra" else
                weighted.single_source_bellman_ford_path_length)(G.reverse, target, weight=weight)
    if target is None:
        if method == "unweighted":
            return unweighted.single_source_shortest_path_length(G, source)
        return (weighted.single_source_dijkstra_path_length if method == "dijkstra" else
                weighted.single_source_bellman_ford_path_length)(G, source, weight=weight)
    if method == "unweighted":
        return len(unweighted.bidirectional_shortest_path(G, source, target)) - 1
    return (weighted.dijkstra_path_length if method == "dijkstra" else
            weighted.bellman_ford_path_length)(G, source, target, weight)


@implements()
def has_path(G, source, target):
    try:
        unweighted.bidirectional_shortest_path(G, source, target)
    except nx.NetworkXNoPath:
        return False
    return True


_AVERAGE = ("unweighted", "dijkstra", "bellman-ford", "floyd-warshall", "floyd-warshall-numpy")


@implements()
def average_shortest_path_length(G, weight=None, method=None):
    if method is None:
        method = "unweighted" if weight is None else "dijkstra"
    if method not in _AVERAGE:
        raise ValueError(f"method not supported: {method}")
    n = len(G)
    if n == 0:
        raise nx.NetworkXPointlessConcept("the null graph has no paths, thus there is no "
                                          "average shortest path length")
    if n == 1:
        return 0
    G = G.weighted_by(None if method == "unweighted" else weight)
    parts = connected_components(G.matrix(), directed=G.directed, connection="strong",
                                 return_labels=False)
    if parts > 1:
        raise nx.NetworkXError("Graph is not strongly connected." if G.directed else
                               "Graph is not connected.")
    total = 0
    for _, row in search.rows(G):
        total += int(row.astype(np.int64).sum()) if G.integral else float(row.sum())
    return total / (n * (n - 1))


def _predecessors(G, source, weight, method):
    method = "unweighted" if weight is None else method
    if method == "unweighted":
        return unweighted.predecessor(G, source)
    if method == "dijkstra":
        return weighted.dijkstra_predecessor_and_distance(G, source, weight=weight)[0]
    if method == "bellman-ford":
        return weighted.bellman_ford_predecessor_and_distance(G, source, weight=weight)[0]
    raise ValueError(f"method not supported: {method}")


@implements()
def all_shortest_paths(G, source, target, weight=None, method="dijkstra"):
    pred = _predecessors(G, source, weight, method)
    return _build_paths_from_predecessors({source}, target, pred)


@implements()
def single_source_all_shortest_paths(G, source, weight=None, method="dijkstra"):
    pred = _predecessors(G, source, weight, method)
    for node in pred:
        yield node, list(_build_paths_from_predecessors({source}, node, pred))


@implements()
def all_pairs_all_shortest_paths(G, weight=None, method="dijkstra"):
    for node in G.nodes:
        yield node, dict(single_source_all_shortest_paths(G, node, weight, method))
