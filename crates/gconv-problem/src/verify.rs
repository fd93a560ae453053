//! Dtype-aware comparison of a result against the f64 reference.
//!
//! Policy: element i passes when `|out_i - ref_i| <= rtol·|ref_i| + atol`, where
//! `rtol = eps(dtype)` (twice the worst rounding of the stored output) and
//! `atol = eps(dtype)·s/8 + 4·eps(f32)·sqrt(L)·s`, with L the reduction length and
//! `s = max(1, sqrt(L)/3)` the typical magnitude of a sum of L products of inputs uniform in
//! [-1, 1]. The first term covers the output rounding of values near zero, the second the
//! f32 accumulation error. The relative error reported is `|out_i - ref_i| / max(|ref_i|, s)`.

use crate::problem::{DType, Problem};
use crate::tensor::HostTensor;

/// The tolerance for one comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative part.
    pub rtol: f64,
    /// Absolute part.
    pub atol: f64,
    /// Typical magnitude, floor of the relative-error denominator.
    pub scale: f64,
}

impl Tolerance {
    /// Tolerance for a dtype and a reduction length.
    pub fn for_dtype(dtype: DType, reduction_length: u64) -> Tolerance {
        let l = reduction_length.max(1) as f64;
        let scale = (l.sqrt() / 3.0).max(1.0);
        let eps = dtype.epsilon();
        Tolerance {
            rtol: eps,
            atol: eps * scale / 8.0 + 4.0 * f32::EPSILON as f64 * l.sqrt() * scale,
            scale,
        }
    }

    /// Tolerance for the output of a problem.
    pub fn for_problem(p: &Problem) -> Tolerance {
        Tolerance::for_dtype(p.dtype, p.reduction_length())
    }
}

/// Outcome of a comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// Max |out - ref|.
    pub max_abs_err: f64,
    /// Max |out - ref| / max(|ref|, scale).
    pub max_rel_err: f64,
    /// Elements outside the tolerance (NaN counts as outside).
    pub failures: usize,
    /// Elements compared.
    pub count: usize,
    /// Index of the worst element relative to its tolerance.
    pub worst_index: usize,
    /// The tolerance used.
    pub tolerance: Tolerance,
}

impl Comparison {
    /// True when every element is inside the tolerance and the lengths matched.
    pub fn passed(&self) -> bool {
        self.failures == 0
    }
}

/// Compares a result with reference values. A length mismatch counts every element as failed.
pub fn compare(out: &HostTensor, reference: &[f64], tol: Tolerance) -> Comparison {
    let got = out.to_f64();
    if got.len() != reference.len() {
        return Comparison {
            max_abs_err: f64::INFINITY,
            max_rel_err: f64::INFINITY,
            failures: reference.len().max(got.len()),
            count: reference.len(),
            worst_index: 0,
            tolerance: tol,
        };
    }
    let mut c = Comparison {
        max_abs_err: 0.0,
        max_rel_err: 0.0,
        failures: 0,
        count: got.len(),
        worst_index: 0,
        tolerance: tol,
    };
    let mut worst = -1.0f64;
    for (i, (&o, &r)) in got.iter().zip(reference).enumerate() {
        let d = (o - r).abs();
        let bound = tol.rtol * r.abs() + tol.atol;
        if d.is_nan() || !o.is_finite() {
            c.failures += 1;
            c.max_abs_err = f64::INFINITY;
            c.max_rel_err = f64::INFINITY;
            c.worst_index = i;
            worst = f64::INFINITY;
            continue;
        }
        if d > bound {
            c.failures += 1;
        }
        c.max_abs_err = c.max_abs_err.max(d);
        c.max_rel_err = c.max_rel_err.max(d / r.abs().max(tol.scale));
        if d / bound > worst {
            worst = d / bound;
            c.worst_index = i;
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_a_single_wrong_element() {
        let r: Vec<f64> = (0..64).map(|i| i as f64 * 0.25 - 3.0).collect();
        let t = Tolerance::for_dtype(DType::Bf16, 9);
        let ok = compare(&HostTensor::from_f64(DType::Bf16, &r), &r, t);
        assert!(ok.passed(), "{ok:?}");
        let mut bad = r.clone();
        bad[17] += 0.5;
        let c = compare(&HostTensor::from_f64(DType::Bf16, &bad), &r, t);
        assert_eq!(c.failures, 1);
        assert_eq!(c.worst_index, 17);
        assert!((c.max_abs_err - 0.5).abs() < 1e-12);
    }

    #[test]
    fn bf16_rounding_passes_but_f16_tolerance_is_tighter() {
        let r = vec![1.0 + 1.0 / 300.0; 4];
        let out = HostTensor::from_f64(DType::Bf16, &r);
        assert!(compare(&out, &r, Tolerance::for_dtype(DType::Bf16, 9)).passed());
        assert!(!compare(&out, &r, Tolerance::for_dtype(DType::F32, 9)).passed());
    }

    #[test]
    fn nan_and_length_mismatch_fail() {
        let r = vec![0.0; 4];
        let out = HostTensor::from_f64(DType::F32, &[0.0, f64::NAN, 0.0, 0.0]);
        assert_eq!(
            compare(&out, &r, Tolerance::for_dtype(DType::F32, 1)).failures,
            1
        );
        let out = HostTensor::from_f64(DType::F32, &[0.0; 3]);
        assert!(!compare(&out, &r, Tolerance::for_dtype(DType::F32, 1)).passed());
    }
}
