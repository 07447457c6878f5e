"""Seeded source samples: which sources a run times when all of them would take too long."""
from __future__ import annotations

import numpy as np


def seeded_subset(ids, size, seed: int = 0) -> np.ndarray:
    """A seeded, sorted sample of ``size`` of ``ids`` (all of them when ``size`` is None or not smaller)."""
    ids = np.asarray(ids)
    if size is None or size >= len(ids):
        return ids
    return np.sort(np.random.default_rng(seed).choice(ids, size=size, replace=False))


def scaled_sample(ids, size, seed: int = 0, why: str = "") -> tuple[np.ndarray, float, str]:
    """(sources, scale, explanation): :func:`seeded_subset` and the factor that scales its time to
    all of ``ids``, with the words a record's ``extrapolation`` carries ('' when nothing is sampled)."""
    picked = seeded_subset(ids, size, seed)
    if len(picked) == len(ids):
        return picked, 1.0, ""
    scale = len(ids) / len(picked)
    return picked, scale, (f"timed on a seeded sample of {len(picked)} of {len(ids)} sources "
                           f"(seed {seed}){why}; time x {scale:.2f} (= {len(ids)} / {len(picked)})")
