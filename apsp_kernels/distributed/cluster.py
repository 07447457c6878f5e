"""Dask clusters for the all-sources runs: one worker per GPU (dask-cuda), or CPU processes.

``connect(address)`` joins a running scheduler (a multi-host cluster); ``local(gpus=...)``
starts a LocalCUDACluster on this host, ``local(cpu_workers=...)`` a LocalCluster of worker
processes with nannies (CPU-only hosts, CI). dask-cuda is imported only when GPUs are asked
for, so this module imports on hosts without CUDA.
"""
from __future__ import annotations

import logging
import os

from .. import gpu
from ..errors import InputError
from ..gpu import visible_gpus


def dask_cuda_available() -> bool:
    try:
        import dask_cuda  # noqa: F401
    except Exception:  # ImportError, or a CUDA binding that fails to load
        return False
    return True


def local(gpus=None, cpu_workers: int | None = None, threads_per_worker: int = 1,
          set_as_default: bool = True, **kwargs):
    """A Client on a new local cluster: ``gpus`` -> LocalCUDACluster, one worker per GPU (a count
    takes the first of the GPUs this process may use, CUDA_VISIBLE_DEVICES respected; or a list /
    "0,1" of them), else ``cpu_workers`` worker processes (default: one per core) with nannies
    (``processes=False``: threads of this process, which start at once); ``kwargs`` go to the
    cluster. :func:`close` stops both. Its scheduler keeps every copy of a task's result: Dask's
    memory manager would drop the copies of the shared graph that no queued block needs, so that
    each run would start with all but one worker fetching it again (1.5-2 s at 16-24M vertices).
    The client fetches results straight from the workers (:data:`DIRECT`)."""
    import dask
    from distributed import Client
    kwargs.setdefault("dashboard_address", ":0")  # a free port: another cluster on this host may hold 8787
    with dask.config.set({MEMORY_MANAGER: False}):
        return Client(_new_cluster(gpus, cpu_workers, threads_per_worker, kwargs), set_as_default=set_as_default,
                      direct_to_workers=DIRECT)


# results come straight from the workers, not relayed by the scheduler: one hop instead of two
# (all_sources fetches its blocks' results so whatever the client)
DIRECT = True


MEMORY_MANAGER = "distributed.scheduler.active-memory-manager.start"  # off: the graph stays on every worker


def _new_cluster(gpus, cpu_workers, threads_per_worker, kwargs):
    from distributed import LocalCluster
    if gpus is not None:
        if not dask_cuda_available():
            raise InputError("local(gpus=...) needs dask-cuda and a CUDA device; install "
                             "'.[distributed-gpu]' on a GPU host, or pass cpu_workers= instead")
        from dask_cuda import LocalCUDACluster
        gpu.free_pool()  # what this process's CuPy pool caches would shrink the blocks of a worker beside it
        return LocalCUDACluster(CUDA_VISIBLE_DEVICES=gpu_list(gpus), threads_per_worker=threads_per_worker, **kwargs)
    workers = cpu_workers or os.cpu_count() or 1
    if int(workers) < 1:
        raise InputError(f"cpu_workers must be >= 1, got {cpu_workers}")
    if kwargs.get("processes", True):  # CPU workers, even on a GPU host: SciPy's block solver
        kwargs["env"] = {"APSP_DISABLE_GPU": "1", **kwargs.get("env", {})}
    kwargs.setdefault("processes", True)
    return LocalCluster(n_workers=int(workers), threads_per_worker=threads_per_worker, **kwargs)


def gpu_list(gpus) -> list[str]:
    """``gpus`` as CUDA_VISIBLE_DEVICES entries: a count takes the first ones this process may use."""
    if isinstance(gpus, str):
        gpus = [g.strip() for g in gpus.split(",") if g.strip()]
    if isinstance(gpus, (list, tuple)):
        return [str(g) for g in gpus]
    visible = visible_gpus()
    if not 1 <= int(gpus) <= len(visible):
        raise InputError(f"gpus={gpus}: this process may use {len(visible)} GPU(s) "
                         f"({','.join(visible) or 'none'}); ask for 1..{len(visible)}")
    return visible[:int(gpus)]


def close(client) -> None:
    """Close a Client from :func:`local` and its cluster (workers stop; nothing is left running).

    The workers are told first that the scheduler is going: closing a LocalCluster of many
    workers otherwise makes some of them log "Failed to communicate with scheduler during
    heartbeat" with two tracebacks each (dask/distributed#7105), noise that reads like a failure
    at the end of a run that went well."""
    own = getattr(client, "cluster", None)
    if own is not None:
        try:
            client.run(_expect_scheduler_to_go)
        except Exception:  # a worker already gone: nothing to quiet there
            pass
    client.close()
    if own is not None:
        own.close()


class _SchedulerGoing(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "during heartbeat" not in record.getMessage()


def _expect_scheduler_to_go() -> None:
    log = logging.getLogger("distributed.worker")
    if not any(isinstance(f, _SchedulerGoing) for f in log.filters):  # once (workers in this process)
        log.addFilter(_SchedulerGoing())


def connect(address: str):
    """A Client on a running scheduler (``tcp://host:8786`` or a scheduler file path), which fetches
    results straight from the workers (:data:`DIRECT`: this host must reach them, as
    ``all_sources`` needs with any client)."""
    from distributed import Client
    if str(address).endswith(".json"):
        return Client(scheduler_file=str(address), direct_to_workers=DIRECT)
    return Client(address, direct_to_workers=DIRECT)


def workers(client) -> dict:
    """{address: worker info} of the workers the scheduler knows now."""
    return dict(client.scheduler_info(n_workers=-1)["workers"])


def require_workers(client) -> dict:
    found = workers(client)
    if not found:
        raise InputError("the Dask cluster has no workers; start some (dask-cuda-worker ADDRESS) "
                         "or use cluster.local()")
    return found


def dashboard(client) -> str:
    """The dashboard address, printed so that a person can watch the run."""
    link = getattr(client, "dashboard_link", "") or ""
    print(f"Dask dashboard: {link or 'not available'}")
    return link
