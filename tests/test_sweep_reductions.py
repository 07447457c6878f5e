"""The integer thresholds by which sweep_reductions.cu bins int distances: numpy.histogram's bins; how a
pass over the working matrix is cut into launches of columns."""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from apsp_kernels.distributed import sweep_reductions as SR

edge_values = st.floats(-50.0, 3e9, allow_nan=False)


def kernel_bins(d: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The kernel's rule: in range when t[0] <= d < t[-1], the bin the last threshold <= d."""
    t, _ = SR.integer_bins(edges)
    inside = (d >= t[0]) & (d < t[-1])
    return np.bincount(np.searchsorted(t[:-1], d[inside], side="right") - 1, minlength=len(edges) - 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(edge_values, min_size=2, max_size=12, unique=True), st.integers(0, 2 ** 31 - 2))
def test_integer_thresholds_bin_ints_as_numpy_histogram(values, seed):
    edges = np.sort(np.asarray(values))
    rng = np.random.default_rng(seed)
    d = np.r_[rng.integers(0, 2 ** 31 - 1, 200), np.floor(edges).clip(0, 2 ** 31 - 2), np.ceil(edges).clip(0, 2 ** 31 - 2),
              rng.integers(0, 100, 50)].astype(np.int64)
    np.testing.assert_array_equal(kernel_bins(d, edges), np.histogram(d, bins=edges)[0])


def test_the_first_guess_saturates_when_the_edges_are_close():
    assert SR.integer_bins(np.array([0.0, 0.5, 1.0]))[1] == 2 ** 32 - 1
    assert SR.integer_bins(np.linspace(0.0, 1e7, 65))[1] == int(64 * 2 ** 32 / 1e7)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(1, 40), st.integers(1, 2 ** 31 - 1)), min_size=1, max_size=SR.CHUNK // 32))
def test_a_lanes_reciprocals_in_two_doubles_are_their_exact_sum(distances):
    """sweep_reductions.cu's exact pairs: a lane's terms 1/d (int d) added by TwoSum into hi + lo
    are their exact sum, and hi and lo are whole in fixed point from EXACT_SCALE up, so they give
    the bits of the terms' fixed-point sum."""
    hi = lo = 0.0
    for d in distances:
        r = 1.0 / d
        s = hi + r
        back = s - hi
        lo += (hi - (s - back)) + (r - back)
        hi = s
    assert Fraction(hi) + Fraction(lo) == sum(Fraction(1.0 / d) for d in distances)
    unit = Fraction(2) ** SR.EXACT_SCALE
    assert (Fraction(hi) * unit).denominator == 1 and (Fraction(lo) * unit).denominator == 1


def test_a_lanes_reciprocals_from_a_bias_by_fast2sum_are_exact_in_any_grouping():
    """sweep_reductions.cu's fast kernels: each lane adds its terms 1/d (int d) in two chains (its
    columns' even and odd ones) to hi = 2**11 by Fast2Sum, the errors to lo; the chains' hi - 2**11
    and lo, added over the lane and a warp's shuffle tree (a CUDA block's 1024 terms), are the
    terms' exact sum, whole in fixed point from EXACT_SCALE up."""
    rng = np.random.default_rng(5)
    for trial in range(40):
        kind = trial % 3  # short distances (terms near 1), long ones (tiny terms), a mix
        high = (40, 2 ** 31 - 1, 2 ** 31 - 1)[kind]
        d = rng.integers(1, high, SR.CHUNK)
        if kind == 2:
            d[rng.random(SR.CHUNK) < 0.5] = rng.integers(1, 4, SR.CHUNK)[:1]
        terms = d.reshape(-1, 32, 4)  # [m, lane, k]: the row's column 128 m + 4 lane + k
        hi = np.full((32, 2), 2048.0)
        lo = np.zeros((32, 2))
        for m in range(terms.shape[0]):
            for k in range(4):
                r = 1.0 / terms[m, :, k]
                s = hi[:, k % 2] + r
                lo[:, k % 2] += r - (s - hi[:, k % 2])
                hi[:, k % 2] = s
        hi, lo = (hi[:, 0] - 2048.0) + (hi[:, 1] - 2048.0), lo[:, 0] + lo[:, 1]
        for offset in (16, 8, 4, 2, 1):  # __shfl_down_sync's tree
            hi[:32 - offset] += hi[offset:]
            lo[:32 - offset] += lo[offset:]
        exact = sum(Fraction(1.0 / float(x)) for x in d)
        assert Fraction(float(hi[0])) + Fraction(float(lo[0])) == exact
        unit = Fraction(2) ** SR.EXACT_SCALE
        assert (Fraction(float(hi[0])) * unit).denominator == 1 and (Fraction(float(lo[0])) * unit).denominator == 1


