"""Dry run: the time and disk bytes of a long all-sources run, estimated from a small sample.

A bounded warm-up first: on GPU workers one block of the run's size per worker (graph upload,
kernel compilation, the memory pool grown to a block: with a one-source warm-up the first sampled
block still paid about 0.7 s on USA-road-d.BAY and the estimate came out 4x the run); on CPU
workers one source per worker (SciPy compiles nothing, and a block of 1024 NY rows took 150 s and
9.8 GiB per worker there). The warm-up never holds more than ``warm_entries`` distances per
worker (smaller blocks then). Then about ``sample`` sources run as the real run would: whole
blocks of the real run's partition, chosen by a seed (a block's cost depends on how near its
sources lie to each other: consecutive ids of a road graph are neighbours, so a scattered sample
of the same size costs several times more), with the same block solver and store format, in a
temporary folder that is removed. Worker seconds per source x sources / workers estimates the
time inside the blocks, with a band from the spread of the blocks' seconds per source (mean +- 2
standard errors; none from a single block). The sample's time outside its blocks (scheduling,
transfers, the client's merge, the tail) is added once; per block, as where the client takes each
block's results in turn, it is the band's upper end. The sample's bytes on disk per row x rows
estimates the store. When the sample is every source, the run is measured, not estimated, and
says so. Every number is labelled.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from ..solver import checked_sources
from . import block_solvers, cluster
from .blocks import block_size_of, split
from .runner import WHO, all_sources, default_block_size
from .tasks import worker_facts


WARM_ENTRIES = 1 << 28  # distances per worker at most in the warm-up (1 GiB of int32 rows)


def warm_block_size(on_gpu: bool, block_size: int, n: int, warm_entries: int = WARM_ENTRIES) -> int:
    """Sources per worker in the warm-up: a block of the run's size on GPU workers, one source on
    CPU workers; never more than ``warm_entries`` distances."""
    size = block_size if on_gpu else 1
    return max(1, min(size, warm_entries // max(n, 1)))


def estimate(graph, client, sources=None, *, sample: int = 256, block_size: int | None = None,
             block_solver=None, store_dir=None, reduce: bool = True, bins=None, seed: int = 0,
             warm_entries: int = WARM_ENTRIES) -> dict:
    """``{"label", "seconds", "seconds_low", "seconds_high", "bytes_on_disk", "seconds_per_source",
    "sample", "blocks", "measured_all", ...}`` for the full run.

    ``store_dir``: where the rows would go (the sample's temporary store is made beside it, on
    the same disk); None for a run without a store.
    """
    ids = checked_sources(sources, graph.n, WHO)
    facts = client.run(worker_facts)
    workers = len(facts) or len(cluster.workers(client))
    on_gpu = bool(facts) and all(f["on_gpu"] for f in facts.values())
    if block_size is None:  # the block all_sources would take
        key = block_solver or block_solvers.default_key(on_gpu, graph)
        size = default_block_size(graph, key, facts, on_gpu and not callable(key), count=len(ids),
                                  store=store_dir is not None, reduce=reduce)
    else:
        size = block_size_of(block_size)
    warm_size = warm_block_size(on_gpu, size, graph.n, warm_entries)
    warm = whole_blocks(ids, workers * warm_size, warm_size, seed + 1)
    warm_started = time.perf_counter()
    all_sources(graph, client, warm, block_size=warm_size, block_solver=block_solver, bins=bins,
                progress=False)
    warm_seconds = time.perf_counter() - warm_started
    picked = whole_blocks(ids, sample, size, seed)
    tmp = None
    if store_dir is not None:
        Path(store_dir).parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=Path(store_dir).parent, prefix=".estimate-"))
    try:
        run = all_sources(graph, client, picked, block_size=size,
                          block_solver=block_solver, reduce=reduce, bins=bins,
                          store=tmp / "rows" if tmp else None, progress=False)
        disk = run.store.nbytes_on_disk() / len(picked) * len(ids) if run.store else 0.0
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    blocks = split(len(picked), size)
    per_block = np.array(run.block_seconds, dtype=np.float64) / np.array(run.block_sources, dtype=np.float64)
    per_source = float(np.sum(run.block_seconds)) / len(picked)
    inside = blocks_spread_evenly(run, len(ids))
    outside = run.outside_blocks_s
    every_block = outside / len(blocks) * -(-len(ids) // size)  # per block of the full run
    measured_all = len(picked) == len(ids)
    if measured_all:
        seconds = low = high = run.seconds
        band = "measured: the sample was every source"
    elif len(per_block) > 1:
        spread = 2 * per_block.std(ddof=1) / np.sqrt(len(per_block)) / max(per_block.mean(), 1e-300)
        seconds = inside + outside
        low, high = inside * max(0.0, 1 - spread) + outside, inside * (1 + spread) + max(outside, every_block)
        band = (f"band: 2 standard errors of {len(per_block)} blocks' seconds per source (+-{spread:.0%}), and "
                f"up to {every_block:.3g} s outside the blocks where the sample's {outside:.3g} s comes per block")
    else:
        seconds, low, high = inside + outside, float("nan"), float("nan")
        band = "no band: one block measured (give a larger sample for one)"
    what = "measured" if measured_all else "estimate"
    return {"label": f"{what} from {len(picked)} of {len(ids)} sources in {len(blocks)} whole block"
                     f"{'s' * (len(blocks) != 1)} of the run (seed {seed}) on {workers} workers: the blocks "
                     f"{inside:.3g} s, outside them {outside:.3g} s; {band}",
            "seconds": seconds, "seconds_low": low, "seconds_high": high, "bytes_on_disk": disk,
            "blocks_seconds": inside, "outside_blocks_seconds": outside,
            "seconds_per_source": per_source, "sample": len(picked), "blocks": len(blocks),
            "sources": len(ids), "workers": workers, "measured_all": measured_all,
            "warm_up_sources": len(warm), "warm_up_seconds": warm_seconds,
            "block_solver": run.block_solver, "sample_wall_seconds": run.seconds,
            "preprocessing_s": run.preprocessing_s}


def blocks_spread_evenly(run, sources: int) -> float:
    """Seconds inside the blocks for ``sources`` sources at ``run``'s seconds per source, spread
    evenly over its workers: a full run's thousands of blocks even out what a sample's few do not
    (a worker that started late, or ran a block more than the others)."""
    return float(np.sum(run.block_seconds)) / max(sum(run.block_sources), 1) * sources / max(run.workers, 1)


def whole_blocks(ids: np.ndarray, sample: int, block_size: int, seed: int = 0) -> np.ndarray:
    """The sources of ``round(sample / block_size)`` (at least one) seeded blocks of the run's split."""
    blocks = split(len(ids), block_size_of(block_size))
    count = min(len(blocks), max(1, round(sample / block_size)))
    chosen = np.sort(np.random.default_rng(seed).choice(len(blocks), size=count, replace=False))
    return np.concatenate([ids[blocks[i].start:blocks[i].stop] for i in chosen])


def describe(est: dict) -> str:
    kind = "MEASURED" if est.get("measured_all") else "ESTIMATE"
    text = f"{kind} ({est['label']}): {_seconds(est['seconds'])}"
    low, high = est.get("seconds_low", float("nan")), est.get("seconds_high", float("nan"))
    if not est.get("measured_all") and np.isfinite(low) and np.isfinite(high):
        text += f" (between {_seconds(low)} and {_seconds(high)})"
    if est["bytes_on_disk"]:
        text += f" and {est['bytes_on_disk'] / 1e9:.3g} GB on disk"
    return text


def _seconds(value: float) -> str:
    """Three significant digits, never 'about 0 s'."""
    if not np.isfinite(value):
        return "unknown"
    return f"{value:.3g} s" if value >= 1e-3 else f"{value * 1e6:.3g} µs"
