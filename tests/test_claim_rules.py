"""Every paper's claim rules on hand-made numbers, in both directions and inside the noise band
(issue 47): a rule reads holds, does not hold, or inconclusive where its comparison flips inside
the band; a headline takes the measured rows over the extrapolated ones."""
import math

import numpy as np
import pandas as pd
import pytest

from apsp_kernels import provenance, report
from apsp_kernels.experiments import bodra_claims, liu_claims, okuyama_claims, pandey_claims, takafuji_claims
from apsp_kernels.experiments.liu_space import GPU_ALG, GPU_TOTAL, SERIAL
from apsp_kernels.provenance import INCONCLUSIVE
from apsp_kernels.records import Record
from apsp_kernels.verdicts import DEFAULT_TIMING_BAND, decide, every, headline, held, timing_band

H100 = report.GOAL_GPU


def _one(verdicts, prefix):
    hits = [v for v in verdicts if v["claim"].startswith(prefix)]
    assert len(hits) == 1, [v["claim"] for v in verdicts]
    return hits[0]


# ------------------------------------------------------------------ the band itself
def test_decide_reads_inconclusive_only_where_the_test_flips_inside_the_band():
    above = lambda v: v > 1  # noqa: E731
    assert decide(above, 1.2) is True and decide(above, 0.8) is False
    assert decide(above, 1.02) == INCONCLUSIVE and decide(above, 0.98) == INCONCLUSIVE
    assert decide(above, 1.02, band=0.01) is True
    assert decide(above, math.nan) is None and decide(above, None) is None


def test_every_is_false_on_one_failure_and_inconclusive_on_one_flip():
    assert every([True, True]) is True
    assert every([True, INCONCLUSIVE]) == INCONCLUSIVE
    assert every([INCONCLUSIVE, False]) is False
    assert every([None]) is None


def test_the_band_comes_from_the_repeats_where_they_were_kept():
    quiet = pd.DataFrame({"time_ms_median": [100.0], "time_ms_min": [99.0], "repeats": [5]})
    noisy = pd.DataFrame({"time_ms_median": [100.0], "time_ms_min": [80.0], "repeats": [5]})
    once = pd.DataFrame({"time_ms_median": [100.0], "time_ms_min": [50.0], "repeats": [1]})
    assert timing_band(quiet, quiet) == pytest.approx(0.02)
    assert timing_band(noisy, quiet) == pytest.approx(0.21)
    assert timing_band(noisy, once) == pytest.approx(0.2 + DEFAULT_TIMING_BAND / 2)
    assert timing_band(once, once) == DEFAULT_TIMING_BAND  # single runs keep no spread


def test_inconclusive_reads_so_in_the_verdict_line_and_back():
    assert provenance.wording(INCONCLUSIVE, "measured") == "inconclusive"
    assert provenance.wording(INCONCLUSIVE, "extrapolated", "every row") == "inconclusive (extrapolated: every row)"
    assert held(provenance.outcome("inconclusive (extrapolated: every row)")) == INCONCLUSIVE


def test_a_headline_takes_the_measured_rows_and_says_so():
    values = pd.Series([10.0, 500.0, 3000.0])
    assert headline(values, pd.Series([False, False, True])) == (500.0, 1, "measured rows")
    assert headline(values, pd.Series([True, True, True])) == (3000.0, 2, "extrapolated rows only")
    assert headline(values, pd.Series([False, False, False]), pick="min")[0] == 10.0


# ------------------------------------------------------------------ liu
LIU = {(1250, 16): (1.0, 0.4, 0.01, 100.0), (1250, 512): (1.0, 0.4, 0.05, 100.0),
       (40000, 16): (100.0, 38.5, 0.004, 77.0), (40000, 512): (100.0, 38.5, 0.04, 77.0)}


def _liu(**changes):
    """Fig. 1 times (serial, parallel on 4 threads, GPU algorithm, GPU total) where every claim holds."""
    cells = {**LIU, **changes.get("cells", {})}
    rows = [dict(n=n, min_degree=d, kind=kind, seconds=s, device=H100)
            for (n, d), times in cells.items()
            for kind, s in zip((SERIAL, "parallel_4", GPU_ALG, GPU_TOTAL), times)]
    return liu_claims.verdicts(pd.DataFrame(rows))


