"""Batched PHAST's working matrix reduced in place (distributed.sweep_reductions): the bits that
reductions.block_partial gives from the rows, per source, per vertex and in the histogram."""
import dataclasses

import numpy as np
import pytest

from apsp_kernels import generators
from apsp_kernels.graph import Graph
from apsp_kernels.distributed import reductions
from apsp_kernels.distributed import sweep_reductions as SR
from apsp_kernels.distributed.fixed_sums import scales_for
from apsp_kernels.distributed.reductions import PER_TARGET
from apsp_kernels.sssp_hierarchy import phast_batched as PB
from apsp_kernels.sssp_hierarchy.layout import padded_sources

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")
PER_SOURCE = ("eccentricity", "reach_out", "sum_out", "histogram", "scales")


def uneven_bins(rows, inf, count=40, start=0.0, geometric=False):
    """Bins from ``start`` (a fraction of the rows' longest distance) to below that distance (pairs
    outside them): equal ones moved by up to 0.4 of a width, or (``geometric``) widths growing by a
    constant factor from 1, or (``geometric == "whole"``) bins of one integer width from 0 whose last
    edge is a distance that occurs (numpy's closed last bin counts it)."""
    reached = rows[rows < inf]
    top = float(reached.max())
    if geometric == "whole":
        d = cp.unique(reached).get()
        last = int(d[(d > 0.5 * top) & (d < 0.8 * top) & (d % (count - 1) == 0)][0])
        return np.arange(count) * float(last // (count - 1))
    if geometric:
        return np.geomspace(1.0, 0.7 * top, count)
    edges = np.linspace(start * top, 0.7 * top, count)
    edges[1:-1] += np.random.default_rng(0).uniform(-0.4, 0.4, len(edges) - 2) * np.diff(edges)[:-1]
    return edges


def with_unreached(g, extra=200, seed=4):
    """``g`` and ``extra`` vertices more, each with two arcs into ``g`` and none out of it: no vertex
    of ``g`` reaches them, and each of them reaches all of ``g``."""
    rng = np.random.default_rng(seed)
    src = np.r_[np.repeat(np.arange(g.n), np.diff(g.indptr)), np.repeat(np.arange(g.n, g.n + extra), 2)]
    dst = np.r_[g.indices, rng.integers(0, g.n, 2 * extra)]
    w = np.r_[g.weights, rng.integers(400, 2200, 2 * extra)]
    return Graph.from_edges(g.n + extra, src, dst, w, dtype=g.weights.dtype, name=f"{g.name}+unreached")


@pytest.mark.parametrize("dtype, edge_count, start, inverse, geometric, unreached, kernel",
                         [(np.int32, 40, 0.0, None, False, False, "swr_reduce_i32_fast"),
                          (np.int32, 40, 0.0, None, "whole", False, "swr_reduce_i32_equal"),
                          (np.int32, 40, 0.0, None, False, True, "swr_reduce_i32_fast"),
                          (np.int32, 40, 0.0, None, "whole", True, "swr_reduce_i32_equal"),
                          (np.int32, 40, 0.0, SR.EXACT_SCALE, "whole", False, "swr_reduce_i32_equal"),
                          (np.int32, 40, 0.0, None, True, False, "swr_reduce_i32"),
                          (np.float32, 40, 0.0, None, False, False, "swr_reduce_f32"),
                          (np.float64, 40, 0.0, None, False, False, "swr_reduce_f64"),
                          (np.int32, 300, 0.1, None, False, False, "swr_reduce_i32"),
                          (np.int32, 40, 0.0, SR.EXACT_SCALE - 20, False, False, "swr_reduce_i32")])
def test_the_matrix_reduced_in_place_gives_the_rows_bits(dtype, edge_count, start, inverse, geometric, unreached,
                                                         kernel):
    """40 edges count per lane in shared memory, 300 in global memory; bins from 0 hold the sources'
    own rows, which the pairs leave out; int distances sum 1/d in two doubles a lane unless the
    inverse scale is below SR.EXACT_SCALE (terms rounded: one by one in fixed point), and at
    SR.EXACT_SCALE a warp's two doubles become fixed point unshifted; int distances in bins of one
    integer width take the _equal kernel, in near-equal bins the _fast one, in geometric ones (first
    guesses off by more than a bin) the general one; ``unreached``: a graph with vertices that the
    others do not reach (rows and columns with inf)."""
    g = generators.road_like(5000, 12000, seed=2, dtype=dtype)
    sources = np.r_[np.arange(40, 340), [7, 4999, 40]]  # two chunks of columns, a source twice, a padded group
    if unreached:
        g = with_unreached(g)
        sources = np.r_[sources, [5000, 5150]]  # sources that reach all of the road graph
    rows = PB.multi_source_distances(g, sources)
    edges = uneven_bins(rows, g.inf, edge_count, start, geometric)
    scales = scales_for(g, len(sources))
    if inverse is not None:
        assert scales.inverse >= SR.EXACT_SCALE  # the other int cases take the two doubles
        scales = dataclasses.replace(scales, inverse=inverse)
    assert SR.kernel_name(np.dtype(dtype), scales, *SR.integer_bins(edges)) == kernel
    want = reductions.block_partial(rows, g.inf, sources, edges, scales)
    sweeps = PB.BatchedPhast(g, SR.K).setup()
    ranks = cp.asarray(padded_sources(sweeps.lay.rank, sources, SR.K))
    sweeps.sweep(ranks)
    sums = SR.SweepSums(g.n, scales, SR.device_rank(g))
    got = SR.reduce_matrix(sweeps.D, len(sources), g.inf, edges, scales, sums)
    assert 0 < int(want["histogram"].sum()) < int(want["pairs"])  # some pairs fall outside the bins
    for key in PER_SOURCE:
        assert np.asarray(got[key]).dtype == np.asarray(want[key]).dtype, key
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)
    assert int(got["pairs"]) == int(want["pairs"])
    once = sums.result()
    for key in PER_TARGET:
        np.testing.assert_array_equal(once[key], want[key], err_msg=key)
    SR.reduce_matrix(sweeps.D, len(sources), g.inf, edges, scales, None)  # already counted: not added
    assert all(np.array_equal(sums.result()[key], once[key]) for key in PER_TARGET)
    SR.reduce_matrix(sweeps.D, len(sources), g.inf, edges, scales, sums)
    np.testing.assert_array_equal(sums.result()["reach_in"], 2 * want["reach_in"])


