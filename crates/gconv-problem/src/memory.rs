//! Host memory: how much a run of a problem needs, how much the machine can give, and the one
//! check that refuses a problem whose tensors cannot fit before anything is allocated.
//!
//! The check exists because a too-large allocation does not fail cleanly: Rust aborts the
//! process on a failed allocation, and on Linux a reservation larger than the free memory can
//! succeed and the process is killed later while filling it. `gconv run` checks before it
//! allocates its inputs; a sweep checks every problem before any worker is started for it.
//!
//! The limit is host memory on both backends: the inputs, the output and the reference it is
//! verified against live in host memory whether the kernel runs on the CPU or the GPU.

use crate::error::ProblemError;
use crate::problem::Problem;

/// The amount of host memory a check compares against, and where the figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostMemoryLimit {
    /// Bytes that may be used.
    pub bytes: u64,
    /// Where `bytes` comes from, for messages (e.g. `MemAvailable in /proc/meminfo`).
    pub origin: &'static str,
}

impl HostMemoryLimit {
    /// The memory this machine can still give without swapping: `MemAvailable` from
    /// `/proc/meminfo`. `None` where that is unknown (not Linux, unreadable): nothing is refused.
    pub fn available() -> Option<HostMemoryLimit> {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        parse_meminfo(&text).map(|bytes| HostMemoryLimit {
            bytes,
            origin: "MemAvailable in /proc/meminfo",
        })
    }
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Bytes of host memory one run of `problem` needs (an estimate from above): the three tensors
/// in the dtype and their f32 working copies, and with `verify` the f64 reference output and
/// the inputs widened to f64 for it. A sweep always verifies.
pub fn host_bytes_needed(problem: &Problem, verify: bool) -> u64 {
    let ([r0, r1], ro) = problem.roles();
    let e = |r| u128::from(problem.elements(r));
    let (inputs, output) = (e(r0) + e(r1), e(ro));
    let dt = u128::from(problem.dtype.size_bytes());
    let mut need = (inputs + output) * (dt + 4);
    if verify {
        need += (inputs + output) * 8;
    }
    u64::try_from(need).unwrap_or(u64::MAX)
}

/// Refuses `problem` when [`host_bytes_needed`] exceeds `limit` (typed
/// [`ProblemError::HostMemoryLimit`], naming both figures and where the limit comes from).
/// `None` checks nothing.
pub fn check_host_memory(
    problem: &Problem,
    verify: bool,
    limit: Option<HostMemoryLimit>,
) -> Result<(), ProblemError> {
    let Some(limit) = limit else {
        return Ok(());
    };
    let needed = host_bytes_needed(problem, verify);
    if needed > limit.bytes {
        return Err(ProblemError::HostMemoryLimit {
            problem: problem.to_string(),
            needed,
            limit: limit.bytes,
            origin: limit.origin,
            verify,
        });
    }
    Ok(())
}

/// Bytes as GiB with one decimal, for messages.
pub fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HUGE: &str = "fwd_bf16_n4096_g1_c4096_k4096_i512x512_f3x3_s1x1_p1x1_d1x1";

    #[test]
    fn counts_every_tensor_and_the_reference() {
        let p: Problem = "fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1".parse().unwrap();
        // X 1·4·2 = 8, W 3·3·2 = 18, Y 1·4·3 = 12 elements
        assert_eq!(host_bytes_needed(&p, false), 38 * (4 + 4));
        assert_eq!(host_bytes_needed(&p, true), 38 * (4 + 4 + 8));
    }

    #[test]
    fn refuses_what_does_not_fit_and_says_why() {
        let p: Problem = HUGE.parse().unwrap();
        let limit = HostMemoryLimit {
            bytes: 64 << 30,
            origin: "a test limit",
        };
        let e = check_host_memory(&p, true, Some(limit)).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, ProblemError::HostMemoryLimit { .. }), "{msg}");
        for want in [HUGE, "GiB of host memory", "64.0 GiB", "a test limit"] {
            assert!(msg.contains(want), "{msg}");
        }
        assert!(check_host_memory(&p, true, None).is_ok());
        let small: Problem = "fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1".parse().unwrap();
        assert!(check_host_memory(&small, true, Some(limit)).is_ok());
    }

    #[test]
    fn meminfo() {
        let text = "MemTotal:       24000000 kB\nMemFree: 1 kB\nMemAvailable:   23000000 kB\n";
        assert_eq!(parse_meminfo(text), Some(23_000_000 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 5 kB\n"), None);
        assert_eq!(gib(3 << 29), "1.5 GiB");
    }
}
