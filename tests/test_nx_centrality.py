"""The backend's closeness, harmonic centrality and distance measures against NetworkX's own, through
NetworkX's dispatch, on Graph, DiGraph and MultiDiGraph (parallel edges: the lightest counts)."""
import networkx as nx
import numpy as np
import pytest

from apsp_kernels.nx_backend.interface import BackendInterface
from test_nx_backend import require_backend

BACKEND = "apsp_kernels"
pytestmark = [pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs"),
              pytest.mark.filterwarnings("ignore::apsp_kernels.csgraph.api.HostWarning")]
MEASURES = ("eccentricity", "diameter", "radius", "center", "periphery", "barycenter")


@pytest.fixture(autouse=True)
def _registered():
    require_backend()


def both(name, G, **kwargs):
    f = getattr(nx, name)
    return f(G, backend=BACKEND, **kwargs), f(G, backend="networkx", **kwargs)


def weighted(G, seed, multi_extra=0):
    rng = np.random.default_rng(seed)
    for e in list(G.edges(keys=True) if G.is_multigraph() else G.edges):
        G.edges[e]["length"] = int(rng.integers(1, 30))
    for u, v in list(G.edges())[:multi_extra]:  # a heavier and a lighter parallel edge
        G.add_edge(u, v, length=100)
        G.add_edge(u, v, length=1)
    return G


def strongly_connected(seed, kind):
    G = nx.gnp_random_graph(25, 0.25, seed=seed, directed=True)
    G.add_edges_from((i, (i + 1) % 25) for i in range(25))  # a cycle through every node
    G = nx.MultiDiGraph(G) if kind == "multi" else G.to_undirected() if kind == "undirected" else G
    return weighted(G, seed, multi_extra=8 if kind == "multi" else 0)


@pytest.mark.parametrize("kind", ["directed", "undirected", "multi"])
@pytest.mark.parametrize("seed", [1, 2])
def test_every_function_equals_networkx(kind, seed):
    G = strongly_connected(seed, kind)
    for distance in (None, "length"):
        got, want = both("closeness_centrality", G, distance=distance)
        assert got == want
        got, want = both("harmonic_centrality", G, distance=distance)
        assert got.keys() == want.keys() and np.allclose(list(got.values()), list(want.values()), rtol=1e-12, atol=0)
        for name in MEASURES:
            got, want = both(name, G, weight=distance)
            assert got == want and type(got) is type(want), name
    assert both("closeness_centrality", G, u=3, distance="length")[0] == nx.closeness_centrality(G, 3, "length")
    got, want = both("eccentricity", G, v=[4, 2], weight="length")
    assert got == want
    assert both("eccentricity", G, v=4)[0] == nx.eccentricity(G, 4)
    got, want = both("harmonic_centrality", G, nbunch=[3, 1], sources=[0, 5, 9], distance="length")
    assert got.keys() == want.keys() and np.allclose([got[3], got[1]], [want[3], want[1]], rtol=1e-12)
    assert both("diameter", G, usebounds=True, weight="length")[0] == nx.diameter(G, weight="length")


def test_disconnected_graphs_raise_as_networkx():
    G = nx.DiGraph([(0, 1), (1, 2)])
    got, want = both("closeness_centrality", G)
    assert got == want
    for name in ("eccentricity", "diameter", "center"):
        with pytest.raises(nx.NetworkXError, match="digraph is not strongly connected"):
            getattr(nx, name)(G, backend=BACKEND)
    with pytest.raises(nx.NetworkXError, match="the graph is not connected"):
        nx.eccentricity(nx.Graph([(0, 1), (2, 3)]), backend=BACKEND)
    with pytest.raises(nx.NetworkXNoPath, match="disconnected"):
        nx.barycenter(nx.Graph([(0, 1), (2, 3)]), backend=BACKEND)
    assert both("closeness_centrality", nx.empty_graph(0)) == ({}, {})


def test_what_the_backend_cannot_honour_is_declined():
    G = strongly_connected(3, "directed")
    G.edges[0, 1]["neg"] = -1
    fn = lambda u, v, d: 1  # noqa: E731
    declined = [("closeness_centrality", (G,), {"distance": fn}, "callable distance"),
                ("harmonic_centrality", (G,), {"distance": "neg"}, "negative"),
                ("eccentricity", (G,), {"sp": {}}, "sp= given"),
                ("diameter", (G,), {"e": {0: 1}}, "e= given"),
                ("center", (G,), {"weight": fn}, "callable"),
                ("barycenter", (G,), {"attr": "b"}, "attr= given")]
    for name, args, kwargs, why in declined:
        reason = BackendInterface.can_run(name, args, kwargs)
        assert isinstance(reason, str) and why in reason, (name, reason)
    assert BackendInterface.can_run("diameter", (G,), {"usebounds": True}) is True
