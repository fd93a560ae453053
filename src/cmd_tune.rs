//! The tile-engine commands: `gconv problems`, `gconv kernels`, `gconv sweep`, `gconv bench`
//! and the hidden `gconv worker`. They are thin layers over `gconv_tune`.

use crate::backend::BackendChoice;
use crate::worker::CudaExecutor;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::select::auto_select_in;
use gconv_kernels::{required_arch, Arch, Family, KernelConfig, Target};
use gconv_problem::measure::{Adaptive, EarlyStop, MIN_EARLY_STOP_FACTOR};
use gconv_problem::{DType, DeviceSpec, Direction, Problem};
use gconv_tune::csv::{attach_messages, drop_partial_tail, messages_path, read_rows_lenient};
use gconv_tune::registry::registry;
use gconv_tune::summary::failure_digest;
use gconv_tune::traits::build_instances;
use gconv_tune::{
    registry_counts, resolve_problems, run_sweep, worker_main, SweepOptions, SweepRow,
    TimingOptions,
};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `gconv problems`.
#[derive(Args, Debug)]
pub struct ProblemsArgs {
    /// A registry key, a problem key or a problems file: print its problem keys. Without it,
    /// list the registry with counts.
    pub set: Option<String>,
}

/// Runs `gconv problems`.
pub fn problems(a: ProblemsArgs) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
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
            eprintln!("{} problems", ps.len());
        }
    }
    Ok(ExitCode::SUCCESS)
}

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

fn parse_arch(s: &str) -> Result<Arch> {
    Arch::parse(s).ok_or_else(|| anyhow!("unknown --arch {s:?} (expected sm_90 or sm_90a)"))
}

