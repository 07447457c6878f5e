"""Per-vertex sums kept on each worker across a run's blocks and handed to the client once.

A block's per-vertex sums (``sum_in``, ``harmonic_in`` in 128-bit fixed point, ``reach_in``) are
as long as the graph: 40 B a vertex, every block. Instead of shipping them with every block, a
task adds them (:func:`keep`) into its process's accumulator of the run and returns only the
block's per-source values; the client takes each worker's accumulator once at the end
(:func:`collect_all`: a task pinned to each worker, fetched straight from it) and adds them: fixed
point, so the bits do not depend on which worker counted which block. An accumulator records the block ids it holds, so that the
client counts every block once (:func:`gather`) and runs again the blocks whose sums died with a
worker.

Where a block's rows are reduced on the host side of :func:`.reductions.block_partial` (CPU workers,
a store, other block solvers) the accumulator is NumPy (:class:`WorkerSums`); where batched PHAST's
working matrix is reduced in place (:mod:`.sweep_reductions`) it stays on the GPU and the kernel adds
into it (:func:`add_in_place`): no per-vertex array leaves the GPU before the end of the run.
"""
from __future__ import annotations

import asyncio
import functools
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


def collect_all(client, key: tuple) -> dict:
    """{address: :func:`collect`'s result on that worker, or the exception that lost it} for every
    worker. A task pinned to each worker takes its accumulator and the client fetches them straight
    from the workers at once; ``client.run`` passes every result through the scheduler (1.7 s a
    worker for a 16.8M-vertex graph's 40 B a vertex on 4 x H200, ``results/paper/scale/continent``).
    A worker that leaves meanwhile gives an exception, never a wait on it."""
    return fetch_collected(client, start_collect(client, key))


def start_collect(client, key: tuple, after: dict | None = None, merging: "Merging | None" = None) -> "Collecting":
    """{address: future} of a :func:`collect` task pinned to each worker, ahead of any block queued
    there (priority :data:`FIRST`): blocks submitted after it add into fresh sums, not these.
    ``after``: {address: the futures of the blocks given to that worker}, submitted with them: each
    collect then runs as soon as its worker's blocks are done (they are its dependencies, their
    results local), with no round trip to the client in between (else: every worker the
    scheduler knows now, at once). ``merging``: where each worker's sums go as they come in."""
    token = uuid.uuid4().hex[:12]
    after = {address: [] for address in cluster.workers(client)} if after is None else after
    futures = {address: client.submit(collect_after, key, *after[address], workers=[address],
                                      allow_other_workers=False, pure=False, priority=FIRST,
                                      key=f"apsp-collect-sums-{token}-{i}")
               for i, address in enumerate(sorted(after))}
    return Collecting(client, futures, {address: len(blocks) for address, blocks in after.items()}, merging)


def collect_after(key: tuple, *blocks) -> dict | None:
    """:func:`collect`, once ``blocks`` (this worker's block results, the task's dependencies) are in."""
    return collect(key)


class Collecting(dict):
    """{address: future} of one wave's collect tasks (:func:`start_collect`); :meth:`block_done`
    counts the blocks given to each worker as their results come in, and once all of a worker's
    have, its sums are fetched from it in the background, while the other workers' last blocks
    still run, and added to ``merging`` (when given) on a thread of their own as they arrive
    (:func:`fetch_collected` takes them from there)."""

    def __init__(self, client, futures: dict, blocks: dict, merging: "Merging | None" = None):
        super().__init__(futures)
        self.client, self.left, self.fetching, self.merging = client, dict(blocks), {}, merging
        self._adding, self._lock = None, threading.Lock()

    def block_done(self, address: str) -> None:
        """One more result of the blocks given to ``address``."""
        if self.left.get(address, 0) <= 0:
            return
        self.left[address] -= 1
        if not self.left[address]:
            fetch = self.fetching[address] = asyncio.run_coroutine_threadsafe(
                self.client._gather([self[address]], direct=True), self.client.loop.asyncio_loop)
            if self.merging is not None:
                fetch.add_done_callback(functools.partial(self._add_when_in, address))

    def _add_when_in(self, address: str, fetch) -> None:
        """``address``'s sums, fetched, added to ``merging`` off the client's event loop (a failed fetch
        or add leaves them to :func:`fetch_collected` and :func:`gather`)."""
        if fetch.cancelled() or fetch.exception() is not None:
            return
        with self._lock:
            if self._adding is None:
                self._adding = ThreadPoolExecutor(max_workers=1, thread_name_prefix="apsp-sums")
            if self._adding:  # else closed: gather takes them
                self._adding.submit(self.merging.take, address, fetch.result()[0])

    def close(self) -> None:
        """Wait for the sums being added now; those still queued are left to :func:`gather`."""
        with self._lock:
            adding, self._adding = self._adding, False
        if adding:
            adding.shutdown(wait=True, cancel_futures=True)