def test_a_block_sweeps_and_reduces_in_one_call_and_says_how_long_each_took():
    g = generators.road_like(5000, 12000, seed=3)
    sources = np.arange(1000, 1700)
    edges, scales = reductions.default_bins(g), scales_for(g)
    sums = SR.SweepSums(g.n, scales, SR.device_rank(g))
    partial, stats = SR.phast_block(g, sources, edges, scales, sums)
    want = reductions.block_partial(PB.multi_source_distances(g, sources), g.inf, sources, edges, scales)
    np.testing.assert_array_equal(partial["eccentricity"], want["eccentricity"])
    np.testing.assert_array_equal(sums.result()["harmonic_in"], want["harmonic_in"])
    assert stats["K"] == SR.K and stats["sweep_ms"] > 0 and stats["reduce_ms"] > 0
    assert 0 < stats["upper_ms"] <= stats["sweep_ms"]  # the upward searches and top levels: part of the sweep
    assert stats["setup_ms"] > 0  # host work before the first event: the layout, the modules, the buffers


@pytest.mark.parametrize("share", [0.5, 0.01])
def test_the_reductions_on_part_of_the_gpu_give_the_same_bits(share):
    """Fewer CUDA blocks (down to one) only cut the rows into longer slices."""
    g = generators.road_like(5000, 12000, seed=5)
    sources = np.arange(300, 1400)  # two chunks of columns
    edges, scales = reductions.default_bins(g), scales_for(g)
    sweeps = PB.BatchedPhast(g, SR.K).setup()
    sweeps.sweep(cp.asarray(padded_sources(sweeps.lay.rank, sources, SR.K)))
    whole, part = (SR.SweepSums(g.n, scales, SR.device_rank(g)) for _ in range(2))
    want = SR.reduce_matrix_packed(sweeps.D, len(sources), g.inf, edges, scales, whole)
    got = SR.reduce_matrix_packed(sweeps.D, len(sources), g.inf, edges, scales, part, gpu_share=share)
    np.testing.assert_array_equal(got.packed, want.packed)
    for key in PER_TARGET:
        np.testing.assert_array_equal(part.result()[key], whole.result()[key], err_msg=key)


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
@pytest.mark.parametrize("whole", [1, 3])
def test_a_pass_cut_into_launches_of_columns_gives_one_launch_s_bits(dtype, whole, monkeypatch):
    """The first columns (their last chunk partial), then ``whole`` chunks of columns that start
    inside every row: the bits of one launch over every column, on all the GPU and on a share."""
    g = generators.road_like(5000, 12000, seed=8, dtype=dtype)
    sources = np.arange(200, 3500)  # 4 chunks of columns, the last partial
    edges, scales = reductions.default_bins(g), scales_for(g)
    sweeps = PB.BatchedPhast(g, SR.K).setup()
    sweeps.sweep(cp.asarray(padded_sources(sweeps.lay.rank, sources, SR.K)))
    whole_sums, cut_sums = (SR.SweepSums(g.n, scales, SR.device_rank(g)) for _ in range(2))
    want = SR.reduce_matrix_packed(sweeps.D, len(sources), g.inf, edges, scales, whole_sums)
    cut = len(sources) - whole * SR.CHUNK
    monkeypatch.setattr(SR, "column_launches", lambda width, slots, tiles: [(0, cut), (cut, width)])
    passes = SR.RowReductions(sweeps.D, len(sources), g.inf, edges, scales, cut_sums)
    passes.rows(0, 1700, gpu_share=0.5)
    passes.rows(1700, g.n)
    assert passes.launches == 4
    np.testing.assert_array_equal(passes.packed().packed, want.packed)
    for key in PER_TARGET:
        np.testing.assert_array_equal(cut_sums.result()[key], whole_sums.result()[key], err_msg=key)


