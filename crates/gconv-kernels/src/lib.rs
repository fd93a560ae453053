//! Kernel identity and code generation: `KernelConfig` (plain data), the two gates
//! `validate(cfg, arch)` and `can_implement(cfg, problem)`, canonical names that parse back, and
//! deterministic CUDA C++ emission for every family (`igemm`, `direct`, and the `ref` kernels
//! used only for verification).

pub mod config;
pub mod igemm;
pub mod reference;
pub mod source;

pub use source::{Arch, KernelSource, Launch};
