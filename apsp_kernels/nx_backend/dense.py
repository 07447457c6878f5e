"""NetworkX's Floyd-Warshall functions (``networkx.algorithms.shortest_paths.dense``) on the
library's all-pairs distances and predecessors. A negative cycle is declined (NetworkX's
Floyd-Warshall returns values that depend on its loop order there; see the registry's checks).
"""
from __future__ import annotations

from collections import defaultdict

import networkx as nx
import numpy as np

from . import search
from .registry import implements


@implements()
def floyd_warshall_numpy(G, nodelist=None, weight="weight"):
    G = G.weighted_by(weight)
    order = None
    if nodelist is not None:
        if not (len(nodelist) == len(G) == len(set(nodelist))):
            raise nx.NetworkXError("nodelist must contain every node in G with no repeats."
                                   "If you wanted a subgraph of G use G.subgraph(nodelist)")
        if missing := set(nodelist) - G.index.keys():
            raise nx.NetworkXError(f"Nodes {missing} in nodelist is not in G")
        order = [G.index[v] for v in nodelist]
    dist = search.all_pairs(G, loops=False)[0]
    return dist if order is None else dist[np.ix_(order, order)]


@implements()
def floyd_warshall_predecessor_and_distance(G, weight="weight"):
    G = G.weighted_by(weight)
    dist, pred = search.all_pairs(G, loops=False, predecessors=True)
    nodes = G.nodes
    loops = set(G.src[G.src == G.dst].tolist())
    has_arcs = np.zeros(len(G), bool)
    has_arcs[G.src] = True
    distances, predecessors = {}, {}
    for i, node in enumerate(nodes):
        finite = np.isfinite(dist[i])
        values = (np.where(finite, dist[i], 0).astype(np.int64).tolist() if G.integral else
                  dist[i].tolist())
        finite = finite.tolist()
        row = defaultdict(lambda: float("inf"))
        row.update((v, d if ok else float("inf")) for v, d, ok in zip(nodes, values, finite))
        distances[node] = row
        if has_arcs[i]:
            p = pred[i]
            idx = np.flatnonzero(p >= 0)
            predecessors[node] = {nodes[j]: nodes[p[j]] for j in idx.tolist()}
            if i in loops:
                predecessors[node][node] = node
    return predecessors, distances


@implements()
def floyd_warshall(G, weight="weight"):
    return floyd_warshall_predecessor_and_distance(G, weight)[1]
