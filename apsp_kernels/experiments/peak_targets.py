"""The fast paths' targets, each measured in this run against this run's limits or peers.

Goals (issue [peak]; those in seconds were set for an H100 and are judged only there,
:func:`apsp_kernels.report.timed_goal`): dense int32 APSP at n = 8192 in <= 33 ms and at n = 32768 in
<= 2.0 s; the (min,+) product alone >= 85 % of the int32 (min,+) peak at n >= 4096; float32
R-Kleene >= 75 % of the float32 peak at n = 16384; SSSP from vertex 0 of USA-road-d NY in <= 3 ms
and BAY in <= 4 ms; sparse APSP on okuyama's random 4677-vertex / 16K-arc graph (Table 1) >= 100x
rustworkx over all host cores. The dense and road rows come from the cross-paper sweeps; the
peaks, the float32 run and the sparse APSP are measured by :func:`measure`.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .. import generators, registry, report, timing
from ..graph import Graph
from ..records import Record
from . import okuyama

SPARSE_METHODS = (("fast", "multi_source"), ("okuyama", "task_parallel_shared_tuned"),
                  ("okuyama", "dijkstra_rustworkx"))
FLOAT32_N = 16384


def measure(cfg: dict) -> tuple[dict, list[Record]]:
    """Peaks and the product alone (CUDA events), float32 fast R-Kleene at n = 16384, and the
    sparse APSP methods on okuyama's random graph; every APSP verified by the oracle."""
    from .method_map import dense_ceilings

    peaks = dense_ceilings()
    recs = []
    g = generators.k_regular_digraph(FLOAT32_N, 4, seed=0, w_low=1, w_high=101, dtype=np.int32)
    g32 = Graph(g.n, g.indptr, g.indices, g.weights.astype(np.float32), name=f"4-regular-{FLOAT32_N}-f32",
                meta=dict(g.meta))  # integer weights: float32 sums stay exact
    recs.append(timing.run(registry.get("fast", "rkleene"), g32, experiment="targets", repeats=1,
                           profile=cfg["profile"]))
    sparse = okuyama.graph("random", 4677, 16384, 4096, 0)
    for paper, name in SPARSE_METHODS:
        recs.append(timing.run(registry.get(paper, name), sparse, experiment="targets",
                               repeats=cfg["repeats"], warmup=1, profile=cfg["profile"]))
    return peaks, recs


def _find(recs, method: str, graph_prefix: str) -> Record | None:
    hits = [r for r in recs if f"{r.paper}:{r.method}" == method and r.graph.startswith(graph_prefix)
            and np.isfinite(r.time_ms_median) and r.verified]
    return hits[0] if hits else None


def _relaxations(rec: Record) -> str:
    stats = json.loads(rec.stats or "{}")
    if "relaxations" not in stats or "work_vs_dijkstra" not in stats:
        return ""
    per_arc = f", {stats['relaxations'] / rec.m:.1f} per arc" if rec.m else ""
    return f"; {stats['relaxations']:,} relaxations ({stats['work_vs_dijkstra']:.2f} x m log2 n{per_arc})"


def _hierarchy(rec: Record) -> str:
    """PHAST's hierarchy: its levels, shortcuts and the one-off contraction, which is not timed."""
    stats = json.loads(rec.stats or "{}")
    if "levels" not in stats:
        return ""
    compiled = (f"; numba compiled it first, once per process, in {stats['compile_s']:.1f} s"
                if stats.get("compile_s", 0) >= 0.05 else "")
    return (f"; {stats['levels']} levels, {stats.get('shortcuts', 0):,} shortcuts; the contraction "
            f"({stats.get('preprocessing_s', 0):.1f} s on the host, once per graph{compiled}) is not in the time")


def _chain(rec: Record, hops: int | None, goal_ms: float) -> str:
    """The time per relaxation on the longest chain of dependent ones, now and for the goal."""
    if not hops:
        return ""
    return (f"; shortest paths up to {hops:,} arcs long: {1e3 * rec.time_ms_median / hops:.2f} us per arc "
            f"in sequence, {1e3 * goal_ms / hops:.2f} us for the goal")


def road_depths(roads) -> dict:
    """Each road graph's longest chain of dependent relaxations from vertex 0
    (:func:`apsp_kernels.oracle.fewest_arcs`), on the host."""
    from .. import datasets, oracle

    return {road: int(oracle.fewest_arcs(datasets.load_or_stand_in(road), 0).max()) for road in roads}


