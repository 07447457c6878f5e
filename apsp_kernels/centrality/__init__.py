"""Centralities and distance measures from all shortest paths, with NetworkX's definitions.

::

    from apsp_kernels import centrality
    c = centrality.closeness_centrality(A)                 # A: SciPy/NumPy/CuPy matrix or Graph
    h = centrality.harmonic_centrality(A, directed=False)
    d = centrality.diameter(A, explain=True)               # says where the sources ran
    c = centrality.closeness_centrality(A, client=client)  # the same on a Dask cluster

Rows of distances are reduced block by block as they come (never the n x n matrix): on one GPU
in this process (batched PHAST on road-like graphs, ``method="auto"``'s family otherwise), on
a Dask cluster with ``client=``, or with SciPy on a host without a GPU. Definitions, types and
errors: :mod:`.measures`; where the rows run: :mod:`.engine`; the sums: :mod:`.sums`.
Betweenness (:mod:`.betweenness`) is exact Brandes: on the GPU for whole weights on road-like graphs
(:mod:`.brandes_gpu`), else on the host (:mod:`.brandes`).
Every source's sums are kept per graph content, so the measures of one graph share one pass
(``centrality.EVERY_SOURCE.clear()`` forgets them).
"""
from .betweenness import PathCountWarning, betweenness_centrality, edge_betweenness_centrality
from .engine import EVERY_SOURCE
from .measures import (NotConnectedError, average_shortest_path_length, barycenter, center,
                       closeness_centrality, diameter, eccentricity, harmonic_centrality, periphery, radius)

__all__ = ["closeness_centrality", "harmonic_centrality", "eccentricity", "diameter", "radius", "center",
           "periphery", "barycenter", "average_shortest_path_length", "betweenness_centrality",
           "edge_betweenness_centrality", "NotConnectedError", "PathCountWarning", "EVERY_SOURCE"]
