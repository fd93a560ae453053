// ---- derived constants shared by both math paths ----
constexpr int C_ = G_ * CG;
constexpr int K_ = G_ * KG;
constexpr int GPB = BN / KG;  // groups per CTA
constexpr int CT = GPB * CG;  // input channels per CTA
constexpr int TAPS = FZ * FY * FX;
constexpr int WPK = TAPS * CG;                       // weights per output channel
constexpr int ITD = FZ;                              // depth slices staged (one per z tap)
constexpr int ITH = (TH - 1) * SH + (FY - 1) * DH + 1;  // halo rows
constexpr int ITW = (TW - 1) * SW + (FX - 1) * DW + 1;  // halo columns
constexpr int TILES_W = (OW + TW - 1) / TW;
constexpr int TILES_H = (OH + TH - 1) / TH;
constexpr int CHUNKS_PER_PIX = CT / VL;
constexpr int TOTAL_CHUNKS = ITD * ITH * ITW * CHUNKS_PER_PIX;
constexpr int ROWCHUNKS = ITW * CHUNKS_PER_PIX;  // copies per staged row
constexpr int HALO_ROWS = ITD * ITH;
// Rows copied per pass when a row has at most THREADS copies, else 0 (generic loop).
constexpr int RSTEP = THREADS / ROWCHUNKS;
constexpr int SPATIAL_TILES = TILES_W * TILES_H * OD * N_;
// XSPLIT: the stride phases a staged row's columns are de-interleaved into (the tensor-core
// paths at SW > 1, direct/shape.rs `halo_split`; 1 = natural order): halo column x sits in
// slot (x % XSPLIT)*XPW + x / XSPLIT, so output pixels tx, tx+1, ... of one tap read
// consecutive slots (tx + halo_col(tap column)) instead of slots SW apart.
constexpr int XPW = (ITW + XSPLIT - 1) / XSPLIT;  // slots of one phase
// (or 2 at stride 1 where the tensor-core path's A fragments slide, fwd_mma.cu's A_SLIDE)
static_assert(XSPLIT == 1 || XSPLIT == SW || XSPLIT == 2, "halo phases: natural order, the column stride or the parity");
__host__ __device__ constexpr int halo_col(int x) {
  return XSPLIT == 1 ? x : (x % XSPLIT) * XPW + x / XSPLIT;
}
constexpr int TX_SLOTS = SW / XSPLIT;  // slots between adjacent output pixels of one tap

// N elements staged by the CTA, element i by thread i % THREADS, with up to STAGE_BATCH global
// reads of a thread in flight before the first of them is used: `read(i)` gives element i (i <
// N) as read (a value or a 16-byte vector), `put(i, v)` stores it. (A loop of one read and its
// store per step waits a whole global latency per element: on the 7×7 depthwise CUDA-core
// members, the filter's 7 reads per thread were 15 % of the kernel's stall samples.)
constexpr int STAGE_BATCH = 8;
template <int N, typename Read, typename Put>
__device__ __forceinline__ void stage_batched(int tid, Read read, Put put) {
  using T = decltype(read(0));
  constexpr int PER = (N + THREADS - 1) / THREADS;  // elements of one thread
  constexpr int B = PER < STAGE_BATCH ? PER : STAGE_BATCH;
  for (int i0 = tid; i0 < N; i0 += B * THREADS) {
    T v[B];
#pragma unroll
    for (int b = 0; b < B; ++b) {
      const int i = i0 + b * THREADS;
      v[b] = i < N ? read(i) : T{};
    }
#pragma unroll
    for (int b = 0; b < B; ++b) {
      const int i = i0 + b * THREADS;
      if (i < N) put(i, v[b]);
    }
  }
}
// CTS: shared-memory stride of one staged pixel (CT, or CT plus 16 bytes on the mma path).
static_assert(CTS >= CT && (CTS - CT) * ESZ % 16 == 0, "pixel stride");
static_assert(XROW >= XSPLIT * XPW * CTS && (XROW - ITW * CTS) * ESZ % 16 == 0, "row stride");
// STAGES 3 (tensor cores): a column of tiles walked over every output depth slice, each input
// slice staged once into a ring of HALO_BUFS = FZ + 1 slots of XS_BYTES (walk_tiles).
constexpr bool DEPTH_STREAM = STAGES == 3;
constexpr int HALO_BUFS = DEPTH_STREAM ? FZ + 1 : STAGES;  // halo buffers in shared memory
static_assert(XS_BYTES >= (DEPTH_STREAM ? 1 : ITD) * ITH * XROW * ESZ && XS_BYTES % 16 == 0,
              "input tile size");
