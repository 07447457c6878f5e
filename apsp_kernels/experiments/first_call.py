"""The library notebook's "first call on a fresh install" (issue 47): the first and second road-network
calls of a fresh process, with empty numba and CuPy caches, and with caches filled by
``python -m apsp_kernels.precompile`` (what ``make setup`` runs) beforehand.

Each scenario is a subprocess with its own empty ``NUMBA_CACHE_DIR`` and ``CUPY_CACHE_DIR`` (temp
folders) and no hierarchy cache: ``cold`` times ``shortest_path(A, indices=range(k), method="phast")``
twice, then ``distributed.all_sources`` (reductions, every source, on an in-process Dask cluster of
one worker thread) twice; ``precompiled`` runs the precompile in a subprocess of its own first (its
seconds are a record too), then the same calls in a fresh one. Times are host wall clock around each
call; every result is checked against SciPy on sampled rows.
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

PAPER = "library"
EXPERIMENT = "first_call"
SCENARIOS = ("cold", "precompiled")
CHECK_ROWS = 8  # rows checked against SciPy per call (4096 rows of NY would take SciPy minutes)
TIMEOUT_S = 900


def config(profile: str) -> dict:
    """NY and 4096 sources, the issue's call, in both scenarios; the smoke profile skips it (a cold
    compile alone takes tens of seconds)."""
    from ..profiles import choose
    return {"profile": profile, "graph": {"kind": "dataset", "name": "NY"}, "sources": 4096, "all_sources": True,
            "scenarios": choose(profile, smoke=(), default=SCENARIOS),
            "skip": choose(profile, smoke="smoke profile: a cold compile takes tens of seconds (the default "
                                          "profile measures it)", default="")}


def child_env(numba_dir: str, cupy_dir: str) -> dict:
    """This process's environment with the given (empty) caches and no hierarchy cache."""
    env = {k: v for k, v in os.environ.items() if k != "APSP_HIERARCHY_CACHE"}
    env.update(NUMBA_CACHE_DIR=numba_dir, CUPY_CACHE_DIR=cupy_dir, PYTHONWARNINGS="default")
    return env


def measure(cfg: dict, python: str = sys.executable) -> list[Record]:
    """One record per call and scenario of ``cfg["scenarios"]`` (and one for the precompile), run
    in subprocesses; one skipped record when there are none."""
    if not cfg["scenarios"]:
        return [Record(paper=PAPER, experiment=EXPERIMENT, method="shortest_path phast", graph="-", n=0, m=0,
                       timing_scope="with_transfers", skipped=cfg["skip"] or "no scenarios asked for",
                       profile=cfg["profile"])]
    records = []
    for scenario in cfg["scenarios"]:
        with tempfile.TemporaryDirectory(prefix="apsp-first-call-") as tmp:
            env = child_env(os.path.join(tmp, "numba"), os.path.join(tmp, "cupy"))
            if scenario == "precompiled":
                records.append(_precompile_record(cfg, env, python))
            records.extend(_calls(cfg, scenario, env, python))
    for rec in records:
        rec.profile = cfg["profile"]
    return records


