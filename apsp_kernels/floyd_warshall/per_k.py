"""Floyd-Warshall with one kernel launch per k and one thread per matrix entry.

Implements bodra's ``fw_super_naive`` (2D grid, launch per k, parent matrix) and
pandey's ``fw_parallel`` (Fig. 8/9). The dense matrix is updated in place on the GPU.
"""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..inf import KERNEL_SUFFIX, inf_for
from ..solver import DenseInPlaceSolver
from .prefix import k_steps

_CU = gpu.cu_path(__file__, "per_k.cu")
_SUFFIX = KERNEL_SUFFIX


def initial_predecessors(cp, dense):
    """pred[i, j] = i where an arc i->j exists, else -1 (also on the diagonal)."""
    n = dense.shape[0]
    rows = cp.broadcast_to(cp.arange(n, dtype=cp.int32)[:, None], dense.shape)
    finite = dense < inf_for(dense.dtype)
    pred = cp.where(finite, rows, cp.int32(-1)).astype(cp.int32)
    cp.fill_diagonal(pred, -1)
    return pred


class FloydWarshallPerK(DenseInPlaceSolver):
    """FW, one launch per k; ``block=(bx, by)`` threads, ``parents`` records predecessors.

    ``max_k`` stops after that many values of k, for timing a prefix: the result is then final
    only for paths whose intermediate vertices are all < max_k.
    """

    def __init__(self, graph, sources=None, block=(32, 8), parents=False, max_k=None):
        super().__init__(graph, sources)
        self.block = tuple(int(b) for b in block)
        self.parents = bool(parents)
        self.k_steps = k_steps(graph.n, max_k, type(self).__name__)
        self.stats = {"launches": self.k_steps, "k_steps": self.k_steps,
                      "truncated": self.k_steps < graph.n}

    def bytes_needed(self) -> int:
        return self.graph.dense_nbytes() * (2 + 2 * self.parents)

    def setup(self):
        cp = gpu.cupy()
        n = self.graph.n
        self.kernel = gpu.load_module(_CU).get_function(f"fw_per_k_{_SUFFIX[self.graph.dtype]}")
        self.setup_matrix()
        self.pred0 = initial_predecessors(cp, self.input) if self.parents else None
        self.pred = cp.empty_like(self.pred0) if self.parents else None
        bx, by = self.block
        self.grid = ((n + bx - 1) // bx, (n + by - 1) // by)

    def reset(self):
        super().reset()
        if self.parents:
            self.pred[...] = self.pred0

    def compute(self):
        n = np.int32(self.graph.n)
        ld = np.int64(self.graph.n)
        pred = self.pred if self.parents else np.intp(0)
        for k in range(self.k_steps):
            self.kernel(self.grid, self.block, (self.d, pred, n, ld, np.int32(k)))
