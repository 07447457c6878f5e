"""Experiments of liu (notebooks/liu.ipynb): array Dijkstra (serial, threads) vs GPU (min,+) SpMV.

One sweep over N x MIN_DEGREE builds each graph once (``generators.liu_min_degree``, seeded,
the SSSP source a seeded random vertex as in the author's code) and times on it, through
:func:`apsp_kernels.timing.run` (every result checked against SciPy's Dijkstra from the same
source, predecessors included):

* ``dijkstra_serial`` and ``dijkstra_parallel`` with 4 threads (the paper's 4 vCPUs) and with
  every core, on the N x N adjacency matrix (host memory checked first);
* ``sssp_spmv`` algorithm time (kernel scope) and total time (``with_transfers``: host COO ->
  device, COO -> CSC on the device, the iteration, distances back).

CPU cells a profile leaves out, or whose projected time passes the profile's cap, are
recorded as skipped with the reason.

This module holds the configuration, the graphs and the sweeps; the tables, which put measured
numbers beside the paper's (``apsp_kernels/data/published/transcriptions.csv``) for Fig. 1, 2 and 4, and
Fig. 3's charts are in :mod:`.liu_tables`, the verdicts, ``QUOTED`` and ``EVIDENCE`` in
:mod:`.liu_claims`, the names, labels and the paper's sizes in :mod:`.liu_space` (all
re-exported here).
"""
from __future__ import annotations

import functools
import time

import pandas as pd

from .. import generators, registry, report, timing
from ..dijkstra import cpu_array
from ..profiles import choose
from ..records import Record
from .liu_claims import EVIDENCE, QUOTED, edges_verdict, every_core, verdict_corrections, verdicts  # noqa: F401
from .liu_space import (GPU_ALG, GPU_TOTAL, LABELS, MEMORY_BANDWIDTH, PAPER, PAPER_DEGREES,  # noqa: F401
                        PAPER_SIZES, PAPER_THREADS, PUBLISHED, SERIAL, degree_of, label, parallel_col)
from .liu_tables import (bandwidth_table, edges_table, line_chart, published_edges,  # noqa: F401
                         published_long, published_speedups, side_by_side, speedups, times,
                         variants_table)


def thread_counts() -> tuple[int, ...]:
    """The paper's 4 threads (fewer if the machine has fewer) and every core."""
    top = cpu_array.max_threads()
    return tuple(sorted({min(PAPER_THREADS, top), top}))


def config(profile: str) -> dict:
    """Sizes, CPU cells and repeats per profile (smoke: CPU seconds; default: <= 2 min on the H100 host).

    ``cpu_cells``: (N, MIN_DEGREE) cells where the CPU Dijkstras run ("all" = every one); the
    default profile keeps every cell up to N = 20000 and the two corner degrees at N = 40000
    (the O(N²) array Dijkstra hardly depends on the degree; the paper's own tables show it).
    ``cpu_cap_s``: a CPU run whose time projected from the largest measured N (N² scaling)
    passes this is skipped.
    """
    sizes = choose(profile, smoke=(200, 400), default=PAPER_SIZES)
    degrees = choose(profile, smoke=(4, 8), default=PAPER_DEGREES)
    big = max(sizes)
    cpu_cells = choose(profile, smoke="all",
                       default=tuple((n, d) for n in sizes for d in degrees
                                     if n < big or d in (min(degrees), max(degrees))),
                       paper="all")
    return {
        "profile": profile,
        "seed": 0,
        "sizes": sizes,
        "degrees": degrees,
        "cpu_cells": cpu_cells,
        "cpu_cap_s": choose(profile, smoke=30.0, default=20.0, paper=float("inf")),
        "threads": thread_counts(),
        "gpu_repeats": choose(profile, smoke=2, default=5, paper=10),
        "total_repeats": choose(profile, smoke=1, default=3, paper=5),
        "cpu_repeats": choose(profile, smoke=2, default=3, paper=5),
        "cpu_repeats_big": choose(profile, smoke=1, default=1, paper=2),
        "cpu_big_n": choose(profile, smoke=300, default=10000, paper=20000),
        "variant_cells": choose(profile, smoke=((big, min(degrees)),),
                                default=((big, min(degrees)), (big, max(degrees)))),
        "variant_groups": (1, 4, 16, 32),
        "variant_check_every": (1, 8, 32),
    }


@functools.lru_cache(maxsize=None)
def graph(n: int, min_degree: int, seed: int = 0):
    """Liu's graph for one cell (cached for the run: generation is part of the time budget)."""
    return generators.liu_min_degree(n, min_degree, seed=seed)


def source_of(g) -> int:
    """The seeded random SSSP source the generator drew (the author used a random node)."""
    return int(g.meta.get("sssp_source", 0))


