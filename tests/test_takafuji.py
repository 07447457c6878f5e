"""Takafuji et al. (blocked FW, single vs multi kernel): CPU parts — task order (Fig. 3/4),
dependency rules, the protocol simulator, the numpy reference, path helpers, validation,
published tables, profiles and the experiment drivers in the smoke profile."""
import itertools

import numpy as np
import pytest

from apsp_kernels import Graph, oracle, registry, timing
from apsp_kernels.blocked_fw import task_schedule as ts
from apsp_kernels.blocked_fw.bulk import BulkBlockedFW, choose_instances, instance_oracle
from apsp_kernels.blocked_fw.persistent import BlockedFWSingle
from apsp_kernels.blocked_fw.round_kernels import BlockedFWMulti, multi_launches
from apsp_kernels.blocked_fw.via_paths import path_weight, reconstruct_path, via_to_pred
from apsp_kernels.errors import InputError
from apsp_kernels.experiments import takafuji as E
from apsp_kernels.generators import k_regular_dense_batch, k_regular_digraph, random_digraph
from apsp_kernels.report import published

# The paper's Fig. 4: task ids of 8 instances with 4 x 4 tiles, rounds Z = 0 and 1.
FIG4 = {
    0: [[[0, 9, 11, 13], [8, 56, 58, 60], [10, 57, 96, 98], [12, 59, 97, 120]],
        [[1, 15, 17, 19], [14, 61, 63, 65], [16, 62, 99, 101], [18, 64, 100, 121]],
        [[2, 21, 23, 25], [20, 66, 68, 70], [22, 67, 102, 104], [24, 69, 103, 122]],
        [[3, 27, 29, 31], [26, 71, 73, 75], [28, 72, 105, 107], [30, 74, 106, 123]],
        [[4, 33, 35, 37], [32, 76, 78, 80], [34, 77, 108, 110], [36, 79, 109, 124]],
        [[5, 39, 41, 43], [38, 81, 83, 85], [40, 82, 111, 113], [42, 84, 112, 125]],
        [[6, 45, 47, 49], [44, 86, 88, 90], [46, 87, 114, 116], [48, 89, 115, 126]],
        [[7, 51, 53, 55], [50, 91, 93, 95], [52, 92, 117, 119], [54, 94, 118, 127]]],
    1: [[[248, 140, 187, 225], [141, 128, 137, 139], [188, 136, 184, 186], [226, 138, 185, 224]],
        [[249, 146, 192, 228], [147, 129, 143, 145], [193, 142, 189, 191], [229, 144, 190, 227]],
        [[250, 152, 197, 231], [153, 130, 149, 151], [198, 148, 194, 196], [232, 150, 195, 230]],
        [[251, 158, 202, 234], [159, 131, 155, 157], [203, 154, 199, 201], [235, 156, 200, 233]],
        [[252, 164, 207, 237], [165, 132, 161, 163], [208, 160, 204, 206], [238, 162, 205, 236]],
        [[253, 170, 212, 240], [171, 133, 167, 169], [213, 166, 209, 211], [241, 168, 210, 239]],
        [[254, 176, 217, 243], [177, 134, 173, 175], [218, 172, 214, 216], [244, 174, 215, 242]],
        [[255, 182, 222, 246], [183, 135, 179, 181], [223, 178, 219, 221], [247, 180, 220, 245]]],
}


def sparse_random(n, m, seed, dtype=np.float32):
    """Uniform random arcs (often leaves vertices unreachable), float weights in [0, 10)."""
    rng = np.random.default_rng(seed)
    return Graph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m), 10 * rng.random(m),
                            dtype=dtype)


def padded_dense(g: Graph) -> np.ndarray:
    P = ts.padded_size(g.n)
    d = np.full((P, P), np.inf, dtype=np.float32)
    d[: g.n, : g.n] = g.dense().astype(np.float32)
    np.fill_diagonal(d, 0)
    return d


# ------------------------------------------------------------------ registry and data
def test_registry_lists_every_method():
    names = {m.name for m in registry.methods("takafuji")}
    assert names == {"multi", "single", "multi_paths", "single_paths", "bulk_multi", "bulk_single",
                     "cpu_numpy"}
    for m in registry.methods("takafuji"):
        assert m.solver_class() is not None and m.figure


def test_published_tables_are_consistent():
    t1 = published("takafuji", "table1")
    assert set(t1.n) == {64 << i for i in range(10)} and set(t1.threads) == set(E.THREADS)
    best = t1[t1.best].groupby(["kernel", "n"]).time_ms.first()
    assert len(best) == 20
    for (kernel, n), t in best.items():  # the * marks the minimum of its column
        assert t == t1[(t1.kernel == kernel) & (t1.n == n)].time_ms.min()
    summ = published("takafuji", "table1_summary").set_index("n")
    for n in summ.index:  # speedup row = best multi / best single, to the paper's 2 digits
        assert abs(best[("multi", n)] / best[("single", n)] - summ.speedup[n]) < 0.011
    t2 = published("takafuji", "table2")
    assert len(t2) == 2 * (10 * 6 - 2 * 1)  # the m >= 1024, n = 2048 cells are blank in the paper
    assert t2.source.str.contains("Table II").all()


