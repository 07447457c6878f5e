"""Hardware-counter profiles (Nsight Compute) of the fast kernels, for the method map's gaps.

Each target runs one kernel of interest in a child process under ``ncu`` (first matching launch,
``--clock-control none``: the clocks stay as the timed runs had them); the Speed-of-Light and
occupancy sections come back as one row per target: how close the kernel runs to the SM's compute
throughput and to the memory system's, which says what limits it.

    python -m apsp_kernels.experiments.kernel_profiles TARGET   # runs TARGET's kernel (ncu's child)
    python -m apsp_kernels.experiments.kernel_profiles --profile TARGET... > table.csv   # under ncu
"""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd

# target -> (what it is, ncu kernel-name regex)
TARGETS = {
    "product_i32": ("fast (min,+) product t128k32, int32, n = 8192 (fast:rkleene's kernel)",
                    "regex:minplus_fast_t128k32_i32"),
    "product_f32": ("fast (min,+) product t128, float32, n = 8192", "regex:minplus_fast_t128_f32"),
    "worklist_ny": ("fast:sssp_worklist, NY from vertex 0 (persistent worklist kernel)", "regex:wl_sssp_i32"),
    "multi_source_ny": ("fast:multi_source, NY, 1024 sources (one pull sweep)", "regex:ms_sweep_i32"),
    "phast_down_ny": ("batched PHAST downward sweep, NY, K = 64, 8192 sources", "regex:phb_down_i32_k64"),
    "phast_down_4m": ("batched PHAST downward sweep, 4M road-like stand-in, K = 32, 1024 sources",
                      "regex:phb_down_i32_k32"),
    # all_sources' reductions of one NY block (its rows by batched PHAST), half of NY's all-sources time
    "histogram_ny": ("all-sources reductions, NY, 8192 sources: distance histogram", "regex:red_histogram_i32"),
    "row_sums_ny": ("all-sources reductions, NY, 8192 sources: per-source sums", "regex:red_rows_i32"),
    "column_sums_ny": ("all-sources reductions, NY, 8192 sources: per-target sums", "regex:red_columns_i32"),
    # every source past one GPU (issue 45): a reducing block's sweeps and its reductions in place
    "phast_upper_ny": ("batched PHAST upward search and top levels, NY, K = 128, 1024 sources",
                       "regex:phb_upper_i32_k128"),
    "sweep_reductions_ny": ("in-place reductions of the sweeps' working matrix, NY, 1024 sources, one pass "
                            "over every row", "regex:swr_reduce_i32"),
}
SCALE_ONLY = ("phast_upper_ny", "sweep_reductions_ny")  # profiled by the scale notebook alone
CONTINENT_TARGETS = ("phast_upper_ny", "phast_down_ny", "sweep_reductions_ny")  # scale's notebook
REDUCTION_TARGETS = ("histogram_ny", "row_sums_ny", "column_sums_ny")
# targets that build their graph for minutes first (contraction on the host): run only when named
SLOW_TARGETS = ("phast_down_4m",)
DEFAULT_TARGETS = tuple(t for t in TARGETS if t not in SLOW_TARGETS + SCALE_ONLY)  # the method map's
METRICS = {  # ncu metric name -> column
    "Duration": "duration_us",
    "Compute (SM) Throughput": "sm_throughput_pct",
    "Memory Throughput": "memory_throughput_pct",
    "DRAM Throughput": "dram_throughput_pct",
    "L2 Cache Throughput": "l2_throughput_pct",
    "Achieved Occupancy": "achieved_occupancy_pct",
    "Registers Per Thread": "registers_per_thread",
    "L1/TEX Hit Rate": "l1_hit_rate_pct",
    "L2 Hit Rate": "l2_hit_rate_pct",
}


def ncu_path() -> str | None:
    return shutil.which("ncu")


def ncu_command(target: str) -> list[str]:
    _, kernel = TARGETS[target]
    return [ncu_path() or "ncu", "--clock-control", "none", "--target-processes", "all",
            "--kernel-name", kernel, "--launch-count", "1", "--section", "SpeedOfLight",
            "--section", "Occupancy", "--section", "LaunchStats", "--section", "MemoryWorkloadAnalysis", "--csv",
            sys.executable, "-m", "apsp_kernels.experiments.kernel_profiles", target]


def parse_ncu_csv(text: str) -> dict:
    """The METRICS of the first profiled kernel in ncu's ``--csv`` output (duration in us)."""
    start = text.find('"ID"')
    if start < 0:
        raise ValueError("ncu printed no metrics table")
    table = pd.read_csv(io.StringIO(text[start:]), thousands=",")
    row = {"kernel": str(table["Kernel Name"].iloc[0])}
    for metric, column in METRICS.items():
        hit = table[table["Metric Name"] == metric]
        if column.endswith("_pct"):  # "Memory Throughput" is also a rate (bytes/s) in the memory section
            hit = hit[hit["Metric Unit"] == "%"]
        if hit.empty:
            continue
        value, unit = float(str(hit["Metric Value"].iloc[0]).replace(",", "")), hit["Metric Unit"].iloc[0]
        if column == "duration_us":
            value *= {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}.get(str(unit), 1.0)
        row[column] = value
    return row


