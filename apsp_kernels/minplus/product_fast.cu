// Fast (min,+) products X <- min(X, Y (x) Z) and a register-resident Floyd-Warshall leaf, for
// the fast R-Kleene of issue [peak] (pandey's algorithm, Fig. 6/7, run near the DPX limit).
//
// Views and aliasing exactly as in product.cu: X (m x p) at (xr, xc), Y (m x q) at (yr, yc),
// Z (q x p) at (zr, zc) of ONE row-major matrix with leading dimension ld; X may overlap Y or Z.
// Any value read is the entry at launch or a later, smaller one, both real path lengths, so the
// result lies between the true distances and the out-of-place product (see rkleene.py).
//
// Product tile: one CTA computes a BM x BN tile of X, each thread a TM x TN micro-tile in
// registers (rows (u/4)*4*TY + 4*ty + u%4, columns likewise), so both operands come from
// shared memory as 128-bit loads: Y slices stay row-major (ys[row][k], four k per load),
// Z slices too (zs[k][col], four columns per load). Slices of BK columns of Y / rows of Z
// stream through a STAGES-deep cp.async pipeline (sm_80+; plain loads below).
//
// Unchecked kernels need m % BM == p % BN == q % BK == 0, ld, xc, yc, zc multiples of 4 and
// a 16-byte aligned matrix (the wrapper checks; the fast solvers pad n). The checked kernels
// take any view. Task kernels run several independent products, or k-chunks of one product
// (split-K), in one launch: blockIdx.z picks a task; a task flagged atomic merges its tile
// into X with atomicMin (min is idempotent: no reduction buffer is needed).
#include "common.cuh"

typedef long long i64;

template <typename T> struct vec4_t;
template <> struct vec4_t<int> { typedef int4 type; };
template <> struct vec4_t<float> { typedef float4 type; };
template <> struct vec4_t<double> { typedef apsp_double4 type; };

template <typename T> __device__ __forceinline__ T lane(const typename vec4_t<T>::type& v, int i) {
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}
template <typename T> __device__ __forceinline__ T vmin(T a, T b) { return b < a ? b : a; }

// ---------------------------------------------------------------------------- async copies
__device__ __forceinline__ void copy16(void* smem, const void* gmem) {
#if __CUDA_ARCH__ >= 800
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
#else
    *reinterpret_cast<int4*>(smem) = *reinterpret_cast<const int4*>(gmem);
#endif
}
__device__ __forceinline__ void copy_commit() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N> __device__ __forceinline__ void copy_wait() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// ---------------------------------------------------------------------------- configuration
template <int BM_, int BN_, int TM_, int TN_, int BK_, int STAGES_, int KG_ = 4, int VE_ = 4>
struct Cfg {
    static constexpr int BM = BM_, BN = BN_, TM = TM_, TN = TN_, BK = BK_, STAGES = STAGES_;
    static constexpr int KG = KG_;  // k values of Y per shared load (4: 128-bit, 2: 64-bit or double2)
    static constexpr int VE = VE_;  // elements per 16-byte copy: 4 (int, float) or 2 (double)
    static constexpr int TX = BN / TN, TY = BM / TM, THREADS = TX * TY;
    static constexpr int YLD = BK + 4;  // 16-byte rows; 8 consecutive rows start in 8 bank groups
    static constexpr int ZLD = BN;
    static constexpr int YSIZE = BM * YLD, ZSIZE = BK * ZLD, STAGE = YSIZE + ZSIZE;
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0 && (KG == 2 || KG == 4), "vectors");
    static_assert((BM * BK / VE) % THREADS == 0 && (BK * BN / VE) % THREADS == 0, "whole copies");
};

// micro-tile entry u of thread t (of `span` threads along that side): 4-wide groups span apart
template <int SPAN> __device__ __forceinline__ int spread(int u, int t) {
    return (u / 4) * 4 * SPAN + 4 * t + u % 4;
}
template <class C> __device__ __forceinline__ int row_of(int u, int ty) { return spread<C::TY>(u, ty); }
template <class C> __device__ __forceinline__ int col_of(int v, int tx) { return spread<C::TX>(v, tx); }

