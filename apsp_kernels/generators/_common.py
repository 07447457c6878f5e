"""Shared helpers of the generators: argument checks, provenance, arc-key sampling."""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..graph import Graph


def positive_int(fn: str, what: str, value, low: int = 1) -> int:
    """``value`` as an int >= ``low``, or an InputError naming ``fn`` and ``what``."""
    if isinstance(value, (bool, np.bool_)) or int(value) != value:
        raise InputError(f"{fn}: {what} must be an integer, got {value!r}")
    value = int(value)
    if value < low:
        raise InputError(f"{fn}: {what} must be >= {low}, got {value}")
    return value


def weight_range(fn: str, low, high) -> tuple:
    if high < low:
        raise InputError(f"{fn}: the weight range [{low}, {high}] is empty")
    return low, high


def integer_weights(rng, size: int, low: int, high: int) -> np.ndarray:
    """Uniform integers in the closed range [low, high]."""
    return rng.integers(int(low), int(high), size=size, endpoint=True, dtype=np.int64)


def build(fn: str, n: int, src, dst, w, *, params: dict, dtype, name: str,
          undirected: bool = False, **extra) -> Graph:
    """Graph.from_edges with the generators' provenance in ``meta``."""
    meta = {"generator": fn, "params": dict(params), "source": "generated", **extra}
    return Graph.from_edges(n, src, dst, w, dtype=dtype, name=name, undirected=undirected,
                            meta=meta)


def decode_nonloop(index: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Index k in [0, n(n-1)) of the arcs without self loops -> (u, v), row-major order."""
    u, r = np.divmod(index.astype(np.int64), n - 1)
    return u, r + (r >= u)


def unique_sorted(a: np.ndarray) -> np.ndarray:
    """Sorted distinct values (np.unique is many times slower on large int64 arrays)."""
    s = np.sort(a)
    if len(s) > 1:
        s = s[np.concatenate(([True], s[1:] != s[:-1]))]
    return s


def distinct_with_first(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of non-negative ``a`` and the index of each one's first occurrence."""
    if not len(a):
        return a, np.zeros(0, dtype=np.int64)
    shift = max(1, int(len(a) - 1).bit_length())
    if int(a.max()).bit_length() + shift <= 63:  # one plain sort of (value, index) packed
        packed = np.sort((a << shift) | np.arange(len(a), dtype=np.int64))
        s, order = packed >> shift, packed & ((1 << shift) - 1)
    else:
        order = np.argsort(a, kind="stable")
        s = a[order]
    starts = np.concatenate(([True], s[1:] != s[:-1]))
    return s[starts], order[starts]


def top_up_distinct(rng, keys: np.ndarray, count: int, draw, *, fn: str, ordered: bool,
                    max_rounds: int = 64) -> np.ndarray:
    """``count`` new distinct int64 arc keys, none of them in ``keys``.

    ``draw(k)`` returns a stream of k candidate keys (self loops removed), drawn
    again while too few distinct new keys are known. ``ordered=True`` keeps the
    first ``count`` new keys of the stream ("generate arcs until m are distinct",
    right for skewed models such as R-MAT); ``ordered=False`` keeps a uniformly
    random subset of the distinct candidates, the same law for a uniform stream
    and cheaper (one plain sort).
    """
    taken = unique_sorted(np.asarray(keys, dtype=np.int64))
    parts = []
    have = 0
    for _ in range(max_rounds):
        need = count - have
        if need <= 0:
            break
        cand = np.asarray(draw(int(need * 1.1) + 64), dtype=np.int64)
        if ordered:  # sorted needles make the membership search cache-friendly
            vals, first = distinct_with_first(cand)
            keep = np.zeros(len(cand), dtype=bool)
            keep[first[~member(vals, taken)]] = True
            cand = cand[keep][:need]                 # new distinct keys, in stream order
        else:
            cand = unique_sorted(cand)
            cand = cand[~member(cand, taken)]
        parts.append(cand)
        have += len(cand)
        if have < count:
            taken = unique_sorted(np.concatenate([taken, cand]))
    else:
        raise InputError(f"{fn}: could not draw {count} distinct arcs in {max_rounds} rounds; "
                         f"the requested arc count is too close to what the model can produce")
    fresh = np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
    if len(fresh) > count:  # only when ordered=False
        fresh = rng.choice(fresh, size=count, replace=False)
    return fresh


def member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """values in sorted_set, elementwise."""
    if not len(sorted_set):
        return np.zeros(len(values), dtype=bool)
    pos = np.searchsorted(sorted_set, values)
    pos[pos == len(sorted_set)] = 0
    return sorted_set[pos] == values
