"""The sample kernel end to end on the GPU: FW one launch per k, against the oracle."""
import numpy as np
import pytest

from apsp_kernels import Graph, gpu, oracle, timing
from apsp_kernels.errors import GPUMemoryError
from apsp_kernels.floyd_warshall.per_k import FloydWarshallPerK
from apsp_kernels.registry import Method

pytestmark = pytest.mark.gpu
PER_K = Method("test", "fw_per_k", "apsp_kernels.floyd_warshall.per_k:FloydWarshallPerK")


def random_graph(rng, n, m, dtype):
    w = rng.integers(1, 100, m) if dtype == np.int32 else rng.random(m)
    return Graph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m), w, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
@pytest.mark.parametrize("n,m", [(1, 0), (3, 2), (33, 100), (150, 600), (257, 3000)])
@pytest.mark.parametrize("parents", [False, True])
def test_fw_per_k_matches_oracle(rng, n, m, dtype, parents):
    g = random_graph(rng, n, m, dtype)
    s = FloydWarshallPerK(g, parents=parents)
    s.setup()
    s.d.fill(-7)  # poison: every entry must be rewritten by reset + compute
    s.reset()
    s.compute()
    result = oracle.verify(s.solution(), g)
    assert result["verified"], result


def test_timing_run_records_device_and_verification(rng):
    rec = timing.run(PER_K, random_graph(rng, 200, 1000, np.int32), experiment="t", repeats=3)
    assert rec.verified and not rec.skipped and rec.timing_scope == "kernel"
    assert rec.device == gpu.device_info()["device"] and rec.time_ms_median > 0
    rec2 = timing.run(PER_K, random_graph(rng, 200, 1000, np.int32), experiment="t",
                      repeats=2, scope="with_transfers")
    assert rec2.verified and rec2.timing_scope == "with_transfers"


def test_memory_check_before_allocating():
    with pytest.raises(GPUMemoryError, match="GiB"):
        gpu.require_memory(10 * 2**50, "an absurd matrix")


def test_too_large_graph_is_a_skip_not_a_crash(monkeypatch, rng):
    monkeypatch.setattr(gpu, "free_bytes", lambda: 1000)
    rec = timing.run(PER_K, random_graph(rng, 100, 300, np.int32), experiment="t")
    assert "GiB" in rec.skipped
