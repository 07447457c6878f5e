// Bellman-Ford on CSR (bodra, Sec. 2.1 and Table 1): one launch per iteration, two distance
// arrays (prev is read, dist receives atomicMin), a separate parent kernel at the end.
// int32 distances with the project's INF (2^30 - 1, see apsp_kernels/inf.py); negative weights
// are allowed. Three relax/update pairs: naive (one thread per vertex), stride (grid-stride
// loop), stride+flag (only vertices whose distance dropped in the last iteration relax).
// Every update kernel sets changed[slot] = 1 when a distance dropped; the host reads that array
// every few iterations in early-exit mode (the faithful mode ignores it).
#include "common.cuh"

#define BF_MAX_THREADS 1024

__device__ __forceinline__ void relax_out_arcs(int i, const int* __restrict__ indptr,
                                               const int* __restrict__ indices,
                                               const int* __restrict__ weights,
                                               const int* __restrict__ prev, int* dist) {
    const int du = prev[i];
    if (du >= APSP_INF_I32) return;
    const int end = indptr[i + 1];
    for (int e = indptr[i]; e < end; ++e) {
        const int v = indices[e];
        const int cand = du + weights[e];
        // The plain read only filters: dist only decreases, so a stale value is never too small.
        if (cand < dist[v]) atomicMin(dist + v, cand);
    }
}

extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)
bf_relax_naive(const int* __restrict__ indptr, const int* __restrict__ indices,
               const int* __restrict__ weights, const int* __restrict__ prev, int* dist, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) relax_out_arcs(i, indptr, indices, weights, prev, dist);
}

extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)
bf_relax_stride(const int* __restrict__ indptr, const int* __restrict__ indices,
                const int* __restrict__ weights, const int* __restrict__ prev, int* dist, int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        relax_out_arcs(i, indptr, indices, weights, prev, dist);
}

extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)
bf_relax_stride_flag(const int* __restrict__ indptr, const int* __restrict__ indices,
                     const int* __restrict__ weights, const int* __restrict__ prev, int* dist,
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
extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)
bf_update_naive(int* prev, const int* __restrict__ dist, int* changed, int slot, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int d = dist[i];
    if (d < prev[i]) {
        prev[i] = d;
        changed[slot] = 1;
    }
}

extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)
bf_update_stride(int* prev, const int* __restrict__ dist, int* changed, int slot, int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int d = dist[i];
        if (d < prev[i]) {
            prev[i] = d;
            changed[slot] = 1;
        }
    }
}

extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)
bf_update_stride_flag(int* prev, const int* __restrict__ dist, unsigned char* flag, int* changed,
                      int slot, int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int d = dist[i];
        if (d < prev[i]) {
            prev[i] = d;
            flag[i] = 1;
            changed[slot] = 1;
        }
    }
}

// pred[v] = the first in-neighbour u (reverse CSR) with dist[u] + w(u, v) == dist[v];
// -1 for the source and for unreachable vertices. One writer per v: no race.
extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)
bf_parent(const int* __restrict__ rindptr, const int* __restrict__ rindices,
          const int* __restrict__ rweights, const int* __restrict__ dist, int* pred, int source,
          int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        int p = -1;
        const int dv = dist[v];
        if (v != source && dv < APSP_INF_I32) {
            const int end = rindptr[v + 1];
            for (int e = rindptr[v]; e < end; ++e) {
                const int u = rindices[e];
                const int du = dist[u];
                if (du < APSP_INF_I32 && du + rweights[e] == dv) {
                    p = u;
                    break;
                }
            }
        }
        pred[v] = p;
    }
}

// found[0] = 1 when some arc can still be relaxed (after |V|-1 iterations: a negative cycle).
extern "C" __global__ void __launch_bounds__(BF_MAX_THREADS)
bf_find_relaxable(const int* __restrict__ indptr, const int* __restrict__ indices,
                  const int* __restrict__ weights, const int* __restrict__ dist, int* found, int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int du = dist[i];
        if (du >= APSP_INF_I32) continue;
        const int end = indptr[i + 1];
        for (int e = indptr[i]; e < end; ++e) {
            if (du + weights[e] < dist[indices[e]]) found[0] = 1;
        }
    }
}
