// gconv direct forward kernel (depthwise, tensor cores, banded filter): generated, do not edit
// kernel:  direct_fwd_bf16_t1024x16x64_w8x1_s1_v1x1_gm1_sk1d_mma_gen
// problem: fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
// tiles of 16 x 64 outputs, 16 channels per CTA in 8 warps, 7 row pairs per 8-row block; smem 112704 B
#define ELEM unsigned short
constexpr bool IS_BF16 = true;
constexpr bool DGRAD = false;
constexpr bool PIPE = false;
constexpr int ESZ = 2;
constexpr int N_ = 32;
constexpr int ID = 1;
constexpr int IH = 56;
constexpr int IW = 56;
constexpr int OD = 1;
constexpr int OH = 56;
constexpr int OW = 56;
constexpr int FZ = 1;
constexpr int FY = 7;
constexpr int FX = 7;
constexpr int SD = 1;
constexpr int SH = 1;
constexpr int SW = 1;
constexpr int PD = 0;
constexpr int PH = 3;
constexpr int PW = 3;
constexpr int DD = 1;
constexpr int DH = 1;
constexpr int DW = 1;
constexpr int G_ = 96;
constexpr int CG = 1;
constexpr int KG = 1;
constexpr int TH = 16;
constexpr int TW = 64;
constexpr int BN = 16;
constexpr int XCW = 40;
constexpr int XGS = 16;
constexpr int THREADS = 256;
constexpr int SMEM_BYTES = 112704;

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

// ---- forward / backward data, depthwise, tensor cores with a banded filter (direct/fwd_banded.rs) ----
// Y[n, oy, ox, c] = sum over (ty, tx) of X[n, oy - PH + ty, ox - PW + tx, c] * Wt[c][ty][tx]
// (stride 1, dilation 1, C = K = G; a backward-data module computes the dual forward problem:
// X = dY, Y = dX and Wt[c][ty][tx] = W[c][FY-1-ty][FX-1-tx], DGRAD). Per channel, output row
// block (8 rows oy0 + 8b ...) and column chunk (16 columns ox0 + 16mc ...), one
// mma.sync.m16n8k16 per pair of staged X rows j (rho = 8b + 2j, 8b + 2j + 1 from oy0 - PH):
//   A[m][k]  m = ox offset (0..15), k = (row of the pair, tx < 8):  X[rho + (k >= 8)][m + k % 8]
//            (two X rows as Toeplitz blocks: column m + tx of the staged row),
//   B[k][n]  n = output row of the block (0..7):  Wt[2j + (k >= 8) - n][k % 8] (zero outside
//            the filter), the same registers for every block and chunk of the channel,
//   D[m][n]  Y[oy0 + 8b + n][ox0 + 16mc + m],
// summed over the JP pairs. The CTA stages its X rows (XR, zero outside the image) and columns
// (XE from ox0 - PW) as per-channel planes in shared memory, each row twice, the second copy
// shifted by one element, so that every A register is one aligned 32-bit read whatever the
// parity of the column (the copies sit XCW words apart: the two parities read different
// banks). A warp runs its CPW channels, each staged row pair read once for the row blocks it
// feeds (pair p is pair p - 4b of block b); the f32 accumulators stay in registers until every
// warp is done with the planes, then pass through shared memory as [pixel][channel] rows so
// that Y is written in 16-byte channel vectors. in0 = X, in1 = W, out = Y.
constexpr int C_ = G_;
constexpr int WARPS = THREADS / 32;
constexpr int CPW = BN / WARPS;                 // channels of a warp
constexpr int RB = TH / 8;                      // output row blocks of a tile
constexpr int MC = TW / 16;                     // 16-column chunks of a tile
constexpr int JP = (FY + 8) / 2;                // row pairs of a block: rows 0 .. 2·JP-1 >= FY + 6
constexpr int XR = 8 * (RB - 1) + 2 * JP;       // staged X rows
constexpr int NP = XR / 2;                      // staged row pairs
constexpr int XE = TW + 8;                      // staged X elements of a row (from ox0 - PW)
constexpr int XPLANE = XR * 2 * XCW;            // words of one channel's X plane
constexpr int VECS = BN / 8;                    // 16-byte channel vectors of a pixel
constexpr int TAPS = FY * FX;
constexpr int OSP = BN + 8;                     // elements of one staged output pixel (16-byte rows)
constexpr int TILES_H = (OH + TH - 1) / TH;
constexpr int TILES_W = (OW + TW - 1) / TW;
static_assert(ESZ == 2, "banded forward: 16-bit data");
static_assert(CG == 1 && KG == 1 && C_ % 8 == 0, "depthwise, channels in 16-byte vectors");
static_assert(FZ == 1 && ID == 1 && OD == 1, "banded forward: 2D");
static_assert(SH == 1 && SW == 1 && DH == 1 && DW == 1, "banded forward: stride 1, dilation 1");
static_assert(FX <= 8 && FY <= 2 * JP - 7, "banded forward: 8 filter columns, 2·JP - 7 rows");
static_assert(TH % 8 == 0 && TW % 16 == 0 && BN % 8 == 0 && BN % WARPS == 0, "tile shape");
static_assert(2 * XCW >= XE + 1 && XCW % 4 == 0 && XCW % 32 >= 8 && XCW % 32 <= 24,
              "X copies: length, whole 4-word groups, banks");
