"""Per-vertex sums kept on the workers and handed over once (issue 45 item 1): the same bits as one
process on 2 and 3 CPU workers, no per-vertex array in any block's result, every block counted once
when a worker's accumulator is lost or two accumulators hold the same block, resume from a store."""
import numpy as np
import pytest

from apsp_kernels import generators, oracle
from apsp_kernels.distributed import all_sources, cluster, runner, worker_sums
from apsp_kernels.distributed.blocks import split
from apsp_kernels.distributed import fixed_sums, sums_wire
from apsp_kernels.distributed.fixed_sums import scales_for
from apsp_kernels.distributed.reductions import FIXED, PER_TARGET, Accumulator, block_partial

BINS = np.linspace(0, 200, 11)
SIZE = 16


def road(n=150, seed=3):
    return generators.k_regular_digraph(n, 3, seed=seed, w_low=1, w_high=30, dtype=np.int32, name=f"reg{n}-{seed}")


def partials(g, size=SIZE):
    """Each block's full partial, as one process makes them."""
    D, ids, scales = oracle.distances(g), np.arange(g.n), scales_for(g)
    return {b.id: (b, block_partial(D[b.start:b.stop], np.inf, ids[b.start:b.stop], BINS, scales))
            for b in split(g.n, size)}


def one_process(g):
    acc = Accumulator(g.n, np.arange(g.n, dtype=np.int32), BINS)  # all_sources' sources are int32
    for b, partial in partials(g).values():
        acc.add(b.start, partial)
    return acc.result()


def recording_results(monkeypatch):
    """Every block result the client receives, as it receives it."""
    seen = []
    progress = runner._progress

    def recorded(*args, **kwargs):
        for res in progress(*args, **kwargs):
            seen.append({**res, "handed_over": "sums" in res})
            yield res
    monkeypatch.setattr(runner, "_progress", recorded)
    return seen


@pytest.mark.parametrize("workers", [2, 3])
def test_the_workers_keep_the_per_vertex_sums_and_give_one_process_s_bits(workers, monkeypatch):
    g = road()
    seen = recording_results(monkeypatch)
    client = cluster.local(cpu_workers=workers)
    try:
        run = all_sources(g, client, block_size=SIZE, bins=BINS, progress=False)
        left = client.run(worker_sums.held_runs)
    finally:
        cluster.close(client)
    assert run.reductions.same_as(one_process(g))
    assert len(seen) == run.blocks == 10 and run.blocks_run_again == 0
    assert all(not set(PER_TARGET) & set(res["partial"]) for res in seen)
    assert all(res["partial"]["reach_out"].shape == (res["partial"]["eccentricity"].size,) for res in seen)
    assert left == {w: [] for w in left}  # handed over: nothing left on the workers
    assert len(set(run.block_workers)) > 1  # the sums came from more than one worker
    handed = sorted((res["block"], res["worker"]) for res in seen if res["handed_over"])
    assert [b for b, _ in handed] == list(range(10 - workers, 10))  # each worker's last block
    assert len({w for _, w in handed}) == workers


class FakeWorkers:
    """``client.run`` over workers that each have their own :mod:`.worker_sums` accumulators."""

    def __init__(self, names):
        self.held = {name: {} for name in names}

    def on(self, name, fn, *args):
        saved = worker_sums._RUNS
        worker_sums._RUNS = self.held[name]
        try:
            return fn(*args)
        finally:
            worker_sums._RUNS = saved

    @staticmethod
    def fetch(client, key):
        """What :func:`.worker_sums.collect_all` gives: each worker's accumulator, or its exception."""
        return client.run(worker_sums.collect, key, on_error="return")

    def run(self, fn, *args, on_error="raise"):
        out = {}
        for name in self.held:
            try:
                out[name] = self.on(name, fn, *args)
            except Exception as exc:
                if on_error != "return":
                    raise
                out[name] = exc
        return out


def test_lost_and_doubled_blocks_are_run_again_and_counted_once():
    g = road()
    blocks = partials(g)
    key = ("token", "run-1")
    client = FakeWorkers(["a", "b", "c"])
    acc = Accumulator(g.n, np.arange(g.n, dtype=np.int32), BINS)
    placed = {"a": [0, 1, 2, 0], "b": [2, 3], "c": [4, 5]}  # a ran block 0 twice; b ran block 2 again
    for name, ids in placed.items():
        for i in ids:
            b, partial = blocks[i]
            kept = client.on(name, worker_sums.keep, key, i, partial)
            if not acc.done[b.start]:  # the client merges the first result of each block
                acc.add(b.start, kept)
    acc.add(blocks[6][0].start, blocks[6][1])  # resumed from a store: added on the client as a whole
    for b, partial in list(blocks.values())[7:]:
        acc.add(b.start, client.on("a", worker_sums.keep, key, b.id, partial))
    client.held["c"].clear()  # c died: its sums with it
    asked = []

    def run_again(ids, new_key):
        asked.append((ids, new_key))
        for i in ids:
            client.on("c", worker_sums.keep, new_key, i, blocks[i][1])  # c's restart runs them

    expected = set(blocks) - {6}
    assert worker_sums.gather(client, acc, key, expected, run_again, fetch=FakeWorkers.fetch) == 3
    assert asked == [([3, 4, 5], ("token", "run-1", 1))]  # b held block 2, counted by a: b left out whole
    assert acc.result().same_as(one_process(g))
    assert client.run(worker_sums.held_runs) == {"a": [], "b": [], "c": []}  # every accumulator taken


