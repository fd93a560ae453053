// ---- tensor-core (mma.sync) path of the direct family ----
// The staged halo is the implicit-GEMM A operand: row m of an m16 block is an output pixel of
// the tile, column k = (tap, channel) of its group, and ldmatrix takes each lane's row address
// straight from the halo (pixel base + the tap's row/column offset), so the input is read from
// global memory once per tile instead of once per tap. Work unit of a warp: NW output channels
// (one group or part of one) x MB m16 blocks of pixels; units are dealt to warps round robin.
// (ldsm_x4/x2 and mma16816: mma_ptx.cu, smem_u32: the prelude, both emitted before this file.)

constexpr int WARPS = THREADS / 32;
constexpr int NB = NW / 8;                   // n8 blocks of a unit
constexpr int MT = TH * TW;                  // pixels of a tile
constexpr int MBLK = (MT + 15) / 16;         // m16 blocks of a tile (the last may be partial)
constexpr int UM = (MBLK + MB - 1) / MB;     // units along the pixels
constexpr int UN = BN / NW;                  // units along the channels
constexpr int UNITS = UM * UN;
constexpr int CPT = CG / 8;                  // 8-channel chunks per tap
constexpr int KCH = TAPS * CPT;              // k8 chunks of the reduction, tap-major
constexpr int KSTEPS = (KCH + 1) / 2;        // k16 steps (an odd KCH leaves half a step)
constexpr int WCH = WPK / 8;                 // 16-byte chunks of one output channel's weights
static_assert(!(ESZ == 4), "mma path: 16-bit data");
static_assert(CG % 8 == 0 && KG % 8 == 0 && NW % 8 == 0 && KG % NW == 0, "mma channel blocks");
static_assert(CTS % 8 == 0 && (CTS / 8) % 2 == 1, "pixel stride: odd number of 16-byte chunks");
static_assert(WROW >= KSTEPS * 16 && WROW % 8 == 0 && (WROW / 8) % 2 == 1, "weight row stride");
static_assert(WS_BYTES == BN * WROW * ESZ, "weight tile size");
static_assert(VL == 8, "16-byte halo copies");
static_assert(GM >= 1 && CG == GM * CG0 && KG == GM * KG0, "merged groups");
static_assert(GM == 1 ? RAW_BYTES == 0 : RAW_BYTES >= BN * TAPS * CG0 * ESZ && (BN * TAPS * CG0) % 8 == 0,
              "raw weight area");
// B_RESIDENT (mma.rs, b_resident): a warp loads the tile's B fragments once, before its units,
// which all have the same channels (WARPS a multiple of UN, units dealt round robin).
static_assert(!B_RESIDENT || (WARPS % UN == 0 && UNITS > WARPS), "resident B fragments");

// The B fragments of k16 step s for the unit whose channel rows start at bbase.
__device__ __forceinline__ void load_b(u32 bbase, int s, u32 (&bf)[NB][2]) {
#pragma unroll
  for (int j = 0; j + 1 < NB; j += 2) {
    u32 r[4];
    ldsm_x4(r, bbase + (u32)((j * 8 * WROW + s * 16) * ESZ));
    bf[j][0] = r[0];
    bf[j][1] = r[1];
    bf[j + 1][0] = r[2];
    bf[j + 1][1] = r[3];
  }
  if constexpr (NB % 2 == 1) {
    u32 r[2];
    ldsm_x2(r, bbase + (u32)(((NB - 1) * 8 * WROW + s * 16) * ESZ));
    bf[NB - 1][0] = r[0];
    bf[NB - 1][1] = r[1];
  }
}

// Element offset in the halo of k8 chunk j (tap-major: tap = j / CPT, channels (j % CPT)·8..);
// with depth streaming, in its depth tap's ring slot (chunk_z: that tap, zoff below).
constexpr int chunk_off(int j) {
  const int tap = j / CPT;
  const int fz = tap / (FY * FX);
  const int fy = (tap / FX) % FY;
  const int fx = tap % FX;
  return ((DEPTH_STREAM ? 0 : fz * ITH) + fy * DH) * XROW + halo_col(fx * DW) * CTS + (j % CPT) * 8;
}
constexpr int chunk_z(int j) { return j / CPT / (FY * FX); }

