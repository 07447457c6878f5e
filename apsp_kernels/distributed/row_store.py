"""Distance rows on disk: a chunked Zarr array written block by block, with per-block commits.

Layout of a store folder::

    manifest.json      graph fingerprint, n, sources, block size, dtype, INF (made once, atomically)
    sources.npy        row i holds the distances from sources[i]
    distances/         Zarr v3 array (len(sources), n), one chunk row per block
    blocks/<id>.json   commit marker of block <id>; <id>.npz: its reductions (optional)
    COMPLETE           written once every block is committed

A block's chunks are written first, then its marker is created exclusively (``os.link`` of a
finished temporary file), so a block is visible only once complete and is committed at most
once. A task that finds its marker does nothing; a rerun skips committed blocks and rewrites
the chunks of any block that a crash left uncommitted. Readers see committed blocks only.
Entries are the graph's dtype with the project's INF (int32: 2**30 - 1; float32: +inf);
:meth:`RowStore.rows` returns public float64 with np.inf.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import uuid
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..inf import inf_for, to_public
from ..records import write_atomic
from .blocks import Block, split

FORMAT = "apsp_kernels.rows/1"
COLUMN_CHUNK_BYTES = 32 << 20


def fingerprint(graph) -> str:
    h = hashlib.sha256()
    for a in (graph.indptr, graph.indices, graph.weights):
        h.update(np.ascontiguousarray(a).tobytes())
    return f"{graph.n}-{graph.m}-{np.dtype(graph.dtype).name}-{h.hexdigest()[:20]}"


def manifest_for(graph, sources: np.ndarray, block_size: int) -> dict:
    dtype = np.dtype(graph.dtype)
    return {"format": FORMAT, "graph": graph.name, "fingerprint": fingerprint(graph), "n": graph.n,
            "sources": len(sources), "sources_sha256": hashlib.sha256(sources.tobytes()).hexdigest(),
            "block_size": int(block_size), "blocks": len(split(len(sources), block_size)),
            "dtype": dtype.name, "inf": float(inf_for(dtype))}


def column_chunk(n: int, block_size: int, itemsize: int) -> int:
    return int(max(1, min(n, COLUMN_CHUNK_BYTES // max(1, block_size * itemsize))))


def bytes_upper_bound(rows: int, n: int, itemsize: int) -> int:
    """Uncompressed bytes of ``rows`` rows: what the disk must have free (compression only helps)."""
    return int(rows) * int(n) * int(itemsize)


class RowStore:
    """A store folder (see the module docstring)."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            self.manifest = json.loads((self.path / "manifest.json").read_text())
        except (OSError, ValueError):
            raise InputError(f"{self.path} is not a distance store (no readable manifest.json)") from None
        if self.manifest.get("format") != FORMAT:
            raise InputError(f"{self.path}: unknown store format {self.manifest.get('format')!r}")

    # ------------------------------------------------------------------ making
    @classmethod
    def create_or_open(cls, path, graph, sources: np.ndarray, block_size: int) -> "RowStore":
        """Open the store at ``path`` if it was made for this run, or make it (atomically)."""
        path = Path(path)
        want = manifest_for(graph, sources, block_size)
        if not path.exists():
            cls._create(path, want, sources)
        store = cls(path)
        keys = ("fingerprint", "n", "sources_sha256", "block_size", "dtype")
        if any(store.manifest.get(k) != want[k] for k in keys):
            diff = [k for k in keys if store.manifest.get(k) != want[k]]
            raise InputError(f"{path} holds rows of another run (differs in {', '.join(diff)}); "
                             f"give another output path, or delete it to start over")
        return store

    @staticmethod
    def _create(path: Path, manifest: dict, sources: np.ndarray) -> None:
        import zarr
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.making-"))
        try:
            dtype = np.dtype(manifest["dtype"])
            bs = manifest["block_size"]
            zarr.create_array(store=str(tmp / "distances"), shape=(manifest["sources"], manifest["n"]),
                              chunks=(bs, column_chunk(manifest["n"], bs, dtype.itemsize)),
                              dtype=dtype, fill_value=inf_for(dtype), zarr_format=3,
                              attributes={"inf": manifest["inf"], "graph": manifest["graph"]})
            np.save(tmp / "sources.npy", sources)
            (tmp / "blocks").mkdir()
            (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2))
            try:
                os.rename(tmp, path)
            except OSError:
                if not (path / "manifest.json").exists():  # not a concurrent maker that won
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    # ------------------------------------------------------------------ state
    @property
    def blocks(self) -> list[Block]:
        return split(self.manifest["sources"], self.manifest["block_size"])

    def marker(self, block_id: int) -> Path:
        return self.path / "blocks" / f"{block_id:07d}.json"

    def committed(self) -> set[int]:
        return {int(p.stem) for p in (self.path / "blocks").glob("*.json")}

    def is_committed(self, block_id: int) -> bool:
        return self.marker(block_id).exists()

    @property
    def complete(self) -> bool:
        return (self.path / "COMPLETE").exists()

    def mark_complete(self) -> None:
        missing = len(self.blocks) - len(self.committed())
        if missing:
            raise RuntimeError(f"{self.path}: {missing} blocks not committed")
        write_atomic(self.path / "COMPLETE", lambda tmp: Path(tmp).write_text("all blocks committed\n"))

    def nbytes_on_disk(self) -> int:
        return sum(p.stat().st_size for p in self.path.rglob("*") if p.is_file())

    @property
    def sources(self) -> np.ndarray:
        return np.load(self.path / "sources.npy")

    # ------------------------------------------------------------------ writing (on a worker)
    def write_block(self, block: Block, rows: np.ndarray, partial: dict | None = None) -> str:
        """Write ``rows`` (host, the store's dtype) as ``block`` and commit it, once:
        ``"written"``, or ``"already committed"`` (then nothing is written)."""
        import zarr
        if self.is_committed(block.id):
            return "already committed"
        want = (block.size, self.manifest["n"])
        if rows.shape != want or rows.dtype != np.dtype(self.manifest["dtype"]):
            raise InputError(f"block {block.id}: rows must be {want} {self.manifest['dtype']}, got "
                             f"{rows.shape} {rows.dtype}")
        array = zarr.open_array(str(self.path / "distances"), mode="r+")
        array[block.start:block.stop, :] = rows
        if partial is not None:
            write_atomic(self.path / "blocks" / f"{block.id:07d}.npz",
                         lambda tmp: np.savez(open(tmp, "wb"), **partial))
        return self._commit(block)

    def _commit(self, block: Block) -> str:
        info = {"block": block.id, "start": block.start, "stop": block.stop, "pid": os.getpid(),
                "attempt": uuid.uuid4().hex}
        tmp = self.path / "blocks" / f".{block.id:07d}.{info['attempt']}.tmp"
        tmp.write_text(json.dumps(info))
        try:
            os.link(tmp, self.marker(block.id))  # fails if a marker exists: one commit per block
        except FileExistsError:
            return "already committed"
        finally:
            tmp.unlink()
        return "written"

    # ------------------------------------------------------------------ reading
    def partial(self, block_id: int) -> dict | None:
        path = self.path / "blocks" / f"{block_id:07d}.npz"
        if not self.is_committed(block_id) or not path.exists():
            return None
        with np.load(path) as data:
            return {k: data[k] for k in data.files}

    def rows(self, positions=None) -> np.ndarray:
        """Public float64 rows (np.inf unreachable) at ``positions`` of the sources; InputError
        when one lies in a block not committed yet."""
        import zarr
        count, bs = self.manifest["sources"], self.manifest["block_size"]
        pos = np.arange(count) if positions is None else np.atleast_1d(np.asarray(positions))
        if pos.size and (pos.min() < 0 or pos.max() >= count):
            raise InputError(f"row positions must lie in [0, {count})")
        missing = sorted(set((pos // bs).tolist()) - self.committed())
        if missing:
            raise InputError(f"{self.path}: blocks {missing[:8]} are not committed yet; finish the "
                             f"run (rerunning resumes it) before reading them")
        array = zarr.open_array(str(self.path / "distances"), mode="r")
        return to_public(array.oindex[pos, :])

    def rows_of(self, sources) -> np.ndarray:
        """Public float64 rows of the vertices ``sources`` (ids of the graph, not positions);
        InputError naming those the store does not hold."""
        held = self.sources
        want = np.atleast_1d(np.asarray(sources, dtype=np.int64))
        order = np.argsort(held, kind="stable")
        at = np.searchsorted(held, want, sorter=order)
        at = np.minimum(at, len(held) - 1)
        pos = order[at]
        absent = want[held[pos] != want]
        if absent.size:
            raise InputError(f"{self.path}: no row for source(s) {absent[:8].tolist()}: the store holds "
                             f"{len(held):,} sources (its .sources); rows(positions) reads by position")
        return self.rows(pos)
