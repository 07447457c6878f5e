"""R-MAT power-law digraphs (Chakrabarti, Zhan, Faloutsos 2004) for Okuyama et al. Table 1."""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..graph import Graph
from ._common import build, integer_weights, positive_int, top_up_distinct, weight_range

# Okuyama et al. give only the result: |V| = 4677, |E| = 16K, max out-degree 834,
# mean 3.5, 84 % of vertices below 3. These quadrant probabilities reproduce it:
# n=4677, m=16384, seeds 0-7 give max out-degree 814-871 (mean 836; seed 0: 832),
# 82.8-83.7 % below 3, 66 % with out-degree 0, max in-degree ~240, largest
# strongly connected component ~1380 vertices. The GTgraph defaults (0.45, 0.15,
# 0.15, 0.25) give a max out-degree of only ~30. b > c skews out-degrees (a row
# bit is 0 with probability a+b) more than in-degrees (a+c).
RMAT_A, RMAT_B, RMAT_C, RMAT_D = 0.61, 0.21, 0.13, 0.05


def rmat(n, m, a=RMAT_A, b=RMAT_B, c=RMAT_C, d=RMAT_D, w_max=None, seed=0,
         dtype=np.int32, name=None) -> Graph:
    """Okuyama et al. §5, Table 1 "power law": an R-MAT digraph with exactly ``m`` distinct arcs.

    Each arc picks one of the four quadrants of the adjacency matrix with
    probabilities (a, b, c, d), recursively, on ``N = 2**ceil(log2 n)`` ids. An id
    ``x`` in [0, N) is folded into [0, n) as ``floor(x * n / N)``: monotone, so the
    hubs stay at low ids, and each vertex takes one or two consecutive R-MAT ids.
    Self loops (after folding) are dropped and arcs are drawn until ``m`` are
    distinct, keeping the first ones drawn. Weights are integers uniform in
    ``[1, w_max]``, ``w_max`` defaulting to ``n`` (Table 1 uses 4096).

    No Hamiltonian cycle is added: like the paper's graph it is not strongly
    connected (most vertices have out-degree 0), and unreachable pairs stay INF.
    """
    fn = "rmat"
    n = positive_int(fn, "n", n, low=2)
    m = positive_int(fn, "m", m, low=0)
    probs = np.array([a, b, c, d], dtype=np.float64)
    if (probs < 0).any() or abs(probs.sum() - 1.0) > 1e-9:
        raise InputError(f"{fn}: a, b, c, d must be >= 0 and sum to 1, got {tuple(probs)}")
    if m > n * (n - 1):
        raise InputError(f"{fn}: m={m} exceeds the n(n-1) = {n * (n - 1)} possible arcs")
    w_max = n if w_max is None else w_max
    weight_range(fn, 1, w_max)
    scale = int(np.ceil(np.log2(n)))
    rng = np.random.default_rng(seed)
    t1, t2, t3 = np.cumsum(probs[:3]).astype(np.float32)

    def draw(k):
        u = np.zeros(k, dtype=np.int64)
        v = np.zeros(k, dtype=np.int64)
        for _ in range(scale):
            r = rng.random(k, dtype=np.float32)
            row = r >= t2                      # quadrant c or d
            col = (r >= t1) ^ row ^ (r >= t3)  # quadrant b or d
            u <<= 1
            u |= row
            v <<= 1
            v |= col
        u = (u * n) >> scale
        v = (v * n) >> scale
        keep = u != v
        return u[keep] * n + v[keep]

    keys = top_up_distinct(rng, np.empty(0, dtype=np.int64), m, draw, fn=fn, ordered=True)
    src, dst = np.divmod(np.sort(keys), n)  # CSR order; i.i.d. weights are drawn after
    w = integer_weights(rng, m, 1, w_max)
    params = {"n": n, "m": m, "a": a, "b": b, "c": c, "d": d, "w_max": w_max, "seed": seed}
    return build(fn, n, src, dst, w, params=params, dtype=dtype,
                 name=name or f"rmat-n{n}-m{m}-w{w_max}-s{seed}",
                 label=f"R-MAT power law (n={n}, m={m}, a,b,c,d={a:g},{b:g},{c:g},{d:g})")
