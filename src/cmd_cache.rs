//! `gconv cache build`: compiles ahead of time, without a GPU, every kernel that a `bench`,
//! `sweep` or `tune` of a problem set would compile, into the compile cache (`GCONV_CACHE_DIR`),
//! so that a GPU machine handed that cache times kernels instead of waiting for NVRTC.
//!
//! The modules are generated exactly as the GPU workers generate them (`worker.rs`: the same
//! admission on the H200's target, `GpuKernel::source`, `compile_cached` with the default
//! options), so the cache keys match wherever the NVRTC major.minor version does (the key holds
//! it; `gconv info` prints it on both machines). With `--direction` the kernels are the default
//! pools of that direction (what `bench` and `tune` run); with `--config` those of a trait config
//! (what `sweep` runs). The GPU reference kernel of each problem (the verification of large
//! problems) is compiled too unless `--no-reference`.

use crate::cmd_bench::pool_configs;
use crate::sweep_args::{check_compile_threads, keep_direction, parse_arch};
use anyhow::{bail, Context, Result};
use clap::Args;
use gconv_cuda::nvrtc::CompileOptions;
use gconv_cuda::CacheHit;
use gconv_kernels::catalogue::Families;
use gconv_problem::{Direction, Problem};
use gconv_runner::gpu::{target_for, GpuKernel};
use gconv_tune::traits::build_instances;
use gconv_tune::{resolve_problems, KernelRef, Progress};
use rayon::prelude::*;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Arguments of `gconv cache build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// Problem set: a registry key, a problem key or a problems file.
    #[arg(long)]
    pub problems: String,
    /// The default pools of this direction (fwd, dgrad or wgrad), as `bench` and `tune` run
    /// them; only the set's problems of this direction.
    #[arg(long, value_parser = Direction::parse_any, conflicts_with = "config")]
    pub direction: Option<Direction>,
    /// The kernels of this trait config instead (as `sweep --config` runs them); only the set's
    /// problems of the config's direction.
    #[arg(long, required_unless_present = "direction")]
    pub config: Option<PathBuf>,
    /// With --config: keep only the kernels for which this expression holds.
    #[arg(long, requires = "config")]
    pub filter: Option<String>,
    /// With --config: the architecture its kernels are expanded for (as `sweep --arch`).
    #[arg(long, default_value = "sm_90a", requires = "config")]
    pub arch: String,
    /// Streaming multiprocessors of the GPU the cache is for (split-K degrees and other plan
    /// choices depend on it; the H200 has 132).
    #[arg(long, default_value_t = 132, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub sms: u32,
    /// Parallel NVRTC compilations, 1 to 4 × max(CPUs, 64) (default: every CPU of this
    /// machine).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub workers: Option<u64>,
    /// Leave out the GPU reference kernel of each problem.
    #[arg(long)]
    pub no_reference: bool,
}

/// Runs `gconv cache build`.
pub fn build(a: BuildArgs) -> Result<ExitCode> {
    let all = resolve_problems(&a.problems)?;
    let (direction, kernels): (Direction, Vec<String>) = match (&a.config, a.direction) {
        (Some(path), _) => {
            let rep = build_instances(path, parse_arch(&a.arch)?, a.filter.as_deref())?;
            if rep.backend != gconv_tune::traits::Backend::Gpu {
                bail!("{} lists CPU variants: nothing to compile", path.display());
            }
            (rep.variant, rep.kernels)
        }
        (None, Some(d)) => {
            let names = pool_configs(d, &all, Families::All)
                .iter()
                .map(|c| c.to_string())
                .collect();
            (d, names)
        }
        (None, None) => bail!("give --direction or --config"),
    };
    let problems = keep_direction(all, direction);
    if problems.is_empty() {
        bail!("no {direction} problem in {:?}", a.problems);
    }
    let refs: Vec<KernelRef> = kernels
        .iter()
        .map(|k| {
            k.parse::<KernelRef>()
                .with_context(|| format!("kernel {k}"))
        })
        .collect::<Result<_>>()?;
    let target = target_for(a.sms);
    // Every module the GPU workers would compile: each admitted (kernel, problem) pair, and the
    // problems' reference kernels; refused pairs are what a sweep records as rejected.
    let mut jobs: Vec<(String, Problem, GpuKernel)> = Vec::new();
    let mut refused = 0usize;
    for p in &problems {
        for (name, r) in kernels.iter().zip(&refs) {
            match GpuKernel::resolve(*r, p, &target, None) {
                Ok(k) => jobs.push((name.clone(), *p, k)),
                Err(_) => refused += 1,
            }
        }
        if !a.no_reference {
            jobs.push(("ref".into(), *p, GpuKernel::Reference));
        }
    }
    // What this command is for is the stored entries: a cache directory that cannot be
    // written is one error up front, not a "compiled" count with nothing stored.
    let dir = gconv_cuda::cache_dir()?;
    let probe = dir.join(format!(".write-probe-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&probe, b""))
        .with_context(|| format!("the compile cache {} cannot be written", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = check_compile_threads(a.workers.map_or(cpus, |w| w as usize), cpus)?;
    // Every module needs NVRTC: one error (exit 2, an unusable backend) instead of the same
    // one for each module.
    if let Err(e) = gconv_cuda::nvrtc_version() {
        bail!("gconv cache build compiles with NVRTC, which is not usable: {e}");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the compile threads")?;
    let bar = Progress::new(jobs.len() as u64, true, "modules");
    let (compiled, hits) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let start = Instant::now();
    let errors: Vec<String> = pool.install(|| {
        jobs.par_iter()
            .filter_map(|(name, p, k)| {
                let src = k.source(p);
                let r = gconv_cuda::compile_cached(&src, &CompileOptions::default());
                bar.inc(1);
                match r {
                    Ok((_, CacheHit::Hit)) => {
                        hits.fetch_add(1, Ordering::Relaxed);
                        None
                    }
                    Ok((_, CacheHit::NotStored { reason })) => Some(format!(
                        "{name} on {p}: compiled but not stored in the cache: {reason}"
                    )),
                    Ok(_) => {
                        compiled.fetch_add(1, Ordering::Relaxed);
                        None
                    }
                    Err(e) => Some(format!("{name} on {p}: {e}")),
                }
            })
            .collect()
    });
    bar.finish_and_clear();
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "{} modules for {} {direction} problems: {} compiled, {} already cached, {} failed ({refused} kernel-problem pairs refused by the gate) in {:.1} s on {threads} thread(s)",
        jobs.len(),
        problems.len(),
        compiled.load(Ordering::Relaxed),
        hits.load(Ordering::Relaxed),
        errors.len(),
        start.elapsed().as_secs_f64()
    )?;
    for e in &errors {
        writeln!(out, "  failed: {e}")?;
    }
    let (entries, bytes) = gconv_cuda::cache_stats()?;
    writeln!(
        out,
        "cache    {} ({entries} entries, {:.1} MiB)",
        gconv_cuda::cache_dir()?.display(),
        bytes as f64 / (1024.0 * 1024.0)
    )?;
    Ok(if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
