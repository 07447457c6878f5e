"""pandey on the GPU: product kernels on random views, R-Kleene vs the oracle, in-place memory."""
import numpy as np
import pytest

from apsp_kernels import datasets, generators, gpu, oracle, registry
from apsp_kernels.inf import INF_INT32, from_public
from apsp_kernels.minplus import product as prod
from apsp_kernels.minplus.cpu import certify
from apsp_kernels.minplus.rkleene import build_launcher, rkleene_inplace
from apsp_kernels.timing import run
import helpers

pytestmark = pytest.mark.gpu

GPU_APSP = ["rkleene", "rkleene_launches", "rkleene_tiled", "fw_parallel",
            "minplus_blocked", "minplus_naive_tiled"]


def random_graph(n, seed, density=0.3, dtype=np.int32):
    return helpers.dense_random_graph(n, seed, dtype, density)


def run_solver(name, g, **params):
    return helpers.solve("pandey", name, g, **params)


assert_exact = helpers.assert_exact


# ----------------------------------------------------------------------- product on views
@pytest.mark.parametrize("kernel", ["tiled", "blocked"])
@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_product_on_random_views_matches_numpy(kernel, dtype):
    cp = gpu.cupy()
    rng = np.random.default_rng(7)
    shapes = [(1, 1, 1), (3, 5, 2), (17, 33, 9), (64, 64, 64), (100, 37, 129), (129, 200, 70),
              (257, 130, 300), (300, 300, 17)]
    shapes += [tuple(int(v) for v in rng.integers(1, 400, 3)) for _ in range(6)]
    for m, p, q in shapes:
        ld = max(p, q) + int(rng.integers(0, 40))
        rows = 2 * m + q + int(rng.integers(0, 5))
        if dtype == np.int32:
            host = rng.integers(0, 50, (rows, ld)).astype(np.int32)
            host[rng.random(host.shape) < 0.2] = INF_INT32
        else:
            host = (rng.random((rows, ld)) * 50).astype(np.float32)
            host[rng.random(host.shape) < 0.2] = np.inf
        # X, Y and Z do not overlap (rows 0..m, m..2m, 2m..2m+q), columns at random offsets
        pr = prod.Product(x=(0, int(rng.integers(0, ld - p + 1))), y=(m, int(rng.integers(0, ld - q + 1))),
                          z=(2 * m, int(rng.integers(0, ld - p + 1))), m=m, p=p, q=q)
        want = prod.reference_product(host, pr)
        dev = cp.asarray(host)
        prod.minplus_product(dev, pr.x, pr.y, pr.z, m, p, q, kernel=kernel)
        got = dev.get()
        (xr, xc) = pr.x
        block = got[xr:xr + m, xc:xc + p]
        if dtype == np.int32:
            assert (block == want).all(), (m, p, q)
        else:
            assert np.allclose(block, want, rtol=1e-6, equal_nan=False), (m, p, q)
        outside = got.copy()
        outside[xr:xr + m, xc:xc + p] = host[xr:xr + m, xc:xc + p]
        assert (outside == host).all(), "a product wrote outside its view X"


def test_product_on_a_strided_view():
    """The matrix handed over may itself be a view of a wider array (ld > width)."""
    cp = gpu.cupy()
    rng = np.random.default_rng(3)
    base = rng.integers(0, 30, (300, 500)).astype(np.int32)
    host_view = base[10:290, 50:350]
    pr = prod.Product((0, 0), (100, 20), (200, 40), 90, 150, 80)
    want = prod.reference_product(np.ascontiguousarray(host_view), pr)
    dev = cp.asarray(base)
    prod.minplus_product(dev[10:290, 50:350], pr.x, pr.y, pr.z, pr.m, pr.p, pr.q, kernel="blocked")
    got = dev.get()
    assert (got[10:100, 50:200] == want).all()
    mask = np.ones(base.shape, bool)
    mask[10:100, 50:200] = False
    assert (got[mask] == base[mask]).all()


