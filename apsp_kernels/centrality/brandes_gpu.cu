// Brandes' betweenness on the GPU over a block of sources whose distance rows are known (int32, INF =
// 2^30 - 1; positive whole weights): Brandes, "A faster algorithm for betweenness centrality" (2001),
// the path counts (sigma) forward and the dependencies (delta) backward over each source's vertices in
// increasing distance (a topological order of its shortest-path DAG: every arc weighs at least 1).
// Row r of every (rows x n) array belongs to sources[r]; order[r] lists that row's vertices by
// distance, ties by vertex id (a stable sort), the unreached ones last.
//   bc_forward / bc_backward: one warp per source, 32 consecutive vertices of its order at a time
//     (a window), one per lane. A lane pulls over its vertex's arcs; an arc from (to) a vertex inside
//     the window is waited for: the window's lanes are resolved in order (backward: reversed) by
//     shuffles. Windows are fixed by the order alone, so the sums' order depends on the graph and the
//     source only (not on the block, the GPU or the run).
//   bc_vertex_sum / bc_arc_sum: one thread per vertex (arc) adds its terms of the block's rows in row
//     order to its running total: the totals of a run equal one long sum in source order, whatever the
//     block size.
// Terms are NetworkX 3.6's (betweenness.py): sigma[source] = 2 (its count is doubled there; only
// ratios are used), delta[v] += sigma[v] * ((1 + delta[w]) / sigma[w]) for each arc v -> w of the DAG.
#include "common.cuh"

#define BC_FULL 0xffffffffu

__device__ __forceinline__ int bc_warp_max(int x) {
    for (int off = 16; off > 0; off >>= 1) x = max(x, __shfl_xor_sync(BC_FULL, x, off));
    return x;
}

__device__ __forceinline__ unsigned bc_warp_or(unsigned x) {
    for (int off = 16; off > 0; off >>= 1) x |= __shfl_xor_sync(BC_FULL, x, off);
    return x;
}

// Lanes whose vertex is `u` (a candidate inside the window) as a bit mask; 0 when none is.
__device__ __forceinline__ unsigned bc_lanes_of(int v, int u, bool candidate) {
    unsigned hit = 0;
    for (int k = 0; k < 32; ++k) {
        const int vk = __shfl_sync(BC_FULL, v, k);
        if (candidate && vk == u) hit |= 1u << k;
    }
    return hit;
}

// The largest finite entry of dist[0, count) into *out (atomicMax; *out starts at 0).
extern "C" __global__ void bc_finite_max(const int* dist, long long count, int* out) {
    int best = 0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x) {
        const int x = dist[i];
        if (x < APSP_INF_I32 && x > best) best = x;
    }
    best = bc_warp_max(best);
    if ((threadIdx.x & 31) == 0) atomicMax(out, best);
}

// Sort keys of rows [0, rows): (row << bits) | distance, unreached as (1 << bits) - 1.
extern "C" __global__ void bc_keys(const int* dist, int rows, int n, int bits, unsigned* keys) {
    const long long count = (long long)rows * n;
    const unsigned cap = (1u << bits) - 1u;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x) {
        const int x = dist[i];
        const unsigned row = (unsigned)(i / n);
        keys[i] = (row << bits) | (x < APSP_INF_I32 ? (unsigned)x : cap);
    }
}

// sigma of every reached vertex of each row; reached[r] = how many, top[r] = the largest count.
extern "C" __global__ void bc_forward(const int* in_ptr, const int* in_src, const int* in_w, const int* dist,
                                      const int* order, const int* sources, int rows, int n, double* sigma,
                                      long long* reached, double* top) {
    const int lane = threadIdx.x & 31;
    const long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (r >= rows) return;  // the whole warp: blockDim is a multiple of 32
    const int* d = dist + r * n;
    const int* ord = order + r * n;
    double* sg = sigma + r * n;
    const int s = sources[r];
    double best = 0.0;
    long long count = 0;
    for (int i0 = 0; i0 < n; i0 += 32) {
        const int i = i0 + lane;
        const int v = i < n ? ord[i] : -1;
        const int dv = v >= 0 ? d[v] : APSP_INF_I32;
        const bool live = dv < APSP_INF_I32;
        const unsigned live_lanes = __ballot_sync(BC_FULL, live);
        if (!live_lanes) break;  // the unreached come last
        count += __popc(live_lanes);
        const int dfirst = __shfl_sync(BC_FULL, dv, 0);  // lane 0 is live when any is (sorted)
        double acc = 0.0;
        int a = 0, deg = 0;
        if (live) {
            if (v == s)
                acc = 2.0;
            else
                a = in_ptr[v], deg = in_ptr[v + 1] - a;
        }
        unsigned deps = 0;
        const int rounds = bc_warp_max(deg);
        for (int t = 0; t < rounds; ++t) {
            int u = -1;
            bool tight = false;
            if (t < deg) {
                u = in_src[a + t];
                const int du = d[u];
                tight = du < APSP_INF_I32 && du + in_w[a + t] == dv;
            }
            // below the window's first distance u is done; at or above it, u may be a lane of this window
            const bool candidate = tight && d[u] >= dfirst;
            unsigned hit = 0;
            if (__any_sync(BC_FULL, candidate)) hit = bc_lanes_of(v, u, candidate);
            if (tight && !hit)
                acc += sg[u];
            deps |= hit;
        }
        for (unsigned wait = bc_warp_or(deps); wait; wait &= wait - 1) {  // ascending: earlier lanes first
            const int k = __ffs(wait) - 1;
            const double x = __shfl_sync(BC_FULL, acc, k);
            if (deps >> k & 1u) acc += x;
        }
        if (live) {
            sg[v] = acc;
            best = fmax(best, acc);
        }
        __syncwarp();  // this window's sigma before the next window reads it
    }
    for (int off = 16; off > 0; off >>= 1) best = fmax(best, __shfl_xor_sync(BC_FULL, best, off));
    if (lane == 0) {
        reached[r] = count;
        top[r] = best;
    }
}

