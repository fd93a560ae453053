// Prototype (session 42, not product code): backward weight of a 7x7 depthwise convolution
// (stride 1, padding 3, bf16 NHWC, f32 weight gradient) on mma.sync with both operands read
// straight from NHWC tiles in shared memory (issue #13's 7x7 depthwise layers).
//
// Per channel, pair of input rows (iy, iy + 1) and 16 consecutive output columns ox0 + j (the
// GEMM K), one m16n8k16 accumulates every tap of the filter for both rows:
//   A[m][j] = X[iy][ox0 + j - 3 + m]          (top, m = tx < 8)
//   A[8 + m][j] = X[iy + 1][ox0 + j - 3 + m]  (bottom)
//   B[j][n] = dY[iy + 4 - n][ox0 + j]         (n = 0..7, shared by both halves)
//   D top[tx][n] -> dW[ty = n - 1][tx],  D bottom[tx][n] -> dW[ty = n][tx]
// (the top row pairs with dY row iy + 3 - ty at n = ty + 1, the bottom one at n = ty; each
// half's one unused column is dropped), so lane (g, q) reads X pixels ox0 - 3 + g + 2q (+1,
// +8, +9) of rows iy and iy + 1 and dY pixels ox0 + 2q (+1, +8, +9) of row iy + 4 - g: 16-byte
// loads of 8 channels and a byte permute per channel and register. A CTA owns TH output rows x
// TW output columns x 8·CGS channels of one image: it stages X rows iy = y0 - 3 .. y0 + TH + 3
// (an even count) and the dY rows those pair with (zero outside the tile, so each (output
// pixel, tap) product is counted once), walks the (row pair, chunk) pairs over its warps, sums
// its warps in a fixed order and writes one f32 partial of its channels' 49 taps; a second
// kernel sums the partials in a fixed order (deterministic). (Calls 1-3 ran the first version:
// one input row per m16n8k16, rows 8-15 of A zero.)
//
// GPU:  nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/dw7w results/h100/s42/proto/dw7_wgrad_mma.cu && /tmp/dw7w
// CPU:  g++ -std=c++20 -O1 -I crates/gconv-kernels/tests -DDW7_HOST -o /tmp/dw7wh -x c++ results/h100/s42/proto/dw7_wgrad_mma.cu && /tmp/dw7wh
#include "dw7_common.h"

template <int N, int H, int W, int C, int TH, int TW, int WARPS, int CGS>
struct Dw7w {
  static constexpr int THREADS = 32 * WARPS;  // warp w works on channel group w % CGS
  static constexpr int PS = CGS == 1 ? 1 : CGS + 1;  // pixel stride in 16-byte units (odd)
  static constexpr int CB = C / (8 * CGS);           // channel blocks (CGS groups of 8)
  static constexpr int XR = (TH + F) / 2 * 2;  // X rows, even: TH + 6 used, a last zero pair half
  static constexpr int XC = TW + 8, XRS = XC | 1;   // X columns, row stride
  static constexpr int DR = XR + 7, DRS = TW | 1;   // dY rows (staged row xr + 8 - g, from 1)
  static constexpr int CHUNKS = TW / 16, PAIRS = XR / 2 * CHUNKS;
  static constexpr int XUNITS = XR * XRS * PS, DUNITS = DR * DRS * PS;
  static constexpr int SUMS = WARPS * 8 * 128 * 4;    // the warp sums, at the end
  static constexpr int SMEM = (XUNITS + DUNITS) * 16 > SUMS ? (XUNITS + DUNITS) * 16 : SUMS;
  static constexpr int TY = (H + TH - 1) / TH, TX = (W + TW - 1) / TW, TILES = N * TY * TX;
  static_assert(TW % 16 == 0, "16-column chunks");
  static_assert(WARPS % CGS == 0, "whole warps per channel group");
};

