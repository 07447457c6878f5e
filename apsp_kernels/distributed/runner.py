"""All sources of a graph on a Dask cluster: reductions and/or every row written to Zarr.

::

    from apsp_kernels import datasets
    from apsp_kernels.distributed import cluster, all_sources
    client = cluster.local(gpus=2)                 # or cluster.connect("tcp://scheduler:8786")
    run = all_sources(datasets.load("NY"), client, block_size=1024)      # reductions only
    run.reductions.per_vertex                      # closeness, harmonic per vertex
    run = all_sources(g, client, store="out/g30.rows")   # rows to Zarr, resumable
    run = all_sources(g, client, checkpoint="out/g.ckpt")  # reductions, resumable

Everything is checked before the first task (InputError): the graph and sources, the block
solver for the workers' kind, the device memory of one block on the smallest worker and the
disk bytes of the rows. The graph goes to each worker once (the result of one task, replicated:
unlike scattered data, the scheduler recomputes it if every worker holding it dies); each block
is one task, block i queued on worker i modulo the workers (another takes it if that one leaves);
its per-source results merge on the client as blocks finish, under a tqdm bar, while its
per-vertex sums stay in its worker's accumulator, which the worker's last block returns with its
result and the client adds while the other workers finish (:mod:`.worker_sums`: blocks whose sums
died with a worker run again, none counts twice); where the workers span several hosts, they combine
their sums as a tree and the client adds only the root (:mod:`.sums_tree`).
"""
from __future__ import annotations

import functools
import os
import queue
import shutil
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path


from .. import gpu
from ..errors import InputError
from ..graph import Graph
from ..solver import checked_sources
from . import block_solvers, checkpoint as checkpoints, cluster, sums_tree, sweep_reductions, worker_sums
from .blocks import block_size_of, compact, split
from .fixed_sums import scales_for
from .reductions import Accumulator, Reductions, check_bins, default_bins, usable_partial
from .row_store import RowStore, bytes_upper_bound, fingerprint
from .tasks import run_block, worker_facts

WHO = "distributed.all_sources"
# the next wave is submitted once this many blocks a worker of the current one are still to come
LEAD_BLOCKS_PER_WORKER = 4


def _graph_task(graph: Graph) -> Graph:
    return graph


# client id -> (what was shared, its future, the workers it was copied to): the last graph of each client
_SHARED: dict = {}


def share_graph(client, graph: Graph, token: str):
    """The graph on every worker, as a task result (recomputable when its holders die), sent
    once per client: a later run on the same graph (the same token, with or without PHAST's
    hierarchy alike) reuses it, and only workers that joined since get a copy (the scheduler is
    asked to copy only then: a run on the same workers starts without that round trip)."""
    from ..sssp_hierarchy.layout import HIERARCHY_KEY
    what = (token, HIERARCHY_KEY in graph.__dict__)
    for gone in [cid for cid, (_, f, *_) in _SHARED.items() if getattr(f.client, "status", "") == "closed"]:
        del _SHARED[gone]  # a closed client's graph: nothing can use it again
    kept = _SHARED.get(client.id)
    workers = frozenset(client.scheduler_info().get("workers", {}))
    if kept is not None and kept[0] == what and kept[1].status == "finished":
        future = kept[1]
        if workers <= kept[2]:
            return future
    else:
        with warnings.catch_warnings():  # the graph is sent once by design; Dask's large-graph hint does not apply
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            future = client.submit(_graph_task, graph, key=f"apsp-graph-{token[-12:]}-{time.time_ns()}",
                                   pure=False)
    _SHARED[client.id] = (what, future, workers)  # the previous graph's future is released
    client.replicate([future])
    return future


