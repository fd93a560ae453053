//! Backward weight (wgrad) of depthwise layers on tensor cores with a banded dY operand
//! (`wgrad_banded.cu`, `math = mma`, `stages = 1`). What it owns: which configs take it
//! ([`applies`]), its work ([`units`], [`tap_blocks`]), geometry ([`geometry`]), register
//! estimate ([`register_estimate`]), cost ([`cost_estimate`]) and module ([`emit`]). Its rules
//! are `super::rules::check_banded` (problem) and `validate_banded` (fields).
//!
//! **Why.** A depthwise filter has one input and one output channel per group, so the GEMM of
//! the other wgrad kernels has N = 1 and the CUDA-core kernels (`super::stream`, `super::wgrad`)
//! are bound by FMA issue: at 7×7 they reach about 30 % of the FP32 peak and 11–14 % of the
//! H200 roofline. Here each channel's correlation is an MMA in its own right:
//!
//! - **A** (16 × 16): rows `tx` (top half) and `8 + tx` (bottom half), columns 16 input columns
//!   `ix`: `A[tx][ix] = dY[oy][ix + PW − tx]`, the banded (Toeplitz) matrix of one dY row, with
//!   the top half on row `oy_t = oy_b + 1` and the bottom half on row `oy_b`;
//! - **B** (16 × 8): `B[ix][n] = X[oy_b − PH + n][ix]`, eight X rows, shared by both halves;
//! - **D** (16 × 8): the top half accumulates `dW[n − 1][tx]` and the bottom half `dW[n][tx]`,
//!   so one `mma.sync.m16n8k16` covers two output rows × every tap row × 16 input columns, and
//!   a 7×7 filter uses 2·7·7 of its 128 outputs (77 % of the products are useful; one A row
//!   per band would use 38 %).
//!
//! A CTA owns `BN` channels and a slab of tiles (`TH` output rows × `TW` columns of one image).
//! Per tile it stages the X rows `oy0 − PH …` (`TH + 6`, zero outside the image) and the
//! `KC = ⌈(TW + FX − 1) / 16⌉ · 16` input columns from `ox0 − PW` as per-channel planes (row
//! stride an odd number of 16-byte chunks: the eight `ldmatrix` rows of B fall in eight bank
//! groups), and the dY rows twice, the second copy shifted by one element, so that every A
//! register is one aligned 32-bit read whatever the parity of the band offset (the copies sit
//! [`dy_copy_words`] apart so that the two parities read different banks). Each warp walks its
//! `BN / warps` channels over the tile's `TH/2 × KC/16` MMAs; the four f32 accumulators of a
//! channel live over the whole slab. At the end both halves are added in a fixed order and the
//! CTA writes its rows of one f32 partial plane (or dW with one slab); the shared deterministic
//! `_reduce` (`crate::SPLIT_REDUCE`) sums the planes in order. No atomics: dW is bit-identical
//! across runs.
//!
//! **Tap blocks.** A filter wider than 8 or taller than 7 is cut into `⌈FX/8⌉ × ⌈FY/7⌉` blocks
//! ([`tap_blocks`]): block (bx, by) shifts the band by `8·bx` columns (its A reads start `4·bx`
//! words further left in the staged dY row, which holds `8·BX` elements left of the tile) and B
//! by `7·by` X rows (the tile stages `7·(BY − 1)` more rows); each block has its own four
//! accumulators per channel ([`MAX_ACCUMULATORS`] per thread) and is written out on its own.
//!
//! Scope: depthwise (C/G = K/G = 1) with C a multiple of 8 (16-byte channel vectors), 16-bit
//! data, 2D, stride 1, dilation 1, `FX ≤ 32` and `FY ≤ 35` (3×3 … 31×31). A 1D layer would use
//! one row of each pair and one of the eight B rows (on the H200 a 1D 4-tap layer ran 196 µs
//! against the streaming kernel's 39 µs), so it is out of scope. Other depthwise layers take
//! `super::stream`.
//!
//! Fields: `tile_m` = `TH × TW` pixels (`TH` even, 2..=[`MAX_ROWS`]), `tile_k` = `TW`
//! (4..=[`MAX_WIDTH`]), `tile_n` = `BN` channels (a multiple of 8 and of the warps, at most
//! 64), `warps_m` warps (each holds `BN / warps` ≤ [`MAX_CHANNELS_PER_WARP`] channels),
//! `vec_a` = 8 (the staging vector), `vec_b` = 1 or 2 (2: the pipelined variant,
//! [`pipelined`]), `stages` = 1, `split_k` = P (0: the slab
//! rule of `super::stream`, [`super::stream::slab_count`]), mode `d`, `math = mma`, `gm1`,
//! `gen`. Example: `direct_wgrad_bf16_t112x16x56_w4x1_s1_v8x1_gm1_sk0d_mma_gen` = tiles of 2 × 56
//! output pixels, 16 channels per CTA, 4 warps of 4 channels.

