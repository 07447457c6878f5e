"""The contraction of :mod:`.contraction` in parallel rounds (numba ``parallel=True``).

Each round contracts every live vertex whose (live arcs + level, id) is below that of each live
neighbour: an independent set ``S``, so contracting its vertices one after another in id order
adds the same shortcuts as contracting them at once (no vertex of ``S`` neighbours another, and
a shortcut joins two neighbours of one). A round:

1. (parallel over the vertices whose lists changed) drop the arcs to contracted vertices, raise
   the level to one more than theirs, set the key (live arcs + level);
2. (parallel over the live vertices) mark the local minima; then, in id order, take them while
   their candidate shortcuts fit the round's budget (at least one);
3. (parallel over the in-neighbours ``u`` of ``S``: each owns the arcs leaving it) for every
   arc ``u -> v -> x`` with ``v`` in ``S``, lower the arc ``u -> x`` if ``u`` has it (found in a
   hash table of ``u``'s out-neighbours), else note a new one, once per ``x`` at its least cost;
4. (sequentially) give the new arcs their ids in that order, append them to both lists, emit
   the arcs of ``S``.

Without witness searches the hierarchy is exact as :mod:`.contraction` says; the result (order,
levels, shortcuts) depends on the graph only, not on the number of threads. On USA-road-d.NY
it contracts in 408 rounds to 1.98 M shortcuts and 373 levels (the heap order of
:mod:`.elimination`: 1.89 M, 397). The lists and helpers are :mod:`.elimination`'s.
"""
import numpy as np
from numba import njit, prange

from .elimination import _grow, _lists, _push

ROUND_PAIRS = 1 << 22  # candidate shortcuts a round may consider (memory: 16 bytes each)
_MIX = 0x9E3779B1      # Fibonacci hashing


@njit(cache=True)
def _slot(h, mask):
    return (h * _MIX) & mask


@njit(cache=True)
def _table_size(k):
    p = 4
    while p < 2 * k:
        p *= 2
    return p


@njit(cache=True)
def _drop_gone(pool, start, size, ends, gone, level, v, lv):
    """Drop the arcs of ``v``'s list whose other end is contracted; (live count, raised level)."""
    s, k = start[v], 0
    for j in range(s, s + size[v]):
        a = pool[j]
        y = ends[a]
        if gone[y]:
            lv = max(lv, level[y] + 1)
        else:
            pool[s + k] = a
            k += 1
    return k, lv


@njit(cache=True, parallel=True)
def _refresh(changed, tail, head, gone, level, key, out_pool, out_start, out_size, in_pool, in_start, in_size):
    """Step 1 for the vertices in ``changed``."""
    for i in prange(len(changed)):
        v = changed[i]
        k_in, lv = _drop_gone(in_pool, in_start, in_size, tail, gone, level, v, level[v])
        k_out, lv = _drop_gone(out_pool, out_start, out_size, head, gone, level, v, lv)
        in_size[v], out_size[v], level[v] = k_in, k_out, lv
        key[v] = k_in + k_out + lv


@njit(cache=True)
def _before(key, a, b):
    return key[a] < key[b] or (key[a] == key[b] and a < b)


@njit(cache=True, parallel=True)
def _local_minima(alive, tail, head, key, chosen, out_pool, out_start, out_size, in_pool, in_start, in_size):
    """Step 2's test: ``chosen[v]`` when ``v`` comes before every live neighbour."""
    for i in prange(len(alive)):
        v = alive[i]
        ok = True
        for j in range(in_start[v], in_start[v] + in_size[v]):
            if not _before(key, v, tail[in_pool[j]]):
                ok = False
                break
        if ok:
            for j in range(out_start[v], out_start[v] + out_size[v]):
                if not _before(key, v, head[out_pool[j]]):
                    ok = False
                    break
        chosen[v] = ok


@njit(cache=True, parallel=True)
def _count_slots(tails, slots, chosen, head, out_pool, out_start, out_size):
    """Candidate slots per tail (the out-arcs of its chosen out-neighbours), as offsets."""
    for i in prange(len(tails)):
        u = tails[i]
        p = 0
        for j in range(out_start[u], out_start[u] + out_size[u]):
            y = head[out_pool[j]]
            if chosen[y]:
                p += out_size[y]
        slots[i + 1] = p
    for i in range(len(tails)):
        slots[i + 1] += slots[i]


@njit(cache=True)
def _take(alive, chosen, tail, head, in_pool, in_start, in_size, out_pool, out_start, out_size, stamp, rnd,
          round_pairs):
    """Step 2's choice (``chosen`` is cleared for the local minima left to a later round); then
    the in-neighbours of the chosen with offsets of their candidate slots, and every neighbour
    (their lists change this round)."""
    taken, pairs, arcs = 0, 0, 0
    for v in alive:  # ascending
        if chosen[v]:
            p = in_size[v] * out_size[v]
            if taken > 0 and pairs + p > round_pairs:
                chosen[v] = False
            else:
                taken += 1
                pairs += p
                arcs += in_size[v] + out_size[v]
    chosen_v = np.empty(taken, np.int64)
    i = 0
    for v in alive:
        if chosen[v]:
            chosen_v[i] = v
            i += 1
    tails, slots, changed = np.empty(arcs, np.int64), np.zeros(arcs + 1, np.int64), np.empty(arcs, np.int64)
    n_tails, n_changed = 0, 0
    for v in chosen_v:
        for j in range(in_start[v], in_start[v] + in_size[v]):
            u = tail[in_pool[j]]
            if stamp[u] != rnd:
                stamp[u] = rnd
                tails[n_tails] = u
                n_tails += 1
                changed[n_changed] = u
                n_changed += 1
    _count_slots(tails[:n_tails], slots, chosen, head, out_pool, out_start, out_size)
    for v in chosen_v:
        for j in range(out_start[v], out_start[v] + out_size[v]):
            x = head[out_pool[j]]
            if stamp[x] != rnd:
                stamp[x] = rnd
                changed[n_changed] = x
                n_changed += 1
    return chosen_v, tails[:n_tails], slots[:n_tails + 1], changed[:n_changed]


