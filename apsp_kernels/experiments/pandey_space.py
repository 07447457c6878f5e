"""pandey's space (:mod:`apsp_kernels.experiments.pandey`): the methods it times, the thresholds,
the oracle's rows, the project's peak reference, the paper's Table 1 devices and the input graph."""
from __future__ import annotations

import functools

from .. import generators
from ..profiles import choose

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


def config(profile: str) -> dict:
    """Sizes and repeats per profile (smoke: CPU seconds; default: <= 2 min on one H100)."""
    pow2 = lambda lo, hi: tuple(2 ** e for e in range(lo, hi + 1))  # noqa: E731
    return {
        "profile": profile,
        "seed": 0,
        "sizes": choose(profile, smoke=(16, 33, 64), default=pow2(6, 12), paper=pow2(6, 14)),
        "serial_max_n": choose(profile, smoke=33, default=1024, paper=4096),
        "fw_max_n": choose(profile, smoke=64, default=4096, paper=16384),
        "tiled_max_n": choose(profile, smoke=64, default=4096, paper=8192),
        "certify_max_n": choose(profile, smoke=64, default=4096, paper=4096),
        "certify_all_methods_max_n": choose(profile, smoke=64, default=2048, paper=4096),
        "thresholds": THRESHOLDS,
        "threshold_sizes": choose(profile, smoke=(64,), default=(512, 4096), paper=(512, 4096, 8192)),
        "product_sizes": choose(profile, smoke=(33,), default=(2048, 4096), paper=(2048, 4096, 8192)),
        "inplace_n": choose(profile, smoke=64, default=4096, paper=8192),
        "gpu_repeats": choose(profile, smoke=1, default=3, paper=5),
        "serial_repeats": choose(profile, smoke=1, default=1, paper=1),
        "peak_reference_tops": PEAK_REFERENCE_TOPS,
    }
