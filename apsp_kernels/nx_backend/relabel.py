"""``convert_node_labels_to_integers`` on the backend's graph: the arcs stay, the labels change
(NetworkX's test graphs are made with it, so a backend without it cannot run their setup)."""
from __future__ import annotations

import networkx as nx
import numpy as np

from .registry import implements


@implements()
def convert_node_labels_to_integers(G, first_label=0, ordering="default", label_attribute=None):
    n = len(G)
    if ordering == "default":
        order = list(range(n))
    elif ordering == "sorted":
        order = [G.index[v] for v in sorted(G.nodes)]
    elif ordering in ("increasing degree", "decreasing degree"):
        if G.attrs is not None:
            ends = np.array([(u, v) for u, v, _, _ in G.attrs.edges], np.int64).reshape(-1, 2)
            degree = np.bincount(ends.ravel(), minlength=n).tolist()
        else:
            degree = np.bincount(np.r_[G.src, G.dst], minlength=n).tolist()
        pairs = sorted(zip(degree, G.nodes), reverse=ordering == "decreasing degree")
        order = [G.index[v] for _, v in pairs]
    else:
        raise nx.NetworkXError(f"Unknown node ordering: {ordering}")
    labels = [None] * n
    for label, i in enumerate(order, first_label):
        labels[i] = label
    attrs = G.attrs
    if label_attribute is not None and attrs is not None:
        nodes = [{**d, label_attribute: old} for d, old in zip(attrs.nodes, G.nodes)]
        attrs = type(attrs)(attrs.graph, nodes, attrs.edges, attrs.multigraph)
    return G.relabel(labels, attrs)


def _labels(G, mapping) -> list:
    get = mapping if callable(mapping) else (lambda v: mapping.get(v, v))
    return [get(v) for v in G]


def _injective_copy(arguments):
    """relabel_nodes runs here for a copy with distinct new labels; merging nodes (two labels
    mapped to one) or relabelling in place (copy=False) runs in NetworkX."""
    if not arguments["copy"]:
        return "relabel_nodes(copy=False) changes the NetworkX graph in place"
    G = arguments["G"]
    labels = _labels(G.nodes if hasattr(G, "index") else G, arguments["mapping"])
    return True if len(set(labels)) == len(labels) else "the mapping merges nodes"


@implements(_injective_copy)
def relabel_nodes(G, mapping, copy=True):
    return G.relabel(_labels(G.nodes, mapping), G.attrs)
