"""The centrality notebook's first call on a fresh install (issue 46, item 5), beside its warm times:
``closeness_centrality``, ``harmonic_centrality`` and ``eccentricity`` of NY's SciPy matrix in a fresh
process, with the subprocess machinery of :mod:`apsp_kernels.experiments.first_call`.

Each scenario is a subprocess with its own empty ``NUMBA_CACHE_DIR`` and ``CUPY_CACHE_DIR`` and no hierarchy
cache: ``cold`` makes the calls straight away; ``precompiled`` runs ``python -m apsp_kernels.precompile`` in a
subprocess first (its own record), then the calls in a fresh one. In the child the three calls run in a row
(the first pays compilation, contraction and every source; the other two reuse its sums), then again after
``centrality.EVERY_SOURCE.clear()`` (the hierarchy and compiled kernels kept: a later call in the session).
Host wall clock around each call; the values of sampled vertices are checked against SciPy's rows.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

from ..records import Record
from . import first_call
from .centrality_space import MEASURES, PAPER, TRIO

EXPERIMENT = "first_call"
METHOD = f"{TRIO} from scipy"
CHECKED = 8  # sampled vertices checked against SciPy per run


def config(cfg: dict) -> dict:
    """The first-call settings of the notebook's config, with its profile."""
    return {"profile": cfg["profile"], **cfg["first_call"]}


def measure(fcfg: dict, python: str = sys.executable) -> list[Record]:
    """One record per run (first, second) and scenario, one for the precompile; one skipped record when
    the profile asks for none."""
    if not fcfg["scenarios"]:
        return [_skipped(fcfg, fcfg["skip"] or "no scenarios asked for")]
    records = []
    for scenario in fcfg["scenarios"]:
        with tempfile.TemporaryDirectory(prefix="apsp-centrality-first-call-") as tmp:
            env = first_call.child_env(os.path.join(tmp, "numba"), os.path.join(tmp, "cupy"))
            if scenario == "precompiled":
                rec = first_call._precompile_record(fcfg, env, python)
                rec.paper, rec.experiment = PAPER, EXPERIMENT
                records.append(rec)
            records.extend(_calls(fcfg, scenario, env, python))
    for rec in records:
        rec.profile = fcfg["profile"]
    return records


def _skipped(fcfg: dict, why: str, scenario: str = "") -> Record:
    return Record(paper=PAPER, experiment=EXPERIMENT, method=METHOD, graph="-", n=0, m=0,
                  params={"scenario": scenario} if scenario else {}, timing_scope="with_transfers", skipped=why,
                  profile=fcfg["profile"])


def _calls(fcfg: dict, scenario: str, env: dict, python: str) -> list[Record]:
    args = json.dumps({**fcfg, "scenario": scenario})
    done = subprocess.run([python, "-m", __name__, args], env=env, capture_output=True, text=True,
                          timeout=first_call.TIMEOUT_S)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        return [_skipped(fcfg, f"the {scenario} subprocess failed (exit {done.returncode}): {done.stderr[-800:]}",
                         scenario)]
    return [Record(**json.loads(line)) for line in lines]


# ----------------------------------------------------------------------------- in the subprocess
def _child(fcfg: dict) -> None:
    """The calls of one scenario, one JSON record per run on stdout."""
    import warnings

    from .. import centrality as C
    from .. import gpu
    from ..numba_cache import OneTimeCompile
    from .centrality_inputs import check, reference
    from .library import build_graph

    if not gpu.available():  # before the graph: NY's stand-in alone takes seconds to generate
        print(json.dumps({"paper": PAPER, "experiment": EXPERIMENT, "method": METHOD, "graph": "-", "n": 0, "m": 0,
                          "timing_scope": "with_transfers", "params": {"scenario": fcfg["scenario"]},
                          "skipped": "no CUDA GPU: the first call's compilation is the GPU's"}))
        return
    g = build_graph(fcfg["graph"])
    A = g.to_scipy()
    base = {"paper": PAPER, "experiment": EXPERIMENT, "method": METHOD, "graph": g.name, "n": g.n, "m": g.m,
            "timing_scope": "with_transfers", "stand_in": g.is_stand_in, "repeats": 1}
    checked = np.linspace(0, g.n - 1, CHECKED).astype(np.int64)
    want = reference(A, checked)
    calls = {"closeness": C.closeness_centrality, "harmonic": C.harmonic_centrality, "eccentricity": C.eccentricity}
    for nth in ("first", "second"):
        C.EVERY_SOURCE.clear()
        seconds, values = {}, {}
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always", OneTimeCompile)
            for name in MEASURES:
                start = time.perf_counter()
                values[name] = calls[name](A, progress=False)
                seconds[name] = time.perf_counter() - start
        notices = [str(w.message) for w in seen if issubclass(w.category, OneTimeCompile)]
        ok, err, scope = check(values, want, checked, g.n)
        total = sum(seconds.values()) * 1e3
        print(json.dumps({**base, "time_ms_median": total, "time_ms_min": total, "verified": ok, "max_error": err,
                          "verify_scope": scope,
                          "params": {"scenario": fcfg["scenario"], "nth": nth, "call": "; ".join(
                              f"apsp_kernels.centrality.{calls[m].__name__}(A)" for m in MEASURES),
                              "caches": "empty" if fcfg["scenario"] == "cold" else "filled by the precompile"},
                          "stats": {"seconds": seconds, "notices": notices}}), flush=True)


def table(records: list[Record]) -> pd.DataFrame:
    """One row per run: scenario, first or second, seconds in all and per call, its check, the notices."""
    rows = []
    for r in records:
        each = r.stat("seconds", {})
        rows.append({"scenario": r.param("scenario", "-"), "run": r.param("nth", "-") if r.method == METHOD
                     else r.method, "seconds": r.time_ms_median / 1e3,
                     **{f"{m}_s": each.get(m, float("nan")) for m in MEASURES},
                     "checked": r.verified, "check": r.verify_scope, "graph": r.graph, "device": r.device,
                     "notices": " | ".join(r.stat("notices", [])) if r.method == METHOD else "",
                     "skipped": r.skipped})
    return pd.DataFrame(rows)


def caption() -> str:
    return ("Host wall clock in a fresh subprocess. 'cold': empty NUMBA_CACHE_DIR and CUPY_CACHE_DIR and no "
            "hierarchy cache (an install that skipped the precompile); 'precompiled': the same empty caches filled "
            "by `python -m apsp_kernels.precompile` (its own row) in an earlier process. 'first': the three calls "
            "in a row in the new process (the first call compiles, contracts and runs every source; the other two "
            "reuse its sums); 'second': again after centrality.EVERY_SOURCE.clear(), the hierarchy and the compiled "
            "kernels kept. notices: the one-time compile messages printed.")


if __name__ == "__main__":
    _child(json.loads(sys.argv[1]))