// ---- A_SLIDE (mma.rs, a_slide): A fragments that slide along the filter row ----
// Column stride and dilation 1, an even TW: the 16 rows of an m16 block are 8 horizontally
// adjacent pixel pairs, row g = pixel 2g and row g + 8 = pixel 2g + 1 of the block, so the 8x8
// A matrix of rows g + 8 at filter column fx is the matrix of rows g at fx + 1, and a filter
// row's matrices are loaded once for all its taps (tap_rows below). XSPLIT is 2: halo column x
// sits in slot (x % 2)·XPW + x / 2, so the pixels 2g of a phase read consecutive slots (eight
// bank groups with the odd pixel stride), and pixel 2g + d of a lane whose pixel 2g has an
// even column sits halo_col(d) slots after it.
static_assert(!A_SLIDE || (SW == 1 && DW == 1 && XSPLIT == 2 && TW % 2 == 0), "sliding A fragments");

// ---- A_SLIDE: one m16n8k8 per tap and 8-channel chunk ----
// A k16 step over two chunks would need an aligned register quad assembled from the matrices
// of two taps (one chunk per tap) or of two column offsets (sliding whole-tap steps): about
// four register moves per MMA. Here, per filter row and chunk ch, the row's FX + 1 matrices
// P(x) (rows g of the block at halo column x from the lane's pixel 2g, channels 8·ch..) are
// loaded once, in ldmatrix groups of four, two and one, and tap fx is one m16n8k8 on
// {P(fx), P(fx + 1)} (rows g read P(fx), rows g + 8 — pixel 2g + 1 — read P(fx + 1)) with k
// the chunk's eight channels: the B register of chunk jj = tap·CPT + ch is the half jj % 2 of
// k16 step jj / 2 of the weight tile. Lane 8·lm + r addresses row r of matrix lm of a group;
// the group starting at matrix i0 (even) lies halo_col(i0 + lm) = halo_col(lm) + i0 / 2
// slots from the lane's pixel, so the lane adds dl = halo_col(lm) slots once and each group
// a compile-time offset.
__device__ __forceinline__ void row_matrices(u32 (&p)[FX + 1], u32 base) {
  constexpr int NM = FX + 1;
  constexpr int N4 = NM / 4 * 4;              // matrices of the x4 groups
  constexpr int N2 = N4 + (NM - N4) / 2 * 2;  // and of the x2 group
#pragma unroll
  for (int i = 0; i < N4; i += 4) {
    u32 r[4];
    ldsm_x4(r, base + (u32)((i / 2) * CTS * ESZ));
#pragma unroll
    for (int q = 0; q < 4; ++q) p[i + q] = r[q];
  }
  if constexpr (N2 > N4) {
    u32 r[2];
    ldsm_x2(r, base + (u32)((N4 / 2) * CTS * ESZ));
    p[N4] = r[0];
    p[N4 + 1] = r[1];
  }
  if constexpr (NM > N2) ldsm_x1(p[N2], base + (u32)((N2 / 2) * CTS * ESZ));
}

