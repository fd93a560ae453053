  // ---- backward-data loaders: one stride phase of dX per CTA, A = dY, B = W flipped and
  // transposed in the addressing. In this direction the header's I* dims are dY's, O* dims are
  // dX's, CG is K/G (the reduction's channels) and KG is C/G (the output's channels). ----
  const int phase = bx / DG_TILES;
  const int m0 = (bx % DG_TILES) * BM;
  const PhaseDim pw = phase_dim<SW, PW, DW, FX, OW>(phase % SW);
  const PhaseDim ph = phase_dim<SH, PH, DH, FY, OH>((phase / SW) % SH);
  const PhaseDim pd = phase_dim<SD, PD, DD, FZ, OD>(phase / (SW * SH));
  constexpr int YSTEP_W = SW / gcd_i(SW, DW), DSTEP_W = DW / gcd_i(SW, DW);
  constexpr int YSTEP_H = SH / gcd_i(SH, DH), DSTEP_H = DH / gcd_i(SH, DH);
  constexpr int YSTEP_D = SD / gcd_i(SD, DD), DSTEP_D = DD / gcd_i(SD, DD);
  // rows of this phase (dX pixels; the halo path: the padded image's pixels, HP x WP per
  // image, of which those with h >= OH or w >= OW are computed and not stored)
  const int m_rows = HALO ? N_ * HP * WP : N_ * pd.cnt * ph.cnt * pw.cnt;
  if (m0 >= m_rows) return;  // uniform per CTA: a tile past the end of a smaller phase
  const int cw = pw.cnt, chh = ph.cnt, cd = pd.cnt;
  const int ptaps = pd.nt * ph.nt * pw.nt;
  const int n_cols = NEFF;
  // dX row (pixel index) of GEMM row m of the phase (-1: a padded row, not stored)
  auto out_row = [&](int m) {
    if constexpr (POINTWISE) {
      return m;
    } else if constexpr (HALO) {
      return halo_pixel(m);
    } else {
      const int qw = m % cw;
      int t = m / cw;
      const int qh = t % chh;
      t /= chh;
      const int qd = t % cd;
      const int n = t / cd;
      return ((n * OD + pd.hi0 + SD * qd) * OH + ph.hi0 + SH * qh) * OW + pw.hi0 + SW * qw;
    }
  };
  // dX element of GEMM row m, column n (merged input channel); < 0: not stored (with a merge
  // tail, GTAIL, a channel of the last block's missing groups too)
  auto out_off = [&](int m, int n) {
    const int r = out_row(m);
    return r < 0 || (GTAIL && gb * NEFF + n >= K_) ? -1LL : (long long)r * K_ + gb * NEFF + n;
  };

  // ---- A (dY) loader: per-row decode hoisted out of the K loop ----
  const int a_trow = ltid / TPR_A, a_tcol = ltid % TPR_A;
  int a_base[RA], a_d[RA], a_h[RA], a_w[RA];
#pragma unroll
  for (int j = 0; j < RA; ++j) {
    const int row = a_trow + j * RPI_A;
    const int m = m0 + row;
    const bool ok = (BM % RPI_A == 0 || row < BM) && m < m_rows;
    const int mm = ok ? m : 0;
    if constexpr (POINTWISE) {
      a_base[j] = mm * C_;
      a_d[j] = 0;
      a_h[j] = 0;
      a_w[j] = ok ? 0 : OFF_INVALID;
    } else {
      const int qw = mm % cw;
      int t = mm / cw;
      const int qh = t % chh;
      t /= chh;
      const int qd = t % cd;
      const int n = t / cd;
      const int id = pd.base + qd, ih = ph.base + qh, iw = pw.base + qw;
      a_base[j] = (((n * ID + id) * IH + ih) * IW + iw) * C_;
      a_d[j] = id;
      a_h[j] = ih;
      a_w[j] = ok ? iw : OFF_INVALID;
    }
  }

  // ---- B (W) loader: the tile's row n is output channel c of the merged block, its column k
  // is (tap, kk). W keeps c contiguous, so a unit is a VB x VB block: VB vector loads (one kk
  // each, VB channels), transposed in registers into VB vector stores (one channel each, VB kk).
  // Blocks outside a row's own group are zero (block-diagonal merged weights). ----
  constexpr int RBN = BN / VB, CBN = BK / VB, B_UNITS = RBN * CBN;
  constexpr int UB = B_NMAJOR ? 1 : (B_UNITS + LTHREADS - 1) / LTHREADS;
  constexpr int BW = (VB * ESZ + 3) / 4;  // words per block row
  static_assert(BN % VB == 0 && BK % VB == 0 && CEFF % VB == 0, "dgrad weight blocks");
  int b_rb[UB], b_cb[UB], b_base[UB], b_lo[UB];
