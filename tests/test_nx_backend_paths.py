"""The backend's path-returning and combined functions against NetworkX's own, through NetworkX's
dispatch. Lengths, exceptions and key sets must equal NetworkX's; a path may differ where
shortest paths tie (the library's predecessor tree picks one), so each path is checked to be a
shortest path instead: it starts and ends where asked, follows arcs of the graph, and its
length (the lightest parallel edge each step) equals NetworkX's distance.
"""
import networkx as nx
import numpy as np
import pytest

from apsp_kernels.nx_backend.interface import BackendInterface
from test_nx_backend import BACKEND, GRAPHS, MISSING, NEGATIVE, require_backend

pytestmark = [pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs"),
              pytest.mark.filterwarnings("ignore:apsp_kernels. no CUDA GPU")]


@pytest.fixture(autouse=True)
def _registered():
    require_backend()

NO_CYCLE = {k: NEGATIVE[k] for k in ("negative_dag",)}
CYCLES = {k: NEGATIVE[k] for k in ("cycle_late", "negative_undirected", "negative_loop")}


def _grid():
    """Many ties: every monotone lattice path is shortest."""
    G = nx.grid_2d_graph(5, 5)
    nx.set_edge_attributes(G, 2, "weight")
    return G, "weight"


TIES = {"grid": _grid(), "hypercube": (nx.hypercube_graph(4), "weight")}
ALL = {**GRAPHS, **NO_CYCLE, **TIES}


def _step(G, u, v, weight):
    data = G[u][v]
    if G.is_multigraph():
        return min(d.get(weight, 1) for d in data.values())
    return data.get(weight, 1) if weight is not None else 1


def _assert_shortest(G, path, source, target, length, weight):
    assert path[0] == source and path[-1] == target
    assert all(G.has_edge(u, v) for u, v in zip(path, path[1:]))
    assert sum(_step(G, u, v, weight) for u, v in zip(path, path[1:])) == length


def _outcome(call):
    try:
        return call()
    except (nx.NetworkXException, ValueError) as exc:
        return type(exc)


def _both(name, *args, **kwargs):
    f = getattr(nx, name)
    return (_outcome(lambda: f(*args, backend=BACKEND, **kwargs)),
            _outcome(lambda: f(*args, backend="networkx", **kwargs)))


def _typed(d):
    return {k: (type(v), v) for k, v in d.items()}


# ----------------------------------------------------------------------------- single source
@pytest.mark.parametrize("name", ["single_source_dijkstra", "single_source_bellman_ford"])
@pytest.mark.parametrize("graph", ALL)
def test_single_source_lengths_equal_and_paths_are_shortest(graph, name):
    G, weight = ALL[graph]
    if "dijkstra" in name and graph in NO_CYCLE:
        pytest.skip("Dijkstra declines negative weights")
    for source in [*G, *MISSING[:1]]:
        ours, theirs = _both(name, G, source, weight=weight)
        if isinstance(theirs, type):
            assert ours is theirs
            continue
        (dist, paths), (nx_dist, nx_paths) = ours, theirs
        assert _typed(dist) == _typed(nx_dist) and paths.keys() == nx_paths.keys()
        for target, path in paths.items():
            _assert_shortest(G, path, source, target, nx_dist[target], weight)
        for target in [*G, "nowhere"]:
            one = _both(name, G, source, target, weight=weight)
            if isinstance(one[1], type):
                assert one[0] is one[1]
            else:
                assert type(one[0][0]) is type(one[1][0]) and one[0][0] == one[1][0]
                _assert_shortest(G, one[0][1], source, target, one[1][0], weight)


@pytest.mark.parametrize("name", ["dijkstra_path", "bellman_ford_path", "bidirectional_dijkstra",
                                  "astar_path", "astar_path_length"])
@pytest.mark.parametrize("graph", GRAPHS | TIES)
def test_source_target_paths(graph, name):
    G, weight = (GRAPHS | TIES)[graph]
    for source in [*G, "nowhere"]:
        for target in [*G, "nowhere"]:
            ours, theirs = _both(name, G, source, target, weight=weight)
            if isinstance(theirs, type):
                assert ours is theirs, (source, target)
            elif name == "astar_path_length":
                assert _typed({0: ours}) == _typed({0: theirs})
            else:
                path = ours[1] if name == "bidirectional_dijkstra" else ours
                length = theirs[0] if name == "bidirectional_dijkstra" else \
                    nx.dijkstra_path_length(G, source, target, weight=weight)
                _assert_shortest(G, path, source, target, length, weight)


