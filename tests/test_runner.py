"""The notebook runner (apsp_kernels.reproduce) on tiny notebooks, with papermill and real kernels:
in turn, at once on (fake) GPUs through Dask, and the paper profile's own folder."""
import dataclasses
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from apsp_kernels import gpu, host_cpu, multi_gpu, records, report, reproduce

TINY = Path(__file__).parent / "data" / "tiny_notebook.ipynb"


def run(notebooks_dir, results, *names):
    return reproduce.main(["--profile", "smoke", "--notebooks-dir", str(notebooks_dir),
                           "--output", str(results), *names])


def test_runs_a_notebook_into_results(tmp_path):
    results = tmp_path / "results"
    (results / "tiny_notebook").mkdir(parents=True)
    (results / "tiny_notebook" / "run.json").write_text(json.dumps({"rechecked": {"at": "an earlier run"}}))
    assert run(TINY.parent, results, "tiny_notebook") == 0

    out = results / "tiny_notebook"
    info = json.loads((out / "run.json").read_text())
    assert info["status"] == "ok" and info["profile"] == "smoke" and info["error"] == ""
    assert info["device"] and info["seconds"] >= 0 and info["started"]
    assert "rechecked" not in info  # a new run's run.json says nothing of the run before
    executed = nbformat.read(out / "tiny_notebook.ipynb", as_version=4)
    injected = [c for c in executed.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert injected and 'profile = "smoke"' in injected[0].source
    assert all(c.execution_count for c in executed.cells if c.cell_type == "code")
    # output_dir reached the notebook (it runs in its own folder) and the files landed in results/
    assert "smoke" in (out / "table_x.csv").read_text()
    assert (out / "verdicts.csv").exists() and (out / "fig_x.png").stat().st_size > 0
    assert not [p for p in out.iterdir() if p.name.startswith(".")], "temporary notebook left behind"
    assert "tiny_notebook/fig_x.png" in (results / "README.md").read_text()


def test_a_headless_run_prints_no_kernel_warnings(tmp_path, capfd):
    """The kernel inherits this process's stderr: over TCP ipykernel warned there on every run; and
    a progress bar (tqdm.auto) without ipywidgets warned into its cell before falling back to text."""
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    nb = nbformat.read(TINY, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        "from apsp_kernels import report\nfor _ in report.progress(range(3), 'sweep'):\n    pass"))
    nbformat.write(nb, notebooks / TINY.name)
    assert run(notebooks, tmp_path / "results", "tiny_notebook") == 0
    err = capfd.readouterr().err
    assert "IPKernelApp" not in err and "WARNING" not in err, err
    assert not list(notebooks.glob("kernel*")), "kernel sockets left beside the notebook"
    executed = nbformat.read(tmp_path / "results" / "tiny_notebook" / TINY.name, as_version=4)
    streams = "".join(o.get("text", "") for c in executed.cells for o in c.get("outputs", []))
    assert "sweep" in streams or importlib.util.find_spec("ipywidgets")  # the bar ran (as text here)
    assert "Warning" not in streams, streams


def test_list_and_unknown_names(tmp_path, capsys):
    assert reproduce.main(["--list", "--notebooks-dir", str(TINY.parent)]) == 0
    assert "tiny_notebook" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="no notebook nope"):
        run(TINY.parent, tmp_path / "results", "nope")


def broken_and_tiny(folder: Path, *tiny_names) -> Path:
    folder.mkdir()
    broken = nbformat.read(TINY, as_version=4)
    broken.cells.insert(1, nbformat.v4.new_code_cell('raise RuntimeError("boom")'))
    nbformat.write(broken, folder / "a_broken.ipynb")
    for name in tiny_names:
        shutil.copy(TINY, folder / f"{name}.ipynb")
    return folder


