// K single-source problems at once: a (min,+) SpMM pull over the reverse CSR, in sweeps, restricted
// to the (vertex, chunk) pairs that an in-neighbour's change can lower.
//
// D is vertex-major: row v holds the K distances to v (row stride KP, a multiple of 4), split in
// chunks of 128 columns; the warp of task (v, c) loads 4 columns per lane (one 16-byte load) of
// each active in-neighbour's row. Per task, in chunk-major order (task = c * n + v, so that the
// warps running together share one chunk of D in L2):
//   stamp[task] = the last sweep that lowered a distance of the task (-1: never);
//   mark[task]  = the last sweep asked to pull the task (its in-neighbour changed the sweep before).
// Sweep t pulls every task with mark >= t from the in-neighbours with stamp >= t - 1, and marks the
// out-neighbours of every task it lowers with t + 1. Updates are in place, so a task can see a
// change of the same sweep (several hops per sweep); every change of sweep t is pulled again in
// sweep t + 1 (a new launch sees it), so a sweep that lowers nothing ends at the fixed point.
#include "common.cuh"

#define MS_CHUNK 128
#define MS_NO_PRED 0x7fffffff
#define FULL_MASK 0xffffffffu

template <typename T> struct vec4_of;
template <> struct vec4_of<int> { typedef int4 type; };
template <> struct vec4_of<float> { typedef float4 type; };
template <> struct vec4_of<double> { typedef apsp_double4 type; };

// __ldcg of four distances: one 16-byte load, or two for doubles
template <typename V> __device__ __forceinline__ V ldcg4(const V* p) { return __ldcg(p); }
template <> __device__ __forceinline__ apsp_double4 ldcg4<apsp_double4>(const apsp_double4* p) {
    const double2 a = __ldcg(reinterpret_cast<const double2*>(p));
    const double2 b = __ldcg(reinterpret_cast<const double2*>(p) + 1);
    apsp_double4 r;
    r.x = a.x; r.y = a.y; r.z = b.x; r.w = b.y;
    return r;
}

template <typename V, typename T>
__device__ __forceinline__ V splat(T x) { V r; r.x = x; r.y = x; r.z = x; r.w = x; return r; }

template <typename T, typename V>
__device__ __forceinline__ void add_min4(V& acc, const V& d, T w) {
    acc.x = add_min<T>(d.x, w, acc.x);
    acc.y = add_min<T>(d.y, w, acc.y);
    acc.z = add_min<T>(d.z, w, acc.z);
    acc.w = add_min<T>(d.w, w, acc.w);
}

// Sources: D[s_k, k] = 0, stamp of (s_k, chunk of k) = 0, mark the out-neighbours for sweep 1.
// D, stamp and mark are filled (INF, -1, 0) before.
template <typename T>
__device__ void ms_seed(const int* __restrict__ indptr, const int* __restrict__ indices,
                        const int* __restrict__ sources, T* D, int* stamp, int* mark, int n, int KP, int K) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= K) return;
    const int s = sources[k];
    const long long base = (long long)(k / MS_CHUNK) * n;
    D[(long long)s * KP + k] = T(0);
    stamp[base + s] = 0;
    const int end = indptr[s + 1];
    for (int e = indptr[s]; e < end; ++e) mark[base + indices[e]] = 1;
}

