"""bodra's tables and figures (:mod:`apsp_kernels.experiments.bodra`): each table of the paper
with the published seconds beside ours, the FW prefix estimate beside a full run, the speed
reference beside the author's timing, and the Fig. 5-6 bar charts."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from .. import report
from .bodra_space import BF_METHODS, COLORS, FW_METHODS, GNUTELLA, LABELS, PAPER, ROAD_GRAPHS


# ------------------------------------------------------------------------------ one record of a frame
def record(df: pd.DataFrame, experiment: str, ds: str, method: str):
    """The last record of ``method`` on graph ``ds`` in ``experiment`` (a frame row), or None."""
    hit = df[(df["experiment"] == experiment) & (df["graph"] == ds) & (df["method"] == method)]
    return None if hit.empty else hit.iloc[-1]


def median_ms(df: pd.DataFrame, experiment: str, ds: str, method: str) -> float | None:
    """That record's median time in ms; None when it was not run, was skipped or has no time."""
    rec = record(df, experiment, ds, method)
    if rec is None or _skipped(rec):
        return None
    t = float(rec["time_ms_median"])
    return t if np.isfinite(t) else None


def _skipped(rec) -> bool:
    return isinstance(rec["skipped"], str) and bool(rec["skipped"])


def _seconds(rec) -> float:
    return float("nan") if rec is None else float(rec["time_ms_median"]) / 1e3


def _verified(*recs):
    done = [r for r in recs if r is not None and not _skipped(r)]
    return None if not done else bool(all(bool(r["verified"]) for r in done))


def _stat(rec, key):
    return None if rec is None else json.loads(rec["stats"] or "{}").get(key)


def _note(rec) -> str:
    if rec is None:
        return ""
    if _skipped(rec):
        return "skipped: " + rec["skipped"]
    tags = []
    if rec["stand_in"]:
        tags.append("stand-in graph")
    if rec["extrapolated"]:
        tags.append("scaled: " + str(rec["extrapolation"]))
    return "; ".join(tags)


def _published_s(pub: pd.DataFrame, ds: str, method: str) -> float:
    hit = pub[(pub["dataset"] == ds) & (pub["method"] == method)]["time_s"]
    return float(hit.iloc[0]) if len(hit) and pd.notna(hit.iloc[0]) else float("nan")


# ------------------------------------------------------------------------------ tables
def table1_frame(df: pd.DataFrame, cfg: dict) -> pd.DataFrame:
    """Published beside measured, one row per (graph, method); skipped graphs listed with why."""
    pub = report.published(PAPER, "table1")
    rows = []
    for ds in ROAD_GRAPHS:
        for method in ("bf_serial",) + BF_METHODS:
            paper = _published_s(pub, ds, method)
            faith = record(df, "table1", ds, method)
            early = record(df, "table1_early_exit", ds, method)
            if ds in cfg["road_skipped"] or (faith is None and early is None):
                if method == "bf_serial" and math.isnan(paper):
                    continue
                rows.append({"graph": ds, "method": LABELS[method], "paper s": paper,
                             "note": cfg["road_skipped"].get(ds, "not run in this profile")})
                continue
            ref = faith if faith is not None else early
            rows.append({
                "graph": ds, "nodes": ref["n"], "arcs": ref["m"],
                "input": "stand-in" if ref["stand_in"] else "original",
                "method": LABELS[method], "paper s": paper,
                "ours faithful s": _seconds(faith), "ours early-exit s": _seconds(early),
                "iterations to converge": _stat(early, "converged_after"),
                "verified": _verified(faith, early),
                "note": _note(faith) or _note(early),
            })
    return pd.DataFrame(rows)


