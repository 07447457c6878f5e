"""The results gallery: ``results/README.md``, regenerated from ``results/<notebook>/``.

    python -m apsp_kernels.gallery [results]

Per notebook: its title and run info (``run.json``: profile, device, the GPU that ran it),
the verdicts (``verdicts.csv``), every ``table_<name>.csv`` with its caption
``table_<name>.md``, every ``fig_<name>.png``, links to the executed notebook and the
``records_*.csv`` files, and counts of verified / unverified / skipped / extrapolated /
stand-in rows; a run that failed after them (``results/<notebook>.failed/``) is named with its
error and partial notebook. The ``paper`` profile's results (``results/paper/<notebook>/``) stand beside
the default ones, and a table puts each extrapolated default time next to the paper
profile's time measured in full for the same experiment, method, graph and n.

It opens with the claims at a glance (:mod:`apsp_kernels.claims_glance`): one row per claim of
every paper, linked to its verdicts further down, their outcomes counted, and the figure of
measured against published (``fig_claims_at_a_glance.png``, written beside the gallery).
"""
from __future__ import annotations

import math
import re
import sys
import unicodedata
from pathlib import Path
from urllib.parse import quote

import pandas as pd

from . import claims_glance, registry
from .records import write_atomic
from .report import read_run

MAX_TABLE_ROWS = 60
# the verdict beside its basis (the record ids it rests on stay in verdicts.csv)
GALLERY_VERDICT_COLUMNS = ["claim", "published", "measured", "verdict", "basis", "note"]
COUNTS = ("verified", "unverified", "skipped", "extrapolated", "stand-in")
RESULT_FILES = ("run.json", "verdicts.csv", "*.ipynb", "table_*.csv", "fig_*.png", "records_*.csv")
# Profiles whose results live in a sub-folder of results/ (the others write results/<notebook>/).
PROFILE_FOLDERS = {"paper": "paper"}
FAILED = ".failed"
SHOWN_PROFILES = ("default", "paper")
MATCH_KEYS = ("paper", "experiment", "method", "graph", "n", "timing_scope")
GLANCE_CELL = 80  # characters of a published / measured text the claims table shows


ORDER = ("okuyama", "bodra", "takafuji", "pandey", "liu", "cross_paper", "method_map", "library", "centrality", "scale")


def profile_dir(results, profile: str) -> Path:
    """Where ``profile`` puts its notebook folders: ``results/paper/`` for paper, else ``results/``."""
    sub = PROFILE_FOLDERS.get(profile)
    return Path(results) / sub if sub else Path(results)


def failed_dir(folder: Path) -> Path:
    """``results/<notebook>.failed/``: the last run of the notebook when it did not run through."""
    return folder.with_name(folder.name + FAILED)


def notebook_stem(folder: Path) -> str:
    return folder.name.removesuffix(FAILED)


def notebook_dirs(results: Path) -> list[Path]:
    """Per notebook the folder that holds its output, ``results/<notebook>/`` (or, when no run of it
    went through, ``<notebook>.failed/``): the papers, then the cross-paper and library notebooks,
    then any other in name order."""
    if not results.is_dir():
        return []
    found = [d for d in results.iterdir()
             if d.is_dir() and not d.name.startswith((".", "_")) and d.name not in PROFILE_FOLDERS.values()
             and any(next(d.glob(pattern), None) for pattern in RESULT_FILES)]
    names = {d.name for d in found}
    found = [d for d in found if not (d.name.endswith(FAILED) and notebook_stem(d) in names)]
    return sorted(found, key=lambda d: notebook_rank(notebook_stem(d)))


def notebook_rank(stem: str) -> tuple:
    return (ORDER.index(stem) if stem in ORDER else len(ORDER), stem)


def _cell(value) -> str:
    text = " ".join(str(value).split()).replace("|", "\\|")
    try:
        number = float(text)
    except ValueError:
        return text
    if len(text) <= 8 or not math.isfinite(number) or number.is_integer():
        return text
    return f"{number:.4g}" if abs(number) < 1e5 else f"{number:.0f}"


