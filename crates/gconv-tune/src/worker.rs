//! The worker protocol: what the sweep orchestrator sends to a worker subprocess, what the
//! worker answers, and the worker side ([`Executor`], [`worker_main`]).
//!
//! # Protocol (version 1)
//!
//! The orchestrator starts `<worker program> <args>` with piped stdin, stdout and stderr, writes
//! one batch of jobs to its stdin, one JSON object per line ([`Job`]), and closes stdin. The
//! worker reads every job until end of input, calls [`Executor::prepare`] once with the whole
//! batch (the place to compile the batch's kernels in parallel), then runs the jobs in order.
//! On stdout it writes one JSON object per line ([`Reply`]):
//!
//! ```text
//! {"type":"hello","protocol":1}                          once, first
//! {"type":"start","id":7}                                before job 7 runs
//! {"type":"done","id":7,"rows":[{"kernel":"...","result":{"status":"ok",...}}]}
//! ```
//!
//! Fields added after version 1 first shipped are optional both ways, so that older lines keep
//! parsing and keep their meaning: a job's `best_ms` (the best verified latency known on its
//! problem, for early stop) and its timing's `iters`, `adaptive` and `early_stop` (absent: the
//! fixed method); a result's `rounds`, `iters`, `stopped_early` (what its latency is the median
//! of) and `phases` (where the job's time went in the worker, [`PhaseTimes`]). Unknown fields
//! are ignored.
//!
//! A kernel job's `done` carries exactly one row, whose `kernel` is the job's kernel name. A
//! baseline job (`{"type":"baseline","provider":"cudnn"}`) carries one row or more, each
//! labelled `<provider>:<engine>` (for example `cudnn:eng4`). Jobs are answered in the order
//! they were sent. Nothing else may be written to stdout (diagnostics go to stderr, which the
//! orchestrator keeps a tail of); a line that is not a valid reply is a protocol violation.
//!
//! # What the orchestrator makes of misbehaviour
//!
//! - no `done` within the per-kernel timeout after the previous reply (or within the start-up
//!   timeout for the first job): the worker is killed, the job gets status `timeout`, the rest
//!   of the batch runs in a fresh worker;
//! - stdout closes (the worker exited or crashed) before every job is done: the job in flight
//!   gets `crashed` (with the exit status and the stderr tail), the rest runs in a fresh worker;
//! - a line that does not parse, an out-of-order id, or a `done` whose rows do not fit the job:
//!   the job in flight gets `crashed` with the offending line quoted, the worker is killed and
//!   the rest runs in a fresh worker;
//! - the worker fails in any of these ways before it starts the first job of a batch of
//!   several (that is, in `prepare`): nobody can be blamed yet, so each job of the batch runs
//!   again alone in its own worker, where a failure does name the culprit;
//! - an `ok` row (kernel or baseline) without a positive latency or without `max_abs_err`/`max_rel_err` (the
//!   proof that it was verified) becomes `crashed`: no unverified or untimed kernel is ranked.

use crate::error::TuneError;
use gconv_problem::measure::{Adaptive, EarlyStop, Outcome, RepeatPolicy};
use gconv_problem::Problem;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, Write};
use std::str::FromStr;

/// Protocol version written in the `hello` reply.
pub const PROTOCOL_VERSION: u32 = 1;

/// The outcome of one (kernel, problem) pair; the `status` column of the CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Verified and timed.
    Ok,
    /// The gates (`validate` / `can_implement`) refuse the pair; never sent to a worker.
    Rejected,
    /// The pair is a valid kernel but the problem is outside what it supports (index width,
    /// grid limits), or the backend cannot run it.
    Unsupported,
    /// The kernel did not compile.
    CompileError,
    /// The launch (or a CPU run) returned an error.
    LaunchError,
    /// No answer within the per-kernel timeout; the worker was killed.
    Timeout,
    /// The worker died or broke the protocol while running the job.
    Crashed,
    /// The result differs from the reference beyond the tolerance.
    Incorrect,
}

impl Status {
    /// Every status, in CSV documentation order.
    pub const ALL: [Status; 8] = [
        Status::Ok,
        Status::Rejected,
        Status::Unsupported,
        Status::CompileError,
        Status::LaunchError,
        Status::Timeout,
        Status::Crashed,
        Status::Incorrect,
    ];

