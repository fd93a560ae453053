//! Backward weight (wgrad) on CUDA cores: the direct family's slab kernel (`wgrad.cu`) for
//! depthwise, channel-multiplier and C/G, K/G ≤ [`super::MAX_DIRECT_CPG`] layers, and what it
//! owns: which problems take it ([`applies`]), the slab count ([`slab_count`], the `split_k`
//! rule), its geometry ([`geometry`]), register estimate ([`register_estimate`]) and module
//! ([`emit`]). Its rules live in `super::rules`, its cost in `super::cost::wgrad_cost_estimate`.
//!
//! `dW[g][kk][tap][c] = Σ_{n, o} dY[n, o, g, kk] · X[n, o·s − p + tap·d, g, c]`. A CTA owns a
//! channel vector (`BN = tile_n` output channels, whole groups, and their `CT` input channels;
//! grid y) and a slab (grid x) of `⌈T / P⌉` consecutive output tiles of the forward tile walk
//! (`common.cu`'s `tile_at`: `TH × TW` pixels of one (n, od); T tiles in all). Per tile it stages
//! the X halo (`common.cu`'s `load_halo`, zero-filled padding) and the dY tile (zero-filled
//! tails), double-buffered with `cp.async`. A thread is a (channel lane, tap group, pixel group)
//! triple: `VEC = vec_a` adjacent output channels × `TPT = vec_b` consecutive taps (× C/G
//! input channels) of f32 accumulators in registers, over the pixels `pg, pg + PGS, …` of every
//! tile; `TGS = ⌈taps / TPT⌉` tap groups split large filters across warps, and a tap that reads
//! only padding for the whole tile is skipped. At the end of its slab the CTA sums its `PGS`
//! pixel groups in a fixed order through shared memory and stores one f32 partial plane row
//! block (workspace plane = slab); the shared deterministic reduction (`crate::SPLIT_REDUCE`,
//! `_reduce`, a second launch over |dW|) sums the P planes in slab order and converts. With
//! P = 1 the kernel writes dW (converted) itself: one launch, no workspace. No atomics: dW is
//! bit-identical across runs.
//!
//! Depthwise layers also run on the register-streaming kernel of [`super::stream`] (configs
//! with `stages = 1`); `super::geometry`, `super::emit`, `super::cost` and `super::rules`
//! dispatch between the two.
//!
//! Fields: `tile_m`/`tile_k` the tile (pixels, width), `tile_n` = BN, `warps_m` warps, `vec_a`
//! = VEC (a power of two ≤ 8), `vec_b` = TPT (1..=[`MAX_TAPS_PER_THREAD`]), `stages` = 2
//! (always double-buffered; 1 selects the streaming kernel), `split_k` = P (0: [`slab_count`]; the resolved config names what
//! ran), mode `d`, `math = simt`, `gm1`, `gen`.

use super::fragments::{problem_constants, COMMON};
use super::shape::{DirectGeometry, W_REG_BUDGET};
use super::view::DirectView;
use crate::config::KernelConfig;
use crate::device::DeviceLimits;
use crate::shared::{largest_pow2_dividing, split_degree};
use crate::source::{Arch, KernelSource, Launch};
use gconv_problem::{DType, Direction, Problem, TensorRole};
use std::fmt::Write;

/// The wgrad kernel body (after `common.cu`).
const BODY: &str = include_str!("wgrad.cu");

/// Largest `vec_b` (taps per thread) of a wgrad config.
pub const MAX_TAPS_PER_THREAD: u32 = 32;

/// Largest share of the compulsory X + dY traffic the partial planes may add (write + read).
pub const PARTIAL_TRAFFIC_SHARE: f64 = 0.10;

/// True when `problem` runs on the wgrad kernel (every direct backward-weight problem).
pub fn applies(problem: &Problem) -> bool {
    problem.direction == Direction::Wgrad
}

/// Output tiles of the walk (`TH × TW` pixels of one (n, od)), the slab kernel's reduction
/// units.
pub fn tiles(problem: &Problem, th: u64, tw: u64) -> u64 {
    let out = problem.output();
    out[2].div_ceil(tw.max(1)) * out[1].div_ceil(th.max(1)) * out[0] * problem.n
}

