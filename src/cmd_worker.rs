//! `gconv worker` (hidden): the command entry of the worker subprocess that `sweep` and `bench`
//! start; it picks the executor (the CUDA one in `worker.rs`, or the CPU one) and runs the
//! JSON-lines protocol on stdin/stdout.

use crate::worker::CudaExecutor;
use anyhow::{anyhow, Result};
use clap::Args;
use gconv_tune::worker_main;
use std::process::ExitCode;

/// Arguments of `gconv worker` (started by `sweep`; speaks JSON lines on stdin/stdout).
#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// Backend that executes the jobs.
    #[arg(long, value_parser = ["cpu", "cuda"])]
    pub backend: String,
    /// Threads that compile the batch's kernels.
    #[arg(long, default_value_t = 8)]
    pub compile_threads: usize,
    /// Compile the whole batch before running its first job.
    #[arg(long)]
    pub no_compile_overlap: bool,
    /// Compare outputs with the reference on the host.
    #[arg(long)]
    pub verify_on_host: bool,
    /// CUDA device ordinal (after CUDA_VISIBLE_DEVICES) the worker runs on.
    #[arg(long, default_value_t = 0)]
    pub device: usize,
}

/// Runs `gconv worker`.
pub fn worker(a: WorkerArgs) -> Result<ExitCode> {
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(a.compile_threads.max(1))
        .build_global();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut output = stdout.lock();
    let n = if a.backend == "cuda" {
        let rt = gconv_cuda::GpuRuntime::new(a.device).map_err(|e| {
            anyhow!(
                "worker: the CUDA backend is not usable on device {}: {e}",
                a.device
            )
        })?;
        let mut exec = CudaExecutor::with_compile(rt, a.compile_threads, !a.no_compile_overlap);
        if a.verify_on_host {
            exec = exec.compare_on_host();
        }
        worker_main(&mut exec, &mut input, &mut output)?
    } else {
        let mut exec = gconv_tune::cpu::CpuExecutor::new();
        worker_main(&mut exec, &mut input, &mut output)?
    };
    crate::output::note!("worker: {n} jobs done");
    Ok(ExitCode::SUCCESS)
}
