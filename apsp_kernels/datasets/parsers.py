"""Parsers for the three graph text formats (gzip is read transparently).

* ``dimacs``: 9th DIMACS Challenge ``.gr``: ``c`` comment lines, one ``p sp n m`` line,
  then ``m`` lines ``a u v w`` with 1-based ids. Arcs are directed (road graphs list
  both directions) and kept so.
* ``snap``: SNAP edge lists: ``#`` comment lines (``# Nodes: N Edges: M`` is checked
  when present), then ``u v`` per line, tab or space separated. Ids are mapped to
  ``0..N-1`` in SORTED order of the distinct ids, which is the identity when the ids
  already are ``0..N-1`` (p2p-Gnutella04 is not: its ids run to 10,878 for 10,876
  nodes). SNAP graphs are unweighted: :func:`random_weights` gives each edge line, in
  file order, a seeded uniform integer in [1, 100], as bodra's ``utils.py add`` did with
  Python's ``random.randint`` (the values themselves differ: his seed is unknown).
* ``plain``: the format of bodra's programs: a ``n m`` line, then ``m`` lines ``u v w``
  with 0-based ids. ``#`` comment lines are allowed.

Every parser returns an :class:`EdgeList`; malformed or truncated input raises
:class:`ParseError` naming the file and the line.
"""
from __future__ import annotations

import gzip
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError, ParseError
from ..graph import Graph
from ..inf import MAX_WEIGHT_INT32
from .textscan import Lines, parse_error

FORMATS = ("dimacs", "snap", "plain")
SNAP_WEIGHT_RANGE = (1, 100)
_SNAP_COUNTS = re.compile(r"Nodes:\s*(\d+)\s+Edges:\s*(\d+)")


@dataclass
class EdgeList:
    """Parsed arcs with 0-based ids, in file order; ``w`` is None for unweighted formats."""

    n: int
    src: np.ndarray
    dst: np.ndarray
    w: np.ndarray | None
    format: str
    info: dict = field(default_factory=dict)

    @property
    def arcs(self) -> int:
        """Arc lines in the file (parallel arcs counted)."""
        return len(self.src)

    def to_graph(self, *, name="graph", weight_seed=0, meta=None) -> Graph:
        """A :class:`Graph` (int32 weights); SNAP weights are drawn with ``weight_seed``."""
        w = self.w if self.w is not None else random_weights(self.arcs, weight_seed)
        meta = dict(meta or {})
        meta.setdefault("format", self.format)
        meta.setdefault("arcs_in_file", self.arcs)
        if self.w is None:
            meta.setdefault("weights", f"uniform integers in {list(SNAP_WEIGHT_RANGE)}, "
                                       f"numpy default_rng({weight_seed})")
            meta.setdefault("weight_seed", weight_seed)
        return Graph.from_edges(self.n, self.src, self.dst, w, dtype=np.int32, name=name, meta=meta)


def random_weights(m: int, seed: int = 0, low: int = SNAP_WEIGHT_RANGE[0],
                   high: int = SNAP_WEIGHT_RANGE[1]) -> np.ndarray:
    """``m`` integers uniform in ``[low, high]`` from ``numpy.random.default_rng(seed)``."""
    return np.random.default_rng(seed).integers(low, high, size=m, endpoint=True, dtype=np.int32)