template <typename T>
__device__ void ms_sweep(const int* __restrict__ indptr, const int* __restrict__ indices,
                         const int* __restrict__ rindptr, const int* __restrict__ rindices,
                         const T* __restrict__ rweights, T* D, int* stamp, int* mark, int* changed,
                         int n, int KP, int NC, int t) {
    typedef typename vec4_of<T>::type V;
    if (changed[t - 1] == 0) return;  // the previous sweep lowered nothing: fixed point
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long tasks = (long long)n * NC;
    for (long long first = warp * 32; first < tasks; first += warps * 32) {
        const long long mine = first + lane;
        unsigned todo = __ballot_sync(FULL_MASK, mine < tasks && __ldcg(mark + mine) >= t);
        while (todo) {
            const long long task = first + __ffs(todo) - 1;
            todo &= todo - 1;
            const int c = (int)(task / n);
            const int v = (int)(task - (long long)c * n);
            const long long cbase = (long long)c * n;
            const int col = c * MS_CHUNK + lane * 4;
            const bool on = col < KP;
            V acc = splat<V, T>(dist_inf<T>());
            const int end = rindptr[v + 1];
            for (int base = rindptr[v]; base < end; base += 32) {
                const int e = base + lane;
                int u = 0;
                T w = T(0);
                bool live = false;
                if (e < end) {
                    u = rindices[e];
                    w = rweights[e];
                    live = __ldcg(stamp + cbase + u) >= t - 1;
                }
                unsigned pull = __ballot_sync(FULL_MASK, live);
                while (pull) {
                    const int j = __ffs(pull) - 1;
                    pull &= pull - 1;
                    const int uj = __shfl_sync(FULL_MASK, u, j);
                    const T wj = __shfl_sync(FULL_MASK, w, j);
                    if (on) add_min4<T, V>(acc, ldcg4(reinterpret_cast<const V*>(D + (long long)uj * KP + col)), wj);
                }
            }
            bool lower = false;
            if (on) {
                V* row = reinterpret_cast<V*>(D + (long long)v * KP + col);
                V dv = ldcg4(row);
                lower = acc.x < dv.x || acc.y < dv.y || acc.z < dv.z || acc.w < dv.w;
                if (lower) {
                    dv.x = min(dv.x, acc.x);
                    dv.y = min(dv.y, acc.y);
                    dv.z = min(dv.z, acc.z);
                    dv.w = min(dv.w, acc.w);
                    *row = dv;
                }
            }
            if (__ballot_sync(FULL_MASK, lower)) {
                if (lane == 0) {
                    stamp[task] = t;
                    if (changed[t] == 0) changed[t] = 1;
                }
                const int oend = indptr[v + 1];
                for (int e = indptr[v] + lane; e < oend; e += 32) mark[cbase + indices[e]] = t + 1;
            }
        }
    }
}

// pred[v, k] (vertex-major, row stride KP) = the smallest in-neighbour u with
// D[u, k] + w(u, v) == D[v, k]; -1 for the source of column k and unreachable vertices.
template <typename T>
__device__ void ms_pred(const int* __restrict__ rindptr, const int* __restrict__ rindices,
                        const T* __restrict__ rweights, const T* __restrict__ D,
                        const int* __restrict__ sources, int* pred, int n, int KP, int K) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long v = i / KP;
    const int k = (int)(i - v * KP);
    if (v >= n || k >= K) return;
    const T dv = D[v * KP + k];
    int best = MS_NO_PRED;
    if (v != sources[k] && dv < dist_inf<T>()) {
        const int end = rindptr[v + 1];
        for (int e = rindptr[v]; e < end; ++e) {
            const int u = rindices[e];
            if (D[(long long)u * KP + k] + rweights[e] == dv) best = min(best, u);
        }
    }
    pred[v * KP + k] = best == MS_NO_PRED ? -1 : best;
}

#define MS_KERNELS(SFX, T)                                                                                   \
    extern "C" __global__ void ms_seed_##SFX(const int* indptr, const int* indices, const int* sources, T* D, \
                                             int* stamp, int* mark, int n, int KP, int K) {                  \
        ms_seed<T>(indptr, indices, sources, D, stamp, mark, n, KP, K);                                      \
    }                                                                                                        \
    extern "C" __global__ void ms_sweep_##SFX(const int* indptr, const int* indices, const int* rindptr,      \
                                              const int* rindices, const T* rweights, T* D, int* stamp,      \
                                              int* mark, int* changed, int n, int KP, int NC, int t) {        \
        ms_sweep<T>(indptr, indices, rindptr, rindices, rweights, D, stamp, mark, changed, n, KP, NC, t);    \
    }                                                                                                        \
    extern "C" __global__ void ms_pred_##SFX(const int* rindptr, const int* rindices, const T* rweights,      \
                                             const T* D, const int* sources, int* pred, int n, int KP, int K) { \
        ms_pred<T>(rindptr, rindices, rweights, D, sources, pred, n, KP, K);                                 \
    }

MS_KERNELS(i32, int)
MS_KERNELS(f32, float)
MS_KERNELS(f64, double)
