// A source's (a column's) terms of int distances (issue 45), counted where the distances are: the sum of d, the
// count of d < inf, the max of d, and each distance's bin in bins of one integer width. Used by the in-place
// reductions (distributed/sweep_reductions.cu) and by batched PHAST's downward launches that count them as they
// write the rows (sssp_hierarchy/phast_batched.cu: phb_down_cols).
#pragma once

// the bin of an int distance in bins of one integer width w >= 2 (thresholds t0 + b * w): offset / w by a
// multiply-high (Granlund and Montgomery: m = ceil(2^(31 + l) / w), l = ceil(log2 w), exact for
// every offset below 2^31; larger offsets are outside the bins)
struct SwrEqualBins {
    unsigned magic;
    int shift;
    __device__ explicit SwrEqualBins(int width) {
        const int l = 32 - __clz(width - 1);
        magic = (unsigned)(((1ull << (31 + l)) + width - 1) / width);
        shift = l - 1;
    }
    __device__ __forceinline__ int bin(unsigned offset) const { return (int)(__umulhi(offset, magic) >> shift); }
};

// a column's running terms: the sum of d (a whole number), the count of d < inf and the max of d
struct ColumnRun {
    unsigned long long total;
    unsigned reached, key;

    // d counted (d < inf and a column of the sweep): its terms; else nothing
    __device__ __forceinline__ void add(int x, bool counted) {
        const unsigned d = counted ? (unsigned)x : 0u;
        total += d;
        reached += counted;
        key = max(key, d);
    }
};

// The per-lane counter a distance counts in: its bin of one integer width (the last edge's own index `bins`, which
// the last bin takes at the end: numpy closes it), or `bins` + 1 for the terms no bin counts (not counted, or outside
// [t0, t0 + span)). Counters are lane-major: bin b of this lane at b * 32.
__device__ __forceinline__ int equal_bin_slot(int x, bool counted, int t0, unsigned span, const SwrEqualBins& equal,
                                              int bins) {
    const unsigned offset = (unsigned)x - (unsigned)t0;
    return counted && offset < span ? equal.bin(offset) : bins + 1;
}
