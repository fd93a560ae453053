//! The sweep orchestrator: kernels × problems, benchmarked in worker subprocesses — one pool
//! per device, each running its workers one at a time — one CSV row per (kernel, problem) pair
//! written and flushed as each finishes.
//!
//! # What happens to each pair
//!
//! 1. With `resume`, a pair already present in the output CSV (matched on kernel name and
//!    problem *key*) is skipped (counted in [`SweepReport::skipped`]). A last row cut by an
//!    interrupt ([`crate::csv::PartialTail`]) is dropped first, so its pair runs again.
//! 2. A problem whose tensors do not fit in [`SweepOptions::host_memory`]
//!    (`gconv_problem::check_host_memory`, the check `gconv run` uses) is never sent: every
//!    pair of it, baselines included, is written at once as an `unsupported` row whose message
//!    names the memory needed and the limit.
//! 3. The gate ([`KernelGate`]; by default [`DefaultGate`]: `gconv_kernels::admit` for GPU
//!    kernel names, `CpuVariant::can_run` for CPU variant names) decides whether the pair is
//!    sent. A refused pair is written at once as a `rejected` row (or `unsupported` when the
//!    gate says the kernel is valid but the problem is beyond its limits), so that every pair
//!    of the catalogue has a row and nothing vanishes from the counts.
//! 4. The admitted pairs become [`Job`]s, problem-major (each problem's baseline jobs first,
//!    then its kernels), sent in batches of `batch_size` to fresh worker processes. See
//!    [`crate::worker`] for the protocol and what timeouts, crashes and garbage become.
//!
//! Each device ([`SweepOptions::devices`]) has its own pool, which runs one worker at a time:
//! no two timed kernels ever share a device, so timings are not disturbed. The pools take
//! batches from one queue (problem-major, so a batch mostly holds one problem and its worker
//! uploads it once), and every row of a job names the device it ran on. Early stop compares a
//! job with the best latency known on devices of the same name. An empty kernel list or problem
//! list is an error, never an empty success.

use crate::csv::{
    check_sweep_header, drop_partial_tail, read_rows, CsvWriter, DeviceTag, SweepRow,
};
use crate::error::TuneError;
use crate::kernel_ref::KernelRef;
use crate::outfile::check_output_file;
use crate::progress::Progress;
use crate::split::TimeSplit;
use crate::summary::{summarize_with, Summary};
use crate::worker::{
    truncate, BestSoFar, Job, JobKind, Reply, ResultRow, Status, TimingOptions, PROTOCOL_VERSION,
};
use gconv_kernels::select::auto_select;
use gconv_kernels::{admit, Arch, Rejection, Target};
use gconv_problem::{check_host_memory, DeviceSpec, HostMemoryLimit, Problem};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Decides which names are kernels and which (kernel, problem) pairs are sent to a worker.
pub trait KernelGate: Send + Sync {
    /// Is `kernel` a known kernel name at all? `Err(reason)` aborts the sweep before it starts.
    fn known(&self, kernel: &str) -> Result<(), String>;
    /// Does `kernel` run `problem`? `Ok(name)` is the kernel that runs (the same name, or the
    /// name with a field the kernel left to a rule resolved, e.g. a split-K degree `sk0`), which
    /// the job and its row carry; `Err((status, reason))` with status `rejected` or
    /// `unsupported` is written as a row instead of running.
    fn admit(&self, kernel: &str, problem: &Problem) -> Result<String, (Status, String)>;
}

/// The gate every sweep uses unless told otherwise: the kernels crate's one admission step
/// (`gconv_kernels::admit` on `arch`) for GPU kernels — a rejection it marks as
/// `is_unsupported` becomes status `unsupported`, any other `rejected`, and the message starts
/// with the rejection's key — and `can_run` for CPU variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultGate {
    /// Architecture for `validate`.
    pub arch: Arch,
}