def _numeric(column: pd.Series) -> bool:
    values = [v for v in column if v != ""]
    return bool(values) and pd.to_numeric(pd.Series(values), errors="coerce").notna().all()


def markdown_table(df: pd.DataFrame, max_rows: int = MAX_TABLE_ROWS) -> str:
    """A markdown table of ``df`` (read as strings), numbers right-aligned and shortened."""
    if df.columns.empty:
        return "(empty table)"
    df = df.astype(str)
    head = "| " + " | ".join(_cell(c) for c in df.columns) + " |"
    rule = "|" + "|".join("---:" if _numeric(df[c]) else "---" for c in df.columns) + "|"
    rows = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in df.head(max_rows).itertuples(index=False)]
    more = [f"\n... and {len(df) - max_rows} more rows in the CSV."] if len(df) > max_rows else []
    return "\n".join([head, rule, *rows, *more])


def read_table(path: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()


def _flag(df: pd.DataFrame, column: str) -> pd.Series:
    if column not in df:
        return pd.Series(False, index=df.index)
    return df[column].str.strip().str.lower().isin({"true", "1", "yes"})


def record_counts(paths) -> dict:
    """Row counts over ``records_*.csv``: verified, unverified (timed, not verified), skipped, ..."""
    counts = dict.fromkeys(COUNTS, 0)
    for path in paths:
        df = read_table(path)
        skipped = df["skipped"].str.strip() != "" if "skipped" in df else _flag(df, "skipped")
        verified = _flag(df, "verified") & ~skipped
        counts["verified"] += int(verified.sum())
        counts["unverified"] += int((~verified & ~skipped).sum())
        counts["skipped"] += int(skipped.sum())
        counts["extrapolated"] += int(_flag(df, "extrapolated").sum())
        counts["stand-in"] += int(_flag(df, "stand_in").sum())
    return counts


def link(folder: Path, name: str, root: Path) -> str:
    """``folder/name`` relative to the gallery in ``root``, URL-quoted."""
    return "/".join(quote(part) for part in (*folder.relative_to(root).parts, name))


def gpu_text(run: dict) -> str:
    gpu = run.get("gpu") or {}
    if not gpu.get("index"):
        return ""
    return f"GPU {gpu['index']}" + (f" ({gpu['uuid']})" if gpu.get("uuid") else "")


def run_line(run: dict) -> str:
    started = str(run.get("started", ""))
    parts = [f"status **{'ok' if run.get('status') == 'ok' else str(run.get('status', 'unknown')).upper()}**",
             f"profile `{run.get('profile', '?')}`", f"device {run.get('device', '?')}"]
    if gpu_text(run):
        parts.append(gpu_text(run))
    if started:
        parts.append(started[:16].replace("T", " ") + " UTC")
    if "seconds" in run:
        parts.append(f"{float(run['seconds']):.0f} s")
    for note in ("side_by_side", "spread"):  # the runner's, and a notebook's own over the host's GPUs
        if run.get(note):
            parts.append(run[note])
    return " · ".join(parts)


def later_failed_run(folder: Path) -> Path | None:
    """The folder of a run that failed after the one whose results ``folder`` holds, if any."""
    failed = failed_dir(folder)
    return failed if not folder.name.endswith(FAILED) and failed.is_dir() else None


def later_failure(folder: Path, root: Path) -> list[str]:
    """Lines on a run that failed after the one whose results ``folder`` holds, if any."""
    failed = later_failed_run(folder)
    if failed is None:
        return []
    run = read_run(failed)
    partial = [f"[{p.name}]({link(failed, p.name, root)})" for p in sorted(failed.glob("*.ipynb"))]
    return ["", f"**A later run failed** ({run_line(run) if run else 'no run.json'}): "
                f"{run.get('error') or 'see its notebook'}. Shown below: the last run that went through; "
                f"the failed run's partial output: {', '.join(partial) or f'`{failed.name}/`'}."]


def beside_runs(folder: Path) -> list[tuple[Path, str]]:
    """(subfolder, its README's first heading) for each subfolder of a notebook's results that
    holds a README.md: a run of the notebook's experiments outside it (a driver's device run)."""
    runs = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and (p / "README.md").is_file()):
        first = next((line for line in (sub / "README.md").read_text().splitlines() if line.strip()), "")
        runs.append((sub, first.lstrip("#").strip() or sub.name))
    return runs