// Stages tile (n, y0, x0) of channels c0 .. c0 + 8·CGS into X planes at xb and dY planes at db
// (shared-memory addresses), one commit group. Each thread keeps one (column, channel group)
// and walks rows with fixed increments (no division per copy: call 2 found the staging's index
// arithmetic most of the kernel).
template <class P, int N, int H, int W, int C, int TH, int TW, int CGS>
__device__ __forceinline__ void stage_tile(const bf16* X, const bf16* dY, u32 xb, u32 db, int n, int y0, int x0,
                                           int c0, int tid) {
  {
    constexpr int COLS = P::XC * CGS, STEP = P::THREADS / COLS;
    static_assert(STEP >= 1, "a pass covers a row");
    const int kk = tid % COLS, gi = kk % CGS, k = kk / CGS, ix = x0 - PAD + k;
    const bool cok = (unsigned)ix < (unsigned)W && tid < STEP * COLS;
    u32 dst = xb + (u32)((((tid / COLS) * P::XRS + k) * P::PS + gi) * 16);
    long long src = (((long long)n * H + y0 - PAD + tid / COLS) * W + ix) * C + c0 + 8 * gi;
    for (int r = tid / COLS; r < P::XR && tid < STEP * COLS; r += STEP) {
      const int iy = y0 - PAD + r;
      const bool ok = cok && (unsigned)iy < (unsigned)H;
      cp16(dst, X + (ok ? src : 0), ok);
      dst += STEP * P::XRS * P::PS * 16;
      src += (long long)STEP * W * C;
    }
  }
  {
    constexpr int COLS = TW * CGS, STEP = P::THREADS / COLS;
    static_assert(STEP >= 1, "a pass covers a row");
    const int kk = tid % COLS, gi = kk % CGS, k = kk / CGS, ox = x0 + k;
    const bool cok = ox < W && tid < STEP * COLS;
    u32 dst = db + (u32)((((tid / COLS) * P::DRS + k) * P::PS + gi) * 16);
    long long src = (((long long)n * H + y0 - 7 + tid / COLS) * W + ox) * C + c0 + 8 * gi;
    for (int r = tid / COLS; r < P::DR && tid < STEP * COLS; r += STEP) {
      const int oy = y0 + r - 7;  // staged dY row r <-> oy = y0 + r - 7
      const bool ok = cok && r >= 7 && r < 7 + TH && oy < H;  // zero outside the tile
      cp16(dst, dY + (ok ? src : 0), ok);
      dst += STEP * P::DRS * P::PS * 16;
      src += (long long)STEP * W * C;
    }
  }
  cp_commit();
}

// The warp's (row pair, chunk) items of one staged tile into acc (8 channels of group grp).
template <class P, int WARPS, int CGS>
__device__ __forceinline__ void mma_tile(const uint4* xs, const uint4* ds, float (&acc)[8][4], int warp, int g,
                                         int q, int grp) {
  for (int p = warp / CGS; p < P::PAIRS; p += WARPS / CGS) {
    const int xr = 2 * (p / P::CHUNKS), j = p % P::CHUNKS;
    // X: staged column 16j + 2q + g (+1, +8, +9) of staged rows xr and xr + 1 (staged column 0
    // <-> x0 - 3).
    const uint4* xp = xs + (xr * P::XRS + 16 * j + 2 * q + g) * P::PS + grp;
    // dY: staged row xr + 8 - g (<-> oy = iy + 4 - g), columns 16j + 2q (+1, +8, +9).
    const uint4* dp = ds + ((xr + 8 - g) * P::DRS + 16 * j + 2 * q) * P::PS + grp;
    constexpr int S = P::PS, R = P::XRS * P::PS;
    const uint4 t0 = xp[0], t1 = xp[S], t8 = xp[8 * S], t9 = xp[9 * S];
    const uint4 u0 = xp[R], u1 = xp[R + S], u8 = xp[R + 8 * S], u9 = xp[R + 9 * S];
    const uint4 d0v = dp[0], d1v = dp[S], d8v = dp[8 * S], d9v = dp[9 * S];
    const u32 T0[4] = {t0.x, t0.y, t0.z, t0.w}, T1[4] = {t1.x, t1.y, t1.z, t1.w};
    const u32 T8[4] = {t8.x, t8.y, t8.z, t8.w}, T9[4] = {t9.x, t9.y, t9.z, t9.w};
    const u32 U0[4] = {u0.x, u0.y, u0.z, u0.w}, U1[4] = {u1.x, u1.y, u1.z, u1.w};
    const u32 U8[4] = {u8.x, u8.y, u8.z, u8.w}, U9[4] = {u9.x, u9.y, u9.z, u9.w};
    const u32 D0[4] = {d0v.x, d0v.y, d0v.z, d0v.w}, D1[4] = {d1v.x, d1v.y, d1v.z, d1v.w};
    const u32 D8[4] = {d8v.x, d8v.y, d8v.z, d8v.w}, D9[4] = {d9v.x, d9v.y, d9v.z, d9v.w};
#pragma unroll
    for (int ch = 0; ch < 8; ++ch) {
      const int i = ch / 2;
      const bool hi = ch % 2;
      auto pr = [hi](u32 a, u32 b) { return hi ? hi_pair(a, b) : lo_pair(a, b); };
      const u32 af[4] = {pr(T0[i], T1[i]), pr(U0[i], U1[i]), pr(T8[i], T9[i]), pr(U8[i], U9[i])};
      mma16816(acc[ch], af, pr(D0[i], D1[i]), pr(D8[i], D9[i]));
    }
  }
}

