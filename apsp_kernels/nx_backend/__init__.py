"""A NetworkX backend named ``apsp_kernels``: NetworkX's shortest-path functions (lengths,
paths, predecessors, all pairs, Floyd-Warshall, Johnson, negative cycles, averages) on
:func:`apsp_kernels.shortest_path`, and its closeness, harmonic and betweenness centrality and distance
measures (eccentricity, diameter, radius, center, periphery, barycenter) on
:mod:`apsp_kernels.centrality`, with NetworkX's semantics::

    import networkx as nx
    D = nx.floyd_warshall_numpy(G, backend="apsp_kernels")
    dist, paths = nx.single_source_dijkstra(G, source, backend="apsp_kernels")

Registered through two entry points (``pyproject.toml``): ``networkx.backends`` names
:class:`~apsp_kernels.nx_backend.interface.BackendInterface` (loaded on first use) and
``networkx.backend_info`` names :func:`get_info` (called when NetworkX is imported, so this
module imports nothing heavy; ``FUNCTIONS`` below is the list NetworkX dispatches). NetworkX
only dispatches here when asked: ``backend=`` or the user's own ``nx.config.backend_priority``.
Modules: ``arcs`` (the graph), ``search`` (rows, trees, NetworkX's dicts), ``weighted``,
``unweighted``, ``generic``, ``dense``, ``relabel``, ``centrality`` (the functions), ``registry``,
``interface``.

Weights run through the library's ``method="auto"`` (the GPU kernels where a GPU is usable)
under its precision contract: whole numbers exactly (int32, or float64 where int32 cannot hold
the distances), other weights in float64 as NetworkX sums them (a length may differ in the last
digit where two shortest paths tie and their sums round apart), float32 (about 7 significant
digits) only when ``nx.config.backends.apsp_kernels.float32`` is True.

Dijkstra's dicts (``single_source_dijkstra``, ``multi_source_dijkstra``, their ``_path`` and
``_path_length`` forms, ``all_pairs_dijkstra(_path)(_length)``, ``dijkstra_path``) are NetworkX's
own, key order and paths included, wherever every arc weighs more than zero, and so are the
breadth-first ones from a source (``single_source_shortest_path(_length)``,
``all_pairs_shortest_path(_length)``, ``shortest_path(G, source)``): NetworkX's settling order and
tree follow from the library's distances and G's adjacency order (``search.nx_dijkstra``).
Elsewhere (zero-weight arcs, Bellman-Ford, searches towards a target) paths come
from the library's predecessor tree (``return_predecessors=True``): where several paths are
shortest, the one returned may differ from NetworkX's (NetworkX keeps the first found in its
heap order); it is always a shortest path and the lengths equal NetworkX's. Predecessor
lists (``*_predecessor_and_distance``, ``predecessor``, ``all_shortest_paths``) hold the same
nodes as NetworkX's, perhaps in another order.

Declined (``can_run`` gives the reason; NetworkX runs its own under ``backend_priority``, or
raises its ``NotImplementedError`` for an explicit ``backend=`` without ``fallback_to_nx``): a
callable ``weight``, an A* ``heuristic``, a weight that is not a finite number, negative weights
in Dijkstra's functions, a negative cycle in Floyd-Warshall's, ``relabel_nodes`` that merges
nodes or works in place. Conversions are cached by NetworkX per graph and weight attribute
(``G.__networkx_cache__``, cleared when the graph changes through its methods); NetworkX
itself warns when it reuses one, unless ``nx.config.warnings_to_ignore.add("cache")``.
"""

_TREE = ("Paths follow the library's shortest-path tree (apsp_kernels.shortest_path(..., "
         "return_predecessors=True)): where several shortest paths tie, the path may differ from "
         "NetworkX's (both are shortest; lengths are equal).")
_EXACT = ("With every weight above zero, the dicts are NetworkX's own (key order and the path "
          "chosen among ties included); with zero-weight arcs, paths follow the library's tree "
          "(both are shortest; lengths are equal).")
_DIJKSTRA = ("Negative weights are declined (can_run): NetworkX's Dijkstra may raise or return "
             "wrong lengths there, and runs its own.")
_BELLMAN_FORD = ("Negative weights are allowed; a negative cycle reachable from the source raises "
                 "NetworkXUnbounded (one it cannot reach does not), as in NetworkX.")
_CUTOFF = "``cutoff`` keeps the lengths <= cutoff (the source always stays), as NetworkX's search."
_HOPS = ("Hop counts: apsp_kernels.shortest_path on the arcs with every arc weighing 1; ``cutoff`` "
         "keeps the levels NetworkX's breadth-first search reaches.")
_ROW = "One row: apsp_kernels.shortest_path(indices=[source])"
_BLOCKS = ("Every source, in blocks of rows, with apsp_kernels.shortest_path(indices=block); yields "
           "(node, ...) lazily in G's node order.")
