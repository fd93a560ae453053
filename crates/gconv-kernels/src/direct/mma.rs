//! The tensor-core path of the `direct` family (`math = mma`): grouped convolutions whose
//! C/G and K/G are multiples of 8 (C/G 8–64 in practice, the ResNeXt/RegNet-style layers where
//! the igemm family's block-diagonal group merge wastes most of its MMA work).
//!
//! A CTA stages the input halo of its output tile once, like the simt path (`common.cu`), and
//! then treats it as the A operand of an implicit GEMM: row m of an m16 block is an output
//! pixel of the tile and column k = (tap, input channel of the pixel's group). `ldmatrix` takes
//! every lane's row address straight from the halo (pixel base + the tap's row/column offset),
//! so no im2col copy exists and each input value is loaded from global memory once per tile,
//! not once per tap. The CTA's weights sit in shared memory as `[BN][WROW]` 16-bit rows (the B
//! operand, `k = tap·C/G + c`, zero past `taps·C/G`). A warp's work unit is `NW` output
//! channels of one group × `MB` m16 blocks of pixels; each k16 step loads the unit's B
//! fragments once and reuses them for the MB blocks (`mma.sync.m16n8k16`, f32 accumulation).
//! Stores are packed channel pairs (`cvt.rn.*x2`) straight from the accumulators.
//!
//! Field mapping (the simt table in [`crate::direct`] for the shared fields):
//!
//! | field | mma meaning |
//! |---|---|
//! | `tile_m`, `tile_k`, `tile_n` | tile pixels `TH × TW`, `TW`, output channels `BN` (whole groups) |
//! | `vec_a` | channels of a warp unit, a cap: `NW` = the largest multiple of 8 that divides K/G and is ≤ `vec_a` ([`unit_channels`]) |
//! | `vec_b` | `MB`, m16 blocks (16 pixels each) of a warp unit, 1..=8 |
//! | `warps_m` | warps; units are dealt to warps round robin |
//! | `stages` | as on the simt path (1: one tile per CTA, 2: persistent, double-buffered); 3: streaming over depth (below) |
//! | `group_merge` | gm: adjacent groups computed as one merged group of gm·C/G input and gm·K/G output channels with block-diagonal weights ([`super::kernel_problem`]), a power of two ≤ 16, only for layers whose C/G or K/G is not a multiple of 8 |
//!
//! **Group merge** (gm > 1) brings layers whose C/G is not a multiple of 8 (C/G 1–4, channel
//! multipliers) to this path: the merged group's input channels are contiguous in NHWC, so the
//! halo, the `ldmatrix` addressing and the stores are those of a C/G = gm·C/G layer; only the
//! weights differ. The CTA's real weights (`BN × taps × C/G`, one contiguous block of global
//! memory) land in a raw area with the first tile's copies and are expanded in shared memory,
//! 16 bytes of a row at a time, into merged rows that are zero outside each output channel's
//! own group (backward data gathers the raw area as `walk_tiles`' prologue instead, several
//! dual output channels per read). The functions of
//! this module take the merged problem ([`super::kernel_problem`]; on the stride-phase path,
//! `super::strided::channel_view`), except [`auto_eligible`], which takes the real one
//! (`auto` considers gm 1 members only). The cost model does not yet model merging (it counts
//! the expanded weight tile and the merged problem's weight bytes).
//!
//! Persistent members (`stages` 2) launch one wave of the CTAs that fit on the SMs (the
//! device's occupancy model), so each CTA stages its weight tile once for several output tiles.
//!
//! **Depth streaming** (`stages` 3, 3D layers with depth taps, depth stride 1 and depth dilation
//! 1: [`super::rules`]' `DepthStreamScope`): a CTA owns one column of tiles, (n, tile row, tile
//! column), and walks it over every output depth slice. The halo of one input depth slice is a
//! ring slot (`XS_BYTES`); the ring has FZ + 1 slots, input slice `id` in slot `(id + PD) mod
//! (FZ + 1)`, so output slice `od` reads its depth taps from slots `(od + z) mod (FZ + 1)` (a
//! runtime byte offset per tap, `zoff` in `fwd_mma.cu`, added to the compile-time offset of the
//! tap's row and column) and the next output slice needs one new input slice, staged while the
//! current one is computed. Each input slice is staged once per column instead of FZ times, in
//! FZ + 1 slice buffers instead of 2 × FZ. On the H200, on the zoo's 3D C/G 8 layer, the best
//! of 152 (`t64x32x16_w8x1_s3_v16x2`) ran 66.5 µs backward data and 59.1 µs forward against
//! 71.4 and 66.1 µs for the pool's persistent members in the same lease, while those members'
//! own streaming twins were 10–15 % slower (`results/h200/s23/README.md`, call g); the pool
//! holds three streaming members ([`super::pool::forward_pool`]).
//!
//! Shared memory: the halo with a pixel stride `CTS` of an odd number of 16-byte chunks (the
//! eight row addresses of an `ldmatrix` phase, eight adjacent pixels, fall into eight bank
//! groups) and the weight rows with an odd number of 16-byte chunks (same reason). At a column
//! stride S > 1 the halo copy de-interleaves each staged row by stride phase (column `x` in
//! slot `(x mod S)·⌈ITW/S⌉ + x div S`, [`super::shape::halo_split`]), so that adjacent output
//! pixels of one tap still read adjacent slots; in natural order they sit S slots apart and
//! the eight rows of a phase fall into four bank groups at S = 2 (two-way conflicts). Where the
//! A fragments slide along the filter row ([`a_slide`]) the row is split by column parity at
//! stride 1, for the same reason: the eight rows of a phase are the even pixels 2g.

