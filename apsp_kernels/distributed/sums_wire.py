"""A worker's per-vertex sums as they travel to the client: each 64-bit word in 0, 4 or 8 bytes.

The sums (:mod:`.worker_sums`) are 40 B a vertex: ``sum_in`` and ``harmonic_in`` two uint64 words of
fixed point each, ``reach_in`` an int64. Many of those bytes are zeros. At a road graph's distance
scale (77 for NY) every distance sum's low word is zero, and a count of sources needs 4 of its 8
bytes. :func:`pack` sends each word column in as few of 0, 4 or 8 bytes as its largest value needs,
in one buffer (one copy from the GPU, into page-locked memory: :func:`.download.array_to_host`);
:meth:`Packed.unpack` gives the same bits back. At NY's size 28 B a vertex travel instead of 40.
The client adds a payload into its totals in one pass that does not hold the GIL
(:func:`_add_payload`): its other threads fetch and unpack the next worker's meanwhile.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..arrays import array_module
from ..download import array_to_host
from ..numba_cache import njit
from ..solver import to_host

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
        plus these sums, added straight from the payload (the same bits as :func:`.fixed_sums.add` of
        :meth:`unpack`'s, without making those arrays); returns ``totals``."""
        sum_in, harmonic_in, reach_in = totals["sum_in"], totals["harmonic_in"], totals["reach_in"]
        for name, total, shape, dtype in (("sum_in", sum_in, (self.n, 2), np.uint64),
                                          ("harmonic_in", harmonic_in, (self.n, 2), np.uint64),
                                          ("reach_in", reach_in, (self.n,), np.int64)):
            flags = total.flags
            if total.shape != shape or total.dtype != dtype or not (flags.c_contiguous and flags.writeable):
                raise ValueError(f"{name}: a writable C-contiguous {np.dtype(dtype).name} array of shape {shape} "
                                 f"to add into, got {total.dtype} {total.shape} (C-contiguous "
                                 f"{flags.c_contiguous}, writable {flags.writeable})")
        words = np.frombuffer(self.payload, dtype=np.uint32, count=self.payload.nbytes // 4)
        starts = np.cumsum([0, *(width // 4 * self.n for width in self.widths[:-1])]).astype(np.int64)
        _add_payload(words, self.n, starts, np.asarray(self.widths, dtype=np.int64), sum_in, harmonic_in, reach_in)
        return totals


def load_add() -> None:
    """Compile (or load from numba's cache) the client's add, ahead of the first payload: the
    merging thread does it while the first blocks run."""
    empty = np.zeros((0, 2), np.uint64)
    _add_payload(np.zeros(0, np.uint32), 0, np.zeros(5, np.int64), np.zeros(5, np.int64), empty, empty.copy(),
                 np.zeros(0, np.int64))


@njit(nogil=True, cache=True)
def _word(words, start, width, v):
    """Vertex ``v``'s value in the word column of ``width`` bytes at ``words[start:]`` (0 for 0 bytes)."""
    if width == 0:
        return np.uint64(0)
    if width == 4:
        return np.uint64(words[start + v])
    return np.uint64(words[start + 2 * v]) | (np.uint64(words[start + 2 * v + 1]) << np.uint64(32))


@njit(nogil=True, cache=True)
def _add_payload(words, n, starts, widths, sum_in, harmonic_in, reach_in):
    """The payload's columns (``words``: its uint32 words; column c at ``starts[c]``, ``widths[c]``
    bytes a vertex) added into the totals, each fixed-point sum with its low word's carry."""
    one, zero = np.uint64(1), np.uint64(0)
    for v in range(n):
        low = sum_in[v, 0] + _word(words, starts[0], widths[0], v)
        sum_in[v, 1] += _word(words, starts[1], widths[1], v) + (one if low < sum_in[v, 0] else zero)
        sum_in[v, 0] = low
        low = harmonic_in[v, 0] + _word(words, starts[2], widths[2], v)
        harmonic_in[v, 1] += _word(words, starts[3], widths[3], v) + (one if low < harmonic_in[v, 0] else zero)
        harmonic_in[v, 0] = low
        reach_in[v] += np.int64(_word(words, starts[4], widths[4], v))


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
