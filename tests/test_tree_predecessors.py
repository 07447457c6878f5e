"""Shortest-path trees from final distances, one source and many (apsp_kernels/sssp_iterative/tree.py),
run with NumPy standing in for CuPy (the functions use only the array API the two share)."""
import numpy as np
import pytest

from apsp_kernels import gpu, oracle
from apsp_kernels.graph import Graph
from apsp_kernels.sssp_iterative.tree import tree_predecessors, tree_predecessors_rows


@pytest.fixture
def numpy_as_cupy(monkeypatch):
    monkeypatch.setattr(gpu, "cupy", lambda: np)


def zero_cycle_graph():
    # 0 -> 1 (w 2); 1 <-> 2 and 2 <-> 3 with weight 0 (zero-weight cycles); 3 -> 4 (w 1); 5 isolated
    src, dst, w = [0, 1, 2, 2, 3, 3], [1, 2, 1, 3, 2, 4], [2, 0, 0, 0, 0, 1]
    return Graph.from_edges(6, np.array(src), np.array(dst), np.array(w), name="zero-cycles")


def walks_back(pred, source, dist_row):
    for v in range(len(pred)):
        if not np.isfinite(dist_row[v]) or v == source:
            assert pred[v] == -1
            continue
        seen, u = set(), v
        while u != source:
            assert u not in seen and pred[u] >= 0, (v, pred)
            seen.add(u)
            u = pred[u]


def test_one_source_and_many_sources_give_trees(numpy_as_cupy):
    g = zero_cycle_graph()
    D = oracle.distances(g)
    dist = np.where(np.isfinite(D), D, g.inf).astype(np.int32)
    sources = np.array([0, 2, 5], dtype=np.int32)
    rows = tree_predecessors_rows(g, dist[sources].T.copy(), sources, np.empty((3, g.n), np.int32))
    for i, s in enumerate(sources):
        walks_back(rows[i], s, D[s])
        single = tree_predecessors(g, dist[s].copy(), int(s), np.empty(g.n, np.int32))
        walks_back(single, s, D[s])
        assert np.array_equal(single, rows[i])


def test_ties_take_the_smallest_vertex_on_the_level_before(numpy_as_cupy):
    # 0 -> 1, 0 -> 2 (w 1); 1 <-> 2 (w 0); 1 -> 3 and 2 -> 3 (w 0): 3 has two tight in-neighbours
    g = Graph.from_edges(4, np.array([0, 0, 1, 2, 1, 2]), np.array([1, 2, 2, 1, 3, 3]),
                         np.array([1, 1, 0, 0, 0, 0]), name="ties")
    dist = np.array([[0], [1], [1], [1]], dtype=np.int32)
    rows = tree_predecessors_rows(g, dist, np.array([0], dtype=np.int32), np.empty((1, 4), np.int32))
    np.testing.assert_array_equal(rows[0], [-1, 0, 0, 1])
