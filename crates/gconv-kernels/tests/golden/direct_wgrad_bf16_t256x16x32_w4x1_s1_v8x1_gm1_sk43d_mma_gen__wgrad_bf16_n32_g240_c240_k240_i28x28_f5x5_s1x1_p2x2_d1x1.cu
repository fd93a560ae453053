// gconv direct backward-weight kernel (depthwise, tensor cores, banded dY): generated, do not edit
// kernel:  direct_wgrad_bf16_t256x16x32_w4x1_s1_v8x1_gm1_sk43d_mma_gen
// problem: wgrad_bf16_n32_g240_c240_k240_i28x28_f5x5_s1x1_p2x2_d1x1
// tiles of 8 x 32 outputs, 16 channels per CTA in 4 warps, 4 x 3 mma per channel and tile; 43 slabs of 3 tiles, smem 66176 B
#define ELEM unsigned short
constexpr bool IS_BF16 = true;
#define GCONV_SPLIT_REDUCE 1
#define GCONV_RED_SLICES 32
#define GCONV_SPLIT_ATOMIC 0
constexpr int ESZ = 2;
constexpr int N_ = 32;
constexpr int ID = 1;
constexpr int IH = 28;
constexpr int IW = 28;
constexpr int OD = 1;
constexpr int OH = 28;
constexpr int OW = 28;
constexpr int FZ = 1;
constexpr int FY = 5;
constexpr int FX = 5;
constexpr int SD = 1;
constexpr int SH = 1;
constexpr int SW = 1;
constexpr int PD = 0;
constexpr int PH = 2;
constexpr int PW = 2;
constexpr int DD = 1;
constexpr int DH = 1;
constexpr int DW = 1;
constexpr int G_ = 240;
constexpr int CG = 1;
constexpr int KG = 1;
constexpr int TH = 8;
constexpr int TW = 32;
constexpr int BN = 16;
constexpr int KCH = 3;
constexpr int XRS = 56;
constexpr int DSW = 40;
constexpr int XGS = 32;
constexpr int DGS = 16;
constexpr int DY_OFF = 25152;
constexpr int THREADS = 128;
constexpr int SMEM_BYTES = 66176;
constexpr int SLABS = 43;
constexpr int MIN_CTAS = 3;
constexpr bool PIPE = false;
constexpr int UNITS_PER_SLAB = 3;
constexpr long long RED_PLANE = 6000;
constexpr int RED_SPLIT = 43;

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

// ---- direct helpers (after the shared prelude) ----
// Copy BYTES from global to shared, or zero-fill when !pred: 4/8/16 bytes are L1-allocating
// cp.async (halo pixels are re-read by the neighbouring CTA), 2-byte elements go through
// registers.
template <int BYTES>
__device__ __forceinline__ void copy_to_smem(void* dst, const void* src, bool pred) {
  if constexpr (BYTES == 2) {
    *reinterpret_cast<u16*>(dst) = pred ? *reinterpret_cast<const u16*>(src) : (u16)0;
  } else {
    cp_async<BYTES, true>(smem_u32(dst), src, pred);
  }
}

// The eight 16-bit values of a 16-byte read stored down a column of shared memory: value e
// (little-endian order) at dst[e * stride]. The backward-data weight gathers use it: one read
// of W holds one weight of eight adjacent rows of the dual's weight tile.
// N 16-bit values held as words (value e in the low or high half of w[e / 2]) stored down a
// column: value e at dst[e * stride]. The column stores of store_column8 and copy_column.
template <int N>
__device__ __forceinline__ void store_column(u16* dst, int stride, const u32 (&w)[(N + 1) / 2]) {
#pragma unroll
  for (int e = 0; e < N; ++e) dst[e * stride] = (u16)((w[e / 2] >> (16 * (e % 2))) & 0xffffu);
}

__device__ __forceinline__ void store_column8(u16* dst, int stride, const v16b& v) {
  const u32 w[4] = {v.x, v.y, v.z, v.w};
  store_column<8>(dst, stride, w);
}

