"""All sources on a Dask cluster (apsp_kernels.distributed) with CPU workers: reductions against
NetworkX, the Zarr row store (commit once, resume), refusals before any task, a worker killed
mid-run, bulk instances."""
import functools
import logging
import os
import sys
import threading
import types
import warnings

import cloudpickle
import dask
import networkx as nx
import numpy as np
import pytest
from scipy.sparse import csgraph

from apsp_kernels import generators, gpu, oracle
from apsp_kernels.distributed import (RowStore, all_sources, block_solvers, bulk_instances, cluster,
                                      estimate, worker_graph)
from apsp_kernels.distributed.estimate import describe as estimate_text
from apsp_kernels.distributed import runner, sums_tree, sweep_reductions
from apsp_kernels.distributed.blocks import compact, expand, split
from apsp_kernels.distributed.fixed_sums import scales_for
from apsp_kernels.distributed.reductions import Accumulator, block_partial, default_bins
from apsp_kernels.errors import InputError
from apsp_kernels.graph import Graph
import helpers

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the gated solver runs on workers
TIMEOUT = 60


def wait_for(condition, what, timeout=TIMEOUT):
    helpers.wait_for(condition, what, timeout)


@pytest.fixture(scope="module")
def client():
    c = cluster.local(cpu_workers=2)
    yield c
    cluster.close(c)


def road(n=150, seed=3):
    return generators.k_regular_digraph(n, 3, seed=seed, w_low=1, w_high=30, dtype=np.int32,
                                        name=f"reg{n}-{seed}")


def to_nx(g: Graph) -> nx.DiGraph:
    G = nx.DiGraph()
    G.add_nodes_from(range(g.n))
    src = np.repeat(np.arange(g.n), np.diff(g.indptr))
    G.add_weighted_edges_from(zip(src.tolist(), g.indices.tolist(), g.weights.tolist()))
    return G


BINS = np.linspace(0, 200, 11)


def reduce_in_blocks(g, block_size, bins=BINS):
    D = oracle.distances(g)
    ids = np.arange(g.n)
    acc = Accumulator(g.n, ids, bins)
    scales = scales_for(g)
    for b in reversed(split(g.n, block_size)):  # any order
        acc.add(b.start, block_partial(D[b.start:b.stop], np.inf, ids[b.start:b.stop], bins, scales))
    return acc.result(), D


@pytest.mark.parametrize("weighted_graph", ["sparse", "strong"])
def test_reductions_match_networkx(weighted_graph):
    if weighted_graph == "sparse":
        g = road(60)
    else:  # a ring plus chords: strongly connected, so NetworkX's eccentricity is defined
        n = 30
        rng = np.random.default_rng(0)
        src = np.concatenate([np.arange(n), rng.integers(0, n, 60)])
        dst = np.concatenate([(np.arange(n) + 1) % n, rng.integers(0, n, 60)])
        g = Graph.from_edges(n, src, dst, rng.integers(1, 9, len(src)), name="ring")
    red, D = reduce_in_blocks(g, 7)
    G = to_nx(g)
    closeness = nx.closeness_centrality(G, distance="weight")
    harmonic = nx.harmonic_centrality(G, distance="weight")
    assert np.allclose(red.per_vertex["closeness"], [closeness[v] for v in range(g.n)])
    assert np.allclose(red.per_vertex["harmonic"], [harmonic[v] for v in range(g.n)])
    finite = np.isfinite(D)
    assert (red.per_source["reach_out"] == finite.sum(1)).all()
    assert (red.per_vertex["reach_in"] == finite.sum(0)).all()
    off = finite & ~np.eye(g.n, dtype=bool)
    assert red.reachable_pairs == off.sum()
    assert red.histogram["pairs"].sum() + red.outside_bins == off.sum()
    assert red.histogram["pairs"].tolist() == np.histogram(D[off], np.linspace(0, 200, 11))[0].tolist()
    if weighted_graph == "strong":
        assert red.strongly_connected
        ecc = nx.eccentricity(G, weight="weight")
        assert np.allclose(red.per_source["eccentricity"], [ecc[v] for v in range(g.n)])
        assert red.diameter == nx.diameter(G, weight="weight")
        assert red.radius == nx.radius(G, weight="weight")
    else:
        assert not red.strongly_connected
        assert np.allclose(red.per_source["eccentricity"], np.where(finite, D, 0).max(1))


def test_rows_and_reductions_on_the_cluster_equal_one_process(client, tmp_path):
    g = road()
    before = client.run(worker_graph.builds)
    run = all_sources(g, client, block_size=16, bins=BINS, store=tmp_path / "rows", progress=False)
    after = client.run(worker_graph.builds)
    assert all(after[w] - before[w] <= 1 for w in after)  # the graph reached each worker once
    assert run.blocks == 10 and run.statuses == {"written": 10}
    assert np.array_equal(run.store.rows(), oracle.distances(g))
    assert run.store.complete and len(run.store.committed()) == 10
    one, _ = reduce_in_blocks(g, g.n)
    assert np.allclose(run.reductions.per_vertex["closeness"], one.per_vertex["closeness"])
    assert np.allclose(run.reductions.per_vertex["harmonic"], one.per_vertex["harmonic"])
    assert run.reductions.summary() == one.summary()
    # the wall time, split: each worker's seconds in its blocks, the client's merge, the rest
    assert set(run.worker_seconds) <= set(client.scheduler_info()["workers"]) and run.worker_seconds
    assert sum(run.worker_seconds.values()) == pytest.approx(sum(run.block_seconds))
    assert run.worker_blocks.keys() == run.worker_seconds.keys() and sum(run.worker_blocks.values()) == 10
    assert run.worker_sources.keys() == run.worker_seconds.keys() and sum(run.worker_sources.values()) == g.n
    assert sorted(run.block_sources) == sorted(b.size for b in split(g.n, 16))
    assert 0 < run.merge_s < run.seconds < run.call_seconds  # the call: its checks and the frames too
    assert run.outside_blocks_s == pytest.approx(run.seconds - max(run.worker_seconds.values()))
    spans = run.worker_spans  # each worker's first start and last end, after the first submission
    assert spans.keys() == run.worker_seconds.keys()
    assert all(0 <= first < last <= run.seconds + 0.05 for first, last in spans.values())
    assert all(last - first >= run.worker_seconds[w] - 1e-6 for w, (first, last) in spans.items())
    # a rerun finds every block committed and submits nothing
    again = all_sources(g, client, block_size=16, bins=BINS, store=tmp_path / "rows", progress=False)
    assert again.statuses == {"resumed": 10}
    assert np.allclose(again.reductions.per_vertex["harmonic"], one.per_vertex["harmonic"])