def _skipped(name: str, g, experiment: str, cfg: dict, reason: str, params=None) -> Record:
    method = registry.get(PAPER, name)
    return Record(paper=PAPER, experiment=experiment, method=name, graph=g.name, n=g.n, m=g.m,
                  params=params or {}, timing_scope="cpu" if not method.gpu else "kernel",
                  stand_in=g.is_stand_in, profile=cfg["profile"], skipped=reason,
                  stats={"source": source_of(g)})


def _cpu_runs(g, cfg: dict, measured: dict) -> list[Record]:
    """Serial and parallel Dijkstra on one graph, or skipped records saying why."""
    out = []
    runs = [("dijkstra_serial", {})] + [("dijkstra_parallel", {"threads": t}) for t in cfg["threads"]]
    cell = (g.n, int(g.meta["params"]["min_degree"]))
    if cfg["cpu_cells"] != "all" and cell not in cfg["cpu_cells"]:
        reason = (f"{cfg['profile']} profile: CPU cells at N={g.n} run only for MIN_DEGREE "
                  f"{sorted(d for n, d in cfg['cpu_cells'] if n == g.n)} (time budget; the array "
                  f"Dijkstra is O(N²) whatever the degree)")
        return [_skipped(name, g, "fig1", cfg, reason, params) for name, params in runs]
    if not cpu_array.host_fits(g.dense_nbytes()):
        reason = (f"the {g.n}x{g.n} adjacency matrix ({g.dense_nbytes() / 2**30:.1f} GiB) does not "
                  f"fit in available host memory")
        return [_skipped(name, g, "fig1", cfg, reason, params) for name, params in runs]
    repeats = cfg["cpu_repeats"] if g.n <= cfg["cpu_big_n"] else cfg["cpu_repeats_big"]
    for name, params in runs:
        key = (name, params.get("threads", 1))
        if key in measured:
            n0, s0 = measured[key]
            projected = s0 * (g.n / n0) ** 2
            if projected * repeats > cfg["cpu_cap_s"]:
                out.append(_skipped(name, g, "fig1", cfg,
                                    f"projected {projected:.1f} s x {repeats} (N² from N={n0}) exceeds "
                                    f"the {cfg['profile']} profile's cap of {cfg['cpu_cap_s']} s", params))
                continue
        rec = timing.run(registry.get(PAPER, name), g, experiment="fig1", sources=[source_of(g)],
                         params=params, repeats=repeats, warmup=0, profile=cfg["profile"])
        if not rec.skipped and (key not in measured or measured[key][0] <= g.n):
            measured[key] = (g.n, rec.time_s)
        out.append(rec)
    return out


def _gpu_runs(g, cfg: dict) -> list[Record]:
    spmv = registry.get(PAPER, "sssp_spmv")
    src = [source_of(g)]
    return [timing.run(spmv, g, experiment="fig1", sources=src, repeats=cfg["gpu_repeats"],
                       warmup=1, profile=cfg["profile"]),
            timing.run(spmv, g, experiment="fig1", sources=src, repeats=cfg["total_repeats"],
                       warmup=1, scope="with_transfers", profile=cfg["profile"])]


def sweep(cfg: dict) -> tuple[list[Record], pd.DataFrame]:
    """Fig. 1-4: every cell's graph, its edge count (Fig. 2) and all timed runs.

    Returns (records, edges) where ``edges`` has one row per graph: N, MIN_DEGREE,
    undirected edges, arcs, SSSP source and generation seconds.
    """
    records, rows, measured = [], [], {}
    cells = [(n, d) for n in cfg["sizes"] for d in cfg["degrees"]]
    try:
        for n, d in report.progress(cells, desc="liu N x MIN_DEGREE"):
            t0 = time.perf_counter()
            g = graph(n, d, cfg["seed"])
            rows.append({"n": n, "min_degree": d, "undirected_edges": g.meta["undirected_edges"],
                         "arcs": g.m, "sssp_source": source_of(g), "generate_s": time.perf_counter() - t0})
            records += _gpu_runs(g, cfg)
            records += _cpu_runs(g, cfg, measured)
    finally:
        cpu_array.release_adjacency()
    return records, pd.DataFrame(rows)


def gpu_variants(cfg: dict) -> list[Record]:
    """Lanes per column and sweeps between host checks, at the profile's variant cells."""
    spmv = registry.get(PAPER, "sssp_spmv")
    out = []
    for n, d in cfg["variant_cells"]:
        g = graph(n, d, cfg["seed"])
        for group in cfg["variant_groups"]:
            out.append(timing.run(spmv, g, experiment="gpu_variants", sources=[source_of(g)],
                                  params={"group": group}, repeats=cfg["gpu_repeats"],
                                  profile=cfg["profile"]))
        for every in cfg["variant_check_every"]:
            out.append(timing.run(spmv, g, experiment="gpu_variants", sources=[source_of(g)],
                                  params={"check_every": every}, repeats=cfg["gpu_repeats"],
                                  profile=cfg["profile"]))
    return out

