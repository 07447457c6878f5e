"""The kernels behind ``scipy.sparse.csgraph``'s interface::

    from apsp_kernels import shortest_path
    dist = shortest_path(matrix)                         # method="auto", NumPy in -> NumPy out
    dist, pred = shortest_path(cupy_matrix, indices=[0, 5], return_predecessors=True)
    shortest_path(matrix, explain=True)                  # which method ran, and why

Signatures and conventions: :mod:`.api`; input conventions and the precision contract
(``dtype=``: float64 by default for float weights, float32 only when asked): :mod:`.inputs`; how
``"auto"`` chooses: :mod:`.auto`; the families: :mod:`.families`; Johnson's reweighting: :mod:`.reweighting`.
"""
from ..errors import NegativeCycleError
from .api import (NO_PREDECESSOR, HostWarning, bellman_ford, dijkstra, floyd_warshall, johnson,
                  shortest_path)
from .auto import Choice
from .inputs import PrecisionWarning
from .paths import construct_dist_matrix, construct_path, reconstruct_path

__all__ = ["shortest_path", "dijkstra", "bellman_ford", "johnson", "floyd_warshall",
           "construct_path", "reconstruct_path", "construct_dist_matrix", "Choice",
           "PrecisionWarning", "HostWarning", "NegativeCycleError", "NO_PREDECESSOR"]
