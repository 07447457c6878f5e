"""The README's table of the papers' claims (apsp_kernels.claims_summary) against the committed verdicts."""
import shutil
from pathlib import Path

import pandas as pd

from apsp_kernels import claims_summary

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"


def test_readme_claims_table_agrees_with_the_committed_verdicts():
    found = claims_summary.problems(ROOT / "README.md", RESULTS)
    assert found == [], "\n".join(found)


def test_counts_are_the_outcomes_of_each_papers_verdicts():
    table = claims_summary.counts(RESULTS).set_index("paper")
    assert list(table.index) == list(claims_summary.PAPERS)
    for paper, row in table.iterrows():
        outcomes = pd.read_csv(ROOT / row["file"], keep_default_na=False)["outcome"]
        assert row["claims"] == len(outcomes) == row["held"] + row["did not hold"] + row["other"]
        assert row["held"] == (outcomes == "holds").sum()


def _tree(tmp_path, papers=claims_summary.PAPERS):
    """A repository copy holding the README and the papers' verdicts (paper profile and default)."""
    for paper in papers:
        for sub in (Path("paper") / paper, Path(paper)):
            (tmp_path / "results" / sub).mkdir(parents=True)
            shutil.copy(RESULTS / sub / "verdicts.csv", tmp_path / "results" / sub / "verdicts.csv")
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    return tmp_path


def _set_outcome(path, outcome):
    df = pd.read_csv(path, keep_default_na=False)
    df.loc[0, "outcome"] = outcome
    df.to_csv(path, index=False)


def test_a_changed_verdict_makes_the_readme_check_fail_and_name_the_command(tmp_path):
    root = _tree(tmp_path)
    assert claims_summary.problems(root / "README.md", root / "results") == []
    _set_outcome(root / "results" / "paper" / "bodra" / "verdicts.csv", "inconclusive")
    found = claims_summary.problems(root / "README.md", root / "results")
    assert len(found) == 1 and "python -m apsp_kernels.claims_summary" in found[0]
    assert claims_summary.main(["--readme", str(root / "README.md"), "--results", str(root / "results")]) == 0
    assert claims_summary.problems(root / "README.md", root / "results") == []
    assert "1 inconclusive" in (root / "README.md").read_text()


def test_a_paper_without_a_paper_profile_run_counts_its_default_verdicts(tmp_path):
    root = _tree(tmp_path)
    shutil.rmtree(root / "results" / "paper" / "liu")
    _set_outcome(root / "results" / "liu" / "verdicts.csv", "not run")
    row = claims_summary.counts(root / "results").set_index("paper").loc["liu"]
    assert row["file"] == "results/liu/verdicts.csv"
    assert "1 not run" in row["other outcomes"]


def test_a_readme_without_the_markers_says_where_the_table_goes(tmp_path):
    root = _tree(tmp_path)
    (root / "README.md").write_text("# a README without the table\n")
    (found,) = claims_summary.problems(root / "README.md", root / "results")
    assert "add the two markers" in found and claims_summary.START in found
