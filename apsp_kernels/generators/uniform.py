"""Uniform random digraphs: Okuyama's DIMACS-style random graphs and Pandey's dense graphs."""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..graph import Graph
from ._common import (build, decode_nonloop, integer_weights, member, positive_int,
                      top_up_distinct, weight_range)


def random_digraph(n, m, w_max=None, w_min=1, seed=0, dtype=np.int32, name=None) -> Graph:
    """Okuyama et al. §5 (Fig. 10-14, Table 1 "random"): a strongly connected random digraph.

    Stands in for the 9th DIMACS challenge random-graph generator: a Hamiltonian
    cycle through a random permutation of the vertices (strong connectivity), then
    uniformly random arcs until there are exactly ``m`` distinct arcs, no self
    loops. Weights are integers uniform in ``[w_min, w_max]``; ``w_max`` defaults
    to ``n`` (the paper uses w_max = |V|). Needs ``n <= m <= n(n-1)``: fewer arcs
    cannot hold the cycle, more do not exist without loops or duplicates.
    """
    fn = "random_digraph"
    n = positive_int(fn, "n", n)
    m = positive_int(fn, "m", m, low=0)
    w_max = n if w_max is None else w_max
    weight_range(fn, w_min, w_max)
    total = n * (n - 1)
    if n == 1:
        if m:
            raise InputError(f"{fn}: a 1-vertex graph has no arcs without self loops, got m={m}")
    elif not n <= m <= total:
        raise InputError(f"{fn}: m must lie in [n, n(n-1)] = [{n}, {total}] (the Hamiltonian "
                         f"cycle needs n arcs; no more distinct non-loop arcs exist), got m={m}")
    rng = np.random.default_rng(seed)
    keys = np.empty(0, dtype=np.int64)
    if n > 1:
        perm = rng.permutation(n).astype(np.int64)
        keys = perm * n + np.roll(perm, -1)
        extra = m - n
        if 2 * m >= total:  # dense: sample from the enumerated pool, not by rejection
            u, v = decode_nonloop(np.arange(total, dtype=np.int64), n)
            pool = u * n + v
            pool = pool[~member(pool, np.sort(keys))]
            more = rng.choice(pool, size=extra, replace=False)
        else:
            def draw(k):
                u, v = decode_nonloop(rng.integers(0, total, size=k), n)
                return u * n + v
            more = top_up_distinct(rng, keys, extra, draw, fn=fn, ordered=False)
        keys = np.concatenate([keys, more])
    src, dst = np.divmod(np.sort(keys), n)  # CSR order; i.i.d. weights are drawn after
    w = integer_weights(rng, len(keys), w_min, w_max)
    params = {"n": n, "m": m, "w_min": w_min, "w_max": w_max, "seed": seed}
    return build(fn, n, src, dst, w, params=params, dtype=dtype,
                 name=name or f"random-n{n}-m{m}-w{w_max}-s{seed}",
                 label=f"random digraph + Hamiltonian cycle (n={n}, m={m}, "
                       f"w in [{w_min}, {w_max}])")


def dense_random(n, w_low=1, w_high=10, seed=0, dtype=np.int32, density=1.0) -> Graph:
    """Pandey et al. §V (Fig. 11-15, Table 1): a dense directed graph, O(n^2) arcs.

    Every ordered pair (u, v), u != v, is an arc with an integer weight uniform in
    ``[w_low, w_high]`` (the paper: 1 to 10). ``density < 1`` keeps a uniformly
    random subset of exactly ``round(density * n(n-1))`` arcs.
    """
    fn = "dense_random"
    n = positive_int(fn, "n", n)
    weight_range(fn, w_low, w_high)
    if not 0.0 < density <= 1.0:
        raise InputError(f"{fn}: density must lie in (0, 1], got {density}")
    total = n * (n - 1)
    rng = np.random.default_rng(seed)
    if density < 1.0:
        index = np.sort(rng.choice(total, size=int(round(density * total)), replace=False))
    else:
        index = np.arange(total, dtype=np.int64)
    src, dst = decode_nonloop(index, n)
    w = integer_weights(rng, len(index), w_low, w_high)
    params = {"n": n, "w_low": w_low, "w_high": w_high, "seed": seed, "density": density}
    tag = "" if density == 1.0 else f"-d{density:g}"
    return build(fn, n, src, dst, w, params=params, dtype=dtype,
                 name=f"dense-n{n}{tag}-w{w_low}-{w_high}-s{seed}",
                 label=f"dense random digraph (n={n}, density={density:g}, "
                       f"w in [{w_low}, {w_high}])")
