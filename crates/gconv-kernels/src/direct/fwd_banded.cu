// ---- forward / backward data, depthwise, tensor cores with a banded filter (direct/fwd_banded.rs) ----
// Y[n, oy, ox, c] = sum over (ty, tx) of X[n, oy - PH + ty, ox - PW + tx, c] * Wt[c][ty][tx]
// (stride 1, dilation 1, C = K = G; a backward-data module computes the dual forward problem:
// X = dY, Y = dX and Wt[c][ty][tx] = W[c][FY-1-ty][FX-1-tx], DGRAD). Per channel, output row
// block (8 rows oy0 + 8b ...) and column chunk (16 columns ox0 + 16mc ...), one
// mma.sync.m16n8k16 per pair of staged X rows j (rho = 8b + 2j, 8b + 2j + 1 from oy0 - PH):
//   A[m][k]  m = ox offset (0..15), k = (row of the pair, tx < 8):  X[rho + (k >= 8)][m + k % 8]
//            (two X rows as Toeplitz blocks: column m + tx of the staged row),
//   B[k][n]  n = output row of the block (0..7):  Wt[2j + (k >= 8) - n][k % 8] (zero outside
//            the filter), the same registers for every block and chunk of the channel,
//   D[m][n]  Y[oy0 + 8b + n][ox0 + 16mc + m],
// summed over the JP pairs. The CTA stages its X rows (XR, zero outside the image) and columns
// (XE from ox0 - PW) as per-channel planes in shared memory, each row twice, the second copy
// shifted by one element, so that every A register is one aligned 32-bit read whatever the
// parity of the column (the copies sit XCW words apart: the two parities read different
// banks). A warp runs its CPW channels, each staged row pair read once for the row blocks it
// feeds (pair p is pair p - 4b of block b); the f32 accumulators stay in registers until every
// warp is done with the planes, then pass through shared memory as [pixel][channel] rows so
// that Y is written in 16-byte channel vectors. in0 = X, in1 = W, out = Y.
constexpr int C_ = G_;
constexpr int WARPS = THREADS / 32;
constexpr int CPW = BN / WARPS;                 // channels of a warp
constexpr int RB = TH / 8;                      // output row blocks of a tile
constexpr int MC = TW / 16;                     // 16-column chunks of a tile
constexpr int JP = (FY + 8) / 2;                // row pairs of a block: rows 0 .. 2·JP-1 >= FY + 6
constexpr int XR = 8 * (RB - 1) + 2 * JP;       // staged X rows
constexpr int NP = XR / 2;                      // staged row pairs
constexpr int XE = TW + 8;                      // staged X elements of a row (from ox0 - PW)
constexpr int XPLANE = XR * 2 * XCW;            // words of one channel's X plane
constexpr int VECS = BN / 8;                    // 16-byte channel vectors of a pixel
constexpr int TAPS = FY * FX;
constexpr int OSP = BN + 8;                     // elements of one staged output pixel (16-byte rows)
constexpr int TILES_H = (OH + TH - 1) / TH;
constexpr int TILES_W = (OW + TW - 1) / TW;
static_assert(ESZ == 2, "banded forward: 16-bit data");
static_assert(CG == 1 && KG == 1 && C_ % 8 == 0, "depthwise, channels in 16-byte vectors");
static_assert(FZ == 1 && ID == 1 && OD == 1, "banded forward: 2D");
static_assert(SH == 1 && SW == 1 && DH == 1 && DW == 1, "banded forward: stride 1, dilation 1");
static_assert(FX <= 8 && FY <= 2 * JP - 7, "banded forward: 8 filter columns, 2·JP - 7 rows");
static_assert(TH % 8 == 0 && TW % 16 == 0 && BN % 8 == 0 && BN % WARPS == 0, "tile shape");
static_assert(2 * XCW >= XE + 1 && XCW % 4 == 0 && XCW % 32 >= 8 && XCW % 32 <= 24,
              "X copies: length, whole 4-word groups, banks");