# ------------------------------------------------------------------- APSP against the oracle
@pytest.mark.parametrize("name", GPU_APSP)
@pytest.mark.parametrize("n", [1, 2, 3, 17, 100, 129, 257])
def test_methods_match_oracle(name, n):
    g = random_graph(n, seed=n)
    assert_exact(run_solver(name, g), g)


@pytest.mark.parametrize("threshold", [1, 2, 8, 16, 32, 64, 128])
@pytest.mark.parametrize("product", ["blocked", "tiled"])
def test_rkleene_thresholds(threshold, product):
    g = random_graph(300, seed=threshold, density=0.05)
    assert_exact(run_solver("rkleene_launches", g, threshold=threshold, product=product), g)


def test_rkleene_dense_paper_graph_all_entries():
    g = generators.dense_random(1000, seed=11)
    for name in ("rkleene", "rkleene_tiled"):
        solver = run_solver(name, g)
        assert certify(solver.solution().dist, g.dense())["ok"], name
    assert_exact(solver, g)  # and the oracle on all 1000 rows


def test_rkleene_float32():
    g = random_graph(200, seed=5, dtype=np.float32)
    for name in ("rkleene", "rkleene_tiled", "minplus_blocked"):
        assert_exact(run_solver(name, g), g)


def test_rkleene_cuda_graph_is_captured_and_replays():
    g = generators.dense_random(500, seed=2)
    solver = run_solver("rkleene", g)
    assert solver.stats["cuda_graph"] is True
    for _ in range(2):  # replay after reset gives the same exact answer
        solver.reset()
        solver.compute()
    assert_exact(solver, g)


def test_real_or_realistic_graph():
    g = datasets.load_or_stand_in("gnutella04")  # 10,876 vertices; a road-like stand-in if absent
    rec = run(registry.get("pandey", "rkleene"), g, experiment="test", repeats=1)
    assert rec.verified, rec


def test_harness_records_are_verified():
    g = generators.dense_random(600, seed=4)
    for name in ("rkleene", "fw_parallel", "minplus_blocked"):
        rec = run(registry.get("pandey", name), g, experiment="test", repeats=1)
        assert rec.verified and not rec.skipped, rec


# ------------------------------------------------------------------------------- in place
def Counter():
    from apsp_kernels.experiments.pandey import malloc_counter
    return malloc_counter()


def test_rkleene_is_in_place():
    cp = gpu.cupy()
    pool = cp.get_default_memory_pool()
    g = generators.dense_random(1024, seed=9)
    d = g.dense_gpu()
    cp.cuda.Device().synchronize()
    launcher = build_launcher(d, 16, "blocked")
    used0, total0 = pool.used_bytes(), pool.total_bytes()
    hook = Counter()
    with hook:
        launcher.issue()
        cp.cuda.Device().synchronize()
    assert hook.count == 0, "R-Kleene allocated device memory while running"
    assert pool.used_bytes() == used0 and pool.total_bytes() == total0
    assert used0 >= g.dense_nbytes()
    assert certify(d, g.dense())["ok"]


def test_solver_compute_allocates_nothing():
    cp = gpu.cupy()
    g = generators.dense_random(700, seed=8)
    for name in ("rkleene", "rkleene_launches", "rkleene_tiled"):
        solver = registry.get("pandey", name).make(g)
        solver.setup()
        solver.reset()
        cp.cuda.Device().synchronize()
        hook = Counter()
        with hook:
            solver.compute()
            cp.cuda.Device().synchronize()
        assert hook.count == 0, name


def test_functional_api_and_experiment_check():
    cp = gpu.cupy()
    g = random_graph(150, seed=1)
    d = rkleene_inplace(g.dense_gpu(), threshold=16)
    assert (d.get() == from_public(oracle.distances(g), np.int32)).all()
    from apsp_kernels.experiments import pandey as exp
    info = exp.inplace_check(256)
    assert info["allocations_during_run"] == 0 and info["pool_used_after"] == info["pool_used_before"]
    assert cp is not None


def test_peak_microbenchmark_runs():
    info = prod.measure_peak(np.int32, iters=256, repeats=1)
    assert info["ops_per_s"] > 0
