"""The project's one graph type: CSR arrays, a reverse (CSC) view and a dense view.

Policies (the same for every generator, parser and method):

* Parallel edges keep the MINIMUM weight (``scipy.sparse`` COO->CSR would sum them).
* Self loops are dropped: a non-negative loop never shortens a path. A negative
  self loop is a negative cycle and raises :class:`InputError`.
* NaN or infinite weights raise :class:`InputError`; integer weights must be
  integral and ``|w| <= MAX_WEIGHT_INT32`` so that ``INF_INT32 + w`` cannot overflow.
  float32 weights must be what was given (no overflow to inf, no flush of a non-zero weight
  to 0 or to a subnormal); float64 weights are stored as given (``-0.0`` reads as ``0.0``).
* Vertex ids are 0-based; CSR rows are sorted by (source, target).
* ``weights`` are int32, float32 or float64, the kernels' own representation (see :mod:`inf`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .arrays import array_module
from .bounds import distance_bound
from .errors import InputError, NegativeCycleError
from .inf import FLOAT64_EXACT_INT, INF_INT32, MAX_WEIGHT_INT32, WEIGHT_DTYPES, inf_for


FLOAT32_EXACT_INT = 2**24  # float32 holds every integer below this
CYCLE_WARNING = ("with zero weights its predecessors could go round a zero-weight cycle; run "
                 "it without paths/parents, or use a Bellman-Ford method")


@dataclass(frozen=True, eq=False)
class Graph:
    """A directed weighted graph in CSR form.

    ``meta`` carries provenance: ``source`` (file, generator call), ``stand_in``
    (True when the graph replaces a dataset that was not available) and ``label``.
    """

    n: int
    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray
    name: str = "graph"
    meta: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ build
    @classmethod
    def from_edges(cls, n, src, dst, w, *, dtype=np.int32, name="graph",
                   undirected=False, meta=None) -> "Graph":
        """Build from edge arrays (0-based ids); see the module docstring for policies.

        ``undirected=True`` stores each edge in both directions.
        """
        n = int(n)
        if n < 1:
            raise InputError(f"{name}: a graph needs at least one vertex, got n={n}")
        dtype = np.dtype(dtype)
        if dtype not in WEIGHT_DTYPES:
            raise InputError(f"{name}: weights must be int32, float32 or float64, not {dtype}")
        xp = array_module(src, dst, w)
        src, dst, w = (xp.asarray(a).ravel() for a in (src, dst, w))
        if not (len(src) == len(dst) == len(w)):
            raise InputError(f"{name}: src, dst and w differ in length "
                             f"({len(src)}, {len(dst)}, {len(w)})")
        if len(src):
            lo = int(min(src.min(), dst.min()))
            hi = int(max(src.max(), dst.max()))
            if lo < 0 or hi >= n:
                raise InputError(f"{name}: vertex id out of range [0, {n}): saw {lo}..{hi}")
        w = _checked_weights(xp, w, dtype, name)
        src = src.astype(np.int64)
        dst = dst.astype(np.int64)
        if undirected:
            src, dst = xp.concatenate([src, dst]), xp.concatenate([dst, src])
            w = xp.concatenate([w, w])
        loops = src == dst
        if bool(loops.any()):
            if bool((w[loops] < 0).any()):
                raise NegativeCycleError(f"{name}: a negative self loop is a negative cycle")
            keep = ~loops
            src, dst, w = src[keep], dst[keep], w[keep]
        if len(src) >= 2**31:
            raise InputError(f"{name}: {len(src)} edges exceed the int32 CSR index range")
        key = src * n + dst
        if len(key) and not bool((key[1:] > key[:-1]).all()):
            indptr, dst, w = csr_from_arcs(xp, n, src, dst, w)
        else:  # already sorted and unique: nothing to do
            indptr = xp.zeros(n + 1, dtype=np.int32)
            indptr[1:] = xp.cumsum(xp.bincount(src, minlength=n))
        meta = dict(meta or {})
        meta.setdefault("undirected", bool(undirected))
        return cls(n, indptr, dst.astype(np.int32), w, name=name, meta=meta)

    @classmethod
    def from_dense(cls, mat, *, dtype=None, name="graph", meta=None) -> "Graph":
        """From an n x n matrix where INF (or np.inf) marks no edge; the diagonal is ignored."""
        mat = np.asarray(mat)
        if dtype is None:
            dtype = np.int32 if np.issubdtype(mat.dtype, np.integer) else \
                mat.dtype if mat.dtype == np.float32 else np.float64
        dtype = np.dtype(dtype)
        noedge = ~np.isfinite(mat) if mat.dtype.kind == "f" else mat >= INF_INT32
        rows, cols = np.nonzero(~noedge)
        return cls.from_edges(mat.shape[0], rows, cols, mat[rows, cols], dtype=dtype,
                              name=name, meta=meta)

    # --------------------------------------------------------------- queries
    @property
    def m(self) -> int:
        """Number of stored (directed) arcs."""
        return int(self.indices.shape[0])

    @property
    def dtype(self) -> np.dtype:
        return self.weights.dtype

    @property
    def inf(self):
        """The INF sentinel of this graph's distance type."""
        return inf_for(self.dtype)

    @property
    def on_device(self) -> bool:
        """True when the CSR arrays are CuPy arrays (a graph built from CuPy input)."""
        return not isinstance(self.indptr, np.ndarray)

    @property
    def xp(self):
        """numpy, or cupy for a graph on the device."""
        if self.on_device:
            from . import gpu
            return gpu.cupy()
        return np

    @property
    def is_stand_in(self) -> bool:
        return bool(self.meta.get("stand_in", False))

    def as_stand_in(self, label: str, name: str | None = None, **meta) -> "Graph":
        """This graph (arrays shared; renamed when ``name`` is given) labelled as the stand-in it
        is: ``meta["stand_in"]``, ``label`` and any further provenance keys."""
        return replace(self, name=self.name if name is None else name,
                       meta={**self.meta, "stand_in": True, "label": label, **meta})

    @cached_property
    def min_weight(self):
        return self.weights.min() if self.m else 0

    @cached_property
    def max_weight(self):
        return self.weights.max() if self.m else 0

    @cached_property
    def has_negative_weights(self) -> bool:
        return bool(self.m and self.min_weight < 0)  # once: on the device each read is a sync

    @cached_property
    def degrees(self) -> np.ndarray:
        """Out-degree per vertex."""
        return self.indptr[1:] - self.indptr[:-1]

    @cached_property
    def sources_of_arcs(self) -> np.ndarray:
        """The source vertex of every stored arc (COO row array)."""
        xp = self.xp
        if self.on_device:
            return xp.searchsorted(self.indptr[1:], xp.arange(self.m), side="right").astype(xp.int32)
        return np.repeat(np.arange(self.n, dtype=np.int32), self.degrees)

    @cached_property
    def arc_keys(self) -> np.ndarray:
        """Sorted int64 keys ``src * n + dst`` of the arcs, for vectorised arc look-ups."""
        return self.sources_of_arcs.astype(np.int64) * self.n + self.indices

    @cached_property
    def distance_bound(self) -> int:
        """An upper bound on ``|d(u, v)|`` over every pair joined by a path: see :mod:`.bounds`."""
        return distance_bound(self)

    @cached_property
    def weight_sum(self) -> int:
        """The sum of ``|w|`` over the arcs of an int32 graph: a path uses an arc at most once, so
        this bounds ``|d(u, v)|`` too, more loosely than ``distance_bound`` but in one pass."""
        w = self.weights
        return int(w.sum(dtype=np.int64) if not self.has_negative_weights else abs(w.astype(np.int64)).sum())

    def _bound_reaches(self, limit: int) -> int | None:
        """``distance_bound`` when it is ``>= limit``, else None (without computing it when
        ``weight_sum`` already stays below ``limit``)."""
        if self.weight_sum < limit:
            return None
        return self.distance_bound if self.distance_bound >= limit else None

    def check_int32_range(self, method: str) -> None:
        """Raise InputError naming ``method`` when an int32 distance could reach INF_INT32.

        With negative weights the Bellman-Ford iterations also hold lengths of walks of up to
        ``n + 1`` arcs, so ``(n + 1) * max|w|`` must stay below the limit too.
        """
        if self.dtype != np.int32 or not self.m:
            return
        walks = (self.n + 1) * int(-self.min_weight) if self.has_negative_weights else 0
        bound = max(self._bound_reaches(INF_INT32) or 0, walks)
        if bound >= INF_INT32:
            raise InputError(
                f"{method}: a shortest path of {self.name} may be as long as {bound:,}, at or above "
                f"the int32 distance limit INF_INT32 = {INF_INT32:,} (it would read as unreachable); "
                f"rescale the weights, build the graph with dtype=np.float64 (exact below 2**53), "
                f"or call apsp_kernels.shortest_path, which picks float64 for such weights")

    def require_nonnegative(self, method: str) -> None:
        """Raise InputError naming ``method`` when a weight is negative."""
        if self.has_negative_weights:
            raise InputError(f"{method} needs non-negative weights, but {self.name} has a "
                             f"weight of {self.min_weight}; use a Bellman-Ford method instead")

    def check_float32_exact(self, method: str) -> None:
        """Raise InputError naming ``method`` (a float32 kernel) when int32 weights could give a
        distance of 2**24 or more, where float32 stops holding every integer, or when the weights
        are float64 (a float32 kernel would round them)."""
        if self.dtype == np.float64:
            raise InputError(f"{method} computes in float32 only, but {self.name} has float64 weights "
                             f"(they would be rounded); use a method with float64 kernels (R-Kleene, "
                             f"bodra's fw_tiled_shared, the SSSP families), or build the graph with "
                             f"dtype=np.float32 to opt in to float32")
        bound = self._bound_reaches(FLOAT32_EXACT_INT) if self.dtype == np.int32 and self.m else None
        if bound is not None:
            raise InputError(f"{method} computes in float32, but {self.name} has int32 weights whose "
                             f"path lengths may reach {bound:,} >= 2^24 and would be "
                             f"rounded; use an int32 method, or pass a float32 graph")

    def require_positive(self, method: str, why: str) -> None:
        """Raise InputError naming ``method`` when a weight is zero or negative (``why`` says why)."""
        if self.m and self.min_weight <= 0:
            raise InputError(f"{method} needs positive weights ({why}), but {self.name} has a weight "
                             f"of {self.min_weight}")

    def require_int32(self, method: str) -> None:
        """Raise InputError naming ``method`` when the weights are not int32."""
        if self.dtype != np.int32:
            raise InputError(f"{method} needs int32 weights (bodra's kernels are integer), but "
                             f"{self.name} has {self.dtype}; build the graph with dtype=np.int32")

    # ----------------------------------------------------------------- views
    @cached_property
    def reverse(self) -> "Graph":
        """The transpose (CSC of this graph as a CSR): in-arcs per vertex, for predecessor kernels."""
        name, meta = self.name + "^T", dict(self.meta)
        if self.on_device:
            return Graph(self.n, *csr_from_arcs(self.xp, self.n, self.indices, self.sources_of_arcs,
                                                self.weights), name=name, meta=meta)
        t = self.to_scipy(dtype=self.dtype).T.tocsr()
        t.sort_indices()
        return Graph(self.n, t.indptr.astype(np.int32), t.indices.astype(np.int32),
                     t.data.astype(self.dtype), name=name, meta=meta)

    def to_scipy(self, dtype=np.float64) -> sp.csr_matrix:
        """SciPy CSR matrix (on the host, for a graph on the device too); explicit zero weights
        stay edges (csgraph treats them so)."""
        arrays = (self.weights.astype(dtype), self.indices, self.indptr)
        if self.on_device:
            arrays = tuple(a.get() for a in arrays)
        return sp.csr_matrix(arrays, shape=(self.n, self.n))

    def csr_gpu(self):
        """(indptr, indices, weights) as cupy arrays (3 uploads, no conversion)."""
        from . import gpu
        cp = gpu.cupy()
        return cp.asarray(self.indptr), cp.asarray(self.indices), cp.asarray(self.weights)

    @cached_property
    def dense_arcs(self) -> tuple:
        """(src, dst, w) of the arcs a dense matrix holds: int32 arcs of weight >= INF_INT32
        are left out (no shortest path uses one once :meth:`check_int32_range` passed, and then
        any two entries of the matrix sum below 2**31)."""
        src, dst, w = self.sources_of_arcs, self.indices, self.weights
        if self.dtype == np.int32 and self.m and int(self.max_weight) >= INF_INT32:
            light = w < INF_INT32
            return src[light], dst[light], w[light]
        return src, dst, w

    def dense_nbytes(self) -> int:
        return self.n * self.n * self.dtype.itemsize

    def dense(self) -> np.ndarray:
        """n x n host matrix in the kernels' representation: INF off-edge, 0 on the diagonal."""
        out = np.full((self.n, self.n), self.inf, dtype=self.dtype)
        src, dst, w = self.dense_arcs
        out[src, dst] = w
        np.fill_diagonal(out, 0)
        return out

    def dense_gpu(self, padded_n: int | None = None):
        """The dense view built on the GPU from the CSR arrays (memory checked first).

        ``padded_n >= n`` pads with isolated vertices (INF rows/columns, 0 diagonal).
        """
        from . import gpu
        cp = gpu.cupy()
        size = padded_n or self.n
        if size < self.n:
            raise InputError(f"padded_n={size} is smaller than n={self.n}")
        gpu.require_memory(size * size * self.dtype.itemsize, f"dense {size}x{size} matrix of {self.name}")
        out = cp.full((size, size), self.inf, dtype=self.dtype)
        src, dst, w = (cp.asarray(a) for a in self.dense_arcs)
        out[src, dst] = w
        idx = cp.arange(size)
        out[idx, idx] = 0
        return out

    def __repr__(self) -> str:
        tag = " (stand-in)" if self.is_stand_in else ""
        return f"Graph({self.name!r}{tag}, n={self.n}, m={self.m}, weights={self.dtype})"


