"""The hierarchy laid out for batched sweeps, and the NumPy reference of those sweeps.

Batched PHAST (Delling, Goldberg, Nowatzyk, Werneck, IPDPS 2011 / JPDC 2013, Sec. 4-5): the
vertices are numbered by level (:mod:`.contraction`), so a level is a contiguous range and its
in-arcs a contiguous slice of the CSR; the downward sweep reads the arcs in order, and each of K
trees keeps one column of a vertex-major (n x K) distance matrix. A source's upward search is
the set of vertices it reaches over upward arcs (stamped, level by level) with their distances;
the downward sweep then gives every vertex, from the top level down, the minimum of its upward
distance and its higher in-neighbours' distances plus the arc.

:func:`batched_sweeps_on_host` is that algorithm with NumPy, group by group, with the working
matrix starting from garbage as the GPU's reused one does (``phast_batched.cu``): it is the
kernels' reference, tested against SciPy's Dijkstra.

:func:`hierarchy_of` keeps a graph's hierarchy on the Graph object, in a bounded in-process LRU
keyed by the graph's content (:func:`graph_fingerprint`: a matrix given again, which becomes a new
Graph on every ``shortest_path`` call, is not contracted again) and, when a folder is named
(``cache_dir=`` or the environment variable ``APSP_HIERARCHY_CACHE``), in a ``.npz`` file per
graph there, written atomically, so that another process skips the contraction too.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import host_cpu
from ..errors import InputError
from ..graph import Graph
from .contraction import Hierarchy, compile_for, contract

HIERARCHY_KEY = "_phast_hierarchy"  # kept in the Graph's __dict__: pickled with it to every worker
FINGERPRINT_KEY = "_content_fingerprint"
CACHE_ENV = "APSP_HIERARCHY_CACHE"  # a folder for hierarchies on disk, one .npz per graph content
CACHE_MAX_BYTES = 4 << 30  # the in-process LRU keeps hierarchies up to this many bytes in all
CACHE_MAX_ENTRIES = 16
CACHE_FORMAT = 1  # bumped when the saved arrays change meaning
_ARRAYS = ("order", "rank", "level_ptr", "up_indptr", "up_sources", "up_weights", "down_indptr",
           "down_sources", "down_weights")


@dataclass
class SweepLayout:
    """Host arrays of the sweeps: ``up`` and ``down`` in-arc CSRs (by target, sources sorted),
    ``up_out`` (indptr, targets) the upward arcs by source, for stamping the upward search;
    ``level_of`` each vertex's level (new numbering), for the bucket a stamped vertex goes to."""

    n: int
    level_ptr: np.ndarray
    rank: np.ndarray
    up: tuple
    up_out: tuple
    down: tuple
    shortcuts: int
    level_of: np.ndarray

    @property
    def levels(self) -> int:
        return len(self.level_ptr) - 1

    @property
    def nbytes(self) -> int:
        arrays = (self.level_ptr, self.rank, *self.up, *self.up_out, *self.down, self.level_of)
        return int(sum(a.nbytes for a in arrays))

    def down_bytes(self) -> int:
        """Bytes of the downward graph one sweep reads (indptr, sources, weights)."""
        return int(sum(a.nbytes for a in self.down))


def host_graph(graph: Graph) -> Graph:
    """``graph`` with host arrays (a worker's device copy is brought back once, for contracting)."""
    if not graph.on_device:
        return graph
    return Graph(graph.n, graph.indptr.get(), graph.indices.get(), graph.weights.get(), name=graph.name,
                 meta=dict(graph.meta))


def graph_fingerprint(graph: Graph) -> str:
    """The graph's content as a key: blake2b over n, m, the weight dtype and the CSR arrays' bytes
    (their lengths are fixed by n and m, so no two graphs share the bytes hashed). Host arrays are
    read in place; a device graph's are copied to the host once for it. Kept on the Graph, whose
    arrays are not changed in place (its hierarchy is kept there too)."""
    kept = graph.__dict__.get(FINGERPRINT_KEY)
    if kept is not None:
        return kept
    h = hashlib.blake2b(digest_size=20)
    dtype = np.dtype(graph.dtype)
    h.update(f"csr:{graph.n}:{graph.m}:{dtype.str}".encode())
    for a, kind in ((graph.indptr, np.int32), (graph.indices, np.int32), (graph.weights, dtype)):
        a = a.get() if hasattr(a, "get") else a
        h.update(np.ascontiguousarray(a, dtype=kind).data)
    graph.__dict__[FINGERPRINT_KEY] = key = f"{graph.n}-{graph.m}-{dtype.name}-{h.hexdigest()}"
    return key


def has_hierarchy(graph: Graph, cache_dir=None) -> bool:
    """Whether :func:`hierarchy_of` would find ``graph``'s hierarchy without contracting it."""
    if HIERARCHY_KEY in graph.__dict__:
        return True
    key = graph_fingerprint(graph)
    folder = cache_folder(cache_dir)
    return CACHE.get(key) is not None or (folder is not None and (folder / f"{key}.npz").is_file())


