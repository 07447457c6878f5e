// Tile updates of blocked Floyd-Warshall (Takafuji, Nakano, Ito; Algorithm 2, function F),
// shared by the three round kernels (round_kernels.cu) and the persistent kernel (persistent.cu).
//
// Tiles are W x W = 32 x 32 float32 blocks of an (n_pad x n_pad) matrix with row stride ld;
// instance `inst` of a bulk batch starts at d + inst * ld * ld. A block of T threads updates
// one tile, E = 1024 / T entries per thread in registers: in the pivot, row and column pivot
// tiles (strip layout) thread (tx = tid % 32, ty = tid / 32) owns the entries (ty + G * r, tx),
// r < E, with G = T / 32 row groups; the other tiles use a 2D micro-tile (MicroLayout below).
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

// ---- Non-pivot tiles: register micro-tiles -------------------------------------------------
// The independent update (the (N-1)^2 tiles of phase C, nearly all the work) uses its own
// layout: thread t owns an R x C micro-tile, rows row0 + RY * i (i < R) and columns
// col0 .. col0 + C - 1, with col0 = C * (t % CX), row0 = t / CX, CX = 32 / C, RY = T / CX.
// Per 4 k a thread issues R float4 loads of A (4 k of one row each) and 4 C-wide loads of B
// for 4 R C min-plus ops, instead of E float4 + 4 scalar loads for 4 E ops in the strip layout:
//   T    R x C  shared loads / op   (strip layout)
//   64   4 x 4     8 / 64            (20 / 64)
//   128  2 x 4     6 / 32            (12 / 32)
//   256  1 x 4     5 / 16            (8 / 16)
//   512  1 x 2     5 / 8             (6 / 8)
//   1024 1 x 1     5 / 4             (same)
// and the tile itself moves with C-wide (float4 / float2) global loads and stores.
// A warp spans 32 / CX consecutive rows; A is stored with row stride AP = 36 floats, so the
// float4 loads of those rows at the same k fall on distinct banks (one wavefront); a B row
// is read contiguously (one wavefront, duplicated lanes broadcast). Each entry still takes
// the candidates k = 0..31 in increasing order with a strict "<", so distances and via are
// exactly those of the strip layout (and of the numpy reference).
template <int T> struct Micro;
template <> struct Micro<64> { static constexpr int R = 4, C = 4; };
template <> struct Micro<128> { static constexpr int R = 2, C = 4; };
template <> struct Micro<256> { static constexpr int R = 1, C = 4; };
template <> struct Micro<512> { static constexpr int R = 1, C = 2; };
template <> struct Micro<1024> { static constexpr int R = 1, C = 1; };

template <int T> struct MicroLayout {
    static constexpr int R = Micro<T>::R, C = Micro<T>::C;
    static constexpr int CX = W / C, RY = T / CX, E = R * C;
    static_assert(R * RY == W && E == Layout<T>::E, "micro-tile must cover the tile");
    static __device__ __forceinline__ int row0() { return threadIdx.x / CX; }
    static __device__ __forceinline__ int col0() { return (threadIdx.x % CX) * C; }
};

constexpr int AP = W + 4;  // padded row stride of the column pivot operand (16-byte rows)
typedef float PaddedTile[W][AP];

// C consecutive floats: global (L2-only) and shared loads/stores as one vector access.
template <int C> struct Vec;
template <> struct Vec<4> {
    static __device__ __forceinline__ void ldg(const float* p, float* o) {
        const float4 v = __ldcg(reinterpret_cast<const float4*>(p));
        o[0] = v.x; o[1] = v.y; o[2] = v.z; o[3] = v.w;
    }
    static __device__ __forceinline__ void stg(float* p, const float* i) {
        __stcg(reinterpret_cast<float4*>(p), make_float4(i[0], i[1], i[2], i[3]));
    }
    static __device__ __forceinline__ void lds(const float* p, float* o) {
        const float4 v = *reinterpret_cast<const float4*>(p);
        o[0] = v.x; o[1] = v.y; o[2] = v.z; o[3] = v.w;
    }
    static __device__ __forceinline__ void sts(float* p, const float* i) {
        *reinterpret_cast<float4*>(p) = make_float4(i[0], i[1], i[2], i[3]);
    }
};
template <> struct Vec<2> {
    static __device__ __forceinline__ void ldg(const float* p, float* o) {
        const float2 v = __ldcg(reinterpret_cast<const float2*>(p));
        o[0] = v.x; o[1] = v.y;
    }
    static __device__ __forceinline__ void stg(float* p, const float* i) {
        __stcg(reinterpret_cast<float2*>(p), make_float2(i[0], i[1]));
    }
    static __device__ __forceinline__ void lds(const float* p, float* o) {
        const float2 v = *reinterpret_cast<const float2*>(p);
        o[0] = v.x; o[1] = v.y;
    }
    static __device__ __forceinline__ void sts(float* p, const float* i) {
        *reinterpret_cast<float2*>(p) = make_float2(i[0], i[1]);
    }
};
template <> struct Vec<1> {
    static __device__ __forceinline__ void ldg(const float* p, float* o) { o[0] = __ldcg(p); }
    static __device__ __forceinline__ void stg(float* p, const float* i) { __stcg(p, i[0]); }
    static __device__ __forceinline__ void lds(const float* p, float* o) { o[0] = *p; }
    static __device__ __forceinline__ void sts(float* p, const float* i) { *p = i[0]; }
};

