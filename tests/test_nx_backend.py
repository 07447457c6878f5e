"""The NetworkX backend ``apsp_kernels`` against NetworkX's own implementations, through
NetworkX's real dispatch (``backend="apsp_kernels"`` versus ``backend="networkx"``).

Results are compared with their Python types (ints where NetworkX gives ints); float weights
are dyadic (exact in any summation order) except where a test says otherwise.
"""
import inspect
import os
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest

from apsp_kernels import install_check
from apsp_kernels.nx_backend import FUNCTIONS
from apsp_kernels.nx_backend import registry
from apsp_kernels.nx_backend.interface import BackendInterface

BACKEND = "apsp_kernels"
pytestmark = [pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs"),
              pytest.mark.filterwarnings("ignore:apsp_kernels. no CUDA GPU")]

DIJKSTRA = ["all_pairs_dijkstra_path_length", "single_source_dijkstra_path_length",
            "dijkstra_path_length"]
BELLMAN_FORD = ["all_pairs_bellman_ford_path_length", "single_source_bellman_ford_path_length",
                "bellman_ford_path_length"]
HOPS = ["all_pairs_shortest_path_length", "single_source_shortest_path_length"]


def require_backend():
    """NetworkX sees a backend only through its installed entry point: skip, saying how to install
    the package, where it is only importable (e.g. on PYTHONPATH); fail where an install lacks it."""
    problem = install_check.backend_problem()
    if problem:
        (pytest.fail if install_check.installed() else pytest.skip)(problem)
    assert BACKEND in nx.utils.backends.backends


@pytest.fixture(autouse=True)
def _registered():
    require_backend()


def _graphs():
    """name -> (graph, weight attribute): graphs without negative weights."""
    d = nx.DiGraph()  # string labels, a zero weight, a missing weight, a self loop, two parts
    d.add_weighted_edges_from([("a", "b", 2), ("b", "c", 0), ("a", "c", 5), ("c", "a", 1),
                               ("d", "d", 3), ("e", "f", 7)])
    d.add_edge("b", "d")
    d.add_node("iso")
    g = nx.Graph()  # undirected, tuple labels, float weights
    g.add_weighted_edges_from([((0, 0), (0, 1), 0.5), ((0, 1), (1, 1), 0.25), ((0, 0), (1, 1), 1.0),
                               ((1, 1), (2, 2), 0.0), ((5, 5), (6, 6), 2.5)])
    g.add_node((9, 9))
    md = nx.MultiDiGraph()  # parallel arcs of different weights, one without a weight (1)
    md.add_weighted_edges_from([(0, 1, 3), (0, 1, 1), (1, 2, 4), (2, 0, 2), (3, 4, 1), (3, 4, 0)])
    md.add_edge(1, 2)
    mg = nx.MultiGraph()  # undirected parallel edges
    mg.add_weighted_edges_from([("x", "y", 2.5), ("y", "x", 0.75), ("y", "z", 1.5), ("z", "x", 4.0),
                                ("w", "w", 0.5)])
    mg.add_node("v")
    c = nx.DiGraph()  # weights under "cost" (one missing), a "weight" attribute to ignore, 1 and "1"
    c.add_edge(1, 2, cost=4, weight=1)
    c.add_edge(2, 3, weight=9)
    c.add_edge(1, 3, cost=7, weight=1)
    c.add_edge(3, 1, cost=2)
    c.add_edge(3, "1", cost=5)
    return {"digraph": (d, "weight"), "graph": (g, "weight"), "multidigraph": (md, "weight"),
            "multigraph": (mg, "weight"), "cost": (c, "cost"), "path": (nx.path_graph(6), "weight")}


def _negative_graphs():
    """name -> (graph, weight attribute): negative weights, with and without negative cycles."""
    dag = nx.DiGraph()
    dag.add_weighted_edges_from([("s", "a", 4), ("s", "b", 2), ("b", "a", -3), ("a", "c", -1),
                                 ("b", "c", 5), ("c", "d", 2)])
    dag.add_node("iso")
    late = nx.DiGraph()  # 0 and 1 cannot reach the cycle 2 -> 3 -> 2 and come first
    late.add_weighted_edges_from([(0, 1, 1), (2, 3, -2), (3, 2, 1)])
    und = nx.Graph()  # a negative undirected edge is a negative cycle of two arcs
    und.add_weighted_edges_from([("a", "b", -1), ("b", "c", 2), ("d", "e", 1)])
    loop = nx.DiGraph()  # a negative self loop that 2 and 3 cannot reach
    loop.add_weighted_edges_from([(0, 1, 2), (1, 1, -1), (2, 3, 1)])
    return {"negative_dag": (dag, "weight"), "cycle_late": (late, "weight"),
            "negative_undirected": (und, "weight"), "negative_loop": (loop, "weight")}


