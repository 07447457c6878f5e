"""The audit of the committed results (issue 28), and that it fails on planted inconsistencies."""
import shutil
from pathlib import Path

import pandas as pd
import pytest

from apsp_kernels import audit, provenance
from apsp_kernels.verdicts import DEFAULT_TIMING_BAND

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"


def test_committed_results_pass_the_audit():
    assert audit.problems(RESULTS, "README.md") == []


def test_every_committed_verdict_names_a_basis_from_the_vocabulary():
    for path in audit.verdict_files(RESULTS):
        df = pd.read_csv(path, keep_default_na=False)
        assert set(df["basis"]) <= set(provenance.BASES + provenance.NO_DATA), path
        bare = df[df["verdict"].isin(["holds", "does not hold"])]
        assert (bare["basis"] == "measured").all(), (path, bare["claim"].tolist())


@pytest.fixture
def copy(tmp_path):
    def make(name):
        target = tmp_path / "results" / name
        shutil.copytree(RESULTS / name, target)
        return target
    return make


def _edit(folder, claim_prefix, **fields):
    path = folder / "verdicts.csv"
    df = pd.read_csv(path, keep_default_na=False)
    rows = df["claim"].str.startswith(claim_prefix)
    assert rows.any()
    for column, value in fields.items():
        df.loc[rows, column] = value
    df.to_csv(path, index=False)


def test_audit_of_a_clean_copy_is_clean(copy):
    assert audit.verdict_problems(copy("pandey")) == []


def test_a_verdict_citing_a_record_that_does_not_exist_fails(copy):
    folder = copy("pandey")
    _edit(folder, "in place", records="sweep/rkleene/no-such-graph/4096/00000000")
    assert any("not in its records" in p for p in audit.verdict_problems(folder))


def test_a_bare_holds_on_extrapolated_rows_fails(copy):
    folder = copy("pandey")
    _edit(folder, "GPU R-Kleene is faster", verdict="holds", basis="measured")
    found = audit.verdict_problems(folder)
    assert any("weakest is 'extrapolated'" in p for p in found)


# ------------------------------------------------------------------ figures recomputed from the cited records
def test_every_paper_verdict_with_a_figure_is_recomputed_from_the_records_it_cites():
    checked = 0
    for path in audit.verdict_files(RESULTS):
        if audit.claims_module(path.parent.name) is None:
            continue
        assert audit.figure_problems(path.parent) == [], path
        df = pd.read_csv(path, keep_default_na=False)
        checked += int((df["records"] != "").sum())
    assert checked >= 80  # the five papers in both profiles (94 verdicts cite records): the check is not vacuous


def test_a_figure_its_records_do_not_give_fails(copy):
    folder = copy("pandey")
    df = pd.read_csv(folder / "verdicts.csv", keep_default_na=False)
    committed = df.loc[df["claim"].str.startswith("up to 475x"), "measured"].iloc[0]
    assert audit.figure_problems(folder) == []
    _edit(folder, "up to 475x", measured="3.18e+03x over serial RK at n = 16384, 9.94e+03x over serial FW")
    assert any(f"its cited records give '{committed.split(' ')[0]}" in p for p in audit.figure_problems(folder))


def test_an_outcome_its_records_do_not_give_fails(copy):
    folder = copy("liu")
    _edit(folder, "the gap between GPU total", outcome="holds")
    assert any("(does not hold); the file says" in p for p in audit.figure_problems(folder))


def test_a_verdict_that_leaves_out_a_record_its_figure_rests_on_fails(copy):
    """okuyama's goal of 12.7x rests on the rustworkx row: cited without it, the records give another figure."""
    folder = copy("paper/okuyama")
    df = pd.read_csv(folder / "verdicts.csv", keep_default_na=False)
    row = df["claim"].str.startswith("best GPU configuration")
    ids = df.loc[row, "records"].iloc[0].split()
    assert any("dijkstra_rustworkx" in i for i in ids)
    _edit(folder, "best GPU configuration", records=" ".join(i for i in ids if "dijkstra_rustworkx" not in i))
    assert any("dijkstra_cpu" in p and "12.7x" in p for p in audit.figure_problems(folder))


