//! The CUDA side of the facade: a [`DeviceRunner`] resolves a kernel for a problem once
//! (`auto`: the user's decision cache, the shipped decisions, the model, the rule — the same
//! resolution as `gconv run`, [`crate::gpu`]), compiles it through the persistent compile
//! cache, loads it on the device, and then launches it on caller-owned device memory on the
//! caller's stream: no copies, no allocation, no synchronisation. The workspace, when the
//! kernel needs one ([`DeviceRunner::workspace_bytes`]), is the caller's too (PyTorch's
//! allocator in `gconv.torch`). The vendor (cuDNN) is not dispatched here: a device runner
//! runs gconv's own kernels.

use crate::gpu::{decisions_path, target_for, GpuKernel};
use crate::RunnerError;
use gconv_cuda::{compile_cached, CompileOptions, GpuRuntime, LoadedKernel};
use gconv_learn::decisions::DecisionCache;
use gconv_problem::Problem;
use gconv_tune::KernelRef;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// One runtime (context and module cache) per device ordinal for the process.
fn runtime(device: usize) -> Result<Arc<GpuRuntime>, RunnerError> {
    static RUNTIMES: OnceLock<Mutex<HashMap<usize, Arc<GpuRuntime>>>> = OnceLock::new();
    let mut m = RUNTIMES
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(rt) = m.get(&device) {
        return Ok(rt.clone());
    }
    let rt = Arc::new(GpuRuntime::new(device).map_err(|e| RunnerError::Backend {
        name: format!("cuda:{device}"),
        why: e.to_string(),
    })?);
    m.insert(device, rt.clone());
    Ok(rt)
}

/// Folders to look in for the CUDA libraries (NVRTC, cuDNN, the driver) before
/// `CUDA_HOME` and `/usr/local/cuda`: the Python package adds the `nvidia/*/lib` folders of
/// its `sys.path` (the wheels PyTorch installs), so that no `LD_LIBRARY_PATH` is needed.
pub fn add_library_dirs<I: IntoIterator<Item = std::path::PathBuf>>(dirs: I) {
    gconv_cuda::libs::add_search_dirs(dirs);
}

/// Resolves, compiles and loads every problem's kernel on `device` in parallel (NVRTC is the
/// slow part: ahead-of-time compilation of everything a model needs), in the problems' order;
/// each entry is that problem's runner or why it has none.
pub fn precompile(
    problems: &[Problem],
    kernel: &str,
    device: usize,
) -> Vec<Result<DeviceRunner, RunnerError>> {
    use rayon::prelude::*;
    problems
        .par_iter()
        .map(|p| DeviceRunner::new(*p, kernel, device))
        .collect()
}

/// A problem's kernel, compiled and loaded on one device.
pub struct DeviceRunner {
    problem: Problem,
    rt: Arc<GpuRuntime>,
    kernel: LoadedKernel,
    chosen_by: String,
}

impl std::fmt::Debug for DeviceRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceRunner")
            .field("problem", &self.problem.to_string())
            .field("kernel", &self.kernel.name)
            .finish_non_exhaustive()
    }
}

impl DeviceRunner {
    /// Resolves `kernel` (`auto`, `ref`, a canonical name) for `problem` on CUDA device
    /// `device`, compiles it (cached) and loads it.
    pub fn new(problem: Problem, kernel: &str, device: usize) -> Result<DeviceRunner, RunnerError> {
        let kref = crate::parse_kernel(kernel)?;
        if let KernelRef::Cpu(v) = kref {
            return Err(RunnerError::Kernel {
                name: kernel.into(),
                why: format!("{} is a CPU variant; CUDA tensors run GPU kernels (auto, ref or a kernel name)", v.name()),
            });
        }
        let rt = runtime(device)?;
        let target = target_for(rt.info().sm_count);
        let decisions = decisions_path()
            .ok()
            .and_then(|p| DecisionCache::load(&p).ok())
            .unwrap_or_default();
        let tuned = Some((rt.info().name.as_str(), &decisions));
        let chosen_by = match kref {
            KernelRef::Auto => crate::gpu::auto_choice(&problem, &target, tuned)
                .map(|c| c.source.to_string())
                .unwrap_or_default(),
            _ => "the caller".to_string(),
        };
        let resolved = GpuKernel::resolve(kref, &problem, &target, tuned).map_err(|e| {
            RunnerError::Kernel {
                name: kernel.into(),
                why: e.to_string(),
            }
        })?;
        let src = resolved.source(&problem);
        let (compiled, _) = compile_cached(&src, &CompileOptions::default())
            .map_err(|e| RunnerError::Run(format!("compiling {}: {e}", src.kernel_name)))?;
        let loaded = rt
            .load(&compiled, &src)
            .map_err(|e| RunnerError::Run(e.to_string()))?;
        Ok(DeviceRunner {
            problem,
            rt,
            kernel: loaded,
            chosen_by,
        })
    }

