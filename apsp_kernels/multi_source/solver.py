"""okuyama's SSSP-based APSP (Fig. 10-13, Table 1) with the multi-source pull of ``pull.py``.

The sources are split into passes of ``K`` (all of them when they fit: K = n is all pairs in one
pass); each pass is a (min,+) SpMM pull to a fixed point on the device (see ``pull.cu``), and its
rows are copied into the (len(sources), n) result. Non-negative weights, zero included.
"""
from __future__ import annotations

from .. import gpu
from ..errors import InputError
from ..solver import Solution, Solver
from . import pull

AUTO_ENTRIES = 1 << 26  # "auto" K: about 64M distances (256 MB) in the working matrix
STREAM_MIN_BYTES = 64 << 20  # a host result this large comes back by passes (stream_to_host)
STREAM_PASSES = 4            # ... of about a quarter of the sources each


def auto_k(n: int, count: int) -> int:
    """All sources when n * count <= AUTO_ENTRIES, else the largest multiple of 128 that fits."""
    if n * count <= AUTO_ENTRIES:
        return count
    return int(min(count, max(128, AUTO_ENTRIES // n // 128 * 128)))


class MultiSourceSSSP(Solver):
    """Distances (and with ``parents`` predecessors) from every source, K sources per pass.

    ``K``: sources per pass (int or "auto"); ``check_every``/``max_batch``/``blocks_per_sm``: see
    :class:`~apsp_kernels.multi_source.pull.MultiSourcePull`.
    """

    all_pairs = False
    streaming = False  # rows copied to the host pass by pass (stream_to_host)

    def __init__(self, graph, sources=None, K="auto", check_every=8, max_batch=64, blocks_per_sm=8,
                 parents=False):
        super().__init__(graph, sources)
        count = max(len(self.sources), 1)
        if K == "auto":
            K = auto_k(graph.n, count)
        elif isinstance(K, str) or int(K) != K or int(K) < 1:
            raise InputError(f"{type(self).__name__}: K must be a positive int or 'auto', got {K!r}")
        self.parents = bool(parents)
        self.tuning = (int(check_every), int(max_batch), int(blocks_per_sm))
        self._passes_of(min(int(K), count))
        self.host = None  # a download.HostRows while the rows stream to the host (stream_to_host)

    def _passes_of(self, K: int) -> None:
        check_every, max_batch, blocks_per_sm = self.tuning
        self.K = K
        self.pull = pull.MultiSourcePull(self.graph, K, check_every, max_batch, blocks_per_sm)
        self.passes = [(lo, min(lo + K, len(self.sources))) for lo in range(0, len(self.sources), K)]
        self.stats = {"K": K, "passes": len(self.passes), "check_every": check_every,
                      "max_batch": self.pull.max_batch, "blocks_per_sm": blocks_per_sm}

    def stream_to_host(self) -> bool:
        """Before ``setup``: the distances will be wanted on the host, so a large result (at least
        ``STREAM_MIN_BYTES`` as float64) runs in ``STREAM_PASSES`` passes, each pass's rows
        converted and copied to the host while the next one computes (the copy of okuyama's
        4677-vertex all-pairs result takes longer than its kernel). True when it will."""
        count = len(self.sources)
        if self.parents or len(self.passes) > 1 or 8 * count * self.graph.n < STREAM_MIN_BYTES:
            return False
        self._passes_of(-(-count // STREAM_PASSES // 128) * 128)  # count > 0: at least 128
        self.streaming = True
        return True

    def bytes_needed(self) -> int:
        g, k = self.graph, len(self.sources)
        out = k * g.n * (g.dtype.itemsize + (4 if self.parents else 0))
        return out + pull.bytes_needed(g, self.K, contiguous=False, predecessors=self.parents)

    def setup(self):
        cp = gpu.cupy()
        g = self.graph
        self.pull.setup()
        self.dev_sources = cp.asarray(self.sources, dtype=cp.int32)
        self.out = cp.empty((len(self.sources), g.n), dtype=g.dtype)
        self.out_pred = cp.empty((len(self.sources), g.n), dtype=cp.int32) if self.parents else None

    def compute(self):
        sweeps = launches = checks = 0
        if self.streaming:
            from .. import download
            self.host = download.HostRows(len(self.sources), self.graph.n)
        for lo, hi in self.passes:
            ids = self.dev_sources[lo:hi]
            sweeps += self.pull.run(ids)
            launches += self.pull.stats["launches"]
            checks += self.pull.stats["host_checks"]
            self.out[lo:hi] = self.pull.D[:, : hi - lo].T
            if self.host is not None:
                self.host.add(self.out[lo:hi], lo)
            if self.parents:
                self.pull.predecessors(ids, self.out_pred[lo:hi])
        self.stats.update(sweeps=sweeps, launches=launches, host_checks=checks,
                          KP=self.pull.kp, grid=self.pull.stats.get("grid"))

    def solution(self) -> Solution:
        return Solution(self.out, self.sources, self.graph.n, pred=self.out_pred, stats=self.stats,
                        host=self.host)

