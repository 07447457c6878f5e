// Blocked Floyd-Warshall in three phases per round (bodra, Sec. 2.3.4 and 2.3.5, Table 3),
// tile 32. The matrix is padded to a multiple of 32 (isolated vertices: INF off the diagonal),
// so no kernel tests bounds. Round p: phase 1 closes the pivot tile (p, p); phase 2 updates the
// tiles of pivot row p and pivot column p through the pivot tile; phase 3 updates every other
// tile (i, j) from tiles (i, p) and (p, j). Launch grids skip the pivot row/column: block index
// b maps to tile b + (b >= p).
// pred (may be null): pred[i][j] = pred[k][j] when d[i][j] improves through k.
// Within a step k of phases 1 and 2 the row k and column k of the tile do not change
// (d[k][k] = 0), and a barrier separates the steps. Distances int32 (INF = 2^30 - 1), float32 or
// float64 (+inf): kernel suffixes _i32, _f32, _f64.
#include "common.cuh"

template <typename T> struct tile_vec4;
template <> struct tile_vec4<int> { typedef int4 type; };
template <> struct tile_vec4<float> { typedef float4 type; };
template <> struct tile_vec4<double> { typedef apsp_double4 type; };

#define TILE 32

__device__ __forceinline__ int skip_pivot(int b, int p) { return b + (b >= p); }

// ------------------------------------------------------------------ tiled, global memory
// Block 32 x 32, one entry per thread, operands read from global memory.

// The 32 steps of round p on entry (i, j), operands from global memory. Row and column k
// do not change during step k (d[k][k] = 0), so only the barrier between steps is needed.
template <typename T>
__device__ __forceinline__ void relax_round_global(T* d, int* pred, long long ld, int p,
                                                   long long i, long long j) {
    for (int kk = 0; kk < TILE; ++kk) {
        const long long k = p * TILE + kk;
        const T cand = d[i * ld + k] + d[k * ld + j];
        if (cand < d[i * ld + j]) {
            d[i * ld + j] = cand;
            if (pred) pred[i * ld + j] = pred[k * ld + j];
        }
        __syncthreads();
    }
}

template <typename T>
__device__ __forceinline__ void fw_tiled_phase1(T* d, int* pred, long long ld, int p) {
    const long long i = p * TILE + threadIdx.y, j = p * TILE + threadIdx.x;
    relax_round_global(d, pred, ld, p, i, j);
}

// grid (tiles - 1, 2): blockIdx.y == 0 updates tile (p, t) of the pivot row, 1 tile (t, p).
template <typename T>
__device__ __forceinline__ void fw_tiled_phase2(T* d, int* pred, long long ld, int p) {
    const int t = skip_pivot(blockIdx.x, p);
    const long long i = (blockIdx.y == 0 ? p : t) * TILE + threadIdx.y;
    const long long j = (blockIdx.y == 0 ? t : p) * TILE + threadIdx.x;
    relax_round_global(d, pred, ld, p, i, j);
}

// grid (tiles - 1, tiles - 1); the operand tiles (pivot row and column) are final here.
template <typename T>
__device__ __forceinline__ void fw_tiled_phase3(T* d, int* pred, long long ld, int p) {
    const long long i = skip_pivot(blockIdx.y, p) * TILE + threadIdx.y;
    const long long j = skip_pivot(blockIdx.x, p) * TILE + threadIdx.x;
    T best = d[i * ld + j];
    long long via = -1;
    for (int kk = 0; kk < TILE; ++kk) {
        const long long k = p * TILE + kk;
        const T cand = d[i * ld + k] + d[k * ld + j];
        if (cand < best) {
            best = cand;
            via = k;
        }
    }
    if (via >= 0) {
        d[i * ld + j] = best;
        if (pred) pred[i * ld + j] = pred[via * ld + j];
    }
}

// ------------------------------------------------------------------ tiled, shared memory