// The CTA's warp sums, in a fixed order, into partial plane `slot` (after a barrier: the
// shared memory is reused): dW[ty][tx] = top[tx][ty + 1] + bottom[tx][ty].
template <class P, int C, int WARPS, int CGS>
__device__ __forceinline__ void write_partial(unsigned char* smem, const float (&acc)[8][4], float* part,
                                             long long slot, int c0, int tid, int warp, int g, int q) {
  __syncthreads();  // the tiles are read: the warp sums reuse the shared memory
  // Warp sums: [warp][ch][2][64] (half h, tx = g, n = 2q, 2q + 1 at h * 64 + g * 8 + 2q (+1)).
  float* sums = reinterpret_cast<float*>(smem);
#pragma unroll
  for (int ch = 0; ch < 8; ++ch) {
#pragma unroll
    for (int i = 0; i < 4; ++i) sums[(warp * 8 + ch) * 128 + (i / 2) * 64 + g * 8 + 2 * q + i % 2] = acc[ch][i];
  }
  __syncthreads();
  for (int e = tid; e < CGS * 8 * 49; e += P::THREADS) {
    const int gc = e / 49, gi = gc / 8, ch = gc % 8, ty = (e % 49) / 7, tx = e % 7;
    float s = 0.f;
    for (int w = gi; w < WARPS; w += CGS) {
      const float* ws = sums + (w * 8 + ch) * 128;
      s += ws[tx * 8 + ty + 1];
      s += ws[64 + tx * 8 + ty];
    }
    part[(slot * C + c0 + gc) * 49 + ty * 7 + tx] = s;
  }
}

// X, dY [N][H][W][C] bf16; partial [TILES][C][49] f32; one tile a CTA.
// CBF: a 1D grid with the channel block fastest (the C / 8 CTAs of a tile run together, so the
// 16-byte pieces of a pixel that they read meet in L2); else grid (TILES, C / 8).
template <int N, int H, int W, int C, int TH, int TW, int WARPS, bool CBF, int CGS>
__global__ void __launch_bounds__(32 * WARPS) dw7w(const void* in0, const void* in1, void* out, void* ws) {
  using P = Dw7w<N, H, W, C, TH, TW, WARPS, CGS>;
#ifdef DW7_HOST
  unsigned char* smem = gconv_host_smem;
#else
  extern __shared__ __align__(128) unsigned char smem[];
#endif
  const bf16* X = reinterpret_cast<const bf16*>(in0);
  const bf16* dY = reinterpret_cast<const bf16*>(in1);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, q = lane % 4;
  const int c0 = (CBF ? (int)blockIdx.x % P::CB : (int)blockIdx.y) * 8 * CGS;
  const int t = CBF ? (int)blockIdx.x / P::CB : (int)blockIdx.x;
  const int n = t / (P::TY * P::TX), y0 = (t / P::TX) % P::TY * TH, x0 = t % P::TX * TW;
  uint4* xs = reinterpret_cast<uint4*>(smem);
  uint4* ds = xs + P::XUNITS;
  stage_tile<P, N, H, W, C, TH, TW, CGS>(X, dY, smem_addr(xs), smem_addr(ds), n, y0, x0, c0, tid);
  cp_wait0();
  __syncthreads();
  float acc[8][4];
#pragma unroll
  for (int ch = 0; ch < 8; ++ch)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[ch][i] = 0.f;
  mma_tile<P, WARPS, CGS>(xs, ds, acc, warp, g, q, warp % CGS);
  write_partial<P, C, WARPS, CGS>(smem, acc, reinterpret_cast<float*>(ws), t, c0, tid, warp, g, q);
}

