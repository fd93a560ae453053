  // Weights of the CTA's channels, 16-byte copies (zero for channels beyond K), and the zero
  // padding of each row past TAPS·CG (read by the last k16 step).
  if constexpr (GM == 1) {
    for (int i = tid; i < BN * WCH; i += THREADS) {
      const int kl = i / WCH;
      const int q = i - kl * WCH;
      const bool ok = k0 + kl < K_;
      copy_to_smem<16>(ws + kl * WROW + q * 8, Wt + (ok ? (k0 + kl) * WPK + q * 8 : 0), ok);
    }
  } else {
    // Merged groups (GM of the problem's groups of CG0 x KG0 channels per kernel group of
    // CG x KG): the CTA's real weights, BN rows of TAPS·CG0 elements, are one contiguous
    // block of global memory (a multiple of 16 bytes: BN, K and k0 are multiples of 8); they
    // land in the raw area with the first tile's copies and are expanded into block-diagonal
    // rows before the first tile's math (expand_merged).
    constexpr int RAWCH = BN * TAPS * CG0 / 8;
    const int valid = (K_ - k0 < BN ? K_ - k0 : BN) * TAPS * CG0 / 8;  // rows: a multiple of 8
    for (int i = tid; i < RAWCH; i += THREADS) {
      const bool ok = i < valid;
      copy_to_smem<16>(raw + i * 8, Wt + (ok ? k0 * TAPS * CG0 + i * 8 : 0), ok);
    }
  }
