"""The batched-PHAST benchmark's driver code run end to end on the host: the device replaced by
NumPy arrays and the kernels by their NumPy reference (layout.batched_sweeps_on_host), so that
a slip in the driver (shapes, keys, files) shows here, not in the lead's GPU minutes. Nothing
here measures or checks the kernels themselves (tests/test_phast_batched_gpu.py does)."""
import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from apsp_kernels import generators, gpu, oracle, timing
from apsp_kernels.experiments import phast_batched as bench
from apsp_kernels.sssp_hierarchy import layout as L
from apsp_kernels.sssp_hierarchy import phast_batched as PB


class Dev(np.ndarray):
    def get(self):  # a copy to the host, as cupy's
        return np.array(self)


def _dev(a, dtype=None):
    return np.asarray(a, dtype=dtype).view(Dev)


class FakeOutOfMemory(MemoryError):
    pass


FAKE_CUPY = SimpleNamespace(
    asarray=_dev, empty=lambda shape, dtype=None: np.empty(shape, dtype).view(Dev),
    full=lambda shape, value, dtype=None: np.full(shape, value, dtype).view(Dev), int32=np.int32,
    cuda=SimpleNamespace(Device=lambda: SimpleNamespace(synchronize=lambda: None),
                         memory=SimpleNamespace(OutOfMemoryError=FakeOutOfMemory)),
    get_default_memory_pool=lambda: SimpleNamespace(free_all_blocks=lambda: None, used_bytes=lambda: 0))


def _setup(self):
    return self.release()


def _sweep(self, ranks):
    self.last = np.asarray(ranks)
    return 1 + self.first_top


def _rows(self, out, count):
    order = np.empty(self.lay.n, dtype=np.int64)
    order[self.lay.rank] = np.arange(self.lay.n)
    ranks = self.last[:count]
    out[:count] = L.batched_sweeps_on_host(self.lay, order[ranks], self.k, self.graph.inf)
    return out


def _time_once(run, repeats=5, warmup=1, before=None):
    run()
    return [1.0]


@pytest.fixture
def fake_device(monkeypatch):
    monkeypatch.setattr(gpu, "cupy", lambda: FAKE_CUPY)
    monkeypatch.setattr(gpu, "fits", lambda nbytes: True)
    monkeypatch.setattr(gpu, "free_bytes", lambda: 80 << 30)
    monkeypatch.setattr(gpu, "require_memory", lambda nbytes, what: None)
    monkeypatch.setattr(gpu, "banner", lambda: "fake device")
    monkeypatch.setattr(gpu, "device_info", lambda: {"device": "fake device"})
    monkeypatch.setattr(timing, "copy_bandwidth", lambda: {"bytes_per_s": 3e12})
    monkeypatch.setattr(timing, "time_gpu", _time_once)
    monkeypatch.setattr(PB.BatchedPhast, "setup", _setup)
    monkeypatch.setattr(PB.BatchedPhast, "sweep", _sweep)
    monkeypatch.setattr(PB.BatchedPhast, "rows", _rows)
    monkeypatch.setattr(bench, "gpu", gpu)

    def today(g, ids, **kw):  # fast:multi_source's rows: the oracle's, in the kernels' representation
        d = oracle.distances(g, np.asarray(ids))
        return _dev(np.where(np.isinf(d), g.inf, d).astype(g.dtype))
    import apsp_kernels.multi_source as ms
    monkeypatch.setattr(ms, "multi_source_distances", today)


def test_the_benchmark_runs_end_to_end_on_the_reference(fake_device, tmp_path):
    graphs = [generators.road_like(1500, 3600, seed=1, name="small-road"),
              generators.road_like(1200, 2900, seed=2, name="other-road")]
    summary = bench.main(tmp_path, graphs=graphs, quick=True)
    assert summary["all_verified"] and summary["device"] == "fake device"
    assert set(summary["all_sources_s"]) == {"small-road", "other-road"}
    trees = pd.read_csv(tmp_path / "per_tree.csv")
    assert len(trees) == 4 and trees["verified"].all() and (trees["ratio_to_bound"] > 0).all()
    ends = pd.read_csv(tmp_path / "all_sources.csv")
    assert ends["verified"].all() and (ends["sources"] == ends["n"]).all() and (ends["scipy_us_per_tree"] > 0).all()
    assert (ends["summary_sources_done"] == ends["n"]).all() and (ends["preprocessing_s"] > 0).all()
    same = pd.read_csv(tmp_path / "same_as_today.csv")
    assert same["equal"].all() and len(same) == 2
    assert json.loads((tmp_path / "summary.json").read_text())["all_verified"]
    assert "contraction" in (tmp_path / "log.txt").read_text()
    assert pd.read_csv(tmp_path / "decision_rows.csv").empty  # generated graphs are not decision rows