    /// The CSV token (`ok`, `compile_error`, ...).
    pub fn token(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Rejected => "rejected",
            Status::Unsupported => "unsupported",
            Status::CompileError => "compile_error",
            Status::LaunchError => "launch_error",
            Status::Timeout => "timeout",
            Status::Crashed => "crashed",
            Status::Incorrect => "incorrect",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl FromStr for Status {
    type Err = String;

    fn from_str(s: &str) -> Result<Status, String> {
        Status::ALL
            .into_iter()
            .find(|st| st.token() == s)
            .ok_or_else(|| {
                format!(
                    "unknown status {s:?} (expected one of {})",
                    Status::ALL.map(Status::token).join(", ")
                )
            })
    }
}

/// How a worker times a kernel. Workers must honour these (they are parameters, not
/// constants) and report the method they used in `JobResult::message`.
///
/// The default is the fixed method (what a job line without the adaptive fields meant before
/// they existed): `warmup` runs, then the median of `repeats` rounds of `iters` runs.
/// [`TimingOptions::adaptive_default`] is what `gconv sweep` and `gconv bench` send: adaptive
/// repeats and early stop (see `gconv_problem::measure`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimingOptions {
    /// Untimed runs before measuring (the first is the timed probe); at most this many when
    /// adaptive.
    pub warmup: u32,
    /// Timed rounds; the reported latency is their median. At most this many when adaptive.
    pub repeats: u32,
    /// Flush the L2 cache before each timed round (GPU only).
    pub cold_l2: bool,
    /// Back-to-back runs per round on the GPU (the CPU executor runs one per round); at most
    /// this many when adaptive.
    pub iters: u32,
    /// Adaptive repeats; absent: the fixed counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<Adaptive>,
    /// Early stop against [`Job::best_ms`]; absent: never.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub early_stop: Option<EarlyStop>,
}

impl Default for TimingOptions {
    fn default() -> Self {
        TimingOptions {
            warmup: 3,
            repeats: 10,
            cold_l2: false,
            iters: 10,
            adaptive: None,
            early_stop: None,
        }
    }
}

impl TimingOptions {
    /// The defaults of `gconv sweep` and `gconv bench`: 3 warm-up runs, up to 10 rounds of up
    /// to 10 runs, adaptive repeats and early stop with their defaults.
    pub fn adaptive_default() -> TimingOptions {
        TimingOptions {
            adaptive: Some(Adaptive::default()),
            early_stop: Some(EarlyStop::default()),
            ..TimingOptions::default()
        }
    }

    /// The repeat policy these options describe, with `iters` runs per round.
    pub fn policy(&self) -> RepeatPolicy {
        RepeatPolicy {
            warmup: self.warmup,
            rounds: self.repeats.max(1),
            iters: self.iters.max(1),
            adaptive: self.adaptive,
            early_stop: self.early_stop,
        }
    }
}

/// What a job runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum JobKind {
    /// A kernel by canonical name (a GPU `KernelConfig` name or a CPU variant name).
    Kernel {
        /// The kernel name.
        name: String,
    },
    /// A baseline provider (for example `cudnn`); may answer several rows.
    Baseline {
        /// The provider name.
        provider: String,
    },
}

/// One unit of work sent to a worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Unique within a sweep; replies name it.
    pub id: u64,
    /// What to run.
    pub kind: JobKind,
    /// The problem (serialised as its key).
    pub problem: Problem,
    /// Timing parameters.
    #[serde(default)]
    pub timing: TimingOptions,
    /// Seed of the random inputs (`HostTensor::random_for`).
    #[serde(default)]
    pub seed: u64,
    /// Best verified latency known on this problem when the job was sent, for early stop: for
    /// a kernel job the best of every `ok` row (baselines included), for a baseline job the
    /// best of that provider's rows. The worker lowers it with the rows it produced itself
    /// (see [`worker_main`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_ms: Option<f64>,
}

impl Job {
    /// The kernel name or `baseline:<provider>`, for messages.
    pub fn label(&self) -> String {
        match &self.kind {
            JobKind::Kernel { name } => name.clone(),
            JobKind::Baseline { provider } => format!("baseline:{provider}"),
        }
    }
}

