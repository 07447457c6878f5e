"""Run the notebooks on every GPU of a host at once, through Dask.

One Dask worker per GPU (dask-cuda's ``LocalCUDACluster`` gives each worker its own
``CUDA_VISIBLE_DEVICES``, which the papermill kernel inherits), one notebook per task.
Each worker holds one ``GPU`` resource and each task needs it, so two notebooks never
time kernels on the same GPU at once. Tasks go out longest first (the seconds of the
previous run), one per free worker, so that the GPUs stay busy.

Dask and dask-cuda are optional (``pip install '.[distributed-gpu]'``): they are imported
only here, only when a host has more than one GPU.
"""
from __future__ import annotations

import contextlib
import math
import os
import subprocess
from collections import deque
from collections.abc import Callable, Sequence

from . import gpu

GPU_RESOURCE = "GPU"
WORKERS_START_S = 180
INSTALL_HINT = "pip install -e '.[distributed-gpu]' to run one notebook per GPU"


def nvidia_smi_row(device: str) -> dict:
    """Host index, name and UUID of one GPU (an index or a UUID) from nvidia-smi; {} if it cannot say."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index,name,uuid", "--format=csv,noheader",
                              "-i", device], capture_output=True, text=True, timeout=15)
    except (OSError, subprocess.SubprocessError):
        return {}
    fields = [f.strip() for f in out.stdout.strip().split(",")]
    if out.returncode != 0 or len(fields) != 3:
        return {}
    return dict(zip(("index", "name", "uuid"), fields))


def gpu_identity() -> dict:
    """The GPU this process runs on (the first it sees): host index, name and UUID; {} without one."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    first = visible.split(",")[0].strip() if visible is not None else ("0" if gpu.available() else "")
    if not first:
        return {}
    row = nvidia_smi_row(first)
    name = row.get("name") or (gpu.device_info()["device"] if gpu.available() else "")
    return {"index": row.get("index", first), "name": name, "uuid": row.get("uuid", "")}


def longest_first(jobs: Sequence, seconds: Callable) -> list:
    """``jobs`` by expected seconds, longest first; a job never timed (None) counts as longest."""
    def expected(job):
        s = seconds(job)
        return math.inf if s is None else float(s)
    return sorted(jobs, key=expected, reverse=True)  # stable: ties keep their order


def why_not_parallel(gpus: Sequence[str], jobs: int) -> str:
    """Why the notebooks run one after another here; '' when they can run one per GPU."""
    if len(gpus) < 2:
        return "no CUDA GPU" if not gpus else "one GPU"
    if jobs < 2:
        return "one notebook"
    try:
        import dask_cuda  # noqa: F401
        import distributed  # noqa: F401
    except Exception as exc:  # dask-cuda also fails without cuda-python's bindings
        return f"{len(gpus)} GPUs but dask-cuda does not import ({type(exc).__name__}: {exc}); {INSTALL_HINT}"
    return ""


@contextlib.contextmanager
def local_cuda_client(gpus: Sequence[str]):
    """A Client on a LocalCUDACluster: one single-threaded worker per GPU, each with one GPU resource."""
    from .distributed import cluster

    client = cluster.local(gpus=list(gpus), resources={GPU_RESOURCE: 1}, dashboard_address=None,
                           set_as_default=False)
    try:
        yield client
    finally:
        cluster.close(client)


def first_visible_gpu() -> str:
    """What a worker's ``CUDA_VISIBLE_DEVICES`` puts first: the GPU its tasks run on."""
    return os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()


def run_on_gpus(jobs: Sequence, run_one: Callable, gpus: Sequence[str], make_client: Callable,
                on_start: Callable = lambda job, gpu_id: None,
                on_done: Callable = lambda job, result: None,
                on_error: Callable = lambda job, exc: exc) -> list:
    """``run_one(job)`` for every job on the workers of ``make_client(gpus)`` (a context manager
    yielding a Client with one worker per GPU); the results in ``jobs`` order.

    Jobs start in the order given (sort them with :func:`longest_first`), each on a free
    worker, never more at once than there are workers. ``on_start`` gets the GPU the job
    goes to. A job whose task raises (its worker died, say) gets ``on_error(job, exc)`` as
    its result; the others go on.
    """
    from distributed import as_completed

    jobs = list(jobs)
    results = [None] * len(jobs)
    with make_client(list(gpus)) as client:
        client.wait_for_workers(len(gpus), timeout=WORKERS_START_S)
        gpu_of = client.run(first_visible_gpu)  # worker address -> GPU
        pending = deque(range(len(jobs)))
        running = as_completed(loop=client.loop)
        assigned = {}  # task key -> (job index, worker address)

        def start(worker: str) -> None:
            i = pending.popleft()
            key = f"notebook-{getattr(jobs[i], 'stem', i)}-{i}"
            future = client.submit(run_one, jobs[i], key=key, pure=False, resources={GPU_RESOURCE: 1},
                                   workers=[worker], allow_other_workers=True)
            assigned[future.key] = (i, worker)
            running.add(future)
            on_start(jobs[i], gpu_of.get(worker, "?"))

        def free_worker(finished: str) -> str:
            live = sorted(client.nthreads())
            busy = {w for _, w in assigned.values()}
            if finished in live and finished not in busy:
                return finished
            return next((w for w in live if w not in busy), finished)

        for worker in sorted(gpu_of)[:len(jobs)]:
            start(worker)
        for future in running:
            i, worker = assigned.pop(future.key)
            try:
                results[i] = future.result()
            except Exception as exc:
                results[i] = on_error(jobs[i], exc)
            on_done(jobs[i], results[i])
            if pending:
                start(free_worker(worker))
    return results
