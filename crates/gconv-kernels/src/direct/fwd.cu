// ---- derived constants of the CUDA-core (simt) path ----
constexpr int LANES = BN / VEC;  // channel lanes of a CTA
constexpr int PGW = TW / PX;     // pixel groups along W
constexpr int ITEMS = TH * PGW * LANES;  // (channel lane, output row, column group) triples
constexpr int PY = ITEMS / THREADS;      // adjacent output rows per thread
constexpr int RGH = TH / PY;             // row groups of the tile
constexpr int SPAN = (PX - 1) * SW + (FX - 1) * DW + 1;  // input columns of one window row
constexpr int RIN = (PY - 1) * SH + (FY - 1) * DH + 1;   // input rows of one thread's strip
constexpr bool DEPTHWISE_PATH = CG == 1 && KG == 1;
// Grouped (C/G > 1 or channel multiplier) with a thread's VEC output channels inside one group:
// one vector read gives the group's CG input channels, which feed CG x VEC FMAs per output.
constexpr bool GROUP_VEC_PATH = !DEPTHWISE_PATH && KG % VEC == 0;
// Depthwise: the whole FY x FX x VEC filter of a depth slice lives in registers when it fits
// next to the PY x PX x VEC accumulators (rows-outer order: every staged input value is read
// from shared memory once per thread); otherwise one filter row at a time (fy-outer order).
constexpr bool W_IN_REGS = DEPTHWISE_PATH && FY * FX * VEC + PY * PX * VEC <= W_REG_BUDGET;
static_assert(CTS == CT, "simt: unpadded pixels");
static_assert(WS_BYTES == TAPS * CG * BN * 4, "weight tile size");
static_assert(BN % VEC == 0 && TW % PX == 0, "tile shape");
static_assert(ITEMS == PY * THREADS && TH % PY == 0, "thread mapping: one item per thread");
static_assert(K_ % SV == 0 && VEC % SV == 0, "vector widths");


// Column j of a window row feeds output p through tap fx = (j - p·SW) / DW when that is exact.
constexpr int tap_of(int j, int p) {
  return (j - p * SW >= 0 && (j - p * SW) % DW == 0 && (j - p * SW) / DW < FX) ? (j - p * SW) / DW
                                                                                : -1;
}

// Output row y of a thread's strip that input row r feeds through filter row fy, or -1.
constexpr int out_row_of(int r, int fy) {
  return (r - fy * DH >= 0 && (r - fy * DH) % SH == 0 && (r - fy * DH) / SH < PY)
             ? (r - fy * DH) / SH
             : -1;
}
constexpr bool row_used(int r) {
  for (int fy = 0; fy < FY; ++fy) {
    if (out_row_of(r, fy) >= 0) return true;
  }
  return false;
}
constexpr bool col_used(int j) {
  for (int p = 0; p < PX; ++p) {
    if (tap_of(j, p) >= 0) return true;
  }
  return false;
}

__device__ __forceinline__ void compute_tile(const elem_t* xs, const float* ws,
                                             elem_t* __restrict__ Y, TileAt a, int k0, int tid);

// MIN_CTAS: a persistent grid is one wave, all of it resident (geometry.rs, PERSISTENT_REGS).
extern "C" __global__ void __launch_bounds__(THREADS, MIN_CTAS) @ENTRY@(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace) {
  GCONV_DYNAMIC_SMEM(smem);
  (void)workspace;
  // [STAGES] input tiles of [ITD][ITH] rows of XROW = ITW·CT + pad, then [TAPS·CG][BN] f32.
  static_assert(!DEPTH_STREAM, "depth streaming is a tensor-core walk");
  float* ws = reinterpret_cast<float*>(smem + STAGES * XS_BYTES);
  const elem_t* __restrict__ X = reinterpret_cast<const elem_t*>(in0);
  const elem_t* __restrict__ Wt = reinterpret_cast<const elem_t*>(in1);
  elem_t* __restrict__ Y = reinterpret_cast<elem_t*>(out);
  const int tid = threadIdx.x;
  const int k0 = blockIdx.y * BN;  // first output channel of the CTA
  const int c0 = blockIdx.y * CT;  // first input channel of the CTA

  // The weights (plain reads, widened to f32) are staged while the first tile's halo copies
  // are in flight (walk_tiles' prologue).
  auto stage_weights = [&]() {
@WEIGHTS@
  };
  walk_tiles(
      smem, X, c0, tid,
      [&](const elem_t* xs, TileAt a) { compute_tile(xs, ws, Y, a, k0, tid); }, stage_weights);
}

