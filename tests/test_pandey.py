"""pandey on the CPU: registry, R-Kleene plan (views, splits), serial baselines, drivers."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apsp_kernels import generators, oracle, registry
from apsp_kernels.errors import InputError
from apsp_kernels.experiments import pandey as exp
from apsp_kernels.graph import Graph
from apsp_kernels.inf import INF_INT32, from_public
from apsp_kernels.minplus import product as prod
from apsp_kernels.minplus import squaring
from apsp_kernels.minplus.cpu import RKleeneSerial, certify, rkleene_serial_inplace
from apsp_kernels.minplus.rkleene import RKleene
from apsp_kernels.minplus.rkleene_plan import BaseCase, plan, plan_array, plan_counts, split
from apsp_kernels.profiles import PROFILES
from apsp_kernels.timing import run


def closure(g: Graph) -> np.ndarray:
    return from_public(oracle.distances(g), g.dtype)


def sparse_dense_graph(n, seed, density=0.3, isolated=1):
    """Dense-ish random digraph with some unreachable vertices (the last ``isolated`` ones)."""
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 11, (n, n)).astype(np.int32)
    w[rng.random((n, n)) > density] = INF_INT32
    if isolated and n > 1:
        w[-isolated:, :] = INF_INT32
        w[:, -isolated:] = INF_INT32
    return Graph.from_dense(w, name=f"test-n{n}-s{seed}")


# ------------------------------------------------------------------------------- registry
def test_registry_lists_the_papers_methods():
    names = {m.name for m in registry.methods("pandey")}
    assert {"rkleene", "rkleene_launches", "rkleene_tiled", "fw_parallel", "rkleene_serial",
            "fw_serial", "minplus_naive_tiled", "minplus_blocked"} <= names
    for m in registry.methods("pandey"):
        assert m.solver_class() is not None
        assert m.gpu == m.solver_class().on_gpu
    assert dict(registry.get("pandey", "fw_parallel").params) == {"parents": False}


# ------------------------------------------------------------------------- plan / views
@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 400), threshold=st.integers(1, 128))
def test_plan_views_stay_inside_and_cover_n_cubed(n, threshold):
    steps = plan(n, threshold)
    bases = [s for s in steps if isinstance(s, BaseCase)]
    products = [s for s in steps if not isinstance(s, BaseCase)]
    # base cases tile the diagonal in order, each no larger than the threshold
    assert [b.r0 for b in bases] == list(np.cumsum([0] + [b.b for b in bases[:-1]]))
    assert sum(b.b for b in bases) == n and all(1 <= b.b <= threshold for b in bases)
    for p in products:
        prod.check_views(p, n, n)  # raises when a view leaves the matrix
        (xr, xc, m, pp), (yr, yc, m2, q), (zr, zc, q2, p2) = p.views()
        assert (m, pp, q) == (m2, p2, q2) == (p.m, p.p, p.q)
    # A + B*C structure: (a+d)^3 = a^3 + d^3 + 6 products, so the work is exactly n^3
    assert sum(p.ops for p in products) + sum(b.b ** 3 for b in bases) == n ** 3
    counts = plan_counts(n, threshold)
    assert counts["products"] == 6 * (counts["base_cases"] - 1)
    assert counts["launches"] == len(steps)


@given(size=st.integers(2, 10 ** 6))
def test_split_is_ceil_floor(size):
    a, d = split(size)
    assert a == math.ceil(size / 2) and d == size // 2 and a + d == size and d >= 1


def test_plan_small_cases():
    assert plan(1, 16) == [BaseCase(0, 1)]
    assert plan(16, 16) == [BaseCase(0, 16)]
    steps = plan(17, 16)
    assert steps[0] == BaseCase(0, 9) and steps[4] == BaseCase(9, 8) and len(steps) == 8
    with pytest.raises(InputError):
        plan(0)
    with pytest.raises(InputError):
        plan(10, threshold=0)


def test_plan_array_round_trip():
    steps = plan(37, 4)
    arr = plan_array(steps)
    assert arr.shape == (len(steps), 10) and arr.dtype == np.int64
    for row, s in zip(arr, steps):
        if isinstance(s, BaseCase):
            assert tuple(row[[0, 1, 7]]) == (0, s.r0, s.b)
        else:
            assert tuple(row) == (1, *s.x, *s.y, *s.z, s.m, s.p, s.q)


@given(r=st.integers(0, 5000), c=st.integers(0, 5000), extra=st.integers(0, 100))
def test_flat_index_matches_numpy_views(r, c, extra):
    ld = c + 1 + extra
    assert prod.flat_index(r, c, ld) == np.ravel_multi_index((r, c), (r + 1, ld))


def test_check_views_rejects_outside():
    with pytest.raises(InputError, match="view Z"):
        prod.check_views(prod.Product((0, 0), (0, 0), (5, 0), 3, 3, 3), 7, 7)
    with pytest.raises(InputError, match="sizes"):
        prod.check_views(prod.Product((0, 0), (0, 0), (0, 0), 0, 3, 3), 7, 7)


@settings(max_examples=40, deadline=None)
@given(m=st.integers(1, 300), p=st.integers(1, 300), sm=st.sampled_from([1, 80, 132]))
def test_launch_shapes_cover_the_output(m, p, sm):
    kernel = prod.blocked_variant(m, p, sm)
    grid, block = prod.launch_shape(kernel, m, p)
    tile = {"tiled": 16, "blocked64": 64, "blocked128": 128}[kernel]
    assert grid[0] * tile >= p and grid[1] * tile >= m
    assert (grid[0] - 1) * tile < p and (grid[1] - 1) * tile < m
    assert block[0] * block[1] == 256
    if max(m, p) <= 32:
        assert kernel == "tiled"


@given(b=st.integers(1, 128))
def test_fw_block_shape(b):
    grid, block = prod.fw_block_shape(b)
    assert grid == (1, 1, 1) and block[0] % 32 == 0 and 32 <= block[0] <= 1024
    assert b * b * 4 <= 64 * 1024


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_reference_product_against_brute_force(data):
    m, p, q = (data.draw(st.integers(1, 7)) for _ in range(3))
    rows, cols = 2 * m + q, max(p, q) + 3
    seed = data.draw(st.integers(0, 10 ** 6))
    rng = np.random.default_rng(seed)
    mat = rng.integers(0, 20, (rows, cols)).astype(np.int32)
    mat[rng.random(mat.shape) < 0.3] = INF_INT32
    yc = data.draw(st.integers(0, cols - q))
    zc = data.draw(st.integers(0, cols - p))
    pr = prod.Product((0, cols - p), (m, yc), (2 * m, zc), m, p, q)
    got = prod.reference_product(mat, pr)
    want = mat[0:m, cols - p:].astype(np.int64)
    for i in range(m):
        for j in range(p):
            for k in range(q):
                want[i, j] = min(want[i, j], int(mat[m + i, yc + k]) + int(mat[2 * m + k, zc + j]))
    want = np.minimum(want, INF_INT32)
    assert (got == want).all()


def test_squarings_needed():
    assert [squaring.squarings_needed(n) for n in (1, 2, 3, 4, 5, 9, 4096)] == [0, 0, 1, 2, 2, 3, 12]


# ------------------------------------------------------------------------- serial R-Kleene
@pytest.mark.parametrize("n", [1, 2, 3, 5, 16, 17, 31, 64, 100])
@pytest.mark.parametrize("threshold", [1, 2, 16])
def test_serial_rkleene_matches_oracle(n, threshold):
    g = sparse_dense_graph(n, seed=n * 7 + threshold)
    d = g.dense()
    rkleene_serial_inplace(d, threshold)
    assert (d == closure(g)).all()


@pytest.mark.parametrize("name", ["rkleene_serial", "fw_serial"])
def test_serial_methods_through_the_harness(name):
    g = generators.dense_random(70, seed=3)
    rec = run(registry.get("pandey", name), g, experiment="test", repeats=1, warmup=0)
    assert rec.verified and rec.verify_scope == "all 70 rows" and not rec.skipped


def test_serial_float32():
    g = generators.dense_random(40, seed=1, dtype=np.float32)
    rec = run(registry.get("pandey", "rkleene_serial"), g, experiment="test", repeats=1, warmup=0,
              params={"threshold": 8})
    assert rec.verified


def test_negative_weights_are_rejected_naming_the_method():
    g = Graph.from_edges(3, [0, 1], [1, 2], [2, -1])
    with pytest.raises(InputError, match="RKleeneSerial"):
        RKleeneSerial(g)
    with pytest.raises(InputError, match="RKleene"):
        RKleene(g)  # validated on the host before any GPU work
    with pytest.raises(InputError, match="MinPlusSquaring"):
        squaring.MinPlusSquaring(g)


def test_bad_parameters():
    g = generators.dense_random(8)
    with pytest.raises(InputError, match="threshold"):
        RKleene(g, threshold=129)
    with pytest.raises(InputError, match="threshold"):
        RKleene(g, threshold=0)
    with pytest.raises(InputError, match="product"):
        RKleene(g, product="fancy")
    with pytest.raises(InputError, match="kernel"):
        squaring.MinPlusSquaring(g, kernel="fancy")


# ------------------------------------------------------------------------------ certificate
def test_certify_accepts_the_closure_and_catches_errors():
    g = sparse_dense_graph(40, seed=5)
    want = closure(g)
    assert certify(want, g.dense())["ok"]
    for i, j, delta in [(0, 5, -1), (3, 7, 1), (2, 2, 1)]:
        bad = want.copy()
        if bad[i, j] >= INF_INT32:
            bad[i, j] = 5
        else:
            bad[i, j] += delta
        assert not certify(bad, g.dense())["ok"]
    bad = want.copy()
    bad[0, -1] = 3  # unreachable vertex claimed reachable
    assert not certify(bad, g.dense())["ok"]


def test_certify_refuses_zero_weights():
    g = Graph.from_edges(3, [0, 1], [1, 2], [0, 1])
    with pytest.raises(InputError, match="zero"):
        certify(g.dense(), g.dense())


# ------------------------------------------------------------------------- experiments
@pytest.mark.parametrize("profile", PROFILES)
def test_config_is_sane(profile):
    cfg = exp.config(profile)
    assert list(cfg["sizes"]) == sorted(cfg["sizes"])
    assert set(cfg["thresholds"]) == {8, 16, 32, 64, 128}
    if profile == "default":
        assert cfg["sizes"][0] == 64 and cfg["sizes"][-1] == 4096
        assert cfg["serial_max_n"] <= 2048 and cfg["certify_max_n"] >= 4096
    assert all(n <= exp.FULL_ROWS_MAX_N or len(exp.verify_rows(n)) == exp.SAMPLED_ROWS
               for n in cfg["sizes"])


def test_published_table1_is_transcribed():
    from apsp_kernels import report
    t = report.published("pandey", "table1")
    assert list(t["n"]) == [64, 128, 256, 512, 1024, 2048, 4096]
    assert t["nvidia_gt630m"].max() == pytest.approx(474.91)
    assert t["source"].str.contains("Table 1").all()


def test_smoke_drivers_run_on_the_cpu():
    cfg = dict(exp.config("smoke"), sizes=(16, 33), serial_max_n=16)
    recs = exp.sweep(cfg)
    from apsp_kernels.records import to_frame
    df = to_frame(recs)
    serial = df[df["method"] == "rkleene_serial"].set_index("n")
    assert serial.loc[16, "verified"] and not serial.loc[16, "extrapolated"]
    assert serial.loc[33, "extrapolated"]
    assert serial.loc[33, "time_ms_median"] == pytest.approx(serial.loc[16, "time_ms_median"] * (33 / 16) ** 3)
    t1 = exp.table1(df)
    assert {"speedup RK vs serial RK", "paper NVIDIA GT 630M", "serial extrapolated"} <= set(t1.columns)
    assert t1.set_index("n").loc[33, "serial extrapolated"]
    exp.rk_vs_fw(df)
    checks = exp.full_checks(dict(cfg, certify_max_n=16))
    assert len(checks) >= 1
    exp.threshold_table(exp.threshold_sweep(dict(cfg, threshold_sizes=(16,), thresholds=(8,))))
    table = exp.product_rate_table(exp.product_rate(dict(cfg, product_sizes=(16,))), df, exp.peak(cfg), cfg)
    assert "T_ops_per_s" in table.columns


def test_crossover():
    import pandas as pd
    t = pd.DataFrame({"n": [64, 128, 256, 512], "FW / RK": [0.5, 1.2, 0.9, 3.0]})
    assert exp.crossover(t) == 512
    assert exp.crossover(t.assign(**{"FW / RK": [2, 2, 2, 2]})) == 64
    assert exp.crossover(t.assign(**{"FW / RK": [0.1] * 4})) is None
