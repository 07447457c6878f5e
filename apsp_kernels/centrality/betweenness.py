"""Betweenness of vertices and of arcs, with NetworkX 3.6's definitions, exact.

::

    from apsp_kernels import centrality
    b = centrality.betweenness_centrality(A, directed=False)              # float64, one per vertex
    b = centrality.betweenness_centrality(A, k=256, seed=1)               # 256 sampled sources
    e = centrality.edge_betweenness_centrality(A)                         # CSR, one value per arc
    b = centrality.betweenness_centrality(A, client=client)               # on a Dask cluster's workers

Both take what :func:`apsp_kernels.shortest_path` takes (``directed=``, ``unweighted=``, SciPy's
conventions for zeros and inf). They run on the GPU (:mod:`.brandes_gpu`: batched PHAST rows, then
Brandes' accumulation, a warp per source) where the weights are whole numbers of at least 1 (or
``unweighted=True``) on a road-like graph of at least :data:`.brandes_gpu.MIN_N` vertices; otherwise
on the host (numba, every core; :mod:`.brandes`); ``client=`` runs the same on a Dask cluster's
workers (:mod:`.brandes_run`); ``explain=`` says which and why. Definitions (NetworkX's
``betweenness_centrality`` and ``edge_betweenness_centrality``, ``weight`` being the matrix's
weights, or None with ``unweighted=True``):

* Brandes' dependencies summed over every source (or ``k`` sources sampled as NetworkX samples
  them: ``random.Random(seed).sample(range(n), k)``, so a graph whose nodes are ``0..n-1`` gets
  NetworkX's sources for the same seed), then NetworkX's ``_rescale``: ``normalized`` divides by
  the number of (s, t) pairs, an undirected graph's raw values are halved, ``k`` scales up to the
  full sum (sources apart from the others when ``endpoints=False``), ``endpoints`` counts s and t.
* Ties: every shortest path counts, found as NetworkX finds them (Dijkstra's ``d(v) + w == d(w)``
  in float64, in its relaxation order: the CSR order here). With whole-number weights the path
  counts and distances are exact; with other floats, values agree with NetworkX's within 1e-12
  relative (summation order), and two paths whose lengths round apart are two lengths, as in NetworkX.
* Path counts are float64, as NetworkX's: exact below ``2**53``. A graph with more shortest paths
  between two vertices than that (a unit-weight grid of about 30 x 30 already has ``C(60, 30) ~ 1.2e17``)
  gets NetworkX's rounded values and a :class:`PathCountWarning`; a count beyond float64's range
  (about ``1.8e308``: a unit grid of some 515 x 515) would make the values NaN, and raises
  InputError instead (after the run: counts are known only then).

Zero-weight arcs are taken as NetworkX takes them (its Dijkstra's order, whose counts then depend
on the order arcs are relaxed; NetworkX documents weights "greater than zero"). Results are the
same from run to run, bit for bit: for any thread count on the host, any block size on the GPU, and
in this process or on a cluster of any number of workers (:mod:`.brandes_run`'s grid of sources).
"""
from __future__ import annotations

import random
import warnings

import numpy as np
import scipy.sparse as sp

from ..csgraph.auto import Choice
from ..errors import InputError
from ..sssp_hierarchy.layout import host_graph
from .engine import _explain, check_memory
from .measures import _out, _prepared

EXACT_COUNT = 2.0 ** 53
BAR_WORK = 5e7  # sources x (n + m) above which the bar shows by default


class PathCountWarning(UserWarning):
    """Some vertex pair has more shortest paths than float64 counts exactly (2**53)."""


def betweenness_centrality(csgraph, directed=True, unweighted=False, *, k=None, normalized=True, endpoints=False,
                           seed=None, dtype=None, client=None, progress=None, explain=False):
    """NetworkX's ``betweenness_centrality`` of every vertex: a float64 array (CuPy for CuPy
    input). ``k``: the number of sources sampled with ``seed`` (None, an int or a
    ``random.Random``); see the module docstring for the definitions."""
    who = "betweenness_centrality"
    prep, arcs = _host_arcs(csgraph, directed, unweighted, dtype, who)
    n = prep.graph.n
    sources, sampled = _sources(n, k, seed, who, drop_all=True)
    raw = _run(arcs, sources, endpoints, False, progress, explain, who, client).vertices()
    scale = rescale(n, normalized=normalized, directed=directed, endpoints=endpoints, sampled=sampled)
    return _out(_scaled(raw, scale, sampled), prep)


def edge_betweenness_centrality(csgraph, directed=True, unweighted=False, *, k=None, normalized=True, seed=None,
                                dtype=None, client=None, progress=None, explain=False) -> sp.csr_array:
    """NetworkX's ``edge_betweenness_centrality``: a SciPy ``csr_array`` with the graph's
    arcs as its pattern (zeros stored), ``B[u, v]`` the value of arc ``u -> v``; with
    ``directed=False`` the value of the edge ``{u, v}`` (both of its arcs' paths), stored at
    ``B[u, v]`` and ``B[v, u]``. Self loops are dropped as ``shortest_path`` drops them. Host
    arrays for any input (``B.tocoo()`` gives (row, col, data))."""
    who = "edge_betweenness_centrality"
    prep, arcs = _host_arcs(csgraph, directed, unweighted, dtype, who)
    n = prep.graph.n
    indptr, indices, _ = arcs
    sources, sampled = _sources(n, k, seed, who, drop_all=False)
    value = _run(arcs, sources, True, True, progress, explain, who, client).arcs()
    if not directed:  # an edge's paths go either way: the sum of its two arcs' (sorted CSR: keys ascend)
        tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        key = tails * n + indices
        value = value + value[np.searchsorted(key, indices.astype(np.int64) * n + tails)]
    value = value * rescale(n, normalized=normalized, directed=directed, endpoints=True, sampled=sampled)[1]
    return sp.csr_array((value, indices.copy(), indptr.copy()), shape=(n, n))


