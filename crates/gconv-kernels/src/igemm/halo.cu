  // ---- the halo fast path (geometry::HaloDims; the igemm module docs): the loaders above
  // keep no A tiles. Per 64-channel block cb of the reduction the CTA stages padded-image rows
  // m0 .. m0 + HALO_ROWS - 1 once (row r: padded pixel m0 + r, the A operand's pixel (h - LH,
  // w - LW) of its image or zero), 128 bytes each in the 128-byte swizzle, after the B stages;
  // block cb's copies join k-tile cb's copy group (its first use: the taps are the outer
  // k-loop; the blocks past the prologue's groups join its last), so k-tile 0 waits for one
  // block, not all of them.
  // The A tile of k-tile (tap, cb) is the block's buffer read from the tap's row shift on
  // (halo_a_off): wgmma reads a swizzled tile at any 128-byte row shift. Forward reads tap
  // (y, x) at shift y*DH*WP + x*DW; backward data, whose filter walks dY backwards, at
  // (FY-1-y)*DH*WP + (FX-1-x)*DW (HALO_FLIP). ----
#if GCONV_HALO
  static_assert(!PACK && CEFF % BK == 0 && ROWB == 128 && FZ == 1 && ID == 1 && OD == 1,
                "halo: whole 64-channel blocks of 128-byte rows, 2D");
  static_assert(SW == 1 && SH == 1 && LH >= 0 && LW >= 0 && SPLIT == 1 && GM == 1,
                "halo: stride 1, the A operand inside the padded image, no split or merge");
  constexpr int HALO_BYTES = HALO_ROWS * ROWB;
  const u32 shalo = sbase_b + STAGES * B_STAGE;
  // Stages channel block cb's halo (every block once, in the prologue).
  auto fetch_halo = [&](int cb) {
    constexpr int CHUNKS = HALO_ROWS * (ROWB / 16);
#pragma unroll 4
    for (int i = ltid; i < CHUNKS; i += LTHREADS) {
      const int r = i / (ROWB / 16), c = i % (ROWB / 16);
      const int g = m0 + r;
      const int n = g / (HP * WP), rem = g % (HP * WP);
      const int iy = rem / WP - LH, ix = rem % WP - LW;
      const bool ok = n < N_ && (unsigned)iy < (unsigned)IH && (unsigned)ix < (unsigned)IW;
      const int off = ok ? ((n * IH + iy) * IW + ix) * C_ + cb * BK + c * 8 : 0;
      cp_async<16, true>(shalo + cb * HALO_BYTES + swz(r * ROWB + c * 16), X + off, ok);
    }
  };
  // Byte offset in the halo buffers of k-tile kt's A tile (taps outer, channel blocks inner).
  auto halo_a_off = [&](int kt) -> u32 {
    const int tap = kt / CBLK, cb = kt % CBLK;
    const int ty = HALO_FLIP ? FY - 1 - tap / FX : tap / FX;
    const int tx = HALO_FLIP ? FX - 1 - tap % FX : tap % FX;
    return (u32)(cb * HALO_BYTES + (ty * DH * WP + tx * DW) * ROWB);
  };
#endif
