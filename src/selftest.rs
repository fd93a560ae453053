//! `gconv selftest`: the correctness matrix of DESIGN.md §5 — every direction × dtype × group
//! regime (dense, grouped, small C/G, depthwise, channel multiplier) × edge case (odd channels,
//! G not a power of two, stride > filter, large pad, dilation, 1×1, N = 1, 1D, 3D) — run on the
//! CPU backend (default) or the GPU (`--gpu`) and compared with the reference.

use anyhow::Result;
use clap::Args;
use gconv_problem::{compare, DType, Direction, HostTensor, Problem, Tolerance};
use gconv_reference::{cpu, reference};
use std::process::ExitCode;

/// Arguments of `gconv selftest`.
#[derive(Args, Debug)]
pub struct SelftestArgs {
    /// Run the GPU kernels (reference and generated families) instead of the CPU backend.
    #[arg(long)]
    pub gpu: bool,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Print a line for every case, not only the failing ones.
    #[arg(long)]
    pub verbose: bool,
}

/// A group regime of the matrix: (name, G, C, K) for a base channel count.
fn regimes() -> Vec<(&'static str, i64, i64, i64)> {
    vec![
        ("dense", 1, 16, 24),
        ("grouped", 4, 32, 32),
        ("small_cpg", 8, 16, 16),
        ("depthwise", 12, 12, 12),
        ("chan_mult", 6, 6, 12),
    ]
}

/// Edge cases: (name, N, G, C, K, input, filter, stride, pad, dilation).
type Edge = (
    &'static str,
    i64,
    i64,
    i64,
    i64,
    Vec<i64>,
    Vec<i64>,
    Vec<i64>,
    Vec<i64>,
    Vec<i64>,
);

fn edges() -> Vec<Edge> {
    vec![
        (
            "odd_channels",
            2,
            2,
            6,
            10,
            vec![7, 6],
            vec![3, 3],
            vec![1, 1],
            vec![1, 1],
            vec![1, 1],
        ),
        (
            "g3",
            2,
            3,
            12,
            9,
            vec![6, 7],
            vec![3, 3],
            vec![1, 1],
            vec![1, 1],
            vec![1, 1],
        ),
        (
            "stride_gt_filter",
            2,
            4,
            16,
            16,
            vec![9, 9],
            vec![2, 2],
            vec![3, 3],
            vec![0, 0],
            vec![1, 1],
        ),
        (
            "large_pad",
            1,
            2,
            8,
            8,
            vec![5, 5],
            vec![3, 3],
            vec![1, 1],
            vec![3, 3],
            vec![1, 1],
        ),
        (
            "dilation",
            2,
            4,
            16,
            16,
            vec![9, 10],
            vec![3, 3],
            vec![1, 1],
            vec![2, 2],
            vec![2, 2],
        ),
        (
            "pointwise",
            2,
            2,
            32,
            16,
            vec![5, 6],
            vec![1, 1],
            vec![1, 1],
            vec![0, 0],
            vec![1, 1],
        ),
        (
            "strided_s2",
            2,
            4,
            16,
            32,
            vec![9, 9],
            vec![3, 3],
            vec![2, 2],
            vec![1, 1],
            vec![1, 1],
        ),
        (
            "n1",
            1,
            8,
            64,
            64,
            vec![6, 6],
            vec![3, 3],
            vec![1, 1],
            vec![1, 1],
            vec![1, 1],
        ),
        (
            "rank1",
            2,
            8,
            8,
            8,
            vec![33],
            vec![5],
            vec![2],
            vec![2],
            vec![2],
        ),
        (
            "rank3",
            1,
            2,
            4,
            6,
            vec![5, 6, 7],
            vec![3, 3, 3],
            vec![1, 1, 1],
            vec![1, 1, 1],
            vec![1, 1, 1],
        ),
        (
            "rank3_dw_strided",
            2,
            8,
            8,
            8,
            vec![6, 7, 7],
            vec![3, 3, 3],
            vec![2, 2, 2],
            vec![1, 1, 1],
            vec![1, 1, 1],
        ),
        (
            "asym_7x1",
            2,
            4,
            16,
            8,
            vec![9, 8],
            vec![7, 1],
            vec![1, 1],
            vec![3, 0],
            vec![1, 1],
        ),
    ]
}

/// The problems of the correctness matrix, each with a case label.
pub fn matrix() -> Vec<(String, Problem)> {
    let mut out = Vec::new();
    for dir in Direction::ALL {
        for dt in DType::ALL {
            for (name, g, c, k) in regimes() {
                if let Ok(p) = Problem::new(
                    dir,
                    dt,
                    2,
                    g,
                    c,
                    k,
                    &[8, 7],
                    &[3, 3],
                    &[1, 1],
                    &[1, 1],
                    &[1, 1],
                ) {
                    out.push((name.to_string(), p));
                }
            }
            for (name, n, g, c, k, i, f, s, p, d) in edges() {
                if let Ok(pr) = Problem::new(dir, dt, n, g, c, k, &i, &f, &s, &p, &d) {
                    out.push((name.to_string(), pr));
                }
            }
        }
    }
    out
}

/// Runs the command.
pub fn run(a: SelftestArgs) -> Result<ExitCode> {
    if a.gpu {
        anyhow::bail!("--gpu: the CUDA backend is not available in this build");
    }
    let cases = matrix();
    let mut passed = 0usize;
    let mut failed = 0usize;
    for (label, p) in &cases {
        let ([r0, r1], _) = p.roles();
        let in0 = HostTensor::random_for(p, r0, a.seed);
        let in1 = HostTensor::random_for(p, r1, a.seed);
        let want = reference::reference_tensors(p, &in0, &in1)?;
        let tol = Tolerance::for_problem(p);
        for v in &cpu::CpuVariant::POOL {
            if !v.can_run(p) {
                continue;
            }
            let line = match cpu::run(*v, p, &in0, &in1) {
                Ok(out) => {
                    let c = compare(&out, &want, tol);
                    let ok = c.passed();
                    let msg = format!(
                        "{} {:<18} {:<16} {}  max_abs {:.2e} max_rel {:.2e}",
                        if ok { "ok  " } else { "FAIL" },
                        label,
                        v.name(),
                        p,
                        c.max_abs_err,
                        c.max_rel_err
                    );
                    (ok, msg)
                }
                Err(e) => (
                    false,
                    format!("FAIL {label:<18} {:<16} {p}  error: {e}", v.name()),
                ),
            };
            if line.0 {
                passed += 1;
            } else {
                failed += 1;
            }
            if !line.0 || a.verbose {
                println!("{}", line.1);
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(if failed == 0 && passed > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
