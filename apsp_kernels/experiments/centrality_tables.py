"""The centrality notebook's tables, captions and figures, from its records
(:mod:`apsp_kernels.experiments.centrality`): ``results`` maps a graph key to its experiments' records."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..records import Record
from .centrality_space import (AGREEMENT_RTOL, BETWEENNESS, EXACT, MEASURES, NX_BETWEENNESS, TRIO, graph_label,
                               our_method)

TRIO_LABEL = "closeness + harmonic + eccentricity"
INPUT_WORDS = {"networkx": "NetworkX graph", "scipy": "SciPy matrix"}
PEER_NAMES = {"networkit": "NetworKit", "igraph": "igraph", "networkx": "NetworkX"}
UNITS = {"closeness": "closeness (1 / weight units)", "harmonic": "harmonic centrality (1 / weight units)",
         "eccentricity": "eccentricity (weight units)", BETWEENNESS: "betweenness (normalized)"}


def _seconds(rec: Record) -> float:
    return rec.time_ms_median / 1e3 if not rec.skipped else float("nan")


def basis(rec: Record) -> str:
    """``measured``, ``extrapolated from k of n sources``, or why the row was not run."""
    if rec.skipped:
        return f"skipped: {rec.skipped}"
    if rec.extrapolated:
        return f"extrapolated from {rec.stat('timed_sources', rec.param('k'))} of {rec.n:,} sources"
    return "measured"


def _note(rec: Record) -> str:
    return "stand-in graph" if rec.stand_in else ""


def measures_table(results: dict) -> pd.DataFrame:
    """Our calls of closeness, harmonic and eccentricity, alone and in a row, from NetworkX and SciPy."""
    rows = [{"graph": graph_label(key), "n": r.n, "m": r.m, "call": r.method, "seconds": _seconds(r),
             "fastest_s": r.time_ms_min / 1e3, "runs": r.repeats, "ran_on": r.stat("family", ""),
             "checked": r.verified, "max_rel_diff": r.max_error, "check": r.verify_scope, "device": r.device,
             "note": r.skipped or _note(r)}
            for key, got in results.items() for r in got["measures"]]
    return pd.DataFrame(rows)


def betweenness_table(results: dict) -> pd.DataFrame:
    """Exact betweenness (ours) and NetworkX's on k sampled sources, with the family that ran ours."""
    rows = [{"graph": graph_label(key), "n": r.n, "m": r.m, "call": r.method, "seconds": _seconds(r),
             "basis": basis(r), "ran_on": r.stat("family", "networkx" if r.method == NX_BETWEENNESS else ""),
             "checked": r.verified, "check": r.verify_scope, "why_there": r.stat("reason", ""), "device": r.device,
             "note": _note(r)}
            for key, got in results.items() for r in got["betweenness"]]
    return pd.DataFrame(rows)


def agreement_table(results: dict) -> pd.DataFrame:
    """Each check against NetworkX: its largest relative difference and whether it is within the contract."""
    rows = []
    for key, got in results.items():
        for r in [*got["agreement"], *(r for r in got["betweenness"] if r.method == NX_BETWEENNESS)]:
            done = not r.skipped
            rows.append({"graph": graph_label(key), "check": r.method, "on": r.verify_scope,
                         "max_rel_diff": r.max_error if done else float("nan"),
                         "result": ("ok" if r.verified else f"FAILED (> {AGREEMENT_RTOL:g})") if done else "not run",
                         "networkx_seconds": r.time_ms_median / 1e3 / (r.n / r.stat("timed_sources", r.n)
                                                                       if r.extrapolated else 1),
                         "networkx_timed": ("per u= call" if r.method != NX_BETWEENNESS
                                            else f"{r.param('k')} sources"), "note": r.skipped or _note(r)})
    return pd.DataFrame(rows)


def _peer_row(key: str, r: Record, measure: str, who: str, ours_s: float) -> dict:
    s = _seconds(r)
    return {"graph": graph_label(key), "measure": measure, "implementation": who, "call": r.param("call", ""),
            "seconds_every_source": s, "basis": basis(r), "threads": r.stat("threads", ""),
            "checked": r.verified if not r.skipped else "", "check": r.verify_scope,
            "ours_faster_by": ours_s and s / ours_s, "device": r.device, "note": _note(r)}


def peers_table(results: dict) -> pd.DataFrame:
    """Per graph and measure, ours and every peer on the same host: seconds for every source, each row
    measured or extrapolated (peers' distance rows: every source's distances, the work the three share)."""
    rows = []
    for key, got in results.items():
        mine = {r.method: r for r in got["measures"] + got["betweenness"]}
        trio = mine.get(our_method(TRIO, "networkx"))
        exact = mine.get(EXACT)
        per = {TRIO_LABEL: _seconds(trio) if trio else float("nan"),
               BETWEENNESS: _seconds(exact) if exact else float("nan")}
        for source in ("networkx", "scipy"):
            r = mine.get(our_method(TRIO, source))
            if r is not None:
                who = f"apsp_kernels (from a {INPUT_WORDS[source]})"
                rows.append(_peer_row(key, r, TRIO_LABEL, who, per[TRIO_LABEL]))
        for r in got["peers"]:
            if r.param("measure") != BETWEENNESS:
                rows.append(_peer_row(key, r, TRIO_LABEL, PEER_NAMES[r.param("peer")] + " (distances)",
                                      per[TRIO_LABEL]))
        if exact is not None:
            rows.append(_peer_row(key, exact, BETWEENNESS, "apsp_kernels (exact)", per[BETWEENNESS]))
        for r in got["peers"]:
            if r.param("measure") == BETWEENNESS:
                rows.append(_peer_row(key, r, BETWEENNESS, PEER_NAMES[r.param("peer")], per[BETWEENNESS]))
        nx_rows = [r for r in got["betweenness"] if r.method == NX_BETWEENNESS]
        rows += [_peer_row(key, r, BETWEENNESS, "NetworkX", per[BETWEENNESS]) for r in nx_rows]
    return pd.DataFrame(rows)


