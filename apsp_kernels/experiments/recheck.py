"""Re-check committed results after a check was added; nothing is measured again.

    python -m apsp_kernels.experiments.recheck [RESULTS]

A record whose time is not the time of the problem it names is marked unverified, with the
reason; the tables, figures and decision table derived from the records are written again from
the corrected records, and ``run.json`` says what was re-checked. Today's check: an all-pairs
run of a per-source solver that timed fewer sources than it planned, either by its own count
(stats ``sources``) or because the run named no sources and the solver then solves only its
default source (vertex 0), as the method map and the cross-paper sweep did before they named
every source.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import sys
from pathlib import Path

from .. import registry, report
from ..records import from_csv, solved_fewer_sources
from . import cross_paper as xp, method_map as mm


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


def main(argv=None) -> int:
    from ..csgraph import auto
    results = Path((argv if argv is not None else sys.argv[1:] or ["results"])[0])
    for name, check in (("method_map", lambda f: method_map(f, auto.TABLE)), ("cross_paper", cross_paper)):
        if (results / name).exists():
            print(f"{results / name}: {check(results / name)} records marked unverified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
