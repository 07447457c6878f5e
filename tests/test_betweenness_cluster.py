"""Betweenness with client= (apsp_kernels.centrality.brandes_run): the same bits as in this process,
on 1, 2 and 3 workers, whatever order the grid blocks finish in."""
import networkx as nx
import numpy as np
import pytest

from apsp_kernels import centrality as C
from apsp_kernels.centrality import brandes_run
from apsp_kernels.distributed import cluster
import helpers


@pytest.fixture()
def small_grid(monkeypatch):
    monkeypatch.setattr(brandes_run, "GRID", 16)  # 19 blocks of the graph below


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_same_bits_as_in_process(small_grid, workers):
    A = helpers.tied_road(300, 760, 4)
    here = C.betweenness_centrality(A, endpoints=True)
    edges_here = C.edge_betweenness_centrality(A, directed=False)
    client = cluster.local(cpu_workers=workers, processes=False, set_as_default=False)
    try:
        said = []
        there = C.betweenness_centrality(A, endpoints=True, client=client, explain=said.append)
        edges_there = C.edge_betweenness_centrality(A, directed=False, client=client)
    finally:
        cluster.close(client)
    assert here.tobytes() == there.tobytes() and edges_here.data.tobytes() == edges_there.data.tobytes()
    assert said[0].family == "distributed" and "19 block(s)" in said[0].reason and "numba-host" in said[0].reason
    G = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph, edge_attribute="w")
    want = nx.betweenness_centrality(G, weight="w", endpoints=True)
    np.testing.assert_allclose(there, [want[v] for v in range(A.shape[0])], rtol=1e-12)


def test_blocks_add_in_order_whatever_order_they_finish():
    totals = brandes_run.Totals(3, 0)
    parts = [(np.full(3, x), np.zeros(0), float(i)) for i, x in enumerate([0.1, 0.2, 0.3, 1e16])]
    for i in (3, 1, 0, 2):
        totals.add(i, parts[i])
    assert totals.vertices().tolist() == [((0.1 + 0.2) + 0.3) + 1e16] * 3 and totals.largest_path_count == 3.0