def profile_block(folder: Path, root: Path, level: str) -> list[str]:
    """One profile's results of a notebook: run line, error, links, verdicts, tables, figures."""
    run = read_run(folder)
    stem = notebook_stem(folder)
    out = [run_line(run) if run else "no run.json"]
    if run.get("status") not in (None, "ok"):
        out += ["", f"**Error:** {run.get('error') or 'see the notebook'}"]
    out += later_failure(folder, root)
    if run.get("resumed"):
        kept = run["resumed"]
        reused = ", ".join(f"{name} (measured {at})" for name, at in kept.get("experiments", {}).items())
        out += ["", f"**Resumed** (`reproduce --resume`): measured by an unfinished run of the same profile "
                    f"and commit ({kept.get('commit', '?')}) and reused, not measured again: {reused}."]
    if run.get("rechecked"):
        again = run["rechecked"]
        out += ["", f"**Re-checked after the run** ({str(again.get('at', ''))[:16].replace('T', ' ')} UTC): "
                    f"{again.get('records_marked_unverified', 0)} records marked unverified: {again.get('why', '')}"]
    if run.get("rechecked_provenance"):
        again = run["rechecked_provenance"]
        fixed = ", ".join(again.get("published_corrected", [])) or "none"
        out += ["", f"**Verdicts re-derived** ({str(again.get('at', ''))[:16].replace('T', ' ')} UTC): "
                    f"{again.get('why', '')}; published values corrected: {fixed}; records marked "
                    f"stand-in: {again.get('records_marked_stand_in', 0)}."]

    links = [f"[{p.name}]({link(folder, p.name, root)})" for p in
             [folder / f"{stem}.ipynb", folder / f"{stem}.failed.ipynb"] if p.exists()]
    records = sorted(folder.glob("records_*.csv"))
    out += ["", "Notebook: " + (", ".join(links) or "not executed")]
    if records:
        out.append("Records: " + ", ".join(f"[{p.name}]({link(folder, p.name, root)})" for p in records))
        counts = record_counts(records)
        out.append("Rows: " + ", ".join(f"{v} {k}" for k, v in counts.items()))

    runs = beside_runs(folder)
    if runs:
        out += ["", f"{level} Runs beside the notebook", "",
                "Device runs of its experiments outside the notebook, each folder's README saying how it ran:", ""]
        out += [f"- [{run.name}]({link(run, 'README.md', root)}): {title}" for run, title in runs]

    verdicts = folder / "verdicts.csv"
    if verdicts.exists():
        df = read_table(verdicts)
        out += ["", f"{level} Verdicts", "", markdown_table(df[[c for c in GALLERY_VERDICT_COLUMNS if c in df]])]
    for table in sorted(folder.glob("table_*.csv")):
        name = table.stem.removeprefix("table_")
        caption = table.with_suffix(".md")
        out += ["", f"{level} Table: {name}", ""]
        if caption.exists() and caption.read_text().strip():
            out += [caption.read_text().strip(), ""]
        out += [markdown_table(read_table(table)), "", f"[{table.name}]({link(folder, table.name, root)})"]
    figures = sorted(folder.glob("fig_*.png"))
    if figures:
        out += ["", f"{level} Figures"]
        for fig in figures:
            out += ["", f"![{fig.stem.removeprefix('fig_')}]({link(folder, fig.name, root)})"]
    return out


