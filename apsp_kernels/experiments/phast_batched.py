"""Batched PHAST measured (issue 30): per-tree time against K and the memory bound of a K-wide
sweep, all-sources reductions end to end, every sweep checked against SciPy's Dijkstra.

::

    python -m apsp_kernels.experiments.phast_batched OUT_DIR [--graphs NY BAY] [--quick]
    python -m apsp_kernels.experiments.phast_batched OUT_DIR --stand-ins 1048576 4194304 16777216

writes ``OUT_DIR/per_tree.csv`` (graph, K, columns, ms per launch, µs per tree, bytes per tree,
the bound from the copy bandwidth measured in the same run, their ratio, verified),
``all_sources.csv`` (per graph: preprocessing, sweeps, reductions and wall seconds for every
source; every block checked on a sampled source), ``same_as_today.csv`` (block reductions of
PHAST's rows against fast:multi_source's, key by key, and both per-tree times), ``decision_rows.csv``
(the rows ``method="auto"`` reads; ``--decision-table`` writes them into the package's table),
``summary.json`` and ``log.txt``.
Delling, Goldberg, Nowatzyk, Werneck (IPDPS 2011 / JPDC 2013) is the algorithm; the kernels are
``apsp_kernels/sssp_hierarchy/phast_batched.cu``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from .. import datasets, generators, gpu, oracle, timing
from ..distributed import block_solvers, reductions
from ..distributed.runner import default_block_size
from ..graph import Graph
from ..records import write_atomic, write_csv
from ..sssp_hierarchy import layout as L
from ..sssp_hierarchy import phast_batched as PB
from . import contraction_time

KS = PB.K_CHOICES
# sources per launch, up to PB.MAX_COLUMNS (BLOCK, the all-sources block where it fits): NY's tree went from
# 5.2 µs at 4096 to 3.8 at 8192 and 3.1 at 16384 (a fixed ~12 ms per sweep shared by more trees)
COLUMNS = (1024, 4096, 8192, 16384)
BLOCK = block_solvers.DEFAULT_BLOCK[block_solvers.PHAST]  # sources per all-sources block, as all_sources
MAX_CHECKS = 128  # blocks checked against Dijkstra at most (every block of NY and BAY)


def sweep_bytes_per_tree(lay: L.SweepLayout, k: int, itemsize: int) -> float:
    """Bytes one tree of a K-wide sweep moves at least: the downward graph shared by K trees,
    every distance written once and one distance read per downward arc."""
    return lay.down_bytes() / k + (lay.n + len(lay.down[1])) * itemsize


def _public(rows, g) -> np.ndarray:
    out = np.asarray(rows, dtype=np.float64)
    out[np.asarray(rows) >= g.inf] = np.inf
    return out


def check_rows(g, rows_host: np.ndarray, sources) -> bool:
    """The rows equal SciPy's Dijkstra (exactly for int32, to float32 rounding otherwise)."""
    want = oracle.distances(g, np.asarray(sources))
    got = _public(rows_host, g)
    if not np.array_equal(np.isinf(got), np.isinf(want)):
        return False
    if g.dtype == np.int32:
        return bool(np.array_equal(got, want))
    return bool(np.allclose(got, want, rtol=1e-5))


