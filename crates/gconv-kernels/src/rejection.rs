//! Why a config is not a kernel, or cannot run a problem: [`Rejection`], with a short stable
//! [`Rejection::reason`] key that the instance builder and the sweep count, and a `Display`
//! that quotes the values. The variants here are the rules every family shares (tiles, warps,
//! vectors, stages, split-K, shared memory, registers, direction and dtype, index and grid
//! limits); a rule that belongs to one family is a [`FamilyRule`] built by that family.

use std::fmt;
use std::sync::Arc;
use thiserror::Error;

/// Why a config is not a kernel, or cannot run a problem. [`Rejection::reason`] gives a short
/// stable key for counting; `Display` gives the details.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Rejection {
    /// The family does not implement this direction yet.
    #[error("{family} does not implement direction {direction} yet")]
    DirectionNotImplemented {
        /// Family token.
        family: &'static str,
        /// Direction token.
        direction: &'static str,
    },
    /// The math path does not suit the dtype.
    #[error("math {math} does not match dtype {dtype} (f16/bf16 use mma; f32 uses simt or tf32)")]
    MathDtypeMismatch {
        /// Math token.
        math: &'static str,
        /// Dtype token.
        dtype: &'static str,
    },
    /// The math path exists in the grammar but has no generator yet.
    #[error("math {math} is not implemented yet")]
    MathNotImplemented {
        /// Math token.
        math: &'static str,
    },
    /// The math path needs another target architecture than the one asked for.
    #[error("math {math} needs --arch {needs} (asked for {arch})")]
    ArchRequired {
        /// Math token.
        math: &'static str,
        /// The architecture the math path needs.
        needs: &'static str,
        /// The architecture asked for.
        arch: &'static str,
    },
    /// A warp layout the family (or math path) does not take; `allowed` says which it does.
    #[error("warp layout {warps_m}x{warps_n} is invalid: {allowed}")]
    BadWarpCount {
        /// Warps along M.
        warps_m: u32,
        /// Warps along N.
        warps_n: u32,
        /// The layouts the family or math path takes.
        allowed: &'static str,
    },
    /// Block tile outside the supported range.
    #[error("block tile {tile_m}x{tile_n}x{tile_k} is outside the supported range ({limits})")]
    TileOutOfRange {
        /// Tile M.
        tile_m: u32,
        /// Tile N.
        tile_n: u32,
        /// Tile K.
        tile_k: u32,
        /// The accepted range, in words.
        limits: &'static str,
    },
    /// Block tile not divisible by the warp layout.
    #[error(
        "block tile {tile_m}x{tile_n} is not divisible by the warp layout {warps_m}x{warps_n}"
    )]
    TileNotMultipleOfWarps {
        /// Tile M.
        tile_m: u32,
        /// Tile N.
        tile_n: u32,
        /// Warps M.
        warps_m: u32,
        /// Warps N.
        warps_n: u32,
    },
    /// Warp tile not a multiple of the instruction shape.
    #[error("warp tile {warp_m}x{warp_n} (k {tile_k}) is not a multiple of the {math} instruction shape ({need})")]
    WarpTileNotMultipleOfInstruction {
        /// Warp tile M.
        warp_m: u32,
        /// Warp tile N.
        warp_n: u32,
        /// Tile K.
        tile_k: u32,
        /// Math token.
        math: &'static str,
        /// Requirement in words.
        need: &'static str,
    },
    /// Stage count outside 2..=5.
    #[error("stages {stages} outside 2..=5")]
    StagesOutOfRange {
        /// The stage count.
        stages: u32,
    },
    /// A vector cap that is zero, not a power of two, wider than 16 bytes or than tile_k.
    #[error("vector cap {operand}={value} is invalid (power of two, at most 16 bytes = {max} elements and at most tile_k)")]
    BadVectorWidth {
        /// `vec_a` or `vec_b`.
        operand: &'static str,
        /// The cap.
        value: u32,
        /// Largest allowed for the dtype.
        max: u32,
    },
    /// Group merge not a power of two in 1..=max.
    #[error("group_merge {gm} is invalid (power of two, 1..={max})")]
    BadGroupMerge {
        /// gm.
        gm: u32,
        /// Largest accepted.
        max: u32,
    },
    /// Split-K degree out of range or a mode given without split.
    #[error("split-K {split_k}{mode} is invalid ({why})")]
    BadSplitK {
        /// Degree.
        split_k: u32,
        /// Mode letter.
        mode: &'static str,
        /// Why.
        why: &'static str,
    },
    /// Split-K is not generated yet for this mode.
    #[error("split-K {split_k}{mode} is not implemented yet")]
    SplitKNotImplemented {
        /// Degree.
        split_k: u32,
        /// Mode letter.
        mode: &'static str,
    },
    /// Shared memory above the per-CTA limit.
    #[error("shared memory {bytes} B exceeds the limit {limit} B")]
    SmemExceedsLimit {
        /// Bytes needed.
        bytes: u32,
        /// Limit.
        limit: u32,
    },
    /// Estimated registers above the per-thread limit.
    #[error("estimated {estimate} registers per thread exceed {limit}")]
    RegistersExceedLimit {
        /// Estimate.
        estimate: u32,
        /// Limit.
        limit: u32,
    },
    /// The config's direction differs from the problem's.
    #[error("config direction {config} differs from problem direction {problem}")]
    DirectionMismatch {
        /// Config direction token.
        config: &'static str,
        /// Problem direction token.
        problem: &'static str,
    },
    /// The config's dtype differs from the problem's.
    #[error("config dtype {config} differs from problem dtype {problem}")]
    DtypeMismatch {
        /// Config dtype token.
        config: &'static str,
        /// Problem dtype token.
        problem: &'static str,
    },
    /// The pointwise path needs a 1×1 filter, unit stride and no padding.
    #[error("the pointwise path needs a 1x1 filter, stride 1 and pad 0 (problem: filter {filter:?}, stride {stride:?}, pad {pad:?})")]
    PointwiseInapplicable {
        /// Filter (D,H,W slots).
        filter: [u64; 3],
        /// Stride.
        stride: [u64; 3],
        /// Pad.
        pad: [u64; 3],
    },
    /// gm does not divide G.
    #[error("group_merge {gm} does not divide G={g}")]
    GroupMergeNotDivisor {
        /// gm.
        gm: u32,
        /// G.
        g: u64,
    },
    /// The merged groups do not fit one tile.
    #[error("group_merge {gm}: merged reduction channels {merged_c} / merged output channels {merged_k} do not fit tile_k={tile_k} / tile_n={tile_n}")]
    GroupMergeExceedsTile {
        /// gm.
        gm: u32,
        /// Merged reduction channels (gm·C/G; backward-data gm·K/G).
        merged_c: u64,
        /// Merged output channels (gm·K/G; backward-data gm·C/G).
        merged_k: u64,
        /// tile_k.
        tile_k: u32,
        /// tile_n.
        tile_n: u32,
    },
    /// Offsets would not fit the kernel's 32-bit index type.
    #[error(
        "unsupported: tensor {tensor} needs offsets up to {extent}, beyond the 32-bit index type"
    )]
    IndexExceeds32Bit {
        /// Tensor name.
        tensor: &'static str,
        /// Largest offset magnitude needed.
        extent: u64,
    },
    /// The launch grid would exceed a hardware limit.
    #[error("unsupported: grid dimension {axis} would be {size}, above the limit {limit}")]
    GridTooLarge {
        /// `x`, `y` or `z`.
        axis: &'static str,
        /// Size.
        size: u64,
        /// Limit.
        limit: u64,
    },
    /// Split-K degree above the number of k-tiles.
    #[error("split_k {split_k} exceeds the {ktiles} k-tiles of the reduction")]
    SplitKExceedsReduction {
        /// Degree.
        split_k: u32,
        /// k-tiles.
        ktiles: u64,
    },
    /// A rule of one family's own ([`FamilyRule`]; e.g. the direct family's thread mapping).
    #[error("{0}")]
    Family(FamilyRule),
}

