//! The CPU executor: runs jobs on the CPU backend variants of `gconv-reference`, verifying each
//! result against the f64 reference before timing it with the wall clock.
//!
//! Timing follows the job's repeat policy through `gconv_problem::measure` (the decisions the
//! GPU timing module makes too): a timed probe run, warm-up runs, then rounds of one run each;
//! adaptive repeats and early stop against [`Job::best_ms`] apply as on the GPU. Each result
//! carries its phase times (inputs, reference, verification, timing; nothing is compiled).
//!
//! It also answers the baseline provider `reference` with one row, `reference:f64`: the f64
//! reference itself, timed the same way (its errors are 0 by definition). Any other provider is
//! `unsupported`.

use crate::worker::{Executor, Job, JobKind, JobResult, PhaseTimes, ResultRow, Status};
use gconv_problem::measure::{run_session, Outcome};
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

    /// Inputs and reference for the job's problem and seed (cached for consecutive jobs); the
    /// time spent making them goes to `phases`.
    fn prepare_problem(&mut self, job: &Job, phases: &mut PhaseTimes) -> Result<&Prepared, String> {
        let fresh = self
            .prepared
            .as_ref()
            .is_none_or(|p| p.problem != job.problem || p.seed != job.seed);
        if fresh {
            let problem = job.problem;
            let ([r0, r1], _) = problem.roles();
            let t = Instant::now();
            // The orchestrator refuses problems that do not fit before sending them; a failed
            // allocation here is still a row, not an abort.
            let input = |r| {
                HostTensor::try_random_for(&problem, r, job.seed)
                    .map_err(|e| format!("cannot allocate the inputs: {e}"))
            };
            let inputs = [input(r0)?, input(r1)?];
            phases.inputs_ms += ms_since(t);
            let t = Instant::now();
            let reference = reference_tensors(&problem, &inputs[0], &inputs[1])
                .map_err(|e| format!("reference failed: {e}"))?;
            phases.reference_cpu_ms += ms_since(t);
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

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Times `f` with the job's repeat policy (one run per round; see the module documentation)
/// against the job's best known latency. `Err` from `f` stops the measurement.
pub fn time_job<E>(job: &Job, mut f: impl FnMut() -> Result<(), E>) -> Result<Outcome, E> {
    let policy = gconv_problem::measure::RepeatPolicy {
        iters: 1,
        ..job.timing.policy()
    };
    let timed = |f: &mut dyn FnMut() -> Result<(), E>| -> Result<f64, E> {
        let s = Instant::now();
        f()?;
        Ok(ms_since(s))
    };
    let f = std::cell::RefCell::new(&mut f);
    run_session(
        policy,
        job.best_ms,
        || timed(&mut *f.borrow_mut()),
        |n| {
            for _ in 0..n {
                (f.borrow_mut())()?;
            }
            Ok(())
        },
        |_| timed(&mut *f.borrow_mut()),
    )
}

fn method(o: &Outcome) -> String {
    format!("cpu wall clock: {}", o.describe())
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
        let mut phases = PhaseTimes::default();
        let mut r = self.execute_variant(job, variant, &mut phases);
        r.phases = Some(phases);
        r
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
        let mut phases = PhaseTimes::default();
        let mut result = match self.prepare_problem(job, &mut phases) {
            Err(msg) => JobResult::status(Status::LaunchError, msg),
            Ok(p) => {
                let [a, b] = &p.inputs;
                let t = Instant::now();
                let timed = time_job(job, || reference_tensors(&problem, a, b).map(|_| ()));
                phases.timing_ms += ms_since(t);
                match timed {
                    Ok(o) => JobResult::ok(o.latency_ms(), 0.0, 0.0).with_outcome(&o, method(&o)),
                    Err(e) => JobResult::status(Status::LaunchError, e.to_string()),
                }
            }
        };
        result.phases = Some(phases);
        vec![ResultRow {
            kernel: "reference:f64".into(),
            result,
        }]
    }
}

impl CpuExecutor {
    fn execute_variant(
        &mut self,
        job: &Job,
        variant: CpuVariant,
        phases: &mut PhaseTimes,
    ) -> JobResult {
        let problem = job.problem;
        let prepared = match self.prepare_problem(job, phases) {
            Ok(p) => p,
            Err(msg) => return JobResult::status(Status::Unsupported, msg),
        };
        let [a, b] = &prepared.inputs;
        // Verify first.
        let t = Instant::now();
        let out = match run(variant, &problem, a, b) {
            Ok(o) => o,
            Err(e) => return JobResult::status(Status::LaunchError, e.to_string()),
        };
        let cmp = compare(&out, &prepared.reference, Tolerance::for_problem(&problem));
        phases.verify_ms += ms_since(t);
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
        let t = Instant::now();
        let timed = time_job(job, || run(variant, &problem, a, b).map(|_| ()));
        phases.timing_ms += ms_since(t);
        match timed {
            Ok(o) => JobResult::ok(o.latency_ms(), cmp.max_abs_err, cmp.max_rel_err)
                .with_outcome(&o, method(&o)),
            Err(e) => JobResult::status(Status::LaunchError, e.to_string()),
        }
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
                ..TimingOptions::default()
            },
            seed: 3,
            best_ms: None,
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
    fn time_job_follows_the_policy() {
        let mut calls = 0;
        let mut j = job("cpu_direct", KEY);
        j.timing.warmup = 2;
        j.timing.repeats = 3;
        let o = time_job(&j, || {
            calls += 1;
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(calls, 5, "probe + 1 warm-up + 3 rounds of one run");
        assert_eq!((o.warmup, o.rounds, o.iters), (2, 3, 1));
        assert!(o.latency_ms() >= 0.0);
        assert_eq!(time_job(&j, || Err::<(), _>("boom")), Err("boom"));
    }

    #[test]
    fn phases_are_reported_and_compile_is_zero() {
        let mut ex = CpuExecutor::new();
        let r = ex.execute(&job("cpu_direct", KEY));
        let p = r.phases.expect("phases");
        assert!(p.inputs_ms > 0.0 && p.reference_cpu_ms > 0.0, "{p:?}");
        assert!(p.verify_ms > 0.0 && p.timing_ms > 0.0, "{p:?}");
        assert_eq!(
            (p.compile_wait_ms, p.compile_cpu_ms, p.cache_hit),
            (0.0, 0.0, None)
        );
        // the second job on the same problem reuses inputs and reference
        let p = ex.execute(&job("cpu_im2col_gemm", KEY)).phases.unwrap();
        assert_eq!((p.inputs_ms, p.reference_cpu_ms), (0.0, 0.0));
        assert_eq!(r.rounds, Some(2));
        assert_eq!(r.iters, Some(1));
        assert_eq!(r.stopped_early, Some(false));
    }

    #[test]
    fn early_stop_keeps_the_row_ok_and_verified() {
        let mut ex = CpuExecutor::new();
        let mut j = job("cpu_direct", KEY);
        j.timing = TimingOptions::adaptive_default();
        // a best far below anything the CPU can do: stopped at the probe
        j.best_ms = Some(1e-9);
        let r = ex.execute(&j);
        assert_eq!(r.status, Status::Ok, "{r:?}");
        assert!(
            r.max_abs_err.is_some() && r.max_rel_err.is_some(),
            "verified"
        );
        assert_eq!(r.stopped_early, Some(true));
        assert_eq!((r.rounds, r.iters), (Some(1), Some(1)));
        let m = r.message.unwrap();
        assert!(m.contains("stopped early after the probe"), "{m}");
        // without a best nothing stops
        j.best_ms = None;
        let r = ex.execute(&j);
        assert_eq!(r.stopped_early, Some(false));
        assert!(r.rounds.unwrap() >= 5, "{r:?}");
        // an incorrect kernel is never timed, best or not
        let mut w = job("cpu_planted_wrong", KEY);
        w.best_ms = Some(1e-9);
        w.timing = TimingOptions::adaptive_default();
        let r = ex.execute(&w);
        assert_eq!(r.status, Status::Incorrect);
        assert_eq!(r.stopped_early, None);
    }
}
