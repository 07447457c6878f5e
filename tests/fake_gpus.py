"""A Dask cluster shaped like dask-cuda's LocalCUDACluster, for CPU-only tests: one worker
process per (fake) GPU id, each seeing its own id first in CUDA_VISIBLE_DEVICES. Dask's NVML
monitor is off (in the config each worker starts with, which overrides its environment): on a
GPU host it would look the fake ids up and fail to start the workers."""
import contextlib

import dask

from apsp_kernels import multi_gpu


@contextlib.contextmanager
def fake_gpu_client(gpus):
    from distributed import Client, Nanny, Scheduler, SpecCluster

    workers = {i: {"cls": Nanny, "options": {
        "nthreads": 1, "resources": {multi_gpu.GPU_RESOURCE: 1},
        "env": {"CUDA_VISIBLE_DEVICES": ",".join(gpus[i:] + gpus[:i])}}} for i in range(len(gpus))}
    scheduler = {"cls": Scheduler, "options": {"dashboard": False}}
    with dask.config.set({"distributed.diagnostics.nvml": False}), \
            SpecCluster(workers=workers, scheduler=scheduler) as cluster, \
            Client(cluster, set_as_default=False) as client:
        yield client
