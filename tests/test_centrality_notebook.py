"""The centrality notebook's driver (apsp_kernels.experiments.centrality and its modules) on tiny road-like
graphs, on the CPU; one GPU test runs the same on the device."""
import json
import random
import sys

import networkx as nx
import numpy as np
import pytest

from apsp_kernels import report
from apsp_kernels.datasets import needs
from apsp_kernels.experiments import centrality as cen
from apsp_kernels.experiments import centrality_claims as claims
from apsp_kernels.experiments import centrality_first_call as first
from apsp_kernels.experiments import centrality_peers as peers
from apsp_kernels.experiments import centrality_tables as tables
from apsp_kernels.experiments.centrality_inputs import inputs, max_relative, reference
from apsp_kernels.profiles import PROFILES
from apsp_kernels.records import Record
from test_nx_backend import require_backend

TINY = {"key": "ny", "graph": {"kind": "road_like", "n": 120, "m": 320, "for": "USA-road-d.NY"}}


def test_config_per_profile():
    cfgs = {p: cen.config(p) for p in PROFILES}
    smoke, default, paper = cfgs["smoke"], cfgs["default"], cfgs["paper"]
    assert [c["key"] for c in default["graphs"]] == ["ny", "bay"] == [c["key"] for c in smoke["graphs"]]
    assert [c["graph"] for c in default["graphs"]] == [{"kind": "dataset", "name": "NY"},
                                                       {"kind": "dataset", "name": "BAY"}]
    assert all(c["graph"]["kind"] == "road_like" and c["graph"]["n"] <= 400 for c in smoke["graphs"])
    assert needs.needed(["centrality"], "smoke") == [] and needs.needed(["centrality"], "default") == ["NY", "BAY"]
    assert smoke["every_source_on_host"] and not default["every_source_on_host"] and not paper["every_source_on_host"]
    assert default["peer_sources"] == {"networkit": 256, "igraph": 16, "networkx": 4}
    assert paper["peer_sources"] == {"networkit": 2048, "igraph": 64, "networkx": 8}
    assert smoke["first_call"]["scenarios"] == () and smoke["first_call"]["skip"]
    assert default["first_call"]["scenarios"] == ("cold",) and default["first_call"]["graph"]["name"] == "NY"


def test_max_relative_difference():
    assert max_relative([1.0, 0.0, np.inf], [1.0, 0.0, np.inf]) == 0
    assert max_relative([1.0 + 1e-12], [1.0]) == pytest.approx(1e-12, rel=1e-3)
    assert max_relative([1e-300], [0.0]) == np.inf and max_relative([np.nan], [1.0]) == np.inf
    assert max_relative([1.0, 2.0], [1.0]) == np.inf  # shapes differ


def test_reference_is_networkxs_definitions():
    g, A, G = inputs(TINY["graph"])
    vertices = np.array([0, 17, 101])
    want = reference(A, vertices)
    for i, v in enumerate(vertices.tolist()):
        assert want["closeness"][i] == nx.closeness_centrality(G, u=v, distance="weight", backend="networkx")
        assert want["eccentricity"][i] == nx.eccentricity(G, v=v, weight="weight", backend="networkx")
    harmonic = nx.harmonic_centrality(G, distance="weight", backend="networkx")
    assert max_relative(want["harmonic"], [harmonic[v] for v in vertices.tolist()]) <= 1e-12


@pytest.fixture(scope="module")
def tiny_run():
    """The driver's experiments on one tiny graph, on the CPU, NetworKit and igraph missing."""
    cfg = {**cen.config("smoke"), "peer_sources": {"networkit": 32, "igraph": 8, "networkx": 4}}
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, "networkit", None)  # import raises ImportError
        mp.setitem(sys.modules, "igraph", None)
        got = {"measures": cen.distance_measures(TINY, cfg), "betweenness": cen.betweenness(TINY, cfg),
               "agreement": cen.agreement(TINY, cfg)}
        got["peers"] = peers.measure(TINY, cfg, got["betweenness"])
    return cfg, got


