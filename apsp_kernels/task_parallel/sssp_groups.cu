// okuyama's task-parallel SSSP (Fig. 6b-9): a group of W problems (sources) solved at once.
//
// Layout (Fig. 8b): cost C, updated cost U and mask M hold entry (v, j) at v * W + j, so the
// W problems of vertex v are contiguous; W is a multiple of 32. Thread blocks are
// (P, B): threadIdx.x = problem j within a chunk of P problems, threadIdx.y = one of B vertices;
// grid = (ceil(n / B), W / P). A warp therefore holds one vertex and 32 consecutive problems:
// the mask/cost reads and the atomics on U[nbr, j..j+31] are coalesced.
//
// Convergence: as in harish.cu, batch iteration j writes `stamp` into changed[j] when a cost
// decreased, and both kernels of the next iteration return at once when it did not.
#include "common.cuh"

template <typename T>
__device__ __forceinline__ void relax_min(T* target, T cand, int test_first) {
    // U only decreases, so a stale read can only let an unneeded atomic through.
    if (!test_first || cand < *target) atomic_min_dist(target, cand);
}

struct Cell {
    int j;      // problem (column) within the group
    int v;      // vertex
    bool in;    // inside the n x W table
    size_t at;  // v * W + j
};

__device__ __forceinline__ Cell cell_of_thread(int n, int W) {
    Cell c;
    c.j = blockIdx.y * blockDim.x + threadIdx.x;
    c.v = blockIdx.x * blockDim.y + threadIdx.y;
    c.in = c.v < n && c.j < W;
    c.at = (size_t)c.v * W + c.j;
    return c;
}

// C = U = 0 at (s_j, j), INF elsewhere; M marks the sources. sources[j] < 0: unused column.
template <typename T>
__device__ void tp_init(const int* sources, int n, int W, unsigned char* M, T* C, T* U) {
    const Cell c = cell_of_thread(n, W);
    if (!c.in) return;
    const bool src = sources[c.j] == c.v;
    const T d = src ? T(0) : dist_inf<T>();
    C[c.at] = d;
    U[c.at] = d;
    M[c.at] = src;
}

// Scattering with the graph read from global memory by every thread (the warp's loads of
// indptr/indices/weights hit one address and are broadcast).
template <typename T>
__device__ void tp_scatter_unshared(const int* indptr, const int* indices, const T* weights,
                                    unsigned char* M, const T* C, T* U, int n, int W,
                                    const int* prev_changed, int stamp, int test_first) {
    if (prev_changed && *prev_changed != stamp) return;
    const Cell c = cell_of_thread(n, W);
    if (!c.in || !M[c.at]) return;
    M[c.at] = 0;
    const T cost = C[c.at];
    const int end = indptr[c.v + 1];
    for (int e = indptr[c.v]; e < end; ++e)
        relax_min(U + (size_t)indices[e] * W + c.j, cost + weights[e], test_first);
}

// Fig. 9: the P threads of a vertex share one "any of my problems is active" bit and, when it
// is set, copy the vertex's adjacency into shared memory together, P arcs at a time, then each
// active thread relaxes the chunk from shared memory. Chunks make any out-degree work (the
// complete graph has 4676 neighbours while P = 32). Dynamic shared memory: B*P ints + B*P T.
template <typename T>
__device__ void tp_scatter_shared(const int* indptr, const int* indices, const T* weights,
                                  unsigned char* M, const T* C, T* U, int n, int W,
                                  const int* prev_changed, int stamp, int test_first) {
    extern __shared__ int smem[];
    __shared__ int vertex_active[32];  // B <= 32
    __shared__ int block_rounds;
    if (prev_changed && *prev_changed != stamp) return;  // uniform over the block
    const int P = blockDim.x, B = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
    const Cell c = cell_of_thread(n, W);
    const bool active = c.in && M[c.at];
    if (tx == 0) vertex_active[ty] = 0;
    if (tx == 0 && ty == 0) block_rounds = 0;
    if (!__syncthreads_or(active)) return;  // uniform; also orders the zeroing above
    if (active) vertex_active[ty] = 1;
    __syncthreads();
    const bool shared_active = vertex_active[ty] != 0;  // implies c.v < n
    int begin = 0, degree = 0;
    if (shared_active) {
        begin = indptr[c.v];
        degree = indptr[c.v + 1] - begin;
        if (tx == 0) atomicMax(&block_rounds, degree);
    }
    T cost = T(0);
    if (active) {
        M[c.at] = 0;
        cost = C[c.at];
    }
    __syncthreads();
    const int rounds = block_rounds;  // max degree over the block's active vertices
    int* arcs = smem + ty * P;
    T* arc_weights = reinterpret_cast<T*>(smem + B * P) + ty * P;
    for (int base = 0; base < rounds; base += P) {
        const int k = base + tx;
        if (shared_active && k < degree) {
            arcs[tx] = indices[begin + k];
            arc_weights[tx] = weights[begin + k];
        }
        __syncthreads();
        if (active) {
            const int count = min(P, degree - base);
            for (int i = 0; i < count; ++i)
                relax_min(U + (size_t)arcs[i] * W + c.j, cost + arc_weights[i], test_first);
        }
        __syncthreads();  // the next chunk overwrites the shared arrays
    }
}

