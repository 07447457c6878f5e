// The reductions of a block of sources read in place from batched PHAST's working matrix (issue 45): D is
// vertex-major (n rows in the hierarchy's numbering, `stride` columns, the first `count` of them the block's
// sources, phast_batched.cu), so the rows are never transposed or copied. One read of D gives what
// reductions.cu gives from the rows, with the same fixed-point terms (fixed_point.cuh):
//   per source (column c): the max of d (reached, else 0) as an order key, the count of d < inf, the sum of d,
//     and the distance histogram of the pairs (c, v) with v reached and v not the source's own row (numpy's
//     rule: the last edge <= d, the last bin closed; the own row is at distance 0, as a sweep leaves it);
//   per vertex (row v), when `accumulate`: the sum of d, the count of d < inf and the sum of 1/d over d > 0,
//     ADDED to the caller's accumulators (a worker's, across its blocks: fixed point, so in any order;
//     row_sums.cuh).
// A CUDA block owns a chunk of 1024 columns (four neighbouring ones a thread, one vector load a row) over a
// slice of the rows, taken a tile of 8 rows at a time: each thread adds its columns' terms in registers, then
// the tile goes to shared memory, where a warp per row adds the row's terms (a warp reduction a row and chunk,
// no atomics when one chunk holds every column) while the next tile's loads are in flight. The histogram counts
// in shared memory in a counter per bin and lane (no two lanes of a warp share one), once per bin and CUDA block
// in global memory; an int distance finds its bin among integer thresholds, not by float arithmetic. Every sum
// is an integer, so the atomics' order does not matter.
// The fast kernels (int distances, at most SWR_LANE_BINS bins, sums of 1/d exact in two doubles) have no branch
// per term (terms not counted add zero or count in a bin no one reads) and one barrier a tile (two tiles in
// shared memory by turns); a row's 1/d goes into two doubles a lane by Fast2Sum (a term not counted: a reciprocal
// of 0 from a seed of 0), the warp's doubles become fixed point in lane 0 without a branch (swr_exact_fixed), and a
// bin is a multiply-high (_equal: bins of one integer width) or one step from a table's first guess (_fast:
// near-equal bins). When one chunk holds every column, a row's warp reads the row's accumulators before adding its
// terms, not after.
// A launch may take any range of D's rows (a pass: D, n and the per-vertex accumulators offset to its first row),
// the passes of a block adding to one set of per-source results; the pass with `own_rows` takes the columns'
// own rows off the pairs, whichever rows it holds.
#include "row_sums.cuh"

constexpr int SWR_THREADS = 256;
constexpr int SWR_OWN = 4;                                 // neighbouring columns a thread owns
constexpr int SWR_CHUNK = SWR_THREADS * SWR_OWN;           // columns of a CUDA block
constexpr int SWR_TILE = SWR_THREADS / 32;                 // rows of a tile: one a warp in the row phase
constexpr int SWR_LANE_BINS = 256;                         // more bins than this count in global memory

template <typename T>
struct alignas(SWR_OWN * sizeof(T)) SwrQuad {
    T x[SWR_OWN];
};

// an order key of a non-negative distance: its value for int, its bits for float and double
__device__ __forceinline__ unsigned swr_key(int x) { return (unsigned)x; }
__device__ __forceinline__ unsigned swr_key(float x) { return __float_as_uint(x); }
__device__ __forceinline__ unsigned long long swr_key(double x) { return (unsigned long long)__double_as_longlong(x); }

template <typename T>
struct SwrColumn {
    FixedSum total;
    decltype(swr_key(T())) key;
    unsigned reached;
};

__device__ __forceinline__ bool swr_whole(int) { return true; }
__device__ __forceinline__ bool swr_whole(float) { return false; }
__device__ __forceinline__ bool swr_whole(double) { return false; }

