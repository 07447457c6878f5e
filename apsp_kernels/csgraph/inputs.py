"""What ``scipy.sparse.csgraph`` accepts, plus CuPy, cupyx.scipy.sparse and :class:`Graph`,
turned into the project's :class:`Graph` with SciPy's conventions:

* dense input: 0, inf and NaN mean "no edge" (so a dense matrix cannot hold a zero weight); so
  does a masked entry of a NumPy masked array;
* sparse input: every stored entry is an edge, explicit zeros included; a COO matrix's
  duplicates are summed (as SciPy's COO -> CSR conversion does), a CSR matrix's duplicate
  entries keep the smallest (as SciPy's algorithms read them); an explicit inf is no edge;
* ``directed=False``: every edge can be used both ways (the smaller weight where both exist);
* ``unweighted=True``: every edge weighs 1;
* self loops: ignored when non-negative; a negative one is a negative cycle.

Weights: whole numbers with ``|w| <= 2**30`` run in int32 (exact); other weights run in float32
on the GPU (about 7 significant digits; :class:`PrecisionWarning`, once) and in float64 where
SciPy runs them on the host. CuPy input stays on the device: the graph is built there, and
results come back as CuPy arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from ..graph import Graph, array_module, csr_from_arcs
from ..inf import MAX_WEIGHT_INT32


class PrecisionWarning(UserWarning):
    """Weights that are not whole numbers run in float32 on the GPU."""


@dataclass(frozen=True)
class Prepared:
    graph: Graph
    device: bool                       # CuPy in -> CuPy out
    float64_arcs: tuple | None = None  # (src, dst, w) as given, where float32 rounds the weights

    @property
    def rounded(self) -> bool:
        """True when the graph's float32 weights are rounded from the input's."""
        return self.float64_arcs is not None

    def host_matrix(self) -> sp.csr_matrix:
        """The graph as a SciPy CSR matrix with the input's own weights (float64)."""
        g = self.graph
        if not self.rounded:
            return g.to_scipy()
        src, dst, w = self.float64_arcs
        if g.meta.get("undirected"):
            src, dst, w = np.r_[src, dst], np.r_[dst, src], np.r_[w, w]
        keep = src != dst
        indptr, indices, w = csr_from_arcs(np, g.n, src[keep], dst[keep], w[keep].astype(np.float64))
        return sp.csr_matrix((w, indices, indptr), shape=(g.n, g.n))


def prepare(csgraph, directed: bool = True, unweighted: bool = False) -> Prepared:
    """The input as a Graph (on the device for CuPy input); InputError for what cannot be one."""
    if isinstance(csgraph, Graph):
        return Prepared(_from_graph(csgraph, directed, unweighted), csgraph.on_device)
    if sp.issparse(csgraph):
        csgraph = csgraph.tocsr()  # once: COO duplicates summed, CSR duplicates kept
        if directed and not unweighted:
            g = canonical_csr_graph(csgraph)
            if g is not None:
                return Prepared(g, False)
    return from_arcs(csgraph, directed, unweighted)


def from_arcs(csgraph, directed: bool, unweighted: bool) -> Prepared:
    """:func:`prepare` for any matrix: its arcs through :meth:`Graph.from_edges`."""
    if _is_cupyx_sparse(csgraph) or sp.issparse(csgraph):
        n, src, dst, w = _sparse_arcs(csgraph)
    else:
        n, src, dst, w = _dense_arcs(csgraph)
    xp = array_module(w)
    dtype = np.int32 if unweighted else _weight_dtype(xp, w)
    if unweighted:
        w = xp.ones(len(w), dtype=np.int32)
    g = Graph.from_edges(n, src, dst, w, dtype=dtype, name="csgraph", undirected=not directed)
    rounded = dtype == np.float32 and xp is np and bool((w.astype(np.float32) != w).any())
    return Prepared(g, xp is not np, (src, dst, w) if rounded else None)


