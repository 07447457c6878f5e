// Batched PHAST (Delling, Goldberg, Nowatzyk, Werneck, "PHAST: Hardware-accelerated shortest path
// trees", IPDPS 2011 / JPDC 2013, Sec. 4-5: many trees per sweep, the GPU variant): K trees per
// sweep over a contraction hierarchy whose vertices are numbered by level.
// D is vertex-major, n rows of C columns (C = groups x K): a warp reads or writes a vertex's K
// distances of one group as one coalesced row slice (each lane N = K / 32 consecutive columns).
//   phb_upper: one block per group of K sources. Upward search: a vertex takes part when its
//     stamp says a source of the group reaches it upward (sources stamped first, every stamped
//     vertex stamps its upward out-neighbours), levels ascending; a stamped vertex pulls over
//     its in-arcs from stamped lower vertices. The first to stamp a vertex puts it in its level's
//     bucket (the group's `queue`, a level's slots where its vertices are numbered), so that a
//     level's stamped vertices are found without reading the level's stamps. Then the downward
//     sweep over the top levels (few vertices each, many levels), a barrier per level. Wide
//     vertices split over warps in both. Latency bound (a few CUDA blocks on the whole GPU): its
//     pulls keep several arcs' rows in flight.
//   phb_down: one launch per remaining (large) level, levels descending: one warp per
//     (vertex, group) pulls over the vertex's in-arcs from higher levels.
//   phb_rows: out[r][old] = D[rank[old]][r], the (sources x n) rows in the graph's numbering,
//     a 32 x 32 tile through shared memory so that both sides are coalesced.
// Unstamped vertices keep whatever an earlier sweep left in D: the downward sweeps start them at
// infinity, stamped ones at their upward distance.
#include "common.cuh"

// phb_pull in the upward searches and top levels (latency bound: one CUDA block a group of K sources) has up to
// this many bytes of arcs' rows in flight a lane (4 rows at K = 128 ints) before it takes their minimum; the
// downward launches (many warps a multiprocessor) one row at a time: more measured slower there (16M stand-in, H200)
constexpr int PHB_UPPER_AHEAD_BYTES = 64;

// rows of N values of T that make PHB_UPPER_AHEAD_BYTES, from 1 to 4
template <typename T, int N>
__host__ __device__ constexpr int phb_upper_ahead() {
    constexpr int rows = PHB_UPPER_AHEAD_BYTES / (int)(sizeof(T) * N);
    return rows < 1 ? 1 : rows > 4 ? 4 : rows;
}

template <typename T, int N>
struct alignas(sizeof(T) * N) phb_row {
    T v[N];
};

template <typename T, int N>
__device__ __forceinline__ phb_row<T, N> phb_load(const T* D, long long row, int C, int col) {
    return *reinterpret_cast<const phb_row<T, N>*>(D + row * C + col);
}

template <typename T, int N>
__device__ __forceinline__ void phb_store(T* D, long long row, int C, int col, const phb_row<T, N>& r) {
    *reinterpret_cast<phb_row<T, N>*>(D + row * C + col) = r;
}

template <typename T, int N>
__device__ __forceinline__ void phb_fill(phb_row<T, N>& r, T x) {
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = x;
}

// best[i] = min(best[i], D[u][col + i] + w) over the arcs [a, b) this warp reads, 32 at a time (one
// per lane, coalesced), then broadcast; `stride` windows apart (warps that share a vertex).
// With `stamp`, arcs from vertices whose stamp differs from `pass` are skipped.
template <typename T, int N, int AHEAD>
__device__ __forceinline__ void phb_pull(const int* __restrict__ srcs, const T* __restrict__ w, const T* D, int C,
                                         int col, int a, int b, int stride, const int* stamp, int pass,
                                         phb_row<T, N>& best) {
    const int lane = threadIdx.x & 31;
    for (int base = a; base < b; base += stride) {
        const int e = base + lane;
        int u = 0;
        T wt = T(0);
        bool take = e < b;
        if (take) {
            u = srcs[e];
            wt = w[e];
            if (stamp != nullptr) take = stamp[u] == pass;
        }
        unsigned todo = __ballot_sync(0xffffffffu, take);
        while (todo) {  // AHEAD arcs' rows in flight before the first is used
            phb_row<T, N> du[AHEAD];
            T wj[AHEAD];
            bool valid[AHEAD];
#pragma unroll
            for (int k = 0; k < AHEAD; ++k) {
                valid[k] = todo != 0u;
                const int j = valid[k] ? __ffs(todo) - 1 : 0;
                todo &= todo - 1;
                const int uj = __shfl_sync(0xffffffffu, u, j);
                wj[k] = __shfl_sync(0xffffffffu, wt, j);
                if (valid[k]) du[k] = phb_load<T, N>(D, uj, C, col);
            }
#pragma unroll
            for (int k = 0; k < AHEAD; ++k)
                if (valid[k])
#pragma unroll
                    for (int i = 0; i < N; ++i) best.v[i] = add_min<T>(du[k].v[i], wj[k], best.v[i]);
        }
    }
}

