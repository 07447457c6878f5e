"""The overlap probe's and the overlapped reductions' CPU side: seeded blocks, the refusal without
a GPU, the settings refused before anything is allocated, and which rows each pass beside the
sweep takes, on which share of the GPU (fake streams: no GPU needed)."""
import numpy as np
import pytest

from apsp_kernels import gpu
from apsp_kernels.distributed import sweep_reductions
from apsp_kernels.distributed.sweep_reductions import Overlap
from apsp_kernels.experiments import overlap_probe


def test_blocks_are_whole_distinct_seeded_blocks():
    blocks = overlap_probe.blocks_of(10_000, 512, 5, seed=3)
    assert len(blocks) == 5 and all(len(b) == 512 and b[0] % 512 == 0 for b in blocks)
    assert np.array_equal(np.diff(blocks[0]), np.ones(511))
    assert len({int(b[0]) for b in blocks}) == 5
    assert all(np.array_equal(x, y) for x, y in zip(blocks, overlap_probe.blocks_of(10_000, 512, 5, seed=3)))


@pytest.mark.skipif(gpu.available(), reason="the refusal is for hosts without a GPU")
def test_the_probe_says_it_needs_a_gpu_and_runs_nothing(tmp_path, capsys):
    assert overlap_probe._cli([str(tmp_path / "out")]) == 2
    assert "needs a GPU" in capsys.readouterr().err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("share", [0.0, -0.5, 1.5])
def test_a_share_of_the_gpu_outside_zero_to_one_is_refused(share):
    with pytest.raises(ValueError, match="gpu_share must be in"):
        sweep_reductions.reduce_matrix_packed(None, 1, 0, np.arange(3.0), None, None, gpu_share=share)
    with pytest.raises(ValueError, match="gpu_share must be in"):
        Overlap(gpu_share=share)


@pytest.mark.parametrize("segments", [0, -1, 2.5, True])
def test_segments_must_be_a_positive_int(segments):
    with pytest.raises(ValueError, match="segments must be a positive int"):
        Overlap(segments=segments)


class FakeStream:
    def __init__(self, log, name):
        self.log, self.name = log, name

    def record(self):
        self.log.append(("record", self.name))
        return self.name

    def wait_event(self, event):
        self.log.append(("wait", self.name, event))

    def __enter__(self):
        self.log.append(("enter", self.name))

    def __exit__(self, *exc):
        self.log.append(("exit", self.name))


class FakePasses:
    def __init__(self, log):
        self.log = log

    def rows(self, lo, hi, share):
        self.log.append(("rows", lo, hi, share))


def test_passes_beside_the_sweep_wait_for_its_rows_and_take_their_share():
    log = []
    as_swept = sweep_reductions._AsSwept(FakePasses(log), FakeStream(log, "sweep"), FakeStream(log, "reduce"),
                                         segment_rows=100, share=0.4)
    for lo, hi in [(1000, 1000), (950, 1000), (900, 950), (850, 900), (700, 850), (690, 700), (0, 690)]:
        as_swept.finished(lo, hi)
    passes = [entry[1:] for entry in log if entry[0] == "rows"]
    # 100 rows waiting: a pass on 0.4 of the GPU; the last launch's rows and what waits with them on all of it
    assert passes == [(900, 1000, 0.4), (700, 900, 0.4), (0, 700, 1.0)]
    for i, entry in enumerate(log):
        if entry[0] == "rows":  # each pass queued on the reductions' stream after it waited for the sweep's event
            assert log[i - 3:i] == [("record", "sweep"), ("wait", "reduce", "sweep"), ("enter", "reduce")]


def test_without_overlap_one_pass_takes_every_row_after_the_sweep():
    log = []
    as_swept = sweep_reductions._AsSwept(FakePasses(log), FakeStream(log, "sweep"), FakeStream(log, "reduce"),
                                         segment_rows=1001, share=1.0)
    for lo, hi in [(990, 1000), (400, 990), (0, 400)]:
        as_swept.finished(lo, hi)
    assert [entry[1:] for entry in log if entry[0] == "rows"] == [(0, 1000, 1.0)]


def test_a_probe_of_nothing_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(ValueError, match="nothing to time"):
        overlap_probe.main(tmp_path / "out", n=0, graphs=())
    assert not (tmp_path / "out").exists()