/// The measured outcome of one kernel (or one baseline engine) on one problem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// Outcome.
    pub status: Status,
    /// Median latency in milliseconds (set when `ok`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    /// Max absolute error against the reference (set whenever the result was compared).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "nonfinite_f64"
    )]
    pub max_abs_err: Option<f64>,
    /// Max relative error against the reference.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "nonfinite_f64"
    )]
    pub max_rel_err: Option<f64>,
    /// Compile time in milliseconds (0 or close to it for a cache hit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compile_ms: Option<f64>,
    /// Registers per thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regs: Option<u32>,
    /// Bytes spilled to local memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spills: Option<u32>,
    /// Why it failed, or how it was timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Timed rounds the latency is the median of (1 when stopped early at the probe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// Runs per round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iters: Option<u32>,
    /// True when the measurement stopped early because the kernel was clearly slower than the
    /// best known latency (the row is still verified; its latency is the median of the rounds
    /// that ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_early: Option<bool>,
    /// Where the job's time went in the worker (one row per job carries it: a baseline job's
    /// first row).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<PhaseTimes>,
}

/// Wall time of one job's phases inside the worker, in milliseconds (0: the phase did not run
/// in this job, for example inputs and references made by an earlier job of the batch).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PhaseTimes {
    /// Waiting for the kernel's compilation (compiled in this job, or still compiling in the
    /// background when the job started).
    #[serde(skip_serializing_if = "is_zero")]
    pub compile_wait_ms: f64,
    /// CPU time of the kernel's compilation (0 for a cache hit; compiled in the background it
    /// overlaps other work).
    #[serde(skip_serializing_if = "is_zero")]
    pub compile_cpu_ms: f64,
    /// Whether the compile cache had the kernel (`None`: nothing to compile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_hit: Option<bool>,
    /// Generating the random inputs.
    #[serde(skip_serializing_if = "is_zero")]
    pub inputs_ms: f64,
    /// The f64 CPU reference.
    #[serde(skip_serializing_if = "is_zero")]
    pub reference_cpu_ms: f64,
    /// The GPU reference kernel (compile, upload, run).
    #[serde(skip_serializing_if = "is_zero")]
    pub reference_gpu_ms: f64,
    /// Loading the module, device buffers and uploads.
    #[serde(skip_serializing_if = "is_zero")]
    pub setup_ms: f64,
    /// The verification run and the comparison with the reference (and, on the host, the
    /// download).
    #[serde(skip_serializing_if = "is_zero")]
    pub verify_ms: f64,
    /// Timing: probe, warm-up and rounds.
    #[serde(skip_serializing_if = "is_zero")]
    pub timing_ms: f64,
    /// Baseline only: building graphs, heuristics and plans (timing excluded).
    #[serde(skip_serializing_if = "is_zero")]
    pub plans_ms: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl PhaseTimes {
    /// Adds another job's phases to these.
    pub fn add(&mut self, o: &PhaseTimes) {
        self.compile_wait_ms += o.compile_wait_ms;
        self.compile_cpu_ms += o.compile_cpu_ms;
        self.inputs_ms += o.inputs_ms;
        self.reference_cpu_ms += o.reference_cpu_ms;
        self.reference_gpu_ms += o.reference_gpu_ms;
        self.setup_ms += o.setup_ms;
        self.verify_ms += o.verify_ms;
        self.timing_ms += o.timing_ms;
        self.plans_ms += o.plans_ms;
    }

    /// The sum of the wall-time phases (CPU time of a background compile excluded).
    pub fn wall_ms(&self) -> f64 {
        self.compile_wait_ms
            + self.inputs_ms
            + self.reference_cpu_ms
            + self.reference_gpu_ms
            + self.setup_ms
            + self.verify_ms
            + self.timing_ms
            + self.plans_ms
    }
}

impl JobResult {
    /// A result with only a status and a message.
    pub fn status(status: Status, message: impl Into<String>) -> JobResult {
        JobResult {
            status,
            latency_ms: None,
            max_abs_err: None,
            max_rel_err: None,
            compile_ms: None,
            regs: None,
            spills: None,
            message: Some(message.into()),
            rounds: None,
            iters: None,
            stopped_early: None,
            phases: None,
        }
    }

    /// A verified, timed result.
    pub fn ok(latency_ms: f64, max_abs_err: f64, max_rel_err: f64) -> JobResult {
        JobResult {
            status: Status::Ok,
            latency_ms: Some(latency_ms),
            max_abs_err: Some(max_abs_err),
            max_rel_err: Some(max_rel_err),
            compile_ms: None,
            regs: None,
            spills: None,
            message: None,
            rounds: None,
            iters: None,
            stopped_early: None,
            phases: None,
        }
    }

