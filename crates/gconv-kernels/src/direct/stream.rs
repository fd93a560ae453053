//! Backward weight (wgrad) of depthwise layers (C/G = K/G = 1) on the register-streaming kernel
//! (`wgrad_stream.cu`): no shared-memory staging in the main loop. What it owns: which configs
//! and problems take it ([`applies`]), the thread mapping ([`thread_mapping`]), the work units
//! ([`units`]), the slab rule ([`slab_count`]), its geometry ([`geometry`]), register estimate
//! ([`register_estimate`]) and module ([`emit`]). Its rules live in `super::rules`
//! (`validate_stream`, `check_stream`), its cost in `super::cost::stream_cost_estimate`.
//!
//! A thread is a (channel lane, tap-row group, work slot) triple: `VEC` adjacent channels
//! (adjacent lanes on adjacent channel vectors, so a warp's reads of one pixel are contiguous),
//! `RG` consecutive tap rows `(tz, ty)` of the `FZ·FY` (the last group may be short), and a
//! slot. A work unit is one output row strip: `(n, od, oh)` and `TW` output columns; the
//! `U = N·Do·Ho·⌈Wo/TW⌉` units are cut into P slabs of `⌈U/P⌉` consecutive units (grid x), the
//! channels into blocks of `BN` (grid y), and slot `s` of a CTA walks the units `first + s,
//! first + s + SLOTS, …` of its slab. Per unit the thread reads the dY strip straight from
//! global memory (`VEC·esize`-byte loads, widened to f32 once, zero past `Wo`), and per tap row
//! whose X row exists (rows that only see padding are skipped: no loads, no FMAs) the
//! `(TW−1)·SW + (FX−1)·DW + 1` columns of the X row segment, each read and widened once and
//! applied to every `(ow, tx)` it feeds: `acc[row][tx][v] += dY[ow][v]·X[ow·SW + tx·DW][v]`.
//! L1 and L2 absorb the re-reads of X across the tap rows and strips. At the end the slots of a
//! (lane, group) are summed in a fixed order through shared memory (the only shared memory:
//! `SLOTS × BN × taps` f32), and the CTA stores its rows of one f32 partial plane (workspace
//! plane = slab) or, with P = 1, dW itself; the shared deterministic `_reduce` launch
//! (`crate::SPLIT_REDUCE`) sums the P planes in order. No atomics: dW is bit-identical across
//! runs. With the cluster split (`sk{P}c`, 2 ≤ P ≤ [`MAX_CLUSTER_SLABS`]) the P slab CTAs of a
//! channel block are one thread-block cluster (`__cluster_dims__(P, 1, 1)`): each keeps its
//! sums in its shared memory, and after a cluster barrier CTA r sums every P-th share of the
//! block's elements over the P CTAs' shared memory in rank order (`ld_cluster_f32`) and stores
//! dW; a second barrier keeps the memory alive until all have read it. One launch, no
//! workspace, still bit-identical runs.
//!
//! Fields (`stages = 1` selects this kernel; the slab kernel of `super::wgrad` has 2):
//!
//! | field | streaming meaning |
//! |---|---|
//! | `tile_k` | `TW`, output columns of a unit (1..=[`MAX_STRIP`]) |
//! | `tile_m` | `TW` as well (a unit is one output row: `TH = 1`) |
//! | `tile_n` | `BN`, channels per CTA (a multiple of `VEC`, ≤ 256) |
//! | `vec_a` | `VEC`, adjacent channels per thread (1, 2 or 4: 4/8-byte 16-bit reads, 4/8/16-byte f32 reads) |
//! | `vec_b` | `RG`, tap rows per group (1..=[`MAX_ROWS_PER_GROUP`]) |
//! | `warps_m` | warps per CTA (threads = 32·warps); `warps_n` = 1 |
//! | `split_k` | P (0: [`slab_count`]; fixed: 1..=[`MAX_STREAM_SLABS`]); the resolved config names what ran; mode `d`, or `c` (cluster) with P fixed in 2..=[`MAX_CLUSTER_SLABS`] |
//!
//! `math = simt`, `gm1`, `gen`. Example:
//! `direct_wgrad_bf16_t8x64x8_w8x1_s1_v2x3_gm1_sk0d_simt_gen` = 64 channels per CTA in 32
//! lanes of 2, strips of 8 columns, 3 tap rows per group (a 3×3 in one group, 8 slots).

