// ---- direct helpers (after the shared prelude) ----
// Copy BYTES from global to shared, or zero-fill when !pred: 4/8/16 bytes are L1-allocating
// cp.async (halo pixels are re-read by the neighbouring CTA), 2-byte elements go through
// registers.
template <int BYTES>
__device__ __forceinline__ void copy_to_smem(void* dst, const void* src, bool pred) {
  if constexpr (BYTES == 2) {
    *reinterpret_cast<u16*>(dst) = pred ? *reinterpret_cast<const u16*>(src) : (u16)0;
  } else {
    cp_async<BYTES, true>(smem_u32(dst), src, pred);
  }
}

// The eight 16-bit values of a 16-byte read stored down a column of shared memory: value e
// (little-endian order) at dst[e * stride]. The backward-data weight gathers use it: one read
// of W holds one weight of eight adjacent rows of the dual's weight tile.
// N 16-bit values held as words (value e in the low or high half of w[e / 2]) stored down a
// column: value e at dst[e * stride]. The column stores of store_column8 and copy_column.
template <int N>
__device__ __forceinline__ void store_column(u16* dst, int stride, const u32 (&w)[(N + 1) / 2]) {
#pragma unroll
  for (int e = 0; e < N; ++e) dst[e * stride] = (u16)((w[e / 2] >> (16 * (e % 2))) & 0xffffu);
}

__device__ __forceinline__ void store_column8(u16* dst, int stride, const v16b& v) {
  const u32 w[4] = {v.x, v.y, v.z, v.w};
  store_column<8>(dst, stride, w);
}

// VW (1, 2, 4 or 8) adjacent 16-bit values read at once from src (aligned to VW·2 bytes),
// or zeros when !ok, stored down a column of shared memory: value e at dst[e * stride].
template <int VW>
__device__ __forceinline__ void copy_column(u16* dst, int stride, const u16* src, bool ok) {
  static_assert(VW == 1 || VW == 2 || VW == 4 || VW == 8, "column copies of 1, 2, 4 or 8 values");
  u32 w[(VW + 1) / 2] = {};
  if (ok) {
    if constexpr (VW == 8) {
      const v16b v = *reinterpret_cast<const v16b*>(src);
      w[0] = v.x;
      w[1] = v.y;
      w[2] = v.z;
      w[3] = v.w;
    } else if constexpr (VW == 4) {
      const v8b v = *reinterpret_cast<const v8b*>(src);
      w[0] = v.x;
      w[1] = v.y;
    } else if constexpr (VW == 2) {
      w[0] = *reinterpret_cast<const u32*>(src);
    } else {
      w[0] = *src;
    }
  }
  store_column<VW>(dst, stride, w);
}

// ---- element conversions ----
typedef ELEM elem_t;
__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(u16 v) {
  if constexpr (IS_BF16) {
    return bits_f32((u32)v << 16);
  } else {
    return f16_to_f32(v);
  }
}
__device__ __forceinline__ void from_f32(float v, float& out) { out = v; }
__device__ __forceinline__ void from_f32(float v, u16& out) { out = to_half_bits(v); }

// N elements from shared memory (N·ESZ-byte aligned) widened to f32, in 16/8/4-byte reads.
template <int N>
__device__ __forceinline__ void load_f32(const elem_t* p, float (&out)[N]) {
  constexpr int BYTES = N * ESZ;
  if constexpr (ESZ == 4 && BYTES >= 16) {
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      const v16b v = *reinterpret_cast<const v16b*>(p + i);
      out[i] = bits_f32(v.x);
      out[i + 1] = bits_f32(v.y);
      out[i + 2] = bits_f32(v.z);
      out[i + 3] = bits_f32(v.w);
    }
  } else if constexpr (ESZ == 2 && BYTES >= 16) {
#pragma unroll
    for (int i = 0; i < N; i += 8) {
      const v16b v = *reinterpret_cast<const v16b*>(p + i);
      const u32 w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        out[i + 2 * j] = to_f32((u16)(w[j] & 0xffffu));
        out[i + 2 * j + 1] = to_f32((u16)(w[j] >> 16));
      }
    }
  } else if constexpr (ESZ == 2 && BYTES == 8) {
    const v8b v = *reinterpret_cast<const v8b*>(p);
    out[0] = to_f32((u16)(v.x & 0xffffu));
    out[1] = to_f32((u16)(v.x >> 16));
    out[2] = to_f32((u16)(v.y & 0xffffu));
    out[3] = to_f32((u16)(v.y >> 16));
  } else if constexpr (ESZ == 2 && BYTES == 4) {
    const u32 v = *reinterpret_cast<const u32*>(p);
    out[0] = to_f32((u16)(v & 0xffffu));
    out[1] = to_f32((u16)(v >> 16));
  } else if constexpr (ESZ == 4 && BYTES == 8) {
    const v8b v = *reinterpret_cast<const v8b*>(p);
    out[0] = bits_f32(v.x);
    out[1] = bits_f32(v.y);
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = to_f32(p[i]);
  }
}

// N f32 values from shared memory (16-byte reads when N is a multiple of 4).
template <int N>
__device__ __forceinline__ void load_w(const float* p, float (&out)[N]) {
  if constexpr (N % 4 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      const v16b v = *reinterpret_cast<const v16b*>(p + i);
      out[i] = bits_f32(v.x);
      out[i + 1] = bits_f32(v.y);
      out[i + 2] = bits_f32(v.z);
      out[i + 3] = bits_f32(v.w);
    }
  } else if constexpr (N == 2) {
    const v8b v = *reinterpret_cast<const v8b*>(p);
    out[0] = bits_f32(v.x);
    out[1] = bits_f32(v.y);
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = p[i];
  }
}

// Stores N (= SV) converted values to global memory in one access of N·ESZ bytes.
template <int N>
__device__ __forceinline__ void store_out(elem_t* dst, const float* v) {
  if constexpr (ESZ == 4 && N == 4) {
    v16b o;
    o.x = f32_bits(v[0]);
    o.y = f32_bits(v[1]);
    o.z = f32_bits(v[2]);
    o.w = f32_bits(v[3]);
    *reinterpret_cast<v16b*>(dst) = o;
  } else if constexpr (ESZ == 4 && N == 2) {
    v8b o;
    o.x = f32_bits(v[0]);
    o.y = f32_bits(v[1]);
    *reinterpret_cast<v8b*>(dst) = o;
  } else if constexpr (ESZ == 2 && N == 8) {
    v16b o;
    o.x = pack2(v[0], v[1]);
    o.y = pack2(v[2], v[3]);
    o.z = pack2(v[4], v[5]);
    o.w = pack2(v[6], v[7]);
    *reinterpret_cast<v16b*>(dst) = o;
  } else if constexpr (ESZ == 2 && N == 4) {
    v8b o;
    o.x = pack2(v[0], v[1]);
    o.y = pack2(v[2], v[3]);
    *reinterpret_cast<v8b*>(dst) = o;
  } else if constexpr (ESZ == 2 && N == 2) {
    *reinterpret_cast<u32*>(dst) = pack2(v[0], v[1]);
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) from_f32(v[i], dst[i]);
  }
}

