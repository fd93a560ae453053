// ---- backward data (dgrad) as a forward convolution ----
// The module computes dX = fwd(dY, W') on the dual problem (Problem::dgrad_dual: stride 1,
// padding dil·(F−1) − pad, C' = K, K' = C): every constant above is the dual's, in0 is dY (the
// dual's input), out is dX (its output). Only the weights differ: W' is the original filter
// flipped in space and transposed in channels, W'[g][c][tap][kk] = W[g][kk][TAPS−1−tap][c],
// and it is never materialised; the staging loop reads W through this index.
//
// Element of W (laid out G, K/G, taps, C/G of the dgrad problem, i.e. [G][CGW][TAPS][KGW]) that
// is weight r = tap·CGW + kk of the dual's output channel k = g·KGW + c, for a dual of CGW
// input and KGW output channels per group (the real groups: CG, KG, or CG0, KG0 when groups
// are merged on the mma path).
template <int CGW, int KGW>
__device__ __forceinline__ int dgrad_w_index(int k, int r) {
  const int g = k / KGW;
  const int c = k - g * KGW;
  const int tap = r / CGW;
  const int kk = r - tap * CGW;
  return ((g * CGW + kk) * TAPS + (TAPS - 1 - tap)) * KGW + c;
}
