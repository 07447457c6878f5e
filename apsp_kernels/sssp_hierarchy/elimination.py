"""The contraction loop of :mod:`.contraction`, compiled with numba (imported on first use).

Arcs live in arrays (``tail``, ``head``, ``weight``, one slot per arc, shortcuts appended); each
vertex keeps the ids of its out-arcs and in-arcs in two pools of growable lists, so a shortcut
that gets lighter is one write seen from both ends. An arc to a contracted vertex is dropped from
a list when the list is next read (not searched for when its end is contracted: on USA-road-d.NY
those searches read 82 M list entries, the largest cost), and the live degrees are counted apart.
"""
import numpy as np
from numba import prange

from ..numba_cache import njit
from .parallel_lists import compact, gather, grown, offsets, stable_order


@njit(cache=True)
def _push(pool, start, size, cap, top, v, item):
    """Append ``item`` to ``v``'s list (moved to the pool's end when full); (pool, top) after."""
    s, k = start[v], size[v]
    if k == cap[v]:
        room = max(4, 2 * k)
        pool = grown(pool, top + room, top)
        pool[top:top + k] = pool[s:s + k]
        start[v], cap[v], s = top, room, top
        top += room
    pool[s + k] = item
    size[v] = k + 1
    return pool, top


@njit(cache=True)
def _live(pool, start, size, ends, gone):
    """Drop from a list the arcs whose other end (``ends[arc]``) is contracted; the live ones, in order."""
    s, k = start, 0
    for i in range(start, start + size):
        a = pool[i]
        if not gone[ends[a]]:
            pool[s + k] = a
            k += 1
    return k


@njit(cache=True)
def _before(key, a, b):
    return key[a] < key[b] or (key[a] == key[b] and a < b)


