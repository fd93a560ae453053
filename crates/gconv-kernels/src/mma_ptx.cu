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
