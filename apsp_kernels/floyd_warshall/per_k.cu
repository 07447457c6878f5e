// Floyd-Warshall, one launch per k, one thread per (i, j) on a 2D grid.
// Row k and column k do not change during step k (d[k][k] = 0), so the update is in place.
#include "common.cuh"

template <typename T>
__device__ __forceinline__ void fw_step(T* d, int* pred, int n, long long ld, int k) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    const T cur = d[i * ld + j];
    const T cand = d[i * ld + k] + d[k * ld + j];
    if (cand < cur) {
        d[i * ld + j] = cand;
        if (pred) pred[i * ld + j] = pred[k * ld + j];
    }
}

#define FW_PER_K(SUFFIX, T)                                                                   \
    extern "C" __global__ void fw_per_k_##SUFFIX(T* d, int* pred, int n, long long ld, int k) { \
        fw_step<T>(d, pred, n, ld, k);                                                        \
    }
FW_PER_K(i32, int)
FW_PER_K(f32, float)
FW_PER_K(f64, double)
