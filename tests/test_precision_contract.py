"""The precision contract (apsp_kernels/csgraph/inputs.py, README "Precision") on the CPU: which
dtype each input gets, what is refused and what the message says, and that the host answers
equal SciPy's. tests/test_float64_gpu.py checks the same contract on the GPU kernels."""
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph as scipy_csgraph

import apsp_kernels.csgraph as ak
from apsp_kernels import oracle
from apsp_kernels.csgraph import auto, inputs
from apsp_kernels.csgraph.families import FAMILIES, Family
from apsp_kernels.errors import InputError
from apsp_kernels.graph import Graph
from apsp_kernels.inf import INF_INT32, KERNEL_SUFFIX, from_public, inf_for, to_public


def dtype_of(a, **kw):
    return inputs.prepare(a, **kw).graph.dtype


def chain(n, w, dtype=np.int64):
    """0 -> 1 -> ... -> n-1, every arc weighing ``w``, as a SciPy CSR matrix."""
    return sp.csr_matrix((np.full(n - 1, w, dtype=dtype), (np.arange(n - 1), np.arange(1, n))), shape=(n, n))


# ------------------------------------------------------------------ dtype selection
def test_fractional_floats_run_in_float64_by_default():
    a = sp.csr_matrix(np.array([[0, 0.1, 0], [0, 0, 0.2], [0.3, 0, 0]]))
    assert dtype_of(a) == np.float64
    assert dtype_of(a.toarray()) == np.float64
    assert dtype_of(a.astype(np.float32)) == np.float64  # float32 input too: float32 is opt-in only


def test_whole_numbers_stay_exact_int32_where_the_bound_fits():
    for a in (chain(5, 7), chain(5, 7.0, np.float64), chain(5, 7, np.int32), chain(5, True, bool)):
        assert dtype_of(a) == np.int32


def test_int32_distances_past_inf_widen_to_float64_exactly():
    a = chain(8, 2**30 - 5)  # each weight fits int32, the path does not
    g = inputs.prepare(a).graph
    assert g.dtype == np.float64 and g.meta["widened_from"] == "int32"
    d = ak.shortest_path(a, method="scipy")
    assert d[0, 7] == 7 * (2**30 - 5)
    np.testing.assert_array_equal(d, scipy_csgraph.shortest_path(a))


def test_int64_weights_above_2_30_are_answered_on_the_host():
    a = chain(6, 2**40 + 3)
    a[5, 0] = 2**31 + 1
    assert dtype_of(a) == np.float64
    d = ak.shortest_path(a)  # no GPU here: the host path (it was refused before)
    np.testing.assert_array_equal(d, scipy_csgraph.shortest_path(a))
    assert d[0, 5] == 5 * (2**40 + 3)


def test_what_no_dtype_holds_is_refused_and_says_so():
    for big in (2**53, 2**53 + 1, 2**62):
        with pytest.raises(InputError, match=r"no dtype of the\s+kernels holds"):
            inputs.prepare(chain(3, big))
        with pytest.raises(InputError, match=r"no dtype of the\s+kernels holds"):
            inputs.prepare(chain(3, big).toarray())
    with pytest.raises(InputError, match=r"2\*\*53.*no dtype of the kernels holds them"):
        inputs.prepare(chain(40, 2**48))  # every weight is exact, the sums are not
    assert dtype_of(chain(2, 2**52)) == np.float64  # one arc: the longest path is 2**52
    assert dtype_of(chain(3, 1e300, np.float64)) == np.float64  # float input: SciPy's float64, no refusal


def test_explicit_float64_and_float32():
    a = chain(4, 3)
    assert dtype_of(a, dtype=np.float64) == np.float64
    assert dtype_of(a, dtype=np.float32) == np.float32
    assert dtype_of(a, dtype="float32") == np.float32
    for bad in (np.int32, np.float16, "half", int):
        with pytest.raises(InputError, match="dtype must be None"):
            inputs.prepare(a, dtype=bad)


@pytest.mark.parametrize("value, why", [(1e-40, "flush to 0"), (-1e-39, "flush to 0"),
                                        (1e39, "overflows to inf"), (-3.5e38, "overflows to inf")])
def test_float32_opt_in_refuses_what_float32_cannot_hold(value, why):
    a = sp.csr_matrix(([1.5, value], ([0, 1], [1, 2])), shape=(3, 3))
    with pytest.raises(InputError, match=why) as exc:
        inputs.prepare(a, dtype=np.float32)
    msg = str(exc.value)
    assert repr(value) in msg and "float32" in msg and "dtype=None or np.float64" in msg
    assert dtype_of(a) == np.float64  # the default holds it


def test_float32_opt_in_keeps_the_smallest_normal():
    tiny = float(np.finfo(np.float32).tiny)
    a = sp.csr_matrix(([tiny, 2.0], ([0, 1], [1, 2])), shape=(3, 3))
    assert inputs.prepare(a, dtype=np.float32).graph.weights.min() == np.float32(tiny)


