"""The DIMACS / SNAP / plain parsers on small files written to tmp_path (CPU, fast)."""
import gzip

import numpy as np
import pytest

from apsp_kernels.datasets import parsers, textscan
from apsp_kernels.datasets.parsers import parse_file, random_weights, read_bytes, sniff_format
from apsp_kernels.errors import InputError, ParseError

DIMACS = """c 9th DIMACS Implementation Challenge: Shortest Paths
c TIGER/Line graph tiny
p sp 4 5
c graph contains 4 nodes and 5 arcs
a 1 2 7
a 2 1 7
c a comment between arcs
a 2 3 10
a 3 4 2
a 4 1 1
"""


def write(tmp_path, name, text, compress=False):
    path = tmp_path / name
    data = text.encode() if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def arcs(graph):
    """{(u, v): w} of a Graph."""
    return {(int(u), int(v)): int(w)
            for u, v, w in zip(graph.sources_of_arcs, graph.indices, graph.weights)}


# ------------------------------------------------------------------ DIMACS
def test_dimacs_is_one_based_and_directed(tmp_path):
    g = parse_file(write(tmp_path, "tiny.gr", DIMACS))
    assert g.n == 4 and g.m == 5 and g.dtype == np.int32
    assert arcs(g) == {(0, 1): 7, (1, 0): 7, (1, 2): 10, (2, 3): 2, (3, 0): 1}
    assert g.meta["format"] == "dimacs" and g.meta["arcs_in_file"] == 5
    assert g.name == "tiny"


def test_gzip_crlf_and_missing_final_newline_are_read(tmp_path):
    text = DIMACS.replace("\n", "\r\n").rstrip("\r\n")
    g = parse_file(write(tmp_path, "tiny.gr.gz", text, compress=True))
    assert arcs(g) == arcs(parse_file(write(tmp_path, "plain.gr", DIMACS)))
    assert g.name == "tiny"


def test_duplicate_arcs_keep_the_minimum_and_self_loops_go(tmp_path):
    text = "p sp 3 4\na 1 2 9\na 1 2 4\na 1 2 6\na 3 3 5\n"
    g = parse_file(write(tmp_path, "dup.gr", text))
    assert arcs(g) == {(0, 1): 4}
    assert g.meta["arcs_in_file"] == 4


def test_many_lines_across_chunks_match_a_reference_parse(tmp_path, monkeypatch):
    monkeypatch.setattr(textscan, "CHUNK_LINES", 7)
    rng = np.random.default_rng(1)
    n, m = 50, 300
    u, v, w = rng.integers(1, n + 1, m), rng.integers(1, n + 1, m), rng.integers(0, 10**6, m)
    lines = [f"p sp {n} {m}"]
    for i in range(m):
        if i % 11 == 0:
            lines.append("c interleaved comment 1.5 x")
        lines.append(f"a {u[i]}\t{v[i]}  {w[i]}")
    edges = parsers.parse_dimacs("\n".join(lines).encode(), "ref.gr")
    assert np.array_equal(edges.src, u - 1) and np.array_equal(edges.dst, v - 1)
    assert np.array_equal(edges.w, w)


def test_negative_weights_are_parsed(tmp_path):
    edges = parsers.parse_plain(b"2 1\n0 1 -3\n", "neg.txt")
    assert edges.w.tolist() == [-3]


# -------------------------------------------------------------------- SNAP
SNAP = """# Directed graph (each unordered pair of nodes is saved once): tiny.txt
# Nodes: 4 Edges: 4
# FromNodeId\tToNodeId
0\t10
10\t5
5\t0
7\t0
"""


def test_snap_ids_are_mapped_in_sorted_order(tmp_path):
    g = parse_file(write(tmp_path, "tiny.txt", SNAP))
    # sorted distinct ids 0, 5, 7, 10 -> 0, 1, 2, 3
    assert g.n == 4 and set(arcs(g)) == {(0, 3), (3, 1), (1, 0), (2, 0)}
    assert g.meta["format"] == "snap"


def test_snap_weights_are_seeded_uniform_1_to_100(tmp_path):
    path = write(tmp_path, "tiny.txt", SNAP)
    a, b, c = (parse_file(path, weight_seed=s) for s in (0, 0, 1))
    assert arcs(a) == arcs(b)
    assert np.array_equal(random_weights(4, 0), random_weights(4, 0))
    w = random_weights(100_000, 3)
    assert w.dtype == np.int32 and w.min() == 1 and w.max() == 100
    assert not np.array_equal(random_weights(1000, 0), random_weights(1000, 1))
    assert c.meta["weight_seed"] == 1


def test_snap_header_nodes_without_edges_become_isolated_vertices(tmp_path):
    g = parse_file(write(tmp_path, "iso.txt", "# Nodes: 6 Edges: 1\n0 1\n"), fmt="snap")
    assert g.n == 6 and g.m == 1


def test_snap_without_header_and_with_spaces(tmp_path):
    g = parse_file(write(tmp_path, "e.txt", "3 4\n4 3\n\n3 9\n"), fmt="snap")
    assert g.n == 3 and set(arcs(g)) == {(0, 1), (1, 0), (0, 2)}


# ------------------------------------------------------------------- plain
def test_plain_format_is_zero_based(tmp_path):
    g = parse_file(write(tmp_path, "g.txt", "3 3\n0 1 5\n1 2 6\n2 0 7\n"))
    assert g.n == 3 and arcs(g) == {(0, 1): 5, (1, 2): 6, (2, 0): 7}
    assert g.meta["format"] == "plain"


