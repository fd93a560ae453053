//! `gconv worker`: the worker side of the sweep protocol (`gconv_tune::worker`). The CPU
//! backend uses `gconv_tune::cpu::CpuExecutor`; the CUDA backend is [`CudaExecutor`] here:
//! it compiles the batch in parallel in `prepare`, then for each job verifies the kernel's
//! output against the reference before timing it, and runs the cuDNN baseline provider.

use crate::dispatch::{gpu_target, reference_values, GpuKernel, Unrunnable};
use gconv_cuda::cudnn::{CudnnBaseline, CudnnTiming, EngineStatus};
use gconv_cuda::{compile_cached, CompileOptions, CompiledKernel, GpuRuntime, TimingOptions};
use gconv_kernels::KernelSource;
use gconv_kernels::Target;
use gconv_problem::{compare, HostTensor, Problem, Tolerance};
use gconv_tune::sweep::rejection_status;
use gconv_tune::worker::ResultRow;
use gconv_tune::KernelRef;
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
    cudnn: Option<CudnnBaseline>,
}

impl CudaExecutor {
    /// Opens device 0.
    pub fn new(rt: GpuRuntime) -> CudaExecutor {
        CudaExecutor {
            rt,
            prepared: HashMap::new(),
            references: HashMap::new(),
            inputs: HashMap::new(),
            cudnn: None,
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
            None => prepare_one(name, &job.problem, &gpu_target(&self.rt)),
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

/// Resolves a kernel name through the admission (once), generates and compiles it (cached). A
/// refused pair keeps the rejection's key and its `unsupported` status.
fn prepare_one(name: &str, p: &Problem, target: &Target) -> Prepared {
    let kref: KernelRef = name
        .parse()
        .map_err(|e: gconv_tune::TuneError| (Status::Rejected, e.to_string()))?;
    let kernel = GpuKernel::resolve(kref, p, target).map_err(|e| match e {
        Unrunnable::Rejected { rejection, .. } => rejection_status(&rejection),
        Unrunnable::NoPoolMember(_) => (Status::Unsupported, e.to_string()),
        Unrunnable::CpuVariant(_) => (Status::Rejected, e.to_string()),
    })?;
    let src = kernel.source(p);
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
        let target = gpu_target(&self.rt);
        let done: Vec<_> = todo
            .par_iter()
            .map(|(n, p)| ((n.clone(), p.to_string()), prepare_one(n, p, &target)))
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
        if provider != "cudnn" {
            return vec![ResultRow {
                kernel: format!("{provider}:none"),
                result: JobResult::status(
                    Status::Unsupported,
                    format!("unknown baseline provider {provider:?} (known: cudnn)"),
                ),
            }];
        }
        match self.cudnn_rows(job) {
            Ok(rows) if !rows.is_empty() => rows,
            Ok(_) => vec![ResultRow {
                kernel: "cudnn:none".into(),
                result: JobResult::status(
                    Status::Unsupported,
                    "cuDNN heuristics offered no engine configuration".to_string(),
                ),
            }],
            Err(e) => vec![ResultRow {
                kernel: "cudnn:none".into(),
                result: JobResult::status(Status::LaunchError, e),
            }],
        }
    }
}

impl CudaExecutor {
    /// Times every engine configuration cuDNN's heuristics offer (graph API, modes A and
    /// FALLBACK), then runs each one that worked once more and verifies its output against the
    /// reference, so that no unverified baseline row is ranked.
    fn cudnn_rows(&mut self, job: &Job) -> Result<Vec<ResultRow>, String> {
        let p = job.problem;
        if self.cudnn.is_none() {
            let b = CudnnBaseline::new(self.rt.stream().clone()).map_err(|e| e.to_string())?;
            self.cudnn = Some(b);
        }
        let inputs = self.inputs_for(&p, job.seed);
        let want = self.reference_for(&p, job.seed)?;
        let (_, ro) = p.roles();
        let in0 = self.rt.upload(&inputs.0).map_err(|e| e.to_string())?;
        let in1 = self.rt.upload(&inputs.1).map_err(|e| e.to_string())?;
        let mut out = self
            .rt
            .alloc(p.dtype, p.elements(ro) as usize)
            .map_err(|e| e.to_string())?;
        let opts = CudnnTiming {
            rounds: job.timing.repeats.max(1) as usize,
            warmup: job.timing.warmup as usize,
            ..CudnnTiming::default()
        };
        let cudnn = self.cudnn.as_mut().ok_or("cuDNN handle missing")?;
        let results = cudnn
            .time_all_slices(&p, in0.slice(), in1.slice(), out.slice_mut(), &opts)
            .map_err(|e| e.to_string())?;
        let tol = Tolerance::for_problem(&p);
        let mut rows = Vec::new();
        for r in results {
            let result = match (&r.status, r.median_ms) {
                (EngineStatus::Ok, Some(ms)) => {
                    let cudnn = self.cudnn.as_mut().ok_or("cuDNN handle missing")?;
                    let ran = cudnn.execute_named_slices(
                        &p,
                        &r.name,
                        in0.slice(),
                        in1.slice(),
                        out.slice_mut(),
                    );
                    match ran
                        .map_err(|e| e.to_string())
                        .and_then(|_| self.rt.download(&out).map_err(|e| e.to_string()))
                    {
                        Ok(host) => {
                            let c = compare(&host, &want, tol);
                            if c.passed() {
                                let mut ok = JobResult::ok(ms, c.max_abs_err, c.max_rel_err);
                                ok.message = r
                                    .method
                                    .map(|m| format!("cuDNN graph API, timed by {}", m.token()));
                                ok
                            } else {
                                let mut bad = JobResult::status(
                                    Status::Incorrect,
                                    format!(
                                        "{} of {} elements outside tolerance",
                                        c.failures, c.count
                                    ),
                                );
                                bad.max_abs_err = Some(c.max_abs_err);
                                bad.max_rel_err = Some(c.max_rel_err);
                                bad
                            }
                        }
                        Err(e) => JobResult::status(Status::LaunchError, e),
                    }
                }
                (EngineStatus::FinalizeFailed { .. }, _) | (EngineStatus::Skipped { .. }, _) => {
                    JobResult::status(Status::Unsupported, r.status.to_string())
                }
                _ => JobResult::status(Status::LaunchError, r.status.to_string()),
            };
            rows.push(ResultRow {
                kernel: r.name.clone(),
                result,
            });
        }
        Ok(rows)
    }
}