def test_the_driver_end_to_end_on_the_cpu(tiny_run):
    cfg, got = tiny_run
    measures = got["measures"]
    assert [r.method for r in measures] == [f"{m} from {s}" for s in ("networkx", "scipy")
                                            for m in (cen.TRIO, *cen.MEASURES)]
    assert all(r.verified and r.max_error <= 1e-12 and r.time_ms_median > 0 for r in measures)
    assert all(r.experiment == "ny_measures" and r.stand_in for r in measures)
    summary = measures[4].stat("summary")  # the trio from SciPy carries the distributions
    assert set(summary) == set(cen.MEASURES) and sum(summary["closeness"]["counts"]) == 120
    assert len(summary["eccentricity"]["top"]) == cfg["top"] and not summary["eccentricity"]["largest_first"]
    exact, sampled = got["betweenness"]
    assert exact.method == cen.EXACT and exact.verified and exact.stat("family")
    assert sampled.extrapolated and sampled.verified and sampled.max_error <= 1e-12
    assert tables.basis(sampled) == "extrapolated from 4 of 120 sources"
    assert got["agreement"][0].verified and got["agreement"][0].param("ours") == "the every-source run"


def test_a_missing_peer_is_a_skipped_row_that_says_why(tiny_run):
    _, got = tiny_run
    by_peer = {(r.param("peer"), r.param("measure")): r for r in got["peers"]}
    for peer, name in (("networkit", "NetworKit"), ("igraph", "igraph")):
        for measure in (peers.DISTANCES, cen.BETWEENNESS):
            rec = by_peer[peer, measure]
            assert rec.skipped.startswith(f"{name} is not installed") and "cpu-baselines" in rec.skipped
    nx_row = by_peer["networkx", peers.DISTANCES]
    assert nx_row.verified and nx_row.extrapolated and not nx_row.skipped
    results = {"ny": got}
    table = tables.peers_table(results)
    skipped = table[table["basis"].str.startswith("skipped")]
    assert len(skipped) == 4 and set(skipped["implementation"]) == {"NetworKit (distances)", "NetworKit",
                                                                   "igraph (distances)", "igraph"}
    assert (table["basis"] == "measured").sum() == 3  # ours: from NetworkX, from SciPy, exact betweenness
    fig = tables.peers_figure(table, "t")
    assert len(fig.axes) == 1


def test_tables_and_verdicts_of_a_cpu_run(tiny_run):
    _, got = tiny_run
    results = {"ny": got}
    assert len(tables.measures_table(results)) == 8
    assert list(tables.agreement_table(results)["result"]) == ["ok", "ok"]
    top = tables.top_table(results, "ny")
    assert len(top) == 10 and top.loc[0, "betweenness"] == max(v for _, v in top["betweenness"].items())
    recs = [r for rs in got.values() for r in rs]
    out = {v["claim"]: v for v in claims.verdicts(recs)}
    time_goal = out[claims.TIME_GOALS[1][0]]
    assert time_goal["holds"] is None and "stand-in" in time_goal["note"]  # never judged on a stand-in
    assert out[claims.RATIO_GOALS[0][0]]["holds"] is None  # ours ran on the host: not a GPU's speed-up
    assert out[claims.AGREEMENT[0][0]]["holds"] is True and out[claims.AGREEMENT[0][0]]["measured"] == "NY: 0"
    assert out[claims.TIME_GOALS[2][0]]["measured"] == "not run"  # no BAY here


def test_a_mismatch_with_networkx_is_a_failed_check(monkeypatch):
    cfg = cen.config("smoke")
    real = cen.C.betweenness_centrality
    monkeypatch.setattr(cen.C, "betweenness_centrality", lambda *a, **kw: real(*a, **kw) * (1 + 1e-9))
    rec = cen._sampled_betweenness(TINY, cfg)
    assert not rec.verified and rec.max_error == pytest.approx(1e-9, rel=1e-3)
    results = {"ny": {"agreement": [], "betweenness": [rec]}}
    assert tables.agreement_table(results)["result"].iloc[0].startswith("FAILED")
    verdict = claims.agreement_verdict([rec], *claims.AGREEMENT[1])
    assert verdict["holds"] is False and verdict["note"].startswith("MISMATCH on NY")


def _timed(experiment, method, seconds, device=report.GOAL_GPU, **kw) -> Record:
    rec = Record(paper="centrality", experiment=experiment, method=method, graph="NY", n=264346, m=733846,
                 time_ms_median=seconds * 1e3, time_ms_min=seconds * 1e3, repeats=1, timing_scope="with_transfers",
                 verified=True, device=device, stats=json.dumps({"on_gpu": True, "family": "phast"}), **kw)
    return rec


