"""Every reduction of distributed.all_sources is the same bits on 1, 2 and 3 CPU workers, for any
block size and finishing order (issue 45 item 2): per-vertex sums in 128-bit fixed point
(apsp_kernels.distributed.fixed_sums), exact against Fraction arithmetic, within 1e-12 of NetworkX."""
import math
import warnings
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from apsp_kernels import generators, oracle
from apsp_kernels import centrality as C
from apsp_kernels.distributed import all_sources, cluster, fixed_sums
from apsp_kernels.distributed.blocks import split
from apsp_kernels.distributed.fixed_sums import FixedPointWarning, Scales, scales_for
from apsp_kernels.distributed.reductions import Accumulator, block_partial, usable_partial
from apsp_kernels.graph import Graph

N = 3000
BINS = np.linspace(0, 150000, 33)  # the diameter is about 134,000


def road(dtype):
    """A road-like graph; float32: its weights times uniform factors, so that no sum is whole."""
    g = generators.road_like(N, int(2.3 * N), seed=11)
    if dtype == np.int32:
        return g
    factor = np.random.default_rng(0).uniform(0.5, 1.5, g.m)
    return Graph.from_edges(g.n, g.sources_of_arcs, g.indices, g.weights * factor, dtype=np.float32,
                            name="road-f32")


def exact(values, scale: int) -> int:
    """sum of round-half-up(v * 2**scale), in Python integers."""
    total = 0
    for v in values:
        scaled = Fraction(float(v)) * 2 ** scale
        floor = math.floor(scaled)
        total += floor + (scaled - floor >= Fraction(1, 2))
    return total


def as_int(fixed) -> list[int]:
    return [int(lo) + (int(hi) << 64) for lo, hi in np.asarray(fixed)]


def test_fixed_sums_are_the_exact_sums_of_the_rounded_terms_rounded_once():
    rng = np.random.default_rng(1)
    for scale in (-8, 0, 30, 80, 140):
        # terms from 2**-16 to 2**113 once scaled (some rounded, some wider than 64 bits), sums below 2**126
        values = np.exp(np.clip(rng.normal(0, 8, (23, 7)), -60, 30)) * 2.0 ** (70 - scale)
        values[rng.random(values.shape) < 0.2] = 0.0
        columns, rows = fixed_sums.sums(values, scale, axis=0), fixed_sums.sums(values, scale, axis=1)
        assert as_int(columns) == [exact(values[:, j], scale) for j in range(7)]
        assert as_int(rows) == [exact(values[i], scale) for i in range(23)]
        want = [float(Fraction(exact(values[:, j], scale)) / Fraction(2) ** scale) for j in range(7)]
        assert fixed_sums.to_float(columns, scale).tolist() == want  # correctly rounded, ties to even
        head = fixed_sums.sums(values[:9], scale, axis=0)
        np.testing.assert_array_equal(fixed_sums.add(head, fixed_sums.sums(values[9:], scale, axis=0)), columns)
    ties = [2 ** 53 + 1, 2 ** 53 + 3, 2 ** 64 + 2 ** 11, 2 ** 64 + 3 * 2 ** 11, 2 ** 127 - 1, 2 ** 100 + 2 ** 47 + 1]
    words = np.array([[v & (2 ** 64 - 1), v >> 64] for v in ties], dtype=np.uint64)
    assert fixed_sums.to_float(words, 0).tolist() == [float(v) for v in ties]


def near_a_rounding_point(top: int, bits: int, below: int) -> int:
    """A 128-bit sum whose top 54 bits are ``top`` (53 kept and the rounding bit) followed by ``bits``
    more, of which only the lowest ``below`` may be set: halfway cases and their neighbours."""
    return ((top << bits) | below) & (2 ** 128 - 1)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.integers(0, 2 ** 128 - 1), st.integers(0, 2 ** 64),
                 st.builds(near_a_rounding_point, st.integers(2 ** 53, 2 ** 54 - 1), st.integers(0, 74),
                           st.sampled_from([0, 1]))),
       st.integers(-60, 900))
