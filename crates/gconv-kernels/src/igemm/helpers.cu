// ---- helpers (header-free: 16-bit types are u16, conversions by inline PTX) ----
typedef unsigned int u32;
typedef unsigned short u16;
struct alignas(16) v16b { u32 x, y, z, w; };
struct alignas(8) v8b { u32 x, y; };
struct alignas(16) f4 { float x, y, z, w; };

#ifndef GCONV_DYNAMIC_SMEM
#define GCONV_DYNAMIC_SMEM(name) extern __shared__ __align__(128) unsigned char name[]
#endif

// XOR swizzle of 16-byte chunks inside each 128-byte line (bits [4,7) ^= bits [7,10)):
// eight consecutive tile rows at the same logical chunk land in eight different bank groups.
__device__ __forceinline__ u32 swz(u32 off) { return off ^ (((off >> 7) & 7u) << 4); }

#ifdef GCONV_HOST_EMULATION
// Host emulation (crates/gconv-kernels/tests/host_shim.h): a cp.async is performed (copy or
// zero fill) when the wait_group that covers it runs, conversions are the shim's bit-exact
// portable versions (smem_u32, ldmatrix and mma.sync: mma_ptx.cu, emitted before this file).
template <int BYTES, bool L1>
__device__ __forceinline__ void cp_async(u32 dst, const void* src, bool pred) {
  gconv_host_cp_async(dst, src, BYTES, pred);
}
__device__ __forceinline__ void cp_async_commit() { gconv_host_cp_commit(); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { gconv_host_cp_wait(N); }
__device__ __forceinline__ u16 to_half_bits(float x) {
  return IS_BF16 ? gconv_host_f32_to_bf16(x) : gconv_host_f32_to_f16(x);
}
__device__ __forceinline__ u32 pack2(float lo, float hi) {
  return (u32)to_half_bits(lo) | ((u32)to_half_bits(hi) << 16);
}
#else
template <int BYTES, bool L1>
__device__ __forceinline__ void cp_async(u32 dst, const void* src, bool pred) {
  const int n = pred ? BYTES : 0;  // src-size 0: the destination is zero-filled
  if constexpr (BYTES == 16 && !L1) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n) : "memory");
  } else if constexpr (BYTES == 16) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n) : "memory");
  } else if constexpr (BYTES == 8) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src), "r"(n) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(n) : "memory");
  }
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

// Two f32 -> packed 16-bit pair (lo at the lower address), round to nearest even.
__device__ __forceinline__ u32 pack2(float lo, float hi) {
  u32 r;
  if constexpr (IS_BF16) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  } else {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  }
  return r;
}
__device__ __forceinline__ u16 to_half_bits(float x) {
  u16 r;
  if constexpr (IS_BF16) {
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(x));
  } else {
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(x));
  }
  return r;
}

#endif

#if GCONV_MATH_WGMMA
typedef unsigned long long u64;
// Shared-memory matrix descriptor of a K-major operand tile in the 128-byte swizzle layout
// (PTX ISA, warpgroup "matrix descriptor"): start address >> 4 in bits 0-13, leading byte
// offset (not used by swizzled K-major layouts; 1) in bits 16-29, stride byte offset between
// 8-row groups (8 rows x 128 bytes = 1024) >> 4 in bits 32-45, base offset 0 (the tiles start
// 1024-byte aligned) in bits 49-51, swizzle mode 1 (128 bytes) in bits 62-63. Advancing the
// start address by 32 bytes steps one k16 slice inside the 64-element row.
__device__ __forceinline__ u64 wg_desc(u32 saddr) {
  return (u64)((saddr & 0x3FFFFu) >> 4) | ((u64)1 << 16) | ((u64)(1024 >> 4) << 32) | ((u64)1 << 62);
}
#ifdef GCONV_HOST_EMULATION
__device__ __forceinline__ void wgmma_fence() {}
__device__ __forceinline__ void wgmma_commit() { gconv_host_wgmma_commit(); }
template <int N>
__device__ __forceinline__ void wgmma_wait() { gconv_host_wgmma_wait(N); }
__device__ __forceinline__ void fence_proxy_async() {}
#else
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Waits until at most N committed wgmma groups of this warpgroup are pending.
template <int N>
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
// cp.async and st.shared write through the generic proxy, wgmma reads through the async proxy.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
#endif
#endif

template <int BYTES>
__device__ __forceinline__ void copy_bytes(void* dst, const void* src) {
  if constexpr (BYTES == 16) {
    *reinterpret_cast<v16b*>(dst) = *reinterpret_cast<const v16b*>(src);
  } else if constexpr (BYTES == 8) {
    *reinterpret_cast<v8b*>(dst) = *reinterpret_cast<const v8b*>(src);
  } else if constexpr (BYTES == 4) {
    *reinterpret_cast<u32*>(dst) = *reinterpret_cast<const u32*>(src);
  } else {
    *reinterpret_cast<u16*>(dst) = *reinterpret_cast<const u16*>(src);
  }
}

