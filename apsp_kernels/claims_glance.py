"""Claims at a glance: every paper's claims, their numbers and one figure (issue 47).

The rows: one per claim of every paper (:data:`apsp_kernels.registry.PAPERS`), from the
``paper`` profile where its ``verdicts.csv`` has the claim, else from the ``default`` one (a
claim is the same in both when its text is, numbers aside: "with every core (64 threads)" on
one host is "(16 threads)" on another). :mod:`apsp_kernels.gallery` renders them as the table
that opens ``results/README.md``; :func:`figure` plots measured against published.

A side of a verdict (its ``published`` or ``measured`` text) gives one comparable number when
its headline shows exactly one (:func:`headline`): the text without its asides (parentheses,
braces), without the sizes it names (``n = 4096``, ``|V|=1K``, ``degree 16 to 512``), up to its
first ``", "`` or ``"; "``, past a leading label without a number (``model:``, ``n=4096:``).
Its unit is the one written after the number (``x``; ``s``, ``ms``, ``us``; ``%``) or none. A
claim is plotted when both sides give one number of the same unit; a range, a pair or a trend
("2.8-13x", "0.942 vs 0.669 s", a value per size) is not.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import provenance, quoted, registry, verdicts
from .report import read_run, savefig

PREFERENCE = ("paper", "default")  # the profile a claim's row comes from, first choice first
FIGURE = "claims_at_a_glance"  # written as results/fig_claims_at_a_glance.png (and .svg)
HELD, NOT_HELD, OTHER = "held", "not held", "other"
INCONCLUSIVE = getattr(provenance, "INCONCLUSIVE", "inconclusive")  # the verdict rules' word, once they have it
CATEGORIES = (HELD, NOT_HELD, INCONCLUSIVE, OTHER)
COLORS = {HELD: "#2ca02c", NOT_HELD: "#d62728", INCONCLUSIVE: "#ff7f0e", OTHER: "#7f7f7f"}
SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6}
UNIT_NAMES = {"x": "ratio (x)", "s": "time (s)", "%": "percent (%)", "": "no unit written (see the claim)"}
LOG_UNITS = ("x", "s", "")  # ratios and times span decades (and so do the unitless ratios and counts)

_ASIDE = re.compile(r"\([^()]*\)|\{[^{}]*\}")
_SIZE = re.compile(r"(?:\|V\||\b[nNm])\s*=\s*\d+(?:[.,]\d+)*\s*[KM]?(?:\s*\.\.\s*\d+)?"  # n = 64..4096, |V|=1K
                   r"|\bdeg(?:ree)?s?\s+\d+(?:\s+to\s+\d+)?")  # degree 16 to 512
_SCIENTIFIC = re.compile(r"\d+(?:\.\d+)?e[+-]?\d+")
_UNIT = re.compile(r"\d\s*(ms|us|µs|s|x|×|%)(?![\w/])")
_BOUNDS = (">=", "<=", "≥", "≤")


@dataclass(frozen=True)
class Headline:
    """The one number a side of a verdict shows: ``value`` in ``unit`` (``x``, ``s``, ``%`` or
    ``""``; times in seconds), ``bound`` when it is a limit (``>= 10x``), not a value."""

    value: float
    unit: str
    bound: bool = False


def headline(text) -> Headline | str:
    """The :class:`Headline` of one side's text, or why it has none: "no number", "several numbers"
    (a range, a pair, a trend), "a value per size or method" (a JSON object)."""
    text = str(text).strip()
    if text.startswith("{"):
        return "a value per size or method"
    while _ASIDE.search(text):
        text = _ASIDE.sub(" ", text)
    text = _SCIENTIFIC.sub(lambda m: np.format_float_positional(float(m.group()), trim="-"), text)
    clause = re.split(r"[;,]\s", _SIZE.sub(" ", text))[0]
    part = next((p for p in clause.split(": ") if quoted.numbers(p)), "")
    found = quoted.numbers(part)
    if len(found) != 1:
        return "several numbers" if found else "no number"
    unit = _UNIT.search(part)
    unit = unit.group(1).replace("×", "x") if unit else ""
    value = found[0] * SECONDS.get(unit, 1.0)
    return Headline(value, "s" if unit in SECONDS else unit, any(b in part for b in _BOUNDS))


def plotted(published, measured) -> tuple[Headline, Headline] | str:
    """Both sides' headlines when they are comparable, else why the claim is not plotted."""
    pub, mine = headline(published), headline(measured)
    for side, got in (("published", pub), ("measured", mine)):
        if isinstance(got, str):
            return f"{side}: {got}"
    if pub.unit != mine.unit:
        return f"units differ ({pub.unit or 'none'} vs {mine.unit or 'none'})"
    if pub.unit in LOG_UNITS and min(pub.value, mine.value) <= 0:
        return "a value <= 0 on a log axis"
    return pub, mine


