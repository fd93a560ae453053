// ---- stride-phase backward data (dgrad) on CUDA cores (direct/strided.rs) ----
// dX row hi along a dimension of stride S is cell hi / S, phase hi % S. Tap y reaches phase p
// when p + pad − y·dil is a multiple of S, and then reads dY row cell + (p + pad − y·dil) / S.
// The constants of common.cu describe the staged halo on a stride-1 walk over cells: OD/OH/OW
// are the cell counts, IH/IW/ID dY's size, FY/FX/FZ the staged rows/columns/slices per cell
// (1 + e_max − e_min) and PH/PW/PD = −e_min; the real filter, strides, paddings, dilations and
// dX's size are KZ.., NSD.., RPD.., RDD.., XD.. . in0 is dY, in1 the original W, out dX.
constexpr int LANES = BN / VEC;          // channel lanes of a CTA
constexpr int PGW = TW / PX;             // cell groups along W
constexpr int ITEMS = TH * PGW * LANES;  // (channel lane, cell row, cell column group) triples
constexpr int PY = ITEMS / THREADS;      // adjacent cell rows per thread
constexpr int RGH = TH / PY;             // row groups of the tile
constexpr int RTAPS = KZ * KY * KX;      // taps of the real filter
constexpr int RIN = PY + FY - 1;         // staged dY rows of a thread's strip
constexpr int SPAN = PX + FX - 1;        // staged dY columns of a thread's strip
constexpr bool DEPTHWISE_PATH = CG == 1 && KG == 1;
static_assert(SD == 1 && SH == 1 && SW == 1 && DD == 1 && DH == 1 && DW == 1, "stride-1 halo");
static_assert(PD == -EMIN_D && PH == -EMIN_H && PW == -EMIN_W, "halo origin");
static_assert(OD == (XD + NSD - 1) / NSD && OH == (XH + NSH - 1) / NSH &&
                  OW == (XW + NSW - 1) / NSW,
              "cells");
static_assert(CTS == CT, "simt: unpadded pixels");
static_assert(WS_BYTES == RTAPS * CG * BN * 4, "weight tile size");
static_assert(BN % VEC == 0 && TW % PX == 0, "tile shape");
static_assert(ITEMS == PY * THREADS && TH % PY == 0, "thread mapping");
static_assert(K_ % SV == 0 && VEC % SV == 0, "vector widths");

// Tap y reaches phase p along a dimension (stride S, padding P, dilation D), and the dY offset
// it then reads, relative to the cell.
constexpr bool reaches(int p, int y, int S, int P, int D) { return (p + P - y * D) % S == 0; }
constexpr int offset_of(int p, int y, int S, int P, int D) { return (p + P - y * D) / S; }

// Row r of a thread's staged strip feeds its cell row i = r − (offset − e_min) of phase p
// through filter row y; -1 when it does not (the tap misses the phase or the strip's rows).
constexpr int cell_row(int r, int p, int y) {
  return reaches(p, y, NSH, RPH, RDH) && r - (offset_of(p, y, NSH, RPH, RDH) - EMIN_H) >= 0 &&
                 r - (offset_of(p, y, NSH, RPH, RDH) - EMIN_H) < PY
             ? r - (offset_of(p, y, NSH, RPH, RDH) - EMIN_H)
             : -1;
}
constexpr int cell_col(int j, int p, int x) {
  return reaches(p, x, NSW, RPW, RDW) && j - (offset_of(p, x, NSW, RPW, RDW) - EMIN_W) >= 0 &&
                 j - (offset_of(p, x, NSW, RPW, RDW) - EMIN_W) < PX
             ? j - (offset_of(p, x, NSW, RPW, RDW) - EMIN_W)
             : -1;
}
// Staged depth slice that depth phase p reads through filter slice z, or -1.
constexpr int depth_slice(int p, int z) {
  return reaches(p, z, NSD, RPD, RDD) ? offset_of(p, z, NSD, RPD, RDD) - EMIN_D : -1;
}
constexpr bool row_used(int r) {
  for (int p = 0; p < NSH; ++p) {
    for (int y = 0; y < KY; ++y) {
      if (cell_row(r, p, y) >= 0) return true;
    }
  }
  return false;
}
constexpr bool col_used(int j) {
  for (int p = 0; p < NSW; ++p) {
    for (int x = 0; x < KX; ++x) {
      if (cell_col(j, p, x) >= 0) return true;
    }
  }
  return false;
}

