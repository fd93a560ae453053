//! The igemm family's rules: [`validate`] (is a config an igemm kernel at all: math path and
//! dtype, warps, tiles and the instruction shapes, stages, vector caps, group merge, split-K,
//! shared memory and registers) and [`check_problem`] (does it run this problem: the pointwise
//! and halo paths' conditions, group merge, the split-K workspace and reduction). The shared rules
//! (architecture, direction and dtype match, index and grid limits) are `crate::admit`'s.

use super::geometry::{
    b_nmajor, effective_vectors, halo_dims, halo_smem_bytes, k_tiles, output_kpg, reduction_cpg,
    register_estimate, register_estimate_with, smem_bytes, smem_bytes_with_raw,
    tail_narrows_vectors, warp_tile, wgmma_shape,
};
use crate::config::{FastPath, KernelConfig, Math, SplitKMode};
use crate::device::DeviceLimits;
use crate::rejection::{FamilyRule, Rejection, RuleMessage};
use crate::shared::{pow2_in, MAX_GROUP_MERGE};
use gconv_problem::{DType, Direction, Problem};
use std::fmt;

/// The backward-weight group-merge rule broken (`group_merge_exceeds_tile`): its message is
/// written only when displayed ([`RuleMessage`]), not for every member the gate refuses.
#[derive(Debug)]
struct WgradMergeExceedsTile {
    gm: u64,
    merged_k: u64,
    tile_m: u32,
}

impl fmt::Display for WgradMergeExceedsTile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "backward-weight group merge {}: the merged output channels gm·K/G = {} exceed tile_m {}",
            self.gm, self.merged_k, self.tile_m
        )
    }
}

/// A rule's message, written only when displayed (`auto` reads only the reason of a member
/// refused): `prefix`, then what the closure writes (the rule's values, captured by copy).
struct Lazy<F>(&'static str, F);

impl<F: Fn(&mut fmt::Formatter<'_>) -> fmt::Result> fmt::Display for Lazy<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)?;
        (self.1)(f)
    }
}

