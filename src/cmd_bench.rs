//! `gconv bench`: sweeps the default kernel pools (igemm and direct) over a problem set and
//! prints the bench table (best-in-pool and `auto` against the baseline); also the
//! architecture the pools are gated on.

use crate::sweep_args::{
    check_baseline, check_output, drop_cut_row, keep_direction, resolve_backend, shard_problems,
    sweep_options, write_empty_shard, RunnerArgs,
};
use crate::sweep_print::{auto_picks, print_bench_table, print_failures, print_throughput};
use anyhow::{bail, Result};
use clap::Args;
use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::{required_arch, Arch, Family, KernelConfig, Target};
use gconv_problem::{DType, Direction, Problem};
use gconv_tune::{resolve_problems, run_sweep};
use std::collections::BTreeSet;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `gconv bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Problem set: a registry key (e.g. model_zoo), a problem key or a problems file.
    #[arg(long, default_value = "model_zoo")]
    pub problems: String,
    /// Only problems of this direction: fwd, dgrad or wgrad (or forward, bwd_data, bwd_weight).
    /// Default: the set's direction when all its problems have one, else fwd where the set has
    /// forward problems (a bench times one direction's pools; the others' problems are left
    /// out, and counted); a set of backward data and backward weight needs the option.
    #[arg(long, value_parser = Direction::parse_any)]
    pub direction: Option<Direction>,
    /// Kernel pools to time: `all` (igemm and direct), `igemm` or `direct`.
    #[arg(long, default_value = "all", value_parser = ["all", "igemm", "direct"])]
    pub family: String,
    #[command(flatten)]
    pub run: RunnerArgs,
}

/// Runs `gconv bench`: the default (igemm) and direct forward pools of every dtype present
/// (or one of them with `--family`), swept over the problems, then per problem the best kernel
/// of the pool, the `auto` choice (within the timed family) and the baseline.
pub fn bench(mut a: BenchArgs) -> Result<ExitCode> {
    let all = resolve_problems(&a.problems)?;
    let dir = match a.direction {
        Some(d) => d,
        None => default_direction(&all)?,
    };
    let problems = keep_direction(all, dir);
    if problems.is_empty() {
        bail!("no {dir} problems in {:?}", a.problems);
    }
    let problems = shard_problems(&mut a.run, problems)?;
    let families = match a.family.as_str() {
        "igemm" => Families::Only(Family::Igemm),
        "direct" => Families::Only(Family::Direct),
        _ => Families::All,
    };
    let configs = pool_configs(dir, &problems, families);
    if configs.is_empty() {
        bail!("no kernel pool exists for {dir} yet");
    }
    let kernels: Vec<String> = configs.iter().map(|c| c.to_string()).collect();
    let backend = resolve_backend(a.run.backend)?;
    if backend != "cuda" {
        bail!("gconv bench measures GPU kernels; it needs the CUDA backend");
    }
    check_baseline(a.run.vs.as_deref(), backend)?;
    check_output(&a.run)?;
    if problems.is_empty() {
        write_empty_shard(&a.run)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut o = sweep_options(&a.run, backend)?;
    o.arch = pool_arch(&configs);
    drop_cut_row(&o)?;
    crate::output::note!("note: timing: {}", o.timing.policy().describe());
    let report = run_sweep(&kernels, &problems, &o)?;
    let rows = report.all_rows();
    let target = Target::arch(o.arch);
    let auto = auto_picks(target, families);
    let mut out = crate::output::stdout();
    print_bench_table(&mut out, &problems, &rows, &o.device, &auto)?;
    writeln!(out, "rows in {}", report.output.display())?;
    print_failures(&mut out, &rows, report.messages.as_deref())?;
    writeln!(out, "{}", report.split)?;
    print_throughput(&mut out, &report)?;
    Ok(ExitCode::SUCCESS)
}

/// The direction `bench` times without `--direction`: the problems' own when they all share
/// one (a file of backward-data keys is benched as backward data), else the forward where the
/// set has forward problems (`model_zoo`) or none; a set of backward data and backward weight
/// alone is an error that asks for the option.
fn default_direction(problems: &[Problem]) -> Result<Direction> {
    let dirs: BTreeSet<Direction> = problems.iter().map(|p| p.direction).collect();
    match dirs.len() {
        0 => Ok(Direction::Fwd),
        1 => Ok(dirs.into_iter().next().unwrap_or(Direction::Fwd)),
        _ if dirs.contains(&Direction::Fwd) => Ok(Direction::Fwd),
        _ => bail!(
            "the problem set mixes {}; a bench times one direction: pass --direction",
            dirs.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    }
}

/// The default pools of `dir` for every dtype among `problems` of that direction: what `bench`
/// runs (and `gconv cache build --direction` compiles ahead of time).
pub fn pool_configs(dir: Direction, problems: &[Problem], families: Families) -> Vec<KernelConfig> {
    let dtypes: BTreeSet<DType> = problems
        .iter()
        .filter(|p| p.direction == dir)
        .map(|p| p.dtype)
        .collect();
    dtypes
        .iter()
        .flat_map(|d| catalogue::pool(dir, *d, families))
        .collect()
}

/// The architecture the bench gates its pools on: sm_90a when a member needs it (the
/// warpgroup-MMA igemm members; every sm_90 kernel is also valid for sm_90a), else sm_90. Gating
/// on sm_90 would reject those members as `arch_required` and leave them out of the bench.
fn pool_arch(pool: &[KernelConfig]) -> Arch {
    if pool.iter().any(|c| required_arch(c) == Arch::Sm90a) {
        Arch::Sm90a
    } else {
        Arch::Sm90
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gconv_kernels::select::auto_select;
    use gconv_kernels::{admit, Math};
    use gconv_tune::sweep::{DefaultGate, KernelGate};

    /// Without `--direction`, a set of one direction is benched in it, a set with forward
    /// problems (or none) in the forward, and backward data mixed with backward weight is an
    /// error naming the option.
    #[test]
    fn the_default_direction_is_the_sets_own_or_fwd() {
        let p = |k: &str| -> Problem { k.parse().expect("key") };
        let d = p("dgrad_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1");
        let w = p("wgrad_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1");
        let f = p("fwd_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1");
        let dir = |ps: &[Problem]| default_direction(ps).expect("a direction");
        assert_eq!(dir(&[d, d]), Direction::Dgrad);
        assert_eq!(dir(&[w]), Direction::Wgrad);
        assert_eq!(dir(&[f, d]), Direction::Fwd);
        assert_eq!(dir(&[f, d, w]), Direction::Fwd);
        assert_eq!(dir(&[]), Direction::Fwd);
        let e = default_direction(&[d, w]).expect_err("backward data and weight mixed");
        assert!(e.to_string().contains("--direction"), "{e}");
    }

    /// The bench's gate admits every pool member that can run the problem, the warpgroup-MMA
    /// (sm_90a) ones included (gated on sm_90 they were all rejected as `arch_required`).
    #[test]
    fn bench_gate_admits_every_runnable_pool_member() {
        let p: Problem = "fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .expect("key");
        let pool = catalogue::pool(Direction::Fwd, DType::Bf16, Families::All);
        assert_eq!(pool_arch(&pool), Arch::Sm90a);
        let gate = DefaultGate {
            arch: pool_arch(&pool),
        };
        let mut wgmma = 0;
        for c in pool.iter().filter(|c| admit(c, &p, &Target::H200).is_ok()) {
            gate.admit(&c.to_string(), &p)
                .unwrap_or_else(|e| panic!("{c}: {e:?}"));
            wgmma += usize::from(c.math == Math::Wgmma);
        }
        assert!(wgmma > 0, "no warpgroup-MMA member runs {p}");
        // And the auto pick is one of the admitted members.
        let pick = auto_select(&p, &Target::H200).expect("auto picks a kernel");
        let name = pick.config().to_string();
        assert!(gate.admit(&name, &p).is_ok(), "{name}");
        // A pool without sm_90a members stays on sm_90.
        let direct = catalogue::pool(Direction::Fwd, DType::Bf16, Families::Only(Family::Direct));
        assert_eq!(pool_arch(&direct), Arch::Sm90);
    }
}
