"""The contraction of :mod:`.contraction` in parallel rounds (numba ``parallel=True``).

Each round contracts every live vertex whose (live arcs + level, id) is below that of each live
neighbour: an independent set ``S``, so contracting its vertices one after another in id order
adds the same shortcuts as contracting them at once (no vertex of ``S`` neighbours another, and
a shortcut joins two neighbours of one). A round:

1. (parallel over the vertices whose lists changed) drop the arcs to contracted vertices, raise
   the level to one more than theirs, set the key (live arcs + level);
2. (parallel over the live vertices) mark the local minima; then, in id order, take them while
   their candidate shortcuts fit the round's budget (at least one), and list their in-neighbours
   in order of first appearance (a vertex appears first beside its least chosen neighbour);
3. (parallel over the in-neighbours ``u`` of ``S``: each owns the arcs leaving it) for every
   arc ``u -> v -> x`` with ``v`` in ``S``, lower the arc ``u -> x`` if ``u`` has it (found in a
   hash table of ``u``'s out-neighbours), else note a new one, once per ``x`` at its least cost;
4. (parallel) give the new arcs their ids in that order (a prefix sum of the tails' counts),
   append them to the tails' out-lists (each tail its own) and to the heads' in-lists (sorted
   by owner of a range of heads, each owner its own, in id order), emit the arcs of ``S``.

Without witness searches the hierarchy is exact as :mod:`.contraction` says; the result (order,
levels, shortcuts) depends on the graph only, not on the number of threads. On USA-road-d.NY
it contracts in 408 rounds to 1.98 M shortcuts and 373 levels (the heap order of
:mod:`.elimination`: 1.89 M, 397). The lists are :mod:`.elimination`'s, appended to in batches
by :mod:`.parallel_lists`. Sequential still: the scans over a prefix sum's chunks, the budget's
pass in a round over it, and steps over few items (SERIAL_BELOW).
"""
import numpy as np
from numba import prange

from ..numba_cache import njit
from .elimination import _lists
from .parallel_lists import SERIAL_BELOW, append_grouped, compact, gather, grown, make_room, offsets, select

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


@njit(cache=True)
def _take(alive, chosen, in_size, out_size, round_pairs):
    """Step 2's choice, in id order: the local minima while their candidate shortcuts fit the
    budget (at least one; ``chosen`` is cleared for those left to a later round)."""
    chosen_v = select(alive, chosen, True)
    p = gather(in_size, chosen_v) * gather(out_size, chosen_v)
    if offsets(p)[-1] <= round_pairs:
        return chosen_v
    pairs = 0
    for i in range(len(chosen_v)):
        if i > 0 and pairs + p[i] > round_pairs:
            chosen[chosen_v[i]] = False
        else:
            pairs += p[i]
    return select(chosen_v, chosen, True)


@njit(cache=True, parallel=True)
def _first_tails(chosen_v, at, chosen, tail, head, in_pool, in_start, out_pool, out_start, out_size):
    """The in-neighbours ``u`` of the chosen, in order of their first appearance (in id order of
    the chosen, list order within one): flags where ``u`` first appears (its least chosen
    out-neighbour is this one) and the count of its candidate slots (the out-arcs of its chosen
    out-neighbours)."""
    cand, first, slots = np.empty(at[-1], np.int64), np.empty(at[-1], np.bool_), np.empty(at[-1], np.int64)
    for i in prange(len(chosen_v)):
        v = chosen_v[i]
        for j in range(at[i + 1] - at[i]):
            u = tail[in_pool[in_start[v] + j]]
            p, f = 0, True
            for q in range(out_start[u], out_start[u] + out_size[u]):
                y = head[out_pool[q]]
                if chosen[y]:
                    if y < v:
                        f = False
                        break
                    p += out_size[y]
            cand[at[i] + j], first[at[i] + j], slots[at[i] + j] = u, f, p
    return cand, first, slots


@njit(cache=True, parallel=True)
def _first_heads(chosen_v, at, chosen, tails, where, tail, head, in_pool, in_start, in_size, out_pool, out_start):
    """The out-neighbours ``x`` of the chosen that are not among ``tails`` (indexed in
    ``where``), flagged where ``x`` first appears (its least chosen in-neighbour is this one)."""
    cand, first = np.empty(at[-1], np.int64), np.empty(at[-1], np.bool_)
    for i in prange(len(chosen_v)):
        v = chosen_v[i]
        for j in range(at[i + 1] - at[i]):
            x = head[out_pool[out_start[v] + j]]
            f = not (where[x] < len(tails) and tails[where[x]] == x)
            if f:
                for q in range(in_start[x], in_start[x] + in_size[x]):
                    y = tail[in_pool[q]]
                    if chosen[y] and y < v:
                        f = False
                        break
            cand[at[i] + j], first[at[i] + j] = x, f
    return cand, first


@njit(cache=True, parallel=True)
def _index_in_parallel(verts, where, base):
    for j in prange(len(verts)):
        where[verts[j]] = base + j


@njit(cache=True)
def _index(verts, where, base):
    if len(verts) >= SERIAL_BELOW:
        _index_in_parallel(verts, where, base)
    else:
        where[verts] = base + np.arange(len(verts))


