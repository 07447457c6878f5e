"""Takafuji, Nakano, Ito: blocked Floyd-Warshall in one persistent kernel vs three kernels per
round, single instance (Table I) and bulk (Table II)."""
from ..registry import Method

PAPER = {
    "key": "takafuji",
    "title": "Accelerating GPU implementation of All Pairs Shortest Path Algorithm",
    "authors": "Daisuke Takafuji, Koji Nakano, Yasuaki Ito (Hiroshima University)",
    "language": "Japanese (English abstract)",
    "file": "takafuji-single-kernel-blocked-fw.md",
    "hardware": "NVIDIA Tesla V100, CUDA 10.1",
    "reproduces": "Table I (single vs multi kernel, T threads per block, B blocks), "
                  "Table II (bulk: m instances), Fig. 3/4 (task ids)",
}

_BFW = "apsp_kernels.blocked_fw"
METHODS = [
    Method("takafuji", "multi", f"{_BFW}.round_kernels:BlockedFWMulti", figure="Sec. III, Table I",
           description="blocked FW, W=32 float32 tiles, kernels A/B/C per round (3 n/32 launches); "
                       "param threads (T)"),
    Method("takafuji", "single", f"{_BFW}.persistent:BlockedFWSingle", figure="Sec. IV, Fig. 3, Table I",
           description="blocked FW in one persistent kernel: atomic task counter, per-tile flags; "
                       "params threads (T), blocks (B)"),
    Method("takafuji", "multi_paths", f"{_BFW}.round_kernels:BlockedFWMulti", params=(("paths", True),),
           figure="Sec. III (+ intermediate-vertex matrix)",
           description="multi with an intermediate-vertex matrix for path reconstruction"),
    Method("takafuji", "single_paths", f"{_BFW}.persistent:BlockedFWSingle", params=(("paths", True),),
           figure="Sec. IV (+ intermediate-vertex matrix)",
           description="single with an intermediate-vertex matrix for path reconstruction"),
    Method("takafuji", "bulk_multi", f"{_BFW}.bulk:BulkBlockedFW", params=(("kind", "multi"),),
           figure="Sec. V, Table II",
           description="m instances in one (m, P, P) array; kernels A/B/C cover all instances"),
    Method("takafuji", "bulk_single", f"{_BFW}.bulk:BulkBlockedFW", params=(("kind", "single"),),
           figure="Sec. V, Fig. 4, Table II",
           description="m instances, one persistent kernel, task ids interleaved over instances"),
    Method("takafuji", "cpu_numpy", f"{_BFW}.task_schedule:BlockedFWNumpy", gpu=False,
           figure="Algorithm 2", description="blocked FW round by round with numpy (CPU reference)"),
]
