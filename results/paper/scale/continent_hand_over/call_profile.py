"""dev probe: where NY's call time beyond the run's wall goes on a one-GPU cluster (phases timed, cProfile of the main thread)."""
import sys, time, json, cProfile, pstats, io
from pathlib import Path
import numpy as np

if __name__ == "__main__":
    from apsp_kernels import datasets
    from apsp_kernels.distributed import all_sources, cluster, runner, reductions
    out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
    client = cluster.local(gpus=1)
    marks = []
    def wrap(obj, name):
        fn = getattr(obj, name)
        def timed(*a, **k):
            t = time.perf_counter(); r = fn(*a, **k); marks.append((name, t, time.perf_counter())); return r
        setattr(obj, name, timed)
    wrap(runner, "plan"); wrap(runner, "share_graph"); wrap(runner, "fingerprint"); wrap(reductions.Accumulator, "result")
    f = open(out / "call_profile.txt", "w")
    def say(*a):
        s = " ".join(str(x) for x in a); print(s, flush=True); f.write(s + "\n"); f.flush()
    for gname in ["NY", "BAY"]:
        g = datasets.load(gname)
        for rep in range(4):
            marks.clear()
            prof = cProfile.Profile() if rep == 3 else None
            t0 = time.perf_counter()
            if prof: prof.enable()
            run = all_sources(g, client, progress=False)
            if prof: prof.disable()
            t1 = time.perf_counter()
            say(json.dumps({"graph": gname, "rep": rep, "call_ms": 1e3 * (t1 - t0), "call_s_field_ms": 1e3 * run.call_seconds,
                            "wall_ms": 1e3 * run.seconds, "after_last_block_ms": 1e3 * run.after_last_block_s,
                            "outside_ms": 1e3 * run.outside_blocks_s, "verified": None,
                            "phases_ms": {n: [round(1e3 * (a - t0), 2), round(1e3 * (b - a), 2)] for n, a, b in marks}}))
            if prof:
                s = io.StringIO(); pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(45); say(s.getvalue())
                s = io.StringIO(); pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25); say(s.getvalue())
    cluster.close(client)