def canonical_csr_graph(a) -> Graph | None:
    """A SciPy CSR matrix that is already what a Graph holds (sorted, unique columns per row, no
    self loop, finite weights that the graph's dtype holds exactly) as that Graph, without
    taking it apart into arcs; None for anything else, which :func:`from_arcs` takes."""
    n = _square(a.shape)
    w = a.data
    if w.dtype.kind not in "biuf" or a.nnz >= 2**31 or not a.has_canonical_format:
        return None
    if w.dtype.kind == "f" and not bool(np.isfinite(w).all()):
        return None
    weights = w.astype(_weight_dtype(np, w))
    if weights.dtype == np.float32 and bool((weights != w).any()):
        return None  # rounded: from_arcs keeps the input's own weights for SciPy on the host
    g = Graph(n, a.indptr.astype(np.int32), a.indices.astype(np.int32), weights, name="csgraph",
              meta={"undirected": False})
    return None if bool((g.sources_of_arcs == g.indices).any()) else g  # a self loop


def _from_graph(g: Graph, directed: bool, unweighted: bool) -> Graph:
    if directed and not unweighted:
        return g
    xp = g.xp
    w = xp.ones(g.m, dtype=np.int32) if unweighted else g.weights
    return Graph.from_edges(g.n, g.sources_of_arcs, g.indices, w, dtype=w.dtype, name=g.name,
                            undirected=not directed, meta=g.meta)


def _is_cupyx_sparse(x) -> bool:
    return type(x).__module__.startswith("cupyx.scipy.sparse")


def _square(shape) -> int:
    if len(shape) != 2 or shape[0] != shape[1]:
        raise InputError(f"csgraph must be a square (n, n) matrix, got shape {tuple(shape)}")
    if shape[0] < 1:
        raise InputError("csgraph has no vertices (shape (0, 0))")
    return int(shape[0])


def _sparse_arcs(a):
    n = _square(a.shape)
    coo = a.tocsr().tocoo()  # COO duplicates are summed by tocsr, CSR duplicates kept
    xp = array_module(coo.data)
    w = coo.data
    if w.dtype.kind == "c":
        raise InputError("csgraph has complex weights; pass real weights")
    if w.dtype.kind == "f" and not bool(xp.isfinite(w).all()):
        if bool(xp.isnan(w).any()):
            raise InputError("csgraph has a NaN weight; remove that entry or give it a number")
        if bool((w == -xp.inf).any()):
            raise InputError("csgraph has a weight of -inf; shortest paths are undefined")
        edge = ~xp.isinf(w)
        return n, coo.row[edge], coo.col[edge], w[edge]
    return n, coo.row, coo.col, w


def _dense_arcs(a):
    if np.ma.isMaskedArray(a):
        a = a.filled(0)  # masked entries are no edge, as in SciPy's csgraph_from_masked
    xp = array_module(a)
    a = xp.asarray(a)
    n = _square(a.shape)
    if a.dtype.kind == "c":
        raise InputError("csgraph has complex weights; pass real weights")
    if a.dtype.kind == "f":
        if bool((a == -xp.inf).any()):
            raise InputError("csgraph has a weight of -inf; shortest paths are undefined")
        edge = (a != 0) & xp.isfinite(a)
    else:
        edge = a != 0
    rows, cols = xp.nonzero(edge)
    return n, rows, cols, a[rows, cols]


def _weight_dtype(xp, w) -> np.dtype:
    """int32 for whole numbers that fit the int32 convention, float32 otherwise."""
    if not len(w) or w.dtype.kind in "biu":
        if len(w) and float(abs(w.astype(np.float64)).max()) > MAX_WEIGHT_INT32:
            raise InputError(f"csgraph has an integer weight above {MAX_WEIGHT_INT32} in magnitude; "
                             f"rescale it or pass float weights")
        return np.dtype(np.int32)
    whole = bool((w == xp.round(w)).all()) and float(abs(w).max()) <= MAX_WEIGHT_INT32
    return np.dtype(np.int32 if whole else np.float32)