// Warps a vertex when a block's warps share `count` vertices: a power of two up to 32, all warps busy.
__device__ __forceinline__ int phb_warps_per_vertex(int count, int warps) {
    int per = 1;
    while (per < 32 && count * per * 2 <= warps) per <<= 1;
    return per;
}

// The `per` warps of one vertex (warp % per their part) combine their minima through shared memory into the
// first's `best`. Every warp of the block calls it (two barriers).
template <typename T, int N>
__device__ __forceinline__ void phb_combine(int per, bool mine, phb_row<T, N>& best, phb_row<T, N>* part) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    part[warp * 32 + lane] = best;
    __syncthreads();
    if (mine && warp % per == 0) {
        for (int k = 1; k < per; ++k) {
            const phb_row<T, N> o = part[(warp + k) * 32 + lane];
#pragma unroll
            for (int i = 0; i < N; ++i) best.v[i] = o.v[i] < best.v[i] ? o.v[i] : best.v[i];
        }
    }
    __syncthreads();
}

// One level of the upward searches: its `count` stamped vertices `list[0, count)`. A vertex starts at 0 in its
// sources' columns, pulls over its in-arcs from stamped lower vertices, and stamps its upward out-neighbours; one
// not stamped before goes to its level's bucket (`next[l]`: the level's next free slot of `queue`).
template <typename T, int N>
__device__ void phb_upward_level(const int* list, int count, const int* up_ptr, const int* up_src, const T* up_w,
                                 const int* out_ptr, const int* out_dst, const int* level_of, T* D, int C, int col,
                                 int* stamp, int pass, const int* src_rank, int* queue, int* next,
                                 phb_row<T, N>* part) {
    const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5, lane = threadIdx.x & 31;
    const int per = phb_warps_per_vertex(count, warps), groups = warps / per, q = warp % per;
    for (int base = 0; base < count; base += groups) {  // every warp runs each round: the barriers need them
        const int i = base + warp / per;
        const bool mine = i < count && warp / per < groups;
        const int v = mine ? list[i] : 0;
        phb_row<T, N> best;
        phb_fill<T, N>(best, dist_inf<T>());
        if (mine) {
            if (q == 0) {
#pragma unroll
                for (int j = 0; j < N; ++j)
                    if (src_rank[lane * N + j] == v) best.v[j] = T(0);
            }
            phb_pull<T, N, phb_upper_ahead<T, N>()>(up_src, up_w, D, C, col, up_ptr[v] + 32 * q, up_ptr[v + 1],
                                                    32 * per, stamp, pass, best);
        }
        if (per > 1) phb_combine<T, N>(per, mine, best, part);
        if (mine && q == 0) {
            phb_store<T, N>(D, v, C, col, best);
            for (int e = out_ptr[v] + lane, e_hi = out_ptr[v + 1]; e < e_hi; e += 32) {
                const int t = out_dst[e], l = level_of[t];
                if (atomicExch(stamp + t, pass) != pass) queue[atomicAdd(next + l, 1)] = t;
            }
        }
    }
}

// One top level of the downward sweep, every vertex of [lo, hi): from its upward distance when stamped, pulls
// over its in-arcs from higher levels.
template <typename T, int N>
__device__ void phb_top_level(const int* dn_ptr, const int* dn_src, const T* dn_w, T* D, int C, int col, int lo,
                              int hi, const int* stamp, int pass, phb_row<T, N>* part) {
    const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int per = phb_warps_per_vertex(hi - lo, warps), groups = warps / per, q = warp % per;
    for (int base = lo; base < hi; base += groups) {  // every warp runs each round: the barriers need them
        const int v = base + warp / per;
        const bool mine = v < hi && warp / per < groups;
        phb_row<T, N> best;
        phb_fill<T, N>(best, dist_inf<T>());
        if (mine) {
            if (q == 0 && stamp[v] == pass) best = phb_load<T, N>(D, v, C, col);
            phb_pull<T, N, phb_upper_ahead<T, N>()>(dn_src, dn_w, D, C, col, dn_ptr[v] + 32 * q, dn_ptr[v + 1],
                                                    32 * per, nullptr, pass, best);
        }
        if (per > 1) phb_combine<T, N>(per, mine, best, part);
        if (mine && q == 0) phb_store<T, N>(D, v, C, col, best);
    }
}

