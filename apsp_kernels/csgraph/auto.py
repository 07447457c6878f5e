"""``method="auto"``: pick the family from a decision table measured on a GPU.

The table (``decision_table.csv`` beside this file) holds verified, non-extrapolated kernel
times: problem (``all_pairs`` or ``single_source``), weight type, n, m, the registry method,
its family, the time and the GPU. The method-map notebook writes it
(:func:`apsp_kernels.experiments.method_map.write_decision_table`); re-running that notebook
on another GPU recalibrates it.

For an input of n vertices, m arcs and k sources every applicable family gets an estimate
from its nearest measured row: dense all-pairs families scale as n^3 (they compute every row
whatever k is), SSSP-based families as k * m from the row nearest in n and in arcs per vertex
(m / n). The table holds several topologies and their iterations differ (a road network needs
hundreds of rounds where a random graph of the same size needs tens): matching on arcs per
vertex keeps a sparse road network on the road-like rows, where matching on m would pair it
with a denser random graph of about the same m. Families that do not fit in free GPU memory,
or cannot take the weights (negative, float), are left out, each with the reason.

float64 (the default for float weights): the method map measures the float64 families on
float64 twins of some of its graphs (its dtype axis), and a family with float64 rows is estimated
from them alone, like any other weight type. A family without float64 rows is estimated from its
32-bit rows (float32 preferred, else int32) times a documented factor, and the Choice says it is
an estimate. Dense families are bound by the (min,+) rate: x FLOAT64_DENSE_FACTOR = 14.6 / 3.4,
the float32 and float64 (min,+) peaks measured on the H100 (T op/s). SSSP families are bound by
memory traffic: x FLOAT64_SPARSE_FACTOR = 12 / 8, the bytes per arc read (4-byte index + 8-byte
weight against 4 + 4; the distances read per arc double too, so this is the optimistic end).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np
import pandas as pd

from .. import gpu
from ..graph import Graph
from ..sssp_hierarchy.layout import has_hierarchy
from ..sssp_hierarchy.phast import MAX_MEAN_DEGREE
from .families import FAMILIES, HOST, Family, family_of

TABLE = Path(__file__).with_name("decision_table.csv")
COLUMNS = ["problem", "dtype", "n", "m", "method", "family", "time_ms", "device", "source"]
AUTO_FAMILIES = ("FW", "blocked_fw", "D", "harish", "spmv", "worklist", "multi_source", "phast", "BF",
                 "J")
# host preprocessing per arc, added to the estimate unless the Graph already holds it: PHAST's
# contraction of USA-road-d.NY in parallel rounds, 0.355 s for 730,100 arcs on 32 threads of a 4 x H100
# host beside other notebooks (0.338 s on a 2 x H100 host alone; 0.303 s in the paper profile's run,
# results/paper/scale/phast/all_sources.csv; 2.5 s on one core). Not in it: numba compiling the contraction
# once per process, under 1 s from its on-disk cache, about 40 s where that cache is cold (a fresh install)
HOST_PREPROCESSING_MS_PER_ARC = {"phast": 4.9e-4}
KEPT_METHODS = ("fast:phast_batched",)  # rows the method map does not measure: write_table keeps them
# not listed: rkleene and rkleene_fast run as FW, task_parallel as D
SINGLE_SOURCE_MAX = 16  # fewer sources than this are estimated from single-source rows
DEFAULT_ORDER = ("FW", "D", "BF")  # without measurements: SciPy's own preference order
FLOAT64_DENSE_FACTOR = 14.6 / 3.4   # float32 / float64 (min,+) peak on the H100, T op/s
FLOAT64_SPARSE_FACTOR = 12 / 8      # bytes per arc: int32 index + float64 weight vs + 32-bit weight


@dataclass
class Choice:
    """Which family runs, the candidates in order, and why (``explain=`` receives this)."""

    family: str
    candidates: list = field(default_factory=list)  # (family, estimated ms or None, note)
    excluded: list = field(default_factory=list)    # (family, why)
    reason: str = ""
    table: str = ""
    asked: str = "auto"  # the method= given

    def __str__(self) -> str:
        if self.asked == "auto":
            head = f"method='auto' chose {self.family!r}: {self.reason}"
        elif self.family == HOST:
            head = f"method={self.asked!r} asked; {self.reason}"
        else:
            head = f"method={self.asked!r} asked; ran {self.family!r}: {self.reason}"
        lines = [head]
        for name, est, note in self.candidates:
            t = f"~{est:.3g} ms" if est is not None else "not measured"
            lines.append(f"  candidate {name:<13} {t:<16} {note}")
        lines += [f"  excluded  {name:<13} {why}" for name, why in self.excluded]
        if self.table:
            lines.append(f"  decision table: {self.table}")
        return "\n".join(lines)


def load_table(path: Path = TABLE) -> pd.DataFrame:
    if not Path(path).exists():
        return pd.DataFrame(columns=COLUMNS)
    return pd.read_csv(path)


def table_from_records(records) -> pd.DataFrame:
    """Decision-table rows from timing Records (verified, measured in full, on a GPU)."""
    rows = []
    for r in records:
        fam = family_of(f"{r.paper}:{r.method}")
        if fam is None or r.skipped or not r.verified or r.extrapolated or r.time_ms_median is None:
            continue
        rows.append({"problem": "all_pairs" if r.experiment != "sssp" else "single_source",
                     "dtype": "float32" if r.graph.endswith("-f32") else
                              "float64" if r.graph.endswith("-f64") else "int32",
                     "n": r.n, "m": r.m, "method": f"{r.paper}:{r.method}", "family": fam,
                     "time_ms": r.time_ms_median, "device": r.device,
                     "source": f"{r.experiment} on {r.graph} ({r.profile})"})
    return pd.DataFrame(rows, columns=COLUMNS)


def write_table(records, path: Path = TABLE) -> pd.DataFrame:
    """Replace the decision table with the rows measured in ``records``; returns it."""
    from ..records import write_csv
    table = table_from_records(records)
    kept = load_table(path)
    kept = kept[kept["method"].isin(KEPT_METHODS)]
    if len(kept):
        table = pd.concat([table, kept[COLUMNS]], ignore_index=True)
    write_csv(table, path)
    return table


@dataclass(frozen=True)
class Rows:
    """One method's rows of a decision table as NumPy columns (``choose`` reads a few of these
    per candidate on every call; pandas per call cost more than the SSSP of a road network)."""

    all_pairs: np.ndarray
    dtype: np.ndarray
    n: np.ndarray
    m: np.ndarray
    time_ms: np.ndarray
    device: np.ndarray

    @classmethod
    def of(cls, frame: pd.DataFrame) -> "Rows":
        return cls(frame["problem"].to_numpy() == "all_pairs", frame["dtype"].astype(str).to_numpy(),
                   frame["n"].to_numpy(dtype=np.float64),
                   np.maximum(frame["m"].to_numpy(dtype=np.float64), 1),
                   frame["time_ms"].to_numpy(dtype=np.float64), frame["device"].astype(str).to_numpy())

    def where(self, keep: np.ndarray) -> "Rows":
        return Rows(*(getattr(self, f.name)[keep] for f in fields(self)))


@dataclass(frozen=True)
class Indexed:
    """A decision table's rows grouped by method, and the line ``Choice.table`` shows."""

    by_method: dict
    summary: str


