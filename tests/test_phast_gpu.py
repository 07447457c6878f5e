"""PhastSSSP (apsp_kernels/sssp_hierarchy/phast.cu) on the GPU against the oracle: all levels as
launches, all in the one-block top sweep, and the split between them; int32 and float32; several
sources; a DIMACS road (or its labelled stand-in)."""
import pytest

from apsp_kernels import datasets, oracle
from apsp_kernels.sssp_hierarchy.phast import TOP_MAX, PhastSSSP

from test_sssp_hierarchy import GRAPHS

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("top_vertices", [0, 64, TOP_MAX])
@pytest.mark.parametrize("name", GRAPHS)
def test_phast_against_oracle(name, top_vertices):
    g = GRAPHS[name]()
    sources = sorted({0, g.n // 2, g.n - 1})
    s = PhastSSSP(g, sources=sources, top_vertices=top_vertices)
    s.solve_once()
    result = oracle.verify(s.solution(), g)
    assert result["verified"], (name, top_vertices, result, s.stats)
    assert s.stats["levels"] >= 1 and s.stats["launches"] >= 2


def test_phast_on_a_road_from_vertex_0():
    g = datasets.load_or_stand_in("NY")
    s = PhastSSSP(g)
    s.solve_once()
    assert list(s.solution().sources) == [0]
    assert oracle.verify(s.solution(), g)["verified"], s.stats
