"""okuyama's tables and figures (:mod:`apsp_kernels.experiments.okuyama`): records as a frame,
each figure's and Table 1's table, the path-recording overhead, the N sweep, the time ratios the
claims read and the per-method line plot."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import provenance
from ..records import json_cells, to_frame
from .okuyama_space import COLORS, GPU_METHODS, LABELS


def frame(records) -> pd.DataFrame:
    """Records as a frame with ``time_s``, ``label`` and the stats expanded."""
    df = to_frame(records)
    if df.empty:
        return df
    df["time_s"] = df["time_ms_median"] / 1e3
    df["label"] = df["method"].map(lambda m: LABELS.get(m, m))
    df["topology"] = df["graph"].map(topology_of)
    df["w_max"] = df["graph"].str.extract(r"-w(\d+)-", expand=False).astype(float)
    stats = json_cells(df["stats"])
    for key in ("iterations_per_sssp_mean", "iterations_per_group_mean", "iterations_per_group_max",
                "launches_per_sssp", "kernel_launches", "N", "B", "threads", "host_syncs"):
        df[key] = stats.map(lambda d, key=key: d.get(key, np.nan))
    return df


def topology_of(graph_name: str) -> str:
    """Table 1 topology from a generated graph's name."""
    prefix = str(graph_name).split("-", 1)[0]
    return {"random": "random", "rmat": "power_law", "ring": "ring",
            "complete": "complete"}.get(prefix, prefix)


def iterations(row) -> float:
    """Iterations per SSSP (Harish) or per group (proposed): the paper's 'launches per SSSP'."""
    a = row.get("iterations_per_sssp_mean")
    if a is not None and not pd.isna(a):
        return a
    return row.get("iterations_per_group_mean")


def time_table(records, index="n", extra=()) -> pd.DataFrame:
    """Seconds per method (columns) with '*' marking extrapolated cells."""
    df = frame(records)
    df["cell"] = [(f"{t:.4g}" + ("*" if x else "")) if t == t else "skipped"
                  for t, x in zip(df["time_s"], df["extrapolated"])]
    keys = [index, *extra]
    return df.pivot_table(index=keys, columns="method", values="cell", aggfunc="first",
                          sort=False).reindex(columns=[m for m in LABELS if m in set(df["method"])])


def fig11_speedups(records, baseline="dijkstra_cpu") -> pd.DataFrame:
    """Speedup of every method over the all-cores CPU Dijkstra, per |V| (Fig. 11)."""
    df = frame(records)
    base = df[df["method"] == baseline].set_index("n")["time_s"]
    out = df[df["method"] != baseline][["n", "method", "label", "time_s", "extrapolated"]].copy()
    out["cpu_time_s"] = out["n"].map(base)
    out["speedup_over_cpu"] = out["cpu_time_s"] / out["time_s"]
    return out.reset_index(drop=True)


def sweep_table(records, key: str) -> pd.DataFrame:
    """Long table for Fig. 12 (key "m") or Fig. 13 (key "w_max"): seconds and iterations."""
    df = frame(records)
    df["iterations"] = [iterations(r) for _, r in df.iterrows()]
    cols = [key, "method", "label", "time_s", "extrapolated", "iterations", "verified",
            "verify_scope", "skipped"]
    return df[cols].reset_index(drop=True)


def table1_compare(records, published: pd.DataFrame) -> pd.DataFrame:
    """Published seconds beside measured (this GPU), with iterations per SSSP/group."""
    df = frame(records)
    df["iterations"] = [iterations(r) for _, r in df.iterrows()]
    pub = published.set_index(["method", "topology"])["seconds"]
    df["published_s"] = [pub.get((m, t), np.nan) for m, t in zip(df["method"], df["topology"])]
    df["measured_s"] = df["time_s"]
    df["paper_over_measured"] = df["published_s"] / df["measured_s"]
    cols = ["topology", "method", "label", "published_s", "measured_s", "extrapolated",
            "iterations", "launches_per_sssp", "verified", "verify_scope", "skipped"]
    return df[cols]


def fig14_overhead(records) -> pd.DataFrame:
    """Overhead (%) = time with paths / time without - 1, per |V|."""
    df = frame(records)
    piv = df.pivot_table(index="n", columns="method", values="time_s", aggfunc="first")
    out = pd.DataFrame({"n": piv.index})
    if {"task_parallel_shared", "task_parallel_shared_paths"} <= set(piv.columns):
        base = piv["task_parallel_shared"].to_numpy()
        with_paths = piv["task_parallel_shared_paths"].to_numpy()
        out["cost_s"] = base
        out["with_paths_s"] = with_paths
        out["overhead_pct"] = 100.0 * (with_paths / base - 1.0)
    out["basis"] = [provenance.weakest(r.basis for r in records if r.n == n) for n in out["n"]]
    return out


