"""Takafuji et al. kernels on the GPU: multi (A/B/C per round), single (persistent), bulk and
paths, against the oracle and bit for bit against the numpy blocked FW; deadlock tests of the
single kernel over B and n.

Hang guard: pytest-timeout is not a dependency. The single kernel has an in-kernel watchdog
(``spin_limit`` clock cycles per wait, set to about 1 s here): a wait that never ends stops
every block and ``solution()`` raises SingleKernelHang, so a protocol bug fails the test
instead of hanging it (test_watchdog_turns_a_hang_into_an_error forces one).
"""
import numpy as np
import pytest

from apsp_kernels import Graph, gpu, oracle, registry, timing
from apsp_kernels.blocked_fw import task_schedule as ts
from apsp_kernels.blocked_fw.bulk import BulkBlockedFW, verify_instances
from apsp_kernels.blocked_fw.persistent import BlockedFWSingle, SingleKernelHang, co_resident_blocks
from apsp_kernels.blocked_fw.round_kernels import THREADS, BlockedFWMulti
from apsp_kernels.blocked_fw.via_paths import path_weight, reconstruct_path
from apsp_kernels.generators import (dense_from_arcs, k_regular_arcs, k_regular_digraph, random_digraph,
                                     road_like)

pytestmark = pytest.mark.gpu
WATCHDOG = 2**31  # clock cycles, about 1 s
SIZES = [1, 2, 3, 31, 33, 64, 100, 257]


def sparse_random(n, m, seed, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return Graph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m), 10 * rng.random(m),
                            dtype=dtype, name=f"sparse-{n}")


def padded_dense(g):
    P = ts.padded_size(g.n)
    d = np.full((P, P), np.inf, dtype=np.float32)
    d[: g.n, : g.n] = g.dense().astype(np.float32)
    np.fill_diagonal(d, 0)
    return d


def make(kind, g, **kw):
    if kind == "multi":
        return BlockedFWMulti(g, **kw)
    return BlockedFWSingle(g, spin_limit=WATCHDOG, **kw)


def solve(solver):
    solver.setup()
    solver.d.fill(-7)  # poison: reset + compute must rewrite everything
    solver.reset()
    solver.compute()
    return solver.solution()


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("kind", ["multi", "single"])
def test_kernels_match_oracle_and_numpy_bitwise(kind, threads):
    for n in SIZES:
        g = sparse_random(n, 3 * n, seed=n)  # unreachable pairs included
        sol = solve(make(kind, g, threads=threads))
        result = oracle.verify(sol, g)
        assert result["verified"], (n, result)
        want = ts.blocked_fw_numpy(padded_dense(g))
        got = sol.dist.get()
        assert np.array_equal(got[:n, :n], want[:n, :n]), f"n={n}: differs from the numpy blocked FW"


@pytest.mark.parametrize("kind", ["multi", "single"])
def test_realistic_and_integer_graphs(kind):
    for g in (k_regular_digraph(500, 4, seed=3), road_like(1000, 2600, seed=1),
              random_digraph(300, 1500, seed=2)):  # the last two have int32 weights
        sol = solve(make(kind, g, threads=256))
        assert oracle.verify(sol, g)["verified"], g


@pytest.mark.parametrize("kind", ["multi", "single"])
@pytest.mark.parametrize("threads", [64, 256, 1024])
def test_paths_give_predecessors_and_paths(kind, threads):
    rng = np.random.default_rng(1)
    for n in (3, 33, 130):
        g = sparse_random(n, 4 * n, seed=10 + n)
        s = make(kind, g, threads=threads, paths=True)
        sol = solve(s)
        result = oracle.verify(sol, g)
        assert result["verified"] and "predecessors" in result["verify_scope"], result
        via, dist = s.via.get(), sol.dist.get()
        for i, j in rng.integers(0, n, size=(30, 2)):
            path = reconstruct_path(via, i, j, dist)
            if np.isfinite(dist[i, j]) and i != j:
                assert path[0] == i and path[-1] == j and max(path) < n
                assert abs(path_weight(g, path) - dist[i, j]) <= 1e-5 * max(1.0, dist[i, j])