template <typename T>
__device__ __forceinline__ void fw_tiled_shared_phase1(T* d, int* pred, long long ld, int p) {
    __shared__ T D[TILE][TILE];
    __shared__ int P[TILE][TILE];
    const int ty = threadIdx.y, tx = threadIdx.x;
    const long long ij = (long long)(p * TILE + ty) * ld + p * TILE + tx;
    D[ty][tx] = d[ij];
    if (pred) P[ty][tx] = pred[ij];
    __syncthreads();
    for (int kk = 0; kk < TILE; ++kk) {
        const T cand = D[ty][kk] + D[kk][tx];
        if (cand < D[ty][tx]) {
            D[ty][tx] = cand;
            if (pred) P[ty][tx] = P[kk][tx];
        }
        __syncthreads();
    }
    d[ij] = D[ty][tx];
    if (pred) pred[ij] = P[ty][tx];
}

// grid (tiles - 1, 2) as fw_tiled_phase2; pivot tile and current tile in shared memory.
template <typename T>
__device__ __forceinline__ void fw_tiled_shared_phase2(T* d, int* pred, long long ld, int p) {
    __shared__ T Dp[TILE][TILE];  // pivot tile (final after phase 1)
    __shared__ int Pp[TILE][TILE];
    __shared__ T Dc[TILE][TILE];  // current tile
    __shared__ int Pc[TILE][TILE];
    const int ty = threadIdx.y, tx = threadIdx.x;
    const int t = skip_pivot(blockIdx.x, p);
    const bool in_row = blockIdx.y == 0;
    const long long pivot = (long long)(p * TILE + ty) * ld + p * TILE + tx;
    const long long ij = (long long)((in_row ? p : t) * TILE + ty) * ld + (in_row ? t : p) * TILE + tx;
    Dp[ty][tx] = d[pivot];
    Dc[ty][tx] = d[ij];
    if (pred) {
        Pp[ty][tx] = pred[pivot];
        Pc[ty][tx] = pred[ij];
    }
    __syncthreads();
    for (int kk = 0; kk < TILE; ++kk) {
        // row tile: d[i][k] from the pivot tile, d[k][j] from this tile (its row kk is stable);
        // column tile: d[i][k] from this tile (its column kk is stable), d[k][j] from the pivot.
        const T cand = in_row ? Dp[ty][kk] + Dc[kk][tx] : Dc[ty][kk] + Dp[kk][tx];
        if (cand < Dc[ty][tx]) {
            Dc[ty][tx] = cand;
            if (pred) Pc[ty][tx] = in_row ? Pc[kk][tx] : Pp[kk][tx];
        }
        __syncthreads();
    }
    d[ij] = Dc[ty][tx];
    if (pred) pred[ij] = Pc[ty][tx];
}

// grid (tiles - 1, tiles - 1), 64 threads: each thread owns a 4 x 4 block of the 32 x 32 tile
// in registers and does 16 DPX add-min per k, reading 4 column values and 4 row values with
// two 16-byte shared loads. Predecessors: after the min, an improved entry looks for a k that
// attains it (rare after the first rounds) and copies pred[k][j] from the pivot-row tile.
#define P3_THREADS 64
#define COL_LD (TILE + 4)  // keeps 16-byte alignment of colT rows and spreads the transposed stores

template <typename T>
__device__ __forceinline__ void fw_tiled_shared_phase3(T* d, int* pred, long long ld, int p) {
    typedef typename tile_vec4<T>::type V4;
    __shared__ __align__(16) T colT[TILE][COL_LD];  // colT[kk][r] = d[tile_i + r][pivot + kk]
    __shared__ __align__(16) T rowp[TILE][TILE];    // rowp[kk][c] = d[pivot + kk][tile_j + c]
    const int tid = threadIdx.x;
    const long long i0 = (long long)skip_pivot(blockIdx.y, p) * TILE;
    const long long j0 = (long long)skip_pivot(blockIdx.x, p) * TILE;
    const long long k0 = (long long)p * TILE;

    // 32 rows x 8 vectors of 4 per operand tile = 256 vectors: 4 per thread.
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int idx = tid + P3_THREADS * q;
        const int r = idx >> 3, c = (idx & 7) * 4;
        const V4 a = *reinterpret_cast<const V4*>(d + (i0 + r) * ld + k0 + c);
        colT[c][r] = a.x;
        colT[c + 1][r] = a.y;
        colT[c + 2][r] = a.z;
        colT[c + 3][r] = a.w;
        *reinterpret_cast<V4*>(&rowp[r][c]) = *reinterpret_cast<const V4*>(d + (k0 + r) * ld + j0 + c);
    }

    const int r0 = (tid >> 3) * 4, c0 = (tid & 7) * 4;
    T old[4][4], acc[4][4];