/// That a config was refused, without why: what the gate's screen answers where the reason is
/// never read (`crate::admit::Gate::admits`, for `auto`'s decisions), so that no rule message
/// is written or allocated for the members it refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("refused")]
pub struct Refused;

impl From<Rejection> for Refused {
    fn from(_: Rejection) -> Refused {
        Refused
    }
}

/// A rejection by a rule that belongs to one family: the family's module keeps the typed rule
/// (its fields and its message) and converts it into this, so that adding a rule or a direction
/// to a family never touches this file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct FamilyRule {
    /// Family token (`igemm`, `direct`).
    pub family: &'static str,
    /// Short stable key for counting, like [`Rejection::reason`]'s.
    pub reason: &'static str,
    /// The message, quoting the values that broke the rule.
    pub message: RuleMessage,
    /// True when the kernel is valid but the problem is beyond its limits (CSV `unsupported`).
    pub unsupported: bool,
}

/// A [`FamilyRule`]'s message, kept as the family's typed rule and written only when it is
/// displayed: `auto` gates the whole pool on every decision and reads only the reason keys of
/// the members refused, never their messages. Two messages are equal when they read the same.
#[derive(Clone)]
pub struct RuleMessage(Arc<dyn fmt::Display + Send + Sync>);

impl RuleMessage {
    /// The message `rule` displays.
    pub fn new(rule: impl fmt::Display + Send + Sync + 'static) -> RuleMessage {
        RuleMessage(Arc::new(rule))
    }
}

