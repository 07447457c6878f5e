"""The block-size probe's rows on CPU workers (threads): one a GPU count and size, the default's
block as all_sources picks it, every run the first one's bits."""
from apsp_kernels.experiments import block_size_probe
from apsp_kernels.experiments.phast_batched import road_stand_in


def test_a_row_a_count_and_size_with_the_bits_of_the_first_run():
    g = road_stand_in(400)
    table = block_size_probe.measure(g, [1, 2], [64, 0], repeats=1, processes=False, log=lambda _: None)
    assert list(zip(table["gpus"], table["block_size_asked"])) == [(1, 64), (1, 0), (2, 64), (2, 0)]
    assert table["same_bits"].all()
    assert list(table["blocks"][table["block_size_asked"] == 64]) == [7, 7]
    defaults = table[table["block_size_asked"] == 0]
    assert (defaults["blocks"] % defaults["gpus"] == 0).all()  # all_sources' own: balanced over the workers
    assert (table["widest_block_sources"] <= table["block_size"]).all() and (table["us_per_source"] > 0).all()
