import os

import numpy as np
import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

# APSP_TEST_SPREAD_GPUS=0,1 with pytest-xdist: worker gwK sees only the K-th of these GPUs (modulo),
# so a host with several GPUs runs the GPU tests on all of them at once (tests that need two GPUs
# then skip: run those without it). Set before anything initialises CUDA.
_spread = [g.strip() for g in os.environ.get("APSP_TEST_SPREAD_GPUS", "").split(",") if g.strip()]
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _spread and _worker.startswith("gw"):
    os.environ["CUDA_VISIBLE_DEVICES"] = _spread[int(_worker[2:]) % len(_spread)]
# Each xdist worker gets its share of the host's cores for numba's parallel code (the contraction
# rounds, CPU Dijkstra): a full-size thread pool per worker oversubscribes the host many times over.
_workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
if _workers > 1 and "NUMBA_NUM_THREADS" not in os.environ:
    os.environ["NUMBA_NUM_THREADS"] = str(max(2, (os.cpu_count() or 1) // _workers))


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped without one)")


def pytest_collection_modifyitems(config, items):
    from apsp_kernels import gpu
    if gpu.available():
        return
    skip = pytest.mark.skip(reason="no CUDA device: GPU test skipped (run `make test-gpu` on a GPU host)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
