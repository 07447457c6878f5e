// (min,+) products X <- min(X, Y (x) Z) on sub-matrix views of ONE row-major matrix, and the
// in-block Floyd-Warshall base case of R-Kleene (pandey, Fig. 6/7, 10).
//
// A view is (row offset, column offset) into `mat` with leading dimension `ld`:
// X is m x p at (xr, xc), Y is m x q at (yr, yc), Z is q x p at (zr, zc). No copies are made.
//
// Aliasing: R-Kleene calls B <- min(B, A* (x) B), so X may overlap Y or Z and other blocks write
// X while this block reads tiles of Y/Z. No pointer is __restrict__ and no read goes through the
// non-coherent cache. Every value a block can read is the entry at launch or a value written
// later; both are lengths of real paths and the later one is smaller. Each output therefore
// ends <= the out-of-place product and >= the true distance, which is all R-Kleene needs (see
// apsp_kernels/minplus/rkleene.py). Each entry of X is written by exactly one thread.
#include "common.cuh"

typedef long long i64;

template <typename T> __device__ __forceinline__ T dmin(T a, T b) { return b < a ? b : a; }

template <typename T> struct vec4_of;
template <> struct vec4_of<int> { typedef int4 type; };
template <> struct vec4_of<float> { typedef float4 type; };
template <> struct vec4_of<double> { typedef apsp_double4 type; };

// ---------------------------------------------------------------------------------------------
// Paper-faithful product (Fig. 10 with local-memory tiles): one thread per output entry, a
// 16 x 16 block stages 16 x 16 tiles of Y and Z in shared memory per step of k.
// Launch: block (16, 16), grid (ceil(p/16), ceil(m/16)).
#define TILE 16

template <typename T>
__device__ __forceinline__ void minplus_tiled(T* mat, i64 ld, int xr, int xc, int yr, int yc,
                                              int zr, int zc, int m, int p, int q) {
    __shared__ T ys[TILE][TILE];
    __shared__ T zs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = blockIdx.y * TILE + ty;  // row of X
    const int j = blockIdx.x * TILE + tx;  // column of X
    const T inf = dist_inf<T>();
    T acc = inf;
    for (int k0 = 0; k0 < q; k0 += TILE) {
        ys[ty][tx] = (i < m && k0 + tx < q) ? mat[(i64)(yr + i) * ld + yc + k0 + tx] : inf;
        zs[ty][tx] = (k0 + ty < q && j < p) ? mat[(i64)(zr + k0 + ty) * ld + zc + j] : inf;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TILE; ++kk) acc = add_min<T>(ys[ty][kk], zs[kk][tx], acc);
        __syncthreads();  // the tiles are overwritten in the next step
    }
    if (i < m && j < p) {
        T* x = mat + (i64)(xr + i) * ld + xc + j;
        *x = dmin(*x, acc);
    }
}

// ---------------------------------------------------------------------------------------------
// Register-blocked product: 256 threads (16 x 16) compute a BM x BM tile of X, BM = 16 * TM,
// each thread a TM x TM micro-tile held in registers (rows ty*4 + 64*c + {0..3}, columns
// tx*4 + 64*c + {0..3}, c < TM/4). Slices of BK columns of Y and BK rows of Z are staged in
// shared memory, double-buffered: the next slice is fetched into registers while the current
// one is used, then stored to the other buffer; one barrier per slice.
// Launch: block (256), grid (ceil(p/BM), ceil(m/BM)); static shared memory
// 2*BK*(BM+4) + 2*BK*BM elements (16.6 KB for TM = 8, 8.4 KB for TM = 4).
#define BLK_THREADS 256
#define BLK_K 8