// Own tile <-> registers in the micro layout (acc[i * C + j] = entry (row0 + RY i, col0 + j)).
template <int T>
__device__ __forceinline__ void load_micro(const float* p, int ld, float (&acc)[Layout<T>::E]) {
    using M = MicroLayout<T>;
    const float* q = p + (long long)M::row0() * ld + M::col0();
#pragma unroll
    for (int i = 0; i < M::R; ++i) Vec<M::C>::ldg(q + (long long)(M::RY * i) * ld, &acc[i * M::C]);
}

template <int T>
__device__ __forceinline__ void store_micro(float* p, int ld, const float (&acc)[Layout<T>::E]) {
    using M = MicroLayout<T>;
    float* q = p + (long long)M::row0() * ld + M::col0();
#pragma unroll
    for (int i = 0; i < M::R; ++i) Vec<M::C>::stg(q + (long long)(M::RY * i) * ld, &acc[i * M::C]);
}

template <int T>
__device__ __forceinline__ void store_via_micro(int* p, int ld, const int (&v)[Layout<T>::E]) {
    using M = MicroLayout<T>;
    int* q = p + (long long)M::row0() * ld + M::col0();
#pragma unroll
    for (int i = 0; i < M::R; ++i)
#pragma unroll
        for (int j = 0; j < M::C; ++j)
            if (v[i * M::C + j] >= 0) __stcg(q + (long long)(M::RY * i) * ld + j, v[i * M::C + j]);
}

// The two operand tiles (column pivot tile -> A with row stride AP, row pivot tile -> B) from
// global into shared memory: all loads are issued before the first store, so that the block
// waits one memory latency, not two.
template <int T>
__device__ __forceinline__ void load_operands_micro(const float* pa, const float* pb, int ld,
                                                    PaddedTile& A, Tile& B) {
    using M = MicroLayout<T>;
    float ta[M::E], tb[M::E];
    load_micro<T>(pa, ld, ta);
    load_micro<T>(pb, ld, tb);
    float* sa = &A[0][0] + M::row0() * AP + M::col0();
    float* sb = &B[0][0] + M::row0() * W + M::col0();
#pragma unroll
    for (int i = 0; i < M::R; ++i) {
        Vec<M::C>::sts(sa + M::RY * i * AP, &ta[i * M::C]);
        Vec<M::C>::sts(sb + M::RY * i * W, &tb[i * M::C]);
    }
}

// Non-pivot tile: acc(i,j) = min(acc(i,j), min_k A[i][k] + B[k][j]), A = column pivot tile
// (padded rows), B = row pivot tile; `kbase` = Z * W. acc / via in the micro layout.
template <int T, bool PATHS>
__device__ __forceinline__ void update_independent(float (&acc)[Layout<T>::E], int (&via)[Layout<T>::E],
                                                   const PaddedTile& A, const Tile& B, int kbase) {
    using M = MicroLayout<T>;
    constexpr int R = M::R, C = M::C, RY = M::RY;
    const int r0 = M::row0(), c0 = M::col0();
#pragma unroll
    for (int k = 0; k < W; k += 4) {
        float a[R][4];
#pragma unroll
        for (int i = 0; i < R; ++i) Vec<4>::lds(&A[r0 + RY * i][k], a[i]);
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
            float b[C];
            Vec<C>::lds(&B[k + kk][c0], b);
#pragma unroll
            for (int i = 0; i < R; ++i)
#pragma unroll
                for (int j = 0; j < C; ++j) {
                    if (PATHS) {
                        const float c = a[i][kk] + b[j];
                        if (c < acc[i * C + j]) { acc[i * C + j] = c; via[i * C + j] = kbase + k + kk; }
                    } else {
                        acc[i * C + j] = add_min<float>(a[i][kk], b[j], acc[i * C + j]);
                    }
                }
        }
    }
}

// ---- Row and column pivot tiles of the round kernels: register chains, no barrier ---------
// In a row pivot tile (Z, J) entry (i, j) at step k takes P(i, k) + S(k, j): P (the pivot
// tile) is final, so column j of S is a chain of its own over k (step k only needs S(k, j)
// after steps < k); in a column pivot tile (I, Z) (S(i, k) + P(k, j)) every row is. A chain
// (a column of a row tile / a row of a column tile) lives in the registers of G = T / 32
// lanes of one warp, E = 32 / G consecutive positions each: chain c = warp * E + lane % E,
// segment s = lane / E holds positions s E .. s E + E - 1. Step k takes S at position k from
// its owner lane with one shuffle, so no barrier is needed; P is read as E consecutive
// floats of one shared row per k (the pivot tile transposed for row tiles, as is for
// column tiles; row stride AP, 16-byte rows). Per entry the candidates still come in
// increasing k with the same operands as update_dependent, so results are identical. The
// position-k entry itself never changes in step k (P(k, k) = 0, x + 0 is never < x).
template <int T> struct ChainLayout {
    static constexpr int G = T / 32, E = W / G;  // lanes per chain, positions per lane (chains per warp = E)
    static_assert(E == Layout<T>::E, "chain layout covers the tile");
    static __device__ __forceinline__ int chain() { return (threadIdx.x >> 5) * E + (threadIdx.x & 31) % E; }
    static __device__ __forceinline__ int seg() { return (threadIdx.x & 31) / E; }
};

