"""The library notebook (notebooks/library.ipynb): ``shortest_path(method="auto")`` as a user calls it,
against SciPy and NetworkX, on the papers' graphs.

Cases: SSSP from vertex 0 of USA-road-d NY (liu, bodra Table 1, okuyama), all pairs on
p2p-Gnutella04 with weights 1..100 (bodra Tables 2 and 3), all pairs on a random 4-out-regular
digraph (the cross-paper graph, takafuji Table I) and on a dense random graph with weights 1..10
(pandey). Every call is timed end to end with the host clock: a SciPy CSR matrix goes in and a
NumPy array comes out, so conversion and transfers count. ``auto`` gets one untimed warm-up call
first on a GPU (kernel compilation stays out). Where a CPU baseline's all-pairs run would take too
long, a seeded sample of sources is timed with ``indices=`` and scaled by n / sample (the record
says ``extrapolated`` and how). Every auto result is checked against SciPy on the host.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
from scipy.sparse import csgraph

from .. import datasets, generators, gpu, oracle, report, timing
from ..errors import GPUMemoryError, InputError
from ..graph import Graph
from ..profiles import choose
from ..records import Record
from ..sampling import scaled_sample
from ..verdicts import Evidence

PAPER = "library"
IMPLEMENTATIONS = ("auto", "scipy", "networkx")
SCIPY_CALL = "scipy.sparse.csgraph.shortest_path(A, method='auto', indices=...)"
NO_GPU_NOTE = ("NO CUDA GPU in this run: method='auto' fell back to SciPy's Dijkstra on the host, "
               "so the 'auto -> scipy' rows are SciPy's times, not a GPU's.")


# ----------------------------------------------------------------------------- configuration
def config(profile: str) -> dict:
    """Cases and sizes per profile; ``budget_s`` stops repeating a call once its runs add up to it."""
    pick = lambda **kw: choose(profile, **kw)  # noqa: E731
    return {
        "profile": profile,
        "repeats": pick(smoke=1, default=3, paper=5),
        "budget_s": pick(smoke=2.0, default=5.0, paper=20.0),
        "seed": 0,
        "cases": [
            {"case": "ny_sssp", "what": "SSSP from vertex 0", "papers": "liu; bodra Table 1; okuyama",
             "graph": pick(smoke={"kind": "road_like", "n": 200, "m": 560, "for": "USA-road-d.NY"},
                           default={"kind": "dataset", "name": "NY"}),
             "sources": 0, "scipy_sample": None, "networkx_sample": None},
            {"case": "gnutella04_apsp", "what": "all pairs", "papers": "bodra Tables 2 and 3",
             "graph": pick(smoke={"kind": "random", "n": 128, "m": 471, "for": "p2p-Gnutella04"},
                           default={"kind": "dataset", "name": "gnutella04"}),
             "sources": None, "scipy_sample": pick(smoke=32, default=None),
             "networkx_sample": pick(smoke=16, default=32, paper=256)},
            {"case": "regular_apsp", "what": "all pairs", "papers": "cross-paper graph; takafuji Table I",
             "graph": {"kind": "regular", "n": pick(smoke=128, default=4096)},
             "sources": None, "scipy_sample": None, "networkx_sample": pick(smoke=16, default=64, paper=512)},
            {"case": "dense_apsp", "what": "all pairs", "papers": "pandey",
             "graph": {"kind": "dense", "n": pick(smoke=128, default=2048)},
             "sources": None, "scipy_sample": None, "networkx_sample": pick(smoke=8, default=4, paper=16)},
        ],
    }


def build_graph(spec: dict) -> Graph:
    """The case's graph: a dataset (or its labelled stand-in) or a seeded generator."""
    kind = spec["kind"]
    if kind == "dataset":
        return datasets.load_or_stand_in(spec["name"])
    if kind == "regular":
        g = generators.k_regular_digraph(spec["n"], 4, seed=0, w_low=1, w_high=101, dtype=np.int32)
    elif kind == "dense":
        g = generators.dense_random(spec["n"], w_low=1, w_high=10, seed=0)
    elif kind == "road_like":
        g = generators.road_like(spec["n"], spec["m"], seed=0)
    elif kind == "random":
        g = generators.random_digraph(spec["n"], spec["m"], w_min=1, w_max=100, seed=0)
    else:
        raise ValueError(f"unknown graph kind {kind!r}")
    if "for" in spec:
        label = f"small stand-in for {spec['for']} ({g.meta.get('label', kind)})"
        g = g.as_stand_in(label)
    return g