def per_tree(g, ks=KS, columns=COLUMNS, copy_bps=None, repeats=3, seed=0, log=print,
             top_level_maxes=(PB.TOP_LEVEL_MAX,)) -> list[dict]:
    """Per-tree time of one launch of ``columns`` sources for each K (and each ``top_level_max``:
    levels of at most that many vertices run inside one block per group, see phast_batched.cu),
    against its memory bound."""
    cp = gpu.cupy()
    lay, _ = PB.sweep_layout(g)
    rng = np.random.default_rng(seed)
    rows_out = []
    for c in columns:
        c = min(c, PB.MAX_COLUMNS)
        sources = rng.integers(0, g.n, size=c)
        for k, top in ((k, top) for k in ks for top in top_level_maxes):
            sweeps = PB.BatchedPhast(g, k, top_level_max=top)
            if not gpu.fits(sweeps.bytes_needed(c)):
                log(f"  {g.name} K={k} columns={c}: does not fit, skipped")
                continue
            sweeps.setup()
            ranks = cp.asarray(L.padded_sources(lay.rank, sources, k))
            out = cp.empty((c, g.n), dtype=g.dtype)
            launches = sweeps.sweep(ranks)
            sweep_ms = float(np.median(timing.time_gpu(lambda: sweeps.sweep(ranks), repeats, warmup=0)))
            rows_ms = float(np.median(timing.time_gpu(lambda: sweeps.rows(out, c), repeats, warmup=1)))
            pick = rng.choice(c, size=4, replace=False)
            ok = check_rows(g, out[cp.asarray(pick)].get(), sources[pick])
            per = sweep_bytes_per_tree(lay, k, g.dtype.itemsize)
            bound_us = per / copy_bps * 1e6 if copy_bps else float("nan")
            us = sweep_ms * 1e3 / c
            rows_out.append({"graph": g.name, "stand_in": g.is_stand_in, "n": g.n, "K": k, "columns": c,
                             "top_level_max": top, "top_levels": lay.levels - sweeps.first_top,
                             "sweep_ms": sweep_ms, "rows_ms": rows_ms, "us_per_tree": us,
                             "us_per_tree_with_rows": (sweep_ms + rows_ms) * 1e3 / c,
                             "bytes_per_tree": per, "bound_us_per_tree": bound_us,
                             "ratio_to_bound": us / bound_us if copy_bps else float("nan"),
                             "launches": launches, "verified": ok, "verified_sources": 4})
            with_rows = rows_out[-1]["us_per_tree_with_rows"]
            log(f"  {g.name} K={k:3d} columns={c:5d} top_level_max={top}: {us:.3f} µs/tree sweep "
                f"({with_rows:.3f} with rows), bound {bound_us:.3f} µs ({rows_out[-1]['ratio_to_bound']:.2f}x), verified={ok}")
            sweeps = out = None  # their device arrays go back to the pool below
            gpu.free_pool()
    return rows_out


def block_buffers(g, sweeps, block: int, log=print):
    """The rows of one block and the sweeps' working matrix for blocks of ``block`` sources,
    the block halved (down to K) while they do not fit this GPU's memory now: another process
    may have taken some since the block was chosen. Returns (rows, block)."""
    cp = gpu.cupy()
    while True:
        try:
            out = cp.empty((block, g.n), dtype=g.dtype)
            sweeps.allocate(block)
            return out, block
        except cp.cuda.memory.OutOfMemoryError:
            out = None
            sweeps.release()
            gpu.free_pool()
            if block <= sweeps.k:
                raise
            held = cp.get_default_memory_pool().used_bytes()
            log(f"  {g.name}: blocks of {block} sources do not fit this GPU now ({gpu.free_bytes() / 2**30:.1f} "
                f"GiB free, {held / 2**30:.1f} GiB held by this process); blocks of {block // 2} instead")
            block //= 2


def all_sources_in_process(g, k=PB.DEFAULT_K, block=BLOCK, seed=0, sources=None, checks=MAX_CHECKS,
                           log=print) -> dict:
    """Every source's reductions (or those of ``sources``) as ``distributed.all_sources``
    computes them on one GPU worker (block solver, then ``block_partial``, merged in order),
    without Dask; one sampled source of every block (of ``checks`` blocks evenly spread when
    there are more) checked against SciPy's Dijkstra after the timed loop."""
    cp = gpu.cupy()
    _, pre = PB.sweep_layout(g)
    edges = reductions.default_bins(g)
    ids = np.arange(g.n) if sources is None else np.asarray(sources, dtype=np.int64)
    acc = reductions.Accumulator(g.n, ids, edges)
    rng = np.random.default_rng(seed)
    sweep_s = reduce_s = 0.0
    picked = []
    sweeps = PB.BatchedPhast(g, k).setup()
    out, block = block_buffers(g, sweeps, block, log)
    starts = range(0, len(ids), block)
    checked = set(np.linspace(0, len(starts) - 1, min(len(starts), checks)).round().astype(int).tolist())
    cp.cuda.Device().synchronize()
    started = time.perf_counter()
    for b, lo in enumerate(starts):
        hi = min(lo + block, len(ids))
        t0 = time.perf_counter()
        rows = out[: hi - lo]
        sweeps.run(ids[lo:hi], rows)
        cp.cuda.Device().synchronize()
        t1 = time.perf_counter()
        acc.add(lo, reductions.block_partial(rows, g.inf, ids[lo:hi], edges))
        t2 = time.perf_counter()
        if b in checked:
            j = int(rng.integers(lo, hi))
            picked.append((int(ids[j]), rows[j - lo].get()))
        sweep_s += t1 - t0
        reduce_s += t2 - t1
    wall = time.perf_counter() - started
    check_s = time.perf_counter()
    verified = check_rows(g, np.stack([row for _, row in picked]), [j for j, _ in picked])
    result = acc.result()
    log(f"  {g.name}: {len(ids):,} of {g.n:,} sources in {wall:.2f} s (sweeps {sweep_s:.2f} s, reductions "
        f"{reduce_s:.2f} s, K={k}, blocks of {block}); preprocessing {pre:.2f} s on the host; {len(picked)} of "
        f"{len(starts)} blocks checked against Dijkstra: {verified} ({time.perf_counter() - check_s:.1f} s); "
        f"diameter {result.diameter:.0f}")
    return {"graph": g.name, "stand_in": g.is_stand_in, "n": g.n, "m": g.m, "K": k, "block": block,
            "sources": len(ids), "wall_s": wall, "sweeps_s": sweep_s, "reductions_s": reduce_s,
            "preprocessing_s": pre, "blocks": len(starts), "blocks_verified": len(picked), "verified": verified,
            **{f"summary_{key}": value for key, value in result.summary().items()}}


