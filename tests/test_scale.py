"""The scale notebook's claims about bounds (CPU: the numbers are given, not measured)."""
import json

import numpy as np
import pytest
from apsp_kernels import generators
from apsp_kernels.experiments import scale as sc
from apsp_kernels.records import Record, from_csv


def _record(stats, ms=2000.0):
    g = generators.ring(1024)
    return g, Record(paper="scale", experiment="road_reductions", method="fast:multi_source",
                     graph=g.name, n=g.n, m=g.m, params={"workers": 2}, time_ms_median=ms,
                     stats={"sources_run": 1024, **stats})


def test_bound_note_counts_relaxations_and_the_byte_floor():
    g, rec = _record({"sweeps_per_source_mean": 100.0})
    note = sc.bound_note(rec, g, copy_bytes_per_s=4e12)
    assert "100 sweeps" in note and "10x Dijkstra" in note  # log2(1024) = 10
    floor = 2 * 1024 * 1024 * 4 / (2 * 4e12)
    assert f"{floor:.3g} s" in note and f"{2.0 / floor:.0f}x" in note


def test_bound_note_says_when_it_cannot_tell():
    g, rec = _record({})
    assert "neither" in sc.bound_note(rec, g, copy_bytes_per_s=0)


def test_the_scaling_note_splits_each_full_run_into_the_busiest_worker_and_the_rest():
    g, two = _record({"busiest_worker_s": 0.99, "outside_blocks_s": 0.077, "client_merge_s": 0.031,
                      "per_worker": [[0.99, 18], [0.93, 16]]}, ms=1067.0)
    assert sc.where_the_time_went(two) == ("2 workers: 1.067 s = busiest worker's blocks 0.990 s + 0.077 s "
                                           "outside them (client merge 0.031 s); per worker 0.990 s in 18 "
                                           "blocks, 0.930 s in 16 blocks")
    one = Record(**{**two.__dict__, "params": '{"workers": 1}', "time_ms_median": 1987.0,
                    "stats": '{"busiest_worker_s": 1.9, "outside_blocks_s": 0.087, "client_merge_s": 0.05}'})
    cpu = Record(**{**two.__dict__, "experiment": "road_reductions_cpu", "params": '{"workers": 64}',
                    "time_ms_median": 1e6})
    (verdict, _), = [sc.verdicts({"g": g}, [one, two], [cpu], [one], {"gpus": 2, "bulk_m": 1, "bulk_n": 1},
                                 unit="GPUs")[:2]]
    assert "1 worker: 1.987 s = busiest worker's blocks 1.900 s + 0.087 s" in verdict["note"]
    assert "2 workers: 1.067 s" in verdict["note"] and verdict["holds"] is False  # 1.86x
    sized = Record(**{**two.__dict__, "stats": json.dumps({**json.loads(two.stats),
                                                        "per_worker": [[0.99, 18, 132000], [0.93, 16, 120000]]})})
    assert sc.where_the_time_went(sized).endswith("per worker 0.990 s in 18 blocks (7.50 µs per source), "
                                                  "0.930 s in 16 blocks (7.75 µs per source)")
    spans = Record(**{**two.__dict__, "stats": json.dumps({**json.loads(two.stats), "per_worker": [
        [0.99, 18, 132000, 0.01, 1.0], [0.93, 16, 120000, 0.07, 1.06]]})})
    assert sc.where_the_time_went(spans).endswith("0.930 s in 16 blocks (7.75 µs per source) from 0.07 to 1.06 s")
    three = Record(**{**two.__dict__, "stats": json.dumps({**json.loads(two.stats), "repeat_seconds": [1.1, 1.067, 1.04]})})
    assert sc.where_the_time_went(three).startswith("2 workers: 1.067 s (the median of 3 runs, 1.040-1.100 s) = ")
    assert verdict["note"].startswith("both full runs; 1 worker: ")
    sampled = Record(**{**one.__dict__, "extrapolated": True, "extrapolation": "timed 64 of 1024 sources"})
    (verdict, _), = [sc.verdicts({"g": g}, [sampled, two], [cpu], [one], {"gpus": 2, "bulk_m": 1, "bulk_n": 1},
                                 unit="GPUs")[:2]]
    assert verdict["note"].startswith("timed 64 of 1024 sources; 2 workers: 1.067 s")  # the sample's split: not shown