// The general int kernel's lane sum of 1/d (row_sums.cuh): a lane's SWR_CHUNK / 32 = 32 terms, multiples of 2^-83
// in (0, 1], sum to a multiple of 2^-83 below 2^6, which hi + lo holds exactly: TwoSum's error is exact, and lo
// (below 2^-41) adds it without rounding; in fixed point hi and lo then sum to the terms' fixed-point sum.
__device__ __forceinline__ void swr_pair_add(SwrPair& p, double r) {
    const double s = p.hi + r, back = s - p.hi;
    p.lo += (p.hi - (s - back)) + (r - back);
    p.hi = s;
}

extern "C" __global__ void swr_recip_check(int first, int count, unsigned long long* mismatches, int* first_bad) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x) {
        const int x = first + (int)i;
        if (__double_as_longlong(swr_recip(x)) != __double_as_longlong(__drcp_rn((double)x))) {
            atomicAdd(mismatches, 1ull);
            atomicMin(first_bad, x);
        }
    }
}

__device__ __forceinline__ void swr_warp_sum(FixedSum& a) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        const unsigned long long lo = __shfl_down_sync(0xffffffffu, a.lo, offset);
        const unsigned long long hi = __shfl_down_sync(0xffffffffu, a.hi, offset);
        a.whole += __shfl_down_sync(0xffffffffu, a.whole, offset);
        fixed_add(a, lo, hi);
    }
}

// the tile of rows v0 .. v0 + SWR_TILE - 1 of this thread's columns; rows at or past `last` and columns past the
// row (a chunk past `stride`) read as inf, which no term counts
template <typename T>
__device__ __forceinline__ void swr_load(const T* D, int stride, int v0, int last, int own, T inf,
                                         SwrQuad<T> (&tile)[SWR_TILE]) {
#pragma unroll
    for (int r = 0; r < SWR_TILE; ++r) {
        if (own < stride && v0 + r < last) {
            tile[r] = *reinterpret_cast<const SwrQuad<T>*>(D + (long long)(v0 + r) * stride + own);
        } else {
#pragma unroll
            for (int j = 0; j < SWR_OWN; ++j) tile[r].x[j] = inf;
        }
    }
}

// numpy's bin of a reached distance (the last edge <= d, the last bin closed), -1 outside the edges. An int is
// binned by integer thresholds (t[b] = ceil(edges[b]) for b < bins, t[bins] = floor(edges[bins]) + 1, both
// clipped to int; d >= edges[b] exactly when d >= t[b]) from a guess by a multiply-high; a float by the edges
// themselves. The guess only starts the search: the bin is exact for any edges.
struct SwrBins {
    const double* edges;
    const int* thresholds;
    int bins;
    unsigned per_unit;  // the guess's scale: bins / (hi - lo) in 32-bit fixed point (saturated)
    double lo, hi, per_bin;
    int t0, tend;  // an int distance is in the bins when t0 <= d < tend
};

__device__ __forceinline__ int swr_bin(int x, const SwrBins& h) {
    const int* t = h.thresholds;
    if (x < t[0] || x >= t[h.bins]) return -1;
    int b = min((int)__umulhi((unsigned)x - (unsigned)t[0], h.per_unit), h.bins - 1);
    while (b > 0 && x < t[b]) --b;
    while (b < h.bins - 1 && t[b + 1] <= x) ++b;
    return b;
}

template <typename T>
__device__ __forceinline__ int swr_bin(T x, const SwrBins& h) {
    const double d = (double)x;
    if (d < h.lo || h.hi < d) return -1;
    int b = min(max((int)((d - h.lo) * h.per_bin), 0), h.bins - 1);
    while (b > 0 && d < h.edges[b]) --b;
    while (b < h.bins - 1 && h.edges[b + 1] <= d) ++b;
    return b;
}

template <typename T>
__device__ __forceinline__ void swr_column_term(T x, int scale, const SwrBins& h, unsigned* lane_bins,
                                                unsigned long long* counts, SwrColumn<T>& col) {
    fixed_add_term(col.total, x, scale);
    ++col.reached;
    col.key = max(col.key, swr_key(x));
    const int b = swr_bin(x, h);
    if (b < 0) return;
    if (h.bins <= SWR_LANE_BINS)
        atomicAdd(&lane_bins[b * 32], 1u);
    else
        atomicAdd(&counts[b], 1ull);
}