def _worker_log_filtered():
    log = logging.getLogger("distributed.worker")
    record = lambda msg: logging.LogRecord("distributed.worker", logging.ERROR, __file__, 0, msg, None, None)
    return (log.filter(record("Failed to communicate with scheduler during heartbeat.")),
            log.filter(record("Compute Failed")))


def test_gpu_workers_start_after_this_process_hands_back_the_gpu_memory_it_caches(monkeypatch):
    import distributed
    order = []
    fake = types.ModuleType("dask_cuda")
    fake.LocalCUDACluster = lambda **kw: order.append(("workers on", kw["CUDA_VISIBLE_DEVICES"],
                                                       kw["dashboard_address"])) or "cluster"
    monkeypatch.setitem(sys.modules, "dask_cuda", fake)
    monkeypatch.setattr(gpu, "free_pool", lambda: order.append("pool freed"))
    monkeypatch.setattr(distributed, "Client", lambda c, set_as_default=True, direct_to_workers=None:
                        ("client of", c, direct_to_workers))
    assert cluster.local(gpus="0,1") == ("client of", "cluster", True)  # results straight from the workers
    assert order == ["pool freed", ("workers on", ["0", "1"], ":0")]  # the dashboard on a free port


def test_closing_a_local_cluster_quiets_only_the_heartbeats_its_scheduler_ends():
    c = cluster.local(cpu_workers=2)
    try:
        before = set(map(tuple, c.run(_worker_log_filtered).values()))
        c.run(cluster._expect_scheduler_to_go)
        after = set(map(tuple, c.run(_worker_log_filtered).values()))
    finally:
        cluster.close(c)
    assert {bool(a) for a, _ in before} == {True} and after == {(False, True)}  # other errors still log
    threads = cluster.local(cpu_workers=1, processes=False)  # workers in this process: one filter, however often
    try:
        for _ in range(3):
            threads.run(cluster._expect_scheduler_to_go)
        log = logging.getLogger("distributed.worker")
        assert sum(isinstance(f, cluster._SchedulerGoing) for f in log.filters) == 1
    finally:
        cluster.close(threads)


def test_close_warns_the_workers_before_the_scheduler_goes():
    from types import SimpleNamespace
    done = []
    own = SimpleNamespace(close=lambda: done.append("cluster"))
    fake = SimpleNamespace(cluster=own, run=lambda fn: done.append(fn.__name__), close=lambda: done.append("client"))
    cluster.close(fake)
    assert done == ["_expect_scheduler_to_go", "client", "cluster"]
    done.clear()
    cluster.close(SimpleNamespace(cluster=None, run=lambda fn: done.append("run"), close=lambda: done.append("client")))
    assert done == ["client"]  # a client of someone else's cluster: its workers are not ours to quiet


def test_a_closed_clients_graph_is_let_go(client, monkeypatch):
    from types import SimpleNamespace
    closed = SimpleNamespace(status="closed")
    gone = (("token-x", False), SimpleNamespace(client=closed), frozenset())
    monkeypatch.setitem(runner._SHARED, "gone-client", gone)
    runner.share_graph(client, road(60), "token-y").result()
    assert "gone-client" not in runner._SHARED and client.id in runner._SHARED


def test_sharing_the_graph_once_raises_no_large_graph_hint(client):
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "1B"}), warnings.catch_warnings():
        warnings.simplefilter("error")  # the hint is a UserWarning: sent once per run by design
        shared = runner.share_graph(client, road(), "token-of-the-test")
        assert shared.result().n == 150


def test_a_graph_is_sent_once_per_client_and_again_when_it_changes(client):
    g = road(150)
    first = runner.share_graph(client, g, "token-a")
    first.result()
    assert runner.share_graph(client, g, "token-a").key == first.key
    other = runner.share_graph(client, road(60), "token-b")
    assert other.key != first.key and other.result().n == 60
    assert runner.share_graph(client, g, "token-a").key != first.key  # the last one only is kept
    g2 = road(150)
    from apsp_kernels.sssp_hierarchy.layout import HIERARCHY_KEY
    plain = runner.share_graph(client, g2, "token-c")
    plain.result()
    g2.__dict__[HIERARCHY_KEY] = "a hierarchy"  # PHAST's, added since: sent again with it
    assert runner.share_graph(client, g2, "token-c").key != plain.key


def test_the_graph_is_copied_to_the_workers_again_only_when_new_ones_joined(client, monkeypatch):
    g = road(150)
    runner.share_graph(client, g, "token-r").result()
    copies = []
    monkeypatch.setattr(client, "replicate", lambda futures: copies.append(futures))
    same = runner.share_graph(client, g, "token-r")
    assert copies == []  # the same workers: no round trip to the scheduler
    info = client.scheduler_info()
    joined = {**info, "workers": {**info["workers"], "tcp://joined:1": {}}}
    monkeypatch.setattr(client, "scheduler_info", lambda **kw: joined)
    assert runner.share_graph(client, g, "token-r").key == same.key and len(copies) == 1


