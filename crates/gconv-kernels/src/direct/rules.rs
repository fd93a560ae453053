//! The direct family's rules: [`validate`] (is a config a direct kernel at all: the fields the
//! family fixes, warps, vector widths, the tile and the thread mapping; the tensor-core path's
//! own rules are `super::mma`'s; forward and backward-data configs) and [`check_problem`] (does
//! it run this problem: C/G, group merge, whole groups per CTA, shared memory and registers on
//! the forward problem, the dual of a stride-1 backward-data problem; a backward-data problem
//! without a dual runs on a stride-phase kernel, on CUDA cores or on tensor cores (no group
//! merge there), with its own channel rules;
//! a backward-weight problem on the slab kernel of `super::wgrad` or, with `stages = 1`, the
//! depthwise streaming kernel of `super::stream`, each with its own structural and problem
//! rules; forward and backward data with `stages = 3` stream over depth on tensor cores, 3D
//! layers with depth stride and dilation 1 only, [`DirectRule::DepthStreamScope`]). The
//! family's own rejections are
//! the typed [`DirectRule`], counted by its `reason()` key.

use super::banded;
use super::fwd_banded;
use super::geometry::DirectGeometry;
use super::mma;
use super::stream;
use super::strided;
use super::wgrad;
use super::wgrad_mma;
use crate::config::{FastPath, KernelConfig, Math, SplitKMode};
use crate::device::DeviceLimits;
use crate::rejection::{FamilyRule, Refused, Rejection, RuleMessage};
use crate::shared::{pow2_in, MAX_GROUP_MERGE, MAX_SPLIT};
use gconv_problem::{DType, Direction, Problem};
use thiserror::Error;

/// The warp layouts every direct kernel takes (its rejection message says so).
const DIRECT_WARPS: &str =
    "the direct family takes 1 to 8 warps along M and 1 along N (w1x1 ... w8x1)";

/// Largest C/G the CUDA-core (simt) path accepts.
pub const MAX_DIRECT_CPG: u64 = 4;

