//! `gconv merge`: joins the CSVs of a sharded sweep (or of sweeps on several hosts) into one;
//! the checks (one schema, no duplicate (kernel, problem, device) row, no cut row) are
//! `gconv_tune::merge`'s.

use anyhow::Result;
use clap::Args;
use gconv_tune::merge_csvs;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gconv merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The merged CSV (its messages file goes next to it), gzip-compressed when its name ends
    /// in `.gz`.
    #[arg(long)]
    pub output: PathBuf,
    /// Replace OUTPUT when it exists.
    #[arg(long)]
    pub force: bool,
    /// The CSVs to join, e.g. every `OUT.shard-I-of-N.csv` of a sharded sweep.
    #[arg(required = true, num_args = 1..)]
    pub inputs: Vec<PathBuf>,
}

/// Runs `gconv merge`.
pub fn merge(a: MergeArgs) -> Result<ExitCode> {
    let r = merge_csvs(&a.inputs, &a.output, a.force)?;
    let mut out = crate::output::stdout();
    for (path, rows) in &r.inputs {
        writeln!(out, "  {rows:>7} rows  {}", path.display())?;
    }
    let devices: Vec<String> = r.devices.iter().map(|d| d.to_string()).collect();
    writeln!(
        out,
        "merged {} rows of {} problems from {} file(s) into {} ({} columns; devices: {}); {} message line(s)",
        r.rows,
        r.problems,
        r.inputs.len(),
        r.output.display(),
        r.columns,
        if devices.is_empty() {
            "none named".to_string()
        } else {
            devices.join(", ")
        },
        r.messages
    )?;
    Ok(ExitCode::SUCCESS)
}