// Offsets of Y and Z: kernel arguments (free to read), or a task table entry in shared memory,
// read again at every slice rather than held in registers through the main loop.
struct ArgViews {
    int yr_, yc_, zr_, zc_;
    __device__ __forceinline__ int yr() const { return yr_; }
    __device__ __forceinline__ int yc() const { return yc_; }
    __device__ __forceinline__ int zr() const { return zr_; }
    __device__ __forceinline__ int zc() const { return zc_; }
};
struct SharedViews {  // xr, xc, yr, yc, zr, zc, ... (the task layout)
    const int* s;
    __device__ __forceinline__ int yr() const { return s[2]; }
    __device__ __forceinline__ int yc() const { return s[3]; }
    __device__ __forceinline__ int zr() const { return s[4]; }
    __device__ __forceinline__ int zc() const { return s[5]; }
};

// One slice (BK columns of Y from column k0, BK rows of Z from row k0) into a stage.
template <typename T, class C, bool CHECKED, class V>
__device__ __forceinline__ void load_slice(T* stage, const T* mat, i64 ld, const V& views, int m,
                                           int p, int q, int i0, int j0, int k0) {
    const int yr = views.yr(), yc = views.yc(), zr = views.zr(), zc = views.zc();
    T* ys = stage;
    T* zs = stage + C::YSIZE;
    const int tid = threadIdx.x;
    if (!CHECKED) {
        constexpr int YV = C::BK / C::VE, ZV = C::BN / C::VE;  // 16-byte chunks per row
#pragma unroll
        for (int r = 0; r < C::BM * YV / C::THREADS; ++r) {
            const int c = tid + r * C::THREADS, row = c / YV, col = (c % YV) * C::VE;
            copy16(ys + row * C::YLD + col, mat + (i64)(yr + i0 + row) * ld + yc + k0 + col);
        }
#pragma unroll
        for (int r = 0; r < C::BK * ZV / C::THREADS; ++r) {
            const int c = tid + r * C::THREADS, row = c / ZV, col = (c % ZV) * C::VE;
            copy16(zs + row * C::ZLD + col, mat + (i64)(zr + k0 + row) * ld + zc + j0 + col);
        }
    } else {
        const T inf = dist_inf<T>();
        for (int e = tid; e < C::BM * C::BK; e += C::THREADS) {
            const int row = e / C::BK, k = e % C::BK;
            const bool ok = i0 + row < m && k0 + k < q;
            ys[row * C::YLD + k] = ok ? mat[(i64)(yr + i0 + row) * ld + yc + k0 + k] : inf;
        }
        for (int e = tid; e < C::BK * C::BN; e += C::THREADS) {
            const int row = e / C::BN, col = e % C::BN;
            const bool ok = k0 + row < q && j0 + col < p;
            zs[row * C::ZLD + col] = ok ? mat[(i64)(zr + k0 + row) * ld + zc + j0 + col] : inf;
        }
    }
}

template <typename T, int N> struct vec_t;
template <> struct vec_t<int, 4> { typedef int4 type; };
template <> struct vec_t<float, 4> { typedef float4 type; };
template <> struct vec_t<int, 2> { typedef int2 type; };
template <> struct vec_t<float, 2> { typedef float2 type; };
template <> struct vec_t<double, 4> { typedef apsp_double4 type; };
template <> struct vec_t<double, 2> { typedef double2 type; };
template <typename T, int N> struct Vec {
    T e[N];
    __device__ __forceinline__ void load(const T* s) {
        const typename vec_t<T, N>::type v = *reinterpret_cast<const typename vec_t<T, N>::type*>(s);
        const T* f = reinterpret_cast<const T*>(&v);
#pragma unroll
        for (int i = 0; i < N; ++i) e[i] = f[i];
    }
};

template <typename T, class C>
__device__ __forceinline__ void compute_slice(const T* stage, T (&acc)[C::TM][C::TN], int tx, int ty) {
    const T* ys = stage;
    const T* zs = stage + C::YSIZE;
#pragma unroll
    for (int kg = 0; kg < C::BK; kg += C::KG) {
        Vec<T, C::KG> a[C::TM];
#pragma unroll
        for (int u = 0; u < C::TM; ++u) a[u].load(ys + row_of<C>(u, ty) * C::YLD + kg);
#pragma unroll
        for (int kk = 0; kk < C::KG; ++kk) {
            Vec<T, 4> b[C::TN / 4];
#pragma unroll
            for (int c = 0; c < C::TN / 4; ++c) b[c].load(zs + (kg + kk) * C::ZLD + col_of<C>(4 * c, tx));
#pragma unroll
            for (int u = 0; u < C::TM; ++u)
#pragma unroll
                for (int v = 0; v < C::TN; ++v)
                    acc[u][v] = add_min<T>(a[u].e[kk], b[v / 4].e[v % 4], acc[u][v]);
        }
    }
}

