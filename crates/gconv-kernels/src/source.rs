//! The contract between code generation and the CUDA runtime: a generated module (CUDA C++
//! source) plus the launches that execute one convolution with it.
//!
//! Every entry point of a generated module has the same signature:
//!
//! ```text
//! extern "C" __global__ void ENTRY(const void* in0, const void* in1, void* out, void* workspace)
//! ```
//!
//! `in0`, `in1` are the runner inputs of the direction in order (fwd: X, W; dgrad: dY, W;
//! wgrad: X, dY), `out` the output (fwd: Y; dgrad: dX; wgrad: dW), all in the ARCHITECTURE.md
//! layouts and the problem's dtype; `workspace` is a device buffer of `workspace_bytes` bytes
//! (null when 0). A launch with [`Launch::tensor_maps`] takes them after the four pointers, in
//! order, each a `const __grid_constant__ gconv_tmap` (the prelude's 128-byte, 128-byte
//! aligned `CUtensorMap`): the backend encodes each over its buffer's address at launch.
//! Shapes are compile-time constants of the module (the JIT specialises on the
//! problem). The launches run in order on one stream; the output needs no prior initialisation
//! (a kernel that accumulates must zero it itself, in one of its launches).
//!
//! Generated code is **header-free**: NVRTC runs without include paths, and the NVRTC 13.0 wheel
//! used on development machines and in CI ships no CUDA headers (`#include <cuda_bf16.h>` or
//! `<cuda_fp16.h>` fails with "could not open source file"). Store f16/bf16 as
//! `unsigned short` (or pairs in `unsigned int`) and convert with bit operations or inline PTX
//! (e.g. `cvt.rn.bf16.f32`, `cvt.rn.f16.f32`, `cvt.f32.f16`; bf16 → f32 is `bits << 16`).
//! gconv-cuda compiles with `--gpu-architecture=<arch> -std=c++17 -default-device
//! --ptxas-options=-v` (`-default-device`: unannotated functions are device functions).

use std::fmt;

/// Target architecture for NVRTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// sm_90 (Hopper, mma.sync path).
    Sm90,
    /// sm_90a (Hopper with wgmma / arch-specific features).
    Sm90a,
}

impl Arch {
    /// The NVRTC `--gpu-architecture` value.
    pub fn nvrtc_arch(self) -> &'static str {
        match self {
            Arch::Sm90 => "sm_90",
            Arch::Sm90a => "sm_90a",
        }
    }

    /// Parses `sm_90` / `sm_90a`.
    pub fn parse(s: &str) -> Option<Arch> {
        match s {
            "sm_90" => Some(Arch::Sm90),
            "sm_90a" => Some(Arch::Sm90a),
            _ => None,
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.nvrtc_arch())
    }
}

/// One kernel launch of a generated module.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Launch {
    /// `extern "C"` entry point name.
    pub entry: String,
    /// Grid dimensions.
    pub grid: [u32; 3],
    /// Block dimensions.
    pub block: [u32; 3],
    /// Dynamic shared memory bytes.
    pub dynamic_smem_bytes: u32,
    /// Launched as a programmatic dependent of the module's previous launch (sm_90's
    /// programmatic stream serialization): its CTAs may be scheduled before the previous
    /// launch has finished, so its entry must call the prelude's `wait_prior_grid()` before it
    /// reads what that launch wrote. The split reductions (`_reduce`, `_convert`) are; a
    /// module's first launch never is.
    pub overlaps_previous: bool,
    /// CTAs per thread-block cluster along x, as the entry declares with `__cluster_dims__`
    /// (the cluster split `sk{n}c`); 1: no cluster. `grid[0]` is a multiple of it. The CUDA
    /// backend asks the driver to spread a cluster's CTAs over separate SMs
    /// (`CU_CLUSTER_SCHEDULING_POLICY_SPREAD`); host emulation runs a cluster's CTAs together.
    pub cluster: u32,
    /// Tensor maps (Hopper's Tensor Memory Accelerator, `cp.async.bulk.tensor`) the entry
    /// takes after its four pointers, in order; empty for every entry without TMA loads.
    pub tensor_maps: Vec<TensorMap>,
}