use super::fragments::{problem_constants, ELEM};
use super::shape::DirectGeometry;
use super::stream;
use crate::config::{KernelConfig, Math};
use crate::device::DeviceLimits;
use crate::source::KernelSource;
use gconv_problem::{Direction, Problem, TensorRole};
use std::fmt::Write;

/// The kernel body (after the prelude, `elem.cu` and `mma_ptx.cu`).
const BODY: &str = include_str!("wgrad_banded.cu");

/// Largest `TH` (output rows of a tile).
pub const MAX_ROWS: u32 = 16;

/// Largest `TW` (`tile_k`, output columns of a tile).
pub const MAX_WIDTH: u32 = 128;

/// Largest channel count of one warp (`BN / warps`; 4 accumulators each).
pub const MAX_CHANNELS_PER_WARP: u32 = 8;

/// Largest filter width: 4 tap blocks of the band's 8 rows per half.
pub const MAX_FX: u64 = 32;

/// Largest filter height: 5 tap blocks of 7 rows (the 8 columns of D hold 7 + 1 rows of the
/// two halves).
pub const MAX_FY: u64 = 35;

/// Largest f32 accumulator count per thread: 4 per channel of the warp and tap block.
pub const MAX_ACCUMULATORS: u64 = 96;

/// The tap blocks `(BX, BY)`: `⌈FX / 8⌉` along x (the band's 8 rows per half), `⌈FY / 7⌉` along
/// y (7 rows of D per block). Each block is one MMA per row pair and K chunk, with its own four
/// accumulators per channel.
pub fn tap_blocks(problem: &Problem) -> (u64, u64) {
    (problem.filter[2].div_ceil(8), problem.filter[1].div_ceil(7))
}

/// f32 accumulators per thread: `4 · (BN / warps) · BX · BY`.
pub fn accumulators(cfg: &KernelConfig, problem: &Problem) -> u64 {
    let (bx, by) = tap_blocks(problem);
    4 * (cfg.tile_n / cfg.warps_m.max(1)).max(1) as u64 * bx * by
}

/// Staged X rows of a tile: `TH + 6` (a row pair reads 8) plus 7 per further tap block along y.
pub fn x_rows(cfg: &KernelConfig, problem: &Problem) -> u64 {
    tile_rows(cfg) + 6 + 7 * (tap_blocks(problem).1 - 1)
}

/// Staged dY elements of a row: the K extent plus 8 per tap block along x on the left.
pub fn dy_row(cfg: &KernelConfig, problem: &Problem) -> u64 {
    16 * k_chunks(cfg, problem) + 8 * tap_blocks(problem).0
}

/// True when `cfg` on `problem` is the banded tensor-core wgrad kernel.
pub fn applies(cfg: &KernelConfig, problem: &Problem) -> bool {
    problem.direction == Direction::Wgrad && cfg.math == Math::Mma && cfg.stages == 1
}

/// `TH`, output rows of a tile (`tile_m / tile_k`).
pub fn tile_rows(cfg: &KernelConfig) -> u64 {
    (cfg.tile_m / cfg.tile_k.max(1)).max(1) as u64
}

/// `KCH`, the 16-column chunks of a tile's input columns (`⌈(TW + FX − 1) / 16⌉`).
pub fn k_chunks(cfg: &KernelConfig, problem: &Problem) -> u64 {
    (cfg.tile_k as u64 + problem.filter[2] - 1).div_ceil(16)
}