# ------------------------------------------------------------------ task order
@pytest.mark.parametrize("Z", [0, 1])
def test_task_order_reproduces_fig4(Z):
    assert np.array_equal(ts.task_ids(4, 8, Z), np.array(FIG4[Z]))


@pytest.mark.parametrize("N,m", [(1, 1), (2, 1), (3, 2), (5, 1), (4, 3), (7, 2)])
def test_task_order_is_a_permutation_in_dependency_order(N, m):
    order = ts.task_order(N, m)
    assert sorted(order) == list(range(m * N * N))
    ids = {}
    for t in range(m * N ** 3):
        Z, inst, I, J = ts.task_tile(t, N, m, order)
        ids[(Z, inst, I, J)] = t
    # every task waits only for tasks with smaller ids (the deadlock-freedom lemma)
    for (Z, inst, I, J), t in ids.items():
        for flag, a, b, need in ts.waits(Z, I, J, N):
            if flag == "done" and need > 0:
                assert ids[(need - 1, inst, a, b)] < t
        for Zr in range(Z):  # readers of older versions of (I, J)
            for (a, b) in itertools.product(range(N), range(N)):
                if (I, J) in ts.operands(Zr, a, b):
                    assert ids[(Zr, inst, a, b)] < t


@pytest.mark.parametrize("N", [1, 2, 3, 6])
def test_reads_before_counts_the_real_readers(N):
    for Z, I, J in itertools.product(range(N + 1), range(N), range(N)):
        count = sum((I, J) in ts.operands(Zr, a, b)
                    for Zr in range(min(Z, N)) for a in range(N) for b in range(N))
        assert ts.reads_before(I, J, Z, N) == count


def test_task_order_rejects_bad_sizes():
    with pytest.raises(InputError):
        ts.task_order(0, 1)
    with pytest.raises(InputError, match="int32"):
        ts.task_order(2**16, 2**10)


# ------------------------------------------------------------------ numpy reference + simulator
@pytest.mark.parametrize("n", [1, 2, 31, 33, 64, 100])
def test_blocked_fw_numpy_matches_oracle(n):
    g = sparse_random(n, 2 * n, seed=n)
    d = ts.blocked_fw_numpy(padded_dense(g))
    ok, err = oracle.compare(d[:n, :n], oracle.distances(g), True)
    assert ok, err


def test_blocked_fw_numpy_batch_and_unreachable():
    g = Graph.from_edges(40, [0, 1, 35], [1, 2, 36], [1.5, 2.5, 1.0], dtype=np.float32)
    d = ts.blocked_fw_numpy(np.stack([padded_dense(g)] * 2))
    for inst in d:
        assert oracle.compare(inst[:40, :40], oracle.distances(g), True)[0]
    assert np.isinf(d[0, 2, 0]) and d[0, 0, 2] == 4.0


@pytest.mark.parametrize("policy", ["newest", "oldest", "random", "starve"])
@pytest.mark.parametrize("blocks", [1, 2, 7, 100])
def test_simulated_protocol_is_race_and_deadlock_free(policy, blocks):
    D = k_regular_dense_batch(2, 100, 4, seed=3, padded_n=128)
    out = ts.simulate(D, blocks, policy=policy, seed=blocks)
    assert out["violations"] == []
    assert np.array_equal(out["result"], ts.blocked_fw_numpy(D.copy()))


def test_without_the_readers_wait_there_is_a_write_after_read_race():
    D = k_regular_dense_batch(3, 150, 4, seed=2, padded_n=160)
    out = ts.simulate(D, 200, check_reads=False, policy="starve", seed=200)
    assert out["violations"], "expected the unsafe protocol to read a tile already overwritten"
    assert "not" in out["violations"][0]


def test_cpu_numpy_method_through_timing_run():
    g = k_regular_digraph(70, 4, seed=1)
    rec = timing.run(registry.get("takafuji", "cpu_numpy"), g, experiment="t", repeats=1, warmup=0)
    assert rec.verified and rec.timing_scope == "cpu"


# ------------------------------------------------------------------ paths (host)
def _fw_with_via(d):
    d = d.astype(np.float64).copy()
    n = d.shape[0]
    via = np.full((n, n), -1, dtype=np.int32)
    for k in range(n):
        cand = d[:, k, None] + d[None, k, :]
        better = cand < d
        d[better] = cand[better]
        via[better] = k
    return d, via