def test_a_fixed_point_sum_becomes_the_float_nearest_its_exact_value(value, scale):
    words = np.array([[value & (2 ** 64 - 1), value >> 64]], dtype=np.uint64)
    assert fixed_sums.to_float(words, scale)[0] == float(Fraction(value) / Fraction(2) ** scale)


def test_adding_fixed_point_sums_carries_into_the_high_word_and_wraps_like_128_bit_integers():
    top = (1 << 64) - 1
    pairs = [(top, 0, 1, 0), (top, 5, top, 7), (0, top, 0, 1), (top, top, 1, 0), (3, 4, 5, 6), (top, 0, 0, 0)]
    total = np.array([[lo, hi] for lo, hi, _, _ in pairs], dtype=np.uint64)
    part = np.array([[lo, hi] for _, _, lo, hi in pairs], dtype=np.uint64)
    expected = [(as_int([t])[0] + as_int([p])[0]) % (1 << 128) for t, p in zip(total, part)]
    assert as_int(fixed_sums.add(total, part)) == expected


def test_the_scales_hold_every_term_of_these_graphs_exactly():
    ints, floats = scales_for(road(np.int32)), scales_for(road(np.float32))
    assert ints.relative_error == floats.relative_error == 0.0 and ints.distance >= 0
    g = road(np.float32)
    D = oracle.distances(g, np.arange(50))
    d = D[np.isfinite(D) & (D > 0)]
    for values, scale in ((d, floats.distance), (1 / d, floats.inverse)):  # multiples of 2**-scale
        scaled = np.ldexp(values, scale)
        assert (scaled == np.floor(scaled)).all()


def reduce_on_host(g, block_size: int, order_seed: int | None = None):
    """The reductions of every source of ``g`` from the oracle's rows in blocks of ``block_size``,
    merged in a shuffled order (``order_seed``) or as they come."""
    D, ids, scales = oracle.distances(g), np.arange(g.n, dtype=np.int32), scales_for(g)
    blocks = split(g.n, block_size)
    if order_seed is not None:
        blocks = [blocks[i] for i in np.random.default_rng(order_seed).permutation(len(blocks))]
    acc = Accumulator(g.n, ids, BINS)
    for b in blocks:
        acc.add(b.start, block_partial(D[b.start:b.stop], np.inf, ids[b.start:b.stop], BINS, scales))
    return acc.result()


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_block_sizes_and_finishing_orders_give_the_same_bits_on_the_host(dtype):
    g = road(dtype)
    one = reduce_on_host(g, g.n)
    for size, seed in ((256, 0), (1000, 1), (777, None)):
        assert reduce_on_host(g, size, seed).same_as(one), (size, seed)
    # the test has teeth: float64 sums per block of 256, then per block of 1000, differ
    D = np.where(np.isfinite(oracle.distances(g)), oracle.distances(g), 0)
    inverse = np.where(D > 0, 1 / np.where(D > 0, D, 1), 0)
    by = {size: sum(inverse[lo:lo + size].sum(axis=0) for lo in range(0, g.n, size)) for size in (256, 1000)}
    assert (by[256] != by[1000]).any()


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_one_two_and_three_cpu_workers_give_the_same_bits(dtype):
    g = road(dtype)
    want = reduce_on_host(g, g.n)
    for workers in (1, 2, 3):
        client = cluster.local(cpu_workers=workers)
        try:
            for size in (256, 1000):
                run = all_sources(g, client, block_size=size, bins=BINS, progress=False)
                assert run.reductions.same_as(want), (workers, size)
        finally:
            cluster.close(client)


def test_harmonic_and_closeness_stay_within_1e_12_of_networkx():
    g = road(np.float32)
    red = reduce_on_host(g, 512)
    G = nx.DiGraph()
    G.add_weighted_edges_from(zip(g.sources_of_arcs.tolist(), g.indices.tolist(), g.weights.astype(float).tolist()))
    sample = list(range(0, g.n, 97))
    harmonic = nx.harmonic_centrality(G, nbunch=sample, distance="weight")
    np.testing.assert_allclose(red.per_vertex["harmonic"][sample], [harmonic[v] for v in sample], rtol=1e-12)
    closeness = [nx.closeness_centrality(G, v, distance="weight") for v in sample]
    np.testing.assert_allclose(red.per_vertex["closeness"][sample], closeness, rtol=1e-12)


