"""liu's claims (:mod:`apsp_kernels.experiments.liu`): every verdict, the published values they
quote (``QUOTED``), the correction of the every-core wording and what each verdict rests on
(``EVIDENCE``)."""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from .. import report
from ..dijkstra import cpu_array
from ..provenance import INCONCLUSIVE
from ..quoted import Cells, Quoted
from ..records import from_csv
from ..verdicts import DEFAULT_TIMING_BAND, Evidence, band_note, decide, every
from .liu_space import GPU_ALG, GPU_TOTAL, PAPER, PAPER_THREADS, SERIAL, parallel_col
from .liu_tables import speedups, times


# liu's tables keep one time per cell, not its repeats: every comparison uses the default band
BAND = DEFAULT_TIMING_BAND


def _deg(n: int | None = None, d: int | None = None) -> str:
    return " and ".join(x for x in (f"n == {n}" if n else "", f"min_degree == {d}" if d else "") if x)


# the published ranges and extremes the verdicts quote, from the transcription table
QUOTED = [
    Quoted("Fig. 2 edge counts", PAPER, Cells("fig2_edges", "edges")),
    Quoted("parallel CPU Dijkstra", PAPER, Cells("fig4_speedup_openmp", "speedup", _deg(40000))),
    Quoted("serial O", PAPER, Cells("fig1_serial", "seconds", _deg(40000, 512)),
           Cells("fig1_serial", "seconds", _deg(40000, 16)), which=("max",)),
    Quoted("GPU speedup is best", PAPER, Cells("fig4_speedup_cuda", "speedup", _deg(40000))),
    Quoted("GPU speedup grows", PAPER, Cells("fig4_speedup_cuda", "speedup", _deg(d=16))),
    Quoted("GPU algorithm time grows", PAPER, Cells("fig1_cuda_algorithm", "seconds", _deg(40000, 512)),
           Cells("fig1_cuda_algorithm", "seconds", _deg(40000, 16)), which=("max",)),
    Quoted("project target", PAPER, Cells("fig1_cuda_algorithm", "seconds", _deg(40000, 16)), which=("max",),
           scale=1e3),
    Quoted("the gap between GPU total", PAPER, Cells("fig1_cuda_total", "seconds", _deg(d=16)),
           Cells("fig1_openmp", "seconds", _deg(d=16)), on=("n", "min_degree")),
]


def _quoted(key: str) -> Quoted:
    return next(q for q in QUOTED if q.claim.startswith(key))


def _at(frame, n, d, kind, col):
    sel = frame[(frame["n"] == n) & (frame["min_degree"] == d) & (frame["kind"] == kind)][col]
    return float(sel.iloc[0]) if len(sel) else math.nan


def edges_verdict(fig2: pd.DataFrame) -> dict:
    """Fig. 2: do our generator's edge counts match the paper's (within 2 % in every cell)?"""
    both = fig2.dropna(subset=["paper_edges"])
    if not len(both):
        return dict(claim="Fig. 2 edge counts reproduced by the author's generation procedure",
                    published=f"{int(_quoted('Fig. 2').low):,} ... {int(_quoted('Fig. 2').high):,}",
                    measured="no cell of the paper's sizes",
                    holds=None, note="profile without the paper's sizes")
    dev = (both["ours / paper"] - 1).abs()
    return dict(claim="Fig. 2 edge counts reproduced by the author's generation procedure",
                published=f"{int(both['paper_edges'].min()):,} ... {int(both['paper_edges'].max()):,}",
                measured=f"ours / paper = {both['ours / paper'].min():.4f} ... {both['ours / paper'].max():.4f} "
                         f"over {len(both)} cells",
                holds=bool((dev <= 0.02).all()),
                note="holds if every cell is within 2 %; another random stream than C rand(), so not digit for digit")