@pytest.mark.parametrize("seconds, device, holds", [(2.5, report.GOAL_GPU, True), (3.5, report.GOAL_GPU, False),
                                                    (2.5, "NVIDIA H200", None)])
def test_goals_in_seconds_are_judged_on_the_h100_only(seconds, device, holds):
    recs = [_timed("ny_measures", claims.FROM_NETWORKX, seconds, device)]
    verdict = claims.time_verdict(recs, *claims.TIME_GOALS[1])
    assert verdict["holds"] is holds and verdict["measured"] == f"{seconds:.3g} s"
    assert claims.rederive(recs) == ([verdict] if holds is not None else [])


def test_speed_ups_over_networkit_from_the_records():
    nk = _timed("ny_peers", claims.NK_DISTANCES, 1000.0, device="a CPU", extrapolated=True,
                extrapolation="256 of 264346 sources")
    nk.timing_scope = "cpu"
    recs = [_timed("ny_measures", claims.FROM_NETWORKX, 2.0), nk]
    verdict = claims.ratio_verdict(recs, *claims.RATIO_GOALS[1])
    assert verdict["holds"] is True and verdict["measured"] == "500x" and "256 of 264346" in verdict["note"]
    slow = claims.ratio_verdict([_timed("ny_measures", claims.FROM_NETWORKX, 5.0), nk], *claims.RATIO_GOALS[1])
    assert slow["holds"] is False and slow["measured"] == "200x"


def test_raw_betweenness_undoes_networkxs_rescaling():
    from networkx.algorithms.centrality.betweenness import _accumulate_basic, _single_source_dijkstra_path_basic
    g, A, G = inputs(TINY["graph"])
    k, seed = 5, 3
    want = dict.fromkeys(G, 0.0)
    for s in random.Random(seed).sample(list(G), k):
        S, P, sigma, _ = _single_source_dijkstra_path_basic(G, s, "weight")
        want, _ = _accumulate_basic(want, S, P, sigma, s)
    got = peers.raw_betweenness(A, k, seed)
    assert max_relative(got, [want[v] for v in range(g.n)]) <= 1e-12 and got.sum() > 0


def test_peers_when_installed_agree_with_ours():
    pytest.importorskip("networkit")
    pytest.importorskip("igraph")
    cfg = {**cen.config("smoke"), "peer_sources": {"networkit": 32, "igraph": 8, "networkx": 2}}
    exact = cen.C.betweenness_centrality(inputs(TINY["graph"]).A)
    recs = peers.networkit_rows(TINY, cfg, float(exact.sum())) + peers.igraph_rows(TINY, cfg)
    assert all(r.verified and not r.skipped for r in recs), [(r.method, r.verify_scope) for r in recs]


def test_first_call_skips_in_smoke_and_says_why():
    recs = first.measure(first.config(cen.config("smoke")))
    assert len(recs) == 1 and recs[0].skipped.startswith("smoke profile")
    assert first.table(recs)["skipped"].iloc[0] == recs[0].skipped


def test_first_call_child_runs_in_a_subprocess(tmp_path):
    """The child module imports and answers in a fresh process (on the CPU: a skipped record saying why)."""
    from apsp_kernels import gpu
    fcfg = {"profile": "smoke", "scenarios": ("cold",), "skip": "", "graph": TINY["graph"]}
    env = first.first_call.child_env(str(tmp_path / "numba"), str(tmp_path / "cupy"))
    recs = first._calls(fcfg, "cold", env, sys.executable)
    if gpu.available():
        assert [r.param("nth") for r in recs] == ["first", "second"] and all(r.verified for r in recs)
    else:
        assert len(recs) == 1 and recs[0].skipped.startswith("no CUDA GPU")


@pytest.mark.gpu
def test_the_driver_on_the_gpu():
    require_backend()  # the driver calls NetworkX with backend="apsp_kernels"
    cfg = cen.config("smoke")
    case = {"key": "ny", "graph": {"kind": "road_like", "n": 2000, "m": 5400, "for": "USA-road-d.NY"}}
    recs = cen.distance_measures(case, cfg) + cen.betweenness(case, cfg) + cen.agreement(case, cfg)
    assert all(r.verified and not r.skipped for r in recs), [(r.method, r.skipped, r.verify_scope) for r in recs]
    scipy_trio = next(r for r in recs if r.method == f"{cen.TRIO} from scipy")
    assert scipy_trio.stat("on_gpu") and scipy_trio.stat("family") not in ("", "scipy")
