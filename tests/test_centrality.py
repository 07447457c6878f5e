"""apsp_kernels.centrality against NetworkX's own functions on the same graphs.

Random directed and undirected graphs, weighted (whole numbers: compared exactly; floats: within
1e-12 relative) and unweighted, connected or not; the inputs SciPy's csgraph takes; the errors
raised before anything runs. GPU tests (marked) run the device path of the same checks.
"""
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apsp_kernels import centrality as C
from apsp_kernels import generators
from apsp_kernels.centrality import engine, sums
from apsp_kernels.csgraph import api as csgraph_api
from apsp_kernels.csgraph.api import HostWarning
from apsp_kernels.errors import InputError
from apsp_kernels.graph import Graph

pytestmark = pytest.mark.filterwarnings("ignore::apsp_kernels.csgraph.api.HostWarning")
RTOL = 1e-12


def random_graph(n, p, seed, directed, weights):
    """A NetworkX graph on 0..n-1 and its SciPy matrix (attribute "w"; None: unweighted)."""
    G = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    rng = np.random.default_rng(seed)
    for u, v in G.edges if weights else ():
        G[u][v]["w"] = int(rng.integers(1, 20)) if weights == "int" else float(rng.uniform(0.1, 10.0))
    A = nx.to_scipy_sparse_array(G, weight="w", nodelist=range(n), format="csr")
    return G, A


def close(got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=0)


def nx_array(d, n):
    return np.array([d[i] for i in range(n)], dtype=np.float64)


CASES = st.tuples(st.integers(1, 24), st.floats(0.02, 0.5), st.integers(0, 10**6), st.booleans(),
                  st.sampled_from(["int", "float", None]))


def _drawn(case):
    """(n, G, A, NetworkX's weight attribute or None, the weight kind, the library's keyword arguments)."""
    n, p, seed, directed, weights = case
    G, A = random_graph(n, p, seed, directed, weights)
    return n, G, A, "w" if weights else None, weights, {"directed": directed, "unweighted": weights is None}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CASES)
def test_closeness_and_harmonic_equal_networkx(case):
    n, G, A, distance, weights, kw = _drawn(case)
    got = C.closeness_centrality(A, **kw)
    want = nx_array(nx.closeness_centrality(G, distance=distance), n)
    if weights == "float":
        close(got, want)
    else:  # whole-number sums are exact, so the quotients are NetworkX's to the bit
        assert got.tolist() == want.tolist()
    close(C.closeness_centrality(A, wf_improved=False, **kw),
          nx_array(nx.closeness_centrality(G, distance=distance, wf_improved=False), n))
    close(C.harmonic_centrality(A, **kw), nx_array(nx.harmonic_centrality(G, distance=distance), n))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CASES)
def test_distance_measures_equal_networkx_or_raise_as_it_does(case):
    n, G, A, weight, weights, kw = _drawn(case)
    try:
        ecc = nx.eccentricity(G, weight=weight)
    except nx.NetworkXError as exc:
        with pytest.raises(C.NotConnectedError, match=str(exc)):
            C.eccentricity(A, **kw)
        for f in (C.diameter, C.radius, C.center, C.periphery, C.barycenter):
            with pytest.raises(C.NotConnectedError):
                f(A, **kw)
        with pytest.raises(C.NotConnectedError, match="not (strongly )?connected"):
            C.average_shortest_path_length(A, **kw)
        return
    if weights == "float":  # a GPU family may add a path's weights in another order: an ulp apart
        close(C.eccentricity(A, **kw), nx_array(ecc, n))
        close([C.diameter(A, **kw), C.radius(A, **kw)], [nx.diameter(G, weight=weight), nx.radius(G, weight=weight)])
    else:  # whole numbers: exact, and so are the sets read from them (float ties, such as the two ends of
        # an undirected diameter, may split by an ulp in one summation order and not in another)
        assert C.eccentricity(A, **kw).tolist() == nx_array(ecc, n).tolist()
        assert C.diameter(A, **kw) == nx.diameter(G, weight=weight)
        assert C.radius(A, **kw) == nx.radius(G, weight=weight)
        assert C.center(A, **kw).tolist() == sorted(nx.center(G, weight=weight))
        assert C.periphery(A, **kw).tolist() == sorted(nx.periphery(G, weight=weight))
        assert C.barycenter(A, **kw).tolist() == sorted(nx.barycenter(G, weight=weight))
    got = C.average_shortest_path_length(A, **kw)
    want = nx.average_shortest_path_length(G, weight=weight)
    assert got == want if weights != "float" else got == pytest.approx(want, rel=RTOL)


