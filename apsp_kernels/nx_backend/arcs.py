"""The backend's graph: a NetworkX graph as arcs between vertices ``0..n-1``.

Nodes keep ``G``'s order; each arc appears once with the minimum weight over parallel edges
(what every NetworkX shortest-path function uses for a multigraph), undirected edges both ways,
a missing weight attribute read as the call's default. A conversion that NetworkX asks to
preserve every attribute (``relabel``'s functions) also keeps a copy of the attributes and edge
keys, so that :meth:`ArcGraph.to_nx` gives back an equal graph.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from itertools import chain
from numbers import Number
from operator import methodcaller

import networkx as nx
import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class Attributes:
    """What a NetworkX graph holds besides its shortest-path arcs, for an exact round trip."""

    graph: dict
    nodes: list  # one attribute dict per vertex
    edges: list  # (u, v, key, data) in G.edges order, vertices as indices; key None unless multigraph
    multigraph: bool


@dataclass(frozen=True, eq=False)
class ArcGraph:
    """Arcs ``src -> dst`` of weight ``w``; see the module docstring."""

    __networkx_backend__ = "apsp_kernels"

    nodes: list
    index: dict
    src: np.ndarray
    dst: np.ndarray
    w: np.ndarray
    directed: bool
    weight: str | None  # the edge attribute the weights came from; None: every edge weighs 1
    attrs: Attributes | None = None
    pos: np.ndarray | None = None  # per arc: where dst comes in G's adjacency of src (NetworkX's
    # order of relaxing the arcs of a vertex); None where unknown (reversed or relabelled arcs)
    multi_edges: tuple | None = None  # a multigraph's (src, dst, keys, w) per edge, in G.edges(keys=True) order

    @classmethod
    def from_nx(cls, G, weight=None, default=1, keep_attributes=False) -> "ArcGraph":
        nodes = list(G)
        index = {v: i for i, v in enumerate(nodes)}
        pos = None
        if G.is_multigraph():
            edges = list(_weighted_edges(G, weight, default))
            w = np.asarray([e[2] for e in edges]) if edges else np.zeros(0, np.int64)
            src = np.fromiter((index[e[0]] for e in edges), np.int64, len(edges))
            dst = np.fromiter((index[e[1]] for e in edges), np.int64, len(edges))
            both = not G.is_directed()
        else:  # one pass over the adjacency: both directions of an undirected edge, in order
            src, dst, pos = _adjacency(G, index)
            w = (np.ones(src.size, np.int64) if weight is None or not src.size else
                 np.asarray(_adjacency_weights(G, weight, default)))
            both = False
        if w.dtype.kind not in "biuf" or not np.isfinite(w).all():
            raise nx.NetworkXError(f"apsp_kernels takes finite numeric weights only; edge "
                                   f"attribute {weight!r} holds others (can_run declines these)")
        attrs = None
        if keep_attributes:
            multi = G.is_multigraph()
            listed = G.edges(keys=True, data=True) if multi else G.edges(data=True)
            attrs = Attributes(dict(G.graph), [dict(d) for d in G._node.values()],
                               [(index[e[0]], index[e[1]], e[2] if multi else None, dict(e[-1]))
                                for e in listed], multi)
        g = cls._arcs(nodes, index, src, dst, w, G.is_directed(), weight, attrs, both, pos)
        if G.is_multigraph():
            g = replace(g, multi_edges=(src, dst, [k for *_, k in G.edges(keys=True)], w))
        return g if pos is not None else replace(g, pos=_positions(G, index, g))

    @classmethod
    def _arcs(cls, nodes, index, src, dst, w, directed, weight, attrs, both, pos) -> "ArcGraph":
        """``both``: each edge given once, to be made an arc each way; ``pos``: each arc's place in
        ``G._adj`` (or None)."""
        n = max(len(nodes), 1)
        if both:
            src, dst, w = np.r_[src, dst], np.r_[dst, src], np.r_[w, w]
        key = src * n + dst
        order = np.lexsort((w, key))  # the lightest parallel arc first
        key, w = key[order], w[order]
        first = np.r_[True, key[1:] != key[:-1]] if key.size else np.zeros(0, bool)
        if pos is not None:
            pos = pos[order][first]
        return cls(nodes, index, key[first] // n, key[first] % n, w[first], directed, weight, attrs,
                   pos)

    def __len__(self) -> int:
        return len(self.nodes)

    # ------------------------------------------------------------------ weights
    @property
    def integral(self) -> bool:
        """Integer weights: NetworkX's lengths are then ints."""
        return self.w.dtype.kind in "biu"

    @cached_property
    def negative(self) -> bool:
        return bool(self.w.size and self.w.min() < 0)

    def weighted_by(self, weight) -> "ArcGraph":
        """The arcs weighted as a call asks: 1 for ``weight=None`` (hop counts), the attribute
        ``weight`` otherwise (read again from the kept attributes where the conversion used
        another one)."""
        if weight is None:
            return self if self.weight is None else replace(
                self, w=np.ones(self.w.shape, np.int64), weight=None)
        if weight != self.weight and self.attrs is not None:
            return ArcGraph.from_nx(self.to_nx(), weight, keep_attributes=True)
        return self

    def length(self, d):
        """A distance as NetworkX's type: int for integer weights, else float."""
        return int(d) if self.integral else float(d)

    def lengths(self, values: np.ndarray) -> list:
        """Finite distances as :meth:`length` gives them, all at once."""
        return values.astype(np.int64).tolist() if self.integral else values.tolist()

    # ------------------------------------------------------------------ lookups
    def vertex(self, node, unhashable_is_missing=False, what="Node") -> int:
        """The index of ``node``, or NodeNotFound. An unhashable node raises TypeError, as in
        NetworkX's searches, unless ``unhashable_is_missing`` (functions that test ``node in G``)."""
        try:
            return self.index[node]
        except KeyError:
            pass
        except TypeError:
            if not unhashable_is_missing:
                raise
        raise nx.NodeNotFound(f"{what} {node} not found in graph")

    def __contains__(self, node) -> bool:
        try:
            return node in self.index
        except TypeError:
            return False

    def matrix(self, loops=True) -> sp.csr_array:
        """The arcs as CSR (a stored zero is a zero-weight arc); ``loops=False`` drops self loops."""
        keep = slice(None) if loops else self.src != self.dst
        return sp.csr_array((self.w[keep].astype(np.float64), (self.src[keep], self.dst[keep])),
                            shape=(len(self), len(self)))

    def without_loops(self) -> "ArcGraph":
        keep = self.src != self.dst
        return replace(self, src=self.src[keep], dst=self.dst[keep], w=self.w[keep], attrs=None,
                       pos=None if self.pos is None else self.pos[keep])

    @cached_property
    def reverse(self) -> "ArcGraph":
        """Every arc turned around (the graph itself when undirected)."""
        if not self.directed:
            return self
        return replace(self, src=self.dst, dst=self.src, attrs=None, pos=None)

    def relabel(self, nodes: list, attrs: Attributes | None) -> "ArcGraph":
        return replace(self, nodes=nodes, index={v: i for i, v in enumerate(nodes)}, attrs=attrs,
                       pos=None)

    # ------------------------------------------------------------------ back to NetworkX
    def to_nx(self):
        """An equal NetworkX graph where the attributes were kept, else a (Di)Graph of the arcs."""
        a = self.attrs
        if a is None:
            G = nx.DiGraph() if self.directed else nx.Graph()
            G.add_nodes_from(self.nodes)
            attr = self.weight or "weight"
            G.add_edges_from((self.nodes[u], self.nodes[v], {attr: w}) for u, v, w in
                             zip(self.src.tolist(), self.dst.tolist(), self.w.tolist()))
            return G
        cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
               (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[self.directed, a.multigraph]
        G = cls()
        G.graph.update(a.graph)
        G.add_nodes_from((v, dict(d)) for v, d in zip(self.nodes, a.nodes))
        nodes = self.nodes
        if a.multigraph:
            G.add_edges_from((nodes[u], nodes[v], k, dict(d)) for u, v, k, d in a.edges)
        else:
            G.add_edges_from((nodes[u], nodes[v], dict(d)) for u, v, _, d in a.edges)
        return G


def _adjacency(G, index):
    """(tails, heads, places) of every entry of ``G._adj`` in its order."""
    adj = G._adj
    counts = np.fromiter(map(len, adj.values()), np.int64, len(adj))
    tails = np.repeat(np.fromiter(map(index.__getitem__, adj), np.int64, len(adj)), counts)
    heads = np.fromiter(map(index.__getitem__, chain.from_iterable(adj.values())), np.int64, tails.size)
    return tails, heads, np.arange(tails.size) - np.repeat(np.cumsum(counts) - counts, counts)


def _adjacency_weights(G, weight, default) -> list:
    """The weight of every entry of ``G._adj`` (not a multigraph) in its order."""
    return list(map(methodcaller("get", weight, default), chain.from_iterable(map(dict.values, G._adj.values()))))


def _positions(G, index, g: ArcGraph) -> np.ndarray:
    """For each arc of ``g`` (made from ``G``), the place of its head among its tail's
    neighbours in ``G._adj`` (one Python pass over the adjacency)."""
    n = max(len(index), 1)
    tails, heads, place = _adjacency(G, index)
    key = tails * n + heads
    order = np.argsort(key, kind="stable")
    at = np.searchsorted(key[order], g.src * n + g.dst)
    return place[order[at]]


def _weighted_edges(G, weight, default):
    """(u, v, w) per edge; any hashable ``weight`` names the attribute (``True`` too, as in
    NetworkX's ``data.get(weight, 1)``), None weighs every edge 1."""
    if weight is None:
        return ((u, v, 1) for u, v in G.edges())
    return ((u, v, d.get(weight, default)) for u, v, d in G.edges(data=True))


def cached(G, weight) -> ArcGraph | None:
    """NetworkX's cached conversion of ``G`` weighted by ``weight`` (missing weights 1), if any:
    its weights were checked when it was made, and NetworkX drops it when ``G`` changes through
    its methods (a change it cannot see, it would run on the cached graph anyway)."""
    cache = getattr(G, "__networkx_cache__", None) or {}
    for key, g in cache.get("backends", {}).get("apsp_kernels", {}).items():
        if isinstance(g, ArcGraph) and key[0] == frozenset({(weight, 1)}) and g.weight == weight:
            return g
    return None


def weights_usable(G, weight, nonnegative: bool) -> bool | str:
    """True, or why the edge weights of ``G`` under ``weight`` cannot run here: a value that is
    not a finite number, or (``nonnegative``) a negative one. One pass over the edges, none
    where NetworkX holds a conversion for ``weight``."""
    if weight is None:
        return True
    if not isinstance(G, ArcGraph):
        G = cached(G, weight) or G
    if isinstance(G, ArcGraph):
        return "a negative weight: Dijkstra's answers are undefined" if nonnegative and G.negative else True
    values = ([w for *_, w in _weighted_edges(G, weight, 1)] if G.is_multigraph() else
              _adjacency_weights(G, weight, 1))
    w = np.asarray(values) if values else np.zeros(0)
    if w.dtype.kind in "biuf":  # plain numbers: checked in NumPy
        if not np.isfinite(w).all():
            return f"edge attribute {weight!r} holds {w[~np.isfinite(w)][0]!r}, not a finite number"
        negative = nonnegative and w.size and w.min() < 0
        return "a negative weight: NetworkX's Dijkstra may raise or return wrong lengths" if negative else True
    for w in values:
        if not isinstance(w, Number) or not np.isfinite(w):
            return f"edge attribute {weight!r} holds {w!r}, not a finite number"
        if nonnegative and w < 0:
            return "a negative weight: NetworkX's Dijkstra may raise or return wrong lengths"
    return True
