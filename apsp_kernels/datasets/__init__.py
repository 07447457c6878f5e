"""The public graphs of the papers (DIMACS USA-road-d, SNAP p2p-Gnutella) as :class:`Graph`.

::

    from apsp_kernels import datasets
    datasets.names()                      # ['NY', 'BAY', 'COL', 'FLA', 'NE', 'E', 'gnutella04', ...]
    g = datasets.load("NY")               # bodra Table 1; FileNotFound -> DatasetUnavailable
    g = datasets.load("gnutella04", weight_seed=0)   # weights uniform in [1, 100]
    g = datasets.load_or_stand_in("COL")  # a labelled road-like stand-in when offline

Where originals are looked for (cache, ``APSP_DATA_MIRROR``, download): :mod:`.fetch`.
Formats and id/weight conventions: :mod:`.parsers`. The table: ``apsp_kernels/data/datasets.csv``
(package data, read with :mod:`importlib.resources`). What a notebook run needs: :mod:`.needs`.
"""
from __future__ import annotations

import dataclasses
import warnings

from ..errors import ChecksumError, DatasetUnavailable
from ..graph import Graph
from . import cache, fetch, registry
from .parsers import parse_bytes, parse_file, random_weights, read_bytes
from .registry import Dataset, get, names

__all__ = ["load", "load_or_stand_in", "info", "names", "available", "parse_file", "get",
           "Dataset", "random_weights"]


def available(name: str | Dataset) -> bool:
    """True when the original is in the cache or the mirror (never downloads)."""
    return fetch.find_local(get(name)) is not None


def info(name: str | Dataset) -> dict:
    """The registry row plus where the original is (``path``, None when not local)."""
    ds = get(name)
    path = fetch.find_local(ds)
    mirror = fetch.mirror_dir()
    return {**dataclasses.asdict(ds), "available": path is not None,
            "path": str(path) if path else None, "cache_dir": str(fetch.cache_dir()),
            "mirror_dir": str(mirror) if mirror else None}


def load(name: str | Dataset, weight_seed: int = 0) -> Graph:
    """The dataset as a directed :class:`Graph` with int32 weights, named by its short name.

    DIMACS weights are the file's; SNAP weights are uniform integers in [1, 100] from
    ``weight_seed`` (ignored for DIMACS). The first load verifies the sha256 and the
    node/arc counts and caches the parsed graph; later loads read the cache.
    Raises DatasetUnavailable, ChecksumError or ParseError.
    """
    ds = get(name)
    path, downloaded = fetch.locate(ds)
    stamp = cache.source_stamp(path)
    entry = cache.parsed_path(ds, weight_seed)
    graph = cache.read(entry, stamp)
    if graph is not None:
        return graph
    data = read_bytes(path)
    sha256 = fetch.verify_checksum(ds, path, data, remove_on_mismatch=downloaded)
    edges = parse_bytes(data, ds.format, path)
    del data
    if (edges.n, edges.arcs) != (ds.nodes, ds.arcs):
        raise ChecksumError(f"{path}: {edges.n} nodes and {edges.arcs} arcs, but the registry has "
                            f"{ds.nodes} and {ds.arcs} for {ds.full_name}; is it the right file?")
    label = ds.full_name
    if ds.weights_are_generated:
        label += f" (weights uniform in [1, 100], seed {weight_seed})"
    meta = {"source": str(path), "url": ds.url, "dataset": ds.full_name, "sha256": sha256,
            "stand_in": False, "label": label}
    graph = edges.to_graph(name=ds.name, weight_seed=weight_seed, meta=meta)
    cache.write(entry, graph, stamp)
    return graph


def load_or_stand_in(name: str | Dataset, seed: int = 0) -> Graph:
    """:func:`load`, or, when the original is unavailable, a road-like graph of the same
    size from ``generators.road_like`` with ``meta["stand_in"] = True`` and a label
    saying so (a warning says why). ``seed`` is the weight seed or the generator seed.
    With a mirror set, a dataset it lacks is stood in for without a download attempt
    (``APSP_DATA_DOWNLOAD=1`` downloads it; :mod:`.fetch`).
    """
    ds = get(name)
    try:
        return load(ds, weight_seed=seed)
    except DatasetUnavailable:
        why = fetch.no_download_reason() or "its download failed"
    from .. import generators

    label = f"stand-in for {ds.full_name} (original not available offline: {ds.url})"
    warnings.warn(f"{label}: not in the cache or the mirror, and {why}", stacklevel=2)
    graph = generators.road_like(ds.nodes, ds.arcs, seed=seed, name=ds.name)
    return graph.as_stand_in(label, stands_in_for=ds.full_name, url=ds.url)