@njit(cache=True, parallel=True)
def _shortcuts_by_tail(tails, slots, chosen, head, weight, out_pool, out_start, out_size):
    """Step 3: lowers existing arcs in place; per tail ``i`` the new arcs' heads and costs in
    ``slots[i]:slots[i] + new[i]``."""
    new_head, new_cost = np.empty(slots[-1], np.int64), np.empty(slots[-1], weight.dtype)
    new = np.zeros(len(tails), np.int64)
    for i in prange(len(tails)):
        u = tails[i]
        mask = _table_size(out_size[u] + slots[i + 1] - slots[i]) - 1
        table = np.full(mask + 1, -1, np.int64)  # x -> its arc (< 2**62) or 2**62 + its new slot
        for j in range(out_start[u], out_start[u] + out_size[u]):
            h = _slot(head[out_pool[j]], mask)
            while table[h] >= 0:
                h = (h + 1) & mask
            table[h] = out_pool[j]
        k = slots[i]
        for j in range(out_start[u], out_start[u] + out_size[u]):
            e = out_pool[j]
            y = head[e]
            if not chosen[y]:
                continue
            for q in range(out_start[y], out_start[y] + out_size[y]):
                b = out_pool[q]
                x = head[b]
                if x == u:
                    continue
                c = weight[e] + weight[b]
                h = _slot(x, mask)
                while True:
                    t = table[h]
                    if t < 0:
                        table[h] = (1 << 62) + k
                        new_head[k], new_cost[k] = x, c
                        k += 1
                        break
                    if t >= (1 << 62):
                        if new_head[t - (1 << 62)] == x:
                            new_cost[t - (1 << 62)] = min(new_cost[t - (1 << 62)], c)
                            break
                    elif head[t] == x:
                        weight[t] = min(weight[t], c)
                        break
                    h = (h + 1) & mask
        new[i] = k - slots[i]
    return new_head, new_cost, new


@njit(cache=True)
def _emit(emitted, done, chosen_v, chosen, gone, out_pool, out_start, out_size, in_pool, in_start, in_size):
    """Step 4's end: the arcs of ``S`` are final; its vertices leave the graph."""
    for v in chosen_v:
        chosen[v], gone[v] = False, True
        emitted = _grow(emitted, done + in_size[v] + out_size[v])
        emitted[done:done + in_size[v]] = in_pool[in_start[v]:in_start[v] + in_size[v]]
        done += in_size[v]
        emitted[done:done + out_size[v]] = out_pool[out_start[v]:out_start[v] + out_size[v]]
        done += out_size[v]
    return emitted, done


@njit(cache=True)
def eliminate_in_rounds(n, tail, head, weight, limit, round_pairs=ROUND_PAIRS):
    """:func:`.elimination.eliminate`'s contract (level, emitted arc ids, tail, head, weight,
    shortcuts; shortcuts = -1 once more than ``limit`` were added), contracted in rounds; and
    the number of rounds."""
    arcs = len(tail)
    (tail, head, weight, out_pool, out_start, out_size, out_cap, out_top, in_pool, in_start, in_size, in_cap,
     in_top) = _lists(n, tail, head, weight)
    level, key, stamp = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    gone, chosen = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    alive = np.arange(n)
    changed = alive
    emitted = np.empty(arcs + 16, np.int64)
    done, shortcuts, rounds = 0, 0, 0
    while len(alive) > 0:
        rounds += 1
        _refresh(changed, tail, head, gone, level, key, out_pool, out_start, out_size, in_pool, in_start, in_size)
        _local_minima(alive, tail, head, key, chosen, out_pool, out_start, out_size, in_pool, in_start, in_size)
        chosen_v, tails, slots, changed = _take(alive, chosen, tail, head, in_pool, in_start, in_size, out_pool,
                                                out_start, out_size, stamp, rounds, round_pairs)
        new_head, new_cost, new = _shortcuts_by_tail(tails, slots, chosen, head, weight, out_pool, out_start,
                                                     out_size)
        total = new.sum()
        tail, head, weight = (_grow(tail, arcs + shortcuts + total), _grow(head, arcs + shortcuts + total),
                              _grow(weight, arcs + shortcuts + total))
        for i in range(len(tails)):
            u = tails[i]
            for k in range(slots[i], slots[i] + new[i]):
                s = arcs + shortcuts
                shortcuts += 1
                x = new_head[k]
                tail[s], head[s], weight[s] = u, x, new_cost[k]
                out_pool, out_top = _push(out_pool, out_start, out_size, out_cap, out_top, u, s)
                in_pool, in_top = _push(in_pool, in_start, in_size, in_cap, in_top, x, s)
        emitted, done = _emit(emitted, done, chosen_v, chosen, gone, out_pool, out_start, out_size, in_pool,
                              in_start, in_size)
        if shortcuts > limit:
            shortcuts = -1
            break
        alive = alive[~gone[alive]]
    return level, emitted[:done], tail, head, weight, shortcuts, rounds
