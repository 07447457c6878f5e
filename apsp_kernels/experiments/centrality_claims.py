"""The centrality notebook's claims (:mod:`apsp_kernels.experiments.centrality`): issue 46's goals and the
agreement with NetworkX, each computed from records alone (:func:`verdicts`, :func:`rederive`), and what each
rests on (``EVIDENCE``).

Goals in seconds are judged on the GPU they were set for only (:func:`apsp_kernels.report.timed_goal`) and
not on a stand-in graph; the speed-ups over NetworKit on any GPU, against NetworKit's time extrapolated
from its sampled sources on every core of the same host (the verdict's basis says ``extrapolated``).
"""
from __future__ import annotations

import math
import re

from .. import report
from ..verdicts import Evidence, band_note, decide, timing_band
from .centrality_space import AGREEMENT_RTOL, EXACT, NX_BETWEENNESS, NX_CLOSENESS, TRIO, graph_label, our_method

FROM_NETWORKX = our_method(TRIO, "networkx")
NK_DISTANCES, NK_BETWEENNESS = "networkit SPSP", "networkit EstimateBetweenness"
TRIO_WORDS = "closeness + harmonic + eccentricity from a NetworkX graph"
ISSUE = "issue 46 goal"

# (claim, graph key, experiment of ours, our method, goal): seconds on one H100
TIME_GOALS = [("NY exact weighted betweenness (every source) <= 60 s on one H100", "ny", "betweenness", EXACT, 60.0),
              (f"NY {TRIO_WORDS} <= 3 s end to end on one H100", "ny", "measures", FROM_NETWORKX, 3.0),
              (f"BAY {TRIO_WORDS} <= 4 s end to end on one H100", "bay", "measures", FROM_NETWORKX, 4.0)]
# (claim, graph key, experiment of ours, our method, NetworKit's method, goal): speed-up
RATIO_GOALS = [("NY exact weighted betweenness >= 20x NetworKit's weighted betweenness (all host cores)", "ny",
                "betweenness", EXACT, NK_BETWEENNESS, 20.0),
               (f"NY {TRIO_WORDS} >= 300x NetworKit's distances from every source (all host cores)", "ny",
                "measures", FROM_NETWORKX, NK_DISTANCES, 300.0)]
AGREEMENT = [(f"closeness equals NetworkX's within {AGREEMENT_RTOL:g} relative on sampled vertices", NX_CLOSENESS,
              "agreement"),
             (f"betweenness on k sampled sources equals NetworkX's (same k and seed) within {AGREEMENT_RTOL:g} "
              "relative on every vertex", NX_BETWEENNESS, "betweenness")]
KEYS = ("ny", "bay")

EVIDENCE = [
    *[Evidence(re.escape(claim), f"{key}_{exp}", method=method) for claim, key, exp, method, _ in TIME_GOALS],
    *[Evidence(re.escape(claim), (f"{key}_{exp}", f"{key}_peers"), method=(method, peer))
      for claim, key, exp, method, peer, _ in RATIO_GOALS],
    *[Evidence(re.escape(claim), tuple(f"{key}_{exp}" for key in KEYS), method=method, correctness=True)
      for claim, method, exp in AGREEMENT],
]


def _key(rec) -> str:
    """The graph key of a record (its experiment ``<key>_<part>``)."""
    return rec.experiment.split("_")[0]


def _find(records, experiment: str, method: str):
    return next((r for r in records if r.experiment == experiment and r.method == method), None)


def _timed(rec) -> bool:
    return rec is not None and not rec.skipped and math.isfinite(rec.time_ms_median)


def _missing(rec, what: str) -> str:
    return f"{what} not run" if rec is None else f"{what} skipped: {rec.skipped}"


def _where(rec) -> str:
    family = rec.stat("family", "")
    return f"{family}; {rec.device}" if family else rec.device


def time_verdict(records, claim: str, key: str, experiment: str, method: str, goal: float) -> dict:
    rec = _find(records, f"{key}_{experiment}", method)
    out = {"claim": claim, "published": f"<= {goal:g} s ({ISSUE})"}
    if not _timed(rec):
        return {**out, "measured": "not run", "holds": None, "note": _missing(rec, method)}
    band = timing_band([rec])
    judged, why = report.timed_goal(True, rec.device)
    if rec.stand_in:
        judged, why = None, f"measured on a stand-in for {graph_label(key)}, so not judged"
    holds = decide(lambda s: s <= goal, rec.time_s, band) if judged is not None else None
    note = f"host clock, {rec.repeats} run(s), the median; {_where(rec)}" + (f"; {why}" if why else "")
    return {**out, "measured": f"{rec.time_s:.3g} s", "holds": holds, "note": band_note(holds, band, note)}


def ratio_verdict(records, claim: str, key: str, experiment: str, method: str, peer: str, goal: float) -> dict:
    mine, theirs = _find(records, f"{key}_{experiment}", method), _find(records, f"{key}_peers", peer)
    out = {"claim": claim, "published": f">= {goal:g}x ({ISSUE})"}
    if not (_timed(mine) and _timed(theirs)):
        why = _missing(mine, method) if not _timed(mine) else _missing(theirs, peer)
        return {**out, "measured": "not run", "holds": None, "note": why}
    ratio = theirs.time_ms_median / mine.time_ms_median
    band = timing_band([mine], [theirs])
    on_gpu = bool(mine.stat("on_gpu", False))
    holds = decide(lambda v: v >= goal, ratio, band) if on_gpu else None
    note = (f"NetworKit {theirs.time_s:.4g} s on {theirs.stat('threads')} threads"
            f"{' (' + theirs.extrapolation + ')' if theirs.extrapolated else ''}; ours {mine.time_s:.3g} s "
            f"({_where(mine)})" + ("" if on_gpu else "; not tested: ours ran on the host (no GPU)"))
    return {**out, "measured": f"{ratio:.3g}x", "holds": holds, "note": band_note(holds, band, note)}


def agreement_verdict(records, claim: str, method: str, experiment: str) -> dict:
    rows = [r for r in records if r.method == method and _timed(r) and r.experiment.endswith(f"_{experiment}")]
    out = {"claim": claim, "published": f"<= {AGREEMENT_RTOL:g} relative (issue 46)"}
    if not rows:
        return {**out, "measured": "not run", "holds": None, "note": ""}
    rows = sorted(rows, key=lambda r: (KEYS.index(_key(r)) if _key(r) in KEYS else len(KEYS), r.experiment))
    measured = "; ".join(f"{graph_label(_key(r))}: {r.max_error:.2g}" for r in rows)
    failed = [graph_label(_key(r)) for r in rows if not r.verified]
    note = "largest relative difference per graph; " + "; ".join(r.verify_scope for r in rows)
    if failed:
        note = f"MISMATCH on {', '.join(failed)}: " + note
    return {**out, "measured": measured, "holds": not failed, "note": note}


def verdicts(records) -> list[dict]:
    """Every verdict (arguments of :func:`apsp_kernels.report.add_verdict`) from the notebook's records."""
    return ([time_verdict(records, *goal) for goal in TIME_GOALS]
            + [ratio_verdict(records, *goal) for goal in RATIO_GOALS]
            + [agreement_verdict(records, *check) for check in AGREEMENT])


def rederive(records, profile: str = "") -> list[dict]:
    """The verdicts computable from ``records`` alone (used by the recheck and the audit)."""
    return [v for v in verdicts(list(records)) if v["holds"] is not None]
