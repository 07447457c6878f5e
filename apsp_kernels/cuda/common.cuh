// Shared definitions for every kernel of apsp_kernels (see apsp_kernels/inf.py).
// Kernels are extern "C"; dtype variants are stamped out with macros so that the
// offline NVRTC check compiles every one of them.
#pragma once

#define APSP_INF_I32 0x3FFFFFFF  // 2^30 - 1: INF + INF and INF + w never overflow int32
#define APSP_INF_F32 __int_as_float(0x7f800000)

template <typename T> struct dist_traits;
template <> struct dist_traits<int> {
    static __device__ __forceinline__ int inf() { return APSP_INF_I32; }
    // min(c, a + b); __viaddmin_s32 is a single DPX instruction on sm_90, emulated below it
    static __device__ __forceinline__ int add_min(int a, int b, int c) { return __viaddmin_s32(a, b, c); }
};
template <> struct dist_traits<float> {
    static __device__ __forceinline__ float inf() { return APSP_INF_F32; }
    static __device__ __forceinline__ float add_min(float a, float b, float c) { return fminf(a + b, c); }
};

template <typename T> __device__ __forceinline__ T dist_inf() { return dist_traits<T>::inf(); }
template <typename T> __device__ __forceinline__ T add_min(T a, T b, T c) { return dist_traits<T>::add_min(a, b, c); }

// Float atomicMin for non-negative floats and +inf (int ordering of IEEE bits holds there).
__device__ __forceinline__ float atomic_min_dist(float* addr, float v) {
    return __int_as_float(atomicMin(reinterpret_cast<int*>(addr), __float_as_int(v)));
}
__device__ __forceinline__ int atomic_min_dist(int* addr, int v) { return atomicMin(addr, v); }