def verdicts(measured: pd.DataFrame) -> list[dict]:
    """The paper's claims tested on the measured tables (arguments of report.add_verdict)."""
    sp = (speedups(measured) if (measured["kind"] == SERIAL).any()
          else pd.DataFrame(columns=["n", "min_degree", "kind", "speedup"]))  # no serial time: no speedup
    out = []
    omp, gap = _quoted("parallel CPU Dijkstra"), _quoted("the gap between GPU total")
    by_deg, by_n = _quoted("GPU speedup is best"), _quoted("GPU speedup grows")
    widest = widest_threads(measured)
    par, top = parallel_col(min(PAPER_THREADS, widest)), parallel_col(widest)
    # 1. parallel CPU ~ 2.6x on 4 threads at the largest graphs
    big = sp[(sp["kind"] == par)].dropna(subset=["speedup"])
    if len(big):
        nmax = big["n"].max()
        best = big[big["n"] == nmax]["speedup"]
        val = float(best.max())
        out.append(dict(claim="parallel CPU Dijkstra ≈ 2.6x over serial on 4 threads at large N",
                        published=f"{omp.low:.2f}-{omp.high:.2f} (N=40000, 4 vCPUs)",
                        measured=f"{val:.2f}x (N={nmax}, {par.split('_')[1]} threads; "
                                 f"{float(best.min()):.2f}-{val:.2f} over the degrees)",
                        holds=(h := decide(lambda v: abs(v / 2.6 - 1) <= 0.3, val)),
                        note=band_note(h, BAND, "holds if within ±30 % of 2.6; numba prange: one fork/join per "
                                                "Dijkstra step (N of them), as the paper's OpenMP parallel loops")))
    else:
        out.append(dict(claim="parallel CPU Dijkstra ≈ 2.6x over serial on 4 threads at large N",
                        published=f"{omp.low:.2f}-{omp.high:.2f}", measured="no CPU cell measured", holds=None))
    allc = sp[(sp["kind"] == top)].dropna(subset=["speedup"])
    if len(allc) and top != par:
        out.append(dict(claim=f"more threads: parallel CPU Dijkstra with every core "
                              f"({widest} threads)",
                        published="not measured (4 vCPUs)", measured=every_core(allc),
                        holds=None, note="extra measurement, no claim in the paper"))
    # 2. CPU time hardly depends on the degree
    ser = measured[(measured["kind"] == SERIAL)].dropna(subset=["seconds"])
    if len(ser):
        nmax = ser["n"].max()
        row = ser[ser["n"] == nmax].sort_values("min_degree")
        if len(row) >= 2:
            ratio = float(row["seconds"].iloc[-1] / row["seconds"].iloc[0])
            out.append(dict(claim="serial O(N²) Dijkstra time barely depends on MIN_DEGREE",
                            published=f"{_quoted('serial O').high:.2f}x from degree 16 to 512 at N=40000",
                            measured=f"{ratio:.2f}x from degree {row['min_degree'].iloc[0]} to "
                                     f"{row['min_degree'].iloc[-1]} at N={nmax}",
                            holds=(h := decide(lambda v: v <= 1.5, ratio)),
                            note=band_note(h, BAND, "holds if the ratio is <= 1.5")))
    # 3. GPU speedup best at low degree and falling as the degree grows
    gsp = sp[sp["kind"] == GPU_ALG].dropna(subset=["speedup"])
    if len(gsp):
        fall = []
        for n, grp in gsp.groupby("n"):
            s = grp.sort_values("min_degree")["speedup"].to_numpy()
            if len(s) >= 2:
                fall.append(decide(lambda v: v > 1, s[0] / s[-1]))
        falls, total = sum(f is True for f in fall), len(fall)
        best = gsp.loc[gsp["speedup"].idxmax()]
        low = gsp["min_degree"] == gsp["min_degree"].min()
        # the best cell lies at the lowest degree: the lowest degree's best over every other degree's
        best_low = decide(lambda v: v > 1, gsp.loc[low, "speedup"].max() / gsp.loc[~low, "speedup"].max()) \
            if low.any() and (~low).any() else None
        h = every(fall + [best_low]) if total else False
        out.append(dict(claim="GPU speedup is best at the lowest degree and falls as MIN_DEGREE grows",
                        published=f"{by_deg.high:.0f}x at N=40000/deg 16 down to {by_deg.low:.0f}x at deg 512; "
                                  "falls in every row",
                        measured=f"best {best['speedup']:.0f}x at N={int(best['n'])}/deg "
                                 f"{int(best['min_degree'])}; lowest > highest degree in {falls} of "
                                 f"{total} rows",
                        holds=h,
                        note=band_note(h, BAND, "speedup = our serial Dijkstra / GPU algorithm time; holds if "
                                                "every row falls from its lowest to its highest degree and the "
                                                "best cell has the lowest degree")))
        grows = []
        for d, grp in gsp.groupby("min_degree"):
            s = grp.sort_values("n")["speedup"].to_numpy()
            if len(s) >= 2:
                grows.append(decide(lambda v: v > 1, s[-1] / s[0]))
        h = every(grows) if grows else False
        out.append(dict(claim="GPU speedup grows with N",
                        published=f"{by_n.low:.1f}x (N=1250) to {by_n.high:.0f}x (N=40000) at degree 16",
                        measured=f"largest N beats smallest N in {sum(g is True for g in grows)} of "
                                 f"{len(grows)} degrees",
                        holds=h, note=band_note(h, BAND)))
    else:
        out.append(dict(claim="GPU speedup is best at the lowest degree and falls as MIN_DEGREE grows",
                        published=f"{by_deg.high:.0f}x ... {by_deg.low:.0f}x at N=40000", measured="no GPU record",
                        holds=None,
                        note="no CUDA GPU in this run"))
    # 4. GPU algorithm time grows with the degree (O(N E) work)
    alg = measured[measured["kind"] == GPU_ALG].dropna(subset=["seconds"])
    if len(alg):
        nmax = alg["n"].max()
        row = alg[alg["n"] == nmax].sort_values("min_degree")
        ratio = float(row["seconds"].iloc[-1] / row["seconds"].iloc[0])
        out.append(dict(claim="GPU algorithm time grows with MIN_DEGREE (work ∝ edges)",
                        published=f"{_quoted('GPU algorithm time grows').high:.0f}x from degree 16 to 512 at N=40000",
                        measured=f"{ratio:.1f}x at N={nmax}", holds=(h := decide(lambda v: v > 1.5, ratio)),
                        note=band_note(h, BAND, "holds if the ratio is > 1.5")))
        t = _at(measured, 40000, 16, GPU_ALG, "seconds")
        if not math.isnan(t):
            met = decide(lambda v: v <= 5e-3, t)
            holds, note = report.timed_goal(met is True, alg["device"].iloc[0])
            holds = INCONCLUSIVE if holds is not None and met == INCONCLUSIVE else holds
            note = band_note(holds, BAND, note)
            out.append(dict(claim="project target: GPU algorithm time at N=40000, MIN_DEGREE=16 <= 5 ms",
                            published=f"{_quoted('project target').high:.0f} ms on the K80",
                            measured=f"{t * 1e3:.2f} ms", holds=holds, note=note))
    # 5. total time gap to the parallel CPU shrinks as the graph grows
    tot = measured[measured["kind"] == GPU_TOTAL].dropna(subset=["seconds"])
    cpu = measured[measured["kind"] == par].dropna(subset=["seconds"])
    both = tot.merge(cpu, on=["n", "min_degree"], suffixes=("_gpu", "_cpu"))
    if len(both):
        d0 = both["min_degree"].min()
        row = both[both["min_degree"] == d0].sort_values("n")
        r = (row["seconds_gpu"] / row["seconds_cpu"]).to_numpy()
        h = gap_shrinks(r[0], r[-1])
        out.append(dict(claim="the gap between GPU total time and parallel CPU time shrinks as N grows",
                        published=f"CUDA total / OpenMP = {gap.high:.0f}x (N=1250) to {gap.low:.1f}x (N=40000) "
                                  "at degree 16",
                        measured=f"GPU total / parallel CPU = {r[0]:.3g}x (N={int(row['n'].iloc[0])}) to "
                                 f"{r[-1]:.3g}x (N={int(row['n'].iloc[-1])}) at degree {d0}",
                        holds=h,
                        note=band_note(h, BAND, "the gap shrinks when the ratio moves toward 1 (|log ratio| "
                                                "falls), whichever side is faster; our total excludes CUDA "
                                                "context creation (≈3 s in every paper cell) and the host scan "
                                                "of the N×N matrix into COO; it is convert + H2D + algorithm + D2H")))
    return out


