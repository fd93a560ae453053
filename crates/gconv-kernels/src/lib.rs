//! Kernel identity and code generation: `KernelConfig` (plain data), the two gates
//! `validate(cfg, arch)` and `can_implement(cfg, problem)`, canonical names that parse back, and
//! deterministic CUDA C++ emission for every family (`igemm`, `direct`, and the `ref` kernels
//! used only for verification). [`emit`] is the one entry point that routes a config to its
//! family's generator.

pub mod config;
pub mod direct;
pub mod igemm;
pub mod reference;
pub mod source;

pub use source::{Arch, KernelSource, Launch};

/// Tensor-core PTX helpers (`smem_u32`, `ldmatrix` x4/x2, `mma.sync` m16n8k16) with their
/// host-emulation alternatives, emitted into every igemm and direct-mma module.
pub(crate) const MMA_PTX: &str = include_str!("mma_ptx.cu");

use config::{Family, KernelConfig, Rejection};
use gconv_problem::Problem;

/// Generates the module for `cfg` on `problem` with the generator of the config's family
/// ([`igemm::emit`] or [`direct::emit`]); both gates are checked first, and a config that fails
/// either is returned as the [`Rejection`], never generated.
pub fn emit(cfg: &KernelConfig, problem: &Problem) -> Result<KernelSource, Rejection> {
    match cfg.family {
        Family::Igemm => igemm::emit(cfg, problem),
        Family::Direct => direct::emit(cfg, problem),
    }
}