// delta of every reached vertex of each row, windows from the farthest back.
extern "C" __global__ void bc_backward(const int* out_ptr, const int* out_dst, const int* out_w, const int* dist,
                                       const int* order, const long long* reached, int rows, int n,
                                       const double* sigma, double* delta) {
    const int lane = threadIdx.x & 31;
    const long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (r >= rows) return;
    const int* d = dist + r * n;
    const int* ord = order + r * n;
    const double* sg = sigma + r * n;
    double* dl = delta + r * n;
    const long long count = reached[r];
    for (long long i0 = (count - 1) / 32 * 32; i0 >= 0; i0 -= 32) {
        const long long i = i0 + lane;
        const bool live = i < count;
        const int v = live ? ord[i] : -1;
        const int dv = live ? d[v] : 0;
        const int last = (int)min((long long)31, count - 1 - i0);
        const int dlast = __shfl_sync(BC_FULL, dv, last);
        const double sv = live ? sg[v] : 1.0;
        int a = 0, deg = 0;
        if (live) a = out_ptr[v], deg = out_ptr[v + 1] - a;
        double acc = 0.0;
        unsigned deps = 0;
        const int rounds = bc_warp_max(deg);
        for (int t = 0; t < rounds; ++t) {
            int w = -1;
            bool tight = false;
            if (t < deg) {
                w = out_dst[a + t];
                const int dw = d[w];
                tight = dw < APSP_INF_I32 && dv + out_w[a + t] == dw;
            }
            // beyond the window's last distance w is done; at or below it, w may be a lane of this window
            const bool candidate = tight && d[w] <= dlast;
            unsigned hit = 0;
            if (__any_sync(BC_FULL, candidate)) hit = bc_lanes_of(v, w, candidate);
            if (tight && !hit) acc += sv * ((1.0 + dl[w]) / sg[w]);
            deps |= hit;
        }
        for (unsigned wait = bc_warp_or(deps); wait; wait &= ~(1u << (31 - __clz(wait)))) {  // descending
            const int k = 31 - __clz(wait);
            const double xs = __shfl_sync(BC_FULL, sv, k);
            const double xd = __shfl_sync(BC_FULL, acc, k);
            if (deps >> k & 1u) acc += sv * ((1.0 + xd) / xs);
        }
        if (live) dl[v] = acc;
        __syncwarp();
    }
}

// total[v] += the block's terms for v, row by row: delta (+ 1 with endpoints) where v is reached and not
// the row's source; the source's own term with endpoints, reached - 1.
extern "C" __global__ void bc_vertex_sum(const int* dist, const double* delta, const int* sources,
                                         const long long* reached, int rows, int n, int endpoints, double* total) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    double t = total[v];
    for (int r = 0; r < rows; ++r) {
        const long long at = (long long)r * n + v;
        if (v == sources[r]) {
            if (endpoints) t += (double)(reached[r] - 1);
        } else if (dist[at] < APSP_INF_I32) {
            t += endpoints ? delta[at] + 1.0 : delta[at];
        }
    }
    total[v] = t;
}

// total[a] += the block's terms for arc a = tail -> head, row by row, where the arc is on a shortest path.
extern "C" __global__ void bc_arc_sum(const int* tails, const int* heads, const int* weights, const int* dist,
                                      const double* sigma, const double* delta, int rows, int n, long long m,
                                      double* total) {
    const long long a = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= m) return;
    const int u = tails[a], w = heads[a], wt = weights[a];
    double t = total[a];
    for (int r = 0; r < rows; ++r) {
        const long long row = (long long)r * n;
        const int du = dist[row + u];
        if (du < APSP_INF_I32 && du + wt == dist[row + w])
            t += sigma[row + u] * ((1.0 + delta[row + w]) / sigma[row + w]);
    }
    total[a] = t;
}
