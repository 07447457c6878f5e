// Blocked Floyd-Warshall with three kernels per round Z (Takafuji et al. Sec. III, after Lund &
// Smith): A updates the pivot tile (Z,Z), B the 2(N-1) row and column pivot tiles, C the
// (N-1)^2 other tiles; N = n_pad / 32 tiles per side. One block of T threads per tile; the
// pivot data sit in shared memory, the block's own tile in registers (round_tiles.cuh; C
// tiles in the register micro-tile layout, B tiles in register chains without barriers,
// the A tile in the strip layout).
// Bulk (Sec. V): gridDim.z = m instances of one (m, n_pad, n_pad) array, instance stride ld^2.
//
// Grids: A (1, 1, m); B (N-1, 2, m), y = 0 column pivot tiles (I, Z), y = 1 row pivot tiles
// (Z, J); C (N-1, N-1, m) with x -> J, y -> I. Index x < N-1 maps to tile x + (x >= Z),
// skipping the pivot.
// via may be null unless the _paths variant is launched.
#include "../blocked_fw/round_tiles.cuh"

using namespace bfw;

template <int T, bool PATHS>
__device__ __forceinline__ void round_a(float* d, int* via, int ld, int Z) {
    __shared__ Tile S;
    const long long inst = (long long)blockIdx.z * ld * ld;
    const long long off = inst + tile_offset(Z, Z, ld);
    float acc[Layout<T>::E];
    int v[Layout<T>::E];
    clear_via<T>(v);
    load_regs<T>(d + off, ld, acc);
    regs_to_shared<T>(acc, S);
    update_dependent<T, PATHS>(acc, v, S, S, S, Z * W);
    store_regs<T>(d + off, ld, acc);
    if (PATHS) store_via<T>(via + off, ld, v);
}

// Row / column pivot tile: register chains (round_tiles.cuh, update_chain), one barrier.
template <int T, bool PATHS, bool ROW>
__device__ __forceinline__ void round_b_tile(float* d, int* via, int ld, int Z, long long inst, int x,
                                             PaddedTile& P) {
    const long long off = inst + (ROW ? tile_offset(Z, x, ld) : tile_offset(x, Z, ld));
    float acc[Layout<T>::E];
    int v[Layout<T>::E];
    clear_via<T>(v);
    load_chain<T, ROW>(d + off, ld, acc);
    load_pivot_operand<T, ROW>(d + inst + tile_offset(Z, Z, ld), ld, P);
    __syncthreads();
    update_chain<T, PATHS, ROW>(acc, v, P, Z * W);
    store_chain<T, ROW>(d + off, ld, acc);
    if (PATHS) store_via_chain<T, ROW>(via + off, ld, v);
}

template <int T, bool PATHS>
__device__ __forceinline__ void round_b(float* d, int* via, int ld, int Z) {
    __shared__ __align__(16) PaddedTile P;
    const long long inst = (long long)blockIdx.z * ld * ld;
    const int x = blockIdx.x + (blockIdx.x >= (unsigned)Z);
    if (blockIdx.y == 0) round_b_tile<T, PATHS, false>(d, via, ld, Z, inst, x, P);  // column pivot tile (x, Z)
    else round_b_tile<T, PATHS, true>(d, via, ld, Z, inst, x, P);                   // row pivot tile (Z, x)
}

template <int T, bool PATHS>
__device__ __forceinline__ void round_c(float* d, int* via, int ld, int Z) {
    __shared__ __align__(16) PaddedTile A;
    __shared__ __align__(16) Tile B;
    const long long inst = (long long)blockIdx.z * ld * ld;
    // x runs along a tile row: blocks that run together read whole matrix rows (DRAM pages)
    const int I = blockIdx.y + (blockIdx.y >= (unsigned)Z);
    const int J = blockIdx.x + (blockIdx.x >= (unsigned)Z);
    const long long off = inst + tile_offset(I, J, ld);
    float acc[Layout<T>::E];
    int v[Layout<T>::E];
    clear_via<T>(v);
    load_micro<T>(d + off, ld, acc);  // first: the own tile usually comes from DRAM
    load_operands_micro<T>(d + inst + tile_offset(I, Z, ld), d + inst + tile_offset(Z, J, ld), ld, A, B);
    __syncthreads();
    update_independent<T, PATHS>(acc, v, A, B, Z * W);
    store_micro<T>(d + off, ld, acc);
    if (PATHS) store_via_micro<T>(via + off, ld, v);
}

