// Prototype (session 42, not product code): 7x7 depthwise convolution (stride 1, padding 3,
// bf16 NHWC) on mma.sync with the input read straight from an NHWC tile in shared memory, to
// measure whether the zoo's 7x7 depthwise layers (issue #12's backward data is the same
// problem with the filter flipped in space) can leave both the CUDA-core direct kernel and
// the banded kernel (direct/fwd_banded.cu, which transposes its staged input into
// per-channel planes) behind.
//
// Per channel, one m16n8k16 per filter row ty covers 16 output rows x 8 output columns:
//   A[m][k] = Xs[m + ty][k]           (k: 16 consecutive staged columns, an even offset)
//   B[k][n] = Wt[ty][k - n]           (the filter row as a band: zero unless 0 <= k - n < 7)
//   D[m][n] = Y[y0 + m][x0 + n]
// so the A fragment of lane (g, q) is staged pixels (row g + ty (+ 8), columns 2q, 2q + 1
// (+ 8)): two 16-byte loads (pixel 2q and 2q + 1, 8 channels each) and a byte permute per
// channel give that lane's A register of each of 8 channels. The tile (16·WR rows x 8·MCH·WC
// columns x 8 channels, one warp per 16 x 8·MCH block) is staged by cp.async as raw NHWC
// pixels, zero outside the image, double buffered over the CTA's tiles; the banded B
// fragments of the CTA's 8 channels are built once into shared memory. Outputs leave as
// 16-byte stores (a lane holds all 8 channels of its pixels).
//
// GPU (on the device machine):
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/dw7 results/h100/s42/proto/dw7_mma.cu && /tmp/dw7
// CPU (the host-emulation shim of crates/gconv-kernels/tests, a small problem):
//   g++ -std=c++20 -O1 -I crates/gconv-kernels/tests -DDW7_HOST -o /tmp/dw7h -x c++ results/h100/s42/proto/dw7_mma.cu && /tmp/dw7h
// Both verify every output against a naive reference before anything is timed.
#include "dw7_common.h"

// The B fragments of every channel (a pass over the filter, 32x its size): for channel block
// cb, unit (ty, pair, lane) of lane (g, q) holds b0 = taps (ty, 2q - g), (ty, 2q + 1 - g) and
// b1 = taps (ty, 2q + 8 - g), (ty, 2q + 9 - g) (zero outside the filter) of channel 8cb + 2·pair,
// then of 8cb + 2·pair + 1. in0 = Wt [C][7][7], out = the table [C / 8][7 x 4 x 32] (16 bytes).
__global__ void build_b(const void* in0, const void* in1, void* out, void* ws) {
  const bf16* Wt = reinterpret_cast<const bf16*>(in0);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // grid: C / 8 x 896 units exactly
  const int cb = i / 896, ty = (i % 896) / 128, pr = (i / 32) % 4, l = i % 32, g = l / 4, q = l % 4;
  u32 v[4];
  for (int h = 0; h < 2; ++h) {
    const int c = 8 * cb + 2 * pr + h;
    auto w = [&](int tx) -> u32 { return (tx >= 0 && tx < F) ? (u32)Wt[(c * F + ty) * F + tx] : 0u; };
    v[2 * h] = w(2 * q - g) | (w(2 * q + 1 - g) << 16);
    v[2 * h + 1] = w(2 * q + 8 - g) | (w(2 * q + 9 - g) << 16);
  }
  reinterpret_cast<uint4*>(out)[i] = uint4{v[0], v[1], v[2], v[3]};
}

// X [N][H][W][C], Wt [C][7][7], Y [N][H][W][C]; grid (CTAs over tiles, C / 8).
template <int N, int H, int W, int C, int WR, int WC, int MCH, int CGS>
struct Dw7 {
  static constexpr int THREADS = 32 * WR * WC * CGS;  // CGS groups of 8 channels, a warp each
  static constexpr int TH = 16 * WR, TW = 8 * MCH * WC;
  static constexpr int SR = TH + F - 1, SC = TW + 8;  // staged rows, columns
  static constexpr int RS = SC | 1;                   // row stride in 16-byte pixels (odd: banks)
  static constexpr int PS = CGS == 1 ? 1 : CGS + 1;   // pixel stride in 16-byte units (odd)
  static constexpr int STAGE = SR * RS * PS;          // 16-byte units of one stage
  static constexpr int BUNITS = F * 4 * 32;           // B fragments: [ty][channel pair][lane]
  static constexpr int SMEM = (CGS * BUNITS + 2 * STAGE) * 16;
  static constexpr int CB = C / (8 * CGS);            // channel blocks
  static constexpr int TY = (H + TH - 1) / TH, TX = (W + TW - 1) / TW, TILES = N * TY * TX;
};

