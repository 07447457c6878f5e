"""Run the notebooks and collect their results.

    python -m apsp_kernels.reproduce --profile smoke|default|paper [--output results] [NAME ...]
    python -m apsp_kernels.reproduce --list
    python -m apsp_kernels.reproduce --fetch-data [--profile P] [--download] [NAME ...]

Each ``notebooks/<stem>.ipynb`` (all of them, sorted, or the stems named) runs under
papermill with the parameters ``profile`` and ``output_dir`` (given relative to the
notebook, which runs with ``notebooks/`` as its working directory). A run writes into
``results/.running/<stem>/``; only once the notebook has run through does that folder
replace ``results/<stem>/`` (so a results folder never mixes two runs, nor holds half a
run; the device runs kept beside them, subfolders with a README, move into the new one). A failed
run leaves the previous results as they were and becomes
``results/<stem>.failed/`` (its partial notebook ``<stem>.failed.ipynb``, run.json with the
error), which the next successful run removes. A run killed outright leaves only
``.running/<stem>/``, cleared when the notebook runs again. ``--resume`` instead keeps the
experiments such an unfinished run (killed, or failed) measured in full for the same profile,
at the same commit or at another whose code that run executed is unchanged
(:mod:`apsp_kernels.code_identity`), and the notebook runs again without measuring them
(``report.measure``, which lists them in run.json's ``resumed``). A failure does not stop the
other notebooks. ``run.json`` gets the profile, device, the GPU that ran it, start time,
duration, status and error; then the gallery (``results/README.md``) is regenerated. The
exit status is non-zero when a notebook failed.

On a host with more than one GPU (and dask-cuda installed) the notebooks run at once,
one per GPU, longest first (:mod:`apsp_kernels.multi_gpu`); otherwise one after another.
Side by side they share the host's CPU cores, so their host-clock timings and oracle runs take
turns (:mod:`apsp_kernels.host_cpu`; run.json's ``side_by_side`` says so).
The ``paper`` profile writes to ``results/paper/<stem>`` so that the default results stay.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import functools
import importlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from . import code_identity, gallery, gpu, host_cpu, multi_gpu, report
from .profiles import PROFILES
from .records import git_commit, write_json
from .report import RESUME_FILE

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
KERNEL_NAME = "python3"  # ipykernel's own spec: the interpreter running this module
STAGING = ".running"
SIDE_BY_SIDE_ENV = "APSP_NOTEBOOKS_SIDE_BY_SIDE"  # set while the runner runs notebooks on several GPUs at once


def find_notebooks(notebooks_dir: Path, names=()) -> list[Path]:
    """The notebooks to run: every ``*.ipynb`` (sorted) or those whose stems are named."""
    found = {p.stem: p for p in sorted(Path(notebooks_dir).glob("*.ipynb"))}
    if not names:
        return list(found.values())
    stems = [Path(n).name.removesuffix(".ipynb") for n in names]
    unknown = [s for s in stems if s not in found]
    if unknown:
        raise SystemExit(f"no notebook {', '.join(unknown)} in {notebooks_dir}; "
                         f"there are: {', '.join(found) or 'none'}")
    return [found[s] for s in stems]


def heading(notebook: Path) -> str:
    """The first markdown heading of a notebook ('' when it has none)."""
    try:
        cells = json.loads(Path(notebook).read_text())["cells"]
    except (OSError, ValueError, KeyError):
        return ""
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            for line in "".join(cell.get("source", "")).splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return ""


def describe(exc: BaseException) -> str:
    """One line for run.json: the notebook's own error when a cell raised."""
    ename, evalue = getattr(exc, "ename", None), getattr(exc, "evalue", None)
    if ename:  # papermill.PapermillExecutionError
        text = f"cell [{getattr(exc, 'exec_count', '?')}]: {ename}: {evalue}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    text = " ".join(text.split())
    return text if len(text) <= 500 else text[:497] + "..."