/// Work units: tiles of `TH × TW` output pixels, `N · ⌈Ho / TH⌉ · ⌈Wo / TW⌉`.
pub fn units(cfg: &KernelConfig, problem: &Problem) -> u64 {
    let out = problem.output();
    problem.n * out[1].div_ceil(tile_rows(cfg)) * out[2].div_ceil(cfg.tile_k.max(1) as u64)
}

/// Words between the two copies of a staged dY row of `row` elements ([`dy_row`]): at least
/// half of them, and `≡ 8..=24 (mod 32)`, so that the even-offset lanes (words 1–7 of copy 0) and
/// the odd-offset lanes (words 0–6 of copy 1) of one A read fall in different banks.
pub fn dy_copy_words(row: u64) -> u64 {
    let mut w = row.div_ceil(2);
    while !(8..=24).contains(&(w % 32)) {
        w += 1;
    }
    w
}

/// The shift, in 32-bit words, between the planes of consecutive groups of 8 channels (one
/// 16-byte channel vector) beyond their length: dY planes `DGS` words, X planes `XGS = 2·DGS`
/// elements. The `VECS = BN / 8` staging lanes of one pixel's vectors store the same word of
/// their channels' planes, and the planes of a group of 8 channels span a multiple of 32 words
/// (8 · an even number of words), so without a shift those lanes hit one bank; shifted by
/// `32 / VECS` words (a power of two, `VECS` rounded up) the lanes of a warp's store (32 /
/// VECS consecutive words per vector) fall in different banks. 16 bytes or more, so the X
/// planes keep the 16-byte alignment of their `ldmatrix` rows; 0 with one vector.
pub fn plane_group_shift(cfg: &KernelConfig) -> u64 {
    let vecs = (cfg.tile_n / 8).max(1) as u64;
    if vecs == 1 {
        0
    } else {
        (32 / vecs.next_power_of_two()).max(4)
    }
}

/// The geometry of `cfg` on `problem`: the tile, the staged X planes (`halo = [1,`
/// [`x_rows`]`, KC]`, row stride `xrow = KC + 8`, the groups of 8 channels
/// [`plane_group_shift`] apart), the dY planes (`ws_bytes`, from `xs_bytes` rounded up to hold
/// the epilogue's `BN × 128` f32 sums), and the grid `[P, ⌈C/BN⌉, 1]`.
pub fn geometry(cfg: &KernelConfig, problem: &Problem, device: &DeviceLimits) -> DirectGeometry {
    let th = tile_rows(cfg);
    let tw = cfg.tile_k.max(1) as u64;
    let bn = cfg.tile_n.max(1) as u64;
    let kc = 16 * k_chunks(cfg, problem);
    let xrs = kc + 8;
    let xrows = x_rows(cfg, problem);
    let shift = plane_group_shift(cfg);
    let groups = (bn / 8).max(1);
    let x_bytes = (bn * xrows * xrs + (groups - 1) * 2 * shift) * 2;
    let dy_off = x_bytes.max(bn * 128 * 4).div_ceil(16) * 16;
    let dy_bytes = (bn * th * 2 * dy_copy_words(dy_row(cfg, problem)) + (groups - 1) * shift) * 4;
    let smem = dy_off + dy_bytes;
    let channel_blocks = problem.k.div_ceil(bn);
    let wave = device.wave(smem, cfg.threads(), register_estimate(cfg, problem));
    let slabs = stream::slab_count(cfg, problem, channel_blocks, wave, units(cfg, problem));
    DirectGeometry {
        th,
        tw,
        ct: bn,
        cts: bn,
        wrow: problem.filter_volume(),
        halo: [1, xrows, kc],
        xrow: xrs,
        vl: 8,
        sv: 1,
        xs_bytes: dy_off,
        ws_bytes: dy_bytes,
        raw_bytes: 0,
        smem_bytes: smem,
        grid: [slabs, channel_blocks, 1],
        min_ctas: 1,
    }
}

