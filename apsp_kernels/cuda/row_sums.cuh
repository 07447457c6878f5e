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
// subnormal or huge x take it): a hardware seed and __drcp_rn's Newton steps (tested on every such x). The seed is
// `seed_hi`, the high word of rcp.approx.ftz.f64 (its low word is 0); a seed of 0 makes the reciprocal exactly 0.
__device__ __forceinline__ int swr_seed_hi(double d) {
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(d));
    return __double2hiint(r);
}

__device__ __forceinline__ double swr_recip_from(double d, int seed_hi) {
    double r = __hiloint2double(seed_hi, 0);
    double e = fma(-d, r, 1.0);
    e = fma(e, e, e);
    r = fma(r, e, r);
    e = fma(-d, r, 1.0);
    return fma(r, e, r);
}

__device__ __forceinline__ double swr_recip(int x) {
    const double d = (double)x;
    return swr_recip_from(d, swr_seed_hi(d));
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

// A warp's part of a row as one fixed-point sum at the inverse scale (at least SWR_EXACT_SCALE): `hi`, the
// chains' sums less their bias (multiples of 2^-41 below 2^11), and `lo`, their errors (multiples of 2^-83 below
// 2^-31 in magnitude), are integers at scales 41 and 83 below 2^52, so their sum is exact in 128 bits
__device__ __forceinline__ FixedSum swr_exact_fixed(double hi, double lo, int scale) {
    const long long whole = __double2ll_rn(hi * 0x1p41), part = __double2ll_rn(lo * 0x1p83);
    const unsigned long long low = (unsigned long long)whole << 42;
    unsigned long long a_lo = low + (unsigned long long)part;
    unsigned long long a_hi = ((unsigned long long)whole >> 22) + (part < 0 ? ~0ull : 0ull) + (a_lo < low);
    const int shift = scale - SWR_EXACT_SCALE;  // below 64: scales stay below 128 (fixed_sums.scales_for)
    if (shift) {
        a_hi = (a_hi << shift) | (a_lo >> (64 - shift));
        a_lo <<= shift;
    }
    return {a_lo, a_hi, 0};
}

// a lane's terms of a row of int distances: the sum of d < inf, their count, and 1/d over 0 < d < inf in two chains
// of Fast2Sum (every other term each)
struct RowSums {
    unsigned long long total = 0;
    unsigned reached = 0;
    double hi[2] = {SWR_BIAS, SWR_BIAS}, lo[2] = {0.0, 0.0};

    // a term not counted has a reciprocal of 0 from a seed of 0: one select of a word where the compiler would select
    // the reciprocal's two
    __device__ __forceinline__ void add(int x, int inf, int chain) {
        const bool counted = x < inf;
        total += counted ? (unsigned)x : 0u;
        reached += counted;
        const double d = (double)x;
        const int seed_hi = counted && x > 0 ? swr_seed_hi(d) : 0;
        const double r = swr_recip_from(d, seed_hi);
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
        if ((threadIdx.x & 31) != 0 || !reached) return;
        const VertexTerms t = {{0, 0, total}, swr_exact_fixed(hi_sum, lo_sum, into.inverse_scale),
                               reached};
        if (SHARED)
            into.add(v, t, true);
        else
            into.store(v, t, before);
    }
};
