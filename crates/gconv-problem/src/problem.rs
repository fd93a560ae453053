//! The `Problem` type: one grouped convolution, its validation and derived quantities.

use crate::device::DeviceSpec;
use crate::error::ProblemError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Convolution direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Direction {
    /// Forward: Y = conv(X, W).
    Fwd,
    /// Backward data: dX from dY and W.
    Dgrad,
    /// Backward weight: dW from X and dY.
    Wgrad,
}

impl Direction {
    /// All directions, in key order.
    pub const ALL: [Direction; 3] = [Direction::Fwd, Direction::Dgrad, Direction::Wgrad];

    /// The key token (`fwd`, `dgrad`, `wgrad`).
    pub fn token(self) -> &'static str {
        match self {
            Direction::Fwd => "fwd",
            Direction::Dgrad => "dgrad",
            Direction::Wgrad => "wgrad",
        }
    }

    /// Parses a key token only (`fwd`, `dgrad`, `wgrad`): problem keys have one spelling. Every
    /// other input that names a direction goes through [`Direction::parse_any`].
    pub fn from_token(s: &str) -> Option<Direction> {
        Direction::ALL.into_iter().find(|d| d.token() == s)
    }

    /// The long alias of trait configs and registry keys (`forward`, `bwd_data`, `bwd_weight`).
    pub fn alias(self) -> &'static str {
        match self {
            Direction::Fwd => "forward",
            Direction::Dgrad => "bwd_data",
            Direction::Wgrad => "bwd_weight",
        }
    }

    /// Parses a direction in either spelling: the key token (`fwd`, `dgrad`, `wgrad`) or its
    /// alias (`forward`, `bwd_data`, `bwd_weight`). The one parser behind every CLI flag, config
    /// field and filter that names a direction; outputs print [`Direction::token`].
    pub fn parse_any(s: &str) -> Result<Direction, ProblemError> {
        Direction::ALL
            .into_iter()
            .find(|d| d.token() == s || d.alias() == s)
            .ok_or_else(|| ProblemError::UnknownDirection {
                value: s.to_string(),
            })
    }

    /// The two input roles and the output role of this direction (runner contract).
    pub fn roles(self) -> ([TensorRole; 2], TensorRole) {
        match self {
            Direction::Fwd => ([TensorRole::X, TensorRole::W], TensorRole::Y),
            Direction::Dgrad => ([TensorRole::Y, TensorRole::W], TensorRole::X),
            Direction::Wgrad => ([TensorRole::X, TensorRole::Y], TensorRole::W),
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl std::str::FromStr for Direction {
    type Err = ProblemError;

    /// [`Direction::parse_any`].
    fn from_str(s: &str) -> Result<Direction, ProblemError> {
        Direction::parse_any(s)
    }
}

/// Element type of every tensor of a problem. Accumulation is always f32 (f64 in the reference).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DType {
    /// IEEE binary32.
    F32,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
}

impl DType {
    /// All dtypes, in key order.
    pub const ALL: [DType; 3] = [DType::F32, DType::F16, DType::Bf16];

    /// The key token (`f32`, `f16`, `bf16`).
    pub fn token(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::Bf16 => "bf16",
        }
    }

    /// Parses a key token.
    pub fn from_token(s: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.token() == s)
    }

    /// Bytes per element.
    pub fn size_bytes(self) -> u64 {
        match self {
            DType::F32 => 4,
            DType::F16 | DType::Bf16 => 2,
        }
    }

    /// Machine epsilon (distance from 1.0 to the next value).
    pub fn epsilon(self) -> f64 {
        match self {
            DType::F32 => f32::EPSILON as f64,
            DType::F16 => 2f64.powi(-10),
            DType::Bf16 => 2f64.powi(-7),
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// The three tensors of a convolution, independent of direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TensorRole {
    /// Activation input X (or dX), layout `N,[D,]H,W,G,C/G`.
    X,
    /// Weight W (or dW), layout `G,K/G,[Z,]Y,X,C/G`.
    W,
    /// Output Y (or dY), layout `N,[Do,]Ho,Wo,G,K/G`.
    Y,
}

/// The per-group implicit GEMM C (M × N) = A (M × K) · B (K × N) of one direction, in tensor
/// roles ([`Problem::gemm_view`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmView {
    /// The tensor read as A.
    pub a: TensorRole,
    /// The tensor read as B.
    pub b: TensorRole,
    /// The tensor written as C (the direction's output).
    pub c: TensorRole,
    /// Rows of A and C.
    pub m: u64,
    /// Columns of B and C.
    pub n: u64,
    /// The reduction.
    pub k: u64,
}