template <typename T, int TM>
__device__ __forceinline__ void minplus_blocked(T* mat, i64 ld, int xr, int xc, int yr, int yc,
                                                int zr, int zc, int m, int p, int q) {
    constexpr int BM = 16 * TM;
    constexpr int BK = BLK_K;
    constexpr int PAD = 4;                       // keeps rows 16-byte aligned, breaks bank conflicts
    constexpr int CH = TM / 4;                   // 4-wide chunks per thread and direction
    constexpr int LOADS = BM * BK / BLK_THREADS; // elements of each slice fetched per thread
    typedef typename vec4_of<T>::type V4;

    __shared__ __align__(16) T ys[2][BK][BM + PAD];  // Y slice, transposed: ys[k][row]
    __shared__ __align__(16) T zs[2][BK][BM];        // Z slice: zs[k][col]

    const int tid = threadIdx.x;
    const int tx = tid & 15, ty = tid >> 4;
    const int i0 = blockIdx.y * BM, j0 = blockIdx.x * BM;
    const T inf = dist_inf<T>();

    T acc[TM][TM];
#pragma unroll
    for (int a = 0; a < TM; ++a)
#pragma unroll
        for (int b = 0; b < TM; ++b) acc[a][b] = inf;

    // Fetch assignment: BLK_THREADS is a multiple of BK and of BM, so a thread's column of the
    // Y slice and column of the Z slice are the same for all of its LOADS elements.
    constexpr int YROWS = BLK_THREADS / BK;  // rows of the Y slice covered per load round
    constexpr int ZROWS = BLK_THREADS / BM;  // rows of the Z slice covered per load round
    const int ykk = tid % BK, yrow = tid / BK;
    const int zcol = tid % BM, zrow = tid / BM;
    const bool zcol_ok = j0 + zcol < p;
    const T* yp = mat + (i64)(yr + i0 + yrow) * ld + yc + ykk;  // Y[i0 + yrow][ykk]
    const T* zp = mat + (i64)(zr + zrow) * ld + zc + j0 + zcol;   // Z[zrow][j0 + zcol]
    const i64 ystep = (i64)YROWS * ld, zstep = (i64)ZROWS * ld;

    T yreg[LOADS], zreg[LOADS];
    auto fetch = [&](int k0) {
        const bool yk_ok = k0 + ykk < q;
#pragma unroll
        for (int r = 0; r < LOADS; ++r) {
            const bool y_ok = yk_ok && i0 + yrow + r * YROWS < m;
            yreg[r] = y_ok ? yp[r * ystep + k0] : inf;
            const bool z_ok = zcol_ok && k0 + zrow + r * ZROWS < q;
            zreg[r] = z_ok ? zp[(i64)k0 * ld + r * zstep] : inf;
        }
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int r = 0; r < LOADS; ++r) {
            ys[buf][ykk][yrow + r * YROWS] = yreg[r];
            zs[buf][zrow + r * ZROWS][zcol] = zreg[r];
        }
    };

    const int slices = (q + BK - 1) / BK;
    fetch(0);
    stash(0);
    __syncthreads();
    for (int s = 0; s < slices; ++s) {
        const int buf = s & 1;
        const bool more = s + 1 < slices;
        if (more) fetch((s + 1) * BK);
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            T a[TM], b[TM];
#pragma unroll
            for (int c = 0; c < CH; ++c) {
                const V4 va = *reinterpret_cast<const V4*>(&ys[buf][kk][c * 64 + ty * 4]);
                const V4 vb = *reinterpret_cast<const V4*>(&zs[buf][kk][c * 64 + tx * 4]);
                a[4 * c] = va.x; a[4 * c + 1] = va.y; a[4 * c + 2] = va.z; a[4 * c + 3] = va.w;
                b[4 * c] = vb.x; b[4 * c + 1] = vb.y; b[4 * c + 2] = vb.z; b[4 * c + 3] = vb.w;
            }
#pragma unroll
            for (int u = 0; u < TM; ++u)
#pragma unroll
                for (int v = 0; v < TM; ++v) acc[u][v] = add_min<T>(a[u], b[v], acc[u][v]);
        }
        // buffer buf^1 was last read in step s-1, which every thread finished before the
        // barrier at the end of step s-1; the barrier below publishes it for step s+1.
        if (more) stash(buf ^ 1);
        __syncthreads();
    }

