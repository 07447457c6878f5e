"""The centrality notebook (notebooks/centrality.ipynb; issue 46, items 5 and 6): closeness, harmonic
centrality, eccentricity and weighted betweenness of USA-road-d NY and BAY as a user calls them,
checked against NetworkX, beside NetworKit, igraph and NetworkX on the same host.

Per graph (:func:`measure_graph`; each part an experiment of its own, saved as it finishes):

* ``<key>_measures``: ``closeness_centrality``, ``harmonic_centrality`` and ``eccentricity`` each alone
  and the three in a row, from a SciPy CSR matrix (:mod:`apsp_kernels.centrality`) and from a NetworkX
  DiGraph through the backend (``nx.closeness_centrality(G, distance="weight", backend="apsp_kernels")``),
  host clock, the NetworkX conversion included (NetworkX's cache of G emptied before each run, untimed).
  Warm: an untimed call first compiles the kernels and contracts the hierarchy, which later calls in a
  session find kept; the sums that the three share (``centrality.EVERY_SOURCE``) are emptied before each
  timed run, so every run computes its sources. The values are checked against SciPy's rows on sampled
  vertices; their distributions and top vertices go into the records' stats.
* ``<key>_betweenness``: ``betweenness_centrality`` exact (every source) once, after an untimed
  2-source call, with the family that ran (``explain=``); the same function with ``k`` sampled sources
  beside ``nx.betweenness_centrality(G, k=k, seed=seed, weight="weight")`` (the same sources: NetworkX
  samples ``random.Random(seed).sample(list(G), k)``), whose time is NetworkX's betweenness row.
* ``<key>_agreement``: ``nx.closeness_centrality(G, u=v, distance="weight")`` for sampled v against the
  every-source values.
* ``<key>_peers``: NetworKit, igraph and NetworkX (:mod:`.centrality_peers`).

Without a GPU the default and paper profiles skip the every-source runs (SciPy's Dijkstra from each of
NY's 264,346 sources takes hours on the host); the smoke profile runs them on its tiny graphs.
"""
from __future__ import annotations

import json

import numpy as np

from .. import centrality as C
from .. import gpu, report
from ..errors import GPUMemoryError, InputError
from ..records import Record
from ..sampling import seeded_subset
from . import centrality_peers as peers
from .centrality_claims import EVIDENCE  # noqa: F401  (the runner reads each notebook's EVIDENCE here)
from .centrality_inputs import check, inputs, max_relative, record, reference
from .centrality_space import config  # noqa: F401  (the runner and datasets.needs read config here)
from .centrality_space import (AGREEMENT_RTOL, BETWEENNESS, EXACT, MEASURES, NX_BETWEENNESS, NX_CLOSENESS, TRIO,
                               our_method)
from .library import _set_times, time_calls

NO_EVERY_SOURCE = ("no CUDA GPU in this run: every source of this graph on the host (SciPy's Dijkstra, numba's "
                   "Brandes) takes hours; the smoke profile runs the host path on its tiny graphs")
LARGEST_FIRST = {"closeness": True, "harmonic": True, "eccentricity": False, BETWEENNESS: True}


def every_source_runs(cfg: dict) -> bool:
    """Whether the library's every-source runs go ahead here (a GPU, or a profile that allows the host)."""
    return gpu.available() or cfg["every_source_on_host"]


def summary(values, bins: int, top: int, largest_first: bool) -> dict:
    """A histogram (``edges``, ``counts``) and the ``top`` vertices ``[[vertex, value], ...]`` of a measure
    (largest first, or smallest first: the eccentricity's center), ties by vertex id."""
    values = np.asarray(values, dtype=np.float64)
    counts, edges = np.histogram(values[np.isfinite(values)], bins=bins)
    order = np.lexsort((np.arange(values.size), -values if largest_first else values))[:top]
    return {"edges": edges.tolist(), "counts": counts.tolist(),
            "top": [[int(v), float(values[v])] for v in order], "largest_first": largest_first}


# ----------------------------------------------------------------------------- closeness, harmonic, eccentricity
def _calls(one: dict) -> dict:
    """Each measure alone and the three in a row, each returning ``{measure: its result}``."""
    return {**{k: (lambda f=f, k=k: {k: f()}) for k, f in one.items()},
            TRIO: lambda: {k: f() for k, f in one.items()}}


def _scipy_calls(A, explain) -> dict:
    return _calls({"closeness": lambda: C.closeness_centrality(A, explain=explain, progress=False),
                   "harmonic": lambda: C.harmonic_centrality(A, explain=explain, progress=False),
                   "eccentricity": lambda: C.eccentricity(A, explain=explain, progress=False)})


def _networkx_calls(G) -> dict:
    import networkx as nx
    return _calls({"closeness": lambda: nx.closeness_centrality(G, distance="weight", backend="apsp_kernels"),
                   "harmonic": lambda: nx.harmonic_centrality(G, distance="weight", backend="apsp_kernels"),
                   "eccentricity": lambda: nx.eccentricity(G, weight="weight", backend="apsp_kernels")})


