"""Can a block's in-place reductions run beside the next block's sweep? A probe on one GPU (issue 45).

Batched PHAST's downward sweep is memory bound and its upward searches leave most of the GPU idle;
the in-place reductions are issue bound (``results/paper/scale/continent_reduction_profile_h200``).
If the reductions of one half-block ran on a second stream, on part of the GPU, while the next
half-block is swept into a second working matrix (two of half the columns: the memory of one
block), a block would take about the longer of the two instead of their sum. This probe measures
that on a road-like stand-in before any pipeline is built:

    python -m apsp_kernels.experiments.overlap_probe OUT [--n 16777216] [--columns 512] [--pairs 4]

For each share of the GPU the reductions may take (``gpu_share``), on seeded sub-blocks of
``columns`` sources: the sweep alone, the reductions alone, and the two at once on two streams
(the sweep of one working matrix beside the reductions of the other). Rows in
``overlap_probe.csv``: milliseconds per sub-block of each, the serial sum, and their ratio. The
reductions run beside the sweep must give the bits they give alone: checked on every pair.
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
from ..records import write_csv

SHARES = (1.0, 0.5, 0.35)


def sub_blocks(n: int, columns: int, count: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` seeded sub-blocks of ``columns`` consecutive sources (whole blocks, as a run cuts
    them: :func:`.continent.sample_blocks`'s, one array each)."""
    from .continent import sample_blocks
    return list(sample_blocks(n, count, columns, seed).reshape(-1, columns))


class Probe:
    """One graph's sweeps into two working matrices of ``columns`` sources, and their reductions."""

    def __init__(self, graph, columns: int):
        from ..sssp_hierarchy import phast_batched as PB
        self.cp, self.graph, self.columns = gpu.cupy(), graph, columns
        self.sweeps = PB.BatchedPhast(graph, sweep_reductions.K).setup().allocate(columns)
        self.matrices = [self.sweeps.D, self.cp.empty_like(self.sweeps.D)]
        self.edges, self.scales = reductions.default_bins(graph), scales_for(graph)

    def sweep(self, which: int, ids, stream) -> None:
        """Sweep ``ids`` into working matrix ``which`` on ``stream`` (queued, not waited for)."""
        from ..sssp_hierarchy.layout import padded_sources
        with stream:
            self.sweeps.D = self.matrices[which]
            self.sweeps.sweep(self.cp.asarray(padded_sources(self.sweeps.lay.rank, ids, sweep_reductions.K)))

    def reduce(self, which: int, share: float, stream):
        """Reduce working matrix ``which`` on ``stream``; its results (waits for that stream only)."""
        with stream:
            return sweep_reductions.reduce_matrix_packed(self.matrices[which], self.columns, self.graph.inf,
                                                         self.edges, self.scales, None, gpu_share=share)


def _ms(fn, stream) -> float:
    stream.synchronize()
    t = time.perf_counter()
    fn()
    stream.synchronize()
    return (time.perf_counter() - t) * 1e3


def measure(graph, columns: int = 512, pairs: int = 4, shares=SHARES, log=print) -> pd.DataFrame:
    """The probe's rows: one per share (see the module docstring)."""
    cp = gpu.cupy()
    probe = Probe(graph, columns)
    a, b = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
    blocks = sub_blocks(graph.n, columns, 2 * pairs + 1)
    probe.sweep(0, blocks[0], a)
    probe.reduce(0, 1.0, a)  # warm: compiles, allocations
    rows = []
    for share in shares:
        sweep_ms, reduce_ms, together_ms, same = [], [], [], True
        for i in range(pairs):
            first, second = blocks[1 + 2 * i], blocks[2 + 2 * i]
            sweep_ms.append(_ms(lambda: probe.sweep(0, first, a), a))
            alone = []
            reduce_ms.append(_ms(lambda: alone.append(probe.reduce(0, share, b)), b))
            a.synchronize()
            b.synchronize()
            beside = []
            t = time.perf_counter()
            probe.sweep(1, second, a)  # queued on a; the reductions of matrix 0 run on b meanwhile
            beside.append(probe.reduce(0, share, b))
            a.synchronize()
            together_ms.append((time.perf_counter() - t) * 1e3)
            same = same and np.array_equal(alone[0].packed, beside[0].packed)
        row = {"graph": graph.name, "n": graph.n, "columns": columns, "gpu_share": share, "pairs": pairs,
               "sweep_ms": float(np.median(sweep_ms)), "reduce_ms": float(np.median(reduce_ms)),
               "together_ms": float(np.median(together_ms)), "same_bits": bool(same)}
        row["serial_ms"] = row["sweep_ms"] + row["reduce_ms"]
        row["together_over_serial"] = row["together_ms"] / row["serial_ms"]
        rows.append(row)
        log(f"{graph.name}, {columns} sources, reductions on {share:.0%} of the GPU: sweep {row['sweep_ms']:.1f} ms, "
            f"reductions {row['reduce_ms']:.1f} ms, both at once {row['together_ms']:.1f} ms "
            f"({row['together_over_serial']:.2f} of one after the other); same bits: {same}")
    return pd.DataFrame(rows)


def main(out_dir, n: int = 1 << 24, columns: int = 512, pairs: int = 4) -> pd.DataFrame:
    from .continent import stand_in
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    graph, _ = stand_in(n, print)
    table = measure(graph, columns, pairs)
    write_csv(table, out / "overlap_probe.csv")
    (out / "summary.json").write_text(json.dumps({"device": gpu.device_info()["device"],
                                                  "all_same_bits": bool(table["same_bits"].all())}, indent=1))
    return table


def _cli(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--n", type=int, default=1 << 24, help="vertices of the road-like stand-in")
    ap.add_argument("--columns", type=int, default=512, help="sources a sub-block (a working matrix's columns)")
    ap.add_argument("--pairs", type=int, default=4, help="pairs of sub-blocks timed for each share")
    args = ap.parse_args(argv)
    if not gpu.available():
        print("overlap_probe: needs a GPU (CuPy with a device); nothing run", file=sys.stderr)
        return 2
    main(args.out_dir, args.n, args.columns, args.pairs)
    return 0


if __name__ == "__main__":
    sys.exit(_cli())
