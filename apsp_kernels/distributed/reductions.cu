// The reductions of a block of rows (distributed/reductions.py). The distance histogram in one pass: the ordered
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
            // lanes of a warp often fall in the same bin (neighbouring columns, similar distances):
            // one shared atomic per bin and warp instead of up to 32 serialized on one counter
            const unsigned same = __match_any_sync(__activemask(), low);
            if ((threadIdx.x & 31) == __ffs(same) - 1) atomicAdd(&red_bins[low], (unsigned long long)__popc(same));
        }
    }
    atomicAdd(&red_bins[n_edges - 1], pairs);
    __syncthreads();
    for (int i = threadIdx.x; i < n_edges; i += blockDim.x)
        if (red_bins[i]) atomicAdd(&counts[i], red_bins[i]);
}

// Sums in 128-bit fixed point (fixed_sums.py): FixedSum and its helpers, shared with sweep_reductions.cu.
#include "fixed_point.cuh"

// Per-source reductions of a block (one CUDA block of 256 threads per row, a fixed tree): ecc = max
// over the row of d (d = x where reached, else 0, as the host path's where(reach, dist, 0)), reach =
// count of x < inf, sum = sum of d in fixed point (two words per row).
template <typename T>
__device__ void red_rows(const T* dist, long long n, T inf, int scale, double* ecc, long long* reach,
                         unsigned long long* sum) {
    __shared__ double s_max[256];
    __shared__ FixedSum s_sum[256];
    __shared__ long long s_cnt[256];
    const T* d = dist + (long long)blockIdx.x * n;
    double mx = -__longlong_as_double(0x7ff0000000000000LL);  // -inf
    FixedSum total = {0, 0, 0};
    long long count = 0;
    for (long long col = threadIdx.x; col < n; col += blockDim.x) {
        const T x = d[col];
        const bool reached = x < inf;
        mx = fmax(mx, reached ? (double)x : 0.0);
        if (reached) fixed_add_term(total, x, scale);
        count += reached;
    }
    s_max[threadIdx.x] = mx;
    s_sum[threadIdx.x] = total;
    s_cnt[threadIdx.x] = count;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            s_max[threadIdx.x] = fmax(s_max[threadIdx.x], s_max[threadIdx.x + half]);
            fixed_merge(s_sum[threadIdx.x], s_sum[threadIdx.x + half]);
            s_cnt[threadIdx.x] += s_cnt[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        ecc[blockIdx.x] = s_max[0];
        fixed_store(s_sum[0], scale, sum + 2 * (long long)blockIdx.x);
        reach[blockIdx.x] = s_cnt[0];
    }
}

// Per-target reductions of a block: one thread per column, the rows in order (coalesced across the
// warp): the fixed-point sum of d (two words per column), the count of x < inf, the fixed-point
// harmonic sum of 1/d over d > 0 (1/d rounded by IEEE division, as NumPy's).
template <typename T>
__device__ void red_columns(const T* dist, int k, long long n, T inf, int scale, int inverse_scale,
                            unsigned long long* sum, long long* reach, unsigned long long* harmonic) {
    const long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= n) return;
    FixedSum total = {0, 0, 0}, inverse = {0, 0, 0};
    long long count = 0;
#pragma unroll 4
    for (int row = 0; row < k; ++row) {
        const T x = dist[(long long)row * n + col];
        if (x < inf) {
            fixed_add_term(total, x, scale);
            ++count;
            if (x > 0) fixed_add_double(inverse, 1.0 / (double)x, inverse_scale);
        }
    }
    fixed_store(total, scale, sum + 2 * col);
    reach[col] = count;
    fixed_store(inverse, inverse_scale, harmonic + 2 * col);
}

#define RED_KERNELS(SFX, T)                                                                                  \
    extern "C" __global__ void red_histogram_##SFX(const T* dist, int k, long long n, T inf, const long long* src, \
                                                   const double* edges, int n_edges, unsigned long long* counts) { \
        red_histogram<T>(dist, k, n, inf, src, edges, n_edges, counts);                                     \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(256) red_rows_##SFX(const T* dist, long long n, T inf,      \
                                                                    int scale, double* ecc, long long* reach, \
                                                                    unsigned long long* sum) {               \
        red_rows<T>(dist, n, inf, scale, ecc, reach, sum);                                                   \
    }                                                                                                        \
    extern "C" __global__ void red_columns_##SFX(const T* dist, int k, long long n, T inf, int scale,         \
                                                 int inverse_scale, unsigned long long* sum, long long* reach, \
                                                 unsigned long long* harmonic) {                             \
        red_columns<T>(dist, k, n, inf, scale, inverse_scale, sum, reach, harmonic);                        \
    }

RED_KERNELS(i32, int)
RED_KERNELS(f32, float)
RED_KERNELS(f64, double)
