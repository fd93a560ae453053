// gconv direct backward-weight kernel (depthwise, register streaming): generated, do not edit
// kernel:  direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x1_gm1_sk8c_simt_gen
// problem: wgrad_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1
// 16 channels x 8 lanes of 2, 3 tap-row groups of 1 rows, 10 slots, strips of 8 columns (10 read); 8 slabs of 28 units, smem 5760 B
#define ELEM unsigned short
constexpr bool IS_BF16 = true;
#define GCONV_SPLIT_REDUCE 0
#define GCONV_SPLIT_CLUSTER 1
#define GCONV_CLUSTER_ATTR __cluster_dims__(8, 1, 1)
#define GCONV_SPLIT_ATOMIC 0
constexpr int ESZ = 2;
constexpr int N_ = 32;
constexpr int ID = 1;
constexpr int IH = 7;
constexpr int IW = 7;
constexpr int OD = 1;
constexpr int OH = 7;
constexpr int OW = 7;
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
constexpr int G_ = 960;
constexpr int CG = 1;
constexpr int KG = 1;
constexpr int TW = 8;
constexpr int BN = 16;
constexpr int VEC = 2;
constexpr int RG = 1;
constexpr int LV = 2;
constexpr int THREADS = 256;
constexpr int SMEM_BYTES = 5760;
constexpr int SLABS = 8;
constexpr int HOIST_WORDS = 32;
constexpr int MIN_CTAS = 4;
constexpr int UNITS_PER_SLAB = 28;
constexpr long long RED_PLANE = 8640;
constexpr int RED_SPLIT = 8;

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


// ---- backward weight, depthwise, register streaming (direct/stream.rs) ----
// dW[k][tz][ty][tx] = sum over (n, od, oh, ow) of dY[n, od, oh, ow, k] * X[n, id, ih, iw, k],
// id = od*SD - PD + tz*DD, ih = oh*SH - PH + ty*DH, iw = ow*SW - PW + tx*DW (C = K = G).
// No shared-memory staging in the main loop: thread = (channel lane: VEC adjacent channels,
// tap-row group: RG consecutive tap rows (tz, ty) of the FZ*FY, work slot). A work unit is one
// output row strip (n, od, oh, TW output columns from ow0); the CTA (blockIdx.x = slab,
// blockIdx.y = channel block of BN channels) owns units [slab*UNITS_PER_SLAB, ...) and slot s
// walks units first + s, first + s + SLOTS, ... Per unit: the dY strip (TW pixels x VEC
// channels) is read from global memory and widened once into registers; per tap row of the
// group whose X row exists (a row that only sees padding is skipped) the SPAN columns of the
// X row segment are read once each (zero outside) and each feeds every (ow, tx) with
// ow*SW + tx*DW = its column. f32 accumulators acc[RG][FX][VEC] in registers. At the end the
// SLOTS slots of a (lane, group) are summed in a fixed order through shared memory and the CTA
// writes its rows of one f32 partial plane (workspace plane `slab`), or dW itself when the
// launch has one slab. in0 = X, in1 = dY, out = dW.
constexpr int C_ = G_;                              // depthwise: C = K = G
constexpr int K_ = G_;
constexpr int TAPS = FZ * FY * FX;                   // weights per channel (dW row)
constexpr int ROWS = FZ * FY;                        // tap rows (tz, ty)
constexpr int RGS = (ROWS + RG - 1) / RG;            // tap-row groups
constexpr int LANES = BN / VEC;                      // channel lanes of a CTA
constexpr int SLOTS = THREADS / (LANES * RGS);       // work slots
constexpr int SPAN = (TW - 1) * SW + (FX - 1) * DW + 1;  // X columns of one strip row
constexpr int STRIPS = (OW + TW - 1) / TW;
constexpr int UNITS = N_ * OD * OH * STRIPS;
constexpr int RED_FLOATS = SLOTS * BN * TAPS;        // the slot reduction area
static_assert(CG == 1 && KG == 1, "depthwise only");
static_assert(BN % VEC == 0 && VEC % LV == 0 && C_ % LV == 0, "channel vectors");
static_assert(SLOTS >= 1, "threads: channel lanes x tap-row groups must fit the CTA");
static_assert(SMEM_BYTES >= RED_FLOATS * 4, "reduction area");
static_assert(SLABS * UNITS_PER_SLAB >= UNITS, "slabs cover the units");
static_assert(RED_PLANE == (long long)K_ * TAPS, "partial plane = |dW|");

// Raw reads: VEC channels of a pixel are NR reads of LV channels (RB bytes each), kept as RW
// 32-bit words per read until they are used, so that every read of a unit can be issued before
// the first FMA waits for one.
constexpr int NR = VEC / LV;                        // reads per pixel
constexpr int RB = LV * ESZ;                        // bytes per read
constexpr int RW = (RB + 3) / 4;                    // 32-bit words per read
constexpr int NW = NR * RW;                         // words per pixel
// Tap rows whose X reads are issued together (all of a group when its row segments fit in
// HOIST_WORDS registers, else one row at a time).
constexpr int RH_ = (RG * SPAN * NW <= HOIST_WORDS) ? RG : 1;

