//! `gconv sweep`: sweeps the kernels of a trait config over a problem set through worker
//! subprocesses (verify, time, write CSV), then prints the ranked summary and the failures.

use crate::backend::BackendChoice;
use crate::sweep_args::{
    check_baseline, check_output, drop_cut_row, keep_direction, parse_arch, shard_problems,
    sweep_options, write_empty_shard, RunnerArgs,
};
use crate::sweep_print::{print_failures, print_throughput};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use gconv_problem::Direction;
use gconv_tune::traits::build_instances;
use gconv_tune::{resolve_problems, run_sweep};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gconv sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// Direction of the sweep: fwd, dgrad or wgrad (or forward, bwd_data, bwd_weight); it must
    /// match the config's `variant` (default: the config's). Problems of other directions are
    /// left out (and counted).
    #[arg(long, visible_alias = "direction", value_parser = Direction::parse_any)]
    pub variant: Option<Direction>,
    /// Problem set: a registry key, a problem key or a problems file.
    #[arg(long)]
    pub problems: String,
    /// Trait-config JSON giving the kernels.
    #[arg(long)]
    pub config: PathBuf,
    /// Keep only kernels for which this expression holds.
    #[arg(long)]
    pub filter: Option<String>,
    /// Sweep only the first N kernels.
    #[arg(long)]
    pub max_kernels: Option<usize>,
    /// Target architecture.
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
    #[command(flatten)]
    pub run: RunnerArgs,
}

/// Runs `gconv sweep`.
pub fn sweep(mut a: SweepArgs) -> Result<ExitCode> {
    let arch = parse_arch(&a.arch)?;
    let rep = build_instances(&a.config, arch, a.filter.as_deref())?;
    crate::output::note!("{rep}");
    if let Some(v) = a.variant.filter(|v| *v != rep.variant) {
        bail!(
            "--variant {v} does not match the variant of {} ({})",
            a.config.display(),
            rep.variant
        );
    }
    let all = resolve_problems(&a.problems)?;
    let total = all.len();
    let problems = keep_direction(all, rep.variant);
    if problems.is_empty() {
        bail!(
            "none of the {total} problem(s) of {:?} is a {} problem, which the variant of {} sweeps; \
             choose a set with {} problems or a config of their direction",
            a.problems,
            rep.variant,
            a.config.display(),
            rep.variant
        );
    }
    let problems = shard_problems(&mut a.run, problems)?;
    let backend = match (rep.backend, a.run.backend) {
        (gconv_tune::traits::Backend::Cpu, BackendChoice::Cuda) => bail!(
            "{} lists CPU variants; they run on the CPU backend, not with --backend cuda",
            a.config.display()
        ),
        (gconv_tune::traits::Backend::Cpu, _) => "cpu",
        (gconv_tune::traits::Backend::Gpu, BackendChoice::Cpu) => bail!(
            "{} lists GPU kernels; they need the CUDA backend, not --backend cpu (CPU variants are in configs/traits/cpu_*.json)",
            a.config.display()
        ),
        (gconv_tune::traits::Backend::Gpu, _) => {
            gconv_cuda::runtime::probe().map_err(|e| {
                anyhow!(
                    "{} lists GPU kernels, but the CUDA backend is not usable: {e} (CPU variants are in configs/traits/cpu_*.json)",
                    a.config.display()
                )
            })?;
            "cuda"
        }
    };
    check_baseline(a.run.vs.as_deref(), backend)?;
    check_output(&a.run)?;
    if problems.is_empty() {
        write_empty_shard(&a.run)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut o = sweep_options(&a.run, backend)?;
    o.arch = arch;
    o.max_kernels = a.max_kernels;
    drop_cut_row(&o)?;
    crate::output::note!("note: timing: {}", o.timing.policy().describe());
    let report = run_sweep(&rep.kernels, &problems, &o)?;
    let mut out = crate::output::stdout();
    writeln!(out, "{}", report.summary(3))?;
    writeln!(
        out,
        "wrote {} rows to {} ({} skipped by --resume) in {:.1} s",
        report.rows.len(),
        report.output.display(),
        report.skipped,
        report.elapsed.as_secs_f64()
    )?;
    print_failures(&mut out, &report.all_rows(), report.messages.as_deref())?;
    writeln!(out, "{}", report.split)?;
    print_throughput(&mut out, &report)?;
    Ok(ExitCode::SUCCESS)
}
