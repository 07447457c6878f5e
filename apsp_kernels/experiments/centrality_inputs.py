"""What the centrality notebook's experiments share (:mod:`apsp_kernels.experiments.centrality`): a case's
graph as a Graph, a SciPy matrix and a NetworkX DiGraph; NetworkX's measures of a few vertices from SciPy's
rows; relative differences; its records."""
from __future__ import annotations

import functools
import json
import math
from typing import NamedTuple

import numpy as np
from scipy.sparse import csgraph

from ..records import Record
from .centrality_space import AGREEMENT_RTOL, PAPER
from .library import build_graph, networkx_graph


class Inputs(NamedTuple):
    g: object  # the Graph
    A: object  # its SciPy CSR matrix
    G: object  # a NetworkX DiGraph of the same arcs, nodes 0..n-1 in order, weights "weight"


@functools.lru_cache(maxsize=1)
def _inputs(spec: str) -> Inputs:
    g = build_graph(json.loads(spec))
    A = g.to_scipy()
    return Inputs(g, A, networkx_graph(A))


def inputs(spec: dict) -> Inputs:
    """The graph of a case, its matrix and its NetworkX DiGraph (the last graph's are kept: NY's DiGraph
    takes seconds to build)."""
    return _inputs(json.dumps(spec, sort_keys=True))


def record(case: dict, g, experiment: str, method: str, scope: str, params: dict, cfg: dict) -> Record:
    """A record of experiment ``<case key>_<experiment>``."""
    return Record(paper=PAPER, experiment=f"{case['key']}_{experiment}", method=method, graph=g.name, n=g.n,
                  m=g.m, params=params, timing_scope=scope, stand_in=g.is_stand_in, profile=cfg["profile"])


def reference(A, vertices) -> dict[str, np.ndarray]:
    """NetworkX's closeness, harmonic centrality and eccentricity of ``vertices`` from SciPy's rows
    (distances to each vertex: Dijkstra on the transposed matrix); harmonic sums rounded once (fsum)."""
    n = A.shape[0]
    to = np.atleast_2d(csgraph.dijkstra(A.T.tocsr(), directed=True, indices=vertices))
    out = {"closeness": [], "harmonic": []}
    for row in to:
        reach = row[np.isfinite(row)]
        total = float(reach.sum())
        value = (len(reach) - 1.0) / total * ((len(reach) - 1.0) / (n - 1)) if total > 0 and n > 1 else 0.0
        out["closeness"].append(value)
        out["harmonic"].append(math.fsum(1.0 / d for d in row[(row > 0) & np.isfinite(row)]))
    out = {k: np.asarray(v) for k, v in out.items()}
    out["eccentricity"] = np.atleast_2d(csgraph.dijkstra(A, directed=True, indices=vertices)).max(axis=1)
    return out


def max_relative(got, want) -> float:
    """The largest ``|got - want| / |want|`` (0 where both are equal, inf where only ``want`` is 0 or one is
    NaN or inf)."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return math.inf
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(same, 0.0, np.abs(got - want) / np.abs(want))
    rel = np.where(np.isnan(rel), math.inf, rel)  # NaN or inf on one side only
    return float(rel.max()) if rel.size else 0.0


def check(values: dict, want: dict, vertices, n: int) -> tuple[bool, float, str]:
    """(verified, largest relative difference, scope) of per-vertex ``values`` (every vertex) against
    :func:`reference`'s for ``vertices``."""
    err = max((max_relative(np.asarray(v)[vertices], want[k]) for k, v in values.items()), default=0.0)
    return (err <= AGREEMENT_RTOL, err, f"{', '.join(values)} of {len(vertices)} sampled of {n} vertices vs "
                                        f"SciPy's rows, relative {AGREEMENT_RTOL:g}")