impl KernelGate for DefaultGate {
    fn known(&self, kernel: &str) -> Result<(), String> {
        kernel
            .parse::<KernelRef>()
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn admit(&self, kernel: &str, problem: &Problem) -> Result<String, (Status, String)> {
        let spec: KernelRef = kernel
            .parse()
            .map_err(|e: TuneError| (Status::Rejected, e.to_string()))?;
        let target = Target::arch(self.arch);
        match spec {
            KernelRef::Named(cfg) => admit(&cfg, problem, &target)
                .map(|a| a.config().to_string())
                .map_err(|r| rejection_status(&r)),
            KernelRef::Auto => auto_select(problem, &target)
                .map(|_| kernel.to_string())
                .ok_or((
                    Status::Unsupported,
                    format!("no pool member runs {problem}"),
                )),
            KernelRef::Reference => Ok(kernel.to_string()),
            KernelRef::Cpu(v) => {
                if v.can_run(problem) {
                    Ok(kernel.to_string())
                } else {
                    Err((
                        Status::Unsupported,
                        format!("{} cannot run {problem}", v.name()),
                    ))
                }
            }
        }
    }
}

/// The row status and message of a rejection: `unsupported` when the kernel is valid but the
/// problem is beyond its limits, else `rejected`; the message starts with the stable key.
pub fn rejection_status(r: &Rejection) -> (Status, String) {
    let status = if r.is_unsupported() {
        Status::Unsupported
    } else {
        Status::Rejected
    };
    (status, format!("{}: {r}", r.reason()))
}

/// Options of [`run_sweep`]. Build with [`SweepOptions::new`] and adjust fields.
#[derive(Clone)]
pub struct SweepOptions {
    /// Worker program (the real one: the `gconv` binary).
    pub worker_program: PathBuf,
    /// Its arguments (the real ones: `worker --backend cuda|cpu`).
    pub worker_args: Vec<String>,
    /// Extra environment variables for the worker.
    pub worker_env: Vec<(String, String)>,
    /// Jobs per worker process (default 20).
    pub batch_size: usize,
    /// Longest time one job may take, from the previous reply to its `done` (default 60 s).
    pub kernel_timeout: Duration,
    /// Longest time from starting a worker to its first `start` (covers `Executor::prepare`,
    /// which compiles the batch; default 300 s).
    pub startup_timeout: Duration,
    /// Sweep only the first N kernels (after removing duplicate names).
    pub max_kernels: Option<usize>,
    /// Keep an existing output and skip the (kernel, problem) pairs it already has.
    pub resume: bool,
    /// Output CSV.
    pub output: PathBuf,
    /// Where to append one JSON line per row that carries a message (failures, timing method);
    /// `None`: messages are only kept in the report.
    pub messages: Option<PathBuf>,
    /// Timing parameters sent with every job (the library default is the fixed method; the CLI
    /// sends [`TimingOptions::adaptive_default`] unless told otherwise). Each job also carries
    /// the best verified latency known on its problem when its batch starts
    /// ([`Job::best_ms`]), for early stop.
    pub timing: TimingOptions,
    /// Seed of the random inputs sent with every job.
    pub seed: u64,
    /// Baseline providers to run on every problem (for example `["cudnn"]`).
    pub baselines: Vec<String>,
    /// The gate; `None` means [`DefaultGate`] on `arch`.
    pub gate: Option<Arc<dyn KernelGate>>,
    /// Architecture for the default gate.
    pub arch: Arch,
    /// Host memory a worker may use for one problem's tensors and reference; a problem that
    /// needs more is refused (`unsupported` rows) before any worker sees it. `None` checks
    /// nothing. Default: what the machine has available when the options are made.
    pub host_memory: Option<HostMemoryLimit>,
    /// Device of the roofline columns.
    pub device: DeviceSpec,
    /// Show progress on stderr: a bar on a terminal, else plain lines (`crate::progress`).
    pub progress: bool,
    /// Copy the workers' stderr to ours (otherwise only its tail is kept, for crash messages).
    pub forward_worker_stderr: bool,
    /// The devices to time on, one worker pool each (at least one). Each pool runs one worker
    /// at a time, so no two timed kernels share a device; the pools take batches from one
    /// queue. Default: one slot without a tag (rows name no device).
    pub devices: Vec<DeviceSlot>,
}

/// One device of a sweep: what its rows say and how its workers are pointed at it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceSlot {
    /// The device its rows name (`None`: no device columns, the library default).
    pub tag: Option<DeviceTag>,
    /// Arguments appended to [`SweepOptions::worker_args`] for its workers (the CLI passes
    /// `--device ORDINAL`).
    pub worker_args: Vec<String>,
}

impl std::fmt::Debug for SweepOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SweepOptions")
            .field("worker_program", &self.worker_program)
            .field("worker_args", &self.worker_args)
            .field("batch_size", &self.batch_size)
            .field("kernel_timeout", &self.kernel_timeout)
            .field("startup_timeout", &self.startup_timeout)
            .field("max_kernels", &self.max_kernels)
            .field("resume", &self.resume)
            .field("output", &self.output)
            .field("timing", &self.timing)
            .field("seed", &self.seed)
            .field("baselines", &self.baselines)
            .field("gate", &self.gate.is_some())
            .field("arch", &self.arch)
            .field("host_memory", &self.host_memory)
            .field("devices", &self.devices)
            .finish_non_exhaustive()
    }
}

impl SweepOptions {
    /// Options with the defaults: batches of 20, 60 s per kernel, 300 s start-up, no resume,
    /// default timing, seed 1, no baseline, the default gate on sm_90, the host memory now
    /// available, H200 roofline, progress bar on.
    pub fn new(
        worker_program: impl Into<PathBuf>,
        worker_args: Vec<String>,
        output: impl Into<PathBuf>,
    ) -> SweepOptions {
        SweepOptions {
            worker_program: worker_program.into(),
            worker_args,
            worker_env: Vec::new(),
            batch_size: 20,
            kernel_timeout: Duration::from_secs(60),
            startup_timeout: Duration::from_secs(300),
            max_kernels: None,
            resume: false,
            output: output.into(),
            messages: None,
            timing: TimingOptions::default(),
            seed: 1,
            baselines: Vec::new(),
            gate: None,
            arch: Arch::Sm90,
            host_memory: HostMemoryLimit::available(),
            device: DeviceSpec::H200,
            progress: true,
            forward_worker_stderr: false,
            devices: vec![DeviceSlot::default()],
        }
    }
}