// A CUDA block's end: its columns' sums, reached counts and order keys, its pairs and its bins' counters. A
// column's own row is reached at distance 0 and was counted like any other; the pairs leave it out (numpy's
// rule), so the CUDA blocks of the first slice take one pair a column off the pairs and off the bin of 0 (the
// counters wrap, as unsigned sums do, and end right whatever the order). The columns' part (whole warps), then,
// after a barrier of the CUDA block, its bins' (swr_finish_bins).
template <typename T>
__device__ void swr_finish_columns(const SwrColumn<T> (&col)[SWR_OWN], int own, int count, int scale, int zero_bin,
                                   int bins, bool own_rows, unsigned long long* ecc_key, unsigned long long* reach_out,
                                   unsigned long long* sum_out, unsigned long long* counts) {
    long long pairs = 0;
    int columns = 0;
#pragma unroll
    for (int j = 0; j < SWR_OWN; ++j) {
        columns += own + j < count;
        pairs += col[j].reached;
        if (!col[j].reached) continue;
        swr_add_fixed(sum_out + 2 * (own + j), col[j].total, scale, true);
        atomicAdd(reach_out + own + j, (unsigned long long)col[j].reached);
        atomicMax(ecc_key + own + j, (unsigned long long)col[j].key);
    }
    if (own_rows && blockIdx.x == 0 && columns) {
        pairs -= columns;
        if (zero_bin >= 0) atomicAdd(&counts[zero_bin], (unsigned long long)(-(long long)columns));
    }
    for (int offset = 16; offset > 0; offset >>= 1) pairs += __shfl_down_sync(0xffffffffu, pairs, offset);
    if ((threadIdx.x & 31) == 0 && pairs) atomicAdd(&counts[bins], (unsigned long long)pairs);
}

__device__ __forceinline__ void swr_finish_bins(const unsigned* lane_bins, int bins, unsigned long long* counts) {
    for (int b = threadIdx.x; b < bins; b += blockDim.x) {
        unsigned long long total = 0;
        for (int l = 0; l < 32; ++l) total += lane_bins[b * 32 + l];
        if (total) atomicAdd(&counts[b], total);
    }
}

template <typename T>
__device__ void swr_reduce(const T* D, int n, int stride, int count, T inf, int scale, int inverse_scale,
                           const double* edges_in, const int* thresholds_in, int n_edges,
                           unsigned per_unit, int accumulate, int own_rows, unsigned long long* sum_in,
                           unsigned long long* reach_in, unsigned long long* harmonic_in, unsigned long long* ecc_key,
                           unsigned long long* reach_out,
                           unsigned long long* sum_out, unsigned long long* counts) {
    // shared memory: the tile (SWR_TILE rows of SWR_CHUNK), the edges, their thresholds, a counter per bin and lane
    extern __shared__ __align__(16) unsigned char swr_smem[];
    T* rows = reinterpret_cast<T*>(swr_smem);
    double* edges = reinterpret_cast<double*>(rows + SWR_TILE * SWR_CHUNK);
    int* thresholds = reinterpret_cast<int*>(edges + n_edges);
    unsigned* lane_bins = reinterpret_cast<unsigned*>(thresholds + n_edges + (n_edges & 1));
    const int bins = n_edges - 1, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int i = threadIdx.x; i < n_edges; i += SWR_THREADS) {
        edges[i] = edges_in[i];
        thresholds[i] = thresholds_in[i];
    }
    if (bins <= SWR_LANE_BINS)
        for (int i = threadIdx.x; i < bins * 32; i += SWR_THREADS) lane_bins[i] = 0;

    const int chunk = blockIdx.y * SWR_CHUNK, own = chunk + SWR_OWN * threadIdx.x;
    const int per_slice = (int)(((long long)n + gridDim.x * SWR_TILE - 1) / (gridDim.x * SWR_TILE) * SWR_TILE);
    const int first = blockIdx.x * per_slice, last = (int)min((long long)n, (long long)first + per_slice);
    const bool shared_rows = gridDim.y > 1;  // other chunks' CUDA blocks add to the same rows
    const VertexSums into = {sum_in, reach_in, harmonic_in, scale, inverse_scale};
    SwrColumn<T> col[SWR_OWN];
