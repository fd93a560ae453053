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
// A matrix of rows g + 8 at filter column fx is the matrix of rows g at fx + 1. The k16 steps
// are visited filter row by filter row (in a row, channel chunk by channel chunk and column by
// column: step_at), and each step loads (ldmatrix x4/x2/x1) only the matrices that the
// previous step does not hold (3D layers with one chunk per tap: tap_rows instead). XSPLIT
// is 2: halo column x sits in slot (x % 2)·XPW + x / 2, so the pixels 2g of a phase read
// consecutive slots (eight bank groups with the odd pixel stride), and pixel 2g + d of a lane
// whose pixel 2g has an even column sits halo_col(d) slots after it.
static_assert(!A_SLIDE || (SW == 1 && DW == 1 && XSPLIT == 2 && TW % 2 == 0 && (CPT == 1 || CPT % 2 == 0)),
              "sliding A fragments");
constexpr int SLIDE_ROW = CPT == 1 ? 1 : FX * (CPT / 2);  // k16 steps of one filter row (CPT even)
// The k16 step visited i-th.
constexpr int step_at(int i) {
  return (!A_SLIDE || CPT == 1)
             ? i
             : ((i / SLIDE_ROW) * FX + (i % SLIDE_ROW) % FX) * (CPT / 2) + (i % SLIDE_ROW) / FX;
}
// Slot q of step s, in the order of an x4 A fragment: k8 chunk 2s + (q >> 1), rows g (q even)
// or g + 8 (q odd). The second chunk of an odd chunk count's last step is zero.
constexpr bool slot_zero(int s, int q) { return (q >> 1) == 1 && 2 * s + 1 >= KCH; }
// Its offset (elements) from the lane's pixel base, and its depth tap (ring slot).
constexpr int slide_off(int s, int q) {
  const int j = 2 * s + (q >> 1);
  const int tap = j / CPT;
  const int fz = tap / (FY * FX);
  const int fy = (tap / FX) % FY;
  return ((DEPTH_STREAM ? 0 : fz * ITH) + fy * DH) * XROW + halo_col(tap % FX + (q & 1)) * CTS +
         (j % CPT) * 8;
}
constexpr int slide_z(int s, int q) { return chunk_z(2 * s + (q >> 1)); }
constexpr bool same_matrix(int s, int q, int t, int r) {
  return !slot_zero(s, q) && !slot_zero(t, r) && slide_off(s, q) == slide_off(t, r) &&
         slide_z(s, q) == slide_z(t, r);
}
// Where slot q of the i-th step comes from: 0..3 that slot of the previous step, 4 + r the
// earlier slot r of this step, 8 a new load, 9 zero.
constexpr int slot_src(int i, int q) {
  if (slot_zero(step_at(i), q)) return 9;
  for (int r = 0; i > 0 && r < 4; ++r) {
    if (same_matrix(step_at(i - 1), r, step_at(i), q)) return r;
  }
  for (int r = 0; r < q; ++r) {
    if (same_matrix(step_at(i), r, step_at(i), q)) return 4 + r;
  }
  return 8;
}
constexpr int new_loads(int i) {
  int n = 0;
  for (int q = 0; q < 4; ++q) n += slot_src(i, q) == 8 ? 1 : 0;
  return n;
}
// The slot of the m-th new load of step i (the last new one past the count), and the rank of
// new slot q among the step's loads.
constexpr int new_slot(int i, int m) {
  int last = 0;
  for (int q = 0, n = 0; q < 4; ++q) {
    if (slot_src(i, q) == 8) {
      if (n == m) return q;
      ++n;
      last = q;
    }
  }
  return last;
}
constexpr int new_rank(int i, int q) {
  int n = 0;
  for (int r = 0; r < q; ++r) n += slot_src(i, r) == 8 ? 1 : 0;
  return n;
}
// Byte offset of slot Q of step S from the lane's pixel base (with depth streaming, in its
// depth tap's ring slot).
template <int S, int Q>
__device__ __forceinline__ u32 slot_bytes(const u32 (&zoff)[FZ]) {
  constexpr int OFF = slide_off(S, Q);
  constexpr int Z = slide_z(S, Q);
  return (u32)(OFF * ESZ) + zoff[Z];
}
// Register of slot Q of the I-th step: loaded (nw), an earlier slot of the step, the previous
// step's, or zero.
template <int I, int Q>
__device__ __forceinline__ u32 slot_reg(const u32 (&nw)[4], const u32 (&af)[4], const u32 (&pv)[4]) {
  constexpr int SRC = slot_src(I, Q);
  if constexpr (SRC == 9) {
    return 0u;
  } else if constexpr (SRC == 8) {
    return nw[new_rank(I, Q)];
  } else if constexpr (SRC >= 4) {
    return af[SRC - 4];
  } else {
    return pv[SRC];
  }
}
// The k16 steps I, I + 1, ... of a warp unit (MB blocks whose lane pixel bases are abase; lm =
// lane / 8, the matrix this lane addresses; d4, d2 its byte deltas of whole-tap steps), each
// step's matrices kept in pv for the next.
template <int I>
__device__ __forceinline__ void slide_steps(float (&acc)[MB][NB][4], u32 (&pv)[MB][4],
                                            const u32 (&abase)[MB], const u32 (&zoff)[FZ], int lm,
                                            u32 d4, u32 d2, u32 bbase,
                                            const u32 (&bres)[B_RESIDENT ? KSTEPS : 1][NB][2]) {
  if constexpr (I < KSTEPS) {
    constexpr int S = step_at(I);
    constexpr int NL = new_loads(I);
    u32 bf[NB][2];
    if constexpr (B_RESIDENT) {
#pragma unroll
      for (int j = 0; j < NB; ++j) {
        bf[j][0] = bres[B_RESIDENT ? S : 0][j][0];
        bf[j][1] = bres[B_RESIDENT ? S : 0][j][1];
      }
    } else {
      load_b(bbase, S, bf);
    }
    // Lane 8·m + j gives row j of matrix m: an x4 loads the step's new slots in order, an x2
    // the first two (lanes 16-31 unused), an x1 one (lanes 8-31 unused). Whole-tap steps (CPT
    // even) have two load patterns, each a compile-time offset plus a per-lane delta: a filter
    // row's first step loads its four slots (d4: rows g + 8 one parity plane further, chunk hi
    // 8 elements further), every later step the two slots of rows g + 8 (d2: chunk hi). With
    // one chunk per tap (CPT 1) the lane picks its matrix's offset.
    u32 off4, off2, o0, o2;
    if constexpr (CPT >= 2) {
      static_assert(NL == 4 || (NL == 2 && new_slot(I, 0) == 1 && new_slot(I, 1) == 3),
                    "whole-tap steps load four slots or the two of rows g + 8");
      static_assert(slide_z(S, 0) == slide_z(S, 3) && slide_off(S, 2) - slide_off(S, 0) == 8 &&
                        slide_off(S, 3) - slide_off(S, 1) == 8 &&
                        (NL == 2 || slide_off(S, 1) - slide_off(S, 0) == XPW * CTS),
                    "lane deltas of whole-tap steps");
      off4 = slot_bytes<S, 0>(zoff) + d4;
      off2 = slot_bytes<S, 1>(zoff) + d2;
      o0 = off2;
      o2 = off2;
    } else {
      o0 = slot_bytes<S, new_slot(I, 0)>(zoff);
      const u32 o1 = slot_bytes<S, new_slot(I, 1)>(zoff);
      o2 = slot_bytes<S, new_slot(I, 2)>(zoff);
      const u32 o3 = slot_bytes<S, new_slot(I, 3)>(zoff);
      off4 = lm == 0 ? o0 : lm == 1 ? o1 : lm == 2 ? o2 : o3;
      off2 = (lm & 1) ? o1 : o0;
    }
#pragma unroll
    for (int b = 0; b < MB; ++b) {
      u32 nw[4] = {0u, 0u, 0u, 0u};
      if constexpr (NL == 4) {
        ldsm_x4(nw, abase[b] + off4);
      } else if constexpr (NL >= 2) {
        u32 t[2];
        ldsm_x2(t, abase[b] + off2);
        nw[0] = t[0];
        nw[1] = t[1];
        if constexpr (NL == 3) ldsm_x1(nw[2], abase[b] + o2);
      } else if constexpr (NL == 1) {
        ldsm_x1(nw[0], abase[b] + o0);
      }
      u32 af[4];
      af[0] = slot_reg<I, 0>(nw, af, pv[b]);
      af[1] = slot_reg<I, 1>(nw, af, pv[b]);
      af[2] = slot_reg<I, 2>(nw, af, pv[b]);
      af[3] = slot_reg<I, 3>(nw, af, pv[b]);
#pragma unroll
      for (int j = 0; j < NB; ++j) mma16816(acc[b][j], af, bf[j][0], bf[j][1]);
#pragma unroll
      for (int q = 0; q < 4; ++q) pv[b][q] = af[q];
    }
    slide_steps<I + 1>(acc, pv, abase, zoff, lm, d4, d2, bbase, bres);
  }
}

