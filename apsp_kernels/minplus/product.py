"""(min,+) products on views of one matrix: pandey (Fig. 10) and a register-blocked variant.

``X <- min(X, Y (x) Z)`` where X (m x p), Y (m x q) and Z (q x p) are sub-matrices of ONE
row-major matrix given by (row, column) offsets and its leading dimension: no copies, which
is what makes R-Kleene in place. Kernels (``product.cu``):

* ``tiled``: the paper's kernel (Fig. 10 with tiles in local memory): one thread per output
  entry, 16 x 16 blocks, 16 x 16 tiles of Y and Z in shared memory.
* ``blocked``: 128 x 128 (or 64 x 64 for small outputs) tiles per 256-thread block, an 8 x 8
  (4 x 4) micro-tile per thread in registers, double-buffered k-slices in shared memory,
  DPX ``add_min``. Tiny outputs (both sides <= 32) fall back to the tiled kernel.

Any sizes work (bounds are checked, missing entries read as INF). :class:`.squaring.MinPlusSquaring`
turns one product into a verifiable APSP method (repeated squaring), which is how the
notebook measures the products' (min,+) operations per second through the timing harness.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import gpu, timing
from ..errors import InputError
from ..inf import KERNEL_SUFFIX, inf_for

CU = gpu.cu_path(__file__, "product.cu")
SUFFIX = KERNEL_SUFFIX
PRODUCT_KERNELS = ("tiled", "blocked")
PRODUCTS = PRODUCT_KERNELS + ("fast",)  # "fast": product_fast.py (issue [peak])
TILE = 16          # tiled kernel: block 16 x 16, one output entry per thread
BLOCK_THREADS = 256
FW_BLOCK_MAX = 128  # largest base case of the in-block FW kernel (64 KB of int32 in shared memory)
STATIC_SHARED_LIMIT = 48 * 1024


@dataclass(frozen=True)
class Product:
    """One product ``X <- min(X, Y (x) Z)`` on views: offsets (row, col) and sizes.

    X is m x p at ``x``, Y is m x q at ``y``, Z is q x p at ``z``.
    """

    x: tuple[int, int]
    y: tuple[int, int]
    z: tuple[int, int]
    m: int
    p: int
    q: int

    def views(self):
        """((r0, c0, rows, cols) of X, Y, Z)."""
        return ((*self.x, self.m, self.p), (*self.y, self.m, self.q), (*self.z, self.q, self.p))

    @property
    def ops(self) -> int:
        """(min,+) operations: one add and one min per (i, j, k)."""
        return self.m * self.p * self.q


def check_views(product: Product, rows: int, cols: int) -> None:
    """Raise InputError when a view of ``product`` leaves a rows x cols matrix."""
    if min(product.m, product.p, product.q) < 1:
        raise InputError(f"product sizes must be >= 1, got m={product.m}, p={product.p}, q={product.q}")
    for name, (r0, c0, nr, nc) in zip("XYZ", product.views()):
        if r0 < 0 or c0 < 0 or r0 + nr > rows or c0 + nc > cols:
            raise InputError(f"view {name} = rows {r0}..{r0 + nr}, cols {c0}..{c0 + nc} lies "
                             f"outside the {rows} x {cols} matrix")


def flat_index(r: int, c: int, ld: int) -> int:
    """Element offset of (r, c) in a row-major matrix with leading dimension ``ld``."""
    return r * ld + c


def reference_product(mat: np.ndarray, product: Product) -> np.ndarray:
    """numpy (min,+) product on a host copy: what the kernels compute out of place."""
    (xr, xc), (yr, yc), (zr, zc) = product.x, product.y, product.z
    m, p, q = product.m, product.p, product.q
    y = mat[yr:yr + m, yc:yc + q].astype(np.float64)
    z = mat[zr:zr + q, zc:zc + p].astype(np.float64)
    if mat.dtype == np.int32:
        inf = inf_for(np.int32)
        y[y >= inf] = np.inf
        z[z >= inf] = np.inf
    best = np.full((m, p), np.inf)
    for k in range(q):  # rank-1 updates keep memory at m x p
        np.minimum(best, y[:, k:k + 1] + z[k:k + 1, :], out=best)
    x = mat[xr:xr + m, xc:xc + p]
    if mat.dtype == np.int32:
        best = np.where(np.isfinite(best), np.minimum(best, inf), inf)
        return np.minimum(x, best.astype(np.int64)).astype(np.int32)
    return np.minimum(x, best.astype(mat.dtype))


def blocked_variant(m: int, p: int, sm_count: int) -> str:
    """Which kernel ``blocked`` uses for an m x p output: tile 128 while the grid fills the
    GPU, 64 below that, the 16 x 16 tiled kernel for tiny outputs."""
    if max(m, p) <= 32:
        return "tiled"
    if math.ceil(m / 128) * math.ceil(p / 128) >= sm_count:
        return "blocked128"
    return "blocked64"


def launch_shape(kernel: str, m: int, p: int):
    """(grid, block) of a product kernel for an m x p output."""
    if kernel == "tiled":
        return (math.ceil(p / TILE), math.ceil(m / TILE), 1), (TILE, TILE, 1)
    bm = {"blocked128": 128, "blocked64": 64}[kernel]
    return (math.ceil(p / bm), math.ceil(m / bm), 1), (BLOCK_THREADS, 1, 1)


def fw_block_shape(b: int):
    """(grid, block) of the in-block FW kernel for a b x b block (one block of threads)."""
    threads = min(1024, max(32, math.ceil(b * b / 32) * 32))
    return (1, 1, 1), (threads, 1, 1)


class Launcher:
    """Prepared kernel launches on one device matrix (argument tuples built once).

    ``add_product`` / ``add_fw_block`` append launches; :meth:`run` issues them in order on
    the current stream; :meth:`capture` records them into a CUDA graph replayed by :meth:`run`.
    Nothing is allocated on the device by :meth:`run`.
    """

    def __init__(self, mat, product: str = "blocked"):
        if product not in PRODUCT_KERNELS:
            raise InputError(f"product kernel must be one of {PRODUCT_KERNELS}, got {product!r}")
        if mat.ndim != 2 or mat.strides[1] != mat.itemsize or mat.strides[0] % mat.itemsize:
            raise InputError("the matrix must be 2-D with unit column stride (row-major rows)")
        dtype = np.dtype(mat.dtype)
        if dtype not in SUFFIX:
            raise InputError(f"distances are int32, float32 or float64, not {dtype}")
        self.mat = mat
        self.ld = mat.strides[0] // mat.itemsize
        self.product = product
        self.dtype = dtype
        module = gpu.load_module(CU)
        sfx = SUFFIX[dtype]
        self.kernels = {k: module.get_function(f"minplus_{k}_{sfx}")
                        for k in ("tiled", "blocked128", "blocked64")}
        self.fw_kernel = module.get_function(f"fw_block_{sfx}")
        self.sm_count = gpu.device_info()["sm_count"] or 1
        self.launches: list = []
        self.graph = None
        self.stats = {"launches": 0, "products": 0, "base_cases": 0, "minplus_ops": 0,
                      "kernels": {}, "cuda_graph": False}

    def add_product(self, pr: Product) -> None:
        check_views(pr, self.mat.shape[0], self.mat.shape[1])
        kernel = self.product if self.product == "tiled" else blocked_variant(pr.m, pr.p, self.sm_count)
        grid, block = launch_shape(kernel, pr.m, pr.p)
        i32 = np.int32
        args = (self.mat, np.int64(self.ld), i32(pr.x[0]), i32(pr.x[1]), i32(pr.y[0]), i32(pr.y[1]),
                i32(pr.z[0]), i32(pr.z[1]), i32(pr.m), i32(pr.p), i32(pr.q))
        self.launches.append((self.kernels[kernel], grid, block, args, 0))
        self.stats["products"] += 1
        self.stats["minplus_ops"] += pr.ops
        self.stats["kernels"][kernel] = self.stats["kernels"].get(kernel, 0) + 1
        self.stats["launches"] += 1

    def add_fw_block(self, r0: int, b: int) -> None:
        if not 1 <= b <= FW_BLOCK_MAX:
            raise InputError(f"in-block FW handles 1..{FW_BLOCK_MAX} vertices, got {b}")
        if r0 < 0 or r0 + b > min(self.mat.shape):
            raise InputError(f"diagonal block {r0}..{r0 + b} lies outside the matrix")
        grid, block = fw_block_shape(b)
        shared = b * b * self.dtype.itemsize
        if shared > STATIC_SHARED_LIMIT:  # opt in above 48 KB (allowed up to 64 KB from sm_75 on)
            self.fw_kernel.max_dynamic_shared_size_bytes = FW_BLOCK_MAX ** 2 * self.dtype.itemsize
        args = (self.mat, np.int64(self.ld), np.int32(r0), np.int32(b))
        self.launches.append((self.fw_kernel, grid, block, args, shared))
        self.stats["base_cases"] += 1
        self.stats["minplus_ops"] += b ** 3
        self.stats["launches"] += 1

    def issue(self) -> None:
        """Launch every prepared kernel on the current stream (no sync, no allocation)."""
        for kernel, grid, block, args, shared in self.launches:
            kernel(grid, block, args, shared_mem=shared)

    def capture(self) -> bool:
        """Record the launches into a CUDA graph; False (and launches stay direct) on failure."""
        cp = gpu.cupy()
        stream = cp.cuda.Stream(non_blocking=True)
        try:
            with stream:
                stream.begin_capture()
                try:
                    self.issue()
                finally:
                    graph = stream.end_capture()
            graph.upload(stream)
            stream.synchronize()
        except Exception as exc:  # noqa: BLE001 - recorded in stats, launches stay direct
            self.stats["cuda_graph"] = f"capture failed: {type(exc).__name__}: {exc}"
            self.graph = None
            return False
        self.graph = graph
        self.stats["cuda_graph"] = True
        return True

    def run(self) -> None:
        """Issue the launches (replaying the CUDA graph when captured) on the current stream."""
        if self.graph is not None:
            self.graph.launch()
        else:
            self.issue()


def minplus_product(mat, x, y, z, m, p, q, kernel: str = "blocked") -> None:
    """In place on the cupy matrix ``mat``: ``mat[X] <- min(mat[X], mat[Y] (x) mat[Z])``.

    ``x, y, z`` are (row, col) offsets of X (m x p), Y (m x q), Z (q x p). ``mat`` is any 2-D
    row-major cupy array (a view with a leading dimension larger than its width works).
    """
    launcher = Launcher(mat, kernel)
    launcher.add_product(Product(tuple(x), tuple(y), tuple(z), int(m), int(p), int(q)))
    launcher.issue()


def measure_peak(dtype=np.int32, iters: int = 8192, repeats: int = 5) -> dict:
    """Microbenchmark of the device's (min,+) rate: independent add_min chains in registers.

    Not an APSP run (nothing to verify); it is the ceiling the product rate is compared with.
    Returns {"ops_per_s", "ms", "ops", "dtype"}.
    """
    cp = gpu.cupy()
    dtype = np.dtype(dtype)
    kernel = gpu.load_module(CU).get_function(f"minplus_peak_{SUFFIX[dtype]}")
    blocks = 8 * (gpu.device_info()["sm_count"] or 1)
    threads = 256
    out = cp.zeros(1, dtype=dtype)
    b, c = dtype.type(3), dtype.type(5)
    args = (out, np.int32(iters), b, c)
    times = timing.time_gpu(lambda: kernel((blocks,), (threads,), args), repeats, warmup=1)
    ms = float(np.median(times))
    ops = blocks * threads * iters * 16
    return {"ops_per_s": ops / (ms * 1e-3), "ms": ms, "ops": ops, "dtype": str(dtype)}
