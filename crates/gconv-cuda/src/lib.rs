//! The CUDA backend on cudarc (dynamic loading): start-up checks, NVRTC compilation to CUBIN
//! with a persistent cache, device buffers, launches, CUDA-event timing ([`timing`], shared by
//! gconv's kernels and the cuDNN graph-API baseline provider), and verification on the device
//! ([`compare`]).
//!
//! The libraries are found without `LD_LIBRARY_PATH` where a user's machine has them
//! ([`libs`]: `CUDA_HOME`, `/usr/local/cuda`, the `nvidia-*` wheels).
//!
//! Nothing here panics when a library or the GPU is missing: [`nvrtc::nvrtc_version`] and
//! [`runtime::probe`] turn every missing piece into a [`CudaError`]. NVRTC works without a GPU,
//! so [`nvrtc::compile_cubin`] and the [`cache`] run on development machines.

pub mod cache;
pub mod compare;
pub mod cudnn;
pub mod error;
pub mod libs;
pub mod nvrtc;
pub mod runtime;
pub mod timing;

pub use cache::{cache_dir, cache_stats, clear_cache, compile_cached, compile_cached_in, CacheHit};
pub use error::CudaError;
pub use nvrtc::{compile_cubin, nvrtc_version, CompileOptions, CompiledKernel, Resources};
pub use runtime::{
    probe, probe_device, Buffers, DeviceInfo, DeviceTensor, GpuRuntime, LoadedKernel, Timing,
    TimingOptions, Workspace,
};