@pytest.mark.parametrize("graph", GRAPHS | TIES)
def test_multi_source_dijkstra(graph):
    G, weight = (GRAPHS | TIES)[graph]
    nodes = list(G)
    for sources in ({nodes[0]}, set(nodes[::2]), set(nodes[1::3]) or {nodes[0]}):
        (dist, paths), (nx_dist, _) = _both("multi_source_dijkstra", G, sources, weight=weight)
        assert _typed(dist) == _typed(nx_dist) and paths.keys() == nx_dist.keys()
        for target, path in paths.items():
            assert path[0] in sources
            _assert_shortest(G, path, path[0], target, nx_dist[target], weight)
        ours, theirs = _both("multi_source_dijkstra_path_length", G, sources, weight=weight)
        assert _typed(ours) == _typed(theirs)
    for bad in (set(), {"nowhere"}):
        ours, theirs = _both("multi_source_dijkstra", G, bad, weight=weight)
        assert ours is theirs


@pytest.mark.parametrize("graph", ALL)
def test_all_pairs_paths_johnson_and_floyd_warshall(graph):
    G, weight = ALL[graph]
    lengths = dict(nx.all_pairs_bellman_ford_path_length(G, weight=weight))
    funcs = ["all_pairs_bellman_ford_path", "johnson"]
    if graph not in NO_CYCLE:
        funcs += ["all_pairs_dijkstra_path"]
        gen = nx.all_pairs_dijkstra(G, weight=weight, backend=BACKEND)
        assert [node for node, _ in gen] == list(G)
    for name in funcs:
        out = getattr(nx, name)(G, weight=weight, backend=BACKEND)
        paths = dict(out)
        assert list(paths) == list(G)
        for s, row in paths.items():
            assert row.keys() == lengths[s].keys()
            for t, path in row.items():
                _assert_shortest(G, path, s, t, lengths[s][t], weight)
    pred, dist = nx.floyd_warshall_predecessor_and_distance(G, weight=weight, backend=BACKEND)
    _, nx_dist = nx.floyd_warshall_predecessor_and_distance(G, weight=weight)
    assert {u: dict(r) for u, r in dist.items()} == {u: dict(r) for u, r in nx_dist.items()}
    for s in G:
        for t in G:
            if s != t and np.isfinite(dist[s][t]):
                _assert_shortest(G, nx.reconstruct_path(s, t, pred), s, t, dist[s][t], weight)


@pytest.mark.parametrize("graph", {**GRAPHS, **TIES})
def test_unweighted_paths(graph):
    G, _ = ({**GRAPHS, **TIES})[graph]
    hops = dict(nx.all_pairs_shortest_path_length(G))
    for s, row in nx.all_pairs_shortest_path(G, backend=BACKEND):
        assert row.keys() == hops[s].keys()
        for t, path in row.items():
            _assert_shortest(G, path, s, t, hops[s][t], None)
    for target in G:
        paths = nx.single_target_shortest_path(G, target, backend=BACKEND)
        assert paths.keys() == nx.single_target_shortest_path(G, target).keys()
        for s, path in paths.items():
            _assert_shortest(G, path, s, target, hops[s][target], None)
        assert _both("single_target_shortest_path_length", G, target)[0] == \
            nx.single_target_shortest_path_length(G, target)
    for s in [*G, "nowhere"]:
        ours, theirs = _both("predecessor", G, s)
        if isinstance(theirs, type):
            assert ours is theirs
        else:  # the same predecessors, perhaps in another order
            assert {k: set(v) for k, v in ours.items()} == {k: set(v) for k, v in theirs.items()}
        for t in [*G, "nowhere"]:
            ours, theirs = _both("has_path", G, s, t)
            assert ours == theirs
            ours, theirs = _both("bidirectional_shortest_path", G, s, t)
            if isinstance(theirs, type):
                assert ours is theirs
            else:
                _assert_shortest(G, ours, s, t, len(theirs) - 1, None)