def test_a_verdict_citing_no_record_fails(copy):
    folder = copy("takafuji")
    _edit(folder, "bulk: the single kernel is faster", records="")
    assert any("cites no record" in p for p in audit.figure_problems(folder))


def test_the_default_noise_band_lies_within_the_committed_repeat_spreads():
    spreads = audit.repeat_spreads(RESULTS)
    assert len(spreads) > 1000
    assert spreads.median() < DEFAULT_TIMING_BAND < spreads.quantile(0.95)


def test_an_upper_bound_read_as_does_not_hold_fails(copy):
    folder = copy("bodra")
    _edit(folder, "naive GPU Dijkstra APSP", verdict="does not hold (an upper bound: 1 of 2 rows)")
    assert any("its basis gives 'not measured" in p for p in audit.verdict_problems(folder))


def test_a_mistyped_published_range_fails(copy):
    folder = copy("takafuji")
    _edit(folder, "bulk: the single kernel is faster", published="single faster in 56 of 58 cells (ratio 0.99-1.37)")
    assert any("0.99-1.54" in p for p in audit.published_problems(folder))


def test_a_published_number_that_no_cell_shows_fails(copy):
    folder = copy("okuyama")
    _edit(folder, "proposed is 2.8-13x", published="2.8-17.77x")
    assert any("quotes 17.77" in p for p in audit.published_problems(folder))


def test_readme_time_without_a_file_or_with_the_wrong_time_fails(tmp_path, copy):
    copy("pandey")
    root = tmp_path
    (root / "README.md").write_text(
        "The method map ran 18 minutes on one H200.\n\n"
        "pandey took 9 minutes: [run.json](results/pandey/run.json).\n\n"
        "pandey took 27 s: [run.json](results/pandey/run.json).\n")
    found = audit.readme_problems(root / "README.md", root)
    assert len(found) == 2
    assert "names no committed file" in found[0] and "says 9 minutes" in found[1]


def test_gallery_out_of_date_fails(copy, tmp_path):
    copy("pandey")
    (tmp_path / "results" / "README.md").write_text("# old gallery\n")
    assert audit.gallery_problems(tmp_path / "results")


def test_a_planted_wrong_extreme_fails_even_when_another_cell_shows_it(copy):
    folder = copy("pandey")
    # 356.56 rounds to 357, a cell of the table (the HD 6450's), but not the GT 630M column's max
    _edit(folder, "GPU R-Kleene is faster", published="10x..357x (GT 630M, n = 64..4096)")
    found = audit.published_problems(folder)
    assert any("the max of its cells (pandey table1) is 474.9" in p for p in found), found


def test_a_range_end_that_is_not_its_cells_extreme_fails(copy):
    folder = copy("takafuji")
    _edit(folder, "the gain is largest for small n", published="1.08-1.14x for n <= 256 vs 1.02-1.07x for n >= 2048")
    found = audit.published_problems(folder)
    assert any("the min of its cells (takafuji table1_summary) is 1.03" in p for p in found), found


def test_a_wrong_ratio_of_cells_fails(copy):
    folder = copy("liu")
    _edit(folder, "serial O(N²) Dijkstra time", published="1.5x from degree 16 to 512 at N=40000")
    found = audit.published_problems(folder)
    assert any("the max of its cells (liu fig1_serial / fig1_serial) is 1.05" in p for p in found), found


def test_every_quoted_spec_names_a_committed_verdict():
    import importlib
    for stem in audit.PAPERS:
        module = importlib.import_module(f"apsp_kernels.experiments.{stem}")
        claims = pd.read_csv(RESULTS / stem / "verdicts.csv", keep_default_na=False)["claim"]
        for spec in getattr(module, "QUOTED", []):
            assert claims.map(spec.matches).any(), (stem, spec.claim)
            assert len(spec.values()) >= 1


def test_the_audit_reads_finished_runs_only_not_the_runners_unfinished_folders(copy):
    pandey = copy("pandey")
    unfinished = pandey.parent / "paper" / ".running" / "pandey"
    shutil.copytree(pandey, unfinished)
    _edit(unfinished, "in place", basis="", records="")  # as a notebook leaves it before its end
    assert audit.verdict_files(pandey.parent) == [pandey / "verdicts.csv"]
