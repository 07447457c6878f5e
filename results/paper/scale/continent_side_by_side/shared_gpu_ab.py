"""dev probe: A/B of the client's tail with 4 Dask workers sharing one GPU: results fetched side by side and the
payload added in one GIL-free pass (this package) against one fetch at a time and the NumPy add (as before)."""
import sys, time, json, functools
from pathlib import Path
import numpy as np


def numpy_add_into(self, totals):  # the add as it was at 172b9dc
    from apsp_kernels.distributed import fixed_sums
    n, at, columns = self.n, 0, []
    for width in self.widths:
        columns.append(None if not width else np.frombuffer(self.payload, dtype=np.uint32 if width == 4 else np.uint64,
                                                             count=n, offset=at))
        at += width * n
    fixed_sums.add_words(totals["sum_in"], *columns[0:2])
    fixed_sums.add_words(totals["harmonic_in"], *columns[2:4])
    if columns[4] is not None:
        reach = totals["reach_in"]
        np.add(reach, columns[4] if columns[4].dtype == np.uint32 else columns[4].view(np.int64), out=reach)
    return totals


if __name__ == "__main__":
    from apsp_kernels import datasets
    from apsp_kernels.distributed import all_sources, cluster, worker_sums, runner, sums_wire
    out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 16384
    takes = []
    take0 = worker_sums.Merging.take
    def take(self, address, got):
        t = time.perf_counter(); r = take0(self, address, got); takes.append((t, time.perf_counter())); return r
    worker_sums.Merging.take = take
    progress0, add0 = runner._progress, sums_wire.Packed.add_into
    def variant(name):
        if name == "before":
            runner._progress = lambda futures, size_of, bar, fetchers=1: progress0(futures, size_of, bar, 1)
            sums_wire.Packed.add_into = numpy_add_into
        else:
            runner._progress, sums_wire.Packed.add_into = progress0, add0
    f = open(out / "ab_log.txt", "a")
    def say(*a):
        s = " ".join(str(x) for x in a); print(s, flush=True); f.write(s + "\n"); f.flush()
    rows, first = [], {}
    client = cluster.local(cpu_workers=workers, env={"APSP_DISABLE_GPU": "", "CUDA_VISIBLE_DEVICES": "0"})
    say(f"== {workers} worker(s) on GPU 0")
    for gname in ["NY", "BAY"]:
        g = datasets.load(gname)
        for rep in range(7):
            name = ("after", "before")[rep % 2] if rep else "warm-up"
            variant("before" if name == "before" else "after")
            takes.clear()
            t0 = time.perf_counter()
            run = all_sources(g, client, block_size=size, progress=False)
            t1 = time.perf_counter()
            same = first.setdefault(gname, run.reductions).same_as(run.reductions)
            rows.append({"graph": gname, "workers": workers, "rep": rep, "variant": name, "block_size": size,
                         "blocks": run.blocks, "call_ms": 1e3 * (t1 - t0), "wall_ms": 1e3 * run.seconds,
                         "busiest_worker_ms": 1e3 * (run.seconds - run.outside_blocks_s),
                         "outside_ms": 1e3 * run.outside_blocks_s, "after_last_block_ms": 1e3 * run.after_last_block_s,
                         "merge_ms": 1e3 * run.merge_s, "adds_ms": [round(1e3 * (b - a), 2) for a, b in takes],
                         "same_bits_as_first": bool(same)})
            say(json.dumps(rows[-1]))
    cluster.close(client)
    import pandas as pd
    pd.DataFrame(rows).to_csv(out / "ab.csv", index=False)
