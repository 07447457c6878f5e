"""Run one family on a prepared graph: the rows of the sources asked for, as the public API
returns them (float64 with np.inf; predecessors int32 with -9999), on the device for CuPy input."""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..errors import InputError
from .paths import NO_PREDECESSOR


def run_family(fam, graph, device: bool, sources, predecessors: bool):
    """``(dist, pred)`` rows of ``sources`` from family ``fam`` (pred None unless asked for);
    InputError when the family has no method for the graph's weights."""
    method = fam.method(graph.dtype, predecessors)
    if method is None:
        raise InputError(fam.refusal(graph.dtype, predecessors))
    params = fam.params_for(predecessors, graph.dtype)
    if fam.single_source:
        parts = [run_method(method, graph, [s], params, device) for s in sources]
        dist = stack([p[0] for p in parts], device, graph.n, np.float64)
        pred = stack([p[1] for p in parts], device, graph.n, np.int32) if predecessors else None
    else:
        dist, pred = run_method(method, graph, sources, params, device)
    return dist, (pred if predecessors else None)


def run_method(method, graph, sources, params, device: bool):
    solver = method.make(graph, sources=sources, **params)
    if not device and hasattr(solver, "stream_to_host"):
        solver.stream_to_host()  # NumPy out: rows copied while later passes compute
    sol = solver.solve_once(f"{method.key} on {graph.n} vertices")
    return sol.rows(device=device), sol.pred_rows(device=device, none=NO_PREDECESSOR)


def stack(parts, device: bool, n: int, dtype):
    xp = gpu.cupy() if device else np
    return xp.concatenate(parts) if parts else xp.empty((0, n), dtype=dtype)
