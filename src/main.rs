//! The `gconv` command-line tool: run one convolution on the CPU or the GPU, the correctness
//! matrix (`selftest`), the tile engine (`kernels`, `problems`, `sweep`, `worker`), benchmarks
//! and the compile cache. `anyhow` is used only here; the libraries return typed errors.

mod backend;
mod cmd_run;
mod selftest;

use anyhow::Result;
use clap::{Parser, Subcommand};
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<ExitCode> = match cli.command {
        Command::Run(a) => cmd_run::run(a),
        Command::Selftest(a) => selftest::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
