"""okuyama experiment drivers: Fig. 10-14, Table 1, the memory limits and the N sweep.

Every timed number comes from :func:`apsp_kernels.timing.run`. Where all |V| sources
would take too long, a seeded sample of sources is timed and the time is scaled by
|V| / sampled (``extrapolated`` in the records, with the reason). All methods on one
graph use prefixes of the same seeded source order, so the oracle's rows are shared
(the oracle caches the rows of the latest graph).

Verification: every timed run is checked against the oracle, on all its rows when
|V| <= ``full_verify_max_n`` (5000), else on a prefix of rows whose size keeps the oracle
(SciPy) cheap; records say which in ``verify_scope``.

This module holds the sampling plan and the sweeps; the tables and figures
are in :mod:`.okuyama_tables`, the verdicts, ``QUOTED`` and ``EVIDENCE`` in
:mod:`.okuyama_claims`, the configuration, methods, labels and graphs in :mod:`.okuyama_space` (all
re-exported here).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import gpu, registry, timing
from ..records import Record
from ..report import progress
from ..saved_runs import SavedRuns
from ..sssp_iterative.harish import paper_memory_words as harish_words
from ..task_parallel.sssp_groups import group_layout, paper_memory_words as proposed_words
from .okuyama_claims import (EVIDENCE, FIG14_NOTE, QUOTED, RANDOM_NOTE, fig12_verdict,  # noqa: F401
                             fig13_verdicts, fig14_verdict, goal_verdict, memory_note, memory_verdict,
                             path_verdict, published_claim, ratio_summaries, ratio_verdicts, table1_verdicts,
                             verdict_corrections)
from .okuyama_space import (COLORS, CPU_METHODS, GPU_METHODS, LABELS, PAPER, STAND_INS,  # noqa: F401
                            TABLE1_TOPOLOGIES, config, graph, source_order)
from .okuyama_tables import (best_gpu_vs_cpu, fig11_speedups, fig14_overhead, fmt_range, frame,  # noqa: F401
                             iterations, monotone, n_sweep_table, plot_methods, ratio_summary, ratios,
                             sweep_table, table1_compare, time_table, topology_of)


# ------------------------------------------------------------------ sampling and runs
def method_params(name: str, cfg: dict, extra: dict | None = None) -> dict:
    params = {"check_every": cfg["check_every"]} if name in GPU_METHODS or "paths" in name else {}
    params.update(extra or {})
    return params


def group_size(name: str, n: int, params: dict) -> int:
    """Sources per group of a task-parallel method on a graph of n vertices."""
    fixed = dict(registry.get(PAPER, name).params)
    fixed.update(params)
    return group_layout(fixed.get("N", 32), fixed.get("B", 4), n, n)["N"]


def sample_plan(name: str, n: int, m: int, cfg: dict, params: dict,
                sample: dict | None = None, verify_limit: int | None = None) -> dict:
    """Sources to time, the scale factor and the rows to verify for one run.

    ``sample`` overrides per topology: ``harish`` (sources), ``tp_groups``, ``cpu`` and
    ``scipy`` (sources). Sampled sources and sampled verified rows are prefixes of one
    seeded order, so every method on a graph is checked on the same oracle rows.
    """
    sample = sample or {}
    count = n
    if name == "harish":
        if "harish" in sample:
            count = sample["harish"]
        elif n > cfg["harish_full_max_n"]:
            count = cfg["harish_sources"]
    elif name.startswith("task_parallel"):
        N = group_size(name, n, params)
        if "tp_groups" in sample:
            count = sample["tp_groups"] * N
        elif n > cfg["full_sources_max_n"]:
            count = cfg["tp_groups"] * N
    elif name == "dijkstra_cpu":
        if "cpu" in sample:
            count = sample["cpu"]
        elif n > cfg["full_sources_max_n"]:
            count = cfg["cpu_sources"]
    elif name == "dijkstra_scipy":
        count = sample.get("scipy", min(cfg["scipy_sources"],
                                        max(2, cfg["scipy_work"] // (n + m))))
    count = int(min(max(count, 1), n))
    order = source_order(n, cfg["seed"])
    sources = None if count == n else np.sort(order[:count])
    full = (n <= cfg["full_verify_max_n"] and count * (n + m) <= cfg["full_verify_work"]
            and name != "dijkstra_rustworkx" and "paths" not in name)
    # sampled rows: the oracle's Dijkstra costs about |V| + |E| per row
    checked = count if full else min(count, max(2, min(64, cfg["verify_work"] // (n + m))))
    if verify_limit:
        checked = min(checked, verify_limit)
    if checked == count:
        rows = np.arange(count)
    elif sources is None:
        rows = np.sort(order[:checked])
    else:
        rows = np.searchsorted(sources, order[:checked])
    text = ""
    if count < n:
        unit = (f"{count // group_size(name, n, params)} groups of N={group_size(name, n, params)}"
                if name.startswith("task_parallel") else f"{count} sources")
        text = f"timed {unit} ({count} of {n} sources, seeded sample); time x {n / count:.4g}"
    return {"sources": sources, "scale": n / count, "extrapolation": text, "verify_rows": rows}


def run(name: str, g, experiment: str, cfg: dict, params: dict | None = None,
        sample: dict | None = None, repeats: int | None = None,
        verify_limit: int | None = None) -> Record:
    """One timed, verified run of method ``name`` on graph ``g`` (sampled if configured);
    ``verify_limit`` caps the verified rows (a prefix of the shared source order)."""
    method = registry.get(PAPER, name)
    params = method_params(name, cfg, params)
    plan = sample_plan(name, g.n, g.m, cfg, params, sample, verify_limit)
    if repeats is None:
        repeats = cfg["repeats"] if method.gpu else cfg["cpu_repeats"]
    warmup = cfg["warmup"] if method.gpu else 0
    if name == "dijkstra_rustworkx":
        from ..dijkstra.cpu_all_pairs import rustworkx_available
        rec = Record(paper=PAPER, experiment=experiment, method=name, graph=g.name, n=g.n, m=g.m,
                     params=params, timing_scope="cpu", profile=cfg["profile"], stand_in=g.name.startswith(STAND_INS))
        if not rustworkx_available():
            rec.skipped = "rustworkx is not installed (optional dependency)"
            return rec
        if g.n > cfg["rustworkx_max_n"] or g.m > 64 * g.n:
            rec.skipped = (f"rustworkx computes every source (no sampling) and calls a Python "
                           f"cost function per arc: skipped at |V|={g.n}, |E|={g.m}")
            return rec
    def timed(repeats: int, warmup: int) -> Record:
        return timing.run(method, g, experiment=experiment, sources=plan["sources"], params=params,
                          repeats=repeats, warmup=warmup, verify_rows=plan["verify_rows"],
                          scale=plan["scale"], extrapolation=plan["extrapolation"],
                          profile=cfg["profile"])

    if cfg.get("long_run_s") and repeats > 1:
        rec = timed(1, 0)  # kept when long, else the warm-up of the repeats
        if not rec.skipped and not too_long(rec, repeats, plan["scale"], cfg["long_run_s"]):
            rec = timed(repeats, 0)
    else:
        rec = timed(repeats, warmup)
    rec.stand_in = g.name.startswith(STAND_INS)
    return rec


def too_long(rec: Record, repeats: int, scale: float, long_run_s: float) -> bool:
    """Whether ``repeats`` runs as long as ``rec``'s one (its time unscaled) exceed ``long_run_s``."""
    return rec.time_ms_median / scale * repeats > long_run_s * 1e3


