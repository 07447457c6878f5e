"""The centrality notebook's space (:mod:`apsp_kernels.experiments.centrality`): its graphs, samples,
repeats and peers per profile, and the names its records and tables share."""
from __future__ import annotations

from ..profiles import choose

PAPER = "centrality"
MEASURES = ("closeness", "harmonic", "eccentricity")
TRIO = "+".join(MEASURES)
BETWEENNESS = "betweenness"
INPUTS = ("networkx", "scipy")  # a NetworkX DiGraph through the backend, a SciPy CSR matrix
PEERS = ("networkit", "igraph", "networkx")
AGREEMENT_RTOL = 1e-12  # the library's contract with NetworkX (float64, relative)
ESTIMATE_TOTAL_RTOL = 0.05  # NetworKit's sampled betweenness: its total beside the exact total


def config(profile: str) -> dict:
    """Graphs and sizes per profile. ``smoke``: two tiny road-like stand-ins, everything on the CPU in
    seconds; ``default`` and ``paper``: USA-road-d NY and BAY (or their labelled stand-ins), the
    paper profile with larger peer samples. ``every_source_on_host``: whether the library's every-source
    runs go ahead without a GPU (SciPy's Dijkstra on NY's every source takes hours)."""
    pick = lambda **kw: choose(profile, **kw)  # noqa: E731
    return {
        "profile": profile,
        "seed": 0,
        "repeats": pick(smoke=1, default=2, paper=3),
        "budget_s": pick(smoke=1.0, default=4.0, paper=6.0),
        "every_source_on_host": pick(smoke=True, default=False),
        "graphs": pick(smoke=[{"key": "ny", "graph": {"kind": "road_like", "n": 300, "m": 820, "for": "USA-road-d.NY"}},
                              {"key": "bay", "graph": {"kind": "road_like", "n": 400, "m": 1060,
                                                       "for": "USA-road-d.BAY"}}],
                       default=[{"key": "ny", "graph": {"kind": "dataset", "name": "NY"}},
                                {"key": "bay", "graph": {"kind": "dataset", "name": "BAY"}}]),
        "check_vertices": 8,  # sampled vertices whose values are checked against SciPy's rows
        "networkx_vertices": pick(smoke=4, default=3, paper=8),  # nx.closeness_centrality(G, u=v) calls
        "networkx_k": pick(smoke=4, default=4, paper=8),  # betweenness sources sampled in both
        "peer_sources": {"networkit": pick(smoke=256, default=256, paper=2048),
                         "igraph": pick(smoke=16, default=16, paper=64),
                         "networkx": pick(smoke=4, default=4, paper=8)},
        "networkit_chunk": 256,  # SPSP sources per call (each call's distances are k x n float64)
        "bins": 40,
        "top": 10,
        "first_call": {"scenarios": pick(smoke=(), default=("cold",), paper=()),
                       "skip": pick(smoke="smoke profile: a cold compile and contraction take tens of seconds "
                                          "(the default profile measures it)",
                                    default="", paper="the default profile measures it (results/centrality)"),
                       "graph": pick(smoke={"kind": "road_like", "n": 300, "m": 820, "for": "USA-road-d.NY"},
                                     default={"kind": "dataset", "name": "NY"})},
    }


def graph_label(key: str) -> str:
    """The dataset a graph key stands for, in words (verdicts and titles)."""
    return {"ny": "NY", "bay": "BAY"}.get(key, key)


# record methods the tables and verdicts look up
EXACT = "betweenness, exact (every source)"
NX_BETWEENNESS = "networkx betweenness_centrality (k sampled sources)"
NX_CLOSENESS = "networkx closeness_centrality(G, u=v)"


def our_method(measure: str, source: str) -> str:
    """The method of a timing of ours in ``<key>_measures``: e.g. ``closeness+harmonic+eccentricity from networkx``."""
    return f"{measure} from {source}"
