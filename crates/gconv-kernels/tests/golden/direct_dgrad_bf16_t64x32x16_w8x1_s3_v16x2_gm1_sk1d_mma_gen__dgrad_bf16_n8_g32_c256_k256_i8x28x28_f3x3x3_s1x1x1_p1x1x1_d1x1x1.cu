// gconv direct backward-data kernel: generated, do not edit
// kernel:  direct_dgrad_bf16_t64x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen
// problem: dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
// computed as the forward problem fwd_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 (flipped, channel-transposed filter)
// tile 4x16 pixels x 32 channels, halo 3x6x18 x 32 input channels, smem 49408 B
#define ELEM unsigned short
constexpr bool IS_BF16 = true;
constexpr int ESZ = 2;
constexpr int N_ = 8;
constexpr int ID = 8;
constexpr int IH = 28;
constexpr int IW = 28;
constexpr int OD = 8;
constexpr int OH = 28;
constexpr int OW = 28;
constexpr int FZ = 3;
constexpr int FY = 3;
constexpr int FX = 3;
constexpr int SD = 1;
constexpr int SH = 1;
constexpr int SW = 1;
constexpr int PD = 1;
constexpr int PH = 1;
constexpr int PW = 1;
constexpr int DD = 1;
constexpr int DH = 1;
constexpr int DW = 1;
constexpr int G_ = 32;
constexpr int CG = 8;
constexpr int KG = 8;
constexpr int TH = 4;
constexpr int TW = 16;
constexpr int BN = 32;
constexpr int VEC = 16;
constexpr int PX = 2;
constexpr int THREADS = 256;
constexpr int VL = 8;
constexpr int SV = 8;
constexpr int CTS = 40;
constexpr int XSPLIT = 2;
constexpr int XROW = 720;
constexpr int XS_BYTES = 8640;
constexpr int WS_BYTES = 14848;
constexpr int RAW_BYTES = 0;
constexpr int SMEM_BYTES = 49408;
constexpr int GRID_X = 112;
constexpr int MIN_CTAS = 1;
constexpr int W_REG_BUDGET = 160;
constexpr int STAGES = 3;
constexpr int DGRAD = 1;
constexpr int NW = 8;
constexpr int MB = 2;
constexpr int WROW = 232;
constexpr int GM = 1;
constexpr int CG0 = 8;
constexpr int KG0 = 8;
constexpr int B_RESIDENT = 0;
constexpr int A_SLIDE = 1;

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
// ---- backward data (dgrad) as a forward convolution ----
// The module computes dX = fwd(dY, W') on the dual problem (Problem::dgrad_dual: stride 1,
// padding dil·(F−1) − pad, C' = K, K' = C): every constant above is the dual's, in0 is dY (the
// dual's input), out is dX (its output). Only the weights differ: W' is the original filter
// flipped in space and transposed in channels, W'[g][c][tap][kk] = W[g][kk][TAPS−1−tap][c],
// and it is never materialised; the staging loop reads W through this index.
//
// Element of W (laid out G, K/G, taps, C/G of the dgrad problem, i.e. [G][CGW][TAPS][KGW]) that
// is weight r = tap·CGW + kk of the dual's output channel k = g·KGW + c, for a dual of CGW
// input and KGW output channels per group (the real groups: CG, KG, or CG0, KG0 when groups
// are merged on the mma path).
template <int CGW, int KGW>
__device__ __forceinline__ int dgrad_w_index(int k, int r) {
  const int g = k / KGW;
  const int c = k - g * KGW;
  const int tap = r / CGW;
  const int kk = r - tap * CGW;
  return ((g * CGW + kk) * TAPS + (TAPS - 1 - tap)) * KGW + c;
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

// ---- tensor-core (mma.sync) path of the direct family ----
// The staged halo is the implicit-GEMM A operand: row m of an m16 block is an output pixel of
// the tile, column k = (tap, channel) of its group, and ldmatrix takes each lane's row address
// straight from the halo (pixel base + the tap's row/column offset), so the input is read from
// global memory once per tile instead of once per tap. Work unit of a warp: NW output channels
// (one group or part of one) x MB m16 blocks of pixels; units are dealt to warps round robin.
// (ldsm_x4/x2 and mma16816: mma_ptx.cu, smem_u32: the prelude, both emitted before this file.)

constexpr int WARPS = THREADS / 32;
constexpr int NB = NW / 8;                   // n8 blocks of a unit
constexpr int MT = TH * TW;                  // pixels of a tile
constexpr int MBLK = (MT + 15) / 16;         // m16 blocks of a tile (the last may be partial)
constexpr int UM = (MBLK + MB - 1) / MB;     // units along the pixels
constexpr int UN = BN / NW;                  // units along the channels
constexpr int UNITS = UM * UN;
constexpr int CPT = CG / 8;                  // 8-channel chunks per tap
constexpr int KCH = TAPS * CPT;              // k8 chunks of the reduction, tap-major
constexpr int KSTEPS = (KCH + 1) / 2;        // k16 steps (an odd KCH leaves half a step)
constexpr int WCH = WPK / 8;                 // 16-byte chunks of one output channel's weights
static_assert(!(ESZ == 4), "mma path: 16-bit data");
static_assert(CG % 8 == 0 && KG % 8 == 0 && NW % 8 == 0 && KG % NW == 0, "mma channel blocks");
static_assert(CTS % 8 == 0 && (CTS / 8) % 2 == 1, "pixel stride: odd number of 16-byte chunks");
static_assert(WROW >= KSTEPS * 16 && WROW % 8 == 0 && (WROW / 8) % 2 == 1, "weight row stride");
static_assert(WS_BYTES == BN * WROW * ESZ, "weight tile size");
static_assert(VL == 8, "16-byte halo copies");
static_assert(GM >= 1 && CG == GM * CG0 && KG == GM * KG0, "merged groups");
static_assert(GM == 1 ? RAW_BYTES == 0 : RAW_BYTES >= BN * TAPS * CG0 * ESZ && (BN * TAPS * CG0) % 8 == 0,
              "raw weight area");
// B_RESIDENT (mma.rs, b_resident): a warp loads the tile's B fragments once, before its units,
// which all have the same channels (WARPS a multiple of UN, units dealt round robin).
static_assert(!B_RESIDENT || (WARPS % UN == 0 && UNITS > WARPS), "resident B fragments");

// The B fragments of k16 step s for the unit whose channel rows start at bbase.
__device__ __forceinline__ void load_b(u32 bbase, int s, u32 (&bf)[NB][2]) {
#pragma unroll
  for (int j = 0; j + 1 < NB; j += 2) {
    u32 r[4];
    ldsm_x4(r, bbase + (u32)((j * 8 * WROW + s * 16) * ESZ));
    bf[j][0] = r[0];
    bf[j][1] = r[1];
    bf[j + 1][0] = r[2];
    bf[j + 1][1] = r[3];
  }
  if constexpr (NB % 2 == 1) {
    u32 r[2];
    ldsm_x2(r, bbase + (u32)(((NB - 1) * 8 * WROW + s * 16) * ESZ));
    bf[NB - 1][0] = r[0];
    bf[NB - 1][1] = r[1];
  }
}

// Element offset in the halo of k8 chunk j (tap-major: tap = j / CPT, channels (j % CPT)·8..);
// with depth streaming, in its depth tap's ring slot (chunk_z: that tap, zoff below).
constexpr int chunk_off(int j) {
  const int tap = j / CPT;
  const int fz = tap / (FY * FX);
  const int fy = (tap / FX) % FY;
  const int fx = tap % FX;
  return ((DEPTH_STREAM ? 0 : fz * ITH) + fy * DH) * XROW + halo_col(fx * DW) * CTS + (j % CPT) * 8;
}
constexpr int chunk_z(int j) { return j / CPT / (FY * FX); }

// ---- A_SLIDE (mma.rs, a_slide): A fragments that slide along the filter row ----
// Column stride and dilation 1, an even TW: the 16 rows of an m16 block are 8 horizontally
// adjacent pixel pairs, row g = pixel 2g and row g + 8 = pixel 2g + 1 of the block, so the 8x8
// A matrix of rows g + 8 at filter column fx is the matrix of rows g at fx + 1. The k16 steps
// are visited filter row by filter row (in a row, channel chunk by channel chunk and column by
// column: step_at), and each step loads (ldmatrix x4/x2/x1) only the matrices that the
// previous step does not hold (3D layers with one chunk per tap: tap_rows instead). XSPLIT
// is 2: halo column x sits in slot (x % 2)·XPW + x / 2, so the pixels 2g of a phase read
// consecutive slots (eight bank groups with the odd pixel stride), and pixel 2g + d of a lane
// whose pixel 2g has an even column sits halo_col(d) slots after it.
static_assert(!A_SLIDE || (SW == 1 && DW == 1 && XSPLIT == 2 && TW % 2 == 0 && (CPT == 1 || CPT % 2 == 0)),
              "sliding A fragments");
constexpr int SLIDE_ROW = CPT == 1 ? 1 : FX * (CPT / 2);  // k16 steps of one filter row (CPT even)
// The k16 step visited i-th.
constexpr int step_at(int i) {
  return (!A_SLIDE || CPT == 1)
             ? i
             : ((i / SLIDE_ROW) * FX + (i % SLIDE_ROW) % FX) * (CPT / 2) + (i % SLIDE_ROW) / FX;
}
// Slot q of step s, in the order of an x4 A fragment: k8 chunk 2s + (q >> 1), rows g (q even)
// or g + 8 (q odd). The second chunk of an odd chunk count's last step is zero.
constexpr bool slot_zero(int s, int q) { return (q >> 1) == 1 && 2 * s + 1 >= KCH; }
// Its offset (elements) from the lane's pixel base, and its depth tap (ring slot).
constexpr int slide_off(int s, int q) {
  const int j = 2 * s + (q >> 1);
  const int tap = j / CPT;
  const int fz = tap / (FY * FX);
  const int fy = (tap / FX) % FY;
  return ((DEPTH_STREAM ? 0 : fz * ITH) + fy * DH) * XROW + halo_col(tap % FX + (q & 1)) * CTS +
         (j % CPT) * 8;
}
constexpr int slide_z(int s, int q) { return chunk_z(2 * s + (q >> 1)); }
constexpr bool same_matrix(int s, int q, int t, int r) {
  return !slot_zero(s, q) && !slot_zero(t, r) && slide_off(s, q) == slide_off(t, r) &&
         slide_z(s, q) == slide_z(t, r);
}
// Where slot q of the i-th step comes from: 0..3 that slot of the previous step, 4 + r the
// earlier slot r of this step, 8 a new load, 9 zero.
constexpr int slot_src(int i, int q) {
  if (slot_zero(step_at(i), q)) return 9;
  for (int r = 0; i > 0 && r < 4; ++r) {
    if (same_matrix(step_at(i - 1), r, step_at(i), q)) return r;
  }
  for (int r = 0; r < q; ++r) {
    if (same_matrix(step_at(i), r, step_at(i), q)) return 4 + r;
  }
  return 8;
}
constexpr int new_loads(int i) {
  int n = 0;
  for (int q = 0; q < 4; ++q) n += slot_src(i, q) == 8 ? 1 : 0;
  return n;
}
// The slot of the m-th new load of step i (the last new one past the count), and the rank of
// new slot q among the step's loads.
constexpr int new_slot(int i, int m) {
  int last = 0;
  for (int q = 0, n = 0; q < 4; ++q) {
    if (slot_src(i, q) == 8) {
      if (n == m) return q;
      ++n;
      last = q;
    }
  }
  return last;
}
constexpr int new_rank(int i, int q) {
  int n = 0;
  for (int r = 0; r < q; ++r) n += slot_src(i, r) == 8 ? 1 : 0;
  return n;
}
// Byte offset of slot Q of step S from the lane's pixel base (with depth streaming, in its
// depth tap's ring slot).
template <int S, int Q>
__device__ __forceinline__ u32 slot_bytes(const u32 (&zoff)[FZ]) {
  constexpr int OFF = slide_off(S, Q);
  constexpr int Z = slide_z(S, Q);
  return (u32)(OFF * ESZ) + zoff[Z];
}
// Register of slot Q of the I-th step: loaded (nw), an earlier slot of the step, the previous
// step's, or zero.
template <int I, int Q>
__device__ __forceinline__ u32 slot_reg(const u32 (&nw)[4], const u32 (&af)[4], const u32 (&pv)[4]) {
  constexpr int SRC = slot_src(I, Q);
  if constexpr (SRC == 9) {
    return 0u;
  } else if constexpr (SRC == 8) {
    return nw[new_rank(I, Q)];
  } else if constexpr (SRC >= 4) {
    return af[SRC - 4];
  } else {
    return pv[SRC];
  }
}
// The k16 steps I, I + 1, ... of a warp unit (MB blocks whose lane pixel bases are abase; lm =
// lane / 8, the matrix this lane addresses; d4, d2 its byte deltas of whole-tap steps), each
// step's matrices kept in pv for the next.
template <int I>
__device__ __forceinline__ void slide_steps(float (&acc)[MB][NB][4], u32 (&pv)[MB][4],
                                            const u32 (&abase)[MB], const u32 (&zoff)[FZ], int lm,
                                            u32 d4, u32 d2, u32 bbase,
                                            const u32 (&bres)[B_RESIDENT ? KSTEPS : 1][NB][2]) {
  if constexpr (I < KSTEPS) {
    constexpr int S = step_at(I);
    constexpr int NL = new_loads(I);
    u32 bf[NB][2];
    if constexpr (B_RESIDENT) {
#pragma unroll
      for (int j = 0; j < NB; ++j) {
        bf[j][0] = bres[B_RESIDENT ? S : 0][j][0];
        bf[j][1] = bres[B_RESIDENT ? S : 0][j][1];
      }
    } else {
      load_b(bbase, S, bf);
    }
    // Lane 8·m + j gives row j of matrix m: an x4 loads the step's new slots in order, an x2
    // the first two (lanes 16-31 unused), an x1 one (lanes 8-31 unused). Whole-tap steps (CPT
    // even) have two load patterns, each a compile-time offset plus a per-lane delta: a filter
    // row's first step loads its four slots (d4: rows g + 8 one parity plane further, chunk hi
    // 8 elements further), every later step the two slots of rows g + 8 (d2: chunk hi). With
    // one chunk per tap (CPT 1) the lane picks its matrix's offset.
    u32 off4, off2, o0, o2;
    if constexpr (CPT >= 2) {
      static_assert(NL == 4 || (NL == 2 && new_slot(I, 0) == 1 && new_slot(I, 1) == 3),
                    "whole-tap steps load four slots or the two of rows g + 8");
      static_assert(slide_z(S, 0) == slide_z(S, 3) && slide_off(S, 2) - slide_off(S, 0) == 8 &&
                        slide_off(S, 3) - slide_off(S, 1) == 8 &&
                        (NL == 2 || slide_off(S, 1) - slide_off(S, 0) == XPW * CTS),
                    "lane deltas of whole-tap steps");
      off4 = slot_bytes<S, 0>(zoff) + d4;
      off2 = slot_bytes<S, 1>(zoff) + d2;
      o0 = off2;
      o2 = off2;
    } else {
      o0 = slot_bytes<S, new_slot(I, 0)>(zoff);
      const u32 o1 = slot_bytes<S, new_slot(I, 1)>(zoff);
      o2 = slot_bytes<S, new_slot(I, 2)>(zoff);
      const u32 o3 = slot_bytes<S, new_slot(I, 3)>(zoff);
      off4 = lm == 0 ? o0 : lm == 1 ? o1 : lm == 2 ? o2 : o3;
      off2 = (lm & 1) ? o1 : o0;
    }
#pragma unroll
    for (int b = 0; b < MB; ++b) {
      u32 nw[4] = {0u, 0u, 0u, 0u};
      if constexpr (NL == 4) {
        ldsm_x4(nw, abase[b] + off4);
      } else if constexpr (NL >= 2) {
        u32 t[2];
        ldsm_x2(t, abase[b] + off2);
        nw[0] = t[0];
        nw[1] = t[1];
        if constexpr (NL == 3) ldsm_x1(nw[2], abase[b] + o2);
      } else if constexpr (NL == 1) {
        ldsm_x1(nw[0], abase[b] + o0);
      }
      u32 af[4];
      af[0] = slot_reg<I, 0>(nw, af, pv[b]);
      af[1] = slot_reg<I, 1>(nw, af, pv[b]);
      af[2] = slot_reg<I, 2>(nw, af, pv[b]);
      af[3] = slot_reg<I, 3>(nw, af, pv[b]);
#pragma unroll
      for (int j = 0; j < NB; ++j) mma16816(acc[b][j], af, bf[j][0], bf[j][1]);
#pragma unroll
      for (int q = 0; q < 4; ++q) pv[b][q] = af[q];
    }
    slide_steps<I + 1>(acc, pv, abase, zoff, lm, d4, d2, bbase, bres);
  }
}

// ---- TAP_ROWS: 3D layers with one k8 chunk per tap (C/G 8), one m16n8k8 per tap ----
// There a k16 step of two taps straddles filter columns, rows and depth slices, and an MMA's A
// registers must be one aligned quad: the sliding steps above cost about four register moves
// per MMA. Instead (mma.rs, a_slide: measured faster on 3D C/G 8 layers, slower on 2D ones,
// which keep the steps above) a filter row's FX + 1 matrices P(x) (rows g of the block at
// halo column x from the lane's pixel 2g) are loaded once, in ldmatrix groups of four, two
// and one, and tap fx is one m16n8k8 on {P(fx), P(fx + 1)} (rows g read P(fx), rows g + 8 —
// pixel 2g + 1 — read P(fx + 1)), with k the tap's eight channels: the B register is the half
// (tap % 2) of k16 step tap / 2 of the weight tile. Lane 8·lm + r addresses row r of matrix
// lm of a group; the group starting at matrix i0 (even) lies halo_col(i0 + lm) = halo_col(lm)
// + i0 / 2 slots from the lane's pixel, so the lane adds dl = halo_col(lm) slots once and
// each group a compile-time offset.
__device__ __forceinline__ void row_matrices(u32 (&p)[FX + 1], u32 base) {
  constexpr int NM = FX + 1;
  constexpr int N4 = NM / 4 * 4;              // matrices of the x4 groups
  constexpr int N2 = N4 + (NM - N4) / 2 * 2;  // and of the x2 group
#pragma unroll
  for (int i = 0; i < N4; i += 4) {
    u32 r[4];
    ldsm_x4(r, base + (u32)((i / 2) * CTS * ESZ));
#pragma unroll
    for (int q = 0; q < 4; ++q) p[i + q] = r[q];
  }
  if constexpr (N2 > N4) {
    u32 r[2];
    ldsm_x2(r, base + (u32)((N4 / 2) * CTS * ESZ));
    p[N4] = r[0];
    p[N4 + 1] = r[1];
  }
  if constexpr (NM > N2) ldsm_x1(p[N2], base + (u32)((N2 / 2) * CTS * ESZ));
}

// Every filter row (depth tap fz, row fy) of a unit's MB blocks, one m16n8k8 per tap. Tap fx
// accumulates into partial sum fx % NA (NA = min(FX, 3)), so that a block's MMAs form NA
// independent chains instead of one chain of every tap (an m16n8k8 waits for the previous
// one on its accumulators); the partials are added into acc in a fixed order at the end.
constexpr int NA = FX < 3 ? FX : 3;
constexpr bool TAP_ROWS = A_SLIDE && CPT == 1 && FZ > 1;
__device__ __forceinline__ void tap_rows(float (&acc)[MB][NB][4], const u32 (&abase)[MB],
                                         const u32 (&zoff)[FZ], u32 dl, u32 bbase,
                                         const u32 (&bres)[B_RESIDENT ? KSTEPS : 1][NB][2]) {
  // Compiled into every module of the path (the caller's branch is discarded, not absent);
  // only TAP_ROWS modules run it.
  if constexpr (TAP_ROWS) {
    float part[MB][NB][NA][4];
#pragma unroll
    for (int b = 0; b < MB; ++b) {
#pragma unroll
      for (int j = 0; j < NB; ++j) {
#pragma unroll
        for (int c = 0; c < NA; ++c) {
#pragma unroll
          for (int e = 0; e < 4; ++e) part[b][j][c][e] = 0.0f;
        }
      }
    }
#pragma unroll
    for (int row = 0; row < FZ * FY; ++row) {
      const int fz = row / FY;
      const int fy = row - fz * FY;
      const int j0 = row * FX;             // the row's first tap (k8 chunk)
      const int s0 = j0 / 2;               // the k16 steps of the weight tile holding its taps
      constexpr int SN = (FX + 1) / 2 + 1;  // at most this many
      u32 bt[FX][NB];
      if constexpr (B_RESIDENT) {
#pragma unroll
        for (int fx = 0; fx < FX; ++fx) {
#pragma unroll
          for (int j = 0; j < NB; ++j) {
            bt[fx][j] = bres[B_RESIDENT ? (j0 + fx) / 2 : 0][j][(j0 + fx) % 2];
          }
        }
      } else {
        u32 bs[SN][NB][2];
#pragma unroll
        for (int s = 0; s < SN; ++s) {
          if (s0 + s <= (j0 + FX - 1) / 2) load_b(bbase, s0 + s, bs[s]);
        }
#pragma unroll
        for (int fx = 0; fx < FX; ++fx) {
#pragma unroll
          for (int j = 0; j < NB; ++j) bt[fx][j] = bs[(j0 + fx) / 2 - s0][j][(j0 + fx) % 2];
        }
      }
      const u32 roff =
          (u32)((((DEPTH_STREAM ? 0 : fz * ITH) + fy * DH) * XROW) * ESZ) + zoff[fz] + dl;
#pragma unroll
      for (int b = 0; b < MB; ++b) {
        u32 p[FX + 1];
        row_matrices(p, abase[b] + roff);
#pragma unroll
        for (int fx = 0; fx < FX; ++fx) {
#pragma unroll
          for (int j = 0; j < NB; ++j) {
            mma1688(part[b][j][fx % NA], p[fx], p[fx + 1], bt[fx][j]);
          }
        }
      }
    }
#pragma unroll
    for (int b = 0; b < MB; ++b) {
#pragma unroll
      for (int j = 0; j < NB; ++j) {
#pragma unroll
        for (int c = 0; c < NA; ++c) {
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[b][j][e] += part[b][j][c][e];
        }
      }
    }
  }
}

__device__ __forceinline__ void compute_tile_mma(u32 xs_a, u32 ws_a, elem_t* __restrict__ Y,
                                                 TileAt a, int k0, int tid) {
  const int lane = tid & 31;
  const int warp = tid >> 5;
  // ldmatrix roles: A lane -> pixel row (lane & 7) + 8·bit3, chunk 2s + bit4; B lane -> channel
  // row (lane & 7) + 8·bit4 (second n8 block of an x4), k half bit3.
  const int arow = (lane & 7) + ((lane >> 3) & 1) * 8;
  const bool ahi = (lane >> 4) != 0;
  const int brow = (lane & 7) + (lane >> 4) * 8;
  const int bk = ((lane >> 3) & 1) * 8;
  // Epilogue roles: accumulator rows lane/4 and lane/4 + 8, channel pair 2·(lane % 4).
  const int crow = lane >> 2;
  const int cq = (lane & 3) * 2;
  // Depth streaming: byte offset of depth tap z's input slice, ring slot (a.zs + z) mod
  // HALO_BUFS (common.cu's walk_tiles); 0 otherwise (the slices follow each other).
  u32 zoff[FZ];
#pragma unroll
  for (int z = 0; z < FZ; ++z) {
    const int slot = a.zs + z < HALO_BUFS ? a.zs + z : a.zs + z - HALO_BUFS;
    zoff[z] = DEPTH_STREAM ? (u32)(slot * XS_BYTES) : 0u;
  }
  // With B_RESIDENT every unit of this warp has the channels n0 = (warp % UN)·NW: the tile's
  // B fragments are loaded here once (the weights are in place: walk_tiles calls this after
  // the tile's barrier) instead of once per unit.
  u32 bres[B_RESIDENT ? KSTEPS : 1][NB][2];
  if constexpr (B_RESIDENT) {
    const u32 bb = ws_a + (u32)((((warp % UN) * NW + brow) * WROW + bk) * ESZ);
#pragma unroll
    for (int s = 0; s < KSTEPS; ++s) load_b(bb, s, bres[s]);
  }
#pragma unroll 1
  for (int u = warp; u < UNITS; u += WARPS) {
    const int n0 = (u % UN) * NW;  // first channel of the unit inside the CTA's BN
    const int m0 = (u / UN) * MB;  // first m16 block
    const int cbase = (n0 / KG) * CG;
    u32 abase[MB];
#pragma unroll
    for (int b = 0; b < MB; ++b) {
      // A_SLIDE: every lane's base is pixel 2·(lane % 8) of the block (an even column; the
      // slots' offsets say which matrix, pixel and chunk), else its ldmatrix row's pixel.
      unsigned p = (unsigned)((m0 + b) * 16 + (A_SLIDE ? 2 * (lane & 7) : arow));
      if (p >= (unsigned)MT) p = 0;  // rows past the tile: any staged pixel, never stored
      const int ty = (int)(p / TW);
      const int tx = (int)(p - ty * TW);
      abase[b] = A_SLIDE ? xs_a + (u32)((ty * SH * XROW + (tx / 2) * CTS + cbase) * ESZ)
                         : xs_a + (u32)((ty * SH * XROW + tx * TX_SLOTS * CTS + cbase) * ESZ);
    }
    const u32 bbase = ws_a + (u32)(((n0 + brow) * WROW + bk) * ESZ);
    float acc[MB][NB][4];
#pragma unroll
    for (int b = 0; b < MB; ++b) {
#pragma unroll
      for (int j = 0; j < NB; ++j) {
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[b][j][e] = 0.0f;
      }
    }
    if constexpr (TAP_ROWS) {
      const int lm = lane >> 3;
      tap_rows(acc, abase, zoff, (u32)(halo_col(lm) * CTS * ESZ), bbase, bres);
    } else if constexpr (A_SLIDE) {
      u32 pv[MB][4] = {};
      const int lm = lane >> 3;
      const u32 d4 = (u32)(((lm & 1) * XPW * CTS + (lm >> 1) * 8) * ESZ);
      const u32 d2 = (u32)((lm & 1) * 8 * ESZ);
      slide_steps<0>(acc, pv, abase, zoff, lm, d4, d2, bbase, bres);
    } else {
#pragma unroll
      for (int s = 0; s < KSTEPS; ++s) {
        const bool half = 2 * s + 1 >= KCH;  // last step of an odd chunk count: k 8..15 are zero
        const int off_lo = chunk_off(2 * s);
        const int off_hi = half ? off_lo : chunk_off(2 * s + 1);
        u32 aoff = (u32)((ahi ? off_hi : off_lo) * ESZ);
        if constexpr (DEPTH_STREAM) aoff += ahi && !half ? zoff[chunk_z(2 * s + 1)] : zoff[chunk_z(2 * s)];
        u32 bf[NB][2];
        if constexpr (B_RESIDENT) {
#pragma unroll
          for (int j = 0; j < NB; ++j) {
            bf[j][0] = bres[B_RESIDENT ? s : 0][j][0];
            bf[j][1] = bres[B_RESIDENT ? s : 0][j][1];
          }
        } else {
          load_b(bbase, s, bf);
        }
#pragma unroll
        for (int b = 0; b < MB; ++b) {
          u32 af[4];
          ldsm_x4(af, abase[b] + aoff);
          if (half) {
            af[2] = 0u;
            af[3] = 0u;
          }
#pragma unroll
          for (int j = 0; j < NB; ++j) mma16816(acc[b][j], af, bf[j][0], bf[j][1]);
        }
      }
    }
    // Stores: each lane writes packed channel pairs of two pixels per n8 block. The tile's
    // first output pixel and the unit's channels are one pointer; a pixel adds its row and
    // column inside the tile (unsigned: the divisions by TW are shifts or multiplies).
    elem_t* const ybase = Y + (((a.n * OD + a.od) * OH + a.oh0) * OW + a.ow0) * K_ + k0 + n0 + cq;
    const unsigned rows_left = (unsigned)(OH - a.oh0);
    const unsigned cols_left = (unsigned)(OW - a.ow0);
#pragma unroll
    for (int b = 0; b < MB; ++b) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const unsigned p = (unsigned)((m0 + b) * 16 + (A_SLIDE ? 2 * crow + h : crow + 8 * h));
        const unsigned ty = p / TW;
        const unsigned tx = p - ty * TW;
        if (p >= (unsigned)MT || ty >= rows_left || tx >= cols_left) continue;
        elem_t* dst = ybase + (int)(ty * OW + tx) * K_;
#pragma unroll
        for (int j = 0; j < NB; ++j) {
          if (K_ % BN == 0 || k0 + n0 + j * 8 < K_) {
            *reinterpret_cast<u32*>(dst + j * 8) = pack2(acc[b][j][2 * h], acc[b][j][2 * h + 1]);
          }
        }
      }
    }
  }
}