def category(outcome: str) -> str:
    """held / not held / inconclusive / other (not tested, not measured, not run, ...)."""
    held = verdicts.held(outcome)
    if held is True:
        return HELD
    if held is False:
        return NOT_HELD
    return INCONCLUSIVE if outcome == INCONCLUSIVE else OTHER


def claim_key(claim: str) -> str:
    """A claim's identity across profiles: its text with the numbers left out."""
    return re.sub(r"\d+(?:[.,]\d+)*", "#", str(claim))


def shown_outcome(verdict: str, outcome: str) -> str:
    """The outcome a reader sees: the one the verdict line starts with (an upper bound turns a
    computed "does not hold" into "not measured"), else the computed ``outcome``."""
    try:
        return provenance.outcome(verdict)
    except ValueError:
        return outcome


def read_verdicts(folder: Path) -> pd.DataFrame:
    df = pd.read_csv(folder / "verdicts.csv", dtype=str, keep_default_na=False)
    for column in ("claim", "published", "measured", "verdict", "basis", "records", "outcome"):
        if column not in df:
            df[column] = ""
    df["outcome"] = [shown_outcome(v, o) for v, o in zip(df["verdict"], df["outcome"])]
    return df


def gpus(folder: Path, record_ids: str, cache: dict) -> str:
    """The GPUs of the records a verdict cites (their ``device``; CPU-timed rows left out), or
    the notebook run's device (``run.json``) when it cites none."""
    if folder not in cache:
        cache[folder] = verdicts.load_records(folder)
    records = cache[folder]
    if {"device", "timing_scope"} <= set(records.columns):
        cited = records[records["id"].isin(str(record_ids).split()) & (records["timing_scope"] != "cpu")]
        devices = sorted({str(d) for d in cited["device"] if str(d).strip()})
        if devices:
            return " + ".join(devices)
    return str(read_run(folder).get("device", "") or "")


def claim_rows(found: dict[str, dict[str, Path]]) -> pd.DataFrame:
    """One row per claim of every paper: ``number`` (1, 2, ...), paper, profile, folder, the
    verdict's columns, its ``category``, the ``gpu`` its numbers came from, and ``figure``:
    ``plotted`` or why not, with the plotted ``published_value`` / ``measured_value``, ``unit``, ``bound``."""
    rows, cache = [], {}
    for paper in registry.PAPERS:
        chosen = {}
        for profile in PREFERENCE:
            folder = found.get(profile, {}).get(paper)
            if folder is None or not (folder / "verdicts.csv").exists():
                continue
            df = read_verdicts(folder)
            occurrence = df.groupby(df["claim"].map(claim_key)).cumcount()
            for (_, row), again in zip(df.iterrows(), occurrence):
                chosen.setdefault((claim_key(row["claim"]), again), {**row.to_dict(), "paper": paper,
                                                                      "profile": profile, "folder": folder})
        rows += chosen.values()
    columns = ["number", "paper", "profile", "folder", "claim", "published", "measured", "verdict", "basis",
               "outcome", "category", "gpu", "figure", "published_value", "measured_value", "unit", "bound"]
    for number, row in enumerate(rows, 1):
        both = plotted(row["published"], row["measured"])
        pub, mine = both if isinstance(both, tuple) else (None, None)
        row.update(number=number, category=category(row["outcome"]), gpu=gpus(row["folder"], row["records"], cache),
                   figure="plotted" if pub else both, published_value=pub.value if pub else math.nan,
                   measured_value=mine.value if mine else math.nan, unit=pub.unit if pub else "",
                   bound=bool(pub and pub.bound))
    return pd.DataFrame(rows, columns=columns)


