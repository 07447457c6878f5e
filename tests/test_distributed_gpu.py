"""apsp_kernels.distributed on dask-cuda workers (one per GPU of this host): rows and reductions
against the oracle, a worker killed mid-run, bulk instances."""
import os
import sys

import cloudpickle
import numpy as np
import pytest

from apsp_kernels import generators, oracle
from apsp_kernels.distributed import RowStore, all_sources, block_solvers, bulk_instances, cluster
from apsp_kernels.distributed.blocks import split
from apsp_kernels.distributed.fixed_sums import scales_for
from apsp_kernels.distributed.reductions import Accumulator, block_partial
from apsp_kernels.distributed.reductions import default_bins as reductions_default_bins
from apsp_kernels.gpu import visible_gpus
from apsp_kernels.sssp_hierarchy.layout import CACHE_ENV
import helpers

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(bool(os.environ.get("APSP_TEST_SPREAD_GPUS")),
                                 reason="a dask-cuda cluster over all of the host's GPUs: run this file without "
                                        "APSP_TEST_SPREAD_GPUS, which gives each test worker one GPU")]
cloudpickle.register_pickle_by_value(sys.modules[__name__])
TIMEOUT = 120
BINS = np.linspace(0, 5000, 21)
GATE = "apsp-gpu-kill-test"


def wait_for(condition, what, timeout=TIMEOUT):
    helpers.wait_for(condition, what, timeout, poll=0.1)


@pytest.fixture(scope="module")
def client():
    c = cluster.local(gpus=len(visible_gpus()))
    yield c
    cluster.close(c)


def graph(n=1500, seed=1):
    return generators.k_regular_digraph(n, 4, seed=seed, w_low=1, w_high=101, dtype=np.int32,
                                        name=f"reg{n}-{seed}")


def one_process(g, bins=BINS):
    D = oracle.distances(g)
    ids = np.arange(g.n, dtype=np.int32)
    acc = Accumulator(g.n, ids, bins)
    acc.add(0, block_partial(D, np.inf, ids, bins, scales_for(g)))
    return D, acc.result()


@pytest.mark.parametrize("key", [None, block_solvers.FALLBACK_GPU])
def test_rows_and_reductions_equal_the_oracle(client, tmp_path, key):
    g = graph()
    run = all_sources(g, client, block_size=256, block_solver=key, bins=BINS,
                      store=tmp_path / "rows", progress=False)
    D, want = one_process(g)
    assert np.array_equal(run.store.rows(), D)
    assert run.reductions.same_as(want)  # the host's sums of the oracle's rows, bit for bit


def gated(graph, sources, matrix):
    """The default GPU block solver; blocks past the first two wait for the test's gate."""
    from distributed import Event
    if sources[0] >= 2 * 128:
        assert Event(GATE).wait(timeout=TIMEOUT), "the test never opened the gate"
    return block_solvers.solve(block_solvers.default_key(True), graph, sources)


def test_a_dask_cuda_worker_killed_mid_run_loses_no_block(client, tmp_path):
    g = graph(1280, seed=2)
    out = tmp_path / "rows"
    thread, done = helpers.in_background(lambda: all_sources(
        g, client, block_size=128, block_solver=gated, bins=BINS, store=out, progress=False))
    wait_for(lambda: (out / "blocks").is_dir() and RowStore(out).committed() >= {0, 1}, "two blocks")
    wait_for(lambda: all(client.processing().values()), "every worker busy on a gated block")
    workers = helpers.kill_a_worker_then_open(client, GATE, TIMEOUT)
    thread.join(TIMEOUT)
    assert not thread.is_alive() and "run" in done
    run = done["run"]
    helpers.assert_each_block_committed_once(run, out, len(split(g.n, 128)))
    D, want = one_process(g)
    assert np.array_equal(run.store.rows(), D)
    assert run.reductions.summary() == want.summary()
    wait_for(lambda: len(client.scheduler_info(n_workers=-1)["workers"]) == workers, "the restart")


def test_bulk_instances_on_the_gpus(client):
    import cupy
    client.wait_for_workers(cupy.cuda.runtime.getDeviceCount(), timeout=TIMEOUT)
    res = bulk_instances(client, 256, 128, verify_per_task=2, warm=True, progress=False)
    assert res["on_gpu"] and res["verified"]
    steps = {"make_arcs", "dense", "setup", "reset", "kernel", "summaries", "check"}
    assert all(steps <= set(p) and p["device_free_before"] > 0 for p in res["task_phases"] + res["warm_up"])
    assert res["instances"]["instance"].tolist() == list(range(256))


