// A vertex's sums over its row of distances (issue 45: distributed/sweep_reductions.cu), added to a run's
// per-vertex accumulators in fixed point (fixed_point.cuh), so that they are the same integers in any order and
// however the row is cut: the sum of d and the count of d < inf over the counted columns, and the sum of 1/d over
// those with d > 0. For int distances a warp sums its part of a row (up to 1024 terms) exactly in doubles
// (RowSums) and lane 0 adds it to the accumulators (VertexSums).
#pragma once
#include "fixed_point.cuh"

// A row's sum of 1/d on the FP64 pipe instead of the integer one: 1/d (1 <= d < 2^31) is a multiple of 2^-83 in
// (0, 1], so with an inverse scale of at least 83 every fixed-point term is exact (nothing to round).
constexpr int SWR_EXACT_SCALE = 83;

// A lane's part of a row's 1/d summed exactly in two doubles: hi starts at SWR_BIAS = 2^11 and takes each term
// r = 1/d (a multiple of 2^-83 in (2^-31, 1]) by Fast2Sum (|hi| >= r), whose error, at most half hi's ulp 2^-41
// and a multiple of 2^-83, goes to lo exactly. hi - SWR_BIAS is then a multiple of 2^-41 and lo a multiple of
// 2^-83; over a warp's part of a row (at most 2^10 terms) their sums stay below 2^10 (51 bits) and within 2^-32
// (51 bits): exact in any order, so that from an inverse scale of 83 hi + lo in fixed point is the terms' sum.
constexpr double SWR_BIAS = 2048.0;

struct SwrPair {
    double hi, lo;
};

// 1/x rounded to nearest for 1 <= x < 2^31, as __drcp_rn((double)x) without its branch to a slow path (only
// subnormal or huge x take it): a hardware seed and __drcp_rn's Newton steps (tested on every such x)
__device__ __forceinline__ double swr_recip(int x) {
    const double d = (double)x;
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(d));
    double e = fma(-d, r, 1.0);
    e = fma(e, e, e);
    r = fma(r, e, r);
    e = fma(-d, r, 1.0);
    return fma(r, e, r);
}

__device__ __forceinline__ void swr_pair_to_fixed(FixedSum& a, const SwrPair& p, int scale) {
    fixed_add_double(a, p.hi, scale);
    if (p.lo > 0.0) {
        fixed_add_double(a, p.lo, scale);
    } else if (p.lo < 0.0) {  // hi >= |lo|: the sum stays non-negative
        FixedSum minus = {0, 0, 0};
        fixed_add_double(minus, -p.lo, scale);
        const unsigned long long old = a.lo;
        a.lo -= minus.lo;
        a.hi -= minus.hi + (old < minus.lo);
    }
}

__device__ __forceinline__ void swr_atomic_add(unsigned long long* at, unsigned long long lo, unsigned long long hi) {
    if (lo) {
        const unsigned long long old = atomicAdd(at, lo);
        hi += (old + lo < old);
    }
    if (hi) atomicAdd(at + 1, hi);
}

// `before` (two words) and a fixed-point sum, written to the two words at `at`
__device__ __forceinline__ void swr_store_fixed(unsigned long long* at, const unsigned long long (&before)[2],
                                                const FixedSum& a, int scale) {
    unsigned long long words[2];
    fixed_store(a, scale, words);
    at[0] = before[0] + words[0];
    at[1] = before[1] + words[1] + (before[0] + words[0] < words[0]);
}

// a fixed-point sum added to the two words at `at`: atomically when other CUDA blocks add to them too
__device__ __forceinline__ void swr_add_fixed(unsigned long long* at, const FixedSum& a, int scale, bool shared) {
    if (shared) {
        unsigned long long words[2];
        fixed_store(a, scale, words);
        swr_atomic_add(at, words[0], words[1]);
    } else {
        swr_store_fixed(at, {at[0], at[1]}, a, scale);
    }
}

