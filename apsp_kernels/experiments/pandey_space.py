"""pandey's space (:mod:`apsp_kernels.experiments.pandey`): the methods it times, the thresholds,
the oracle's rows, the project's peak reference, the paper's Table 1 devices and the input graph."""
from __future__ import annotations

import functools

from .. import generators

PAPER = "pandey"
GPU_METHODS = ("rkleene", "rkleene_launches", "rkleene_tiled", "fw_parallel")
SERIAL_METHODS = ("rkleene_serial", "fw_serial")
PRODUCT_METHODS = ("minplus_blocked", "minplus_naive_tiled")
THRESHOLDS = (8, 16, 32, 64, 128)
FULL_ROWS_MAX_N = 1024    # oracle on every row up to here (~4 s at n = 1024, once per graph)
SAMPLED_ROWS = 8          # oracle rows above it (Dijkstra on n^2 arcs per row)
PEAK_REFERENCE_TOPS = 20.0  # H100 int32 DPX min-plus peak measured by the project lead (T/s)
TABLE1_DEVICES = {"amd_hd6450": "AMD HD 6450", "nvidia_gt630m": "NVIDIA GT 630M",
                  "amd_hd6850": "AMD HD 6850", "intel_i3_opencl": "Intel i3 (OpenCL)"}


@functools.lru_cache(maxsize=12)
def graph(n: int, seed: int = 0):
    """The paper's input: dense random digraph, int32 weights uniform in [1, 10]."""
    return generators.dense_random(n, w_low=1, w_high=10, seed=seed)

