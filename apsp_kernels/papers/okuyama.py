"""okuyama: Okuyama, Ino, Hagihara, "A task parallel algorithm for finding all-pairs shortest
paths using the GPU" (IJHPCN). Full text: shared/papers/okuyama-task-parallel-apsp.md."""
from ..registry import Method

PAPER = {
    "key": "okuyama",
    "title": "A Task Parallel Algorithm for Finding All-Pairs Shortest Paths Using the GPU",
    "authors": "Tomohiro Okuyama, Fumihiko Ino, Kenichi Hagihara",
    "venue": "Int. J. High Performance Computing and Networking",
    "file": "okuyama-task-parallel-apsp.md",
    "hardware": "GeForce 8800 GTS (G92, 16 SMs, 512 MB), CUDA 2.0; CPU Xeon 5440 (4 cores)",
}

_TP = "apsp_kernels.task_parallel.sssp_groups:TaskParallelSSSP"
_CPU = "apsp_kernels.dijkstra.cpu_all_pairs"

METHODS = [
    Method("okuyama", "harish", "apsp_kernels.sssp_iterative.harish:Harish",
           figure="§4, Fig. 3 and 5",
           description="Harish & Narayanan: one SSSP at a time, scatter (atomicMin) + check "
                       "kernels, thread per vertex"),
    Method("okuyama", "task_parallel_unshared", _TP, figure="§5.1, Fig. 6b-8",
           params=(("N", 32), ("B", 4), ("shared", False)),
           description="N=32 SSSPs per group, interleaved Ma/Ca/Ua, graph from global memory"),
    Method("okuyama", "task_parallel_shared", _TP, figure="§5.1, Fig. 9",
           params=(("N", 32), ("B", 4), ("shared", True)),
           description="N=32 SSSPs per group, adjacency copied to shared memory per vertex"),
    Method("okuyama", "task_parallel_unshared_tuned", _TP, figure="§5.2 (N larger on a modern GPU)",
           params=(("N", "auto"), ("B", "auto"), ("shared", False)),
           description="unshared kernel with N chosen for about 4M (vertex, problem) cells"),
    Method("okuyama", "task_parallel_shared_tuned", _TP, figure="§5.2 (N larger on a modern GPU)",
           params=(("N", "auto"), ("B", "auto"), ("shared", True)),
           description="shared kernel with N chosen for about 4M (vertex, problem) cells"),
    Method("okuyama", "task_parallel_shared_paths", _TP, figure="§5.3, Fig. 14",
           params=(("N", 32), ("B", 4), ("shared", True), ("paths", True)),
           description="task_parallel_shared plus the path-recording kernel (predecessors)"),
    Method("okuyama", "dijkstra_cpu", f"{_CPU}:DijkstraAllCores", figure="§6 CPU baseline",
           gpu=False, description="binary-heap Dijkstra per source on all cores (numba prange)"),
    Method("okuyama", "dijkstra_rustworkx", f"{_CPU}:DijkstraRustworkx", figure="§6 CPU baseline",
           gpu=False, description="rustworkx all_pairs_dijkstra_path_lengths (Rust, all cores); "
                                  "optional dependency"),
    Method("okuyama", "dijkstra_scipy", f"{_CPU}:DijkstraSciPy", figure="§6 CPU baseline",
           gpu=False, description="SciPy csgraph.dijkstra, one thread"),
]