/// Runs `gconv kernels`.
pub fn kernels(a: KernelsArgs) -> Result<ExitCode> {
    let arch = parse_arch(&a.arch)?;
    let rep = build_instances(&a.config, arch, a.filter.as_deref())?;
    let mut out = std::io::stdout().lock();
    if a.list {
        for k in &rep.kernels {
            writeln!(out, "{k}")?;
        }
        eprintln!("{rep}");
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
        eprintln!("error: the config yields no kernels");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Options shared by `sweep` and `bench`.
#[derive(Args, Debug)]
pub struct RunnerArgs {
    /// Output CSV, one row per (kernel, problem), flushed as each finishes; why a row failed
    /// goes to OUTPUT.messages.jsonl next to it.
    #[arg(long)]
    pub output: PathBuf,
    /// Threads that compile kernels in each worker (NVRTC).
    #[arg(long, default_value_t = 8)]
    pub workers: usize,
    /// Jobs per worker subprocess.
    #[arg(long, default_value_t = 20)]
    pub batch_size: usize,
    /// Seconds one kernel may take before its worker is killed and the row becomes `timeout`.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub kernel_timeout: u64,
    /// Time a baseline in the same run: `cudnn` (GPU: graph API, every engine configuration
    /// its heuristics offer, each verified) or `reference` (CPU: the f64 reference).
    #[arg(long, value_parser = ["cudnn", "reference"])]
    pub vs: Option<String>,
    /// Skip (kernel, problem) pairs that the output CSV already has.
    #[arg(long)]
    pub resume: bool,
    /// Backend of the workers.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Timed rounds per kernel, at most (the median is reported); exactly this many with
    /// --fixed-repeats. Each round replays up to 10 back-to-back runs from one CUDA graph.
    #[arg(long, default_value_t = 10)]
    pub repeats: u32,
    /// Timed rounds per kernel, at least (adaptive repeats).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub min_repeats: u32,
    /// Milliseconds of measured time per kernel that adaptive repeats aim for: rounds beyond
    /// --min-repeats stop once their total would exceed it, and runs per round shrink so that
    /// a round lasts about 1 ms.
    #[arg(long, default_value_t = 25.0)]
    pub timing_budget_ms: f64,
    /// Time every kernel with exactly 3 warm-up runs and --repeats rounds of 10 runs (the method
    /// before adaptive repeats; early stop still applies unless --early-stop off).
    #[arg(long)]
    pub fixed_repeats: bool,
    /// Stop timing a kernel once the median of its first 3 rounds exceeds this factor times the
    /// best verified latency known on the problem (baselines included; 10x the best already
    /// after its first run). The row stays ok and verified and says it stopped early. `off`
    /// times every kernel in full. At least 1.1.
    #[arg(long, default_value = "1.5", value_parser = parse_early_stop)]
    pub early_stop: EarlyStopArg,
    /// CUDA workers: compile the whole batch before running its first job (by default kernels
    /// compile in the background, in job order, while earlier jobs run).
    #[arg(long)]
    pub no_compile_overlap: bool,
    /// CUDA workers: download every output and compare it with the reference on the host
    /// (by default the comparison runs on the device, with the host's arithmetic, checked
    /// against the host once per problem and worker).
    #[arg(long)]
    pub verify_on_host: bool,
    /// Flush L2 before every timed round.
    #[arg(long)]
    pub cold_l2: bool,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Arguments of `gconv sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// Direction of the sweep: fwd, dgrad or wgrad (or forward, bwd_data, bwd_weight); it must
    /// match the config's `variant`. Problems of other directions are left out (and counted).
    #[arg(long, visible_alias = "direction", value_parser = Direction::parse_any)]
    pub variant: Direction,
    /// Problem set: a registry key, a problem key or a problems file.
    #[arg(long)]
    pub problems: String,
    /// Trait-config JSON giving the kernels.
    #[arg(long)]
    pub config: PathBuf,
    /// Keep only kernels for which this expression holds.
    #[arg(long)]
    pub filter: Option<String>,
    /// Sweep only the first N kernels.
    #[arg(long)]
    pub max_kernels: Option<usize>,
    /// Target architecture.
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
    #[command(flatten)]
    pub run: RunnerArgs,
}

/// `--early-stop`: a factor, or `off`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EarlyStopArg(pub Option<f64>);

fn parse_early_stop(s: &str) -> Result<EarlyStopArg, String> {
    if s == "off" {
        return Ok(EarlyStopArg(None));
    }
    let k: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is neither a factor nor `off`"))?;
    EarlyStop::with_factor(k)
        .map(|_| EarlyStopArg(Some(k)))
        .ok_or_else(|| {
            format!(
                "{s} is below {MIN_EARLY_STOP_FACTOR} (a kernel within a few percent of the best could be stopped) or not finite"
            )
        })
}

fn resolve_backend(b: BackendChoice) -> Result<&'static str> {
    Ok(match b {
        BackendChoice::Cpu => "cpu",
        BackendChoice::Cuda => {
            gconv_cuda::runtime::probe()
                .map_err(|e| anyhow!("--backend cuda: the CUDA backend is not usable: {e}"))?;
            "cuda"
        }
        BackendChoice::Auto => match gconv_cuda::runtime::probe() {
            Ok(d) => {
                eprintln!("note: --backend auto: workers use CUDA on {}", d.name);
                "cuda"
            }
            Err(e) => {
                eprintln!("note: --backend auto: workers use the CPU backend because CUDA is not usable: {e}");
                "cpu"
            }
        },
    })
}

/// `--vs cudnn` needs the CUDA workers, `--vs reference` the CPU ones.
fn check_baseline(vs: Option<&str>, backend: &str) -> Result<()> {
    match (vs, backend) {
        (Some("cudnn"), "cpu") => {
            bail!("--vs cudnn needs the CUDA backend; the CPU backend's baseline is --vs reference")
        }
        (Some("reference"), "cuda") => {
            bail!("--vs reference is the CPU backend's baseline; on the GPU use --vs cudnn")
        }
        _ => Ok(()),
    }
}

fn sweep_options(r: &RunnerArgs, backend: &str) -> Result<SweepOptions> {
    if r.batch_size == 0 {
        bail!("--batch-size must be at least 1");
    }
    if r.repeats == 0 {
        bail!("--repeats must be at least 1");
    }
    if !(r.timing_budget_ms.is_finite() && r.timing_budget_ms >= 0.0) {
        bail!(
            "--timing-budget-ms must be a non-negative number of milliseconds, not {}",
            r.timing_budget_ms
        );
    }
    let exe = std::env::current_exe().context("cannot locate the gconv executable for workers")?;
    let mut o = SweepOptions::new(
        exe,
        vec![
            "worker".into(),
            "--backend".into(),
            backend.into(),
            "--compile-threads".into(),
            r.workers.max(1).to_string(),
        ]
        .into_iter()
        .chain(
            r.no_compile_overlap
                .then(|| "--no-compile-overlap".to_string()),
        )
        .chain(r.verify_on_host.then(|| "--verify-on-host".to_string()))
        .collect(),
        &r.output,
    );
    o.batch_size = r.batch_size;
    o.kernel_timeout = Duration::from_secs(r.kernel_timeout);
    o.resume = r.resume;
    o.timing = TimingOptions {
        repeats: r.repeats,
        cold_l2: r.cold_l2,
        adaptive: (!r.fixed_repeats).then_some(Adaptive {
            min_rounds: r.min_repeats.min(r.repeats),
            budget_ms: r.timing_budget_ms,
            ..Adaptive::default()
        }),
        early_stop: r.early_stop.0.and_then(EarlyStop::with_factor),
        ..TimingOptions::default()
    };
    o.seed = r.seed;
    o.compile_workers = r.workers.max(1);
    if let Some(v) = &r.vs {
        o.baselines = vec![v.clone()];
    }
    o.messages = Some(messages_path(&r.output));
    Ok(o)
}

/// With `--resume`, drops a last row cut by an interrupt (`run_sweep` would drop it silently)
/// and says so: its pair runs again.
fn drop_cut_row(o: &SweepOptions) -> Result<()> {
    if o.resume && o.output.exists() {
        if let Some(tail) = drop_partial_tail(&o.output)? {
            eprintln!(
                "note: --resume: dropped the incomplete last row of {}, {tail}; its pair runs again",
                o.output.display()
            );
        }
    }
    Ok(())
}

fn keep_direction(ps: Vec<Problem>, d: Direction) -> Vec<Problem> {
    let total = ps.len();
    let kept: Vec<Problem> = ps.into_iter().filter(|p| p.direction == d).collect();
    if kept.len() < total {
        eprintln!(
            "note: {} of {total} problems are not {d} and are left out",
            total - kept.len()
        );
    }
    kept
}

/// Runs `gconv sweep`.
pub fn sweep(a: SweepArgs) -> Result<ExitCode> {
    let arch = parse_arch(&a.arch)?;
    let rep = build_instances(&a.config, arch, a.filter.as_deref())?;
    eprintln!("{rep}");
    if a.variant != rep.variant {
        bail!(
            "--variant {} does not match the variant of {} ({})",
            a.variant,
            a.config.display(),
            rep.variant
        );
    }
    let problems = keep_direction(resolve_problems(&a.problems)?, rep.variant);
    let backend = match (rep.backend, a.run.backend) {
        (gconv_tune::traits::Backend::Cpu, BackendChoice::Cuda) => bail!(
            "{} lists CPU variants; they run on the CPU backend, not with --backend cuda",
            a.config.display()
        ),
        (gconv_tune::traits::Backend::Cpu, _) => "cpu",
        (gconv_tune::traits::Backend::Gpu, BackendChoice::Cpu) => bail!(
            "{} lists GPU kernels; they need the CUDA backend, not --backend cpu (CPU variants are in configs/traits/cpu_*.json)",
            a.config.display()
        ),
        (gconv_tune::traits::Backend::Gpu, _) => {
            gconv_cuda::runtime::probe().map_err(|e| {
                anyhow!(
                    "{} lists GPU kernels, but the CUDA backend is not usable: {e} (CPU variants are in configs/traits/cpu_*.json)",
                    a.config.display()
                )
            })?;
            "cuda"
        }
    };
    check_baseline(a.run.vs.as_deref(), backend)?;
    let mut o = sweep_options(&a.run, backend)?;
    o.arch = arch;
    o.max_kernels = a.max_kernels;
    drop_cut_row(&o)?;
    eprintln!("note: timing: {}", o.timing.policy().describe());
    let report = run_sweep(&rep.kernels, &problems, &o)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", report.summary(3))?;
    writeln!(
        out,
        "wrote {} rows to {} ({} skipped by --resume) in {:.1} s",
        report.rows.len(),
        report.output.display(),
        report.skipped,
        report.elapsed.as_secs_f64()
    )?;
    print_failures(&mut out, &report.all_rows(), report.messages.as_deref())?;
    writeln!(out, "{}", report.split)?;
    Ok(ExitCode::SUCCESS)
}

/// After a sweep, bench or report: when a row is not ok, its status counts with the first
/// message or two of each; then where the messages file is (every message, one JSON line each).
fn print_failures(
    out: &mut impl Write,
    rows: &[SweepRow],
    messages: Option<&Path>,
) -> std::io::Result<()> {
    let digest = failure_digest(rows, 2);
    if !digest.is_empty() {
        writeln!(out, "{digest}")?;
    }
    if let Some(m) = messages {
        writeln!(
            out,
            "messages: {} (one JSON line per row with a message: why it was not ok, or the timing method)",
            m.display()
        )?;
    }
    Ok(())
}

/// Arguments of `gconv bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Problem set: a registry key (e.g. model_zoo), a problem key or a problems file.
    #[arg(long, default_value = "model_zoo")]
    pub problems: String,
    /// Only problems of this direction: fwd, dgrad or wgrad (or forward, bwd_data, bwd_weight);
    /// the kernel pools exist for fwd so far.
    #[arg(long, default_value = "fwd", value_parser = Direction::parse_any)]
    pub direction: Direction,
    /// Kernel pools to time: `all` (igemm and direct), `igemm` or `direct`.
    #[arg(long, default_value = "all", value_parser = ["all", "igemm", "direct"])]
    pub family: String,
    #[command(flatten)]
    pub run: RunnerArgs,
}

/// Runs `gconv bench`: the default (igemm) and direct forward pools of every dtype present
/// (or one of them with `--family`), swept over the problems, then per problem the best kernel
/// of the pool, the `auto` choice (within the timed family) and the baseline.
pub fn bench(a: BenchArgs) -> Result<ExitCode> {
    let dir = a.direction;
    let problems = keep_direction(resolve_problems(&a.problems)?, dir);
    if problems.is_empty() {
        bail!("no {dir} problems in {:?}", a.problems);
    }
    let families = match a.family.as_str() {
        "igemm" => Families::Only(Family::Igemm),
        "direct" => Families::Only(Family::Direct),
        _ => Families::All,
    };
    let dtypes: BTreeSet<DType> = problems.iter().map(|p| p.dtype).collect();
    let configs: Vec<KernelConfig> = dtypes
        .iter()
        .flat_map(|d| catalogue::pool(dir, *d, families))
        .collect();
    if configs.is_empty() {
        bail!("no kernel pool exists for {dir} yet");
    }
    let kernels: Vec<String> = configs.iter().map(|c| c.to_string()).collect();
    let backend = resolve_backend(a.run.backend)?;
    if backend != "cuda" {
        bail!("gconv bench measures GPU kernels; it needs the CUDA backend");
    }
    check_baseline(a.run.vs.as_deref(), backend)?;
    let mut o = sweep_options(&a.run, backend)?;
    o.arch = pool_arch(&configs);
    drop_cut_row(&o)?;
    eprintln!("note: timing: {}", o.timing.policy().describe());
    let report = run_sweep(&kernels, &problems, &o)?;
    let rows = report.all_rows();
    let target = Target::arch(o.arch);
    let auto = |p: &Problem| auto_select_in(p, &target, families).map(|a| *a.config());
    let mut out = std::io::stdout().lock();
    print_bench_table(&mut out, &problems, &rows, &o.device, &auto)?;
    writeln!(out, "rows in {}", report.output.display())?;
    print_failures(&mut out, &rows, report.messages.as_deref())?;
    writeln!(out, "{}", report.split)?;
    Ok(ExitCode::SUCCESS)
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

fn best<'a>(rows: &'a [SweepRow], p: &Problem, baseline: bool) -> Option<&'a SweepRow> {
    rows.iter()
        .filter(|r| r.problem == *p && r.is_baseline() == baseline && r.ok_latency_ms().is_some())
        .min_by(|a, b| {
            a.ok_latency_ms()
                .unwrap_or(f64::INFINITY)
                .total_cmp(&b.ok_latency_ms().unwrap_or(f64::INFINITY))
        })
}

/// The selection rule whose pick the bench table shows as `auto`.
type AutoRule<'a> = &'a dyn Fn(&Problem) -> Option<KernelConfig>;

fn print_bench_table(
    out: &mut impl Write,
    problems: &[Problem],
    rows: &[SweepRow],
    dev: &DeviceSpec,
    auto: AutoRule<'_>,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<58} {:>9} {:>7} {:>9} {:>9} {:>8} {:>8}",
        "problem", "best ms", "roof", "auto ms", "base ms", "best/base", "auto/base"
    )?;
    let (mut r_best, mut r_auto, mut roof) = (Vec::new(), Vec::new(), Vec::new());
    let providers: BTreeSet<&str> = rows.iter().filter_map(|r| r.provider()).collect();
    let mut slower = 0usize;
    for p in problems {
        let b = best(rows, p, false);
        let cu = best(rows, p, true).and_then(|r| r.ok_latency_ms());
        let auto_name = auto(p).map(|c| c.to_string());
        let auto_ms = auto_name.as_ref().and_then(|n| {
            rows.iter()
                .find(|r| r.problem == *p && &r.kernel == n)
                .and_then(|r| r.ok_latency_ms())
        });
        let bms = b.and_then(|r| r.ok_latency_ms());
        let fmt = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.4}"));
        let ratio = |a: Option<f64>, c: Option<f64>| match (a, c) {
            (Some(a), Some(c)) => Some(c / a),
            _ => None,
        };
        let rb = ratio(bms, cu);
        let ra = ratio(auto_ms, cu);
        if let Some(x) = rb {
            r_best.push(x);
            if x < 1.0 {
                slower += 1;
            }
        }
        if let Some(x) = ra {
            r_auto.push(x);
        }
        let rf = bms.map(|ms| p.roofline_fraction(dev, ms / 1e3));
        if let Some(f) = rf {
            roof.push(f);
        }
        writeln!(
            out,
            "{:<58} {:>9} {:>7} {:>9} {:>9} {:>8} {:>8}",
            p.to_string(),
            fmt(bms),
            rf.map_or("-".into(), |f| format!("{f:.3}")),
            fmt(auto_ms),
            fmt(cu),
            rb.map_or("-".into(), |x| format!("{x:.2}x")),
            ra.map_or("-".into(), |x| format!("{x:.2}x")),
        )?;
    }
    let g =
        |v: &[f64]| gconv_tune::summary::geomean(v).map_or("-".to_string(), |x| format!("{x:.3}x"));
    writeln!(
        out,
        "baseline: {}",
        if providers.is_empty() {
            "none in the rows".to_string()
        } else {
            providers.into_iter().collect::<Vec<_>>().join(", ")
        }
    )?;
    writeln!(out,
        "geomean: best-in-pool speedup over the best baseline {} ({} problems, {} slower than the baseline), auto {} ({} problems), best-in-pool roofline fraction {}",
        g(&r_best),
        r_best.len(),
        slower,
        g(&r_auto),
        r_auto.len(),
        gconv_tune::summary::geomean(&roof).map_or("-".to_string(), |x| format!("{x:.3}"))
    )?;
    Ok(())
}

