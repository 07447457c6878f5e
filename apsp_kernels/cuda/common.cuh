// Shared definitions for every kernel of apsp_kernels (see apsp_kernels/inf.py).
// Kernels are extern "C"; dtype variants are stamped out with macros (suffix _i32, _f32, _f64)
// so that the offline NVRTC check compiles every one of them.
#pragma once

#define APSP_INF_I32 0x3FFFFFFF  // 2^30 - 1: INF + INF and INF + w never overflow int32
#define APSP_INF_F32 __int_as_float(0x7f800000)
#define APSP_INF_F64 __longlong_as_double(0x7ff0000000000000LL)

// Four doubles read or written as two 16-byte accesses (CUDA 13 deprecates double4).
struct __align__(16) apsp_double4 { double x, y, z, w; };
struct __align__(16) apsp_double2 { double x, y; };

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
template <> struct dist_traits<double> {
    static __device__ __forceinline__ double inf() { return APSP_INF_F64; }
    // DADD + DMNMX; __dadd_rn keeps the compiler from contracting anything into an FMA
    static __device__ __forceinline__ double add_min(double a, double b, double c) { return fmin(__dadd_rn(a, b), c); }
};

template <typename T> __device__ __forceinline__ T dist_inf() { return dist_traits<T>::inf(); }
template <typename T> __device__ __forceinline__ T add_min(T a, T b, T c) { return dist_traits<T>::add_min(a, b, c); }

// Float atomicMin for non-negative floats and +inf (int ordering of IEEE bits holds there).
__device__ __forceinline__ float atomic_min_dist(float* addr, float v) {
    return __int_as_float(atomicMin(reinterpret_cast<int*>(addr), __float_as_int(v)));
}
// The same for doubles: non-negative doubles and +inf order as their 64-bit patterns.
__device__ __forceinline__ double atomic_min_dist(double* addr, double v) {
    return __longlong_as_double((long long)atomicMin(reinterpret_cast<unsigned long long*>(addr),
                                                     (unsigned long long)__double_as_longlong(v)));
}
__device__ __forceinline__ int atomic_min_dist(int* addr, int v) { return atomicMin(addr, v); }

// Signed min for any double (negative values too): a CAS loop, for Bellman-Ford.
__device__ __forceinline__ double atomic_min_signed(double* addr, double v) {
    unsigned long long* a = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long old = *a;
    while (v < __longlong_as_double((long long)old)) {
        const unsigned long long seen = atomicCAS(a, old, (unsigned long long)__double_as_longlong(v));
        if (seen == old) break;
        old = seen;
    }
    return __longlong_as_double((long long)old);
}
__device__ __forceinline__ float atomic_min_signed(float* addr, float v) {
    int* a = reinterpret_cast<int*>(addr);
    int old = *a;
    while (v < __int_as_float(old)) {
        const int seen = atomicCAS(a, old, __float_as_int(v));
        if (seen == old) break;
        old = seen;
    }
    return __int_as_float(old);
}
__device__ __forceinline__ int atomic_min_signed(int* addr, int v) { return atomicMin(addr, v); }