# ----------------------------------------------------------------- reading
def read_bytes(path) -> bytes:
    """The file's content, gunzipped when it starts with the gzip magic bytes."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise ParseError(f"{path}: cannot read ({err.strerror or err})") from err
    if raw[:2] != b"\x1f\x8b":
        return raw
    inflater = zlib.decompressobj(wbits=31)
    try:
        data = inflater.decompress(raw)
    except zlib.error as err:
        raise parse_error(path, None, f"corrupt gzip data ({err})") from err
    if not inflater.eof:
        lines = data.count(b"\n")
        raise parse_error(path, lines + 1, f"truncated gzip file: the compressed stream ends "
                                           f"early, after {lines} complete lines")
    if inflater.unused_data:  # concatenated gzip members are legal
        try:
            data += gzip.decompress(inflater.unused_data)
        except (OSError, EOFError, zlib.error) as err:
            raise parse_error(path, None, f"corrupt gzip data after the first member ({err})") from err
    return data


def sniff_format(data: bytes, path="<data>") -> str:
    """Guess the format from the name and the first lines.

    ``.gr`` names or a first line starting with ``c``/``p`` -> dimacs; a ``# Nodes:``
    comment -> snap; a 2-number line followed by a 3-number line -> plain; 2-number
    lines -> snap. Anything else asks for ``fmt=``.
    """
    if Path(str(path)).name.lower().endswith((".gr", ".gr.gz")):
        return "dimacs"
    counts = []
    for line in data[:1 << 16].splitlines()[:200]:
        text = line.strip()
        if not text:
            continue
        if text[:1] in (b"c", b"p", b"a") and not counts:
            return "dimacs"
        if text[:1] == b"#":
            if b"Nodes:" in text:
                return "snap"
            continue
        counts.append(len(text.split()))
        if len(counts) == 2:
            break
    if counts == [2, 3]:
        return "plain"
    if counts in ([2], [2, 2]):
        return "snap"
    raise parse_error(path, None, f"cannot tell the format (first data lines have {counts} fields); "
                                  f"pass fmt= one of {FORMATS}")


# ----------------------------------------------------------------- formats
def parse_dimacs(data: bytes, path="<data>") -> EdgeList:
    """DIMACS ``.gr``: see the module docstring."""
    lines = Lines.split(data, path)
    first = lines.first_bytes()
    problem = np.flatnonzero(first == ord("p"))
    arcs = np.flatnonzero(first == ord("a"))
    other = np.flatnonzero((first != ord("c")) & (first != ord("p")) & (first != ord("a")))
    for i in other:
        if not lines.is_blank(int(i)):
            raise lines.error(int(i), "a DIMACS .gr line starts with 'c', 'p' or 'a'")
    if len(problem) == 0:
        raise parse_error(path, None, "no problem line 'p sp <nodes> <arcs>' found")
    p_line = int(problem[0])
    if len(problem) > 1:
        raise lines.error(int(problem[1]), f"second problem line (the first is line {p_line + 1})")
    if len(arcs) and arcs[0] < p_line:
        raise lines.error(int(arcs[0]), "arc line before the problem line 'p sp <nodes> <arcs>'")
    tokens = lines.text(p_line).split()
    if len(tokens) != 4 or not all(t.isdigit() for t in tokens[2:]):
        raise lines.error(p_line, "expected a problem line 'p sp <nodes> <arcs>'")
    n, m = int(tokens[2]), int(tokens[3])
    if n < 1:
        raise lines.error(p_line, "the graph needs at least one node")
    if len(arcs) > m:
        raise lines.error(int(arcs[m]), f"more arc lines than the {m} declared on line {p_line + 1}")

    counts, values = lines.integer_fields(arcs, skip=1)
    _require_field_count(lines, arcs, counts, 3, "'a <from> <to> <weight>'")
    if len(arcs) < m:
        raise parse_error(path, len(lines), f"truncated: line {p_line + 1} declares {m} arcs but "
                                            f"the file ends after {len(arcs)}")
    table = values.reshape(-1, 3)
    _require_in_range(lines, arcs, table[:, :2], 1, n, "node id")
    _require_weight_range(lines, arcs, table[:, 2])
    return EdgeList(n, table[:, 0] - 1, table[:, 1] - 1, table[:, 2], "dimacs",
                    {"declared_nodes": n, "declared_arcs": m})


def parse_snap(data: bytes, path="<data>") -> EdgeList:
    """SNAP edge list: see the module docstring (weights are not assigned here)."""
    lines = Lines.split(data, path)
    first = lines.first_bytes()
    comments = np.flatnonzero(first == ord("#"))
    header_line, declared = None, None
    for i in comments[:50]:
        found = _SNAP_COUNTS.search(lines.text(int(i)))
        if found:
            header_line, declared = int(i), (int(found[1]), int(found[2]))
            break
    rows = np.flatnonzero(first != ord("#"))
    counts, values = lines.integer_fields(rows)
    rows, counts = rows[counts > 0], counts[counts > 0]          # blank lines
    _require_field_count(lines, rows, counts, 2, "'<from> <to>'")
    table = values.reshape(-1, 2)
    if declared is not None:
        nodes, edges = declared
        if len(rows) > edges:
            raise lines.error(int(rows[edges]), f"more edge lines than the {edges} declared "
                                                f"on line {header_line + 1}")
        if len(rows) < edges:
            raise parse_error(path, len(lines), f"truncated: line {header_line + 1} declares "
                                                f"{edges} edges but the file ends after {len(rows)}")
    if len(table) and table.min() < 0:
        row = int(np.flatnonzero((table < 0).any(axis=1))[0])
        raise lines.error(int(rows[row]), "negative node id")
    ids, flat = np.unique(table, return_inverse=True)
    flat = flat.reshape(-1, 2)
    n = len(ids)
    if declared is not None:
        if n > declared[0]:
            raise parse_error(path, header_line + 1, f"the header declares {declared[0]} nodes "
                                                     f"but the edges use {n} distinct ids")
        n = declared[0]        # nodes without edges become isolated vertices at the end
    if n == 0:
        raise parse_error(path, None, "no edges and no '# Nodes: N Edges: M' header")
    info = {"ids": "sorted distinct ids -> 0..n-1",
            "ids_were_contiguous": bool(len(ids) == 0 or ids[-1] == len(ids) - 1)}
    if declared is not None:
        info.update(declared_nodes=declared[0], declared_arcs=declared[1])
    return EdgeList(n, flat[:, 0], flat[:, 1], None, "snap", info)


def parse_plain(data: bytes, path="<data>") -> EdgeList:
    """Plain ``n m`` + ``u v w`` (0-based), the input format of bodra's programs."""
    lines = Lines.split(data, path)
    rows = np.flatnonzero(lines.first_bytes() != ord("#"))
    counts, values = lines.integer_fields(rows)
    rows, counts = rows[counts > 0], counts[counts > 0]
    if len(rows) == 0:
        raise parse_error(path, None, "empty file: expected a header line '<nodes> <arcs>'")
    if counts[0] != 2:
        raise lines.error(int(rows[0]), "expected a header line '<nodes> <arcs>'")
    n, m = (int(x) for x in values[:2])
    header, rows, counts = int(rows[0]), rows[1:], counts[1:]
    if n < 1:
        raise lines.error(header, "the graph needs at least one node")
    if len(rows) > m:
        raise lines.error(int(rows[m]), f"more arc lines than the {m} declared on line {header + 1}")
    _require_field_count(lines, rows, counts, 3, "'<from> <to> <weight>'")
    if len(rows) < m:
        raise parse_error(path, len(lines), f"truncated: line {header + 1} declares {m} arcs but "
                                            f"the file ends after {len(rows)}")
    table = values[2:].reshape(-1, 3)
    _require_in_range(lines, rows, table[:, :2], 0, n - 1, "node id")
    _require_weight_range(lines, rows, table[:, 2])
    return EdgeList(n, table[:, 0], table[:, 1], table[:, 2], "plain",
                    {"declared_nodes": n, "declared_arcs": m})


