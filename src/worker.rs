//! `gconv worker`: the worker side of the sweep protocol (`gconv_tune::worker`). The CPU
//! backend uses `gconv_tune::cpu::CpuExecutor`; the CUDA backend is [`CudaExecutor`] here:
//! it compiles the batch's kernels (in the background, in job order, while earlier jobs run;
//! or all before the first job with `--no-compile-overlap`), then for each job verifies the
//! kernel's output against the reference before timing it, and runs the cuDNN baseline
//! provider. Every result carries the job's phase times (`gconv_tune::worker::PhaseTimes`).
//!
//! Per problem the worker makes the inputs and the reference once, uploads the inputs (and the
//! reference, as f64) once and keeps the device buffers for the problem's later jobs. Outputs
//! are compared with the reference on the device (`gconv_cuda::compare`, the host comparison's
//! arithmetic; `--verify-on-host` downloads and compares on the host instead). The first
//! comparison of each problem in a worker is made both ways; if they ever disagree the worker
//! says so (in that row's message and on stderr), keeps the host's result and compares on the
//! host from then on. Every row's message ends with how it was verified. Before each verification run the
//! output is zeroed and a fresh zeroed workspace is allocated, as a fresh set of buffers would
//! be; after a kernel that fails verification the problem's device buffers are dropped, so
//! that nothing a faulty kernel may have written reaches the next one.

use crate::dispatch::{
    gpu_target, reference_values, GpuKernel, Unrunnable, CPU_REFERENCE_MAX_FLOPS,
};
use gconv_cuda::compare::{DeviceComparer, DeviceReference};
use gconv_cuda::cudnn::{CudnnBaseline, CudnnTiming, EngineStatus};
use gconv_cuda::{
    compile_cached, Buffers, CompileOptions, CompiledKernel, GpuRuntime, LoadedKernel, Timing,
    TimingOptions,
};
use gconv_kernels::KernelSource;
use gconv_kernels::Target;
use gconv_problem::{compare, Comparison, HostTensor, Problem, Tolerance};
use gconv_tune::prefetch::Prefetch;
use gconv_tune::sweep::rejection_status;
use gconv_tune::worker::{PhaseTimes, ResultRow};
use gconv_tune::KernelRef;
use gconv_tune::{Executor, Job, JobKind, JobResult, Status};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

type Prepared = Result<(KernelSource, CompiledKernel, bool), (Status, String)>;

/// Problems whose data a worker keeps at once (a batch is problem-major, so two cover the
/// boundary between problems).
const KEEP_PROBLEMS: usize = 2;

/// One problem's data in the worker: host inputs and reference, device buffers.
struct ProblemData {
    problem: Problem,
    seed: u64,
    inputs: Arc<(HostTensor, HostTensor)>,
    reference: Option<Arc<Vec<f64>>>,
    bufs: Option<Buffers>,
    /// The reference on the device, for device comparisons.
    dev_ref: Option<DeviceReference>,
    /// Whether a device comparison of this problem was checked against the host's.
    cross_checked: bool,
}

/// Executes kernel jobs on the GPU.
pub struct CudaExecutor {
    rt: GpuRuntime,
    compile_threads: usize,
    overlap: bool,
    /// Compiled in `prepare` (without overlap).
    prepared: HashMap<(String, String), Prepared>,
    /// Compiling in the background (with overlap), and where each (kernel, problem) is in it.
    queue: Option<Prefetch<Prepared>>,
    queue_index: HashMap<(String, String), usize>,
    problems: Vec<ProblemData>,
    cudnn: Option<CudnnBaseline>,
    /// Compare on the device (until a cross-check fails or the kernel cannot be loaded).
    device_compare: bool,
    comparer: Option<DeviceComparer>,
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

impl CudaExecutor {
    /// An executor on `rt` that compiles each batch before its first job, on rayon's pool.
    pub fn new(rt: GpuRuntime) -> CudaExecutor {
        CudaExecutor::with_compile(rt, 1, false)
    }

    /// An executor on `rt`; with `overlap`, kernels compile on `threads` background threads
    /// (at most one fewer than the machine's cores, so that the job thread keeps a core for
    /// timing) while earlier jobs run.
    pub fn with_compile(rt: GpuRuntime, threads: usize, overlap: bool) -> CudaExecutor {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        CudaExecutor {
            rt,
            compile_threads: threads.clamp(1, cores.saturating_sub(1).max(1)),
            overlap,
            prepared: HashMap::new(),
            queue: None,
            queue_index: HashMap::new(),
            problems: Vec::new(),
            cudnn: None,
            device_compare: true,
            comparer: None,
        }
    }