def table2_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Table 2 (Dijkstra APSP on the paper's one graph): published beside measured, per method."""
    pub = report.published(PAPER, "table2")
    rows = []
    for method in ("dijkstra_serial", "dijkstra_naive_apsp"):
        ds = pub["dataset"].iloc[0]
        rec = record(df, "table2", ds, method)
        rows.append({"graph": ds, "method": LABELS[method], "paper s": _published_s(pub, ds, method),
                     "ours s": _seconds(rec), "verified": _verified(rec),
                     "note": _note(rec) or ("" if rec is not None else "not run")})
    return pd.DataFrame(rows)


def table3_frame(df: pd.DataFrame, memory: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 3 (FW variants): published beside measured per (graph, method), with the device
    GiB of ``memory`` (:func:`apsp_kernels.experiments.bodra.table3`'s) where given."""
    pub = report.published(PAPER, "table3")
    rows = []
    for ds in GNUTELLA:
        for method in ("fw_serial",) + FW_METHODS:
            rec = record(df, "table3", ds, method)
            paper = _published_s(pub, ds, method)
            if rec is None and math.isnan(paper):
                continue
            row = {"graph": ds, "method": LABELS[method], "paper s": paper, "ours s": _seconds(rec),
                   "verified": _verified(rec),
                   "note": _note(rec) or ("not re-run (paper's number)" if rec is None else "")}
            if rec is not None:
                row.update(nodes=rec["n"], arcs=rec["m"])
            if memory is not None and len(memory):
                hit = memory[(memory["graph"] == ds) & (memory["method"] == LABELS[method])]
                row["device GiB"] = float(hit["device GiB"].iloc[0]) if len(hit) else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def extrapolation_check(df: pd.DataFrame, cfg: dict) -> pd.DataFrame:
    """The prefix estimate beside the full measurement of the same variant and graph."""
    if not cfg["fw_extrapolation_check"]:
        return pd.DataFrame()
    name, ds = cfg["fw_extrapolation_check"]
    est, full = record(df, "table3", ds, name), record(df, "table3_full_check", ds, name)
    if est is None or full is None or est["skipped"] or full["skipped"]:
        return pd.DataFrame()
    return pd.DataFrame([{"graph": ds, "method": LABELS[name], "prefix estimate s": _seconds(est),
                          "full run s": _seconds(full),
                          "estimate / full": est["time_ms_median"] / full["time_ms_median"]}])


def speed_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The speed reference per n: the author's time (with copies) beside ours, with and without."""
    pub = report.published(PAPER, "speed_reference")
    sel = df[df["experiment"] == "speed_reference"]
    rows = []
    for n in sorted(set(sel["n"])):
        at = sel[sel["n"] == n]
        kern = at[at["timing_scope"] == "kernel"]
        copy = at[at["timing_scope"] == "with_transfers"]
        ref = pub[pub["n"] == n]
        author = float(ref["time_ms"].iloc[0]) if len(ref) else np.nan
        ours_copy = float(copy["time_ms_median"].iloc[0]) if len(copy) else np.nan
        rows.append({"graph": at["graph"].iloc[0], "n": n,
                     "author ms (with copies)": author,
                     "author device": ref["device"].iloc[0] if len(ref) else "",
                     "our device": at["device"].iloc[0],
                     "ours ms (with copies)": ours_copy,
                     "ours ms (kernel only)": float(kern["time_ms_median"].iloc[0]) if len(kern) else np.nan,
                     "author / ours (with copies)": author / ours_copy,
                     "verified": bool(at["verified"].all()),
                     "note": "; ".join(sorted({s for s in at["skipped"].fillna("") if s}))})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ figures
def fig5(table: pd.DataFrame):
    """Fig. 5 analogue: Bellman-Ford per graph, paper (hatched) beside ours (faithful, solid;
    early exit as black markers)."""
    return _bars(table, BF_METHODS, "ours faithful s",
                 "Fig. 5 analogue: Bellman-Ford, |V|-1 iterations (x: ours with early exit)",
                 marker_col="ours early-exit s")


def fig6(table: pd.DataFrame):
    """Fig. 6 analogue: Floyd-Warshall times per graph, paper (hatched) beside ours."""
    return _bars(table, FW_METHODS, "ours s", "Fig. 6 analogue: Floyd-Warshall variants")


def _bars(table: pd.DataFrame, methods, ours_col: str, title: str, marker_col: str | None = None):
    import matplotlib.pyplot as plt
    graphs = list(dict.fromkeys(table["graph"]))
    fig, ax = plt.subplots(figsize=(max(6.5, 1.15 * len(graphs) * len(methods) / 1.5), 4.6))
    width = 0.8 / (2 * len(methods))
    x = np.arange(len(graphs))
    for i, m in enumerate(methods):
        sel = table[table["method"] == LABELS[m]].set_index("graph").reindex(graphs)
        col = lambda c: (sel[c].astype(float).to_numpy() if c in sel  # noqa: E731
                         else np.full(len(graphs), np.nan))
        pos = x - 0.4 + width * (2 * i + 0.5)
        ax.bar(pos, col("paper s"), width, color=COLORS[m], alpha=0.35, hatch="//",
               edgecolor=COLORS[m], label=f"{LABELS[m]} (paper)")
        ax.bar(pos + width, col(ours_col), width, color=COLORS[m], label=f"{LABELS[m]} (ours)")
        if marker_col:
            ax.plot(pos + width, col(marker_col), "kx", ms=6,
                    label="ours, early exit" if i == 0 else None)
    ticks = []
    for gname in graphs:
        sel = table[table["graph"] == gname]
        notes = " ".join(str(s) for s in sel["note"].fillna(""))
        ran = ours_col in sel and sel[ours_col].astype(float).notna().any()
        tags = []
        if "input" in sel and (sel["input"] == "stand-in").any():
            tags.append("stand-in")
        if "scaled:" in notes:
            tags.append("partly scaled")
        if not ran:
            tags.append("not run")
        ticks.append("\n".join([gname] + tags))
    ax.set_xticks(x, ticks, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("time [s] (log scale)")
    ax.set_title(f"{title}\npaper: GeForce (CUDA 10); ours: {report.title_suffix()}", fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig
