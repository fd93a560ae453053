//! What `sweep` and `bench` share before they run: the runner options ([`RunnerArgs`], with
//! `--early-stop`, `--gpus` and `--shard`) and their translation into
//! `gconv_tune::SweepOptions` (one device pool per GPU), the shard of the problem set and its
//! output file, the `--arch` parser (also used by `kernels`), the backend and baseline checks,
//! the `--resume` cut-row note and the direction filter.

use crate::backend::BackendChoice;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use gconv_kernels::Arch;
use gconv_problem::measure::{Adaptive, EarlyStop, MIN_EARLY_STOP_FACTOR};
use gconv_problem::{Direction, Problem};
use gconv_tune::csv::{check_sweep_header, drop_partial_tail, has_gzip_bytes, messages_path};
use gconv_tune::outfile::check_output_file;
use gconv_tune::shard::{Shard, ShardSpec};
use gconv_tune::{DeviceSlot, DeviceTag, SweepOptions, TimingOptions};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Options shared by `sweep` and `bench`.
#[derive(Args, Debug)]
pub struct RunnerArgs {
    /// Output CSV, one row per (kernel, problem), flushed as each finishes; why a row failed
    /// goes to OUTPUT.messages.jsonl next to it.
    #[arg(long)]
    pub output: PathBuf,
    /// Threads that compile kernels in each worker (NVRTC), 1 to 4 × max(CPUs, 64). Default:
    /// the host's CPUs divided by the number of GPUs (device pools run side by side).
    #[arg(long)]
    pub workers: Option<usize>,
    /// GPUs to time on, one worker pool each: `all` (every GPU this process sees, after
    /// CUDA_VISIBLE_DEVICES) or ordinals such as `0,2`. No two timed kernels ever share a GPU;
    /// rows name the device they ran on. CUDA backend only.
    #[arg(long, default_value = "all")]
    pub gpus: String,
    /// Run only shard INDEX/COUNT of the problem set (0-based; problems are assigned by a stable
    /// hash of their key), writing OUTPUT with `.shard-INDEX-of-COUNT` before its extension;
    /// `slurm` takes the shard from the Slurm job-array variables (the default inside a job
    /// array, where SLURM_ARRAY_TASK_ID is set); `none` runs the whole set. `gconv merge`
    /// joins the shards' CSVs.
    #[arg(long)]
    pub shard: Option<String>,
    /// The job array's index list, as given to `sbatch --array` (e.g. `1,2,7` or `0-30:10,45`),
    /// for arrays that are not one evenly stepped range; the task's shard is the position of
    /// SLURM_ARRAY_TASK_ID in it.
    #[arg(long)]
    pub shard_indices: Option<String>,
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
    /// Skip (kernel, problem) pairs that the output CSV already has, appending the rest.
    #[arg(long, conflicts_with = "overwrite")]
    pub resume: bool,
    /// Replace an output CSV that already holds rows (without it, or --resume, such an
    /// output is refused: its rows are never lost by accident).
    #[arg(long)]
    pub overwrite: bool,
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

/// Parses `--arch` (sm_90 or sm_90a).
pub fn parse_arch(s: &str) -> Result<Arch> {
    Arch::parse(s).ok_or_else(|| anyhow!("unknown --arch {s:?} (expected sm_90 or sm_90a)"))
}

/// Resolves `--backend` to the workers' backend, `cpu` or `cuda`; `auto` says on stderr
/// which it chose and why.
pub fn resolve_backend(b: BackendChoice) -> Result<&'static str> {
    Ok(match b {
        BackendChoice::Cpu => "cpu",
        BackendChoice::Cuda => {
            gconv_cuda::runtime::probe()
                .map_err(|e| anyhow!("--backend cuda: the CUDA backend is not usable: {e}"))?;
            "cuda"
        }
        BackendChoice::Auto => match gconv_cuda::runtime::probe() {
            Ok(d) => {
                crate::output::note!("note: --backend auto: workers use CUDA on {}", d.name);
                "cuda"
            }
            Err(e) => {
                crate::output::note!("note: --backend auto: workers use the CPU backend because CUDA is not usable: {e}");
                "cpu"
            }
        },
    })
}

/// `--vs cudnn` needs the CUDA workers, `--vs reference` the CPU ones.
pub fn check_baseline(vs: Option<&str>, backend: &str) -> Result<()> {
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

/// The devices of `--gpus` on this backend: one slot per GPU (tagged with the driver's name and
/// the ordinal, workers started with `--device ORDINAL`), or the CPU as one device.
pub fn device_slots(gpus: &str, backend: &str) -> Result<Vec<DeviceSlot>> {
    if backend != "cuda" {
        if gpus != "all" {
            bail!("--gpus {gpus}: GPUs are for the CUDA backend; the CPU backend runs one worker pool on the host");
        }
        return Ok(vec![DeviceSlot {
            tag: Some(DeviceTag {
                name: "cpu".into(),
                index: 0,
            }),
            worker_args: Vec::new(),
        }]);
    }
    let all = gconv_cuda::runtime::probe_all()
        .map_err(|e| anyhow!("--gpus {gpus}: cannot list the GPUs: {e}"))?;
    let visible = std::env::var("CUDA_VISIBLE_DEVICES")
        .map(|v| format!(" (CUDA_VISIBLE_DEVICES={v:?})"))
        .unwrap_or_default();
    let chosen: Vec<usize> = if gpus == "all" {
        (0..all.len()).collect()
    } else {
        let mut v = Vec::new();
        for t in gpus.split(',') {
            let i: usize = t.trim().parse().map_err(|_| {
                anyhow!("--gpus {gpus}: {t:?} is not a GPU ordinal (expected `all` or a list such as 0,1)")
            })?;
            if i >= all.len() {
                bail!(
                    "--gpus {gpus}: GPU {i} does not exist; this process sees {} GPU(s){visible}, ordinals 0..{}",
                    all.len(),
                    all.len() - 1
                );
            }
            if v.contains(&i) {
                bail!("--gpus {gpus}: GPU {i} is listed twice");
            }
            v.push(i);
        }
        v
    };
    if chosen.is_empty() {
        bail!("--gpus {gpus}: no GPU chosen");
    }
    Ok(chosen
        .into_iter()
        .map(|i| DeviceSlot {
            tag: Some(DeviceTag {
                name: all[i].name.clone(),
                index: i as u32,
            }),
            worker_args: vec!["--device".into(), i.to_string()],
        })
        .collect())
}

/// Resolves `--shard`/`--shard-indices` (with the Slurm default) and keeps the shard's
/// problems; when sharded, points `--output` at the shard's file and says so on stderr.
pub fn shard_problems(r: &mut RunnerArgs, problems: Vec<Problem>) -> Result<Vec<Problem>> {
    let env = |k: &str| std::env::var(k).ok();
    let spec = match (r.shard.as_deref(), &r.shard_indices) {
        (Some("none"), Some(_)) => bail!("--shard none and --shard-indices contradict each other"),
        (Some("none"), None) => ShardSpec::None,
        (Some("slurm") | None, Some(list)) => ShardSpec::SlurmList(list.clone()),
        (Some("slurm"), None) => ShardSpec::Slurm,
        (None, None) => ShardSpec::default_from(&env),
        (Some(s), None) => ShardSpec::Explicit(Shard::parse(s)?),
        (Some(s), Some(_)) => bail!(
            "--shard {s} and --shard-indices: the index list is for the Slurm shard; give one or the other"
        ),
    };
    let Some(resolved) = spec.resolve(&env)? else {
        return Ok(problems);
    };
    let total = problems.len();
    let mine = resolved.shard.select(problems);
    r.output = resolved.shard.output_path(&r.output);
    crate::output::note!(
        "note: shard {} from {}: {} of {total} problems; output {}",
        resolved.shard,
        resolved.origin,
        mine.len(),
        r.output.display()
    );
    Ok(mine)
}

/// An output that already holds rows is kept unless `--resume` (add to it) or `--overwrite`
/// (replace it) says what to do with it: a command repeated with the same `--output` would
/// otherwise replace hours of measurements. An empty or header-only file, or none, is free.
/// Called once the shard has named the output ([`shard_problems`]).
pub fn check_output(r: &RunnerArgs) -> Result<()> {
    // A device, FIFO or directory (as the CSV or its messages file) is refused before anything
    // opens it (opening a FIFO to count its rows would wait for a writer).
    check_output_file(&r.output)?;
    check_output_file(&messages_path(&r.output))?;
    if r.resume || r.overwrite {
        return Ok(());
    }
    let rows = match rows_held(&r.output) {
        Ok(rows) => rows,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", r.output.display())),
    };
    if rows > 0 {
        bail!(
            "{} already holds results; pass --resume to add to it (the pairs it has are \
             skipped) or --overwrite to replace it, or choose another --output",
            r.output.display()
        );
    }
    Ok(())
}

/// Non-blank lines after the header of the CSV at `path`, counted up to 2 (enough to tell
/// none from some); a gzip file, or a first line that is not a sweep CSV's header (another
/// file given as `--output` by mistake), counts as holding rows.
fn rows_held(path: &std::path::Path) -> std::io::Result<usize> {
    use std::io::{BufRead, Read};
    let mut f = std::io::BufReader::new(std::fs::File::open(path)?);
    if has_gzip_bytes(path) {
        return Ok(2);
    }
    let mut rows = 0;
    let mut line = Vec::new();
    for i in 0..3 {
        line.clear();
        if f.by_ref().take(1 << 20).read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let blank = line.iter().all(u8::is_ascii_whitespace);
        if (i > 0 && !blank) || (i == 0 && !blank && !line.starts_with(b"kernel,problem,")) {
            rows += 1;
        }
    }
    Ok(rows)
}

/// A shard that owns no problem still leaves its CSV (header only), so that `gconv merge` of
/// every shard's file works; says so on stdout.
pub fn write_empty_shard(r: &RunnerArgs) -> Result<()> {
    if r.resume && r.output.exists() {
        return Ok(());
    }
    std::fs::write(&r.output, format!("{}\n", gconv_tune::COLUMNS.join(",")))
        .with_context(|| format!("cannot write {}", r.output.display()))?;
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "this shard owns none of the problems; wrote the header only to {}",
        r.output.display()
    )?;
    Ok(())
}

/// `--workers`: compile threads, 1 to 4 × max(`cpus`, 64) (a pool of 100,000 threads takes
/// minutes to start and the machine's memory with it).
pub fn check_compile_threads(n: usize, cpus: usize) -> Result<usize> {
    let most = 4 * cpus.max(64);
    if n == 0 || n > most {
        bail!("--workers {n}: 1 to {most} compile threads on this machine of {cpus} CPUs");
    }
    Ok(n)
}

/// The sweep options of the runner arguments, for workers of this backend.
pub fn sweep_options(r: &RunnerArgs, backend: &str) -> Result<SweepOptions> {
    if r.batch_size == 0 {
        bail!("--batch-size must be at least 1");
    }
    if r.repeats == 0 {
        bail!("--repeats must be at least 1");
    }
    // An hour of timing per kernel is past any use (and past what a kernel timeout allows).
    if !(r.timing_budget_ms.is_finite() && (0.0..=3.6e6).contains(&r.timing_budget_ms)) {
        bail!(
            "--timing-budget-ms must be 0 to 3600000 milliseconds (an hour per kernel), not {:?}",
            r.timing_budget_ms
        );
    }
    let devices = device_slots(&r.gpus, backend)?;
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(8);
    let compile_threads = match r.workers {
        // Each worker process starts a pool of this many compile threads.
        Some(n) => check_compile_threads(n, cpus)?,
        None => (cpus / devices.len()).max(1),
    };
    let exe = std::env::current_exe().context("cannot locate the gconv executable for workers")?;
    let mut o = SweepOptions::new(
        exe,
        vec![
            "worker".into(),
            "--backend".into(),
            backend.into(),
            "--compile-threads".into(),
            compile_threads.to_string(),
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
    if let Some(v) = &r.vs {
        o.baselines = vec![v.clone()];
    }
    o.messages = Some(messages_path(&r.output));
    o.devices = devices;
    Ok(o)
}

/// With `--resume`, drops a last row cut by an interrupt (`run_sweep` would drop it silently)
/// and says so: its pair runs again. A file that is not a sweep CSV is refused first, untouched.
pub fn drop_cut_row(o: &SweepOptions) -> Result<()> {
    if o.resume && o.output.exists() {
        check_sweep_header(&o.output)?;
        if let Some(tail) = drop_partial_tail(&o.output)? {
            crate::output::note!(
                "note: --resume: dropped the incomplete last row of {}, {tail}; its pair runs again",
                o.output.display()
            );
        }
    }
    Ok(())
}

/// Keeps the problems of direction `d`; says on stderr how many were left out.
pub fn keep_direction(ps: Vec<Problem>, d: Direction) -> Vec<Problem> {
    let total = ps.len();
    let kept: Vec<Problem> = ps.into_iter().filter(|p| p.direction == d).collect();
    if kept.len() < total {
        crate::output::note!(
            "note: {} of {total} problems are not {d} and are left out \
             (one direction per run: --direction)",
            total - kept.len()
        );
    }
    kept
}
