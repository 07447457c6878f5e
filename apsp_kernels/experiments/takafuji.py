"""Experiments of Takafuji, Nakano, Ito (single vs multi kernel blocked FW): Table I, Table II,
the B sweep, launch counts, the paths overhead and the task-order figures (Fig. 3, 4).

Every timed number comes from :func:`timing.run` (one graph) or :func:`run_bulk` (m
instances: ``timing.time_kernel`` plus :func:`bulk.verify_instances`), verified against
SciPy (the oracle caches a graph's rows, so a sweep on one graph runs SciPy once).

This module holds the configuration and the sweeps; one bulk run is timed in
:mod:`.takafuji_bulk`, the tables in :mod:`.takafuji_tables`, the verdicts, ``QUOTED`` and
``EVIDENCE`` in :mod:`.takafuji_claims`, the constants and the Table I graph in
:mod:`.takafuji_space` (all re-exported here).
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pandas as pd

from .. import gpu, registry, timing
from ..blocked_fw import task_schedule as ts
from ..blocked_fw.bulk import choose_instances
from ..generators import dense_from_arcs, k_regular_arcs
from ..profiles import check, choose
from ..records import Record
from ..report import progress
from .takafuji_bulk import arcs_oracle, run_bulk, skip_record
from .takafuji_claims import (EVIDENCE, QUOTED, TABLE1_NOTE, bulk_published, launches_verdict,  # noqa: F401
                              protocol_verdict, table1_verdicts, table2_verdicts, verdict_corrections)
from .takafuji_space import (DEGREE, PAPER, PAPER_BLOCKS, PEAK_MINPLUS_F32, SEED, THREADS,  # noqa: F401
                             graph_for, paper_blocks)
from .takafuji_tables import (frame, paths_table, protocol_summary, table1_layout, table1_long,  # noqa: F401
                              table1_summary, table2_layout, table2_long, table2_speedups, task_id_figure)

MAX_SERIAL_TASKS = 50_000  # B sweep: skip B with more tasks per block than this (too slow)


def _rows(ns, threads, repeats, warmup):
    return [dict(n=n, threads=tuple(threads), repeats=repeats, warmup=warmup) for n in ns]


def config(profile: str = "default") -> dict:
    """Sizes per profile. default fits about 2 minutes on one H100 (see the notebook text)."""
    check(profile)
    small = [64, 128, 256, 512, 1024]
    table1 = choose(
        profile,
        smoke=_rows([64], (64, 256), 1, 0) + _rows([100], (256,), 1, 0),
        default=(_rows(small, THREADS, 5, 1) + _rows([2048], THREADS, 3, 1)
                 + _rows([4096], (128, 256, 512), 3, 1) + _rows([8192], (128, 256, 512), 2, 1)
                 + _rows([16384], (128, 256, 512), 1, 0)),
        paper=(_rows(small + [2048, 4096], THREADS, 5, 1) + _rows([8192], THREADS, 3, 1)
               + _rows([16384, 32768], THREADS, 2, 1)))
    return {
        "profile": profile,
        "table1": table1,
        "tune_threads": 256,
        "bsweep_n": choose(profile, smoke=[64], default=[512, 1024, 8192], paper=[512, 1024, 4096, 16384]),
        "bsweep_threads": 256,
        "paths_n": choose(profile, smoke=[64], default=[1024, 8192], paper=[1024, 4096, 8192]),
        "paths_threads": 256,
        "table2_m": choose(profile, smoke=[2, 3], default=[4, 32, 256, 2048],
                           paper=[4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]),
        "table2_n": choose(profile, smoke=[64, 96], default=[64, 128, 256, 512, 1024, 2048],
                           paper=[64, 128, 256, 512, 1024, 2048]),
        # default budget: cells with m * n^3 above this are not run (say so in the table)
        "table2_max_work": choose(profile, smoke=float("inf"), default=2.5e12, paper=float("inf")),
        # the paper does not say which T Table II used; per kernel, the fastest here for bulk
        # (see notes/takafuji-perf.md: multi 4 x 4 register tiles at T=64, single best at 128)
        "table2_threads": {"multi": 64, "single": 128},
        "table2_repeats": choose(profile, smoke=1, default=3, paper=5),
        "table2_verify_instances": choose(profile, smoke=8, default=2, paper=4),
        "simulate": choose(profile, smoke=[(70, 1), (100, 2)], default=[(100, 1), (150, 3)],
                           paper=[(100, 1), (150, 3), (200, 2)]),
    }


# ---------------------------------------------------------------------------- helpers


def co_resident(threads: int) -> int | None:
    """Blocks of the single kernel that fit at once (None without a GPU)."""
    if not gpu.available():
        return None
    from ..blocked_fw.persistent import co_resident_blocks
    return co_resident_blocks(threads)


def _best(records):
    ok = [r for r in records if not r.skipped and r.verified]
    return min(ok, key=lambda r: r.time_ms_median) if ok else None


# ---------------------------------------------------------------------------- Table I
def block_candidates(n: int, threads: int) -> list:
    """B values tried for the single kernel at ``n``: the paper's and ours (None = as many as
    fit at once, at most one per tile of a round), deduplicated by the value they resolve to."""
    N = ts.tiles_per_side(n)
    res = co_resident(threads)
    full = None if res is None else min(res, N * N)
    out, seen = [], set()
    for b in (paper_blocks(n), None):
        value = full if b is None else b
        if value is not None and value in seen:
            continue
        seen.add(value)
        out.append(b)
    return out


def table1(cfg: dict) -> list[Record]:
    """Table I: multi and single for every (n, T); B of single tuned per n at cfg tune_threads.

    Returns the table's records (experiment "table1") and the tuning runs ("table1_tune_b").
    """
    multi, single = registry.get(PAPER, "multi"), registry.get(PAPER, "single")
    out = []
    for row in progress(cfg["table1"], desc="Table I (n)"):
        n, g = row["n"], graph_for(row["n"])
        kw = dict(repeats=row["repeats"], warmup=row["warmup"], profile=cfg["profile"])
        tuned = {}
        for b in block_candidates(n, cfg["tune_threads"]):
            tuned[b] = timing.run(single, g, experiment="table1_tune_b",
                                  params={"threads": cfg["tune_threads"], "blocks": b}, **kw)
        best = _best(tuned.values())
        blocks = best.param("blocks") if best else paper_blocks(n)
        for T in row["threads"]:
            out.append(timing.run(multi, g, experiment="table1", params={"threads": T}, **kw))
            if T == cfg["tune_threads"] and blocks in tuned:
                out.append(dataclasses.replace(tuned[blocks], experiment="table1"))
            else:
                out.append(timing.run(single, g, experiment="table1",
                                      params={"threads": T, "blocks": blocks}, **kw))
        out.extend(tuned.values())
    return out


# ---------------------------------------------------------------------------- B sweep


def bsweep_blocks(n: int, threads: int) -> list[int]:
    """B values of the sweep: powers of two, SM multiples and co-resident multiples."""
    N = ts.tiles_per_side(n)
    tasks = N ** 3
    res = co_resident(threads)
    sms = gpu.device_info()["sm_count"] or 132
    cand = {1, 4, 16, 64, sms // 2, sms, 2 * sms, 4 * sms}
    if res:
        cand |= {res // 2, res, 2 * res, 4 * res}
    return sorted(b for b in cand if b >= 1 and tasks / b <= MAX_SERIAL_TASKS)


def bsweep(cfg: dict) -> list[Record]:
    """Single kernel time vs B at cfg bsweep_threads for each n in cfg bsweep_n."""
    single = registry.get(PAPER, "single")
    T = cfg["bsweep_threads"]
    out = []
    for n in progress(cfg["bsweep_n"], desc="B sweep (n)"):
        g = graph_for(n)
        reps = 3 if n <= 4096 else 1
        for b in bsweep_blocks(n, T):
            out.append(timing.run(single, g, experiment="bsweep", params={"threads": T, "blocks": b},
                                  repeats=reps, warmup=1, profile=cfg["profile"]))
    return out


# ---------------------------------------------------------------------------- paths


def paths_overhead(cfg: dict) -> list[Record]:
    """multi / single with and without the intermediate-vertex matrix (predecessors verified)."""
    T = cfg["paths_threads"]
    out = []
    for n in progress(cfg["paths_n"], desc="paths overhead (n)"):
        g = graph_for(n)
        for name in ("multi", "multi_paths", "single", "single_paths"):
            out.append(timing.run(registry.get(PAPER, name), g, experiment="paths",
                                  params={"threads": T}, repeats=3, warmup=1, profile=cfg["profile"]))
    return out


# ---------------------------------------------------------------------------- Table II
def table2(cfg: dict) -> list[Record]:
    """Table II: bulk multi vs bulk single for every (m, n) of the profile.

    Instance i is the same graph for every m (the arcs of max(m) instances are drawn once
    per n and the first m used), so the oracle of a checked instance is computed once.
    """
    out = []
    T = cfg["table2_threads"]
    ms = sorted(cfg["table2_m"])
    for n in progress(cfg["table2_n"], desc="Table II (n)"):
        P = ts.padded_size(n)
        runnable = [m for m in ms if m * float(n) ** 3 <= cfg["table2_max_work"]]
        for m in ms:
            if m not in runnable:
                for kind in ("multi", "single"):
                    out.append(skip_record(kind, n, m, cfg, f"not run in the {cfg['profile']} profile "
                                            f"(m n^3 = {m * float(n) ** 3:.2g} > budget {cfg['table2_max_work']:.2g})"))
        if not runnable:
            continue
        targets, weights = k_regular_arcs(max(runnable), n, DEGREE, seed=SEED)
        oracle_of = functools.lru_cache(maxsize=None)(functools.partial(arcs_oracle, targets, weights))
        for m in runnable:
            name = f"kregular-n{n}-x{m}"
            need = 2 * m * P * P * 4
            if not gpu.available():
                for kind in ("multi", "single"):
                    out.append(skip_record(kind, n, m, cfg, "no CUDA GPU on this machine"))
                continue
            if not gpu.fits(need):
                for kind in ("multi", "single"):
                    out.append(skip_record(kind, n, m, cfg, f"does not fit: {need / 2**30:.1f} GiB "
                                            f"(batch + working copy) > free GPU memory"))
                continue
            cp = gpu.cupy()
            batch = dense_from_arcs(cp.asarray(targets[:m]), cp.asarray(weights[:m]), padded_n=P, xp=cp)
            checked = choose_instances(m, cfg["table2_verify_instances"])
            for kind in ("multi", "single"):
                out.append(run_bulk(kind, batch, n, threads=T[kind], repeats=cfg["table2_repeats"],
                                    instances_checked=checked, oracle_of=oracle_of, name=name,
                                    profile=cfg["profile"]))
            del batch
            gpu.free_pool()
    return out


# ---------------------------------------------------------------------------- the protocol (Sec. IV)
def protocol_check(cfg: dict) -> pd.DataFrame:
    """Simulate the single kernel's protocol (CPU) for several B and schedules, with and without
    the write-after-read wait; compare with the numpy blocked FW and count version violations."""
    rows = []
    for n, m in cfg["simulate"]:
        P = ts.padded_size(n)
        D = _dense_instances(n, m, P)
        want = ts.blocked_fw_numpy(D.copy())
        N = P // ts.W
        for check_reads in (True, False):
            for blocks in (1, 2, 7, 3 * m * N * N):
                for policy in ("newest", "random", "starve"):
                    try:
                        res = ts.simulate(D, blocks, check_reads=check_reads, policy=policy, seed=blocks)
                        outcome = dict(deadlock=False, violations=len(res["violations"]),
                                       result_equal=bool(np.array_equal(res["result"], want)))
                    except ts.ScheduleDeadlock:
                        outcome = dict(deadlock=True, violations=np.nan, result_equal=False)
                    rows.append(dict(n=n, instances=m, tiles_per_side=N, blocks=blocks, policy=policy,
                                     waits_for_readers=check_reads, **outcome))
    return pd.DataFrame(rows)


def _dense_instances(n, m, P):
    targets, weights = k_regular_arcs(m, n, DEGREE, seed=SEED)
    return dense_from_arcs(targets, weights, padded_n=P)