def test_via_to_pred_and_reconstruct_path():
    g = random_digraph(60, 240, w_max=20, seed=5, dtype=np.float32)
    d, via = _fw_with_via(g.dense())
    pred = via_to_pred(via, d)
    assert oracle.check_predecessors(g, np.arange(60), pred, oracle.distances(g))
    rng = np.random.default_rng(0)
    for i, j in rng.integers(0, 60, size=(40, 2)):
        path = reconstruct_path(via, i, j, d)
        if np.isfinite(d[i, j]):
            assert path[0] == i and path[-1] == j
            assert abs(path_weight(g, path) - d[i, j]) <= 1e-9 * max(1, d[i, j])
        else:
            assert path == []


def test_via_to_pred_batch_and_padding():
    g = Graph.from_edges(3, [0, 1], [1, 2], [1.0, 1.0], dtype=np.float32)
    d, via = _fw_with_via(padded_dense(g))
    pred = via_to_pred(np.stack([via, via]), np.stack([d, d]))
    assert pred.shape == (2, 32, 32)
    assert list(pred[0, 0, :3]) == [-1, 0, 1] and pred[0, 2, 0] == -1


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize("cls", [BlockedFWMulti, BlockedFWSingle, BulkBlockedFW])
def test_negative_weights_are_rejected_naming_the_method(cls):
    g = Graph.from_edges(3, [0, 1], [1, 2], [1.0, -2.0], dtype=np.float32)
    with pytest.raises(InputError, match="BlockedFW"):
        cls(g)


def test_bad_parameters_are_rejected():
    g = k_regular_digraph(40, 4)
    with pytest.raises(InputError, match="threads"):
        BlockedFWMulti(g, threads=96)
    with pytest.raises(InputError, match="blocks"):
        BlockedFWSingle(g, blocks=0)
    with pytest.raises(InputError, match="kind"):
        BulkBlockedFW(g, kind="triple")
    with pytest.raises(InputError, match="multiple of 32"):
        BulkBlockedFW(np.zeros((2, 40, 40), dtype=np.float32))
    with pytest.raises(InputError, match="float32"):
        BulkBlockedFW(np.zeros((2, 32, 32), dtype=np.float64))
    with pytest.raises(InputError, match="same n"):
        BulkBlockedFW([k_regular_digraph(40, 4), k_regular_digraph(41, 4)])


def test_solver_sizes():
    s = BlockedFWSingle(k_regular_digraph(100, 4), threads=128)
    assert (s.P, s.N, s.run.tasks) == (128, 4, 64)
    assert multi_launches(1) == 1 and multi_launches(4) == 12
    b = BulkBlockedFW(k_regular_dense_batch(3, 64, 4), kind="multi", n=60)
    assert (b.m, b.P, b.n, b.N) == (3, 64, 60, 2)


def test_bulk_helpers():
    D = k_regular_dense_batch(2, 50, 4, seed=4, padded_n=64)
    g = Graph.from_dense(D[1, :50, :50], dtype=np.float32)
    assert oracle.compare(instance_oracle(D[1], 50), oracle.distances(g), True)[0]
    assert list(choose_instances(5, 8)) == [0, 1, 2, 3, 4]
    pick = choose_instances(2048, 4)
    assert len(pick) == 4 and pick[0] == 0 and pick[-1] == 2047


# ------------------------------------------------------------------ profiles and drivers
@pytest.mark.parametrize("profile", ["smoke", "default", "paper"])
def test_config_profiles(profile):
    cfg = E.config(profile)
    ns = [r["n"] for r in cfg["table1"]]
    assert ns == sorted(ns)
    assert all(set(r["threads"]) <= set(E.THREADS) for r in cfg["table1"])
    assert set(cfg["table2_n"]) <= {64, 96, 128, 256, 512, 1024, 2048}
    if profile == "default":
        assert max(ns) == 16384 and 2048 in cfg["table2_m"] and 1024 in cfg["table2_n"]
    if profile == "paper":
        assert max(ns) == 32768 and len(cfg["table2_m"]) == 10
    if profile == "smoke":
        assert max(ns) <= 128


def test_drivers_run_in_smoke_profile():
    cfg = E.config("smoke")
    recs = E.table1(cfg)
    assert recs and all(r.experiment in ("table1", "table1_tune_b") for r in recs)
    layout = E.table1_layout(E.table1_long(recs))
    assert ("speedup single/multi", "paper V100") in layout.index
    assert layout.loc[("multi T=256", "paper V100"), "n=64"] == "*0.0441"
    t2 = E.table2(cfg)
    assert len(t2) == 2 * len(cfg["table2_m"]) * len(cfg["table2_n"])
    assert not E.table2_layout(E.table2_long(t2)).empty
    assert E.paths_table(E.paths_overhead(cfg)).shape[0] == 2
    assert E.bsweep(cfg)


def test_protocol_check_and_figures():
    df = E.protocol_check({"simulate": [(70, 1)]})
    safe = df[df.waits_for_readers]
    assert not safe.deadlock.any() and (safe.violations == 0).all() and safe.result_equal.all()
    fig = E.task_id_figure(4, 8, 1)
    assert fig[("G0", "J=0")].tolist() == [248, 141, 188, 226]