// a part of a vertex's row: its sum of d, of 1/d (fixed point) and its count of reached columns
struct VertexTerms {
    FixedSum total, inverse;
    unsigned reached;
};

// a vertex's accumulators as read before its terms are added (VertexSums::load)
struct VertexWords {
    unsigned long long sum[2], harmonic[2], reach;
};

// a run's per-vertex accumulators (two words a vertex for the sums, one for the count) and their scales
struct VertexSums {
    unsigned long long *sum_in, *reach_in, *harmonic_in;
    int scale, inverse_scale;

    // terms added to vertex v (`shared`: other warps add to v too)
    __device__ __forceinline__ void add(int v, const VertexTerms& t, bool shared) const {
        if (!t.reached) return;
        swr_add_fixed(sum_in + 2 * v, t.total, scale, shared);
        swr_add_fixed(harmonic_in + 2 * v, t.inverse, inverse_scale, shared);
        if (shared)
            atomicAdd(reach_in + v, (unsigned long long)t.reached);
        else
            reach_in[v] += t.reached;
    }

    // vertex v's accumulators, read ahead of its terms when no other warp adds to v (the read's latency hidden
    // behind the terms' arithmetic, not waited for after it)
    __device__ __forceinline__ VertexWords load(int v) const {
        return {{sum_in[2 * v], sum_in[2 * v + 1]}, {harmonic_in[2 * v], harmonic_in[2 * v + 1]}, reach_in[v]};
    }

    // terms added to vertex v whose accumulators were `before` (load: no other warp adds to v)
    __device__ __forceinline__ void store(int v, const VertexTerms& t, const VertexWords& before) const {
        if (!t.reached) return;
        swr_store_fixed(sum_in + 2 * v, before.sum, t.total, scale);
        swr_store_fixed(harmonic_in + 2 * v, before.harmonic, t.inverse, inverse_scale);
        reach_in[v] = before.reach + t.reached;
    }
};

// a lane's terms of a row of int distances, 1/d in two chains of Fast2Sum (every other term each)
struct RowSums {
    unsigned long long total = 0;
    unsigned reached = 0;
    double hi[2] = {SWR_BIAS, SWR_BIAS}, lo[2] = {0.0, 0.0};

    __device__ __forceinline__ void add(int x, bool counted, int chain) {
        total += counted ? (unsigned)x : 0u;
        reached += counted;
        const double reciprocal = swr_recip(x);
        const double r = counted && x > 0 ? reciprocal : 0.0;
        const double sum = hi[chain] + r;
        lo[chain] += r - (sum - hi[chain]);
        hi[chain] = sum;
    }

    // the warp's terms (every lane calls it) added to vertex v by lane 0: atomically when other warps add to v
    // (SHARED), else to the accumulators it read ahead (`before`, lane 0's)
    template <bool SHARED>
    __device__ __forceinline__ void flush(int v, const VertexSums& into, const VertexWords& before) {
        double hi_sum = (hi[0] - SWR_BIAS) + (hi[1] - SWR_BIAS), lo_sum = lo[0] + lo[1];
        for (int offset = 16; offset > 0; offset >>= 1) {
            total += __shfl_down_sync(0xffffffffu, total, offset);
            hi_sum += __shfl_down_sync(0xffffffffu, hi_sum, offset);
            lo_sum += __shfl_down_sync(0xffffffffu, lo_sum, offset);
            reached += __shfl_down_sync(0xffffffffu, reached, offset);
        }
        VertexTerms t = {{0, 0, total}, {0, 0, 0}, reached};
        if ((threadIdx.x & 31) == 0 && reached) swr_pair_to_fixed(t.inverse, SwrPair{hi_sum, lo_sum}, into.inverse_scale);
        if ((threadIdx.x & 31) != 0) return;
        if (SHARED)
            into.add(v, t, true);
        else
            into.store(v, t, before);
    }
};
