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

import functools
import json
import math
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import datasets, generators, gpu, host_cpu, multi_gpu, report, timing  # noqa: F401 (timing: tests patch mm.timing.run)
from ..errors import InputError
from ..graph import Graph
from ..profiles import choose
from ..records import Record, solved_fewer_sources
from ..verdicts import Evidence
from . import map_spread
from .map_plan import (Plan, Point, dominated, ends_series, int32_series, logged, nearest_series,  # noqa: F401
                       oracle_rows, plan_run, predict_ms, run_planned, _skipped)
from .map_roofline import (PEAK_UNITS, PRODUCT_SIZES, PRODUCT_VARIANT, UNIT_SCALE, csr_bytes,  # noqa: F401
                           dense_ceilings, measure_peaks, peaks_from_table, peaks_table, plot_roofline,
                           rate_summary, rates, relaxation_sweeps)
from .map_space import (DENSE_FAMILIES, FLOAT64_FAMILIES, FLOAT64_SERIES, PROBLEMS, REFERENCE,  # noqa: F401
                        ROAD_DENSITY, TOPOLOGIES, as_float64, dense_keys, density_label, float64_methods,
                        map_methods, per_source, reference_method)
from .map_tables import (coverage, dtype_comparison, failures, frame, method_colors, plot_winners,  # noqa: F401
                         short_of_sources, winners)
from .okuyama_space import source_order  # noqa: F401

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
        # (below it launches and set-up decide, not the work that grows with n); the paper profile
        # too: a method that far behind cannot win the next sizes, and timing every one up to its
        # 5 s cap at every size took a group of series 40 s a cell already at n = 2048 (H200)
        "dominated_x": choose(profile, smoke=math.inf, default=16.0),
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

# ------------------------------------------------------------------ graphs
def densities(topology: str, n: int, cfg: dict) -> list:
    """The nominal densities (arcs per vertex) of ``topology`` at n vertices."""
    if topology == "random":
        return [d for d in cfg["densities"] if d < n - 1]
    if topology == "rmat":  # drawing distinct arcs from the skewed model slows, then fails, as it fills
        return [d for d in cfg["densities"] if 32 * d <= n and 2 * d * n <= cfg["max_arcs"]]
    return [{"road": ROAD_DENSITY, "ring": 1, "complete": n - 1}[topology]]

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

# ------------------------------------------------------------------ the sweep
@dataclass
class Sweep:
    records: list = field(default_factory=list)
    cells: list = field(default_factory=list)  # one dict per graph: size, generation time, status

def save(result: Sweep, out_dir, group: str = "") -> None:
    """``records_sssp.csv`` and ``records_apsp.csv`` of the cells swept so far (a group's of the
    sweep spread over GPUs: ``records_<problem>@<group>.csv``, :mod:`.map_spread`)."""
    for problem in PROBLEMS:
        report.save_records([r for r in result.records if r.experiment == problem], out_dir,
                            map_spread.part_name(problem, group))

def reusable_runs(out_dir) -> dict:
    """(method key, problem, graph) -> the record of a run that an unfinished sweep of the same
    profile and code measured (kept by ``reproduce --resume``, whole or in its groups' files; see
    :func:`apsp_kernels.report.reusable`); {} for none. A run it skipped is planned again: the
    budget left, or the device, may differ now."""
    if out_dir is None:
        return {}
    names = [e for e in report.resumable(out_dir).get("experiments", [])
             if any(map_spread.is_part_of(e, p) for p in PROBLEMS)]
    kept = [r for name in names for r in (report.reusable(out_dir, name, partial=True) or [])]
    return {(f"{r.paper}:{r.method}", r.experiment, r.graph): r for r in kept if not r.skipped}

def sweep(cfg: dict, methods=None, clock=host_cpu.clock_without_waits, log=None, out_dir=None,
          group: str = "", reuse: dict | None = None) -> Sweep:
    """Every method on every cell of the map (see the module docstring). ``log``: a text file
    that gets a line per graph and run as it starts and ends (see :func:`logged`).

    ``out_dir``: the records are saved there after every graph (:func:`save`), so that a sweep
    killed part way is resumed by ``reproduce --resume``: each run that the unfinished sweep
    finished is taken from its records instead of measured again, and the plans, predictions
    and stopped series follow from them as they did. The time budget goes on from what the
    unfinished sweep had spent by its last saved run (each run's stats ``sweep_s``: the sweep's
    seconds when it ended, resumed parts included). The default ``clock`` leaves out the time
    spent waiting for the host's CPU lock (notebooks side by side: :mod:`apsp_kernels.host_cpu`).
    ``group`` and ``reuse``: one group of :func:`sweep_on_gpus` (its records' file name, and the
    runs to take from an unfinished sweep instead of reading them from ``out_dir``)."""
    methods = map_methods() if methods is None else list(methods)
    reuse = reusable_runs(out_dir) if reuse is None else dict(reuse)
    spent = max((float(r.stat("sweep_s", 0.0) or 0.0) for r in reuse.values()), default=0.0)
    saved = -1  # records saved to out_dir so far (none yet)
    entries = [(m, per_source(m)) for m in methods] + [(reference_method(), True)]
    history: dict[tuple, list[Point]] = {}
    stopped: dict[tuple, str] = {}  # series ended by an error, memory, the cap or dominance
    last_m: dict[tuple, int] = {}    # arcs of each series' latest cell
    out = Sweep()
    start = clock() - spent
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
                    rec.stats = json.dumps({**json.loads(rec.stats or "{}"), "sweep_s": round(clock() - start, 1)})
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
                elif ends_series(rec):
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
            save(out, out_dir, group)
            saved = len(out.records)
    if out_dir is not None and saved != len(out.records):  # the cells after the last graph built
        save(out, out_dir, group)
    return out