# ----------------------------------------------------------------------------- timing pieces
def time_calls(fn, repeats: int, warmup: int = 0, budget_s: float = float("inf"), before=None):
    """Milliseconds of ``fn()`` per timed run and the last result (:func:`timing.time_host`;
    ``before()`` untimed before each timed run)."""
    return timing.time_host(fn, repeats, warmup, budget_s, before=before)


def scipy_picks(A, indices) -> str:
    """Which algorithm SciPy's ``method='auto'`` runs: FW for all sources of a graph with at least
    n^2/4 entries, else Dijkstra (Johnson with negative weights)."""
    n = A.shape[0]
    if indices is None and A.nnz >= n * n / 4:
        return "FW"
    return "J" if (A.data < 0).any() else "D"


class Reference:
    """SciPy's distances on the host, from a full run already made or computed row by row."""

    def __init__(self, A, full=None, full_sources=None):
        self.A = A
        self.full = None if full is None else np.atleast_2d(full)
        self.position = None if full_sources is None else {int(s): i for i, s in enumerate(full_sources)}

    def rows(self, sources) -> np.ndarray:
        sources = np.asarray(sources)
        if self.full is not None and all(int(s) in self.position for s in sources):
            return self.full[[self.position[int(s)] for s in sources]]
        return np.atleast_2d(csgraph.dijkstra(self.A, directed=True, indices=sources))


def verify(got, sources, reference: Reference, integer: bool = True) -> dict:
    """Check ``got`` (row i for sources[i]) against SciPy: all rows up to 4096, else 64 sampled;
    exact for integer weights."""
    sources = np.atleast_1d(np.asarray(sources))
    got = np.atleast_2d(np.asarray(got, dtype=np.float64))
    k = len(sources)
    if got.shape != (k, reference.A.shape[0]):
        return {"verified": False, "max_error": float("inf"),
                "verify_scope": f"wrong shape {got.shape}, expected {(k, reference.A.shape[0])}"}
    pos = oracle.choose_rows(k)
    ok, err = oracle.compare(got[pos], reference.rows(sources[pos]), float_dtype=not integer)
    scope = f"all {k} rows" if len(pos) == k else f"{len(pos)} sampled of {k} rows"
    return {"verified": ok, "max_error": err,
            "verify_scope": f"{scope} vs SciPy{', exact' if integer else ', float tolerance'}"}


def _record(case: dict, g: Graph, method: str, scope: str, params: dict) -> Record:
    return Record(paper=PAPER, experiment=case["case"], method=method, graph=g.name, n=g.n, m=g.m,
                  params=params, timing_scope=scope, stand_in=g.is_stand_in)


def _set_times(rec: Record, times: list[float], scale: float = 1.0, extrapolation: str = "") -> None:
    rec.time_ms_median = float(np.median(times)) * scale
    rec.time_ms_min = float(np.min(times)) * scale
    rec.repeats = len(times)
    rec.extrapolated = scale != 1.0
    rec.extrapolation = extrapolation