/// What a sweep did.
#[derive(Debug, Clone)]
pub struct SweepReport {
    /// The CSV written.
    pub output: PathBuf,
    /// Rows written by this run, in order.
    pub rows: Vec<SweepRow>,
    /// Rows that were already in the CSV (resume).
    pub previous: Vec<SweepRow>,
    /// Pairs skipped because the CSV already had them.
    pub skipped: usize,
    /// Jobs sent to workers (a job re-sent after a crash counts once).
    pub jobs: usize,
    /// Worker processes started.
    pub workers_started: usize,
    /// Wall time.
    pub elapsed: Duration,
    /// Device of the roofline figures.
    pub device: DeviceSpec,
    /// The devices this run timed on (the tagged slots of [`SweepOptions::devices`]).
    pub devices: Vec<DeviceTag>,
    /// The messages file written (`SweepOptions::messages`).
    pub messages: Option<PathBuf>,
    /// Where the time went (printed by `gconv sweep` and `gconv bench`).
    pub split: TimeSplit,
}

impl SweepReport {
    /// Status counts of this run's rows.
    pub fn status_counts(&self) -> BTreeMap<Status, usize> {
        let mut m = BTreeMap::new();
        for r in &self.rows {
            *m.entry(r.status).or_insert(0) += 1;
        }
        m
    }

    /// Previous and new rows together.
    pub fn all_rows(&self) -> Vec<SweepRow> {
        self.previous.iter().chain(&self.rows).cloned().collect()
    }

    /// The summary over all rows of the CSV (previous and new), `top_k` kernels per problem.
    pub fn summary(&self, top_k: usize) -> Summary {
        summarize_with(&self.all_rows(), top_k, &self.device)
    }
}

