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

extern "C" __global__ void __launch_bounds__(THREADS) @ENTRY@(const void* __restrict__ in0,
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
