"""``njit`` whose on-disk cache (``cache=True``) is safe when several processes fill it at once.

numba's cache keeps one index per function (signature -> data file) and rewrites it unlocked:
two processes that compile different signatures of one function at the same time (pytest-xdist
workers, Dask workers on a fresh machine) can leave the index naming the other signature's
machine code, which a later process loads and runs (seen as "LLVM ERROR: Symbol not found:
allocate_sched" and worker crashes). Here each load and save of a cache entry holds an exclusive
``fcntl`` lock on a file in the cache folder, so an index and its data are read and written whole.
"""
from __future__ import annotations

import contextlib
import fcntl
import os

import numba
from numba.core.caching import FunctionCache

LOCK_NAME = "apsp_kernels-numba-cache.lock"


class LockedFunctionCache(FunctionCache):
    """numba's FunctionCache with each overload's load and save under the cache folder's lock."""

    @contextlib.contextmanager
    def _locked(self):
        self._impl.locator.ensure_cache_path()
        with open(os.path.join(self._cache_path, LOCK_NAME), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def load_overload(self, sig, target_context):
        with self._locked():
            return super().load_overload(sig, target_context)

    def save_overload(self, sig, data):
        with self._locked():
            super().save_overload(sig, data)


def njit(*args, **options):
    """``numba.njit`` with the same arguments; ``cache=True`` uses :class:`LockedFunctionCache`."""
    cache = options.pop("cache", False)

    def decorate(func):
        dispatcher = numba.njit(**options)(func)
        if cache:
            dispatcher._cache = LockedFunctionCache(dispatcher.py_func)
        return dispatcher

    if args and callable(args[0]):
        return decorate(args[0])
    return decorate
