"""Distance rows from many sources, reduced per block as they come: never the n x n matrix.

Where the rows come from (``explain=`` says which, as ``shortest_path``'s does):

* ``client=`` a Dask client: :func:`apsp_kernels.distributed.all_sources` on its workers;
* one GPU in this process: batched PHAST (:func:`apsp_kernels.sssp_hierarchy.phast_batched.multi_source_distances`,
  the hierarchy contracted once per graph content and cached, :func:`.layout.hierarchy_of`) on
  road-like graphs, the block solver ``distributed.all_sources`` picks for them; otherwise the
  family ``method="auto"`` chooses (:func:`apsp_kernels.csgraph.auto.choose`), block by block;
* no usable GPU: SciPy's Dijkstra on the host, in blocks, with a note said once per process.

The sums of every source are kept per graph content (:data:`EVERY_SOURCE`, a small LRU keyed by
:func:`.layout.graph_fingerprint`): closeness, harmonic, eccentricity and the rest of one graph
share one pass over its sources. ``EVERY_SOURCE.clear()`` empties it (before timing one measure alone).

Blocks are as large as free memory allows (up to 16384 sources for PHAST, 4096 otherwise); a
tqdm bar counts them when there is more than one (``progress=``).
"""
from __future__ import annotations

import numpy as np
from scipy.sparse import csgraph as scipy_csgraph

from .. import gpu
from ..csgraph import auto
from ..csgraph.api import say_once
from ..csgraph.families import FAMILIES, HOST
from ..csgraph.runner import run_family
from ..distributed import block_solvers
from ..distributed.fixed_sums import scales_for
from ..errors import GPUMemoryError, InputError
from ..host import host_available_bytes
from ..sssp_hierarchy.layout import graph_fingerprint, host_graph
from ..sssp_hierarchy.phast import MAX_MEAN_DEGREE
from .sums import Sums

GPU_BLOCK = 4096  # sources per block of the auto families (PHAST: block_solvers.DEFAULT_BLOCK)
HOST_BLOCK_BYTES = 1 << 28  # float64 rows per host block


class SumsCache:
    """The :class:`Sums` of every source of recent graphs, by content; bounded by count and bytes."""

    def __init__(self, max_graphs: int = 8, max_bytes: int = 1 << 30):
        self.max_graphs, self.max_bytes = max_graphs, max_bytes
        self._kept: dict[str, Sums] = {}

    def get(self, key: str) -> Sums | None:
        sums = self._kept.pop(key, None)
        if sums is None:
            return None
        self._kept[key] = sums  # most recent last
        return sums.copy()

    def put(self, key: str, sums: Sums) -> None:
        self._kept.pop(key, None)
        if sums.nbytes() > self.max_bytes:
            return
        self._kept[key] = sums.copy()
        while len(self._kept) > self.max_graphs or sum(s.nbytes() for s in self._kept.values()) > self.max_bytes:
            self._kept.pop(next(iter(self._kept)))

    def clear(self) -> None:
        self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)


EVERY_SOURCE = SumsCache()


def reduce_rows(prep, sources: np.ndarray, *, what: str, harmonic_out: bool = False, client=None,
                explain=False, progress=None) -> Sums:
    """The :class:`Sums` of the rows of ``sources`` of the prepared graph ``prep`` (see the module
    docstring for where they run). ``what`` names the caller in the progress bar and explanation."""
    g = prep.graph
    check_memory(g.n, what)
    sources = np.asarray(sources, dtype=np.int32)
    every = client is None and not harmonic_out and np.array_equal(sources, np.arange(g.n))
    if every:
        kept = EVERY_SOURCE.get(graph_fingerprint(g))
        if kept is not None:
            _explain(explain, auto.Choice("cached", reason="every source's sums of this graph were computed by an "
                                                           "earlier call in this process (centrality.EVERY_SOURCE)"))
            return kept
    sums = Sums(g.n, sources, harmonic_out, scales_for(g, len(sources)))
    if not len(sources):
        return sums
    if client is not None:
        return _on_cluster(g, sums, client, explain, progress, what)
    if not gpu.available():
        choice = auto.Choice(HOST, reason="no CUDA GPU on this machine: SciPy's dijkstra on the host")
        say_once("centrality-host", f"apsp_kernels.centrality: {choice.reason}")
        sums = _on_host(prep, sums, choice, explain, progress, what)
    else:
        sums = _on_gpu(prep, sums, explain, progress, what)
    if every:
        EVERY_SOURCE.put(graph_fingerprint(g), sums)
    return sums


def check_memory(n: int, what: str) -> None:
    """InputError when the per-vertex results (a few float64 arrays of n) cannot fit the host."""
    need = 10 * 8 * n
    free = host_available_bytes() or 1 << 62
    if need > 0.9 * free:
        raise InputError(f"{what}: the per-vertex sums of {n:,} vertices need about {need:,} bytes of "
                         f"host memory but {free:,} are available; free memory or use a smaller graph")


def _explain(explain, choice) -> None:
    if callable(explain):
        explain(choice)
    elif explain:
        print(choice)


def _bar(blocks: int, progress, what: str):
    from tqdm.auto import tqdm
    show = progress if progress is not None else blocks > 1
    return tqdm(total=blocks, unit="block", desc=what, disable=not show, smoothing=0.1)


