"""The method map's tables and figures (:mod:`apsp_kernels.experiments.method_map`): a sweep's
records as a frame, the winner of each cell, failures, coverage and float64 beside int32."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..records import as_frame, json_cells, solved_fewer_sources
from .map_space import DENSE_FAMILIES, FLOAT64_FAMILIES, FLOAT64_SERIES, TOPOLOGIES, density_label


def frame(records) -> pd.DataFrame:
    """Records (or a records frame read back from CSV) with the map's columns: problem,
    topology, density, the unscaled time, ... A run whose solver reports fewer sources than the
    run timed (:func:`short_of_sources`) is not ``ok``: its time is not the planned problem's."""
    df = as_frame(records).copy()
    if df.empty:
        return df
    info = list(json_cells(df["stats"]).map(lambda s: s.get("map", {})))
    df["key"] = df["paper"] + ":" + df["method"]
    df["problem"] = df["experiment"]
    for col in ("topology", "density", "series", "timed_sources", "scale", "predicted_ms"):
        df[col] = [i.get(col) for i in info]
    df["dtype"] = [i.get("dtype", "int32") for i in info]
    df["base_series"] = df["series"].fillna("").str.removesuffix(FLOAT64_SERIES)
    df["scale"] = df["scale"].fillna(1.0).astype(float)
    df["time_ms"] = df["time_ms_median"]
    df["on_gpu"] = df["timing_scope"] != "cpu"
    df["short_of_sources"] = short_of_sources(df)
    df["ok"] = df["verified"].astype(bool) & df["time_ms"].notna() & ~df["short_of_sources"]
    return df

def short_of_sources(df: pd.DataFrame) -> pd.Series:
    """True where the solver solved fewer sources than the run timed
    (:func:`apsp_kernels.records.solved_fewer_sources`)."""
    return df["stats"].map(lambda s: bool(solved_fewer_sources(s))).astype(bool)

def winners(df: pd.DataFrame, problem: str) -> pd.DataFrame:
    """Per cell: the fastest verified GPU method, its time, SciPy's time and the speed-up.

    ``undecided`` names a method skipped by the cap whose predicted time is below the
    winner's (the cell's winner is then not established).
    """
    rows = []
    sub = df[(df["problem"] == problem) & (df["dtype"] == "int32")]  # float64: dtype_comparison
    for (topo, dens, n), cell in sub.groupby(["topology", "density", "n"], sort=True):
        ok = cell[cell["on_gpu"] & cell["ok"]].sort_values("time_ms")
        ref = cell[~cell["on_gpu"] & cell["ok"]]
        row = {"problem": problem, "topology": topo, "density": density_label(topo, dens),
               "density_value": float(dens), "n": int(n), "m": int(cell["m"].max()),
               "winner": "", "time_ms": np.nan, "extrapolated": False, "runner_up": "",
               "scipy_ms": float(ref["time_ms"].iloc[0]) if len(ref) else np.nan,
               "measured": int(len(ok)), "skipped": int(cell["skipped"].astype(bool).sum()),
               "undecided": ""}
        if len(ok):
            best = ok.iloc[0]
            row.update(winner=best["key"], time_ms=float(best["time_ms"]),
                       extrapolated=bool(best["extrapolated"]),
                       runner_up=ok.iloc[1]["key"] if len(ok) > 1 else "")
            capped = cell[cell["on_gpu"] & cell["skipped"].str.startswith("predicted")
                          & (cell["predicted_ms"].astype(float) * cell["scale"] < best["time_ms"])]
            row["undecided"] = ", ".join(sorted(capped["key"]))
        row["speedup_vs_scipy"] = row["scipy_ms"] / row["time_ms"] if len(ok) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)

def failures(df: pd.DataFrame) -> pd.DataFrame:
    """Runs that raised, did not verify or solved fewer sources than timed (cap and budget
    skips are not failures)."""
    bad = df[df["skipped"].str.startswith("error") | (df["time_ms"].notna() & ~df["verified"])
             | df["short_of_sources"]]
    return bad[["key", "problem", "dtype", "graph", "n", "m", "verified", "short_of_sources", "max_error", "skipped"]]

def coverage(df: pd.DataFrame) -> pd.DataFrame:
    """Per method, problem and weight type: runs measured, verified, extrapolated, skipped (and why)."""
    def reasons(s):
        kinds = s[s != ""].str.extract(r"^(error|not applicable|predicted|capped|graph not built|the sweep"
                                       r"|skipped after|dominated|no CUDA)", expand=False).fillna("other")
        return ", ".join(f"{k}: {v}" for k, v in kinds.value_counts().items())
    g = df.groupby(["key", "problem", "dtype"])
    return pd.DataFrame({"measured": g["time_ms"].count(), "verified": g["ok"].sum(),
                         "extrapolated": g["extrapolated"].sum(),
                         "largest_n": g.apply(lambda x: x.loc[x["ok"], "n"].max()),
                         "skips": g["skipped"].apply(reasons)}).reset_index()

