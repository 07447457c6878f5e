"""dev probe: where NY's and BAY's time after the last block goes on GPU workers (task stream, worker-side timing)."""
import sys, time, json
from pathlib import Path
import numpy as np


def patch():
    import time
    from apsp_kernels.distributed import worker_sums, sums_wire
    worker_sums.LOG = []
    collect0, pack0 = worker_sums.collect, sums_wire.pack
    def collect(key):
        t = time.time(); r = collect0(key); worker_sums.LOG.append(("collect", t, time.time())); return r
    def pack(*a, **k):
        t = time.time(); r = pack0(*a, **k); worker_sums.LOG.append(("pack", t, time.time())); return r
    worker_sums.collect, sums_wire.pack = collect, pack


def log():
    from apsp_kernels.distributed import worker_sums
    out = list(worker_sums.LOG); worker_sums.LOG.clear(); return out


if __name__ == "__main__":
    from apsp_kernels import datasets
    from apsp_kernels.distributed import all_sources, cluster
    from distributed import get_task_stream
    out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
    gpus = sys.argv[2] if len(sys.argv) > 2 else "1"
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    import os
    if os.environ.get("APSP_TAIL_RELAY"):
        cluster.DIRECT = False
    client = cluster.local(gpus=int(gpus)) if gpus != "cpu" else cluster.local(cpu_workers=1)
    client.run(patch)
    f = open(out / "tail_log.txt", "a")
    def say(*a):
        s = " ".join(str(x) for x in a); print(s, flush=True); f.write(s + "\n"); f.flush()
    rows = []
    for gname in ["NY", "BAY"]:
        g = datasets.load(gname)
        sources = np.arange(count) if count else None
        for rep in range(4):
            with get_task_stream(client) as ts:
                t0 = time.time()
                run = all_sources(g, client, sources=sources, progress=False)
                t1 = time.time()
            w = run.seconds + run.first_submit_s
            rows.append({"graph": gname, "rep": rep, "call_ms": 1e3 * (t1 - t0), "wall_ms": 1e3 * run.seconds,
                         "after_last_block_ms": 1e3 * run.after_last_block_s, "outside_ms": 1e3 * run.outside_blocks_s,
                         "merge_ms": 1e3 * run.merge_s, "first_submit_ms": 1e3 * run.first_submit_s, "blocks": run.blocks})
            say(json.dumps(rows[-1]))
            events = []
            for d in ts.data:
                for s in d["startstops"]:
                    events.append((s["start"] - t0, s["stop"] - t0, d["key"][:28], s["action"]))
            for name, a, b in [e for entries in client.run(log).values() for e in entries]:
                events.append((a - t0, b - t0, "worker " + name, ""))
            for a, b, k, act in sorted(events)[-8:]:
                say(f"   {k:30s} {act:10s} {1e3 * a:8.1f} - {1e3 * b:8.1f} ms")
            say(f"   run ends (first submit + wall) at about {1e3 * w:.1f} ms after the call began, the call at {1e3 * (t1 - t0):.1f}")
    import pandas as pd
    pd.DataFrame(rows).to_csv(out / "tail.csv", index=False)
    cluster.close(client)
