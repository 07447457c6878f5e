// 128-bit fixed-point sums (distributed/fixed_sums.py): a term x >= 0 counts round(x * 2**scale), rounded half
// up from x's bits exactly as fixed_sums._terms does, so that a sum is the same integer in any order and on the
// host. A sum of int32 distances is whole: kept in one uint64 (below 2**61), shifted by the scale at the end.
#pragma once

struct FixedSum {
    unsigned long long lo, hi, whole;
};

__device__ __forceinline__ void fixed_add(FixedSum& a, unsigned long long lo, unsigned long long hi) {
    a.lo += lo;
    a.hi += hi + (a.lo < lo);
}

__device__ __forceinline__ void fixed_add_double(FixedSum& a, double x, int scale) {
    const unsigned long long bits = (unsigned long long)__double_as_longlong(x);
    int exponent = (int)((bits >> 52) & 0x7ff);
    unsigned long long mantissa = bits & 0xfffffffffffffULL;
    if (exponent)
        mantissa |= 1ULL << 52;
    else
        exponent = 1;
    const int shift = exponent - 1075 + scale;
    if (shift >= 64)
        fixed_add(a, 0, mantissa << (shift - 64));
    else if (shift > 0)
        fixed_add(a, mantissa << shift, mantissa >> (64 - shift));
    else if (shift == 0)
        fixed_add(a, mantissa, 0);
    else if (shift > -54)
        fixed_add(a, (mantissa + (1ULL << (-shift - 1))) >> -shift, 0);
}

__device__ __forceinline__ void fixed_add_term(FixedSum& a, int x, int) { a.whole += (unsigned long long)x; }
__device__ __forceinline__ void fixed_add_term(FixedSum& a, float x, int scale) { fixed_add_double(a, (double)x, scale); }
__device__ __forceinline__ void fixed_add_term(FixedSum& a, double x, int scale) { fixed_add_double(a, x, scale); }

__device__ __forceinline__ void fixed_merge(FixedSum& a, const FixedSum& b) {
    fixed_add(a, b.lo, b.hi);
    a.whole += b.whole;
}

// (lo, hi) + whole << scale (scale >= 0 for whole sums: fixed_sums.scales_for), written as two words.
__device__ __forceinline__ void fixed_store(FixedSum a, int scale, unsigned long long* out) {
    if (a.whole) {
        if (scale >= 64)
            fixed_add(a, 0, a.whole << (scale - 64));
        else if (scale > 0)
            fixed_add(a, a.whole << scale, a.whole >> (64 - scale));
        else
            fixed_add(a, a.whole, 0);
    }
    out[0] = a.lo;
    out[1] = a.hi;
}
