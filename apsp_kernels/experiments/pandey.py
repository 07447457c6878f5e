"""Experiments of pandey (notebooks/pandey.ipynb): R-Kleene vs FW, GPU vs one CPU core.

Every timed number comes from :func:`apsp_kernels.timing.run` (checked against the oracle on
all rows up to ``FULL_ROWS_MAX_N``, on 8 seeded rows above: SciPy's Dijkstra on a dense
graph costs minutes at n = 4096). :func:`full_checks` adds a check of ALL n^2 entries for
every n <= ``certify_max_n`` through the Bellman-equation certificate
(:func:`apsp_kernels.minplus.cpu.certify`). Serial times above ``serial_max_n`` are the
largest measured time scaled by n^3 and labelled ``extrapolated``.

This module holds the timed sweeps; the untimed GPU checks are in
:mod:`.pandey_checks`, the tables and the time-vs-n line in :mod:`.pandey_tables`, the verdicts,
``QUOTED``, ``CLAIMS`` and ``EVIDENCE`` in :mod:`.pandey_claims`, the configuration, methods, constants
and the graph in :mod:`.pandey_space` (all re-exported here).
"""
from __future__ import annotations

from .. import oracle, provenance, registry, report, timing
from ..records import Record
from .pandey_checks import full_checks, inplace_check, malloc_counter, peak  # noqa: F401
from .pandey_claims import (CLAIMS, EVIDENCE, QUOTED, TABLE1_DEVICE, fmt, speedup_summary,  # noqa: F401
                            table1_published, verdict_corrections, verdicts)
from .pandey_space import (FULL_ROWS_MAX_N, GPU_METHODS, PAPER, PEAK_REFERENCE_TOPS,  # noqa: F401
                           PRODUCT_METHODS, SAMPLED_ROWS, SERIAL_METHODS, TABLE1_DEVICES, THRESHOLDS, config, graph)
from .pandey_tables import (crossover, plot_method, product_rate_table, rk_vs_fw, table1,  # noqa: F401
                            threshold_table, times)


def verify_rows(n: int):
    """Oracle rows for an n-vertex run: all up to FULL_ROWS_MAX_N, else SAMPLED_ROWS seeded ones."""
    return oracle.choose_rows(n, limit=FULL_ROWS_MAX_N, sample=min(SAMPLED_ROWS, n))


def _run(name: str, g, experiment: str, cfg: dict, params=None, repeats=None, scope="kernel"):
    method = registry.get(PAPER, name)
    if repeats is None:
        repeats = cfg["gpu_repeats"] if method.gpu else cfg["serial_repeats"]
        if not method.gpu and g.n <= 256:
            repeats = 3
    return timing.run(method, g, experiment=experiment, params=params, repeats=repeats,
                      warmup=1 if method.gpu else 0, scope=scope, verify_rows=verify_rows(g.n),
                      profile=cfg["profile"])


def extrapolate(base: Record, n: int) -> Record:
    """A serial record at n from the measured one at base.n, scaled by (n / base.n)^3."""
    factor = (n / base.n) ** 3
    return Record(paper=base.paper, experiment=base.experiment, method=base.method,
                  graph=base.graph.replace(f"-n{base.n}-", f"-n{n}-") + " (not built)",
                  n=n, m=n * (n - 1),
                  params=base.params, time_ms_median=base.time_ms_median * factor,
                  time_ms_min=base.time_ms_min * factor, repeats=base.repeats,
                  timing_scope=base.timing_scope, verified=base.verified, max_error=base.max_error,
                  verify_scope=f"{provenance.NOT_RUN_HERE}; the measured n={base.n} run: {base.verify_scope}",
                  extrapolated=True, extrapolation=f"n^3 scaling of the time measured at n={base.n}",
                  stats=base.stats, device=base.device, profile=base.profile)


def sweep(cfg: dict) -> list[Record]:
    """Fig. 11-15 and Table 1: every method at every size (serial measured up to serial_max_n)."""
    records: list[Record] = []
    measured_serial: dict[str, Record] = {}
    for n in report.progress(cfg["sizes"], desc="pandey sizes"):
        g = graph(n, cfg["seed"])
        for name in GPU_METHODS:
            if (name == "fw_parallel" and n > cfg["fw_max_n"]) or \
               (name in ("rkleene_tiled", "rkleene_launches") and n > cfg["tiled_max_n"]):
                continue
            records.append(_run(name, g, "sweep", cfg))
        records.append(_run("rkleene", g, "sweep_with_transfers", cfg, repeats=1,
                            scope="with_transfers"))
        for name in SERIAL_METHODS:
            if n <= cfg["serial_max_n"]:
                rec = _run(name, g, "sweep", cfg)
                measured_serial[name] = rec
            elif name in measured_serial:
                rec = extrapolate(measured_serial[name], n)
            else:
                continue
            records.append(rec)
    return records


def threshold_sweep(cfg: dict) -> list[Record]:
    """R-Kleene time vs base-case threshold (with and without the CUDA graph)."""
    records = []
    for n in cfg["threshold_sizes"]:
        g = graph(n, cfg["seed"])
        for t in report.progress(cfg["thresholds"], desc=f"thresholds n={n}"):
            for name in ("rkleene", "rkleene_launches"):
                records.append(_run(name, g, "threshold", cfg, params={"threshold": t}))
    return records


def product_rate(cfg: dict) -> list[Record]:
    """The product kernels timed as in-place squarings (one n x n x n product per launch)."""
    records = []
    for n in report.progress(cfg["product_sizes"], desc="product rate"):
        g = graph(n, cfg["seed"])
        for name in PRODUCT_METHODS:
            records.append(_run(name, g, "product_rate", cfg))
    return records