#pragma unroll
    for (int u = 0; u < TM; ++u) {
        const int gi = i0 + (u / 4) * 64 + ty * 4 + (u % 4);
        if (gi >= m) continue;
        T* xrow = mat + (i64)(xr + gi) * ld + xc;
#pragma unroll
        for (int v = 0; v < TM; ++v) {
            const int gj = j0 + (v / 4) * 64 + tx * 4 + (v % 4);
            if (gj < p) xrow[gj] = dmin(xrow[gj], acc[u][v]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// In-block Floyd-Warshall on the b x b diagonal block at (r0, r0): ONE block, the whole base case
// of R-Kleene in one launch. The block lives in dynamic shared memory (b*b elements, b <= 128:
// 64 KB for int32 at b = 128, the wrapper raises the shared-memory limit when above 48 KB).
// Step k reads row k and column k; they do not change in step k because d[k][k] = 0 (the graph
// has a 0 diagonal and non-negative weights), and only strictly smaller values are written.
// Launch: grid (1), block min(1024, b*b rounded up to 32), shared b*b*sizeof(T).
template <typename T>
__device__ __forceinline__ void fw_block(T* mat, i64 ld, int r0, int b) {
    extern __shared__ __align__(16) unsigned char fw_smem[];
    T* s = reinterpret_cast<T*>(fw_smem);
    const int bb = b * b;
    for (int e = threadIdx.x; e < bb; e += blockDim.x)
        s[e] = mat[(i64)(r0 + e / b) * ld + r0 + e % b];
    __syncthreads();
    for (int k = 0; k < b; ++k) {
        for (int e = threadIdx.x; e < bb; e += blockDim.x) {
            const int i = e / b, j = e - i * b;
            const T cur = s[e];
            const T cand = add_min<T>(s[i * b + k], s[k * b + j], cur);
            if (cand < cur) s[e] = cand;
        }
        __syncthreads();
    }
    for (int e = threadIdx.x; e < bb; e += blockDim.x)
        mat[(i64)(r0 + e / b) * ld + r0 + e % b] = s[e];
}

// ---------------------------------------------------------------------------------------------
// Peak (min,+) rate microbenchmark: every thread runs 16 independent add_min chains (x = min(x,
// y + b), y = min(y, x + c)); the compiler cannot fold them. ops = threads * iters * 16.
template <typename T>
__device__ __forceinline__ void minplus_peak(T* out, int iters, T b, T c) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    T x[8], y[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) { x[u] = (T)(t + u); y[u] = (T)(t ^ u); }
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            x[u] = add_min<T>(y[u], b, x[u]);
            y[u] = add_min<T>(x[u], c, y[u]);
        }
    }
    T r = x[0];
#pragma unroll
    for (int u = 0; u < 8; ++u) r = dmin(r, dmin(x[u], y[u]));
    if (r == (T)-12345) out[0] = r;  // never true for the inputs used; keeps the work alive
}

#define MINPLUS_ARGS(T) T* mat, i64 ld, int xr, int xc, int yr, int yc, int zr, int zc, int m, int p, int q
#define MINPLUS_PASS mat, ld, xr, xc, yr, yc, zr, zc, m, p, q

#define PANDEY_KERNELS(SUFFIX, T)                                                                  \
    extern "C" __global__ void __launch_bounds__(256)                                              \
        minplus_tiled_##SUFFIX(MINPLUS_ARGS(T)) { minplus_tiled<T>(MINPLUS_PASS); }                   \
    extern "C" __global__ void __launch_bounds__(BLK_THREADS, 2)                                   \
        minplus_blocked128_##SUFFIX(MINPLUS_ARGS(T)) { minplus_blocked<T, 8>(MINPLUS_PASS); }         \
    extern "C" __global__ void __launch_bounds__(BLK_THREADS)                                      \
        minplus_blocked64_##SUFFIX(MINPLUS_ARGS(T)) { minplus_blocked<T, 4>(MINPLUS_PASS); }          \
    extern "C" __global__ void __launch_bounds__(1024)                                             \
        fw_block_##SUFFIX(T* mat, i64 ld, int r0, int b) { fw_block<T>(mat, ld, r0, b); }          \
    extern "C" __global__ void minplus_peak_##SUFFIX(T* out, int iters, T b, T c) {                \
        minplus_peak<T>(out, iters, b, c);                                                         \
    }

PANDEY_KERNELS(i32, int)
PANDEY_KERNELS(f32, float)
PANDEY_KERNELS(f64, double)