def let_kernels_import_package() -> None:
    """Kernels run in notebooks/: put this checkout on their PYTHONPATH (no install needed)."""
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if str(PACKAGE_ROOT) not in parts:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + parts)


def write_run_json(out_dir: Path, info: dict, title: str) -> None:
    """Merge the runner's keys into run.json, keeping what the notebook set (its title)."""
    report.write_run_info(out_dir, **info, title=report.read_run(out_dir).get("title") or title)


def new_run_info(notebook: Path, profile: str) -> dict:
    """run.json's keys for a run starting now in this process, status 'failed' until it succeeds."""
    identity = multi_gpu.gpu_identity()
    if identity and uses_every_gpu(notebook):
        gpus = gpu.visible_gpus()
        identity = {"index": "all: " + ", ".join(gpus), "name": identity["name"], "uuid": ""}
    return {"notebook": notebook.stem, "profile": profile, "device": gpu.device_info()["device"],
            "device_info": gpu.device_info(), "gpu": identity,
            "started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "seconds": 0.0, "status": "failed", "error": "", "executed_notebook": ""} | side_by_side()


def side_by_side() -> dict:
    """run.json's note that other notebooks ran at the same time on this host's other GPUs (the
    runner ran them so), or that its host-clock timings took a CPU lock its caller named."""
    if os.environ.get(SIDE_BY_SIDE_ENV):
        return {"side_by_side": "beside notebooks on the host's other GPUs; host-clock timings took turns "
                                "on the CPU cores with theirs, as did the oracle (apsp_kernels.host_cpu)"}
    if os.environ.get(host_cpu.ENV):
        return {"side_by_side": f"the only notebook this runner ran at the time; its host-clock timings and "
                                f"oracle held the host CPU lock named in {host_cpu.ENV}, taking turns with "
                                f"any run beside it that shares the lock (apsp_kernels.host_cpu)"}
    return {}


def staging_dir(results: Path, stem: str) -> Path:
    """Where a run of ``stem`` writes until it has run through (beside ``results/<stem>``: renames are atomic)."""
    return results / STAGING / stem


def commits_of(records_csv: Path, profile: str) -> set[str]:
    """The commits that measured a saved experiment (all of it, or the part a sweep that saves as
    it goes had finished) when its every record is of ``profile``; empty otherwise, or when one
    of them came from an uncommitted tree (it could not be traced)."""
    try:
        df = pd.read_csv(records_csv, dtype=str, keep_default_na=False)
    except (OSError, ValueError):
        return set()
    commits = set(df["git_commit"]) if len(df) and set(df["profile"]) == {profile} else set()
    return set() if any(not c or c.endswith("+dirty") for c in commits) else commits


def keep_measured(results: Path, stem: str, profile: str) -> dict:
    """For ``--resume``: a fresh staging folder holding the experiments an unfinished run of ``stem``
    (killed: ``.running/<stem>/``; failed: ``<stem>.failed/``) saved for this profile, at this
    commit or at another whose code that run executed is unchanged (:mod:`code_identity`), and
    ``resume.json`` naming them. Returns what resume.json says, or {} (nothing to reuse)."""
    commit = git_commit()
    if not commit or commit.endswith("+dirty"):
        print(f"{stem}: not resumed: the code's commit is {commit or 'unknown'}, so an earlier run's "
              "measurements cannot be shown to come from the same code (commit first)", flush=True)
        return {}
    staging = staging_dir(results, stem)
    why = f"no unfinished {profile} run at commit {commit}"
    for source in (staging, gallery.failed_dir(results / stem)):
        saved = {p: commits_of(p, profile) for p in sorted(source.glob("records_*.csv"))}
        differs = None if all(c <= {commit} for c in saved.values()) else \
            code_identity.changed(code_identity.read(source))
        kept = [p for p, c in saved.items() if c and (c == {commit} or not differs)]
        if kept:
            break
        if differs:
            why = (f"the code that the unfinished run in {source.name}/ executed has changed since "
                   f"({', '.join(differs[:3])}{', ...' if len(differs) > 3 else ''})")
    else:
        print(f"{stem}: nothing to resume: {why}", flush=True)
        return {}
    commits = sorted(set().union(*(saved[p] for p in kept)))
    resumed = {"commit": ", ".join(commits), "experiments": [p.stem.removeprefix("records_") for p in kept]}
    fresh = staging.with_name(f"{stem}.resume")
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir(parents=True)
    for p in kept:
        shutil.copy2(p, fresh / p.name)
    if (source / code_identity.FILE).exists():  # what those records' code was, for a later resume
        shutil.copy2(source / code_identity.FILE, fresh / code_identity.FILE)
    write_json(fresh / RESUME_FILE, resumed)
    shutil.rmtree(staging, ignore_errors=True)
    os.replace(fresh, staging)
    other = [c for c in commits if c != commit]
    print(f"{stem}: resuming: the records of {', '.join(resumed['experiments'])} saved by the unfinished run "
          f"in {source.name}/ are kept for the notebook to reuse"
          + (f" (measured at {', '.join(other)}; the code it executed is unchanged)" if other else ""), flush=True)
    return resumed


def keep_beside_runs(target: Path, staging: Path) -> list[str]:
    """Move into the new run's folder the device runs kept beside the notebook's results (their
    subfolders with a README, :func:`.gallery.beside_runs`): no run of the notebook writes them, so
    a run that replaces the folder must not lose them. A subfolder the new run wrote itself wins.
    Returns the names moved."""
    if not target.is_dir():
        return []
    moved = []
    for sub, _ in gallery.beside_runs(target):
        if not (staging / sub.name).exists():
            os.replace(sub, staging / sub.name)
            moved.append(sub.name)
    return moved


def replace_dir(new: Path, target: Path) -> None:
    """Put the folder ``new`` where ``target`` is, removing the old ``target``."""
    if target.exists():
        old = new.with_name(f"{new.name}.replaced")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(target, old)
        os.replace(new, target)
        shutil.rmtree(old)
    else:
        os.replace(new, target)


def keep_partial_notebook(folder: Path, stem: str) -> str:
    """Rename the partial executed notebook of a failed run to ``<stem>.failed.ipynb``; its name, or ''."""
    partial = folder / f"{stem}.ipynb"
    if not partial.exists():
        return ""
    if partial.stat().st_size == 0:
        partial.unlink()
        return ""
    partial.rename(folder / f"{stem}.failed.ipynb")
    return f"{stem}.failed.ipynb"


def annotate_verdicts(folder: Path, stem: str) -> None:
    """Each verdict's basis and record ids, from the driver's EVIDENCE (apsp_kernels.verdicts)."""
    from . import verdicts
    try:
        evidence = importlib.import_module(f"apsp_kernels.experiments.{stem}").EVIDENCE
    except (ImportError, AttributeError):
        evidence = []
    verdicts.annotate(folder, evidence)


def publish(notebook: Path, results: Path, info: dict) -> dict:
    """Write run.json into the run's folder and move it into place: a run through becomes
    ``results/<stem>/`` (and any earlier failure is gone), else ``<stem>.failed/``. Returns ``info``."""
    stem = notebook.stem
    staging = staging_dir(results, stem)
    (staging / RESUME_FILE).unlink(missing_ok=True)  # what was reused: run.json's "resumed" (report.measure)
    annotate_verdicts(staging, stem)
    write_run_json(staging, info, title=heading(notebook) or stem)
    if info["status"] == "ok":
        (staging / code_identity.FILE).unlink(missing_ok=True)  # only a resume reads it; the records name their commit
        keep_beside_runs(results / stem, staging)
        replace_dir(staging, results / stem)
        shutil.rmtree(gallery.failed_dir(results / stem), ignore_errors=True)
    else:
        replace_dir(staging, gallery.failed_dir(results / stem))
    return info


# No widget frontend watches a headless run: tqdm.auto falls back to its text bar, which is what
# the executed notebook should hold, but first warns into the cell that ipywidgets is missing.
HEADLESS_WARNINGS = ("ignore:IProgress not found",)


def ipc_kernel_manager(folder: str):
    """A kernel manager for headless runs: the kernel talks over Unix sockets in ``folder`` (it is
    local, and over TCP ipykernel prints a warning about unencrypted traffic into every run), and
    ignores the warnings in ``HEADLESS_WARNINGS``, which only a frontend could act on."""
    from jupyter_client.manager import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(transport="ipc", ip=os.path.join(folder, "kernel"), **kwargs)

        async def start_kernel(self, **kwargs):
            env = dict(kwargs.pop("env", None) or os.environ)
            env["PYTHONWARNINGS"] = ",".join(filter(None, [env.get("PYTHONWARNINGS"), *HEADLESS_WARNINGS]))
            return await super().start_kernel(env=env, **kwargs)

        async def _async_interrupt_kernel(self):
            # jupyter_client interrupts a kernel before asking it to shut down; a headless run's kernel is
            # idle by then, and the SIGINT, racing the shutdown, had ipykernel log "KeyboardInterrupt caught
            # in kernel" to stderr in some runs. Only the shutdown calls this method (interrupt_kernel is the
            # base class's), so an interrupt asked for at other times still goes out.
            if not self.shutting_down:
                await super()._async_interrupt_kernel()

    return IPCKernelManager


def run_notebook(notebook: Path, results: Path, profile: str, resume: bool = False) -> dict:
    """Execute one notebook into ``results/<stem>/`` (see the module's docstring); return its run
    info (never raises on failure)."""
    import papermill

    let_kernels_import_package()  # also in a Dask worker: its kernel needs the package too
    stem = notebook.stem
    staging = staging_dir(results, stem)
    if not (resume and keep_measured(results, stem, profile)):
        shutil.rmtree(staging, ignore_errors=True)  # what a run killed outright left
        staging.mkdir(parents=True)
    code_identity.record(staging, extra=[notebook], loaded=False)
    info = new_run_info(notebook, profile)
    executed = staging / f"{stem}.ipynb"
    t0 = time.perf_counter()
    sockets = tempfile.mkdtemp(prefix="apsp-kernel-")
    try:
        papermill.execute_notebook(
            str(notebook), str(executed), kernel_name=KERNEL_NAME, cwd=str(notebook.parent),
            parameters={"profile": profile, "output_dir": os.path.relpath(staging, notebook.parent)},
            progress_bar=sys.stderr.isatty(), log_output=False,
            kernel_manager_class=ipc_kernel_manager(sockets))
        info.update(status="ok", executed_notebook=executed.name)
    except Exception as exc:  # any failure of one notebook is reported, the others still run
        info["error"] = describe(exc)
        info["executed_notebook"] = keep_partial_notebook(staging, stem)
    finally:
        info["seconds"] = round(time.perf_counter() - t0, 1)
        shutil.rmtree(sockets, ignore_errors=True)
    return publish(notebook, results, info)


def output_folder(results: Path, run: dict) -> Path:
    """Where a run's output went: ``results/<stem>/``, or ``results/<stem>.failed/``."""
    folder = results / run["notebook"]
    return folder if run["status"] == "ok" else gallery.failed_dir(folder)


def summary(runs: list[dict], results: Path) -> str:
    width = max([len(r["notebook"]) for r in runs] + [8])
    lines = [f"{'notebook':<{width}}  {'status':<6}  {'seconds':>8}  output"]
    for r in runs:
        where = output_folder(results, r) / r["executed_notebook"] if r["executed_notebook"] else "-"
        lines.append(f"{r['notebook']:<{width}}  {r['status']:<6}  {r['seconds']:>8.1f}  {where}")
    return "\n".join(lines)


def report_done(tag: str, r: dict, results: Path) -> None:
    if r["status"] == "ok":
        print(f"{tag}: ok in {r['seconds']:.1f} s -> {output_folder(results, r) / r['executed_notebook']}",
              flush=True)
    else:
        kept = f"; its partial output is in {output_folder(results, r)}/" if r["executed_notebook"] else ""
        earlier = results / r["notebook"]
        if earlier.is_dir():
            kept += f" ({earlier}/ keeps the earlier run)"
        print(f"{tag}: FAILED after {r['seconds']:.1f} s: {r['error']}{kept}", flush=True)


def previous_seconds(stem: str, folders) -> float | None:
    """How long the last successful run of ``stem`` took, from the first folder whose run.json says."""
    for folder in folders:
        run = report.read_run(Path(folder) / stem)
        if run.get("status") == "ok" and "seconds" in run:
            return float(run["seconds"])
    return None


def lost_run(notebook: Path, results: Path, profile: str, exc: BaseException) -> dict:
    """The run info of a notebook whose Dask task itself failed (its worker died, say); what the
    task had written becomes ``results/<stem>.failed/``."""
    info = new_run_info(notebook, profile) | {"gpu": {}, "error": f"the Dask task failed: {describe(exc)}"}
    staging = staging_dir(results, notebook.stem)
    staging.mkdir(parents=True, exist_ok=True)
    info["executed_notebook"] = keep_partial_notebook(staging, notebook.stem)
    return publish(notebook, results, info)


def run_sequentially(notebooks: list[Path], run_one, results: Path) -> list[dict]:
    """``run_one(notebook)`` (:func:`run_notebook` with its settings bound) for each in turn."""
    runs = []
    for i, nb in enumerate(notebooks, 1):
        tag = f"[{i}/{len(notebooks)}] {nb.stem}"
        print(f"{tag}: running ...", flush=True)
        runs.append(run_one(nb))
        report_done(tag, runs[-1], results)
    return runs


@contextlib.contextmanager
def notebooks_side_by_side():
    """While the block runs, processes started from this one know that notebooks run at once."""
    os.environ[SIDE_BY_SIDE_ENV] = "1"
    try:
        yield
    finally:
        os.environ.pop(SIDE_BY_SIDE_ENV, None)


def run_on_every_gpu(notebooks: list[Path], run_one, results: Path, profile: str, gpus: list[str],
                     make_client, timed_in=()) -> list[dict]:
    """One notebook per GPU at a time on Dask, longest first (run_all puts the runs back in order)."""
    order = multi_gpu.longest_first(notebooks, lambda nb: previous_seconds(nb.stem, [results, *timed_in]))
    print(f"{len(gpus)} GPUs ({', '.join(gpus)}): one notebook per GPU at a time on Dask, longest first: "
          f"{', '.join(nb.stem for nb in order)}", flush=True)
    position = {}

    def on_start(nb, gpu_id):
        position[nb.stem] = f"[{len(position) + 1}/{len(order)}] {nb.stem}"
        print(f"{position[nb.stem]}: running on GPU {gpu_id} ...", flush=True)

    try:
        with host_cpu.shared_by_notebooks(tempfile.gettempdir()), notebooks_side_by_side():
            runs = multi_gpu.run_on_gpus(
                order, run_one, gpus, make_client, on_start=on_start,
                on_done=lambda nb, r: report_done(position[nb.stem], r, results),
                on_error=lambda nb, exc: lost_run(nb, results, profile, exc))
    except Exception as exc:
        if position:  # notebooks have run: running them again in turn would not help
            raise
        print(f"the Dask cluster did not start ({describe(exc)}): the notebooks run one after another",
              flush=True)
        return run_sequentially(notebooks, run_one, results)
    return runs


def run_all(notebooks: list[Path], results: Path, profile: str, sequential: bool = False,
            make_client=None, timed_in=(), resume: bool = False) -> list[dict]:
    """Run the notebooks, at once on every GPU when the host has several (and dask-cuda), else in turn.

    ``timed_in``: more results folders whose run.json give the expected durations; ``resume``:
    reuse what unfinished runs measured (see the module's docstring).
    """
    let_kernels_import_package()
    print(f"profile {profile} on {gpu.device_info()['device']}; results in {results}/", flush=True)
    run_one = functools.partial(run_notebook, results=results, profile=profile, resume=resume)
    whole_host = [nb for nb in notebooks if uses_every_gpu(nb)]
    every_core = [nb for nb in notebooks if nb not in whole_host and uses_every_core(nb)]
    one_gpu = [nb for nb in notebooks if nb not in whole_host and nb not in every_core]
    gpus = gpu.visible_gpus()
    why = "--sequential" if sequential else multi_gpu.why_not_parallel(gpus, len(one_gpu))
    if why:
        if len(gpus) > 1 or sequential:
            print(f"{why}: the notebooks run one after another", flush=True)
        runs = run_sequentially(one_gpu, run_one, results)
    else:
        runs = run_on_every_gpu(one_gpu, run_one, results, profile, gpus,
                                make_client or multi_gpu.local_cuda_client, timed_in)
    if every_core:
        print(f"with one GPU and every host core, alone: {', '.join(nb.stem for nb in every_core)}", flush=True)
        runs += run_sequentially(every_core, run_one, results)
    if whole_host:
        print(f"with every GPU of the host, alone: {', '.join(nb.stem for nb in whole_host)}", flush=True)
        runs += run_sequentially(whole_host, run_one, results)
    by_stem = {r["notebook"]: r for r in runs}
    return [by_stem[nb.stem] for nb in notebooks]


def uses_every_gpu(notebook: Path) -> bool:
    """Whether the notebook spreads its own work over the host's GPUs (metadata apsp_kernels.gpus = "all"):
    it then runs alone, after the others, with every GPU visible."""
    return _runner_metadata(notebook).get("gpus") == "all"


def uses_every_core(notebook: Path) -> bool:
    """Whether the notebook times CPU peers on every host core (metadata apsp_kernels.host = "every core"):
    it then runs alone on one GPU, after the one-GPU notebooks, so that neither slows the other's host
    timings nor waits minutes for the host-CPU lock they would share."""
    return _runner_metadata(notebook).get("host") == "every core"


def _runner_metadata(notebook: Path) -> dict:
    try:
        return json.loads(Path(notebook).read_text()).get("metadata", {}).get("apsp_kernels", {})
    except (OSError, ValueError):
        return {}


def fetch_data(stems, profile: str) -> int:
    """Load once each dataset the notebooks ``stems`` need in ``profile`` (cache, mirror or download;
    the parsed graph is cached) and say once which ones the notebooks will stand in for, and why."""
    from . import datasets
    from .datasets import fetch, needs
    from .errors import DatasetUnavailable

    print(f"data mirror: {fetch.mirror_dir() or f'(none: {fetch.ENV_MIRROR} is unset)'}; cache: {fetch.cache_dir()}")
    wanted = needs.needed(stems, profile) if stems else datasets.names()
    scope = f"the {profile} profile of {', '.join(stems)} needs" if stems else "no notebooks found: every dataset"
    print(f"datasets {scope}: {', '.join(wanted) or 'none'}")
    errors, stood_in = 0, []
    for name in wanted:
        try:
            g = datasets.load(name)
        except (DatasetUnavailable, OSError) as exc:
            stood_in.append(name)
            if fetch.no_download_reason() is None or isinstance(exc, OSError):  # say what was tried
                print(f"  {name}: unavailable ({exc})")
            continue
        except Exception as exc:  # a corrupt or mismatching file is a real problem
            errors += 1
            print(f"  {name}: ERROR {type(exc).__name__}: {exc}")
            continue
        print(f"  {name}: ok: {g.n:,} vertices, {g.m:,} arcs ({g.meta.get('source')})")
    if stood_in:
        why = fetch.no_download_reason() or "their downloads failed"
        print(f"the notebooks stand in for {', '.join(stood_in)} (labelled road-like graphs of the same size, "
              f"not the papers' data): not in the cache or the mirror, and {why}")
    return 1 if errors else 0


def data_note(stems, profile: str) -> str | None:
    """One line on the datasets the run needs that are not on this machine and what the notebooks do
    instead (download or labelled stand-ins), or None when every one is here."""
    from .datasets import fetch, get, needs

    missing = [name for name in needs.needed(stems, profile) if fetch.find_local(get(name)) is None]
    if not missing:
        return None
    reason = fetch.no_download_reason()
    action = (f"the notebooks download them into {fetch.cache_dir()}" if reason is None
              else f"{reason}: the notebooks use labelled stand-ins")
    return f"datasets not in the cache or the mirror: {', '.join(missing)}; {action}"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m apsp_kernels.reproduce",
                                description="Execute the notebooks with papermill and render the results gallery.")
    p.add_argument("names", nargs="*", metavar="NOTEBOOK", help="notebook stems to run (default: all)")
    p.add_argument("--profile", choices=PROFILES, default="default",
                   help="smoke: seconds (CI); default: every table and figure; paper: full sizes")
    p.add_argument("--output", type=Path, default=Path("results"), help="results folder (default: results)")
    p.add_argument("--notebooks-dir", type=Path, default=Path("notebooks"),
                   help="where the notebooks are (default: notebooks)")
    p.add_argument("--sequential", action="store_true",
                   help="one notebook after another even on a host with several GPUs")
    p.add_argument("--resume", action="store_true",
                   help="reuse the experiments an unfinished (killed or failed) run of the same profile "
                        "and commit measured in full")
    p.add_argument("--list", action="store_true", help="list the notebooks and exit")
    p.add_argument("--fetch-data", action="store_true",
                   help="fetch or stand in for the datasets the notebooks (all, or those named) need in the "
                        "profile, and exit")
    p.add_argument("--download", action="store_true",
                   help="download the datasets missing from the cache even while a mirror is set "
                        "(as APSP_DATA_DOWNLOAD=1; without it a mirror's gaps are stood in for at once)")
    return p.parse_args(argv)


