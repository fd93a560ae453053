// gconv igemm backward-weight kernel: generated, do not edit
// kernel:  igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm2_sk1d_wgmmatma_gen
// problem: wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1
// effective vector widths (elements): A 8, B 8, C 8
#define GCONV_MATH_MMA 0
#define GCONV_MATH_WGMMA 1
#define GCONV_WS 1
#define GCONV_TMA 1
#define GCONV_TMA_PARAMS , const __grid_constant__ gconv_tmap tmap_a, const __grid_constant__ gconv_tmap tmap_b
#define GCONV_SPLIT_REDUCE 0
#define GCONV_SPLIT_ATOMIC 0
#define GCONV_SPLIT_CLUSTER 0
#define GCONV_CLUSTER_ATTR
#define ELEM unsigned short
constexpr bool IS_BF16 = true;
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
constexpr int G_ = 32;
constexpr int CG = 32;
constexpr int KG = 32;
constexpr int GM = 2;
constexpr int BM = 64;
constexpr int BN = 64;
constexpr int BK = 64;
constexpr int WARPS_M = 4;
constexpr int WARPS_N = 1;
constexpr int STAGES = 4;
constexpr int PTHREADS = 32;
constexpr int VA = 8;
constexpr int VB = 8;
constexpr int VC = 8;
constexpr int SPLIT = 1;
constexpr int CPAD = 8;
constexpr bool POINTWISE = false;
#define GCONV_HALO 0
constexpr bool HALO = false;
constexpr bool HALO_FLIP = false;
constexpr int HP = 1, WP = 1, LH = 0, LW = 0, HALO_ROWS = 0;  // (not the halo path)
constexpr bool WGRAD = true;
constexpr bool A_MMAJOR = true;
constexpr bool B_NMAJOR = true;
constexpr bool A_L1 = true;
constexpr int WG_NACC = 32;
#ifdef GCONV_HOST_EMULATION
__device__ __forceinline__ void wgmma_tile(float (&d)[32], unsigned long long da, unsigned long long db) { gconv_host_wgmma(d, 32, da, db, true, true, true); }
__device__ __forceinline__ void wgmma_hold(float (&d)[32]) { (void)d; }
#else
__device__ __forceinline__ void wgmma_tile(float (&d)[32], unsigned long long da, unsigned long long db) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "l"(da), "l"(db), "r"(1));
}
__device__ __forceinline__ void wgmma_hold(float (&d)[32]) { asm volatile("" : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) :: "memory"); }
#endif

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

// ---- igemm helpers (after the shared prelude and the tensor-core PTX helpers) ----
struct alignas(16) f4 { float x, y, z, w; };

// XOR swizzle of 16-byte chunks inside each 128-byte line (bits [4,7) ^= bits [7,10)):
// eight consecutive tile rows at the same logical chunk land in eight different bank groups.
__device__ __forceinline__ u32 swz(u32 off) { return off ^ (((off >> 7) & 7u) << 4); }

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
// The MN-major (transposed) operand of the same swizzle: 64-element panels along N, `lbo` bytes
// apart (the leading byte offset), each k a 128-byte row, 8-row groups of k 1024 bytes apart;
// read with imm-trans-b = 1. A k16 step advances the start address by 16 rows (2048 bytes).
__device__ __forceinline__ u64 wg_desc_n(u32 saddr, u32 lbo) {
  return (u64)((saddr & 0x3FFFFu) >> 4) | ((u64)(lbo >> 4) << 16) | ((u64)(1024 >> 4) << 32) | ((u64)1 << 62);
}
// The descriptor `d` with its start address advanced by `bytes` (a multiple of 16): an add to
// the start-address field, which cannot carry out of its 14 bits while shared addresses stay
// below 256 KiB (the opt-in limit is 227 KiB), so that a stage and a k-step cost one add.
__device__ __forceinline__ u64 wg_desc_add(u64 d, u32 bytes) { return d + (u64)(bytes >> 4); }
// `v`, known by the compiler to be the same in every lane of the warp (a broadcast from lane
// 0): values derived from it stay in the uniform datapath (the wgmma descriptors).
__device__ __forceinline__ int warp_uniform(int v) {
#ifdef GCONV_HOST_EMULATION
  return v;
#else
  return __shfl_sync(0xffffffffu, v, 0);
#endif
}
#if GCONV_WS
// Shared-memory barriers of the warp-specialised pipeline (PTX ISA, mbarrier): `count`
// arrivals complete a phase; a wait on parity p returns once the phase of that parity has
// completed (the current phase's parity differs from p).
#ifdef GCONV_HOST_EMULATION
__device__ __forceinline__ void mbar_init(u32 bar, int count) { gconv_host_mbar_init(bar, count); }
__device__ __forceinline__ void mbar_arrive(u32 bar) { gconv_host_mbar_arrive(bar); }
__device__ __forceinline__ void mbar_wait(u32 bar, int parity) { gconv_host_mbar_wait(bar, parity); }
__device__ __forceinline__ void mbar_inval(u32 bar) { gconv_host_mbar_inval(bar); }
__device__ __forceinline__ void cp_async_mbar_arrive(u32 bar) { gconv_host_cp_async_mbar_arrive(bar); }
#else
__device__ __forceinline__ void mbar_init(u32 bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(u32 bar, int parity) {
  u32 done;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}
__device__ __forceinline__ void mbar_inval(u32 bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}
// One arrival on `bar`, made when every cp.async this thread issued before it has completed.
__device__ __forceinline__ void cp_async_mbar_arrive(u32 bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}
#endif
#if GCONV_TMA
// The Tensor Memory Accelerator (PTX ISA, cp.async.bulk.tensor and mbarrier expect-tx): the
// producer's arrival on `bar` also expects `bytes` bytes of box copies, and the phase completes
// once the arrival has come and those bytes have landed. A box of tensor map `map` (an entry
// parameter) at coordinates (c0, c1, c2), innermost first, is copied to shared address `dst`
// (1024-byte aligned with the 128-byte swizzle), elements outside the tensor as zeros, and its
// bytes complete on `bar`.
#ifdef GCONV_HOST_EMULATION
__device__ __forceinline__ void mbar_init_fence() {}
__device__ __forceinline__ void mbar_arrive_expect_tx(u32 bar, u32 bytes) {
  gconv_host_mbar_arrive_expect_tx(bar, bytes);
}
__device__ __forceinline__ void tma_load_3d(u32 dst, const gconv_tmap& map, u32 bar, int c0, int c1, int c2) {
  gconv_host_tma_load(dst, map, bar, c0, c1, c2);
}
__device__ __forceinline__ void tma_load_4d(u32 dst, const gconv_tmap& map, u32 bar, int c0, int c1, int c2, int c3) {
  gconv_host_tma_load(dst, map, bar, c0, c1, c2, c3);
}
__device__ __forceinline__ void tma_load_4d_im2col(u32 dst, const gconv_tmap& map, u32 bar, int c, int w, int h, int n,
                                                   int off_w, int off_h) {
  gconv_host_tma_load_im2col(dst, map, bar, c, w, h, n, off_w, off_h);
}
#else
// The barriers just initialised, made visible to the copy engine (the async proxy), which
// completes transaction bytes on them.
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void tma_load_3d(u32 dst, const gconv_tmap& map, u32 bar, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void tma_load_4d(u32 dst, const gconv_tmap& map, u32 bar, int c0, int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
      : "memory");
}
// Im2col mode (gconv_kernels::Im2col): the map's pixels_per_column pixels walked from the
// filter corner (w, h, n), each read at the corner plus the filter offsets (off_w, off_h),
// channels_per_pixel channels from c.
__device__ __forceinline__ void tma_load_4d_im2col(u32 dst, const gconv_tmap& map, u32 bar, int c, int w, int h, int n,
                                                   int off_w, int off_h) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6], {%7, %8};\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(c), "r"(w), "r"(h), "r"(n), "r"(bar),
      "h"((unsigned short)off_w), "h"((unsigned short)off_h)
      : "memory");
}
#endif
#endif
#endif
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