def equal_bins(d: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The _equal kernel's rule: offset = d - t0 (32-bit unsigned), in the bins below t[-1] - t0, its bin
    offset // w by sweep_reductions.cu's multiply-high, the last edge into the last bin."""
    t, _ = SR.integer_bins(edges)
    width, bins = SR.equal_width(t), len(edges) - 1
    offset = (d - int(t[0])) % 2 ** 32
    inside = offset[offset < int(t[-1]) - int(t[0])]
    shift = (width - 1).bit_length()  # ceil(log2 width)
    magic = (2 ** (31 + shift) + width - 1) // width
    assert magic < 2 ** 32
    b = ((inside * magic) >> 32) >> (shift - 1)
    return np.bincount(np.minimum(b, bins - 1), minlength=bins)


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 2 ** 30), st.integers(1, 300), st.integers(-2 ** 20, 2 ** 20), st.integers(0, 2 ** 31 - 2))
def test_bins_of_one_integer_width_by_a_multiply_high_are_numpys(width, bins, start, seed):
    edges = start + np.arange(bins + 1, dtype=np.float64) * width
    if edges[-1] >= 2 ** 31 - 1:
        return
    t, _ = SR.integer_bins(edges)
    assert SR.equal_width(t) == width
    rng = np.random.default_rng(seed)
    k = rng.integers(0, bins + 1, 200)
    d = np.r_[rng.integers(0, 2 ** 31 - 1, 200), start + k * width, start + k * width - 1, start + k * width + 1,
              rng.integers(max(0, start), max(1, int(edges[-1]) + 2), 300)]
    d = d[(d >= 0) & (d < 2 ** 31 - 1)].astype(np.int64)
    np.testing.assert_array_equal(equal_bins(d, edges), np.histogram(d, bins=edges)[0])


