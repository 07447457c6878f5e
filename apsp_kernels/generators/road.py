"""A road-network stand-in for the 9th DIMACS USA road graphs (Bodra Table 1) when offline."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree

from ..errors import InputError
from ..graph import Graph
from ._common import build, member, positive_int

SPACING = 1000  # grid spacing in weight units: road lengths of hundreds to a few thousands


def road_like(n, m, seed=0, name=None, dtype=np.int32) -> Graph:
    """A labelled stand-in for a DIMACS road graph: planar, degree <= 4, large diameter.

    ``n`` points on a jittered square grid (row-major ids, so ids are spatially
    local as in the DIMACS files). The roads are a subset of the grid's
    horizontal and vertical links: the minimum spanning tree by Euclidean length
    (connected, a random-looking tree with long detours), plus uniformly random
    further links until there are ``m // 2`` roads. Each road is stored in both
    directions with the same integer weight, ``round(length * SPACING * detour)``,
    detour uniform in [1, 1.3], so weights range over about 400 .. 2200.

    The result has exactly ``n`` vertices and ``2 * (m // 2)`` arcs (``m`` or
    ``m - 1``), is strongly connected, and needs ``2(n-1) <= m <= 2 * grid links``
    (mean out-degree between ~2 and ~4; the DIMACS graphs have 2.4 .. 2.8).
    """
    fn = "road_like"
    n = positive_int(fn, "n", n, low=2)
    m = positive_int(fn, "m", m, low=0)
    rng = np.random.default_rng(seed)
    cols = int(np.ceil(np.sqrt(n)))
    ids = np.arange(n, dtype=np.int64)
    row, col = np.divmod(ids, cols)
    right = ids[(col < cols - 1) & (ids + 1 < n)]
    down = ids[ids + cols < n]
    eu = np.concatenate([right, down])
    ev = np.concatenate([right + 1, down + cols])
    roads = m // 2
    if not n - 1 <= roads <= len(eu):
        raise InputError(f"{fn}: m={m} arcs must lie in [2(n-1), {2 * len(eu)}] for n={n} "
                         f"(a connected grid subgraph with both directions of each road)")
    x = col + rng.uniform(-0.3, 0.3, n)
    y = row + rng.uniform(-0.3, 0.3, n)
    length = np.hypot(x[eu] - x[ev], y[eu] - y[ev])
    tree = minimum_spanning_tree(sp.csr_matrix((length, (eu, ev)), shape=(n, n))).tocoo()
    lo = np.minimum(tree.row, tree.col).astype(np.int64)
    hi = np.maximum(tree.row, tree.col).astype(np.int64)
    in_tree = member(eu * n + ev, np.sort(lo * n + hi))
    rest = np.flatnonzero(~in_tree)
    chosen = np.concatenate([np.flatnonzero(in_tree),
                             rng.choice(rest, size=roads - (n - 1), replace=False)])
    detour = rng.uniform(1.0, 1.3, len(chosen))
    w = np.maximum(1, np.rint(length[chosen] * SPACING * detour)).astype(np.int64)
    params = {"n": n, "m": m, "seed": seed}
    label = f"road-like stand-in (n={n}, m={2 * roads})"
    return build(fn, n, eu[chosen], ev[chosen], w, params=params, dtype=dtype, undirected=True,
                 name=name or f"roadlike-n{n}-m{2 * roads}-s{seed}", stand_in=True, label=label,
                 undirected_edges=int(roads))
