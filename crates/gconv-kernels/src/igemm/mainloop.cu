#if GCONV_MATH_WGMMA
  // ---- warpgroup MMA: warpgroup wg owns MWG m64 blocks of the tile and all BN columns ----
  constexpr int NWG = CTHREADS / 128;
  constexpr int MWG = BM / (64 * NWG);
  static_assert(BK == 64 && BM == 64 * NWG * MWG && WG_NACC == BN / 2, "wgmma tile");
  const int wg = warp_uniform(warp >> 2);
  (void)wm;
  (void)wn;
  float acc[MWG][WG_NACC];
#pragma unroll
  for (int i = 0; i < MWG; ++i)
#pragma unroll
    for (int r = 0; r < WG_NACC; ++r) acc[i][r] = 0.f;
  // Issues the k-tile's wgmma batch and retires the previous one (at most one batch in flight
  // behind the barrier of the next k-tile).
  // the descriptors of stage 0, k-step 0 (this warpgroup's rows); a stage, an m64 block and a
  // k-step advance them by their byte offsets (`wg_desc_add`)
  const u32 sa0 = sbase + wg * MWG * 64 * ROWB;
  const u64 da0 = A_MMAJOR ? wg_desc_n(sa0, BK * 128) : wg_desc(sa0);
  const u64 db0 = B_NMAJOR ? wg_desc_n(sbase_b, BK * 128) : wg_desc(sbase_b);
#if GCONV_HALO
  // the halo path: this warpgroup's rows of the halo buffers, shifted per k-tile (halo_a_off)
  const u64 dh0 = wg_desc(shalo + wg * MWG * 64 * ROWB);
#endif
  auto compute = [&](int stage, int kt) {
#if GCONV_HALO
    const u64 das = wg_desc_add(dh0, halo_a_off(kt));
#else
    (void)kt;
    const u64 das = wg_desc_add(da0, stage * A_STAGE);
#endif
    const u64 dbs = wg_desc_add(db0, stage * B_STAGE);
#pragma unroll
    for (int i = 0; i < MWG; ++i) wgmma_hold(acc[i]);
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < BK / 16; ++ks) {
#pragma unroll
      for (int i = 0; i < MWG; ++i) {
        // (an m64 block of an M-major A tile is one 64-element panel: the same base)
        const u64 da = wg_desc_add(das, i * 64 * ROWB + (A_MMAJOR ? ks * 2048 : ks * 32));
        const u64 db = wg_desc_add(dbs, B_NMAJOR ? ks * 2048 : ks * 32);
        wgmma_tile(acc[i], da, db);
      }
    }
    wgmma_commit();
    wgmma_wait<1>();
#pragma unroll
    for (int i = 0; i < MWG; ++i) wgmma_hold(acc[i]);
  };
#elif GCONV_MATH_MMA
  // ---- tensor-core math: warp tile WM x WN of m16n8k16 ----
  constexpr int MI = WM / 16, NI = WN / 8;
  float acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;
  // `mid(ks)` runs after the mma of k-step ks is issued: the pipeline puts the next stage's
  // loads there, so their address arithmetic issues while the tensor pipe works.
  auto compute = [&](int stage, auto&& mid) {
    const u32 sa = sbase + stage * A_STAGE;
    const u32 sb = sbase_b + stage * B_STAGE;
#pragma unroll
    for (int ks = 0; ks < BK / 16; ++ks) {
      u32 af[MI][4];
      u32 bfr[NI][2];
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        if constexpr (A_MMAJOR) {
          // k rows of an M-major tile, transposed by ldmatrix into the row-major fragments
          const int k = ks * 16 + (lane & 7) + ((lane >> 4) << 3);
          const int m = wm * WM + i * 16 + (((lane >> 3) & 1) << 3);
          ldsm_x4_trans(af[i], sa + swz(mn_offset(k, m)));
        } else {
          const int row = wm * WM + i * 16 + (lane & 15);
          ldsm_x4(af[i], sa + swz(row * ROWB + (ks * 2 + (lane >> 4)) * 16));
        }
      }
#pragma unroll
      for (int p = 0; p < NI / 2; ++p) {
        u32 r[4];
        if constexpr (B_NMAJOR) {
          // k rows of an N-major tile, transposed by ldmatrix into the same fragments
          const int k = ks * 16 + (((lane >> 3) & 1) << 3) + (lane & 7);
          const int n = wn * WN + p * 16 + ((lane >> 4) << 3);
          ldsm_x4_trans(r, sb + swz(bn_offset(k, n)));
        } else {
          const int row = wn * WN + p * 16 + (lane & 7) + ((lane >> 4) << 3);
          ldsm_x4(r, sb + swz(row * ROWB + (ks * 2 + ((lane >> 3) & 1)) * 16));
        }
        bfr[2 * p][0] = r[0];
        bfr[2 * p][1] = r[1];
        bfr[2 * p + 1][0] = r[2];
        bfr[2 * p + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j) mma16816(acc[i][j], af[i], bfr[j][0], bfr[j][1]);
      mid(ks);
    }
  };