def test_the_graph_stays_on_every_worker_between_runs(client):
    """Dask's memory manager drops copies that no queued task needs (every 2 s); a local cluster's
    keeps them, so that the next run's blocks start at once on every worker."""
    import time
    g = road(150, seed=11)
    all_sources(g, client, block_size=16, bins=BINS, progress=False)
    _, shared, _ = runner._SHARED[client.id]
    time.sleep(2.5)
    assert set(client.who_has([shared])[shared.key]) == set(client.scheduler_info()["workers"])


def test_rows_are_read_by_source_or_by_position(client, tmp_path):
    g = road(60)
    sources = np.array([41, 7, 19, 3], dtype=np.int32)
    run = all_sources(g, client, sources, block_size=2, store=tmp_path / "rows", progress=False, reduce=False)
    assert np.array_equal(run.store.rows_of([3, 41]), oracle.distances(g, [3, 41]))
    assert np.array_equal(run.store.rows([0, 3]), oracle.distances(g, [41, 3]))
    with pytest.raises(InputError, match=r"no row for source\(s\) \[5\]"):
        run.store.rows_of([3, 5])


def test_a_crash_between_chunks_and_commit_is_redone_and_never_read(client, tmp_path):
    g = road(80)
    ids = np.arange(g.n, dtype=np.int32)
    store = RowStore.create_or_open(tmp_path / "rows", g, ids, 32)
    block = store.blocks[1]
    # chunks written, marker never made: what a worker killed before its commit leaves behind
    import zarr
    zarr.open_array(str(store.path / "distances"), mode="r+")[block.start:block.stop] = 7
    with pytest.raises(InputError, match="not committed"):
        store.rows([block.start])
    run = all_sources(g, client, block_size=32, store=tmp_path / "rows", progress=False, reduce=False)
    assert run.statuses == {"written": 3}
    assert np.array_equal(run.store.rows(), oracle.distances(g))
    # a retried task that finds its block committed writes nothing
    rows = np.zeros((block.size, g.n), np.int32)
    assert store.write_block(block, rows) == "already committed"
    assert np.array_equal(store.rows([block.start]), oracle.distances(g, [block.start]))


def test_default_bins_hold_every_distance_and_span_those_that_occur():
    g = generators.road_like(400, 1000, seed=4)  # strongly connected: bounded through vertex 0
    D = oracle.distances(g)
    edges = default_bins(g)
    assert len(edges) == 65 and np.all(np.diff(edges) == edges[1]) and edges[1] == int(edges[1])  # int weights
    assert D.max() <= edges[-1] < 2 * D.max() + 64 < g.distance_bound
    path = Graph.from_edges(3, [0, 1], [1, 2], [5, 7], name="path")  # nothing reaches vertex 0
    assert path.distance_bound <= default_bins(path)[-1] < path.distance_bound + 64
    floats = generators.road_like(400, 1000, seed=4, dtype=np.float64)
    assert np.array_equal(default_bins(floats), np.linspace(0.0, default_bins(floats)[-1], 65))


def test_a_task_run_again_after_its_commit_returns_its_reductions_and_writes_nothing(tmp_path):
    # what Dask does when a worker dies after committing a block but before its result was fetched
    from apsp_kernels.distributed.row_store import fingerprint
    from apsp_kernels.distributed.tasks import run_block
    g = road(48)
    ids = np.arange(g.n, dtype=np.int32)
    store = RowStore.create_or_open(tmp_path / "rows", g, ids, 16)
    block = store.blocks[1]
    args = (g, fingerprint(g), block_solvers.default_key(False), False, block, ids[block.start:block.stop],
            np.asarray(BINS, dtype=np.float64), str(store.path))
    first = run_block(*args)
    marker = store.marker(block.id).read_text()
    again = run_block(*args)
    assert (first["status"], again["status"]) == ("written", "already committed")
    assert first["partial"].keys() == again["partial"].keys()
    for name, value in first["partial"].items():
        assert np.array_equal(value, again["partial"][name]), name
    assert store.marker(block.id).read_text() == marker
    assert np.array_equal(store.rows(ids[block.start:block.stop]), oracle.distances(g, ids[block.start:block.stop]))


def test_bad_input_is_refused_before_anything_is_written(client, tmp_path, monkeypatch):
    g = road(40)
    out = tmp_path / "rows"
    cases = [
        (dict(graph="not a graph"), "Graph"),
        (dict(block_size=0), "block_size"),
        (dict(sources=[0, 99]), r"\[0, 40\)"),
        (dict(bins=[3, 1]), "bins"),
        (dict(block_solver="okuyama:task_parallel_shared_tuned"), "needs GPU workers"),
        (dict(block_solver="nope:nothing"), "GPU workers"),
        (dict(reduce=False, store=None), "nothing to do"),
    ]
    for kwargs, match in cases:
        args = dict(graph=g, store=out, progress=False)
        args.update(kwargs)
        with pytest.raises(InputError, match=match):
            all_sources(args.pop("graph"), client, **args)
    negative = Graph.from_edges(3, [0, 1], [1, 2], [1, -1], name="neg")
    with pytest.raises(InputError, match="non-negative"):
        all_sources(negative, client, store=out, progress=False)
    monkeypatch.setattr(runner, "free_disk", lambda path: 1000)
    with pytest.raises(InputError, match="GB is free"):
        all_sources(g, client, store=out, progress=False)
    assert not out.exists() and not list(tmp_path.iterdir())
    monkeypatch.undo()
    all_sources(g, client, block_size=8, store=out, progress=False, reduce=False)
    with pytest.raises(InputError, match="another run"):
        all_sources(road(40, seed=9), client, block_size=8, store=out, progress=False)