@njit(cache=True)
def _sift(heap, pos, key, i):
    """Move ``heap[i]`` up or down to its place in the binary min-heap of vertices by (key, id)."""
    v = heap[i]
    while i > 0 and _before(key, v, heap[(i - 1) // 2]):
        p = (i - 1) // 2
        heap[i] = heap[p]
        pos[heap[i]] = i
        i = p
    size = pos[-1]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _before(key, heap[c + 1], heap[c]):
            c += 1
        if not _before(key, heap[c], v):
            break
        heap[i] = heap[c]
        pos[heap[i]] = i
        i = c
    heap[i] = v
    pos[v] = i


@njit(cache=True, parallel=True)
def _first_arcs(by_tail, at, head, weight, keep, size):
    """Per tail ``u``: keep the first arc to each head but ``u`` (the lightest weight goes to it)."""
    for u in prange(len(at) - 1):
        k = 0
        for i in range(at[u], at[u + 1]):
            a = by_tail[i]
            x = head[a]
            keep[a] = False
            if x == u:
                continue
            same = -1
            for j in range(at[u], i):
                if keep[by_tail[j]] and head[by_tail[j]] == x:
                    same = by_tail[j]
                    break
            if same >= 0:
                weight[same] = min(weight[same], weight[a])
            else:
                keep[a] = True
                k += 1
        size[u] = k


@njit(cache=True, parallel=True)
def _capacities(size):
    cap = np.empty(len(size), np.int64)
    for v in prange(len(size)):
        c = 0
        while c < size[v]:
            c = max(4, 2 * c)  # as _push grows a list
        cap[v] = c
    return cap


@njit(cache=True, parallel=True)
def _fill(pool, start, items, by, at, keep):
    for v in prange(len(at) - 1):
        k = start[v]
        for i in range(at[v], at[v + 1]):
            if keep[by[i]]:
                pool[k] = items[by[i]]
                k += 1


@njit(cache=True)
def _pool(size, room):
    cap = _capacities(size)
    start = offsets(cap)
    pool = np.empty(max(room, start[-1]), np.int64)
    return pool, start[:-1].copy(), cap, start[-1]


@njit(cache=True)
def _lists(n, tail, head, weight):
    """The arc arrays (room for shortcuts) and every vertex's out- and in-list (ids ascending),
    keeping the lightest of parallel arcs (at the first one's id) and dropping self loops; the
    lists as :func:`_push` would leave them, built in parallel."""
    arcs = len(tail)
    room = 2 * arcs + 16
    tail, head, weight = grown(tail, room, arcs), grown(head, room, arcs), grown(weight, room, arcs)
    ids = np.arange(arcs)
    by_tail, at = stable_order(tail[:arcs], n)
    keep, out_size = np.empty(arcs, np.bool_), np.zeros(n, np.int64)
    _first_arcs(by_tail, at, head, weight, keep, out_size)
    out_pool, out_start, out_cap, out_top = _pool(out_size, 2 * arcs + 4 * n)
    _fill(out_pool, out_start, ids, by_tail, at, keep)
    kept = compact(ids, keep)
    by_head, at = stable_order(gather(head, kept), n)
    in_size = np.diff(at)
    in_pool, in_start, in_cap, in_top = _pool(in_size, 2 * arcs + 4 * n)
    _fill(in_pool, in_start, kept, by_head, at, np.ones(len(kept), np.bool_))
    return (tail, head, weight, out_pool, out_start, out_size, out_cap, out_top, in_pool, in_start, in_size,
            in_cap, in_top)


@njit(cache=True)
def _raise(heap, pos, key, level, out_deg, in_deg, x, at_least):
    level[x] = max(level[x], at_least)
    key[x] = out_deg[x] + in_deg[x] + level[x]
    _sift(heap, pos, key, pos[x])


@njit(cache=True)
def eliminate(n, tail, head, weight, limit):
    """Contract every vertex (fewest arcs plus level first); returns (level, emitted arc ids in
    the order their lower endpoint was contracted, tail, head, weight, shortcuts), with
    shortcuts = -1 once more than ``limit`` were added (the run stops there)."""
    arcs = len(tail)
    (tail, head, weight, out_pool, out_start, out_size, out_cap, out_top, in_pool, in_start, in_size, in_cap,
     in_top) = _lists(n, tail, head, weight)
    lightest = np.full(n, -1, np.int64)  # scratch: the arc u -> x of the u being scanned, else -1
    seen, visit = np.full(n, -1, np.int64), 0
    level = np.zeros(n, np.int64)
    gone = np.zeros(n, np.bool_)
    out_deg, in_deg = out_size.copy(), in_size.copy()  # live arcs: the priority counts these
    emitted = np.empty(arcs + 16, np.int64)
    done = 0
    # an indexed heap of the vertices left, by (live arcs + level, id); pos[n] holds its size
    key = out_deg + in_deg
    heap, pos = np.argsort(key * n + np.arange(n)), np.empty(n + 1, np.int64)  # sorted: a heap
    pos[heap] = np.arange(n)
    pos[n] = n
    shortcuts = 0
    while pos[n] > 0:
        v = heap[0]
        last = pos[n] - 1
        pos[n] = last
        if last > 0:
            heap[0] = heap[last]
            pos[heap[0]] = 0
            _sift(heap, pos, key, 0)
        gone[v] = True
        in_size[v] = _live(in_pool, in_start[v], in_size[v], tail, gone)
        out_size[v] = _live(out_pool, out_start[v], out_size[v], head, gone)
        ins = in_pool[in_start[v]:in_start[v] + in_size[v]].copy()
        outs = out_pool[out_start[v]:out_start[v] + out_size[v]].copy()
        emitted = grown(emitted, done + len(ins) + len(outs), done)
        for a in ins:
            out_deg[tail[a]] -= 1
            emitted[done] = a
            done += 1
        for a in outs:
            in_deg[head[a]] -= 1
            emitted[done] = a
            done += 1
        for a in ins:
            u = tail[a]
            visit += 1  # lightest[x] holds the arc u -> x while seen[x] == visit
            out_size[u] = _live(out_pool, out_start[u], out_size[u], head, gone)
            for i in range(out_start[u], out_start[u] + out_size[u]):
                lightest[head[out_pool[i]]] = out_pool[i]
                seen[head[out_pool[i]]] = visit
            for b in outs:
                x = head[b]
                if x == u:
                    continue
                c = weight[a] + weight[b]
                if seen[x] != visit:
                    s = arcs + shortcuts
                    shortcuts += 1
                    tail, head, weight = grown(tail, s + 1, s), grown(head, s + 1, s), grown(weight, s + 1, s)
                    tail[s], head[s], weight[s] = u, x, c
                    lightest[x], seen[x] = s, visit
                    out_pool, out_top = _push(out_pool, out_start, out_size, out_cap, out_top, u, s)
                    in_pool, in_top = _push(in_pool, in_start, in_size, in_cap, in_top, x, s)
                    out_deg[u] += 1
                    in_deg[x] += 1
                elif c < weight[lightest[x]]:
                    weight[lightest[x]] = c
        if shortcuts > limit:
            shortcuts = -1
            break
        for a in ins:  # the neighbours of v: every key that changed
            _raise(heap, pos, key, level, out_deg, in_deg, tail[a], level[v] + 1)
        for a in outs:
            _raise(heap, pos, key, level, out_deg, in_deg, head[a], level[v] + 1)
    return level, emitted[:done], tail, head, weight, shortcuts


@njit(cache=True, parallel=True)
def _gather_arcs(order, s, w, srcs, wts):
    for i in prange(len(order)):
        srcs[i], wts[i] = s[order[i]], w[order[i]]


@njit(cache=True)
def csr_by_target(n, s, d, w):
    """(indptr, sources, weights) of the arcs s -> d as in-arc CSR by target, sources ascending
    within a target: two stable counting sorts (by source, then by target)."""
    by_s = stable_order(s, n)[0]
    by_d, indptr = stable_order(gather(d, by_s), n)
    srcs, wts = np.empty(len(s), np.int32), np.empty(len(s), w.dtype)
    _gather_arcs(gather(by_s, by_d), s, w, srcs, wts)
    return indptr.astype(np.int32), srcs, wts


@njit(cache=True, parallel=True)
def _renumber(emitted, level, rank, tail, head, weight, up, s, d, w):
    for i in prange(len(emitted)):
        a = emitted[i]
        up[i] = level[tail[a]] < level[head[a]]
        s[i], d[i], w[i] = rank[tail[a]], rank[head[a]], weight[a]


@njit(cache=True, parallel=True)
def _ranks(order, rank):
    for i in prange(len(order)):
        rank[order[i]] = i


@njit(cache=True)
def by_level(n, level, emitted, tail, head, weight, dtype_of):
    """The hierarchy's arrays from an elimination: ``order`` (by level, then id), ``rank``,
    ``level_ptr`` and the emitted arcs renumbered, split into those from a lower level (up) and
    from a higher one (down), as in-arc CSRs (:func:`csr_by_target`, weights as ``dtype_of``)."""
    by, level_ptr = stable_order(level, level.max() + 1 if n else 0)
    order, rank = by.astype(np.int32), np.empty(n, np.int32)
    _ranks(order, rank)
    m = len(emitted)
    up, s, d, w = np.empty(m, np.bool_), np.empty(m, np.int32), np.empty(m, np.int32), np.empty(m, dtype_of.dtype)
    _renumber(emitted, level, rank, tail, head, weight, up, s, d, w)
    down = ~up
    return (order, rank, level_ptr.astype(np.int32), csr_by_target(n, compact(s, up), compact(d, up), compact(w, up)),
            csr_by_target(n, compact(s, down), compact(d, down), compact(w, down)))
