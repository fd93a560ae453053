//! Kernel resolution and execution for the CLI: a parsed kernel reference (`auto`, `ref`, or a
//! canonical name; `gconv_tune::KernelRef`) becomes generated source only through the one
//! admission step (`gconv_kernels::admit`, or `auto`, which admits its pick);
//! results are verified against the CPU reference (small problems) or the GPU reference kernel
//! (itself checked against the CPU reference by `gconv selftest --gpu`).

use anyhow::{Context, Result};
use gconv_cuda::{
    compile_cached, CacheHit, CompileOptions, CompiledKernel, GpuRuntime, Timing, TimingOptions,
};
use gconv_kernels::catalogue::Families;
use gconv_kernels::{
    admit, reference as gpu_ref, Admitted, Arch, DeviceLimits, KernelSource, Rejection, Target,
};
use gconv_learn::decisions::DecisionCache;
use gconv_problem::{HostTensor, Problem};
use gconv_tune::KernelRef;

/// Problems up to this many FLOPs are verified against the CPU reference; larger ones against
/// the GPU reference kernel.
pub const CPU_REFERENCE_MAX_FLOPS: f64 = 4e9;

/// The admission target of an opened GPU: sm_90a on the device's SM count.
pub fn gpu_target(rt: &GpuRuntime) -> Target {
    Target {
        arch: Arch::Sm90a,
        device: DeviceLimits::H200.with_sms(rt.info().sm_count),
    }
}

/// Why a kernel reference gives no GPU module for a problem.
#[derive(Debug)]
pub enum Unrunnable {
    /// The named kernel is refused by the admission (the rejection keeps its key and whether
    /// it means `unsupported`).
    Rejected {
        /// The kernel name.
        kernel: String,
        /// Why.
        rejection: Rejection,
    },
    /// `auto` found no pool member that runs the problem.
    NoPoolMember(Box<Problem>),
    /// A CPU variant was given where a GPU kernel is needed.
    CpuVariant(&'static str),
}

impl std::fmt::Display for Unrunnable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unrunnable::Rejected { kernel, rejection } => {
                write!(f, "kernel {kernel} cannot run this problem: {rejection}")
            }
            Unrunnable::NoPoolMember(p) => write!(
                f,
                "no kernel of the default {} pool can run {p} (use --kernel ref for the reference kernel)",
                p.direction
            ),
            Unrunnable::CpuVariant(v) => write!(
                f,
                "{v} is a CPU variant; use --backend cpu to run it"
            ),
        }
    }
}

impl std::error::Error for Unrunnable {}

/// What a kernel reference resolves to on the GPU for one problem: the reference kernel, or an
/// admitted generated kernel (the gates ran once, here).
#[derive(Debug, Clone)]
pub enum GpuKernel {
    /// The naive reference kernel.
    Reference,
    /// An admitted generated kernel.
    Admitted(Box<Admitted>),
}

impl GpuKernel {
    /// Resolves `kref` for `problem` on `target`: `auto` picks through `gconv_learn::select`
    /// (the shipped model, the rule as the fallback),
    /// a name goes through the one admission step.
    ///
    /// With `tuned` (the device's name and a decision cache), `auto` takes a valid measured
    /// decision first (`gconv_learn::select::choose_tuned`).
    pub fn resolve(
        kref: KernelRef,
        problem: &Problem,
        target: &Target,
        tuned: Option<(&str, &DecisionCache)>,
    ) -> Result<GpuKernel, Unrunnable> {
        match kref {
            KernelRef::Reference => Ok(GpuKernel::Reference),
            KernelRef::Auto => auto_choice(problem, target, tuned)
                .map(|c| GpuKernel::Admitted(Box::new(c.admitted)))
                .ok_or_else(|| Unrunnable::NoPoolMember(Box::new(*problem))),
            KernelRef::Named(cfg) => admit(&cfg, problem, target)
                .map(|a| GpuKernel::Admitted(Box::new(a)))
                .map_err(|rejection| Unrunnable::Rejected {
                    kernel: cfg.to_string(),
                    rejection,
                }),
            KernelRef::Cpu(v) => Err(Unrunnable::CpuVariant(v.name())),
        }
    }

    /// The generated module.
    pub fn source(&self, problem: &Problem) -> KernelSource {
        match self {
            GpuKernel::Reference => gpu_ref::reference_source(problem),
            GpuKernel::Admitted(a) => a.emit(),
        }
    }
}

/// `auto` on the GPU: a measured decision of `tuned` first, then the model, then the rule.
pub fn auto_choice(
    problem: &Problem,
    target: &Target,
    tuned: Option<(&str, &DecisionCache)>,
) -> Option<gconv_learn::select::Choice> {
    match tuned {
        Some((device, cache)) => {
            gconv_learn::select::choose_tuned(problem, target, Families::All, device, cache)
        }
        None => gconv_learn::select::choose(problem, target, Families::All),
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
    /// With a repeat check: whether the output after every further launch (the timed rounds,
    /// or one more launch without timing) has the same bytes as the first.
    pub repeatable: Option<bool>,
}

/// Compiles (cached), runs once for the output, then optionally times the kernel; with
/// `repeat_check`, downloads the output again after the further launches and says whether its
/// bytes are those of the first (the determinism check: the same inputs, the workspace left as
/// the previous launch wrote it).
pub fn run_gpu(
    rt: &GpuRuntime,
    src: &KernelSource,
    problem: &Problem,
    in0: &HostTensor,
    in1: &HostTensor,
    timing: Option<&TimingOptions>,
    repeat_check: bool,
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
    let repeatable = if repeat_check {
        if timing.is_none() {
            rt.launch(&k, &b)?;
        }
        Some(rt.download(&b.out)?.to_bytes() == out.to_bytes())
    } else {
        None
    };
    Ok(GpuRun {
        out,
        timing,
        compiled,
        cache,
        repeatable,
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
