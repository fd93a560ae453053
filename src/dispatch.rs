//! Kernel resolution and execution for the CLI: a kernel argument (`auto`, `ref`, or a canonical
//! name) becomes generated source only through the two gates (`validate`, `can_implement`);
//! results are verified against the CPU reference (small problems) or the GPU reference kernel
//! (itself checked against the CPU reference by `gconv selftest --gpu`).

use anyhow::{anyhow, Context, Result};
use gconv_cuda::{
    compile_cached, CacheHit, CompileOptions, CompiledKernel, GpuRuntime, Timing, TimingOptions,
};
use gconv_kernels::config::{auto_select, can_implement, required_arch, validate, KernelConfig};
use gconv_kernels::{emit, reference as gpu_ref, KernelSource};
use gconv_problem::{HostTensor, Problem};

/// Problems up to this many FLOPs are verified against the CPU reference; larger ones against
/// the GPU reference kernel.
pub const CPU_REFERENCE_MAX_FLOPS: f64 = 4e9;

/// What `--kernel` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelChoice {
    /// The documented rule-based selection (`gconv_kernels::config::auto_select`).
    Auto,
    /// The naive GPU reference kernel.
    Reference,
    /// A configuration given by its canonical name.
    Named(KernelConfig),
}

impl KernelChoice {
    /// Parses `auto`, `ref` or a canonical kernel name; a bad name is an error quoting it, and
    /// a config that is not a kernel at all is rejected with the gate's reason.
    pub fn parse(s: &str) -> Result<KernelChoice> {
        match s {
            "auto" => Ok(KernelChoice::Auto),
            "ref" => Ok(KernelChoice::Reference),
            _ => {
                let cfg: KernelConfig = s
                    .parse()
                    .map_err(|e| anyhow!("invalid kernel name {s:?}: {e}"))?;
                validate(&cfg, required_arch(&cfg))
                    .map_err(|r| anyhow!("kernel {s:?} is rejected by validate: {r}"))?;
                Ok(KernelChoice::Named(cfg))
            }
        }
    }
}

/// Generates the source for a choice and a problem, through `can_implement`.
pub fn source_for(choice: KernelChoice, problem: &Problem) -> Result<KernelSource> {
    match choice {
        KernelChoice::Reference => Ok(gpu_ref::reference_source(problem)),
        KernelChoice::Auto => {
            let cfg = auto_select(problem).ok_or_else(|| {
                anyhow!(
                    "no kernel of the default {} pool can run {problem} (use --kernel ref for the reference kernel)",
                    problem.direction
                )
            })?;
            emit(&cfg, problem).map_err(|r| anyhow!("kernel {cfg}: {r}"))
        }
        KernelChoice::Named(cfg) => {
            can_implement(&cfg, problem)
                .map_err(|r| anyhow!("kernel {cfg} cannot run {problem}: {r}"))?;
            emit(&cfg, problem).map_err(|r| anyhow!("kernel {cfg}: {r}"))
        }
    }
}

/// The result of one GPU execution.
pub struct GpuRun {
    /// Output tensor of the first (untimed) launch.
    pub out: HostTensor,
    /// Timing, when asked for.
    pub timing: Option<Timing>,
    /// Compilation result (registers, spills, compile time).
    pub compiled: CompiledKernel,
    /// Whether the compile cache had it.
    pub cache: CacheHit,
}

/// Compiles (cached), runs once for the output, then optionally times the kernel.
pub fn run_gpu(
    rt: &GpuRuntime,
    src: &KernelSource,
    problem: &Problem,
    in0: &HostTensor,
    in1: &HostTensor,
    timing: Option<&TimingOptions>,
) -> Result<GpuRun> {
    let (compiled, cache) = compile_cached(src, &CompileOptions::default())?;
    let k = rt.load(&compiled, src)?;
    let b = rt.buffers(problem, &k, in0, in1)?;
    rt.launch(&k, &b)?;
    let out = rt.download(&b.out)?;
    let timing = match timing {
        Some(t) => Some(rt.time(&k, &b, t)?),
        None => None,
    };
    Ok(GpuRun {
        out,
        timing,
        compiled,
        cache,
    })
}

/// Reference values for verification and where they came from.
pub fn reference_values(
    rt: Option<&GpuRuntime>,
    problem: &Problem,
    in0: &HostTensor,
    in1: &HostTensor,
) -> Result<(Vec<f64>, &'static str)> {
    match rt {
        Some(rt) if problem.flops() > CPU_REFERENCE_MAX_FLOPS => {
            let src = gpu_ref::reference_source(problem);
            let out = rt
                .run(problem, &src, in0, in1)
                .context("GPU reference kernel")?;
            Ok((out.to_f64(), "GPU reference kernel"))
        }
        _ => {
            let v = gconv_reference::reference::reference_tensors(problem, in0, in1)?;
            Ok((v, "CPU reference (f64)"))
        }
    }
}
