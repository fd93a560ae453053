//! Backward weight (wgrad) on tensor cores for grouped layers whose C/G and K/G are multiples
//! of 8 (`wgrad_mma.cu`, `math = mma`, `stages` 2 or 3): the slab walk of `super::wgrad` (the same
//! tiles, halo copy, double buffering, slab rule and deterministic partial planes) with the
//! per-group GEMM `M = (tap, c)`, `N = K/G`, `K = output pixels` on `mma.sync.m16n8k16`. What it
//! owns: which configs take it ([`applies`]), the work split ([`work`]), its geometry
//! ([`geometry`]), register estimate ([`register_estimate`]), cost ([`cost_estimate`]) and
//! module ([`emit`]). Its rules are `super::rules::check_wgrad_mma`.
//!
//! **Operand orientation.** M is the group's `taps × C/G` (8-channel chunks, tap-major) and N
//! its K/G, so that K/G = 8 fills one n8 block exactly and the taps fill the m16 blocks: at C/G =
//! K/G = 8 a 3×3 layer wastes only the half block of its ninth tap (the M = K/G orientation
//! of igemm needs 4 merged groups to reach its 32-row tiles, and 3 of 4 products are then off
//! the diagonal). Both operands come straight from the staged tiles with `ldmatrix.trans`:
//! A's matrix rows are 16 tile pixels (each shifted by the chunk's tap inside the halo, 16 bytes
//! = the chunk's 8 channels), B's rows are the same 16 pixels of the dY tile (16 bytes = 8
//! output channels). Pixel strides of both tiles are an odd number of 16-byte chunks, so the
//! eight rows of a matrix hit eight bank groups.
//!
//! **Work.** A warp owns `UPW = ⌈units / warps⌉` units, a unit being one group of the CTA and
//! `MB = vec_a` m16 blocks of its M, with all `K/G / 8` n8 blocks; the unit's f32 accumulators
//! stay in registers over the whole slab, so no reduction between warps is needed and each warp
//! stores its own values (rows of one partial plane, or dW with one slab).
//!
//! **Group merge** (`gm` > 1, for C/G or K/G off a multiple of 8, e.g. C/G = K/G = 4 with
//! `gm2`): the kernel runs on the problem with `gm` adjacent groups merged into one of `gm·C/G`
//! input and `gm·K/G` output channels (`super::geometry::merge_groups`), so that its chunks and
//! n8 blocks are whole again; of the merged group's products only the diagonal blocks (an input
//! channel and an output channel of the same real group) are stored, at their real dW offsets
//! (`taps × C/G` per output channel). The default pool has one merged member (C/G 4 pairs); the
//! trait config `configs/traits/bwd_weight_direct_mma_bf16.json` sweeps the rest.
//!
//! **M slices** (`vec_b` = S > 1): S CTAs (grid z) share a channel block's tiles and each owns
//! a contiguous `⌈units / S⌉` of every group's units (slice z: units `z·⌈units/S⌉ …`), so a
//! group of many taps × channels (C/G 32 and up) fits the accumulators and a layer of few
//! tiles gets CTAs without more partial planes. Each slice stages the whole halo (simple, at
//! S times the tile loads); it stores only its own rows.
//!
//! **Register stage** (`stages = 3`, [`pipelined`]): after the two shared-memory stages of the
//! tiles, a third in registers. The step-by-step kernel (`stages = 2`) loads each m16 block's A
//! fragment just before its MMAs, so every block waits out an `ldmatrix` latency; the
//! pipelined one unrolls a tile's k16 steps and loads all fragments of step s + 1 into a second
//! register set before the MMAs of step s issue. On the H200 (session 22) it ran 4–20 % faster
//! on most grouped layers with K/G ≤ 24 at the same split degree, and 1.1–2.6× slower at
//! K/G 32 and on 3×3×3 filters, where its second register set spilled or cost a CTA per SM; its
//! scope rule (`direct_wgrad_mma_pipelined_scope`: K/G ≤ [`MAX_PIPELINED_KPG`], no depth taps)
//! keeps it off those, and inside it both are pool members and the selection chooses. Launch
//! bounds ask for two CTAs per SM.
//!
//! Fields: `tile_m` = tile pixels `TH × TW` (a multiple of 16), `tile_k` = `TW`, `tile_n` =
//! `BN` output channels per CTA (whole merged groups), `warps_m` warps, `vec_a` = `MB`, `vec_b`
//! = S M slices (1..=[`MAX_M_SLICES`]), `stages` = 2 or 3 (below), `split_k` = P (0: [`slab_count`]), mode `d`, `math = mma`, `gm` 1–8,
//! `gen`. Example: `direct_wgrad_bf16_t64x16x8_w4x1_s2_v2x1_gm1_sk0d_mma_gen` = 8×8-pixel tiles,
//! two groups of 8 channels per CTA, 4 warps each holding 2 units of 2 m16 blocks.