// Every filter row (depth tap fz, row fy) of a unit's MB blocks, one m16n8k8 per tap and
// chunk. Tap fx accumulates into partial sum fx % NA (NA = min(FX, 3)), so that a block's
// MMAs form NA independent chains instead of one chain of every tap (an m16n8k8 waits for the
// previous one on its accumulators); the partials are added into acc in a fixed order at the
// end.
constexpr int NA = FX < 3 ? FX : 3;
__device__ __forceinline__ void tap_rows(float (&acc)[MB][NB][4], const u32 (&abase)[MB],
                                         const u32 (&zoff)[FZ], u32 dl, u32 bbase,
                                         const u32 (&bres)[B_RESIDENT ? KSTEPS : 1][NB][2]) {
  // Compiled into every module of the path (the caller's branch is discarded, not absent);
  // only modules with sliding fragments run it.
  if constexpr (A_SLIDE) {
    float part[MB][NB][NA][4];
#pragma unroll
    for (int b = 0; b < MB; ++b) {
#pragma unroll
      for (int j = 0; j < NB; ++j) {
#pragma unroll
        for (int c = 0; c < NA; ++c) {
#pragma unroll
          for (int e = 0; e < 4; ++e) part[b][j][c][e] = 0.0f;
        }
      }
    }
    constexpr int RCH = FX * CPT;  // k8 chunks of a filter row
#pragma unroll
    for (int row = 0; row < FZ * FY; ++row) {
      const int fz = row / FY;
      const int fy = row - fz * FY;
      const int j0 = row * RCH;            // the row's first chunk
      const int s0 = j0 / 2;               // the k16 steps of the weight tile holding its chunks
      constexpr int SN = (RCH + 1) / 2 + 1;  // at most this many
      u32 bt[RCH][NB];                     // chunk fx·CPT + ch of the row
      if constexpr (B_RESIDENT) {
#pragma unroll
        for (int c = 0; c < RCH; ++c) {
#pragma unroll
          for (int j = 0; j < NB; ++j) {
            bt[c][j] = bres[B_RESIDENT ? (j0 + c) / 2 : 0][j][(j0 + c) % 2];
          }
        }
      } else {
        u32 bs[SN][NB][2];
#pragma unroll
        for (int s = 0; s < SN; ++s) {
          if (s0 + s <= (j0 + RCH - 1) / 2) load_b(bbase, s0 + s, bs[s]);
        }
#pragma unroll
        for (int c = 0; c < RCH; ++c) {
#pragma unroll
          for (int j = 0; j < NB; ++j) bt[c][j] = bs[(j0 + c) / 2 - s0][j][(j0 + c) % 2];
        }
      }
      const u32 roff =
          (u32)((((DEPTH_STREAM ? 0 : fz * ITH) + fy * DH) * XROW) * ESZ) + zoff[fz] + dl;
#pragma unroll
      for (int b = 0; b < MB; ++b) {
#pragma unroll
        for (int ch = 0; ch < CPT; ++ch) {
          u32 p[FX + 1];
          row_matrices(p, abase[b] + roff + (u32)(ch * 8 * ESZ));
#pragma unroll
          for (int fx = 0; fx < FX; ++fx) {
#pragma unroll
            for (int j = 0; j < NB; ++j) {
              mma1688(part[b][j][fx % NA], p[fx], p[fx + 1], bt[fx * CPT + ch][j]);
            }
          }
        }
      }
    }
#pragma unroll
    for (int b = 0; b < MB; ++b) {
#pragma unroll
      for (int j = 0; j < NB; ++j) {
#pragma unroll
        for (int c = 0; c < NA; ++c) {
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[b][j][e] += part[b][j][c][e];
        }
      }
    }
  }
}

