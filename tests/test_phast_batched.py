"""Batched PHAST (apsp_kernels/sssp_hierarchy/layout.py, phast_batched.py) on the host: the NumPy
reference of the GPU's algorithm (stamped upward searches, K-wide downward sweep from a garbage
working matrix) against SciPy's Dijkstra, the layout's invariants, and the checks before any
allocation."""
import numpy as np
import pytest

from apsp_kernels import generators
from apsp_kernels.errors import InputError
from apsp_kernels.graph import Graph
from apsp_kernels.sssp_hierarchy import layout as L
from apsp_kernels.sssp_hierarchy import phast_batched as PB

import helpers
from test_sssp_hierarchy import GRAPHS


@pytest.mark.parametrize("name", [k for k in GRAPHS if k != "path"])
@pytest.mark.parametrize("k", [1, 4, 32])
def test_reference_sweeps_give_dijkstra(name, k):
    g = GRAPHS[name]()
    lay = L.layout(L.hierarchy_of(g)[0])
    rng = np.random.default_rng(k)
    sources = np.unique(np.concatenate([[0, g.n - 1], rng.integers(0, g.n, size=min(g.n, 9))]))
    sources = np.concatenate([sources, sources[:2]])  # a source twice in one batch
    helpers.assert_rows_match_oracle(g, L.batched_sweeps_on_host(lay, sources, k, g.inf), sources)