def _bulk(workers, ms, kernel_ms, seconds, warm=()):
    return Record(paper="scale", experiment="bulk", method="bulk_single", graph="16384 x 4-regular n=1024",
                  n=1024, m=4096, params={"workers": workers}, time_ms_median=ms, verify_scope="2 of 16384",
                  stats={"kernel_ms_per_task": kernel_ms, "seconds_per_task": seconds,
                         "warm_up_per_worker": [{"seconds": w} for w in warm]})


def test_bulk_note_gives_kernel_time_scaling_and_flags_a_superlinear_run():
    # the 2 x H200 run at a5cc0ff: 14.27 s on one GPU, 5.64 s on two, equal kernel times
    one = _bulk(1, 14274.0, [2137.1, 2137.2], [9.85, 4.27])
    two = _bulk(2, 5637.0, [2137.1, 2137.9], [5.0, 5.55])
    note = sc.bulk_scaling_note(one, two)
    assert "kernel-time scaling at most 2.00x" in note and "SUPERLINEAR" in note and "9.85, 4.27 s" in note
    fair = sc.bulk_scaling_note(_bulk(1, 8950.0, [2125.7, 2125.6], [4.5, 4.4]), two)
    assert "kernel-time scaling" in fair and "SUPERLINEAR" not in fair
    one_task = sc.bulk_scaling_note(one, _bulk(2, 9000.0, [4274.0], [8.9]))  # one task: one worker idle
    assert "in 1 task on 2 (kernel-time scaling at most 1.00x)" in one_task
    assert "warm-up" not in note


def test_bulk_note_gives_the_warm_up_shares():
    one = _bulk(1, 8950.0, [2125.7, 2125.6], [4.5, 4.4], warm=[9.1])
    two = _bulk(2, 4600.0, [2125.7, 2125.6], [4.5, 4.6], warm=[4.6, 4.7])
    assert "warm-up share per worker: 9.10 s on 1, 4.60, 4.70 s on 2" in sc.bulk_scaling_note(one, two)


def test_rederive_gives_the_committed_scale_verdicts_again(tmp_path):
    """The committed results/scale verdicts follow from its records by today's claims: rederived
    from a copy, the same lines; and from a copy without its PHAST records (written again from
    phast/all_sources.csv, as for a run that predates them), the same verdicts on new record ids."""
    import shutil
    from pathlib import Path
    import pandas as pd
    committed = Path(__file__).parent.parent / "results" / "scale"
    if not (committed / "phast" / "all_sources.csv").exists():
        pytest.skip("no committed scale run with a PHAST section")
    want = pd.read_csv(committed / "verdicts.csv")
    for keep_records in (True, False):
        copy = tmp_path / f"scale_{keep_records}"
        shutil.copytree(committed, copy)
        if not keep_records:
            (copy / "records_phast_all_sources.csv").unlink()
        sc.rederive(copy)
        got = pd.read_csv(copy / "verdicts.csv")
        cols = ["claim", "measured", "verdict", "basis", "outcome"] + (["records"] if keep_records else [])
        pd.testing.assert_frame_equal(got[cols], want[cols])
        assert (copy / "records_phast_all_sources.csv").exists()


