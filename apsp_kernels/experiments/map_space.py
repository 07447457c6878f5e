"""The method map's space (:mod:`apsp_kernels.experiments.method_map`): its topologies, problems,
the methods it times and the float64 twins of its graphs."""
from __future__ import annotations

import numpy as np

from .. import registry
from ..graph import Graph


TOPOLOGIES = ("random", "rmat", "road", "ring", "complete")
REFERENCE = ("okuyama", "dijkstra_scipy")  # SciPy's csgraph.dijkstra, one host core
ROAD_DENSITY = 2.6                         # arcs per vertex of the DIMACS road graphs (2.4 .. 2.8)
PROBLEMS = {"apsp": "all pairs", "sssp": "single source"}

def per_source(method: registry.Method) -> bool:
    """True when the method's work grows with the sources asked for (SSSP-based); False for
    dense all-pairs methods, which compute every row whatever the sources."""
    return not method.solver_class().all_pairs


def map_methods() -> list[registry.Method]:
    """Every GPU method of the registry, papers' and ``fast`` alike (empty groups are fine), but
    those with a per-graph host preprocessing (``fast:sssp_phast``'s contraction): on the map's
    generated graphs each call would pay it, and the cross-paper notebook times them on the roads."""
    return [m for m in registry.methods() if m.on_generated_graphs]


def dense_keys(methods=None) -> set[str]:
    """Registry keys of the dense all-pairs methods among ``methods`` (default: the map's)."""
    return {m.key for m in (map_methods() if methods is None else methods) if not per_source(m)}


def reference_method() -> registry.Method:
    return registry.get(*REFERENCE)


FLOAT64_FAMILIES = ("D", "harish", "spmv", "worklist", "multi_source", "BF", "FW", "blocked_fw")
DENSE_FAMILIES = ("FW", "blocked_fw")
FLOAT64_SERIES = "/f64"  # suffix of a float64 twin's series (its graph's name ends "-f64")


def float64_methods(methods=None) -> list[registry.Method]:
    """The methods among ``methods`` (default: the map's) that run FLOAT64_FAMILIES on float64
    graphs (csgraph.families: what ``shortest_path`` runs for float input)."""
    from ..csgraph.families import FAMILIES
    keys = {FAMILIES[f].float64 for f in FLOAT64_FAMILIES}
    return [m for m in (map_methods() if methods is None else methods) if m.key in keys]


def as_float64(g: Graph, seed: int = 0) -> Graph:
    """The float64 twin of ``g``: the same arcs, each weight plus a seeded fraction in [0, 1)
    (fractional, so no kernel can take the integer path), named ``<name>-f64`` (the suffix
    auto.table_from_records reads as the weight type)."""
    w = np.asarray(g.weights, dtype=np.float64) + np.random.default_rng(seed).random(g.m)
    return Graph(g.n, g.indptr, g.indices, w, name=f"{g.name}-f64",
                 meta={**g.meta, "weights": "integer + seeded fraction in [0, 1), float64"})

def density_label(topology: str, density) -> str:
    return {"road": "≈2.6", "ring": "1", "complete": "n-1"}.get(topology, f"{float(density):g}")