# ----------------------------------------------------------------------------- the three contenders
def run_scipy(case, g, A, sources, cfg) -> tuple[Record, Reference]:
    """SciPy's shortest_path on the same CSR input (a sample of sources where configured)."""
    timed, scale, how = scaled_sample(sources, case["scipy_sample"], cfg["seed"])
    indices = case["sources"] if scale == 1.0 else timed
    picks = scipy_picks(A, indices)
    if scale != 1.0 and picks != scipy_picks(A, None):
        how += f"; SciPy runs {picks} on the sample but {scipy_picks(A, None)} on all sources"
    rec = _record(case, g, "scipy", "cpu", {"call": SCIPY_CALL, "indices": _describe(indices, g.n),
                                            "scipy_runs": picks})
    times, out = time_calls(lambda: csgraph.shortest_path(A, method="auto", directed=True, indices=indices),
                            cfg["repeats"], budget_s=cfg["budget_s"])
    _set_times(rec, times, scale, how)
    full = scale == 1.0
    ref = Reference(A, out if full else None, sources if full else None)
    rec.verified, rec.max_error = True, 0.0
    rec.verify_scope = "is the reference (SciPy is the oracle)"
    rec.stats = json.dumps({"timed_sources": len(timed), "threads": 1})
    return rec, ref


def run_auto(case, g, A, sources, cfg, reference: Reference) -> Record:
    """``apsp_kernels.shortest_path(A, method="auto")`` end to end, verified against SciPy."""
    import apsp_kernels

    choices = []
    call = lambda: apsp_kernels.shortest_path(A, method="auto", indices=case["sources"],  # noqa: E731
                                              explain=choices.append)
    on_gpu = gpu.available()
    params = {"call": "apsp_kernels.shortest_path(A, method='auto', indices=...)",
              "indices": _describe(case["sources"], g.n), "input": "scipy.sparse CSR, float64",
              "output": "numpy float64"}
    try:
        times, out = time_calls(call, cfg["repeats"], warmup=1 if on_gpu else 0, budget_s=cfg["budget_s"])
    except (InputError, GPUMemoryError, MemoryError) as exc:
        rec = _record(case, g, "auto", "with_transfers", params)
        rec.skipped = f"{type(exc).__name__}: {exc}"
        return rec
    choice = choices[-1]
    rec = _record(case, g, f"auto -> {choice.family}", "with_transfers", params)
    _set_times(rec, times)
    estimate = next((est for name, est, _ in choice.candidates if name == choice.family), None)
    rec.stats = json.dumps({"family": choice.family, "estimate_ms": estimate, "gpu": on_gpu,
                            "warmup": 1 if on_gpu else 0, "reason": choice.reason,
                            "candidates": choice.candidates, "excluded": choice.excluded,
                            "table": choice.table}, default=str)
    integer = bool(np.all(np.mod(A.data, 1) == 0))
    result = verify(out, sources, reference, integer)
    rec.verified, rec.max_error, rec.verify_scope = (result["verified"], result["max_error"],
                                                      result["verify_scope"])
    return rec


def networkx_graph(A):
    """A NetworkX DiGraph with the arcs of CSR matrix ``A`` (weight attribute ``weight``)."""
    import networkx as nx
    coo = A.tocoo()
    G = nx.DiGraph()
    G.add_nodes_from(range(A.shape[0]))
    G.add_weighted_edges_from(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist()))
    return G


def _nx_kwargs(nx) -> dict:
    """Pin NetworkX's own implementation (no dispatch to an installed backend), where supported."""
    major, minor = (int(p) for p in nx.__version__.split(".")[:2])
    return {"backend": "networkx"} if (major, minor) >= (3, 2) else {}


