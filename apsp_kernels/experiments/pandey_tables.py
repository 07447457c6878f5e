"""pandey's tables (:mod:`apsp_kernels.experiments.pandey`): Table 1's speedups beside the
paper's, Fig. 15's R-Kleene against FW and its crossover, the threshold sweep, the (min,+) rates
and one method's time-vs-n line (Fig. 11, 14, 15)."""
from __future__ import annotations

import pandas as pd

from .. import report
from ..minplus.rkleene_plan import plan_counts
from ..minplus.squaring import squarings_needed
from .pandey_space import PAPER, TABLE1_DEVICES


def times(df: pd.DataFrame, method: str, experiment: str = "sweep") -> pd.Series:
    """Median ms per n of one method (NaN where skipped)."""
    sel = df[(df["method"] == method) & (df["experiment"] == experiment)]
    return sel.set_index("n")["time_ms_median"].astype(float)


def _flag(df: pd.DataFrame, method: str) -> pd.Series:
    sel = df[(df["method"] == method) & (df["experiment"] == "sweep")]
    return sel.set_index("n")["extrapolated"].astype(bool)


def table1(df: pd.DataFrame) -> pd.DataFrame:
    """Table 1 / Fig. 12-13: the paper's speedups beside the measured ones, per n."""
    pub = report.published(PAPER, "table1").set_index("n")
    sizes = sorted(set(df["n"]))
    out = pd.DataFrame(index=pd.Index(sizes, name="n"))
    for col, label in TABLE1_DEVICES.items():
        out[f"paper {label}"] = pub[col].reindex(sizes)
    rk, rk_tiled, fw_gpu = times(df, "rkleene"), times(df, "rkleene_tiled"), times(df, "fw_parallel")
    rk_ser, fw_ser = times(df, "rkleene_serial"), times(df, "fw_serial")
    out["serial RK ms"] = rk_ser.reindex(sizes)
    out["serial FW ms"] = fw_ser.reindex(sizes)
    out["GPU RK ms"] = rk.reindex(sizes)
    out["speedup RK vs serial RK"] = (rk_ser / rk).reindex(sizes)
    out["speedup RK vs serial FW"] = (fw_ser / rk).reindex(sizes)
    out["speedup RK (paper's kernel) vs serial RK"] = (rk_ser / rk_tiled).reindex(sizes)
    out["speedup FW per-k vs serial FW"] = (fw_ser / fw_gpu).reindex(sizes)
    extra = _flag(df, "rkleene_serial").reindex(sizes, fill_value=False) | \
        _flag(df, "fw_serial").reindex(sizes, fill_value=False)
    out["serial extrapolated"] = extra.values
    return out.reset_index()


def rk_vs_fw(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 15: R-Kleene against FW per-k on the same GPU."""
    sizes = sorted(set(df["n"]))
    out = pd.DataFrame(index=pd.Index(sizes, name="n"))
    out["FW per-k ms"] = times(df, "fw_parallel").reindex(sizes)
    out["RK ms"] = times(df, "rkleene").reindex(sizes)
    out["RK launches ms"] = times(df, "rkleene_launches").reindex(sizes)
    out["RK paper kernel ms"] = times(df, "rkleene_tiled").reindex(sizes)
    out["FW / RK"] = out["FW per-k ms"] / out["RK ms"]
    out["FW / RK (paper kernel)"] = out["FW per-k ms"] / out["RK paper kernel ms"]
    return out.reset_index()


def crossover(table: pd.DataFrame, column: str = "FW / RK") -> int | None:
    """Smallest n from which RK stays faster than FW (ratio > 1 there and above); None if never."""
    ok = table.dropna(subset=[column])
    if ok.empty:
        return None
    wins = (ok[column] > 1.0).to_numpy()
    for i in range(len(wins)):
        if wins[i:].all():
            return int(ok["n"].iloc[i])
    return None


def threshold_table(records) -> pd.DataFrame:
    """n, threshold, launches, ms with and without the CUDA graph."""
    rows = {}
    for r in records:
        key = (r.n, r.param("threshold"))
        row = rows.setdefault(key, {"n": r.n, "threshold": key[1],
                                    "launches": plan_counts(r.n, key[1])["launches"]})
        label = "ms (CUDA graph)" if r.method == "rkleene" else "ms (host launches)"
        row[label] = r.time_ms_median
        row["verified"] = row.get("verified", True) and bool(r.verified)
    return pd.DataFrame(list(rows.values()))


def product_rate_table(records, sweep_df: pd.DataFrame | None, peak_info: dict, cfg: dict) -> pd.DataFrame:
    """(min,+) operations per second of each product kernel and of whole R-Kleene runs
    (R-Kleene performs exactly n^3 of them: its products and base cases add up to n^3)."""
    peak_tops = peak_info["ops_per_s"] / 1e12 if peak_info else float("nan")
    rows = []
    for r in records:
        squarings = squarings_needed(r.n)
        rows.append({"what": f"{r.method}: {squarings} in-place products {r.n} x {r.n} x {r.n}",
                     "n": r.n, "ops": squarings * r.n ** 3, "ms": r.time_ms_median,
                     "ms_per_product": r.time_ms_median / squarings if squarings else float("nan"),
                     "verified": r.verified, "skipped": r.skipped})
    if sweep_df is not None:
        sel = sweep_df[(sweep_df["method"] == "rkleene") & (sweep_df["experiment"] == "sweep")]
        for _, r in sel[sel["n"].isin(cfg["product_sizes"])].iterrows():
            rows.append({"what": "rkleene: whole R-Kleene run (n^3 ops)", "n": int(r["n"]),
                         "ops": int(r["n"]) ** 3, "ms": r["time_ms_median"], "ms_per_product": float("nan"),
                         "verified": r["verified"], "skipped": r["skipped"]})
    out = pd.DataFrame(rows, columns=["what", "n", "ops", "ms", "ms_per_product", "verified", "skipped"])
    out["T_ops_per_s"] = out["ops"].astype(float) / (out["ms"].astype(float) * 1e-3) / 1e12
    out["measured_peak_T_ops_per_s"] = peak_tops
    out["fraction_of_measured_peak"] = out["T_ops_per_s"] / peak_tops
    out[f"fraction_of_{cfg['peak_reference_tops']:g}T_reference"] = \
        out["T_ops_per_s"] / cfg["peak_reference_tops"]
    return out


def plot_method(ax, df: pd.DataFrame, method: str, label: str, experiment: str = "sweep", **kw):
    """One line of time vs n: measured points solid, extrapolated ones dashed and hollow."""
    sel = df[(df["method"] == method) & (df["experiment"] == experiment)].dropna(subset=["time_ms_median"])
    sel = sel.sort_values("n")
    if sel.empty:
        return
    meas = sel[~sel["extrapolated"].astype(bool)]
    extra = sel[sel["extrapolated"].astype(bool)]
    line, = ax.plot(meas["n"], meas["time_ms_median"], marker="o", label=label, **kw)
    if not extra.empty:
        joined = pd.concat([meas.tail(1), extra])
        ax.plot(joined["n"], joined["time_ms_median"], ls="--", marker="o", mfc="none",
                color=line.get_color(), label=f"{label} (extrapolated, n^3)")

