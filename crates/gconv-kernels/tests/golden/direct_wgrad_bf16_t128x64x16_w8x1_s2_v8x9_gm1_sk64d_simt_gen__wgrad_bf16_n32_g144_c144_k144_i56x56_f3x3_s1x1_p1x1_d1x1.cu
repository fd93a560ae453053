// gconv direct backward-weight kernel: generated, do not edit
// kernel:  direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk64d_simt_gen
// problem: wgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1
// tile 8x16 pixels x 64 channels, halo 1x10x18 x 64 input channels, 64 slabs of 14 tiles, smem 78848 B
#define ELEM unsigned short
constexpr bool IS_BF16 = true;
#define GCONV_SPLIT_REDUCE 1
#define GCONV_RED_SLICES 32
#define GCONV_SPLIT_ATOMIC 0
constexpr int ESZ = 2;
constexpr int N_ = 32;
constexpr int ID = 1;
constexpr int IH = 56;
constexpr int IW = 56;
constexpr int OD = 1;
constexpr int OH = 56;
constexpr int OW = 56;
constexpr int FZ = 1;
constexpr int FY = 3;
constexpr int FX = 3;
constexpr int SD = 1;
constexpr int SH = 1;
constexpr int SW = 1;
constexpr int PD = 0;
constexpr int PH = 1;
constexpr int PW = 1;
constexpr int DD = 1;
constexpr int DH = 1;
constexpr int DW = 1;
constexpr int G_ = 144;
constexpr int CG = 1;
constexpr int KG = 1;
constexpr int TH = 8;
constexpr int TW = 16;
constexpr int BN = 64;
constexpr int VEC = 8;
constexpr int PX = 9;
constexpr int TPT = 9;
constexpr int THREADS = 256;
constexpr int VL = 8;
constexpr int VLD = 8;
constexpr int SV = 8;
constexpr int CTS = 64;
constexpr int XSPLIT = 1;
constexpr int XROW = 1152;
constexpr int XS_BYTES = 23040;
constexpr int DYS_BYTES = 16384;
constexpr int WS_BYTES = 32768;
constexpr int RAW_BYTES = 0;
constexpr int SMEM_BYTES = 78848;
constexpr int GRID_X = 64;
constexpr int W_REG_BUDGET = 160;
constexpr int STAGES = 2;
constexpr int SLABS = 64;
constexpr int TILES_PER_SLAB = 14;
constexpr long long RED_PLANE = 1296;
constexpr int RED_SPLIT = 64;

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

// ---- derived constants shared by both math paths ----
constexpr int C_ = G_ * CG;
constexpr int K_ = G_ * KG;
constexpr int GPB = BN / KG;  // groups per CTA
constexpr int CT = GPB * CG;  // input channels per CTA
constexpr int TAPS = FZ * FY * FX;
constexpr int WPK = TAPS * CG;                       // weights per output channel
constexpr int ITD = FZ;                              // depth slices staged (one per z tap)
constexpr int ITH = (TH - 1) * SH + (FY - 1) * DH + 1;  // halo rows
constexpr int ITW = (TW - 1) * SW + (FX - 1) * DW + 1;  // halo columns
constexpr int TILES_W = (OW + TW - 1) / TW;
constexpr int TILES_H = (OH + TH - 1) / TH;
constexpr int CHUNKS_PER_PIX = CT / VL;
constexpr int TOTAL_CHUNKS = ITD * ITH * ITW * CHUNKS_PER_PIX;
constexpr int ROWCHUNKS = ITW * CHUNKS_PER_PIX;  // copies per staged row
constexpr int HALO_ROWS = ITD * ITH;
// Rows copied per pass when a row has at most THREADS copies, else 0 (generic loop).
constexpr int RSTEP = THREADS / ROWCHUNKS;
constexpr int SPATIAL_TILES = TILES_W * TILES_H * OD * N_;
// XSPLIT: the stride phases a staged row's columns are de-interleaved into (the tensor-core
// paths at SW > 1, direct/shape.rs `halo_split`; 1 = natural order): halo column x sits in
// slot (x % XSPLIT)*XPW + x / XSPLIT, so output pixels tx, tx+1, ... of one tap read
// consecutive slots (tx + halo_col(tap column)) instead of slots SW apart.
constexpr int XPW = (ITW + XSPLIT - 1) / XSPLIT;  // slots of one phase
// (or 2 at stride 1 where the tensor-core path's A fragments slide, fwd_mma.cu's A_SLIDE)
static_assert(XSPLIT == 1 || XSPLIT == SW || XSPLIT == 2, "halo phases: natural order, the column stride or the parity");
__host__ __device__ constexpr int halo_col(int x) {
  return XSPLIT == 1 ? x : (x % XSPLIT) * XPW + x / XSPLIT;
}
constexpr int TX_SLOTS = SW / XSPLIT;  // slots between adjacent output pixels of one tap

