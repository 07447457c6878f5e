"""The fast paths' targets table (apsp_kernels.experiments.peak_targets) from given records."""
import json

import numpy as np

from apsp_kernels import report
from apsp_kernels.experiments import peak_targets as pt
from apsp_kernels.records import Record


def rec(key, graph, ms, verified=True, stats=None, m=0, device=report.GOAL_GPU):
    paper, method = key.split(":")
    return Record(paper=paper, experiment="x", method=method, graph=graph, n=0, m=m, time_ms_median=ms,
                  verified=verified, stats=json.dumps(stats or {}), device=device)


PEAKS = {"minplus_int32_per_s": 16e12, "minplus_float32_per_s": 15e12, "product_int32_n4096_per_s": 14e12,
         "product_int32_n8192_per_s": 14.5e12, "product_per_s": 14.5e12}


def test_targets_met_and_missed_with_ratios():
    apsp = [rec("fast:rkleene", "4-regular-8192", 30.0), rec("fast:rkleene", "4-regular-32768", 2400.0)]
    sssp = [rec("fast:sssp_worklist", "NY", 6.0, stats={"relaxations": 10, "work_vs_dijkstra": 2.5}, m=4),
            rec("liu:sssp_spmv", "NY", 12.0),
            rec("fast:sssp_phast", "NY", 2.0, stats={"levels": 397, "shortcuts": 1892506, "preprocessing_s": 28.6})]
    extra = [rec("fast:rkleene", "4-regular-16384-f32", 400.0), rec("fast:multi_source", "random-4677", 2.0),
             rec("okuyama:dijkstra_rustworkx", "random-4677", 400.0)]
    t = pt.table(apsp, sssp, PEAKS, extra, depths={"NY": 1200}).set_index("target")

    product = t.loc["(min,+) product alone, int32, n >= 4096"]
    assert np.isclose(product["ratio"], 14.5 / 16) and bool(product["met"])
    assert bool(t.loc["dense APSP int32, n = 8192", "met"])
    assert not bool(t.loc["dense APSP int32, n = 32768", "met"])
    assert np.isclose(t.loc["dense APSP int32, n = 32768", "ratio"], 32768 ** 3 / 2.4 / 16e12)
    ny = t.loc["SSSP from vertex 0 of NY"]
    assert not bool(ny["met"]) and np.isclose(ny["ratio"], 2.0) and "2.50 x m log2 n, 2.5 per arc" in ny["note"]
    assert "1,200 arcs long: 5.00 us per arc in sequence, 2.50 us for the goal" in ny["note"]
    phast = t.loc["SSSP from vertex 0 of NY, PHAST"]
    assert bool(phast["met"]) and np.isclose(phast["ratio"], 3.0) and "fast:sssp_worklist 6.00 ms" in phast["versus"]
    assert "397 levels, 1,892,506 shortcuts; the contraction (28.6 s on the host" in phast["note"]
    assert "compiled" not in phast["note"]  # no compile_s in its stats
    assert t.loc["SSSP from vertex 0 of BAY", "measured"] == "not measured"
    assert "SSSP from vertex 0 of BAY, PHAST" not in t.index
    assert bool(t.loc["sparse APSP, okuyama random 4677 / 16K", "met"])
    f32 = t.loc["dense APSP float32, n = 16384"]
    assert np.isclose(f32["ratio"], 16384 ** 3 / 0.4 / 15e12) and not bool(f32["met"])


def test_the_phast_note_names_numbas_compile_apart_from_the_contraction():
    sssp = [rec("fast:sssp_worklist", "NY", 6.0), rec("liu:sssp_spmv", "NY", 12.0),
            rec("fast:sssp_phast", "NY", 2.0, stats={"levels": 373, "shortcuts": 1981654, "preprocessing_s": 0.31,
                                                     "compile_s": 41.2})]
    note = pt.table([], sssp, PEAKS, []).set_index("target").loc["SSSP from vertex 0 of NY, PHAST", "note"]
    assert ("the contraction (0.3 s on the host, once per graph; numba compiled it first, once per process, "
            "in 41.2 s) is not in the time") in note


def test_goals_in_milliseconds_are_judged_only_on_the_gpu_they_were_set_for():
    other = "NVIDIA H200"
    apsp = [rec("fast:rkleene", "4-regular-8192", 30.0, device=other)]
    sssp = [rec("fast:sssp_worklist", "NY", 6.0, device=other), rec("liu:sssp_spmv", "NY", 12.0, device=other)]
    extra = [rec("fast:multi_source", "random-4677", 2.0, device=other),
             rec("okuyama:dijkstra_rustworkx", "random-4677", 400.0, device=other)]
    t = pt.table(apsp, sssp, PEAKS, extra).set_index("target")
    for target in ("dense APSP int32, n = 8192", "SSSP from vertex 0 of NY"):
        assert t.loc[target, "met"] is None
        assert f"goal set for an {report.GOAL_GPU}; measured on {other}, so not judged" in t.loc[target, "note"]
    assert t.loc["dense APSP int32, n = 8192", "measured"] == "30.0 ms"
    assert bool(t.loc["sparse APSP, okuyama random 4677 / 16K", "met"])  # a ratio to a peer: judged anywhere
    assert report.timed_goal(True, report.GOAL_GPU) == (True, "")
    assert report.timed_goal(False, report.GOAL_GPU) == (False, "")
    assert report.timed_goal(True, "")[0] is None


def test_unverified_runs_do_not_count():
    apsp = [rec("fast:rkleene", "4-regular-8192", 1.0, verified=False)]
    t = pt.table(apsp, [], PEAKS, []).set_index("target")
    assert t.loc["dense APSP int32, n = 8192", "measured"] == "not measured"


def test_road_depth_is_the_longest_chain_of_tight_arcs():
    from apsp_kernels import generators, oracle
    from apsp_kernels.graph import Graph

    assert oracle.fewest_arcs(generators.ring(7), 0).max() == 6
    # 0 -> 2 directly (w 5) ties 0 -> 1 -> 2 (w 2 + 3): the fewest arcs is 1; 3 is unreachable
    g = Graph.from_edges(4, np.array([0, 0, 1]), np.array([2, 1, 2]), np.array([5, 2, 3]))
    assert list(oracle.fewest_arcs(g, 0)) == [0, 1, 1, -1]
    # a cheaper path with more arcs is the shortest one: its arcs count
    g = Graph.from_edges(3, np.array([0, 0, 1]), np.array([2, 1, 2]), np.array([9, 2, 3]))
    assert list(oracle.fewest_arcs(g, 0)) == [0, 1, 2]


def test_road_depths_name_each_road():
    depths = pt.road_depths(["NY"])  # the DIMACS file, or its labelled stand-in offline
    assert set(depths) == {"NY"} and depths["NY"] > 100  # 1,199 on USA-road-d.NY
