"""The contraction in parallel rounds (apsp_kernels/sssp_hierarchy/rounds.py): exact distances
from the host sweeps against SciPy's Dijkstra on graphs with ties, zero weights, parallel arcs,
self loops, parts apart and float weights; the level invariant (every arc joins two levels, a
vertex one above its highest neighbour contracted before it) for both orders; one result for
any thread count and any round budget."""
import numba
import numpy as np
import pytest

from apsp_kernels import generators, oracle
from apsp_kernels.errors import InputError
from apsp_kernels.graph import Graph
from apsp_kernels.sssp_hierarchy import contraction, layout, rounds

from test_sssp_hierarchy import GRAPHS as HEAP_GRAPHS


def _with(g, w, tag):
    return Graph(g.n, g.indptr, g.indices, np.asarray(w, dtype=g.weights.dtype), name=g.name + tag)


def _grid_ties(side):
    """A bidirected grid with every weight 1: many equal keys and equally short paths."""
    v = np.arange(side * side).reshape(side, side)
    a = np.concatenate([v[:, :-1].ravel(), v[:-1, :].ravel()])
    b = np.concatenate([v[:, 1:].ravel(), v[1:, :].ravel()])
    return Graph.from_edges(side * side, a, b, np.ones(len(a)), name="grid_ties", undirected=True)


def _loops_and_parallel(seed):
    """A CSR as given (not through from_edges): parallel arcs of different weights, self loops."""
    rng = np.random.default_rng(seed)
    n, m = 300, 900
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    src[:50], dst[:50] = src[50:100], dst[50:100]  # 50 parallel pairs
    dst[100:120] = src[100:120]                    # 20 self loops
    order = np.argsort(src, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
    return Graph(n, indptr, dst[order].astype(np.int32), rng.integers(0, 9, m)[order].astype(np.int32),
                 name="loops_and_parallel")


def _road_f64(seed):
    g = generators.road_like(3000, 7000, seed=seed)
    w = np.random.default_rng(seed).random(g.m) * 1e3  # not integers: float64 sums in any order
    return Graph(g.n, g.indptr, g.indices, w, name="road_f64")


def _apart():
    a, b = generators.road_like(900, 2100, seed=3), generators.random_digraph(200, 250, seed=4)
    src = np.concatenate([a.sources_of_arcs, b.sources_of_arcs + a.n])
    dst = np.concatenate([a.indices, b.indices + a.n])
    return Graph.from_edges(a.n + b.n + 5, src, dst, np.concatenate([a.weights, b.weights]), name="apart")


def _fan_into_hub(k):
    """A bidirected ring of ``k`` vertices ``u``, each with a path ``u -> v -> hub``: the ``v``
    (two arcs) go in the first round and add ``k`` shortcuts ``u -> hub``, all to one head."""
    u = np.arange(k)
    src = np.concatenate([u, (u + 1) % k, u, k + u, [2 * k]])
    dst = np.concatenate([(u + 1) % k, u, k + u, np.full(k, 2 * k), [0]])
    w = np.random.default_rng(k).integers(1, 20, len(src))
    return Graph.from_edges(2 * k + 1, src, dst, w, name=f"fan{k}")


def _star(k):
    """Leaves first, then the centre: no round adds a shortcut."""
    return Graph.from_edges(k + 1, np.zeros(k, np.int64), np.arange(1, k + 1), np.arange(k) % 5, undirected=True,
                            name=f"star{k}")


GRAPHS = {
    **HEAP_GRAPHS,
    "grid_ties": lambda: _grid_ties(40),
    "road_like_ties": lambda: (lambda g: _with(g, np.full(g.m, 7), "-ties"))(generators.road_like(3000, 7000, seed=1)),
    "road_like_zero_and_ties": lambda: (lambda g: _with(g, np.arange(g.m) % 3, "-0-1-2"))(
        generators.road_like(3000, 7000, seed=2)),
    "random_sparse": lambda: generators.random_digraph(1500, 2500, seed=5),
    "random_sparse_f32": lambda: generators.random_digraph(1500, 2500, seed=6, dtype=np.float32),
    "loops_and_parallel": lambda: _loops_and_parallel(0),
    "road_f64": lambda: _road_f64(9),
    "apart": _apart,
    "no_arcs": lambda: Graph.from_edges(7, [], [], []),
    "fan_into_hub": lambda: _fan_into_hub(40000),
    "star": lambda: _star(5000),
}


def assert_level_invariant(h, n):
    """Every arc joins two levels, up arcs rise, and level[v] = 1 + the highest level among
    v's neighbours below it (0 when none): the neighbours contracted before it."""
    level = np.repeat(np.arange(h.levels), np.diff(h.level_ptr))
    assert len(level) == n
    below = np.full(n, -1)
    for (indptr, srcs, _), rising in ((h.up, True), (h.down, False)):
        owner = np.repeat(np.arange(n), np.diff(indptr))
        assert np.all((level[srcs] < level[owner]) == rising)
        lower, upper = (srcs, owner) if rising else (owner, srcs)
        np.maximum.at(below, upper, level[lower])
    np.testing.assert_array_equal(level, below + 1)


def assert_exact(g, h, sources):
    for s in sources:
        got = contraction.sweep_on_host(h, s, g.inf).astype(np.float64)
        got[got >= g.inf] = np.inf
        want = oracle.distances(g, [s])[0]
        assert np.array_equal(np.isinf(got), np.isinf(want)), (g.name, s)
        if g.dtype == np.int32:
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12 if g.dtype == np.float64 else 1e-5)