#pragma unroll
  for (int u = 0; u < UB; ++u) {
    const int unit = ltid + u * LTHREADS;
    // Pairs of row blocks on adjacent lanes: adjacent copies read whole 32-byte sectors of a kk
    // row of W. (Column blocks fastest gives conflict-free stores but half-used sectors, and
    // measured slower on the H200: 65 vs 48 µs, results/h200/s6/README.md.)
    const int cb = RBN % 2 == 0 ? (unit >> 1) % CBN : unit % CBN;
    const int rb = RBN % 2 == 0 ? (unit & 1) + 2 * ((unit >> 1) / CBN) : unit / CBN;
    const int nn = n0 + rb * VB;
    const bool in = !B_NMAJOR && (B_UNITS % LTHREADS == 0 || unit < B_UNITS);
    // (a merge tail's missing groups, GTAIL: rows of zeros)
    const bool ok = in && nn < NEFF && (!GTAIL || gb * GM + nn / KG < G_);
    const int nv = ok ? nn : 0;
    const int gsub = nv / KG, cc = nv % KG;
    b_rb[u] = in ? rb : -1;
    b_cb[u] = cb;
    b_base[u] = gb * GM * CG * TAPS * KG + cc;
    b_lo[u] = ok ? gsub * CG : OFF_INVALID;
  }
  // N-major B (B_NMAJOR, generated for 8-aligned C/G and K/G on tensor cores): the tile is kept
  // as W stores it, k rows of channels in 64-channel panels of BK rows (bn_offset), filled by
  // 16-byte copies of 8 channels at one (tap, kk) with a k row's chunks on adjacent threads;
  // the math reads it transposed (ldmatrix.trans, or wgmma with imm-trans-b).
  auto bn_offset = [](int k, int n) { return (n / 64) * (BK * 128) + k * 128 + (n % 64) * 2; };
  constexpr int NCH = BN / 8, NQ = NCH * BK;
  constexpr int UN = B_NMAJOR ? (NQ + LTHREADS - 1) / LTHREADS : 1;
  static_assert(!B_NMAJOR || (ESZ == 2 && BN % 64 == 0 && KG % 8 == 0), "N-major weight tiles");
  // n_off: the copy's W offset at channel block 0, tap 0 (its k row's channel folded in);
  // n_kk: its k row's channel relative to the row group's first, so that the group test of a
  // k-tile is one compare against the k-tile's uniform first channel.
  int n_kr[UN], n_base[UN], n_lo[UN], n_dst[UN], n_off[UN], n_kk[UN];
