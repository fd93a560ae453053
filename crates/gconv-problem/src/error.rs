//! The typed error for problem keys, problems files and problem validation.

use thiserror::Error;

/// Every way a problem key, a problems file or a problem can be rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProblemError {
    /// The key does not follow the grammar.
    #[error("malformed problem key {key:?}: {reason} (expected {{dir}}_{{dtype}}_n{{N}}_g{{G}}_c{{C}}_k{{K}}_i{{spatial}}_f{{filter}}_s{{stride}}_p{{pad}}_d{{dilation}}, e.g. fwd_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1)")]
    Malformed { key: String, reason: String },
    /// A size that must be at least 1 is 0 or negative.
    #[error("{field} must be at least 1, got {value}")]
    NonPositive { field: String, value: i64 },
    /// A padding is negative.
    #[error("{field} must be at least 0, got {value}")]
    Negative { field: String, value: i64 },
    /// A channel count is not a multiple of the group count.
    #[error("{field}={value} is not divisible by G={groups}")]
    NotDivisible {
        field: &'static str,
        value: u64,
        groups: u64,
    },
    /// Spatial lists have different ranks, or an unsupported rank.
    #[error("rank mismatch: {field} has {got} dimension(s) but {expected} were expected (1, 2 or 3 spatial dimensions, the same for i, f, s, p, d)")]
    Rank {
        field: &'static str,
        got: usize,
        expected: usize,
    },
    /// The dilated filter does not fit in the padded input.
    #[error("dilated filter extent {extent} along {axis} is larger than the padded input {padded} (input {input}, pad {pad} on each side)")]
    FilterTooLarge {
        axis: &'static str,
        extent: u64,
        padded: u64,
        input: u64,
        pad: u64,
    },
    /// The stride is longer than the padded input: every stride that long gives the same single
    /// output, and backward data would have that many stride phases to plan.
    #[error("stride {stride} along {axis} is longer than the padded input {padded}; any stride from {padded} up gives the one output it gives, so use at most {padded}")]
    StrideTooLarge {
        axis: &'static str,
        stride: u64,
        padded: u64,
    },
    /// The output would be empty along an axis.
    #[error("output size along {axis} is {size}, must be at least 1")]
    EmptyOutput { axis: &'static str, size: i64 },
    /// A tensor's element count or byte size overflows.
    #[error("tensor {tensor} is too large: its {what} overflows {limit}")]
    Overflow {
        tensor: &'static str,
        what: &'static str,
        limit: &'static str,
    },
    /// A host tensor could not be allocated.
    #[error("cannot allocate host tensor {tensor}: {bytes} bytes")]
    HostMemory {
        /// Which tensor.
        tensor: &'static str,
        /// Bytes asked for.
        bytes: u64,
    },
    /// A problem's tensors need more host memory than the limit (see `memory`).
    #[error(
        "{problem} needs about {} of host memory for its tensors{}, but {} are available ({origin})",
        crate::memory::gib(*needed),
        if *verify { " and the f64 reference it is verified against" } else { "" },
        crate::memory::gib(*limit)
    )]
    HostMemoryLimit {
        /// The problem key.
        problem: String,
        /// Bytes needed (an estimate from above).
        needed: u64,
        /// Bytes available.
        limit: u64,
        /// Where the limit comes from.
        origin: &'static str,
        /// Whether the estimate includes the verification buffers.
        verify: bool,
    },
    /// A line of a problems file is not a valid key.
    #[error("{source_name}:{line}: {error}")]
    InFile {
        source_name: String,
        line: usize,
        error: Box<ProblemError>,
    },
    /// A direction in neither of its spellings.
    #[error("unknown direction {value:?} (expected fwd, dgrad or wgrad, or the aliases forward, bwd_data or bwd_weight)")]
    UnknownDirection {
        /// The value given.
        value: String,
    },
    /// A problems file has no keys at all.
    #[error("{source_name}: no problem keys found")]
    EmptyFile { source_name: String },
}
