// ---- backward weight, depthwise, tensor cores with a banded dY operand (direct/banded.rs) ----
// dW[k][ty][tx] = sum over (n, oy, ox) of dY[n, oy, ox, k] * X[n, oy - PH + ty, ox - PW + tx, k]
// (stride 1, dilation 1, C = K = G). Per channel and tap block (bx, by) of 8 columns x 7 rows,
// one mma.sync.m16n8k16 covers two output rows (top oy_t = oy_b + 1, bottom oy_b), the block's
// tap rows and 16 input columns ix (t = tx - 8·bx, r = ty - 7·by):
//   A[m][k]  m = t (top) or 8 + t (bottom), k = ix:  dY[oy_t or oy_b][ix + PW - tx]
//            (a band of one dY row: the Toeplitz matrix of the row, zero off the tile),
//   B[k][n]  n = 0..7:                                X[oy_b - PH + 7·by + n][ix],
//   D[m][n]  top:    dW[r = n - 1][t],   bottom: dW[r = n][t],
// so the two halves share B. A tile is TH output rows (TH/2 row pairs) x TW output columns of
// one image: the CTA stages its X rows (XROWS, zero outside the image) and columns (KC = KCH x
// 16 from ox0 - PW) and its dY rows (from ox0 - 8·BX; two copies, the second shifted by one
// element, so that every A register is one aligned 32-bit read whatever the parity of the band
// offset) as per-channel planes in shared memory, then each warp runs its CPW channels over
// the tile's BLOCKS x TH/2 x KCH mma. The planes of each group of 8 channels (one 16-byte
// channel vector) start XGS elements (X) and DGS words (dY) past the previous group's end,
// so that the staging lanes of the VECS vectors of one pixel store to different banks. With
// PIPE the thread's staging reads of the next tile are issued before the current tile's mma. The f32 accumulators (4 per channel and block) live
// over the whole slab; at the end, one block at a time, both halves of each channel are summed
// in a fixed order (top first) and the CTA writes its rows of one f32 partial plane (workspace
// plane = slab) or, with one slab, dW itself. No atomics: dW is bit-identical across runs.
// in0 = X, in1 = dY, out = dW.
constexpr int C_ = G_;
constexpr int WARPS = THREADS / 32;
constexpr int CPW = BN / WARPS;                      // channels of a warp
constexpr int KC = KCH * 16;                         // staged X columns (the mma K extent)
constexpr int BX = (FX + 7) / 8;                     // tap blocks along x (8 columns of A each)
constexpr int BY = (FY + 6) / 7;                     // tap blocks along y (7 rows of D each)
constexpr int BLOCKS = BX * BY;
constexpr int XROWS = TH + 6 + 7 * (BY - 1);         // staged X rows (a row pair reads 8 per block)
constexpr int XPLANE = XROWS * XRS;                  // elements of one channel's X plane
constexpr int DS = KC + 8 * BX;                      // staged dY elements of a row (from ox0 - 8·BX)
constexpr int DPLANE = TH * 2 * DSW;                 // 32-bit words of one channel's dY plane
constexpr int TAPS = FY * FX;
constexpr int TILES_H = (OH + TH - 1) / TH;
constexpr int TILES_W = (OW + TW - 1) / TW;
constexpr int UNITS = N_ * TILES_H * TILES_W;
constexpr int VECS = BN / 8;                         // 16-byte channel vectors of a pixel
static_assert(ESZ == 2, "banded wgrad: 16-bit data");
static_assert(CG == 1 && KG == 1 && C_ % 8 == 0, "depthwise, channels in 16-byte vectors");
static_assert(FZ == 1 && ID == 1 && OD == 1 && IH >= 2, "banded wgrad: 2D");
static_assert(SH == 1 && SW == 1 && DH == 1 && DW == 1, "banded wgrad: stride 1, dilation 1");
static_assert(FX <= 8 * BX && FY <= 7 * BY, "banded wgrad: tap blocks of 8 columns, 7 + 1 rows");
static_assert(TH % 2 == 0 && BN % 8 == 0 && BN % WARPS == 0, "row pairs, channel vectors");
static_assert(KC >= TW + FX - 1, "the K extent covers every input column of the tile");
static_assert(XRS >= KC && XRS % 8 == 0 && (XRS / 8) % 2 == 1, "X row stride: odd 16-byte chunks");
static_assert(2 * DSW >= DS, "dY copy length");
static_assert(XGS % 8 == 0 && DGS >= 0, "X plane groups keep ldmatrix rows 16-byte aligned");
static_assert(SMEM_BYTES >= DY_OFF + (BN * DPLANE + (VECS - 1) * DGS) * 4 &&
                  DY_OFF >= (BN * XPLANE + (VECS - 1) * XGS) * 2 && DY_OFF >= BN * 128 * 4,
              "shared memory: X planes (or the epilogue sums), then dY planes");
