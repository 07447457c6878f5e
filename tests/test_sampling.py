import numpy as np

from apsp_kernels.sampling import scaled_sample, seeded_subset


def test_scaled_sample_labels_the_extrapolation():
    sources = np.arange(100)
    same, scale, how = scaled_sample(sources, None)
    assert scale == 1.0 and how == "" and len(same) == 100
    picked, scale, how = scaled_sample(sources, 10, seed=3)
    assert len(picked) == 10 and len(set(picked.tolist())) == 10 and (np.diff(picked) > 0).all()
    assert scale == 10.0 and "10 of 100" in how and "seed 3" in how
    assert np.array_equal(picked, scaled_sample(sources, 10, seed=3)[0])


def test_seeded_subset_is_a_sorted_subset_or_everything():
    ids = np.arange(50, 150)
    assert np.array_equal(seeded_subset(ids, 500), ids)
    picked = seeded_subset(ids, 7, seed=1)
    assert len(picked) == 7 and set(picked.tolist()) <= set(ids.tolist()) and (np.diff(picked) > 0).all()
    assert not np.array_equal(picked, seeded_subset(ids, 7, seed=2))
