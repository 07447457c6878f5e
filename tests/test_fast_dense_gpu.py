"""The fast dense path (issue [peak]) on the GPU: the fast (min,+) product on views (odd shapes,
batches split along k, R-Kleene's aliasing) against numpy, fast R-Kleene against the oracle."""
import numpy as np
import pytest

from apsp_kernels import gpu, oracle
from apsp_kernels.graph import Graph
from apsp_kernels.inf import INF_INT32, inf_for
from apsp_kernels.minplus import product as prod
from apsp_kernels.minplus import product_fast as pf
from apsp_kernels.minplus.rkleene_fast import build_fast_launcher
import helpers

pytestmark = pytest.mark.gpu
DTYPES = [np.int32, np.float32]


def random_matrix(rng, rows, cols, dtype, high=50, inf_frac=0.2):
    if dtype == np.int32:
        host = rng.integers(0, high, (rows, cols)).astype(np.int32)
    else:
        host = (rng.random((rows, cols)) * high).astype(np.float32)
    host[rng.random(host.shape) < inf_frac] = inf_for(dtype)
    return host


def random_graph(n, seed, dtype=np.int32, density=0.3):
    return helpers.dense_random_graph(n, seed, dtype, density, isolated=int(n > 2), float_offset=0.25,
                                      name="fast")


def assert_product(got, host, pr, dtype):
    """X equals the out-of-place product and nothing outside X changed."""
    want = prod.reference_product(host, pr)
    (xr, xc) = pr.x
    block = got[xr:xr + pr.m, xc:xc + pr.p]
    if dtype == np.int32:
        assert (block == want).all(), pr
    else:
        assert np.allclose(block, want, rtol=1e-6), pr
    outside = got.copy()
    outside[xr:xr + pr.m, xc:xc + pr.p] = host[xr:xr + pr.m, xc:xc + pr.p]
    assert (outside == host).all(), f"{pr} wrote outside its view X"


# ----------------------------------------------------------------------------- the product
@pytest.mark.parametrize("dtype", DTYPES)
def test_product_on_odd_views_matches_numpy(dtype):
    """Any shape and offset: the checked kernel; whole aligned tiles: the unchecked ones."""
    cp = gpu.cupy()
    rng = np.random.default_rng(5)
    shapes = [(1, 1, 1), (3, 5, 2), (17, 33, 9), (64, 64, 64), (65, 63, 17), (100, 37, 129),
              (128, 128, 128), (129, 200, 70), (256, 128, 48), (300, 300, 17)]
    shapes += [tuple(int(v) for v in rng.integers(1, 400, 3)) for _ in range(4)]
    for m, p, q in shapes:
        ld = max(p, q) + int(rng.integers(0, 40))
        host = random_matrix(rng, 2 * m + q + 3, ld, dtype)
        pr = prod.Product(x=(0, int(rng.integers(0, ld - p + 1))), y=(m, int(rng.integers(0, ld - q + 1))),
                          z=(2 * m, int(rng.integers(0, ld - p + 1))), m=m, p=p, q=q)
        dev = cp.asarray(host)
        pf.fast_product(dev, pr.x, pr.y, pr.z, m, p, q)
        assert_product(dev.get(), host, pr, dtype)


