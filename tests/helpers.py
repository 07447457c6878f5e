"""Helpers shared by the test modules: run a registered method through its lifecycle, check it
against the oracle, random dense test graphs, wait on a condition with a deadline (no racing
sleeps), kill a Dask worker in the middle of a run and check that no block was lost, several
Dask workers on one GPU."""
import contextlib
import os
import signal
import threading
import time

import numpy as np

from apsp_kernels import oracle, registry
from apsp_kernels.inf import to_public
from apsp_kernels.graph import Graph
from apsp_kernels.inf import from_public


def solve(paper: str, name: str, graph, **params):
    """The registered method's solver after setup, reset and compute."""
    solver = registry.get(paper, name).make(graph, **params)
    solver.solve_once()
    return solver


def assert_exact(solver, graph):
    res = oracle.verify(solver.solution(), graph)
    assert res["verified"], (graph.name, res)


def wait_for(condition, what: str, timeout: float, poll: float = 0.05):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(poll)


def dense_random_graph(n, seed, dtype=np.int32, density=0.3, isolated=1, float_offset=0.5,
                       name="gpu-test"):
    """Random digraph on a dense matrix: integer weights 1..10 (float32: scaled by a uniform draw
    plus ``float_offset``), arcs kept with probability ``density``, ``isolated`` unreachable
    vertices at the end."""
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 11, (n, n)).astype(np.float64)
    if dtype == np.float32:
        w = w * rng.random((n, n)) + float_offset
    w[rng.random((n, n)) > density] = np.inf
    if isolated and n > 1:
        w[-isolated:, :] = np.inf
        w[:, -isolated:] = np.inf
    return Graph.from_dense(from_public(w, dtype), dtype=dtype, name=f"{name}-n{n}-s{seed}")


def workers_sharing_a_gpu(gpu: str, count: int):
    """A client on ``count`` Dask worker processes that all use GPU ``gpu`` (distributed's
    LocalCluster: dask-cuda gives a GPU one worker), so that a host of one GPU runs the blocks
    spread over several workers; ``cluster.close`` stops it."""
    from apsp_kernels.distributed import cluster
    return cluster.local(cpu_workers=count, env={"APSP_DISABLE_GPU": "", "CUDA_VISIBLE_DEVICES": gpu})


def in_background(run) -> tuple[threading.Thread, dict]:
    """``run()`` in a started thread; its result lands in ``done["run"]``."""
    done = {}
    thread = threading.Thread(target=lambda: done.update(run=run()))
    thread.start()
    return thread, done


def kill_a_worker_then_open(client, gate: str, timeout: float) -> int:
    """SIGKILL one worker of ``client`` (the test holds its task at the Dask Event ``gate``), wait
    until the scheduler has seen it die, then open the gate. Returns how many workers there were."""
    from distributed import Event
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    os.kill(pids[victim], signal.SIGKILL)
    wait_for(lambda: victim not in client.scheduler_info(n_workers=-1)["workers"],
             "the death to be seen", timeout, poll=0.1)
    Event(gate, client=client).set()
    return len(pids)


def assert_each_block_committed_once(run, store_dir, blocks: int) -> None:
    """After a worker was killed: every block committed exactly once and none lost. A task whose
    result died with its worker runs again and finds its block committed ("already committed",
    its reductions read back), so the statuses add up to the blocks but need not all be "written"."""
    assert set(run.statuses) <= {"written", "already committed"}, run.statuses
    assert sum(run.statuses.values()) == blocks, run.statuses
    assert len(list((store_dir / "blocks").glob("*.json"))) == blocks  # one exclusive marker each
    assert not list((store_dir / "blocks").glob(".*.tmp"))


def assert_rows_match_oracle(g, rows, sources, rtol=1e-5):
    """Rows in the kernels' representation (host arrays, INF or inf for unreachable) of
    ``sources`` on ``g``: the oracle's distances, exactly for int32 weights, else within ``rtol``."""
    want = oracle.distances(g, np.asarray(sources))
    got = to_public(np.asarray(rows), g.dtype)
    assert np.array_equal(np.isinf(got), np.isinf(want)), g.name
    if g.dtype == np.int32:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol)


class RecordingLock:
    """A stand-in for ``host_cpu.exclusive`` (patch it in with ``lock.exclusive``) that tells
    whether it is held now (``lock.held``)."""

    def __init__(self):
        self.depth = 0

    @property
    def held(self) -> bool:
        return self.depth > 0

    @contextlib.contextmanager
    def exclusive(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1


def tied_road(n: int, m: int, seed: int, keep: float = 1.0):
    """A road-like graph (SciPy CSR) whose weights are 1..3, so that equal-length paths are everywhere;
    ``keep`` < 1 keeps that share of its arcs (one-way streets)."""
    import scipy.sparse as sp

    from apsp_kernels import generators
    A = generators.road_like(n, m, seed=seed).to_scipy().tocoo()
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 4, A.nnz).astype(np.float64)
    kept = np.ones(A.nnz, bool) if keep >= 1 else rng.random(A.nnz) < keep
    return sp.csr_array((w[kept], (A.row[kept], A.col[kept])), shape=A.shape)

