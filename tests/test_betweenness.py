"""Betweenness (apsp_kernels.centrality.betweenness; the host path here, the GPU path in
test_betweenness_gpu.py) against NetworkX's own:
random small graphs with ties on purpose, k sampling, every normalized/endpoints combination,
the NetworkX backend's keys, determinism and the errors."""
import math
import random
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from apsp_kernels import centrality as C
from apsp_kernels.errors import InputError

RTOL = 1e-12


def _close(got, want) -> None:
    got, want = np.asarray(got, float), np.asarray(want, float)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=RTOL, atol=1e-15)


@st.composite
def graphs(draw):
    """A NetworkX graph on 0..n-1 (maybe disconnected) and its SciPy matrix; weights from a small
    set so that equal-length paths are common."""
    n = draw(st.integers(1, 9))
    directed = draw(st.booleans())
    kind = draw(st.sampled_from(["unweighted", "int", "float"]))
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    values = {"unweighted": [1], "int": [1, 2, 3], "float": [0.1, 0.2, 0.3, 0.7]}[kind]
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    for u, v in pairs:
        if u != v:
            G.add_edge(u, v, w=draw(st.sampled_from(values)))
    A = nx.to_scipy_sparse_array(G, nodelist=range(n), weight="w", format="csr")
    return G, A, kind


@settings(max_examples=40, deadline=None)
@given(graphs(), st.booleans(), st.booleans(), st.integers(0, 2**16))
def test_vertices_equal_networkx(case, normalized, endpoints, seed):
    G, A, kind = case
    weight = None if kind == "unweighted" else "w"
    options = dict(normalized=normalized, endpoints=endpoints)
    got = C.betweenness_centrality(A, G.is_directed(), weight is None, **options)
    _close(got, [nx.betweenness_centrality(G, weight=weight, **options)[v] for v in range(len(G))])
    k = seed % len(G) + 1
    got = C.betweenness_centrality(A, G.is_directed(), weight is None, k=k, seed=seed, **options)
    want = nx.betweenness_centrality(G, weight=weight, k=k, seed=seed, **options)
    _close(got, [want[v] for v in range(len(G))])


@settings(max_examples=30, deadline=None)
@given(graphs(), st.booleans(), st.integers(0, 2**16))
def test_arcs_equal_networkx(case, normalized, seed):
    G, A, kind = case
    weight = None if kind == "unweighted" else "w"
    k = None if seed % 3 == 0 else seed % len(G) + 1
    got = C.edge_betweenness_centrality(A, G.is_directed(), weight is None, k=k, seed=seed, normalized=normalized)
    want = nx.edge_betweenness_centrality(G, weight=weight, k=k, seed=seed, normalized=normalized)
    assert got.nnz == A.nnz
    _close([got[u, v] for u, v in want], list(want.values()))
    if not G.is_directed():  # an edge's value at both of its places
        _close([got[v, u] for u, v in want], list(want.values()))


def test_grid_ties_are_counted_exactly():
    """A unit grid: many equal-length paths; the raw values are NetworkX's, bit for bit."""
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(6, 7))
    A = nx.to_scipy_sparse_array(G, nodelist=range(len(G)), format="csr")
    got = C.betweenness_centrality(A, directed=False, normalized=False)
    want = nx.betweenness_centrality(G, weight="weight", normalized=False)
    _close(got, [want[v] for v in range(len(G))])
    assert got.max() > 0


def test_same_every_run_and_any_thread_count():
    import numba
    G = nx.gnm_random_graph(300, 1200, seed=5, directed=True)
    rng = random.Random(5)
    for u, v in G.edges:
        G[u][v]["w"] = rng.random()
    A = nx.to_scipy_sparse_array(G, nodelist=range(len(G)), weight="w", format="csr")
    first = C.betweenness_centrality(A)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = C.betweenness_centrality(A)
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(first, C.betweenness_centrality(A)) and np.array_equal(first, one)


def test_seed_as_networkx_takes_it():
    G = nx.path_graph(12)
    A = nx.to_scipy_sparse_array(G, format="csr")
    want = nx.betweenness_centrality(G, k=4, seed=random.Random(7))
    _close(C.betweenness_centrality(A, False, k=4, seed=random.Random(7)), [want[v] for v in G])
    with pytest.raises(InputError, match="seed must be"):
        C.betweenness_centrality(A, k=4, seed="seven")