@pytest.mark.parametrize("variant", list(pf.VARIANTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_unchecked_variants_on_aligned_views(variant, dtype):
    cp = gpu.cupy()
    rng = np.random.default_rng(11)
    v = pf.VARIANTS[variant]
    m, p, q = 2 * v.bm, 3 * v.bn, 4 * v.bk + 64
    host = random_matrix(rng, 2 * m + q, p + q + 8, dtype)
    pr = prod.Product((0, 4), (m, 8), (2 * m, 8), m, p, q)
    dev = cp.asarray(host)
    launcher = pf.FastLauncher(dev, variant)
    assert pf.aligned(dev, pr, v)
    launcher.add_product(pr, variant)
    launcher.issue()
    assert_product(dev.get(), host, pr, dtype)
    assert launcher.stats["kernels"] == {variant: 1}


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_split_along_k_matches_numpy(dtype):
    """Two independent products in one launch, each cut into k-chunks merged by atomicMin."""
    cp = gpu.cupy()
    rng = np.random.default_rng(2)
    host = random_matrix(rng, 512, 640, dtype)
    p1 = prod.Product((0, 0), (128, 128), (256, 0), 128, 128, 256)
    p2 = prod.Product((0, 256), (128, 384), (256, 256), 128, 256, 256)
    dev = cp.asarray(host)
    launcher = pf.FastLauncher(dev)
    launcher.add_batch([p1, p2])
    assert launcher.stats["split_products"] == 2, launcher.stats  # tiny outputs: always split
    launcher.issue()
    got = dev.get()
    for pr in (p1, p2):
        want = prod.reference_product(host, pr)
        block = got[pr.x[0]:pr.x[0] + pr.m, pr.x[1]:pr.x[1] + pr.p]
        assert (block == want).all() if dtype == np.int32 else np.allclose(block, want, rtol=1e-6)


def test_batch_refuses_dependent_or_unaligned_products():
    cp = gpu.cupy()
    dev = cp.zeros((256, 256), dtype=np.int32)
    launcher = pf.FastLauncher(dev)
    b = prod.Product((0, 128), (0, 0), (0, 128), 128, 128, 128)     # B <- A*B
    d = prod.Product((128, 128), (128, 0), (0, 128), 128, 128, 128)  # D <- C*B reads B
    with pytest.raises(Exception, match="independent"):
        launcher.add_batch([b, d])
    with pytest.raises(Exception, match="64-multiples"):
        launcher.add_batch([prod.Product((0, 1), (0, 0), (0, 1), 64, 64, 64)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_aliased_products_lie_between_closure_and_out_of_place(dtype):
    """R-Kleene's pattern B <- min(B, A*B) and squaring D <- min(D, D*D), in place: every entry
    ends <= the out-of-place product and >= the true distance (see product.cu, rkleene.py)."""
    cp = gpu.cupy()
    g = random_graph(384, seed=4, dtype=dtype, density=0.05)
    host = g.dense()
    closure = oracle.distances(g)
    for pr in (prod.Product((0, 128), (0, 0), (0, 128), 128, 256, 128),     # B <- A*B
               prod.Product((128, 0), (128, 0), (0, 0), 256, 128, 128),     # C <- C*A
               prod.Product((0, 0), (0, 0), (0, 0), 384, 384, 384)):        # squaring
        for batch in (False, True):
            dev = cp.asarray(host)
            launcher = pf.FastLauncher(dev)
            launcher.add_batch([pr]) if batch else launcher.add_product(pr)
            launcher.issue()
            got = dev.get()
            out_of_place = host.copy()
            out_of_place[pr.x[0]:pr.x[0] + pr.m, pr.x[1]:pr.x[1] + pr.p] = prod.reference_product(host, pr)
            got_pub, oop_pub = (np.where(a >= inf_for(dtype), np.inf, a.astype(np.float64))
                                for a in (got, out_of_place))
            assert (got_pub <= oop_pub * (1 + 1e-6)).all(), pr
            assert (got_pub >= closure * (1 - 1e-6)).all(), pr


@pytest.mark.parametrize("dtype", DTYPES)
def test_measure_product_checks_its_rows(dtype):
    for variant in ("t128", "t64"):
        res = pf.measure_product(256, dtype=dtype, variant=variant, repeats=1, warmup=0)
        assert res["checked"] is True and res["ops"] == 256 ** 3 and res["ops_per_s"] > 0


# ----------------------------------------------------------------------------- fast R-Kleene
def solve(name, g, **params):
    return helpers.solve("fast", name, g, **params)


def assert_exact(solver, g):
    helpers.assert_exact(solver, g)
    assert solver.solution().to_numpy().shape == (g.n, g.n)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 2, 31, 127, 128, 129, 300, 1000])
def test_fast_rkleene_matches_oracle(n, dtype):
    g = random_graph(n, seed=n, dtype=dtype, density=0.1)
    solver = solve("rkleene", g)
    assert_exact(solver, g)
    assert solver.stats["n_padded"] % pf.PAD == 0


@pytest.mark.parametrize("params", [{"threshold": 64}, {"split_k": False}, {"cuda_graph": False},
                                    {"variant": "t128k32"}, {"variant": "t128s4"}, {"variant": "t128r1"}])
def test_fast_rkleene_options(params):
    g = random_graph(700, seed=3, density=0.02)
    assert_exact(solve("rkleene", g, **params), g)


@pytest.mark.parametrize("n", [1, 2, 129, 300])
def test_fast_squaring_matches_oracle(n):
    g = random_graph(n, seed=n + 1, density=0.05)
    assert_exact(solve("minplus_squaring", g), g)


def test_fast_rkleene_near_the_int32_limit_and_zero_weights():
    n = 260
    chain = np.arange(n - 1)
    w = np.full(n - 1, (INF_INT32 - 1) // (n - 1), dtype=np.int64)  # longest distance just below INF
    g = Graph.from_edges(n, chain, chain + 1, w, dtype=np.int32, name="near-limit chain")
    assert_exact(solve("rkleene", g), g)
    rng = np.random.default_rng(0)
    src, dst = rng.integers(0, 500, 4000), rng.integers(0, 500, 4000)
    keep = src != dst
    zero = Graph.from_edges(500, src[keep], dst[keep], rng.integers(0, 2, keep.sum()) * 0,
                            dtype=np.int32, name="zero weights")
    assert_exact(solve("rkleene", zero), zero)
    mixed = Graph.from_edges(500, src[keep], dst[keep], rng.integers(0, 3, keep.sum()),
                             dtype=np.float32, name="some zero weights")
    assert_exact(solve("rkleene", mixed), mixed)


def test_fast_launcher_needs_a_padded_matrix():
    cp = gpu.cupy()
    with pytest.raises(Exception, match="multiple of 128"):
        build_fast_launcher(cp.zeros((100, 100), dtype=np.int32))
