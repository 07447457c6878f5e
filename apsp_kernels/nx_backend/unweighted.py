"""NetworkX's breadth-first searches (``networkx.algorithms.shortest_paths.unweighted``) as hop
counts: the library on the arcs with every arc weighing 1. ``cutoff`` keeps the levels
NetworkX's search reaches (it expands level l - 1 while ``cutoff > l - 1``)."""
from __future__ import annotations

import numpy as np

import networkx as nx

from . import search
from .registry import implements


@implements()
def single_source_shortest_path_length(G, source, cutoff=None):
    G = G.weighted_by(None)
    i = G.vertex(source, unhashable_is_missing=True)
    row = search.row(G, i)
    return search.nx_lengths(G, row, [i], search.levels(cutoff)(row))


@implements()
def single_target_shortest_path_length(G, target, cutoff=None):
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    return single_source_shortest_path_length(G.weighted_by(None).reverse, target, cutoff)


@implements()
def all_pairs_shortest_path_length(G, cutoff=None):
    G = G.weighted_by(None)
    keep = search.levels(cutoff)
    for i, row in search.rows(G):
        yield G.nodes[i], search.nx_lengths(G, row, [i], keep(row))


def _paths(G, source, cutoff, what, reverse=False):
    if source not in G:
        raise nx.NodeNotFound(f"{what} {source} not in G")
    G = G.weighted_by(None)
    i = G.index[source]
    dist, pred = search.tree(G.reverse if reverse else G, [i])
    keep = search.levels(cutoff)(dist)
    found = None if reverse else search.nx_dijkstra(G, dist, [i], keep)
    if found is not None:  # NetworkX's order and tree
        return search.paths(G, found[1], found[0].tolist())
    targets = search.reached(dist, keep)
    return search.paths(G, pred, targets.tolist(), reverse=reverse)


@implements()
def single_source_shortest_path(G, source, cutoff=None):
    return _paths(G, source, cutoff, "Source")


@implements()
def single_target_shortest_path(G, target, cutoff=None):
    return _paths(G, target, cutoff, "Target", reverse=True)


@implements()
def all_pairs_shortest_path(G, cutoff=None):
    for node in G.nodes:
        yield node, single_source_shortest_path(G, node, cutoff)


@implements()
def bidirectional_shortest_path(G, source, target):
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    G = G.weighted_by(None)
    i, j = G.index[source], G.index[target]
    dist, pred = search.tree(G, [i])
    search.to_target(G, dist, source, target, "No path between {source} and {target}.")
    return search.path_to(G, pred, i, j)


@implements()
def predecessor(G, source, target=None, cutoff=None, return_seen=None):
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    G = G.weighted_by(None)
    i = G.index[source]
    row = search.row(G, i)
    keep = None if not cutoff else row <= cutoff  # NetworkX stops after level ``cutoff``; 0: no cutoff
    pred = search.all_predecessors(G, row, [i], keep, levels=True)
    if target is not None:
        if target not in pred:
            return ([], -1) if return_seen else []
        return (pred[target], int(row[G.index[target]])) if return_seen else pred[target]
    if return_seen:
        return pred, search.lengths(G, row, [i], keep)
    return pred


def hops(G, i: int) -> np.ndarray:
    return search.row(G.weighted_by(None), i)