def gap_shrinks(first: float, last: float, band: float = BAND):
    """Whether the gap between two times, as the ratio ``first`` at the smallest N and ``last``
    at the largest, shrinks: the ratio moves toward 1 (|log r| falls), whichever side is the
    faster; the paper's CUDA / OpenMP ratio falls from 304x toward 1, a ratio that falls from
    0.18 to 0.003 moves away from it."""
    return decide(lambda v: abs(math.log(v)) < abs(math.log(first)), last, band)


def widest_threads(measured: pd.DataFrame) -> int:
    """The most threads a parallel CPU column of ``measured`` ran (the run's every core; this
    machine's when none ran)."""
    kinds = [int(k.split("_")[1]) for k in measured["kind"].unique() if str(k).startswith("parallel_")]
    return max(kinds, default=cpu_array.max_threads())


# claims rederive() leaves as the notebook wrote them: Fig. 2's edge counts come from the generated
# graphs (the notebook's edges table), not from a timed record
NOT_FROM_RECORDS = ("Fig. 2 edge counts",)


def rederive(records, profile: str = "") -> list[dict]:
    """Every verdict computable from ``records`` alone, as the notebook computes it (used by
    :mod:`apsp_kernels.experiments.recheck` and the audit)."""
    fig1 = [r for r in records if r.experiment == "fig1"]
    return [v for v in verdicts(times(fig1)) if v["holds"] is not None] if fig1 else []