    /// Compare outputs on the host (download, then `gconv_problem::compare`) instead of on the
    /// device.
    pub fn compare_on_host(mut self) -> CudaExecutor {
        self.device_compare = false;
        self
    }

    /// Index of the job's problem data in `self.problems`, made (inputs generated) when
    /// missing; the time goes to `ph.inputs_ms`.
    fn data(&mut self, p: &Problem, seed: u64, ph: &mut PhaseTimes) -> usize {
        if let Some(i) = self
            .problems
            .iter()
            .position(|d| d.problem == *p && d.seed == seed)
        {
            return i;
        }
        let t = Instant::now();
        let ([r0, r1], _) = p.roles();
        let inputs = Arc::new((
            HostTensor::random_for(p, r0, seed),
            HostTensor::random_for(p, r1, seed),
        ));
        ph.inputs_ms += ms_since(t);
        if self.problems.len() >= KEEP_PROBLEMS {
            self.problems.remove(0);
        }
        self.problems.push(ProblemData {
            problem: *p,
            seed,
            inputs,
            reference: None,
            bufs: None,
            dev_ref: None,
            cross_checked: false,
        });
        self.problems.len() - 1
    }

    /// The reference values of problem data `i`, computed when missing (CPU f64 for small
    /// problems, the GPU reference kernel for large ones; the time goes to the matching phase).
    fn reference(&mut self, i: usize, ph: &mut PhaseTimes) -> Result<Arc<Vec<f64>>, String> {
        let d = &mut self.problems[i];
        if let Some(r) = &d.reference {
            return Ok(r.clone());
        }
        let t = Instant::now();
        let (v, _) = reference_values(Some(&self.rt), &d.problem, &d.inputs.0, &d.inputs.1)
            .map_err(|e| format!("reference failed: {e:#}"))?;
        if d.problem.flops() > CPU_REFERENCE_MAX_FLOPS {
            ph.reference_gpu_ms += ms_since(t);
        } else {
            ph.reference_cpu_ms += ms_since(t);
        }
        let v = Arc::new(v);
        d.reference = Some(v.clone());
        Ok(v)
    }

    /// Makes sure problem data `i` has device buffers (uploading the inputs when missing; the
    /// time goes to `ph.setup_ms`).
    fn ensure_bufs(&mut self, i: usize, ph: &mut PhaseTimes) -> Result<(), String> {
        let d = &mut self.problems[i];
        if d.bufs.is_some() {
            return Ok(());
        }
        let t = Instant::now();
        let (_, ro) = d.problem.roles();
        let bufs = Buffers {
            in0: self.rt.upload(&d.inputs.0).map_err(|e| e.to_string())?,
            in1: self.rt.upload(&d.inputs.1).map_err(|e| e.to_string())?,
            out: self
                .rt
                .alloc(d.problem.dtype, d.problem.elements(ro) as usize)
                .map_err(|e| e.to_string())?,
            workspace: None,
        };
        d.bufs = Some(bufs);
        ph.setup_ms += ms_since(t);
        Ok(())
    }

    /// The compiled kernel of a job: from the background queue, from `prepare`, or compiled
    /// now. The wait goes to `ph.compile_wait_ms`.
    fn compiled(&mut self, name: &str, p: &Problem, ph: &mut PhaseTimes) -> Prepared {
        let key = (name.to_string(), p.to_string());
        if let (Some(q), Some(&i)) = (self.queue.as_mut(), self.queue_index.get(&key)) {
            if let Some((r, waited)) = q.take(i) {
                ph.compile_wait_ms += waited.as_secs_f64() * 1e3;
                return r.unwrap_or_else(|panic| {
                    Err((
                        Status::CompileError,
                        format!("compilation panicked: {panic}"),
                    ))
                });
            }
        }
        if let Some(r) = self.prepared.remove(&key) {
            return r;
        }
        let t = Instant::now();
        let r = prepare_one(name, p, &gpu_target(&self.rt));
        ph.compile_wait_ms += ms_since(t);
        r
    }