// ---- derived constants ----
constexpr int M_ = N_ * OD * OH * OW;
constexpr int C_ = G_ * CG;
constexpr int K_ = G_ * KG;
constexpr int CEFF = GM * CG;  // merged input channels of one CTA
constexpr int NEFF = GM * KG;  // merged output channels of one CTA
constexpr int NGB = (G_ + GM - 1) / GM;  // merged group blocks, the last one short where GM does not divide G
// A tail (rules::merge_tail): the last block's missing groups are channels past C_ and K_ and
// weight rows past G_, which the loaders read as zeros; nothing of theirs is stored.
constexpr bool GTAIL = G_ % GM != 0;
constexpr int TAPS = FZ * FY * FX;
// Tap packing: when the merged channels are fewer than tile_k and divide it, one k-tile holds
// TPK consecutive taps (k = tap_in_tile * CEFF + channel); otherwise a k-tile is one tap and
// one block of tile_k channels. Either way the reduction runs taps outer, channels inner.
constexpr bool PACK = CEFF < BK && BK % CEFF == 0;
constexpr int TPK = PACK ? BK / CEFF : 1;
constexpr int CBLK = PACK ? 1 : (CEFF + BK - 1) / BK;
constexpr int KT = PACK ? (TAPS + TPK - 1) / TPK : TAPS * CBLK;
constexpr int KPS = (KT + SPLIT - 1) / SPLIT;
// Math threads (CTHREADS: the warps of the tile), the CTA's threads (THREADS: with the producer
// warpgroups of the warp-specialised schedule, PTHREADS threads, GCONV_WS) and the loader
// threads (LTHREADS: every thread, or the producers alone).
constexpr int CTHREADS = 32 * WARPS_M * WARPS_N;
constexpr int THREADS = CTHREADS + PTHREADS;
constexpr int LTHREADS = GCONV_WS ? PTHREADS : THREADS;
constexpr int WM = BM / WARPS_M;
constexpr int WN = BN / WARPS_N;
static_assert(WM > 0 && WN > 0, "warp tile");
constexpr int ROWB = BK * ESZ;  // bytes per shared-memory tile row
// MN-major tiles (A_MMAJOR, B_NMAJOR): BK rows of the M (or N) extent in panels of PANEL
// elements (128 bytes) of BK rows each; mn_offset is the byte offset of (k, x) before the swizzle.
constexpr int PANEL = 128 / ESZ;
constexpr int mn_offset(int k, int x) { return (x / PANEL) * (BK * 128) + k * 128 + (x % PANEL) * ESZ; }
// (The halo path keeps no A stages: its A operand is the halo buffers after the B stages.)
constexpr int A_STAGE = HALO ? 0 : A_MMAJOR ? (BM + PANEL - 1) / PANEL * (BK * 128) : BM * ROWB;
constexpr int B_STAGE = B_NMAJOR ? (BN + PANEL - 1) / PANEL * (BK * 128) : BN * ROWB;
constexpr int OUT_ESZ = SPLIT > 1 ? 4 : ESZ;
// split-K partial planes: one output-sized f32 plane per slice (split_reduce.cu)
constexpr long long RED_PLANE = WGRAD ? (long long)K_ * TAPS * CG : (long long)M_ * K_;
constexpr int RED_SPLIT = SPLIT;
constexpr int CROW = BN + CPAD;  // epilogue staging row, elements
constexpr bool CHECK_D = !(FZ == 1 && PD == 0);
constexpr bool CHECK_H = !(FY == 1 && PH == 0);
constexpr bool A_PARTIAL = (CEFF % BK) != 0;
constexpr bool A_SYNC = VA * ESZ == 2;  // 2-byte elements: register-staged loads
constexpr bool B_SYNC = VB * ESZ == 2;
constexpr int imin(int a, int b) { return a < b ? a : b; }
constexpr int pow2floor(int x) { return x <= 1 ? 1 : 2 * pow2floor(x / 2); }
// Loader layout (over the LTHREADS loader threads): TPR threads share one tile row (CPT chunks
// each, interleaved for coalescing), RPI rows per pass, R passes; TPR is capped so that a
// thread holds at most 8 rows of state.
constexpr int CPR_A = BK / VA;
constexpr int TPR_A = imin(CPR_A, imin(LTHREADS, pow2floor(8 * LTHREADS / BM)));
constexpr int CPT_A = CPR_A / TPR_A, RPI_A = LTHREADS / TPR_A, RA = (BM + RPI_A - 1) / RPI_A;
constexpr int CPR_B = BK / VB;
constexpr int TPR_B = imin(CPR_B, imin(LTHREADS, pow2floor(8 * LTHREADS / BN)));
constexpr int CPT_B = CPR_B / TPR_B, RPI_B = LTHREADS / TPR_B, RB = (BN + RPI_B - 1) / RPI_B;
constexpr int CPR_C = BN / VC, C_CHUNKS = BM * CPR_C;
constexpr int OFF_INVALID = -(1 << 30);
static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "tile / warps");
static_assert(BK % VA == 0 && BK % VB == 0 && BN % VC == 0, "vector widths");

typedef ELEM elem_t;


