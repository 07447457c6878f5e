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
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import gpu
from ..graph import Graph
from .families import FAMILIES, HOST, Family, family_of

TABLE = Path(__file__).with_name("decision_table.csv")
COLUMNS = ["problem", "dtype", "n", "m", "method", "family", "time_ms", "device", "source"]
AUTO_FAMILIES = ("FW", "blocked_fw", "D", "harish", "spmv", "worklist", "multi_source", "BF")
# not listed: rkleene and rkleene_fast run as FW, task_parallel as D
SINGLE_SOURCE_MAX = 16  # fewer sources than this are estimated from single-source rows
DEFAULT_ORDER = ("FW", "D", "BF")  # without measurements: SciPy's own preference order


@dataclass
class Choice:
    """Which family runs, the candidates in order, and why (``explain=`` receives this)."""

    family: str
    candidates: list = field(default_factory=list)  # (family, estimated ms or None, note)
    excluded: list = field(default_factory=list)    # (family, why)
    reason: str = ""
    table: str = ""

    def __str__(self) -> str:
        lines = [f"method='auto' chose {self.family!r}: {self.reason}"]
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
                     "dtype": "float32" if r.graph.endswith("-f32") else "int32",
                     "n": r.n, "m": r.m, "method": f"{r.paper}:{r.method}", "family": fam,
                     "time_ms": r.time_ms_median, "device": r.device,
                     "source": f"{r.experiment} on {r.graph} ({r.profile})"})
    return pd.DataFrame(rows, columns=COLUMNS)


def write_table(records, path: Path = TABLE) -> pd.DataFrame:
    """Replace the decision table with the rows measured in ``records``; returns it."""
    from ..records import write_csv
    table = table_from_records(records)
    write_csv(table, path)
    return table


def _estimate(fam: Family, table: pd.DataFrame, g: Graph, k: int,
              predecessors: bool) -> tuple[float, str] | None:
    """Estimated ms from the rows of the method that would run (same weight type preferred)."""
    n, m = g.n, g.m
    rows = table[table["method"] == fam.key(g.dtype, predecessors)]
    if (rows["dtype"] == str(g.dtype)).any():
        rows = rows[rows["dtype"] == str(g.dtype)]
    if rows.empty:
        return None
    if fam.all_pairs:
        r = rows.iloc[int(np.argmin(np.abs(np.log(rows["n"] / n))))]
        return float(r["time_ms"] * (n / r["n"]) ** 3), f"from n={r['n']} on {r['device']}, x n^3"
    problem = "single_source" if k < SINGLE_SOURCE_MAX else "all_pairs"
    if (rows["problem"] == problem).any():
        rows = rows[rows["problem"] == problem]  # iterations depend on the kind of graph measured
    per_source = np.where(rows["problem"] == "all_pairs", rows["time_ms"] / rows["n"], rows["time_ms"])
    degree = np.maximum(rows["m"], 1) / rows["n"]
    i = int(np.argmin(np.abs(np.log(degree / (max(m, 1) / n))) + np.abs(np.log(rows["n"] / n))))
    r = rows.iloc[i]
    return (float(per_source[i] * max(m, 1) / max(int(r["m"]), 1) * k),
            f"from {r['problem']} n={r['n']} m={r['m']} on {r['device']}, x k*m")


def _dense_bytes(g: Graph, predecessors: bool) -> int:
    return g.n * g.n * 4 * (3 if predecessors else 2)


def choose(g: Graph, k: int, predecessors: bool, table: pd.DataFrame | None = None) -> Choice:
    """The family for ``k`` sources of ``g``, or SciPy on the host when no GPU is usable."""
    if not gpu.available():
        return Choice(HOST, reason="no CUDA GPU on this machine: SciPy's csgraph on the host")
    table = load_table() if table is None else table
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
    source = f"{TABLE.name} ({len(table)} rows; devices: {', '.join(sorted(set(map(str, table['device']))))})" \
        if len(table) else "none"
    return Choice(best[0], cands, excluded, reason, source)


def _exclusion(fam: Family, g: Graph, predecessors: bool, free: int) -> str:
    if fam.key(g.dtype, predecessors) is None:
        return f"no {'predecessor ' if predecessors else ''}method for {g.dtype} weights"
    if g.has_negative_weights and not fam.negative:
        return "needs non-negative weights"
    if fam.all_pairs and _dense_bytes(g, predecessors) > free:
        return f"dense {g.n}x{g.n} matrices need {_dense_bytes(g, predecessors):,} bytes, {free:,} free"
    return ""