impl fmt::Display for RuleMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Debug for RuleMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0.to_string(), f)
    }
}

impl PartialEq for RuleMessage {
    fn eq(&self, other: &RuleMessage) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Eq for RuleMessage {}

impl Rejection {
    /// Short stable key for counting rejections by reason.
    pub fn reason(&self) -> &'static str {
        match self {
            Rejection::DirectionNotImplemented { .. } => "direction_not_implemented",
            Rejection::MathDtypeMismatch { .. } => "math_dtype_mismatch",
            Rejection::MathNotImplemented { .. } => "math_not_implemented",
            Rejection::ArchRequired { .. } => "arch_required",
            Rejection::BadWarpCount { .. } => "bad_warp_count",
            Rejection::TileOutOfRange { .. } => "tile_out_of_range",
            Rejection::TileNotMultipleOfWarps { .. } => "tile_not_multiple_of_warps",
            Rejection::WarpTileNotMultipleOfInstruction { .. } => {
                "warp_tile_not_multiple_of_instruction"
            }
            Rejection::StagesOutOfRange { .. } => "stages_out_of_range",
            Rejection::BadVectorWidth { .. } => "bad_vector_width",
            Rejection::BadGroupMerge { .. } => "bad_group_merge",
            Rejection::BadSplitK { .. } => "bad_split_k",
            Rejection::SplitKNotImplemented { .. } => "split_k_not_implemented",
            Rejection::SmemExceedsLimit { .. } => "smem_exceeds_limit",
            Rejection::RegistersExceedLimit { .. } => "registers_exceed_limit",
            Rejection::DirectionMismatch { .. } => "direction_mismatch",
            Rejection::DtypeMismatch { .. } => "dtype_mismatch",
            Rejection::PointwiseInapplicable { .. } => "pointwise_inapplicable",
            Rejection::GroupMergeNotDivisor { .. } => "group_merge_not_divisor",
            Rejection::GroupMergeExceedsTile { .. } => "group_merge_exceeds_tile",
            Rejection::IndexExceeds32Bit { .. } => "index_exceeds_32bit",
            Rejection::GridTooLarge { .. } => "grid_too_large",
            Rejection::SplitKExceedsReduction { .. } => "split_k_exceeds_reduction",
            Rejection::Family(rule) => rule.reason,
        }
    }

    /// True for the problem-side answers that mean "valid kernel, unsupported problem size"
    /// (CSV status `unsupported` rather than `rejected`).
    pub fn is_unsupported(&self) -> bool {
        match self {
            Rejection::IndexExceeds32Bit { .. } | Rejection::GridTooLarge { .. } => true,
            Rejection::Family(rule) => rule.unsupported,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A family rule's message reads as the rule it keeps, and two messages are equal when
    /// they read the same, whatever they keep.
    #[test]
    fn a_rule_message_is_its_text() {
        #[derive(Debug)]
        struct Rule(u32);
        impl fmt::Display for Rule {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "tile {} too wide", self.0)
            }
        }
        let m = RuleMessage::new(Rule(7));
        assert_eq!(m.to_string(), "tile 7 too wide");
        assert_eq!(format!("{m:?}"), "\"tile 7 too wide\"");
        assert_eq!(m, RuleMessage::new("tile 7 too wide".to_string()));
        assert_ne!(m, RuleMessage::new(Rule(8)));
        let r = Rejection::Family(FamilyRule {
            family: "direct",
            reason: "direct_tile",
            message: m.clone(),
            unsupported: false,
        });
        assert_eq!(r.to_string(), "tile 7 too wide");
        assert_eq!(r.reason(), "direct_tile");
    }
}
