"""Compiling ahead (apsp_kernels.precompile), the one-time compile notice, and the library notebook's
first-call driver (apsp_kernels.experiments.first_call), on the CPU."""
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from apsp_kernels import precompile
from apsp_kernels.experiments import first_call
from apsp_kernels.numba_cache import OneTimeCompile, cache_path, is_cached, njit
from apsp_kernels.sssp_hierarchy import contraction

CHECK = """
import json, warnings, numpy as np
from apsp_kernels.sssp_hierarchy import contraction as c
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    before = c.compiled_on_disk(np.int32)
    if before:
        c.compile_for(np.int32)
print(json.dumps({"cached": before, "notices": [str(w.message) for w in seen]}))
"""


def _python(code_or_args, cache_dir):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    args = ["-c", code_or_args] if isinstance(code_or_args, str) else code_or_args
    done = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_precompile_fills_the_numba_cache_and_the_next_process_compiles_nothing(tmp_path):
    assert json.loads(_python(CHECK, tmp_path).splitlines()[-1]) == {"cached": False, "notices": []}
    out = _python(["-m", "apsp_kernels.precompile", "--dtypes", "int32", "--no-gpu"], tmp_path)
    assert "numba contraction, int32 weights:" in out and "no CUDA GPU here" in out and str(tmp_path) in out
    assert "numba add of the workers' per-vertex sums:" in out
    after = json.loads(_python(CHECK, tmp_path).splitlines()[-1])
    assert after == {"cached": True, "notices": []}  # loaded from the cache: no notice, no compile


def test_entry_points_are_the_signatures_the_contraction_compiles():
    g = contraction.Graph(3, np.array([0, 1, 2, 3], dtype=np.int32), np.array([1, 2, 0], dtype=np.int32),
                          np.array([1.5, 2.0, 1.0], dtype=np.float32), name="3-cycle")
    contraction.contract(g)
    for dispatcher, argtypes in contraction.entry_points(np.float32):
        assert tuple(argtypes) in [tuple(s) for s in dispatcher.signatures], dispatcher.py_func.__name__
        assert is_cached(dispatcher, argtypes)  # compiled in this process
    assert contraction.entry_points(np.float32)[0][0] is not contraction.entry_points(np.float32, False)[0][0]


def test_is_cached_false_for_an_uncompiled_signature_and_without_a_cache():
    from numba import types

    @njit
    def twice(x):
        return 2 * x

    assert not is_cached(twice, (types.int64,)) and cache_path(twice) == ""
    twice(3)
    assert is_cached(twice, (types.int64,)) and not is_cached(twice, (types.float64,))


def test_the_notice_comes_before_a_cold_compile_only(monkeypatch):
    monkeypatch.setattr(contraction, "COMPILE_SECONDS", {})
    monkeypatch.setattr(contraction, "contract", lambda graph, parallel=None: None)
    monkeypatch.setattr(contraction, "compiled_on_disk", lambda dtype, parallel=None: False)
    with pytest.warns(OneTimeCompile, match=r"one time, about \d+ s; cached in .+precompile"):
        contraction.compile_for(np.int32)
    monkeypatch.setattr(contraction, "COMPILE_SECONDS", {})
    monkeypatch.setattr(contraction, "compiled_on_disk", lambda dtype, parallel=None: True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OneTimeCompile)
        contraction.compile_for(np.int32)  # warm: silent


def test_dtype_groups_share_a_process_by_exact_weights():
    assert precompile.numba_groups(("int32", "float32", "float64")) == [("int32",), ("float64", "float32")]
    assert precompile.numba_groups(("float32",)) == [("float32",)] and precompile.numba_groups(()) == []


def test_precompile_cli_refuses_an_unknown_dtype(capsys):
    with pytest.raises(SystemExit):
        precompile.main(["--dtypes", "int8"])
    assert "--dtypes takes int32, float64, float32; got int8" in capsys.readouterr().err


def test_first_call_children_get_empty_caches_and_no_hierarchy_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("APSP_HIERARCHY_CACHE", str(tmp_path / "h"))
    env = first_call.child_env(str(tmp_path / "n"), str(tmp_path / "c"))
    assert "APSP_HIERARCHY_CACHE" not in env
    assert env["NUMBA_CACHE_DIR"] == str(tmp_path / "n") and env["CUPY_CACHE_DIR"] == str(tmp_path / "c")


SMALL = {"profile": "smoke", "graph": {"kind": "road_like", "n": 400, "m": 1120, "for": "USA-road-d.NY"},
         "sources": 64, "all_sources": False, "scenarios": ("cold",), "skip": ""}


def test_first_call_is_skipped_in_the_smoke_profile_and_measured_in_default():
    smoke = first_call.measure(first_call.config("smoke"))
    assert len(smoke) == 1 and smoke[0].skipped.startswith("smoke profile") and smoke[0].profile == "smoke"
    default = first_call.config("default")
    assert default["scenarios"] == ("cold", "precompiled") and default["graph"] == {"kind": "dataset", "name": "NY"}
    assert default["sources"] == 4096 and default["all_sources"]


def test_first_call_driver_runs_its_subprocess_on_a_small_graph():
    recs = first_call.measure(SMALL)
    assert recs and all(r.paper == "library" and r.experiment == "first_call" for r in recs)
    assert all(r.param("scenario") == "cold" and r.profile == "smoke" for r in recs)
    from apsp_kernels import gpu
    if not gpu.available():
        assert len(recs) == 1 and "no CUDA GPU" in recs[0].skipped
    else:
        assert [r.param("nth") for r in recs] == ["first", "second"] and all(r.verified for r in recs)
    assert list(first_call.table(recs)["scenario"]) == ["cold"] * len(recs)


def test_first_call_reports_a_failed_subprocess_as_skipped(tmp_path):
    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho boom >&2\nexit 3\n")
    broken.chmod(0o755)
    recs = first_call.measure(SMALL, python=str(broken))
    assert len(recs) == 1 and "exit 3" in recs[0].skipped and "boom" in recs[0].skipped


def test_precompile_compiles_every_cuda_module_of_the_road_path():
    """A fresh install's first every-source run on GPU workers loads these modules: each is in the
    package and compiled ahead, the in-place reductions' included (6 s cold on an H200)."""
    from apsp_kernels import gpu
    from apsp_kernels.distributed import reductions, sweep_reductions
    from apsp_kernels.sssp_hierarchy import phast, phast_batched
    road_path = {gpu.cu_path(reductions.__file__, reductions._CU), gpu.cu_path(sweep_reductions.__file__,
                 sweep_reductions._CU), phast._CU, phast_batched._CU}
    ahead = {gpu.PACKAGE_DIR / name for name in precompile.CUDA_MODULES}
    assert all(path.is_file() for path in ahead)
    assert {path.resolve() for path in road_path} <= {path.resolve() for path in ahead}
