// ---- backward weight on tensor cores (direct/wgrad_mma.rs) ----
// dW[g][kk][tap][c] = sum over (n, output pixel o) of dY[n, o, g, kk] * X[n, o*s - p + tap*d, g, c],
// one GEMM per group: M = (tap, c) in 8-channel chunks, tap-major (chunk j = tap*CPT + c/8),
// N = kk (K/G), K = the output pixels. The CTA (blockIdx.x = slab, blockIdx.y = channel block of
// BN output channels: GPB whole groups and their CT input channels) walks the output tiles
// [slab*TILES_PER_SLAB, ...) of common.cu's tile walk with the X halo (load_halo, pixel stride
// CTS) and the dY tile (pixel stride DYROW) double-buffered; blockIdx.z = the M slice, which
// owns units [z*UMS, (z+1)*UMS) of each group's UM. A warp owns UPW work units, a unit
// being (group of the CTA, MB m16 blocks of the group's M) with all NB = K/G / 8 n8 blocks; its
// f32 accumulators stay in registers for the whole slab. Per tile and k16 step (16 pixels of
// the tile): A = ldmatrix.x4.trans from the halo (matrix rows are the 16 pixels, each shifted by
// its chunk's tap, 16 bytes = the chunk's 8 channels), B = ldmatrix.x4.trans from the dY tile
// (rows are the pixels, 16 bytes = 8 output channels). Padding and tile tails are zeros in both
// tiles (load_halo, load_dy_rows), so they add nothing. At the end every warp stores its units'
// values: rows of one f32 partial plane (workspace plane `slab`), or dW itself with one slab.
// (ldsm_x4_trans and mma16816: mma_ptx.cu.) in0 = X, in1 = dY, out = dW.
constexpr int WARPS = THREADS / 32;
constexpr int MT = TH * TW;                   // pixels of a tile
constexpr int KSTEPS = MT / 16;               // k16 steps of a tile
constexpr int CPT = CG / 8;                   // 8-channel chunks per tap
constexpr int KCH = TAPS * CPT;               // 8-row chunks of a group's M
constexpr int MBLK = (KCH + 1) / 2;           // m16 blocks of a group's M (the last may be half)
constexpr int UM = (MBLK + MB - 1) / MB;      // units per group
constexpr int UMS = (UM + MSLICES - 1) / MSLICES;  // units per group of one M slice (grid z)
constexpr int UNITS = GPB * UMS;              // units of a CTA
constexpr int UPW = (UNITS + WARPS - 1) / WARPS;  // units per warp
constexpr int NB = KG / 8;                    // n8 blocks of a unit
constexpr int DY_CHUNKS = MT * (BN / VLD);    // dY copies of a tile
static_assert(!(ESZ == 4), "mma path: 16-bit data");
static_assert(MT % 16 == 0, "tile pixels: whole k16 steps");
static_assert(CG % 8 == 0 && KG % 8 == 0, "mma channel chunks");
static_assert(CTS % 8 == 0 && (CTS / 8) % 2 == 1, "pixel stride: odd number of 16-byte chunks");
static_assert(DYROW >= BN && DYROW % 8 == 0 && (DYROW / 8) % 2 == 1, "dY pixel stride");
static_assert(DYS_BYTES >= MT * DYROW * ESZ && DYS_BYTES % 16 == 0, "dY tile size");
static_assert(SMEM_BYTES == 2 * XS_BYTES + 2 * DYS_BYTES, "launch shared memory");
static_assert(STAGES == 2 && GRID_X == SLABS, "double-buffered slab walk");
static_assert(FRAG_PIPE == 0 || FRAG_PIPE == 1, "register stage of the fragments");
static_assert(MSLICES >= 1 && (UM + UMS - 1) / UMS == MSLICES, "M slices: each owns a unit of a group");
static_assert(SLABS * TILES_PER_SLAB >= SPATIAL_TILES, "slabs cover the tiles");
constexpr int WPK0 = TAPS * CG0;               // real weights per output channel
static_assert(GM >= 1 && CG == GM * CG0 && KG == GM * KG0, "merged groups");
static_assert(RED_PLANE == (long long)K_ * WPK0, "partial plane = |dW|");
static_assert(VL == 8 && BN % VLD == 0 && K_ % VLD == 0, "copy widths");

