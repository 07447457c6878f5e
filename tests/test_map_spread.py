"""The method map's sweep spread over GPUs (apsp_kernels.experiments.map_spread and
method_map.sweep_on_gpus) on the CPU: groups of whole series, the merge, and resuming a killed
group from its own records. The groups run in this process (the Dask path is multi_gpu's)."""
import json
import math

import pandas as pd
import pytest

from apsp_kernels import gallery, report
from apsp_kernels.experiments import map_spread
from apsp_kernels.experiments import method_map as mm
from test_method_map import DENSE, SSSP, FakeTimer, Killed

CFG = {**mm.config("smoke"), "sizes": (64, 128, 256), "densities": (2, 8),
       "topologies": ("random", "ring", "complete"), "cap_s": 0.1, "max_arcs": 40000, "budget_s": 1e9}


def in_process(groups, work, gpus, on_start, on_done):
    """run_on_gpus's contract without Dask: every group in turn, an exception as its result."""
    out = []
    for i, group in enumerate(groups):
        on_start(group, gpus[i % len(gpus)])
        try:
            result = work(group)
        except BaseException as exc:  # a group killed (Killed), as a lost Dask worker would be
            result = exc
        on_done(group, result)
        out.append(result)
    return out


def key(r):
    t = r.time_ms_median
    return r.method, r.experiment, r.graph, None if t is None or math.isnan(t) else t, r.skipped or ""


@pytest.mark.parametrize("profile", ["smoke", "default", "paper"])
def test_groups_hold_every_cell_once_in_whole_series(profile):
    cfg = mm.config(profile)
    cells = mm.cells(cfg)
    groups = map_spread.groups(cfg, cells)
    where = lambda c: (c["n"], c["topology"], c["density"])  # noqa: E731
    spread = [where(c) for g in groups for c in mm.cells(g.cfg)]
    assert sorted(spread) == sorted(map(where, cells))  # each cell in exactly one group
    for g in groups:
        assert {c["series"] for c in mm.cells(g.cfg)} == g.series
        assert len(g.series) <= map_spread.DENSITIES_PER_GROUP
    assert [g.graphs for g in groups] == sorted((g.graphs for g in groups), reverse=True)
    names = [g.name for g in groups]
    assert len(set(names)) == len(names) and "ring" in names and "complete" in names


def test_neighbouring_densities_share_a_group():
    groups = {g.name: g for g in map_spread.groups(mm.config("paper"), mm.cells(mm.config("paper")))}
    assert groups["random-d2-d8"].series == {"random/d2", "random/d8"}
    assert groups["random-d32-d256"].cfg["densities"] == (32, 256)  # the late ones borrow from each other


def test_spread_sweep_measures_what_the_plain_sweep_does_and_merges_in_cell_order(monkeypatch, tmp_path):
    methods = [DENSE, SSSP]
    monkeypatch.setattr(mm.timing, "run", FakeTimer())
    whole = mm.sweep(CFG, methods=methods)
    monkeypatch.setattr(mm.timing, "run", FakeTimer())
    spread = mm.sweep_on_gpus(CFG, out_dir=tmp_path, gpus=["0", "1"], methods=methods, run_on_gpus=in_process)
    assert sorted(map(key, spread.records)) == sorted(map(key, whole.records))
    order = map_spread.cell_order(CFG)
    assert [order(r) for r in spread.records] == sorted(order(r) for r in spread.records)
    assert [(c["n"], c["topology"]) for c in spread.cells] == [(c["n"], c["topology"]) for c in whole.cells]
    assert sorted(p.name for p in tmp_path.glob("records_*.csv")) == ["records_apsp.csv", "records_sssp.csv"]
    assert len(pd.read_csv(tmp_path / "records_apsp.csv")) == sum(r.experiment == "apsp" for r in whole.records)
    spread_note = report.read_run(tmp_path)["spread"]  # run.json says how it ran; the gallery shows it
    assert "3 groups" in spread_note and "GPUs 0, 1" in spread_note and "took turns" in spread_note
    assert spread_note in gallery.run_line(report.read_run(tmp_path))


