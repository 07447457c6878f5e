"""What a number stands on: one vocabulary for records and verdicts (issue 28).

A record's *basis* says how its time was obtained; a verdict's basis is the weakest basis of
the records it rests on, and its wording says so: a verdict whose rows are not all measured
never reads as a bare "holds" / "does not hold".

BASES, strongest first:

- ``measured``: timed in full and every answer row checked against the oracle;
- ``verified-sample``: timed in full, the answer checked on sampled rows / instances;
- ``stand-in``: measured on a graph that replaces one the paper used and we do not have;
- ``extrapolated``: measured on a part (sampled sources, a prefix of iterations) and scaled;
- ``upper-bound``: a bound on the time, not the time (e.g. all sources charged the slowest part);
- ``published``: no measurement of ours, the paper's numbers (or a model of them) only.

A record that was skipped, or timed without its answer being checked, supports no verdict:
its basis is ``not run`` / ``not measured`` (:data:`NO_DATA`).

A verdict on *correctness* (every answer equals the oracle's, or a count of work done) does not rest on how a time was
obtained but on what was checked: :func:`check_basis` is ``measured`` for a run checked on every
row, ``verified-sample`` for one checked on a part (sampled rows, or the sampled sources an
extrapolated time ran), ``stand-in`` for a run on a graph that replaces the paper's (the count
is the substitute's: okuyama's launches on our random graph), and ``not run`` for a row that was
never run at its size (:data:`NOT_RUN_HERE`: a time scaled from another size).
"""
from __future__ import annotations

import hashlib
import json
import math
import re

BASES = ("measured", "verified-sample", "stand-in", "extrapolated", "upper-bound", "published")
NOT_MEASURED, NOT_RUN = "not measured", "not run"
NO_DATA = (NOT_MEASURED, NOT_RUN)
# a comparison whose outcome flips inside its noise band (apsp_kernels.verdicts.decide)
INCONCLUSIVE = "inconclusive"
OUTCOMES = ("holds", "does not hold", INCONCLUSIVE, "not tested", NOT_MEASURED, NOT_RUN)
_RANK = {b: i for i, b in enumerate(BASES + NO_DATA)}
NOT_RUN_HERE = "not run at this n"  # verify_scope of a record scaled from another size
_SAMPLE = re.compile(r"(\d+) (?:sampled )?of (?:its )?(\d+)")


def _get(rec, key, default=None):
    return rec.get(key, default) if isinstance(rec, dict) else getattr(rec, key, default)


def _flag(value) -> bool:
    return str(value).strip().lower() == "true"


def _finite(value) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def sampled(verify_scope: str) -> bool:
    """Whether a verify scope names a sample (some rows or instances), not every row."""
    scope = str(verify_scope or "")
    if "sampled" in scope:
        return True
    return any(a != b for a, b in _SAMPLE.findall(scope))


def record_basis(rec) -> str:
    """The basis of one record (a Record or a row dict of a ``records_*.csv``)."""
    if str(_get(rec, "skipped", "") or "").strip() or not _finite(_get(rec, "time_ms_median")):
        return NOT_RUN
    if not _flag(_get(rec, "verified", False)):
        return NOT_MEASURED
    extrapolation = str(_get(rec, "extrapolation", "") or "")
    if extrapolation.lower().startswith("upper bound"):
        return "upper-bound"
    if _flag(_get(rec, "extrapolated", False)):
        return "extrapolated"
    if _flag(_get(rec, "stand_in", False)):
        return "stand-in"
    if sampled(_get(rec, "verify_scope", "")):
        return "verified-sample"
    return "measured"


def check_basis(rec) -> str:
    """The basis of one record as evidence that its answer is right (see the module docstring)."""
    if str(_get(rec, "skipped", "") or "").strip() or not _finite(_get(rec, "time_ms_median")) \
            or str(_get(rec, "verify_scope", "") or "").startswith(NOT_RUN_HERE):
        return NOT_RUN
    if not _flag(_get(rec, "verified", False)):
        return NOT_MEASURED
    if _flag(_get(rec, "stand_in", False)):
        return "stand-in"
    if _flag(_get(rec, "extrapolated", False)) or sampled(_get(rec, "verify_scope", "")):
        return "verified-sample"
    return "measured"


