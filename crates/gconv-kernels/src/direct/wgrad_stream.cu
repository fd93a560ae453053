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

extern "C" __global__ void GCONV_CLUSTER_ATTR __launch_bounds__(THREADS, MIN_CTAS) @ENTRY@(const void* __restrict__ in0,
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
