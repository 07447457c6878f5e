"""Structure of the method-map and cross-paper notebooks: a papermill parameters cell, thin cells
over the library (no algorithm code), committed without outputs; only the method map writes
the decision table."""
import ast
import json
from pathlib import Path

import numpy as np
import pytest

from apsp_kernels.experiments import cross_paper, method_map

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
DRIVERS = {"method_map": ("mm", method_map), "cross_paper": ("xp", cross_paper)}
ALLOWED_IMPORTS = {"apsp_kernels", "apsp_kernels.experiments", "IPython.display", "pandas",
                   "matplotlib.pyplot"}


def cells(stem):
    return json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text())["cells"]


def code(stem):
    return [c for c in cells(stem) if c["cell_type"] == "code"]


@pytest.mark.parametrize("stem", DRIVERS)
def test_parameters_cell_comes_first(stem):
    first = code(stem)[0]
    assert "parameters" in first["metadata"].get("tags", [])
    tree = ast.parse("".join(first["source"]))
    names = {t.id for node in tree.body for t in node.targets}
    assert {"profile", "output_dir"} <= names
    assert all(isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
               for node in tree.body)
    assert ast.literal_eval(tree.body[0].value) == "default"


@pytest.mark.parametrize("stem", DRIVERS)
def test_committed_without_outputs(stem):
    for c in code(stem):
        assert c["outputs"] == [] and c["execution_count"] is None


@pytest.mark.parametrize("stem", DRIVERS)
def test_cells_hold_no_algorithm_code(stem):
    alias, module = DRIVERS[stem]
    for c in code(stem)[1:]:
        tree = ast.parse("".join(c["source"]))
        for node in ast.walk(tree):
            assert not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Lambda, ast.While))
            if isinstance(node, ast.ImportFrom):
                assert node.module in ALLOWED_IMPORTS, node.module
            if isinstance(node, ast.Import):
                assert all(a.name in ALLOWED_IMPORTS for a in node.names)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == alias:
                assert hasattr(module, node.attr), f"{stem} calls {alias}.{node.attr}, which is gone"


def test_only_the_method_map_writes_the_decision_table():
    mm_source = "".join("".join(c["source"]) for c in code("method_map"))
    xp_source = "".join("".join(c["source"]) for c in code("cross_paper"))
    assert "write_decision_table" in mm_source and "decision_table" in "".join(code("method_map")[0]["source"])
    assert "decision_table" not in xp_source and "calibrate" not in xp_source
    assert not hasattr(cross_paper, "calibrate")


def test_cross_paper_reaches_32768_and_both_road_graphs():
    cfg = cross_paper.config("default")
    assert max(cfg["sizes"]) == 32768 and {8192, 16384} <= set(cfg["sizes"])
    assert cfg["roads"] == ("NY", "BAY") and cfg["cap_s"] > 0


def test_cross_paper_caps_a_run_predicted_too_long():
    from apsp_kernels import generators, registry
    cfg = cross_paper.config("default")
    g = generators.k_regular_digraph(2048, 4, seed=0, w_low=1, w_high=101)
    rk = registry.get("pandey", "rkleene")
    slow = cross_paper.plan(rk, [method_map.Point(1024, 4096, 1024, 500.0)], g, cfg)
    assert slow.skip.startswith("predicted 4 s") and slow.predicted_ms == pytest.approx(4000.0)
    fast = cross_paper.plan(rk, [method_map.Point(1024, 4096, 1024, 5.0)], g, cfg)
    assert not fast.skip and fast.k == g.n and fast.repeats == cfg["repeats"]


def test_cross_paper_names_every_source_of_a_per_source_method():
    from apsp_kernels import generators, registry
    cfg = cross_paper.config("default")
    g = generators.k_regular_digraph(256, 4, seed=0, w_low=1, w_high=101)
    wl = cross_paper.plan(registry.get("fast", "sssp_worklist"), [], g, cfg)
    assert np.array_equal(wl.sources, np.arange(256))  # None would time vertex 0 only
    assert cross_paper.plan(registry.get("pandey", "rkleene"), [], g, cfg).sources is None