def collect(targets=DEFAULT_TARGETS, timeout_s: float = 120.0) -> pd.DataFrame:
    """Profile each target under ncu; a target that cannot be profiled gets a row saying why."""
    rows = []
    for target in targets:
        what, _ = TARGETS[target]
        row = {"target": target, "what": what, "skipped": ""}
        if ncu_path() is None:
            row["skipped"] = "ncu (Nsight Compute) is not on this host's PATH"
        else:
            try:
                done = subprocess.run(ncu_command(target), capture_output=True, text=True, timeout=timeout_s,
                                      env=os.environ | {"PYTHONWARNINGS": "ignore"})
                row |= parse_ncu_csv(done.stdout)
            except (subprocess.TimeoutExpired, ValueError, KeyError) as exc:
                tail = " ".join((getattr(exc, "stderr", None) or "").split()[-30:])
                row["skipped"] = f"ncu gave no profile: {type(exc).__name__}: {exc} {tail}".strip()
        row["limiter"] = limiter(row)
        rows.append(row)
    return pd.DataFrame(rows)


def limiter(row) -> str:
    """What bounds a profiled kernel, from its Speed-of-Light row: the throughput within 40 % of the
    peak, else latency (neither near its peak), with the achieved occupancy."""
    sm, memory = row.get("sm_throughput_pct", np.nan), row.get("memory_throughput_pct", np.nan)
    if not (np.isfinite(sm) and np.isfinite(memory)):
        return ""
    if max(sm, memory) >= 60:
        return "memory" if memory >= sm else "compute"
    return f"latency ({row.get('achieved_occupancy_pct', np.nan):.0f} % occupancy)"


def figure(table: pd.DataFrame, title_suffix: str = ""):
    """Bars: each kernel's SM and memory throughput as % of the hardware's peak (ncu Speed of Light)."""
    import matplotlib.pyplot as plt

    done = table[table["skipped"] == ""] if "skipped" in table else table
    fig, ax = plt.subplots(figsize=(8, 0.6 + 0.55 * max(len(done), 1)))
    y = np.arange(len(done))
    ax.barh(y - 0.2, done.get("sm_throughput_pct", 0), height=0.4, label="SM (compute) throughput")
    ax.barh(y + 0.2, done.get("memory_throughput_pct", 0), height=0.4, label="memory throughput")
    ax.set_yticks(y, done["target"])
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of the GPU's peak (Nsight Compute, Speed of Light)")
    ax.set_title(f"What limits the fast kernels{title_suffix}")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def _run_target(target: str) -> None:
    """Run the target's kernel (a few launches; ncu keeps the first matching one)."""
    from .. import datasets
    from ..minplus import product_fast

    if target == "product_i32":
        product_fast.measure_product(8192, np.int32, "t128k32", repeats=1, warmup=0, check_rows=0)
    elif target == "product_f32":
        product_fast.measure_product(8192, np.float32, "t128", repeats=1, warmup=0, check_rows=0)
    elif target == "worklist_ny":
        from .. import registry
        registry.get("fast", "sssp_worklist").make(datasets.load_or_stand_in("NY"), sources=[0]).solve_once()
    elif target == "multi_source_ny":
        from ..multi_source.pull import multi_source_distances
        multi_source_distances(datasets.load_or_stand_in("NY"), np.arange(1024))
    elif target in ("phast_down_ny", "phast_down_4m"):
        from . import phast_batched
        g = (datasets.load_or_stand_in("NY") if target == "phast_down_ny"
             else phast_batched.road_stand_in(1 << 22))
        k, columns = (64, 8192) if target == "phast_down_ny" else (32, 1024)
        phast_batched.per_tree(g, ks=(k,), columns=(columns,), copy_bps=1.0, repeats=1)
    elif target in REDUCTION_TARGETS:
        from ..distributed import reductions
        from ..sssp_hierarchy.phast_batched import multi_source_distances
        g, sources = datasets.load_or_stand_in("NY"), np.arange(8192)
        reductions.block_partial(multi_source_distances(g, sources), g.inf, sources, reductions.default_bins(g))
    elif target in SCALE_ONLY:
        from ..distributed import reductions, sweep_reductions
        from ..distributed.fixed_sums import scales_for
        g = datasets.load_or_stand_in("NY")
        edges, scales = reductions.default_bins(g), scales_for(g)
        sums = sweep_reductions.SweepSums(g.n, scales, sweep_reductions.device_rank(g))
        # the reductions after the sweep: ncu keeps the first launch, which beside the sweep is a few rows' pass
        sweep_reductions.phast_block(g, np.arange(1024), edges, scales, sums, overlap=None)
    else:
        raise SystemExit(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")


if __name__ == "__main__":
    if sys.argv[1] == "--profile":
        named = {"targets": tuple(sys.argv[2:])} if sys.argv[2:] else {}  # none: collect's default
        collect(**named, timeout_s=float(os.environ.get("APSP_NCU_TIMEOUT_S", 400))).to_csv(sys.stdout, index=False)
    else:
        _run_target(sys.argv[1])