/// The most slabs whose partial planes (written once, read once: `2·P·|dW|·4` bytes) stay
/// within [`PARTIAL_TRAFFIC_SHARE`] of the compulsory X + dY bytes, at least 1. Roughly
/// `P ≤ 0.05·N·Ho·Wo / taps` for depthwise bf16 (|X| ≈ |dY|).
pub fn traffic_cap(problem: &Problem) -> u64 {
    let es = problem.dtype.size_bytes() as f64;
    let compulsory =
        (problem.elements(TensorRole::X) + problem.elements(TensorRole::Y)) as f64 * es;
    let per_slab = 2.0 * problem.elements(TensorRole::W) as f64 * 4.0;
    ((PARTIAL_TRAFFIC_SHARE * compulsory / per_slab).floor() as u64).max(1)
}

/// The slab count P of a config on a problem: `split_k` when fixed, else the rule — the
/// groups-aware split-K degree ([`split_degree`]) of a grid of `channel_blocks` CTAs per slab
/// on a wave of `wave` CTAs over `tiles` reduction units (sized, clamped to the tiles and
/// [`crate::shared::MAX_SPLIT`], snapped so that no slab is short by more than one tile),
/// capped by [`traffic_cap`] (the cap snapped the same way, so the result is still snapped).
pub fn slab_count(
    cfg: &KernelConfig,
    problem: &Problem,
    channel_blocks: u64,
    wave: u64,
    tiles: u64,
) -> u64 {
    if cfg.split_k > 0 {
        return cfg.split_k as u64;
    }
    let by_grid = split_degree(channel_blocks, wave, tiles, 1);
    let by_traffic = split_degree(1, traffic_cap(problem), tiles, 1);
    by_grid.min(by_traffic) as u64
}

/// Taps per thread (`TPT`), tap groups (`TGS`) and pixel groups (`PGS`, 0 when channel lanes ×
/// tap groups exceed the threads) of `cfg` on `problem`.
pub fn thread_mapping(cfg: &KernelConfig, problem: &Problem) -> (u64, u64, u64) {
    let tpt = cfg.vec_b.max(1) as u64;
    let tgs = problem.filter_volume().div_ceil(tpt);
    let lanes = (cfg.tile_n / cfg.vec_a.max(1)).max(1) as u64;
    (tpt, tgs, cfg.threads() as u64 / (lanes * tgs))
}

/// The tile of a slab-walk config on `problem` (this kernel's and `super::wgrad_mma`'s): the
/// tile (`TH × TW` pixels), its output and input channels, the X halo it stages and the copy
/// widths of the halo (`vl`, ≤ 16 bytes dividing C and CT) and of the dY tile (`sv`).
pub struct SlabTile {
    /// Tile rows.
    pub th: u64,
    /// Tile columns.
    pub tw: u64,
    /// Output channels per CTA (`tile_n`, whole groups).
    pub bn: u64,
    /// Their input channels.
    pub ct: u64,
    /// Staged depth slices, halo rows and halo columns.
    pub halo: [u64; 3],
    /// Elements per halo copy.
    pub vl: u64,
    /// Elements per dY copy.
    pub sv: u64,
}

/// The [`SlabTile`] of `cfg` on `problem`.
pub fn slab_tile(cfg: &KernelConfig, problem: &Problem) -> SlabTile {
    let view = DirectView::of(cfg);
    let tw = view.tile_width.max(1) as u64;
    let th = (view.tile_pixels as u64 / tw).max(1);
    let bn = view.tile_channels.max(1) as u64;
    let ct = (bn / problem.kpg().max(1)).max(1) * problem.cpg();
    let halo = [
        problem.filter[0],
        (th - 1) * problem.stride[1] + (problem.filter[1] - 1) * problem.dilation[1] + 1,
        (tw - 1) * problem.stride[2] + (problem.filter[2] - 1) * problem.dilation[2] + 1,
    ];
    let vmax = 16 / problem.dtype.size_bytes();
    let vl = largest_pow2_dividing(problem.c, vmax.min(largest_pow2_dividing(ct, vmax)));
    let sv = largest_pow2_dividing(problem.k, vmax.min(largest_pow2_dividing(bn, vmax)));
    SlabTile {
        th,
        tw,
        bn,
        ct,
        halo,
        vl,
        sv,
    }
}

