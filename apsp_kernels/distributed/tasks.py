"""What a worker runs for one block of sources: solve, reduce, write the rows, commit."""
from __future__ import annotations

import time

import numpy as np

from ..arrays import array_module
from ..inf import inf_for
from . import block_solvers, fixed_sums, reductions, sweep_reductions, worker_graph, worker_sums
from .blocks import Block, expand
from .fixed_sums import Scales
from .row_store import RowStore


def to_store_dtype(dist, inf, dtype):
    """Rows in the store's representation (the graph's dtype, the project's INF), on the host."""
    xp = array_module(dist)
    dtype = np.dtype(dtype)
    stored = xp.where(dist < inf, dist, inf_for(dtype)).astype(dtype)
    return stored.get() if xp is not np else stored


def run_block(graph, token: str, key: str, on_gpu: bool, block: Block, ids: np.ndarray,
              edges: np.ndarray | None, store_path: str | None, scales: Scales | None = None,
              keep_sums: tuple | None = None, sweep_columns: int | None = None, hand_over: bool = False) -> dict:
    """One block (sources ``ids``, or their :func:`.blocks.compact` range): ``{"block", "start",
    "partial", "status", "seconds", "ended_at", "stats", "worker"}``.

    ``edges`` None: no reductions. ``store_path`` None: rows are not kept. ``scales``: the run's
    fixed-point scales (None: :func:`.fixed_sums.scales_for` the graph's vertices). A block already
    committed in the store is not solved again when its reductions are on disk too, with these scales.
    ``keep_sums``: the run's key in :mod:`.worker_sums`; given, the block's per-vertex sums are added
    to this worker's accumulator of the run and "partial" holds only the rest (the store, if any,
    still saves the whole partial); reduced in place on the GPU, as it left the GPU
    (:class:`.sweep_reductions.SweepResults`, unpacked by :func:`.sweep_reductions.as_partial`), in
    sweeps of at most ``sweep_columns`` sources (None: one). ``hand_over`` (with ``keep_sums``; a
    worker's last block of a wave): the result's "sums" also holds this worker's accumulator of the
    run, taken off it (:func:`.worker_sums.hand_over`), and its stats "hand_over_s" the seconds that
    took after the block's end ("seconds" and "ended_at" are the block's own).
    """
    result = _block(graph, token, key, on_gpu, block, ids, edges, store_path, scales, keep_sums, sweep_columns)
    if hand_over and keep_sums is not None:
        started = time.perf_counter()
        result["sums"] = worker_sums.hand_over(keep_sums)
        result["stats"]["hand_over_s"] = time.perf_counter() - started
    return result


def _block(graph, token, key, on_gpu, block, ids, edges, store_path, scales, keep_sums, sweep_columns) -> dict:
    """:func:`run_block` but the hand-over."""
    started = time.perf_counter()
    ids = expand(ids)
    store = RowStore(store_path) if store_path else None
    if edges is not None and scales is None:
        scales = fixed_sums.scales_for(graph)
    if store is not None and store.is_committed(block.id):
        saved = reductions.usable_partial(store.partial(block.id), scales) if edges is not None else None
        if edges is None or saved is not None:
            return _result(block, _kept(keep_sums, block, saved), "already committed", started, {})
    device_graph, matrix = worker_graph.on_device(graph, token, on_gpu)
    if block_solvers.reduces_in_place(key, on_gpu, store is not None, edges is not None and keep_sums is not None):
        partial, stats = _reduced_in_place(device_graph, keep_sums, block, ids, edges, scales, sweep_columns)
        _sync()
        return _result(block, partial, "not stored", started, stats)
    dist, inf, stats = block_solvers.solve(key, device_graph, ids, host_matrix=matrix)
    partial = reductions.block_partial(dist, inf, ids, edges, scales) if edges is not None else None
    status = "not stored"
    if store is not None:
        status = store.write_block(block, to_store_dtype(dist, inf, graph.dtype), partial)
    del dist
    if on_gpu:
        _sync()
    return _result(block, _kept(keep_sums, block, partial), status, started, stats)


def _result(block: Block, partial, status: str, started: float, stats: dict) -> dict:
    """A block's task result; "ended_at": the worker's wall clock as it ended (one host's workers share it)."""
    return {"block": block.id, "start": block.start, "partial": partial, "status": status,
            "seconds": time.perf_counter() - started, "ended_at": time.time(), "stats": _plain(stats),
            "worker": worker_name()}


def _reduced_in_place(graph, keep_sums: tuple, block: Block, ids, edges, scales: Scales, columns: int | None):
    """Batched PHAST's sweep of the block reduced in place, its per-vertex sums added into this
    worker's accumulator of the run on the GPU (:mod:`.sweep_reductions`); the per-source results
    as the GPU left them (the client unpacks them)."""
    def make():
        return sweep_reductions.SweepSums(graph.n, scales, sweep_reductions.device_rank(graph))
    return worker_sums.add_in_place(keep_sums, block.id, make,
                                    lambda sums: sweep_reductions.phast_block(graph, ids, edges, scales, sums,
                                                                              packed=True, columns=columns))


def _kept(keep_sums: tuple | None, block: Block, partial: dict | None) -> dict | None:
    """``partial``, or its per-source part once its per-vertex sums are kept on this worker."""
    if keep_sums is None or partial is None:
        return partial
    return worker_sums.keep(keep_sums, block.id, partial)


def worker_name() -> str:
    """The Dask worker running this task (its address), or "local" outside a worker."""
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):
        return "local"


def _sync():
    import cupy
    cupy.cuda.get_current_stream().synchronize()


def _plain(stats: dict) -> dict:
    return {k: (v.item() if hasattr(v, "item") else v) for k, v in stats.items()}


def worker_facts() -> dict:
    """What the client checks before submitting: GPU or not, free device and host memory, disk."""
    import os

    from .. import gpu
    facts = {"pid": os.getpid(), "on_gpu": gpu.available(), "gpu_free": 0, "gpu_total": 0, "gpu_name": ""}
    if facts["on_gpu"]:
        info = gpu.device_info()
        facts.update(gpu_free=gpu.free_bytes(), gpu_total=info["total_memory"], gpu_name=info["device"])
    return facts
