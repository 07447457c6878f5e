"""dev probe: the in-place reductions' fast kernels, HEAD's against variants with fewer instructions a term."""
import sys, time, json
from pathlib import Path
import numpy as np, pandas as pd
from apsp_kernels import gpu, datasets
from apsp_kernels.distributed import sweep_reductions as SR, reductions
from apsp_kernels.distributed.fixed_sums import scales_for
from apsp_kernels.experiments import overlap_probe
from apsp_kernels.experiments.continent import stand_in
cp = gpu.cupy()
out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
var = Path(".devrun/var").resolve()
VARIANTS = {"head": var / "sweep_reductions_old.cu", "flush": var / "swr_flush.cu", "seed": var / "swr_seed.cu",
            "quad": var / "swr_quad.cu"}
def module(name):
    return gpu.load_module(VARIANTS[name], options=(f"-I{var}",))
def use(name):
    SR._module = lambda: module(name)
log = open(out / "kprobe_log.txt", "a")
def say(*a):
    s = " ".join(str(x) for x in a); print(s, flush=True); log.write(s + "\n"); log.flush()
say(gpu.banner())
for name in VARIANTS:
    f = module(name).get_function("swr_reduce_i32_equal")
    f.max_dynamic_shared_size_bytes = SR.shared_bytes(65, 4, True)
    a = f.attributes
    say(name, "regs", a["num_regs"], "local bytes", a["local_size_bytes"])
for name in ("seed", "quad"):
    check = module(name).get_function("swr_recip_check")
    mism, first = cp.zeros(1, dtype=cp.uint64), cp.full(1, 2 ** 31 - 1, dtype=cp.int32)
    check((4096,), (256,), (np.int32(1), np.int32(2 ** 31 - 1), mism, first))
    say(name, "reciprocal mismatches over [1, 2^31):", int(mism.get()[0]), "first:", int(first.get()[0]))
rows = []
def same_bits(g, ids, columns=None):
    edges, scales = reductions.default_bins(g), scales_for(g)
    states = {}
    for name in VARIANTS:
        use(name)
        states[name] = overlap_probe._block(g, ids, edges, scales, SR.Overlap(), columns)[2]
    return {name: overlap_probe._same(states["head"], st) for name, st in states.items()}
WAYS = {"serial": None, "share 0.5": SR.Overlap()}
for gname in ["NY", "BAY"]:
    g = datasets.load(gname)
    ids = overlap_probe.blocks_of(g.n, 52928, 1)[0]
    say(gname, "same bits as head:", same_bits(g, ids))
    for rep in range(2):
        for name in VARIANTS:
            use(name)
            t = overlap_probe.measure(g, size=52928, blocks=1, ways=WAYS, log=say)
            t["kernel"] = name; t["rep"] = rep
            rows.append(t)
pd.concat(rows).to_csv(out / "kprobe.csv", index=False)
g, _ = stand_in(1 << 24, say)
ids = overlap_probe.blocks_of(g.n, 8192, 1)[0]
say("16M same bits as head:", same_bits(g, ids, 1024))
for rep in range(2):
    for name in VARIANTS:
        use(name)
        t = overlap_probe.measure(g, size=8192, blocks=2, columns=1024, ways=WAYS, log=say)
        t["kernel"] = name; t["rep"] = rep
        rows.append(t)
        pd.concat(rows).to_csv(out / "kprobe.csv", index=False)
say("done")