use super::fragments::{problem_constants, COMMON};
use super::shape::{halo_split, odd_chunk_stride, split_row, DirectGeometry};
use super::wgrad;
use crate::config::{KernelConfig, Math};
use crate::device::DeviceLimits;
use crate::source::KernelSource;
use gconv_problem::{Direction, Problem, TensorRole};
use std::fmt::Write;

/// The kernel body (after `common.cu` and `mma_ptx.cu`).
const BODY: &str = include_str!("wgrad_mma.cu");

/// Largest f32 accumulator count per thread (`UPW · MB · NB · 4`).
pub const MAX_ACCUMULATORS: u64 = 96;

/// True when `cfg` on `problem` is the tensor-core wgrad kernel (`math = mma`, `stages` 2 or 3;
/// `stages = 1` is `super::banded`).
pub fn applies(cfg: &KernelConfig, problem: &Problem) -> bool {
    problem.direction == Direction::Wgrad && cfg.math == Math::Mma && cfg.stages != 1
}

/// Largest M slice count (`vec_b`): CTAs that share a group's tiles, each owning a contiguous
/// part of its units.
pub const MAX_M_SLICES: u32 = 16;

/// The m16 blocks of one group's M: `⌈taps · C/G / 8 / 2⌉` (the last may be half).
fn m_blocks(problem: &Problem) -> u64 {
    (problem.filter_volume() * (problem.cpg() / 8).max(1)).div_ceil(2)
}

/// Units of one group's M: `⌈m16 blocks / MB⌉`.
pub fn group_units(cfg: &KernelConfig, problem: &Problem) -> u64 {
    m_blocks(problem).div_ceil((cfg.vec_a as u64).max(1))
}

/// The M slices of `cfg` (`vec_b`, at least 1): the grid's z.
pub fn m_slices(cfg: &KernelConfig) -> u64 {
    (cfg.vec_b as u64).max(1)
}

/// The work split of `cfg` on `problem`: (m16 blocks of a group's M, units of a CTA, units per
/// warp, n8 blocks of a unit, accumulators per thread). With `vec_b` = S M slices a CTA owns
/// `⌈group units / S⌉` units of each of its groups (grid z = the slice).
pub fn work(cfg: &KernelConfig, problem: &Problem) -> (u64, u64, u64, u64, u64) {
    let mblk = m_blocks(problem);
    let mb = (cfg.vec_a as u64).max(1);
    let gpb = (cfg.tile_n as u64 / problem.kpg().max(1)).max(1);
    let units = gpb * group_units(cfg, problem).div_ceil(m_slices(cfg));
    let upw = units.div_ceil((cfg.warps_m as u64).max(1));
    let nb = (problem.kpg() / 8).max(1);
    (mblk, units, upw, nb, upw * mb * nb * 4)
}

