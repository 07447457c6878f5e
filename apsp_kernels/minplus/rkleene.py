"""R-Kleene APSP in place on one n x n matrix (pandey, Fig. 6/7; D'Alberto & Nicolau).

``J = [A B; C D]`` with A the leading ``ceil(s/2)`` rows/columns of a diagonal block of size s:

    A <- RK(A); B <- B + A*B; C <- C + C*A; D <- D + C*B;
    D <- RK(D); B <- B + B*D; C <- C + D*C; A <- A + B*C

where ``+`` is elementwise min and ``*`` the (min,+) product. The recursion runs on the
host (:func:`plan` lists the steps once); a diagonal block of size <= ``threshold`` is closed
by the in-block Floyd-Warshall kernel (one launch, one thread block, shared memory). Every
step works on views (offsets + leading dimension) of the one matrix: peak device memory is
the matrix itself, and :meth:`RKleene.compute` allocates nothing.

Why the in-place updates are exact although X overlaps an operand (``B <- min(B, A*B)``
reads B while other threads write it): (1) every value ever stored is the length of a real
walk in the graph, so no entry drops below the true distance; (2) entries only decrease, so
any operand value a thread reads is <= the value the out-of-place algorithm would use, and
min and + are monotone, so every step's result is <= the out-of-place result, by induction
through the recursion (the base-case FW is monotone too). The out-of-place algorithm ends
at the true distances; squeezed between the two bounds, so does the in-place one. Reading a
tile of B that another block has half updated is therefore harmless.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..solver import DenseInPlaceSolver
from .product import FW_BLOCK_MAX, PRODUCTS, Launcher, Product

DEFAULT_THRESHOLD = 16
OP_BASE, OP_PRODUCT = 0, 1


@dataclass(frozen=True)
class BaseCase:
    """Close the diagonal block of size ``b`` at (r0, r0) by Floyd-Warshall."""

    r0: int
    b: int


def split(size: int, align: int = 1) -> tuple[int, int]:
    """Sizes of A and D for a diagonal block of ``size`` >= 2: ceil(size/2), floor(size/2), or
    with ``align`` > 1 (``size`` a multiple of it) the nearest split into multiples of ``align``."""
    a = align * ((size // align + 1) // 2)
    return a, size - a


def check_threshold(threshold, who: str = "rkleene", limit: int | None = FW_BLOCK_MAX) -> int:
    t = int(threshold)
    if t != threshold or t < 1 or (limit is not None and t > limit):
        bound = f"1..{limit}" if limit is not None else ">= 1"
        raise InputError(f"{who}: threshold must be an integer in {bound}, got {threshold!r}")
    return t


def plan(n: int, threshold: int = DEFAULT_THRESHOLD, align: int = 1) -> list:
    """The steps of R-Kleene on an n x n matrix, in order: BaseCase and Product items.

    ``align`` > 1 splits at multiples of it (n and ``threshold`` must be multiples too), so
    every block is whole tiles of that size (the fast kernels need this).
    """
    if n < 1:
        raise InputError(f"rkleene needs n >= 1, got {n}")
    threshold = check_threshold(threshold, limit=None)
    if align < 1 or n % align or threshold % align:
        raise InputError(f"rkleene: n={n} and threshold={threshold} must be multiples of align={align}")
    steps: list = []

    def rk(r0: int, size: int) -> None:
        if size <= threshold:
            steps.append(BaseCase(r0, size))
            return
        a, d = split(size, align)
        ra, rd = r0, r0 + a               # A at (ra, ra), B at (ra, rd), C at (rd, ra), D at (rd, rd)
        A, B, C, D = (ra, ra), (ra, rd), (rd, ra), (rd, rd)
        rk(ra, a)
        steps.append(Product(x=B, y=A, z=B, m=a, p=d, q=a))   # B <- B + A*B
        steps.append(Product(x=C, y=C, z=A, m=d, p=a, q=a))   # C <- C + C*A
        steps.append(Product(x=D, y=C, z=B, m=d, p=d, q=a))   # D <- D + C*B
        rk(rd, d)
        steps.append(Product(x=B, y=B, z=D, m=a, p=d, q=d))   # B <- B + B*D
        steps.append(Product(x=C, y=D, z=C, m=d, p=a, q=d))   # C <- C + D*C
        steps.append(Product(x=A, y=B, z=C, m=a, p=a, q=d))   # A <- A + B*C

    rk(0, n)
    return steps


def plan_array(steps) -> np.ndarray:
    """Steps as an int64 table for numba: op, xr, xc, yr, yc, zr, zc, m, p, q per row
    (a base case is op 0 with its block at (xr, xc) and size m)."""
    rows = []
    for s in steps:
        if isinstance(s, BaseCase):
            rows.append((OP_BASE, s.r0, s.r0, 0, 0, 0, 0, s.b, s.b, s.b))
        else:
            rows.append((OP_PRODUCT, *s.x, *s.y, *s.z, s.m, s.p, s.q))
    return np.asarray(rows, dtype=np.int64).reshape(-1, 10)


def plan_counts(n: int, threshold: int = DEFAULT_THRESHOLD) -> dict:
    """Products, base cases and (min,+) operations of a plan (no GPU needed)."""
    steps = plan(n, threshold)
    products = [s for s in steps if isinstance(s, Product)]
    bases = [s for s in steps if isinstance(s, BaseCase)]
    return {"products": len(products), "base_cases": len(bases), "launches": len(steps),
            "minplus_ops": sum(p.ops for p in products) + sum(b.b ** 3 for b in bases)}


def build_launcher(mat, threshold: int = DEFAULT_THRESHOLD, product: str = "blocked",
                   **fast) -> Launcher:
    """A :class:`Launcher` holding every launch of R-Kleene on the square cupy matrix ``mat``
    (``product="fast"``: :func:`.rkleene_fast.build_fast_launcher`, ``fast`` its options)."""
    if product == "fast":
        from .rkleene_fast import build_fast_launcher
        return build_fast_launcher(mat, threshold, **fast)
    if mat.ndim != 2 or mat.shape[0] != mat.shape[1]:
        raise InputError(f"rkleene needs a square matrix, got shape {tuple(mat.shape)}")
    threshold = check_threshold(threshold)
    launcher = Launcher(mat, product)
    for step in plan(mat.shape[0], threshold):
        if isinstance(step, BaseCase):
            launcher.add_fw_block(step.r0, step.b)
        else:
            launcher.add_product(step)
    return launcher


def rkleene_inplace(mat, threshold: int = DEFAULT_THRESHOLD, product: str = "blocked"):
    """Run R-Kleene on the cupy matrix ``mat`` in place (0 diagonal, INF off-edge); returns it."""
    build_launcher(mat, threshold, product).issue()
    return mat


class RKleene(DenseInPlaceSolver):
    """R-Kleene on the GPU (pandey Fig. 7): host recursion, product kernel, in-block FW base.

    ``threshold``: largest diagonal block closed by FW (1..128, paper: 16);
    ``product``: ``"blocked"`` (register-blocked, fast) or ``"tiled"`` (the paper's Fig. 10),
    or ``"fast"`` (issue [peak]: :mod:`.rkleene_fast`; the matrix is padded to a multiple of
    128, ``threshold`` is the FW leaf, 64 or 128, ``variant`` and ``split_k`` tune the product);
    ``cuda_graph``: replay the same launch sequence as one CUDA graph (removes the host's
    per-launch cost; the kernels and their order are unchanged).
    """

    def __init__(self, graph, sources=None, threshold: int = DEFAULT_THRESHOLD,
                 product: str = "blocked", cuda_graph: bool = False, variant: str | None = None,
                 split_k: bool = True):
        super().__init__(graph, sources)
        name = type(self).__name__
        self.threshold = check_threshold(threshold, name)
        if product not in PRODUCTS:
            raise InputError(f"{name}: product must be one of {PRODUCTS}, got {product!r}")
        self.product = product
        self.cuda_graph = bool(cuda_graph)
        self.fast = {}
        if product == "fast":
            from .rkleene_fast import check_leaf
            check_leaf(self.threshold, name)
            self.fast = {"split_k": bool(split_k), **({"variant": variant} if variant else {})}

    def bytes_needed(self) -> int:
        if self.product == "fast":
            from .product_fast import padded_bytes
            return padded_bytes(self.graph)
        return super().bytes_needed()

    def setup(self):
        if self.product == "fast":
            from .product_fast import setup_padded
            setup_padded(self)
        else:
            self.setup_matrix()
        self.launcher = build_launcher(self.d, self.threshold, self.product, **self.fast)
        if self.cuda_graph:
            self.launcher.capture()
        self.stats = dict(self.launcher.stats, threshold=self.threshold, product=self.product,
                          n_padded=self.d.shape[0])

    def compute(self):
        self.launcher.run()