// X[i0.., j0..] <- min(X, acc): vector read-modify-write, or atomicMin where another CTA
// (another k-chunk) writes the same entries; atomics only where acc improves on X.
template <typename T, class C, bool CHECKED>
__device__ __forceinline__ void store_tile(T* mat, i64 ld, int xr, int xc, int m, int p, int i0,
                                           int j0, const T (&acc)[C::TM][C::TN], int tx, int ty,
                                           bool atomic) {
    typedef typename vec4_t<T>::type V4;
#pragma unroll
    for (int u = 0; u < C::TM; ++u) {
        const int gi = i0 + row_of<C>(u, ty);
        if (CHECKED && gi >= m) continue;
        T* xrow = mat + (i64)(xr + gi) * ld + xc;
#pragma unroll
        for (int c = 0; c < C::TN / 4; ++c) {
            const int gj = j0 + col_of<C>(4 * c, tx);
            if (CHECKED) {
#pragma unroll
                for (int w = 0; w < 4; ++w)
                    if (gj + w < p) xrow[gj + w] = vmin(xrow[gj + w], acc[u][4 * c + w]);
                continue;
            }
            V4* xp = reinterpret_cast<V4*>(xrow + gj);
            V4 x = *xp;
            if (atomic) {
#pragma unroll
                for (int w = 0; w < 4; ++w)
                    if (acc[u][4 * c + w] < lane<T>(x, w)) atomic_min_dist(xrow + gj + w, acc[u][4 * c + w]);
            } else {
                x.x = vmin(x.x, acc[u][4 * c]);
                x.y = vmin(x.y, acc[u][4 * c + 1]);
                x.z = vmin(x.z, acc[u][4 * c + 2]);
                x.w = vmin(x.w, acc[u][4 * c + 3]);
                *xp = x;
            }
        }
    }
}

// acc <- the (min,+) product of the tile's rows of Y and columns of Z (the main loop).
template <typename T, class C, bool CHECKED, class V>
__device__ __forceinline__ void tile_accumulate(const T* mat, i64 ld, const V& views, int m, int p,
                                                int q, int i0, int j0, T (&acc)[C::TM][C::TN]) {
    extern __shared__ __align__(16) unsigned char fast_smem[];
    T* smem = reinterpret_cast<T*>(fast_smem);
    const int tx = threadIdx.x % C::TX, ty = threadIdx.x / C::TX;
#pragma unroll
    for (int u = 0; u < C::TM; ++u)
#pragma unroll
        for (int v = 0; v < C::TN; ++v) acc[u][v] = dist_inf<T>();

    const int slices = (q + C::BK - 1) / C::BK;
#pragma unroll
    for (int s = 0; s < C::STAGES - 1; ++s) {
        if (s < slices)
            load_slice<T, C, CHECKED>(smem + s * C::STAGE, mat, ld, views, m, p, q, i0, j0, s * C::BK);
        copy_commit();
    }
    for (int s = 0; s < slices; ++s) {
        copy_wait<C::STAGES - 2>();
        __syncthreads();  // slice s is in place for all; stage (s-1) % STAGES is no longer read
        const int next = s + C::STAGES - 1;
        if (next < slices)
            load_slice<T, C, CHECKED>(smem + (next % C::STAGES) * C::STAGE, mat, ld, views, m, p, q,
                                      i0, j0, next * C::BK);
        copy_commit();
        compute_slice<T, C>(smem + (s % C::STAGES) * C::STAGE, acc, tx, ty);
    }
    copy_wait<0>();
}

template <typename T, class C, bool CHECKED>
__device__ __forceinline__ void tile_product(T* mat, i64 ld, int xr, int xc, int yr, int yc, int zr,
                                             int zc, int m, int p, int q, int i0, int j0, bool atomic) {
    T acc[C::TM][C::TN];
    tile_accumulate<T, C, CHECKED>(mat, ld, ArgViews{yr, yc, zr, zc}, m, p, q, i0, j0, acc);
    store_tile<T, C, CHECKED>(mat, ld, xr, xc, m, p, i0, j0, acc, threadIdx.x % C::TX,
                              threadIdx.x / C::TX, atomic);
}

