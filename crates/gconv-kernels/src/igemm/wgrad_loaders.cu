  // ---- backward-weight loaders: per merged group block, GEMM rows m = merged dY channels
  // (gsub·KG + k), columns n = tap·CEFF + merged X channel, reduction over the output pixels
  // p = (n, od, oh, ow) of this split's k-tiles. A = dY and B = X both keep their channels
  // contiguous, so both tiles are MN-major (A_MMAJOR, B_NMAJOR): k row r of a tile is output
  // pixel p0 + r. Header names as forward: I* = X's dims, O* = dY's, CG = C/G, KG = K/G. ----
  const int m0 = bx * BM;
  const int m_rows = NEFF;
  const int n_cols = TAPS * CEFF;
  const elem_t* __restrict__ dY = Wt + gb * NEFF;  // in1 is dY in this direction
  // dW element of row m, column n. A merged tile computes GM x GM group pairs; only a row and a
  // column of the same group are a real pair (the block diagonal), the others are not stored.
  // True per-group dims (KG, CG) size dW; merged dims (NEFF, CEFF) are what the tile covers.
  // A tail block (GTAIL) has no dW for its groups past G_.
  auto out_off = [&](int m, int n) -> long long {
    const int gr = m / KG, k = m % KG;
    const int tap = n / CEFF, cm = n % CEFF;
    const int gc = cm / CG, c = cm % CG;
    if (gr != gc || (GTAIL && gb * GM + gr >= G_)) return -1;
    return ((long long)(gb * GM + gr) * KG + k) * (TAPS * CG) + tap * CG + c;
  };

  // k-tiles of this split (the last may be short or, for a fixed degree, empty: its plane is
  // then written as zeros)
  constexpr int NPIX = M_;  // N·Do·Ho·Wo
  constexpr int WKT = (NPIX + BK - 1) / BK;
  constexpr int WKPS = (WKT + SPLIT - 1) / SPLIT;
  const int kt_begin = split * WKPS;
  const int kt_end = kt_begin + WKPS < WKT ? kt_begin + WKPS : WKT;
  const int nkt = kt_end > kt_begin ? kt_end - kt_begin : 0;
  int l_p = kt_begin * BK;  // first output pixel of the next k-tile to fetch

  // A (dY) units: chunk c of VA channels of k row r; B (X) units: chunk c of VB columns
  // (one tap, VB channels) of k row r. A thread's chunk column is fixed for the whole loop
  // (LTHREADS is a multiple of the chunks per row or the rows repeat the same pattern), so the
  // tap decode is done once; the pixel decode is per k-tile.
  constexpr int ACH = BM / VA, A_UNITS = BK * ACH, UA = (A_UNITS + LTHREADS - 1) / LTHREADS;
  constexpr int BCH = BN / VB, B_UNITS = BK * BCH, UB = (B_UNITS + LTHREADS - 1) / LTHREADS;
  int a_r[UA], a_m[UA];
  u32 a_dst[UA];
#pragma unroll
  for (int u = 0; u < UA; ++u) {
    const int unit = ltid + u * LTHREADS;
    const bool in = A_UNITS % LTHREADS == 0 || unit < A_UNITS;
    const int r = unit / ACH, c = unit % ACH;
    a_r[u] = in ? r : -1;
    a_m[u] = m0 + c * VA;
    a_dst[u] = swz(mn_offset(in ? r : 0, c * VA));
  }
  int b_r[UB], b_cm[UB], b_dz[UB], b_dy[UB], b_dx[UB];
  bool b_cok[UB];
  u32 b_dst[UB];
  // each B unit's output pixel (n, od, oh, ow) as counters, advanced by BK pixels per k-tile
  // (a mixed-radix add of BK's constant digits), so that no k-tile divides
  int b_ow[UB], b_oh[UB], b_od[UB], b_n[UB];
  constexpr int BK_W = BK % OW, BK_H = (BK / OW) % OH, BK_D = (BK / (OW * OH)) % OD, BK_N = BK / (OW * OH * OD);
