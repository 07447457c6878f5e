"""pandey's untimed GPU checks (:mod:`apsp_kernels.experiments.pandey`): every entry of the
results certified, the measured (min,+) peak and R-Kleene's device memory while it runs."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import gpu, registry, report
from ..errors import GPUMemoryError, NoGPUError
from .pandey_space import PAPER, graph


def full_checks(cfg: dict) -> pd.DataFrame:
    """All n^2 entries of the GPU results, for every n <= certify_max_n (Bellman certificate)."""
    from ..minplus.cpu import certify
    rows = []
    for n in report.progress([n for n in cfg["sizes"] if n <= cfg["certify_max_n"]], desc="full checks"):
        g = graph(n, cfg["seed"])
        # rkleene_launches runs the very kernels of rkleene; checking rkleene covers it
        names = ("rkleene", "rkleene_tiled", "fw_parallel") if n <= cfg["certify_all_methods_max_n"] \
            else ("rkleene",)
        for name in names:
            row = {"n": n, "method": name}
            if not gpu.available():
                rows.append({**row, "ok": None, "bad_entries": None, "scope": "", "skipped": "no CUDA GPU"})
                continue
            try:
                res = certify(registry.get(PAPER, name).make(g).solve_once(f"{name} at n={n}").dist,
                              g.dense())
            except (GPUMemoryError, NoGPUError) as exc:
                rows.append({**row, "ok": None, "bad_entries": None, "scope": "", "skipped": str(exc)})
                continue
            rows.append({**row, **res, "skipped": ""})
    return pd.DataFrame(rows, columns=["n", "method", "ok", "bad_entries", "scope", "skipped"])


def peak(cfg: dict) -> dict:
    """Measured (min,+) peak of this GPU (int32 add_min chains; DPX on sm_90); {} without GPU."""
    if not gpu.available():
        return {}
    from ..minplus.product import measure_peak
    return measure_peak(np.int32)


def malloc_counter():
    """A CuPy memory hook counting every allocation (pool malloc and raw device alloc)."""
    cp = gpu.cupy()

    class MallocCounter(cp.cuda.MemoryHook):
        name = "pandey_malloc_counter"

        def __init__(self):
            self.count = 0

        def malloc_preprocess(self, **kwargs):
            self.count += 1

        def alloc_preprocess(self, **kwargs):
            self.count += 1

    return MallocCounter()


def inplace_check(n: int, seed: int = 0, threshold: int = 16) -> dict:
    """Device memory of R-Kleene on one n x n matrix: pool bytes before/after and allocations
    during the run (the paper's in-place claim: no memory beyond the matrix). {} without GPU."""
    if not gpu.available():
        return {}
    cp = gpu.cupy()
    from ..minplus.rkleene import build_launcher
    g = graph(n, seed)
    pool = cp.get_default_memory_pool()
    d = g.dense_gpu()
    cp.cuda.Device().synchronize()
    launcher = build_launcher(d, threshold, "blocked")
    counter = malloc_counter()
    used0, total0 = pool.used_bytes(), pool.total_bytes()
    with counter:
        launcher.issue()
        cp.cuda.Device().synchronize()
    used1, total1 = pool.used_bytes(), pool.total_bytes()
    out = {"n": n, "matrix_bytes": g.dense_nbytes(), "pool_used_before": used0,
           "pool_used_after": used1, "pool_total_before": total0, "pool_total_after": total1,
           "allocations_during_run": counter.count,
           "launches": launcher.stats["launches"]}
    del d, launcher
    return out


