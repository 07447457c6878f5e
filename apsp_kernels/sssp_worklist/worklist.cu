// Single-source shortest paths by an asynchronous worklist in ONE persistent launch.
//
// key[v] packs the tentative distance and a queue bit: (bits of d) << 1 | idle, where idle = 1
// when v sits in no queue. Lowering d and claiming the right to enqueue v is one atomicCAS
// (the CAS that clears the idle bit enqueues v), and popping v is one atomicOr that sets the bit
// and returns the newest d. So each vertex is queued at most once at a time (at most n items).
//
// Each block runs rounds: its threads take one queued vertex each from the block's shared list,
// relax its out-arcs against the newest distances, and push improved vertices onto the shared
// list of the next round (no grid-wide barrier). A thread keeps the first vertex it queued and
// relaxes it at once, up to `chain` hops per round (a road is followed without a round per hop).
// A block keeps at most `keep` items for its next round and spills the rest to a global bounded
// MPMC ring (per-slot sequence numbers); a block with room takes up to `grab` items from the ring. `pending` counts queued and
// in-flight items; it is raised before an item becomes visible to other blocks and lowered after
// the item's children are counted, so it reads 0 only when every distance is final.
// Non-negative weights only: int32 d < 2^30 and float32 bits <= +inf both fit in 31 bits (a
// 32-bit key); float64 bits <= +inf fit in 63 (a 64-bit key, wl_key<double>::K).
#include "common.cuh"

#define WL_THREADS 256
#define WL_LOCAL (2 * WL_THREADS)
#define WL_BATCH 4
#define WL_NO_PRED 0x7fffffff
#define WL_STALL_POLLS (1u << 24)

typedef unsigned long long u64;

template <typename T> struct wl_key;
template <> struct wl_key<int> {
    typedef unsigned K;
    static __device__ __forceinline__ unsigned encode(int d) { return (unsigned)d << 1; }
    static __device__ __forceinline__ int decode(unsigned k) { return (int)(k >> 1); }
};
template <> struct wl_key<float> {
    typedef unsigned K;
    static __device__ __forceinline__ unsigned encode(float d) { return __float_as_uint(d) << 1; }
    static __device__ __forceinline__ float decode(unsigned k) { return __uint_as_float(k >> 1); }
};
template <> struct wl_key<double> {
    typedef unsigned long long K;
    static __device__ __forceinline__ K encode(double d) { return (K)__double_as_longlong(d) << 1; }
    static __device__ __forceinline__ double decode(K k) { return __longlong_as_double((long long)(k >> 1)); }
};

__device__ __forceinline__ unsigned load_fresh(const unsigned* p) { return *(const volatile unsigned*)p; }
__device__ __forceinline__ unsigned long long load_fresh(const unsigned long long* p) {
    return *(const volatile unsigned long long*)p;
}

// ---------------------------------------------------------------------------- the global ring
// Vyukov's bounded queue: slot i is free for ticket t when seq[i] == t, full when seq[i] == t + 1.
__device__ void ring_put(u64* seq, int* slots, u64 mask, u64 ticket, int v) {
    volatile u64* s = seq + (ticket & mask);
    while (*s != ticket) __nanosleep(32);
    ((volatile int*)slots)[ticket & mask] = v;
    __threadfence();
    *s = ticket + 1;
}

__device__ int ring_take(u64* seq, const int* slots, u64 mask, u64 ticket) {
    volatile u64* s = seq + (ticket & mask);
    while (*s != ticket + 1) __nanosleep(32);
    __threadfence();
    const int v = ((const volatile int*)slots)[ticket & mask];
    __threadfence();
    *s = ticket + mask + 1;
    return v;
}

// Reserve up to `want` filled tickets; returns how many (0 when the ring is empty).
__device__ int ring_claim(u64* ctl, int want, u64* first) {
    volatile u64* c = ctl;
    for (;;) {
        const u64 head = c[0], tail = c[1];  // tail is read second and only grows: head <= tail
        if (head >= tail) return 0;
        const u64 k = min((u64)want, tail - head);
        if (atomicCAS(ctl, head, head + k) == head) {
            *first = head;
            return (int)k;
        }
    }
}