// Blocks per SM asked of ptxas for the C kernels (__launch_bounds__ min blocks): the register
// cap it implies (T=128: 40, T=256: 32) costs no spill and no extra instruction (checked
// with ptxas -v / nvdisasm) and raises occupancy, which hides the tile loads of other blocks.
#ifndef BFW_C_MIN_BLOCKS
#define BFW_C_MIN_BLOCKS(TT) ((TT) == 64 ? 16 : (TT) == 128 ? 12 : (TT) == 256 ? 8 : (TT) == 512 ? 4 : 2)
#endif
#ifndef BFW_C_PATHS_MIN_BLOCKS
#define BFW_C_PATHS_MIN_BLOCKS(TT) ((TT) == 64 ? 12 : (TT) == 128 ? 9 : (TT) == 256 ? 8 : (TT) == 512 ? 4 : 2)
#endif

// Same for the B kernels (register chains): without a cap ptxas keeps more operands in
// flight (T=64: 72 registers, paths 128); these caps cost no spill (ptxas -v).
#ifndef BFW_B_MIN_BLOCKS
#define BFW_B_MIN_BLOCKS(TT) ((TT) == 64 ? 16 : (TT) == 128 ? 1 : (TT) == 256 ? 8 : (TT) == 512 ? 4 : 2)
#endif
#ifndef BFW_B_PATHS_MIN_BLOCKS
#define BFW_B_PATHS_MIN_BLOCKS(TT) ((TT) == 64 ? 8 : (TT) == 128 ? 1 : (TT) == 256 ? 6 : (TT) == 512 ? 4 : 2)
#endif

#define FW_ROUND_KERNELS(TT)                                                                         \
    extern "C" __global__ void __launch_bounds__(TT) fw_round_a_t##TT(float* d, int* via, int ld, int Z) { \
        round_a<TT, false>(d, via, ld, Z); }                                                         \
    extern "C" __global__ void __launch_bounds__(TT, BFW_B_MIN_BLOCKS(TT)) fw_round_b_t##TT(float* d, int* via, int ld, int Z) { \
        round_b<TT, false>(d, via, ld, Z); }                                                         \
    extern "C" __global__ void __launch_bounds__(TT, BFW_C_MIN_BLOCKS(TT)) fw_round_c_t##TT(float* d, int* via, int ld, int Z) { \
        round_c<TT, false>(d, via, ld, Z); }                                                         \
    extern "C" __global__ void __launch_bounds__(TT) fw_round_a_paths_t##TT(float* d, int* via, int ld, int Z) { \
        round_a<TT, true>(d, via, ld, Z); }                                                          \
    extern "C" __global__ void __launch_bounds__(TT, BFW_B_PATHS_MIN_BLOCKS(TT)) fw_round_b_paths_t##TT(float* d, int* via, int ld, int Z) { \
        round_b<TT, true>(d, via, ld, Z); }                                                          \
    extern "C" __global__ void __launch_bounds__(TT, BFW_C_PATHS_MIN_BLOCKS(TT)) fw_round_c_paths_t##TT(float* d, int* via, int ld, int Z) { \
        round_c<TT, true>(d, via, ld, Z); }

FW_ROUND_KERNELS(64)
FW_ROUND_KERNELS(128)
FW_ROUND_KERNELS(256)
FW_ROUND_KERNELS(512)
FW_ROUND_KERNELS(1024)