@pytest.mark.parametrize("cuts", [[0, 1, 2, 777, 5000], [0, 2500, 2508, 4999, 5000]])
def test_passes_over_row_ranges_in_any_order_give_one_passs_bits(cuts):
    """Each row in one pass, the passes in any order and on any share: the bits of one pass over
    every row (the first pass takes the own rows off the pairs, whichever rows it holds)."""
    g = generators.road_like(5000, 12000, seed=7)
    sources = np.arange(300, 1400)  # two chunks of columns: the passes add to rows other CUDA blocks add to
    edges, scales = reductions.default_bins(g), scales_for(g)
    sweeps = PB.BatchedPhast(g, SR.K).setup()
    sweeps.sweep(cp.asarray(padded_sources(sweeps.lay.rank, sources, SR.K)))
    whole, cut = (SR.SweepSums(g.n, scales, SR.device_rank(g)) for _ in range(2))
    want = SR.reduce_matrix_packed(sweeps.D, len(sources), g.inf, edges, scales, whole)
    passes = SR.RowReductions(sweeps.D, len(sources), g.inf, edges, scales, cut)
    ranges = list(zip(cuts[:-1], cuts[1:]))
    for i in np.random.default_rng(len(cuts)).permutation(len(ranges)):
        passes.rows(*ranges[i], gpu_share=0.01 if i % 2 else 1.0)
    passes.rows(3, 3)  # an empty range: no pass
    assert passes.launches == len(ranges)
    np.testing.assert_array_equal(passes.packed().packed, want.packed)
    for key in PER_TARGET:
        np.testing.assert_array_equal(cut.result()[key], whole.result()[key], err_msg=key)


def test_a_sweep_cut_into_smaller_launches_leaves_the_same_matrix_and_says_which_rows_are_final():
    g = generators.road_like(5000, 12000, seed=8)
    sweeps = PB.BatchedPhast(g, SR.K).setup()
    ranks = cp.asarray(padded_sources(sweeps.lay.rank, np.arange(200, 456), SR.K))
    whole_launches = sweeps.sweep(ranks)
    want = sweeps.D.copy()
    finished = []
    launches = sweeps.sweep(ranks, max_rows=100, finished=lambda lo, hi: finished.append((lo, hi)))
    assert bool(cp.array_equal(sweeps.D, want)) and launches > whole_launches
    assert finished[0][1] == g.n and finished[-1][0] == 0
    assert all(hi == lo_before for (lo_before, _), (lo, hi) in zip(finished, finished[1:]))  # descending, contiguous
    assert max(hi - lo for lo, hi in finished[1:]) <= 100


@pytest.mark.parametrize("overlap", [SR.Overlap(segments=7, gpu_share=0.35), SR.Overlap(segments=3, gpu_share=1.0),
                                     SR.Overlap(segments=40, sweep_first=False)])