// CBF: a 1D grid with the channel block fastest (the C / 8 CTAs of a tile start together, so
// the 16-byte pieces of a pixel that they read and write meet in L2); else grid (x, C / 8).
template <int N, int H, int W, int C, int WR, int WC, int MCH, bool CBF, int CGS>
__global__ void __launch_bounds__(32 * WR * WC * CGS, 1) dw7(const void* in0, const void* in1, void* out, void* ws) {
  using P = Dw7<N, H, W, C, WR, WC, MCH, CGS>;
#ifdef DW7_HOST
  uint4* sm = reinterpret_cast<uint4*>(gconv_host_smem);
#else
  extern __shared__ __align__(128) unsigned char smem_raw[];
  uint4* sm = reinterpret_cast<uint4*>(smem_raw);
#endif
  const bf16* X = reinterpret_cast<const bf16*>(in0);
  bf16* Y = reinterpret_cast<bf16*>(out);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, q = lane % 4;
  const int cbi = CBF ? (int)blockIdx.x % P::CB : (int)blockIdx.y;  // channel block
  const int bx = CBF ? (int)blockIdx.x / P::CB : (int)blockIdx.x;   // first tile
  const int gx = CBF ? (int)gridDim.x / P::CB : (int)gridDim.x;     // tile stride
  const int c0 = cbi * 8 * CGS;
  const int grp = warp % CGS;  // the warp's group of 8 channels: c0 + 8·grp ...
  uint4* bs = sm;
  uint4* st0 = sm + CGS * P::BUNITS;
  auto stage = [&](int t, int buf) {
    const int n = t / (P::TY * P::TX), y0 = (t / P::TX) % P::TY * P::TH, x0 = t % P::TX * P::TW;
    const u32 base = smem_addr(st0 + buf * P::STAGE);
    // Each thread keeps one (column, channel group) and walks rows with fixed increments (no
    // division per copy).
    constexpr int COLS = P::SC * CGS, STEP = P::THREADS / COLS;
    static_assert(STEP >= 1, "a pass covers a row");
    const int kk = tid % COLS, gi = kk % CGS, k = kk / CGS, ix = x0 - PAD + k;
    const bool cok = (unsigned)ix < (unsigned)W && tid < STEP * COLS;
    u32 dst = base + (u32)((((tid / COLS) * P::RS + k) * P::PS + gi) * 16);
    long long src = (((long long)n * H + y0 - PAD + tid / COLS) * W + ix) * C + c0 + 8 * gi;
    for (int r = tid / COLS; r < P::SR && tid < STEP * COLS; r += STEP) {
      const int iy = y0 - PAD + r;
      const bool ok = cok && (unsigned)iy < (unsigned)H;
      cp16(dst, X + (ok ? src : 0), ok);
      dst += STEP * P::RS * P::PS * 16;
      src += (long long)STEP * W * C;
    }
  };
  int t = bx;
  if (t < P::TILES) stage(t, 0);
  cp_commit();
  // The B fragment table of the CTA's 8 channels (build_b), with the first stage.
  {
    const uint4* tab = reinterpret_cast<const uint4*>(ws) + cbi * CGS * P::BUNITS;
    const u32 base = smem_addr(bs);
    for (int i = tid; i < CGS * P::BUNITS; i += P::THREADS) cp16(base + 16 * i, tab + i, true);
    cp_commit();
  }
  const int wr = warp / CGS / WC, wc = warp / CGS % WC;
  const int r0 = 16 * wr, k0 = 8 * MCH * wc;
  for (int buf = 0; t < P::TILES; t += gx, buf ^= 1) {
    if (t + gx < P::TILES) stage(t + gx, buf ^ 1);
    cp_commit();
    cp_wait1();
    __syncthreads();
    const uint4* xs = st0 + buf * P::STAGE;
    float acc[8][MCH][4];
#pragma unroll
    for (int ch = 0; ch < 8; ++ch)
#pragma unroll
      for (int j = 0; j < MCH; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[ch][j][i] = 0.f;
#pragma unroll
    for (int ty = 0; ty < F; ++ty) {
      uint4 bq[4];
#pragma unroll
      for (int p = 0; p < 4; ++p) bq[p] = bs[grp * P::BUNITS + (ty * 4 + p) * 32 + lane];
      u32 a[2][MCH + 1][8];
#pragma unroll
      for (int s = 0; s < 2; ++s) {
#pragma unroll
        for (int h = 0; h <= MCH; ++h) {
          const uint4* px = xs + ((r0 + g + 8 * s + ty) * P::RS + k0 + 8 * h + 2 * q) * P::PS + grp;
          const uint4 p0 = px[0], p1 = px[P::PS];
          const u32 w0[4] = {p0.x, p0.y, p0.z, p0.w}, w1[4] = {p1.x, p1.y, p1.z, p1.w};
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            a[s][h][2 * i] = lo_pair(w0[i], w1[i]);
            a[s][h][2 * i + 1] = hi_pair(w0[i], w1[i]);
          }
        }
      }
#pragma unroll
      for (int ch = 0; ch < 8; ++ch) {
        const uint4 b = bq[ch / 2];
        const u32 b0 = ch % 2 ? b.z : b.x, b1 = ch % 2 ? b.w : b.y;
#pragma unroll
        for (int j = 0; j < MCH; ++j) {
          const u32 af[4] = {a[0][j][ch], a[1][j][ch], a[0][j + 1][ch], a[1][j + 1][ch]};
          mma16816(acc[ch][j], af, b0, b1);
        }
      }
    }
    const int n = t / (P::TY * P::TX), y0 = (t / P::TX) % P::TY * P::TH, x0 = t % P::TX * P::TW;
#pragma unroll
    for (int j = 0; j < MCH; ++j) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int oy = y0 + r0 + g + 8 * (i / 2), ox = x0 + k0 + 8 * j + 2 * q + i % 2;
        if (oy < H && ox < W) {
          u32 v[4];
#pragma unroll
          for (int e = 0; e < 4; ++e) v[e] = pack_bf16(acc[2 * e][j][i], acc[2 * e + 1][j][i]);
          *reinterpret_cast<uint4*>(Y + (((long long)n * H + oy) * W + ox) * C + c0 + 8 * grp) = uint4{v[0], v[1], v[2], v[3]};
        }
      }
    }
    __syncthreads();  // the stage is read before the next iteration refills it
  }
}

