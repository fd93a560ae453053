// Host shim for emulating generated CUDA C++ kernels on the CPU (tests/host_emulation.rs).
//
// One std::thread per CUDA thread of a block; blocks run one at a time, in grid order. The
// block's threads live for the whole grid and walk the blocks together, separated by a
// std::barrier, which also implements __syncthreads(). Dynamic shared memory is one buffer,
// poisoned with 0xFF bytes (NaN in every dtype) before each block so that a read of shared
// memory nobody wrote shows up in the output. Built-ins (threadIdx, blockIdx, blockDim,
// gridDim) are thread_local and set per emulated thread.
//
// Mutation switches (the harness proves it can fail):
//   GCONV_SHIM_DROP_LAST_BLOCK  the last block of the grid is not run
#pragma once
#define GCONV_HOST_EMULATION 1

#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
};
struct alignas(16) uint4 {
  unsigned int x, y, z, w;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) uint2 {
  unsigned int x, y;
};

thread_local uint3 threadIdx;
thread_local uint3 blockIdx;
thread_local dim3 blockDim;
thread_local dim3 gridDim;

static std::barrier<>* gconv_host_barrier = nullptr;
static unsigned char* gconv_host_smem = nullptr;

inline void __syncthreads() { gconv_host_barrier->arrive_and_wait(); }

template <typename T>
inline T __ldg(const T* p) {
  return *p;
}

#define GCONV_DYNAMIC_SMEM(name) unsigned char* name = gconv_host_smem

typedef void (*gconv_host_kernel)(const void*, const void*, void*, void*);

// Runs `kernel` over the grid; returns 0.
inline int gconv_host_launch(gconv_host_kernel kernel, dim3 grid, dim3 block, size_t smem_bytes,
                             const void* in0, const void* in1, void* out, void* workspace) {
  const unsigned threads = block.x * block.y * block.z;
  const size_t smem_alloc = (smem_bytes + 15) / 16 * 16 + 16;
  gconv_host_smem = static_cast<unsigned char*>(std::aligned_alloc(16, smem_alloc));
  std::barrier<> bar(threads);
  gconv_host_barrier = &bar;
  unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
#ifdef GCONV_SHIM_DROP_LAST_BLOCK
  blocks -= 1;
#endif
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([=, &bar] {
      threadIdx = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
      blockDim = block;
      gridDim = grid;
      for (unsigned long long b = 0; b < blocks; ++b) {
        bar.arrive_and_wait();  // the previous block is done with shared memory
        if (t == 0) std::memset(gconv_host_smem, 0xFF, smem_alloc);
        bar.arrive_and_wait();
        blockIdx = uint3{(unsigned)(b % grid.x), (unsigned)((b / grid.x) % grid.y),
                         (unsigned)(b / ((unsigned long long)grid.x * grid.y))};
        kernel(in0, in1, out, workspace);
      }
    });
  }
  for (auto& th : pool) th.join();
  gconv_host_barrier = nullptr;
  std::free(gconv_host_smem);
  gconv_host_smem = nullptr;
  return 0;
}

// Reads a whole file of exactly `bytes` bytes into a fresh heap buffer of that size (so that
// AddressSanitizer catches any read past its end); exits on error.
inline void* gconv_host_read(const char* path, size_t bytes) {
  FILE* f = std::fopen(path, "rb");
  if (!f) {
    std::fprintf(stderr, "cannot open %s\n", path);
    std::exit(2);
  }
  void* p = std::malloc(bytes ? bytes : 1);
  const size_t got = std::fread(p, 1, bytes, f);
  const int extra = std::fgetc(f);
  std::fclose(f);
  if (got != bytes || extra != EOF) {
    std::fprintf(stderr, "%s: expected exactly %zu bytes\n", path, bytes);
    std::exit(2);
  }
  return p;
}

inline void gconv_host_write(const char* path, const void* p, size_t bytes) {
  FILE* f = std::fopen(path, "wb");
  if (!f || std::fwrite(p, 1, bytes, f) != bytes) {
    std::fprintf(stderr, "cannot write %s\n", path);
    std::exit(2);
  }
  std::fclose(f);
}