def test_subsets_read_the_same_values():
    G, A = random_graph(30, 0.12, 3, True, "int")
    every = C.closeness_centrality(A)
    assert C.closeness_centrality(A, indices=[7, 2, 7]).tolist() == every[[7, 2, 7]].tolist()
    assert C.closeness_centrality(A, indices=[4])[0] == nx.closeness_centrality(G, u=4, distance="w")
    want = nx.harmonic_centrality(G, nbunch=[5, 1], distance="w")
    close(C.harmonic_centrality(A, nbunch=[5, 1]), [want[5], want[1]])
    want = nx.harmonic_centrality(G, sources=[0, 3, 9], distance="w")
    close(C.harmonic_centrality(A, sources=[0, 3, 9]), nx_array(want, 30))
    want = nx.harmonic_centrality(G, nbunch=[2, 8], sources=[0, 3, 9, 11], distance="w")
    close(C.harmonic_centrality(A, nbunch=[2, 8], sources=[0, 3, 9, 11]), [want[2], want[8]])
    H = G.to_undirected()
    B = nx.to_scipy_sparse_array(H, weight="w", nodelist=range(30))
    if nx.is_connected(H):
        ecc = nx.eccentricity(H, v=[3, 4], weight="w")
        assert C.eccentricity(B, directed=False, indices=[3, 4]).tolist() == [ecc[3], ecc[4]]


def test_inputs_as_shortest_path_takes_them():
    G, A = random_graph(12, 0.4, 5, True, "int")
    want = C.closeness_centrality(A)
    dense = A.toarray().astype(np.float64)
    assert C.closeness_centrality(dense).tolist() == want.tolist()
    assert C.closeness_centrality(sp.coo_matrix(A)).tolist() == want.tolist()
    g = Graph.from_edges(12, *sp.find(A), dtype=np.int32)
    assert C.closeness_centrality(g).tolist() == want.tolist()
    # an explicit zero in sparse input is a zero-weight arc; in dense input, no edge (SciPy's rule)
    Z = sp.csr_matrix(([0.0, 1.0], ([0, 1], [1, 2])), shape=(3, 3))
    assert C.closeness_centrality(Z).tolist() == [0.0, 0.0, (2 / 2) * (2 / 2)]  # 1 is 0 away from 0
    assert C.closeness_centrality(Z.toarray()).tolist() == [0.0, 0.0, (1 / 1) * (1 / 2)]
    one = np.zeros((1, 1))
    assert C.closeness_centrality(one).tolist() == [0.0] and C.average_shortest_path_length(one) == 0.0


def test_bad_input_is_refused_before_anything_runs(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("no source may run")
    monkeypatch.setattr(engine, "reduce_rows", never)
    monkeypatch.setattr(C.measures, "reduce_rows", never)
    negative = sp.csr_matrix(([1.0, -2.0], ([0, 1], [1, 0])), shape=(2, 2))
    for f in (C.closeness_centrality, C.harmonic_centrality, C.eccentricity, C.diameter,
              C.average_shortest_path_length):
        with pytest.raises(InputError, match="negative weight.*unweighted=True"):
            f(negative)
    with pytest.raises(InputError, match="NaN"):
        C.closeness_centrality(sp.csr_matrix(([np.nan], ([0], [1])), shape=(2, 2)))
    with pytest.raises(InputError, match="no vertices"):
        C.harmonic_centrality(np.zeros((0, 0)))
    with pytest.raises(InputError, match="indices holds 5, outside 0..2"):
        C.closeness_centrality(np.ones((3, 3)), indices=[5])
    with pytest.raises(InputError, match="nbunch must be vertex ids"):
        C.harmonic_centrality(np.ones((3, 3)), nbunch=[True])
    two = sp.csr_matrix(([1.0], ([0], [1])), shape=(2, 2))
    with pytest.raises(C.NotConnectedError, match="digraph is not strongly connected"):
        C.diameter(two)
    with pytest.raises(C.NotConnectedError, match="^average_shortest_path_length: Graph is not connected"):
        C.average_shortest_path_length(sp.csr_matrix((3, 3)), directed=False)


def test_a_result_that_cannot_fit_is_refused(monkeypatch):
    monkeypatch.setattr(engine, "host_available_bytes", lambda: 1000)
    with pytest.raises(InputError, match="per-vertex sums of 100 vertices need"):
        C.closeness_centrality(np.ones((100, 100)))


def test_rows_are_reduced_in_blocks_and_the_host_note_is_said_once(monkeypatch):
    G, A = random_graph(40, 0.1, 9, True, "float")
    want = nx_array(nx.harmonic_centrality(G, distance="w"), 40)
    monkeypatch.setattr(engine, "HOST_BLOCK_BYTES", 8 * 40 * 3)  # blocks of 3 sources
    monkeypatch.setattr(sums, "SLICE_BYTES", 8 * 40 * 2)  # slices of 2 rows inside them
    monkeypatch.setattr(csgraph_api, "_said", set())
    monkeypatch.setattr(engine.gpu, "available", lambda: False)  # the host path, on a GPU host too
    seen = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        close(C.harmonic_centrality(A, explain=seen.append, progress=False), want)
        C.EVERY_SOURCE.clear()  # the second call runs its sources again, and does not say it again
        C.harmonic_centrality(A, progress=False)
    assert "in blocks of 3 sources" in seen[0].reason and seen[0].family == "scipy"
    assert sum(issubclass(w.category, HostWarning) for w in caught) == 1


def test_road_like_graph_equals_networkx():
    g = generators.road_like(300, 760, seed=4)
    A = g.to_scipy()
    G = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph, edge_attribute="w")
    assert C.closeness_centrality(g).tolist() == nx_array(nx.closeness_centrality(G, distance="w"), g.n).tolist()
    close(C.harmonic_centrality(A), nx_array(nx.harmonic_centrality(G, distance="w"), g.n))