#pragma unroll
    for (int j = 0; j < SWR_OWN; ++j) col[j] = {{0, 0, 0}, 0, 0};
    SwrQuad<T> tile[SWR_TILE];
    swr_load(D, stride, first, last, own, inf, tile);
    __syncthreads();  // the edges and the bins
    SwrBins h = {edges, thresholds, bins, per_unit, edges[0], edges[bins], 0.0, thresholds[0], thresholds[bins]};
    h.per_bin = bins / (h.hi - h.lo);
    for (int v0 = first; v0 < last; v0 += SWR_TILE) {
#pragma unroll
        for (int r = 0; r < SWR_TILE; ++r)
#pragma unroll
            for (int j = 0; j < SWR_OWN; ++j) {
                const T x = tile[r].x[j];
                if (own + j < count && x < inf) swr_column_term(x, scale, h, lane_bins + lane, counts, col[j]);
            }
        if (accumulate) {
#pragma unroll
            for (int r = 0; r < SWR_TILE; ++r)
                *reinterpret_cast<SwrQuad<T>*>(rows + r * SWR_CHUNK + SWR_OWN * threadIdx.x) = tile[r];
            __syncthreads();
        }
        swr_load(D, stride, v0 + SWR_TILE, last, own, inf, tile);
        if (accumulate) {
            const int v = v0 + warp;
            if (v < last) {
                const T* row = rows + warp * SWR_CHUNK;
                FixedSum total = {0, 0, 0}, inverse = {0, 0, 0};
                unsigned reached = 0;
                SwrPair lane_inverse = {0.0, 0.0};
                const bool exact_pairs = swr_whole(T()) && inverse_scale >= SWR_EXACT_SCALE;
#pragma unroll 8
                for (int i = lane; i < SWR_CHUNK; i += 32) {
                    const T x = row[i];
                    if (chunk + i < count && x < inf) {
                        fixed_add_term(total, x, scale);
                        ++reached;
                        if (x > T(0)) {
                            const double r = __drcp_rn((double)x);  // = 1.0 / x
                            if (exact_pairs)
                                swr_pair_add(lane_inverse, r);
                            else
                                fixed_add_double(inverse, r, inverse_scale);
                        }
                    }
                }
                if (exact_pairs) swr_pair_to_fixed(inverse, lane_inverse, inverse_scale);
                swr_warp_sum(total);
                swr_warp_sum(inverse);
                for (int offset = 16; offset > 0; offset >>= 1) reached += __shfl_down_sync(0xffffffffu, reached, offset);
                if (lane == 0) into.add(v, VertexTerms{total, inverse, reached}, shared_rows);
            }
            __syncthreads();  // the row phase has read the tile before the next one overwrites it
        }
    }
    swr_finish_columns(col, own, count, scale, swr_bin(T(0), h), bins, own_rows, ecc_key, reach_out, sum_out,
                       counts);
    __syncthreads();
    if (bins <= SWR_LANE_BINS) swr_finish_bins(lane_bins, bins, counts);
}

// at least three CUDA blocks of 4-byte distances on a multiprocessor (a register cap of 85)
#define SWR_KERNEL(SFX, T, MIN_BLOCKS)                                                                             \
    extern "C" __global__ void __launch_bounds__(SWR_THREADS, MIN_BLOCKS) swr_reduce_##SFX(                       \
        const T* D, int n, int stride, int count, T inf, int scale, int inverse_scale,                              \
        const double* edges, const int* thresholds, int n_edges, unsigned per_unit, int accumulate, int own_rows,   \
        unsigned long long* sum_in, unsigned long long* reach_in, unsigned long long* harmonic_in,                 \
        unsigned long long* ecc_key, unsigned long long* reach_out, unsigned long long* sum_out,                   \
        unsigned long long* counts) {                                                                              \
        swr_reduce<T>(D, n, stride, count, inf, scale, inverse_scale, edges, thresholds, n_edges, per_unit,        \
                      accumulate, own_rows, sum_in, reach_in, harmonic_in, ecc_key, reach_out, sum_out, counts);  \
    }