@dataclass
class Run:
    """What a run returns: reductions (or None), the store (or None) and how it went."""

    reductions: Reductions | None
    store: RowStore | None
    seconds: float
    block_solver: str
    workers: int
    blocks: int
    statuses: dict = field(default_factory=dict)
    block_seconds: list = field(default_factory=list)
    stats: list = field(default_factory=list)
    preprocessing_s: float = 0.0  # host seconds before the first task (PHAST's contraction), not in seconds
    block_size: int = 0  # sources per block (the one asked for, or the block solver's default)
    block_workers: list = field(default_factory=list)  # the worker of each of block_seconds
    merge_s: float = 0.0  # client seconds merging the blocks' reductions, the workers' per-vertex sums included
    block_sources: list = field(default_factory=list)  # the sources of each of block_seconds
    blocks_run_again: int = 0  # blocks run again for per-vertex sums that died with their worker
    block_ends: list = field(default_factory=list)  # each block's end, seconds after the first block was submitted
    call_seconds: float = 0.0  # the whole call, its checks and the reductions' frames too: what the caller waits for
    first_submit_s: float = 0.0  # from ``seconds``' start to the first block's submission (the graph sent first)

    def _by_worker(self, per_block) -> dict:
        """Worker -> the sum of ``per_block`` (a value for each of block_seconds) over its blocks."""
        out: dict = {}
        for w, v in zip(self.block_workers, per_block):
            out[w] = out.get(w, 0) + v
        return out

    @property
    def worker_seconds(self) -> dict:
        """Worker -> seconds inside its blocks' tasks."""
        return self._by_worker(self.block_seconds)

    @property
    def worker_blocks(self) -> dict:
        """Worker -> blocks it ran."""
        return self._by_worker([1] * len(self.block_workers))

    @property
    def worker_sources(self) -> dict:
        """Worker -> sources in the blocks it ran."""
        return self._by_worker(self.block_sources)

    @property
    def worker_spans(self) -> dict:
        """Worker -> (its first block's start, its last block's end), seconds after the first block
        was submitted (the workers' wall clocks: comparable on one host): a late start or an early
        end beside the others is time the worker sat idle."""
        spans: dict = {}
        for w, end, took in zip(self.block_workers, self.block_ends, self.block_seconds):
            first, last = spans.get(w, (end - took, end))
            spans[w] = (min(first, end - took), max(last, end))
        return spans

    @property
    def after_last_block_s(self) -> float:
        """Wall seconds from the last block's end to the run's: the last per-vertex sums taken
        and merged, the last checkpoint saved."""
        return max(self.seconds - self.first_submit_s - max(self.block_ends, default=0.0), 0.0)

    @property
    def outside_blocks_s(self) -> float:
        """Wall seconds beyond the busiest worker's blocks: scheduling, transfers, the client's
        merge and the tail, the part of a run that more workers do not shorten."""
        return max(self.seconds - max(self.worker_seconds.values(), default=0.0), 0.0)


def free_disk(path: Path) -> int:
    probe = Path(path).resolve()
    while not probe.exists():
        probe = probe.parent
    return shutil.disk_usage(probe).free


def block_need(graph, size: int, key: str, store: bool = True, reduce: bool = True, waves: bool = False) -> int:
    """GPU bytes of one block of ``size`` sources, the graph and PHAST's layout included (``store``:
    the rows go to one; ``reduce``: the run reduces them; ``waves``: a checkpointed run, whose
    blocks of the next wave may start before the last wave's per-vertex sums leave the GPU)."""
    in_place = _in_place(key, store, reduce)
    held = sweep_reductions.SUMS_BYTES_PER_VERTEX * graph.n if waves and in_place else 0
    return block_solvers.block_bytes(key, graph.n, size, graph.dtype.itemsize, store, in_place) + \
        graph_bytes(graph) + layout_bytes(graph, key) + held


def graph_bytes(graph) -> int:
    """A worker's device copy of the graph: CSR offsets, heads and weights (4 B each)."""
    return 4 * (graph.n + 1 + 2 * graph.m)


def layout_bytes(graph, key: str) -> int:
    """PHAST's sweep layout on a worker's device, once the graph is contracted (prepare()); else 0."""
    if key != block_solvers.PHAST:
        return 0
    from ..sssp_hierarchy.layout import HIERARCHY_KEY
    if HIERARCHY_KEY not in getattr(graph, "__dict__", {}):
        return 0
    from ..sssp_hierarchy.phast_batched import sweep_layout
    return sweep_layout(graph)[0].nbytes


