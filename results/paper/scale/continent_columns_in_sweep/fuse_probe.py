"""dev probe: columns' terms counted in the downward launches (ColumnsInSweep) against the passes counting them."""
import sys
import pandas as pd
from apsp_kernels import datasets
from apsp_kernels.distributed import reductions, sweep_reductions as SR
from apsp_kernels.distributed.fixed_sums import scales_for
from apsp_kernels.experiments import overlap_probe
from apsp_kernels.experiments.continent import stand_in
out = sys.argv[1]
rows = []
WAYS = {"serial": None, "share 0.5": SR.Overlap(), "share 0.75": SR.Overlap(gpu_share=0.75),
        "share 0.35": SR.Overlap(gpu_share=0.35)}


def compare(g, size, columns, blocks):
    edges, scales = reductions.default_bins(g), scales_for(g)
    ids = overlap_probe.blocks_of(g.n, size, 1)[0]
    states = []
    for fused in (False, True):
        SR.COLUMNS_IN_SWEEP = fused
        states.append(overlap_probe._block(g, ids, edges, scales, SR.Overlap(), columns)[2])
    print(g.name, "columns in sweep: same bits as the passes:", overlap_probe._same(*states), flush=True)
    for rep in range(2):
        for fused in (False, True):
            SR.COLUMNS_IN_SWEEP = fused
            t = overlap_probe.measure(g, size=size, blocks=blocks, columns=columns, ways=WAYS, log=print)
            t["columns_in_sweep"], t["rep"] = fused, rep
            rows.append(t)
            pd.concat(rows).to_csv(out + "/fuse_probe.csv", index=False)


for name in ["NY", "BAY"]:
    compare(datasets.load(name), 52928, None, 1)
g, _ = stand_in(1 << 24, print)
compare(g, 8192, 1024, 2)