// The raw words of VEC channels [k, k + VEC) of pixel `pix` (element offset pix * C_): zero
// when !ok or past C.
__device__ __forceinline__ void load_raw(const elem_t* __restrict__ base, int pix, int k, bool ok,
                                         u32 (&w)[NW]) {
#pragma unroll
  for (int r = 0; r < NR; ++r) {
    const int j = r * LV;
    const bool in = ok && k + j < C_;
    const elem_t* p = base + pix * C_ + k + j;
    if constexpr (RB == 16) {
      v16b v = {0u, 0u, 0u, 0u};
      if (in) v = *reinterpret_cast<const v16b*>(p);
      w[r * 4] = v.x;
      w[r * 4 + 1] = v.y;
      w[r * 4 + 2] = v.z;
      w[r * 4 + 3] = v.w;
    } else if constexpr (RB == 8) {
      v8b v = {0u, 0u};
      if (in) v = *reinterpret_cast<const v8b*>(p);
      w[r * 2] = v.x;
      w[r * 2 + 1] = v.y;
    } else if constexpr (RB == 4) {
      w[r] = in ? *reinterpret_cast<const u32*>(p) : 0u;
    } else {
      w[r] = in ? (u32) * reinterpret_cast<const u16*>(p) : 0u;
    }
  }
}

// Raw words widened to VEC f32 values.
__device__ __forceinline__ void widen(const u32 (&w)[NW], float (&out)[VEC]) {
#pragma unroll
  for (int r = 0; r < NR; ++r) {
    if constexpr (ESZ == 4) {
#pragma unroll
      for (int i = 0; i < LV; ++i) out[r * LV + i] = bits_f32(w[r * RW + i]);
    } else if constexpr (LV == 1) {
      out[r] = to_f32((u16)(w[r] & 0xffffu));
    } else {
#pragma unroll
      for (int i = 0; i < LV / 2; ++i) {
        out[r * LV + 2 * i] = to_f32((u16)(w[r * RW + i] & 0xffffu));
        out[r * LV + 2 * i + 1] = to_f32((u16)(w[r * RW + i] >> 16));
      }
    }
  }
}