/// Where the halo fast path does not apply (`halo_inapplicable`): `why` writes the rule broken.
fn halo_rule(
    unsupported: bool,
    why: impl Fn(&mut fmt::Formatter<'_>) -> fmt::Result + Send + Sync + 'static,
) -> Rejection {
    Rejection::Family(FamilyRule {
        family: "igemm",
        reason: "halo_inapplicable",
        message: RuleMessage::new(Lazy("halo fast path: ", why)),
        unsupported,
    })
}

/// Where the TMA-fed members do not apply (`tma_inapplicable`): `why` writes the rule broken.
fn tma_rule(
    unsupported: bool,
    why: impl Fn(&mut fmt::Formatter<'_>) -> fmt::Result + Send + Sync + 'static,
) -> Rejection {
    Rejection::Family(FamilyRule {
        family: "igemm",
        reason: "tma_inapplicable",
        message: RuleMessage::new(Lazy("wgmmatma (TMA-fed wgmma): ", why)),
        unsupported,
    })
}

/// Where a merge tail is refused (`group_merge_tail`, [`merge_tail`]): `why` writes the rule
/// broken.
fn tail_rule(
    why: impl Fn(&mut fmt::Formatter<'_>) -> fmt::Result + Send + Sync + 'static,
) -> Rejection {
    Rejection::Family(FamilyRule {
        family: "igemm",
        reason: "group_merge_tail",
        message: RuleMessage::new(Lazy("", why)),
        unsupported: false,
    })
}

/// Largest split-K degree accepted.
pub const MAX_SPLIT_K: u32 = 64;

/// The structural rules of the igemm family (any problem). Every rule holds for sm_90 and
/// sm_90a alike; that `wgmma` needs sm_90a is the admission's arch rule.
pub fn validate(cfg: &KernelConfig) -> Result<(), Rejection> {
    let math_ok = matches!(
        (cfg.dtype, cfg.math),
        (
            DType::F16 | DType::Bf16,
            Math::Mma | Math::Wgmma | Math::WgmmaWs | Math::WgmmaTma
        ) | (DType::F32, Math::Simt | Math::Tf32)
    );
    if !math_ok {
        return Err(Rejection::MathDtypeMismatch {
            math: cfg.math.token(),
            dtype: cfg.dtype.token(),
        });
    }
    if cfg.math == Math::Tf32 {
        return Err(Rejection::MathNotImplemented {
            math: cfg.math.token(),
        });
    }
    // Math warps (the producer warpgroups of `wgmmaws` come on top).
    let warps = cfg.warps_m.saturating_mul(cfg.warps_n);
    // Three warpgroups (12 warps) exist for wgmma only (192-row tiles).
    let warps_ok = matches!(warps, 1 | 2 | 4 | 8) || (cfg.math.is_wgmma() && warps == 12);
    if cfg.warps_m == 0 || cfg.warps_n == 0 || !warps_ok {
        return Err(Rejection::BadWarpCount {
            warps_m: cfg.warps_m,
            warps_n: cfg.warps_n,
            allowed: "1, 2, 4 or 8 warps in all (12 on wgmma: three warpgroups)",
        });
    }
    if cfg.math.is_wgmma() {
        // One to three warpgroups stacked along M, each owning 64 or 128 rows and the whole
        // tile_n (m64nNk16 with N = tile_n); K-tiles of one 128-byte swizzle row. Three
        // warpgroups (384 threads, 168 registers each at most) own one m64 block of at most
        // 64 accumulators each.
        if cfg.warps_n != 1 || !matches!(cfg.warps_m, 4 | 8 | 12) {
            return Err(Rejection::BadWarpCount {
                warps_m: cfg.warps_m,
                warps_n: cfg.warps_n,
                allowed: "wgmma takes whole warpgroups along M: w4x1, w8x1 or w12x1",
            });
        }
        let (wg, mwg, nacc) = wgmma_shape(cfg);
        let ok = cfg.tile_k == 64
            && cfg.stages >= 3
            && matches!(cfg.tile_n, 64 | 128 | 256)
            && (mwg == 1 || mwg == 2)
            && cfg.tile_m == 64 * wg * mwg
            && mwg * nacc <= 128
            && (wg < 3 || mwg * nacc <= 64);
        if !ok {
            return Err(Rejection::TileOutOfRange {
                tile_m: cfg.tile_m,
                tile_n: cfg.tile_n,
                tile_k: cfg.tile_k,
                limits: "wgmma: tile_k = 64, 3 or more stages, tile_n in {64, 128, 256}, tile_m = 64 or 128 rows per warpgroup, at most 128 accumulators per thread (64 with three warpgroups)",
            });
        }
    }
    if cfg.math == Math::WgmmaTma
        && !(matches!(cfg.fast_path, FastPath::Pointwise | FastPath::General)
            && (cfg.group_merge == 1 || cfg.direction == Direction::Wgrad)
            && (cfg.split_k == 1
                || (cfg.direction == Direction::Wgrad
                    && cfg.split_k_mode == SplitKMode::Deterministic)))
    {
        return Err(tma_rule(false, {
            let cfg = *cfg;
            move |f| {
                write!(f, "pointwise or general (im2col copies), group merge and split-K only in backward weight, split-K deterministic; got {} {} with gm {} and split {}{}",
                cfg.direction,
                cfg.fast_path.token(),
                cfg.group_merge,
                cfg.split_k,
                cfg.split_k_mode.token())
            }
        }));
    }
    if cfg.fast_path == FastPath::Halo
        && !(cfg.direction != Direction::Wgrad
            && cfg.math == Math::Wgmma
            && cfg.group_merge == 1
            && cfg.split_k == 1)
    {
        return Err(halo_rule(false, {
            let cfg = *cfg;
            move |f| {
                write!(f, "forward or backward data on wgmma (not warp-specialised) without group merge or split-K; got {} on {} with gm {} and split {}",
                cfg.direction, cfg.math.token(), cfg.group_merge, cfg.split_k)
            }
        }));
    }
    let (k_lo, k_hi, limits) = match cfg.math {
        Math::Simt => (
            8,
            32,
            "tile_m and tile_n in 16..=256, tile_k a power of two in 8..=32",
        ),
        _ => (
            16,
            64,
            "tile_m and tile_n in 16..=256, tile_k a power of two in 16..=64",
        ),
    };
    if !(16..=256).contains(&cfg.tile_m)
        || !(16..=256).contains(&cfg.tile_n)
        || !pow2_in(cfg.tile_k, k_lo, k_hi)
    {
        return Err(Rejection::TileOutOfRange {
            tile_m: cfg.tile_m,
            tile_n: cfg.tile_n,
            tile_k: cfg.tile_k,
            limits,
        });
    }
    if !cfg.tile_m.is_multiple_of(cfg.warps_m) || !cfg.tile_n.is_multiple_of(cfg.warps_n) {
        return Err(Rejection::TileNotMultipleOfWarps {
            tile_m: cfg.tile_m,
            tile_n: cfg.tile_n,
            warps_m: cfg.warps_m,
            warps_n: cfg.warps_n,
        });
    }
    let (wm, wn) = warp_tile(cfg);
    let (ok, need) = match cfg.math {
        // Backward-weight on CUDA cores reads MN-major tiles 4 rows and 4 columns at a time.
        Math::Simt if cfg.direction == Direction::Wgrad => (
            wm % 16 == 0 && wn % 32 == 0,
            "backward-weight: warp tile M multiple of 16, N multiple of 32 (4x8 lanes of 4x4 outer products)",
        ),
        Math::Simt => (
            wm % 4 == 0 && wn % 8 == 0,
            "warp tile M multiple of 4, N multiple of 8 (4x8 lanes)",
        ),
        _ => (
            wm % 16 == 0 && wn % 16 == 0,
            "warp tile M and N multiples of 16 (m16n8k16, ldmatrix x4 pairs)",
        ),
    };
    if !ok {
        return Err(Rejection::WarpTileNotMultipleOfInstruction {
            warp_m: wm,
            warp_n: wn,
            tile_k: cfg.tile_k,
            math: cfg.math.token(),
            need,
        });
    }
    if !(2..=5).contains(&cfg.stages) {
        return Err(Rejection::StagesOutOfRange { stages: cfg.stages });
    }
    let vmax = (16 / cfg.dtype.size_bytes()) as u32;
    for (operand, value) in [("vec_a", cfg.vec_a), ("vec_b", cfg.vec_b)] {
        if !pow2_in(value, 1, vmax) || value > cfg.tile_k {
            return Err(Rejection::BadVectorWidth {
                operand,
                value,
                max: vmax,
            });
        }
    }
    if !pow2_in(cfg.group_merge, 1, MAX_GROUP_MERGE) {
        return Err(Rejection::BadGroupMerge {
            gm: cfg.group_merge,
            max: MAX_GROUP_MERGE,
        });
    }
    if cfg.split_k > MAX_SPLIT_K {
        return Err(Rejection::BadSplitK {
            split_k: cfg.split_k,
            mode: cfg.split_k_mode.token(),
            why: "degree must be in 0..=64 (0: sized by the rule, backward-weight only)",
        });
    }
    if cfg.split_k == 0 && cfg.direction != Direction::Wgrad {
        return Err(Rejection::BadSplitK {
            split_k: cfg.split_k,
            mode: cfg.split_k_mode.token(),
            why: "a degree left to the rule (0) exists for backward-weight only; forward takes 1..=64",
        });
    }
    if cfg.split_k_mode == SplitKMode::Cluster
        && (cfg.direction != Direction::Wgrad
            || !(cfg.split_k == 0 || (2..=DeviceLimits::PORTABLE_CLUSTER).contains(&cfg.split_k)))
    {
        return Err(Rejection::BadSplitK {
            split_k: cfg.split_k,
            mode: cfg.split_k_mode.token(),
            why: "the cluster reduction (c) is backward-weight's, with a degree of 2..=8 (one portable thread-block cluster) or 0 (the rule's, clamped to 8)",
        });
    }
    if cfg.split_k == 1 && cfg.split_k_mode != SplitKMode::Deterministic {
        return Err(Rejection::BadSplitK {
            split_k: cfg.split_k,
            mode: cfg.split_k_mode.token(),
            why: "without split-K the mode must be d, so that one kernel has one name",
        });
    }
    if cfg.split_k > 1 && cfg.direction == Direction::Dgrad {
        return Err(Rejection::BadSplitK {
            split_k: cfg.split_k,
            mode: cfg.split_k_mode.token(),
            why:
                "backward-data kernels do not split the reduction (their M, N·Hi·Wi, fills the GPU)",
        });
    }
    if cfg.split_k != 1 && cfg.split_k_mode == SplitKMode::Atomic && cfg.group_merge > 1 {
        return Err(Rejection::BadSplitK {
            split_k: cfg.split_k,
            mode: cfg.split_k_mode.token(),
            why: "merged groups reduce through the deterministic f32 planes only (mode d)",
        });
    }
    // Structural limits of the architecture (every sm_90 part has the H200's per-CTA limits).
    let limits = DeviceLimits::H200;
    let bytes = smem_bytes(cfg);
    if bytes > limits.smem_per_cta {
        return Err(Rejection::SmemExceedsLimit {
            bytes,
            limit: limits.smem_per_cta,
        });
    }
    let estimate = register_estimate(cfg);
    // The warp-specialised CTA's producers and consumers share one register file: every thread
    // gets the same allocation, at most 64K registers / threads (rounded down to 8).
    let limit = if cfg.math.is_warp_specialised() {
        (65536 / cfg.threads().max(1) / 8 * 8).min(limits.regs_per_thread)
    } else {
        limits.regs_per_thread
    };
    if estimate > limit {
        return Err(Rejection::RegistersExceedLimit { estimate, limit });
    }
    Ok(())
}

/// The groups missing from the last merged block when `gm` does not divide `g` (0 when it
/// does): the launch covers `⌈g/gm⌉` blocks of `gm` groups, the last one with a *tail*. Every
/// direction and math path merges one (`constants.cu`'s `GTAIL`): the loaders read the missing
/// groups' channels (past C and K) and weight rows as zeros, the stores skip them, the TMA-fed
/// backward-weight tiles box from each block's first channel of `[K, 1, pixels]` and `[C, 1,
/// pixels]` maps, and the vectors divide a group's channels times gcd(gm, G)
/// ([`super::geometry::effective_vectors`]), so that no vector straddles the tail. The gate
/// refuses a tail of more than a third of the launch's merged groups, and one that would
/// narrow a vector ([`super::geometry::tail_narrows_vectors`]) ([`check_problem`],
/// `group_merge_tail`).
pub fn merge_tail(g: u64, gm: u64) -> u64 {
    g.div_ceil(gm.max(1)) * gm.max(1) - g
}

/// The problem rules of the igemm family (after the shared direction and dtype checks).
pub fn check_problem(cfg: &KernelConfig, problem: &Problem) -> Result<(), Rejection> {
    let gm = cfg.group_merge as u64;
    // The im2col copies (forward, general path): a 2D (or 1D) activation viewed as [C, W, H,
    // N], each copy 64 channels of one group (so C/G a multiple of 64), the filter's corners
    // within the 4D map's ±128 and the strides within its element strides (1..=8).
    // Backward data reads dY the same way as the dual forward convolution at stride 1 (the
    // corners pad − (F−1)·dil and −pad, the taps' offsets flipped), 64 of a group's K/G
    // channels per copy.
    if cfg.math == Math::WgmmaTma && cfg.fast_path == FastPath::General {
        let dgrad = problem.direction == Direction::Dgrad;
        let flat = problem.input[0] == 1 && problem.filter[0] == 1 && problem.pad[0] == 0;
        let reach = (0..3).all(|d| {
            let span = (problem.filter[d] - 1) * problem.dilation[d];
            problem.pad[d] <= 128
                && (span as i64 - problem.pad[d] as i64).abs() <= 127
                && problem.stride[d] <= if dgrad { 1 } else { 8 }
        });
        // (backward weight: X's channels in 64-channel panels, each within one tap; dY's
        // K/G-wide rows as in the pointwise boxes, whose strides the rule below checks)
        // (backward weight with group merge: a panel is 64 of the merged block's GM·C/G
        // channels of one tap)
        let channels = match problem.direction {
            Direction::Dgrad => problem.kpg().is_multiple_of(64),
            Direction::Wgrad => (gm * problem.cpg()).is_multiple_of(64),
            Direction::Fwd => problem.cpg().is_multiple_of(64),
        };
        if !(flat && reach && channels) {
            return Err(tma_rule(true, {
                let (cfg, problem) = (*cfg, *problem);
                move |f| {
                    write!(f, "im2col copies need a 1D or 2D layer, the copied channels per group a multiple of 64 (C/G {}, K/G {}, group merge {}), strides up to 8 (backward data: 1) and paddings and filter reaches within 128",
                    problem.cpg(),
                    problem.kpg(),
                    cfg.group_merge)
                }
            }));
        }
    }
    // The tensor maps' strides (a group's channels, a pixel's, a weight row's) must be
    // multiples of 16 bytes (forward reads C/G-wide rows only; backward data and weight both
    // C/G- and K/G-wide ones).
    if cfg.math == Math::WgmmaTma
        && !(problem.cpg().is_multiple_of(8)
            && (problem.direction == Direction::Fwd || problem.kpg().is_multiple_of(8)))
    {
        return Err(tma_rule(true, {
            let problem = *problem;
            move |f| {
                write!(f, "C/G = {} and K/G = {} (the tensor maps' rows of a group's channels: strides must be multiples of 16 bytes, so C/G, and outside forward K/G too, multiples of 8)",
                problem.cpg(),
                problem.kpg())
            }
        }));
    }
    if cfg.fast_path == FastPath::Pointwise
        && !(problem.filter_volume() == 1
            && problem.stride == [1, 1, 1]
            && problem.pad == [0, 0, 0])
    {
        return Err(Rejection::PointwiseInapplicable {
            filter: problem.filter,
            stride: problem.stride,
            pad: problem.pad,
        });
    }
    if cfg.fast_path == FastPath::Halo {
        check_halo(cfg, problem)?;
    }
    // A merge degree that does not divide G leaves a tail ([`merge_tail`]), admitted while it
    // is at most a third of the merged groups.
    let missing = merge_tail(problem.g, gm);
    if 3 * missing > problem.g.div_ceil(gm) * gm {
        let g = problem.g;
        return Err(tail_rule(move |f| {
            write!(f, "group merge {gm} over G = {g}: the last merged block would miss {missing} of its {gm} groups, more than a third of the launch's {} merged groups (use a merge degree that divides G or leaves a smaller tail)",
            g.div_ceil(gm) * gm)
        }));
    }
    if missing > 0 && tail_narrows_vectors(cfg, problem) {
        let (g, cpg, kpg) = (problem.g, problem.cpg(), problem.kpg());
        return Err(tail_rule(move |f| {
            write!(f, "group merge {gm} over G = {g} (C/G {cpg}, K/G {kpg}): the tail would narrow the vectors to runs of gcd({gm}, {g}) groups' channels")
        }));
    }
    let (red, out) = (reduction_cpg(problem), output_kpg(problem));
    if problem.direction == Direction::Wgrad {
        // The merged block's output channels fill one tile of rows (merging more only adds
        // off-diagonal pairs).
        if gm > 1 && gm * problem.kpg() > cfg.tile_m as u64 {
            return Err(Rejection::Family(FamilyRule {
                family: "igemm",
                reason: "group_merge_exceeds_tile",
                message: RuleMessage::new(WgradMergeExceedsTile {
                    gm,
                    merged_k: gm * problem.kpg(),
                    tile_m: cfg.tile_m,
                }),
                unsupported: false,
            }));
        }
    } else if gm > 1 && (gm * red > cfg.tile_k as u64 || gm * out > cfg.tile_n as u64) {
        return Err(Rejection::GroupMergeExceedsTile {
            gm: cfg.group_merge,
            merged_c: gm * red,
            merged_k: gm * out,
            tile_k: cfg.tile_k,
            tile_n: cfg.tile_n,
        });
    }
    if problem.direction == Direction::Dgrad {
        // The weight blocks a thread holds follow the problem's block side (1 for odd channel
        // counts); the N-major tile holds none.
        // The K-major weight tile also needs the raw stage of its blocks.
        let v = effective_vectors(cfg, problem);
        if !b_nmajor(cfg, &v) {
            let estimate = register_estimate_with(cfg, v.b);
            let limit = DeviceLimits::H200.regs_per_thread;
            if estimate > limit {
                return Err(Rejection::RegistersExceedLimit { estimate, limit });
            }
            let bytes = smem_bytes_with_raw(cfg);
            let limit = DeviceLimits::H200.smem_per_cta;
            if bytes > limit {
                return Err(Rejection::SmemExceedsLimit { bytes, limit });
            }
        }
    }
    let limit = i32::MAX as u64;
    if cfg.split_k > 1 {
        // The f32 partial planes of the output (none with the cluster split).
        let ws = problem.elements(problem.roles().1) * cfg.split_k as u64;
        if ws > limit && cfg.split_k_mode != SplitKMode::Cluster {
            return Err(Rejection::IndexExceeds32Bit {
                tensor: "workspace",
                extent: ws,
            });
        }
        let kt = k_tiles(cfg, problem);
        if cfg.split_k as u64 > kt {
            return Err(Rejection::SplitKExceedsReduction {
                split_k: cfg.split_k,
                ktiles: kt,
            });
        }
    }
    Ok(())
}

/// The halo fast path's problem rules: stride 1, a 2D or 1D problem, the reduction's channels
/// per group (C/G forward, K/G backward data) in whole 64-channel blocks; backward data: the
/// weight tile N-major (C/G of 8) and the padding within the filter's dilated extent (dY inside
/// the padded image); the halos with the B stages within the shared memory of a CTA.
fn check_halo(cfg: &KernelConfig, problem: &Problem) -> Result<(), Rejection> {
    if problem.stride != [1, 1, 1] {
        return Err(halo_rule(true, {
            let problem = *problem;
            move |f| write!(f, "stride {:?}; the path runs stride 1", problem.stride)
        }));
    }
    if problem.filter[0] != 1 || problem.input[0] != 1 {
        return Err(halo_rule(true, |f| {
            f.write_str("a 3D problem; the path runs 2D and 1D")
        }));
    }
    let red = reduction_cpg(problem);
    if !red.is_multiple_of(cfg.tile_k as u64) {
        let which = if problem.direction == Direction::Dgrad {
            "K/G"
        } else {
            "C/G"
        };
        return Err(halo_rule(true, {
            let cfg = *cfg;
            move |f| {
                write!(
                    f,
                    "{which} = {red} is not a multiple of tile_k {}",
                    cfg.tile_k
                )
            }
        }));
    }
    if problem.direction == Direction::Dgrad && !b_nmajor(cfg, &effective_vectors(cfg, problem)) {
        let kpg = output_kpg(problem);
        return Err(halo_rule(true, move |f| {
            write!(
                f,
                "C/G = {kpg} is not a multiple of 8 (the weight tile stays N-major on this path)"
            )
        }));
    }
    let h = halo_dims(problem);
    if h.lh < 0 || h.lw < 0 {
        return Err(halo_rule(true, {
            let problem = *problem;
            move |f| {
                write!(
                    f,
                    "padding {:?} beyond the dilated filter extent less one",
                    problem.pad
                )
            }
        }));
    }
    let bytes = halo_smem_bytes(cfg, problem);
    let limit = DeviceLimits::H200.smem_per_cta;
    if bytes > limit as u64 {
        return Err(Rejection::SmemExceedsLimit {
            bytes: bytes.min(u32::MAX as u64) as u32,
            limit,
        });
    }
    Ok(())
}