// VW (1, 2, 4 or 8) adjacent 16-bit values read at once from src (aligned to VW·2 bytes),
// or zeros when !ok, stored down a column of shared memory: value e at dst[e * stride].
template <int VW>
__device__ __forceinline__ void copy_column(u16* dst, int stride, const u16* src, bool ok) {
  static_assert(VW == 1 || VW == 2 || VW == 4 || VW == 8, "column copies of 1, 2, 4 or 8 values");
  u32 w[(VW + 1) / 2] = {};
  if (ok) {
    if constexpr (VW == 8) {
      const v16b v = *reinterpret_cast<const v16b*>(src);
      w[0] = v.x;
      w[1] = v.y;
      w[2] = v.z;
      w[3] = v.w;
    } else if constexpr (VW == 4) {
      const v8b v = *reinterpret_cast<const v8b*>(src);
      w[0] = v.x;
      w[1] = v.y;
    } else if constexpr (VW == 2) {
      w[0] = *reinterpret_cast<const u32*>(src);
    } else {
      w[0] = *src;
    }
  }
  store_column<VW>(dst, stride, w);
}

// ---- element conversions ----
typedef ELEM elem_t;
__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(u16 v) {
  if constexpr (IS_BF16) {
    return bits_f32((u32)v << 16);
  } else {
    return f16_to_f32(v);
  }
}
__device__ __forceinline__ void from_f32(float v, float& out) { out = v; }
__device__ __forceinline__ void from_f32(float v, u16& out) { out = to_half_bits(v); }

// N elements from shared memory (N·ESZ-byte aligned) widened to f32, in 16/8/4-byte reads.
template <int N>
__device__ __forceinline__ void load_f32(const elem_t* p, float (&out)[N]) {
  constexpr int BYTES = N * ESZ;
  if constexpr (ESZ == 4 && BYTES >= 16) {
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      const v16b v = *reinterpret_cast<const v16b*>(p + i);
      out[i] = bits_f32(v.x);
      out[i + 1] = bits_f32(v.y);
      out[i + 2] = bits_f32(v.z);
      out[i + 3] = bits_f32(v.w);
    }
  } else if constexpr (ESZ == 2 && BYTES >= 16) {
#pragma unroll
    for (int i = 0; i < N; i += 8) {
      const v16b v = *reinterpret_cast<const v16b*>(p + i);
      const u32 w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        out[i + 2 * j] = to_f32((u16)(w[j] & 0xffffu));
        out[i + 2 * j + 1] = to_f32((u16)(w[j] >> 16));
      }
    }
  } else if constexpr (ESZ == 2 && BYTES == 8) {
    const v8b v = *reinterpret_cast<const v8b*>(p);
    out[0] = to_f32((u16)(v.x & 0xffffu));
    out[1] = to_f32((u16)(v.x >> 16));
    out[2] = to_f32((u16)(v.y & 0xffffu));
    out[3] = to_f32((u16)(v.y >> 16));
  } else if constexpr (ESZ == 2 && BYTES == 4) {
    const u32 v = *reinterpret_cast<const u32*>(p);
    out[0] = to_f32((u16)(v & 0xffffu));
    out[1] = to_f32((u16)(v >> 16));
  } else if constexpr (ESZ == 4 && BYTES == 8) {
    const v8b v = *reinterpret_cast<const v8b*>(p);
    out[0] = bits_f32(v.x);
    out[1] = bits_f32(v.y);
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = to_f32(p[i]);
  }
}

// N f32 values from shared memory (16-byte reads when N is a multiple of 4).
template <int N>
__device__ __forceinline__ void load_w(const float* p, float (&out)[N]) {
  if constexpr (N % 4 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      const v16b v = *reinterpret_cast<const v16b*>(p + i);
      out[i] = bits_f32(v.x);
      out[i + 1] = bits_f32(v.y);
      out[i + 2] = bits_f32(v.z);
      out[i + 3] = bits_f32(v.w);
    }
  } else if constexpr (N == 2) {
    const v8b v = *reinterpret_cast<const v8b*>(p);
    out[0] = bits_f32(v.x);
    out[1] = bits_f32(v.y);
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = p[i];
  }
}

