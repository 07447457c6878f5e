"""Notebook helpers: published numbers, results files, verdicts and labelled figures.

Every file goes to ``results/<notebook>/`` in the layout the gallery reads
(see :mod:`apsp_kernels.gallery`). Writes are atomic.
"""
from __future__ import annotations

import io
from importlib import resources
from pathlib import Path

import pandas as pd

from . import code_identity, gpu, provenance
from .records import Record, from_csv, read_json, this_device, to_frame, write_atomic, write_csv, write_json
from .verdicts import VERDICT_COLUMNS

PUBLISHED_DIR = resources.files("apsp_kernels") / "data" / "published"  # inside the package: any install reads it
TRANSCRIPTIONS = PUBLISHED_DIR / "transcriptions.csv"
RESUME_FILE = "resume.json"  # the runner's list of experiments to reuse (reproduce --resume)
GOAL_GPU = "NVIDIA H100 80GB HBM3"  # the GPU the project's goals in seconds were set for


def transcriptions() -> pd.DataFrame:
    """The one transcription table, ``apsp_kernels/data/published/transcriptions.csv``: a row per
    published cell (paper, table, row, column, value, page: where in the paper's text it stands)."""
    with TRANSCRIPTIONS.open("r", encoding="utf-8") as f:
        return pd.read_csv(f, dtype=str, keep_default_na=False)


def published(paper: str, table: str) -> pd.DataFrame:
    """A published table, rebuilt from its cells in :func:`transcriptions` (a ``source``
    column holds each row's page)."""
    cells = transcriptions()
    cells = cells[(cells["paper"] == paper) & (cells["table"] == table) & (cells["column"] != "#caption")]
    if cells.empty:
        raise FileNotFoundError(f"no transcribed table {paper}/{table} in {TRANSCRIPTIONS}; "
                                "transcribe it from shared/papers first")
    wide = cells.pivot(index="row", columns="column", values="value")
    wide = wide.loc[sorted(wide.index, key=int), list(dict.fromkeys(cells["column"]))]
    wide["source"] = cells.groupby("row")["page"].first().loc[wide.index]
    return pd.read_csv(io.StringIO(wide.to_csv(index=False)))


def quote(paper: str, claim: str) -> str:
    """A claim's published value as the paper states it (table ``quotes`` of
    :func:`transcriptions`: one row per claim, its value column the text a verdict shows)."""
    rows = published(paper, "quotes").set_index("claim")
    if claim not in rows.index:
        raise KeyError(f"no quote {claim!r} for {paper} in {TRANSCRIPTIONS}; add it with its page")
    return str(rows.loc[claim, "value"])


def claim(paper: str, name: str) -> dict:
    """One row of a paper's ``claims`` table (its low, high, unit, ... and ``source``: the
    page), found by its ``claim_id`` or, in a table without ids, its ``claim``."""
    rows = published(paper, "claims")
    key = "claim_id" if "claim_id" in rows else "claim"
    hit = rows[rows[key] == name]
    if hit.empty:
        raise KeyError(f"no claim {name!r} for {paper} in {TRANSCRIPTIONS}; add it with its page")
    return hit.iloc[0].to_dict()


def output_dir(path) -> Path:
    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def save_records(records, out_dir, experiment: str) -> pd.DataFrame:
    """Write ``records_<experiment>.csv`` and return the frame."""
    df = to_frame(records)
    write_csv(df, output_dir(out_dir) / f"records_{experiment}.csv")
    code_identity.record(output_dir(out_dir))  # what --resume compares (the code that measured them)
    return df


def measure(out_dir, experiment: str, run, *args, **kwargs) -> list[Record]:
    """``run(*args, **kwargs)``'s records, saved as ``records_<experiment>.csv``.

    In a run that ``python -m apsp_kernels.reproduce --resume`` started, an experiment that an
    unfinished earlier run of the same profile and commit measured in full is not run again: its
    saved records are returned as they were written (their own timestamps), and run.json's
    ``resumed`` names it.
    """
    records = reusable(out_dir, experiment)
    if records is not None:
        return records
    records = list(run(*args, **kwargs))
    save_records(records, out_dir, experiment)
    return records


def reusable(out_dir, experiment: str, partial: bool = False) -> list[Record] | None:
    """The records of ``experiment`` that an unfinished run of the same profile and commit saved
    and ``reproduce --resume`` kept for this run (see :func:`measure`), named in run.json's
    ``resumed``; None when there are none. ``partial``: the experiment saves as it goes (a
    sweep), so the records are the part it had finished, and run.json says so. None for
    ``out_dir`` None (a run that saves nothing)."""
    if out_dir is None:
        return None
    kept = resumable(out_dir)
    path = Path(out_dir) / f"records_{experiment}.csv"
    if experiment not in kept.get("experiments", []) or not path.exists():
        return None
    records = from_csv(path)
    elsewhere = measured_elsewhere(records)
    if elsewhere:
        print(f"{experiment}: the unfinished run's records were measured on {', '.join(elsewhere)}, not on "
              "this machine's, so they are measured again here (one run's records, one device)", flush=True)
        return None
    measured_at = min(r.timestamp for r in records)[:16].replace("T", " ") + " UTC"
    name = f"{experiment} ({len(records)} records of the part it had finished)" if partial else experiment
    resumed = read_run(out_dir).get("resumed") or {"commit": kept["commit"], "experiments": {}}
    resumed["experiments"][name] = measured_at
    write_run_info(out_dir, resumed=resumed)
    print(f"{name}: {len(records)} records measured from {measured_at} by an unfinished run of commit "
          f"{kept['commit']}: reused, not measured again")
    return records


