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

from ..errors import InputError
from ..solver import DenseInPlaceSolver
from .product import PRODUCTS, Launcher
from .product_fast import padded_bytes, setup_padded
from .rkleene_fast import build_fast_launcher, check_leaf
from .rkleene_plan import DEFAULT_THRESHOLD, BaseCase, check_threshold, plan


def build_launcher(mat, threshold: int = DEFAULT_THRESHOLD, product: str = "blocked",
                   **fast) -> Launcher:
    """A :class:`Launcher` holding every launch of R-Kleene on the square cupy matrix ``mat``
    (``product="fast"``: :func:`.rkleene_fast.build_fast_launcher`, ``fast`` its options)."""
    if product == "fast":
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
            check_leaf(self.threshold, name)
            self.fast = {"split_k": bool(split_k), **({"variant": variant} if variant else {})}

    def bytes_needed(self) -> int:
        if self.product == "fast":
            return padded_bytes(self.graph)
        return super().bytes_needed()

    def setup(self):
        if self.product == "fast":
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
