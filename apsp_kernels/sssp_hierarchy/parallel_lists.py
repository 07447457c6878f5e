"""Parallel building blocks of the contraction (numba ``parallel=True``; :mod:`.rounds`, and
:mod:`.elimination`'s list build and hierarchy arrays): prefix sums, order-keeping compaction,
gathers and copies in chunks, a stable counting sort, and batched appends to the growable lists,
each list written by one thread (no atomics). Chunks only split the work: every result is the
same for any number of threads."""
import numpy as np
from numba import prange

from ..numba_cache import njit

SERIAL_BELOW = 1 << 14  # a scan over fewer items runs on one thread
CHUNKS = 256            # a scan's most chunks
OWNERS = 128            # key ranges (lists) that the threads of a grouped pass take in turn


@njit(cache=True)
def _chunks(n):
    return max(1, min(CHUNKS, n // SERIAL_BELOW))


@njit(cache=True, parallel=True)
def _chunk_starts(counts, c):
    """``sums[k]``: the total of ``counts`` before its ``k``-th of ``c`` chunks; ``sums[c]``: all of it."""
    n = len(counts)
    sums = np.zeros(c + 1, np.int64)
    for k in prange(c):
        s = 0
        for i in range(k * n // c, (k + 1) * n // c):
            s += counts[i]
        sums[k + 1] = s
    for k in range(c):
        sums[k + 1] += sums[k]
    return sums


@njit(cache=True, parallel=True)
def _offsets_in_chunks(counts, c, out):
    n = len(counts)
    sums = _chunk_starts(counts, c)
    for k in prange(c):
        s = sums[k]
        for i in range(k * n // c, (k + 1) * n // c):
            out[i] = s
            s += counts[i]
    out[n] = sums[c]


@njit(cache=True)
def offsets(counts):
    """``out[i] = counts[:i].sum()`` for ``i`` in ``0..len(counts)`` (int64)."""
    n = len(counts)
    out = np.empty(n + 1, np.int64)
    c = _chunks(n)
    if c > 1:
        _offsets_in_chunks(counts, c, out)
        return out
    s = 0
    for i in range(n):
        out[i] = s
        s += counts[i]
    out[n] = s
    return out


@njit(cache=True, parallel=True)
def _compact_in_chunks(values, keep, c):
    n = len(values)
    sums = _chunk_starts(keep, c)
    out = np.empty(sums[c], values.dtype)
    for k in prange(c):
        j = sums[k]
        for i in range(k * n // c, (k + 1) * n // c):
            if keep[i]:
                out[j] = values[i]
                j += 1
    return out


@njit(cache=True)
def compact(values, keep):
    """``values[keep]``, in order."""
    c = _chunks(len(values))
    return _compact_in_chunks(values, keep, c) if c > 1 else values[keep]


@njit(cache=True, parallel=True)
def _marked(values, marks, want):
    keep = np.empty(len(values), np.bool_)
    for i in prange(len(values)):
        keep[i] = marks[values[i]] == want
    return keep


@njit(cache=True)
def select(values, marks, want):
    """The items ``v`` of ``values`` with ``marks[v] == want``, in order."""
    if len(values) < SERIAL_BELOW:
        return values[marks[values] == want]
    return compact(values, _marked(values, marks, want))


@njit(cache=True, parallel=True)
def _gather_in_parallel(values, at):
    out = np.empty(len(at), values.dtype)
    for i in prange(len(at)):
        out[i] = values[at[i]]
    return out


@njit(cache=True)
def gather(values, at):
    """``values[at]``."""
    return values[at] if len(at) < SERIAL_BELOW else _gather_in_parallel(values, at)


@njit(cache=True, parallel=True)
def _copy_in_chunks(dst, src, n, c):
    for k in prange(c):
        for i in range(k * n // c, (k + 1) * n // c):
            dst[i] = src[i]


@njit(cache=True)
def grown(a, need, used):
    """``a`` when it has room for ``need`` items, else a new array twice as long (at least
    ``need``) holding ``a[:used]``, copied in chunks (first touches of fresh pages cost more than
    the copy)."""
    if need <= len(a):
        return a
    bigger = np.empty(max(2 * len(a), need), a.dtype)
    c = _chunks(used)
    if c > 1:
        _copy_in_chunks(bigger, a, used, c)
    else:
        bigger[:used] = a[:used]
    return bigger


@njit(cache=True, parallel=True)
def _rooms(verts, extra, size, cap, room):
    for j in prange(len(verts)):
        v = verts[j]
        need, c = size[v] + extra[j], cap[v]
        if need > c:
            while c < need:
                c = max(4, 2 * c)
            room[j] = c
        else:
            room[j] = 0


@njit(cache=True, parallel=True)
def _move(pool, start, size, cap, verts, room, at):
    for j in prange(len(verts)):
        if room[j] > 0:
            v = verts[j]
            s, t = start[v], at[j]
            for i in range(size[v]):
                pool[t + i] = pool[s + i]
            start[v], cap[v] = t, room[j]


@njit(cache=True)
def make_room(pool, start, size, cap, top, verts, extra):
    """Room for ``extra[j]`` more items in the list of each of the distinct ``verts[j]``: a list
    that would overflow moves to the pool's end, its capacity doubled (at least 4) until they
    fit, as :func:`.elimination._push` grows it one item at a time; (pool, top) after."""
    room = np.empty(len(verts), np.int64)
    _rooms(verts, extra, size, cap, room)
    at = offsets(room)
    end = top + at[-1]
    pool = grown(pool, end, top)
    at += top
    _move(pool, start, size, cap, verts, room, at)
    return pool, end


@njit(cache=True, parallel=True)
def _group(owner, c, p):
    """The positions ``s`` grouped by ``owner[s]`` (in ``0..c``), in order within a group (a
    stable counting sort in ``p`` chunks); (order, group bounds)."""
    m = len(owner)
    hist = np.zeros((p, c), np.int64)
    for k in prange(p):
        for s in range(k * m // p, (k + 1) * m // p):
            hist[k, owner[s]] += 1
    bounds = np.empty(c + 1, np.int64)
    t = 0
    for o in range(c):
        bounds[o] = t
        for k in range(p):
            t, hist[k, o] = t + hist[k, o], t
    bounds[c] = t
    order = np.empty(m, np.int64)
    for k in prange(p):
        for s in range(k * m // p, (k + 1) * m // p):
            order[hist[k, owner[s]]] = s
            hist[k, owner[s]] += 1
    return order, bounds


@njit(cache=True)
def _split(m):
    """(owners, chunks) for ``m`` items: one of each when few."""
    return max(1, min(OWNERS, m // 1024)), _chunks(m)


@njit(cache=True, parallel=True)
def _owners_of(keys, c, k):
    owner = np.empty(len(keys), np.int64)
    for s in prange(len(keys)):
        owner[s] = keys[s] * c // k
    return owner


@njit(cache=True, parallel=True)
def _sort_within(keys, order, bounds, c, k, counts, out):
    for o in prange(c):
        lo, hi = (o * k + c - 1) // c, ((o + 1) * k + c - 1) // c  # owner o's keys: o * k <= key * c < (o + 1) * k
        at = np.zeros(hi - lo + 1, np.int64)
        for i in range(bounds[o], bounds[o + 1]):
            at[keys[order[i]] - lo + 1] += 1
        for j in range(hi - lo):
            counts[lo + j] = at[j + 1]
            at[j + 1] += at[j]
        for i in range(bounds[o], bounds[o + 1]):
            s = order[i]
            out[bounds[o] + at[keys[s] - lo]] = s
            at[keys[s] - lo] += 1


@njit(cache=True)
def stable_order(keys, k):
    """The stable sort of ``keys`` (in ``0..k``) by counting: (the permutation, the offsets of
    each key's run, ``k + 1`` of them). Owners of key ranges, each sorts its own."""
    c, p = _split(len(keys))
    order, bounds = _group(_owners_of(keys, c, k), c, p)
    counts, out = np.zeros(k, np.int64), np.empty(len(keys), np.int64)
    _sort_within(keys, order, bounds, c, k, counts, out)
    return out, offsets(counts)


@njit(cache=True, parallel=True)
def _count_owned(order, bounds, ends, where, counts):
    for o in prange(len(bounds) - 1):
        for i in range(bounds[o], bounds[o + 1]):
            counts[where[ends[order[i]]]] += 1


@njit(cache=True, parallel=True)
def _append_owned(order, bounds, ends, first, pool, start, size):
    for o in prange(len(bounds) - 1):
        for i in range(bounds[o], bounds[o + 1]):
            s = order[i]
            x = ends[s]
            pool[start[x] + size[x]] = first + s
            size[x] += 1


@njit(cache=True, parallel=True)
def _owners(ends, where, groups, c):
    owner = np.empty(len(ends), np.int64)
    for s in prange(len(ends)):
        owner[s] = where[ends[s]] * c // groups
    return owner


@njit(cache=True)
def append_grouped(pool, start, size, cap, top, verts, where, ends, first):
    """Append the items ``first + s`` to the list of ``ends[s]``, in order of ``s``; every
    ``ends[s]`` is among the distinct ``verts``, ``where[verts[j]] == j``. Each of ``c`` owners
    takes a range of ``verts``: the items are sorted by owner, then each owner appends its own;
    (pool, top) after."""
    c, p = _split(len(ends))
    order, bounds = _group(_owners(ends, where, max(len(verts), 1), c), c, p)
    counts = np.zeros(len(verts), np.int64)
    _count_owned(order, bounds, ends, where, counts)
    pool, top = make_room(pool, start, size, cap, top, verts, counts)
    _append_owned(order, bounds, ends, first, pool, start, size)
    return pool, top