#pragma unroll
  for (int u = 0; u < UN; ++u) {
    const int q = ltid + u * LTHREADS;
    const bool in = B_NMAJOR && (NQ % LTHREADS == 0 || q < NQ);
    const int nc = q % NCH, kr = q / NCH;
    const int nn = n0 + nc * 8;
    const bool ok = in && nn < NEFF && (!GTAIL || gb * GM + nn / KG < G_);
    const int nv = ok ? nn : 0;
    n_kr[u] = in ? kr : -1;
    n_base[u] = gb * GM * CG * TAPS * KG + nv % KG;
    n_lo[u] = ok ? (nv / KG) * CG : OFF_INVALID;
    n_dst[u] = swz(bn_offset(kr, nc * 8));
    n_off[u] = n_base[u] + kr * TAPS * KG;
    n_kk[u] = in ? kr - n_lo[u] : OFF_INVALID;
  }
  u16 a_reg[A_SYNC ? RA : 1][A_SYNC ? CPT_A : 1];
  // Blocks of 4 bytes or more go through a raw shared-memory stage (cp.async, as deep as the
  // pipeline; row i of unit `unit` at (i·B_UNITS + unit)·VB·ESZ) and are transposed by the thread
  // that copied them in `land`, after its copies landed and before the barrier. 2-byte
  // elements (VB = 1 in f16/bf16, no transpose) are loaded into registers and stored one
  // iteration later.
  constexpr bool B_RAW = VB * ESZ >= 4;
  const u32 sraw = sbase + STAGES * (A_STAGE + B_STAGE);
  u32 b_blk[B_RAW ? 1 : UB][VB][BW];

  // stage whose transposed weight blocks are still in registers (-1: none)
  int b_pending = -1;
  auto store_b = [&] {
    if constexpr (B_RAW) return;
    if (b_pending < 0) return;
    unsigned char* const sb = smem_al + STAGES * A_STAGE + b_pending * B_STAGE;
#pragma unroll
    for (int u = 0; u < UB; ++u) {
      if (b_rb[u] < 0) continue;
#pragma unroll
      for (int r = 0; r < VB; ++r) {
        u32 w[BW];
        block_column<VB, ESZ, BW>(b_blk[u], r, w);
        store_words<VB * ESZ>(sb + swz((b_rb[u] * VB + r) * ROWB + b_cb[u] * VB * ESZ), w);
      }
    }
    b_pending = -1;
  };

  // k-tiles of this phase; loader position (tap of the phase, channel block)
  const int nkt = PACK ? (ptaps + TPK - 1) / TPK : ptaps * CBLK;
  int l_cb = 0;
  int l_tap = 0;
  // the unpacked loader's tap of the phase as counters (x fastest), so that no k-tile divides
  int l_jx = 0, l_jy = 0, l_jz = 0;

  // Tap of k-tile element `e`: its dY displacement and its filter tap in W.
  auto tap_of = [&](int e, int& tap, int& dz, int& dy, int& dx, int& ch, int& wtap) {
    if constexpr (PACK) {
      tap = l_tap + e / CEFF;
      ch = e % CEFF;
    } else {
      tap = l_tap;
      ch = l_cb * BK + e;
    }
    int jx = l_jx, jy = l_jy, jz = l_jz;
    if constexpr (PACK) {
      const int t = tap < ptaps ? tap : 0;
      jx = t % pw.nt;
      const int r = t / pw.nt;
      jy = r % ph.nt;
      jz = r / ph.nt;
    }
    dx = -jx * DSTEP_W;
    dy = -jy * DSTEP_H;
    dz = -jz * DSTEP_D;
    wtap = ((pd.y0 + jz * YSTEP_D) * FY + ph.y0 + jy * YSTEP_H) * FX + pw.y0 + jx * YSTEP_W;
  };
  auto fetch = [&](int stage) {
    const u32 sa = sbase + stage * A_STAGE;
#pragma unroll
    for (int q = 0; q < (HALO ? 0 : CPT_A); ++q) {
      const int col = a_tcol + q * TPR_A;
      int tap, dz, dy, dx, ch, wtap;
      tap_of(col * VA, tap, dz, dy, dx, ch, wtap);
      const int tapoff = ((dz * IH + dy) * IW + dx) * C_ + ch;
      const elem_t* const xt = opaque(X + tapoff);  // one 64-bit base per tap; rows add 32-bit offsets
      bool cok = true;
      if constexpr (PACK) cok = tap < ptaps;
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
    if constexpr (PACK) {
#pragma unroll
      for (int u = 0; u < UN; ++u) {
        if (n_kr[u] < 0) continue;
        int tap, dz, dy, dx, ch, wtap;
        tap_of(n_kr[u], tap, dz, dy, dx, ch, wtap);
        const bool ok = (unsigned)(ch - n_lo[u]) < (unsigned)CG && tap < ptaps;
        const elem_t* src = Wt + (ok ? n_base[u] + (ch * TAPS + wtap) * KG : 0);
        cp_async<16, false>(sbase_b + stage * B_STAGE + n_dst[u], src, ok);
      }
    } else if constexpr (B_NMAJOR) {
      // one tap and channel block per k-tile: a uniform offset and first channel
      int tap, dz, dy, dx, ch, wtap;
      tap_of(0, tap, dz, dy, dx, ch, wtap);
      const elem_t* const wt = opaque(Wt + (ch * TAPS + wtap) * KG);
#pragma unroll
      for (int u = 0; u < UN; ++u) {
        if (NQ % LTHREADS != 0 && n_kr[u] < 0) continue;
        const bool ok = (unsigned)(ch + n_kk[u]) < (unsigned)CG;
        cp_async<16, false>(sbase_b + stage * B_STAGE + n_dst[u], wt + n_off[u], ok);
      }
    }
    store_b();  // the previous fetch's blocks (prologue), before their registers are reused
#pragma unroll
    for (int u = 0; u < UB; ++u) {
      if (b_rb[u] < 0) continue;
      int tap, dz, dy, dx, ch, wtap;
      tap_of(b_cb[u] * VB, tap, dz, dy, dx, ch, wtap);
      bool ok = (unsigned)(ch - b_lo[u]) < (unsigned)CG;
      if constexpr (PACK) ok = ok && tap < ptaps;
      const elem_t* src = Wt + (ok ? b_base[u] + (ch * TAPS + wtap) * KG : 0);
      if constexpr (B_RAW) {
        const u32 dst = sraw + stage * B_STAGE + (ltid + u * LTHREADS) * VB * ESZ;
#pragma unroll
        for (int i = 0; i < VB; ++i)
          cp_async<VB * ESZ, false>(dst + i * B_UNITS * VB * ESZ, src + (ok ? i * TAPS * KG : 0), ok);
      } else {
#pragma unroll
        for (int i = 0; i < VB; ++i) load_words<VB * ESZ>(b_blk[u][i], src + (ok ? i * TAPS * KG : 0), ok);
      }
    }
    if constexpr (!B_RAW) b_pending = stage;
    // advance: channel blocks inner, the phase's taps outer
    if constexpr (PACK) {
      l_tap += TPK;
    } else if (++l_cb == CBLK) {
      l_cb = 0;
      ++l_tap;
      if (++l_jx == pw.nt) {
        l_jx = 0;
        if (++l_jy == ph.nt) {
          l_jy = 0;
          ++l_jz;
        }
      }
    }
  };
  // stores the register-staged 2-byte A elements of the tile fetched last
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
  };
  // Before the barrier of the k-tile in `stage`: its raw weight blocks (this thread's own
  // copies, landed) transposed into the B tile; or, for 2-byte elements, the blocks of the
  // previous fetch stored from registers (their loads overlapped a k-tile of math).
  constexpr bool LANDS = !B_NMAJOR;  // the N-major tile is W's own layout: nothing to restage
  auto land = [&](int stage) {
    if constexpr (B_RAW) {
      unsigned char* const sb = smem_al + STAGES * A_STAGE + stage * B_STAGE;
      const unsigned char* const raw = smem_al + STAGES * (A_STAGE + B_STAGE) + stage * B_STAGE;
#pragma unroll
      for (int u = 0; u < UB; ++u) {
        if (b_rb[u] < 0) continue;
        u32 rows[VB][BW];
#pragma unroll
        for (int i = 0; i < VB; ++i)
          load_words<VB * ESZ>(rows[i], raw + (i * B_UNITS + ltid + u * LTHREADS) * VB * ESZ, true);
#pragma unroll
        for (int r = 0; r < VB; ++r) {
          u32 w[BW];
          block_column<VB, ESZ, BW>(rows, r, w);
          store_words<VB * ESZ>(sb + swz((b_rb[u] * VB + r) * ROWB + b_cb[u] * VB * ESZ), w);
        }
      }
    } else {
      (void)stage;
      store_b();
    }
  };
