//! Kernel execution for the CLI: runs a resolved kernel (`gconv_runner::gpu`, re-exported
//! here: what a kernel reference resolves to goes through the one admission step there) and
//! verifies results against the CPU reference (small problems) or the GPU reference kernel
//! (itself checked against the CPU reference by `gconv selftest --gpu`).

use anyhow::{Context, Result};
use gconv_cuda::{
    compile_cached, CacheHit, CompileOptions, CompiledKernel, GpuRuntime, Timing, TimingOptions,
};
use gconv_kernels::{reference as gpu_ref, KernelSource, Target};
use gconv_problem::{HostTensor, Problem};
pub use gconv_runner::gpu::{auto_choice, GpuKernel, Unrunnable};

/// Problems up to this many FLOPs are verified against the CPU reference; larger ones against
/// the GPU reference kernel.
pub const CPU_REFERENCE_MAX_FLOPS: f64 = 4e9;

/// The admission target of an opened GPU: sm_90a on the device's SM count.
pub fn gpu_target(rt: &GpuRuntime) -> Target {
    gconv_runner::gpu::target_for(rt.info().sm_count)
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
