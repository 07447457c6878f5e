"""The scale notebook's clusters, checks and run records, shared by :mod:`.scale` and
:mod:`.continent`: a client of GPU (or CPU) workers, the oracle's checks of a run's reductions and
rows, and a run's Record with its split (the busiest worker, the time outside the blocks)."""
from __future__ import annotations

import os

import numpy as np

from .. import gpu, oracle
from ..distributed import cluster
from ..distributed.tasks import worker_facts
from ..gpu import visible_gpus
from ..records import Record, cpu_name

PAPER = "scale"


# ---------------------------------------------------------------------------- clusters
def open_cluster(gpus: int | None, processes: bool = True):
    """A client with one worker per GPU (``gpus``), or, without GPUs, ``gpus`` CPU workers;
    ``gpus=None``: every host core as a CPU worker (the CPU baseline). ``processes=False``
    (smoke): CPU workers as threads, which start at once."""
    if gpus is None:
        return cluster.local(cpu_workers=os.cpu_count() or 1, processes=processes)
    if gpu.available() and cluster.dask_cuda_available():
        count = min(gpus, len(visible_gpus()))  # the records say how many ran
        return cluster.local(gpus=count)
    return cluster.local(cpu_workers=gpus, processes=processes)


def median_run(runs):
    """The run of median wall time (the lower middle one of an even count)."""
    return sorted(runs, key=lambda r: r.seconds)[(len(runs) - 1) // 2]


def worker_unit() -> str:
    """What the "GPU" runs ran on, for claims: GPUs, or CPU workers where there is none."""
    return "GPUs" if gpu.available() and cluster.dask_cuda_available() else "CPU workers (no GPU)"


def device_of(client, facts: dict | None = None) -> tuple[str, str]:
    """(device text, timing scope) of a client's workers (``facts``: their
    :func:`.distributed.tasks.worker_facts`, asked for when not given)."""
    first, *_ = workers = list((facts or client.run(worker_facts)).values())
    name = first["gpu_name"] if first["on_gpu"] else cpu_name()  # CPU workers: this host's (local clusters)
    return f"{len(workers)} x {name}", ("with_transfers" if first["on_gpu"] else "cpu")


def workers_count(client) -> int:
    return len(cluster.workers(client))


# ---------------------------------------------------------------------------- verification
def verify_reductions(graph, run, count: int, seed: int = 0) -> dict:
    """Per-source reductions of sampled sources against the oracle's rows."""
    ps = run.reductions.per_source
    rng = np.random.default_rng(seed)
    pos = np.sort(rng.choice(len(ps), size=min(count, len(ps)), replace=False))
    D = oracle.distances(graph, ps["vertex"].to_numpy()[pos])
    finite = np.isfinite(D)
    d = np.where(finite, D, 0)
    want = {"eccentricity": d.max(1), "reach_out": finite.sum(1), "sum_out": d.sum(1)}
    err = max(float(np.max(np.abs(ps[k].to_numpy()[pos] - v))) for k, v in want.items())
    return {"verified": err == 0.0, "max_error": err,
            "verify_scope": f"{len(pos)} sampled sources: eccentricity, reach, distance sum vs oracle"}


def verify_store(graph, store, count: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    sources = store.sources
    pos = np.sort(rng.choice(len(sources), size=min(count, len(sources)), replace=False))
    ok, err = oracle.compare(store.rows(pos), oracle.distances(graph, sources[pos]), False)
    return {"verified": bool(ok), "max_error": float(err),
            "verify_scope": f"{len(pos)} sampled rows read back from the store vs oracle"}


# ---------------------------------------------------------------------------- runs
def run_record(experiment, graph, run, device, scope, cfg, *, sources, scale=1.0, how="", check=None,
            extra=None, repeat_seconds=None) -> Record:
    """``run``'s record; ``repeat_seconds``: the wall times of every repeat, ``run`` their median one."""
    times = list(repeat_seconds or [run.seconds])
    stats = {"blocks": run.blocks, "workers": run.workers, "statuses": run.statuses,
             "sources_run": sources, **(run.reductions.summary() if run.reductions else {}),
             "busiest_worker_s": max(run.worker_seconds.values(), default=0.0),
             "outside_blocks_s": run.outside_blocks_s, "client_merge_s": run.merge_s,
             "first_submit_s": run.first_submit_s, "after_last_block_s": run.after_last_block_s,
             "per_worker": sorted(([s, run.worker_blocks[w], run.worker_sources[w], *run.worker_spans.get(w, ())]
                                   for w, s in run.worker_seconds.items()), reverse=True),
             **({"repeat_seconds": times} if len(times) > 1 else {}), **(extra or {})}
    solver_stats = [s for s in run.stats if s]
    for key in ("iterations_per_group_mean", "sweeps"):  # each source's sweeps over the arcs
        if solver_stats and key in solver_stats[0]:
            stats["sweeps_per_source_mean"] = float(np.mean([s[key] for s in solver_stats]))
    if solver_stats and "W" in solver_stats[0]:
        stats["group_width"] = solver_stats[0]["W"]
    return Record(paper=PAPER, experiment=experiment, method=run.block_solver, graph=graph.name,
                  n=graph.n, m=graph.m,
                  params={"workers": run.workers, "block_size": run.block_size, "sources": sources},
                  time_ms_median=run.seconds * scale * 1e3, time_ms_min=min(times) * scale * 1e3,
                  repeats=len(times), timing_scope=scope, extrapolated=scale != 1.0, extrapolation=how,
                  stand_in=graph.is_stand_in, stats=stats, profile=cfg["profile"], device=device,
                  **(check or {}))
