"""liu's tables and figures (:mod:`apsp_kernels.experiments.liu`): the fig1 records as a long
table of seconds, the paper's Fig. 1, 2 and 4 tables, ours beside them, the speedups, the GPU
bandwidth bound, the GPU variants and Fig. 3's line charts."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from .. import report
from ..records import as_frame, json_cells
from ..sssp_iterative.spmv import bytes_per_sweep
from .liu_space import (GPU_ALG, GPU_TOTAL, MEMORY_BANDWIDTH, PAPER, PAPER_THREADS, PUBLISHED, SERIAL,
                        degree_of, label, parallel_col)


def _kind(row) -> str:
    if row["method"] == "sssp_spmv":
        return GPU_TOTAL if row["timing_scope"] == "with_transfers" else GPU_ALG
    if row["method"] == "dijkstra_parallel":
        return parallel_col(int(json.loads(row["params"]).get("threads", PAPER_THREADS)))
    return SERIAL


def times(records) -> pd.DataFrame:
    """Long table of the fig1 records: n, min_degree, kind, seconds (NaN when skipped), flags.

    A run that failed the oracle check keeps no time: ``skipped`` says so.
    """
    df = as_frame(records)
    df = df[df["experiment"] == "fig1"].copy()
    graphs = df["graph"].map(degree_of)
    out = pd.DataFrame({
        "n": df["n"].astype(int), "min_degree": graphs, "kind": df.apply(_kind, axis=1),
        "seconds": df["time_ms_median"].astype(float) / 1e3,
        "verified": df["verified"].astype(bool), "skipped": df["skipped"].fillna("").astype(str),
        "extrapolated": df["extrapolated"].astype(bool), "device": df["device"].astype(str),
    })
    failed = ~out["verified"] & (out["skipped"] == "")
    out.loc[failed, "seconds"] = np.nan  # a wrong answer has no time worth comparing
    out.loc[failed, "skipped"] = "FAILED the oracle check (time dropped)"
    return out.reset_index(drop=True)


def published_long() -> pd.DataFrame:
    """The paper's four Fig. 1 tables, long: n, min_degree, kind, seconds."""
    parts = []
    for kind, table in PUBLISHED.items():
        t = report.published(PAPER, table)[["n", "min_degree", "seconds"]].copy()
        t["kind"] = kind
        parts.append(t)
    return pd.concat(parts, ignore_index=True)


def side_by_side(measured: pd.DataFrame, kind: str, value: str = "seconds",
                 published: pd.DataFrame | None = None, published_kind: str | None = None) -> pd.DataFrame:
    """Rows N, columns '<deg> ours' and '<deg> paper' for one implementation.

    ``published_kind``: the paper's column to put beside ``kind`` (default the same name).
    """
    mine = measured[measured["kind"] == kind].pivot_table(index="n", columns="min_degree",
                                                           values=value, aggfunc="first", dropna=False)
    cols = {}
    degrees = sorted(set(measured["min_degree"]))
    pub = None
    if published is not None:
        pub = published[published["kind"] == (published_kind or kind)].pivot_table(index="n", columns="min_degree",
                                                                values=value, aggfunc="first")
    for d in degrees:
        cols[f"{d} ours"] = mine[d] if d in mine else np.nan
        if pub is not None:
            cols[f"{d} paper"] = pub[d].reindex(mine.index) if d in pub else np.nan
    if not cols:
        return pd.DataFrame({"N": sorted(set(measured["n"]))})
    out = pd.DataFrame(cols, index=mine.index)
    out.index.name = "N"
    return out.reset_index()


def published_edges() -> pd.DataFrame | None:
    """Fig. 2 as (n, min_degree, paper_edges), from a long or a wide (one column per degree) CSV."""
    try:
        pub = report.published(PAPER, "fig2_edges")
    except FileNotFoundError:
        return None
    pub = pub.drop(columns=[c for c in pub.columns if c == "source"])
    if "min_degree" not in pub.columns:  # wide: n, 16, 32, ...
        pub = pub.melt(id_vars="n", var_name="min_degree", value_name="paper_edges")
        pub["min_degree"] = pub["min_degree"].astype(str).str.extract(r"(\d+)")[0].astype(int)
    else:
        val = next(c for c in pub.columns if c not in ("n", "min_degree"))
        pub = pub.rename(columns={val: "paper_edges"})
    return pub[["n", "min_degree", "paper_edges"]].astype(int)


def edges_table(edges: pd.DataFrame) -> pd.DataFrame:
    """Fig. 2: our undirected edge counts beside the paper's (when transcribed)."""
    out = edges[["n", "min_degree", "undirected_edges", "sssp_source", "generate_s"]].copy()
    pub = published_edges()
    if pub is not None:
        out = out.merge(pub, on=["n", "min_degree"], how="left")
        out["ours / paper"] = out["undirected_edges"] / out["paper_edges"]
    else:
        out["paper_edges"] = np.nan
        out["ours / paper"] = np.nan
    out["edges / (N*MIN_DEGREE)"] = out["undirected_edges"] / (out["n"] * out["min_degree"])
    return out


