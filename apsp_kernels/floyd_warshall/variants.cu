// Floyd-Warshall variants of bodra (Sec. 2.3.2 and 2.3.3, Table 3), one launch per k, in place.
// During step k row k and column k do not change (d[k][k] = 0, weights are non-negative), so
// every thread may read them while others update the rest of the matrix.
// pred (may be null): pred[i][j] = pred[k][j] when i->k->j improves d[i][j] (the vertex before j).
// INF = 2^30 - 1, so INF + INF never overflows and no INF test is needed before adding: every
// step reads the same data whatever the distances are (the per-k cost is data-independent).
#include "common.cuh"

// Super naive shared: 1D blocks, blockIdx.y is the row i; d[i][k] is read once per block into
// shared memory and broadcast to all threads of the block.
extern "C" __global__ void __launch_bounds__(1024)
fw_super_naive_shared_i32(int* d, int* pred, int n, long long ld, int k) {
    __shared__ int dik;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = blockIdx.y; i < n; i += gridDim.y) {  // the loop only runs more than once for n > 65535
        if (threadIdx.x == 0) dik = d[i * ld + k];
        __syncthreads();
        const int a = dik;
        __syncthreads();  // all have read dik before thread 0 overwrites it for the next row
        if (j < n) {
            const long long ij = i * ld + j;
            const int cand = a + d[k * ld + j];
            if (cand < d[ij]) {
                d[ij] = cand;
                if (pred) pred[ij] = pred[k * ld + j];
            }
        }
    }
}

// Naive: one thread per row i loops over all columns j.
extern "C" __global__ void __launch_bounds__(1024)
fw_naive_rows_i32(int* d, int* pred, int n, long long ld, int k) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int* row = d + i * ld;
    const int* row_k = d + k * ld;
    const int a = row[k];
    for (int j = 0; j < n; ++j) {
        const int cand = a + row_k[j];
        if (cand < row[j]) {
            row[j] = cand;
            if (pred) pred[i * ld + j] = pred[k * ld + j];
        }
    }
}
