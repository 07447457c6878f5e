"""CUDA device access: detection, `.cu` module loading, memory checks, offline compile check.

Kernels live in ``.cu`` files next to their Python wrappers and include the shared
headers of ``apsp_kernels/cuda``. :func:`load_module` compiles a file with
``cupy.RawModule`` once per (file, options) and caches it. :func:`compile_all`
compiles every ``.cu`` file with NVRTC alone (no GPU needed) for CI.
"""
from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

from .errors import GPUMemoryError, NoGPUError

PACKAGE_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = PACKAGE_DIR / "cuda"
CHECK_ARCHS = ("compute_75", "compute_90")  # CUDA 13's NVRTC no longer takes compute_70
BASE_OPTIONS = ("-std=c++17", f"-I{INCLUDE_DIR}")
# Fraction of free memory an allocation may claim; the rest covers CuPy's pool and temporaries.
MEMORY_HEADROOM = 0.92


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    if os.environ.get("APSP_DISABLE_GPU"):
        return False
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def cupy():
    """The cupy module, or NoGPUError saying what to do."""
    if not available():
        raise NoGPUError("this method needs a CUDA GPU and CuPy (pip install '.[cuda13]' or "
                         "'.[cuda12]'); no CUDA device was found on this machine")
    import cupy as cp
    return cp


@functools.lru_cache(maxsize=1)
def visible_gpus() -> list[str]:
    """The GPUs this process may use, as ``CUDA_VISIBLE_DEVICES`` entries ('0', '1', ...)."""
    if not available():
        return []
    count = cupy().cuda.runtime.getDeviceCount()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return [str(i) for i in range(count)]
    return [v.strip() for v in visible.split(",") if v.strip()][:count]


def device_info() -> dict:
    """Device name, driver and CuPy version for records (CPU-only values when no GPU)."""
    import platform
    info = {"device": f"CPU only ({platform.processor() or platform.machine()})",
            "driver": "", "cupy": "", "sm_count": 0, "compute_capability": ""}
    try:
        import cupy as cp
        info["cupy"] = cp.__version__
    except Exception:
        return info
    if not available():
        return info
    props, drv = _properties(cp.cuda.Device().id)
    info.update(device=props["name"].decode(), driver=f"{drv // 1000}.{drv % 1000 // 10}",
                sm_count=props["multiProcessorCount"],
                compute_capability=f"{props['major']}.{props['minor']}",
                total_memory=props["totalGlobalMem"], l2_bytes=props["l2CacheSize"])
    return info


@functools.lru_cache(maxsize=None)
def _properties(device_id: int) -> tuple:
    """(properties, driver version) of a device, asked once: the query takes about 1 ms, and the
    kernels' launch shapes read the SM count on every call."""
    cp = cupy()
    return cp.cuda.runtime.getDeviceProperties(device_id), cp.cuda.runtime.driverGetVersion()


def max_shared_bytes() -> int:
    """Dynamic shared memory one CUDA block may opt in to on the current device."""
    return int(_properties(cupy().cuda.Device().id)[0]["sharedMemPerBlockOptin"])


def banner() -> str:
    """A visible line for notebooks: which GPU, or that GPU parts are skipped."""
    if available():
        i = device_info()
        return f"GPU: {i['device']} (cc {i['compute_capability']}, driver {i['driver']}, CuPy {i['cupy']})"
    return ("=" * 72 + "\nNO CUDA GPU FOUND: GPU methods are SKIPPED in this run. CPU baselines "
            "and the published tables\nstill render. Run on a CUDA host for the GPU columns.\n" + "=" * 72)


def free_bytes() -> int:
    """Free device memory plus what CuPy's pool holds but does not use."""
    cp = cupy()
    free, _total = cp.cuda.runtime.memGetInfo()
    pool = cp.get_default_memory_pool()
    return int(free + pool.free_bytes())