// Group merge: block-diagonal merged rows from the raw weights (landed with the first tile's
// copies; backward data: gathered in walk_tiles' prologue). Output channel k (row kl) of a
// merged group reads its own group's CG0 channels of each tap; the other channels of the
// merged row are zero (as are rows past K, whose raw weights were zero-filled). One task is
// one 16-byte vector of a row (eight channels of one tap; CG is a multiple of 8), built from
// 32-bit raw reads when CG0 is even (a channel pair then never straddles the group's edge) and
// 16-bit reads otherwise: the index arithmetic is paid once per vector instead of once per
// element (the per-element loop was a third of the instructions of a one-tile CTA on a C/G 4
// layer).
__device__ __forceinline__ void expand_merged(elem_t* ws, const elem_t* raw, int k0, int tid) {
  constexpr int CGV = CG / 8;  // 16-byte vectors of one tap's CG channels
  for (int i = tid; i < BN * TAPS * CGV; i += THREADS) {
    const int t = i / CGV;  // kl·TAPS + tap
    const int v = i - t * CGV;
    const int kl = t / TAPS;
    const int tap = t - kl * TAPS;
    const int c0 = v * 8 - ((k0 + kl) % KG) / KG0 * CG0;  // channel of k's group at element 0
    const u16* src = reinterpret_cast<const u16*>(raw) + t * CG0;
    u32 w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int c = c0 + 2 * j;
      if constexpr (CG0 % 2 == 0) {
        w[j] = (unsigned)c < (unsigned)CG0 ? *reinterpret_cast<const u32*>(src + c) : 0u;
      } else {
        const u32 lo = (unsigned)c < (unsigned)CG0 ? (u32)src[c] : 0u;
        const u32 hi = (unsigned)(c + 1) < (unsigned)CG0 ? (u32)src[c + 1] : 0u;
        w[j] = lo | (hi << 16);
      }
    }
    *reinterpret_cast<v16b*>(ws + kl * WROW + tap * CG + v * 8) = v16b{w[0], w[1], w[2], w[3]};
  }
}