def section(stem: str, folders: dict[str, Path], root: Path, not_run=()) -> str:
    """A notebook's section: each profile that ran it (under its own heading when there are two)."""
    runs = {profile: read_run(folder) for profile, folder in folders.items()}
    title = next((r["title"] for r in runs.values() if r.get("title")), stem)
    missing = [line for profile in not_run
               for line in ("", f"The `{profile}` profile has not run this notebook.")]
    if len(folders) == 1:
        (folder,) = folders.values()
        block = profile_block(folder, root, "###")
        return "\n".join([f"## {title}", "", f"`{stem}` · {block[0]}", *missing, *block[1:]])
    out = [f"## {title}", "", f"`{stem}`"]
    for profile, folder in folders.items():
        out += ["", f"### Profile `{runs[profile].get('profile') or profile}`", "",
                *profile_block(folder, root, "####")]
    return "\n".join(out)


def safe_section(stem: str, folders: dict[str, Path], root: Path, not_run=()) -> str:
    """A notebook's section; one unreadable file must not take the whole gallery down."""
    try:
        return section(stem, folders, root, not_run)
    except Exception as exc:
        return f"## {stem}\n\nThis section could not be rendered: {type(exc).__name__}: {exc}"


def overview(found: dict[str, dict[str, Path]]) -> str:
    rows = []
    for profile, folders in found.items():
        for folder in folders.values():
            run = read_run(folder)
            counts = record_counts(sorted(folder.glob("records_*.csv")))
            status = run.get("status", "?") + (", a later run failed" if later_failed_run(folder) else "")
            rows.append({"notebook": notebook_stem(folder), "status": status,
                         "profile": run.get("profile", profile), "device": run.get("device", "?"),
                         "gpu": (run.get("gpu") or {}).get("index", ""), **counts})
    df = pd.DataFrame(rows)
    return markdown_table(df if (df["gpu"] != "").any() else df.drop(columns="gpu"), max_rows=len(rows))


def timed_records(folders) -> pd.DataFrame:
    """The timed (not skipped) rows of every ``records_*.csv`` in ``folders``, with their notebook."""
    frames = []
    for folder in folders:
        for path in sorted(folder.glob("records_*.csv")):
            df = read_table(path)
            if {*MATCH_KEYS, "time_ms_median", "extrapolation", "skipped"} <= set(df.columns):
                frames.append(df.assign(notebook=notebook_stem(folder)))
    if not frames:
        return pd.DataFrame(columns=[*MATCH_KEYS, "notebook", "time_s", "extrapolation", "extrapolated"])
    df = pd.concat(frames, ignore_index=True)
    df["time_s"] = pd.to_numeric(df["time_ms_median"], errors="coerce") / 1e3
    df["graph"] = df["graph"].map(lambda g: re.sub(r"\s*\([^()]*\)$", "", g))  # "g (not built)" is g
    return df[(df["skipped"].str.strip() == "") & df["time_s"].notna()]


def extrapolated_vs_full(default_folders, paper_folders) -> pd.DataFrame:
    """Each extrapolated default time beside the paper profile's time measured in full."""
    default, paper = timed_records(default_folders), timed_records(paper_folders)
    estimated = default[default["extrapolation"].str.strip() != ""]
    full = paper[(paper["extrapolation"].str.strip() == "") & ~_flag(paper, "extrapolated")]
    full = full.drop_duplicates(list(MATCH_KEYS), keep="last")
    both = estimated.merge(full[[*MATCH_KEYS, "time_s"]], on=list(MATCH_KEYS), suffixes=("_est", "_full"))
    return pd.DataFrame({
        "notebook": both["notebook"], "experiment": both["experiment"], "method": both["method"],
        "graph": both["graph"], "n": both["n"],
        "default, extrapolated (s)": both["time_s_est"].map(lambda v: f"{v:.4g}"),
        "paper, in full (s)": both["time_s_full"].map(lambda v: f"{v:.4g}"),
        "extrapolated / full": (both["time_s_est"] / both["time_s_full"]).map(lambda v: f"{v:.3g}"),
        "how it was extrapolated": both["extrapolation"]})