/// Runs a sweep of `kernels` (names) × `problems`; see the module documentation.
pub fn run_sweep(
    kernels: &[String],
    problems: &[Problem],
    opts: &SweepOptions,
) -> Result<SweepReport, TuneError> {
    let start = Instant::now();
    if kernels.is_empty() {
        return Err(TuneError::NoKernels);
    }
    if problems.is_empty() {
        return Err(TuneError::NoProblems);
    }
    if opts.batch_size == 0 {
        return Err(TuneError::Option {
            option: "batch_size",
            message: "must be at least 1".into(),
        });
    }
    if opts.devices.is_empty() {
        return Err(TuneError::Option {
            option: "devices",
            message: "a sweep needs at least one device".into(),
        });
    }
    if opts.max_kernels == Some(0) {
        return Err(TuneError::Option {
            option: "max_kernels",
            message: "must be at least 1".into(),
        });
    }
    let default_gate = DefaultGate { arch: opts.arch };
    let gate: &dyn KernelGate = match &opts.gate {
        Some(g) => g.as_ref(),
        None => &default_gate,
    };
    // Unique kernels, in order; every name must be known before anything runs.
    let mut seen = HashSet::new();
    let mut names: Vec<&String> = kernels.iter().filter(|k| seen.insert(*k)).collect();
    if let Some(m) = opts.max_kernels {
        names.truncate(m);
    }
    for k in &names {
        gate.known(k).map_err(|reason| TuneError::UnknownKernel {
            name: k.to_string(),
            reason,
        })?;
    }
    for p in &opts.baselines {
        if p.is_empty() || p.contains(':') {
            return Err(TuneError::Option {
                option: "baselines",
                message: format!("provider name {p:?} must be non-empty and contain no ':'"),
            });
        }
    }
    let mut uniq = HashSet::new();
    let problems: Vec<&Problem> = problems
        .iter()
        .filter(|p| uniq.insert(p.to_string()))
        .collect();

    // Every output is checked before any is modified: neither may be a device, a FIFO or a
    // directory, and with --resume the CSV must be a sweep CSV before its tail is touched.
    check_output_file(&opts.output)?;
    if let Some(m) = &opts.messages {
        check_output_file(m)?;
    }
    // Resume: what is already there.
    let mut previous = Vec::new();
    if opts.resume && opts.output.exists() {
        // A row cut by an interrupt is dropped (its pair runs again); callers that want to say
        // so call `drop_partial_tail` first, as the CLI does.
        check_sweep_header(&opts.output)?;
        drop_partial_tail(&opts.output)?;
        previous = read_rows(&opts.output)?;
    }
    if let Some(m) = opts.messages.as_ref().filter(|m| opts.resume && m.exists()) {
        drop_partial_tail(m)?;
    }
    let done: HashSet<(String, String)> = previous
        .iter()
        .map(|r| (r.kernel.clone(), r.problem.to_string()))
        .collect();
    let baseline_done: HashSet<(String, String)> = previous
        .iter()
        .filter_map(|r| r.provider().map(|p| (p.to_string(), r.problem.to_string())))
        .collect();
    // The messages file is opened (not yet truncated) before the CSV is created, so that one
    // that cannot be opened leaves the old results intact; it is emptied once both are open.
    let messages = match &opts.messages {
        None => None,
        Some(path) => Some((
            path,
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| TuneError::io(path, e))?,
        )),
    };
    let writer = if opts.resume {
        CsvWriter::append(&opts.output, opts.device)?
    } else {
        CsvWriter::create(&opts.output, opts.device)?
    };
    let messages = match messages {
        None => None,
        Some((path, file)) => {
            if !opts.resume {
                file.set_len(0).map_err(|e| TuneError::io(path, e))?;
            }
            Some(file)
        }
    };

    // Plan: gate every pair.
    let mut skipped = 0usize;
    let mut refused: Vec<SweepRow> = Vec::new();
    let mut admitted: Vec<(String, &Problem)> = Vec::new(); // (kernel that runs, problem)
    let mut planned: HashSet<(String, String)> = HashSet::new();
    let mut baseline_jobs: Vec<(String, &Problem)> = Vec::new();
    for p in &problems {
        let key = p.to_string();
        // Workers always verify, so the reference buffers count too.
        let too_large = check_host_memory(p, true, opts.host_memory)
            .err()
            .map(|e| e.to_string());
        for prov in &opts.baselines {
            if baseline_done.contains(&(prov.clone(), key.clone())) {
                skipped += 1;
            } else if let Some(msg) = &too_large {
                refused.push(SweepRow::with_status(
                    &format!("{prov}:none"),
                    p,
                    Status::Unsupported,
                    msg.clone(),
                ));
            } else {
                baseline_jobs.push((prov.clone(), p));
            }
        }
        for k in names.iter() {
            if done.contains(&(k.to_string(), key.clone())) {
                skipped += 1;
                continue;
            }
            if let Some(msg) = &too_large {
                refused.push(SweepRow::with_status(
                    k,
                    p,
                    Status::Unsupported,
                    msg.clone(),
                ));
                continue;
            }
            match gate.admit(k, p) {
                // Two names that resolve to one kernel run it once; a resolved name already in
                // the CSV is done.
                Ok(run) => {
                    let pair = (run, key.clone());
                    if done.contains(&pair) {
                        skipped += 1;
                    } else if planned.insert(pair.clone()) {
                        admitted.push((pair.0, p));
                    }
                }
                Err((status, msg)) => refused.push(SweepRow::with_status(k, p, status, msg)),
            }
        }
    }

    let mut jobs: VecDeque<Job> = VecDeque::new();
    let mut next_id = 0u64;
    let mut job = |kind: JobKind, problem: &Problem| {
        next_id += 1;
        Job {
            id: next_id,
            kind,
            problem: *problem,
            timing: opts.timing,
            seed: opts.seed,
            best_ms: None,
        }
    };
    let mut a = 0usize;
    for p in &problems {
        for (prov, bp) in &baseline_jobs {
            if *bp == *p {
                jobs.push_back(job(
                    JobKind::Baseline {
                        provider: prov.clone(),
                    },
                    p,
                ));
            }
        }
        while a < admitted.len() && admitted[a].1 == *p {
            let name = admitted[a].0.clone();
            a += 1;
            jobs.push_back(job(JobKind::Kernel { name }, p));
        }
    }

    let total = (refused.len() + jobs.len()) as u64;
    let bar = Progress::new(total, opts.progress, "rows");
    let mut best: HashMap<String, BestSoFar> = HashMap::new();
    for r in &previous {
        if let Some(ms) = r.ok_latency_ms() {
            if r.max_abs_err.is_some() && r.max_rel_err.is_some() {
                best.entry(device_name(r.device.as_ref()))
                    .or_default()
                    .record_ms(&r.problem, &r.kernel, ms);
            }
        }
    }
    let sink = Mutex::new(Sink {
        writer,
        messages,
        rows: Vec::new(),
        workers_started: 0,
        best,
        split: TimeSplit::default(),
    });
    let ctx = Ctx {
        opts,
        sink,
        bar,
        queue: Mutex::new(jobs),
        stop: AtomicBool::new(false),
        tagged: opts.devices.len() > 1,
    };
    for r in refused {
        ctx.emit(r)?;
        ctx.bar.inc(1);
    }
    let n_jobs = ctx.lock_queue().len();
    ctx.lock_sink().split.plan_ms = start.elapsed().as_secs_f64() * 1e3;
    // One pool per device, each running its workers one at a time; they share the job queue,
    // the CSV and the best latencies (early stop). The first error stops every pool after its
    // batch and is returned.
    let results: Vec<Result<(), TuneError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = opts
            .devices
            .iter()
            .map(|slot| {
                let ctx = &ctx;
                scope.spawn(move || {
                    let r = ctx.run_pool(slot);
                    if r.is_err() {
                        ctx.stop.store(true, Ordering::SeqCst);
                    }
                    r
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(TuneError::Option {
                        option: "devices",
                        message: "a device pool panicked".into(),
                    })
                })
            })
            .collect()
    });
    ctx.bar.finish_and_clear();
    for r in results {
        r?;
    }
    let sink = ctx.sink.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut split = sink.split;
    let elapsed = start.elapsed();
    split.wall_ms = elapsed.as_secs_f64() * 1e3;
    split.workers = sink.workers_started;
    split.devices = opts.devices.len();
    Ok(SweepReport {
        output: opts.output.clone(),
        rows: sink.rows,
        previous,
        skipped,
        jobs: n_jobs,
        workers_started: sink.workers_started,
        elapsed,
        device: opts.device,
        devices: opts.devices.iter().filter_map(|d| d.tag.clone()).collect(),
        messages: opts.messages.clone(),
        split,
    })
}

