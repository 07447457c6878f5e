"""The scale notebook's claims about bounds (CPU: the numbers are given, not measured)."""
from apsp_kernels import generators
from apsp_kernels.experiments import scale as sc
from apsp_kernels.records import Record


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