GRAPHS = _graphs()
NEGATIVE = _negative_graphs()
EVERY = {**GRAPHS, **NEGATIVE}
MISSING = ["nowhere", ["unhashable"]]


def _typed(value):
    """A result with the Python type of every length, so that 1 and 1.0 differ."""
    if isinstance(value, dict):
        return {k: (type(v), v) for k, v in value.items()}
    return type(value), value


def _run(name, *args, backend, **kwargs):
    """What a call gives: the typed result, the exception type, or for a generator its items up
    to the exception it raised (NetworkX's generators raise lazily). TypeError is NetworkX's
    answer to an unhashable source in some functions (NodeNotFound in others)."""
    try:
        out = getattr(nx, name)(*args, backend=backend, **kwargs)
    except (nx.NetworkXException, TypeError) as exc:
        return type(exc)
    if not inspect.isgenerator(out):
        return _typed(out)
    items = []
    try:
        items += [(node, _typed(lengths)) for node, lengths in out]
    except nx.NetworkXException as exc:
        items.append(type(exc))
    return items


def _assert_same(name, *args, **kwargs):
    ours = _run(name, *args, backend=BACKEND, **kwargs)
    assert ours == _run(name, *args, backend="networkx", **kwargs)
    return ours


def _weight(name, weight):
    return {} if name in HOPS else {"weight": weight}


# ----------------------------------------------------------------------------- the functions
@pytest.mark.parametrize("graph", EVERY)
def test_floyd_warshall_numpy_matches_networkx_in_nodelist_order(graph):
    G, weight = EVERY[graph]
    nodes = list(G)
    for nodelist in (None, nodes[::-1], nodes[1:] + nodes[:1]):
        if graph in ("cycle_late", "negative_undirected"):  # NetworkX's values are order-dependent
            with pytest.raises(NotImplementedError):
                nx.floyd_warshall_numpy(G, nodelist, weight, backend=BACKEND)
            continue
        ours = nx.floyd_warshall_numpy(G, nodelist, weight, backend=BACKEND)
        theirs = nx.floyd_warshall_numpy(G, nodelist, weight, backend="networkx")
        np.testing.assert_array_equal(ours, theirs)
        assert ours.dtype == np.float64


@pytest.mark.parametrize("nodelist", [["a", "b"], ["a", "a", "b", "c", "d", "e", "f"],
                                      ["a", "b", "c", "d", "e", "f", "zz"]])
def test_floyd_warshall_numpy_rejects_a_bad_nodelist(nodelist):
    G = GRAPHS["digraph"][0]
    with pytest.raises(nx.NetworkXError):
        nx.floyd_warshall_numpy(G, nodelist, backend=BACKEND)


@pytest.mark.parametrize("name", [DIJKSTRA[0], BELLMAN_FORD[0], HOPS[0]])
@pytest.mark.parametrize("graph", GRAPHS)
def test_all_pairs_match_networkx_as_generators(graph, name):
    G, weight = GRAPHS[graph]
    out = getattr(nx, name)(G, backend=BACKEND, **_weight(name, weight))
    assert inspect.isgenerator(out)
    assert [node for node, _ in _assert_same(name, G, **_weight(name, weight))] == list(G)


@pytest.mark.parametrize("name", [DIJKSTRA[1], BELLMAN_FORD[1], HOPS[1]])
@pytest.mark.parametrize("graph", GRAPHS)
def test_single_source_matches_networkx(graph, name):
    G, weight = GRAPHS[graph]
    for source in [*G, *MISSING]:
        _assert_same(name, G, source, **_weight(name, weight))


@pytest.mark.parametrize("name", [DIJKSTRA[2], BELLMAN_FORD[2]])
@pytest.mark.parametrize("graph", GRAPHS)
def test_source_target_lengths_match_networkx(graph, name):
    G, weight = GRAPHS[graph]
    for source in [*G, *MISSING]:
        for target in [*G, "nowhere"]:
            _assert_same(name, G, source, target, weight=weight)


