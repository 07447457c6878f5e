"""The overlap probe's CPU side: its seeded sub-blocks, its refusal without a GPU, and the share
of the GPU the in-place reductions may take, checked before anything is allocated."""
import numpy as np
import pytest

from apsp_kernels import gpu
from apsp_kernels.distributed import sweep_reductions
from apsp_kernels.experiments import overlap_probe


def test_sub_blocks_are_whole_distinct_seeded_blocks():
    blocks = overlap_probe.sub_blocks(10_000, 512, 5, seed=3)
    assert len(blocks) == 5 and all(len(b) == 512 and b[0] % 512 == 0 for b in blocks)
    assert np.array_equal(np.diff(blocks[0]), np.ones(511))
    assert len({int(b[0]) for b in blocks}) == 5
    assert all(np.array_equal(x, y) for x, y in zip(blocks, overlap_probe.sub_blocks(10_000, 512, 5, seed=3)))


@pytest.mark.skipif(gpu.available(), reason="the refusal is for hosts without a GPU")
def test_the_probe_says_it_needs_a_gpu_and_runs_nothing(tmp_path, capsys):
    assert overlap_probe._cli([str(tmp_path / "out")]) == 2
    assert "needs a GPU" in capsys.readouterr().err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("share", [0.0, -0.5, 1.5])
def test_a_share_of_the_gpu_outside_zero_to_one_is_refused(share):
    with pytest.raises(ValueError, match="gpu_share must be in"):
        sweep_reductions.reduce_matrix_packed(None, 1, 0, np.arange(3.0), None, None, gpu_share=share)
