"""The library notebook's transfer table and parity rows (experiments/transfers.py, parity.py), on the CPU."""
import networkx as nx
import numpy as np
import pytest

from apsp_kernels.experiments import parity, transfers
from apsp_kernels.records import Record


def rec(method, ms, verified=True, skipped="", **stats):
    r = Record(paper="library", experiment="transfers", method=method, graph="random-4677", n=4677, m=16384,
               timing_scope="cpu" if method in ("scipy", "rustworkx") else "with_transfers", device="test",
               stats={"threads": 16, **stats})
    r.time_ms_median, r.verified, r.skipped = ms, verified, skipped
    return r


def run_of(numpy_ms, numpy_ok=True, rx_ms=471.0):
    return [rec("scipy", 5000.0), rec("rustworkx", rx_ms), rec("kernel", 2.31), rec("copy: page-locked", 3.3),
            rec("cupy out", 8.6), rec("numpy out", numpy_ms, verified=numpy_ok)]


@pytest.fixture
def on_gpu(monkeypatch):
    monkeypatch.setattr(transfers.gpu, "available", lambda: True)


def test_transfer_verdicts_judge_both_goals(on_gpu):
    fast, slow = transfers.verdicts(run_of(9.0)), transfers.verdicts(run_of(64.0))
    assert [v["holds"] for v in fast] == [True, True]  # 9 <= 1.5 x 11.9; 471 / 9 = 52x
    assert [v["holds"] for v in slow] == [False, False]
    assert "64.00 ms vs 8.60 + 3.30 ms: 5.38x" == slow[0]["measured"]
    middle = transfers.verdicts(run_of(12.0))
    assert [v["holds"] for v in middle] == [True, False]  # 39x rustworkx


def test_an_unverified_result_never_holds(on_gpu):
    out = transfers.verdicts(run_of(9.0, numpy_ok=False))
    assert [v["holds"] for v in out] == [False, False] and "differs from SciPy" in out[0]["note"]


def test_without_gpu_or_rustworkx_the_goals_are_not_tested(monkeypatch):
    monkeypatch.setattr(transfers.gpu, "available", lambda: False)
    assert all(v["holds"] is None for v in transfers.verdicts(run_of(9.0)))
    monkeypatch.setattr(transfers.gpu, "available", lambda: True)
    recs = run_of(9.0)
    recs[1] = rec("rustworkx", float("nan"), verified=False, skipped="rustworkx is not installed")
    second = transfers.verdicts(recs)[1]
    assert second["holds"] is None and "not installed" in second["note"]


def test_transfer_table_orders_rows_and_gives_the_ratios():
    table = transfers.table(run_of(9.0)[::-1])
    assert list(table["what"]) == ["kernel", "copy: page-locked", "cupy out", "numpy out", "scipy", "rustworkx"]
    row = table.set_index("what").loc["numpy out"]
    assert row["over_kernel"] == pytest.approx(9.0 / 2.31) and row["rustworkx_over_this"] == pytest.approx(471 / 9)


def test_measure_on_the_cpu_checks_numpy_out_and_skips_the_gpu_rows():
    cfg = {**transfers.config("smoke"), "n": 96, "m": 400, "repeats": 1}
    recs = transfers.measure(cfg)
    by = {r.method: r for r in recs}
    for mode in ("numpy out", "numpy out, first call", "numpy out, staged", "numpy out, pageable (before)"):
        assert by[mode].verified and by[mode].time_ms_median > 0 and by[mode].max_error == 0
    assert by["scipy"].verified and all(by[m].skipped for m in ("kernel", "copy: page-locked", "cupy out"))


def test_check_paths_catches_a_wrong_path():
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 2), (1, 2, 3), (0, 2, 9), (2, 3, 1)])
    want, paths = nx.single_source_dijkstra(G, 0)
    assert parity.check_paths(G, 0, want, paths, want, 10)[0]
    for broken in ({**paths, 3: [0, 2, 3]},          # a real path, but not the length given
                   {**paths, 3: [0, 3]},             # an arc G lacks
                   {**paths, 3: [1, 2, 3]}):         # not from the source
        assert not parity.check_paths(G, 0, want, broken, want, 10)[0]
    assert not parity.check_paths(G, 0, {**want, 3: 7}, paths, want, 10)[0]
    assert not parity.check_paths(G, 0, {k: v for k, v in want.items() if k != 3}, paths, want, 10)[0]


def test_close_is_relative_and_needs_the_same_unreachable_pattern():
    want = np.array([[0.0, 1e6, np.inf]])
    assert parity.close(want * (1 + 1e-13), want, 1e-12)[0]
    assert not parity.close(want * (1 + 1e-7), want, 1e-12)[0]
    assert not parity.close(np.array([[0.0, 1e6, 5.0]]), want, 1e-12)[0]


def test_float64_row_is_skipped_when_the_default_path_is_not_float64(monkeypatch):
    import apsp_kernels
    cfg = {**parity.config("smoke"), "dense_n": 48}
    real = apsp_kernels.shortest_path
    recs = {r.method: r for r in parity.float64_rows(cfg)}
    assert recs["float64"].verified and not recs["float64"].skipped and recs["float32"].verified

    def float32_default(A, **kw):
        out = real(A, **kw)
        return out if not hasattr(A, "nnz") else out.astype(np.float32).astype(np.float64)
    monkeypatch.setattr(apsp_kernels, "shortest_path", float32_default)
    recs = {r.method: r for r in parity.float64_rows(cfg)}
    assert recs["float64"].skipped.startswith("the default path did not give float64 distances")
    assert np.isnan(recs["float64"].time_ms_median)
    table = parity.float64_table(list(recs.values()), (float("nan"), "no CUDA GPU in this run"))
    assert np.isnan(table.set_index("implementation").loc["float64", "time_ms"])