/// The slab count P: `split_k` when fixed, else one wave of the whole grid
/// (`crate::shared::split_degree`: sized from `channel_blocks` CTAs per slab, clamped to the
/// tiles and [`crate::shared::MAX_SPLIT`], snapped). The 10 % partial-traffic cap of the CUDA-core
/// slab kernel ([`wgrad::traffic_cap`]) is not applied: a grouped layer's |dW| is `taps·C/G`
/// times its depthwise sibling's, so the cap leaves a fraction of a wave (17 slabs × 16 channel
/// blocks for C/G 8 at 28²), and the tensor cores wait on too few warps to hide the tile loads.
/// The planes' bytes are priced by [`cost_estimate`].
pub fn slab_count(cfg: &KernelConfig, channel_blocks: u64, wave: u64, tiles: u64) -> u64 {
    if cfg.split_k > 0 {
        return cfg.split_k as u64;
    }
    crate::shared::split_degree(channel_blocks, wave, tiles, 1) as u64
}

/// Elements of one dY pixel row in shared memory (`BN` padded to an odd chunk count).
pub fn dy_row(cfg: &KernelConfig) -> u64 {
    odd_chunk_stride(cfg.tile_n as u64)
}

/// Bytes of one dY stage: `TH·TW` pixel rows of [`dy_row`] elements.
fn dy_stage_bytes(cfg: &KernelConfig, problem: &Problem) -> u64 {
    (cfg.tile_m as u64 * dy_row(cfg) * problem.dtype.size_bytes()).div_ceil(16) * 16
}

/// The geometry of `cfg` on `problem`: the tile, the X halo with its pixel stride padded to an
/// odd number of 16-byte chunks, two halo and two dY stages of shared memory (no reduction
/// area), and the grid `[P, ⌈K/BN⌉, S]` (S = `vec_b` M slices) with P from [`slab_count`] on
/// the `⌈K/BN⌉ · S` CTAs of one slab.
pub fn geometry(cfg: &KernelConfig, problem: &Problem, device: &DeviceLimits) -> DirectGeometry {
    let es = problem.dtype.size_bytes();
    let wgrad::SlabTile {
        th,
        tw,
        bn,
        ct,
        halo,
        vl,
        sv,
    } = wgrad::slab_tile(cfg, problem);
    let cts = odd_chunk_stride(ct);
    let xrow = split_row(halo[2], halo_split(true, problem.stride[2]), cts);
    let xs_bytes = (halo[0] * halo[1] * xrow * es).div_ceil(16) * 16;
    let ws_bytes = 2 * dy_stage_bytes(cfg, problem);
    let smem_bytes = 2 * xs_bytes + ws_bytes;
    let channel_blocks = problem.k.div_ceil(bn);
    let slices = m_slices(cfg);
    let wave = device.wave(smem_bytes, cfg.threads(), register_estimate(cfg, problem));
    let slabs = slab_count(
        cfg,
        channel_blocks * slices,
        wave,
        wgrad::tiles(problem, th, tw),
    );
    DirectGeometry {
        th,
        tw,
        ct,
        cts,
        wrow: problem.filter_volume() * problem.cpg(),
        halo,
        xrow,
        vl,
        sv,
        xs_bytes,
        ws_bytes,
        raw_bytes: 0,
        smem_bytes,
        grid: [slabs, channel_blocks, slices],
        min_ctas: 1,
    }
}

/// Estimated registers per thread: the accumulators ([`work`]), three per (unit, m16 block)
/// (its A offset and flags), four per n8 block (B fragments and offsets) and 52 for the tile
/// walk and copies. NVRTC 13.0 (`ptxas -v`, bf16, `kernel_resources` example) on the zoo C/G 8,
/// 16 and 32 layers: 64–128 registers where this gives 71–121; the 3D C/G 8 layer on 4 warps
/// of 4 units reports 119 (estimate 108).
pub fn register_estimate(cfg: &KernelConfig, problem: &Problem) -> u32 {
    let (_, _, upw, nb, acc) = work(cfg, problem);
    let mb = (cfg.vec_a as u64).max(1);
    let base = acc + 3 * upw * mb + 4 * nb + 52;
    if !pipelined(cfg) {
        return base.min(u32::MAX as u64) as u32;
    }
    // The second register set of a step's fragments (A: 4 per m16 block, B: 2 per n8 block),
    // within the cap of the launch bounds (two CTAs per SM).
    let cap = (65536 / (2 * cfg.threads() as u64)).min(255) / 8 * 8;
    (base + upw * (4 * mb + 2 * nb)).min(cap) as u32
}