/// True for the pipelined variant (`vec_b` = 2): each thread issues its staging reads of the
/// next tile into registers before the current tile's MMAs and stores them after, so the
/// global loads overlap the tensor-core work instead of waiting behind a barrier.
pub fn pipelined(cfg: &KernelConfig) -> bool {
    cfg.vec_b == 2
}

/// The staging tasks of one thread for a tile (X, dY): `⌈tasks / threads⌉` each, the register
/// arrays of the pipelined variant (X: two 16-byte reads, dY: three).
pub fn staging_tasks(cfg: &KernelConfig, problem: &Problem) -> (u64, u64) {
    let threads = cfg.threads().max(1) as u64;
    let vecs = (cfg.tile_n / 8).max(1) as u64;
    let kc = 16 * k_chunks(cfg, problem);
    let x = x_rows(cfg, problem) * (kc / 2) * vecs;
    let d = tile_rows(cfg) * dy_copy_words(dy_row(cfg, problem)) * vecs;
    (x.div_ceil(threads), d.div_ceil(threads))
}

/// Estimated registers per thread: 4 accumulators per channel of the warp and tap block, the four A words
/// and two B words of an MMA in flight (unrolled, a few sets), addresses and a fixed allowance
/// of 40; the pipelined variant adds its staging registers (8 per X task, 12 per dY task).
pub fn register_estimate(cfg: &KernelConfig, problem: &Problem) -> u32 {
    let staged = if pipelined(cfg) {
        let (x, d) = staging_tasks(cfg, problem);
        8 * x + 12 * d
    } else {
        0
    };
    (accumulators(cfg, problem) + 24 + 40 + staged).min(u32::MAX as u64) as u32
}

/// What the H200 measured over [`cost_estimate`]'s model, about 1.5–2.2× on the zoo's depthwise
/// layers (session 13: the two pool members on the 7×7, 5×5 and 3×3 layers of 28–56 pixels); 1.5
/// keeps the members ahead of the streaming kernel's estimate where they measured faster (7×7
/// at 56² and 28²) and behind it where they did not (5×5 at 28², 3×3 at 56²), for the rule that
/// decides where the selection model does not apply (f16).
pub const BANDED_FACTOR: f64 = 1.5;

/// Estimated seconds: `(max(t_smem, t_dram, t_l2) · q + t_partials + 2 µs) ·`
/// [`BANDED_FACTOR`], where `t_smem` is
/// the shared-memory traffic of the MMAs (per MMA the warp reads 4 A words and one `ldmatrix`
/// pair: 768 bytes) and of the staging stores, at 128 bytes per clock per SM (1.7 GHz, 132
/// SMs); `t_dram` the compulsory bytes at 3.5 TB/s; `t_l2` the staged tiles (X with its row
/// and column halo, dY) at 8 TB/s; `q` the wave quantisation; `t_partials` the partial planes
/// and the reduction launch as on the streaming kernel. Not fitted beyond the factor.
pub fn cost_estimate(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    device: &DeviceLimits,
) -> f64 {
    let es = problem.dtype.size_bytes() as f64;
    let units = units(cfg, problem) as f64;
    let blocks = geo.grid[1] as f64;
    let bn = cfg.tile_n as f64;
    let (th, kc) = (geo.th as f64, geo.halo[2] as f64);
    let (bx, by) = tap_blocks(problem);
    let mmas = units * blocks * bn * (th / 2.0) * (kc / 16.0) * (bx * by) as f64;
    let rows = x_rows(cfg, problem) as f64;
    let staged = units * blocks * bn * (rows * kc + th * dy_row(cfg, problem) as f64);
    let smem_rate = 128.0 * 1.7e9 * 132.0;
    let t_smem = (mmas * 768.0 + staged * 4.0) / smem_rate;
    let t_dram = problem.min_bytes() / 3.5e12;
    let t_l2 = staged * es / 8e12;
    let slabs = geo.grid[0] as f64;
    let ctas = slabs * blocks;
    let wave = device.wave(geo.smem_bytes, cfg.threads(), registers) as f64;
    let q = (wave / ctas).max(1.0);
    let t_partials = if geo.grid[0] > 1 {
        let dw = problem.elements(TensorRole::W) as f64;
        2.0 * slabs * dw * 4.0 / 3.5e12 + 2e-6
    } else {
        0.0
    };
    (t_smem.max(t_dram).max(t_l2) * q + t_partials + 2e-6) * BANDED_FACTOR
}