def run_networkx(case, g, A, sources, cfg, reference: Reference) -> Record:
    """NetworkX's Dijkstra over a DiGraph of the same arcs (construction not timed)."""
    timed, scale, how = scaled_sample(sources, case["networkx_sample"], cfg["seed"])
    all_pairs = case["sources"] is None and scale == 1.0
    fn_name = "all_pairs_dijkstra_path_length" if all_pairs else "single_source_dijkstra_path_length"
    indices = case["sources"] if scale == 1.0 else timed
    rec = _record(case, g, "networkx", "cpu",
                  {"call": f"networkx.{fn_name}", "indices": _describe(indices, g.n)})
    try:
        import networkx as nx
    except ImportError:
        rec.skipped = "NetworkX is not installed here (pip install networkx)"
        return rec
    G, kw = networkx_graph(A), _nx_kwargs(nx)

    def call():
        if all_pairs:
            return dict(nx.all_pairs_dijkstra_path_length(G, **kw))
        return {int(s): nx.single_source_dijkstra_path_length(G, int(s), **kw) for s in timed}
    times, out = time_calls(call, cfg["repeats"], budget_s=cfg["budget_s"])
    _set_times(rec, times, scale, how)
    checked = timed[oracle.choose_rows(len(timed), limit=oracle.SAMPLED_ROWS)]
    rows = np.full((len(checked), g.n), np.inf)
    for i, s in enumerate(checked):
        lengths = out[int(s)]
        rows[i, list(lengths)] = list(lengths.values())
    ok, err = oracle.compare(rows, reference.rows(checked), float_dtype=False)
    rec.verified, rec.max_error = ok, err
    rec.verify_scope = f"{len(checked)} of its {len(timed)} timed sources vs SciPy"
    rec.stats = json.dumps({"timed_sources": len(timed), "networkx": nx.__version__, **kw})
    return rec


def _describe(indices, n: int) -> str:
    if indices is None:
        return f"all {n}"
    if np.ndim(indices) == 0:
        return str(int(indices))
    return f"{len(indices)} sampled of {n}"


def run_case(case: dict, cfg: dict) -> list[Record]:
    """Auto, SciPy and NetworkX on one case; SciPy's result is the reference for the others."""
    g = build_graph(case["graph"])
    A = g.to_scipy()
    sources = np.arange(g.n) if case["sources"] is None else np.atleast_1d(case["sources"])
    scipy_rec, reference = run_scipy(case, g, A, sources, cfg)
    auto_rec = run_auto(case, g, A, sources, cfg, reference)
    nx_rec = run_networkx(case, g, A, sources, cfg, reference)
    for rec in (auto_rec, scipy_rec, nx_rec):
        rec.profile = cfg["profile"]
    return [auto_rec, scipy_rec, nx_rec]


# ----------------------------------------------------------------------------- tables
def implementation(rec: Record) -> str:
    return "auto" if rec.method.startswith("auto") else rec.method


def _time(recs, name) -> float:
    return next((r.time_ms_median for r in recs if implementation(r) == name), float("nan"))


def _note(rec: Record) -> str:
    parts = [rec.skipped] if rec.skipped else []
    if rec.extrapolated:
        parts.append(f"EXTRAPOLATED: {rec.extrapolation}")
    if rec.stand_in:
        parts.append("stand-in graph")
    if rec.method == "auto -> scipy":
        parts.append("no GPU: auto ran SciPy's Dijkstra on the host")
    return "; ".join(parts)


def case_table(recs: list[Record]) -> pd.DataFrame:
    """One row per implementation: time, speed-ups, auto's family and estimate, checks, notes."""
    scipy_ms, nx_ms = _time(recs, "scipy"), _time(recs, "networkx")
    rows = []
    for r in recs:
        rows.append({"implementation": r.method, "time_ms": r.time_ms_median,
                     "speedup_vs_scipy": scipy_ms / r.time_ms_median,
                     "speedup_vs_networkx": nx_ms / r.time_ms_median,
                     "auto_family": r.stat("family", ""), "auto_estimate_ms": r.stat("estimate_ms"),
                     "scope": r.timing_scope, "repeats": r.repeats, "verified": r.verified,
                     "verify_scope": r.verify_scope, "extrapolated": r.extrapolated,
                     "device": r.device, "note": _note(r)})
    return pd.DataFrame(rows)


def case_title(case: dict, recs: list[Record]) -> str:
    r = recs[0]
    stand_in = " (stand-in graph)" if r.stand_in else ""
    return (f"{case['what']} on {r.graph}{stand_in} (n={r.n:,}, m={r.m:,}; {case['papers']}): "
            f"time (ms) per implementation")


