"""Seeded, vectorised graph generators for the five papers' inputs.

Every generator takes a ``seed`` (``np.random.default_rng``), builds through
``Graph.from_edges`` and records ``meta = {"generator", "params", "source":
"generated", "label", ...}``.

* Okuyama et al.: ``random_digraph`` (DIMACS-style, Hamiltonian cycle + random
  arcs), ``rmat`` (power law), ``ring``, ``complete`` (Table 1).
* Takafuji et al.: ``k_regular_digraph``, ``k_regular_batch``, ``k_regular_arcs``,
  ``k_regular_arcs_of`` (counter-based, NumPy or CuPy), ``k_regular_dense_batch``,
  ``dense_from_arcs`` (Table I and II).
* Pandey et al.: ``dense_random``.
* Liu: ``liu_min_degree`` (Fig. 2 edge counts).
* Bodra: ``road_like``, a labelled stand-in for the DIMACS road graphs (``ROAD_RIVERS``: with
  rivers, so that it contracts as a road network does; batched PHAST's large stand-ins).
"""
from __future__ import annotations


from ..graph import Graph
from .min_degree import liu_min_degree
from .regular import (dense_from_arcs, k_regular_arcs, k_regular_arcs_of, k_regular_batch,
                      k_regular_dense_batch, k_regular_digraph)
from .power_law import RMAT_A, RMAT_B, RMAT_C, RMAT_D, rmat
from .road import RIVERS as ROAD_RIVERS, road_like
from .simple import complete, ring
from .uniform import dense_random, random_digraph

__all__ = ["random_digraph", "rmat", "ring", "complete", "k_regular_digraph", "k_regular_batch",
           "k_regular_arcs", "k_regular_arcs_of", "k_regular_dense_batch", "dense_from_arcs", "dense_random",
           "liu_min_degree", "road_like", "ROAD_RIVERS", "describe", "RMAT_A", "RMAT_B", "RMAT_C", "RMAT_D"]


def describe(graph: Graph) -> dict:
    """One table row about ``graph``: size, out-degree statistics, weight range, provenance."""
    deg = graph.degrees
    meta = graph.meta
    row = {
        "name": graph.name,
        "n": graph.n,
        "m": graph.m,
        "mean_out_degree": graph.m / graph.n,
        "max_out_degree": int(deg.max()) if graph.n else 0,
        "min_out_degree": int(deg.min()) if graph.n else 0,
        "frac_out_degree_lt3": float((deg < 3).mean()) if graph.n else 0.0,
        "w_min": graph.min_weight.item() if graph.m else None,
        "w_max": graph.max_weight.item() if graph.m else None,
        "dtype": str(graph.dtype),
        "generator": meta.get("generator", ""),
        "stand_in": graph.is_stand_in,
    }
    if "undirected_edges" in meta:
        row["undirected_edges"] = meta["undirected_edges"]
    return row
