"""Probe: a wave's per-vertex sums taken from W workers by the client (flat) or combined on the
workers as a tree (sums_tree), at NY's size and the 16.8M stand-in's, on one host's CPU workers.

Each worker holds an accumulator of n vertices shaped as a road graph's (sum_in's high word and
reach_in in 4 bytes, harmonic_in in both words: 28 B a vertex travel). Flat: collect_all (every
worker's fetched at once) then the client adds each (Merging.take), the path all_sources takes for
sums no hand-over brought. Tree: sums_tree.collect_tree, then the root added. Both give the same
bits (checked). Usage: python tree_probe.py OUT.csv
"""
import csv
import sys
import time

import numpy as np


def fill(key, n, seed):
    from apsp_kernels.distributed import worker_sums
    rng = np.random.default_rng(seed)
    sums = {"sum_in": np.zeros((n, 2), np.uint64), "harmonic_in": rng.integers(0, 2 ** 62, (n, 2), dtype=np.uint64),
            "reach_in": rng.integers(0, 2 ** 20, n, dtype=np.int64), "scales": np.array([77, 40])}
    sums["sum_in"][:, 1] = rng.integers(0, 2 ** 30, n, dtype=np.uint64)
    held = worker_sums.WorkerSums(sums)
    held.blocks = {seed}
    worker_sums._RUNS[key] = held
    return True


def main(out, counts=(4, 8, 15), sizes=(264_346, 16_777_216)):
    from apsp_kernels.distributed import cluster, sums_tree, worker_sums
    from apsp_kernels.distributed.reductions import Accumulator
    rows = []
    for workers in counts:
        client = cluster.local(cpu_workers=workers)
        try:
            addresses = sorted(cluster.workers(client))
            for n in sizes:
                ref = None
                for rep in range(3):
                    for way in ("flat", "tree"):
                        key = ("probe", f"{n}-{rep}-{way}")
                        client.gather([client.submit(fill, key, n, i, workers=[a], pure=False)
                                       for i, a in enumerate(addresses)])
                        acc = Accumulator(n, np.arange(1), np.linspace(0, 1, 3))
                        merging = worker_sums.Merging(acc, set(range(workers)))
                        merging.wait()
                        t0 = time.perf_counter()
                        fetch = sums_tree.collect_tree if way == "tree" else worker_sums.collect_all
                        got = fetch(client, key)
                        t1 = time.perf_counter()
                        for address, value in sorted(got.items()):
                            merging.take(address, value)
                        t2 = time.perf_counter()
                        assert merging.counted == set(range(workers)), (way, merging.errors)
                        bits = tuple(np.ascontiguousarray(acc.per_target[k]).tobytes().__hash__()
                                     for k in ("sum_in", "harmonic_in", "reach_in"))
                        ref = ref or bits
                        rows.append({"workers": workers, "n": n, "run": rep + 1, "way": way,
                                     "fetch_s": round(t1 - t0, 4), "client_add_s": round(t2 - t1, 4),
                                     "total_s": round(t2 - t0, 4), "same_bits": bits == ref})
                        print(rows[-1], flush=True)
        finally:
            cluster.close(client)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main(sys.argv[1], *([tuple(map(int, a.split(','))) for a in sys.argv[2:4]]))