def _sources(g):
    return sorted({0, g.n // 3, g.n // 2, g.n - 1}) if g.n else []


@pytest.mark.parametrize("name", GRAPHS)
def test_rounds_give_dijkstras_distances_and_the_level_invariant(name):
    g = GRAPHS[name]()
    h = contraction.contract(g, parallel=True)
    assert_level_invariant(h, g.n)
    assert_exact(g, h, _sources(g))
    assert sorted(h.order) == list(range(g.n)) and np.array_equal(h.rank[h.order], np.arange(g.n))


@pytest.mark.parametrize("name", ["road_like", "grid_ties", "loops_and_parallel", "apart", "path"])
def test_the_heap_order_keeps_the_level_invariant_too(name):
    g = GRAPHS[name]()
    assert_level_invariant(contraction.contract(g, parallel=False), g.n)


def _arrays(h):
    return (h.order, h.rank, h.level_ptr, *h.up, *h.down)


def assert_one_result_for_one_thread_or_all(g):
    """The rounds' hierarchy of ``g`` on one thread equals the one on every thread, array by array;
    returns it."""
    one = contraction.contract(g, parallel=True, n_threads=1)
    every = contraction.contract(g, parallel=True, n_threads=numba.get_num_threads())
    assert one.shortcuts == every.shortcuts
    for a, b in zip(_arrays(one), _arrays(every)):
        np.testing.assert_array_equal(a, b)
    return every


def test_one_result_for_any_thread_count():
    assert assert_one_result_for_one_thread_or_all(generators.road_like(20000, 48000, seed=11)).shortcuts > 0


def test_the_contraction_runs_on_its_own_thread_count_and_restores_numbas(monkeypatch):
    import contextlib
    asked = []

    @contextlib.contextmanager
    def recorded(k):
        asked.append(k)
        yield

    monkeypatch.setattr(contraction, "MAX_THREADS", 1)
    before = numba.get_num_threads()
    contraction.contract(generators.road_like(500, 1200, seed=3))
    assert numba.get_num_threads() == before
    monkeypatch.setattr(contraction, "numba_threads", recorded)
    contraction.contract(generators.road_like(500, 1200, seed=3))
    contraction.contract(generators.road_like(500, 1200, seed=3), n_threads=2)
    assert contraction.threads() == 1 and asked == [1, 2]


def test_many_new_arcs_on_one_head_and_rounds_that_add_none():
    fan, star = GRAPHS["fan_into_hub"](), GRAPHS["star"]()
    h = contraction.contract(fan, parallel=True)
    hub = np.where(h.order == fan.n - 1)[0][0]
    k = fan.n // 2
    assert h.shortcuts >= k and np.diff(h.up[0])[hub] >= k  # the ring's k vertices reach the hub by shortcuts
    assert contraction.contract(star, parallel=True).shortcuts == 0
    for g in (fan, star):
        assert_one_result_for_one_thread_or_all(g)


def test_a_round_budget_of_one_pair_stays_exact(monkeypatch):
    g = generators.road_like(2000, 5000, seed=12)
    wide = contraction.contract(g, parallel=True)
    monkeypatch.setattr(rounds, "ROUND_PAIRS", 1)  # one chosen vertex a round (beyond the first)
    narrow = contraction.contract(g, parallel=True)
    assert_level_invariant(narrow, g.n)
    assert_exact(g, narrow, _sources(g))
    assert narrow.levels != wide.levels or narrow.shortcuts != wide.shortcuts  # the budget did cut rounds


def test_rounds_stay_close_to_the_heap_order_on_a_road():
    g = generators.road_like(20000, 48000, seed=13)
    heap, rnd = contraction.contract(g, parallel=False), contraction.contract(g, parallel=True)
    assert rnd.shortcuts < 1.25 * heap.shortcuts and rnd.levels < 1.25 * heap.levels


def test_batched_host_sweeps_over_a_rounds_hierarchy():
    g = GRAPHS["road_like_zero_and_ties"]()
    lay = layout.layout(contraction.contract(g, parallel=True))
    sources = np.array([0, 5, 5, g.n - 1, 1234])
    rows = layout.batched_sweeps_on_host(lay, sources, 2, g.inf).astype(np.float64)
    rows[rows >= g.inf] = np.inf
    np.testing.assert_array_equal(rows, oracle.distances(g, sources))


def test_far_from_road_like_is_refused_in_rounds_too():
    with pytest.raises(InputError, match="road-like"):
        contraction.contract(generators.random_digraph(2000, 12000, seed=2), parallel=True)
    with pytest.raises(InputError, match="negative"):
        contraction.contract(Graph.from_edges(2, [0], [1], [-1]), parallel=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_batched_phast_on_the_gpu_over_a_rounds_hierarchy(monkeypatch, dtype):
    import helpers
    from apsp_kernels.sssp_hierarchy import phast_batched
    monkeypatch.setattr(contraction, "PARALLEL", True)
    g = generators.road_like(30000, 72000, seed=14, dtype=dtype)
    sources = np.random.default_rng(0).integers(0, g.n, 200)
    stats = {}
    rows = phast_batched.multi_source_distances(g, sources, K=32, stats=stats).get()
    helpers.assert_rows_match_oracle(g, rows, sources)
    h = g.__dict__[layout.HIERARCHY_KEY]
    assert h.shortcuts == contraction.contract(g, parallel=True).shortcuts  # the rounds' hierarchy was swept


def test_the_contraction_timer_reports_both_orders(tmp_path):
    from apsp_kernels.experiments import contraction_time
    g = generators.road_like(3000, 7000, seed=15)
    rows = contraction_time.measure([g], threads=[1, None], repeats=2, log=lambda _: None)
    own = contraction.threads()
    assert [(r["order"], r["threads"]) for r in rows] == [("heap", 1), ("rounds", 1), ("heap", own), ("rounds", own)]
    for r in rows:
        h = contraction.contract(g, parallel=r["order"] == "rounds")
        assert (r["levels"], r["shortcuts"]) == (h.levels, h.shortcuts) and 0 < r["best_s"] <= r["median_s"]
    with pytest.raises(SystemExit):
        contraction_time.main(["--threads", str(numba.config.NUMBA_NUM_THREADS + 1)])


def test_the_warm_up_compiles_every_path_a_road_networks_contraction_takes():
    """A timed contraction (results/scale, the contraction-time experiment) comes after
    contraction_time.warm_up: nothing may be left for numba to compile inside it."""
    import numba.core.registry
    from apsp_kernels.experiments import contraction_time
    from apsp_kernels.sssp_hierarchy import elimination, parallel_lists, rounds

    def compiled():
        return {(m.__name__, name): len(f.signatures) for m in (elimination, parallel_lists, rounds)
                for name, f in vars(m).items() if isinstance(f, numba.core.registry.CPUDispatcher)}

    contraction_time.warm_up()
    before = compiled()
    assert sum(before.values()) > 0
    ny_size = 1 << 18
    contraction.contract(generators.road_like(ny_size, int(2.6 * ny_size), seed=5))
    assert compiled() == before


def test_the_contraction_compiles_in_another_process_while_this_one_works(monkeypatch):
    """contraction_time.compile_beside: nothing to compile, no process; else a process compiles into
    numba's cache (here it finds the cache warm) and warm_up waits for it before it loads."""
    from apsp_kernels.experiments import contraction_time

    contraction_time.warm_up()  # into numba's cache on disk, if it was not there
    assert contraction_time.compile_beside() is None
    monkeypatch.setattr(contraction, "compiled_on_disk", lambda *args: False)
    compiling = contraction_time.compile_beside()
    assert compiling is not None
    assert contraction_time.warm_up(compiling=compiling) > 0 and compiling.done()
    [step] = compiling.result()
    assert step["was_cached"] and step["step"] == "numba contraction, int32 weights"
