"""shortest_path with every method family (and "auto") on the property graphs of
tests/property_graphs.py, against the oracle from the raw edge list: exact distances (float32:
rtol 1e-5), predecessors that form a shortest-path tree (-9999 where none), a negative cycle
reachable from a source raises NegativeCycleError (any negative cycle, for "J" as SciPy's
johnson), "FW" with indices raises as SciPy's, and nothing else is refused (a family that
cannot take the input hands it on, to SciPy on the host at the end). Without a GPU every
family runs SciPy, so the CPU run checks the conversions and conventions around it."""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from scipy.sparse import csgraph as scipy_csgraph

import apsp_kernels.csgraph as ak
from apsp_kernels.csgraph.families import FAMILIES
from apsp_kernels.graph import Graph

from property_graphs import cases, truth
from test_properties import PROPERTY_SETTINGS, _assert_tree, _close

METHODS = ["auto", *FAMILIES, "scipy"]


@pytest.fixture(autouse=True)
def quiet(recwarn):
    """The no-GPU and float32 notices are warnings said once; they are not what is checked."""


@pytest.mark.parametrize("method", METHODS)
@settings(PROPERTY_SETTINGS, max_examples=int(os.environ.get("APSP_CSGRAPH_EXAMPLES", "100")))
@given(case=cases())
def test_shortest_path_matches_oracle(method, case):
    t = truth(case)
    if t.negative_loop:
        return  # Graph itself refuses a negative self loop (tests/test_properties.py)
    g = Graph.from_edges(case.n, np.asarray(case.src, dtype=np.int64), np.asarray(case.dst, dtype=np.int64),
                         np.asarray(case.w, dtype=np.float64 if case.dtype == "float32" else np.int64),
                         dtype=np.dtype(case.dtype))
    rows = np.arange(case.n) if case.sources is None else np.asarray(case.sources)
    indices = None if case.sources is None else rows
    if method == "FW" and indices is not None:
        with pytest.raises(ValueError, match="Cannot specify indices with method == 'FW'"):
            ak.shortest_path(g, method=method, indices=indices)  # as SciPy
        return
    # Johnson asked for by name raises for a negative cycle anywhere, as SciPy's johnson
    anywhere = method == "J" and t.reaches_negative_cycle.any()
    if anywhere or t.reaches_negative_cycle[rows].any():
        with pytest.raises(scipy_csgraph.NegativeCycleError):
            ak.shortest_path(g, method=method, indices=indices)
        return
    dist, pred = ak.shortest_path(g, method=method, indices=indices, return_predecessors=True)
    want = t.dist[rows]
    tol = 1e-5 if case.dtype == "float32" else 0.0
    assert dist.shape == want.shape and dist.dtype == np.float64 and pred.dtype == np.int32
    bad = np.argwhere(~_close(dist, want, tol))
    assert not len(bad), f"{len(bad)} wrong distances, e.g. " + ", ".join(
        f"s={rows[i]} v={v}: got {dist[i, v]!r} want {want[i, v]!r}" for i, v in bad[:5])
    assert ((pred == -9999) | (pred >= 0)).all(), "predecessors are -9999 where there is none"
    _assert_tree(np.where(pred == -9999, -1, pred), rows, want, t.arc, tol)