#pragma unroll
  for (int u = 0; u < UB; ++u) {
    const int unit = ltid + u * LTHREADS;
    const bool in = B_UNITS % LTHREADS == 0 || unit < B_UNITS;
    const int r = unit / BCH, c = unit % BCH;
    const int n = n0 + c * VB;
    const int tap = n < n_cols ? n / CEFF : 0;
    b_r[u] = in ? r : -1;
    b_cok[u] = n < n_cols && (!GTAIL || gb * CEFF + n % CEFF < C_);  // GTAIL: zeros past C
    b_cm[u] = n % CEFF;
    b_dx[u] = (tap % FX) * DW;
    b_dy[u] = ((tap / FX) % FY) * DH;
    b_dz[u] = (tap / (FX * FY)) * DD;
    b_dst[u] = swz(mn_offset(in ? r : 0, c * VB));
    const int p = kt_begin * BK + (in ? r : 0);
    b_ow[u] = p % OW;
    b_oh[u] = (p / OW) % OH;
    b_od[u] = (p / (OW * OH)) % OD;
    b_n[u] = p / (OW * OH * OD);
  }
  u16 a_reg[A_SYNC ? UA : 1];
  u16 b_reg[B_SYNC ? UB : 1];

  auto fetch = [&](int stage) {
    const u32 sa = sbase + stage * A_STAGE;
    // one 64-bit base per k-tile; the units add 32-bit offsets (`opaque`: one wide multiply-add)
    const elem_t* const dyt = opaque(dY + (long long)l_p * K_);
#pragma unroll
    for (int u = 0; u < UA; ++u) {
      if (a_r[u] < 0) continue;
      const int p = l_p + a_r[u];
      const bool ok = p < NPIX && a_m[u] < NEFF && (!GTAIL || gb * NEFF + a_m[u] < K_);
      if constexpr (A_SYNC) {
        const elem_t* src = dY + (ok ? p * K_ + a_m[u] : 0);
        a_reg[u] = ok ? *reinterpret_cast<const u16*>(src) : (u16)0;
      } else {
        cp_async<VA * ESZ, false>(sa + a_dst[u], dyt + (a_r[u] * K_ + a_m[u]), ok);
      }
    }
    const u32 sb = sbase_b + stage * B_STAGE;
#pragma unroll
    for (int u = 0; u < UB; ++u) {
      if (b_r[u] < 0) continue;
      const int p = l_p + b_r[u];
      bool ok = b_cok[u] && p < NPIX;
      int off;
      if constexpr (POINTWISE) {
        off = p * C_ + b_cm[u];
      } else {
        const int iw = b_ow[u] * SW - PW + b_dx[u], ih = b_oh[u] * SH - PH + b_dy[u];
        const int id = b_od[u] * SD - PD + b_dz[u];
        ok = ok && (unsigned)iw < (unsigned)IW && (unsigned)ih < (unsigned)IH && (unsigned)id < (unsigned)ID;
        off = (((b_n[u] * ID + id) * IH + ih) * IW + iw) * C_ + b_cm[u];
        // the next k-tile's pixel (past the last pixel the counters run on; those copies skip)
        b_ow[u] += BK_W;
        int cy = b_ow[u] >= OW;
        b_ow[u] -= cy ? OW : 0;
        b_oh[u] += BK_H + cy;
        cy = b_oh[u] >= OH;
        b_oh[u] -= cy ? OH : 0;
        b_od[u] += BK_D + cy;
        cy = b_od[u] >= OD;
        b_od[u] -= cy ? OD : 0;
        b_n[u] += BK_N + cy;
      }
      if constexpr (B_SYNC) {
        const elem_t* src = X + (ok ? off : 0);
        b_reg[u] = ok ? *reinterpret_cast<const u16*>(src) : (u16)0;
      } else {
        // a skipped copy reads nothing: its address needs no clamp
        cp_async<VB * ESZ, A_L1>(sb + b_dst[u], X + off, ok);
      }
    }
    l_p += BK;
  };
  // stores the register-staged 2-byte elements of the tile fetched last
  auto flush = [&](int stage) {
    if constexpr (A_SYNC) {
#pragma unroll
      for (int u = 0; u < UA; ++u)
        if (a_r[u] >= 0) *reinterpret_cast<u16*>(smem_al + stage * A_STAGE + a_dst[u]) = a_reg[u];
    }
    if constexpr (B_SYNC) {
#pragma unroll
      for (int u = 0; u < UB; ++u)
        if (b_r[u] >= 0) *reinterpret_cast<u16*>(smem_al + STAGES * A_STAGE + stage * B_STAGE + b_dst[u]) = b_reg[u];
    }
  };
  auto land = [](int) {};
  constexpr bool LANDS = false;  // no restaging between the copies and the math
  auto bn_offset = [](int k, int n) { return mn_offset(k, n); };
