"""Audit of committed results (issue 28): each check returns its problems, [] when sound.

- :func:`verdict_problems`: every verdict's record ids exist in its folder's records, its
  basis is the weakest of theirs, its line is the one that basis gives, and re-deriving it
  from the driver's EVIDENCE gives the same basis and ids;
- :func:`figure_problems`: every verdict's measured figure and outcome, recomputed by its
  paper's claim rules from the records it cites alone, are the committed ones (issue 47);
- :func:`published_problems`: every range or extreme a paper notebook's verdict quotes is the
  true min/max of the transcription cells its driver's ``QUOTED`` names for it (or of their
  ratios), every other number it quotes as published is a cell of the transcription table
  (as shown, rounded), and the values the drivers derive from that table (their
  ``verdict_corrections``) are the ones the verdicts show;
- :func:`readme_problems`: every README sentence that states a run time or a result names a
  committed file (a link or a backticked path) that shows it; a time in minutes or seconds
  must match the ``seconds`` of the ``run.json`` it names.
"""
from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pandas as pd

from . import provenance, quoted, report, verdicts

PAPERS = ("bodra", "liu", "okuyama", "pandey", "takafuji")


def read_verdicts(folder) -> pd.DataFrame:
    path = Path(folder) / "verdicts.csv"
    return pd.read_csv(path, keep_default_na=False) if path.exists() else pd.DataFrame()


def evidence_of(stem: str):
    try:
        return importlib.import_module(f"apsp_kernels.experiments.{stem}").EVIDENCE
    except (ImportError, AttributeError):
        return None


def verdict_problems(folder) -> list[str]:
    folder = Path(folder)
    df = read_verdicts(folder)
    if df.empty:
        return []
    frame = verdicts.load_records(folder)
    repeated = sorted(set(frame["id"][frame["id"].duplicated()]))
    out = [f"{folder}: record id {i} names more than one record" for i in repeated[:3]]
    by_id = {i: r for i, r in zip(frame["id"], frame.to_dict("records"))}
    evidence = evidence_of(folder.name)
    for row in df.to_dict("records"):
        where = f"{folder}/verdicts.csv: {row['claim'][:60]!r}"
        claim_evidence = verdicts.find(evidence, row["claim"]) if evidence is not None else None
        correctness = claim_evidence is not None and claim_evidence.correctness
        of = provenance.check_basis if correctness else provenance.record_basis
        basis_of = dict(zip(frame["id"], frame["check_basis" if correctness else "basis"]))
        for column in ("basis", "records", "outcome"):
            if column not in row:
                return [f"{folder}/verdicts.csv has no {column} column"]
        ids = row["records"].split()
        missing = [i for i in ids if i not in basis_of]
        if missing:
            out.append(f"{where}: record ids not in its records: {', '.join(missing[:3])}")
            continue
        if row["basis"] not in provenance.BASES + provenance.NO_DATA:
            out.append(f"{where}: basis {row['basis']!r} is not in the vocabulary")
            continue
        if ids:
            weakest = provenance.weakest(basis_of[i] for i in ids)
            if weakest != row["basis"]:
                out.append(f"{where}: basis {row['basis']!r}, its records' weakest is {weakest!r}")
            _, place = provenance.basis_of([by_id[i] for i in ids], of=of)
        else:
            place = ""
        line = provenance.wording(verdicts.held(row["outcome"]), row["basis"], place)
        if row["basis"] in provenance.NO_DATA:
            line = row["verdict"] if row["verdict"].startswith(row["basis"]) else line
        if row["verdict"] != line:
            out.append(f"{where}: verdict {row['verdict']!r}, its basis gives {line!r}")
        if evidence is not None:
            basis, _, again = verdicts.resolve(claim_evidence, frame, row["outcome"])
            if (basis, again) != (row["basis"], ids):
                out.append(f"{where}: EVIDENCE gives basis {basis!r} on {len(again)} records, "
                           f"the file says {row['basis']!r} on {len(ids)}")
    return out


