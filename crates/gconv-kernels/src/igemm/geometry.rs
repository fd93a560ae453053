//! The igemm family's geometry: shared memory, the wgmma shape, the register estimate, the
//! effective vector widths (the one place that clamps the vector caps), the k-tile count, the
//! launch grid, and the [`IgemmPlan`] that holds them for one admitted (kernel, problem) pair.

use crate::config::{KernelConfig, Math};
use crate::shared::largest_pow2_dividing;
use gconv_problem::{Direction, Problem};

/// The fragments a direction contributes to the kernel body (`super::emit::direction_parts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectionParts {
    /// Device helpers placed before the kernel (empty for the forward direction;
    /// `dgrad_helpers.cu` for backward-data).
    pub prologue: &'static str,
    /// The operand loaders (`fwd_loaders.cu`, `dgrad_loaders.cu`).
    pub loaders: &'static str,
}

/// Channels per group of the GEMM reduction (the A operand's channels): C/G forward, K/G
/// backward-data.
pub fn reduction_cpg(problem: &Problem) -> u64 {
    match problem.direction {
        Direction::Dgrad => problem.kpg(),
        _ => problem.cpg(),
    }
}

/// Output channels per group (the GEMM's N per group): K/G forward, C/G backward-data.
pub fn output_kpg(problem: &Problem) -> u64 {
    match problem.direction {
        Direction::Dgrad => problem.cpg(),
        _ => problem.kpg(),
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Backward-data taps of one spatial dimension that reach stride phase `rho` (dX positions
/// with `hi + pad = rho (mod stride)`): the filter taps `y` with `y·dilation = rho (mod
/// stride)`. The generated `phase_dim` (`dgrad_helpers.cu`) computes the same on the GPU.
pub fn dgrad_phase_taps(stride: u64, dilation: u64, filter: u64, rho: u64) -> u64 {
    let g = gcd(stride, dilation).max(1);
    let ystep = stride / g;
    if !rho.is_multiple_of(g) {
        return 0;
    }
    match (0..ystep).find(|y| (y * dilation) % stride == rho) {
        Some(y0) if y0 < filter => (filter - y0).div_ceil(ystep),
        _ => 0,
    }
}

/// Backward-data stride phases (`stride_d · stride_h · stride_w`; one at stride 1).
pub fn dgrad_phases(problem: &Problem) -> u64 {
    problem.stride.iter().product::<u64>().max(1)
}

/// Backward-data M tiles per phase: every phase gets the tiles of the largest one (N · Π ⌈dX
/// extent / stride⌉ rows); the surplus tiles of a smaller phase return at once.
pub fn dgrad_tiles_per_phase(cfg: &KernelConfig, problem: &Problem) -> u64 {
    let rows: u64 = (0..3)
        .map(|d| problem.input[d].div_ceil(problem.stride[d].max(1)))
        .product::<u64>()
        * problem.n;
    rows.div_ceil(cfg.tile_m.max(1) as u64)
}

/// Taps of every backward-data phase, in phase order (w fastest).
pub fn dgrad_taps_per_phase(problem: &Problem) -> Vec<u64> {
    let [sd, sh, sw] = problem.stride;
    let dim = |d: usize, rho: u64| {
        dgrad_phase_taps(
            problem.stride[d],
            problem.dilation[d],
            problem.filter[d],
            rho,
        )
    };
    let mut v = Vec::new();
    for rd in 0..sd {
        for rh in 0..sh {
            for rw in 0..sw {
                v.push(dim(0, rd) * dim(1, rh) * dim(2, rw));
            }
        }
    }
    v
}

/// Elements of padding added to each row of the epilogue's shared-memory staging tile.
pub const EPILOGUE_PAD: u32 = 8;

/// Warp tile (M, N): the block tile over the warp layout.
pub fn warp_tile(cfg: &KernelConfig) -> (u32, u32) {
    (
        cfg.tile_m / cfg.warps_m.max(1),
        cfg.tile_n / cfg.warps_n.max(1),
    )
}

/// Shared memory a config needs: the larger of the pipeline (`stages` × (A + B) tiles) and the
/// epilogue's staging tile (`tile_m` × (`tile_n` + [`EPILOGUE_PAD`]) output elements, f32 when
/// split-K writes partials). A backward-data plan whose weight tile is K-major needs
/// [`smem_bytes_with_raw`] (the check is the family's problem rule).
pub fn smem_bytes(cfg: &KernelConfig) -> u32 {
    smem_of(cfg, false)
}

/// [`smem_bytes`] plus the raw stage of a K-major backward-data weight tile: the weight blocks
/// as loaded, beside each B tile, before their transpose (a second B tile per stage).
pub fn smem_bytes_with_raw(cfg: &KernelConfig) -> u32 {
    smem_of(cfg, true)
}

fn smem_of(cfg: &KernelConfig, raw: bool) -> u32 {
    let es = cfg.dtype.size_bytes() as u32;
    let b_tiles = if raw { 2u32 } else { 1 };
    let pipeline = cfg
        .stages
        .saturating_mul(
            cfg.tile_m
                .saturating_add(cfg.tile_n.saturating_mul(b_tiles)),
        )
        .saturating_mul(cfg.tile_k)
        .saturating_mul(es);
    let out_es = if cfg.split_k > 1 { 4 } else { es };
    let epilogue = cfg
        .tile_m
        .saturating_mul(cfg.tile_n.saturating_add(EPILOGUE_PAD))
        .saturating_mul(out_es);
    // wgmma: the kernel rounds its shared-memory base up to 1024 bytes (the 128-byte swizzle
    // repeats every 8 rows of 128 bytes and is applied to absolute addresses).
    let align = if cfg.math == Math::Wgmma { 1024 } else { 0 };
    pipeline.max(epilogue).saturating_add(align)
}

/// wgmma geometry of a config: (warpgroups, m64 blocks per warpgroup, accumulators per thread
/// per m64 block).
pub fn wgmma_shape(cfg: &KernelConfig) -> (u32, u32, u32) {
    let wg = (cfg.warps_m * cfg.warps_n / 4).max(1);
    (wg, (cfg.tile_m / (64 * wg)).max(1), cfg.tile_n / 2)
}

/// Estimated registers per thread: accumulators, fragments (double-buffered for mma), loader
/// state and a fixed allowance for addresses and loop counters.
pub fn register_estimate(cfg: &KernelConfig) -> u32 {
    register_estimate_with(cfg, cfg.vec_b)
}

/// [`register_estimate`] with the B vector width a problem gives (backward-data: the side of
/// its weight blocks, which sets how many blocks a thread holds: 1×1 blocks of odd channel
/// counts are a block per element).
pub fn register_estimate_with(cfg: &KernelConfig, vec_b: u32) -> u32 {
    let (wm, wn) = warp_tile(cfg);
    let threads = cfg.threads().max(1);
    let va = cfg.vec_a.max(1);
    let vb = vec_b.max(1);
    let ia = (cfg.tile_m * cfg.tile_k / va).div_ceil(threads);
    // Backward-data: four ints of state per weight block, and one block's rows while it is
    // transposed (between the copies and the barrier, when no fragments are live).
    let (ib, transient) = if cfg.direction == Direction::Dgrad {
        let words = (vb * cfg.dtype.size_bytes() as u32).div_ceil(4);
        (
            ((cfg.tile_n / vb) * (cfg.tile_k / vb)).div_ceil(threads) * 4,
            vb * words,
        )
    } else {
        ((cfg.tile_n * cfg.tile_k / vb).div_ceil(threads), 0)
    };
    let loaders = 2 * ia + ib;
    let (acc, frags) = match cfg.math {
        Math::Simt => {
            let (tm, tn) = (wm / 4, wn / 8);
            (tm * tn, 4 * (tm + tn))
        }
        Math::Mma | Math::Tf32 => (wm * wn / 32, 2 * (wm / 16 * 4 + wn / 8 * 2)),
        Math::Wgmma => {
            let (_, mwg, nacc) = wgmma_shape(cfg);
            (mwg * nacc, 0)
        }
    };
    acc + frags.max(transient) + loaders + 28
}

/// Vector widths (elements) a config uses on a problem, after clamping the caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectiveVectors {
    /// A (activation) loads: divides the merged reduction channels (gm·C/G; dgrad gm·K/G).
    pub a: u32,
    /// B (weight) loads: divides C/G (dgrad: C/G and K/G, the side of a transposed block).
    pub b: u32,
    /// Output stores: divides the merged output channels (gm·K/G; dgrad gm·C/G), at most 16
    /// bytes.
    pub c: u32,
}

/// The one place that clamps the vector caps: the largest power of two ≤ the cap that divides
/// the channels a vector must stay inside (gm·C/G for A, C/G for B, gm·K/G for the output).
pub fn effective_vectors(cfg: &KernelConfig, problem: &Problem) -> EffectiveVectors {
    let gm = cfg.group_merge.max(1) as u64;
    let vmax = (16 / cfg.dtype.size_bytes()) as u32;
    let out_es = if cfg.split_k > 1 {
        4
    } else {
        cfg.dtype.size_bytes() as u32
    };
    // Backward-data weight blocks are square (VB channels × VB reduction channels, transposed
    // in registers): VB divides both C/G and K/G.
    let b_channels = match cfg.direction {
        Direction::Dgrad => gcd(problem.cpg(), problem.kpg()),
        _ => problem.cpg(),
    };
    EffectiveVectors {
        a: largest_pow2_dividing(
            gm * reduction_cpg(problem),
            cfg.vec_a.min(cfg.tile_k) as u64,
        ) as u32,
        b: largest_pow2_dividing(b_channels, cfg.vec_b.min(cfg.tile_k) as u64) as u32,
        c: largest_pow2_dividing(gm * output_kpg(problem), (16 / out_es).min(vmax * 2) as u64)
            as u32,
    }
}

/// Number of k-tiles the generated kernel walks: taps × ⌈gm·C/G / tile_k⌉, or, when the
/// merged channels gm·C/G are fewer than `tile_k` and divide it (several taps packed into one
/// k-tile), ⌈taps / (tile_k / (gm·C/G))⌉. Backward-data (reduction channels gm·K/G): the mean
/// over the stride phases of each phase's k-tiles (its own taps), rounded up.
pub fn k_tiles(cfg: &KernelConfig, problem: &Problem) -> u64 {
    let ceff = cfg.group_merge.max(1) as u64 * reduction_cpg(problem);
    let bk = cfg.tile_k.max(1) as u64;
    let of_taps = |taps: u64| {
        if ceff < bk && bk.is_multiple_of(ceff) {
            taps.div_ceil(bk / ceff)
        } else {
            taps * ceff.div_ceil(bk)
        }
    };
    if problem.direction == Direction::Dgrad {
        let per_phase = dgrad_taps_per_phase(problem);
        let sum: u64 = per_phase.iter().map(|&t| of_taps(t)).sum();
        sum.div_ceil(per_phase.len().max(1) as u64)
    } else {
        of_taps(problem.filter_volume())
    }
}

/// The launch grid: x = M tiles (backward-data: phases × tiles per phase), y = N tiles,
/// z = G/gm · split_k.
pub fn grid(cfg: &KernelConfig, problem: &Problem) -> [u64; 3] {
    let (m, _, _) = problem.gemm_mnk();
    let gm = cfg.group_merge.max(1) as u64;
    let x = if problem.direction == Direction::Dgrad {
        dgrad_phases(problem) * dgrad_tiles_per_phase(cfg, problem)
    } else {
        m.div_ceil(cfg.tile_m.max(1) as u64)
    };
    [
        x,
        (gm * output_kpg(problem)).div_ceil(cfg.tile_n.max(1) as u64),
        problem.g / gm * cfg.split_k as u64,
    ]
}

/// True when a backward-data plan keeps its weight tile N-major (as W stores it: channels
/// contiguous) and lets the tensor cores read it transposed (`ldmatrix.trans`, wgmma
/// imm-trans-b): 16-bit elements, C/G and K/G multiples of 8 (8-channel copies inside a
/// group), `tile_n` a multiple of 64 (whole 128-byte panels) and tensor-core math. Otherwise the
/// tile is K-major, filled by blocks transposed in `land`.
pub fn b_nmajor(cfg: &KernelConfig, vectors: &EffectiveVectors) -> bool {
    cfg.direction == Direction::Dgrad
        && cfg.dtype.size_bytes() == 2
        && vectors.b == 8
        && cfg.tile_n.is_multiple_of(64)
        && matches!(cfg.math, Math::Mma | Math::Wgmma)
}

/// The igemm plan of one admitted (kernel, problem) pair: everything the emitter and the cost
/// model read, computed once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IgemmPlan {
    /// The kernel.
    pub cfg: KernelConfig,
    /// The problem.
    pub problem: Problem,
    /// Effective vector widths.
    pub vectors: EffectiveVectors,
    /// Main launch grid.
    pub grid: [u64; 3],
    /// k-tiles of the reduction.
    pub k_tiles: u64,
    /// Dynamic shared memory of the main launch.
    pub smem_bytes: u32,
    /// Estimated registers per thread.
    pub registers: u32,
    /// Backward-data: the weight tile is N-major ([`b_nmajor`]).
    pub b_nmajor: bool,
    /// The direction's fragments of the kernel body.
    pub parts: DirectionParts,
}

impl IgemmPlan {
    /// The plan of `cfg` on `problem` (both already checked by the rules) with the direction's
    /// fragments.
    pub fn new(cfg: &KernelConfig, problem: &Problem, parts: DirectionParts) -> IgemmPlan {
        let vectors = effective_vectors(cfg, problem);
        let nmajor = b_nmajor(cfg, &vectors);
        let smem = if cfg.direction == Direction::Dgrad && !nmajor {
            smem_bytes_with_raw(cfg)
        } else {
            smem_bytes(cfg)
        };
        IgemmPlan {
            cfg: *cfg,
            problem: *problem,
            vectors,
            grid: grid(cfg, problem),
            k_tiles: k_tiles(cfg, problem),
            smem_bytes: smem,
            registers: if nmajor {
                register_estimate(cfg)
            } else {
                register_estimate_with(cfg, vectors.b)
            },
            b_nmajor: nmajor,
            parts,
        }
    }
}
