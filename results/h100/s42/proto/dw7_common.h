// Helpers shared by the session-42 prototypes of this folder (dw7_mma.cu, dw7_wgrad_mma.cu):
// bf16 bits, the byte permutes that pair two pixels' channels, mma.sync / cp.async (or their
// host-shim stand-ins under DW7_HOST), and the GPU timing loop. Not product code.
#pragma once
#ifdef DW7_HOST
#include "host_shim.h"
#elif !defined(__CUDACC_RTC__)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#endif

typedef unsigned int u32;
typedef unsigned short bf16;
__host__ __device__ inline float b2f(bf16 v) {
  union { unsigned int u; float f; } c;
  c.u = (unsigned int)v << 16;
  return c.f;
}
__host__ __device__ inline bf16 f2b(float f) {
  union { unsigned int u; float f; } c;
  c.f = f;
  return (bf16)((c.u + 0x7FFFu + ((c.u >> 16) & 1u)) >> 16);
}
// The low (high) 16 bits of a and of b as one word, a's in the low half: one PRMT each on the
// GPU (written as shifts and masks, nvcc made two instructions of each).
#if defined(DW7_HOST)
__device__ __forceinline__ u32 lo_pair(u32 a, u32 b) { return (a & 0xffffu) | (b << 16); }
__device__ __forceinline__ u32 hi_pair(u32 a, u32 b) { return (a >> 16) | (b & 0xffff0000u); }
#else
__device__ __forceinline__ u32 lo_pair(u32 a, u32 b) { return __byte_perm(a, b, 0x5410); }
__device__ __forceinline__ u32 hi_pair(u32 a, u32 b) { return __byte_perm(a, b, 0x7632); }
#endif

#ifdef DW7_HOST
__device__ __forceinline__ u32 smem_addr(const void* p) { return gconv_host_smem_offset(p); }
__device__ __forceinline__ void mma16816(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  gconv_host_mma16816(d, a, b0, b1, true);
}
__device__ __forceinline__ void cp16(u32 dst, const void* src, bool ok) { gconv_host_cp_async(dst, src, 16, ok); }
__device__ __forceinline__ void cp_commit() { gconv_host_cp_commit(); }
__device__ __forceinline__ void cp_wait0() { gconv_host_cp_wait(0); }
__device__ __forceinline__ void cp_wait1() { gconv_host_cp_wait(1); }
__device__ __forceinline__ u32 pack_bf16(float lo, float hi) { return (u32)f2b(lo) | ((u32)f2b(hi) << 16); }
#else
__device__ __forceinline__ u32 smem_addr(const void* p) { return (u32)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mma16816(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void cp16(u32 dst, const void* src, bool ok) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(ok ? 16 : 0));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void cp_wait0() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }
__device__ __forceinline__ void cp_wait1() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }
// Two f32 to bf16 (round to nearest even) in one instruction (call 4: the software rounding
// of the forward epilogue was a good part of its LOP3 and IMAD).
__device__ __forceinline__ u32 pack_bf16(float lo, float hi) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
#endif

constexpr int F = 7, PAD = 3;

#if !defined(DW7_HOST) && !defined(__CUDACC_RTC__)
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

// `launch` (one convolution: its kernels back to back) timed with CUDA events after 5
// warm-up runs: 9 rounds of 20, the per-convolution times of the rounds, sorted.
template <class L>
std::vector<float> time_rounds(L launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 5; ++i) launch();
  std::vector<float> t;
  for (int r = 0; r < 9; ++r) {
    CK(cudaEventRecord(a));
    for (int i = 0; i < 20; ++i) launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000.f / 20);
  }
  std::sort(t.begin(), t.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return t;
}
#endif