// N elements staged by the CTA, element i by thread i % THREADS, with up to STAGE_BATCH global
// reads of a thread in flight before the first of them is used: `read(i)` gives element i (i <
// N) as read (a value or a 16-byte vector), `put(i, v)` stores it. (A loop of one read and its
// store per step waits a whole global latency per element: on the 7×7 depthwise CUDA-core
// members, the filter's 7 reads per thread were 15 % of the kernel's stall samples.)
constexpr int STAGE_BATCH = 8;
template <int N, typename Read, typename Put>
__device__ __forceinline__ void stage_batched(int tid, Read read, Put put) {
  using T = decltype(read(0));
  constexpr int PER = (N + THREADS - 1) / THREADS;  // elements of one thread
  constexpr int B = PER < STAGE_BATCH ? PER : STAGE_BATCH;
  for (int i0 = tid; i0 < N; i0 += B * THREADS) {
    T v[B];
#pragma unroll
    for (int b = 0; b < B; ++b) {
      const int i = i0 + b * THREADS;
      v[b] = i < N ? read(i) : T{};
    }
#pragma unroll
    for (int b = 0; b < B; ++b) {
      const int i = i0 + b * THREADS;
      if (i < N) put(i, v[b]);
    }
  }
}
// CTS: shared-memory stride of one staged pixel (CT, or CT plus 16 bytes on the mma path).
static_assert(CTS >= CT && (CTS - CT) * ESZ % 16 == 0, "pixel stride");
static_assert(XROW >= XSPLIT * XPW * CTS && (XROW - ITW * CTS) * ESZ % 16 == 0, "row stride");
// STAGES 3 (tensor cores): a column of tiles walked over every output depth slice, each input
// slice staged once into a ring of HALO_BUFS = FZ + 1 slots of XS_BYTES (walk_tiles).
constexpr bool DEPTH_STREAM = STAGES == 3;
constexpr int HALO_BUFS = DEPTH_STREAM ? FZ + 1 : STAGES;  // halo buffers in shared memory
static_assert(XS_BYTES >= (DEPTH_STREAM ? 1 : ITD) * ITH * XROW * ESZ && XS_BYTES % 16 == 0,
              "input tile size");
static_assert(!DEPTH_STREAM || (FZ > 1 && SD == 1 && DD == 1), "depth streaming: depth taps, stride 1, dilation 1");
static_assert(BN % KG == 0 && CT % VL == 0, "tile shape");
static_assert(STAGES >= 1 && STAGES <= 3, "stages");
static_assert(SMEM_BYTES == HALO_BUFS * XS_BYTES + WS_BYTES + RAW_BYTES, "launch shared memory");
static_assert(STAGES == 1 ? GRID_X == SPATIAL_TILES
                          : (DEPTH_STREAM ? GRID_X * OD == SPATIAL_TILES : GRID_X <= SPATIAL_TILES),
              "launch grid");
static_assert(C_ % VL == 0, "vector widths");

// Output tile t of the CTA's walk: (n, od, tile row, tile column), tile column fastest. zs:
// the ring slot of the tile's first depth tap (depth streaming; 0 otherwise).
struct TileAt {
  int n, od, oh0, ow0, zs;
};
__device__ __forceinline__ TileAt tile_at(int t) {
  TileAt a;
  a.ow0 = (t % TILES_W) * TW;
  t /= TILES_W;
  a.oh0 = (t % TILES_H) * TH;
  t /= TILES_H;
  a.od = t % OD;
  a.n = t / OD;
  a.zs = 0;
  return a;
}

