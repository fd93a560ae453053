//! Forward and backward data of depthwise layers on tensor cores with a banded filter operand
//! (`fwd_banded.cu`, `math = mma`, `vec_a = 1`). What it owns: which configs take it
//! ([`applies`]), its work ([`row_pairs`], [`units`], [`accumulators`]), geometry
//! ([`geometry`]), register estimate ([`register_estimate`]), cost ([`cost_estimate`]) and
//! module ([`emit`]). Its rules are `super::rules::validate_fwd_banded` (fields) and
//! `check_fwd_banded_scope` (problem).
//!
//! **Why.** A depthwise layer has one input and one output channel per group, so the GEMM of
//! the channel tensor-core path (`super::mma`) has K = taps and N = 1, and the CUDA-core
//! kernels are bound by FMA issue: at 7×7 they reach 40–45 % of the FP32 peak and about a
//! quarter of the H200 roofline. Here each channel's correlation is an MMA in its own right
//! (the forward counterpart of `super::banded`, which does the same for backward weight):
//!
//! - **A** (16 × 16): `A[m][k] = X[ρ + (k ≥ 8)][ox0 + m + k mod 8 − PW]`, two staged X rows
//!   `ρ`, `ρ + 1` as Toeplitz blocks over 16 output columns `m` and 8 filter columns;
//! - **B** (16 × 8): `B[k][n] = W[ρ + (k ≥ 8) − (8b + n)][k mod 8]`, zero outside the filter:
//!   the banded filter of 8 output rows `n`, the same registers for every row block `b` and
//!   column chunk of the channel (per row pair `j` of a block: [`row_pairs`] of them);
//! - **D** (16 × 8): 16 output columns × 8 output rows of one channel.
//!
//! A 7×7 filter uses 16·8·49 of the 16·8·16·7 products of a block's seven MMAs (44 %), against
//! FMA issue on CUDA cores a tensor-core rate that leaves shared memory (four 32-bit A reads per
//! row pair and column chunk) as the bound. **Measured** (H200, session 21): every swept
//! configuration verified, none faster than the CUDA-core members on the zoo's depthwise
//! layers (7×7 at 56²: 40.9 µs at best against 33.8 µs; 3×3 two to four times slower), so the
//! kernel is reachable through its trait configs and by name but is not a pool member; the
//! staging (three 16-byte reads and sixteen 32-bit stores per two elements of eight channels,
//! no overlap with the MMAs within a CTA) is where its time goes. Backward data (stride 1, the dual forward problem of
//! `gconv_problem::Problem::dgrad_dual`) is the same kernel with the filter read flipped.
//!
//! A CTA owns `BN` channels and one tile of `TH × TW` output pixels of one image. It stages
//! the X rows `oy0 − PH …` (`8·(TH/8 − 1) + 2·JP`, zero outside the image) and `TW + 8`
//! columns from `ox0 − PW` as per-channel planes in shared memory, each row twice, the second
//! copy shifted by one element, so that every A register is one aligned 32-bit read whatever
//! the parity of its column ([`copy_words`] apart: the two parities read different banks).
//! Each warp runs its `BN / warps` channels (the filter's B registers built once per channel
//! and tile from global memory), reading each staged row pair's A fragments once for every
//! 8-row block that reaches it; the f32 accumulators of all its channels stay in registers until every
//! warp is done with the planes, which then hold the tile's output as `[pixel][channel]` rows
//! so that Y is written in 16-byte channel vectors. One launch, no workspace.
//!
//! Scope: depthwise (C/G = K/G = 1) with C a multiple of 8, 16-bit data, 2D, stride 1,
//! dilation 1, `FX ≤ 8`, `FY ≤ `[`MAX_FY`]; backward data where the dual exists (the stride-1
//! pad rule of `super::rules`). A non-finite input value reaches the outputs of its band's
//! zero taps too (0·∞), as in an implicit GEMM over a zero-padded tile.
//!
//! Fields: `tile_m` = `TH × TW` pixels (`TH` a multiple of 8, at most [`MAX_ROWS`]), `tile_k`
//! = `TW` (a multiple of 16, at most [`MAX_WIDTH`]), `tile_n` = `BN` channels (a multiple of 8
//! and of the warps, at most 64), `warps_m` warps, `vec_a` = 1 (this kernel: the channel path
//! of `super::mma` needs 8–64), `vec_b` = 1 or 2 ([`pipelined`]: CTAs that walk up to
//! [`TILES_PER_CTA`] tiles and prefetch the next tile's staging reads into registers),
//! `stages` = 1, `gm1`, `sk1d`, `math = mma`, `gen`. Example:
//! `direct_fwd_bf16_t512x16x64_w4x1_s1_v1x1_gm1_sk1d_mma_gen` = tiles of 8 × 64 output
//! pixels, 16 channels per CTA, 4 warps of 4 channels.

