"""The provenance rule (apsp_kernels/provenance.py): a record's basis from its fields, a
verdict's basis the weakest of its records', and the verdict line each basis gives."""
import math

import pandas as pd
import pytest

from apsp_kernels import provenance as pv
from apsp_kernels.records import Record, from_csv, to_frame, write_csv
from apsp_kernels.verdicts import Evidence, beside_goal, load_records, resolve

T0 = "2026-11-25T10:00:00+00:00"


def rec(n=1024, method="m", **fields):
    base = dict(paper="p", experiment="e", method=method, graph=f"g-n{n}", n=n, m=4 * n, time_ms_median=1.0,
                time_ms_min=1.0, repeats=3, verified=True, verify_scope=f"all {n} rows", timestamp=T0)
    return Record(**(base | fields))


# ------------------------------------------------------------------ one record's basis
@pytest.mark.parametrize("fields, basis", [
    ({}, "measured"),
    ({"verify_scope": "64 sampled of 1024 rows"}, "verified-sample"),
    ({"verify_scope": "2 of 32 instances (0, 31), all entries"}, "verified-sample"),
    ({"verify_scope": "32 of its 32 timed sources vs SciPy"}, "measured"),
    ({"stand_in": True}, "stand-in"),
    ({"stand_in": True, "verify_scope": "64 sampled of 1024 rows"}, "stand-in"),
    ({"extrapolated": True, "extrapolation": "time x 4", "stand_in": True}, "extrapolated"),
    ({"extrapolated": True, "extrapolation": "upper bound: all sources charged the slowest"}, "upper-bound"),
    ({"verified": False}, pv.NOT_MEASURED),
    ({"verified": False, "extrapolated": True}, pv.NOT_MEASURED),
    ({"skipped": "no CUDA GPU"}, pv.NOT_RUN),
    ({"time_ms_median": math.nan}, pv.NOT_RUN),
])
def test_record_basis_from_its_fields(fields, basis):
    assert pv.record_basis(rec(**fields)) == basis


def test_record_basis_reads_a_csv_row_as_the_record(tmp_path):
    records = [rec(), rec(verify_scope="8 sampled of 1024 rows"), rec(extrapolated=True),
               rec(skipped="too big", time_ms_median=math.nan), rec(verified=False)]
    write_csv(to_frame(records), tmp_path / "records_e.csv")
    rows = pd.read_csv(tmp_path / "records_e.csv", keep_default_na=False).to_dict("records")
    assert [pv.record_basis(r) for r in rows] == [pv.record_basis(r) for r in records]
    again = from_csv(tmp_path / "records_e.csv")
    assert [pv.record_id(r) for r in rows] == [pv.record_id(r) for r in records] == [pv.record_id(r) for r in again]


@pytest.mark.parametrize("fields, basis", [
    ({}, "measured"),
    ({"extrapolated": True}, "verified-sample"),  # checked on the sampled sources it ran
    ({"extrapolated": True, "extrapolation": "upper bound: ..."}, "verified-sample"),
    ({"stand_in": True}, "stand-in"),  # a count of work on a graph that replaces the paper's
    ({"stand_in": True, "verify_scope": "8 sampled of 4096 rows"}, "stand-in"),
    ({"verify_scope": "8 sampled of 4096 rows"}, "verified-sample"),
    ({"extrapolated": True, "verify_scope": f"{pv.NOT_RUN_HERE}; the measured n=1024 run: all rows"}, pv.NOT_RUN),
    ({"verified": False}, pv.NOT_MEASURED),
    ({"skipped": "no GPU"}, pv.NOT_RUN),
])
def test_check_basis_is_what_was_checked_not_how_it_was_timed(fields, basis):
    assert pv.check_basis(rec(**fields)) == basis


def test_record_ids_differ_for_two_papers_methods_of_one_name_run_in_one_second():
    a, b = rec(paper="pandey", method="rkleene"), rec(paper="fast", method="rkleene")
    assert pv.record_id(a) != pv.record_id(b)
    assert pv.record_id(a) == pv.record_id(rec(paper="pandey", method="rkleene"))
    assert " " not in pv.record_id(rec(graph="a graph with spaces"))


# ------------------------------------------------------------------ the weakest basis
def test_weakest_follows_the_vocabulary_order():
    order = list(pv.BASES + pv.NO_DATA)
    for i, strong in enumerate(order):
        for weak in order[i:]:
            assert pv.weakest([strong, weak]) == weak
            assert pv.weakest([weak, strong]) == weak
    assert pv.weakest([]) == pv.NOT_RUN
    assert pv.weakest(["measured"] * 3) == "measured"


def test_basis_of_records_is_their_weakest_with_where_it_is_weak():
    rows = [rec(n=n) for n in (256, 512, 1024)] + [rec(n=n, extrapolated=True) for n in (2048, 4096)]
    assert pv.basis_of(rows) == ("extrapolated", "above n = 1024")
    mixed = [rec(n=256, extrapolated=True), rec(n=512), rec(n=1024, extrapolated=True)]
    assert pv.basis_of(mixed) == ("extrapolated", "2 of 3 rows")
    assert pv.basis_of([rec(extrapolated=True)] * 2) == ("extrapolated", "every row")
    assert pv.basis_of([rec(), rec(n=2)]) == ("measured", "")
    assert pv.basis_of([]) == (pv.NOT_RUN, "")
    assert pv.basis_of([], "published") == ("published", "")
    with pytest.raises(ValueError, match="basis 'guessed'"):
        pv.basis_of([], "guessed")