__device__ __forceinline__ void compute_phases(const elem_t* xs, const float* ws,
                                               elem_t* __restrict__ dX, TileAt a, int k0,
                                               int tid);

// MIN_CTAS: a persistent grid is one wave, all of it resident (geometry.rs, PERSISTENT_REGS).
extern "C" __global__ void __launch_bounds__(THREADS, MIN_CTAS) @ENTRY@(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace) {
  GCONV_DYNAMIC_SMEM(smem);
  (void)workspace;
  // [STAGES] dY halo tiles of [ITD][ITH] rows of XROW = ITW·CT, then [RTAPS·CG][BN] f32.
  static_assert(!DEPTH_STREAM, "depth streaming is a tensor-core walk");
  float* ws = reinterpret_cast<float*>(smem + STAGES * XS_BYTES);
  const elem_t* __restrict__ dY = reinterpret_cast<const elem_t*>(in0);
  const elem_t* __restrict__ Wt = reinterpret_cast<const elem_t*>(in1);
  elem_t* __restrict__ dX = reinterpret_cast<elem_t*>(out);
  const int tid = threadIdx.x;
  const int k0 = blockIdx.y * BN;  // first dX channel of the CTA
  const int c0 = blockIdx.y * CT;  // first dY channel of the CTA

  // Weights once per CTA, widened to f32 as [tap·CG + kk][BN]: dX channel k0 + kl = g·KG + c
  // of group g reads W[g][kk][tap][c] (W is G, K/G, taps, C/G: the dY channel kk of the group
  // is W's output channel); dX channel fastest (adjacent in W within a group); zero past C.
  // The reads are batched (stage_batched) and overlap the first tile's halo copies
  // (walk_tiles' prologue).
  auto stage_weights = [&]() {
    stage_batched<BN * RTAPS * CG>(
        tid,
        [&](int i) {
          const int kl = i % BN;
          const int r = i / BN;
          const int tap = r / CG;
          const int kk = r - tap * CG;
          const int k = k0 + kl;
          const int g = k / KG;
          return k < K_ ? Wt[((g * CG + kk) * RTAPS + tap) * KG + (k - g * KG)] : (elem_t)0;
        },
        [&](int i, elem_t v) { ws[i] = to_f32(v); });
  };
  walk_tiles(
      smem, dY, c0, tid,
      [&](const elem_t* xs, TileAt a) { compute_phases(xs, ws, dX, a, k0, tid); }, stage_weights);
}

