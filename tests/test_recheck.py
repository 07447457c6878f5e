"""Re-checking committed records: a time that is not its problem's becomes unverified, and the
derived tables follow; nothing else in the records changes."""
import dataclasses
import json

import pandas as pd

from apsp_kernels import report
from apsp_kernels.experiments import recheck
from apsp_kernels.records import Record, from_csv, to_frame


def _rec(method, paper="fast", n=256, named=False, stats=None, **kw):
    info = {"map": {"timed_sources": n, "sources_named": named, "series": "4-regular"}, **(stats or {})}
    return Record(paper=paper, experiment="apsp", method=method, graph=f"4-regular-{n}", n=n, m=4 * n,
                  time_ms_median=0.1, time_ms_min=0.1, repeats=3, verified=True, stats=info,
                  device="Fake GPU", git_commit="abc", **kw)


def test_records_read_back_as_written(tmp_path):
    recs = [_rec("sssp_worklist", stats={"sources": 1}), _rec("rkleene", extrapolated=True, extrapolation="x 2")]
    recs.append(Record(paper="p", experiment="sssp", method="m", graph="g", n=3, m=2, skipped="why", device="CPU"))
    report.save_records(recs, tmp_path, "apsp")
    back = from_csv(tmp_path / "records_apsp.csv")
    pd.testing.assert_frame_equal(to_frame(back), to_frame(recs))  # NaN times compare equal here


def test_a_time_of_fewer_sources_than_named_is_flagged():
    assert "solved 1 of the 256" in recheck.wrong_problem(_rec("sssp_worklist", stats={"sources": 1}))
    # no sources named: a solver whose default is vertex 0 timed one source, not 256
    assert "solves 1 source" in recheck.wrong_problem(_rec("bf_naive", paper="bodra"))
    assert recheck.wrong_problem(_rec("bf_naive", paper="bodra", named=True)) == ""
    assert recheck.wrong_problem(_rec("multi_source")) == ""  # its default is every source
    assert recheck.wrong_problem(_rec("rkleene")) == ""


def test_cross_paper_folder_is_corrected_and_says_so(tmp_path):
    report.save_records([_rec("sssp_worklist", stats={"sources": 1}), _rec("rkleene")], tmp_path, "apsp")
    assert recheck.cross_paper(tmp_path) == 1
    table = pd.read_csv(tmp_path / "table_apsp.csv").set_index("method")
    assert not table.loc["sssp_worklist", "verified"] and table.loc["rkleene", "verified"]
    recs = {r.method: r for r in from_csv(tmp_path / "records_apsp.csv")}
    assert "not a result" in recs["sssp_worklist"].verify_scope and recs["rkleene"].verified
    assert json.loads((tmp_path / "run.json").read_text())["rechecked"]["records_marked_unverified"] == 1
    assert (tmp_path / "fig_apsp_time.png").exists()
    assert recheck.cross_paper(tmp_path) == 0  # already corrected: nothing changes


def _committed(tmp_path, name):
    import shutil
    from pathlib import Path
    target = tmp_path / name
    shutil.copytree(Path(__file__).resolve().parent.parent / "results" / name, target)
    return target


def test_a_verdict_is_re_derived_by_the_current_rule_and_the_change_is_said(tmp_path):
    """liu's old rule (the ratio falls) read holds where the GPU pulls away from the CPU; put the
    old outcome back and the re-derivation by |log r| turns it round, saying so in run.json."""
    folder = _committed(tmp_path, "liu")
    path = folder / "verdicts.csv"
    df = pd.read_csv(path, keep_default_na=False)
    gap = df["claim"].str.startswith("the gap between GPU total")
    df.loc[gap, ["verdict", "outcome"]] = "holds"
    df.to_csv(path, index=False)
    info = recheck.provenance(folder)
    after = pd.read_csv(path, keep_default_na=False)
    assert after.loc[gap, "outcome"].iloc[0] == "does not hold"
    assert any(line.startswith("the gap between GPU total") and line.endswith("holds -> does not hold")
               for line in info["outcomes_changed"])
    assert "outcomes_changed" in report.read_run(folder)["rechecked_provenance"]


def test_bodras_unchecked_pilot_keeps_no_time(tmp_path):
    folder = _committed(tmp_path, "bodra")
    path = folder / "records_table2.csv"
    recs = [r for r in from_csv(path) if r.experiment != recheck.UNCHECKED_PILOT]
    # a pilot row as runs before its fix wrote it: timed, not checked (bodra.py no longer writes one)
    pilot = dataclasses.replace(next(r for r in recs if r.experiment == "table2"), experiment=recheck.UNCHECKED_PILOT,
                                time_ms_median=444.7, time_ms_min=444.7, verified=False, skipped="")
    report.save_records(recs + [pilot], folder, "table2")
    recheck.provenance(folder)
    again = next(r for r in from_csv(path) if r.experiment == recheck.UNCHECKED_PILOT)
    assert again.time_ms_median != again.time_ms_median and again.skipped.startswith("untimed note")
    assert {r.experiment for r in from_csv(path) if r.time_ms_median == r.time_ms_median} == {"table2", "table2_check"}
