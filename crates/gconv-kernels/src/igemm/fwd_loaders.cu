  // GEMM rows of this CTA: output pixels m0.. of the whole output; row m is output pixel m
  // (the halo path: a pixel of the padded image, halo_pixel)
  const int m0 = bx * BM;
  const int m_rows = HALO ? N_ * HP * WP : M_;
  const int n_cols = NEFF;
  // output element of GEMM row m, column n (merged output channel); < 0: not stored (a
  // padded row; with a merge tail, GTAIL, a channel of the last block's missing groups)
  auto out_off = [&](int m, int n) {
    const int p = HALO ? halo_pixel(m) : m;
    return p < 0 || (GTAIL && gb * NEFF + n >= K_) ? -1LL : (long long)p * K_ + gb * NEFF + n;
  };

  // ---- A (activation) loader: per-row output-pixel decode, hoisted out of the K loop ----
  const int a_trow = ltid / TPR_A, a_tcol = ltid % TPR_A;
  const int b_trow = ltid / TPR_B, b_tcol = ltid % TPR_B;
  int a_base[RA], a_d[RA], a_h[RA], a_w[RA];
#pragma unroll
  for (int j = 0; j < RA; ++j) {
    const int row = a_trow + j * RPI_A;
    const int m = m0 + row;
    const bool ok = (BM % RPI_A == 0 || row < BM) && m < M_;
    const int mm = ok ? m : 0;
    if constexpr (POINTWISE) {
      a_base[j] = mm * C_;
      a_d[j] = 0;
      a_h[j] = 0;
      a_w[j] = ok ? 0 : OFF_INVALID;
    } else {
      const int ow = mm % OW;
      int t = mm / OW;
      const int oh = t % OH;
      t /= OH;
      const int od = t % OD;
      const int n = t / OD;
      const int id = od * SD - PD, ih = oh * SH - PH, iw = ow * SW - PW;
      a_base[j] = (((n * ID + id) * IH + ih) * IW + iw) * C_;
      a_d[j] = id;
      a_h[j] = ih;
      a_w[j] = ok ? iw : OFF_INVALID;
    }
  }
  // ---- B (weight) loader: merged rows are block-diagonal (zero outside the row's group) ----
  // a chunk of merged channels [c, c+VB) is inside the row's own group iff (c - b_lo) < CG
  int b_base[RB], b_lo[RB];
