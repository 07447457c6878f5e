"""Experiment drivers of bodra (notebooks/bodra.ipynb): Tables 1-3, Fig. 5-6, speed reference.

This module holds the configuration, the graphs and the sweeps; the tables and figures are in
:mod:`.bodra_tables`, the claims' verdicts and their ``EVIDENCE`` in :mod:`.bodra_claims`, the
method and graph names in :mod:`.bodra_space` (all re-exported here).

Every timed number comes from :func:`apsp_kernels.timing.run`. Where a full run does not fit
the profile's budget, a part is timed and scaled; the record says so (``extrapolated``,
``extrapolation``):

* Table 1, faithful Bellman-Ford (|V|-1 iterations, as the author): runs of p1 < p2 iterations,
  both at least the iteration where an early-exit run of the same variant converged, so both
  results are final and checked by the oracle. The estimate is
  t(p2) + (|V|-1-p2) (t(p2)-t(p1)) / (p2-p1): iterations after convergence cost the same as each
  other (naive, stride, CPU) or nearly nothing (flag), which the slope measures and
  t(p) (|V|-1) / p would not. GPU: p1 = max(bf_gpu_prefix_min, converged), p2 = 2 p1. CPU: the
  early-exit run is the p1 run (it performs exactly the passes up to convergence), p2 adds
  ``bf_cpu_extra_passes``.
* Table 2, GPU Dijkstra: a pilot over all sources stopped after P extract-min steps bounds the
  full time by t(P) n / P (threads that finish early only make the rest cheaper). If the bound
  fits ``dijkstra_budget_s`` the full run is timed; otherwise the bound is reported
  (extrapolated) and a full run from sampled sources checks the kernel. CPU (SciPy): sampled
  sources, time scaled by |V| / sampled.
* Table 3, slow FW variants: a prefix of k (of rounds for the tiled ones) scaled by n / k. Every
  step of these kernels reads the same data whatever the distances (no INF tests), so steps cost
  the same. A prefix is not the APSP; it is checked on sampled rows against Dijkstra restricted
  to intermediate vertices < k, on a separate untimed run of the same deterministic kernels.
  ``fw_extrapolation_check`` also runs one variant in full to show the extrapolation error.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import math
import warnings

import numpy as np
import pandas as pd

from .. import datasets, generators, gpu, oracle, registry, report, timing
from ..errors import DatasetUnavailable, GPUMemoryError, NoGPUError
from ..graph import Graph
from ..profiles import each as pick
from ..records import Record
from ..saved_runs import SavedRuns
from ..sampling import seeded_subset
from .bodra_claims import EVIDENCE, speed_verdict, verdicts  # noqa: F401
from .bodra_space import BF_METHODS, COLORS, FW_METHODS, GNUTELLA, LABELS, PAPER, ROAD_GRAPHS  # noqa: F401
from .bodra_tables import (extrapolation_check, fig5, fig6, speed_frame, table1_frame,  # noqa: F401
                           table2_frame, table3_frame)

TILED = ("fw_tiled", "fw_tiled_shared")
# the default profile's prefixes, also where the paper profile's full run would exceed its budget:
# on the GPU (True) the first prefix's passes, on the CPU (False) the passes added past convergence
BF_FALLBACK_STEP = {True: 4096, False: 128}
TILE = 32
SMOKE_ROAD = {"NY": (1200, 3000), "BAY": (1600, 3900)}
SMOKE_P2P = {"gnutella04": (150, 560), "gnutella25": (230, 560), "gnutella30": (300, 760)}
_NO_PREFIX = {name: None for name in FW_METHODS}


def config(profile: str) -> dict:
    """Sizes, prefixes and repeats per profile (smoke: seconds on a CPU; default: <= 2 min on
    one H100; paper: the paper's full runs)."""
    skipped_default = "skipped in the default profile (2-minute budget); run the paper profile"
    return dict(
        profile=profile,
        seed=0,
        # ---- Table 1 (Bellman-Ford, source 0)
        road_graphs=pick(profile, smoke=("NY", "BAY"), default=("NY", "BAY", "COL", "FLA"),
                         paper=ROAD_GRAPHS),
        road_skipped=pick(profile,
                          smoke={g: "skipped in the smoke profile (tiny stand-ins of NY and BAY only)"
                                 for g in ROAD_GRAPHS[2:]},
                          default={"NE": skipped_default, "E": skipped_default}, paper={}),
        bf_gpu_prefix_min=pick(profile, smoke=64, default=BF_FALLBACK_STEP[True], paper=None),  # None: in full
        bf_cpu_extra_passes=pick(profile, smoke=None, default=BF_FALLBACK_STEP[False], paper=None),
        bf_repeats=pick(profile, smoke=1, default=3, paper=3),
        bf_big_n=500_000,  # above: one repeat, no warm-up
        bf_check_every=16,
        bf_cpu_graphs=pick(profile, smoke=("NY", "BAY"), default=("NY",), paper=("NY",)),
        # a faithful run in full projected (from its early-exit run) beyond this is estimated from
        # prefixes instead (BF_FALLBACK_STEP), saying why
        bf_run_budget_s=pick(profile, smoke=None, default=None, paper=300.0),
        # ---- Table 2 (Dijkstra APSP)
        dijkstra_graph="gnutella04",
        dijkstra_pilot=pick(profile, smoke=None, default=256, paper=None),
        dijkstra_budget_s=pick(profile, smoke=math.inf, default=15.0, paper=math.inf),
        dijkstra_check_sources=32,  # one warp: a complete run costs about as much per warp as all sources
        dijkstra_cpu_sample=pick(profile, smoke=None, default=512, paper=None),
        # ---- Table 3 (Floyd-Warshall)
        fw_graphs=pick(profile, smoke=("gnutella04", "gnutella25"), default=GNUTELLA, paper=GNUTELLA),
        fw_prefix_k=pick(profile, smoke=_NO_PREFIX,
                         default={"fw_naive": 256, "fw_super_naive": 512, "fw_super_naive_shared": 256,
                                  "fw_tiled": 2048, "fw_tiled_shared": None},
                         paper={**_NO_PREFIX, "fw_serial": 512}),
        # why a profile that runs the papers' sizes still times a prefix
        fw_prefix_why=pick(profile, smoke={}, default={},
                           paper={"fw_serial": "the whole run, n^3 steps on one core, would not fit a "
                                               "10-min device call; every k costs the same n^2 steps"}),
        fw_extrapolation_check=pick(profile, smoke=None, default=("fw_tiled", "gnutella04"), paper=None),
        fw_serial_graphs=pick(profile, smoke=("gnutella04", "gnutella25"), default=(),
                              paper=("gnutella04",)),
        fw_repeats=pick(profile, smoke=1, default=3, paper=3),
        fw_big_n=16_000,  # above: one repeat, no warm-up
        fw_verify_rows=8,
        # ---- speed reference (author's tiled-shared FW: 62 ms at 4096, 362 ms at 8192 on an H100)
        bench_sizes=pick(profile, smoke=(64, 96), default=(4096, 8192), paper=(4096, 8192)),
        bench_repeats=pick(profile, smoke=1, default=3, paper=5),
        bench_gnutella=pick(profile, smoke=None, default="gnutella04", paper="gnutella04"),
        # oracle rows per speed-reference run (None: the oracle's default, all rows up to n = 4096;
        # all 4096 rows cost ~10 s of SciPy per graph, too much for the default budget)
        bench_verify_rows=pick(profile, smoke=None, default=512, paper=None),
    )


# ------------------------------------------------------------------------------ graphs
def road_graph(name: str, cfg: dict) -> Graph:
    """The DIMACS road graph (or its labelled stand-in; tiny stand-ins in the smoke profile)."""
    if cfg["profile"] == "smoke":
        n, m = SMOKE_ROAD[name]
        g = generators.road_like(n, m, seed=cfg["seed"], name=name)
        return g.as_stand_in(f"tiny road-like smoke stand-in for {name}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the stand-in's label says it
        return datasets.load_or_stand_in(name, seed=cfg["seed"])


def p2p_graph(name: str, cfg: dict) -> Graph:
    """SNAP Gnutella with seeded weights in [1, 100] (tiny random stand-ins in the smoke profile)."""
    if cfg["profile"] == "smoke":
        n, m = SMOKE_P2P[name]
        g = generators.random_digraph(n, m, w_max=100, seed=cfg["seed"], name=name)
        return g.as_stand_in(f"tiny random smoke stand-in for {name}")
    try:
        return datasets.load(name, weight_seed=cfg["seed"])
    except DatasetUnavailable:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return datasets.load_or_stand_in(name, seed=cfg["seed"])


def four_regular(n: int, seed: int = 0) -> Graph:
    """The speed reference's input: random 4-out-regular digraph, int32 weights in [1, 100]."""
    return generators.k_regular_digraph(n, k=4, seed=seed, w_low=1, w_high=101, dtype=np.int32,
                                        name=f"4regular-n{n}")


# ------------------------------------------------------------------------------ runs
def _run(name: str, g: Graph, cfg: dict, experiment: str, *, params=None, repeats=1, warmup=0,
         **kw) -> Record:
    return timing.run(registry.get(PAPER, name), g, experiment=experiment, params=params,
                      repeats=repeats, warmup=warmup, profile=cfg["profile"], **kw)


# ------------------------------------------------------------------------------ Table 1
def table1(cfg: dict, out_dir=None) -> list[Record]:
    """Bellman-Ford from source 0 on the road graphs: early exit, then faithful (see module doc).

    ``out_dir``: ``records_table1.csv`` is saved there after every variant on every graph (the
    three on the E stand-in take about 10 min together), so that a run killed part way is resumed
    by ``reproduce --resume``: the runs it finished are taken from its records
    (:func:`apsp_kernels.report.reusable`) instead of measured again."""
    runs = SavedRuns(out_dir, "table1")
    for name in report.progress(cfg["road_graphs"], desc="Table 1 graphs"):
        methods = BF_METHODS + (("bf_serial",) if name in cfg["bf_cpu_graphs"] else ())
        graph = functools.cache(lambda: road_graph(name, cfg))  # loaded only if a run is measured
        for method in methods:
            runs.run((name, method), lambda: bf_runs(method, graph(), cfg))
        graph.cache_clear()  # the pool gets the graph's device arrays back
        gpu.free_pool()
    return runs.records


def bf_runs(name: str, g: Graph, cfg: dict) -> list[Record]:
    """Early-exit run, then the faithful run: in full, or estimated from two prefixes past
    convergence. GPU: prefixes p1 = max(bf_gpu_prefix_min, converged) and 2 p1. CPU: the early-exit
    run itself is the first prefix (it runs exactly the passes up to convergence, as the faithful
    loop does), the second adds ``bf_cpu_extra_passes``."""
    on_gpu = registry.get(PAPER, name).gpu
    reps, warm = (cfg["bf_repeats"], 1) if on_gpu and g.n <= cfg["bf_big_n"] else (1, 0)
    base = {"check_every": cfg["bf_check_every"]} if on_gpu else {}
    early = _run(name, g, cfg, "table1_early_exit", params={**base, "mode": "early_exit"},
                 repeats=reps, warmup=warm)
    converged = None if early.skipped else early.stat("converged_after")
    faithful = {**base, "mode": "faithful"}
    full = g.n - 1
    step = cfg["bf_gpu_prefix_min"] if on_gpu else cfg["bf_cpu_extra_passes"]
    why = ""
    budget = cfg["bf_run_budget_s"]
    if step is None and converged is not None and budget:
        projected_s = early.time_ms_median / 1e3 * full / max(int(converged), 1)
        if projected_s > budget:
            step = BF_FALLBACK_STEP[on_gpu]
            why = (f"the full run projected at {projected_s:.3g} s from the early-exit run ({int(converged)} "
                   f"iterations), beyond the profile's {budget:g} s per run, so ")
    if step is None or converged is None:
        p1 = p2 = None
    elif on_gpu:
        p1 = max(step, int(converged))
        p2 = 2 * p1
    else:
        p1, p2 = int(converged), int(converged) + step
    if p2 is None or p2 >= full:
        return [early, _run(name, g, cfg, "table1", params=faithful, repeats=reps, warmup=warm)]
    prefix = lambda p: _run(name, g, cfg, "table1_prefix",  # noqa: E731
                            params={**faithful, "max_iterations": p}, repeats=reps, warmup=warm)
    r1 = prefix(p1) if on_gpu else early
    r2 = prefix(p2)
    out = [early, r1, r2] if on_gpu else [early, r2]
    return out + [two_point_estimate(r1, r2, p1, p2, full, converged, why)]


def two_point_estimate(r1: Record, r2: Record, p1: int, p2: int, full: int, converged: int,
                       why: str = "") -> Record:
    """The faithful |V|-1-iteration time from runs of p1 < p2 iterations (both past convergence);
    ``why``: the reason it is estimated, when the profile asked for the full run."""
    if r1.skipped or r2.skipped:
        return dataclasses.replace(r2, experiment="table1")

    def estimate(t1, t2):
        slope = (t2 - t1) / (p2 - p1)
        if slope <= 0:  # timing noise: fall back to linear scaling of the longer prefix
            slope = t2 / p2
        return t2 + (full - p2) * slope, slope

    med, slope = estimate(r1.time_ms_median, r2.time_ms_median)
    low, _ = estimate(r1.time_ms_min, r2.time_ms_min)
    params = {k: v for k, v in json.loads(r2.params).items() if k != "max_iterations"}
    stats = {**json.loads(r2.stats), "iterations": full, "prefix_iterations": [p1, p2],
             "converged_after": converged, "ms_per_iteration_after_convergence": slope}
    note = (f"{why}|V|-1 = {full} iterations estimated from runs of {p1} and {p2}: "
            f"t({p2}) + ({full} - {p2}) x slope, slope = (t({p2}) - t({p1})) / {p2 - p1} "
            f"= {slope:.4g} ms per iteration")
    return dataclasses.replace(
        r2, experiment="table1", params=json.dumps(params, sort_keys=True), time_ms_median=med,
        time_ms_min=low, extrapolated=True, extrapolation=note,
        verified=bool(r1.verified and r2.verified), max_error=max(r1.max_error, r2.max_error),
        verify_scope=(f"both runs ({p1} and {p2} iterations, past convergence at {converged}, "
                      f"so final): {r2.verify_scope}"),
        stats=json.dumps(stats, sort_keys=True, default=str))


# ------------------------------------------------------------------------------ Table 2
def table2(cfg: dict) -> list[Record]:
    """Dijkstra APSP on Gnutella04: GPU naive (full, or bounded from a pilot) and SciPy on the CPU."""
    g = p2p_graph(cfg["dijkstra_graph"], cfg)
    name, records, run_full = "dijkstra_naive_apsp", [], True
    steps = cfg["dijkstra_pilot"]
    if steps and steps < g.n:
        # the pilot only sizes the run: its distances are not final, so no oracle checks it and it is
        # kept as no timed row; the bound it gives is the table2 record below, which says so
        pilot = _run(name, g, cfg, "table2_pilot", params={"max_extractions": steps}, verify=False)
        if pilot.skipped:
            records.append(pilot)
        else:
            bound = pilot.time_ms_median * g.n / steps
            run_full = bound / 1e3 <= cfg["dijkstra_budget_s"]
            if not run_full:
                check_sources = seeded_subset(np.arange(g.n, dtype=np.int32), cfg["dijkstra_check_sources"],
                                              cfg["seed"])
                check = _run(name, g, cfg, "table2_check", sources=check_sources)
                records.append(dataclasses.replace(
                    pilot, experiment="table2", params="{}", time_ms_median=bound,
                    time_ms_min=pilot.time_ms_min * g.n / steps, extrapolated=True,
                    extrapolation=(f"upper bound: all {g.n} sources for the first {steps} extract-min "
                                   f"steps ({pilot.time_ms_median:.1f} ms, an unchecked pilot), scaled by "
                                   f"{g.n}/{steps} (threads that finish early make the real run cheaper)"),
                    verified=check.verified, max_error=check.max_error,
                    verify_scope=(f"the table2_check record (same kernel run to the end from "
                                  f"{len(check_sources)} sampled sources): {check.verify_scope}")))
                records.append(check)
    if run_full:
        records.append(_run(name, g, cfg, "table2"))
    sample = cfg["dijkstra_cpu_sample"]
    if sample and sample < g.n:
        src = seeded_subset(np.arange(g.n, dtype=np.int32), sample, cfg["seed"])
        records.append(_run("dijkstra_serial", g, cfg, "table2", sources=src, scale=g.n / len(src),
                            extrapolation=f"{len(src)} seeded sources timed, scaled by {g.n}/{len(src)}"))
    else:
        records.append(_run("dijkstra_serial", g, cfg, "table2"))
    return records


# ------------------------------------------------------------------------------ Table 3
def table3(cfg: dict, out_dir=None) -> tuple[list[Record], pd.DataFrame]:
    """The five FW variants (and the serial CPU one where configured) on the Gnutella graphs;
    also the device bytes each variant needs (checked before allocating).

    ``out_dir``: ``records_table3.csv`` is saved there after every variant on every graph (one
    run of fw_naive on gnutella30 takes 7.5 min on an H100), so that ``reproduce --resume`` takes
    the runs a killed run finished from its records instead of measuring them again."""
    runs, memory = SavedRuns(out_dir, "table3"), []
    for gname in report.progress(cfg["fw_graphs"], desc="Table 3 graphs"):
        g = p2p_graph(gname, cfg)
        serial = ("fw_serial",) if gname in cfg["fw_serial_graphs"] else ()
        for name in FW_METHODS + serial:
            if name in FW_METHODS:
                memory.append(memory_row(name, g))
            runs.run((g.name, name), lambda: fw_runs_freed(name, g, cfg))
    return runs.records, pd.DataFrame(memory)


def fw_runs_freed(name: str, g: Graph, cfg: dict) -> list[Record]:
    """:func:`fw_runs`, then the memory pool handed back (the next variant may need all of it)."""
    records = fw_runs(name, g, cfg)
    gpu.free_pool()
    return records


def memory_row(name: str, g: Graph) -> dict:
    solver = registry.get(PAPER, name).make(g)
    need = solver.bytes_needed()
    free = gpu.free_bytes() if gpu.available() else None
    return {"graph": g.name, "n": g.n, "method": LABELS[name], "device bytes": need,
            "device GiB": need / 2**30, "free GiB": None if free is None else free / 2**30,
            "fits": None if free is None else bool(need <= gpu.MEMORY_HEADROOM * free)}


def fw_units(name: str, n: int, k: int) -> int:
    """Steps a run of ``k`` values of k performs: k, or rounds of 32 for the tiled variants."""
    k = min(k, n)
    return -(-k // TILE) if name in TILED else k


def fw_runs(name: str, g: Graph, cfg: dict) -> list[Record]:
    k = cfg["fw_prefix_k"].get(name)
    reps, warm = (cfg["fw_repeats"], 1) if g.n <= cfg["fw_big_n"] else (1, 0)
    if k is None or k >= g.n:
        return [_run(name, g, cfg, "table3", repeats=reps, warmup=warm)]
    full, part = fw_units(name, g.n, g.n), fw_units(name, g.n, k)
    unit = "rounds of 32 k" if name in TILED else "values of k"
    why = cfg["fw_prefix_why"].get(name)
    rec = _run(name, g, cfg, "table3", params={"max_k": k}, verify=False, scale=full / part,
               extrapolation=f"first {part} of {full} {unit} timed, scaled by {full}/{part}"
                             + (f" ({why})" if why else ""))
    if not rec.skipped:
        rec.verified, rec.max_error, rec.verify_scope = verify_fw_prefix(name, g, k, cfg)
    out = [rec]
    if cfg["fw_extrapolation_check"] == (name, g.name):
        out.append(_run(name, g, cfg, "table3_full_check"))
    return out


def restricted_graph(g: Graph, source: int, k: int) -> Graph:
    """Arcs out of vertices < k and out of ``source``: its paths from ``source`` are the FW
    paths after k steps (every intermediate vertex < k)."""
    src = g.sources_of_arcs
    keep = (src < k) | (src == source)
    return Graph.from_edges(g.n, src[keep], g.indices[keep], g.weights[keep], dtype=g.dtype,
                            name=f"{g.name}[k<{k}]")


def verify_fw_prefix(name: str, g: Graph, k: int, cfg: dict) -> tuple[bool, float, str]:
    """Check a k-prefix of an FW variant on sampled rows (untimed rerun of the same kernels)."""
    try:
        solver = registry.get(PAPER, name).make(g, max_k=k)
        sol = solver.solve_once(f"{name} prefix check on {g.name}")
        done = min(g.n, fw_units(name, g.n, k) * (TILE if name in TILED else 1))
        rows = seeded_subset(np.arange(g.n, dtype=np.int32), cfg["fw_verify_rows"], cfg["seed"])
        got, pred = sol.rows(rows), sol.pred_rows(rows)
        del solver, sol
    except (GPUMemoryError, NoGPUError) as exc:
        return False, float("nan"), f"not checked: {exc}"
    ok, worst = True, 0.0
    for pos, s in enumerate(rows):
        h = restricted_graph(g, int(s), done)
        want = oracle.distances(h, [int(s)])
        good, err = oracle.compare(got[pos:pos + 1], want, float_dtype=False)
        if good and pred is not None:
            good = oracle.check_predecessors(h, [int(s)], pred[pos:pos + 1], want)
        ok, worst = ok and good, max(worst, err)
    scope = (f"{len(rows)} sampled rows after the first {done} values of k (untimed rerun of the "
             f"same kernels) vs Dijkstra restricted to intermediate vertices < {done}")
    return ok, worst, scope + (" + predecessors" if pred is not None else "")


# ------------------------------------------------------------------------------ speed reference
def speed_reference(cfg: dict) -> list[Record]:
    """Our tiled-shared FW on the author's benchmark graphs, kernel only and with copies of the
    distance and parent matrices both ways (``host_io``), like the author's timer."""
    records = []
    graphs = [four_regular(n, cfg["seed"]) for n in cfg["bench_sizes"]]
    if cfg["bench_gnutella"]:
        graphs.append(p2p_graph(cfg["bench_gnutella"], cfg))
    for g in report.progress(graphs, desc="speed reference"):
        reps = cfg["bench_repeats"] if g.n <= 8192 else 1
        rows = cfg["bench_verify_rows"]
        if rows is None or rows >= g.n or g.n > oracle.FULL_CHECK_MAX_N:
            rows = None  # the oracle's default: all rows up to 4096, 64 sampled above
        else:
            rows = oracle.choose_rows(g.n, limit=0, sample=rows, seed=cfg["seed"])
        for params, scope in (({}, "kernel"), ({"host_io": True}, "with_transfers")):
            records.append(_run("fw_tiled_shared", g, cfg, "speed_reference", params=params,
                                repeats=reps, warmup=1, scope=scope, verify_rows=rows))
        gpu.free_pool()
    return records
