"""Which datasets a notebook run needs, so that a run loads (and, at most, downloads) only those.

A notebook ``notebooks/<stem>.ipynb`` takes its sizes from ``apsp_kernels.experiments.<stem>.config(profile)``;
the datasets it loads are the registry's short names among that config's values (nested dicts, lists and
tuples included; dict keys are not, so ``{"NE": "skipped ..."}`` needs nothing). A stem without such a
config needs every dataset, so that a run never misses one.
"""
from __future__ import annotations

import importlib

from .registry import names


def needed(stems, profile: str = "default") -> list[str]:
    """The short names (registry order) that the notebooks ``stems`` load in ``profile``."""
    wanted: set[str] = set()
    for stem in stems:
        wanted |= needed_by(stem, profile)
    return [name for name in names() if name in wanted]


def needed_by(stem: str, profile: str) -> set[str]:
    """The short names one notebook loads in ``profile`` (every dataset when its config is not found)."""
    try:
        config = importlib.import_module(f"apsp_kernels.experiments.{stem}").config
    except (ImportError, AttributeError):
        return set(names())
    return set(_names_in(config(profile), set(names())))


def _names_in(value, known: set[str]):
    if isinstance(value, str):
        if value in known:
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _names_in(item, known)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _names_in(item, known)
