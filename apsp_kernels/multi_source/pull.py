"""Many single-source problems at once on the GPU, usable outside the timing lifecycle.

okuyama's SSSP-based APSP (Fig. 10-13: one SSSP per source, N sources per group) and the
all-sources runs split over GPUs call :func:`multi_source_distances` per block of sources. The K
problems of a block share one pass over the graph: a (min,+) SpMM pull over the reverse CSR with
a K-wide distance row per vertex (vertex-major, 16-byte loads per lane), restricted to the
(vertex, 128-column chunk) pairs whose in-neighbours changed, swept in place until a sweep lowers
nothing (see ``pull.cu``). The host reads the per-sweep flags once per batch of sweeps (8, then
doubling up to ``max_batch``), never once per sweep.

Device graphs: a :class:`Graph` whose arrays are CuPy arrays is used as it is (its ``reverse`` is
built on the device once and cached on the graph); a host graph is uploaded on first use and the
device copy is kept for as long as the Graph object lives, so repeated calls do not upload it again.
"""
from __future__ import annotations

import weakref

import numpy as np

from .. import gpu
from ..errors import InputError
from ..solver import checked_sources
from ..inf import kernel_suffix

_CU = gpu.cu_path(__file__, "pull.cu")
CHUNK = 128            # MS_CHUNK: columns of D per warp task (32 lanes x 4)
BLOCK = 256
_DEVICE_CSR: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def padded_width(k: int) -> int:
    """Row stride of D: k rounded up to a multiple of 4 (16-byte rows)."""
    return max(4, -(-int(k) // 4) * 4)


def chunk_count(k: int) -> int:
    return -(-padded_width(k) // CHUNK)


def bytes_needed(graph, k: int, contiguous: bool = True, predecessors: bool = False) -> int:
    """Device bytes of one pass over ``k`` sources (the graph counted when it is on the host)."""
    n, m, item = graph.n, graph.m, graph.dtype.itemsize
    kp, nc = padded_width(k), chunk_count(k)
    total = n * kp * item + 2 * 4 * n * nc + 4 * (n + 3) + 4 * k
    if contiguous:
        total += k * n * item
    if predecessors:
        total += n * kp * 4 + k * n * 4
    if not graph.on_device and graph not in _DEVICE_CSR:
        total += 2 * (4 * (n + 1) + m * (4 + item))
    return total


def device_csr(graph) -> tuple:
    """(indptr, indices, rindptr, rindices, rweights) on the device, uploaded once per Graph."""
    if graph.on_device:
        rev = graph.reverse
        return graph.indptr, graph.indices, rev.indptr, rev.indices, rev.weights
    arrays = _DEVICE_CSR.get(graph)
    if arrays is None:
        cp = gpu.cupy()
        rev = graph.reverse
        arrays = tuple(cp.asarray(a) for a in (graph.indptr, graph.indices, rev.indptr, rev.indices,
                                               rev.weights))
        _DEVICE_CSR[graph] = arrays
    return arrays


class MultiSourcePull:
    """Buffers and kernels for passes of up to ``k`` sources on ``graph``; reusable across passes.

    ``check_every``: sweeps in the first batch between host reads (it doubles up to
    ``max_batch``); ``blocks_per_sm``: resident blocks of 256 threads per SM for the sweeps.
    """

    def __init__(self, graph, k: int, check_every=8, max_batch=64, blocks_per_sm=8):
        name = "multi_source"
        self.suffix = kernel_suffix(graph, name)
        graph.require_nonnegative(name)
        graph.check_int32_range(name)
        if int(k) < 1:
            raise InputError(f"{name}: a pass needs at least one source, got k={k}")
        for label, value, low in (("check_every", check_every, 1), ("max_batch", max_batch, 1),
                                  ("blocks_per_sm", blocks_per_sm, 1)):
            if int(value) != value or int(value) < low:
                raise InputError(f"{name}: {label} must be a positive int, got {value!r}")
        self.graph, self.k = graph, int(k)
        self.check_every, self.max_batch = int(check_every), max(int(max_batch), int(check_every))
        self.blocks_per_sm = int(blocks_per_sm)
        self.kp, self.nc = padded_width(k), chunk_count(k)
        self.max_sweeps = graph.n + 1  # n - 1 improving sweeps at most, one that confirms
        self.stats: dict = {}

    def setup(self):
        cp = self.cp = gpu.cupy()
        g = self.graph
        mod = gpu.load_module(_CU)
        self.k_seed = mod.get_function(f"ms_seed_{self.suffix}")
        self.k_sweep = mod.get_function(f"ms_sweep_{self.suffix}")
        self.k_pred = mod.get_function(f"ms_pred_{self.suffix}")
        self.csr = device_csr(g)
        self.D = cp.empty((g.n, self.kp), dtype=g.dtype)
        self.stamp = cp.empty(g.n * self.nc, dtype=cp.int32)
        self.mark = cp.empty(g.n * self.nc, dtype=cp.int32)
        self.changed = cp.zeros(self.max_sweeps + 2, dtype=cp.int32)
        self.sms = gpu.device_info()["sm_count"] or 1
        return self

    def run(self, sources) -> int:
        """Distances from ``sources`` (device int32, at most k) into ``self.D[:, :len]``; sweeps."""
        g = self.graph
        k = int(sources.shape[0])
        nc = -(-padded_width(k) // CHUNK)
        n = np.int32(g.n)
        self.D.fill(g.inf)
        self.stamp.fill(-1)
        self.mark.fill(0)
        self.changed.fill(0)
        self.changed[0] = 1
        indptr, indices, rindptr, rindices, rweights = self.csr
        self.k_seed((-(-k // BLOCK),), (BLOCK,), (indptr, indices, sources, self.D, self.stamp, self.mark,
                                                 n, np.int32(self.kp), np.int32(k)))
        warps = -(-g.n * nc // 32)
        grid = (max(1, min(self.sms * self.blocks_per_sm, -(-warps // (BLOCK // 32)))),)
        args = (indptr, indices, rindptr, rindices, rweights, self.D, self.stamp, self.mark, self.changed,
                n, np.int32(self.kp), np.int32(nc))
        t, batch, checks = 1, self.check_every, 0
        while True:
            hi = min(t + batch, self.max_sweeps + 1)
            for sweep in range(t, hi):
                self.k_sweep(grid, (BLOCK,), args + (np.int32(sweep),))
            flags = self.changed[t:hi].get()
            checks += 1
            idle = np.flatnonzero(flags == 0)
            if idle.size:
                sweeps = t + int(idle[0])
                break
            if hi > self.max_sweeps:
                raise RuntimeError(f"multi_source: no fixed point after {self.max_sweeps} sweeps on "
                                   f"{g.name}; this cannot happen with non-negative weights")
            t, batch = hi, min(2 * batch, self.max_batch)
        self.stats = {"sweeps": sweeps, "launches": hi, "host_checks": checks, "K": self.k,
                      "KP": self.kp, "chunks": nc, "grid": grid[0]}
        return sweeps

    def predecessors(self, sources, out):
        """Fill ``out`` ((len(sources), n) int32) from the distances of the last :meth:`run`."""
        cp, g = self.cp, self.graph
        k = int(sources.shape[0])
        if g.m and bool(g.min_weight > 0):
            pred = cp.empty((g.n, self.kp), dtype=cp.int32)
            _, _, rindptr, rindices, rweights = self.csr
            total = g.n * self.kp
            self.k_pred((-(-total // BLOCK),), (BLOCK,), (rindptr, rindices, rweights, self.D, sources, pred,
                                                         np.int32(g.n), np.int32(self.kp), np.int32(k)))
            out[...] = pred[:, :k].T
        else:
            from ..sssp_iterative.tree import tree_predecessors_rows
            tree_predecessors_rows(g, self.D[:, :k], sources, out)
        return out


def multi_source_distances(graph, sources, *, contiguous=True, predecessors=False, check_every=8,
                           max_batch=64, blocks_per_sm=8, stats=None):
    """Distances from every vertex of ``sources`` as a CuPy array of shape (len(sources), n).

    Row i is for ``sources[i]``, in the kernels' representation (int32 with INF = 2**30 - 1, or
    float32 / float64 with +inf), left on the device so that the caller can reduce it there. All
    sources run in one pass: split larger sets into blocks (memory: :func:`bytes_needed`, checked
    here before anything is allocated). ``contiguous=False`` returns a transposed view of the vertex-major
    working matrix instead of a copy (half the memory). ``predecessors=True`` returns
    ``(rows, pred)``, pred int32 with -1 for the source and unreachable vertices. ``stats``: a dict
    to receive sweeps and launches. A CuPy ``graph`` is used in place; a host graph is uploaded once
    per Graph object (see the module docstring).
    """
    cp = gpu.cupy()
    ids = sources.get() if hasattr(sources, "get") else sources
    ids = checked_sources(ids, graph.n, "multi_source_distances")
    if not len(ids):
        raise InputError("multi_source_distances: sources is empty; pass at least one vertex id")
    pull = MultiSourcePull(graph, len(ids), check_every, max_batch, blocks_per_sm)
    gpu.require_memory(bytes_needed(graph, len(ids), contiguous, predecessors),
                       f"multi_source_distances of {len(ids)} sources on {graph.name}")
    pull.setup()
    dev = cp.asarray(ids, dtype=cp.int32)
    pull.run(dev)
    view = pull.D[:, : len(ids)].T
    rows = cp.ascontiguousarray(view) if contiguous else view
    if stats is not None:
        stats.update(pull.stats)
    if not predecessors:
        return rows
    pred = cp.empty((len(ids), graph.n), dtype=cp.int32)
    return rows, pull.predecessors(dev, pred)