/// The module of a banded plan (`cfg` the resolved config: its `split_k` is P): the
/// constants, the prelude, `elem.cu`, the tensor-core helpers, `wgrad_banded.cu` and the
/// shared split reduction (`_reduce`, launched after the main kernel when P > 1).
pub fn emit(cfg: &KernelConfig, problem: &Problem, geo: &DirectGeometry) -> KernelSource {
    let name = cfg.to_string();
    let slabs = geo.grid[0];
    let u = units(cfg, problem);
    let per_slab = u.div_ceil(slabs.max(1));
    let dw = problem.elements(TensorRole::W);
    let kch = k_chunks(cfg, problem);
    let dsw = dy_copy_words(dy_row(cfg, problem));
    let mut h = String::new();
    let w = &mut h;
    // Writing to a String cannot fail.
    let _ = writeln!(
        w,
        "// gconv direct backward-weight kernel (depthwise, tensor cores, banded dY): generated, do not edit"
    );
    let _ = writeln!(w, "// kernel:  {name}");
    let _ = writeln!(w, "// problem: {problem}");
    let _ = writeln!(
        w,
        "// tiles of {} x {} outputs, {} channels per CTA in {} warps, {} x {} mma per channel and tile; {} slabs of {} tiles, smem {} B",
        geo.th,
        geo.tw,
        cfg.tile_n,
        cfg.warps_m,
        geo.th / 2,
        kch,
        slabs,
        per_slab,
        geo.smem_bytes
    );
    let _ = writeln!(w, "#define ELEM unsigned short");
    let _ = writeln!(
        w,
        "constexpr bool IS_BF16 = {};",
        problem.dtype == gconv_problem::DType::Bf16
    );
    let _ = writeln!(w, "#define GCONV_SPLIT_REDUCE {}", u8::from(slabs > 1));
    w.push_str(&crate::split_reduce_define(slabs, dw));
    let _ = writeln!(w, "#define GCONV_SPLIT_ATOMIC 0");
    let min_ctas = DeviceLimits::H200.ctas_per_sm(
        geo.smem_bytes,
        cfg.threads(),
        register_estimate(cfg, problem),
    );
    let shift = plane_group_shift(cfg);
    let ints: [(&str, u64); 15] = [
        ("G_", problem.g),
        ("CG", problem.cpg()),
        ("KG", problem.kpg()),
        ("TH", geo.th),
        ("TW", geo.tw),
        ("BN", cfg.tile_n as u64),
        ("KCH", kch),
        ("XRS", geo.xrow),
        ("DSW", dsw),
        ("XGS", 2 * shift),
        ("DGS", shift),
        ("DY_OFF", geo.xs_bytes),
        ("THREADS", cfg.threads() as u64),
        ("SMEM_BYTES", geo.smem_bytes),
        ("SLABS", slabs),
    ];
    for (k, v) in problem_constants(problem).into_iter().chain(ints) {
        let _ = writeln!(w, "constexpr int {k} = {v};");
    }
    let _ = writeln!(w, "constexpr int MIN_CTAS = {min_ctas};");
    let _ = writeln!(w, "constexpr bool PIPE = {};", pipelined(cfg));
    let _ = writeln!(w, "constexpr int UNITS_PER_SLAB = {per_slab};");
    let _ = writeln!(w, "constexpr long long RED_PLANE = {dw};");
    let _ = writeln!(w, "constexpr int RED_SPLIT = {slabs};");
    let code = format!(
        "{h}\n{}\n{}\n{}\n{}\n{}",
        crate::PRELUDE,
        ELEM,
        crate::MMA_PTX,
        BODY,
        crate::SPLIT_REDUCE
    )
    .replace("@ENTRY@", &name);
    super::wgrad::slab_source(name, code, geo, cfg.threads(), dw, 1)
}
