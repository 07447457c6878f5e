"""The published side of a verdict, named by the transcription cells it comes from (issue 28).

A driver lists, per claim, the published ranges and extremes its verdicts quote
(:class:`Quoted`, in the driver's ``QUOTED``): which cells of
``apsp_kernels/data/published/transcriptions.csv`` (a table, a column, a pandas query over the rows), or
the ratio of two sets of cells matched on key columns, and which extremes the verdict shows.
The driver writes its published text from :meth:`Quoted.low` / :meth:`Quoted.high`; the audit
(:mod:`apsp_kernels.audit`) checks that every extreme a spec names is shown in the verdict's
published text, so a range whose end is not the true min/max of its cells fails.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from . import report

_NUMBER = re.compile(r"(?<!\w)(?<!\w\.)(\d+(?:[.,]\d+)*)(?:\s*([KM])\b)?")


@dataclass(frozen=True)
class Cells:
    """Cells of one published table: ``column`` of the rows that ``where`` (a pandas query) keeps."""

    table: str
    column: str
    where: str = ""

    def frame(self, paper: str) -> pd.DataFrame:
        df = report.published(paper, self.table)
        return df.query(self.where) if self.where else df


@dataclass(frozen=True)
class Quoted:
    """A published range or extreme: the ``which`` extremes of ``cells`` of ``paper``, or of
    ``cells / per`` with rows matched on the ``on`` columns, times ``scale`` (a unit change).

    ``claim``: a regular expression matched at the start of a verdict's claim."""

    claim: str
    paper: str
    cells: Cells
    per: Cells | None = None
    on: tuple = ()
    which: tuple = ("min", "max")
    scale: float = 1.0

    def matches(self, claim: str) -> bool:
        return re.match(self.claim, claim) is not None

    def values(self) -> pd.Series:
        num = self.cells.frame(self.paper)
        if self.per is None:
            values = num[self.cells.column].astype(float)
        else:
            den = self.per.frame(self.paper)
            on = list(self.on)
            if on:
                both = num[on + [self.cells.column]].merge(den[on + [self.per.column]], on=on,
                                                           suffixes=("", "_per"))
                column = self.per.column + ("_per" if self.per.column == self.cells.column else "")
                values = both[self.cells.column].astype(float) / both[column].astype(float)
            else:
                if len(num) != 1 or len(den) != 1:
                    raise ValueError(f"{self.claim!r}: a ratio without 'on' needs one cell each, "
                                     f"got {len(num)} and {len(den)}")
                values = pd.Series([float(num[self.cells.column].iloc[0]) / float(den[self.per.column].iloc[0])])
        values = values.dropna() * self.scale
        if values.empty:
            raise ValueError(f"{self.claim!r}: no {self.paper} cells of {self.cells} in {report.TRANSCRIPTIONS}")
        return values

    @property
    def low(self) -> float:
        return float(self.values().min())

    @property
    def high(self) -> float:
        return float(self.values().max())

    def problems(self, text: str) -> list[str]:
        """The extremes this spec names that ``text`` does not show (as printed, rounded)."""
        shown = numbers(text)
        out = []
        for which in self.which:
            value = self.low if which == "min" else self.high
            if not any(rounds_to(value, s) for s in shown):
                out.append(f"the {which} of its cells ({self.paper} {self.cells.table}"
                           f"{' / ' + self.per.table if self.per else ''}) is {value:.4g}, not shown in {text!r}")
        return out


def numbers(text: str) -> list[float]:
    """The numbers a text shows (``1.2M`` = 1.2e6, ``16K`` = 16e3, ``1,024`` = 1024)."""
    out = []
    for digits, suffix in _NUMBER.findall(str(text)):
        out.append(float(digits.replace(",", "")) * {"K": 1e3, "M": 1e6}.get(suffix, 1))
    return out


def rounds_to(value: float, shown: float) -> bool:
    """Whether ``shown`` is ``value`` as printed with ``shown``'s own digits (or, for numbers of
    1000 and more, within 5 %: ``1.2M`` for 1,200,000)."""
    if value == shown:
        return True
    text = f"{shown:.10g}"
    decimals = len(text.split(".")[1]) if "." in text else 0
    return round(value, decimals) == shown or (shown >= 1000 and abs(value - shown) <= 0.05 * shown)


def find(quoted, claim: str) -> list[Quoted]:
    """Every spec of ``quoted`` that names ``claim``."""
    return [q for q in quoted or () if q.matches(claim)]
