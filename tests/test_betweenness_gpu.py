"""Betweenness on the GPU (apsp_kernels.centrality.brandes_gpu) against the host's exact Brandes (which
follows NetworkX step for step) and NetworkX itself: graphs with many equal-length paths (small
whole weights, unit grids), directed and undirected, unreached vertices, every block size, arcs."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from apsp_kernels import centrality as C, generators
import helpers

pytestmark = pytest.mark.gpu
RTOL = 1e-12


def _accumulators(A, sources, *, endpoints=False, edges=False, batch=None):
    from apsp_kernels.centrality.brandes import Accumulator
    from apsp_kernels.centrality.brandes_gpu import DeviceAccumulator
    A = sp.csr_array(A)
    A.sort_indices()
    w = A.data.astype(np.float64)
    host = Accumulator(A.indptr, A.indices, w, endpoints=endpoints, edges=edges)
    host.add(sources)
    device = DeviceAccumulator(A.indptr, A.indices, w, endpoints=endpoints, edges=edges, batch=batch)
    device.add(sources)
    return host, device


def _tied_road(n, m, seed, directed=True):
    return helpers.tied_road(n, m, seed, keep=0.8 if directed else 1.0)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("endpoints", [False, True])
def test_equals_the_host_on_ties(directed, endpoints):
    A = _tied_road(600, 1500, 3, directed)
    if not directed:
        A = sp.csr_array(A.maximum(A.T))
    host, device = _accumulators(A, np.arange(600), endpoints=endpoints, edges=True)
    np.testing.assert_allclose(device.vertices(), host.vertices(), rtol=RTOL, atol=1e-9)
    np.testing.assert_allclose(device.arcs(), host.arcs(), rtol=RTOL, atol=1e-9)
    assert device.largest_path_count == host.largest_path_count  # whole numbers: exact
    assert device.vertices().max() > 0


def _sparse_unit_grid(rows, cols, seed):
    """A unit-weight grid with about a third of its streets closed (road-like: under 3 arcs per vertex),
    numbered 0..n-1: many equal-length paths."""
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(rows, cols))
    rng = np.random.default_rng(seed)
    G.remove_edges_from([e for e in list(G.edges) if rng.random() < 0.33])
    return G


def test_unit_grid_equals_networkx():
    G = _sparse_unit_grid(20, 30, 1)
    A = nx.to_scipy_sparse_array(G, nodelist=range(len(G)), format="csr")
    _, device = _accumulators(A, np.arange(len(G)))
    want = nx.betweenness_centrality(G, normalized=False)
    np.testing.assert_allclose(device.vertices() / 2, [want[v] for v in range(len(G))], rtol=RTOL)


def test_unreached_vertices_and_a_subset_of_sources():
    A = _tied_road(400, 1000, 5, True)
    A = sp.block_diag([A, _tied_road(300, 700, 6, True)], format="csr")  # two parts: half the pairs unreached
    sources = np.random.default_rng(1).permutation(700)[:97]
    host, device = _accumulators(A, sources, endpoints=True, edges=True)
    np.testing.assert_allclose(device.vertices(), host.vertices(), rtol=RTOL, atol=1e-9)
    np.testing.assert_allclose(device.arcs(), host.arcs(), rtol=RTOL, atol=1e-9)


def test_same_bits_for_any_block_size_and_run():
    A = _tied_road(700, 1700, 9, True)
    results = []
    for batch in (1, 64, 100, 700, None):
        _, device = _accumulators(A, np.arange(700), edges=True, batch=batch)
        results.append((device.vertices().tobytes(), device.arcs().tobytes()))
    assert len(set(results)) == 1


def test_path_counts_beyond_two_to_the_53_are_counted_as_networkx_does():
    G = nx.DiGraph()
    for d in range(60):  # 60 diamonds in a row: 2**60 shortest paths from end to end
        a, b, c, e = 3 * d, 3 * d + 1, 3 * d + 2, 3 * d + 3
        G.add_edges_from([(a, b), (a, c), (b, e), (c, e)])
    A = nx.to_scipy_sparse_array(G, nodelist=range(len(G)), format="csr")
    host, device = _accumulators(A, np.array([0, 1, 90]))
    assert device.largest_path_count == host.largest_path_count == 2.0 ** 61  # NetworkX's doubled count
    np.testing.assert_allclose(device.vertices(), host.vertices(), rtol=RTOL)


def test_public_functions_run_on_the_gpu_and_equal_the_host(monkeypatch):
    from apsp_kernels.centrality import brandes_gpu
    g = generators.road_like(5000, 12000, seed=11)
    A = g.to_scipy()
    said = []
    got = C.betweenness_centrality(A, explain=said.append)
    assert said[0].family == "brandes-gpu", str(said[0])
    edges = C.edge_betweenness_centrality(A, directed=False)
    sampled = C.betweenness_centrality(A, k=300, seed=4, endpoints=True)
    monkeypatch.setattr(brandes_gpu.gpu, "available", lambda: False)
    said.clear()
    np.testing.assert_allclose(got, C.betweenness_centrality(A, explain=said.append), rtol=RTOL)
    assert said[0].family == "numba-host" and "no CUDA GPU" in said[0].reason
    np.testing.assert_allclose(edges.data, C.edge_betweenness_centrality(A, directed=False).data, rtol=RTOL)
    np.testing.assert_allclose(sampled, C.betweenness_centrality(A, k=300, seed=4, endpoints=True), rtol=RTOL)


def test_cupy_in_cupy_out_and_hop_counts():
    import cupyx.scipy.sparse as cusparse
    A = generators.road_like(3000, 7000, seed=2).to_scipy()
    got = C.betweenness_centrality(cusparse.csr_matrix(A), directed=False, unweighted=True)
    assert type(got).__module__.startswith("cupy")
    G = nx.from_scipy_sparse_array(A)
    sample = C.betweenness_centrality(A, directed=False, unweighted=True, k=5, seed=2)
    want = nx.betweenness_centrality(G, k=5, seed=2, weight=None)
    np.testing.assert_allclose(sample, [want[v] for v in range(len(G))], rtol=RTOL, atol=1e-15)
    assert got.get().max() > 0


def test_falls_back_to_the_host_where_the_gpu_cannot_count_ties():
    A = generators.road_like(3000, 7000, seed=2).to_scipy()
    zero = A.copy()
    zero.data[5] = 0  # an explicit zero: an arc of weight 0 (SciPy's convention)
    for B, words in ((A * 0.5, "whole numbers"), (zero, "weight is 0")):
        said = []
        C.betweenness_centrality(sp.csr_array(B), k=20, seed=1, explain=said.append)
        assert said[0].family == "numba-host" and words in said[0].reason, str(said[0])