// The halo path's output pixel of GEMM row m, a pixel of the padded image (HP x WP per image):
// -1 for the rows past the output image (h >= OH or w >= OW), computed and not stored.
__device__ __forceinline__ int halo_pixel(int m) {
  const int n = m / (HP * WP), r = m % (HP * WP);
  const int h = r / WP, w = r % WP;
  return h < OH && w < OW ? (n * OH + h) * OW + w : -1;
}
extern "C" __global__ void GCONV_CLUSTER_ATTR __launch_bounds__(THREADS) igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm2_sk1d_wgmmatma_gen(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace GCONV_TMA_PARAMS) {
  GCONV_DYNAMIC_SMEM(smem);
  release_dependents();  // the split reduction may start as the last wave drains (prelude)
  const int tid = threadIdx.x;
  // index among the loader threads (the producer warpgroups follow the math warps)
  const int ltid = GCONV_WS ? tid - CTHREADS : tid;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int wm = warp / WARPS_N;
  const int wn = warp % WARPS_N;
#if GCONV_SPLIT_CLUSTER
  // the SPLIT slices of a tile are one cluster, adjacent in x (rank = split)
  const int bx = blockIdx.x / SPLIT;  // M tile
  const int split = blockIdx.x % SPLIT;
  const int gb = blockIdx.z;  // merged group block
#else
  const int bx = blockIdx.x;  // M tile (backward data: phase · DG_TILES + tile)
  const int gb = blockIdx.z % NGB;  // merged group block
  const int split = blockIdx.z / NGB;
#endif
  const int n0 = blockIdx.y * BN;
  const elem_t* __restrict__ X = reinterpret_cast<const elem_t*>(in0) + gb * CEFF;
  const elem_t* __restrict__ Wt = reinterpret_cast<const elem_t*>(in1);
#if GCONV_MATH_WGMMA
  // 1024-byte aligned base: the hardware applies the 128-byte swizzle to absolute addresses.
  // The warp-specialised pipeline keeps its barriers in front of it: full[s] at 16s, empty[s]
  // at 16s + 8 from the start of shared memory.
  const u32 sbar = smem_u32(smem);
  const u32 sbase = (sbar + (GCONV_WS ? 16u * STAGES : 0u) + 1023u) & ~1023u;
  unsigned char* const smem_al = smem + (sbase - smem_u32(smem));
#else
  const u32 sbase = smem_u32(smem);
  unsigned char* const smem_al = smem;
#endif
  const u32 sbase_b = sbase + STAGES * A_STAGE;

  // ---- backward-weight loaders: per merged group block, GEMM rows m = merged dY channels
  // (gsub·KG + k), columns n = tap·CEFF + merged X channel, reduction over the output pixels
  // p = (n, od, oh, ow) of this split's k-tiles. A = dY and B = X both keep their channels
  // contiguous, so both tiles are MN-major (A_MMAJOR, B_NMAJOR): k row r of a tile is output
  // pixel p0 + r. Header names as forward: I* = X's dims, O* = dY's, CG = C/G, KG = K/G. ----
  const int m0 = bx * BM;
  const int m_rows = NEFF;
  const int n_cols = TAPS * CEFF;
  const elem_t* __restrict__ dY = Wt + gb * NEFF;  // in1 is dY in this direction
  // dW element of row m, column n. A merged tile computes GM x GM group pairs; only a row and a
  // column of the same group are a real pair (the block diagonal), the others are not stored.
  // True per-group dims (KG, CG) size dW; merged dims (NEFF, CEFF) are what the tile covers.
  // A tail block (GTAIL) has no dW for its groups past G_.
  auto out_off = [&](int m, int n) -> long long {
    const int gr = m / KG, k = m % KG;
    const int tap = n / CEFF, cm = n % CEFF;
    const int gc = cm / CG, c = cm % CG;
    if (gr != gc || (GTAIL && gb * GM + gr >= G_)) return -1;
    return ((long long)(gb * GM + gr) * KG + k) * (TAPS * CG) + tap * CG + c;
  };

  // k-tiles of this split (the last may be short or, for a fixed degree, empty: its plane is
  // then written as zeros)
  constexpr int NPIX = M_;  // N·Do·Ho·Wo
  constexpr int WKT = (NPIX + BK - 1) / BK;
  constexpr int WKPS = (WKT + SPLIT - 1) / SPLIT;
  const int kt_begin = split * WKPS;
  const int kt_end = kt_begin + WKPS < WKT ? kt_begin + WKPS : WKT;
  const int nkt = kt_end > kt_begin ? kt_end - kt_begin : 0;
  int l_p = kt_begin * BK;  // first output pixel of the next k-tile to fetch

  // A (dY) units: chunk c of VA channels of k row r; B (X) units: chunk c of VB columns
  // (one tap, VB channels) of k row r. A thread's chunk column is fixed for the whole loop
  // (LTHREADS is a multiple of the chunks per row or the rows repeat the same pattern), so the
  // tap decode is done once; the pixel decode is per k-tile.
  constexpr int ACH = BM / VA, A_UNITS = BK * ACH, UA = (A_UNITS + LTHREADS - 1) / LTHREADS;
  constexpr int BCH = BN / VB, B_UNITS = BK * BCH, UB = (B_UNITS + LTHREADS - 1) / LTHREADS;
  int a_r[UA], a_m[UA];
  u32 a_dst[UA];
#pragma unroll
  for (int u = 0; u < UA; ++u) {
    const int unit = ltid + u * LTHREADS;
    const bool in = A_UNITS % LTHREADS == 0 || unit < A_UNITS;
    const int r = unit / ACH, c = unit % ACH;
    a_r[u] = in ? r : -1;
    a_m[u] = m0 + c * VA;
    a_dst[u] = swz(mn_offset(in ? r : 0, c * VA));
  }
  int b_r[UB], b_cm[UB], b_dz[UB], b_dy[UB], b_dx[UB];
  bool b_cok[UB];
  u32 b_dst[UB];
  // each B unit's output pixel (n, od, oh, ow) as counters, advanced by BK pixels per k-tile
  // (a mixed-radix add of BK's constant digits), so that no k-tile divides
  int b_ow[UB], b_oh[UB], b_od[UB], b_n[UB];
  constexpr int BK_W = BK % OW, BK_H = (BK / OW) % OH, BK_D = (BK / (OW * OH)) % OD, BK_N = BK / (OW * OH * OD);
#pragma unroll
  for (int u = 0; u < UB; ++u) {
    const int unit = ltid + u * LTHREADS;
    const bool in = B_UNITS % LTHREADS == 0 || unit < B_UNITS;
    const int r = unit / BCH, c = unit % BCH;
    const int n = n0 + c * VB;
    const int tap = n < n_cols ? n / CEFF : 0;
    b_r[u] = in ? r : -1;
    b_cok[u] = n < n_cols && (!GTAIL || gb * CEFF + n % CEFF < C_);  // GTAIL: zeros past C
    b_cm[u] = n % CEFF;
    b_dx[u] = (tap % FX) * DW;
    b_dy[u] = ((tap / FX) % FY) * DH;
    b_dz[u] = (tap / (FX * FY)) * DD;
    b_dst[u] = swz(mn_offset(in ? r : 0, c * VB));
    const int p = kt_begin * BK + (in ? r : 0);
    b_ow[u] = p % OW;
    b_oh[u] = (p / OW) % OH;
    b_od[u] = (p / (OW * OH)) % OD;
    b_n[u] = p / (OW * OH * OD);
  }
  u16 a_reg[A_SYNC ? UA : 1];
  u16 b_reg[B_SYNC ? UB : 1];

  auto fetch = [&](int stage) {
    const u32 sa = sbase + stage * A_STAGE;
    // one 64-bit base per k-tile; the units add 32-bit offsets (`opaque`: one wide multiply-add)
    const elem_t* const dyt = opaque(dY + (long long)l_p * K_);
#pragma unroll
    for (int u = 0; u < UA; ++u) {
      if (a_r[u] < 0) continue;
      const int p = l_p + a_r[u];
      const bool ok = p < NPIX && a_m[u] < NEFF && (!GTAIL || gb * NEFF + a_m[u] < K_);
      if constexpr (A_SYNC) {
        const elem_t* src = dY + (ok ? p * K_ + a_m[u] : 0);
        a_reg[u] = ok ? *reinterpret_cast<const u16*>(src) : (u16)0;
      } else {
        cp_async<VA * ESZ, false>(sa + a_dst[u], dyt + (a_r[u] * K_ + a_m[u]), ok);
      }
    }
    const u32 sb = sbase_b + stage * B_STAGE;
#pragma unroll
    for (int u = 0; u < UB; ++u) {
      if (b_r[u] < 0) continue;
      const int p = l_p + b_r[u];
      bool ok = b_cok[u] && p < NPIX;
      int off;
      if constexpr (POINTWISE) {
        off = p * C_ + b_cm[u];
      } else {
        const int iw = b_ow[u] * SW - PW + b_dx[u], ih = b_oh[u] * SH - PH + b_dy[u];
        const int id = b_od[u] * SD - PD + b_dz[u];
        ok = ok && (unsigned)iw < (unsigned)IW && (unsigned)ih < (unsigned)IH && (unsigned)id < (unsigned)ID;
        off = (((b_n[u] * ID + id) * IH + ih) * IW + iw) * C_ + b_cm[u];
        // the next k-tile's pixel (past the last pixel the counters run on; those copies skip)
        b_ow[u] += BK_W;
        int cy = b_ow[u] >= OW;
        b_ow[u] -= cy ? OW : 0;
        b_oh[u] += BK_H + cy;
        cy = b_oh[u] >= OH;
        b_oh[u] -= cy ? OH : 0;
        b_od[u] += BK_D + cy;
        cy = b_od[u] >= OD;
        b_od[u] -= cy ? OD : 0;
        b_n[u] += BK_N + cy;
      }
      if constexpr (B_SYNC) {
        const elem_t* src = X + (ok ? off : 0);
        b_reg[u] = ok ? *reinterpret_cast<const u16*>(src) : (u16)0;
      } else {
        // a skipped copy reads nothing: its address needs no clamp
        cp_async<VB * ESZ, A_L1>(sb + b_dst[u], X + off, ok);
      }
    }
    l_p += BK;
  };
  // stores the register-staged 2-byte elements of the tile fetched last
  auto flush = [&](int stage) {
    if constexpr (A_SYNC) {
#pragma unroll
      for (int u = 0; u < UA; ++u)
        if (a_r[u] >= 0) *reinterpret_cast<u16*>(smem_al + stage * A_STAGE + a_dst[u]) = a_reg[u];
    }
    if constexpr (B_SYNC) {
#pragma unroll
      for (int u = 0; u < UB; ++u)
        if (b_r[u] >= 0) *reinterpret_cast<u16*>(smem_al + STAGES * A_STAGE + stage * B_STAGE + b_dst[u]) = b_reg[u];
    }
  };
  auto land = [](int) {};
  constexpr bool LANDS = false;  // no restaging between the copies and the math
  auto bn_offset = [](int k, int n) { return mn_offset(k, n); };
#if GCONV_TMA
  // TMA (math = wgmmatma, backward weight): k-tile kt of this split covers the BK output
  // pixels from (kt_begin + kt)·BK; its MN-major A tile is BM / 64 boxes of 64 dY channels of
  // merged group block gb × those pixels (map A: [GM·K/G, G/GM, pixels] over dY), its B tile
  // BN / 64 boxes of 64 X channels × the pixels (map B: [GM·C/G, G/GM, pixels] over X), one per
  // 64-element panel (mn_offset). Channels and pixels past the tensors come in as zeros. With
  // group merge (GM > 1) a block's GM groups are adjacent channels in both tensors, so a box
  // spans groups and the tile computes every group pair; out_off stores the diagonal only.
  // With a tail (GTAIL: GM does not divide G) the maps are [K, 1, pixels] and [C, 1, pixels]
  // instead, a box starting at the block's first channel (gb·NEFF, gb·CEFF): the last block's
  // missing groups are channels past the tensors, read as zeros (the general path's im2col
  // copies already start at channel gb·CEFF of X as [C, W, H, N]).
  // The general path (2D, GM·C/G a multiple of 64): B's panel q holds the columns n0 + 64q.. =
  // 64 merged channels of one tap; it is the im2col copy of those channels of block gb (from
  // channel gb·CEFF) for the k-tile's BK output pixels, the walk starting at p0's filter corner
  // (ow·SW − PW, oh·SH − PH, n) with the tap's offsets (map B: X as [C, W, H, N]); a panel past
  // the last tap reads channel C_, outside the tensor, as zeros (its columns are not stored).
  static_assert(A_MMAJOR && B_NMAJOR, "TMA boxes: the backward-weight per-group GEMM");
  static_assert(POINTWISE || (CEFF % 64 == 0 && OD == 1 && FZ == 1), "im2col copies: 2D, panels within a tap");
  static_assert(A_STAGE == BM * BK * ESZ && B_STAGE == BN * BK * ESZ, "a stage is its boxes");
  auto tma_fetch = [&](int stage, int kt, u32 bar) {
    const int p0 = (kt_begin + kt) * BK;
#pragma unroll
    for (int q = 0; q < BM / 64; ++q) {
      tma_load_3d(sbase + stage * A_STAGE + q * (BK * 128), tmap_a, bar, (GTAIL ? gb * NEFF : 0) + m0 + 64 * q,
                  GTAIL ? 0 : gb, p0);
    }
    if constexpr (POINTWISE) {
#pragma unroll
      for (int q = 0; q < BN / 64; ++q) {
        tma_load_3d(sbase_b + stage * B_STAGE + q * (BK * 128), tmap_b, bar, (GTAIL ? gb * CEFF : 0) + n0 + 64 * q,
                    GTAIL ? 0 : gb, p0);
      }
    } else {
      const int ow = p0 % OW, oh = (p0 / OW) % OH, n = p0 / (OW * OH);
#pragma unroll
      for (int q = 0; q < BN / 64; ++q) {
        const int col = n0 + 64 * q;
        const int tap = col / CEFF;
        const int ch = tap < TAPS ? gb * CEFF + col % CEFF : C_;
        const int t = tap < TAPS ? tap : 0;
        tma_load_4d_im2col(sbase_b + stage * B_STAGE + q * (BK * 128), tmap_b, bar, ch, ow * SW - PW, oh * SH - PH, n,
                           (t % FX) * DW, (t / FX) * DH);
      }
    }
  };
#endif
  // ---- the halo fast path (geometry::HaloDims; the igemm module docs): the loaders above
  // keep no A tiles. Per 64-channel block cb of the reduction the CTA stages padded-image rows
  // m0 .. m0 + HALO_ROWS - 1 once (row r: padded pixel m0 + r, the A operand's pixel (h - LH,
  // w - LW) of its image or zero), 128 bytes each in the 128-byte swizzle, after the B stages;
  // block cb's copies join k-tile cb's copy group (its first use: the taps are the outer
  // k-loop; the blocks past the prologue's groups join its last), so k-tile 0 waits for one
  // block, not all of them.
  // The A tile of k-tile (tap, cb) is the block's buffer read from the tap's row shift on
  // (halo_a_off): wgmma reads a swizzled tile at any 128-byte row shift. Forward reads tap
  // (y, x) at shift y*DH*WP + x*DW; backward data, whose filter walks dY backwards, at
  // (FY-1-y)*DH*WP + (FX-1-x)*DW (HALO_FLIP). ----
#if GCONV_HALO
  static_assert(!PACK && CEFF % BK == 0 && ROWB == 128 && FZ == 1 && ID == 1 && OD == 1,
                "halo: whole 64-channel blocks of 128-byte rows, 2D");
  static_assert(SW == 1 && SH == 1 && LH >= 0 && LW >= 0 && SPLIT == 1 && GM == 1,
                "halo: stride 1, the A operand inside the padded image, no split or merge");
  constexpr int HALO_BYTES = HALO_ROWS * ROWB;
  const u32 shalo = sbase_b + STAGES * B_STAGE;
  // Stages channel block cb's halo (every block once, in the prologue).
  auto fetch_halo = [&](int cb) {
    constexpr int CHUNKS = HALO_ROWS * (ROWB / 16);
#pragma unroll 4
    for (int i = ltid; i < CHUNKS; i += LTHREADS) {
      const int r = i / (ROWB / 16), c = i % (ROWB / 16);
      const int g = m0 + r;
      const int n = g / (HP * WP), rem = g % (HP * WP);
      const int iy = rem / WP - LH, ix = rem % WP - LW;
      const bool ok = n < N_ && (unsigned)iy < (unsigned)IH && (unsigned)ix < (unsigned)IW;
      const int off = ok ? ((n * IH + iy) * IW + ix) * C_ + cb * BK + c * 8 : 0;
      cp_async<16, true>(shalo + cb * HALO_BYTES + swz(r * ROWB + c * 16), X + off, ok);
    }
  };
  // Byte offset in the halo buffers of k-tile kt's A tile (taps outer, channel blocks inner).
  auto halo_a_off = [&](int kt) -> u32 {
    const int tap = kt / CBLK, cb = kt % CBLK;
    const int ty = HALO_FLIP ? FY - 1 - tap / FX : tap / FX;
    const int tx = HALO_FLIP ? FX - 1 - tap % FX : tap % FX;
    return (u32)(cb * HALO_BYTES + (ty * DH * WP + tx * DW) * ROWB);
  };
#endif
#if GCONV_MATH_WGMMA
  // ---- warpgroup MMA: warpgroup wg owns MWG m64 blocks of the tile and all BN columns ----
  constexpr int NWG = CTHREADS / 128;
  constexpr int MWG = BM / (64 * NWG);
  static_assert(BK == 64 && BM == 64 * NWG * MWG && WG_NACC == BN / 2, "wgmma tile");
  const int wg = warp_uniform(warp >> 2);
  (void)wm;
  (void)wn;
  float acc[MWG][WG_NACC];
#pragma unroll
  for (int i = 0; i < MWG; ++i)
#pragma unroll
    for (int r = 0; r < WG_NACC; ++r) acc[i][r] = 0.f;
  // Issues the k-tile's wgmma batch and retires the previous one (at most one batch in flight
  // behind the barrier of the next k-tile).
  // the descriptors of stage 0, k-step 0 (this warpgroup's rows); a stage, an m64 block and a
  // k-step advance them by their byte offsets (`wg_desc_add`)
  const u32 sa0 = sbase + wg * MWG * 64 * ROWB;
  const u64 da0 = A_MMAJOR ? wg_desc_n(sa0, BK * 128) : wg_desc(sa0);
  const u64 db0 = B_NMAJOR ? wg_desc_n(sbase_b, BK * 128) : wg_desc(sbase_b);
#if GCONV_HALO
  // the halo path: this warpgroup's rows of the halo buffers, shifted per k-tile (halo_a_off)
  const u64 dh0 = wg_desc(shalo + wg * MWG * 64 * ROWB);
#endif
  auto compute = [&](int stage, int kt) {
#if GCONV_HALO
    const u64 das = wg_desc_add(dh0, halo_a_off(kt));
#else
    (void)kt;
    const u64 das = wg_desc_add(da0, stage * A_STAGE);
#endif
    const u64 dbs = wg_desc_add(db0, stage * B_STAGE);
#pragma unroll
    for (int i = 0; i < MWG; ++i) wgmma_hold(acc[i]);
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < BK / 16; ++ks) {
#pragma unroll
      for (int i = 0; i < MWG; ++i) {
        // (an m64 block of an M-major A tile is one 64-element panel: the same base)
        const u64 da = wg_desc_add(das, i * 64 * ROWB + (A_MMAJOR ? ks * 2048 : ks * 32));
        const u64 db = wg_desc_add(dbs, B_NMAJOR ? ks * 2048 : ks * 32);
        wgmma_tile(acc[i], da, db);
      }
    }
    wgmma_commit();
    wgmma_wait<1>();
#pragma unroll
    for (int i = 0; i < MWG; ++i) wgmma_hold(acc[i]);
  };