def test_liu_claims_all_hold_on_the_papers_shape():
    assert all(v["holds"] is True for v in _liu() if v["holds"] is not None)


@pytest.mark.parametrize("cell, prefix, outcome", [
    ({(40000, 16): (100.0, 20.0, 0.004, 77.0), (40000, 512): (100.0, 20.0, 0.04, 77.0)}, "parallel CPU", False),
    ({(40000, 16): (100.0, 30.5, 0.004, 77.0), (40000, 512): (100.0, 30.5, 0.04, 77.0)}, "parallel CPU",
     INCONCLUSIVE),  # 3.28x beside the 3.38x edge of 2.6 +- 30 %
    ({(40000, 512): (300.0, 38.5, 0.04, 77.0)}, "serial O", False),
    ({(40000, 512): (148.0, 38.5, 0.04, 77.0)}, "serial O", INCONCLUSIVE),
    ({(1250, 512): (1.0, 0.4, 0.005, 100.0)}, "GPU speedup is best", False),
    ({(1250, 512): (1.0, 0.4, 0.0099, 100.0)}, "GPU speedup is best", INCONCLUSIVE),
    ({(1250, 16): (1.0, 0.4, 0.00001, 100.0)}, "GPU speedup grows", False),
    ({(40000, 512): (100.0, 38.5, 0.005, 77.0)}, "GPU algorithm time grows", False),
    ({(40000, 512): (100.0, 38.5, 0.0061, 77.0)}, "GPU algorithm time grows", INCONCLUSIVE),
    ({(40000, 16): (100.0, 38.5, 0.0049, 77.0)}, "project target", INCONCLUSIVE),
    ({(40000, 16): (100.0, 38.5, 0.009, 77.0)}, "project target", False),
])
def test_liu_claims_fail_and_go_inconclusive(cell, prefix, outcome):
    got = _one(_liu(cells=cell), prefix)
    assert got["holds"] == outcome and (got["holds"] is outcome or outcome == INCONCLUSIVE)
    assert ("noise band" in got["note"]) == (outcome == INCONCLUSIVE)


@pytest.mark.parametrize("first, last, outcome", [
    (304.0, 2.3, True),            # the paper: CUDA total 304x slower, converging to 1
    (0.183, 0.00268, False),       # ours: the GPU 5.5x faster, then 373x: the gap grows
    (0.2, 0.9, True),              # the faster side's lead shrinks
    (2.0, 0.5, INCONCLUSIVE),      # as far from 1 on the other side
])
def test_liu_gap_shrinks_when_the_ratio_moves_toward_one(first, last, outcome):
    assert liu_claims.gap_shrinks(first, last) == outcome
    cells = {(1250, 16): (1.0, 0.4, 0.01, 0.4 * first), (40000, 16): (100.0, 38.5, 0.004, 38.5 * last)}
    assert _one(_liu(cells=cells), "the gap between")["holds"] == outcome


# ------------------------------------------------------------------ bodra
def _bodra(times, repeats=1, spread=0.0):
    rows = [dict(experiment="table1", graph="NY", method=m, time_ms_median=t, time_ms_min=t * (1 - spread),
                 repeats=repeats, skipped="") for m, t in times.items()]
    return bodra_claims.verdicts(pd.DataFrame(rows))


@pytest.mark.parametrize("stride, naive, repeats, spread, outcome", [
    (3000.0, 1000.0, 1, 0.0, True),
    (500.0, 1000.0, 1, 0.0, False),
    (2552.3, 2555.8, 1, 0.0, INCONCLUSIVE),  # the paper profile's NY: 0.14 % apart
    (1300.0, 1000.0, 5, 0.2, INCONCLUSIVE),  # clear of the default band, inside the repeats' 40 %
])
def test_bodra_stride_is_slower_on_the_smallest_graph(stride, naive, repeats, spread, outcome):
    got = _one(_bodra({"bf_stride": stride, "bf_naive": naive, "bf_stride_flag": 300.0}, repeats, spread),
               "the strided version")
    assert got["holds"] == outcome and (got["holds"] is outcome or outcome == INCONCLUSIVE)