use crate::config::KernelConfig;
use crate::rejection::Rejection;
use gconv_problem::{DType, Problem};

/// The tensor-core kernel body (after `common.cu`).
pub(super) const BODY: &str = include_str!("fwd_mma.cu");

/// `NW`: output channels of one warp work unit — the largest multiple of 8 that divides K/G and
/// is at most `vec_a` (8 when none is larger; the admission requires 8 | K/G).
pub fn unit_channels(cfg: &KernelConfig, problem: &Problem) -> u64 {
    let kpg = problem.kpg();
    let cap = (cfg.vec_a as u64).max(8);
    (1..=cap / 8)
        .rev()
        .map(|i| 8 * i)
        .find(|&d| kpg.is_multiple_of(d))
        .unwrap_or(8)
}

/// `MB`: m16 blocks of a warp unit.
pub fn unit_blocks(cfg: &KernelConfig) -> u64 {
    cfg.vec_b.max(1) as u64
}

/// Work of one output tile: (warp units, k16 steps, m16 blocks per unit incl. the padding of the
/// last unit, n8 blocks per unit).
pub fn tile_work(cfg: &KernelConfig, problem: &Problem) -> (u64, u64, u64, u64) {
    let nw = unit_channels(cfg, problem);
    let mb = unit_blocks(cfg);
    let mblk = (cfg.tile_m as u64).div_ceil(16);
    let units = mblk.div_ceil(mb) * (cfg.tile_n as u64 / nw).max(1);
    let ksteps = (problem.filter_volume() * problem.cpg() / 8).div_ceil(2);
    (units, ksteps, mb, nw / 8)
}

/// Largest C/G for which `auto` considers the mma path: on the H200 the best mma direct member
/// was within a few percent of the best igemm member at C/G 56 and lost at C/G 64
/// (`results/h200/s3/`).
pub const MAX_AUTO_CPG: u64 = 56;

/// The same bound for backward-data problems (on the C/G of the dgrad problem): the igemm
/// family's N-major dgrad kernels beat the best mma direct member at C/G 32 (9.1 vs 19.7 µs)
/// and 56 (15.5 vs 24.3 µs) and lost to it at C/G 8–24 on the zoo dgrad layers
/// (`results/h200/s6/`).
pub const MAX_AUTO_CPG_DGRAD: u64 = 24;

