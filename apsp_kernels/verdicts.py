"""Which records each verdict rests on, and the verdict line that says so (issue 28).

A driver lists, per claim, the records its verdict is computed from (:class:`Evidence`, in
the driver's ``EVIDENCE``); :func:`annotate` finds them in a results folder's
``records_*.csv`` and writes each verdict's ``basis``, ``records`` (ids) and qualified
wording into ``verdicts.csv``. The runner calls it after each notebook and
``python -m apsp_kernels.experiments.recheck`` on committed results, so the same rule
qualifies new and old verdicts; nothing is measured again.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import provenance
from .records import write_csv

NO_EVIDENCE = "no EVIDENCE entry names this claim"
# ``outcome``: what the notebook computed (holds / does not hold / not tested); ``verdict``:
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

    The outcome (holds / does not hold / not tested) is the one the notebook computed; only a
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


def held(outcome: str) -> bool | None:
    """``holds`` -> True, ``does not hold`` -> False, else None (not tested)."""
    return {"holds": True, "does not hold": False}.get(outcome)


def beside_goal(value: float, goal: float, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals, or as many more (up to 4) as it takes not to print the
    goal it misses or meets: 1.896 against 1.9, not "1.90"."""
    while digits < 4 and value != goal and round(value, digits) == round(goal, digits):
        digits += 1
    return f"{value:.{digits}f}"