// Stores N (= SV) converted values to global memory in one access of N·ESZ bytes.
template <int N>
__device__ __forceinline__ void store_out(elem_t* dst, const float* v) {
  if constexpr (ESZ == 4 && N == 4) {
    v16b o;
    o.x = f32_bits(v[0]);
    o.y = f32_bits(v[1]);
    o.z = f32_bits(v[2]);
    o.w = f32_bits(v[3]);
    *reinterpret_cast<v16b*>(dst) = o;
  } else if constexpr (ESZ == 4 && N == 2) {
    v8b o;
    o.x = f32_bits(v[0]);
    o.y = f32_bits(v[1]);
    *reinterpret_cast<v8b*>(dst) = o;
  } else if constexpr (ESZ == 2 && N == 8) {
    v16b o;
    o.x = pack2(v[0], v[1]);
    o.y = pack2(v[2], v[3]);
    o.z = pack2(v[4], v[5]);
    o.w = pack2(v[6], v[7]);
    *reinterpret_cast<v16b*>(dst) = o;
  } else if constexpr (ESZ == 2 && N == 4) {
    v8b o;
    o.x = pack2(v[0], v[1]);
    o.y = pack2(v[2], v[3]);
    *reinterpret_cast<v8b*>(dst) = o;
  } else if constexpr (ESZ == 2 && N == 2) {
    *reinterpret_cast<u32*>(dst) = pack2(v[0], v[1]);
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) from_f32(v[i], dst[i]);
  }
}


// ---- tensor-core PTX helpers shared by the igemm and direct (mma) kernels (after the prelude) ----
// Every inline-PTX use has a portable alternative under GCONV_HOST_EMULATION (the shim of
// crates/gconv-kernels/tests/host_shim.h: shared "addresses" are byte offsets into the block's
// buffer, ldmatrix and mma.sync are warp collectives).
#ifdef GCONV_HOST_EMULATION
__device__ __forceinline__ void ldsm_x4(u32 (&r)[4], u32 addr) { gconv_host_ldmatrix_x4(r, addr); }
__device__ __forceinline__ void ldsm_x2(u32 (&r)[2], u32 addr) { gconv_host_ldmatrix_x2(r, addr); }
__device__ __forceinline__ void ldsm_x1(u32& r, u32 addr) { gconv_host_ldmatrix_x1(r, addr); }
__device__ __forceinline__ void ldsm_x4_trans(u32 (&r)[4], u32 addr) { gconv_host_ldmatrix_x4_trans(r, addr); }
__device__ __forceinline__ void mma16816(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  gconv_host_mma16816(d, a, b0, b1, IS_BF16);
}
// m16n8k8 is the first k half of m16n8k16 (the same fragment layout), so the shim runs it as
// an m16n8k16 whose second half is zero.
__device__ __forceinline__ void mma1688(float (&d)[4], u32 a0, u32 a1, u32 b0) {
  const u32 a[4] = {a0, a1, 0u, 0u};
  gconv_host_mma16816(d, a, b0, 0u, IS_BF16);
}
#else
// ldmatrix: lane 8·i + j gives the address of row j of 8x8 matrix i (16 bytes, 16-aligned).
__device__ __forceinline__ void ldsm_x4(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldsm_x2(u32 (&r)[2], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(addr));
}
__device__ __forceinline__ void ldsm_x1(u32& r, u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r) : "r"(addr));
}
// Transposing ldmatrix: lane l receives, from matrix i, column l/4, rows 2·(l%4) and 2·(l%4)+1.
__device__ __forceinline__ void ldsm_x4_trans(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
// D(16x8, f32) += A(16x16) · B(16x8), 16-bit inputs.
__device__ __forceinline__ void mma16816(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  if constexpr (IS_BF16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}
// D(16x8, f32) += A(16x8) · B(8x8), 16-bit inputs: a0 rows g = lane / 4 and a1 rows g + 8,
// both at k 2·(lane % 4) and the next; b0 column g at those k.
__device__ __forceinline__ void mma1688(float (&d)[4], u32 a0, u32 a1, u32 b0) {
  if constexpr (IS_BF16) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(b0));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(b0));
  }
}
#endif

