"""The integer thresholds by which sweep_reductions.cu bins int distances: numpy.histogram's bins."""
from fractions import Fraction

import numpy as np
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


def test_the_fast_kernel_takes_equal_bins_and_not_uneven_ones():
    scales = SR.Scales(distance=0, inverse=SR.EXACT_SCALE + 10, cap=2.0 ** 30)
    equal = SR.integer_bins(np.linspace(0.0, 1e7, 65))
    assert SR.guess_within_one(*equal)
    assert SR.kernel_name(np.int32, scales, *equal) == "swr_reduce_i32_fast"
    geometric = SR.integer_bins(np.geomspace(1.0, 1e7, 41))
    assert not SR.guess_within_one(*geometric)
    assert SR.kernel_name(np.int32, scales, *geometric) == "swr_reduce_i32"
    assert SR.kernel_name(np.float32, scales, *equal) == "swr_reduce_f32"
    rounded = SR.Scales(distance=0, inverse=SR.EXACT_SCALE - 1, cap=2.0 ** 30)
    assert SR.kernel_name(np.int32, rounded, *equal) == "swr_reduce_i32"
    many = SR.integer_bins(np.linspace(0.0, 1e7, SR.LANE_BINS + 2))
    assert SR.kernel_name(np.int32, scales, *many) == "swr_reduce_i32"