def as_arrays(out: dict) -> dict:
    """Per-measure results as float64 arrays by vertex (NetworkX's dicts hold nodes 0..n-1 in order)."""
    return {k: np.fromiter(v.values(), dtype=np.float64, count=len(v)) if isinstance(v, dict) else np.asarray(v)
            for k, v in out.items()}


CALL_TEXT = {"scipy": "apsp_kernels.centrality.{f}(A)", "networkx": "nx.{f}(G, {w}='weight', backend='apsp_kernels')"}
FUNCTIONS = {"closeness": ("closeness_centrality", "distance"), "harmonic": ("harmonic_centrality", "distance"),
             "eccentricity": ("eccentricity", "weight")}


def call_text(source: str, measure: str) -> str:
    names = MEASURES if measure == TRIO else (measure,)
    return "; ".join(CALL_TEXT[source].format(f=FUNCTIONS[m][0], w=FUNCTIONS[m][1]) for m in names)


def distance_measures(case: dict, cfg: dict) -> list[Record]:
    """The three measures alone and in a row, from NetworkX and from SciPy (see the module docstring)."""
    g, A, G = inputs(case["graph"])
    checked = seeded_subset(np.arange(g.n), cfg["check_vertices"], cfg["seed"])
    want = reference(A, checked) if every_source_runs(cfg) else None
    records = []
    for source in ("networkx", "scipy"):
        recs = [record(case, g, "measures", our_method(measure, source), "with_transfers",
                       {"call": call_text(source, measure), "input": source, "measure": measure,
                        "output": "dicts" if source == "networkx" else "numpy float64"}, cfg)
                for measure in (TRIO, *MEASURES)]
        if want is None:
            for rec in recs:
                rec.skipped = NO_EVERY_SOURCE
        else:
            _time_measures(recs, source, (g, A, G), checked, want, cfg)
        records += recs
    return records


def _time_measures(recs: list[Record], source: str, graph, checked, want: dict, cfg: dict) -> None:
    """Time and check each of ``recs`` (the trio, then each measure) from ``source``, after one untimed
    call of the trio on a GPU (compiles and contracts once)."""
    import networkx as nx

    g, A, G = graph
    choices = []
    calls = _scipy_calls(A, choices.append) if source == "scipy" else _networkx_calls(G)
    forget = getattr(G, "__networkx_cache__", {}).clear if source == "networkx" else (lambda: None)

    def before():
        C.EVERY_SOURCE.clear()
        forget()
        choices.clear()
    # NetworkX notes each reuse of its cached conversion of G: the second and third call of the trio do
    with nx.config(warnings_to_ignore=set(nx.config.warnings_to_ignore) | {"cache"}):
        try:
            if gpu.available():
                calls[TRIO]()
            for rec in recs:
                measure = rec.param("measure")
                times, out = time_calls(calls[measure], cfg["repeats"], budget_s=cfg["budget_s"], before=before)
                _set_times(rec, times)
                out = as_arrays(out)
                rec.verified, rec.max_error, rec.verify_scope = check(out, want, checked, g.n)
                stats = {"family": _family(choices), "on_gpu": gpu.available(), "budget_s": cfg["budget_s"]}
                if measure == TRIO and source == "scipy":
                    stats["summary"] = {k: summary(v, cfg["bins"], cfg["top"], LARGEST_FIRST[k])
                                        for k, v in out.items()}
                rec.stats = json.dumps(stats, default=str)
        except (InputError, GPUMemoryError, MemoryError) as exc:
            for rec in recs:
                rec.skipped = rec.skipped or (f"{type(exc).__name__}: {exc}" if rec.repeats == 0 else "")
        finally:
            C.EVERY_SOURCE.clear()
            forget()


def _family(choices) -> str:
    """Where the sources of the last timed run went (``explain=``), '' when the call cannot say (NetworkX)."""
    ran = list(dict.fromkeys(c.family for c in choices if c.family != "cached"))
    return ", ".join(ran)


# ----------------------------------------------------------------------------- betweenness
def betweenness(case: dict, cfg: dict) -> list[Record]:
    """Exact betweenness, once, and the same function on ``k`` sampled sources beside NetworkX's."""
    g, A, G = inputs(case["graph"])
    sampled = _sampled_betweenness(case, cfg)
    exact = record(case, g, "betweenness", EXACT, "with_transfers",
                   {"call": "apsp_kernels.centrality.betweenness_centrality(A)", "normalized": True,
                    "endpoints": False, "output": "numpy float64"}, cfg)
    if not every_source_runs(cfg):
        exact.skipped = NO_EVERY_SOURCE
        return [exact, sampled]
    choices = []
    try:
        C.betweenness_centrality(A, k=min(2, g.n), seed=cfg["seed"], progress=False)  # compiles, untimed
        times, values = time_calls(lambda: C.betweenness_centrality(A, explain=choices.append, progress=False), 1)
    except (InputError, GPUMemoryError, MemoryError) as exc:
        exact.skipped = f"{type(exc).__name__}: {exc}"
        return [exact, sampled]
    _set_times(exact, times)
    exact.verified = bool(sampled.verified and np.isfinite(values).all() and (values >= 0).all())
    exact.max_error = sampled.max_error
    exact.verify_scope = (f"not checked itself (NetworkX's every source takes hours); the same call with "
                          f"{sampled.param('k')} of {g.n} sampled sources equals NetworkX's within "
                          f"{AGREEMENT_RTOL:g} relative: {'yes' if sampled.verified else 'NO'}")
    choice = choices[-1] if choices else None
    exact.stats = json.dumps({"family": getattr(choice, "family", ""), "reason": getattr(choice, "reason", ""),
                              "on_gpu": gpu.available(), "sum": float(values.sum()),
                              "summary": summary(values, cfg["bins"], cfg["top"], True)}, default=str)
    return [exact, sampled]