@pytest.mark.parametrize("flag, outcome", [(1000 / 2.8, True), (1000 / 1.2, False), (1000 / 1.9, INCONCLUSIVE)])
def test_bodra_flag_against_naive_lies_in_its_range(flag, outcome):
    got = _one(_bodra({"bf_naive": 1000.0, "bf_stride": 1500.0, "bf_stride_flag": flag}), "Bellman-Ford stride")
    assert got["holds"] == outcome


@pytest.mark.parametrize("author_over_ours, outcome", [(2.0, True), (0.9, False), (1.02, INCONCLUSIVE)])
def test_bodra_speed_requirement(author_over_ours, outcome):
    speed = pd.DataFrame({"n": [4096], "author device": ["NVIDIA H100"], "our device": [H100],
                          "ours ms (with copies)": [62 / author_over_ours],
                          "author / ours (with copies)": [author_over_ours]})
    assert bodra_claims.speed_verdict(speed)["holds"] == outcome


# ------------------------------------------------------------------ pandey
def _t1(rows):
    """Table 1 rows (n, speedup over serial RK, serial extrapolated)."""
    return pd.DataFrame([{"n": n, "speedup RK vs serial RK": s, "speedup RK vs serial FW": 2 * s,
                          "serial extrapolated": e, "paper NVIDIA GT 630M": np.nan} for n, s, e in rows])


def _pandey(t1=None, thr=None, rv=None):
    t1 = _t1([(64, 2.0, False), (1024, 100.0, False)]) if t1 is None else t1
    rv = pd.DataFrame({"n": [64], "FW / RK": [3.0], "FW / RK (paper kernel)": [2.0]}) if rv is None else rv
    thr = pd.DataFrame(columns=["n", "threshold", "ms (CUDA graph)"]) if thr is None else thr
    from apsp_kernels.experiments.pandey import config
    return pandey_claims.verdicts(t1, rv, pd.DataFrame(columns=["ok"]), {}, thr,
                                  pd.DataFrame(columns=["what", "n"]), {}, config("default"))


@pytest.mark.parametrize("measured_max, outcome", [(500.0, True), (100.0, False), (460.0, INCONCLUSIVE)])
def test_pandey_up_to_headlines_the_measured_rows_not_the_extrapolated_ones(measured_max, outcome):
    got = _one(_pandey(_t1([(64, 2.0, False), (4096, measured_max, False), (16384, 3000.0, True)])), "up to 475x")
    assert got["holds"] == outcome
    assert got["measured"].startswith(f"{measured_max:.3g}x over serial RK at n = 4096")
    assert "(measured rows)" in got["measured"] and "3e+03x at n = 16384 with n^3-extrapolated" in got["note"]


def test_pandey_up_to_uses_extrapolated_rows_only_when_nothing_else_was_measured():
    got = _one(_pandey(_t1([(4096, 600.0, True), (16384, 3000.0, True)])), "up to 475x")
    assert got["holds"] is True and "(extrapolated rows only)" in got["measured"]


@pytest.mark.parametrize("rows, outcome", [
    ([(64, 2.0, False), (1024, 100.0, False), (4096, 1.0, True)], True),  # the trend of the measured rows
    ([(64, 100.0, False), (1024, 2.0, False), (4096, 3000.0, True)], False),
    ([(64, 100.0, False), (1024, 102.0, False)], INCONCLUSIVE),
])
def test_pandey_speedup_grows_over_the_measured_rows(rows, outcome):
    assert _one(_pandey(_t1(rows)), "the speedup grows")["holds"] == outcome


@pytest.mark.parametrize("ms, outcome", [((10.0, 9.0, 11.0), True), ((10.0, 14.0, 9.0), False),
                                         ((10.0, 9.2, 9.0), INCONCLUSIVE)])
def test_pandey_base_case_of_8_or_16_is_a_good_stopping_point(ms, outcome):
    thr = pd.DataFrame({"n": [4096] * 3, "threshold": [8, 16, 32], "ms (CUDA graph)": list(ms)})
    assert _one(_pandey(thr=thr), "a base case")["holds"] == outcome


