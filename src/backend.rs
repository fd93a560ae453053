//! Backend selection for the CLI: the CPU backend (always available) and the CUDA backend
//! (when a driver, a device and NVRTC ≥ 13 are usable). `auto` prefers CUDA and says on stderr
//! why it fell back to the CPU.

use anyhow::{bail, Result};
use clap::ValueEnum;
use gconv_cuda::GpuRuntime;

/// Which backend a command asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendChoice {
    /// CUDA when usable, else the CPU backend (the reason is printed).
    Auto,
    /// The multi-threaded CPU backend.
    Cpu,
    /// The CUDA backend; an error when no usable GPU is present.
    Cuda,
}

/// An opened backend.
pub enum Backend {
    /// CPU backend.
    Cpu,
    /// CUDA backend on device 0.
    Cuda(GpuRuntime),
}

/// Opens the backend asked for.
pub fn select(choice: BackendChoice) -> Result<Backend> {
    match choice {
        BackendChoice::Cpu => Ok(Backend::Cpu),
        BackendChoice::Cuda => match GpuRuntime::new(0) {
            Ok(rt) => Ok(Backend::Cuda(rt)),
            Err(e) => bail!("--backend cuda: the CUDA backend is not usable: {e}"),
        },
        BackendChoice::Auto => {
            match GpuRuntime::new(0) {
                Ok(rt) => {
                    crate::output::note!(
                        "note: --backend auto: using CUDA on {} (sm_{}{})",
                        rt.info().name,
                        rt.info().compute_capability.0,
                        rt.info().compute_capability.1
                    );
                    Ok(Backend::Cuda(rt))
                }
                Err(e) => {
                    crate::output::note!("note: --backend auto: using the CPU backend because CUDA is not usable: {e}");
                    Ok(Backend::Cpu)
                }
            }
        }
    }
}
