"""Every registered method, GPU and CPU, on generated graphs against an oracle computed from the
raw edge list (tests/property_graphs.py).

For each example a method either refuses with InputError where the contract allows it (see
``_refusal_reason``), or its ``solution().to_numpy()`` has one row per source, equal to the oracle
(int32) or within rtol 1e-5 (float32), and its predecessors, when it gives them, form a
shortest-path tree. APSP_PROPERTY_EXAMPLES sets the number of examples per method (default 200).
"""
import importlib.util
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from apsp_kernels import registry
from apsp_kernels.errors import InputError
from apsp_kernels.graph import Graph
from apsp_kernels.sssp_hierarchy.phast import MAX_MEAN_DEGREE as PHAST_MAX_MEAN_DEGREE

from property_graphs import FLOAT32_EXACT, LIMIT, Case, cases, truth

FLOAT32_RTOL = 1e-5
EARLY_EXIT = {"mode": "early_exit"}  # as exact as "faithful" (|V| - 1 passes), and faster
PARAMS = {f"bodra:{name}": EARLY_EXIT for name in ("bf_naive", "bf_stride", "bf_stride_flag", "bf_serial")}
SINGLE_SOURCE = {"liu:dijkstra_serial", "liu:dijkstra_parallel", "liu:sssp_spmv"}
HAS_RUSTWORKX = importlib.util.find_spec("rustworkx") is not None

