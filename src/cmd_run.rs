//! `gconv run`: one convolution on a backend, with timing and optional verification.

use crate::backend::{select, Backend, BackendChoice};
use crate::dispatch::{auto_choice, gpu_target, reference_values, run_gpu, GpuKernel};
use anyhow::{bail, Context, Result};
use clap::Args;
use gconv_cuda::TimingOptions;
use gconv_kernels::{admit, validate, Target};
use gconv_learn::decisions::DecisionCache;
use gconv_problem::{
    check_host_memory, compare, DeviceSpec, HostMemoryLimit, HostTensor, Problem, Tolerance,
};
use gconv_reference::cpu;
use gconv_tune::KernelRef;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `gconv run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Problem key, e.g. fwd_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1.
    #[arg(long)]
    pub problem: String,
    /// Backend: auto uses CUDA when a usable GPU is present, else the CPU (and says why).
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Kernel: `auto` (on the GPU: a measured decision of the decision cache, else the shipped
    /// selection model, or the rule where the model does not apply; GCONV_AUTO=rule forces the
    /// rule), a canonical kernel name, `ref` (the GPU reference kernel; on the CPU backend the
    /// f64 reference), or on the CPU backend a CPU variant name (cpu_direct, cpu_im2col_gemm).
    #[arg(long, default_value = "auto")]
    pub kernel: String,
    /// Compare the result with the reference and print PASS/FAIL (exit 1 on FAIL).
    #[arg(long)]
    pub verify: bool,
    /// Timed iterations: CPU runs, or GPU timing rounds (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub iters: u32,
    /// Seed of the random inputs (uniform in [-1, 1), rounded to the dtype).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// GPU timing: flush L2 before every round.
    #[arg(long)]
    pub flush_l2: bool,
    /// GPU timing: launch on the stream instead of replaying a captured CUDA graph (the
    /// default replays, so that host launch cost stays out of short kernels' figures).
    #[arg(long)]
    pub no_graph: bool,
    /// `auto` runs gconv's own kernels only: no dispatch to the vendor (cuDNN) where the
    /// decision cache measured it faster than every gconv candidate.
    #[arg(long)]
    pub no_vendor: bool,
}

/// The kernel reference of `--kernel`, checked before any backend is opened so that a bad
/// name gets its reason on every machine: a GPU kernel name must pass the admission for the
/// problem (on the H200 target; a GPU with another SM count re-plans on its own).
fn requested(name: &str, problem: &Problem) -> Result<KernelRef> {
    let kref: KernelRef = name.parse()?;
    match kref {
        KernelRef::Cpu(cpu::CpuVariant::PlantedCrash) => bail!(
            "{} aborts on purpose; it exists only to test crash isolation in `gconv sweep`",
            cpu::CpuVariant::PlantedCrash.name()
        ),
        KernelRef::Named(cfg) => {
            let target = Target::H200;
            validate(&cfg, target.arch)
                .map_err(|r| anyhow::anyhow!("kernel {cfg} is rejected by validate: {r}"))?;
            admit(&cfg, problem, &target)
                .map_err(|r| anyhow::anyhow!("kernel {cfg} cannot run {problem}: {r}"))?;
        }
        _ => {}
    }
    Ok(kref)
}

/// Runs the command.
pub fn run(a: RunArgs) -> Result<ExitCode> {
    let problem: Problem = a
        .problem
        .parse()
        .with_context(|| format!("invalid --problem {:?}", a.problem))?;
    if a.iters == 0 {
        bail!("--iters must be at least 1");
    }
    // The kernel name is checked before any backend is opened, so that a bad name gets its
    // reason on every machine.
    let requested = requested(&a.kernel, &problem)?;
    let backend = select(a.backend)?;
    let ([r0, r1], _) = problem.roles();
    // Refused before anything is allocated (a failed allocation aborts the process).
    check_host_memory(&problem, a.verify, HostMemoryLimit::available())?;
    let in0 = HostTensor::try_random_for(&problem, r0, a.seed)?;
    let in1 = HostTensor::try_random_for(&problem, r1, a.seed)?;
    let mut stdout = crate::output::stdout();
    writeln!(stdout, "problem  {problem}")?;
    let (out, seconds, method) = match &backend {
        Backend::Cpu => {
            // The library facade resolves the kernel (auto, ref, a CPU variant) as the Python
            // package does.
            let runner =
                gconv_runner::Runner::new(problem, &a.kernel, gconv_runner::BackendChoice::Cpu)?;
            let mut times = Vec::new();
            let mut out = None;
            for _ in 0..a.iters {
                let t = Instant::now();
                let o = runner.run(&in0, &in1)?;
                times.push(t.elapsed().as_secs_f64());
                out = Some(o);
            }
            writeln!(stdout, "backend  cpu")?;
            writeln!(stdout, "kernel   {}", runner.kernel())?;
            let t = gconv_cuda::runtime::median(&times);
            (
                out.context("no iterations ran")?,
                t,
                format!("wall clock, median of {} runs", times.len()),
            )
        }
        Backend::Cuda(rt) => {
            // `auto` takes a measured decision of `gconv tune` first, when the cache has one.
            let decisions = match crate::cmd_tune::decisions_path() {
                Ok(path) => DecisionCache::load(&path).unwrap_or_else(|e| {
                    crate::output::note!("warning: the decision cache is not used: {e}");
                    DecisionCache::default()
                }),
                Err(_) => DecisionCache::default(),
            };
            let tuned = Some((rt.info().name.as_str(), &decisions));
            let choice = matches!(requested, KernelRef::Auto)
                .then(|| auto_choice(&problem, &gpu_target(rt), tuned))
                .flatten();
            writeln!(stdout, "backend  cuda ({})", rt.info().name)?;
            // The dispatcher answers "the vendor" where `gconv tune` measured it faster than
            // every gconv candidate.
            if let Some(engine) = choice
                .as_ref()
                .and_then(|c| c.vendor_engine())
                .filter(|_| !a.no_vendor)
            {
                let source = choice.as_ref().map(|c| c.source.to_string());
                writeln!(
                    stdout,
                    "auto     chosen by {}: the vendor",
                    source.unwrap_or_default()
                )?;
                let v = run_vendor(rt, &problem, &in0, &in1, engine, a.iters)?;
                writeln!(stdout, "kernel   {} (cuDNN {})", v.engine, v.version)?;
                if v.engine != engine {
                    writeln!(
                        stdout,
                        "note     cuDNN no longer offers the tuned engine {engine}; its fastest channels-last plan ran"
                    )?;
                }
                (v.out, v.ms / 1e3, v.method)
            } else {
                let kernel = match &choice {
                    Some(c) => GpuKernel::Admitted(Box::new(c.admitted.clone())),
                    None => GpuKernel::resolve(requested, &problem, &gpu_target(rt), tuned)
                        .map_err(|e| anyhow::anyhow!("--kernel {}: {e}", a.kernel))?,
                };
                run_kernel(
                    rt,
                    &kernel,
                    &problem,
                    &in0,
                    &in1,
                    choice.as_ref(),
                    &a,
                    &mut stdout,
                )?
            }
        }
    };
    writeln!(stdout, "time     {:.4} ms ({method})", seconds * 1e3)?;
    // The roofline of the device that ran it (the H200's for the CPU backend and devices
    // without a specification).
    let spec = match &backend {
        Backend::Cuda(rt) => DeviceSpec::of_name_or(&rt.info().name, DeviceSpec::H200),
        Backend::Cpu => DeviceSpec::H200,
    };
    writeln!(
        stdout,
        "rate     {:.3} TFLOP/s  {:.1} GB/s  ({:.2}% of the {} roofline)",
        problem.flops() / seconds / 1e12,
        problem.min_bytes() / seconds / 1e9,
        100.0 * problem.roofline_fraction(&spec, seconds),
        spec.name
    )?;
    if a.verify {
        let rt = match &backend {
            Backend::Cuda(rt) => Some(rt),
            Backend::Cpu => None,
        };
        let (reference, source) = reference_values(rt, &problem, &in0, &in1)?;
        let c = compare(&out, &reference, Tolerance::for_problem(&problem));
        writeln!(
 stdout,
            "verify   against the {source}: max_abs_err {:.3e}  max_rel_err {:.3e}  ({} of {} elements outside tolerance rtol {:.1e} atol {:.1e})",
            c.max_abs_err, c.max_rel_err, c.failures, c.count, c.tolerance.rtol, c.tolerance.atol
        )?;
        if c.passed() {
            writeln!(stdout, "PASS")?;
        } else {
            writeln!(stdout, "FAIL")?;
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs a gconv kernel (`choice`: how `auto` chose it), prints what ran and how it compiled,
/// and returns the output, its time (s) and the timing method.
#[allow(clippy::too_many_arguments)]
fn run_kernel(
    rt: &gconv_cuda::GpuRuntime,
    kernel: &GpuKernel,
    problem: &Problem,
    in0: &HostTensor,
    in1: &HostTensor,
    choice: Option<&gconv_learn::select::Choice>,
    a: &RunArgs,
    stdout: &mut impl Write,
) -> Result<(HostTensor, f64, String)> {
    let src = kernel.source(problem);
    writeln!(stdout, "kernel   {}", src.kernel_name)?;
    if let Some(c) = choice {
        writeln!(stdout, "auto     chosen by {}", c.source)?;
    }
    let opts = TimingOptions {
        rounds: a.iters,
        flush_l2: a.flush_l2,
        use_graph: !a.no_graph,
        ..TimingOptions::default()
    };
    let r = run_gpu(rt, &src, problem, in0, in1, Some(&opts), true)?;
    writeln!(
        stdout,
        "compile  {:.1} ms ({}), {} registers, {} bytes spilled",
        r.compiled.compile_ms,
        if r.cache.is_hit() {
            "cache hit"
        } else {
            "compiled"
        },
        r.compiled.max_regs(),
        r.compiled.total_spills()
    )?;
    let t = r.timing.context("timing missing")?;
    if let Some(same) = r.repeatable {
        writeln!(
            stdout,
            "repeat   {} after the timed rounds ({} x {} launches and the warm-up)",
            if same {
                "identical output bytes"
            } else {
                "DIFFERENT output bytes (not deterministic)"
            },
            t.rounds,
            t.iters_per_round
        )?;
    }
    Ok((r.out, t.median_ms / 1e3, t.method))
}

/// What ran when `auto` dispatched to the vendor.
struct VendorRun {
    out: HostTensor,
    engine: String,
    version: String,
    ms: f64,
    method: String,
}

/// Runs `problem` through cuDNN (the in-process provider of the baselines): every engine
/// configuration its heuristics offer is planned and timed as the baseline is (each checked
/// to run), then `engine` — the one `gconv tune` measured — runs once more for the output;
/// where cuDNN no longer offers it, the fastest channels-last plan does.
fn run_vendor(
    rt: &gconv_cuda::GpuRuntime,
    problem: &Problem,
    in0: &HostTensor,
    in1: &HostTensor,
    engine: &str,
    iters: u32,
) -> Result<VendorRun> {
    use gconv_cuda::cudnn::{CudnnBaseline, CudnnTiming, EngineStatus};
    let version = CudnnBaseline::version()
        .map(CudnnBaseline::version_string)
        .context("the decision cache names the vendor, but cuDNN cannot be loaded (run with --no-vendor for gconv's own kernels)")?;
    let mut cudnn = CudnnBaseline::new(rt.stream().clone()).context("cuDNN")?;
    let (_, ro) = problem.roles();
    let d0 = rt.upload(in0)?;
    let d1 = rt.upload(in1)?;
    let mut out = rt.alloc(problem.dtype, problem.elements(ro) as usize)?;
    let opts = CudnnTiming {
        rounds: iters.max(5) as usize,
        ..CudnnTiming::default()
    };
    let results = cudnn
        .time_all_slices(problem, d0.slice(), d1.slice(), out.slice_mut(), &opts)
        .context("cuDNN: timing its engine configurations")?;
    let timed = |r: &&gconv_cuda::cudnn::CudnnEngineResult| {
        r.status == EngineStatus::Ok && r.median_ms.is_some() && !r.name.contains(":nchw:")
    };
    let pick = results
        .iter()
        .filter(timed)
        .find(|r| r.name == engine)
        .or_else(|| {
            results.iter().filter(timed).min_by(|x, y| {
                x.median_ms
                    .unwrap_or(f64::INFINITY)
                    .total_cmp(&y.median_ms.unwrap_or(f64::INFINITY))
            })
        })
        .with_context(|| format!("cuDNN has no engine configuration that runs {problem}"))?;
    let (name, ms) = (pick.name.clone(), pick.median_ms.unwrap_or(f64::NAN));
    let method = pick
        .timing
        .as_ref()
        .map(|t| t.method.clone())
        .unwrap_or_else(|| "cuDNN".to_string());
    rt.zero(&mut out)?;
    cudnn
        .execute_named_slices(problem, &name, d0.slice(), d1.slice(), out.slice_mut())
        .with_context(|| format!("cuDNN: running {name}"))?;
    Ok(VendorRun {
        out: rt.download(&out)?,
        engine: name,
        version,
        ms,
        method,
    })
}
