"""The centrality notebook's peers on the same host (:mod:`apsp_kernels.experiments.centrality`).

Each peer runs on a seeded sample of sources and its time is scaled to every source (the record says
``extrapolated`` and how; a sample as large as the graph is measured in full):

* distances, the work under closeness, harmonic centrality and eccentricity (one shortest-path tree per
  source serves all three; each of NetworkX's and igraph's own functions runs its own, so their three calls
  take up to three times this): NetworKit's ``distance.SPSP`` on every host core
  (``nk.setNumberOfThreads(os.cpu_count())``), igraph's ``closeness(vertices=..., mode="in")`` (one Dijkstra
  per vertex, one core), NetworkX's ``single_source_dijkstra_path_length`` (one core);
* betweenness: NetworKit's ``centrality.EstimateBetweenness`` (weighted, sampled sources, every core;
  Sanders, Geisberger and Schultes' estimator), igraph's ``betweenness(weights=..., sources=...)`` (the
  exact dependencies of the sampled sources, one core). NetworkX's betweenness row is timed beside ours in
  the notebook's betweenness experiment.

Every answer is checked: distances on sampled rows against SciPy's (exact), igraph's closeness and
betweenness against ours on the same vertices and sources, NetworKit's estimate by its total against the
exact total of our every-source run (its sources are random, so per vertex it is an estimate). A peer that is
not installed gives skipped records that say so (``pip install '.[cpu-baselines]'``).
"""
from __future__ import annotations

import json
import os
import random

import numpy as np
from scipy.sparse import csgraph

from .. import centrality as C
from ..centrality.betweenness import rescale
from ..records import Record
from ..sampling import scaled_sample
from .centrality_inputs import inputs, max_relative, record, reference
from .centrality_space import BETWEENNESS, ESTIMATE_TOTAL_RTOL, EXACT
from .library import _set_times, time_calls

DISTANCES = "distances"  # a peer row's measure: every source's shortest-path distances
PEER_RTOL = 1e-9  # a peer's values against ours (their summation orders differ from NetworkX's)
CHECKED_ROWS = 4  # distance rows checked against SciPy per peer
METHODS = {("networkit", DISTANCES): "networkit SPSP", ("networkit", BETWEENNESS): "networkit EstimateBetweenness",
           ("igraph", DISTANCES): "igraph closeness", ("igraph", BETWEENNESS): "igraph betweenness",
           ("networkx", DISTANCES): "networkx single_source_dijkstra_path_length"}
INSTALL = "pip install '.[cpu-baselines]'"


def measure(case: dict, cfg: dict, betweenness_records=()) -> list[Record]:
    """Every peer's rows for one graph; ``betweenness_records``: the notebook's betweenness experiment,
    whose exact total checks NetworKit's estimate."""
    exact = next((r for r in betweenness_records if r.method == EXACT and not r.skipped), None)
    exact_sum = exact.stat("sum") if exact is not None else None
    return [*networkit_rows(case, cfg, exact_sum), *igraph_rows(case, cfg), networkx_row(case, cfg)]


def _rec(case, g, peer: str, what: str, call: str, sources: int, cfg: dict) -> Record:
    return record(case, g, "peers", METHODS[peer, what], "cpu",
                  {"peer": peer, "measure": what, "call": call, "sources": sources}, cfg)


def _sample(n: int, size: int, seed: int):
    return scaled_sample(np.arange(n), size, seed)


def _skipped(recs: list[Record], why: str) -> list[Record]:
    for rec in recs:
        rec.skipped = why
    return recs


def _check_rows(rec: Record, rows, A, sources) -> None:
    """``rows`` (distances from ``sources``; a value beyond 1e300 is unreachable) against SciPy's, exact."""
    got = np.where(np.asarray(rows, dtype=np.float64) >= 1e300, np.inf, rows)
    want = np.atleast_2d(csgraph.dijkstra(A, directed=True, indices=sources))
    rec.max_error = max_relative(got, want)
    rec.verified = bool(rec.max_error == 0)
    rec.verify_scope = f"{len(sources)} of its {rec.param('sources')} sources' rows vs SciPy, exact"


# ----------------------------------------------------------------------------- NetworKit
def networkit_rows(case: dict, cfg: dict, exact_sum: float | None) -> list[Record]:
    g, A, _ = inputs(case["graph"])
    k = min(cfg["peer_sources"]["networkit"], g.n)
    recs = [_rec(case, g, "networkit", DISTANCES, "nk.distance.SPSP(G, sources).run()", k, cfg),
            _rec(case, g, "networkit", BETWEENNESS,
                 f"nk.centrality.EstimateBetweenness(G, {k}, normalized=True, parallel=True).run()", k, cfg)]
    try:
        import networkit as nk
    except ImportError:
        return _skipped(recs, f"NetworKit is not installed here ({INSTALL})")
    nk.setNumberOfThreads(os.cpu_count())
    coo = A.tocoo()
    G = nk.GraphFromCoo((coo.data.astype(np.float64), (coo.row, coo.col)), n=g.n, weighted=True, directed=True)
    stats = {"threads": nk.getMaxNumberOfThreads(), "version": nk.__version__, "timed_sources": k}
    sources, scale, how = _sample(g.n, k, cfg["seed"])
    chunks = [sources[lo:lo + cfg["networkit_chunk"]] for lo in range(0, len(sources), cfg["networkit_chunk"])]

    def spsp():
        first = None
        for part in chunks:  # k x n float64 per call: in parts, the first kept for the check
            run = nk.distance.SPSP(G, part.tolist())
            run.run()
            first = run if first is None else first
        return first
    times, first = time_calls(spsp, 1)
    _set_times(recs[0], times, scale, how)
    _check_rows(recs[0], np.asarray(first.getDistances(asarray=True))[:CHECKED_ROWS], A, chunks[0][:CHECKED_ROWS])
    del first

    def estimate():
        run = nk.centrality.EstimateBetweenness(G, k, True, True)
        run.run()
        return np.asarray(run.scores())
    times, scores = time_calls(estimate, 1)
    _set_times(recs[1], times, g.n / k, f"{k} sampled sources (NetworKit draws them); time x {g.n / k:.2f} "
                                        f"(= {g.n} / {k})" if k < g.n else "")
    _check_estimate(recs[1], scores, exact_sum)
    for rec in recs:
        rec.stats = json.dumps(stats)
    return recs


