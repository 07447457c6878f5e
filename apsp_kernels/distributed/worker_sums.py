"""Per-vertex sums kept on each worker across a run's blocks and handed to the client once.

A block's per-vertex sums (``sum_in``, ``harmonic_in`` in 128-bit fixed point, ``reach_in``) are
as long as the graph: 40 B a vertex, every block. Instead of shipping them with every block, a
task adds them (:func:`keep`) into its process's accumulator of the run and returns only the
block's per-source values; a worker's last block of a wave returns the accumulator with its result
(:func:`hand_over`), and the client adds them as they come in: fixed point, so the bits do not
depend on which worker counted which block. An accumulator records the block ids it holds, so that
the client counts every block once (:func:`gather`); blocks no hand-over counted are looked for on
every worker (:func:`collect_all`: a task pinned to each, fetched straight from it), and those whose
sums died with a worker run again.

Where a block's rows are reduced on the host side of :func:`.reductions.block_partial` (CPU workers,
a store, other block solvers) the accumulator is NumPy (:class:`WorkerSums`); where batched PHAST's
working matrix is reduced in place (:mod:`.sweep_reductions`) it stays on the GPU and the kernel adds
into it (:func:`add_in_place`): no per-vertex array leaves the GPU before the end of the run.
"""
from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import cluster, fixed_sums, sums_wire
from .reductions import FIXED, PER_TARGET

# (token, run id) -> this process's accumulator of that run
_RUNS: dict = {}
_LOCK = threading.Lock()
MAX_ROUNDS = 5  # rounds of running lost blocks again before the run gives up
POLL_S = 0.5  # how often collect_all looks for workers that left while it waits on theirs
FIRST = 1  # Dask priority of the collect tasks: before any block queued on the worker
FETCH_TIMEOUT_S = 600.0  # a direct fetch of the sums past this is taken as lost (their blocks run again)


class WorkerSums:
    """The per-vertex sums of the blocks in ``blocks``, added up (fixed point: in any order)."""

    def __init__(self, first: dict):
        self.sums = {key: np.array(first[key], copy=True) for key in PER_TARGET}
        self.scales = np.asarray(first["scales"])
        self.blocks: set = set()

    def add(self, block_id: int, partial: dict) -> None:
        if not np.array_equal(np.asarray(partial["scales"]), self.scales):
            raise RuntimeError(f"block {block_id} was summed with fixed-point scales "
                               f"{np.asarray(partial['scales']).tolist()}, this run's with {self.scales.tolist()}")
        for key in FIXED:
            fixed_sums.add(self.sums[key], partial[key])
        self.sums["reach_in"] += partial["reach_in"]

    def packed(self) -> sums_wire.Packed:
        """The sums as they travel to the client (:mod:`.sums_wire`)."""
        return sums_wire.pack(self.sums)


def keep(key: tuple, block_id: int, partial: dict) -> dict:
    """Add ``partial``'s per-vertex sums to this process's accumulator of run ``key`` (once per
    block id: a block run twice here counts once) and return ``partial`` without them."""
    with _LOCK:
        held = _RUNS.get(key)
        if held is None:
            held = _RUNS[key] = WorkerSums(partial)
        elif block_id not in held.blocks:
            held.add(block_id, partial)
        held.blocks.add(block_id)
    return {name: value for name, value in partial.items() if name not in PER_TARGET}


def add_in_place(key: tuple, block_id: int, make, run):
    """``run(accumulator)`` for a block whose kernel adds its per-vertex sums into this process's
    accumulator of run ``key`` (made by ``make()`` the first time), or ``run(None)`` when that
    accumulator already counts the block; returns what ``run`` returns. An accumulator whose block
    failed midway is marked broken: :func:`collect` refuses it, so its blocks run again."""
    with _LOCK:
        held = _RUNS.get(key)
        if held is None:
            held = _RUNS[key] = make()
        fresh = block_id not in held.blocks
    try:
        out = run(held if fresh else None)
    except BaseException:
        if fresh:
            held.broken = True
        raise
    with _LOCK:
        held.blocks.add(block_id)
    return out


