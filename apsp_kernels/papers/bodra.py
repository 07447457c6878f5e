"""Bodra: Bellman-Ford, Dijkstra and Floyd-Warshall variants in CUDA (Tables 1-3, Fig. 5-6)."""
from ..registry import Method

PAPER = {
    "key": "bodra",
    "title": "Accelerating Shortest Path Algorithms on the GPU using CUDA",
    "authors": "Deep Bodra",
    "citation": "D. Bodra, Accelerating Shortest Path Algorithms on the GPU using CUDA, "
                "University of Florida (course report, c. 2021); code: "
                "github.com/deepbodra97/cuda-parallel-shortest-path",
    "file": "bodra-cuda-shortest-paths.md",
    "graphs": "DIMACS USA-road-d (Table 1, source 0); SNAP p2p-Gnutella04/25/30 with integer "
              "weights uniform in [1, 100] (Tables 2-3)",
    "hardware": "GeForce GPUs on HiPerGator (University of Florida), CUDA 10.0",
}

_BF = "apsp_kernels.sssp_iterative.bellman_ford:BellmanFordGPU"
_FW = "apsp_kernels.floyd_warshall.variants"
_BLOCKED = "apsp_kernels.blocked_fw.three_phase"
_BF_MODES = ("params mode='faithful' (|V|-1 iterations, as the author) or 'early_exit' "
             "(stop when nothing changed, checked every check_every iterations)")

METHODS = [
    Method("bodra", "bf_naive", _BF, figure="Table 1, Fig. 5 (naive)", params=(("variant", "naive"),),
           description="Bellman-Ford on CSR, one thread per vertex, two distance arrays + "
                       "atomicMin, parent kernel at the end; " + _BF_MODES),
    Method("bodra", "bf_stride", _BF, figure="Table 1, Fig. 5 (stride)", params=(("variant", "stride"),),
           description="Bellman-Ford with grid-stride loops over half the blocks; " + _BF_MODES),
    Method("bodra", "bf_stride_flag", _BF, figure="Table 1, Fig. 5 (stride with flag)",
           params=(("variant", "stride_flag"),),
           description="Bellman-Ford, grid-stride, only vertices whose distance dropped in the "
                       "last iteration relax; " + _BF_MODES),
    Method("bodra", "dijkstra_naive_apsp", "apsp_kernels.dijkstra.gpu_naive:DijkstraNaiveAPSP",
           figure="Table 2 (naive)",
           description="Dijkstra APSP, one thread per source, adjacency matrix, linear-scan "
                       "extract-min (no heap), parents; sources in groups that fit in memory"),
    Method("bodra", "fw_super_naive", f"{_FW}:SuperNaive", figure="Table 3, Fig. 6 (super naive)",
           params=(("parents", True),),
           description="Floyd-Warshall, one launch per k, one thread per entry on a 2D grid of "
                       "32 x 32 blocks (the project's per-k kernel), parent matrix"),
    Method("bodra", "fw_super_naive_shared", f"{_FW}:SuperNaiveShared",
           figure="Table 3, Fig. 6 (super naive shared)",
           description="Floyd-Warshall, one launch per k, 1D blocks of 1024 threads per row, "
                       "d[i][k] broadcast through shared memory, parent matrix"),
    Method("bodra", "fw_naive", f"{_FW}:NaiveRows", figure="Table 3, Fig. 6 (naive)",
           description="Floyd-Warshall, one launch per k, one thread per row looping over the "
                       "columns (1024-thread blocks), parent matrix"),
    Method("bodra", "fw_tiled", f"{_BLOCKED}:TiledGlobal", figure="Table 3, Fig. 6 (tiled)",
           description="blocked Floyd-Warshall, 3 phases per round, tile 32, operands in global "
                       "memory, parent matrix"),
    Method("bodra", "fw_tiled_shared", f"{_BLOCKED}:TiledShared",
           figure="Table 3, Fig. 6 (tiled with shared memory)",
           description="blocked Floyd-Warshall, 3 phases per round, tile 32, tiles in shared "
                       "memory; phase 3 with 4 x 4 register blocks per thread and DPX add-min; "
                       "parent matrix"),
    Method("bodra", "bf_serial", "apsp_kernels.sssp_iterative.cpu:BellmanFordSerial",
           figure="Table 1 (CPU)", gpu=False,
           description="serial in-place Bellman-Ford on one CPU core (numba); " + _BF_MODES),
    Method("bodra", "dijkstra_serial", "apsp_kernels.dijkstra.scipy_cpu:DijkstraSerialSciPy",
           figure="Table 2 (CPU)", gpu=False,
           description="SciPy's csgraph.dijkstra per source (CSR + heap, one core): a faster "
                       "algorithm than the author's O(n^2)-per-source CPU code"),
    Method("bodra", "fw_serial", "apsp_kernels.floyd_warshall.cpu:FloydWarshallSerial",
           figure="Table 3 (CPU)", gpu=False,
           description="serial Floyd-Warshall triple loop on one CPU core (numba), no parents"),
]