def caption(cfg: dict, full: bool = True) -> str:
    """How the times were taken, for the tables' captions (the no-GPU warning first where it applies)."""
    text = ("auto: host wall clock around apsp_kernels.shortest_path(A, method='auto') with a SciPy CSR "
            "matrix in and a NumPy array out (conversion, upload, kernels, download), after one untimed "
            f"warm-up call on a GPU; scipy: {SCIPY_CALL}; networkx: Dijkstra over a DiGraph of the same "
            "arcs (construction not timed); both on one CPU thread. Median of up to "
            f"{cfg['repeats']} runs, fewer once a call's runs add up to {cfg['budget_s']:g} s (see repeats). "
            "speed-up vs X = X's time / auto's (or this row's) time. EXTRAPOLATED times were measured on a "
            "seeded sample of sources and scaled by n / sample.") if full else \
        ("Times as in table all_cases; speedup_vs_X = X's time / this row's time; EXTRAPOLATED: timed on "
         "a seeded sample of sources, scaled by n / sample.")
    return text if gpu.available() else f"**{NO_GPU_NOTE}** {text}"


def _short_note(rec: Record) -> str:
    if rec.skipped:
        return f"{implementation(rec)} skipped: {rec.skipped}"
    if rec.extrapolated:
        return f"{implementation(rec)} EXTRAPOLATED from {rec.stat('timed_sources')} sources"
    return ""


def overview(results: dict[str, list[Record]]) -> pd.DataFrame:
    """One row per case: the three times, auto's speed-ups, its family, estimate and check."""
    rows = []
    for case, recs in results.items():
        auto = next(r for r in recs if implementation(r) == "auto")
        scipy_ms, nx_ms = _time(recs, "scipy"), _time(recs, "networkx")
        rows.append({"case": case, "graph": auto.graph, "n": auto.n, "m": auto.m,
                     "sources": json.loads(auto.params)["indices"], "auto_family": auto.stat("family", ""),
                     "auto_ms": auto.time_ms_median, "auto_estimate_ms": auto.stat("estimate_ms"),
                     "scipy_ms": scipy_ms, "networkx_ms": nx_ms,
                     "auto_vs_scipy": scipy_ms / auto.time_ms_median,
                     "auto_vs_networkx": nx_ms / auto.time_ms_median, "auto_verified": auto.verified,
                     "stand_in": auto.stand_in,
                     "note": "; ".join(filter(None, map(_short_note, recs)))})
    return pd.DataFrame(rows)


def choices(results: dict[str, list[Record]]) -> pd.DataFrame:
    """Where each case's choice came from: candidates with their estimates, and the measured call."""
    rows = []
    for case, recs in results.items():
        auto = next(r for r in recs if implementation(r) == "auto")
        est = auto.stat("estimate_ms")
        cands = "; ".join(f"{name} {'~%.3g ms' % e if e is not None else 'not measured'}"
                          for name, e, _ in auto.stat("candidates", []))
        rows.append({"case": case, "n": auto.n, "m": auto.m, "chosen": auto.stat("family", ""),
                     "estimate_ms": est, "measured_ms": auto.time_ms_median,
                     "measured_over_estimate": auto.time_ms_median / est if est else float("nan"),
                     "candidates": cands or "-",
                     "excluded": "; ".join(f"{n}: {why}" for n, why in auto.stat("excluded", [])) or "-",
                     "reason": auto.stat("reason", auto.skipped)})
    return pd.DataFrame(rows)


def table_devices(table: pd.DataFrame) -> str:
    return ", ".join(sorted(set(map(str, table["device"])))) if len(table) else "no rows"