    /// Records how the latency was measured: rounds, runs per round, early stop, method.
    pub fn with_outcome(mut self, o: &Outcome, method: String) -> JobResult {
        self.rounds = Some(o.rounds);
        self.iters = Some(o.iters);
        self.stopped_early = Some(o.stopped.is_some());
        self.message = Some(method);
        self
    }
}

mod nonfinite_f64 {
    //! JSON has no infinity or NaN: they travel as the strings "inf", "-inf" and "nan".
    use super::*;

    pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(x) if x.is_finite() => s.serialize_f64(*x),
            Some(x) if x.is_nan() => s.serialize_str("nan"),
            Some(x) if *x > 0.0 => s.serialize_str("inf"),
            Some(_) => s.serialize_str("-inf"),
            None => s.serialize_none(),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum NumOrStr {
        Num(f64),
        Str(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        match Option::<NumOrStr>::deserialize(d)? {
            None => Ok(None),
            Some(NumOrStr::Num(x)) => Ok(Some(x)),
            Some(NumOrStr::Str(s)) => match s.as_str() {
                "inf" => Ok(Some(f64::INFINITY)),
                "-inf" => Ok(Some(f64::NEG_INFINITY)),
                "nan" => Ok(Some(f64::NAN)),
                _ => Err(serde::de::Error::custom(format!(
                    "expected a number, \"inf\", \"-inf\" or \"nan\", found {s:?}"
                ))),
            },
        }
    }
}

/// One labelled result in a `done` reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRow {
    /// Kernel name, or `<provider>:<engine>` for a baseline row.
    pub kernel: String,
    /// The outcome.
    pub result: JobResult,
}

/// One line a worker writes to stdout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    /// Written once, first.
    Hello {
        /// [`PROTOCOL_VERSION`].
        protocol: u32,
    },
    /// Job `id` is about to run.
    Start {
        /// The job id.
        id: u64,
    },
    /// Job `id` is finished.
    Done {
        /// The job id.
        id: u64,
        /// Its rows.
        rows: Vec<ResultRow>,
    },
}

/// Runs jobs on a backend, inside a worker process.
///
/// # Duties of an implementation
///
/// - **Verify before timing.** Every kernel is run once on inputs made with
///   `HostTensor::random_for(problem, role, job.seed)` and compared with the reference
///   (`gconv_problem::verify::compare` with `Tolerance::for_problem`); a failing comparison is
///   status `incorrect` (with `max_abs_err` / `max_rel_err` set) and is not timed. Only then is
///   it timed with `job.timing` (a `gconv_problem::measure` session: warm-up, then the median
///   of rounds; early stop against `job.best_ms`), and the row says how
///   ([`JobResult::with_outcome`]). An `ok` row without `max_abs_err` and `max_rel_err` is
///   turned into `crashed` by the orchestrator.
/// - **Report phases**: each job's [`PhaseTimes`] in its (first) row, so that the sweep can
///   print where the time went.
/// - **Expected failures are statuses, not panics**: `unsupported`, `compile_error`,
///   `launch_error`, `incorrect`, each with a `message`. A panic or a fault kills the worker,
///   which the orchestrator records as `crashed` and survives.
/// - **Write nothing to stdout**: the protocol owns it. Log to stderr.
pub trait Executor {
    /// Called once per batch, before any job runs, with every job of the batch: compile the
    /// batch's kernels here (in parallel), warm caches. The default does nothing.
    fn prepare(&mut self, jobs: &[Job]) {
        let _ = jobs;
    }

    /// Verifies, then times, the kernel of a [`JobKind::Kernel`] job.
    fn execute(&mut self, job: &Job) -> JobResult;

    /// Runs a baseline provider on the job's problem and returns one row per engine, each
    /// labelled `<provider>:<engine>`. The default answers that the provider is unsupported.
    fn baseline(&mut self, job: &Job, provider: &str) -> Vec<ResultRow> {
        vec![ResultRow {
            kernel: format!("{provider}:none"),
            result: JobResult::status(
                Status::Unsupported,
                format!(
                    "baseline provider {provider:?} is not available in this worker (problem {})",
                    job.problem
                ),
            ),
        }]
    }
}

fn write_reply(out: &mut dyn Write, reply: &Reply) -> Result<(), TuneError> {
    let line = serde_json::to_string(reply).map_err(|e| TuneError::Protocol {
        line: 0,
        message: format!("cannot encode a reply: {e}"),
    })?;
    writeln!(out, "{line}")
        .and_then(|_| out.flush())
        .map_err(|e| TuneError::io("<stdout>", e))
}