@pytest.mark.parametrize("text, name, fmt", [
    (DIMACS, "x.txt", "dimacs"),
    ("p sp 1 0\n", "x", "dimacs"),
    ("1 1\n0 0 3\n", "x.txt", "plain"),
    ("3 2\n0 1 5\n1 2 6\n", "x.txt", "plain"),
    (SNAP, "x.txt", "snap"),
    ("0 1\n1 2\n", "x.txt", "snap"),
    ("a 1 2 3\n", "x.gr", "dimacs"),
])
def test_sniff_format(text, name, fmt):
    assert sniff_format(text.encode(), name) == fmt


def test_sniff_format_sees_a_snap_header():
    assert sniff_format(b"# Nodes: 3 Edges: 2\n0 1\n1 2\n", "x.txt") == "snap"
    assert sniff_format(b"# Nodes: 3 Edges: 1\n0 1 7\n", "x.txt") == "snap"


@pytest.mark.parametrize("fmt", ["dimacs", "snap", "plain"])
def test_empty_files_are_parse_errors(tmp_path, fmt):
    path = write(tmp_path, "empty.txt", "")
    with pytest.raises(ParseError, match=r"empty\.txt"):
        parse_file(path, fmt=fmt)


def test_blank_lines_are_allowed(tmp_path):
    g = parse_file(write(tmp_path, "b.gr", "p sp 2 1\n\n   \t\na 1 2 3\n\n"))
    assert g.m == 1


def test_sniff_format_gives_up_clearly():
    with pytest.raises(ParseError, match="fmt="):
        sniff_format(b"1 2 3 4\n", "odd.txt")


def test_unknown_format_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="unknown format"):
        parse_file(write(tmp_path, "g.txt", "1 0\n"), fmt="csv")


# ---------------------------------------------------------------- errors
BAD_FILES = [
    # (file name, content, line number in the message, words in the message)
    ("two_fields.gr", "p sp 3 2\na 1 2 5\na 2 3\n", 3, "found 2"),
    ("float.gr", "p sp 3 2\na 1 2 5\na 2 3 1.5\n", 3, "'1.5' is not an integer"),
    ("word.gr", "p sp 3 1\na 1 x 5\n", 2, "'x' is not an integer"),
    ("range.gr", "p sp 3 2\na 1 2 5\na 2 4 1\n", 3, "out of range [1, 3]"),
    ("zero_id.gr", "p sp 3 1\na 0 2 5\n", 2, "out of range"),
    ("extra.gr", "p sp 3 1\na 1 2 5\na 2 3 1\n", 3, "more arc lines than the 1"),
    ("truncated.gr", "p sp 3 3\na 1 2 5\na 2 3 1\n", 3, "truncated: line 1 declares 3 arcs"),
    ("cut_mid_line.gr", "p sp 3 2\na 1 2 5\na 2 3", 3, "found 2"),
    ("bad_p.gr", "c x\np sp three 2\n", 2, "problem line"),
    ("second_p.gr", "p sp 3 1\np sp 3 1\na 1 2 3\n", 2, "second problem line"),
    ("arc_first.gr", "a 1 2 3\np sp 3 1\n", 1, "before the problem line"),
    ("junk.gr", "p sp 3 1\nx 1 2 3\na 1 2 3\n", 2, "starts with 'c', 'p' or 'a'"),
    ("huge.gr", "p sp 3 1\na 1 2 99999999999999999999\n", 2, "too large"),
    ("big_weight.gr", "p sp 3 1\na 1 2 2000000000\n", 2, "int32"),
    ("snap_three.txt", "# Nodes: 2 Edges: 1\n0 1 2\n", 2, "found 3"),
    ("snap_truncated.txt", "# Nodes: 3 Edges: 3\n0 1\n1 2\n", 3, "truncated: line 1 declares 3 edges"),
    ("snap_negative.txt", "0 1\n-1 2\n", 2, "negative node id"),
    ("snap_nodes.txt", "# Nodes: 2 Edges: 2\n0 1\n1 2\n", 1, "3 distinct ids"),
    ("plain_header.txt", "3\n0 1 2\n", 1, "header line"),
    ("plain_range.txt", "2 2\n0 1 2\n1 2 3\n", 3, "out of range [0, 1]"),
    ("plain_short.txt", "2 2\n0 1 2\n", 2, "truncated: line 1 declares 2 arcs"),
]


@pytest.mark.parametrize("name, text, line, words", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_malformed_files_name_file_and_line(tmp_path, name, text, line, words):
    path = write(tmp_path, name, text)
    fmt = {"gr": "dimacs", "txt": "plain" if name.startswith("plain") else "snap"}[name.rsplit(".")[-1]]
    with pytest.raises(ParseError) as err:
        parse_file(path, fmt=fmt)
    message = str(err.value)
    assert str(path) in message and f"line {line}:" in message and words in message


def test_missing_problem_line(tmp_path):
    path = write(tmp_path, "nop.gr", "c only comments\n")
    with pytest.raises(ParseError, match=r"nop\.gr.*problem line"):
        parse_file(path)


def test_truncated_gzip_names_file_and_line(tmp_path):
    body = "p sp 3 2000\n" + "a 1 2 5\n" * 2000
    packed = gzip.compress(body.encode())
    path = write(tmp_path, "cut.gr.gz", packed[: len(packed) // 2])
    with pytest.raises(ParseError, match=r"cut\.gr\.gz, line \d+: truncated gzip"):
        read_bytes(path)


def test_missing_file_is_a_parse_error(tmp_path):
    with pytest.raises(ParseError, match="cannot read"):
        parse_file(tmp_path / "absent.gr")
