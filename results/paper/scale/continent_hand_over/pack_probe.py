"""dev probe: the per-vertex sums' pack and device->host copy (sums_wire.pack), pageable vs pinned, by part."""
import sys, time, json
import numpy as np
import cupy as cp
import cupyx
from apsp_kernels.distributed import sums_wire
from apsp_kernels import solver


def pinned_get(x):
    if isinstance(x, np.ndarray):
        return x
    out = cupyx.empty_pinned(x.shape, x.dtype)
    x.get(out=out)
    return out


def timed(fn, reps=5):
    ts = []
    for _ in range(reps):
        cp.cuda.Device().synchronize(); t = time.perf_counter(); r = fn(); cp.cuda.Device().synchronize()
        ts.append(1e3 * (time.perf_counter() - t))
    return ts, r


out = open(sys.argv[1], "w")
for n in (264346, 321270, 16777216):
    rs = cp.random.RandomState(1)
    sums = {"sum_in": cp.zeros((n, 2), cp.uint64), "harmonic_in": cp.zeros((n, 2), cp.uint64), "reach_in": cp.zeros(n, cp.int64)}
    sums["sum_in"][:, 1] = rs.randint(0, 2**40, n).astype(cp.uint64)
    sums["harmonic_in"][:, 0] = rs.randint(0, 2**62, n).astype(cp.uint64)
    sums["harmonic_in"][:, 1] = rs.randint(0, 2**20, n).astype(cp.uint64)
    sums["reach_in"][:] = rs.randint(0, n, n)
    order = rs.permutation(n).astype(cp.int32)
    row = {"n": n}
    row["pack_ms"], packed = timed(lambda: sums_wire.pack(sums, order=order))
    row["payload_mb"] = packed.payload.nbytes / 1e6
    row["payload_page_locked"] = cp.cuda.runtime.pointerGetAttributes(packed.payload.ctypes.data).type == cp.cuda.runtime.memoryTypeHost
    keep = sums_wire.array_to_host
    sums_wire.array_to_host = lambda x: x.get()
    row["pack_pageable_ms"], packed2 = timed(lambda: sums_wire.pack(sums, order=order))
    sums_wire.array_to_host = keep
    assert np.array_equal(packed.payload, packed2.payload)
    dev = cp.empty(packed.payload.nbytes, cp.uint8)
    row["copy_pageable_ms"], _ = timed(lambda: dev.get())
    row["copy_pinned_alloc_ms"], _ = timed(lambda: pinned_get(dev))
    buf = cupyx.empty_pinned(dev.shape, dev.dtype)
    row["copy_pinned_reused_ms"], _ = timed(lambda: dev.get(out=buf))
    cols = [sums[name][:, w] if w is not None else sums[name].view(cp.uint64) for name, w in sums_wire.WORDS]
    row["tops_strided_ms"], a = timed(lambda: solver.to_host(cp.stack([c.max() for c in cols])))
    row["tops_contiguous_ms"], b = timed(lambda: solver.to_host(cp.stack([cp.ascontiguousarray(c).max() for c in cols])))
    assert np.array_equal(a, b)
    row["gather_cast_ms"], _ = timed(lambda: [c[order].astype(cp.uint32) for c in cols])
    t = time.perf_counter(); unpacked = packed.unpack(); row["host_unpack_ms"] = 1e3 * (time.perf_counter() - t)
    tot = {k: np.zeros_like(v) for k, v in unpacked.items()}
    row["host_add_ms"], _ = timed(lambda: packed.add_into(tot), reps=3)
    line = json.dumps({k: ([round(x, 3) for x in v] if isinstance(v, list) else v) for k, v in row.items()})
    print(line, flush=True); out.write(line + "\n")
    del sums, order, dev, buf, packed, packed2, cols
    cp.get_default_memory_pool().free_all_blocks()