use super::fragments::{problem_constants, ELEM};
use super::shape::DirectGeometry;
use super::wgrad::traffic_cap;
use crate::config::{KernelConfig, Math, SplitKMode};
use crate::device::DeviceLimits;
use crate::shared::largest_pow2_dividing;
use crate::source::KernelSource;
use gconv_problem::{DType, Direction, Problem, TensorRole};
use std::fmt::Write;

/// The streaming kernel body (after `elem.cu`).
const BODY: &str = include_str!("wgrad_stream.cu");

/// Largest `TW` (`tile_k`) of a streaming config.
pub const MAX_STRIP: u32 = 32;

/// Most slabs of a cluster split (`sk{n}c`): the largest thread-block cluster of sm_90 (above
/// the portable 8, with the non-portable opt-in the CUDA backend sets at load).
pub const MAX_CLUSTER_SLABS: u64 = crate::device::DeviceLimits::MAX_CLUSTER as u64;

/// Largest `RG` (`vec_b`, tap rows per group) of a streaming config.
pub const MAX_ROWS_PER_GROUP: u32 = 16;

/// Largest accumulator count per thread (`min(RG, FZ·FY) · FX · VEC` f32 values): a 3×3 in
/// one group on 8-channel lanes.
pub const MAX_ACCUMULATORS: u64 = 72;

/// Largest slab count of the streaming kernel: its partial planes are |dW| = C·taps, tiny, so
/// it takes more slabs than the shared [`crate::shared::MAX_SPLIT`]; the deterministic reduction
/// sums them in a fixed order with up to 32 threads per element
/// ([`crate::shared::reduce_slices`]; priced by the cost model).
pub const MAX_STREAM_SLABS: u64 = 256;

/// Waves of CTAs the slab rule aims for.
pub const TARGET_WAVES: u64 = 2;

/// Registers a thread may spend on the raw X words of a tap-row group read ahead together
/// (`RG · SPAN · VEC·esize/4`); a group whose row segments need more reads one row at a time.
pub const HOIST_WORDS: u64 = 32;

/// True when `cfg` on `problem` is the streaming kernel: a backward-weight problem, `stages = 1`
/// and CUDA cores (`math = mma` with `stages = 1` is `super::banded`).
pub fn applies(cfg: &KernelConfig, problem: &Problem) -> bool {
    problem.direction == Direction::Wgrad && cfg.stages == 1 && cfg.math != Math::Mma
}

/// Tap rows of the group (`RG` clamped to `FZ·FY`), tap-row groups (`RGS`), channel lanes and
/// work slots (0 when lanes × groups exceed the threads) of `cfg` on `problem`.
pub fn thread_mapping(cfg: &KernelConfig, problem: &Problem) -> (u64, u64, u64, u64) {
    let rows = problem.filter[0] * problem.filter[1];
    let rg = (cfg.vec_b.max(1) as u64).min(rows);
    let rgs = rows.div_ceil(cfg.vec_b.max(1) as u64);
    let lanes = (cfg.tile_n / cfg.vec_a.max(1)).max(1) as u64;
    (rg, rgs, lanes, cfg.threads() as u64 / (lanes * rgs))
}

/// Work units: output row strips of `tw` columns, `N·Do·Ho·⌈Wo/tw⌉`.
pub fn units(problem: &Problem, tw: u64) -> u64 {
    let out = problem.output();
    problem.n * out[0] * out[1] * out[2].div_ceil(tw.max(1))
}

