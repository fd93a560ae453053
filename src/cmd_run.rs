//! `gconv run`: one convolution on a backend, with timing and optional verification.

use crate::backend::BackendChoice;
use anyhow::{Context, Result};
use clap::Args;
use gconv_problem::{compare, DeviceSpec, HostTensor, Problem, Tolerance};
use gconv_reference::cpu;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `gconv run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Problem key, e.g. fwd_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1.
    #[arg(long)]
    pub problem: String,
    /// Backend.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Kernel: a canonical kernel name, or `auto` for the built-in selection rule.
    #[arg(long, default_value = "auto")]
    pub kernel: String,
    /// Compare the result with the reference and print PASS/FAIL (exit 1 on FAIL).
    #[arg(long)]
    pub verify: bool,
    /// Timed iterations (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub iters: u32,
    /// Seed of the random inputs (uniform in [-1, 1), rounded to the dtype).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Runs the command.
pub fn run(a: RunArgs) -> Result<ExitCode> {
    let problem: Problem = a
        .problem
        .parse()
        .with_context(|| format!("invalid --problem {:?}", a.problem))?;
    if a.iters == 0 {
        anyhow::bail!("--iters must be at least 1");
    }
    let ([r0, r1], _) = problem.roles();
    let in0 = HostTensor::random_for(&problem, r0, a.seed);
    let in1 = HostTensor::random_for(&problem, r1, a.seed);
    println!("problem  {problem}");
    let (backend_name, out, times) = match a.backend {
        BackendChoice::Cpu | BackendChoice::Auto => {
            if a.backend == BackendChoice::Auto {
                println!(
                    "note     --backend auto: using the CPU backend (CUDA backend not built in)"
                );
            }
            let variant = if a.kernel == "auto" {
                cpu::choose(&problem)
            } else {
                a.kernel
                    .parse::<cpu::CpuVariant>()
                    .map_err(|e| anyhow::anyhow!("{e}"))?
            };
            let mut times = Vec::new();
            let mut out = None;
            for _ in 0..a.iters {
                let t = Instant::now();
                let o = cpu::run(variant, &problem, &in0, &in1)?;
                times.push(t.elapsed().as_secs_f64());
                out = Some(o);
            }
            (
                format!("cpu ({})", variant.name()),
                out.context("no iterations ran")?,
                times,
            )
        }
        BackendChoice::Cuda => anyhow::bail!("the CUDA backend is not available in this build"),
    };
    report(&problem, &backend_name, &times);
    if a.verify {
        let reference = gconv_reference::reference::reference_tensors(&problem, &in0, &in1)?;
        let c = compare(&out, &reference, Tolerance::for_problem(&problem));
        println!(
            "verify   max_abs_err {:.3e}  max_rel_err {:.3e}  ({} of {} elements outside tolerance rtol {:.1e} atol {:.1e})",
            c.max_abs_err, c.max_rel_err, c.failures, c.count, c.tolerance.rtol, c.tolerance.atol
        );
        if c.passed() {
            println!("PASS");
        } else {
            println!("FAIL");
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    s[s.len() / 2]
}

fn report(problem: &Problem, backend: &str, times: &[f64]) {
    let t = median(times);
    println!("backend  {backend}");
    println!(
        "time     {:.4} ms (median of {} runs, wall clock)",
        t * 1e3,
        times.len()
    );
    println!(
        "rate     {:.3} TFLOP/s  {:.1} GB/s  ({:.2}% of the H200 roofline)",
        problem.flops() / t / 1e12,
        problem.min_bytes() / t / 1e9,
        100.0 * problem.roofline_fraction(&DeviceSpec::H200, t)
    );
}
