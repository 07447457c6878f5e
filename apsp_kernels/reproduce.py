"""Run the notebooks and collect their results.

    python -m apsp_kernels.reproduce --profile smoke|default|paper [--output results] [NAME ...]
    python -m apsp_kernels.reproduce --list
    python -m apsp_kernels.reproduce --fetch-data

Each ``notebooks/<stem>.ipynb`` (all of them, sorted, or the stems named) runs under
papermill with the parameters ``profile`` and ``output_dir`` (``results/<stem>``, given
relative to the notebook, which runs with ``notebooks/`` as its working directory).
The executed notebook becomes ``results/<stem>/<stem>.ipynb`` only once it has run
through; a failed run keeps its partial output as ``<stem>.failed.ipynb``. A failure
does not stop the other notebooks. ``run.json`` gets the profile, device, start time,
duration, status and error; then the gallery (``results/README.md``) is regenerated.
The exit status is non-zero when a notebook failed.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
import warnings
from pathlib import Path

from . import gallery, gpu
from .profiles import PROFILES
from .records import write_atomic

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
KERNEL_NAME = "python3"  # ipykernel's own spec: the interpreter running this module


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
    path = out_dir / "run.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data.update(info)
    data["title"] = data.get("title") or title
    write_atomic(path, lambda tmp: Path(tmp).write_text(json.dumps(data, indent=2, default=str) + "\n"))


def run_notebook(notebook: Path, results: Path, profile: str) -> dict:
    """Execute one notebook into ``results/<stem>/``; return its run info (never raises on failure)."""
    import papermill

    stem = notebook.stem
    out_dir = results / stem
    out_dir.mkdir(parents=True, exist_ok=True)
    final, failed = out_dir / f"{stem}.ipynb", out_dir / f"{stem}.failed.ipynb"
    info = {"notebook": stem, "profile": profile, "device": gpu.device_info()["device"],
            "device_info": gpu.device_info(),
            "started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "seconds": 0.0, "status": "failed", "error": "", "executed_notebook": ""}
    tmp = out_dir / f".{stem}.running-{os.getpid()}.ipynb"  # same folder: the rename is atomic
    t0 = time.perf_counter()
    try:
        papermill.execute_notebook(
            str(notebook), str(tmp), kernel_name=KERNEL_NAME, cwd=str(notebook.parent),
            parameters={"profile": profile, "output_dir": os.path.relpath(out_dir, notebook.parent)},
            progress_bar=sys.stderr.isatty(), log_output=False)
        os.replace(tmp, final)
        failed.unlink(missing_ok=True)
        info.update(status="ok", executed_notebook=final.name)
    except Exception as exc:  # any failure of one notebook is reported, the others still run
        info["error"] = describe(exc)
        if tmp.exists() and tmp.stat().st_size > 0:
            os.replace(tmp, failed)
            info["executed_notebook"] = failed.name
    finally:
        info["seconds"] = round(time.perf_counter() - t0, 1)
        tmp.unlink(missing_ok=True)
    write_run_json(out_dir, info, title=heading(notebook) or stem)
    return info


def summary(runs: list[dict], results: Path) -> str:
    width = max([len(r["notebook"]) for r in runs] + [8])
    lines = [f"{'notebook':<{width}}  {'status':<6}  {'seconds':>8}  output"]
    for r in runs:
        where = results / r["notebook"] / r["executed_notebook"] if r["executed_notebook"] else "-"
        lines.append(f"{r['notebook']:<{width}}  {r['status']:<6}  {r['seconds']:>8.1f}  {where}")
    return "\n".join(lines)


def run_all(notebooks: list[Path], results: Path, profile: str) -> list[dict]:
    let_kernels_import_package()
    print(f"profile {profile} on {gpu.device_info()['device']}; results in {results}/", flush=True)
    runs = []
    for i, nb in enumerate(notebooks, 1):
        tag = f"[{i}/{len(notebooks)}] {nb.stem}"
        print(f"{tag}: running ...", flush=True)
        r = run_notebook(nb, results, profile)
        if r["status"] == "ok":
            print(f"{tag}: ok in {r['seconds']:.1f} s -> {results / nb.stem / r['executed_notebook']}",
                  flush=True)
        else:
            kept = (f"; the partial notebook is kept as {results / nb.stem / r['executed_notebook']}"
                    if r["executed_notebook"] else "")
            print(f"{tag}: FAILED after {r['seconds']:.1f} s: {r['error']}{kept}", flush=True)
        runs.append(r)
    return runs


def fetch_data() -> int:
    """Load every dataset once (download, mirror or cache), standing in for what is unavailable."""
    from . import datasets
    from .errors import DatasetUnavailable

    print(f"data mirror: {os.environ.get('APSP_DATA_MIRROR') or '(none: APSP_DATA_MIRROR is unset)'}")
    errors = 0
    for name in datasets.names():
        try:
            with warnings.catch_warnings():  # the stand-in warning: the line below says it
                warnings.simplefilter("ignore", UserWarning)
                g = datasets.load_or_stand_in(name)
        except (DatasetUnavailable, OSError) as exc:  # offline: the notebooks stand in themselves
            print(f"  {name}: unavailable here ({exc})")
            continue
        except Exception as exc:  # a corrupt or mismatching file is a real problem
            errors += 1
            print(f"  {name}: ERROR {type(exc).__name__}: {exc}")
            continue
        what = "STAND-IN" if g.is_stand_in else "ok"
        origin = g.meta.get("label") or g.meta.get("source") or ""
        print(f"  {name}: {what}: {g.n:,} vertices, {g.m:,} arcs {f'({origin})' if origin else ''}".rstrip())
    return 1 if errors else 0


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m apsp_kernels.reproduce",
                                description="Execute the notebooks with papermill and render the results gallery.")
    p.add_argument("names", nargs="*", metavar="NOTEBOOK", help="notebook stems to run (default: all)")
    p.add_argument("--profile", choices=PROFILES, default="default",
                   help="smoke: seconds (CI); default: every table and figure; paper: full sizes")
    p.add_argument("--output", type=Path, default=Path("results"), help="results folder (default: results)")
    p.add_argument("--notebooks-dir", type=Path, default=Path("notebooks"),
                   help="where the notebooks are (default: notebooks)")
    p.add_argument("--list", action="store_true", help="list the notebooks and exit")
    p.add_argument("--fetch-data", action="store_true", help="fetch or stand in for every dataset and exit")
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
    if args.fetch_data:
        return fetch_data()
    notebooks = find_notebooks(args.notebooks_dir, args.names)
    if args.list:
        for nb in notebooks:
            print(f"{nb.stem:<28} {heading(nb)}".rstrip())
        return 0
    if not notebooks:
        print(f"no notebooks in {args.notebooks_dir}", file=sys.stderr)
        return 1
    args.output = protect_gpu_results(args.output, args.profile)
    runs = run_all(notebooks, args.output, args.profile)
    print(f"\ngallery: {gallery.write(args.output)}\n")
    print(summary(runs, args.output))
    failed = [r["notebook"] for r in runs if r["status"] != "ok"]
    if failed:
        print(f"\n{len(failed)} of {len(runs)} notebooks failed: {', '.join(failed)} "
              f"(see run.json and <stem>.failed.ipynb under {args.output}/)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