@pytest.mark.parametrize("cutoff", [-1, 0, 0.75, 1, 1.5, 2, 2.5, 4])
@pytest.mark.parametrize("graph", GRAPHS)
def test_cutoff_matches_networkx(graph, cutoff):
    G, weight = GRAPHS[graph]
    _assert_same(DIJKSTRA[0], G, cutoff=cutoff, weight=weight)
    _assert_same(HOPS[0], G, cutoff=cutoff)
    for source in G:
        _assert_same(DIJKSTRA[1], G, source, cutoff=cutoff, weight=weight)
        _assert_same(HOPS[1], G, source, cutoff=cutoff)


def test_parallel_edges_keep_the_lightest_and_weight_names_the_attribute():
    md, _ = GRAPHS["multidigraph"]
    assert nx.dijkstra_path_length(md, 0, 1, backend=BACKEND) == 1
    assert nx.dijkstra_path_length(md, 3, 4, backend=BACKEND) == 0
    c, _ = GRAPHS["cost"]
    assert nx.single_source_dijkstra_path_length(c, 1, weight="cost", backend=BACKEND) == \
        {1: 0, 2: 4, 3: 5, "1": 10}
    assert nx.single_source_dijkstra_path_length(c, 1, backend=BACKEND) == {1: 0, 2: 1, 3: 1, "1": 2}



def test_calls_without_weights_ignore_a_cached_weighted_conversion():
    G, _ = GRAPHS["digraph"]
    nx.single_source_dijkstra_path_length(G, "a", backend=BACKEND)  # caches the weighted arcs
    _assert_same(HOPS[1], G, "a")
    _assert_same(DIJKSTRA[1], G, "a", weight=None)
    np.testing.assert_array_equal(nx.floyd_warshall_numpy(G, weight=None, backend=BACKEND),
                                  nx.floyd_warshall_numpy(G, weight=None, backend="networkx"))

# ----------------------------------------------------------------------------- negative weights
@pytest.mark.parametrize("graph", NEGATIVE)
def test_bellman_ford_matches_networkx_with_negative_weights_and_cycles(graph):
    G, weight = NEGATIVE[graph]
    _assert_same(BELLMAN_FORD[0], G, weight=weight)  # rows up to the first source reaching a cycle
    for source in [*G, *MISSING]:
        _assert_same(BELLMAN_FORD[1], G, source, weight=weight)
        for target in [*G, "nowhere"]:
            _assert_same(BELLMAN_FORD[2], G, source, target, weight=weight)


def test_negative_cycles_raise_unbounded_only_where_reached():
    late, _ = NEGATIVE["cycle_late"]
    assert nx.single_source_bellman_ford_path_length(late, 0, backend=BACKEND) == {0: 0, 1: 1}
    with pytest.raises(nx.NetworkXUnbounded):
        nx.single_source_bellman_ford_path_length(late, 3, backend=BACKEND)
    rows = nx.all_pairs_bellman_ford_path_length(late, backend=BACKEND)
    assert [next(rows)[0], next(rows)[0]] == [0, 1]
    with pytest.raises(nx.NetworkXUnbounded):
        next(rows)


@pytest.mark.parametrize("graph", NEGATIVE)
def test_hop_counts_ignore_negative_weights(graph):
    G, _ = NEGATIVE[graph]
    _assert_same(HOPS[0], G)
    for source in G:
        _assert_same(HOPS[1], G, source)


def test_dijkstra_declines_negative_weights_and_networkx_runs_instead(monkeypatch):
    G, _ = NEGATIVE["negative_dag"]
    for call in (lambda **kw: dict(nx.all_pairs_dijkstra_path_length(G, **kw)),
                 lambda **kw: nx.single_source_dijkstra_path_length(G, "s", **kw),
                 lambda **kw: nx.dijkstra_path_length(G, "s", "d", **kw)):
        with pytest.raises(NotImplementedError):
            call(backend=BACKEND)
        with monkeypatch.context() as m:
            m.setattr(nx.config.backend_priority, "algos", [BACKEND])
            assert call() == call(backend="networkx")
    reason = BackendInterface.can_run("dijkstra_path_length", (G, "s", "s"), {})
    assert isinstance(reason, str) and "negative" in reason  # declined, never raised by the backend


