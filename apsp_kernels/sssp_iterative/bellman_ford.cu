// Bellman-Ford on CSR (bodra, Sec. 2.1 and Table 1): one launch per iteration, two distance
// arrays (prev is read, dist receives an atomic min), a separate parent kernel at the end.
// Distances are int32 with the project's INF (2^30 - 1, see apsp_kernels/inf.py), or float32 /
// float64 with +inf (suffixes _i32, _f32, _f64); negative weights are allowed, so the float
// variants lower dist with a compare-and-swap loop (atomic_min_signed). Three relax/update
// pairs: naive (one thread per vertex), stride (grid-stride loop), stride+flag (only vertices
// whose distance dropped in the last iteration relax). Every update kernel sets changed[slot] = 1
// when a distance dropped; the host reads that array every few iterations in early-exit mode
// (the faithful mode ignores it).
#include "common.cuh"

#define BF_MAX_THREADS 1024

template <typename T>
__device__ __forceinline__ void relax_out_arcs(int i, const int* __restrict__ indptr,
                                               const int* __restrict__ indices,
                                               const T* __restrict__ weights,
                                               const T* __restrict__ prev, T* dist) {
    const T du = prev[i];
    if (!(du < dist_inf<T>())) return;
    const int end = indptr[i + 1];
    for (int e = indptr[i]; e < end; ++e) {
        const int v = indices[e];
        const T cand = du + weights[e];
        // The plain read only filters: dist only decreases, so a stale value is never too small.
        if (cand < dist[v]) atomic_min_signed(dist + v, cand);
    }
}

template <typename T>
__device__ __forceinline__ void bf_relax_naive(const int* __restrict__ indptr, const int* __restrict__ indices,
                                               const T* __restrict__ weights, const T* __restrict__ prev,
                                               T* dist, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) relax_out_arcs(i, indptr, indices, weights, prev, dist);
}

template <typename T>
__device__ __forceinline__ void bf_relax_stride(const int* __restrict__ indptr, const int* __restrict__ indices,
                                                const T* __restrict__ weights, const T* __restrict__ prev,
                                                T* dist, int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        relax_out_arcs(i, indptr, indices, weights, prev, dist);
}

template <typename T>
__device__ __forceinline__ void bf_relax_stride_flag(const int* __restrict__ indptr,
                                                     const int* __restrict__ indices,
                                                     const T* __restrict__ weights,
                                                     const T* __restrict__ prev, T* dist,
                                                     unsigned char* flag, int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (flag[i]) {
            flag[i] = 0;
            relax_out_arcs(i, indptr, indices, weights, prev, dist);
        }
    }
}

// prev <- dist (dist <= prev always holds: dist starts equal to prev and only decreases).
template <typename T>
__device__ __forceinline__ void bf_update_naive(T* prev, const T* __restrict__ dist, int* changed,
                                                int slot, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const T d = dist[i];
    if (d < prev[i]) {
        prev[i] = d;
        changed[slot] = 1;
    }
}

template <typename T>
__device__ __forceinline__ void bf_update_stride(T* prev, const T* __restrict__ dist, int* changed,
                                                 int slot, int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const T d = dist[i];
        if (d < prev[i]) {
            prev[i] = d;
            changed[slot] = 1;
        }
    }
}

template <typename T>
__device__ __forceinline__ void bf_update_stride_flag(T* prev, const T* __restrict__ dist,
                                                      unsigned char* flag, int* changed, int slot, int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const T d = dist[i];
        if (d < prev[i]) {
            prev[i] = d;
            flag[i] = 1;
            changed[slot] = 1;
        }
    }
}

// pred[v] = the first in-neighbour u (reverse CSR) with dist[u] + w(u, v) == dist[v];
// -1 for the source and for unreachable vertices. One writer per v: no race.
template <typename T>
__device__ __forceinline__ void bf_parent(const int* __restrict__ rindptr, const int* __restrict__ rindices,
                                          const T* __restrict__ rweights, const T* __restrict__ dist,
                                          int* pred, int source, int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        int p = -1;
        const T dv = dist[v];
        if (v != source && dv < dist_inf<T>()) {
            const int end = rindptr[v + 1];
            for (int e = rindptr[v]; e < end; ++e) {
                const int u = rindices[e];
                const T du = dist[u];
                if (du < dist_inf<T>() && du + rweights[e] == dv) {
                    p = u;
                    break;
                }
            }
        }
        pred[v] = p;
    }
}

// found[0] = 1 when some arc can still be relaxed (after |V|-1 iterations: a negative cycle).
template <typename T>
__device__ __forceinline__ void bf_find_relaxable(const int* __restrict__ indptr, const int* __restrict__ indices,
                                                  const T* __restrict__ weights, const T* __restrict__ dist,
                                                  int* found, int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const T du = dist[i];
        if (!(du < dist_inf<T>())) continue;
        const int end = indptr[i + 1];
        for (int e = indptr[i]; e < end; ++e) {
            if (du + weights[e] < dist[indices[e]]) found[0] = 1;
        }
    }
}

#define BF_CSR(T) const int* indptr, const int* indices, const T* weights
#define BF_KERNELS(SFX, T)                                                                              \
    extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)                                        \
        bf_relax_naive_##SFX(BF_CSR(T), const T* prev, T* dist, int n) {                                \
        bf_relax_naive<T>(indptr, indices, weights, prev, dist, n);                                     \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)                                        \
        bf_relax_stride_##SFX(BF_CSR(T), const T* prev, T* dist, int n) {                               \
        bf_relax_stride<T>(indptr, indices, weights, prev, dist, n);                                    \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)                                        \
        bf_relax_stride_flag_##SFX(BF_CSR(T), const T* prev, T* dist, unsigned char* flag, int n) {     \
        bf_relax_stride_flag<T>(indptr, indices, weights, prev, dist, flag, n);                         \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)                                        \
        bf_update_naive_##SFX(T* prev, const T* dist, int* changed, int slot, int n) {                  \
        bf_update_naive<T>(prev, dist, changed, slot, n);                                               \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)                                        \
        bf_update_stride_##SFX(T* prev, const T* dist, int* changed, int slot, int n) {                 \
        bf_update_stride<T>(prev, dist, changed, slot, n);                                              \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)                                        \
        bf_update_stride_flag_##SFX(T* prev, const T* dist, unsigned char* flag, int* changed,          \
                                    int slot, int n) {                                                  \
        bf_update_stride_flag<T>(prev, dist, flag, changed, slot, n);                                   \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)                                        \
        bf_parent_##SFX(const int* rindptr, const int* rindices, const T* rweights, const T* dist,      \
                        int* pred, int source, int n) {                                                 \
        bf_parent<T>(rindptr, rindices, rweights, dist, pred, source, n);                               \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)                                        \
        bf_find_relaxable_##SFX(BF_CSR(T), const T* dist, int* found, int n) {                          \
        bf_find_relaxable<T>(indptr, indices, weights, dist, found, n);                                 \
    }

BF_KERNELS(i32, int)
BF_KERNELS(f32, float)
BF_KERNELS(f64, double)
