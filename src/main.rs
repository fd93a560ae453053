//! The `gconv` command-line tool: run one convolution on the CPU or the GPU, the correctness
//! matrix (`selftest`), device information, the compile cache and the tile engine (`problems`,
//! `kernels`, `sweep`, `bench`, `merge`, `compare`, `worker`). `anyhow` is used only here;
//! the libraries return typed errors.
//!
//! Each command lives in `src/cmd_<name>.rs`: run, problems, kernels, sweep, bench, report,
//! merge, compare, learn (train, validate, select), tune and decide, baseline, worker (`selftest` is in `src/selftest.rs`; `info` and `cache` are here, `cache build` in `src/cmd_cache.rs`). What
//! several commands share is in `src/sweep_args.rs` (runner options, backend and baseline
//! checks) and `src/sweep_print.rs` (bench table, failures).

mod backend;
mod cmd_baseline;
mod cmd_bench;
mod cmd_cache;
mod cmd_compare;
mod cmd_kernels;
mod cmd_learn;
mod cmd_merge;
mod cmd_problems;
mod cmd_report;
mod cmd_run;
mod cmd_sweep;
mod cmd_tune;
mod cmd_worker;
mod dispatch;
mod output;
mod selftest;
mod sweep_args;
mod sweep_print;
mod worker;

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;

/// Grouped-convolution kernel engine for NVIDIA GPUs, with a CPU backend.
#[derive(Parser, Debug)]
#[command(name = "gconv", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run one convolution given by its problem key, time it and optionally verify it.
    Run(cmd_run::RunArgs),
    /// Run the correctness matrix against the reference (CPU backend, or the GPU with --gpu).
    Selftest(selftest::SelftestArgs),
    /// Show the device, driver and NVRTC the CUDA backend would use, or why it cannot.
    Info,
    /// Show where the compile cache is and how large it is; --clear empties it; `build`
    /// compiles a problem set's kernels into it ahead of time, without a GPU.
    Cache(CacheArgs),
    /// List the problem registry with counts, or print the problem keys of a set.
    Problems(cmd_problems::ProblemsArgs),
    /// Expand a trait config into kernels through `validate`: count, list or export them.
    Kernels(cmd_kernels::KernelsArgs),
    /// Sweep the kernels of a trait config over a problem set: verify, time, write CSV.
    Sweep(cmd_sweep::SweepArgs),
    /// Benchmark the default kernel pool (best-in-pool and auto) against cuDNN.
    Bench(cmd_bench::BenchArgs),
    /// Time cuDNN (graph API, best verified engine configuration) on a problem set.
    Baseline(cmd_baseline::BaselineArgs),
    /// Summarise a sweep or bench CSV: ranked kernels per problem, best-in-pool, auto, baseline.
    Report(cmd_report::ReportArgs),
    /// Join the CSVs of a sharded sweep into one (refuses duplicate rows and mixed schemas).
    Merge(cmd_merge::MergeArgs),
    /// Compare two sweep CSVs: same pairs and statuses? latency ratios? (exit 1 if they differ)
    Compare(cmd_compare::CompareArgs),
    /// Train the kernel-selection model on sweep CSVs (cross-validated metrics, model directory).
    Train(cmd_learn::TrainArgs),
    /// Score a selection model against a measured oracle CSV (efficiency, top-k, the tail).
    Validate(cmd_learn::ValidateArgs),
    /// Rank the pool on one problem with a selection model (and why members were refused).
    Select(cmd_learn::SelectArgs),
    /// Measure the model's first candidates of each problem on the GPU; keep the winners in
    /// the decision cache that `auto` consults first.
    Tune(cmd_tune::TuneArgs),
    /// Keep the fastest measured rows of a bench or sweep CSV (one device) in the decision
    /// cache, without measuring (no GPU needed).
    Decide(cmd_tune::DecideArgs),
    /// Worker subprocess of `sweep` (JSON lines on stdin/stdout).
    #[command(hide = true)]
    Worker(cmd_worker::WorkerArgs),
}