SWR_KERNEL(i32, int, 3)
SWR_KERNEL(f32, float, 3)
SWR_KERNEL(f64, double, 1)

// the bin of an int distance in bins of one integer width w >= 2 (thresholds t0 + b * w): offset / w by a
// multiply-high (Granlund and Montgomery: m = ceil(2^(31 + l) / w), l = ceil(log2 w), exact for
// every offset below 2^31; larger offsets are outside the bins)
struct SwrEqualBins {
    unsigned magic;
    int shift;
    __device__ explicit SwrEqualBins(int width) {
        const int l = 32 - __clz(width - 1);
        magic = (unsigned)(((1ull << (31 + l)) + width - 1) / width);
        shift = l - 1;
    }
};

// one more in the shared counter at the shared-memory address `at` (an address of 32 bits: one add to find it)
__device__ __forceinline__ void swr_shared_increment(unsigned at) {
    asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(at) : "memory");
}

template <bool EQUAL>
struct SwrFast {
    const int* D;  // row 0 at this thread's (clamped) columns
    long long stride;
    int last, inf, t0, bins;
    unsigned span, per_unit;  // an int d is in the bins when d - t0 < span (unsigned); per_unit: the table's guess
    SwrEqualBins equal;       // EQUAL: the bins' width as a multiply-high
    bool counted_column[SWR_OWN], partial_chunk;
    const int2* bounds;    // not EQUAL: bounds[b] = (t[b], t[b + 1])
    unsigned* lane_bins;   // this lane's counter of bin 0; bin `bins` counts the last edge (EQUAL), `bins` + 1
                           // the terms no bin counts
    int* rows;             // two tiles of SWR_TILE rows x SWR_CHUNK columns, by turns
    VertexSums into;
    SwrColumn<int> col[SWR_OWN];
    int buffer;

    // read once: streamed past the L2 cache (evict first), which keeps the rows the sweep beside it reads again
    __device__ __forceinline__ void load_row(SwrQuad<int>& row, int v) const {
        const int4 q = __ldcs(reinterpret_cast<const int4*>(D + (long long)min(v, last - 1) * stride));
        row = {{q.x, q.y, q.z, q.w}};
    }

    __device__ __forceinline__ int bin(int x, unsigned offset) const {
        if constexpr (EQUAL) {
            return (int)(__umulhi(offset, equal.magic) >> equal.shift);  // the last edge: `bins`, added to the last bin
        } else {
            const unsigned guess = min(__umulhi(offset, per_unit), (unsigned)(bins - 1));
            const int2 around = bounds[guess];
            return (int)guess + (x >= around.y) - (x < around.x);
        }
    }

    __device__ __forceinline__ void column_terms(const SwrQuad<int>& row) {
        const unsigned lane_bins_at = (unsigned)__cvta_generic_to_shared(lane_bins);
#pragma unroll
        for (int j = 0; j < SWR_OWN; ++j) {
            const int x = row.x[j];
            const bool counted = x < inf;  // a column past the block's sources reads as inf (tile)
            const unsigned d = counted ? (unsigned)x : 0u;
            col[j].total.whole += d;
            col[j].reached += counted;
            col[j].key = max(col[j].key, d);
            const unsigned offset = (unsigned)x - (unsigned)t0;
            const int b = bin(x, offset);
            swr_shared_increment(lane_bins_at + ((counted && offset < span ? b : bins + 1) << 7));
        }
    }

