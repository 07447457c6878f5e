"""dev probe: where phb_upper's time goes on the 16M stand-in (K=128, 8 groups a sweep of 1024).

Launches phb_upper alone with parameters that switch parts off: the top levels (first_top = levels),
the sources (all -1: only the stamp scans and barriers), the levels above level 0.
"""
import sys, json
from pathlib import Path
import numpy as np
from apsp_kernels import gpu
from apsp_kernels.sssp_hierarchy import phast_batched as PB
from apsp_kernels.sssp_hierarchy.layout import padded_sources
from apsp_kernels.experiments.continent import stand_in, sample_blocks
cp = gpu.cupy()
out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
n_log = int(sys.argv[2]) if len(sys.argv) > 2 else 24
log = open(out / "upper_probe_log.txt", "a")
def say(*a):
    s = " ".join(str(x) for x in a); print(s, flush=True); log.write(s + "\n"); log.flush()
say(gpu.banner())
g, _ = stand_in(1 << n_log, say)
sw = PB.BatchedPhast(g, 128).setup()
sw.allocate(1024)
lay = sw.lay
ptr = np.asarray(lay.level_ptr)
sizes = np.diff(ptr)
say("levels", lay.levels, "first_top", sw.first_top, "level0", int(sizes[0]), "n", g.n,
    "levels > 1024:", int((sizes > 1024).sum()), "vertices in them", int(sizes[sizes > 1024].sum()),
    "levels (128, 1024]:", int(((sizes > 128) & (sizes <= 1024)).sum()))
ids = sample_blocks(g.n, 1, 1024, seed=3)
ranks = cp.asarray(padded_sources(lay.rank, ids, 128))
none = cp.full_like(ranks, -1)
say("sources in level 0:", int((lay.rank[ids] < ptr[1]).sum()), "of", len(ids))
d = sw.dev
i32 = np.int32
def launch(rk, levels, first_top, groups=8):
    sw.k_upper((groups,), (sw.threads,), (d.level_ptr, i32(levels), i32(first_top), *d.up, *d.up_out, *d.down,
               rk, sw.D, sw.stamps, i32(sw.D.shape[1]), i32(g.n), i32(sw.passes)), shared_mem=sw.shared)
    sw.passes += 1
def timed(label, *a, reps=5, **k):
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); launch(*a, **k); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    say(f"{label:55s} median {np.median(ts):8.3f} ms  min {min(ts):8.3f}")
    return float(np.median(ts))
L, T = lay.levels, sw.first_top
rows = {}
rows["full"] = timed("full (upward + top levels), 8 groups", ranks, L, T)
stamped = (sw.stamps == sw.passes - 1).sum(axis=1).get()
say("stamped vertices per group (upward search space of 128 sources):", stamped.tolist())
rows["upward"] = timed("upward only (first_top = levels)", ranks, L, L)
rows["scan"] = timed("no sources, upward only: scans + barriers", none, L, L)
rows["scan_top"] = timed("no sources, full: scans + top levels", none, L, T)
rows["level0"] = timed("level 0 only (levels = 1)", ranks, 1, 1)
rows["level0_scan"] = timed("level 0 only, no sources", none, 1, 1)
rows["full_1group"] = timed("full, 1 group", ranks, L, T, groups=1)
rows["upward_below_top"] = timed("upward of levels below first_top only", ranks, T, T)
json.dump(rows, open(out / "upper_probe.json", "w"), indent=1)
say("done")