def comparison(found: dict[str, dict[str, Path]]) -> str:
    if "paper" not in found:
        return ("The `paper` profile (the papers' full sizes, nothing extrapolated) has not run: "
                "`make reproduce PROFILE=paper` writes it to `paper/<notebook>/` beside these results.")
    if "default" not in found:
        return "The `default` profile has not run: `make reproduce` writes it to `<notebook>/`."
    df = extrapolated_vs_full(found["default"].values(), found["paper"].values())
    head = "## Extrapolated default times against the paper profile measured in full"
    if df.empty:
        return (f"{head}\n\nNo extrapolated `default` record has a `paper` record measured in full "
                f"for the same {', '.join(MATCH_KEYS)}.")
    return (f"{head}\n\nMatched on {', '.join(MATCH_KEYS)}; a ratio above 1 means the extrapolation "
            f"overestimated.\n\n{markdown_table(df, max_rows=len(df))}")


def found_folders(results: Path) -> dict[str, dict[str, Path]]:
    """Per shown profile that has run anything, its notebook folders by notebook name."""
    found = {profile: {notebook_stem(d): d for d in notebook_dirs(profile_dir(results, profile))}
             for profile in SHOWN_PROFILES}
    return {profile: folders for profile, folders in found.items() if folders}


def slug(heading: str, seen: dict) -> str:
    """The anchor GitHub gives a heading (as github-slugger does): its text lower-cased, every
    character but letters, digits, ``-``, ``_`` and spaces dropped, spaces made ``-``; a repeated
    one gets ``-1``, ``-2``, ... in order. ``seen`` holds the anchors of the headings above it."""
    text = heading.replace("`", "").replace("*", "").strip().lower()
    base = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LMN").replace(" ", "-")
    anchor = base
    while anchor in seen:
        seen[base] += 1
        anchor = f"{base}-{seen[base]}"
    seen[anchor] = 0
    return anchor


def headings(text: str) -> list[tuple[int, str]]:
    """``(level, text)`` of each heading (``#`` to ``######``) of a markdown text, outside code blocks."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        hit = None if fenced else re.match(r"(#{1,6})\s+(.*?)(?:\s+#+)?\s*$", line)
        if hit:
            out.append((len(hit.group(1)), hit.group(2)))
    return out


def section_anchors(preamble: str, sections) -> dict:
    """Anchors into the notebooks' sections, counting the headings of ``preamble`` above them:
    ``(notebook, profile)`` -> its Verdicts heading, ``(notebook, None)`` -> its section's title.
    ``sections``: ``(notebook, {profile: folder}, markdown)`` in the gallery's order."""
    seen, anchors = {}, {}
    for _, text in headings(preamble):
        slug(text, seen)
    for stem, folders, text in sections:
        profiles = list(folders)
        profile, blocks = (profiles[0] if len(profiles) == 1 else None), 0
        for level, heading in headings(text):
            anchor = slug(heading, seen)
            anchors.setdefault((stem, None), anchor)
            if len(profiles) > 1 and level == 3 and heading.startswith("Profile ") and blocks < len(profiles):
                profile, blocks = profiles[blocks], blocks + 1
            elif heading == "Verdicts" and profile is not None:
                anchors.setdefault((stem, profile), anchor)
    return anchors


