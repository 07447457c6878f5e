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
"""
import os
import re
import subprocess
import sys

import networkx as nx
import pytest

FLOOR = 120  # of 137; the goal is 110
SUITE = "networkx.algorithms.shortest_paths"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run_suite():
    env = {**os.environ, "NETWORKX_TEST_BACKEND": "apsp_kernels", "NETWORKX_FALLBACK_TO_NX": ""}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:randomly", "-W", "ignore", "-rfE", "--pyargs", SUITE],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    print(f"NetworkX {nx.__version__} {SUITE} on apsp_kernels, no fallback: {summary}")
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|xfailed|error|errors)", summary)}
    return done, counts


def _check(done, counts):
    assert counts.get("failed", 0) == 0 and not counts.get("error") and not counts.get("errors"), \
        done.stdout[-6000:]
    assert counts.get("passed", 0) >= FLOOR, done.stdout[-6000:]


def test_networkx_shortest_paths_suite_on_the_backend():
    """On the host: the library answers through SciPy (which is what CI has)."""
    _check(*_run_suite())


@pytest.mark.gpu
def test_networkx_shortest_paths_suite_on_the_backend_gpu():
    """On the device: integer weights reach the GPU kernels (predecessors from the GPU trees)."""
    from apsp_kernels import gpu
    assert gpu.available()
    _check(*_run_suite())
