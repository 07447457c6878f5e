"""Source blocks: the unit of work, of resume and of commit in the all-sources runs."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError


@dataclass(frozen=True)
class Block:
    """Sources ``sources[start:stop]``, numbered ``id`` in order."""

    id: int
    start: int
    stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start


def block_size_of(value, name: str = "block_size") -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name} must be a positive int (sources per task), got {value!r}")
    return int(value)


def split(count: int, block_size: int) -> list[Block]:
    """``count`` sources in consecutive blocks of ``block_size`` (the last may be shorter)."""
    size = block_size_of(block_size)
    return [Block(i, lo, min(lo + size, count)) for i, lo in enumerate(range(0, count, size))]


def compact(ids: np.ndarray):
    """A block's source ids as a ``range`` when they are consecutive (every source: a task then
    carries two ints, not 4 B a source through the scheduler), else as they are; :func:`expand` undoes it."""
    if len(ids) and bool(np.all(np.diff(ids) == 1)):
        return range(int(ids[0]), int(ids[-1]) + 1)
    return ids


def expand(ids) -> np.ndarray:
    """:func:`compact`'s ids as int32 vertex ids."""
    return np.arange(ids.start, ids.stop, dtype=np.int32) if isinstance(ids, range) else ids