def collect(key: tuple) -> dict | None:
    """This process's accumulator of run ``key`` (``{"blocks": set, "scales", "packed"}``: the sums
    as :mod:`.sums_wire` packs them), taken off the worker; None when it holds none (no block of the
    run ran here, or it was collected); RuntimeError when a block failed midway adding into it."""
    with _LOCK:
        held = _RUNS.pop(key, None)
    if held is None:
        return None
    if getattr(held, "broken", False):
        raise RuntimeError(f"run {key}: a block failed while adding into this worker's sums; they are "
                           f"dropped and its blocks {sorted(held.blocks)} run again")
    return {"blocks": held.blocks, "scales": held.scales, "packed": held.packed()}


def hand_over(key: tuple) -> dict | BaseException | None:
    """:func:`collect` for a block's task to return with its result (a worker's last block of a
    wave): the client adds the sums as the result comes in, with no task or round trip after the
    block. The error that lost them, if any, travels in their place (their blocks run again)."""
    try:
        return collect(key)
    except RuntimeError as exc:
        return exc


def collect_all(client, key: tuple) -> dict:
    """{address: :func:`collect`'s result on that worker, or the exception that lost it} for every
    worker. A task pinned to each worker takes its accumulator and the client fetches them straight
    from the workers at once; ``client.run`` passes every result through the scheduler (1.7 s a
    worker for a 16.8M-vertex graph's 40 B a vertex on 4 x H200, ``results/paper/scale/continent``).
    A worker that leaves meanwhile gives an exception, never a wait on it."""
    return fetch_collected(client, start_collect(client, key))


def start_collect(client, key: tuple, task=None) -> dict:
    """{address: future} of a :func:`collect` task (or ``task``, as :func:`hand_over`) pinned to each
    worker the scheduler knows now, ahead of any block queued there (priority :data:`FIRST`): blocks
    submitted after it add into fresh sums, not these."""
    token = uuid.uuid4().hex[:12]
    return {address: client.submit(task or collect, key, workers=[address], allow_other_workers=False, pure=False,
                                   priority=FIRST, key=f"apsp-collect-sums-{token}-{i}")
            for i, address in enumerate(sorted(cluster.workers(client)))}


class Merging:
    """One wave's per-vertex sums, added into the client's accumulator ``acc`` (:meth:`take`, safe
    from any thread; :meth:`take_later` on a thread of its own, so that the blocks still to come are
    not kept waiting): each worker's accumulator, which together must hold the blocks ``expected``,
    each counted once. An accumulator that holds a block already counted (a task that ran on two
    live workers, or the same accumulator taken twice) is left out whole."""

    def __init__(self, acc, expected: set):
        self.acc, self.expected, self.counted, self.errors = acc, set(expected), set(), []
        self._lock, self._adding, self._failed = threading.Lock(), None, None
        self._start_adding().submit(sums_wire.load_add)  # while the blocks run

    def take(self, address: str, got) -> None:
        """Add ``got``, what :func:`collect` gave on ``address`` (or the exception that lost it, or
        :func:`.sums_tree.combine`'s sums of several workers with the errors that lost others')."""
        with self._lock:
            if isinstance(got, BaseException):
                self.errors.append(f"{address}: {got!r}")  # its sums are lost: its blocks run again
                return
            self.errors.extend(f"{address}: {error}" for error in (got or {}).get("errors", ()))
            if got is None or got["packed"] is None or got["blocks"] & self.counted:
                return
            if not got["blocks"] <= self.expected:
                raise RuntimeError(f"worker {address} holds sums of blocks {sorted(got['blocks'] - self.expected)} "
                                   f"that its run never gave it")
            self.acc.add_packed(got["scales"], got["packed"])
            self.counted.update(got["blocks"])

    def take_later(self, address: str, got) -> None:
        """:meth:`take` on the merging thread; :meth:`wait` for it."""
        self._start_adding().submit(self.take, address, got).add_done_callback(self._keep_error)

    def _start_adding(self) -> ThreadPoolExecutor:
        if self._adding is None:
            self._adding = ThreadPoolExecutor(max_workers=1, thread_name_prefix="apsp-sums")
        return self._adding

    def _keep_error(self, done) -> None:
        if done.exception() is not None:
            self.errors.append(repr(done.exception()))
            self._failed = done.exception()

    def wait(self) -> None:
        """Wait for the sums :meth:`take_later` was given; raise what adding one of them raised."""
        if self._adding is not None:
            self._adding.shutdown(wait=True)
            self._adding = None
        failed, self._failed = self._failed, None
        if failed is not None:
            raise failed

    def wait_quietly(self) -> None:
        """:meth:`wait`, its error left out (a run already failing for another reason)."""
        try:
            self.wait()
        except Exception:
            pass