// One task of a task kernel: 12 ints xr, xc, yr, yc, zr, zc, m, p, q, atomic, 0, 0.
#define TASK_INTS 12

template <typename T, class C>
__device__ __forceinline__ void task_product(T* mat, i64 ld, const int* __restrict__ tasks) {
    __shared__ int t[TASK_INTS];
    if (threadIdx.x < TASK_INTS) t[threadIdx.x] = tasks[blockIdx.z * TASK_INTS + threadIdx.x];
    __syncthreads();
    const int i0 = blockIdx.y * C::BM, j0 = blockIdx.x * C::BN;
    if (i0 >= t[6] || j0 >= t[7]) return;  // the grid covers the largest task
    T acc[C::TM][C::TN];
    tile_accumulate<T, C, false>(mat, ld, SharedViews{t}, t[6], t[7], t[8], i0, j0, acc);
    store_tile<T, C, false>(mat, ld, t[0], t[1], t[6], t[7], i0, j0, acc, threadIdx.x % C::TX,
                            threadIdx.x / C::TX, t[9] != 0);
}

// ---------------------------------------------------------------------------- FW leaf
// Floyd-Warshall of the B x B diagonal block at (r0, r0), B in {64, 128}: (B/8)^2 threads, each
// holding an 8 x 8 micro-tile in registers for the whole run. Step k needs row k and column k
// as they stand after step k-1 (unchanged in step k: 0 diagonal, non-negative weights); their
// owners publish them to a double buffer in shared memory, one barrier per step.
template <typename T, int B>
__device__ __forceinline__ void fw_leaf(T* mat, i64 ld, int r0) {
    typedef typename vec4_t<T>::type V4;
    constexpr int S = B / 8;  // threads per side
    __shared__ __align__(16) T rowk[2][B];
    __shared__ __align__(16) T colk[2][B];
    const int tx = threadIdx.x % S, ty = threadIdx.x / S;
    T d[8][8];
#pragma unroll
    for (int u = 0; u < 8; ++u)
#pragma unroll
        for (int v = 0; v < 8; ++v)
            d[u][v] = mat[(i64)(r0 + spread<S>(u, ty)) * ld + r0 + spread<S>(v, tx)];

    // the owners of row k / column k: ty == (k % (4 TY)) / 4 with u = 4 (k / (4 TY)) + k % 4
    auto publish = [&](int k, int buf) {
        const int uk = 4 * (k / (4 * S)) + k % 4, owner = (k % (4 * S)) / 4;
        if (ty == owner) {
#pragma unroll
            for (int u = 0; u < 8; ++u)
                if (u == uk)
#pragma unroll
                    for (int v = 0; v < 8; ++v) rowk[buf][spread<S>(v, tx)] = d[u][v];
        }
        if (tx == owner) {
#pragma unroll
            for (int v = 0; v < 8; ++v)
                if (v == uk)
#pragma unroll
                    for (int u = 0; u < 8; ++u) colk[buf][spread<S>(u, ty)] = d[u][v];
        }
    };
    publish(0, 0);
    __syncthreads();
    for (int k = 0; k < B; ++k) {
        const int buf = k & 1;
        T a[8], b[8];
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            const V4 va = *reinterpret_cast<const V4*>(&colk[buf][spread<S>(4 * c, ty)]);
            const V4 vb = *reinterpret_cast<const V4*>(&rowk[buf][spread<S>(4 * c, tx)]);
            a[4 * c] = va.x; a[4 * c + 1] = va.y; a[4 * c + 2] = va.z; a[4 * c + 3] = va.w;
            b[4 * c] = vb.x; b[4 * c + 1] = vb.y; b[4 * c + 2] = vb.z; b[4 * c + 3] = vb.w;
        }
#pragma unroll
        for (int u = 0; u < 8; ++u)
#pragma unroll
            for (int v = 0; v < 8; ++v) d[u][v] = add_min<T>(a[u], b[v], d[u][v]);
        // buffer buf ^ 1 was last read in step k - 1, before the barrier that ended it
        if (k + 1 < B) publish(k + 1, buf ^ 1);
        __syncthreads();
    }
