"""The method map's roofline (:mod:`apsp_kernels.experiments.method_map`): achieved (min,+)/s and
GB/s of a sweep's runs beside this GPU's ceilings, measured in the same run."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .. import gpu, timing


def csr_bytes(n: int, m: int) -> int:
    """Bytes of one relaxation sweep over the arcs: row pointers, targets, int32 weights."""
    return 4 * (n + 1) + 8 * m

def relaxation_sweeps(stats: dict, k: int, m: int = 1) -> tuple[float, bool]:
    """Sweeps over the arcs in a run, from the solver's stats; (k, False) when the stats
    do not say, a lower bound (each of the k sources reads each arc at least once)."""
    if "relaxation_sweeps" in stats:
        return float(stats["relaxation_sweeps"]), True
    if "relaxations" in stats:                             # worklist: arcs relaxed, in sweeps
        return float(stats["relaxations"]) / max(m, 1), True
    if "sweeps" in stats:                                  # (min,+) SpMV
        return float(stats["sweeps"]), True
    if "iterations_per_group_mean" in stats:               # task-parallel: one sweep per group
        return float(stats["iterations_per_group_mean"]) * stats.get("groups", 1), True
    if "iterations_per_sssp_mean" in stats:                # one SSSP at a time
        return float(stats["iterations_per_sssp_mean"]) * stats.get("sssp", k), True
    if isinstance(stats.get("iterations"), (int, float)):  # Bellman-Ford, summed over sources
        return float(stats["iterations"]), True
    return float(k), False

def rates(df: pd.DataFrame, dense_keys: set) -> pd.DataFrame:
    """Achieved rates of the verified GPU all-pairs runs: (min,+)/s = n^3 / time for the dense
    methods, GB/s = sweeps x csr_bytes / time for the SSSP-based ones (unscaled time of the
    sources actually timed)."""
    rows = []
    for r in df[(df["problem"] == "apsp") & df["on_gpu"] & df["ok"] & (df["dtype"] == "int32")].itertuples():
        t = r.time_ms / r.scale * 1e-3
        if r.key in dense_keys:
            rows.append({"key": r.key, "kind": "dense", "topology": r.topology, "n": r.n, "m": r.m,
                         "rate": float(r.n) ** 3 / t, "unit": "(min,+)/s", "exact_bytes": True})
        else:
            stats = json.loads(r.stats)
            sweeps, exact = relaxation_sweeps(stats, int(r.timed_sources or r.n), r.m)
            rows.append({"key": r.key, "kind": "sparse", "topology": r.topology, "n": r.n,
                         "m": r.m, "rate": sweeps * csr_bytes(r.n, r.m) / t, "unit": "B/s",
                         "exact_bytes": exact})
    return pd.DataFrame(rows)

def rate_summary(rate_df: pd.DataFrame, peaks: dict) -> pd.DataFrame:
    """Per method: its best achieved rate, where, and the fraction of this run's ceiling
    (int32 (min,+) peak for dense methods, device copy bandwidth for SSSP-based ones)."""
    rows = []
    for key, grp in (rate_df.groupby("key") if len(rate_df) else []):
        best = grp.loc[grp["rate"].idxmax()]
        dense = best["kind"] == "dense"
        ceiling = peaks.get("minplus_int32_per_s" if dense else "copy_bytes_per_s")
        rows.append({"method": key, "kind": best["kind"], "n": int(best["n"]), "m": int(best["m"]),
                     "topology": best["topology"],
                     "best_rate": best["rate"] / (1e12 if dense else 1e9),
                     "unit": "T (min,+)/s" if dense else "GB/s",
                     "fraction_of_ceiling": best["rate"] / ceiling if ceiling else np.nan,
                     "bytes": "" if dense else
                     ("sweeps from stats" if best["exact_bytes"] else "lower bound")})
    return pd.DataFrame(rows)

PRODUCT_VARIANT = "t128k32"  # the fast product's best tile on an H100 (apsp_kernels/minplus/product_fast.py)


PRODUCT_SIZES = (4096, 8192)

def dense_ceilings() -> dict:
    """The (min,+) peak of this GPU, measured now (int32 with DPX, float32, float64), and the
    fast product alone at PRODUCT_SIZES (``product_per_s``: the best int32 of them;
    ``product_float64_n*_per_s``: the float64 kernels, judged against the float64 peak)."""
    from ..minplus import product
    from ..minplus.product_fast import measure_product
    peaks = {f"minplus_{np.dtype(t).name}_per_s": product.measure_peak(t)["ops_per_s"]
             for t in (np.int32, np.float32, np.float64)}
    for n in PRODUCT_SIZES:
        peaks[f"product_int32_n{n}_per_s"] = measure_product(n, np.int32, PRODUCT_VARIANT)["ops_per_s"]
        peaks[f"product_float64_n{n}_per_s"] = measure_product(n, np.float64, "t128")["ops_per_s"]
    peaks["product_per_s"] = max(peaks[f"product_int32_n{n}_per_s"] for n in PRODUCT_SIZES)
    return peaks

def measure_peaks() -> dict:
    """Ceilings of this GPU, measured now: :func:`dense_ceilings`, copy bandwidth and the
    empty-kernel launch time."""
    return {"device": gpu.device_info()["device"], **dense_ceilings(),
            "copy_bytes_per_s": timing.copy_bandwidth()["bytes_per_s"],
            "launch_us": timing.launch_latency()["us_per_launch"]}

def peaks_from_table(path) -> dict:
    """The ceilings of ``table_peaks.csv`` back in the units :func:`measure_peaks` returns."""
    table = pd.read_csv(path)
    return {r.ceiling: float(r.value) * UNIT_SCALE[r.unit] for r in table.itertuples()}

def plot_roofline(rate_df: pd.DataFrame, peaks: dict, title: str):
    """Achieved (min,+)/s (dense, vs n) and GB/s (SSSP-based, vs m) under this run's peaks."""
    import matplotlib.pyplot as plt

    fig, (ax_d, ax_s) = plt.subplots(1, 2, figsize=(13, 4.8))
    for ax, kind, x, scale in ((ax_d, "dense", "n", 1e12), (ax_s, "sparse", "m", 1e9)):
        sub = rate_df[rate_df["kind"] == kind] if len(rate_df) else rate_df
        for key, grp in (sub.groupby("key") if len(sub) else []):
            best = grp.groupby(x)["rate"].max().sort_index()
            lower = kind == "sparse" and not grp["exact_bytes"].all()
            ax.plot(best.index, best.values / scale, marker="o", markersize=3,
                    linestyle=":" if lower else "-",
                    label=key + (" (lower bound: 1 sweep per source)" if lower else ""))
        ax.set(xscale="log", yscale="log")
        ax.grid(True, which="both", alpha=0.3)
    for name, style in (("minplus_int32_per_s", "-"), ("minplus_float32_per_s", "--"),
                        ("minplus_float64_per_s", "-."), ("product_per_s", ":")):
        if name in peaks:
            ax_d.axhline(peaks[name] / 1e12, color="black", linestyle=style, linewidth=1,
                         label=f"peak {name.replace('_per_s', '')}: {peaks[name] / 1e12:.3g} T/s")
    if "copy_bytes_per_s" in peaks:
        ax_s.axhline(peaks["copy_bytes_per_s"] / 1e9, color="black", linewidth=1,
                     label=f"device copy (read+write): {peaks['copy_bytes_per_s'] / 1e9:.4g} GB/s")
    ax_d.set(xlabel="vertices n", ylabel="achieved (min,+) ops/s = n^3 / time (T/s)",
             title="dense all-pairs methods")
    ax_s.set(xlabel="arcs m", ylabel="achieved GB/s = sweeps x CSR bytes / time",
             title="SSSP-based methods (all pairs, best over topologies)")
    if "launch_us" in peaks:
        ax_s.text(0.01, 0.01, f"empty-kernel launch: {peaks['launch_us']:.3g} µs", fontsize=8,
                  transform=ax_s.transAxes)
    for ax in (ax_d, ax_s):
        if ax.lines:
            ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig

UNIT_SCALE = {"T (min,+)/s": 1e12, "GB/s": 1e9, "µs": 1.0}
PEAK_UNITS = {"minplus_int32_per_s": "T (min,+)/s", "minplus_float32_per_s": "T (min,+)/s",
              "product_per_s": "T (min,+)/s", "product_int32_n4096_per_s": "T (min,+)/s",
              "product_int32_n8192_per_s": "T (min,+)/s", "minplus_float64_per_s": "T (min,+)/s",
              "product_float64_n4096_per_s": "T (min,+)/s", "product_float64_n8192_per_s": "T (min,+)/s",
              "copy_bytes_per_s": "GB/s", "launch_us": "µs"}

def peaks_table(peaks: dict) -> pd.DataFrame:
    return pd.DataFrame([{"ceiling": k, "value": v / UNIT_SCALE[PEAK_UNITS[k]], "unit": PEAK_UNITS[k]}
                         for k, v in peaks.items() if k in PEAK_UNITS])