#if GCONV_TMA
  // TMA (math = wgmmatma, backward data, gm1). Pointwise: k-tile kt's A tile is the box of BK
  // channels of group gb at dX pixels m0.. of tensor map A ([K/G, G, pixels] over dY); its
  // N-major B tile is BN / 64 boxes of 64 channels × BK rows kk of group gb (map B: [C/G, K/G,
  // G] over W), one per 64-channel panel (bn_offset). Channels, pixels and rows past the
  // tensors come in as zeros. All complete on the stage's full barrier.
  // The general path (stride 1, 2D): k-tile kt is (tap (y, x), block of BK dY channels), taps
  // outer; A is the im2col copy of those channels of group gb at the BM dX pixels from m0, the
  // walk starting at m0's corner (w + PW − (FX−1)·DW, h + PH − (FY−1)·DH, n) with the flipped
  // tap's offsets ((FX−1−x)·DW, (FY−1−y)·DH), i.e. dY at w + PW − x·DW (map A: dY as [K, Wo,
  // Ho, N]); B the BN / 64 panel boxes of 64 channels × 1 tap × BK rows kk (map B: W as [C/G,
  // taps, K/G, G]).
  static_assert(GM == 1 && !A_MMAJOR && B_NMAJOR, "TMA boxes: the backward-data per-group GEMM");
  static_assert(POINTWISE || (!PACK && CG % BK == 0 && OD == 1 && FZ == 1 && SW == 1 && SH == 1),
                "im2col copies: stride 1, 2D, whole channel blocks");
  static_assert(A_STAGE == BM * BK * ESZ && B_STAGE == BN * BK * ESZ, "a stage is its boxes");
  const int t_w = m0 % OW, t_h = (m0 / OW) % OH, t_n = m0 / (OW * OH);
  auto tma_fetch = [&](int stage, int kt, u32 bar) {
    if constexpr (POINTWISE) {
      const int k = kt * BK;
      tma_load_3d(sbase + stage * A_STAGE, tmap_a, bar, k, gb, m0);
#pragma unroll
      for (int p = 0; p < BN / 64; ++p) {
        tma_load_3d(sbase_b + stage * B_STAGE + p * (BK * 128), tmap_b, bar, n0 + 64 * p, k, gb);
      }
    } else {
      const int tap = kt / CBLK, k = (kt % CBLK) * BK;
      const int tx = tap % FX, ty = tap / FX;
      tma_load_4d_im2col(sbase + stage * A_STAGE, tmap_a, bar, gb * CG + k, t_w + PW - (FX - 1) * DW,
                         t_h + PH - (FY - 1) * DH, t_n, (FX - 1 - tx) * DW, (FY - 1 - ty) * DH);
#pragma unroll
      for (int p = 0; p < BN / 64; ++p) {
        tma_load_4d(sbase_b + stage * B_STAGE + p * (BK * 128), tmap_b, bar, n0 + 64 * p, tap, k, gb);
      }
    }
  };
#endif
