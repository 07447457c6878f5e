"""The contraction hierarchy behind PHAST (apsp_kernels/sssp_hierarchy): exact distances from its
two level sweeps (the host reference of phast.cu) against the oracle, levels that make every arc
join two levels, and the refusal of graphs far from road-like."""
import types

import numpy as np
import pytest

from apsp_kernels import generators, oracle
from apsp_kernels.errors import InputError
from apsp_kernels.graph import Graph
from apsp_kernels.sssp_hierarchy import contraction, phast


def path(n):
    u = np.arange(n - 1)
    return Graph.from_edges(n, u, u + 1, np.full(n - 1, 3), name=f"path{n}")


GRAPHS = {
    "one_vertex": lambda: Graph.from_edges(1, [], [], []),
    "two_parts": lambda: Graph.from_edges(6, [0, 1, 3, 4], [1, 2, 4, 5], [1, 2, 3, 4]),
    "path": lambda: path(3000),
    "ring": lambda: generators.ring(50),
    "road_like": lambda: generators.road_like(4000, 10000, seed=6),
    "road_like_f32": lambda: generators.road_like(3000, 7000, seed=7, dtype=np.float32),
    "road_like_zero_weights": lambda: _zero_some(generators.road_like(2000, 5000, seed=8)),
    "sparse_random": lambda: generators.random_digraph(400, 500, seed=3),
    "parallel_arcs_and_loops": lambda: Graph(  # CSR as given: arcs 0 -> 1 of 5 and 2, a loop at 3
        5, np.array([0, 2, 4, 6, 8, 9]), np.array([1, 1, 2, 2, 3, 0, 3, 4, 0]),
        np.array([5, 2, 7, 9, 1, 4, 1, 0, 6], dtype=np.int32)),
}


def _zero_some(g):
    w = np.asarray(g.weights).copy()
    w[::3] = 0
    return Graph(g.n, g.indptr, g.indices, w, name=g.name + "-zeros", meta=dict(g.meta))


@pytest.mark.parametrize("name", GRAPHS)
def test_sweeps_give_the_oracle_distances(name):
    g = GRAPHS[name]()
    h = contraction.contract(g, parallel=False)  # the rounds: test_contraction_rounds.py
    level = np.repeat(np.arange(h.levels), np.diff(h.level_ptr))
    for indptr, srcs, _ in (h.up, h.down):
        owner = np.repeat(np.arange(g.n), np.diff(indptr))
        assert not np.any(level[srcs] == level[owner])  # every arc joins two levels
    assert (level[h.up[1]] < level[np.repeat(np.arange(g.n), np.diff(h.up[0]))]).all()
    for s in sorted({0, g.n // 2, g.n - 1}):
        got = contraction.sweep_on_host(h, s, g.inf).astype(np.float64)
        got[got >= g.inf] = np.inf
        want = oracle.distances(g, [s])[0]
        assert np.array_equal(np.isinf(got), np.isinf(want)), (name, s)
        if g.dtype == np.int32:
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5)


def test_the_level_term_keeps_a_path_shallow():
    assert contraction.contract(path(3000), parallel=False).levels < 40
    assert contraction.contract(path(3000), parallel=True).levels < 40


def test_far_from_road_like_is_refused():
    with pytest.raises(InputError, match="road-like"):
        contraction.contract(generators.random_digraph(2000, 12000, seed=2))
    with pytest.raises(InputError):
        contraction.contract(Graph.from_edges(2, [0], [1], [-1]))


def test_phast_refuses_a_graph_denser_than_a_road_before_contracting():
    g = generators.random_digraph(100, 400, seed=1)
    with pytest.raises(InputError, match=r"road-like.*4\.00: use fast:sssp_worklist"):
        phast.PhastSSSP(g)
    assert '_phast_hierarchy' not in g.__dict__
    phast.PhastSSSP(generators.road_like(400, 1000, seed=1))  # 2.5 arcs per vertex: accepted


def test_top_levels_fit_the_shared_memory():
    ptr = np.array([0, 10, 15, 18, 19, 20])
    assert phast.top_level(ptr, 5) == 2 and phast.top_level(ptr, 100) == 0 and phast.top_level(ptr, 0) == 5


def test_the_indexed_heap_pops_the_least_key_then_id_after_any_update():
    from apsp_kernels.sssp_hierarchy.elimination import _sift
    rng = np.random.default_rng(0)
    n = 300
    key = rng.integers(0, 20, n).astype(np.int64)
    heap = np.argsort(key * n + np.arange(n))
    pos = np.empty(n + 1, np.int64)
    pos[heap], pos[n] = np.arange(n), n
    alive = set(range(n))
    while pos[n] > 0:
        v, last = heap[0], pos[n] - 1
        pos[n] = last
        if last > 0:
            heap[0] = heap[last]
            pos[heap[0]] = 0
            _sift(heap, pos, key, 0)
        assert v == min(alive, key=lambda x: (key[x], x))
        alive.remove(v)
        for x in rng.choice(sorted(alive), size=min(4, len(alive)), replace=False) if alive else []:
            key[x] = rng.integers(0, 20)
            _sift(heap, pos, key, pos[x])


def test_in_arc_csr_by_counting_sorts_equals_a_lexsort():
    from apsp_kernels.sssp_hierarchy.elimination import csr_by_target
    rng = np.random.default_rng(0)
    for n, m in ((1, 0), (5, 7), (1000, 20000), (300000, 400000)):
        s, d = rng.integers(0, n, m), rng.integers(0, n, m)
        keep = np.unique(s * n + d, return_index=True)[1]
        s, d = s[keep], d[keep]
        w = rng.integers(0, 100, len(s)).astype(np.float32)
        by = np.lexsort((s, d))
        indptr, srcs, wts = csr_by_target(n, s, d, w)
        np.testing.assert_array_equal(indptr, np.concatenate([[0], np.cumsum(np.bincount(d, minlength=n))]))
        np.testing.assert_array_equal(srcs, s[by])
        np.testing.assert_array_equal(wts, w[by])
        assert srcs.dtype == np.int32 and wts.dtype == np.float32


def test_numbas_compile_runs_before_the_contractions_clock(monkeypatch):
    from apsp_kernels.sssp_hierarchy import layout
    compiled, clock = [], [0.0]

    def slow_compile(dtype):  # as numba's first compile, with a cold on-disk cache (~40 s on the clock)
        clock[0] += 40.0
        compiled.append(np.dtype(dtype))
        return 40.0
    monkeypatch.setattr(layout, "compile_for", slow_compile)
    # the contraction's clock only moves when the compile runs: no host load can make it pass or fail
    monkeypatch.setattr(layout, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    g = generators.road_like(64, 180, seed=1, name="road-64")
    contraction.compile_for(g.dtype)  # numba ready: the contraction itself takes milliseconds
    h, seconds = layout.hierarchy_of(g)
    assert compiled == [g.dtype] and seconds < 40.0 and h.levels > 0
    assert layout.hierarchy_of(g) == (h, 0.0)


def test_compile_for_compiles_once_per_dtype_and_keeps_the_seconds(monkeypatch):
    monkeypatch.setattr(contraction, "COMPILE_SECONDS", {})
    assert contraction.compile_seconds(np.float32) == 0.0
    first = contraction.compile_for(np.float32)
    assert first > 0 and contraction.compile_seconds(np.float32) == first
    assert contraction.compile_for(np.float32) == 0.0 and contraction.compile_seconds(np.float64) == 0.0
