//! `gconv compare A.csv B.csv`: whether two sweep CSVs have the same (kernel, problem) pairs
//! with the same statuses, and how their latencies compare (`gconv_tune::compare`). Exit code
//! 0 when they agree, 1 when they differ (as `diff` does), 2 on an error.

use anyhow::{bail, Result};
use clap::Args;
use gconv_tune::compare::compare_rows;
use gconv_tune::read_rows;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gconv compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The first CSV (A; ratios are B/A).
    pub a: PathBuf,
    /// The second CSV (B).
    pub b: PathBuf,
    /// Join on the device too (by default rows are joined on kernel and problem only, so that
    /// runs on different devices can be compared).
    #[arg(long)]
    pub by_device: bool,
    /// Relative latency difference counted as noise (0.1 = ±10 %).
    #[arg(long, default_value_t = 0.1)]
    pub tolerance: f64,
}

/// Runs `gconv compare`.
pub fn compare(a: CompareArgs) -> Result<ExitCode> {
    if !(a.tolerance.is_finite() && a.tolerance >= 0.0) {
        bail!(
            "--tolerance must be a non-negative fraction, not {}",
            a.tolerance
        );
    }
    let ra = read_rows(&a.a)?;
    let rb = read_rows(&a.b)?;
    let c = compare_rows(&ra, &rb, a.by_device, a.tolerance);
    let mut out = crate::output::stdout();
    writeln!(out, "A = {}\nB = {}", a.a.display(), a.b.display())?;
    writeln!(out, "{c}")?;
    Ok(if c.agrees() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