@pytest.mark.parametrize("weight", [None, "weight"])
@pytest.mark.parametrize("method", ["dijkstra", "bellman-ford"])
@pytest.mark.parametrize("graph", GRAPHS | TIES)
def test_generic_shortest_path_and_all_shortest_paths(graph, method, weight):
    G, _ = (GRAPHS | TIES)[graph]
    nodes = list(G)
    s, t = nodes[0], nodes[-1]
    kw = {"weight": weight, "method": method}
    for args in ((), (s,), (None, t)):
        ours, theirs = _both("shortest_path_length", G, *args, **kw)
        ours, theirs = (dict(ours), dict(theirs)) if not args else (ours, theirs)
        assert ours == theirs
        paths = _both("shortest_path", G, *args, **kw)[0]
        assert (dict(paths) if not args else paths).keys() == theirs.keys()
    ours, theirs = _both("shortest_path", G, s, t, **kw)
    if isinstance(theirs, type):
        assert ours is theirs
    else:
        _assert_shortest(G, ours, s, t, nx.shortest_path_length(G, s, t, **kw), weight)
    for source in nodes:
        ours = {k: sorted(map(tuple, v)) for k, v in
                nx.single_source_all_shortest_paths(G, source, backend=BACKEND, **kw)}
        theirs = {k: sorted(map(tuple, v)) for k, v in
                  nx.single_source_all_shortest_paths(G, source, **kw)}
        assert ours == theirs
    ours, theirs = _both("average_shortest_path_length", G, weight, method)
    assert ours == (theirs if isinstance(theirs, type) else pytest.approx(theirs, rel=1e-12))


@pytest.mark.parametrize("graph", {**GRAPHS, **NEGATIVE})
def test_negative_edge_cycle_and_unbounded(graph):
    G, weight = {**GRAPHS, **NEGATIVE}[graph]
    ours, theirs = _both("negative_edge_cycle", G, weight=weight)
    assert ours == theirs
    for source in G:
        for name in ("single_source_bellman_ford", "goldberg_radzik",
                     "bellman_ford_predecessor_and_distance"):
            ours, theirs = _both(name, G, source, weight=weight)
            if isinstance(theirs, type):
                assert ours is theirs, (name, source)
            else:  # the distances equal NetworkX's, with their types
                at = 0 if name == "single_source_bellman_ford" else 1
                assert _typed(ours[at]) == _typed(theirs[at]), (name, source)
    ours, theirs = _both("johnson", G, weight=weight)
    assert (ours is nx.NetworkXUnbounded) == (theirs is nx.NetworkXUnbounded)


def test_relabel_round_trips_every_attribute():
    G = nx.MultiDiGraph(name="g")
    G.add_node("a", color="red")
    G.add_edge("a", "b", key="k", weight=3, tag=1)
    G.add_edge("a", "b", weight=1)
    for ordering in ("default", "sorted", "increasing degree", "decreasing degree"):
        ours = nx.convert_node_labels_to_integers(G, 5, ordering, "old", backend=BACKEND)
        theirs = nx.convert_node_labels_to_integers(G, 5, ordering, "old")
        back = BackendInterface.convert_to_nx(ours)
        assert back.graph == theirs.graph and dict(back.nodes(data=True)) == \
            dict(theirs.nodes(data=True))
        assert sorted(back.edges(keys=True, data=True), key=str) == \
            sorted(theirs.edges(keys=True, data=True), key=str)
    assert nx.dijkstra_path_length(BackendInterface.convert_to_nx(
        nx.relabel_nodes(G, {"a": 0}, backend=BACKEND)), 0, "b") == 1


def test_declines_name_their_reason():
    G, _ = NEGATIVE["negative_dag"]
    cases = [("astar_path", (G, "s", "d"), {"heuristic": lambda u, v: 0}, "heuristic"),
             ("single_source_dijkstra", (G, "s"), {}, "negative"),
             ("single_source_dijkstra", (GRAPHS["digraph"][0], "a"),
              {"weight": lambda u, v, d: 1}, "callable"),
             ("floyd_warshall", (NEGATIVE["cycle_late"][0],), {}, "negative cycle"),
             ("relabel_nodes", (G, {"s": "a"}), {}, "merges"),
             ("relabel_nodes", (G, {"s": "z"}), {"copy": False}, "in place")]
    for name, args, kwargs, word in cases:
        reason = BackendInterface.can_run(name, args, kwargs)
        assert isinstance(reason, str) and word in reason, (name, reason)
    assert BackendInterface.can_run("single_source_bellman_ford", (G, "s"), {}) is True
    assert BackendInterface.can_run("floyd_warshall", (G,), {}) is True