def every_core(allc: pd.DataFrame) -> str:
    """The every-core speedup at the largest N, the best of the degrees, said so (it read
    "2.37x at N=20000" as if there were one cell)."""
    nmax = allc["n"].max()
    cells = allc[allc["n"] == nmax]["speedup"]
    return (f"{float(cells.max()):.2f}x at N={nmax} (the best of {len(cells)} degrees; "
            f"{float(cells.min()):.2f}-{float(cells.max()):.2f}x)")


def verdict_corrections(folder) -> dict:
    """The every-core speedup named as the best of the degrees (see :func:`every_core`),
    from the committed records: the widest ``parallel_<k>`` column they hold."""
    path = Path(folder) / "records_fig1.csv"
    if not path.exists():
        return {}
    sp = speedups(times(from_csv(path)))
    widest = max((k for k in sp["kind"].unique() if str(k).startswith("parallel_")),
                 key=lambda k: int(k.split("_")[1]), default=None)
    allc = sp[sp["kind"] == widest].dropna(subset=["speedup"]) if widest else sp.iloc[:0]
    if widest is None or widest == parallel_col(PAPER_THREADS) or allc.empty:
        return {}
    return {("liu", "more threads"): {"measured": every_core(allc)}}


# ------------------------------------------------------------------ what each verdict rests on
EVIDENCE = [
    Evidence("Fig. 2 edge counts", "fig1", "sssp_spmv"),
    Evidence("parallel CPU Dijkstra", "fig1", ("dijkstra_serial", "dijkstra_parallel"), where="n == 40000"),
    Evidence("more threads", "fig1", ("dijkstra_serial", "dijkstra_parallel")),
    Evidence("serial O", "fig1", "dijkstra_serial", where="n == 40000"),
    Evidence("GPU speedup", "fig1", ("dijkstra_serial", "sssp_spmv")),
    Evidence("GPU algorithm time grows", "fig1", "sssp_spmv", where="n == 40000"),
    Evidence("project target", "fig1", "sssp_spmv", where="n == 40000"),
    Evidence("the gap between GPU total", "fig1", ("sssp_spmv", "dijkstra_parallel")),
]