static_assert(SMEM_BYTES >= (BN * XPLANE + (VECS - 1) * XGS) * 4 &&
                  SMEM_BYTES >= TH * TW * OSP * 2,
              "shared memory: the X planes, then the output rows");

// Where channel c's X plane starts (words of xs32): the planes of each group of 8 channels
// (one 16-byte channel vector) XGS words past the previous group's, so that the staging lanes
// of the VECS vectors of one pixel store to different banks.
__device__ __forceinline__ int x_plane(int c) { return c * XPLANE + (c / 8) * XGS; }

// Staging task t = (row, word, vector), vector fastest (the lanes of a warp read adjacent
// pixels): it reads elements 2w, 2w + 1, 2w + 2 of staged row `row` (element e <-> ix = ox0 -
// PW + e, zero outside the image and past C) and writes, per channel of the vector, word w of
// copy 0 (elements 2w, 2w + 1) and of copy 1 (2w + 1, 2w + 2: copy 1 holds element e at e - 1).
constexpr int XTASKS = XR * XCW * VECS;
constexpr int XT = (XTASKS + THREADS - 1) / THREADS;  // staging tasks of a thread (PIPE)
constexpr int UNITS = N_ * TILES_H * TILES_W;

__device__ __forceinline__ void x_load(const elem_t* __restrict__ X, int n, int oy0, int ox0,
                                       int k0, int t, u32 (&e)[3][4]) {
  const int v = t % VECS;
  const int wd = (t / VECS) % XCW;
  const int row = t / (VECS * XCW);
  const int iy = oy0 - PH + row;
  const int k = k0 + v * 8;
  const bool rok = (unsigned)iy < (unsigned)IH && k < C_;
  const long long rbase = (long long)(n * IH + iy) * IW;
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    const int ix = ox0 - PW + 2 * wd + j;
    v16b p = {0u, 0u, 0u, 0u};
    if (rok && (unsigned)ix < (unsigned)IW) {
      p = *reinterpret_cast<const v16b*>(X + (rbase + ix) * C_ + k);
    }
    e[j][0] = p.x;
    e[j][1] = p.y;
    e[j][2] = p.z;
    e[j][3] = p.w;
  }
}

__device__ __forceinline__ void x_store(u32* xs32, int t, const u32 (&e)[3][4]) {
  const int v = t % VECS;
  const int wd = (t / VECS) % XCW;
  const int row = t / (VECS * XCW);
  u32* dst = xs32 + x_plane(v * 8) + row * (2 * XCW) + wd;
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    // The 16 bits of channel c of elements a and b as one word (a low).
    auto pair = [&](int a, int b) -> u32 {
      return c % 2 == 0 ? low_halves(e[a][c / 2], e[b][c / 2])
                        : high_halves(e[a][c / 2], e[b][c / 2]);
    };
    dst[c * XPLANE] = pair(0, 1);
    dst[c * XPLANE + XCW] = pair(1, 2);
  }
}

// The filter tap (ty, tx) of channel k as the kernel's forward filter Wt, as 16 bits; zero
// outside the filter.
__device__ __forceinline__ u32 w_tap(const u16* __restrict__ W, int k, int ty, int tx) {
  if (ty < 0 || ty >= FY || tx >= FX) return 0u;
  if constexpr (DGRAD) {
    return W[(long long)k * TAPS + (FY - 1 - ty) * FX + (FX - 1 - tx)];
  } else {
    return W[(long long)k * TAPS + ty * FX + tx];
  }
}

