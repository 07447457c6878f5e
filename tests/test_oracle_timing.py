import importlib.util
import json

import numpy as np
import pytest

from apsp_kernels import Graph, generators, oracle, records, timing
from apsp_kernels.floyd_warshall.cpu import FloydWarshallSerial
from apsp_kernels.registry import Method
from apsp_kernels.solver import Solution

HAS_RUSTWORKX = importlib.util.find_spec("rustworkx") is not None
SERIAL_FW = Method("test", "fw_serial", "apsp_kernels.floyd_warshall.cpu:FloydWarshallSerial", gpu=False)
PER_K = Method("test", "fw_per_k", "apsp_kernels.floyd_warshall.per_k:FloydWarshallPerK")


def random_graph(rng, n=30, m=120, dtype=np.int32):
    w = rng.integers(1, 20, m) if dtype == np.int32 else rng.random(m)
    return Graph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m), w, dtype=dtype)


def test_oracle_matches_floyd_warshall(rng):
    g = random_graph(rng)
    np.testing.assert_array_equal(oracle.distances(g), oracle.distances(g, method="floyd_warshall"))


def test_oracle_handles_negative_weights():
    g = Graph.from_edges(3, [0, 1, 0], [1, 2, 2], [4, -3, 2])
    assert oracle.distances(g, [0])[0, 2] == 1


def test_compare_catches_wrong_inf_pattern_and_values():
    want = np.array([[0, 1, np.inf]])
    assert oracle.compare(want.copy(), want, False) == (True, 0.0)
    assert not oracle.compare(np.array([[0, 1, 5]]), want, False)[0]
    assert not oracle.compare(np.array([[0, 2, np.inf]]), want, False)[0]
    assert oracle.compare(np.array([[0, 1 + 1e-7, np.inf]]), want, True)[0]


def test_verify_rejects_a_wrong_solution(rng):
    g = random_graph(rng)
    d = oracle.distances(g)
    d[3, 4] = d[3, 4] + 1 if np.isfinite(d[3, 4]) else 1
    bad = Solution(np.where(np.isfinite(d), d, 2**30 - 1).astype(np.int32), np.arange(g.n), g.n)
    assert not oracle.verify(bad, g)["verified"]


def test_predecessor_check(rng):
    g = Graph.from_edges(4, [0, 1, 2, 0], [1, 2, 3, 3], [1, 1, 1, 5])
    d = oracle.distances(g, [0])
    assert oracle.check_predecessors(g, [0], np.array([[-1, 0, 1, 2]]), d)
    assert not oracle.check_predecessors(g, [0], np.array([[-1, 0, 1, 0]]), d)


def test_sampled_rows_above_limit():
    rows = oracle.choose_rows(10_000)
    assert len(rows) == oracle.SAMPLED_ROWS and (np.diff(rows) > 0).all()


def test_cpu_timing_record_is_verified(rng):
    g = random_graph(rng)
    rec = timing.run(SERIAL_FW, g, experiment="t", repeats=2, profile="smoke")
    assert rec.verified and rec.max_error == 0 and rec.timing_scope == "cpu"
    assert rec.time_ms_median > 0 and rec.repeats == 2 and not rec.skipped
    assert rec.device and rec.git_commit is not None


def test_gpu_method_without_gpu_is_skipped_with_reason(rng, monkeypatch):
    from apsp_kernels import gpu
    monkeypatch.setattr(gpu, "available", lambda: False)
    rec = timing.run(PER_K, random_graph(rng), experiment="t")
    assert "no CUDA GPU" in rec.skipped and np.isnan(rec.time_ms_median)


def test_scale_marks_extrapolated(rng):
    rec = timing.run(SERIAL_FW, random_graph(rng), experiment="t", repeats=1, scale=10.0,
                     extrapolation="10x sources")
    assert rec.extrapolated and rec.extrapolation == "10x sources"


def test_records_roundtrip(tmp_path, rng):
    rec = timing.run(SERIAL_FW, random_graph(rng), experiment="t", repeats=1, params={"a": 1})
    path = records.write_csv([rec], tmp_path / "records_t.csv")
    df = records.read_csv(path)
    assert list(df.columns) == records.COLUMNS
    assert json.loads(df.loc[0, "params"]) == {"a": 1} and bool(df.loc[0, "verified"])
    assert not list(tmp_path.glob(".*tmp"))


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    def boom(tmp):
        open(tmp, "w").write("half")
        raise RuntimeError("disk full")
    with pytest.raises(RuntimeError):
        records.write_atomic(tmp_path / "x.csv", boom)
    assert list(tmp_path.iterdir()) == []


def test_negative_weights_rejected_by_fw():
    g = Graph.from_edges(2, [0], [1], [-1])
    with pytest.raises(ValueError, match="FloydWarshallSerial needs non-negative"):
        FloydWarshallSerial(g)


def test_an_explicit_commit_wins_over_the_repository_around_the_tree(monkeypatch):
    from apsp_kernels import records
    monkeypatch.setenv("APSP_GIT_COMMIT", "abc1234")
    records.git_commit.cache_clear()
    try:
        assert records.git_commit() == "abc1234"
    finally:
        records.git_commit.cache_clear()


def test_timing_refuses_a_time_for_sources_the_solver_did_not_solve():
    from types import SimpleNamespace

    from apsp_kernels.solver import Solver

    class FirstOnly(Solver):  # solves vertex 0 whatever it is asked; or says it keeps only that row
        all_pairs = False
        on_gpu = False

        def compute(self):
            pass

        def solution(self):
            return Solution(oracle.distances(self.graph, [0]), np.array([0]), self.graph.n,
                            partial=self.params.get("partial", ""))

    g = generators.ring(8)
    method = SimpleNamespace(paper="test", name="first_only", key="test:first_only", gpu=False,
                             make=lambda graph, sources=None, **p: FirstOnly(graph, sources=sources, **p))
    rec = timing.run(method, g, experiment="apsp", sources=np.arange(8), repeats=1, warmup=0)
    assert not rec.verified and "solved 1 of the 8 sources" in rec.verify_scope
    ok = timing.run(method, g, experiment="sssp", sources=[0], repeats=1, warmup=0)
    assert ok.verified
    kept = timing.run(method, g, experiment="apsp", sources=np.arange(8), repeats=1, warmup=0,
                      params={"partial": "row 0 only, by design"})
    assert kept.verified and "(row 0 only, by design)" in kept.verify_scope


def test_single_source_methods_take_vertex_0_when_given_no_sources():
    from apsp_kernels import registry
    from apsp_kernels.solver import Solver

    g = generators.ring(5)
    single = set()
    for method in registry.methods():
        cls = method.solver_class()
        if not issubclass(cls, Solver) or (method.key == "okuyama:dijkstra_rustworkx" and not HAS_RUSTWORKX):
            continue  # bulk instances take no sources; rustworkx is optional
        sources = list(method.make(g).sources)  # built on the host; nothing runs
        assert sources == ([0] if cls.vertex_0_by_default else list(range(5))), method.key
        single |= {method.key} if cls.vertex_0_by_default else set()
    assert single == {"bodra:bf_naive", "bodra:bf_serial", "bodra:bf_stride", "bodra:bf_stride_flag",
                      "fast:sssp_phast", "fast:sssp_worklist", "liu:dijkstra_parallel", "liu:dijkstra_serial", "liu:sssp_spmv"}