def test_a_block_reduced_beside_its_sweep_gives_the_bits_of_one_reduced_after_it(overlap, monkeypatch):
    monkeypatch.setattr(SR, "MIN_SEGMENT_ROWS", 64)  # segments on a small graph
    g = generators.road_like(5000, 12000, seed=9)
    sources = np.arange(2000, 3100)
    edges, scales = reductions.default_bins(g), scales_for(g)
    after, beside = (SR.SweepSums(g.n, scales, SR.device_rank(g)) for _ in range(2))
    want, serial = SR.phast_block(g, sources, edges, scales, after, packed=True, overlap=None)
    got, stats = SR.phast_block(g, sources, edges, scales, beside, packed=True, overlap=overlap)
    np.testing.assert_array_equal(got.packed, want.packed)
    for key in PER_TARGET:
        np.testing.assert_array_equal(beside.result()[key], after.result()[key], err_msg=key)
    assert serial["reduce_passes"] == 1 and stats["reduce_passes"] > 1 and stats["launches"] > serial["launches"]
    assert stats["reduce_share"] == overlap.gpu_share and serial["reduce_share"] == 1.0


@pytest.mark.parametrize("overlap", [None, SR.Overlap(segments=5)])
def test_a_block_swept_in_several_launches_gives_the_bits_of_one(overlap, monkeypatch):
    """The launches queued one after another (each waits for the passes over the one before it)."""
    monkeypatch.setattr(SR, "MIN_SEGMENT_ROWS", 64)
    g = generators.road_like(5000, 12000, seed=10)
    sources = np.r_[np.arange(100, 1100), [7, 7]]  # four launches of 300 sources, the last of 102 (a source twice)
    edges, scales = reductions.default_bins(g), scales_for(g)
    once, cut = (SR.SweepSums(g.n, scales, SR.device_rank(g)) for _ in range(2))
    want, one = SR.phast_block(g, sources, edges, scales, once, packed=True, overlap=overlap)
    got, stats = SR.phast_block(g, sources, edges, scales, cut, packed=True, overlap=overlap, columns=300)
    np.testing.assert_array_equal(got.packed, want.packed)
    for key in PER_TARGET:
        np.testing.assert_array_equal(cut.result()[key], once.result()[key], err_msg=key)
    assert (one["sweeps"], stats["sweeps"]) == (1, 4) and stats["groups"] == 3 * 3 + 1
    assert stats["sweep_ms"] > 0 and stats["reduce_kernel_ms"] > 0 and stats["reduce_ms"] >= stats["reduce_kernel_ms"]


def test_the_overlap_probe_times_each_way_and_checks_its_bits():
    from apsp_kernels.experiments import overlap_probe
    g = generators.road_like(6000, 15000, seed=6)
    ways = {"serial": None, "beside": SR.Overlap(segments=4)}
    table = overlap_probe.measure(g, size=512, blocks=2, ways=ways, log=lambda text: None, columns=256)
    assert table["same_bits"].all() and list(table["way"]) == ["serial", "beside"]
    assert (table["columns"] == 256).all() and (table["us_a_source"] > 0).all()
    assert (table[["block_ms", "sweep_ms", "reduce_after_sweep_ms"]] > 0).all().all()
    assert table["over_serial"].iloc[0] == 1.0


def test_a_packed_block_unpacks_where_it_is_merged_to_the_same_bits():
    g = generators.road_like(5000, 12000, seed=3)
    sources = np.arange(200, 900)
    edges, scales = reductions.default_bins(g), scales_for(g)
    packed, _ = SR.phast_block(g, sources, edges, scales, None, packed=True)
    unpacked, _ = SR.phast_block(g, sources, edges, scales, None)
    assert isinstance(packed, SR.SweepResults) and packed.count == len(sources)
    got = SR.as_partial(packed)
    assert got.keys() == unpacked.keys()
    for key, value in unpacked.items():
        np.testing.assert_array_equal(got[key], value, err_msg=key)


def test_the_fast_kernels_reciprocal_is_drcp_rn_for_every_int_distance():
    """swr_recip (no branch to a slow path) against __drcp_rn for every x in [1, 2**31)."""
    from apsp_kernels import gpu
    check = gpu.load_module(gpu.cu_path(SR.__file__, SR._CU)).get_function("swr_recip_check")
    mismatches, first_bad = cp.zeros(1, dtype=cp.uint64), cp.full(1, 2 ** 31 - 1, dtype=cp.int32)
    check((4096,), (256,), (np.int32(1), np.int32(2 ** 31 - 1), mismatches, first_bad))
    assert int(mismatches.get()[0]) == 0, f"first x whose reciprocal differs: {int(first_bad.get()[0])}"