def test_one_gpu_runs_the_plain_sweep(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(mm.timing, "run", FakeTimer())
    mm.sweep_on_gpus(CFG, out_dir=tmp_path, gpus=["0"], methods=[DENSE])
    assert "one GPU" not in capsys.readouterr().out  # nothing to explain on a one-GPU host
    assert not list(tmp_path.glob(f"records_*{map_spread.PART_SEP}*.csv"))


def test_a_killed_group_is_resumed_from_its_own_records(monkeypatch, tmp_path):
    methods = [DENSE, SSSP]
    monkeypatch.setattr(mm.timing, "run", FakeTimer())
    whole = mm.sweep(CFG, methods=methods)
    first = FakeTimer()

    def ring_killed_at_256(method, graph, **more):
        if graph.name.startswith("ring") and graph.n == 256:
            raise Killed()
        return first(method, graph, **more)

    monkeypatch.setattr(mm.timing, "run", ring_killed_at_256)
    with pytest.raises(RuntimeError, match=r"groups ring \(Killed.*--resume"):
        mm.sweep_on_gpus(CFG, out_dir=tmp_path, gpus=["0", "1"], methods=methods, run_on_gpus=in_process)
    parts = sorted(p.stem.removeprefix("records_") for p in tmp_path.glob("records_*.csv"))
    assert "apsp@ring" in parts and "sssp@random-d2-d8" in parts and "apsp" not in parts
    # what reproduce --resume leaves: every saved records file kept (test_runner)
    (tmp_path / report.RESUME_FILE).write_text(json.dumps({"commit": "abc", "experiments": parts}))
    again = FakeTimer()
    monkeypatch.setattr(mm.timing, "run", again)
    resumed = mm.sweep_on_gpus(CFG, out_dir=tmp_path, gpus=["0", "1"], methods=methods, run_on_gpus=in_process)
    ring_256 = [r for r in whole.records if r.graph.startswith("ring") and r.n == 256 and not r.skipped]
    assert ring_256 and len(again.calls) == len(ring_256)  # only what the killed group had left
    assert sorted(map(key, resumed.records)) == sorted(map(key, whole.records))
    assert not list(tmp_path.glob(f"records_*{map_spread.PART_SEP}*.csv"))  # merged: the groups' files go


def test_reuse_reaches_only_the_group_of_the_series(monkeypatch, tmp_path):
    methods = [DENSE]
    monkeypatch.setattr(mm.timing, "run", FakeTimer())
    mm.sweep(CFG, methods=methods, out_dir=tmp_path)  # a whole sweep saved: a later spread reuses it all
    (tmp_path / report.RESUME_FILE).write_text(json.dumps({"commit": "abc", "experiments": ["apsp", "sssp"]}))
    again = FakeTimer()
    monkeypatch.setattr(mm.timing, "run", again)
    seen = {}

    def recording(groups, work, gpus, on_start, on_done):
        seen.update({g.name: {map_spread.series_of(r) for r in g.reuse.values()} for g in groups})
        return in_process(groups, work, gpus, on_start, on_done)

    mm.sweep_on_gpus(CFG, out_dir=tmp_path, gpus=["0", "1"], methods=methods, run_on_gpus=recording)
    assert not again.calls
    assert seen["ring"] == {"ring"} and seen["random-d2-d8"] == {"random/d2", "random/d8"}


def test_the_groups_go_through_dask_worker_processes(tmp_path, monkeypatch):
    """The default path end to end, with CPU workers of a local Dask cluster standing in for the
    GPUs' dask-cuda workers: the groups and their sweeps pickle to worker processes and back
    (SciPy's reference method alone needs no GPU)."""
    pytest.importorskip("distributed")
    import contextlib

    from apsp_kernels import multi_gpu
    from apsp_kernels.distributed import cluster

    @contextlib.contextmanager
    def cpu_client(gpus):
        client = cluster.local(cpu_workers=len(gpus), resources={multi_gpu.GPU_RESOURCE: 1},
                               dashboard_address=None, set_as_default=False)
        try:
            yield client
        finally:
            cluster.close(client)

    monkeypatch.setattr(multi_gpu, "local_cuda_client", cpu_client)
    monkeypatch.setattr(multi_gpu, "why_not_parallel", lambda gpus, jobs: "")
    cfg = {**CFG, "sizes": (64, 128), "topologies": ("random", "ring")}
    result = mm.sweep_on_gpus(cfg, out_dir=tmp_path, gpus=["0", "1"], methods=[])
    df = mm.frame(result.records)
    assert len(df) == 2 * len(result.cells) and df["verified"].all()  # SciPy's sssp and apsp per graph
    assert sorted(p.name for p in tmp_path.glob("records_*.csv")) == ["records_apsp.csv", "records_sssp.csv"]