// Element offset in the halo of chunk j (tap-major: tap = j / CPT, channels (j % CPT)*8..).
constexpr int chunk_off(int j) {
  const int tap = j / CPT;
  const int fz = tap / (FY * FX);
  const int fy = (tap / FX) % FY;
  const int fx = tap % FX;
  return (fz * ITH + fy * DH) * XROW + halo_col(fx * DW) * CTS + (j % CPT) * 8;
}

// The dY tile of output tile `a`: VLD channels per copy, pixel rows of DYROW elements, zero-fill
// for pixels outside dY (tile tails) and channels beyond K.
__device__ __forceinline__ void load_dy_rows(elem_t* dys, const elem_t* __restrict__ dY, TileAt a,
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
    copy_to_smem<VLD * ESZ>(dys + pix * DYROW + ch * VLD, dY + goff, ok);
  }
}

// Where a warp's units read the tiles, computed once per CTA: per (unit, m16 block) the byte
// offset of the lane's A chunk inside the halo (its group's channels, the chunk's tap and
// channel chunk), and per unit the byte offset of its group's output channels in a dY pixel
// row (plus the lane's second n8 block of a pair).
struct UnitAt {
  u32 a[UPW][MB];
  u32 b[UPW];   // the lane's block of a pair of n8 blocks
  u32 b1[UPW];  // an odd last block: every lane on the same block
  bool live[UPW][MB];
};

__device__ __forceinline__ UnitAt unit_at(int warp, int lane) {
  UnitAt at;
  const bool ahi = ((lane >> 3) & 1) != 0;
  const int bblk = lane >> 4;
#pragma unroll
  for (int w = 0; w < UPW; ++w) {
    const int u = warp + w * WARPS;
    const int grp = (u < UNITS ? u : 0) / UMS;
    const int gu = (u < UNITS ? u : 0) % UMS + (int)blockIdx.z * UMS;  // unit of the group
    const int mb0 = gu * MB;
    at.b[w] = (u32)((grp * KG + bblk * 8) * ESZ);
    at.b1[w] = (u32)(grp * KG * ESZ);
#pragma unroll
    for (int b = 0; b < MB; ++b) {
      const int blk = mb0 + b;
      const int j0 = 2 * blk;
      at.live[w][b] = u < UNITS && gu < UM && blk < MBLK;
      // The last block of an odd chunk count: its rows 8..15 repeat the low chunk and are never
      // stored.
      const int chunk = at.live[w][b] ? (ahi && j0 + 1 < KCH ? j0 + 1 : j0) : 0;
      at.a[w][b] = (u32)((chunk_off(chunk) + grp * CG) * ESZ);
    }
  }
  return at;
}

// One k16 step's fragments of a warp's units: B pairs (dY) and A blocks (the shifted halo).
struct StepFrags {
  u32 b[UPW][NB][2];
  u32 a[UPW][MB][4];
};

