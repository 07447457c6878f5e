"""A reductions run saved after each wave of blocks and resumed from its checkpoint folder: the
bits of one uninterrupted run; another run's checkpoint, or one beside a store, refused up front."""
import json

import numpy as np
import pytest

from apsp_kernels import generators
from apsp_kernels.distributed import all_sources, checkpoint, cluster, runner
from apsp_kernels.errors import InputError

SIZE = 8


@pytest.fixture(scope="module")
def client():
    c = cluster.local(cpu_workers=2, processes=False)
    yield c
    cluster.close(c)


def road(n=200, seed=4):
    return generators.k_regular_digraph(n, 3, seed=seed, w_low=1, w_high=30, dtype=np.int32, name=f"reg{n}-{seed}")


def test_a_run_stopped_after_some_waves_goes_on_from_its_checkpoint_with_the_same_bits(client, tmp_path,
                                                                                     monkeypatch):
    g = road()
    whole = all_sources(g, client, block_size=SIZE, progress=False).reductions
    saved, save = [], checkpoint.save

    def save_then_stop(*args, **kwargs):
        saved.append(save(*args, **kwargs))
        if len(saved) == 3:
            raise KeyboardInterrupt("stopped after three waves")
    monkeypatch.setattr(checkpoint, "save", save_then_stop)
    with pytest.raises(KeyboardInterrupt):
        all_sources(g, client, block_size=SIZE, checkpoint=tmp_path / "ck", progress=False)
    state = json.loads((tmp_path / "ck" / checkpoint.STATE).read_text())
    per_wave = checkpoint.wave_size(-(-g.n // SIZE), 2)
    assert state["sources_done"] == 3 * per_wave * SIZE < g.n
    monkeypatch.setattr(checkpoint, "save", save)
    run = all_sources(g, client, block_size=SIZE, checkpoint=tmp_path / "ck", progress=False)
    assert run.statuses["resumed"] == 3 * per_wave
    assert run.reductions.same_as(whole)
    assert len(list((tmp_path / "ck").glob("accumulator-*.npz"))) == 1  # the last one only
    again = all_sources(g, client, block_size=SIZE, checkpoint=tmp_path / "ck", progress=False)
    assert again.statuses == {"resumed": -(-g.n // SIZE)} and again.reductions.same_as(whole)  # nothing left


def test_another_run_s_checkpoint_is_refused_before_any_block(client, tmp_path):
    g = road(60)
    all_sources(g, client, block_size=SIZE, checkpoint=tmp_path / "ck", progress=False)
    with pytest.raises(InputError, match=r"another run \(its edges differ\)"):
        all_sources(g, client, block_size=SIZE, bins=np.linspace(0, 100, 5), checkpoint=tmp_path / "ck",
                    progress=False)
    with pytest.raises(InputError, match=r"another run \(its graph, sources, sources_sha256, edges differ\)"):
        all_sources(road(61), client, block_size=SIZE, bins=None, checkpoint=tmp_path / "ck", progress=False)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="holds files but no run.json"):
        all_sources(g, client, block_size=SIZE, checkpoint=tmp_path / "other", progress=False)


def test_a_checkpoint_keeps_reductions_only(client, tmp_path):
    g = road(60)
    with pytest.raises(InputError, match="give one of them"):
        all_sources(g, client, store=tmp_path / "rows", checkpoint=tmp_path / "ck", progress=False)
    with pytest.raises(InputError, match="give one of them"):
        all_sources(g, client, reduce=False, store=tmp_path / "rows", checkpoint=tmp_path / "ck", progress=False)
    assert not (tmp_path / "ck").exists() and not (tmp_path / "rows").exists()


def test_waves_are_a_sixteenth_of_the_run_and_at_least_two_blocks_a_worker():
    assert checkpoint.wave_size(16384, 4) == 1024
    assert checkpoint.wave_size(20, 4) == 8
    assert checkpoint.wave_size(1, 0) == 2


def test_a_run_told_to_stop_ends_at_a_wave_s_end_and_the_next_call_completes_it(client, tmp_path):
    g = road()
    whole = all_sources(g, client, block_size=SIZE, progress=False).reductions
    first = all_sources(g, client, block_size=SIZE, checkpoint=tmp_path / "ck", stop_after_s=0.0, progress=False)
    per_wave = checkpoint.wave_size(-(-g.n // SIZE), 2)
    assert first.reductions.sources_done == per_wave * SIZE and not first.reductions.all_sources
    rest = all_sources(g, client, block_size=SIZE, checkpoint=tmp_path / "ck", progress=False)
    assert rest.statuses["resumed"] == per_wave and rest.reductions.same_as(whole)
    with pytest.raises(InputError, match="needs a checkpoint"):
        all_sources(g, client, stop_after_s=60.0, progress=False)


def test_the_next_wave_runs_while_the_last_one_s_sums_are_fetched_and_saved(client, tmp_path, monkeypatch):
    from apsp_kernels.distributed import worker_sums
    g = road()
    whole = all_sources(g, client, block_size=SIZE, progress=False).reductions
    blocks_held, gather = [], worker_sums.gather
    blocks = -(-g.n // SIZE)
    per_wave = checkpoint.wave_size(blocks, 2)
    waves = -(-blocks // per_wave)

    def counting_gather(c, *args, **kwargs):  # the blocks of later waves submitted as this wave's sums come in
        later = (len(blocks_held) + 1) * per_wave
        blocks_held.append(sum(1 for key in c.futures
                               if str(key).startswith("apsp-block") and int(str(key).rsplit("-", 1)[1]) >= later))
        return gather(c, *args, **kwargs)
    monkeypatch.setattr(worker_sums, "gather", counting_gather)
    run = all_sources(g, client, block_size=SIZE, checkpoint=tmp_path / "ck", progress=False)
    assert len(blocks_held) == waves > 2
    assert all(held > 0 for held in blocks_held[:-1]) and blocks_held[-1] == 0  # the next wave, then none
    assert run.reductions.same_as(whole)


def test_the_next_wave_is_submitted_while_the_last_blocks_of_a_wave_still_run(client, tmp_path, monkeypatch):
    g = road()
    whole = all_sources(g, client, block_size=SIZE, progress=False).reductions
    monkeypatch.setattr(runner, "LEAD_BLOCKS_PER_WORKER", 1)  # 2 blocks ahead on 2 workers
    events, submit, results = [], client.submit, runner._progress

    def submitting(fn, *args, **kwargs):
        if fn is runner.run_block:
            events.append("submit")
        return submit(fn, *args, **kwargs)

    def consuming(*args):
        for res in results(*args):
            events.append("result")
            yield res
    monkeypatch.setattr(client, "submit", submitting)
    monkeypatch.setattr(runner, "_progress", consuming)
    run = all_sources(g, client, block_size=SIZE, checkpoint=tmp_path / "ck", progress=False)
    blocks = -(-g.n // SIZE)
    per_wave = checkpoint.wave_size(blocks, 2)
    results_before = [events[:i].count("result") for i, event in enumerate(events) if event == "submit"]
    waves = -(-blocks // per_wave)
    assert len(results_before) == blocks and waves > 2
    assert results_before[::per_wave] == [0] + [w * per_wave - 2 for w in range(1, waves)]
    assert run.reductions.same_as(whole)


def test_a_checkpoint_keeps_its_blocks_seconds_and_split_over_every_call(client, tmp_path):
    g = road()
    first = all_sources(g, client, block_size=SIZE, checkpoint=tmp_path / "ck", stop_after_s=0.0, progress=False)
    rest = all_sources(g, client, block_size=SIZE, checkpoint=tmp_path / "ck", progress=False)
    totals = checkpoint.totals_so_far(tmp_path / "ck")
    assert totals["blocks"] == -(-g.n // SIZE) == len(first.block_seconds) + len(rest.block_seconds)
    assert len(first.block_seconds) == checkpoint.wave_size(-(-g.n // SIZE), 2)
    assert totals["block_seconds"] == pytest.approx(sum(first.block_seconds) + sum(rest.block_seconds))
    assert checkpoint.totals_so_far(tmp_path / "none") == {}


def test_block_totals_sum_the_numbers_of_the_blocks_stats_not_their_flags():
    totals = checkpoint.block_totals([{"sweep_ms": 1.5, "in_place": True, "name": "x"}, {"sweep_ms": 2, "W": 64}],
                                     [0.25, 0.5])
    assert totals == {"blocks": 2, "block_seconds": 0.75, "sweep_ms": 3.5, "W": 64}


def test_a_run_says_how_long_the_graph_took_to_reach_the_workers_and_what_came_after_its_last_block(
        client, tmp_path, monkeypatch):
    import time
    g = road(seed=6)
    share, save = runner.share_graph, checkpoint.save

    def slow_share(*args, **kwargs):
        time.sleep(0.3)
        return share(*args, **kwargs)

    def slow_save(*args, **kwargs):
        time.sleep(0.2)
        return save(*args, **kwargs)
    monkeypatch.setattr(runner, "share_graph", slow_share)
    monkeypatch.setattr(checkpoint, "save", slow_save)
    run = all_sources(g, client, block_size=SIZE, checkpoint=tmp_path / "ck", progress=False)
    assert run.first_submit_s >= 0.3 and run.after_last_block_s >= 0.2  # the last wave's save follows its blocks
    assert run.outside_blocks_s >= run.first_submit_s + run.after_last_block_s - 1e-9