#pragma unroll
    for (int u = 0; u < 8; ++u)
#pragma unroll
        for (int v = 0; v < 8; ++v)
            mat[(i64)(r0 + spread<S>(u, ty)) * ld + r0 + spread<S>(v, tx)] = d[u][v];
}

// ---------------------------------------------------------------------------- kernels
// Configurations (the wrapper's VARIANTS table mirrors them): name, BM, BN, TM, TN, BK, STAGES,
// CTAs per SM for __launch_bounds__.
// float64 (same names, the wrapper's VARIANTS_F64): 8 x 8 micro-tiles of doubles are 128 registers
// of accumulators, so one CTA of 256 threads per SM; k-slices of 8 (16) doubles keep the 3-4
// stages within shared memory; Y is read two k at a time (one double2 load per row).
typedef Cfg<128, 128, 8, 8, 16, 3> CfgT128;
typedef Cfg<128, 128, 8, 8, 16, 4> CfgT128s4;
typedef Cfg<128, 128, 8, 8, 32, 3> CfgT128k32;
typedef Cfg<64, 64, 4, 4, 16, 3> CfgT64;
typedef Cfg<128, 128, 8, 8, 8, 3, 2, 2> CfgD128;
typedef Cfg<128, 128, 8, 8, 8, 4, 2, 2> CfgD128s4;
typedef Cfg<128, 128, 8, 8, 16, 3, 2, 2> CfgD128k16;
typedef Cfg<64, 64, 4, 4, 8, 3, 2, 2> CfgD64;

#define MINPLUS_ARGS(T) T* mat, i64 ld, int xr, int xc, int yr, int yc, int zr, int zc, int m, int p, int q
#define MINPLUS_PASS mat, ld, xr, xc, yr, yc, zr, zc, m, p, q

#define FAST_VARIANT(NAME, CFG, MINB, SUFFIX, T)                                                   \
    extern "C" __global__ void __launch_bounds__(CFG::THREADS, MINB)                               \
        minplus_fast_##NAME##_##SUFFIX(MINPLUS_ARGS(T)) {                                          \
        tile_product<T, CFG, false>(MINPLUS_PASS, blockIdx.y * CFG::BM, blockIdx.x * CFG::BN, false); \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(CFG::THREADS, MINB)                               \
        minplus_tasks_##NAME##_##SUFFIX(T* mat, i64 ld, const int* __restrict__ tasks) {           \
        task_product<T, CFG>(mat, ld, tasks);                                                      \
    }

#define FAST_KERNELS(SUFFIX, T, C128, C128S4, C128K, C64, MINB, MINB64)                           \
    FAST_VARIANT(t128, C128, MINB, SUFFIX, T)                                                      \
    FAST_VARIANT(t128s4, C128S4, MINB, SUFFIX, T)                                                  \
    FAST_VARIANT(t128k32, C128K, MINB, SUFFIX, T)                                                  \
    FAST_VARIANT(t128r1, C128, 1, SUFFIX, T)                                                       \
    FAST_VARIANT(t64, C64, MINB64, SUFFIX, T)                                                      \
    extern "C" __global__ void __launch_bounds__(C64::THREADS)                                     \
        minplus_fast_checked_##SUFFIX(MINPLUS_ARGS(T)) {                                           \
        tile_product<T, C64, true>(MINPLUS_PASS, blockIdx.y * C64::BM, blockIdx.x * C64::BN, false); \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256)                                              \
        fw_leaf128_##SUFFIX(T* mat, i64 ld, int r0) { fw_leaf<T, 128>(mat, ld, r0); }               \
    extern "C" __global__ void __launch_bounds__(64)                                               \
        fw_leaf64_##SUFFIX(T* mat, i64 ld, int r0) { fw_leaf<T, 64>(mat, ld, r0); }

FAST_KERNELS(i32, int, CfgT128, CfgT128s4, CfgT128k32, CfgT64, 2, 3)
FAST_KERNELS(f32, float, CfgT128, CfgT128s4, CfgT128k32, CfgT64, 2, 3)
FAST_KERNELS(f64, double, CfgD128, CfgD128s4, CfgD128k16, CfgD64, 1, 2)
