"""Re-check committed results after a check was added; nothing is measured again.

    python -m apsp_kernels.experiments.recheck [RESULTS]

A record whose time is not the time of the problem it names is marked unverified, with the
reason; the tables, figures and decision table derived from the records are written again from
the corrected records, and ``run.json`` says what was re-checked. Today's check: an all-pairs
run of a per-source solver that timed fewer sources than it planned, either by its own count
(stats ``sources``) or because the run named no sources and the solver then solves only its
default source (vertex 0), as the method map and the cross-paper sweep did before they named
every source.

Every results folder's verdicts are then re-derived from its records by the driver's
``EVIDENCE`` (:func:`apsp_kernels.verdicts.annotate`): each gets its basis, the ids of the
records it rests on and a verdict line that says when those rows are not all measured; the
published values that were mistyped are taken again from the transcription table
(:data:`CORRECTIONS`), and the gallery is written again. No time is measured or changed.
"""
from __future__ import annotations

import datetime as dt
import importlib
import json
import math
import sys
from pathlib import Path

from .. import gallery, registry, report, verdicts
from ..records import from_csv, solved_fewer_sources, to_frame, write_csv
from . import cross_paper as xp, method_map as mm, okuyama


def wrong_problem(rec) -> str:
    """Why ``rec``'s time is not its problem's, or ''."""
    why = solved_fewer_sources(rec.stats)
    if why or rec.experiment != "apsp" or rec.extrapolated or not math.isfinite(rec.time_ms_median):
        return why
    info = json.loads(rec.stats or "{}").get("map", {})
    if info.get("timed_sources") != rec.n or info.get("sources_named", False):
        return ""
    if not registry.get(rec.paper, rec.method).vertex_0_by_default:
        return ""
    return (f"the run named no sources and {rec.paper}:{rec.method} then solves 1 source "
            f"(vertex 0), not all {rec.n}")


def correct(records) -> int:
    """Mark the records whose time is not their problem's unverified; how many changed."""
    changed = 0
    for rec in records:
        why = wrong_problem(rec)
        if why and rec.verified:
            rec.verified = False
            rec.verify_scope = f"not a result: {why} (found when re-checked after the run)"
            changed += 1
    return changed


def _device(records) -> str:
    return next((r.device for r in records if r.timing_scope != "cpu" and r.device), "")


def _note(folder: Path, changed: int) -> None:
    report.write_run_info(folder, rechecked={
        "at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "records_marked_unverified": changed,
        "why": "their time was not the time of the problem they name (see apsp_kernels.experiments.recheck); "
               "the derived tables and figures were written again from the corrected records, "
               "the executed notebook shows the run as it was"})


def method_map(folder, decision_table) -> int:
    """Re-check a method-map results folder and rewrite its analysis and auto's decision table."""
    folder = Path(folder)
    records = {p: from_csv(folder / f"records_{p}.csv") for p in mm.PROBLEMS
               if (folder / f"records_{p}.csv").exists()}
    changed = sum(correct(rs) for rs in records.values())
    if changed:
        for problem, rs in records.items():
            report.save_records(rs, folder, problem)
        every = [r for rs in records.values() for r in rs]
        mm.analyse(every, mm.peaks_from_table(folder / "table_peaks.csv"), folder, _device(every))
        from ..csgraph import auto
        auto.write_table(mm.decision_records(every), decision_table)
        _note(folder, changed)
    return changed


def cross_paper(folder) -> int:
    """Re-check a cross-paper results folder and rewrite its APSP table and figure."""
    folder = Path(folder)
    recs = from_csv(folder / "records_apsp.csv")
    changed = correct(recs)
    if changed:
        report.save_records(recs, folder, "apsp")
        xp.save_apsp(recs, folder, _device(recs))
        _note(folder, changed)
    return changed


def _okuyama_stand_ins(folder: Path) -> int:
    """okuyama's random and power-law graphs come from our generators, not the paper's DIMACS
    and R-MAT tools: stand-ins (the note said so, the records did not)."""
    changed = 0
    for path in sorted(folder.glob("records_*.csv")):
        recs = from_csv(path)
        marked = [r for r in recs if r.graph.startswith(okuyama.STAND_INS) and not r.stand_in]
        for r in marked:
            r.stand_in = True
        if marked:
            report.save_records(recs, folder, path.stem.removeprefix("records_"))
            changed += len(marked)
    return changed


def corrections(folder) -> dict:
    """Published values a committed verdict mistyped, by (notebook, claim prefix): the fields
    to write again, each from the transcription table."""
    from . import liu, pandey, takafuji
    return {k: v for module in (takafuji, pandey, liu, okuyama) for k, v in module.verdict_corrections(folder).items()}