def index(table: pd.DataFrame, name: str = TABLE.name) -> Indexed:
    by_method = {method: Rows.of(grp) for method, grp in table.groupby("method")} if len(table) else {}
    devices = ", ".join(sorted(set(map(str, table["device"]))))
    return Indexed(by_method, f"{name} ({len(table)} rows; devices: {devices})" if len(table) else "none")


@functools.lru_cache(maxsize=4)
def _indexed_file(path: str, mtime_ns: int) -> Indexed:
    return index(load_table(Path(path)), Path(path).name)


def indexed_table(path: Path = TABLE) -> Indexed:
    """The decision table at ``path``, read and indexed once per version of the file."""
    path = Path(path)
    return _indexed_file(str(path), path.stat().st_mtime_ns if path.exists() else -1)


def _estimate(fam: Family, table: Indexed, g: Graph, k: int,
              predecessors: bool) -> tuple[float, str] | None:
    """Estimated ms from the rows of the method that would run (same weight type preferred)."""
    n, m = g.n, max(g.m, 1)
    if fam.name == "J":  # Bellman-Ford from one (virtual) source, then multi_source's k SSSPs
        parts = [_estimate(FAMILIES["BF"], table, g, 1, False),
                 _estimate(FAMILIES["multi_source"], table, g, k, predecessors)]
        if None in parts:
            return None
        return parts[0][0] + parts[1][0], f"BF for the potentials ({parts[0][1]}) + multi_source ({parts[1][1]})"
    rows = table.by_method.get(fam.key(g.dtype, predecessors))
    if rows is None:
        return None
    same_dtype = rows.dtype == str(g.dtype)
    factor, scaled = 1.0, ""
    if same_dtype.any():
        rows = rows.where(same_dtype)
    elif g.dtype == np.float64:
        narrow = "float32" if (rows.dtype == "float32").any() else "int32"
        rows = rows.where(rows.dtype == narrow)
        factor = FLOAT64_DENSE_FACTOR if fam.all_pairs else FLOAT64_SPARSE_FACTOR
        scaled = (f"; float64 not measured: an estimate, the {narrow} rows x {factor:.2g} "
                  f"({'(min,+) peak ratio' if fam.all_pairs else 'bytes per arc'})")
    if fam.all_pairs:
        i = int(np.argmin(np.abs(np.log(rows.n / n))))
        return (float(rows.time_ms[i] * (n / rows.n[i]) ** 3 * factor),
                f"from n={int(rows.n[i])} on {rows.device[i]}, x n^3{scaled}")
    all_pairs = k >= SINGLE_SOURCE_MAX
    same_problem = rows.all_pairs == all_pairs
    if same_problem.any():
        rows = rows.where(same_problem)  # iterations depend on the kind of graph measured
    per_source = np.where(rows.all_pairs, rows.time_ms / rows.n, rows.time_ms)
    degree = rows.m / rows.n
    i = int(np.argmin(np.abs(np.log(degree / (m / n))) + np.abs(np.log(rows.n / n))))
    problem = "all_pairs" if rows.all_pairs[i] else "single_source"
    ms = float(per_source[i] * m / rows.m[i] * k * factor)
    note = f"from {problem} n={int(rows.n[i])} m={int(rows.m[i])} on {rows.device[i]}, x k*m{scaled}"
    rate = HOST_PREPROCESSING_MS_PER_ARC.get(fam.name)
    if rate is not None and not has_hierarchy(g):
        ms += rate * m
        note += f", + ~{rate * m:.3g} ms host preprocessing (not yet done for this graph)"
    return ms, note


