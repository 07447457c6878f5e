"""The contraction's host time (issue 30: USA-road-d.NY in at most 1 s on the GPU host): the heap
order and the parallel rounds of apsp_kernels/sssp_hierarchy, each after a warm-up, at the numba
thread counts asked (at most NUMBA_NUM_THREADS).

::

    python -m apsp_kernels.experiments.contraction_time [--graphs NY] [--threads 1 16 32] [--repeats 5]

prints a line per graph, order and thread count (best and median seconds of ``contract()``, levels,
shortcuts) and, with ``--csv PATH``, writes them there.
"""
from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_context

import numba
import numpy as np

from .. import datasets, timing
from ..records import write_csv
from ..sssp_hierarchy import contraction


def warm_up(parallel=(True,), compiling: Future | None = None) -> float:
    """Compile (or load from numba's cache) the contraction's code for each order asked, as
    :func:`apsp_kernels.sssp_hierarchy.contraction.compile_for` does before every timed contraction;
    seconds (0 for what this process had compiled already), waiting for ``compiling``
    (:func:`compile_beside`) included."""
    start = time.perf_counter()
    if compiling is not None:
        try:
            compiling.result()  # then this process loads it from numba's cache
        except Exception:  # noqa: BLE001 - the compile below says what went wrong, if anything
            pass
    waited = time.perf_counter() - start
    return waited + sum(contraction.compile_for(np.int32, p) for p in parallel)


def compile_beside() -> Future | None:
    """Where numba's disk cache lacks the contraction for int32 weights, compile it in another
    process (:func:`apsp_kernels.precompile.numba_step`, into that cache) while this one does
    something else, e.g. generate a stand-in of millions of vertices: :func:`warm_up` waits for
    it. None when there is nothing to compile."""
    if contraction.compiled_on_disk(np.int32):
        return None
    from ..precompile import numba_step
    pool = ProcessPoolExecutor(1, mp_context=get_context("spawn"))
    compiling = pool.submit(numba_step, ("int32",))
    pool.shutdown(wait=False)
    return compiling


def host_threads() -> str:
    """numba's threading layer and the contraction's thread count (after a parallel region ran), for
    the logs: the rounds' many short parallel regions cost far more on some layers than on others."""
    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel region has run in this process yet
        layer = "not chosen yet"
    return (f"numba threading layer {layer}; contraction on {contraction.threads()} threads "
            f"(at most {contraction.MAX_THREADS}; {numba.get_num_threads()} for numba's other work)")


def measure(graphs, threads=(None,), repeats=5, log=print) -> list[dict]:
    """One row per graph, order (heap, rounds) and thread count (None: the contraction's own, contraction.threads())."""
    warm_up(parallel=(False, True))
    log(host_threads())
    rows = []
    for g in graphs:
        g = g if not isinstance(g, str) else datasets.load_or_stand_in(g)
        for t in threads:
            t = t or contraction.threads()
            for order, parallel in (("heap", False), ("rounds", True)):
                ms, h = timing.time_host(lambda: contraction.contract(g, parallel=parallel, n_threads=t), repeats)
                seconds = [each / 1e3 for each in ms]
                rows.append({"graph": g.name, "order": order, "threads": t,
                             "best_s": min(seconds), "median_s": statistics.median(seconds),
                             "repeats": repeats, "levels": h.levels, "shortcuts": h.shortcuts,
                             "threading_layer": numba.threading_layer()})
                r = rows[-1]
                log(f"{r['graph']} {order:6s} {r['threads']:3d} threads: best {r['best_s']:.3f} s, median "
                    f"{r['median_s']:.3f} s ({repeats} runs); {h.levels} levels, {h.shortcuts:,} shortcuts")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", nargs="+", default=["NY"])
    parser.add_argument("--threads", nargs="+", type=int, default=[None])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--csv")
    args = parser.parse_args(argv)
    too_many = [t for t in args.threads if t and t > numba.config.NUMBA_NUM_THREADS]
    if too_many:
        parser.error(f"--threads {too_many}: more than NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS}; "
                     f"set NUMBA_NUM_THREADS before the run")
    rows = measure(args.graphs, args.threads, args.repeats)
    if args.csv:
        import pandas as pd
        write_csv(pd.DataFrame(rows), args.csv)


if __name__ == "__main__":
    main()
