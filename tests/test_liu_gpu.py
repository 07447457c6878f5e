"""liu (GPU): the (min,+) SpMV SSSP against the oracle, predecessors included."""
import numpy as np
import pytest

from apsp_kernels import generators, oracle, registry, timing
from apsp_kernels.graph import Graph
from apsp_kernels.sssp_iterative import spmv

pytestmark = pytest.mark.gpu


def random_graph(n, m, seed, w_low=0, w_high=50, undirected=False, dtype=np.int32):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(w_low, w_high + 1, m) if dtype == np.int32 else rng.uniform(w_low, w_high, m)
    return Graph.from_edges(n, src, dst, w, dtype=dtype, undirected=undirected, name=f"rand{n}_{m}_{seed}")


def run_spmv(g, source, **params):
    s = spmv.SpmvSSSP(g, sources=[source], **params)
    s.solve_once()
    return s


def check(g, source, **params):
    s = run_spmv(g, source, **params)
    result = oracle.verify(s.solution(), g)
    assert result["verified"], (g, source, params, result, s.stats)
    assert "predecessors" in result["verify_scope"]
    return s


@pytest.mark.parametrize("n,m", [(1, 0), (2, 1), (3, 2), (3, 0), (5, 7), (33, 40), (257, 1500), (1000, 2500)])
@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_small_and_awkward(n, m, dtype):
    g = random_graph(n, m, seed=n * 7 + m, dtype=dtype)  # sparse: many unreachable vertices
    for source in sorted({0, n - 1}):
        check(g, source)


@pytest.mark.parametrize("group", spmv.GROUPS)
@pytest.mark.parametrize("check_every", [1, 3, 8])
def test_every_group_size(group, check_every):
    g = random_graph(1537, 12000, seed=group + check_every)
    s = check(g, 5, group=group, check_every=check_every, block=128 if group < 32 else 64)
    assert s.stats["group"] == group and s.stats["sweeps"] >= 1
    assert s.stats["launches"] >= s.stats["sweeps"]


def test_zero_weights_and_float_ties():
    g = random_graph(800, 6000, seed=9, w_low=0, w_high=1)
    check(g, 3)
    gf = random_graph(800, 6000, seed=9, w_low=0, w_high=1, dtype=np.float32)
    check(gf, 3)


def test_source_without_out_arcs():
    g = Graph.from_edges(4, [1, 2], [2, 3], [5, 6])
    s = check(g, 0)
    d = s.solution().rows()[0]
    assert d[0] == 0 and np.isinf(d[1:]).all()
    assert (s.solution().pred_rows()[0] == -1).all()


def test_repeat_after_reset_and_no_parents():
    g = generators.liu_min_degree(3000, 16, seed=2)
    s = run_spmv(g, 17)
    first = s.solution().rows()
    s.reset()
    s.compute()
    assert np.array_equal(first, s.solution().rows())
    s2 = run_spmv(g, 17, parents=False)
    assert s2.solution().pred is None
    assert oracle.verify(s2.solution(), g)["verified"]


@pytest.mark.parametrize("n,deg", [(1250, 16), (5000, 128), (5000, 512)])
def test_liu_graphs(n, deg):
    g = generators.liu_min_degree(n, deg, seed=0)
    s = check(g, g.meta["sssp_source"])
    assert s.stats["sweeps"] < 64  # random graphs: short hop diameter


def test_road_like_many_sweeps():
    g = generators.road_like(40000, 100000, seed=1)
    s = check(g, 123, check_every=16)
    assert s.stats["sweeps"] > 16


def test_coo_to_csc_on_device():
    import cupy as cp
    g = random_graph(2000, 20000, seed=11)
    colptr, rows, w = spmv.coo_to_csc(cp, g.n, cp.asarray(g.sources_of_arcs), cp.asarray(g.indices),
                                      cp.asarray(g.weights))
    r = g.reverse
    assert np.array_equal(colptr.get(), r.indptr)
    assert np.array_equal(rows.get(), r.indices) and np.array_equal(w.get(), r.weights)


def test_timing_records_both_scopes():
    g = generators.liu_min_degree(2500, 32, seed=0)
    method = registry.get("liu", "sssp_spmv")
    src = [g.meta["sssp_source"]]
    alg = timing.run(method, g, experiment="test", sources=src, repeats=2)
    tot = timing.run(method, g, experiment="test", sources=src, repeats=1, scope="with_transfers")
    for rec in (alg, tot):
        assert rec.verified and not rec.skipped
        assert rec.stat("sweeps") >= 1 and rec.stat("source") == src[0]
    assert tot.timing_scope == "with_transfers"
    assert tot.stat("h2d_ms") >= 0 and tot.stat("convert_ms") >= 0