/// A rule of the direct family's own.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DirectRule {
    /// A field that the direct family fixes to one value has another.
    #[error("direct kernels need {field} = {expected} (got {value})")]
    FieldFixed {
        /// Field name.
        field: &'static str,
        /// The value given, as text.
        value: String,
        /// The only accepted value.
        expected: &'static str,
    },
    /// The thread mapping does not divide: (tile_m / vec_b) pixel groups × (tile_n / vec_a)
    /// channel lanes must be exactly threads × PY, with PY ≤ 16 output rows per thread dividing
    /// the tile height.
    #[error("direct work items {items} (tile rows x column groups x channel lanes) must be {threads} threads x PY, with PY <= 16 rows per thread dividing the tile height")]
    ThreadMapping {
        /// Work items of one CTA.
        items: u32,
        /// Threads of one CTA.
        threads: u32,
    },
    /// The CUDA-core path handles only small C/G.
    #[error("direct kernels need C/G <= {max} (problem C/G = {cpg})")]
    ChannelsPerGroup {
        /// C/G of the problem.
        cpg: u64,
        /// Largest accepted.
        max: u64,
    },
    /// The tensor-core path needs C/G and K/G (of the merged groups, gm·C/G and gm·K/G, with
    /// group merge) multiples of 8.
    #[error(
        "direct mma kernels need C/G and K/G multiples of 8, after group merge (merged C/G = {cpg}, K/G = {kpg}; a larger gm merges more groups)"
    )]
    MmaChannels {
        /// C/G of the (merged) problem.
        cpg: u64,
        /// K/G of the (merged) problem.
        kpg: u64,
    },
    /// The channel tile must hold whole groups: K/G (gm·K/G with group merge) must divide
    /// tile_n.
    #[error("direct kernels need K/G={kpg} (gm·K/G with group merge) to divide tile_n={tile_n} (whole groups per CTA)")]
    ChannelTile {
        /// K/G of the (merged) groups.
        kpg: u64,
        /// tile_n.
        tile_n: u32,
    },
    /// Group merge on the tensor-core path only serves layers whose C/G or K/G is not a
    /// multiple of 8; merging groups that already are would multiply the MMA work by gm for
    /// nothing (zero blocks).
    #[error("direct mma group_merge {gm} is needless: C/G={cpg} and K/G={kpg} are already multiples of 8 (use gm1)")]
    GroupMergeNeedless {
        /// gm.
        gm: u32,
        /// C/G of the problem.
        cpg: u64,
        /// K/G of the problem.
        kpg: u64,
    },
    /// Backward data on tensor cores without a dual problem (a stride above 1, or a padding
    /// above `dil·(F−1)`) runs on the tensor-core stride-phase kernel (`super::strided`),
    /// which has no group merge, no depth streaming and no banded variant.
    #[error("direct mma stride-phase dgrad (stride {stride:?}, pad {pad:?}: no dual forward problem) runs with group_merge 1, stages 1 or 2 and the regular mma tile (vec_a >= 8); got group_merge {gm}, stages {stages}, vec_a {vec_a}")]
    PhaseMmaScope {
        /// Strides (D, H, W).
        stride: [u64; 3],
        /// Paddings (D, H, W).
        pad: [u64; 3],
        /// The config's group merge.
        gm: u32,
        /// The config's stages.
        stages: u32,
        /// The config's `vec_a` (1: a banded tile).
        vec_a: u32,
    },
    /// The wgrad kernel keeps `TPT × VEC × C/G` accumulators per thread for its C/G input and
    /// K/G output channels per group: both must be small.
    #[error("direct wgrad needs C/G <= {max} and K/G <= {max} (problem C/G = {cpg}, K/G = {kpg})")]
    WgradChannels {
        /// C/G of the problem.
        cpg: u64,
        /// K/G of the problem.
        kpg: u64,
        /// Largest accepted.
        max: u64,
    },
    /// The wgrad kernel's channel lanes (`tile_n / vec_a`) × tap groups (`⌈taps / vec_b⌉`)
    /// must fit the CTA's threads (at least one pixel group).
    #[error("direct wgrad needs channel lanes x tap groups ({lanes} x {tap_groups}) <= {threads} threads (raise vec_b or vec_a, or the warps)")]
    WgradThreadMapping {
        /// `tile_n / vec_a`.
        lanes: u64,
        /// `⌈taps / vec_b⌉`.
        tap_groups: u64,
        /// Threads of a CTA.
        threads: u32,
    },
    /// A fixed slab count (`split_k`) above the output tiles of the problem (the row-strip
    /// units of the streaming kernel) would leave slabs without tiles.
    #[error("direct wgrad split_k {slabs} exceeds the {tiles} output tiles of the problem")]
    WgradSlabs {
        /// The fixed slab count.
        slabs: u64,
        /// Output tiles.
        tiles: u64,
    },
    /// The tensor-core wgrad kernel keeps `units per warp × MB × NB × 4` f32 accumulators per
    /// thread for the whole slab.
    #[error("direct tensor-core wgrad keeps {units} units x {mb} m16 blocks x {nb} n8 blocks x 4 = {acc} accumulators per thread, more than {max} (lower vec_a, or raise the warps or lower tile_n)")]
    WgradMmaAccumulators {
        /// Units per warp.
        units: u64,
        /// `vec_a`, m16 blocks per unit.
        mb: u32,
        /// n8 blocks per unit (K/G / 8).
        nb: u64,
        /// The accumulator count.
        acc: u64,
        /// Largest accepted.
        max: u64,
    },
    /// The tensor-core wgrad kernel's M slices (`vec_b`) cut a group's units into slices of
    /// `⌈units / slices⌉`: a slice without a unit would be CTAs without work.
    #[error("direct tensor-core wgrad: vec_b = {slices} M slices for {units} units of a group's M (every slice needs a unit: ⌈units / ⌈units / slices⌉⌉ must be the slices; lower vec_b or vec_a)")]
    WgradMmaMSlices {
        /// `vec_b`, the M slices.
        slices: u32,
        /// Units of one group's M (`⌈m16 blocks / vec_a⌉`).
        units: u64,
    },
    /// The streaming wgrad kernel (`stages = 1`, `super::stream`) is depthwise only: one input
    /// and one output channel per group (channel multipliers and C/G 2–4 take the slab kernel,
    /// `stages = 2`).
    #[error("direct streaming wgrad (stages 1) needs a depthwise layer, C/G = K/G = 1 (problem C/G = {cpg}, K/G = {kpg}; the slab kernel, stages 2, serves the others)")]
    WgradStreamDepthwise {
        /// C/G of the problem.
        cpg: u64,
        /// K/G of the problem.
        kpg: u64,
    },
    /// The streaming kernel's channel lanes (`tile_n / vec_a`) × tap-row groups
    /// (`⌈FZ·FY / vec_b⌉`) must fit the CTA's threads (at least one work slot).
    #[error("direct streaming wgrad needs channel lanes x tap-row groups ({lanes} x {row_groups}) <= {threads} threads (raise vec_b, vec_a or the warps, or lower tile_n)")]
    WgradStreamThreadMapping {
        /// `tile_n / vec_a`.
        lanes: u64,
        /// `⌈FZ·FY / vec_b⌉`.
        row_groups: u64,
        /// Threads of a CTA.
        threads: u32,
    },
    /// The streaming kernel keeps `min(vec_b, FZ·FY) · FX · vec_a` f32 accumulators per thread
    /// in registers: at most `max`.
    #[error("direct streaming wgrad keeps {rows} tap rows x FX {fx} x vec_a {vec} = {acc} accumulators per thread, more than {max} (lower vec_b or vec_a)")]
    WgradStreamAccumulators {
        /// Tap rows of a group (`min(vec_b, FZ·FY)`).
        rows: u64,
        /// Filter width.
        fx: u64,
        /// `vec_a`.
        vec: u32,
        /// Their product.
        acc: u64,
        /// Largest accepted.
        max: u64,
    },
    /// The banded tensor-core wgrad kernel (`math = mma`, `stages = 1`, `super::banded`) covers
    /// depthwise layers of 16-bit data with C a multiple of 8, 2D, stride 1, dilation 1
    /// and filters up to 32 wide and 35 high.
    #[error("direct banded tensor-core wgrad (mma, stages 1) needs {need} (problem: {got}); the streaming kernel (simt, stages 1) serves the other depthwise layers")]
    WgradBandedScope {
        /// What the kernel needs.
        need: &'static str,
        /// What the problem has.
        got: String,
    },
    /// The banded tensor-core forward kernel (`super::fwd_banded`, backward data on its dual)
    /// serves depthwise layers with C a multiple of 8, 2D, stride 1, dilation 1, filters up to
    /// 8 wide and 15 high.
    #[error("direct banded tensor-core forward (mma, vec_a 1) needs {need} (problem: {got}); the CUDA-core kernels (simt) serve the other depthwise layers")]
    FwdBandedScope {
        /// What the kernel needs.
        need: &'static str,
        /// What the problem has.
        got: String,
    },
    /// The register-pipelined tensor-core wgrad kernel (`stages = 3`, `super::wgrad_mma`) serves
    /// groups of at most [`wgrad_mma::MAX_PIPELINED_KPG`] output channels (merged) and filters
    /// without depth taps: beyond them its second register set spilled or cost a CTA per SM on
    /// the H200 and it ran 1.1–2.6× slower than `stages = 2` (session 22).
    #[error("direct tensor-core wgrad with the register stage (stages 3) needs K/G <= {max} and no depth taps (problem: K/G {kpg}, filter depth {fz}); stages 2 serves it")]
    WgradMmaPipelinedScope {
        /// K/G of the (merged) problem.
        kpg: u64,
        /// Filter taps along depth.
        fz: u64,
        /// Largest K/G served.
        max: u64,
    },
    /// The banded kernel keeps 4 f32 accumulators per channel of a warp and tap block
    /// (`⌈FX/8⌉ · ⌈FY/7⌉` blocks): at most `max` per thread.
    #[error("direct banded tensor-core wgrad keeps 4 x {channels} channels per warp x {blocks} tap blocks = {acc} accumulators per thread, more than {max} (lower tile_n or raise the warps)")]
    WgradBandedAccumulators {
        /// Channels of a warp (`tile_n / warps`).
        channels: u64,
        /// Tap blocks of the filter.
        blocks: u64,
        /// Their accumulators.
        acc: u64,
        /// Largest accepted.
        max: u64,
    },
    /// The depth-streaming tensor-core kernel (`math = mma`, `stages = 3`, forward and the
    /// dual of a stride-1 backward-data problem) walks a column of tiles over every output
    /// slice with a ring of FZ + 1 staged input slices: it needs depth taps (FZ > 1), depth
    /// stride 1 and depth dilation 1 (consecutive output slices then share FZ − 1 input slices).
    #[error("direct depth streaming (mma, stages 3) needs a 3D filter with depth taps, depth stride 1 and depth dilation 1 (problem: filter depth {fz}, stride {sd}, dilation {dd}); stages 1 or 2 serve the others")]
    DepthStreamScope {
        /// Filter taps along depth.
        fz: u64,
        /// Depth stride.
        sd: u64,
        /// Depth dilation.
        dd: u64,
    },
    /// The stride-phase dgrad kernel on CUDA cores stages dY, whose K/G channels per group
    /// feed each dX channel: K/G must be small (tensor cores take K/G multiples of 8).
    #[error(
        "direct strided dgrad needs K/G <= {max} (dY channels per group; problem K/G = {kpg})"
    )]
    DgradChannels {
        /// K/G of the problem.
        kpg: u64,
        /// Largest accepted.
        max: u64,
    },
}