#pragma unroll
    for (int a = 0; a < 4; ++a) {
        const V4 v = *reinterpret_cast<const V4*>(d + (i0 + r0 + a) * ld + j0 + c0);
        old[a][0] = acc[a][0] = v.x;
        old[a][1] = acc[a][1] = v.y;
        old[a][2] = acc[a][2] = v.z;
        old[a][3] = acc[a][3] = v.w;
    }
    __syncthreads();

#pragma unroll 4  // full unrolling hoists all 64 loads and spills
    for (int kk = 0; kk < TILE; ++kk) {
        const V4 x = *reinterpret_cast<const V4*>(&colT[kk][r0]);
        const V4 y = *reinterpret_cast<const V4*>(&rowp[kk][c0]);
        const T xs[4] = {x.x, x.y, x.z, x.w};
        const T ys[4] = {y.x, y.y, y.z, y.w};
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int b = 0; b < 4; ++b) acc[a][b] = add_min<T>(xs[a], ys[b], acc[a][b]);
    }

#pragma unroll
    for (int a = 0; a < 4; ++a) {
        bool any = false;
#pragma unroll
        for (int b = 0; b < 4; ++b) any |= acc[a][b] < old[a][b];
        if (!any) continue;
        const long long row = (i0 + r0 + a) * ld + j0 + c0;
        V4 out;
        out.x = acc[a][0]; out.y = acc[a][1]; out.z = acc[a][2]; out.w = acc[a][3];
        *reinterpret_cast<V4*>(d + row) = out;
        if (!pred) continue;
#pragma unroll
        for (int b = 0; b < 4; ++b) {
            if (acc[a][b] >= old[a][b]) continue;
            int kk = 0;
            while (kk < TILE - 1 && colT[kk][r0 + a] + rowp[kk][c0 + b] != acc[a][b]) ++kk;
            pred[row + b] = pred[(k0 + kk) * ld + j0 + c0 + b];
        }
    }
}

#define THREE_PHASE_KERNELS(SFX, T)                                                                  \
    extern "C" __global__ void __launch_bounds__(1024)                                               \
        fw_tiled_phase1_##SFX(T* d, int* pred, long long ld, int p) { fw_tiled_phase1<T>(d, pred, ld, p); } \
    extern "C" __global__ void __launch_bounds__(1024)                                               \
        fw_tiled_phase2_##SFX(T* d, int* pred, long long ld, int p) { fw_tiled_phase2<T>(d, pred, ld, p); } \
    extern "C" __global__ void __launch_bounds__(1024)                                               \
        fw_tiled_phase3_##SFX(T* d, int* pred, long long ld, int p) { fw_tiled_phase3<T>(d, pred, ld, p); } \
    extern "C" __global__ void __launch_bounds__(1024)                                               \
        fw_tiled_shared_phase1_##SFX(T* d, int* pred, long long ld, int p) {                         \
        fw_tiled_shared_phase1<T>(d, pred, ld, p);                                                   \
    }                                                                                                \
    extern "C" __global__ void __launch_bounds__(1024)                                               \
        fw_tiled_shared_phase2_##SFX(T* d, int* pred, long long ld, int p) {                         \
        fw_tiled_shared_phase2<T>(d, pred, ld, p);                                                   \
    }                                                                                                \
    extern "C" __global__ void __launch_bounds__(P3_THREADS)                                         \
        fw_tiled_shared_phase3_##SFX(T* d, int* pred, long long ld, int p) {                         \
        fw_tiled_shared_phase3<T>(d, pred, ld, p);                                                   \
    }

THREE_PHASE_KERNELS(i32, int)
THREE_PHASE_KERNELS(f32, float)
THREE_PHASE_KERNELS(f64, double)
