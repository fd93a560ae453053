extern "C" __global__ void __launch_bounds__(THREADS) @ENTRY@(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace) {
  GCONV_DYNAMIC_SMEM(smem);
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int wm = warp / WARPS_N;
  const int wn = warp % WARPS_N;
  const int gb = blockIdx.z % NGB;  // merged group block
  const int split = blockIdx.z / NGB;
  const int n0 = blockIdx.y * BN;
  const elem_t* __restrict__ X = reinterpret_cast<const elem_t*>(in0) + gb * CEFF;
  const elem_t* __restrict__ Wt = reinterpret_cast<const elem_t*>(in1);
#if GCONV_MATH_WGMMA
  // 1024-byte aligned base: the hardware applies the 128-byte swizzle to absolute addresses.
  const u32 sbase = (smem_u32(smem) + 1023u) & ~1023u;
  unsigned char* const smem_al = smem + (sbase - smem_u32(smem));
#else
  const u32 sbase = smem_u32(smem);
  unsigned char* const smem_al = smem;
#endif
  const u32 sbase_b = sbase + STAGES * A_STAGE;