#pragma unroll
  for (int j = 0; j < RB; ++j) {
    const int row = b_trow + j * RPI_B;
    const int nn = n0 + row;
    // (a merge tail's missing groups, GTAIL: rows of zeros)
    const bool ok = (BN % RPI_B == 0 || row < BN) && nn < NEFF && (!GTAIL || gb * GM + nn / KG < G_);
    const int nv = ok ? nn : 0;
    const int gsub = nv / KG, kk = nv % KG;
    b_base[j] = ((gb * GM + gsub) * KG + kk) * TAPS * CG - gsub * CG;
    b_lo[j] = ok ? gsub * CG : OFF_INVALID;
  }

  u16 a_reg[A_SYNC ? RA : 1][A_SYNC ? CPT_A : 1];
  u16 b_reg[B_SYNC ? RB : 1][B_SYNC ? CPT_B : 1];

  // k-tile range of this split; loader position (tap z/y/x, channel block)
  const int kt_begin = split * KPS;
  const int kt_end = (kt_begin + KPS < KT) ? kt_begin + KPS : KT;
  const int nkt = kt_end - kt_begin;
  int l_cb = kt_begin % CBLK;
  int l_tap = PACK ? kt_begin * TPK : kt_begin / CBLK;
  int l_tx = l_tap % FX;
  int l_ty = (l_tap / FX) % FY;
  int l_tz = l_tap / (FX * FY);

  // Tap of k-tile chunk `e` (element offset inside the tile) and its spatial displacement.
  auto tap_of = [&](int e, int& tap, int& dz, int& dy, int& dx, int& ch) {
    if constexpr (PACK) {
      tap = l_tap + e / CEFF;
      ch = e % CEFF;
      const int t = tap < TAPS ? tap : 0;
      dx = (t % FX) * DW;
      dy = ((t / FX) % FY) * DH;
      dz = (t / (FX * FY)) * DD;
    } else {
      tap = l_tap;
      ch = l_cb * BK + e;
      dx = l_tx * DW;
      dy = l_ty * DH;
      dz = l_tz * DD;
    }
  };
  auto fetch = [&](int stage) {
    const u32 sa = sbase + stage * A_STAGE;
#pragma unroll
    for (int q = 0; q < (HALO ? 0 : CPT_A); ++q) {
      const int col = a_tcol + q * TPR_A;
      int tap, dz, dy, dx, ch;
      tap_of(col * VA, tap, dz, dy, dx, ch);
      const int tapoff = ((dz * IH + dy) * IW + dx) * C_ + ch;
      const elem_t* const xt = opaque(X + tapoff);  // one 64-bit base per tap; rows add 32-bit offsets
      bool cok = true;
      if constexpr (PACK && TAPS % TPK != 0) cok = tap < TAPS;
      if constexpr (A_PARTIAL) cok = cok && ch < CEFF;
      if constexpr (GTAIL) cok = cok && gb * CEFF + ch < C_;  // a missing group's channels: zeros
#pragma unroll
      for (int j = 0; j < RA; ++j) {
        const int row = a_trow + j * RPI_A;
        if (BM % RPI_A == 0 || row < BM) {
          bool ok = cok && (unsigned)(a_w[j] + dx) < (unsigned)IW;
          if constexpr (CHECK_H) ok = ok && (unsigned)(a_h[j] + dy) < (unsigned)IH;
          if constexpr (CHECK_D) ok = ok && (unsigned)(a_d[j] + dz) < (unsigned)ID;
          if constexpr (A_SYNC) {
            const elem_t* src = X + (ok ? a_base[j] + tapoff : 0);
            a_reg[j][q] = ok ? *reinterpret_cast<const u16*>(src) : (u16)0;
          } else {
            // a skipped copy reads nothing: its address needs no clamp
            cp_async<VA * ESZ, A_L1>(sa + swz(row * ROWB + col * VA * ESZ), xt + a_base[j], ok);
          }
        }
      }
    }
    const u32 sb = sbase_b + stage * B_STAGE;
#pragma unroll
    for (int q = 0; q < CPT_B; ++q) {
      const int col = b_tcol + q * TPR_B;
      int tap, dz, dy, dx, ch;
      tap_of(col * VB, tap, dz, dy, dx, ch);
      const int woff = tap * CG + ch;
      const elem_t* const wt = opaque(Wt + woff);
      bool tok = true;
      if constexpr (PACK && TAPS % TPK != 0) tok = tap < TAPS;
#pragma unroll
      for (int j = 0; j < RB; ++j) {
        const int row = b_trow + j * RPI_B;
        if (BN % RPI_B == 0 || row < BN) {
          const bool ok = tok && (unsigned)(ch - b_lo[j]) < (unsigned)CG;
          if constexpr (B_SYNC) {
            const elem_t* src = Wt + (ok ? b_base[j] + woff : 0);
            b_reg[j][q] = ok ? *reinterpret_cast<const u16*>(src) : (u16)0;
          } else {
            cp_async<VB * ESZ, false>(sb + swz(row * ROWB + col * VB * ESZ), wt + b_base[j], ok);
          }
        }
      }
    }
    // advance: channel blocks inner, taps outer (x fastest)
    if constexpr (PACK) {
      l_tap += TPK;
    } else if (++l_cb == CBLK) {
      l_cb = 0;
      ++l_tap;
      if (++l_tx == FX) {
        l_tx = 0;
        if (++l_ty == FY) {
          l_ty = 0;
          ++l_tz;
        }
      }
    }
  };
  // stores the register-staged 2-byte elements of the tile fetched last
  auto flush = [&](int stage) {
    if constexpr (A_SYNC) {
#pragma unroll
      for (int j = 0; j < RA; ++j) {
        const int row = a_trow + j * RPI_A;
        if (BM % RPI_A == 0 || row < BM) {
#pragma unroll
          for (int q = 0; q < CPT_A; ++q) {
            const int col = a_tcol + q * TPR_A;
            *reinterpret_cast<u16*>(smem_al + stage * A_STAGE + swz(row * ROWB + col * ESZ)) = a_reg[j][q];
          }
        }
      }
    }
    if constexpr (B_SYNC) {
#pragma unroll
      for (int j = 0; j < RB; ++j) {
        const int row = b_trow + j * RPI_B;
        if (BN % RPI_B == 0 || row < BN) {
#pragma unroll
          for (int q = 0; q < CPT_B; ++q) {
            const int col = b_tcol + q * TPR_B;
            *reinterpret_cast<u16*>(smem_al + STAGES * A_STAGE + stage * B_STAGE + swz(row * ROWB + col * ESZ)) =
                b_reg[j][q];
          }
        }
      }
    }
  };
  // no restaging between the copies and the math in this direction; B is K-major
  auto land = [](int) {};
  constexpr bool LANDS = false;
  auto bn_offset = [](int, int) { return 0; };