// 1. Input halo tile of output tile `a`: VL channels per copy, consecutive threads on
//    consecutive channel chunks of one pixel (coalesced), zero-fill for padding and channels
//    beyond C. Asynchronous (cp.async) on the GPU; the caller commits and waits.
__device__ __forceinline__ void load_halo(elem_t* xs, const elem_t* __restrict__ X, TileAt a,
                                          int c0, int tid) {
  const int id0 = a.od * SD - PD;
  const int ih0 = a.oh0 * SH - PH;
  const int iw0 = a.ow0 * SW - PW;
  if constexpr (RSTEP >= 1) {
    // Row-strided: a thread keeps one (column, channel chunk) of the halo rows and walks rows
    // RSTEP apart, so the column decode and checks happen once per tile.
    const int rc = tid % ROWCHUNKS;
    const int r0 = tid / ROWCHUNKS;
    if (r0 >= RSTEP) return;
    const int ch = rc % CHUNKS_PER_PIX;
    const int x = rc / CHUNKS_PER_PIX;
    const int iw = iw0 + x;
    const int c = c0 + ch * VL;
    const bool col_ok = (unsigned)iw < (unsigned)IW && c < C_;
    elem_t* dst = xs + halo_col(x) * CTS + ch * VL;
    for (int r = r0; r < HALO_ROWS; r += RSTEP) {
      const int z = r / ITH;
      const int id = id0 + z * DD;
      const int ih = ih0 + (r - z * ITH);
      const bool ok = col_ok && (unsigned)id < (unsigned)ID && (unsigned)ih < (unsigned)IH;
      const int goff = ok ? (((a.n * ID + id) * IH + ih) * IW + iw) * C_ + c : 0;
      copy_to_smem<VL * ESZ>(dst + r * XROW, X + goff, ok);
    }
    return;
  }
  for (int i = tid; i < TOTAL_CHUNKS; i += THREADS) {
    const int ch = i % CHUNKS_PER_PIX;
    const int pix = i / CHUNKS_PER_PIX;
    const int x = pix % ITW;
    const int rest = pix / ITW;
    const int y = rest % ITH;
    const int z = rest / ITH;
    const int id = id0 + z * DD;
    const int ih = ih0 + y;
    const int iw = iw0 + x;
    const int c = c0 + ch * VL;
    const int soff = rest * XROW + halo_col(x) * CTS + ch * VL;  // rest = z·ITH + y
    const bool ok = (unsigned)id < (unsigned)ID && (unsigned)ih < (unsigned)IH &&
                    (unsigned)iw < (unsigned)IW && c < C_;
    const int goff = ok ? (((a.n * ID + id) * IH + ih) * IW + iw) * C_ + c : 0;
    copy_to_smem<VL * ESZ>(xs + soff, X + goff, ok);
  }
}

// Depth streaming: a thread's copies of one input slice are the same (halo row, column,
// channel chunk) at every depth, so their spatial part is derived once per tile column
// (slice_plan) and each slice's copies only add the depth: SLICE_IT copies per thread, with
// the shared-memory offset, the element offset inside one input slice of the image and two
// bits (the copy exists; its row and column are inside the input). load_slice's copy loop is
// not unrolled, so the plan stays in local memory and costs no register during the MMAs (in
// registers it cost the 3D C/G 8 member a CTA per SM). Up to SLICE_PLAN_MAX copies a thread;
// beyond, load_slice decodes every copy.
constexpr int SLICE_COPIES = ITH * ROWCHUNKS;
constexpr int SLICE_IT = (SLICE_COPIES + THREADS - 1) / THREADS;
constexpr int SLICE_PLAN_MAX = 4;
constexpr bool SLICE_PLAN = DEPTH_STREAM && SLICE_IT <= SLICE_PLAN_MAX;
constexpr int SLICE_PLAN_IT = SLICE_PLAN ? SLICE_IT : 1;
struct SlicePlan {
  int soff[SLICE_PLAN_IT];  // elements from the ring slot's start
  int goff[SLICE_PLAN_IT];  // elements from the input slice's start (0 when outside)
  unsigned live, inside;    // bit k: copy k exists; its row, column and channels are inside X
};

