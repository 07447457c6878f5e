// Blocked Floyd-Warshall in ONE persistent kernel (Takafuji, Nakano, Ito, Sec. IV; bulk Sec. V).
//
// Tasks. A task is one tile update of one round Z of one instance; there are m * N^3 of them
// (N = n_pad / 32 tiles per side). Task id t = Z * (m N^2) + r, and order[r] gives the tile of
// the r-th task of every round as offsets (inst, a, b) from the pivot: tile (I, J) =
// ((Z + a) mod N, (Z + b) mod N), packed as inst * N^2 + a * N + b (task_schedule.task_order:
// all pivot tiles, then the row/column pivot tiles, then the other tiles in "hooks" that put
// next round's pivot row and column first; instances interleaved, Fig. 3 and Fig. 4).
// A block's thread 0 takes ids t = atomicAdd(counter, 1) one task ahead: when it starts task
// t it already takes the id t' > t of its next task (so the atomic's latency overlaps task t).
// Thread 0 alone decodes t and waits for its dependencies, one barrier hands the task to the
// block, the block computes and publishes; it exits at t >= m N^3 (t' is then dropped).
//
// Flags (per instance and tile, in global memory, zeroed before the launch):
//   done[tile]  = number of rounds the tile has completed (its value is version done[tile]).
//   reads[tile] = number of tasks that have finished loading the tile as a pivot operand.
// Task (I, J, Z) waits, before loading anything, until
//   (1) done[I,J] >= Z                       its own round Z-1 update is stored;
//   (2) reads[I,J] >= (N-1)([I<Z] + [J<Z])   every reader of its older versions has loaded
//       them. (I,J) is an operand in round I (row pivot tile, or pivot tile when I = J) and in
//       round J (column pivot tile): N-1 readers each time (2(N-1) for the pivot tile).
//       Without (2) there is a write-after-read race: in round Z+1 the tile (Z, J) (now an
//       ordinary tile) may be overwritten while a slow round-Z task (x, J) has not yet copied
//       it; nothing else orders those two tasks (the round Z+1 chain only passes through
//       (Z+1, J) and (Z, Z+1)), see task_schedule.simulate for a schedule that hits it;
//   (3) row/column pivot tile: done[Z,Z] >= Z+1;
//   (4) other tile: done[I,Z] >= Z+1 and done[Z,J] >= Z+1.
// Operand versions are then exact: (I,Z) cannot be past version Z+1 because its next update
// waits (2) for this task's read. After loading its operands into shared memory a task
// increments reads[] of each operand; after storing its tile it sets done[I,J] = Z+1.
//
// Memory ordering (PTX model, no libcu++ needed): publishing is "all threads store;
// __syncthreads(); thread 32: fence.acq_rel.gpu; atomic store of the flag" (a release pattern,
// made to cover the other threads' stores by the barrier and fence cumulativity, as
// cooperative groups' grid sync does); waiting is "thread 0: volatile (relaxed) loads until
// satisfied; fence.acq_rel.gpu; __syncthreads()" (an acquire pattern). The same pair orders
// "operands loaded -> reads[] increment" against "reads[] observed -> overwrite". Tile data
// are read and written with ld.cg / st.cg (L2), so no stale L1 line is ever used.
// (fence.acq_rel is what these patterns need; __threadfence() would be the stronger fence.sc.)
// The flag is published by thread 32 (warp 1) so that thread 0 can already poll the next
// task's flags meanwhile; thread 32 reaches the next task's barrier only after its atomic
// store, so no store of the next task precedes the publication in its program order, and
// a next task waiting on this very flag simply spins until thread 32 has set it.
//
// Progress for every grid size B >= 1. Every wait of task t is for a task with a smaller id:
// own previous round and all readers of older versions belong to earlier rounds; within a
// round the pivot tiles come first and the row/column pivot tiles before the other tiles.
// Ids are handed out in increasing order by the atomic counter, and a block takes an id only
// while it is running; it holds at most one started task t and one id t' taken in advance,
// and t' > t (taken later from the same counter). Let s be the smallest unfinished id. If
// s is a started task, its dependencies (all < s) are finished, so it completes. If s is an
// id taken in advance, the block's started task is < s, hence finished, and the block starts
// s next. Either way s completes; by induction all do. Blocks that are not resident hold no
// id and wait for nothing; when they start after others exit they take ids >= m N^3 (or the
// next free ids) and proceed. A spinning block never blocks a resident block (it only polls
// L2). B above the number of co-resident blocks therefore only adds blocks that exit at
// once; B = 1 runs the tasks in id order. task_schedule.simulate models the same protocol
// (prefetch=True) under adversarial schedules.
//
// Watchdog: a wait that lasts more than spin_limit clock cycles (0: never) sets status[0] = 1;
// every block then stops (spinning blocks poll status too), and the host raises an error
// instead of hanging. Flags and counter are reset by the host before each launch (untimed).
#include "../blocked_fw/round_tiles.cuh"