def counts(rows: pd.DataFrame) -> dict[str, int]:
    """How many claims held, did not, were inconclusive, or other."""
    found = Counter(rows["category"])
    return {c: found[c] for c in CATEGORIES}


def other_outcomes(rows: pd.DataFrame) -> dict[str, int]:
    """The outcomes counted as other, by name."""
    return dict(Counter(rows.loc[rows["category"] == OTHER, "outcome"]))


def points(rows: pd.DataFrame) -> pd.DataFrame:
    """The plotted claims."""
    return rows[rows["figure"] == "plotted"]


def gpu_papers(rows: pd.DataFrame) -> dict[str, list[str]]:
    """Per GPU, the papers whose plotted numbers came from it."""
    out = {}
    for gpu, paper in zip(rows["gpu"], rows["paper"]):
        out.setdefault(gpu or "device not recorded", [])
        if paper not in out[gpu or "device not recorded"]:
            out[gpu or "device not recorded"].append(paper)
    return out


def figure(rows: pd.DataFrame):
    """Measured against published per plotted claim, one panel per unit, coloured by verdict;
    points labelled with their row number in the table; open markers: the published number is a bound."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    shown = points(rows)
    units = [u for u in UNIT_NAMES if u in set(shown["unit"])]
    fig = Figure(figsize=(4.6 * max(len(units), 1), 5.0))
    axes = fig.subplots(1, max(len(units), 1), squeeze=False)[0]
    for ax, unit in zip(axes, units):
        mine = shown[shown["unit"] == unit]
        for (cat, bound), group in mine.groupby(["category", "bound"]):
            color = COLORS[cat]
            ax.scatter(group["published_value"], group["measured_value"], s=42, zorder=3, edgecolors=color,
                       facecolors="none" if bound else color, linewidths=1.4)
        for (x, y), group in mine.groupby(["published_value", "measured_value"]):
            ax.annotate(",".join(str(n) for n in group["number"]), (x, y), xytext=(4, 3),
                        textcoords="offset points", fontsize=7)
        low = min(mine["published_value"].min(), mine["measured_value"].min())
        high = max(mine["published_value"].max(), mine["measured_value"].max())
        if unit in LOG_UNITS:
            ax.set_xscale("log")
            ax.set_yscale("log")
            low, high = low / 3, high * 3
        else:
            pad = 0.1 * (high - low or abs(high) or 1.0)
            low, high = low - pad, high + pad
        ax.plot([low, high], [low, high], ls="--", color="0.5", lw=1, zorder=1)
        ax.set_xlim(low, high)
        ax.set_ylim(low, high)
        ax.set_xlabel(f"published: {UNIT_NAMES[unit]}")
        ax.set_ylabel(f"measured: {UNIT_NAMES[unit]}")
        ax.set_title(f"{UNIT_NAMES[unit]}{', log-log' if unit in LOG_UNITS else ''}: {len(mine)} claims",
                     fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    if not units:
        axes[0].set_axis_off()
    handles = [Line2D([], [], ls="", marker="o", color=COLORS[c], label=c) for c in CATEGORIES]
    handles += [Line2D([], [], ls="", marker="o", mfc="none", color="k", label="published is a bound (>=, <=)"),
                Line2D([], [], ls="--", color="0.5", label="measured = published")]
    fig.legend(handles=handles, loc="upper center", ncol=len(handles), fontsize=8, bbox_to_anchor=(0.5, 0.02))
    on = "; ".join(f"{gpu} ({', '.join(papers)})" for gpu, papers in gpu_papers(shown).items())
    fig.suptitle(f"Claims at a glance: measured against published, {len(shown)} of {len(rows)} claims\n"
                 f"measured on {on or 'no GPU'}", fontsize=10)
    fig.tight_layout()
    return fig


def write_figure(rows: pd.DataFrame, results) -> Path | None:
    """Write ``fig_claims_at_a_glance.png`` (and .svg) beside the gallery; remove a stale one
    when no claim is plotted."""
    if points(rows).empty:
        for ext in ("png", "svg"):
            (Path(results) / f"fig_{FIGURE}.{ext}").unlink(missing_ok=True)
        return None
    return savefig(figure(rows), results, FIGURE)
