extern "C" __global__ void GCONV_CLUSTER_ATTR __launch_bounds__(THREADS) @ENTRY@(const void* __restrict__ in0,
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