// 3. Each thread: PY adjacent output rows x PX adjacent output columns x VEC adjacent
//    output channels. Threads are numbered channel lane fastest, then row group, then column
//    group (a warp with fewer than 32 lanes spans row groups, which the row padding puts on
//    other banks). A window row is SPAN input columns; each column is read from shared memory
//    once per use and feeds every output of the strip that uses it (register sliding window).
__device__ __forceinline__ void compute_tile(const elem_t* xs, const float* ws,
                                             elem_t* __restrict__ Y, TileAt a, int k0, int tid) {
  const int n = a.n;
  const int od = a.od;
  const int oh0 = a.oh0;
  const int ow0 = a.ow0;
  const int lane = tid % LANES;
  const int pg = tid / LANES;
  const int ty0 = (pg % RGH) * PY;
  const int tx0 = (pg / RGH) * PX;
  const int kl0 = lane * VEC;
  float acc[PY][PX][VEC];
#pragma unroll
  for (int y = 0; y < PY; ++y) {
#pragma unroll
    for (int p = 0; p < PX; ++p) {
#pragma unroll
      for (int v = 0; v < VEC; ++v) acc[y][p][v] = 0.0f;
    }
  }
  for (int fz = 0; fz < FZ; ++fz) {
    const elem_t* strip = xs + (fz * ITH + ty0 * SH) * XROW + tx0 * SW * CT + kl0;
    if constexpr (W_IN_REGS) {
      // Rows-outer: input row r of the strip feeds output row y through filter row fy when
      // r = y*SH + fy*DH; all of the slice's weights are in registers.
      float wr[FY][FX][VEC];
#pragma unroll
      for (int fy = 0; fy < FY; ++fy) {
#pragma unroll
        for (int fx = 0; fx < FX; ++fx) {
          load_w<VEC>(ws + ((fz * FY + fy) * FX + fx) * BN + kl0, wr[fy][fx]);
        }
      }
#pragma unroll
      for (int r = 0; r < RIN; ++r) {
        if (!row_used(r)) continue;
#pragma unroll
        for (int j = 0; j < SPAN; ++j) {
          if (!col_used(j)) continue;
          float xv[VEC];
          load_f32<VEC>(strip + r * XROW + j * CT, xv);
#pragma unroll
          for (int fy = 0; fy < FY; ++fy) {
            const int y = out_row_of(r, fy);
            if (y < 0) continue;
#pragma unroll
            for (int p = 0; p < PX; ++p) {
              const int fx = tap_of(j, p);
              if (fx < 0) continue;
#pragma unroll
              for (int v = 0; v < VEC; ++v) acc[y][p][v] = fmaf(xv[v], wr[fy][fx][v], acc[y][p][v]);
            }
          }
        }
      }
    } else if constexpr (DEPTHWISE_PATH) {
      // Fy-outer: one filter row in registers, applied to the PY output rows.
#pragma unroll 1
      for (int fy = 0; fy < FY; ++fy) {
        float wr[FX][VEC];
#pragma unroll
        for (int fx = 0; fx < FX; ++fx) load_w<VEC>(ws + ((fz * FY + fy) * FX + fx) * BN + kl0, wr[fx]);
#pragma unroll
        for (int y = 0; y < PY; ++y) {
          const elem_t* row = strip + (y * SH + fy * DH) * XROW;
#pragma unroll
          for (int j = 0; j < SPAN; ++j) {
            if (!col_used(j)) continue;
            float xv[VEC];
            load_f32<VEC>(row + j * CT, xv);
#pragma unroll
            for (int p = 0; p < PX; ++p) {
              const int fx = tap_of(j, p);
              if (fx < 0) continue;
#pragma unroll
              for (int v = 0; v < VEC; ++v) acc[y][p][v] = fmaf(xv[v], wr[fx][v], acc[y][p][v]);
            }
          }
        }
      }
    } else if constexpr (GROUP_VEC_PATH) {
      // One filter row in registers ([fx][c][v]); per input column one read of the group's CG
      // channels, each feeding VEC outputs of every pixel of the strip that uses the column.
      const elem_t* strip0 = strip - kl0 + (kl0 / KG) * CG;
#pragma unroll 1
      for (int fy = 0; fy < FY; ++fy) {
        float wr[FX][CG][VEC];
#pragma unroll
        for (int fx = 0; fx < FX; ++fx) {
#pragma unroll
          for (int c = 0; c < CG; ++c) {
            load_w<VEC>(ws + (((fz * FY + fy) * FX + fx) * CG + c) * BN + kl0, wr[fx][c]);
          }
        }
#pragma unroll
        for (int y = 0; y < PY; ++y) {
          const elem_t* row = strip0 + (y * SH + fy * DH) * XROW;
#pragma unroll
          for (int j = 0; j < SPAN; ++j) {
            if (!col_used(j)) continue;
            float xv[CG];
            load_f32<CG>(row + j * CT, xv);
#pragma unroll
            for (int p = 0; p < PX; ++p) {
              const int fx = tap_of(j, p);
              if (fx < 0) continue;
#pragma unroll
              for (int c = 0; c < CG; ++c) {
#pragma unroll
                for (int v = 0; v < VEC; ++v) acc[y][p][v] = fmaf(xv[c], wr[fx][c][v], acc[y][p][v]);
              }
            }
          }
        }
      }
    } else {
      // Channel multiplier / small C/G with a thread's channels spanning groups: output channel
      // k reads input channels (k / KG)*CG + c, c < CG, of its group; scalar shared-memory reads.
      const elem_t* strip0 = strip - kl0;
#pragma unroll 1
      for (int fy = 0; fy < FY; ++fy) {
        const int tap0 = (fz * FY + fy) * FX;
#pragma unroll
        for (int y = 0; y < PY; ++y) {
          const elem_t* row = strip0 + (y * SH + fy * DH) * XROW;
#pragma unroll
          for (int j = 0; j < SPAN; ++j) {
#pragma unroll
            for (int p = 0; p < PX; ++p) {
              const int fx = tap_of(j, p);
              if (fx < 0) continue;
#pragma unroll
              for (int v = 0; v < VEC; ++v) {
                const int kl = kl0 + v;
                const elem_t* px = row + j * CT + (kl / KG) * CG;
#pragma unroll
                for (int c = 0; c < CG; ++c) {
                  acc[y][p][v] =
                      fmaf(to_f32(px[c]), ws[((tap0 + fx) * CG + c) * BN + kl], acc[y][p][v]);
                }
              }
            }
          }
        }
      }
    }
  }
  // 4. Stores: SV channels per access; pixels and channels outside the output are skipped.
#pragma unroll
  for (int y = 0; y < PY; ++y) {
    const int oh = oh0 + ty0 + y;
    if (oh >= OH) continue;
#pragma unroll
    for (int p = 0; p < PX; ++p) {
      const int ow = ow0 + tx0 + p;
      if (ow >= OW) continue;
      const int base = (((n * OD + od) * OH + oh) * OW + ow) * K_ + k0 + kl0;
#pragma unroll
      for (int s = 0; s < VEC; s += SV) {
        if (k0 + kl0 + s < K_) store_out<SV>(Y + base + s, &acc[y][p][s]);
      }
    }
  }
}