def same_as_today(g, blocks=2, block=1024, k=PB.DEFAULT_K, seed=0, log=print) -> list[dict]:
    """Block reductions of PHAST's rows and of fast:multi_source's (today's block solver) on
    ``blocks`` seeded blocks: equal key by key, bit for bit; both block times."""
    from ..multi_source import multi_source_distances
    cp = gpu.cupy()
    edges = reductions.default_bins(g)
    starts = np.random.default_rng(seed).choice(max(1, g.n // block), size=blocks, replace=False) * block
    out = []
    for lo in sorted(int(s) for s in starts):
        ids = np.arange(lo, min(lo + block, g.n))
        times = {}
        parts = {}
        for name, solve in (("phast_batched", lambda: PB.multi_source_distances(g, ids, K=k)),
                            ("multi_source", lambda: multi_source_distances(g, ids))):
            solve()  # warm
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            rows = solve()
            cp.cuda.Device().synchronize()
            times[name] = time.perf_counter() - t
            parts[name] = reductions.block_partial(rows, g.inf, ids, edges)
            del rows
        equal = {key: bool(np.array_equal(parts["phast_batched"][key], parts["multi_source"][key]))
                 for key in parts["multi_source"]}
        out.append({"graph": g.name, "block_start": lo, "sources": len(ids), "equal": all(equal.values()),
                    "keys_differing": ",".join(key for key, same in equal.items() if not same),
                    "phast_us_per_tree": times["phast_batched"] / len(ids) * 1e6,
                    "multi_source_us_per_tree": times["multi_source"] / len(ids) * 1e6})
        log(f"  {g.name} block at {lo}: reductions equal to fast:multi_source's: {out[-1]['equal']} "
            f"{out[-1]['keys_differing']}; µs/tree phast {out[-1]['phast_us_per_tree']:.2f}, "
            f"multi_source {out[-1]['multi_source_us_per_tree']:.2f}")
    return out


def scipy_us_per_tree(g, count=8, seed=0) -> float:
    """SciPy's Dijkstra on the host, µs per tree over ``count`` sampled sources (timed holding the
    host's CPU lock, :func:`timing.time_host`: the wait for it is not in the time)."""
    sources = np.random.default_rng(seed).integers(0, g.n, size=count)
    [ms], _ = timing.time_host(lambda: oracle.distances(g, sources), 1)
    return ms / count * 1e3


def decision_rows(ends: list[dict], device: str) -> pd.DataFrame:
    """Decision-table rows (:mod:`apsp_kernels.csgraph.auto`) from the verified all-sources runs:
    the sweeps of every source (rows included, reductions and the host contraction not)."""
    from ..csgraph import auto
    rows = [{"problem": "all_pairs", "dtype": "int32", "n": r["n"], "m": r["m"], "method": "fast:phast_batched",
             "family": "phast", "time_ms": r["sweeps_s"] * 1e3, "device": device,
             "source": f"all sources of {r['graph']} (experiments.phast_batched, K={r['K']})"}
            for r in ends if r["verified"] and not r["stand_in"]]
    return pd.DataFrame(rows, columns=auto.COLUMNS)


def into_decision_table(rows: pd.DataFrame, path=None) -> pd.DataFrame:
    """The decision table with ``rows`` in place of its rows of the same method, n and device."""
    from ..csgraph import auto
    path = auto.TABLE if path is None else Path(path)
    table = auto.load_table(path)
    same = table["method"].isin(rows["method"]) & table["n"].isin(rows["n"]) & table["device"].isin(rows["device"])
    table = pd.concat([table[~same], rows], ignore_index=True)
    write_csv(table, path)
    return table


STAND_IN_SIZES = (1 << 20, 1 << 22, 1 << 24)
ARCS_PER_VERTEX = 2.5      # the DIMACS roads have 2.4 .. 2.8
WORKING_BYTES = 16 << 30   # the n x columns working matrix of the per-tree runs, at most


def stand_in_arcs(n: int) -> int:
    return int(ARCS_PER_VERTEX * n) // 2 * 2


def stand_in_name(n: int) -> str | None:
    return f"roadlike-rivers-{n >> 20}M" if n >= 1 << 20 else None


def road_stand_in(n: int, seed: int = 0, arcs: int | None = None, name: str | None = None):
    """A labelled stand-in for a DIMACS continental road graph: ``generators.road_like`` with
    rivers (``generators.ROAD_RIVERS``), which contracts as NY does (2.6 shortcuts per arc; the
    mesh without rivers, 5.1 at NY's size and more as it grows); ``arcs`` (None: 2.5 a vertex)
    and ``name`` (None: by its size) for a graph of another's size."""
    return generators.road_like(n, arcs or stand_in_arcs(n), seed=seed, name=name or stand_in_name(n),
                                rivers=generators.ROAD_RIVERS)


def all_sources_block(g: Graph) -> int:
    """The block ``distributed.all_sources`` would run on this GPU (its rule, this GPU's free
    memory, with rows: this module reduces them in process): a sample of whole blocks of it carries
    the per-block costs of the full run."""
    return default_block_size(g, block_solvers.PHAST, {"this GPU": {"gpu_free": gpu.free_bytes()}}, on_gpu=True,
                              store=False, reduce=False)


def stand_in_run(n: int, *, ks=(32, 128), columns=4096, full_max_n=1 << 20, sample_sources=4096,
                 block=BLOCK, seed=0, log=print, top_level_maxes=(PB.TOP_LEVEL_MAX,), keep=None) -> dict:
    """One road-like stand-in of ``n`` vertices: generation and contraction seconds (host), the
    time of a single tree (one launch of one source), the per-tree time at the best K, and the
    all-sources reductions: every source when ``n <= full_max_n``, else ``sample_sources``
    sources in whole blocks with the full run's estimate (labelled). ``keep``: a dict that gets
    the stand-in (its hierarchy on it) by ``n``, for runs after this one."""
    cp = gpu.cupy()
    gpu.free_pool()  # a long-lived array carved from a cached block of the last size would pin all of it
    t = time.perf_counter()
    g = road_stand_in(n, seed)
    made = time.perf_counter() - t
    h, pre = L.hierarchy_of(g)
    if keep is not None:
        keep[n] = g
    shape = L.top_level_shape(PB.sweep_layout(g)[0], PB.TOP_LEVEL_MAX)
    log(f"{g.name} (stand-in, n={g.n:,}, m={g.m:,}): generated in {made:.1f} s, contracted in {pre:.1f} s "
        f"({h.levels} levels, {h.shortcuts:,} shortcuts; {shape['top_levels']} top levels hold "
        f"{shape['top_down_arcs_share']:.0%} of the downward arcs)")
    one = PB.BatchedPhast(g, 32).setup()
    ranks = cp.asarray(L.padded_sources(one.lay.rank, np.array([0]), 32))
    out = cp.empty((1, g.n), dtype=g.dtype)
    single_ms = float(np.median(timing.time_gpu(lambda: (one.sweep(ranks), one.rows(out, 1)), 3, warmup=1)))
    single_ok = check_rows(g, out.get(), [0])
    one = None  # its device arrays go back to the pool
    width = max(min(ks), min(columns, WORKING_BYTES // (g.n * g.dtype.itemsize)) // max(ks) * max(ks))
    trees = per_tree(g, ks=ks, columns=(width,), copy_bps=timing.copy_bandwidth()["bytes_per_s"], repeats=3,
                     log=log, top_level_maxes=top_level_maxes)
    best = min(trees, key=lambda r: r["us_per_tree"]) if trees else {}
    block = min(block, all_sources_block(g))
    if g.n <= full_max_n:
        end = all_sources_in_process(g, block=block, checks=32, log=log)
        label, estimate_s = "all sources", end["wall_s"]
    else:
        from ..distributed.estimate import whole_blocks
        ids = whole_blocks(np.arange(g.n), sample_sources, block, seed)
        end = all_sources_in_process(g, block=block, sources=ids, checks=4, log=log)
        estimate_s = end["wall_s"] / len(ids) * g.n
        label = (f"sample of {len(ids):,} sources in whole blocks of {end['block']} (seed {seed}); the full "
                 f"run estimated at {estimate_s:.3g} s from it")
    log(f"  {g.name}: single tree {single_ms:.3f} ms (verified={single_ok}); best K={best.get('K')} "
        f"{best.get('us_per_tree', float('nan')):.3f} µs/tree; all sources: {label}")
    return {"graph": g.name, "stand_in": True,
            "label": f"road-like stand-in with rivers (generators.road_like, seed {seed}, rivers {generators.ROAD_RIVERS})",
            "n": g.n, "m": g.m, "generate_s": made, "preprocessing_s": pre, "levels": h.levels,
            "shortcuts": h.shortcuts, "single_tree_ms": single_ms, "single_tree_verified": single_ok,
            "best_K": best.get("K"), "best_columns": best.get("columns"),
            "best_top_level_max": best.get("top_level_max"), **shape,
            "best_us_per_tree": best.get("us_per_tree"), "best_ratio_to_bound": best.get("ratio_to_bound"),
            "all_sources": label, "all_sources_s": end["wall_s"], "all_sources_estimate_s": estimate_s,
            "sources_run": end["sources"], "sweeps_s": end["sweeps_s"], "reductions_s": end["reductions_s"],
            "verified": bool(end["verified"] and single_ok and all(r["verified"] for r in trees))}


def main(out_dir, graphs=("NY", "BAY"), quick=False, decision_table=False) -> dict:
    """The benchmark on ``graphs`` (dataset names, or Graphs); CSVs, log and summary in ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    lines = []

    def log(text):
        print(text, flush=True)
        lines.append(text)

    log(gpu.banner())
    copy_bps = timing.copy_bandwidth()["bytes_per_s"]
    log(f"device copy bandwidth (read + write): {copy_bps / 1e12:.3f} TB/s")
    trees, ends, same, hosts = [], [], [], []
    log(f"contraction compiled (numba, or loaded from its cache; 0 s when this process had): "
        f"{contraction_time.warm_up():.2f} s, not counted below; {contraction_time.host_threads()}")
    for name in graphs:
        g = name if isinstance(name, Graph) else datasets.load_or_stand_in(name)
        t = time.perf_counter()
        h, pre = L.hierarchy_of(g, cache=False)  # contracted here and timed, whatever this process holds
        log(f"{g.name}: n={g.n:,} m={g.m:,}: contraction {pre:.2f} s on the host ({h.levels} levels, "
            f"{h.shortcuts:,} shortcuts), layout {time.perf_counter() - t - pre:.2f} s")
        trees += per_tree(g, ks=(32, 128) if quick else KS, columns=(4096,) if quick else COLUMNS,
                          copy_bps=copy_bps, log=log)
        ends.append(all_sources_in_process(g, block=all_sources_block(g), log=log))
        ends[-1]["preprocessing_s"] = pre
        same += same_as_today(g, blocks=1 if quick else 2, log=log)
        hosts.append({"graph": g.name, "scipy_us_per_tree": scipy_us_per_tree(g)})
        log(f"  {g.name}: SciPy Dijkstra {hosts[-1]['scipy_us_per_tree']:.0f} µs/tree on the host (8 sampled)")
    write_csv(pd.DataFrame(trees), out_dir / "per_tree.csv")
    write_csv(pd.DataFrame(ends).merge(pd.DataFrame(hosts), on="graph"), out_dir / "all_sources.csv")
    write_csv(pd.DataFrame(same), out_dir / "same_as_today.csv")
    device = gpu.device_info().get("device")
    rows = decision_rows(ends, device)
    write_csv(rows, out_dir / "decision_rows.csv")
    if decision_table and len(rows):
        into_decision_table(rows)
        log(f"decision table: {len(rows)} fast:phast_batched rows written into apsp_kernels/csgraph/decision_table.csv")
    ok = all(r["verified"] for r in trees) and all(r["verified"] for r in ends) and all(r["equal"] for r in same)
    summary = {"device": device, "copy_bytes_per_s": copy_bps, "all_verified": ok,
               "all_sources_s": {r["graph"]: r["wall_s"] for r in ends},
               "preprocessing_s": {r["graph"]: r["preprocessing_s"] for r in ends}}
    log(json.dumps(summary))
    write_atomic(out_dir / "log.txt", lambda tmp: Path(tmp).write_text("\n".join(lines) + "\n"))
    write_atomic(out_dir / "summary.json", lambda tmp: Path(tmp).write_text(json.dumps(summary, indent=1)))
    return summary


def projected_seconds(measured, n: int) -> tuple[float, str] | None:
    """(seconds, how) for a stand-in of ``n`` vertices from the two largest ``(n, seconds, arcs)``
    measured (``arcs``: the hierarchy's, original and shortcuts): the larger one's seconds grown as
    its arcs grew, ``t ~ n^k`` with k from the arcs (at least 1). The arcs are the contraction's
    work and do not vary from run to run; its host seconds do (on a busy or freshly started host
    the same contraction took 10-40x longer): a power law fitted to two such times projected
    1,040 s for the 16M stand-in of the paper profile on 4 x H200, whose generation and contraction
    took 88 s in another run on that host. None from fewer than two."""
    if len(measured) < 2:
        return None
    (n0, _, a0), (n1, t1, a1) = sorted(measured)[-2:]
    if n1 <= n0 or t1 <= 0 or a0 <= 0 or a1 <= 0:
        return None
    k = max(1.0, float(np.log(a1 / a0) / np.log(n1 / n0)))
    return t1 * (n / n1) ** k, (f"the {n1:,}-vertex stand-in's {t1:.3g} s grown as n^{k:.2f}, the growth of "
                                f"the hierarchy's arcs from the {n0:,}- to the {n1:,}-vertex one")


def stand_ins(sizes, preprocessing_budget_s: float | None = None, log=print, **kw) -> pd.DataFrame:
    """:func:`stand_in_run` for each of ``sizes`` vertices (smallest first), one row each. With
    ``preprocessing_budget_s``, a size whose generation and contraction are projected (from the
    smaller ones measured, :func:`projected_seconds`) beyond it is not run: its row says so and
    gives the projection (``verified`` empty)."""
    rows, measured = [], []
    for n in sorted(int(n) for n in sizes):
        projected = projected_seconds(measured, n) if preprocessing_budget_s else None
        if projected is not None and projected[0] > preprocessing_budget_s:
            why = (f"not run: generation and contraction projected at {projected[0]:.3g} s ({projected[1]}), "
                   f"beyond the budget of {preprocessing_budget_s:g} s")
            log(f"{stand_in_name(n) or n}: {why}")
            rows.append({"graph": stand_in_name(n) or f"roadlike-n{n}", "stand_in": True,
                         "label": "road-like stand-in with rivers (generators.road_like), not generated", "n": n,
                         "m": stand_in_arcs(n), "all_sources": why, "verified": None})
            continue
        row = stand_in_run(n, log=log, **kw)
        rows.append(row)
        measured.append((n, row["generate_s"] + row["preprocessing_s"], row["m"] + row["shortcuts"]))
    return pd.DataFrame(rows)


def _cli(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--graphs", nargs="+", default=["NY", "BAY"])
    parser.add_argument("--quick", action="store_true", help="K 32 and 128 at 4096 columns, one block compared")
    parser.add_argument("--decision-table", action="store_true",
                        help="write the verified all-sources rows into apsp_kernels/csgraph/decision_table.csv")
    parser.add_argument("--stand-ins", nargs="*", type=int, metavar="N",
                        help="instead: road-like stand-ins of these sizes (default 1M 4M 16M) to stand_ins.csv")
    parser.add_argument("--preprocessing-budget", type=float, metavar="SECONDS",
                        help="with --stand-ins: skip a size whose generation and contraction are projected "
                             "beyond this (from the smaller sizes run)")
    parser.add_argument("--top-level-max", nargs="+", type=int, default=[PB.TOP_LEVEL_MAX], metavar="V",
                        help="with --stand-ins: per-tree times for each of these top_level_max (levels of at "
                             "most V vertices run inside one block per group of K)")
    args = parser.parse_args(argv)
    if args.stand_ins is not None:
        frame = stand_ins(tuple(args.stand_ins) or STAND_IN_SIZES, args.preprocessing_budget,
                          top_level_maxes=tuple(args.top_level_max))
        Path(args.out_dir).mkdir(parents=True, exist_ok=True)
        write_csv(frame, Path(args.out_dir) / "stand_ins.csv")
        return 0 if frame["verified"].dropna().all() else 1
    summary = main(args.out_dir, args.graphs, args.quick, args.decision_table)
    return 0 if summary["all_verified"] else 1


if __name__ == "__main__":
    sys.exit(_cli())