// ---- TAP_ROWS: 3D layers with one k8 chunk per tap (C/G 8), one m16n8k8 per tap ----
// There a k16 step of two taps straddles filter columns, rows and depth slices, and an MMA's A
// registers must be one aligned quad: the sliding steps above cost about four register moves
// per MMA. Instead (mma.rs, a_slide: measured faster on 3D C/G 8 layers, slower on 2D ones,
// which keep the steps above) a filter row's FX + 1 matrices P(x) (rows g of the block at
// halo column x from the lane's pixel 2g) are loaded once, in ldmatrix groups of four, two
// and one, and tap fx is one m16n8k8 on {P(fx), P(fx + 1)} (rows g read P(fx), rows g + 8 —
// pixel 2g + 1 — read P(fx + 1)), with k the tap's eight channels: the B register is the half
// (tap % 2) of k16 step tap / 2 of the weight tile. Lane 8·lm + r addresses row r of matrix
// lm of a group; the group starting at matrix i0 (even) lies halo_col(i0 + lm) = halo_col(lm)
// + i0 / 2 slots from the lane's pixel, so the lane adds dl = halo_col(lm) slots once and
// each group a compile-time offset.
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

// Every filter row (depth tap fz, row fy) of a unit's MB blocks, one m16n8k8 per tap. Tap fx
// accumulates into partial sum fx % NA (NA = min(FX, 3)), so that a block's MMAs form NA
// independent chains instead of one chain of every tap (an m16n8k8 waits for the previous
// one on its accumulators); the partials are added into acc in a fixed order at the end.
constexpr int NA = FX < 3 ? FX : 3;
constexpr bool TAP_ROWS = A_SLIDE && CPT == 1 && FZ > 1;
__device__ __forceinline__ void tap_rows(float (&acc)[MB][NB][4], const u32 (&abase)[MB],
                                         const u32 (&zoff)[FZ], u32 dl, u32 bbase,
                                         const u32 (&bres)[B_RESIDENT ? KSTEPS : 1][NB][2]) {
  // Compiled into every module of the path (the caller's branch is discarded, not absent);
  // only TAP_ROWS modules run it.
  if constexpr (TAP_ROWS) {
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
#pragma unroll
    for (int row = 0; row < FZ * FY; ++row) {
      const int fz = row / FY;
      const int fy = row - fz * FY;
      const int j0 = row * FX;             // the row's first tap (k8 chunk)
      const int s0 = j0 / 2;               // the k16 steps of the weight tile holding its taps
      constexpr int SN = (FX + 1) / 2 + 1;  // at most this many
      u32 bt[FX][NB];
      if constexpr (B_RESIDENT) {
#pragma unroll
        for (int fx = 0; fx < FX; ++fx) {
#pragma unroll
          for (int j = 0; j < NB; ++j) {
            bt[fx][j] = bres[B_RESIDENT ? (j0 + fx) / 2 : 0][j][(j0 + fx) % 2];
          }
        }
      } else {
        u32 bs[SN][NB][2];
#pragma unroll
        for (int s = 0; s < SN; ++s) {
          if (s0 + s <= (j0 + FX - 1) / 2) load_b(bbase, s0 + s, bs[s]);
        }
#pragma unroll
        for (int fx = 0; fx < FX; ++fx) {
#pragma unroll
          for (int j = 0; j < NB; ++j) bt[fx][j] = bs[(j0 + fx) / 2 - s0][j][(j0 + fx) % 2];
        }
      }
      const u32 roff =
          (u32)((((DEPTH_STREAM ? 0 : fz * ITH) + fy * DH) * XROW) * ESZ) + zoff[fz] + dl;
#pragma unroll
      for (int b = 0; b < MB; ++b) {
        u32 p[FX + 1];
        row_matrices(p, abase[b] + roff);
#pragma unroll
        for (int fx = 0; fx < FX; ++fx) {
#pragma unroll
          for (int j = 0; j < NB; ++j) {
            mma1688(part[b][j][fx % NA], p[fx], p[fx + 1], bt[fx][j]);
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
      // A_SLIDE: every lane's base is pixel 2·(lane % 8) of the block (an even column; the
      // slots' offsets say which matrix, pixel and chunk), else its ldmatrix row's pixel.
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
    if constexpr (TAP_ROWS) {
      const int lm = lane >> 3;
      tap_rows(acc, abase, zoff, (u32)(halo_col(lm) * CTS * ESZ), bbase, bres);
    } else if constexpr (A_SLIDE) {
      u32 pv[MB][4] = {};
      const int lm = lane >> 3;
      const u32 d4 = (u32)(((lm & 1) * XPW * CTS + (lm >> 1) * 8) * ESZ);
      const u32 d2 = (u32)((lm & 1) * 8 * ESZ);
      slide_steps<0>(acc, pv, abase, zoff, lm, d4, d2, bbase, bres);
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