// Copy i of a slice (row-major over ITH rows of ITW columns of CHUNKS_PER_PIX chunks): its
// shared-memory offset, and whether its row, column and channels lie inside the input, with
// the element offset inside one input depth slice of the image.
__device__ __forceinline__ bool slice_copy(TileAt a, int c0, int i, int& soff, int& goff) {
  const int ch = i % CHUNKS_PER_PIX;
  const int pix = i / CHUNKS_PER_PIX;
  const int x = pix % ITW;
  const int y = pix / ITW;
  const int ih = a.oh0 * SH - PH + y;
  const int iw = a.ow0 * SW - PW + x;
  const int c = c0 + ch * VL;
  const bool ok = (unsigned)ih < (unsigned)IH && (unsigned)iw < (unsigned)IW && c < C_;
  soff = y * XROW + halo_col(x) * CTS + ch * VL;
  goff = ok ? (ih * IW + iw) * C_ + c : 0;
  return ok;
}

__device__ __forceinline__ SlicePlan slice_plan(TileAt a, int c0, int tid) {
  SlicePlan pl;
  pl.live = 0u;
  pl.inside = 0u;
#pragma unroll
  for (int k = 0; k < SLICE_PLAN_IT; ++k) {
    const int i = tid + k * THREADS;
    pl.soff[k] = 0;
    pl.goff[k] = 0;
    if (i < SLICE_COPIES) {
      pl.live |= 1u << k;
      if (slice_copy(a, c0, i, pl.soff[k], pl.goff[k])) pl.inside |= 1u << k;
    }
  }
  return pl;
}

// Input slice `id` (depth) of output tile `a`'s halo, ITH rows from xs (depth streaming):
// load_halo's copies for one depth tap, zero-filled when `id` is outside the input.
__device__ __forceinline__ void load_slice(elem_t* xs, const elem_t* __restrict__ X, TileAt a, int id,
                                           int c0, int tid, const SlicePlan& pl) {
  const bool id_ok = (unsigned)id < (unsigned)ID;
  if constexpr (SLICE_PLAN) {
    const int base = id_ok ? (a.n * ID + id) * (IH * IW * C_) : 0;
#pragma unroll 1
    for (int k = 0; k < SLICE_PLAN_IT; ++k) {
      if (!((pl.live >> k) & 1u)) continue;
      const bool ok = id_ok && ((pl.inside >> k) & 1u);
      copy_to_smem<VL * ESZ>(xs + pl.soff[k], X + (ok ? base + pl.goff[k] : 0), ok);
    }
    return;
  }
  for (int i = tid; i < SLICE_COPIES; i += THREADS) {
    int soff, goff;
    const bool ok = slice_copy(a, c0, i, soff, goff) && id_ok;
    copy_to_smem<VL * ESZ>(xs + soff, X + (ok ? (a.n * ID + id) * (IH * IW * C_) + goff : 0), ok);
  }
}

