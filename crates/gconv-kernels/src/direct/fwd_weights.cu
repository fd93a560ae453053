  // 2. Weights of the CTA's output channels, widened to f32 and transposed to [tap·CG][BN]
  //    (global reads contiguous; zero for channels beyond K); loaded once per CTA.
  for (int i = tid; i < BN * WPK; i += THREADS) {
    const int kl = i / WPK;
    const int r = i % WPK;
    float v = 0.0f;
    if (k0 + kl < K_) v = to_f32(Wt[k0 * WPK + i]);
    ws[r * BN + kl] = v;
  }
