//! The CPU executor: runs jobs on the CPU backend variants of `gconv-reference`, verifying each
//! result against the f64 reference before timing it with the wall clock.
//!
//! It also answers the baseline provider `reference` with one row, `reference:f64`: the f64
//! reference itself, timed the same way (its errors are 0 by definition). Any other provider is
//! `unsupported`.

use crate::worker::{Executor, Job, JobKind, JobResult, ResultRow, Status};
use gconv_problem::{compare, HostTensor, Problem, Tolerance};
use gconv_reference::{reference_tensors, run, CpuVariant};
use std::time::Instant;

/// Inputs and reference output of one (problem, seed), kept between jobs of a batch.
struct Prepared {
    problem: Problem,
    seed: u64,
    inputs: [HostTensor; 2],
    reference: Vec<f64>,
}

/// Runs CPU variants: verify against the reference, then time (median of `repeats` runs after
/// `warmup` runs).
#[derive(Default)]
pub struct CpuExecutor {
    prepared: Option<Prepared>,
}

impl CpuExecutor {
    /// A fresh executor.
    pub fn new() -> CpuExecutor {
        CpuExecutor::default()
    }

    /// Inputs and reference for the job's problem and seed (cached for consecutive jobs).
    fn prepare_problem(&mut self, job: &Job) -> Result<&Prepared, String> {
        let fresh = self
            .prepared
            .as_ref()
            .is_none_or(|p| p.problem != job.problem || p.seed != job.seed);
        if fresh {
            let problem = job.problem;
            let ([r0, r1], _) = problem.roles();
            // The orchestrator refuses problems that do not fit before sending them; a failed
            // allocation here is still a row, not an abort.
            let input = |r| {
                HostTensor::try_random_for(&problem, r, job.seed)
                    .map_err(|e| format!("cannot allocate the inputs: {e}"))
            };
            let inputs = [input(r0)?, input(r1)?];
            let reference = reference_tensors(&problem, &inputs[0], &inputs[1])
                .map_err(|e| format!("reference failed: {e}"))?;
            self.prepared = Some(Prepared {
                problem,
                seed: job.seed,
                inputs,
                reference,
            });
        }
        self.prepared
            .as_ref()
            .ok_or_else(|| "no prepared problem".to_string())
    }
}

/// Median of the wall-clock times (ms) of `repeats` (at least 1) calls of `f` after `warmup`
/// calls; `Err` from `f` stops the measurement.
fn time_median<E>(
    warmup: u32,
    repeats: u32,
    mut f: impl FnMut() -> Result<(), E>,
) -> Result<f64, E> {
    for _ in 0..warmup {
        f()?;
    }
    let mut t = Vec::with_capacity(repeats.max(1) as usize);
    for _ in 0..repeats.max(1) {
        let s = Instant::now();
        f()?;
        t.push(s.elapsed().as_secs_f64() * 1e3);
    }
    t.sort_by(f64::total_cmp);
    let n = t.len();
    Ok(if n % 2 == 1 {
        t[n / 2]
    } else {
        (t[n / 2 - 1] + t[n / 2]) / 2.0
    })
}

fn method(job: &Job) -> String {
    format!(
        "cpu wall clock, median of {} run(s) after {} warm-up run(s)",
        job.timing.repeats.max(1),
        job.timing.warmup
    )
}