// E consecutive floats (E = 1, 2, 4, 8, 16) as vector accesses of at most 4.
template <int E> struct VecN {
    static constexpr int V = E < 4 ? E : 4;
    static __device__ __forceinline__ void ldg(const float* p, float* o) {
#pragma unroll
        for (int q = 0; q < E; q += V) Vec<V>::ldg(p + q, o + q);
    }
    static __device__ __forceinline__ void stg(float* p, const float* i) {
#pragma unroll
        for (int q = 0; q < E; q += V) Vec<V>::stg(p + q, i + q);
    }
    static __device__ __forceinline__ void lds(const float* p, float* o) {
#pragma unroll
        for (int q = 0; q < E; q += V) Vec<V>::lds(p + q, o + q);
    }
};

// Element (chain c, position q) of the tile at p: row tile (ROW) -> (q, c), column tile -> (c, q).
template <int T, bool ROW>
__device__ __forceinline__ void load_chain(const float* p, int ld, float (&acc)[Layout<T>::E]) {
    using L = ChainLayout<T>;
    const int c = L::chain(), q0 = L::seg() * L::E;
    if (ROW) {
#pragma unroll
        for (int r = 0; r < L::E; ++r) acc[r] = __ldcg(p + (long long)(q0 + r) * ld + c);
    } else {
        VecN<L::E>::ldg(p + (long long)c * ld + q0, acc);
    }
}

template <int T, bool ROW>
__device__ __forceinline__ void store_chain(float* p, int ld, const float (&acc)[Layout<T>::E]) {
    using L = ChainLayout<T>;
    const int c = L::chain(), q0 = L::seg() * L::E;
    if (ROW) {
#pragma unroll
        for (int r = 0; r < L::E; ++r) __stcg(p + (long long)(q0 + r) * ld + c, acc[r]);
    } else {
        VecN<L::E>::stg(p + (long long)c * ld + q0, acc);
    }
}

template <int T, bool ROW>
__device__ __forceinline__ void store_via_chain(int* p, int ld, const int (&v)[Layout<T>::E]) {
    using L = ChainLayout<T>;
    const int c = L::chain(), q0 = L::seg() * L::E;
#pragma unroll
    for (int r = 0; r < L::E; ++r)
        if (v[r] >= 0) __stcg(ROW ? p + (long long)(q0 + r) * ld + c : p + (long long)c * ld + q0 + r, v[r]);
}

// The pivot tile into shared memory with row stride AP, transposed (P[k][i] = pivot(i, k))
// for row tiles; coalesced loads (strip layout), all issued before the first store.
template <int T, bool TRANSPOSE>
__device__ __forceinline__ void load_pivot_operand(const float* p, int ld, PaddedTile& P) {
    constexpr int G = Layout<T>::G, E = Layout<T>::E;
    const int tx = lane_col(), ty = row_group();
    float t[E];
#pragma unroll
    for (int r = 0; r < E; ++r) t[r] = __ldcg(p + (long long)(ty + G * r) * ld + tx);
#pragma unroll
    for (int r = 0; r < E; ++r) {
        if (TRANSPOSE) P[tx][ty + G * r] = t[r];
        else P[ty + G * r][tx] = t[r];
    }
}

// Row (ROW) or column pivot tile in the chain layout; P as loaded by load_pivot_operand<T, ROW>
// and visible to all threads (a barrier after it). No barrier inside.
template <int T, bool PATHS, bool ROW>
__device__ __forceinline__ void update_chain(float (&acc)[Layout<T>::E], int (&via)[Layout<T>::E],
                                             const PaddedTile& P, int kbase) {
    using L = ChainLayout<T>;
    constexpr int E = L::E;
    const int lane = threadIdx.x & 31;
    const int mate = lane % E;  // lane of segment 0 of this chain
    const float* prow = &P[0][0] + L::seg() * E;
#pragma unroll
    for (int k = 0; k < W; ++k) {
        // S at position k (after steps < k) from its owner: segment k / E, register k % E
        const float sk = __shfl_sync(0xffffffffu, acc[k % E], (k / E) * E + mate);
        float p[E];
        VecN<E>::lds(prow + k * AP, p);
#pragma unroll
        for (int r = 0; r < E; ++r) {
            // row tile: P(i, k) + S(k, j); column tile: S(i, k) + P(k, j) (same sum either way)
            const float c = ROW ? p[r] + sk : sk + p[r];
            if (PATHS) {
                if (c < acc[r]) { acc[r] = c; via[r] = kbase + k; }
            } else {
                acc[r] = fminf(c, acc[r]);
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