// Checking kernel, four entries per thread (n * W is a multiple of 4 since W % 32 == 0):
// C <- U where U is smaller, M <- (U < C), and one changed-flag write per block.
template <typename T, typename V4>
__device__ void tp_check(unsigned char* M, T* C, const T* U, long long quads, int* changed,
                         const int* prev_changed, int stamp) {
    if (prev_changed && *prev_changed != stamp) return;  // uniform over the block
    const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    bool decreased = false;
    if (q < quads) {
        const V4 u = reinterpret_cast<const V4*>(U)[q];
        V4 cur = reinterpret_cast<const V4*>(C)[q];
        const uchar4 m = make_uchar4(u.x < cur.x, u.y < cur.y, u.z < cur.z, u.w < cur.w);
        decreased = m.x | m.y | m.z | m.w;
        if (decreased) {
            cur.x = min(cur.x, u.x);
            cur.y = min(cur.y, u.y);
            cur.z = min(cur.z, u.z);
            cur.w = min(cur.w, u.w);
            reinterpret_cast<V4*>(C)[q] = cur;
        }
        reinterpret_cast<uchar4*>(M)[q] = m;
    }
    if (__syncthreads_or(decreased) && threadIdx.x == 0) *changed = stamp;
}

#define TP_KERNELS(SUFFIX, T, V4)                                                                  \
    extern "C" __global__ void tp_init_##SUFFIX(const int* sources, int n, int W,                  \
                                                unsigned char* M, T* C, T* U) {                    \
        tp_init<T>(sources, n, W, M, C, U);                                                        \
    }                                                                                              \
    extern "C" __global__ void tp_scatter_unshared_##SUFFIX(                                       \
        const int* indptr, const int* indices, const T* weights, unsigned char* M, const T* C,     \
        T* U, int n, int W, const int* prev_changed, int stamp, int test_first) {                  \
        tp_scatter_unshared<T>(indptr, indices, weights, M, C, U, n, W, prev_changed, stamp,       \
                               test_first);                                                        \
    }                                                                                              \
    extern "C" __global__ void tp_scatter_shared_##SUFFIX(                                         \
        const int* indptr, const int* indices, const T* weights, unsigned char* M, const T* C,     \
        T* U, int n, int W, const int* prev_changed, int stamp, int test_first) {                  \
        tp_scatter_shared<T>(indptr, indices, weights, M, C, U, n, W, prev_changed, stamp,         \
                             test_first);                                                          \
    }                                                                                              \
    extern "C" __global__ void tp_check_##SUFFIX(unsigned char* M, T* C, const T* U,               \
                                                 long long quads, int* changed,                    \
                                                 const int* prev_changed, int stamp) {             \
        tp_check<T, V4>(M, C, U, quads, changed, prev_changed, stamp);                             \
    }
TP_KERNELS(i32, int, int4)
TP_KERNELS(f32, float, float4)
TP_KERNELS(f64, double, apsp_double4)