# ------------------------------------------------------------------ Fig. 10 and 11
def fig10(cfg: dict, methods=None, out_dir=None) -> list[Record]:
    """Time vs |V| on random graphs, |E| = 4|V|, w_max = |V| (Fig. 10; Fig. 11 from the same).

    ``out_dir``: each of these experiments saves its records there after every run (Fig. 10's
    largest size takes minutes in the paper profile), for ``reproduce --resume`` (:mod:`saved_runs`)."""
    methods = methods or GPU_METHODS + CPU_METHODS
    runs = SavedRuns(out_dir, "fig10")
    for n in progress(cfg["fig10_sizes"], "Fig. 10 sizes"):
        g = graph("random", n, 4 * n, n, cfg["seed"])
        for name in methods:
            runs.run((g.name, name), lambda: run(name, g, "fig10", cfg))
    return runs.records


def capacity(cfg: dict) -> pd.DataFrame:
    """Largest |V| (|E| = 4|V|) each method holds: the paper's word model on the paper's
    512 MB and on this GPU's free memory, and this implementation's bytes (matrix output
    excluded: with sampled sources or reduce=True it does not grow with |V|²)."""
    free = gpu.free_bytes() if gpu.available() else float("nan")
    rows = []
    per_vertex = {  # bytes per vertex with |E| = 4|V|
        "harish": {"paper": 4 * harish_words(1, 4), "ours": 4 + 2 * 4 * 4 + 9},
        "task_parallel (N=32)": {"paper": 4 * proposed_words(1, 4, 32), "ours": 4 + 32 + 32 * 9},
        "task_parallel (N=1024)": {"paper": 4 * proposed_words(1, 4, 1024),
                                   "ours": 4 + 32 + 1024 * 9},
    }
    for name, b in per_vertex.items():
        rows.append({"method": name, "paper_bytes_per_vertex": b["paper"],
                     "our_bytes_per_vertex": b["ours"],
                     "max_V_paper_model_512MB": int(512 * 2**20 // b["paper"]),
                     "max_V_paper_model_free_now": (int(free * gpu.MEMORY_HEADROOM // b["paper"])
                                                    if free == free else np.nan),
                     "max_V_ours_free_now": (int(free * gpu.MEMORY_HEADROOM // b["ours"])
                                             if free == free else np.nan),
                     "free_GiB_now": free / 2**30 if free == free else np.nan})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ Fig. 12 and 13
FIG12_METHODS = ("harish", "task_parallel_unshared", "task_parallel_shared",
                 "task_parallel_shared_tuned", "dijkstra_cpu")


def fig12(cfg: dict, methods=FIG12_METHODS, out_dir=None) -> list[Record]:
    """Time vs |E| at |V| = 4K, w_max = |V| (Fig. 12)."""
    n = cfg["fig12_n"]
    runs = SavedRuns(out_dir, "fig12")
    for m in progress(cfg["fig12_edges"], "Fig. 12 |E|"):
        g = graph("random", n, m, n, cfg["seed"])
        for name in methods:
            runs.run((g.name, name), lambda: run(name, g, "fig12", cfg, verify_limit=cfg["sweep_verify_rows"]))
    return runs.records


def fig13(cfg: dict, methods=FIG12_METHODS, out_dir=None) -> list[Record]:
    """Time and iterations vs w_max at |V| = 4K, |E| = 16K (Fig. 13)."""
    n, m = cfg["fig12_n"], cfg["fig13_m"]
    runs = SavedRuns(out_dir, "fig13")
    for w in progress(cfg["fig13_wmax"], "Fig. 13 w_max"):
        g = graph("random", n, m, w, cfg["seed"])
        for name in methods:
            runs.run((g.name, name), lambda: run(name, g, "fig13", cfg, verify_limit=cfg["sweep_verify_rows"]))
    return runs.records


# ------------------------------------------------------------------ Table 1
TABLE1_METHODS = GPU_METHODS + CPU_METHODS


def table1_graphs(cfg: dict) -> dict:
    n, m, w = cfg["table1_n"], cfg["table1_m"], cfg["table1_wmax"]
    return {"random": ("random", n, m, w), "power_law": ("power_law", n, m, w),
            "ring": ("ring", n, 0, None), "complete": ("complete", n, 0, None)}


def table1(cfg: dict, topologies=TABLE1_TOPOLOGIES, methods=TABLE1_METHODS, out_dir=None) -> list[Record]:
    """Table 1: the four topologies at |V| = 4677 (ring and complete sampled in default)."""
    runs = SavedRuns(out_dir, "table1")
    specs = table1_graphs(cfg)
    for topo in progress(topologies, "Table 1 topologies"):
        kind, n, m, w = specs[topo]
        g = graph(kind, n, m, w, cfg["seed"])
        for name in methods:
            runs.run((g.name, name), lambda: run(name, g, "table1", cfg, sample=cfg["table1_samples"].get(topo)))
    return runs.records


# ------------------------------------------------------------------ Fig. 14: path recording
def fig14(cfg: dict, out_dir=None) -> list[Record]:
    """Time of the shared method with and without path recording on random graphs (same
    sampled sources), for the overhead of the recording kernel (Fig. 14)."""
    runs = SavedRuns(out_dir, "fig14")
    for n in progress(cfg["fig14_sizes"], "Fig. 14 sizes"):
        g = graph("random", n, 4 * n, n, cfg["seed"])
        for name in ("task_parallel_shared", "task_parallel_shared_paths"):
            runs.run((g.name, name), lambda: run(name, g, "fig14", cfg, repeats=cfg["fig14_repeats"]))
    return runs.records


def path_check(cfg: dict, n: int | None = None) -> dict:
    """Untimed: record paths on a random graph and backtrace sampled (s, t) pairs on the host;
    every path must be made of arcs whose weights sum to the distance."""
    from ..task_parallel.paths import check_paths
    from ..task_parallel.sssp_groups import TaskParallelSSSP
    n = n or cfg["fig14_sizes"][0]
    g = graph("random", n, 4 * n, n, cfg["seed"])
    if not gpu.available():
        return {"n": n, "skipped": "no CUDA GPU on this machine"}
    count = min(n, 256)
    sources = np.sort(source_order(n, cfg["seed"])[:count])
    solver = TaskParallelSSSP(g, sources=sources, N=32, B=4, shared=True, paths=True)
    sol = solver.solve_once(f"path check on {g.name}")
    result = check_paths(g, sol.sources, sol.pred_rows(), sol.rows(), pairs=cfg["path_pairs"],
                         seed=cfg["seed"])
    return {"n": n, "sources": count, **result}


# ------------------------------------------------------------------ N sweep
def n_case(r: Record) -> tuple:
    return r.graph, r.method, r.param("N"), r.param("B")


def n_sweep(cfg: dict, out_dir=None) -> list[Record]:
    """Task-group size N (and B at N=32) on the Table 1 random graph, both kernels."""
    n, m, w = cfg["table1_n"], cfg["table1_m"], cfg["table1_wmax"]
    g = graph("random", n, m, w, cfg["seed"])
    cases = [{"N": N, "B": "auto"} for N in cfg["n_sweep_N"]]
    cases += [{"N": 32, "B": B} for B in cfg["n_sweep_B"]]
    runs = SavedRuns(out_dir, "n_sweep", key=n_case)
    for case in progress(cases, "N sweep"):
        for name in ("task_parallel_unshared", "task_parallel_shared"):
            runs.run((g.name, name, case["N"], case["B"]),
                     lambda: run(name, g, "n_sweep", cfg, params=case, sample=cfg["table1_samples"].get("random")))
    return runs.records

