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