def _shortened(text, limit: int = GLANCE_CELL) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def glance(rows: pd.DataFrame, anchors: dict, others=()) -> str:
    """The gallery's opening: the claims table, their outcomes counted, the figure and what it
    leaves out. ``others``: notebooks beside the papers whose verdicts are the project's goals."""
    out = ["## Claims at a glance", ""]
    if rows.empty:
        return "\n".join(out + [f"No paper notebook ({', '.join(registry.PAPERS)}) has written verdicts yet."])
    link = {key: f"[verdicts](#{anchor})" for key, anchor in anchors.items()}
    table = pd.DataFrame({
        "#": rows["number"], "paper": rows["paper"], "profile": rows["profile"], "claim": rows["claim"],
        "published": rows["published"].map(_shortened), "measured": rows["measured"].map(_shortened),
        "verdict": rows["verdict"], "basis": rows["basis"], "figure": rows["figure"],
        "section": [link.get((p, profile), "not rendered") for p, profile in zip(rows["paper"], rows["profile"])]})
    count = claims_glance.counts(rows)
    other = claims_glance.other_outcomes(rows)
    shown = claims_glance.points(rows)
    left = rows.loc[rows["figure"] != "plotted", "figure"].value_counts()
    on = "; ".join(f"{gpu} ({', '.join(papers)})" for gpu, papers in claims_glance.gpu_papers(shown).items())
    out += [f"One row per claim of each paper ({', '.join(registry.PAPERS)}): from the `paper` profile (the "
            f"papers' own sizes) where its verdicts have the claim, else from `default` (column *profile*); "
            f"*section* links to the claim's verdicts with their notes below. Published and measured texts "
            f"longer than {GLANCE_CELL} characters are cut (…).", "",
            markdown_table(table, max_rows=len(table)), "",
            f"**{len(rows)} claims: " + ", ".join(f"{n} {c}" for c, n in count.items()) + "**"
            + (f" (other: {', '.join(f'{n} {o}' for o, n in other.items())})" if other else "") + "."]
    if not shown.empty:
        out += ["", f"![claims at a glance](fig_{claims_glance.FIGURE}.png)", "",
                f"The figure plots {len(shown)} of the {len(rows)} claims: those whose published and measured "
                f"texts each show one number of the same unit (`apsp_kernels.claims_glance.headline`), "
                f"labelled by their row *#*; log-log for ratios, times and numbers without a unit. "
                f"Measured on {on}. Not plotted (column *figure*; several numbers: a range, a pair or a "
                f"trend): " + "; ".join(f"{n} {why}" for why, n in left.items()) + "."]
    if others:
        out += ["", "Verdicts on the project's own goals, not the papers' claims, stand in their sections: "
                + ", ".join(f"[{stem}](#{anchors[(stem, None)]})" for stem in others if (stem, None) in anchors)
                + "."]
    return "\n".join(out)


def render(results: Path) -> str:
    results = Path(results)
    head = ["# Results gallery", "",
            "Generated by `python -m apsp_kernels.gallery` (and after every `make reproduce`) from "
            "`results/<notebook>/` (and `results/paper/<notebook>/` for the paper profile); do not edit "
            "by hand. Published numbers stand beside measured ones; times marked extrapolated or "
            "measured on stand-in graphs are labelled in the tables.", ""]
    found = found_folders(results)
    if not found:
        return "\n".join(head + ["No notebook has run yet: run `make reproduce` (or `make smoke`)."]) + "\n"
    stems = sorted({stem for folders in found.values() for stem in folders}, key=notebook_rank)
    sections = []
    for stem in stems:
        folders = {profile: dirs[stem] for profile, dirs in found.items() if stem in dirs}
        sections.append((stem, folders, safe_section(stem, folders, results, [p for p in found if p not in folders])))
    runs = ["## Notebook runs\n\n" + overview(found), comparison(found)]
    rows = claims_glance.claim_rows(found)
    others = [stem for stem, folders, _ in sections if stem not in registry.PAPERS
              and any((folder / "verdicts.csv").exists() for folder in folders.values())]
    # the opening's own headings do not depend on the anchors it links to: place it, then count
    anchors = section_anchors("\n".join(head + [glance(rows, {}, others), *runs]), sections)
    body = [glance(rows, anchors, others), *runs, *(text for _, _, text in sections)]
    return "\n".join(head) + "\n" + "\n\n".join(body) + "\n"


def write(results="results") -> Path:
    """Regenerate ``<results>/README.md`` atomically, and the claims figure beside it; return its path."""
    results = Path(results)
    claims_glance.write_figure(claims_glance.claim_rows(found_folders(results)), results)
    text = render(results)
    return write_atomic(results / "README.md", lambda tmp: Path(tmp).write_text(text))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    print(write(argv[0] if argv else "results"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