BLOCK_MULTIPLE = 64  # a balanced block stays a multiple of this (PHAST's trees per sweep)


SWEEPS_PER_BLOCK = 8  # in-place PHAST: sweeps a block holds where one sweep of its sources does not fit


def default_block_size(graph, key: str, facts: dict, on_gpu: bool, count: int | None = None,
                       store: bool = True, reduce: bool = True, waves: bool = False) -> int:
    """The block solver's preferred block (:data:`block_solvers.DEFAULT_BLOCK`, else 1024 sources;
    :data:`block_solvers.IN_PLACE_BLOCK` for PHAST reduced in place), or, where it does not fit the
    GPU of the worker with the least free memory, the largest that does (:func:`fitting_sources`);
    a block reduced in place takes up to :data:`SWEEPS_PER_BLOCK` such sweeps one after another
    (one task, the host waiting once) where two would not hold it; then shrunk so that ``count``
    sources make a multiple of the workers' number of blocks, all about the same size (:func:`balanced`)."""
    in_place = on_gpu and _in_place(key, store, reduce)
    size = block_solvers.IN_PLACE_BLOCK if in_place else \
        block_solvers.DEFAULT_BLOCK.get(key, block_solvers.SMALLEST_DEFAULT_BLOCK) if on_gpu else \
        block_solvers.SMALLEST_DEFAULT_BLOCK
    fits = fitting_sources(graph, key, facts, size, store, reduce, waves)
    if fits < size:
        size = min(size, fits * SWEEPS_PER_BLOCK) if in_place and 2 * fits <= size else fits
    return size if count is None else balanced(count, size, max(len(facts), 1))


def _in_place(key, store: bool, reduce: bool) -> bool:
    """Whether a block on GPU workers reduces PHAST's working matrix in place (no rows kept)."""
    return block_solvers.reduces_in_place(key, True, store, reduce)


def fitting_sources(graph, key: str, facts: dict, top: int, store: bool = True, reduce: bool = True,
                    waves: bool = False) -> int:
    """The most sources up to ``top`` whose block (:func:`block_need`) fits the GPU of the worker with
    the least free memory: whole chunks of :data:`.sweep_reductions.CHUNK` sources where one fits,
    else a multiple of :data:`BLOCK_MULTIPLE` (down to it: then :func:`check_block_memory` refuses
    the run), so that a USA-sized road graph's in-place PHAST sweep on an H100 is some 700 sources,
    not 512."""
    budget = gpu.MEMORY_HEADROOM * min((f["gpu_free"] for f in facts.values()), default=0)
    need = functools.partial(block_need, graph, key=key, store=store, reduce=reduce, waves=waves)
    if need(top) <= budget:
        return top
    return (largest_fitting(need, budget, sweep_reductions.CHUNK, top)
            or largest_fitting(need, budget, BLOCK_MULTIPLE, top) or BLOCK_MULTIPLE)


def sweep_columns(graph, key: str, facts: dict, size: int, store: bool = True, reduce: bool = True,
                  waves: bool = False) -> int | None:
    """Sources per sweep of a block of ``size`` on GPU workers, reduced in place (the most that fit:
    :func:`fitting_sources`), None for other blocks (one solve of all their sources)."""
    if not _in_place(key, store, reduce):
        return None
    return fitting_sources(graph, key, facts, size, store, reduce, waves)


def largest_fitting(need, budget: float, multiple: int, top: int) -> int:
    """The largest multiple of ``multiple`` up to ``top`` sources whose block needs at most
    ``budget`` bytes (``need(sources)``: :func:`block_need` of the run; a binary search: the need
    grows with the sources), or 0."""
    low, high = 0, top // multiple
    while low < high:
        mid = (low + high + 1) // 2
        if need(mid * multiple) <= budget:
            low = mid
        else:
            high = mid - 1
    return low * multiple