def test_several_gpus_run_the_notebooks_at_once_longest_first(tmp_path, monkeypatch, capsys):
    pytest.importorskip("distributed")
    from fake_gpus import fake_gpu_client

    notebooks = broken_and_tiny(tmp_path / "notebooks", "b_tiny", "c_tiny")
    results = tmp_path / "results"
    for stem, seconds in (("a_broken", 1.0), ("b_tiny", 50.0)):  # c_tiny never ran: it goes first
        (results / stem).mkdir(parents=True)
        (results / stem / "run.json").write_text(json.dumps({"status": "ok", "seconds": seconds}))
    monkeypatch.setattr(gpu, "visible_gpus", lambda: ["3", "5"])
    monkeypatch.setattr(multi_gpu, "why_not_parallel", lambda gpus, jobs: "")
    monkeypatch.setattr(multi_gpu, "local_cuda_client", fake_gpu_client)

    assert run(notebooks, results) != 0

    out = capsys.readouterr().out
    assert "one notebook per GPU at a time on Dask, longest first: c_tiny, b_tiny, a_broken" in out
    runs = {stem: json.loads((results / folder / "run.json").read_text())
            for stem, folder in (("a_broken", "a_broken.failed"), ("b_tiny", "b_tiny"), ("c_tiny", "c_tiny"))}
    assert [runs[s]["status"] for s in sorted(runs)] == ["failed", "ok", "ok"]
    assert json.loads((results / "a_broken" / "run.json").read_text()) == {"status": "ok", "seconds": 1.0}
    assert "boom" in runs["a_broken"]["error"]
    assert {r["gpu"]["index"] for r in runs.values()} == {"3", "5"}
    assert all("host_cpu" in r["side_by_side"] for r in runs.values())
    assert host_cpu.ENV not in os.environ and reproduce.SIDE_BY_SIDE_ENV not in os.environ
    for stem, r in runs.items():
        assert f"{stem}: running on GPU {r['gpu']['index']}" in out
    assert (results / "b_tiny" / "b_tiny.ipynb").exists() and (results / "c_tiny" / "c_tiny.ipynb").exists()
    gallery = (results / "README.md").read_text()
    assert "GPU 3" in gallery and "host-clock timings took turns" in gallery


def test_a_notebook_run_alone_under_a_lock_its_caller_named_is_not_called_side_by_side(monkeypatch):
    monkeypatch.delenv(reproduce.SIDE_BY_SIDE_ENV, raising=False)
    monkeypatch.setenv(host_cpu.ENV, "/tmp/a_lock_named_by_the_caller")
    note = reproduce.side_by_side()["side_by_side"]
    assert note.startswith("the only notebook this runner ran at the time") and host_cpu.ENV in note
    monkeypatch.setenv(reproduce.SIDE_BY_SIDE_ENV, "1")
    assert reproduce.side_by_side()["side_by_side"].startswith("beside notebooks on the host's other GPUs")
    monkeypatch.delenv(host_cpu.ENV)
    monkeypatch.delenv(reproduce.SIDE_BY_SIDE_ENV)
    assert reproduce.side_by_side() == {}


def test_one_gpu_runs_in_turn_and_a_failing_notebook_does_not_stop_the_others(tmp_path, monkeypatch, capsys):
    def no_dask(gpus):
        raise AssertionError("one GPU must not start a Dask cluster")

    monkeypatch.setattr(gpu, "visible_gpus", lambda: ["0"])
    monkeypatch.setattr(multi_gpu, "local_cuda_client", no_dask)
    notebooks = broken_and_tiny(tmp_path / "notebooks", "b_tiny")
    results = tmp_path / "results"

    assert run(notebooks, results) != 0

    info = json.loads((results / "a_broken.failed" / "run.json").read_text())
    assert info["status"] == "failed" and "boom" in info["error"]
    assert (results / "a_broken.failed" / "a_broken.failed.ipynb").exists()
    assert not (results / "a_broken").exists()  # nothing ran through: no results folder
    info = json.loads((results / "b_tiny" / "run.json").read_text())
    assert info["status"] == "ok" and "side_by_side" not in info
    assert (results / "b_tiny" / "b_tiny.ipynb").exists()
    assert not [p for p in (results / ".running").iterdir()], "a run's working folder left behind"
    captured = capsys.readouterr()
    assert "[1/2] a_broken: running ..." in captured.out and "[2/2] b_tiny: ok" in captured.out
    assert "Dask" not in captured.out
    assert "a_broken.failed" in captured.out and "a_broken" in captured.err
    gallery_text = (results / "README.md").read_text()
    assert "FAILED" in gallery_text and "a_broken.failed/a_broken.failed.ipynb" in gallery_text


