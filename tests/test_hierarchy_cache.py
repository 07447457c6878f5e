"""PHAST's hierarchy kept per graph content: a matrix given again is not contracted again, in this
process (an LRU by fingerprint) or, with a cache folder, in the next one."""
import numpy as np
import pytest

from apsp_kernels import generators
from apsp_kernels.graph import Graph
from apsp_kernels.sssp_hierarchy import layout as L


@pytest.fixture
def contractions(monkeypatch):
    """The process cache emptied, and a list that counts every contraction."""
    L.CACHE.clear()
    monkeypatch.delenv(L.CACHE_ENV, raising=False)
    counted = []
    real = L._contracted

    def counting(graph):
        counted.append(graph.n)
        return real(graph)
    monkeypatch.setattr(L, "_contracted", counting)
    yield counted
    L.CACHE.clear()


def fresh(g: Graph, weights=None) -> Graph:
    """A new Graph object of ``g``'s content (as shortest_path makes one from a matrix each call)."""
    return Graph(g.n, g.indptr.copy(), g.indices.copy(), (g.weights if weights is None else weights).copy())


def test_a_second_graph_of_the_same_content_is_not_contracted(contractions):
    g = generators.road_like(600, 1500, seed=21)
    h, seconds = L.hierarchy_of(g)
    again, seconds_again = L.hierarchy_of(fresh(g))
    assert contractions == [600] and seconds > 0 and seconds_again == 0.0 and again is h
    assert L.has_hierarchy(fresh(g)) and not L.has_hierarchy(generators.road_like(600, 1500, seed=22))


def test_a_changed_weight_misses_the_cache(contractions):
    g = generators.road_like(600, 1500, seed=23)
    L.hierarchy_of(g)
    w = g.weights.copy()
    w[7] += 1
    h, seconds = L.hierarchy_of(fresh(g, w))
    assert contractions == [600, 600] and seconds > 0
    as_float = Graph(g.n, g.indptr, g.indices, g.weights.astype(np.float64))  # the same numbers, another dtype
    assert L.graph_fingerprint(as_float) != L.graph_fingerprint(g)
    assert L.graph_fingerprint(fresh(g)) == L.graph_fingerprint(g)


def test_the_cache_folder_round_trips_and_survives_a_bad_file(contractions, tmp_path, monkeypatch):
    g = generators.road_like(500, 1250, seed=24)
    h, _ = L.hierarchy_of(g, cache_dir=tmp_path)
    key = L.graph_fingerprint(g)
    assert [p.name for p in tmp_path.iterdir()] == [f"{key}.npz"]  # no temporary file left
    L.CACHE.clear()  # as a new process
    monkeypatch.setenv(L.CACHE_ENV, str(tmp_path))
    loaded, seconds = L.hierarchy_of(fresh(g))
    assert contractions == [500] and seconds == 0.0
    for name in ("order", "rank", "level_ptr"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(h, name))
    for a, b in zip(loaded.up + loaded.down, h.up + h.down):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert loaded.shortcuts == h.shortcuts
    L.CACHE.clear()
    (tmp_path / f"{key}.npz").write_bytes(b"cut short")  # a partial file from elsewhere: contracted again
    _, seconds = L.hierarchy_of(fresh(g))
    assert contractions == [500, 500] and seconds > 0 and L.load_hierarchy(tmp_path, key) is not None


def test_the_process_cache_is_bounded(contractions):
    cache = L.HierarchyCache(max_entries=2)
    hs = [L.hierarchy_of(generators.road_like(200, 500, seed=s))[0] for s in (31, 32, 33)]
    for i, h in enumerate(hs):
        cache.put(str(i), h)
    assert len(cache) == 2 and cache.get("0") is None and cache.get("2") is hs[2]
    small = L.HierarchyCache(max_bytes=1)  # keeps the newest one whatever its size
    small.put("a", hs[0])
    small.put("b", hs[1])
    assert len(small) == 1 and small.get("b") is hs[1]


def test_cache_false_always_contracts(contractions):
    g = generators.road_like(300, 750, seed=25)
    L.hierarchy_of(g)
    _, seconds = L.hierarchy_of(fresh(g), cache=False)
    assert contractions == [300, 300] and seconds > 0


def test_shortest_path_on_a_matrix_contracts_once(contractions):
    from apsp_kernels.csgraph import shortest_path
    from apsp_kernels.sssp_hierarchy import phast_batched as PB
    g = generators.road_like(400, 1000, seed=26)
    L.hierarchy_of(fresh(g))  # what shortest_path(A, method="phast") contracts on its first call
    A = g.to_scipy()
    # every later call makes a new Graph of A: the layout comes from the cache, not a contraction
    for _ in range(2):
        lay, seconds = PB.sweep_layout(Graph(g.n, A.indptr.astype(np.int32), A.indices.astype(np.int32),
                                             A.data.astype(np.int32)))
        assert seconds == 0.0
    assert contractions == [400]
    np.testing.assert_array_equal(shortest_path(A, indices=[0, 5]), shortest_path(A, indices=[0, 5], method="D"))