/// The key of the best-latency table of rows on `device` (`""`: rows without a device, which
/// count for every device).
fn device_name(device: Option<&DeviceTag>) -> String {
    device.map(|d| d.name.clone()).unwrap_or_default()
}

/// How a batch ended.
enum BatchEnd {
    /// Every job has a row.
    Finished,
    /// The job in flight has a row (timeout or crashed); these still need to run.
    Rest(Vec<Job>),
    /// The worker failed before starting any job; nobody is blamed yet, run each job alone.
    Isolate(Vec<Job>),
}

enum Event {
    Line(String),
    Eof,
}

/// A running worker process; killed when dropped.
struct Worker {
    child: Child,
    events: Receiver<Event>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
}

const STDERR_TAIL: usize = 2000;

impl Worker {
    fn spawn(opts: &SweepOptions, slot: &DeviceSlot, jobs: &[Job]) -> Result<Worker, TuneError> {
        let spawn_err = |source| TuneError::WorkerSpawn {
            program: opts.worker_program.display().to_string(),
            source,
        };
        let mut child = Command::new(&opts.worker_program)
            .args(&opts.worker_args)
            .args(&slot.worker_args)
            .envs(opts.worker_env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(spawn_err)?;
        let mut payload = String::new();
        for j in jobs {
            let line = serde_json::to_string(j).map_err(|e| TuneError::Protocol {
                line: 0,
                message: format!("cannot encode job {}: {e}", j.id),
            })?;
            payload.push_str(&line);
            payload.push('\n');
        }
        if let Some(mut stdin) = child.stdin.take() {
            // A worker that dies early makes this write fail; its stdout then closes and the
            // job in flight is recorded as crashed.
            std::thread::spawn(move || {
                let _ = stdin.write_all(payload.as_bytes());
            });
        }
        let (tx, events) = channel();
        if let Some(stdout) = child.stdout.take() {
            std::thread::spawn(move || {
                let mut r = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match r.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                            if tx.send(Event::Line(line)).is_err() {
                                return;
                            }
                        }
                    }
                }
                let _ = tx.send(Event::Eof);
            });
        }
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        if let Some(mut stderr) = child.stderr.take() {
            let tail = Arc::clone(&stderr_tail);
            let forward = opts.forward_worker_stderr;
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if forward {
                        let _ = std::io::stderr().write_all(&buf[..n]);
                    }
                    if let Ok(mut t) = tail.lock() {
                        t.extend_from_slice(&buf[..n]);
                        let len = t.len();
                        if len > 2 * STDERR_TAIL {
                            t.drain(..len - STDERR_TAIL);
                        }
                    }
                }
            });
        }
        Ok(Worker {
            child,
            events,
            stderr_tail,
        })
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits up to `grace` for the process to exit, then kills it; returns how it ended.
    fn reap(&mut self, grace: Duration) -> String {
        let until = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(st)) => return st.to_string(),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
                _ => {
                    self.kill();
                    return "still running; killed".into();
                }
            }
        }
    }

    /// The stderr tail, on one line, for messages (waits briefly for the reader to drain).
    fn stderr_text(&self) -> String {
        std::thread::sleep(Duration::from_millis(50));
        let bytes = self
            .stderr_tail
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let text = text.trim();
        if text.is_empty() {
            return String::new();
        }
        let start = text
            .char_indices()
            .rev()
            .nth(STDERR_TAIL.min(text.len()).saturating_sub(1))
            .map(|(i, _)| i)
            .unwrap_or(0);
        format!("; stderr: {}", text[start..].replace('\n', " | "))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

/// What the device pools share: the options, the output (CSV, messages, rows, best latencies,
/// time split) behind one lock, the progress bar, the job queue and the stop flag.
struct Ctx<'a> {
    opts: &'a SweepOptions,
    sink: Mutex<Sink>,
    bar: Progress,
    queue: Mutex<VecDeque<Job>>,
    /// Set when a pool failed: the others stop after their batch.
    stop: AtomicBool,
    /// Several devices: progress messages say which.
    tagged: bool,
}

struct Sink {
    writer: CsvWriter,
    messages: Option<File>,
    rows: Vec<SweepRow>,
    workers_started: usize,
    /// Best verified latencies by device name (early stop compares on the same kind of
    /// device; `""` holds rows without a device).
    best: HashMap<String, BestSoFar>,
    split: TimeSplit,
}

/// One device's pool: the context and the slot whose workers it starts.
struct Runner<'a, 'c> {
    ctx: &'c Ctx<'a>,
    slot: &'c DeviceSlot,
}