def _nbytes(h: Hierarchy) -> int:
    return int(sum(a.nbytes for a in (h.order, h.rank, h.level_ptr, *h.up, *h.down)))


class HierarchyCache:
    """Hierarchies by graph fingerprint: an in-process LRU bounded by bytes and entries."""

    def __init__(self, max_bytes: int = CACHE_MAX_BYTES, max_entries: int = CACHE_MAX_ENTRIES):
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self._kept: OrderedDict[str, Hierarchy] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Hierarchy | None:
        with self._lock:
            h = self._kept.get(key)
            if h is not None:
                self._kept.move_to_end(key)
            return h

    def put(self, key: str, h: Hierarchy) -> None:
        with self._lock:
            self._kept[key] = h
            self._kept.move_to_end(key)
            while len(self._kept) > 1 and (len(self._kept) > self.max_entries or self.nbytes > self.max_bytes):
                self._kept.popitem(last=False)

    @property
    def nbytes(self) -> int:
        return sum(_nbytes(h) for h in self._kept.values())

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


CACHE = HierarchyCache()


def cache_folder(cache_dir=None) -> Path | None:
    """The folder hierarchies are saved in: ``cache_dir``, else ``$APSP_HIERARCHY_CACHE``, else None."""
    folder = cache_dir if cache_dir is not None else os.environ.get(CACHE_ENV) or None
    return None if folder is None else Path(folder).expanduser()


