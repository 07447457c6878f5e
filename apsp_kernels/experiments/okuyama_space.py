"""okuyama's space (:mod:`apsp_kernels.experiments.okuyama`): the sizes per profile, the methods it
times, their labels and colours, and the graphs and source order every experiment draws from."""
from __future__ import annotations

import functools

import numpy as np

from .. import generators
from ..profiles import choose, each


PAPER = "okuyama"
GPU_METHODS = ("harish", "task_parallel_unshared", "task_parallel_shared",
               "task_parallel_unshared_tuned", "task_parallel_shared_tuned")
CPU_METHODS = ("dijkstra_cpu", "dijkstra_rustworkx", "dijkstra_scipy")
LABELS = {
    "harish": "Harish (SSSP-based)",
    "task_parallel_unshared": "proposed w/o shared (N=32)",
    "task_parallel_shared": "proposed (N=32)",
    "task_parallel_unshared_tuned": "proposed w/o shared, tuned N",
    "task_parallel_shared_tuned": "proposed, tuned N",
    "task_parallel_shared_paths": "proposed + path recording",
    "dijkstra_cpu": "Dijkstra, all cores (numba)",
    "dijkstra_rustworkx": "Dijkstra, all cores (rustworkx)",
    "dijkstra_scipy": "Dijkstra, 1 thread (SciPy)",
}
TABLE1_TOPOLOGIES = ("random", "power_law", "ring", "complete")
COLORS = {name: f"C{i}" for i, name in enumerate(LABELS)}  # one colour per method in every plot
STAND_INS = ("random", "rmat")  # graph names of our generators standing in for the paper's tools


@functools.lru_cache(maxsize=24)
def graph(kind: str, n: int, m: int = 0, w_max: int | None = None, seed: int = 0):
    """The experiment graphs (cached: the same object for the same arguments).

    ``random``: generators.random_digraph (Hamiltonian cycle + uniform arcs, a stand-in for
    the DIMACS generator); ``power_law``: generators.rmat (a stand-in for the paper's
    power-law graph); ``ring`` and ``complete``: w = 1, the paper's graphs. The records of
    the stand-ins say so (``stand_in``, :data:`STAND_INS`).
    """
    if kind == "random":
        return generators.random_digraph(n, m, w_max=w_max, seed=seed)
    if kind == "power_law":
        return generators.rmat(n, m, w_max=w_max, seed=seed)
    if kind == "ring":
        return generators.ring(n, w=1)
    if kind == "complete":
        return generators.complete(n, w=1)
    raise ValueError(f"unknown graph kind {kind!r}")


@functools.lru_cache(maxsize=16)
def source_order(n: int, seed: int = 0) -> np.ndarray:
    """A seeded permutation of the vertices; samples are its prefixes."""
    return np.random.default_rng(seed + 7919).permutation(n).astype(np.int32)


def config(profile: str) -> dict:
    """Sizes and sampling per profile (``smoke``: seconds on a CPU; ``default``: about 2
    minutes on one H100; ``paper``: the paper's sizes, every source where feasible)."""
    cfg = dict(
        profile=profile,
        seed=0,
        repeats=choose(profile, smoke=1, default=3, paper=5),
        warmup=1,
        cpu_repeats=choose(profile, smoke=1, default=1, paper=3),
        # all sources are timed up to this |V|; above it a sample (scaled, "extrapolated")
        full_sources_max_n=choose(profile, smoke=512, default=5000, paper=16384),
        harish_full_max_n=choose(profile, smoke=0, default=0, paper=5000),
        harish_sources=choose(profile, smoke=8, default=32, paper=256),
        tp_groups=choose(profile, smoke=2, default=4, paper=16),
        cpu_sources=choose(profile, smoke=16, default=128, paper=1024),
        scipy_sources=choose(profile, smoke=8, default=64, paper=256),
        scipy_work=choose(profile, smoke=10_000_000, default=10_000_000, paper=100_000_000),
        rustworkx_max_n=choose(profile, smoke=512, default=5000, paper=20000),
        # the oracle checks every row up to |V| = 5000 unless that costs more than
        # full_verify_work (rows x (|V| + |E|)); else a prefix of about verify_work / (|V| + |E|)
        full_verify_max_n=5000,
        full_verify_work=200_000_000,
        verify_work=20_000_000,
        # Fig. 12/13 sweeps: rows checked per run (None = the rule above). The default
        # profile samples them to stay within its time budget (seven |V| = 4K oracles)
        sweep_verify_rows=each(profile, smoke=None, default=256, paper=None),
        fig10_sizes=choose(profile, smoke=[128, 256],
                           default=[1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144],
                           paper=[1024 * 2 ** i for i in range(11)]),
        fig12_n=choose(profile, smoke=256, default=4096, paper=4096),
        fig12_edges=choose(profile, smoke=[512, 1024], default=[8192, 16384, 32768, 65536],
                           paper=[4096, 8192, 16384, 32768, 65536, 131072]),
        fig13_m=choose(profile, smoke=1024, default=16384, paper=16384),
        fig13_wmax=choose(profile, smoke=[16, 256], default=[16, 256, 4096, 65536],
                          paper=[1, 16, 256, 4096, 65536, 1048576]),
        table1_n=choose(profile, smoke=160, default=4677, paper=4677),
        table1_m=choose(profile, smoke=640, default=16384, paper=16384),
        table1_wmax=4096,
        # per topology: sampled sources (Harish), sampled groups (proposed), CPU sources;
        # None = all sources
        table1_samples=choose(
            profile,
            smoke={"random": {}, "power_law": {}, "ring": {"harish": 2, "tp_groups": 1},
                   "complete": {"harish": 2, "tp_groups": 1, "cpu": 8, "scipy": 2}},
            default={"random": {"harish": 64}, "power_law": {"harish": 64},
                     "ring": {"harish": 4, "tp_groups": 1},
                     "complete": {"harish": 8, "tp_groups": 8, "cpu": 64, "scipy": 4}},
            paper={"random": {}, "power_law": {}, "ring": {"harish": 64, "tp_groups": 8},
                   "complete": {"harish": 64, "tp_groups": 32, "cpu": 512, "scipy": 16}}),
        fig14_sizes=choose(profile, smoke=[128, 256],
                           default=[1024, 2048, 4096, 8192, 16384, 65536],
                           paper=[1024 * 2 ** i for i in range(9)]),
        fig14_repeats=choose(profile, smoke=1, default=5, paper=7),
        path_pairs=choose(profile, smoke=64, default=512, paper=2048),
        n_sweep_N=choose(profile, smoke=[32, 64, "all"],
                         default=[32, 64, 128, 256, 512, 1024, 2048, "all"],
                         paper=[32, 64, 128, 256, 512, 1024, 2048, 4096, "all"]),
        n_sweep_B=choose(profile, smoke=[1, 4], default=[1, 2, 4, 8], paper=[1, 2, 4, 8, 16]),
        check_every=8,
        # a run whose repeats would add up to more than this (seconds, judged by one timed run
        # without warm-up) is that one run: Fig. 12's |E| = |V| graph is a ring, and Harish's
        # SSSP then takes |V| iterations a source (about 5 min for all 4096 on an H200)
        long_run_s=choose(profile, smoke=None, default=None, paper=60.0),
    )
    return cfg