_ROOT = ("One search from an added vertex with a zero-weight arc to each source; a node "
         "equally near two sources may get either.")
_FLOYD = ("All pairs with apsp_kernels.shortest_path on the arcs (the minimum weight over parallel "
          "edges; self loops ignored, as NetworkX does). A negative cycle is declined (can_run): "
          "NetworkX's Floyd-Warshall returns loop-order-dependent values there.")
_EXACT_HOPS = "NetworkX's own dict(s), key order and paths included."
_GENERIC = ("Runs the backend's own function exactly where NetworkX's picks its own (weight=None: "
            "hop counts; method='dijkstra' or 'bellman-ford').")
_ALL_PATHS = ("Every shortest path, from NetworkX's path builder over the predecessor lists: the "
              "predecessors u of v with d(u) + w(u, v) == d(v) on the library's distances.")
_CENTRALITY = ("apsp_kernels.centrality on the arcs (the lightest of parallel edges): every source's "
               "distances reduced block by block on the GPU (batched PHAST on road-like graphs), never "
               "the n x n matrix.")
_DISTANCE = ("A callable or negative ``distance`` is declined (can_run): these are Dijkstra's "
             "distances, and NetworkX runs its own.")
_MEASURE = ("A callable or negative ``weight``, and precomputed ``e=`` / ``sp=``, are declined "
            "(can_run); ``usebounds=True`` gives the same answer from the exact eccentricities. Not "
            "(strongly) connected: NetworkXError, as NetworkX.")

_BETWEENNESS = ("Exact Brandes on the host for now (apsp_kernels.centrality.betweenness, numba on every core; "
                "the GPU kernel is to come): NetworkX's Dijkstra or breadth-first search step for step over "
                "G's adjacency order, so ties count as in NetworkX; ``k`` sources drawn by NetworkX's "
                "``seed.sample(list(G), k)``; NetworkX's rescaling.")
_BETWEENNESS_DECLINED = ("A callable or negative ``weight`` and ``k`` outside 1..len(G) are declined (can_run).")

