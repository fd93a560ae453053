// Host shim for emulating generated CUDA C++ kernels on the CPU (tests/host_emulation.rs).
//
// One fiber per CUDA thread of a block, all on one OS thread (see "emulated threads" below);
// blocks run one at a time, in grid order (the blocks of a thread-block cluster together: a
// launch with cluster_x > 1 runs cluster_x blocks at once, each with its own shared memory and
// barrier, and emulates the cluster barrier and distributed shared-memory reads). The block's
// threads live for the whole grid and walk the blocks together, separated by a barrier, which
// also implements __syncthreads(). Dynamic shared memory is one buffer per block, poisoned with
// 0xFF bytes (NaN in every dtype) before each block so that a read of shared memory nobody
// wrote shows up in the output. Built-ins (threadIdx, blockIdx, blockDim, gridDim) name the
// running fiber's own values. Warp-collective PTX (ldmatrix.x4/x2/x1,
// mma.sync.m16n8k16) is emulated through a per-warp barrier and staging area; wgmma is
// computed from its shared-memory descriptors at issue, with an operand checksum checked again
// when its batch retires; cp.async is deferred to the wait_group that covers it; the portable
// f32/bf16/f16 conversions stand in for the cvt instructions.
//
// TMA box copies (cp.async.bulk.tensor) are performed at issue from a host `gconv_tmap` (the
// buffer and the `gconv_kernels::TensorMap` it was built from), zeros outside the tensor, in
// the 128-byte swizzle when the map asks for it; a barrier's expected transaction bytes are
// kept per block, and the issuing thread's arrival (mbarrier.arrive.expect_tx) is made when
// the copies have delivered them.
//
// Switches:
//   GCONV_SHIM_DROP_LAST_BLOCK  the last block (cluster) of the grid is not run (a mutation)
//   GCONV_SHIM_EAGER_COPIES     cp.async lands at issue instead of at its wait_group (the other
//                               extreme of the hardware's freedom: catches stages refilled
//                               while a wgmma batch still reads them)
#pragma once
#define GCONV_HOST_EMULATION 1

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include <sys/mman.h>
#if !defined(__x86_64__)
#error "the host shim's fibers switch stacks with x86-64 code"
#endif
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define GCONV_SHIM_ASAN 1
#endif

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __grid_constant__

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

// ---- emulated threads: fibers on one OS thread
//
// Every emulated CUDA thread of a launch is a fiber (its own stack; `gconv_host_ctx_switch`
// saves the callee-saved registers and swaps stack pointers). One runs at a time, until it
// blocks on a barrier, a warp collective or an mbarrier wait; then the next fiber in thread
// order whose wait is over runs. A barrier costs a few user-space switches instead of waking
// hundreds of OS threads through the kernel, and the interleaving is deterministic. The order
// turns round at every phase of a block's barrier (ascending, then descending thread order), so
// that over a kernel's successive barrier phases each thread runs both before and after each
// other: a read of another thread's write with no barrier between them sees the unwritten
// (poisoned or stale) value in one of the two orders, whichever thread wrote it.
// When no live fiber can run, the launch aborts with "deadlock" instead of hanging.
struct GconvHostThread;
struct GconvHostSched {
  std::vector<GconvHostThread*> fibers;  // the launch's emulated threads, in thread order
  unsigned live = 0;                     // fibers that have not finished
  void* main_sp = nullptr;               // the launching code's saved stack pointer
  const void* main_bottom = nullptr;     // its stack (AddressSanitizer's fiber switches)
  size_t main_size = 0;
  void (*body)(void*) = nullptr;  // what every fiber runs, and its argument
  void* arg = nullptr;
  bool descending = false;  // the order in which the next fiber is sought
};
inline GconvHostSched gconv_host_sched;

// A CTA, warp or cluster barrier: `expected` arrivals complete a phase (a CTA barrier's phase
// also turns the scheduling order round).
struct GconvHostBarrier {
  unsigned expected = 0;
  unsigned arrived = 0;
  unsigned long long phase = 0;
  bool turns = false;
  inline void arrive_and_wait();
};

// Warp-collective instructions (ldmatrix, mma.sync) exchange data through a per-warp staging
// area, bracketed by a per-warp barrier of 32 threads. Blocks whose size is not a multiple of
// 32 cannot use them.
struct GconvHostWarp {
  GconvHostBarrier* bar;
  unsigned int addr[32];
  unsigned int a[32][4];
  unsigned int b[32][2];
};
// One deferred cp.async (see gconv_host_cp_async).
struct GconvHostCopy {
  unsigned dst;
  const void* src;
  int bytes;
  bool pred;
};
// One issued wgmma of a thread: its descriptors, width and operand checksum at issue.
struct GconvHostWgmmaOp {
  unsigned long long da, db, sum;
  int nacc;
  bool trans_a, trans_b;
};
// Expected transaction bytes per barrier of the block (mbarrier.arrive.expect_tx).
struct GconvHostTx {
  std::mutex m;
  std::map<unsigned, long long> bytes;
};

