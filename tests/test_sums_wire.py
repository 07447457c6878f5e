"""The per-vertex sums as they travel from a worker to the client (distributed.sums_wire)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from apsp_kernels.distributed import fixed_sums, sums_wire

TOPS = (0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 64 - 1)  # each word column's largest value: 0, 4, 4, 8, 8 bytes


def sums_of(n, tops, seed=0):
    """Sums whose word columns have the largest values ``tops`` (in :data:`.sums_wire.WORDS` order)."""
    rng = np.random.default_rng(seed)
    columns = [rng.integers(0, top, n, dtype=np.uint64, endpoint=True) if top else np.zeros(n, np.uint64)
               for top in tops]
    for column, top in zip(columns, tops):
        if n:
            column[rng.integers(n)] = top
    return {"sum_in": np.stack(columns[0:2], axis=1), "harmonic_in": np.stack(columns[2:4], axis=1),
            "reach_in": columns[4].view(np.int64)}


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 300), tops=st.tuples(*[st.sampled_from(TOPS)] * 5), seed=st.integers(0, 9))
def test_the_sums_come_back_bit_for_bit(n, tops, seed):
    sums = sums_of(n, tops, seed)
    back = sums_wire.pack(sums).unpack()
    for key in ("sum_in", "harmonic_in", "reach_in"):
        assert back[key].dtype == sums[key].dtype and back[key].shape == sums[key].shape
        np.testing.assert_array_equal(back[key], sums[key], err_msg=key)


def test_a_road_graph_s_sums_travel_in_28_bytes_a_vertex():
    """Distance sums at a scale above 64 (NY's is 77) have an all-zero low word; the counts fit 4
    bytes; the harmonic sums need both words whole."""
    n = 1000
    sums = sums_of(n, (0, 2 ** 50, 2 ** 63, 2 ** 42, 200_000))
    packed = sums_wire.pack(sums)
    assert packed.widths == (0, 8, 8, 8, 4) and packed.payload.nbytes == 28 * n
    np.testing.assert_array_equal(packed.unpack()["sum_in"], sums["sum_in"])


@pytest.mark.gpu
def test_sums_packed_on_the_gpu_are_the_bytes_numpy_packs():
    cp = pytest.importorskip("cupy")
    sums = sums_of(5000, (0, 2 ** 50, 2 ** 64 - 1, 7, 2 ** 32), seed=3)
    order = np.arange(5000)[::-1].copy()
    on_gpu = sums_wire.pack({key: cp.asarray(value[order]) for key, value in sums.items()})
    through = sums_wire.pack({key: cp.asarray(value) for key, value in sums.items()}, order=cp.asarray(order))
    on_host = sums_wire.pack(sums, order=order)
    assert on_gpu.widths == on_host.widths == (0, 8, 8, 4, 8)
    assert isinstance(on_gpu.payload, np.ndarray) and np.array_equal(on_gpu.payload, on_host.payload)
    assert np.array_equal(through.payload, on_host.payload)


def test_sums_taken_through_an_order_are_those_reordered_first():
    sums = sums_of(400, (5, 2 ** 40, 0, 2 ** 33, 9), seed=1)
    order = np.random.default_rng(2).permutation(400)
    through = sums_wire.pack(sums, order=order).unpack()
    for key, value in sums_wire.pack({key: value[order] for key, value in sums.items()}).unpack().items():
        np.testing.assert_array_equal(through[key], value, err_msg=key)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 200), tops=st.tuples(*[st.sampled_from(TOPS)] * 5), seed=st.integers(0, 9))
def test_sums_added_from_the_wire_are_those_added_unpacked(n, tops, seed):
    """Adding packed sums into totals (carries out of the low words included) gives the bits of
    :func:`.fixed_sums.add` of the unpacked ones."""
    from apsp_kernels.distributed import fixed_sums
    totals, part = sums_of(n, TOPS[-1:] * 5, seed + 10), sums_of(n, tops, seed)
    want = {key: value.copy() for key, value in totals.items()}
    for key in ("sum_in", "harmonic_in"):
        fixed_sums.add(want[key], part[key])
    want["reach_in"] += part["reach_in"]
    got = sums_wire.pack(part).add_into(totals)
    for key in want:
        assert got[key].dtype == want[key].dtype
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 200), tops=st.tuples(*[st.sampled_from(TOPS)] * 5), seed=st.integers(0, 9))
def test_a_payload_adds_into_totals_as_the_fixed_point_add_does(n, tops, seed):
    """Totals whose low words are near 2**64 carry into their high words, as fixed_sums.add does."""
    sums, before = sums_of(n, tops, seed), sums_of(n, (2 ** 64 - 1,) * 5, seed + 10)
    want = {key: value.copy() for key, value in before.items()}
    for key in ("sum_in", "harmonic_in"):
        fixed_sums.add(want[key], sums[key])
    want["reach_in"] += sums["reach_in"]
    got = sums_wire.pack(sums).add_into({key: value.copy() for key, value in before.items()})
    for key, value in want.items():
        np.testing.assert_array_equal(got[key], value, err_msg=key)


def test_totals_of_the_wrong_kind_are_refused_before_anything_is_added():
    sums = sums_of(10, (1, 2, 3, 4, 5))
    totals = {"sum_in": np.zeros((10, 2), np.uint64), "harmonic_in": np.zeros((10, 2), np.uint64),
              "reach_in": np.zeros(10, np.int32)}
    with pytest.raises(ValueError, match="reach_in: a writable C-contiguous int64 array of shape"):
        sums_wire.pack(sums).add_into(totals)
    assert not totals["sum_in"].any()