def test_a_block_too_big_for_the_gpu_is_refused():
    g = road(1000)
    facts = {"tcp://a": {"gpu_free": 80 << 30}, "tcp://b": {"gpu_free": 100 << 20}}
    with pytest.raises(InputError, match="tcp://b has 0.1 GiB free; lower block_size"):
        runner.check_block_memory(g, 16384, "okuyama:task_parallel_shared_tuned", facts)
    runner.check_block_memory(g, 16, "okuyama:task_parallel_shared_tuned", facts)


def fits_and_is_the_largest(g, size, facts, multiple, store=True):
    budget = gpu.MEMORY_HEADROOM * min(f["gpu_free"] for f in facts.values())
    need = functools.partial(runner.block_need, g, key=block_solvers.PHAST, store=store)
    return size % multiple == 0 and need(size) <= budget < need(size + multiple)


def test_the_default_block_is_the_solver_s_else_the_largest_that_fits():
    g = road(100_000)
    roomy = {"tcp://a": {"gpu_free": 80 << 30}}
    assert runner.default_block_size(g, block_solvers.PHAST, roomy, on_gpu=True) == 16384
    assert runner.default_block_size(g, "fast:multi_source", roomy, on_gpu=True) == 1024
    assert runner.default_block_size(g, block_solvers.PHAST, roomy, on_gpu=False) == 1024
    tight = {"tcp://a": {"gpu_free": 80 << 30}, "tcp://b": {"gpu_free": 8 << 30}}  # 8192 needs ~12 GiB
    size = runner.default_block_size(g, block_solvers.PHAST, tight, on_gpu=True)
    assert size == 4096 and fits_and_is_the_largest(g, size, tight, sweep_reductions.CHUNK)
    sixteen_m = types.SimpleNamespace(n=1 << 24, m=41_943_040, dtype=np.dtype(np.int32))  # the 16M stand-in
    h200 = {"tcp://a": {"gpu_free": 140 << 30}}
    size = runner.default_block_size(sixteen_m, block_solvers.PHAST, h200, on_gpu=True)  # rows to a store
    assert size == 448 and fits_and_is_the_largest(sixteen_m, size, h200, runner.BLOCK_MULTIPLE)
    runner.check_block_memory(sixteen_m, size, block_solvers.PHAST, h200)  # what all_sources then checks
    # reduced in place: sweeps of the sources that fit, SWEEPS_PER_BLOCK of them a block
    assert runner.fitting_sources(sixteen_m, block_solvers.PHAST, h200, 16384, store=False) == 1024
    assert runner.default_block_size(sixteen_m, block_solvers.PHAST, h200, on_gpu=True, store=False) == \
        1024 * runner.SWEEPS_PER_BLOCK
    assert runner.sweep_columns(sixteen_m, block_solvers.PHAST, h200, 8192, store=False) == 1024
    assert runner.sweep_columns(sixteen_m, block_solvers.PHAST, h200, 448) is None  # a store: one solve
    assert runner.sweep_columns(g, block_solvers.PHAST, roomy, 16384, store=False) == 16384
    usa = types.SimpleNamespace(n=23_947_347, m=58_333_344, dtype=np.dtype(np.int32), name="usa-sized")
    h100 = {"tcp://a": {"gpu_free": 79 << 30}}
    size = runner.fitting_sources(usa, block_solvers.PHAST, h100, 16384, store=False)
    assert size == 768 and fits_and_is_the_largest(usa, size, h100, runner.BLOCK_MULTIPLE, store=False)
    assert runner.default_block_size(usa, block_solvers.PHAST, h100, on_gpu=True, store=False) == \
        768 * runner.SWEEPS_PER_BLOCK
    # a checkpointed run also holds the last wave's per-vertex sums while the next wave starts
    held = sweep_reductions.SUMS_BYTES_PER_VERTEX * usa.n
    assert runner.block_need(usa, size, block_solvers.PHAST, store=False, waves=True) == \
        runner.block_need(usa, size, block_solvers.PHAST, store=False) + held
    assert runner.block_need(usa, size, block_solvers.PHAST, waves=True) == \
        runner.block_need(usa, size, block_solvers.PHAST)  # rows to a store: the sums stay on the host
    squeezed = {"tcp://a": {"gpu_free": int(runner.block_need(usa, size, block_solvers.PHAST, store=False)
                                            / gpu.MEMORY_HEADROOM) + 1}}
    assert runner.fitting_sources(usa, block_solvers.PHAST, squeezed, 16384, store=False) == size
    assert runner.fitting_sources(usa, block_solvers.PHAST, squeezed, 16384, store=False, waves=True) < size
    with pytest.raises(InputError, match="lower block_size"):
        runner.check_block_memory(usa, size, block_solvers.PHAST, squeezed, store=False, waves=True)
    assert runner.default_block_size(sixteen_m, block_solvers.PHAST, {"tcp://a": {"gpu_free": 1 << 30}},
                                     on_gpu=True) == runner.BLOCK_MULTIPLE  # the floor: then refused


