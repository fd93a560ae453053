  // 2. Weights of the CTA's output channels, widened to f32 and transposed to [tap·CG][BN]
  //    (zero for channels beyond K); loaded once per CTA. Backward data: gathered from the
  //    original filter through dgrad_w_index (flip and channel transpose in the addressing),
  //    output channel fastest, so that the channels of a group are adjacent both in W and in
  //    the shared-memory row.
  //    Each thread's reads in batches issued before their stores (gather_batched).
  gather_batched<THREADS>(
      tid, BN * WPK,
      [&](int i) {
        const int kl = i % BN;
        return k0 + kl < K_ ? to_f32(Wt[dgrad_w_index<CG, KG>(k0 + kl, i / BN)]) : 0.0f;
      },
      [&](int i, float v) { ws[i] = v; });
