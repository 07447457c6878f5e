"""dev probe: phb_upper with buckets (HEAD) against the stamp scans (.devrun/var/phast_batched_old.cu).

The same bits (per-source results and per-vertex sums of whole blocks), the upper launch alone, whole blocks.
"""
import sys, json
from pathlib import Path
import numpy as np, pandas as pd
from apsp_kernels import gpu, datasets
from apsp_kernels.distributed import sweep_reductions as SR, reductions
from apsp_kernels.distributed.fixed_sums import scales_for
from apsp_kernels.experiments import overlap_probe
from apsp_kernels.experiments.continent import stand_in, sample_blocks
from apsp_kernels.sssp_hierarchy import phast_batched as PB
from apsp_kernels.sssp_hierarchy.layout import padded_sources
cp = gpu.cupy()
out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
OLD = Path(".devrun/var/phast_batched_old.cu").resolve()
log = open(out / "upper_ab_log.txt", "a")
def say(*a):
    s = " ".join(str(x) for x in a); print(s, flush=True); log.write(s + "\n"); log.flush()
say(gpu.banner())
New = PB.BatchedPhast


class Old(New):
    def setup(self):
        super().setup()
        self.k_upper = gpu.load_module(OLD).get_function(f"phb_upper_{self.suffix}_k{self.k}")
        self.shared = self.threads * (self.k // 32) * self.graph.dtype.itemsize
        if self.shared > 48 * 1024:
            self.k_upper.max_dynamic_shared_size_bytes = self.shared
        return self

    def upper(self, ranks):
        d, i32 = self.dev, np.int32
        self.k_upper((int(ranks.shape[0]) // self.k,), (self.threads,),
                     (d.level_ptr, i32(self.lay.levels), i32(self.first_top), *d.up, *d.up_out, *d.down, ranks,
                      self.D, self.stamps, i32(self.D.shape[1]), i32(self.graph.n), i32(self.passes)),
                     shared_mem=self.shared)


VARIANTS = {"scan": Old, "buckets": New}
def use(name):
    PB.BatchedPhast = VARIANTS[name]
def same_bits(g, ids, columns=None):
    edges, scales = reductions.default_bins(g), scales_for(g)
    states = {}
    for name in VARIANTS:
        use(name)
        states[name] = overlap_probe._block(g, ids, edges, scales, SR.Overlap(), columns)[2]
    return overlap_probe._same(states["scan"], states["buckets"])
def upper_alone(g, name, k=128, columns=1024, reps=5):
    sw = VARIANTS[name](g, k).setup()
    sw.allocate(columns)
    ranks = cp.asarray(padded_sources(sw.lay.rank, sample_blocks(g.n, 1, columns, seed=3), k))
    res = {}
    for part, first_top in (("full", sw.first_top), ("upward", sw.lay.levels)):
        keep, sw.first_top = sw.first_top, first_top
        ts = []
        for _ in range(reps):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record(); sw.upper(ranks); sw.passes += 1; e.record(); e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e))
        sw.first_top = keep
        res[part] = float(np.median(ts))
    sw.release()
    del sw
    gpu.free_pool()
    say(f"{g.name} upper alone, {name}: full {res['full']:.3f} ms, upward only {res['upward']:.3f} ms")
    return {"graph": g.name, "kernel": name, "columns": columns, "upper_full_ms": res["full"],
            "upper_upward_ms": res["upward"]}
WAYS = {"share 0.5": SR.Overlap()}
uppers, blocks = [], []
for gname in ["NY", "BAY"]:
    g = datasets.load(gname)
    ids = overlap_probe.blocks_of(g.n, 52928, 1)[0]
    say(gname, "same bits, buckets as scan:", same_bits(g, ids))
    for name in VARIANTS:
        uppers.append(upper_alone(g, name, k=64, columns=16384))
    for rep in range(2):
        for name in VARIANTS:
            use(name)
            t = overlap_probe.measure(g, size=52928, blocks=1, ways=WAYS, log=say)
            t["kernel"] = name; t["rep"] = rep
            blocks.append(t)
g, _ = stand_in(1 << 24, say)
for name in VARIANTS:
    uppers.append(upper_alone(g, name))
pd.DataFrame(uppers).to_csv(out / "upper_alone.csv", index=False)
ids = overlap_probe.blocks_of(g.n, 8192, 1)[0]
say("16M same bits, buckets as scan:", same_bits(g, ids, 1024))
for rep in range(2):
    for name in VARIANTS:
        use(name)
        t = overlap_probe.measure(g, size=8192, blocks=2, columns=1024, ways=WAYS, log=say)
        t["kernel"] = name; t["rep"] = rep
        blocks.append(t)
        pd.concat(blocks).to_csv(out / "blocks.csv", index=False)
say("done")
