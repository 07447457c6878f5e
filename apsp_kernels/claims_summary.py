"""How many of each paper's claims held: the table in README.md's "The papers' claims".

    python -m apsp_kernels.claims_summary            # rewrite the table in README.md
    python -m apsp_kernels.claims_summary --check    # exit 1 when README.md's table is out of date

The counts come from the committed verdicts of the ``paper`` profile
(``results/paper/<paper>/verdicts.csv``: the papers' own sizes), or of the ``default`` profile
(``results/<paper>/verdicts.csv``) for a paper whose paper profile has not run. A verdict's
``outcome`` is ``holds``, ``does not hold`` or something else (``not tested``, and whatever other
outcome the verdict rules give); the table counts the first two and names the others.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from collections import Counter
from pathlib import Path

import pandas as pd

from .registry import PAPERS

HELD, NOT_HELD = "holds", "does not hold"
START = "<!-- claims-summary:start (python -m apsp_kernels.claims_summary writes this table) -->"
END = "<!-- claims-summary:end -->"
COMMAND = "python -m apsp_kernels.claims_summary"


def verdicts_file(results, paper: str) -> Path | None:
    """The verdicts a paper's row counts: the paper profile's, else the default profile's."""
    for folder in (Path(results) / "paper" / paper, Path(results) / paper):
        if (folder / "verdicts.csv").exists():
            return folder / "verdicts.csv"
    return None


def outcomes(path: Path) -> Counter:
    """Per outcome, how many claims of one ``verdicts.csv`` have it."""
    df = pd.read_csv(path, keep_default_na=False)
    if "outcome" not in df:
        raise ValueError(f"{path} has no 'outcome' column: rerun the notebook or "
                         "python -m apsp_kernels.experiments.recheck to write it")
    return Counter(str(value).strip() for value in df["outcome"])


def counts(results="results") -> pd.DataFrame:
    """One row per paper: claims, held, did not hold, other (with the other outcomes named), file."""
    rows = []
    for paper in PAPERS:
        path = verdicts_file(results, paper)
        if path is None:
            continue
        found = outcomes(path)
        others = {k: v for k, v in found.items() if k not in (HELD, NOT_HELD)}
        rows.append({"paper": paper, "claims": sum(found.values()), "held": found[HELD],
                     "did not hold": found[NOT_HELD], "other": sum(others.values()),
                     "other outcomes": ", ".join(f"{v} {k}" for k, v in sorted(others.items())),
                     "file": (Path(Path(results).name) / path.relative_to(results)).as_posix()})
    return pd.DataFrame(rows)


def title(paper: str) -> str:
    """The paper's title, as its registry entry (``apsp_kernels/papers/<paper>.py``) gives it."""
    return importlib.import_module(f"apsp_kernels.papers.{paper}").PAPER["title"]


def markdown(results="results") -> str:
    """The README's table, between its two markers."""
    lines = [START, "", "| paper | claims | held | did not hold | other | verdicts |", "|---|---:|---:|---:|---|---|"]
    for row in counts(results).to_dict("records"):
        lines.append(f"| {row['paper']}: *{title(row['paper'])}* | {row['claims']} | {row['held']} "
                     f"| {row['did not hold']} | {row['other outcomes'] or 0} | [verdicts.csv]({row['file']}) |")
    return "\n".join(lines + ["", END])


def replace_table(text: str, table: str, where: str = "README.md") -> str:
    """``text`` with the block between the markers replaced by ``table``."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{where} has no claims table between {START!r} and {END!r}: add the two "
                         f"markers where the table goes, then run {COMMAND}")
    return text[:start] + table + text[end + len(END):]


def problems(readme="README.md", results="results") -> list[str]:
    """[] when ``readme``'s table shows the committed verdicts, else what to run."""
    text = Path(readme).read_text()
    try:
        expected = replace_table(text, markdown(results), str(readme))
    except ValueError as error:
        return [str(error)]
    if expected != text:
        return [f"{readme}: the claims table disagrees with the committed verdicts.csv files; "
                f"regenerate it with `{COMMAND}`"]
    return []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report whether the table is up to date")
    parser.add_argument("--readme", default="README.md")
    parser.add_argument("--results", default="results")
    args = parser.parse_args(argv)
    if args.check:
        found = problems(args.readme, args.results)
        print("\n".join(found) or f"{args.readme}: the claims table is up to date")
        return 1 if found else 0
    readme = Path(args.readme)
    readme.write_text(replace_table(readme.read_text(), markdown(args.results), str(readme)))
    print(readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