// The CTA's walk over its output tiles: `compute(xs, tile)` on each, with xs the staged halo.
// STAGES 1: tile blockIdx.x only. STAGES 2 (persistent): tiles blockIdx.x, blockIdx.x + GRID_X,
// ..., the next tile's halo in flight in the second buffer while the current one is computed.
// STAGES 3 (depth streaming, SD = DD = 1): tile column blockIdx.x (n, tile row, tile column) at
// every output slice od = 0, 1, ...; input slice id = od − PD + z of depth tap z sits in ring
// slot (id + PD) mod HALO_BUFS, i.e. (od + z) mod HALO_BUFS, so the next output slice needs one
// new input slice, staged (in the slot the previous output slice's first tap used) while the
// current one is computed; xs is then the ring and tile.zs = od mod HALO_BUFS.
// Copies the caller issued before (the weights) complete with the first tile's group.
// `prologue()` runs once, after the first tile's halo copies are issued and before they are
// waited for, so that plain global reads (weights gathered or widened into shared memory)
// overlap the copies in flight; the first tile's barrier publishes its stores. It must issue
// no cp.async copy (a later group than the first tile's wait covers).
struct NoPrologue {
  __device__ __forceinline__ void operator()() const {}
};
template <class F, class P = NoPrologue>
__device__ __forceinline__ void walk_tiles(unsigned char* smem, const elem_t* __restrict__ X,
                                           int c0, int tid, F compute, P prologue = P()) {
  elem_t* xs0 = reinterpret_cast<elem_t*>(smem);
  if constexpr (STAGES == 1) {
    const TileAt a = tile_at(blockIdx.x);
    load_halo(xs0, X, a, c0, tid);
    cp_async_commit();
    prologue();
    cp_async_wait<0>();
    __syncthreads();
    compute(xs0, a);
  } else if constexpr (DEPTH_STREAM) {
    constexpr int SLOT = XS_BYTES / ESZ;  // elements of a ring slot
    constexpr int PLANE = TILES_W * TILES_H;  // tile columns of one image
    TileAt a = tile_at((int)blockIdx.x / PLANE * OD * PLANE + (int)blockIdx.x % PLANE);  // od 0
    const SlicePlan pl = slice_plan(a, c0, tid);
    for (int z = 0; z < FZ; ++z) load_slice(xs0 + z * SLOT, X, a, z - PD, c0, tid, pl);
    cp_async_commit();
    prologue();
    for (int od = 0; od < OD; ++od) {
      if (od + 1 < OD) load_slice(xs0 + ((od + FZ) % HALO_BUFS) * SLOT, X, a, od + FZ - PD, c0, tid, pl);
      cp_async_commit();
      cp_async_wait<1>();  // every group but the newest: output slice od's input slices have landed
      __syncthreads();
      a.od = od;
      a.zs = od % HALO_BUFS;
      compute(xs0, a);
      __syncthreads();  // all reads of slot od mod HALO_BUFS done before the next prefetch refills it
    }
  } else {
    elem_t* xs1 = reinterpret_cast<elem_t*>(smem + XS_BYTES);
    int t = blockIdx.x;
    load_halo(xs0, X, tile_at(t), c0, tid);
    cp_async_commit();
    prologue();
    for (int b = 0; t < SPATIAL_TILES; t += GRID_X, b ^= 1) {
      if (t + GRID_X < SPATIAL_TILES) load_halo(b ? xs0 : xs1, X, tile_at(t + GRID_X), c0, tid);
      cp_async_commit();
      cp_async_wait<1>();  // every group but the newest: tile t has landed
      __syncthreads();
      compute(b ? xs1 : xs0, tile_at(t));
      __syncthreads();  // all reads of this buffer done before it is refilled
    }
  }
}

// ---- backward weight (wgrad) on CUDA cores (direct/wgrad.rs) ----
// dW[g][kk][tap][c] = sum over (n, output pixel) of dY[n, o, g, kk] * X[n, o*s - p + tap*d, g, c].
// CTA (blockIdx.x = slab, blockIdx.y = channel block) owns BN output channels (whole groups,
// their CT input channels) and the contiguous run of output tiles [slab*TILES_PER_SLAB, ...)
// of the tile walk of common.cu (tile_at); per tile it stages the X halo (load_halo) and the
// dY tile, double-buffered. Thread = (channel lane, tap group, pixel group): VEC adjacent output
// channels x TPT consecutive taps (x CG input channels) of f32 accumulators in registers, over
// the tile pixels pg, pg + PGS, ...; threads beyond LANES x TGS x PGS only copy. At the end of
// the slab the PGS pixel groups are summed in a fixed order through shared memory and the CTA
// writes its rows of one partial plane (f32, workspace plane `slab`), or dW itself when the
// launch has one slab. in0 = X, in1 = dY, out = dW.
constexpr int LANES = BN / VEC;                   // channel lanes of a CTA
constexpr int TGS = (TAPS + TPT - 1) / TPT;       // tap groups
constexpr int PGS = THREADS / (LANES * TGS);      // pixel groups
constexpr int TILE_PIX = TH * TW;                 // pixels of a tile
constexpr int DY_CHUNKS = TILE_PIX * (BN / VLD);  // dY copies of a tile
constexpr int RED_FLOATS = PGS * BN * WPK;        // the pixel-group reduction area
constexpr bool VECTOR_PATH = CG == 1 && KG == 1;  // depthwise: X channel = dY channel
static_assert(STAGES == 2 && GRID_X == SLABS, "double-buffered slab walk");
static_assert(PGS >= 1, "threads: channel lanes x tap groups must fit the CTA");
static_assert(CTS == CT && BN % VEC == 0, "tile shape");
static_assert(BN % VLD == 0 && K_ % VLD == 0, "dY copy width");
static_assert(DYS_BYTES >= TILE_PIX * BN * ESZ && DYS_BYTES % 16 == 0, "dY tile size");
static_assert(WS_BYTES >= 2 * DYS_BYTES, "dY stages");
static_assert(SMEM_BYTES >= RED_FLOATS * 4, "reduction area");
static_assert(SLABS * TILES_PER_SLAB >= SPATIAL_TILES, "slabs cover the tiles");
static_assert(RED_PLANE == (long long)K_ * WPK, "partial plane = |dW|");