// Pipelined and persistent (after call 3: the one-tile kernel stages, waits, then computes,
// with nothing to overlap inside a CTA): CTA b of a 1D grid owns channel block b % CB and
// tiles b / CB, + gridDim.x / CB, ...; two stages, the next tile's copies in flight while the
// current one's MMAs run; the accumulators run over all its tiles and it writes one partial
// plane (slot b / CB; the reduction sums gridDim.x / CB planes). grid: a multiple of CB.
template <int N, int H, int W, int C, int TH, int TW, int WARPS, int CGS>
__global__ void __launch_bounds__(32 * WARPS) dw7w_pipe(const void* in0, const void* in1, void* out, void* ws) {
  using P = Dw7w<N, H, W, C, TH, TW, WARPS, CGS>;
#ifdef DW7_HOST
  unsigned char* smem = gconv_host_smem;
#else
  extern __shared__ __align__(128) unsigned char smem[];
#endif
  const bf16* X = reinterpret_cast<const bf16*>(in0);
  const bf16* dY = reinterpret_cast<const bf16*>(in1);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, q = lane % 4;
  const int c0 = (int)blockIdx.x % P::CB * 8 * CGS;
  const int slot = (int)blockIdx.x / P::CB, gx = (int)gridDim.x / P::CB;
  uint4* st = reinterpret_cast<uint4*>(smem);  // [2][XUNITS + DUNITS]
  constexpr int SU = P::XUNITS + P::DUNITS;
  auto stage = [&](int t, int buf) {
    const int n = t / (P::TY * P::TX), y0 = (t / P::TX) % P::TY * TH, x0 = t % P::TX * TW;
    uint4* xs = st + buf * SU;
    stage_tile<P, N, H, W, C, TH, TW, CGS>(X, dY, smem_addr(xs), smem_addr(xs + P::XUNITS), n, y0, x0, c0, tid);
  };
  float acc[8][4];
#pragma unroll
  for (int ch = 0; ch < 8; ++ch)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[ch][i] = 0.f;
  if (slot < P::TILES) stage(slot, 0);
  int buf = 0;
  for (int t = slot; t < P::TILES; t += gx, buf ^= 1) {
    if (t + gx < P::TILES) {
      stage(t + gx, buf ^ 1);
      cp_wait1();
    } else {
      cp_wait0();
    }
    __syncthreads();
    mma_tile<P, WARPS, CGS>(st + buf * SU, st + buf * SU + P::XUNITS, acc, warp, g, q, warp % CGS);
    __syncthreads();  // the stage is read before the next iteration refills it
  }
  write_partial<P, C, WARPS, CGS>(smem, acc, reinterpret_cast<float*>(ws), slot, c0, tid, warp, g, q);
}

// dW[c][tap] = sum over tiles of the partials, in tile order; f32 and bf16 out.
template <int C>
__global__ void reduce_partials(const float* part, int tiles, float* dw32, bf16* dw) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= C * 49) return;
  float s = 0.f;
  for (int t = 0; t < tiles; ++t) s += part[(long long)t * C * 49 + i];
  dw32[i] = s;
  dw[i] = f2b(s);
}

#ifndef __CUDACC_RTC__
template <int N, int H, int W, int C>
void reference(const std::vector<bf16>& x, const std::vector<bf16>& dy, std::vector<double>& dw) {
  dw.assign((size_t)C * 49, 0.0);
  for (int n = 0; n < N; ++n)
    for (int oy = 0; oy < H; ++oy)
      for (int ox = 0; ox < W; ++ox)
        for (int ty = 0; ty < F; ++ty)
          for (int tx = 0; tx < F; ++tx) {
            const int iy = oy - PAD + ty, ix = ox - PAD + tx;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            for (int c = 0; c < C; ++c)
              dw[(size_t)c * 49 + ty * 7 + tx] += (double)b2f(dy[(((size_t)n * H + oy) * W + ox) * C + c]) *
                                                   b2f(x[(((size_t)n * H + iy) * W + ix) * C + c]);
          }
}

