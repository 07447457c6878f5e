"""The batched-PHAST wrapper (apsp_kernels/sssp_hierarchy/phast_batched.py) driven on the host
against an emulation of its three kernels that follows phast_batched.cu's contract argument by
argument (flat D with a row stride, one block per group, stamps per group and pass, one launch
per large level): the argument order and types, the strides, the groups of a narrower launch and
the stamps of repeated passes are checked here, so that the GPU minutes go to the kernels."""
from types import SimpleNamespace

import numpy as np
import pytest

from apsp_kernels import generators, gpu
from apsp_kernels.sssp_hierarchy import phast_batched as PB

import helpers
from test_phast_batched_fake_device import FAKE_CUPY, Dev

SIGNATURES = {  # parameter types of phast_batched.cu's kernels, in order
    "upper": ("p", "i", "i", "p", "p", "p", "p", "p", "p", "p", "p", "p", "p", "p", "p", "p", "i", "i", "i"),
    "down": ("p", "p", "p", "p", "p", "i", "i", "i", "i", "i", "i"),
    "rows": ("p", "p", "p", "i", "i", "i"),
}


def _typed(args, kinds, name):
    assert len(args) == len(kinds), (name, len(args))
    for a, kind in zip(args, kinds):
        if kind == "i":
            assert isinstance(a, np.int32), (name, type(a))
        else:
            assert isinstance(a, np.ndarray), (name, type(a))


def _relax(best, D, C, col, k, srcs, wts, arcs, inf):
    for e in arcs:
        u = srcs[e]
        du = D[u * C + col: u * C + col + k].astype(np.float64)
        best = np.minimum(best, np.where(du >= inf, inf, du + wts[e]))
    return best


class Kernel:
    def __init__(self, name, inf):
        self.name, self.inf = name, inf
        self.kind = name.split("_")[1]
        self.k = int(name.rsplit("_k", 1)[1]) if "_k" in name else None
        self.max_dynamic_shared_size_bytes = 0

    def __call__(self, grid, block, args, shared_mem=0):
        _typed(args, SIGNATURES[self.kind], self.name)
        assert block[0] % 32 == 0 and np.prod(block) <= 1024
        getattr(self, self.kind)(grid, block, *args)

    def upper(self, grid, block, level_ptr, levels, first_top, level_of, up_ptr, up_src, up_w, out_ptr, out_dst,
              dn_ptr, dn_src, dn_w, sources, D, stamps, queues, C, n, pass_):
        D, stamps, queues, k, inf = D.reshape(-1), stamps.reshape(-1), queues.reshape(-1), self.k, self.inf
        assert shared_mem_ok(block, k)
        for g in range(grid[0]):
            col, stamp, queue = g * k, stamps[g * n:(g + 1) * n], queues[g * n:(g + 1) * n]
            following = np.array(level_ptr[:levels], dtype=np.int64)  # a level's next free bucket slot

            def put(t):  # the first to stamp a vertex puts it in its level's bucket
                if stamp[t] != pass_:
                    stamp[t] = pass_
                    queue[following[level_of[t]]] = t
                    following[level_of[t]] += 1
            src = sources[col:col + k]
            for r in src[src >= 0]:
                put(r)
            for lv in range(levels):
                for v in queue[level_ptr[lv]:following[lv]]:
                    best = np.where(src == v, 0.0, inf)
                    arcs = [e for e in range(up_ptr[v], up_ptr[v + 1]) if stamp[up_src[e]] == pass_]
                    D[v * C + col: v * C + col + k] = _relax(best, D, C, col, k, up_src, up_w, arcs, inf)
                    for t in out_dst[out_ptr[v]:out_ptr[v + 1]]:
                        put(t)
            for lv in range(levels - 1, first_top - 1, -1):
                for v in range(level_ptr[lv], level_ptr[lv + 1]):
                    self._down(D, stamp, C, col, k, v, dn_ptr, dn_src, dn_w, pass_)

    def _down(self, D, stamp, C, col, k, v, dn_ptr, dn_src, dn_w, pass_):
        inf = self.inf
        best = D[v * C + col: v * C + col + k].astype(np.float64) if stamp[v] == pass_ else np.full(k, inf)
        D[v * C + col: v * C + col + k] = _relax(best, D, C, col, k, dn_src, dn_w, range(dn_ptr[v], dn_ptr[v + 1]),
                                                 inf)

    def down(self, grid, block, dn_ptr, dn_src, dn_w, D, stamps, C, n, groups, lo, hi, pass_):
        assert grid[0] * block[0] // 32 >= (hi - lo) * groups  # a warp per (vertex, group)
        D, stamps = D.reshape(-1), stamps.reshape(-1)
        for g in range(groups):
            for v in range(lo, hi):
                self._down(D, stamps[g * n:(g + 1) * n], C, g * self.k, self.k, v, dn_ptr, dn_src, dn_w, pass_)

    def rows(self, grid, block, D, rank, out, C, n, k):
        assert grid[0] * 32 >= n and grid[1] * 32 >= k
        flat = D.reshape(-1)
        for r in range(k):
            out[r] = flat[rank.astype(np.int64) * C + r]