/// Checks the rows of a `done` reply against its job; `Err` is a protocol violation.
fn check_rows(job: &Job, rows: &[ResultRow]) -> Result<Vec<SweepRow>, String> {
    match &job.kind {
        JobKind::Kernel { name } => {
            if rows.len() != 1 || rows[0].kernel != *name {
                return Err(format!(
                    "a kernel job must answer one row for {name:?}, got {:?}",
                    rows.iter().map(|r| r.kernel.as_str()).collect::<Vec<_>>()
                ));
            }
        }
        JobKind::Baseline { provider } => {
            let prefix = format!("{provider}:");
            if rows.is_empty() {
                return Err(format!("baseline job {provider:?} answered no row"));
            }
            if let Some(bad) = rows
                .iter()
                .find(|r| !r.kernel.starts_with(&prefix) || r.kernel.len() == prefix.len())
            {
                return Err(format!(
                    "baseline row {:?} is not labelled {provider}:<engine>",
                    bad.kernel
                ));
            }
        }
    }
    Ok(rows
        .iter()
        .map(|r| {
            let mut row = SweepRow::from_result(&r.kernel, &job.problem, &r.result);
            if row.status == Status::Ok {
                let timed = row.latency_ms.is_some_and(|t| t > 0.0 && t.is_finite());
                let verified = row.max_abs_err.is_some() && row.max_rel_err.is_some();
                if !timed || !verified {
                    row.status = Status::Crashed;
                    row.message = Some(format!(
                        "worker reported ok {} (latency {:?}, max_abs_err {:?}, max_rel_err {:?})",
                        if timed {
                            "without verification errors"
                        } else {
                            "without a valid latency"
                        },
                        row.latency_ms,
                        row.max_abs_err,
                        row.max_rel_err
                    ));
                }
            }
            row
        })
        .collect())
}