NO_FIGURE = ("not tested",) + provenance.NO_DATA  # outcomes with no measured figure to recompute


def claims_module(stem: str):
    """A paper's claims module (its ``rederive``), or None for a notebook without one."""
    try:
        module = importlib.import_module(f"apsp_kernels.experiments.{stem}_claims")
    except ImportError:
        return None
    return module if hasattr(module, "rederive") else None


def figure_problems(folder) -> list[str]:
    """Every verdict's measured figure and outcome, recomputed by its claims module's rules from
    the records it cites and nothing else, are the committed ones; a verdict that rests on
    records cites some, every one of them known. Excepted: verdicts with no figure (not tested,
    not run), those on a fixed basis (no record) and the module's ``NOT_FROM_RECORDS`` (figures
    from untimed checks)."""
    folder = Path(folder)
    df, module = read_verdicts(folder), claims_module(folder.name)
    if df.empty or module is None:
        return []
    from .records import from_csv
    records = [r for p in sorted(folder.glob("records_*.csv")) for r in from_csv(p)]
    by_id = {provenance.record_id(r): r for r in records}
    profile = report.read_run(folder).get("profile") or "default"
    evidence, out = evidence_of(folder.name) or [], []
    for row in df.to_dict("records"):
        where = f"{folder}/verdicts.csv: {row['claim'][:60]!r}"
        claim_evidence = verdicts.find(evidence, row["claim"])
        fixed = claim_evidence is not None and claim_evidence.basis is not None
        if row["outcome"] in NO_FIGURE or fixed or row["claim"].startswith(getattr(module, "NOT_FROM_RECORDS", ())):
            continue
        ids = row["records"].split()
        unknown = [i for i in ids if i not in by_id]
        if not ids or unknown:
            out.append(f"{where}: cites {'no record' if not ids else 'unknown records ' + ', '.join(unknown[:3])}")
            continue
        again = {v["claim"]: v for v in module.rederive([by_id[i] for i in ids], profile)}.get(row["claim"])
        if again is None:
            out.append(f"{where}: its figure cannot be recomputed from the {len(ids)} records it cites")
            continue
        outcome = provenance.wording(again["holds"], "measured")
        if (str(again["measured"]), outcome) != (row["measured"], row["outcome"]):
            out.append(f"{where}: its cited records give {again['measured']!r} ({outcome}); "
                       f"the file says {row['measured']!r} ({row['outcome']})")
    return out


def repeat_spreads(results="results") -> pd.Series:
    """The relative spread (median - min) / median of every committed timed record with repeats."""
    frames = [pd.read_csv(p, usecols=lambda c: c in ("time_ms_median", "time_ms_min", "repeats"))
              for p in Path(results).glob("**/records_*.csv")]
    df = pd.concat(frames, ignore_index=True)
    df = df[(df["repeats"] > 1) & (df["time_ms_median"] > 0)]
    return ((df["time_ms_median"] - df["time_ms_min"]) / df["time_ms_median"]).clip(lower=0)


def paper_numbers(paper: str) -> list[float]:
    cells = report.transcriptions()
    cells = cells[(cells["paper"] == paper) & (cells["column"] != "#caption")]
    return sorted({n for v in cells["value"] for n in quoted.numbers(v)})


