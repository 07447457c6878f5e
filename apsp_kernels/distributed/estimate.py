"""Dry run: the time and disk bytes of a long all-sources run, estimated from a small sample.

A warm-up block of the run's size per worker first (graph upload, kernel compilation, and the
one-off costs of a block that size: with a one-source warm-up the first sampled block still paid
about 0.7 s on USA-road-d.BAY and the estimate came out 4x the run), then about ``sample``
sources run as the real run would: whole blocks of the real run's partition, chosen by a seed
(a block's cost depends on how near its sources lie to each other: consecutive ids of a road
graph are neighbours, so a scattered sample of the same size costs several times more), with
the same block solver and store format, in a temporary folder that is removed. Worker seconds per source x sources / workers estimates the wall time
(it ignores the tail of the last blocks); the sample's bytes on disk per row x rows estimates
the store. Every number is labelled an estimate.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np

from ..solver import checked_sources
from . import cluster
from .blocks import block_size_of, split
from .runner import WHO, all_sources


def estimate(graph, client, sources=None, *, sample: int = 256, block_size: int = 1024,
             block_solver=None, store_dir=None, reduce: bool = True, bins=None, seed: int = 0) -> dict:
    """``{"label", "seconds", "bytes_on_disk", "seconds_per_source", ...}`` for the full run.

    ``store_dir``: where the rows would go (the sample's temporary store is made beside it, on
    the same disk); None for a run without a store.
    """
    ids = checked_sources(sources, graph.n, WHO)
    workers = len(cluster.workers(client))
    size = block_size_of(block_size)
    warm = whole_blocks(ids, workers * size, size, seed + 1)
    all_sources(graph, client, warm, block_size=size, block_solver=block_solver, bins=bins,
                progress=False)
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
    per_source = float(np.sum(run.block_seconds)) / len(picked)
    seconds = per_source * len(ids) / max(workers, 1)
    return {"label": f"estimate from {len(picked)} of {len(ids)} sources in whole blocks of the run "
                     f"(seed {seed}) on {workers} workers",
            "seconds": seconds, "bytes_on_disk": disk, "seconds_per_source": per_source,
            "sample": len(picked), "sources": len(ids), "workers": workers,
            "block_solver": run.block_solver, "sample_wall_seconds": run.seconds}


def whole_blocks(ids: np.ndarray, sample: int, block_size: int, seed: int = 0) -> np.ndarray:
    """The sources of ``round(sample / block_size)`` (at least one) seeded blocks of the run's split."""
    blocks = split(len(ids), block_size_of(block_size))
    count = min(len(blocks), max(1, round(sample / block_size)))
    chosen = np.sort(np.random.default_rng(seed).choice(len(blocks), size=count, replace=False))
    return np.concatenate([ids[blocks[i].start:blocks[i].stop] for i in chosen])


def describe(est: dict) -> str:
    text = f"ESTIMATE ({est['label']}): about {est['seconds']:.0f} s"
    if est["bytes_on_disk"]:
        text += f" and {est['bytes_on_disk'] / 1e9:.2f} GB on disk"
    return text