def _sampled_betweenness(case: dict, cfg: dict) -> Record:
    """NetworkX's betweenness on ``k`` sampled sources (timed: its row, extrapolated to every source)
    against ours on the same sources: max relative difference over every vertex."""
    import networkx as nx

    g, A, G = inputs(case["graph"])
    k, seed = min(cfg["networkx_k"], g.n), cfg["seed"]
    rec = record(case, g, "betweenness", NX_BETWEENNESS, "cpu",
                 {"call": f"nx.betweenness_centrality(G, k={k}, seed={seed}, weight='weight')", "k": k, "seed": seed,
                  "measure": BETWEENNESS, "ours": f"apsp_kernels.centrality.betweenness_centrality(A, k={k}, "
                                                  f"seed={seed})"}, cfg)
    times, theirs = time_calls(lambda: nx.betweenness_centrality(G, k=k, seed=seed, weight="weight",
                                                                backend="networkx"), 1)
    _set_times(rec, times, g.n / k, f"timed on the {k} sources NetworkX samples with seed {seed}; "
                                    f"time x {g.n / k:.2f} (= {g.n} / {k})" if k < g.n else "")
    rec.stats = json.dumps({"timed_sources": k, "threads": 1, "version": nx.__version__})
    try:
        ours = C.betweenness_centrality(A, k=k, seed=seed, progress=False)
    except (InputError, GPUMemoryError, MemoryError) as exc:
        rec.verify_scope = f"not checked: ours on the same {k} sources failed ({type(exc).__name__}: {exc})"
        return rec
    err = max_relative(ours, np.fromiter(theirs.values(), dtype=np.float64, count=g.n))
    rec.verified, rec.max_error = err <= AGREEMENT_RTOL, err
    rec.verify_scope = f"every vertex vs apsp_kernels on the same {k} sources, relative {AGREEMENT_RTOL:g}"
    return rec


# ----------------------------------------------------------------------------- agreement
def agreement(case: dict, cfg: dict) -> list[Record]:
    """``nx.closeness_centrality(G, u=v)`` for sampled v against our every-source values (or, where those
    do not run here, ``closeness_centrality(A, indices=...)``: one search per vertex)."""
    import networkx as nx

    g, A, G = inputs(case["graph"])
    vertices = seeded_subset(np.arange(g.n), cfg["networkx_vertices"], cfg["seed"] + 1)
    if every_source_runs(cfg):
        ours, whose = C.closeness_centrality(A, progress=False)[vertices], "the every-source run"
    else:
        ours, whose = C.closeness_centrality(A, indices=vertices), "closeness_centrality(A, indices=...) (no GPU)"
    rec = record(case, g, "agreement", NX_CLOSENESS, "cpu",
                 {"call": "nx.closeness_centrality(G, u=v, distance='weight')", "vertices": len(vertices),
                  "ours": whose, "measure": "closeness"}, cfg)
    times, theirs = [], []
    for v in vertices:
        t, value = time_calls(lambda v=int(v): nx.closeness_centrality(G, u=v, distance="weight",
                                                                      backend="networkx"), 1)
        times += t
        theirs.append(value)
    _set_times(rec, times)
    err = max_relative(ours, theirs)
    rec.verified, rec.max_error = err <= AGREEMENT_RTOL, err
    rec.verify_scope = f"{len(vertices)} sampled of {g.n} vertices vs {whose}, relative {AGREEMENT_RTOL:g}"
    rec.stats = json.dumps({"vertices": vertices.tolist(), "threads": 1, "version": nx.__version__})
    return [rec]


# ----------------------------------------------------------------------------- one graph
def measure_graph(out_dir, case: dict, cfg: dict) -> dict[str, list[Record]]:
    """Every experiment of one graph, each saved (and, under ``reproduce --resume``, reused) on its own."""
    key = case["key"]
    got = {"measures": report.measure(out_dir, f"{key}_measures", distance_measures, case, cfg),
           "betweenness": report.measure(out_dir, f"{key}_betweenness", betweenness, case, cfg),
           "agreement": report.measure(out_dir, f"{key}_agreement", agreement, case, cfg)}
    got["peers"] = report.measure(out_dir, f"{key}_peers", peers.measure, case, cfg, got["betweenness"])
    return got