impl DirectRule {
    /// Short stable key for counting.
    pub fn reason(&self) -> &'static str {
        match self {
            DirectRule::FieldFixed { .. } => "direct_field_fixed",
            DirectRule::ThreadMapping { .. } => "direct_thread_mapping",
            DirectRule::ChannelsPerGroup { .. } => "direct_channels_per_group",
            DirectRule::MmaChannels { .. } => "direct_mma_channels",
            DirectRule::ChannelTile { .. } => "direct_channel_tile",
            DirectRule::GroupMergeNeedless { .. } => "direct_group_merge_needless",
            DirectRule::PhaseMmaScope { .. } => "direct_phase_mma_scope",
            DirectRule::DgradChannels { .. } => "direct_dgrad_channels",
            DirectRule::WgradChannels { .. } => "direct_wgrad_channels",
            DirectRule::WgradThreadMapping { .. } => "direct_wgrad_thread_mapping",
            DirectRule::WgradSlabs { .. } => "direct_wgrad_slabs",
            DirectRule::WgradMmaAccumulators { .. } => "direct_wgrad_mma_accumulators",
            DirectRule::WgradMmaMSlices { .. } => "direct_wgrad_mma_m_slices",
            DirectRule::WgradMmaPipelinedScope { .. } => "direct_wgrad_mma_pipelined_scope",
            DirectRule::WgradStreamDepthwise { .. } => "direct_wgrad_stream_depthwise",
            DirectRule::WgradStreamThreadMapping { .. } => "direct_wgrad_stream_thread_mapping",
            DirectRule::WgradStreamAccumulators { .. } => "direct_wgrad_stream_accumulators",
            DirectRule::WgradBandedScope { .. } => "direct_wgrad_banded_scope",
            DirectRule::WgradBandedAccumulators { .. } => "direct_wgrad_banded_accumulators",
            DirectRule::FwdBandedScope { .. } => "direct_fwd_banded_scope",
            DirectRule::DepthStreamScope { .. } => "direct_depth_stream_scope",
        }
    }
}

impl From<DirectRule> for Rejection {
    fn from(rule: DirectRule) -> Rejection {
        Rejection::Family(FamilyRule {
            family: "direct",
            reason: rule.reason(),
            message: RuleMessage::new(rule),
            unsupported: false,
        })
    }
}

/// How a problem rule answers when it is broken: with the [`Rejection`] admission returns (the
/// message kept), or with [`Refused`] alone (the gate's screen for `auto`, which reads no
/// reason: no message is written or allocated).
pub trait Refusal: From<DirectRule> + From<Rejection> {
    /// Whether the answer keeps why (false: a rule's message need not be written).
    const WHY: bool;
}

impl Refusal for Rejection {
    const WHY: bool = true;
}

impl Refusal for Refused {
    const WHY: bool = false;
}

impl From<DirectRule> for Refused {
    fn from(_: DirectRule) -> Refused {
        Refused
    }
}

fn fixed(field: &'static str, value: String, expected: &'static str) -> Rejection {
    DirectRule::FieldFixed {
        field,
        value,
        expected,
    }
    .into()
}

/// The structural rules of the direct family (any problem).
pub fn validate(cfg: &KernelConfig) -> Result<(), Rejection> {
    if cfg.direction == Direction::Wgrad {
        return validate_wgrad(cfg);
    }
    if !matches!(cfg.math, Math::Simt | Math::Mma) {
        return Err(fixed("math", cfg.math.token().to_string(), "simt or mma"));
    }
    // Stages 3 (tensor cores): the depth-streaming walk ([`DirectRule::DepthStreamScope`]).
    let streams = cfg.stages == 3 && cfg.math == Math::Mma;
    if !((1..=2).contains(&cfg.stages) || streams) {
        return Err(fixed(
            "stages",
            cfg.stages.to_string(),
            "1 or 2 (3: mma, streaming over depth)",
        ));
    }
    // Group merge exists on the tensor-core path only (block-diagonal merged groups,
    // [`kernel_problem`]).
    if cfg.math == Math::Mma {
        if !pow2_in(cfg.group_merge, 1, MAX_GROUP_MERGE) {
            return Err(Rejection::BadGroupMerge {
                gm: cfg.group_merge,
                max: MAX_GROUP_MERGE,
            });
        }
    } else if cfg.group_merge != 1 {
        return Err(fixed(
            "group_merge",
            cfg.group_merge.to_string(),
            "1 (simt)",
        ));
    }
    if cfg.split_k != 1 || cfg.split_k_mode != SplitKMode::Deterministic {
        return Err(fixed(
            "split_k",
            format!("{}{}", cfg.split_k, cfg.split_k_mode.token()),
            "1d",
        ));
    }
    if cfg.fast_path != FastPath::General {
        return Err(fixed("fast_path", cfg.fast_path.token().to_string(), "gen"));
    }
    if cfg.warps_n != 1 || !(1..=8).contains(&cfg.warps_m) {
        return Err(Rejection::BadWarpCount {
            warps_m: cfg.warps_m,
            warps_n: cfg.warps_n,
            allowed: DIRECT_WARPS,
        });
    }
    if cfg.math == Math::Mma && cfg.vec_a == 1 {
        return validate_fwd_banded(cfg);
    }
    if cfg.math == Math::Mma {
        return mma::validate(cfg);
    }
    if !(cfg.vec_a.is_power_of_two() && cfg.vec_a <= 8) {
        return Err(Rejection::BadVectorWidth {
            operand: "vec_a",
            value: cfg.vec_a,
            max: 8,
        });
    }
    if !(1..=8).contains(&cfg.vec_b) {
        return Err(Rejection::BadVectorWidth {
            operand: "vec_b",
            value: cfg.vec_b,
            max: 8,
        });
    }
    let limits = "direct: tile_k (tile width) in 1..=128 and a multiple of vec_b, tile_m a multiple of tile_k with at most 64 rows and 1024 pixels, tile_n in 1..=256 and a multiple of vec_a";
    let ok = (1..=128).contains(&cfg.tile_k)
        && cfg.tile_k.is_multiple_of(cfg.vec_b)
        && (1..=1024).contains(&cfg.tile_m)
        && cfg.tile_m.is_multiple_of(cfg.tile_k)
        && cfg.tile_m / cfg.tile_k <= 64
        && (1..=256).contains(&cfg.tile_n)
        && cfg.tile_n.is_multiple_of(cfg.vec_a);
    if !ok {
        return Err(Rejection::TileOutOfRange {
            tile_m: cfg.tile_m,
            tile_n: cfg.tile_n,
            tile_k: cfg.tile_k,
            limits,
        });
    }
    let items = (cfg.tile_m / cfg.vec_b) * (cfg.tile_n / cfg.vec_a);
    let threads = cfg.threads();
    let th = cfg.tile_m / cfg.tile_k;
    if !items.is_multiple_of(threads) || items / threads > 16 || !th.is_multiple_of(items / threads)
    {
        return Err(DirectRule::ThreadMapping { items, threads }.into());
    }
    Ok(())
}

