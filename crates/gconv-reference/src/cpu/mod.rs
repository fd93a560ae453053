//! The CPU backend: the embedded default for users without a GPU. Multi-threaded (rayon),
//! f32 accumulation; inputs and outputs are [`HostTensor`]s in the problem dtype (widened to
//! f32 once, rounded once to the dtype at the end).
//!
//! Named variants ([`CpuVariant`]) share the runner contract of the reference:
//! - `cpu_direct`: direct loops vectorised across groups (depthwise, tiny C/G, many groups);
//! - `cpu_im2col_gemm`: per-group lowering to `matrixmultiply::sgemm` (dense and grouped);
//! - `cpu_planted_wrong`: deliberately wrong (drops the last filter tap); it exists only to
//!   prove that verification catches wrong kernels, and is in neither [`CpuVariant::POOL`]
//!   nor [`run_auto`].

mod direct;
mod gemm;
mod simd;

use crate::error::{check_problem, runner_name, try_zeroed, CpuError};
use crate::geometry::Geom;
use gconv_problem::{DType, Direction, HostTensor, Problem, TensorData};
use half::{bf16, f16};
use rayon::prelude::*;
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// A CPU convolution implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CpuVariant {
    /// Direct loops over pixels and taps, vectorised across groups.
    Direct,
    /// im2col (or the tensor itself for 1×1 unit-stride) per group + `sgemm`.
    Im2colGemm,
    /// The direct kernel with the last filter tap dropped: wrong on purpose, for testing that
    /// verification detects wrong results. Never chosen automatically.
    PlantedWrong,
    /// Aborts the process: a planted crash, for testing that a sweep isolates a kernel that
    /// kills its worker (the row becomes `crashed` and the sweep goes on). Never chosen
    /// automatically and refused by `gconv run`.
    PlantedCrash,
}

/// Largest C/G for which [`run_auto`] picks [`CpuVariant::Direct`].
pub const DIRECT_MAX_CPG: u64 = 8;

/// Fewest groups for which [`run_auto`] picks [`CpuVariant::Direct`] (its vectors run across
/// groups).
pub const DIRECT_MIN_GROUPS: u64 = 8;

impl CpuVariant {
    /// Every variant, the planted ones included.
    pub const ALL: [CpuVariant; 4] = [
        CpuVariant::Direct,
        CpuVariant::Im2colGemm,
        CpuVariant::PlantedWrong,
        CpuVariant::PlantedCrash,
    ];

    /// The correct variants: the pool any selection draws from.
    pub const POOL: [CpuVariant; 2] = [CpuVariant::Direct, CpuVariant::Im2colGemm];

    /// The canonical name (`cpu_direct`, `cpu_im2col_gemm`, `cpu_planted_wrong`,
    /// `cpu_planted_crash`).
    pub fn name(self) -> &'static str {
        match self {
            CpuVariant::Direct => "cpu_direct",
            CpuVariant::Im2colGemm => "cpu_im2col_gemm",
            CpuVariant::PlantedWrong => "cpu_planted_wrong",
            CpuVariant::PlantedCrash => "cpu_planted_crash",
        }
    }

    /// Whether this variant runs `problem`. Every variant handles every valid problem (all
    /// directions, dtypes, ranks, groups, strides, pads and dilations).
    pub fn can_run(&self, problem: &Problem) -> bool {
        let _ = problem;
        true
    }

    /// True for the deliberately wrong variant [`CpuVariant::PlantedWrong`] (it drops the
    /// last filter tap).
    pub fn is_planted(self) -> bool {
        self == CpuVariant::PlantedWrong
    }

    /// True for the test fixtures ([`CpuVariant::PlantedWrong`], [`CpuVariant::PlantedCrash`]),
    /// which exist only to show that verification and crash isolation work.
    pub fn is_fixture(self) -> bool {
        matches!(self, CpuVariant::PlantedWrong | CpuVariant::PlantedCrash)
    }
}

impl fmt::Display for CpuVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CpuVariant {
    type Err = CpuError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CpuVariant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| CpuError::UnknownVariant {
                name: s.to_string(),
                expected: CpuVariant::ALL.map(|v| v.name()).join(", "),
            })
    }
}

/// The variant [`run_auto`] uses: [`CpuVariant::Direct`] when C/G ≤ [`DIRECT_MAX_CPG`] and
/// G ≥ [`DIRECT_MIN_GROUPS`] (depthwise, channel multipliers and tiny groups: a per-group GEMM
/// with so few channels is mostly packing overhead, while the direct kernel vectorises across
/// the groups), otherwise [`CpuVariant::Im2colGemm`] (dense, grouped with wider groups, and
/// problems with too few groups to fill a vector).
///
/// The thresholds come from measurements on model-zoo layers (see the crate's
/// `cpu_figures` example): at C/G = 4 and 8 with 32 groups the direct kernel ran 2–6× faster
/// than the GEMM path, at C/G = 16 the GEMM path was ahead or even.
pub fn choose(problem: &Problem) -> CpuVariant {
    if problem.cpg() <= DIRECT_MAX_CPG && problem.g >= DIRECT_MIN_GROUPS {
        CpuVariant::Direct
    } else {
        CpuVariant::Im2colGemm
    }
}

