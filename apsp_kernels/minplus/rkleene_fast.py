"""The fast R-Kleene launch list (issue [peak]; pandey's algorithm, Fig. 6/7).

Same recursion as :mod:`.rkleene` (its :func:`~.rkleene.plan`, split at multiples of the leaf
so every view is whole tiles of the padded matrix), with three changes: diagonal leaves of 64
or 128 closed by the register-resident FW kernel; consecutive independent products
(``B <- B + A*B`` with ``C <- C + C*A``, and ``B <- B + B*D`` with ``C <- C + D*C``) in one
launch; products that under-fill the GPU split along k (chunks merged with atomicMin).
The in-place argument of :mod:`.rkleene` covers all three: every value written is a real path
length no larger than what the out-of-place algorithm has at that point.
"""
from __future__ import annotations

from ..errors import InputError
from .product import Product
from .product_fast import DEFAULT_VARIANT, LEAVES, PAD, FastLauncher, independent
from .rkleene_plan import BaseCase, plan

DEFAULT_LEAF = 128


def check_leaf(leaf, who: str = "rkleene (fast)") -> int:
    if leaf not in LEAVES:
        raise InputError(f"{who}: with product='fast' the threshold (leaf) must be one of {LEAVES}, "
                         f"got {leaf!r}")
    return int(leaf)


def batches(steps) -> list:
    """The plan's steps with runs of mutually independent products grouped into lists."""
    out: list = []
    for step in steps:
        if isinstance(step, Product) and out and isinstance(out[-1], list) and \
                all(independent(step, other) for other in out[-1]):
            out[-1].append(step)
        else:
            out.append([step] if isinstance(step, Product) else step)
    return out


def build_fast_launcher(mat, leaf: int = DEFAULT_LEAF, variant: str = DEFAULT_VARIANT,
                        split_k: bool = True) -> FastLauncher:
    """Every launch of fast R-Kleene on the square cupy matrix ``mat`` (side a multiple of 128)."""
    leaf = check_leaf(leaf)
    n = mat.shape[0]
    if mat.ndim != 2 or mat.shape[1] != n or n % PAD:
        raise InputError(f"fast rkleene needs a square matrix with a side that is a multiple of {PAD}, "
                         f"got shape {tuple(mat.shape)}; pad it (product_fast.pad_to)")
    launcher = FastLauncher(mat, variant, split_k)
    for item in batches(plan(n, leaf, align=leaf)):
        if isinstance(item, BaseCase):
            launcher.add_fw_block(item.r0, item.b)
        else:
            launcher.add_batch(item)
    return launcher