/// Bytes of one dY stage: `TH·TW·BN` elements rounded up to 16.
fn dy_stage_bytes(cfg: &KernelConfig, problem: &Problem) -> u64 {
    (cfg.tile_m as u64 * cfg.tile_n as u64 * problem.dtype.size_bytes()).div_ceil(16) * 16
}

/// The geometry of `cfg` on a wgrad `problem`: the tile, the X halo, copy widths, shared memory
/// (two halo stages, then two dY stages, or the pixel-group reduction area when larger: the
/// `WS_BYTES` of the module), and the grid `[P, ⌈K/BN⌉, 1]` with P from [`slab_count`].
pub fn geometry(cfg: &KernelConfig, problem: &Problem, device: &DeviceLimits) -> DirectGeometry {
    let es = problem.dtype.size_bytes();
    let SlabTile {
        th,
        tw,
        bn,
        ct,
        halo,
        vl,
        sv,
    } = slab_tile(cfg, problem);
    let xrow = halo[2] * ct;
    let xs_bytes = (halo[0] * halo[1] * xrow * es).div_ceil(16) * 16;
    let (_, _, pgs) = thread_mapping(cfg, problem);
    let red_bytes = pgs.max(1) * bn * problem.filter_volume() * problem.cpg() * 4;
    let ws_bytes = (2 * dy_stage_bytes(cfg, problem))
        .max(red_bytes.saturating_sub(2 * xs_bytes).div_ceil(16) * 16);
    let smem_bytes = 2 * xs_bytes + ws_bytes;
    let channel_blocks = problem.k.div_ceil(bn);
    let wave = device.wave(smem_bytes, cfg.threads(), register_estimate(cfg, problem));
    let slabs = slab_count(cfg, problem, channel_blocks, wave, tiles(problem, th, tw));
    DirectGeometry {
        th,
        tw,
        ct,
        cts: ct,
        wrow: problem.filter_volume() * problem.cpg(),
        halo,
        xrow,
        vl,
        sv,
        xs_bytes,
        ws_bytes,
        raw_bytes: 0,
        smem_bytes,
        grid: [slabs, channel_blocks, 1],
        min_ctas: 1,
    }
}

/// Estimated registers per thread: the `TPT × VEC × C/G` accumulators and half as many again
/// (the unrolled taps keep their addresses and operands live), one dY and one X value per
/// channel, and a fixed allowance of 48. NVRTC 13.0 (ptxas -v) reports 128–170 registers for
/// 72 accumulators (`v8x9`), 128 for 28 (`v4x7`) and 64–128 for 18 (`v2x9`) on the bf16 zoo
/// layers; the estimate (172, 98, 79) is rough.
pub fn register_estimate(cfg: &KernelConfig, problem: &Problem) -> u32 {
    let (vec, tpt) = (cfg.vec_a as u64, cfg.vec_b as u64);
    let acc = tpt * vec * problem.cpg();
    let est = acc + acc / 2 + 2 * vec + 48;
    est.min(u32::MAX as u64) as u32
}