    /// The problem.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// The kernel that runs (its canonical name, or the reference kernel's).
    pub fn kernel(&self) -> &str {
        &self.kernel.name
    }

    /// Who chose it (`auto`'s source: the decision cache, the model or the rule).
    pub fn chosen_by(&self) -> &str {
        &self.chosen_by
    }

    /// Workspace bytes a launch needs (0: none).
    pub fn workspace_bytes(&self) -> u64 {
        self.kernel.workspace_bytes
    }

    /// Enqueues the kernel on `stream` with the two inputs, the output and the workspace (0
    /// when [`DeviceRunner::workspace_bytes`] is 0), in the gconv layouts, without waiting.
    ///
    /// Every address must be a multiple of [`ADDRESS_ALIGN`] bytes (the kernels move 16-byte
    /// vectors): a null or misaligned one, or no workspace where the kernel needs one, is an
    /// error, not a launch.
    ///
    /// # Safety
    /// The addresses must be device allocations on this runner's device, sized for the
    /// problem in its layouts, live until the work completes; `stream` a live stream of the
    /// device's primary context (or 0).
    pub unsafe fn launch(
        &self,
        in0: u64,
        in1: u64,
        out: u64,
        workspace: u64,
        stream: u64,
    ) -> Result<(), RunnerError> {
        check_addresses(&self.problem, [in0, in1, out, workspace])?;
        if workspace == 0 && self.workspace_bytes() > 0 {
            return Err(RunnerError::Run(format!(
                "{}: kernel {} needs a workspace of {} bytes and none was given",
                self.problem,
                self.kernel(),
                self.workspace_bytes()
            )));
        }
        // SAFETY: the caller's guarantees are `launch_on`'s.
        unsafe {
            self.rt.launch_on(
                &self.kernel,
                [in0, in1, out, workspace],
                stream as usize as gconv_cuda::runtime::RawStream,
            )
        }
        .map_err(|e| RunnerError::Run(e.to_string()))
    }
}

/// The alignment, in bytes, of every address a launch takes: the generated kernels read and
/// write 16-byte vectors (`cp.async` of 16 bytes, `ldmatrix` rows, vector stores) from the
/// tensors' base addresses. A tensor view that starts at an element offset may not be.
pub const ADDRESS_ALIGN: u64 = 16;

/// The launch contract on addresses: the inputs and the output not null, and every address
/// (the workspace's when given) a multiple of [`ADDRESS_ALIGN`]; the error names which.
fn check_addresses(problem: &Problem, addrs: [u64; 4]) -> Result<(), RunnerError> {
    const WHAT: [&str; 4] = [
        "the first input",
        "the second input",
        "the output",
        "the workspace",
    ];
    for (i, (&a, what)) in addrs.iter().zip(WHAT).enumerate() {
        if a == 0 && i < 3 {
            return Err(RunnerError::Run(format!(
                "{problem}: {what} has a null device address"
            )));
        }
        if a % ADDRESS_ALIGN != 0 {
            return Err(RunnerError::Run(format!(
                "{problem}: {what} at device address {a:#x} is not {ADDRESS_ALIGN}-byte aligned \
                 (the kernels move 16-byte vectors; a tensor view that starts at an element \
                 offset needs a copy)"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_addresses_must_be_set_and_aligned() {
        let p: Problem = "fwd_bf16_n1_g4_c16_k16_i8x8_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        assert!(check_addresses(&p, [0x1000, 0x2000, 0x3000, 0]).is_ok());
        assert!(check_addresses(&p, [0x1000, 0x2000, 0x3000, 0x4010]).is_ok());
        let null = check_addresses(&p, [0x1000, 0, 0x3000, 0])
            .unwrap_err()
            .to_string();
        assert!(
            null.contains("the second input has a null device address"),
            "{null}"
        );
        let odd = check_addresses(&p, [0x1000, 0x2000, 0x3002, 0])
            .unwrap_err()
            .to_string();
        assert!(
            odd.contains("the output at device address 0x3002 is not 16-byte aligned"),
            "{odd}"
        );
        let ws = check_addresses(&p, [0x1000, 0x2000, 0x3000, 0x4008])
            .unwrap_err()
            .to_string();
        assert!(ws.contains("the workspace"), "{ws}");
    }
}
