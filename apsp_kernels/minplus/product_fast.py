"""Fast (min,+) products on views of one matrix (issue [peak]: pandey's product, Fig. 10, run
near the DPX limit), and their launcher.

``X <- min(X, Y (x) Z)`` with the views and aliasing rules of :mod:`.product`. Kernels in
``product_fast.cu``: 128 x 128 (or 64 x 64) tiles per CTA, 8 x 8 (4 x 4) register micro-tiles,
a multi-stage cp.async pipeline of k-slices, DPX ``add_min``. :data:`VARIANTS` lists the tile
configurations; the unchecked kernels need whole tiles and 16-byte aligned rows
(:func:`aligned`), the ``checked`` kernel takes any view. :class:`FastLauncher` is the
:class:`~.product.Launcher` that uses them: one product per launch (:meth:`add_product`), or
several independent products and k-chunks of them in one launch (:meth:`add_batch`; chunks of
one output merge with atomicMin), and the register-resident FW leaf for diagonal blocks of 64
or 128. :func:`measure_product` times the product alone, beside :func:`.product.measure_peak`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import gpu, timing
from ..errors import InputError
from ..inf import inf_for
from .product import SUFFIX, Launcher, Product, check_views

CU = gpu.cu_path(__file__, "product_fast.cu")
TASK_INTS = 12      # ints per task in the task kernels' table (product_fast.cu)
LEAVES = (64, 128)  # diagonal-block sizes of the FW leaf kernels
PAD = 128           # the fast solvers pad n to a multiple of this (whole 128-tiles everywhere)
KMIN = 64           # shortest k-chunk a split product gets


@dataclass(frozen=True)
class Variant:
    """One tile configuration of product_fast.cu (its Cfg and launch bounds)."""

    bm: int
    bn: int
    bk: int
    stages: int
    threads: int

    def shared_bytes(self, itemsize: int) -> int:
        return self.stages * (self.bm * (self.bk + 4) + self.bk * self.bn) * itemsize

    def tiles(self, m: int, p: int) -> int:
        return math.ceil(m / self.bm) * math.ceil(p / self.bn)


VARIANTS = {
    "t128": Variant(128, 128, 16, 3, 256),     # 2 CTAs per SM (128 registers)
    "t128s4": Variant(128, 128, 16, 4, 256),   # 4-stage pipeline
    "t128k32": Variant(128, 128, 32, 3, 256),  # 32-wide k-slices
    "t128r1": Variant(128, 128, 16, 3, 256),   # 1 CTA per SM, no register cap
    "t64": Variant(64, 64, 16, 3, 256),        # 4 x 4 micro-tiles, for small outputs
}
CHECKED = Variant(64, 64, 16, 3, 256)
# float64 kernels of the same names (CfgD* in product_fast.cu): k-slices half as long, so that
# 3-4 stages of 8-byte entries fit; 8 x 8 double micro-tiles take one CTA per SM
VARIANTS_F64 = {
    "t128": Variant(128, 128, 8, 3, 256),
    "t128s4": Variant(128, 128, 8, 4, 256),
    "t128k32": Variant(128, 128, 16, 3, 256),
    "t128r1": Variant(128, 128, 8, 3, 256),
    "t64": Variant(64, 64, 8, 3, 256),
}
CHECKED_F64 = Variant(64, 64, 8, 3, 256)
DEFAULT_VARIANT = "t128"


def variants_for(dtype) -> tuple[dict, Variant]:
    """(VARIANTS, CHECKED) of the kernels for distances of ``dtype``."""
    if np.dtype(dtype) == np.float64:
        return VARIANTS_F64, CHECKED_F64
    return VARIANTS, CHECKED


def pad_to(n: int, multiple: int = PAD) -> int:
    return -(-n // multiple) * multiple


def aligned(mat, pr: Product, variant: Variant) -> bool:
    """Whether the unchecked kernels of ``variant`` may run ``pr`` on ``mat``: whole tiles,
    k a multiple of the slice, 16-byte aligned rows and column offsets."""
    vec = 16 // mat.itemsize
    ld = mat.strides[0] // mat.itemsize
    return (pr.m % variant.bm == 0 and pr.p % variant.bn == 0 and pr.q % variant.bk == 0
            and ld % vec == 0 and mat.data.ptr % 16 == 0
            and all(c % vec == 0 for c in (pr.x[1], pr.y[1], pr.z[1])))


def views_overlap(a, b) -> bool:
    """Whether two (r0, c0, rows, cols) rectangles share an entry."""
    return (a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3])


def independent(p1: Product, p2: Product) -> bool:
    """Neither product writes what the other reads or writes: they may run in one launch."""
    x1, y1, z1 = p1.views()
    x2, y2, z2 = p2.views()
    return not any(views_overlap(x1, v) for v in (x2, y2, z2)) and \
        not any(views_overlap(x2, v) for v in (y1, z1))


class FastLauncher(Launcher):
    """:class:`~.product.Launcher` with the fast kernels (same launch list, CUDA-graph capture).

    ``variant``: the 128-tile configuration for outputs that fill the GPU (a key of
    :data:`VARIANTS`); smaller outputs use ``t64``; ``split_k``: split the k range of batches
    that under-fill the GPU into chunks merged with atomicMin.
    """

    def __init__(self, mat, variant: str = DEFAULT_VARIANT, split_k: bool = True):
        super().__init__(mat, "blocked")  # validates the matrix; keeps the generic FW base case
        if variant not in VARIANTS:
            raise InputError(f"fast product variant must be one of {tuple(VARIANTS)}, got {variant!r}")
        self.product, self.variant, self.split_k = "fast", variant, bool(split_k)
        self.variants, self.checked_variant = variants_for(self.dtype)
        module = gpu.load_module(CU)
        sfx = SUFFIX[self.dtype]
        self.fast = {k: module.get_function(f"minplus_fast_{k}_{sfx}") for k in VARIANTS}
        self.tasked = {k: module.get_function(f"minplus_tasks_{k}_{sfx}") for k in VARIANTS}
        self.checked = module.get_function(f"minplus_fast_checked_{sfx}")
        self.leaves = {b: module.get_function(f"fw_leaf{b}_{sfx}") for b in LEAVES}
        for name, v in self.variants.items():
            for fn in (self.fast[name], self.tasked[name]):
                fn.max_dynamic_shared_size_bytes = v.shared_bytes(self.dtype.itemsize)
        self.checked.max_dynamic_shared_size_bytes = self.checked_variant.shared_bytes(self.dtype.itemsize)
        self.tables: list = []  # device task tables, alive as long as the launches
        self.stats.update(variant=variant, split_k=self.split_k, batches=0, split_products=0)

    def choose(self, prs, split: bool = True) -> str:
        """The variant for a launch of ``prs``: the 128-tile one while its tiles (times the
        k-chunks :meth:`splits` would cut) fill the SMs, else ``t64``."""
        big = self.variants[self.variant]
        if all(aligned(self.mat, pr, big) for pr in prs) and \
                sum(big.tiles(pr.m, pr.p) for pr in prs) * (self.splits(prs, big) if split else 1) >= self.sm_count:
            return self.variant
        return "t64"

    def _count(self, kernel: str, prs) -> None:
        self.stats["products"] += len(prs)
        self.stats["minplus_ops"] += sum(pr.ops for pr in prs)
        self.stats["kernels"][kernel] = self.stats["kernels"].get(kernel, 0) + 1
        self.stats["launches"] += 1

    def add_product(self, pr: Product, variant: str | None = None) -> None:
        """One product, one launch; any view (the checked kernel where tiles are partial).
        ``variant`` forces a tile configuration where the view allows it."""
        check_views(pr, self.mat.shape[0], self.mat.shape[1])
        if variant is not None and variant not in VARIANTS:
            raise InputError(f"fast product variant must be one of {tuple(VARIANTS)}, got {variant!r}")
        name = variant or self.choose([pr], split=False)
        if aligned(self.mat, pr, self.variants[name]):
            v, fn, kernel = self.variants[name], self.fast[name], name
        else:
            v, fn, kernel = self.checked_variant, self.checked, "checked"
        i32 = np.int32
        args = (self.mat, np.int64(self.ld), i32(pr.x[0]), i32(pr.x[1]), i32(pr.y[0]), i32(pr.y[1]),
                i32(pr.z[0]), i32(pr.z[1]), i32(pr.m), i32(pr.p), i32(pr.q))
        grid = (math.ceil(pr.p / v.bn), math.ceil(pr.m / v.bm), 1)
        self.launches.append((fn, grid, (v.threads, 1, 1), args, v.shared_bytes(self.dtype.itemsize)))
        self._count(kernel, [pr])

    def splits(self, prs, v: Variant) -> int:
        """k-chunks per product so that a batch of ``prs`` fills about two CTAs per SM."""
        if not self.split_k:
            return 1
        tiles = sum(v.tiles(pr.m, pr.p) for pr in prs)
        s = 1
        while tiles * s * 2 <= 2 * self.sm_count and \
                all(pr.q % (2 * s * v.bk) == 0 and pr.q // (2 * s) >= KMIN for pr in prs):
            s *= 2
        return s

    def add_batch(self, prs) -> None:
        """Independent products (see :func:`independent`) in ONE launch, split along k when
        they under-fill the GPU. Every product must be aligned for ``t64``."""
        prs = list(prs)
        for i, pr in enumerate(prs):
            check_views(pr, self.mat.shape[0], self.mat.shape[1])
            if not aligned(self.mat, pr, self.variants["t64"]):
                raise InputError(f"batched products need 64-multiples and 16-byte aligned views, got {pr}; "
                                 "pad the matrix (pad_to) or use add_product")
            if any(not independent(pr, other) for other in prs[:i]):
                raise InputError(f"products in one batch must be independent: {pr} overlaps another")
        name = self.choose(prs)
        v = self.variants[name]
        s = self.splits(prs, v)
        tasks = []
        for pr in prs:
            chunk = pr.q // s
            for c in range(s):
                k0 = c * chunk
                tasks.append((*pr.x, pr.y[0], pr.y[1] + k0, pr.z[0] + k0, pr.z[1], pr.m, pr.p, chunk,
                              int(s > 1), 0, 0))
        table = gpu.cupy().asarray(np.asarray(tasks, dtype=np.int32).reshape(-1))
        self.tables.append(table)
        grid = (max(math.ceil(pr.p / v.bn) for pr in prs), max(math.ceil(pr.m / v.bm) for pr in prs),
                len(tasks))
        args = (self.mat, np.int64(self.ld), table)
        self.launches.append((self.tasked[name], grid, (v.threads, 1, 1), args,
                              v.shared_bytes(self.dtype.itemsize)))
        self._count(f"{name}x{len(prs)}" + (f"/k{s}" if s > 1 else ""), prs)
        self.stats["batches"] += 1
        self.stats["split_products"] += len(prs) if s > 1 else 0

    def add_fw_block(self, r0: int, b: int) -> None:
        """The register-resident leaf for b in LEAVES, else the generic in-block FW."""
        if b not in LEAVES:
            return super().add_fw_block(r0, b)
        if r0 < 0 or r0 + b > min(self.mat.shape):
            raise InputError(f"diagonal block {r0}..{r0 + b} lies outside the matrix")
        args = (self.mat, np.int64(self.ld), np.int32(r0))
        self.launches.append((self.leaves[b], (1, 1, 1), ((b // 8) ** 2, 1, 1), args, 0))
        self.stats["base_cases"] += 1
        self.stats["minplus_ops"] += b ** 3
        self.stats["launches"] += 1


def fast_product(mat, x, y, z, m, p, q, variant: str = DEFAULT_VARIANT) -> None:
    """In place on the cupy matrix ``mat``: ``mat[X] <- min(mat[X], mat[Y] (x) mat[Z])``
    with the fast kernels (any views; see :func:`.product.minplus_product`)."""
    launcher = FastLauncher(mat, variant)
    launcher.add_product(Product(tuple(x), tuple(y), tuple(z), int(m), int(p), int(q)))
    launcher.issue()


def measure_product(n: int = 4096, dtype=np.int32, variant: str = DEFAULT_VARIANT, repeats: int = 3,
                    warmup: int = 1, check_rows: int = 4) -> dict:
    """Time the product alone: out of place, X (n x n) <- min(X, Y (x) Z), all n x n, one launch
    of ``variant``'s unchecked kernel, CUDA events; ops = n^3. ``check_rows`` sampled rows of X
    are compared with a cupy reference (``checked`` in the result).

    Returns {"ops_per_s", "ms", "ops", "n", "variant", "dtype", "checked"}.
    """
    cp = gpu.cupy()
    dtype = np.dtype(dtype)
    if dtype not in SUFFIX:
        raise InputError(f"distances are int32, float32 or float64, not {dtype}")
    table = variants_for(dtype)[0]
    if n < 1 or n % table[variant].bm or n % table[variant].bn:
        raise InputError(f"measure_product: n must be a positive multiple of the {variant} tile, got {n}")
    gpu.require_memory(3 * n * n * dtype.itemsize, f"measure_product n={n}")
    mat = cp.empty((3 * n, n), dtype=dtype)  # X, Y, Z stacked: rows 0..n, n..2n, 2n..3n
    cp.random.seed(1)
    mat[n:] = cp.random.randint(1, 1000, size=(2 * n, n), dtype=np.int32).astype(dtype, copy=False)
    mat[:n] = inf_for(dtype)
    launcher = FastLauncher(mat, variant)
    pr = Product((0, 0), (n, 0), (2 * n, 0), n, n, n)
    if not aligned(mat, pr, table[variant]):
        raise InputError(f"measure_product: n={n} does not give whole {variant} tiles")
    launcher.add_product(pr, variant)
    times = timing.time_gpu(launcher.issue, repeats, warmup)
    ms = float(np.median(times))
    checked = None
    if check_rows:
        rows = np.random.default_rng(0).choice(n, size=min(check_rows, n), replace=False)
        z = mat[2 * n:]
        want = cp.stack([(mat[n + int(r)][:, None] + z).min(axis=0) for r in rows])
        checked = bool((mat[cp.asarray(rows)] == want).all())
    return {"ops_per_s": n ** 3 / (ms * 1e-3), "ms": ms, "ops": n ** 3, "n": n, "variant": variant,
            "dtype": str(dtype), "checked": checked}


def padded_bytes(graph, multiple: int = PAD) -> int:
    """Device bytes of a padded dense solver: the working matrix and the input kept for reset."""
    return 2 * pad_to(graph.n, multiple) ** 2 * np.dtype(graph.dtype).itemsize


def setup_padded(solver, multiple: int = PAD) -> None:
    """``solver.input`` / ``solver.d`` as in DenseInPlaceSolver.setup_matrix, padded to a multiple
    of ``multiple`` with isolated vertices (INF rows and columns, 0 diagonal)."""
    solver.input = solver.graph.dense_gpu(padded_n=pad_to(solver.graph.n, multiple))
    solver.d = gpu.cupy().empty_like(solver.input)
