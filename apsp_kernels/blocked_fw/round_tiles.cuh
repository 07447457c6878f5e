// Tile updates of blocked Floyd-Warshall (Takafuji, Nakano, Ito; Algorithm 2, function F),
// shared by the three round kernels (round_kernels.cu) and the persistent kernel (persistent.cu).
//
// Tiles are W x W = 32 x 32 float32 blocks of an (n_pad x n_pad) matrix with row stride ld;
// instance `inst` of a bulk batch starts at d + inst * ld * ld. A block of T threads updates
// one tile: thread (tx = tid % 32, ty = tid / 32) owns the E = 1024 / T entries
// (ty + G * r, tx), r < E, with G = T / 32 row groups, in registers.
//
// Two kinds of update (k runs over the 32 intermediate vertices of the pivot block):
// * independent (non-pivot tile): acc(i,j) = min_k A(i,k) + B(k,j) with A = column pivot tile,
//   B = row pivot tile, both finished for this round and read from shared memory. No barrier
//   inside; the min over k is order independent (each candidate is rounded on its own).
// * dependent (pivot, row and column pivot tiles): the tile S itself supplies one or both
//   operands, so step k needs step k-1 done: one barrier per k, S lives in shared memory
//   (and the owned entries in registers). Row k and column k of S do not change in step k
//   (the pivot diagonal is 0 and weights are >= 0: x + 0 is never < x), and an entry is only
//   written when it strictly improves, so no entry is written while it is read in step k.
//
// PATHS: via(i,j) = the global index of the last intermediate vertex that improved (i,j)
// (-1: never improved, the path is the arc itself). Only improved entries are stored.
#pragma once
#include "common.cuh"

namespace bfw {

constexpr int W = 32;

template <int T> struct Layout {
    static_assert(T == 64 || T == 128 || T == 256 || T == 512 || T == 1024, "T in 64..1024");
    static constexpr int G = T / 32;  // row groups
    static constexpr int E = 32 / G;  // entries per thread
};

typedef float Tile[W][W];

__device__ __forceinline__ int lane_col() { return threadIdx.x & 31; }
__device__ __forceinline__ int row_group() { return threadIdx.x >> 5; }

// Offset of tile (I, J) inside one instance.
__device__ __forceinline__ long long tile_offset(int I, int J, int ld) {
    return (long long)I * W * ld + (long long)J * W;
}

// L2-only loads and stores (ld.cg / st.cg): a tile written by another block is never read
// from a stale L1 line (the persistent kernel relies on this besides its fences).
template <int T>
__device__ __forceinline__ void load_regs(const float* p, int ld, float (&acc)[Layout<T>::E]) {
    const int tx = lane_col(), ty = row_group();
#pragma unroll
    for (int r = 0; r < Layout<T>::E; ++r) acc[r] = __ldcg(p + (long long)(ty + Layout<T>::G * r) * ld + tx);
}

template <int T>
__device__ __forceinline__ void store_regs(float* p, int ld, const float (&acc)[Layout<T>::E]) {
    const int tx = lane_col(), ty = row_group();
#pragma unroll
    for (int r = 0; r < Layout<T>::E; ++r) __stcg(p + (long long)(ty + Layout<T>::G * r) * ld + tx, acc[r]);
}

// Store the intermediate vertex of every entry this round improved (v >= 0).
template <int T>
__device__ __forceinline__ void store_via(int* p, int ld, const int (&v)[Layout<T>::E]) {
    const int tx = lane_col(), ty = row_group();
#pragma unroll
    for (int r = 0; r < Layout<T>::E; ++r)
        if (v[r] >= 0) __stcg(p + (long long)(ty + Layout<T>::G * r) * ld + tx, v[r]);
}

template <int T>
__device__ __forceinline__ void load_shared(const float* p, int ld, Tile& s) {
    const int tx = lane_col(), ty = row_group();
#pragma unroll
    for (int r = 0; r < Layout<T>::E; ++r) {
        const int row = ty + Layout<T>::G * r;
        s[row][tx] = __ldcg(p + (long long)row * ld + tx);
    }
}

template <int T>
__device__ __forceinline__ void regs_to_shared(const float (&acc)[Layout<T>::E], Tile& s) {
    const int tx = lane_col(), ty = row_group();
#pragma unroll
    for (int r = 0; r < Layout<T>::E; ++r) s[ty + Layout<T>::G * r][tx] = acc[r];
}

template <int T>
__device__ __forceinline__ void clear_via(int (&v)[Layout<T>::E]) {
#pragma unroll
    for (int r = 0; r < Layout<T>::E; ++r) v[r] = -1;
}

// Non-pivot tile: acc(i,j) = min(acc(i,j), min_k A[i][k] + B[k][j]). A row of A is read as
// float4 (one broadcast load for 4 k); B[k][tx] is conflict free. `kbase` = Z * W.
template <int T, bool PATHS>
__device__ __forceinline__ void update_independent(float (&acc)[Layout<T>::E], int (&via)[Layout<T>::E],
                                                   const Tile& A, const Tile& B, int kbase) {
    constexpr int G = Layout<T>::G, E = Layout<T>::E;
    const int tx = lane_col(), ty = row_group();
#pragma unroll
    for (int k = 0; k < W; k += 4) {
        const float b0 = B[k][tx], b1 = B[k + 1][tx], b2 = B[k + 2][tx], b3 = B[k + 3][tx];
#pragma unroll
        for (int r = 0; r < E; ++r) {
            const float4 a = *reinterpret_cast<const float4*>(&A[ty + G * r][k]);
            if (PATHS) {
                float c;
                c = a.x + b0; if (c < acc[r]) { acc[r] = c; via[r] = kbase + k; }
                c = a.y + b1; if (c < acc[r]) { acc[r] = c; via[r] = kbase + k + 1; }
                c = a.z + b2; if (c < acc[r]) { acc[r] = c; via[r] = kbase + k + 2; }
                c = a.w + b3; if (c < acc[r]) { acc[r] = c; via[r] = kbase + k + 3; }
            } else {
                acc[r] = add_min<float>(a.x, b0, acc[r]);
                acc[r] = add_min<float>(a.y, b1, acc[r]);
                acc[r] = add_min<float>(a.z, b2, acc[r]);
                acc[r] = add_min<float>(a.w, b3, acc[r]);
            }
        }
    }
}

// Pivot / row pivot / column pivot tile, in place: S(i,j) = min(S(i,j), L[i][k] + R[k][j]) for
// k = 0..31 in order, where L and R are S itself or the pivot tile P:
// pivot: L = R = S; row pivot tile (Z, J): L = P, R = S; column pivot tile (I, Z): L = S, R = P.
// On entry S holds the owned entries (acc) and every thread has written its part of S; the
// first barrier makes that visible. On exit a barrier has passed after the last shared read.
template <int T, bool PATHS>
__device__ __forceinline__ void update_dependent(float (&acc)[Layout<T>::E], int (&via)[Layout<T>::E],
                                                 Tile& S, const Tile& L, const Tile& R, int kbase) {
    constexpr int G = Layout<T>::G, E = Layout<T>::E;
    const int tx = lane_col(), ty = row_group();
#pragma unroll 4
    for (int k = 0; k < W; ++k) {
        __syncthreads();
        const float b = R[k][tx];
#pragma unroll
        for (int r = 0; r < E; ++r) {
            const float c = L[ty + G * r][k] + b;
            if (c < acc[r]) {
                acc[r] = c;
                S[ty + G * r][tx] = c;
                if (PATHS) via[r] = kbase + k;
            }
        }
    }
    __syncthreads();
}

}  // namespace bfw