/// True when `auto_select` considers the mma direct members for `problem`: C/G and K/G
/// multiples of 8, C/G ≤ [`MAX_AUTO_CPG`], and a filter larger than 1×1 (the halo reuse that
/// sets the path apart; pointwise layers keep igemm's pointwise path).
pub fn auto_eligible(problem: &Problem) -> bool {
    problem.cpg().is_multiple_of(8)
        && problem.kpg().is_multiple_of(8)
        && problem.cpg() <= MAX_AUTO_CPG
        && problem.filter_volume() > 1
}

/// [`auto_eligible`] for a backward-data problem: its forward dual is eligible and its C/G is
/// at most [`MAX_AUTO_CPG_DGRAD`].
pub fn auto_eligible_dgrad(problem: &Problem, dual: &Problem) -> bool {
    auto_eligible(dual) && problem.cpg() <= MAX_AUTO_CPG_DGRAD
}

/// Structural rules of the mma path (called by the direct family's `validate`).
pub(super) fn validate(cfg: &KernelConfig) -> Result<(), Rejection> {
    if cfg.dtype == DType::F32 {
        return Err(Rejection::MathDtypeMismatch {
            math: cfg.math.token(),
            dtype: cfg.dtype.token(),
        });
    }
    if !matches!(cfg.vec_a, 8 | 16 | 32 | 64) {
        return Err(Rejection::BadVectorWidth {
            operand: "vec_a",
            value: cfg.vec_a,
            max: 64,
        });
    }
    if !(1..=8).contains(&cfg.vec_b) {
        return Err(Rejection::BadVectorWidth {
            operand: "vec_b",
            value: cfg.vec_b,
            max: 8,
        });
    }
    let limits = "direct mma: tile_k (tile width) in 1..=128, tile_m a multiple of tile_k with at most 64 rows and 1024 pixels, tile_n a multiple of 8 in 8..=256";
    let ok = (1..=128).contains(&cfg.tile_k)
        && (1..=1024).contains(&cfg.tile_m)
        && cfg.tile_m.is_multiple_of(cfg.tile_k)
        && cfg.tile_m / cfg.tile_k <= 64
        && (8..=256).contains(&cfg.tile_n)
        && cfg.tile_n.is_multiple_of(8);
    if !ok {
        return Err(Rejection::TileOutOfRange {
            tile_m: cfg.tile_m,
            tile_n: cfg.tile_n,
            tile_k: cfg.tile_k,
            limits,
        });
    }
    Ok(())
}

/// Most `k16 steps × n8 blocks` whose B fragments (two registers each) a warp keeps for a whole
/// tile ([`b_resident`]).
pub const B_RESIDENT_MAX: u64 = 20;

/// True when each warp loads the B fragments of a tile once and keeps them in registers for
/// all its units (`B_RESIDENT` of `fwd_mma.cu`) instead of loading them again per unit: the
/// warps are a multiple of the units along the channels (units are dealt round robin, so
/// every unit of a warp has the same channels), a warp has more than one unit, and the
/// fragments fit [`B_RESIDENT_MAX`]. The B loads were about 15 % of the shared-memory
/// wavefronts of the zoo's 3D C/G 8 backward-data member, whose bound is the L1 unit (ncu,
/// `results/h100/s38/README.md`, call 6).
pub fn b_resident(cfg: &KernelConfig, problem: &Problem) -> bool {
    let (units, ksteps, _, nb) = tile_work(cfg, problem);
    let warps = (cfg.threads() / 32).max(1) as u64;
    let along_n = (cfg.tile_n as u64 / unit_channels(cfg, problem)).max(1);
    warps.is_multiple_of(along_n) && units > warps && ksteps * nb <= B_RESIDENT_MAX
}

