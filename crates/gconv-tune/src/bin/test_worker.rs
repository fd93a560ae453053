//! A sweep worker for the tile engine's integration tests: the CPU executor plus scripted
//! misbehaviour, chosen by kernel name, so that every path of the orchestrator can be tested
//! without a GPU:
//!
//! - `fake_ok_<n>`: ok, latency `<n>` ms, verified (errors 0);
//! - `fake_timed_<n>`: ok and verified, measured by the job's repeat policy on a clock where
//!   every run takes `<n>` ms (adaptive repeats and early stop against the job's best apply);
//! - `fake_sleep_<n>`: sleeps `<n>` ms of real time, then ok with latency `<n>` ms;
//! - `fake_incorrect`: status incorrect with errors;
//! - `fake_unverified`: ok without verification errors (the orchestrator must refuse it);
//! - `fake_crash`: aborts the process;
//! - `fake_exit`: exits with status 0 in the middle of the batch;
//! - `fake_hang`: sleeps for an hour;
//! - `fake_garbage`: prints a line that is not a reply;
//! - `fake_wrong_kernel`: answers a row for another kernel;
//! - `fake_slow_prepare` anywhere in a batch: `prepare` sleeps for an hour;
//! - anything else: the CPU executor (`cpu_direct`, `cpu_planted_wrong`, ...).
//!
//! Baseline provider `fake` answers two rows, `fake:fast` (1 ms) and `fake:slow` (2 ms);
//! provider `reference` is the CPU executor's. With `GCONV_TEST_WORKER_LOG=<file>` each process
//! appends one line with its pid and job ids, so tests can count restarts. With
//! `GCONV_TEST_WORKER_JOBS=<file>` each executed kernel job appends `device id start end` (the
//! worker's `--device` argument or `-`, the job id, microseconds since the epoch), so tests can
//! see which device ran what and when.

use gconv_problem::measure::run_session;
use gconv_tune::cpu::CpuExecutor;
use gconv_tune::worker::{
    worker_main, Executor, Job, JobKind, JobResult, PhaseTimes, ResultRow, Status,
};
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

struct TestExecutor {
    cpu: CpuExecutor,
    /// The `--device` argument, if any.
    device: Option<String>,
}

fn micros() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros())
        .unwrap_or(0)
}

impl Executor for TestExecutor {
    fn prepare(&mut self, jobs: &[Job]) {
        if let Ok(path) = std::env::var("GCONV_TEST_WORKER_LOG") {
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                let ids: Vec<String> = jobs.iter().map(|j| j.id.to_string()).collect();
                let _ = writeln!(f, "{} {}", std::process::id(), ids.join(","));
            }
        }
        let slow = jobs
            .iter()
            .any(|j| matches!(&j.kind, JobKind::Kernel { name } if name == "fake_slow_prepare"));
        if slow {
            std::thread::sleep(Duration::from_secs(3600));
        }
        self.cpu.prepare(jobs);
    }

    fn execute(&mut self, job: &Job) -> JobResult {
        let start = micros();
        let r = self.execute_job(job);
        if let Ok(path) = std::env::var("GCONV_TEST_WORKER_JOBS") {
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                let dev = self.device.as_deref().unwrap_or("-");
                // One write per line: `writeln!` on a file may split a line into several
                // writes, and two device pools' workers append to the same file, so their
                // lines interleaved (an empty field failed a test on a loaded machine). A
                // single small O_APPEND write is not interleaved.
                let line = format!("{dev} {} {start} {}\n", job.id, micros());
                let _ = f.write_all(line.as_bytes());
            }
        }
        r
    }

    fn baseline(&mut self, job: &Job, provider: &str) -> Vec<ResultRow> {
        self.baseline_rows(job, provider)
    }
}

