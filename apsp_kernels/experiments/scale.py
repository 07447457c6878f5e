"""All-pairs past one GPU (notebooks/scale.ipynb): apsp_kernels.distributed on 1 and 2 GPUs.

* road reductions: every source of NY (BAY in the paper profile) reduced (eccentricity,
  closeness, harmonic, diameter, radius, histogram) on 1 and 2 GPUs, beside the host's CPU
  cores (SciPy's Dijkstra on a CPU LocalCluster, sampled and extrapolated, labelled). A dry
  run estimates each run first; a run the budget cannot hold is a labelled sample.
* Gnutella30 all-pairs written in full to a Zarr store: bytes and time.
* bulk: Takafuji's m instances of n = 1024 on 1 vs 2 GPUs.
* batched PHAST (issue 30): per-tree time against K and its memory bound, every source of the
  roads reduced in process on one GPU, and road-like stand-ins of 1M-16M vertices (labelled).
* every source on 1, 2 and 4 GPUs (issue 45, :mod:`.continent`): the roads in full, the stand-ins
  (paper profile, up to USA-road-d.USA's size) as samples of whole blocks; the same bits on each.

Without a GPU (smoke, CI) the "GPU" runs use CPU workers (1 and 2 processes) on small
stand-in graphs, so the notebook runs to the end; records say which device ran.
"""
from __future__ import annotations

import math
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from .. import datasets, generators, gpu, host_cpu, timing
from ..verdicts import Evidence, beside_goal
from ..distributed import all_sources, bulk_instances, cluster, estimate
from ..distributed.estimate import describe
from ..profiles import check, choose
from ..records import Record
from ..report import label
from ..sampling import scaled_sample
from . import continent, continent_claims
from .scale_runs import (PAPER, device_of, median_run, open_cluster, run_record, verify_reductions,  # noqa: F401
                         verify_store, worker_unit, workers_count)
from .scale_phast import (CONTRACTION_METHOD, PHAST_CONTRACTION_GOAL_S, PHAST_GOALS_S, PHAST_METHOD,  # noqa: F401
                          phast_figure, phast_records, phast_roads, phast_stand_ins, phast_verdicts)


def config(profile: str = "default", graph: str | None = None, gpus: int = 2,
           block_size: int | None = None) -> dict:
    """Sizes per profile; default (NY and BAY) fits about 5 minutes on two H200 (both GPU runs included)."""
    check(profile)
    smoke = profile == "smoke"
    return {
        "profile": profile,
        "processes": not smoke,  # smoke: CPU workers as threads (no process start-up)
        "roads": [graph] if graph else choose(profile, smoke=["NY"], default=["NY", "BAY"]),
        "road_stand_in_n": 400 if smoke else None,  # smoke: a small road-like stand-in
        "gpus": int(gpus),
        # None: all_sources' default for its block solver (16384 sources for PHAST, else 1024)
        "block_size": block_size or choose(profile, smoke=64, default=None),
        "estimate_sample": choose(profile, smoke=32, default=1024),
        # seconds a road run may take; longer runs are a labelled sample of the sources
        "budget_s": choose(profile, smoke=60, default=240, paper=1800),
        # runs of each road graph on each worker count: the records keep the median run (NY takes ~2 s;
        # one run's time moved by a few % between runs, as much as 1.9x against 1.85x)
        "road_repeats": choose(profile, smoke=1, default=3),
        "cpu_sample": choose(profile, smoke=32, default=256, paper=2048),
        "verify_sources": choose(profile, smoke=4, default=8),
        "gnutella": None if smoke else "gnutella30",
        "gnutella_stand_in_n": 200 if smoke else None,
        "gnutella_budget_s": choose(profile, smoke=60, default=45, paper=900),
        "bulk_m": choose(profile, smoke=8, default=16384),
        "bulk_n": choose(profile, smoke=64, default=1024),
        # batched PHAST (issue 30): one GPU, in process; stand-ins of these sizes (labelled)
        "phast": choose(profile, smoke=False, default=True),
        "phast_quick": False,
        "phast_stand_ins": choose(profile, smoke=(), default=(1 << 20,), paper=(1 << 20, 1 << 22, 1 << 24)),
        # a larger stand-in whose generation and contraction are projected beyond this is not run
        "phast_stand_in_budget_s": choose(profile, smoke=None, default=None, paper=600),
        # every source on 1, 2 and 4 GPUs, the same bits on each (issue 45): continent.config
        "continent": continent.config(profile),
    }