def sweep_group(group: map_spread.Group, out_dir=None, methods=None) -> Sweep:
    """One group of :func:`sweep_on_gpus` (a task on a GPU's Dask worker)."""
    return sweep(group.cfg, methods=methods, out_dir=out_dir, group=group.name, reuse=group.reuse)

def sweep_on_gpus(cfg: dict, out_dir=None, gpus=None, methods=None, run_on_gpus=None) -> Sweep:
    """:func:`sweep` spread over the host's GPUs in groups of whole series (:mod:`.map_spread`),
    one group per GPU at a time, merged in the map's cell order; the plain sweep where the host
    has one GPU (or dask-cuda is missing, said). Each group saves its records as it goes, so a
    run killed part way resumes in every group; once all are merged, the whole sweep's files
    replace the groups'. ``run_on_gpus``: :func:`apsp_kernels.multi_gpu.run_on_gpus` on a local
    CUDA cluster unless given (tests run the groups in this process)."""
    gpus = gpu.visible_gpus() if gpus is None else list(gpus)
    groups = map_spread.groups(cfg, cells(cfg))
    why = "" if run_on_gpus else multi_gpu.why_not_parallel(gpus, len(groups))
    if why:
        if len(gpus) > 1:
            print(f"the method map runs on one GPU: {why}", flush=True)
        return sweep(cfg, methods=methods, out_dir=out_dir)
    gpu.free_pool()  # this process's cached blocks (the peaks' buffers) leave the first GPU to its group
    reuse = reusable_runs(out_dir)
    for g in groups:
        g.reuse = {k: r for k, r in reuse.items() if map_spread.series_of(r) in g.series}
    start = time.perf_counter()

    def on_start(g, gpu_id):
        print(f"{g.name}: {g.graphs} graphs on GPU {gpu_id} ({time.perf_counter() - start:.0f} s)", flush=True)

    def on_done(g, result):
        how = f"failed: {type(result).__name__}: {result}" if isinstance(result, BaseException) else "done"
        print(f"{g.name}: {how} ({time.perf_counter() - start:.0f} s)", flush=True)

    work = functools.partial(sweep_group, out_dir=out_dir, methods=methods)
    print(f"method map over {len(gpus)} GPUs in {len(groups)} groups of whole series, largest first: "
          + ", ".join(g.name for g in groups), flush=True)
    run = run_on_gpus or functools.partial(multi_gpu.run_on_gpus, make_client=multi_gpu.local_cuda_client)
    with host_cpu.shared_by_notebooks(tempfile.gettempdir()):  # the groups' host timings take turns
        parts = run(groups, work, gpus, on_start=on_start, on_done=on_done)
    if out_dir is not None:
        report.write_run_info(out_dir, spread=(
            f"the sweep in {len(groups)} groups of whole series over GPUs {', '.join(gpus)}, one group per GPU "
            "at a time; their host-clock timings (SciPy's reference line) and oracle runs took turns on the "
            "host's CPU lock (apsp_kernels.host_cpu)"))
    failed = [f"{g.name} ({type(p).__name__}: {p})" for g, p in zip(groups, parts) if isinstance(p, BaseException)]
    if failed:
        raise RuntimeError(f"the method map's groups {', '.join(failed)} did not finish; what every group "
                           f"measured is saved in {out_dir}: run the notebook again with reproduce --resume")
    order = map_spread.cell_order(cfg)
    out = Sweep(records=sorted((r for p in parts for r in p.records), key=order),
                cells=sorted((c for p in parts for c in p.cells), key=order))
    if out_dir is not None:
        save(out, out_dir)
        map_spread.remove_parts(out_dir)
    return out

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

# ------------------------------------------------------------------ the dtype axis (issue 29)
def road_graph(spec: dict) -> Graph:
    """The road network of :func:`road_sssp`: a dataset (or its labelled stand-in) or, in the
    smoke profile, a small road-like graph labelled as the stand-in it is."""
    if spec["kind"] == "dataset":
        return datasets.load_or_stand_in(spec["name"])
    g = generators.road_like(spec["n"], spec["m"], seed=0)
    label = f"small stand-in for USA-road-d.{spec['for']} ({g.meta.get('label', 'road-like')})"
    return g.as_stand_in(label, name=f"{g.name}-for-{spec['for']}")


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