    fn run_kernel(&mut self, job: &Job, name: &str) -> JobResult {
        let mut ph = PhaseTimes::default();
        let (src, compiled, hit) = match self.compiled(name, &job.problem, &mut ph) {
            Ok(x) => x,
            Err((status, msg)) => {
                let mut r = JobResult::status(status, msg);
                r.phases = Some(ph);
                return r;
            }
        };
        ph.cache_hit = Some(hit);
        ph.compile_cpu_ms = if hit { 0.0 } else { compiled.compile_ms };
        let mut result = self.verify_and_time(job, &src, &compiled, &mut ph);
        result.compile_ms = Some(if hit { 0.0 } else { compiled.compile_ms });
        result.regs = Some(compiled.max_regs());
        result.spills = Some(compiled.total_spills() as u32);
        result.phases = Some(ph);
        result
    }

    fn verify_and_time(
        &mut self,
        job: &Job,
        src: &KernelSource,
        compiled: &CompiledKernel,
        ph: &mut PhaseTimes,
    ) -> JobResult {
        let p = job.problem;
        let i = self.data(&p, job.seed, ph);
        let want = match self.reference(i, ph) {
            Ok(w) => w,
            Err(e) => return JobResult::status(Status::Crashed, e),
        };
        let t = Instant::now();
        let k = match self.rt.load(compiled, src) {
            Ok(k) => k,
            Err(e) => return JobResult::status(Status::LaunchError, e.to_string()),
        };
        ph.setup_ms += ms_since(t);
        if let Err(e) = self.ensure_bufs(i, ph) {
            return JobResult::status(Status::LaunchError, e);
        }
        let t = Instant::now();
        if let Err(e) = self.fresh_output(i, &k) {
            return JobResult::status(Status::LaunchError, e);
        }
        ph.setup_ms += ms_since(t);
        let t = Instant::now();
        let checked = self.run_and_compare(i, &k, &want);
        ph.verify_ms += ms_since(t);
        let (c, how) = match checked {
            Ok(c) => c,
            Err(e) => {
                self.problems[i].bufs = None;
                return JobResult::status(Status::LaunchError, e);
            }
        };
        if !c.passed() {
            self.problems[i].bufs = None;
            let mut r = JobResult::status(
                Status::Incorrect,
                format!(
                    "{} of {} elements outside tolerance (worst index {}); {how}",
                    c.failures, c.count, c.worst_index
                ),
            );
            r.max_abs_err = Some(c.max_abs_err);
            r.max_rel_err = Some(c.max_rel_err);
            return r;
        }
        let opts = gpu_timing(job);
        let t = Instant::now();
        let timed = match &self.problems[i].bufs {
            Some(b) => self
                .rt
                .time_against(&k, b, &opts, job.best_ms)
                .map_err(|e| e.to_string()),
            None => Err("device buffers missing".to_string()),
        };
        ph.timing_ms += ms_since(t);
        match timed {
            Ok(t) => {
                let mut r =
                    timed_result(JobResult::ok(t.median_ms, c.max_abs_err, c.max_rel_err), &t);
                r.message = Some(format!("{}; {how}", t.method));
                r
            }
            Err(e) => JobResult::status(Status::LaunchError, e),
        }
    }

    /// Poisons the output (NaN bytes) and gives the kernel a fresh poisoned workspace when it
    /// needs one: an element a kernel leaves unwritten, or a workspace it assumes zeroed,
    /// fails verification (callers' memory, e.g. PyTorch's allocator, is not zeroed either).
    fn fresh_output(&mut self, i: usize, k: &LoadedKernel) -> Result<(), String> {
        let Some(b) = self.problems[i].bufs.as_mut() else {
            return Err("device buffers missing".to_string());
        };
        self.rt.poison(&mut b.out).map_err(|e| e.to_string())?;
        b.workspace = if k.workspace_bytes > 0 {
            Some(
                self.rt
                    .alloc_workspace(k.workspace_bytes)
                    .map_err(|e| e.to_string())?,
            )
        } else {
            None
        };
        Ok(())
    }

    /// Runs `k` once on problem data `i`'s buffers and compares its output with `want`.
    fn run_and_compare(
        &mut self,
        i: usize,
        k: &LoadedKernel,
        want: &[f64],
    ) -> Result<(Comparison, String), String> {
        let b = self.problems[i]
            .bufs
            .as_ref()
            .ok_or("device buffers missing")?;
        self.rt.launch(k, b).map_err(|e| e.to_string())?;
        self.check_output(i, want)
    }

