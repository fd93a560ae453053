  // 2. Weights of the CTA's output channels, widened to f32 and transposed to [tap·CG][BN]
  //    (global reads contiguous; zero for channels beyond K); loaded once per CTA, the reads
  //    batched (stage_batched).
  stage_batched<BN * WPK>(
      tid,
      [&](int i) { return k0 + i / WPK < K_ ? Wt[k0 * WPK + i] : (elem_t)0; },
      [&](int i, elem_t v) { ws[(i % WPK) * BN + i / WPK] = to_f32(v); });
