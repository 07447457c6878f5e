"""SciPy's precision and NetworkX's paths as a user meets them (issue 29, item 4), for the library
notebook.

* float64 rows: all pairs on a dense random graph with fractional weights (uniform in [1, 10)):
  ``shortest_path(A)`` on the default path (float64 once float input runs in float64; until then
  the row says what ran instead and gives no float64 time), float32 asked for explicitly (a Graph
  with float32 weights), SciPy and NetworkX; ratios to float32, SciPy, NetworkX and to the
  same-run float64 (min,+) peak (counting n^3 per call, end to end).
* a path-returning row: ``nx.single_source_dijkstra`` (lengths and paths) from vertex 0 of
  USA-road-d NY through the ``apsp_kernels`` backend against NetworkX's own; skipped, saying why,
  while the backend has no such function.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse import csgraph

from .. import gpu
from ..graph import Graph
from ..profiles import choose
from ..records import Record
from ..sampling import scaled_sample
from . import library

FLOAT64_RTOL = 1e-12  # SciPy's distances up to the order of the sums
PATH_FUNCTION = "single_source_dijkstra"


def config(profile: str) -> dict:
    pick = lambda **kw: choose(profile, **kw)  # noqa: E731
    return {"profile": profile, "seed": 0, "repeats": pick(smoke=1, default=3, paper=5),
            "budget_s": pick(smoke=2.0, default=5.0, paper=20.0),
            "dense_n": pick(smoke=128, default=2048, paper=4096),
            "networkx_sample": pick(smoke=4, default=4, paper=16),
            "path_graph": pick(smoke={"kind": "road_like", "n": 2000, "m": 5600, "for": "USA-road-d.NY"},
                               default={"kind": "dataset", "name": "NY"}),
            "path_checks": pick(smoke=50, default=200, paper=1000)}


def _record(experiment, method, g_name, n, m, scope, params, cfg) -> Record:
    return Record(paper=library.PAPER, experiment=experiment, method=method, graph=g_name, n=n, m=m,
                  params=params, timing_scope=scope, profile=cfg["profile"])


def close(got, want, rtol: float) -> tuple[bool, float]:
    """Same unreachable pattern, finite entries within ``rtol`` relative; (ok, max relative error)."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape or (np.isfinite(got) != np.isfinite(want)).any():
        return False, float("inf")
    fin = np.isfinite(want)
    if not fin.any():
        return True, 0.0
    rel = np.abs(got[fin] - want[fin]) / np.maximum(1.0, np.abs(want[fin]))
    worst = float(rel.max())
    return worst <= rtol, worst


# ----------------------------------------------------------------------------- float64 rows
def fractional_dense(n: int, seed: int = 0):
    """A complete digraph, weights uniform in [1, 10) (no whole numbers in practice): SciPy CSR."""
    w = np.random.default_rng(seed).uniform(1.0, 10.0, (n, n))
    np.fill_diagonal(w, 0.0)
    return sp.csr_matrix(w)


def float64_rows(cfg: dict) -> list[Record]:
    """float64 (default path), float32 (asked for), SciPy and NetworkX on one fractional dense graph."""
    import apsp_kernels

    n = cfg["dense_n"]
    A = fractional_dense(n, cfg["seed"])
    name, m = f"dense-fractional-{n}", A.nnz
    rec = lambda method, scope, params: _record("float64", method, name, n, m, scope, params, cfg)  # noqa: E731
    scipy_rec = rec("scipy", "cpu", {"call": library.SCIPY_CALL, "scipy_runs": library.scipy_picks(A, None)})
    times, want = library.time_calls(lambda: csgraph.shortest_path(A, method="auto"), cfg["repeats"],
                                     budget_s=cfg["budget_s"])
    library._set_times(scipy_rec, times)
    scipy_rec.verified, scipy_rec.verify_scope = True, "is the reference"
    out = [scipy_rec]

    warm = 1 if gpu.available() else 0
    choices = []
    f64 = rec("float64", "with_transfers", {"call": "apsp_kernels.shortest_path(A) (the default path)"})
    times, got = library.time_calls(lambda: apsp_kernels.shortest_path(A, explain=choices.append),
                                    cfg["repeats"], warmup=warm, budget_s=cfg["budget_s"])
    ok, err = close(got, want, FLOAT64_RTOL)
    f64.max_error, f64.verify_scope = err, f"every row vs SciPy, relative {FLOAT64_RTOL:g}"
    f64.stats = json.dumps({"family": choices[-1].family})
    if ok:
        library._set_times(f64, times)
        f64.verified = True
    else:
        f64.skipped = (f"the default path did not give float64 distances (max relative error {err:.2g} vs "
                       f"SciPy, over {FLOAT64_RTOL:g}; it ran {choices[-1].family}): no float64 time to report")
    out.append(f64)

    g32 = Graph.from_edges(n, *_arcs(A), dtype=np.float32, name=f"{name}-f32")
    f32 = rec("float32", "with_transfers", {"call": "apsp_kernels.shortest_path(Graph with float32 weights)"})
    choices = []
    times, got = library.time_calls(lambda: apsp_kernels.shortest_path(g32, explain=choices.append),
                                    cfg["repeats"], warmup=warm, budget_s=cfg["budget_s"])
    library._set_times(f32, times)
    ok, err = close(got, want, 1e-5)
    f32.verified, f32.max_error = ok, err
    f32.verify_scope = "every row vs SciPy, relative 1e-5 (float32 weights and sums)"
    f32.stats = json.dumps({"family": choices[-1].family})
    out.append(f32)
    out.append(_networkx_float(A, name, want, cfg))
    return out


