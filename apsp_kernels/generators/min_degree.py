"""Liu's connected undirected graphs with a minimum degree (Liu, Fig. 1-4; edge counts Fig. 2).

The author's ``graph_initialization`` as the paper and EXPERIMENTS.md (P4)
describe it: a random spanning tree (vertex i = 1 .. N-1 joins a uniformly random
earlier vertex), then, for each vertex in order, edges to uniformly random other
vertices (no self loops, no duplicates) until its degree reaches MIN_DEGREE.
Each added edge raises the degree of both ends, so later vertices need fewer new
edges and the graph ends with about N * MIN_DEGREE * (1 - 1/e) ~ 0.63 N * MIN_DEGREE
edges, as in Fig. 2.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..errors import InputError
from ..graph import Graph
from ._common import build, integer_weights, positive_int, weight_range

_BITSET_LIMIT = 4 << 30  # bytes of the adjacency bitset


@lru_cache(maxsize=None)
def _fill_kernel():
    from ..numba_cache import njit  # imported on first use: numba is slow to import

    @njit(cache=True)
    def fill(vertex, n, min_degree, degree, bits, words, draws, out_u, out_v, count):
        """Add edges for vertices vertex.. from the target stream ``draws`` until it runs out."""
        pos = 0
        while vertex < n:
            while degree[vertex] < min_degree:
                if pos == draws.shape[0]:
                    return vertex, count
                j = draws[pos]
                pos += 1
                if j == vertex:
                    continue
                word = vertex * words + (j >> 6)
                bit = np.uint64(1) << np.uint64(j & 63)
                if bits[word] & bit:
                    continue
                bits[word] |= bit
                bits[j * words + (vertex >> 6)] |= np.uint64(1) << np.uint64(vertex & 63)
                degree[vertex] += 1
                degree[j] += 1
                out_u[count] = vertex
                out_v[count] = j
                count += 1
            vertex += 1
        return vertex, count

    return fill


def liu_min_degree(n, min_degree, seed=0, w_low=1, w_high=100000, dtype=np.int32,
                   name=None) -> Graph:
    """Liu §4, Fig. 2: connected undirected graph, every vertex of degree >= ``min_degree``.

    Weights are integers uniform in ``[w_low, w_high]`` (the paper: 1 to 100000).
    The Graph stores both directions (``m`` = 2 x edges); ``meta["undirected_edges"]``
    is the edge count Fig. 2 reports, ``meta["sssp_source"]`` a random vertex (the
    author's code starts from a random node). The random stream differs from the
    author's C ``rand()``, so counts match Fig. 2 statistically (within ~0.5 %), not
    digit for digit.
    """
    fn = "liu_min_degree"
    n = positive_int(fn, "n", n, low=2)
    min_degree = positive_int(fn, "min_degree", min_degree, low=0)
    if min_degree > n - 1:
        raise InputError(f"{fn}: min_degree={min_degree} is impossible with n={n} vertices "
                         f"(at most n-1 = {n - 1} neighbours)")
    weight_range(fn, w_low, w_high)
    words = (n + 63) // 64
    if n * words * 8 > _BITSET_LIMIT:
        raise InputError(f"{fn}: n={n} needs a {n * words * 8 / 2**30:.1f} GiB adjacency bitset; "
                         f"the paper's graphs have n <= 40000")
    rng = np.random.default_rng(seed)
    child = np.arange(1, n, dtype=np.int64)
    parent = rng.integers(0, child)
    bits = np.zeros(n * words, dtype=np.uint64)
    one = np.uint64(1)
    np.bitwise_or.at(bits, child * words + (parent >> 6), one << (parent & 63).astype(np.uint64))
    np.bitwise_or.at(bits, parent * words + (child >> 6), one << (child & 63).astype(np.uint64))
    degree = (np.bincount(child, minlength=n) + np.bincount(parent, minlength=n)).astype(np.int64)

    fill = _fill_kernel()
    cap = n * min_degree  # each vertex adds at most min_degree edges itself
    out_u = np.empty(cap, dtype=np.int32)
    out_v = np.empty(cap, dtype=np.int32)
    vertex, count = 0, 0
    chunk = int(min(max(1 << 16, cap), 1 << 24))
    while vertex < n:
        draws = rng.integers(0, n, size=chunk)
        vertex, count = fill(vertex, n, min_degree, degree, bits, words, draws,
                              out_u, out_v, count)
    src = np.concatenate([child, out_u[:count]])
    dst = np.concatenate([parent, out_v[:count]])
    w = integer_weights(rng, len(src), w_low, w_high)
    source = int(rng.integers(0, n))
    params = {"n": n, "min_degree": min_degree, "seed": seed, "w_low": w_low, "w_high": w_high}
    return build(fn, n, src, dst, w, params=params, dtype=dtype, undirected=True,
                 name=name or f"liu-n{n}-deg{min_degree}-s{seed}",
                 undirected_edges=int(len(src)), sssp_source=source,
                 label=f"Liu min-degree graph (N={n}, MIN_DEGREE={min_degree}, "
                       f"{len(src)} undirected edges)")
