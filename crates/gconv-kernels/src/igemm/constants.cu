// ---- derived constants ----
constexpr int M_ = N_ * OD * OH * OW;
constexpr int C_ = G_ * CG;
constexpr int K_ = G_ * KG;
constexpr int CEFF = GM * CG;  // merged input channels of one CTA
constexpr int NEFF = GM * KG;  // merged output channels of one CTA
constexpr int NGB = (G_ + GM - 1) / GM;  // merged group blocks, the last one short where GM does not divide G
// A tail (rules::merge_tail): the last block's missing groups are channels past C_ and K_ and
// weight rows past G_, which the loaders read as zeros; nothing of theirs is stored.
constexpr bool GTAIL = G_ % GM != 0;
constexpr int TAPS = FZ * FY * FX;
// Tap packing: when the merged channels are fewer than tile_k and divide it, one k-tile holds
// TPK consecutive taps (k = tap_in_tile * CEFF + channel); otherwise a k-tile is one tap and
// one block of tile_k channels. Either way the reduction runs taps outer, channels inner.
constexpr bool PACK = CEFF < BK && BK % CEFF == 0;
constexpr int TPK = PACK ? BK / CEFF : 1;
constexpr int CBLK = PACK ? 1 : (CEFF + BK - 1) / BK;
constexpr int KT = PACK ? (TAPS + TPK - 1) / TPK : TAPS * CBLK;
constexpr int KPS = (KT + SPLIT - 1) / SPLIT;
// Math threads (CTHREADS: the warps of the tile), the CTA's threads (THREADS: with the producer
// warpgroups of the warp-specialised schedule, PTHREADS threads, GCONV_WS) and the loader
// threads (LTHREADS: every thread, or the producers alone).
constexpr int CTHREADS = 32 * WARPS_M * WARPS_N;
constexpr int THREADS = CTHREADS + PTHREADS;
constexpr int LTHREADS = GCONV_WS ? PTHREADS : THREADS;
constexpr int WM = BM / WARPS_M;
constexpr int WN = BN / WARPS_N;
static_assert(WM > 0 && WN > 0, "warp tile");
constexpr int ROWB = BK * ESZ;  // bytes per shared-memory tile row
// MN-major tiles (A_MMAJOR, B_NMAJOR): BK rows of the M (or N) extent in panels of PANEL
// elements (128 bytes) of BK rows each; mn_offset is the byte offset of (k, x) before the swizzle.
constexpr int PANEL = 128 / ESZ;
constexpr int mn_offset(int k, int x) { return (x / PANEL) * (BK * 128) + k * 128 + (x % PANEL) * ESZ; }
// (The halo path keeps no A stages: its A operand is the halo buffers after the B stages.)
constexpr int A_STAGE = HALO ? 0 : A_MMAJOR ? (BM + PANEL - 1) / PANEL * (BK * 128) : BM * ROWB;
constexpr int B_STAGE = B_NMAJOR ? (BN + PANEL - 1) / PANEL * (BK * 128) : BN * ROWB;
constexpr int OUT_ESZ = SPLIT > 1 ? 4 : ESZ;
// split-K partial planes: one output-sized f32 plane per slice (split_reduce.cu)
constexpr long long RED_PLANE = WGRAD ? (long long)K_ * TAPS * CG : (long long)M_ * K_;
constexpr int RED_SPLIT = SPLIT;
constexpr int CROW = BN + CPAD;  // epilogue staging row, elements
constexpr bool CHECK_D = !(FZ == 1 && PD == 0);
constexpr bool CHECK_H = !(FY == 1 && PH == 0);
constexpr bool A_PARTIAL = (CEFF % BK) != 0;
constexpr bool A_SYNC = VA * ESZ == 2;  // 2-byte elements: register-staged loads
constexpr bool B_SYNC = VB * ESZ == 2;
constexpr int imin(int a, int b) { return a < b ? a : b; }
constexpr int pow2floor(int x) { return x <= 1 ? 1 : 2 * pow2floor(x / 2); }
// Loader layout (over the LTHREADS loader threads): TPR threads share one tile row (CPT chunks
// each, interleaved for coalescing), RPI rows per pass, R passes; TPR is capped so that a
// thread holds at most 8 rows of state.
constexpr int CPR_A = BK / VA;
constexpr int TPR_A = imin(CPR_A, imin(LTHREADS, pow2floor(8 * LTHREADS / BM)));
constexpr int CPT_A = CPR_A / TPR_A, RPI_A = LTHREADS / TPR_A, RA = (BM + RPI_A - 1) / RPI_A;
constexpr int CPR_B = BK / VB;
constexpr int TPR_B = imin(CPR_B, imin(LTHREADS, pow2floor(8 * LTHREADS / BN)));
constexpr int CPT_B = CPR_B / TPR_B, RPI_B = LTHREADS / TPR_B, RB = (BN + RPI_B - 1) / RPI_B;
constexpr int CPR_C = BN / VC, C_CHUNKS = BM * CPR_C;
constexpr int OFF_INVALID = -(1 << 30);
static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "tile / warps");
static_assert(BK % VA == 0 && BK % VB == 0 && BN % VC == 0, "vector widths");

typedef ELEM elem_t;


// The halo path's output pixel of GEMM row m, a pixel of the padded image (HP x WP per image):
// -1 for the rows past the output image (h >= OH or w >= OW), computed and not stored.
__device__ __forceinline__ int halo_pixel(int m) {
  const int n = m / (HP * WP), r = m % (HP * WP);
  const int h = r / WP, w = r % WP;
  return h < OH && w < OW ? (n * OH + h) * OW + w : -1;
}
