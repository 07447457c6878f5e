"""A road-network stand-in for the 9th DIMACS USA road graphs (Bodra Table 1) when offline."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree

from ..errors import InputError
from ..graph import Graph
from ._common import build, member, positive_int

SPACING = 1000  # grid spacing in weight units: road lengths of hundreds to a few thousands
# rivers every 64 grid lines bridged every 16 links, every 512 bridged every 128, every 4096 every
# 1024: at NY's size (264,346 vertices, 730,100 arcs) the stand-in then contracts to 2.6 shortcuts
# per arc in 253 levels (NY: 2.7, 373; without rivers 5.1, 964), and stays at 2.6 per arc at 1M
RIVERS = ((64, 16), (512, 128), (4096, 1024))


def road_like(n, m, seed=0, name=None, dtype=np.int32, rivers=()) -> Graph:
    """A labelled stand-in for a DIMACS road graph: planar, degree <= 4, large diameter.

    ``n`` points on a jittered square grid (row-major ids, so ids are spatially
    local as in the DIMACS files). The roads are a subset of the grid's
    horizontal and vertical links: the minimum spanning tree by Euclidean length
    (connected, a random-looking tree with long detours), plus uniformly random
    further links until there are ``m // 2`` roads. Each road is stored in both
    directions with the same integer weight, ``round(length * SPACING * detour)``,
    detour uniform in [1, 1.3], so weights range over about 400 .. 2200.

    ``rivers``: (spacing S, bridge every B) pairs. Every S-th grid line is a river that roads
    cross only at bridges, one in B links along it (at a seeded offset; more where the land
    would otherwise fall apart). A uniform mesh has separators of sqrt(n) vertices, so a
    contraction hierarchy of it grows faster than n (and unlike a road network, whose rivers,
    hills and coasts leave few crossings): :data:`RIVERS` makes it contract as NY does.

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
    land = _bridged(np.concatenate([col[right] + 1, row[down] + 1]), np.concatenate([row[right], col[down]]),
                    rivers, rng, fn)
    x = col + rng.uniform(-0.3, 0.3, n)
    y = row + rng.uniform(-0.3, 0.3, n)
    length = np.hypot(x[eu] - x[ev], y[eu] - y[ev])
    cost = length if land is None else length + np.where(land, 0.0, 1e6)  # a river only where it must
    tree = minimum_spanning_tree(sp.csr_matrix((cost, (eu, ev)), shape=(n, n))).tocoo()
    lo = np.minimum(tree.row, tree.col).astype(np.int64)
    hi = np.maximum(tree.row, tree.col).astype(np.int64)
    in_tree = member(eu * n + ev, np.sort(lo * n + hi))
    rest = np.flatnonzero(~in_tree if land is None else ~in_tree & land)
    if roads - (n - 1) > len(rest):
        raise InputError(f"{fn}: m={m} arcs are more than the {2 * (n - 1 + len(rest))} that the grid's links "
                         f"off the rivers {tuple(rivers)} give for n={n}; ask fewer arcs or fewer rivers")
    chosen = np.concatenate([np.flatnonzero(in_tree),
                             rng.choice(rest, size=roads - (n - 1), replace=False)])
    detour = rng.uniform(1.0, 1.3, len(chosen))
    w = np.maximum(1, np.rint(length[chosen] * SPACING * detour)).astype(np.int64)
    params = {"n": n, "m": m, "seed": seed} | ({"rivers": [list(r) for r in rivers]} if rivers else {})
    label = f"road-like stand-in (n={n}, m={2 * roads}{f', rivers {tuple(rivers)}' if rivers else ''})"
    return build(fn, n, eu[chosen], ev[chosen], w, params=params, dtype=dtype, undirected=True,
                 name=name or f"roadlike-n{n}-m{2 * roads}-s{seed}{'-rivers' if rivers else ''}", stand_in=True, label=label,
                 undirected_edges=int(roads))


def _bridged(crossing: np.ndarray, along: np.ndarray, rivers, rng, fn: str):
    """Which grid links cross no river or cross at a bridge (None without rivers): a link crosses
    the river on grid line ``crossing`` when S divides it, at position ``along`` on that line."""
    if not rivers:
        return None
    land = np.ones(len(crossing), dtype=bool)
    for spacing, every in rivers:
        spacing, every = positive_int(fn, "river spacing", spacing, low=2), positive_int(fn, "bridge step", every)
        bridge = (along + rng.integers(0, every)) % every == every // 2
        land &= (crossing % spacing != 0) | bridge
    return land