static_assert(!DEPTH_STREAM || (FZ > 1 && SD == 1 && DD == 1), "depth streaming: depth taps, stride 1, dilation 1");
static_assert(BN % KG == 0 && CT % VL == 0, "tile shape");
static_assert(STAGES >= 1 && STAGES <= 3, "stages");
static_assert(SMEM_BYTES == HALO_BUFS * XS_BYTES + WS_BYTES + RAW_BYTES, "launch shared memory");
static_assert(STAGES == 1 ? GRID_X == SPATIAL_TILES
                          : (DEPTH_STREAM ? GRID_X * OD == SPATIAL_TILES : GRID_X <= SPATIAL_TILES),
              "launch grid");
static_assert(C_ % VL == 0, "vector widths");

// Output tile t of the CTA's walk: (n, od, tile row, tile column), tile column fastest. zs:
// the ring slot of the tile's first depth tap (depth streaming; 0 otherwise).
struct TileAt {
  int n, od, oh0, ow0, zs;
};
__device__ __forceinline__ TileAt tile_at(int t) {
  TileAt a;
  a.ow0 = (t % TILES_W) * TW;
  t /= TILES_W;
  a.oh0 = (t % TILES_H) * TH;
  t /= TILES_H;
  a.od = t % OD;
  a.n = t / OD;
  a.zs = 0;
  return a;
}

// 1. Input halo tile of output tile `a`: VL channels per copy, consecutive threads on
//    consecutive channel chunks of one pixel (coalesced), zero-fill for padding and channels
//    beyond C. Asynchronous (cp.async) on the GPU; the caller commits and waits.
__device__ __forceinline__ void load_halo(elem_t* xs, const elem_t* __restrict__ X, TileAt a,
                                          int c0, int tid) {
  const int id0 = a.od * SD - PD;
  const int ih0 = a.oh0 * SH - PH;
  const int iw0 = a.ow0 * SW - PW;
  if constexpr (RSTEP >= 1) {
    // Row-strided: a thread keeps one (column, channel chunk) of the halo rows and walks rows
    // RSTEP apart, so the column decode and checks happen once per tile.
    const int rc = tid % ROWCHUNKS;
    const int r0 = tid / ROWCHUNKS;
    if (r0 >= RSTEP) return;
    const int ch = rc % CHUNKS_PER_PIX;
    const int x = rc / CHUNKS_PER_PIX;
    const int iw = iw0 + x;
    const int c = c0 + ch * VL;
    const bool col_ok = (unsigned)iw < (unsigned)IW && c < C_;
    elem_t* dst = xs + halo_col(x) * CTS + ch * VL;
    for (int r = r0; r < HALO_ROWS; r += RSTEP) {
      const int z = r / ITH;
      const int id = id0 + z * DD;
      const int ih = ih0 + (r - z * ITH);
      const bool ok = col_ok && (unsigned)id < (unsigned)ID && (unsigned)ih < (unsigned)IH;
      const int goff = ok ? (((a.n * ID + id) * IH + ih) * IW + iw) * C_ + c : 0;
      copy_to_smem<VL * ESZ>(dst + r * XROW, X + goff, ok);
    }
    return;
  }
  for (int i = tid; i < TOTAL_CHUNKS; i += THREADS) {
    const int ch = i % CHUNKS_PER_PIX;
    const int pix = i / CHUNKS_PER_PIX;
    const int x = pix % ITW;
    const int rest = pix / ITW;
    const int y = rest % ITH;
    const int z = rest / ITH;
    const int id = id0 + z * DD;
    const int ih = ih0 + y;
    const int iw = iw0 + x;
    const int c = c0 + ch * VL;
    const int soff = rest * XROW + halo_col(x) * CTS + ch * VL;  // rest = z·ITH + y
    const bool ok = (unsigned)id < (unsigned)ID && (unsigned)ih < (unsigned)IH &&
                    (unsigned)iw < (unsigned)IW && c < C_;
    const int goff = ok ? (((a.n * ID + id) * IH + ih) * IW + iw) * C_ + c : 0;
    copy_to_smem<VL * ESZ>(xs + soff, X + goff, ok);
  }
}

