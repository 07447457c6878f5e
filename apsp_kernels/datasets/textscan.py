"""Vectorised scanning of line-oriented text files of integers (numpy on the raw bytes).

A 15 MB DIMACS file has about 730,000 lines; a Python loop over them, or
``np.loadtxt``, takes many seconds. Here the file is split into lines with one
``np.flatnonzero`` and the integers of the selected lines are decoded in a handful
of array operations, in chunks of lines so that memory stays a small multiple of
the file size. Every error names the file and the 1-based line number.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParseError

NEWLINE, SPACE, TAB, CR, MINUS = 10, 32, 9, 13, 45
MAX_DIGITS = 18                     # every 18-digit number fits in int64
CHUNK_LINES = 1 << 18


def parse_error(path, line_no: int | None, message: str) -> ParseError:
    where = f"{path}, line {line_no}" if line_no is not None else f"{path}"
    return ParseError(f"{where}: {message}")


@dataclass
class Lines:
    """A file's bytes and its line boundaries: line ``i`` (0-based) is ``buf[starts[i]:ends[i]]``.

    ``ends[i]`` is the index of the line's ``\\n``; a final line without one gets it added.
    """

    path: str
    buf: np.ndarray
    starts: np.ndarray
    ends: np.ndarray

    @classmethod
    def split(cls, data: bytes, path) -> "Lines":
        if data and not data.endswith(b"\n"):
            data += b"\n"
        buf = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero(buf == NEWLINE)
        starts = np.empty_like(ends)
        if len(ends):
            starts[0] = 0
            starts[1:] = ends[:-1] + 1
        return cls(str(path), buf, starts, ends)

    def __len__(self) -> int:
        return len(self.ends)

    def first_bytes(self) -> np.ndarray:
        """The first byte of every line (``\\n`` for an empty line)."""
        return self.buf[self.starts]

    def text(self, i: int) -> str:
        """Line ``i`` (0-based) as text (at most 4096 bytes), without its line ending."""
        end = min(int(self.ends[i]), int(self.starts[i]) + 4096)   # binary junk has long lines
        return self.buf[self.starts[i]:end].tobytes().decode("utf-8", "replace").rstrip("\r")

    def is_blank(self, i: int) -> bool:
        line = self.buf[self.starts[i]:self.ends[i]]
        return bool(np.isin(line, (SPACE, TAB, CR)).all())

    def error(self, i: int, message: str) -> ParseError:
        """A ParseError for line ``i`` (0-based), quoting it."""
        shown = self.text(i)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        return parse_error(self.path, i + 1, f"{message}: {shown!r}")

    def integer_fields(self, lines: np.ndarray, skip: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Decode the whitespace-separated integers of the given lines.

        ``lines``: sorted 0-based line indices; ``skip``: leading bytes of each line to
        ignore (1 for the ``a`` of a DIMACS arc line). Returns ``(counts, values)``:
        the number of fields per line and all fields in order (int64).
        Raises ParseError at the first token that is not an integer.
        """
        counts, values = [], []
        for lo in range(0, len(lines), CHUNK_LINES):
            c, v = self._chunk_fields(lines[lo:lo + CHUNK_LINES], skip)
            counts.append(c)
            values.append(v)
        if not counts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return np.concatenate(counts), np.concatenate(values)

    def _chunk_fields(self, lines: np.ndarray, skip: int) -> tuple[np.ndarray, np.ndarray]:
        first, last = int(lines[0]), int(lines[-1])
        lo, hi = int(self.starts[first]), int(self.ends[last]) + 1
        line_starts = self.starts[first:last + 1] - lo
        selected = np.zeros(last - first + 1, dtype=bool)
        selected[lines - first] = True
        keep = np.repeat(selected, self.ends[first:last + 1] - self.starts[first:last + 1] + 1)
        seg = np.where(keep, self.buf[lo:hi], SPACE).astype(np.uint8)
        for j in range(skip):
            pos = self.starts[lines] - lo + j
            seg[pos[pos < self.ends[lines] - lo]] = SPACE

        field = (seg != SPACE) & (seg != TAB) & (seg != CR) & (seg != NEWLINE)
        prev = np.concatenate(([False], field[:-1]))
        nxt = np.concatenate((field[1:], [False]))
        token_start = np.flatnonzero(field & ~prev)
        token_end = np.flatnonzero(field & ~nxt)          # inclusive
        digit = (seg >= 48) & (seg <= 57)
        sign_ok = np.zeros(len(seg), dtype=bool)
        sign_ok[token_start] = (seg[token_start] == MINUS) & (token_start < token_end)
        bad = field & ~digit & ~sign_ok
        if bad.any():
            self._raise_bad_token(int(np.flatnonzero(bad)[0]), first, line_starts, seg, field)

        line_of_token = np.searchsorted(line_starts, token_start, side="right") - 1
        negative = seg[token_start] == MINUS
        first_digit = token_start + negative
        length = token_end - first_digit + 1
        if len(length) and length.max() > MAX_DIGITS:
            t = int(np.argmax(length > MAX_DIGITS))
            raise self.error(first + int(line_of_token[t]), "number too large")
        values = np.zeros(len(token_start), dtype=np.int64)
        for d in range(int(length.max()) if len(length) else 0):
            active = np.flatnonzero(length > d)
            values[active] = values[active] * 10 + (seg[first_digit[active] + d] - 48)
        values[negative] *= -1
        counts = np.bincount(line_of_token, minlength=len(selected))[lines - first]
        return counts, values

    def _raise_bad_token(self, pos: int, first: int, line_starts, seg, field) -> None:
        line = first + int(np.searchsorted(line_starts, pos, side="right") - 1)
        start = pos
        while start > 0 and field[start - 1]:
            start -= 1
        end = pos
        while end < len(seg) and field[end]:
            end += 1
        token = seg[start:end].tobytes().decode("utf-8", "replace")
        raise self.error(line, f"{token!r} is not an integer")
