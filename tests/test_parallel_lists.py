"""The parallel building blocks of the contraction rounds (apsp_kernels/sssp_hierarchy/
parallel_lists.py) against NumPy and against one-at-a-time appends (elimination._push), on sizes
that take the chunked paths (beyond SERIAL_BELOW items, beyond OWNERS owners) and on empty ones;
one result for 1 or 2 threads."""
import numba
import numpy as np
import pytest

from apsp_kernels.sssp_hierarchy import elimination, parallel_lists as pl

BIG = 5 * pl.SERIAL_BELOW + 3


@pytest.mark.parametrize("n", [0, 1, 7, BIG])
def test_offsets_are_the_prefix_sums(rng, n):
    counts = rng.integers(0, 50, n)
    np.testing.assert_array_equal(pl.offsets(counts), np.concatenate([[0], np.cumsum(counts)]))


@pytest.mark.parametrize("n", [0, 5, BIG])
@pytest.mark.parametrize("share", [0.0, 0.3, 1.0])
def test_compact_and_select_keep_the_order(rng, n, share):
    values = rng.permutation(max(n, 1))[:n].astype(np.int64)
    keep = rng.random(n) < share
    np.testing.assert_array_equal(pl.compact(values, keep), values[keep])
    marks = np.zeros(max(n, 1), np.bool_)
    marks[values[keep]] = True
    np.testing.assert_array_equal(pl.select(values, marks, True), values[keep])
    np.testing.assert_array_equal(pl.select(values, marks, False), values[~keep])


def _lists(rng, n):
    """Growable lists as elimination builds them: vertex v holds a few items already."""
    pool, start, size, cap = np.empty(16, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    top = 0
    for v in range(n):
        for item in rng.integers(0, 10**6, rng.integers(0, 6)):
            pool, top = elimination._push(pool, start, size, cap, top, v, item)
    return pool, start, size, cap, top


def _contents(pool, start, size):
    return [list(pool[start[v]:start[v] + size[v]]) for v in range(len(start))]


def _one_at_a_time(rng_seed, n, ends, first):
    pool, start, size, cap, top = _lists(np.random.default_rng(rng_seed), n)
    for s, x in enumerate(ends):
        pool, top = elimination._push(pool, start, size, cap, top, x, first + s)
    return _contents(pool, start, size), cap


def _grouped(rng_seed, n, verts, ends, first):
    pool, start, size, cap, top = _lists(np.random.default_rng(rng_seed), n)
    where = np.full(n, -7, np.int64)  # only the entries of verts are read
    where[verts] = np.arange(len(verts))
    pool, top = pl.append_grouped(pool, start, size, cap, top, verts, where, ends, first)
    assert top <= len(pool)
    lists = _contents(pool, start, size)
    return lists, cap, [(start[v], start[v] + cap[v]) for v in range(n) if cap[v]]


@pytest.mark.parametrize("case", ["spread", "one_head", "none", "few"])
def test_append_grouped_equals_one_at_a_time(rng, case):
    n = 3000
    verts = rng.permutation(n)[:2000].astype(np.int64)  # some vertices get nothing, in any order
    m = {"spread": BIG, "one_head": BIG, "none": 0, "few": 9}[case]
    ends = verts[rng.integers(0, len(verts), m)] if case != "one_head" else np.full(m, verts[17], np.int64)
    want, want_cap = _one_at_a_time(5, n, ends, 1000)
    got, cap, spans = _grouped(5, n, verts, ends, 1000)
    assert got == want
    np.testing.assert_array_equal(cap, want_cap)  # grown as one-at-a-time appends would grow them
    spans.sort()
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))  # no two lists share pool slots


def test_make_room_moves_only_full_lists_and_keeps_their_items(rng):
    n = 500
    pool, start, size, cap, top = _lists(rng, n)
    before = _contents(pool, start, size)
    verts = np.arange(0, n, 2, dtype=np.int64)
    extra = rng.integers(0, 9, len(verts))
    old_start = start.copy()
    pool, top = pl.make_room(pool, start, size, cap, top, verts, extra)
    assert _contents(pool, start, size) == before
    assert np.all(size[verts] + extra <= cap[verts])
    moved = start != old_start
    assert moved.any() and not moved[1::2].any()
    assert np.all(start[moved] + cap[moved] <= top)


def test_one_result_for_one_or_two_threads(rng):
    n = 3000
    verts = rng.permutation(n).astype(np.int64)
    ends = verts[rng.integers(0, n, BIG)]
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _grouped(8, n, verts, ends, 0)[0], pl.offsets(ends), pl.compact(ends, ends % 3 == 0)
    finally:
        numba.set_num_threads(threads)
    every = _grouped(8, n, verts, ends, 0)[0], pl.offsets(ends), pl.compact(ends, ends % 3 == 0)
    assert one[0] == every[0]
    np.testing.assert_array_equal(one[1], every[1])
    np.testing.assert_array_equal(one[2], every[2])


@pytest.mark.parametrize("m, k", [(0, 0), (0, 5), (9, 3), (BIG, 7), (BIG, 1), (BIG, 1000003), (3 * BIG, BIG // 3)])
def test_stable_order_is_numpys_stable_argsort(rng, m, k):
    keys = rng.integers(0, max(k, 1), m)
    if m and k > 1:
        keys[:5] = k - 1, 0, k - 1, 0, k // 2  # both ends of the key range
    order, at = pl.stable_order(keys, k)
    np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))
    np.testing.assert_array_equal(at, np.concatenate([[0], np.cumsum(np.bincount(keys, minlength=k))]).astype(np.int64))


def test_the_lists_built_in_parallel_equal_one_at_a_time_pushes(rng):
    """elimination._lists: the first arc to each head keeps the least weight, loops dropped,
    ids ascending in each list; any arc order (here shuffled), chunked sizes."""
    n, m = 2000, 3 * BIG
    tail, head = rng.integers(0, n, m), rng.integers(0, n, m)
    head[:500] = tail[:500]  # self loops; the rest has many parallel arcs (m / n^2 ~ 2 %)
    weight = rng.integers(0, 1000, m)
    got = elimination._lists(n, tail, head, weight)
    out, ins, w = [[] for _ in range(n)], [[] for _ in range(n)], weight.copy()
    first = {}
    for a in range(m):
        u, x = tail[a], head[a]
        if u == x:
            continue
        if (u, x) in first:
            w[first[u, x]] = min(w[first[u, x]], w[a])
        else:
            first[u, x] = a
            out[u].append(a)
            ins[x].append(a)
    pool, start, size, cap = got[3:7]
    assert _contents(pool, start, size) == out
    pool, start, size, cap = got[8:12]
    assert _contents(pool, start, size) == ins
    np.testing.assert_array_equal(got[2][:m], w)
    np.testing.assert_array_equal(got[0][:m], tail)
    assert len(got[0]) >= 2 * m  # room for shortcuts


@pytest.mark.parametrize("length, need, used", [(10, 5, 10), (10, 11, 7), (BIG, BIG + 1, BIG), (BIG, 3 * BIG, BIG - 5)])
def test_grown_keeps_the_used_items(rng, length, need, used):
    a = rng.integers(0, 10**9, length)
    b = pl.grown(a, need, used)
    if need <= length:
        assert b is a
    else:
        assert len(b) == max(2 * length, need)
        np.testing.assert_array_equal(b[:used], a[:used])