PROPERTY_SETTINGS = settings(
    max_examples=int(os.environ.get("APSP_PROPERTY_EXAMPLES", "200")), deadline=None,
    derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _param(method):
    marks = [pytest.mark.gpu] if method.gpu else []
    if method.key == "okuyama:dijkstra_rustworkx":
        marks.append(pytest.mark.skipif(not HAS_RUSTWORKX, reason="optional rustworkx not installed"))
    return pytest.param(method, id=method.key, marks=marks)


METHODS = registry.methods()
ALL = [_param(m) for m in METHODS]


# ------------------------------------------------------------------------------ the check
def check(method, case: Case) -> None:
    """Refusal allowed by the contract, or the oracle's rows (and a shortest-path tree)."""
    t = truth(case)
    if t.negative_loop:
        with pytest.raises(InputError):
            _graph(case)
        return
    sources = _sources(method, case)
    rows = np.arange(case.n) if sources is None else np.asarray(sources)
    try:
        solver = method.make(_graph(case), sources=sources, **PARAMS.get(method.key, {}))
        solver.setup()
        solver.reset()
        solver.compute()
        solution = solver.solution()
        got, pred = solution.to_numpy(), solution.pred_rows()
    except InputError as err:
        why = _refusal_reason(method, case, rows, str(err))
        assert why, f"{method.key} refused a graph it must solve: {err}"
        return
    assert not t.reaches_negative_cycle[rows].any(), \
        f"{method.key} answered although a negative cycle is reachable from a source"
    want = t.dist[rows]
    tol = FLOAT32_RTOL if case.dtype == "float32" else 0.0
    assert isinstance(got, np.ndarray) and got.dtype == np.float64, f"to_numpy() gave {got!r:.80}"
    assert got.shape == want.shape, f"to_numpy() shape {got.shape}, want (len(sources), n) = {want.shape}"
    bad = np.argwhere(~_close(got, want, tol))
    assert not len(bad), f"{len(bad)} wrong distances, e.g. " + ", ".join(
        f"s={rows[i]} v={v}: got {got[i, v]!r} want {want[i, v]!r}" for i, v in bad[:5])
    if pred is not None:
        _assert_tree(np.asarray(pred), rows, want, t.arc, tol)


def _graph(case: Case) -> Graph:
    return Graph.from_edges(case.n, np.asarray(case.src, dtype=np.int64), np.asarray(case.dst, dtype=np.int64),
                            np.asarray(case.w, dtype=np.float64 if case.dtype == "float32" else np.int64),
                            dtype=np.dtype(case.dtype))


def _sources(method, case: Case):
    """The case's sources; explicit for SSSP methods (some default to vertex 0 only)."""
    if method.key in SINGLE_SOURCE:
        return [case.sources[0] if case.sources else 0]
    if case.sources is None and not method.solver_class().all_pairs:
        return list(range(case.n))
    return None if case.sources is None else list(case.sources)


def _refusal_reason(method, case: Case, rows, message: str) -> str:
    """Why the contract lets ``method`` refuse ``case`` ('' when it does not)."""
    t = truth(case)
    ints = case.dtype == "int32"
    bf_walks = (case.n + 1) * -t.min_weight  # Bellman-Ford iterates walks of up to n + 1 arcs
    reasons = {
        "negative cycle reachable from a source": t.reaches_negative_cycle[rows].any(),
        "negative weight, not Bellman-Ford": t.min_weight < 0 and not method.solver_class().accepts_negative,
        "float32 on an int32-only method": not ints and "int32" in message,
        "int32 distance limit": ints and re.search(r"INF_INT32|int32.*limit", message) is not None
        and max(t.out_weight_sum, bf_walks) >= LIMIT,
        "float32 computation of int32 weights past 2^24": ints and "2^24" in message
        and t.out_weight_sum >= FLOAT32_EXACT,
        "path recording needs positive weights": "positive weights" in message and t.min_weight <= 0,
        "a hierarchy for road-like graphs only": "road-like" in message
        and np.isfinite(t.arc).sum() > PHAST_MAX_MEAN_DEGREE * case.n,
    }
    return ", ".join(why for why, holds in reasons.items() if holds)


def _close(got, want, tol):
    with np.errstate(invalid="ignore"):  # inf - inf
        return (got == want) | (np.abs(got - want) <= tol * np.maximum(1.0, np.abs(want)))


def _assert_tree(pred, rows, dist, arc, tol):
    """pred[s] = -1, -1 where unreachable; each reachable v != s has an arc pred -> v on a shortest
    path; following pred from any vertex ends at -1 (no cycle, e.g. of zero-weight arcs)."""
    k, n = dist.shape
    assert pred.shape == dist.shape, f"pred_rows() shape {pred.shape}, want {dist.shape}"
    assert (pred[np.arange(k), rows] == -1).all(), "pred[s] != -1 for a source s"
    assert (pred[~np.isfinite(dist)] == -1).all(), "a predecessor for an unreachable vertex"
    reach = np.isfinite(dist)
    reach[np.arange(k), rows] = False
    i, v = np.nonzero(reach)
    u = pred[i, v].astype(np.int64)
    assert ((u >= 0) & (u < n)).all(), f"predecessor out of range: {u[(u < 0) | (u >= n)][:5]}"
    bad = np.flatnonzero(~_close(dist[i, u] + arc[u, v], dist[i, v], tol))
    assert not len(bad), "predecessor u of v with no arc u -> v or dist[u] + w(u, v) != dist[v], e.g. " + \
        ", ".join(f"s={rows[i[j]]} v={v[j]} u={u[j]}" for j in bad[:5])
    hop = np.hstack([np.where(pred < 0, n, pred), np.full((k, 1), n)])
    for _ in range(n.bit_length() + 1):
        hop = np.take_along_axis(hop, hop, axis=1)
    assert (hop == n).all(), "the predecessors hold a cycle"


# ------------------------------------------------------------------------------ the tests
@pytest.mark.parametrize("method", ALL)
@PROPERTY_SETTINGS
@given(case=cases())
def test_matches_oracle(method, case):
    check(method, case)


def _chain(n, weight):
    return Case(n, tuple(range(n - 1)), tuple(range(1, n)), (weight,) * (n - 1), "int32", (0,))


HEAVY_ARCS = Case(3, (0, 1, 2, 1, 0), (1, 2, 0, 0, 2), (1, 1, 1, 2**30, 2**30), "int32", None)
LIMIT_CASES = {"chain_1.2e9": _chain(5, 3 * 10**8), "arc_2^30-1": _chain(2, LIMIT),
               "arc_2^30-2": _chain(2, LIMIT - 1), "heavy_arcs_short_paths": HEAVY_ARCS}


@pytest.mark.parametrize("case", LIMIT_CASES.values(), ids=LIMIT_CASES.keys())
@pytest.mark.parametrize("method", ALL)
def test_int32_limit(method, case):
    """A distance of LIMIT or more cannot be an int32 answer: refused (or exact where the method
    computes in float64); below LIMIT an answer (or refused in float32 past 2^24). HEAVY_ARCS:
    distances <= 2, but 2^30 + 2^30 overflows int32 in a kernel that adds two arc weights."""
    check(method, case)


@pytest.mark.parametrize("method", ALL)
def test_zero_weight_cycle_predecessors(method):
    """Found by test_matches_oracle: blocked FW (tiles 32) let 29 and 33 be each other's parent."""
    check(method, Case(39, (36, 24, 1, 33, 29), (24, 29, 36, 29, 33), (0,) * 5, "int32", (1,)))


def _n31(sources):
    u = np.arange(31)
    src, dst = np.r_[u, u], np.r_[(u + 1) % 31, (7 * u + 3) % 31]
    return Case(31, tuple(src.tolist()), tuple(dst.tolist()), tuple((src % 5 + 1).tolist()), "int32", sources)


ROW_CASES = [_n31((30, 0, 7)), _n31(None), Case(1, (), (), (), "int32", (0,)), Case(1, (), (), (), "int32", None)]
PADDED = [p for p, m in zip(ALL, METHODS) if m.key in ("bodra:fw_tiled", "bodra:fw_tiled_shared") or m.paper == "takafuji"]


@pytest.mark.parametrize("case", ROW_CASES, ids=["n31_sources", "n31_all", "n1_sources", "n1_all"])
@pytest.mark.parametrize("method", PADDED)
def test_padded_methods_give_one_row_per_source(method, case):
    check(method, case)