def test_road_graphs_default_to_batched_phast_with_the_same_reductions(client, tmp_path, monkeypatch):
    monkeypatch.delenv(CACHE_ENV, raising=False)  # contracted here, not read from a cache on disk
    g = generators.road_like(6000, 14000, seed=4)
    assert block_solvers.default_key(True, g) == block_solvers.PHAST
    ours = all_sources(g, client, block_size=512, bins=BINS * 10, store=tmp_path / "rows", progress=False)
    assert ours.block_solver == block_solvers.PHAST and ours.preprocessing_s > 0
    today = all_sources(g, client, block_size=512, block_solver=block_solvers.MULTI_SOURCE, bins=BINS * 10,
                        progress=False)
    assert np.array_equal(ours.store.rows(), oracle.distances(g))
    assert ours.reductions.same_as(today.reductions)  # harmonic too: fixed point, any finishing order
    assert all(s.get("preprocessing_s") == 0 for s in ours.stats)  # contracted once, on the client


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_the_device_histogram_counts_as_the_compacted_pairs(dtype):
    import cupy as cp
    from apsp_kernels.distributed.reductions import histogram_pairs
    rng = np.random.default_rng(1)
    k, n = 300, 2000
    inf = 2 ** 30 - 1 if dtype == np.int32 else np.inf
    rows = rng.integers(0, 120, size=(k, n)).astype(dtype)
    rows[rng.random((k, n)) < 0.1] = inf
    edges = np.array([5.0, 10.0, 20.0, 20.5, 50.0, 100.0])  # values below, on every edge, above the last
    src = rng.integers(0, n, size=k)
    src[1] = src[0]
    host_counts, host_pairs = histogram_pairs(rows, inf, src, edges)
    counts, pairs = histogram_pairs(cp.asarray(rows), inf, cp.asarray(src), edges)
    np.testing.assert_array_equal(counts.get(), host_counts)
    assert int(pairs.get()) == int(host_pairs) and counts.dtype == cp.int64
    assert host_counts.sum() < host_pairs  # some pairs fall outside the edges
    want, _ = np.histogram(np.where(rows < inf, rows, 0).astype(np.float64)[
        (rows < inf) & (np.arange(n)[None, :] != src[:, None])], bins=edges)
    np.testing.assert_array_equal(host_counts, want)


def _block_partial_before_issue_30(dist, inf, sources, edges):
    """block_partial as it was: the pairs compacted, cupy.histogram, where/astype/divide in steps."""
    import cupy as xp
    k, n = dist.shape
    reach = dist < inf
    d = xp.where(reach, dist, 0).astype(xp.float64)
    src = xp.asarray(np.asarray(sources, dtype=np.int64))
    off_diagonal = xp.ones((k, n), dtype=bool)
    off_diagonal[xp.arange(k), src] = False
    pairs = d[reach & off_diagonal]
    counts, _ = xp.histogram(pairs, bins=xp.asarray(edges))
    inverse = xp.where(d > 0, 1.0 / xp.where(d > 0, d, 1.0), 0.0)
    out = {"eccentricity": d.max(axis=1), "reach_out": reach.sum(axis=1, dtype=xp.int64), "sum_out": d.sum(axis=1),
           "sum_in": d.sum(axis=0), "reach_in": reach.sum(axis=0, dtype=xp.int64),
           "harmonic_in": inverse.sum(axis=0), "histogram": counts.astype(xp.int64),
           "pairs": xp.asarray(pairs.size, dtype=xp.int64)}
    return {key: value.get() for key, value in out.items()}


