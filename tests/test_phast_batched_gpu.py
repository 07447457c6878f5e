"""Batched PHAST on the GPU (apsp_kernels/sssp_hierarchy/phast_batched.cu) against SciPy's
Dijkstra and against its NumPy reference bit for bit: every K, the top levels inside the block or
as launches, int32 and float32, sources repeated and padded, a buffer reused across sweeps (stale
rows must not leak), NY samples, the Solver and the reductions of distributed.all_sources."""
import numpy as np
import pytest

from apsp_kernels import datasets, generators, oracle
from apsp_kernels.sssp_hierarchy import layout as L
from apsp_kernels.sssp_hierarchy import phast_batched as PB

import helpers
from test_sssp_hierarchy import GRAPHS

pytestmark = pytest.mark.gpu


def _sources(g, count, seed):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, g.n, size=count)
    s[:2] = [0, g.n - 1]
    s[2] = s[3]  # a source twice
    return s


@pytest.mark.parametrize("top_level_max", [0, 256, 1 << 30])
@pytest.mark.parametrize("k", PB.K_CHOICES)
@pytest.mark.parametrize("name", GRAPHS)
def test_kernel_equals_dijkstra_and_the_reference(name, k, top_level_max):
    g = GRAPHS[name]()
    sources = _sources(g, 3 * k + 5, k) if g.n > 4 else np.arange(g.n)  # four groups, the last padded
    stats = {}
    rows = PB.multi_source_distances(g, sources, K=k, top_level_max=top_level_max, stats=stats).get()
    helpers.assert_rows_match_oracle(g, rows, sources)
    lay = L.layout(L.hierarchy_of(g)[0])
    ref = L.batched_sweeps_on_host(lay, sources[: 2 * k], k, g.inf)
    np.testing.assert_array_equal(rows[: 2 * k], ref)
    assert stats["launches"] >= 2 and stats["K"] == k


@pytest.mark.parametrize("threads", [64, 1024])
def test_a_reused_buffer_gives_each_sweep_its_own_trees(threads):
    g = generators.road_like(20000, 48000, seed=5)
    sweeps = PB.BatchedPhast(g, k=64, threads=threads, top_level_max=64).setup()
    import cupy as cp
    for seed, count in enumerate((128, 40, 128)):  # D and the stamps reused, the pass changes; a narrower
        sources = _sources(g, count, seed)           # launch uses the first columns of the wider matrix
        out = cp.empty((len(sources), g.n), dtype=g.dtype)
        sweeps.run(sources, out)
        helpers.assert_rows_match_oracle(g, out.get(), sources)
    assert sweeps.passes == 3 and sweeps.D.shape[1] == 128


def test_more_groups_than_multiprocessors_take_fewer_threads_a_group_and_give_the_same_trees():
    import cupy as cp
    from apsp_kernels import gpu
    g = generators.road_like(3000, 7200, seed=4)
    sms = gpu.device_info()["sm_count"]
    sources = np.resize(np.arange(g.n), 32 * (4 * sms + 3))  # more groups than four a multiprocessor
    assert PB.upper_threads(len(sources) // 32, sms) == 256
    rows = {}
    for threads in (None, 1024):
        sweeps = PB.BatchedPhast(g, k=32, threads=threads).setup()
        out = cp.empty((len(sources), g.n), dtype=g.dtype)
        sweeps.run(sources, out)
        rows[threads] = out.get()
    np.testing.assert_array_equal(rows[None], rows[1024])
    helpers.assert_rows_match_oracle(g, rows[None][-g.n:], sources[-g.n:])


def test_solver_in_several_launches_and_float32():
    for g in (generators.road_like(30000, 72000, seed=9),
              generators.road_like(30000, 72000, seed=9, dtype=np.float32)):
        sources = _sources(g, 300, 1)
        s = PB.PhastBatchedSSSP(g, sources=sources, K=32, batch=96)
        s.solve_once()
        assert len(s.parts) == 4 and s.parts[-1] == (288, 300)  # the last launch: one group of 12
        result = oracle.verify(s.solution(), g)
        assert result["verified"], (g.name, result, s.stats)


def test_new_york_samples_against_dijkstra():
    g = datasets.load_or_stand_in("NY")
    for k, seed in ((32, 0), (128, 1)):
        sources = np.concatenate([np.arange(0, 256), _sources(g, 256, seed)])  # neighbours and scattered
        rows = PB.multi_source_distances(g, sources, K=k).get()
        pick = np.random.default_rng(seed).choice(len(sources), 24, replace=False)
        helpers.assert_rows_match_oracle(g, rows[pick], sources[pick])


def test_block_reductions_equal_those_of_todays_block_solver():
    from apsp_kernels.distributed import reductions
    from apsp_kernels.multi_source import multi_source_distances
    g = generators.road_like(40000, 96000, seed=3)
    edges = reductions.default_bins(g)
    ids = np.arange(1000, 2024)
    ours = reductions.block_partial(PB.multi_source_distances(g, ids), g.inf, ids, edges)
    today = reductions.block_partial(multi_source_distances(g, ids), g.inf, ids, edges)
    for key in today:
        np.testing.assert_array_equal(ours[key], today[key], err_msg=key)


def test_the_benchmark_parts_verify_on_a_small_road():
    from apsp_kernels.experiments import phast_batched as bench
    g = generators.road_like(12000, 28000, seed=8)
    rows = bench.per_tree(g, ks=(32, 256), columns=(512,), copy_bps=1e12, repeats=1, log=lambda s: None)
    assert len(rows) == 2 and all(r["verified"] and r["ratio_to_bound"] > 0 for r in rows)
    end = bench.all_sources_in_process(g, block=2048, log=lambda s: None)
    assert end["verified"] and end["blocks_verified"] == 6 and end["summary_sources_done"] == g.n
    want = oracle.distances(g, np.arange(0, g.n, 97))  # the diameter is the largest distance
    assert end["summary_diameter"] >= want[np.isfinite(want)].max()
    same = bench.same_as_today(g, blocks=2, block=1024, log=lambda s: None)
    assert all(r["equal"] for r in same)