static_assert(SLABS * UNITS_PER_SLAB >= UNITS, "slabs cover the units");
static_assert(RED_PLANE == (long long)C_ * TAPS, "partial plane = |dW|");

// Staging tasks of a tile. X: task t = (row, column pair, 16-byte channel vector), v fastest;
// it reads the vector of two adjacent input pixels and writes, per channel, their pair as one
// 32-bit word of the channel's plane. dY: task t = (row, word, vector); it reads elements 2w,
// 2w + 1, 2w + 2 of the staged row (e <-> ox = ox0 - 8·BX + e, zero outside [ox0, ox0 + TW) and
// the image) and writes word w of copy 0 (elements 2w, 2w + 1) and of copy 1 (2w + 1, 2w + 2:
// copy 1 holds element e at e - 1).
constexpr int XTASKS = XROWS * (KC / 2) * VECS;
constexpr int DTASKS = TH * DSW * VECS;
constexpr int XT = (XTASKS + THREADS - 1) / THREADS;  // X tasks of a thread (pipelined path)
constexpr int DT = (DTASKS + THREADS - 1) / THREADS;  // dY tasks of a thread (pipelined path)

struct Tile {
  int n, oy0, ox0;
};

// Where channel c's planes start: X in elements of xs, dY in words of ds32 (the group shift
// of the header).
__device__ __forceinline__ int x_plane(int c) { return c * XPLANE + (c / 8) * XGS; }
__device__ __forceinline__ int dy_plane(int c) { return c * DPLANE + (c / 8) * DGS; }

// Unit u: column tile fastest, then row tile, then image.
__device__ __forceinline__ Tile tile_of(int u) {
  const int r = u / TILES_W;
  return Tile{r / TILES_H, (r % TILES_H) * TH, (u % TILES_W) * TW};
}

__device__ __forceinline__ void x_load(const elem_t* __restrict__ X, Tile T, int k0, int t,
                                       v16b& a, v16b& b) {
  const int v = t % VECS;
  const int cp = (t / VECS) % (KC / 2);
  const int row = t / (VECS * (KC / 2));
  const int iy = T.oy0 - PH + row;
  const int ix = T.ox0 - PW + 2 * cp;
  const int k = k0 + v * 8;
  const bool rok = (unsigned)iy < (unsigned)IH && k < C_;
  const long long rbase = (long long)(T.n * IH + iy) * IW;
  a = {0u, 0u, 0u, 0u};
  b = {0u, 0u, 0u, 0u};
  if (rok && (unsigned)ix < (unsigned)IW) {
    a = *reinterpret_cast<const v16b*>(X + (rbase + ix) * C_ + k);
  }
  if (rok && (unsigned)(ix + 1) < (unsigned)IW) {
    b = *reinterpret_cast<const v16b*>(X + (rbase + ix + 1) * C_ + k);
  }
}

__device__ __forceinline__ void x_store(u32* xs32, int t, const v16b& a, const v16b& b) {
  const int v = t % VECS;
  const int cp = (t / VECS) % (KC / 2);
  const int row = t / (VECS * (KC / 2));
  const u32 wa[4] = {a.x, a.y, a.z, a.w};
  const u32 wb[4] = {b.x, b.y, b.z, b.w};
  u32* dst = xs32 + x_plane(v * 8) / 2 + row * (XRS / 2) + cp;
#pragma unroll
  for (int i = 0; i < 8; i += 2) {
    dst[i * (XPLANE / 2)] = low_halves(wa[i / 2], wb[i / 2]);
    dst[(i + 1) * (XPLANE / 2)] = high_halves(wa[i / 2], wb[i / 2]);
  }
}

