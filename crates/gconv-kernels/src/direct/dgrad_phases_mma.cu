// ---- stride-phase backward data (dgrad) on tensor cores (direct/strided.rs) ----
// The staged dY halo and the tile walk are the CUDA-core phase kernel's (a stride-1 walk over
// cells; OD/OH/OW the cell counts, FZ/FY/FX the staged slices/rows/columns per cell, PD/PH/PW =
// −e_min; the real filter, strides, paddings, dilations and dX's size are KZ.., NSD.., RPD..,
// RDD.., XD..). Each phase f = (pz, ph, pw) of a cell is its own implicit GEMM on the shared
// halo: row m of an m16 block is a cell of the tile, column k = (the phase's i-th tap, dY
// channel of the group), and ldmatrix takes each lane's row address straight from the halo
// (cell base + the tap's dY offset e − e_min), as on the forward mma path. The weights sit in
// shared memory as [BN][WROW] rows holding each phase's taps at a k16-aligned offset; a phase
// no tap reaches does no math and stores zeros. CG = K/G (dY channels per group, the staged
// input), KG = C/G (dX channels per group, the outputs). in0 is dY, in1 the original W, out dX.
constexpr int WARPS = THREADS / 32;
constexpr int NB = NW / 8;                // n8 blocks of a unit
constexpr int MT = TH * TW;               // cells of a tile
constexpr int MBLK = (MT + 15) / 16;      // m16 blocks of a tile (the last may be partial)
constexpr int UM = (MBLK + MB - 1) / MB;  // units along the cells
constexpr int UN = BN / NW;               // units along the channels
constexpr int UNITS = UM * UN;
constexpr int CPT = CG / 8;               // 8-channel chunks of dY per tap
constexpr int RTAPS = KZ * KY * KX;       // taps of the real filter
constexpr int NPH = NSD * NSH * NSW;      // phases of a cell
static_assert(ESZ == 2, "mma path: 16-bit data");
static_assert(CG % 8 == 0 && KG % 8 == 0 && NW % 8 == 0 && KG % NW == 0, "mma channel blocks");
static_assert(CTS % 8 == 0 && (CTS / 8) % 2 == 1, "cell stride: odd number of 16-byte chunks");
static_assert(VL == 8, "16-byte halo copies");
static_assert(GM == 1 && RAW_BYTES == 0, "no group merge on the phase path");
static_assert(SD == 1 && SH == 1 && SW == 1 && DD == 1 && DH == 1 && DW == 1 && XSPLIT == 1,
              "stride-1 halo in natural order");
static_assert(PD == -EMIN_D && PH == -EMIN_H && PW == -EMIN_W, "halo origin");
static_assert(OD == (XD + NSD - 1) / NSD && OH == (XH + NSH - 1) / NSH &&
                  OW == (XW + NSW - 1) / NSW,
              "cells");
static_assert(!DEPTH_STREAM, "depth streaming is the dual's walk");

// Tap y reaches phase p along a dimension (stride S, padding P, dilation D), and the dY offset
// it then reads, relative to the cell.
constexpr bool reaches(int p, int y, int S, int P, int D) { return (p + P - y * D) % S == 0; }
constexpr int offset_of(int p, int y, int S, int P, int D) { return (p + P - y * D) / S; }

// Phase f's depth, row and column phases.
constexpr int phase_d(int f) { return f / (NSH * NSW); }
constexpr int phase_h(int f) { return (f / NSW) % NSH; }
constexpr int phase_w(int f) { return f % NSW; }

// Real taps (z, y, x) that reach phase f in every dimension, counted (z-major order).
constexpr int phase_taps(int f) {
  int n = 0;
  for (int z = 0; z < KZ; ++z) {
    for (int y = 0; y < KY; ++y) {
      for (int x = 0; x < KX; ++x) {
        n += reaches(phase_d(f), z, NSD, RPD, RDD) && reaches(phase_h(f), y, NSH, RPH, RDH) &&
             reaches(phase_w(f), x, NSW, RPW, RDW);
      }
    }
  }
  return n;
}
// The i-th of them, as the real tap index (z·KY + y)·KX + x (-1 past the last).
constexpr int phase_tap(int f, int i) {
  for (int z = 0; z < KZ; ++z) {
    for (int y = 0; y < KY; ++y) {
      for (int x = 0; x < KX; ++x) {
        if (reaches(phase_d(f), z, NSD, RPD, RDD) && reaches(phase_h(f), y, NSH, RPH, RDH) &&
            reaches(phase_w(f), x, NSW, RPW, RDW)) {
          if (i == 0) return (z * KY + y) * KX + x;
          --i;
        }
      }
    }
  }
  return -1;
}
// Offset of phase f's weights in a weight row: the earlier phases' taps·CG, each rounded up to
// a k16 step.
constexpr int phase_woff(int f) {
  int o = 0;
  for (int g = 0; g < f; ++g) o += (phase_taps(g) * CG + 15) / 16 * 16;
  return o;
}
static_assert(WROW >= phase_woff(NPH) && WROW % 8 == 0 && (WROW / 8) % 2 == 1, "weight row stride");
static_assert(WS_BYTES == BN * WROW * ESZ, "weight tile size");