def record_id(rec) -> str:
    """A stable id for a record, without spaces: its experiment, method, graph and n, and a
    short hash of what tells it apart from its siblings (paper, m, scope, timestamp, params:
    two papers' methods of one name, run in the same second, differ by paper). The same row
    read back from its CSV gets the same id."""
    params = _get(rec, "params", "{}")
    params = params if isinstance(params, str) else json.dumps(params, sort_keys=True, default=str)
    key = "|".join(str(_get(rec, k, "")) for k in ("paper", "method", "graph", "n", "m", "timing_scope",
                                                    "timestamp"))
    digest = hashlib.sha1(f"{key}|{params}".encode()).hexdigest()[:8]
    parts = (_get(rec, k) for k in ("experiment", "method", "graph", "n"))
    return "/".join(re.sub(r"\s+", "", str(p)) for p in parts) + f"/{digest}"


def weakest(bases) -> str:
    """The weakest of some bases (``not run`` for none)."""
    bases = list(bases)
    return max(bases, key=lambda b: _RANK[b]) if bases else NOT_RUN


def detail(records, of=record_basis) -> str:
    """Which of ``records`` make their weakest basis (``of`` each record), in words: "above
    n = 1024" when, for every method, its weak rows lie above its stronger ones; else "k of N
    rows"."""
    bases = [of(r) for r in records]
    worst = weakest(bases)
    if worst in ("measured", "published") or not bases:
        return ""
    weak = [r for r, b in zip(records, bases) if b == worst]
    thresholds = []
    for method in {_get(r, "method") for r in weak}:
        strong = [int(_get(r, "n")) for r, b in zip(records, bases)
                  if _get(r, "method") == method and _RANK[b] < _RANK[worst]]
        low = min(int(_get(r, "n")) for r, b in zip(records, bases)
                  if _get(r, "method") == method and b == worst)
        if not strong or low <= max(strong):
            thresholds = []
            break
        thresholds.append(max(strong))
    if thresholds:
        return f"above n = {min(thresholds)}"
    return f"{len(weak)} of {len(records)} rows" if len(weak) < len(records) else "every row"


_WORDS = {"verified-sample": "verified on a sample", "stand-in": "stand-in graph",
          "extrapolated": "extrapolated", "upper-bound": "an upper bound", "published": "published numbers only"}


def wording(holds: bool | str | None, basis: str, where: str = "") -> str:
    """The verdict line: the outcome, qualified by its basis when that is not ``measured``.

    ``holds``: True, False, None (not tested) or :data:`INCONCLUSIVE` (the comparison flips
    inside its noise band). An upper bound on a time cannot show that something is too slow,
    so a failing verdict on one reads ``not measured``; a verdict with no data reads
    ``not run`` / ``not measured``."""
    if basis in NO_DATA:
        return basis
    if holds is None:
        outcome = "not tested"
    elif holds == INCONCLUSIVE:
        outcome = INCONCLUSIVE
    elif basis == "upper-bound" and not holds:
        return f"{NOT_MEASURED} (only an upper bound{': ' + where if where else ''})"
    else:
        outcome = "holds" if holds else "does not hold"
    if basis == "measured":
        return outcome
    sep = " " if where.startswith("above") else ": "
    return f"{outcome} ({_WORDS[basis]}{sep + where if where else ''})"


def outcome(verdict: str) -> str:
    """The outcome a verdict line starts with (one of :data:`OUTCOMES`)."""
    for word in sorted(OUTCOMES, key=len, reverse=True):
        if str(verdict).startswith(word):
            return word
    raise ValueError(f"verdict {verdict!r} starts with none of {OUTCOMES}")


def basis_of(records, basis: str | None = None, of=record_basis) -> tuple[str, str]:
    """``(basis, where)`` of a verdict resting on ``records`` (``of``: :func:`record_basis`, or
    :func:`check_basis` for a verdict on correctness); ``basis`` overrides it for a verdict
    with no records (``published``: the paper's numbers or a model of them only)."""
    if basis is not None:
        if basis not in BASES + NO_DATA:
            raise ValueError(f"basis {basis!r} is none of {BASES + NO_DATA}")
        return basis, ""
    records = list(records)
    return weakest(of(r) for r in records), detail(records, of)