    // row v's 1024 columns in shared memory, a warp's: per-vertex sums of d, of d < inf and of 1/d over d > 0
    // (SHARED: other chunks' CUDA blocks add to the same rows, atomically; else lane 0 reads v's accumulators
    // first, so that their latency hides behind the terms' arithmetic: 13 % of the kernel on 16M vertices)
    template <bool SHARED>
    __device__ __forceinline__ void add_row(const int* row, int v) const {
        VertexWords before = {};
        if (!SHARED && (threadIdx.x & 31) == 0) before = into.load(v);
        RowSums sums;  // two chains of Fast2Sum a lane, 16 terms each
#pragma unroll 2
        for (int m = 0; m < SWR_CHUNK / 128; ++m) {
            const SwrQuad<int> q = *reinterpret_cast<const SwrQuad<int>*>(row + 128 * m + SWR_OWN * (threadIdx.x & 31));
#pragma unroll
            for (int k = 0; k < SWR_OWN; ++k) sums.add(q.x[k], inf, k & 1);
        }
        sums.flush<SHARED>(v, into, before);
    }

    // the tile of rows v0 .. v0 + SWR_TILE - 1: its column terms, then (its rows in shared memory) the next tile's
    // loads in flight while a warp a row adds the row terms
    template <bool SHARED>
    __device__ __forceinline__ void tile(SwrQuad<int> (&t)[SWR_TILE], int v0, bool accumulate) {
        const int rows_left = last - v0, next = v0 + SWR_TILE, warp = threadIdx.x >> 5;
        if (rows_left < SWR_TILE)  // the slice's last tile: rows past it read as inf
#pragma unroll
            for (int r = 0; r < SWR_TILE; ++r)
#pragma unroll
                for (int j = 0; j < SWR_OWN; ++j) t[r].x[j] = r < rows_left ? t[r].x[j] : inf;
        if (partial_chunk)  // columns past the block's sources read as inf
#pragma unroll
            for (int r = 0; r < SWR_TILE; ++r)
#pragma unroll
                for (int j = 0; j < SWR_OWN; ++j) t[r].x[j] = counted_column[j] ? t[r].x[j] : inf;
#pragma unroll
        for (int r = 0; r < SWR_TILE; ++r) column_terms(t[r]);
        int* tile_rows = rows + buffer * SWR_TILE * SWR_CHUNK;
        if (accumulate) {
#pragma unroll
            for (int r = 0; r < SWR_TILE; ++r)
                *reinterpret_cast<SwrQuad<int>*>(tile_rows + r * SWR_CHUNK + SWR_OWN * threadIdx.x) = t[r];
        }
        if (next < last)
#pragma unroll
            for (int r = 0; r < SWR_TILE; ++r) load_row(t[r], next + r);
        if (accumulate) {
            __syncthreads();  // the tile is in shared memory; the other one, by turns, was read before this
            if (v0 + warp < last) add_row<SHARED>(tile_rows + warp * SWR_CHUNK, v0 + warp);
            buffer ^= 1;
        }
    }
};