def _precompile_record(cfg: dict, env: dict, python: str) -> Record:
    start = time.perf_counter()
    done = subprocess.run([python, "-m", "apsp_kernels.precompile"], env=env, capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    seconds = time.perf_counter() - start
    rec = Record(paper=PAPER, experiment=EXPERIMENT, method="python -m apsp_kernels.precompile",
                 graph="-", n=0, m=0, params={"scenario": "precompiled", "caches": "empty"}, repeats=1,
                 timing_scope="with_transfers", time_ms_median=seconds * 1e3, time_ms_min=seconds * 1e3,
                 stats={"output": done.stdout[-2000:]})
    if done.returncode:
        rec.skipped = f"the precompile failed (exit {done.returncode}): {done.stderr[-500:]}"
    else:
        rec.verified, rec.max_error = True, 0.0
        rec.verify_scope = "its road check: small road-like graph vs SciPy (raises when wrong)"
    return rec


def _calls(cfg: dict, scenario: str, env: dict, python: str) -> list[Record]:
    args = json.dumps({**cfg, "scenario": scenario})
    done = subprocess.run([python, "-m", "apsp_kernels.experiments.first_call", args], env=env, capture_output=True,
                          text=True, timeout=TIMEOUT_S)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        return [Record(paper=PAPER, experiment=EXPERIMENT, method="shortest_path phast", graph="-", n=0, m=0,
                       params={"scenario": scenario}, timing_scope="with_transfers",
                       skipped=f"the {scenario} subprocess failed (exit {done.returncode}): {done.stderr[-800:]}")]
    return [Record(**json.loads(line)) for line in lines]


# ----------------------------------------------------------------------------- in the subprocess
def _child(cfg: dict) -> None:
    """Run the calls of one scenario and print one JSON record per call (stdout)."""
    import warnings

    from .. import gpu
    from ..csgraph import shortest_path
    from .library import build_graph
    from ..numba_cache import OneTimeCompile

    g = build_graph(cfg["graph"])
    A = g.to_scipy()
    k = min(int(cfg["sources"]), g.n)
    base = {"paper": PAPER, "experiment": EXPERIMENT, "graph": g.name, "n": g.n, "m": g.m,
            "timing_scope": "with_transfers", "stand_in": g.is_stand_in, "repeats": 1}
    if not gpu.available():
        print(json.dumps({**base, "method": "shortest_path phast", "params": {"scenario": cfg["scenario"]},
                          "skipped": "no CUDA GPU: method='phast' runs on the GPU"}))
        return
    checked = np.linspace(0, k - 1, CHECK_ROWS).astype(np.int64)
    want = _scipy_rows(A, checked)
    calls = [("shortest_path phast", lambda: shortest_path(A, indices=np.arange(k), method="phast"),
              f"apsp_kernels.shortest_path(A, indices=range({k}), method='phast')")]
    client = _local_client() if cfg.get("all_sources") else None
    if client is not None:
        calls.append(("all_sources phast", lambda: _all_sources(g, client),
                      "distributed.all_sources(graph, client) (reductions, every source)"))
    elif cfg.get("all_sources"):
        print(json.dumps({**base, "method": "all_sources phast", "params": {"scenario": cfg["scenario"]},
                          "skipped": "Dask's distributed is not installed here (pip install '.[distributed]')"}))
    for name, call, text in calls:
        for nth in ("first", "second"):
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always", OneTimeCompile)
                start = time.perf_counter()
                out = call()
                seconds = time.perf_counter() - start
            notices = [str(w.message) for w in seen if issubclass(w.category, OneTimeCompile)]
            check = _check(name, out, g, A, checked, want)
            print(json.dumps({**base, "method": f"{name}, {nth} call", "time_ms_median": seconds * 1e3,
                              "time_ms_min": seconds * 1e3, **check,
                              "params": {"scenario": cfg["scenario"], "call": text, "nth": nth, "caches":
                                         "empty" if cfg["scenario"] == "cold" else "filled by the precompile"},
                              "stats": {"notices": notices}}), flush=True)
    if client is not None:
        from ..distributed import cluster
        cluster.close(client)


def _scipy_rows(A, rows) -> np.ndarray:
    from scipy.sparse import csgraph
    return csgraph.dijkstra(A, indices=rows)


def _local_client():
    """A cluster of one worker thread in this process (it uses this process's GPU), or None without Dask."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return None
    from ..distributed import cluster
    return cluster.local(cpu_workers=1, processes=False)


def _all_sources(g, client):
    from ..distributed import all_sources
    return all_sources(g, client, progress=False)


def _check(name: str, out, g, A, checked, want) -> dict:
    if name.startswith("shortest_path"):
        got = np.asarray(out)[checked]
        err = float(np.max(np.abs(np.where(np.isinf(got) & np.isinf(want), 0, got - want))))
        return {"verified": bool(np.array_equal(got, want)), "max_error": err,
                "verify_scope": f"{len(checked)} sampled rows vs SciPy, exact"}
    from scipy.sparse import csgraph
    per_source = out.reductions.per_source.set_index("vertex")
    ecc = per_source.loc[checked, "eccentricity"].to_numpy()
    expected = csgraph.dijkstra(A, indices=checked).max(axis=1)
    return {"verified": bool(np.array_equal(ecc, expected)), "max_error": float(np.max(np.abs(ecc - expected))),
            "verify_scope": f"eccentricity of {len(checked)} sampled sources vs SciPy, exact"}



def table(records: list[Record]) -> pd.DataFrame:
    """One row per call: scenario, call, seconds, its check, and the one-time notices it printed."""
    rows = [{"scenario": r.param("scenario", "-"), "call": r.method, "seconds": r.time_ms_median / 1e3,
             "verified": r.verified, "verify_scope": r.verify_scope, "graph": r.graph, "n": r.n, "m": r.m,
             "notices": " | ".join(r.stat("notices", [])), "device": r.device, "skipped": r.skipped}
            for r in records]
    return pd.DataFrame(rows)


def caption() -> str:
    return ("Host wall clock around each call in a fresh subprocess; 'cold': empty NUMBA_CACHE_DIR and "
            "CUPY_CACHE_DIR (a fresh install that skipped the precompile); 'precompiled': the same empty caches "
            "filled by `python -m apsp_kernels.precompile` (its own row) in an earlier process, as `make setup` "
            "does. all_sources runs after shortest_path in the same process, on an in-process Dask cluster of one "
            "worker thread; notices: the one-time compile messages the call printed.")


if __name__ == "__main__":
    _child(json.loads(sys.argv[1]))