fn check_input(
    problem: &Problem,
    role: gconv_problem::TensorRole,
    t: &HostTensor,
) -> Result<(), CpuError> {
    if t.dtype() != problem.dtype {
        return Err(CpuError::DType {
            tensor: runner_name(problem.direction, role),
            problem: problem.to_string(),
            expected: problem.dtype,
            got: t.dtype(),
        });
    }
    crate::reference::check_len(problem, role, t.len())
}

/// Widens a tensor to f32 (borrowed when it already is f32).
fn widen(t: &HostTensor) -> Cow<'_, [f32]> {
    match &t.data {
        TensorData::F32(v) => Cow::Borrowed(v),
        TensorData::F16(v) => Cow::Owned(v.par_iter().map(|x| x.to_f32()).collect()),
        TensorData::Bf16(v) => Cow::Owned(v.par_iter().map(|x| x.to_f32()).collect()),
    }
}

/// Rounds f32 results to the dtype (round to nearest even).
fn narrow(dtype: DType, v: Vec<f32>) -> HostTensor {
    let data = match dtype {
        DType::F32 => TensorData::F32(v),
        DType::F16 => TensorData::F16(v.par_iter().map(|&x| f16::from_f32(x)).collect()),
        DType::Bf16 => TensorData::Bf16(v.par_iter().map(|&x| bf16::from_f32(x)).collect()),
    };
    HostTensor { data }
}

/// Runs `variant` on f32 runner inputs (`problem.direction.roles()` order) and returns the f32
/// output, without rounding to the problem dtype.
///
/// Errors: [`CpuError::Invalid`] for a hand-built problem that validation rejects,
/// [`CpuError::Length`] for an input of the wrong size, [`CpuError::CannotRun`],
/// [`CpuError::TooLarge`] when the output cannot be allocated.
pub fn run_f32(
    variant: CpuVariant,
    problem: &Problem,
    in0: &[f32],
    in1: &[f32],
) -> Result<Vec<f32>, CpuError> {
    check_problem(problem)?;
    let ([r0, r1], out_role) = problem.direction.roles();
    crate::reference::check_len(problem, r0, in0.len())?;
    crate::reference::check_len(problem, r1, in1.len())?;
    if !variant.can_run(problem) {
        return Err(CpuError::CannotRun {
            variant: variant.name(),
            problem: problem.to_string(),
        });
    }
    let what = match problem.direction {
        Direction::Fwd => "output Y",
        Direction::Dgrad => "output dX",
        Direction::Wgrad => "output dW",
    };
    let mut out = try_zeroed::<f32>(problem.elements(out_role), what, problem)?;
    if variant == CpuVariant::PlantedCrash {
        eprintln!("cpu_planted_crash: aborting the process on purpose (crash-isolation fixture)");
        std::process::abort();
    }
    let g = Geom::new(problem);
    let planted = variant.is_planted();
    match (variant, problem.direction) {
        (CpuVariant::Im2colGemm, Direction::Fwd) => {
            gemm::fwd(&g, in0, in1, &mut out, gemm::COL_BUDGET)
        }
        (CpuVariant::Im2colGemm, Direction::Dgrad) => {
            gemm::dgrad(&g, in0, in1, &mut out, gemm::COL_BUDGET)
        }
        (CpuVariant::Im2colGemm, Direction::Wgrad) => {
            gemm::wgrad(&g, in0, in1, &mut out, gemm::COL_BUDGET)
        }
        (_, Direction::Fwd) => direct::fwd(&g, in0, in1, &mut out, planted),
        (_, Direction::Dgrad) => direct::dgrad(&g, in0, in1, &mut out, planted),
        (_, Direction::Wgrad) => direct::wgrad(&g, in0, in1, &mut out, planted),
    }
    Ok(out)
}

/// Runs `variant` on runner inputs in the problem dtype (`problem.direction.roles()` order:
/// fwd X, W; dgrad dY, W; wgrad X, dY) and returns the output (Y, dX or dW) in the problem dtype.
///
/// Errors: [`CpuError::Invalid`], [`CpuError::DType`] or [`CpuError::Length`] for a wrong
/// input, [`CpuError::CannotRun`], [`CpuError::TooLarge`].
pub fn run(
    variant: CpuVariant,
    problem: &Problem,
    in0: &HostTensor,
    in1: &HostTensor,
) -> Result<HostTensor, CpuError> {
    check_problem(problem)?;
    let ([r0, r1], _) = problem.direction.roles();
    check_input(problem, r0, in0)?;
    check_input(problem, r1, in1)?;
    let out = run_f32(variant, problem, &widen(in0), &widen(in1))?;
    Ok(narrow(problem.dtype, out))
}