FIXED_POINT = ("sum_out", "sum_in", "harmonic_in")  # float64 sums before; fixed point (issue 45) now


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_block_partial_is_what_it_was_and_the_hosts_bit_for_bit(dtype):
    """Counts, maxima and histogram as before issue 30, bit for bit; the sums within 1e-13 of the
    old float64 ones (exact for int32); every key equal to the host path's and the same every run."""
    import cupy as cp
    from apsp_kernels.distributed import fixed_sums
    g = generators.road_like(5000, 12000, seed=6, dtype=np.int32 if dtype == np.int32 else np.float32)
    scales = scales_for(g)
    ids = np.arange(700, 1212)
    rows = oracle.distances(g, ids)
    inf = g.inf if dtype == np.int32 else np.inf
    rows = cp.asarray(np.where(np.isinf(rows), inf, rows * (1 if dtype == np.int32 else 1.0001)).astype(dtype))
    rows[3, :50] = inf  # unreachable entries too
    edges = reductions_default_bins(g)
    now = block_partial(rows, inf, ids, edges, scales)
    before = _block_partial_before_issue_30(rows, inf, ids, edges)
    host = block_partial(rows.get(), inf, ids, edges, scales)
    assert set(now) == set(host) == set(before) | {"scales"}
    for key in now:
        np.testing.assert_array_equal(now[key], host[key], err_msg=key)
        assert now[key].dtype == host[key].dtype, key
        if key in FIXED_POINT:
            value = now[key] if key == "sum_out" else fixed_sums.to_float(
                now[key], scales.inverse if key == "harmonic_in" else scales.distance)
            np.testing.assert_allclose(value, before[key], rtol=0 if dtype == np.int32 and key != "harmonic_in"
                                       else 1e-13, atol=0, err_msg=key)
        elif key != "scales":
            np.testing.assert_array_equal(now[key], before[key], err_msg=key)
    again = block_partial(rows, inf, ids, edges, scales)
    for key in now:
        np.testing.assert_array_equal(again[key], now[key], err_msg=f"{key} changed between runs")


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_one_and_two_gpus_give_the_same_bits(client, dtype, monkeypatch):
    """Every reduction the same on all of this host's GPUs, on one GPU and in this process, for two
    block sizes (issue 45 item 2), the other count's sums also combined as a tree (as on several
    hosts); on a host of one GPU, the other count is three workers sharing it (the blocks then fall
    to workers as on three GPUs)."""
    from apsp_kernels.distributed import sums_tree
    import cupy as cp
    g = generators.road_like(6000, 14000, seed=4, dtype=dtype)
    bins = BINS * 10
    D, want = one_process(g, bins)
    runs = [all_sources(g, client, block_size=size, bins=bins, progress=False) for size in (512, 1408)]
    assert all(run.reductions.same_as(want) for run in runs)
    rows = cp.asarray(np.where(np.isinf(D), g.inf, D).astype(dtype))
    acc = Accumulator(g.n, np.arange(g.n, dtype=np.int32), bins)
    for lo in range(0, g.n, 1000):  # on this process's GPU, in blocks of 1000
        acc.add(lo, block_partial(rows[lo:lo + 1000], g.inf, np.arange(lo, min(lo + 1000, g.n)), bins, scales_for(g)))
    assert acc.result().same_as(want)
    visible = visible_gpus()
    other = cluster.local(gpus=1) if len(visible) > 1 else helpers.workers_sharing_a_gpu(visible[0], 3)
    try:
        assert len(cluster.workers(other)) == (1 if len(visible) > 1 else 3)
        run = all_sources(g, other, block_size=768, bins=bins, progress=False)
        assert run.block_solver not in block_solvers.CPU_KEYS  # the blocks ran on the GPU
        assert run.reductions.same_as(want)
        monkeypatch.setattr(sums_tree, "TREE_FROM_HOSTS", 1)  # one host stands in for several
        assert all_sources(g, other, block_size=768, bins=bins, progress=False).reductions.same_as(want)
    finally:
        cluster.close(other)


def test_blocks_swept_in_several_launches_on_the_cluster_give_the_same_bits(client, monkeypatch):
    """Where one sweep of a block's sources does not fit (here: made to), a worker sweeps the block in
    launches of what fits (runner.sweep_columns) and reduces each in place."""
    from apsp_kernels.distributed import runner
    g = generators.road_like(6000, 14000, seed=4)
    bins = BINS * 10
    _, want = one_process(g, bins)
    monkeypatch.setattr(runner, "fitting_sources", lambda *args, **kwargs: 384)
    run = all_sources(g, client, block_size=1408, bins=bins, progress=False)
    assert run.reductions.same_as(want)
    assert all(s["sweeps"] == -(-size // 384) for s, size in zip(run.stats, run.block_sources))
    assert max(s["sweeps"] for s in run.stats) >= 3


def test_centrality_on_one_gpu_in_process_and_on_the_cluster_give_the_same_bits(client):
    from apsp_kernels import centrality as C
    A = generators.road_like(6000, 14000, seed=4, dtype=np.float32).to_scipy()
    C.EVERY_SOURCE.clear()
    here = C.harmonic_centrality(A), C.closeness_centrality(A)
    there = C.harmonic_centrality(A, client=client), C.closeness_centrality(A, client=client)
    assert here[0].tobytes() == there[0].tobytes() and here[1].tobytes() == there[1].tobytes()