def _arcs(A):
    coo = A.tocoo()
    return coo.row, coo.col, coo.data


def _networkx_float(A, name, want, cfg) -> Record:
    n = A.shape[0]
    timed, scale, how = scaled_sample(np.arange(n), cfg["networkx_sample"], cfg["seed"])
    rec = _record("float64", "networkx", name, n, A.nnz, "cpu",
                  {"call": "networkx.single_source_dijkstra_path_length", "indices": f"{len(timed)} of {n}"}, cfg)
    import networkx as nx
    G, kw = library.networkx_graph(A), library._nx_kwargs(nx)
    times, got = library.time_calls(
        lambda: {int(s): nx.single_source_dijkstra_path_length(G, int(s), **kw) for s in timed},
        cfg["repeats"], budget_s=cfg["budget_s"])
    library._set_times(rec, times, scale, how)
    rows = np.full((len(timed), n), np.inf)
    for i, s in enumerate(timed):
        rows[i, list(got[int(s)])] = list(got[int(s)].values())
    rec.verified, rec.max_error = close(rows, want[timed], FLOAT64_RTOL)
    rec.verify_scope = f"its {len(timed)} timed sources vs SciPy, relative {FLOAT64_RTOL:g}"
    return rec


def float64_peak() -> tuple[float, str]:
    """This GPU's float64 (min,+) rate, measured now as the int32/float32 peaks are
    (:func:`apsp_kernels.minplus.product.measure_peak`); NaN and why where it cannot be."""
    if not gpu.available():
        return float("nan"), "no CUDA GPU in this run"
    from ..minplus import product
    if np.dtype(np.float64) not in product.SUFFIX:
        return float("nan"), "no float64 (min,+) peak kernel in this build"
    return product.measure_peak(np.float64)["ops_per_s"], ""


def float64_table(recs: list[Record], peak: tuple[float, str]) -> pd.DataFrame:
    ms = {r.method: (r.time_ms_median if not r.skipped else float("nan")) for r in recs}
    rate, why = peak
    rows = []
    for r in recs:
        t = ms[r.method]
        per_s = r.n ** 3 / (t * 1e-3)
        rows.append({"implementation": r.method, "time_ms": t, "float64_over_this": ms.get("float64") / t,
                     "this_over_float32": t / ms.get("float32", np.nan), "scipy_over_this": ms["scipy"] / t,
                     "networkx_over_this": ms.get("networkx", np.nan) / t,
                     "minplus_per_s_end_to_end": per_s if r.method in ("float64", "float32") else np.nan,
                     "of_float64_peak": per_s / rate if r.method == "float64" else np.nan,
                     "family": r.stat("family", ""), "verified": r.verified, "max_error": r.max_error,
                     "extrapolated": r.extrapolated, "device": r.device,
                     "note": "; ".join(filter(None, (r.skipped, r.extrapolation,
                                                     why if r.method == "float64" else "")))})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- the path row
CACHED_PATHS = "apsp_kernels backend, G's conversion cached"


def backend_has(function: str) -> bool:
    from .. import nx_backend
    return function in nx_backend.FUNCTIONS


