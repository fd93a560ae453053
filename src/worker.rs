//! `gconv worker`: the worker side of the sweep protocol (`gconv_tune::worker`). The CPU
//! backend uses `gconv_tune::cpu::CpuExecutor`; the CUDA backend is [`CudaExecutor`] here:
//! it compiles the batch in parallel in `prepare`, then for each job verifies the kernel's
//! output against the reference before timing it, and runs the cuDNN baseline provider.

use crate::dispatch::{reference_values, source_for, KernelChoice};
use gconv_cuda::{compile_cached, CompileOptions, CompiledKernel, GpuRuntime, TimingOptions};
use gconv_kernels::KernelSource;
use gconv_problem::{compare, HostTensor, Problem, Tolerance};
use gconv_tune::worker::ResultRow;
use gconv_tune::{Executor, Job, JobKind, JobResult, Status};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

type Prepared = Result<(KernelSource, CompiledKernel, bool), (Status, String)>;

/// Executes kernel jobs on the GPU.
pub struct CudaExecutor {
    rt: GpuRuntime,
    prepared: HashMap<(String, String), Prepared>,
    references: HashMap<String, Arc<Vec<f64>>>,
    inputs: HashMap<String, Arc<(HostTensor, HostTensor)>>,
}

impl CudaExecutor {
    /// Opens device 0.
    pub fn new(rt: GpuRuntime) -> CudaExecutor {
        CudaExecutor {
            rt,
            prepared: HashMap::new(),
            references: HashMap::new(),
            inputs: HashMap::new(),
        }
    }

    fn inputs_for(&mut self, p: &Problem, seed: u64) -> Arc<(HostTensor, HostTensor)> {
        let key = format!("{p}#{seed}");
        self.inputs
            .entry(key)
            .or_insert_with(|| {
                let ([r0, r1], _) = p.roles();
                Arc::new((
                    HostTensor::random_for(p, r0, seed),
                    HostTensor::random_for(p, r1, seed),
                ))
            })
            .clone()
    }

    fn reference_for(&mut self, p: &Problem, seed: u64) -> Result<Arc<Vec<f64>>, String> {
        let key = format!("{p}#{seed}");
        if let Some(r) = self.references.get(&key) {
            return Ok(r.clone());
        }
        let inputs = self.inputs_for(p, seed);
        let (v, _) = reference_values(Some(&self.rt), p, &inputs.0, &inputs.1)
            .map_err(|e| format!("reference failed: {e:#}"))?;
        let v = Arc::new(v);
        // Keep memory bounded: a batch rarely spans more than a few problems.
        if self.references.len() > 4 {
            self.references.clear();
            self.inputs.retain(|k, _| k == &key);
        }
        self.references.insert(key, v.clone());
        Ok(v)
    }

    fn run_kernel(&mut self, job: &Job, name: &str) -> JobResult {
        let key = (name.to_string(), job.problem.to_string());
        let prepared = match self.prepared.remove(&key) {
            Some(p) => p,
            None => prepare_one(name, &job.problem),
        };
        let (src, compiled, hit) = match prepared {
            Ok(x) => x,
            Err((status, msg)) => return JobResult::status(status, msg),
        };
        let mut result = self.verify_and_time(job, &src, &compiled);
        result.compile_ms = Some(if hit { 0.0 } else { compiled.compile_ms });
        result.regs = Some(compiled.max_regs());
        result.spills = Some(compiled.total_spills() as u32);
        result
    }

    fn verify_and_time(
        &mut self,
        job: &Job,
        src: &KernelSource,
        compiled: &CompiledKernel,
    ) -> JobResult {
        let p = job.problem;
        let inputs = self.inputs_for(&p, job.seed);
        let k = match self.rt.load(compiled, src) {
            Ok(k) => k,
            Err(e) => return JobResult::status(Status::LaunchError, e.to_string()),
        };
        let b = match self.rt.buffers(&p, &k, &inputs.0, &inputs.1) {
            Ok(b) => b,
            Err(e) => return JobResult::status(Status::LaunchError, e.to_string()),
        };
        if let Err(e) = self.rt.launch(&k, &b) {
            return JobResult::status(Status::LaunchError, e.to_string());
        }
        let out = match self.rt.download(&b.out) {
            Ok(o) => o,
            Err(e) => return JobResult::status(Status::LaunchError, e.to_string()),
        };
        let want = match self.reference_for(&p, job.seed) {
            Ok(w) => w,
            Err(e) => return JobResult::status(Status::Crashed, e),
        };
        let c = compare(&out, &want, Tolerance::for_problem(&p));
        if !c.passed() {
            let mut r = JobResult::status(
                Status::Incorrect,
                format!(
                    "{} of {} elements outside tolerance (worst index {})",
                    c.failures, c.count, c.worst_index
                ),
            );
            r.max_abs_err = Some(c.max_abs_err);
            r.max_rel_err = Some(c.max_rel_err);
            return r;
        }
        let opts = TimingOptions {
            warmup: job.timing.warmup,
            rounds: job.timing.repeats.max(1),
            flush_l2: job.timing.cold_l2,
            ..TimingOptions::default()
        };
        match self.rt.time(&k, &b, &opts) {
            Ok(t) => {
                let mut r = JobResult::ok(t.median_ms, c.max_abs_err, c.max_rel_err);
                r.message = Some(t.method);
                r
            }
            Err(e) => JobResult::status(Status::LaunchError, e.to_string()),
        }
    }
}

/// Resolves a kernel name through the gates, generates and compiles it (cached).
fn prepare_one(name: &str, p: &Problem) -> Prepared {
    let choice = KernelChoice::parse(name).map_err(|e| (Status::Rejected, format!("{e:#}")))?;
    let src = source_for(choice, p).map_err(|e| (Status::Rejected, format!("{e:#}")))?;
    let (compiled, hit) = compile_cached(&src, &CompileOptions::default())
        .map_err(|e| (Status::CompileError, e.to_string()))?;
    Ok((src, compiled, hit.is_hit()))
}

impl Executor for CudaExecutor {
    fn prepare(&mut self, jobs: &[Job]) {
        let todo: Vec<(String, Problem)> = jobs
            .iter()
            .filter_map(|j| match &j.kind {
                JobKind::Kernel { name } => Some((name.clone(), j.problem)),
                JobKind::Baseline { .. } => None,
            })
            .collect();
        let done: Vec<_> = todo
            .par_iter()
            .map(|(n, p)| ((n.clone(), p.to_string()), prepare_one(n, p)))
            .collect();
        self.prepared.extend(done);
    }

    fn execute(&mut self, job: &Job) -> JobResult {
        match &job.kind {
            JobKind::Kernel { name } => {
                let name = name.clone();
                self.run_kernel(job, &name)
            }
            JobKind::Baseline { provider } => JobResult::status(
                Status::Unsupported,
                format!("{provider} is a baseline, not a kernel"),
            ),
        }
    }

    fn baseline(&mut self, job: &Job, provider: &str) -> Vec<ResultRow> {
        vec![ResultRow {
            kernel: format!("{provider}:none"),
            result: JobResult::status(
                Status::Unsupported,
                format!(
                    "baseline provider {provider:?} is not available (problem {})",
                    job.problem
                ),
            ),
        }]
    }
}