#else
  // ---- CUDA-core math: 4 x 8 lanes per warp, TM x TN outputs per thread ----
  constexpr int TM = WM / 4, TN = WN / 8;
  const int li = lane >> 3, lj = lane & 7;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
  auto compute = [&](int stage) {
    const unsigned char* sa = smem + stage * A_STAGE;
    const unsigned char* sb = smem + STAGES * A_STAGE + stage * B_STAGE;
    if constexpr (A_MMAJOR) {
      // MN-major tiles (outer products): per k, 4 consecutive rows and 4 consecutive columns
      // per 16-byte read; thread (li, lj) owns rows wm·WM + 16i + 4li + e and columns
      // wn·WN + 32j + 4lj + f (the epilogue's mapping below)
      static_assert(!A_MMAJOR || (WM % 16 == 0 && WN % 32 == 0), "MN-major CUDA-core warp tile");
      constexpr int TM4 = TM / 4 > 0 ? TM / 4 : 1, TN4 = TN / 4 > 0 ? TN / 4 : 1;
#pragma unroll 4
      for (int k = 0; k < BK; ++k) {
        f4 a[TM4], b[TN4];
#pragma unroll
        for (int i = 0; i < TM4; ++i)
          a[i] = *reinterpret_cast<const f4*>(sa + swz(mn_offset(k, wm * WM + i * 16 + li * 4)));
#pragma unroll
        for (int j = 0; j < TN4; ++j)
          b[j] = *reinterpret_cast<const f4*>(sb + swz(mn_offset(k, wn * WN + j * 32 + lj * 4)));
#pragma unroll
        for (int i = 0; i < TM4; ++i)
#pragma unroll
          for (int j = 0; j < TN4; ++j) {
            const float av[4] = {a[i].x, a[i].y, a[i].z, a[i].w};
            const float bv[4] = {b[j].x, b[j].y, b[j].z, b[j].w};
#pragma unroll
            for (int e = 0; e < 4; ++e)
#pragma unroll
              for (int f = 0; f < 4; ++f) acc[4 * i + e][4 * j + f] = fmaf(av[e], bv[f], acc[4 * i + e][4 * j + f]);
          }
      }
      return;
    }
#pragma unroll
    for (int kq = 0; kq < BK / 4; ++kq) {
      f4 a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i)
        a[i] = *reinterpret_cast<const f4*>(sa + swz((wm * WM + i * 4 + li) * ROWB + kq * 16));
#pragma unroll
      for (int j = 0; j < TN; ++j)
        b[j] = *reinterpret_cast<const f4*>(sb + swz((wn * WN + j * 8 + lj) * ROWB + kq * 16));
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          acc[i][j] = fmaf(a[i].x, b[j].x, acc[i][j]);
          acc[i][j] = fmaf(a[i].y, b[j].y, acc[i][j]);
          acc[i][j] = fmaf(a[i].z, b[j].z, acc[i][j]);
          acc[i][j] = fmaf(a[i].w, b[j].w, acc[i][j]);
        }
    }
  };