use super::fragments::{problem_constants, ELEM};
use super::shape::DirectGeometry;
use crate::config::{KernelConfig, Math};
use crate::device::DeviceLimits;
use crate::source::{Arch, KernelSource, Launch};
use gconv_problem::{Direction, Problem};
use std::fmt::Write;

/// The kernel body (after the prelude, `elem.cu` and `mma_ptx.cu`).
const BODY: &str = include_str!("fwd_banded.cu");

/// Largest `TH` (output rows of a tile, a multiple of 8).
pub const MAX_ROWS: u32 = 32;

/// Largest `TW` (`tile_k`, output columns of a tile, a multiple of 16).
pub const MAX_WIDTH: u32 = 128;

/// Largest filter width: the 8 columns of a K half.
pub const MAX_FX: u64 = 8;

/// Largest filter height (11 row pairs per block).
pub const MAX_FY: u64 = 15;

/// Tiles a CTA of the pipelined variant walks (at most; the last CTAs of a channel block may
/// walk fewer).
pub const TILES_PER_CTA: u64 = 4;

/// Largest f32 accumulator count per thread: 4 per channel of the warp, row block and column
/// chunk.
pub const MAX_ACCUMULATORS: u64 = 96;

/// True when `cfg` on `problem` is this kernel: a forward or backward-data config on tensor
/// cores with `vec_a = 1` (the channel path's `vec_a` is 8–64).
pub fn applies(cfg: &KernelConfig, problem: &Problem) -> bool {
    problem.direction != Direction::Wgrad && cfg.math == Math::Mma && cfg.vec_a == 1
}

/// `TH`, output rows of a tile (`tile_m / tile_k`).
pub fn tile_rows(cfg: &KernelConfig) -> u64 {
    (cfg.tile_m / cfg.tile_k.max(1)).max(1) as u64
}

/// `JP`, the staged row pairs one 8-row block reads: `⌊(FY + 8) / 2⌋`, so that its `2·JP` rows
/// cover every tap row of its eight output rows (`2·JP ≥ FY + 7`).
pub fn row_pairs(problem: &Problem) -> u64 {
    (problem.filter[1] + 8) / 2
}

/// Staged X rows of a tile: `8·(TH/8 − 1) + 2·JP`.
pub fn x_rows(cfg: &KernelConfig, problem: &Problem) -> u64 {
    8 * (tile_rows(cfg) / 8).max(1) - 8 + 2 * row_pairs(problem)
}

/// Words between the two copies of a staged X row (`TW + 8` elements): at least half of
/// them plus one, a multiple of 4 (the layout measured on the H200 in session 21, whose second
/// version stored the planes in 16-byte groups), and `≡ 8..=24 (mod 32)`, so that
/// the even-column lanes (words 0–6 of copy 0) and the odd-column lanes (words 0–6 of copy 1)
/// of one A read fall in different banks.
pub fn copy_words(cfg: &KernelConfig) -> u64 {
    let mut w = ((cfg.tile_k as u64 + 8).div_ceil(2) + 1).div_ceil(4) * 4;
    while !(8..=24).contains(&(w % 32)) {
        w += 4;
    }
    w
}

/// True for the pipelined variant (`vec_b` = 2): CTAs that walk up to [`TILES_PER_CTA`] tiles,
/// each thread issuing its staging reads of the next tile into registers before the current
/// tile's MMAs and storing them once the tile's output is written.
pub fn pipelined(cfg: &KernelConfig) -> bool {
    cfg.vec_b == 2
}

/// Staging tasks of one thread for a tile: `⌈XR · XCW · BN/8 / threads⌉` (three 16-byte reads
/// each; the pipelined variant's registers).
pub fn staging_tasks(cfg: &KernelConfig, problem: &Problem) -> u64 {
    let vecs = (cfg.tile_n / 8).max(1) as u64;
    (x_rows(cfg, problem) * copy_words(cfg) * vecs).div_ceil(cfg.threads().max(1) as u64)
}

