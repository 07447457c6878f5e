// The reductions of a block of sources read in place from batched PHAST's working matrix (issue 45): D is
// vertex-major (n rows in the hierarchy's numbering, `stride` columns, the first `count` of them the block's
// sources, phast_batched.cu), so the rows are never transposed or copied. One pass over D gives what
// reductions.cu gives from the rows, with the same fixed-point terms (fixed_point.cuh):
//   per vertex (row v): the sum of d, the count of d < inf, the sum of 1/d over d > 0, ADDED to the caller's
//     accumulators (a worker's, across its blocks: fixed point, so in any order) when `accumulate`;
//   per source (column c): the max of d (reached, else 0) as an order key, the count of d < inf, the sum of d;
//   the distance histogram of the pairs (c, v) with v reached and v not the source's own row (numpy's rule).
// Grid: y over chunks of 256 columns, x over the rows in strides (a warp per row, lane l on columns
// l + 32 j); per-column partials stay in registers over a warp's rows, are added in shared memory per CUDA
// block and once per block in global memory; every sum is an integer, so the atomics' order does not matter.
#include "fixed_point.cuh"

constexpr int SWR_WARPS = 8;  // 256 threads
constexpr int SWR_PER_LANE = 8;  // columns per lane: a warp covers a chunk of 256 columns
constexpr int SWR_CHUNK = 32 * SWR_PER_LANE;

// a 128-bit add as two 64-bit atomics: the low word's carries reach the high word whatever the order
__device__ __forceinline__ void swr_atomic_add(unsigned long long* at, unsigned long long lo, unsigned long long hi) {
    if (lo) {
        const unsigned long long old = atomicAdd(at, lo);
        hi += (old + lo < old);
    }
    if (hi) atomicAdd(at + 1, hi);
}

__device__ __forceinline__ void swr_fixed_atomic(unsigned long long* at, const FixedSum& a, int scale) {
    unsigned long long words[2];
    fixed_store(a, scale, words);
    swr_atomic_add(at, words[0], words[1]);
}

__device__ __forceinline__ unsigned long long swr_shfl(unsigned long long x, int offset) {
    return __shfl_down_sync(0xffffffffu, x, offset);
}

__device__ __forceinline__ void swr_warp_sum(FixedSum& a) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        const unsigned long long lo = swr_shfl(a.lo, offset), hi = swr_shfl(a.hi, offset), whole = swr_shfl(a.whole, offset);
        fixed_add(a, lo, hi);
        a.whole += whole;
    }
}

// an order key of a non-negative distance: its value for int, its bits for float and double
__device__ __forceinline__ unsigned long long swr_key(int x) { return (unsigned long long)x; }
__device__ __forceinline__ unsigned long long swr_key(float x) { return (unsigned long long)__float_as_uint(x); }
__device__ __forceinline__ unsigned long long swr_key(double x) { return (unsigned long long)__double_as_longlong(x); }

template <typename T>
__device__ void swr_reduce(const T* D, long long n, int stride, int count, T inf, int scale, int inverse_scale,
                           const int* col_row, const double* edges, int n_edges, int accumulate,
                           unsigned long long* sum_in, unsigned long long* reach_in, unsigned long long* harmonic_in,
                           unsigned long long* ecc_key, unsigned long long* reach_out, unsigned long long* sum_out,
                           unsigned long long* counts) {
    extern __shared__ unsigned long long swr_smem[];  // n_edges: the bins, then the pairs
    __shared__ unsigned long long s_sum[SWR_CHUNK][3], s_reach[SWR_CHUNK], s_ecc[SWR_CHUNK];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int i = threadIdx.x; i < n_edges; i += blockDim.x) swr_smem[i] = 0;
    for (int i = threadIdx.x; i < SWR_CHUNK; i += blockDim.x) {
        s_sum[i][0] = s_sum[i][1] = s_sum[i][2] = 0;
        s_reach[i] = s_ecc[i] = 0;
    }
    __syncthreads();
    const int chunk = blockIdx.y * SWR_CHUNK;
    int row_of[SWR_PER_LANE];
    FixedSum col_sum[SWR_PER_LANE];
    unsigned long long col_ecc[SWR_PER_LANE];
    unsigned col_reach[SWR_PER_LANE];