#endif

  // ---- multistage cp.async pipeline: one barrier per k-tile ----
#if GCONV_WS
  // Warp-specialised: the producer warpgroups (threads CTHREADS..) fill stage kt % STAGES with
  // k-tile kt once the consumers released its previous k-tile (empty) and signal it (full);
  // the consumer warpgroups wait for full, issue the k-tile's wgmma batch and, once the
  // previous batch retired (wait_group 1), release the previous k-tile's stage.
  //  - Copies only (ASYNC): each producer thread's arrival on full is tied to the completion
  //    of its copies (cp.async.mbarrier.arrive.noinc), so the producer never waits for data
  //    and keeps up to STAGES k-tiles in flight; the consumers fence the proxies after the
  //    wait (the copies wrote through the generic proxy, wgmma reads through the async one).
  //  - Register-staged elements or a restaging step (`land`): the producer signals k-tile r
  //    LAG = STAGES - 2 k-tiles later, when its own copies of it have landed (cp.async groups
  //    complete in order), after the restaging and the proxy fence. LAG = STAGES - 2 keeps the
  //    two roles from waiting on each other: the stage the producer waits for in iteration kt
  //    (k-tile kt - STAGES) is released when the consumers start k-tile kt - STAGES + 1,
  //    signalled in producer iteration kt - STAGES + 1 + LAG = kt - 1.
  constexpr bool ASYNC = !LANDS && !A_SYNC && !B_SYNC;
  constexpr int LAG = STAGES - 2;
  static_assert(LAG >= 1, "wgmma pipelines need 3 or more stages");
  auto full_bar = [&](int s) { return sbar + 16u * s; };
  auto empty_bar = [&](int s) { return sbar + 16u * s + 8u; };
  if (tid == 0) {
#pragma unroll 1
    for (int s = 0; s < STAGES; ++s) {
      // every producer thread signals its copies (TMA: the one issuing lane, with the bytes)
      mbar_init(full_bar(s), GCONV_TMA ? 1 : LTHREADS);
      mbar_init(empty_bar(s), CTHREADS / 32);  // one arrival per consumer warp
    }
#if GCONV_TMA
    mbar_init_fence();  // the box copies complete bytes on the full barriers
#endif
  }
  __syncthreads();
  if (warp_uniform(warp) >= CTHREADS / 32) {  // the producers (a branch uniform per warp)
#if GCONV_TMA
    // One lane of the producer warp: per k-tile, once the stage is free, an arrival that
    // expects the stage's bytes, then the stage's copies that deliver them (`tma_fetch`).
    if (lane == 0) {
#pragma unroll 1
      for (int kt = 0; kt < nkt; ++kt) {
        const int s = kt % STAGES;
        if (kt >= STAGES) mbar_wait(empty_bar(s), (kt / STAGES - 1) & 1);
        mbar_arrive_expect_tx(full_bar(s), A_STAGE + B_STAGE);
        tma_fetch(s, kt, full_bar(s));
      }
    }
#else
    if constexpr (ASYNC) {
#pragma unroll 1
      for (int kt = 0; kt < nkt; ++kt) {
        const int s = kt % STAGES;
        if (kt >= STAGES) mbar_wait(empty_bar(s), (kt / STAGES - 1) & 1);
        fetch(s);
        cp_async_commit();
        cp_async_mbar_arrive(full_bar(s));  // completes when this thread's copies have landed
      }
    } else {
#pragma unroll 1
      for (int kt = 0; kt < nkt + LAG; ++kt) {
        if (kt < nkt) {
          const int s = kt % STAGES;
          if (kt >= STAGES) mbar_wait(empty_bar(s), (kt / STAGES - 1) & 1);
          fetch(s);
          flush(s);
        }
        cp_async_commit();
        const int r = kt - LAG;  // the k-tile whose copies have landed once LAG groups remain
        if (r >= 0) {
          cp_async_wait<LAG>();
          land(r % STAGES);
          fence_proxy_async();  // this thread's copies visible to the tensor cores
          mbar_arrive(full_bar(r % STAGES));
        }
      }
    }
#endif
  } else {
#pragma unroll 1
    for (int kt = 0; kt < nkt; ++kt) {
      const int s = kt % STAGES;
      mbar_wait(full_bar(s), (kt / STAGES) & 1);
      if constexpr (ASYNC) fence_proxy_async();  // the producer's copies, to the async proxy
      compute(s, kt);  // k-tile kt issued; k-tile kt - 1 retired
      if (kt >= 1) {
        __syncwarp();  // every lane of the warp retired k-tile kt - 1 before its arrival
        if (lane == 0) mbar_arrive(empty_bar((kt - 1) % STAGES));
      }
    }
    wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < MWG; ++i) wgmma_hold(acc[i]);
  }
  __syncthreads();
  // the barriers' words become the epilogue's staging (after the barrier below)
  if (tid == 0) {
#pragma unroll 1
    for (int s = 0; s < STAGES; ++s) {
      mbar_inval(full_bar(s));
      mbar_inval(empty_bar(s));
    }
  }