__device__ __forceinline__ void compute_tile_mma(u32 xs_a, u32 ws_a, elem_t* __restrict__ Y,
                                                 TileAt a, int k0, int tid) {
  const int lane = tid & 31;
  const int warp = tid >> 5;
  // ldmatrix roles: A lane -> pixel row (lane & 7) + 8·bit3, chunk 2s + bit4; B lane -> channel
  // row (lane & 7) + 8·bit4 (second n8 block of an x4), k half bit3.
  const int arow = (lane & 7) + ((lane >> 3) & 1) * 8;
  const bool ahi = (lane >> 4) != 0;
  const int brow = (lane & 7) + (lane >> 4) * 8;
  const int bk = ((lane >> 3) & 1) * 8;
  // Epilogue roles: accumulator rows lane/4 and lane/4 + 8, channel pair 2·(lane % 4).
  const int crow = lane >> 2;
  const int cq = (lane & 3) * 2;
  // Depth streaming: byte offset of depth tap z's input slice, ring slot (a.zs + z) mod
  // HALO_BUFS (common.cu's walk_tiles); 0 otherwise (the slices follow each other).
  u32 zoff[FZ];
#pragma unroll
  for (int z = 0; z < FZ; ++z) {
    const int slot = a.zs + z < HALO_BUFS ? a.zs + z : a.zs + z - HALO_BUFS;
    zoff[z] = DEPTH_STREAM ? (u32)(slot * XS_BYTES) : 0u;
  }
  // With B_RESIDENT every unit of this warp has the channels n0 = (warp % UN)·NW: the tile's
  // B fragments are loaded here once (the weights are in place: walk_tiles calls this after
  // the tile's barrier) instead of once per unit.
  u32 bres[B_RESIDENT ? KSTEPS : 1][NB][2];
  if constexpr (B_RESIDENT) {
    const u32 bb = ws_a + (u32)((((warp % UN) * NW + brow) * WROW + bk) * ESZ);
#pragma unroll
    for (int s = 0; s < KSTEPS; ++s) load_b(bb, s, bres[s]);
  }
#pragma unroll 1
  for (int u = warp; u < UNITS; u += WARPS) {
    const int n0 = (u % UN) * NW;  // first channel of the unit inside the CTA's BN
    const int m0 = (u / UN) * MB;  // first m16 block
    const int cbase = (n0 / KG) * CG;
    u32 abase[MB];
#pragma unroll
    for (int b = 0; b < MB; ++b) {
      // A_SLIDE: every lane's base is pixel 2·(lane % 8) of the block (an even column;
      // tap_rows adds the lane's matrix column, the filter row and the chunk), else its
      // ldmatrix row's pixel.
      unsigned p = (unsigned)((m0 + b) * 16 + (A_SLIDE ? 2 * (lane & 7) : arow));
      if (p >= (unsigned)MT) p = 0;  // rows past the tile: any staged pixel, never stored
      const int ty = (int)(p / TW);
      const int tx = (int)(p - ty * TW);
      abase[b] = A_SLIDE ? xs_a + (u32)((ty * SH * XROW + (tx / 2) * CTS + cbase) * ESZ)
                         : xs_a + (u32)((ty * SH * XROW + tx * TX_SLOTS * CTS + cbase) * ESZ);
    }
    const u32 bbase = ws_a + (u32)(((n0 + brow) * WROW + bk) * ESZ);
    float acc[MB][NB][4];
#pragma unroll
    for (int b = 0; b < MB; ++b) {
#pragma unroll
      for (int j = 0; j < NB; ++j) {
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[b][j][e] = 0.0f;
      }
    }
    if constexpr (A_SLIDE) {
      const int lm = lane >> 3;
      tap_rows(acc, abase, zoff, (u32)(halo_col(lm) * CTS * ESZ), bbase, bres);
    } else {
#pragma unroll
      for (int s = 0; s < KSTEPS; ++s) {
        const bool half = 2 * s + 1 >= KCH;  // last step of an odd chunk count: k 8..15 are zero
        const int off_lo = chunk_off(2 * s);
        const int off_hi = half ? off_lo : chunk_off(2 * s + 1);
        u32 aoff = (u32)((ahi ? off_hi : off_lo) * ESZ);
        if constexpr (DEPTH_STREAM) aoff += ahi && !half ? zoff[chunk_z(2 * s + 1)] : zoff[chunk_z(2 * s)];
        u32 bf[NB][2];
        if constexpr (B_RESIDENT) {
#pragma unroll
          for (int j = 0; j < NB; ++j) {
            bf[j][0] = bres[B_RESIDENT ? s : 0][j][0];
            bf[j][1] = bres[B_RESIDENT ? s : 0][j][1];
          }
        } else {
          load_b(bbase, s, bf);
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
    }
    // Stores: each lane writes packed channel pairs of two pixels per n8 block. The tile's
    // first output pixel and the unit's channels are one pointer; a pixel adds its row and
    // column inside the tile (unsigned: the divisions by TW are shifts or multiplies).
    elem_t* const ybase = Y + (((a.n * OD + a.od) * OH + a.oh0) * OW + a.ow0) * K_ + k0 + n0 + cq;
    const unsigned rows_left = (unsigned)(OH - a.oh0);
    const unsigned cols_left = (unsigned)(OW - a.ow0);
#pragma unroll
    for (int b = 0; b < MB; ++b) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const unsigned p = (unsigned)((m0 + b) * 16 + (A_SLIDE ? 2 * crow + h : crow + 8 * h));
        const unsigned ty = p / TW;
        const unsigned tx = p - ty * TW;
        if (p >= (unsigned)MT || ty >= rows_left || tx >= cols_left) continue;
        elem_t* dst = ybase + (int)(ty * OW + tx) * K_;
#pragma unroll
        for (int j = 0; j < NB; ++j) {
          if (K_ % BN == 0 || k0 + n0 + j * 8 < K_) {
            *reinterpret_cast<u32*>(dst + j * 8) = pack2(acc[b][j][2 * h], acc[b][j][2 * h + 1]);
          }
        }
      }
    }
  }
}

