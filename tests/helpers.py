"""Helpers shared by the test modules: run a registered method through its lifecycle, check it
against the oracle, and wait on a condition with a deadline (no racing sleeps)."""
import time

from apsp_kernels import oracle, registry


def solve(paper: str, name: str, graph, **params):
    """The registered method's solver after setup, reset and compute."""
    solver = registry.get(paper, name).make(graph, **params)
    solver.solve_once()
    return solver


def assert_exact(solver, graph):
    res = oracle.verify(solver.solution(), graph)
    assert res["verified"], (graph.name, res)


def wait_for(condition, what: str, timeout: float, poll: float = 0.05):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(poll)
