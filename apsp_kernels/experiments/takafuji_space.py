"""takafuji's space (:mod:`apsp_kernels.experiments.takafuji`): the paper's thread counts and
blocks, the project's min-plus peak and the Table I input graph."""
from __future__ import annotations

from ..generators import k_regular_digraph

PAPER = "takafuji"
THREADS = (64, 128, 256, 512, 1024)
DEGREE = 4
SEED = 2019
# float32 min-plus peak of one H100 measured for this project (notes/HELPER-BRIEF.md)
PEAK_MINPLUS_F32 = 15e12
PAPER_BLOCKS = {64: 4, 128: 16, 256: 32, 512: 128, 1024: 256}  # 1024 for n >= 2048


def paper_blocks(n: int) -> int:
    return PAPER_BLOCKS.get(int(n), 1024)


def graph_for(n: int):
    """The Table I input: a random 4-out-regular digraph, weights uniform in [0, 1)."""
    return k_regular_digraph(n, DEGREE, seed=SEED)

