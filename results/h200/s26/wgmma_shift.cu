// Session 26 probe (not part of the product): can one 128-byte-swizzled shared-memory tile feed
// wgmma at start addresses shifted by whole 128-byte rows? If so, a 3x3 stride-1 layer's nine
// taps can read one staged halo of the K-major A operand through nine descriptors (issue #12,
// results/h200/s26/README.md). One warpgroup, wgmma m64n8k16 bf16 -> f32: A is 128 rows of 64
// bf16 (row r, element k holds ((7r + k) mod 251) - 125, exact in bf16) written with the
// 128-byte swizzle applied to the absolute shared address (16-byte chunk bits [4,7) ^= address
// bits [7,10)); B (8 x 64, K-major, the same swizzle) selects element k = n + 16*ks of a row. D
// must be A[m + shift][n + 16*ks]. Tried for row shifts 0..17, k-steps 0..3 and the descriptor's
// base-offset field 0 or (start >> 7) & 7.
//   nvcc -O2 -gencode arch=compute_90a,code=sm_90a -o wgmma_shift wgmma_shift.cu && ./wgmma_shift
#include <cstdio>
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ float a_val(int r, int k) { return (float)((7 * r + k) % 251 - 125); }

__global__ void probe(float* out, int shift, int ks, int boff_mode) {
  extern __shared__ unsigned char sm[];
  const unsigned raw = smem_u32(sm);
  const unsigned base = (raw + 1023u) & ~1023u;
  unsigned char* p = sm + (base - raw);
  const int t = threadIdx.x;
  // A: 128 rows x 128 bytes at base; B: 8 rows x 128 bytes at base + 16384
  for (int i = t; i < 128 * 64; i += 128) {
    const int r = i / 64, k = i % 64;
    unsigned off = r * 128 + k * 2;
    unsigned addr = base + off;
    unsigned sw = off ^ (((addr >> 7) & 7u) << 4);
    *reinterpret_cast<__nv_bfloat16*>(p + sw) = __float2bfloat16(a_val(r, k));
  }
  for (int i = t; i < 8 * 64; i += 128) {
    const int n = i / 64, k = i % 64;
    unsigned off = 16384 + n * 128 + k * 2;
    unsigned addr = base + off;
    unsigned sw = off ^ (((addr >> 7) & 7u) << 4);
    *reinterpret_cast<__nv_bfloat16*>(p + sw) = __float2bfloat16(k == n + 16 * ks ? 1.f : 0.f);
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const unsigned sa = base + shift * 128 + ks * 32;
  const unsigned sb = base + 16384 + ks * 32;
  const unsigned long long boff = boff_mode ? ((sa >> 7) & 7u) : 0u;
  const unsigned long long da = (unsigned long long)((sa & 0x3FFFFu) >> 4) | (1ull << 16) |
                                ((unsigned long long)(1024 >> 4) << 32) | (boff << 49) | (1ull << 62);
  const unsigned long long db = (unsigned long long)((sb & 0x3FFFFu) >> 4) | (1ull << 16) |
                                ((unsigned long long)(1024 >> 4) << 32) | (1ull << 62);
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  const int w = t / 32, l = t % 32;
  const int row = 16 * w + l / 4, col = (l % 4) * 2;
  out[row * 8 + col] = d0;
  out[row * 8 + col + 1] = d1;
  out[(row + 8) * 8 + col] = d2;
  out[(row + 8) * 8 + col + 1] = d3;
}

static float host_a(int r, int k) { return (float)((7 * r + k) % 251 - 125); }

int main() {
  float* d;
  cudaMalloc(&d, 64 * 8 * sizeof(float));
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 20 * 1024);
  float h[64 * 8];
  int bad_by_mode[2] = {0, 0};
  for (int boff_mode = 0; boff_mode < 2; ++boff_mode) {
    for (int ks = 0; ks < 4; ++ks) {
      int line_bad = 0;
      printf("base offset %s, k-step %d: ", boff_mode ? "(start>>7)&7" : "0", ks);
      for (int shift = 0; shift < 18; ++shift) {
        cudaMemset(d, 0xff, sizeof(h));
        probe<<<1, 128, 20 * 1024>>>(d, shift, ks, boff_mode);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
          printf("launch failed: %s\n", cudaGetErrorString(e));
          return 2;
        }
        cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
        int bad = 0;
        for (int m = 0; m < 64; ++m)
          for (int n = 0; n < 8; ++n)
            if (h[m * 8 + n] != host_a(m + shift, n + 16 * ks)) ++bad;
        printf("%s", bad ? "x" : ".");
        line_bad += bad != 0;
      }
      printf("  (%d of 18 shifts wrong)\n", line_bad);
      bad_by_mode[boff_mode] += line_bad;
    }
  }
  for (int m = 0; m < 2; ++m)
    printf("base offset %s: %s\n", m ? "(start>>7)&7" : "0",
           bad_by_mode[m] ? "some shifted starts read other rows" : "every shifted start reads the shifted rows");
  return 0;
}