// Group merge: block-diagonal merged rows from the raw weights (landed with the first tile's
// copies; backward data: gathered in walk_tiles' prologue). Output channel k (row kl) of a
// merged group reads its own group's CG0 channels of each tap; the other channels of the
// merged row are zero (as are rows past K, whose raw weights were zero-filled). One task is
// one 16-byte vector of a row (eight channels of one tap; CG is a multiple of 8), built from
// 32-bit raw reads when CG0 is even (a channel pair then never straddles the group's edge) and
// 16-bit reads otherwise: the index arithmetic is paid once per vector instead of once per
// element (the per-element loop was a third of the instructions of a one-tile CTA on a C/G 4
// layer).
__device__ __forceinline__ void expand_merged(elem_t* ws, const elem_t* raw, int k0, int tid) {
  constexpr int CGV = CG / 8;  // 16-byte vectors of one tap's CG channels
  for (int i = tid; i < BN * TAPS * CGV; i += THREADS) {
    const int t = i / CGV;  // kl·TAPS + tap
    const int v = i - t * CGV;
    const int kl = t / TAPS;
    const int tap = t - kl * TAPS;
    const int c0 = v * 8 - ((k0 + kl) % KG) / KG0 * CG0;  // channel of k's group at element 0
    const u16* src = reinterpret_cast<const u16*>(raw) + t * CG0;
    u32 w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int c = c0 + 2 * j;
      if constexpr (CG0 % 2 == 0) {
        w[j] = (unsigned)c < (unsigned)CG0 ? *reinterpret_cast<const u32*>(src + c) : 0u;
      } else {
        const u32 lo = (unsigned)c < (unsigned)CG0 ? (u32)src[c] : 0u;
        const u32 hi = (unsigned)(c + 1) < (unsigned)CG0 ? (u32)src[c + 1] : 0u;
        w[j] = lo | (hi << 16);
      }
    }
    *reinterpret_cast<v16b*>(ws + kl * WROW + tap * CG + v * 8) = v16b{w[0], w[1], w[2], w[3]};
  }
}

extern "C" __global__ void __launch_bounds__(THREADS) @ENTRY@(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace) {
  GCONV_DYNAMIC_SMEM(smem);
  (void)workspace;
  // [HALO_BUFS] input tiles of [ITD][ITH] rows of XROW = ITW·CTS elements (depth streaming: ring
  // slots of one input slice, [ITH] rows), then the weights as
  // [BN][WROW] 16-bit values (k = tap·CG + c, zero past TAPS·CG), then (GM > 1 only) the raw
  // real weights, RAW_BYTES.
  elem_t* ws = reinterpret_cast<elem_t*>(smem + HALO_BUFS * XS_BYTES);
  elem_t* raw = reinterpret_cast<elem_t*>(smem + HALO_BUFS * XS_BYTES + WS_BYTES);  // GM > 1 only
  const elem_t* __restrict__ X = reinterpret_cast<const elem_t*>(in0);
  const elem_t* __restrict__ Wt = reinterpret_cast<const elem_t*>(in1);
  elem_t* __restrict__ Y = reinterpret_cast<elem_t*>(out);
  const int tid = threadIdx.x;
  const int k0 = blockIdx.y * BN;  // first output channel of the CTA
  const int c0 = blockIdx.y * CT;  // first input channel of the CTA

  // The weights: 16-byte cp.async copies (forward) complete with the first tile's group and
  // are issued here; the backward-data gathers (plain reads, flip and transpose in the
  // addressing) run while the first tile's halo copies are in flight (walk_tiles' prologue).
  auto stage_weights = [&]() {
@WEIGHTS@
  };
  if constexpr (!DGRAD) stage_weights();
  constexpr int PADCH = (WROW - WPK) / 8;
  for (int i = tid; i < BN * PADCH; i += THREADS) {
    const int kl = i / PADCH;
    const int q = i - kl * PADCH;
    *reinterpret_cast<v16b*>(ws + kl * WROW + WPK + q * 8) = v16b{0u, 0u, 0u, 0u};
  }
  const u32 ws_a = smem_u32(ws);
  bool expand = GM > 1;  // uniform across the CTA
  walk_tiles(
      smem, X, c0, tid,
      [&](const elem_t* xs, TileAt a) {
        if (expand) {
          expand_merged(ws, raw, k0, tid);
          __syncthreads();
          expand = false;
        }
        compute_tile_mma(smem_u32(xs), ws_a, Y, a, k0, tid);
      },
      [&]() {
        if constexpr (DGRAD) stage_weights();
      });
}