// ---- backward weight, depthwise, tensor cores with a banded dY operand (direct/banded.rs) ----
// dW[k][ty][tx] = sum over (n, oy, ox) of dY[n, oy, ox, k] * X[n, oy - PH + ty, ox - PW + tx, k]
// (stride 1, dilation 1, C = K = G). Per channel and tap block (bx, by) of 8 columns x 7 rows,
// one mma.sync.m16n8k16 covers two output rows (top oy_t = oy_b + 1, bottom oy_b), the block's
// tap rows and 16 input columns ix (t = tx - 8·bx, r = ty - 7·by):
//   A[m][k]  m = t (top) or 8 + t (bottom), k = ix:  dY[oy_t or oy_b][ix + PW - tx]
//            (a band of one dY row: the Toeplitz matrix of the row, zero off the tile),
//   B[k][n]  n = 0..7:                                X[oy_b - PH + 7·by + n][ix],
//   D[m][n]  top:    dW[r = n - 1][t],   bottom: dW[r = n][t],
// so the two halves share B. A tile is TH output rows (TH/2 row pairs) x TW output columns of
// one image: the CTA stages its X rows (XROWS, zero outside the image) and columns (KC = KCH x
// 16 from ox0 - PW) and its dY rows (from ox0 - 8·BX; two copies, the second shifted by one
// element, so that every A register is one aligned 32-bit read whatever the parity of the band
// offset) as per-channel planes in shared memory, then each warp runs its CPW channels over
// the tile's BLOCKS x TH/2 x KCH mma. The planes of each group of 8 channels (one 16-byte
// channel vector) start XGS elements (X) and DGS words (dY) past the previous group's end,
// so that the staging lanes of the VECS vectors of one pixel store to different banks. With
// PIPE the thread's staging reads of the next tile are issued before the current tile's mma. The f32 accumulators (4 per channel and block) live
// over the whole slab; at the end, one block at a time, both halves of each channel are summed
// in a fixed order (top first) and the CTA writes its rows of one f32 partial plane (workspace
// plane = slab) or, with one slab, dW itself. No atomics: dW is bit-identical across runs.
// in0 = X, in1 = dY, out = dW.
constexpr int C_ = G_;
constexpr int WARPS = THREADS / 32;
constexpr int CPW = BN / WARPS;                      // channels of a warp
constexpr int KC = KCH * 16;                         // staged X columns (the mma K extent)
constexpr int BX = (FX + 7) / 8;                     // tap blocks along x (8 columns of A each)
constexpr int BY = (FY + 6) / 7;                     // tap blocks along y (7 rows of D each)
constexpr int BLOCKS = BX * BY;
constexpr int XROWS = TH + 6 + 7 * (BY - 1);         // staged X rows (a row pair reads 8 per block)
constexpr int XPLANE = XROWS * XRS;                  // elements of one channel's X plane
constexpr int DS = KC + 8 * BX;                      // staged dY elements of a row (from ox0 - 8·BX)
constexpr int DPLANE = TH * 2 * DSW;                 // 32-bit words of one channel's dY plane
constexpr int TAPS = FY * FX;
constexpr int TILES_H = (OH + TH - 1) / TH;
constexpr int TILES_W = (OW + TW - 1) / TW;
constexpr int UNITS = N_ * TILES_H * TILES_W;
constexpr int VECS = BN / 8;                         // 16-byte channel vectors of a pixel
static_assert(ESZ == 2, "banded wgrad: 16-bit data");
static_assert(CG == 1 && KG == 1 && C_ % 8 == 0, "depthwise, channels in 16-byte vectors");
static_assert(FZ == 1 && ID == 1 && OD == 1 && IH >= 2, "banded wgrad: 2D");
static_assert(SH == 1 && SW == 1 && DH == 1 && DW == 1, "banded wgrad: stride 1, dilation 1");
static_assert(FX <= 8 * BX && FY <= 7 * BY, "banded wgrad: tap blocks of 8 columns, 7 + 1 rows");
static_assert(TH % 2 == 0 && BN % 8 == 0 && BN % WARPS == 0, "row pairs, channel vectors");
static_assert(KC >= TW + FX - 1, "the K extent covers every input column of the tile");
static_assert(XRS >= KC && XRS % 8 == 0 && (XRS / 8) % 2 == 1, "X row stride: odd 16-byte chunks");
static_assert(2 * DSW >= DS, "dY copy length");
static_assert(XGS % 8 == 0 && DGS >= 0, "X plane groups keep ldmatrix rows 16-byte aligned");
static_assert(SMEM_BYTES >= DY_OFF + (BN * DPLANE + (VECS - 1) * DGS) * 4 &&
                  DY_OFF >= (BN * XPLANE + (VECS - 1) * XGS) * 2 && DY_OFF >= BN * 128 * 4,
              "shared memory: X planes (or the epilogue sums), then dY planes");