def test_every_source_on_one_and_two_workers_gives_the_same_bits_and_verdicts_that_rest_on_its_records(tmp_path):
    from apsp_kernels import report
    from apsp_kernels.audit import verdict_problems
    from apsp_kernels.experiments import continent as ct
    from apsp_kernels.experiments import continent_claims
    from apsp_kernels.verdicts import annotate
    pytest.importorskip("distributed")
    cfg = sc.config("smoke")
    roads = {"NY": sc.road_graph("NY", cfg)}
    folder = tmp_path / "scale"  # the audit finds the claims' EVIDENCE by the folder's notebook
    records = ct.runs(roads, {}, cfg, folder, log=lambda text: None)
    assert [r.param("workers") for r in records] == [1, 2] and all(r.verified for r in records)
    assert all(r.stat("same_bits_as_first") and r.stat("every_source") for r in records)
    assert {r.timing_scope for r in records} == {"cpu"}  # CPU workers: no device transfers timed
    table = ct.table(records)
    assert list(table["gpus"]) == [1, 2] and table["speedup_vs_1"].iloc[0] == 1.0
    verdicts = continent_claims.verdicts(records, "CPU workers")
    assert [v["claim"] for v in verdicts] == [f"{roads['NY'].name}: every reduction the same bits on 1, 2 CPU workers",
                                              f"{roads['NY'].name}: every source, 2 CPU workers >= 1.9x one"]
    assert verdicts[0]["holds"] is True
    report.add_verdicts(folder, verdicts)
    frame = annotate(folder, sc.EVIDENCE)
    assert set(frame["basis"]) == {"stand-in"} and frame["records"].str.split().map(len).tolist() == [2, 2]
    assert verdict_problems(folder) == []


def test_the_cpu_baseline_times_its_run_holding_the_hosts_cpu_lock(monkeypatch):
    import helpers
    pytest.importorskip("distributed")
    lock, seen, real = helpers.RecordingLock(), [], sc.all_sources

    def all_sources(graph, client, sources, **kw):
        seen.append((len(sources), lock.held))
        return real(graph, client, sources, **kw)

    monkeypatch.setattr(sc.host_cpu, "exclusive", lock.exclusive)
    monkeypatch.setattr(sc, "all_sources", all_sources)
    g = generators.road_like(300, 750, seed=1, name="roadlike-tiny")
    rec = sc.cpu_baseline(g, {**sc.config("smoke"), "cpu_sample": 16}, "road_reductions_cpu")
    assert rec.verified and seen[-1] == (16, True)  # the warm-up before it need not wait


def test_a_road_run_repeats_and_keeps_the_median_run_whose_reductions_the_others_equal(monkeypatch):
    from apsp_kernels.distributed import cluster
    pytest.importorskip("distributed")
    real, seconds = sc.all_sources, iter([0.5, 0.9, 0.7])  # the repeats' wall times, in turn
    runs = []

    def all_sources(graph, client, sources, **kw):
        run = real(graph, client, sources, **kw)
        if len(sources) == graph.n:  # the timed runs (not the estimate's warm-up and sample)
            run.seconds = next(seconds)
            runs.append(run)
        return run

    monkeypatch.setattr(sc, "all_sources", all_sources)
    g = generators.road_like(300, 750, seed=1, name="roadlike-tiny")
    client = cluster.local(cpu_workers=1, processes=False)
    try:
        cfg = {**sc.config("smoke"), "road_repeats": 3, "estimate_sample": 32}
        rec, _ = sc.road_run(g, client, cfg, "road_reductions")
        assert len(runs) == 3 and rec.repeats == 3 and rec.stat("repeat_seconds") == [0.5, 0.9, 0.7]
        assert rec.time_ms_median == pytest.approx(700.0) and rec.time_ms_min == pytest.approx(500.0)
        assert rec.verified and "the 3 runs' reductions equal bit for bit" in rec.verify_scope
        seconds = iter([0.5, 0.9, 0.7])
        spoil = sc.median_run

        def median_with_a_changed_repeat(rs):  # the fastest run's first distance sum one more
            rs[0].reductions.per_source.loc[0, "sum_out"] += 1
            return spoil(rs)
        monkeypatch.setattr(sc, "median_run", median_with_a_changed_repeat)
        rec, _ = sc.road_run(g, client, cfg, "road_reductions")
        assert not rec.verified and "DIFFER" in rec.verify_scope
    finally:
        cluster.close(client)


def test_the_median_run_is_the_middle_one_by_wall_time():
    from types import SimpleNamespace as S
    runs = [S(seconds=t) for t in (3.0, 1.0, 2.0)]
    assert sc.median_run(runs).seconds == 2.0 and sc.median_run(runs[:2]).seconds == 1.0