def csr_from_arcs(xp, n: int, src, dst, w):
    """(indptr, indices, weights) of the arcs sorted by (src, dst); numpy or cupy alike.

    Parallel arcs keep the minimum weight; the arrays must hold no self loops.
    """
    key = src.astype(xp.int64) * n + dst
    order = xp.lexsort(xp.stack([w, key]))  # by key, then weight: the first of a key is its minimum
    key, w = key[order], w[order]
    first = xp.ones(len(key), dtype=bool)
    first[1:] = key[1:] != key[:-1]
    key, w = key[first], w[first]
    indptr = xp.zeros(n + 1, dtype=xp.int32)
    indptr[1:] = xp.cumsum(xp.bincount(key // n, minlength=n))
    return indptr, (key % n).astype(xp.int32), w


def _checked_weights(xp, w, dtype: np.dtype, name: str):
    if w.dtype.kind == "f":
        bad = ~xp.isfinite(w)
        if bool(bad.any()):
            i = int(xp.flatnonzero(bad)[0])
            raise InputError(f"{name}: weight of edge #{i} is {w[i]}; weights must be finite numbers")
    if dtype == np.int32:
        if w.dtype.kind == "f" and bool((w != xp.round(w)).any()):
            raise InputError(f"{name}: int32 weights must be whole numbers; pass dtype=np.float64")
        if len(w) and float(abs(w.astype(np.float64)).max()) > MAX_WEIGHT_INT32:
            raise InputError(f"{name}: |weight| above {MAX_WEIGHT_INT32} would overflow the int32 "
                             f"INF convention; pass dtype=np.float64 (exact below 2**53)")
    if dtype == np.float32:
        check_float32_weights(xp, w, name)
    if dtype == np.float64 and w.dtype.kind in "iu" and len(w) and \
            int(abs(w.astype(np.float64)).max()) >= FLOAT64_EXACT_INT:
        raise InputError(f"{name}: integer weight {int(abs(w).max())} (|w| >= 2**53): int32 holds "
                         f"|w| <= 2**30 and float64 is exact only below 2**53, so no dtype of the "
                         f"kernels holds it exactly; rescale the weights")
    out = w.astype(dtype)
    if dtype != np.int32:
        out += dtype.type(0)  # -0.0 -> +0.0: the kernels' atomic min orders the bit patterns
    return out


def check_float32_weights(xp, w, name: str) -> None:
    """InputError naming the first weight that float32 cannot hold: one that overflows to inf,
    or a non-zero one that flushes to 0 or becomes subnormal (the kernels flush those)."""
    if not len(w) or w.dtype == np.float32:
        return
    w64 = w.astype(np.float64)
    a = xp.abs(w64)
    tiny = float(np.finfo(np.float32).tiny)
    big = float(np.finfo(np.float32).max)
    bad = (a > big) | ((a < tiny) & (a > 0))
    if bool(bad.any()):
        i = int(xp.flatnonzero(bad)[0])
        value = float(w64[i])
        what = "overflows to inf" if abs(value) > big else "is below float32's smallest normal number and would flush to 0"
        raise InputError(f"{name}: weight {value!r} (arc #{i}) {what} in float32; drop the float32 "
                         f"opt-in (dtype=None or np.float64 computes in float64, as SciPy) or rescale "
                         f"the weights")