/// f32 accumulators per thread: `4 · (BN / warps) · TH/8 · TW/16`.
pub fn accumulators(cfg: &KernelConfig) -> u64 {
    4 * (cfg.tile_n / cfg.warps_m.max(1)).max(1) as u64
        * (tile_rows(cfg) / 8).max(1)
        * (cfg.tile_k as u64 / 16).max(1)
}

/// Work units (one CTA each, per channel block): `N · ⌈Ho / TH⌉ · ⌈Wo / TW⌉` tiles.
pub fn units(cfg: &KernelConfig, problem: &Problem) -> u64 {
    let out = problem.output();
    problem.n * out[1].div_ceil(tile_rows(cfg)) * out[2].div_ceil(cfg.tile_k.max(1) as u64)
}

/// The geometry of `cfg` on the forward `problem` (the dual of a backward-data problem): the
/// tile, the staged X planes (`halo = [1, x_rows, TW + 8]`, `xrow` = two copies; the planes of
/// each group of 8 channels [`super::banded::plane_group_shift`] words apart), shared memory
/// for the planes or the output rows (`TH·TW × (BN + 8)` 16-bit elements), whichever is
/// larger, and the grid `[tiles, ⌈C/BN⌉, 1]` (pipelined: `[⌈tiles /`
/// [`TILES_PER_CTA`]`⌉, ⌈C/BN⌉, 1]`, CTA x walking tiles x, x + grid, …).
pub fn geometry(cfg: &KernelConfig, problem: &Problem) -> DirectGeometry {
    let th = tile_rows(cfg);
    let tw = cfg.tile_k.max(1) as u64;
    let bn = cfg.tile_n.max(1) as u64;
    let xrows = x_rows(cfg, problem);
    let xcw = copy_words(cfg);
    let groups = (bn / 8).max(1);
    let x_bytes = (bn * xrows * 2 * xcw + (groups - 1) * super::banded::plane_group_shift(cfg)) * 4;
    let o_bytes = th * tw * (bn + 8) * 2;
    let smem = x_bytes.max(o_bytes).div_ceil(16) * 16;
    let blocks = problem.k.div_ceil(bn);
    let tiles = units(cfg, problem);
    let grid_x = if pipelined(cfg) {
        tiles.div_ceil(TILES_PER_CTA)
    } else {
        tiles
    };
    DirectGeometry {
        th,
        tw,
        ct: bn,
        cts: bn,
        wrow: problem.filter_volume(),
        halo: [1, xrows, tw + 8],
        xrow: 2 * xcw,
        vl: 8,
        sv: 8,
        xs_bytes: x_bytes,
        ws_bytes: 0,
        raw_bytes: 0,
        smem_bytes: smem,
        grid: [grid_x, blocks, 1],
        min_ctas: 1,
    }
}

/// Estimated registers per thread: the accumulators, the filter's `2·JP` B words, four A words
/// (a few sets in flight), addresses and a fixed allowance of 40; the pipelined variant adds
/// its staging registers (12 per task).
pub fn register_estimate(cfg: &KernelConfig, problem: &Problem) -> u32 {
    let staged = if pipelined(cfg) {
        12 * staging_tasks(cfg, problem)
    } else {
        0
    };
    (accumulators(cfg) + 2 * row_pairs(problem) + 16 + 40 + staged).min(u32::MAX as u64) as u32
}

