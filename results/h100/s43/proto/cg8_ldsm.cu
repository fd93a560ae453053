// Prototype (session 43, not product code): the 3D C/G 8 layer on mma.sync with every A
// fragment a fresh ldmatrix.x4 from a zero-padded, width-linearised input plane, and the
// group's weights held in registers for the whole CTA.
//
// Problem: the forward dual of the zoo's 3D C/G 8 backward-data key (N 8, G 32, C = K = 256,
// 8x28x28, 3x3x3, pad 1, stride 1): Y[n,z,y,x,g*8+k] = sum over taps and c of
// X[n,z+dz-1,y+dy-1,x+dx-1,g*8+c] * W[g,k,tap,c]. Backward data at stride 1 is this with the
// filter flipped and transposed, which only changes which weight a register holds.
//
// Session 41 measured the pool's fastest member issue bound at about 11 instructions per
// m16n8k16, a third of them register moves that slide A fragments along the filter row. Here
// no fragment slides: output pixels are linearised with the padded width (q = y*WP + x; the
// two columns x >= W are computed and dropped), so the A rows of tap (dz,dy,dx) for 16
// consecutive outputs are 16 consecutive 16-byte pixels of plane dz starting at q + dy*WP + dx:
// one ldmatrix.x4 per k16 step (two taps of one plane: rows 0-15 of tap 2j in matrices 0/1,
// of tap 2j+1 in 2/3; the ninth tap pairs with a zero B half). A warp owns every fourth m16
// block of its group, and walks the 15 k-steps outermost with all its blocks' accumulators
// live, so each step's address is a register plus a constant: two instructions per MMA.
// The cost moves to shared memory: 512 bytes of A per MMA, about 21 us on this layer at 128 B
// per cycle per SM — under the 4x-cuDNN time issue #12 asks (about 30 us).
//
// CTA: one image n, ZPC output depth slices, one pair of groups (8 warps: 0-3 the first group,
// 4-7 the second); it stages ZPC+2 input planes of both groups (zero-padded, 16 bytes a pixel,
// one plane per group so that ldmatrix rows are contiguous) with cp.async, then computes.
//
// Host check (no GPU):  g++ -std=c++20 -O1 -I crates/gconv-kernels/tests -I results/h100/s42/proto -DDW7_HOST -x c++ results/h100/s43/proto/cg8_ldsm.cu && ./a.out
// GPU (verifies every output against a naive f32 kernel before timing):
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -I results/h100/s42/proto -o /tmp/cg8 results/h100/s43/proto/cg8_ldsm.cu && /tmp/cg8
#include "dw7_common.h"