def _dense_bytes(g: Graph, predecessors: bool) -> int:
    return g.n * g.n * (g.dtype.itemsize * 2 + 4 * predecessors)


def choose(g: Graph, k: int, predecessors: bool, table: pd.DataFrame | None = None) -> Choice:
    """The family for ``k`` sources of ``g``, or SciPy on the host when no GPU is usable."""
    if not gpu.available():
        return Choice(HOST, reason="no CUDA GPU on this machine: SciPy's csgraph on the host")
    table = indexed_table() if table is None else index(table)
    free = gpu.free_bytes()
    cands, excluded = [], []
    for fam in (FAMILIES[name] for name in AUTO_FAMILIES):
        why = _exclusion(fam, g, predecessors, free)
        if why:
            excluded.append((fam.name, why))
            continue
        est = _estimate(fam, table, g, k, predecessors)
        cands.append((fam.name, *(est if est else (None, "not in the decision table"))))
    if not cands:
        return Choice(HOST, excluded=excluded, reason="no GPU family can take this input")
    order = {name: i for i, name in enumerate(DEFAULT_ORDER)}
    cands.sort(key=lambda c: (c[1] is None, c[1] if c[1] is not None else order.get(c[0], 9)))
    best = cands[0]
    reason = (f"fastest estimate for n={g.n}, m={g.m}, {k} source(s), {g.dtype} weights"
              if best[1] is not None else "no measurement applies: SciPy's order FW, D, BF")
    if best[1] is not None and "not measured: an estimate" in best[2]:
        reason += f" (estimated from its 32-bit rows: the decision table has no float64 rows for {best[0]!r})"
    return Choice(best[0], cands, excluded, reason, table.summary)


def _exclusion(fam: Family, g: Graph, predecessors: bool, free: int) -> str:
    if fam.key(g.dtype, predecessors) is None:
        return fam.refusal(g.dtype, predecessors)
    if g.has_negative_weights and not fam.negative:
        return "needs non-negative weights"
    if fam.name == "J" and not g.has_negative_weights:
        return "no negative weight: Johnson would run as multi_source"
    if fam.name in HOST_PREPROCESSING_MS_PER_ARC and g.m > MAX_MEAN_DEGREE * g.n:
        return (f"contracts road-like graphs only (at most {MAX_MEAN_DEGREE:g} arcs per vertex; this one has "
                f"{g.m / max(g.n, 1):.2f})")
    if fam.all_pairs and _dense_bytes(g, predecessors) > free:
        return f"dense {g.n}x{g.n} matrices need {_dense_bytes(g, predecessors):,} bytes, {free:,} free"
    return ""