def n_sweep_table(records) -> pd.DataFrame:
    df = frame(records)
    params = json_cells(df["params"])
    df["N_param"], df["B_param"] = params.map(lambda p: p.get("N")), params.map(lambda p: p.get("B"))
    df["iterations"] = [iterations(r) for _, r in df.iterrows()]
    df["groups"] = np.ceil(df["n"] / df["N"]).astype("float")
    cols = ["method", "N_param", "B_param", "N", "B", "groups", "time_s", "extrapolated",
            "iterations", "kernel_launches", "host_syncs", "verified", "skipped"]
    return df[cols]


def ratios(records, num: str, den: str, by=("experiment", "n", "graph")) -> pd.DataFrame:
    """time(num) / time(den) on every graph where both ran (num slower -> ratio > 1)."""
    df = frame(records)
    df = df[df["time_s"] == df["time_s"]]
    keys = list(by)
    a = df[df["method"] == num].set_index(keys)["time_s"]
    b = df[df["method"] == den].set_index(keys)["time_s"]
    both = a.index.intersection(b.index)
    out = pd.DataFrame({"ratio": (a[both] / b[both]).to_numpy()},
                       index=both).reset_index()
    return out


def best_gpu_vs_cpu(records, graph_name: str) -> dict:
    """Best GPU method vs best all-cores CPU method on one graph (the speed goal)."""
    df = frame(records)
    df = df[(df["graph"] == graph_name) & (df["time_s"] == df["time_s"])]
    gpu_rows = df[df["method"].isin(GPU_METHODS) | df["method"].str.startswith("task_parallel")]
    cpu_rows = df[df["method"].isin(("dijkstra_cpu", "dijkstra_rustworkx"))]
    if gpu_rows.empty or cpu_rows.empty:
        return {}
    g = gpu_rows.loc[gpu_rows["time_s"].idxmin()]
    c = cpu_rows.loc[cpu_rows["time_s"].idxmin()]
    return {"gpu_method": g["method"], "gpu_params": g["params"], "gpu_s": g["time_s"],
            "gpu_extrapolated": bool(g["extrapolated"]), "cpu_method": c["method"],
            "cpu_s": c["time_s"], "cpu_threads": c["threads"], "speedup": c["time_s"] / g["time_s"]}


def ratio_summary(records, num: str, den: str, experiments=None, graphs=None) -> dict:
    """min / median / max of time(num) / time(den) over the graphs where both ran."""
    r = ratios(records, num, den)
    if experiments is not None:
        r = r[r["experiment"].isin(experiments)]
    if graphs is not None:
        r = r[r["graph"].isin(graphs)]
    if r.empty:
        return {"count": 0, "min": np.nan, "median": np.nan, "max": np.nan, "by_n": {}}
    return {"count": len(r), "min": float(r["ratio"].min()), "median": float(r["ratio"].median()),
            "max": float(r["ratio"].max()),
            "by_n": {int(n): float(x) for n, x in zip(r["n"], r["ratio"])}}


def monotone(values, tol: float = 0.05):
    """True when the finite values never drop by more than ``tol`` (relative) and end higher
    than they start; None with fewer than two values."""
    v = np.asarray([x for x in values if x == x], dtype=float)
    if len(v) < 2:
        return None
    return bool((v[1:] >= v[:-1] * (1 - tol)).all() and v[-1] > v[0])


def fmt_range(s: dict, unit: str = "x") -> str:
    if not s.get("count"):
        return "no data"
    return f"{s['min']:.3g}-{s['max']:.3g}{unit} (median {s['median']:.3g}{unit}, {s['count']} graphs)"


def plot_methods(ax, df: pd.DataFrame, x: str, y: str = "time_s", methods=None, logx=True,
                 logy=True):
    """One line per method; extrapolated points drawn hollow. Returns the number of lines."""
    methods = methods or [m for m in LABELS if m in set(df["method"])]
    lines = 0
    for name in methods:
        d = df[(df["method"] == name) & df[y].notna()].sort_values(x)
        if d.empty:
            continue
        line, = ax.plot(d[x], d[y], "-", label=LABELS.get(name, name), color=COLORS.get(name))
        ext = d["extrapolated"].astype(bool) if "extrapolated" in d else np.zeros(len(d), bool)
        ax.plot(d[x][~ext], d[y][~ext], "o", color=line.get_color())
        ax.plot(d[x][ext], d[y][ext], "o", mfc="none", color=line.get_color())
        lines += 1
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    if lines:
        ax.legend(fontsize=7)
    else:
        ax.text(0.5, 0.5, "no measurements (no GPU?)", ha="center", transform=ax.transAxes)
    return lines