impl Executor for CpuExecutor {
    fn execute(&mut self, job: &Job) -> JobResult {
        let JobKind::Kernel { name } = &job.kind else {
            return JobResult::status(Status::Unsupported, "not a kernel job");
        };
        let variant: CpuVariant = match name.parse() {
            Ok(v) => v,
            Err(e) => return JobResult::status(Status::Unsupported, e.to_string()),
        };
        let problem = job.problem;
        if !variant.can_run(&problem) {
            return JobResult::status(
                Status::Unsupported,
                format!("{} cannot run {problem}", variant.name()),
            );
        }
        let prepared = match self.prepare_problem(job) {
            Ok(p) => p,
            Err(msg) => return JobResult::status(Status::Unsupported, msg),
        };
        let [a, b] = &prepared.inputs;
        // Verify first.
        let out = match run(variant, &problem, a, b) {
            Ok(o) => o,
            Err(e) => return JobResult::status(Status::LaunchError, e.to_string()),
        };
        let cmp = compare(&out, &prepared.reference, Tolerance::for_problem(&problem));
        if !cmp.passed() {
            let mut r = JobResult::status(
                Status::Incorrect,
                format!(
                    "{} of {} elements outside the tolerance (rtol {:e}, atol {:e}); worst at index {}",
                    cmp.failures,
                    cmp.count,
                    cmp.tolerance.rtol,
                    cmp.tolerance.atol,
                    cmp.worst_index
                ),
            );
            r.max_abs_err = Some(cmp.max_abs_err);
            r.max_rel_err = Some(cmp.max_rel_err);
            return r;
        }
        // Then time.
        let timed = time_median(job.timing.warmup, job.timing.repeats, || {
            run(variant, &problem, a, b).map(|_| ())
        });
        match timed {
            Ok(ms) => {
                let mut r = JobResult::ok(ms, cmp.max_abs_err, cmp.max_rel_err);
                r.message = Some(method(job));
                r
            }
            Err(e) => JobResult::status(Status::LaunchError, e.to_string()),
        }
    }

    fn baseline(&mut self, job: &Job, provider: &str) -> Vec<ResultRow> {
        if provider != "reference" {
            return vec![ResultRow {
                kernel: format!("{provider}:none"),
                result: JobResult::status(
                    Status::Unsupported,
                    format!(
                        "the CPU worker has no baseline provider {provider:?} (it has \"reference\")"
                    ),
                ),
            }];
        }
        let problem = job.problem;
        let result = match self.prepare_problem(job) {
            Err(msg) => JobResult::status(Status::LaunchError, msg),
            Ok(p) => {
                let [a, b] = &p.inputs;
                match time_median(job.timing.warmup, job.timing.repeats, || {
                    reference_tensors(&problem, a, b).map(|_| ())
                }) {
                    Ok(ms) => {
                        let mut r = JobResult::ok(ms, 0.0, 0.0);
                        r.message = Some(method(job));
                        r
                    }
                    Err(e) => JobResult::status(Status::LaunchError, e.to_string()),
                }
            }
        };
        vec![ResultRow {
            kernel: "reference:f64".into(),
            result,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::TimingOptions;

    fn job(name: &str, key: &str) -> Job {
        Job {
            id: 1,
            kind: JobKind::Kernel { name: name.into() },
            problem: key.parse().unwrap(),
            timing: TimingOptions {
                warmup: 0,
                repeats: 2,
                cold_l2: false,
            },
            seed: 3,
        }
    }

    const KEY: &str = "fwd_f32_n2_g4_c8_k8_i7x7_f3x3_s1x1_p1x1_d1x1";

    #[test]
    fn verifies_then_times() {
        let mut ex = CpuExecutor::new();
        for v in CpuVariant::POOL {
            let r = ex.execute(&job(v.name(), KEY));
            assert_eq!(r.status, Status::Ok, "{v}: {:?}", r.message);
            assert!(r.latency_ms.unwrap() > 0.0);
            assert!(r.max_abs_err.unwrap() < 1e-3);
        }
        let r = ex.execute(&job("cpu_planted_wrong", KEY));
        assert_eq!(r.status, Status::Incorrect, "{r:?}");
        assert!(r.latency_ms.is_none(), "incorrect kernels are not timed");
        assert!(r.max_abs_err.unwrap() > 1e-3);
        let r = ex.execute(&job("cpu_nope", KEY));
        assert_eq!(r.status, Status::Unsupported);
    }

    #[test]
    fn reference_baseline() {
        let mut ex = CpuExecutor::new();
        let mut j = job("x", KEY);
        j.kind = JobKind::Baseline {
            provider: "reference".into(),
        };
        let rows = ex.baseline(&j, "reference");
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].kernel, "reference:f64");
        assert_eq!(rows[0].result.status, Status::Ok);
        let rows = ex.baseline(&j, "cudnn");
        assert_eq!(rows[0].result.status, Status::Unsupported);
    }

    #[test]
    fn median() {
        let mut calls = 0;
        let m = time_median(2, 3, || {
            calls += 1;
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(calls, 5);
        assert!(m >= 0.0);
        assert_eq!(time_median(0, 1, || Err::<(), _>("boom")), Err("boom"));
    }
}
