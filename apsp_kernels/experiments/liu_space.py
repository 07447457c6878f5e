"""liu's space (:mod:`apsp_kernels.experiments.liu`): the paper's sizes, degrees and threads,
the names and labels of the measured implementations, and the graph names' degree."""
from __future__ import annotations

PAPER = "liu"
PAPER_SIZES = (1250, 2500, 5000, 10000, 20000, 40000)
PAPER_DEGREES = (16, 32, 64, 128, 256, 512)
PAPER_THREADS = 4
MEMORY_BANDWIDTH = 3.0e12  # H100 device memory, bytes/s (project measurement, copies)

# column names of the measured implementations in every table
SERIAL, GPU_ALG, GPU_TOTAL = "serial", "gpu_algorithm", "gpu_total"
PUBLISHED = {SERIAL: "fig1_serial", "parallel_4": "fig1_openmp", GPU_ALG: "fig1_cuda_algorithm",
             GPU_TOTAL: "fig1_cuda_total"}
LABELS = {SERIAL: "serial Dijkstra", "parallel_4": "parallel Dijkstra, 4 threads",
          GPU_ALG: "GPU SpMV, algorithm", GPU_TOTAL: "GPU SpMV, total (convert + transfer)"}


def parallel_col(threads: int) -> str:
    return f"parallel_{threads}"


def label(kind: str) -> str:
    """Human name of a measured column (``parallel_<k>`` -> k threads)."""
    if kind in LABELS and kind != "parallel_4":
        return LABELS[kind]
    if kind.startswith("parallel_"):
        return f"parallel Dijkstra, {kind.split('_')[1]} threads"
    return kind.replace("_", " ")


def degree_of(graph_name: str) -> int:
    """MIN_DEGREE from a liu graph name (``liu-n<N>-deg<D>-s<seed>``)."""
    return int(graph_name.split("-deg")[1].split("-")[0])

