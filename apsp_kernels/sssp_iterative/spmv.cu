// SSSP as a (min,+) sparse matrix-vector product iterated to a fixed point (liu's nvGraph method).
// The matrix is stored as CSC: column v lists the in-arcs (u, w) of v, so one sweep computes
//   d[v] = min(d[v], min_u d[u] + w(u, v))
// for every v ("pull"). A group of G lanes (G = 1, 2, ..., 32, inside one warp) owns a column.
// Updates are in place (Gauss-Seidel): a lane may read a neighbour's old or new value; both are
// lengths of real paths, so the fixed point is the same and is reached in no more sweeps.
// Only the owner of column v writes d[v], so no atomics are needed.
#include "common.cuh"

#define SPMV_NO_PRED 0x7fffffff

__device__ __forceinline__ int dmin(int a, int b) { return min(a, b); }
__device__ __forceinline__ float dmin(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double dmin(double a, double b) { return fmin(a, b); }

// Lanes of the calling thread's group of G within its warp.
template <int G>
__device__ __forceinline__ unsigned group_mask() {
    const unsigned base = (threadIdx.x & 31u) & ~(unsigned)(G - 1);
    return G == 32 ? 0xffffffffu : ((1u << (G & 31)) - 1u) << base;
}

template <typename T, int G>
__device__ __forceinline__ T group_min(T v) {
    const unsigned mask = group_mask<G>();
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) v = dmin(v, __shfl_xor_sync(mask, v, off, G));
    return v;
}

// Sweep number `it` of the iteration. changed[it] is set when some d[v] decreased; a sweep that
// follows one without change returns at once (the fixed point was reached), so the host can launch
// several sweeps between checks at the cost of a few empty launches.
template <typename T, int G>
__device__ __forceinline__ void spmv_sweep(const int* __restrict__ colptr, const int* __restrict__ rows,
                                           const T* __restrict__ w, T* d, int* changed, int n, int it) {
    if (it > 0 && changed[it - 1] == 0) return;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long v = t / G;  // the same for every lane of a group: whole groups leave together
    if (v >= n) return;
    const int lane = threadIdx.x & (G - 1);
    const int end = colptr[v + 1];
    T best = dist_inf<T>();
    for (int e = colptr[v] + lane; e < end; e += G) best = add_min<T>(d[rows[e]], w[e], best);
    best = group_min<T, G>(best);
    if (lane == 0 && best < d[v]) {
        d[v] = best;
        // test before storing: a store per SM, not one per updated vertex to the same word
        if (changed[it] == 0) changed[it] = 1;
    }
}

// Predecessors from the fixed point: pred[v] = the smallest u with d[u] + w(u, v) == d[v];
// -1 for the source and for unreachable vertices.
template <typename T, int G>
__device__ __forceinline__ void spmv_pred(const int* __restrict__ colptr, const int* __restrict__ rows,
                                          const T* __restrict__ w, const T* __restrict__ d, int* pred,
                                          int n, int source) {
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long v = t / G;
    if (v >= n) return;
    const int lane = threadIdx.x & (G - 1);
    const T dv = d[v];
    int best = SPMV_NO_PRED;
    if (v != source && dv < dist_inf<T>()) {
        const int end = colptr[v + 1];
        for (int e = colptr[v] + lane; e < end; e += G) {
            const int u = rows[e];
            if (d[u] + w[e] == dv) best = min(best, u);
        }
    }
    best = group_min<int, G>(best);
    if (lane == 0) pred[v] = best == SPMV_NO_PRED ? -1 : best;
}

#define SPMV_KERNELS(SFX, T, G)                                                                       \
    extern "C" __global__ void spmv_sweep_g##G##_##SFX(const int* colptr, const int* rows, const T* w, \
                                                       T* d, int* changed, int n, int it) {          \
        spmv_sweep<T, G>(colptr, rows, w, d, changed, n, it);                                          \
    }                                                                                                 \
    extern "C" __global__ void spmv_pred_g##G##_##SFX(const int* colptr, const int* rows, const T* w,  \
                                                      const T* d, int* pred, int n, int source) {    \
        spmv_pred<T, G>(colptr, rows, w, d, pred, n, source);                                          \
    }

#define SPMV_ALL_GROUPS(SFX, T) \
    SPMV_KERNELS(SFX, T, 1)     \
    SPMV_KERNELS(SFX, T, 2)     \
    SPMV_KERNELS(SFX, T, 4)     \
    SPMV_KERNELS(SFX, T, 8)     \
    SPMV_KERNELS(SFX, T, 16)    \
    SPMV_KERNELS(SFX, T, 32)

SPMV_ALL_GROUPS(i32, int)
SPMV_ALL_GROUPS(f32, float)
SPMV_ALL_GROUPS(f64, double)