/// The slab count P of a config on a problem: `split_k` when fixed, else the rule:
///
/// 1. **size**: `⌈TARGET_WAVES · wave / channel_blocks⌉` slabs, so that the whole grid
///    (`channel_blocks × P` CTAs) fills [`TARGET_WAVES`] waves of the device;
/// 2. **clamp**: to the units, to [`MAX_STREAM_SLABS`] and to the partial-traffic cap
///    ([`traffic_cap`]: the planes add at most 10 % to the compulsory X + dY bytes), except
///    that the cap never goes below one full wave (`⌊wave / channel_blocks⌋` slabs): on large
///    filters over few pixels the kernel is bound by idle SMs long before the planes' bytes
///    matter;
/// 3. **snap**: down to `⌈U / ⌈U / P⌉⌉`, the fewest slabs with the same units per slab (no
///    slab empty or short by more than one unit), as `crate::shared::split_degree` snaps.
///
/// `split_degree` itself is not used: it clamps to the shared `MAX_SPLIT` (64), which leaves
/// most of the device idle on depthwise layers of a few channel blocks.
pub fn slab_count(
    cfg: &KernelConfig,
    problem: &Problem,
    channel_blocks: u64,
    wave: u64,
    units: u64,
) -> u64 {
    if cfg.split_k > 0 {
        return cfg.split_k as u64;
    }
    let units = units.max(1);
    let blocks = channel_blocks.max(1);
    let sized = (TARGET_WAVES * wave).div_ceil(blocks).max(1);
    // The traffic cap never leaves the device less than one full wave: below it the kernel is
    // bound by idle SMs, not by bytes (a 7×7 layer of 28² pixels capped at 25 slabs ran 150
    // CTAs on 132 SMs at 14 % occupancy).
    let one_wave = (wave / blocks).max(1);
    let capped = traffic_cap(problem).max(one_wave);
    let clamped = sized.min(units).min(MAX_STREAM_SLABS).min(capped).max(1);
    units.div_ceil(units.div_ceil(clamped))
}

/// Channels per read (`LV`): the largest power of two ≤ `VEC` dividing C and at most 16 bytes
/// (reads of `LV` channels stay aligned, never straddle a pixel and are at most one 16-byte
/// load; an f32 lane of 8 channels is two reads).
pub fn read_width(cfg: &KernelConfig, problem: &Problem) -> u64 {
    let max = 16 / problem.dtype.size_bytes();
    largest_pow2_dividing(problem.c, (cfg.vec_a.max(1) as u64).min(max))
}

/// The geometry of `cfg` on a depthwise wgrad `problem`: `th = 1`, `tw = TW`, the X row segment
/// of a strip (`halo = [FZ, FY, SPAN]`), the read width (`vl`), the slot reduction area (the
/// only shared memory, `SLOTS × BN × taps × 4` bytes) and the grid `[P, ⌈C/BN⌉, 1]`.
pub fn geometry(cfg: &KernelConfig, problem: &Problem, device: &DeviceLimits) -> DirectGeometry {
    let tw = cfg.tile_k.max(1) as u64;
    let bn = cfg.tile_n.max(1) as u64;
    let span = (tw - 1) * problem.stride[2] + (problem.filter[2] - 1) * problem.dilation[2] + 1;
    let (_, _, _, slots) = thread_mapping(cfg, problem);
    let red_bytes = (slots.max(1) * bn * problem.filter_volume() * 4).div_ceil(16) * 16;
    let channel_blocks = problem.k.div_ceil(bn);
    let wave = device.wave(red_bytes, cfg.threads(), register_estimate(cfg, problem));
    let slabs = slab_count(cfg, problem, channel_blocks, wave, units(problem, tw));
    DirectGeometry {
        th: 1,
        tw,
        ct: bn,
        cts: bn,
        wrow: problem.filter_volume(),
        halo: [problem.filter[0], problem.filter[1], span],
        xrow: span * bn,
        vl: read_width(cfg, problem),
        sv: 1,
        xs_bytes: 0,
        ws_bytes: red_bytes,
        raw_bytes: 0,
        smem_bytes: red_bytes,
        grid: [slabs, channel_blocks, 1],
        min_ctas: 1,
    }
}

/// Estimated registers per thread: `1.5 ×` the `min(RG, FZ·FY)·FX·VEC` accumulators (the
/// unrolled column loop keeps X columns and addresses live), the `TW·VEC` dY strip and a fixed
/// allowance of 28. Fitted by hand on NVRTC 13.0 (`ptxas -v`) over the 156 modules of the
/// streaming members on the zoo depthwise layers (no spills): 3×3 `v2x3` TW 8 reports 48–64
/// (estimate 71), 7×7 `v2x4` 100–124 (124), 5×5 `v2x5` 87–97 (119), 31×31 `v2x1` 100 (137),
/// f32 7×7 `v2x4` 128 (128), `v4x3` 3×3 80–108 (114).
pub fn register_estimate(cfg: &KernelConfig, problem: &Problem) -> u32 {
    let (rg, _, _, _) = thread_mapping(cfg, problem);
    let vec = cfg.vec_a as u64;
    let acc = rg * problem.filter[2] * vec;
    let est = acc + acc / 2 + cfg.tile_k as u64 * vec + 28;
    est.min(u32::MAX as u64) as u32
}

