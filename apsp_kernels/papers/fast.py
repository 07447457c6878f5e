"""fast: the project's own fast paths, beside the papers' kernels (which stay as published).

Each method names the paper whose algorithm it speeds up; its docstring names the figure.
"""
from ..registry import Method

PAPER = {
    "key": "fast",
    "title": "apsp_kernels fast paths: the papers' algorithms tuned to the hardware limit",
    "authors": "apsp_kernels contributors",
    "file": "",
}

METHODS: list[Method] = []

_RK = "apsp_kernels.minplus.rkleene:RKleene"
_SQ = "apsp_kernels.minplus.squaring:MinPlusSquaring"
METHODS += [
    Method("fast", "rkleene", _RK, figure="pandey Fig. 6/7 (issue [peak])",
           params=(("threshold", 128), ("product", "fast"), ("cuda_graph", True)),
           description="pandey's R-Kleene near the DPX limit: n padded to 128-multiples, 128 x 128 "
                       "tiles with a cp.async pipeline, register-resident FW leaves of 128, the two "
                       "independent products of each step in one launch, under-filled products split "
                       "along k (atomicMin), the whole sequence one CUDA graph"),
    Method("fast", "minplus_squaring", _SQ, figure="pandey Fig. 10 (issue [peak])",
           params=(("kernel", "fast"),),
           description="the fast (min,+) product timed as ceil(log2(n-1)) in-place squarings "
                       "D <- min(D, D*D) on the padded matrix (an APSP, so the oracle checks it)"),
]

METHODS += [
    Method("fast", "sssp_worklist", "apsp_kernels.sssp_worklist.worklist:WorklistSSSP",
           figure="liu Fig. 3/4, bodra Table 1, okuyama §4 (SSSP on road networks)",
           description="asynchronous worklist SSSP in one persistent launch: a vertex is queued when "
                       "its distance drops and relaxed with the newest distances; block-local rounds, "
                       "a global ring for the surplus; predecessors from a final pass"),
    Method("fast", "sssp_phast", "apsp_kernels.sssp_hierarchy.phast:PhastSSSP",
           figure="liu Fig. 3/4, bodra Table 1 (SSSP on road networks)",
           description="PHAST (Delling et al. 2011): a contraction hierarchy built once per graph on the "
                       "host (not timed), then per source an upward and a downward sweep by level, the "
                       "small top levels in one block; road-like graphs only; distances only"),
    Method("fast", "phast_batched", "apsp_kernels.sssp_hierarchy.phast_batched:PhastBatchedSSSP",
           figure="okuyama Fig. 10-13 (SSSP-based APSP), bodra Table 1 (road networks), issue 30",
           params=(("K", 32),),
           description="batched PHAST (Delling et al. 2011/2013): the contraction hierarchy built once "
                       "per graph on the host (not timed), then K trees per sweep: stamped upward "
                       "searches and the downward sweep by level over K-wide vertex-major rows, every "
                       "group of K sources side by side; road-like graphs only; distances only"),
    Method("fast", "multi_source", "apsp_kernels.multi_source.solver:MultiSourceSSSP",
           figure="okuyama Fig. 10-13, Table 1 (SSSP-based APSP)",
           description="K sources per pass: (min,+) SpMM pull over K-wide vertex-major distance rows, "
                       "restricted to changed (vertex, chunk) pairs, swept in place to a fixed point"),
    Method("fast", "multi_source_paths", "apsp_kernels.multi_source.solver:MultiSourceSSSP",
           figure="okuyama Fig. 14 (APSP with paths)", params=(("parents", True),),
           description="the same with predecessors (a kernel over the reverse CSR; a tight-arc "
                       "BFS when a weight is zero)"),
]
