// The distance histogram of a block of rows in one pass (distributed/reductions.py): the ordered
// pairs (s, v), v != s, v reached (dist < inf), counted per bin with numpy.histogram's edges and
// rule (cupy.histogram's search: x in [edges[0], edges[last]], the last bin closed), first in
// shared memory per block, then once per bin and block in global memory. The counts equal
// cupy.histogram's of the compacted pairs exactly, without compacting them and without every
// element contending for the same few global counters.
// Grid: x strides over the columns, y over the rows; counts[n_edges - 1] receives the pair count.

template <typename T>
__device__ void red_histogram(const T* dist, int k, long long n, T inf, const long long* src, const double* edges,
                              int n_edges, unsigned long long* counts) {
    extern __shared__ unsigned long long red_bins[];  // n_edges - 1 bins, then the pairs
    for (int i = threadIdx.x; i < n_edges; i += blockDim.x) red_bins[i] = 0;
    __syncthreads();
    const double lo = edges[0], hi = edges[n_edges - 1];
    unsigned long long pairs = 0;
    for (int row = blockIdx.y; row < k; row += gridDim.y) {
        const long long self = src[row];
        const T* d = dist + (long long)row * n;
        for (long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x; col < n;
             col += (long long)gridDim.x * blockDim.x) {
            const T x = d[col];
            if (!(x < inf) || col == self) continue;
            ++pairs;
            const double v = (double)x;
            if (v < lo || hi < v) continue;
            int high = n_edges - 1, low = 0;
            while (high - low > 1) {
                const int mid = (high + low) / 2;
                if (edges[mid] <= v)
                    low = mid;
                else
                    high = mid;
            }
            atomicAdd(&red_bins[low], 1ull);
        }
    }
    atomicAdd(&red_bins[n_edges - 1], pairs);
    __syncthreads();
    for (int i = threadIdx.x; i < n_edges; i += blockDim.x)
        if (red_bins[i]) atomicAdd(&counts[i], red_bins[i]);
}

#define RED_KERNELS(SFX, T)                                                                                  \
    extern "C" __global__ void red_histogram_##SFX(const T* dist, int k, long long n, T inf, const long long* src, \
                                                   const double* edges, int n_edges, unsigned long long* counts) { \
        red_histogram<T>(dist, k, n, inf, src, edges, n_edges, counts);                                     \
    }

RED_KERNELS(i32, int)
RED_KERNELS(f32, float)
RED_KERNELS(f64, double)
