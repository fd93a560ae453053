//! The record of a direct kernel's geometry ([`DirectGeometry`]) and the register budget of the
//! depthwise forward path ([`W_REG_BUDGET`]), in a leaf module: the per-kernel geometry
//! functions (`super::wgrad`, `super::stream`) build it without importing `super::geometry`,
//! which dispatches to them (`tests/module_graph.rs`: no import cycle). `super::geometry`
//! re-exports both.

/// Registers (f32 values) the depthwise path may spend on the whole filter of a depth slice
/// plus the accumulators; above it the kernel keeps one filter row at a time (fy-outer order).
pub const W_REG_BUDGET: u64 = 160;

/// Everything the direct kernel derives from a (config, problem) pair: tile shape, staged halo,
/// vector widths, shared memory and grid. Computed without panicking for any config (fields
/// of an invalid config are clamped to 1 so that the arithmetic stays defined).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectGeometry {
    /// Output tile rows (`tile_m / tile_k`).
    pub th: u64,
    /// Output tile columns (`tile_k`).
    pub tw: u64,
    /// Input channels staged per CTA.
    pub ct: u64,
    /// Shared-memory stride of one staged pixel in elements: `CT` on the simt path; on the mma
    /// path `CT` or `CT + 8`, whichever is an odd number of 16-byte chunks, so that the eight
    /// row addresses of an `ldmatrix` phase (eight adjacent pixels) hit eight bank groups.
    pub cts: u64,
    /// Weight-tile row stride in elements (mma path: `round16(taps·C/G) + 8`, an odd number of
    /// 16-byte chunks; simt path: `taps·C/G`, f32 transposed, see `ws_bytes`).
    pub wrow: u64,
    /// Depth slices a tile reads (`FZ`; with depth streaming they sit in a ring of FZ + 1
    /// one-slice buffers), halo rows and halo columns.
    pub halo: [u64; 3],
    /// Shared-memory row stride in elements: `ITW·CT` plus a padding of 0–7 16-byte chunks
    /// chosen by [`super::geometry::smem_read_wavefronts`] so that the column reads of a quarter-warp that spans
    /// several rows hit distinct banks.
    pub xrow: u64,
    /// Elements per global-load chunk (divides C and CT; 16 bytes at most).
    pub vl: u64,
    /// Elements per output store (divides K and VEC; 16 bytes at most).
    pub sv: u64,
    /// Bytes of the input tile (rounded up to 16; with depth streaming, of one ring slot: one
    /// input slice).
    pub xs_bytes: u64,
    /// Bytes of the weight tile (simt: f32 transposed; mma: 16-bit `[BN][WROW]` rows).
    pub ws_bytes: u64,
    /// Bytes of the raw weight area of a group-merged mma config (the CTA's real weights,
    /// `BN × taps × C/G` elements, copied in before they are expanded into block-diagonal
    /// rows; rounded up to 16), else 0.
    pub raw_bytes: u64,
    /// Dynamic shared memory of the launch.
    pub smem_bytes: u64,
    /// Launch grid.
    pub grid: [u64; 3],
    /// CTAs per SM the kernel's launch bound promises (`__launch_bounds__(THREADS, MIN_CTAS)`):
    /// on the persistent CUDA-core path the CTAs one wave holds, so that ptxas keeps the
    /// registers low enough for the whole grid to be resident at once; 1 elsewhere.
    pub min_ctas: u64,
}

/// Stride phases the tensor-core paths de-interleave a staged halo row into (`XSPLIT` of
/// `common.cu`): halo column `x` lands in slot `(x % split)·⌈ITW/split⌉ + x / split`, so the
/// eight output pixels of an `ldmatrix` phase, `SW` halo columns apart, read eight consecutive
/// slots (eight bank groups with an odd chunk stride) instead of every other one (two-way
/// conflicts at stride 2: ncu counted 1.8× the conflict-free wavefronts on the H200). The
/// column stride `stride_w` on the mma paths, 1 (natural order) on the CUDA-core paths, whose
/// reads are not `ldmatrix` rows.
pub fn halo_split(is_mma: bool, stride_w: u64) -> u64 {
    if is_mma {
        stride_w.max(1)
    } else {
        1
    }
}

/// Elements of a staged halo row of `itw` pixels of `cts` elements de-interleaved into `split`
/// phases ([`halo_split`]): `split` phases of `⌈itw / split⌉` slots (one slot more than `itw`
/// at most `split − 1` times).
pub fn split_row(itw: u64, split: u64, cts: u64) -> u64 {
    let split = split.max(1);
    split * itw.div_ceil(split) * cts
}

/// A shared-memory pixel stride of `n` 16-bit elements for `ldmatrix` rows: rounded up to whole
/// 16-byte chunks, plus one chunk when their count is even, so that eight rows a stride apart
/// start in eight different bank groups.
pub fn odd_chunk_stride(n: u64) -> u64 {
    let n = n.div_ceil(8) * 8;
    if (n / 8).is_multiple_of(2) {
        n + 8
    } else {
        n
    }
}