extern "C" __global__ void __launch_bounds__(THREADS) direct_dgrad_bf16_t64x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace) {
  GCONV_DYNAMIC_SMEM(smem);
  (void)workspace;
  // [HALO_BUFS] input tiles of [ITD][ITH] rows of XROW = ITW·CTS elements (depth streaming: ring
  // slots of one input slice, [ITH] rows), then the weights as
  // [BN][WROW] 16-bit values (k = tap·CG + c, zero past TAPS·CG), then (GM > 1 only) the raw
  // real weights, RAW_BYTES.
  elem_t* ws = reinterpret_cast<elem_t*>(smem + HALO_BUFS * XS_BYTES);
  elem_t* raw = reinterpret_cast<elem_t*>(smem + HALO_BUFS * XS_BYTES + WS_BYTES);  // GM > 1 only
  const elem_t* __restrict__ X = reinterpret_cast<const elem_t*>(in0);
  const elem_t* __restrict__ Wt = reinterpret_cast<const elem_t*>(in1);
  elem_t* __restrict__ Y = reinterpret_cast<elem_t*>(out);
  const int tid = threadIdx.x;
  const int k0 = blockIdx.y * BN;  // first output channel of the CTA
  const int c0 = blockIdx.y * CT;  // first input channel of the CTA

  // The weights: 16-byte cp.async copies (forward) complete with the first tile's group and
  // are issued here; the backward-data gathers (plain reads, flip and transpose in the
  // addressing) run while the first tile's halo copies are in flight (walk_tiles' prologue).
  auto stage_weights = [&]() {
  // Weights of the CTA's channels (zero for channels beyond K), and the zero padding of each
  // row past TAPS·CG (read by the last k16 step). Backward data: the dual's weights are not
  // contiguous in the original filter, so each element is gathered through dgrad_w_index
  // (flip and channel transpose in the addressing), output channel fastest (the channels of a
  // group are adjacent in W: with K/G of the dual a multiple of 8, eight of them per 16-byte
  // read), with plain stores that the first tile's barrier publishes.
  if constexpr (GM == 1 && KG % 8 == 0) {
    // Whole 16-byte reads: for one (group, kk, tap) the filter holds the dual's KG output
    // channels of the group contiguously, so one read gives weight r of 8 adjacent dual
    // output channels (rows kv·8 … kv·8 + 7), each value stored to its own row. Weight r is
    // fastest across the threads, so a store of the warp fills consecutive elements of one
    // row (rows eight apart are a multiple of 128 bytes apart: vector-fastest stores would
    // meet in one bank).
    // The reads are batched (stage_batched).
    constexpr int KV = BN / 8;
    stage_batched<KV * WPK>(
        tid,
        [&](int i) {
          const int k = k0 + i / WPK * 8;
          v16b v = {0u, 0u, 0u, 0u};
          if (k < K_) v = *reinterpret_cast<const v16b*>(Wt + dgrad_w_index<CG, KG>(k, i % WPK));
          return v;
        },
        [&](int i, v16b v) { store_column8(ws + i / WPK * 8 * WROW + i % WPK, WROW, v); });
  } else if constexpr (GM == 1) {
    stage_batched<BN * WPK>(
        tid,
        [&](int i) {
          const int kl = i % BN;
          return k0 + kl < K_ ? Wt[dgrad_w_index<CG, KG>(k0 + kl, i / BN)] : (elem_t)0;
        },
        [&](int i, elem_t v) { ws[i % BN * WROW + i / BN] = v; });
  } else {
    // Merged groups: the real weights of the CTA's channels, BN rows of TAPS·CG0 elements of
    // the dual's real groups (CG0 x KG0), into the raw area, expanded into block-diagonal rows
    // before the first tile's math (expand_merged). For one (group, kk, tap) the filter holds
    // the dual's KG0 output channels of the group contiguously: each read gives weight r of
    // VW adjacent raw rows (copy_column), r fastest across the threads.
    constexpr int VW = KG0 % 8 == 0 ? 8 : KG0 % 4 == 0 ? 4 : KG0 % 2 == 0 ? 2 : 1;
    constexpr int RW = TAPS * CG0;  // weights of one raw row
    for (int i = tid; i < (BN / VW) * RW; i += THREADS) {
      const int kv = i / RW;
      const int r = i - kv * RW;
      const int k = k0 + kv * VW;
      const bool ok = k < K_;
      const u16* src = reinterpret_cast<const u16*>(Wt) + (ok ? dgrad_w_index<CG0, KG0>(k, r) : 0);
      copy_column<VW>(reinterpret_cast<u16*>(raw) + kv * VW * RW + r, RW, src, ok);
    }
  }
  };
  if constexpr (!DGRAD) stage_weights();
  constexpr int PADCH = (WROW - WPK) / 8;
  for (int i = tid; i < BN * PADCH; i += THREADS) {
    const int kl = i / PADCH;
    const int q = i - kl * PADCH;
    *reinterpret_cast<v16b*>(ws + kl * WROW + WPK + q * 8) = v16b{0u, 0u, 0u, 0u};
  }
  const u32 ws_a = smem_u32(ws);
  bool expand = GM > 1;  // uniform across the CTA
  walk_tiles(
      smem, X, c0, tid,
      [&](const elem_t* xs, TileAt a) {
        if (expand) {
          expand_merged(ws, raw, k0, tid);
          __syncthreads();
          expand = false;
        }
        compute_tile_mma(smem_u32(xs), ws_a, Y, a, k0, tid);
      },
      [&]() {
        if constexpr (DGRAD) stage_weights();
      });
}