impl TensorRole {
    /// Short name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            TensorRole::X => "X",
            TensorRole::W => "W",
            TensorRole::Y => "Y",
        }
    }
}

/// Axis names for messages, indexed by position in the 3-slot D,H,W arrays.
pub const AXES: [&str; 3] = ["D", "H", "W"];

/// One grouped convolution. Construct with [`Problem::new`] (validated) or by parsing a key.
///
/// Spatial quantities are stored in three slots (D, H, W); a problem of rank r uses the last r
/// slots and the unused leading slots hold the neutral values (size 1, filter 1, stride 1,
/// pad 0, dilation 1), which is also how CSV rows of 1D/2D problems are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Problem {
    /// Direction.
    pub direction: Direction,
    /// Element type.
    pub dtype: DType,
    /// Batch size N.
    pub n: u64,
    /// Group count G.
    pub g: u64,
    /// Total input channels C.
    pub c: u64,
    /// Total output channels K.
    pub k: u64,
    /// Number of spatial dimensions (1, 2 or 3).
    pub rank: usize,
    /// Input spatial size (D, H, W).
    pub input: [u64; 3],
    /// Filter size (Z, Y, X).
    pub filter: [u64; 3],
    /// Stride.
    pub stride: [u64; 3],
    /// Symmetric padding.
    pub pad: [u64; 3],
    /// Dilation.
    pub dilation: [u64; 3],
}

/// Unvalidated description of a problem; spatial lists are given in D,H,W order of the rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProblemSpec {
    /// Direction.
    pub direction: Direction,
    /// Element type.
    pub dtype: DType,
    /// Batch.
    pub n: i64,
    /// Groups.
    pub g: i64,
    /// Total input channels.
    pub c: i64,
    /// Total output channels.
    pub k: i64,
    /// Input spatial sizes.
    pub input: Vec<i64>,
    /// Filter sizes.
    pub filter: Vec<i64>,
    /// Strides.
    pub stride: Vec<i64>,
    /// Paddings.
    pub pad: Vec<i64>,
    /// Dilations.
    pub dilation: Vec<i64>,
}

fn positive(field: &str, v: i64) -> Result<u64, ProblemError> {
    if v < 1 {
        Err(ProblemError::NonPositive {
            field: field.to_string(),
            value: v,
        })
    } else {
        Ok(v as u64)
    }
}

/// Largest element count or byte size any tensor may have (kernels may still refuse
/// sizes beyond their own index type through `can_implement`).
pub const MAX_TENSOR_BYTES: u64 = i64::MAX as u64;

impl ProblemSpec {
    /// Validates and converts to a [`Problem`].
    pub fn build(&self) -> Result<Problem, ProblemError> {
        let rank = self.input.len();
        if !(1..=3).contains(&rank) {
            return Err(ProblemError::Rank {
                field: "input",
                got: rank,
                expected: if rank == 0 { 1 } else { 3 },
            });
        }
        for (field, list) in [
            ("filter", &self.filter),
            ("stride", &self.stride),
            ("pad", &self.pad),
            ("dilation", &self.dilation),
        ] {
            if list.len() != rank {
                return Err(ProblemError::Rank {
                    field,
                    got: list.len(),
                    expected: rank,
                });
            }
        }
        let n = positive("N", self.n)?;
        let g = positive("G", self.g)?;
        let c = positive("C", self.c)?;
        let k = positive("K", self.k)?;
        if !c.is_multiple_of(g) {
            return Err(ProblemError::NotDivisible {
                field: "C",
                value: c,
                groups: g,
            });
        }
        if !k.is_multiple_of(g) {
            return Err(ProblemError::NotDivisible {
                field: "K",
                value: k,
                groups: g,
            });
        }
        let off = 3 - rank;
        let mut input = [1u64; 3];
        let mut filter = [1u64; 3];
        let mut stride = [1u64; 3];
        let mut pad = [0u64; 3];
        let mut dilation = [1u64; 3];
        for i in 0..rank {
            let axis = AXES[off + i];
            input[off + i] = positive(&format!("input {axis}"), self.input[i])?;
            filter[off + i] = positive(&format!("filter {axis}"), self.filter[i])?;
            stride[off + i] = positive(&format!("stride {axis}"), self.stride[i])?;
            dilation[off + i] = positive(&format!("dilation {axis}"), self.dilation[i])?;
            if self.pad[i] < 0 {
                return Err(ProblemError::Negative {
                    field: format!("pad {axis}"),
                    value: self.pad[i],
                });
            }
            pad[off + i] = self.pad[i] as u64;
        }
        let p = Problem {
            direction: self.direction,
            dtype: self.dtype,
            n,
            g,
            c,
            k,
            rank,
            input,
            filter,
            stride,
            pad,
            dilation,
        };
        p.check_geometry()?;
        Ok(p)
    }
}

