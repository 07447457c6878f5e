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