using namespace bfw;

#ifndef BFW_FENCE  // overridable only to run this file under a CPU emulation
#define BFW_FENCE() asm volatile("fence.acq_rel.gpu;" ::: "memory")
#endif

namespace {

__device__ __forceinline__ int vload(const int* p) { return *reinterpret_cast<const volatile int*>(p); }

// Spin until *flag >= need; false when the run was aborted (by this wait or another block).
__device__ bool spin_ge(const int* flag, int need, int* status, long long spin_limit) {
    if (vload(flag) >= need) return true;
    const long long start = clock64();
    for (;;) {
        __nanosleep(32);
        if (vload(flag) >= need) return true;
        if (vload(status) != 0) return false;
        if (spin_limit > 0 && clock64() - start > spin_limit) {
            atomicCAS(status, 0, 1);
            return false;
        }
    }
}

// Thread 0: all four flags are loaded at once first (one L2 round trip when already met).
__device__ bool wait_all(const int* f0, int n0, const int* f1, int n1, const int* f2, int n2,
                         const int* f3, int n3, int* status, long long spin_limit) {
    const int v0 = vload(f0), v1 = vload(f1), v2 = vload(f2), v3 = vload(f3);
    bool ok = true;
    if (v0 < n0) ok = ok && spin_ge(f0, n0, status, spin_limit);
    if (v1 < n1) ok = ok && spin_ge(f1, n1, status, spin_limit);
    if (v2 < n2) ok = ok && spin_ge(f2, n2, status, spin_limit);
    if (v3 < n3) ok = ok && spin_ge(f3, n3, status, spin_limit);
    BFW_FENCE();
    return ok;
}

}  // namespace

template <int T, bool PATHS>
__device__ __forceinline__ void single_kernel(float* d, int* via, const int* order,
                                              unsigned long long* counter, int* done, int* reads,
                                              int* status, int ld, int N, int m, long long spin_limit) {
    __shared__ __align__(16) float S0[W * AP];  // A operand (padded) or the own tile (Tile view)
    __shared__ __align__(16) Tile S1;
    Tile& S0t = *reinterpret_cast<Tile*>(S0);
    PaddedTile& S0p = *reinterpret_cast<PaddedTile*>(S0);
    __shared__ int s_task[5];  // Z, inst, I, J, role of the block's task; s_go = 0: exit
    __shared__ int s_go;
    const long long tiles = (long long)N * N;
    const long long per_round = (long long)m * tiles;
    const long long total = per_round * N;
    const long long stride = (long long)ld * ld;
    // Thread 0 runs the protocol: it holds the id of the next task, taken in advance (the
    // atomic's latency then overlaps the current task), decodes the task and waits for it
    // alone; one barrier hands the task to the block.
    long long next = 0;
    if (threadIdx.x == 0) next = (long long)atomicAdd(counter, 1ULL);

    for (;;) {
        if (threadIdx.x == 0) {
            long long t = next;
            if (vload(status) != 0) t = total;
            int go = 0;
            if (t < total) {
                next = (long long)atomicAdd(counter, 1ULL);  // > t: ids stay in increasing order
                const int Z = (int)(t / per_round);
                const int code = __ldg(order + (t - (long long)Z * per_round));
                const int inst = code / (int)tiles;
                const int a = (code / N) % N, b = code % N;
                const int I = (Z + a) % N, J = (Z + b) % N;
                const int role = (a == 0 ? 1 : 0) + (b == 0 ? 2 : 0);  // 3 pivot, 1 row, 2 column, 0 other
                const int* dn = done + inst * tiles;
                const int own = I * N + J;
                const int need_reads = (N - 1) * ((I < Z) + (J < Z));
                const int* f2 = dn + own;
                const int* f3 = dn + own;
                int n2 = 0, n3 = 0;
                if (role == 1 || role == 2) { f2 = dn + Z * N + Z; n2 = Z + 1; }
                if (role == 0) { f2 = dn + I * N + Z; n2 = Z + 1; f3 = dn + Z * N + J; n3 = Z + 1; }
                go = wait_all(dn + own, Z, reads + inst * tiles + own, need_reads, f2, n2, f3, n3, status,
                              spin_limit);
                s_task[0] = Z; s_task[1] = inst; s_task[2] = I; s_task[3] = J; s_task[4] = role;
            }
            s_go = go;
        }
        __syncthreads();
        if (!s_go) return;
        const int Z = s_task[0], inst = s_task[1], I = s_task[2], J = s_task[3], role = s_task[4];
        int* const dn = done + inst * tiles;
        int* const rd = reads + inst * tiles;
        float* const base = d + inst * stride;
        const int own = I * N + J;

        const long long off = tile_offset(I, J, ld);
        float acc[Layout<T>::E];
        int v[Layout<T>::E];
        clear_via<T>(v);
        if (role == 0) {  // other tile: micro-tile layout, A padded (round_tiles.cuh)
            load_micro<T>(base + off, ld, acc);
            load_operands_micro<T>(base + tile_offset(I, Z, ld), base + tile_offset(Z, J, ld), ld, S0p, S1);
        } else {
            load_regs<T>(base + off, ld, acc);
            regs_to_shared<T>(acc, S0t);
            if (role != 3) load_shared<T>(base + tile_offset(Z, Z, ld), ld, S1);
        }
        __syncthreads();  // operands are in shared memory: they may be overwritten from now on
        if (threadIdx.x == 0 && role != 3) {
            BFW_FENCE();
            if (role == 0) {
                atomicAdd(rd + I * N + Z, 1);
                atomicAdd(rd + Z * N + J, 1);
            } else {
                atomicAdd(rd + Z * N + Z, 1);
            }
        }
        if (role == 0) {
            update_independent<T, PATHS>(acc, v, S0p, S1, Z * W);
            store_micro<T>(base + off, ld, acc);
            if (PATHS) store_via_micro<T>(via + inst * stride + off, ld, v);
        } else {
            if (role == 3) update_dependent<T, PATHS>(acc, v, S0t, S0t, S0t, Z * W);
            else if (role == 2) update_dependent<T, PATHS>(acc, v, S0t, S0t, S1, Z * W);
            else update_dependent<T, PATHS>(acc, v, S0t, S1, S0t, Z * W);
            store_regs<T>(base + off, ld, acc);
            if (PATHS) store_via<T>(via + inst * stride + off, ld, v);
        }
        __syncthreads();  // every store issued; shared tiles free for the next task
        if (threadIdx.x == 32) {  // warp 1 publishes while thread 0 already waits for the next task
            BFW_FENCE();
            atomicExch(dn + own, Z + 1);
        }
    }
}