static_assert(SLABS * UNITS_PER_SLAB >= UNITS, "slabs cover the units");
static_assert(RED_PLANE == (long long)C_ * TAPS, "partial plane = |dW|");

// Staging tasks of a tile. X: task t = (row, column pair, 16-byte channel vector), v fastest;
// it reads the vector of two adjacent input pixels and writes, per channel, their pair as one
// 32-bit word of the channel's plane. dY: task t = (row, word, vector); it reads elements 2w,
// 2w + 1, 2w + 2 of the staged row (e <-> ox = ox0 - 8·BX + e, zero outside [ox0, ox0 + TW) and
// the image) and writes word w of copy 0 (elements 2w, 2w + 1) and of copy 1 (2w + 1, 2w + 2:
// copy 1 holds element e at e - 1).
constexpr int XTASKS = XROWS * (KC / 2) * VECS;
constexpr int DTASKS = TH * DSW * VECS;
constexpr int XT = (XTASKS + THREADS - 1) / THREADS;  // X tasks of a thread (pipelined path)
constexpr int DT = (DTASKS + THREADS - 1) / THREADS;  // dY tasks of a thread (pipelined path)

struct Tile {
  int n, oy0, ox0;
};

// Where channel c's planes start: X in elements of xs, dY in words of ds32 (the group shift
// of the header).
__device__ __forceinline__ int x_plane(int c) { return c * XPLANE + (c / 8) * XGS; }
__device__ __forceinline__ int dy_plane(int c) { return c * DPLANE + (c / 8) * DGS; }

// Unit u: column tile fastest, then row tile, then image.
__device__ __forceinline__ Tile tile_of(int u) {
  const int r = u / TILES_W;
  return Tile{r / TILES_H, (r % TILES_H) * TH, (u % TILES_W) * TW};
}

__device__ __forceinline__ void x_load(const elem_t* __restrict__ X, Tile T, int k0, int t,
                                       v16b& a, v16b& b) {
  const int v = t % VECS;
  const int cp = (t / VECS) % (KC / 2);
  const int row = t / (VECS * (KC / 2));
  const int iy = T.oy0 - PH + row;
  const int ix = T.ox0 - PW + 2 * cp;
  const int k = k0 + v * 8;
  const bool rok = (unsigned)iy < (unsigned)IH && k < C_;
  const long long rbase = (long long)(T.n * IH + iy) * IW;
  a = {0u, 0u, 0u, 0u};
  b = {0u, 0u, 0u, 0u};
  if (rok && (unsigned)ix < (unsigned)IW) {
    a = *reinterpret_cast<const v16b*>(X + (rbase + ix) * C_ + k);
  }
  if (rok && (unsigned)(ix + 1) < (unsigned)IW) {
    b = *reinterpret_cast<const v16b*>(X + (rbase + ix + 1) * C_ + k);
  }
}

__device__ __forceinline__ void x_store(u32* xs32, int t, const v16b& a, const v16b& b) {
  const int v = t % VECS;
  const int cp = (t / VECS) % (KC / 2);
  const int row = t / (VECS * (KC / 2));
  const u32 wa[4] = {a.x, a.y, a.z, a.w};
  const u32 wb[4] = {b.x, b.y, b.z, b.w};
  u32* dst = xs32 + x_plane(v * 8) / 2 + row * (XRS / 2) + cp;
#pragma unroll
  for (int i = 0; i < 8; i += 2) {
    dst[i * (XPLANE / 2)] = low_halves(wa[i / 2], wb[i / 2]);
    dst[(i + 1) * (XPLANE / 2)] = high_halves(wa[i / 2], wb[i / 2]);
  }
}