// Every tap against the f64 reference: |dw - ref| <= 1e-3·sqrt(terms) + 1e-4·|ref| (f32 sums).
inline bool check(const char* what, const std::vector<float>& dw, const std::vector<double>& ref, double terms) {
  size_t bad = 0;
  double maxerr = 0;
  for (size_t i = 0; i < dw.size(); ++i) {
    const double e = std::fabs((double)dw[i] - ref[i]);
    maxerr = std::max(maxerr, e);
    if (!(e <= 1e-3 * std::sqrt(terms) + 1e-4 * std::fabs(ref[i]))) ++bad;
  }
  printf("%s: %zu of %zu outside tolerance, max abs err %.3g\n", what, bad, dw.size(), maxerr);
  return bad == 0;
}

template <int N, int H, int W, int C>
void fill(std::vector<bf16>& x, std::vector<bf16>& dy) {
  x.resize((size_t)N * H * W * C);
  dy.resize(x.size());
  srand(11);
  for (auto& v : x) v = f2b((rand() % 2001 - 1000) / 1000.f);
  for (auto& v : dy) v = f2b((rand() % 2001 - 1000) / 1000.f);
}
#endif

#ifdef DW7_HOST
template <int N, int H, int W, int C, int TH, int TW, int WARPS, bool CBF, int CGS = 1>
bool host_case() {
  using P = Dw7w<N, H, W, C, TH, TW, WARPS, CGS>;
  std::vector<bf16> x, dy;
  fill<N, H, W, C>(x, dy);
  std::vector<double> ref;
  reference<N, H, W, C>(x, dy, ref);
  std::vector<float> part((size_t)P::TILES * C * 49, NAN), dw32(C * 49);
  gconv_host_launch(dw7w<N, H, W, C, TH, TW, WARPS, CBF, CGS>, CBF ? dim3{(unsigned)P::TILES * P::CB, 1, 1} : dim3{(unsigned)P::TILES, P::CB, 1}, dim3{P::THREADS, 1, 1},
                    P::SMEM, x.data(), dy.data(), nullptr, part.data());
  for (int i = 0; i < C * 49; ++i) {
    float s = 0.f;
    for (int t = 0; t < P::TILES; ++t) s += part[(size_t)t * C * 49 + i];
    dw32[i] = s;
  }
  char what[128];
  snprintf(what, sizeof what, "host N%d %dx%d C%d TH%d TW%d warps %d", N, H, W, C, TH, TW, WARPS);
  return check(what, dw32, ref, (double)N * H * W);
}
template <int N, int H, int W, int C, int TH, int TW, int WARPS, int CGS>
bool host_pipe(int slots) {
  using P = Dw7w<N, H, W, C, TH, TW, WARPS, CGS>;
  std::vector<bf16> x, dy;
  fill<N, H, W, C>(x, dy);
  std::vector<double> ref;
  reference<N, H, W, C>(x, dy, ref);
  std::vector<float> part((size_t)slots * C * 49, NAN), dw32(C * 49);
  gconv_host_launch(dw7w_pipe<N, H, W, C, TH, TW, WARPS, CGS>, dim3{(unsigned)(slots * P::CB), 1, 1},
                    dim3{P::THREADS, 1, 1}, 2 * P::SMEM, x.data(), dy.data(), nullptr, part.data());
  for (int i = 0; i < C * 49; ++i) {
    float s = 0.f;
    for (int t = 0; t < slots; ++t) s += part[(size_t)t * C * 49 + i];
    dw32[i] = s;
  }
  char what[128];
  snprintf(what, sizeof what, "host pipe N%d %dx%d C%d TH%d TW%d warps %d CGS%d slots %d", N, H, W, C, TH, TW, WARPS,
           CGS, slots);
  return check(what, dw32, ref, (double)N * H * W);
}
int main() {
  bool ok = host_pipe<2, 21, 19, 16, 8, 16, 4, 1>(3);  // 3 slots over 12 tiles: 4 tiles a CTA
  ok = host_pipe<1, 23, 30, 32, 12, 32, 4, 2>(1) && ok;  // one CTA walks every tile
  ok = host_case<2, 21, 19, 16, 8, 16, 4, false>() && ok;
  ok = host_case<2, 21, 19, 16, 8, 16, 4, true>() && ok;
  ok = host_case<1, 37, 40, 8, 16, 32, 4, false>() && ok;
  ok = host_case<2, 7, 7, 24, 7, 16, 2, true>() && ok;
  ok = host_case<2, 21, 19, 32, 8, 16, 4, true, 2>() && ok;
  ok = host_case<1, 23, 30, 64, 12, 32, 8, false, 4>() && ok;
  printf("%s\n", ok ? "VERIFIED" : "NOT VERIFIED");
  return ok ? 0 : 1;
}
#elif !defined(__CUDACC_RTC__)