#ifdef DW7_HOST
__device__ __forceinline__ void ldsm_x4(u32 (&r)[4], u32 addr) { gconv_host_ldmatrix_x4(r, addr); }
#else
__device__ __forceinline__ void ldsm_x4(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
#endif

// Shapes (template so that the host check runs small ones).
template <int N_, int G_, int D_, int H_, int W_, int ZPC_>
struct Cg8 {
  static constexpr int N = N_, G = G_, C = G * 8, D = D_, H = H_, W = W_, ZPC = ZPC_;
  static constexpr int HP = H + 2, WP = W + 2;
  static constexpr int MQ = H * WP;               // linear outputs of a slice
  static constexpr int MB = (MQ + 15) / 16;       // m16 blocks of a slice
  static constexpr int BPW = (MB + 3) / 4;        // blocks per warp (four warps a group)
  static constexpr int PLANES = ZPC + 2;
  // Rows a plane must hold: the last block's last row plus the largest tap offset.
  static constexpr int PLANE_PX = ((BPW * 4 * 16 + 2 * WP + 2) + 7) / 8 * 8;
  static constexpr int PLANE_BYTES = PLANE_PX * 16;
  static constexpr int SMEM = PLANES * 2 * PLANE_BYTES;
  static constexpr int THREADS = 256;
  static constexpr int ZC = (D + ZPC - 1) / ZPC;  // depth chunks
  static constexpr int CTAS = N * ZC * (G / 2);
};

// The warp's B fragments for group g: 3 planes x 5 tap pairs x (b0, b1); n = lane/4 is the
// output channel, k = 2*(lane%4) (+1) the input channel; the tenth tap of a plane is zero.
__device__ __forceinline__ void load_b(const bf16* __restrict__ w, int g, int lane, u32 (&bf)[3][5][2]) {
#pragma unroll
  for (int p = 0; p < 3; ++p)
#pragma unroll
    for (int j = 0; j < 5; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int t = 2 * j + h;  // tap within the plane
        u32 v = 0;
        if (t < 9) {
          const bf16* src = w + (((size_t)g * 8 + lane / 4) * 27 + p * 9 + t) * 8 + 2 * (lane % 4);
          v = (u32)src[0] | ((u32)src[1] << 16);
        }
        bf[p][j][h] = v;
      }
}

// This lane's ldmatrix row within an m16 block (matrix m = lane/8: rows 8*(m&1) + lane%8, tap
// 2j + (m>>1)), and the byte offset of its tap in each of the 5 steps of a plane.
template <class P>
__device__ __forceinline__ int lane_taps(int lane, u32 (&toffs)[5]) {
  const int m = lane >> 3, half = m >> 1;
#pragma unroll
  for (int j = 0; j < 5; ++j) {
    int t = 2 * j + half;
    if (t > 8) t = 8;  // the zero B half: any valid row
    toffs[j] = (u32)(((t / 3) * P::WP + t % 3) * 16);
  }
  return 8 * (m & 1) + (lane & 7);
}

// One output slice of one group for warp wq of its four: the 15 k-steps outermost over the
// warp's blocks (lbase: this lane's row in block wq of a plane; plane p of the slice at
// lbase + pstride(p)), then the stores of the valid pixels of slice z.
template <class P, class PlaneOff>
__device__ __forceinline__ void slice(u32 lbase, PlaneOff pstride, const u32 (&toffs)[5], const u32 (&bf)[3][5][2],
                                      bf16* __restrict__ y, int n, int z, int g, int wq, int lane) {
  float acc[P::BPW][4];
#pragma unroll
  for (int i = 0; i < P::BPW; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;
#pragma unroll
  for (int p = 0; p < 3; ++p) {
    const u32 pbase = lbase + pstride(p);
#pragma unroll
    for (int j = 0; j < 5; ++j) {
      const u32 a0 = pbase + toffs[j];
#pragma unroll
      for (int i = 0; i < P::BPW; ++i) {
        u32 a[4];
        ldsm_x4(a, a0 + (u32)(i * 4 * 16 * 16));
        mma16816(acc[i], a, bf[p][j][0], bf[p][j][1]);
      }
    }
  }
  // Accumulator rows lane/4 and lane/4 + 8, columns 2*(lane%4), +1.
#pragma unroll
  for (int i = 0; i < P::BPW; ++i) {
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      const int q = (wq + 4 * i) * 16 + lane / 4 + 8 * hh;
      const int yy = q / P::WP, xx = q - yy * P::WP;
      if (q < P::MQ && xx < P::W) {
        const size_t off = ((((size_t)n * P::D + z) * P::H + yy) * P::W + xx) * P::C + g * 8 + 2 * (lane % 4);
        *reinterpret_cast<u32*>(y + off) = pack_bf16(acc[i][2 * hh], acc[i][2 * hh + 1]);
      }
    }
  }
}

template <class P>
__global__ void __launch_bounds__(256) cg8_fwd(const void* in0, const void* in1, void* out, void*) {
  const bf16* __restrict__ x = reinterpret_cast<const bf16*>(in0);
  const bf16* __restrict__ w = reinterpret_cast<const bf16*>(in1);
  bf16* __restrict__ y = reinterpret_cast<bf16*>(out);
#ifdef DW7_HOST
  unsigned char* smem = gconv_host_smem;
#else
  extern __shared__ __align__(128) unsigned char smem[];
#endif
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  int b = blockIdx.x;
  const int gp = b % (P::G / 2);
  b /= P::G / 2;
  const int zc = b % P::ZC;
  const int n = b / P::ZC;
  const int z0 = zc * P::ZPC;
  const u32 sbase = smem_addr(smem);
  // Stage planes z0-1 .. z0+ZPC of both groups: chunk i = (plane, pixel, group-in-pair).
  {
    constexpr int PER_PLANE = P::PLANE_PX * 2;
    for (int i = tid; i < P::PLANES * PER_PLANE; i += P::THREADS) {
      const int pl = i / PER_PLANE, r = i - pl * PER_PLANE;
      const int px = r >> 1, gs = r & 1;
      const int yy = px / P::WP, xx = px - yy * P::WP;
      const int zi = z0 - 1 + pl, yi = yy - 1, xi = xx - 1;
      const bool ok = px < P::HP * P::WP && zi >= 0 && zi < P::D && yi >= 0 && yi < P::H && xi >= 0 && xi < P::W;
      const size_t off = ok ? ((((size_t)n * P::D + zi) * P::H + yi) * P::W + xi) * P::C + (2 * gp + gs) * 8 : 0;
      cp16(sbase + (u32)((pl * 2 + gs) * P::PLANE_BYTES + px * 16), x + off, ok);
    }
    cp_commit();
  }
  const int gs = warp >> 2, g = 2 * gp + gs, wq = warp & 3;
  u32 bf[3][5][2];
  load_b(w, g, lane, bf);
  u32 toffs[5];
  const int row = lane_taps<P>(lane, toffs);
  cp_wait0();
  __syncthreads();
  const u32 lbase = sbase + (u32)(gs * P::PLANE_BYTES) + (u32)((wq * 16 + row) * 16);
  for (int zz = 0; zz < P::ZPC; ++zz) {
    const int z = z0 + zz;
    if (z >= P::D) break;
    slice<P>(lbase, [zz](int p) { return (u32)((zz + p) * 2 * P::PLANE_BYTES); }, toffs, bf, y, n, z, g, wq, lane);
  }
}

// The depth-streaming variant: CTA = (image n, GPC groups, ZCH output slices); a ring of four
// plane slots per group, the plane of slice z + 2 staged (cp.async) while slice z computes, so
// each input plane is staged once per chunk instead of three times. 4 * GPC warps. One
// barrier a slice: it orders both the landed copies before the reads and the reads of slice
// z - 1 before the copies into their slot.
template <class P, int GPC, int ZCH>
struct Cg8s {
  static constexpr int WARPS = 4 * GPC, THREADS = 32 * WARPS;
  static constexpr int SLOTS = 4;
  static constexpr int SMEM = SLOTS * GPC * P::PLANE_BYTES;
  static constexpr int ZC = (P::D + ZCH - 1) / ZCH;
  static constexpr int CTAS = P::N * ZC * (P::G / GPC);
};

// Stages input plane zi (zero outside the volume) of groups g0 .. g0 + GPC - 1 into ring slot
// `slot` (one commit group).
template <class P, int GPC>
__device__ __forceinline__ void stage_plane(u32 sbase, const bf16* __restrict__ x, int n, int zi, int g0, int slot,
                                            int tid, int threads) {
  constexpr int PER = P::PLANE_PX * GPC;
  for (int i = tid; i < PER; i += threads) {
    const int px = i / GPC, gs = i - px * GPC;
    const int yy = px / P::WP, xx = px - yy * P::WP;
    const int yi = yy - 1, xi = xx - 1;
    const bool ok = px < P::HP * P::WP && zi >= 0 && zi < P::D && yi >= 0 && yi < P::H && xi >= 0 && xi < P::W;
    const size_t off = ok ? ((((size_t)n * P::D + zi) * P::H + yi) * P::W + xi) * P::C + (g0 + gs) * 8 : 0;
    cp16(sbase + (u32)((slot * GPC + gs) * P::PLANE_BYTES + px * 16), x + off, ok);
  }
  cp_commit();
}

template <class P, int GPC, int ZCH>
__global__ void __launch_bounds__(128 * GPC) cg8_stream(const void* in0, const void* in1, void* out, void*) {
  using S = Cg8s<P, GPC, ZCH>;
  const bf16* __restrict__ x = reinterpret_cast<const bf16*>(in0);
  const bf16* __restrict__ w = reinterpret_cast<const bf16*>(in1);
  bf16* __restrict__ y = reinterpret_cast<bf16*>(out);
#ifdef DW7_HOST
  unsigned char* smem = gconv_host_smem;
#else
  extern __shared__ __align__(128) unsigned char smem[];
#endif
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  int b = blockIdx.x;
  const int gq = b % (P::G / GPC);
  b /= P::G / GPC;
  const int zc = b % S::ZC;
  const int n = b / S::ZC;
  const int z0 = zc * ZCH, z1 = z0 + ZCH < P::D ? z0 + ZCH : P::D;
  const int g0 = gq * GPC;
  const u32 sbase = smem_addr(smem);
  // Planes z0 - 1, z0, z0 + 1 (the slot of plane zi is (zi + 4) % 4).
  stage_plane<P, GPC>(sbase, x, n, z0 - 1, g0, (z0 + 3) & 3, tid, S::THREADS);
  stage_plane<P, GPC>(sbase, x, n, z0, g0, z0 & 3, tid, S::THREADS);
  stage_plane<P, GPC>(sbase, x, n, z0 + 1, g0, (z0 + 1) & 3, tid, S::THREADS);
  const int gs = warp >> 2, g = g0 + gs, wq = warp & 3;
  u32 bf[3][5][2];
  load_b(w, g, lane, bf);
  u32 toffs[5];
  const int row = lane_taps<P>(lane, toffs);
  const u32 lbase = sbase + (u32)(gs * P::PLANE_BYTES) + (u32)((wq * 16 + row) * 16);
  for (int z = z0; z < z1; ++z) {
    // Planes up to z + 1 have landed (every copy issued so far), and after the barrier every
    // thread is done with slice z - 1; then plane z + 2 goes into the slot of plane z - 2
    // (last read by slice z - 1) while slice z computes.
    cp_wait0();
    __syncthreads();
    if (z + 2 <= z1) stage_plane<P, GPC>(sbase, x, n, z + 2, g0, (z + 2) & 3, tid, S::THREADS);
    slice<P>(lbase, [z](int p) { return (u32)(((z + 3 + p) & 3) * GPC * P::PLANE_BYTES); }, toffs, bf, y, n, z, g,
             wq, lane);
  }
}

// The reference: f64 sums of the bf16 inputs.
template <class P>
void reference(const std::vector<bf16>& x, const std::vector<bf16>& w, std::vector<double>& ref) {
  ref.assign((size_t)P::N * P::D * P::H * P::W * P::C, 0.0);
  for (int n = 0; n < P::N; ++n)
    for (int z = 0; z < P::D; ++z)
      for (int yy = 0; yy < P::H; ++yy)
        for (int xx = 0; xx < P::W; ++xx)
          for (int g = 0; g < P::G; ++g)
            for (int k = 0; k < 8; ++k) {
              double s = 0;
              for (int t = 0; t < 27; ++t) {
                const int zi = z + t / 9 - 1, yi = yy + (t / 3) % 3 - 1, xi = xx + t % 3 - 1;
                if (zi < 0 || zi >= P::D || yi < 0 || yi >= P::H || xi < 0 || xi >= P::W) continue;
                for (int c = 0; c < 8; ++c)
                  s += (double)b2f(x[((((size_t)n * P::D + zi) * P::H + yi) * P::W + xi) * P::C + g * 8 + c]) *
                       b2f(w[(((size_t)g * 8 + k) * 27 + t) * 8 + c]);
              }
              ref[((((size_t)n * P::D + z) * P::H + yy) * P::W + xx) * P::C + g * 8 + k] = s;
            }
}

template <class P>
void fill(std::vector<bf16>& x, std::vector<bf16>& w) {
  x.resize((size_t)P::N * P::D * P::H * P::W * P::C);
  w.resize((size_t)P::G * 8 * 27 * 8);
  unsigned s = 12345;
  auto rnd = [&] {
    s = s * 1664525u + 1013904223u;
    return ((s >> 9) & 0xFFFF) / 32768.f - 1.f;
  };
  for (auto& v : x) v = f2b(rnd());
  for (auto& v : w) v = f2b(rnd() * 0.25f);
}

// Every output within a bf16 tolerance of the reference (27*8 products a sum).
inline bool check(const char* what, const std::vector<bf16>& y, const std::vector<double>& ref) {
  size_t bad = 0, first = 0;
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double e = std::fabs((double)b2f(y[i]) - ref[i]);
    const double tol = 1e-2 + 8e-3 * std::fabs(ref[i]);
    if (!(e <= tol)) {
      if (!bad) first = i;
      ++bad;
    }
    worst = std::max(worst, e);
  }
  if (bad)
    printf("%s: FAIL %zu of %zu outputs (first at %zu: %f vs %f)\n", what, bad, ref.size(), first, b2f(y[first]), ref[first]);
  else
    printf("%s: ok, %zu outputs, max abs err %.4f\n", what, ref.size(), worst);
  return bad == 0;
}

