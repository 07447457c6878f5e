"""What the host offers: its available memory and the cores this process may use, and numba's
thread count for a block of code."""
from __future__ import annotations

import contextlib
import os
from pathlib import Path


def host_available_bytes() -> int | None:
    """Available host memory (psutil, else /proc/meminfo MemAvailable); None if unknown."""
    try:
        import psutil
        return int(psutil.virtual_memory().available)
    except ImportError:
        pass
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def usable_cores() -> int:
    """CPUs this process may run on: its affinity mask, lowered by a cgroup CPU quota if any."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, -(-int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return cores


def max_threads() -> int:
    """Threads for "every core": the usable cores, at most NUMBA_NUM_THREADS.

    More threads than cores would make every one of the N barriers of a run wait for a
    descheduled thread.
    """
    import numba
    return max(1, min(int(numba.config.NUMBA_NUM_THREADS), usable_cores()))


@contextlib.contextmanager
def numba_threads(k: int):
    """Run numba parallel regions with ``k`` threads inside the block."""
    import numba
    old = numba.get_num_threads()
    numba.set_num_threads(k)
    try:
        yield
    finally:
        numba.set_num_threads(old)