def published_problems(folder) -> list[str]:
    folder = Path(folder)
    stem = folder.name
    df = read_verdicts(folder)
    if df.empty or stem not in PAPERS:
        return []
    cells = paper_numbers(stem)
    module = importlib.import_module(f"apsp_kernels.experiments.{stem}")
    specs = getattr(module, "QUOTED", [])
    out = []
    for row in df.to_dict("records"):
        where = f"{folder}/verdicts.csv: {row['claim'][:60]!r}"
        mine = quoted.find(specs, row["claim"])
        for spec in mine:
            out += [f"{where}: {p}" for p in spec.problems(row["published"])]
        if re.search(r"project|issue", row["claim"] + row["published"], re.I):
            continue  # the project's own goals, not the paper's numbers
        if any(spec.per is not None for spec in mine):
            continue  # ratios of cells, checked above
        for value in quoted.numbers(row["published"]):
            if not any(quoted.rounds_to(cell, value) for cell in cells):
                out.append(f"{where} quotes {value:g} as published; "
                           f"no {stem} cell of {report.TRANSCRIPTIONS.name} shows it")
    corrections = getattr(module, "verdict_corrections", lambda f: {})(folder)
    for (_, prefix), fields in corrections.items():
        rows = df[df["claim"].str.startswith(prefix) | (df["claim"] == fields.get("claim", ""))]
        for column, value in fields.items():
            if column != "claim" and (rows[column] != value).any():
                out.append(f"{folder}/verdicts.csv: {prefix!r} {column} reads "
                           f"{rows[column].iloc[0]!r}; the transcription table gives {value!r}")
    return out


# ------------------------------------------------------------------ README sentences
TIME = re.compile(r"(\d+(?:\.\d+)?)\s*(seconds|second|s|minutes|minute|min|hours|h)\b")
RESULT = re.compile(r"\b(does not hold|\d+(?:\.\d+)?x)\b")
PATH = re.compile(r"\]\(([^)\s]+)\)|`((?:results|data)/[^`\s]+)`")


def sentences(text: str) -> list[str]:
    """Prose sentences of a markdown file (code blocks and tables left out)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    out = []
    for paragraph in re.split(r"\n\s*\n", text):
        prose = " ".join(line for line in paragraph.splitlines() if not line.lstrip().startswith("|"))
        out += [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`*(\[])", prose) if s.strip()]
    return out


def table_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith("|")]


def readme_problems(readme, root=None) -> list[str]:
    readme = Path(readme)
    root = Path(root) if root else readme.parent
    text = readme.read_text()
    out = []
    for sentence in sentences(text) + table_rows(text):
        times, results = TIME.findall(sentence), RESULT.findall(sentence)
        if not times and not results:
            continue
        paths = [a or b for a, b in PATH.findall(sentence)]
        files = [(readme.parent / p) if not p.startswith(("results/", "data/")) else root / p for p in paths
                 if not p.startswith(("http", "#"))]
        files = [f for f in files if f.exists()]
        short = sentence[:90] + ("..." if len(sentence) > 90 else "")
        if not files:
            out.append(f"{readme}: {short!r} states a {'run time' if times else 'result'} and names no committed file")
            continue
        runs = [json.loads(f.read_text()) for f in files if f.name == "run.json"]
        for value, unit in times:
            seconds = float(value) * {"h": 3600, "hours": 3600, "minutes": 60, "minute": 60, "min": 60}.get(unit, 1)
            if runs and not any(abs(r.get("seconds", -1e9) - seconds) <= max(30.0, 0.15 * seconds) for r in runs):
                out.append(f"{readme}: {short!r} says {value} {unit}; its run.json says "
                           f"{', '.join(str(r.get('seconds')) for r in runs)} s")
    return out


def gallery_problems(results) -> list[str]:
    """results/README.md is the gallery of the committed files, as rendered from them now."""
    from . import gallery
    path = Path(results) / "README.md"
    if not path.exists() or path.read_text() != gallery.render(Path(results)):
        return [f"{path} is not the gallery of the committed files: run python -m apsp_kernels.gallery"]
    return []


def verdict_files(results) -> list[Path]:
    """Every ``verdicts.csv`` of finished runs under ``results``: not those of the runner's
    unfinished ones (``.running/``, never committed; the notebook writes bases at its end)."""
    results = Path(results)
    return sorted(p for p in results.glob("**/verdicts.csv")
                  if not any(part.startswith(".") for part in p.relative_to(results).parts))


def problems(results="results", readme="README.md") -> list[str]:
    results = Path(results)
    out = []
    for folder in (p.parent for p in verdict_files(results)):
        out += verdict_problems(folder) + published_problems(folder) + figure_problems(folder)
    return out + readme_problems(results.parent / readme, results.parent) + gallery_problems(results)