def free_pool() -> None:
    """Hand CuPy's cached blocks back to the device (between graphs: matrices of other sizes
    fragment the pool); nothing without a GPU."""
    if available():
        cupy().get_default_memory_pool().free_all_blocks()


def require_memory(nbytes: int, what: str) -> None:
    """Raise GPUMemoryError before allocating ``nbytes`` that will not fit."""
    free = free_bytes()
    if nbytes > MEMORY_HEADROOM * free:
        raise GPUMemoryError(f"{what} needs {nbytes / 2**30:.2f} GiB of GPU memory but only "
                             f"{free / 2**30:.2f} GiB is free (with {1 - MEMORY_HEADROOM:.0%} headroom); "
                             f"use a smaller graph, fewer sources per group, or a GPU with more memory")


def fits(nbytes: int) -> bool:
    """Whether ``nbytes`` would pass :func:`require_memory` (False without a GPU)."""
    return available() and nbytes <= MEMORY_HEADROOM * free_bytes()


def cu_path(module_file: str, cu_name: str) -> Path:
    """The ``.cu`` file ``cu_name`` next to the Python module ``module_file``."""
    return Path(module_file).resolve().parent / cu_name


@functools.lru_cache(maxsize=1)
def headers_digest() -> str:
    """A digest of the shared headers (``apsp_kernels/cuda/*.cuh``)."""
    digest = hashlib.sha256()
    for header in sorted(INCLUDE_DIR.glob("*.cuh")):
        digest.update(header.name.encode() + b"\0" + header.read_bytes())
    return digest.hexdigest()[:16]


def module_source(path) -> str:
    """A ``.cu`` file's text and, in a last comment, :func:`headers_digest`: CuPy's kernel cache
    keys a module on its text, not on what it includes, so a changed header compiles it again."""
    return Path(path).read_text() + f"\n// apsp_kernels headers {headers_digest()}\n"


@functools.lru_cache(maxsize=None)
def _load(path: str, options: tuple, name_expressions: tuple):
    cp = cupy()
    src = module_source(path)
    return cp.RawModule(code=src, options=BASE_OPTIONS + options,
                        name_expressions=name_expressions or None)


def load_module(path, options=(), name_expressions=()):
    """Compile (once) and return the ``cupy.RawModule`` of a ``.cu`` file.

    ``name_expressions`` lists template instantiations, e.g. ``("fw_step<int>",)``;
    fetch them with ``module.get_function("fw_step<int>")``.
    """
    return _load(str(path), tuple(options), tuple(name_expressions))


def kernel_sources() -> list[Path]:
    """Every ``.cu`` file of the package."""
    return sorted(PACKAGE_DIR.rglob("*.cu"))


def compile_source(path: Path, arch: str) -> None:
    """Compile one ``.cu`` file with NVRTC only (works without a GPU); raise with the log."""
    from cupy.cuda import nvrtc
    src = Path(path).read_text()
    prog = nvrtc.createProgram(src, Path(path).name, [], [])
    try:
        nvrtc.compileProgram(prog, list(BASE_OPTIONS) + [f"--gpu-architecture={arch}"])
    except Exception as exc:
        log = nvrtc.getProgramLog(prog)
        raise RuntimeError(f"NVRTC failed on {path} for {arch}:\n{log}") from exc
    finally:
        nvrtc.destroyProgram(prog)


def compile_all(archs=CHECK_ARCHS) -> list[str]:
    """Compile every kernel source for each arch; returns the list of failures (empty = all ok)."""
    failures = []
    for path in kernel_sources():
        for arch in archs:
            try:
                compile_source(path, arch)
            except Exception as exc:  # report every file, not only the first
                failures.append(str(exc))
    return failures


if __name__ == "__main__":
    bad = compile_all()
    print("\n".join(bad) or f"compiled {len(kernel_sources())} .cu files for {', '.join(CHECK_ARCHS)}")
    sys.exit(1 if bad else 0)