/// True when the A fragments slide along the filter row (`A_SLIDE` of `fwd_mma.cu`): the
/// 16 rows of an m16 block are 8 horizontally adjacent pixel pairs (row g pixel 2g, row g + 8
/// pixel 2g + 1), so the 8×8 A matrix that rows g + 8 read at filter column fx is the one
/// rows g read at fx + 1, and a k16 step loads only the matrices the previous step did not
/// (for a 3-tap filter row 8 of 12 with C/G ≥ 16, 2–3 of 4 at C/G 8); on 3D layers with C/G
/// 8 (`TAP_ROWS` of `fwd_mma.cu`) a filter row's FX + 1 matrices are loaded once and each tap
/// is one m16n8k8 on two of them instead (`tap_rows`: no register quads to assemble; session
/// 49's H100 A/B: faster there, slower on 2D layers). `problem` is the
/// kernel's own (forward or forward dual, merged: [`super::kernel_problem`]); the walk needs
/// column stride and dilation 1, an even tile width (a pair never straddles a tile row), a
/// filter wider than one column, and whole k16 steps per tap or one k8 chunk per tap (C/G
/// 8 or a multiple of 16). The halo is stored de-interleaved by column parity
/// ([`halo_phases`]) so that the eight rows 2g of a phase read eight consecutive slots.
///
/// Only units of one n8 block (`NW` = 8), whose A fragment feeds one MMA: there the A loads
/// bound the kernel and the walk paid on the H100 (session 39's A/B over the direct
/// tensor-core members of the zoo's and the real client's forward and backward-data layers,
/// `results/h100/s39/README.md`: units of one n8 block 0.978× in geometric mean, the best
/// member of a layer never slower, 0.85× at best; units of two to eight n8 blocks, whose A
/// fragment feeds two to eight MMAs, lost up to 1.4× on some members).
pub fn a_slide(cfg: &KernelConfig, problem: &Problem) -> bool {
    let cpg = problem.cpg();
    let tw = super::DirectView::of(cfg).tile_width as u64;
    cfg.math == crate::config::Math::Mma
        && unit_channels(cfg, problem) == 8
        && problem.direction == gconv_problem::Direction::Fwd
        && problem.stride[2] == 1
        && problem.dilation[2] == 1
        && problem.filter[2] > 1
        && tw.is_multiple_of(2)
        && (cpg == 8 || cpg.is_multiple_of(16))
}

/// `XSPLIT` of the direct tensor-core path: the column stride (`super::shape::halo_split`),
/// or 2 (column parity) where the A fragments slide ([`a_slide`]).
pub fn halo_phases(cfg: &KernelConfig, problem: &Problem) -> u64 {
    if a_slide(cfg, problem) {
        2
    } else {
        super::shape::halo_split(true, problem.stride[2])
    }
}

/// Registers per thread: the `MB × NB × 4` accumulators, the unit's B fragments (a tile's,
/// [`b_resident`]), one A fragment (with [`a_slide`], the previous step's too; on 3D C/G 8
/// layers a filter row's matrices and the tap partial sums instead, which the same allowance
/// covers: 79 registers for the zoo's 3D layer's streaming backward-data member, 97 before),
/// the MB row addresses, with depth streaming the FZ ring offsets, and a fixed allowance.
pub fn register_estimate(cfg: &KernelConfig, problem: &Problem) -> u32 {
    let (_, ksteps, mb, nb) = tile_work(cfg, problem);
    let slide = if a_slide(cfg, problem) { 4 * mb } else { 0 };
    let ring = if super::DirectView::of(cfg).depth_stream {
        problem.filter[0]
    } else {
        0
    };
    let b = if b_resident(cfg, problem) {
        2 * nb * ksteps
    } else {
        2 * nb
    };
    let est = 4 * mb * nb + b + 4 + slide + mb + ring + 40;
    est.min(u32::MAX as u64) as u32
}