def test_a_stopped_run_s_sums_are_dropped_with_those_of_its_blocks_run_again():
    g = road(60)
    (_, partial), *_ = partials(g).values()
    client = FakeWorkers(["a"])
    for key in [("t", "r"), ("t", "r", 1), ("t", "other")]:
        client.on("a", worker_sums.keep, key, 0, partial)
    client.run(worker_sums.drop, ("t", "r"))
    assert client.run(worker_sums.held_runs) == {"a": [("t", "other")]}


def test_sums_lost_every_time_stop_the_run_with_the_blocks_named():
    g = road(60)
    acc = Accumulator(g.n, np.arange(g.n), BINS)
    with pytest.raises(RuntimeError, match=r"blocks \[0, 1\] were lost"):
        worker_sums.gather(FakeWorkers(["a"]), acc, ("t", "r"), {0, 1}, lambda ids, key: None, fetch=FakeWorkers.fetch)


def test_resuming_some_blocks_from_a_store_gives_the_same_bits(tmp_path):
    g = road()
    want = one_process(g)
    client = cluster.local(cpu_workers=2)
    try:
        first = all_sources(g, client, block_size=SIZE, bins=BINS, store=tmp_path / "rows", progress=False)
        for block_id in (2, 7):
            first.store.marker(block_id).unlink()
        again = all_sources(g, client, block_size=SIZE, bins=BINS, store=tmp_path / "rows", progress=False)
    finally:
        cluster.close(client)
    assert first.reductions.same_as(want)
    assert again.statuses == {"resumed": 8, "written": 2}
    assert again.reductions.same_as(want)


class InPlace:
    """What :class:`.sweep_reductions.SweepSums` is to :func:`worker_sums.add_in_place`, on the host:
    the block's kernel adds into it."""

    def __init__(self, n, scales):
        self.sums = {key: fixed_sums.zeros(n) if key in FIXED else np.zeros(n, np.int64) for key in PER_TARGET}
        self.scales = scales.as_array()
        self.blocks = set()

    def packed(self):
        return sums_wire.pack(self.sums)


def adding(partial, fail=False):
    """A block's run that adds its per-vertex sums into the accumulator it is given (none: already
    counted), then fails when told to, as a device error after the kernel would."""
    def run(into):
        if into is not None:
            for key in FIXED:
                fixed_sums.add(into.sums[key], partial[key])
            into.sums["reach_in"] += partial["reach_in"]
        if fail:
            raise RuntimeError("the device failed after the kernel")
        return {name: value for name, value in partial.items() if name not in PER_TARGET}
    return run


def test_sums_added_in_place_count_a_block_once_and_a_broken_accumulator_s_blocks_run_again():
    g = road()
    blocks = partials(g)
    key = ("token", "in-place")
    client = FakeWorkers(["a", "b"])
    acc = Accumulator(g.n, np.arange(g.n, dtype=np.int32), BINS)

    def make():
        return InPlace(g.n, scales_for(g))
    for i, (b, partial) in blocks.items():
        worker = "a" if i % 2 else "b"
        if i == 2:  # fails on b after adding: b's accumulator is broken; the task then runs on a
            with pytest.raises(RuntimeError, match="device failed"):
                client.on("b", worker_sums.add_in_place, key, i, make, adding(partial, fail=True))
            worker = "a"
        acc.add(b.start, client.on(worker, worker_sums.add_in_place, key, i, make, adding(partial)))
    client.on("a", worker_sums.add_in_place, key, 1, make, adding(blocks[1][1]))  # block 1 again on a: once
    asked = []

    def run_again(ids, new_key):
        asked.append(ids)
        for i in ids:
            client.on("a", worker_sums.add_in_place, new_key, i, make, adding(blocks[i][1]))

    assert worker_sums.gather(client, acc, key, set(blocks), run_again, fetch=FakeWorkers.fetch) == len(asked[0])
    assert asked == [[i for i in blocks if i % 2 == 0 and i != 2]]  # b's, but the one a counted
    assert acc.result().same_as(one_process(g))
    assert client.run(worker_sums.held_runs) == {"a": [], "b": []}



