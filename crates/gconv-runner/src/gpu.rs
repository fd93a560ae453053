//! GPU kernel resolution, shared by the CLI and the bindings: a parsed kernel reference
//! (`auto`, `ref`, a canonical name; `gconv_tune::KernelRef`) becomes generated source only
//! through the one admission step (`gconv_kernels::admit`, or `auto`, which admits its pick:
//! a measured decision of a decision cache first, then the shipped model, then the rule;
//! `gconv_learn::select`).

use gconv_kernels::catalogue::Families;
use gconv_kernels::{
    admit, reference as gpu_ref, Admitted, Arch, DeviceLimits, KernelSource, Rejection, Target,
};
use gconv_learn::decisions::DecisionCache;
use gconv_problem::Problem;
use gconv_tune::KernelRef;
use std::path::PathBuf;

/// The decision cache `auto` reads: `GCONV_DECISIONS`, else `decisions.json` next to the
/// compile cache.
pub fn decisions_path() -> Result<PathBuf, gconv_cuda::CudaError> {
    if let Some(p) = std::env::var_os("GCONV_DECISIONS").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    Ok(gconv_cuda::cache_dir()?.join("decisions.json"))
}

/// The admission target of a GPU with `sm_count` SMs: sm_90a on the H200's limits with that
/// SM count.
pub fn target_for(sm_count: u32) -> Target {
    Target {
        arch: Arch::Sm90a,
        device: DeviceLimits::H200.with_sms(sm_count),
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
