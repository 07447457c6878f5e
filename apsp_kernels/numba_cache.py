"""``njit`` whose on-disk cache (``cache=True``) is safe to share between processes.

Two faults of numba's cache (seen as worker aborts, "LLVM ERROR: Symbol not found:
allocate_sched", and segmentation faults on a machine whose cache was filled by several processes):

* A function compiled while a ``parallel=True`` function it calls came from the cache is saved
  without the note that loading it must first start numba's threading layer; a later process
  that loads it before anything else starts that layer jumps to unresolved symbols. Here every
  load from the cache starts the threading layer first (``numba.get_num_threads()``; once per
  process, after which it costs nothing).
* The index of a function's cached signatures is rewritten unlocked: two processes saving
  different signatures at once can leave it naming another signature's machine code. Here each
  load and save holds an exclusive ``fcntl`` lock on a file in the cache folder.

Where the cache lives is numba's choice: ``__pycache__`` beside the sources when that folder is
writable, else a per-user folder (``~/.cache/numba``: a wheel installed into a read-only
site-packages), or ``NUMBA_CACHE_DIR`` when set. :func:`is_cached` and :func:`cache_path` tell a
caller, before a first call, whether it will compile and where the result goes.
"""
from __future__ import annotations

import contextlib
import fcntl
import os

import numba
from numba.core.caching import FunctionCache

LOCK_NAME = "apsp_kernels-numba-cache.lock"


class OneTimeCompile(UserWarning):
    """A one-time compilation is about to start (numba or NVRTC), with its expected seconds."""


class SharedFunctionCache(FunctionCache):
    """numba's FunctionCache with each overload's load and save under the cache folder's lock,
    and numba's threading layer started before any load."""

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
        numba.get_num_threads()  # starts the threading layer that cached parallel code links against
        with self._locked():
            return super().load_overload(sig, target_context)

    def save_overload(self, sig, data):
        with self._locked():
            super().save_overload(sig, data)


def njit(*args, **options):
    """``numba.njit`` used bare or with options (compiled lazily, on first call: no signatures);
    ``cache=True`` uses :class:`SharedFunctionCache`."""
    if args and not callable(args[0]):
        raise TypeError(f"apsp_kernels.numba_cache.njit takes no signature (given {args[0]!r}): it compiles on "
                        "first call; give the options only")
    cache = options.pop("cache", False)

    def decorate(func):
        dispatcher = numba.njit(**options)(func)
        if cache:
            dispatcher._cache = SharedFunctionCache(dispatcher.py_func)
        return dispatcher

    return decorate(args[0]) if args else decorate


def is_cached(dispatcher, argtypes) -> bool:
    """Whether calling ``dispatcher`` with arguments of numba types ``argtypes`` needs no compile:
    compiled in this process already, or its machine code is in the on-disk cache for this source,
    this machine's CPU and this numba (numba's own index key; the index is read, nothing is loaded)."""
    sig = tuple(argtypes)
    if sig in dispatcher.overloads:
        return True
    cache = dispatcher._cache
    if not isinstance(cache, FunctionCache):  # cache=False: every process compiles
        return False
    key = cache._index_key(sig, dispatcher.targetctx.codegen())
    return key in cache._cache_file._load_index()


def cache_path(dispatcher) -> str:
    """The folder numba keeps ``dispatcher``'s compiled code in ("" when it is not cached)."""
    cache = dispatcher._cache
    return cache.cache_path if isinstance(cache, FunctionCache) else ""
