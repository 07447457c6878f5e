// okuyama §5.3 recording kernel: after a group of W problems has converged, thread (v, j)
// stores in P[v, j] an in-neighbour u of v with C[v, j] == C[u, j] + w(u, v), scanning the
// reversed graph (CSR of the transpose). P is written over U's memory (the paper reuses Ua).
// -1 for the source, unreachable vertices and unused columns. Same (P, B) blocks and
// v * W + j layout as sssp_groups.cu, so a warp shares v and reads C[u, j..j+31] coalesced.
#include "common.cuh"

template <typename T>
__device__ void tp_record_paths(const int* rindptr, const int* rindices, const T* rweights,
                                const T* C, int* pred, const int* sources, int n, int W) {
    const int j = blockIdx.y * blockDim.x + threadIdx.x;
    const int v = blockIdx.x * blockDim.y + threadIdx.y;
    if (v >= n || j >= W) return;
    const size_t at = (size_t)v * W + j;
    const T cost = C[at];
    const int s = sources[j];
    int parent = -1;
    if (s >= 0 && v != s && cost < dist_inf<T>()) {
        const int end = rindptr[v + 1];
        for (int e = rindptr[v]; e < end; ++e) {
            const int u = rindices[e];
            if (C[(size_t)u * W + j] + rweights[e] == cost) {
                parent = u;
                break;
            }
        }
    }
    pred[at] = parent;
}

#define RECORD_KERNEL(SUFFIX, T)                                                                 \
    extern "C" __global__ void tp_record_paths_##SUFFIX(                                         \
        const int* rindptr, const int* rindices, const T* rweights, const T* C, int* pred,       \
        const int* sources, int n, int W) {                                                      \
        tp_record_paths<T>(rindptr, rindices, rweights, C, pred, sources, n, W);                 \
    }
RECORD_KERNEL(i32, int)
RECORD_KERNEL(f32, float)
RECORD_KERNEL(f64, double)
