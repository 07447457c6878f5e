"""dev probe: batched PHAST's phb_upper at 1024/512/256 threads a group (the same kernel), NY and BAY sweeps of in-place block sizes; bits by checksum."""
import sys, json
import numpy as np
import cupy as cp
from apsp_kernels import datasets
from apsp_kernels.sssp_hierarchy import phast_batched as PB
from apsp_kernels.sssp_hierarchy.layout import padded_sources

K = 128


def checksum(D):
    n, c = D.shape
    s1 = s2 = 0
    for r0 in range(0, n, 2048):
        x = D[r0:r0 + 2048].view(cp.uint32).astype(cp.uint64)
        idx = cp.arange(r0 * c, r0 * c + x.size, dtype=cp.uint64).reshape(x.shape)
        s1 += int(x.sum())
        s2 = (s2 + int((x * (idx * cp.uint64(2654435761) + cp.uint64(12345))).sum())) % 2**64
    return s1, s2


out = open(sys.argv[1], "w")
for name, counts in [("NY", (52928, 33088, 16384)), ("BAY", (64256, 53568))]:
    g = datasets.load(name)
    for count in counts:
        ref = None
        for threads in (1024, 512, 256):
            sw = PB.BatchedPhast(g, K, threads).setup()
            sw.allocate(count)
            ranks = cp.asarray(padded_sources(sw.lay.rank, np.arange(count), K))
            sw.sweep(ranks)
            cp.cuda.Device().synchronize()
            sums = checksum(sw.D[:, :count])
            ref = ref or sums
            ups, whole = [], []
            for _ in range(5):
                a, b, c = cp.cuda.Event(), cp.cuda.Event(), cp.cuda.Event()
                a.record()
                sw.sweep(ranks, after_upper=b)
                c.record()
                c.synchronize()
                ups.append(round(cp.cuda.get_elapsed_time(a, b), 3))
                whole.append(round(cp.cuda.get_elapsed_time(a, c), 3))
            row = dict(graph=name, sources=count, groups=-(-count // K), threads=threads, shared_bytes=sw.shared,
                       same_checksums_as_1024=sums == ref, upper_ms=ups, sweep_ms=whole)
            print(json.dumps(row), flush=True)
            out.write(json.dumps(row) + "\n")
            out.flush()
            sw.release()
            del sw
            cp.get_default_memory_pool().free_all_blocks()