PARSERS = {"dimacs": parse_dimacs, "snap": parse_snap, "plain": parse_plain}


def parse_bytes(data: bytes, fmt: str, path="<data>") -> EdgeList:
    if fmt not in PARSERS:
        raise InputError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    return PARSERS[fmt](data, path)


def parse_file(path, fmt: str | None = None, *, weight_seed: int = 0, name: str | None = None) -> Graph:
    """Read a graph file (optionally gzipped) into a :class:`Graph` with int32 weights.

    ``fmt``: "dimacs", "snap" or "plain"; None guesses (see :func:`sniff_format`).
    ``weight_seed`` seeds the weights of unweighted (SNAP) files.
    """
    path = Path(path)
    data = read_bytes(path)
    fmt = fmt or sniff_format(data, path)
    edges = parse_bytes(data, fmt, path)
    stem = path.name.removesuffix(".gz").rsplit(".", 1)[0] or path.name
    return edges.to_graph(name=name or stem, weight_seed=weight_seed, meta={"source": str(path)})


# ----------------------------------------------------------------- checks
def _require_field_count(lines: Lines, rows, counts, expected: int, shape: str) -> None:
    wrong = np.flatnonzero(counts != expected)
    if len(wrong):
        i = int(wrong[0])
        raise lines.error(int(rows[i]), f"expected {shape} ({expected} numbers), found {counts[i]}")


def _require_in_range(lines: Lines, rows, ids, lo: int, hi: int, what: str) -> None:
    bad = np.flatnonzero(((ids < lo) | (ids > hi)).any(axis=1))
    if len(bad):
        raise lines.error(int(rows[bad[0]]), f"{what} out of range [{lo}, {hi}]")


def _require_weight_range(lines: Lines, rows, w) -> None:
    bad = np.flatnonzero(np.abs(w) > MAX_WEIGHT_INT32)
    if len(bad):
        raise lines.error(int(rows[bad[0]]), f"|weight| above {MAX_WEIGHT_INT32} does not fit the "
                                             f"int32 distance convention")