#elif GCONV_MATH_MMA
  // ---- tensor-core math: warp tile WM x WN of m16n8k16 ----
  constexpr int MI = WM / 16, NI = WN / 8;
  float acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;
  // `mid(ks)` runs after the mma of k-step ks is issued: the pipeline puts the next stage's
  // loads there, so their address arithmetic issues while the tensor pipe works.
  auto compute = [&](int stage, auto&& mid) {
    const u32 sa = sbase + stage * A_STAGE;
    const u32 sb = sbase_b + stage * B_STAGE;
#pragma unroll
    for (int ks = 0; ks < BK / 16; ++ks) {
      u32 af[MI][4];
      u32 bfr[NI][2];
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        if constexpr (A_MMAJOR) {
          // k rows of an M-major tile, transposed by ldmatrix into the row-major fragments
          const int k = ks * 16 + (lane & 7) + ((lane >> 4) << 3);
          const int m = wm * WM + i * 16 + (((lane >> 3) & 1) << 3);
          ldsm_x4_trans(af[i], sa + swz(mn_offset(k, m)));
        } else {
          const int row = wm * WM + i * 16 + (lane & 15);
          ldsm_x4(af[i], sa + swz(row * ROWB + (ks * 2 + (lane >> 4)) * 16));
        }
      }
#pragma unroll
      for (int p = 0; p < NI / 2; ++p) {
        u32 r[4];
        if constexpr (B_NMAJOR) {
          // k rows of an N-major tile, transposed by ldmatrix into the same fragments
          const int k = ks * 16 + (((lane >> 3) & 1) << 3) + (lane & 7);
          const int n = wn * WN + p * 16 + ((lane >> 4) << 3);
          ldsm_x4_trans(r, sb + swz(bn_offset(k, n)));
        } else {
          const int row = wn * WN + p * 16 + (lane & 7) + ((lane >> 4) << 3);
          ldsm_x4(r, sb + swz(row * ROWB + (ks * 2 + ((lane >> 3) & 1)) * 16));
        }
        bfr[2 * p][0] = r[0];
        bfr[2 * p][1] = r[1];
        bfr[2 * p + 1][0] = r[2];
        bfr[2 * p + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j) mma16816(acc[i][j], af[i], bfr[j][0], bfr[j][1]);
      mid(ks);
    }
  };