def test_client_runs_the_same_on_a_dask_cluster():
    from apsp_kernels.distributed import cluster
    G, A = random_graph(40, 0.15, 12, True, "int")
    client = cluster.local(cpu_workers=1, processes=False)
    try:
        seen = []
        got = C.closeness_centrality(A, client=client, explain=seen.append, progress=False)
        assert got.tolist() == C.closeness_centrality(A).tolist() and seen[0].family == "distributed"
        close(C.harmonic_centrality(A, client=client, progress=False), C.harmonic_centrality(A))
        with pytest.raises(InputError, match="wf_improved=True only"):
            C.closeness_centrality(A, client=client, wf_improved=False)
    finally:
        cluster.close(client)


def scipy_closeness(A) -> np.ndarray:
    """Closeness from SciPy's whole distance matrix (the definition, tested against NetworkX above)."""
    from scipy.sparse.csgraph import dijkstra
    D = dijkstra(A)
    reach = np.isfinite(D)
    total, r = np.where(reach, D, 0).sum(axis=0), reach.sum(axis=0) - 1.0
    out = np.zeros(len(total))
    ok = total > 0
    out[ok] = r[ok] / total[ok] * (r[ok] / (len(total) - 1))
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("n, m", [(300, 760), (5000, 12000)])  # the auto family; batched PHAST
def test_device_path_equals_networkx_definitions(n, m):
    import cupyx.scipy.sparse as cusparse
    g = generators.road_like(n, m, seed=7)
    A = g.to_scipy()
    seen = []
    assert C.closeness_centrality(A, explain=seen.append).tolist() == scipy_closeness(A).tolist()  # whole numbers
    assert seen[0].family != "scipy" and (n < 4096 or seen[0].family == "phast"), str(seen[0])
    G = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph, edge_attribute="w")
    sample = [0, n // 2, n - 1]
    want = nx.harmonic_centrality(G, nbunch=sample, distance="w")
    close(C.harmonic_centrality(A)[sample], [want[v] for v in sample])
    close(C.harmonic_centrality(A, nbunch=sample), [want[v] for v in sample])
    assert C.closeness_centrality(A, indices=sample).tolist() == [nx.closeness_centrality(G, v, "w") for v in sample]
    try:
        want = nx.eccentricity(G, v=sample, weight="w")
    except nx.NetworkXError:
        with pytest.raises(C.NotConnectedError):
            C.eccentricity(cusparse.csr_matrix(A), indices=sample)
        return
    device = C.eccentricity(cusparse.csr_matrix(A), indices=sample)
    assert type(device).__module__.startswith("cupy") and device.get().tolist() == [want[v] for v in sample]


# ------------------------------------------------------------------ every source's sums, once per graph
def test_measures_of_one_graph_share_one_pass_over_its_sources(monkeypatch):
    from apsp_kernels.centrality import engine
    G, A = random_graph(30, 0.2, 7, True, "int")
    C.EVERY_SOURCE.clear()
    runs = []
    real = engine._on_host if not engine.gpu.available() else engine._on_gpu
    monkeypatch.setattr(engine, real.__name__, lambda *a, **k: runs.append(1) or real(*a, **k))
    first = C.harmonic_centrality(A)
    first[:] = -1  # the caller's array: the kept sums must not change with it
    close(C.harmonic_centrality(A), nx_array(nx.harmonic_centrality(G, distance="w"), 30))
    close(C.closeness_centrality(A), nx_array(nx.closeness_centrality(G, distance="w"), 30))
    assert len(runs) == 1
    B = A.copy()
    B.data[0] += 1  # another graph content: computed again
    C.harmonic_centrality(B)
    assert len(runs) == 2
    said = []
    C.harmonic_centrality(A, explain=said.append)
    assert said and "earlier call" in str(said[0])
    C.EVERY_SOURCE.clear()
    C.harmonic_centrality(A)
    assert len(runs) == 3


def test_the_sums_cache_keeps_at_most_its_count_and_bytes():
    from apsp_kernels.centrality.engine import SumsCache
    from apsp_kernels.centrality.sums import Sums
    cache = SumsCache(max_graphs=2, max_bytes=10_000)
    for key, n in (("a", 10), ("b", 10), ("c", 10)):
        cache.put(key, Sums(n, np.arange(n, dtype=np.int32)))
    assert len(cache) == 2 and cache.get("a") is None and cache.get("c") is not None
    cache.put("big", Sums(1000, np.arange(1000, dtype=np.int32)))  # 48 kB: over the bytes, not kept
    assert cache.get("big") is None and len(cache) == 2