# ----------------------------------------------------------------------------- the path builder
def _random_forest(rng, n):
    """Predecessors of a random forest on ``n`` vertices: a few roots (-1), each other vertex's
    parent an earlier vertex of a random order; vertices left out of the targets play the
    unreached ones."""
    order = rng.permutation(n)
    pred = np.full(n, -1, np.int64)
    for k in range(1, n):
        if rng.random() < 0.9:  # else a new root
            pred[order[k]] = order[rng.integers(max(0, k - 4), k)]  # deep chains and bushes
    return pred


def _walked(pred, labels, t):
    path = [labels[t]]
    while pred[t] >= 0:
        t = pred[t]
        path.append(labels[t])
    return path[::-1]


@pytest.mark.parametrize("seed", range(6))
def test_path_builder_equals_walking_up_the_tree(seed):
    """search.paths gives, for each target in the targets' order, exactly the labels on the walk
    from its root, also where targets leave out ancestors (the builder adds them) or vertices
    (unreached: no key), with string labels, and reversed for searches on reversed arcs."""
    from types import SimpleNamespace

    from apsp_kernels.nx_backend import search

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    pred = _random_forest(rng, n)
    labels = [f"v{i}" for i in rng.permutation(n)] if seed % 2 else rng.permutation(n).tolist()
    g = SimpleNamespace(nodes=labels)
    targets = rng.permutation(n)[:int(rng.integers(0, n + 1))].tolist()
    got = search.paths(g, pred, targets)
    assert list(got) == [labels[t] for t in targets]
    for t in targets:
        assert got[labels[t]] == _walked(pred, labels, t)
    back = search.paths(g, pred, targets, reverse=True)
    assert list(back) == list(got) and all(back[k] == p[::-1] for k, p in got.items())
    built = search.tree_paths(pred, labels, targets)
    assert all(built[t] == _walked(pred, labels, t) for t in targets)
    ancestors = {u for t in targets for u in range(n) if labels[u] in got[labels[t]]}
    assert {i for i, p in enumerate(built) if p is not None} == ancestors


def test_path_builder_depths():
    from apsp_kernels.nx_backend import search

    pred = np.array([-1, 0, 1, 2, -1, 4, 0, -1])
    assert search.depths(pred).tolist() == [0, 1, 2, 3, 0, 1, 1, 0]


def _tie_graphs():
    """Graphs where shortest paths tie often, in chains (a grid of equal weights) and here and
    there (small integer weights), directed, undirected and multigraphs, with string labels."""
    rng = np.random.default_rng(7)
    out = {"grid": _grid()[0]}
    for kind in (nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph):
        G = nx.gnm_random_graph(60, 240, seed=int(rng.integers(1 << 30)), directed=kind().is_directed())
        G = kind(nx.relabel_nodes(G, {v: f"n{(v * 37) % 60}" for v in G}))
        for u, v, *k in list(G.edges(keys=True) if G.is_multigraph() else G.edges()):
            G.add_edge(u, v, *k, weight=int(rng.integers(1, 4)))
        if G.is_multigraph():
            G.add_edges_from((u, v, {"weight": 1}) for u, v in list(G.edges())[:20])
        out[kind.__name__] = G
    out["float"] = nx.DiGraph([(u, v, {"weight": float(rng.choice([0.5, 1.25, 1.75]))})
                               for u, v in nx.gnm_random_graph(50, 200, seed=3, directed=True).edges()])
    return out