def test_a_failed_run_leaves_the_earlier_results_whole_and_the_next_success_replaces_both(tmp_path):
    notebooks, results = tmp_path / "notebooks", tmp_path / "results"
    notebooks.mkdir()
    good = nbformat.read(TINY, as_version=4)
    nbformat.write(good, notebooks / "nb.ipynb")
    assert run(notebooks, results) == 0
    earlier = {p.name: p.read_bytes() for p in (results / "nb").iterdir()}
    (results / ".running" / "nb").mkdir(parents=True)  # what a run killed outright leaves
    (results / ".running" / "nb" / "table_x.csv").write_text("half")

    failing = nbformat.read(TINY, as_version=4)  # writes its table, then fails before its figure
    failing.cells.insert(2, nbformat.v4.new_code_cell('raise RuntimeError("late boom")'))
    nbformat.write(failing, notebooks / "nb.ipynb")
    assert run(notebooks, results) != 0
    assert {p.name: p.read_bytes() for p in (results / "nb").iterdir()} == earlier
    failed = results / "nb.failed"
    assert sorted(p.name for p in failed.iterdir()) == ["code.json", "nb.failed.ipynb", "run.json", "table_x.csv",
                                                       "verdicts.csv"]
    assert "late boom" in json.loads((failed / "run.json").read_text())["error"]
    text = (results / "README.md").read_text()
    assert "**A later run failed**" in text and "late boom" in text and "nb.failed/nb.failed.ipynb" in text
    assert "ok, a later run failed" in text

    nbformat.write(good, notebooks / "nb.ipynb")
    (results / "nb" / "stale.csv").write_text("from no run of this notebook")
    assert run(notebooks, results) == 0
    assert not failed.exists() and not (results / "nb" / "stale.csv").exists()
    assert json.loads((results / "nb" / "run.json").read_text())["status"] == "ok"
    assert "later run failed" not in (results / "README.md").read_text()


def test_the_device_runs_kept_beside_a_notebook_s_results_survive_its_next_run(tmp_path):
    notebooks, results = tmp_path / "notebooks", tmp_path / "results"
    notebooks.mkdir()
    nbformat.write(nbformat.read(TINY, as_version=4), notebooks / "nb.ipynb")
    assert run(notebooks, results) == 0
    kept = results / "nb" / "device_run"
    kept.mkdir()
    (kept / "README.md").write_text("# Every source on four GPUs\n")
    (kept / "records_x.csv").write_text("measured once, on a device\n")
    (results / "nb" / "scratch").mkdir()  # no README: the notebook's own output, replaced like the rest
    (results / "nb" / "scratch" / "stale.csv").write_text("from no run of this notebook")
    assert run(notebooks, results) == 0
    assert (kept / "records_x.csv").read_text() == "measured once, on a device\n"
    assert not (results / "nb" / "scratch").exists()
    assert json.loads((results / "nb" / "run.json").read_text())["status"] == "ok"
    assert "Every source on four GPUs" in (results / "README.md").read_text()


