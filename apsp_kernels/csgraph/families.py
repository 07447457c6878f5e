"""The method families behind ``shortest_path(method=...)``: SciPy's names and the project's own.

Each family names, per weight type, the registered method that runs it and the variant that
also records predecessors (:mod:`apsp_kernels.registry` keys ``paper:method``). The kernels
are the papers' own; their docstrings name the paper and figure.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import registry


@dataclass(frozen=True)
class Family:
    name: str
    description: str
    all_pairs: bool                     # computes every row, whatever sources are asked for
    int32: str | None = None            # registry key for int32 graphs
    float32: str | None = None          # registry key for float32 graphs
    int32_pred: str | None = None       # the same family recording predecessors
    float32_pred: str | None = None
    params: dict = field(default_factory=dict)
    single_source: bool = False         # runs one source per solver
    negative: bool = False              # takes negative weights

    def key(self, dtype, predecessors: bool) -> str | None:
        kind = "int32" if str(dtype) == "int32" else "float32"
        return getattr(self, f"{kind}_pred" if predecessors else kind)

    def method(self, dtype, predecessors: bool) -> registry.Method | None:
        key = self.key(dtype, predecessors)
        return None if key is None else registry.get(*key.split(":"))

    @property
    def keys(self) -> set[str]:
        return {k for k in (self.int32, self.float32, self.int32_pred, self.float32_pred) if k}


_DENSE = "all pairs on the dense matrix"
_SSSP = "one shortest-path tree per source on the CSR graph"
FAMILIES = {f.name: f for f in [
    Family("FW", f"Floyd-Warshall family, {_DENSE}: R-Kleene (pandey's algorithm, the fast "
                 "path) for distances, tiled FW with parents (bodra) or blocked FW with an "
                 "intermediate matrix (takafuji, float32)",
           all_pairs=True, int32="fast:rkleene", float32="fast:rkleene",
           int32_pred="bodra:fw_tiled_shared", float32_pred="takafuji:multi_paths"),
    Family("rkleene", f"R-Kleene in place over (min,+) products (pandey), {_DENSE}", all_pairs=True,
           int32="pandey:rkleene", float32="pandey:rkleene"),
    Family("rkleene_fast", f"R-Kleene near the (min,+) peak: 128-tile cp.async products, "
                           f"batched and split along k, FW leaves of 128 (issue [peak]), {_DENSE}",
           all_pairs=True, int32="fast:rkleene", float32="fast:rkleene"),
    Family("blocked_fw", f"blocked Floyd-Warshall, 3 kernels per round (takafuji; float32 inside, "
                         f"int32 exact below 2**24), {_DENSE}", all_pairs=True,
           int32="takafuji:multi", float32="takafuji:multi",
           int32_pred="takafuji:multi_paths", float32_pred="takafuji:multi_paths"),
    Family("D", f"SSSP-based, non-negative weights (SciPy's Dijkstra slot): okuyama's task-parallel "
                f"label-correcting kernel, {_SSSP}", all_pairs=False,
           int32="okuyama:task_parallel_shared_tuned", float32="okuyama:task_parallel_shared_tuned",
           int32_pred="okuyama:task_parallel_shared_paths",
           float32_pred="okuyama:task_parallel_shared_paths"),
    Family("task_parallel", f"okuyama's task-parallel SSSPs, N sources per vertex group, {_SSSP}",
           all_pairs=False, int32="okuyama:task_parallel_shared_tuned",
           float32="okuyama:task_parallel_shared_tuned",
           int32_pred="okuyama:task_parallel_shared_paths",
           float32_pred="okuyama:task_parallel_shared_paths"),
    Family("harish", f"Harish & Narayanan, one SSSP at a time (okuyama Sec. 4), {_SSSP}",
           all_pairs=False, int32="okuyama:harish", float32="okuyama:harish"),
    Family("spmv", f"(min,+) SpMV to a fixed point (liu), {_SSSP}", all_pairs=False,
           int32="liu:sssp_spmv", float32="liu:sssp_spmv", int32_pred="liu:sssp_spmv",
           float32_pred="liu:sssp_spmv", single_source=True),
    Family("worklist", f"asynchronous worklist SSSP in one persistent launch (project fast path "
                       f"for road networks), one source after another, {_SSSP}", all_pairs=False,
           int32="fast:sssp_worklist", float32="fast:sssp_worklist", int32_pred="fast:sssp_worklist",
           float32_pred="fast:sssp_worklist"),
    Family("multi_source", f"K sources per pass, (min,+) SpMM pull over K-wide distance rows "
                           f"(project fast path for okuyama's APSP), {_SSSP}", all_pairs=False,
           int32="fast:multi_source", float32="fast:multi_source",
           int32_pred="fast:multi_source_paths", float32_pred="fast:multi_source_paths"),
    Family("BF", f"Bellman-Ford, stride + flag, early exit (bodra); negative weights, "
                 f"negative-cycle detection; int32 only; {_SSSP}", all_pairs=False,
           int32="bodra:bf_stride_flag", int32_pred="bodra:bf_stride_flag",
           params={"mode": "early_exit"}, negative=True),
]}
ALIASES = {"J": "BF", "johnson": "BF", "dijkstra": "D", "bellman_ford": "BF", "floyd_warshall": "FW"}
HOST = "scipy"  # SciPy's csgraph on the host: the fallback, and a method of its own


def family(name: str) -> Family | None:
    """The family called ``name`` (SciPy's names, their aliases, the project's); None for SciPy."""
    name = ALIASES.get(name, name)
    if name == HOST:
        return None
    try:
        return FAMILIES[name]
    except KeyError:
        known = ", ".join(["auto", HOST, *FAMILIES, *ALIASES])
        raise ValueError(f"unknown method {name!r}; choose one of: {known}") from None


def family_of(key: str) -> str | None:
    """The first family whose methods include registry key ``key``."""
    return next((f.name for f in FAMILIES.values() if key in f.keys), None)