impl Ctx<'_> {
    fn lock_sink(&self) -> std::sync::MutexGuard<'_, Sink> {
        self.sink.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_queue(&self) -> std::sync::MutexGuard<'_, VecDeque<Job>> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn emit(&self, row: SweepRow) -> Result<(), TuneError> {
        let mut sink = self.lock_sink();
        sink.writer.write_row(&row)?;
        if let (Some(f), Some(msg)) = (&mut sink.messages, &row.message) {
            let line = serde_json::json!({
                "kernel": row.kernel,
                "problem": row.problem.to_string(),
                "status": row.status.token(),
                "message": msg,
            });
            let path = self.opts.messages.clone().unwrap_or_default();
            writeln!(f, "{line}")
                .and_then(|_| f.flush())
                .map_err(|e| TuneError::io(path, e))?;
        }
        if let Some(ms) = row.ok_latency_ms() {
            sink.best
                .entry(device_name(row.device.as_ref()))
                .or_default()
                .record_ms(&row.problem, &row.kernel, ms);
        }
        sink.rows.push(row);
        Ok(())
    }

    /// The best latency early stop uses for `job` on `slot`: rows on devices of the same name
    /// and rows without a device.
    fn best_for(&self, slot: &DeviceSlot, job: &Job) -> Option<f64> {
        let sink = self.lock_sink();
        let name = device_name(slot.tag.as_ref());
        let mine = sink.best.get(&name).and_then(|b| b.for_job(job));
        let untagged = sink.best.get("").and_then(|b| b.for_job(job));
        match (mine, untagged) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs batches from the shared queue on `slot` until the queue is empty (or another pool
    /// failed). Jobs a batch returns (after a timeout or crash) go back to the front of the
    /// queue; a batch to isolate is run one job per worker on this device.
    fn run_pool(&self, slot: &DeviceSlot) -> Result<(), TuneError> {
        let runner = Runner { ctx: self, slot };
        // Jobs of a batch whose worker failed before starting any job (start-up timeout, crash
        // or garbage during `prepare`) are retried one per worker, so that only the culprit is
        // blamed.
        let mut singles: VecDeque<Job> = VecDeque::new();
        while !self.stop.load(Ordering::SeqCst) {
            let batch: Vec<Job> = if let Some(j) = singles.pop_front() {
                vec![j]
            } else {
                let mut q = self.lock_queue();
                if q.is_empty() {
                    break;
                }
                let take = self.opts.batch_size.min(q.len());
                q.drain(..take).collect()
            };
            let batch = batch
                .into_iter()
                .map(|mut j| {
                    j.best_ms = self.best_for(slot, &j);
                    j
                })
                .collect();
            let batch_start = Instant::now();
            let end = runner.run_batch(batch)?;
            self.lock_sink().split.batches_ms += batch_start.elapsed().as_secs_f64() * 1e3;
            match end {
                BatchEnd::Finished => {}
                BatchEnd::Rest(rest) => {
                    let mut q = self.lock_queue();
                    for j in rest.into_iter().rev() {
                        q.push_front(j);
                    }
                }
                BatchEnd::Isolate(all) => singles.extend(all),
            }
        }
        Ok(())
    }
}

impl Runner<'_, '_> {
    /// A row of a job this pool ran: it carries the device.
    fn emit(&self, mut row: SweepRow) -> Result<(), TuneError> {
        row.device = self.slot.tag.clone();
        self.ctx.emit(row)
    }

    fn fail(&self, job: &Job, status: Status, message: String) -> Result<(), TuneError> {
        let label = match &job.kind {
            JobKind::Kernel { name } => name.clone(),
            JobKind::Baseline { provider } => format!("{provider}:none"),
        };
        self.ctx.bar.inc(1);
        self.emit(SweepRow::with_status(&label, &job.problem, status, message))
    }

    /// Runs one batch in a fresh worker. After a timeout, crash or protocol violation the job
    /// in flight gets its row and the jobs after it are returned to run again; when the worker
    /// fails before starting any job of a batch of several, the whole batch is returned for
    /// isolation instead.
    fn run_batch(&self, batch: Vec<Job>) -> Result<BatchEnd, TuneError> {
        let opts = self.ctx.opts;
        let spawned = Instant::now();
        let mut w = Worker::spawn(opts, self.slot, &batch)?;
        self.ctx.lock_sink().workers_started += 1;
        let mut i = 0usize;
        let mut started = false;
        let mut replied = false;
        // When the worker said hello and when the job in flight started (phase accounting).
        let mut hello_at: Option<Instant> = None;
        let mut job_start = Instant::now();
        let mut deadline = Instant::now() + opts.startup_timeout;
        while i < batch.len() {
            let job = &batch[i];
            let on = match (&self.slot.tag, self.ctx.tagged) {
                (Some(t), true) => format!("[#{}] ", t.index),
                _ => String::new(),
            };
            self.ctx
                .bar
                .set_message(format!("{on}{} on {}", job.label(), job.problem));
            let now = Instant::now();
            let event = if now >= deadline {
                None
            } else {
                match w.events.recv_timeout(deadline - now) {
                    Ok(e) => Some(e),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => Some(Event::Eof),
                }
            };
            let violation = match event {
                None => {
                    w.kill();
                    if !replied && batch.len() > 1 {
                        return Ok(BatchEnd::Isolate(batch));
                    }
                    let msg = if replied || started {
                        format!(
                            "no result within the per-kernel timeout of {:.1} s; worker killed",
                            opts.kernel_timeout.as_secs_f64()
                        )
                    } else {
                        format!(
                            "the worker did not start this job within the start-up timeout of {:.1} s (prepare of the batch); worker killed",
                            opts.startup_timeout.as_secs_f64()
                        )
                    };
                    let msg = format!("{msg}{}", w.stderr_text());
                    self.fail(job, Status::Timeout, msg)?;
                    return Ok(BatchEnd::Rest(batch[i + 1..].to_vec()));
                }
                Some(Event::Eof) => {
                    let how = w.reap(Duration::from_secs(2));
                    if !replied && batch.len() > 1 {
                        return Ok(BatchEnd::Isolate(batch));
                    }
                    let msg = format!(
                        "the worker exited ({how}) before finishing this job{}",
                        w.stderr_text()
                    );
                    self.fail(job, Status::Crashed, msg)?;
                    return Ok(BatchEnd::Rest(batch[i + 1..].to_vec()));
                }
                Some(Event::Line(line)) => match serde_json::from_str::<Reply>(&line) {
                    Err(e) => Some(format!(
                        "unparseable line ({e}): {:?}",
                        truncate(&line, 200)
                    )),
                    Ok(Reply::Hello { protocol }) if protocol != PROTOCOL_VERSION => Some(format!(
                        "worker speaks protocol {protocol}, expected {PROTOCOL_VERSION}"
                    )),
                    Ok(Reply::Hello { .. }) => {
                        let now = Instant::now();
                        self.ctx.lock_sink().split.startup_ms +=
                            (now - spawned).as_secs_f64() * 1e3;
                        hello_at = Some(now);
                        None
                    }
                    Ok(Reply::Start { id }) if id == job.id => {
                        let now = Instant::now();
                        if !replied {
                            if let Some(h) = hello_at {
                                self.ctx.lock_sink().split.prepare_ms +=
                                    (now - h).as_secs_f64() * 1e3;
                            }
                        }
                        job_start = now;
                        started = true;
                        replied = true;
                        deadline = Instant::now() + opts.kernel_timeout;
                        None
                    }
                    Ok(Reply::Done { id, rows }) if id == job.id => match check_rows(job, &rows) {
                        Ok(checked) => {
                            let job_ms = job_start.elapsed().as_secs_f64() * 1e3;
                            self.ctx.lock_sink().split.add_job(job, &rows, job_ms);
                            let rows = checked;
                            for r in rows {
                                self.emit(r)?;
                            }
                            self.ctx.bar.inc(1);
                            i += 1;
                            started = false;
                            replied = true;
                            deadline = Instant::now() + opts.kernel_timeout;
                            None
                        }
                        Err(msg) => Some(msg),
                    },
                    Ok(Reply::Start { id } | Reply::Done { id, .. }) => Some(format!(
                        "reply for job {id} while job {} is in flight: {:?}",
                        job.id,
                        truncate(&line, 200)
                    )),
                },
            };
            if let Some(v) = violation {
                w.kill();
                if !replied && batch.len() > 1 {
                    return Ok(BatchEnd::Isolate(batch));
                }
                let msg = format!(
                    "worker protocol violation: {v}; worker killed{}",
                    w.stderr_text()
                );
                self.fail(job, Status::Crashed, msg)?;
                return Ok(BatchEnd::Rest(batch[i + 1..].to_vec()));
            }
        }
        w.reap(Duration::from_secs(10));
        Ok(BatchEnd::Finished)
    }
}

/// Reads the kernel names of a `--kernels` list file (one per line, `#` comments); used by the
/// CLI and tests.
pub fn read_kernel_list(path: &Path) -> Result<Vec<String>, TuneError> {
    let text = std::fs::read_to_string(path).map_err(|e| TuneError::io(path, e))?;
    Ok(text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::JobResult;
    use gconv_kernels::KernelConfig;
    use gconv_reference::CpuVariant;

    fn job(kind: JobKind) -> Job {
        Job {
            id: 1,
            kind,
            problem: "fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1".parse().unwrap(),
            timing: TimingOptions::default(),
            seed: 0,
            best_ms: None,
        }
    }

    #[test]
    fn rows_must_fit_the_job() {
        let k = job(JobKind::Kernel { name: "a".into() });
        let ok = |kernel: &str, r: JobResult| ResultRow {
            kernel: kernel.into(),
            result: r,
        };
        assert!(check_rows(&k, &[ok("a", JobResult::ok(1.0, 0.0, 0.0))]).is_ok());
        assert!(check_rows(&k, &[ok("b", JobResult::ok(1.0, 0.0, 0.0))]).is_err());
        assert!(check_rows(&k, &[]).is_err());
        // ok without verification becomes crashed
        let mut r = JobResult::ok(1.0, 0.0, 0.0);
        r.max_abs_err = None;
        let rows = check_rows(&k, &[ok("a", r)]).unwrap();
        assert_eq!(rows[0].status, Status::Crashed);
        // ok with a zero latency becomes crashed
        let rows = check_rows(&k, &[ok("a", JobResult::ok(0.0, 0.0, 0.0))]).unwrap();
        assert_eq!(rows[0].status, Status::Crashed);

        let b = job(JobKind::Baseline {
            provider: "cudnn".into(),
        });
        let mut unverified = JobResult::ok(1.0, 0.0, 0.0);
        unverified.max_abs_err = None;
        unverified.max_rel_err = None;
        let rows = check_rows(&b, &[ok("cudnn:e1", unverified.clone())]).unwrap();
        assert_eq!(
            rows[0].status,
            Status::Crashed,
            "unverified baselines are not ranked"
        );
        assert!(check_rows(&b, &[ok("cudnn:", unverified.clone())]).is_err());
        assert!(check_rows(&b, &[ok("torch:e1", unverified)]).is_err());
        assert!(check_rows(&b, &[]).is_err());
    }

    #[test]
    fn kernel_spec_parses_both_kinds() {
        assert!(matches!(
            "cpu_direct".parse::<KernelRef>(),
            Ok(KernelRef::Cpu(CpuVariant::Direct))
        ));
        let name = KernelConfig::default().to_string();
        assert!(matches!(name.parse::<KernelRef>(), Ok(KernelRef::Named(_))));
        let e = "nope".parse::<KernelRef>().unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
    }

    #[test]
    fn default_gate_rejects_direction_mismatch() {
        let gate = DefaultGate { arch: Arch::Sm90 };
        let name = KernelConfig::default().to_string();
        let p: Problem = "dgrad_bf16_n1_g1_c16_k16_i8x8_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let (status, msg) = gate.admit(&name, &p).unwrap_err();
        assert_eq!(status, Status::Rejected);
        assert!(!msg.is_empty());
        assert!(gate.admit("cpu_direct", &p).is_ok());
    }

    #[test]
    fn problems_too_large_for_host_memory_are_unsupported_rows_and_never_sent() {
        let dir = tempfile::tempdir().unwrap();
        // A worker that would fail every job: none may be started.
        let mut opts = SweepOptions::new("/nonexistent/worker", vec![], dir.path().join("m.csv"));
        opts.progress = false;
        opts.baselines = vec!["reference".into()];
        let small: Problem = "fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1".parse().unwrap();
        opts.host_memory = Some(HostMemoryLimit {
            bytes: gconv_problem::host_bytes_needed(&small, true) - 1,
            origin: "a test limit",
        });
        let kernels = vec!["cpu_direct".to_string(), "cpu_im2col_gemm".to_string()];
        let r = run_sweep(&kernels, &[small], &opts).unwrap();
        assert_eq!(r.workers_started, 0);
        assert_eq!(r.jobs, 0);
        assert_eq!(r.rows.len(), 3, "two kernels and the baseline");
        for row in &r.rows {
            assert_eq!(row.status, Status::Unsupported, "{row:?}");
            let msg = row.message.as_deref().unwrap_or("");
            assert!(
                msg.contains("GiB of host memory") && msg.contains("a test limit"),
                "{msg}"
            );
        }
        assert!(r.rows.iter().any(|row| row.kernel == "reference:none"));
        assert_eq!(r.status_counts()[&Status::Unsupported], 3);
        assert_eq!(r.summary(3).kernel_status[&Status::Unsupported], 2);
        assert_eq!(read_rows(&opts.output).unwrap().len(), 3);
    }

    #[test]
    fn empty_inputs_are_errors() {
        let opts = SweepOptions::new("/bin/false", vec![], "/nonexistent/x.csv");
        let p: Problem = "fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1".parse().unwrap();
        assert!(matches!(
            run_sweep(&[], &[p], &opts),
            Err(TuneError::NoKernels)
        ));
        assert!(matches!(
            run_sweep(&["cpu_direct".into()], &[], &opts),
            Err(TuneError::NoProblems)
        ));
        assert!(matches!(
            run_sweep(&["bogus".into()], &[p], &opts),
            Err(TuneError::UnknownKernel { .. })
        ));
    }
}
