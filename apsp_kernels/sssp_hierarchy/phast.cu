// PHAST's two sweeps over a contraction hierarchy (Delling et al., IPDPS 2011), vertices numbered
// by level. Upward sweep, levels ascending: each vertex pulls over its in-arcs from lower levels;
// downward sweep, levels descending: over its in-arcs from higher levels. A level's vertices are
// independent (every arc joins two levels), so a level is one parallel step.
// Levels with many vertices run one launch each (ph_level); the many small levels at the top run
// in one block (ph_top), their distances in shared memory, a barrier between levels. There a level's
// vertices share the block's threads: a group of up to 32 lanes per vertex (fewer vertices, wider
// groups) reads the vertex's in-arcs side by side and takes their minimum with warp shuffles, so a
// top vertex with many shortcut arcs costs a few memory latencies, not one per arc.
#include "common.cuh"

template <typename T>
__device__ __forceinline__ T pull(const int* __restrict__ indptr, const int* __restrict__ srcs,
                                  const T* __restrict__ w, int v, T best, const T* d, const T* top, int top_start) {
    const int end = indptr[v + 1];
    for (int e = indptr[v]; e < end; ++e) {
        const int u = srcs[e];
        best = add_min<T>(u >= top_start ? top[u - top_start] : d[u], w[e], best);
    }
    return best;
}

template <typename T>
__device__ void ph_level(const int* indptr, const int* srcs, const T* w, T* d, int lo, int hi) {
    for (long long v = lo + (long long)blockIdx.x * blockDim.x + threadIdx.x; v < hi; v += (long long)gridDim.x * blockDim.x)
        d[v] = pull<T>(indptr, srcs, w, (int)v, d[v], d, d, 0x7fffffff);
}

template <typename T>
__device__ __forceinline__ T group_min(T x, int width) {  // lanes of an aligned group of `width`
    for (int offset = width >> 1; offset > 0; offset >>= 1) {
        const T y = __shfl_xor_sync(0xffffffffu, x, offset);
        x = y < x ? y : x;
    }
    return x;
}

template <typename T>
__device__ void ph_top(const int* indptr, const int* srcs, const T* w, T* d, const int* level_ptr, int first,
                       int last, int n) {
    extern __shared__ unsigned char ph_smem[];
    T* top = (T*)ph_smem;
    const int ascending = first <= last;
    const int low = ascending ? first : last, high = ascending ? last : first;  // levels [low, high]
    const int top_start = level_ptr[low], count = level_ptr[high + 1] - top_start;
    for (int i = threadIdx.x; i < count; i += blockDim.x) top[i] = d[top_start + i];
    __syncthreads();
    for (int l = first;; l += ascending ? 1 : -1) {
        const int lo = level_ptr[l], hi = level_ptr[l + 1];
        int width = 32;  // lanes per vertex: the widest group that still gives every vertex one
        while (width > 1 && (hi - lo) * width > (int)blockDim.x) width >>= 1;
        const int group = threadIdx.x / width, lane = threadIdx.x % width, groups = blockDim.x / width;
        for (int base = lo; base < hi; base += groups) {  // every lane runs each round: the shuffles need them
            const int v = base + group;
            T best = dist_inf<T>();
            if (v < hi) {
                const int end = indptr[v + 1];
                for (int e = indptr[v] + lane; e < end; e += width) {
                    const int u = srcs[e];
                    best = add_min<T>(u >= top_start ? top[u - top_start] : d[u], w[e], best);
                }
            }
            best = group_min<T>(best, width);
            if (v < hi && lane == 0 && best < top[v - top_start]) top[v - top_start] = best;
        }
        __syncthreads();
        if (l == last) break;
    }
    for (int i = threadIdx.x; i < count; i += blockDim.x) d[top_start + i] = top[i];
}

template <typename T>
__device__ void ph_init(T* d, int n, int source) {
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (long long)gridDim.x * blockDim.x)
        d[v] = v == source ? T(0) : dist_inf<T>();
}

// out[old] = d[rank[old]]: back to the graph's numbering
template <typename T>
__device__ void ph_scatter(const T* d, const int* rank, T* out, int n) {
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (long long)gridDim.x * blockDim.x)
        out[v] = d[rank[v]];
}

#define PH_KERNELS(SFX, T)                                                                                   \
    extern "C" __global__ void ph_level_##SFX(const int* indptr, const int* srcs, const T* w, T* d, int lo,  \
                                              int hi) {                                                      \
        ph_level<T>(indptr, srcs, w, d, lo, hi);                                                             \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(1024) ph_top_##SFX(const int* indptr, const int* srcs,      \
                                                                   const T* w, T* d, const int* level_ptr,   \
                                                                   int first, int last, int n) {             \
        ph_top<T>(indptr, srcs, w, d, level_ptr, first, last, n);                                            \
    }                                                                                                        \
    extern "C" __global__ void ph_init_##SFX(T* d, int n, int source) { ph_init<T>(d, n, source); }          \
    extern "C" __global__ void ph_scatter_##SFX(const T* d, const int* rank, T* out, int n) {                \
        ph_scatter<T>(d, rank, out, n);                                                                      \
    }

PH_KERNELS(i32, int)
PH_KERNELS(f32, float)
