"""Blocked (tiled) Floyd-Warshall in three phases per round, tile 32 (bodra Sec. 2.3.4-2.3.5, Table 3).

Round p (one per 32 values of k): phase 1 closes the pivot tile (one block), phase 2 the other
tiles of pivot row and column (2 (T - 1) blocks), phase 3 all remaining tiles ((T - 1)^2 blocks),
T = tiles per side. Three launches per round, stream-ordered (no host sync).

* :class:`TiledGlobal` ("tiled"): 32 x 32-thread blocks, one entry per thread, every operand
  read from global memory, as the author's version.
* :class:`TiledShared` ("tiled with shared memory"): phases 1 and 2 keep their tiles in shared
  memory (32 x 32 threads). Phase 3, where nearly all the work is, loads the pivot-column and
  pivot-row tiles into shared memory and lets each of 64 threads own a 4 x 4 block of the
  32 x 32 tile in registers, 16 DPX add-min (``__viaddmin_s32``) per k; it writes back only
  rows that improved and finds a predecessor only for improved entries (our design; the
  author's kernel gives each of 1024 threads one entry and tracks the parent in the inner loop).

Distances int32, float32 or float64 (kernel suffixes ``_i32``, ``_f32``, ``_f64``). The matrix
is padded to a multiple of 32 with isolated vertices (see :class:`DenseFW` for the
shared options: ``parents``, ``max_k`` prefix, ``host_io``).
"""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..floyd_warshall.variants import DenseFW
from ..graph import CYCLE_WARNING

TILE = 32
PHASE3_SHARED_THREADS = 64
_CU = gpu.cu_path(__file__, "three_phase.cu")


class _ThreePhase(DenseFW):
    pad = TILE
    cu_file = _CU
    kernel_prefix = ""
    phase3_block = (TILE, TILE)
    float_kernels = True

    def __init__(self, graph, sources=None, **kw):
        super().__init__(graph, sources, **kw)
        if self.parents:  # the tiles' order of k breaks ties differently from plain FW
            graph.require_positive(f"{type(self).__name__} with parents", CYCLE_WARNING)
        self.tiles = self.size // TILE
        self.rounds = -(-self.k_steps // TILE)
        self.stats.update(tile=TILE, rounds=self.rounds, launches=self.rounds * (1 + 2 * (self.tiles > 1)))

    def load_kernels(self, module):
        self.phases = [module.get_function(f"{self.kernel_prefix}_phase{i}_{self.suffix}") for i in (1, 2, 3)]

    def compute(self):
        ph1, ph2, ph3 = self.phases
        t = self.tiles
        block = (TILE, TILE)
        for p in range(self.rounds):
            args = (self.d, self.pred_arg, self.ld, np.int32(p))
            ph1((1,), block, args)
            if t > 1:  # a single tile has no row/column/remaining tiles (a 0-block grid is an error)
                ph2((t - 1, 2), block, args)
                ph3((t - 1, t - 1), self.phase3_block, args)


class TiledGlobal(_ThreePhase):
    """Three-phase blocked FW, operands in global memory (the paper's "tiled")."""

    kernel_prefix = "fw_tiled"


class TiledShared(_ThreePhase):
    """Three-phase blocked FW, tiles in shared memory, 4 x 4 register blocks in phase 3."""

    kernel_prefix = "fw_tiled_shared"
    phase3_block = (PHASE3_SHARED_THREADS,)