template <bool EQUAL>
__device__ void swr_reduce_fast(const int* D, int n, int stride, int count, int inf, int scale, int inverse_scale,
                                const double* edges_in, const int* thresholds_in, int n_edges, unsigned per_unit,
                                int accumulate, int own_rows, unsigned long long* sum_in, unsigned long long* reach_in,
                                unsigned long long* harmonic_in, unsigned long long* ecc_key,
                                unsigned long long* reach_out, unsigned long long* sum_out, unsigned long long* counts) {
    // shared memory: two tiles of rows, each bin's two thresholds (the table's guess), a counter per bin and lane
    // and two rows more (SwrFast::lane_bins)
    extern __shared__ __align__(16) unsigned char swr_smem[];
    int* rows = reinterpret_cast<int*>(swr_smem);
    int2* bounds = reinterpret_cast<int2*>(rows + 2 * SWR_TILE * SWR_CHUNK);
    const int bins = n_edges - 1;
    unsigned* lane_bins = reinterpret_cast<unsigned*>(bounds + bins);
    for (int i = threadIdx.x; i < bins; i += SWR_THREADS) bounds[i] = make_int2(thresholds_in[i], thresholds_in[i + 1]);
    for (int i = threadIdx.x; i < (bins + 2) * 32; i += SWR_THREADS) lane_bins[i] = 0;

    const int chunk = blockIdx.y * SWR_CHUNK, own = chunk + SWR_OWN * threadIdx.x;
    const int per_slice = (int)(((long long)n + gridDim.x * SWR_TILE - 1) / (gridDim.x * SWR_TILE) * SWR_TILE);
    const int first = blockIdx.x * per_slice, last = (int)min((long long)n, (long long)first + per_slice);
    SwrFast<EQUAL> s = {D + min(own, stride - SWR_OWN),  // a thread past the row reads its last columns, uncounted
                        stride, last, inf, thresholds_in[0], bins,
                        (unsigned)thresholds_in[bins] - (unsigned)thresholds_in[0], per_unit,
                        SwrEqualBins(max(thresholds_in[1] - thresholds_in[0] - (bins == 1), 2)),  // the end: 1 past
                        {own < count, own + 1 < count, own + 2 < count, own + 3 < count},
                        chunk + SWR_CHUNK > count,
                        bounds, lane_bins + (threadIdx.x & 31), rows,
                        {sum_in, reach_in, harmonic_in, scale, inverse_scale}, {}, 0};
#pragma unroll
    for (int j = 0; j < SWR_OWN; ++j) s.col[j] = {{0, 0, 0}, 0, 0};
    __syncthreads();  // the bounds and the counters
    SwrQuad<int> t[SWR_TILE];
    if (first < last)
#pragma unroll
        for (int r = 0; r < SWR_TILE; ++r) s.load_row(t[r], first + r);
    if (gridDim.y > 1)  // other chunks' CUDA blocks add to the same rows
        for (int v0 = first; v0 < last; v0 += SWR_TILE) s.template tile<true>(t, v0, accumulate);
    else
        for (int v0 = first; v0 < last; v0 += SWR_TILE) s.template tile<false>(t, v0, accumulate);
    const SwrBins h = {edges_in, thresholds_in, bins, per_unit, 0.0, 0.0, 0.0, 0, 0};
    swr_finish_columns(s.col, own, count, scale, swr_bin(0, h), bins, own_rows, ecc_key, reach_out, sum_out, counts);
    __syncthreads();  // every counter counted
    if (EQUAL && threadIdx.x < 32)  // the last edge's counts into the last bin (numpy's closed last bin)
        lane_bins[(bins - 1) * 32 + threadIdx.x] += lane_bins[bins * 32 + threadIdx.x];
    __syncthreads();
    swr_finish_bins(lane_bins, bins, counts);
}

// _fast: bins one step from a table's first guess; _equal: bins of one integer width (2 or more). Two CUDA blocks a
// multiprocessor (126 registers): at three (80 registers, 80 bytes spilled) the reductions of a block of the 16M
// stand-in took 1.24x as long (results/paper/scale/continent_reduction_occupancy)
#define SWR_FAST_KERNEL(SFX, EQUAL)                                                                                \
    extern "C" __global__ void __launch_bounds__(SWR_THREADS, 2) swr_reduce_i32_##SFX(                             \
        const int* D, int n, int stride, int count, int inf, int scale, int inverse_scale, const double* edges,    \
        const int* thresholds, int n_edges, unsigned per_unit, int accumulate, int own_rows,                       \
        unsigned long long* sum_in, unsigned long long* reach_in, unsigned long long* harmonic_in,                 \
        unsigned long long* ecc_key, unsigned long long* reach_out, unsigned long long* sum_out,                   \
        unsigned long long* counts) {                                                                              \
        swr_reduce_fast<EQUAL>(D, n, stride, count, inf, scale, inverse_scale, edges, thresholds, n_edges,         \
                               per_unit, accumulate, own_rows, sum_in, reach_in, harmonic_in, ecc_key, reach_out,  \
                               sum_out, counts);                                                                   \
    }

SWR_FAST_KERNEL(fast, false)
SWR_FAST_KERNEL(equal, true)