def _host_arcs(csgraph, directed, unweighted, dtype, who):
    """The prepared input and its CSR on the host: (indptr, indices, float64 weights or None)."""
    prep = _prepared(csgraph, directed, unweighted, dtype, who)
    g = prep.graph
    check_memory(g.n, who)
    a = prep.host_matrix() if prep.rounded else host_graph(g).to_scipy()
    a.sort_indices()
    return prep, (a.indptr, a.indices, None if unweighted else a.data.astype(np.float64))


def _sources(n: int, k, seed, who: str, drop_all: bool):
    """(sources in the order they run, the sampled ones or None): NetworkX's ``seed.sample(list(G), k)``;
    ``k == n`` is every vertex unsampled for the vertex measure, as in NetworkX (``drop_all``)."""
    if k is None or (drop_all and k == n):
        return np.arange(n), None
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
        raise InputError(f"{who}: k must be a whole number of sources from 1 to {n} (the graph's vertices), "
                         f"got {k!r}; pass k=None for every source")
    picked = np.asarray(random_state(seed, who).sample(range(n), int(k)), dtype=np.int64)
    return picked, picked


def random_state(seed, who: str) -> random.Random:
    """NetworkX's ``py_random_state``: None the ``random`` module's own generator, an int a new
    ``random.Random(seed)``, a ``random.Random`` itself."""
    if seed is None:
        return random._inst
    if isinstance(seed, random.Random):
        return seed
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return random.Random(int(seed))
    raise InputError(f"{who}: seed must be None, an int or a random.Random (NetworkX's sampling), "
                     f"got {type(seed).__name__}")


def rescale(n: int, *, normalized: bool, directed: bool, endpoints: bool, sampled=None) -> tuple[float, float]:
    """NetworkX's ``_rescale`` as two factors: (for the sampled sources, for every other vertex);
    they are equal unless ``k`` sources were sampled with ``endpoints=False`` (NaN for the
    sources when ``k == 1``, as NetworkX's)."""
    k = None if sampled is None else len(sampled)
    big_n = n if endpoints else n - 1
    if big_n < 2:
        return 1.0, 1.0
    k_source = big_n if k is None else k
    correction = 1 if directed else 2
    if k is None or endpoints:
        scale = 1 / (k_source * (big_n - 1)) if normalized else big_n / (k_source * correction)
        return scale, scale
    if normalized:
        source = 1 / ((k_source - 1) * (big_n - 1)) if k_source > 1 else np.nan
        return source, 1 / (k_source * (big_n - 1))
    source = big_n / ((k_source - 1) * correction) if k_source > 1 else np.nan
    return source, big_n / (k_source * correction)


def _scaled(raw: np.ndarray, scale: tuple[float, float], sampled) -> np.ndarray:
    out = raw * scale[1] if scale[1] != 1 else raw
    if sampled is not None and scale[0] != scale[1]:
        out[sampled] = raw[sampled] * scale[0]
    return out


def _run(arcs, sources, endpoints: bool, edges: bool, progress, explain, who: str, client=None):
    """The raw accumulation over ``sources`` (:mod:`.brandes_run`; a tqdm bar on long work), checked."""
    from tqdm.auto import tqdm

    from . import brandes_run
    indptr, indices, _ = arcs
    show = progress if progress is not None else len(sources) * (indptr.size + indices.size) > BAR_WORK

    def say(where):
        _explain(explain, Choice(where[0], reason=f"{who} {where[1]}; {len(sources):,} sources on "
                                                  f"{indptr.size - 1:,} vertices and {indices.size:,} arcs"))

    with tqdm(total=len(sources), unit="source", desc=who, disable=not show, smoothing=0.1) as bar:
        if client is None:
            totals = brandes_run.in_process(arcs, sources, endpoints, edges, bar, say)
        else:
            totals = brandes_run.on_cluster(arcs, sources, endpoints, edges, client, bar, say)
    check_counts(totals.largest_path_count, who)
    return totals


def check_counts(largest: float, who: str) -> None:
    """InputError where a path count left float64's range; PathCountWarning above ``2**53``."""
    if not np.isfinite(largest):
        raise InputError(f"{who}: some vertex pair has more shortest paths than float64 holds (about 1.8e308), "
                         f"so the dependencies would be NaN; give the weights fewer ties (e.g. add a small "
                         f"distinct fraction to each) or use a smaller graph")
    if largest >= EXACT_COUNT:
        warnings.warn(f"{who}: some vertex pair has {largest:.3g} shortest paths, beyond the 2**53 that float64 "
                      f"counts exactly; the values are NetworkX's (also float64), rounded", PathCountWarning,
                      stacklevel=3)