# ---------------------------------------------------------------------------- inputs
def road_graph(name: str, cfg: dict):
    if cfg["road_stand_in_n"]:
        n = cfg["road_stand_in_n"]
        g = generators.road_like(n, int(2.8 * n), seed=0, name=f"{name}-stand-in-{n}")
        return g.as_stand_in(f"small road-like stand-in for {name} (smoke profile)")
    return datasets.load_or_stand_in(name)


def gnutella_graph(cfg: dict):
    if cfg["gnutella_stand_in_n"]:
        n = cfg["gnutella_stand_in_n"]
        g = generators.k_regular_digraph(n, 2, seed=0, w_low=1, w_high=101, dtype=np.int32,
                                         name=f"gnutella-stand-in-{n}")
        return g.as_stand_in("small stand-in for p2p-Gnutella30 (smoke profile)")
    return datasets.load_or_stand_in(cfg["gnutella"])


def sample_for(ids: np.ndarray, est: dict, budget: float):
    """All sources when the dry run's estimate (:func:`estimate`; the upper end of its band where
    it has one) fits ``budget`` seconds, else a sample that does."""
    high = est["seconds_high"]
    full = high if np.isfinite(high) else est["seconds"]
    if full <= budget:
        return ids, 1.0, ""
    size = max(est["workers"], int(len(ids) * budget / max(full, 1e-12)))
    return scaled_sample(ids, size, why=f": the dry run estimated up to {full:.0f} s for all")


def road_run(graph, client, cfg, experiment) -> tuple[Record, dict]:
    """All sources of ``graph`` reduced on ``client``: a dry-run estimate, then the full run or
    a labelled sample when the estimate exceeds the budget, ``cfg["road_repeats"]`` times (the
    record keeps the median run; the repeats' reductions must agree bit for bit)."""
    device, scope = device_of(client)
    ids = np.arange(graph.n, dtype=np.int32)
    est = estimate(graph, client, sample=cfg["estimate_sample"], block_size=cfg["block_size"])
    print(describe(est))
    sources, scale, how = sample_for(ids, est, cfg["budget_s"])
    repeats = max(1, int(cfg.get("road_repeats", 1)))
    runs = [all_sources(graph, client, sources, block_size=cfg["block_size"],
                        desc=f"{graph.name} on {device}" + (f", run {i + 1} of {repeats}" if repeats > 1 else ""))
            for i in range(repeats)]
    run = median_run(runs)
    check_ = verify_reductions(graph, run, cfg["verify_sources"])
    if repeats > 1:
        same = all(r.reductions.same_as(run.reductions) for r in runs)
        check_ = {**check_, "verified": check_["verified"] and same,
                  "verify_scope": check_["verify_scope"] + f"; the {repeats} runs' reductions "
                                  + ("equal bit for bit" if same else "DIFFER")}
    rec = run_record(experiment, graph, run, device, scope, cfg, sources=len(sources), scale=scale,
                     how=how, check=check_, extra={"estimate_s": est["seconds"], "estimate": est["label"]},
                     repeat_seconds=[r.seconds for r in runs])
    return rec, {"run": run, "estimate": est}


