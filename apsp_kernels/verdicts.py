"""Which records each verdict rests on, and the verdict line that says so (issue 28).

A driver lists, per claim, the records its verdict is computed from (:class:`Evidence`, in
the driver's ``EVIDENCE``); :func:`annotate` finds them in a results folder's
``records_*.csv`` and writes each verdict's ``basis``, ``records`` (ids) and qualified
wording into ``verdicts.csv``. The runner calls it after each notebook and
``python -m apsp_kernels.experiments.recheck`` on committed results, so the same rule
qualifies new and old verdicts; nothing is measured again.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import provenance
from .provenance import INCONCLUSIVE
from .records import write_csv

NO_EVIDENCE = "no EVIDENCE entry names this claim"
# ``outcome``: what the notebook computed (holds / does not hold / inconclusive / not tested); ``verdict``:
# that outcome worded with its basis
VERDICT_COLUMNS = ["claim", "published", "measured", "verdict", "basis", "records", "note", "outcome"]


@dataclass(frozen=True)
class Evidence:
    """The records a claim's verdict rests on.

    ``claim``: a regular expression matched at the start of the verdict's claim.
    ``experiment`` / ``method`` / ``graph``: each a name or a tuple of names ('' or () for any).
    ``where``: a pandas query over the records' columns (e.g. ``"n >= 1024"``).
    ``basis``: for a verdict that rests on no record: ``published`` (the paper's numbers or a
    model of them). ``every_method``: the claim is about each selected method, so a method
    that was not run leaves the verdict ``not run``. ``correctness``: the claim is about what was
    computed (the answers are right, a count of iterations), so its basis is what was checked,
    not how a time was obtained
    (:func:`apsp_kernels.provenance.check_basis`).
    """

    claim: str
    experiment: str | tuple = ()
    method: str | tuple = ()
    graph: str | tuple = ()
    where: str = ""
    basis: str | None = None
    every_method: bool = False
    correctness: bool = False

    @property
    def basis_column(self) -> str:
        return "check_basis" if self.correctness else "basis"

    def matches(self, claim: str) -> bool:
        return re.match(self.claim, claim) is not None

    def select(self, frame: pd.DataFrame) -> pd.DataFrame:
        rows = frame
        for column in ("experiment", "method", "graph"):
            want = getattr(self, column)
            if want:
                rows = rows[rows[column].isin((want,) if isinstance(want, str) else want)]
        return rows.query(self.where) if self.where and len(rows) else rows


def load_records(folder) -> pd.DataFrame:
    """Every ``records_*.csv`` of a results folder, each row with its ``id``, ``basis`` and
    ``check_basis`` (its basis as evidence of correctness)."""
    frames = [pd.read_csv(p, keep_default_na=False, na_values={c: [""] for c in
                                                                ("time_ms_median", "time_ms_min", "max_error")})
              for p in sorted(Path(folder).glob("records_*.csv"))]
    if not frames:
        return pd.DataFrame(columns=["id", "basis", "check_basis", "experiment", "method", "graph", "n"])
    df = pd.concat(frames, ignore_index=True)
    rows = df.to_dict("records")
    df["id"] = [provenance.record_id(r) for r in rows]
    df["basis"] = [provenance.record_basis(r) for r in rows]
    df["check_basis"] = [provenance.check_basis(r) for r in rows]
    return df


def resolve(evidence: Evidence | None, frame: pd.DataFrame, outcome: str = "") -> tuple[str, str, list[str]]:
    """``(basis, where, record ids)`` of a verdict from its evidence in ``frame``; a verdict on
    no record (a fixed ``basis``) that the notebook left ``not tested`` had nothing to test:
    ``not run``."""
    if evidence is None:
        return provenance.NOT_RUN, NO_EVIDENCE, []
    if evidence.basis is not None:
        return (provenance.NOT_RUN if outcome == "not tested" else evidence.basis), "", []
    rows = evidence.select(frame)
    timed = rows[rows[evidence.basis_column] != provenance.NOT_RUN]
    missing = sorted(set(rows["method"]) - set(timed["method"])) if evidence.every_method else []
    if timed.empty or missing:
        return provenance.NOT_RUN, (f"not run: {', '.join(missing)}" if missing else ""), list(rows["id"])
    of = provenance.check_basis if evidence.correctness else provenance.record_basis
    basis, where = provenance.basis_of(timed.to_dict("records"), of=of)
    return basis, where, list(timed["id"])


def find(evidence, claim: str) -> Evidence | None:
    return next((e for e in evidence if e.matches(claim)), None)


def annotate(folder, evidence) -> pd.DataFrame:
    """Write each verdict's basis, record ids and qualified wording into ``verdicts.csv``.

    The outcome (holds / does not hold / inconclusive / not tested) is the one the notebook
    computed (or :mod:`apsp_kernels.experiments.recheck` re-derived); only a
    verdict whose records were not run, or rest on an upper bound that cannot decide it,
    changes outcome (see :func:`apsp_kernels.provenance.wording`)."""
    path = Path(folder) / "verdicts.csv"
    if not path.exists():
        return pd.DataFrame()
    df = pd.read_csv(path, keep_default_na=False)
    frame = load_records(folder)
    for column in ("basis", "records", "outcome"):
        if column not in df:
            df[column] = ""
    for i, row in df.iterrows():
        outcome = row["outcome"] or provenance.outcome(row["verdict"])
        basis, where, ids = resolve(find(evidence, row["claim"]), frame, outcome)
        df.at[i, "basis"], df.at[i, "records"], df.at[i, "outcome"] = basis, " ".join(ids), outcome
        df.at[i, "verdict"] = provenance.wording(held(outcome), basis, where)
    write_csv(df.reindex(columns=VERDICT_COLUMNS), path)
    return df


def rederive_into(folder, derived: list[dict]) -> list[tuple[str, str, str]]:
    """Write verdicts re-derived from a folder's committed records (a claims module's
    ``rederive``) over the rows of its ``verdicts.csv`` with the same claim: their measured
    figure, note and outcome; the basis and wording follow in :func:`annotate`. Returns
    ``(claim, old outcome, new outcome)`` for every row whose outcome changed."""
    path = Path(folder) / "verdicts.csv"
    if not path.exists() or not derived:
        return []
    df = pd.read_csv(path, keep_default_na=False)
    if "outcome" not in df:
        df["outcome"] = [provenance.outcome(v) for v in df["verdict"]]
    changed = []
    for v in derived:
        rows = df.index[df["claim"] == v["claim"]]
        outcome = provenance.wording(v["holds"], "measured")
        for i in rows:
            old = df.at[i, "outcome"] or provenance.outcome(df.at[i, "verdict"])
            if old != outcome:
                changed.append((v["claim"], old, outcome))
            df.at[i, "measured"], df.at[i, "note"] = str(v["measured"]), v.get("note", "")
            df.at[i, "outcome"] = df.at[i, "verdict"] = outcome
    write_csv(df, path)
    return changed


def held(outcome: str) -> bool | str | None:
    """``holds`` -> True, ``does not hold`` -> False, ``inconclusive`` -> :data:`INCONCLUSIVE`,
    else None (not tested)."""
    return {"holds": True, "does not hold": False, INCONCLUSIVE: INCONCLUSIVE}.get(outcome)


# ------------------------------------------------------------------ noise bands
# The default relative noise band of a timed comparison, where its records keep no repeats.
# Over the committed records with repeats (results/**/records_*.csv, 4,644 rows at 51207c9)
# the relative spread (median - min) / median of one run's repeats has median 1.3 % and 90th
# percentile 7.3 % (4-5 % for bodra, pandey and takafuji; liu's CPU rows reach 13 %); two runs of
# one cell in different sessions differ by about as much (bodra's tiled-shared FW at n = 4096:
# 29.4 vs 29.7 ms, results/bodra and results/paper/bodra). tests/test_audit_results.py checks
# that 5 % still lies between the median and the 95th percentile of the committed spreads.
DEFAULT_TIMING_BAND = 0.05


def repeat_spread(rows) -> float | None:
    """The largest relative spread (median - min) / median of some timed records' repeats
    (rows of a records frame, or Records), or None where none was repeated."""
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame([vars(r) if hasattr(r, "__dict__") else r
                                                                       for r in rows])
    if frame.empty or not {"time_ms_median", "time_ms_min", "repeats"} <= set(frame):
        return None
    timed = frame[(pd.to_numeric(frame["repeats"], errors="coerce") > 1)
                  & (pd.to_numeric(frame["time_ms_median"], errors="coerce") > 0)]
    if timed.empty:
        return None
    med, low = timed["time_ms_median"].astype(float), timed["time_ms_min"].astype(float)
    return float(((med - low) / med).clip(lower=0).max())


def timing_band(*sides) -> float:
    """The relative noise band of a comparison of times: the repeats' spreads of its sides
    added (a ratio's relative error is about the sum of its parts'), a side without repeats
    counting half the default; :data:`DEFAULT_TIMING_BAND` where no side kept repeats."""
    spreads = [repeat_spread(side) for side in sides]
    if all(s is None for s in spreads):
        return DEFAULT_TIMING_BAND
    return sum(DEFAULT_TIMING_BAND / 2 if s is None else s for s in spreads)


def decide(test, value: float, band: float = DEFAULT_TIMING_BAND):
    """``test(value)`` as an outcome: True / False when ``test`` gives the same answer across
    ``value * (1 +- band)``, :data:`INCONCLUSIVE` when it flips inside the band, None (not
    tested) for a missing or non-finite value."""
    if value is None or not math.isfinite(float(value)):
        return None
    answers = {bool(test(value * f)) for f in (1 - band, 1.0, 1 + band)}
    return answers.pop() if len(answers) == 1 else INCONCLUSIVE


def every(outcomes):
    """The outcome of "each of these holds": False if one does not hold, else
    :data:`INCONCLUSIVE` if one is, else True; None when none was tested."""
    tested = [o for o in outcomes if o is not None]
    if not tested:
        return None
    if any(o is False for o in tested):
        return False
    return INCONCLUSIVE if any(o == INCONCLUSIVE for o in tested) else True


def band_note(outcome, band: float, note: str = "") -> str:
    """``note`` with, for an inconclusive outcome, the band it fell inside."""
    if outcome != INCONCLUSIVE:
        return note
    said = f"inconclusive: the comparison flips inside its noise band of +-{band * 100:.2g} % (apsp_kernels.verdicts)"
    return "; ".join(filter(None, (note, said)))


def headline(values: pd.Series, extrapolated: pd.Series, pick: str = "max") -> tuple[float, object, str]:
    """An "up to" (``pick`` = max) or "as low as" (min) figure: ``(value, its index, which rows
    it was taken from)``; from the measured rows whenever there is one, the extrapolated rows
    only when nothing else was measured."""
    values = values.dropna()
    if values.empty:
        return math.nan, None, "no rows"
    measured = values[~extrapolated.reindex(values.index).fillna(False).astype(bool)]
    rows, which = (measured, "measured rows") if len(measured) else (values, "extrapolated rows only")
    at = rows.idxmax() if pick == "max" else rows.idxmin()
    return float(rows[at]), at, which


def beside_goal(value: float, goal: float, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals, or as many more (up to 4) as it takes not to print the
    goal it misses or meets: 1.896 against 1.9, not "1.90"."""
    while digits < 4 and value != goal and round(value, digits) == round(goal, digits):
        digits += 1
    return f"{value:.{digits}f}"