/// Arguments of `gconv cache`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
struct CacheArgs {
    /// Remove every cache entry.
    #[arg(long)]
    clear: bool,
    #[command(subcommand)]
    action: Option<CacheAction>,
}

#[derive(Subcommand, Debug)]
enum CacheAction {
    /// Compile every kernel a `bench`/`tune` (--direction) or `sweep` (--config) of a problem
    /// set would compile into the cache, without a GPU (NVRTC only), for a GPU machine to use.
    Build(cmd_cache::BuildArgs),
}

fn info() -> Result<ExitCode> {
    let mut out = crate::output::stdout();
    match gconv_cuda::nvrtc_version() {
        Ok((major, minor)) => {
            let from = match gconv_cuda::libs::preload(gconv_cuda::libs::CudaLib::Nvrtc) {
                Ok(gconv_cuda::libs::Found::At(p)) => format!(" ({})", p.display()),
                _ => " (found by the loader's search)".to_string(),
            };
            writeln!(out, "nvrtc    {major}.{minor}{from}")?
        }
        Err(e) => writeln!(out, "nvrtc    not usable: {e}")?,
    }
    match gconv_cuda::runtime::probe() {
        Ok(d) => {
            writeln!(out, "device   {d}")?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            writeln!(out, "device   not usable: {e}")?;
            writeln!(
                out,
                "backend  the CPU backend will be used by --backend auto"
            )?;
            Ok(ExitCode::from(2))
        }
    }
}

fn cache(a: CacheArgs) -> Result<ExitCode> {
    if let Some(CacheAction::Build(b)) = a.action {
        return cmd_cache::build(b);
    }
    let mut out = crate::output::stdout();
    let dir = gconv_cuda::cache_dir()?;
    writeln!(out, "cache    {}", dir.display())?;
    if a.clear {
        let n = gconv_cuda::clear_cache()?;
        writeln!(out, "removed  {n} entries")?;
    }
    let (entries, bytes) = gconv_cuda::cache_stats()?;
    writeln!(
        out,
        "size     {entries} entries, {:.1} MiB",
        bytes as f64 / (1024.0 * 1024.0)
    )?;
    Ok(ExitCode::SUCCESS)
}

/// True when the error is (or was caused by) a write to a closed pipe: the reader of our
/// output went away (`gconv kernels C --list | head -1`), which is not a failure.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A GCONV_AUTO that is neither `model` nor `rule` would otherwise turn every `auto` into
    // the rule with only a reason to show for it.
    if let Err(e) = gconv_learn::select::auto_mode() {
        crate::output::note!("error: {e}");
        return ExitCode::from(2);
    }
    let result: Result<ExitCode> = match cli.command {
        Command::Run(a) => cmd_run::run(a),
        Command::Selftest(a) => selftest::run(a),
        Command::Info => info(),
        Command::Cache(a) => cache(a),
        Command::Problems(a) => cmd_problems::problems(a),
        Command::Kernels(a) => cmd_kernels::kernels(a),
        Command::Sweep(a) => cmd_sweep::sweep(a),
        Command::Bench(a) => cmd_bench::bench(a),
        Command::Report(a) => cmd_report::report(a),
        Command::Merge(a) => cmd_merge::merge(a),
        Command::Compare(a) => cmd_compare::compare(a),
        Command::Train(a) => cmd_learn::train(a),
        Command::Validate(a) => cmd_learn::validate(a),
        Command::Select(a) => cmd_learn::select(a),
        Command::Tune(a) => cmd_tune::tune(a),
        Command::Decide(a) => cmd_tune::decide(a),
        Command::Baseline(a) => cmd_baseline::baseline(a),
        Command::Worker(a) => cmd_worker::worker(a),
    };
    match result {
        Ok(code) => code,
        // Every command prints with `writeln!` on a locked stdout (never `println!`, which
        // panics on a closed pipe), so a closed pipe arrives here and ends the program quietly,
        // as `grep` and `rg` do.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            crate::output::note!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