/// Estimated seconds: `max(t_smem, t_dram, t_l2) · q + 2 µs`, where `t_smem` is the
/// shared-memory traffic of the A reads (per staged row pair and column chunk the warp reads
/// four 32-bit words: 512 bytes),
/// of the staging stores (two copies of every staged element) and of the output rows, at 128
/// bytes per clock per SM (1.7 GHz, 132 SMs); `t_dram` the compulsory bytes at 3.5 TB/s;
/// `t_l2` the staged tiles (with their halo and the staging's 1.5 reads per element) at
/// 8 TB/s; `q` the wave quantisation. Not fitted to measurements.
pub fn cost_estimate(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    device: &DeviceLimits,
) -> f64 {
    let es = problem.dtype.size_bytes() as f64;
    let ctas = (geo.grid[0] * geo.grid[1]) as f64;
    let tiles = (units(cfg, problem) * geo.grid[1]) as f64;
    let bn = cfg.tile_n as f64;
    let (th, tw) = (geo.th as f64, geo.tw as f64);
    let a_reads = tiles * bn * (geo.halo[1] as f64 / 2.0) * (tw / 16.0);
    let staged = tiles * bn * geo.halo[1] as f64 * geo.xrow as f64;
    let outputs = tiles * bn * th * tw;
    let smem_rate = 128.0 * 1.7e9 * 132.0;
    let t_smem = (a_reads * 512.0 + staged * 4.0 + outputs * 4.0) / smem_rate;
    let t_dram = problem.min_bytes() / 3.5e12;
    let t_l2 = tiles * bn * geo.halo[1] as f64 * geo.halo[2] as f64 * es * 1.5 / 8e12;
    let wave = device.wave(geo.smem_bytes, cfg.threads(), registers) as f64;
    let q = ((ctas / wave).ceil() * wave / ctas).max(1.0);
    t_smem.max(t_dram).max(t_l2) * q + 2e-6
}

/// The module of a banded plan on the forward `problem` (the dual of the `real` backward-data
/// problem): the constants, the prelude, `elem.cu`, the tensor-core helpers and
/// `fwd_banded.cu`.
pub fn emit(
    cfg: &KernelConfig,
    real: &Problem,
    problem: &Problem,
    geo: &DirectGeometry,
) -> KernelSource {
    let name = cfg.to_string();
    let dgrad = real.direction == Direction::Dgrad;
    let mut h = String::new();
    let w = &mut h;
    // Writing to a String cannot fail.
    let _ = writeln!(
        w,
        "// gconv direct {} kernel (depthwise, tensor cores, banded filter): generated, do not edit",
        if dgrad { "backward-data" } else { "forward" }
    );
    let _ = writeln!(w, "// kernel:  {name}");
    let _ = writeln!(w, "// problem: {real}");
    if dgrad {
        let _ = writeln!(
            w,
            "// computed as the forward problem {problem} (flipped filter)"
        );
    }
    let _ = writeln!(
        w,
        "// tiles of {} x {} outputs, {} channels per CTA in {} warps, {} row pairs per 8-row block; smem {} B",
        geo.th,
        geo.tw,
        cfg.tile_n,
        cfg.warps_m,
        row_pairs(problem),
        geo.smem_bytes
    );
    let _ = writeln!(w, "#define ELEM unsigned short");
    let _ = writeln!(
        w,
        "constexpr bool IS_BF16 = {};",
        problem.dtype == gconv_problem::DType::Bf16
    );
    let _ = writeln!(w, "constexpr bool DGRAD = {dgrad};");
    let _ = writeln!(w, "constexpr bool PIPE = {};", pipelined(cfg));
    let ints: [(&str, u64); 10] = [
        ("G_", problem.g),
        ("CG", problem.cpg()),
        ("KG", problem.kpg()),
        ("TH", geo.th),
        ("TW", geo.tw),
        ("BN", cfg.tile_n as u64),
        ("XCW", copy_words(cfg)),
        ("XGS", super::banded::plane_group_shift(cfg)),
        ("THREADS", cfg.threads() as u64),
        ("SMEM_BYTES", geo.smem_bytes),
    ];
    for (k, v) in problem_constants(problem).into_iter().chain(ints) {
        let _ = writeln!(w, "constexpr int {k} = {v};");
    }
    let code = format!(
        "{h}\n{}\n{}\n{}\n{}",
        crate::PRELUDE,
        ELEM,
        crate::MMA_PTX,
        BODY
    )
    .replace("@ENTRY@", &name);
    KernelSource {
        kernel_name: name.clone(),
        code,
        arch: Arch::Sm90,
        launches: vec![Launch {
            entry: name,
            grid: [geo.grid[0] as u32, geo.grid[1] as u32, geo.grid[2] as u32],
            block: [cfg.threads(), 1, 1],
            dynamic_smem_bytes: geo.smem_bytes as u32,
            overlaps_previous: false,
            cluster: 1,
            tensor_maps: Vec::new(),
        }],
        workspace_bytes: 0,
    }
}
