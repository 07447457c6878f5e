"""NetworkX's own tests for ``algorithms/shortest_paths`` with the backend in place and no
fallback: NetworkX's conftest sends every dispatchable call to ``apsp_kernels`` and marks a
test xfail where the backend declines (``can_run``) or lacks a function.

Note: NetworkX reads ``NETWORKX_FALLBACK_TO_NX`` with ``bool(os.environ.get(...))``, so any
non-empty value, "False" included, turns the fallback ON; the run here sets it to "".
Measured on the host (no GPU, the library's SciPy path): 122 passed, 15 xfailed of 137
(NetworkX 3.6.1), the same with the predecessor at every tie chosen at random among the
shortest (so the GPU's trees should not change the count). The 15 xfails are declines:
9 calls with an A* heuristic or a callable weight, 2 Dijkstra calls on negative weights
(NetworkX's answer there is not defined), 3 find_negative_cycle (not implemented: NetworkX's
cycle rotation), 1 set_edge_attributes (changes the input graph in place).

The centrality suite (NetworkX's test files for closeness, harmonic and betweenness centrality, edge
betweenness included, and the distance measures) runs the same way: on the host 148 passed, 59 xfailed
of 207 (NetworkX 3.6.1; betweenness alone 74 passed, 1 xfailed of 75), with the
500 cases of ``test_use_bounds_on_off_consistency`` deselected (they build their graphs with
``nx.compose``, which the backend does not implement, so each is an xfail that takes time and
says nothing). The 58 xfails: 45 calls of functions outside the backend (resistance distance, Kemeny's
constant, harmonic diameter, incremental closeness, ``union``), 13 calls with a callable weight,
precomputed ``sp=`` / ``e=`` or ``barycenter(attr=)``, declined, and 1 betweenness call with ``k``
larger than the graph, declined so that NetworkX raises its own error.
"""
import os
import re
import subprocess
import sys

import networkx as nx
import pytest

from test_nx_backend import require_backend

FLOOR = 120  # of 137; the goal is 110
SUITE = "networkx.algorithms.shortest_paths"
CENTRALITY_FLOOR = 148  # of 207 (see the module docstring)
CENTRALITY_SUITE = ("networkx.algorithms.centrality.tests.test_closeness_centrality",
                    "networkx.algorithms.centrality.tests.test_harmonic_centrality",
                    "networkx.algorithms.centrality.tests.test_betweenness_centrality",
                    "networkx.algorithms.tests.test_distance_measures")
CENTRALITY_DESELECT = "not use_bounds_on_off_consistency"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def _registered():
    require_backend()


def _run_suite(suite=(SUITE,), select=()):
    env = {**os.environ, "NETWORKX_TEST_BACKEND": "apsp_kernels", "NETWORKX_FALLBACK_TO_NX": ""}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:randomly", "-W", "ignore", "-rfE", *select, "--pyargs", *suite],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    print(f"NetworkX {nx.__version__} {', '.join(suite)} on apsp_kernels, no fallback: {summary}")
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|xfailed|error|errors)", summary)}
    return done, counts


def _check(done, counts, floor=FLOOR):
    assert counts.get("failed", 0) == 0 and not counts.get("error") and not counts.get("errors"), \
        done.stdout[-6000:]
    assert counts.get("passed", 0) >= floor, done.stdout[-6000:]


def _run_centrality_suite():
    return _run_suite(CENTRALITY_SUITE, ("-k", CENTRALITY_DESELECT))


def test_networkx_shortest_paths_suite_on_the_backend():
    """On the host: the library answers through SciPy (which is what CI has)."""
    _check(*_run_suite())


@pytest.mark.gpu
def test_networkx_shortest_paths_suite_on_the_backend_gpu():
    """On the device: integer weights reach the GPU kernels (predecessors from the GPU trees)."""
    from apsp_kernels import gpu
    assert gpu.available()
    _check(*_run_suite())


def test_networkx_centrality_suite_on_the_backend():
    """Closeness, harmonic and the distance measures on the host (SciPy's Dijkstra per block)."""
    _check(*_run_centrality_suite(), floor=CENTRALITY_FLOOR)


@pytest.mark.gpu
def test_networkx_centrality_suite_on_the_backend_gpu():
    """On the device: the rows come from the GPU and are reduced there."""
    from apsp_kernels import gpu
    assert gpu.available()
    _check(*_run_centrality_suite(), floor=CENTRALITY_FLOOR)