def test_reference_on_a_long_path_and_a_road_like_graph_with_many_groups():
    for g in (GRAPHS["path"](), generators.road_like(1500, 3600, seed=11)):
        lay = L.layout(L.hierarchy_of(g)[0])
        sources = np.arange(0, g.n, max(1, g.n // 40))
        helpers.assert_rows_match_oracle(g, L.batched_sweeps_on_host(lay, sources, 8, g.inf), sources)


def test_the_layout_lists_upward_arcs_both_ways_and_levels_in_order():
    g = generators.road_like(2000, 5000, seed=3)
    h, seconds = L.hierarchy_of(g)
    assert seconds > 0 and L.hierarchy_of(g) == (h, 0.0)  # kept on the Graph
    lay = L.layout(h)
    up_ptr, up_src, _ = lay.up
    owner = np.repeat(np.arange(g.n), np.diff(up_ptr))
    out_ptr, out_dst = lay.up_out
    out_owner = np.repeat(np.arange(g.n), np.diff(out_ptr))
    assert sorted(zip(up_src.tolist(), owner.tolist())) == sorted(zip(out_owner.tolist(), out_dst.tolist()))
    level = np.repeat(np.arange(lay.levels), np.diff(lay.level_ptr))
    assert (level[out_dst] > level[out_owner]).all()
    dn_owner = np.repeat(np.arange(g.n), np.diff(lay.down[0]))
    assert (level[lay.down[1]] > level[dn_owner]).all()
    assert lay.down_bytes() == sum(a.nbytes for a in lay.down)


@pytest.mark.parametrize("n, arcs", [(0, 0), (1, 0), (5, 0), (7, 30), (3000, 9000)])
def test_upward_arcs_by_source_keep_each_source_s_targets_in_order(n, arcs):
    """The layout's out-CSR, a counting sort: the order of NumPy's stable argsort, which the
    sweeps' arc order (and so their bits) was built on."""
    rng = np.random.default_rng(n + arcs)
    indptr = np.zeros(n + 1, dtype=np.int32)
    if n:
        np.cumsum(np.bincount(rng.integers(0, n, arcs), minlength=n), out=indptr[1:])
    srcs = rng.integers(0, max(n, 1), arcs).astype(np.int64)  # any integer dtype
    ptr, targets = L.out_csr(n, indptr, srcs)
    owner = np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
    want = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(srcs, minlength=n), out=want[1:])
    assert ptr.dtype == targets.dtype == np.int32
    np.testing.assert_array_equal(ptr, want)
    np.testing.assert_array_equal(targets, owner[np.argsort(srcs, kind="stable")])


def test_the_hierarchy_travels_with_a_pickled_graph():
    import pickle
    g = generators.road_like(500, 1200, seed=2)
    h, _ = L.hierarchy_of(g)
    copy = pickle.loads(pickle.dumps(g))
    h2, seconds = L.hierarchy_of(copy)
    assert seconds == 0.0 and np.array_equal(h2.order, h.order)


def test_first_top_level_and_padding():
    ptr = np.array([0, 500, 700, 710, 712, 713])
    assert L.first_top_level(ptr, 256) == 1 and L.first_top_level(ptr, 10) == 2
    assert L.first_top_level(ptr, 0) == 5 and L.first_top_level(ptr, 1000) == 0
    rank = np.array([3, 1, 0, 2], dtype=np.int32)
    np.testing.assert_array_equal(L.padded_sources(rank, np.array([0, 3]), 4), [3, 2, -1, -1])


def test_bad_input_is_refused_before_anything_is_contracted():
    dense = generators.random_digraph(100, 400, seed=1)
    with pytest.raises(InputError, match="road-like.*fast:multi_source"):
        PB.BatchedPhast(dense)
    assert L.HIERARCHY_KEY not in dense.__dict__
    road = generators.road_like(400, 1000, seed=1)
    for bad in (16, 48, True, "32"):
        with pytest.raises(InputError, match="K must be one of"):
            PB.PhastBatchedSSSP(road, [0], K=bad)
    with pytest.raises(InputError, match="threads"):
        PB.PhastBatchedSSSP(road, [0], threads=100)
    assert PB.check_params(32, None, 0, "who") == (32, None, 0)
    with pytest.raises(InputError, match="batch"):
        PB.PhastBatchedSSSP(road, [0], batch=0)
    with pytest.raises(InputError, match="negative|non-negative"):
        PB.BatchedPhast(Graph.from_edges(2, [0], [1], [-1]))
    assert L.HIERARCHY_KEY not in road.__dict__
    assert PB.suits(road) and not PB.suits(dense)


def test_bytes_needed_counts_the_working_matrix_the_stamps_the_buckets_and_the_rows():
    g = generators.road_like(1000, 2400, seed=4)
    sweeps = PB.BatchedPhast(g, k=64)
    c = 128  # 100 sources padded to two groups of 64
    want = g.n * c * 4 + 2 * 2 * g.n * 4 + 4 * c + 100 * g.n * 4 + sweeps.lay.nbytes  # stamps and buckets
    assert sweeps.bytes_needed(100) == want


def test_all_sources_picks_batched_phast_for_road_graphs_on_gpu_workers():
    from apsp_kernels.distributed import block_solvers as B
    road, dense = generators.road_like(5000, 12000, seed=1), generators.random_digraph(5000, 40000, seed=1)
    assert B.default_key(True, road) == B.PHAST
    assert B.default_key(True, dense) == B.MULTI_SOURCE and B.default_key(False, road) == B.SCIPY
    assert B.default_key(True, generators.road_like(1000, 2400, seed=1)) == B.MULTI_SOURCE  # too small to pay
    assert B.check_key(B.PHAST, True) == B.PHAST
    key, seconds = B.prepare(B.PHAST, road, chosen_by_default=True)
    assert key == B.PHAST and seconds > 0 and L.HIERARCHY_KEY in road.__dict__
    assert B.prepare(B.MULTI_SOURCE, dense, chosen_by_default=True) == (B.MULTI_SOURCE, 0.0)
    # road-like by degree but far from road-like by contraction: the default falls back, a request fails
    odd = generators.random_digraph(6000, 17000, seed=2)
    assert B.default_key(True, odd) == B.PHAST
    assert B.prepare(B.PHAST, odd, chosen_by_default=True) == (B.MULTI_SOURCE, 0.0)
    with pytest.raises(InputError, match="road-like"):
        B.prepare(B.PHAST, odd, chosen_by_default=False)
    assert B.block_bytes(B.PHAST, 100, 64, 4) > B.block_bytes(B.MULTI_SOURCE, 100, 64, 4)
    # reduced in place (no store, sums kept on the worker): no rows, so about half a block's bytes
    assert [B.reduces_in_place(B.PHAST, True, False, True), B.reduces_in_place(B.PHAST, True, True, True),
            B.reduces_in_place(B.PHAST, False, False, True), B.reduces_in_place(B.PHAST, True, False, False),
            B.reduces_in_place(B.MULTI_SOURCE, True, False, True)] == [True, False, False, False, False]
    rows = B.block_bytes(B.PHAST, 10_000, 1024, 4, store=False)
    assert 0.45 * rows < B.block_bytes(B.PHAST, 10_000, 1024, 4, store=False, in_place=True) < 0.6 * rows


def _table(rows):
    import pandas as pd
    from apsp_kernels.csgraph import auto
    return pd.DataFrame(rows, columns=auto.COLUMNS)


def _all_pairs_row(method, family, n, m, ms):
    return {"problem": "all_pairs", "dtype": "int32", "n": n, "m": m, "method": method, "family": family,
            "time_ms": ms, "device": "x", "source": f"test n={n}"}


def test_auto_picks_phast_when_many_sources_pay_for_the_contraction(monkeypatch):
    from apsp_kernels.csgraph import auto
    monkeypatch.setattr(auto.gpu, "available", lambda: True)
    monkeypatch.setattr(auto.gpu, "free_bytes", lambda: 1 << 40)
    road = generators.road_like(20000, 48000, seed=5)
    n, m = road.n, road.m
    table = _table([_all_pairs_row("fast:phast_batched", "phast", n, m, n * 0.002),  # 2 µs a tree
                    _all_pairs_row("fast:multi_source", "multi_source", n, m, n * 0.2)])
    prep = auto.HOST_PREPROCESSING_MS_PER_ARC["phast"] * m
    many = auto.choose(road, 4096, False, table)
    assert many.family == "phast", str(many)
    assert "phast" in str(many) and "host preprocessing" in str(many)
    est = {name: ms for name, ms, _ in many.candidates}
    assert est["phast"] == pytest.approx(0.002 * 4096 + prep)
    few = auto.choose(road, 16, False, table)  # 16 trees do not pay for the contraction
    assert few.family == "multi_source", str(few)
    road.__dict__[L.HIERARCHY_KEY] = L.hierarchy_of(generators.road_like(100, 240, seed=1))[0]  # already built
    assert dict((f, ms) for f, ms, _ in auto.choose(road, 16, False, table).candidates)["phast"] == \
        pytest.approx(0.002 * 16)
    dense = generators.random_digraph(2000, 16000, seed=1)
    why = dict(auto.choose(dense, 4096, False, table).excluded)
    assert "road-like" in why["phast"]
    assert "no predecessor-recording method" in dict(auto.choose(road, 4096, True, table).excluded)["phast"]


def test_the_method_map_keeps_the_phast_rows_when_it_rewrites_the_table(tmp_path):
    from apsp_kernels.csgraph import auto
    path = tmp_path / "table.csv"
    _table([_all_pairs_row("fast:phast_batched", "phast", 264346, 730100, 500.0),
            _all_pairs_row("fast:multi_source", "multi_source", 100, 300, 5.0)]).to_csv(path, index=False)
    table = auto.write_table([], path)
    assert list(table["method"]) == ["fast:phast_batched"] and list(auto.load_table(path)["method"]) == \
        ["fast:phast_batched"]


def test_autos_preprocessing_rate_is_nys_contraction_in_the_committed_results():
    """Within 20 % of every committed run that contracted NY (0: the run found the hierarchy, timed
    nothing); the lent hosts' runs of the same contraction spread by about 15 % (0.30-0.36 s)."""
    import pandas as pd
    from pathlib import Path
    from apsp_kernels.csgraph import auto
    results = Path(__file__).resolve().parent.parent / "results"
    rates = []
    for folder in ("scale", "paper/scale"):
        rows = pd.read_csv(results / folder / "phast" / "all_sources.csv")
        ny = rows[rows["graph"] == "NY"].iloc[0]
        if ny["preprocessing_s"] > 0:
            rates.append(ny["preprocessing_s"] * 1e3 / ny["m"])
    assert rates, "no committed run contracted NY"
    for rate in rates:
        assert auto.HOST_PREPROCESSING_MS_PER_ARC["phast"] == pytest.approx(rate, rel=0.20)


def test_top_level_shape_counts_the_levels_that_run_in_blocks():
    g = generators.road_like(3000, 7400, seed=2)
    lay, _ = PB.sweep_layout(g)
    every = L.top_level_shape(lay, 10**9)
    assert every["top_levels"] == lay.levels and every["top_vertices"] == g.n
    assert every["top_down_arcs"] == len(lay.down[1]) and every["top_down_arcs_share"] == 1.0
    none = L.top_level_shape(lay, 0)
    assert none == {"top_levels": 0, "top_vertices": 0, "top_down_arcs": 0, "top_down_arcs_share": 0.0,
                    "top_widest_in_degree_sum": 0}
    some = L.top_level_shape(lay, PB.TOP_LEVEL_MAX)
    assert 0 < some["top_levels"] < lay.levels and 0 < some["top_widest_in_degree_sum"] <= some["top_down_arcs"]


def test_scipys_time_per_tree_is_taken_holding_the_hosts_cpu_lock(monkeypatch):
    from apsp_kernels import oracle
    from apsp_kernels.experiments import phast_batched as bench
    lock, seen, real = helpers.RecordingLock(), [], oracle.distances
    monkeypatch.setattr(bench.timing.host_cpu, "exclusive", lock.exclusive)
    monkeypatch.setattr(bench.oracle, "distances", lambda g, s: seen.append(lock.held) or real(g, s))
    assert bench.scipy_us_per_tree(generators.road_like(300, 750, seed=1), count=4) > 0 and seen == [True]


@pytest.mark.parametrize("groups, threads", [(0, 1024), (132, 1024), (133, 512), (264, 512), (265, 256),
                                             (414, 256), (10**6, 256)])
def test_the_upper_searches_take_fewer_threads_a_group_once_the_groups_outnumber_the_multiprocessors(groups, threads):
    assert PB.upper_threads(groups, 132) == threads
