"""The dataset registry: the public graphs the papers use, read from the package's ``data/datasets.csv``.

Bodra (Table 1) runs Bellman-Ford on the 9th DIMACS USA-road-d graphs and (Tables 2
and 3) Dijkstra / Floyd-Warshall on SNAP p2p-Gnutella graphs. Each row gives the
canonical download URL, the original file name, the node and arc counts of the file
(``arcs`` = arc/edge lines; ``unique_arcs`` = distinct (u, v) pairs, i.e. ``Graph.m``,
where known) and the sha256 of the uncompressed content (line endings normalised to
LF; empty where unknown).
"""
from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from importlib import resources

from ..errors import InputError

TABLE_PATH = resources.files("apsp_kernels") / "data" / "datasets.csv"  # inside the package: any install reads it
FORMATS = ("dimacs", "snap")


@dataclass(frozen=True)
class Dataset:
    """One registry row; ``name`` is the short name used in notebooks ("NY", "gnutella04")."""

    name: str
    full_name: str
    aliases: tuple[str, ...]
    format: str
    nodes: int
    arcs: int
    unique_arcs: int | None
    sha256: str | None
    file: str
    url: str
    used_by: str

    @property
    def file_names(self) -> tuple[str, ...]:
        """Names the original may have locally: as downloaded (``.gz``) or uncompressed."""
        if self.file.endswith(".gz"):
            return (self.file, self.file[:-3])
        return (self.file,)

    @property
    def weights_are_generated(self) -> bool:
        """SNAP edge lists are unweighted: weights come from a seeded generator."""
        return self.format == "snap"


def _row_to_dataset(row: dict) -> Dataset:
    if row["format"] not in FORMATS:
        raise InputError(f"{TABLE_PATH}: dataset {row['name']} has format {row['format']!r}, "
                         f"expected one of {FORMATS}")
    return Dataset(
        name=row["name"],
        full_name=row["full_name"],
        aliases=tuple(a for a in row["aliases"].split("|") if a),
        format=row["format"],
        nodes=int(row["nodes"]),
        arcs=int(row["arcs"]),
        unique_arcs=int(row["unique_arcs"]) if row["unique_arcs"] else None,
        sha256=row["sha256"].lower() or None,
        file=row["file"],
        url=row["url"],
        used_by=row["used_by"],
    )


@functools.lru_cache(maxsize=1)
def table() -> tuple[Dataset, ...]:
    """All registry rows, in the order of ``apsp_kernels/data/datasets.csv``."""
    with TABLE_PATH.open("r", newline="", encoding="utf-8") as f:
        return tuple(_row_to_dataset(row) for row in csv.DictReader(f))


@functools.lru_cache(maxsize=1)
def _index() -> dict[str, Dataset]:
    index = {}
    for ds in table():
        for key in (ds.name, ds.full_name, *ds.aliases):
            index[key.lower()] = ds
    return index


def names() -> list[str]:
    """The short names, in registry order."""
    return [ds.name for ds in table()]


def get(name: str | Dataset) -> Dataset:
    """Look a dataset up by short name, full name or alias (case-insensitive)."""
    if isinstance(name, Dataset):
        return name
    try:
        return _index()[str(name).lower()]
    except KeyError:
        raise InputError(f"unknown dataset {name!r}; known: {', '.join(names())} "
                         f"(or their full names, e.g. USA-road-d.NY, p2p-Gnutella04)") from None
