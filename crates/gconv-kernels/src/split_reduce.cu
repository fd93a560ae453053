// ---- split-K reductions (shared by the families; constants RED_PLANE, RED_SPLIT, ESZ) ----
#if GCONV_SPLIT_REDUCE
// Deterministic: sums the RED_SPLIT f32 partial planes in a fixed order, converts, stores. A
// CTA owns RE_ consecutive elements; RS_ = GCONV_RED_SLICES threads per element, thread slice q
// adding planes q, q + RS_, ... in order, then the RS_ slice sums added in slice order (with
// RS_ = 1 a plain in-order sum). The order depends on the constants only: bit-identical runs.
constexpr int RS_ = GCONV_RED_SLICES;
constexpr int RE_ = 256 / RS_;
static_assert(RS_ >= 1 && RS_ <= 32 && (RS_ & (RS_ - 1)) == 0 && RS_ <= RED_SPLIT, "reduction slices");
extern "C" __global__ void __launch_bounds__(256) @ENTRY@_reduce(const void* __restrict__ in0,
                                                                const void* __restrict__ in1,
                                                                void* __restrict__ out,
                                                                void* __restrict__ workspace) {
  wait_prior_grid();  // the slices' planes are complete and visible (launched overlapping)
  const float* __restrict__ ws = reinterpret_cast<const float*>(workspace);
  const int t = threadIdx.x;
  const int q = t / RE_;  // plane slice
  const long long i = (long long)blockIdx.x * RE_ + t % RE_;
  float s = 0.f;
  if (i < RED_PLANE) {
#pragma unroll 4
    for (int p = q; p < RED_SPLIT; p += RS_) s += ws[p * RED_PLANE + i];
  }
  if constexpr (RS_ > 1) {
    __shared__ float slice_sum[256];
    slice_sum[t] = s;
    __syncthreads();
    if (q != 0) return;
    s = 0.f;
#pragma unroll
    for (int r = 0; r < RS_; ++r) s += slice_sum[r * RE_ + t];
  }
  if (i < RED_PLANE) {
    if constexpr (ESZ == 4) {
      reinterpret_cast<float*>(out)[i] = s;
    } else {
      reinterpret_cast<u16*>(out)[i] = to_half_bits(s);
    }
  }
}
#endif
#if GCONV_SPLIT_ATOMIC
// Atomic (named `a`, never the default): the slices add into one f32 plane (`red_add_f32`);
// this launch zeroes it first and `_convert` stores it in the output dtype.
extern "C" __global__ void __launch_bounds__(256) @ENTRY@_zero(const void* __restrict__ in0,
                                                              const void* __restrict__ in1,
                                                              void* __restrict__ out,
                                                              void* __restrict__ workspace) {
  const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
  if (i < RED_PLANE) reinterpret_cast<float*>(workspace)[i] = 0.f;
}
extern "C" __global__ void __launch_bounds__(256) @ENTRY@_convert(const void* __restrict__ in0,
                                                                 const void* __restrict__ in1,
                                                                 void* __restrict__ out,
                                                                 void* __restrict__ workspace) {
  wait_prior_grid();  // every slice has added into the plane (launched overlapping)
  const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
  if (i < RED_PLANE) {
    const float s = reinterpret_cast<const float*>(workspace)[i];
    if constexpr (ESZ == 4) {
      reinterpret_cast<float*>(out)[i] = s;
    } else {
      reinterpret_cast<u16*>(out)[i] = to_half_bits(s);
    }
  }
}
#endif