# ----------------------------------------------------------------------------- figures
def plot_times(results: dict[str, list[Record]], title: str):
    """Bars of time per case and implementation (log ms); hatched = extrapolated from a sample."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    cases = list(results)
    fig, ax = plt.subplots(figsize=(max(6.0, 2.2 * len(cases)), 4.5))
    width = 0.8 / len(IMPLEMENTATIONS)
    for j, name in enumerate(IMPLEMENTATIONS):
        for i, case in enumerate(cases):
            r = next((r for r in results[case] if implementation(r) == name), None)
            if r is None or not np.isfinite(r.time_ms_median):
                continue
            x = i + (j - 1) * width
            ax.bar(x, r.time_ms_median, width, color=f"C{j}", hatch="//" if r.extrapolated else None,
                   edgecolor="black", linewidth=0.5)
            text = r.method.replace("auto -> ", "-> ") if name == "auto" else ""
            ax.annotate(f"{r.time_ms_median:.3g}" + (f"\n{text}" if text else ""), (x, r.time_ms_median),
                        ha="center", va="bottom", fontsize=7)
    labels = [f"{c}\n{results[c][0].graph}\nn={results[c][0].n:,}" for c in cases]
    ax.set_xticks(range(len(cases)), labels, fontsize=8)
    ax.set(yscale="log", ylabel="time per call (ms, log scale)", title=title)
    ax.margins(y=0.25)
    handles = [Patch(facecolor=f"C{j}", edgecolor="black", label=n) for j, n in enumerate(IMPLEMENTATIONS)]
    handles.append(Patch(facecolor="white", edgecolor="black", hatch="//",
                         label="extrapolated (sampled sources)"))
    ax.legend(handles=handles, fontsize=8)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    return fig


def plot_decision_map(table: pd.DataFrame, results: dict[str, list[Record]], title: str):
    """The decision table (time vs n per family and method, log-log) with each case's choice on it:
    star = auto's estimate for the chosen family, cross = the measured auto call."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5.5))
    families = sorted(set(table["family"])) if len(table) else []
    color = {f: f"C{i % 10}" for i, f in enumerate(families)}
    markers = {"all_pairs": "o", "single_source": "^"}
    styles = ("-", "--", "-.", ":")
    per_family = {}
    for (fam, method, problem, dtype), grp in table.groupby(["family", "method", "problem", "dtype"]):
        grp = grp.sort_values("n")
        style = styles[per_family.get(fam, 0) % len(styles)]
        per_family[fam] = per_family.get(fam, 0) + 1
        ax.plot(grp["n"], grp["time_ms"], marker=markers.get(problem, "s"), color=color[fam],
                linestyle=style if problem == "all_pairs" else "none", alpha=0.75,
                label=f"{fam}: {method} ({problem.replace('_', ' ')}, {dtype})")
    case_n = [next(r for r in recs if implementation(r) == "auto").n for recs in results.values()]
    right_edge = max([*table["n"], *case_n], default=1)
    for i, (case, recs) in enumerate(results.items()):
        auto = next(r for r in recs if implementation(r) == "auto")
        if not np.isfinite(auto.time_ms_median):
            continue
        fam, est = auto.stat("family", ""), auto.stat("estimate_ms")
        c = color.get(fam, "grey")
        if est is not None:
            ax.scatter([auto.n], [est], marker="*", s=220, color=c, edgecolor="black", zorder=5)
            ax.plot([auto.n, auto.n], [est, auto.time_ms_median], ":", color="black", linewidth=0.8)
        ax.scatter([auto.n], [auto.time_ms_median], marker="X", s=90, color=c, edgecolor="black", zorder=5)
        leftward = auto.n >= right_edge  # a label right of the last point would run under the legend
        ax.annotate(f"{case}: auto -> {fam}", (auto.n, auto.time_ms_median), textcoords="offset points",
                    xytext=(-8 if leftward else 8, 10 - 12 * (i % 3)), ha="right" if leftward else "left",
                    fontsize=7)
    ax.scatter([], [], marker="*", s=120, color="white", edgecolor="black", label="a case: auto's estimate")
    ax.scatter([], [], marker="X", s=60, color="white", edgecolor="black",
               label="a case: measured auto call (end to end)")
    ax.set(xscale="log", yscale="log", xlabel="vertices n", ylabel="time of one call (ms)", title=title)
    ax.grid(True, which="both", alpha=0.3)
    if not len(table):
        ax.text(0.5, 0.5, "no decision table", ha="center", transform=ax.transAxes)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- verdicts
