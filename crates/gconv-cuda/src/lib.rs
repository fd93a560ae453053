//! The CUDA backend on cudarc (dynamic loading): start-up checks, NVRTC compilation to CUBIN
//! with a persistent cache, device buffers, launches, CUDA-event timing, and the cuDNN
//! graph-API baseline provider.

pub mod cudnn;