// Depth streaming: a thread's copies of one input slice are the same (halo row, column,
// channel chunk) at every depth, so their spatial part is derived once per tile column
// (slice_plan) and each slice's copies only add the depth: SLICE_IT copies per thread, with
// the shared-memory offset, the element offset inside one input slice of the image and two
// bits (the copy exists; its row and column are inside the input). load_slice's copy loop is
// not unrolled, so the plan stays in local memory and costs no register during the MMAs (in
// registers it cost the 3D C/G 8 member a CTA per SM). Up to SLICE_PLAN_MAX copies a thread;
// beyond, load_slice decodes every copy.
constexpr int SLICE_COPIES = ITH * ROWCHUNKS;
constexpr int SLICE_IT = (SLICE_COPIES + THREADS - 1) / THREADS;
constexpr int SLICE_PLAN_MAX = 4;
constexpr bool SLICE_PLAN = DEPTH_STREAM && SLICE_IT <= SLICE_PLAN_MAX;
constexpr int SLICE_PLAN_IT = SLICE_PLAN ? SLICE_IT : 1;
struct SlicePlan {
  int soff[SLICE_PLAN_IT];  // elements from the ring slot's start
  int goff[SLICE_PLAN_IT];  // elements from the input slice's start (0 when outside)
  unsigned live, inside;    // bit k: copy k exists; its row, column and channels are inside X
};

// Copy i of a slice (row-major over ITH rows of ITW columns of CHUNKS_PER_PIX chunks): its
// shared-memory offset, and whether its row, column and channels lie inside the input, with
// the element offset inside one input depth slice of the image.
__device__ __forceinline__ bool slice_copy(TileAt a, int c0, int i, int& soff, int& goff) {
  const int ch = i % CHUNKS_PER_PIX;
  const int pix = i / CHUNKS_PER_PIX;
  const int x = pix % ITW;
  const int y = pix / ITW;
  const int ih = a.oh0 * SH - PH + y;
  const int iw = a.ow0 * SW - PW + x;
  const int c = c0 + ch * VL;
  const bool ok = (unsigned)ih < (unsigned)IH && (unsigned)iw < (unsigned)IW && c < C_;
  soff = y * XROW + halo_col(x) * CTS + ch * VL;
  goff = ok ? (ih * IW + iw) * C_ + c : 0;
  return ok;
}

__device__ __forceinline__ SlicePlan slice_plan(TileAt a, int c0, int tid) {
  SlicePlan pl;
  pl.live = 0u;
  pl.inside = 0u;
#pragma unroll
  for (int k = 0; k < SLICE_PLAN_IT; ++k) {
    const int i = tid + k * THREADS;
    pl.soff[k] = 0;
    pl.goff[k] = 0;
    if (i < SLICE_COPIES) {
      pl.live |= 1u << k;
      if (slice_copy(a, c0, i, pl.soff[k], pl.goff[k])) pl.inside |= 1u << k;
    }
  }
  return pl;
}

// Input slice `id` (depth) of output tile `a`'s halo, ITH rows from xs (depth streaming):
// load_halo's copies for one depth tap, zero-filled when `id` is outside the input.
__device__ __forceinline__ void load_slice(elem_t* xs, const elem_t* __restrict__ X, TileAt a, int id,
                                           int c0, int tid, const SlicePlan& pl) {
  const bool id_ok = (unsigned)id < (unsigned)ID;
  if constexpr (SLICE_PLAN) {
    const int base = id_ok ? (a.n * ID + id) * (IH * IW * C_) : 0;
#pragma unroll 1
    for (int k = 0; k < SLICE_PLAN_IT; ++k) {
      if (!((pl.live >> k) & 1u)) continue;
      const bool ok = id_ok && ((pl.inside >> k) & 1u);
      copy_to_smem<VL * ESZ>(xs + pl.soff[k], X + (ok ? base + pl.goff[k] : 0), ok);
    }
    return;
  }
  for (int i = tid; i < SLICE_COPIES; i += THREADS) {
    int soff, goff;
    const bool ok = slice_copy(a, c0, i, soff, goff) && id_ok;
    copy_to_smem<VL * ESZ>(xs + soff, X + (ok ? (a.n * ID + id) * (IH * IW * C_) + goff : 0), ok);
  }
}

