"""The method families behind ``shortest_path(method=...)``: SciPy's names and the project's own.

Each family names, per weight type (int32, float32, float64), the registered method that runs
it and the variant that also records predecessors (:mod:`apsp_kernels.registry` keys
``paper:method``); a family without a method for a weight type says so when asked
(:meth:`Family.refusal`). The kernels are the papers' own; their docstrings name the paper and
figure. Which weight type an input gets: :mod:`apsp_kernels.csgraph.inputs`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .. import registry

WEIGHT_KINDS = ("int32", "float32", "float64")


@dataclass(frozen=True)
class Family:
    name: str
    description: str
    all_pairs: bool                     # computes every row, whatever sources are asked for
    int32: str | None = None            # registry key for int32 graphs
    float32: str | None = None          # registry key for float32 graphs (the opt-in)
    int32_pred: str | None = None       # the same family recording predecessors
    float32_pred: str | None = None
    params: dict = field(default_factory=dict)
    distance_params: dict = field(default_factory=dict)  # added when no predecessors are asked for
    single_source: bool = False         # runs one source per solver
    negative: bool = False              # takes negative weights
    float64: str | None = None          # registry key for float64 graphs (float input's default)
    float64_pred: str | None = None
    float64_distance_params: dict = field(default_factory=dict)  # float64 and no predecessors

    def key(self, dtype, predecessors: bool) -> str | None:
        kind = str(np.dtype(dtype))
        if kind not in WEIGHT_KINDS:
            return None
        return getattr(self, f"{kind}_pred" if predecessors else kind)

    def params_for(self, predecessors: bool, dtype=None) -> dict:
        if predecessors:
            return self.params
        extra = self.float64_distance_params if dtype is not None and np.dtype(dtype) == np.float64 else {}
        return {**self.params, **self.distance_params, **extra}

    def refusal(self, dtype, predecessors: bool) -> str:
        """Why this family cannot run ``dtype`` weights ('' when it can)."""
        if self.key(dtype, predecessors) is not None:
            return ""
        what = "predecessor-recording method" if predecessors else "method"
        can = [k for k in WEIGHT_KINDS if self.key(k, predecessors)]
        return (f"family {self.name!r} has no {what} for {np.dtype(dtype)} weights (it has: "
                f"{', '.join(can) or 'none'})")

    def method(self, dtype, predecessors: bool) -> registry.Method | None:
        key = self.key(dtype, predecessors)
        return None if key is None else registry.get(*key.split(":"))

    @property
    def keys(self) -> set[str]:
        return {k for k in (self.int32, self.float32, self.float64, self.int32_pred, self.float32_pred,
                            self.float64_pred) if k}


def _both(name: str, description: str, all_pairs: bool, key: str, pred: str | None = None,
          **kw) -> Family:
    """A family whose one method (and one predecessor variant) runs int32, float32 and float64
    graphs (kernel variants ``_i32``, ``_f32``, ``_f64``)."""
    return Family(name, description, all_pairs, int32=key, float32=key, float64=key, int32_pred=pred,
                  float32_pred=pred, float64_pred=pred, **kw)


_NO_PARENTS = {"parents": False}  # the solver skips its predecessor pass (and the reverse CSR)
_DENSE = "all pairs on the dense matrix"
_SSSP = "one shortest-path tree per source on the CSR graph"
FAMILIES = {f.name: f for f in [
    Family("FW", f"Floyd-Warshall family, {_DENSE}: R-Kleene (pandey's algorithm, the fast "
                 "path) for distances, tiled FW with parents (bodra; int32 and float64) or blocked "
                 "FW with an intermediate matrix (takafuji, float32)",
           all_pairs=True, int32="fast:rkleene", float32="fast:rkleene", float64="fast:rkleene",
           int32_pred="bodra:fw_tiled_shared", float32_pred="takafuji:multi_paths",
           float64_pred="bodra:fw_tiled_shared"),
    _both("rkleene", f"R-Kleene in place over (min,+) products (pandey), {_DENSE}", True, "pandey:rkleene"),
    _both("rkleene_fast", f"R-Kleene near the (min,+) peak: 128-tile cp.async products, batched and "
                          f"split along k, FW leaves of 128 (issue [peak]), {_DENSE}", True, "fast:rkleene"),
    Family("blocked_fw", f"blocked Floyd-Warshall, 3 kernels per round: takafuji's float32 kernels "
                         f"(int32 exact below 2**24), bodra's three-phase tiled kernels for float64, "
                         f"{_DENSE}", all_pairs=True, int32="takafuji:multi", float32="takafuji:multi",
           int32_pred="takafuji:multi_paths", float32_pred="takafuji:multi_paths",
           float64="bodra:fw_tiled_shared", float64_pred="bodra:fw_tiled_shared",
           float64_distance_params={"parents": False}),
    _both("D", f"SSSP-based, non-negative weights (SciPy's Dijkstra slot): okuyama's task-parallel "
               f"label-correcting kernel, {_SSSP}", False, "okuyama:task_parallel_shared_tuned",
          "okuyama:task_parallel_shared_paths"),
    _both("task_parallel", f"okuyama's task-parallel SSSPs, N sources per vertex group, {_SSSP}", False,
          "okuyama:task_parallel_shared_tuned", "okuyama:task_parallel_shared_paths"),
    _both("harish", f"Harish & Narayanan, one SSSP at a time (okuyama Sec. 4), {_SSSP}", False,
          "okuyama:harish"),
    _both("spmv", f"(min,+) SpMV to a fixed point (liu), {_SSSP}", False, "liu:sssp_spmv", "liu:sssp_spmv",
          single_source=True, distance_params=_NO_PARENTS),
    _both("worklist", f"asynchronous worklist SSSP in one persistent launch (project fast path for road "
                      f"networks), one source after another, {_SSSP}", False, "fast:sssp_worklist",
          "fast:sssp_worklist", distance_params=_NO_PARENTS),
    _both("multi_source", f"K sources per pass, (min,+) SpMM pull over K-wide distance rows (project fast "
                          f"path for okuyama's APSP), {_SSSP}", False, "fast:multi_source",
          "fast:multi_source_paths"),
    _both("phast", f"batched PHAST over a contraction hierarchy built once per graph on the host (project "
                   f"fast path for road networks, issue 30): K trees per sweep, road-like graphs only, "
                   f"distances only, {_SSSP}", False, "fast:phast_batched"),
    _both("BF", f"Bellman-Ford, stride + flag, early exit (bodra); negative weights, "
                f"negative-cycle detection; {_SSSP}", False, "bodra:bf_stride_flag",
          "bodra:bf_stride_flag", params={"mode": "early_exit"}, negative=True),
]}
# Johnson (csgraph/reweighting.py) runs BF's methods for the potentials, then multi_source's: its
# weight types are BF's, its own rows come from both families in the decision table.
FAMILIES["J"] = replace(FAMILIES["BF"], name="J", description=(
    f"Johnson: Bellman-Ford potentials (the BF family) from a virtual source, then the reweighted "
    f"non-negative graph's batched SSSPs (the multi_source family); negative weights; {_SSSP}"))
ALIASES = {"johnson": "J", "dijkstra": "D", "bellman_ford": "BF", "floyd_warshall": "FW"}
SCIPY_METHODS = ("auto", "FW", "D", "BF", "J")
HOST = "scipy"  # SciPy's csgraph on the host: the fallback, and a method of its own


def family(name: str) -> Family | None:
    """The family called ``name`` (SciPy's names, the project's, or the long names ``"johnson"``,
    ``"dijkstra"``, ``"bellman_ford"``, ``"floyd_warshall"``); None for SciPy."""
    name = ALIASES.get(name, name)
    if name == HOST:
        return None
    try:
        return FAMILIES[name]
    except KeyError:
        ours = [f for f in FAMILIES if f not in SCIPY_METHODS]
        raise ValueError(f"unknown method {name!r}; choose SciPy's {', '.join(map(repr, SCIPY_METHODS))}, "
                         f"one of the project's families {', '.join(map(repr, ours))}, or {HOST!r} "
                         f"(SciPy itself, on the host)") from None


def family_of(key: str) -> str | None:
    """The first family whose methods include registry key ``key``."""
    return next((f.name for f in FAMILIES.values() if key in f.keys), None)