// Blocks per SM asked of ptxas (__launch_bounds__ min blocks). The single kernel is bound by
// per-task latency, so resident blocks (tasks in flight) count most; these caps cost no
// spill (ptxas -v): T=128 -> 40 registers (12 blocks/SM), T=256 -> 40 (6), T=512 -> 32 (4).
#ifndef BFW_SINGLE_MIN_BLOCKS
#define BFW_SINGLE_MIN_BLOCKS(TT) ((TT) == 64 ? 16 : (TT) == 128 ? 12 : (TT) == 256 ? 6 : (TT) == 512 ? 4 : 2)
#endif
#ifndef BFW_SINGLE_PATHS_MIN_BLOCKS
#define BFW_SINGLE_PATHS_MIN_BLOCKS(TT) ((TT) == 64 ? 10 : (TT) == 128 ? 8 : (TT) == 256 ? 6 : (TT) == 512 ? 3 : 2)
#endif

#define FW_SINGLE_KERNELS(TT)                                                                      \
    extern "C" __global__ void __launch_bounds__(TT, BFW_SINGLE_MIN_BLOCKS(TT)) fw_single_t##TT(                             \
        float* d, int* via, const int* order, unsigned long long* counter, int* done, int* reads, \
        int* status, int ld, int N, int m, long long spin_limit) {                                \
        single_kernel<TT, false>(d, via, order, counter, done, reads, status, ld, N, m, spin_limit); } \
    extern "C" __global__ void __launch_bounds__(TT, BFW_SINGLE_PATHS_MIN_BLOCKS(TT)) fw_single_paths_t##TT(                       \
        float* d, int* via, const int* order, unsigned long long* counter, int* done, int* reads, \
        int* status, int ld, int N, int m, long long spin_limit) {                                \
        single_kernel<TT, true>(d, via, order, counter, done, reads, status, ld, N, m, spin_limit); }

FW_SINGLE_KERNELS(64)
FW_SINGLE_KERNELS(128)
FW_SINGLE_KERNELS(256)
FW_SINGLE_KERNELS(512)
FW_SINGLE_KERNELS(1024)