#else
  // ---- CUDA-core math: 4 x 8 lanes per warp, TM x TN outputs per thread ----
  constexpr int TM = WM / 4, TN = WN / 8;
  const int li = lane >> 3, lj = lane & 7;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
  auto compute = [&](int stage) {
    const unsigned char* sa = smem + stage * A_STAGE;
    const unsigned char* sb = smem + STAGES * A_STAGE + stage * B_STAGE;
    if constexpr (A_MMAJOR) {
      // MN-major tiles (outer products): per k, 4 consecutive rows and 4 consecutive columns
      // per 16-byte read; thread (li, lj) owns rows wm·WM + 16i + 4li + e and columns
      // wn·WN + 32j + 4lj + f (the epilogue's mapping below)
      static_assert(!A_MMAJOR || (WM % 16 == 0 && WN % 32 == 0), "MN-major CUDA-core warp tile");
      constexpr int TM4 = TM / 4 > 0 ? TM / 4 : 1, TN4 = TN / 4 > 0 ? TN / 4 : 1;
#pragma unroll 4
      for (int k = 0; k < BK; ++k) {
        f4 a[TM4], b[TN4];
#pragma unroll
        for (int i = 0; i < TM4; ++i)
          a[i] = *reinterpret_cast<const f4*>(sa + swz(mn_offset(k, wm * WM + i * 16 + li * 4)));
#pragma unroll
        for (int j = 0; j < TN4; ++j)
          b[j] = *reinterpret_cast<const f4*>(sb + swz(mn_offset(k, wn * WN + j * 32 + lj * 4)));
#pragma unroll
        for (int i = 0; i < TM4; ++i)
#pragma unroll
          for (int j = 0; j < TN4; ++j) {
            const float av[4] = {a[i].x, a[i].y, a[i].z, a[i].w};
            const float bv[4] = {b[j].x, b[j].y, b[j].z, b[j].w};
#pragma unroll
            for (int e = 0; e < 4; ++e)
#pragma unroll
              for (int f = 0; f < 4; ++f) acc[4 * i + e][4 * j + f] = fmaf(av[e], bv[f], acc[4 * i + e][4 * j + f]);
          }
      }
      return;
    }
#pragma unroll
    for (int kq = 0; kq < BK / 4; ++kq) {
      f4 a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i)
        a[i] = *reinterpret_cast<const f4*>(sa + swz((wm * WM + i * 4 + li) * ROWB + kq * 16));
#pragma unroll
      for (int j = 0; j < TN; ++j)
        b[j] = *reinterpret_cast<const f4*>(sb + swz((wn * WN + j * 8 + lj) * ROWB + kq * 16));
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          acc[i][j] = fmaf(a[i].x, b[j].x, acc[i][j]);
          acc[i][j] = fmaf(a[i].y, b[j].y, acc[i][j]);
          acc[i][j] = fmaf(a[i].z, b[j].z, acc[i][j]);
          acc[i][j] = fmaf(a[i].w, b[j].w, acc[i][j]);
        }
    }
  };