/// One TMA tensor map of a launch: a tiled (or [`Im2col`]) view of one of the launch's buffers,
/// which the CUDA backend encodes (`cuTensorMapEncodeTiled`, `cuTensorMapEncodeIm2col`) with
/// the buffer's device address at each launch and host emulation builds over its host buffer. Dimensions run innermost first; the
/// innermost is contiguous. Boxes outside the dimensions are filled with zeros.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TensorMap {
    /// The buffer: 0 = in0, 1 = in1, 2 = out, 3 = workspace.
    pub buffer: u8,
    /// Element type.
    pub elem: TmaElem,
    /// Extent of each dimension, innermost first (rank 1..=5).
    pub dims: Vec<u64>,
    /// Byte stride of dimensions 1.. (one fewer than `dims`; multiples of 16).
    pub strides: Vec<u64>,
    /// Box extent of each dimension (1..=256; the innermost box `elem` × box bytes a multiple
    /// of 16, and at most 128 with the 128-byte swizzle).
    pub boxdim: Vec<u32>,
    /// The 128-byte swizzle in shared memory (16-byte chunks of each 128-byte row XORed with
    /// the row's index mod 8: the layout of the wgmma operand tiles); otherwise dense.
    pub swizzle_128b: bool,
    /// Im2col mode (`cuTensorMapEncodeIm2col`): a convolution's activation read as GEMM rows
    /// (`boxdim` unused); `None`: tiled boxes.
    pub im2col: Option<Im2col>,
}

/// The im2col view of an activation tensor `[C, W, (H, (D,)) N]` (innermost first): a copy
/// at coordinates (c, w, h, …, n) with filter offsets (ow, oh, …) reads `pixels_per_column`
/// pixels, each `channels_per_pixel` channels from c. The pixels walk the positions of the
/// filter's corner from (w, h, …, n): w steps by its element stride while it stays within
/// `[lower[0], W − 1 + upper[0]]`, then goes back to `lower[0]` with h one step further
/// (within `[lower[1], H − 1 + upper[1]]`), and so on up to the next image; each pixel is read
/// at its corner position plus the offsets, zeros outside the tensor. With
/// `lower = −pad` and `upper = pad − (F − 1)·dil` (and the strides as element strides) the
/// walk is the output pixels in order, so one copy is `pixels_per_column` consecutive GEMM
/// rows of one filter tap.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Im2col {
    /// Per spatial dimension (innermost first): the corner's first position.
    pub lower: Vec<i32>,
    /// Per spatial dimension: the corner's last position relative to the dimension's end.
    pub upper: Vec<i32>,
    /// Traversal step of every dimension (channels and images 1; the spatial strides).
    pub element_strides: Vec<u32>,
    /// Channels of a pixel per copy.
    pub channels_per_pixel: u32,
    /// Pixels per copy (the GEMM rows).
    pub pixels_per_column: u32,
}

/// Element type of a [`TensorMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TmaElem {
    /// bf16.
    Bf16,
    /// f16.
    F16,
    /// f32.
    F32,
}

impl TmaElem {
    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            TmaElem::Bf16 | TmaElem::F16 => 2,
            TmaElem::F32 => 4,
        }
    }
}

impl TensorMap {
    /// What makes this map one the hardware cannot encode, if anything (the limits of
    /// `cuTensorMapEncodeTiled`): rank 1..=5, one stride per outer dimension, each a multiple of
    /// 16 below 2^40, dimensions 1..=2^32, boxes 1..=256 and within their dimension's extent
    /// being irrelevant (boxes may pass the edge), the innermost box a multiple of 16 bytes and,
    /// with the 128-byte swizzle, at most 128 bytes.
    pub fn problem(&self) -> Option<String> {
        let rank = self.dims.len();
        if let Some(i) = &self.im2col {
            return self.im2col_problem(i);
        }
        if !(1..=5).contains(&rank) || self.boxdim.len() != rank || self.strides.len() + 1 != rank {
            return Some(format!(
                "rank {rank} with {} box extents and {} strides",
                self.boxdim.len(),
                self.strides.len()
            ));
        }
        if let Some(d) = self.dims.iter().find(|&&d| d == 0 || d > 1 << 32) {
            return Some(format!("dimension {d} outside 1..=2^32"));
        }
        if let Some(s) = self
            .strides
            .iter()
            .find(|&&s| !s.is_multiple_of(16) || s >= 1 << 40)
        {
            return Some(format!(
                "stride {s} bytes is not a multiple of 16 below 2^40"
            ));
        }
        if let Some(b) = self.boxdim.iter().find(|&&b| b == 0 || b > 256) {
            return Some(format!("box extent {b} outside 1..=256"));
        }
        let inner = u64::from(self.boxdim[0]) * self.elem.bytes();
        if !inner.is_multiple_of(16) || (self.swizzle_128b && inner > 128) {
            return Some(format!(
                "innermost box of {inner} bytes (a multiple of 16{})",
                if self.swizzle_128b {
                    ", at most 128 with the 128-byte swizzle"
                } else {
                    ""
                }
            ));
        }
        None
    }

