"""dev probe: the in-place reductions' equal-bins kernel at 2 vs 3 CUDA blocks a multiprocessor."""
import sys, time, json
import numpy as np
from apsp_kernels import gpu
from apsp_kernels.distributed import sweep_reductions as SR, reductions
from apsp_kernels.distributed.fixed_sums import scales_for
from apsp_kernels.experiments import overlap_probe
cp = gpu.cupy()
out = sys.argv[1]
name0 = SR.kernel_name
mod = SR._module()
for k in ("swr_reduce_i32_equal", "swr_reduce_i32_equal_occ3"):
    f = mod.get_function(k)
    f.max_dynamic_shared_size_bytes = SR.shared_bytes(65, 4, True)
    a = f.attributes
    print(k, "regs", a["num_regs"], "local bytes", a["local_size_bytes"], "resident", SR._resident_blocks(f, SR.shared_bytes(65, 4, True)))

def use(suffix):
    SR.kernel_name = lambda *a: (lambda n: n + suffix if n.endswith("equal") else n)(name0(*a))

from apsp_kernels.experiments.continent import stand_in
from apsp_kernels import datasets
rows = []
for name in ["NY", "BAY"]:
    g = datasets.load(name)
    edges, scales = reductions.default_bins(g), scales_for(g)
    ids = overlap_probe.blocks_of(g.n, 52928, 1)[0]
    states = []
    for suffix in ["", "_occ3"]:
        use(suffix)
        states.append(overlap_probe._block(g, ids, edges, scales, SR.Overlap())[2])
    print(name, "occ3 same bits as default:", overlap_probe._same(*states))
    for suffix in ["", "_occ3", "", "_occ3"]:
        use(suffix)
        t = overlap_probe.measure(g, size=52928, blocks=1, ways={"serial": None, "share 0.5": SR.Overlap()}, log=print)
        t["kernel"] = "equal" + suffix
        rows.append(t)
g, _ = stand_in(1 << 24, print)
for suffix in ["", "_occ3", "", "_occ3"]:
    use(suffix)
    t = overlap_probe.measure(g, size=8192, blocks=2, columns=1024,
                              ways={"serial": None, "share 0.5": SR.Overlap(), "share 0.75": SR.Overlap(gpu_share=0.75)}, log=print)
    t["kernel"] = "equal" + suffix
    rows.append(t)
import pandas as pd
pd.concat(rows).to_csv(out + "/occ_probe.csv", index=False)
