"""APSP by repeated (min,+) squaring on one matrix: the harness that times one product kernel
(pandey Fig. 10; the fast product of issue [peak]) as a verifiable method."""
from __future__ import annotations

import math

from ..errors import InputError
from ..solver import DenseInPlaceSolver
from .product import PRODUCTS, Launcher, Product
from .product_fast import DEFAULT_VARIANT, FastLauncher, padded_bytes, setup_padded


def squarings_needed(n: int) -> int:
    """Squarings D <- min(D, D (x) D) until paths of n - 1 arcs are covered."""
    return 0 if n <= 2 else math.ceil(math.log2(n - 1))


class MinPlusSquaring(DenseInPlaceSolver):
    """APSP by repeated in-place (min,+) squaring, to time one product kernel (pandey Fig. 10).

    Each of ``squarings_needed(n)`` launches is one n x n x n product ``D <- min(D, D (x) D)``
    on one matrix. In place is safe for the same reason as in R-Kleene: every value read is a
    real path length no larger than the entry at the start of the launch, so after s launches
    D is no larger than the out-of-place D^(2^s) and the result is exact. ``stats`` gives
    ``minplus_ops`` (s * n^3) for the notebook's operations per second. ``kernel="fast"``
    (issue [peak], product_fast.py) pads n to a multiple of 128 and uses ``variant``'s tiles.
    """

    def __init__(self, graph, sources=None, kernel: str = "blocked", variant: str | None = None):
        super().__init__(graph, sources)
        if kernel not in PRODUCTS:
            raise InputError(f"{type(self).__name__}: kernel must be one of {PRODUCTS}, got {kernel!r}")
        self.kernel = kernel
        self.variant = variant
        self.squarings = squarings_needed(graph.n)

    def bytes_needed(self) -> int:
        if self.kernel == "fast":
            return padded_bytes(self.graph)
        return super().bytes_needed()

    def setup(self):
        if self.kernel == "fast":
            setup_padded(self)
            self.launcher = FastLauncher(self.d, self.variant or DEFAULT_VARIANT, split_k=False)
        else:
            self.setup_matrix()
            self.launcher = Launcher(self.d, self.kernel)
        n = self.d.shape[0]
        for _ in range(self.squarings):
            self.launcher.add_product(Product((0, 0), (0, 0), (0, 0), n, n, n))
        self.stats = dict(self.launcher.stats, squarings=self.squarings, kernel=self.kernel)

    def compute(self):
        self.launcher.issue()