# ----------------------------------------------------------------------------- declined inputs
def test_callable_weight_runs_in_networkx(monkeypatch):
    G, _ = GRAPHS["digraph"]
    def weight(u, v, d):
        return 2 * d.get("weight", 1)
    with pytest.raises(NotImplementedError):
        nx.single_source_dijkstra_path_length(G, "a", weight=weight, backend=BACKEND)
    expected = nx.single_source_dijkstra_path_length(G, "a", weight=weight, backend="networkx")
    assert expected["c"] == 4
    monkeypatch.setattr(nx.config.backend_priority, "algos", [BACKEND])
    assert nx.single_source_dijkstra_path_length(G, "a", weight=weight) == expected


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), "heavy", None])
def test_weights_that_are_not_finite_numbers_are_declined(bad):
    G = nx.DiGraph()
    G.add_edge(0, 1, weight=bad)
    G.add_edge(1, 2, weight=1)
    with pytest.raises(NotImplementedError):
        nx.single_source_bellman_ford_path_length(G, 0, backend=BACKEND)
    assert nx.single_source_shortest_path_length(G, 0, backend=BACKEND) == {0: 0, 1: 1, 2: 2}


# ----------------------------------------------------------------------------- float weights
def test_non_dyadic_floats_stay_float64_by_default():
    G = nx.gnm_random_graph(40, 160, seed=3, directed=True)
    rng = np.random.default_rng(3)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.uniform(0.1, 1.0))
    for source in (0, 7, 19):
        ours = nx.single_source_dijkstra_path_length(G, source, backend=BACKEND)
        theirs = nx.single_source_dijkstra_path_length(G, source, backend="networkx")
        assert ours.keys() == theirs.keys()
        assert ours == pytest.approx(theirs, rel=1e-12, abs=0)  # float32 would miss by ~1e-7


def test_float32_option_runs_dyadic_weights_the_same(monkeypatch):
    monkeypatch.setattr(nx.config.backends.apsp_kernels, "float32", True)
    for graph in ("graph", "multigraph"):
        G, weight = GRAPHS[graph]
        _assert_same(DIJKSTRA[0], G, weight=weight)
        np.testing.assert_array_equal(nx.floyd_warshall_numpy(G, backend=BACKEND),
                                      nx.floyd_warshall_numpy(G, backend="networkx"))


# ----------------------------------------------------------------------------- registration
def test_registered_with_networkx_and_signatures_match():
    assert BACKEND in nx.utils.backends.backends
    info = nx.utils.backends.backend_info[BACKEND]
    assert info["backend_name"] == BACKEND and set(info["functions"]) == set(FUNCTIONS)
    assert set(FUNCTIONS) == set(registry.FUNCTIONS)  # documented == implemented
    for name in FUNCTIONS:
        dispatchable = nx.utils.backends._registered_algorithms[name]
        assert BACKEND in dispatchable.backends
        assert inspect.signature(getattr(BackendInterface, name)) == \
            inspect.signature(dispatchable.orig_func), name
        assert getattr(BackendInterface, name).__doc__ == FUNCTIONS[name]
    assert set(FUNCTIONS) >= set(DIJKSTRA + BELLMAN_FORD + HOPS + ["floyd_warshall_numpy"])


def test_convert_round_trip_keeps_the_lightest_arcs():
    md, _ = GRAPHS["multidigraph"]
    arcs = BackendInterface.convert_from_nx(md, edge_attrs={"weight": 1}, name="test")
    back = BackendInterface.convert_to_nx(arcs)
    assert isinstance(back, nx.DiGraph) and list(back) == list(md)
    assert back[0][1]["weight"] == 1 and back[1][2]["weight"] == 1 and back[3][4]["weight"] == 0
    np.testing.assert_array_equal(nx.floyd_warshall_numpy(back), nx.floyd_warshall_numpy(md))


def test_networkx_never_dispatches_here_unless_asked():
    code = (
        "import networkx as nx\n"
        "G = nx.path_graph(5)\n"
        "nx.floyd_warshall_numpy(G); dict(nx.all_pairs_dijkstra_path_length(G))\n"
        "nx.single_source_shortest_path_length(G, 0); nx.bellman_ford_path_length(G, 0, 4)\n"
        "assert 'apsp_kernels' in nx.utils.backends.backends\n"
        "assert 'apsp_kernels' not in nx.utils.backends._loaded_backends, 'backend loaded'\n"
        "assert not G.__networkx_cache__, 'graph converted'\n"
        "assert not nx.config.backend_priority.algos\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("NETWORKX_")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
