"""Liu, "Parallel Programming for Single-Source Shortest Path: OpenMP and CUDA" (JHU, 2018).

Fig. 1-4: array-based Dijkstra on the adjacency matrix, serial and with OpenMP threads,
against nvGraph's (min,+) SpMV SSSP on a K80, for N = 1250 ... 40000 and MIN_DEGREE =
16 ... 512 (graphs: ``generators.liu_min_degree``).
"""
from ..registry import Method

PAPER = {
    "key": "liu",
    "title": "Parallel Programming for Single-Source Shortest Path: OpenMP and CUDA",
    "citation": "M. Liu, EN.601.620 Parallel Programming graduate project, Johns Hopkins University, 2018",
    "file": "liu-sssp-openmp-cuda.md",
    "hardware": "AWS p2.xlarge: Xeon E5-2686 v4 (4 vCPUs, 2.3 GHz), NVIDIA Tesla K80",
}

METHODS = [
    Method("liu", "dijkstra_serial", "apsp_kernels.dijkstra.cpu_array:DijkstraArraySerial",
           figure="Fig. 1 (serial SSSP)", gpu=False,
           description="O(N²) Dijkstra on the adjacency matrix, extract-min by linear scan, one thread"),
    Method("liu", "dijkstra_parallel", "apsp_kernels.dijkstra.cpu_array:DijkstraArrayParallel",
           figure="Fig. 1 (OpenMP SSSP), Fig. 4", gpu=False,
           description="the same with extract-min and relaxation split over `threads` numba threads "
                       "(default 4 as the paper's OpenMP run on 4 vCPUs, fewer where the machine has fewer)"),
    Method("liu", "sssp_spmv", "apsp_kernels.sssp_iterative.spmv:SpmvSSSP",
           figure="Fig. 1 (CUDA SSSP: algorithm and total time), Fig. 4",
           description="(min,+) SpMV on CSC iterated to a fixed point on the GPU (nvGraph's method), "
                       "predecessors from a final pass"),
]
