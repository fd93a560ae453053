  // Weights of the CTA's channels (zero for channels beyond K), and the zero padding of each
  // row past TAPS·CG (read by the last k16 step). Backward data: the dual's weights are not
  // contiguous in the original filter, so each element is gathered through dgrad_w_index
  // (flip and channel transpose in the addressing), output channel fastest (the channels of a
  // group are adjacent in W), with plain stores that the first tile's barrier publishes.
  if constexpr (GM == 1) {
    for (int i = tid; i < BN * WPK; i += THREADS) {
      const int kl = i % BN;
      const int r = i / BN;
      ws[kl * WROW + r] = k0 + kl < K_ ? Wt[dgrad_w_index<CG, KG>(k0 + kl, r)] : (elem_t)0;
    }
  } else {
    // Merged groups: the real weights of the CTA's channels, BN rows of TAPS·CG0 elements of
    // the dual's real groups (CG0 x KG0), into the raw area, expanded into block-diagonal rows
    // before the first tile's math (expand_merged).
    for (int i = tid; i < BN * TAPS * CG0; i += THREADS) {
      const int kl = i % BN;
      const int r = i / BN;
      raw[kl * (TAPS * CG0) + r] =
          k0 + kl < K_ ? Wt[dgrad_w_index<CG0, KG0>(k0 + kl, r)] : (elem_t)0;
    }
  }