#endif

  // ---- multistage cp.async pipeline: one barrier per k-tile ----
#if GCONV_WS
  // Warp-specialised: the producer warpgroups (threads CTHREADS..) fill stage kt % STAGES with
  // k-tile kt once the consumers released its previous k-tile (empty) and signal it (full);
  // the consumer warpgroups wait for full, issue the k-tile's wgmma batch and, once the
  // previous batch retired (wait_group 1), release the previous k-tile's stage.
  //  - Copies only (ASYNC): each producer thread's arrival on full is tied to the completion
  //    of its copies (cp.async.mbarrier.arrive.noinc), so the producer never waits for data
  //    and keeps up to STAGES k-tiles in flight; the consumers fence the proxies after the
  //    wait (the copies wrote through the generic proxy, wgmma reads through the async one).
  //  - Register-staged elements or a restaging step (`land`): the producer signals k-tile r
  //    LAG = STAGES - 2 k-tiles later, when its own copies of it have landed (cp.async groups
  //    complete in order), after the restaging and the proxy fence. LAG = STAGES - 2 keeps the
  //    two roles from waiting on each other: the stage the producer waits for in iteration kt
  //    (k-tile kt - STAGES) is released when the consumers start k-tile kt - STAGES + 1,
  //    signalled in producer iteration kt - STAGES + 1 + LAG = kt - 1.
  constexpr bool ASYNC = !LANDS && !A_SYNC && !B_SYNC;
  constexpr int LAG = STAGES - 2;
  static_assert(LAG >= 1, "wgmma pipelines need 3 or more stages");
  auto full_bar = [&](int s) { return sbar + 16u * s; };
  auto empty_bar = [&](int s) { return sbar + 16u * s + 8u; };
  if (tid == 0) {
#pragma unroll 1
    for (int s = 0; s < STAGES; ++s) {
      // every producer thread signals its copies (TMA: the one issuing lane, with the bytes)
      mbar_init(full_bar(s), GCONV_TMA ? 1 : LTHREADS);
      mbar_init(empty_bar(s), CTHREADS / 32);  // one arrival per consumer warp
    }
#if GCONV_TMA
    mbar_init_fence();  // the box copies complete bytes on the full barriers
#endif
  }
  __syncthreads();
  if (warp_uniform(warp) >= CTHREADS / 32) {  // the producers (a branch uniform per warp)
#if GCONV_TMA
    // One lane of the producer warp: per k-tile, once the stage is free, an arrival that
    // expects the stage's bytes, then the stage's copies that deliver them (`tma_fetch`).
    if (lane == 0) {
#pragma unroll 1
      for (int kt = 0; kt < nkt; ++kt) {
        const int s = kt % STAGES;
        if (kt >= STAGES) mbar_wait(empty_bar(s), (kt / STAGES - 1) & 1);
        mbar_arrive_expect_tx(full_bar(s), A_STAGE + B_STAGE);
        tma_fetch(s, kt, full_bar(s));
      }
    }
#else
    if constexpr (ASYNC) {
#pragma unroll 1
      for (int kt = 0; kt < nkt; ++kt) {
        const int s = kt % STAGES;
        if (kt >= STAGES) mbar_wait(empty_bar(s), (kt / STAGES - 1) & 1);
        fetch(s);
        cp_async_commit();
        cp_async_mbar_arrive(full_bar(s));  // completes when this thread's copies have landed
      }
    } else {
#pragma unroll 1
      for (int kt = 0; kt < nkt + LAG; ++kt) {
        if (kt < nkt) {
          const int s = kt % STAGES;
          if (kt >= STAGES) mbar_wait(empty_bar(s), (kt / STAGES - 1) & 1);
          fetch(s);
          flush(s);
        }
        cp_async_commit();
        const int r = kt - LAG;  // the k-tile whose copies have landed once LAG groups remain
        if (r >= 0) {
          cp_async_wait<LAG>();
          land(r % STAGES);
          fence_proxy_async();  // this thread's copies visible to the tensor cores
          mbar_arrive(full_bar(r % STAGES));
        }
      }
    }
#endif
  } else {
#pragma unroll 1
    for (int kt = 0; kt < nkt; ++kt) {
      const int s = kt % STAGES;
      mbar_wait(full_bar(s), (kt / STAGES) & 1);
      if constexpr (ASYNC) fence_proxy_async();  // the producer's copies, to the async proxy
      compute(s, kt);  // k-tile kt issued; k-tile kt - 1 retired
      if (kt >= 1) {
        __syncwarp();  // every lane of the warp retired k-tile kt - 1 before its arrival
        if (lane == 0) mbar_arrive(empty_bar((kt - 1) % STAGES));
      }
    }
    wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < MWG; ++i) wgmma_hold(acc[i]);
  }
  __syncthreads();
  // the barriers' words become the epilogue's staging (after the barrier below)
  if (tid == 0) {
#pragma unroll 1
    for (int s = 0; s < STAGES; ++s) {
      mbar_inval(full_bar(s));
      mbar_inval(empty_bar(s));
    }
  }
