"""Cross-paper comparison (notebooks/cross_paper.ipynb): the five papers' best methods on the same inputs.

* APSP: every paper's all-pairs method, and every method of the group ``fast``, on one family
  of graphs (random 4-out-regular digraphs, integer weights 1..100; float32 copies of the same
  weights for the float32 kernels of takafuji), n = 1024 .. 32768, time vs n and the effective
  (min,+) rate n^3 / time. A run predicted above the per-run cap from the method's smaller
  sizes (n^3, or n x m for SSSP-based methods) is recorded as skipped with the prediction.
* SSSP: the iterative single-source methods (and the fast ones) on the DIMACS NY and BAY road
  graphs (source 0).

The decision table of ``shortest_path(method="auto")`` is written by the method map
(:mod:`apsp_kernels.experiments.method_map`), which measures every method over n, density
and topology.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import datasets, generators, registry, report
from ..graph import Graph
from ..profiles import choose
from ..records import Record
from . import method_map as mm

APSP_METHODS = (  # (paper, method, params); the group ``fast`` joins in full (fast_methods)
    ("bodra", "fw_tiled_shared", {}),
    ("takafuji", "single", {}),
    ("takafuji", "multi", {}),
    ("pandey", "rkleene", {}),
    ("pandey", "fw_parallel", {}),
    ("okuyama", "task_parallel_shared_tuned", {}),
)
SSSP_METHODS = (
    ("bodra", "bf_stride_flag", {"mode": "early_exit"}),
    ("okuyama", "task_parallel_shared_tuned", {}),
    ("okuyama", "harish", {}),
    ("liu", "sssp_spmv", {}),
    ("okuyama", "dijkstra_scipy", {}),
)
FLOAT32_PAPERS = ("takafuji",)


def config(profile: str) -> dict:
    return {
        "profile": profile,
        "sizes": choose(profile, smoke=(64, 128), default=(1024, 2048, 4096, 8192, 16384, 32768)),
        "roads": choose(profile, smoke=(), default=("NY", "BAY")),
        "repeats": choose(profile, smoke=1, default=3, paper=5),
        "cap_s": choose(profile, smoke=1.0, default=3.0, paper=10.0),  # predicted time per repetition
        "long_run_s": 0.2,  # runs predicted above this are repeated once
    }


def fast_methods(single_source: bool = False) -> list[tuple]:
    """The group ``fast`` (whatever it holds now): its GPU methods, or only those that take
    sources (``single_source``: the road SSSP). A method with a per-graph host preprocessing
    (PHAST's contraction) runs on the roads only."""
    wanted = (lambda m: m.gpu and mm.per_source(m)) if single_source else (lambda m: m.on_generated_graphs)
    return [("fast", m.name, {}) for m in registry.methods("fast") if wanted(m)]


def _graph_for(paper: str, g_int: Graph) -> Graph:
    if paper not in FLOAT32_PAPERS:
        return g_int
    return Graph(g_int.n, g_int.indptr, g_int.indices, g_int.weights.astype(np.float32),
                 name=g_int.name + "-f32", meta=dict(g_int.meta))


def _method(paper, name):
    try:
        return registry.get(paper, name)
    except KeyError as exc:
        return str(exc)


def _skipped(paper, name, graph, experiment, why, profile) -> Record:
    return Record(paper=paper, experiment=experiment, method=name, graph=graph.name, n=graph.n,
                  m=graph.m, skipped=why, profile=profile)


def plan(method, history: list, g: Graph, cfg) -> mm.Plan:
    """All n sources; skipped when the prediction from smaller sizes exceeds the cap."""
    per_src = mm.per_source(method)
    pred = mm.predict_ms(history, per_src, g.n, g.m, g.n)
    out = mm.Plan(k=g.n, predicted_ms=pred, sources=np.arange(g.n) if per_src else None)
    if pred is not None and pred > 1e3 * cfg["cap_s"]:
        out.skip = f"predicted {pred / 1e3:.3g} s per run > cap {cfg['cap_s']:g} s"
    out.repeats = cfg["repeats"] if pred is None or pred < 1e3 * cfg["long_run_s"] else 1
    return out


def apsp_sweep(cfg) -> list[Record]:
    """Each paper's APSP method and the fast ones on random 4-out-regular digraphs of the
    configured sizes, smallest first (the smaller sizes predict the larger ones)."""
    recs, history, failed = [], {}, {}
    methods = list(APSP_METHODS) + fast_methods()
    jobs = [(n, m) for n in cfg["sizes"] for m in methods]
    graphs = {}
    for n, (paper, name, params) in report.progress(jobs, desc="APSP across papers"):
        if n not in graphs:
            graphs = {n: generators.k_regular_digraph(n, 4, seed=0, w_low=1, w_high=101,
                                                      dtype=np.int32, name=f"4-regular-{n}")}
        g = graphs[n]
        method = _method(paper, name)
        if isinstance(method, str):
            recs.append(_skipped(paper, name, g, "apsp", method, cfg["profile"]))
            continue
        if method.key in failed:
            recs.append(_skipped(paper, name, g, "apsp", failed[method.key], cfg["profile"]))
            continue
        gp = _graph_for(paper, g)
        p = plan(method, history.get(method.key, []), gp, cfg)
        rec = mm.run_planned(method, "apsp", gp, p, cfg, {"series": "4-regular"}, params=params)
        recs.append(rec)
        if np.isfinite(rec.time_ms_median):
            history.setdefault(method.key, []).append(mm.Point(gp.n, gp.m, gp.n, rec.time_ms_median))
        elif mm.ends_series(rec):
            failed[method.key] = f"skipped after n={n}: {rec.skipped}"
    return recs


def save_apsp(recs: list[Record], output_dir, device: str) -> pd.DataFrame:
    """The APSP sweep's table and figure (verified runs only) in ``output_dir``; ``device`` titles
    the figure. Returns the table."""
    import matplotlib.pyplot as plt

    table = report.save_table(summary(recs), output_dir, "apsp",
                              title="APSP on random 4-out-regular digraphs: time (ms) per method and n",
                              note="Kernel time (CUDA events), median of repeats; effective_Tops = n^3 / time. "
                                   "The figure shows the verified runs.")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    shown = table[table["verified"].astype(bool)].dropna(subset=["time_ms"]) if len(table) else table
    for (paper, method), grp in (shown.groupby(["paper", "method"]) if len(shown) else []):
        ax.plot(grp["n"], grp["time_ms"], marker="o", label=f"{paper}: {method}")
    ax.set(xscale="log", yscale="log", xlabel="vertices n", ylabel="time (ms)",
           title=f"APSP across papers — {device}")
    ax.grid(True, which="both", alpha=0.3)
    if ax.lines:
        ax.legend(fontsize=8)
    report.savefig(fig, output_dir, "apsp_time")
    return table


def sssp_road(cfg) -> list[Record]:
    """The iterative SSSP methods (and the fast ones) from vertex 0 of each road graph."""
    recs = []
    methods = list(SSSP_METHODS) + fast_methods(single_source=True)
    for road in cfg["roads"]:
        g = datasets.load_or_stand_in(road)
        one = mm.Plan(k=1, sources=np.zeros(1, dtype=np.int32), repeats=cfg["repeats"])
        for paper, name, params in report.progress(methods, desc=f"SSSP on {g.name}"):
            method = _method(paper, name)
            if isinstance(method, str):
                recs.append(_skipped(paper, name, g, "sssp", method, cfg["profile"]))
                continue
            recs.append(mm.run_planned(method, "sssp", g, one, cfg, {"series": g.name},
                                       params=params))
    return recs


def summary(recs: list[Record]) -> pd.DataFrame:
    """One row per (method, n): time, verified, and the effective (min,+) rate for APSP."""
    df = pd.DataFrame([{
        "paper": r.paper, "method": r.method, "graph": r.graph, "n": r.n, "m": r.m,
        "time_ms": r.time_ms_median, "verified": r.verified, "scope": r.timing_scope,
        "skipped": r.skipped, "label": report.label(r).strip(" ()"),
    } for r in recs])
    if not df.empty and (df["graph"].str.startswith("4-regular")).any():
        df["effective_Tops"] = df["n"].astype(float) ** 3 / (df["time_ms"] * 1e-3) / 1e12
    return df
