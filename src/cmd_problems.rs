//! `gconv problems`: lists the problem registry with counts, or prints the problem keys of a
//! set (a registry key, a problem key or a problems file).

use anyhow::Result;
use clap::Args;
use gconv_tune::registry::registry;
use gconv_tune::{registry_counts, resolve_problems};
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `gconv problems`.
#[derive(Args, Debug)]
pub struct ProblemsArgs {
    /// A registry key, a problem key or a problems file: print its problem keys. Without it,
    /// list the registry with counts.
    pub set: Option<String>,
}

/// Runs `gconv problems`.
pub fn problems(a: ProblemsArgs) -> Result<ExitCode> {
    let mut out = crate::output::stdout();
    match a.set {
        None => {
            writeln!(out, "{:<28} {:>6}  description", "registry key", "count")?;
            let counts = registry_counts();
            for (entry, (name, count)) in registry().iter().zip(counts) {
                writeln!(out, "{name:<28} {count:>6}  {}", entry.description)?;
            }
        }
        Some(s) => {
            let ps = resolve_problems(&s)?;
            for p in &ps {
                writeln!(out, "{p}")?;
            }
            crate::output::note!("{} problems", ps.len());
        }
    }
    Ok(ExitCode::SUCCESS)
}