def dtype_comparison(df: pd.DataFrame, peaks: dict | None = None) -> pd.DataFrame:
    """Per family of FLOAT64_FAMILIES and float64 run (verified, on the GPU): its time beside the
    int32 time of the same family on the same graph and problem (the family's int32 method:
    csgraph.families; all-pairs times scaled to n sources, ``extrapolated`` when either is), the ratio, and for the dense families the float64 rate n^3 / time
    and its fraction of the same run's float64 (min,+) peak (``minplus_float64_per_s``).
    ``df``: :func:`frame` of the sweep's records, of :func:`road_sssp`'s, or of both."""
    from ..csgraph.families import FAMILIES
    peak = (peaks or {}).get("minplus_float64_per_s")
    ok = df[df["on_gpu"] & df["ok"]] if len(df) else df
    rows = []
    for name in FLOAT64_FAMILIES if len(ok) else ():
        fam = FAMILIES[name]
        narrow = ok[(ok["key"] == fam.int32) & (ok["dtype"] == "int32")]
        for r in ok[(ok["key"] == fam.float64) & (ok["dtype"] == "float64")].itertuples():
            same = narrow[(narrow["problem"] == r.problem) & (narrow["base_series"] == r.base_series)
                          & (narrow["n"] == r.n)]
            int_ms = float(same["time_ms"].iloc[0]) if len(same) else np.nan
            dense = name in DENSE_FAMILIES
            rate = float(r.n) ** 3 / (r.time_ms * 1e-3) if dense else np.nan
            rows.append({"family": name, "problem": r.problem, "series": r.base_series, "n": int(r.n),
                         "m": int(r.m), "int32_method": fam.int32, "int32_ms": int_ms,
                         "float64_method": fam.float64, "float64_ms": float(r.time_ms),
                         "float64_over_int32": float(r.time_ms) / int_ms,
                         "extrapolated": bool(r.extrapolated or (len(same) and same["extrapolated"].iloc[0])),
                         "float64_T_per_s": rate / 1e12,
                         "of_float64_peak": rate / peak if dense and peak else np.nan})
    return pd.DataFrame(rows, columns=["family", "problem", "series", "n", "m", "int32_method", "int32_ms",
                                       "float64_method", "float64_ms", "float64_over_int32",
                                       "extrapolated", "float64_T_per_s", "of_float64_peak"])

def plot_winners(win: pd.DataFrame, title: str, colors: dict | None = None):
    """One panel per topology: n across, density up, colour = the fastest verified method,
    text = speed-up over SciPy on one host core (hatched: a capped method may be faster)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    topos = [t for t in TOPOLOGIES if t in set(win["topology"])] if len(win) else []
    colors = colors or method_colors(win["winner"] if len(win) else [])
    fig, axes = plt.subplots(1, max(len(topos), 1), figsize=(4.2 * max(len(topos), 1), 3.6),
                             squeeze=False)
    for ax, topo in zip(axes[0], topos):
        cell = win[win["topology"] == topo]
        xs = sorted(set(cell["n"]))
        ys = cell.drop_duplicates("density").sort_values("density_value")["density"].tolist()
        for r in cell.itertuples():
            x, y = xs.index(r.n), ys.index(r.density)
            face = colors.get(r.winner, "white") if r.winner else "whitesmoke"
            ax.add_patch(plt.Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor=face, edgecolor="grey",
                                       hatch="//" if r.undecided else None))
            text = f"{r.speedup_vs_scipy:.3g}x" if np.isfinite(r.speedup_vs_scipy) else \
                ("-" if not r.winner else "")
            ax.text(x, y, text + ("*" if r.extrapolated else ""), ha="center", va="center",
                    fontsize=6)
        ax.set(xlim=(-0.5, len(xs) - 0.5), ylim=(-0.5, len(ys) - 0.5), title=topo,
               xlabel="vertices n", ylabel="arcs per vertex m/n")
        ax.set_xticks(range(len(xs)), [str(x) for x in xs], rotation=60, fontsize=7)
        ax.set_yticks(range(len(ys)), ys, fontsize=7)
    handles = [Patch(facecolor=c, label=k) for k, c in colors.items() if k in set(win["winner"])]
    handles.append(Patch(facecolor="whitesmoke", edgecolor="grey", label="no verified GPU run"))
    fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=7, bbox_to_anchor=(0.5, -0.18))
    fig.suptitle(title + "\ncell text: speed-up over SciPy (one host core); * = extrapolated from "
                 "sampled sources; hatched = a method skipped by the cap is predicted faster",
                 fontsize=9)
    fig.tight_layout()
    return fig

def method_colors(keys) -> dict:
    keys = sorted({k for k in keys if k})
    cmap = __import__("matplotlib").colormaps["tab20"]
    return {k: cmap(i % 20) for i, k in enumerate(keys)}
