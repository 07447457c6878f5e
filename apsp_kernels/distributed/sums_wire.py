"""A worker's per-vertex sums as they travel to the client: each 64-bit word in 0, 4 or 8 bytes.

The sums (:mod:`.worker_sums`) are 40 B a vertex: ``sum_in`` and ``harmonic_in`` two uint64 words of
fixed point each, ``reach_in`` an int64. Many of those bytes are zeros. At a road graph's distance
scale (77 for NY) every distance sum's low word is zero, and a count of sources needs 4 of its 8
bytes. :func:`pack` sends each word column in as few of 0, 4 or 8 bytes as its largest value needs,
in one buffer (one copy from the GPU, into page-locked memory: :func:`.download.array_to_host`);
:meth:`Packed.unpack` gives the same bits back. At NY's size 28 B a vertex travel instead of 40.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..arrays import array_module
from ..download import array_to_host
from ..solver import to_host
from . import fixed_sums

# the word columns, in the order they travel: (sum, its word; None: a one-word sum)
WORDS = (("sum_in", 0), ("sum_in", 1), ("harmonic_in", 0), ("harmonic_in", 1), ("reach_in", None))


@dataclass
class Packed:
    """``n`` vertices' sums: the bytes kept of each of :data:`WORDS` (``widths``), column after
    column in ``payload`` (uint8, on the host)."""

    n: int
    widths: tuple
    payload: np.ndarray

    def unpack(self) -> dict:
        """``sum_in``, ``harmonic_in`` ((n, 2) uint64) and ``reach_in`` (int64), as they were packed."""
        sums = {"sum_in": np.zeros((self.n, 2), np.uint64), "harmonic_in": np.zeros((self.n, 2), np.uint64),
                "reach_in": np.zeros(self.n, np.int64)}
        return self.add_into(sums)

    def add_into(self, totals: dict) -> dict:
        """``totals`` (host ``sum_in``, ``harmonic_in``: (n, 2) uint64 fixed point; ``reach_in``: int64)
        plus these sums, added column by column from the payload (the same bits as
        :func:`.fixed_sums.add` of :meth:`unpack`'s, without making those arrays); returns ``totals``."""
        n, at, columns = self.n, 0, []
        for width in self.widths:
            columns.append(None if not width else
                           np.frombuffer(self.payload, dtype=np.uint32 if width == 4 else np.uint64,
                                         count=n, offset=at))
            at += width * n
        fixed_sums.add_words(totals["sum_in"], *columns[0:2])
        fixed_sums.add_words(totals["harmonic_in"], *columns[2:4])
        if columns[4] is not None:
            reach = totals["reach_in"]
            np.add(reach, columns[4] if columns[4].dtype == np.uint32 else columns[4].view(np.int64), out=reach)
        return totals


def pack(sums: dict, order=None) -> Packed:
    """``sums`` (``sum_in``, ``harmonic_in``: (n, 2) uint64; ``reach_in``: n int64 or uint64; NumPy or
    CuPy, all on one side) packed: each word column in 0, 4 or 8 bytes, as its largest value needs.
    ``order``: the vertices' positions in ``sums`` (the columns are taken through it one at a
    time, so that the device holds no reordered copy of all of them at once)."""
    xp = array_module(sums["reach_in"])
    columns = [sums[name][:, word] if word is not None else sums[name].view(xp.uint64) for name, word in WORDS]
    n = len(columns[-1]) if order is None else len(order)
    # the max of a contiguous copy: CuPy reduces a strided column of 16.8M words in some 10 ms
    tops = to_host(xp.stack([xp.ascontiguousarray(column).max() for column in columns])) if n else \
        np.zeros(len(columns), np.uint64)
    widths = tuple(0 if top == 0 else 4 if top < 2 ** 32 else 8 for top in tops.tolist())
    payload, at = xp.empty(n * sum(widths), dtype=xp.uint8), 0
    for column, width in zip(columns, widths):
        if width:
            taken = column if order is None else column[order]
            payload[at:at + width * n] = taken.astype(xp.uint32 if width == 4 else xp.uint64).view(xp.uint8)
            at += width * n
    return Packed(n, widths, array_to_host(payload))