// What each emulated thread has of its own: the built-ins, its block's barrier and shared
// memory (the blocks of a thread-block cluster run at the same time, each with its own), the
// launch's dynamic shared memory size, the cluster's barrier and shared memory by rank, its
// warps' staging areas, and its copies and wgmma operations in flight; then its fiber.
struct GconvHostThread {
  uint3 thread_idx{}, block_idx{};
  dim3 block_dim{}, grid_dim{};
  GconvHostBarrier* barrier = nullptr;
  unsigned char* smem = nullptr;
  size_t smem_bytes = 0;
  GconvHostBarrier* cluster_barrier = nullptr;
  unsigned char* const* cluster_smem = nullptr;
  GconvHostWarp* warps = nullptr;
  unsigned nwarps = 0;
  GconvHostTx* tx = nullptr;
  std::vector<GconvHostCopy> cp_open;  // issued, not committed
  std::vector<std::vector<GconvHostCopy>> cp_groups;  // committed, oldest first
  std::vector<GconvHostWgmmaOp> wg_open;
  std::vector<std::vector<GconvHostWgmmaOp>> wg_groups;
  unsigned index = 0;  // in the launch's fibers
  bool done = false;
  // What it waits for: a barrier to leave phase `wait_phase`, or the mbarrier word at
  // `wait_word` to complete the phase of parity `wait_parity` (nothing: neither is set).
  const GconvHostBarrier* wait_bar = nullptr;
  unsigned long long wait_phase = 0;
  const unsigned long long* wait_word = nullptr;
  int wait_parity = 0;
  void* sp = nullptr;     // its saved stack pointer while another fiber runs
  void* stack = nullptr;  // the mapping: a guard page, then the stack
  size_t stack_bytes = 0;
};
// The running fiber, and the names the kernels and the shim use for its state.
inline GconvHostThread* gconv_host_cur = nullptr;
#define threadIdx (gconv_host_cur->thread_idx)
#define blockIdx (gconv_host_cur->block_idx)
#define blockDim (gconv_host_cur->block_dim)
#define gridDim (gconv_host_cur->grid_dim)
#define gconv_host_barrier (gconv_host_cur->barrier)
#define gconv_host_smem (gconv_host_cur->smem)
#define gconv_host_smem_bytes (gconv_host_cur->smem_bytes)
#define gconv_host_cluster_barrier (gconv_host_cur->cluster_barrier)
#define gconv_host_cluster_smem (gconv_host_cur->cluster_smem)
#define gconv_host_warps (gconv_host_cur->warps)
#define gconv_host_nwarps (gconv_host_cur->nwarps)
#define gconv_host_tx (gconv_host_cur->tx)
#define gconv_host_cp_open (gconv_host_cur->cp_open)
#define gconv_host_cp_groups (gconv_host_cur->cp_groups)
#define gconv_host_wg_open (gconv_host_cur->wg_open)
#define gconv_host_wg_groups (gconv_host_cur->wg_groups)
#define __cluster_dims__(...)

// Saves the callee-saved registers on the running stack and its stack pointer in `*save`,
// then continues on the stack at `load` (saved by this function, or a new fiber's first frame
// made by `gconv_host_launch`). x86-64 System V.
extern "C" void gconv_host_ctx_switch(void** save, void* load);
asm(R"(
  .text
  .p2align 4
  .globl gconv_host_ctx_switch
  .type gconv_host_ctx_switch, @function
gconv_host_ctx_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size gconv_host_ctx_switch, .-gconv_host_ctx_switch
)");

// Switches from the running fiber to `to` (nullptr: back to the launching code). A fiber that
// has finished never comes back; AddressSanitizer is told of every switch (the fake stack of
// a finished fiber is released).
inline void gconv_host_switch(GconvHostThread* to) {
  GconvHostThread* from = gconv_host_cur;
  gconv_host_cur = to;
#ifdef GCONV_SHIM_ASAN
  void* fake = nullptr;
  const void* bottom = to ? static_cast<const char*>(to->stack) + 4096 : gconv_host_sched.main_bottom;
  const size_t size = to ? to->stack_bytes - 4096 : gconv_host_sched.main_size;
  __sanitizer_start_switch_fiber(from->done ? nullptr : &fake, bottom, size);
#endif
  gconv_host_ctx_switch(&from->sp, to ? to->sp : gconv_host_sched.main_sp);
#ifdef GCONV_SHIM_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}
// May fiber `t` run: live, and whatever it waits for has happened? (A wait on an mbarrier
// that is not initialised counts as over, so that the waiter reports it.)
inline bool gconv_host_ready(const GconvHostThread* t) {
  if (t->done) return false;
  if (t->wait_bar) return t->wait_bar->phase != t->wait_phase;
  if (t->wait_word) {
    const unsigned long long v = __atomic_load_n(t->wait_word, __ATOMIC_ACQUIRE);
    return ((v >> 20) & 0xFFFFF) == 0 || (int)((v >> 40) & 1) != (t->wait_parity & 1);
  }
  return true;
}
// The next fiber after the running one in the scheduling order (thread order ascending or
// descending, wrapping) that may run; nullptr when none other may.
inline GconvHostThread* gconv_host_next() {
  const auto& f = gconv_host_sched.fibers;
  const size_t n = f.size(), at = gconv_host_cur->index;
  for (size_t k = 1; k < n; ++k) {
    GconvHostThread* t = f[gconv_host_sched.descending ? (at + n - k) % n : (at + k) % n];
    if (gconv_host_ready(t)) return t;
  }
  return nullptr;
}
inline unsigned gconv_host_tid();
// Runs the other fibers until the running one's wait (set by the caller) is over, then clears
// it; when no fiber can run, aborts naming `what`: a deadlock.
inline void gconv_host_block(const char* what) {
  GconvHostThread* me = gconv_host_cur;
  while (!gconv_host_ready(me)) {
    GconvHostThread* next = gconv_host_next();
    if (!next) {
      std::fprintf(stderr, "%s: no emulated thread can run (thread %u waits): deadlock\n", what, gconv_host_tid());
      std::abort();
    }
    gconv_host_switch(next);
  }
  me->wait_bar = nullptr;
  me->wait_word = nullptr;
}
inline void GconvHostBarrier::arrive_and_wait() {
  if (++arrived == expected) {
    arrived = 0;
    ++phase;
    if (turns) gconv_host_sched.descending = !gconv_host_sched.descending;
    return;
  }
  gconv_host_cur->wait_bar = this;
  gconv_host_cur->wait_phase = phase;
  gconv_host_block("barrier");
}

inline unsigned gconv_host_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline GconvHostWarp& gconv_host_warp() {
  const unsigned w = gconv_host_tid() / 32;
  if (w >= gconv_host_nwarps) {
    std::fprintf(stderr, "warp-collective op in a block of %u warps (thread %u)\n",
                 gconv_host_nwarps, gconv_host_tid());
    std::abort();
  }
  return gconv_host_warps[w];
}

// __syncwarp: the 32 threads of the warp meet (their earlier operations, such as a retired
// wgmma batch, precede any lane's later ones).
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  (void)mask;
  gconv_host_warp().bar->arrive_and_wait();
}

