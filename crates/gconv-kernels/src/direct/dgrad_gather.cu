// ---- backward-data weight gathers ----
// The dgrad modules stage W through an index (the dual's flip and channel transpose, or a
// stride phase's taps), so their weight copies are plain reads and stores, not cp.async; and
// the staging comes before the first tile's copies, so every CTA waits for it. gather_batched
// runs store(i, load(i)) for every i = tid, tid + STRIDE, … < n with a thread's reads in
// batches of four issued before any of their stores: one memory latency per batch instead of
// one per element.
template <int STRIDE, typename Load, typename Store>
__device__ __forceinline__ void gather_batched(int tid, int n, Load load, Store store) {
  for (int i0 = tid; i0 < n; i0 += 4 * STRIDE) {
    decltype(load(0)) v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (i0 + j * STRIDE < n) v[j] = load(i0 + j * STRIDE);
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (i0 + j * STRIDE < n) store(i0 + j * STRIDE, v[j]);
    }
  }
}
