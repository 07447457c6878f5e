"""apsp_kernels.numba_cache: numba's on-disk cache shared safely between processes (xdist or Dask
workers on a fresh machine): a cached function that links a cached parallel one loads in a fresh
process, and each cache entry is read and written under a lock."""
import fcntl
import os
import subprocess
import sys
import textwrap
import time

import pytest

from apsp_kernels import numba_cache

MODULE = textwrap.dedent("""
    from apsp_kernels.numba_cache import njit

    @njit(cache=True)
    def weighted_sum(x):
        s = x[0] * 0
        for i in range(x.shape[0]):
            s += x[i] * (i + 1)
        return s
""")

CALLER = textwrap.dedent("""
    import sys
    import numpy as np
    import cachedmod
    print("calling", flush=True)
    values = [float(cachedmod.weighted_sum(np.arange(1, 6, dtype=t))) for t in sys.argv[1:]]
    print("done", values, dict(cachedmod.weighted_sum.stats.cache_hits), flush=True)
""")

PARALLEL_MODULE = textwrap.dedent("""
    import numpy as np
    from numba import prange
    from apsp_kernels.numba_cache import njit

    @njit(cache=True, parallel=True)
    def doubled(x):
        out = np.empty_like(x)
        for i in prange(x.shape[0]):
            out[i] = 2 * x[i]
        return out

    @njit(cache=True)
    def doubled_sum(x):
        return doubled(x).sum()
""")


def _env(module_dir):
    path = [str(module_dir), os.getcwd(), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    return env


def _python(module_dir, code):
    return subprocess.run([sys.executable, "-c", code], cwd=module_dir, env=_env(module_dir),
                          capture_output=True, text=True, timeout=300)


def test_a_function_compiled_over_a_cached_parallel_one_loads_first_in_a_fresh_process(tmp_path):
    """numba saves such a function without the note to start its threading layer on load; loaded
    first in a new process, plain numba crashes (segmentation fault or "Symbol not found:
    allocate_sched")."""
    (tmp_path / "parmod.py").write_text(PARALLEL_MODULE)
    steps = ["import numpy as np, parmod; print(parmod.doubled(np.arange(10.0)).sum())",      # doubled cached
             "import numpy as np, parmod; print(parmod.doubled_sum(np.arange(10.0)))",        # over the cached one
             "import numpy as np, parmod; print(parmod.doubled_sum(np.arange(10.0)), "
             "dict(parmod.doubled_sum.stats.cache_hits))"]                                    # loaded first
    outs = [_python(tmp_path, code) for code in steps]
    for done in outs:
        assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert [o.stdout.split()[0] for o in outs] == ["90.0"] * 3
    assert ": 1}" in outs[2].stdout, outs[2].stdout  # the last one ran from the cache


@pytest.fixture
def module_dir(tmp_path):
    (tmp_path / "cachedmod.py").write_text(MODULE)
    (tmp_path / "caller.py").write_text(CALLER)
    return tmp_path


def _start(module_dir, *dtypes):
    return subprocess.Popen([sys.executable, str(module_dir / "caller.py"), *dtypes], cwd=module_dir,
                            env=_env(module_dir),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_new_signature_waits_for_the_cache_lock_then_is_saved_and_reloaded(module_dir):
    cache_dir = module_dir / "__pycache__"
    cache_dir.mkdir()
    with open(cache_dir / numba_cache.LOCK_NAME, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = _start(module_dir, "int32", "float64")
        assert proc.stdout.readline().strip() == "calling", proc.stderr.read()
        time.sleep(1.5)  # without the lock, compiling and saving this small function takes well under that
        assert proc.poll() is None, f"the cache was used while its lock was held: {proc.communicate()}"
        fcntl.flock(held, fcntl.LOCK_UN)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert out.startswith("done [55.0, 55.0]"), out
    assert sorted(p.suffix for p in cache_dir.glob("cachedmod.weighted_sum-*")) == [".nbc", ".nbc", ".nbi"]

    again = _start(module_dir, "float64", "int32")
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert "done [55.0, 55.0]" in out and out.count(": 1") == 2, out  # both signatures loaded from the cache


def test_njit_keeps_numbas_options_and_bare_use():
    @numba_cache.njit
    def plain(x):
        return x + 1

    @numba_cache.njit(cache=False, fastmath=False)
    def with_options(x):
        return x * 2

    assert plain(1) == 2 and with_options(3) == 6
    assert type(plain._cache).__name__ == "NullCache"


def test_njit_refuses_a_signature_it_would_not_compile_eagerly():
    with pytest.raises(TypeError, match="takes no signature"):
        numba_cache.njit("f8(f8)", cache=True)
