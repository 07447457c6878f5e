"""takafuji's tables (:mod:`apsp_kernels.experiments.takafuji`): the records frame, Table I and
Table II in the paper's layout beside the measured times, their summaries, the paths overhead,
the task-id figures (Fig. 3, 4) and the protocol simulation's summary."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..blocked_fw import task_schedule as ts
from ..records import json_cells, to_frame
from ..report import published
from .takafuji_space import PAPER, PEAK_MINPLUS_F32, THREADS


def frame(records) -> pd.DataFrame:
    """Records as a frame with params/stats columns unpacked (threads, blocks, launches, ...)."""
    df = to_frame(records)
    if df.empty:
        return df
    params, stats = json_cells(df["params"]), json_cells(df["stats"])
    df["threads"] = params.map(lambda p: p.get("threads")).astype("Int64")
    df["blocks"] = stats.map(lambda s: s.get("blocks")).astype("Int64")
    df["launches"] = stats.map(lambda s: s.get("launches")).astype("Int64")
    df["co_resident"] = stats.map(lambda s: s.get("co_resident_blocks")).astype("Int64")
    df["instances"] = params.map(lambda p: p.get("instances", 1)).astype("Int64")
    df["minplus_Tops"] = df["instances"] * df["n"].astype(float) ** 3 / (df["time_ms_median"] * 1e-3) / 1e12
    df["pct_of_peak"] = 100 * df["minplus_Tops"] * 1e12 / PEAK_MINPLUS_F32
    return df


def table1_long(records) -> pd.DataFrame:
    """One row per (kernel, T, n) of Table I with time, B, rate and verification."""
    df = frame([r for r in records if r.experiment == "table1"])
    if df.empty:
        return df
    df["kernel"] = df["method"]
    cols = ["kernel", "threads", "n", "time_ms_median", "time_ms_min", "repeats", "blocks",
            "launches", "minplus_Tops", "pct_of_peak", "verified", "verify_scope", "skipped"]
    return df[cols].sort_values(["kernel", "threads", "n"]).reset_index(drop=True)


def _fmt(x, best=False):
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "–"
    s = f"{x:.0f}" if x >= 1000 else f"{x:.4g}"
    return "*" + s if best else s


def table1_layout(long: pd.DataFrame) -> pd.DataFrame:
    """Table I as printed in the paper (rows kernel/T, B, speedup; columns n), paper (V100)
    and measured values on alternating rows, * = best per column and kernel."""
    pub = published(PAPER, "table1")
    summ = published(PAPER, "table1_summary").set_index("n")
    ns = sorted(set(pub["n"]) | (set(long["n"]) if not long.empty else set()))
    rows = {}
    meas = long[long["skipped"].fillna("") == ""] if not long.empty else long
    for kernel in ("multi", "single"):
        for T in THREADS:
            p, m = {}, {}
            for n in ns:
                pc = pub[(pub.kernel == kernel) & (pub.threads == T) & (pub.n == n)]
                p[n] = _fmt(float(pc.time_ms.iloc[0]), bool(pc.best.iloc[0])) if len(pc) else "–"
                mc = meas[(meas.kernel == kernel) & (meas.threads == T) & (meas.n == n)] if len(meas) else meas
                if len(mc):
                    col = meas[(meas.kernel == kernel) & (meas.n == n)].time_ms_median
                    t = float(mc.time_ms_median.iloc[0])
                    m[n] = _fmt(t, t == col.min())
                else:
                    m[n] = "–"
            rows[(f"{kernel} T={T}", "paper V100")] = p
            rows[(f"{kernel} T={T}", "measured")] = m
    summary = table1_summary(long)
    s = summary.set_index("n") if not summary.empty else summary
    rows[("B (single)", "paper V100")] = {n: str(summ.blocks_single.get(n, "–")) for n in ns}
    rows[("B (single)", "measured")] = {n: (str(int(s.loc[n, "best_single_blocks"])) if len(s) and n in s.index
                                            and pd.notna(s.loc[n, "best_single_blocks"]) else "–") for n in ns}
    rows[("speedup single/multi", "paper V100")] = {n: _fmt(summ.speedup.get(n, np.nan)) for n in ns}
    rows[("speedup single/multi", "measured")] = {n: (_fmt(float(s.loc[n, "speedup"])) if len(s) and n in s.index
                                                      else "–") for n in ns}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index = pd.MultiIndex.from_tuples(out.index, names=["row", "source"])
    out.columns = [f"n={n}" for n in ns]
    return out


def table1_summary(long: pd.DataFrame) -> pd.DataFrame:
    """Per n: best multi and best single (T, B, ms), speedup beside the paper's, min-plus rate,
    launches, and the time saved per avoided launch."""
    if long.empty:
        return pd.DataFrame()
    pub = published(PAPER, "table1")
    summ = published(PAPER, "table1_summary").set_index("n")
    ok = long[(long["skipped"].fillna("") == "") & long["verified"].astype(bool)]
    rows = []
    for n, grp in ok.groupby("n"):
        bm = grp[grp.kernel == "multi"].sort_values("time_ms_median").head(1)
        bs = grp[grp.kernel == "single"].sort_values("time_ms_median").head(1)
        if bm.empty or bs.empty:
            continue
        tm, tsg = float(bm.time_ms_median.iloc[0]), float(bs.time_ms_median.iloc[0])
        pm = pub[(pub.kernel == "multi") & (pub.n == n)].time_ms.min()
        psg = pub[(pub.kernel == "single") & (pub.n == n)].time_ms.min()
        launches = int(bm.launches.iloc[0])
        rows.append({
            "n": n, "best_multi_T": int(bm.threads.iloc[0]), "best_multi_ms": tm,
            "best_single_T": int(bs.threads.iloc[0]), "best_single_blocks": bs.blocks.iloc[0],
            "best_single_ms": tsg, "speedup": tm / tsg,
            "paper_multi_ms": pm, "paper_single_ms": psg, "paper_speedup": summ.speedup.get(n, np.nan),
            "H100_vs_V100_single": psg / tsg if np.isfinite(psg) else np.nan,
            "best_Tops": max(float(bm.minplus_Tops.iloc[0]), float(bs.minplus_Tops.iloc[0])),
            "best_pct_of_peak": max(float(bm.pct_of_peak.iloc[0]), float(bs.pct_of_peak.iloc[0])),
            "launches_multi": launches, "launches_single": 1,
            "saved_us_per_launch": 1e3 * (tm - tsg) / max(1, launches - 1),
        })
    return pd.DataFrame(rows)


def paths_table(records) -> pd.DataFrame:
    df = frame([r for r in records if r.experiment == "paths"])
    if df.empty:
        return df
    rows = []
    for (n, kernel), grp in df.assign(kernel=df.method.str.replace("_paths", "")).groupby(["n", "kernel"]):
        plain = grp[grp.method == kernel].time_ms_median
        paths = grp[grp.method == kernel + "_paths"]
        t0 = float(plain.iloc[0]) if len(plain) else np.nan
        t1 = float(paths.time_ms_median.iloc[0]) if len(paths) else np.nan
        rows.append({"n": n, "kernel": kernel, "time_ms": t0, "with_paths_ms": t1,
                     "overhead_pct": 100 * (t1 / t0 - 1),
                     "paths_verified": bool(paths.verified.iloc[0]) if len(paths) else False,
                     "verify_scope": paths.verify_scope.iloc[0] if len(paths) else ""})
    return pd.DataFrame(rows)


def table2_long(records) -> pd.DataFrame:
    df = frame([r for r in records if r.experiment == "table2"])
    if df.empty:
        return df
    df["kernel"] = df.method.str.replace("bulk_", "")
    cols = ["instances", "kernel", "n", "time_ms_median", "blocks", "launches", "minplus_Tops",
            "pct_of_peak", "verified", "verify_scope", "skipped"]
    return df[cols].sort_values(["instances", "kernel", "n"]).reset_index(drop=True)


def table2_layout(long: pd.DataFrame) -> pd.DataFrame:
    """Table II in the paper's layout: rows (m, kernel, paper V100 | measured), columns n."""
    pub = published(PAPER, "table2")
    ns = sorted(set(pub.n))
    ms = sorted(set(pub.instances) | (set(long.instances.dropna().astype(int)) if not long.empty else set()))
    rows = {}
    for m in ms:
        for kernel in ("multi", "single"):
            p, meas = {}, {}
            for n in ns:
                v = pub[(pub.instances == m) & (pub.kernel == kernel) & (pub.n == n)].time_ms
                p[n] = _fmt(float(v.iloc[0])) if len(v) else "–"
                c = long[(long.instances == m) & (long.kernel == kernel) & (long.n == n)] if len(long) else long
                if len(c) and (c.skipped.fillna("") == "").iloc[0]:
                    meas[n] = _fmt(float(c.time_ms_median.iloc[0])) + ("" if bool(c.verified.iloc[0]) else " (NOT VERIFIED)")
                else:
                    meas[n] = "–"
            rows[(m, kernel, "paper V100")] = p
            rows[(m, kernel, "measured")] = meas
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index = pd.MultiIndex.from_tuples(out.index, names=["instances", "kernel", "source"])
    out.columns = [f"n={n}" for n in ns]
    return out