#pragma unroll
    for (int j = 0; j < SWR_PER_LANE; ++j) {
        const int c = chunk + lane + 32 * j;
        row_of[j] = c < count ? col_row[c] : -1;
        col_sum[j] = {0, 0, 0};
        col_ecc[j] = 0;
        col_reach[j] = 0;
    }
    const double lo = edges[0], hi = edges[n_edges - 1], per_bin = (n_edges - 1) / (hi - lo);
    unsigned long long pairs = 0;
    for (long long v = (long long)blockIdx.x * SWR_WARPS + warp; v < n; v += (long long)gridDim.x * SWR_WARPS) {
        const T* row = D + v * stride;
        FixedSum total = {0, 0, 0}, inverse = {0, 0, 0};
        unsigned reached = 0;
#pragma unroll
        for (int j = 0; j < SWR_PER_LANE; ++j) {
            const int c = chunk + lane + 32 * j;
            int bin = -1;
            if (c < count) {
                const T x = row[c];
                if (x < inf) {
                    fixed_add_term(total, x, scale);
                    fixed_add_term(col_sum[j], x, scale);
                    ++reached;
                    ++col_reach[j];
                    col_ecc[j] = max(col_ecc[j], swr_key(x));
                    if (x > T(0)) fixed_add_double(inverse, 1.0 / (double)x, inverse_scale);
                    if (row_of[j] != v) {
                        ++pairs;
                        const double d = (double)x;
                        if (lo <= d && d <= hi) {  // numpy's bin: the last edge <= d, the last bin closed
                            bin = min(max((int)((d - lo) * per_bin), 0), n_edges - 2);
                            while (bin > 0 && d < edges[bin]) --bin;
                            while (bin < n_edges - 2 && edges[bin + 1] <= d) ++bin;
                        }
                    }
                }
            }
            const unsigned active = __ballot_sync(0xffffffffu, bin >= 0);
            if (bin >= 0) {
                const unsigned same = __match_any_sync(active, bin);
                if (lane == __ffs(same) - 1) atomicAdd(&swr_smem[bin], (unsigned long long)__popc(same));
            }
        }
        if (accumulate && __any_sync(0xffffffffu, reached)) {
            swr_warp_sum(total);
            swr_warp_sum(inverse);
            for (int offset = 16; offset > 0; offset >>= 1) reached += __shfl_down_sync(0xffffffffu, reached, offset);
            if (lane == 0) {
                swr_fixed_atomic(sum_in + 2 * v, total, scale);
                swr_fixed_atomic(harmonic_in + 2 * v, inverse, inverse_scale);
                atomicAdd(reach_in + v, (unsigned long long)reached);
            }
        }
    }
#pragma unroll
    for (int j = 0; j < SWR_PER_LANE; ++j) {
        const int i = lane + 32 * j;
        if (chunk + i >= count) continue;
        unsigned long long words[2];
        fixed_store(col_sum[j], scale, words);
        const unsigned long long old = atomicAdd(&s_sum[i][0], words[0]);
        atomicAdd(&s_sum[i][1], words[1] + (old + words[0] < old));
        atomicAdd(&s_reach[i], (unsigned long long)col_reach[j]);
        atomicMax(&s_ecc[i], col_ecc[j]);
    }
    atomicAdd(&swr_smem[n_edges - 1], pairs);
    __syncthreads();
    for (int i = threadIdx.x; i < SWR_CHUNK; i += blockDim.x) {
        const int c = chunk + i;
        if (c >= count) continue;
        swr_atomic_add(sum_out + 2 * c, s_sum[i][0], s_sum[i][1]);
        atomicAdd(reach_out + c, s_reach[i]);
        atomicMax(ecc_key + c, s_ecc[i]);
    }
    for (int i = threadIdx.x; i < n_edges; i += blockDim.x)
        if (swr_smem[i]) atomicAdd(&counts[i], swr_smem[i]);
}

#define SWR_KERNEL(SFX, T)                                                                                         \
    extern "C" __global__ void __launch_bounds__(256) swr_reduce_##SFX(                                           \
        const T* D, long long n, int stride, int count, T inf, int scale, int inverse_scale, const int* col_row,    \
        const double* edges, int n_edges, int accumulate, unsigned long long* sum_in, unsigned long long* reach_in, \
        unsigned long long* harmonic_in, unsigned long long* ecc_key, unsigned long long* reach_out,               \
        unsigned long long* sum_out, unsigned long long* counts) {                                                 \
        swr_reduce<T>(D, n, stride, count, inf, scale, inverse_scale, col_row, edges, n_edges, accumulate, sum_in,  \
                      reach_in, harmonic_in, ecc_key, reach_out, sum_out, counts);                                 \
    }

SWR_KERNEL(i32, int)
SWR_KERNEL(f32, float)
SWR_KERNEL(f64, double)