def path_rows(cfg: dict) -> list[Record]:
    """``nx.single_source_dijkstra(G, 0)`` through the backend and NetworkX's own: time, lengths
    against NetworkX's, and each checked path's arcs and length. The backend twice: converting G
    in every call (NetworkX's cache of G emptied before each, untimed: a first call), and reusing
    NetworkX's cached conversion of G (a later call on the unchanged G)."""
    import networkx as nx

    g = library.build_graph(cfg["path_graph"])
    A = g.to_scipy()
    G = library.networkx_graph(A)
    params = {"call": f"networkx.{PATH_FUNCTION}(G, 0, weight='weight')"}
    mk = lambda method, scope: _record("paths", method, g.name, g.n, g.m, scope, params, cfg)  # noqa: E731
    fn = getattr(nx, PATH_FUNCTION)
    own = mk("networkx", "cpu")
    times, (want_len, want_path) = library.time_calls(lambda: fn(G, 0, **library._nx_kwargs(nx)),
                                                      cfg["repeats"], budget_s=cfg["budget_s"])
    library._set_times(own, times)
    own.verified, own.verify_scope = True, "is the reference"
    own.stand_in = g.is_stand_in
    ours = mk("apsp_kernels backend", "with_transfers")
    cached = mk(CACHED_PATHS, "with_transfers")
    ours.stand_in = cached.stand_in = g.is_stand_in
    if not backend_has(PATH_FUNCTION):
        ours.skipped = f"the apsp_kernels NetworkX backend has no {PATH_FUNCTION} in this build"
        return [ours, own]
    call = lambda: fn(G, 0, backend="apsp_kernels")  # noqa: E731
    forget = getattr(G, "__networkx_cache__", {}).clear  # NetworkX's conversions of G
    try:
        times, (lengths, paths) = library.time_calls(call, cfg["repeats"], warmup=1 if gpu.available() else 0,
                                                     budget_s=cfg["budget_s"], before=forget)
    except NotImplementedError as exc:
        ours.skipped = f"the backend declined: {exc}"
        return [ours, own]
    library._set_times(ours, times)
    ours.verified, ours.max_error, ours.verify_scope = check_paths(G, 0, lengths, paths, want_len,
                                                                   cfg["path_checks"], cfg["seed"])
    # NetworkX's note that it reuses its cached conversion: wanted here
    with nx.config(warnings_to_ignore=set(nx.config.warnings_to_ignore) | {"cache"}):
        times, (again, again_paths) = library.time_calls(call, cfg["repeats"], warmup=1, budget_s=cfg["budget_s"])
    library._set_times(cached, times)
    cached.verified, cached.max_error, cached.verify_scope = check_paths(G, 0, again, again_paths, want_len,
                                                                         cfg["path_checks"], cfg["seed"])
    return [ours, cached, own]


def check_paths(G, source, lengths: dict, paths: dict, want: dict, checks: int, seed: int = 0):
    """(ok, max error, scope): the same reachable set and lengths as NetworkX's, and each sampled
    path runs from ``source`` to its target over arcs of G whose weights add up to its length."""
    if set(lengths) != set(want) or set(paths) != set(want):
        return False, float("inf"), "reachable set differs from NetworkX's"
    err = max((abs(lengths[v] - want[v]) for v in want), default=0.0)
    targets = sorted(want)
    rng = np.random.default_rng(seed)
    sample = rng.choice(len(targets), size=min(checks, len(targets)), replace=False)
    for i in sample:
        v = targets[int(i)]
        p = paths[v]
        if p[0] != source or p[-1] != v:
            return False, err, f"path to {v} does not run from {source} to {v}"
        if any(not G.has_edge(a, b) for a, b in zip(p, p[1:])):
            return False, err, f"path to {v} uses an arc G does not have"
        total = sum(G[a][b]["weight"] for a, b in zip(p, p[1:]))
        err = max(err, abs(total - lengths[v]))
    scope = f"all {len(want)} lengths vs NetworkX; {len(sample)} sampled paths walked on G"
    return err == 0.0, err, scope


def path_table(recs: list[Record]) -> pd.DataFrame:
    own = next(r.time_ms_median for r in recs if r.method == "networkx")
    return pd.DataFrame([{"implementation": r.method, "time_ms": r.time_ms_median,
                          "networkx_over_this": own / r.time_ms_median, "scope": r.timing_scope,
                          "verified": r.verified, "verify_scope": r.verify_scope, "device": r.device,
                          "note": "; ".join(filter(None, (r.skipped, "stand-in graph" if r.stand_in else "")))}
                         for r in recs])


def verdicts(float_recs: list[Record], path_recs: list[Record]) -> list[dict]:
    """Correctness claims: float64 distances as SciPy's; paths as NetworkX's (times stand in the tables)."""
    f64 = next(r for r in float_recs if r.method == "float64")
    ours, *more = [r for r in path_recs if r.method != "networkx"]  # converting G each call, then cached
    no_gpu = not gpu.available()
    return [
        {"claim": f"shortest_path on fractional weights gives SciPy's float64 distances (relative "
                  f"{FLOAT64_RTOL:g}) by default", "published": "- (issue 29 goal)",
         "measured": f"max relative error {f64.max_error:.2g} ({f64.stat('family', '')})",
         "holds": None if no_gpu else bool(f64.verified),
         "note": "not tested: no CUDA GPU in this run (SciPy ran itself)" if no_gpu else f64.skipped},
        {"claim": f"nx.{PATH_FUNCTION} through the apsp_kernels backend returns NetworkX's lengths and "
                  f"valid shortest paths", "published": "- (issue 29 goal)",
         "measured": ours.skipped or f"{ours.verify_scope}, G converted in each call and cached; max error "
                                     f"{max(r.max_error for r in [ours, *more]):g}",
         "holds": None if ours.skipped else all(bool(r.verified) for r in [ours, *more]), "note": ours.skipped},
    ]
