  // 2. Weights of the CTA's output channels, widened to f32 and transposed to [tap·CG][BN]
  //    (zero for channels beyond K); loaded once per CTA, the reads batched (stage_batched).
  //    Backward data: gathered from the original filter through dgrad_w_index (flip and
  //    channel transpose in the addressing), output channel fastest, so that the channels of a
  //    group are adjacent both in W and in the shared-memory row.
  stage_batched<BN * WPK>(
      tid,
      [&](int i) {
        return k0 + i % BN < K_ ? Wt[dgrad_w_index<CG, KG>(k0 + i % BN, i / BN)] : (elem_t)0;
      },
      [&](int i, elem_t v) { ws[i] = to_f32(v); });