class Merging:
    """One wave's per-vertex sums, added into the client's accumulator ``acc`` (:meth:`take`, safe
    from any thread): each worker's accumulator, which together must hold the blocks ``expected``,
    each counted once. An accumulator that holds a block already counted (a task that ran on two
    live workers, or the same accumulator taken twice) is left out whole."""

    def __init__(self, acc, expected: set):
        self.acc, self.expected, self.counted, self.errors = acc, set(expected), set(), []
        self._lock = threading.Lock()

    def take(self, address: str, got) -> None:
        """Add ``got``, what :func:`collect` gave on ``address`` (or the exception that lost it)."""
        with self._lock:
            if isinstance(got, BaseException):
                self.errors.append(f"{address}: {got!r}")  # its sums are lost: its blocks run again
                return
            if got is None or got["blocks"] & self.counted:
                return
            if not got["blocks"] <= self.expected:
                raise RuntimeError(f"worker {address} holds sums of blocks {sorted(got['blocks'] - self.expected)} "
                                   f"that its run never gave it")
            self.acc.add_packed(got["scales"], got["packed"])
            self.counted.update(got["blocks"])


def fetch_collected(client, futures: dict) -> dict:
    """:func:`collect_all`'s result from the collect tasks ``futures`` (:func:`start_collect`; what
    :class:`Collecting` fetched already is taken from there)."""
    from distributed import wait
    out, pending = {}, dict(futures)
    fetching = futures.fetching if isinstance(futures, Collecting) else {}
    try:
        while pending:
            try:
                wait(list(pending.values()), timeout=POLL_S)
            except TimeoutError:
                pass
            for address in [a for a, future in pending.items() if future.status == "finished"]:
                del pending[address]
            alive = cluster.workers(client) if pending else {}  # asked only while some are not in
            for address, future in list(pending.items()):
                if future.status in ("error", "cancelled") or address not in alive:
                    out[address] = (future.exception() if future.status == "error"
                                    else RuntimeError(f"worker {address} left before handing over its sums"))
                    del pending[address]
        ready = [address for address in futures if address not in out]
        for address in [a for a in ready if a in fetching]:
            try:
                out[address] = fetching[address].result(timeout=FETCH_TIMEOUT_S)[0]
            except Exception:  # fetched again below
                pass
        ready = [address for address in ready if address not in out]
        try:
            values = client.sync(client._gather, [futures[a] for a in ready], direct=True,
                                 callback_timeout=FETCH_TIMEOUT_S) if ready else []
            out.update(zip(ready, values))
        except Exception as exc:  # a worker left between its task and the fetch: its sums are lost
            out.update({address: exc for address in ready})
    finally:
        for fetch in fetching.values():  # the background fetches still under way
            fetch.cancel()
        if isinstance(futures, Collecting):
            futures.close()
        client.cancel(list(futures.values()))
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


def gather(client, acc, key: tuple, expected: set, run_again, fetch=collect_all, started: dict | None = None) -> int:
    """Add to the client's :class:`.reductions.Accumulator` ``acc`` the workers' accumulators of
    run ``key`` (``fetch(client, key)``, as :func:`collect_all`; the first round's from the collect
    tasks ``started`` already, :func:`start_collect`, when given: their :class:`Merging`, if any,
    has those that came in added), which together must hold the blocks ``expected``, each counted
    once (:class:`Merging`).

    Blocks the collect tasks ``started`` did not find are looked for once on every worker; those
    then counted by none (their worker died, or left out) run again under a fresh key:
    ``run_again(block_ids, new_key)`` returns when their tasks are done. Returns how many blocks
    ran again."""
    merging = getattr(started, "merging", None) or Merging(acc, expected)
    again, looked_again = 0, False

    def take(collected: dict) -> None:
        for address in sorted(collected):
            merging.take(address, collected[address])
    for round_ in range(MAX_ROUNDS + 1):
        take(fetch_collected(client, started) if started and not round_ else fetch(client, key))
        if started and not round_ and merging.expected - merging.counted:
            # sums a worker added after its collect task ran (a block it took over from a worker
            # that left), or on a worker that joined since: taken from every worker now
            take(fetch(client, key))
            looked_again = True
        missing = merging.expected - merging.counted
        if not missing:
            if again or looked_again:  # sums of blocks run twice, or after their worker's were taken
                client.run(drop, key, on_error="ignore")
            return again
        if round_ == MAX_ROUNDS:
            break
        key = (*key[:2], round_ + 1)
        run_again(sorted(missing), key)
        again += len(missing)
    client.run(drop, key, on_error="ignore")
    raise RuntimeError(f"the per-vertex sums of blocks {sorted(missing)} were lost {MAX_ROUNDS} times over; "
                       f"check the workers' logs" + (f" ({'; '.join(merging.errors[-3:])})" if merging.errors else ""))