#ifndef __CUDACC_RTC__
template <int N, int H, int W, int C>
void reference(const std::vector<bf16>& x, const std::vector<bf16>& w, std::vector<float>& y) {
  for (int n = 0; n < N; ++n)
    for (int oy = 0; oy < H; ++oy)
      for (int ox = 0; ox < W; ++ox)
        for (int c = 0; c < C; ++c) {
          float s = 0.f;
          for (int ty = 0; ty < F; ++ty)
            for (int tx = 0; tx < F; ++tx) {
              const int iy = oy - PAD + ty, ix = ox - PAD + tx;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              s += b2f(x[(((size_t)n * H + iy) * W + ix) * C + c]) * b2f(w[(c * F + ty) * F + tx]);
            }
          y[(((size_t)n * H + oy) * W + ox) * C + c] = s;
        }
}

// Every output against the reference: |y - ref| <= 0.02 + 0.01·|ref| (bf16 output rounding).
inline bool check(const char* what, const std::vector<bf16>& y, const std::vector<float>& ref) {
  size_t bad = 0;
  double maxerr = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double e = std::fabs((double)b2f(y[i]) - ref[i]);
    maxerr = std::max(maxerr, e);
    if (!(e <= 0.02 + 0.01 * std::fabs(ref[i]))) ++bad;
  }
  printf("%s: %zu of %zu outside tolerance, max abs err %.3g\n", what, bad, y.size(), maxerr);
  return bad == 0;
}

template <int N, int H, int W, int C>
void fill(std::vector<bf16>& x, std::vector<bf16>& w) {
  x.resize((size_t)N * H * W * C);
  w.resize((size_t)C * F * F);
  srand(7);
  for (auto& v : x) v = f2b((rand() % 2001 - 1000) / 1000.f);
  for (auto& v : w) v = f2b((rand() % 2001 - 1000) / 1000.f);
}