// ---- portable replacements for conversion PTX (bit-exact, see host_conversions_are_bit_exact)
inline unsigned int gconv_host_f32_bits(float f) {
  unsigned int u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float gconv_host_bits_f32(unsigned int u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
// red.global.add.f32: a compare-and-swap loop on the word.
inline void gconv_host_red_add_f32(float* p, float v) {
  unsigned int* w = reinterpret_cast<unsigned int*>(p);
  unsigned int old = __atomic_load_n(w, __ATOMIC_RELAXED);
  for (;;) {
    const unsigned int next = gconv_host_f32_bits(gconv_host_bits_f32(old) + v);
    if (__atomic_compare_exchange_n(w, &old, next, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
  }
}
// f16 bits -> f32, exact (subnormals normalised).
inline float gconv_host_f16_to_f32(unsigned short h) {
  const unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
  unsigned int e = (h >> 10) & 0x1fu;
  unsigned int m = h & 0x3ffu;
  if (e == 0) {
    if (m == 0) return gconv_host_bits_f32(sign);
    e = 113;
    while (!(m & 0x400u)) {
      m <<= 1;
      --e;
    }
    return gconv_host_bits_f32(sign | (e << 23) | ((m & 0x3ffu) << 13));
  }
  if (e == 31) return gconv_host_bits_f32(sign | 0x7f800000u | (m << 13));
  return gconv_host_bits_f32(sign | ((e + 112) << 23) | (m << 13));
}
// f32 -> f16 bits, round to nearest even (overflow to inf, subnormals, NaN kept NaN).
inline unsigned short gconv_host_f32_to_f16(float f) {
  const unsigned int x = gconv_host_f32_bits(f);
  const unsigned int sign = (x >> 16) & 0x8000u;
  const unsigned int ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (unsigned short)(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (ax >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);
  if (ax < 0x38800000u) {
    if (ax <= 0x33000000u) return (unsigned short)sign;
    const unsigned int e = ax >> 23;
    const unsigned int m = (ax & 0x7fffffu) | 0x800000u;
    const unsigned int shift = 126 - e;
    unsigned int r = m >> shift;
    const unsigned int rem = m & ((1u << shift) - 1);
    const unsigned int half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return (unsigned short)(sign | r);
  }
  unsigned int r = (ax - 0x38000000u) >> 13;
  const unsigned int rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return (unsigned short)(sign | r);
}
// f32 -> bf16 bits, round to nearest even (NaN kept NaN).
inline unsigned short gconv_host_f32_to_bf16(float f) {
  const unsigned int x = gconv_host_f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u);
  return (unsigned short)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
inline float gconv_host_half_to_f32(unsigned short v, bool bf16) {
  return bf16 ? gconv_host_bits_f32((unsigned int)v << 16) : gconv_host_f16_to_f32(v);
}

// Shared-memory "addresses" of the emulation are byte offsets into the block's buffer.
// ldmatrix rows are 16 bytes at a 16-byte aligned address inside the launch's shared memory.
inline void gconv_host_check_row(unsigned int addr) {
  if (addr % 16 != 0 || (size_t)addr + 16 > gconv_host_smem_bytes) {
    std::fprintf(stderr, "ldmatrix row address %u: misaligned or outside %zu bytes of shared memory\n",
                 addr, gconv_host_smem_bytes);
    std::abort();
  }
}
inline unsigned int gconv_host_smem_offset(const void* p) {
  return (unsigned int)(static_cast<const unsigned char*>(p) - gconv_host_smem);
}

// ldmatrix.sync.aligned.m8n8.x4.shared.b16: thread 8·i + j gives the address of row j of
// matrix i; lane l receives, from each matrix i, row l/4, elements 2·(l%4) and 2·(l%4)+1.
inline void gconv_host_ldmatrix_x4(unsigned int (&r)[4], unsigned int addr) {
  GconvHostWarp& w = gconv_host_warp();
  const unsigned lane = gconv_host_tid() % 32;
  gconv_host_check_row(addr);
  w.addr[lane] = addr;
  w.bar->arrive_and_wait();
  for (unsigned i = 0; i < 4; ++i) {
    std::memcpy(&r[i], gconv_host_smem + w.addr[8 * i + lane / 4] + 4 * (lane % 4), 4);
  }
  w.bar->arrive_and_wait();
}

// ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16: thread 8·i + j gives the address of row j of
// matrix i; lane l receives, from each matrix i, column l/4: the 16-bit elements of rows
// 2·(l%4) (low half) and 2·(l%4)+1 (high half).
inline void gconv_host_ldmatrix_x4_trans(unsigned int (&r)[4], unsigned int addr) {
  GconvHostWarp& w = gconv_host_warp();
  const unsigned lane = gconv_host_tid() % 32;
  gconv_host_check_row(addr);
  w.addr[lane] = addr;
  w.bar->arrive_and_wait();
  for (unsigned i = 0; i < 4; ++i) {
    unsigned short lo, hi;
    std::memcpy(&lo, gconv_host_smem + w.addr[8 * i + 2 * (lane % 4)] + 2 * (lane / 4), 2);
    std::memcpy(&hi, gconv_host_smem + w.addr[8 * i + 2 * (lane % 4) + 1] + 2 * (lane / 4), 2);
    r[i] = (unsigned int)lo | ((unsigned int)hi << 16);
  }
  w.bar->arrive_and_wait();
}

// ldmatrix.sync.aligned.m8n8.x2.shared.b16: threads 0-15 give the row addresses of the two
// matrices (the addresses of threads 16-31 are not used).
inline void gconv_host_ldmatrix_x2(unsigned int (&r)[2], unsigned int addr) {
  GconvHostWarp& w = gconv_host_warp();
  const unsigned lane = gconv_host_tid() % 32;
  if (lane < 16) gconv_host_check_row(addr);
  w.addr[lane] = addr;
  w.bar->arrive_and_wait();
  for (unsigned i = 0; i < 2; ++i) {
    std::memcpy(&r[i], gconv_host_smem + w.addr[8 * i + lane / 4] + 4 * (lane % 4), 4);
  }
  w.bar->arrive_and_wait();
}

// ldmatrix.sync.aligned.m8n8.x1.shared.b16: threads 0-7 give the row addresses of the one
// matrix (the addresses of threads 8-31 are not used).
inline void gconv_host_ldmatrix_x1(unsigned int& r, unsigned int addr) {
  GconvHostWarp& w = gconv_host_warp();
  const unsigned lane = gconv_host_tid() % 32;
  if (lane < 8) gconv_host_check_row(addr);
  w.addr[lane] = addr;
  w.bar->arrive_and_wait();
  std::memcpy(&r, gconv_host_smem + w.addr[lane / 4] + 4 * (lane % 4), 4);
  w.bar->arrive_and_wait();
}

// mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}: D(16x8) += A(16x16) · B(16x8), f32
// accumulation in k order. Fragments (g = lane/4, t = lane%4): a0 = A[g][2t..2t+1],
// a1 = A[g+8][2t..], a2 = A[g][2t+8..], a3 = A[g+8][2t+8..]; b0 = B[2t..2t+1][g],
// b1 = B[2t+8..2t+9][g]; d0,d1 = D[g][2t], D[g][2t+1]; d2,d3 = D[g+8][2t], D[g+8][2t+1].
inline void gconv_host_mma16816(float (&d)[4], const unsigned int (&a)[4], unsigned int b0,
                                unsigned int b1, bool bf16) {
  GconvHostWarp& w = gconv_host_warp();
  const unsigned lane = gconv_host_tid() % 32;
  for (int i = 0; i < 4; ++i) w.a[lane][i] = a[i];
  w.b[lane][0] = b0;
  w.b[lane][1] = b1;
  w.bar->arrive_and_wait();
  const unsigned g = lane / 4, t = lane % 4;
  auto half_of = [&](unsigned int reg, int hi) {
    return gconv_host_half_to_f32((unsigned short)(hi ? reg >> 16 : reg & 0xffffu), bf16);
  };
  // A[row][k] for row in {g, g+8}; B[k][col] for col in {2t, 2t+1}.
  auto A = [&](unsigned row, unsigned k) {
    const unsigned src = (row % 8) * 4 + (k % 8) / 2;
    const int reg = (row >= 8 ? 1 : 0) + (k >= 8 ? 2 : 0);
    return half_of(w.a[src][reg], k % 2);
  };
  auto B = [&](unsigned k, unsigned col) {
    const unsigned src = col * 4 + (k % 8) / 2;
    return half_of(w.b[src][k >= 8 ? 1 : 0], k % 2);
  };
  for (int e = 0; e < 4; ++e) {
    const unsigned row = g + (e >= 2 ? 8 : 0);
    const unsigned col = 2 * t + (e % 2);
    float acc = d[e];
    for (unsigned k = 0; k < 16; ++k) acc = std::fmaf(A(row, k), B(k, col), acc);
    d[e] = acc;
  }
  w.bar->arrive_and_wait();
}

// wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16} with A and B from shared-memory
// descriptors (K-major, or MN-major with imm-trans-a / imm-trans-b = 1; 128-byte swizzle), computed at issue: thread t of the warpgroup
// (warp w = t/32 in it, lane l) owns D[16w + l/4 (+8)][8j + 2(l%4) (+1)] in registers
// 4j..4j+3. A descriptor gives the start address (bits 0-13, >> 4), the stride between 8-row
// groups (bits 32-45, >> 4) and the swizzle mode (bits 62-63: 1 = 128 bytes, or 0 = none for a
// K-major operand, below): row r, byte b of the k16 slice sits at start + (r/8)·SBO + (r%8)·128
// + b, with address bits [4,7) XORed with bits [7,10).
// Element (row, k) of a k16 operand slice. K-major (nmajor false): row r, byte b of the slice at
// start + (r/8)·SBO + (r%8)·128 + b. MN-major (the transposed B of imm-trans-b = 1): 64-element
// panels along MN, LBO (bits 16-29, >> 4) bytes apart, each k a 128-byte row, 8-row groups of k
// SBO bytes apart: element (n, k) at start + (n/64)·LBO + (k/8)·SBO + (k%8)·128 + 2·(n%64).
// Either way address bits [4,7) are XORed with bits [7,10).
// Without swizzle (mode 0, K-major only): core matrices of 8 rows x 16 bytes, rows 16 bytes
// apart; the two core matrices of a k16 slice LBO bytes apart, 8-row groups SBO bytes apart:
// element (r, k) at start + (r/8)·SBO + (r%8)·16 + (k/8)·LBO + 2·(k%8) (this reading of the
// two offsets was verified on an H100: results/h100/s41/README.md, the C/G 8 prototype).
inline unsigned short gconv_host_wgmma_at(unsigned long long desc, unsigned row, unsigned k,
                                          bool nmajor = false) {
  const unsigned mode = (unsigned)(desc >> 62);
  if ((mode != 1 && !(mode == 0 && !nmajor)) || ((desc >> 49) & 7) != 0) {
    std::fprintf(stderr,
                 "wgmma descriptor %llx: only the 128-byte swizzle, or no swizzle for a K-major "
                 "operand, with base offset 0 is emulated\n",
                 desc);
    std::abort();
  }
  const unsigned start = (unsigned)(desc & 0x3FFF) << 4;
  const unsigned lbo = (unsigned)((desc >> 16) & 0x3FFF) << 4;
  const unsigned sbo = (unsigned)((desc >> 32) & 0x3FFF) << 4;
  unsigned a;
  if (mode == 0) {
    a = start + (row / 8) * sbo + (row % 8) * 16 + (k / 8) * lbo + 2 * (k % 8);
  } else {
    a = nmajor ? start + (row / 64) * lbo + (k / 8) * sbo + (k % 8) * 128 + 2 * (row % 64)
               : start + (row / 8) * sbo + (row % 8) * 128 + 2 * k;
    a ^= ((a >> 7) & 7u) << 4;
  }
  if ((size_t)a + 2 > gconv_host_smem_bytes) {
    std::fprintf(stderr, "wgmma operand address %u outside %zu bytes of shared memory\n", a, gconv_host_smem_bytes);
    std::abort();
  }
  unsigned short v;
  std::memcpy(&v, gconv_host_smem + a, 2);
  return v;
}

// The checksum of the operand values a thread reads for one wgmma (its A rows, its B columns).
inline unsigned long long gconv_host_wgmma_sum(int nacc, unsigned long long da, unsigned long long db,
                                               bool trans_a, bool trans_b) {
  const unsigned t = gconv_host_tid() % 128, w = t / 32, l = t % 32;
  unsigned long long h = 1469598103934665603ull;
  for (unsigned r = 0; r < 2; ++r) {
    for (unsigned k = 0; k < 16; ++k) h = (h ^ gconv_host_wgmma_at(da, 16 * w + l / 4 + 8 * r, k, trans_a)) * 1099511628211ull;
  }
  for (int j = 0; j < nacc / 4; ++j) {
    for (unsigned c = 0; c < 2; ++c) {
      for (unsigned k = 0; k < 16; ++k)
        h = (h ^ gconv_host_wgmma_at(db, 8 * j + 2 * (l % 4) + c, k, trans_b)) * 1099511628211ull;
    }
  }
  return h;
}

// cp.async of this thread, deferred: a copy (or zero fill) is performed when the
// cp.async.wait_group that covers its commit group runs, the latest moment the hardware may
// complete it, so a kernel that reads a stage before waiting for it reads the NaN poison.
inline void gconv_host_cp_async(unsigned dst, const void* src, int bytes, bool pred) {
  if (dst % (unsigned)bytes != 0 || (size_t)dst + bytes > gconv_host_smem_bytes) {
    std::fprintf(stderr, "cp.async of %d bytes to %u: misaligned or outside %zu bytes of shared memory\n",
                 bytes, dst, gconv_host_smem_bytes);
    std::abort();
  }
#ifdef GCONV_SHIM_EAGER_COPIES
  // The earliest the hardware may complete the copy: at issue.
  if (pred) {
    std::memcpy(gconv_host_smem + dst, src, bytes);
  } else {
    std::memset(gconv_host_smem + dst, 0, bytes);
  }
#else
  gconv_host_cp_open.push_back({dst, src, bytes, pred});
#endif
}
inline void gconv_host_cp_commit() {
  gconv_host_cp_groups.push_back(std::move(gconv_host_cp_open));
  gconv_host_cp_open.clear();
}
// cp.async.wait_group n: completes all but the n newest committed groups.
inline void gconv_host_cp_wait(int n) {
  while ((int)gconv_host_cp_groups.size() > n) {
    for (const GconvHostCopy& c : gconv_host_cp_groups.front()) {
      if (c.pred) {
        std::memcpy(gconv_host_smem + c.dst, c.src, c.bytes);
      } else {
        std::memset(gconv_host_smem + c.dst, 0, c.bytes);
      }
    }
    gconv_host_cp_groups.erase(gconv_host_cp_groups.begin());
  }
}

// mbarrier (shared memory, CTA scope): the 8-byte word holds the pending arrivals (bits 0-19),
// the expected count (bits 20-39) and the number of completed phases (bits 40-63); arrivals
// release and waits acquire, so shared-memory writes before an arrival are seen after the
// wait. A wait nothing can end aborts (a pipeline that deadlocks fails instead of hanging).
inline std::atomic_ref<unsigned long long> gconv_host_mbar_word(unsigned bar) {
  if (bar % 8 != 0 || (size_t)bar + 8 > gconv_host_smem_bytes) {
    std::fprintf(stderr, "mbarrier at %u: misaligned or outside %zu bytes of shared memory\n", bar,
                 gconv_host_smem_bytes);
    std::abort();
  }
  return std::atomic_ref<unsigned long long>(*reinterpret_cast<unsigned long long*>(gconv_host_smem + bar));
}
inline void gconv_host_mbar_init(unsigned bar, int count) {
  if (count <= 0 || count >= (1 << 20)) {
    std::fprintf(stderr, "mbarrier count %d out of range\n", count);
    std::abort();
  }
  gconv_host_mbar_word(bar).store((unsigned long long)count | ((unsigned long long)count << 20),
                                  std::memory_order_release);
}
inline void gconv_host_mbar_arrive(unsigned bar) {
  auto w = gconv_host_mbar_word(bar);
  unsigned long long old = w.load(std::memory_order_relaxed), next;
  do {
    const unsigned long long pending = old & 0xFFFFF, count = (old >> 20) & 0xFFFFF, phase = old >> 40;
    if (pending == 0 || count == 0) {
      std::fprintf(stderr, "mbarrier at %u: arrival on an uninitialised or invalid barrier\n", bar);
      std::abort();
    }
    next = pending == 1 ? (count | (count << 20) | ((phase + 1) << 40)) : (old - 1);
  } while (!w.compare_exchange_weak(old, next, std::memory_order_acq_rel, std::memory_order_relaxed));
}
inline void gconv_host_mbar_wait(unsigned bar, int parity) {
  auto w = gconv_host_mbar_word(bar);
  gconv_host_cur->wait_word = reinterpret_cast<const unsigned long long*>(gconv_host_smem + bar);
  gconv_host_cur->wait_parity = parity;
  gconv_host_block("mbarrier wait");
  if (((w.load(std::memory_order_acquire) >> 20) & 0xFFFFF) == 0) {
    std::fprintf(stderr, "mbarrier at %u: wait on an uninitialised or invalid barrier\n", bar);
    std::abort();
  }
}
// cp.async.mbarrier.arrive.noinc: the arrival comes when this thread's earlier copies have
// completed; the shim completes them now (every open and committed group) and arrives.
inline void gconv_host_cp_async_mbar_arrive(unsigned bar) {
  gconv_host_cp_groups.push_back(std::move(gconv_host_cp_open));
  gconv_host_cp_open.clear();
  gconv_host_cp_wait(0);
  gconv_host_mbar_arrive(bar);
}
inline void gconv_host_mbar_inval(unsigned bar) {
  gconv_host_mbar_word(bar).store(0, std::memory_order_release);
}

// A TMA tensor map over a host buffer: rank 1..5, dims and box innermost first, byte strides of
// dims 1.. (stride[0] is the element size), the 128-byte swizzle or a dense box.
struct gconv_tmap {
  const unsigned char* base;
  int rank;
  unsigned long long dims[5];
  unsigned long long strides[5];
  unsigned box[5];
  unsigned esize;
  bool swizzle_128b;
  // im2col mode (gconv_kernels::Im2col): corners per spatial dimension, element strides,
  // channels and pixels per copy
  bool im2col;
  int lower[3], upper[3];
  unsigned estride[5];
  unsigned channels, pixels;
};
// mbarrier.arrive.expect_tx with the copies performed at issue: the bytes are recorded, and the
// arrival is made by the copy that delivers the last of them.
inline void gconv_host_mbar_arrive_expect_tx(unsigned bar, unsigned bytes) {
  std::lock_guard<std::mutex> g(gconv_host_tx->m);
  if (gconv_host_tx->bytes[bar] != 0 || bytes == 0) {
    std::fprintf(stderr, "mbarrier at %u: expect_tx of %u bytes with %lld pending (thread %u)\n", bar, bytes,
                 gconv_host_tx->bytes[bar], gconv_host_tid());
    std::abort();
  }
  gconv_host_tx->bytes[bar] = bytes;
}
// A copy's `bytes` completing on barrier `bar`: the expecting arrival once they have all come.
inline void gconv_host_tma_complete(unsigned bar, unsigned long long bytes) {
  bool arrive = false;
  {
    std::lock_guard<std::mutex> g(gconv_host_tx->m);
    long long& left = gconv_host_tx->bytes[bar];
    left -= (long long)bytes;
    if (left < 0) {
      std::fprintf(stderr, "mbarrier at %u: a TMA copy completed %llu bytes more than expected (thread %u)\n", bar,
                   (unsigned long long)-left, gconv_host_tid());
      std::abort();
    }
    arrive = left == 0;
  }
  if (arrive) gconv_host_mbar_arrive(bar);
}
// Writes `esize` bytes of element (coordinates x, innermost first) of `m`, or zeros outside
// the tensor, at shared-memory byte `at` (swizzled with the map's 128-byte swizzle).
inline void gconv_host_tma_element(const gconv_tmap& m, const long long* x, unsigned long long at) {
  bool in = true;
  unsigned long long off = 0;
  for (int d = 0; d < m.rank; ++d) {
    if (x[d] < 0 || (unsigned long long)x[d] >= m.dims[d]) in = false;
    off += (in ? (unsigned long long)x[d] : 0) * m.strides[d];
  }
  if (m.swizzle_128b) at ^= ((at >> 7) & 7) << 4;
  if (in) {
    std::memcpy(gconv_host_smem + at, m.base + off, m.esize);
  } else {
    std::memset(gconv_host_smem + at, 0, m.esize);
  }
}
// cp.async.bulk.tensor.Nd ... tile.mbarrier::complete_tx: the box at coordinates c of `m` into
// shared memory at `dst`, then its bytes complete on `bar`.
inline void gconv_host_tma_load(unsigned dst, const gconv_tmap& m, unsigned bar, int c0, int c1 = 0, int c2 = 0,
                                int c3 = 0, int c4 = 0) {
  const int c[5] = {c0, c1, c2, c3, c4};
  if (dst % (m.swizzle_128b ? 1024 : 128) != 0) {
    std::fprintf(stderr, "TMA destination %u is not %d-byte aligned\n", dst, m.swizzle_128b ? 1024 : 128);
    std::abort();
  }
  unsigned long long total = 1;
  for (int d = 0; d < m.rank; ++d) total *= m.box[d];
  const unsigned long long bytes = total * m.esize;
  if ((size_t)dst + bytes > gconv_host_smem_bytes) {
    std::fprintf(stderr, "TMA box of %llu bytes at %u outside %zu bytes of shared memory\n", bytes, dst,
                 gconv_host_smem_bytes);
    std::abort();
  }
  if (m.im2col) {
    std::fprintf(stderr, "tiled load on an im2col map\n");
    std::abort();
  }
  for (unsigned long long e = 0; e < total; ++e) {
    unsigned long long rest = e;
    long long x[5];
    for (int d = 0; d < m.rank; ++d) {
      x[d] = (long long)c[d] + (long long)(rest % m.box[d]);
      rest /= m.box[d];
    }
    gconv_host_tma_element(m, x, dst + e * m.esize);
  }
  gconv_host_tma_complete(bar, bytes);
}

// wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16} with A and B from shared-memory
// descriptors (K-major, or MN-major with imm-trans-a / imm-trans-b = 1; 128-byte swizzle), computed at issue: thread t of the warpgroup
// (warp w = t/32 in it, lane l) owns D[16w + l/4 (+8)][8j + 2(l%4) (+1)] in registers
// 4j..4j+3. A descriptor gives the start address (bits 0-13, >> 4), the stride between 8-row
// groups (bits 32-45, >> 4) and the swizzle mode (bits 62-63): operand elements as
// gconv_host_wgmma_at reads them (128-byte swizzle, or none for a K-major operand). The
// operands' checksum is kept until wait_group retires the batch.
inline void gconv_host_wgmma(float* d, int nacc, unsigned long long da, unsigned long long db,
                             bool bf16, bool trans_a, bool trans_b) {
  const unsigned t = gconv_host_tid() % 128, w = t / 32, l = t % 32;
  for (int j = 0; j < nacc / 4; ++j) {
    for (int e = 0; e < 4; ++e) {
      const unsigned row = 16 * w + l / 4 + (e >= 2 ? 8 : 0);
      const unsigned col = 8 * j + 2 * (l % 4) + (e % 2);
      float acc = d[4 * j + e];
      for (unsigned k = 0; k < 16; ++k) {
        acc = std::fmaf(gconv_host_half_to_f32(gconv_host_wgmma_at(da, row, k, trans_a), bf16),
                        gconv_host_half_to_f32(gconv_host_wgmma_at(db, col, k, trans_b), bf16), acc);
      }
      d[4 * j + e] = acc;
    }
  }
  gconv_host_wg_open.push_back({da, db, gconv_host_wgmma_sum(nacc, da, db, trans_a, trans_b), nacc, trans_a, trans_b});
}
// wgmma.commit_group: the issued operations become one group.
inline void gconv_host_wgmma_commit() {
  gconv_host_wg_groups.push_back(std::move(gconv_host_wg_open));
  gconv_host_wg_open.clear();
}
// wgmma.wait_group n: retires all but the n newest groups; an operand that changed since its
// operation was issued means the kernel overwrote shared memory a batch in flight still reads.
inline void gconv_host_wgmma_wait(int n) {
  while ((int)gconv_host_wg_groups.size() > n) {
    for (const GconvHostWgmmaOp& op : gconv_host_wg_groups.front()) {
      if (gconv_host_wgmma_sum(op.nacc, op.da, op.db, op.trans_a, op.trans_b) != op.sum) {
        std::fprintf(stderr, "wgmma operand in shared memory changed while its batch was in flight (thread %u)\n",
                     gconv_host_tid());
        std::abort();
      }
    }
    gconv_host_wg_groups.erase(gconv_host_wg_groups.begin());
  }
}

inline void __syncthreads() { gconv_host_barrier->arrive_and_wait(); }

// barrier.cluster.arrive.release + wait.acquire: every thread of every block of the cluster.
inline void gconv_host_cluster_sync() {
  if (!gconv_host_cluster_barrier) {
    std::fprintf(stderr, "cluster barrier outside a cluster launch (thread %u)\n", gconv_host_tid());
    std::abort();
  }
  gconv_host_cluster_barrier->arrive_and_wait();
}
// mapa + ld.shared::cluster.f32: the float at `p`'s offset in block `rank`'s shared memory.
inline float gconv_host_cluster_load_f32(const float* p, unsigned rank) {
  const size_t off = static_cast<size_t>(reinterpret_cast<const unsigned char*>(p) - gconv_host_smem);
  if (!gconv_host_cluster_smem || off + sizeof(float) > gconv_host_smem_bytes) {
    std::fprintf(stderr, "distributed shared-memory read outside the cluster's shared memory (thread %u)\n",
                 gconv_host_tid());
    std::abort();
  }
  float v;
  std::memcpy(&v, gconv_host_cluster_smem[rank] + off, sizeof(float));
  return v;
}

template <typename T>
inline T __ldg(const T* p) {
  return *p;
}

#define GCONV_DYNAMIC_SMEM(name) unsigned char* name = gconv_host_smem

typedef void (*gconv_host_kernel)(const void*, const void*, void*, void*);

// cp.async.bulk.tensor ... im2col: `m.pixels` pixels walked from the filter corner
// (c1, c2, …) of image c[rank-1] (see gconv_kernels::Im2col), each read at the corner plus
// the offsets `off`, `m.channels` channels from c0; then the bytes complete on `bar`.
inline void gconv_host_tma_load_im2col(unsigned dst, const gconv_tmap& m, unsigned bar, int c0, int c1, int c2,
                                       int c3, int off_w, int off_h) {
  if (!m.im2col || m.rank != 4) {
    std::fprintf(stderr, "im2col load on a map that is not a 4D im2col map\n");
    std::abort();
  }
  if (dst % (m.swizzle_128b ? 1024 : 128) != 0) {
    std::fprintf(stderr, "TMA destination %u is not aligned\n", dst);
    std::abort();
  }
  const unsigned long long bytes = (unsigned long long)m.channels * m.pixels * m.esize;
  if ((size_t)dst + bytes > gconv_host_smem_bytes) {
    std::fprintf(stderr, "TMA im2col copy of %llu bytes at %u outside shared memory\n", bytes, dst);
    std::abort();
  }
  long long w = c1, h = c2, n = c3;
  const long long w_hi = (long long)m.dims[1] - 1 + m.upper[0], h_hi = (long long)m.dims[2] - 1 + m.upper[1];
  for (unsigned p = 0; p < m.pixels; ++p) {
    for (unsigned ch = 0; ch < m.channels; ++ch) {
      const long long x[4] = {(long long)c0 + ch, w + off_w, h + off_h, n};
      gconv_host_tma_element(m, x, dst + ((unsigned long long)p * m.channels + ch) * m.esize);
    }
    w += m.estride[1];
    if (w > w_hi) {
      w = m.lower[0];
      h += m.estride[2];
      if (h > h_hi) {
        h = m.lower[1];
        n += m.estride[3];
      }
    }
  }
  gconv_host_tma_complete(bar, bytes);
}

// A tensor map over host buffer `base` (gconv_kernels::TensorMap): dims and box innermost
// first, byte strides of dims 1...
inline gconv_tmap gconv_host_tmap(const void* base, unsigned esize, int rank, const unsigned long long* dims,
                                  const unsigned long long* strides, const unsigned* box, bool swizzle_128b) {
  gconv_tmap m{};
  m.base = static_cast<const unsigned char*>(base);
  m.rank = rank;
  m.esize = esize;
  m.swizzle_128b = swizzle_128b;
  for (int d = 0; d < rank; ++d) {
    m.dims[d] = dims[d];
    m.box[d] = box[d];
    m.strides[d] = d == 0 ? esize : strides[d - 1];
  }
  return m;
}
// ... in im2col mode: corners per spatial dimension, element strides, channels and pixels per
// copy.
inline gconv_tmap gconv_host_tmap_im2col(const void* base, unsigned esize, int rank, const unsigned long long* dims,
                                         const unsigned long long* strides, const int* lower, const int* upper,
                                         const unsigned* estride, unsigned channels, unsigned pixels,
                                         bool swizzle_128b) {
  const unsigned box[5] = {1, 1, 1, 1, 1};
  gconv_tmap m = gconv_host_tmap(base, esize, rank, dims, strides, box, swizzle_128b);
  m.im2col = true;
  for (int d = 0; d + 2 < rank; ++d) {
    m.lower[d] = lower[d];
    m.upper[d] = upper[d];
  }
  for (int d = 0; d < rank; ++d) m.estride[d] = estride[d];
  m.channels = channels;
  m.pixels = pixels;
  return m;
}

// A fiber's start: the launch's body for the running fiber, then the next live fiber (or the
// launching code, after the last).
inline void gconv_host_fiber_main() {
#ifdef GCONV_SHIM_ASAN
  const void* bottom = nullptr;
  size_t size = 0;
  __sanitizer_finish_switch_fiber(nullptr, &bottom, &size);
  if (!gconv_host_sched.main_bottom && gconv_host_cur->index == 0) {
    // The first fiber is entered from the launching code: its stack is where control returns.
    gconv_host_sched.main_bottom = bottom;
    gconv_host_sched.main_size = size;
  }
#endif
  gconv_host_sched.body(gconv_host_sched.arg);
  gconv_host_cur->done = true;
  --gconv_host_sched.live;
  GconvHostThread* next = gconv_host_next();
  if (!next && gconv_host_sched.live > 0) {
    std::fprintf(stderr, "thread %u finished and no other emulated thread can run: deadlock\n", gconv_host_tid());
    std::abort();
  }
  gconv_host_switch(next);
  std::abort();  // a finished fiber is never resumed
}

// Runs `kernel` over the grid; returns 0. With `cluster_x` > 1 the grid's x is cut into
// clusters of that many blocks, and the blocks of a cluster run at the same time (each with
// its own shared memory and barrier; `gconv_host_cluster_sync` spans them all); clusters run
// one after the other. The emulated threads (fibers) live for the whole grid and walk the
// blocks together.
template <typename Kernel>
inline int gconv_host_launch(Kernel kernel, dim3 grid, dim3 block, size_t smem_bytes,
                             const void* in0, const void* in1, void* out, void* workspace,
                             unsigned cluster_x = 1) {
  const unsigned threads = block.x * block.y * block.z;
  const unsigned cx = cluster_x ? cluster_x : 1;
  if (grid.x % cx != 0) {
    std::fprintf(stderr, "grid x %u is not a multiple of the cluster size %u\n", grid.x, cx);
    std::abort();
  }
  const size_t smem_alloc = (smem_bytes + 15) / 16 * 16 + 16;
  const unsigned nwarps = threads % 32 == 0 ? threads / 32 : 0;
  std::vector<unsigned char*> smem(cx);
  std::vector<GconvHostBarrier> bars(cx);
  std::vector<std::vector<GconvHostWarp>> warps(cx);
  std::vector<std::vector<GconvHostBarrier>> warp_bars(cx);
  std::vector<GconvHostTx> txs(cx);
  for (unsigned r = 0; r < cx; ++r) {
    smem[r] = static_cast<unsigned char*>(std::aligned_alloc(16, smem_alloc));
    bars[r].expected = threads;
    bars[r].turns = true;
    warps[r].resize(nwarps);
    warp_bars[r].resize(nwarps);
    for (unsigned w = 0; w < nwarps; ++w) {
      warp_bars[r][w].expected = 32;
      warps[r][w].bar = &warp_bars[r][w];
    }
  }
  GconvHostBarrier cluster_bar;
  cluster_bar.expected = threads * cx;
  unsigned long long rounds = (unsigned long long)(grid.x / cx) * grid.y * grid.z;
#ifdef GCONV_SHIM_DROP_LAST_BLOCK
  rounds -= 1;  // the last block (the last cluster of a cluster launch)
#endif
  // What each fiber runs: its block's share of every round of the grid.
  auto body = [&] {
    const unsigned tt = gconv_host_cur->index;
    const unsigned r = tt / threads;  // rank in the cluster
    const unsigned t = tt % threads;
    const unsigned clusters_x = grid.x / cx;
    for (unsigned long long b = 0; b < rounds; ++b) {
      gconv_host_barrier->arrive_and_wait();  // the previous block is done with shared memory
      if (cx > 1) cluster_bar.arrive_and_wait();  // ... and every block of the cluster with it
      if (t == 0) std::memset(gconv_host_smem, 0xFF, smem_alloc);
      gconv_host_barrier->arrive_and_wait();
      if (cx > 1) cluster_bar.arrive_and_wait();
      blockIdx = uint3{(unsigned)(b % clusters_x) * cx + r, (unsigned)((b / clusters_x) % grid.y),
                       (unsigned)(b / ((unsigned long long)clusters_x * grid.y))};
      kernel(in0, in1, out, workspace);
      // Copies a kernel left in flight complete before the block's shared memory is reused
      // (the hardware does not retire a CTA with copies outstanding).
      gconv_host_cp_commit();
      gconv_host_cp_wait(0);
    }
  };
  // Each fiber's stack: a guard page below it, so that an overflow faults.
  const size_t stack_bytes = (size_t)4 << 20;
  std::vector<GconvHostThread> fibers(threads * cx);
  gconv_host_sched = GconvHostSched{};
  for (unsigned tt = 0; tt < threads * cx; ++tt) {
    GconvHostThread& f = fibers[tt];
    const unsigned r = tt / threads, t = tt % threads;
    f.index = tt;
    f.smem = smem[r];
    f.smem_bytes = smem_bytes;
    f.barrier = &bars[r];
    f.tx = &txs[r];
    f.nwarps = nwarps;
    f.warps = warps[r].data();
    f.cluster_barrier = cx > 1 ? &cluster_bar : nullptr;
    f.cluster_smem = cx > 1 ? smem.data() : nullptr;
    f.thread_idx = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
    f.block_dim = block;
    f.grid_dim = grid;
    f.stack = mmap(nullptr, stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (f.stack == MAP_FAILED || mprotect(f.stack, 4096, PROT_NONE) != 0) {
      std::fprintf(stderr, "cannot make the stack of emulated thread %u\n", tt);
      std::abort();
    }
    f.stack_bytes = stack_bytes;
    // The first frame `gconv_host_ctx_switch` returns into: six callee-saved registers, then
    // the fiber's start, then a null return address for it (the stack 16-byte aligned as after
    // a call).
    void** sp = reinterpret_cast<void**>(static_cast<char*>(f.stack) + stack_bytes);
    *--sp = nullptr;
    *--sp = reinterpret_cast<void*>(&gconv_host_fiber_main);
    for (int i = 0; i < 6; ++i) *--sp = nullptr;
    f.sp = sp;
    gconv_host_sched.fibers.push_back(&f);
  }
  gconv_host_sched.live = threads * cx;
  gconv_host_sched.body = [](void* a) { (*static_cast<decltype(body)*>(a))(); };
  gconv_host_sched.arg = &body;
  // Control comes back here when the last emulated thread ends.
  gconv_host_cur = &fibers[0];
#ifdef GCONV_SHIM_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, static_cast<char*>(fibers[0].stack) + 4096, stack_bytes - 4096);
#endif
  gconv_host_ctx_switch(&gconv_host_sched.main_sp, fibers[0].sp);
#ifdef GCONV_SHIM_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  gconv_host_cur = nullptr;
  for (GconvHostThread& f : fibers) {
#ifdef GCONV_SHIM_ASAN
    // The frames a finished fiber never returned from leave poisoned shadow behind.
    __asan_unpoison_memory_region(f.stack, f.stack_bytes);
#endif
    munmap(f.stack, f.stack_bytes);
  }
  for (unsigned char* p : smem) std::free(p);
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