def _correct_published(folder: Path, stem: str) -> list[str]:
    path = folder / "verdicts.csv"
    if not path.exists():
        return []
    import pandas as pd
    df = pd.read_csv(path, keep_default_na=False)
    fixed = []
    for (notebook, prefix), fields in corrections(folder).items():
        if notebook != stem:
            continue
        rows = df["claim"].str.startswith(prefix)
        for column, value in fields.items():
            if column in df and (df.loc[rows, column] != value).any():
                df.loc[rows, column] = value
                fixed.append(f"{prefix} ({column})")
    if fixed:
        from ..records import write_csv
        write_csv(df, path)
    return fixed


def rederive(folder: Path, stem: str) -> list[tuple[str, str, str]]:
    """Re-derive the verdicts of a paper's folder from its committed records by the claims
    module's current rules (:func:`apsp_kernels.verdicts.rederive_into`); the outcome changes."""
    try:
        claims = importlib.import_module(f"{__package__}.{stem}_claims")
    except ImportError:
        return []
    records = [r for p in sorted(folder.glob("records_*.csv")) for r in from_csv(p)]
    profile = report.read_run(folder).get("profile") or "default"
    return verdicts.rederive_into(folder, claims.rederive(records, profile))


UNCHECKED_PILOT = "table2_pilot"  # bodra's sizing pilot: distances not final, so never checked by the oracle


def _untime_unchecked(folder: Path) -> int:
    """bodra's Table 2 pilot stops every source after P extract-min steps: its distances are not
    final, so no oracle can check it and its time is no result. Its committed row keeps what it
    was, without a time; the bound it sized is the ``table2`` record that says so."""
    path = folder / "records_table2.csv"
    if not path.exists():
        return 0
    recs = from_csv(path)
    pilots = [r for r in recs if r.experiment == UNCHECKED_PILOT and math.isfinite(r.time_ms_median)]
    for r in pilots:
        r.time_ms_median = r.time_ms_min = math.nan
        r.skipped = ("untimed note: a pilot of the first extract-min steps sized the run; its distances are "
                     "not final, so no oracle checks it (time removed when re-checked after the run; the "
                     "table2 upper bound keeps it, scaled)")
    if pilots:  # written as it is, not through save_records: the code that measured them is unchanged
        write_csv(to_frame(recs), path)
    return len(pilots)


def provenance(folder) -> dict:
    """Re-derive a results folder's verdicts from its records (see the module docstring)."""
    folder = Path(folder)
    stem = gallery.notebook_stem(folder)
    try:
        evidence = importlib.import_module(f"{__package__}.{stem}").EVIDENCE
    except (ImportError, AttributeError):
        return {}
    stand_ins = _okuyama_stand_ins(folder) if stem == "okuyama" else 0
    untimed = _untime_unchecked(folder) if stem == "bodra" else 0
    changed = rederive(folder, stem)
    fixed = _correct_published(folder, stem)
    if stem == "okuyama" and (folder / "records_fig14.csv").exists():
        o14 = okuyama.fig14_overhead(from_csv(folder / "records_fig14.csv"))
        report.save_table(o14, folder, "fig14", title="Fig. 14: path-recording overhead (%) vs |V|",
                          note=okuyama.FIG14_NOTE.format(**okuyama.published_claim("path_overhead")))
    df = verdicts.annotate(folder, evidence)
    if df.empty and not stand_ins:
        return {}
    info = {"at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "verdicts": len(df), "records_marked_stand_in": stand_ins, "published_corrected": fixed,
            "records_untimed": untimed,
            "outcomes_changed": [f"{claim}: {old} -> {new}" for claim, old, new in changed],
            "why": "each verdict re-derived from the committed records (apsp_kernels.experiments.recheck): "
                   "its measured figure and outcome by the claims module's rules (noise bands, headlines "
                   "from measured rows), its basis, the ids of the records it rests on and a verdict line "
                   "qualified by the weakest of them; mistyped published values taken again from "
                   "the transcription table; nothing measured again"}
    report.write_run_info(folder, rechecked_provenance=info)
    return info


def main(argv=None) -> int:
    from ..csgraph import auto
    results = Path((argv if argv is not None else sys.argv[1:] or ["results"])[0])
    for name, check in (("method_map", lambda f: method_map(f, auto.TABLE)), ("cross_paper", cross_paper)):
        if (results / name).exists():
            print(f"{results / name}: {check(results / name)} records marked unverified")
    for folder in sorted(p.parent for p in results.glob("**/run.json")):
        info = provenance(folder)
        if info:
            print(f"{folder}: {info['verdicts']} verdicts re-derived, {info['records_marked_stand_in']} records "
                  f"marked stand-in, published corrected: {', '.join(info['published_corrected']) or 'none'}")
            for line in info["outcomes_changed"]:
                print(f"    outcome changed: {line}")
    gallery.write(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
