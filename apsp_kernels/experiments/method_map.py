"""Method map (notebooks/method_map.ipynb; issue [peak], target 4): which method wins where.

Every GPU method of the registry (the papers' and the group ``fast``, whatever it holds)
runs on generated graphs over n (powers of two), density m/n and topology (uniform random,
R-MAT, the road-like stand-in, ring, complete); SciPy's Dijkstra on one host core is the
reference line. Two problems:

* ``apsp`` (all pairs): every method. SSSP-based methods run on a seeded sample of sources
  when all of them would take long; the time is scaled to n sources and labelled.
* ``sssp`` (one source): the methods whose work grows with the sources asked for.

Runs are planned per series (method, problem, topology, density) in increasing n: each run's
time is predicted from the series' smaller sizes (n^3 for dense all-pairs methods, sources x m
for SSSP-based ones, with the growth observed so far when it is steeper) and a run predicted
above the per-run cap, or past the sweep's time budget, is recorded as skipped with the
prediction. A GPU method more than ``dominated_x`` times slower than a cell's winner leaves
its series (recorded as skipped, with the ratio): it cannot win the next sizes, and the budget
goes to the methods that can. Every timed run is verified against the SciPy oracle (sampled
rows on big graphs).

A dtype axis (issue 29): the families that take float weights (FLOAT64_FAMILIES) run again on
float64 twins of a few cells (``float64_sizes`` x ``float64_series``: the same graph, each weight
plus a seeded fraction in [0, 1)), and every SSSP family on a road network (USA-road-d.NY) in
int32 and float64 (:func:`road_sssp`); :func:`dtype_comparison` sets each float64 time beside the
int32 time of the same family and graph, and the dense rates beside the same run's float64
(min,+) peak.

The verified, fully measured GPU runs become the decision table that
``apsp_kernels.shortest_path(method="auto")`` reads (:func:`write_decision_table`). The
roofline (:func:`rates`, :func:`measure_peaks`) compares achieved (min,+)/s and GB/s with
peaks measured in the same run.
"""
from __future__ import annotations

import contextlib
import faulthandler
import json
import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import datasets, generators, gpu, host_cpu, registry, report, timing
from ..errors import InputError
from ..graph import Graph
from ..profiles import choose
from ..records import Record, solved_fewer_sources, to_frame
from ..verdicts import Evidence
from .okuyama import source_order  # seeded permutation: sampled sources and checked rows are prefixes

TOPOLOGIES = ("random", "rmat", "road", "ring", "complete")
REFERENCE = ("okuyama", "dijkstra_scipy")  # SciPy's csgraph.dijkstra, one host core
ROAD_DENSITY = 2.6                         # arcs per vertex of the DIMACS road graphs (2.4 .. 2.8)
PROBLEMS = {"apsp": "all pairs", "sssp": "single source"}


def config(profile: str) -> dict:
    sizes = tuple(2 ** e for e in range(8, 16))  # 256 .. 32768
    return {
        "profile": profile,
        "sizes": choose(profile, smoke=(64, 128), default=(256, 1024, 4096, 8192, 16384, 32768),
                        paper=sizes),
        "densities": choose(profile, smoke=(2, 8), default=(2, 8, 32, 256)),
        "topologies": TOPOLOGIES,
        "max_arcs": choose(profile, smoke=1 << 14, default=1 << 22, paper=1 << 24),
        "cap_s": choose(profile, smoke=1.0, default=1.0, paper=5.0),       # per repetition
        "sample_s": choose(profile, smoke=0.05, default=0.03, paper=0.3),  # a sampled SSSP run
        "host_sample_s": choose(profile, smoke=0.1, default=0.2, paper=2.0),
        "host_cap_s": choose(profile, smoke=1.0, default=1.0, paper=10.0),
        "min_sources": 32,     # GPU methods batch sources: fewer would understate them
        "host_min_sources": 4,
        "budget_s": choose(profile, smoke=120.0, default=360.0, paper=3600.0),
        # a method this many times slower than a cell's winner leaves its series, from this n on
        # (below it launches and set-up decide, not the work that grows with n)
        "dominated_x": choose(profile, smoke=math.inf, default=16.0, paper=math.inf),
        "dominated_from_n": 1024,
        "oracle_arcs": choose(profile, smoke=1 << 20, default=1 << 24, paper=1 << 26),
        "repeats": choose(profile, smoke=1, default=3, paper=5),
        "long_run_s": 0.05,  # runs predicted above this are repeated once
        "watchdog_s": 60.0,  # with a log: a run this long writes its stack there (see logged)
        "w_max": 100,
        "seed": 0,
        # the dtype axis: these cells again with fractional float64 weights (FLOAT64_FAMILIES)
        "float64_sizes": choose(profile, smoke=(128,), default=(1024, 8192), paper=(1024, 4096, 8192, 16384)),
        "float64_series": ("random/d8", "road"),
        # SSSP in int32 and float64 on a road network (issue 29's target: float64 within 1.5x)
        "road": choose(profile, smoke={"kind": "road_like", "n": 2000, "m": 5200, "for": "NY"},
                       default={"kind": "dataset", "name": "NY"}),
    }


# ------------------------------------------------------------------ methods
def per_source(method: registry.Method) -> bool:
    """True when the method's work grows with the sources asked for (SSSP-based); False for
    dense all-pairs methods, which compute every row whatever the sources."""
    return not method.solver_class().all_pairs


def map_methods() -> list[registry.Method]:
    """Every GPU method of the registry, papers' and ``fast`` alike (empty groups are fine), but
    those with a per-graph host preprocessing (``fast:sssp_phast``'s contraction): on the map's
    generated graphs each call would pay it, and the cross-paper notebook times them on the roads."""
    return [m for m in registry.methods() if m.on_generated_graphs]


def dense_keys(methods=None) -> set[str]:
    """Registry keys of the dense all-pairs methods among ``methods`` (default: the map's)."""
    return {m.key for m in (map_methods() if methods is None else methods) if not per_source(m)}


def reference_method() -> registry.Method:
    return registry.get(*REFERENCE)


FLOAT64_FAMILIES = ("D", "harish", "spmv", "worklist", "multi_source", "BF", "FW", "blocked_fw")
DENSE_FAMILIES = ("FW", "blocked_fw")
FLOAT64_SERIES = "/f64"  # suffix of a float64 twin's series (its graph's name ends "-f64")


def float64_methods(methods=None) -> list[registry.Method]:
    """The methods among ``methods`` (default: the map's) that run FLOAT64_FAMILIES on float64
    graphs (csgraph.families: what ``shortest_path`` runs for float input)."""
    from ..csgraph.families import FAMILIES
    keys = {FAMILIES[f].float64 for f in FLOAT64_FAMILIES}
    return [m for m in (map_methods() if methods is None else methods) if m.key in keys]