def test_the_scaling_table_gives_each_runs_median_beside_its_fastest():
    g, two = _record({}, ms=1067.0)
    two = Record(**{**two.__dict__, "repeats": 3, "time_ms_min": 1040.0})
    one = Record(**{**two.__dict__, "params": '{"workers": 1}', "time_ms_median": 2000.0, "time_ms_min": 1990.0})
    t = sc.scaling_table([one, two]).set_index("workers")
    assert t.loc[2, "runs"] == 3 and t.loc[2, "time_s"] == pytest.approx(1.067) and t.loc[2, "fastest_s"] == 1.04
    assert t.loc[2, "speedup_vs_1"] == pytest.approx(2.0 / 1.067)  # medians against medians


def test_a_sample_fits_the_budget_by_the_upper_end_of_the_estimates_band():
    import numpy as np
    ids = np.arange(1000)
    est = {"seconds": 10.0, "seconds_high": 40.0, "workers": 2}
    sources, scale, how = sc.sample_for(ids, est, budget=20.0)  # the central 10 s fits, the upper 40 s does not
    assert len(sources) == 500 and scale == 2.0 and "estimated up to 40 s for all" in how
    assert sc.sample_for(ids, est, budget=40.0)[1:] == (1.0, "")
    one_block = {"seconds": 10.0, "seconds_high": float("nan"), "workers": 2}  # no band: the central value
    assert len(sc.sample_for(ids, one_block, budget=5.0)[0]) == 500


def test_the_16m_goals_judge_the_run_on_the_most_gpus_and_every_source_on_four():
    from apsp_kernels.experiments import continent_claims as ct

    def run(workers, seconds, every_source, **stats):
        return Record(paper="scale", experiment="continent", method="fast:phast_batched", graph="roadlike-rivers-16M",
                      n=ct.GOAL_N, m=41_943_040, params={"workers": workers, "sources": 262_144},
                      time_ms_median=seconds * 1e3, verified=True, stand_in=True, device=f"{workers} x H200",
                      stats={"same_bits_as_first": True, "in_place": True, "every_source": every_source,
                             "outside_blocks_s": 1.0, **stats})
    top = dict(ratio_to_bound=1.29, reductions_share=0.72, sweep_us_per_tree=91.4, bound_us_per_tree=70.9,
               every_source_estimate_s=1518.0)
    got = {v["claim"].split(": ", 1)[1]: v for v in ct.verdicts([run(4, 31.7, False, **top), run(1, 90.4, False)])}
    assert got["a tree within 1.3x of the K-wide memory bound"]["holds"] is True
    assert got["the reductions at most 30% of a block's time"]["holds"] is False
    four = got["every source on 4 GPUs in <= 8 min"]
    assert four["holds"] is False and four["measured"] == "1518 s" and four["note"].startswith("estimated from 262,144")
    assert got["every source, 4 GPUs >= 3.6x one"]["measured"] == "2.85x"
    assert got["every reduction the same bits on 1, 4 GPUs"]["holds"] is True


