"""The batched-PHAST benchmark's host parts (apsp_kernels/experiments/phast_batched.py): the bytes
of a K-wide sweep per tree, the row check against Dijkstra (it must fail on a wrong row), the CLI."""
import pandas as pd
import pytest

from apsp_kernels import generators
from apsp_kernels.experiments import phast_batched as bench
from apsp_kernels.sssp_hierarchy import layout as L


def test_bytes_per_tree_share_the_graph_over_k_trees():
    g = generators.road_like(3000, 7000, seed=1)
    lay = L.layout(L.hierarchy_of(g)[0])
    one = bench.sweep_bytes_per_tree(lay, 32, 4)
    assert one == lay.down_bytes() / 32 + (g.n + len(lay.down[1])) * 4
    assert bench.sweep_bytes_per_tree(lay, 256, 4) < one


def test_row_check_passes_the_reference_and_fails_a_wrong_row():
    g = generators.road_like(2000, 4800, seed=2)
    lay = L.layout(L.hierarchy_of(g)[0])
    sources = [0, 17, 1999]
    rows = L.batched_sweeps_on_host(lay, sources, 32, g.inf)
    assert bench.check_rows(g, rows, sources)
    rows[1, 5] += 1
    assert not bench.check_rows(g, rows, sources)
    rows[1, 5] = g.inf
    assert not bench.check_rows(g, rows, sources)


def test_the_cli_needs_an_output_folder():
    with pytest.raises(SystemExit):
        bench._cli([])


def test_decision_rows_take_verified_originals_and_replace_their_own(tmp_path):
    import pandas as pd
    from apsp_kernels.csgraph import auto
    ends = [{"graph": "USA-road-d.NY", "n": 264346, "m": 730100, "K": 32, "sweeps_s": 0.5, "verified": True,
             "stand_in": False},
            {"graph": "stand-in", "n": 10, "m": 20, "K": 32, "sweeps_s": 0.1, "verified": True, "stand_in": True},
            {"graph": "bad", "n": 11, "m": 20, "K": 32, "sweeps_s": 0.1, "verified": False, "stand_in": False}]
    rows = bench.decision_rows(ends, "GPU X")
    assert list(rows["n"]) == [264346] and rows["time_ms"].iloc[0] == 500.0 and list(rows.columns) == auto.COLUMNS
    path = tmp_path / "t.csv"
    row = rows.iloc[0].to_dict()
    pd.DataFrame([{**row, "time_ms": 9e9}, {**row, "method": "x:y", "time_ms": 7.0}]).to_csv(path, index=False)
    table = bench.into_decision_table(rows, path)
    assert sorted(table["time_ms"]) == [7.0, 500.0] and set(table["method"]) == {"fast:phast_batched", "x:y"}


def test_the_scale_notebook_helpers_judge_on_the_h100_only_and_plot_k(tmp_path):
    import pandas as pd
    from apsp_kernels import report
    from apsp_kernels.experiments import scale as sc
    ends = pd.DataFrame([{"graph": "NY", "sources": 264346, "wall_s": 1.5, "sweeps_s": 0.6,
                          "reductions_s": 0.9, "preprocessing_s": 1.4, "verified": True, "stand_in": False},
                         {"graph": "BAY", "sources": 321270, "wall_s": 3.5, "sweeps_s": 1.0,
                          "reductions_s": 2.5, "preprocessing_s": 2.0, "verified": True, "stand_in": False}])
    sc.phast_verdicts(tmp_path, ends, device=report.GOAL_GPU)
    v = pd.read_csv(tmp_path / "verdicts.csv").set_index("claim")["verdict"].to_dict()
    assert sorted(v.values()) == ["does not hold", "does not hold", "holds"]  # BAY 3.5 > 3, contraction 1.4 > 1
    sc.phast_verdicts(tmp_path / "h200", ends, device="NVIDIA H200")
    v = pd.read_csv(tmp_path / "h200" / "verdicts.csv")["verdict"].tolist()
    assert v.count("not tested") == 2  # the goals in seconds; the contraction is the host's
    per_tree = pd.DataFrame([{"graph": "NY", "K": k, "columns": c, "us_per_tree": 3.0 / k ** 0.3 + c * 1e-5,
                              "bound_us_per_tree": 1.0 / k ** 0.1} for k in (32, 64, 128, 256) for c in (1024, 4096)])
    fig = sc.phast_figure(per_tree)
    assert len(fig.axes) == 1 and len(fig.axes[0].lines) == 3


def test_projection_grows_the_largest_time_as_the_hierarchy_grew():
    assert bench.projected_seconds([], 1 << 24) is None
    assert bench.projected_seconds([(1 << 20, 4.0, 7e6)], 1 << 24) is None
    # the arcs of a road-like hierarchy grow linearly; a noisy 4M time does not make the law steeper
    seconds, how = bench.projected_seconds([(1 << 18, 0.1, 1.7e6), (1 << 20, 2.0, 7e6), (1 << 22, 45.5, 28e6)], 1 << 24)
    assert seconds == pytest.approx(45.5 * 4) and "n^1.00" in how and "4,194,304-vertex stand-in's 45.5 s" in how
    assert "from the 1,048,576- to the 4,194,304-vertex one" in how
    seconds, how = bench.projected_seconds([(1 << 20, 4.0, 1e6), (1 << 22, 64.0, 16e6)], 1 << 24)  # arcs as n^2
    assert seconds == pytest.approx(64.0 * 16) and "n^2.00" in how
    seconds, how = bench.projected_seconds([(1000, 2.0, 8000), (2000, 1.0, 12000)], 4000)  # never below linear
    assert seconds == pytest.approx(2.0) and "n^1.00" in how


def test_stand_ins_skip_a_size_projected_beyond_the_budget_and_say_why(monkeypatch):
    ran = []

    def fake_run(n, log=print, **kw):
        ran.append(n)
        return {"graph": bench.stand_in_name(n), "n": n, "generate_s": n / (1 << 20),
                "preprocessing_s": 3.0 * (n / (1 << 20)) ** 2, "m": 2.5 * n, "shortcuts": 8 * n * n / (1 << 20),
                "verified": True}

    monkeypatch.setattr(bench, "stand_in_run", fake_run)
    lines = []
    frame = bench.stand_ins([1 << 24, 1 << 20, 1 << 22], preprocessing_budget_s=600, log=lines.append)
    assert ran == [1 << 20, 1 << 22]  # 1M: 4 s, 4M: 52 s measured, arcs grown 13x: 16M projected at about 680 s
    skipped = frame.iloc[2]
    assert skipped["graph"] == "roadlike-rivers-16M" and skipped["n"] == 1 << 24 and skipped["m"] == 41943040
    assert skipped["all_sources"].startswith("not run: generation and contraction projected at")
    assert "beyond the budget of 600 s" in skipped["all_sources"] and pd.isna(skipped["verified"])
    assert lines and "roadlike-rivers-16M: not run" in lines[0]
    assert frame["verified"].dropna().all()
    assert len(bench.stand_ins([1 << 24, 1 << 20, 1 << 22], log=lines.append)) == 3 and ran[-1] == 1 << 24