def as_float64(g: Graph, seed: int = 0) -> Graph:
    """The float64 twin of ``g``: the same arcs, each weight plus a seeded fraction in [0, 1)
    (fractional, so no kernel can take the integer path), named ``<name>-f64`` (the suffix
    auto.table_from_records reads as the weight type)."""
    w = np.asarray(g.weights, dtype=np.float64) + np.random.default_rng(seed).random(g.m)
    return Graph(g.n, g.indptr, g.indices, w, name=f"{g.name}-f64",
                 meta={**g.meta, "weights": "integer + seeded fraction in [0, 1), float64"})


# ------------------------------------------------------------------ graphs
def densities(topology: str, n: int, cfg: dict) -> list:
    """The nominal densities (arcs per vertex) of ``topology`` at n vertices."""
    if topology == "random":
        return [d for d in cfg["densities"] if d < n - 1]
    if topology == "rmat":  # drawing distinct arcs from the skewed model slows, then fails, as it fills
        return [d for d in cfg["densities"] if 32 * d <= n and 2 * d * n <= cfg["max_arcs"]]
    return [{"road": ROAD_DENSITY, "ring": 1, "complete": n - 1}[topology]]


def density_label(topology: str, density) -> str:
    return {"road": "≈2.6", "ring": "1", "complete": "n-1"}.get(topology, f"{float(density):g}")


def arcs(topology: str, n: int, density) -> int:
    if topology == "road":
        return 2 * int(density * n / 2)
    return int(round(density * n)) if topology != "complete" else n * (n - 1)


def make_graph(topology: str, n: int, density, cfg: dict) -> Graph:
    """The graph of one cell; integer weights 1..w_max (road: lengths, ring/complete: 1)."""
    m, w, seed = arcs(topology, n, density), cfg["w_max"], cfg["seed"]
    if topology == "random":
        return generators.random_digraph(n, m, w_max=w, seed=seed, name=f"random-n{n}-d{density}")
    if topology == "rmat":
        return generators.rmat(n, m, w_max=w, seed=seed, name=f"rmat-n{n}-d{density}")
    if topology == "road":
        return generators.road_like(n, m, seed=seed)
    if topology == "ring":
        return generators.ring(n)
    if topology == "complete":
        return generators.complete(n)
    raise ValueError(f"unknown topology {topology!r}; choose one of {TOPOLOGIES}")


def cells(cfg: dict) -> list[dict]:
    """Every (n, topology, density) of the map, smallest n first (a spent budget cuts the
    largest sizes everywhere rather than whole topologies)."""
    return [{"n": n, "topology": t, "density": d, "m": arcs(t, n, d),
             "series": t if t in ("road", "ring", "complete") else f"{t}/d{d}"}
            for n in cfg["sizes"] for t in cfg["topologies"] for d in densities(t, n, cfg)]


# ------------------------------------------------------------------ prediction and planning
@dataclass
class Point:
    """One measured run of a series: n, m, sources timed and the unscaled time."""

    n: int
    m: int
    k: int
    ms: float


def _unit(p_n: int, p_m: int, per_src: bool) -> float:
    return float(p_m) if per_src else float(p_n) ** 3


def predict_ms(history: list[Point], per_src: bool, n: int, m: int, k: int) -> float | None:
    """Time of the run (k sources of a graph with n vertices, m arcs) from a series' smaller runs.

    Dense all-pairs methods scale as n^3, SSSP-based ones as k times a per-source time that
    scales as m; when the last two runs grew faster than that (more iterations on a larger
    graph, e.g. the ring's diameter), the observed exponent is used, up to 2. None without
    history.
    """
    pts = [p for p in history if p.ms > 0]
    if not pts:
        return None
    last = pts[-1]
    per = (lambda p: p.ms / p.k) if per_src else (lambda p: p.ms)
    exponent = 1.0
    if len(pts) >= 2:
        prev = pts[-2]
        u0, u1 = _unit(prev.n, prev.m, per_src), _unit(last.n, last.m, per_src)
        if u1 > u0 and per(prev) > 0:
            exponent = min(max(1.0, math.log(per(last) / per(prev)) / math.log(u1 / u0)), 2.0)
    growth = (_unit(n, m, per_src) / _unit(last.n, last.m, per_src)) ** exponent
    return per(last) * growth * (k if per_src else 1)