/// The worker side of the protocol: reads one batch of [`Job`] lines from `input` until end of
/// input, calls [`Executor::prepare`], runs every job in order and writes the replies to
/// `output`, flushing after each line. Returns the number of jobs run.
///
/// A line that is not a job is an error (before anything runs): the worker should exit with a
/// non-zero status, which the orchestrator records as `crashed`.
pub fn worker_main(
    exec: &mut dyn Executor,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> Result<usize, TuneError> {
    write_reply(
        output,
        &Reply::Hello {
            protocol: PROTOCOL_VERSION,
        },
    )?;
    let mut jobs = Vec::new();
    let mut line = String::new();
    let mut line_no = 0usize;
    loop {
        line.clear();
        let n = input
            .read_line(&mut line)
            .map_err(|e| TuneError::io("<stdin>", e))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let job: Job = serde_json::from_str(text).map_err(|e| TuneError::Protocol {
            line: line_no,
            message: format!("not a job: {e}: {}", truncate(text, 200)),
        })?;
        jobs.push(job);
    }
    exec.prepare(&jobs);
    let mut best = BestSoFar::default();
    for job in &jobs {
        write_reply(output, &Reply::Start { id: job.id })?;
        let mut job = job.clone();
        job.best_ms = best.for_job(&job);
        let rows = match &job.kind {
            JobKind::Kernel { name } => vec![ResultRow {
                kernel: name.clone(),
                result: exec.execute(&job),
            }],
            JobKind::Baseline { provider } => exec.baseline(&job, provider),
        };
        for r in &rows {
            best.record(&job.problem, &r.kernel, &r.result);
        }
        write_reply(output, &Reply::Done { id: job.id, rows })?;
    }
    Ok(jobs.len())
}

/// The best verified latency per problem (over every row) and per (provider, problem) (over
/// that baseline provider's rows): what early stop compares with. The orchestrator keeps one
/// over the CSV's rows and sends its figure with each job ([`Job::best_ms`]); [`worker_main`]
/// keeps one over the rows it produced, so that early stop also works within a batch.
#[derive(Debug, Clone, Default)]
pub struct BestSoFar {
    all: HashMap<String, f64>,
    provider: HashMap<(String, String), f64>,
}

impl BestSoFar {
    /// Takes a row into account: only `ok` rows with a positive finite latency and both error
    /// figures (verified) count.
    pub fn record(&mut self, problem: &Problem, kernel: &str, r: &JobResult) {
        if r.status != Status::Ok || r.max_abs_err.is_none() || r.max_rel_err.is_none() {
            return;
        }
        if let Some(ms) = r.latency_ms {
            self.record_ms(problem, kernel, ms);
        }
    }

    /// Takes a verified latency of `kernel` (a kernel name or `<provider>:<engine>`) on
    /// `problem` into account.
    pub fn record_ms(&mut self, problem: &Problem, kernel: &str, ms: f64) {
        if !(ms > 0.0 && ms.is_finite()) {
            return;
        }
        let key = problem.to_string();
        let e = self.all.entry(key.clone()).or_insert(ms);
        *e = e.min(ms);
        if let Some((prov, _)) = kernel.split_once(':') {
            let e = self.provider.entry((prov.to_string(), key)).or_insert(ms);
            *e = e.min(ms);
        }
    }

    /// The best latency early stop compares `job` with: the job's own figure lowered by this
    /// one's (every row for a kernel job, the provider's rows for a baseline job).
    pub fn for_job(&self, job: &Job) -> Option<f64> {
        let key = job.problem.to_string();
        let mine = match &job.kind {
            JobKind::Kernel { .. } => self.all.get(&key).copied(),
            JobKind::Baseline { provider } => self.provider.get(&(provider.clone(), key)).copied(),
        };
        let theirs = job.best_ms.filter(|b| *b > 0.0 && b.is_finite());
        match (mine, theirs) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// The first `max` characters of `s`, with an ellipsis when cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo(Vec<u64>);

    impl Executor for Echo {
        fn prepare(&mut self, jobs: &[Job]) {
            self.0 = jobs.iter().map(|j| j.id).collect();
        }
        fn execute(&mut self, job: &Job) -> JobResult {
            JobResult::ok(job.id as f64, 0.0, f64::INFINITY)
        }
    }

    fn job(id: u64, kind: JobKind) -> Job {
        Job {
            id,
            kind,
            problem: "fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1".parse().unwrap(),
            timing: TimingOptions::default(),
            seed: 5,
            best_ms: None,
        }
    }

    #[test]
    fn round_trip_and_order() {
        let jobs = [
            job(
                3,
                JobKind::Kernel {
                    name: "cpu_direct".into(),
                },
            ),
            job(
                4,
                JobKind::Baseline {
                    provider: "cudnn".into(),
                },
            ),
        ];
        let mut input = String::new();
        for j in &jobs {
            input.push_str(&serde_json::to_string(j).unwrap());
            input.push('\n');
        }
        let mut exec = Echo(vec![]);
        let mut out = Vec::new();
        let n = worker_main(&mut exec, &mut input.as_bytes(), &mut out).unwrap();
        assert_eq!(n, 2);
        assert_eq!(exec.0, vec![3, 4], "prepare saw the whole batch");
        let replies: Vec<Reply> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(replies.len(), 5);
        assert_eq!(replies[0], Reply::Hello { protocol: 1 });
        assert_eq!(replies[1], Reply::Start { id: 3 });
        let Reply::Done { id: 3, rows } = &replies[2] else {
            panic!("{:?}", replies[2])
        };
        assert_eq!(rows[0].kernel, "cpu_direct");
        assert_eq!(rows[0].result.latency_ms, Some(3.0));
        assert_eq!(
            rows[0].result.max_rel_err,
            Some(f64::INFINITY),
            "inf survives JSON"
        );
        let Reply::Done { id: 4, rows } = &replies[4] else {
            panic!("{:?}", replies[4])
        };
        assert_eq!(rows[0].kernel, "cudnn:none");
        assert_eq!(rows[0].result.status, Status::Unsupported);
    }

    /// Records the best_ms each job was run with; answers latency = the job id.
    struct Seen(Vec<Option<f64>>);

    impl Executor for Seen {
        fn execute(&mut self, job: &Job) -> JobResult {
            self.0.push(job.best_ms);
            JobResult::ok(job.id as f64, 0.0, 0.0)
        }
        fn baseline(&mut self, job: &Job, provider: &str) -> Vec<ResultRow> {
            self.0.push(job.best_ms);
            vec![ResultRow {
                kernel: format!("{provider}:e"),
                result: JobResult::ok(job.id as f64, 0.0, 0.0),
            }]
        }
    }

    #[test]
    fn the_worker_lowers_the_best_with_its_own_rows() {
        let k = |id, best| Job {
            best_ms: best,
            ..job(
                id,
                JobKind::Kernel {
                    name: "cpu_direct".into(),
                },
            )
        };
        let b = |id| {
            job(
                id,
                JobKind::Baseline {
                    provider: "cudnn".into(),
                },
            )
        };
        let jobs = [b(9), k(5, None), k(3, Some(7.0)), k(8, Some(1.0)), b(4)];
        let input: String = jobs
            .iter()
            .map(|j| serde_json::to_string(j).unwrap() + "\n")
            .collect();
        let mut exec = Seen(vec![]);
        worker_main(&mut exec, &mut input.as_bytes(), &mut Vec::new()).unwrap();
        assert_eq!(
            exec.0,
            vec![
                None,      // nothing known
                Some(9.0), // the baseline's row counts for kernels
                Some(5.0), // the worker's 5 beats the orchestrator's 7
                Some(1.0), // the orchestrator's 1 beats the worker's 3
                Some(9.0), // a baseline compares with its own provider only
            ]
        );
    }

    #[test]
    fn best_so_far_counts_only_verified_ok_rows() {
        let p: Problem = "fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1".parse().unwrap();
        let mut b = BestSoFar::default();
        let mut unverified = JobResult::ok(0.5, 0.0, 0.0);
        unverified.max_rel_err = None;
        b.record(&p, "k", &unverified);
        b.record(&p, "k", &JobResult::status(Status::Incorrect, "x"));
        b.record(&p, "k", &JobResult::ok(f64::NAN, 0.0, 0.0));
        let kj = job(1, JobKind::Kernel { name: "k".into() });
        assert_eq!(b.for_job(&kj), None);
        b.record(&p, "k", &JobResult::ok(2.0, 0.0, 0.0));
        b.record(&p, "cudnn:e", &JobResult::ok(3.0, 0.0, 0.0));
        assert_eq!(b.for_job(&kj), Some(2.0));
        let bj = job(
            2,
            JobKind::Baseline {
                provider: "cudnn".into(),
            },
        );
        assert_eq!(b.for_job(&bj), Some(3.0));
        let other = Job {
            best_ms: Some(f64::INFINITY),
            ..job(
                3,
                JobKind::Baseline {
                    provider: "torch".into(),
                },
            )
        };
        assert_eq!(
            b.for_job(&other),
            None,
            "no torch row; an infinite hint is ignored"
        );
    }

    #[test]
    fn old_protocol_lines_still_parse() {
        // a done reply and a job as written before the timing and phase fields existed
        let done = r#"{"type":"done","id":7,"rows":[{"kernel":"k","result":{"status":"ok","latency_ms":0.5,"max_abs_err":0.0,"max_rel_err":0.0,"compile_ms":12.0,"regs":96,"spills":0,"message":"CUDA events: ..."}}]}"#;
        let Reply::Done { rows, .. } = serde_json::from_str::<Reply>(done).unwrap() else {
            panic!()
        };
        let r = &rows[0].result;
        assert_eq!(r.latency_ms, Some(0.5));
        assert_eq!(
            (r.rounds, r.iters, r.stopped_early, r.phases),
            (None, None, None, None)
        );
        let j: Job = serde_json::from_str(
            r#"{"id":1,"kind":{"type":"kernel","name":"k"},"problem":"fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1","timing":{"warmup":3,"repeats":10,"cold_l2":false},"seed":1}"#,
        )
        .unwrap();
        assert_eq!(
            j.timing,
            TimingOptions::default(),
            "the fixed method, as it meant then"
        );
        assert_eq!(j.timing.policy().adaptive, None);
        assert_eq!(j.best_ms, None);
    }

    #[test]
    fn new_fields_round_trip() {
        let mut r = JobResult::ok(0.25, 1e-3, 2e-3);
        r.rounds = Some(3);
        r.iters = Some(10);
        r.stopped_early = Some(true);
        r.phases = Some(PhaseTimes {
            compile_wait_ms: 1.5,
            cache_hit: Some(false),
            timing_ms: 4.0,
            ..PhaseTimes::default()
        });
        let line = serde_json::to_string(&r).unwrap();
        assert!(
            !line.contains("inputs_ms"),
            "zero phases are left out: {line}"
        );
        assert_eq!(serde_json::from_str::<JobResult>(&line).unwrap(), r);
        let j = Job {
            best_ms: Some(0.125),
            timing: TimingOptions::adaptive_default(),
            ..job(1, JobKind::Kernel { name: "k".into() })
        };
        let back: Job = serde_json::from_str(&serde_json::to_string(&j).unwrap()).unwrap();
        assert_eq!(back, j);
        assert!(back.timing.policy().early_stop.is_some());
        // a job without best_ms does not write it
        let plain = serde_json::to_string(&job(2, JobKind::Kernel { name: "k".into() })).unwrap();
        assert!(
            !plain.contains("best_ms") && !plain.contains("adaptive"),
            "{plain}"
        );
    }

    #[test]
    fn bad_job_line_is_an_error() {
        let mut exec = Echo(vec![]);
        let mut out = Vec::new();
        let e = worker_main(&mut exec, &mut "\n{\"id\": 1}\n".as_bytes(), &mut out).unwrap_err();
        assert!(matches!(e, TuneError::Protocol { line: 2, .. }), "{e}");
    }

    #[test]
    fn status_tokens() {
        for s in Status::ALL {
            assert_eq!(s.token().parse::<Status>().unwrap(), s);
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("\"{}\"", s.token())
            );
        }
        assert!("fine".parse::<Status>().is_err());
    }

    #[test]
    fn job_json_shape() {
        let j = job(
            9,
            JobKind::Kernel {
                name: "cpu_direct".into(),
            },
        );
        let v: serde_json::Value = serde_json::to_value(&j).unwrap();
        assert_eq!(v["kind"]["type"], "kernel");
        assert_eq!(v["problem"], "fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1");
        // timing and seed may be omitted
        let j: Job = serde_json::from_str(
            r#"{"id":1,"kind":{"type":"baseline","provider":"cudnn"},"problem":"fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1"}"#,
        )
        .unwrap();
        assert_eq!(j.timing, TimingOptions::default());
        assert_eq!(j.label(), "baseline:cudnn");
    }
}
