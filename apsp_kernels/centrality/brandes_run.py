"""Where Brandes' accumulation runs, and how its sums are added: in this process (the GPU's
:mod:`.brandes_gpu` where it takes the graph, else the host's :mod:`.brandes`) or, with ``client=``,
on the workers of a Dask cluster.

Sources are cut into a grid of :data:`GRID` consecutive sources that depends on nothing else. Each
grid block's raw betweenness is summed from zero, and the blocks' sums are added in block order.
The totals are therefore the same, bit for bit, in this process and on a cluster of any number of
workers finishing in any order (where the blocks run on the same kind of device: the GPU's and the
host's sums of one source differ in the last bits, within 1e-12 relative).
"""
from __future__ import annotations

import threading

import numpy as np

from ..csgraph.auto import Choice
from ..errors import GPUMemoryError, InputError

GRID = 4096  # sources per partial sum
HOST_STEP = 256  # sources per numba call in this process: one step of the progress bar
FAMILY = "numba-host"  # what explain= names for the host
GPU_FAMILY = "brandes-gpu"
_WORKER_KEPT: dict = {}  # on a worker: the last accumulator, reused by the tasks of one run, one at a time
_WORKER_LOCK = threading.Lock()


class Totals:
    """Raw betweenness of the vertices (and arcs) as the ordered sum of grid blocks' partial sums."""

    def __init__(self, n: int, m: int):
        self.node = np.zeros(n)
        self.edge = np.zeros(m)
        self.largest_path_count = 0.0
        self._next, self._waiting = 0, {}

    def add(self, index: int, part) -> None:
        """Block ``index``'s ``(vertices, arcs, largest)``; added once every block before it is."""
        self._waiting[index] = part
        while self._next in self._waiting:
            node, edge, largest = self._waiting.pop(self._next)
            self.node += node
            if self.edge.size:
                self.edge += edge
            self.largest_path_count = max(self.largest_path_count, largest)
            self._next += 1

    def vertices(self) -> np.ndarray:
        return self.node

    def arcs(self) -> np.ndarray:
        return self.edge


def grid(sources: np.ndarray) -> list[np.ndarray]:
    return [sources[lo:lo + GRID] for lo in range(0, len(sources), GRID)]


def accumulator(arcs, endpoints: bool, edges: bool):
    """(accumulator, sources per step, (family, why)): the GPU's where it takes the graph, else the host's."""
    from . import brandes_gpu
    from .brandes import Accumulator  # numba imports on first use, not with the package
    indptr, indices, weights = arcs
    why = brandes_gpu.refusal(indptr, indices, weights)
    if why is None:
        try:
            acc = brandes_gpu.DeviceAccumulator(indptr, indices, weights, endpoints=endpoints, edges=edges)
        except (InputError, GPUMemoryError) as exc:
            why = str(exc)
        else:
            return acc, GRID, (GPU_FAMILY, f"on the GPU: batched PHAST rows, then exact Brandes (a warp per source, "
                                           f"paths counted as NetworkX counts them), {acc.batch:,} sources per "
                                           f"launch")
    acc = Accumulator(indptr, indices, weights, endpoints=endpoints, edges=edges)
    return acc, HOST_STEP, (FAMILY, f"on the host (numba, every core; exact Brandes, paths counted as NetworkX "
                                    f"counts them) because {why}")


def in_process(arcs, sources, endpoints: bool, edges: bool, bar, say) -> Totals:
    """Every grid block here, in order; ``bar`` (tqdm) counts sources, ``say((family, why))`` before they run."""
    indptr, indices, _ = arcs
    acc, step, where = accumulator(arcs, endpoints, edges)
    say(where)
    totals = Totals(indptr.size - 1, indices.size if edges else 0)
    for index, block in enumerate(grid(sources)):
        for lo in range(0, len(block), step):
            acc.add(block[lo:lo + step])
            bar.update(min(step, len(block) - lo))
        totals.add(index, acc.take())
    return totals


def on_cluster(arcs, sources, endpoints: bool, edges: bool, client, bar, say) -> Totals:
    """The grid blocks as tasks of ``client``'s workers (each on its GPU where it has one); ``say`` at the end."""
    from distributed import as_completed

    indptr, indices, _ = arcs
    totals = Totals(indptr.size - 1, indices.size if edges else 0)
    blocks = grid(sources)
    [shared] = client.scatter([arcs], broadcast=True)  # one piece of data (a tuple alone is scattered item by item)
    futures = [client.submit(block_on_worker, shared, block, endpoints, edges, pure=False) for block in blocks]
    index = {f.key: i for i, f in enumerate(futures)}
    families = set()
    with client.as_current():  # as_completed asks for the current client
        for future in as_completed(futures):
            part, family = future.result()
            families.add(family)
            totals.add(index[future.key], part)
            bar.update(len(blocks[index[future.key]]))
            future.release()
    workers = len(client.scheduler_info().get("workers", {}))
    say(("distributed", f"client= given: {len(blocks)} block(s) of up to {GRID} sources on {workers} worker(s), "
                        f"{' and '.join(sorted(families))} on the workers"))
    return totals


def block_on_worker(arcs, block: np.ndarray, endpoints: bool, edges: bool):
    """One grid block's ``(vertices, arcs, largest)`` and the family that ran it (a Dask task)."""
    key = (id(arcs[0]), id(arcs[1]), id(arcs[2]), endpoints, edges)
    with _WORKER_LOCK:
        kept = _WORKER_KEPT.get(key)
        if kept is None:
            _WORKER_KEPT.clear()
            acc, step, where = accumulator(arcs, endpoints, edges)
            kept = _WORKER_KEPT[key] = (acc, step, where[0], arcs)  # arcs kept: their ids stay theirs
        acc, step, family, _ = kept
        for lo in range(0, len(block), step):
            acc.add(block[lo:lo + step])
        return acc.take(), family