def table(apsp: list[Record], sssp: list[Record], peaks: dict, extra: list[Record],
          depths: dict | None = None) -> pd.DataFrame:
    """One row per target: goal, measured (verified runs only), its ratio to the limit or the peer
    measured in this run, and whether it is met. ``depths``: road -> the longest chain of
    dependent relaxations (:func:`road_depths`), which bounds an SSSP's time by its latency."""
    depths = depths or {}
    rows = []

    def row(target, goal, measured, versus, ratio, met, note=""):
        rows.append({"target": target, "goal": goal, "measured": measured, "versus": versus,
                     "ratio": ratio, "met": met, "note": note})

    def timed_row(target, goal_ms, r, measured, versus, ratio, note):
        met, why = report.timed_goal(r.time_ms_median <= goal_ms, r.device)
        row(target, f"<= {goal_ms:g} ms", measured, versus, ratio, met, "; ".join(filter(None, (note, why))))

    p32, pf = peaks.get("minplus_int32_per_s", np.nan), peaks.get("minplus_float32_per_s", np.nan)
    best_product = peaks.get("product_per_s", np.nan)
    row("(min,+) product alone, int32, n >= 4096", ">= 85 % of the int32 (min,+) peak",
        f"{best_product / 1e12:.2f} T/s", f"peak {p32 / 1e12:.2f} T/s", best_product / p32,
        best_product / p32 >= 0.85)
    for n, goal_ms in ((8192, 33.0), (32768, 2000.0)):
        r = _find(apsp, "fast:rkleene", f"4-regular-{n}")
        if r is None:
            row(f"dense APSP int32, n = {n}", f"<= {goal_ms:g} ms", "not measured", "", np.nan, False,
                "no verified fast:rkleene run of this size in the sweep")
            continue
        rate = n ** 3 / (r.time_ms_median * 1e-3)
        timed_row(f"dense APSP int32, n = {n}", goal_ms, r, f"{r.time_ms_median:.1f} ms",
                  f"peak {p32 / 1e12:.2f} T/s", rate / p32, f"{rate / 1e12:.2f} T (min,+)/s counted as n^3")
    r = _find(extra, "fast:rkleene", f"4-regular-{FLOAT32_N}-f32")
    if r is not None:
        rate = FLOAT32_N ** 3 / (r.time_ms_median * 1e-3)
        row(f"dense APSP float32, n = {FLOAT32_N}", ">= 75 % of the float32 (min,+) peak",
            f"{r.time_ms_median:.1f} ms ({rate / 1e12:.2f} T/s)", f"peak {pf / 1e12:.2f} T/s", rate / pf,
            rate / pf >= 0.75)
    for road, goal_ms in (("NY", 3.0), ("BAY", 4.0)):
        r, peer = _find(sssp, "fast:sssp_worklist", road), _find(sssp, "liu:sssp_spmv", road)
        if r is None:
            row(f"SSSP from vertex 0 of {road}", f"<= {goal_ms:g} ms", "not measured", "", np.nan, False)
            continue
        timed_row(f"SSSP from vertex 0 of {road}", goal_ms, r, f"{r.time_ms_median:.2f} ms",
                  f"liu:sssp_spmv {peer.time_ms_median:.2f} ms" if peer else "",
                  peer.time_ms_median / r.time_ms_median if peer else np.nan,
                  "fast:sssp_worklist" + _relaxations(r) + _chain(r, depths.get(road), goal_ms))
        ph = _find(sssp, "fast:sssp_phast", road)
        if ph is not None:
            timed_row(f"SSSP from vertex 0 of {road}, PHAST", goal_ms, ph, f"{ph.time_ms_median:.2f} ms",
                      f"fast:sssp_worklist {r.time_ms_median:.2f} ms", r.time_ms_median / ph.time_ms_median,
                      "fast:sssp_phast" + _hierarchy(ph))
    fast, cpu = _find(extra, "fast:multi_source", "random"), _find(extra, "okuyama:dijkstra_rustworkx", "random")
    paper = _find(extra, "okuyama:task_parallel_shared_tuned", "random")
    if fast is not None and cpu is not None:
        ratio = cpu.time_ms_median / fast.time_ms_median
        row("sparse APSP, okuyama random 4677 / 16K", ">= 100x rustworkx on all host cores",
            f"{fast.time_ms_median:.2f} ms", f"rustworkx {cpu.time_ms_median:.1f} ms", ratio, ratio >= 100,
            "fast:multi_source" + (f"; okuyama:task_parallel_shared_tuned {paper.time_ms_median:.2f} ms"
                                   if paper else ""))
    return pd.DataFrame(rows)