extern "C" __global__ void GCONV_CLUSTER_ATTR __launch_bounds__(THREADS, MIN_CTAS) direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x1_gm1_sk8c_simt_gen(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace) {
  GCONV_DYNAMIC_SMEM(smem);  // [SLOTS][BN][TAPS] f32, after the walk only
  release_dependents();  // the split reduction may start as the last wave drains (prelude)
  const elem_t* __restrict__ X = reinterpret_cast<const elem_t*>(in0);
  const elem_t* __restrict__ dY = reinterpret_cast<const elem_t*>(in1);
  const int tid = threadIdx.x;
  const int k0 = blockIdx.y * BN;  // first channel of the CTA
  const int lane = tid % LANES;
  const int rg = (tid / LANES) % RGS;
  const int slot = tid / (LANES * RGS);
  const int k = k0 + lane * VEC;
  const bool active = slot < SLOTS;

  float acc[RG][FX][VEC];
#pragma unroll
  for (int i = 0; i < RG; ++i) {
#pragma unroll
    for (int tx = 0; tx < FX; ++tx) {
#pragma unroll
      for (int v = 0; v < VEC; ++v) acc[i][tx][v] = 0.0f;
    }
  }

  const int u0 = blockIdx.x * UNITS_PER_SLAB;
  const int u1 = u0 + UNITS_PER_SLAB < UNITS ? u0 + UNITS_PER_SLAB : UNITS;
  if (active && k < C_) {
    for (int u = u0 + slot; u < u1; u += SLOTS) {
      // Unit u: strip fastest, then oh, od, n.
      int r = u / STRIPS;
      const int ow0 = (u - r * STRIPS) * TW;
      const int oh = r % OH;
      r /= OH;
      const int od = r % OD;
      const int n = r / OD;
      const int ybase = ((n * OD + od) * OH + oh) * OW + ow0;
      const int iw0 = ow0 * SW - PW;
      u32 draw[TW][NW];
#pragma unroll
      for (int ow = 0; ow < TW; ++ow) load_raw(dY, ybase + ow, k, ow0 + ow < OW, draw[ow]);
      float d[TW][VEC];
#pragma unroll
      for (int i0 = 0; i0 < RG; i0 += RH_) {
        // Issue the reads of RH_ tap rows (a row that only sees padding reads nothing), then
        // apply them.
        u32 xraw[RH_][SPAN][NW];
        bool live[RH_];
#pragma unroll
        for (int h = 0; h < RH_; ++h) {
          const int row = rg * RG + i0 + h;
          const int tz = row / FY;
          const int ty = row - tz * FY;
          const int id = od * SD - PD + tz * DD;
          const int ih = oh * SH - PH + ty * DH;
          live[h] = i0 + h < RG && row < ROWS && (unsigned)id < (unsigned)ID &&
                    (unsigned)ih < (unsigned)IH;
          const int xbase = ((n * ID + id) * IH + ih) * IW + iw0;
#pragma unroll
          for (int j = 0; j < SPAN; ++j) {
            load_raw(X, xbase + j, k, live[h] && (unsigned)(iw0 + j) < (unsigned)IW, xraw[h][j]);
          }
        }
        if (i0 == 0) {
#pragma unroll
          for (int ow = 0; ow < TW; ++ow) widen(draw[ow], d[ow]);
        }
#pragma unroll
        for (int h = 0; h < RH_; ++h) {
          if (!live[h]) continue;  // padding: no FMAs
          const int i = i0 + h;
#pragma unroll
          for (int j = 0; j < SPAN; ++j) {
            float x[VEC];
            widen(xraw[h][j], x);
#pragma unroll
            for (int ow = 0; ow < TW; ++ow) {
              const int q = j - ow * SW;  // = tx * DW for the taps column j feeds at ow
              if (q < 0 || q % DW != 0 || q / DW >= FX) continue;
#pragma unroll
              for (int v = 0; v < VEC; ++v) {
                acc[i][q / DW][v] = fmaf(d[ow][v], x[v], acc[i][q / DW][v]);
              }
            }
          }
        }
      }
    }
  }

  // Slots summed in a fixed order (slot 0, 1, ...): bit-identical across runs. A (lane, group)
  // of every slot holds its rows' FX x VEC sums (zeros for a lane past C).
  float* red = reinterpret_cast<float*>(smem);
  if (active) {
#pragma unroll
    for (int i = 0; i < RG; ++i) {
      const int row = rg * RG + i;
      if (row >= ROWS) break;
#pragma unroll
      for (int tx = 0; tx < FX; ++tx) {
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
          red[(slot * BN + lane * VEC + v) * TAPS + row * FX + tx] = acc[i][tx][v];
        }
      }
    }
  }
  __syncthreads();
  // The CTA's BN channels are BN consecutive rows of TAPS values in dW (and in a partial
  // plane): consecutive threads store consecutive values.
  for (int e = tid; e < BN * TAPS; e += THREADS) {
    float s = 0.0f;
    for (int p = 0; p < SLOTS; ++p) s += red[p * BN * TAPS + e];
#if GCONV_SPLIT_CLUSTER
    red[e] = s;  // the CTA's sum, read by the cluster below (this thread's element only)
#else
    if (k0 + e / TAPS < K_) {
      const long long o = (long long)k0 * TAPS + e;
      if constexpr (SLABS == 1) {
        from_f32(s, reinterpret_cast<elem_t*>(out)[o]);
      } else {
        reinterpret_cast<float*>(workspace)[blockIdx.x * RED_PLANE + o] = s;
      }
    }
#endif
  }
#if GCONV_SPLIT_CLUSTER
  // The SLABS CTAs of a channel block are one cluster (rank = slab = blockIdx.x): each holds
  // its block's BN x TAPS sums in red[0, BN * TAPS); CTA r sums elements r * THREADS + tid,
  // + SLABS * THREADS, ... over the ranks in order (bit-identical runs) and stores dW; the
  // second barrier keeps every CTA's shared memory alive until the others have read it.
  cluster_sync();
  for (int e = (int)blockIdx.x * THREADS + tid; e < BN * TAPS; e += SLABS * THREADS) {
    float s = 0.0f;
#pragma unroll
    for (int q = 0; q < SLABS; ++q) s += ld_cluster_f32(red + e, (unsigned)q);
    if (k0 + e / TAPS < K_) from_f32(s, reinterpret_cast<elem_t*>(out)[(long long)k0 * TAPS + e]);
  }
  cluster_sync();
#endif
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
extern "C" __global__ void __launch_bounds__(256) direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x1_gm1_sk8c_simt_gen_reduce(const void* __restrict__ in0,
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
extern "C" __global__ void __launch_bounds__(256) direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x1_gm1_sk8c_simt_gen_zero(const void* __restrict__ in0,
                                                              const void* __restrict__ in1,
                                                              void* __restrict__ out,
                                                              void* __restrict__ workspace) {
  const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
  if (i < RED_PLANE) reinterpret_cast<float*>(workspace)[i] = 0.f;
}
extern "C" __global__ void __launch_bounds__(256) direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x1_gm1_sk8c_simt_gen_convert(const void* __restrict__ in0,
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
