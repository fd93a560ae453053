  // 2. Weights of the CTA's output channels, widened to f32 and transposed to [tap·CG][BN]
  //    (zero for channels beyond K); loaded once per CTA. Backward data: gathered from the
  //    original filter through dgrad_w_index (flip and channel transpose in the addressing),
  //    output channel fastest, so that the channels of a group are adjacent both in W and in
  //    the shared-memory row.
  for (int i = tid; i < BN * WPK; i += THREADS) {
    const int kl = i % BN;
    const int r = i / BN;
    float v = 0.0f;
    if (k0 + kl < K_) v = to_f32(Wt[dgrad_w_index<CG, KG>(k0 + kl, r)]);
    ws[r * BN + kl] = v;
  }