extern "C" __global__ void __launch_bounds__(THREADS) @ENTRY@(const void* __restrict__ in0,
                                                            const void* __restrict__ in1,
                                                            void* __restrict__ out,
                                                            void* __restrict__ workspace) {
  GCONV_DYNAMIC_SMEM(smem);
  const elem_t* __restrict__ X = reinterpret_cast<const elem_t*>(in0);
  const u16* __restrict__ W = reinterpret_cast<const u16*>(in1);
  u32* xs32 = reinterpret_cast<u32*>(smem);  // [BN][XR][2 copies][XCW] words
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int k0 = blockIdx.y * BN;  // first channel of the CTA
  // Tile u: column tile fastest, then row tile, then image; CTA x walks u = x, x + gridDim.x, ...
  auto origin = [](int u, int& n, int& oy0, int& ox0) {
    n = u / (TILES_W * TILES_H);
    oy0 = ((u / TILES_W) % TILES_H) * TH;
    ox0 = (u % TILES_W) * TW;
  };
  // Pipelined path (PIPE): the thread's staging reads of the next tile are issued into
  // registers before the current tile's MMAs and stored after the tile's output is written.
  u32 pre[XT][3][4];  // unused (and dropped) without PIPE
  auto fetch = [&](int u) {
    int n, oy0, ox0;
    origin(u, n, oy0, ox0);
#pragma unroll
    for (int i = 0; i < XT; ++i) {
      const int t = tid + i * THREADS;
      if (XTASKS % THREADS == 0 || t < XTASKS) x_load(X, n, oy0, ox0, k0, t, pre[i]);
    }
  };
  if constexpr (PIPE) {
    if ((int)blockIdx.x < UNITS) fetch(blockIdx.x);
  }
  for (int u = blockIdx.x; u < UNITS; u += gridDim.x) {
    int n, oy0, ox0;
    origin(u, n, oy0, ox0);
    if constexpr (PIPE) {
#pragma unroll
      for (int i = 0; i < XT; ++i) {
        const int t = tid + i * THREADS;
        if (XTASKS % THREADS == 0 || t < XTASKS) x_store(xs32, t, pre[i]);
      }
      __syncthreads();
      if (u + (int)gridDim.x < UNITS) fetch(u + gridDim.x);
    } else {
      for (int t = tid; t < XTASKS; t += THREADS) {
        u32 e[3][4];
        x_load(X, n, oy0, ox0, k0, t, e);
        x_store(xs32, t, e);
      }
      __syncthreads();
    }

    // A roles: rows g (column g of the chunk) and g + 8, k pairs 2q, 2q + 1 (+ 8: the pair's
    // second row). Element e = 16mc + g + 2q (+ 8) of the staged row; an odd e reads the
    // shifted copy (element e lives at e - 1 there), so each A register is one aligned word.
    const int g = lane >> 2;
    const int q = lane & 3;
    const int copy = g & 1;
    const int aword = (g + 2 * q - copy) / 2 + copy * XCW;

    float acc[CPW][RB][MC][4];
#pragma unroll
    for (int ci = 0; ci < CPW; ++ci) {
      const int c = warp * CPW + ci;
      const int kc = k0 + c < C_ ? k0 + c : C_ - 1;  // a channel past C computes, never stored
      // B of pair j: rows 2j (k < 8) and 2j + 1 (k >= 8) of the pair, output row n = g,
      // columns tx = 2q, 2q + 1.
      u32 bw[JP][2];
#pragma unroll
      for (int j = 0; j < JP; ++j) {
        bw[j][0] = w_tap(W, kc, 2 * j - g, 2 * q) | (w_tap(W, kc, 2 * j - g, 2 * q + 1) << 16);
        bw[j][1] = w_tap(W, kc, 2 * j + 1 - g, 2 * q) | (w_tap(W, kc, 2 * j + 1 - g, 2 * q + 1) << 16);
      }
      const u32* xc = xs32 + x_plane(c) + aword;
#pragma unroll
      for (int b = 0; b < RB; ++b) {
#pragma unroll
        for (int mc = 0; mc < MC; ++mc) {
#pragma unroll
          for (int i = 0; i < 4; ++i) acc[ci][b][mc][i] = 0.0f;
        }
      }
      // Pair p (staged rows 2p, 2p + 1) is pair j = p - 4b of row block b: its A fragments are
      // read once and serve every block that reaches it.
#pragma unroll
      for (int p = 0; p < NP; ++p) {
        const u32* r0 = xc + 2 * p * (2 * XCW);
        const u32* r1 = r0 + 2 * XCW;
        u32 a[MC][4];
#pragma unroll
        for (int mc = 0; mc < MC; ++mc) {
          a[mc][0] = r0[8 * mc];
          a[mc][1] = r0[8 * mc + 4];
          a[mc][2] = r1[8 * mc];
          a[mc][3] = r1[8 * mc + 4];
        }
#pragma unroll
        for (int b = 0; b < RB; ++b) {
          const int j = p - 4 * b;
          if (j >= 0 && j < JP) {
#pragma unroll
            for (int mc = 0; mc < MC; ++mc) mma16816(acc[ci][b][mc], a[mc], bw[j][0], bw[j][1]);
          }
        }
      }
    }
    __syncthreads();  // every warp is done with the X planes: the output rows reuse them

    // D roles: c0, c1 = (m = g, n = 2q, 2q + 1), c2, c3 = (m = g + 8, same n): output pixel
    // (row 8b + n, column 16mc + m) of channel c, as [pixel][OSP] 16-bit rows (call c of
    // session 21: per-channel output planes, conflict-free to store but read eight 16-bit
    // values per vector and written pixel-major, ran the kernel twice as long). A lane stores
    // PACK adjacent channels of its pixel at once (PACK the largest of 8, 4, 2, 1 dividing CPW):
    // the lanes of one store meet in 8 bank groups whatever the pitch (pixels start 16-byte
    // aligned), so wider stores of the same pixels are what takes wavefronts off (16-bit
    // stores: four wavefronts per channel; 8-channel stores: half a wavefront per channel).
    constexpr int PACK = CPW % 8 == 0 ? 8 : CPW % 4 == 0 ? 4 : CPW % 2 == 0 ? 2 : 1;
    u16* os = reinterpret_cast<u16*>(smem);
#pragma unroll
    for (int ci = 0; ci < CPW; ci += PACK) {
      const int c = warp * CPW + ci;
#pragma unroll
      for (int b = 0; b < RB; ++b) {
#pragma unroll
        for (int mc = 0; mc < MC; ++mc) {
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const int row = 8 * b + 2 * q + (i & 1);
            const int col = 16 * mc + g + 8 * (i >> 1);
            u16* dst = os + (row * TW + col) * OSP + c;
            u32 w[(PACK + 1) / 2];
            if constexpr (PACK == 1) {
              w[0] = to_half_bits(acc[ci][b][mc][i]);
            } else {
#pragma unroll
              for (int h = 0; h < PACK; h += 2) {
                w[h / 2] = (u32)to_half_bits(acc[ci + h][b][mc][i]) |
                           ((u32)to_half_bits(acc[ci + h + 1][b][mc][i]) << 16);
              }
            }
            if constexpr (PACK == 8) {
              *reinterpret_cast<v16b*>(dst) = v16b{w[0], w[1], w[2], w[3]};
            } else if constexpr (PACK == 4) {
              *reinterpret_cast<v8b*>(dst) = v8b{w[0], w[1]};
            } else if constexpr (PACK == 2) {
              *reinterpret_cast<u32*>(dst) = w[0];
            } else {
              *dst = (u16)w[0];
            }
          }
        }
      }
    }
    __syncthreads();
    // Y in 16-byte channel vectors, vector fastest (a warp writes whole pixels' channel runs).
    elem_t* __restrict__ Y = reinterpret_cast<elem_t*>(out);
    for (int t = tid; t < TH * TW * VECS; t += THREADS) {
      const int v = t % VECS;
      const int p = t / VECS;
      const int oy = oy0 + p / TW;
      const int ox = ox0 + p % TW;
      const int k = k0 + v * 8;
      if (oy < OH && ox < OW && k < C_) {
        *reinterpret_cast<v16b*>(Y + ((long long)(n * OH + oy) * OW + ox) * C_ + k) =
            *reinterpret_cast<const v16b*>(os + p * OSP + v * 8);
      }
    }
    __syncthreads();  // the output planes are read before the next tile's staging reuses them
  }
}