"""dev probe: NY's and BAY's every source with 1, 2 and 4 Dask workers sharing one GPU (a stand-in for the
overheads of several workers: hand-overs arriving together, the client adding them); same block size for all."""
import sys, time, json, os
from pathlib import Path
import numpy as np

if __name__ == "__main__":
    from apsp_kernels import datasets
    from apsp_kernels.distributed import all_sources, cluster, worker_sums
    out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
    counts = [int(c) for c in (sys.argv[3] if len(sys.argv) > 3 else "1,2,4").split(",")]
    takes = []
    take0 = worker_sums.Merging.take
    def take(self, address, got):
        t = time.perf_counter(); r = take0(self, address, got); takes.append((t, time.perf_counter())); return r
    worker_sums.Merging.take = take
    f = open(out / "shared_gpu_log.txt", "a")
    def say(*a):
        s = " ".join(str(x) for x in a); print(s, flush=True); f.write(s + "\n"); f.flush()
    rows, first = [], {}
    graphs = {g: datasets.load(g) for g in ["NY", "BAY"]}
    for w in counts:
        client = cluster.local(cpu_workers=w, env={"APSP_DISABLE_GPU": "", "CUDA_VISIBLE_DEVICES": "0"})
        say(f"== {w} worker(s) on GPU 0: {sorted(cluster.workers(client))}")
        for gname, g in graphs.items():
            for rep in range(4):
                takes.clear()
                t0 = time.perf_counter()
                run = all_sources(g, client, block_size=size, progress=False)
                t1 = time.perf_counter()
                same = first.setdefault(gname, run.reductions).same_as(run.reductions)
                end = t0 + run.call_seconds
                rows.append({"graph": gname, "workers": w, "rep": rep, "block_size": size, "blocks": run.blocks,
                             "call_ms": 1e3 * (t1 - t0), "wall_ms": 1e3 * run.seconds,
                             "busiest_worker_ms": 1e3 * (run.seconds - run.outside_blocks_s),
                             "outside_ms": 1e3 * run.outside_blocks_s, "after_last_block_ms": 1e3 * run.after_last_block_s,
                             "merge_ms": 1e3 * run.merge_s, "first_submit_ms": 1e3 * run.first_submit_s,
                             "adds_ms": [round(1e3 * (b - a), 2) for a, b in takes],
                             "adds_end_before_call_end_ms": [round(1e3 * (t1 - b), 2) for a, b in takes],
                             "same_bits_as_first": bool(same)})
                say(json.dumps(rows[-1]))
        cluster.close(client)
    import pandas as pd
    pd.DataFrame(rows).to_csv(out / "shared_gpu.csv", index=False)
