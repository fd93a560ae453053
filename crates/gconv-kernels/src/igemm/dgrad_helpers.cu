// ---- backward-data helpers: stride phases and the register transpose of the filter ----
constexpr int gcd_i(int a, int b) { return b == 0 ? a : gcd_i(b, a % b); }

// One spatial dimension of a stride phase. With stride S, padding P, dilation DL, filter F and
// dX extent I, phase rho holds the dX positions hi = hi0 + S*q (q < cnt) with hi + P = rho
// (mod S). The filter taps that reach them are y = y0 + j*(S/g), j < nt, g = gcd(S, DL): the
// taps with y*DL = rho (mod S). Tap j of position q reads dY at base + q - j*(DL/g). At stride 1
// there is one phase, every tap, and dY position hi + P - y*DL: the filter walked backwards
// over dY, which is the spatial flip of the transposed convolution.
struct PhaseDim {
  int hi0, cnt, nt, y0, base;
};
template <int S, int P, int DL, int F, int I>
__device__ __forceinline__ PhaseDim phase_dim(int rho) {
  PhaseDim d;
  if constexpr (S == 1) {
    (void)rho;
    d.hi0 = 0;
    d.cnt = I;
    d.nt = F;
    d.y0 = 0;
    d.base = P;
  } else {
    constexpr int g = gcd_i(S, DL);
    constexpr int YSTEP = S / g;
    d.hi0 = ((rho - P) % S + S) % S;
    d.cnt = d.hi0 < I ? (I - d.hi0 + S - 1) / S : 0;
    int y0 = F;  // no tap
    if (rho % g == 0) {
      for (int y = 0; y < YSTEP; ++y) {
        if ((y * DL) % S == rho) {
          y0 = y;
          break;
        }
      }
    }
    d.y0 = y0;
    d.nt = y0 < F ? (F - y0 + YSTEP - 1) / YSTEP : 0;
    // Both quotients are exact: hi0 + P = rho and y0*DL = rho (mod S), and neither is negative.
    d.base = d.nt > 0 ? (d.hi0 + P - rho) / S - (y0 * DL - rho) / S : 0;
  }
  return d;
}

// Loads BYTES (16, 8, 4 or 2) from global memory into words (zero when !ok).
template <int BYTES>
__device__ __forceinline__ void load_words(u32* w, const void* src, bool ok) {
  if constexpr (BYTES == 16) {
    const v16b v = ok ? *reinterpret_cast<const v16b*>(src) : v16b{0u, 0u, 0u, 0u};
    w[0] = v.x;
    w[1] = v.y;
    w[2] = v.z;
    w[3] = v.w;
  } else if constexpr (BYTES == 8) {
    const v8b v = ok ? *reinterpret_cast<const v8b*>(src) : v8b{0u, 0u};
    w[0] = v.x;
    w[1] = v.y;
  } else if constexpr (BYTES == 4) {
    w[0] = ok ? *reinterpret_cast<const u32*>(src) : 0u;
  } else {
    w[0] = ok ? (u32) * reinterpret_cast<const u16*>(src) : 0u;
  }
}

// Stores BYTES (16, 8, 4 or 2) of words to shared memory.
template <int BYTES>
__device__ __forceinline__ void store_words(void* dst, const u32* w) {
  if constexpr (BYTES == 16) {
    *reinterpret_cast<v16b*>(dst) = v16b{w[0], w[1], w[2], w[3]};
  } else if constexpr (BYTES == 8) {
    *reinterpret_cast<v8b*>(dst) = v8b{w[0], w[1]};
  } else if constexpr (BYTES == 4) {
    *reinterpret_cast<u32*>(dst) = w[0];
  } else {
    *reinterpret_cast<u16*>(dst) = (u16)w[0];
  }
}

// Column r of a V x V block of ESZ-byte elements held as rows of words (row i = V elements):
// the V elements (i, r), i = 0..V-1, packed as words.
template <int V, int ES, int WORDS>
__device__ __forceinline__ void block_column(const u32 (&rows)[V][WORDS], int r, u32 (&out)[WORDS]) {
  if constexpr (ES == 4) {
#pragma unroll
    for (int i = 0; i < V; ++i) out[i] = rows[i][r];
  } else if constexpr (V == 1) {
    out[0] = rows[0][0];
  } else {
#pragma unroll
    for (int q = 0; q < V / 2; ++q) {
      const u32 lo = rows[2 * q][r / 2], hi = rows[2 * q + 1][r / 2];
      out[q] = (r % 2 == 0) ? low_halves(lo, hi) : high_halves(lo, hi);
    }
  }
}