def test_the_threshold_is_the_lowest_over_methods():
    rows = [rec(n=512, method="a"), rec(n=1024, method="a", extrapolated=True),
            rec(n=2048, method="b"), rec(n=4096, method="b", extrapolated=True)]
    assert pv.detail(rows) == "above n = 512"


# ------------------------------------------------------------------ the verdict line
@pytest.mark.parametrize("holds, basis, where, line", [
    (True, "measured", "", "holds"),
    (False, "measured", "", "does not hold"),
    (None, "measured", "", "not tested"),
    (True, "verified-sample", "above n = 1024", "holds (verified on a sample above n = 1024)"),
    (False, "stand-in", "every row", "does not hold (stand-in graph: every row)"),
    (True, "extrapolated", "above n = 1024", "holds (extrapolated above n = 1024)"),
    (False, "extrapolated", "2 of 3 rows", "does not hold (extrapolated: 2 of 3 rows)"),
    (True, "upper-bound", "1 of 2 rows", "holds (an upper bound: 1 of 2 rows)"),
    (False, "upper-bound", "1 of 2 rows", "not measured (only an upper bound: 1 of 2 rows)"),
    (None, "upper-bound", "", "not tested (an upper bound)"),
    (True, "published", "", "holds (published numbers only)"),
    (True, pv.NOT_RUN, "", "not run"),
    (False, pv.NOT_MEASURED, "", "not measured"),
])
def test_wording_of_each_basis(holds, basis, where, line):
    assert pv.wording(holds, basis, where) == line
    assert pv.outcome(line) in pv.OUTCOMES


def test_no_verdict_but_a_measured_one_reads_bare():
    for basis in pv.BASES[1:]:
        for holds in (True, False):
            assert pv.wording(holds, basis) not in ("holds", "does not hold"), basis


def test_outcome_of_a_line_that_names_none_fails():
    assert pv.outcome("does not hold (extrapolated above n = 4)") == "does not hold"
    with pytest.raises(ValueError):
        pv.outcome("maybe")


# ------------------------------------------------------------------ evidence over records
def test_a_verdict_with_no_rows_reads_not_run(tmp_path):
    frame = load_records(tmp_path)  # no records_*.csv
    assert resolve(Evidence("anything", "e"), frame) == (pv.NOT_RUN, "", [])
    write_csv(to_frame([rec(skipped="no GPU", time_ms_median=math.nan)]), tmp_path / "records_e.csv")
    basis, _, _ = resolve(Evidence("anything", "e"), load_records(tmp_path))
    assert basis == pv.NOT_RUN
    assert pv.wording(True, basis) == "not run"


def test_a_method_not_run_leaves_an_every_method_claim_not_run(tmp_path):
    write_csv(to_frame([rec(method="a"), rec(method="b", skipped="no GPU", time_ms_median=math.nan)]),
              tmp_path / "records_e.csv")
    frame = load_records(tmp_path)
    assert resolve(Evidence("c", "e"), frame)[0] == "measured"
    assert resolve(Evidence("c", "e", every_method=True), frame)[:2] == (pv.NOT_RUN, "not run: b")


def test_a_correctness_claim_rests_on_the_checked_rows_not_the_scaled_ones(tmp_path):
    measured = [rec(n=n) for n in (256, 1024)]
    scaled = [rec(n=4096, extrapolated=True, verify_scope=f"{pv.NOT_RUN_HERE}; the measured n=1024 run")]
    write_csv(to_frame(measured + scaled), tmp_path / "records_e.csv")
    frame = load_records(tmp_path)
    assert resolve(Evidence("time", "e"), frame)[:2] == ("extrapolated", "above n = 1024")
    basis, where, ids = resolve(Evidence("right", "e", correctness=True), frame)
    assert (basis, where) == ("measured", "")
    assert ids == [pv.record_id(r) for r in measured]


def test_a_verdict_on_no_record_left_not_tested_reads_not_run(tmp_path):
    frame = load_records(tmp_path)
    fixed = Evidence("in place", basis="measured")
    assert resolve(fixed, frame, "holds") == ("measured", "", [])
    assert resolve(fixed, frame, "not tested") == (pv.NOT_RUN, "", [])


def test_a_ratio_beside_its_goal_never_prints_as_the_goal_it_misses():
    assert beside_goal(1.896444, 1.9) == "1.896"  # "1.90x ... does not hold" read as a contradiction
    assert beside_goal(1.9004, 1.9) == "1.9004"
    assert beside_goal(1.957, 1.9) == "1.96" and beside_goal(1.9, 1.9) == "1.90"
    assert beside_goal(2.0138, 1.8) == "2.01" and beside_goal(0.5, 1.8, digits=1) == "0.5"