def test_several_gpus_without_dask_cuda_run_in_turn_and_say_why(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(gpu, "visible_gpus", lambda: ["0", "1"])
    monkeypatch.setitem(sys.modules, "dask_cuda", None)  # import dask_cuda fails
    notebooks = broken_and_tiny(tmp_path / "notebooks", "b_tiny")

    assert run(notebooks, tmp_path / "results") != 0

    out = capsys.readouterr().out
    assert "2 GPUs but dask-cuda does not import" in out and "one after another" in out
    assert "[2/2] b_tiny: ok" in out


def test_a_dask_cluster_that_does_not_start_falls_back_to_running_in_turn(tmp_path, monkeypatch, capsys):
    def broken_cluster(gpus):
        raise OSError("no NVML")

    monkeypatch.setattr(gpu, "visible_gpus", lambda: ["0", "1"])
    monkeypatch.setattr(multi_gpu, "why_not_parallel", lambda gpus, jobs: "")
    monkeypatch.setattr(multi_gpu, "local_cuda_client", broken_cluster)

    assert run(TINY.parent, tmp_path / "results", "tiny_notebook") == 0

    out = capsys.readouterr().out
    assert "the Dask cluster did not start (OSError: no NVML)" in out and "[1/1] tiny_notebook: ok" in out


def test_a_notebook_that_uses_every_gpu_runs_alone_after_the_others(tmp_path, monkeypatch, capsys):
    pytest.importorskip("distributed")
    from fake_gpus import fake_gpu_client

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    whole = nbformat.read(TINY, as_version=4)
    whole.metadata["apsp_kernels"] = {"gpus": "all"}
    nbformat.write(whole, notebooks / "a_whole_host.ipynb")
    whole.metadata["apsp_kernels"] = {"host": "every core"}
    nbformat.write(whole, notebooks / "d_every_core.ipynb")
    for name in ("b_tiny", "c_tiny"):
        shutil.copy(TINY, notebooks / f"{name}.ipynb")
    monkeypatch.setattr(gpu, "visible_gpus", lambda: ["0", "1"])
    monkeypatch.setattr(multi_gpu, "why_not_parallel", lambda gpus, jobs: "")
    monkeypatch.setattr(multi_gpu, "local_cuda_client", fake_gpu_client)
    results = tmp_path / "results"

    assert run(notebooks, results) == 0

    out = capsys.readouterr().out
    assert "longest first: " in out and "a_whole_host" not in out.split("longest first: ")[1].splitlines()[0]
    assert out.index("with every GPU of the host, alone: a_whole_host") > out.index("c_tiny: ok")
    assert out.index("with every GPU of the host, alone: a_whole_host") > out.index("b_tiny: ok")
    alone = out.index("with one GPU and every host core, alone: d_every_core")
    assert out.index("b_tiny: ok") < alone < out.index("d_every_core: ok") < out.index("alone: a_whole_host")
    for stem in ("a_whole_host", "b_tiny", "c_tiny", "d_every_core"):
        assert json.loads((results / stem / "run.json").read_text())["status"] == "ok"
    monkeypatch.setattr(multi_gpu, "gpu_identity", lambda: {"index": "0", "name": "Fake GPU", "uuid": "u"})
    whole_info = reproduce.new_run_info(notebooks / "a_whole_host.ipynb", "smoke")
    assert whole_info["gpu"]["index"] == "all: 0, 1"
    assert reproduce.new_run_info(notebooks / "b_tiny.ipynb", "smoke")["gpu"]["index"] == "0"
    assert not reproduce.uses_every_gpu(TINY) and not reproduce.uses_every_core(TINY)
    assert reproduce.uses_every_core(notebooks / "d_every_core.ipynb")


def test_a_notebook_whose_dask_task_died_is_a_failed_run_with_what_it_wrote(tmp_path):
    results = tmp_path / "results"
    (results / "tiny_notebook").mkdir(parents=True)
    (results / "tiny_notebook" / "run.json").write_text(json.dumps({"status": "ok"}))
    staging = reproduce.staging_dir(results, "tiny_notebook")  # what the dead worker left
    staging.mkdir(parents=True)
    (staging / "tiny_notebook.ipynb").write_text("{}")
    (staging / "table_x.csv").write_text("n\n1\n")

    info = reproduce.lost_run(TINY, results, "smoke", RuntimeError("worker died"))
    failed = results / "tiny_notebook.failed"
    assert info["status"] == "failed" and "worker died" in info["error"]
    assert sorted(p.name for p in failed.iterdir()) == ["run.json", "table_x.csv", "tiny_notebook.failed.ipynb"]
    assert json.loads((failed / "run.json").read_text())["error"] == info["error"]
    assert json.loads((results / "tiny_notebook" / "run.json").read_text()) == {"status": "ok"}
    assert not staging.exists()


def test_the_paper_profile_writes_beside_the_default_results(tmp_path):
    results = tmp_path / "results"
    assert reproduce.main(["--profile", "paper", "--notebooks-dir", str(TINY.parent),
                           "--output", str(results), "tiny_notebook"]) == 0

    info = json.loads((results / "paper" / "tiny_notebook" / "run.json").read_text())
    assert info["profile"] == "paper" and not (results / "tiny_notebook").exists()
    assert "paper/tiny_notebook/fig_x.png" in (results / "README.md").read_text()


def test_previous_seconds_come_from_successful_runs(tmp_path):
    for folder, status, seconds in (("paper", "failed", 3.0), ("default", "ok", 40.0)):
        (tmp_path / folder / "nb").mkdir(parents=True)
        (tmp_path / folder / "nb" / "run.json").write_text(json.dumps({"status": status, "seconds": seconds}))
    assert reproduce.previous_seconds("nb", [tmp_path / "paper", tmp_path / "default"]) == 40.0
    assert reproduce.previous_seconds("other", [tmp_path / "paper"]) is None


def two_experiment_notebook(folder: Path, log: Path, fail_flag: Path) -> Path:
    """A notebook measuring 'first', then 'second'; each measurement appends its name to ``log``.
    While ``fail_flag`` exists it fails before 'second' (the flag saying "hang": it waits there
    until the flag is gone, then fails, so that it can be killed there)."""
    nb = nbformat.v4.new_notebook(metadata=nbformat.read(TINY, as_version=4).metadata)
    params = nbformat.v4.new_code_cell('profile = "default"\noutput_dir = "."')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(f"""
from pathlib import Path
from apsp_kernels import report
from apsp_kernels.records import Record

def experiment(name):
    with open({str(log)!r}, "a") as f:
        f.write(name + "\\n")
    return [Record(paper="tiny", experiment=name, method="m", graph="g", n=4, m=4, timing_scope="cpu",
                   time_ms_median=1.5, verified=True, profile=profile)]

first = report.measure(output_dir, "first", experiment, "first")
assert first[0].experiment == "first" and first[0].verified"""),
                nbformat.v4.new_code_cell(f"""
import time
flag = Path({str(fail_flag)!r})
hung = flag.exists() and flag.read_text() == "hang"
while hung and flag.exists():
    time.sleep(0.05)
if hung or flag.exists():
    raise RuntimeError("the device went away")
second = report.measure(output_dir, "second", experiment, "second")""")]
    folder.mkdir(exist_ok=True)
    nbformat.write(nb, folder / "two.ipynb")
    return folder