_HELD_BACK: dict = {}  # the worker whose task waits, the event that lets it go, the task (threads of this process)


def _held_back(key):
    from distributed import get_worker
    if get_worker().address == _HELD_BACK.get("address"):
        _HELD_BACK["release"].wait(30)
    return _HELD_BACK["task"](key)


def fetch_while_a_worker_leaves(monkeypatch, task: str, fetch):
    """``fetch(client, key)`` on two workers (threads of this process), the first holding a block's
    sums, while the second's ``worker_sums.<task>`` waits and that worker leaves after a second.
    Returns (what fetch gave, the workers' addresses, the one that left, the block's partial)."""
    import threading
    g = road(60)
    (_, partial), *_ = partials(g).values()
    client = cluster.local(cpu_workers=2, processes=False)
    _HELD_BACK.update(release=threading.Event(), task=getattr(worker_sums, task))
    try:
        addresses = sorted(cluster.workers(client))
        client.run(worker_sums.keep, ("t", "r"), 0, partial, workers=[addresses[0]])  # threads: one process's
        _HELD_BACK["address"] = stuck = addresses[1]
        monkeypatch.setattr(worker_sums, task, _held_back)
        monkeypatch.setattr(worker_sums, "POLL_S", 0.1)
        worker = next(w for w in client.cluster.workers.values() if w.address == stuck)
        leave = threading.Timer(1.0, lambda: client.cluster.sync(worker.close))
        leave.start()
        got = fetch(client, ("t", "r"))
        leave.join()
    finally:
        _HELD_BACK["release"].set()
        cluster.close(client)
        _HELD_BACK.clear()
    return got, addresses, stuck, partial


def test_collect_all_fetches_each_worker_s_sums_and_does_not_wait_on_one_that_left(monkeypatch):
    """Each live worker's accumulator comes back once, fetched straight from it; a worker that leaves
    while its collect task waits gives an exception at once (its blocks then run again), not a hang."""
    got, addresses, stuck, partial = fetch_while_a_worker_leaves(monkeypatch, "collect", worker_sums.collect_all)
    assert set(got) == set(addresses)
    assert got[addresses[0]]["blocks"] == {0}
    np.testing.assert_array_equal(got[addresses[0]]["packed"].unpack()["reach_in"], partial["reach_in"])
    assert isinstance(got[stuck], BaseException)


def test_handed_over_sums_are_added_on_the_merging_thread_and_count_once():
    """Each worker's sums, handed over with its last block, are added off the caller's thread as they
    come; the same sums taken again (gather's look on every worker) count once; an error in adding
    them surfaces at the wave's end."""
    import threading
    g = road()
    blocks, key = partials(g), ("token", "run-1")
    workers = FakeWorkers(["a", "b"])
    acc = Accumulator(g.n, np.arange(g.n, dtype=np.int32), BINS)
    for b, partial in blocks.values():
        acc.add(b.start, workers.on("ab"[b.id % 2], worker_sums.keep, key, b.id, partial))
    handed = {name: workers.on(name, worker_sums.hand_over, key) for name in "ab"}
    merging = worker_sums.Merging(acc, set(blocks))
    threads = []
    take = merging.take
    merging.take = lambda *args: (threads.append(threading.current_thread().name), take(*args))
    merging.take_later("a", handed["a"])
    merging.wait()
    assert merging.counted == {0, 2, 4, 6, 8} and threads == ["apsp-sums_0"]
    merging.take_later("b", handed["b"])
    assert worker_sums.gather(workers, acc, key, set(blocks), None, fetch=FakeWorkers.fetch, merging=merging) == 0
    assert len(threads) == 2  # all counted: no look on the workers
    merging.take("a", handed["a"])  # the same again: counted once
    assert acc.result().same_as(one_process(g))
    merging.take_later("c", {"blocks": {99}, "scales": None, "packed": handed["a"]["packed"]})
    with pytest.raises(RuntimeError, match="blocks \\[99\\] that its run never gave it"):
        merging.wait()


def test_a_broken_accumulator_is_handed_over_as_its_error():
    key = ("token", "broken")
    worker_sums._RUNS[key] = held = worker_sums.WorkerSums({"sum_in": np.zeros((2, 2), np.uint64),
                                                            "harmonic_in": np.zeros((2, 2), np.uint64),
                                                            "reach_in": np.zeros(2, np.int64), "scales": [1, 1]})
    held.blocks, held.broken = {3}, True
    got = worker_sums.hand_over(key)
    assert isinstance(got, RuntimeError) and "[3] run again" in str(got) and key not in worker_sums._RUNS
    assert worker_sums.hand_over(key) is None