def oracle_rows(n: int, m: int, cfg: dict) -> int:
    """How many rows the oracle checks: all when cheap, else what its arc budget buys (2..64)."""
    if n * (n + m) <= cfg["oracle_arcs"]:
        return n
    return int(min(n, max(2, min(64, cfg["oracle_arcs"] // (n + m)))))


@dataclass
class Plan:
    """One run: which sources, the prediction and the scale, or why it is skipped."""

    k: int
    sources: np.ndarray | None = None
    predicted_ms: float | None = None
    scale: float = 1.0
    extrapolation: str = ""
    verify_rows: np.ndarray | None = None
    repeats: int = 1
    skip: str = ""
    capped: bool = False  # skipped as predicted over the per-run cap (larger sizes would be too)


def plan_run(problem: str, per_src: bool, on_gpu: bool, history: list[Point], n: int, m: int,
             cfg: dict, probe_ms: float | None = None, remaining_s: float = math.inf) -> Plan:
    """Sources, prediction and repeats of one run, or the reason to skip it.

    ``probe_ms``: a single-source time on the same graph, which predicts an SSSP-based
    all-pairs run that has no history yet. All-pairs runs of SSSP-based methods time all n
    sources when that fits ``sample_s`` (``host_sample_s`` on the host), else a power-of-two
    sample of at least ``min_sources`` (``host_min_sources``), scaled to n. The cap is
    ``cap_s`` (``host_cap_s`` on the host) per repetition.
    """
    order = source_order(n, cfg["seed"])
    if problem == "sssp":
        k = 1
        pred = predict_ms(history, True, n, m, 1)
    elif not per_src:
        k = n
        pred = predict_ms(history, False, n, m, n)
    else:
        one = predict_ms(history, True, n, m, 1)
        one = probe_ms if one is None else one
        target = 1e3 * (cfg["sample_s"] if on_gpu else cfg["host_sample_s"])
        least = cfg["min_sources" if on_gpu else "host_min_sources"]
        if one is None:
            k = min(n, least)
        elif n * one <= target:
            k = n
        else:
            k = min(n, 1 << int(math.log2(max(least, int(target / max(one, 1e-9))))))
        pred = None if one is None else one * k
    plan = Plan(k=k, predicted_ms=pred, scale=n / k if problem == "apsp" else 1.0)
    cap_s = cfg["cap_s"] if on_gpu else cfg["host_cap_s"]
    if pred is not None and pred > 1e3 * cap_s:
        plan.skip = f"predicted {pred / 1e3:.3g} s per run > cap {cap_s:g} s"
        plan.capped = True
        return plan
    plan.repeats = cfg["repeats"] if pred is None or pred < 1e3 * cfg["long_run_s"] else 1
    if pred is not None and (1 + plan.repeats) * pred > 1e3 * remaining_s:
        plan.skip = f"predicted {pred / 1e3:.3g} s per run; the sweep's time budget is spent"
        return plan
    if problem == "sssp":
        plan.sources = order[:1].copy()
        plan.verify_rows = np.arange(1)
        return plan
    checked = min(k, oracle_rows(n, m, cfg))
    if k < n:
        plan.sources = np.sort(order[:k])
        plan.extrapolation = f"timed {k} of {n} sources (seeded sample); time x {n / k:.4g}"
        plan.verify_rows = np.searchsorted(plan.sources, order[:checked])
        return plan
    if per_src:  # every source named: a single-source solver's default (vertex 0) is not "all"
        plan.sources = np.arange(n)
    if checked < n:
        plan.verify_rows = np.sort(order[:checked])
    return plan


# ------------------------------------------------------------------ the sweep
@dataclass
class Sweep:
    records: list = field(default_factory=list)
    cells: list = field(default_factory=list)  # one dict per graph: size, generation time, status


def _skipped(method, problem, graph_name, n, m, why, cfg, extra) -> Record:
    return Record(paper=method.paper, experiment=problem, method=method.name, graph=graph_name,
                  n=n, m=m, skipped=why, profile=cfg["profile"],
                  timing_scope="kernel" if method.gpu else "cpu", stats={"map": extra})


def run_planned(method, problem: str, graph: Graph, plan: Plan, cfg: dict, extra: dict,
                params=None) -> Record:
    """timing.run for one plan; an error of the method becomes a skipped record saying so."""
    extra = {**extra, "timed_sources": plan.k, "scale": plan.scale,
             "predicted_ms": plan.predicted_ms, "sources_named": plan.sources is not None}
    if plan.skip:
        return _skipped(method, problem, graph.name, graph.n, graph.m, plan.skip, cfg, extra)
    try:
        rec = timing.run(method, graph, experiment=problem, sources=plan.sources, params=params,
                         repeats=plan.repeats, warmup=1 if method.gpu else 0,
                         verify_rows=plan.verify_rows, scale=plan.scale,
                         extrapolation=plan.extrapolation, profile=cfg["profile"])
    except Exception as exc:  # noqa: BLE001 - a map over every method records failures, it does not stop
        why = f"error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
        return _skipped(method, problem, graph.name, graph.n, graph.m, why, cfg, extra)
    stats = json.loads(rec.stats)
    stats["map"] = extra
    rec.stats = json.dumps(stats, sort_keys=True, default=str)
    return rec


@contextlib.contextmanager
def logged(log, what: str, watchdog_s: float):
    """Write ``what`` to ``log`` (a text file) when it starts and ends, with the seconds it took;
    a run still going after ``watchdog_s`` writes every thread's Python stack there, again each
    ``watchdog_s``, so a run that does not end says where it is. No log: nothing."""
    if log is None:
        yield
        return
    t0 = time.perf_counter()
    print(f"{time.strftime('%H:%M:%S')} start {what}", file=log, flush=True)
    faulthandler.dump_traceback_later(watchdog_s, repeat=True, file=log)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        print(f"{time.strftime('%H:%M:%S')} end   {what} in {time.perf_counter() - t0:.2f} s", file=log,
              flush=True)


def save(result: Sweep, out_dir) -> None:
    """``records_sssp.csv`` and ``records_apsp.csv`` of the cells swept so far."""
    for problem in PROBLEMS:
        report.save_records([r for r in result.records if r.experiment == problem], out_dir, problem)


def reusable_runs(out_dir) -> dict:
    """(method key, problem, graph) -> the record an unfinished sweep of the same profile and commit
    saved (kept by ``reproduce --resume``; see :func:`apsp_kernels.report.reusable`); {} for none."""
    if out_dir is None:
        return {}
    kept = [r for p in PROBLEMS for r in (report.reusable(out_dir, p, partial=True) or [])]
    return {(f"{r.paper}:{r.method}", r.experiment, r.graph): r for r in kept}


def sweep(cfg: dict, methods=None, clock=host_cpu.clock_without_waits, log=None, out_dir=None) -> Sweep:
    """Every method on every cell of the map (see the module docstring). ``log``: a text file
    that gets a line per graph and run as it starts and ends (see :func:`logged`).

    ``out_dir``: the records are saved there after every graph (:func:`save`), so that a sweep
    killed part way is resumed by ``reproduce --resume``: each run that the unfinished sweep
    finished is taken from its records instead of measured again, and the plans, predictions
    and stopped series follow from them as they did. The time budget starts again. The
    default ``clock`` leaves out the time spent waiting for the host's CPU lock (notebooks
    side by side: :mod:`apsp_kernels.host_cpu`)."""
    methods = map_methods() if methods is None else list(methods)
    reuse = reusable_runs(out_dir)
    saved = -1  # records saved to out_dir so far (none yet)
    entries = [(m, per_source(m)) for m in methods] + [(reference_method(), True)]
    history: dict[tuple, list[Point]] = {}
    stopped: dict[tuple, str] = {}  # series ended by an error, memory, the cap or dominance
    last_m: dict[tuple, int] = {}    # arcs of each series' latest cell
    out = Sweep()
    start = clock()
    f64_entries = [(m, per_source(m)) for m in float64_methods(methods)]

    def run_graph(g: Graph, series: str, runs, extra: dict) -> None:
        """Every (method, problem) of ``runs`` on ``g``: planned from its series, recorded."""
        for method, per_src in runs:
            probe = None
            for problem in (("sssp", "apsp") if per_src else ("apsp",)):
                key = (method.key, problem, series)
                if key not in history and key not in stopped:  # a series that starts late (R-MAT)
                    twin = int32_series(key, history, stopped)
                    where = "its int32 series" if twin else ""
                    twin = twin or nearest_series(key, g.m, last_m, history, stopped)
                    if twin in stopped:
                        stopped[key] = f"{stopped[twin]} (in {where or twin[2] + ', the nearest density'})"
                    elif twin is not None:
                        history[key] = list(history[twin])
                if key in stopped:
                    out.records.append(_skipped(method, problem, g.name, g.n, g.m, stopped[key],
                                                cfg, extra))
                    continue
                plan = plan_run(problem, per_src, method.gpu, history.get(key, []), g.n, g.m, cfg,
                                probe_ms=probe, remaining_s=cfg["budget_s"] - (clock() - start))
                what = (f"{method.key} {problem} {g.name} n={g.n} m={g.m:,} sources={plan.k} "
                        f"predicted={plan.predicted_ms} ms {plan.skip}")
                rec = None if plan.skip else reuse.pop((method.key, problem, g.name), None)
                if rec is None:
                    with logged(log if not plan.skip else None, what, cfg["watchdog_s"]):
                        rec = run_planned(method, problem, g, plan, cfg, extra)
                out.records.append(rec)
                last_m[key] = g.m
                measured = math.isfinite(rec.time_ms_median)
                if measured:
                    ms = rec.time_ms_median / plan.scale
                    history.setdefault(key, []).append(Point(g.n, g.m, plan.k, ms))
                    if problem == "sssp":
                        probe = ms
                elif plan.capped:  # larger sizes only take longer; all-pairs starts from this prediction
                    stopped[key] = f"capped at n={g.n}: {rec.skipped}"
                    if problem == "sssp":
                        probe = plan.predicted_ms
                elif rec.skipped.startswith("error") or "memory" in rec.skipped.lower():
                    stopped[key] = f"skipped after n={g.n}: {rec.skipped}"

    todo = cells(cfg)
    for cell in report.progress(todo, desc="method map cells", total=len(todo)):
        remaining = cfg["budget_s"] - (clock() - start)
        extra = {"topology": cell["topology"], "density": cell["density"], "series": cell["series"]}
        name = f"{cell['series']}-n{cell['n']}"
        why, g = "", None
        t0 = clock()
        if cell["m"] > cfg["max_arcs"]:
            why = f"graph not built: {cell['m']:,} arcs > max_arcs {cfg['max_arcs']:,} of the profile"
        elif remaining <= 0:
            why = f"the sweep's time budget of {cfg['budget_s']:g} s is spent"
        else:
            try:
                with logged(log, f"graph {name} m={cell['m']:,}", cfg["watchdog_s"]):
                    g = make_graph(cell["topology"], cell["n"], cell["density"], cfg)
            except InputError as exc:  # e.g. R-MAT cannot draw that many distinct arcs
                why = f"graph not built: {exc}"
        if why:
            out.cells.append({**cell, "status": why})
            for method, per_src in entries:
                for problem in (("sssp", "apsp") if per_src else ("apsp",)):
                    out.records.append(_skipped(method, problem, name, cell["n"], cell["m"], why,
                                                cfg, extra))
            continue
        out.cells.append({**cell, "m": g.m, "graph": g.name, "dtype": "int32",
                          "generate_s": clock() - t0, "status": "built"})
        first = len(out.records)
        run_graph(g, cell["series"], entries, extra)
        if g.n >= cfg.get("dominated_from_n", 0):
            stopped.update(dominated(out.records[first:], g, cell["series"], cfg["dominated_x"]))
        if f64_entries and cell["n"] in cfg["float64_sizes"] and cell["series"] in cfg["float64_series"]:
            twin, series = as_float64(g, cfg["seed"]), cell["series"] + FLOAT64_SERIES
            out.cells.append({**cell, "m": twin.m, "graph": twin.name, "dtype": "float64",
                              "generate_s": 0.0, "status": "built"})
            first = len(out.records)
            run_graph(twin, series, f64_entries, {**extra, "series": series, "dtype": "float64"})
            if g.n >= cfg.get("dominated_from_n", 0):
                stopped.update(dominated(out.records[first:], twin, series, cfg["dominated_x"]))
            del twin
        del g
        if out_dir is not None:
            save(out, out_dir)
            saved = len(out.records)
    if out_dir is not None and saved != len(out.records):  # the cells after the last graph built
        save(out, out_dir)
    return out


def int32_series(key: tuple, history: dict, stopped: dict):
    """For a float64 twin's series that has not run yet, the int32 series of the same graphs: its
    times predict the first float64 run (float64 is not faster), its cap or error stops it; its
    dominance does not (the float64 times are wanted beside the int32 ones). None otherwise."""
    if not key[2].endswith(FLOAT64_SERIES):
        return None
    base = (key[0], key[1], key[2].removesuffix(FLOAT64_SERIES))
    if base in history or (base in stopped and not stopped[base].startswith("dominated")):
        return base
    return None


def nearest_series(key: tuple, m: int, last_m: dict, history: dict, stopped: dict):
    """The series of the same method and problem whose latest cell (measured or stopped) had the
    arc count nearest to ``m`` (in log): a series that starts at a large n (R-MAT's densest)
    borrows its prediction, or its stop, instead of running blind. None when there is none."""
    wide = key[2].endswith(FLOAT64_SERIES)
    twins = [k for k in last_m if k[:2] == key[:2] and k != key and (k in history or k in stopped)
             and k[2].endswith(FLOAT64_SERIES) == wide]
    return min(twins, key=lambda k: abs(math.log(max(last_m[k], 1) / max(m, 1))), default=None)


def dominated(records, graph: Graph, series: str, factor: float) -> dict:
    """Series keys of the GPU methods more than ``factor`` times slower than the fastest
    verified GPU run of the same problem on ``graph``, with the reason."""
    out = {}
    for problem in PROBLEMS:
        runs = [r for r in records if r.graph == graph.name and r.experiment == problem
                and r.timing_scope != "cpu" and r.verified and math.isfinite(r.time_ms_median)
                and not solved_fewer_sources(r.stats)]
        if not runs:
            continue
        best = min(runs, key=lambda r: r.time_ms_median)
        for r in runs:
            ratio = r.time_ms_median / best.time_ms_median
            if ratio > factor:
                out[(f"{r.paper}:{r.method}", problem, series)] = (
                    f"dominated: {ratio:.0f}x slower than {best.paper}:{best.method} at n={graph.n}")
    return out


# ------------------------------------------------------------------ tables
def frame(records) -> pd.DataFrame:
    """Records (or a records frame read back from CSV) with the map's columns: problem,
    topology, density, the unscaled time, ... A run whose solver reports fewer sources than the
    run timed (:func:`short_of_sources`) is not ``ok``: its time is not the planned problem's."""
    df = records.copy() if isinstance(records, pd.DataFrame) else to_frame(records)
    if df.empty:
        return df
    info = [json.loads(s).get("map", {}) for s in df["stats"]]
    df["key"] = df["paper"] + ":" + df["method"]
    df["problem"] = df["experiment"]
    for col in ("topology", "density", "series", "timed_sources", "scale", "predicted_ms"):
        df[col] = [i.get(col) for i in info]
    df["dtype"] = [i.get("dtype", "int32") for i in info]
    df["base_series"] = df["series"].fillna("").str.removesuffix(FLOAT64_SERIES)
    df["scale"] = df["scale"].fillna(1.0).astype(float)
    df["time_ms"] = df["time_ms_median"]
    df["on_gpu"] = df["timing_scope"] != "cpu"
    df["short_of_sources"] = short_of_sources(df)
    df["ok"] = df["verified"].astype(bool) & df["time_ms"].notna() & ~df["short_of_sources"]
    return df


def short_of_sources(df: pd.DataFrame) -> pd.Series:
    """True where the solver solved fewer sources than the run timed
    (:func:`apsp_kernels.records.solved_fewer_sources`)."""
    return df["stats"].map(lambda s: bool(solved_fewer_sources(s))).astype(bool)


def winners(df: pd.DataFrame, problem: str) -> pd.DataFrame:
    """Per cell: the fastest verified GPU method, its time, SciPy's time and the speed-up.

    ``undecided`` names a method skipped by the cap whose predicted time is below the
    winner's (the cell's winner is then not established).
    """
    rows = []
    sub = df[(df["problem"] == problem) & (df["dtype"] == "int32")]  # float64: dtype_comparison
    for (topo, dens, n), cell in sub.groupby(["topology", "density", "n"], sort=True):
        ok = cell[cell["on_gpu"] & cell["ok"]].sort_values("time_ms")
        ref = cell[~cell["on_gpu"] & cell["ok"]]
        row = {"problem": problem, "topology": topo, "density": density_label(topo, dens),
               "density_value": float(dens), "n": int(n), "m": int(cell["m"].max()),
               "winner": "", "time_ms": np.nan, "extrapolated": False, "runner_up": "",
               "scipy_ms": float(ref["time_ms"].iloc[0]) if len(ref) else np.nan,
               "measured": int(len(ok)), "skipped": int(cell["skipped"].astype(bool).sum()),
               "undecided": ""}
        if len(ok):
            best = ok.iloc[0]
            row.update(winner=best["key"], time_ms=float(best["time_ms"]),
                       extrapolated=bool(best["extrapolated"]),
                       runner_up=ok.iloc[1]["key"] if len(ok) > 1 else "")
            capped = cell[cell["on_gpu"] & cell["skipped"].str.startswith("predicted")
                          & (cell["predicted_ms"].astype(float) * cell["scale"] < best["time_ms"])]
            row["undecided"] = ", ".join(sorted(capped["key"]))
        row["speedup_vs_scipy"] = row["scipy_ms"] / row["time_ms"] if len(ok) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def failures(df: pd.DataFrame) -> pd.DataFrame:
    """Runs that raised, did not verify or solved fewer sources than timed (cap and budget
    skips are not failures)."""
    bad = df[df["skipped"].str.startswith("error") | (df["time_ms"].notna() & ~df["verified"])
             | df["short_of_sources"]]
    return bad[["key", "problem", "dtype", "graph", "n", "m", "verified", "short_of_sources", "max_error", "skipped"]]


def coverage(df: pd.DataFrame) -> pd.DataFrame:
    """Per method, problem and weight type: runs measured, verified, extrapolated, skipped (and why)."""
    def reasons(s):
        kinds = s[s != ""].str.extract(r"^(error|predicted|capped|graph not built|the sweep|skipped after"
                                       r"|dominated|no CUDA)", expand=False).fillna("other")
        return ", ".join(f"{k}: {v}" for k, v in kinds.value_counts().items())
    g = df.groupby(["key", "problem", "dtype"])
    return pd.DataFrame({"measured": g["time_ms"].count(), "verified": g["ok"].sum(),
                         "extrapolated": g["extrapolated"].sum(),
                         "largest_n": g.apply(lambda x: x.loc[x["ok"], "n"].max()),
                         "skips": g["skipped"].apply(reasons)}).reset_index()


# ------------------------------------------------------------------ roofline
def csr_bytes(n: int, m: int) -> int:
    """Bytes of one relaxation sweep over the arcs: row pointers, targets, int32 weights."""
    return 4 * (n + 1) + 8 * m


def relaxation_sweeps(stats: dict, k: int, m: int = 1) -> tuple[float, bool]:
    """Sweeps over the arcs in a run, from the solver's stats; (k, False) when the stats
    do not say, a lower bound (each of the k sources reads each arc at least once)."""
    if "relaxation_sweeps" in stats:
        return float(stats["relaxation_sweeps"]), True
    if "relaxations" in stats:                             # worklist: arcs relaxed, in sweeps
        return float(stats["relaxations"]) / max(m, 1), True
    if "sweeps" in stats:                                  # (min,+) SpMV
        return float(stats["sweeps"]), True
    if "iterations_per_group_mean" in stats:               # task-parallel: one sweep per group
        return float(stats["iterations_per_group_mean"]) * stats.get("groups", 1), True
    if "iterations_per_sssp_mean" in stats:                # one SSSP at a time
        return float(stats["iterations_per_sssp_mean"]) * stats.get("sssp", k), True
    if isinstance(stats.get("iterations"), (int, float)):  # Bellman-Ford, summed over sources
        return float(stats["iterations"]), True
    return float(k), False


def rates(df: pd.DataFrame, dense_keys: set) -> pd.DataFrame:
    """Achieved rates of the verified GPU all-pairs runs: (min,+)/s = n^3 / time for the dense
    methods, GB/s = sweeps x csr_bytes / time for the SSSP-based ones (unscaled time of the
    sources actually timed)."""
    rows = []
    for r in df[(df["problem"] == "apsp") & df["on_gpu"] & df["ok"] & (df["dtype"] == "int32")].itertuples():
        t = r.time_ms / r.scale * 1e-3
        if r.key in dense_keys:
            rows.append({"key": r.key, "kind": "dense", "topology": r.topology, "n": r.n, "m": r.m,
                         "rate": float(r.n) ** 3 / t, "unit": "(min,+)/s", "exact_bytes": True})
        else:
            stats = json.loads(r.stats)
            sweeps, exact = relaxation_sweeps(stats, int(r.timed_sources or r.n), r.m)
            rows.append({"key": r.key, "kind": "sparse", "topology": r.topology, "n": r.n,
                         "m": r.m, "rate": sweeps * csr_bytes(r.n, r.m) / t, "unit": "B/s",
                         "exact_bytes": exact})
    return pd.DataFrame(rows)


def rate_summary(rate_df: pd.DataFrame, peaks: dict) -> pd.DataFrame:
    """Per method: its best achieved rate, where, and the fraction of this run's ceiling
    (int32 (min,+) peak for dense methods, device copy bandwidth for SSSP-based ones)."""
    rows = []
    for key, grp in (rate_df.groupby("key") if len(rate_df) else []):
        best = grp.loc[grp["rate"].idxmax()]
        dense = best["kind"] == "dense"
        ceiling = peaks.get("minplus_int32_per_s" if dense else "copy_bytes_per_s")
        rows.append({"method": key, "kind": best["kind"], "n": int(best["n"]), "m": int(best["m"]),
                     "topology": best["topology"],
                     "best_rate": best["rate"] / (1e12 if dense else 1e9),
                     "unit": "T (min,+)/s" if dense else "GB/s",
                     "fraction_of_ceiling": best["rate"] / ceiling if ceiling else np.nan,
                     "bytes": "" if dense else
                     ("sweeps from stats" if best["exact_bytes"] else "lower bound")})
    return pd.DataFrame(rows)


PRODUCT_VARIANT = "t128k32"  # the fast product's best tile on an H100 (apsp_kernels/minplus/product_fast.py)


PRODUCT_SIZES = (4096, 8192)


def dense_ceilings() -> dict:
    """The (min,+) peak of this GPU, measured now (int32 with DPX, float32, float64), and the
    fast product alone at PRODUCT_SIZES (``product_per_s``: the best int32 of them;
    ``product_float64_n*_per_s``: the float64 kernels, judged against the float64 peak)."""
    from ..minplus import product
    from ..minplus.product_fast import measure_product
    peaks = {f"minplus_{np.dtype(t).name}_per_s": product.measure_peak(t)["ops_per_s"]
             for t in (np.int32, np.float32, np.float64)}
    for n in PRODUCT_SIZES:
        peaks[f"product_int32_n{n}_per_s"] = measure_product(n, np.int32, PRODUCT_VARIANT)["ops_per_s"]
        peaks[f"product_float64_n{n}_per_s"] = measure_product(n, np.float64, "t128")["ops_per_s"]
    peaks["product_per_s"] = max(peaks[f"product_int32_n{n}_per_s"] for n in PRODUCT_SIZES)
    return peaks


def measure_peaks() -> dict:
    """Ceilings of this GPU, measured now: :func:`dense_ceilings`, copy bandwidth and the
    empty-kernel launch time."""
    return {"device": gpu.device_info()["device"], **dense_ceilings(),
            "copy_bytes_per_s": timing.copy_bandwidth()["bytes_per_s"],
            "launch_us": timing.launch_latency()["us_per_launch"]}


# ------------------------------------------------------------------ the decision table
def decision_records(records) -> list:
    """The records auto's table may learn from: GPU runs whose time is the problem they timed
    (auto.table_from_records keeps the verified, fully measured ones)."""
    return [r for r in records if r.timing_scope != "cpu" and not solved_fewer_sources(r.stats)]


def write_decision_table(records, cfg: dict, path):
    """Replace ``shortest_path(method="auto")``'s decision table with this map's verified,
    fully measured GPU runs; only a GPU run of the default or paper profile writes it (a smoke
    or CPU-only run would replace measured rows with none). Returns the table or None."""
    if cfg["profile"] == "smoke" or not gpu.available():
        return None
    from ..csgraph import auto
    return auto.write_table(decision_records(records), path)


# ------------------------------------------------------------------ the analysis of a sweep
def analyse(records, peaks: dict, output_dir, device: str, methods=None) -> dict:
    """Coverage, failures, winners (and their figures) and the roofline (figure and table) of
    a sweep's records, written to ``output_dir``; ``device`` titles the figures. Returns the
    tables by name (``winners`` is a dict per problem)."""
    df = frame(records)
    out = {"records": df}
    out["coverage"] = report.save_table(
        coverage(df), output_dir, "coverage",
        title="Per method and problem: runs measured, verified, extrapolated, skipped (why)",
        note="predicted: over the per-run cap; capped: a smaller size was; skipped after: an error or "
             "memory ended the series; dominated: more than `dominated_x` times slower than a cell's "
             "winner, so the series ends.")
    out["failures"] = report.save_table(failures(df), output_dir, "failures",
                                        title="Runs that raised, did not verify or solved fewer sources than timed")
    win = {p: winners(df, p) for p in PROBLEMS}
    colors = method_colors(pd.concat(win.values())["winner"] if len(df) else [])
    for problem, table in win.items():
        report.save_table(table, output_dir, f"winners_{problem}",
                          title=f"Fastest verified GPU method per cell, {PROBLEMS[problem]} (times in ms)",
                          note="GPU: kernel time (CUDA events); SciPy: host clock, one core. "
                               "extrapolated: the winner's time is scaled from sampled sources.")
        fig = plot_winners(table, f"Fastest verified method, {PROBLEMS[problem]} — {device}", colors)
        report.savefig(fig, output_dir, f"winners_{problem}")
    out["winners"] = win
    rate_df = rates(df, dense_keys(methods))
    fig = plot_roofline(rate_df, peaks, f"Achieved rates vs. measured ceilings — {device}")
    report.savefig(fig, output_dir, "roofline")
    out["roofline"] = report.save_table(
        rate_summary(rate_df, peaks), output_dir, "roofline",
        title="Best achieved rate per method and its fraction of the ceiling",
        note="Ceiling: int32 (min,+) peak (dense), device copy bandwidth (SSSP-based).")
    return out


def peaks_from_table(path) -> dict:
    """The ceilings of ``table_peaks.csv`` back in the units :func:`measure_peaks` returns."""
    table = pd.read_csv(path)
    return {r.ceiling: float(r.value) * UNIT_SCALE[r.unit] for r in table.itertuples()}


# ------------------------------------------------------------------ figures
def plot_winners(win: pd.DataFrame, title: str, colors: dict | None = None):
    """One panel per topology: n across, density up, colour = the fastest verified method,
    text = speed-up over SciPy on one host core (hatched: a capped method may be faster)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    topos = [t for t in TOPOLOGIES if t in set(win["topology"])] if len(win) else []
    colors = colors or method_colors(win["winner"] if len(win) else [])
    fig, axes = plt.subplots(1, max(len(topos), 1), figsize=(4.2 * max(len(topos), 1), 3.6),
                             squeeze=False)
    for ax, topo in zip(axes[0], topos):
        cell = win[win["topology"] == topo]
        xs = sorted(set(cell["n"]))
        ys = cell.drop_duplicates("density").sort_values("density_value")["density"].tolist()
        for r in cell.itertuples():
            x, y = xs.index(r.n), ys.index(r.density)
            face = colors.get(r.winner, "white") if r.winner else "whitesmoke"
            ax.add_patch(plt.Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor=face, edgecolor="grey",
                                       hatch="//" if r.undecided else None))
            text = f"{r.speedup_vs_scipy:.3g}x" if np.isfinite(r.speedup_vs_scipy) else \
                ("-" if not r.winner else "")
            ax.text(x, y, text + ("*" if r.extrapolated else ""), ha="center", va="center",
                    fontsize=6)
        ax.set(xlim=(-0.5, len(xs) - 0.5), ylim=(-0.5, len(ys) - 0.5), title=topo,
               xlabel="vertices n", ylabel="arcs per vertex m/n")
        ax.set_xticks(range(len(xs)), [str(x) for x in xs], rotation=60, fontsize=7)
        ax.set_yticks(range(len(ys)), ys, fontsize=7)
    handles = [Patch(facecolor=c, label=k) for k, c in colors.items() if k in set(win["winner"])]
    handles.append(Patch(facecolor="whitesmoke", edgecolor="grey", label="no verified GPU run"))
    fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=7, bbox_to_anchor=(0.5, -0.18))
    fig.suptitle(title + "\ncell text: speed-up over SciPy (one host core); * = extrapolated from "
                 "sampled sources; hatched = a method skipped by the cap is predicted faster",
                 fontsize=9)
    fig.tight_layout()
    return fig


def method_colors(keys) -> dict:
    keys = sorted({k for k in keys if k})
    cmap = __import__("matplotlib").colormaps["tab20"]
    return {k: cmap(i % 20) for i, k in enumerate(keys)}


def plot_roofline(rate_df: pd.DataFrame, peaks: dict, title: str):
    """Achieved (min,+)/s (dense, vs n) and GB/s (SSSP-based, vs m) under this run's peaks."""
    import matplotlib.pyplot as plt

    fig, (ax_d, ax_s) = plt.subplots(1, 2, figsize=(13, 4.8))
    for ax, kind, x, scale in ((ax_d, "dense", "n", 1e12), (ax_s, "sparse", "m", 1e9)):
        sub = rate_df[rate_df["kind"] == kind] if len(rate_df) else rate_df
        for key, grp in (sub.groupby("key") if len(sub) else []):
            best = grp.groupby(x)["rate"].max().sort_index()
            lower = kind == "sparse" and not grp["exact_bytes"].all()
            ax.plot(best.index, best.values / scale, marker="o", markersize=3,
                    linestyle=":" if lower else "-",
                    label=key + (" (lower bound: 1 sweep per source)" if lower else ""))
        ax.set(xscale="log", yscale="log")
        ax.grid(True, which="both", alpha=0.3)
    for name, style in (("minplus_int32_per_s", "-"), ("minplus_float32_per_s", "--"),
                        ("minplus_float64_per_s", "-."), ("product_per_s", ":")):
        if name in peaks:
            ax_d.axhline(peaks[name] / 1e12, color="black", linestyle=style, linewidth=1,
                         label=f"peak {name.replace('_per_s', '')}: {peaks[name] / 1e12:.3g} T/s")
    if "copy_bytes_per_s" in peaks:
        ax_s.axhline(peaks["copy_bytes_per_s"] / 1e9, color="black", linewidth=1,
                     label=f"device copy (read+write): {peaks['copy_bytes_per_s'] / 1e9:.4g} GB/s")
    ax_d.set(xlabel="vertices n", ylabel="achieved (min,+) ops/s = n^3 / time (T/s)",
             title="dense all-pairs methods")
    ax_s.set(xlabel="arcs m", ylabel="achieved GB/s = sweeps x CSR bytes / time",
             title="SSSP-based methods (all pairs, best over topologies)")
    if "launch_us" in peaks:
        ax_s.text(0.01, 0.01, f"empty-kernel launch: {peaks['launch_us']:.3g} µs", fontsize=8,
                  transform=ax_s.transAxes)
    for ax in (ax_d, ax_s):
        if ax.lines:
            ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


UNIT_SCALE = {"T (min,+)/s": 1e12, "GB/s": 1e9, "µs": 1.0}
PEAK_UNITS = {"minplus_int32_per_s": "T (min,+)/s", "minplus_float32_per_s": "T (min,+)/s",
              "product_per_s": "T (min,+)/s", "product_int32_n4096_per_s": "T (min,+)/s",
              "product_int32_n8192_per_s": "T (min,+)/s", "minplus_float64_per_s": "T (min,+)/s",
              "product_float64_n4096_per_s": "T (min,+)/s", "product_float64_n8192_per_s": "T (min,+)/s",
              "copy_bytes_per_s": "GB/s", "launch_us": "µs"}


def peaks_table(peaks: dict) -> pd.DataFrame:
    return pd.DataFrame([{"ceiling": k, "value": v / UNIT_SCALE[PEAK_UNITS[k]], "unit": PEAK_UNITS[k]}
                         for k, v in peaks.items() if k in PEAK_UNITS])


# ------------------------------------------------------------------ the dtype axis (issue 29)
def road_graph(spec: dict) -> Graph:
    """The road network of :func:`road_sssp`: a dataset (or its labelled stand-in) or, in the
    smoke profile, a small road-like graph labelled as the stand-in it is."""
    if spec["kind"] == "dataset":
        return datasets.load_or_stand_in(spec["name"])
    g = generators.road_like(spec["n"], spec["m"], seed=0)
    label = f"small stand-in for USA-road-d.{spec['for']} ({g.meta.get('label', 'road-like')})"
    return Graph(g.n, g.indptr, g.indices, g.weights, name=f"{g.name}-for-{spec['for']}",
                 meta={**g.meta, "stand_in": True, "label": label})


def road_sssp(cfg: dict, methods=None, log=None) -> list[Record]:
    """One source (the seeded order's first) of the road network, by every SSSP family of
    FLOAT64_FAMILIES, on its int32 weights and on its float64 twin (:func:`as_float64`); each run
    verified against the oracle. Experiment ``road_sssp``; the map's ``dtype`` in the stats."""
    g = road_graph(cfg["road"])
    source = source_order(g.n, cfg["seed"])[:1].copy()
    out = []
    for graph, dtype in ((g, "int32"), (as_float64(g, cfg["seed"]), "float64")):
        extra = {"topology": "road", "density": g.m / g.n, "series": "road_network", "dtype": dtype}
        for method in (m for m in float64_methods(methods) if per_source(m)):
            plan = Plan(k=1, sources=source, verify_rows=np.arange(1), repeats=cfg["repeats"])
            with logged(log, f"{method.key} road_sssp {graph.name} ({dtype})", cfg["watchdog_s"]):
                out.append(run_planned(method, "road_sssp", graph, plan, cfg, extra))
    return out


def dtype_comparison(df: pd.DataFrame, peaks: dict | None = None) -> pd.DataFrame:
    """Per family of FLOAT64_FAMILIES and float64 run (verified, on the GPU): its time beside the
    int32 time of the same family on the same graph and problem (the family's int32 method:
    csgraph.families; all-pairs times scaled to n sources, ``extrapolated`` when either is), the ratio, and for the dense families the float64 rate n^3 / time
    and its fraction of the same run's float64 (min,+) peak (``minplus_float64_per_s``).
    ``df``: :func:`frame` of the sweep's records, of :func:`road_sssp`'s, or of both."""
    from ..csgraph.families import FAMILIES
    peak = (peaks or {}).get("minplus_float64_per_s")
    ok = df[df["on_gpu"] & df["ok"]] if len(df) else df
    rows = []
    for name in FLOAT64_FAMILIES if len(ok) else ():
        fam = FAMILIES[name]
        narrow = ok[(ok["key"] == fam.int32) & (ok["dtype"] == "int32")]
        for r in ok[(ok["key"] == fam.float64) & (ok["dtype"] == "float64")].itertuples():
            same = narrow[(narrow["problem"] == r.problem) & (narrow["base_series"] == r.base_series)
                          & (narrow["n"] == r.n)]
            int_ms = float(same["time_ms"].iloc[0]) if len(same) else np.nan
            dense = name in DENSE_FAMILIES
            rate = float(r.n) ** 3 / (r.time_ms * 1e-3) if dense else np.nan
            rows.append({"family": name, "problem": r.problem, "series": r.base_series, "n": int(r.n),
                         "m": int(r.m), "int32_method": fam.int32, "int32_ms": int_ms,
                         "float64_method": fam.float64, "float64_ms": float(r.time_ms),
                         "float64_over_int32": float(r.time_ms) / int_ms,
                         "extrapolated": bool(r.extrapolated or (len(same) and same["extrapolated"].iloc[0])),
                         "float64_T_per_s": rate / 1e12,
                         "of_float64_peak": rate / peak if dense and peak else np.nan})
    return pd.DataFrame(rows, columns=["family", "problem", "series", "n", "m", "int32_method", "int32_ms",
                                       "float64_method", "float64_ms", "float64_over_int32",
                                       "extrapolated", "float64_T_per_s", "of_float64_peak"])


DENSE_TARGET = (8192, 0.8)  # issue 29: float64 dense APSP at >= 80 % of the float64 peak for n >= 8192
SSSP_TARGET = 1.5           # issue 29: float64 SSSP on NY within 1.5x of the int32 time


def dtype_verdicts(sweep_cmp: pd.DataFrame, road_cmp: pd.DataFrame, road: str) -> list[dict]:
    """The issue's two float64 targets, judged from :func:`dtype_comparison` tables: the best
    dense family of each float64 cell with n >= 8192 against the same run's float64 peak, and
    the fastest float64 SSSP family on the road network ``road`` against the fastest int32 one
    (what ``method="auto"`` would run in each weight type)."""
    n_min, share = DENSE_TARGET
    dense = sweep_cmp[sweep_cmp["family"].isin(DENSE_FAMILIES) & (sweep_cmp["problem"] == "apsp")
                      & (sweep_cmp["n"] >= n_min) & sweep_cmp["of_float64_peak"].notna()]
    if dense.empty:
        holds, measured = None, f"not run (no verified float64 dense run with n >= {n_min} and a measured peak)"
    else:
        best = dense.loc[dense.groupby(["series", "n"])["of_float64_peak"].idxmax()]
        holds = bool((best["of_float64_peak"] >= share).all())
        measured = "; ".join(f"{r.family} {r.of_float64_peak:.0%} ({r.float64_T_per_s:.3g} T/s) on {r.series} "
                             f"n={r.n}" for r in best.itertuples())
    out = [{"claim": f"float64 dense APSP reaches >= {share:.0%} of the same run's float64 (min,+) peak "
                     f"for n >= {n_min} (issue 29, the project's target)",
            "published": f">= {share:.0%} of the float64 (min,+) peak", "measured": measured, "holds": holds,
            "note": "best dense family (FW, blocked_fw) per float64 cell; rate n^3 / kernel time"}]
    sssp = road_cmp[~road_cmp["family"].isin(DENSE_FAMILIES)] if len(road_cmp) else road_cmp
    if len(sssp) == 0 or sssp["int32_ms"].isna().all():
        holds, measured = None, "not run (no verified int32 and float64 SSSP pair on the road network)"
    else:
        wide, narrow = sssp.loc[sssp["float64_ms"].idxmin()], sssp.loc[sssp["int32_ms"].idxmin()]
        ratio = wide["float64_ms"] / narrow["int32_ms"]
        holds = bool(ratio <= SSSP_TARGET)
        measured = (f"{ratio:.2f}x: float64 {wide['family']} {wide['float64_ms']:.3g} ms vs int32 "
                    f"{narrow['family']} {narrow['int32_ms']:.3g} ms")
    out.append({"claim": f"float64 SSSP on {road} is within {SSSP_TARGET:g}x of the int32 time "
                         f"(issue 29, the project's target)",
                "published": f"<= {SSSP_TARGET:g}x", "measured": measured, "holds": holds,
                "note": "fastest verified family in each weight type, one source; per family: table_dtype_road"})
    return out


def road_label(cfg: dict) -> str:
    return f"USA-road-d.{cfg['road'].get('name') or cfg['road']['for']}"


def analyse_dtypes(records, road_records, peaks: dict, cfg: dict, output_dir) -> dict:
    """The float64-vs-int32 tables of the sweep's float64 cells (``dtype``) and of the road
    network (``dtype_road``), and the issue's two float64 verdicts, written to ``output_dir``."""
    note = ("float64 twin: each integer weight plus a seeded fraction in [0, 1); same graph, problem "
            "and family in int32 (the family's int32 method); kernel times (CUDA events), ms. "
            "of_float64_peak: n^3 / time over the float64 (min,+) peak measured in this run.")
    sweep_cmp = report.save_table(dtype_comparison(frame(records), peaks), output_dir, "dtype",
                                  title="float64 beside int32 per family, problem and size", note=note)
    road_cmp = report.save_table(dtype_comparison(frame(road_records), peaks), output_dir, "dtype_road",
                                 title=f"SSSP from one source of {road_label(cfg)}: float64 beside int32",
                                 note=note)
    verdicts = report.add_verdicts(output_dir, dtype_verdicts(sweep_cmp, road_cmp, road_label(cfg)))
    return {"dtype": sweep_cmp, "dtype_road": road_cmp, "verdicts": pd.DataFrame(verdicts)}


# ------------------------------------------------------------------ what each verdict rests on
EVIDENCE = [
    Evidence(r"float64 dense APSP", "apsp", method=("rkleene", "fw_tiled_shared"),
             where=f"n >= {DENSE_TARGET[0]} and graph.str.endswith('-f64')"),
    Evidence(r"float64 SSSP on", "road_sssp"),
]
