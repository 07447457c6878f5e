"""The contraction loop of :mod:`.contraction`, compiled with numba (imported on first use).

Arcs live in arrays (``tail``, ``head``, ``weight``, one slot per arc, shortcuts appended); each
vertex keeps the ids of its live out-arcs and in-arcs in two pools of growable lists, so a
shortcut that gets lighter is one write seen from both ends.
"""
import heapq

import numpy as np
from numba import njit


@njit(cache=True)
def _push(pool, start, size, cap, top, v, item):
    """Append ``item`` to ``v``'s list (moved to the pool's end when full); (pool, top) after."""
    s, k = start[v], size[v]
    if k == cap[v]:
        room = max(4, 2 * k)
        if top + room > len(pool):
            bigger = np.empty(max(2 * len(pool), top + room), pool.dtype)
            bigger[:top] = pool[:top]
            pool = bigger
        pool[top:top + k] = pool[s:s + k]
        start[v], cap[v], s = top, room, top
        top += room
    pool[s + k] = item
    size[v] = k + 1
    return pool, top


@njit(cache=True)
def _remove(pool, start, size, v, item):
    for i in range(start[v], start[v] + size[v]):
        if pool[i] == item:
            last = start[v] + size[v] - 1
            pool[i] = pool[last]
            size[v] -= 1
            return


@njit(cache=True)
def _grow(a, need):
    if need <= len(a):
        return a
    bigger = np.empty(max(2 * len(a), need), a.dtype)
    bigger[:len(a)] = a
    return bigger


@njit(cache=True)
def eliminate(n, tail, head, weight, limit):
    """Contract every vertex (fewest arcs plus level first); returns (level, emitted arc ids in
    the order their lower endpoint was contracted, tail, head, weight, shortcuts), with
    shortcuts = -1 once more than ``limit`` were added (the run stops there)."""
    arcs = len(tail)
    room = 2 * arcs + 16
    tail, head, weight = _grow(tail.copy(), room), _grow(head.copy(), room), _grow(weight.copy(), room)
    out_pool, in_pool = np.empty(2 * arcs + 4 * n, np.int64), np.empty(2 * arcs + 4 * n, np.int64)
    out_start, out_size, out_cap = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    in_start, in_size, in_cap = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    out_top, in_top = 0, 0
    lightest = np.full(n, -1, np.int64)  # scratch: the arc u -> x of the u being scanned, else -1
    for a in range(arcs):  # keep the lightest of parallel arcs, drop self loops
        u, x = tail[a], head[a]
        if u == x:
            continue
        parallel = -1
        for i in range(out_start[u], out_start[u] + out_size[u]):
            if head[out_pool[i]] == x:
                parallel = out_pool[i]
        if parallel >= 0:
            weight[parallel] = min(weight[parallel], weight[a])
        else:
            out_pool, out_top = _push(out_pool, out_start, out_size, out_cap, out_top, u, a)
            in_pool, in_top = _push(in_pool, in_start, in_size, in_cap, in_top, x, a)
    level = np.zeros(n, np.int64)
    gone = np.zeros(n, np.bool_)
    emitted = np.empty(arcs + 16, np.int64)
    done = 0
    heap = [(out_size[v] + in_size[v] + level[v], v) for v in range(n)]
    heapq.heapify(heap)
    shortcuts = 0
    while len(heap) > 0:
        key, v = heapq.heappop(heap)
        if gone[v]:
            continue
        now = out_size[v] + in_size[v] + level[v]
        if key != now:
            heapq.heappush(heap, (now, v))
            continue
        gone[v] = True
        ins = in_pool[in_start[v]:in_start[v] + in_size[v]].copy()
        outs = out_pool[out_start[v]:out_start[v] + out_size[v]].copy()
        emitted = _grow(emitted, done + len(ins) + len(outs))
        for a in ins:
            _remove(out_pool, out_start, out_size, tail[a], a)
            emitted[done] = a
            done += 1
        for a in outs:
            _remove(in_pool, in_start, in_size, head[a], a)
            emitted[done] = a
            done += 1
        for a in ins:
            u = tail[a]
            for i in range(out_start[u], out_start[u] + out_size[u]):
                lightest[head[out_pool[i]]] = out_pool[i]
            for b in outs:
                x = head[b]
                if x == u:
                    continue
                c = weight[a] + weight[b]
                s = lightest[x]
                if s < 0:
                    s = arcs + shortcuts
                    shortcuts += 1
                    tail, head, weight = _grow(tail, s + 1), _grow(head, s + 1), _grow(weight, s + 1)
                    tail[s], head[s], weight[s] = u, x, c
                    lightest[x] = s
                    out_pool, out_top = _push(out_pool, out_start, out_size, out_cap, out_top, u, s)
                    in_pool, in_top = _push(in_pool, in_start, in_size, in_cap, in_top, x, s)
                elif c < weight[s]:
                    weight[s] = c
            for i in range(out_start[u], out_start[u] + out_size[u]):
                lightest[head[out_pool[i]]] = -1
        if shortcuts > limit:
            shortcuts = -1
            break
        for x in np.concatenate((tail[ins], head[outs])):  # the neighbours of v
            level[x] = max(level[x], level[v] + 1)
            heapq.heappush(heap, (out_size[x] + in_size[x] + level[x], x))
    return level, emitted[:done], tail, head, weight, shortcuts