@pytest.mark.parametrize("ratios, outcome", [([3.0, 5.0], True), ([0.5, 5.0], False), ([0.98, 5.0], INCONCLUSIVE)])
def test_pandey_rkleene_beats_fw(ratios, outcome):
    rv = pd.DataFrame({"n": [64, 128], "FW / RK": ratios, "FW / RK (paper kernel)": ratios})
    assert _one(_pandey(rv=rv), "R-Kleene takes less time")["holds"] == outcome


# ------------------------------------------------------------------ okuyama
def _summary(by_n=None, low=1.0, median=1.0, high=1.0):
    by_n = by_n or {1024: 1.0, 65536: 1.0}
    return {"count": len(by_n), "min": low, "median": median, "max": high, "by_n": by_n}


def _ratios(**overrides):
    s = {"proposed vs Harish": _summary(low=3.0, median=10.0, high=13.0),
         "shared vs unshared": _summary(low=1.2, median=1.3, high=1.4),
         "unshared vs Harish": _summary(low=2.5, median=8.0, high=12.0),
         "fig10 proposed": _summary({1024: 13.0, 65536: 3.0}),
         "fig10 task-parallel": _summary({1024: 10.0, 65536: 3.0}),
         "fig10 shared": _summary({1024: 1.1, 65536: 1.4})}
    return okuyama_claims.ratio_verdicts({**s, **overrides})


def test_okuyama_ratio_claims_all_hold_on_the_papers_shape():
    assert all(v["holds"] is True for v in _ratios())


@pytest.mark.parametrize("key, summary, prefix, outcome", [
    ("proposed vs Harish", _summary(low=1.5), "proposed is", False),
    ("proposed vs Harish", _summary(low=2.73), "proposed is", INCONCLUSIVE),
    ("unshared vs Harish", _summary(low=1.99), "the unshared version", INCONCLUSIVE),
    ("shared vs unshared", _summary(median=0.97), "shared memory speeds", False),
    ("fig10 proposed", _summary({1024: 14.0, 4096: 28.0}), "the speedup over Harish is largest", False),
    ("fig10 proposed", _summary({1024: 14.0, 4096: 14.2}), "the speedup over Harish is largest", INCONCLUSIVE),
    ("fig10 task-parallel", _summary({1024: 10.0, 65536: 20.0}), "the task-parallel advantage", False),
    ("fig10 task-parallel", _summary({1024: 10.0, 65536: 9.9}), "the task-parallel advantage", INCONCLUSIVE),
    ("fig10 shared", _summary({1024: 1.0, 65536: 0.9}), "the shared-memory advantage", False),
])
def test_okuyama_ratio_claims_fail_and_go_inconclusive(key, summary, prefix, outcome):
    assert _one(_ratios(**{key: summary}), prefix)["holds"] == outcome


def _t1_records(cpu_ms, rustworkx_ms, gpu_ms, cfg):
    name = okuyama_claims.graph("random", cfg["table1_n"], cfg["table1_m"], cfg["table1_wmax"], cfg["seed"]).name
    return [Record(paper="okuyama", experiment="table1", method=m, graph=name, n=cfg["table1_n"], m=cfg["table1_m"],
                   params={}, time_ms_median=t, time_ms_min=t, repeats=1, timing_scope="kernel", verified=True,
                   stats='{"threads": 64}')
            for m, t in (("dijkstra_cpu", cpu_ms), ("dijkstra_rustworkx", rustworkx_ms),
                         ("task_parallel_unshared", gpu_ms))]


@pytest.mark.parametrize("cpu, rustworkx, outcome", [(151.7, 112.4, True), (151.7, 50.0, False),
                                                      (151.7, 98.0, INCONCLUSIVE)])
def test_okuyama_goal_is_against_the_best_cpu_row_rustworkx_included(cpu, rustworkx, outcome):
    from apsp_kernels.experiments.okuyama import config
    cfg = config("default")
    verdict, goal = okuyama_claims.goal_verdict(_t1_records(cpu, rustworkx, 10.0, cfg), cfg)
    assert verdict["holds"] == outcome and goal["cpu_method"] == "dijkstra_rustworkx"