def balanced(count: int, size: int, workers: int) -> int:
    """The smallest block (a multiple of :data:`BLOCK_MULTIPLE` where that is possible) that cuts
    ``count`` sources into as few blocks of at most ``size`` as make a multiple of ``workers``, so
    that the workers get as many blocks of about the same size: NY's 264,346 sources on 2 workers
    in 18 blocks of 14,720 instead of 17 of 16,384 (9 and 8 blocks: as little as 1.79x), BAY's 321,270 in
    20 of 16,064 instead of 19 of 16,384 and one of 9,974 (at most 1.96x); on one worker, NY's in 5
    blocks of 52,928 instead of 4 of 65,536 and one of 2,202 (a block too narrow to fill the GPU)."""
    blocks = -(-count // size)
    blocks = -(-blocks // workers) * workers
    even = -(-count // blocks)
    rounded = -(-even // BLOCK_MULTIPLE) * BLOCK_MULTIPLE
    return rounded if rounded <= size and -(-count // rounded) % workers == 0 else even


def check_block_memory(graph, size: int, key: str, facts: dict, store: bool = True, reduce: bool = True,
                       waves: bool = False) -> None:
    """InputError when one block of ``size`` sources does not fit the GPU of the worker with
    the least free memory (``facts``: ``{address: worker_facts()}``; ``store``: the rows go to one;
    ``waves``: as :func:`block_need`)."""
    need = block_need(graph, size, key, store, reduce, waves)
    address, worst = min(facts.items(), key=lambda kv: kv[1]["gpu_free"])
    if need > gpu.MEMORY_HEADROOM * worst["gpu_free"]:
        raise InputError(f"{WHO}: one block of {size} sources of {graph.name} needs about "
                         f"{need / 2**30:.1f} GiB of GPU memory, but worker {address} has "
                         f"{worst['gpu_free'] / 2**30:.1f} GiB free; lower block_size")


def plan(graph, client, sources, block_size, block_solver, bins, store, reduce: bool, checkpoint=None,
         stop_after_s=None) -> dict:
    """Check everything a run needs, before anything is written or submitted."""
    if not isinstance(graph, Graph):
        raise InputError(f"{WHO}: graph must be an apsp_kernels Graph, got {type(graph).__name__}")
    graph.require_nonnegative(WHO)
    ids = checked_sources(sources, graph.n, WHO)
    if not len(ids):
        raise InputError(f"{WHO}: no sources given")
    if block_size is not None:
        block_size_of(block_size)
    if not reduce and store is None:
        raise InputError(f"{WHO}: nothing to do: ask for reductions, a store, or both")
    if stop_after_s is not None and checkpoint is None:
        raise InputError(f"{WHO}: stop_after_s={stop_after_s!r} stops at a wave's end, which needs a checkpoint "
                         f"folder to go on from (checkpoint=...)")
    if checkpoint is not None and (store is not None or not reduce):
        raise InputError(f"{WHO}: a checkpoint keeps a run's reductions; a store keeps its rows and resumes "
                         f"itself: give one of them (checkpoint={checkpoint!r}, store={store!r}, reduce={reduce})")
    edges = (default_bins(graph) if bins is None else check_bins(bins)) if reduce else None
    scales = scales_for(graph, len(ids)) if reduce else None
    facts = client.run(worker_facts)
    if not facts:
        cluster.require_workers(client)
    kinds = {f["on_gpu"] for f in facts.values()}
    if len(kinds) > 1:
        raise InputError(f"{WHO}: mix of GPU and CPU workers; run one kind per cluster")
    on_gpu = kinds.pop()
    key = block_solvers.check_key(block_solver or block_solvers.default_key(on_gpu, graph), on_gpu)
    key, preprocessing_s = block_solvers.prepare(key, graph, chosen_by_default=block_solver is None)
    size = block_size_of(block_size) if block_size is not None else \
        default_block_size(graph, key, facts, on_gpu and not callable(key), count=len(ids),
                           store=store is not None, reduce=reduce, waves=checkpoint is not None)
    columns = None
    if on_gpu and key not in block_solvers.CPU_KEYS and not callable(key):
        columns = sweep_columns(graph, key, facts, min(size, len(ids)), store=store is not None,
                                reduce=reduce, waves=checkpoint is not None)
        check_block_memory(graph, columns or min(size, len(ids)), key, facts, store=store is not None,
                           reduce=reduce, waves=checkpoint is not None)
    if store is not None:
        store = Path(store)
        done = RowStore(store).committed() if (store / "manifest.json").exists() else set()
        blocks = split(len(ids), size)
        rows = sum(b.size for b in blocks if b.id not in done)
        need = bytes_upper_bound(rows, graph.n, graph.dtype.itemsize)
        free = free_disk(store)
        if need > free:
            raise InputError(f"{WHO}: the rows of {rows:,} sources x {graph.n:,} vertices need up to "
                             f"{need / 1e9:.1f} GB at {store}, but {free / 1e9:.1f} GB is free; write "
                             f"fewer sources (sources=...), or choose another output path")
    return {"ids": ids, "size": size, "edges": edges, "on_gpu": on_gpu, "key": key, "facts": facts,
            "store": store, "preprocessing_s": preprocessing_s, "scales": scales, "sweep_columns": columns}


def all_sources(graph: Graph, client, sources=None, *, block_size: int | None = None, block_solver=None,
                reduce: bool = True, bins=None, store=None, checkpoint=None, stop_after_s: float | None = None,
                progress: bool = True, desc: str = "") -> Run:
    """Distances from every source (or ``sources``) in blocks of ``block_size`` on ``client``'s
    workers (None: the block solver's preferred size that fits, 16384 for PHAST, else 1024):
    reductions (``reduce``; histogram ``bins`` edges, default 64 bins up to the
    distance bound) and/or the rows in a Zarr ``store`` folder (resumed if it exists). With a
    ``checkpoint`` folder, the reductions are saved there after each of :data:`.checkpoint.WAVES`
    waves of blocks, and a run given the same folder goes on from there (:mod:`.checkpoint`);
    each wave is submitted as the one before it nears its end. ``stop_after_s``: the wave nearing
    its end once that many seconds have passed is the last (a job's time limit), the reductions
    then partial (``run.reductions.sources_done``) until a later call completes them."""
    entered = time.perf_counter()
    p = plan(graph, client, sources, block_size, block_solver, bins, store, reduce, checkpoint, stop_after_s)
    ids, edges = p["ids"], p["edges"]
    row_store = RowStore.create_or_open(p["store"], graph, ids, p["size"]) if p["store"] else None
    acc = Accumulator(graph.n, ids, edges) if reduce else None
    blocks, statuses = split(len(ids), p["size"]), {}
    token = fingerprint(graph)
    run_id = checkpoints.identity(token, ids, p["size"], edges, p["scales"]) if checkpoint is not None else None
    if checkpoint is not None and checkpoints.load(checkpoint, run_id, acc):
        statuses["resumed"] = sum(1 for b in blocks if acc.done[b.start])
    todo = []
    for b in blocks:
        if acc is not None and acc.done[b.start]:  # from the checkpoint
            continue
        saved = usable_partial(row_store.partial(b.id), p["scales"]) if row_store is not None and reduce else None
        if row_store is not None and row_store.is_committed(b.id) and (not reduce or saved is not None):
            statuses["resumed"] = statuses.get("resumed", 0) + 1
            if acc is not None:
                acc.add(b.start, saved)
        else:
            todo.append(b)
    started = time.perf_counter()
    shared = share_graph(client, graph, token) if todo else None

    addresses = sorted(p["facts"])
    tree = reduce and sums_tree.wanted(addresses)

    def submit(some, keep_sums, priority=None, pinned=False, hand_over=frozenset()):
        """The blocks ``some`` as tasks, in block order (a worker runs the latest submitted of its
        queued tasks first unless told: ``priority`` None, minus the block id); ``pinned``: block i
        given to worker i modulo the workers (:func:`given_to`: queued there at once, no round trip
        to the scheduler between blocks; another worker takes them if it leaves); the blocks whose
        ids are in ``hand_over`` return their worker's per-vertex sums with their results."""
        return [client.submit(run_block, shared, token, p["key"], p["on_gpu"], b, compact(ids[b.start:b.stop]),
                              edges, str(p["store"]) if p["store"] else None, p["scales"], keep_sums,
                              sweep_columns=p["sweep_columns"], hand_over=b.id in hand_over, pure=False,
                              priority=-b.id if priority is None else priority,
                              key=f"apsp-block-{token[-12:]}-{os.getpid()}-{time.time_ns()}-{b.id}",
                              **({"workers": [given_to(b.id, addresses)], "allow_other_workers": True} if pinned else {}))
                for b in some]

    def launch(wave):
        """A wave's blocks, their per-vertex sums kept on the workers under a key of the wave's own,
        each worker's last block of the wave handing them over (:func:`last_given`; none where the
        workers span several hosts: they combine them as a tree once the wave's blocks are in,
        :mod:`.sums_tree`), and the :class:`.worker_sums.Merging` that adds them."""
        sums_key = (token, f"{os.getpid()}-{time.time_ns()}") if reduce else None
        futures = submit(wave, sums_key, pinned=True,
                         hand_over=last_given(wave, addresses) if reduce and not tree else frozenset())
        merging = worker_sums.Merging(acc, {b.id for b in wave}) if sums_key is not None and wave else None
        return wave, futures, sums_key, merging

    def take_sums(wave, futures, sums_key, merging) -> int:
        """A wave's per-vertex sums into ``acc``: those its blocks handed over (``merging``), then
        any still missing (:func:`.worker_sums.gather`); the blocks whose sums were lost run again.
        Returns how many ran again."""
        by_id = {b.id: b for b in wave}

        def run_again(block_ids, keep_sums):
            """Blocks whose per-vertex sums were lost, run under ``keep_sums`` (their per-source results are in)."""
            futures.extend(submit([by_id[b] for b in block_ids], keep_sums, priority=worker_sums.FIRST))
            client.gather(futures[-len(block_ids):])
        return worker_sums.gather(client, acc, sums_key, set(by_id), run_again, merging=merging,
                                  fetch=sums_tree.collect_tree if tree else worker_sums.collect_all)

    submitted_at, first_submit_s = time.time(), time.perf_counter() - started
    seconds, ends, stats, workers, sizes, merge_s, again = [], [], [], [], [], 0.0, 0
    size_of = {b.id: b.size for b in todo}
    per_wave = max(len(todo), 1) if checkpoint is None else checkpoints.wave_size(len(blocks), len(p["facts"]))
    waves = [todo[i:i + per_wave] for i in range(0, len(todo), per_wave)] or [[]]
    saved_at, saved_blocks, stop = started, 0, False
    lead = LEAD_BLOCKS_PER_WORKER * max(len(p["facts"]), 1)
    bar = _Bar(len(blocks), len(blocks) - len(todo), progress, desc)
    in_flight = [launch(waves[0])]  # this wave, then the next one while this one ends and its sums come in

    def launch_next(i, left: int) -> None:
        """The wave after ``waves[i]`` once ``left`` of its blocks are still to come (workers then
        go on to it without waiting for the last ones), unless the run is to stop after this one."""
        nonlocal stop
        if len(in_flight) > 1 or stop or i + 1 >= len(waves) or left > lead:
            return
        stop = stop_after_s is not None and time.perf_counter() - started > stop_after_s
        if not stop:
            in_flight.append(launch(waves[i + 1]))
    try:
        for i in range(len(waves)):
            wave, futures, sums_key, merging = in_flight[0]
            launch_next(i, len(wave))
            for got, res in enumerate(_progress(futures, size_of, bar, len(addresses)), start=1):
                launch_next(i, len(wave) - got)
                if "sums" in res:
                    merging.take_later(res["worker"], res.pop("sums"))
                statuses[res["status"]] = statuses.get(res["status"], 0) + 1
                if acc is not None:
                    t0 = time.perf_counter()
                    acc.add(res["start"], sweep_reductions.as_partial(res["partial"]))
                    merge_s += time.perf_counter() - t0
                seconds.append(res["seconds"])
                ends.append(res["ended_at"] - submitted_at)
                stats.append(res["stats"])
                workers.append(res["worker"])
                sizes.append(size_of[res["block"]])
            launch_next(i, 0)
            if merging is not None:
                t0 = time.perf_counter()
                again += take_sums(wave, futures, sums_key, merging)
                merge_s += time.perf_counter() - t0
            in_flight.pop(0)
            if checkpoint is not None:
                now = time.perf_counter()
                checkpoints.save(checkpoint, run_id, acc, now - saved_at,
                                 checkpoints.block_totals(stats[saved_blocks:], seconds[saved_blocks:]))
                saved_at, saved_blocks = now, len(seconds)
            if not in_flight:
                break
    except BaseException:
        bar.close()
        for _, futures, sums_key, merging in in_flight:
            client.cancel(futures)
            if merging is not None:
                merging.wait_quietly()
            if sums_key is not None:
                _drop_worker_sums(client, sums_key)
        raise
    bar.close()
    wall = time.perf_counter() - started
    if row_store is not None:
        row_store.mark_complete()
    key = p["key"] if isinstance(p["key"], str) else getattr(p["key"], "__name__", "callable")
    reductions = acc.result() if acc is not None else None
    return Run(reductions, row_store, wall, key, len(p["facts"]), len(blocks), statuses, seconds, stats,
               p["preprocessing_s"], p["size"], workers, merge_s, sizes, again, ends, time.perf_counter() - entered,
               first_submit_s)


def given_to(block_id: int, addresses: list) -> str:
    """The worker a block is given to: block ids round the workers (equal blocks, equal shares)."""
    return addresses[block_id % len(addresses)]


def last_given(wave, addresses: list) -> frozenset:
    """The ids of the blocks of ``wave`` that each worker is given last (:func:`given_to`; it runs
    them in block order)."""
    last = {}
    for b in wave:
        worker = given_to(b.id, addresses)
        last[worker] = max(b.id, last.get(worker, -1))
    return frozenset(last.values())


def _drop_worker_sums(client, key) -> None:
    """Free a stopped run's per-vertex sums on the workers, where they can still be reached."""
    try:
        client.run(worker_sums.drop, key, on_error="ignore")
    except Exception:  # the cluster itself is gone: so are the sums
        pass


class _Bar:
    """The run's tqdm bar over every wave: blocks done (``already``: from a store or checkpoint),
    sources per second, ETA."""

    def __init__(self, total: int, already: int, show: bool, desc: str):
        from tqdm.auto import tqdm
        self.tqdm = tqdm(total=total, initial=already, unit="block", desc=desc or "all sources", disable=not show,
                         smoothing=0.1)
        self.sources, self.started = 0, time.perf_counter()

    def add(self, sources: int) -> None:
        self.sources += sources
        self.tqdm.update(1)
        self.tqdm.set_postfix(sources_per_s=f"{self.sources / max(time.perf_counter() - self.started, 1e-9):.0f}")

    def close(self) -> None:
        self.tqdm.close()


def _progress(futures, size_of: dict, bar: _Bar, fetchers: int = 1):
    """Results as blocks finish, counted on ``bar`` (``size_of``: each block's sources by id).
    Each is fetched straight from its worker whatever the client's ``direct_to_workers`` (relayed
    by the scheduler, a worker's last result and the per-vertex sums in it took 39-41 ms instead of
    14-16 after NY's last block, results/paper/scale/continent_hand_over), on one of ``fetchers``
    threads as its block ends: the last results of several workers, each with its worker's sums,
    come in side by side, not one after another. A block that failed raises its error here."""
    fetched, pool = queue.SimpleQueue(), ThreadPoolExecutor(max(fetchers, 1), thread_name_prefix="apsp-fetch")

    def fetch(future) -> None:
        try:
            res = future.client.gather(future, direct=True)
        except BaseException as exc:  # the block's error, or its cancellation
            fetched.put((None, exc))
        else:
            future.release()  # the worker may drop its copy
            fetched.put((res, None))

    def ended(future) -> None:
        try:
            pool.submit(fetch, future)
        except RuntimeError:  # the run stopped and shut the pool down: nobody waits for this one
            pass
    try:
        for future in futures:
            future.add_done_callback(ended)
        for _ in futures:
            res, exc = fetched.get()
            if exc is not None:
                raise exc
            bar.add(size_of[res["block"]])
            yield res
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