/// Runs the variant [`choose`] picks for `problem`.
pub fn run_auto(
    problem: &Problem,
    in0: &HostTensor,
    in1: &HostTensor,
) -> Result<HostTensor, CpuError> {
    run(choose(problem), problem, in0, in1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gconv_problem::TensorRole;

    fn prob(key: &str) -> Problem {
        key.parse().unwrap_or_else(|e| panic!("{key}: {e}"))
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_errors() {
        for v in CpuVariant::ALL {
            assert_eq!(v.name().parse::<CpuVariant>().unwrap(), v);
            assert_eq!(v.to_string(), v.name());
        }
        let e = "cpu_fast".parse::<CpuVariant>().unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("\"cpu_fast\"") && msg.contains("cpu_im2col_gemm"),
            "{msg}"
        );
    }

    #[test]
    fn pool_excludes_the_planted_variants() {
        assert!(CpuVariant::POOL.iter().all(|v| !v.is_fixture()));
        assert_eq!(CpuVariant::POOL.len() + 2, CpuVariant::ALL.len());
        assert!(CpuVariant::PlantedWrong.is_planted());
        assert!(CpuVariant::PlantedCrash.is_fixture());
    }

    #[test]
    fn choose_follows_the_documented_rule() {
        let direct = [
            "fwd_bf16_n1_g32_c32_k32_i8x8_f3x3_s1x1_p1x1_d1x1", // depthwise
            "dgrad_bf16_n1_g8_c8_k32_i8x8_f3x3_s1x1_p1x1_d1x1", // multiplier 4
            "wgrad_f32_n1_g8_c32_k32_i8x8_f3x3_s1x1_p1x1_d1x1", // C/G = 4
            "fwd_f16_n1_g32_c256_k256_i8x8_f3x3_s1x1_p1x1_d1x1", // C/G = 8
        ];
        let gemm = [
            "fwd_f16_n1_g4_c32_k32_i8x8_f3x3_s1x1_p1x1_d1x1", // C/G = 8 but 4 groups
            "fwd_f32_n1_g4_c4_k4_i8x8_f3x3_s1x1_p1x1_d1x1",   // depthwise, 4 groups
            "fwd_f32_n1_g32_c512_k512_i8x8_f3x3_s1x1_p1x1_d1x1", // C/G = 16
            "fwd_f32_n1_g1_c3_k64_i32x32_f7x7_s2x2_p3x3_d1x1", // dense stem
            "fwd_f32_n1_g1_c16_k16_i8x8_f1x1_s1x1_p0x0_d1x1", // dense 1x1
        ];
        for key in direct {
            assert_eq!(choose(&prob(key)), CpuVariant::Direct, "{key}");
        }
        for key in gemm {
            assert_eq!(choose(&prob(key)), CpuVariant::Im2colGemm, "{key}");
        }
    }

    #[test]
    fn wrong_dtype_and_length_are_typed_errors() {
        let p = prob("wgrad_bf16_n1_g2_c4_k4_i5x5_f3x3_s1x1_p1x1_d1x1");
        let x = HostTensor::random_for(&p, TensorRole::X, 1);
        let dy = HostTensor::random_for(&p, TensorRole::Y, 1);
        let dy32 = HostTensor::random(DType::F32, dy.len(), 1);
        let e = run(CpuVariant::Direct, &p, &x, &dy32).unwrap_err();
        assert_eq!(
            e,
            CpuError::DType {
                tensor: "dY",
                problem: p.to_string(),
                expected: DType::Bf16,
                got: DType::F32
            }
        );
        assert!(e.to_string().contains("f32") && e.to_string().contains("bf16"));
        let short = HostTensor::random(DType::Bf16, x.len() - 1, 1);
        let e = run_auto(&p, &short, &dy).unwrap_err();
        assert!(matches!(e, CpuError::Length { tensor: "X", got, .. } if got == x.len() - 1));
        let e = run_f32(CpuVariant::Im2colGemm, &p, &x.to_f32(), &[0.0; 3]).unwrap_err();
        assert!(matches!(
            e,
            CpuError::Length {
                tensor: "dY",
                got: 3,
                ..
            }
        ));
        assert!(run(CpuVariant::Im2colGemm, &p, &x, &dy).is_ok());
        let hand_built = Problem {
            stride: [1, 0, 1],
            ..p
        };
        let e = run(CpuVariant::Direct, &hand_built, &x, &dy).unwrap_err();
        assert!(matches!(e, CpuError::Invalid { .. }), "{e}");
    }

    #[test]
    fn f32_inputs_are_borrowed_and_results_rounded_once() {
        let t = HostTensor::from_f64(DType::F32, &[1.5, -2.0]);
        assert!(matches!(widen(&t), Cow::Borrowed(_)));
        let h = HostTensor::from_f64(DType::Bf16, &[1.5, -2.0]);
        assert_eq!(widen(&h).as_ref(), &[1.5f32, -2.0]);
        // 1 + 2^-9 rounds to 1 in bf16 (8 significant bits) and stays exact in f16.
        let v = vec![1.0 + 2f32.powi(-9)];
        assert_eq!(narrow(DType::Bf16, v.clone()).to_f64(), vec![1.0]);
        assert_eq!(narrow(DType::F16, v).to_f64(), vec![1.0 + 2f64.powi(-9)]);
    }
}
