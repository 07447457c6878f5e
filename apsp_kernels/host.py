"""What the host offers: its available memory."""
from __future__ import annotations

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
