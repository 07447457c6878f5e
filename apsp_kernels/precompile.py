"""Compile ahead what a fresh install's first road-network call would compile:
``python -m apsp_kernels.precompile`` (``make setup`` and ``make reproduce`` run it).

The first ``shortest_path(A, method="phast")`` or ``distributed.all_sources`` on a road network
compiles, once per machine:

* the host contraction with numba (:func:`.sssp_hierarchy.contraction.compile_for`, per weight
  dtype), and the client's add of the workers' per-vertex sums, into numba's on-disk cache
  (:mod:`.numba_cache` says where);
* PHAST's and the all-sources reductions' CUDA kernels with NVRTC, and CuPy's own kernels on that
  path, into CuPy's kernel cache (``CUPY_CACHE_DIR``, default ``~/.cupy/kernel_cache``), for this
  machine's GPU: run here as a small road-like graph through both calls, checked against SciPy.

Each weight dtype compiles in its own process (numba compiles on one core) while this process
compiles the CUDA modules; the GPU part needs a GPU and is skipped, saying so, without one.
Steps already in the caches take about a second.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import nullcontext
from multiprocessing import get_context

import numpy as np

DTYPES = ("int32", "float64", "float32")  # integer weights, float weights (default), float32 (opt-in)
CUDA_MODULES = ("sssp_hierarchy/phast_batched.cu", "sssp_hierarchy/phast.cu", "distributed/reductions.cu",
                "distributed/sweep_reductions.cu")
CHECK_GRAPH = {"n": 400, "m": 1120}  # the small road-like graph the GPU part runs
CHECK_SOURCES = 64


def numba_step(dtypes: tuple) -> list[dict]:
    """Compile the contraction for each of ``dtypes`` in turn (in a worker process): one dict each
    with its seconds and whether it was cached already."""
    from .sssp_hierarchy import contraction
    out = []
    for dtype in dtypes:
        warm = contraction.compiled_on_disk(dtype)
        start, cpu = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():  # the precompile's own bar says what runs
            warnings.simplefilter("ignore")
            contraction.compile_for(dtype)
        out.append({"step": f"numba contraction, {dtype} weights", "seconds": time.perf_counter() - start,
                    "cpu_seconds": time.process_time() - cpu, "was_cached": warm})
    return out


def numba_groups(dtypes) -> list[tuple]:
    """``dtypes`` grouped by the contraction's exact arc weights (int64 for integer weights,
    float64 for float ones): a group compiles in one process, its later dtypes reusing most of
    the first one's functions; groups compile side by side."""
    integer = tuple(d for d in dtypes if np.issubdtype(np.dtype(d), np.integer))
    floats = tuple(sorted((d for d in dtypes if d not in integer), key=lambda d: -np.dtype(d).itemsize))
    return [g for g in (integer, floats) if g]


def cache_folders() -> dict:
    """Where the compiled code goes: numba's folder for the contraction, CuPy's kernel cache."""
    from .numba_cache import cache_path
    from .sssp_hierarchy.contraction import entry_points
    cupy_dir = os.environ.get("CUPY_CACHE_DIR", os.path.expanduser("~/.cupy/kernel_cache"))
    return {"numba": cache_path(entry_points(np.int32)[0][0]), "cupy": cupy_dir}


def sums_add_step() -> dict:
    """Compile (or load from numba's cache) the client's add of the workers' per-vertex sums
    (:func:`.distributed.sums_wire.load_add`)."""
    from .distributed import sums_wire
    start = time.perf_counter()
    sums_wire.load_add()
    return {"step": "numba add of the workers' per-vertex sums", "seconds": time.perf_counter() - start}


def cuda_modules_step() -> dict:
    """Compile (or load from CuPy's cache) the road path's ``.cu`` modules for this GPU."""
    from . import gpu
    start = time.perf_counter()
    for name in CUDA_MODULES:
        gpu.load_module(gpu.PACKAGE_DIR / name).compile()  # a RawModule compiles on first use otherwise
    return {"step": f"CUDA modules ({', '.join(CUDA_MODULES)})", "seconds": time.perf_counter() - start}


