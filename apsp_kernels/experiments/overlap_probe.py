"""How much of a block's in-place reductions can its own sweep hide? A probe on one GPU (issue 45).

Batched PHAST's downward launches are memory bound and leave rows final level by level; the
in-place reductions are issue bound (``results/paper/scale/continent_reduction_profile_h200``).
:func:`.sweep_reductions.phast_block` can reduce the rows each launch leaves final on a second
stream while the sweep goes on (:class:`.sweep_reductions.Overlap`). This probe times whole
blocks of a road-like stand-in with the reductions after the sweep and beside it, in several
ways, so that a run takes the best:

    python -m apsp_kernels.experiments.overlap_probe OUT [--n 16777216] [--blocks 3] [--size 1024] [--columns N]

Blocks of ``--size`` sources are swept ``--columns`` at a time (default: all at once), as a run's
blocks are where one sweep does not hold them. Rows in ``overlap_probe.csv``, one a way: the median
block's milliseconds (host clock, results on the host) and microseconds a source, its sweeps (GPU
time while a sweep runs, with what they overlapped) and the reductions after them (CUDA events),
and the block's time over the serial one's. Every way must give the serial way's bits,
per-source results and per-vertex sums: checked on every block.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from .. import gpu
from ..distributed import reductions, sweep_reductions
from ..distributed.fixed_sums import scales_for
from ..distributed.sweep_reductions import Overlap
from ..records import write_csv

WAYS = {"serial": None, "share 0.35": Overlap(gpu_share=0.35), "share 0.5": Overlap(gpu_share=0.5),
        "share 0.75": Overlap(gpu_share=0.75), "share 0.5, equal priority": Overlap(sweep_first=False),
        "share 0.5, 16 segments": Overlap(segments=16), "share 0.5, 64 segments": Overlap(segments=64)}


def blocks_of(n: int, size: int, count: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` seeded whole blocks of ``size`` consecutive sources (as a run cuts them:
    :func:`.continent.sample_blocks`'s, one array each)."""
    from .continent import sample_blocks
    return list(sample_blocks(n, count, size, seed).reshape(-1, size))


def _block(graph, ids, edges, scales, overlap, columns=None) -> tuple:
    cp = gpu.cupy()
    sums = sweep_reductions.SweepSums(graph.n, scales, sweep_reductions.device_rank(graph))
    cp.cuda.Device().synchronize()
    began = time.perf_counter()
    partial, stats = sweep_reductions.phast_block(graph, ids, edges, scales, sums, packed=True, overlap=overlap,
                                                  columns=columns)
    seconds = time.perf_counter() - began
    state = (partial.packed, sums.sum_in, sums.reach_in, sums.harmonic_in)
    return seconds * 1e3, stats, state


def _same(a: tuple, b: tuple) -> bool:
    cp = gpu.cupy()
    return bool(np.array_equal(a[0], b[0]) and all(bool(cp.array_equal(x, y)) for x, y in zip(a[1:], b[1:])))


def measure(graph, size: int = 1024, blocks: int = 3, ways: dict | None = None, log=print,
            columns: int | None = None) -> pd.DataFrame:
    """The probe's rows: one per way (see the module docstring)."""
    ways = WAYS if ways is None else ways
    edges, scales = reductions.default_bins(graph), scales_for(graph)
    size = min(size, graph.n)
    chosen = blocks_of(graph.n, size, blocks)
    _block(graph, chosen[0], edges, scales, None, columns)  # warm: compiles, the layout, allocations
    serial = [_block(graph, ids, edges, scales, None, columns)[2] for ids in chosen]
    rows = []
    for name, overlap in ways.items():
        block_ms, sweep_ms, reduce_ms, same = [], [], [], True
        for ids, want in zip(chosen, serial):
            ms, stats, got = _block(graph, ids, edges, scales, overlap, columns)
            block_ms.append(ms)
            sweep_ms.append(stats["sweep_ms"])
            reduce_ms.append(stats["reduce_ms"])
            same = same and _same(got, want)
        rows.append({"graph": graph.name, "n": graph.n, "sources": size, "columns": columns or size, "way": name,
                     "blocks": blocks, "gpu_share": overlap.gpu_share if overlap else 1.0,
                     "segments": overlap.segments if overlap else 1,
                     "sweep_first": bool(overlap and overlap.sweep_first),
                     "block_ms": float(np.median(block_ms)), "us_a_source": 1e3 * float(np.median(block_ms)) / size,
                     "sweep_ms": float(np.median(sweep_ms)),
                     "reduce_after_sweep_ms": float(np.median(reduce_ms)), "same_bits": same})
        log(f"{graph.name}, blocks of {size} sources, {columns or size} a sweep, {name}: a block "
            f"{rows[-1]['block_ms']:.1f} ms (sweeps {rows[-1]['sweep_ms']:.1f}, reductions after them "
            f"{rows[-1]['reduce_after_sweep_ms']:.1f}); same bits as serial: {same}")
    table = pd.DataFrame(rows)
    serial_ms = table.loc[table["way"] == "serial", "block_ms"]
    if len(serial_ms):
        table["over_serial"] = table["block_ms"] / float(serial_ms.iloc[0])
    return table


def main(out_dir, n: int = 1 << 24, blocks: int = 3, size: int = 1024, columns: int | None = None,
         graphs: tuple = ()) -> pd.DataFrame:
    """The probe on the stand-in of ``n`` vertices (0: none) and on ``graphs`` (dataset names, each
    in one block of ``size`` sources), into ``overlap_probe.csv``."""
    from .. import datasets
    from .continent import stand_in
    if not n and not graphs:
        raise ValueError("overlap_probe: nothing to time: give a stand-in's size (n > 0) or dataset names")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables = [measure(datasets.load(name), size=size, blocks=1) for name in graphs]
    if n:
        graph, _ = stand_in(n, print)
        tables.append(measure(graph, size=size, blocks=blocks, columns=columns))
    table = pd.concat(tables, ignore_index=True)
    write_csv(table, out / "overlap_probe.csv")
    fastest = {name: str(rows.sort_values("block_ms").iloc[0]["way"]) for name, rows in table.groupby("graph")}
    (out / "summary.json").write_text(json.dumps({"device": gpu.device_info()["device"],
                                                  "all_same_bits": bool(table["same_bits"].all()),
                                                  "fastest": fastest}, indent=1))
    return table


def _cli(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--n", type=int, default=1 << 24, help="vertices of the road-like stand-in")
    ap.add_argument("--blocks", type=int, default=3, help="blocks of the stand-in timed for each way")
    ap.add_argument("--size", type=int, default=1024, help="sources a block")
    ap.add_argument("--columns", type=int, default=None, help="sources a sweep of the stand-in (default: the block's)")
    ap.add_argument("--graphs", nargs="*", default=[], help="datasets (e.g. NY BAY), one block of --size each")
    args = ap.parse_args(argv)
    if not gpu.available():
        print("overlap_probe: needs a GPU (CuPy with a device); nothing run", file=sys.stderr)
        return 2
    main(args.out_dir, args.n, args.blocks, args.size, args.columns, tuple(args.graphs))
    return 0


if __name__ == "__main__":
    sys.exit(_cli())
