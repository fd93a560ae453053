//! `gconv baseline`: times cuDNN (graph API, every engine configuration its heuristics offer,
//! each verified) on a problem set in this process and prints the fastest per problem as CSV.

use crate::worker::CudaExecutor;
use anyhow::{anyhow, Result};
use clap::Args;
use gconv_problem::DeviceSpec;
use gconv_tune::resolve_problems;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `gconv baseline`.
#[derive(Args, Debug)]
pub struct BaselineArgs {
    /// Problem set: a registry key, a problem key or a problems file (any direction).
    #[arg(long)]
    pub problems: String,
    /// Timed rounds per engine configuration (median reported).
    #[arg(long, default_value_t = 5)]
    pub repeats: u32,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Runs `gconv baseline`: cuDNN (graph API, every engine configuration its heuristics offer,
/// each verified) on each problem, in this process; prints the fastest per problem.
pub fn baseline(a: BaselineArgs) -> Result<ExitCode> {
    let problems = resolve_problems(&a.problems)?;
    let rt = gconv_cuda::GpuRuntime::new(0)
        .map_err(|e| anyhow!("gconv baseline needs the CUDA backend, which is not usable: {e}"))?;
    // The roofline of this device (the H200's when it has no specification).
    let dev = DeviceSpec::of_name_or(&rt.info().name, DeviceSpec::H200);
    let mut exec = CudaExecutor::new(rt);
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "problem,cudnn_engine,cudnn_ms,cudnn_roofline_frac,configs_ok,configs_tried"
    )?;
    let limit = gconv_problem::HostMemoryLimit::available();
    for (i, p) in problems.iter().enumerate() {
        if let Err(e) = gconv_problem::check_host_memory(p, true, limit) {
            writeln!(out, "{p},none,,,0,0 ({})", e.to_string().replace(',', ";"))?;
            continue;
        }
        let job = gconv_tune::Job {
            id: i as u64,
            kind: gconv_tune::JobKind::Baseline {
                provider: "cudnn".into(),
            },
            problem: *p,
            timing: gconv_tune::TimingOptions {
                repeats: a.repeats.max(1),
                ..gconv_tune::TimingOptions::adaptive_default()
            },
            seed: a.seed,
            best_ms: None,
        };
        let rows = gconv_tune::Executor::baseline(&mut exec, &job, "cudnn");
        let ok: Vec<_> = rows
            .iter()
            .filter_map(|r| r.result.latency_ms.map(|ms| (ms, &r.kernel)))
            .collect();
        match ok.iter().min_by(|x, y| x.0.total_cmp(&y.0)) {
            Some((ms, name)) => writeln!(
                out,
                "{p},{name},{ms:.4},{:.3},{},{}",
                p.roofline_fraction(&dev, ms / 1e3),
                ok.len(),
                rows.len()
            )?,
            None => writeln!(
                out,
                "{p},none,,,0,{} ({})",
                rows.len(),
                rows.first()
                    .and_then(|r| r.result.message.clone())
                    .unwrap_or_default()
                    .replace(',', ";")
            )?,
        }
    }
    Ok(ExitCode::SUCCESS)
}
