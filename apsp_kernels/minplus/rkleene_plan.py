"""The R-Kleene recursion as a list of steps (pandey Fig. 6/7; D'Alberto & Nicolau): products on
views of one matrix and Floyd-Warshall base cases, planned once on the host. :mod:`.rkleene`
runs a plan on the GPU, :mod:`.rkleene_fast` batches it, :mod:`.cpu` runs it on the host."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .product import FW_BLOCK_MAX, Product

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
