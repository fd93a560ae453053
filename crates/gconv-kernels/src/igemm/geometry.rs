//! The igemm family's geometry: shared memory, the wgmma shape, the register estimate, the
//! effective vector widths (the one place that clamps the vector caps), the k-tile count, the
//! launch grid, and the [`IgemmPlan`] that holds them for one admitted (kernel, problem) pair.

use crate::config::{KernelConfig, Math};
use crate::shared::largest_pow2_dividing;
use gconv_problem::Problem;

/// The fragments a direction contributes to the kernel body (`super::emit::direction_parts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectionParts {
    /// The operand loaders (`fwd_loaders.cu` for the forward direction).
    pub loaders: &'static str,
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
/// split-K writes partials).
pub fn smem_bytes(cfg: &KernelConfig) -> u32 {
    let es = cfg.dtype.size_bytes() as u32;
    let pipeline = cfg
        .stages
        .saturating_mul(cfg.tile_m.saturating_add(cfg.tile_n))
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
    let (wm, wn) = warp_tile(cfg);
    let threads = cfg.threads().max(1);
    let va = cfg.vec_a.max(1);
    let vb = cfg.vec_b.max(1);
    let ia = (cfg.tile_m * cfg.tile_k / va).div_ceil(threads);
    let ib = (cfg.tile_n * cfg.tile_k / vb).div_ceil(threads);
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
    acc + frags + loaders + 28
}

/// Vector widths (elements) a config uses on a problem, after clamping the caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectiveVectors {
    /// A (activation) loads: divides gm·C/G.
    pub a: u32,
    /// B (weight) loads: divides C/G.
    pub b: u32,
    /// Output stores: divides gm·K/G, at most 16 bytes.
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
    EffectiveVectors {
        a: largest_pow2_dividing(gm * problem.cpg(), cfg.vec_a.min(cfg.tile_k) as u64) as u32,
        b: largest_pow2_dividing(problem.cpg(), cfg.vec_b.min(cfg.tile_k) as u64) as u32,
        c: largest_pow2_dividing(gm * problem.kpg(), (16 / out_es).min(vmax * 2) as u64) as u32,
    }
}

/// Number of k-tiles the generated kernel walks: taps × ⌈gm·C/G / tile_k⌉, or, when the
/// merged channels gm·C/G are fewer than `tile_k` and divide it (several taps packed into one
/// k-tile), ⌈taps / (tile_k / (gm·C/G))⌉.
pub fn k_tiles(cfg: &KernelConfig, problem: &Problem) -> u64 {
    let ceff = cfg.group_merge.max(1) as u64 * problem.cpg();
    let bk = cfg.tile_k.max(1) as u64;
    if ceff < bk && bk.is_multiple_of(ceff) {
        problem.filter_volume().div_ceil(bk / ceff)
    } else {
        problem.filter_volume() * ceff.div_ceil(bk)
    }
}

/// The launch grid: x = M tiles, y = N tiles, z = G/gm · split_k.
pub fn grid(cfg: &KernelConfig, problem: &Problem) -> [u64; 3] {
    let (m, _, _) = problem.gemm_mnk();
    let gm = cfg.group_merge.max(1) as u64;
    [
        m.div_ceil(cfg.tile_m.max(1) as u64),
        (gm * problem.kpg()).div_ceil(cfg.tile_n.max(1) as u64),
        problem.g / gm * cfg.split_k as u64,
    ]
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
    /// The direction's fragments of the kernel body.
    pub parts: DirectionParts,
}

impl IgemmPlan {
    /// The plan of `cfg` on `problem` (both already checked by the rules) with the direction's
    /// fragments.
    pub fn new(cfg: &KernelConfig, problem: &Problem, parts: DirectionParts) -> IgemmPlan {
        IgemmPlan {
            cfg: *cfg,
            problem: *problem,
            vectors: effective_vectors(cfg, problem),
            grid: grid(cfg, problem),
            k_tiles: k_tiles(cfg, problem),
            smem_bytes: smem_bytes(cfg),
            registers: register_estimate(cfg),
            parts,
        }
    }
}