// Element offset in the halo of k8 chunk j of phase f (tap-major: the phase's tap j / CPT,
// dY channels (j % CPT)·8..), relative to the cell's pixel.
constexpr int phase_chunk_off(int f, int j) {
  const int t = phase_tap(f, j / CPT);
  const int z = t / (KY * KX);
  const int y = (t / KX) % KY;
  const int x = t % KX;
  const int sz = offset_of(phase_d(f), z, NSD, RPD, RDD) - EMIN_D;
  const int sy = offset_of(phase_h(f), y, NSH, RPH, RDH) - EMIN_H;
  const int sx = offset_of(phase_w(f), x, NSW, RPW, RDW) - EMIN_W;
  return (sz * ITH + sy) * XROW + sx * CTS + (j % CPT) * 8;
}

__device__ __forceinline__ void compute_phases_mma(u32 xs_a, u32 ws_a, elem_t* __restrict__ dX,
                                                   TileAt a, int k0, int tid) {
  const int lane = tid & 31;
  const int warp = tid >> 5;
  // ldmatrix roles: A lane -> cell row (lane & 7) + 8·bit3, chunk 2s + bit4; B lane -> channel
  // row (lane & 7) + 8·bit4 (second n8 block of an x4), k half bit3.
  const int arow = (lane & 7) + ((lane >> 3) & 1) * 8;
  const bool ahi = (lane >> 4) != 0;
  const int brow = (lane & 7) + (lane >> 4) * 8;
  const int bk = ((lane >> 3) & 1) * 8;
  // Epilogue roles: accumulator rows lane/4 and lane/4 + 8, channel pair 2·(lane % 4).
  const int crow = lane >> 2;
  const int cq = (lane & 3) * 2;
#pragma unroll 1
  for (int u = warp; u < UNITS; u += WARPS) {
    const int n0 = (u % UN) * NW;  // first dX channel of the unit inside the CTA's BN
    const int m0 = (u / UN) * MB;  // first m16 block
    const int cbase = (n0 / KG) * CG;  // the group's first staged dY channel
    u32 abase[MB];
#pragma unroll
    for (int b = 0; b < MB; ++b) {
      int p = (m0 + b) * 16 + arow;
      if (p >= MT) p = 0;  // rows past the tile: any staged cell, never stored
      const int ty = p / TW;
      const int tx = p - ty * TW;
      abase[b] = xs_a + (u32)((ty * XROW + tx * CTS + cbase) * ESZ);
    }
    const u32 bbase = ws_a + (u32)(((n0 + brow) * WROW + bk) * ESZ);
#pragma unroll
    for (int f = 0; f < NPH; ++f) {
      const int kch = phase_taps(f) * CPT;  // k8 chunks of the phase (0: no tap reaches it)
      const int ksteps = (kch + 1) / 2;
      const int woff = phase_woff(f);
      float acc[MB][NB][4];
#pragma unroll
      for (int b = 0; b < MB; ++b) {
#pragma unroll
        for (int j = 0; j < NB; ++j) {
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[b][j][e] = 0.0f;
        }
      }
#pragma unroll
      for (int s = 0; s < ksteps; ++s) {
        const bool half = 2 * s + 1 >= kch;  // last step of an odd chunk count: k 8..15 are zero
        const int off_lo = phase_chunk_off(f, 2 * s);
        const int off_hi = half ? off_lo : phase_chunk_off(f, 2 * s + 1);
        const u32 aoff = (u32)((ahi ? off_hi : off_lo) * ESZ);
        u32 bf[NB][2];
#pragma unroll
        for (int j = 0; j + 1 < NB; j += 2) {
          u32 r[4];
          ldsm_x4(r, bbase + (u32)((j * 8 * WROW + woff + s * 16) * ESZ));
          bf[j][0] = r[0];
          bf[j][1] = r[1];
          bf[j + 1][0] = r[2];
          bf[j + 1][1] = r[3];
        }
        if constexpr (NB % 2 == 1) {
          u32 r[2];
          ldsm_x2(r, bbase + (u32)(((NB - 1) * 8 * WROW + woff + s * 16) * ESZ));
          bf[NB - 1][0] = r[0];
          bf[NB - 1][1] = r[1];
        }
#pragma unroll
        for (int b = 0; b < MB; ++b) {
          u32 af[4];
          ldsm_x4(af, abase[b] + aoff);
          if (half) {
            af[2] = 0u;
            af[3] = 0u;
          }
#pragma unroll
          for (int j = 0; j < NB; ++j) mma16816(acc[b][j], af, bf[j][0], bf[j][1]);
        }
      }
      // Stores: each lane writes packed channel pairs of two dX pixels of the phase per n8
      // block; pixels past dX and channels past C are skipped.
      const int id = a.od * NSD + phase_d(f);
      if (id >= XD) continue;
#pragma unroll
      for (int b = 0; b < MB; ++b) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int p = (m0 + b) * 16 + crow + 8 * h;
          if (p >= MT) continue;
          const int ty = p / TW;
          const int tx = p - ty * TW;
          const int hi = (a.oh0 + ty) * NSH + phase_h(f);
          const int wi = (a.ow0 + tx) * NSW + phase_w(f);
          if (hi >= XH || wi >= XW) continue;
          elem_t* dst = dX + (((a.n * XD + id) * XH + hi) * XW + wi) * K_ + k0 + n0 + cq;
#pragma unroll
          for (int j = 0; j < NB; ++j) {
            if (k0 + n0 + j * 8 < K_) {
              *reinterpret_cast<u32*>(dst + j * 8) = pack2(acc[b][j][2 * h], acc[b][j][2 * h + 1]);
            }
          }
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
  (void)workspace;
  // [STAGES] dY halo tiles of [ITD][ITH] rows of XROW = ITW·CTS elements, then the weights as
  // [BN][WROW] 16-bit values (phase f's k = i·CG + kk at phase_woff(f), zero elsewhere).
  elem_t* ws = reinterpret_cast<elem_t*>(smem + STAGES * XS_BYTES);
  const elem_t* __restrict__ dY = reinterpret_cast<const elem_t*>(in0);
  const elem_t* __restrict__ Wt = reinterpret_cast<const elem_t*>(in1);
  elem_t* __restrict__ dX = reinterpret_cast<elem_t*>(out);
  const int tid = threadIdx.x;
  const int k0 = blockIdx.y * BN;  // first dX channel of the CTA
  const int c0 = blockIdx.y * CT;  // first dY channel of the CTA

  // Weights once per CTA: row kl (dX channel k = k0 + kl = g·KG + c of group g), element
  // woff(f) + r of phase f: its tap i = r / CG, dY channel kk = r % CG of the group, reads
  // W[g][kk][tap][c] (W is G, K/G, taps, C/G); zero past the phase's taps (the rest of its k16
  // steps) and past C. The dX channels of a group are adjacent in W (KG a multiple of 8), so
  // one 16-byte read gives element e of 8 adjacent rows (kv·8 … kv·8 + 7), each value stored
  // to its own row; e (over every phase's elements, 0 … WUSED) is fastest across the threads
  // (a warp's store fills consecutive elements of one row). The reads are batched
  // (stage_batched) and overlap the first tile's halo copies (walk_tiles' prologue); plain
  // stores, published by the first tile's barrier.
  constexpr int KV = BN / 8;
  constexpr int WUSED = phase_woff(NPH);
  auto stage_weights = [&]() {
    stage_batched<KV * WUSED>(
        tid,
        [&](int i) {
          const int e = i % WUSED;
          const int k = k0 + i / WUSED * 8;
          const int g = k / KG;
          v16b v = {0u, 0u, 0u, 0u};
#pragma unroll
          for (int f = 0; f < NPH; ++f) {  // the one phase whose elements hold e
            const int r = e - phase_woff(f);
            if (r >= 0 && r < phase_taps(f) * CG && k < K_) {
              const int tap = phase_tap(f, r / CG);
              v = *reinterpret_cast<const v16b*>(Wt + ((g * CG + r % CG) * RTAPS + tap) * KG + (k - g * KG));
            }
          }
          return v;
        },
        [&](int i, v16b v) { store_column8(ws + i / WUSED * 8 * WROW + i % WUSED, WROW, v); });
    for (int i = tid; i < BN * (WROW - WUSED); i += THREADS) {
      const int kl = i / (WROW - WUSED);
      ws[kl * WROW + WUSED + (i - kl * (WROW - WUSED))] = (elem_t)0;
    }
  };
  const u32 ws_a = smem_u32(ws);
  walk_tiles(
      smem, dY, c0, tid,
      [&](const elem_t* xs, TileAt a) { compute_phases_mma(smem_u32(xs), ws_a, dX, a, k0, tid); },
      stage_weights);
}