def cpu_baseline(graph, cfg, experiment) -> Record:
    """SciPy's Dijkstra over every host core (a CPU LocalCluster), on a sample, extrapolated."""
    client = open_cluster(None, cfg["processes"])
    try:
        cluster.dashboard(client)
        device, _ = device_of(client)
        ids = np.arange(graph.n, dtype=np.int32)
        workers = workers_count(client)
        warm = all_sources(graph, client, ids[:workers], block_size=1, block_solver="scipy:dijkstra",
                           progress=False)
        del warm
        sources, scale, how = scaled_sample(ids, cfg["cpu_sample"])
        block = max(1, -(-len(sources) // (4 * workers)))
        with host_cpu.exclusive():  # every core: notebooks beside this one wait for it (and it for theirs)
            run = all_sources(graph, client, sources, block_size=block, block_solver="scipy:dijkstra",
                              desc=f"{graph.name} on {workers} CPU workers")
        check_ = verify_reductions(graph, run, cfg["verify_sources"])
        rec = run_record(experiment, graph, run, device, "cpu", {**cfg, "block_size": block},
                         sources=len(sources), scale=scale, how=how, check=check_)
    finally:
        cluster.close(client)
    return rec


def gnutella_to_zarr(graph, client, cfg, out_dir) -> tuple[Record, dict]:
    """Every row of ``graph`` into a Zarr store under ``out_dir`` (a labelled prefix of the
    sources when the estimate exceeds the budget): bytes on disk and time."""
    device, scope = device_of(client)
    store = Path(out_dir) / f"{graph.name}.rows"
    shutil.rmtree(store, ignore_errors=True)
    est = estimate(graph, client, sample=min(cfg["estimate_sample"], graph.n),
                   block_size=cfg["block_size"], store_dir=store, reduce=False)
    print(describe(est))
    ids = np.arange(graph.n, dtype=np.int32)
    sources, scale, how = ids, 1.0, ""
    if est["seconds"] > cfg["gnutella_budget_s"]:
        keep = max(1, int(len(ids) * cfg["gnutella_budget_s"] / est["seconds"]))
        sources, scale = ids[:keep], len(ids) / keep
        how = (f"wrote the first {keep} of {len(ids)} rows: the dry run estimated "
               f"{est['seconds']:.0f} s for all; time and bytes x {scale:.2f}")
    run = all_sources(graph, client, sources, block_size=cfg["block_size"], reduce=False, store=store,
                      desc=f"{graph.name} rows to Zarr")
    nbytes = run.store.nbytes_on_disk()
    check_ = verify_store(graph, run.store, cfg["verify_sources"])
    rec = run_record("gnutella_zarr", graph, run, device, scope, cfg, sources=len(sources), scale=scale,
                     how=how, check=check_,
                     extra={"bytes_on_disk": nbytes, "bytes_on_disk_all_rows": nbytes * scale,
                            "bytes_raw": len(sources) * graph.n * graph.dtype.itemsize,
                            "estimate_bytes": est["bytes_on_disk"], "estimate": est["label"]})
    shutil.rmtree(store, ignore_errors=True)  # GBs: the record keeps the numbers
    return rec, {"run": run, "estimate": est}


def bulk_run(client, cfg, experiment="bulk") -> Record:
    device, scope = device_of(client)
    m, n = cfg["bulk_m"], cfg["bulk_n"]
    res = bulk_instances(client, m, n, verify_per_task=1, warm=True)
    return Record(paper=PAPER, experiment=experiment, method=res["method"],
                  graph=f"{m} x 4-regular n={n}", n=n, m=4 * n,
                  params={"instances": m, "workers": res["workers"], "tasks": res["tasks"]},
                  time_ms_median=res["seconds"] * 1e3, time_ms_min=res["seconds"] * 1e3, repeats=1,
                  timing_scope=scope, verified=res["verified"], verify_scope=res["verify_scope"],
                  stats={"kernel_ms_per_task": res["kernel_ms"], "seconds_per_task": res["task_seconds"],
                         "phases_per_task": res["task_phases"],
                         "warm_up": "one untimed share of the task size per worker first",
                         "warm_up_per_worker": res["warm_up"], "workers": res["workers"]},
                  profile=cfg["profile"], device=device)


# ---------------------------------------------------------------------------- tables
RUN_NAMES = {"road_reductions": "{graph} reductions", "road_reductions_cpu": "{graph} reductions",
             "bulk": "bulk {graph}", "gnutella_zarr": "{graph} rows to Zarr"}


def run_name(record: Record) -> str:
    """A run in words for tables and plots: what ran, on how many GPUs or CPU workers, and whether
    its time is extrapolated (e.g. "NY reductions · 2 GPUs")."""
    what = RUN_NAMES.get(record.experiment, "{graph} " + record.experiment).format(graph=record.graph)
    workers = record.param("workers") or 1
    unit = ("CPU worker" if record.timing_scope == "cpu" else "GPU") + ("s" if workers != 1 else "")
    extrapolated = " (extrapolated)" if record.extrapolation else ""
    return f"{what} · {workers} {unit}{extrapolated}"


def scaling_table(records) -> pd.DataFrame:
    """Wall time per (experiment, graph, workers) (the median of ``runs``, the fastest beside it)
    and the scaling efficiency t1 / (w t_w)."""
    rows = []
    for r in records:
        rows.append({"run": run_name(r), "experiment": r.experiment, "graph": r.graph, "device": r.device,
                     "workers": r.param("workers"), "sources_run": r.stat("sources_run"),
                     "time_s": r.time_ms_median / 1e3, "runs": r.repeats, "fastest_s": r.time_ms_min / 1e3,
                     "method": r.method,
                     "verified": r.verified, "label": label(r).strip(" ()")})
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    df["speedup_vs_1"] = np.nan
    df["efficiency"] = np.nan
    for (exp, graph), grp in df.groupby(["experiment", "graph"]):
        one = grp[grp["workers"] == 1]
        if len(one):
            t1 = float(one["time_s"].iloc[0])
            df.loc[grp.index, "speedup_vs_1"] = t1 / grp["time_s"]
            df.loc[grp.index, "efficiency"] = t1 / (grp["workers"] * grp["time_s"])
    return df


def where_the_time_went(rec: Record) -> str:
    """A run's wall time split into the busiest worker's blocks and the rest (scheduling,
    transfers, the client's merge, the tail): the rest is what more workers do not shorten."""
    workers = rec.param("workers")
    # [seconds, blocks, sources, first start, last end]; older records lack the sources or the span
    each = ", ".join(f"{w[0]:.3f} s in {w[1]} blocks"
                     + (f" ({w[0] / w[2] * 1e6:.2f} µs per source)" if len(w) > 2 else "")
                     + (f" from {w[3]:.2f} to {w[4]:.2f} s" if len(w) > 4 else "")
                     for w in rec.stat("per_worker", []))
    repeats = rec.stat("repeat_seconds", [])
    median = f" (the median of {len(repeats)} runs, {min(repeats):.3f}-{max(repeats):.3f} s)" if repeats else ""
    return (f"{workers} worker{'s' * (workers != 1)}: {rec.time_ms_median / 1e3:.3f} s{median} = busiest worker's "
            f"blocks {rec.stat('busiest_worker_s'):.3f} s + {rec.stat('outside_blocks_s'):.3f} s outside them "
            f"(client merge {rec.stat('client_merge_s'):.3f} s)" + (f"; per worker {each}" if each else ""))


def bulk_scaling_note(one: Record, many: Record) -> str:
    """The bulk verdict's note: kernel-time scaling beside the wall-time one, and a warning when
    the wall-time speed-up exceeds the worker count (time lost outside the kernels, which the
    records' seconds_per_task and phases_per_task locate)."""
    workers = many.param("workers") or 1
    k1, kw = one.stat("kernel_ms_per_task", []), many.stat("kernel_ms_per_task", [])
    parts = [f"verified: {many.verify_scope}"]
    if k1 and kw:
        at_least = max(max(kw), sum(kw) / workers)  # the longest task, or an even split
        parts.append(f"kernel time {sum(k1) / 1e3:.2f} s on 1 vs {sum(kw) / 1e3:.2f} s in "
                     f"{len(kw)} task{'s' * (len(kw) != 1)} on {workers} (kernel-time scaling at most {sum(k1) / at_least:.2f}x)")
    warm = [", ".join(f"{w['seconds']:.2f}" for w in r.stat("warm_up_per_worker", [])) for r in (one, many)]
    if all(warm):
        parts.append(f"untimed warm-up share per worker: {warm[0]} s on 1, {warm[1]} s on {workers}")
    speedup = one.time_ms_median / many.time_ms_median
    if speedup > 1.05 * workers:
        tasks = ", ".join(f"{t:.2f}" for t in one.stat("seconds_per_task", []))
        parts.append(f"SUPERLINEAR: the 1-worker run lost time outside the kernels (its tasks took "
                     f"{tasks} s; see phases_per_task in records_bulk.csv)")
    return "; ".join(parts)


def bound_note(record: Record, graph, copy_bytes_per_s: float | None = None) -> str:
    """How far a run is from its bounds: the relaxations of its block solver against Dijkstra's
    m log2 n per source (when the solver counts its sweeps over the arcs), and its time against
    writing every distance once and reading it once for the reductions at the device copy
    bandwidth (``copy_bytes_per_s``, read + write; measured now on this GPU when None)."""
    sources, workers = record.stat("sources_run"), record.param("workers") or 1
    parts = []
    sweeps = record.stat("sweeps_per_source_mean")
    if sweeps:
        dijkstra = math.log2(max(graph.n, 2))
        parts.append(f"relaxations <= {sweeps:.0f} sweeps x m per source = {sweeps / dijkstra:.0f}x "
                     f"Dijkstra's m log2 n ({dijkstra:.1f} x m)")
    if copy_bytes_per_s is None and gpu.available():
        copy_bytes_per_s = timing.copy_bandwidth()["bytes_per_s"]
    if copy_bytes_per_s and sources:
        floor = 2 * sources * graph.n * 4 / (workers * copy_bytes_per_s)
        parts.append(f"byte bound (each int32 distance written and read once at {workers} x "
                     f"{copy_bytes_per_s / 1e12:.2f} TB/s, measured): {floor:.3g} s, the run took "
                     f"{record.time_ms_median / 1e3:.3g} s = {record.time_ms_median / 1e3 / floor:.0f}x")
    return "; ".join(parts) or "bound: neither sweep counts nor a GPU to measure the bandwidth on"

# ------------------------------------------------------------------ what each verdict rests on
def road_runs(roads: dict, records, cpu_records, cfg: dict):
    """Per road graph that ran on one and on every worker: ``(graph, one, many, cpu)`` records."""
    for g in roads.values():
        t = {r.param("workers"): r for r in records if r.graph == g.name}
        one, many = t.get(1), t.get(cfg["gpus"])
        if one is not None and many is not None:
            yield g, one, many, next(r for r in cpu_records if r.graph == g.name)


ROAD_SCALING_GOAL = 1.9  # two GPUs against one on the road reductions (issue 30)


def verdicts(roads: dict, records, cpu_records, bulk, cfg: dict, unit: str | None = None) -> list[dict]:
    """The project's scaling goals: every worker >= 1.9x one on each road graph (issue 30, batched
    PHAST's blocks), >= 1.8x on the bulk run, >= 10x all host cores (arguments of report.add_verdict);
    ``unit``: what the workers were (default: this host's, :func:`worker_unit`)."""
    unit, out = unit or worker_unit(), []
    for g, one, many, cpu in road_runs(roads, records, cpu_records, cfg):
        speedup = one.time_ms_median / many.time_ms_median
        how = [x for x in (one.extrapolation, many.extrapolation) if x] or ["both full runs"]
        note = "; ".join(how + [where_the_time_went(r) for r in (one, many)
                                if r.stat("busiest_worker_s") and not r.extrapolated])
        goal = ROAD_SCALING_GOAL
        out.append(dict(claim=f"{g.name}: {cfg['gpus']} {unit} >= {goal:g}x one", published=f">= {goal:g}x",
                        measured=f"{beside_goal(speedup, goal)}x (efficiency {speedup / cfg['gpus']:.2f})",
                        holds=speedup >= goal,
                        note=note))
        vs_cpu = cpu.time_ms_median / many.time_ms_median
        out.append(dict(claim=f"{g.name}: {cfg['gpus']} {unit} >= 10x all host CPU cores", published=">= 10x",
                        measured=f"{vs_cpu:.1f}x", holds=vs_cpu >= 10, note=cpu.extrapolation or "CPU run in full"))
    b1, b2 = bulk[0], bulk[-1]
    if b2.param("workers") == cfg["gpus"]:
        ratio = b1.time_ms_median / b2.time_ms_median
        out.append(dict(claim=f"bulk m={cfg['bulk_m']} n={cfg['bulk_n']}: {cfg['gpus']} {unit} >= 1.8x one",
                        published=">= 1.8x", measured=f"{beside_goal(ratio, 1.8)}x", holds=ratio >= 1.8,
                        note=bulk_scaling_note(b1, b2)))
    return out


def _road(road: str) -> str:
    """The records of one road graph: the DIMACS graph, or the stand-in a small profile builds."""
    return f"graph == '{road}' or graph.str.startswith('{road}-stand-in')"


EVIDENCE = [
    *(Evidence(rf"{road}(-stand-in-\d+)?: \d+ .* >= 1\.\dx one", "road_reductions", where=_road(road))
      for road in ("NY", "BAY")),
    *(Evidence(rf"{road}(-stand-in-\d+)?: \d+ .* >= 10x", ("road_reductions", "road_reductions_cpu"),
               where=_road(road)) for road in ("NY", "BAY")),
    Evidence("bulk ", "bulk"),
    *(Evidence(rf"{road}: all [\d,]+ sources' reductions by batched PHAST", "phast_all_sources",
               method=PHAST_METHOD, graph=road) for road in ("NY", "BAY")),
    Evidence(r"NY: contraction in", "phast_all_sources", method=CONTRACTION_METHOD, graph="NY"),
    *continent_claims.EVIDENCE,
]



def rederive(folder) -> pd.DataFrame:
    """A scale results folder's verdicts again from what its run measured (its road, bulk and
    PHAST records; the PHAST records written from ``phast/all_sources.csv`` where the run
    predates them), with today's claims and EVIDENCE; nothing is measured. ``run.json`` says so."""
    from ..records import from_csv
    from ..report import add_verdicts, read_run, reset_verdicts, write_run_info
    from ..verdicts import annotate
    folder = Path(folder)
    run = read_run(folder)
    cfg = config(run.get("profile", "default"))
    roads_and_cpu = from_csv(folder / "records_road_reductions.csv")
    road = [r for r in roads_and_cpu if r.experiment == "road_reductions"]
    cpu = [r for r in roads_and_cpu if r.experiment == "road_reductions_cpu"]
    bulk = from_csv(folder / "records_bulk.csv")
    cfg["gpus"] = max(int(r.param("workers") or 1) for r in road)
    on_gpu = all("CPU" not in r.device for r in road)
    roads = {r.graph: SimpleNamespace(name=r.graph) for r in road}  # road_runs reads their names only
    ends = pd.read_csv(folder / "phast" / "all_sources.csv")
    made = not (folder / "records_phast_all_sources.csv").exists()
    if made:
        first = road[0]
        ran = dict(device=run.get("device", first.device), driver=first.driver, cupy_version=first.cupy_version,
                   git_commit=first.git_commit, timestamp=run.get("started", first.timestamp))
        host = cpu[0].device.split(" x ", 1)[-1] if cpu else ""
        from ..report import save_records
        save_records(phast_records(ends, cfg["profile"], ran, host), folder, "phast_all_sources")
    reset_verdicts(folder)
    add_verdicts(folder, verdicts(roads, road, cpu, bulk, cfg, unit="GPUs" if on_gpu else None))
    phast_verdicts(folder, ends, device=run.get("device"))
    spread = [r for path in sorted(folder.glob("records_continent_*.csv")) for r in from_csv(path)]
    order = list(dict.fromkeys(r.graph for r in road))  # the run's order of the roads, as its notebook gave them
    spread.sort(key=lambda r: order.index(r.graph) if r.graph in order else len(order))
    add_verdicts(folder, continent_claims.verdicts(spread))
    frame = annotate(folder, EVIDENCE)
    write_run_info(folder, rederived={"what": "verdicts re-derived from this run's records by scale.rederive; "
                                              "nothing measured again",
                                      "phast_records_written_from": "phast/all_sources.csv" if made else ""})
    return frame