#if GCONV_TMA
  // TMA (math = wgmmatma, backward weight): k-tile kt of this split covers the BK output
  // pixels from (kt_begin + kt)·BK; its MN-major A tile is BM / 64 boxes of 64 dY channels of
  // merged group block gb × those pixels (map A: [GM·K/G, G/GM, pixels] over dY), its B tile
  // BN / 64 boxes of 64 X channels × the pixels (map B: [GM·C/G, G/GM, pixels] over X), one per
  // 64-element panel (mn_offset). Channels and pixels past the tensors come in as zeros. With
  // group merge (GM > 1) a block's GM groups are adjacent channels in both tensors, so a box
  // spans groups and the tile computes every group pair; out_off stores the diagonal only.
  // With a tail (GTAIL: GM does not divide G) the maps are [K, 1, pixels] and [C, 1, pixels]
  // instead, a box starting at the block's first channel (gb·NEFF, gb·CEFF): the last block's
  // missing groups are channels past the tensors, read as zeros (the general path's im2col
  // copies already start at channel gb·CEFF of X as [C, W, H, N]).
  // The general path (2D, GM·C/G a multiple of 64): B's panel q holds the columns n0 + 64q.. =
  // 64 merged channels of one tap; it is the im2col copy of those channels of block gb (from
  // channel gb·CEFF) for the k-tile's BK output pixels, the walk starting at p0's filter corner
  // (ow·SW − PW, oh·SH − PH, n) with the tap's offsets (map B: X as [C, W, H, N]); a panel past
  // the last tap reads channel C_, outside the tensor, as zeros (its columns are not stored).
  static_assert(A_MMAJOR && B_NMAJOR, "TMA boxes: the backward-weight per-group GEMM");
  static_assert(POINTWISE || (CEFF % 64 == 0 && OD == 1 && FZ == 1), "im2col copies: 2D, panels within a tap");
  static_assert(A_STAGE == BM * BK * ESZ && B_STAGE == BN * BK * ESZ, "a stage is its boxes");
  auto tma_fetch = [&](int stage, int kt, u32 bar) {
    const int p0 = (kt_begin + kt) * BK;
#pragma unroll
    for (int q = 0; q < BM / 64; ++q) {
      tma_load_3d(sbase + stage * A_STAGE + q * (BK * 128), tmap_a, bar, (GTAIL ? gb * NEFF : 0) + m0 + 64 * q,
                  GTAIL ? 0 : gb, p0);
    }
    if constexpr (POINTWISE) {
#pragma unroll
      for (int q = 0; q < BN / 64; ++q) {
        tma_load_3d(sbase_b + stage * B_STAGE + q * (BK * 128), tmap_b, bar, (GTAIL ? gb * CEFF : 0) + n0 + 64 * q,
                    GTAIL ? 0 : gb, p0);
      }
    } else {
      const int ow = p0 % OW, oh = (p0 / OW) % OH, n = p0 / (OW * OH);
#pragma unroll
      for (int q = 0; q < BN / 64; ++q) {
        const int col = n0 + 64 * q;
        const int tap = col / CEFF;
        const int ch = tap < TAPS ? gb * CEFF + col % CEFF : C_;
        const int t = tap < TAPS ? tap : 0;
        tma_load_4d_im2col(sbase_b + stage * B_STAGE + q * (BK * 128), tmap_b, bar, ch, ow * SW - PW, oh * SH - PH, n,
                           (t % FX) * DW, (t / FX) * DH);
      }
    }
  };
#endif