__device__ __forceinline__ void dy_load(const elem_t* __restrict__ dY, Tile T, int k0, int t,
                                        v16b (&w3)[3]) {
  const int v = t % VECS;
  const int wd = (t / VECS) % DSW;
  const int row = t / (VECS * DSW);
  const int oy = T.oy0 + row;
  const int k = k0 + v * 8;
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    const int ox = T.ox0 - 8 * BX + 2 * wd + j;
    w3[j] = {0u, 0u, 0u, 0u};
    if (oy < OH && ox >= T.ox0 && ox < T.ox0 + TW && ox < OW && k < C_) {
      w3[j] = *reinterpret_cast<const v16b*>(dY + ((long long)(T.n * OH + oy) * OW + ox) * C_ + k);
    }
  }
}

__device__ __forceinline__ void dy_store(u32* ds32, int t, const v16b (&w3)[3]) {
  const int v = t % VECS;
  const int wd = (t / VECS) % DSW;
  const int row = t / (VECS * DSW);
  u32* dst = ds32 + dy_plane(v * 8) + row * (2 * DSW) + wd;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int sh = 16 * (i % 2);
    const u32 w0[4] = {w3[0].x, w3[0].y, w3[0].z, w3[0].w};
    const u32 w1[4] = {w3[1].x, w3[1].y, w3[1].z, w3[1].w};
    const u32 w2[4] = {w3[2].x, w3[2].y, w3[2].z, w3[2].w};
    const u32 e0 = (w0[i / 2] >> sh) & 0xffffu;
    const u32 e1 = (w1[i / 2] >> sh) & 0xffffu;
    const u32 e2 = (w2[i / 2] >> sh) & 0xffffu;
    dst[i * DPLANE] = e0 | (e1 << 16);
    dst[i * DPLANE + DSW] = e1 | (e2 << 16);
  }
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_CTAS) direct_wgrad_bf16_t256x16x32_w4x1_s1_v8x1_gm1_sk43d_mma_gen(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace) {
  GCONV_DYNAMIC_SMEM(smem);
  release_dependents();  // the split reduction may start as the last wave drains (prelude)
  const elem_t* __restrict__ X = reinterpret_cast<const elem_t*>(in0);
  const elem_t* __restrict__ dY = reinterpret_cast<const elem_t*>(in1);
  u16* xs = reinterpret_cast<u16*>(smem);                   // [BN][XROWS][XRS] (x_plane)
  u32* ds32 = reinterpret_cast<u32*>(smem + DY_OFF);        // [BN][TH][2 copies][DSW] words (dy_plane)
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int k0 = blockIdx.y * BN;  // first channel of the CTA
  // A roles: rows g (top) and g + 8 (bottom), columns 2q, 2q + 1 (+ 8). The band element of
  // column k = 2q at chunk 0 of tap block bx is e = 2q + 8·BX - 8·bx - g of the staged row; an
  // odd e reads the shifted copy (element e lives at e - 1 there), so each A register is one
  // aligned word (block bx reads 4·bx words further left).
  const int g = lane >> 2;
  const int q = lane & 3;
  const int copy = g & 1;
  const int aword = (2 * q + 8 * BX - g - copy) / 2 + copy * DSW;
  // B roles (ldmatrix.x2): lane l gives row l & 7 of matrix (l >> 3) & 1 (columns 0-7, 8-15).
  const u32 xrole = (u32)(((lane & 7) * XRS + ((lane >> 3) & 1) * 8) * 2);
  const u32 xs_a = smem_u32(xs);

  float acc[CPW][BLOCKS][4];
#pragma unroll
  for (int c = 0; c < CPW; ++c) {
#pragma unroll
    for (int b = 0; b < BLOCKS; ++b) {
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[c][b][i] = 0.0f;
    }
  }

  const int u0 = blockIdx.x * UNITS_PER_SLAB;
  const int u1 = u0 + UNITS_PER_SLAB < UNITS ? u0 + UNITS_PER_SLAB : UNITS;
  u32* xs32 = reinterpret_cast<u32*>(xs);
  // Pipelined path (PIPE): the thread's staging reads of the next tile are issued into
  // registers before the current tile's MMAs and stored after them.
  v16b xa[XT], xb[XT], dw[DT][3];  // unused (and dropped) without PIPE
  auto fetch = [&](Tile T) {
#pragma unroll
    for (int i = 0; i < XT; ++i) {
      const int t = tid + i * THREADS;
      if (XTASKS % THREADS == 0 || t < XTASKS) x_load(X, T, k0, t, xa[i], xb[i]);
    }
#pragma unroll
    for (int i = 0; i < DT; ++i) {
      const int t = tid + i * THREADS;
      if (DTASKS % THREADS == 0 || t < DTASKS) dy_load(dY, T, k0, t, dw[i]);
    }
  };
  if constexpr (PIPE) {
    if (u0 < u1) fetch(tile_of(u0));
  }
  for (int u = u0; u < u1; ++u) {
    __syncthreads();  // the previous tile's planes are read
    if constexpr (PIPE) {
#pragma unroll
      for (int i = 0; i < XT; ++i) {
        const int t = tid + i * THREADS;
        if (XTASKS % THREADS == 0 || t < XTASKS) x_store(xs32, t, xa[i], xb[i]);
      }
#pragma unroll
      for (int i = 0; i < DT; ++i) {
        const int t = tid + i * THREADS;
        if (DTASKS % THREADS == 0 || t < DTASKS) dy_store(ds32, t, dw[i]);
      }
      __syncthreads();
      if (u + 1 < u1) fetch(tile_of(u + 1));
    } else {
      const Tile T = tile_of(u);
      for (int t = tid; t < XTASKS; t += THREADS) {
        v16b a, b;
        x_load(X, T, k0, t, a, b);
        x_store(xs32, t, a, b);
      }
      for (int t = tid; t < DTASKS; t += THREADS) {
        v16b w3[3];
        dy_load(dY, T, k0, t, w3);
        dy_store(ds32, t, w3);
      }
      __syncthreads();
    }
#pragma unroll
    for (int ci = 0; ci < CPW; ++ci) {
      const int c = warp * CPW + ci;
      const u32* dyc = ds32 + dy_plane(c) + aword;
      const u32 xb = xs_a + (u32)(x_plane(c) * 2) + xrole;
#pragma unroll
      for (int blk = 0; blk < BLOCKS; ++blk) {
        const int by = blk / BX;
        const int bx = blk % BX;
#pragma unroll
        for (int j = 0; j < TH / 2; ++j) {
          const u32* top = dyc + (2 * j + 1) * 2 * DSW - 4 * bx;
          const u32* bot = dyc + (2 * j) * 2 * DSW - 4 * bx;
#pragma unroll
          for (int kc = 0; kc < KCH; ++kc) {
            const u32 a[4] = {top[8 * kc], bot[8 * kc], top[8 * kc + 4], bot[8 * kc + 4]};
            u32 b[2];
            ldsm_x2(b, xb + (u32)(((2 * j + 7 * by) * XRS + kc * 16) * 2));
            mma16816(acc[ci][blk], a, b[0], b[1]);
          }
        }
      }
    }
  }

  // Epilogue, one tap block at a time: each channel's 16 x 8 sums through shared memory
  // ([BN][16][8] f32), then dW[7·by + r][8·bx + t] = top[t][r + 1] + bottom[t][r] in that order.
  float* sums = reinterpret_cast<float*>(smem);
#pragma unroll
  for (int blk = 0; blk < BLOCKS; ++blk) {
    const int by = blk / BX;
    const int bx = blk % BX;
    __syncthreads();  // the planes (or the previous block's sums) are read
#pragma unroll
    for (int ci = 0; ci < CPW; ++ci) {
      float* s = sums + (warp * CPW + ci) * 128;
      s[g * 8 + 2 * q] = acc[ci][blk][0];
      s[g * 8 + 2 * q + 1] = acc[ci][blk][1];
      s[(g + 8) * 8 + 2 * q] = acc[ci][blk][2];
      s[(g + 8) * 8 + 2 * q + 1] = acc[ci][blk][3];
    }
    __syncthreads();
    for (int e = tid; e < BN * 56; e += THREADS) {
      const int c = e / 56;
      const int r = (e % 56) / 8;
      const int t = e % 8;
      const int ty = 7 * by + r;
      const int tx = 8 * bx + t;
      const float* s = sums + c * 128;
      const float v = s[t * 8 + r + 1] + s[(t + 8) * 8 + r];
      if (k0 + c < C_ && ty < FY && tx < FX) {
        const long long o = (long long)(k0 + c) * TAPS + ty * FX + tx;
        if constexpr (SLABS == 1) {
          from_f32(v, reinterpret_cast<elem_t*>(out)[o]);
        } else {
          reinterpret_cast<float*>(workspace)[blockIdx.x * RED_PLANE + o] = v;
        }
      }
    }
  }
}

