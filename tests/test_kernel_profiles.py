"""Parsing Nsight Compute's CSV (apsp_kernels.experiments.kernel_profiles) and the no-ncu path."""
import pandas as pd

from apsp_kernels.experiments import kernel_profiles as kp

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
          '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')


def line(metric, unit, value):
    return f'"0","1","python3","h","minplus_fast_t128k32_i32","1","7","(256, 1, 1)","(64, 64, 1)","0","9.0",' \
           f'"GPU Speed Of Light Throughput","{metric}","{unit}","{value}"\n'


def test_parse_takes_the_first_kernel_and_converts_units():
    text = ("==PROF== Connected to process 1\n" + HEADER + line("Duration", "msecond", "37.10")
            + line("Compute (SM) Throughput", "%", "91.81") + line("Memory Throughput", "%", "34.28")
            + line("Registers Per Thread", "register/thread", "128"))
    row = kp.parse_ncu_csv(text)
    assert row["kernel"] == "minplus_fast_t128k32_i32"
    assert row["duration_us"] == 37100.0 and row["sm_throughput_pct"] == 91.81
    assert row["registers_per_thread"] == 128 and "dram_throughput_pct" not in row


def test_percent_columns_take_the_percent_row_and_hit_rates_are_read():
    text = (HEADER + line("Memory Throughput", "Gbyte/second", "2500") + line("Memory Throughput", "%", "81.5")
            + line("L2 Hit Rate", "%", "42.0") + line("L1/TEX Hit Rate", "%", "3.5"))
    row = kp.parse_ncu_csv(text)
    assert row["memory_throughput_pct"] == 81.5 and row["l2_hit_rate_pct"] == 42.0
    assert row["l1_hit_rate_pct"] == 3.5


def test_without_ncu_every_target_says_why(monkeypatch):
    monkeypatch.setattr(kp, "ncu_path", lambda: None)
    table = kp.collect()
    assert list(table["target"]) == list(kp.DEFAULT_TARGETS)
    assert "sweep_reductions_ny" not in kp.DEFAULT_TARGETS and set(kp.CONTINENT_TARGETS) <= set(kp.TARGETS)
    assert "phast_down_ny" in set(table["target"]) and "phast_down_4m" not in set(table["target"])
    assert table["skipped"].str.contains("not on this host's PATH").all()
    fig = kp.figure(pd.DataFrame({"target": ["a"], "skipped": [""], "sm_throughput_pct": [90.0],
                                  "memory_throughput_pct": [30.0]}))
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["a"]


def test_no_metrics_table_is_an_error():
    import pytest
    with pytest.raises(ValueError, match="no metrics"):
        kp.parse_ncu_csv("==ERR== profiling failed\n")


def test_the_limiter_is_the_throughput_near_its_peak_else_latency():
    assert kp.limiter({"sm_throughput_pct": 31.0, "memory_throughput_pct": 79.0}) == "memory"
    assert kp.limiter({"sm_throughput_pct": 92.0, "memory_throughput_pct": 34.0}) == "compute"
    assert kp.limiter({"sm_throughput_pct": 50.0, "memory_throughput_pct": 18.0,
                       "achieved_occupancy_pct": 24.5}) == "latency (24 % occupancy)"
    assert kp.limiter({"skipped": "no ncu"}) == ""