def test_an_extreme_weight_range_warns_and_stays_the_same_bits_within_its_bound():
    rng = np.random.default_rng(3)
    n = 60
    src, dst = np.arange(n), (np.arange(n) + 1) % n
    weights = np.where(np.arange(n) % 2, 1e-12, 1e11) * rng.uniform(1, 2, n)
    g = Graph.from_edges(n, np.r_[src, rng.integers(0, n, 90)], np.r_[dst, rng.integers(0, n, 90)],
                         np.r_[weights, rng.uniform(1e-12, 1e11, 90)], dtype=np.float32, name="extreme")
    with pytest.warns(FixedPointWarning, match="off by up to"):
        scales = scales_for(g)
    assert fixed_sums.WARN_ABOVE < scales.relative_error < 1e-6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FixedPointWarning)
        one = reduce_on_host(g, n)
        assert reduce_on_host(g, 7, order_seed=2).same_as(one)
    D = oracle.distances(g)
    inverse = np.where(np.isfinite(D) & (D > 0), 1 / np.where(np.isfinite(D) & (D > 0), D, 1), 0)
    truth = np.array([float(sum(Fraction(float(v)) for v in inverse[:, j])) for j in range(n)])
    error = np.abs(one.per_vertex["harmonic"].to_numpy() - truth) / truth
    assert error.max() <= scales.relative_error + 2 ** -52


def test_float_rows_without_scales_are_refused_and_integer_rows_take_the_whole_scale():
    g = road(np.int32)
    D = oracle.distances(g, np.arange(4))
    with pytest.raises(ValueError, match="scales_for"):
        block_partial(D, np.inf, np.arange(4), BINS)
    whole = block_partial(np.where(np.isfinite(D), D, g.inf).astype(np.int32), g.inf, np.arange(4), BINS)
    exact_scales = block_partial(D, np.inf, np.arange(4), BINS, scales_for(g))
    assert whole["sum_out"].tolist() == exact_scales["sum_out"].tolist()
    assert np.array_equal(fixed_sums.to_float(whole["harmonic_in"], int(whole["scales"][1])),
                          fixed_sums.to_float(exact_scales["harmonic_in"], int(exact_scales["scales"][1])))
    with pytest.raises(RuntimeError, match="another graph"):
        block_partial(D * 1e6, np.inf, np.arange(4), BINS, Scales(10, 60, cap=100.0))


def test_a_stored_partial_of_other_scales_is_summed_again():
    scales = Scales(5, 70, cap=1.0)
    assert usable_partial({"sum_in": 0, "scales": np.array([5, 70])}, scales) is not None
    assert usable_partial({"sum_in": 0, "scales": np.array([5, 71])}, scales) is None
    assert usable_partial({"sum_in": 0}, scales) is None  # a store from before fixed point
    assert usable_partial(None, scales) is None


@pytest.mark.filterwarnings("ignore:apsp_kernels.centrality. no CUDA GPU")
def test_centrality_in_process_and_on_a_cluster_give_the_same_bits(monkeypatch):
    from apsp_kernels.centrality import engine
    g = road(np.float32)
    A = g.to_scipy()
    monkeypatch.setattr(engine, "HOST_BLOCK_BYTES", 8 * g.n * 300)  # blocks of 300 sources in this process
    C.EVERY_SOURCE.clear()
    here = C.harmonic_centrality(A), C.closeness_centrality(A)
    client = cluster.local(cpu_workers=2)
    try:
        there = C.harmonic_centrality(A, client=client), C.closeness_centrality(A, client=client)
    finally:
        cluster.close(client)
    assert here[0].tobytes() == there[0].tobytes() and here[1].tobytes() == there[1].tobytes()
    few = C.harmonic_centrality(A, nbunch=[0, 5, 2999])  # per source on the reversed graph: the same terms
    assert few.tolist() == here[0][[0, 5, 2999]].tolist()
