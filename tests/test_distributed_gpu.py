"""apsp_kernels.distributed on dask-cuda workers (one per GPU of this host): rows and reductions
against the oracle, a worker killed mid-run, bulk instances."""
import sys

import cloudpickle
import numpy as np
import pytest

from apsp_kernels import generators, oracle
from apsp_kernels.distributed import RowStore, all_sources, block_solvers, bulk_instances, cluster
from apsp_kernels.distributed.blocks import split
from apsp_kernels.distributed.reductions import Accumulator, block_partial
from apsp_kernels.multi_gpu import visible_gpus
import helpers

pytestmark = pytest.mark.gpu
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


def one_process(g):
    D = oracle.distances(g)
    acc = Accumulator(g.n, np.arange(g.n), BINS)
    acc.add(0, block_partial(D, np.inf, np.arange(g.n), BINS))
    return D, acc.result()


@pytest.mark.parametrize("key", [None, block_solvers.FALLBACK_GPU])
def test_rows_and_reductions_equal_the_oracle(client, tmp_path, key):
    g = graph()
    run = all_sources(g, client, block_size=256, block_solver=key, bins=BINS,
                      store=tmp_path / "rows", progress=False)
    D, want = one_process(g)
    assert np.array_equal(run.store.rows(), D)
    assert run.reductions.summary() == want.summary()
    assert np.allclose(run.reductions.per_vertex["closeness"], want.per_vertex["closeness"])
    assert np.allclose(run.reductions.per_vertex["harmonic"], want.per_vertex["harmonic"])


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


def test_road_graphs_default_to_batched_phast_with_the_same_reductions(client, tmp_path):
    g = generators.road_like(6000, 14000, seed=4)
    assert block_solvers.default_key(True, g) == block_solvers.PHAST
    ours = all_sources(g, client, block_size=512, bins=BINS * 10, store=tmp_path / "rows", progress=False)
    assert ours.block_solver == block_solvers.PHAST and ours.preprocessing_s > 0
    today = all_sources(g, client, block_size=512, block_solver=block_solvers.MULTI_SOURCE, bins=BINS * 10,
                        progress=False)
    assert np.array_equal(ours.store.rows(), oracle.distances(g))
    assert ours.reductions.summary() == today.reductions.summary()
    assert ours.reductions.per_source.equals(today.reductions.per_source)
    assert ours.reductions.histogram.equals(today.reductions.histogram)
    a, b = ours.reductions.per_vertex, today.reductions.per_vertex
    assert a[["vertex", "reach_in", "closeness"]].equals(b[["vertex", "reach_in", "closeness"]])
    # harmonic adds float blocks in the order they finish: equal up to that order
    np.testing.assert_allclose(a["harmonic"], b["harmonic"], rtol=1e-13)
    assert all(s.get("preprocessing_s") == 0 for s in ours.stats)  # contracted once, on the client