static_assert(SMEM_BYTES >= (BN * XPLANE + (VECS - 1) * XGS) * 4 &&
                  SMEM_BYTES >= TH * TW * OSP * 2,
              "shared memory: the X planes, then the output rows");

// Where channel c's X plane starts (words of xs32): the planes of each group of 8 channels
// (one 16-byte channel vector) XGS words past the previous group's, so that the staging lanes
// of the VECS vectors of one pixel store to different banks.
__device__ __forceinline__ int x_plane(int c) { return c * XPLANE + (c / 8) * XGS; }

// Staging task t = (row, word, vector), vector fastest (the lanes of a warp read adjacent
// pixels): it reads elements 2w, 2w + 1, 2w + 2 of staged row `row` (element e <-> ix = ox0 -
// PW + e, zero outside the image and past C) and writes, per channel of the vector, word w of
// copy 0 (elements 2w, 2w + 1) and of copy 1 (2w + 1, 2w + 2: copy 1 holds element e at e - 1).
constexpr int XTASKS = XR * XCW * VECS;
constexpr int XT = (XTASKS + THREADS - 1) / THREADS;  // staging tasks of a thread (PIPE)
constexpr int UNITS = N_ * TILES_H * TILES_W;

__device__ __forceinline__ void x_load(const elem_t* __restrict__ X, int n, int oy0, int ox0,
                                       int k0, int t, u32 (&e)[3][4]) {
  const int v = t % VECS;
  const int wd = (t / VECS) % XCW;
  const int row = t / (VECS * XCW);
  const int iy = oy0 - PH + row;
  const int k = k0 + v * 8;
  const bool rok = (unsigned)iy < (unsigned)IH && k < C_;
  const long long rbase = (long long)(n * IH + iy) * IW;
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    const int ix = ox0 - PW + 2 * wd + j;
    v16b p = {0u, 0u, 0u, 0u};
    if (rok && (unsigned)ix < (unsigned)IW) {
      p = *reinterpret_cast<const v16b*>(X + (rbase + ix) * C_ + k);
    }
    e[j][0] = p.x;
    e[j][1] = p.y;
    e[j][2] = p.z;
    e[j][3] = p.w;
  }
}

__device__ __forceinline__ void x_store(u32* xs32, int t, const u32 (&e)[3][4]) {
  const int v = t % VECS;
  const int wd = (t / VECS) % XCW;
  const int row = t / (VECS * XCW);
  u32* dst = xs32 + x_plane(v * 8) + row * (2 * XCW) + wd;
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    // The 16 bits of channel c of elements a and b as one word (a low).
    auto pair = [&](int a, int b) -> u32 {
      return c % 2 == 0 ? low_halves(e[a][c / 2], e[b][c / 2])
                        : high_halves(e[a][c / 2], e[b][c / 2]);
    };
    dst[c * XPLANE] = pair(0, 1);
    dst[c * XPLANE + XCW] = pair(1, 2);
  }
}

// The filter tap (ty, tx) of channel k as the kernel's forward filter Wt, as 16 bits; zero
// outside the filter.
__device__ __forceinline__ u32 w_tap(const u16* __restrict__ W, int k, int ty, int tx) {
  if (ty < 0 || ty >= FY || tx >= FX) return 0u;
  if constexpr (DGRAD) {
    return W[(long long)k * TAPS + (FY - 1 - ty) * FX + (FX - 1 - tx)];
  } else {
    return W[(long long)k * TAPS + ty * FX + tx];
  }
}