/// Largest K/G (of the merged problem) the register-pipelined variant serves
/// (`super::rules`' `direct_wgrad_mma_pipelined_scope`).
pub const MAX_PIPELINED_KPG: u64 = 24;

/// Is `cfg` the register-pipelined variant (`stages = 3`: the fragments of the next k16 step
/// load while the MMAs of the current one issue)?
pub fn pipelined(cfg: &KernelConfig) -> bool {
    cfg.stages == 3
}

/// The kernel's `__launch_bounds__` arguments: the block size, and for the pipelined variant
/// at least two CTAs per SM (so that ptxas keeps its registers at the occupancy of the
/// step-by-step kernel instead of taking up to 255: measured on the H200, session 22).
fn launch_bounds(cfg: &KernelConfig) -> &'static str {
    if pipelined(cfg) {
        "THREADS, 2"
    } else {
        "THREADS"
    }
}

/// Estimated time in seconds, the forward mma model's rates (`super::cost::mma_cost_estimate`):
/// per tile and k16 step every unit issues its A `ldmatrix.x4` per m16 block and its B ones
/// (one per two n8 blocks) at 512 bytes each, against shared memory at 2.2e13 B/s, the MMAs at
/// 3.3e14 FLOP/s (4096 per m16n8k16), the staged tiles at 8 TB/s from L2 and the compulsory
/// bytes at 3.5 TB/s from DRAM; the largest, × the wave quantisation, plus the partial planes
/// (written and read at 3.5 TB/s, 2 µs for the reduction launch) and 2 µs. Not fitted on
/// measurements.
pub fn cost_estimate(
    cfg: &KernelConfig,
    problem: &Problem,
    kp: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    device: &DeviceLimits,
) -> f64 {
    let es = problem.dtype.size_bytes() as f64;
    let (mblk, units, _, nb, _) = work(cfg, kp);
    let mb = (cfg.vec_a as u64).max(1).min(mblk) as f64;
    let (units, nb) = (units as f64, nb as f64);
    let ksteps = (cfg.tile_m / 16).max(1) as f64;
    // Every M slice stages the tiles of its channel block.
    let tiles = wgrad::tiles(problem, geo.th, geo.tw) as f64 * (geo.grid[1] * geo.grid[2]) as f64;
    let ldsm = units * ksteps * (mb + (nb / 2.0).ceil());
    let mmas = units * ksteps * mb * nb;
    let halo = (geo.halo[0] * geo.halo[1] * geo.halo[2] * geo.ct) as f64 * es;
    let dy = cfg.tile_m as f64 * cfg.tile_n as f64 * es;
    let t_smem = tiles * (ldsm * 512.0 + halo + dy) / 2.2e13;
    let t_mma = tiles * mmas * 4096.0 / 3.3e14;
    let t_l2 = tiles * (halo + dy) / 8e12;
    let t_dram = problem.min_bytes() / 3.5e12;
    let slabs = geo.grid[0] as f64;
    let ctas = slabs * (geo.grid[1] * geo.grid[2]) as f64;
    let wave = device.wave(geo.smem_bytes, cfg.threads(), registers) as f64;
    let q = ((ctas / wave).ceil() * wave / ctas).max(1.0);
    let t_partials = if geo.grid[0] > 1 {
        // The planes hold the real |dW| (the merged kernel stores only the diagonal).
        let dw = problem.elements(TensorRole::W) as f64;
        2.0 * slabs * dw * 4.0 / 3.5e12 + 2e-6
    } else {
        0.0
    };
    t_smem.max(t_mma).max(t_l2).max(t_dram) * q + t_partials + 2e-6
}