def _check_estimate(rec: Record, scores, exact_sum: float | None) -> None:
    """NetworKit's estimate (normalized as NetworkX's, 1 / ((n-1)(n-2)) on a digraph) by its total."""
    if exact_sum is None or not exact_sum > 0:
        rec.verify_scope = "not checked: no exact betweenness in this run to compare its total with"
        return
    ratio = float(np.sum(scores)) / exact_sum
    rec.verified, rec.max_error = abs(ratio - 1) <= ESTIMATE_TOTAL_RTOL, abs(ratio - 1)
    rec.verify_scope = (f"its total is {ratio:.4f} of the exact total (within {ESTIMATE_TOTAL_RTOL:.0%} passes); "
                        f"random sources: per vertex an estimate")


# ----------------------------------------------------------------------------- igraph
def igraph_rows(case: dict, cfg: dict) -> list[Record]:
    g, A, _ = inputs(case["graph"])
    k = min(cfg["peer_sources"]["igraph"], g.n)
    recs = [_rec(case, g, "igraph", DISTANCES, "g.closeness(vertices=..., mode='in', weights='weight')", k, cfg),
            _rec(case, g, "igraph", BETWEENNESS, "g.betweenness(weights='weight', sources=...)", k, cfg)]
    try:
        import igraph as ig
    except ImportError:
        return _skipped(recs, f"igraph is not installed here ({INSTALL})")
    coo = A.tocoo()
    G = ig.Graph(n=g.n, edges=np.column_stack([coo.row, coo.col]).tolist(), directed=True)
    G.es["weight"] = coo.data.astype(np.float64).tolist()
    stats = json.dumps({"threads": 1, "version": ig.__version__, "timed_sources": k})

    vertices, scale, how = _sample(g.n, k, cfg["seed"])
    times, values = time_calls(lambda: G.closeness(vertices=vertices.tolist(), mode="in", weights="weight"), 1)
    _set_times(recs[0], times, scale, how)
    checked = vertices[:CHECKED_ROWS]
    recs[0].max_error = max_relative(np.asarray(values)[:CHECKED_ROWS], reference(A, checked)["closeness"])
    recs[0].verified = recs[0].max_error <= PEER_RTOL
    recs[0].verify_scope = (f"closeness of {len(checked)} of its {k} vertices vs SciPy's rows, relative "
                            f"{PEER_RTOL:g} (igraph's closeness is NetworkX's on a strongly connected graph)")

    sources = random.Random(cfg["seed"]).sample(range(g.n), k)  # NetworkX's sample, so ours runs the same
    times, values = time_calls(lambda: G.betweenness(weights="weight", sources=sources), 1)
    _set_times(recs[1], times, g.n / k, f"{k} sources sampled as NetworkX samples them (seed {cfg['seed']}); "
                                        f"time x {g.n / k:.2f} (= {g.n} / {k})" if k < g.n else "")
    recs[1].max_error = max_relative(values, raw_betweenness(A, k, cfg["seed"]))
    recs[1].verified = recs[1].max_error <= PEER_RTOL
    recs[1].verify_scope = f"every vertex vs apsp_kernels on the same {k} sources, relative {PEER_RTOL:g}"
    for rec in recs:
        rec.stats = stats
    return recs


def raw_betweenness(A, k: int, seed: int) -> np.ndarray:
    """Our betweenness of ``k`` sources sampled with ``seed``, as sums of dependencies (NetworkX's rescaling
    undone: igraph's ``sources=`` gives the sums)."""
    n = A.shape[0]
    values = C.betweenness_centrality(A, k=k, seed=seed, normalized=False, progress=False)
    sampled = np.asarray(random.Random(seed).sample(range(n), k)) if k < n else None
    to_sources, to_others = rescale(n, normalized=False, directed=True, endpoints=False, sampled=sampled)
    raw = values / to_others
    if sampled is not None:
        raw[sampled] = values[sampled] / to_sources
    return raw


# ----------------------------------------------------------------------------- NetworkX
def networkx_row(case: dict, cfg: dict) -> Record:
    import networkx as nx

    g, A, G = inputs(case["graph"])
    k = min(cfg["peer_sources"]["networkx"], g.n)
    rec = _rec(case, g, "networkx", DISTANCES, "nx.single_source_dijkstra_path_length(G, s, weight='weight')", k,
               cfg)
    sources, scale, how = _sample(g.n, k, cfg["seed"])
    times, out = time_calls(lambda: [nx.single_source_dijkstra_path_length(G, int(s), weight="weight",
                                                                           backend="networkx") for s in sources], 1)
    _set_times(rec, times, scale, how)
    rows = np.full((min(k, CHECKED_ROWS), g.n), np.inf)
    for row, lengths in zip(rows, out):
        row[list(lengths)] = list(lengths.values())
    _check_rows(rec, rows, A, sources[:len(rows)])
    rec.stats = json.dumps({"threads": 1, "version": nx.__version__, "timed_sources": k})
    return rec