def resume(notebooks, results, *more):
    return reproduce.main(["--profile", "paper", "--notebooks-dir", str(notebooks), "--output", str(results),
                           "--resume", *more, "two"])


@pytest.fixture
def commit(monkeypatch):
    """The code's commit, as the runner and the notebooks' kernels see it."""
    def set_commit(value):
        monkeypatch.setenv("APSP_GIT_COMMIT", value)
        records.git_commit.cache_clear()
    yield set_commit
    records.git_commit.cache_clear()


def failed_after_first(tmp_path, commit):
    """A paper run of the two-experiment notebook at commit abc1234 that failed after 'first'."""
    log, flag = tmp_path / "measured.txt", tmp_path / "fail"
    notebooks, results = two_experiment_notebook(tmp_path / "notebooks", log, flag), tmp_path / "results"
    commit("abc1234")
    flag.touch()
    assert resume(notebooks, results) != 0
    return log, flag, notebooks, results


def test_resume_reuses_what_a_failed_run_measured_at_the_same_commit(tmp_path, commit, capsys):
    log, flag, notebooks, results = failed_after_first(tmp_path, commit)  # nothing to resume yet
    assert log.read_text().split() == ["first"]
    failed = results / "paper" / "two.failed"
    first_csv = (failed / "records_first.csv").read_bytes()
    assert "--resume" in capsys.readouterr().err

    flag.unlink()
    assert resume(notebooks, results) == 0
    assert log.read_text().split() == ["first", "second"]  # 'first' was not measured again
    out = results / "paper" / "two"
    info = json.loads((out / "run.json").read_text())
    assert info["status"] == "ok"
    assert list(info["resumed"]["experiments"]) == ["first"] and info["resumed"]["commit"] == "abc1234"
    assert (out / "records_first.csv").read_bytes() == first_csv and (out / "records_second.csv").exists()
    assert not (out / "resume.json").exists() and not failed.exists()
    assert "**Resumed**" in (results / "README.md").read_text()
    assert "resuming: the records of first saved by the unfinished run in two.failed/" in capsys.readouterr().out

    assert resume(notebooks, results) == 0  # a finished run leaves nothing to resume
    assert log.read_text().split() == ["first", "second", "first", "second"]
    assert "resumed" not in json.loads((out / "run.json").read_text())