def shared_mem_ok(block, k):
    return block[0] * (k // 32) * 8 <= 64 * 1024


@pytest.fixture
def emulated(monkeypatch):
    made = []

    def load_module(path, options=(), name_expressions=()):
        assert path.name == "phast_batched.cu"

        def get_function(name):
            made.append(name)
            return Kernel(name, PB_INF["inf"])
        return SimpleNamespace(get_function=get_function)

    monkeypatch.setattr(gpu, "cupy", lambda: SimpleNamespace(**{**vars(FAKE_CUPY), "full": _full}))
    monkeypatch.setattr(gpu, "load_module", load_module)
    monkeypatch.setattr(gpu, "require_memory", lambda nbytes, what: None)
    monkeypatch.setattr(gpu, "max_shared_bytes", lambda: 227 * 1024)
    return made


PB_INF = {"inf": None}


def _full(shape, value, dtype=None):
    return np.full(shape, value, dtype).view(Dev)


@pytest.mark.parametrize("k", PB.K_CHOICES)
@pytest.mark.parametrize("top_level_max", [0, 16, 1 << 30])
def test_the_wrapper_drives_the_kernels_as_they_expect(emulated, k, top_level_max):
    g = generators.road_like(700, 1700, seed=k)
    PB_INF["inf"] = g.inf
    sources = np.random.default_rng(k).integers(0, g.n, size=k + 7)  # two groups, the second padded
    stats = {}
    rows = PB.multi_source_distances(g, sources, K=k, top_level_max=top_level_max, stats=stats)
    helpers.assert_rows_match_oracle(g, rows, sources)
    assert stats["groups"] == 2 and f"phb_upper_i32_k{k}" in emulated and "phb_rows_i32" in emulated
    assert (stats["launches"] > 2) == (top_level_max < 1 << 30)


def test_a_narrower_launch_and_repeated_passes_on_one_buffer(emulated):
    g = generators.road_like(600, 1450, seed=9, dtype=np.float32)
    PB_INF["inf"] = g.inf
    sweeps = PB.BatchedPhast(g, 32, top_level_max=8).setup()
    for seed, count in enumerate((96, 20, 64)):
        sources = np.random.default_rng(seed).integers(0, g.n, size=count)
        out = FAKE_CUPY.empty((count, g.n), dtype=g.dtype)
        sweeps.run(sources, out)
        helpers.assert_rows_match_oracle(g, out, sources)
    assert sweeps.D.shape == (g.n, 96) and sweeps.passes == 3 and sweeps.stamps.shape == sweeps.queues.shape == (3, g.n)


def test_the_solver_in_several_launches(emulated):
    g = generators.road_like(500, 1200, seed=4)
    PB_INF["inf"] = g.inf
    sources = np.arange(0, 500, 7)
    s = PB.PhastBatchedSSSP(g, sources=sources, K=32, batch=40)
    s.bytes_needed()
    s.setup()
    s.compute()
    helpers.assert_rows_match_oracle(g, s.solution().dist, sources)
    assert len(s.parts) == 2 and s.stats["launches"] >= 4


def test_a_hierarchy_too_deep_for_one_blocks_shared_memory_is_refused_before_allocating(emulated, monkeypatch):
    from apsp_kernels.errors import InputError
    g = generators.road_like(300, 700, seed=2)
    sweeps = PB.BatchedPhast(g, 32)
    levels = sweeps.lay.levels
    fits = PB.upper_shared_bytes(PB.THREADS, 32, g.dtype.itemsize, levels)
    monkeypatch.setattr(gpu, "max_shared_bytes", lambda: fits - 1)
    with pytest.raises(InputError, match=f"{levels} levels"):
        sweeps.setup()
    assert not hasattr(sweeps, "D")
    monkeypatch.setattr(gpu, "max_shared_bytes", lambda: fits)
    assert sweeps.setup().D is None
