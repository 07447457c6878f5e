"""The notebook runner (apsp_kernels.reproduce) on a tiny notebook, with papermill and a real kernel."""
import json
import shutil
from pathlib import Path

import nbformat
import pytest

from apsp_kernels import reproduce

TINY = Path(__file__).parent / "data" / "tiny_notebook.ipynb"


def run(notebooks_dir, results, *names):
    return reproduce.main(["--profile", "smoke", "--notebooks-dir", str(notebooks_dir),
                           "--output", str(results), *names])


def test_runs_a_notebook_into_results(tmp_path):
    results = tmp_path / "results"
    assert run(TINY.parent, results, "tiny_notebook") == 0

    out = results / "tiny_notebook"
    info = json.loads((out / "run.json").read_text())
    assert info["status"] == "ok" and info["profile"] == "smoke" and info["error"] == ""
    assert info["device"] and info["seconds"] >= 0 and info["started"]
    executed = nbformat.read(out / "tiny_notebook.ipynb", as_version=4)
    injected = [c for c in executed.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert injected and 'profile = "smoke"' in injected[0].source
    assert all(c.execution_count for c in executed.cells if c.cell_type == "code")
    # output_dir reached the notebook (it runs in its own folder) and the files landed in results/
    assert "smoke" in (out / "table_x.csv").read_text()
    assert (out / "verdicts.csv").exists() and (out / "fig_x.png").stat().st_size > 0
    assert not [p for p in out.iterdir() if p.name.startswith(".")], "temporary notebook left behind"
    assert "tiny_notebook/fig_x.png" in (results / "README.md").read_text()


def test_a_failing_notebook_fails_the_run_but_not_the_others(tmp_path, capsys):
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    broken = nbformat.read(TINY, as_version=4)
    broken.cells.insert(1, nbformat.v4.new_code_cell('raise RuntimeError("boom")'))
    nbformat.write(broken, notebooks / "a_broken.ipynb")
    shutil.copy(TINY, notebooks / "b_tiny.ipynb")
    results = tmp_path / "results"

    assert run(notebooks, results) != 0

    info = json.loads((results / "a_broken" / "run.json").read_text())
    assert info["status"] == "failed" and "boom" in info["error"]
    assert (results / "a_broken" / "a_broken.failed.ipynb").exists()
    assert not (results / "a_broken" / "a_broken.ipynb").exists()
    assert json.loads((results / "b_tiny" / "run.json").read_text())["status"] == "ok"
    assert (results / "b_tiny" / "b_tiny.ipynb").exists()
    captured = capsys.readouterr()
    assert "a_broken.failed.ipynb" in captured.out and "a_broken" in captured.err
    assert "FAILED" in (results / "README.md").read_text()


def test_list_and_unknown_names(tmp_path, capsys):
    assert reproduce.main(["--list", "--notebooks-dir", str(TINY.parent)]) == 0
    assert "tiny_notebook" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="no notebook nope"):
        run(TINY.parent, tmp_path / "results", "nope")


NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_runs_in_the_smoke_profile(notebook, tmp_path):
    """What CI can check of the notebooks without a GPU: they run to the end (GPU parts skipped)."""
    assert run(notebook.parent, tmp_path, notebook.stem) == 0, \
        json.loads((tmp_path / notebook.stem / "run.json").read_text())["error"]
