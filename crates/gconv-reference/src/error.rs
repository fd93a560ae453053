//! The typed error of this crate: bad runner inputs for the reference and the CPU backend,
//! unknown variant names, and outputs too large to allocate.

use gconv_problem::DType;
use thiserror::Error;

/// Every way the reference or the CPU backend can refuse a request.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RefError {
    /// An input tensor has the wrong element count for the problem.
    #[error("tensor {tensor} of problem {problem} has {got} elements, expected {expected}")]
    Length {
        /// Runner name of the tensor (`X`, `W` or `dY`).
        tensor: &'static str,
        /// The problem key.
        problem: String,
        /// Elements required by the problem.
        expected: u64,
        /// Elements given.
        got: usize,
    },
    /// An input tensor has a dtype other than the problem's.
    #[error("tensor {tensor} of problem {problem} is {got}, expected {expected}")]
    DType {
        /// Runner name of the tensor.
        tensor: &'static str,
        /// The problem key.
        problem: String,
        /// The problem dtype.
        expected: DType,
        /// The tensor dtype.
        got: DType,
    },
    /// The output tensor (or a work buffer) cannot be allocated.
    #[error("cannot allocate {elements} elements for {what} of problem {problem}")]
    TooLarge {
        /// What was being allocated (e.g. `output Y`).
        what: &'static str,
        /// The problem key.
        problem: String,
        /// The element count asked for.
        elements: u64,
    },
    /// A `Problem` built by hand (its fields are public) that validation would reject.
    #[error("invalid problem {problem}: {reason}")]
    Invalid {
        /// The problem (its key, or its fields when it has no key).
        problem: String,
        /// Why it is invalid.
        reason: String,
    },
    /// A CPU variant name that does not exist.
    #[error("unknown CPU variant {name:?} (expected one of: {expected})")]
    UnknownVariant {
        /// The name given.
        name: String,
        /// The valid names, comma separated.
        expected: String,
    },
    /// A CPU variant that cannot run the problem.
    #[error("CPU variant {variant} cannot run problem {problem}")]
    CannotRun {
        /// The variant name.
        variant: &'static str,
        /// The problem key.
        problem: String,
    },
}

/// The CPU backend reports through the same error type as the reference.
pub type CpuError = RefError;

/// Runner name of a tensor role as seen by a direction (`dY` for the Y role in the backward
/// directions).
pub(crate) fn runner_name(
    direction: gconv_problem::Direction,
    role: gconv_problem::TensorRole,
) -> &'static str {
    use gconv_problem::{Direction, TensorRole};
    match (direction, role) {
        (Direction::Fwd, TensorRole::Y) => "Y",
        (_, TensorRole::Y) => "dY",
        (Direction::Dgrad, TensorRole::X) => "dX",
        (Direction::Wgrad, TensorRole::W) => "dW",
        (_, TensorRole::X) => "X",
        (_, TensorRole::W) => "W",
    }
}

/// Re-validates a problem whose public fields may have been set by hand: it must be exactly
/// what `ProblemSpec::build` makes of its own key fields (rank 1–3, positive sizes, C and K
/// divisible by G, neutral unused slots, a fitting filter, no overflow).
pub(crate) fn check_problem(problem: &gconv_problem::Problem) -> Result<(), RefError> {
    let invalid = |problem: String, reason: String| RefError::Invalid { problem, reason };
    if !(1..=3).contains(&problem.rank) {
        return Err(invalid(
            format!("{problem:?}"),
            format!("rank {} is not 1, 2 or 3", problem.rank),
        ));
    }
    let int = |v: u64| i64::try_from(v).unwrap_or(-1);
    let list = |v: [u64; 3]| problem.spatial(v).into_iter().map(int).collect::<Vec<_>>();
    let spec = gconv_problem::problem::ProblemSpec {
        direction: problem.direction,
        dtype: problem.dtype,
        n: int(problem.n),
        g: int(problem.g),
        c: int(problem.c),
        k: int(problem.k),
        input: list(problem.input),
        filter: list(problem.filter),
        stride: list(problem.stride),
        pad: list(problem.pad),
        dilation: list(problem.dilation),
    };
    match spec.build() {
        Err(e) => Err(invalid(format!("{problem:?}"), e.to_string())),
        Ok(rebuilt) if rebuilt != *problem => Err(invalid(
            format!("{problem:?}"),
            "unused leading spatial slots must hold the neutral values (size 1, filter 1, \
             stride 1, pad 0, dilation 1)"
                .to_string(),
        )),
        Ok(_) => Ok(()),
    }
}

/// A zero-filled vector of `len` elements, or [`RefError::TooLarge`] when it cannot be allocated.
pub(crate) fn try_zeroed<T: Clone + Default>(
    len: u64,
    what: &'static str,
    problem: &gconv_problem::Problem,
) -> Result<Vec<T>, RefError> {
    let too_large = || RefError::TooLarge {
        what,
        problem: problem.to_string(),
        elements: len,
    };
    let n = usize::try_from(len).map_err(|_| too_large())?;
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| too_large())?;
    v.resize(n, T::default());
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gconv_problem::{Direction, TensorRole};

    #[test]
    fn runner_names_follow_the_direction() {
        assert_eq!(runner_name(Direction::Fwd, TensorRole::Y), "Y");
        assert_eq!(runner_name(Direction::Dgrad, TensorRole::Y), "dY");
        assert_eq!(runner_name(Direction::Dgrad, TensorRole::X), "dX");
        assert_eq!(runner_name(Direction::Wgrad, TensorRole::W), "dW");
        assert_eq!(runner_name(Direction::Wgrad, TensorRole::X), "X");
    }

    #[test]
    fn hand_built_invalid_problems_are_rejected() {
        let p: gconv_problem::Problem = "fwd_f32_n1_g2_c4_k4_i5x5_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        assert_eq!(check_problem(&p), Ok(()));
        let bad = [
            gconv_problem::Problem { rank: 4, ..p },
            gconv_problem::Problem { rank: 0, ..p },
            gconv_problem::Problem { g: 0, ..p },
            gconv_problem::Problem { c: 5, ..p },
            gconv_problem::Problem {
                stride: [1, 0, 1],
                ..p
            },
            gconv_problem::Problem {
                filter: [1, 9, 3],
                ..p
            },
            gconv_problem::Problem {
                input: [2, 5, 5],
                ..p
            },
            gconv_problem::Problem { n: u64::MAX, ..p },
        ];
        for b in bad {
            let e = check_problem(&b).unwrap_err();
            assert!(matches!(e, RefError::Invalid { .. }), "{b:?}: {e}");
        }
        let e = check_problem(&gconv_problem::Problem { c: 5, ..p }).unwrap_err();
        assert!(e.to_string().contains("C=5"), "{e}");
    }

    #[test]
    fn huge_allocation_is_an_error_not_an_abort() {
        let p: gconv_problem::Problem = "fwd_f32_n1_g1_c1_k1_i4_f3_s1_p1_d1".parse().unwrap();
        let e = try_zeroed::<f64>(u64::MAX / 4, "output Y", &p).unwrap_err();
        assert!(matches!(e, RefError::TooLarge { elements, .. } if elements == u64::MAX / 4));
        assert!(e.to_string().contains("output Y"), "{e}");
        assert_eq!(try_zeroed::<f64>(3, "output Y", &p).unwrap(), vec![0.0; 3]);
    }
}
