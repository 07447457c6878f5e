"""One bulk run of takafuji's Table II (:mod:`apsp_kernels.experiments.takafuji`): m instances
timed together (``timing.time_kernel``) and a few of them checked against SciPy."""
from __future__ import annotations

import json

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from .. import gpu, timing
from ..blocked_fw.bulk import BulkBlockedFW, verify_instances
from ..errors import GPUMemoryError, NoGPUError
from ..records import Record
from .takafuji_space import DEGREE, PAPER


def arcs_oracle(targets: np.ndarray, weights: np.ndarray, i: int) -> np.ndarray:
    """All-pairs distances of instance i of k_regular_arcs output (SciPy Dijkstra)."""
    _, n, k = targets.shape
    src = np.repeat(np.arange(n), k)
    g = sp.csr_matrix((weights[i].ravel().astype(np.float64), (src, targets[i].ravel())), shape=(n, n))
    return csgraph.dijkstra(g, directed=True)


def run_bulk(kind: str, batch, n: int, *, threads: int, repeats: int, warmup: int = 1,
             instances_checked=None, oracle_of=None, name: str = "", profile: str = "",
             experiment: str = "table2", blocks=None) -> Record:
    """Time one bulk run (device events around compute, untimed reset) and verify instances."""
    m = int(batch.shape[0]) if batch is not None else 0
    rec = Record(paper=PAPER, experiment=experiment, method=f"bulk_{kind}", graph=name, n=n,
                 m=DEGREE * n, params={"instances": m, "threads": threads, "blocks": blocks},
                 repeats=repeats, timing_scope="kernel", profile=profile)
    if not gpu.available():
        rec.skipped = "no CUDA GPU on this machine"
        return rec
    try:
        solver = BulkBlockedFW(batch, kind=kind, threads=threads, blocks=blocks, n=n)
        gpu.require_memory(solver.bytes_needed(), f"bulk_{kind} on {name}")
        solver.setup()
        times = timing.time_kernel(solver, repeats, warmup)
    except (GPUMemoryError, NoGPUError) as exc:
        rec.skipped = str(exc)
        return rec
    rec.time_ms_median, rec.time_ms_min = float(np.median(times)), float(np.min(times))
    rec.stats = json.dumps(solver.stats, sort_keys=True, default=str)
    result = verify_instances(solver, instances_checked, oracle_of)
    rec.verified, rec.max_error, rec.verify_scope = (result["verified"], result["max_error"],
                                                      result["verify_scope"])
    del solver
    return rec


def skip_record(kind, n, m, cfg, reason) -> Record:
    return Record(paper=PAPER, experiment="table2", method=f"bulk_{kind}", graph=f"kregular-n{n}-x{m}",
                  n=n, m=DEGREE * n, params={"instances": m, "threads": cfg["table2_threads"][kind]},
                  timing_scope="kernel", profile=cfg["profile"], skipped=reason)

