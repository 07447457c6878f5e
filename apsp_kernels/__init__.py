"""apsp_kernels: GPU shortest-path kernels (CuPy) reproducing five papers.

Public API::

    from apsp_kernels import Graph, registry, timing, oracle, generators, datasets
    method = registry.get("bodra", "fw_super_naive")
    record = timing.run(method, graph, experiment="table3")
"""
from .graph import Graph
from .inf import INF_INT32, inf_for
from .solver import Solution, Solver

__all__ = ["Graph", "INF_INT32", "inf_for", "Solution", "Solver"]
__version__ = "0.1.0"
