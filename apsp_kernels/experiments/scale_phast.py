"""Batched PHAST in the scale notebook (issue 30): the per-tree, all-sources and same-as-today
frames of :mod:`apsp_kernels.experiments.phast_batched` on the roads and stand-ins, their records,
figure and the goals in seconds."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..records import Record

PHAST_GOALS_S = {"NY": 2.0, "BAY": 3.0}  # all sources' reductions on one H100 (datasets.load names)
PHAST_CONTRACTION_GOAL_S = 1.0  # NY's contraction on the host
PHAST_METHOD = "fast:phast_batched"
CONTRACTION_METHOD = "contraction (host, numba)"


def phast_roads(out_dir, names, quick: bool = False) -> dict:
    """Batched PHAST on the roads (thin over :func:`apsp_kernels.experiments.phast_batched.main`):
    the per-tree, all-sources and same-as-today frames, written under ``out_dir/phast``."""
    from . import phast_batched
    folder = Path(out_dir) / "phast"
    summary = phast_batched.main(folder, graphs=tuple(names), quick=quick)
    frames = {name: pd.read_csv(folder / f"{name}.csv") for name in ("per_tree", "all_sources", "same_as_today")}
    return {"summary": summary, **frames}


def phast_records(ends: pd.DataFrame, profile: str, ran: dict | None = None, host: str = "") -> list[Record]:
    """Records of the all-sources runs (one per graph: the sweeps and reductions on the GPU) and
    of their contractions (host seconds), what the PHAST verdicts rest on. ``ran``: the run that
    measured ``ends`` when it is not this process (:func:`.scale.rederive`: its device, driver, cupy,
    git_commit and timestamp; ``host``: its CPU, which contracted)."""
    out = []
    for _, r in ends.iterrows():
        common = dict(paper="scale", experiment="phast_all_sources", graph=r["graph"], n=int(r["n"]),
                      m=int(r["m"]), stand_in=bool(r.get("stand_in", False)), profile=profile, **(ran or {}))
        run = Record(method=PHAST_METHOD, timing_scope="with_transfers", repeats=1,
                     time_ms_median=1e3 * r["wall_s"], time_ms_min=1e3 * r["wall_s"],
                     params={"K": int(r["K"]), "block": int(r["block"]), "sources": int(r["sources"])},
                     stats={"sweeps_s": r["sweeps_s"], "reductions_s": r["reductions_s"]},
                     verified=bool(r["verified"]),
                     verify_scope=f"sampled: one source of each of {int(r['blocks'])} blocks vs SciPy's Dijkstra",
                     **common)
        if host:
            common["device"] = host
        pre = Record(method=CONTRACTION_METHOD, timing_scope="cpu", repeats=1,
                     time_ms_median=1e3 * r["preprocessing_s"], time_ms_min=1e3 * r["preprocessing_s"],
                     verified=bool(r["verified"]), verify_scope="sampled: the sweeps over this hierarchy, "
                     "checked as above", **common)
        out += [run, pre]
    return out


def phast_stand_ins(out_dir, sizes, **kw) -> pd.DataFrame:
    """Batched PHAST on road-like stand-ins of ``sizes`` vertices (labelled: the DIMACS
    continental graphs are not available offline), one row per size, saved as
    ``table_phast_stand_ins``."""
    from ..report import save_table
    from . import phast_batched
    frame = phast_batched.stand_ins(sizes, **kw)
    save_table(frame, out_dir, "phast_stand_ins",
               title="Batched PHAST on road-like stand-ins (generators.road_like; NOT the DIMACS graphs)",
               note="Every row is a stand-in. Preprocessing (host contraction) is beside the GPU times, not in "
                    "them; all-sources reductions are measured in full up to the size stated, else from a "
                    "labelled sample with the full run's estimate. A size whose generation and contraction "
                    "are projected beyond the profile's budget is not run; its row gives the projection.")
    return frame


def phast_figure(per_tree: pd.DataFrame, device: str | None = None):
    """Per-tree time against K for each graph and launch width, with each K's memory bound;
    ``device``: the GPU that measured them (default: this process's)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FormatStrFormatter, NullLocator

    from ..report import title_suffix
    graphs = list(dict.fromkeys(per_tree["graph"]))
    fig, axes = plt.subplots(1, max(1, len(graphs)), figsize=(6.5 * max(1, len(graphs)), 4.2), layout="constrained",
                             squeeze=False)
    for ax, name in zip(axes[0], graphs):
        sub = per_tree[per_tree["graph"] == name]
        for columns, grp in sub.groupby("columns"):
            ax.plot(grp["K"], grp["us_per_tree"], marker="o", label=f"{columns} sources per launch")
        bound = sub.drop_duplicates("K").sort_values("K")
        ax.plot(bound["K"], bound["bound_us_per_tree"], "k--", label="memory bound (copy bandwidth)")
        ax.set(xscale="log", yscale="log", xlabel="K (trees per sweep)", ylabel="µs per tree",
               title=f"{name} — {device or title_suffix()}")
        ax.set_xticks(sorted(sub["K"].unique()), labels=[str(k) for k in sorted(sub["K"].unique())])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(FormatStrFormatter("%g"))
        ax.legend(fontsize=8)
    return fig


def phast_verdicts(out_dir, ends: pd.DataFrame, device: str | None = None) -> None:
    """The issue's goals in seconds (all sources' reductions, NY's contraction), judged on the
    H100 only (:func:`apsp_kernels.report.timed_goal`)."""
    from ..report import add_verdict, timed_goal
    for _, r in ends.iterrows():
        goal = PHAST_GOALS_S.get(r["graph"])
        if goal is None or r.get("stand_in"):
            continue
        holds, why = timed_goal(r["wall_s"] <= goal and bool(r["verified"]), device)
        add_verdict(out_dir, f"{r['graph']}: all {int(r['sources']):,} sources' reductions by batched PHAST "
                             f"in <= {goal:g} s on one H100", f"<= {goal:g} s", f"{r['wall_s']:.3g} s",
                    holds, f"sweeps {r['sweeps_s']:.3g} s, reductions {r['reductions_s']:.3g} s; preprocessing "
                           f"{r['preprocessing_s']:.3g} s on the host, beside it; verified={r['verified']}. {why}")
        if r["graph"] == "NY":
            ran = r["preprocessing_s"] > 0  # 0: the hierarchy was found, not contracted (layout.hierarchy_of)
            add_verdict(out_dir, f"{r['graph']}: contraction in <= {PHAST_CONTRACTION_GOAL_S:g} s",
                        f"<= {PHAST_CONTRACTION_GOAL_S:g} s", f"{r['preprocessing_s']:.3g} s",
                        bool(r["preprocessing_s"] <= PHAST_CONTRACTION_GOAL_S) if ran else None,
                        "host seconds (numba) on the machine that ran the notebook" if ran else
                        "no contraction ran: the process had the hierarchy already, so nothing was timed")