#ifdef DW7_HOST
template <int N, int H, int W, int C, int WR, int WC, int MCH, bool CBF, int CGS = 1>
bool host_case(int ctas) {
  using P = Dw7<N, H, W, C, WR, WC, MCH, CGS>;
  std::vector<bf16> x, w, y((size_t)N * H * W * C, 0xFFFF);
  std::vector<float> ref(y.size());
  fill<N, H, W, C>(x, w);
  reference<N, H, W, C>(x, w, ref);
  std::vector<uint4> tab((size_t)C / 8 * P::BUNITS);
  gconv_host_launch(build_b, dim3{(unsigned)(C / 8 * 7), 1, 1}, dim3{128, 1, 1}, 0, w.data(), nullptr, tab.data(), nullptr);
  gconv_host_launch(dw7<N, H, W, C, WR, WC, MCH, CBF, CGS>, CBF ? dim3{(unsigned)ctas * P::CB, 1, 1} : dim3{(unsigned)ctas, P::CB, 1}, dim3{P::THREADS, 1, 1},
                    P::SMEM, x.data(), nullptr, y.data(), tab.data());
  char what[128];
  snprintf(what, sizeof what, "host N%d %dx%d C%d WR%d WC%d MCH%d CBF%d CGS%d ctas %d", N, H, W, C, WR, WC, MCH, (int)CBF, CGS, ctas);
  return check(what, y, ref);
}
int main() {
  bool ok = host_case<2, 21, 19, 16, 1, 2, 2, false>(3);  // tails in both directions, 3 tiles a CTA
  ok = host_case<2, 21, 19, 16, 1, 2, 2, true>(3) && ok;
  ok = host_case<1, 37, 40, 8, 2, 2, 2, false>(2) && ok;
  ok = host_case<1, 37, 40, 24, 2, 2, 1, true>(2) && ok;
  ok = host_case<1, 7, 7, 16, 1, 1, 2, false>(1) && ok;
  ok = host_case<2, 21, 19, 32, 1, 2, 1, true, 2>(3) && ok;
  ok = host_case<1, 23, 30, 64, 2, 1, 2, false, 4>(2) && ok;
  printf("%s\n", ok ? "VERIFIED" : "NOT VERIFIED");
  return ok ? 0 : 1;
}
#elif !defined(__CUDACC_RTC__)

__global__ void ref_kernel(const bf16* X, const bf16* Wt, float* Y, int N, int H, int W, int C) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (size_t)N * H * W * C) return;
  const int c = i % C, ox = (i / C) % W, oy = (i / C / W) % H, n = i / C / W / H;
  float s = 0.f;
  for (int ty = 0; ty < F; ++ty)
    for (int tx = 0; tx < F; ++tx) {
      const int iy = oy - PAD + ty, ix = ox - PAD + tx;
      if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
      s += b2f(X[(((size_t)n * H + iy) * W + ix) * C + c]) * b2f(Wt[(c * F + ty) * F + tx]);
    }
  Y[i] = s;
}

template <int N, int H, int W, int C, int WR, int WC, int MCH, bool CBF, int CGS = 1>
bool gpu_case(const bf16* dX, const bf16* dW, uint4* dT, bf16* dY, const std::vector<float>& ref, int per_sm) {
  using P = Dw7<N, H, W, C, WR, WC, MCH, CGS>;
  auto k = dw7<N, H, W, C, WR, WC, MCH, CBF, CGS>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, P::SMEM));
  int occ = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, P::THREADS, P::SMEM));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int cb = P::CB;
  const int want = per_sm > 0 ? std::min(per_sm, occ) : occ;
  const int gx = std::max(1, std::min(P::TILES, (sms * want + cb - 1) / cb));
  const dim3 grid = CBF ? dim3(gx * cb) : dim3(gx, cb);
  CK(cudaMemset(dY, 0xFF, (size_t)N * H * W * C * 2));
  auto launch = [&] {  // the filter's fragment table, then the convolution
    build_b<<<C / 8 * 7, 128>>>(dW, nullptr, dT, nullptr);
    k<<<grid, P::THREADS, P::SMEM>>>(dX, nullptr, dY, dT);
  };
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<bf16> y((size_t)N * H * W * C);
  CK(cudaMemcpy(y.data(), dY, y.size() * 2, cudaMemcpyDeviceToHost));
  char what[160];
  snprintf(what, sizeof what, "N%d %dx%d C%d WR%d WC%d MCH%d CBF%d CGS%d grid %dx%d (occupancy %d/SM)", N, H, W, C, WR, WC, MCH, (int)CBF, CGS, gx, cb, occ);
  if (!check(what, y, ref)) return false;
  const std::vector<float> t = time_rounds(launch);
  const double bytes = 2.0 * N * H * W * C * 2;
  printf("  median %.2f us (min %.2f, max %.2f) both kernels, %.0f GB/s, %d B smem, %d tiles\n", t[4], t[0], t[8],
         bytes / (t[4] * 1e3), P::SMEM, P::TILES);
  return true;
}