def test_a_run_without_a_store_counts_no_rows():
    # the 16M stand-in's all-sources sample on two H100s ran in blocks of 64 (results/paper/scale): the
    # rule counted the float64 copy a store takes, 8 bytes an entry, in a run that only reduces; and a run
    # that only reduces reads PHAST's working matrix in place (no rows at all: twice the sources a block)
    sixteen_m = types.SimpleNamespace(n=1 << 24, m=41_943_040, dtype=np.dtype(np.int32), name="roadlike-16M")
    h100 = {"tcp://a": {"gpu_free": int(78.6 * (1 << 30))}}
    reducing = runner.fitting_sources(sixteen_m, block_solvers.PHAST, h100, 16384, store=False)
    rows_only = runner.default_block_size(sixteen_m, block_solvers.PHAST, h100, on_gpu=True, store=False,
                                          reduce=False)
    storing = runner.default_block_size(sixteen_m, block_solvers.PHAST, h100, on_gpu=True, store=True)
    assert (reducing, rows_only, storing) == (1024, 512, 256)
    assert runner.block_need(sixteen_m, 512, block_solvers.PHAST, store=False, reduce=False) == \
        runner.block_need(sixteen_m, 512, block_solvers.PHAST, store=True) - 512 * (1 << 24) * 8
    assert runner.block_need(sixteen_m, 512, block_solvers.PHAST, store=False) <= \
        runner.block_need(sixteen_m, 512, block_solvers.PHAST, store=False, reduce=False) - 512 * (1 << 24) * 4
    runner.check_block_memory(sixteen_m, 1024, block_solvers.PHAST, h100, store=False)
    with pytest.raises(InputError, match="lower block_size"):
        runner.check_block_memory(sixteen_m, 512, block_solvers.PHAST, h100, store=True)
    bay = types.SimpleNamespace(n=321_270, m=794_830, dtype=np.dtype(np.int32))  # refused at 16384 before
    # reduced in place: one sweep of the most that fit, not a sweep of that many and a narrow second one
    assert runner.default_block_size(bay, block_solvers.PHAST, h100, on_gpu=True, store=False) == \
        runner.fitting_sources(bay, block_solvers.PHAST, h100, block_solvers.IN_PLACE_BLOCK, store=False) < 65536
    assert runner.default_block_size(bay, block_solvers.PHAST, h100, on_gpu=True, store=True) < 16384  # rows kept


@pytest.mark.parametrize("count,size,workers", [(264346, 8192, 2), (321270, 8192, 2), (264346, 8192, 1),
                                                (264346, 16384, 2), (321270, 16384, 2), (321270, 16384, 4),
                                                (264346, 8192, 3), (1000, 1024, 2), (5000, 1024, 4),
                                                (2049, 1024, 2), (100, 8192, 2), (7, 1024, 8)])