@pytest.mark.parametrize("n", [1, 31, 33, 64, 100, 257])
def test_single_never_hangs_for_any_number_of_blocks(n):
    g = k_regular_digraph(n, 4, seed=n) if n > 4 else sparse_random(n, 2 * n, seed=n)
    full = co_resident_blocks(256)
    for blocks in (1, 2, 7, 132, 1000, 4 * full):
        sol = solve(BlockedFWSingle(g, threads=256, blocks=blocks, spin_limit=WATCHDOG))
        assert oracle.verify(sol, g)["verified"], (n, blocks)


@pytest.mark.parametrize("threads", [64, 1024])
def test_single_oversubscribed_other_block_sizes(threads):
    g = k_regular_digraph(257, 4, seed=7)
    full = co_resident_blocks(threads)
    for blocks in (3, full, 4 * full):
        sol = solve(BlockedFWSingle(g, threads=threads, blocks=blocks, spin_limit=WATCHDOG))
        assert oracle.verify(sol, g)["verified"], (threads, blocks)


def test_watchdog_turns_a_hang_into_an_error():
    g = k_regular_digraph(100, 4, seed=1)
    s = BlockedFWSingle(g, threads=256, blocks=8, spin_limit=10**6)
    s.setup()
    s.reset()
    s.run.counter.fill(s.N * s.N)  # skip round 0: round-1 tasks wait for flags that never come
    s.compute()
    with pytest.raises(SingleKernelHang, match="hung"):
        s.solution()
    sol = solve(BlockedFWSingle(g, threads=256, blocks=8, spin_limit=WATCHDOG))  # the GPU is fine
    assert oracle.verify(sol, g)["verified"]


@pytest.mark.parametrize("kind", ["multi", "single"])
@pytest.mark.parametrize("m,n,threads", [(1, 33, 256), (3, 64, 128), (8, 100, 512), (5, 257, 64)])
def test_bulk_matches_oracle_per_instance(kind, m, n, threads):
    cp = gpu.cupy()
    targets, weights = k_regular_arcs(m, n, 4, seed=m + n)
    P = ts.padded_size(n)
    batch = dense_from_arcs(cp.asarray(targets), cp.asarray(weights), padded_n=P, xp=cp)
    b = BulkBlockedFW(batch, kind=kind, n=n, threads=threads, spin_limit=WATCHDOG)
    b.setup()
    b.reset()
    b.compute()
    result = verify_instances(b, np.arange(m))
    assert result["verified"], result
    want = ts.blocked_fw_numpy(batch.get())
    assert np.array_equal(b.distances().get(), want)


@pytest.mark.parametrize("kind", ["multi", "single"])
def test_bulk_paths_and_blocks(kind):
    cp = gpu.cupy()
    targets, weights = k_regular_arcs(6, 70, 4, seed=5)
    batch = dense_from_arcs(cp.asarray(targets), cp.asarray(weights), padded_n=96, xp=cp)
    for blocks in ((1, 5, 3000) if kind == "single" else (None,)):
        b = BulkBlockedFW(batch, kind=kind, n=70, threads=256, blocks=blocks, paths=True,
                          spin_limit=WATCHDOG)
        b.setup()
        b.reset()
        b.compute()
        result = verify_instances(b, np.arange(6))
        assert result["verified"] and "predecessors" in result["verify_scope"], (blocks, result)


@pytest.mark.parametrize("name", ["multi", "single", "multi_paths", "single_paths", "bulk_multi",
                                  "bulk_single"])
def test_registered_methods_through_timing_run(name):
    g = k_regular_digraph(200, 4, seed=9)
    rec = timing.run(registry.get("takafuji", name), g, experiment="t", repeats=2,
                     params={"threads": 128})
    assert rec.verified and not rec.skipped, rec
    assert rec.stat("launches") in (1, 3 * 7)


def test_experiment_drivers_on_the_gpu():
    from apsp_kernels.experiments import takafuji as E
    cfg = E.config("smoke")
    recs = E.table1(cfg)
    assert all(r.verified for r in recs), [r.verify_scope for r in recs if not r.verified]
    summary = E.table1_summary(E.table1_long(recs))
    assert set(summary.n) == {r["n"] for r in cfg["table1"]}
    t2 = E.table2(cfg)
    assert all(r.verified for r in t2), [(r.method, r.params, r.skipped) for r in t2 if not r.verified]
    assert not E.table2_speedups(E.table2_long(t2)).empty