// ---- split-K reductions (shared by the families; constants RED_PLANE, RED_SPLIT, ESZ) ----
#if GCONV_SPLIT_REDUCE
// Deterministic: sums the RED_SPLIT f32 partial planes in a fixed order, converts, stores. A
// CTA owns RE_ consecutive elements; RS_ = GCONV_RED_SLICES threads per element, thread slice q
// adding planes q, q + RS_, ... in order, then the RS_ slice sums added in slice order (with
// RS_ = 1 a plain in-order sum). The order depends on the constants only: bit-identical runs.
constexpr int RS_ = GCONV_RED_SLICES;
constexpr int RE_ = 256 / RS_;
static_assert(RS_ >= 1 && RS_ <= 32 && (RS_ & (RS_ - 1)) == 0 && RS_ <= RED_SPLIT, "reduction slices");
extern "C" __global__ void __launch_bounds__(256) direct_wgrad_bf16_t256x16x32_w4x1_s1_v8x1_gm1_sk43d_mma_gen_reduce(const void* __restrict__ in0,
                                                                const void* __restrict__ in1,
                                                                void* __restrict__ out,
                                                                void* __restrict__ workspace) {
  wait_prior_grid();  // the slices' planes are complete and visible (launched overlapping)
  const float* __restrict__ ws = reinterpret_cast<const float*>(workspace);
  const int t = threadIdx.x;
  const int q = t / RE_;  // plane slice
  const long long i = (long long)blockIdx.x * RE_ + t % RE_;
  float s = 0.f;
  if (i < RED_PLANE) {
#pragma unroll 4
    for (int p = q; p < RED_SPLIT; p += RS_) s += ws[p * RED_PLANE + i];
  }
  if constexpr (RS_ > 1) {
    __shared__ float slice_sum[256];
    slice_sum[t] = s;
    __syncthreads();
    if (q != 0) return;
    s = 0.f;
#pragma unroll
    for (int r = 0; r < RS_; ++r) s += slice_sum[r * RE_ + t];
  }
  if (i < RED_PLANE) {
    if constexpr (ESZ == 4) {
      reinterpret_cast<float*>(out)[i] = s;
    } else {
      reinterpret_cast<u16*>(out)[i] = to_half_bits(s);
    }
  }
}
#endif
#if GCONV_SPLIT_ATOMIC
// Atomic (named `a`, never the default): the slices add into one f32 plane (`red_add_f32`);
// this launch zeroes it first and `_convert` stores it in the output dtype.
extern "C" __global__ void __launch_bounds__(256) direct_wgrad_bf16_t256x16x32_w4x1_s1_v8x1_gm1_sk43d_mma_gen_zero(const void* __restrict__ in0,
                                                              const void* __restrict__ in1,
                                                              void* __restrict__ out,
                                                              void* __restrict__ workspace) {
  const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
  if (i < RED_PLANE) reinterpret_cast<float*>(workspace)[i] = 0.f;
}
extern "C" __global__ void __launch_bounds__(256) direct_wgrad_bf16_t256x16x32_w4x1_s1_v8x1_gm1_sk43d_mma_gen_convert(const void* __restrict__ in0,
                                                                 const void* __restrict__ in1,
                                                                 void* __restrict__ out,
                                                                 void* __restrict__ workspace) {
  wait_prior_grid();  // every slice has added into the plane (launched overlapping)
  const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
  if (i < RED_PLANE) {
    const float s = reinterpret_cast<const float*>(workspace)[i];
    if constexpr (ESZ == 4) {
      reinterpret_cast<float*>(out)[i] = s;
    } else {
      reinterpret_cast<u16*>(out)[i] = to_half_bits(s);
    }
  }
}
#endif