impl TestExecutor {
    fn execute_job(&mut self, job: &Job) -> JobResult {
        let JobKind::Kernel { name } = &job.kind else {
            return JobResult::status(Status::Unsupported, "not a kernel job");
        };
        if let Some(ms) = name.strip_prefix("fake_ok_") {
            return JobResult::ok(ms.parse().unwrap_or(1.0), 0.0, 0.0);
        }
        if let Some(ms) = name.strip_prefix("fake_sleep_") {
            let ms: f64 = ms.parse().unwrap_or(1.0);
            std::thread::sleep(Duration::from_secs_f64(ms / 1e3));
            return JobResult::ok(ms, 0.0, 0.0);
        }
        if let Some(ms) = name.strip_prefix("fake_timed_") {
            let ms: f64 = ms.parse().unwrap_or(1.0);
            let o = run_session::<()>(
                job.timing.policy(),
                job.best_ms,
                || Ok(ms),
                |_| Ok(()),
                |_| Ok(ms),
            );
            return match o {
                Ok(o) => {
                    let mut r = JobResult::ok(o.latency_ms(), 0.0, 0.0)
                        .with_outcome(&o, format!("fake clock: {}", o.describe()));
                    r.phases = Some(PhaseTimes {
                        timing_ms: ms * o.launches() as f64,
                        ..PhaseTimes::default()
                    });
                    r
                }
                Err(()) => JobResult::status(Status::LaunchError, "fake clock failed"),
            };
        }
        match name.as_str() {
            "fake_incorrect" => {
                let mut r = JobResult::status(Status::Incorrect, "planted");
                r.max_abs_err = Some(1.5);
                r.max_rel_err = Some(f64::INFINITY);
                r
            }
            "fake_unverified" => {
                let mut r = JobResult::ok(1.0, 0.0, 0.0);
                r.max_abs_err = None;
                r.max_rel_err = None;
                r
            }
            "fake_crash" => {
                eprintln!("fake_crash: aborting on purpose");
                std::process::abort()
            }
            "fake_exit" => std::process::exit(0),
            "fake_hang" => {
                std::thread::sleep(Duration::from_secs(3600));
                JobResult::status(Status::Timeout, "woke up")
            }
            "fake_garbage" => {
                println!("this line is not a reply");
                JobResult::ok(1.0, 0.0, 0.0)
            }
            _ => self.cpu.execute(job),
        }
    }

    fn baseline_rows(&mut self, job: &Job, provider: &str) -> Vec<ResultRow> {
        if provider == "fake" {
            // `fake:slow` carries no error columns: the orchestrator must refuse to rank it.
            let mut slow = JobResult::ok(2.0, 0.0, 0.0);
            slow.max_abs_err = None;
            slow.max_rel_err = None;
            return vec![
                ResultRow {
                    kernel: "fake:fast".into(),
                    result: JobResult::ok(1.0, 0.0, 0.0),
                },
                ResultRow {
                    kernel: "fake:slow".into(),
                    result: slow,
                },
            ];
        }
        self.cpu.baseline(job, provider)
    }
}

/// Wraps stdout so that `fake_wrong_kernel` can be answered with a row for another kernel.
struct Rewrite<W: Write>(W);

impl<W: Write> Write for Rewrite<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let s = String::from_utf8_lossy(buf);
        if s.contains("\"kernel\":\"fake_wrong_kernel\"") {
            let t = s.replace(
                "\"kernel\":\"fake_wrong_kernel\"",
                "\"kernel\":\"someone_else\"",
            );
            self.0.write_all(t.as_bytes())?;
            return Ok(buf.len());
        }
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let device = args
        .iter()
        .position(|a| a == "--device")
        .and_then(|i| args.get(i + 1).cloned());
    let mut exec = TestExecutor {
        cpu: CpuExecutor::new(),
        device,
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut output = Rewrite(std::io::stdout().lock());
    match worker_main(&mut exec, &mut input, &mut output) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("test worker: {}", gconv_tune::error::chain_text(&e));
            ExitCode::from(2)
        }
    }
}