// The dY tile of output tile `a`: VLD channels per copy, channel chunks of a pixel on
// consecutive threads; zero-fill for pixels outside dY (tile tails) and channels beyond K, so
// that those products vanish whatever the halo holds there.
__device__ __forceinline__ void load_dy(elem_t* dys, const elem_t* __restrict__ dY, TileAt a,
                                        int k0, int tid) {
  for (int i = tid; i < DY_CHUNKS; i += THREADS) {
    const int ch = i % (BN / VLD);
    const int pix = i / (BN / VLD);
    const int oy = pix / TW;
    const int oh = a.oh0 + oy;
    const int ow = a.ow0 + (pix - oy * TW);
    const int k = k0 + ch * VLD;
    const bool ok = oh < OH && ow < OW && k < K_;
    const int goff = ok ? (((a.n * OD + a.od) * OH + oh) * OW + ow) * K_ + k : 0;
    copy_to_smem<VLD * ESZ>(dys + pix * BN + ch * VLD, dY + goff, ok);
  }
}

// False when tap (tz, ty, tx) reads only padding for every pixel of tile `a` (then it adds
// nothing and is skipped). Conservative: the range test may keep a dead tap of a strided walk.
__device__ __forceinline__ bool tap_live(TileAt a, int tz, int ty, int tx) {
  const int id = a.od * SD - PD + tz * DD;
  const int oh1 = (a.oh0 + TH < OH ? a.oh0 + TH : OH) - 1;
  const int ow1 = (a.ow0 + TW < OW ? a.ow0 + TW : OW) - 1;
  const int ih0 = a.oh0 * SH - PH + ty * DH, ih1 = oh1 * SH - PH + ty * DH;
  const int iw0 = a.ow0 * SW - PW + tx * DW, iw1 = ow1 * SW - PW + tx * DW;
  return (unsigned)id < (unsigned)ID && ih1 >= 0 && ih0 < IH && iw1 >= 0 && iw0 < IW;
}

// One staged tile into the thread's accumulators.
__device__ __forceinline__ void accumulate(const elem_t* xs, const elem_t* dys, TileAt a,
                                           int lane, int tg, int pg,
                                           float (&acc)[TPT][VEC][CG]) {
  const int kl0 = lane * VEC;
#pragma unroll
  for (int i = 0; i < TPT; ++i) {
    const int tap = tg * TPT + i;
    if (tap >= TAPS) break;
    const int tz = tap / (FY * FX);
    const int ty = (tap / FX) % FY;
    const int tx = tap % FX;
    if (!tap_live(a, tz, ty, tx)) continue;
    const elem_t* xt = xs + (tz * ITH + ty * DH) * XROW + tx * DW * CTS;
    for (int pix = pg; pix < TILE_PIX; pix += PGS) {
      const int oy = pix / TW;
      const int ox = pix - oy * TW;
      const elem_t* xp = xt + oy * SH * XROW + ox * SW * CTS;
      const elem_t* dp = dys + pix * BN + kl0;
      if constexpr (VECTOR_PATH) {
        float d[VEC], x[VEC];
        load_f32<VEC>(dp, d);
        load_f32<VEC>(xp + kl0, x);
#pragma unroll
        for (int v = 0; v < VEC; ++v) acc[i][v][0] = fmaf(d[v], x[v], acc[i][v][0]);
      } else {
        // Channel multiplier / small groups: output channel kl of the CTA reads the CG input
        // channels of its group (kl / KG).
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
          const float dv = to_f32(dp[v]);
          const elem_t* xg = xp + ((kl0 + v) / KG) * CG;
#pragma unroll
          for (int c = 0; c < CG; ++c) acc[i][v][c] = fmaf(dv, to_f32(xg[c]), acc[i][v][c]);
        }
      }
    }
  }
}