// Dynamic shared memory: the warps' partial rows (blockDim.x of them), then a level's next free bucket slot.
template <typename T, int N>
__device__ void phb_upper(const int* level_ptr, int levels, int first_top, const int* level_of, const int* up_ptr,
                          const int* up_src, const T* up_w, const int* out_ptr, const int* out_dst,
                          const int* dn_ptr, const int* dn_src, const T* dn_w, const int* sources, T* D,
                          int* stamps, int* queues, int C, int n, int pass) {
    constexpr int K = 32 * N;
    extern __shared__ __align__(64) unsigned char phb_smem[];
    phb_row<T, N>* part = reinterpret_cast<phb_row<T, N>*>(phb_smem);
    int* next = reinterpret_cast<int*>(part + blockDim.x);
    __shared__ int src_rank[K];
    const int group = blockIdx.x, col = group * K + (threadIdx.x & 31) * N;
    int* stamp = stamps + (long long)group * n;
    int* queue = queues + (long long)group * n;
    for (int l = threadIdx.x; l < levels; l += blockDim.x) next[l] = level_ptr[l];
    __syncthreads();
    for (int i = threadIdx.x; i < K; i += blockDim.x) {
        const int r = sources[group * K + i];
        src_rank[i] = r;
        if (r >= 0 && atomicExch(stamp + r, pass) != pass) queue[atomicAdd(next + level_of[r], 1)] = r;
    }
    __syncthreads();
    for (int l = 0; l < levels; ++l) {
        const int lo = level_ptr[l], count = next[l] - lo;  // final: only lower levels put vertices in it
        if (count == 0) continue;
        phb_upward_level<T, N>(queue + lo, count, up_ptr, up_src, up_w, out_ptr, out_dst, level_of, D, C, col, stamp,
                               pass, src_rank, queue, next, part);
        __syncthreads();
    }
    for (int l = levels - 1; l >= first_top; --l) {
        phb_top_level<T, N>(dn_ptr, dn_src, dn_w, D, C, col, level_ptr[l], level_ptr[l + 1], stamp, pass, part);
        __syncthreads();
    }
}

// Levels above this one are done: v's new distances = min(its upward distance when stamped, pulls).
template <typename T, int N>
__device__ void phb_down(const int* dn_ptr, const int* dn_src, const T* dn_w, T* D, const int* stamps, int C, int n,
                         int groups, int lo, int hi, int pass) {
    constexpr int K = 32 * N;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long total = (long long)(hi - lo) * groups;
    if (warp >= total) return;
    const int v = lo + (int)(warp / groups), group = (int)(warp % groups);
    const int col = group * K + (threadIdx.x & 31) * N;
    phb_row<T, N> best;
    if (stamps[(long long)group * n + v] == pass)
        best = phb_load<T, N>(D, v, C, col);
    else
        phb_fill<T, N>(best, dist_inf<T>());
    phb_pull<T, N, 1>(dn_src, dn_w, D, C, col, dn_ptr[v], dn_ptr[v + 1], 32, nullptr, pass, best);
    phb_store<T, N>(D, v, C, col, best);
}

template <typename T>
__device__ void phb_rows(const T* D, const int* rank, T* out, int C, int n, int k) {
    __shared__ T tile[32][33];
    const int old0 = blockIdx.x * 32, r0 = blockIdx.y * 32, tx = threadIdx.x, ty = threadIdx.y;
    for (int i = ty; i < 32; i += blockDim.y) {
        const int old = old0 + i, r = r0 + tx;
        if (old < n && r < C) tile[i][tx] = D[(long long)rank[old] * C + r];
    }
    __syncthreads();
    for (int i = ty; i < 32; i += blockDim.y) {
        const int r = r0 + i, old = old0 + tx;
        if (r < k && old < n) out[(long long)r * n + old] = tile[tx][i];
    }
}

#define PHB_K(SFX, T, K, N)                                                                                     \
    extern "C" __global__ void __launch_bounds__(1024, 1) phb_upper_##SFX##_k##K(                                  \
        const int* level_ptr, int levels, int first_top, const int* level_of, const int* up_ptr,             \
        const int* up_src, const T* up_w, const int* out_ptr, const int* out_dst, const int* dn_ptr,          \
        const int* dn_src, const T* dn_w, const int* sources, T* D, int* stamps, int* queues, int C, int n,   \
        int pass) {                                                                                            \
        phb_upper<T, N>(level_ptr, levels, first_top, level_of, up_ptr, up_src, up_w, out_ptr, out_dst, dn_ptr, \
                        dn_src, dn_w, sources, D, stamps, queues, C, n, pass);                                 \
    }                                                                                                          \
    extern "C" __global__ void phb_down_##SFX##_k##K(const int* dn_ptr, const int* dn_src, const T* dn_w, T* D,  \
                                                     const int* stamps, int C, int n, int groups, int lo, int hi, \
                                                     int pass) {                                              \
        phb_down<T, N>(dn_ptr, dn_src, dn_w, D, stamps, C, n, groups, lo, hi, pass);                          \
    }

// every kernel of one weight type; a new type is one line below (e.g. PHB_KERNELS(f64, double))
#define PHB_KERNELS(SFX, T)                                                                                     \
    PHB_K(SFX, T, 32, 1)                                                                                       \
    PHB_K(SFX, T, 64, 2)                                                                                       \
    PHB_K(SFX, T, 128, 4)                                                                                      \
    PHB_K(SFX, T, 256, 8)                                                                                      \
    extern "C" __global__ void phb_rows_##SFX(const T* D, const int* rank, T* out, int C, int n, int k) {       \
        phb_rows<T>(D, rank, out, C, n, k);                                                                    \
    }

PHB_KERNELS(i32, int)
PHB_KERNELS(f32, float)
PHB_KERNELS(f64, double)