/// The structural rules of a backward-weight config (`super::wgrad`'s field table): CUDA
/// cores, no group merge, 2 stages, `split_k` 0 (the rule) to [`MAX_SPLIT`] deterministic,
/// `gen`, 1–8 warps, `vec_a` a power of two ≤ 8, `vec_b` (taps per thread) 1..=32, the tile as
/// on the forward path. `stages = 1` is the streaming kernel ([`validate_stream`]).
fn validate_wgrad(cfg: &KernelConfig) -> Result<(), Rejection> {
    if cfg.math == Math::Mma && (cfg.stages == 2 || cfg.stages == 3) {
        return validate_wgrad_mma(cfg);
    }
    if cfg.math == Math::Mma && cfg.stages == 1 {
        return validate_banded(cfg);
    }
    if cfg.math != Math::Simt {
        return Err(fixed(
            "math",
            cfg.math.token().to_string(),
            "simt (wgrad), or mma with stages 1, 2 or 3",
        ));
    }
    if cfg.stages == 1 {
        return validate_stream(cfg);
    }
    if cfg.stages != 2 {
        return Err(fixed(
            "stages",
            cfg.stages.to_string(),
            "1 (wgrad: depthwise streaming) or 2 (wgrad: the double-buffered slab walk)",
        ));
    }
    if cfg.group_merge != 1 {
        return Err(fixed(
            "group_merge",
            cfg.group_merge.to_string(),
            "1 (simt)",
        ));
    }
    check_slab_fields(cfg)?;
    if !(cfg.vec_a.is_power_of_two() && cfg.vec_a <= 8) {
        return Err(Rejection::BadVectorWidth {
            operand: "vec_a",
            value: cfg.vec_a,
            max: 8,
        });
    }
    if !(1..=wgrad::MAX_TAPS_PER_THREAD).contains(&cfg.vec_b) {
        return Err(Rejection::BadVectorWidth {
            operand: "vec_b",
            value: cfg.vec_b,
            max: wgrad::MAX_TAPS_PER_THREAD,
        });
    }
    let limits = "direct wgrad: tile_k (tile width) in 1..=128, tile_m a multiple of tile_k with at most 64 rows and 1024 pixels, tile_n in 1..=256 and a multiple of vec_a";
    let ok = (1..=128).contains(&cfg.tile_k)
        && (1..=1024).contains(&cfg.tile_m)
        && cfg.tile_m.is_multiple_of(cfg.tile_k)
        && cfg.tile_m / cfg.tile_k <= 64
        && (1..=256).contains(&cfg.tile_n)
        && cfg.tile_n.is_multiple_of(cfg.vec_a);
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

/// The fields both slab-walk kernels (CUDA cores and tensor cores) fix the same way: `split_k`
/// 0..=64 deterministic, `gen`, 1–8 warps along M.
fn check_slab_fields(cfg: &KernelConfig) -> Result<(), Rejection> {
    if cfg.split_k > MAX_SPLIT || cfg.split_k_mode != SplitKMode::Deterministic {
        return Err(fixed(
            "split_k",
            format!("{}{}", cfg.split_k, cfg.split_k_mode.token()),
            "0..=64, deterministic (wgrad)",
        ));
    }
    if cfg.fast_path != FastPath::General {
        return Err(fixed("fast_path", cfg.fast_path.token().to_string(), "gen"));
    }
    if cfg.warps_n != 1 || !(1..=8).contains(&cfg.warps_m) {
        return Err(Rejection::BadWarpCount {
            warps_m: cfg.warps_m,
            warps_n: cfg.warps_n,
            allowed: DIRECT_WARPS,
        });
    }
    Ok(())
}

/// The structural rules of a tensor-core wgrad config (`super::wgrad_mma`'s field table): 16-bit
/// data, `stages` 2 or 3 (the register stage), group merge 1–8 (a power of two), `split_k` 0..=64 deterministic, `gen`, 1–8 warps, `vec_a` (MB, m16
/// blocks per unit) 1..=8, `vec_b` (M slices) 1..=[`wgrad_mma::MAX_M_SLICES`], `tile_k` (TW) in 1..=64, `tile_m` (TH·TW) a multiple of 16
/// and of `tile_k` with at most 64 rows and 256 pixels, `tile_n` (BN) a multiple of 8 up to 128.
fn validate_wgrad_mma(cfg: &KernelConfig) -> Result<(), Rejection> {
    if cfg.dtype == DType::F32 {
        return Err(fixed(
            "dtype",
            cfg.dtype.token().to_string(),
            "f16 or bf16 (tensor-core wgrad)",
        ));
    }
    if !pow2_in(cfg.group_merge, 1, MAX_GROUP_MERGE) {
        return Err(Rejection::BadGroupMerge {
            gm: cfg.group_merge,
            max: MAX_GROUP_MERGE,
        });
    }
    check_slab_fields(cfg)?;
    if !(1..=8).contains(&cfg.vec_a) {
        return Err(Rejection::BadVectorWidth {
            operand: "vec_a",
            value: cfg.vec_a,
            max: 8,
        });
    }
    if !(1..=wgrad_mma::MAX_M_SLICES).contains(&cfg.vec_b) {
        return Err(Rejection::BadVectorWidth {
            operand: "vec_b",
            value: cfg.vec_b,
            max: wgrad_mma::MAX_M_SLICES,
        });
    }
    let limits = "direct tensor-core wgrad: tile_k (tile width) in 1..=64, tile_m a multiple of 16 and of tile_k with at most 64 rows and 256 pixels, tile_n a multiple of 8 in 8..=128";
    let ok = (1..=64).contains(&cfg.tile_k)
        && (16..=256).contains(&cfg.tile_m)
        && cfg.tile_m.is_multiple_of(16)
        && cfg.tile_m.is_multiple_of(cfg.tile_k)
        && cfg.tile_m / cfg.tile_k <= 64
        && (8..=128).contains(&cfg.tile_n)
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

/// The problem rules of a tensor-core wgrad plan (`super::wgrad_mma`): C/G and K/G multiples
/// of 8, whole groups per CTA, at most [`wgrad_mma::MAX_ACCUMULATORS`] accumulators per
/// thread, a fixed slab count within the tiles, shared memory and registers.
fn check_wgrad_mma<E: Refusal>(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    limits: &DeviceLimits,
) -> Result<(), E> {
    check_wgrad_mma_channels::<E>(cfg, problem)?;
    let tiles = wgrad::tiles(problem, geo.th, geo.tw);
    if cfg.split_k as u64 > tiles {
        return Err(DirectRule::WgradSlabs {
            slabs: cfg.split_k as u64,
            tiles,
        }
        .into());
    }
    check_limits(geo, registers, limits)
}

/// The group merge of a tensor-core config (forward, dual backward data, backward weight): it
/// divides G, and it is needed (C/G or K/G off a multiple of 8).
fn check_group_merge<E: Refusal>(cfg: &KernelConfig, problem: &Problem) -> Result<(), E> {
    if !problem.g.is_multiple_of(cfg.group_merge as u64) {
        return Err(Rejection::GroupMergeNotDivisor {
            gm: cfg.group_merge,
            g: problem.g,
        }
        .into());
    }
    if cfg.group_merge > 1 && problem.cpg().is_multiple_of(8) && problem.kpg().is_multiple_of(8) {
        return Err(DirectRule::GroupMergeNeedless {
            gm: cfg.group_merge,
            cpg: problem.cpg(),
            kpg: problem.kpg(),
        }
        .into());
    }
    Ok(())
}

/// The rules of [`check_wgrad_mma`] that read no geometry: a group merge that divides G and is
/// needed (C/G or K/G off a multiple of 8), merged C/G and K/G multiples of 8, whole merged
/// groups per CTA, M slices that each own a unit of every group, at most
/// [`wgrad_mma::MAX_ACCUMULATORS`] accumulators per thread.
fn check_wgrad_mma_channels<E: Refusal>(cfg: &KernelConfig, problem: &Problem) -> Result<(), E> {
    check_group_merge::<E>(cfg, problem)?;
    let kp = super::geometry::merge_groups(cfg, problem);
    check_mma_channels::<E>(&kp)?;
    if !(cfg.tile_n as u64).is_multiple_of(kp.kpg()) {
        return Err(DirectRule::ChannelTile {
            kpg: kp.kpg(),
            tile_n: cfg.tile_n,
        }
        .into());
    }
    let group_units = wgrad_mma::group_units(cfg, &kp);
    let slices = wgrad_mma::m_slices(cfg);
    if slices > group_units || group_units.div_ceil(group_units.div_ceil(slices)) != slices {
        return Err(DirectRule::WgradMmaMSlices {
            slices: cfg.vec_b,
            units: group_units,
        }
        .into());
    }
    if wgrad_mma::pipelined(cfg) && (kp.kpg() > wgrad_mma::MAX_PIPELINED_KPG || kp.filter[0] > 1) {
        return Err(DirectRule::WgradMmaPipelinedScope {
            kpg: kp.kpg(),
            fz: kp.filter[0],
            max: wgrad_mma::MAX_PIPELINED_KPG,
        }
        .into());
    }
    let (_, _, upw, nb, acc) = wgrad_mma::work(cfg, &kp);
    if acc > wgrad_mma::MAX_ACCUMULATORS {
        return Err(DirectRule::WgradMmaAccumulators {
            units: upw,
            mb: cfg.vec_a,
            nb,
            acc,
            max: wgrad_mma::MAX_ACCUMULATORS,
        }
        .into());
    }
    Ok(())
}

/// The fields both depthwise `stages = 1` kernels (streaming and banded) fix the same way: no
/// group merge, `split_k` 0 (the rule) to [`stream::MAX_STREAM_SLABS`] deterministic (their
/// slab rule is [`stream::slab_count`]), `gen`, 1–8 warps along M. `merge` and `split` are the
/// expected values the messages name.
fn check_stream_slab_fields(
    cfg: &KernelConfig,
    merge: &'static str,
    split: &'static str,
    cluster: bool,
) -> Result<(), Rejection> {
    if cfg.group_merge != 1 {
        return Err(fixed("group_merge", cfg.group_merge.to_string(), merge));
    }
    let split_ok = match cfg.split_k_mode {
        SplitKMode::Deterministic => cfg.split_k as u64 <= stream::MAX_STREAM_SLABS,
        SplitKMode::Cluster => {
            cluster && (2..=stream::MAX_CLUSTER_SLABS).contains(&(cfg.split_k as u64))
        }
        SplitKMode::Atomic => false,
    };
    if !split_ok {
        return Err(fixed(
            "split_k",
            format!("{}{}", cfg.split_k, cfg.split_k_mode.token()),
            split,
        ));
    }
    if cfg.fast_path != FastPath::General {
        return Err(fixed("fast_path", cfg.fast_path.token().to_string(), "gen"));
    }
    if cfg.warps_n != 1 || !(1..=8).contains(&cfg.warps_m) {
        return Err(Rejection::BadWarpCount {
            warps_m: cfg.warps_m,
            warps_n: cfg.warps_n,
            allowed: DIRECT_WARPS,
        });
    }
    Ok(())
}

/// The structural rules of a streaming wgrad config (`super::stream`'s field table): CUDA
/// cores (checked by the caller), no group merge, `split_k` 0 (the rule) to
/// [`stream::MAX_STREAM_SLABS`] deterministic, `gen`, 1–8 warps, `vec_a` (VEC) 1, 2 or 4,
/// `vec_b` (tap rows per group) 1..=[`stream::MAX_ROWS_PER_GROUP`], `tile_k` (TW) in
/// 1..=[`stream::MAX_STRIP`], `tile_m` = `tile_k` (one output row per unit), `tile_n` (BN) in
/// 1..=256 and a multiple of `vec_a`.
fn validate_stream(cfg: &KernelConfig) -> Result<(), Rejection> {
    check_stream_slab_fields(
        cfg,
        "1 (simt)",
        "0..=256 deterministic, or 2..=16 cluster (streaming wgrad)",
        true,
    )?;
    if !matches!(cfg.vec_a, 1 | 2 | 4 | 8) {
        return Err(Rejection::BadVectorWidth {
            operand: "vec_a",
            value: cfg.vec_a,
            max: 8,
        });
    }
    if !(1..=stream::MAX_ROWS_PER_GROUP).contains(&cfg.vec_b) {
        return Err(Rejection::BadVectorWidth {
            operand: "vec_b",
            value: cfg.vec_b,
            max: stream::MAX_ROWS_PER_GROUP,
        });
    }
    let limits = "direct streaming wgrad (stages 1): tile_k (strip width) in 1..=32, tile_m = tile_k (one output row per unit), tile_n in 1..=256 and a multiple of vec_a";
    let ok = (1..=stream::MAX_STRIP).contains(&cfg.tile_k)
        && cfg.tile_m == cfg.tile_k
        && (1..=256).contains(&cfg.tile_n)
        && cfg.tile_n.is_multiple_of(cfg.vec_a);
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

/// The structural rules of a banded tensor-core wgrad config (`super::banded`'s field table):
/// `math = mma` and `stages = 1` (checked by the caller), 16-bit data, no group merge, `split_k` 0 (the
/// rule) to [`stream::MAX_STREAM_SLABS`] deterministic, `gen`, 1–8 warps along M, `vec_a` 8,
/// `vec_b` 1 or 2 (pipelined), `tile_k` (TW) in 4..=[`banded::MAX_WIDTH`], `tile_m` = TH·TW with TH even and at
/// most [`banded::MAX_ROWS`], `tile_n` (BN) a multiple of 8 and of the warps, at most 64, with
/// at most [`banded::MAX_CHANNELS_PER_WARP`] channels per warp.
fn validate_banded(cfg: &KernelConfig) -> Result<(), Rejection> {
    if cfg.dtype == DType::F32 {
        return Err(fixed(
            "dtype",
            cfg.dtype.to_string(),
            "bf16 or f16 (banded wgrad)",
        ));
    }
    check_stream_slab_fields(
        cfg,
        "1 (banded wgrad)",
        "0..=256, deterministic (banded wgrad)",
        false,
    )?;
    if cfg.vec_a != 8 {
        return Err(fixed("vec_a", cfg.vec_a.to_string(), "8 (banded wgrad)"));
    }
    if !(1..=2).contains(&cfg.vec_b) {
        return Err(fixed(
            "vec_b",
            cfg.vec_b.to_string(),
            "1 or 2 (banded wgrad: 2 is the pipelined variant)",
        ));
    }
    let limits = "direct banded wgrad (mma, stages 1): tile_k (tile width) in 4..=128, tile_m = TH x tile_k with TH even and <= 16, tile_n a multiple of 8 and of the warps, <= 64, at most 8 channels per warp";
    let th = cfg.tile_m / cfg.tile_k.max(1);
    let ok = (4..=banded::MAX_WIDTH).contains(&cfg.tile_k)
        && cfg.tile_m.is_multiple_of(cfg.tile_k)
        && th.is_multiple_of(2)
        && (2..=banded::MAX_ROWS).contains(&th)
        && (8..=64).contains(&cfg.tile_n)
        && cfg.tile_n.is_multiple_of(8)
        && cfg.tile_n.is_multiple_of(cfg.warps_m)
        && cfg.tile_n / cfg.warps_m <= banded::MAX_CHANNELS_PER_WARP;
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

/// The structural rules of a banded tensor-core forward / backward-data config
/// (`super::fwd_banded`'s field table; `math = mma`, `vec_a = 1`, `split_k` 1d, `gen` and the
/// warps checked by the caller): 16-bit data, no group merge, one stage, `vec_b` 1 or 2, `tile_k`
/// (TW) a multiple of 16 up to [`fwd_banded::MAX_WIDTH`], `tile_m` = TH·TW with TH a multiple
/// of 8 up to [`fwd_banded::MAX_ROWS`], `tile_n` (BN) a multiple of 8 and of the warps, at most
/// 64, and at most [`fwd_banded::MAX_ACCUMULATORS`] accumulators per thread.
fn validate_fwd_banded(cfg: &KernelConfig) -> Result<(), Rejection> {
    if cfg.dtype == DType::F32 {
        return Err(Rejection::MathDtypeMismatch {
            math: cfg.math.token(),
            dtype: cfg.dtype.token(),
        });
    }
    if cfg.group_merge != 1 {
        return Err(fixed(
            "group_merge",
            cfg.group_merge.to_string(),
            "1 (banded forward)",
        ));
    }
    if cfg.stages != 1 {
        return Err(fixed(
            "stages",
            cfg.stages.to_string(),
            "1 (banded forward)",
        ));
    }
    if !(1..=2).contains(&cfg.vec_b) {
        return Err(fixed(
            "vec_b",
            cfg.vec_b.to_string(),
            "1 or 2 (banded forward: 2 is the pipelined variant)",
        ));
    }
    let limits = "direct banded forward (mma, vec_a 1): tile_k (tile width) a multiple of 16 in 16..=128, tile_m = TH x tile_k with TH a multiple of 8 and <= 32, tile_n a multiple of 8 and of the warps, <= 64, at most 96 accumulators per thread (4 x channels per warp x TH/8 x tile_k/16)";
    let th = cfg.tile_m / cfg.tile_k.max(1);
    let ok = (16..=fwd_banded::MAX_WIDTH).contains(&cfg.tile_k)
        && cfg.tile_k.is_multiple_of(16)
        && cfg.tile_m.is_multiple_of(cfg.tile_k)
        && th.is_multiple_of(8)
        && (8..=fwd_banded::MAX_ROWS).contains(&th)
        && (8..=64).contains(&cfg.tile_n)
        && cfg.tile_n.is_multiple_of(8)
        && cfg.tile_n.is_multiple_of(cfg.warps_m)
        && fwd_banded::accumulators(cfg) <= fwd_banded::MAX_ACCUMULATORS;
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

/// What a banded tensor-core kernel (`super::banded`, `super::fwd_banded`) needs of a problem,
/// in the words of its own scope rule.
struct BandedScope {
    /// The rule a refusal is reported as, given what is needed and what the problem has.
    rule: fn(&'static str, String) -> DirectRule,
    /// Fewest input rows.
    min_rows: u64,
    /// What "2D" means for the kernel (the need of the rank rule).
    two_d: &'static str,
    /// Largest filter width and height.
    max_fx: u64,
    max_fy: u64,
    /// The filter rule's need.
    filter: &'static str,
}

/// The scope shared by the banded kernels: a depthwise layer with C a multiple of 8, 2D (with
/// at least `min_rows` input rows), stride 1, dilation 1, a filter within the kernel's bounds.
fn check_banded_scope_of<E: Refusal>(problem: &Problem, s: &BandedScope) -> Result<(), E> {
    // What the problem has, written only where the answer keeps why.
    let scope = |need: &'static str, got: &dyn Fn() -> String| -> Result<(), E> {
        let got = if E::WHY { got() } else { String::new() };
        Err((s.rule)(need, got).into())
    };
    if problem.cpg() != 1 || problem.kpg() != 1 {
        return scope("a depthwise layer (C/G = K/G = 1)", &|| {
            format!("C/G = {}, K/G = {}", problem.cpg(), problem.kpg())
        });
    }
    if !problem.c.is_multiple_of(8) {
        return scope("C a multiple of 8 (16-byte channel vectors)", &|| {
            format!("C = {}", problem.c)
        });
    }
    if problem.filter[0] != 1 || problem.input[0] != 1 || problem.input[1] < s.min_rows {
        return scope(s.two_d, &|| {
            format!(
                "depth {}, filter depth {}",
                problem.input[0], problem.filter[0]
            )
        });
    }
    if problem.stride[1..] != [1, 1] || problem.dilation[1..] != [1, 1] {
        return scope("stride 1 and dilation 1", &|| {
            format!(
                "stride {}x{}, dilation {}x{}",
                problem.stride[1], problem.stride[2], problem.dilation[1], problem.dilation[2]
            )
        });
    }
    if problem.filter[2] > s.max_fx || problem.filter[1] > s.max_fy {
        return scope(s.filter, &|| {
            format!("filter {}x{}", problem.filter[1], problem.filter[2])
        });
    }
    Ok(())
}

/// The rules of a banded forward plan (`super::fwd_banded`) on its forward problem `fp` (the
/// dual of a backward-data problem): a depthwise layer with C a multiple of 8, 2D, stride 1,
/// dilation 1, `FX ≤ 8`, `FY ≤ 15`.
fn check_fwd_banded_scope<E: Refusal>(fp: &Problem) -> Result<(), E> {
    check_banded_scope_of(
        fp,
        &BandedScope {
            rule: |need, got| DirectRule::FwdBandedScope { need, got },
            min_rows: 1,
            two_d: "a 2D layer",
            max_fx: fwd_banded::MAX_FX,
            max_fy: fwd_banded::MAX_FY,
            filter: "a filter at most 8 wide and 15 high",
        },
    )
}

/// The rules of a banded wgrad plan (`super::banded`) that read no geometry: a depthwise layer
/// with C a multiple of 8, 2D (at least 2 input rows), stride 1, dilation 1, `FX ≤ 32`,
/// `FY ≤ 35`.
fn check_banded_scope<E: Refusal>(problem: &Problem) -> Result<(), E> {
    check_banded_scope_of(
        problem,
        &BandedScope {
            rule: |need, got| DirectRule::WgradBandedScope { need, got },
            min_rows: 2,
            two_d: "a 2D layer (a 1D layer fills one of a row pair and one of eight B rows)",
            max_fx: banded::MAX_FX,
            max_fy: banded::MAX_FY,
            filter: "a filter at most 32 wide and 35 high",
        },
    )
}

/// The problem rules of a banded wgrad plan after [`check_banded_scope`]: at most
/// [`banded::MAX_ACCUMULATORS`] accumulators per thread, a fixed slab count within the tiles,
/// shared memory and registers.
fn check_banded<E: Refusal>(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    limits: &DeviceLimits,
) -> Result<(), E> {
    let acc = banded::accumulators(cfg, problem);
    if acc > banded::MAX_ACCUMULATORS {
        let (bx, by) = banded::tap_blocks(problem);
        return Err(DirectRule::WgradBandedAccumulators {
            channels: (cfg.tile_n / cfg.warps_m.max(1)) as u64,
            blocks: bx * by,
            acc,
            max: banded::MAX_ACCUMULATORS,
        }
        .into());
    }
    let units = banded::units(cfg, problem);
    if cfg.split_k as u64 > units {
        return Err(DirectRule::WgradSlabs {
            slabs: cfg.split_k as u64,
            tiles: units,
        }
        .into());
    }
    check_limits(geo, registers, limits)
}

/// The problem rules of a streaming wgrad plan (`super::stream`): a depthwise layer, channel
/// lanes × tap-row groups within the threads, the accumulators within
/// [`stream::MAX_ACCUMULATORS`], a fixed slab count within the units, shared memory and
/// registers.
fn check_stream<E: Refusal>(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    limits: &DeviceLimits,
) -> Result<(), E> {
    if problem.cpg() != 1 || problem.kpg() != 1 {
        return Err(DirectRule::WgradStreamDepthwise {
            cpg: problem.cpg(),
            kpg: problem.kpg(),
        }
        .into());
    }
    let (rows, row_groups, lanes, slots) = stream::thread_mapping(cfg, problem);
    if slots == 0 {
        return Err(DirectRule::WgradStreamThreadMapping {
            lanes,
            row_groups,
            threads: cfg.threads(),
        }
        .into());
    }
    let fx = problem.filter[2];
    let acc = rows * fx * cfg.vec_a as u64;
    if acc > stream::MAX_ACCUMULATORS {
        return Err(DirectRule::WgradStreamAccumulators {
            rows,
            fx,
            vec: cfg.vec_a,
            acc,
            max: stream::MAX_ACCUMULATORS,
        }
        .into());
    }
    let units = stream::units(problem, geo.tw);
    if cfg.split_k as u64 > units {
        return Err(DirectRule::WgradSlabs {
            slabs: cfg.split_k as u64,
            tiles: units,
        }
        .into());
    }
    check_limits(geo, registers, limits)
}

/// The rules of [`check_wgrad`] (outside the stream kernel's) that read no geometry: C/G and
/// K/G ≤ [`MAX_DIRECT_CPG`], whole groups per channel tile, channel lanes × tap groups within
/// the threads.
fn check_wgrad_channels<E: Refusal>(cfg: &KernelConfig, problem: &Problem) -> Result<(), E> {
    if problem.cpg() > MAX_DIRECT_CPG || problem.kpg() > MAX_DIRECT_CPG {
        return Err(DirectRule::WgradChannels {
            cpg: problem.cpg(),
            kpg: problem.kpg(),
            max: MAX_DIRECT_CPG,
        }
        .into());
    }
    if !(cfg.tile_n as u64).is_multiple_of(problem.kpg()) {
        return Err(DirectRule::ChannelTile {
            kpg: problem.kpg(),
            tile_n: cfg.tile_n,
        }
        .into());
    }
    let (_, tgs, pgs) = wgrad::thread_mapping(cfg, problem);
    if pgs == 0 {
        return Err(DirectRule::WgradThreadMapping {
            lanes: (cfg.tile_n / cfg.vec_a.max(1)) as u64,
            tap_groups: tgs,
            threads: cfg.threads(),
        }
        .into());
    }
    Ok(())
}

/// The problem rules of a backward-weight problem (`super::wgrad`): C/G and K/G ≤
/// [`MAX_DIRECT_CPG`], whole groups per channel tile, channel lanes × tap groups within the
/// threads, a fixed slab count within the tiles, shared memory and registers.
fn check_wgrad<E: Refusal>(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    limits: &DeviceLimits,
) -> Result<(), E> {
    if banded::applies(cfg, problem) {
        return check_banded(cfg, problem, geo, registers, limits);
    }
    if stream::applies(cfg, problem) {
        return check_stream(cfg, problem, geo, registers, limits);
    }
    if wgrad_mma::applies(cfg, problem) {
        return check_wgrad_mma(cfg, problem, geo, registers, limits);
    }
    check_wgrad_channels::<E>(cfg, problem)?;
    let tiles = wgrad::tiles(problem, geo.th, geo.tw);
    if cfg.split_k as u64 > tiles {
        return Err(DirectRule::WgradSlabs {
            slabs: cfg.split_k as u64,
            tiles,
        }
        .into());
    }
    check_limits(geo, registers, limits)
}

/// The problem rules of the direct family (after the shared direction and dtype checks; the
/// shared index and grid limits follow in `crate::admit`), given the plan's forward problem
/// `fp` (the problem, or the dual of a backward-data problem, `super::geometry::forward_problem`)
/// and merged problem `kp`, geometry and register estimate, on the device's limits. A
/// backward-data problem without a dual takes the stride-phase kernels' rules; every other
/// rule is the forward kernel's on `fp`.
pub fn check_problem(
    cfg: &KernelConfig,
    problem: &Problem,
    fp: &Problem,
    kp: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    limits: &DeviceLimits,
) -> Result<(), Rejection> {
    check_before_geometry::<Rejection>(cfg, problem, fp, kp)?;
    check_after_geometry(cfg, problem, geo, registers, limits)
}

/// The rules of [`check_problem`] that read the geometry or the register estimate, in its
/// order: what it checks after [`check_before_geometry`] passed (the gate checks that first,
/// then plans the member, then this).
pub fn check_after_geometry<E: Refusal>(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    limits: &DeviceLimits,
) -> Result<(), E> {
    if wgrad::applies(problem) {
        return check_wgrad(cfg, problem, geo, registers, limits);
    }
    check_limits(geo, registers, limits)
}

/// The rules of [`check_problem`] that read neither the geometry nor the register estimate,
/// in its order: every rule it checks before those that do (so the first of them broken is
/// the rule it reports). The gate checks these before it derives the geometry, which a member
/// refused here (a tensor-core member on a depthwise problem, a CUDA-core member on wide
/// groups) never needs.
pub fn check_before_geometry<E: Refusal>(
    cfg: &KernelConfig,
    problem: &Problem,
    fp: &Problem,
    kp: &Problem,
) -> Result<(), E> {
    if wgrad::applies(problem) {
        if banded::applies(cfg, problem) {
            return check_banded_scope(problem);
        }
        if stream::applies(cfg, problem) {
            return Ok(());
        }
        if wgrad_mma::applies(cfg, problem) {
            return check_wgrad_mma_channels(cfg, problem);
        }
        return check_wgrad_channels(cfg, problem);
    }
    // `fp` is the problem itself exactly when a backward-data problem has no dual: asking
    // `fp` answers without looking for the dual again.
    if strided::applies(fp) {
        // The stride-phase kernels: dY's K/G channels per group are their staged input, dX's
        // C/G their whole output groups. Tensor cores: both multiples of 8.
        if cfg.math == Math::Mma {
            if cfg.group_merge > 1 || cfg.stages == 3 || fwd_banded::applies(cfg, problem) {
                return Err(DirectRule::PhaseMmaScope {
                    stride: problem.stride,
                    pad: problem.pad,
                    gm: cfg.group_merge,
                    stages: cfg.stages,
                    vec_a: cfg.vec_a,
                }
                .into());
            }
            check_mma_channels::<E>(problem)?;
        } else if problem.kpg() > MAX_DIRECT_CPG {
            return Err(DirectRule::DgradChannels {
                kpg: problem.kpg(),
                max: MAX_DIRECT_CPG,
            }
            .into());
        }
        if !(cfg.tile_n as u64).is_multiple_of(problem.cpg()) {
            return Err(DirectRule::ChannelTile {
                kpg: problem.cpg(),
                tile_n: cfg.tile_n,
            }
            .into());
        }
        return Ok(());
    }
    let problem = fp;
    if cfg.stages == 3
        && (problem.filter[0] < 2 || problem.stride[0] != 1 || problem.dilation[0] != 1)
    {
        return Err(DirectRule::DepthStreamScope {
            fz: problem.filter[0],
            sd: problem.stride[0],
            dd: problem.dilation[0],
        }
        .into());
    }
    if fwd_banded::applies(cfg, problem) {
        return check_fwd_banded_scope(problem);
    }
    if cfg.math == Math::Mma {
        check_group_merge::<E>(cfg, problem)?;
        check_mma_channels::<E>(kp)?;
    } else if problem.cpg() > MAX_DIRECT_CPG {
        return Err(DirectRule::ChannelsPerGroup {
            cpg: problem.cpg(),
            max: MAX_DIRECT_CPG,
        }
        .into());
    }
    // Whole (merged) groups per CTA.
    let kpg = kp.kpg();
    if !(cfg.tile_n as u64).is_multiple_of(kpg) {
        return Err(DirectRule::ChannelTile {
            kpg,
            tile_n: cfg.tile_n,
        }
        .into());
    }
    Ok(())
}

/// Shared memory and registers against the device's limits.
fn check_limits<E: Refusal>(
    geo: &DirectGeometry,
    registers: u32,
    limits: &DeviceLimits,
) -> Result<(), E> {
    if geo.smem_bytes > limits.smem_per_cta as u64 {
        return Err(Rejection::SmemExceedsLimit {
            bytes: geo.smem_bytes.min(u32::MAX as u64) as u32,
            limit: limits.smem_per_cta,
        }
        .into());
    }
    if registers > limits.regs_per_thread {
        return Err(Rejection::RegistersExceedLimit {
            estimate: registers,
            limit: limits.regs_per_thread,
        }
        .into());
    }
    Ok(())
}

/// The channel rule of the mma path on the kernel's (merged) problem: C/G and K/G multiples of 8
/// (16-byte `ldmatrix` rows of one group; n8 blocks inside one group).
fn check_mma_channels<E: Refusal>(kp: &Problem) -> Result<(), E> {
    if !kp.cpg().is_multiple_of(8) || !kp.kpg().is_multiple_of(8) {
        return Err(DirectRule::MmaChannels {
            cpg: kp.cpg(),
            kpg: kp.kpg(),
        }
        .into());
    }
    Ok(())
}