#elif GCONV_MATH_WGMMA
  // Prefetch distance STAGES - 2: the stage refilled in iteration kt was last read by the
  // wgmma batch of k-tile kt - 2, which every warpgroup retired (wait_group 1 in iteration
  // kt - 1) before the barrier of iteration kt; the batch of kt - 1 may still be running.
  constexpr int PF = STAGES - 2;
  static_assert(PF >= 1, "wgmma pipelines need 3 or more stages");
#pragma unroll
  for (int s = 0; s < PF; ++s) {
    if (s < nkt) {
      fetch(s);
      flush(s);
    }
#if GCONV_HALO
    // Block s is first read by k-tile s: it lands before that k-tile's barrier. The blocks past
    // the prologue join its last group (issued now, in flight while the first k-tiles compute):
    // issuing each with its own k-tile in the loop ran 1.15x slower at 4+ blocks
    // (results/h200/s27/call_d).
    if (s < CBLK) fetch_halo(s);
    if (s == PF - 1)
      for (int b = PF; b < CBLK; ++b) fetch_halo(b);
#endif
    cp_async_commit();
  }
  for (int kt = 0; kt < nkt; ++kt) {
    cp_async_wait<PF - 1>();
    land(kt % STAGES);    // the direction's restaging of this k-tile, before the barrier
    fence_proxy_async();  // this thread's copies (and flushes) visible to the tensor cores
    __syncthreads();
    const bool more = kt + PF < nkt;
    const int ws = (kt + PF) % STAGES;
    if (more) fetch(ws);
    cp_async_commit();
    compute(kt % STAGES, kt);
    if (more) flush(ws);
  }
  wgmma_wait<0>();
#pragma unroll
  for (int i = 0; i < MWG; ++i) wgmma_hold(acc[i]);
#else
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < nkt) {
      fetch(s);
      flush(s);
    }
    cp_async_commit();
  }
  int rs = 0, ws = STAGES - 1;
  for (int kt = 0; kt < nkt; ++kt) {
    cp_async_wait<STAGES - 2>();
    land(rs);  // the direction's restaging of this k-tile, before the barrier
    __syncthreads();
    const bool more = kt + STAGES - 1 < nkt;
#if GCONV_MATH_MMA
    // the next stage's loads after the first k-step's mma (the stage they fill was last read
    // in iteration kt - 1, before this iteration's barrier)
    compute(rs, [&](int ks) {
      if (ks == 0 && more) fetch(ws);
    });
    cp_async_commit();
#else
    if (more) fetch(ws);
    cp_async_commit();
    compute(rs);
#endif
    if (more) flush(ws);
    rs = (rs + 1 == STAGES) ? 0 : rs + 1;
    ws = (ws + 1 == STAGES) ? 0 : ws + 1;
  }
#endif
  cp_async_wait<0>();
  __syncthreads();

