//! `gconv report`: summarises a sweep or bench CSV (ranked kernels per problem), then prints
//! the bench table and the failures from its rows, and with `--pair FIELD=A,B` the paired
//! comparison of two values of one kernel field.

use crate::sweep_print::{auto_picks, print_bench_table, print_failures};
use anyhow::{bail, Result};
use clap::Args;
use gconv_kernels::catalogue::Families;
use gconv_kernels::Target;
use gconv_problem::{DeviceSpec, Problem};
use gconv_tune::csv::{attach_messages, messages_path, read_rows_lenient};
use gconv_tune::pairs::{self, PairSpec};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gconv report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A CSV written by `gconv sweep` or `gconv bench` (its CSV.messages.jsonl, when present,
    /// gives the messages of rows that are not ok).
    pub csv: PathBuf,
    /// Kernels listed per problem in the ranked summary.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub top: u32,
    /// Only rows that ran on devices of this name (e.g. "NVIDIA H200"), and rows that never
    /// ran (gate refusals); for a CSV merged from a mixed cluster.
    #[arg(long)]
    pub device: Option<String>,
    /// Also compare the two values of one kernel field, everything else equal: each ok kernel
    /// with FIELD = B against its ok twin with FIELD = A on the same problem (e.g.
    /// `math=wgmma,wgmmaws`, `stages=3,4`); per problem and overall.
    #[arg(long, value_name = "FIELD=A,B")]
    pub pair: Option<String>,
}

/// Runs `gconv report`: the ranked summary of a finished (or interrupted) sweep, and the
/// bench table (best-in-pool, `auto`, best baseline per problem) from its rows.
pub fn report(a: ReportArgs) -> Result<ExitCode> {
    // A malformed --pair is refused before any reading.
    let pair = a.pair.as_deref().map(str::parse::<PairSpec>).transpose()?;
    let (mut rows, tail) = read_rows_lenient(&a.csv)?;
    if let Some(tail) = tail {
        crate::output::note!(
            "warning: {}: skipped the incomplete last row (cut by an interrupt?), {tail}",
            a.csv.display()
        );
    }
    let repeated = gconv_tune::csv::repeated_rows(&rows);
    if repeated > 0 {
        crate::output::note!(
            "warning: {}: {repeated} rows repeat an earlier row's kernel, problem and device (CSVs concatenated by hand?); each is ranked as it stands (`gconv merge` refuses such rows)",
            a.csv.display()
        );
    }
    let messages = messages_path(&a.csv);
    let messages = messages.is_file().then_some(messages);
    if let Some(m) = &messages {
        // Messages are an aid; a damaged file only costs the examples.
        if let Err(e) = attach_messages(&mut rows, m) {
            crate::output::note!(
                "warning: cannot read the messages of {}: {e:#}",
                a.csv.display()
            );
        }
    }
    let names: std::collections::BTreeSet<String> = rows
        .iter()
        .filter_map(|r| r.device.as_ref().map(|d| d.name.clone()))
        .collect();
    if let Some(want) = &a.device {
        if !names.contains(want) {
            bail!(
                "--device {want:?}: no row of {} ran on such a device (devices: {})",
                a.csv.display(),
                names.iter().cloned().collect::<Vec<_>>().join(", ")
            );
        }
        rows.retain(|r| r.device.as_ref().is_none_or(|d| &d.name == want));
    } else if names.len() > 1 {
        crate::output::note!(
            "note: rows from {} kinds of device ({}); the rankings below mix them (--device NAME keeps one)",
            names.len(),
            names.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    if rows.is_empty() {
        bail!("{} has no rows", a.csv.display());
    }
    // The rows' own device's roofline (the H200's when unknown or mixed).
    let dev = gconv_tune::csv::rows_device_spec(&rows, &DeviceSpec::H200);
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "{}",
        gconv_tune::summary::summarize_with(&rows, a.top as usize, &dev)
    )?;
    let mut problems: Vec<Problem> = Vec::new();
    for r in &rows {
        if !problems.contains(&r.problem) {
            problems.push(r.problem);
        }
    }
    let auto = auto_picks(Target::H200, Families::All);
    print_bench_table(&mut out, &problems, &rows, &dev, &auto)?;
    print_failures(&mut out, &rows, messages.as_deref())?;
    if let Some(spec) = &pair {
        writeln!(out, "{}", pairs::pair(&rows, spec)?)?;
    }
    Ok(ExitCode::SUCCESS)
}
