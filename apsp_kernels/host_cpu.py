"""Host-clock measurements one at a time on a host whose GPUs run notebooks side by side.

``make reproduce`` on a multi-GPU host runs one notebook per GPU at once (:mod:`multi_gpu`);
those notebooks share the host's CPU cores, so a CPU baseline (or a host-clock timing of a
GPU call, or the oracle) in one would slow down the other's timings. The runner then names a
lock file in ``APSP_HOST_CPU_LOCK``; :func:`exclusive` holds that file locked (``fcntl.flock``)
while a host-clock timing runs, so that only one notebook process times on the host's cores at
a time. GPU kernels timed with CUDA events do not wait for it. Without the variable (one GPU,
or a library user) it does nothing.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time

ENV = "APSP_HOST_CPU_LOCK"

_held = threading.local()
_waited = 0.0  # seconds this process has spent waiting for the lock
_waited_guard = threading.Lock()


def clock_without_waits() -> float:
    """``time.perf_counter()`` less the time this process waited for the lock: a time budget read
    on it is spent on this notebook's work, not on the turns of a notebook beside it."""
    with _waited_guard:
        return time.perf_counter() - _waited


@contextlib.contextmanager
def exclusive():
    """Hold the host's CPU-timing lock (re-entrant within a thread; a no-op when none is set)."""
    global _waited
    path, depth = os.environ.get(ENV), getattr(_held, "depth", 0)
    if not path or depth:
        _held.depth = depth + 1
        try:
            yield
        finally:
            _held.depth = depth
        return
    with open(path, "a") as handle:
        asked = time.perf_counter()
        fcntl.flock(handle, fcntl.LOCK_EX)
        with _waited_guard:
            _waited += time.perf_counter() - asked
        _held.depth = 1
        try:
            yield
        finally:
            _held.depth = 0
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def shared_by_notebooks(lock_dir):
    """While the block runs, processes started from this one (Dask workers, their notebook
    kernels) share a lock file in ``lock_dir``; the variable and the file go afterwards. A lock
    already named in ``APSP_HOST_CPU_LOCK`` is kept: runs started side by side (say, two
    ``make reproduce`` on different GPUs of one host) then take turns with each other too."""
    before = os.environ.get(ENV)
    if before:
        yield before
        return
    path = os.path.join(os.fspath(lock_dir), f"host_cpu_{os.getpid()}.lock")
    os.environ[ENV] = path
    try:
        yield path
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
