"""A reductions run's progress on disk, so that a run stopped partway goes on where it left off.

``all_sources(..., checkpoint=PATH)`` runs its blocks in waves (:data:`WAVES` of them); after each
wave the workers' per-vertex sums come to the client (while the next wave runs) and the client's
:class:`.reductions.Accumulator` (per-source results, per-vertex fixed-point sums, histogram, the
sources done) is written to the folder PATH with what identifies the run: the graph's fingerprint,
the sources, the block size, the bins and the fixed-point scales. A run given the same PATH loads
it and runs only the blocks not done. The sums are fixed point, so the result has the bits of one
uninterrupted run. Every source of a 16.8M-vertex graph is hours of GPU time; a stopped run loses
at most its last wave.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..records import write_atomic
from .reductions import FIXED, PER_SOURCE, Accumulator

WAVES = 16  # a run with a checkpoint saves it this many times (a stopped run loses at most 1/WAVES)
FORMAT = 1
STATE = "run.json"


def identity(token: str, sources: np.ndarray, block_size: int, edges: np.ndarray, scales) -> dict:
    """What a checkpoint must match to be resumed: the graph (``token``: its fingerprint), the
    sources, the block size, the histogram's edges and the fixed-point scales."""
    return {"format": FORMAT, "graph": token, "sources": len(sources),
            "sources_sha256": hashlib.sha256(np.ascontiguousarray(sources).tobytes()).hexdigest(),
            "block_size": int(block_size), "edges": [float(e) for e in edges],
            "scales": [int(s) for s in scales.as_array()]}


def wave_size(blocks: int, workers: int) -> int:
    """Blocks a wave: 1/WAVES of the run, at least two a worker (a wave ends with idle workers)."""
    return max(2 * max(workers, 1), -(-blocks // WAVES))


def load(path, expected: dict, acc: Accumulator) -> int:
    """Put the checkpoint at ``path`` into the empty ``acc``; the number of sources it had done
    (0 when there is none yet). InputError before anything is loaded when it is another run's."""
    path = Path(path)
    state_file = path / STATE
    if not state_file.exists():
        if path.exists() and any(path.iterdir()):
            raise InputError(f"checkpoint folder {path} holds files but no {STATE}: give an empty or new folder")
        return 0
    state = json.loads(state_file.read_text())
    differs = [key for key in expected if state.get("identity", {}).get(key) != expected[key]]
    if differs:
        raise InputError(f"the checkpoint at {path} is of another run (its {', '.join(differs)} differ): "
                         f"give another folder, or remove it to start again")
    with np.load(path / state["arrays"]) as saved:
        for key, array in _arrays(acc).items():
            array[:] = saved[key]
        acc.scales = saved["scales"]
    acc.pairs = int(state["pairs"])
    return int(acc.done.sum())


def save(path, expected: dict, acc: Accumulator, seconds: float, totals: dict | None = None) -> Path:
    """Write ``acc`` to the checkpoint at ``path``: its arrays under a new name, then the state
    that names them (each write atomic: a run stopped at any point leaves the last whole one).
    ``seconds`` and ``totals`` (:func:`block_totals` of the blocks since the last save) add to
    what the checkpoint holds from earlier saves and calls."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    done = int(acc.done.sum())
    name = f"accumulator-{done}.npz"
    arrays = {**_arrays(acc), "scales": np.asarray(acc.scales)}
    write_atomic(path / name, lambda tmp: _savez(tmp, arrays))
    previous = _state(path)
    state = {"identity": expected, "arrays": name, "pairs": int(acc.pairs), "sources_done": done,
             "seconds": float(previous.get("seconds", 0.0)) + float(seconds),
             "block_totals": _added(previous.get("block_totals", {}), totals or {})}
    write_atomic(path / STATE, lambda tmp: Path(tmp).write_text(json.dumps(state, indent=1)))
    for old in path.glob("accumulator-*.npz"):
        if old.name != name:
            old.unlink()
    return path


def seconds_so_far(path) -> float:
    """The run's seconds over every call that added to the checkpoint at ``path`` (0 when none)."""
    return float(_state(path).get("seconds", 0.0))


def totals_so_far(path) -> dict:
    """:func:`block_totals` of every block saved to the checkpoint at ``path``, over every call
    ({} when none)."""
    return dict(_state(path).get("block_totals", {}))


def block_totals(stats: list, seconds: list) -> dict:
    """Blocks' task results summed: ``blocks``, ``block_seconds`` and each numeric entry of their
    ``stats`` (a solver's milliseconds in its kernels, e.g. ``sweep_ms``)."""
    out = {"blocks": len(seconds), "block_seconds": float(sum(seconds))}
    for block in stats:
        for key, value in block.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out[key] = out.get(key, 0) + value
    return out


def _added(earlier: dict, more: dict) -> dict:
    return {key: earlier.get(key, 0) + more.get(key, 0) for key in sorted({*earlier, *more})}


def _state(path) -> dict:
    """The checkpoint's state (``run.json``) at ``path``; {} when there is none yet."""
    state_file = Path(path) / STATE
    return json.loads(state_file.read_text()) if state_file.exists() else {}


def _arrays(acc: Accumulator) -> dict:
    """The accumulator's arrays a checkpoint keeps, by name (the arrays themselves: load fills them)."""
    return {**{key: acc.per_source[key] for key in PER_SOURCE},
            **{key: acc.per_target[key] for key in (*FIXED, "reach_in")},
            "histogram": acc.histogram, "done": acc.done}


def _savez(tmp: str, arrays: dict) -> None:
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
