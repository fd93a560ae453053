// ---- prelude: the device helpers every generated kernel shares ----
// Header-free: 16-bit types are u16 (pairs in u32), conversions by inline PTX. Every inline-PTX
// use has a portable alternative under GCONV_HOST_EMULATION (the host emulation harness of
// crates/gconv-kernels/tests/host_emulation.rs compiles the kernels with g++ against
// tests/host_shim.h: shared "addresses" are byte offsets into the block's buffer, a cp.async is
// performed when the wait_group that covers it runs, conversions are bit-exact portable code).
typedef unsigned int u32;
typedef unsigned short u16;
struct alignas(16) v16b { u32 x, y, z, w; };
struct alignas(8) v8b { u32 x, y; };
#ifndef GCONV_HOST_EMULATION
// A TMA tensor map as an entry parameter (`const __grid_constant__ gconv_tmap`): the driver's
// opaque 128-byte CUtensorMap, which the backend encodes at launch (gconv_kernels::TensorMap);
// 128-byte aligned like CUDA 13's CUtensorMap (the copy engine needs at least 64).
struct alignas(128) gconv_tmap { unsigned long long opaque[16]; };
#endif
// Two words of packed 16-bit pairs re-paired: their low halves (a's, then b's) or their high
// halves, e.g. element c of two rows as one word, c even or odd.
__device__ __forceinline__ u32 low_halves(u32 a, u32 b) { return (a & 0xffffu) | (b << 16); }
__device__ __forceinline__ u32 high_halves(u32 a, u32 b) { return (a >> 16) | (b & 0xffff0000u); }

#ifndef GCONV_DYNAMIC_SMEM
#define GCONV_DYNAMIC_SMEM(name) extern __shared__ __align__(128) unsigned char name[]
#endif