def test_a_wrong_row_is_caught(fake_device, monkeypatch, tmp_path):
    def off_by_one(self, out, count):
        _rows(self, out, count)
        out[:count, -1] += 1
        return out
    monkeypatch.setattr(PB.BatchedPhast, "rows", off_by_one)
    g = generators.road_like(800, 1900, seed=3, name="r")
    end = bench.all_sources_in_process(g, block=256, log=lambda s: None)
    assert not end["verified"]
    assert not all(r["verified"] for r in bench.per_tree(g, ks=(32,), columns=(64,), copy_bps=1e12,
                                                         log=lambda s: None))


def test_blocks_that_no_longer_fit_are_halved_and_the_run_says_so(fake_device, monkeypatch):
    real_allocate = PB.BatchedPhast.allocate

    def room_for_64(self, count):
        if self.columns(count) > 64:  # another process took the memory the block was chosen for
            raise FakeOutOfMemory(count)
        return real_allocate(self, count)
    monkeypatch.setattr(PB.BatchedPhast, "allocate", room_for_64)
    g = generators.road_like(300, 700, seed=4, name="r")
    said = []
    end = bench.all_sources_in_process(g, k=32, block=256, log=said.append)
    assert end["verified"] and end["block"] == 64 and end["blocks"] == 5 and end["sources"] == 300
    assert [s for s in said if "do not fit" in s] and "blocks of 128 instead" in said[0]

    def no_room(self, count):
        raise FakeOutOfMemory(count)
    monkeypatch.setattr(PB.BatchedPhast, "allocate", no_room)
    with pytest.raises(FakeOutOfMemory):  # not even K sources fit: the error, not a silent empty run
        bench.all_sources_in_process(g, k=32, block=256, log=said.append)


def test_a_stand_in_run_and_its_sample(fake_device, monkeypatch):
    monkeypatch.setattr(bench, "road_stand_in", lambda n, seed=0: generators.road_like(n, int(2.5 * n) // 2 * 2,
                                                                                          seed=seed, name="tiny"))
    kept = {}
    full = bench.stand_in_run(1000, ks=(32,), columns=128, full_max_n=2000, block=256, log=lambda s: None,
                              keep=kept)
    assert full["verified"], {k: full[k] for k in ("single_tree_verified", "best_K", "sources_run", "all_sources")}
    assert list(kept) == [1000] and kept[1000].n == 1000 and L.HIERARCHY_KEY in kept[1000].__dict__
    assert full["sources_run"] == 1000 and full["all_sources"] == "all sources"
    part = bench.stand_in_run(1000, ks=(32,), columns=128, full_max_n=500, sample_sources=256, block=128,
                              log=lambda s: None)
    run = part["sources_run"]  # two whole blocks of 128, one of them maybe the short last one
    assert part["verified"] and run in (232, 256) and f"sample of {run} sources" in part["all_sources"]
    assert part["all_sources_estimate_s"] == pytest.approx(part["all_sources_s"] / run * 1000)


def test_per_tree_for_each_top_level_max_is_verified_and_says_how_many_levels_ran_in_blocks(fake_device):
    g = generators.road_like(800, 1900, seed=3, name="r")
    rows = bench.per_tree(g, ks=(32,), columns=(64,), copy_bps=1e12, log=lambda s: None,
                          top_level_maxes=(0, 16, 10**6))
    assert [r["top_level_max"] for r in rows] == [0, 16, 10**6] and all(r["verified"] for r in rows)
    levels = [r["top_levels"] for r in rows]
    assert levels[0] == 0 and levels[0] <= levels[1] <= levels[2] and levels[2] > 0