def published_speedup(dataset: str, gpu_row: tuple, cpu_row: tuple) -> str:
    """The paper's GPU-over-CPU speed-up for context: rows (table, method) of bodra's tables."""
    def seconds(table, method):
        pub = report.published("bodra", table)
        return float(pub.loc[(pub["dataset"] == dataset) & (pub["method"] == method), "time_s"].iloc[0])
    try:
        (gt, gm), (ct, cm) = gpu_row, cpu_row
        g, c = seconds(gt, gm), seconds(ct, cm)
    except (FileNotFoundError, IndexError, KeyError):
        return "-"
    return f"{c / g:.0f}x (bodra {gt}: GPU {gm} {g:.3g} s; {ct}: CPU {cm} {c:.4g} s)"


def verdicts(results: dict[str, list[Record]]) -> list[dict]:
    """Auto at least as fast as SciPy on every case; the speed-ups on NY SSSP and Gnutella04 APSP."""
    on_gpu = gpu.available()
    view = overview(results)
    no_gpu = "not tested: no CUDA GPU in this run (auto ran SciPy itself)"
    fine = view["auto_verified"] & (view["auto_vs_scipy"] >= 1)
    measured = ", ".join(f"{c}: {s:.2f}x" for c, s in zip(view["case"], view["auto_vs_scipy"]))
    out = [{"claim": "shortest_path(method='auto') picks a method at least as fast as SciPy on every case",
            "published": "- (library goal, not a paper claim)", "measured": measured,
            "holds": bool(fine.all()) if on_gpu else None,
            "note": no_gpu if not on_gpu else
            ("SciPy time / auto time, end to end (CSR in, NumPy out); a case holds only with a verified "
             "auto result; SciPy times marked extrapolated in the tables were timed on sampled sources")}]
    specs = [("ny_sssp", "SSSP from vertex 0 of USA-road-d NY",
              ("NY", ("table1", "bf_stride_flag"), ("table1", "bf_serial"))),
             ("gnutella04_apsp", "all pairs on p2p-Gnutella04 (weights 1..100)",
              ("gnutella04", ("table3", "fw_tiled_shared"), ("table2", "dijkstra_serial")))]
    for case, what, pub in specs:
        row = view[view["case"] == case]
        claim = f"shortest_path(method='auto') is faster than SciPy on {what}"
        if row.empty:
            out.append({"claim": claim, "published": "-", "measured": "not run", "holds": None, "note": ""})
            continue
        r = row.iloc[0]
        measured = (f"{r['auto_vs_scipy']:.2f}x vs SciPy ({r['auto_ms']:.3g} ms auto -> {r['auto_family']} "
                    f"vs {r['scipy_ms']:.3g} ms), {r['auto_vs_networkx']:.2f}x vs NetworkX")
        notes = [no_gpu] if not on_gpu else []
        stand_in = " (STAND-IN)" if r["stand_in"] else ""
        notes.append(f"graph {r['graph']}{stand_in} (n={r['n']:,}, m={r['m']:,})")
        if r["note"]:
            notes.append(r["note"])
        out.append({"claim": claim, "published": published_speedup(*pub), "measured": measured,
                    "holds": bool(r["auto_verified"] and r["auto_vs_scipy"] >= 1) if on_gpu else None,
                    "note": "; ".join(notes)})
    return out

# ------------------------------------------------------------------ what each verdict rests on
EVIDENCE = [
    Evidence(r"shortest_path NumPy out", "transfers"),
    Evidence(r"shortest_path on fractional weights", "float64", correctness=True),
    Evidence(r"nx\.single_source_dijkstra through", "paths", correctness=True),
    Evidence(r"shortest_path\(method='auto'\) picks", where="method != 'networkx' and experiment != 'first_call'"),
    Evidence(r".* on SSSP from vertex 0 of USA-road-d NY", "ny_sssp"),
    Evidence(r".* on all pairs on p2p-Gnutella04", "gnutella04_apsp"),
    Evidence(r".* on all pairs on", "regular_apsp"),
]