#elif GCONV_MATH_WGMMA
  // Prefetch distance STAGES - 2: the stage refilled in iteration kt was last read by the
  // wgmma batch of k-tile kt - 2, which every warpgroup retired (wait_group 1 in iteration
  // kt - 1) before the barrier of iteration kt; the batch of kt - 1 may still be running.
  constexpr int PF = STAGES - 2;
  static_assert(PF >= 1, "wgmma pipelines need 3 or more stages");
#pragma unroll
  for (int s = 0; s < PF; ++s) {
    if (s < nkt) {
      fetch(s);
      flush(s);
    }
#if GCONV_HALO
    // Block s is first read by k-tile s: it lands before that k-tile's barrier. The blocks past
    // the prologue join its last group (issued now, in flight while the first k-tiles compute):
    // issuing each with its own k-tile in the loop ran 1.15x slower at 4+ blocks
    // (results/h200/s27/call_d).
    if (s < CBLK) fetch_halo(s);
    if (s == PF - 1)
      for (int b = PF; b < CBLK; ++b) fetch_halo(b);
#endif
    cp_async_commit();
  }
  for (int kt = 0; kt < nkt; ++kt) {
    cp_async_wait<PF - 1>();
    land(kt % STAGES);    // the direction's restaging of this k-tile, before the barrier
    fence_proxy_async();  // this thread's copies (and flushes) visible to the tensor cores
    __syncthreads();
    const bool more = kt + PF < nkt;
    const int ws = (kt + PF) % STAGES;
    if (more) fetch(ws);
    cp_async_commit();
    compute(kt % STAGES, kt);
    if (more) flush(ws);
  }
  wgmma_wait<0>();
#pragma unroll
  for (int i = 0; i < MWG; ++i) wgmma_hold(acc[i]);
#else
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < nkt) {
      fetch(s);
      flush(s);
    }
    cp_async_commit();
  }
  int rs = 0, ws = STAGES - 1;
  for (int kt = 0; kt < nkt; ++kt) {
    cp_async_wait<STAGES - 2>();
    land(rs);  // the direction's restaging of this k-tile, before the barrier
    __syncthreads();
    const bool more = kt + STAGES - 1 < nkt;
#if GCONV_MATH_MMA
    // the next stage's loads after the first k-step's mma (the stage they fill was last read
    // in iteration kt - 1, before this iteration's barrier)
    compute(rs, [&](int ks) {
      if (ks == 0 && more) fetch(ws);
    });
    cp_async_commit();
#else
    if (more) fetch(ws);
    cp_async_commit();
    compute(rs);
#endif
    if (more) flush(ws);
    rs = (rs + 1 == STAGES) ? 0 : rs + 1;
    ws = (ws + 1 == STAGES) ? 0 : ws + 1;
  }
#endif
  cp_async_wait<0>();
  __syncthreads();

  // ---- epilogue: restage through shared memory, then coalesced VC-wide stores ----