template <int N, int H, int W, int C, int TH, int TW, int WARPS, bool CBF, int CGS = 1>
bool gpu_case(const bf16* dX, const bf16* dDY, float* dP, float* dW32, bf16* dWb, const std::vector<double>& ref) {
  using P = Dw7w<N, H, W, C, TH, TW, WARPS, CGS>;
  auto k = dw7w<N, H, W, C, TH, TW, WARPS, CBF, CGS>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, P::SMEM));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, P::THREADS, P::SMEM));
  const dim3 grid = CBF ? dim3(P::TILES * P::CB) : dim3(P::TILES, P::CB);
  auto launch = [&] {
    k<<<grid, P::THREADS, P::SMEM>>>(dX, dDY, nullptr, dP);
    reduce_partials<C><<<(C * 49 + 127) / 128, 128>>>(dP, P::TILES, dW32, dWb);
  };
  CK(cudaMemset(dW32, 0xFF, C * 49 * 4));
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> dw(C * 49);
  CK(cudaMemcpy(dw.data(), dW32, dw.size() * 4, cudaMemcpyDeviceToHost));
  char what[160];
  snprintf(what, sizeof what, "N%d %dx%d C%d TH%d TW%d warps %d CBF%d CGS%d, %d tiles (occupancy %d/SM, %d B smem)",
           N, H, W, C, TH, TW, WARPS, (int)CBF, CGS, P::TILES, occ, P::SMEM);
  if (!check(what, dw, ref, (double)N * H * W)) return false;
  const std::vector<float> t = time_rounds(launch);
  printf("  median %.2f us (min %.2f, max %.2f) both kernels, %.0f GB/s\n", t[4], t[0], t[8],
         2.0 * N * H * W * C * 2 / (t[4] * 1e3));
  return true;
}

template <int N, int H, int W, int C, int TH, int TW, int WARPS, int CGS>
bool gpu_pipe(const bf16* dX, const bf16* dDY, float* dP, float* dW32, bf16* dWb, const std::vector<double>& ref) {
  using P = Dw7w<N, H, W, C, TH, TW, WARPS, CGS>;
  auto k = dw7w_pipe<N, H, W, C, TH, TW, WARPS, CGS>;
  constexpr int SM = 2 * P::SMEM;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SM));
  int occ = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, P::THREADS, SM));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int slots = std::max(1, std::min(P::TILES, sms * occ / P::CB));
  auto launch = [&] {
    k<<<slots * P::CB, P::THREADS, SM>>>(dX, dDY, nullptr, dP);
    reduce_partials<C><<<(C * 49 + 127) / 128, 128>>>(dP, slots, dW32, dWb);
  };
  CK(cudaMemset(dW32, 0xFF, C * 49 * 4));
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> dw(C * 49);
  CK(cudaMemcpy(dw.data(), dW32, dw.size() * 4, cudaMemcpyDeviceToHost));
  char what[160];
  snprintf(what, sizeof what, "pipe N%d %dx%d C%d TH%d TW%d warps %d CGS%d, %d tiles over %d slots (occupancy %d/SM, %d B smem)",
           N, H, W, C, TH, TW, WARPS, CGS, P::TILES, slots, occ, SM);
  if (!check(what, dw, ref, (double)N * H * W)) return false;
  const std::vector<float> t = time_rounds(launch);
  printf("  median %.2f us (min %.2f, max %.2f) both kernels, %.0f GB/s\n", t[4], t[0], t[8],
         2.0 * N * H * W * C * 2 / (t[4] * 1e3));
  return true;
}

