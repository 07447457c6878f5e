import os

import numpy as np
import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


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