def protect_gpu_results(output: Path, profile: str) -> Path:
    """Keep a run without a GPU (or a smoke run) from overwriting the committed GPU results.

    ``results/`` holds what a GPU run produced; a CPU-only or smoke run of the default
    output goes to ``build/results-<why>/`` instead, and says so.
    """
    committed = Path(__file__).resolve().parent.parent / "results"
    if output.resolve() != committed:
        return output
    why = "no-gpu" if not gpu.available() else "smoke" if profile == "smoke" else ""
    if not why:
        return output
    redirected = committed.parent / "build" / f"results-{why}"
    print(f"{'no CUDA GPU here' if why == 'no-gpu' else 'smoke profile'}: writing to {redirected}/ "
          f"so that the GPU results committed in results/ stay as they are", file=sys.stderr)
    return redirected


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.download:
        from .datasets import fetch
        os.environ[fetch.ENV_DOWNLOAD] = "1"  # for the notebooks' kernels too
    notebooks = find_notebooks(args.notebooks_dir, args.names)
    if args.fetch_data:
        return fetch_data([nb.stem for nb in notebooks], args.profile)
    if args.list:
        for nb in notebooks:
            print(f"{nb.stem:<28} {heading(nb)}".rstrip())
        return 0
    if not notebooks:
        print(f"no notebooks in {args.notebooks_dir}", file=sys.stderr)
        return 1
    note = data_note([nb.stem for nb in notebooks], args.profile)
    if note:
        print(note, file=sys.stderr)
    args.output = protect_gpu_results(args.output, args.profile)
    results = gallery.profile_dir(args.output, args.profile)
    runs = run_all(notebooks, results, args.profile, sequential=args.sequential, timed_in=[args.output],
                   resume=args.resume)
    print(f"\ngallery: {gallery.write(args.output)}\n")
    print(summary(runs, results))
    failed = [r["notebook"] for r in runs if r["status"] != "ok"]
    if failed:
        print(f"\n{len(failed)} of {len(runs)} notebooks failed: {', '.join(failed)} "
              f"(see run.json and the partial notebook in {results}/<stem>.failed/; "
              f"{results}/<stem>/ keeps the last run that went through; --resume runs them again "
              f"without measuring again what they measured in full)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