def speedups(measured: pd.DataFrame) -> pd.DataFrame:
    """Fig. 4, long: speedup of each parallel implementation over our serial Dijkstra per cell."""
    wide = measured.pivot_table(index=["n", "min_degree"], columns="kind", values="seconds",
                                aggfunc="first", dropna=False)
    rows = []
    for kind in wide.columns:
        if kind == SERIAL:
            continue
        sp = wide[SERIAL] / wide[kind] if SERIAL in wide else np.nan
        rows.append(pd.DataFrame({"kind": kind, "seconds": sp}).reset_index())
    out = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(
        columns=["n", "min_degree", "kind", "seconds"])
    return out.rename(columns={"seconds": "speedup"})


def published_speedups() -> pd.DataFrame:
    parts = []
    for kind, table in (("parallel_4", "fig4_speedup_openmp"), (GPU_ALG, "fig4_speedup_cuda")):
        t = report.published(PAPER, table)[["n", "min_degree", "speedup"]].copy()
        t["kind"] = kind
        parts.append(t)
    return pd.concat(parts, ignore_index=True)


def bandwidth_table(records) -> pd.DataFrame:
    """GPU algorithm time against a DRAM bound: sweeps x compulsory bytes per sweep / 3 TB/s.

    The bound counts column pointers, row ids and weights of every sweep plus the predecessor
    pass (the distance vector stays in L2) and ignores launch and host-check latency.
    """
    df = as_frame(records)
    df = df[(df["experiment"] == "fig1") & (df["method"] == "sssp_spmv")
            & (df["timing_scope"] == "kernel")]
    rows = []
    for (_, r), stats in zip(df.iterrows(), json_cells(df["stats"])):
        sweeps = stats.get("sweeps")
        n, m = int(r["n"]), int(r["m"])
        per = bytes_per_sweep(n, m)
        passes = (sweeps + 1) if sweeps else np.nan  # + the predecessor pass
        bound_ms = passes * per / MEMORY_BANDWIDTH * 1e3 if sweeps else np.nan
        ms = float(r["time_ms_median"])
        rows.append({"n": n, "min_degree": degree_of(r["graph"]), "arcs": m,
                     "sweeps": sweeps, "launches": stats.get("launches"),
                     "host_checks": stats.get("host_checks"), "lanes_per_column": stats.get("group"),
                     "MB_per_sweep": per / 1e6, "algorithm_ms": ms, "bound_ms": bound_ms,
                     "achieved_GB_s": passes * per / (ms * 1e-3) / 1e9 if sweeps and ms > 0 else np.nan,
                     "ms / bound": ms / bound_ms if sweeps else np.nan,
                     "skipped": r["skipped"] if isinstance(r["skipped"], str) else ""})
    return pd.DataFrame(rows)


def variants_table(records) -> pd.DataFrame:
    df = as_frame(records)
    df = df[df["experiment"] == "gpu_variants"]
    rows = []
    for (_, r), params, stats in zip(df.iterrows(), json_cells(df["params"]), json_cells(df["stats"])):
        rows.append({"n": r["n"], "arcs": r["m"], "graph": r["graph"],
                     "lanes_per_column": stats.get("group", params.get("group", "auto")),
                     "check_every": stats.get("check_every", params.get("check_every")),
                     "sweeps": stats.get("sweeps"), "launches": stats.get("launches"),
                     "algorithm_ms": r["time_ms_median"], "verified": r["verified"],
                     "skipped": r["skipped"]})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- figures


def line_chart(measured: pd.DataFrame, published: pd.DataFrame | None, kinds: dict,
               x: str = "n", hue: str = "min_degree", value: str = "seconds", ylabel: str = "seconds",
               title: str = ""):
    """Fig. 3: one panel per implementation, ``value`` against ``x``, one colour per ``hue``.

    ``kinds`` maps our kind -> the paper's kind (or None). Ours solid with markers, the
    paper's dashed; both axes logarithmic.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    cols = min(2, len(kinds))
    rows = math.ceil(len(kinds) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 4.2 * rows), squeeze=False)
    hues = sorted(set(measured[hue]) | (set(published[hue]) if published is not None else set()))
    colors = plt.cm.viridis(np.linspace(0, 0.9, max(len(hues), 1)))
    for ax, (kind, pub_kind) in zip(axes.flat, kinds.items()):
        for h, c in zip(hues, colors):
            mine = measured[(measured["kind"] == kind) & (measured[hue] == h)].sort_values(x)
            mine = mine.dropna(subset=[value])
            if len(mine):
                ax.plot(mine[x], mine[value], "-o", color=c, ms=3)
            if published is not None and pub_kind is not None:
                p = published[(published["kind"] == pub_kind) & (published[hue] == h)].sort_values(x)
                if len(p):
                    ax.plot(p[x], p[value], "--", color=c, alpha=0.6)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel({"n": "N (vertices)", "min_degree": "MIN_DEGREE"}.get(x, x))
        ax.set_ylabel(ylabel)
        ax.set_title(label(kind), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(kinds):]:
        ax.set_visible(False)
    handles = [Line2D([], [], color=c, marker="o", ms=3, label=f"{hue.replace('min_degree', 'MIN_DEGREE')}={h}")
               for h, c in zip(hues, colors)]
    handles += [Line2D([], [], color="k", ls="-", label="ours (measured)"),
                Line2D([], [], color="k", ls="--", alpha=0.6, label="paper (K80 / 4 vCPUs)")]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 5), fontsize=8,
               bbox_to_anchor=(0.5, -0.02 - 0.03 * math.ceil(len(handles) / 5)))
    fig.suptitle(title)
    fig.tight_layout()
    return fig