@pytest.mark.parametrize("k", [0, 13, 2.5, True])
def test_k_outside_the_graph_is_refused(k):
    with pytest.raises(InputError, match="k must be"):
        C.betweenness_centrality(nx.to_scipy_sparse_array(nx.path_graph(12)), k=k)


def test_bad_input_is_refused_before_work():
    with pytest.raises(InputError, match="negative"):
        C.betweenness_centrality(sp.csr_array(np.array([[0, -1.0], [1, 0]])))
    with pytest.raises(InputError):
        C.edge_betweenness_centrality(sp.csr_array((np.array([np.nan]), ([0], [1])), shape=(2, 2)))
    with pytest.raises(InputError):
        C.betweenness_centrality(np.zeros((0, 0)))


def test_path_counts_beyond_2_53_warn():
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(31, 31))
    A = nx.to_scipy_sparse_array(G, nodelist=range(len(G)), format="csr")
    with pytest.warns(C.PathCountWarning, match="2\\*\\*53"):
        C.betweenness_centrality(A, False, True)  # corner to corner: C(60, 30) ~ 1.2e17 paths
    with warnings.catch_warnings():
        warnings.simplefilter("error", C.PathCountWarning)
        C.betweenness_centrality(nx.to_scipy_sparse_array(nx.path_graph(40)), False, True)


def test_explain_says_host():
    said = []
    C.betweenness_centrality(nx.to_scipy_sparse_array(nx.path_graph(3)), explain=said.append)
    assert said[0].family == "numba-host" and "host" in str(said[0])
    assert "no CUDA GPU" in said[0].reason or "under 2048" in said[0].reason  # why not the GPU


# ----------------------------------------------------------------------------- the NetworkX backend
def _multigraph(directed: bool):
    rng = random.Random(3)
    G = (nx.MultiDiGraph if directed else nx.MultiGraph)()
    G.add_nodes_from(["c", "a", (1, 2, 3), "b", "d", 7])
    nodes = list(G)
    for _ in range(22):
        u, v = rng.sample(nodes, 2)
        G.add_edge(u, v, length=rng.choice([1, 2, 2.5]))
    G.add_edge("a", "a", length=0.5)
    return G


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("weight", [None, "length"])
def test_backend_keys_and_values_are_networkx(directed, weight):
    nx.config.warnings_to_ignore.add("cache")
    G = _multigraph(directed)
    for options in ({}, {"k": 3, "seed": 11}, {"normalized": False}):
        got = nx.betweenness_centrality(G, weight=weight, backend="apsp_kernels", endpoints=True, **options)
        want = nx.betweenness_centrality(G, weight=weight, endpoints=True, **options)
        assert list(got) == list(want)
        _close(list(got.values()), list(want.values()))
        got = nx.edge_betweenness_centrality(G, weight=weight, backend="apsp_kernels", **options)
        want = nx.edge_betweenness_centrality(G, weight=weight, **options)
        assert list(got) == list(want)
        _close(list(got.values()), list(want.values()))
        simple = (nx.DiGraph if directed else nx.Graph)(G)
        got = nx.edge_betweenness_centrality(simple, weight=weight, backend="apsp_kernels", **options)
        assert list(got) == list(nx.edge_betweenness_centrality(simple, weight=weight, **options))


def test_backend_declines_what_it_does_not_replicate():
    from apsp_kernels.nx_backend.interface import BackendInterface as I
    G = nx.path_graph(4)
    assert I.can_run("betweenness_centrality", (G,), {}) is True
    assert "callable" in I.can_run("betweenness_centrality", (G,), {"weight": lambda u, v, d: 1})
    assert "k=" in I.can_run("betweenness_centrality", (G,), {"k": 5})
    G.add_edge(0, 1, weight=-1)
    assert "negative" in I.can_run("edge_betweenness_centrality", (G,), {"weight": "weight"})
    T = nx.Graph([((0, 1), (1, 2))])
    assert "2-tuple" in I.can_run("edge_betweenness_centrality", (T,), {})
    assert math.isnan(nx.betweenness_centrality(nx.path_graph(4), k=1, seed=1, backend="apsp_kernels")[
        random.Random(1).sample(range(4), 1)[0]])