@pytest.mark.parametrize("cpu, gpu, outcome", [(0.05, 0.9, True), (1.0, 0.5, False), (0.5, 0.51, INCONCLUSIVE)])
def test_okuyama_cpu_is_fastest_on_the_ring(cpu, gpu, outcome):
    from apsp_kernels.experiments.okuyama import config
    f1 = pd.DataFrame([dict(method=m, topology="ring", time_s=t, iterations_per_sssp_mean=np.nan)
                       for m, t in (("dijkstra_cpu", cpu), ("harish", gpu))])
    got = _one(okuyama_claims.table1_verdicts(f1, config("default")), "Table 1: the CPU is fastest")
    assert got["holds"] == outcome


@pytest.mark.parametrize("worst_pct, outcome", [(2.0, True), (20.0, False), (7.98, INCONCLUSIVE)])
def test_okuyama_path_overhead_at_most_the_papers(worst_pct, outcome):
    o14 = pd.DataFrame({"n": [1024, 4096], "overhead_pct": [1.0, worst_pct]})
    claims = report.published("okuyama", "claims").set_index("claim")
    assert okuyama_claims.fig14_verdict(o14, claims)["holds"] == outcome


# ------------------------------------------------------------------ takafuji
def _summ1(speedups, t16384_ms=500.0):
    ns = [64, 256, 2048, 16384][:len(speedups)]
    return pd.DataFrame({"n": ns, "speedup": speedups, "best_multi_ms": [t16384_ms * s for s in speedups],
                         "best_single_ms": [t16384_ms] * len(ns), "best_Tops": 9.0, "best_pct_of_peak": 60.0,
                         "device": H100})


@pytest.mark.parametrize("speedups, outcome", [([1.3, 1.2, 1.06, 1.1], True), ([1.3, 1.2, 0.8, 1.1], False),
                                               ([1.3, 1.2, 0.99, 1.1], INCONCLUSIVE)])
def test_takafuji_single_is_faster_for_every_n(speedups, outcome):
    assert _one(takafuji_claims.table1_verdicts(_summ1(speedups)), "the single kernel is faster")["holds"] == outcome


@pytest.mark.parametrize("speedups, outcome", [([1.3, 1.2, 1.05, 1.05], True), ([1.0, 1.0, 1.3, 1.3], False),
                                               ([1.1, 1.1, 1.09, 1.09], INCONCLUSIVE)])
def test_takafuji_gain_is_largest_for_small_n(speedups, outcome):
    assert _one(takafuji_claims.table1_verdicts(_summ1(speedups)), "the gain is largest")["holds"] == outcome


@pytest.mark.parametrize("ms, outcome", [(500.0, True), (1200.0, False), (990.0, INCONCLUSIVE)])
def test_takafuji_goal_at_16384(ms, outcome):
    got = _one(takafuji_claims.table1_verdicts(_summ1([1.1] * 4, ms)), "best Table I time")
    assert got["holds"] == outcome


def test_takafuji_goal_is_not_judged_off_its_gpu():
    got = _one(takafuji_claims.table1_verdicts(_summ1([1.1] * 4).assign(device="NVIDIA H200")), "best Table I time")
    assert got["holds"] is None and "not judged" in got["note"]


def _sp2(speedups, single_ms=200.0):
    return pd.DataFrame({"instances": [2048] * len(speedups), "n": [1024] + [64] * (len(speedups) - 1),
                         "multi_ms": [single_ms * s for s in speedups], "single_ms": single_ms,
                         "speedup": speedups, "best_Tops": 9.0, "best_pct_of_peak": 60.0, "device": H100})


@pytest.mark.parametrize("speedups, outcome", [([1.2] * 10, True), ([1.2] * 5 + [0.8] * 5, False),
                                               ([1.2] * 8 + [1.01] * 2, INCONCLUSIVE)])
def test_takafuji_bulk_single_faster_in_nine_of_ten_cells(speedups, outcome):
    assert _one(takafuji_claims.table2_verdicts(_sp2(speedups)), "bulk: the single")["holds"] == outcome


@pytest.mark.parametrize("ms, outcome", [(200.0, True), (300.0, False), (239.0, INCONCLUSIVE)])
def test_takafuji_bulk_goal(ms, outcome):
    assert _one(takafuji_claims.table2_verdicts(_sp2([1.2], ms)), "bulk m = 2048")["holds"] == outcome
