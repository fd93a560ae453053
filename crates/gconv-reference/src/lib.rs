//! CPU convolution for gconv: the f64 reference that is the project's ground truth
//! ([`reference()`]) and the multi-threaded f32 CPU backend for users without a GPU ([`cpu`]).
//!
//! Both take runner inputs in `problem.direction.roles()` order (fwd: X, W; dgrad: dY, W;
//! wgrad: X, dY) in the gconv layouts (see `gconv_problem`) and return the output tensor (Y, dX or dW).

pub mod cpu;
pub mod error;
mod geometry;
pub mod reference;

pub use cpu::{run, run_auto, CpuVariant};
pub use error::{CpuError, RefError};
pub use reference::{reference, reference_tensors};

use gconv_problem::Problem;

/// Throughput in GFLOP/s of one run of `problem` that took `seconds` (0 for a non-positive or
/// non-finite time).
pub fn gflops(problem: &Problem, seconds: f64) -> f64 {
    if seconds > 0.0 && seconds.is_finite() {
        problem.flops() / seconds / 1e9
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gflops_divides_flops_by_time() {
        let p: Problem = "fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1".parse().unwrap();
        // 2·N·Wo·K·(C/G)·taps = 2·1·4·3·2·3 = 144 FLOP.
        assert_eq!(p.flops(), 144.0);
        assert!((gflops(&p, 1e-6) - 0.144).abs() < 1e-12);
        assert_eq!(gflops(&p, 0.0), 0.0);
        assert_eq!(gflops(&p, f64::NAN), 0.0);
    }
}