impl Problem {
    /// Validates a problem given by its fields (spatial lists in D,H,W order of the rank).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        direction: Direction,
        dtype: DType,
        n: i64,
        g: i64,
        c: i64,
        k: i64,
        input: &[i64],
        filter: &[i64],
        stride: &[i64],
        pad: &[i64],
        dilation: &[i64],
    ) -> Result<Problem, ProblemError> {
        ProblemSpec {
            direction,
            dtype,
            n,
            g,
            c,
            k,
            input: input.to_vec(),
            filter: filter.to_vec(),
            stride: stride.to_vec(),
            pad: pad.to_vec(),
            dilation: dilation.to_vec(),
        }
        .build()
    }

    /// Re-checks the geometry and size rules (used after construction and by tests).
    pub fn check_geometry(&self) -> Result<(), ProblemError> {
        for (i, &axis) in AXES.iter().enumerate().skip(3 - self.rank) {
            let ext = checked(
                (self.filter[i] - 1)
                    .checked_mul(self.dilation[i])
                    .and_then(|e| e.checked_add(1)),
                "X",
                "filter extent",
            )?;
            let padded = checked(
                self.pad[i]
                    .checked_mul(2)
                    .and_then(|p| p.checked_add(self.input[i])),
                "X",
                "padded extent",
            )?;
            if ext > padded {
                return Err(ProblemError::FilterTooLarge {
                    axis,
                    extent: ext,
                    padded,
                    input: self.input[i],
                    pad: self.pad[i],
                });
            }
            if self.stride[i] > padded {
                return Err(ProblemError::StrideTooLarge {
                    axis,
                    stride: self.stride[i],
                    padded,
                });
            }
            // ext <= padded guarantees at least one output.
            let out = (padded - ext) / self.stride[i] + 1;
            if out < 1 {
                return Err(ProblemError::EmptyOutput {
                    axis,
                    size: out as i64,
                });
            }
        }
        for role in [TensorRole::X, TensorRole::W, TensorRole::Y] {
            let count = self.try_elements(role)?;
            if count.checked_mul(self.dtype.size_bytes()).is_none()
                || count * self.dtype.size_bytes() > MAX_TENSOR_BYTES
            {
                return Err(ProblemError::Overflow {
                    tensor: role.name(),
                    what: "byte size",
                    limit: "i64",
                });
            }
        }
        Ok(())
    }

    /// Channels per group on the input side, C/G.
    pub fn cpg(&self) -> u64 {
        self.c / self.g
    }

    /// Channels per group on the output side, K/G.
    pub fn kpg(&self) -> u64 {
        self.k / self.g
    }

    /// True for depthwise problems (C == K == G).
    pub fn is_depthwise(&self) -> bool {
        self.c == self.g && self.k == self.g
    }

    /// Output spatial size (Do, Ho, Wo); unused slots are 1.
    pub fn output(&self) -> [u64; 3] {
        let mut o = [1u64; 3];
        for (i, oi) in o.iter_mut().enumerate() {
            let ext = (self.filter[i] - 1) * self.dilation[i] + 1;
            let span = self.input[i] + 2 * self.pad[i] - ext;
            // Stride 1 (most layers) needs no division; the gate asks this for every member.
            *oi = match self.stride[i] {
                1 => span,
                s => span / s,
            } + 1;
        }
        o
    }

    /// Product of the filter sizes.
    pub fn filter_volume(&self) -> u64 {
        self.filter.iter().product()
    }

    /// Product of the input spatial sizes.
    pub fn input_volume(&self) -> u64 {
        self.input.iter().product()
    }

    /// Product of the output spatial sizes.
    pub fn output_volume(&self) -> u64 {
        self.output().iter().product()
    }

    fn try_elements(&self, role: TensorRole) -> Result<u64, ProblemError> {
        let dims = self.dims(role);
        // The error is built only on overflow (`ok_or_else`): the gate re-checks the geometry
        // of every backward-data dual it plans, and a `ProblemError` built and dropped per
        // factor cost more than the products.
        dims.iter().try_fold(1u64, |acc, &d| {
            acc.checked_mul(d).ok_or_else(|| ProblemError::Overflow {
                tensor: role.name(),
                what: "element count",
                limit: "u64",
            })
        })
    }

    /// Dimensions of a tensor in memory order (outermost first), always 6 entries:
    /// X: N,D,H,W,G,C/G; W: G,K/G,Z,Y,X,C/G; Y: N,Do,Ho,Wo,G,K/G.
    pub fn dims(&self, role: TensorRole) -> [u64; 6] {
        match role {
            TensorRole::X => {
                let [d, h, w] = self.input;
                [self.n, d, h, w, self.g, self.cpg()]
            }
            TensorRole::W => {
                let [z, y, x] = self.filter;
                [self.g, self.kpg(), z, y, x, self.cpg()]
            }
            TensorRole::Y => {
                // Only Y's dims need the output size (its divisions).
                let [od, oh, ow] = self.output();
                [self.n, od, oh, ow, self.g, self.kpg()]
            }
        }
    }

    /// Element count of a tensor (validated problems never overflow).
    pub fn elements(&self, role: TensorRole) -> u64 {
        self.dims(role).iter().product()
    }

    /// The per-group implicit GEMM of the problem's direction: which tensor plays A (M × K),
    /// B (K × N) and C (M × N), and the sizes. The one place that maps directions to GEMM roles
    /// (taps = the filter volume): fwd C=Y from A=X (im2col) and B=W, M = N·Do·Ho·Wo,
    /// N = K/G, K = (C/G)·taps; dgrad C=dX from A=dY and B=W (flipped, channel-transposed),
    /// M = N·Di·Hi·Wi, N = C/G, K = (K/G)·taps; wgrad C=dW from A=dY (transposed) and B=X
    /// (im2col), M = K/G, N = (C/G)·taps, K = N·Do·Ho·Wo.
    pub fn gemm_view(&self) -> GemmView {
        let fv = self.filter_volume();
        let (a, b, c, m, n, k) = match self.direction {
            Direction::Fwd => (
                TensorRole::X,
                TensorRole::W,
                TensorRole::Y,
                self.n * self.output_volume(),
                self.kpg(),
                self.cpg() * fv,
            ),
            Direction::Dgrad => (
                TensorRole::Y,
                TensorRole::W,
                TensorRole::X,
                self.n * self.input_volume(),
                self.cpg(),
                self.kpg() * fv,
            ),
            Direction::Wgrad => (
                TensorRole::Y,
                TensorRole::X,
                TensorRole::W,
                self.kpg(),
                self.cpg() * fv,
                self.n * self.output_volume(),
            ),
        };
        GemmView { a, b, c, m, n, k }
    }

    /// Per-group GEMM sizes (M, N, K) of [`Problem::gemm_view`].
    pub fn gemm_mnk(&self) -> (u64, u64, u64) {
        let v = self.gemm_view();
        (v.m, v.n, v.k)
    }

    /// Length of the reduction producing one output element, per direction.
    ///
    /// For dgrad this is the upper bound (taps that fall outside are skipped).
    pub fn reduction_length(&self) -> u64 {
        self.gemm_mnk().2
    }

    /// FLOP count: 2·N·outspatial·K·(C/G)·filter volume (the same in every direction).
    pub fn flops(&self) -> f64 {
        2.0 * self.n as f64
            * self.output_volume() as f64
            * self.k as f64
            * self.cpg() as f64
            * self.filter_volume() as f64
    }

    /// Minimum bytes moved: each of the three tensors read or written once.
    pub fn min_bytes(&self) -> f64 {
        let e = (self.elements(TensorRole::X)
            + self.elements(TensorRole::W)
            + self.elements(TensorRole::Y)) as f64;
        e * self.dtype.size_bytes() as f64
    }

    /// Roofline time in seconds on a device: max(compute time, memory time).
    pub fn roofline_seconds(&self, dev: &DeviceSpec) -> f64 {
        let compute = self.flops() / dev.peak_flops(self.dtype);
        let memory = self.min_bytes() / dev.bandwidth_bytes_per_s;
        compute.max(memory)
    }

    /// Fraction of the roofline reached by a measured time.
    pub fn roofline_fraction(&self, dev: &DeviceSpec, seconds: f64) -> f64 {
        self.roofline_seconds(dev) / seconds
    }

    /// The same problem in another direction.
    pub fn with_direction(&self, direction: Direction) -> Problem {
        Problem { direction, ..*self }
    }

    /// The same problem in another dtype.
    pub fn with_dtype(&self, dtype: DType) -> Problem {
        Problem { dtype, ..*self }
    }

    /// Spatial lists of the used rank, in D,H,W order.
    pub fn spatial(&self, which: [u64; 3]) -> Vec<u64> {
        which[3 - self.rank..].to_vec()
    }

    /// Input roles and output role of the problem's direction.
    pub fn roles(&self) -> ([TensorRole; 2], TensorRole) {
        self.direction.roles()
    }

    /// The forward convolution that computes this backward-data problem, where one exists: at
    /// stride 1, dX = fwd(dY, W') with W' the filter flipped in space and transposed in
    /// channels, `W'[g][c][z'][y'][x'][kk] = W[g][kk][FZ−1−z'][FY−1−y'][FX−1−x'][c]`. The dual
    /// has input = dY's spatial size (this problem's output), padding `dil·(F−1) − pad`, C and
    /// K swapped (C' = K, K' = C), the same groups, filter, dilation, batch and dtype; its
    /// output is this problem's input. None for other directions, when a stride is not 1 or a
    /// padding exceeds `dil·(F−1)` (the dual would need negative padding).
    ///
    /// The last answer is kept per thread: the gate asks it of one problem for every direct
    /// member it plans, several times each (`auto` admits a whole pool per decision).
    pub fn dgrad_dual(&self) -> Option<Problem> {
        if self.direction != Direction::Dgrad {
            return None;
        }
        thread_local! {
            static LAST: std::cell::Cell<Option<(Problem, Option<Problem>)>> =
                const { std::cell::Cell::new(None) };
        }
        if let Some((p, dual)) = LAST.get() {
            if p == *self {
                return dual;
            }
        }
        let dual = self.dual_of_dgrad();
        LAST.set(Some((*self, dual)));
        dual
    }

    /// [`Problem::dgrad_dual`] of a backward-data problem, computed.
    fn dual_of_dgrad(&self) -> Option<Problem> {
        let mut pad = [0u64; 3];
        for (i, p) in pad.iter_mut().enumerate() {
            let reach = (self.filter[i] - 1) * self.dilation[i];
            if self.stride[i] != 1 || self.pad[i] > reach {
                return None;
            }
            *p = reach - self.pad[i];
        }
        let dual = Problem {
            direction: Direction::Fwd,
            c: self.k,
            k: self.c,
            input: self.output(),
            pad,
            ..*self
        };
        dual.check_geometry().ok()?;
        Some(dual)
    }
}