#if GCONV_TMA
  // TMA (math = wgmmatma, forward, gm1). Pointwise: k-tile kt's A tile is the box of BK channels
  // of group gb at output pixels m0.. of tensor map A ([CG, G, M] over X), its B tile the box of
  // BK channels of weight rows n0.. of group gb (map B: [CG, KG, G] over W); channels, pixels
  // and rows past the tensors come in as zeros. Both complete on the stage's full barrier.
  // The general path (2D): k-tile kt is (tap, channel block) as the loaders walk them (taps
  // outer); A is the im2col copy of BK channels of group gb at the BM output pixels from m0,
  // the walk starting at m0's filter corner (ow·SW − PW, oh·SH − PH, n) with the tap's offsets
  // (tx·DW, ty·DH) (map A: X as [C, W, H, N]); B the box of BK channels × 1 tap × BN rows of
  // group gb (map B: W as [C/G, taps, K/G, G]). Pixels past the image's edges, and past the
  // last image, come in as zeros.
  static_assert(GM == 1 && !A_MMAJOR && !B_NMAJOR, "TMA boxes: the forward per-group GEMM");
  static_assert(POINTWISE || (!PACK && CG % BK == 0 && OD == 1 && FZ == 1), "im2col copies: 2D, whole channel blocks");
  static_assert(A_STAGE == BM * BK * ESZ && B_STAGE == BN * BK * ESZ, "a stage is one box per operand");
  const int t_ow = m0 % OW, t_oh = (m0 / OW) % OH, t_n = m0 / (OW * OH);
  auto tma_fetch = [&](int stage, int kt, u32 bar) {
    if constexpr (POINTWISE) {
      const int k = (kt_begin + kt) * BK;
      tma_load_3d(sbase + stage * A_STAGE, tmap_a, bar, k, gb, m0);
      tma_load_3d(sbase_b + stage * B_STAGE, tmap_b, bar, k, n0, gb);
    } else {
      const int ktg = kt_begin + kt;
      const int tap = ktg / CBLK, k = (ktg % CBLK) * BK;
      tma_load_4d_im2col(sbase + stage * A_STAGE, tmap_a, bar, gb * CG + k, t_ow * SW - PW, t_oh * SH - PH, t_n,
                         (tap % FX) * DW, (tap / FX) * DH);
      tma_load_4d(sbase_b + stage * B_STAGE, tmap_b, bar, k, tap, n0, gb);
    }
  };
#endif