/// The module of a streaming plan (`cfg` the resolved config: its `split_k` is P): the
/// constants, the prelude, `elem.cu` (element type, conversions, vector loads),
/// `wgrad_stream.cu` and the shared split reduction (`_reduce`, launched after the main kernel
/// when P > 1).
pub fn emit(cfg: &KernelConfig, problem: &Problem, geo: &DirectGeometry) -> KernelSource {
    let name = cfg.to_string();
    let slabs = geo.grid[0];
    let u = units(problem, geo.tw);
    let per_slab = u.div_ceil(slabs.max(1));
    let dw = problem.elements(TensorRole::W);
    let (rg, rgs, lanes, slots) = thread_mapping(cfg, problem);
    let mut h = String::new();
    let w = &mut h;
    // Writing to a String cannot fail.
    let _ = writeln!(
        w,
        "// gconv direct backward-weight kernel (depthwise, register streaming): generated, do not edit"
    );
    let _ = writeln!(w, "// kernel:  {name}");
    let _ = writeln!(w, "// problem: {problem}");
    let _ = writeln!(
        w,
        "// {} channels x {} lanes of {}, {} tap-row groups of {} rows, {} slots, strips of {} columns ({} read); {} slabs of {} units, smem {} B",
        cfg.tile_n,
        lanes,
        cfg.vec_a,
        rgs,
        rg,
        slots,
        geo.tw,
        geo.halo[2],
        slabs,
        per_slab,
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
    // `sk{n}c`: the slabs of a channel block are one cluster and reduce through its shared
    // memory (no workspace, no `_reduce` launch).
    let cluster = cfg.split_k_mode == SplitKMode::Cluster && slabs > 1;
    let _ = writeln!(
        w,
        "#define GCONV_SPLIT_REDUCE {}",
        u8::from(slabs > 1 && !cluster)
    );
    let cluster_size = if cluster { slabs as u32 } else { 1 };
    w.push_str(&crate::split_cluster_define(cluster_size));
    if !cluster {
        w.push_str(&crate::split_reduce_define(slabs, dw));
    }
    let _ = writeln!(w, "#define GCONV_SPLIT_ATOMIC 0");
    let min_ctas = crate::device::DeviceLimits::H200.ctas_per_sm(
        geo.smem_bytes,
        cfg.threads(),
        register_estimate(cfg, problem),
    );
    let ints: [(&str, u64); 13] = [
        ("G_", problem.g),
        ("CG", problem.cpg()),
        ("KG", problem.kpg()),
        ("TW", geo.tw),
        ("BN", cfg.tile_n as u64),
        ("VEC", cfg.vec_a as u64),
        ("RG", rg),
        ("LV", geo.vl),
        ("THREADS", cfg.threads() as u64),
        ("SMEM_BYTES", geo.smem_bytes),
        ("SLABS", slabs),
        ("HOIST_WORDS", HOIST_WORDS),
        ("MIN_CTAS", min_ctas),
    ];
    for (k, v) in problem_constants(problem).into_iter().chain(ints) {
        let _ = writeln!(w, "constexpr int {k} = {v};");
    }
    let _ = writeln!(w, "constexpr int UNITS_PER_SLAB = {per_slab};");
    let _ = writeln!(w, "constexpr long long RED_PLANE = {dw};");
    let _ = writeln!(w, "constexpr int RED_SPLIT = {slabs};");
    let code = format!(
        "{h}\n{}\n{}\n{}\n{}",
        crate::PRELUDE,
        ELEM,
        BODY,
        crate::SPLIT_REDUCE
    )
    .replace("@ENTRY@", &name);
    // A cluster sums the slabs' partials itself: one launch, no workspace.
    super::wgrad::slab_source(name, code, geo, cfg.threads(), dw, cluster_size)
}