FUNCTIONS = {
    "floyd_warshall_numpy": f"{_FLOYD} Rows and columns in ``nodelist`` order.",
    "floyd_warshall": f"{_FLOYD} Returns NetworkX's dict of defaultdicts (inf where unreachable).",
    "floyd_warshall_predecessor_and_distance": f"{_FLOYD} Predecessors from the library's all-pairs "
        f"predecessors. {_TREE}",
    "all_pairs_dijkstra_path_length": f"{_BLOCKS} {_CUTOFF} {_DIJKSTRA}",
    "all_pairs_dijkstra_path": f"One tree per source, yielded lazily. {_CUTOFF} {_EXACT} {_DIJKSTRA}",
    "all_pairs_dijkstra": f"One tree per source, yielded lazily. {_CUTOFF} {_EXACT} {_DIJKSTRA}",
    "single_source_dijkstra_path_length": f"{_ROW}. {_CUTOFF} {_DIJKSTRA}",
    "single_source_dijkstra_path": f"{_ROW} with predecessors. {_CUTOFF} {_EXACT} {_DIJKSTRA}",
    "single_source_dijkstra": f"{_ROW} with predecessors. {_CUTOFF} {_EXACT} {_DIJKSTRA}",
    "multi_source_dijkstra": f"{_ROOT} {_CUTOFF} {_EXACT} {_DIJKSTRA}",
    "multi_source_dijkstra_path": f"{_ROOT} {_CUTOFF} {_EXACT} {_DIJKSTRA}",
    "multi_source_dijkstra_path_length": f"{_ROOT} {_CUTOFF} {_DIJKSTRA}",
    "dijkstra_path_length": f"{_ROW}, read at target. {_DIJKSTRA}",
    "dijkstra_path": f"{_ROW} with predecessors. {_EXACT} {_DIJKSTRA}",
    "bidirectional_dijkstra": f"{_ROW} with predecessors (one direction). {_TREE} {_DIJKSTRA}",
    "dijkstra_predecessor_and_distance": f"{_ROW}; every tight predecessor, nearest first. "
        f"{_CUTOFF} {_DIJKSTRA}",
    "astar_path": f"Without a heuristic only (a heuristic is declined): {_ROW} with predecessors. "
        f"``cutoff`` as NetworkX's. {_TREE} {_DIJKSTRA}",
    "astar_path_length": "Without a heuristic only (a heuristic is declined): "
        f"{_ROW}. {_DIJKSTRA}",
    "all_pairs_bellman_ford_path_length": f"{_BLOCKS} {_BELLMAN_FORD}",
    "all_pairs_bellman_ford_path": f"One tree per source, yielded lazily. {_TREE} {_BELLMAN_FORD}",
    "single_source_bellman_ford_path_length": f"{_ROW}. {_BELLMAN_FORD}",
    "single_source_bellman_ford_path": f"{_ROW} with predecessors. {_TREE} {_BELLMAN_FORD}",
    "single_source_bellman_ford": f"{_ROW} with predecessors. {_TREE} {_BELLMAN_FORD}",
    "bellman_ford_path_length": f"{_ROW}, read at target. {_BELLMAN_FORD}",
    "bellman_ford_path": f"{_ROW} with predecessors. {_TREE} {_BELLMAN_FORD}",
    "bellman_ford_predecessor_and_distance": f"{_ROW}; every tight predecessor, nearest first. "
        f"{_BELLMAN_FORD} A negative self loop anywhere raises NetworkXUnbounded, as NetworkX.",
    "goldberg_radzik": f"{_ROW} with predecessors (the tree's parent of each node). {_TREE} "
        f"{_BELLMAN_FORD}",
    "negative_edge_cycle": "One search from an added vertex with a zero-weight arc to every node: "
        "True where the library finds a negative cycle.",
    "johnson": f"One tree per source (the library handles negative weights itself). {_TREE} "
        "A negative cycle anywhere raises NetworkXUnbounded, as NetworkX.",
    "single_source_shortest_path_length": f"One row. {_HOPS}",
    "single_target_shortest_path_length": f"One row on the reversed arcs. {_HOPS}",
    "all_pairs_shortest_path_length": f"{_BLOCKS} {_HOPS}",
    "single_source_shortest_path": f"One row with predecessors. {_HOPS} {_EXACT_HOPS}",
    "single_target_shortest_path": f"One row with predecessors on the reversed arcs. {_HOPS} {_TREE}",
    "all_pairs_shortest_path": f"One tree per source, yielded lazily. {_HOPS} {_EXACT_HOPS}",
    "bidirectional_shortest_path": f"One row with predecessors. {_HOPS} {_TREE}",
    "predecessor": f"One row; every predecessor one level up, nearest first. {_HOPS}",
    "shortest_path": f"{_GENERIC} Its paths are those of the function it runs: NetworkX's own from a "
                     "source alone (breadth-first, or Dijkstra with every weight above zero).",
    "shortest_path_length": _GENERIC,
    "has_path": "One row of hop counts from source.",
    "average_shortest_path_length": f"{_GENERIC} Sums every row (in blocks); connectivity from "
        "SciPy's connected_components on the arcs.",
    "all_shortest_paths": _ALL_PATHS,
    "single_source_all_shortest_paths": _ALL_PATHS,
    "all_pairs_all_shortest_paths": _ALL_PATHS,
    "convert_node_labels_to_integers": "The same arcs under new labels; the attributes are kept "
        "(NetworkX preserves them for this function), so converting back gives NetworkX's graph.",
    "relabel_nodes": "The same arcs under new labels, for ``copy=True`` and a mapping that keeps "
        "the nodes apart (merging nodes, or ``copy=False``, is declined).",
    "closeness_centrality": f"{_CENTRALITY} Over the distances to each node (wf_improved as given). {_DISTANCE}",
    "harmonic_centrality": f"{_CENTRALITY} ``nbunch`` and ``sources`` as NetworkX's (one search per node "
        f"of ``nbunch`` on the reversed arcs when it is the smaller). {_DISTANCE}",
    "eccentricity": f"{_CENTRALITY} One search per node of ``v``. {_MEASURE}",
    "diameter": f"{_CENTRALITY} {_MEASURE}",
    "radius": f"{_CENTRALITY} {_MEASURE}",
    "periphery": f"{_CENTRALITY} {_MEASURE}",
    "center": f"{_CENTRALITY} {_MEASURE}",
    "barycenter": f"{_CENTRALITY} The nodes of least distance sum; ``attr=`` and ``sp=`` are declined "
        "(can_run): NetworkX writes into G or reads the lengths given.",
    "betweenness_centrality": f"{_BETWEENNESS} {_BETWEENNESS_DECLINED}",
    "edge_betweenness_centrality": f"{_BETWEENNESS} Keys as NetworkX's: G.edges() orientation, (u, v, key) for "
        f"a multigraph (an edge's value shared by its lightest parallel edges). {_BETWEENNESS_DECLINED}",
}


def get_info() -> dict:
    """The ``networkx.backend_info`` entry point: what NetworkX adds to its docstrings and config."""
    return {
        "backend_name": "apsp_kernels",
        "project": "apsp_kernels",
        "package": "apsp_kernels",
        "short_summary": "GPU shortest-path kernels (CuPy) behind scipy.sparse.csgraph's interface.",
        "description": __doc__,
        "default_config": {"float32": False},
        "functions": {name: {"additional_docs": docs} for name, docs in FUNCTIONS.items()},
    }
