"""Every source's reductions on 1, 2 and 4 GPUs, up to continental road sizes (issue 45).

::

    python -m apsp_kernels.experiments.continent OUT_DIR [--gpus 1 2 4] [--graphs NY BAY]
        [--stand-in 16777216 | --usa-size] [--sample-blocks 256] [--stand-in-gpus 1 4] [--dry-run 8192]
        [--checkpoint FOLDER [--stop-after SECONDS] [--sample-after]] [--profile paper]

For each graph and each GPU count: a dask-cuda cluster of that many GPUs, a warm-up run, then
``distributed.all_sources`` of every source of NY and BAY (or a seeded sample of whole 1024-source
blocks of the road-like stand-in, labelled: the same sources on every GPU count), batched PHAST with
the reductions read in place from its working matrix (:mod:`apsp_kernels.distributed.sweep_reductions`).
Each record carries the run's split (sweeps and in-place reductions summed over the blocks on the
workers' CUDA events, the busiest worker, the time outside the blocks), the K-wide memory bound of a
tree (bytes per tree over the device copy bandwidth measured on a worker in the same run), whether
the reductions equal the first GPU count's bit for bit, and a check against the oracle (sampled
sources' eccentricity, reach and distance sum; sampled vertices' incoming sums by a Dijkstra on the
reversed graph), the memory plan of a block (its device bytes beside the workers' free memory) and,
with ``--dry-run``, the dry run's estimate of every source beside the sample's. The stand-in's
generation and contraction (host seconds and the process's peak memory) go to ``contraction.csv``;
``--usa-size`` makes it USA-road-d.USA's size (23.9M vertices, 58.3M arcs). ``--checkpoint FOLDER`` runs
every source of the stand-in instead, on the most GPUs, saved to FOLDER after each wave of blocks: a
command stopped by a time limit, run again, goes on from there (:func:`every_source`); with
``--sample-after``, the call that finishes it then runs the seeded sample on each stand-in GPU count
(the scaling from whole blocks, on the graph that call already made).

Writes ``records_continent.csv`` (the project's Record rows), ``contraction.csv``,
``memory_plan.csv`` (a stand-in's block and what a GPU holds, on an H100 and an H200),
``summary.json`` and ``log.txt`` into OUT_DIR. ``notebooks/scale.ipynb`` runs the same per graph
(:func:`runs`, :func:`table`, :func:`figure`; its verdicts in :mod:`.continent_claims`).
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from .. import datasets, oracle, timing
from ..distributed import all_sources, block_solvers, cluster, fixed_sums, runner
from ..distributed import checkpoint as checkpoints
from ..distributed.estimate import blocks_spread_evenly, estimate
from ..distributed.tasks import worker_facts
from ..distributed.reductions import default_bins
from ..distributed import sweep_reductions as SR
from ..records import git_commit, write_atomic, write_csv
from ..sssp_hierarchy import layout as L
from ..sssp_hierarchy import phast_batched as PB
from . import contraction_time
from .phast_batched import road_stand_in, stand_in_name, sweep_bytes_per_tree
from .scale_runs import device_of, median_run, open_cluster, run_record, verify_reductions

EXPERIMENT = "continent"
USA_SIZE = (23_947_347, 58_333_344)  # DIMACS USA-road-d.USA: vertices, arcs (its stand-in's size)
STAND_IN_BLOCK = 1024  # sources per sampled block of a stand-in (a 16M graph's in-place block on an H100)
HARMONIC_RTOL = 1e-12  # fixed-point sums rounded once against NumPy's float64 sum of the same terms
DRY_RUN_FROM_N = 1 << 24  # stand-ins this large get a dry run before their sample


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def stand_in_label(size) -> str:
    """The name of the stand-in of ``size`` vertices, or of (vertices, arcs)."""
    if isinstance(size, tuple):
        n, arcs = size
        return f"roadlike-rivers-{n / 1e6:.1f}M-{arcs / 1e6:.1f}M-arcs"
    return stand_in_name(size)


def stand_in(n: int, log, arcs: int | None = None) -> tuple:
    """The road-like stand-in of ``n`` vertices (and ``arcs``, else the stand-ins' 2.5 a vertex),
    contracted; its host seconds and peak memory."""
    t = time.perf_counter()
    compiling = contraction_time.compile_beside()  # numba, in another process, while this one generates
    g = road_stand_in(n, arcs=arcs, name=stand_in_label((n, arcs) if arcs else n))
    made, after_made = time.perf_counter() - t, peak_rss_gb()
    compile_s = contraction_time.warm_up(compiling=compiling)
    h, contracted = L.hierarchy_of(g)
    row = {"graph": g.name, "n": g.n, "m": g.m, "generate_s": made, "contract_s": contracted,
           "numba_compile_s": compile_s, "levels": h.levels, "shortcuts": h.shortcuts,
           "peak_rss_gb_after_generate": after_made, "peak_rss_gb_after_contract": peak_rss_gb(),
           "threads": contraction_time.host_threads()}
    log(f"{g.name}: generated in {made:.1f} s, contracted in {contracted:.1f} s (numba compile {compile_s:.1f} s "
        f"before it), peak RSS {row['peak_rss_gb_after_contract']:.1f} GB")
    return g, row


def sample_blocks(n: int, blocks: int, size: int = STAND_IN_BLOCK, seed: int = 0) -> np.ndarray:
    """The sources of ``blocks`` seeded whole blocks of ``size`` consecutive ids (as a run cuts them)."""
    starts = np.sort(np.random.default_rng(seed).choice(n // size, size=min(blocks, n // size), replace=False))
    return (starts[:, None] * size + np.arange(size)).ravel().astype(np.int32)


# cards a plan is made for: their memory in bytes (device_info's total_memory on each)
PLAN_CARDS = {"NVIDIA H100 80GB HBM3": 85_017_493_504, "NVIDIA H200": 150_109_880_320}


def memory_plan(graph, free: int, total: int) -> pd.DataFrame:
    """A GPU's memory in an every-source run of ``graph`` (batched PHAST reduced in place) on each of
    :data:`PLAN_CARDS`: the block that :func:`.runner.default_block_size` picks, the sources of each
    of its sweeps (:func:`.runner.fitting_sources`) and what a sweep holds, planned from the card's
    memory less what this run's GPU (``free`` of ``total`` bytes) had in use."""
    used = total - free
    rows = []
    for card, memory in PLAN_CARDS.items():
        facts = {card: {"gpu_free": memory - used}}
        block = runner.default_block_size(graph, block_solvers.PHAST, facts, on_gpu=True, store=False)
        size = runner.fitting_sources(graph, block_solvers.PHAST, facts, block, store=False)
        parts = SR.bytes_parts(graph.n, size, graph.dtype.itemsize)
        rows.append({"graph": graph.name, "n": graph.n, "m": graph.m, "gpu": card, "memory_gb": memory / 1e9,
                     "free_gb": (memory - used) / 1e9, "block_sources": block, "sweep_sources": size,
                     "block_gb": runner.block_need(graph, size, block_solvers.PHAST, store=False) / 1e9,
                     "working_matrix_gb": parts["working_matrix"] / 1e9,
                     "layout_gb": runner.layout_bytes(graph, block_solvers.PHAST) / 1e9,
                     "stamps_buckets_and_sums_gb": (parts["stamps_and_buckets"] + parts["sums"]) / 1e9,
                     "graph_gb": runner.graph_bytes(graph) / 1e9, "blocks_every_source": -(-graph.n // block)})
    return pd.DataFrame(rows)


def plan_of(graph, record) -> pd.DataFrame | None:
    """:func:`memory_plan` from a run's record of ``graph`` (its GPU's free and total memory); None
    for a run on CPU workers."""
    total = record.stat("gpu_total_bytes")
    return memory_plan(graph, record.stat("gpu_free_bytes"), total) if total else None


def split_of(run, totals: dict | None = None) -> dict:
    """Seconds in the blocks' sweeps (with the reductions run beside them; ``upper_s`` of them in the
    upward searches and top levels) and in-place reductions after them (``reduction_kernel_s`` of
    them to the kernels' end, the rest their per-source results' way to the host), workers' CUDA
    events, and before them (``setup_s``, host clock: the layout, the kernels' compile, the
    buffers), summed over ``run``'s blocks, or over ``totals`` (:func:`.checkpoint.block_totals`:
    a checkpointed run's blocks over every call)."""
    totals = checkpoints.block_totals(run.stats, run.block_seconds) if totals is None else totals
    sweep, upper, reduce, kernel, setup = (totals.get(k, 0.0) / 1e3 for k in (
        "sweep_ms", "upper_ms", "reduce_ms", "reduce_kernel_ms", "setup_ms"))
    inside = float(totals.get("block_seconds", 0.0))
    return {"sweeps_s": sweep, "upper_s": upper, "reductions_s": reduce, "reduction_kernel_s": kernel,
            "setup_s": setup, "blocks_s": inside, "split_blocks": int(totals.get("blocks", 0)),
            "reductions_share": reduce / inside if inside else float("nan"),
            "in_place": bool(run.stats) and all("reduce_ms" in s for s in run.stats)}


def oracle_check(graph, run, sources: np.ndarray) -> tuple[dict, dict]:
    """A run checked against the oracle: its record's check (``verified``, ``max_error``,
    ``verify_scope``: sampled sources) and the per-vertex one (``per_vertex_*`` stats)."""
    checked = {**verify_reductions(graph, run, 2), **check_per_vertex(graph, run, sources)}
    return ({key: checked[key] for key in ("verified", "max_error", "verify_scope")},
            {key: value for key, value in checked.items() if key.startswith("per_vertex")})


def check_per_vertex(graph, run, sources: np.ndarray, count: int = 2, seed: int = 1) -> dict:
    """Sampled vertices' incoming distance sums, reach and harmonic sums over ``sources`` against
    Dijkstra on the reversed graph (d(s, v) for every s at once)."""
    red = run.reductions
    rng = np.random.default_rng(seed)
    worst = 0.0
    ok = True
    for v in rng.choice(graph.n, size=count, replace=False):
        d = oracle.distances(graph.reverse, [int(v)])[0][sources]
        reached = np.isfinite(d)
        exact = fixed_sums.to_float(red.fixed["sum_in"][v:v + 1], int(red.fixed["scales"][0]))[0]
        ok &= exact == float(np.sum(d[reached])) and int(red.per_vertex["reach_in"][v]) == int(reached.sum())
        positive = d[reached & (d > 0)]
        want = float(np.sum(1.0 / positive))
        err = abs(float(red.per_vertex["harmonic"][v]) - want) / max(want, 1e-300)
        worst = max(worst, err)
        ok &= err <= HARMONIC_RTOL
    return {"per_vertex_verified": bool(ok), "per_vertex_harmonic_rel_error": worst,
            "per_vertex_scope": f"{count} sampled vertices: distance sum and reach exact, harmonic within "
                                f"{HARMONIC_RTOL:g} (Dijkstra on the reversed graph)"}


def bound_us(graph, client, on_gpu: bool) -> tuple[float, float]:
    """(µs per tree at the K-wide memory bound, copy bytes/s measured on one worker); NaN on CPU workers."""
    if not on_gpu:
        return float("nan"), float("nan")
    first = sorted(cluster.workers(client))[0]
    lay, _ = PB.sweep_layout(graph)
    copy = client.run(timing.copy_bandwidth, workers=[first])[first]["bytes_per_s"]
    return sweep_bytes_per_tree(lay, SR.K, graph.dtype.itemsize) / copy * 1e6, copy


def scaling(graph, sources: np.ndarray, gpu_counts, cfg: dict, log=print, repeats: int = 1, dry_run: int = 0) -> list:
    """One record per GPU count; the first count's run checked against the oracle, every other
    count's reductions compared with it bit for bit. ``dry_run``: sources of the dry run
    (:func:`.distributed.estimate.estimate`) of every source before the first count's run, its
    estimate beside the one from ``sources``."""
    records, first, checked, dry = [], None, None, {}
    bins = default_bins(graph)  # once: the default takes two host Dijkstras per run
    for count in gpu_counts:
        client = open_cluster(count, cfg.get("processes", True))
        try:
            facts = client.run(worker_facts)
            device, scope = device_of(client, facts)
            if dry_run and not dry:
                est = estimate(graph, client, sample=dry_run, bins=bins)
                dry = {"dry_run_estimate_s": est["seconds"], "dry_run_label": est["label"]}
                log(f"{graph.name} on {device}: dry run: {est['label']}: {est['seconds']:.0f} s for every source")
            free = min(f["gpu_free"] for f in facts.values())
            total = min(f.get("gpu_total", 0) for f in facts.values())
            t = time.perf_counter()  # a block a worker, as wide as the run's: the compile, the graph, the memory pool
            block = runner.default_block_size(graph, block_solvers.PHAST, facts, True, len(sources), store=False)
            all_sources(graph, client, sources[:min(len(sources), count * block)], block_size=block, bins=bins,
                        progress=False)
            warm = time.perf_counter() - t
            runs = [all_sources(graph, client, sources, bins=bins, progress=False) for _ in range(repeats)]
            run = median_run(runs)
            bound, copy = bound_us(graph, client, all(f["on_gpu"] for f in facts.values()))
        finally:
            cluster.close(client)
        same = first is None or run.reductions.same_as(first.reductions)
        same &= all(r.reductions.same_as(run.reductions) for r in runs)
        first = first or run
        checked = checked or oracle_check(graph, run, sources)
        check, vertex = checked
        split = split_of(run)
        us, upper_us = (split[key] / len(sources) * 1e6 for key in ("sweeps_s", "upper_s"))
        extra = {**split, **vertex, "warm_up_s": warm, "call_s": run.call_seconds, "bound_us_per_tree": bound,
                 "copy_bytes_per_s": copy, "sweep_us_per_tree": us, "ratio_to_bound": us / bound,
                 "upper_us_per_tree": upper_us,
                 "same_bits_as_first": bool(same), "first_gpus": gpu_counts[0], "gpus": count,
                 "every_source": len(sources) == graph.n,
                 "every_source_estimate_s": blocks_spread_evenly(run, graph.n) + run.outside_blocks_s,
                 "estimate_basis": "the blocks' seconds per source spread evenly over the workers, plus the "
                                   "time outside the blocks once",
                 "block_bytes": runner.block_need(graph, run.block_size, block_solvers.PHAST, store=False),
                 "gpu_free_bytes": free, "gpu_total_bytes": total, **(dry if count == gpu_counts[0] else {})}
        check = {**check, "verified": bool(check["verified"] and vertex["per_vertex_verified"] and same),
                 "verify_scope": check["verify_scope"] + f" on {gpu_counts[0]} GPU(s), {vertex['per_vertex_scope']}; "
                                 f"the other GPU counts: the same bits"}
        records.append(run_record(EXPERIMENT, graph, run, device, scope, cfg, sources=len(sources),
                                  check=check, extra=extra, repeat_seconds=[r.seconds for r in runs]))
        log(f"{graph.name} on {device}: {run.seconds:.2f} s wall, {run.call_seconds:.2f} s the whole call "
            f"({len(sources):,} sources, {run.blocks} blocks of "
            f"{run.block_size}); sweeps {split['sweeps_s']:.2f} s = {us:.1f} µs/tree ({us / bound:.2f}x the bound "
            f"{bound:.1f}; upward searches and top levels {upper_us:.1f}), reductions "
            f"{split['reductions_share']:.0%} of the blocks; outside the blocks {run.outside_blocks_s:.2f} s; same bits "
            f"as {gpu_counts[0]} GPU(s): {same}; verified: {check['verified']}")
    return records


def every_source(graph, count: int, folder, cfg: dict, log=print, stop_after_s: float | None = None) -> list:
    """Every source of ``graph`` on ``count`` GPUs, its reductions saved to the checkpoint ``folder``
    after each wave of blocks (:mod:`.distributed.checkpoint`): a call stopped partway (a device
    call's time limit) keeps the waves it finished, and the same call again goes on from them.
    One record once every source is done: its seconds and its split over every call (the finished
    waves'; a stopped call's unfinished wave is not in them), checked against the oracle; none
    before. ``stop_after_s``: the wave nearing its end once that many seconds have passed is this
    call's last."""
    import dataclasses
    bins = default_bins(graph)
    client = open_cluster(count, cfg.get("processes", True))
    try:
        facts = client.run(worker_facts)
        device, scope = device_of(client, facts)
        began = time.perf_counter()
        run = all_sources(graph, client, bins=bins, checkpoint=folder, stop_after_s=stop_after_s, progress=True)
        done = run.reductions.sources_done == graph.n  # a stopped call leaves at once: no bound to measure
        bound, copy = bound_us(graph, client, all(f["on_gpu"] for f in facts.values())) if done else (None, None)
    finally:
        cluster.close(client)
    total = checkpoints.seconds_so_far(folder)
    if not done:
        leaving = time.perf_counter() - began - run.seconds
        log(f"{graph.name} on {device}: stopped after {run.seconds:.1f} s with {run.reductions.sources_done:,} of "
            f"{graph.n:,} sources done ({total:.1f} s over the calls; {leaving:.1f} s more to gather the results and "
            f"close the cluster); the same command goes on from {folder}")
        return []
    sources = np.arange(graph.n, dtype=np.int32)
    check, vertex = oracle_check(graph, run, sources)
    extra = {**split_of(run, checkpoints.totals_so_far(folder)), **vertex, "bound_us_per_tree": bound,
             "copy_bytes_per_s": copy, "gpus": count,
             "every_source": True, "calls_seconds": total, "this_call_s": run.seconds,
             "blocks_resumed": run.statuses.get("resumed", 0),
             "time_basis": "the wall time of each finished wave over the calls that added to the checkpoint "
                           "(the client's merges and saves included; a stopped call's unfinished wave not)"}
    check = {**check, "verified": bool(check["verified"] and vertex["per_vertex_verified"])}
    record = run_record(EXPERIMENT, graph, run, device, scope, cfg, sources=graph.n, check=check, extra=extra)
    record = dataclasses.replace(record, time_ms_median=total * 1e3, time_ms_min=total * 1e3)
    log(f"{graph.name} on {device}: every source in {total:.1f} s over the calls ({extra['blocks_resumed']} "
        f"blocks from the checkpoint, {run.seconds:.1f} s in this call: {run.first_submit_s:.1f} s before the first "
        f"block, {run.after_last_block_s:.1f} s after the last); blocks' setup {extra['setup_s']:.1f} s over the "
        f"calls; verified: {check['verified']}")
    return [record]


# ---------------------------------------------------------------------------- the scale notebook's section
def config(profile: str) -> dict:
    """GPU counts, graphs and samples per profile: ``smoke`` the smoke profile's small NY stand-in
    on 1 and 2 CPU workers; ``default`` NY and BAY on 1, 2 and 4 GPUs (those the host has); ``paper`` NY, BAY and the
    road-like stand-ins of 1M, 4M and 16M vertices and USA-road-d.USA's size on 1, 2 and 4 GPUs
    (the stand-ins a sample of whole blocks, the 16M and USA-sized ones after a dry run)."""
    from ..profiles import choose
    return {"gpus": choose(profile, smoke=(1, 2), default=(1, 2, 4), paper=(1, 2, 4)),
            "stand_ins": choose(profile, smoke=(), default=(), paper=(1 << 20, 1 << 22, 1 << 24)),
            "usa_size": choose(profile, smoke=False, default=False, paper=True),
            "sample_blocks": 256, "dry_run": choose(profile, smoke=0, default=0, paper=8192),
            "repeats": choose(profile, smoke=1, default=2)}


def counts_here(counts, on_gpu: bool) -> list:
    """The GPU counts this host can run (all of them for CPU workers)."""
    if not on_gpu:
        return list(counts)
    from ..gpu import visible_gpus
    return [c for c in counts if c <= len(visible_gpus())]


def runs(roads: dict, kept: dict, cfg: dict, out_dir=None, log=print) -> list:
    """Every source of each road graph and a sample of each stand-in (``kept``: stand-ins already
    contracted, by size) on each GPU count of ``cfg["continent"]``: one experiment per graph
    (``continent_<graph>``, resumable on its own); the stand-ins' contraction and memory plans in
    tables beside them."""
    from .. import gpu
    from ..report import measure, save_table
    cc = cfg["continent"]
    counts = counts_here(cc["gpus"], gpu.available())
    records, contraction, plans = [], [], []
    for g in roads.values():
        records += measure(out_dir, f"continent_{g.name}", scaling, g, np.arange(g.n, dtype=np.int32), counts,
                           cfg, log, repeats=cc["repeats"])
    sizes = [(n, None) for n in cc["stand_ins"]] + ([USA_SIZE] if cc["usa_size"] else [])
    for n, arcs in sizes if gpu.available() else []:
        g = kept.get(n) if arcs is None else None
        if g is None:
            g, row = stand_in(n, log, arcs)
            contraction.append(row)
        sampled = measure(out_dir, f"continent_{g.name}", scaling, g, sample_blocks(g.n, cc["sample_blocks"]),
                          counts[::-1], cfg, log, dry_run=cc["dry_run"] if g.n >= DRY_RUN_FROM_N else 0)
        records += sampled
        plan = plan_of(g, sampled[0]) if sampled else None
        if plan is not None:
            plans.append(plan)
    if out_dir is not None and contraction:
        save_table(pd.DataFrame(contraction), out_dir, "continent_contraction",
                   title="Road-like stand-ins (NOT DIMACS graphs): generation and contraction on the host",
                   note="Host seconds; peak_rss_gb: the notebook process's peak resident memory after each step.")
    if out_dir is not None and plans:
        save_table(pd.concat(plans, ignore_index=True), out_dir, "continent_memory_plan",
                   title="A GPU's memory in an every-source run of each stand-in (planned)",
                   note="The block default_block_size picks on each card and what it holds, from the card's "
                        "memory less what the run's GPU had in use; GB = 1e9 bytes.")
    return records


def table(records) -> pd.DataFrame:
    """A row per graph, GPU count and run: the run, its split, its bound, its speedup over one GPU
    running the same sources; ``call_s``: the whole ``all_sources`` call (its checks and the
    reductions' frames too, what the caller waits for) beside ``wall_s`` (the blocks and the merge)."""
    rows = []
    for r in records:
        one = next((o for o in records if o.graph == r.graph and o.param("workers") == 1
                    and o.param("sources") == r.param("sources")), None)
        rows.append({"graph": r.graph, "n": r.n, "stand_in": r.stand_in, "gpus": r.param("workers"),
                     "device": r.device, "sources": r.param("sources"), "every_source": r.stat("every_source"),
                     "wall_s": r.time_ms_median / 1e3, "call_s": r.stat("call_s"),
                     "busiest_worker_s": r.stat("busiest_worker_s"),
                     "outside_blocks_s": r.stat("outside_blocks_s"), "setup_s": r.stat("setup_s"),
                     "sweeps_s": r.stat("sweeps_s"),
                     "reductions_s": r.stat("reductions_s"), "reduction_kernel_s": r.stat("reduction_kernel_s"),
                     "reductions_share": r.stat("reductions_share"), "sweep_us_per_tree": r.stat("sweep_us_per_tree"),
                     "upper_us_per_tree": r.stat("upper_us_per_tree"),
                     "bound_us_per_tree": r.stat("bound_us_per_tree"), "ratio_to_bound": r.stat("ratio_to_bound"),
                     "speedup_vs_1": one.time_ms_median / r.time_ms_median if one else float("nan"),
                     "same_bits_as_first": r.stat("same_bits_as_first"), "verified": r.verified,
                     "every_source_s": r.time_ms_median / 1e3 if r.stat("every_source")
                     else r.stat("every_source_estimate_s"),
                     "block_size": r.param("block_size"), "block_gb": (r.stat("block_bytes") or 0) / 1e9})
    return pd.DataFrame(rows)


def figure(records, device: str = "", unit: str = "GPUs"):
    """Every source's seconds against n per GPU count (hollow: estimated from a sample), with the
    K-wide memory bound of each count (dashed)."""
    import matplotlib.pyplot as plt
    df = table(records).sort_values("n")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, (count, part) in enumerate(df.groupby("gpus")):
        color = f"C{i}"
        ax.plot(part["n"], part["every_source_s"], "-", color=color, label=f"{count} {unit}")
        for _, row in part.iterrows():
            ax.plot(row["n"], row["every_source_s"], "o", color=color,
                    markerfacecolor=color if row["every_source"] else "none")
        bound_s = part["bound_us_per_tree"] * part["n"] / count / 1e6
        if bound_s.notna().any():
            ax.plot(part["n"], bound_s, "--", color=color, alpha=0.6)
    ax.set(xscale="log", yscale="log", xlabel="vertices n", ylabel="every source's reductions (s)",
           title=f"Every source: measured (filled) or from a sample (hollow); dashed: memory bound\n{device}")
    ax.legend()
    fig.tight_layout()
    return fig


def main(out_dir, gpus=(1, 2, 4), graphs=("NY", "BAY"), stand_in_n: int | None = 1 << 24,
         sample: int = 256, profile: str = "paper", stand_in_gpus=None, stand_in_arcs: int | None = None,
         dry_run: int = 0, checkpoint=None, stop_after_s: float | None = None, sample_after: bool = False) -> dict:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    lines: list = []

    def log(text):
        print(text, flush=True)
        lines.append(text)
    cfg = {"profile": profile}
    records, contraction = [], []
    if stand_in_n:  # first: the host work, while no cluster holds the GPUs
        big, row = stand_in(stand_in_n, log, stand_in_arcs)
        contraction.append(row)
        write_csv(pd.DataFrame(contraction), out_dir / "contraction.csv")
        if checkpoint is not None:  # every source on the most GPUs, resumable
            records += every_source(big, max(stand_in_gpus or gpus), checkpoint, cfg, log, stop_after_s)
        if checkpoint is None or (sample_after and records):
            records += scaling(big, sample_blocks(big.n, sample), list(stand_in_gpus or gpus)[::-1], cfg, log,
                               dry_run=dry_run)
        write_csv(records, out_dir / "records_continent.csv")
        plan = plan_of(big, records[0]) if records else None  # none: a checkpointed run stopped before its end
        if plan is not None:
            write_csv(plan, out_dir / "memory_plan.csv")
        big = None
    for name in graphs:
        g = datasets.load_or_stand_in(name)
        L.hierarchy_of(g)
        records += scaling(g, np.arange(g.n, dtype=np.int32), gpus, cfg, log, repeats=2)
        write_csv(records, out_dir / "records_continent.csv")
    summary = {"commit": git_commit(), "records": len(records), "all_verified": all(r.verified for r in records)}
    log(json.dumps(summary))
    write_atomic(out_dir / "log.txt", lambda tmp: Path(tmp).write_text("\n".join(lines) + "\n"))
    write_atomic(out_dir / "summary.json", lambda tmp: Path(tmp).write_text(json.dumps(summary, indent=1)))
    return summary


def _cli(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--gpus", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--graphs", nargs="*", default=["NY", "BAY"])
    ap.add_argument("--stand-in", type=int, default=1 << 24, help="vertices of the road-like stand-in (0: none)")
    ap.add_argument("--sample-blocks", type=int, default=256)
    ap.add_argument("--stand-in-gpus", type=int, nargs="+", help="GPU counts for the stand-in (default: --gpus)")
    ap.add_argument("--usa-size", action="store_true", help="the stand-in with USA-road-d.USA's vertices and arcs")
    ap.add_argument("--dry-run", type=int, default=0, help="sources of a dry run (estimate) of the stand-in first")
    ap.add_argument("--profile", default="paper")
    ap.add_argument("--checkpoint", help="every source of the stand-in on the most GPUs, saved to this folder "
                                         "after each wave; the same command again goes on from it")
    ap.add_argument("--stop-after", type=float, help="with --checkpoint: the wave nearing its end once this many "
                                                     "seconds of the run have passed is the call's last")
    ap.add_argument("--sample-after", action="store_true",
                    help="with --checkpoint: once every source is done, the sample on each GPU count too")
    a = ap.parse_args(argv)
    n, arcs = USA_SIZE if a.usa_size else (a.stand_in or None, None)
    summary = main(a.out_dir, a.gpus, a.graphs, n, a.sample_blocks, a.profile, a.stand_in_gpus, arcs, a.dry_run,
                   a.checkpoint, a.stop_after, a.sample_after)
    return 0 if summary["all_verified"] else 1


if __name__ == "__main__":
    sys.exit(_cli())