def road_check_step(dtypes=DTYPES[:2]) -> dict:
    """A small road-like graph through ``shortest_path(method="phast")`` (per dtype) and one
    all-sources block with reductions, each checked against SciPy: CuPy compiles its kernels on
    the path now, and the install is known to give right answers. Raises when one is wrong."""
    from scipy.sparse import csgraph

    from . import generators
    from .csgraph import shortest_path
    from .distributed import block_solvers, reductions
    from .distributed.blocks import split
    from .distributed.row_store import fingerprint
    from .distributed.tasks import run_block

    start = time.perf_counter()
    g = generators.road_like(CHECK_GRAPH["n"], CHECK_GRAPH["m"], seed=0)
    sources = np.arange(CHECK_SOURCES)
    for dtype in dtypes:
        A = g.to_scipy().astype(np.float64)
        if np.dtype(dtype).kind == "f":
            A.data += 0.5  # fractional weights: the float64 path
        got = shortest_path(A, method="phast", indices=sources)
        want = csgraph.dijkstra(A, indices=sources)
        if not np.allclose(got, want, rtol=1e-12, atol=0):
            raise RuntimeError(f"precompile: shortest_path(method='phast') on a {dtype} road-like graph differs "
                               f"from SciPy (max error {np.nanmax(np.abs(got - want)):.3g}); report it")
    edges = reductions.default_bins(g)
    block = split(len(sources), len(sources))[0]
    out = run_block(g, fingerprint(g), block_solvers.PHAST, True, block, sources, edges, None)
    want = csgraph.dijkstra(g.to_scipy(), indices=sources)
    if not np.array_equal(out["partial"]["eccentricity"], want.max(axis=1)):
        raise RuntimeError("precompile: the all-sources reductions of a road-like graph differ from SciPy's "
                           "eccentricities; report it")
    return {"step": "road path on the GPU, checked against SciPy", "seconds": time.perf_counter() - start}


def run(dtypes=DTYPES, gpu_part: bool | None = None, jobs: int | None = None, progress: bool = True) -> list[dict]:
    """Every step (numba per dtype group in worker processes, the GPU part here): one dict per
    step with its seconds (``skipped`` says why a step did not run)."""
    from . import gpu
    from .host import usable_cores
    from .sssp_hierarchy.contraction import COLD_COMPILE_SECONDS, compiled_on_disk

    gpu_part = gpu.available() if gpu_part is None else gpu_part
    cold = [d for d in dtypes if not compiled_on_disk(d)]
    groups = numba_groups(cold)
    workers = max(1, min(len(groups), jobs or usable_cores()))
    expected = COLD_COMPILE_SECONDS * -(-len(groups) // workers) * (1.2 if len(cold) > len(groups) else 1)
    total = len(dtypes) + (3 if gpu_part else 2)
    bar = _bar(total, f"compiling ahead (one time, about {expected:.0f} s)" if cold else "checking the caches",
               progress)
    results = [{"step": f"numba contraction, {d} weights", "seconds": 0.0, "was_cached": True}
               for d in dtypes if d not in cold]
    bar.update(len(results))
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) if groups else nullcontext() as pool:
        futures = [pool.submit(numba_step, group) for group in groups]
        results.append(sums_add_step())
        bar.update()
        if gpu_part:
            results.append(cuda_modules_step())
            bar.update()
        for future in as_completed(futures):
            done = future.result()
            results.extend(done)
            bar.update(len(done))
    if gpu_part:
        results.append(road_check_step())
    else:
        results.append({"step": "GPU part (CUDA modules, road path)", "seconds": 0.0,
                        "skipped": "no CUDA GPU here: the first GPU call compiles its kernels (seconds)"})
    bar.update(total - bar.n)
    bar.close()
    return results


def _bar(total: int, desc: str, show: bool):
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, unit="step", disable=not show)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m apsp_kernels.precompile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dtypes", default=",".join(DTYPES), help="weight dtypes to compile the contraction for")
    parser.add_argument("--no-gpu", action="store_true", help="skip the CUDA part")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes for numba (default: the cores)")
    args = parser.parse_args(argv)
    dtypes = tuple(d.strip() for d in args.dtypes.split(",") if d.strip())
    bad = [d for d in dtypes if d not in DTYPES]
    if bad:
        parser.error(f"--dtypes takes {', '.join(DTYPES)}; got {', '.join(bad)}")
    started = time.perf_counter()
    results = run(dtypes, gpu_part=False if args.no_gpu else None, jobs=args.jobs)
    for r in results:
        state = f"skipped: {r['skipped']}" if r.get("skipped") else \
            ("cached already" if r.get("was_cached") else f"{r['seconds']:.1f} s")
        print(f"  {r['step']}: {state}")
    folders = cache_folders()
    print(f"precompiled in {time.perf_counter() - started:.1f} s (numba cache: {folders['numba']}; "
          f"CuPy cache: {folders['cupy']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