@pytest.mark.parametrize("graph", list(_tie_graphs().items()), ids=lambda x: x[0] if isinstance(x, tuple) else x)
@pytest.mark.parametrize("cutoff", [None, 4, -1])
@pytest.mark.parametrize("rounds", [8, 0])
def test_dijkstra_returns_exactly_networkx_s_dicts(graph, cutoff, rounds, monkeypatch):
    """With positive weights the backend's Dijkstra and breadth-first dicts are NetworkX's own,
    key order and tie choices included: the lengths, each path list, and the order of both
    dicts; by refining all ties at once and (rounds=0) one group of ties after the other."""
    from apsp_kernels.nx_backend import search

    monkeypatch.setattr(search, "NX_ORDER_ROUNDS", rounds)
    _, G = graph
    nodes = list(G)
    sources = [nodes[0], nodes[5], nodes[3], nodes[0]]
    calls = [("single_source_dijkstra", (G, nodes[1]), {"cutoff": cutoff}),
             ("single_source_dijkstra_path", (G, nodes[2]), {"cutoff": cutoff}),
             ("single_source_dijkstra_path_length", (G, nodes[2]), {"cutoff": cutoff}),
             ("multi_source_dijkstra", (G, sources), {"cutoff": cutoff}),
             ("multi_source_dijkstra_path_length", (G, sources), {"cutoff": cutoff}),
             ("dijkstra_path", (G, nodes[0], nodes[-1]), {}),
             ("single_source_shortest_path", (G, nodes[1]), {"cutoff": cutoff}),
             ("single_source_shortest_path_length", (G, nodes[1]), {"cutoff": cutoff}),
             ("shortest_path", (G, nodes[2]), {}),
             ("shortest_path", (G, nodes[2]), {"weight": "weight"})]
    for name, args, kwargs in calls:
        want = _outcome(lambda: getattr(nx, name)(*args, **kwargs, backend="networkx"))
        got = _outcome(lambda: getattr(nx, name)(*args, **kwargs, backend=BACKEND))
        assert got == want, name
        for a, b in zip(*(x if isinstance(x, tuple) else (x,) for x in (got, want))):
            if isinstance(a, dict):
                assert list(a.items()) == list(b.items()), name
    rows = dict(nx.all_pairs_dijkstra_path_length(G, cutoff=cutoff, backend=BACKEND))
    for v, want in nx.all_pairs_dijkstra_path_length(G, cutoff=cutoff, backend="networkx"):
        assert list(rows[v].items()) == list(want.items())
    hops = dict(nx.all_pairs_shortest_path(G, cutoff=cutoff, backend=BACKEND))
    for v, want in nx.all_pairs_shortest_path(G, cutoff=cutoff, backend="networkx"):
        assert list(hops[v].items()) == list(want.items())
    g = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert search.nx_dijkstra(g, search.row(g, 0), [0]) is not None  # the exact path was taken


@pytest.mark.parametrize("kind", [nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph])
def test_conversion_keeps_adjacency_places(kind):
    """Each arc knows where its head comes among its tail's neighbours in G._adj (the order in
    which NetworkX relaxes them), and the arcs are G's, the lightest of parallel edges."""
    from apsp_kernels.nx_backend.arcs import ArcGraph

    G = kind(nx.gnm_random_graph(25, 90, seed=4, directed=kind().is_directed()))
    G.add_edges_from([(3, 3, {"weight": 2}), (5, 1, {"weight": 0.5}), (1, 5, {"weight": 7})])
    g = ArcGraph.from_nx(G, "weight")
    assert g.pos is not None and g.src.size == sum(map(len, G._adj.values()))
    for u, v, place, w in zip(g.src.tolist(), g.dst.tolist(), g.pos.tolist(), g.w.tolist()):
        assert list(G._adj[u]).index(v) == place
        data = G[u][v]
        assert w == (min(d.get("weight", 1) for d in data.values()) if G.is_multigraph()
                     else data.get("weight", 1))


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["single_source_dijkstra", "single_source_shortest_path",
                                  "single_source_dijkstra_path_length"])
def test_road_graph_dicts_from_the_gpu_equal_networkx_s_in_order(name):
    """On the GPU (its distances and trees), a road-like graph of 20000 vertices: the backend's
    dicts equal NetworkX's item by item in order, paths included, and the exact order was taken."""
    from apsp_kernels import generators, gpu
    from apsp_kernels.experiments import library
    from apsp_kernels.nx_backend import search

    assert gpu.available()
    G = library.networkx_graph(generators.road_like(20000, 50000, seed=3).to_scipy())
    want = getattr(nx, name)(G, 0, backend="networkx")
    got = getattr(nx, name)(G, 0, backend=BACKEND)
    for a, b in zip(*(x if isinstance(x, tuple) else (x,) for x in (got, want))):
        assert list(a.items()) == list(b.items())
    g = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert search.nx_dijkstra(g, search.row(g, 0), [0]) is not None
