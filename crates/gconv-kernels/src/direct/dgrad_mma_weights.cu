  // Weights of the CTA's channels (zero for channels beyond K), and the zero padding of each
  // row past TAPS·CG (read by the last k16 step). Backward data: the dual's weights are not
  // contiguous in the original filter, so each element is gathered through dgrad_w_index
  // (flip and channel transpose in the addressing), output channel fastest (the channels of a
  // group are adjacent in W: with K/G of the dual a multiple of 8, eight of them per 16-byte
  // read), with plain stores that the first tile's barrier publishes.
  if constexpr (GM == 1 && KG % 8 == 0) {
    // Whole 16-byte reads: for one (group, kk, tap) the filter holds the dual's KG output
    // channels of the group contiguously, so one read gives weight r of 8 adjacent dual
    // output channels (rows kv·8 … kv·8 + 7), each value stored to its own row. Weight r is
    // fastest across the threads, so a store of the warp fills consecutive elements of one
    // row (rows eight apart are a multiple of 128 bytes apart: vector-fastest stores would
    // meet in one bank).
    // The reads are batched (stage_batched).
    constexpr int KV = BN / 8;
    stage_batched<KV * WPK>(
        tid,
        [&](int i) {
          const int k = k0 + i / WPK * 8;
          v16b v = {0u, 0u, 0u, 0u};
          if (k < K_) v = *reinterpret_cast<const v16b*>(Wt + dgrad_w_index<CG, KG>(k, i % WPK));
          return v;
        },
        [&](int i, v16b v) { store_column8(ws + i / WPK * 8 * WROW + i % WPK, WROW, v); });
  } else if constexpr (GM == 1) {
    stage_batched<BN * WPK>(
        tid,
        [&](int i) {
          const int kl = i % BN;
          return k0 + kl < K_ ? Wt[dgrad_w_index<CG, KG>(k0 + kl, i / BN)] : (elem_t)0;
        },
        [&](int i, elem_t v) { ws[i % BN * WROW + i / BN] = v; });
  } else {
    // Merged groups: the real weights of the CTA's channels, BN rows of TAPS·CG0 elements of
    // the dual's real groups (CG0 x KG0), into the raw area, expanded into block-diagonal rows
    // before the first tile's math (expand_merged). For one (group, kk, tap) the filter holds
    // the dual's KG0 output channels of the group contiguously: each read gives weight r of
    // VW adjacent raw rows (copy_column), r fastest across the threads.
    constexpr int VW = KG0 % 8 == 0 ? 8 : KG0 % 4 == 0 ? 4 : KG0 % 2 == 0 ? 2 : 1;
    constexpr int RW = TAPS * CG0;  // weights of one raw row
    for (int i = tid; i < (BN / VW) * RW; i += THREADS) {
      const int kv = i / RW;
      const int r = i - kv * RW;
      const int k = k0 + kv * VW;
      const bool ok = k < K_;
      const u16* src = reinterpret_cast<const u16*>(Wt) + (ok ? dgrad_w_index<CG0, KG0>(k, r) : 0);
      copy_column<VW>(reinterpret_cast<u16*>(raw) + kv * VW * RW + r, RW, src, ok);
    }
  }