def measured_elsewhere(records: list[Record]) -> list[str]:
    """The devices (GPU, or CPU for CPU-timed rows) of ``records`` that are not this process's."""
    return sorted({r.device for r in records if r.device != this_device(r.timing_scope)})


def resumable(out_dir) -> dict:
    """What the runner kept for this run to reuse (``resume.json``), or {}."""
    return read_json(Path(out_dir) / RESUME_FILE)


def save_table(df: pd.DataFrame, out_dir, name: str, title: str = "", note: str = "") -> pd.DataFrame:
    """Write ``table_<name>.csv`` and its caption ``table_<name>.md`` (title, then note)."""
    out = output_dir(out_dir)
    write_csv(df, out / f"table_{name}.csv")
    caption = "\n\n".join(s for s in (f"**{title}**" if title else "", note) if s)
    write_atomic(out / f"table_{name}.md", lambda tmp: Path(tmp).write_text(caption + "\n"))
    return df


def add_verdict(out_dir, claim: str, published, measured, holds: bool | None, note: str = "",
                records=None, basis: str | None = None) -> dict:
    """Append (or replace, by claim) a row of ``verdicts.csv``; holds=None means not tested.

    ``records``: the Records the verdict rests on; their weakest basis (see
    :mod:`apsp_kernels.provenance`) qualifies the verdict line and their ids are listed.
    ``basis``: for a verdict that rests on no record (``published``: the paper's numbers or a
    model of them). With neither, the row keeps its bare outcome until
    :func:`apsp_kernels.verdicts.annotate` finds its records from the driver's EVIDENCE
    (``reproduce`` runs it after each notebook)."""
    path = output_dir(out_dir) / "verdicts.csv"
    outcome = provenance.wording(holds, "measured")
    row = {"claim": claim, "published": str(published), "measured": str(measured),
           "verdict": outcome, "basis": "", "records": "", "note": note, "outcome": outcome}
    if records is not None or basis is not None:
        records = list(records or [])
        row["basis"], where = provenance.basis_of(records, basis if not records else None)
        row["verdict"] = provenance.wording(holds, row["basis"], where)
        row["records"] = " ".join(provenance.record_id(r) for r in records)
    old = pd.read_csv(path, keep_default_na=False) if path.exists() else pd.DataFrame(columns=VERDICT_COLUMNS)
    old = old[old["claim"] != claim]
    write_csv(pd.concat([old, pd.DataFrame([row])], ignore_index=True).reindex(columns=VERDICT_COLUMNS), path)
    return row


def add_verdicts(out_dir, verdicts) -> list[dict]:
    """:func:`add_verdict` for each of a driver's verdicts (dicts of its arguments)."""
    return [add_verdict(out_dir, **v) for v in verdicts]


def timed_goal(met: bool, device: str | None = None) -> tuple[bool | None, str]:
    """A goal in seconds, judged only on the GPU it was set for (:data:`GOAL_GPU`): ``(met, "")``
    there; elsewhere ``(None, why)``, the time standing for reference. ``device``: the GPU that
    measured it (a record's ``device``); by default this process's GPU."""
    device = gpu.device_info()["device"] if device is None else device
    if device == GOAL_GPU:
        return bool(met), ""
    return None, f"goal set for an {GOAL_GPU}; measured on {device or 'an unnamed device'}, so not judged"


def reset_verdicts(out_dir) -> None:
    """Start a run with no verdicts left over from an earlier one."""
    path = Path(out_dir) / "verdicts.csv"
    if path.exists():
        path.unlink()


def title_suffix() -> str:
    """Which device produced a figure, for plot titles."""
    info = gpu.device_info()
    return info["device"] if gpu.available() else "no GPU: CPU parts only"


def savefig(fig, out_dir, name: str) -> Path:
    """Save ``fig_<name>.png`` and ``.svg``."""
    out = output_dir(out_dir)
    for ext in ("png", "svg"):
        write_atomic(out / f"fig_{name}.{ext}",
                     lambda tmp, ext=ext: fig.savefig(tmp, format=ext, dpi=130, bbox_inches="tight"))
    return out / f"fig_{name}.png"


def write_run_info(out_dir, **info) -> None:
    """Merge keys (e.g. title) into ``run.json``; the runner adds device and timing."""
    write_json(output_dir(out_dir) / "run.json", read_run(out_dir) | info)


def read_run(folder) -> dict:
    """What ``run.json`` in ``folder`` holds so far, or {}."""
    return read_json(Path(folder) / "run.json")


def progress(iterable, desc: str = "", total=None):
    """tqdm progress bar for sweeps (plain iteration when tqdm is missing)."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, desc=desc, total=total)


def label(rec: Record | dict) -> str:
    """Suffix marking extrapolated or stand-in numbers in tables and plots."""
    get = rec.get if isinstance(rec, dict) else lambda k, d=None: getattr(rec, k, d)
    tags = []
    if get("extrapolated", False):
        tags.append("extrapolated")
    if get("stand_in", False):
        tags.append("stand-in graph")
    return f" ({', '.join(tags)})" if tags else ""