#if GCONV_MATH_WGMMA
  // m64nN accumulator layout: warp w of the warpgroup holds rows 16w + lane/4 (+8); register
  // 4j + e holds column 8j + 2(lane % 4) + (e % 2). (A producer warpgroup holds none.)
#pragma unroll
  for (int i = 0; i < (tid < CTHREADS ? MWG : 0); ++i)
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int row = (wg * MWG + i) * 64 + (warp & 3) * 16 + (lane >> 2);
      const int col = j * 8 + (lane & 3) * 2;
      if constexpr (OUT_ESZ == 2) {
        *reinterpret_cast<u32*>(smem + (row * CROW + col) * 2) = pack2(acc[i][4 * j], acc[i][4 * j + 1]);
        *reinterpret_cast<u32*>(smem + ((row + 8) * CROW + col) * 2) = pack2(acc[i][4 * j + 2], acc[i][4 * j + 3]);
      } else {
        float* p0 = reinterpret_cast<float*>(smem + (row * CROW + col) * 4);
        float* p1 = reinterpret_cast<float*>(smem + ((row + 8) * CROW + col) * 4);
        p0[0] = acc[i][4 * j];
        p0[1] = acc[i][4 * j + 1];
        p1[0] = acc[i][4 * j + 2];
        p1[1] = acc[i][4 * j + 3];
      }
    }
#elif GCONV_MATH_MMA
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j) {
      const int row = wm * WM + i * 16 + (lane >> 2);
      const int col = wn * WN + j * 8 + (lane & 3) * 2;
      if constexpr (OUT_ESZ == 2) {
        *reinterpret_cast<u32*>(smem + (row * CROW + col) * 2) = pack2(acc[i][j][0], acc[i][j][1]);
        *reinterpret_cast<u32*>(smem + ((row + 8) * CROW + col) * 2) = pack2(acc[i][j][2], acc[i][j][3]);
      } else {
        float* p0 = reinterpret_cast<float*>(smem + (row * CROW + col) * 4);
        float* p1 = reinterpret_cast<float*>(smem + ((row + 8) * CROW + col) * 4);
        p0[0] = acc[i][j][0];
        p0[1] = acc[i][j][1];
        p1[0] = acc[i][j][2];
        p1[1] = acc[i][j][3];
      }
    }
#else
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int row = A_MMAJOR ? wm * WM + (i / 4) * 16 + li * 4 + i % 4 : wm * WM + i * 4 + li;
      const int col = A_MMAJOR ? wn * WN + (j / 4) * 32 + lj * 4 + j % 4 : wn * WN + j * 8 + lj;
      *reinterpret_cast<float*>(smem + (row * CROW + col) * 4) = acc[i][j];
    }
#endif
  __syncthreads();
#if GCONV_SPLIT_CLUSTER
  // Cluster split: every slice's f32 tile is staged; rank r takes the runs of THREADS chunks
  // that start at (r + k·SPLIT)·THREADS, reads each chunk from the SPLIT ranks (one vector
  // load per rank), sums them in rank order (a fixed order: bit-identical runs) and stores them
  // in the output dtype. The second barrier keeps each CTA's shared memory alive until every
  // rank has read it.
  cluster_sync();
  static_assert(VC == 1 || VC == 2 || VC == 4, "f32 staging: chunks of at most 16 bytes");
  constexpr bool OUT_F32 = ESZ == 4;  // f32 output; f16/bf16 otherwise
  unsigned char* const out_b = reinterpret_cast<unsigned char*>(out);
#pragma unroll 1
  for (int idx = tid + split * THREADS; idx < C_CHUNKS; idx += THREADS * SPLIT) {
    const int row = idx / CPR_C, col = (idx % CPR_C) * VC;
    const int m = m0 + row, n = n0 + col;
    if (m < m_rows && n < n_cols) {
      const long long off = out_off(m, n);
      if (off >= 0) {
        const float* src = reinterpret_cast<const float*>(smem) + row * CROW + col;
        float part[SPLIT][VC], s[VC];
#pragma unroll
        for (int q = 0; q < SPLIT; ++q) ld_cluster_f32xn<VC>(src, (unsigned)q, part[q]);
#pragma unroll
        for (int e = 0; e < VC; ++e) s[e] = 0.f;
#pragma unroll
        for (int q = 0; q < SPLIT; ++q)
#pragma unroll
          for (int e = 0; e < VC; ++e) s[e] += part[q][e];
        alignas(16) unsigned char v[VC * ESZ];
#pragma unroll
        for (int e = 0; e < VC; ++e) {
          if constexpr (OUT_F32) {
            reinterpret_cast<float*>(v)[e] = s[e];
          } else {
            reinterpret_cast<u16*>(v)[e] = to_half_bits(s[e]);
          }
        }
        copy_bytes<VC * ESZ>(out_b + off * ESZ, v);
      }
    }
  }
  cluster_sync();
#else
  // Split-K: slice `split` writes its own f32 plane (deterministic) or adds into plane 0 (atomic).
  unsigned char* dst_base = reinterpret_cast<unsigned char*>(SPLIT > 1 ? workspace : out) +
                            (GCONV_SPLIT_ATOMIC ? 0 : (long long)split * RED_PLANE) * OUT_ESZ;
#pragma unroll 4
  for (int idx = tid; idx < C_CHUNKS; idx += THREADS) {
    const int row = idx / CPR_C, col = (idx % CPR_C) * VC;
    const int m = m0 + row, n = n0 + col;
    if (m < m_rows && n < n_cols) {
      const long long off = out_off(m, n);  // the direction's output element, < 0: not stored
      if (off >= 0) {
#if GCONV_SPLIT_ATOMIC
#pragma unroll
        for (int e = 0; e < VC; ++e)
          red_add_f32(reinterpret_cast<float*>(dst_base) + off + e,
                      *reinterpret_cast<const float*>(smem + (row * CROW + col + e) * 4));
#else
        copy_bytes<VC * OUT_ESZ>(dst_base + off * OUT_ESZ, smem + (row * CROW + col) * OUT_ESZ);
#endif
      }
    }
  }
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
extern "C" __global__ void __launch_bounds__(256) igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm2_sk1d_wgmmatma_gen_reduce(const void* __restrict__ in0,
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
extern "C" __global__ void __launch_bounds__(256) igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm2_sk1d_wgmmatma_gen_zero(const void* __restrict__ in0,
                                                              const void* __restrict__ in1,
                                                              void* __restrict__ out,
                                                              void* __restrict__ workspace) {
  const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
  if (i < RED_PLANE) reinterpret_cast<float*>(workspace)[i] = 0.f;
}
extern "C" __global__ void __launch_bounds__(256) igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm2_sk1d_wgmmatma_gen_convert(const void* __restrict__ in0,
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