@pytest.mark.parametrize("w", [1e-40, 1e39, 1e-300, 1e300])
def test_tiny_and_huge_weights_equal_scipy_in_float64(w):
    a = sp.csr_matrix(([w, w, 5.0], ([0, 1, 2], [1, 2, 0])), shape=(3, 3))
    g = inputs.prepare(a).graph
    assert g.dtype == np.float64 and set(g.weights.tolist()) == {w, 5.0}
    np.testing.assert_array_equal(ak.shortest_path(a), scipy_csgraph.shortest_path(a))


def test_no_precision_warning_any_more():
    a = sp.csr_matrix(np.array([[0, 0.1], [0.2, 0]]))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ak.shortest_path(a)
        ak.shortest_path(a, dtype=np.float32)
    assert not [w for w in seen if issubclass(w.category, ak.PrecisionWarning)]


def test_negative_zero_reads_as_zero():
    g = Graph.from_edges(2, [0], [1], [-0.0], dtype=np.float64)
    assert not np.signbit(g.weights[0])  # the kernels' atomic min orders bit patterns


def test_graph_input_keeps_its_dtype_unless_asked():
    g = Graph.from_edges(3, [0, 1], [1, 2], [0.5, 0.25], dtype=np.float32)
    assert inputs.prepare(g).graph.dtype == np.float32
    assert inputs.prepare(g, dtype=np.float64).graph.dtype == np.float64


# ------------------------------------------------------------------ the pieces below the API
def test_inf_and_suffixes_cover_float64():
    assert inf_for(np.float64) == np.inf and KERNEL_SUFFIX[np.dtype(np.float64)] == "f64"
    d = np.array([0.5, np.inf])
    np.testing.assert_array_equal(to_public(from_public(d, np.float64)), d)
    assert from_public(d, np.float64).dtype == np.float64
    assert inf_for(np.int32) == INF_INT32


def test_float32_kernels_refuse_float64_graphs_instead_of_rounding():
    g = Graph.from_edges(3, [0, 1], [1, 2], [0.1, 0.2], dtype=np.float64)
    with pytest.raises(InputError, match="float32 only.*float64 weights"):
        g.check_float32_exact("takafuji")


def test_oracle_tolerance_per_dtype():
    assert oracle.rtol_for(np.float64) == 1e-12 and oracle.rtol_for(np.int32) == 0.0
    want = np.array([[0.0, 1e6]])
    assert oracle.compare(want * (1 + 1e-13), want, True, oracle.rtol_for(np.float64))[0]
    assert not oracle.compare(want * (1 + 1e-9), want, True, oracle.rtol_for(np.float64))[0]


def test_every_family_has_float64_methods():
    for fam in FAMILIES.values():
        assert fam.key(np.float64, False) and fam.refusal(np.float64, False) == "", fam.name
        assert bool(fam.key(np.float64, True)) == bool(fam.key(np.int32, True)), fam.name


def test_a_family_without_float64_says_so():
    fam = Family("x", "test", True, int32="pandey:rkleene", float32="pandey:rkleene")
    assert fam.key(np.float64, False) is None
    assert fam.refusal(np.float64, False) == ("family 'x' has no method for float64 weights "
                                              "(it has: int32, float32)")


def test_auto_estimates_float64_from_32_bit_rows_and_says_so():
    table = auto.index(pd.DataFrame([
        {"problem": "all_pairs", "dtype": "int32", "n": 1024, "m": 10_000, "method": "fast:rkleene",
         "family": "FW", "time_ms": 10.0, "device": "H100", "source": "t"},
        {"problem": "all_pairs", "dtype": "int32", "n": 1024, "m": 2048, "method": "fast:multi_source",
         "family": "multi_source", "time_ms": 4.0, "device": "H100", "source": "t"}]))
    g64 = Graph.from_edges(1024, np.arange(1023), np.arange(1, 1024), np.full(1023, 0.5), dtype=np.float64)
    g32 = Graph.from_edges(1024, np.arange(1023), np.arange(1, 1024), np.full(1023, 1), dtype=np.int32)
    dense, note = auto._estimate(FAMILIES["FW"], table, g64, 1024, False)
    assert dense == pytest.approx(10.0 * 14.6 / 3.4) and "estimate" in note
    assert auto._estimate(FAMILIES["FW"], table, g32, 1024, False)[0] == pytest.approx(10.0)
    sparse, note = auto._estimate(FAMILIES["multi_source"], table, g64, 1024, False)
    want32 = auto._estimate(FAMILIES["multi_source"], table, g32, 1024, False)[0]
    assert sparse == pytest.approx(want32 * 1.5) and "bytes per arc" in note
