"""The method map's planner (:mod:`apsp_kernels.experiments.method_map`): each run's time predicted
from its series' smaller sizes, its sources, repeats and checked rows, or why it is skipped; a
planned run timed and recorded, and the series that borrow from or stop another."""
from __future__ import annotations

import contextlib
import faulthandler
import json
import math
import time
from dataclasses import dataclass

import numpy as np

from .. import timing
from ..errors import InputError
from ..graph import Graph
from ..records import Record, solved_fewer_sources
from .map_space import FLOAT64_SERIES, PROBLEMS
from .okuyama_space import source_order  # seeded permutation: sampled sources and checked rows are prefixes


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


def _skipped(method, problem, graph_name, n, m, why, cfg, extra) -> Record:
    return Record(paper=method.paper, experiment=problem, method=method.name, graph=graph_name,
                  n=n, m=m, skipped=why, profile=cfg["profile"],
                  timing_scope="kernel" if method.gpu else "cpu", stats={"map": extra})


NOT_APPLICABLE = "not applicable"  # a run the method refused with an InputError: a limit it states, not a failure


def ends_series(rec: Record) -> bool:
    """Whether a skipped run stops its series (larger graphs of it are not tried): an error, a
    refusal (larger inputs are refused alike) or a lack of memory."""
    return rec.skipped.startswith(("error", NOT_APPLICABLE)) or "memory" in rec.skipped.lower()


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
    except InputError as exc:  # the method declines this input (one source only, float32 rounding...)
        why = f"{NOT_APPLICABLE}: {' '.join(str(exc).split())[:300]}"
        return _skipped(method, problem, graph.name, graph.n, graph.m, why, cfg, extra)
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