def top_table(results: dict, key: str) -> pd.DataFrame:
    """The top vertices per measure (largest first; eccentricity smallest first: the center), 0-based ids."""
    summaries = _summaries(results[key])
    columns = {}
    for measure in (*MEASURES, BETWEENNESS):
        top = summaries.get(measure, {}).get("top", [])
        columns[f"{measure} vertex"] = [v for v, _ in top]
        columns[measure] = [x for _, x in top]
    depth = max((len(c) for c in columns.values()), default=0)
    table = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in columns.items()}, index=range(depth))
    table.insert(0, "rank", range(1, depth + 1))
    return table


def _summaries(got: dict) -> dict:
    """The per-measure summaries (histogram, top) the records carry, by measure."""
    out = {}
    for r in got["measures"]:
        if r.method == our_method(TRIO, "scipy") and not r.skipped:
            out.update(r.stat("summary", {}))
    exact = next((r for r in got["betweenness"] if r.method == EXACT and not r.skipped), None)
    if exact is not None:
        out[BETWEENNESS] = exact.stat("summary", {})
    return out


def caption(cfg: dict) -> str:
    p = cfg["peer_sources"]
    return (f"Host wall clock. Ours: warm (an untimed call first), the shared sums emptied before each run, "
            f"median of up to {cfg['repeats']} runs within {cfg['budget_s']:g} s. Peers on a seeded sample of "
            f"sources (NetworKit {p['networkit']}, igraph {p['igraph']}, NetworkX {p['networkx']}; NetworkX's "
            f"betweenness {cfg['networkx_k']}), scaled by n / sample: 'basis' says extrapolated. Peers' distance rows "
            "time every source's distances once, the work that closeness, harmonic centrality and eccentricity "
            "share (NetworkX's and igraph's own functions each run it again). NetworKit on every host core; "
            "igraph and NetworkX on one. 'ours_faster_by': the row's seconds over ours for the measure "
            "(from a NetworkX graph; exact betweenness).")


# ----------------------------------------------------------------------------- figures
def peers_figure(table: pd.DataFrame, title: str):
    """Per graph, seconds for every source of each implementation, log axis; hatched bars extrapolated."""
    import matplotlib.pyplot as plt

    graphs = list(dict.fromkeys(table["graph"]))
    fig, axes = plt.subplots(len(graphs), 1, figsize=(9, 1.2 + 0.32 * len(table)), squeeze=False)
    for ax, name in zip(axes[:, 0], graphs):
        rows = table[table["graph"] == name].reset_index(drop=True)
        labels = [f"{m}: {who}" + ("" if np.isfinite(s) else " (not run)")
                  for m, who, s in zip(rows["measure"], rows["implementation"], rows["seconds_every_source"])]
        seconds = rows["seconds_every_source"].astype(float).fillna(0)
        extrapolated = rows["basis"].str.startswith("extrapolated")
        colors = ["C0" if w.startswith("apsp_kernels") else "C1" for w in rows["implementation"]]
        bars = ax.barh(labels, seconds, color=colors, hatch=None)
        for bar, ex, s in zip(bars, extrapolated, seconds):
            if ex:
                bar.set_hatch("//")
            if s > 0:
                ax.annotate(f"{s:.3g} s", (s, bar.get_y() + bar.get_height() / 2), xytext=(3, 0),
                            textcoords="offset points", va="center", fontsize=7)
        ax.invert_yaxis()
        ax.set(xscale="log", title=name, xlabel="seconds for every source (log scale); hatched: extrapolated "
                                               "from sampled sources; blue: apsp_kernels, orange: peers")
        ax.grid(True, axis="x", which="both", alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def distributions_figure(results: dict, title: str):
    """Per graph (rows) the histogram of each measure (columns), counts on a log axis."""
    import matplotlib.pyplot as plt

    measures = (*MEASURES, BETWEENNESS)
    fig, axes = plt.subplots(len(results), len(measures), figsize=(3.2 * len(measures), 2.6 * len(results)),
                             squeeze=False)
    for row, (key, got) in zip(axes, results.items()):
        summaries = _summaries(got)
        for ax, measure in zip(row, measures):
            s = summaries.get(measure)
            if s:
                edges = np.asarray(s["edges"])
                ax.stairs(s["counts"], edges, fill=True, alpha=0.7)
                ax.set_yscale("log")
            else:
                ax.text(0.5, 0.5, "not run", ha="center", va="center", transform=ax.transAxes)
            ax.set(xlabel=UNITS[measure], ylabel="vertices" if measure == measures[0] else "",
                   title=f"{graph_label(key)}: {measure}")
            ax.tick_params(labelsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig
