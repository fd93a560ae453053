// ---- split-K reductions (shared by the families; constants RED_PLANE, RED_SPLIT, ESZ) ----
#if GCONV_SPLIT_REDUCE
// Deterministic: sums the RED_SPLIT f32 partial planes in slice order, converts, stores.
extern "C" __global__ void __launch_bounds__(256) @ENTRY@_reduce(const void* __restrict__ in0,
                                                                const void* __restrict__ in1,
                                                                void* __restrict__ out,
                                                                void* __restrict__ workspace) {
  const float* __restrict__ ws = reinterpret_cast<const float*>(workspace);
  const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
  if (i < RED_PLANE) {
    float s = 0.f;
#pragma unroll 4
    for (int p = 0; p < RED_SPLIT; ++p) s += ws[p * RED_PLANE + i];
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