// Each thread: PY adjacent cell rows x PX adjacent cell columns x every phase x VEC adjacent dX
// channels (threads numbered as on the forward simt path). Per depth phase, every staged dY
// value of the thread's strip is read from shared memory once and feeds every (cell, phase,
// tap) that uses it; phases that no tap reaches keep zeros and store them.
__device__ __forceinline__ void compute_phases(const elem_t* xs, const float* ws,
                                               elem_t* __restrict__ dX, TileAt a, int k0,
                                               int tid) {
  const int lane = tid % LANES;
  const int pg = tid / LANES;
  const int ty0 = (pg % RGH) * PY;
  const int tx0 = (pg / RGH) * PX;
  const int kl0 = lane * VEC;
#pragma unroll
  for (int pz = 0; pz < NSD; ++pz) {
    const int id = a.od * NSD + pz;
    if (id >= XD) break;
    float acc[PY][PX][NSH][NSW][VEC];
#pragma unroll
    for (int i = 0; i < PY; ++i) {
#pragma unroll
      for (int j = 0; j < PX; ++j) {
#pragma unroll
        for (int ph = 0; ph < NSH; ++ph) {
#pragma unroll
          for (int pw = 0; pw < NSW; ++pw) {
#pragma unroll
            for (int v = 0; v < VEC; ++v) acc[i][j][ph][pw][v] = 0.0f;
          }
        }
      }
    }
#pragma unroll
    for (int z = 0; z < KZ; ++z) {
      const int sl = depth_slice(pz, z);
      if (sl < 0) continue;
      const elem_t* strip = xs + (sl * ITH + ty0) * XROW + tx0 * CT + kl0;
      if constexpr (DEPTHWISE_PATH) {
        // The filter slice in registers; each staged value feeds VEC channels of every output
        // of the strip it reaches.
        float wr[KY][KX][VEC];
#pragma unroll
        for (int y = 0; y < KY; ++y) {
#pragma unroll
          for (int x = 0; x < KX; ++x) load_w<VEC>(ws + ((z * KY + y) * KX + x) * BN + kl0, wr[y][x]);
        }
#pragma unroll
        for (int r = 0; r < RIN; ++r) {
          if (!row_used(r)) continue;
#pragma unroll
          for (int c = 0; c < SPAN; ++c) {
            if (!col_used(c)) continue;
            float xv[VEC];
            load_f32<VEC>(strip + r * XROW + c * CT, xv);
#pragma unroll
            for (int ph = 0; ph < NSH; ++ph) {
#pragma unroll
              for (int y = 0; y < KY; ++y) {
                const int i = cell_row(r, ph, y);
                if (i < 0) continue;
#pragma unroll
                for (int pw = 0; pw < NSW; ++pw) {
#pragma unroll
                  for (int x = 0; x < KX; ++x) {
                    const int j = cell_col(c, pw, x);
                    if (j < 0) continue;
#pragma unroll
                    for (int v = 0; v < VEC; ++v) {
                      acc[i][j][ph][pw][v] = fmaf(xv[v], wr[y][x][v], acc[i][j][ph][pw][v]);
                    }
                  }
                }
              }
            }
          }
        }
      } else {
        // Channel multiplier / small groups: dX channel kl of group kl / KG sums the group's
        // CG dY channels; scalar shared-memory reads.
        const elem_t* strip0 = strip - kl0;
#pragma unroll
        for (int r = 0; r < RIN; ++r) {
          if (!row_used(r)) continue;
#pragma unroll
          for (int c = 0; c < SPAN; ++c) {
            if (!col_used(c)) continue;
#pragma unroll
            for (int ph = 0; ph < NSH; ++ph) {
#pragma unroll
              for (int y = 0; y < KY; ++y) {
                const int i = cell_row(r, ph, y);
                if (i < 0) continue;
#pragma unroll
                for (int pw = 0; pw < NSW; ++pw) {
#pragma unroll
                  for (int x = 0; x < KX; ++x) {
                    const int j = cell_col(c, pw, x);
                    if (j < 0) continue;
                    const int tap = (z * KY + y) * KX + x;
#pragma unroll
                    for (int v = 0; v < VEC; ++v) {
                      const int kl = kl0 + v;
                      const elem_t* px = strip0 + r * XROW + c * CT + (kl / KG) * CG;
#pragma unroll
                      for (int kk = 0; kk < CG; ++kk) {
                        acc[i][j][ph][pw][v] = fmaf(to_f32(px[kk]), ws[(tap * CG + kk) * BN + kl],
                                                    acc[i][j][ph][pw][v]);
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    // Stores: SV channels per access; dX pixels and channels outside dX are skipped.
#pragma unroll
    for (int i = 0; i < PY; ++i) {
#pragma unroll
      for (int ph = 0; ph < NSH; ++ph) {
        const int hi = (a.oh0 + ty0 + i) * NSH + ph;
        if (hi >= XH) continue;
#pragma unroll
        for (int j = 0; j < PX; ++j) {
#pragma unroll
          for (int pw = 0; pw < NSW; ++pw) {
            const int wi = (a.ow0 + tx0 + j) * NSW + pw;
            if (wi >= XW) continue;
            const int base = (((a.n * XD + id) * XH + hi) * XW + wi) * K_ + k0 + kl0;
#pragma unroll
            for (int s = 0; s < VEC; s += SV) {
              if (k0 + kl0 + s < K_) store_out<SV>(dX + base + s, &acc[i][j][ph][pw][s]);
            }
          }
        }
      }
    }
  }
}