// The fragments of k16 step `s` of the staged tile (`xs_a`: halo, `dys_a`: dY tile).
__device__ __forceinline__ void load_step(StepFrags& f, int s, u32 xs_a, u32 dys_a, int lane,
                                          const UnitAt& at) {
  // A lanes: matrix (lane / 8) = (m half: bit 0, k half: bit 1), row (lane % 8) = a pixel.
  const int p = s * 16 + (lane & 7) + (lane >> 4) * 8;
  const int oy = p / TW;
  const int ox = p - oy * TW;
  const u32 pix_a = xs_a + (u32)((oy * SH * XROW + ox * TX_SLOTS * CTS) * ESZ);
  // B lanes: matrix (lane / 8) = (k half: bit 0, second n8 block: bit 1), row = a pixel.
  const u32 row_b = dys_a + (u32)((s * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * DYROW * ESZ);
#pragma unroll
  for (int w = 0; w < UPW; ++w) {
    if (!at.live[w][0]) continue;  // no unit, or past its group's units in the last M slice
#pragma unroll
    for (int j = 0; j < NB; j += 2) {
      // An odd last block: the lanes of the second block repeat the first (never used).
      u32 r[4];
      ldsm_x4_trans(r, row_b + (j + 1 < NB ? at.b[w] : at.b1[w]) + (u32)(j * 8 * ESZ));
      f.b[w][j][0] = r[0];
      f.b[w][j][1] = r[1];
      if (j + 1 < NB) {
        f.b[w][j + 1][0] = r[2];
        f.b[w][j + 1][1] = r[3];
      }
    }
#pragma unroll
    for (int b = 0; b < MB; ++b) {
      if (at.live[w][b]) ldsm_x4_trans(f.a[w][b], pix_a + at.a[w][b]);
    }
  }
}

// The MMAs of one k16 step from its fragments.
__device__ __forceinline__ void mma_step(const StepFrags& f, const UnitAt& at,
                                         float (&acc)[UPW][MB][NB][4]) {
#pragma unroll
  for (int w = 0; w < UPW; ++w) {
    if (!at.live[w][0]) continue;
#pragma unroll
    for (int b = 0; b < MB; ++b) {
      if (!at.live[w][b]) break;
#pragma unroll
      for (int j = 0; j < NB; ++j) mma16816(acc[w][b][j], f.a[w][b], f.b[w][j][0], f.b[w][j][1]);
    }
  }
}

// One staged tile into the warp's accumulators. FRAG_PIPE 0 (`stages` 2): step by step, each
// m16 block's A fragment loaded just before its MMAs. FRAG_PIPE 1 (`stages` 3, a register stage after the two shared-
// memory ones): the steps unrolled and the fragments of step s + 1 loaded into the second set
// before the MMAs of step s issue, so that ldmatrix latency overlaps tensor-core work (more
// registers: `wgrad_mma.rs` `register_estimate`).
__device__ __forceinline__ void accumulate_mma(u32 xs_a, u32 dys_a, int lane, const UnitAt& at,
                                               float (&acc)[UPW][MB][NB][4]) {
  if constexpr (FRAG_PIPE) {
    StepFrags f[2];
    load_step(f[0], 0, xs_a, dys_a, lane, at);
#pragma unroll
    for (int s = 0; s < KSTEPS; ++s) {
      if (s + 1 < KSTEPS) load_step(f[(s + 1) & 1], s + 1, xs_a, dys_a, lane, at);
      mma_step(f[s & 1], at, acc);
    }
  } else {
    // A lanes: matrix (lane / 8) = (m half: bit 0, k half: bit 1), row (lane % 8) = a pixel.
    const int apix = (lane & 7) + (lane >> 4) * 8;
    // B lanes: matrix (lane / 8) = (k half: bit 0, second n8 block: bit 1), row = a pixel.
    const int bpix = (lane & 7) + ((lane >> 3) & 1) * 8;
#pragma unroll 1
    for (int s = 0; s < KSTEPS; ++s) {
      const int p = s * 16 + apix;
      const int oy = p / TW;
      const int ox = p - oy * TW;
      const u32 pix_a = xs_a + (u32)((oy * SH * XROW + ox * TX_SLOTS * CTS) * ESZ);
      const u32 row_b = dys_a + (u32)((s * 16 + bpix) * DYROW * ESZ);
#pragma unroll
      for (int w = 0; w < UPW; ++w) {
        if (!at.live[w][0]) continue;  // no unit, or past its group's units in the last M slice
        u32 bf[NB][2];
#pragma unroll
        for (int j = 0; j < NB; j += 2) {
          // An odd last block: the lanes of the second block repeat the first (never used).
          u32 r[4];
          ldsm_x4_trans(r, row_b + (j + 1 < NB ? at.b[w] : at.b1[w]) + (u32)(j * 8 * ESZ));
          bf[j][0] = r[0];
          bf[j][1] = r[1];
          if (j + 1 < NB) {
            bf[j + 1][0] = r[2];
            bf[j + 1][1] = r[3];
          }
        }
#pragma unroll
        for (int b = 0; b < MB; ++b) {
          if (!at.live[w][b]) break;
          u32 af[4];
          ldsm_x4_trans(af, pix_a + at.a[w][b]);
#pragma unroll
          for (int j = 0; j < NB; ++j) mma16816(acc[w][b][j], af, bf[j][0], bf[j][1]);
        }
      }
    }
  }
}

extern "C" __global__ void __launch_bounds__(@BOUNDS@) @ENTRY@(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace) {
  GCONV_DYNAMIC_SMEM(smem);
  release_dependents();  // the split reduction may start as the last wave drains (prelude)
  // [2] X halo tiles (XS_BYTES each), then [2] dY tiles (DYS_BYTES each).
  const elem_t* __restrict__ X = reinterpret_cast<const elem_t*>(in0);
  const elem_t* __restrict__ dY = reinterpret_cast<const elem_t*>(in1);
  elem_t* xs0 = reinterpret_cast<elem_t*>(smem);
  elem_t* xs1 = reinterpret_cast<elem_t*>(smem + XS_BYTES);
  elem_t* dy0 = reinterpret_cast<elem_t*>(smem + 2 * XS_BYTES);
  elem_t* dy1 = reinterpret_cast<elem_t*>(smem + 2 * XS_BYTES + DYS_BYTES);
  const int tid = threadIdx.x;
  const int warp = tid >> 5;
  const int lane = tid & 31;
  const int k0 = blockIdx.y * BN;  // first output channel of the CTA
  const int c0 = blockIdx.y * CT;  // first input channel of the CTA

  float acc[UPW][MB][NB][4];
#pragma unroll
  for (int w = 0; w < UPW; ++w) {
#pragma unroll
    for (int b = 0; b < MB; ++b) {
#pragma unroll
      for (int j = 0; j < NB; ++j) {
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[w][b][j][e] = 0.0f;
      }
    }
  }

  const UnitAt at = unit_at(warp, lane);
  // The slab's tiles, the next tile's X halo and dY tile in flight during the current one.
  const int t0 = blockIdx.x * TILES_PER_SLAB;
  const int t1 = t0 + TILES_PER_SLAB < SPATIAL_TILES ? t0 + TILES_PER_SLAB : SPATIAL_TILES;
  if (t0 < t1) {
    load_halo(xs0, X, tile_at(t0), c0, tid);
    load_dy_rows(dy0, dY, tile_at(t0), k0, tid);
  }
  cp_async_commit();
  for (int t = t0, b = 0; t < t1; ++t, b ^= 1) {
    if (t + 1 < t1) {
      load_halo(b ? xs0 : xs1, X, tile_at(t + 1), c0, tid);
      load_dy_rows(b ? dy0 : dy1, dY, tile_at(t + 1), k0, tid);
    }
    cp_async_commit();
    cp_async_wait<1>();  // every group but the newest: tile t has landed
    __syncthreads();
    accumulate_mma(smem_u32(b ? xs1 : xs0), smem_u32(b ? dy1 : dy0), lane, at, acc);
    __syncthreads();  // all reads of this buffer done before it is refilled
  }

  // Stores: accumulator rows g and g + 8 of an m16 block are chunk rows (tap, channel), its
  // columns 2t, 2t + 1 of n8 block j output channels of the unit's group.
  const int g = lane >> 2;
  const int t2 = (lane & 3) * 2;
#pragma unroll
  for (int w = 0; w < UPW; ++w) {
    const int u = warp + w * WARPS;
    if (u >= UNITS) break;
    const int grp = u / UMS;
    const int gu = u % UMS + (int)blockIdx.z * UMS;  // unit of the group (M slice blockIdx.z)
    if (gu >= UM) continue;  // past the group's units (the last slice): a later unit may be live
    const int mb0 = gu * MB;
#pragma unroll
    for (int b = 0; b < MB; ++b) {
      const int blk = mb0 + b;
      if (blk >= MBLK) break;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int chunk = 2 * blk + h;
        if (chunk >= KCH) continue;
        const int c = (chunk % CPT) * 8 + g;  // input channel of the (merged) group
        const int e = (chunk / CPT) * CG0 + c % CG0;  // tap * CG0 + the real group's channel
#pragma unroll
        for (int j = 0; j < NB; ++j) {
#pragma unroll
          for (int q = 0; q < 2; ++q) {
            const int kk = j * 8 + t2 + q;  // output channel of the (merged) group
            const int k = k0 + grp * KG + kk;
            // Merged groups: only an input and an output channel of the same real group.
            if (k >= K_ || (GM > 1 && c / CG0 != kk / KG0)) continue;
            const float v = acc[w][b][j][2 * h + q];
            const long long o = (long long)k * WPK0 + e;
            if constexpr (SLABS == 1) {
              from_f32(v, reinterpret_cast<elem_t*>(out)[o]);
            } else {
              reinterpret_cast<float*>(workspace)[blockIdx.x * RED_PLANE + o] = v;
            }
          }
        }
      }
    }
  }
}