template <int N, int H, int W, int C>
bool shape() {
  std::vector<bf16> x, w;
  fill<N, H, W, C>(x, w);
  bf16 *dX, *dW, *dY;
  float* dR;
  uint4* dT;
  const size_t nx = x.size();
  CK(cudaMalloc(&dT, (size_t)C / 8 * 896 * 16));
  CK(cudaMalloc(&dX, nx * 2));
  CK(cudaMalloc(&dW, w.size() * 2));
  CK(cudaMalloc(&dY, nx * 2));
  CK(cudaMalloc(&dR, nx * 4));
  CK(cudaMemcpy(dX, x.data(), nx * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dW, w.data(), w.size() * 2, cudaMemcpyHostToDevice));
  ref_kernel<<<(nx + 255) / 256, 256>>>(dX, dW, dR, N, H, W, C);
  CK(cudaDeviceSynchronize());
  std::vector<float> ref(nx);
  CK(cudaMemcpy(ref.data(), dR, nx * 4, cudaMemcpyDeviceToHost));
  bool ok = true;
  if constexpr (H >= 28) {
    ok = gpu_case<N, H, W, C, 1, 4, 1, false>(dX, dW, dT, dY, ref, 0) && ok;
    ok = gpu_case<N, H, W, C, 1, 4, 1, true>(dX, dW, dT, dY, ref, 0) && ok;
    ok = gpu_case<N, H, W, C, 2, 2, 1, true>(dX, dW, dT, dY, ref, 0) && ok;
    ok = gpu_case<N, H, W, C, 2, 2, 2, true>(dX, dW, dT, dY, ref, 0) && ok;
    ok = gpu_case<N, H, W, C, 1, 2, 1, true, 2>(dX, dW, dT, dY, ref, 0) && ok;
    ok = gpu_case<N, H, W, C, 1, 2, 1, true, 4>(dX, dW, dT, dY, ref, 0) && ok;
    ok = gpu_case<N, H, W, C, 1, 4, 1, true, 4>(dX, dW, dT, dY, ref, 0) && ok;
  }
  ok = gpu_case<N, H, W, C, 1, 2, 1, false>(dX, dW, dT, dY, ref, 0) && ok;
  ok = gpu_case<N, H, W, C, 1, 2, 1, true>(dX, dW, dT, dY, ref, 0) && ok;
  ok = gpu_case<N, H, W, C, 1, 1, 1, true>(dX, dW, dT, dY, ref, 0) && ok;
  ok = gpu_case<N, H, W, C, 1, 1, 1, true, 4>(dX, dW, dT, dY, ref, 0) && ok;
  CK(cudaFree(dX));
  CK(cudaFree(dW));
  CK(cudaFree(dY));
  CK(cudaFree(dR));
  CK(cudaFree(dT));
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
#endif  // !__CUDACC_RTC__
#ifdef __CUDACC_RTC__  // an NVRTC syntax and resource check of the variants timed on the GPU
template __global__ void dw7<32, 56, 56, 96, 2, 2, 2, true, 1>(const void*, const void*, void*, void*);
template __global__ void dw7<32, 56, 56, 96, 2, 2, 1, true, 1>(const void*, const void*, void*, void*);
template __global__ void dw7<32, 56, 56, 96, 1, 4, 1, true, 1>(const void*, const void*, void*, void*);
template __global__ void dw7<32, 56, 56, 96, 4, 1, 2, true, 1>(const void*, const void*, void*, void*);
template __global__ void dw7<32, 56, 56, 96, 1, 1, 2, true, 1>(const void*, const void*, void*, void*);
template __global__ void dw7<32, 56, 56, 96, 1, 2, 1, true, 4>(const void*, const void*, void*, void*);
#endif
