"""The workers' per-vertex sums combined pairwise on the workers (issue 45 item 1, "combined across
workers as a tree"): the bits of one process whatever the tree's shape, no block counted twice when
two workers hold it, lost sums carried as errors so that their blocks run again, and a worker that
leaves while the tree waits on it gives an error at once, not a hang."""

import numpy as np
import pytest

from apsp_kernels.distributed import all_sources, cluster, sums_tree, worker_sums
from apsp_kernels.distributed.reductions import Accumulator
from test_worker_sums import (BINS, SIZE, FakeWorkers, fetch_while_a_worker_leaves, one_process, partials,
                              recording_results, road)


def handed(workers, key):
    return {name: workers.on(name, worker_sums.hand_over, key) for name in workers.held}


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_a_tree_of_any_shape_gives_the_bits_of_one_process(count):
    g = road()
    blocks, key = partials(g), ("token", "tree")
    names = [f"w{i}" for i in range(count)]
    workers = FakeWorkers(names)
    acc = Accumulator(g.n, np.arange(g.n, dtype=np.int32), BINS)
    for b, partial in blocks.values():
        acc.add(b.start, workers.on(names[b.id % count], worker_sums.keep, key, b.id, partial))
    level = list(handed(workers, key).values())
    while len(level) > 1:  # pairs, the odd one carried up, as collect_tree does
        level = [sums_tree.combine(*level[i:i + 2]) for i in range(0, len(level) - 1, 2)] + \
            level[len(level) - len(level) % 2:]
    root = level[0]
    assert root["blocks"] == set(blocks) and not root.get("errors")
    merging = worker_sums.Merging(acc, set(blocks))
    merging.take("root", root)
    assert merging.counted == set(blocks)
    assert acc.result().same_as(one_process(g))


def test_sums_of_a_block_held_twice_are_left_out_whole_and_lost_ones_travel_as_errors():
    g = road()
    blocks, key = partials(g), ("token", "tree")
    workers = FakeWorkers(["a", "b", "c"])
    for name, ids in {"a": [0, 1], "b": [1, 2], "c": [3]}.items():  # b ran block 1 again
        for i in ids:
            workers.on(name, worker_sums.keep, key, i, blocks[i][1])
    got = handed(workers, key)
    both = sums_tree.combine(got["a"], got["b"])
    assert both["blocks"] == {0, 1} and "blocks [1, 2] were left out" in both["errors"][0]
    lost = sums_tree.combine(both, RuntimeError("worker c died"))
    assert lost["blocks"] == {0, 1} and "worker c died" in lost["errors"][-1]
    assert sums_tree.combine(None, None) is None
    nothing = sums_tree.combine(None, RuntimeError("gone"))
    assert nothing["packed"] is None and nothing["blocks"] == set()
    acc = Accumulator(g.n, np.arange(g.n, dtype=np.int32), BINS)
    merging = worker_sums.Merging(acc, set(blocks))
    merging.take("root", nothing)
    merging.take("root", lost)
    assert merging.counted == {0, 1} and any("worker c died" in e for e in merging.errors)
    other = dict(got["c"], scales=[s + 1 for s in got["c"]["scales"]])
    with pytest.raises(RuntimeError, match="fixed-point scales"):
        sums_tree.combine(both, other)


def test_workers_on_several_hosts_combine_the_sums_as_a_tree_with_one_process_s_bits(monkeypatch):
    from distributed import get_task_stream
    g = road()
    seen = recording_results(monkeypatch)
    monkeypatch.setattr(sums_tree, "TREE_FROM_HOSTS", 1)  # one host stands in for several
    client = cluster.local(cpu_workers=3)  # processes: an accumulator each
    try:
        with get_task_stream(client) as tasks:
            run = all_sources(g, client, block_size=SIZE, bins=BINS, progress=False)
        left = client.run(worker_sums.held_runs)
    finally:
        cluster.close(client)
    assert run.reductions.same_as(one_process(g))
    assert run.blocks_run_again == 0 and len(set(run.block_workers)) == 3
    assert not any(res["handed_over"] for res in seen)  # no block brought its worker's sums
    keys = [str(task["key"]) for task in tasks.data]
    assert sum(key.startswith("apsp-collect-sums") for key in keys) == 3
    assert sum(key.startswith("apsp-combine-sums") for key in keys) == 2  # three workers: two combines
    assert left == {w: [] for w in left}


def test_a_worker_that_leaves_while_the_tree_waits_on_it_loses_the_tree_at_once(monkeypatch):
    """The root waits on a combine that waits on a worker's sums; that worker leaves: the root is
    given up as lost (its blocks then run again), not waited on."""
    got, addresses, stuck, _ = fetch_while_a_worker_leaves(monkeypatch, "hand_over", sums_tree.collect_tree)
    assert list(got) == [addresses[0]]  # the root's worker
    assert isinstance(got[addresses[0]], RuntimeError) and stuck in str(got[addresses[0]])


def test_the_tree_is_for_workers_on_several_hosts():
    assert not sums_tree.wanted(["tcp://10.0.0.1:4001", "tcp://10.0.0.1:4002"])
    assert sums_tree.wanted(["tcp://10.0.0.1:4001", "tcp://10.0.0.2:4001"])
    assert not sums_tree.wanted([])