#ifdef DW7_HOST
template <class P>
bool host_case() {
  std::vector<bf16> x, w;
  fill<P>(x, w);
  std::vector<double> ref;
  reference<P>(x, w, ref);
  std::vector<bf16> y(ref.size(), 0xFFFF);
  gconv_host_launch(cg8_fwd<P>, dim3{(unsigned)P::CTAS, 1, 1}, dim3{P::THREADS, 1, 1}, P::SMEM, x.data(), w.data(),
                    y.data(), nullptr);
  char what[96];
  snprintf(what, sizeof what, "host N%d G%d %dx%dx%d ZPC%d", P::N, P::G, P::D, P::H, P::W, P::ZPC);
  return check(what, y, ref);
}
template <class P, int GPC, int ZCH>
bool host_stream() {
  using S = Cg8s<P, GPC, ZCH>;
  std::vector<bf16> x, w;
  fill<P>(x, w);
  std::vector<double> ref;
  reference<P>(x, w, ref);
  std::vector<bf16> y(ref.size(), 0xFFFF);
  gconv_host_launch(cg8_stream<P, GPC, ZCH>, dim3{(unsigned)S::CTAS, 1, 1}, dim3{S::THREADS, 1, 1}, S::SMEM, x.data(),
                    w.data(), y.data(), nullptr);
  char what[96];
  snprintf(what, sizeof what, "host stream N%d G%d %dx%dx%d GPC%d ZCH%d", P::N, P::G, P::D, P::H, P::W, GPC, ZCH);
  return check(what, y, ref);
}
int main() {
  bool ok = host_stream<Cg8<1, 2, 7, 5, 6, 1>, 1, 7>();
  ok = host_stream<Cg8<2, 4, 5, 7, 9, 1>, 2, 2>() && ok;
  ok = host_stream<Cg8<1, 2, 6, 12, 10, 1>, 1, 4>() && ok;
  ok = host_case<Cg8<1, 2, 3, 5, 6, 1>>() && ok;
  ok = host_case<Cg8<2, 4, 5, 7, 9, 2>>() && ok;
  ok = host_case<Cg8<1, 2, 4, 12, 10, 3>>() && ok;
  printf("%s\n", ok ? "VERIFIED" : "NOT VERIFIED");
  return ok ? 0 : 1;
}
#elif !defined(__CUDACC_RTC__)
// Launches kernel k (grid, threads, smem) once, checks every output, then times it; `what` is
// printf'd with the occupancy appended.
template <class K>
bool gpu_run(K k, int grid, int threads, int smem, const char* what, const bf16* dX, const bf16* dW, bf16* dY,
             const std::vector<double>& ref) {
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, threads, smem));
  auto launch = [&] { k<<<grid, threads, smem>>>(dX, dW, dY, nullptr); };
  const size_t outs = ref.size();
  CK(cudaMemset(dY, 0xFF, outs * 2));
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<bf16> y(outs);
  CK(cudaMemcpy(y.data(), dY, outs * 2, cudaMemcpyDeviceToHost));
  char full[200];
  snprintf(full, sizeof full, "%s (occupancy %d/SM, %d B smem)", what, occ, smem);
  if (!check(full, y, ref)) return false;
  const std::vector<float> t = time_rounds(launch);
  printf("  median %.2f us (min %.2f, max %.2f)\n", t[4], t[0], t[8]);
  return true;
}
template <class P>
bool gpu_case(const bf16* dX, const bf16* dW, bf16* dY, const std::vector<double>& ref) {
  char what[128];
  snprintf(what, sizeof what, "N%d G%d %dx%dx%d ZPC%d: %d CTAs, %d blocks/warp", P::N, P::G, P::D, P::H, P::W, P::ZPC,
           P::CTAS, P::BPW);
  return gpu_run(cg8_fwd<P>, P::CTAS, P::THREADS, P::SMEM, what, dX, dW, dY, ref);
}
template <class P, int GPC, int ZCH>
bool gpu_stream(const bf16* dX, const bf16* dW, bf16* dY, const std::vector<double>& ref) {
  using S = Cg8s<P, GPC, ZCH>;
  char what[128];
  snprintf(what, sizeof what, "stream GPC%d ZCH%d: %d CTAs of %d warps", GPC, ZCH, S::CTAS, S::WARPS);
  return gpu_run(cg8_stream<P, GPC, ZCH>, S::CTAS, S::THREADS, S::SMEM, what, dX, dW, dY, ref);
}
int main() {
  using P1 = Cg8<8, 32, 8, 28, 28, 1>;
  std::vector<bf16> x, w;
  fill<P1>(x, w);
  std::vector<double> ref;
  reference<P1>(x, w, ref);
  bf16 *dX, *dW, *dY;
  CK(cudaMalloc(&dX, x.size() * 2));
  CK(cudaMalloc(&dW, w.size() * 2));
  CK(cudaMalloc(&dY, ref.size() * 2));
  CK(cudaMemcpy(dX, x.data(), x.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dW, w.data(), w.size() * 2, cudaMemcpyHostToDevice));
  bool ok = gpu_case<P1>(dX, dW, dY, ref);
  ok = gpu_case<Cg8<8, 32, 8, 28, 28, 2>>(dX, dW, dY, ref) && ok;
  ok = gpu_case<Cg8<8, 32, 8, 28, 28, 4>>(dX, dW, dY, ref) && ok;
  ok = gpu_stream<P1, 1, 8>(dX, dW, dY, ref) && ok;
  ok = gpu_stream<P1, 1, 4>(dX, dW, dY, ref) && ok;
  ok = gpu_stream<P1, 2, 8>(dX, dW, dY, ref) && ok;
  ok = gpu_stream<P1, 2, 4>(dX, dW, dY, ref) && ok;
  ok = gpu_stream<P1, 1, 2>(dX, dW, dY, ref) && ok;
  printf("%s\n", ok ? "VERIFIED" : "NOT VERIFIED");
  return ok ? 0 : 1;
}
#endif
