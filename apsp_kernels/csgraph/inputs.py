"""What ``scipy.sparse.csgraph`` accepts, plus CuPy, cupyx.scipy.sparse and :class:`Graph`,
turned into the project's :class:`Graph` with SciPy's conventions:

* dense input: 0, inf and NaN mean "no edge" (so a dense matrix cannot hold a zero weight), and so,
  as in SciPy, does a float entry with ``|w| <= 1e-8`` and a masked entry of a NumPy masked array;
* sparse input: every stored entry is an edge, explicit zeros included; a COO matrix's
  duplicates are summed (as SciPy's COO -> CSR conversion does), a CSR matrix's duplicate
  entries keep the smallest (as SciPy's algorithms read them); an explicit inf is no edge;
* ``directed=False``: every edge can be used both ways (the smaller weight where both exist);
* ``unweighted=True``: every edge weighs 1;
* self loops: ignored when non-negative; a negative one is a negative cycle.

Precision contract (the one place it is written down; docs/library.md shows it as a table).
The ``dtype=`` keyword of ``shortest_path``, ``dijkstra``, ``bellman_ford`` and
``floyd_warshall`` picks it; distances always come back float64 with ``np.inf``, as SciPy's.

* whole numbers (any integer dtype, bool, whole floats), ``dtype=None``: int32 while every
  distance fits below ``INF_INT32 = 2**30 - 1`` (bound: :mod:`apsp_kernels.bounds`; exact),
  else float64, exact while the distance bound (with negative weights also
  ``(n + 1) * max|w|``) stays below ``2**53``; integer input above that is refused, since no
  dtype of the kernels holds those sums;
* other floats, ``dtype=None``: float64, SciPy's own precision: distances equal SciPy's within
  summation-order rounding (relative 1e-12);
* any weights, ``dtype=np.float64``: float64, as above (integers of ``2**53`` or more refused);
* any weights, ``dtype=np.float32`` (the opt-in: half the bytes, faster dense kernels): float32,
  about 7 significant digits (relative 1e-5); a weight that would overflow to inf, or flush to
  0 / a subnormal, in float32 is refused with an InputError naming it.

Nothing is flushed, overflowed or rounded silently: NaN, -inf and complex weights are refused;
int64 weights above ``2**30`` run in float64 (exact, on the GPU and on the host alike). A
:class:`Graph` passed in keeps its own dtype unless ``dtype=`` names another. CuPy input stays
on the device: the graph is built there, and results come back as CuPy arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from ..arrays import array_module
from ..graph import Graph, csr_from_arcs
from ..inf import FLOAT64_EXACT_INT, MAX_WEIGHT_INT32

DTYPES = (None, np.dtype(np.float32), np.dtype(np.float64))  # what ``dtype=`` takes
# SciPy reads a dense float entry within 1e-8 of the null value 0 as no edge (the absolute
# tolerance of np.ma.masked_values, which its csgraph_from_dense uses)
DENSE_NULL_ATOL = 1e-8
# meta key of an unweighted=True graph: whether an edge as given (dense null entries aside) was
# negative, for SciPy's Dijkstra warning, which looks at the weights that unweighted ignores
NEGATIVE_AS_GIVEN = "negative_weight_given"


class PrecisionWarning(UserWarning):
    """Kept for imports: float weights now run in float64 by default (float32 only with
    ``dtype=np.float32``), so nothing emits this any more."""


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


def prepare(csgraph, directed: bool = True, unweighted: bool = False, dtype=None) -> Prepared:
    """The input as a Graph (on the device for CuPy input) of the dtype the precision contract
    above gives; InputError for what cannot be one."""
    dtype = checked_dtype(dtype)
    if isinstance(csgraph, Graph):
        return Prepared(settled(_from_graph(csgraph, directed, unweighted, dtype)), csgraph.on_device)
    if sp.issparse(csgraph) or _is_cupyx_sparse(csgraph):
        csgraph = csgraph.tocsr()  # once: COO duplicates summed, CSR duplicates kept
        if directed and not unweighted:
            g = canonical_csr_graph(csgraph, dtype)
            if g is not None:
                return Prepared(settled(g), g.on_device)
    return from_arcs(csgraph, directed, unweighted, dtype)


def checked_dtype(dtype) -> np.dtype | None:
    """``dtype=`` as given to the public functions: None, np.float32 or np.float64."""
    if dtype is None:
        return None
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt not in DTYPES[1:]:
        raise InputError(f"dtype must be None (float64 for float weights, exact int32 or float64 for "
                         f"whole numbers), np.float64 or np.float32 (the opt-in), got {dtype!r}")
    return dt


def from_arcs(csgraph, directed: bool, unweighted: bool, dtype=None) -> Prepared:
    """:func:`prepare` for any matrix: its arcs through :meth:`Graph.from_edges`."""
    if _is_cupyx_sparse(csgraph) or sp.issparse(csgraph):
        n, src, dst, w = _sparse_arcs(csgraph)
    else:
        n, src, dst, w = _dense_arcs(csgraph)
    xp = array_module(w)
    meta = {}
    if unweighted:
        meta[NEGATIVE_AS_GIVEN] = bool((w < 0).any())
        w = xp.ones(len(w), dtype=np.int32)
    kind = weight_dtype(xp, w, dtype)
    g = settled(Graph.from_edges(n, src, dst, w, dtype=kind, name="csgraph", undirected=not directed,
                                 meta={"integer_weights": w.dtype.kind in "biu", **meta}))
    rounded = g.dtype == np.float32 and xp is np and bool((w.astype(np.float32) != w).any())
    return Prepared(g, xp is not np, (src, dst, w) if rounded else None)


def canonical_csr_graph(a, dtype=None) -> Graph | None:
    """A SciPy or CuPy CSR matrix that is already what a Graph holds (sorted, unique columns per
    row, no self loop, finite weights that the graph's dtype holds exactly) as that Graph (on the
    matrix's side), without taking it apart into arcs and sorting them again; None for anything
    else, which :func:`from_arcs` takes."""
    n = _square(a.shape)
    w = a.data
    if w.dtype.kind not in "biuf" or a.nnz >= 2**31 or not a.has_canonical_format:
        return None
    xp = array_module(w)
    if w.dtype.kind == "f" and not bool(xp.isfinite(w).all()):
        return None
    kind = weight_dtype(xp, w, dtype)
    if kind == np.float32:
        return None  # the opt-in: from_arcs checks the weights and keeps the input's own for SciPy
    weights = w.astype(kind)
    if kind == np.float64:
        weights += 0.0  # -0.0 -> 0.0, as Graph.from_edges
    g = Graph(n, a.indptr.astype(np.int32), a.indices.astype(np.int32), weights, name="csgraph",
              meta={"undirected": False, "integer_weights": w.dtype.kind in "biu"})
    return None if bool((g.sources_of_arcs == g.indices).any()) else g  # a self loop


def _from_graph(g: Graph, directed: bool, unweighted: bool, dtype=None) -> Graph:
    if directed and not unweighted and (dtype is None or dtype == g.dtype):
        return g
    xp = g.xp
    w = xp.ones(g.m, dtype=np.int32) if unweighted else g.weights
    meta = {**g.meta, NEGATIVE_AS_GIVEN: g.has_negative_weights} if unweighted else g.meta
    return Graph.from_edges(g.n, g.sources_of_arcs, g.indices, w, dtype=dtype or w.dtype, name=g.name,
                            undirected=not directed, meta=meta)


def settled(g: Graph) -> Graph:
    """``g``, or for an int32 graph whose distances (or Bellman-Ford walks) could reach
    ``INF_INT32``, the same arcs in float64: exact while those sums stay below ``2**53``, refused
    above (no dtype the kernels have holds them); integer input in float64 likewise. Float input
    runs in float64 as SciPy's does, whatever its sums."""
    if g.dtype == np.float32 or not g.m:
        return g
    if g.dtype == np.int32:
        try:
            g.check_int32_range("csgraph")
            return g
        except InputError:
            pass
        g = Graph(g.n, g.indptr, g.indices, g.weights.astype(np.float64), name=g.name,
                  meta={**g.meta, "widened_from": "int32"})
    if g.dtype == np.float64 and (g.meta.get("widened_from") or g.meta.get("integer_weights")):
        _check_float64_exact(g)
    return g


def _whole(xp, w) -> bool:
    return bool((w == xp.round(w)).all())


def _check_float64_exact(g: Graph) -> None:
    """InputError when the whole-number weights of float64 graph ``g`` could sum to ``2**53``."""
    a = abs(g.weights)
    amax = float(a.max())
    walks = (g.n + 1) * amax if g.has_negative_weights else 0.0
    loose = amax * (g.n - 1)
    if walks < FLOAT64_EXACT_INT and loose < FLOAT64_EXACT_INT:
        return
    path = float(g.distance_bound)
    bound = max(path, walks, amax)
    if bound >= FLOAT64_EXACT_INT:
        raise InputError(f"csgraph has whole-number weights (largest |w| = {float(a.max()):.17g}) whose "
                         f"shortest paths may reach {bound:.6g} >= 2**53: int32 cannot hold those "
                         f"distances and float64 stops being exact there, so no dtype of the kernels "
                         f"holds them; rescale the weights, or pass float weights and accept rounding "
                         f"(scipy.sparse.csgraph computes them in float64 likewise)")


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
        edge = (abs(a) > DENSE_NULL_ATOL) & xp.isfinite(a)
    else:
        edge = a != 0
    rows, cols = xp.nonzero(edge)
    return n, rows, cols, a[rows, cols]


def weight_dtype(xp, w, dtype=None) -> np.dtype:
    """The dtype the contract gives weights ``w``: ``dtype`` when one is asked for; else int32
    for whole numbers that fit the int32 convention (:func:`settled` widens the graph when its
    distances do not), float64 for every other weight."""
    if dtype is not None:
        return np.dtype(dtype)
    if not len(w):
        return np.dtype(np.int32)
    if w.dtype.kind in "biu":
        if w.dtype.kind == "u" and w.dtype.itemsize == 8 and int(w.max()) >= 2**63:
            raise InputError(f"csgraph has an unsigned weight of {int(w.max())}, beyond 2**63 and "
                             f"float64's exact integers; rescale the weights")
        return np.dtype(np.int32 if float(abs(w.astype(np.float64)).max()) <= MAX_WEIGHT_INT32
                        else np.float64)
    fits = float(abs(w).max()) <= MAX_WEIGHT_INT32 and _whole(xp, w)
    return np.dtype(np.int32 if fits else np.float64)