def fetch_collected(client, futures: dict, needs: dict | None = None) -> dict:
    """:func:`collect_all`'s result from the collect tasks ``futures`` (:func:`start_collect`), or from
    tasks that wait on others (``needs``: {address: [(worker, future), ...]}, every task a result of
    ``futures`` waits on, itself included: :mod:`.sums_tree`): a result is given up, as lost, once
    one of those fails or its worker leaves before it is done."""
    from distributed import wait
    needs = needs or {address: [(address, future)] for address, future in futures.items()}
    out, pending = {}, dict(futures)
    try:
        while pending:
            try:
                wait(list(pending.values()), timeout=POLL_S)
            except TimeoutError:
                pass
            for address in [a for a, future in pending.items() if future.status == "finished"]:
                del pending[address]
            alive = cluster.workers(client) if pending else {}  # asked only while some are not in
            for address in list(pending):
                lost = next(((worker, task) for worker, task in needs[address]
                             if task.status in ("error", "cancelled") or (task.status != "finished"
                                                                           and worker not in alive)), None)
                if lost is not None:
                    worker, task = lost
                    out[address] = (task.exception() if task.status == "error"
                                    else RuntimeError(f"worker {worker} left before handing over its sums"))
                    del pending[address]
        ready = [address for address in futures if address not in out]
        try:
            values = client.sync(client._gather, [futures[a] for a in ready], direct=True,
                                 callback_timeout=FETCH_TIMEOUT_S) if ready else []
            out.update(zip(ready, values))
        except Exception as exc:  # a worker left between its task and the fetch: its sums are lost
            out.update({address: exc for address in ready})
    finally:
        client.cancel([task for tasks in needs.values() for _, task in tasks])
    return out


def drop(key: tuple) -> None:
    """Forget run ``key``'s accumulators, those of its blocks run again included (a run that stopped)."""
    with _LOCK:
        for held in [k for k in _RUNS if k[:2] == key[:2]]:
            del _RUNS[held]


def held_runs() -> list:
    """The keys of the runs whose sums this process holds (for tests and leak checks)."""
    with _LOCK:
        return list(_RUNS)


def gather(client, acc, key: tuple, expected: set, run_again, fetch=collect_all,
           merging: Merging | None = None) -> int:
    """Add to the client's :class:`.reductions.Accumulator` ``acc`` the workers' accumulators of
    run ``key`` which together must hold the blocks ``expected``, each counted once
    (:class:`Merging`; ``merging``: the one that took the sums the blocks handed over, if any).

    Blocks not counted yet are looked for once on every worker (``fetch(client, key)``, as
    :func:`collect_all`: sums a worker added after its last block handed them over, a block it
    took over from another); those then counted by none (their worker died) run again under a
    fresh key: ``run_again(block_ids, new_key)`` returns when their tasks are done. Returns how
    many blocks ran again; no round trip to the workers when every block was handed over."""
    merging = merging or Merging(acc, expected)
    merging.wait()
    again, looked = 0, False
    for round_ in range(MAX_ROUNDS + 1):
        if not merging.expected - merging.counted:
            break
        if round_:
            key = (*key[:2], round_)
            missing = sorted(merging.expected - merging.counted)
            run_again(missing, key)
            again += len(missing)
        for address, got in sorted(fetch(client, key).items()):
            merging.take(address, got)
        looked = True
    if looked:  # sums of blocks run twice, or kept after their worker's last block handed its over
        client.run(drop, key, on_error="ignore")
    missing = merging.expected - merging.counted
    if missing:
        seen = f" ({'; '.join(merging.errors[-3:])})" if merging.errors else ""
        raise RuntimeError(f"the per-vertex sums of blocks {sorted(missing)} were lost {MAX_ROUNDS} times over; "
                           f"check the workers' logs{seen}")
    return again