/// The module of a plan (`cfg` the resolved config: its `split_k` is P; `kp` the kernel's
/// problem, `problem` with `gm` groups merged): the constants (the merged group's `CG`/`KG`,
/// the real ones as `CG0`/`KG0`), the prelude, `common.cu` (tile walk and halo copy),
/// `mma_ptx.cu`, `wgrad_mma.cu` and the shared split reduction (`_reduce`, launched after the
/// main kernel when P > 1).
pub fn emit(
    cfg: &KernelConfig,
    problem: &Problem,
    kp: &Problem,
    geo: &DirectGeometry,
) -> KernelSource {
    let name = cfg.to_string();
    let slabs = geo.grid[0];
    let tiles_per_slab = wgrad::tiles(problem, geo.th, geo.tw).div_ceil(slabs.max(1));
    let dw = problem.elements(TensorRole::W);
    let (mblk, units, upw, nb, acc) = work(cfg, kp);
    let mut h = String::new();
    let w = &mut h;
    // Writing to a String cannot fail.
    let _ = writeln!(
        w,
        "// gconv direct backward-weight kernel (tensor cores): generated, do not edit"
    );
    let _ = writeln!(w, "// kernel:  {name}");
    let _ = writeln!(w, "// problem: {problem}");
    let _ = writeln!(
        w,
        "// tile {}x{} pixels x {} channels, halo {}x{}x{} x {} input channels; {} m16 blocks x {} n8 blocks per group, {} units, {} per warp ({} accumulators); {} slabs of {} tiles, smem {} B",
        geo.th,
        geo.tw,
        cfg.tile_n,
        geo.halo[0],
        geo.halo[1],
        geo.halo[2],
        geo.ct,
        mblk,
        nb,
        units,
        upw,
        acc,
        slabs,
        tiles_per_slab,
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
    let ints: [(&str, u64); 28] = [
        ("G_", kp.g),
        ("CG", kp.cpg()),
        ("KG", kp.kpg()),
        ("GM", (cfg.group_merge as u64).max(1)),
        ("CG0", problem.cpg()),
        ("KG0", problem.kpg()),
        ("TH", geo.th),
        ("TW", geo.tw),
        ("BN", cfg.tile_n as u64),
        ("MB", (cfg.vec_a as u64).max(1)),
        ("MSLICES", geo.grid[2]),
        ("THREADS", cfg.threads() as u64),
        ("VL", geo.vl),
        ("VLD", geo.sv),
        ("CTS", geo.cts),
        ("XSPLIT", halo_split(true, problem.stride[2])),
        ("XROW", geo.xrow),
        ("XS_BYTES", geo.xs_bytes),
        ("DYROW", dy_row(cfg)),
        ("DYS_BYTES", dy_stage_bytes(cfg, problem)),
        ("WS_BYTES", geo.ws_bytes),
        ("RAW_BYTES", geo.raw_bytes),
        ("SMEM_BYTES", geo.smem_bytes),
        ("GRID_X", slabs),
        ("STAGES", 2),
        ("FRAG_PIPE", u64::from(pipelined(cfg))),
        ("SLABS", slabs),
        ("SV", geo.sv),
    ];
    for (k, v) in problem_constants(problem).into_iter().chain(ints) {
        let _ = writeln!(w, "constexpr int {k} = {v};");
    }
    let _ = writeln!(w, "constexpr int TILES_PER_SLAB = {tiles_per_slab};");
    let _ = writeln!(w, "constexpr long long RED_PLANE = {dw};");
    let _ = writeln!(w, "constexpr int RED_SPLIT = {slabs};");
    let code = format!(
        "{h}\n{}\n{}\n{}\n{}\n{}",
        crate::PRELUDE,
        COMMON,
        crate::MMA_PTX,
        BODY,
        crate::SPLIT_REDUCE
    )
    .replace("@ENTRY@", &name)
    .replace("@BOUNDS@", launch_bounds(cfg));
    wgrad::slab_source(name, code, geo, cfg.threads(), dw, 1)
}