def fast_bins(d: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The fast instantiation's rule: the first guess, one step down if below its threshold, one up
    if at or past the next."""
    t, per_unit = SR.integer_bins(edges)
    inside = d[(d >= t[0]) & (d < t[-1])]
    guess = SR.first_guess(inside, t, per_unit)
    return np.bincount(guess + (inside >= t[guess + 1]) - (inside < t[guess]), minlength=len(edges) - 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(edge_values, min_size=2, max_size=12, unique=True), st.integers(0, 2 ** 31 - 2),
       st.floats(0.0, 0.49))
def test_one_step_from_the_first_guess_bins_ints_as_numpy_wherever_the_guess_is_within_one(values, seed, jitter):
    """Wherever guess_within_one holds (equal bins, bins moved by under half a width), the fast rule
    gives numpy's bins; where it fails, the fast kernel is not used."""
    edges = np.sort(np.asarray(values))
    rng = np.random.default_rng(seed)
    even = np.linspace(edges[0], edges[-1], len(edges))
    even[1:-1] += rng.uniform(-jitter, jitter, len(edges) - 2) * np.diff(even)[:-1]
    for e in (edges, even):
        t, per_unit = SR.integer_bins(e)
        if not SR.guess_within_one(t, per_unit):
            continue
        d = np.r_[rng.integers(0, 2 ** 31 - 1, 200), np.floor(e).clip(0, 2 ** 31 - 2), np.ceil(e).clip(0, 2 ** 31 - 2),
                  rng.integers(max(0, int(e[0])), max(1, int(e[-1]) + 2), 300).clip(0, 2 ** 31 - 2)].astype(np.int64)
        np.testing.assert_array_equal(fast_bins(d, e), np.histogram(d, bins=e)[0])


def test_the_fast_kernels_take_equal_bins_and_not_uneven_ones():
    scales = SR.Scales(distance=0, inverse=SR.EXACT_SCALE + 10, cap=2.0 ** 30)
    whole = SR.integer_bins(np.arange(65) * 156250.0)
    assert SR.equal_width(whole[0]) == 156250
    assert SR.kernel_name(np.int32, scales, *whole) == "swr_reduce_i32_equal"
    assert SR.kernel_name(np.int32, scales, *SR.integer_bins(np.arange(65) * 1.0)) == "swr_reduce_i32_fast"
    equal = SR.integer_bins(np.linspace(0.0, 1e7 + 7, 65))  # a width of 156250.11: not whole
    assert SR.equal_width(equal[0]) == 0 and SR.guess_within_one(*equal)
    assert SR.kernel_name(np.int32, scales, *equal) == "swr_reduce_i32_fast"
    geometric = SR.integer_bins(np.geomspace(1.0, 1e7, 41))
    assert not SR.guess_within_one(*geometric)
    assert SR.kernel_name(np.int32, scales, *geometric) == "swr_reduce_i32"
    assert SR.kernel_name(np.float32, scales, *equal) == "swr_reduce_f32"
    rounded = SR.Scales(distance=0, inverse=SR.EXACT_SCALE - 1, cap=2.0 ** 30)
    assert SR.kernel_name(np.int32, rounded, *equal) == "swr_reduce_i32"
    many = SR.integer_bins(np.linspace(0.0, 1e7, SR.LANE_BINS + 2))
    assert SR.kernel_name(np.int32, scales, *many) == "swr_reduce_i32"


def test_a_blocks_packed_results_unpack_into_its_partial_and_refuse_a_distance_past_the_cap():
    from apsp_kernels.distributed import fixed_sums
    scales = fixed_sums.Scales(distance=4, inverse=90, cap=100.0)
    count, counts = 3, np.array([5, 0, 7, 12], dtype=np.uint64)  # three bins, then the pairs
    ecc, reach = np.array([9, 0, 40], dtype=np.uint64), np.array([4, 1, 6], dtype=np.uint64)
    sums = np.array([[3 << 4, 0], [0, 0], [(1 << 64) - 8, 1]], dtype=np.uint64)  # 3, 0 and 2**61 - 0.5
    packed = SR.SweepResults(np.concatenate([ecc, reach, sums.ravel(), counts]), count, "<i4", scales)
    got = SR.as_partial(packed)
    np.testing.assert_array_equal(got["eccentricity"], [9.0, 0.0, 40.0])
    np.testing.assert_array_equal(got["reach_out"], [4, 1, 6])
    np.testing.assert_array_equal(got["sum_out"], [3.0, 0.0, 2.0 ** 61])
    np.testing.assert_array_equal(got["histogram"], [5, 0, 7])
    assert got["pairs"] == 12 and got["scales"].tolist() == [4, 90]
    assert SR.as_partial(got) is got  # a partial already unpacked passes through
    far = SR.SweepResults(packed.packed.copy(), count, "<i4", scales)
    far.packed[2] = 101
    with pytest.raises(RuntimeError, match="exceeds 100"):
        far.partial()


def test_a_pass_is_cut_where_its_chunks_fill_the_gpu_badly():
    """53 chunks on 132 slots get 2 CUDA blocks each (80 % of the GPU): 44 then 9 whole chunks
    take 3 and 14; 64 or 44 chunks, a short pass, one chunk or a width whose later launch would
    start unaligned (NY's last block on one GPU, 52,634 sources) stay one launch."""
    assert SR.column_launches(53568, 132, 12000) == [(0, 44352), (44352, 53568)]
    assert SR.column_launches(52928, 132, 12000) == [(0, 44736), (44736, 52928)]
    for width, slots, tiles in [(65536, 132, 12000), (44096, 132, 12000), (52928, 264, 12000),
                                (53568, 132, 2), (900, 132, 12000), (5 * SR.CHUNK, 264, 12000),
                                (52634, 132, 12000), (53567, 132, 12000)]:  # not a multiple of OWN: unaligned
        assert SR.column_launches(width, slots, tiles) == [(0, width)]
    for width in range(1, 70000, 997):  # the launches cover the columns once; a later one whole chunks
        got = SR.column_launches(width, 132, 5000)
        assert got[0][0] == 0 and got[-1][1] == width and all(a[1] == b[0] for a, b in zip(got, got[1:]))
        assert all((stop - start) % SR.CHUNK == 0 and start % SR.OWN == 0 for start, stop in got[1:])