// ---------------------------------------------------------------------------- the kernel
template <typename T>
__device__ __forceinline__ void push(int u, int* nxt, int* n_nxt, int* pending, u64* ctl, u64* seq,
                                     int* slots, u64 mask, u64& spilled) {
    const int slot = atomicAdd(n_nxt, 1);
    if (slot < WL_LOCAL) {
        nxt[slot] = u;
        return;
    }
    atomicAdd(pending, 1);  // counted before any other block can see it
    __threadfence();
    ring_put(seq, slots, mask, atomicAdd(ctl + 1, 1ull), u);
    ++spilled;
}

// Lower key[u] to cand (when it is strictly smaller); true when this call enqueued u.
template <typename T, typename K = typename wl_key<T>::K>
__device__ __forceinline__ bool lower(K* key, int u, K ck, K seen, u64& updates) {
    while ((ck | (K)1) < seen) {
        const K prev = atomicCAS(key + u, seen, ck);
        if (prev == seen) {
            ++updates;
            return seen & (K)1;
        }
        seen = prev;
    }
    return false;
}

template <typename T, typename K = typename wl_key<T>::K>
__device__ void wl_sssp(const int* __restrict__ indptr, const int* __restrict__ indices,
                        const T* __restrict__ weights, K* key, T* dist, u64* ctl, int* pending,
                        u64* seq, int* slots, u64 mask, u64* stats, int n, int source, int keep, int grab,
                        int chain) {
    __shared__ int cur[WL_THREADS];
    __shared__ int nxt[WL_LOCAL];
    __shared__ int n_cur, n_nxt, n_keep, n_spill, n_grab, done;
    __shared__ u64 spill_at, grab_at;
    __shared__ u64 totals[5];
    const int tid = threadIdx.x;
    if (tid == 0) {
        n_cur = blockIdx.x == 0;
        cur[0] = source;
        n_nxt = 0;
        done = 0;
    }
    if (tid < 5) totals[tid] = 0;
    __syncthreads();
    u64 pops = 0, arcs = 0, updates = 0, spilled = 0, rounds = 0;
    for (;;) {
        u64 ring_head = 0, ring_tail = 0;  // read now, used after the round: off the critical path
        if (tid == 0) {
            ring_head = ((volatile u64*)ctl)[0];
            ring_tail = ((volatile u64*)ctl)[1];
        }
        if (tid < n_cur) {
            int v = cur[tid];
            for (int hop = 1;; ++hop) {  // a thread follows the first child it queued, up to `chain` hops
                const int beg = indptr[v], end = indptr[v + 1];
                const T d = wl_key<T>::decode(atomicOr(key + v, (K)1));
                ++pops;
                arcs += end - beg;
                int next = -1;
                for (int e0 = beg; e0 < end; e0 += WL_BATCH) {
                    int u[WL_BATCH];
                    K ck[WL_BATCH], seen[WL_BATCH];
                    bool live[WL_BATCH];
#pragma unroll
                    for (int j = 0; j < WL_BATCH; ++j) {
                        live[j] = e0 + j < end;
                        u[j] = live[j] ? indices[e0 + j] : 0;
                        const T cand = d + (live[j] ? weights[e0 + j] : T(0));
                        live[j] = live[j] && cand < dist_inf<T>();
                        ck[j] = wl_key<T>::encode(cand);
                    }
#pragma unroll
                    for (int j = 0; j < WL_BATCH; ++j) seen[j] = live[j] ? load_fresh(key + u[j]) : (K)0;
                    K prev[WL_BATCH];
#pragma unroll
                    for (int j = 0; j < WL_BATCH; ++j) {  // every CAS in flight before any result is used
                        live[j] = live[j] && (ck[j] | (K)1) < seen[j];
                        prev[j] = live[j] ? atomicCAS(key + u[j], seen[j], ck[j]) : (K)0;
                    }
#pragma unroll
                    for (int j = 0; j < WL_BATCH; ++j) {
                        if (!live[j]) continue;
                        bool queue_it;
                        if (prev[j] == seen[j]) {
                            ++updates;
                            queue_it = seen[j] & (K)1;
                        } else {
                            queue_it = lower<T>(key, u[j], ck[j], prev[j], updates);
                        }
                        if (!queue_it) continue;
                        // the child this thread keeps replaces v in flight: `pending` is unchanged
                        if (next < 0 && hop < chain) next = u[j];
                        else push<T>(u[j], nxt, &n_nxt, pending, ctl, seq, slots, mask, spilled);
                    }
                }
                if (next < 0) break;
                v = next;
            }
        }
        __syncthreads();
        if (tid == 0) {
            ++rounds;
            const int local = min(n_nxt, WL_LOCAL);
            const int net = local - n_cur;  // this round's local children minus the items it finished
            if (net) atomicAdd(pending, net);
            n_keep = min(local, keep);
            n_spill = local - n_keep;
            if (n_spill) {
                __threadfence();
                spill_at = atomicAdd(ctl + 1, (u64)n_spill);
            }
        }
        __syncthreads();
        for (int i = tid; i < n_spill; i += blockDim.x) ring_put(seq, slots, mask, spill_at + i, nxt[n_keep + i]);
        if (tid < n_keep) cur[tid] = nxt[tid];
        spilled += tid == 0 ? n_spill : 0;
        __syncthreads();
        if (tid == 0) {
            n_cur = n_keep;
            n_nxt = 0;
            n_grab = 0;
            // a busy block looks at the ring only when it held items at the start of the round
            const int want = n_cur && ring_tail <= ring_head ? 0 : min(grab, WL_THREADS - n_cur);
            for (unsigned polls = 0;; ++polls) {
                u64 first = 0;
                const int k = want > 0 ? ring_claim(ctl, want, &first) : 0;
                if (k) {
                    n_grab = k;
                    grab_at = first;
                    break;
                }
                if (n_cur) break;
                if (*(volatile int*)pending == 0) {
                    done = 1;
                    break;
                }
                if (polls == WL_STALL_POLLS) {  // seconds without work: a bug, not a slow graph
                    atomicExch(stats + 5, 1ull);
                    done = 1;
                    break;
                }
                __nanosleep(200);  // idle blocks poll gently: the ring's counters are hot
            }
        }
        __syncthreads();
        if (done) break;
        if (tid < n_grab) cur[n_cur + tid] = ring_take(seq, slots, mask, grab_at + tid);
        __syncthreads();
        if (tid == 0) n_cur += n_grab;
        __syncthreads();
    }
    // pending == 0: every distance is final
    for (long long v = (long long)blockIdx.x * blockDim.x + tid; v < n; v += (long long)gridDim.x * blockDim.x)
        dist[v] = wl_key<T>::decode(load_fresh(key + v));
    atomicAdd(totals + 0, pops);
    atomicAdd(totals + 1, arcs);
    atomicAdd(totals + 2, updates);
    atomicAdd(totals + 3, spilled);
    __syncthreads();
    if (tid < 4 && totals[tid]) atomicAdd(stats + tid, totals[tid]);
    if (tid == 0) atomicMax(stats + 4, rounds);
}