#ifdef GCONV_HOST_EMULATION
__device__ __forceinline__ u32 smem_u32(const void* p) { return gconv_host_smem_offset(p); }
__device__ __forceinline__ u32 f32_bits(float f) { return gconv_host_f32_bits(f); }
__device__ __forceinline__ float bits_f32(u32 u) { return gconv_host_bits_f32(u); }
__device__ __forceinline__ float f16_to_f32(u16 h) { return gconv_host_f16_to_f32(h); }
__device__ __forceinline__ u16 f32_to_f16(float f) { return gconv_host_f32_to_f16(f); }
__device__ __forceinline__ u16 f32_to_bf16(float f) { return gconv_host_f32_to_bf16(f); }
template <int BYTES, bool L1>
__device__ __forceinline__ void cp_async(u32 dst, const void* src, bool pred) {
  gconv_host_cp_async(dst, src, BYTES, pred);
}
__device__ __forceinline__ void cp_async_commit() { gconv_host_cp_commit(); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { gconv_host_cp_wait(N); }
#else
// Shared-window address of a generic pointer into shared memory.
__device__ __forceinline__ u32 smem_u32(const void* p) {
  u32 r;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(r) : "l"(p));
  return r;
}
__device__ __forceinline__ u32 f32_bits(float f) {
  u32 u;
  asm("mov.b32 %0, %1;" : "=r"(u) : "f"(f));
  return u;
}
__device__ __forceinline__ float bits_f32(u32 u) {
  float f;
  asm("mov.b32 %0, %1;" : "=f"(f) : "r"(u));
  return f;
}
__device__ __forceinline__ float f16_to_f32(u16 h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ u16 f32_to_f16(float f) {
  u16 r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}
__device__ __forceinline__ u16 f32_to_bf16(float f) {
  u16 r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}
// Copies BYTES (16, 8 or 4) from global to shared memory, or zero-fills them when !pred (the
// ignore-src predicate operand: a predicated copy, where a computed src-size would cost
// address arithmetic per copy). L1: allocate in L1 (`.ca`, for data that neighbouring loads
// re-read); else 16-byte copies bypass it (`.cg`).
template <int BYTES, bool L1>
__device__ __forceinline__ void cp_async(u32 dst, const void* src, bool pred) {
  const u32 skip = pred ? 0u : 1u;
  if constexpr (BYTES == 16 && !L1) {
    asm volatile("{\n.reg .pred q;\nsetp.ne.u32 q, %2, 0;\ncp.async.cg.shared.global [%0], [%1], 16, q;\n}\n" ::"r"(dst),
                 "l"(src), "r"(skip)
                 : "memory");
  } else {
    static_assert(BYTES == 16 || BYTES == 8 || BYTES == 4, "cp.async copies 4, 8 or 16 bytes");
    asm volatile("{\n.reg .pred q;\nsetp.ne.u32 q, %3, 0;\ncp.async.ca.shared.global [%0], [%1], %2, q;\n}\n" ::"r"(dst),
                 "l"(src), "n"(BYTES), "r"(skip)
                 : "memory");
  }
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most N committed groups of this thread's copies are pending.
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
#endif

// f32 -> the problem's 16-bit dtype, round to nearest even.
__device__ __forceinline__ u16 to_half_bits(float x) { return IS_BF16 ? f32_to_bf16(x) : f32_to_f16(x); }
// Two f32 -> a packed 16-bit pair (lo at the lower address): one cvt.rn.*x2 on the GPU.
__device__ __forceinline__ u32 pack2(float lo, float hi) {
#ifdef GCONV_HOST_EMULATION
  return (u32)to_half_bits(lo) | ((u32)to_half_bits(hi) << 16);
#else
  u32 r;
  if constexpr (IS_BF16) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  } else {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  }
  return r;
#endif
}

// f32 add to global memory without a return value (the atomic split-K option).
__device__ __forceinline__ void red_add_f32(float* p, float v) {
#ifdef GCONV_HOST_EMULATION
  gconv_host_red_add_f32(p, v);
#else
  asm volatile("red.global.add.f32 [%0], %1;\n" ::"l"(p), "f"(v) : "memory");
#endif
}

// The same pointer, opaque to the compiler's reassociation: `opaque(base) + i` with a 32-bit i
// becomes one wide multiply-add per use instead of a 64-bit add, sign extension and scale of
// (base offset + i) (the loaders' per-copy addresses off a per-tap base).
template <typename T>
__device__ __forceinline__ const T* opaque(const T* p) {
#ifdef GCONV_HOST_EMULATION
  return p;
#else
  const T* q;
  asm("mov.b64 %0, %1;" : "=l"(q) : "l"(p));
  return q;
#endif
}

#if GCONV_SPLIT_CLUSTER
// Thread-block clusters (sm_90; `SplitKMode::Cluster`): the cluster-wide barrier (every thread
// of every CTA; release/acquire, so shared-memory writes before it are visible to the other
// CTAs' reads after it) and a read of another CTA's shared memory at the address `p` has in
// this CTA's (`mapa` + `ld.shared::cluster`).
__device__ __forceinline__ void cluster_sync() {
#ifdef GCONV_HOST_EMULATION
  gconv_host_cluster_sync();
#else
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ float ld_cluster_f32(const float* p, unsigned rank) {
#ifdef GCONV_HOST_EMULATION
  return gconv_host_cluster_load_f32(p, rank);
#else
  u32 a;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(smem_u32(p)), "r"(rank));
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(a) : "memory");
  return v;
#endif
}
// `N` consecutive floats (N = 1, 2 or 4, `p` N·4-byte aligned) at `p`'s offset in block
// `rank`'s shared memory into `v`: one `mapa`, one (vector) `ld.shared::cluster`.
template <int N>
__device__ __forceinline__ void ld_cluster_f32xn(const float* p, unsigned rank, float* v) {
  static_assert(N == 1 || N == 2 || N == 4, "1, 2 or 4 floats");
#ifdef GCONV_HOST_EMULATION
  for (int e = 0; e < N; ++e) v[e] = gconv_host_cluster_load_f32(p + e, rank);
#else
  u32 a;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(smem_u32(p)), "r"(rank));
  if constexpr (N == 4) {
    asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
                 : "r"(a)
                 : "memory");
  } else if constexpr (N == 2) {
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(v[0]), "=f"(v[1]) : "r"(a) : "memory");
  } else {
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v[0]) : "r"(a) : "memory");
  }
#endif
}
#endif

// Programmatic dependent launch (sm_90, `Launch::overlaps_previous`). A module's launch marked
// so may be scheduled while the launch before it still runs: its entry calls
// `wait_prior_grid()` before it reads anything the previous launch wrote (the instruction
// returns once that grid has completed and its writes are visible). A main kernel calls
// `release_dependents()` as it starts, which lets the next launch's CTAs become resident as
// the last wave drains instead of after it (each CTA's call counts once every CTA of the grid
// has been scheduled). Both are no-ops for launches without the attribute and under host
// emulation, where launches run one after the other.
__device__ __forceinline__ void wait_prior_grid() {
#ifndef GCONV_HOST_EMULATION
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void release_dependents() {
#ifndef GCONV_HOST_EMULATION
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