// Lazy on purpose: an eager `ok_or` builds and drops a `ProblemError` (an enum with heap
// variants, so an out-of-line drop) on every check, and the gate checks the geometry of every
// backward-data dual it plans.
#[allow(clippy::unnecessary_lazy_evaluations)]
fn checked(v: Option<u64>, tensor: &'static str, what: &'static str) -> Result<u64, ProblemError> {
    v.ok_or_else(|| ProblemError::Overflow {
        tensor,
        what,
        limit: "u64",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemm_view_follows_the_runner_roles() {
        for (key, c_role, mnk) in [
            (
                "fwd_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1",
                TensorRole::Y,
                (50, 8, 36),
            ),
            (
                "dgrad_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1",
                TensorRole::X,
                (162, 4, 72),
            ),
            (
                "wgrad_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1",
                TensorRole::W,
                (8, 36, 50),
            ),
        ] {
            let p: Problem = key.parse().unwrap();
            let v = p.gemm_view();
            // C is the direction's output; A and B are its inputs.
            let ([i0, i1], out) = p.roles();
            assert_eq!(v.c, out, "{key}");
            assert_eq!(v.c, c_role, "{key}");
            assert!([i0, i1].contains(&v.a) && [i0, i1].contains(&v.b) && v.a != v.b);
            assert_eq!((v.m, v.n, v.k), mnk, "{key}");
            assert_eq!(p.gemm_mnk(), mnk);
        }
    }

    #[test]
    fn directions_parse_in_both_spellings_and_print_the_token() {
        for (token, alias, d) in [
            ("fwd", "forward", Direction::Fwd),
            ("dgrad", "bwd_data", Direction::Dgrad),
            ("wgrad", "bwd_weight", Direction::Wgrad),
        ] {
            assert_eq!(Direction::parse_any(token), Ok(d));
            assert_eq!(Direction::parse_any(alias), Ok(d));
            assert_eq!(alias.parse::<Direction>(), Ok(d));
            assert_eq!(d.to_string(), token);
            assert_eq!(d.alias(), alias);
            // Problem keys keep their one spelling.
            assert_eq!(Direction::from_token(token), Some(d));
            assert_eq!(Direction::from_token(alias), None);
        }
        let e = Direction::parse_any("backward").unwrap_err();
        let msg = e.to_string();
        for spelling in [
            "\"backward\"",
            "fwd",
            "dgrad",
            "wgrad",
            "forward",
            "bwd_data",
            "bwd_weight",
        ] {
            assert!(msg.contains(spelling), "{msg}");
        }
        assert!(Direction::parse_any("FWD").is_err(), "spellings are exact");
        assert!("forward_bf16_n1_g1_c1_k1_i3_f3_s1_p1_d1"
            .parse::<Problem>()
            .is_err());
    }

    fn p(c: i64, k: i64, g: i64) -> Result<Problem, ProblemError> {
        Problem::new(
            Direction::Fwd,
            DType::Bf16,
            2,
            g,
            c,
            k,
            &[9, 9],
            &[3, 3],
            &[1, 1],
            &[1, 1],
            &[1, 1],
        )
    }

    #[test]
    fn rejects_c_not_divisible() {
        let e = p(16, 32, 3).unwrap_err();
        assert_eq!(
            e,
            ProblemError::NotDivisible {
                field: "C",
                value: 16,
                groups: 3
            }
        );
        let msg = e.to_string();
        assert!(msg.contains("C=16") && msg.contains("G=3"), "{msg}");
    }

    #[test]
    fn a_filter_extent_of_exactly_two_to_the_64_is_refused_not_wrapped() {
        // (4 − 1) · d + 1 = 2^64 for d = (2^64 − 1) / 3: the +1 wrapped to 0 and the key was
        // accepted with an output larger than its input.
        let key = "fwd_f32_n1_g1_c1_k1_i8_f4_s1_p0_d6148914691236517205";
        let e = key.parse::<Problem>().unwrap_err();
        assert!(e.to_string().contains("filter extent"), "{e}");
    }

    #[test]
    fn strides_longer_than_the_padded_input_are_refused() {
        let e = "dgrad_bf16_n1_g1_c8_k8_i1_f1_s1000000000000000000_p0_d1"
            .parse::<Problem>()
            .unwrap_err();
        assert!(
            matches!(
                e,
                ProblemError::StrideTooLarge {
                    stride: 1_000_000_000_000_000_000,
                    padded: 1,
                    ..
                }
            ),
            "{e}"
        );
        // As long as the padded input is allowed (one output).
        let p: Problem = "fwd_f32_n1_g1_c1_k1_i5x5_f3x3_s7x7_p1x1_d1x1"
            .parse()
            .unwrap();
        assert_eq!(p.output(), [1, 1, 1]);
    }

    #[test]
    fn rejects_k_not_divisible() {
        assert!(matches!(
            p(16, 30, 4),
            Err(ProblemError::NotDivisible { field: "K", .. })
        ));
    }

    #[test]
    fn rejects_zero_and_negative() {
        assert!(
            matches!(p(0, 32, 4), Err(ProblemError::NonPositive { ref field, value: 0 }) if field == "C")
        );
        assert!(
            matches!(p(16, 32, -4), Err(ProblemError::NonPositive { ref field, value: -4 }) if field == "G")
        );
        let e = Problem::new(
            Direction::Fwd,
            DType::F32,
            1,
            1,
            1,
            1,
            &[4],
            &[0],
            &[1],
            &[0],
            &[1],
        )
        .unwrap_err();
        assert!(matches!(e, ProblemError::NonPositive { ref field, .. } if field == "filter W"));
        let e = Problem::new(
            Direction::Fwd,
            DType::F32,
            1,
            1,
            1,
            1,
            &[4],
            &[1],
            &[1],
            &[-1],
            &[1],
        )
        .unwrap_err();
        assert!(matches!(e, ProblemError::Negative { ref field, value: -1 } if field == "pad W"));
    }

    #[test]
    fn rejects_rank_mismatch() {
        let e = Problem::new(
            Direction::Fwd,
            DType::F32,
            1,
            1,
            1,
            1,
            &[4, 4],
            &[1],
            &[1, 1],
            &[0, 0],
            &[1, 1],
        )
        .unwrap_err();
        assert!(matches!(
            e,
            ProblemError::Rank {
                field: "filter",
                got: 1,
                expected: 2
            }
        ));
        let e = Problem::new(
            Direction::Fwd,
            DType::F32,
            1,
            1,
            1,
            1,
            &[4, 4, 4, 4],
            &[1, 1, 1, 1],
            &[1, 1, 1, 1],
            &[0, 0, 0, 0],
            &[1, 1, 1, 1],
        )
        .unwrap_err();
        assert!(matches!(e, ProblemError::Rank { field: "input", .. }));
    }

    #[test]
    fn rejects_filter_larger_than_padded_input() {
        // dilated extent (3-1)*4+1 = 9 > 5 + 2*1 = 7
        let e = Problem::new(
            Direction::Fwd,
            DType::F32,
            1,
            1,
            1,
            1,
            &[5, 5],
            &[3, 3],
            &[1, 1],
            &[1, 1],
            &[4, 1],
        )
        .unwrap_err();
        assert!(matches!(
            e,
            ProblemError::FilterTooLarge {
                axis: "H",
                extent: 9,
                padded: 7,
                ..
            }
        ));
    }

    #[test]
    fn rejects_overflowing_sizes() {
        let big = 1i64 << 40;
        let e = Problem::new(
            Direction::Fwd,
            DType::F32,
            big,
            1,
            big,
            1,
            &[1],
            &[1],
            &[1],
            &[0],
            &[1],
        )
        .unwrap_err();
        assert!(
            matches!(e, ProblemError::Overflow { tensor: "X", .. }),
            "{e}"
        );
    }

    #[test]
    fn output_sizes_and_counts() {
        let pr = Problem::new(
            Direction::Fwd,
            DType::Bf16,
            2,
            4,
            16,
            32,
            &[9, 9],
            &[3, 3],
            &[2, 2],
            &[1, 1],
            &[1, 1],
        )
        .unwrap();
        assert_eq!(pr.output(), [1, 5, 5]);
        assert_eq!(pr.dims(TensorRole::X), [2, 1, 9, 9, 4, 4]);
        assert_eq!(pr.dims(TensorRole::W), [4, 8, 1, 3, 3, 4]);
        assert_eq!(pr.dims(TensorRole::Y), [2, 1, 5, 5, 4, 8]);
        // 2 * N * P*Q * K * C/G * R*S
        assert_eq!(pr.flops(), 2.0 * 2.0 * 25.0 * 32.0 * 4.0 * 9.0);
        assert_eq!(pr.min_bytes(), 2.0 * (2592.0 + 1152.0 + 1600.0));
        assert_eq!(pr.gemm_mnk(), (50, 8, 36));
        // dilation 2, 1D, stride 2, pad 2: (33 + 4 - 9)/2 + 1 = 15
        let q = Problem::new(
            Direction::Wgrad,
            DType::F16,
            2,
            8,
            8,
            8,
            &[33],
            &[5],
            &[2],
            &[2],
            &[2],
        )
        .unwrap();
        assert_eq!(q.output(), [1, 1, 15]);
        assert_eq!(q.gemm_mnk(), (1, 5, 30));
        assert!(q.is_depthwise());
    }

    #[test]
    fn the_dgrad_dual_is_a_forward_problem_onto_the_input() {
        for key in [
            "dgrad_bf16_n2_g32_c32_k32_i13x17_f3x3_s1x1_p1x1_d1x1",
            "dgrad_f16_n1_g4_c8_k12_i9x10_f7x5_s1x1_p3x0_d1x1",
            "dgrad_f32_n1_g6_c12_k18_i12x12_f3x3_s1x1_p2x2_d2x2",
            "dgrad_bf16_n2_g8_c8_k16_i40_f5_s1_p0_d1",
            "dgrad_bf16_n1_g8_c16_k16_i4x5x6_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        ] {
            let p: Problem = key.parse().unwrap();
            let d = p.dgrad_dual().unwrap_or_else(|| panic!("{key}: no dual"));
            assert_eq!(d.direction, Direction::Fwd, "{key}");
            // The dual reads dY (this problem's Y) and writes dX (this problem's X).
            assert_eq!(d.output(), p.input, "{key}");
            assert_eq!(d.input, p.output(), "{key}");
            assert_eq!(d.dims(TensorRole::X), p.dims(TensorRole::Y), "{key}");
            assert_eq!(d.dims(TensorRole::Y), p.dims(TensorRole::X), "{key}");
            assert_eq!((d.c, d.k, d.g), (p.k, p.c, p.g), "{key}");
            // Keys round-trip, and the dual of the dual's dgrad is the problem again.
            assert_eq!(d.to_string().parse::<Problem>().unwrap(), d, "{key}");
            let back = d.with_direction(Direction::Dgrad).dgrad_dual().unwrap();
            assert_eq!(back.with_direction(Direction::Dgrad), p, "{key}");
        }
        let d: Problem = "dgrad_bf16_n2_g32_c32_k32_i13x17_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        assert_eq!(
            d.dgrad_dual().unwrap().to_string(),
            "fwd_bf16_n2_g32_c32_k32_i13x17_f3x3_s1x1_p1x1_d1x1"
        );
        // Large padding: 3x3 with pad 2 gives pad' 0 on a 2 larger input.
        let l: Problem = "dgrad_bf16_n1_g8_c8_k8_i5x5_f3x3_s1x1_p2x2_d1x1"
            .parse()
            .unwrap();
        assert_eq!(
            l.dgrad_dual().unwrap().to_string(),
            "fwd_bf16_n1_g8_c8_k8_i7x7_f3x3_s1x1_p0x0_d1x1"
        );
        for key in [
            "dgrad_bf16_n2_g32_c32_k32_i14x14_f3x3_s2x2_p1x1_d1x1", // strided
            "dgrad_bf16_n2_g32_c32_k32_i14x14_f3x3_s1x2_p1x1_d1x1", // one axis strided
            "dgrad_bf16_n1_g8_c8_k8_i5x5_f3x3_s1x1_p3x3_d1x1",      // pad > dil·(F−1)
            "fwd_bf16_n2_g32_c32_k32_i14x14_f3x3_s1x1_p1x1_d1x1",   // not dgrad
        ] {
            let p: Problem = key.parse().unwrap();
            assert_eq!(p.dgrad_dual(), None, "{key}");
        }
    }

    #[test]
    fn roofline_picks_the_slower_bound() {
        let pr = Problem::new(
            Direction::Fwd,
            DType::Bf16,
            32,
            32,
            32,
            32,
            &[112, 112],
            &[3, 3],
            &[1, 1],
            &[1, 1],
            &[1, 1],
        )
        .unwrap();
        let t = pr.roofline_seconds(&DeviceSpec::H200);
        let mem = pr.min_bytes() / 4.8e12;
        let cmp = pr.flops() / 989e12;
        assert_eq!(t, mem.max(cmp));
        assert!(mem > cmp, "depthwise is memory bound");
        assert!((pr.roofline_fraction(&DeviceSpec::H200, 2.0 * t) - 0.5).abs() < 1e-12);
    }
}