// The CTA's walk over its output tiles: `compute(xs, tile)` on each, with xs the staged halo.
// STAGES 1: tile blockIdx.x only. STAGES 2 (persistent): tiles blockIdx.x, blockIdx.x + GRID_X,
// ..., the next tile's halo in flight in the second buffer while the current one is computed.
// STAGES 3 (depth streaming, SD = DD = 1): tile column blockIdx.x (n, tile row, tile column) at
// every output slice od = 0, 1, ...; input slice id = od − PD + z of depth tap z sits in ring
// slot (id + PD) mod HALO_BUFS, i.e. (od + z) mod HALO_BUFS, so the next output slice needs one
// new input slice, staged (in the slot the previous output slice's first tap used) while the
// current one is computed; xs is then the ring and tile.zs = od mod HALO_BUFS.
// Copies the caller issued before (the weights) complete with the first tile's group.
// `prologue()` runs once, after the first tile's halo copies are issued and before they are
// waited for, so that plain global reads (weights gathered or widened into shared memory)
// overlap the copies in flight; the first tile's barrier publishes its stores. It must issue
// no cp.async copy (a later group than the first tile's wait covers).
struct NoPrologue {
  __device__ __forceinline__ void operator()() const {}
};
template <class F, class P = NoPrologue>
__device__ __forceinline__ void walk_tiles(unsigned char* smem, const elem_t* __restrict__ X,
                                           int c0, int tid, F compute, P prologue = P()) {
  elem_t* xs0 = reinterpret_cast<elem_t*>(smem);
  if constexpr (STAGES == 1) {
    const TileAt a = tile_at(blockIdx.x);
    load_halo(xs0, X, a, c0, tid);
    cp_async_commit();
    prologue();
    cp_async_wait<0>();
    __syncthreads();
    compute(xs0, a);
  } else if constexpr (DEPTH_STREAM) {
    constexpr int SLOT = XS_BYTES / ESZ;  // elements of a ring slot
    constexpr int PLANE = TILES_W * TILES_H;  // tile columns of one image
    TileAt a = tile_at((int)blockIdx.x / PLANE * OD * PLANE + (int)blockIdx.x % PLANE);  // od 0
    const SlicePlan pl = slice_plan(a, c0, tid);
    for (int z = 0; z < FZ; ++z) load_slice(xs0 + z * SLOT, X, a, z - PD, c0, tid, pl);
    cp_async_commit();
    prologue();
    for (int od = 0; od < OD; ++od) {
      if (od + 1 < OD) load_slice(xs0 + ((od + FZ) % HALO_BUFS) * SLOT, X, a, od + FZ - PD, c0, tid, pl);
      cp_async_commit();
      cp_async_wait<1>();  // every group but the newest: output slice od's input slices have landed
      __syncthreads();
      a.od = od;
      a.zs = od % HALO_BUFS;
      compute(xs0, a);
      __syncthreads();  // all reads of slot od mod HALO_BUFS done before the next prefetch refills it
    }
  } else {
    elem_t* xs1 = reinterpret_cast<elem_t*>(smem + XS_BYTES);
    int t = blockIdx.x;
    load_halo(xs0, X, tile_at(t), c0, tid);
    cp_async_commit();
    prologue();
    for (int b = 0; t < SPATIAL_TILES; t += GRID_X, b ^= 1) {
      if (t + GRID_X < SPATIAL_TILES) load_halo(b ? xs0 : xs1, X, tile_at(t + GRID_X), c0, tid);
      cp_async_commit();
      cp_async_wait<1>();  // every group but the newest: tile t has landed
      __syncthreads();
      compute(b ? xs1 : xs0, tile_at(t));
      __syncthreads();  // all reads of this buffer done before it is refilled
    }
  }
}