// pred[v] = the smallest in-neighbour u with d[u] + w(u, v) == d[v]; -1 for the source and
// unreachable vertices (a tree when every weight is positive).
template <typename T>
__device__ void wl_pred(const int* __restrict__ rindptr, const int* __restrict__ rindices,
                        const T* __restrict__ rweights, const T* __restrict__ d, int* pred, int n, int source) {
    const long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    const T dv = d[v];
    int best = WL_NO_PRED;
    if (v != source && dv < dist_inf<T>()) {
        const int end = rindptr[v + 1];
        for (int e = rindptr[v]; e < end; ++e) {
            const int u = rindices[e];
            if (d[u] + rweights[e] == dv) best = min(best, u);
        }
    }
    pred[v] = best == WL_NO_PRED ? -1 : best;
}

#define WL_KERNELS(SFX, T)                                                                                  \
    extern "C" __global__ void __launch_bounds__(WL_THREADS)                                                \
        wl_sssp_##SFX(const int* indptr, const int* indices, const T* weights, wl_key<T>::K* key, T* dist,      \
                      u64* ctl, int* pending, u64* seq, int* slots, u64 mask, u64* stats, int n, int source, \
                      int keep, int grab, int chain) {                                                      \
        wl_sssp<T>(indptr, indices, weights, key, dist, ctl, pending, seq, slots, mask, stats, n, source,   \
                   keep, grab, chain);                                                                      \
    }                                                                                                       \
    extern "C" __global__ void wl_pred_##SFX(const int* rindptr, const int* rindices, const T* rweights,    \
                                             const T* d, int* pred, int n, int source) {                     \
        wl_pred<T>(rindptr, rindices, rweights, d, pred, n, source);                                        \
    }

WL_KERNELS(i32, int)
WL_KERNELS(f32, float)
WL_KERNELS(f64, double)
