"""Bulk APSP instances across the workers (Takafuji et al. Sec. V, Table II, past one GPU).

``m`` random k-out-regular instances of ``n`` vertices are numbered 0..m-1; instance i is drawn
from (seed, i) alone (``generators.k_regular_arcs_of``), so it is the same whatever the split and
on a GPU or a CPU worker. The instances go to the workers in shares (tasks, whole chunks of
``CHUNK``); each worker makes its share where it solves it (a GPU worker on its GPU), runs the bulk
method on it (GPU: ``takafuji:bulk_*``; CPU workers: SciPy's Floyd-Warshall per instance) and
returns per-instance summaries (reachable pairs, largest distance) with a sample of instances
checked against the oracle, not the m * n^2 distances.
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .. import gpu
from ..errors import InputError
from ..generators import dense_from_arcs, k_regular_arcs_of
from . import cluster
from .blocks import block_size_of

CHUNK = 64
SHARE_OF_FREE = 0.85  # of a worker's free GPU memory; the rest: making the arcs (~200 B per vertex), the flags
METHODS = ("bulk_single", "bulk_multi")


def share_bytes(instances: int, n: int) -> int:
    """Device bytes of a share: input and working (m, P, P) float32 arrays."""
    from ..blocked_fw.task_schedule import padded_size
    P = padded_size(n)
    return 2 * instances * P * P * 4


def run_share(first_chunk: int, chunks: int, m: int, n: int, k: int, seed: int, method: str,
              verify: int) -> dict:
    """Instances of chunks [first_chunk, first_chunk + chunks) that are < m, on this worker."""
    started = time.perf_counter()
    on_gpu = gpu.available()
    xp = gpu.cupy() if on_gpu else np
    first = first_chunk * CHUNK
    count = min(m - first, chunks * CHUNK)
    targets, weights = k_regular_arcs_of(first, count, n, k, seed, xp=xp)
    if on_gpu:
        xp.cuda.get_current_stream().synchronize()
    made = time.perf_counter() - started
    rng = np.random.default_rng([seed, first_chunk, 1])
    checked = set(rng.choice(count, size=min(verify, count), replace=False).tolist())
    phases = {"make_arcs": made}
    if on_gpu:
        rows, kernel_ms = _gpu_share(targets, weights, n, method, checked, phases)
    else:
        rows, kernel_ms = _cpu_share(targets, weights, n, checked)
    for r in rows:
        r["instance"] += first
    return {"rows": rows, "kernel_ms": kernel_ms, "seconds": time.perf_counter() - started,
            "phases": phases, "instances": count, "on_gpu": on_gpu}


def _summary(i: int, d, n: int) -> dict:
    finite = np.isfinite(d[:n, :n])
    return {"instance": i, "reachable_pairs": int(finite.sum()),
            "max_distance": float(d[:n, :n][finite].max())}


def _gpu_share(targets, weights, n, method, checked, phases):
    """The share on this worker's GPU; ``phases`` gets seconds per step and the memory the
    share found (device free, CuPy pool held) before it started."""
    from .. import registry
    from ..blocked_fw.bulk import instance_oracle
    from ..oracle import compare
    from ..blocked_fw.task_schedule import padded_size
    cp = gpu.cupy()
    pool = cp.get_default_memory_pool()
    phases.update(device_free_before=cp.cuda.runtime.memGetInfo()[0], pool_held_before=pool.total_bytes())
    clock = time.perf_counter()

    def lap(name):
        nonlocal clock
        cp.cuda.get_current_stream().synchronize()
        phases[name], clock = time.perf_counter() - clock, time.perf_counter()

    P = padded_size(n)
    dense = dense_from_arcs(targets, weights, padded_n=P, xp=cp)
    solver = registry.get("takafuji", method).make(dense, n=n)
    gpu.require_memory(solver.bytes_needed(), f"{len(targets)} bulk instances of n={n}")
    lap("dense")
    solver.setup()
    lap("setup")
    solver.reset()
    lap("reset")
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    solver.compute()
    stop.record()
    stop.synchronize()
    kernel_ms = cp.cuda.get_elapsed_time(start, stop)
    lap("kernel")
    d = solver.distances()[:, :n, :n]
    reach, biggest = np.zeros(len(targets), np.int64), np.zeros(len(targets))
    for lo in range(0, len(targets), CHUNK):  # a chunk at a time: no temporary of the share's size
        part = d[lo:lo + CHUNK]
        finite = cp.isfinite(part)
        reach[lo:lo + CHUNK] = finite.sum(axis=(1, 2)).get()
        biggest[lo:lo + CHUNK] = cp.where(finite, part, 0).max(axis=(1, 2)).get()
    rows = [{"instance": i, "reachable_pairs": int(reach[i]), "max_distance": float(biggest[i])}
            for i in range(len(targets))]
    lap("summaries")
    for i in checked:
        want = instance_oracle(cp.asnumpy(dense[i]), n)
        ok, err = compare(cp.asnumpy(d[i]), want, True)
        rows[i].update(checked=True, verified=bool(ok), max_error=float(err))
    lap("check")
    del dense, solver, d
    return rows, kernel_ms


def _cpu_share(targets, weights, n, checked):
    """The same blocked FW on the host (Takafuji Algorithm 2 with numpy), instance by instance."""
    from ..blocked_fw.bulk import instance_oracle
    from ..blocked_fw.task_schedule import blocked_fw_numpy, padded_size
    from ..oracle import compare
    rows, started = [], time.perf_counter()
    for i in range(len(targets)):
        d = dense_from_arcs(targets[i:i + 1], weights[i:i + 1], padded_n=padded_size(n))[0]
        dense = d[:n, :n].copy()
        blocked_fw_numpy(d)
        row = _summary(i, d, n)
        if i in checked:
            ok, err = compare(d[:n, :n], instance_oracle(dense, n), True)
            row.update(checked=True, verified=bool(ok), max_error=float(err))
        rows.append(row)
    return rows, (time.perf_counter() - started) * 1e3


def warm_up(client, chunks: int, m: int, n: int, k: int, seed: int, method: str) -> list[dict]:
    """The first ``chunks`` chunks of the ``m`` instances (the timed tasks' size) on every worker,
    untimed, so that the timed run starts with compiled kernels and a memory pool that has held a
    share. Returns each worker's share seconds and steps (a GPU's first share can take seconds
    longer)."""
    workers = list(client.scheduler_info()["workers"])
    if not workers:
        cluster.require_workers(client)
    runs = client.gather([client.submit(run_share, 0, chunks, m, n, k, seed, method, 0,
                                        workers=[w], allow_other_workers=False, pure=False)
                          for w in workers])
    return [{"seconds": r["seconds"], **r["phases"]} for r in runs]


def plan_shares(m: int, instances_per_task: int) -> list[tuple[int, int]]:
    """(first_chunk, chunks) per task covering instances 0..m-1."""
    per = max(1, -(-instances_per_task // CHUNK))
    total = -(-m // CHUNK)
    return [(c, min(per, total - c)) for c in range(0, total, per)]


def bulk_instances(client, m: int, n: int = 1024, *, k: int = 4, seed: int = 0,
                   method: str = "bulk_single", instances_per_task=None, verify_per_task: int = 1,
                   warm: bool = False, progress: bool = True) -> dict:
    """Run ``m`` instances of ``n`` vertices across ``client``'s workers.

    ``instances_per_task`` defaults to an equal share per worker, lowered until a share fits
    the smallest worker's free GPU memory. Returns ``{"instances": DataFrame, "seconds",
    "kernel_ms", "task_seconds", "task_phases", "tasks", "workers", "verified"}`` (per task:
    kernel time; the task's wall time with making, summarising and checking its instances; and
    those steps' seconds, with the GPU memory the task found free and pooled when it started).
    ``warm``: first run one untimed share of the task size on every worker (:func:`warm_up`);
    its seconds and steps per worker come back as ``"warm_up"``.
    """
    m = block_size_of(m, "m (instances)")
    n = block_size_of(n, "n")
    if n < k + 1:
        raise InputError(f"bulk_instances: n={n} must exceed the out-degree k={k}")
    if method not in METHODS:
        raise InputError(f"bulk_instances: method must be one of {METHODS}, got {method!r}")
    from .tasks import worker_facts
    facts = client.run(worker_facts)
    if not facts:
        cluster.require_workers(client)
    on_gpu = all(f["on_gpu"] for f in facts.values())
    per = block_size_of(instances_per_task or -(-m // len(facts)), "instances_per_task")
    if on_gpu:
        free = min(f["gpu_free"] for f in facts.values())
        fit = int(SHARE_OF_FREE * free // share_bytes(1, n)) // CHUNK * CHUNK
        if fit < 1:
            raise InputError(f"bulk_instances: one chunk of {CHUNK} instances of n={n} needs "
                             f"{share_bytes(CHUNK, n) / 2**30:.1f} GiB, more than a worker's free "
                             f"{free / 2**30:.1f} GiB; lower n")
        if instances_per_task and per > fit:
            raise InputError(f"bulk_instances: {per} instances per task need "
                             f"{share_bytes(per, n) / 2**30:.1f} GiB of GPU memory, but a worker has "
                             f"{free / 2**30:.1f} GiB free; at most {fit} fit")
        rounds = 1
        while per > fit:  # equal shares, the same number per worker
            rounds += 1
            per = -(-m // (len(facts) * rounds))
    shares = plan_shares(m, per)
    warmed = warm_up(client, shares[0][1], m, n, k, seed, method) if warm else []
    started = time.perf_counter()
    futures = [client.submit(run_share, c, count, m, n, k, seed, method, verify_per_task, pure=False)
               for c, count in shares]
    from distributed import as_completed
    from tqdm.auto import tqdm
    rows, kernel_ms, task_seconds, task_phases = [], [], [], []
    with tqdm(total=m, unit="instance", desc=f"bulk m={m} n={n}", disable=not progress) as bar:
        for future in as_completed(futures):
            res = future.result()
            rows.extend(res["rows"])
            kernel_ms.append(res["kernel_ms"])
            task_seconds.append(res["seconds"])
            task_phases.append(res["phases"])
            bar.update(res["instances"])
    seconds = time.perf_counter() - started
    frame = pd.DataFrame(rows).sort_values("instance").reset_index(drop=True)
    if "checked" not in frame:
        frame["checked"] = False
    frame["checked"] = frame["checked"].fillna(False).astype(bool)
    checked = frame[frame["checked"]]
    return {"instances": frame, "seconds": seconds, "kernel_ms": kernel_ms,
            "task_seconds": task_seconds, "task_phases": task_phases, "warm_up": warmed, "tasks": len(shares),
            "workers": len(facts), "on_gpu": on_gpu, "method": method if on_gpu else "scipy:floyd_warshall",
            "verified": bool(len(checked)) and bool(checked["verified"].all()),
            "verify_scope": f"{len(checked)} of {m} instances (seeded), all entries"}
