// Dijkstra for many sources at once, one thread per source (bodra, Sec. 2.2.1, Table 2): the
// graph is an adjacency matrix, the next vertex is found by a linear scan of the distances (no
// heap), and each settled vertex u relaxes the whole row u of the matrix.
//
// Working arrays of a group of G sources are vertex-major in chunks of 4 vertices: entry (v, s)
// lives at ((v / 4) * G + s) * 4 + v % 4. A thread reads the 4 distances of a chunk with one
// int4 load and a warp reads 512 contiguous bytes, so the scan is coalesced (the author's
// source-major layout makes every thread of a warp read a different row).
// A settled vertex keeps its distance with bit 30 set (SETTLED): every such value is above
// INF = 2^30 - 1, so the scan (d < best, best starting at INF) never picks it again.
#include "common.cuh"

#define SETTLED 0x40000000
#define PADDING 0x7FFFFFFF  // vertices n..4*n4-1 of the last chunk: never picked, never relaxed

__device__ __forceinline__ long long chunk_index(int v, int s, int group) {
    return ((long long)(v >> 2) * group + s) * 4 + (v & 3);
}

__device__ __forceinline__ void pick(int d, int v, int& best, int& u) {
    if (d < best) {
        best = d;
        u = v;
    }
}

__device__ __forceinline__ void relax(int v, int w, int du, int u, int s, int group, int* dist,
                                      int* pred) {
    if (w >= APSP_INF_I32) return;
    const long long idx = chunk_index(v, s, group);
    const int dv = dist[idx];
    if (dv >= SETTLED) return;
    const int cand = du + w;
    if (cand < dv) {
        dist[idx] = cand;
        pred[idx] = u;
    }
}

// cost: n rows of ldc ints (ldc % 4 == 0, ldc >= 4 * n4, INF where there is no arc).
// out_dist / out_pred: row s_out of ldo ints for the group's source s (-1 pred for none).
// max_extractions < n stops early (prefix timing only; the rows are then not final).
extern "C" __global__ void __launch_bounds__(256)
dijkstra_naive_i32(const int* __restrict__ cost, long long ldc, int n, int n4,
                   const int* __restrict__ sources, int group, int* work_dist, int* work_pred,
                   int* out_dist, int* out_pred, long long ldo, int max_extractions) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= group) return;
    const int src = sources[s];
    int4* wd = reinterpret_cast<int4*>(work_dist);
    int4* wp = reinterpret_cast<int4*>(work_pred);
    for (int c = 0; c < n4; ++c) {
        const int v = 4 * c;
        wd[(long long)c * group + s] = make_int4(v < n ? APSP_INF_I32 : PADDING,
                                                 v + 1 < n ? APSP_INF_I32 : PADDING,
                                                 v + 2 < n ? APSP_INF_I32 : PADDING,
                                                 v + 3 < n ? APSP_INF_I32 : PADDING);
        wp[(long long)c * group + s] = make_int4(-1, -1, -1, -1);
    }
    work_dist[chunk_index(src, s, group)] = 0;

    for (int it = 0; it < max_extractions; ++it) {
        int best = APSP_INF_I32, u = -1;
#pragma unroll 8
        for (int c = 0; c < n4; ++c) {
            const int4 x = wd[(long long)c * group + s];
            pick(x.x, 4 * c, best, u);
            pick(x.y, 4 * c + 1, best, u);
            pick(x.z, 4 * c + 2, best, u);
            pick(x.w, 4 * c + 3, best, u);
        }
        if (u < 0) break;  // every reachable vertex is settled
        work_dist[chunk_index(u, s, group)] = best | SETTLED;
        const int4* row = reinterpret_cast<const int4*>(cost + (long long)u * ldc);
#pragma unroll 4
        for (int c = 0; c < n4; ++c) {
            const int4 w = row[c];
            relax(4 * c, w.x, best, u, s, group, work_dist, work_pred);
            relax(4 * c + 1, w.y, best, u, s, group, work_dist, work_pred);
            relax(4 * c + 2, w.z, best, u, s, group, work_dist, work_pred);
            relax(4 * c + 3, w.w, best, u, s, group, work_dist, work_pred);
        }
    }

    int* od = out_dist + (long long)s * ldo;
    int* op = out_pred + (long long)s * ldo;
    for (int v = 0; v < n; ++v) {
        const long long idx = chunk_index(v, s, group);
        const int d = work_dist[idx];
        od[v] = d >= SETTLED ? d - SETTLED : d;
        op[v] = v == src ? -1 : work_pred[idx];
    }
}
