// Harish & Narayanan's iterative SSSP as described by okuyama (Fig. 3 and 5): one thread per
// vertex, a scattering kernel and a checking kernel per iteration, one source at a time.
//
// Convergence without a host sync per iteration: the host launches a batch of iterations and
// gives each batch a fresh `stamp`. The checking kernel of batch iteration j writes the stamp
// into changed[j] when some cost decreased; both kernels of iteration j+1 return at once when
// changed[j] does not hold the stamp (the previous iteration changed nothing, so nothing is
// active), which makes the surplus iterations of the last batch nearly free.
#include "common.cuh"

template <typename T>
__device__ __forceinline__ void relax(T* target, T cand, int test_first) {
    // U only decreases, so a stale read can only let an unneeded atomic through.
    if (!test_first || cand < *target) atomic_min_dist(target, cand);
}

template <typename T>
__device__ void harish_init(int n, int source, unsigned char* mask, T* cost, T* updated) {
    const long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    const T c = (v == source) ? T(0) : dist_inf<T>();
    cost[v] = c;
    updated[v] = c;
    mask[v] = (v == source);
}

template <typename T>
__device__ void harish_scatter(const int* indptr, const int* indices, const T* weights,
                               unsigned char* mask, const T* cost, T* updated, int n,
                               const int* prev_changed, int stamp, int test_first) {
    if (prev_changed && *prev_changed != stamp) return;
    const long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !mask[v]) return;
    mask[v] = 0;
    const T c = cost[v];
    const int end = indptr[v + 1];
    for (int e = indptr[v]; e < end; ++e) relax(updated + indices[e], c + weights[e], test_first);
}

template <typename T>
__device__ void harish_check(unsigned char* mask, T* cost, const T* updated, int n, int* changed,
                             const int* prev_changed, int stamp) {
    if (prev_changed && *prev_changed != stamp) return;  // uniform over the block
    const long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    bool decreased = false;
    if (v < n) {
        const T u = updated[v];
        decreased = u < cost[v];
        if (decreased) cost[v] = u;
        mask[v] = decreased;
    }
    // one write per block instead of one per changed vertex (okuyama's per-block flag)
    if (__syncthreads_or(decreased) && threadIdx.x == 0) *changed = stamp;
}

#define HARISH_KERNELS(SUFFIX, T)                                                                   \
    extern "C" __global__ void harish_init_##SUFFIX(int n, int source, unsigned char* mask,         \
                                                    T* cost, T* updated) {                         \
        harish_init<T>(n, source, mask, cost, updated);                                             \
    }                                                                                               \
    extern "C" __global__ void harish_scatter_##SUFFIX(                                             \
        const int* indptr, const int* indices, const T* weights, unsigned char* mask,               \
        const T* cost, T* updated, int n, const int* prev_changed, int stamp, int test_first) {     \
        harish_scatter<T>(indptr, indices, weights, mask, cost, updated, n, prev_changed, stamp,    \
                          test_first);                                                              \
    }                                                                                               \
    extern "C" __global__ void harish_check_##SUFFIX(unsigned char* mask, T* cost,                  \
                                                     const T* updated, int n, int* changed,         \
                                                     const int* prev_changed, int stamp) {          \
        harish_check<T>(mask, cost, updated, n, changed, prev_changed, stamp);                      \
    }
HARISH_KERNELS(i32, int)
HARISH_KERNELS(f32, float)
HARISH_KERNELS(f64, double)