template <int N, int H, int W, int C>
bool shape() {
  std::vector<bf16> x, dy;
  fill<N, H, W, C>(x, dy);
  std::vector<double> ref;
  reference<N, H, W, C>(x, dy, ref);
  bf16 *dX, *dDY, *dWb;
  float *dP, *dW32;
  CK(cudaMalloc(&dX, x.size() * 2));
  CK(cudaMalloc(&dDY, dy.size() * 2));
  CK(cudaMalloc(&dP, (size_t)N * H * W * C * 49 / 16 * 4 + (1 << 20)));  // >= any tiling's partials
  CK(cudaMalloc(&dW32, C * 49 * 4));
  CK(cudaMalloc(&dWb, C * 49 * 2));
  CK(cudaMemcpy(dX, x.data(), x.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dDY, dy.data(), dy.size() * 2, cudaMemcpyHostToDevice));
  bool ok = true;
  ok = gpu_pipe<N, H, W, C, (H + 1) / 2, 16, 4, 1>(dX, dDY, dP, dW32, dWb, ref) && ok;
  ok = gpu_pipe<N, H, W, C, H, 16, 4, 1>(dX, dDY, dP, dW32, dWb, ref) && ok;
  ok = gpu_pipe<N, H, W, C, (H + 3) / 4, 16, 2, 1>(dX, dDY, dP, dW32, dWb, ref) && ok;
  ok = gpu_pipe<N, H, W, C, (H + 1) / 2, 32, 4, 1>(dX, dDY, dP, dW32, dWb, ref) && ok;
  ok = gpu_pipe<N, H, W, C, (H + 3) / 4, 16, 4, 2>(dX, dDY, dP, dW32, dWb, ref) && ok;
  if constexpr (H >= 28) {
    ok = gpu_case<N, H, W, C, H, 16, 4, false>(dX, dDY, dP, dW32, dWb, ref) && ok;
    ok = gpu_case<N, H, W, C, H, 16, 4, true>(dX, dDY, dP, dW32, dWb, ref) && ok;
    ok = gpu_case<N, H, W, C, 28, 32, 4, true>(dX, dDY, dP, dW32, dWb, ref) && ok;
    ok = gpu_case<N, H, W, C, H, 16, 4, true, 2>(dX, dDY, dP, dW32, dWb, ref) && ok;
    ok = gpu_case<N, H, W, C, H / 2, 16, 8, true, 4>(dX, dDY, dP, dW32, dWb, ref) && ok;
    ok = gpu_case<N, H, W, C, H / 4, 16, 8, true, 4>(dX, dDY, dP, dW32, dWb, ref) && ok;
  }
  ok = gpu_case<N, H, W, C, H, 16, 2, true>(dX, dDY, dP, dW32, dWb, ref) && ok;
  ok = gpu_case<N, H, W, C, (H + 1) / 2, 16, 2, true>(dX, dDY, dP, dW32, dWb, ref) && ok;
  ok = gpu_case<N, H, W, C, H, 16, 4, true, 4>(dX, dDY, dP, dW32, dWb, ref) && ok;
  CK(cudaFree(dX));
  CK(cudaFree(dDY));
  CK(cudaFree(dP));
  CK(cudaFree(dW32));
  CK(cudaFree(dWb));
  return ok;
}

int main() {
  bool ok = shape<32, 56, 56, 96>();
  ok = shape<32, 28, 28, 192>() && ok;
  ok = shape<32, 14, 14, 384>() && ok;
  ok = shape<32, 7, 7, 768>() && ok;
  printf("%s\n", ok ? "VERIFIED" : "NOT VERIFIED");
  return ok ? 0 : 1;
}
#endif
#ifdef __CUDACC_RTC__
template __global__ void dw7w<32, 56, 56, 96, 56, 16, 4, true, 1>(const void*, const void*, void*, void*);
template __global__ void dw7w<32, 56, 56, 96, 28, 32, 4, true, 1>(const void*, const void*, void*, void*);
template __global__ void dw7w_pipe<32, 56, 56, 96, 28, 16, 4, 1>(const void*, const void*, void*, void*);
template __global__ void dw7w_pipe<32, 56, 56, 96, 14, 16, 4, 2>(const void*, const void*, void*, void*);
#endif
