"""One results record schema for every timed (or skipped) run, written as CSV per experiment."""
from __future__ import annotations

import datetime as _dt
import functools
import json
import os
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import pandas as pd

from . import gpu
from .provenance import record_basis, record_id

TIMING_SCOPES = ("kernel", "with_transfers", "cpu")


@dataclass
class Record:
    """A row of results. ``time_ms_*`` are NaN for skipped runs (``skipped`` says why).

    ``timing_scope``: ``kernel`` (device events around the algorithm only),
    ``with_transfers`` (host clock around upload + compute + download), ``cpu``.
    ``extrapolated``: the time was measured on a part (sampled sources, a prefix of
    iterations) and scaled; ``extrapolation`` says how. ``stand_in``: the graph
    replaces a dataset that was not available.
    """

    paper: str
    experiment: str
    method: str
    graph: str
    n: int
    m: int
    params: str = "{}"
    time_ms_median: float = float("nan")
    time_ms_min: float = float("nan")
    repeats: int = 0
    timing_scope: str = "kernel"
    verified: bool = False
    max_error: float = float("nan")
    verify_scope: str = ""
    extrapolated: bool = False
    extrapolation: str = ""
    stand_in: bool = False
    stats: str = "{}"
    skipped: str = ""
    device: str = ""
    driver: str = ""
    cupy_version: str = ""
    git_commit: str = ""
    profile: str = ""
    timestamp: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))

    def __post_init__(self):
        if self.timing_scope not in TIMING_SCOPES:
            raise ValueError(f"timing_scope must be one of {TIMING_SCOPES}")
        for name in ("params", "stats"):
            value = getattr(self, name)
            if not isinstance(value, str):
                setattr(self, name, json.dumps(value, sort_keys=True, default=str))
        if not self.device:
            info = gpu.device_info()
            self.device = this_device(self.timing_scope)
            self.driver = info["driver"]
            self.cupy_version = info["cupy"]
        self.git_commit = self.git_commit or git_commit()

    @property
    def time_s(self) -> float:
        return self.time_ms_median / 1e3

    @property
    def basis(self) -> str:
        """What the time stands on (:data:`apsp_kernels.provenance.BASES`), from the fields."""
        return record_basis(self)

    @property
    def id(self) -> str:
        """A stable id (:func:`apsp_kernels.provenance.record_id`) that verdicts cite."""
        return record_id(self)

    def param(self, key, default=None):
        return json.loads(self.params).get(key, default)

    def stat(self, key, default=None):
        return json.loads(self.stats).get(key, default)


COLUMNS = [f.name for f in fields(Record)]


@functools.lru_cache(maxsize=1)
def git_commit() -> str:
    """``APSP_GIT_COMMIT`` when set (a copy of the tree made elsewhere, e.g. on a GPU host, may
    sit inside another repository), else the short commit of the checkout (+dirty)."""
    if os.environ.get("APSP_GIT_COMMIT"):
        return os.environ["APSP_GIT_COMMIT"]
    try:
        root = Path(__file__).resolve().parent.parent
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,
                             capture_output=True, text=True, timeout=5)
        if out.returncode == 0:
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                   capture_output=True, text=True, timeout=5).stdout.strip()
            return out.stdout.strip() + ("+dirty" if dirty else "")
    except Exception:
        pass
    return ""


def this_device(timing_scope: str) -> str:
    """The device a record of ``timing_scope`` made in this process names: the host CPU for a
    CPU-timed run, else the GPU (one rule for new records and for a resume's check of old ones)."""
    return cpu_name() if timing_scope == "cpu" else gpu.device_info()["device"]


@functools.lru_cache(maxsize=1)
def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"{line.split(':', 1)[1].strip()} ({os.cpu_count()} threads)"
    except OSError:
        pass
    import platform
    return f"{platform.processor() or platform.machine()} ({os.cpu_count()} threads)"


def to_frame(records) -> pd.DataFrame:
    rows = [asdict(r) if isinstance(r, Record) else dict(r) for r in records]
    return pd.DataFrame(rows, columns=COLUMNS)


def as_frame(records_or_frame) -> pd.DataFrame:
    """A records frame (e.g. read back from CSV) as it is, or :func:`to_frame` of Records."""
    if isinstance(records_or_frame, pd.DataFrame):
        return records_or_frame
    return to_frame(records_or_frame)


def json_cells(column: pd.Series) -> pd.Series:
    """A frame's ``params`` or ``stats`` column as dicts ({} for an empty or missing cell)."""
    return column.map(lambda s: json.loads(s) if isinstance(s, str) and s else {})


def read_json(path) -> dict:
    """A JSON file's object, or {} when it is missing or unreadable."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}


def write_json(path: Path, obj) -> Path:
    """``obj`` as indented JSON, written atomically (:func:`write_atomic`)."""
    text = json.dumps(obj, indent=2, default=str) + "\n"
    return write_atomic(path, lambda tmp: Path(tmp).write_text(text))


def write_atomic(path: Path, write) -> Path:
    """Write through a temporary file in the same folder and rename: never half-written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)  # mkstemp makes it owner-only
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def write_csv(records_or_frame, path) -> Path:
    """Write records (or any DataFrame) as CSV, atomically."""
    df = as_frame(records_or_frame)
    return write_atomic(Path(path), lambda tmp: df.to_csv(tmp, index=False))


def read_csv(path) -> pd.DataFrame:
    return pd.read_csv(path)


FLOAT_COLUMNS = ("time_ms_median", "time_ms_min", "max_error")
BOOL_COLUMNS = ("verified", "extrapolated", "stand_in")


def from_csv(path) -> list[Record]:
    """The records of a ``records_*.csv`` as Record objects (as written, device and commit kept)."""
    df = pd.read_csv(path, keep_default_na=False, na_values={c: [""] for c in FLOAT_COLUMNS})
    out = []
    for row in df.to_dict("records"):
        for name in BOOL_COLUMNS:
            row[name] = str(row[name]).strip().lower() == "true"
        out.append(Record(**{k: v for k, v in row.items() if k in COLUMNS}))
    return out


def solved_fewer_sources(stats: str) -> str:
    """Why a record's time (``stats``: its stats JSON) is not the time of the sources it timed,
    or '': the solver's own count of sources (``sources``) differs from the sources the run
    planned (``map.timed_sources``), e.g. a single-source solver given no sources solves
    vertex 0 only."""
    info = json.loads(stats) if isinstance(stats, str) and stats else {}
    solved, planned = info.get("sources"), info.get("map", {}).get("timed_sources")
    if not isinstance(solved, (int, float)) or not isinstance(planned, (int, float)) or solved == planned:
        return ""
    return fewer_sources(int(solved), int(planned), "timed")


def fewer_sources(solved: int, wanted: int, how: str) -> str:
    """The one wording of a run whose solver solved other than the sources it was given
    (``how``: "timed", "asked for")."""
    return f"the solver solved {solved} of the {wanted} sources {how}"
