"""How wide should an all-sources block be? Every source of a road graph at several block sizes (issue 45).

A block of batched PHAST reduced in place is one Dask task: its sweep, the reductions beside it, its
results to the client. A wider block shares the per-block costs (a narrow last group, the reductions'
tail, the gap between tasks) among more sources, and a run of fewer blocks waits less between them.
This probe runs every source of each graph on each GPU count at each block size and writes one row a
run to ``block_size_probe.csv``:

    python -m apsp_kernels.experiments.block_size_probe OUT [--graphs NY BAY] [--gpus 1 2] [--sizes 16384 65536 0]

Size 0 is the default (:func:`.distributed.runner.default_block_size`). Columns: the run's wall
seconds and the busiest worker's seconds in blocks (the medians of ``repeats`` runs), the time outside
the blocks, and the widest blocks' µs a source (their median over the run's blocks), sweep (with what
it overlapped) and reductions after it. Every run of a graph must give the first one's bits.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from .. import datasets
from ..distributed import all_sources, cluster
from ..distributed.reductions import default_bins
from ..records import git_commit, write_csv
from .scale_runs import device_of, median_run, open_cluster


def widest_blocks(run) -> dict:
    """Medians over a run's widest blocks: µs a source, sweep and reductions-after ms (CUDA events)."""
    widest = max(run.block_sources)
    rows = [(s, st) for s, n, st in zip(run.block_seconds, run.block_sources, run.stats) if n == widest]
    return {"widest_block_sources": widest,
            "us_per_source": float(np.median([s for s, _ in rows])) / widest * 1e6,
            "sweep_ms": float(np.median([st.get("sweep_ms", np.nan) for _, st in rows])),
            "reduce_after_sweep_ms": float(np.median([st.get("reduce_ms", np.nan) for _, st in rows]))}


def measure(graph, counts, sizes, repeats: int = 2, processes: bool = True, log=print) -> pd.DataFrame:
    """One row per GPU count and block size (0: the default), see the module docstring."""
    bins, first, rows = default_bins(graph), None, []
    for count in counts:
        client = open_cluster(count, processes)
        try:
            device, _ = device_of(client)
            for size in sizes:
                asked = {"block_size": size} if size else {}
                all_sources(graph, client, bins=bins, progress=False, **asked)  # compile, graph, memory pool
                runs = [all_sources(graph, client, bins=bins, progress=False, **asked) for _ in range(repeats)]
                run = median_run(runs)
                first = first or run.reductions
                same = all(r.reductions.same_as(first) for r in runs)
                busiest = max(run.worker_seconds.values())
                rows.append({"graph": graph.name, "n": graph.n, "device": device, "gpus": count,
                             "block_size_asked": size, "block_size": run.block_size, "blocks": run.blocks,
                             "wall_s": run.seconds, "busiest_worker_s": busiest,
                             "outside_blocks_s": run.outside_blocks_s, "after_last_block_s": run.after_last_block_s,
                             **widest_blocks(run), "repeats": repeats, "same_bits": same,
                             "git_commit": git_commit()})
                log(f"{graph.name} on {device}, block {size or 'default'} -> {run.blocks} of {run.block_size}: "
                    f"{run.seconds:.3f} s wall, busiest worker {busiest:.3f} s, "
                    f"{rows[-1]['us_per_source']:.2f} µs a source in the widest blocks; same bits: {same}")
        finally:
            cluster.close(client)
    return pd.DataFrame(rows)


def main(out_dir, graphs=("NY", "BAY"), counts=(1, 2), sizes=(16384, 32768, 65536, 0), repeats: int = 2) -> dict:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables = [measure(datasets.load(name), counts, sizes, repeats) for name in graphs]
    table = pd.concat(tables, ignore_index=True)
    write_csv(table, out / "block_size_probe.csv")
    summary = {"commit": git_commit(), "runs": len(table), "all_same_bits": bool(table["same_bits"].all())}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def _cli(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--graphs", nargs="+", default=["NY", "BAY"])
    ap.add_argument("--gpus", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--sizes", type=int, nargs="+", default=[16384, 32768, 65536, 0], help="0: the default")
    ap.add_argument("--repeats", type=int, default=2)
    a = ap.parse_args(argv)
    summary = main(a.out_dir, a.graphs, a.gpus, a.sizes, a.repeats)
    return 0 if summary["all_same_bits"] else 1


if __name__ == "__main__":
    sys.exit(_cli())