def save_hierarchy(h: Hierarchy, folder, key: str) -> Path:
    """``h`` as ``folder/<key>.npz``, written to a temporary file first and renamed into place,
    so that a reader never sees a partial file."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key}.npz"
    fd, tmp = tempfile.mkstemp(prefix=f".{key}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, format=np.int64(CACHE_FORMAT), key=np.array(key), shortcuts=np.int64(h.shortcuts),
                     **dict(zip(_ARRAYS, (h.order, h.rank, h.level_ptr, *h.up, *h.down))))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load_hierarchy(folder, key: str) -> Hierarchy | None:
    """The hierarchy saved for ``key`` in ``folder``, or None where there is none, or the file is
    unreadable, of another format, or for another graph (it is then contracted and saved again)."""
    path = Path(folder) / f"{key}.npz"
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            if int(z["format"]) != CACHE_FORMAT or str(z["key"]) != key:
                return None
            a = {name: z[name] for name in _ARRAYS}
            shortcuts = int(z["shortcuts"])
    except (OSError, ValueError, KeyError, EOFError):
        return None
    return Hierarchy(order=a["order"], rank=a["rank"], level_ptr=a["level_ptr"],
                     up=(a["up_indptr"], a["up_sources"], a["up_weights"]),
                     down=(a["down_indptr"], a["down_sources"], a["down_weights"]), shortcuts=shortcuts)


def hierarchy_of(graph: Graph, cache: bool = True, cache_dir=None) -> tuple[Hierarchy, float]:
    """The graph's hierarchy and the seconds contracting took now (0 when it was found; numba's
    compilation, once per process, is not in them: :func:`.contraction.compile_seconds`).

    Looked up on the Graph (so that a Graph pickled to Dask workers carries it), then, with
    ``cache``, in :data:`CACHE` by the graph's content, then in the cache folder
    (:func:`cache_folder`); contracted only where none has it, and then kept in all three."""
    h = graph.__dict__.get(HIERARCHY_KEY)
    if h is not None:
        return h, 0.0
    key = graph_fingerprint(graph) if cache else None
    folder = cache_folder(cache_dir) if cache else None
    h = CACHE.get(key) if cache else None
    if h is None and folder is not None:
        h = load_hierarchy(folder, key)
    seconds = 0.0
    if h is None:
        h, seconds = _contracted(graph)
        if folder is not None:
            save_hierarchy(h, folder, key)
    if cache:
        CACHE.put(key, h)
    graph.__dict__[HIERARCHY_KEY] = h
    return h, seconds


def _contracted(graph: Graph) -> tuple[Hierarchy, float]:
    host = host_graph(graph)
    with host_cpu.exclusive():  # a host-clock timing: notebooks beside it wait (none: no-op)
        compile_for(host.dtype)
        start = time.perf_counter()
        h = contract(host)
        seconds = time.perf_counter() - start
    return h, seconds


def out_csr(n: int, indptr: np.ndarray, srcs: np.ndarray) -> tuple:
    """An in-arc CSR by target turned into (indptr, targets) by source, each source's targets in
    order: a stable counting sort in numba (the contraction's, compiled with it), not NumPy's
    stable argsort (8 s against 1.7 for 59M arcs on two cores)."""
    from .parallel_lists import stable_order  # numba: imported on first use, compiled and cached with the contraction
    owner = np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
    by, ptr = stable_order(np.ascontiguousarray(srcs, dtype=np.int32), int(n))
    return ptr.astype(np.int32), owner[by]


def layout(h: Hierarchy) -> SweepLayout:
    n = len(h.order)
    levels = np.arange(h.levels, dtype=np.int32)
    return SweepLayout(n, h.level_ptr, h.rank, h.up, out_csr(n, h.up[0], h.up[1]), h.down, h.shortcuts,
                       np.repeat(levels, np.diff(h.level_ptr)))


def first_top_level(level_ptr: np.ndarray, top_level_max: int) -> int:
    """The lowest level from which every level above holds at most ``top_level_max`` vertices
    (those run inside one block per group; the levels below, one launch each)."""
    sizes = np.diff(np.asarray(level_ptr))
    big = np.flatnonzero(sizes > top_level_max)
    return int(big[-1]) + 1 if len(big) else 0


def top_level_shape(lay: SweepLayout, top_level_max: int) -> dict:
    """How much of the downward sweep runs in the top levels (inside one block per group, a
    barrier per level): their count, vertices and downward arcs, and the sum over them of each
    level's largest in-degree, the arcs a block reads one after another at the least."""
    ptr = np.asarray(lay.level_ptr, dtype=np.int64)
    first = first_top_level(ptr, top_level_max)
    indptr = np.asarray(lay.down[0], dtype=np.int64)
    arcs = indptr[ptr[1:]] - indptr[ptr[:-1]]
    degree = np.diff(indptr)
    top = range(first, lay.levels)
    widest = sum(int(degree[ptr[lv]:ptr[lv + 1]].max(initial=0)) for lv in top)
    total = int(arcs.sum())
    return {"top_levels": len(top), "top_vertices": int(lay.n - ptr[first]),
            "top_down_arcs": int(arcs[first:].sum()), "top_down_arcs_share": float(arcs[first:].sum() / max(total, 1)),
            "top_widest_in_degree_sum": widest}


def padded_sources(rank: np.ndarray, sources: np.ndarray, k: int) -> np.ndarray:
    """The sources' ranks, padded with -1 to a multiple of ``k`` (one group of k per block)."""
    count = len(sources)
    out = np.full(max(1, -(-count // k)) * k, -1, dtype=np.int32)
    out[:count] = rank[np.asarray(sources, dtype=np.int64)]
    return out


def batched_sweeps_on_host(lay: SweepLayout, sources, k: int, inf) -> np.ndarray:
    """Rows (len(sources), n) in the graph's numbering, ``inf`` where unreachable: the GPU's
    algorithm group by group (upward search by stamps, then the K-wide downward sweep)."""
    if k < 1:
        raise InputError(f"batched_sweeps_on_host: k must be positive, got {k}")
    n, ptr = lay.n, lay.level_ptr
    ranks = padded_sources(lay.rank, np.asarray(sources), k)
    dtype = lay.down[2].dtype
    wide = np.int64 if np.issubdtype(dtype, np.integer) else np.float64
    rows = np.empty((len(ranks), n), dtype=dtype)
    up_ptr, up_src, up_w = lay.up
    out_ptr, out_dst = lay.up_out
    dn_ptr, dn_src, dn_w = lay.down
    for g0 in range(0, len(ranks), k):
        group = ranks[g0:g0 + k]
        d = np.zeros((n, k), dtype=dtype)  # garbage: a sweep must never read what it did not write
        stamped = np.zeros(n, dtype=bool)
        stamped[group[group >= 0]] = True
        for lv in range(lay.levels):
            for v in range(ptr[lv], ptr[lv + 1]):
                if not stamped[v]:
                    continue
                best = np.where(group == v, 0, inf).astype(wide)
                arcs = np.arange(up_ptr[v], up_ptr[v + 1])
                arcs = arcs[stamped[up_src[arcs]]]
                if len(arcs):
                    best = np.minimum(best, _relaxed(d[up_src[arcs]], up_w[arcs], inf, wide).min(axis=0))
                d[v] = best
                stamped[out_dst[out_ptr[v]:out_ptr[v + 1]]] = True
        for lv in range(lay.levels - 1, -1, -1):
            lo, hi = ptr[lv], ptr[lv + 1]
            start = np.where(stamped[lo:hi, None], d[lo:hi], inf).astype(wide)
            a, b = dn_ptr[lo], dn_ptr[hi]
            if a < b:
                owner = np.repeat(np.arange(hi - lo), np.diff(dn_ptr[lo:hi + 1]))
                np.minimum.at(start, owner, _relaxed(d[dn_src[a:b]], dn_w[a:b], inf, wide))
            d[lo:hi] = start.astype(dtype)
        rows[g0:g0 + k] = d[lay.rank].T
    return rows[:len(sources)]


def _relaxed(du: np.ndarray, w: np.ndarray, inf, wide) -> np.ndarray:
    """d(u) + w per arc and column, ``inf`` where d(u) is (no overflow, as add_min on the GPU)."""
    du = du.astype(wide)
    return np.where(du >= inf, inf, du + np.asarray(w, dtype=wide)[:, None])
