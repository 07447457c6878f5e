"""The method map's sweep spread over the GPUs of a host (notebooks/method_map.ipynb).

The map's cells are independent graphs, but its runs are planned per series (a topology and
density, smallest n first: each run is predicted from the series' smaller cells, and a density
that starts late, 32 arcs per vertex and more, borrows its first prediction from the nearest
density). So the sweep splits into groups of whole series: one per topology, a topology's
densities in pairs of neighbours (``DENSITIES_PER_GROUP``). The groups go out largest first (the
most graphs to build: a large cell's runs are bounded by the per-run cap), one per GPU at a time
(:func:`apsp_kernels.multi_gpu.run_on_gpus`). Each group's sweep saves its records as it goes
under its own name, ``records_<problem>@<group>.csv`` (``reproduce --resume`` keeps those as it
keeps the whole sweep's), and the groups are merged back in the map's cell order. A group's
plans borrow only from its own series, and it keeps the profile's time budget on its own clock.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..records import Record
from .map_space import FLOAT64_SERIES, TOPOLOGIES

PART_SEP = "@"
DENSITIES_PER_GROUP = 2


@dataclass
class Group:
    """Whole series of the map swept together on one GPU: ``cfg`` is the map's, narrowed to them."""
    name: str
    cfg: dict
    series: frozenset
    graphs: int  # cells within the profile's max_arcs
    reuse: dict = field(default_factory=dict)  # what an unfinished run of these series measured

    @property
    def stem(self) -> str:  # what multi_gpu.run_on_gpus names a job's task by
        return self.name


def groups(cfg: dict, cells: list[dict]) -> list[Group]:
    """The sweep's cells in groups of whole series, largest all-pairs work first."""
    series: dict[str, list[dict]] = {}
    for c in cells:
        series.setdefault(c["series"], []).append(c)
    out = []
    for topology in dict.fromkeys(c["topology"] for c in cells):
        mine = sorted((s for s in series if series[s][0]["topology"] == topology),
                      key=lambda s: series[s][0]["density"])
        for i in range(0, len(mine), DENSITIES_PER_GROUP):
            chosen = mine[i:i + DENSITIES_PER_GROUP]
            members = [c for s in chosen for c in series[s]]
            densities = tuple(series[s][0]["density"] for s in chosen)
            name = topology + ("".join(f"-d{d}" for d in densities) if len(mine) > 1 else "")
            narrowed = {**cfg, "topologies": (topology,)}
            if len(mine) > 1:
                narrowed["densities"] = densities
            out.append(Group(name=name, cfg=narrowed, series=frozenset(chosen),
                             graphs=sum(c["m"] <= cfg["max_arcs"] for c in members)))
    return sorted(out, key=lambda g: g.graphs, reverse=True)


def series_of(record: Record) -> str:
    """The map series a record's run belongs to (a float64 twin's is its int32 series')."""
    return str(record.stat("map", {}).get("series", "")).removesuffix(FLOAT64_SERIES)


def part_name(problem: str, group: str) -> str:
    """The experiment name a group's records of ``problem`` are saved under."""
    return f"{problem}{PART_SEP}{group}" if group else problem


def is_part_of(name: str, problem: str) -> bool:
    return name == problem or name.startswith(problem + PART_SEP)


def cell_order(cfg: dict):
    """A sort key putting cells, or records, in the map's order: n, topology, density, dtype."""
    rank = {t: i for i, t in enumerate(cfg["topologies"] or TOPOLOGIES)}

    def key(item) -> tuple:
        if isinstance(item, Record):
            where = item.stat("map", {})
            n, topology, density = item.n, where.get("topology"), where.get("density")
            wide = str(where.get("series", "")).endswith(FLOAT64_SERIES)
        else:
            n, topology, density = item["n"], item["topology"], item["density"]
            wide = item.get("dtype") == "float64"
        return n, rank.get(topology, len(rank)), float(density or 0), wide
    return key


def remove_parts(out_dir) -> None:
    """The groups' record files, once their records are merged into the whole sweep's."""
    for path in Path(out_dir).glob(f"records_*{PART_SEP}*.csv"):
        path.unlink()