def table2_speedups(long: pd.DataFrame) -> pd.DataFrame:
    """Per (m, n): multi / single time ratio measured and in the paper, and the bulk rate."""
    pub = published(PAPER, "table2")
    rows = []
    ok = long[(long.skipped.fillna("") == "") & long.verified.astype(bool)] if len(long) else long
    for (m, n), grp in ok.groupby(["instances", "n"]):
        tm = grp[grp.kernel == "multi"].time_ms_median
        tsg = grp[grp.kernel == "single"].time_ms_median
        if tm.empty or tsg.empty:
            continue
        pm = pub[(pub.instances == m) & (pub.n == n) & (pub.kernel == "multi")].time_ms
        psg = pub[(pub.instances == m) & (pub.n == n) & (pub.kernel == "single")].time_ms
        rows.append({"instances": m, "n": n, "multi_ms": float(tm.iloc[0]), "single_ms": float(tsg.iloc[0]),
                     "speedup": float(tm.iloc[0]) / float(tsg.iloc[0]),
                     "paper_speedup": float(pm.iloc[0]) / float(psg.iloc[0]) if len(pm) and len(psg) else np.nan,
                     "paper_single_ms": float(psg.iloc[0]) if len(psg) else np.nan,
                     "best_Tops": float(grp.minplus_Tops.max()),
                     "best_pct_of_peak": float(grp.pct_of_peak.max())})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- Fig. 3, 4 and the protocol


def task_id_figure(N: int, m: int, Z: int) -> pd.DataFrame:
    """Task ids of round Z laid out per instance (the paper's Fig. 3 for m = 1, Fig. 4 for m = 8)."""
    ids = ts.task_ids(N, m, Z)
    frames = {f"G{i}": pd.DataFrame(ids[i], index=[f"I={r}" for r in range(N)],
                                     columns=[f"J={c}" for c in range(N)]) for i in range(m)}
    return pd.concat(frames, axis=1)


def protocol_summary(proto: pd.DataFrame) -> pd.DataFrame:
    """Per rule (with or without the readers wait): runs, deadlocks, runs with races, wrong results."""
    return (proto.groupby("waits_for_readers")
            .agg(runs=("blocks", "size"), deadlocks=("deadlock", "sum"),
                 runs_with_races=("violations", lambda v: int((v > 0).sum())),
                 wrong_results=("result_equal", lambda v: int((~v.astype(bool)).sum())))
            .reset_index())