    /// Compares problem data `i`'s output buffer with the reference `want`: on the device
    /// (cross-checked against the host once per problem), or on the host.
    /// Returns the comparison and how it was made (for the row's message).
    fn check_output(&mut self, i: usize, want: &[f64]) -> Result<(Comparison, String), String> {
        let tol = Tolerance::for_problem(&self.problems[i].problem);
        if self.device_compare && self.comparer.is_none() {
            match DeviceComparer::new(&self.rt) {
                Ok(c) => self.comparer = Some(c),
                Err(e) => {
                    crate::output::note!(
                        "worker: device comparison unavailable, comparing on the host: {e}"
                    );
                    self.device_compare = false;
                }
            }
        }
        let d = &mut self.problems[i];
        let b = d.bufs.as_ref().ok_or("device buffers missing")?;
        let host = |rt: &GpuRuntime| -> Result<Comparison, String> {
            let out = rt.download(&b.out).map_err(|e| e.to_string())?;
            Ok(compare(&out, want, tol))
        };
        let Some(comparer) = self.comparer.as_mut().filter(|_| self.device_compare) else {
            return Ok((host(&self.rt)?, "verified on the host".to_string()));
        };
        if d.dev_ref.is_none() {
            d.dev_ref = Some(DeviceReference::upload(&self.rt, want).map_err(|e| e.to_string())?);
        }
        let dev_ref = d.dev_ref.as_ref().ok_or("device reference missing")?;
        let c = match comparer.compare(&self.rt, &b.out, dev_ref, tol) {
            Ok(c) => c,
            Err(e) => {
                crate::output::note!(
                    "worker: the device comparison failed ({e}); comparing on the host from now on"
                );
                self.device_compare = false;
                return Ok((
                    host(&self.rt)?,
                    format!("verified on the host (the device comparison failed: {e}; host comparisons from now on)"),
                ));
            }
        };
        if d.cross_checked {
            return Ok((c, "verified on the device".to_string()));
        }
        let h = host(&self.rt)?;
        d.cross_checked = true;
        if same_comparison(&c, &h) {
            return Ok((
                c,
                "verified on the device and on the host (identical)".to_string(),
            ));
        }
        let note = format!(
            "verified on the host: the device comparison disagreed (device {} failures, max abs {:e}, worst {}; host {} failures, max abs {:e}, worst {}); host comparisons from now on",
            c.failures, c.max_abs_err, c.worst_index, h.failures, h.max_abs_err, h.worst_index
        );
        crate::output::note!("worker: {}: {note}", d.problem);
        self.device_compare = false;
        Ok((h, note))
    }
}

/// Field-by-field equality of two comparisons (NaN equal to NaN).
fn same_comparison(a: &Comparison, b: &Comparison) -> bool {
    let eq = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
    a.failures == b.failures
        && a.count == b.count
        && a.worst_index == b.worst_index
        && eq(a.max_abs_err, b.max_abs_err)
        && eq(a.max_rel_err, b.max_rel_err)
}

/// The GPU timing options of a job: its repeat policy, graph replay, its L2 flush.
fn gpu_timing(job: &Job) -> TimingOptions {
    TimingOptions {
        warmup: job.timing.warmup,
        rounds: job.timing.repeats.max(1),
        iters_per_round: job.timing.iters.max(1),
        flush_l2: job.timing.cold_l2,
        use_graph: true,
        adaptive: job.timing.adaptive,
        early_stop: job.timing.early_stop,
    }
}

/// An ok result with how its latency was measured.
fn timed_result(mut r: JobResult, t: &Timing) -> JobResult {
    r.rounds = Some(t.rounds);
    r.iters = Some(t.iters_per_round);
    r.stopped_early = Some(t.stopped_early());
    r.message = Some(t.method.clone());
    r
}

/// Resolves a kernel name through the admission (once), generates and compiles it (cached). A
/// refused pair keeps the rejection's key and its `unsupported` status.
fn prepare_one(name: &str, p: &Problem, target: &Target) -> Prepared {
    let kref: KernelRef = name
        .parse()
        .map_err(|e: gconv_tune::TuneError| (Status::Rejected, e.to_string()))?;
    let kernel = GpuKernel::resolve(kref, p, target, None).map_err(|e| match e {
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
        if self.overlap {
            self.queue_index = todo
                .iter()
                .enumerate()
                .map(|(i, (n, p))| ((n.clone(), p.to_string()), i))
                .collect();
            let target = gpu_target(&self.rt);
            self.queue = Some(Prefetch::start(
                todo,
                self.compile_threads,
                move |(n, p)| prepare_one(n, p, &target),
            ));
        } else {
            let target = gpu_target(&self.rt);
            let done: Vec<_> = todo
                .par_iter()
                .map(|(n, p)| ((n.clone(), p.to_string()), prepare_one(n, p, &target)))
                .collect();
            self.prepared.extend(done);
        }
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
        let mut ph = PhaseTimes::default();
        let mut rows = match self.cudnn_rows(job, &mut ph) {
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
        };
        if let Some(first) = rows.first_mut() {
            first.result.phases = Some(ph);
        }
        rows
    }
}

impl CudaExecutor {
    /// Times every engine configuration cuDNN's heuristics offer (graph API, the job's repeat
    /// policy through the shared timing module, early stop against the best cuDNN latency
    /// known), then runs each one that worked once more and verifies its output against the
    /// reference, so that no unverified baseline row is ranked.
    fn cudnn_rows(&mut self, job: &Job, ph: &mut PhaseTimes) -> Result<Vec<ResultRow>, String> {
        let p = job.problem;
        if self.cudnn.is_none() {
            let t = Instant::now();
            let b = CudnnBaseline::new(self.rt.stream().clone()).map_err(|e| e.to_string())?;
            self.cudnn = Some(b);
            ph.plans_ms += ms_since(t);
        }
        let i = self.data(&p, job.seed, ph);
        let want = self.reference(i, ph)?;
        self.ensure_bufs(i, ph)?;
        let opts = CudnnTiming {
            rounds: job.timing.repeats.max(1) as usize,
            warmup: job.timing.warmup as usize,
            iters: job.timing.iters.max(1) as usize,
            adaptive: job.timing.adaptive,
            early_stop: job.timing.early_stop,
            best_ms: job.best_ms,
            ..CudnnTiming::default()
        };
        let cudnn = self.cudnn.as_mut().ok_or("cuDNN handle missing")?;
        let b = self.problems[i]
            .bufs
            .as_mut()
            .ok_or("device buffers missing")?;
        let t = Instant::now();
        let results = cudnn
            .time_all_slices(&p, b.in0.slice(), b.in1.slice(), b.out.slice_mut(), &opts)
            .map_err(|e| e.to_string())?;
        let all_ms = ms_since(t);
        let timing_ms: f64 = results
            .iter()
            .filter_map(|r| r.timing.as_ref().map(|t| t.wall_ms))
            .sum();
        ph.timing_ms += timing_ms;
        ph.plans_ms += (all_ms - timing_ms).max(0.0);
        let t = Instant::now();
        let mut rows = Vec::new();
        for r in results {
            let result = match (&r.status, &r.timing) {
                (EngineStatus::Ok, Some(timing)) => {
                    let ran = {
                        let cudnn = self.cudnn.as_mut().ok_or("cuDNN handle missing")?;
                        let b = self.problems[i]
                            .bufs
                            .as_mut()
                            .ok_or("device buffers missing")?;
                        cudnn.execute_named_slices(
                            &p,
                            &r.name,
                            b.in0.slice(),
                            b.in1.slice(),
                            b.out.slice_mut(),
                        )
                    };
                    match ran
                        .map_err(|e| e.to_string())
                        .and_then(|_| self.check_output(i, &want))
                    {
                        Ok((c, how)) if c.passed() => {
                            let mut ok = timed_result(
                                JobResult::ok(timing.median_ms, c.max_abs_err, c.max_rel_err),
                                timing,
                            );
                            ok.message = Some(format!(
                                "cuDNN graph API, timed by {}: {}; {how}",
                                r.method.map_or("?", |m| m.token()),
                                timing.method
                            ));
                            ok
                        }
                        Ok((c, how)) => {
                            let mut bad = JobResult::status(
                                Status::Incorrect,
                                format!(
                                    "{} of {} elements outside tolerance; {how}",
                                    c.failures, c.count
                                ),
                            );
                            bad.max_abs_err = Some(c.max_abs_err);
                            bad.max_rel_err = Some(c.max_rel_err);
                            bad
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
        ph.verify_ms += ms_since(t);
        Ok(rows)
    }
}
