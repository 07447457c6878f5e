"""The ``networkx.backends`` entry point: conversions, ``can_run`` / ``should_run`` and the
functions (registered by their modules in :mod:`.registry`).

A NetworkX graph becomes an :class:`~apsp_kernels.nx_backend.arcs.ArcGraph`; each function
calls :func:`apsp_kernels.shortest_path` on it and returns NetworkX's types: dicts keyed by
node labels, ints for integer weights, generators where NetworkX returns generators.
What the backend cannot do as NetworkX does, ``can_run`` declines with the reason, and
NetworkX runs its own implementation (under ``backend_priority``; a call with an explicit
``backend="apsp_kernels"`` then raises NetworkX's ``NotImplementedError`` unless
``nx.config.fallback_to_nx`` is set).
"""
from __future__ import annotations

from . import FUNCTIONS as DOCS
from . import centrality, dense, generic, relabel, unweighted, weighted  # noqa: F401  (they register)
from .arcs import ArcGraph, weights_usable
from .registry import CHECKS, FUNCTIONS, bind, dijkstra_weights

_DIJKSTRA = {name for name in FUNCTIONS if "dijkstra" in name or name.startswith("astar")}
_GENERIC = {"shortest_path", "shortest_path_length", "all_shortest_paths",
            "single_source_all_shortest_paths", "all_pairs_all_shortest_paths"}
_FLOYD = {name for name in FUNCTIONS if name.startswith("floyd_warshall")}


def _negative_cycle(G, weight, loops: bool) -> bool:
    g = G if isinstance(G, ArcGraph) else ArcGraph.from_nx(G, weight)
    return weighted.negative_edge_cycle(g if loops else g.without_loops(), weight)


def _declines(name, arguments):
    """Why the backend declines this call, or None."""
    weight = arguments.get("weight")
    if callable(weight):
        return "a callable weight runs in NetworkX"
    check = CHECKS.get(name)
    if check is not None and (reason := check(arguments)) is not True:
        return reason
    if "weight" not in arguments or weight is None:
        return None
    method = arguments.get("method")
    if name == "average_shortest_path_length" and method == "unweighted":
        return None
    G = arguments["G"]
    nonnegative = name in _DIJKSTRA or (name in _GENERIC | {"average_shortest_path_length"}
                                        and dijkstra_weights(arguments))
    usable = weights_usable(G, weight, nonnegative)
    if usable is not True:
        return usable
    floyd = name in _FLOYD or (name == "average_shortest_path_length"
                               and str(method).startswith("floyd"))
    loops = name != "floyd_warshall_numpy" and method != "floyd-warshall-numpy"  # numpy: ignored
    if floyd and weights_usable(G, weight, True) is not True and _negative_cycle(G, weight, loops):
        return "a negative cycle: NetworkX's Floyd-Warshall returns loop-order-dependent values"
    return None


class BackendInterface:
    """What NetworkX loads for ``backend="apsp_kernels"``; each function's docstring says what runs."""

    @staticmethod
    def convert_from_nx(graph, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                        preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                        graph_name=None) -> ArcGraph:
        if preserve_edge_attrs:
            return ArcGraph.from_nx(graph, None, keep_attributes=True)
        (weight, default), = list((edge_attrs or {None: 1}).items())[:1]
        return ArcGraph.from_nx(graph, weight, 1 if default is None else default,
                                keep_attributes=preserve_node_attrs is True)

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        """An ArcGraph back as NetworkX (equal to the original where its attributes were kept);
        anything else unchanged."""
        return obj.to_nx() if isinstance(obj, ArcGraph) else obj

    @staticmethod
    def can_run(name, args, kwargs):
        """True, or the reason the backend declines (NetworkX's own implementation then runs)."""
        arguments = bind(name, args, kwargs)
        if isinstance(arguments, str):
            return arguments
        reason = _declines(name, arguments)
        return True if reason is None else reason

    @staticmethod
    def should_run(name, args, kwargs):
        """NetworkX's default: consulted only for automatic dispatch, which users opt into."""
        return True


def _attach(name, func):
    func.__doc__ = DOCS[name]
    setattr(BackendInterface, name, staticmethod(func))


for _name, _func in FUNCTIONS.items():
    _attach(_name, _func)