/// The module of a wgrad plan (`cfg` the resolved config: its `split_k` is P): the shared
/// constants (`common.cu`'s tile walk and halo copy, with `STAGES` 2 and `GRID_X` = P), the
/// wgrad constants, `wgrad.cu`, and the shared split reduction (`_reduce`, launched after the
/// main kernel when P > 1).
pub fn emit(cfg: &KernelConfig, problem: &Problem, geo: &DirectGeometry) -> KernelSource {
    let name = cfg.to_string();
    let view = DirectView::of(cfg);
    let slabs = geo.grid[0];
    let th_tw = tiles(problem, geo.th, geo.tw);
    let tiles_per_slab = th_tw.div_ceil(slabs.max(1));
    let dw = problem.elements(TensorRole::W);
    let mut h = String::new();
    let w = &mut h;
    // Writing to a String cannot fail.
    let _ = writeln!(
        w,
        "// gconv direct backward-weight kernel: generated, do not edit"
    );
    let _ = writeln!(w, "// kernel:  {name}");
    let _ = writeln!(w, "// problem: {problem}");
    let _ = writeln!(
        w,
        "// tile {}x{} pixels x {} channels, halo {}x{}x{} x {} input channels, {} slabs of {} tiles, smem {} B",
        geo.th,
        geo.tw,
        view.tile_channels,
        geo.halo[0],
        geo.halo[1],
        geo.halo[2],
        geo.ct,
        slabs,
        tiles_per_slab,
        geo.smem_bytes
    );
    let _ = writeln!(
        w,
        "#define ELEM {}",
        if problem.dtype == DType::F32 {
            "float"
        } else {
            "unsigned short"
        }
    );
    let _ = writeln!(
        w,
        "constexpr bool IS_BF16 = {};",
        problem.dtype == DType::Bf16
    );
    let _ = writeln!(w, "#define GCONV_SPLIT_REDUCE {}", u8::from(slabs > 1));
    w.push_str(&crate::split_reduce_define(slabs, dw));
    let _ = writeln!(w, "#define GCONV_SPLIT_ATOMIC 0");
    let ints: [(&str, u64); 25] = [
        ("G_", problem.g),
        ("CG", problem.cpg()),
        ("KG", problem.kpg()),
        ("TH", geo.th),
        ("TW", geo.tw),
        ("BN", view.tile_channels as u64),
        ("VEC", cfg.vec_a as u64),
        ("PX", cfg.vec_b as u64),
        ("TPT", cfg.vec_b as u64),
        ("THREADS", cfg.threads() as u64),
        ("VL", geo.vl),
        ("VLD", geo.sv),
        ("SV", geo.sv),
        ("CTS", geo.cts),
        ("XSPLIT", 1),
        ("XROW", geo.xrow),
        ("XS_BYTES", geo.xs_bytes),
        ("DYS_BYTES", dy_stage_bytes(cfg, problem)),
        ("WS_BYTES", geo.ws_bytes),
        ("RAW_BYTES", geo.raw_bytes),
        ("SMEM_BYTES", geo.smem_bytes),
        ("GRID_X", slabs),
        ("W_REG_BUDGET", W_REG_BUDGET),
        ("STAGES", 2),
        ("SLABS", slabs),
    ];
    for (k, v) in problem_constants(problem).into_iter().chain(ints) {
        let _ = writeln!(w, "constexpr int {k} = {v};");
    }
    let _ = writeln!(w, "constexpr int TILES_PER_SLAB = {tiles_per_slab};");
    let _ = writeln!(w, "constexpr long long RED_PLANE = {dw};");
    let _ = writeln!(w, "constexpr int RED_SPLIT = {slabs};");
    let code = format!(
        "{h}\n{}\n{}\n{}\n{}",
        crate::PRELUDE,
        COMMON,
        BODY,
        crate::SPLIT_REDUCE
    )
    .replace("@ENTRY@", &name);
    slab_source(name, code, geo, cfg.threads(), dw, 1)
}

/// The module of a slab-walk kernel (this one, `super::stream`'s, `super::wgrad_mma`'s,
/// `super::banded`'s): the main launch on the plan's grid and, with P > 1 slabs
/// (`geo.grid[0]`), the shared deterministic reduction `{name}_reduce` over the `dw` elements
/// of dW, which sums the P f32 planes of the workspace (`P·|dW|·4` bytes) — unless the slabs
/// are one thread-block cluster (`cluster` > 1, the streaming kernel's cluster split: the
/// main launch's `Launch::cluster`), which sums them itself.
pub fn slab_source(
    name: String,
    code: String,
    geo: &DirectGeometry,
    threads: u32,
    dw: u64,
    cluster: u32,
) -> KernelSource {
    let slabs = if cluster > 1 { 1 } else { geo.grid[0] };
    let mut launches = vec![Launch {
        entry: name.clone(),
        grid: [geo.grid[0] as u32, geo.grid[1] as u32, geo.grid[2] as u32],
        block: [threads, 1, 1],
        dynamic_smem_bytes: geo.smem_bytes as u32,
        overlaps_previous: false,
        cluster: cluster.max(1),
        tensor_maps: Vec::new(),
    }];
    let mut workspace_bytes = 0;
    if slabs > 1 {
        workspace_bytes = slabs * dw * 4;
        launches.push(crate::split_reduce_launch(&name, slabs, dw));
    }
    KernelSource {
        kernel_name: name,
        code,
        arch: Arch::Sm90,
        launches,
        workspace_bytes,
    }
}