__device__ __forceinline__ void dy_load(const elem_t* __restrict__ dY, Tile T, int k0, int t,
                                        v16b (&w3)[3]) {
  const int v = t % VECS;
  const int wd = (t / VECS) % DSW;
  const int row = t / (VECS * DSW);
  const int oy = T.oy0 + row;
  const int k = k0 + v * 8;
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    const int ox = T.ox0 - 8 * BX + 2 * wd + j;
    w3[j] = {0u, 0u, 0u, 0u};
    if (oy < OH && ox >= T.ox0 && ox < T.ox0 + TW && ox < OW && k < C_) {
      w3[j] = *reinterpret_cast<const v16b*>(dY + ((long long)(T.n * OH + oy) * OW + ox) * C_ + k);
    }
  }
}

__device__ __forceinline__ void dy_store(u32* ds32, int t, const v16b (&w3)[3]) {
  const int v = t % VECS;
  const int wd = (t / VECS) % DSW;
  const int row = t / (VECS * DSW);
  u32* dst = ds32 + dy_plane(v * 8) + row * (2 * DSW) + wd;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int sh = 16 * (i % 2);
    const u32 w0[4] = {w3[0].x, w3[0].y, w3[0].z, w3[0].w};
    const u32 w1[4] = {w3[1].x, w3[1].y, w3[1].z, w3[1].w};
    const u32 w2[4] = {w3[2].x, w3[2].y, w3[2].z, w3[2].w};
    const u32 e0 = (w0[i / 2] >> sh) & 0xffffu;
    const u32 e1 = (w1[i / 2] >> sh) & 0xffffu;
    const u32 e2 = (w2[i / 2] >> sh) & 0xffffu;
    dst[i * DPLANE] = e0 | (e1 << 16);
    dst[i * DPLANE + DSW] = e1 | (e2 << 16);
  }
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_CTAS) @ENTRY@(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace) {
  GCONV_DYNAMIC_SMEM(smem);
  release_dependents();  // the split reduction may start as the last wave drains (prelude)
  const elem_t* __restrict__ X = reinterpret_cast<const elem_t*>(in0);
  const elem_t* __restrict__ dY = reinterpret_cast<const elem_t*>(in1);
  u16* xs = reinterpret_cast<u16*>(smem);                   // [BN][XROWS][XRS] (x_plane)
  u32* ds32 = reinterpret_cast<u32*>(smem + DY_OFF);        // [BN][TH][2 copies][DSW] words (dy_plane)
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int k0 = blockIdx.y * BN;  // first channel of the CTA
  // A roles: rows g (top) and g + 8 (bottom), columns 2q, 2q + 1 (+ 8). The band element of
  // column k = 2q at chunk 0 of tap block bx is e = 2q + 8·BX - 8·bx - g of the staged row; an
  // odd e reads the shifted copy (element e lives at e - 1 there), so each A register is one
  // aligned word (block bx reads 4·bx words further left).
  const int g = lane >> 2;
  const int q = lane & 3;
  const int copy = g & 1;
  const int aword = (2 * q + 8 * BX - g - copy) / 2 + copy * DSW;
  // B roles (ldmatrix.x2): lane l gives row l & 7 of matrix (l >> 3) & 1 (columns 0-7, 8-15).
  const u32 xrole = (u32)(((lane & 7) * XRS + ((lane >> 3) & 1) * 8) * 2);
  const u32 xs_a = smem_u32(xs);

  float acc[CPW][BLOCKS][4];
#pragma unroll
  for (int c = 0; c < CPW; ++c) {
#pragma unroll
    for (int b = 0; b < BLOCKS; ++b) {
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[c][b][i] = 0.0f;
    }
  }

  const int u0 = blockIdx.x * UNITS_PER_SLAB;
  const int u1 = u0 + UNITS_PER_SLAB < UNITS ? u0 + UNITS_PER_SLAB : UNITS;
  u32* xs32 = reinterpret_cast<u32*>(xs);
  // Pipelined path (PIPE): the thread's staging reads of the next tile are issued into
  // registers before the current tile's MMAs and stored after them.
  v16b xa[XT], xb[XT], dw[DT][3];  // unused (and dropped) without PIPE
  auto fetch = [&](Tile T) {
#pragma unroll
    for (int i = 0; i < XT; ++i) {
      const int t = tid + i * THREADS;
      if (XTASKS % THREADS == 0 || t < XTASKS) x_load(X, T, k0, t, xa[i], xb[i]);
    }
#pragma unroll
    for (int i = 0; i < DT; ++i) {
      const int t = tid + i * THREADS;
      if (DTASKS % THREADS == 0 || t < DTASKS) dy_load(dY, T, k0, t, dw[i]);
    }
  };
  if constexpr (PIPE) {
    if (u0 < u1) fetch(tile_of(u0));
  }
  for (int u = u0; u < u1; ++u) {
    __syncthreads();  // the previous tile's planes are read
    if constexpr (PIPE) {
#pragma unroll
      for (int i = 0; i < XT; ++i) {
        const int t = tid + i * THREADS;
        if (XTASKS % THREADS == 0 || t < XTASKS) x_store(xs32, t, xa[i], xb[i]);
      }
#pragma unroll
      for (int i = 0; i < DT; ++i) {
        const int t = tid + i * THREADS;
        if (DTASKS % THREADS == 0 || t < DTASKS) dy_store(ds32, t, dw[i]);
      }
      __syncthreads();
      if (u + 1 < u1) fetch(tile_of(u + 1));
    } else {
      const Tile T = tile_of(u);
      for (int t = tid; t < XTASKS; t += THREADS) {
        v16b a, b;
        x_load(X, T, k0, t, a, b);
        x_store(xs32, t, a, b);
      }
      for (int t = tid; t < DTASKS; t += THREADS) {
        v16b w3[3];
        dy_load(dY, T, k0, t, w3);
        dy_store(ds32, t, w3);
      }
      __syncthreads();
    }
#pragma unroll
    for (int ci = 0; ci < CPW; ++ci) {
      const int c = warp * CPW + ci;
      const u32* dyc = ds32 + dy_plane(c) + aword;
      const u32 xb = xs_a + (u32)(x_plane(c) * 2) + xrole;
#pragma unroll
      for (int blk = 0; blk < BLOCKS; ++blk) {
        const int by = blk / BX;
        const int bx = blk % BX;
#pragma unroll
        for (int j = 0; j < TH / 2; ++j) {
          const u32* top = dyc + (2 * j + 1) * 2 * DSW - 4 * bx;
          const u32* bot = dyc + (2 * j) * 2 * DSW - 4 * bx;
#pragma unroll
          for (int kc = 0; kc < KCH; ++kc) {
            const u32 a[4] = {top[8 * kc], bot[8 * kc], top[8 * kc + 4], bot[8 * kc + 4]};
            u32 b[2];
            ldsm_x2(b, xb + (u32)(((2 * j + 7 * by) * XRS + kc * 16) * 2));
            mma16816(acc[ci][blk], a, b[0], b[1]);
          }
        }
      }
    }
  }

  // Epilogue, one tap block at a time: each channel's 16 x 8 sums through shared memory
  // ([BN][16][8] f32), then dW[7·by + r][8·bx + t] = top[t][r + 1] + bottom[t][r] in that order.
  float* sums = reinterpret_cast<float*>(smem);
#pragma unroll
  for (int blk = 0; blk < BLOCKS; ++blk) {
    const int by = blk / BX;
    const int bx = blk % BX;
    __syncthreads();  // the planes (or the previous block's sums) are read
#pragma unroll
    for (int ci = 0; ci < CPW; ++ci) {
      float* s = sums + (warp * CPW + ci) * 128;
      s[g * 8 + 2 * q] = acc[ci][blk][0];
      s[g * 8 + 2 * q + 1] = acc[ci][blk][1];
      s[(g + 8) * 8 + 2 * q] = acc[ci][blk][2];
      s[(g + 8) * 8 + 2 * q + 1] = acc[ci][blk][3];
    }
    __syncthreads();
    for (int e = tid; e < BN * 56; e += THREADS) {
      const int c = e / 56;
      const int r = (e % 56) / 8;
      const int t = e % 8;
      const int ty = 7 * by + r;
      const int tx = 8 * bx + t;
      const float* s = sums + c * 128;
      const float v = s[t * 8 + r + 1] + s[(t + 8) * 8 + r];
      if (k0 + c < C_ && ty < FY && tx < FX) {
        const long long o = (long long)(k0 + c) * TAPS + ty * FX + tx;
        if constexpr (SLABS == 1) {
          from_f32(v, reinterpret_cast<elem_t*>(out)[o]);
        } else {
          reinterpret_cast<float*>(workspace)[blockIdx.x * RED_PLANE + o] = v;
        }
      }
    }
  }
}
