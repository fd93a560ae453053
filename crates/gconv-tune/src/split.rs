//! Where a sweep's time went: the per-job phase times the workers report
//! ([`crate::worker::PhaseTimes`]) summed over the sweep, with what only the orchestrator can
//! see (worker start-up, `Executor::prepare`, the time between jobs), printed at the end of
//! `gconv sweep` and `gconv bench` as one short block of phase, seconds and share of the wall
//! time.
//!
//! Every line is wall time on the critical path of a device pool: a pool runs one worker at a
//! time and each runs its jobs one after the other, so on one device the lines add up to the
//! wall time, and with several pools to the device time ([`TimeSplit::capacity_ms`]). The last
//! line, `other`, is what no phase accounts for: planning, CSV writing, process exits. Work that overlaps the
//! jobs, such as kernels compiled in the background, shows as the CPU seconds of the compile
//! line and as wall time only where a job had to wait for it.

use crate::worker::{Job, JobKind, PhaseTimes, ResultRow, Status};
use std::fmt;

/// Phase totals of a sweep (milliseconds unless said otherwise).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeSplit {
    /// Wall time of the whole sweep.
    pub wall_ms: f64,
    /// From the start to the first worker (gating, resume, CSV set-up, refused rows).
    pub plan_ms: f64,
    /// Batches from starting their worker to its end (exit or kill), summed.
    pub batches_ms: f64,
    /// Worker processes started.
    pub workers: usize,
    /// Device pools that ran side by side (0 or 1: one). Phases are summed over them, so the
    /// shares are of the device time: planning once, then the rest of the wall time on every
    /// pool.
    pub devices: usize,
    /// From starting a worker to its `hello` (process start, device and library set-up), summed.
    pub startup_ms: f64,
    /// From `hello` to the first job's `start` (reading the batch, `Executor::prepare`), summed.
    pub prepare_ms: f64,
    /// Phases of kernel jobs, summed.
    pub kernel: PhaseTimes,
    /// Kernel jobs answered.
    pub kernel_jobs: usize,
    /// Wall time of kernel jobs from `start` to `done` as the orchestrator saw it, summed.
    pub kernel_job_ms: f64,
    /// Phases of baseline jobs, summed.
    pub baseline: PhaseTimes,
    /// Baseline jobs answered.
    pub baseline_jobs: usize,
    /// Wall time of baseline jobs from `start` to `done`, summed.
    pub baseline_job_ms: f64,
    /// Kernels compiled (compile-cache misses).
    pub compiled: usize,
    /// Kernels the compile cache had.
    pub cache_hits: usize,
    /// `ok` rows (timed).
    pub timed_rows: usize,
    /// `ok` rows whose measurement stopped early.
    pub stopped_early: usize,
}

impl TimeSplit {
    /// Adds one answered job: its rows' phases and timing flags, and its wall time.
    pub fn add_job(&mut self, job: &Job, rows: &[ResultRow], job_ms: f64) {
        let mut phases = PhaseTimes::default();
        for r in rows {
            if let Some(p) = &r.result.phases {
                phases.add(p);
                match p.cache_hit {
                    Some(true) => self.cache_hits += 1,
                    Some(false) => self.compiled += 1,
                    None => {}
                }
            }
            if r.result.status == Status::Ok {
                self.timed_rows += 1;
                if r.result.stopped_early == Some(true) {
                    self.stopped_early += 1;
                }
            }
        }
        match job.kind {
            JobKind::Kernel { .. } => {
                self.kernel.add(&phases);
                self.kernel_jobs += 1;
                self.kernel_job_ms += job_ms;
            }
            JobKind::Baseline { .. } => {
                self.baseline.add(&phases);
                self.baseline_jobs += 1;
                self.baseline_job_ms += job_ms;
            }
        }
    }

    /// The lines of the block: (phase, milliseconds), in order; they add up to `wall_ms`.
    pub fn lines(&self) -> Vec<(&'static str, f64)> {
        let (k, b) = (&self.kernel, &self.baseline);
        // Phases are measured in the worker, job walls in the orchestrator (from reading
        // `start` to reading `done`): the phases may exceed the walls by the pipe's latency.
        let phases = k.wall_ms() + b.wall_ms();
        let jobs_ms = (self.kernel_job_ms + self.baseline_job_ms).max(phases);
        let in_jobs = jobs_ms - phases;
        let exits = (self.batches_ms - self.startup_ms - self.prepare_ms - jobs_ms).max(0.0);
        let mut v = vec![
            ("planning (gates, CSV)", self.plan_ms),
            ("worker start-up", self.startup_ms),
            ("prepare (batch compile)", self.prepare_ms),
            ("compile, waited for", k.compile_wait_ms + b.compile_wait_ms),
            ("inputs", k.inputs_ms + b.inputs_ms),
            (
                "reference (CPU f64)",
                k.reference_cpu_ms + b.reference_cpu_ms,
            ),
            (
                "reference (GPU kernel)",
                k.reference_gpu_ms + b.reference_gpu_ms,
            ),
            ("setup (load, buffers)", k.setup_ms),
            ("verification", k.verify_ms),
            ("timing", k.timing_ms),
            ("baseline plans", b.plans_ms),
            ("baseline verification", b.verify_ms + b.setup_ms),
            ("baseline timing", b.timing_ms),
            ("other, in jobs", in_jobs),
            ("worker exits, crashes", exits),
        ];
        let accounted: f64 = v.iter().map(|(_, ms)| ms).sum();
        v.push(("other", (self.capacity_ms() - accounted).max(0.0)));
        v
    }