def test_resume_measures_again_what_another_machine_measured(tmp_path, commit):
    log, flag, notebooks, results = failed_after_first(tmp_path, commit)
    saved = results / "paper" / "two.failed" / "records_first.csv"
    moved = [dataclasses.replace(r, device="another host's CPU") for r in records.from_csv(saved)]
    records.to_frame(moved).to_csv(saved, index=False)  # as if the failed sitting ran elsewhere

    flag.unlink()
    assert resume(notebooks, results) == 0
    assert log.read_text().split() == ["first", "first", "second"]
    executed = (results / "paper" / "two" / "two.ipynb").read_text()
    assert "first: the unfinished run's records were measured on another host's CPU" in executed
    info = json.loads((results / "paper" / "two" / "run.json").read_text())
    assert "resumed" not in info or "first" not in info["resumed"]["experiments"]


def test_resume_after_the_runner_was_killed_outright(tmp_path, commit):
    commit("abc1234")
    log, flag = tmp_path / "measured.txt", tmp_path / "hang"
    notebooks, results = two_experiment_notebook(tmp_path / "notebooks", log, flag), tmp_path / "results"
    flag.write_text("hang")
    runner = subprocess.Popen([sys.executable, "-m", "apsp_kernels.reproduce", "--profile", "paper",
                               "--notebooks-dir", str(notebooks), "--output", str(results), "two"],
                              start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    saved = reproduce.staging_dir(results / "paper", "two") / "records_first.csv"
    deadline = time.monotonic() + 120
    while not saved.exists() and runner.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(runner.pid, signal.SIGKILL)  # the runner and what shares its session, mid-notebook
    runner.wait()
    assert saved.exists() and log.read_text().split() == ["first"]
    assert not (results / "paper" / "two").exists() and not (results / "paper" / "two.failed").exists()

    flag.unlink()  # a kernel that outlived the kill stops here without measuring
    assert resume(notebooks, results) == 0
    assert log.read_text().split() == ["first", "second"]
    info = json.loads((results / "paper" / "two" / "run.json").read_text())
    assert list(info["resumed"]["experiments"]) == ["first"]


def test_resume_measures_again_what_changed_code_or_a_dirty_tree_measured(tmp_path, commit, capsys):
    log, flag, notebooks, results = failed_after_first(tmp_path, commit)
    staging = reproduce.staging_dir(results / "paper", "two")  # as if killed: the run's folder stays
    shutil.copytree(results / "paper" / "two.failed", staging)
    code = json.loads((staging / "code.json").read_text())["files"]
    assert "apsp_kernels/report.py" in code and "apsp_kernels/floyd_warshall/variants.cu" in code
    assert str((notebooks / "two.ipynb").resolve()) in code

    commit("def5678")
    nb = nbformat.read(notebooks / "two.ipynb", as_version=4)  # the notebook changed with the commit
    nb.cells.append(nbformat.v4.new_markdown_cell("a note"))
    nbformat.write(nb, notebooks / "two.ipynb")
    flag.unlink()
    assert resume(notebooks, results) == 0
    assert log.read_text().split() == ["first", "first", "second"]
    assert ("nothing to resume: the code that the unfinished run in two.failed/ executed has changed since ("
            + str((notebooks / "two.ipynb").resolve())) in capsys.readouterr().out

    commit("def5678+dirty")
    flag.touch()
    assert resume(notebooks, results) != 0
    flag.unlink()
    assert resume(notebooks, results) == 0
    assert log.read_text().split() == ["first", "first", "second", "first", "first", "second"]
    assert "not resumed: the code's commit is def5678+dirty" in capsys.readouterr().out


def test_resume_keeps_what_another_commit_measured_with_the_same_code(tmp_path, commit, capsys):
    log, flag, notebooks, results = failed_after_first(tmp_path, commit)
    first_csv = (results / "paper" / "two.failed" / "records_first.csv").read_bytes()

    commit("def5678")  # results or docs committed since: the code the run executed is the same
    assert resume(notebooks, results) != 0  # fails again, after reusing 'first'
    assert log.read_text().split() == ["first"]
    assert "(measured at abc1234; the code it executed is unchanged)" in capsys.readouterr().out
    flag.unlink()
    commit("0a1b2c3")
    assert resume(notebooks, results) == 0
    assert log.read_text().split() == ["first", "second"]
    out = results / "paper" / "two"
    info = json.loads((out / "run.json").read_text())
    assert info["resumed"]["commit"] == "abc1234"  # the records keep the commit that measured them
    assert (out / "records_first.csv").read_bytes() == first_csv
    assert set(pd.read_csv(out / "records_second.csv")["git_commit"]) == {"0a1b2c3"}


def test_code_identity_names_what_changed(tmp_path):
    from apsp_kernels import code_identity
    (tmp_path / "pkg").mkdir()
    a, b = tmp_path / "pkg" / "a.py", tmp_path / "pkg" / "b.cu"
    a.write_text("x = 1\n"), b.write_text("// kernel\n")
    (tmp_path / "run").mkdir()
    saved = code_identity.record(tmp_path / "run", extra=[a, b], loaded=False, root=tmp_path)
    assert list(saved["files"]) == ["pkg/a.py", "pkg/b.cu"]
    assert code_identity.changed(code_identity.read(tmp_path / "run"), root=tmp_path) == []
    a.write_text("x = 2\n")
    b.unlink()
    assert code_identity.changed(saved, root=tmp_path) == ["pkg/a.py", "pkg/b.cu"]
    assert code_identity.changed({}, root=tmp_path) == ["(no code.json)"]


def test_measure_without_the_runners_resume_always_measures(tmp_path):
    calls = []

    def experiment():
        calls.append(1)
        return [records.Record(paper="p", experiment="e", method="m", graph="g", n=1, m=0, timing_scope="cpu")]

    report.measure(tmp_path, "e", experiment)
    report.measure(tmp_path, "e", experiment)  # an earlier run's records in the folder are not reused
    assert len(calls) == 2 and len(records.from_csv(tmp_path / "records_e.csv")) == 1


NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_runs_in_the_smoke_profile(notebook, tmp_path):
    """What CI can check of the notebooks without a GPU: they run to the end (GPU parts skipped)."""
    assert run(notebook.parent, tmp_path, notebook.stem) == 0, \
        json.loads((tmp_path / f"{notebook.stem}.failed" / "run.json").read_text())["error"]
