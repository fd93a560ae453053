//! Backend selection for the CLI: the CPU backend (always available) and the CUDA backend
//! (when a driver, a device and NVRTC ≥ 13 are usable). `auto` prefers CUDA and says why it
//! fell back.

use clap::ValueEnum;

/// Which backend a command uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendChoice {
    /// CUDA when usable, else the CPU backend (the reason is printed).
    Auto,
    /// The multi-threaded CPU backend.
    Cpu,
    /// The CUDA backend; an error when no usable GPU is present.
    Cuda,
}
