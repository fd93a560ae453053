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
use gconv_problem::Problem;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
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
/// constants) and report the method they used in `JobResult::message` when it differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimingOptions {
    /// Untimed runs before measuring.
    pub warmup: u32,
    /// Timed runs (or rounds); the reported latency is their median.
    pub repeats: u32,
    /// Flush the L2 cache before each timed run (GPU only).
    pub cold_l2: bool,
}

impl Default for TimingOptions {
    fn default() -> Self {
        TimingOptions {
            warmup: 3,
            repeats: 10,
            cold_l2: false,
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
        }
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
///   it timed with `job.timing` (warm-up, then the median of `repeats` runs). An `ok` row
///   without `max_abs_err` and `max_rel_err` is turned into `crashed` by the orchestrator.
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
    for job in &jobs {
        write_reply(output, &Reply::Start { id: job.id })?;
        let rows = match &job.kind {
            JobKind::Kernel { name } => vec![ResultRow {
                kernel: name.clone(),
                result: exec.execute(job),
            }],
            JobKind::Baseline { provider } => exec.baseline(job, provider),
        };
        write_reply(output, &Reply::Done { id: job.id, rows })?;
    }
    Ok(jobs.len())
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