/// Arguments of `gconv report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A CSV written by `gconv sweep` or `gconv bench` (its CSV.messages.jsonl, when present,
    /// gives the messages of rows that are not ok).
    pub csv: PathBuf,
    /// Kernels listed per problem in the ranked summary.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub top: u32,
}

/// Runs `gconv report`: the ranked summary of a finished (or interrupted) sweep, and the
/// bench table (best-in-pool, `auto`, best baseline per problem) from its rows.
pub fn report(a: ReportArgs) -> Result<ExitCode> {
    let (mut rows, tail) = read_rows_lenient(&a.csv)?;
    if let Some(tail) = tail {
        eprintln!(
            "warning: {}: skipped the incomplete last row (cut by an interrupt?), {tail}",
            a.csv.display()
        );
    }
    let messages = messages_path(&a.csv);
    let messages = messages.is_file().then_some(messages);
    if let Some(m) = &messages {
        // Messages are an aid; a damaged file only costs the examples.
        if let Err(e) = attach_messages(&mut rows, m) {
            eprintln!(
                "warning: cannot read the messages of {}: {e:#}",
                a.csv.display()
            );
        }
    }
    if rows.is_empty() {
        bail!("{} has no rows", a.csv.display());
    }
    let dev = DeviceSpec::H200;
    let mut out = std::io::stdout().lock();
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
    let auto = |p: &Problem| auto_select_in(p, &Target::H200, Families::All).map(|a| *a.config());
    print_bench_table(&mut out, &problems, &rows, &dev, &auto)?;
    print_failures(&mut out, &rows, messages.as_deref())?;
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `gconv baseline`.
#[derive(Args, Debug)]
pub struct BaselineArgs {
    /// Problem set: a registry key, a problem key or a problems file (any direction).
    #[arg(long)]
    pub problems: String,
    /// Timed rounds per engine configuration (median reported).
    #[arg(long, default_value_t = 5)]
    pub repeats: u32,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Runs `gconv baseline`: cuDNN (graph API, every engine configuration its heuristics offer,
/// each verified) on each problem, in this process; prints the fastest per problem.
pub fn baseline(a: BaselineArgs) -> Result<ExitCode> {
    let problems = resolve_problems(&a.problems)?;
    let rt = gconv_cuda::GpuRuntime::new(0)
        .map_err(|e| anyhow!("gconv baseline needs the CUDA backend, which is not usable: {e}"))?;
    let mut exec = CudaExecutor::new(rt);
    let dev = DeviceSpec::H200;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "problem,cudnn_engine,cudnn_ms,cudnn_roofline_frac,configs_ok,configs_tried"
    )?;
    let limit = gconv_problem::HostMemoryLimit::available();
    for (i, p) in problems.iter().enumerate() {
        if let Err(e) = gconv_problem::check_host_memory(p, true, limit) {
            writeln!(out, "{p},none,,,0,0 ({})", e.to_string().replace(',', ";"))?;
            continue;
        }
        let job = gconv_tune::Job {
            id: i as u64,
            kind: gconv_tune::JobKind::Baseline {
                provider: "cudnn".into(),
            },
            problem: *p,
            timing: gconv_tune::TimingOptions {
                repeats: a.repeats.max(1),
                ..gconv_tune::TimingOptions::adaptive_default()
            },
            seed: a.seed,
            best_ms: None,
        };
        let rows = gconv_tune::Executor::baseline(&mut exec, &job, "cudnn");
        let ok: Vec<_> = rows
            .iter()
            .filter_map(|r| r.result.latency_ms.map(|ms| (ms, &r.kernel)))
            .collect();
        match ok.iter().min_by(|x, y| x.0.total_cmp(&y.0)) {
            Some((ms, name)) => writeln!(
                out,
                "{p},{name},{ms:.4},{:.3},{},{}",
                p.roofline_fraction(&dev, ms / 1e3),
                ok.len(),
                rows.len()
            )?,
            None => writeln!(
                out,
                "{p},none,,,0,{} ({})",
                rows.len(),
                rows.first()
                    .and_then(|r| r.result.message.clone())
                    .unwrap_or_default()
                    .replace(',', ";")
            )?,
        }
    }
    Ok(ExitCode::SUCCESS)
}

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
        let rt = gconv_cuda::GpuRuntime::new(0)
            .map_err(|e| anyhow!("worker: the CUDA backend is not usable: {e}"))?;
        let mut exec = CudaExecutor::with_compile(rt, a.compile_threads, !a.no_compile_overlap);
        if a.verify_on_host {
            exec = exec.compare_on_host();
        }
        worker_main(&mut exec, &mut input, &mut output)?
    } else {
        let mut exec = gconv_tune::cpu::CpuExecutor::new();
        worker_main(&mut exec, &mut input, &mut output)?
    };
    eprintln!("worker: {n} jobs done");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gconv_kernels::select::auto_select;
    use gconv_kernels::{admit, Math};
    use gconv_tune::sweep::{DefaultGate, KernelGate};

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