    /// Bytes one box copies into shared memory (what its barrier's transaction count expects).
    pub fn box_bytes(&self) -> u64 {
        match &self.im2col {
            Some(i) => {
                u64::from(i.channels_per_pixel) * u64::from(i.pixels_per_column) * self.elem.bytes()
            }
            None => self.boxdim.iter().map(|&b| u64::from(b)).product::<u64>() * self.elem.bytes(),
        }
    }

    /// [`TensorMap::problem`] of an im2col map: rank 3..=5 (channels, 1–3 spatial dimensions,
    /// images), one corner pair per spatial dimension within the range the rank leaves them
    /// (±2^15, ±2^7, ±2^4), element strides 1..=8, 1..=256 channels of a multiple of 16
    /// bytes (at most 128 with the swizzle) and 1..=1024 pixels per copy.
    fn im2col_problem(&self, i: &Im2col) -> Option<String> {
        let rank = self.dims.len();
        let spatial = rank.saturating_sub(2);
        if !(3..=5).contains(&rank)
            || self.strides.len() + 1 != rank
            || i.lower.len() != spatial
            || i.upper.len() != spatial
            || i.element_strides.len() != rank
        {
            return Some(format!("im2col rank {rank} with {} corners", i.lower.len()));
        }
        let reach: i32 = match rank {
            3 => 1 << 15,
            4 => 1 << 7,
            _ => 1 << 4,
        };
        if let Some(c) = i
            .lower
            .iter()
            .chain(&i.upper)
            .find(|&&c| c < -reach || c >= reach)
        {
            return Some(format!("im2col corner {c} outside ±{reach} at rank {rank}"));
        }
        if let Some(d) = self.dims.iter().find(|&&d| d == 0 || d > 1 << 32) {
            return Some(format!("dimension {d} outside 1..=2^32"));
        }
        if let Some(s) = self
            .strides
            .iter()
            .find(|&&s| !s.is_multiple_of(16) || s >= 1 << 40)
        {
            return Some(format!(
                "stride {s} bytes is not a multiple of 16 below 2^40"
            ));
        }
        if let Some(e) = i.element_strides.iter().find(|&&e| !(1..=8).contains(&e)) {
            return Some(format!("element stride {e} outside 1..=8"));
        }
        let inner = u64::from(i.channels_per_pixel) * self.elem.bytes();
        if !(1..=256).contains(&i.channels_per_pixel)
            || !inner.is_multiple_of(16)
            || (self.swizzle_128b && inner > 128)
            || !(1..=1024).contains(&i.pixels_per_column)
        {
            return Some(format!(
                "im2col copies of {} channels ({inner} bytes) x {} pixels",
                i.channels_per_pixel, i.pixels_per_column
            ));
        }
        None
    }
}

/// A generated module for one (kernel, problem) pair.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelSource {
    /// Canonical kernel name (the config's name; `ref_*` for reference kernels).
    pub kernel_name: String,
    /// CUDA C++ source; byte-identical for the same config and problem.
    pub code: String,
    /// Target architecture.
    pub arch: Arch,
    /// Launches, in order.
    pub launches: Vec<Launch>,
    /// Workspace bytes needed (0 when none).
    pub workspace_bytes: u64,
}

impl KernelSource {
    /// What is wrong with the module's launch order, if anything: a first launch marked
    /// [`Launch::overlaps_previous`] (there is nothing to overlap), or an overlapping launch
    /// whose entry's body (from its `entry(` to the next `extern "C"`) has no statement
    /// `wait_prior_grid();` (a commented-out call does not count), so that it could read the
    /// previous launch's output before that launch has written it. Empty when the order is
    /// sound.
    pub fn launch_order_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, l) in self.launches.iter().enumerate() {
            if !l.overlaps_previous {
                continue;
            }
            if i == 0 {
                out.push(format!("{}: the first launch overlaps nothing", l.entry));
                continue;
            }
            let head = format!(" {}(", l.entry);
            let body = self.code.find(&head).map(|at| {
                let rest = &self.code[at + head.len()..];
                &rest[..rest.find("extern \"C\"").unwrap_or(rest.len())]
            });
            match body {
                None => out.push(format!("{}: no entry of that name in the code", l.entry)),
                Some(b)
                    if !b
                        .lines()
                        .any(|line| line.trim_start().starts_with("wait_prior_grid();")) =>
                {
                    out.push(format!(
                    "{}: launched overlapping the previous launch but never calls wait_prior_grid()",
                    l.entry
                    ))
                }
                Some(_) => {}
            }
        }
        out
    }
}