@njit(cache=True)
def _neighbours(chosen_v, chosen, tail, head, in_pool, in_start, in_size, out_pool, out_start, out_size, where):
    """The in-neighbours of the chosen (each once, in order of first appearance) with offsets of
    their candidate slots, and every neighbour (their lists change this round), indexed in
    ``where``."""
    at = offsets(gather(in_size, chosen_v))
    cand, first, slots = _first_tails(chosen_v, at, chosen, tail, head, in_pool, in_start, out_pool, out_start,
                                      out_size)
    tails, slots = compact(cand, first), offsets(compact(slots, first))
    _index(tails, where, 0)
    at = offsets(gather(out_size, chosen_v))
    cand, first = _first_heads(chosen_v, at, chosen, tails, where, tail, head, in_pool, in_start, in_size, out_pool,
                               out_start)
    heads = compact(cand, first)
    _index(heads, where, len(tails))
    return tails, slots, np.concatenate((tails, heads))


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


@njit(cache=True, parallel=True)
def _write_arcs(tails, slots, new, at, first, new_head, new_cost, tail, head, weight, out_pool, out_start, out_size):
    for i in prange(len(tails)):
        u = tails[i]
        for k in range(new[i]):
            s = first + at[i] + k
            tail[s], head[s], weight[s] = u, new_head[slots[i] + k], new_cost[slots[i] + k]
            out_pool[out_start[u] + out_size[u]] = s
            out_size[u] += 1


@njit(cache=True)
def _add_arcs(tails, slots, new, new_head, new_cost, changed, where, first, tail, head, weight, out_pool, out_start,
              out_size, out_cap, out_top, in_pool, in_start, in_size, in_cap, in_top):
    """Step 4's appends: the new arcs get ids from ``first`` on, in order of their tails (then
    slots), each tail appends its own to its out-list, and the owners of a range of ``changed``
    append theirs to the heads' in-lists in id order."""
    at = offsets(new)
    total = at[-1]
    if total == 0:  # most rounds at the top of a road's hierarchy
        return total, tail, head, weight, out_pool, out_top, in_pool, in_top
    end = first + total
    tail, head, weight = grown(tail, end, first), grown(head, end, first), grown(weight, end, first)
    out_pool, out_top = make_room(out_pool, out_start, out_size, out_cap, out_top, tails, new)
    _write_arcs(tails, slots, new, at, first, new_head, new_cost, tail, head, weight, out_pool, out_start, out_size)
    in_pool, in_top = append_grouped(in_pool, in_start, in_size, in_cap, in_top, changed, where,
                                     head[first:first + total], first)
    return total, tail, head, weight, out_pool, out_top, in_pool, in_top


@njit(cache=True, parallel=True)
def _emit(emitted, at, chosen_v, chosen, gone, out_pool, out_start, out_size, in_pool, in_start, in_size):
    """Step 4's end: the arcs of ``S`` are final; its vertices leave the graph."""
    for i in prange(len(chosen_v)):
        v = chosen_v[i]
        chosen[v], gone[v] = False, True
        d = at[i]
        for j in range(in_size[v]):
            emitted[d + j] = in_pool[in_start[v] + j]
        d += in_size[v]
        for j in range(out_size[v]):
            emitted[d + j] = out_pool[out_start[v] + j]


@njit(cache=True)
def eliminate_in_rounds(n, tail, head, weight, limit, round_pairs):
    """:func:`.elimination.eliminate`'s contract (level, emitted arc ids, tail, head, weight,
    shortcuts; shortcuts = -1 once more than ``limit`` were added), contracted in rounds; and
    the number of rounds."""
    arcs = len(tail)
    (tail, head, weight, out_pool, out_start, out_size, out_cap, out_top, in_pool, in_start, in_size, in_cap,
     in_top) = _lists(n, tail, head, weight)
    level, key, where = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    gone, chosen = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    alive = np.arange(n)
    changed = alive
    emitted = np.empty(arcs + 16, np.int64)
    done, shortcuts, rounds = 0, 0, 0
    while len(alive) > 0:
        rounds += 1
        _refresh(changed, tail, head, gone, level, key, out_pool, out_start, out_size, in_pool, in_start, in_size)
        _local_minima(alive, tail, head, key, chosen, out_pool, out_start, out_size, in_pool, in_start, in_size)
        chosen_v = _take(alive, chosen, in_size, out_size, round_pairs)
        tails, slots, changed = _neighbours(chosen_v, chosen, tail, head, in_pool, in_start, in_size, out_pool,
                                            out_start, out_size, where)
        new_head, new_cost, new = _shortcuts_by_tail(tails, slots, chosen, head, weight, out_pool, out_start,
                                                     out_size)
        added, tail, head, weight, out_pool, out_top, in_pool, in_top = _add_arcs(
            tails, slots, new, new_head, new_cost, changed, where, arcs + shortcuts, tail, head, weight, out_pool,
            out_start, out_size, out_cap, out_top, in_pool, in_start, in_size, in_cap, in_top)
        shortcuts += added
        at = offsets(gather(in_size, chosen_v) + gather(out_size, chosen_v))
        emitted = grown(emitted, done + at[-1], done)
        alive = select(alive, chosen, False)
        _emit(emitted, at + done, chosen_v, chosen, gone, out_pool, out_start, out_size, in_pool, in_start, in_size)
        done += at[-1]
        if shortcuts > limit:
            shortcuts = -1
            break
    return level, emitted[:done], tail, head, weight, shortcuts, rounds
