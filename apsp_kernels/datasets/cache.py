"""Parsed graphs cached as ``.npz`` beside the originals, so a load skips gunzip, hash and parse.

A cache entry records the original's path, size and mtime; it is used only while they
still match, so the checksum verified when the entry was written stays valid. The file
is written atomically (temporary file + rename): a failed write leaves nothing behind.
"""
from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import numpy as np

from ..graph import Graph
from .fetch import cache_dir
from .registry import Dataset

FORMAT_VERSION = 1      # bump when parsing or the entry layout changes


def parsed_path(ds: Dataset, weight_seed: int) -> Path:
    """``<cache>/parsed/NY.npz``; SNAP entries are keyed by their weight seed too."""
    stem = f"{ds.name}.seed{weight_seed}" if ds.weights_are_generated else ds.name
    return cache_dir() / "parsed" / f"{stem}.npz"


def source_stamp(path: Path) -> dict:
    """What identifies the original's version: resolved path, size and mtime."""
    st = Path(path).stat()
    return {"path": str(Path(path).resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def read(path: Path, stamp: dict) -> Graph | None:
    """The cached graph when the entry exists and matches ``stamp``; else None."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            header = json.loads(str(z["header"]))
            if header.get("version") != FORMAT_VERSION or header.get("source") != stamp:
                return None
            return Graph(int(z["n"]), z["indptr"], z["indices"], z["weights"],
                         name=header["name"], meta=header["meta"])
    except Exception:       # unreadable or partial entry from an older layout: parse again
        return None


def write(path: Path, graph: Graph, stamp: dict) -> None:
    """Store ``graph`` atomically; a failure (read-only cache) only warns."""
    from ..records import write_atomic

    header = json.dumps({"version": FORMAT_VERSION, "source": stamp, "name": graph.name,
                         "meta": graph.meta}, default=str)

    def save(tmp):
        with open(tmp, "wb") as f:
            np.savez(f, n=np.int64(graph.n), indptr=graph.indptr, indices=graph.indices,
                     weights=graph.weights, header=np.array(header))
        os.chmod(tmp, 0o644)    # mkstemp makes it private

    try:
        write_atomic(path, save)
    except OSError as err:
        warnings.warn(f"could not cache the parsed graph at {path} ({err}); "
                      f"it will be parsed again next time", stacklevel=3)
