  // ---- epilogue: restage through shared memory, then coalesced VC-wide stores ----
#if GCONV_MATH_WGMMA
  // m64nN accumulator layout: warp w of the warpgroup holds rows 16w + lane/4 (+8); register
  // 4j + e holds column 8j + 2(lane % 4) + (e % 2). (A producer warpgroup holds none.)
#pragma unroll
  for (int i = 0; i < (tid < CTHREADS ? MWG : 0); ++i)
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int row = (wg * MWG + i) * 64 + (warp & 3) * 16 + (lane >> 2);
      const int col = j * 8 + (lane & 3) * 2;
      if constexpr (OUT_ESZ == 2) {
        *reinterpret_cast<u32*>(smem + (row * CROW + col) * 2) = pack2(acc[i][4 * j], acc[i][4 * j + 1]);
        *reinterpret_cast<u32*>(smem + ((row + 8) * CROW + col) * 2) = pack2(acc[i][4 * j + 2], acc[i][4 * j + 3]);
      } else {
        float* p0 = reinterpret_cast<float*>(smem + (row * CROW + col) * 4);
        float* p1 = reinterpret_cast<float*>(smem + ((row + 8) * CROW + col) * 4);
        p0[0] = acc[i][4 * j];
        p0[1] = acc[i][4 * j + 1];
        p1[0] = acc[i][4 * j + 2];
        p1[1] = acc[i][4 * j + 3];
      }
    }
#elif GCONV_MATH_MMA
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j) {
      const int row = wm * WM + i * 16 + (lane >> 2);
      const int col = wn * WN + j * 8 + (lane & 3) * 2;
      if constexpr (OUT_ESZ == 2) {
        *reinterpret_cast<u32*>(smem + (row * CROW + col) * 2) = pack2(acc[i][j][0], acc[i][j][1]);
        *reinterpret_cast<u32*>(smem + ((row + 8) * CROW + col) * 2) = pack2(acc[i][j][2], acc[i][j][3]);
      } else {
        float* p0 = reinterpret_cast<float*>(smem + (row * CROW + col) * 4);
        float* p1 = reinterpret_cast<float*>(smem + ((row + 8) * CROW + col) * 4);
        p0[0] = acc[i][j][0];
        p0[1] = acc[i][j][1];
        p1[0] = acc[i][j][2];
        p1[1] = acc[i][j][3];
      }
    }
#else
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int row = A_MMAJOR ? wm * WM + (i / 4) * 16 + li * 4 + i % 4 : wm * WM + i * 4 + li;
      const int col = A_MMAJOR ? wn * WN + (j / 4) * 32 + lj * 4 + j % 4 : wn * WN + j * 8 + lj;
      *reinterpret_cast<float*>(smem + (row * CROW + col) * 4) = acc[i][j];
    }
#endif
  __syncthreads();
#if GCONV_SPLIT_CLUSTER
  // Cluster split: every slice's f32 tile is staged; rank r takes the runs of THREADS chunks
  // that start at (r + k·SPLIT)·THREADS, reads each chunk from the SPLIT ranks (one vector
  // load per rank), sums them in rank order (a fixed order: bit-identical runs) and stores them
  // in the output dtype. The second barrier keeps each CTA's shared memory alive until every
  // rank has read it.
  cluster_sync();
  static_assert(VC == 1 || VC == 2 || VC == 4, "f32 staging: chunks of at most 16 bytes");
  constexpr bool OUT_F32 = ESZ == 4;  // f32 output; f16/bf16 otherwise
  unsigned char* const out_b = reinterpret_cast<unsigned char*>(out);
#pragma unroll 1
  for (int idx = tid + split * THREADS; idx < C_CHUNKS; idx += THREADS * SPLIT) {
    const int row = idx / CPR_C, col = (idx % CPR_C) * VC;
    const int m = m0 + row, n = n0 + col;
    if (m < m_rows && n < n_cols) {
      const long long off = out_off(m, n);
      if (off >= 0) {
        const float* src = reinterpret_cast<const float*>(smem) + row * CROW + col;
        float part[SPLIT][VC], s[VC];
#pragma unroll
        for (int q = 0; q < SPLIT; ++q) ld_cluster_f32xn<VC>(src, (unsigned)q, part[q]);
#pragma unroll
        for (int e = 0; e < VC; ++e) s[e] = 0.f;
#pragma unroll
        for (int q = 0; q < SPLIT; ++q)
#pragma unroll
          for (int e = 0; e < VC; ++e) s[e] += part[q][e];
        alignas(16) unsigned char v[VC * ESZ];
#pragma unroll
        for (int e = 0; e < VC; ++e) {
          if constexpr (OUT_F32) {
            reinterpret_cast<float*>(v)[e] = s[e];
          } else {
            reinterpret_cast<u16*>(v)[e] = to_half_bits(s[e]);
          }
        }
        copy_bytes<VC * ESZ>(out_b + off * ESZ, v);
      }
    }
  }
  cluster_sync();
#else
  // Split-K: slice `split` writes its own f32 plane (deterministic) or adds into plane 0 (atomic).
  unsigned char* dst_base = reinterpret_cast<unsigned char*>(SPLIT > 1 ? workspace : out) +
                            (GCONV_SPLIT_ATOMIC ? 0 : (long long)split * RED_PLANE) * OUT_ESZ;
#pragma unroll 4
  for (int idx = tid; idx < C_CHUNKS; idx += THREADS) {
    const int row = idx / CPR_C, col = (idx % CPR_C) * VC;
    const int m = m0 + row, n = n0 + col;
    if (m < m_rows && n < n_cols) {
      const long long off = out_off(m, n);  // the direction's output element, < 0: not stored
      if (off >= 0) {
#if GCONV_SPLIT_ATOMIC
#pragma unroll
        for (int e = 0; e < VC; ++e)
          red_add_f32(reinterpret_cast<float*>(dst_base) + off + e,
                      *reinterpret_cast<const float*>(smem + (row * CROW + col + e) * 4));
#else
        copy_bytes<VC * OUT_ESZ>(dst_base + off * OUT_ESZ, smem + (row * CROW + col) * OUT_ESZ);
#endif
      }
    }
  }
#endif
}