extern "C" __global__ void __launch_bounds__(THREADS) direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk64d_simt_gen(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace) {
  GCONV_DYNAMIC_SMEM(smem);
  release_dependents();  // the split reduction may start as the last wave drains (prelude)
  // [2] X halo tiles (XS_BYTES each), then [2] dY tiles (DYS_BYTES each); after the walk the
  // same bytes hold the [PGS][BN][WPK] f32 reduction area.
  const elem_t* __restrict__ X = reinterpret_cast<const elem_t*>(in0);
  const elem_t* __restrict__ dY = reinterpret_cast<const elem_t*>(in1);
  elem_t* xs0 = reinterpret_cast<elem_t*>(smem);
  elem_t* xs1 = reinterpret_cast<elem_t*>(smem + XS_BYTES);
  elem_t* dy0 = reinterpret_cast<elem_t*>(smem + 2 * XS_BYTES);
  elem_t* dy1 = reinterpret_cast<elem_t*>(smem + 2 * XS_BYTES + DYS_BYTES);
  const int tid = threadIdx.x;
  const int k0 = blockIdx.y * BN;  // first output channel of the CTA
  const int c0 = blockIdx.y * CT;  // first input channel of the CTA
  const int lane = tid % LANES;
  const int tg = (tid / LANES) % TGS;
  const int pg = tid / (LANES * TGS);
  const bool active = pg < PGS;

  float acc[TPT][VEC][CG];
#pragma unroll
  for (int i = 0; i < TPT; ++i) {
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
#pragma unroll
      for (int c = 0; c < CG; ++c) acc[i][v][c] = 0.0f;
    }
  }

  // The slab's tiles, the next tile's X halo and dY tile in flight during the current one.
  const int t0 = blockIdx.x * TILES_PER_SLAB;
  const int t1 = t0 + TILES_PER_SLAB < SPATIAL_TILES ? t0 + TILES_PER_SLAB : SPATIAL_TILES;
  if (t0 < t1) {
    load_halo(xs0, X, tile_at(t0), c0, tid);
    load_dy(dy0, dY, tile_at(t0), k0, tid);
  }
  cp_async_commit();
  for (int t = t0, b = 0; t < t1; ++t, b ^= 1) {
    if (t + 1 < t1) {
      load_halo(b ? xs0 : xs1, X, tile_at(t + 1), c0, tid);
      load_dy(b ? dy0 : dy1, dY, tile_at(t + 1), k0, tid);
    }
    cp_async_commit();
    cp_async_wait<1>();  // every group but the newest: tile t has landed
    __syncthreads();
    if (active) accumulate(b ? xs1 : xs0, b ? dy1 : dy0, tile_at(t), lane, tg, pg, acc);
    __syncthreads();  // all reads of this buffer done before it is refilled
  }

  // Pixel groups summed in a fixed order (pg 0, 1, ...): bit-identical across runs.
  float* red = reinterpret_cast<float*>(smem);
  if (active) {
#pragma unroll
    for (int i = 0; i < TPT; ++i) {
      const int tap = tg * TPT + i;
      if (tap >= TAPS) break;
#pragma unroll
      for (int v = 0; v < VEC; ++v) {
#pragma unroll
        for (int c = 0; c < CG; ++c) red[(pg * BN + lane * VEC + v) * WPK + tap * CG + c] = acc[i][v][c];
      }
    }
  }
  __syncthreads();
  // The CTA's BN output channels are BN consecutive rows of WPK values in dW (and in a partial
  // plane): consecutive threads store consecutive values.
  for (int e = tid; e < BN * WPK; e += THREADS) {
    float s = 0.0f;
    for (int p = 0; p < PGS; ++p) s += red[p * BN * WPK + e];
    if (k0 + e / WPK < K_) {
      const long long o = (long long)k0 * WPK + e;
      if constexpr (SLABS == 1) {
        from_f32(s, reinterpret_cast<elem_t*>(out)[o]);
      } else {
        reinterpret_cast<float*>(workspace)[blockIdx.x * RED_PLANE + o] = s;
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
extern "C" __global__ void __launch_bounds__(256) direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk64d_simt_gen_reduce(const void* __restrict__ in0,
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
extern "C" __global__ void __launch_bounds__(256) direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk64d_simt_gen_zero(const void* __restrict__ in0,
                                                              const void* __restrict__ in1,
                                                              void* __restrict__ out,
                                                              void* __restrict__ workspace) {
  const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
  if (i < RED_PLANE) reinterpret_cast<float*>(workspace)[i] = 0.f;
}
extern "C" __global__ void __launch_bounds__(256) direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk64d_simt_gen_convert(const void* __restrict__ in0,
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