def test_the_memory_plan_adds_up_and_picks_the_largest_block_that_fits_each_card():
    from apsp_kernels.distributed import block_solvers, runner
    from apsp_kernels.experiments import continent as ct
    from apsp_kernels.experiments.phast_batched import road_stand_in
    from apsp_kernels.sssp_hierarchy import layout as L
    g = road_stand_in(3000)
    L.hierarchy_of(g)
    total = ct.PLAN_CARDS["NVIDIA H100 80GB HBM3"]
    plan = ct.memory_plan(g, total - (1 << 30), total)  # a GPU with 1 GiB in use
    widest = block_solvers.IN_PLACE_BLOCK
    assert list(plan["gpu"]) == list(ct.PLAN_CARDS) and (plan["block_sources"] == widest).all()  # both roomy
    parts = plan[["working_matrix_gb", "layout_gb", "stamps_buckets_and_sums_gb", "graph_gb"]].sum(axis=1)
    np.testing.assert_allclose(parts, plan["block_gb"], rtol=1e-12)
    assert (plan["sweep_sources"] == widest).all()
    tight = ct.memory_plan(g, 64 << 20, total)  # 64 MiB free on an H100: smaller sweeps there, several a block
    size, block = int(tight["sweep_sources"].iloc[0]), int(tight["block_sources"].iloc[0])
    assert size < widest and runner.block_need(g, size, block_solvers.PHAST, store=False) <= 64 << 20
    assert block == min(widest, size * runner.SWEEPS_PER_BLOCK)
    assert tight["blocks_every_source"].iloc[0] == -(-g.n // block)


def test_every_source_with_a_checkpoint_goes_on_from_it_and_records_its_seconds_over_the_calls(tmp_path):
    from apsp_kernels.distributed import checkpoint
    from apsp_kernels.experiments import continent as ct
    pytest.importorskip("distributed")
    cfg = {"profile": "smoke", "processes": False}
    g = sc.road_graph("NY", sc.config("smoke"))
    said = []
    assert ct.every_source(g, 2, tmp_path / "ck", cfg, log=said.append, stop_after_s=0.0) == []  # one wave, no record
    assert "the same command goes on from" in said[-1]
    first_call = checkpoint.seconds_so_far(tmp_path / "ck")
    (record,) = ct.every_source(g, 2, tmp_path / "ck", cfg, log=said.append)
    assert record.verified and record.stat("every_source") and record.stat("blocks_resumed") > 0
    assert "s before the first block" in said[-1] and record.stat("after_last_block_s") >= 0
    assert record.time_ms_median == pytest.approx(record.stat("calls_seconds") * 1e3)
    assert 0 < first_call < record.stat("calls_seconds")
    blocks = record.stat("blocks")  # the split covers every block, the first call's too
    assert record.stat("split_blocks") == blocks > record.param("sources") // record.param("block_size") - 1
    assert record.stat("blocks_resumed") < blocks


def test_the_driver_stopped_by_its_time_limit_writes_no_record_and_the_next_call_completes_it_then_samples(tmp_path):
    from apsp_kernels.experiments import continent as ct
    pytest.importorskip("distributed")
    argv = [str(tmp_path / "out"), "--gpus", "2", "--graphs", "--stand-in", "3000", "--profile", "smoke",
            "--checkpoint", str(tmp_path / "ck"), "--sample-after", "--sample-blocks", "1", "--stand-in-gpus", "1", "2"]
    assert ct._cli(argv + ["--stop-after", "0"]) == 0
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["records"] == 0
    assert ct._cli(argv) == 0
    records = from_csv(tmp_path / "out" / "records_continent.csv")
    assert len(records) == 3  # every source on 2 workers, then the sample on 2 and 1
    table = ct.table(records)
    full = table[table["every_source"] == True]  # noqa: E712
    assert list(full["sources"]) == [3000] and full["speedup_vs_1"].isna().all()  # no 1-worker run of every source


def test_the_split_sums_each_stage_over_the_blocks_the_setup_before_the_first_event_apart():
    from types import SimpleNamespace

    from apsp_kernels.experiments import continent as ct
    first = {"setup_ms": 9000.0, "sweep_ms": 80.0, "upper_ms": 9.0, "reduce_ms": 40.0, "reduce_kernel_ms": 36.0}
    later = {"setup_ms": 2.0, "sweep_ms": 76.0, "upper_ms": 8.0, "reduce_ms": 37.0, "reduce_kernel_ms": 35.0}
    run = SimpleNamespace(stats=[first, later], block_seconds=[9.2, 0.12])
    split = ct.split_of(run)
    assert split["setup_s"] == pytest.approx(9.002) and split["sweeps_s"] == pytest.approx(0.156)
    assert split["reductions_s"] == pytest.approx(0.077) and split["reduction_kernel_s"] == pytest.approx(0.071)
    assert split["blocks_s"] == pytest.approx(9.32) and split["split_blocks"] == 2 and split["in_place"]
    assert ct.split_of(run, {"blocks": 5, "block_seconds": 1.0, "setup_ms": 250.0})["setup_s"] == 0.25
