"""Timing harness: every timed run goes through :func:`run`, which checks the result
against the oracle and returns one :class:`~apsp_kernels.records.Record`.

GPU kernel time is taken with CUDA events around ``Solver.compute`` only, after
warm-up runs (module load and JIT compile stay out), with ``Solver.reset`` between
repetitions outside the events (in-place algorithms need their input back). This is
what ``cupyx.profiler.benchmark`` does, plus the untimed reset it lacks.
``with_transfers`` times setup (host->device) + compute + download with the host
clock. CPU methods use ``time.perf_counter``. Median and minimum are recorded. Host-clock
timings hold :func:`host_cpu.exclusive`, as the oracle does (notebooks side by side on one host).
"""
from __future__ import annotations

import contextlib
import json
import time

import numpy as np

from . import gpu, host_cpu, oracle
from .errors import GPUMemoryError, NoGPUError
from .records import Record, fewer_sources
from .registry import Method
from .solver import Solver


def _sync():
    if gpu.available():
        gpu.cupy().cuda.get_current_stream().synchronize()


def time_gpu(run, repeats: int = 5, warmup: int = 1, before=None) -> list[float]:
    """Milliseconds of ``run()`` per repetition, CUDA events around it; ``before()`` untimed."""
    cp = gpu.cupy()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for i in range(warmup + repeats):
        if before is not None:
            before()
        start.record()
        run()
        stop.record()
        stop.synchronize()
        if i >= warmup:
            times.append(cp.cuda.get_elapsed_time(start, stop))
    return times


def copy_bandwidth(nbytes: int = 1 << 30, repeats: int = 5) -> dict:
    """Device memory bandwidth ceiling: a device-to-device copy of ``nbytes``, CUDA events.

    ``bytes_per_s`` counts the read and the write (2 * nbytes per copy), as the roofline's
    sparse rates count bytes read and written. Returns {"bytes_per_s", "ms", "nbytes"}.
    """
    cp = gpu.cupy()
    nbytes = min(int(nbytes), max(1 << 20, gpu.free_bytes() // 4))
    src = cp.ones(nbytes // 4, dtype=cp.int32)
    dst = cp.empty_like(src)
    times = time_gpu(lambda: dst.data.copy_from_device_async(src.data, src.nbytes), repeats, warmup=1)
    ms = float(np.median(times))
    return {"bytes_per_s": 2 * src.nbytes / (ms * 1e-3), "ms": ms, "nbytes": int(src.nbytes)}


def launch_latency(launches: int = 2000, repeats: int = 5) -> dict:
    """Device time per launch of an empty kernel, launched back to back (the floor under
    every iteration of a launch-bound method). Returns {"us_per_launch", "launches"}."""
    cp = gpu.cupy()
    empty = cp.RawKernel('extern "C" __global__ void apsp_empty_kernel() {}', "apsp_empty_kernel")

    def burst():
        for _ in range(launches):
            empty((1,), (32,), ())
    times = time_gpu(burst, repeats, warmup=1)
    return {"us_per_launch": float(np.median(times)) * 1e3 / launches, "launches": launches}


def time_host(fn, repeats: int, warmup: int = 0, budget_s: float = float("inf"), before=None):
    """Host-clock milliseconds of ``fn()`` per timed run and the last result, holding the host's
    CPU lock (:func:`host_cpu.exclusive`); ``before()`` runs untimed before each run; stops early
    once the timed runs add up to ``budget_s`` (always at least one)."""
    with host_cpu.exclusive():
        for _ in range(warmup):
            fn()
        times, out = [], None
        for _ in range(max(1, repeats)):
            out = None  # let the previous result go before the next run
            if before is not None:
                before()
            t0 = time.perf_counter()
            out = fn()
            times.append((time.perf_counter() - t0) * 1e3)
            if sum(times) >= budget_s * 1e3:
                break
    return times, out


def time_kernel(solver: Solver, repeats: int = 5, warmup: int = 1) -> list[float]:
    """Milliseconds of ``compute`` per repetition (device events, or host clock for CPU solvers)."""
    if solver.on_gpu:
        return time_gpu(solver.compute, repeats, warmup, before=solver.reset)
    times = []
    for i in range(warmup + repeats):
        solver.reset()
        t0 = time.perf_counter()
        solver.compute()
        if i >= warmup:
            times.append((time.perf_counter() - t0) * 1e3)
    return times


def time_with_transfers(make_solver, repeats: int = 3, warmup: int = 1) -> tuple[list[float], Solver]:
    """Milliseconds of setup + compute + solution (host clock, synchronized) per repetition."""
    times, solver = [], None
    for i in range(warmup + repeats):
        _sync()
        t0 = time.perf_counter()
        solver = make_solver()
        solver.setup()
        solver.reset()
        solver.compute()
        sol = solver.solution()
        sol.rows([0]) if len(sol.sources) else None  # forces the device->host path
        _sync()
        if i >= warmup:
            times.append((time.perf_counter() - t0) * 1e3)
    return times, solver


def run(method: Method, graph, *, experiment: str, sources=None, params=None,
        repeats: int = 5, warmup: int = 1, scope: str = "kernel", verify=True,
        verify_rows=None, scale: float = 1.0, extrapolation: str = "", profile: str = "") -> Record:
    """Time ``method`` on ``graph`` and check it; never raises for a skip.

    ``scale`` multiplies the measured times (e.g. all sources / sampled sources) and
    marks the record extrapolated with ``extrapolation`` as the explanation. A method
    that cannot run here (no GPU, not enough memory) gives a record with ``skipped``.
    """
    params = dict(params or {})
    rec = Record(paper=method.paper, experiment=experiment, method=method.name, graph=graph.name,
                 n=graph.n, m=graph.m, params=params, repeats=repeats,
                 timing_scope="cpu" if not method.gpu else scope, stand_in=graph.is_stand_in,
                 profile=profile, extrapolated=scale != 1.0, extrapolation=extrapolation)
    if method.gpu and not gpu.available():
        rec.skipped = "no CUDA GPU on this machine"
        return rec
    make = lambda: method.make(graph, sources=sources, **params)  # noqa: E731
    try:
        solver = make()
        if method.gpu:
            gpu.require_memory(solver.bytes_needed(), f"{method.key} on {graph.name}")
        host_clock = not method.gpu or scope == "with_transfers"
        with host_cpu.exclusive() if host_clock else contextlib.nullcontext():
            if scope == "with_transfers" and method.gpu:
                times, solver = time_with_transfers(make, repeats, warmup)
            else:
                solver.setup()
                times = time_kernel(solver, repeats, warmup)
    except (GPUMemoryError, NoGPUError) as exc:
        rec.skipped = str(exc)
        return rec
    rec.time_ms_median = float(np.median(times)) * scale
    rec.time_ms_min = float(np.min(times)) * scale
    rec.stats = json.dumps(solver.stats, sort_keys=True, default=str)
    if verify:
        sol = solver.solution()
        asked = None if sources is None else len(np.atleast_1d(sources))
        if asked is not None and not sol.partial and len(sol.sources) != asked:  # not the asked problem's time
            rec.verified, rec.verify_scope = False, fewer_sources(len(sol.sources), asked, "asked for")
            return rec
        result = oracle.verify(sol, graph, rows=verify_rows)
        rec.verified, rec.max_error = result["verified"], result["max_error"]
        rec.verify_scope = result["verify_scope"] + (f" ({sol.partial})" if sol.partial else "")
    else:
        rec.verify_scope = "not checked"
    return rec