extern "C" __global__ void __launch_bounds__(THREADS) direct_fwd_bf16_t1024x16x64_w8x1_s1_v1x1_gm1_sk1d_mma_gen(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace) {
  GCONV_DYNAMIC_SMEM(smem);
  const elem_t* __restrict__ X = reinterpret_cast<const elem_t*>(in0);
  const u16* __restrict__ W = reinterpret_cast<const u16*>(in1);
  u32* xs32 = reinterpret_cast<u32*>(smem);  // [BN][XR][2 copies][XCW] words
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int k0 = blockIdx.y * BN;  // first channel of the CTA
  // Tile u: column tile fastest, then row tile, then image; CTA x walks u = x, x + gridDim.x, ...
  auto origin = [](int u, int& n, int& oy0, int& ox0) {
    n = u / (TILES_W * TILES_H);
    oy0 = ((u / TILES_W) % TILES_H) * TH;
    ox0 = (u % TILES_W) * TW;
  };
  // Pipelined path (PIPE): the thread's staging reads of the next tile are issued into
  // registers before the current tile's MMAs and stored after the tile's output is written.
  u32 pre[XT][3][4];  // unused (and dropped) without PIPE
  auto fetch = [&](int u) {
    int n, oy0, ox0;
    origin(u, n, oy0, ox0);
#pragma unroll
    for (int i = 0; i < XT; ++i) {
      const int t = tid + i * THREADS;
      if (XTASKS % THREADS == 0 || t < XTASKS) x_load(X, n, oy0, ox0, k0, t, pre[i]);
    }
  };
  if constexpr (PIPE) {
    if ((int)blockIdx.x < UNITS) fetch(blockIdx.x);
  }
  for (int u = blockIdx.x; u < UNITS; u += gridDim.x) {
    int n, oy0, ox0;
    origin(u, n, oy0, ox0);
    if constexpr (PIPE) {
#pragma unroll
      for (int i = 0; i < XT; ++i) {
        const int t = tid + i * THREADS;
        if (XTASKS % THREADS == 0 || t < XTASKS) x_store(xs32, t, pre[i]);
      }
      __syncthreads();
      if (u + (int)gridDim.x < UNITS) fetch(u + gridDim.x);
    } else {
      for (int t = tid; t < XTASKS; t += THREADS) {
        u32 e[3][4];
        x_load(X, n, oy0, ox0, k0, t, e);
        x_store(xs32, t, e);
      }
      __syncthreads();
    }

    // A roles: rows g (column g of the chunk) and g + 8, k pairs 2q, 2q + 1 (+ 8: the pair's
    // second row). Element e = 16mc + g + 2q (+ 8) of the staged row; an odd e reads the
    // shifted copy (element e lives at e - 1 there), so each A register is one aligned word.
    const int g = lane >> 2;
    const int q = lane & 3;
    const int copy = g & 1;
    const int aword = (g + 2 * q - copy) / 2 + copy * XCW;

    float acc[CPW][RB][MC][4];
#pragma unroll
    for (int ci = 0; ci < CPW; ++ci) {
      const int c = warp * CPW + ci;
      const int kc = k0 + c < C_ ? k0 + c : C_ - 1;  // a channel past C computes, never stored
      // B of pair j: rows 2j (k < 8) and 2j + 1 (k >= 8) of the pair, output row n = g,
      // columns tx = 2q, 2q + 1.
      u32 bw[JP][2];
#pragma unroll
      for (int j = 0; j < JP; ++j) {
        bw[j][0] = w_tap(W, kc, 2 * j - g, 2 * q) | (w_tap(W, kc, 2 * j - g, 2 * q + 1) << 16);
        bw[j][1] = w_tap(W, kc, 2 * j + 1 - g, 2 * q) | (w_tap(W, kc, 2 * j + 1 - g, 2 * q + 1) << 16);
      }
      const u32* xc = xs32 + x_plane(c) + aword;
#pragma unroll
      for (int b = 0; b < RB; ++b) {
#pragma unroll
        for (int mc = 0; mc < MC; ++mc) {
#pragma unroll
          for (int i = 0; i < 4; ++i) acc[ci][b][mc][i] = 0.0f;
        }
      }
      // Pair p (staged rows 2p, 2p + 1) is pair j = p - 4b of row block b: its A fragments are
      // read once and serve every block that reaches it.
#pragma unroll
      for (int p = 0; p < NP; ++p) {
        const u32* r0 = xc + 2 * p * (2 * XCW);
        const u32* r1 = r0 + 2 * XCW;
        u32 a[MC][4];
#pragma unroll
        for (int mc = 0; mc < MC; ++mc) {
          a[mc][0] = r0[8 * mc];
          a[mc][1] = r0[8 * mc + 4];
          a[mc][2] = r1[8 * mc];
          a[mc][3] = r1[8 * mc + 4];
        }
#pragma unroll
        for (int b = 0; b < RB; ++b) {
          const int j = p - 4 * b;
          if (j >= 0 && j < JP) {
#pragma unroll
            for (int mc = 0; mc < MC; ++mc) mma16816(acc[ci][b][mc], a[mc], bw[j][0], bw[j][1]);
          }
        }
      }
    }
    __syncthreads();  // every warp is done with the X planes: the output rows reuse them

    // D roles: c0, c1 = (m = g, n = 2q, 2q + 1), c2, c3 = (m = g + 8, same n): output pixel
    // (row 8b + n, column 16mc + m) of channel c, as [pixel][OSP] 16-bit rows (call c of
    // session 21: per-channel output planes, conflict-free to store but read eight 16-bit
    // values per vector and written pixel-major, ran the kernel twice as long). A lane stores
    // PACK adjacent channels of its pixel at once (PACK the largest of 8, 4, 2, 1 dividing CPW):
    // the lanes of one store meet in 8 bank groups whatever the pitch (pixels start 16-byte
    // aligned), so wider stores of the same pixels are what takes wavefronts off (16-bit
    // stores: four wavefronts per channel; 8-channel stores: half a wavefront per channel).
    constexpr int PACK = CPW % 8 == 0 ? 8 : CPW % 4 == 0 ? 4 : CPW % 2 == 0 ? 2 : 1;
    u16* os = reinterpret_cast<u16*>(smem);
#pragma unroll
    for (int ci = 0; ci < CPW; ci += PACK) {
      const int c = warp * CPW + ci;
#pragma unroll
      for (int b = 0; b < RB; ++b) {
#pragma unroll
        for (int mc = 0; mc < MC; ++mc) {
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const int row = 8 * b + 2 * q + (i & 1);
            const int col = 16 * mc + g + 8 * (i >> 1);
            u16* dst = os + (row * TW + col) * OSP + c;
            u32 w[(PACK + 1) / 2];
            if constexpr (PACK == 1) {
              w[0] = to_half_bits(acc[ci][b][mc][i]);
            } else {
#pragma unroll
              for (int h = 0; h < PACK; h += 2) {
                w[h / 2] = (u32)to_half_bits(acc[ci + h][b][mc][i]) |
                           ((u32)to_half_bits(acc[ci + h + 1][b][mc][i]) << 16);
              }
            }
            if constexpr (PACK == 8) {
              *reinterpret_cast<v16b*>(dst) = v16b{w[0], w[1], w[2], w[3]};
            } else if constexpr (PACK == 4) {
              *reinterpret_cast<v8b*>(dst) = v8b{w[0], w[1]};
            } else if constexpr (PACK == 2) {
              *reinterpret_cast<u32*>(dst) = w[0];
            } else {
              *dst = (u16)w[0];
            }
          }
        }
      }
    }
    __syncthreads();
    // Y in 16-byte channel vectors, vector fastest (a warp writes whole pixels' channel runs).
    elem_t* __restrict__ Y = reinterpret_cast<elem_t*>(out);
    for (int t = tid; t < TH * TW * VECS; t += THREADS) {
      const int v = t % VECS;
      const int p = t / VECS;
      const int oy = oy0 + p / TW;
      const int ox = ox0 + p % TW;
      const int k = k0 + v * 8;
      if (oy < OH && ox < OW && k < C_) {
        *reinterpret_cast<v16b*>(Y + ((long long)(n * OH + oy) * OW + ox) * C_ + k) =
            *reinterpret_cast<const v16b*>(os + p * OSP + v * 8);
      }
    }
    __syncthreads();  // the output planes are read before the next tile's staging reuses them
  }
}