"""Paths from predecessor arrays (SciPy's convention: -9999 where there is none)."""
from __future__ import annotations

import numpy as np
from scipy.sparse import csgraph as scipy_csgraph

from ..errors import InputError
from ..solver import to_host

NO_PREDECESSOR = -9999


def construct_path(predecessors, source: int, target: int) -> list[int]:
    """The vertices of the shortest path ``source`` -> ``target`` that ``predecessors`` (the row
    of ``source``) records; ``[]`` when ``target`` is unreachable."""
    pred = np.asarray(to_host(predecessors))
    if pred.ndim != 1:
        raise InputError("construct_path takes one row of predecessors (the row of the source)")
    if target != source and pred[target] == NO_PREDECESSOR:
        return []
    path, v = [int(target)], int(target)
    while pred[v] != NO_PREDECESSOR:
        v = int(pred[v])
        path.append(v)
        if len(path) > len(pred):
            raise InputError("the predecessors form a cycle; they are not a shortest-path tree")
    if v != source:
        raise InputError(f"the predecessors of {target} lead to {v}, not to the source {source}; "
                         f"pass the row of source {source}")
    path.reverse()
    return path


def reconstruct_path(csgraph, predecessors, directed=True):
    """SciPy's ``reconstruct_path`` (the shortest-path tree as a sparse matrix). CuPy or
    cupyx.scipy.sparse input is answered on the host and returned as a cupyx CSR matrix."""
    device = _on_device(csgraph) or _on_device(predecessors)
    tree = scipy_csgraph.reconstruct_path(_host(csgraph), to_host(predecessors), directed=directed)
    if not device:
        return tree
    import cupyx.scipy.sparse as csp
    return csp.csr_matrix(tree.tocsr())


def construct_dist_matrix(graph, predecessors, directed=True, null_value=np.inf):
    """SciPy's ``construct_dist_matrix`` (the distances along the paths ``predecessors`` record;
    predecessors must be int32, as SciPy's TypeError says). CuPy input gives a CuPy result."""
    device = _on_device(graph) or _on_device(predecessors)
    dist = scipy_csgraph.construct_dist_matrix(_host(graph), to_host(predecessors), directed=directed,
                                               null_value=null_value)
    if not device:
        return dist
    from .. import gpu
    return gpu.cupy().asarray(dist)


def _on_device(x) -> bool:
    return type(x).__module__.startswith(("cupy", "cupyx"))


def _host(matrix):
    """A CuPy array or cupyx sparse matrix on the host (SciPy/NumPy input as it is)."""
    if not _on_device(matrix):
        return matrix
    return matrix.get()
