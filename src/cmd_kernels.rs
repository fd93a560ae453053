//! `gconv kernels`: expands a trait config into kernels through `validate` and counts, lists
//! or exports them.

use crate::sweep_args::parse_arch;
use anyhow::Result;
use clap::Args;
use gconv_tune::traits::build_instances;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gconv kernels`.
#[derive(Args, Debug)]
pub struct KernelsArgs {
    /// Trait-config JSON (`{"variant": ..., "trait_config": {...}}`).
    pub config: PathBuf,
    /// Target architecture for `validate`.
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
    /// Print only the counts (kept, dropped by reason).
    #[arg(long, conflicts_with_all = ["list", "export_json"])]
    pub count_only: bool,
    /// Print the kernel names, one per line.
    #[arg(long, conflicts_with = "export_json")]
    pub list: bool,
    /// Write the kept configs as JSON to this file.
    #[arg(long)]
    pub export_json: Option<PathBuf>,
    /// Keep only configs for which this expression holds, e.g. `tile_n >= 128 && stages == 3`.
    #[arg(long)]
    pub filter: Option<String>,
}

/// Runs `gconv kernels`.
pub fn kernels(a: KernelsArgs) -> Result<ExitCode> {
    let arch = parse_arch(&a.arch)?;
    let rep = build_instances(&a.config, arch, a.filter.as_deref())?;
    let mut out = crate::output::stdout();
    if a.list {
        for k in &rep.kernels {
            writeln!(out, "{k}")?;
        }
        crate::output::note!("{rep}");
    } else if let Some(path) = &a.export_json {
        rep.export_json(path)?;
        writeln!(out, "{rep}")?;
        writeln!(
            out,
            "wrote {} kernels to {}",
            rep.kernels.len(),
            path.display()
        )?;
    } else {
        writeln!(out, "{rep}")?;
    }
    if rep.kernels.is_empty() {
        crate::output::note!("error: the config yields no kernels");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