def test_a_default_block_gives_every_worker_as_many_blocks(count, size, workers):
    block = runner.balanced(count, size, workers)
    blocks = -(-count // block)
    assert 1 <= block <= size
    if count >= workers * runner.BLOCK_MULTIPLE:
        fewest = -(-(-(-count // size)) // workers) * workers
        assert blocks == fewest and block % runner.BLOCK_MULTIPLE == 0
        last = count - (blocks - 1) * block
        assert block - last < runner.BLOCK_MULTIPLE * blocks  # every block about the same size
    assert runner.balanced(264346, 8192, 2) == 7808  # NY on two GPUs: 34 blocks, 17 each
    assert runner.balanced(264346, 16384, 2) == 14720  # 18 blocks, 9 each
    assert runner.balanced(321270, 16384, 2) == 16064  # BAY: 20 blocks, the last not 9,974 sources
    assert runner.balanced(264346, 65536, 1) == 52928  # NY on one GPU: 5 blocks, the last not 2,202 sources


def test_all_sources_and_estimate_take_the_balanced_default_block():
    g = road(3000)
    facts = {"tcp://a": {"gpu_free": 80 << 30}, "tcp://b": {"gpu_free": 80 << 30}}
    size = runner.default_block_size(g, "scipy:dijkstra", facts, on_gpu=False, count=g.n)
    assert size == runner.balanced(g.n, 1024, 2) and -(-g.n // size) % 2 == 0


GATE = "apsp-kill-test"


def gated_dijkstra(graph, sources, matrix):
    """SciPy's Dijkstra; every block but the first two waits for the test to open the gate."""
    from distributed import Event
    if sources[0] >= 2 * 16:
        assert Event(GATE).wait(timeout=TIMEOUT), "the test never opened the gate"
    return csgraph.dijkstra(matrix, directed=True, indices=sources), np.inf, {}


def kill_a_worker_mid_run(client, tmp_path, workers: int):
    """Run all sources with gated blocks, SIGKILL one worker while it holds a gated block, open the
    gate: the run completes, each block is committed exactly once, and the answer is the oracle's;
    the per-vertex sums of the blocks the dead worker had reported ran again, and count once."""
    from distributed import Event
    g = road(160, seed=5)
    out = tmp_path / "rows"
    thread, done = helpers.in_background(lambda: all_sources(
        g, client, block_size=16, block_solver=gated_dijkstra, bins=BINS, store=out, progress=False))
    wait_for(lambda: (out / "blocks").is_dir() and RowStore(out).committed() >= {0, 1},
             "the two ungated blocks")
    wait_for(lambda: sum(map(len, client.processing().values())) >= workers
             and all(client.processing().values()), "every worker busy on gated blocks")
    victim = sorted(client.run(os.getpid))[0]  # the worker the helper kills
    helpers.kill_a_worker_then_open(client, GATE, TIMEOUT)
    thread.join(TIMEOUT)
    assert not thread.is_alive() and "run" in done
    run = done["run"]
    helpers.assert_each_block_committed_once(run, out, 10)
    D = oracle.distances(g)
    assert np.array_equal(run.store.rows(), D)
    one, _ = reduce_in_blocks(g, g.n)
    assert np.allclose(run.reductions.per_vertex["harmonic"], one.per_vertex["harmonic"])
    assert run.reductions.summary() == one.summary()
    assert run.reductions.per_vertex.equals(one.per_vertex)  # the same bits: no block's sums lost or doubled
    # a reported block whose sums died with its worker ran again: by Dask (a dependency of that
    # worker's collect task) or by the run; its sums count once either way (the bits above)
    assert run.blocks_run_again <= run.block_workers.count(victim)
    wait_for(lambda: len(client.scheduler_info(n_workers=-1)["workers"]) == workers, "the nanny's restart")
    Event(GATE, client=client).clear()


def test_a_worker_killed_mid_run_loses_no_block_and_writes_none_twice(client, tmp_path):
    kill_a_worker_mid_run(client, tmp_path, workers=2)


def test_a_worker_killed_mid_run_with_the_sums_combined_as_a_tree_loses_nothing(client, tmp_path, monkeypatch):
    monkeypatch.setattr(sums_tree, "TREE_FROM_HOSTS", 1)  # one host stands in for several
    kill_a_worker_mid_run(client, tmp_path, workers=2)


def test_the_only_worker_killed_mid_run_loses_no_block(tmp_path):
    # the graph lived on that worker alone: it must come back (a task result, not scattered data)
    alone = cluster.local(cpu_workers=1)
    try:
        kill_a_worker_mid_run(alone, tmp_path, workers=1)
    finally:
        cluster.close(alone)


@pytest.mark.parametrize("tree", [False, True])
def test_a_worker_killed_with_two_waves_in_flight_loses_nothing_from_a_checkpointed_run(client, tmp_path, tree,
                                                                                       monkeypatch):
    """Waves of 4 blocks, the next submitted with the first: one worker dies holding a gated block
    (and maybe the first wave's sums); the run still gives the bits of an unbroken one, and its
    checkpoint counts every block once; also with each wave's sums combined as a tree."""
    from distributed import Event
    from apsp_kernels.distributed import checkpoint
    g = road(160, seed=5)
    whole = all_sources(g, client, block_size=16, bins=BINS, progress=False).reductions
    if tree:
        monkeypatch.setattr(sums_tree, "TREE_FROM_HOSTS", 1)  # one host stands in for several
    blocks = -(-g.n // 16)
    assert checkpoint.wave_size(blocks, 2) == 4 <= runner.LEAD_BLOCKS_PER_WORKER * 2  # both waves at once
    thread, done = helpers.in_background(lambda: all_sources(
        g, client, block_size=16, block_solver=gated_dijkstra, bins=BINS, checkpoint=tmp_path / "ck",
        progress=False))
    wait_for(lambda: sum(map(len, client.processing().values())) >= 2 and all(client.processing().values()),
             "every worker busy")
    helpers.kill_a_worker_then_open(client, GATE, TIMEOUT)
    thread.join(TIMEOUT)
    assert not thread.is_alive() and "run" in done
    run = done["run"]
    assert run.reductions.per_vertex.equals(whole.per_vertex) and run.reductions.summary() == whole.summary()
    assert checkpoint.totals_so_far(tmp_path / "ck")["blocks"] == blocks
    wait_for(lambda: len(client.scheduler_info(n_workers=-1)["workers"]) == 2, "the nanny's restart")
    Event(GATE, client=client).clear()


def test_estimate_is_labelled_and_leaves_nothing_behind(client, tmp_path):
    g = road(100)
    est = estimate(g, client, sample=20, block_size=8, store_dir=tmp_path / "rows")
    assert est["label"].startswith("estimate from 16 of 100 sources in 2 whole blocks")
    assert "band: 2 standard errors" in est["label"]
    assert est["seconds"] > 0 and est["bytes_on_disk"] > 0 and est["blocks"] == 2
    assert est["seconds"] == est["blocks_seconds"] + est["outside_blocks_seconds"]
    assert est["seconds_low"] <= est["seconds"] <= est["seconds_high"]
    assert est["warm_up_sources"] == 2  # one source per CPU worker, not a block each
    text = estimate_text(est)
    assert text.startswith("ESTIMATE (estimate from 16 of 100") and "between" in text and "about 0 s" not in text
    assert not list(tmp_path.iterdir())
    one = estimate(g, client, sample=8, block_size=8)
    assert one["seconds_high"] != one["seconds_high"] and "no band: one block" in one["label"]  # nan
    whole = estimate(road(40), client, sample=256, block_size=64)  # the sample is the graph
    assert whole["measured_all"] and whole["label"].startswith("measured from 40 of 40")
    assert estimate_text(whole).startswith("MEASURED") and " s" in estimate_text(whole)


def test_a_samples_blocks_are_spread_evenly_over_the_workers_for_every_source():
    from apsp_kernels.distributed.estimate import blocks_spread_evenly
    # worker a ran three blocks of 10 sources (it started first), b one: 4 s for 40 sources
    sample = runner.Run(reductions=None, store=None, seconds=3.5, block_solver="x", workers=2, blocks=4,
                        block_seconds=[1.0] * 4, block_workers=["a", "a", "a", "b"], block_sources=[10] * 4)
    assert blocks_spread_evenly(sample, 100) == pytest.approx(5.0)  # 0.1 s a source, 100 sources, 2 workers


def test_the_estimate_adds_the_time_outside_the_blocks_once_and_per_block_at_its_upper_end(monkeypatch):
    est_module = sys.modules["apsp_kernels.distributed.estimate"]  # the module, not the function of that name
    g = road(100)
    sample = runner.Run(reductions=None, store=None, seconds=3.0, block_solver="scipy:dijkstra", workers=2, blocks=4,
                        block_seconds=[1.0] * 4, block_workers=["a", "b", "a", "b"], block_sources=[8] * 4)
    monkeypatch.setattr(est_module, "all_sources", lambda *a, **kw: sample)
    client = types.SimpleNamespace(run=lambda f: {"a": {"on_gpu": False}, "b": {"on_gpu": False}})
    est = estimate(g, client, sample=32, block_size=8)
    # 1/8 s per source, 100 sources on 2 workers: 6.25 s in blocks; the sample's wall 3 s = 2 s of the busiest
    # worker's blocks + 1 s outside them, 0.25 s per block: 13 blocks of the full run, 3.25 s
    assert est["blocks_seconds"] == 6.25 and est["outside_blocks_seconds"] == 1.0
    assert (est["seconds_low"], est["seconds"], est["seconds_high"]) == (7.25, 7.25, 9.5)
    assert "the blocks 6.25 s, outside them 1 s" in est["label"] and "up to 3.25 s outside" in est["label"]


def test_the_warm_up_is_bounded():
    from apsp_kernels.distributed.estimate import warm_block_size
    assert warm_block_size(False, 1024, 264346) == 1
    assert warm_block_size(True, 1024, 264346) == 1015  # 2**28 distances at most
    assert warm_block_size(True, 256, 1000) == 256 and warm_block_size(True, 8, 10**9) == 1


def test_bulk_instances_are_split_and_verified(client):
    res = bulk_instances(client, 130, 40, verify_per_task=2, progress=False)
    frame = res["instances"]
    assert frame["instance"].tolist() == list(range(130))
    assert res["tasks"] == 2 and res["verified"] and frame["checked"].sum() == 4
    assert len(res["task_seconds"]) == len(res["kernel_ms"]) == 2
    assert all(0 < p["make_arcs"] <= s for p, s in zip(res["task_phases"], res["task_seconds"]))
    # an instance is the same whatever the split
    again = bulk_instances(client, 130, 40, instances_per_task=64, verify_per_task=0, progress=False)
    assert again["tasks"] == 3
    assert np.allclose(again["instances"]["max_distance"], frame["max_distance"])
    with pytest.raises(InputError, match="method"):
        bulk_instances(client, 4, 40, method="nope")
    with pytest.raises(InputError, match="m \\(instances\\)"):
        bulk_instances(client, 0, 40)


def test_the_bulk_warm_up_runs_one_share_of_the_task_size_on_every_worker(client):
    from distributed import get_task_stream
    with get_task_stream(client) as stream:
        res = bulk_instances(client, 200, 40, instances_per_task=128, verify_per_task=0, warm=True,
                             progress=False)
    workers = sorted(client.scheduler_info()["workers"])
    ran = sorted(stream.data, key=lambda t: t["startstops"][0]["start"])
    first = [t["worker"] for t in ran[:len(workers)]]
    assert sorted(first) == workers and all(t["key"].startswith("run_share") for t in ran)
    assert len(ran) == len(workers) + res["tasks"] and res["tasks"] == 2
    assert len(res["warm_up"]) == len(workers)
    assert all(w["seconds"] >= w["make_arcs"] > 0 for w in res["warm_up"])
    assert bulk_instances(client, 8, 40, progress=False)["warm_up"] == []


def test_the_estimate_samples_whole_blocks_of_the_run():
    from apsp_kernels.distributed.estimate import whole_blocks
    ids = np.arange(100, dtype=np.int32)
    picked = whole_blocks(ids, 20, 8, seed=3)
    assert len(picked) == 16
    starts = picked[::8]
    assert all(s % 8 == 0 for s in starts) and all(np.array_equal(picked[i:i + 8], np.arange(s, s + 8))
                                                   for i, s in zip(range(0, 16, 8), starts))
    assert np.array_equal(whole_blocks(ids, 20, 8, seed=3), picked)  # seeded
    assert len(whole_blocks(ids, 1, 64)) in (64, 36)  # at least one block, maybe the short last one



def test_a_workers_cached_graph_gets_the_hierarchy_sent_after_it():
    """share_graph sends a graph again once PHAST's hierarchy is on it; the worker's copy (same
    token) takes the hierarchy instead of contracting again."""
    import dataclasses
    from apsp_kernels.sssp_hierarchy.layout import HIERARCHY_KEY
    worker_graph.clear()
    g = generators.road_like(200, 500, seed=1)
    first, _ = worker_graph.on_device(g, "token", on_gpu=False)
    built = worker_graph.builds()
    again = dataclasses.replace(g)
    again.__dict__[HIERARCHY_KEY] = "the hierarchy"
    device, _ = worker_graph.on_device(again, "token", on_gpu=False)
    assert device is first and device.__dict__[HIERARCHY_KEY] == "the hierarchy"
    assert worker_graph.builds() == built
    worker_graph.clear()


def test_the_per_vertex_sums_are_the_same_whatever_order_the_blocks_finish_in():
    from itertools import permutations

    from apsp_kernels.distributed import fixed_sums
    edges, scale = np.array([0.0, 1.0, 2.0]), 40
    # float sums that rounding makes depend on their order: 1e16 + 1 + 1 != 1e16 + (1 + 1)
    per_vertex = [np.array([1e16, 0.1]), np.array([1.0, 0.2]), np.array([1.0, 0.3]), np.array([1.0, 0.4])]

    def partial(i):
        fixed = fixed_sums.sums(per_vertex[i][None, :], scale, axis=0)
        return {"eccentricity": np.array([1.0, 1.0]), "reach_out": np.array([2, 2]), "sum_out": np.array([1.0, 1.0]),
                "sum_in": fixed, "reach_in": np.array([1, 1]), "harmonic_in": fixed[::-1].copy(),
                "histogram": np.array([1, 1]), "pairs": 2, "scales": np.array([scale, scale])}

    def merged(order):
        acc = Accumulator(2, np.arange(8), edges)
        for i in order:
            acc.add(2 * i, partial(i))
        return acc.result()

    in_order = merged(range(4))
    assert in_order.per_vertex["closeness"].notna().all()
    assert all(merged(o).same_as(in_order) for o in permutations(range(4)))
    assert in_order.sum_in[0] == 1e16 + 4  # the exact 1e16 + 3, rounded once
    assert ((1e16 + 1.0) + 1.0) + 1.0 == 1e16  # float64 adding in this order
    with pytest.raises(RuntimeError, match="scales"):
        acc = Accumulator(2, np.arange(8), edges)
        acc.add(0, partial(0))
        acc.add(2, {**partial(1), "scales": np.array([scale, scale + 1])})


def _failing_block_solver(graph, sources, host_matrix=None):
    raise RuntimeError("a block solver that fails")


def test_a_failing_block_stops_the_run_with_its_error(client):
    with pytest.raises(RuntimeError, match="a block solver that fails"):
        all_sources(road(60), client, block_size=16, block_solver=_failing_block_solver, progress=False)


@pytest.mark.parametrize("ids, carried", [(np.arange(5, 9, dtype=np.int32), range(5, 9)),
                                          (np.array([7], dtype=np.int32), range(7, 8)),
                                          (np.array([3, 4, 6], dtype=np.int32), None),
                                          (np.array([4, 3, 2], dtype=np.int32), None),
                                          (np.array([2, 4, 3], dtype=np.int32), None)])
def test_a_block_of_consecutive_sources_travels_as_a_range_and_comes_back_the_same(ids, carried):
    sent = compact(ids)
    assert sent == carried if carried is not None else sent is ids
    back = expand(sent)
    assert back.dtype == np.int32 and np.array_equal(back, ids)


def timed_dijkstra(graph, sources, matrix):
    """SciPy's Dijkstra; its stats say which block it was (its first source) and when it began."""
    import time
    began = time.time()
    return csgraph.dijkstra(matrix, directed=True, indices=sources), np.inf, {"first": int(sources[0]), "began": began}


def test_a_client_that_relays_results_still_gets_each_block_s_straight_from_its_worker(client, monkeypatch):
    """A Client of the user's own, made with the scheduler relaying results (Dask's default), gets the
    same bits, each block result fetched straight from its worker."""
    import distributed
    g = road()
    whole = all_sources(g, client, block_size=16, bins=BINS, progress=False).reductions
    relaying = distributed.Client(client.cluster, direct_to_workers=False, set_as_default=False)
    asked, gather = [], distributed.Client.gather

    def recording(self, futures, *args, **kwargs):
        asked.append((self is relaying, kwargs.get("direct")))
        return gather(self, futures, *args, **kwargs)
    monkeypatch.setattr(distributed.Client, "gather", recording)
    try:
        run = all_sources(g, relaying, block_size=16, bins=BINS, progress=False)
    finally:
        relaying.close()
    assert run.reductions.same_as(whole) and not relaying.direct_to_workers
    assert asked.count((True, True)) == run.blocks == 10


def test_blocks_go_round_the_workers_in_order_and_each_worker_s_last_block_hands_its_sums_over(
        client, monkeypatch):
    """Block i runs on worker i mod 2, each worker's blocks in block order (a worker runs the last
    submitted of its queued tasks first unless told); every worker's sums came with its last block,
    none looked for afterwards; the bits of one block of every source."""
    from apsp_kernels.distributed import worker_sums
    g = road()
    asked_with = []
    fetch = worker_sums.fetch_collected

    def recording(c, futures):
        asked_with.append(sorted(futures))
        return fetch(c, futures)
    monkeypatch.setattr(worker_sums, "fetch_collected", recording)
    run = all_sources(g, client, block_size=16, block_solver=timed_dijkstra, bins=BINS, progress=False)
    addresses = sorted(cluster.workers(client))
    ran = sorted((s["began"], s["first"] // 16, worker) for s, worker in zip(run.stats, run.block_workers))
    assert len(ran) == run.blocks == 10
    assert all(worker == addresses[block % 2] for _, block, worker in ran)
    for address in addresses:
        assert [block for _, block, worker in ran if worker == address] == list(range(addresses.index(address),
                                                                                       10, 2))
    assert asked_with == [] and run.blocks_run_again == 0 and client.direct_to_workers
    assert sorted(s["first"] // 16 for s in run.stats if "hand_over_s" in s) == [8, 9]
    one, _ = reduce_in_blocks(g, g.n)
    assert run.reductions.per_vertex.equals(one.per_vertex) and run.reductions.summary() == one.summary()


class _EndedBlock:
    """A finished block's future whose fetch runs ``fetch()`` (a stand-in for a Dask future)."""

    def __init__(self, block: int, fetch):
        self.client, self.block, self._fetch, self.released = self, block, fetch, False

    def gather(self, future, direct=None):
        assert future is self and direct is True
        return {"block": self.block, **self._fetch()}

    def add_done_callback(self, callback):
        threading.Thread(target=callback, args=(self,)).start()

    def release(self):
        self.released = True


def test_the_last_results_of_several_workers_are_fetched_side_by_side():
    """Two blocks that end together are fetched at once: each fetch waits for the other to start."""
    both = threading.Barrier(2, timeout=10)
    futures = [_EndedBlock(b, lambda: {"waited": both.wait() >= 0}) for b in range(2)]
    bar = runner._Bar(2, 0, False, "")
    got = list(runner._progress(futures, {0: 5, 1: 5}, bar, fetchers=2))
    assert sorted(r["block"] for r in got) == [0, 1] and all(r["waited"] for r in got)
    assert all(f.released for f in futures) and bar.sources == 10
    with pytest.raises(threading.BrokenBarrierError):  # one fetch at a time: the first waits in vain
        one_at_a_time = threading.Barrier(2, timeout=0.5)
        list(runner._progress([_EndedBlock(b, lambda: {"waited": one_at_a_time.wait()}) for b in range(2)],
                              {0: 5, 1: 5}, runner._Bar(2, 0, False, ""), fetchers=1))


def test_a_block_that_failed_raises_its_error_where_the_results_are_taken():
    def failing():
        raise ZeroDivisionError("block 1 failed")
    futures = [_EndedBlock(0, dict), _EndedBlock(1, failing)]
    with pytest.raises(ZeroDivisionError, match="block 1 failed"):
        list(runner._progress(futures, {0: 5, 1: 5}, runner._Bar(2, 0, False, ""), fetchers=2))