    /// The time the lines add up to: the wall time on one device; with several pools,
    /// planning once plus the rest of the wall time on every pool.
    pub fn capacity_ms(&self) -> f64 {
        let pools = self.devices.max(1) as f64;
        self.plan_ms + (self.wall_ms - self.plan_ms).max(0.0) * pools
    }
}

impl fmt::Display for TimeSplit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wall = self.capacity_ms().max(1e-9);
        let on = if self.devices > 1 {
            format!(
                " on {} devices (shares of {:.1} device-seconds)",
                self.devices,
                wall / 1e3
            )
        } else {
            String::new()
        };
        writeln!(
            f,
            "time split: {:.1} s wall{on}, {} worker(s), {} kernel job(s), {} baseline job(s)",
            self.wall_ms / 1e3,
            self.workers,
            self.kernel_jobs,
            self.baseline_jobs
        )?;
        writeln!(f, "  {:<26} {:>9} {:>7}", "phase", "seconds", "share")?;
        for (name, ms) in self.lines() {
            writeln!(
                f,
                "  {name:<26} {:>9.2} {:>6.1}%",
                ms / 1e3,
                100.0 * ms / wall
            )?;
        }
        let cpu = self.kernel.compile_cpu_ms + self.baseline.compile_cpu_ms;
        writeln!(
            f,
            "  compile CPU time {:.1} s: {} compiled ({:.0} ms each), {} cache hit(s)",
            cpu / 1e3,
            self.compiled,
            if self.compiled > 0 {
                cpu / self.compiled as f64
            } else {
                0.0
            },
            self.cache_hits
        )?;
        write!(
            f,
            "  timed rows {}: {} stopped early",
            self.timed_rows, self.stopped_early
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::{JobResult, TimingOptions};

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

    fn row(kernel: &str, phases: Option<PhaseTimes>, stopped: bool) -> ResultRow {
        let mut r = JobResult::ok(1.0, 0.0, 0.0);
        r.phases = phases;
        r.stopped_early = Some(stopped);
        ResultRow {
            kernel: kernel.into(),
            result: r,
        }
    }

    #[test]
    fn sums_phases_and_adds_up_to_the_wall_time() {
        let mut s = TimeSplit {
            wall_ms: 10_000.0,
            plan_ms: 100.0,
            batches_ms: 3_000.0,
            startup_ms: 1_000.0,
            prepare_ms: 500.0,
            workers: 2,
            ..TimeSplit::default()
        };
        let k = job(JobKind::Kernel { name: "a".into() });
        let p = PhaseTimes {
            compile_wait_ms: 100.0,
            compile_cpu_ms: 700.0,
            cache_hit: Some(false),
            setup_ms: 10.0,
            verify_ms: 20.0,
            timing_ms: 30.0,
            ..PhaseTimes::default()
        };
        s.add_job(&k, &[row("a", Some(p), false)], 200.0);
        let hit = PhaseTimes {
            cache_hit: Some(true),
            timing_ms: 5.0,
            ..PhaseTimes::default()
        };
        s.add_job(&k, &[row("a", Some(hit), true)], 10.0);
        let b = job(JobKind::Baseline {
            provider: "cudnn".into(),
        });
        let bp = PhaseTimes {
            inputs_ms: 50.0,
            reference_cpu_ms: 250.0,
            plans_ms: 400.0,
            verify_ms: 40.0,
            timing_ms: 60.0,
            ..PhaseTimes::default()
        };
        // phases ride on the first row of a baseline job only
        s.add_job(
            &b,
            &[
                row("cudnn:e1", Some(bp), false),
                row("cudnn:e2", None, true),
            ],
            900.0,
        );
        assert_eq!((s.kernel_jobs, s.baseline_jobs), (2, 1));
        assert_eq!((s.compiled, s.cache_hits), (1, 1));
        assert_eq!((s.timed_rows, s.stopped_early), (4, 2));
        let lines = s.lines();
        let get = |n: &str| lines.iter().find(|(k, _)| *k == n).unwrap().1;
        assert_eq!(get("compile, waited for"), 100.0);
        assert_eq!(get("timing"), 35.0);
        assert_eq!(get("reference (CPU f64)"), 250.0);
        assert_eq!(get("baseline plans"), 400.0);
        // job walls not covered by phases: 210 + 900 - (165 + 800)
        assert_eq!(get("other, in jobs"), 145.0);
        // 3000 - 1000 - 500 - 1110
        assert_eq!(get("worker exits, crashes"), 390.0);
        let total: f64 = lines.iter().map(|(_, ms)| ms).sum();
        assert!((total - s.wall_ms).abs() < 1e-9, "{total}");
        let text = s.to_string();
        assert!(
            text.starts_with("time split: 10.0 s wall, 2 worker(s)"),
            "{text}"
        );
        assert!(text.contains("worker start-up"), "{text}");
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with("timing ") && l.contains(" 0.04 ")),
            "{text}"
        );
        assert!(
            text.contains("0.7 s: 1 compiled (700 ms each), 1 cache hit(s)"),
            "{text}"
        );
        assert!(text.contains("timed rows 4: 2 stopped early"), "{text}");
    }

    #[test]
    fn empty_split_prints() {
        let text = TimeSplit::default().to_string();
        assert!(text.contains("other"), "{text}");
        assert!(text.contains("0 compiled (0 ms each)"), "{text}");
    }
}
