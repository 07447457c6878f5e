"""Upper bounds on shortest-path lengths: what lets int32 kernels be exact or refuse up front.

A shortest path is simple, so it leaves each vertex at most once and one vertex never: its
length is at most the sum of the ``n - 1`` largest per-vertex maximum ``|w|`` of the out-arcs
(likewise of the in-arcs; the smaller sum is taken). When that reaches ``INF_INT32`` and the
weights are non-negative, a tighter bound: inside a strongly connected component with root
``r``, ``d(a, b) <= d(a, r) + d(r, b)``, and a path crosses the components in the order of
their DAG, so the heaviest path of that DAG (each component weighing its in- plus out-radius
from ``r``, each DAG arc the heaviest arc between its two components) bounds every distance.
For a symmetric graph that is twice the eccentricity of one root per component. Two SciPy
Dijkstra runs and one pass over the DAG, on the host (not for a graph on the device).

Measured (the bound against ``INF_INT32 = 1,073,741,823``; every one fits):

=====================================  ==========  ============  =============
graph                                  n           m             bound
=====================================  ==========  ============  =============
USA-road-d.NY                          264,346     730,100       508,839,193
USA-road-d.BAY                         321,270     794,830       766,429,886
COL (road-like stand-in)               435,666     1,057,066     523,126,162
FLA (road-like stand-in)               1,070,376   2,712,798     4,405,774
NE (road-like stand-in)                1,524,453   3,897,636     5,208,292
E (road-like stand-in)                 3,598,623   8,778,114     8,244,448
p2p-Gnutella04 / 25 / 30, w 1..100     <= 36,682   <= 88,328     <= 854,747
okuyama random 4677 / 16K, w <= 100    4,677       16,384        349,678
okuyama R-MAT 16K / 64K, w <= 100      16,384      65,536        352,453
pandey dense 4096, w 1..10             4,096       16,773,120    40,950
bodra 4-regular 8192, w 1..100         8,192       32,768        621,560
liu N = 40000, degree 16, w <= 1e5     40,000      800,412       194,184
=====================================  ==========  ============  =============

The stand-ins above past 1e6 vertices and liu's graph need the component bound (their sums
of maxima are 4e9 and more); okuyama's Fig. 10 graphs (w_max = n) likewise.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .arrays import array_module
from .inf import INF_INT32


def distance_bound(graph) -> int | float:
    """The bound described above, exact integer arithmetic (float64 sums for float weights)."""
    if not graph.m:
        return 0
    absw = abs(graph.weights.astype(np.float64 if graph.dtype.kind == "f" else np.int64))
    bound = min(_sum_of_largest(_maxima(graph.n, graph.sources_of_arcs, absw)),
                _sum_of_largest(_maxima(graph.n, graph.indices, absw)))
    if bound >= INF_INT32 and graph.dtype == np.int32 and not graph.has_negative_weights \
            and not graph.on_device:
        bound = min(bound, condensation_bound(graph))
    return bound


def _maxima(n: int, owner, absw):
    """Per-vertex maximum of ``absw`` grouped by ``owner`` (0 for a vertex owning none)."""
    xp = array_module(absw)
    top = xp.zeros(n, dtype=absw.dtype)
    xp.maximum.at(top, owner, absw)
    return top


def _sum_of_largest(top) -> int | float:
    """Sum of the n - 1 largest of ``top``."""
    total = top.sum() - top.min()
    return float(total) if top.dtype.kind == "f" else int(total)


def condensation_bound(graph) -> int:
    """The heaviest path of the component DAG (see the module docstring)."""
    from scipy.sparse import csgraph

    from ._dag import heaviest_path
    n, src, dst = graph.n, graph.sources_of_arcs, graph.indices
    w = graph.weights.astype(np.int64)
    count, label = csgraph.connected_components(graph.to_scipy(), directed=True, connection="strong")
    roots = np.unique(label, return_index=True)[1]
    inside = label[src] == label[dst]
    within = sp.csr_matrix((w[inside].astype(np.float64), (src[inside], dst[inside])), shape=(n, n))
    radius = np.zeros(count, dtype=np.int64)
    for matrix in (within, within.T.tocsr()):  # from the root, and to it
        d = csgraph.dijkstra(matrix, directed=True, indices=roots, min_only=True)
        far = np.zeros(count, dtype=np.int64)
        np.maximum.at(far, label, d.astype(np.int64))
        radius += far
    tail, head, weight = label[src[~inside]], label[dst[~inside]], w[~inside]
    order = np.argsort(tail, kind="stable")
    return int(heaviest_path(count, radius, tail[order].astype(np.int64),
                             head[order].astype(np.int64), weight[order]))