def _blocks(count: int, size: int):
    return [(lo, min(lo + size, count)) for lo in range(0, count, size)]


def _run_blocks(sums: Sums, size: int, rows_of, progress, what: str) -> Sums:
    """Rows of ``sums.sources`` in blocks of ``size`` from ``rows_of(ids) -> (rows, inf)``, reduced."""
    parts = _blocks(len(sums.sources), size)
    with _bar(len(parts), progress, what) as bar:
        for lo, hi in parts:
            rows, inf = rows_of(sums.sources[lo:hi])
            sums.add(rows, inf)
            del rows
            bar.update(1)
    return sums


def _on_host(prep, sums: Sums, choice, explain, progress, what: str) -> Sums:
    a = prep.host_matrix()
    size = max(1, min(len(sums.sources), HOST_BLOCK_BYTES // (8 * max(prep.graph.n, 1))))
    choice.reason += f"; {what} in blocks of {size} sources"
    _explain(explain, choice)
    return _run_blocks(sums, size, lambda ids: (scipy_csgraph.dijkstra(a, directed=True, indices=ids), np.inf),
                       progress, what)


def _on_cluster(g, sums: Sums, client, explain, progress, what: str) -> Sums:
    from ..distributed import all_sources
    run = all_sources(host_graph(g), client, sums.sources, progress=progress is not False, desc=what)
    sums.add_reductions(run.reductions)
    _explain(explain, auto.Choice("distributed", reason=f"client= given: distributed.all_sources ran "
                                  f"{run.block_solver} on {run.workers} worker(s), {run.blocks} block(s) of "
                                  f"{run.block_size} sources"))
    return sums


def phast_block(g, count: int) -> int:
    """Sources per PHAST block: its preferred block, halved while it does not fit free memory."""
    size = min(block_solvers.DEFAULT_BLOCK[block_solvers.PHAST], count)
    free = gpu.free_bytes()
    graph_bytes = 4 * (g.n + 1 + 2 * g.m)
    while size > 64 and block_solvers.block_bytes(block_solvers.PHAST, g.n, size, g.dtype.itemsize, False) \
            + graph_bytes > gpu.MEMORY_HEADROOM * free:
        size //= 2
    return size


def family_block(g, fam, count: int) -> int:
    """Sources per block of an auto family: all of them for an all-pairs one (it computes every
    row anyway), else up to GPU_BLOCK, halved while the rows (float64 and the kernel's) do not fit."""
    if fam.all_pairs:
        return count
    size, free = min(GPU_BLOCK, count), gpu.free_bytes()
    while size > 1 and size * g.n * (g.dtype.itemsize + 16) > gpu.MEMORY_HEADROOM * free:
        size //= 2
    return size


def _on_gpu(prep, sums: Sums, explain, progress, what: str) -> Sums:
    g, count = prep.graph, len(sums.sources)
    choice = auto.choose(g, count, False)
    if g.n >= block_solvers.PHAST_MIN_N and block_solvers.default_key(True, g) == block_solvers.PHAST \
            or choice.family == "phast":
        try:
            size = phast_block(g, count)
            ran = _run_blocks(sums, size, lambda ids: (_phast_rows(g, ids), g.inf), progress, what)
        except (InputError, GPUMemoryError) as exc:  # far from road-like once contracted
            sums = Sums(sums.n, sums.sources, sums.harmonic_out_wanted, sums.scales)
            choice.excluded.append(("phast", str(exc)))
        else:
            choice.family = "phast"
            choice.reason = (f"road-like (at most {MAX_MEAN_DEGREE:g} arcs per vertex): batched PHAST, as "
                             f"distributed.all_sources; {what} in blocks of {size} sources, reduced on the device")
            _explain(explain, choice)
            return ran
    refusals = []
    for name in [c[0] for c in choice.candidates if c[0] not in ("phast", "J")]:
        fam = FAMILIES[name]
        size = family_block(g, fam, count)
        try:
            first = run_family(fam, g, True, sums.sources[:size], False)[0]
        except (InputError, GPUMemoryError) as exc:
            refusals.append(f"{name}: {exc}")
            continue
        sums.add(first, np.inf)
        del first
        choice.family = name
        choice.reason += f"; {what} in blocks of {size} sources, reduced on the device"
        if refusals:
            choice.reason += "; refused first: " + "; ".join(refusals)
        _explain(explain, choice)
        rest = Sums(sums.n, sums.sources[size:], sums.harmonic_out_wanted, sums.scales)
        _run_blocks(rest, size, lambda ids: (run_family(fam, g, True, ids, False)[0], np.inf), progress, what)
        return _merged(sums, rest, size)
    choice.family = HOST
    choice.reason = "no GPU family took this input" + ("; refused: " + "; ".join(refusals) if refusals else "")
    return _on_host(prep, sums, choice, explain, progress, what)


def _phast_rows(g, ids):
    rows, _, _ = block_solvers.solve(block_solvers.PHAST, g, np.asarray(ids))
    return rows


def _merged(head: Sums, rest: Sums, size: int) -> Sums:
    """``head`` (its first ``size`` sources done) with ``rest`` (the others) added in order."""
    return head.extend(rest)
