"""Pandey, Pandey & Sharma: in-place recursive (R-Kleene) APSP with OpenCL (Fig. 6-15, Table 1)."""
from ..registry import Method

PAPER = {
    "key": "pandey",
    "title": "In-place recursive approach for all-pairs shortest paths problem using OpenCL",
    "authors": "Manish Pandey, Himanshu Pandey, Sanjay Sharma",
    "citation": "M. Pandey, H. Pandey, S. Sharma, In-place recursive approach for all-pairs "
                "shortest paths problem using OpenCL, MANIT Bhopal (c. 2013)",
    "file": "pandey-rkleene-opencl.md",
    "graphs": "dense random digraphs, every ordered pair an arc, int32 weights uniform in [1, 10]",
}

_RK = "apsp_kernels.minplus.rkleene:RKleene"
_SQ = "apsp_kernels.minplus.squaring:MinPlusSquaring"

METHODS = [
    Method("pandey", "rkleene", _RK, figure="Fig. 6/7, Fig. 11-13, Table 1",
           params=(("threshold", 16), ("product", "blocked"), ("cuda_graph", True)),
           description="R-Kleene in place on the GPU: host recursion over views of one matrix, "
                       "register-blocked (min,+) product, in-block FW base case (<= 16), the "
                       "launch sequence replayed as one CUDA graph"),
    Method("pandey", "rkleene_launches", _RK, figure="Fig. 7",
           params=(("threshold", 16), ("product", "blocked"), ("cuda_graph", False)),
           description="rkleene with every kernel launched from the host recursion (no CUDA graph)"),
    Method("pandey", "rkleene_tiled", _RK, figure="Fig. 7, Fig. 10",
           params=(("threshold", 16), ("product", "tiled"), ("cuda_graph", False)),
           description="R-Kleene with the paper's product kernel: one thread per output entry, "
                       "16 x 16 tiles in shared memory, launched from the host recursion"),
    Method("pandey", "fw_parallel", "apsp_kernels.floyd_warshall.per_k:FloydWarshallPerK",
           figure="Fig. 8/9, Fig. 14/15", params=(("parents", False),),
           description="Floyd-Warshall with one kernel launch per k, one thread per entry"),
    Method("pandey", "rkleene_serial", "apsp_kernels.minplus.cpu:RKleeneSerial",
           figure="Fig. 6, Fig. 11-13, Table 1", params=(("threshold", 16),), gpu=False,
           description="serial R-Kleene on one CPU core (numba), same recursion and threshold"),
    Method("pandey", "fw_serial", "apsp_kernels.floyd_warshall.cpu:FloydWarshallSerial",
           figure="Fig. 5, Fig. 11/13/14", gpu=False,
           description="serial Floyd-Warshall triple loop on one CPU core (numba)"),
    Method("pandey", "minplus_naive_tiled", _SQ, figure="Fig. 10", params=(("kernel", "tiled"),),
           description="the paper's product kernel timed as ceil(log2(n-1)) in-place squarings "
                       "D <- min(D, D*D) (an APSP, so the oracle checks it)"),
    Method("pandey", "minplus_blocked", _SQ, figure="Fig. 10 (optimised)",
           params=(("kernel", "blocked"),),
           description="the register-blocked product kernel timed as in-place squarings"),
]
