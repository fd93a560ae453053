//! The direct family's cost model (CUDA-core path here, the tensor-core path's in
//! `super::mma`): estimated time of a [`DirectPlan`] on a device, which `auto` minimises over
//! the pool. The backward-weight slab kernel's model is [`wgrad_cost_estimate`], the streaming
//! depthwise kernel's [`stream_cost_estimate`].

use super::banded;
use super::fwd_banded;
use super::geometry::{
    group_vector_path, rows_per_thread, weights_in_registers, DirectGeometry, DirectPlan,
};
use super::mma;
use super::stream;
use super::strided;
use super::wgrad;
use super::wgrad_mma;
use crate::config::{KernelConfig, Math};
use crate::device::DeviceLimits;
use gconv_problem::Problem;

/// Estimated instructions one thread issues for one output tile of `cfg` on `problem`: the
/// shared-memory reads of the window (and their 16-bit unpacking), the FMAs, the halo copies
/// (about 25 instructions each, address arithmetic included), the weight staging and the stores.
pub fn thread_instructions(cfg: &KernelConfig, problem: &Problem, geo: &DirectGeometry) -> f64 {
    let (vec, px, py) = (
        cfg.vec_a as f64,
        cfg.vec_b as f64,
        rows_per_thread(cfg) as f64,
    );
    let [fz, fy, fx] = problem.filter.map(|v| v as f64);
    let (sh, sw) = (problem.stride[1] as f64, problem.stride[2] as f64);
    let (dh, dw) = (problem.dilation[1] as f64, problem.dilation[2] as f64);
    let span = (px - 1.0) * sw + (fx - 1.0) * dw + 1.0;
    let rin = (py - 1.0) * sh + (fy - 1.0) * dh + 1.0;
    let cpg = problem.cpg() as f64;
    let unpack = if problem.dtype.size_bytes() == 2 {
        1.0
    } else {
        0.0
    };
    let fmas = py * px * vec * fz * fy * fx * cpg;
    let window = if weights_in_registers(cfg, problem) {
        fz * rin * span * (1.0 + vec * unpack)
    } else if problem.cpg() == 1 && problem.kpg() == 1 {
        fz * fy * py * span * (1.0 + vec * unpack)
    } else if group_vector_path(cfg, problem) {
        fz * fy * py * span * (1.0 + cpg * unpack)
    } else {
        2.0 * fmas
    };
    let threads = cfg.threads().max(1) as f64;
    let chunks = (geo.halo[0] * geo.halo[1] * geo.halo[2] * (geo.ct / geo.vl.max(1))) as f64;
    let halo = (chunks / threads).ceil() * 25.0;
    let weights = ((problem.filter_volume() * problem.cpg()) as f64 * cfg.tile_n as f64 / threads)
        .ceil()
        * 12.0;
    let stores = py * px * (vec / geo.sv.max(1) as f64) * 8.0;
    window + fmas + halo + weights + stores
}

/// Estimated time in seconds of a direct plan on `device`, the rule behind the direct part of
/// `auto` ([`crate::select`]):
///
/// `max(t_issue, t_dram, t_l2) · q · penalty + 2 µs`, where
/// - `t_issue` = [`thread_instructions`] × threads × output tiles at 2.4e13 thread-instructions
///   per second (132 SMs × 4 schedulers × 32 lanes at about 70 % of 1.98 GHz);
/// - `t_dram` = the compulsory bytes at 3.5 TB/s; `t_l2` = every tile's staged halo and output
///   tile (partial tiles included) at 8 TB/s;
/// - `q` = the wave quantisation: CTAs rounded up to whole waves of `SMs × CTAs per SM` (the
///   device's occupancy model, [`DeviceLimits::ctas_per_sm`], on the plan's shared memory,
///   threads and register estimate), divided by the CTAs, but at least 1;
/// - `penalty` = `1 + 0.03·(PY − 1)` (longer per-thread row strips), × 1.1 for 8 channels per
///   thread.
///
/// The constants were fitted (grid search) on H200 benches of the direct-capable forward zoo
/// layers (`results/h200/README.md` names the runs). A backward-data plan is costed as its
/// forward problem (the dual, `DirectPlan::forward_problem`; its gathered weight staging is not
/// modelled), a stride-phase one by [`phase_cost_estimate`] (CUDA cores) or
/// [`phase_mma_cost_estimate`] (tensor cores). Known limits: the model has no
/// load/compute-overlap term, so it rarely picks a persistent (2-stage) member.
pub fn cost_estimate(plan: &DirectPlan, device: &DeviceLimits) -> f64 {
    cost_of(
        &plan.cfg,
        &plan.forward_problem,
        &plan.kernel_problem,
        &plan.geometry,
        plan.registers,
        device,
        plan.forward_problem.min_bytes(),
    )
}

/// [`cost_estimate`], the forward problem's compulsory bytes given (`min_bytes`, its
/// [`Problem::min_bytes`], which is the admitted problem's: a backward-data dual moves the
/// same three tensors, dY as its X and dX as its Y; in the gate
/// [`crate::family::ProblemFacts::min_bytes`]). Read by the CUDA-core forward path and the
/// backward-weight slab and streaming paths, whose problem is the forward problem itself.
/// The plan is given by its parts (the gate's summary prices them where they were derived,
/// without building a [`DirectPlan`]): its config `cfg`, forward problem `problem`, kernel
/// problem `kp`, geometry `geo` and register estimate `registers`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn cost_of(
    cfg: &KernelConfig,
    problem: &Problem,
    kp: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    device: &DeviceLimits,
    min_bytes: f64,
) -> f64 {
    if wgrad_mma::applies(cfg, problem) {
        return wgrad_mma::cost_estimate(cfg, problem, kp, geo, registers, device);
    }
    if wgrad::applies(problem) {
        return wgrad_cost_with(cfg, problem, geo, registers, device, min_bytes);
    }
    if strided::applies(problem) {
        if cfg.math == Math::Mma {
            return phase_mma_cost_estimate(cfg, problem, geo, registers, device);
        }
        return phase_cost_estimate(cfg, problem, geo, registers, device);
    }
    if fwd_banded::applies(cfg, problem) {
        return fwd_banded::cost_estimate(cfg, problem, geo, registers, device);
    }
    if cfg.math == Math::Mma {
        return mma_cost_estimate(cfg, kp, geo, device);
    }
    let es = problem.dtype.size_bytes() as f64;
    let ctas = (geo.grid[0] * geo.grid[1] * geo.grid[2]) as f64;
    let out = problem.output();
    let tiles = (out[2].div_ceil(geo.tw) * out[1].div_ceil(geo.th) * out[0] * problem.n) as f64
        * geo.grid[1] as f64;
    let threads = cfg.threads().max(1) as f64;
    let t_issue = tiles * threads * thread_instructions(cfg, problem, geo) / 2.4e13;
    let t_dram = min_bytes / 3.5e12;
    let halo = (geo.halo[0] * geo.halo[1] * geo.halo[2] * geo.ct) as f64 * es;
    let t_l2 = tiles * (halo + cfg.tile_m as f64 * cfg.tile_n as f64 * es) / 8e12;
    let wave = device.wave(geo.smem_bytes, cfg.threads(), registers) as f64;
    // Tiles per CTA are equal up to one (persistent launches), so quantisation is by CTAs.
    let q = ((ctas / wave).ceil() * wave / ctas).max(1.0);
    let penalty =
        (1.0 + 0.03 * (rows_per_thread(cfg) as f64 - 1.0)) * if cfg.vec_a == 8 { 1.1 } else { 1.0 };
    t_issue.max(t_dram).max(t_l2) * q * penalty + 2e-6
}

/// Estimated time in seconds of an mma direct `cfg` on its kernel problem `problem` (merged)
/// with geometry `geo` on `device`:
/// `max(t_smem, t_mma, t_l2, t_dram) · q + 2 µs`, where
/// - `t_smem`: every tile's `ldmatrix.x4` (512 bytes each; an x2 counts half), halo and weight
///   fills and output stores through the SMs' shared-memory pipes at 2.2e13 B/s (132 SMs ×
///   128 B/clk at about 1.98 GHz, 65 %);
/// - `t_mma`: m16n8k16 instructions (4096 MACs each) at 3.3e14 MAC/s (`mma.sync` at about two
///   thirds of the 989 TFLOP/s dense peak);
/// - `t_l2`: every tile's staged halo, its weight tile and its outputs at 8 TB/s;
/// - `t_dram`: compulsory bytes at 3.5 TB/s;
/// - `q`: wave quantisation of the CTAs (the device's occupancy model on the geometry's shared
///   memory, the threads and [`mma::register_estimate`]), at least 1.
///
/// Not fitted on measurements (its constants are the hardware's rates).
pub fn mma_cost_estimate(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    device: &DeviceLimits,
) -> f64 {
    let es = problem.dtype.size_bytes() as f64;
    let out = problem.output();
    let spatial = (out[2].div_ceil(geo.tw) * out[1].div_ceil(geo.th) * out[0] * problem.n) as f64;
    let tiles = spatial * geo.grid[1] as f64;
    let (units, ksteps, mb, nb) = mma::tile_work(cfg, problem);
    let (units, ksteps, mb, nb) = (units as f64, ksteps as f64, mb as f64, nb as f64);
    let ldsm = units * ksteps * (mb + nb / 2.0);
    let mmas = units * ksteps * mb * nb;
    // A depth-streaming tile stages one new input slice (the column's first tile FZ, ignored).
    let slices = if super::DirectView::of(cfg).depth_stream {
        1
    } else {
        geo.halo[0]
    };
    let halo = (slices * geo.halo[1] * geo.halo[2] * geo.ct) as f64 * es;
    let obytes = cfg.tile_m as f64 * cfg.tile_n as f64 * es;
    let regs = mma::register_estimate(cfg, problem);
    mma_time(
        cfg,
        problem,
        geo,
        device,
        regs,
        [tiles, ldsm, mmas, halo, obytes],
    )
}

/// The terms of [`mma_cost_estimate`] (and [`phase_mma_cost_estimate`]) once a plan's work is
/// counted — `[tiles, ldsm, mmas, halo, obytes]`: tiles, `ldmatrix.x4` and `mma` instructions
/// per tile, staged halo and output bytes per tile — with the weight tile, the CTAs and the
/// wave quantisation (`regs` per thread) read from the geometry.
fn mma_time(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    device: &DeviceLimits,
    regs: u32,
    [tiles, ldsm, mmas, halo, obytes]: [f64; 5],
) -> f64 {
    let wbytes = geo.ws_bytes as f64;
    let ctas = (geo.grid[0] * geo.grid[1] * geo.grid[2]) as f64;
    let t_smem = (tiles * (ldsm * 512.0 + halo + obytes) + ctas * wbytes) / 2.2e13;
    let t_mma = tiles * mmas * 4096.0 / 3.3e14;
    let t_l2 = (tiles * (halo + obytes) + ctas * wbytes) / 8e12;
    let t_dram = problem.min_bytes() / 3.5e12;
    let wave = device.wave(geo.smem_bytes, cfg.threads(), regs) as f64;
    let q = ((ctas / wave).ceil() * wave / ctas).max(1.0);
    t_smem.max(t_mma).max(t_l2).max(t_dram) * q + 2e-6
}

/// Estimated time in seconds (the forward simt model's rates, [`cost_estimate`]): thread
/// instructions of the window reads, FMAs (one per real tap and cell), halo copies, weight
/// staging and stores at 2.4e13 per second, against DRAM at 3.5 TB/s and the staged halos at
/// 8 TB/s; the larger, × the wave quantisation, + 2 µs. Not fitted on measurements.
pub fn phase_cost_estimate(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    device: &DeviceLimits,
) -> f64 {
    let es = problem.dtype.size_bytes() as f64;
    let ph = strided::Phases::of(problem);
    let (vec, px, py) = (
        cfg.vec_a as f64,
        cfg.vec_b as f64,
        rows_per_thread(cfg) as f64,
    );
    let cells = py * px * problem.stride.iter().product::<u64>() as f64;
    // Each tap reaches one phase per dimension: taps per cell = filter volume / strides (avg).
    let taps = problem.filter_volume() as f64;
    let cin = problem.kpg() as f64;
    let fmas = py * px * taps * vec * cin;
    let window = geo.halo[0] as f64
        * (py + ph.reach(1) as f64)
        * (px + ph.reach(2) as f64)
        * if problem.cpg() == 1 && problem.kpg() == 1 {
            1.0 + vec
        } else {
            vec * cin * 2.0
        };
    let threads = cfg.threads().max(1) as f64;
    let chunks = (geo.halo[0] * geo.halo[1] * geo.halo[2] * (geo.ct / geo.vl.max(1))) as f64;
    let halo_ins = (chunks / threads).ceil() * 25.0;
    let weights = (taps * cin * cfg.tile_n as f64 / threads).ceil() * 12.0;
    let stores = cells * (vec / geo.sv.max(1) as f64) * 8.0;
    let per_thread = window + fmas + halo_ins + weights + stores;
    let tiles =
        (ph.cells[2].div_ceil(geo.tw) * ph.cells[1].div_ceil(geo.th) * ph.cells[0] * problem.n)
            as f64
            * geo.grid[1] as f64;
    let t_issue = tiles * threads * per_thread / 2.4e13;
    let t_dram = problem.min_bytes() / 3.5e12;
    let halo_bytes = (geo.halo[0] * geo.halo[1] * geo.halo[2] * geo.ct) as f64 * es;
    let t_l2 = tiles * (halo_bytes + cells * threads * vec * es) / 8e12;
    let ctas = (geo.grid[0] * geo.grid[1] * geo.grid[2]) as f64;
    let wave = device.wave(geo.smem_bytes, cfg.threads(), registers) as f64;
    let q = ((ctas / wave).ceil() * wave / ctas).max(1.0);
    t_issue.max(t_dram).max(t_l2) * q + 2e-6
}

/// Estimated time in seconds of a tensor-core stride-phase dgrad plan ([`super::strided`]) on
/// `device`: [`mma_cost_estimate`]'s terms with cells for pixels — every phase's k16 steps
/// ([`strided::mma_ksteps`]) for each warp unit of a cell tile, the staged dY halo and weight
/// tile, and the `s_d·s_h·s_w` dX pixels each cell stores. Not fitted on measurements.
pub fn phase_mma_cost_estimate(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    device: &DeviceLimits,
) -> f64 {
    let es = problem.dtype.size_bytes() as f64;
    let ph = strided::Phases::of(problem);
    let spatial =
        (ph.cells[2].div_ceil(geo.tw) * ph.cells[1].div_ceil(geo.th) * ph.cells[0] * problem.n)
            as f64;
    let tiles = spatial * geo.grid[1] as f64;
    let (units, _, mb, nb) = mma::tile_work(cfg, &strided::channel_view(problem));
    let ksteps = strided::mma_ksteps(problem) as f64;
    let (units, mb, nb) = (units as f64, mb as f64, nb as f64);
    let ldsm = units * ksteps * (mb + nb / 2.0);
    let mmas = units * ksteps * mb * nb;
    let halo = (geo.halo[0] * geo.halo[1] * geo.halo[2] * geo.ct) as f64 * es;
    let phases = problem.stride.iter().product::<u64>() as f64;
    let obytes = cfg.tile_m as f64 * cfg.tile_n as f64 * es * phases;
    mma_time(
        cfg,
        problem,
        geo,
        device,
        registers,
        [tiles, ldsm, mmas, halo, obytes],
    )
}

/// Estimated time in seconds of a backward-weight slab plan (`super::wgrad`) on `device`:
/// `max(t_issue, t_dram, t_l2) · q + t_partials + 2 µs`, where
/// - `t_issue`: per staged tile and active thread, `TPT` taps × its `⌈pixels / PGS⌉` pixels ×
///   (`VEC·C/G` FMAs + 2 shared-memory reads, + `VEC` unpacks for 16-bit data), plus the halo
///   and dY copies (25 instructions each), at 2.4e13 thread-instructions per second (the
///   forward simt rate of [`cost_estimate`]);
/// - `t_dram`: the compulsory X, dY and dW bytes at 3.5 TB/s; `t_l2`: every tile's staged halo
///   and dY tile at 8 TB/s;
/// - `q`: the wave quantisation of the `P × ⌈K/BN⌉` CTAs, at least 1;
/// - `t_partials` (P > 1): the partial planes written and read back (`2·P·|dW|·4` bytes) at
///   3.5 TB/s plus the reduction launch (2 µs);
/// - on depthwise layers the whole estimate × [`SLAB_DEPTHWISE_FACTOR`] (measured).
///
/// Not fitted on measurements (the constants are the forward model's rates). A streaming
/// config (`stages = 1`) is priced by [`stream_cost_estimate`].
pub fn wgrad_cost_estimate(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    device: &DeviceLimits,
) -> f64 {
    wgrad_cost_with(cfg, problem, geo, registers, device, problem.min_bytes())
}

/// [`wgrad_cost_estimate`], the problem's [`Problem::min_bytes`] given.
fn wgrad_cost_with(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    device: &DeviceLimits,
    min_bytes: f64,
) -> f64 {
    if banded::applies(cfg, problem) {
        return banded::cost_estimate(cfg, problem, geo, registers, device);
    }
    if stream::applies(cfg, problem) {
        return stream_cost_with(cfg, problem, geo, registers, device, min_bytes);
    }
    if wgrad_mma::applies(cfg, problem) {
        let kp = super::geometry::merge_groups(cfg, problem);
        return wgrad_mma::cost_estimate(cfg, problem, &kp, geo, registers, device);
    }
    let es = problem.dtype.size_bytes() as f64;
    let (tpt, _, pgs) = wgrad::thread_mapping(cfg, problem);
    let (tpt, pgs) = (tpt as f64, pgs.max(1) as f64);
    let (vec, cpg) = (cfg.vec_a as f64, problem.cpg() as f64);
    let unpack = if es == 2.0 { vec } else { 0.0 };
    let lanes = (cfg.tile_n / cfg.vec_a.max(1)) as f64;
    let active = lanes * problem.filter_volume().div_ceil(tpt as u64) as f64 * pgs;
    let threads = cfg.threads().max(1) as f64;
    let px = (cfg.tile_m as f64 / pgs).ceil();
    let math = active * tpt * px * (vec * cpg + 2.0 + unpack);
    let halo_chunks = (geo.halo[0] * geo.halo[1] * geo.halo[2] * (geo.ct / geo.vl.max(1))) as f64;
    let dy_chunks = cfg.tile_m as f64 * (cfg.tile_n as f64 / geo.sv.max(1) as f64);
    let copies = ((halo_chunks + dy_chunks) / threads).ceil() * 25.0 * threads;
    let channel_blocks = geo.grid[1] as f64;
    let tiles = wgrad::tiles(problem, geo.th, geo.tw) as f64 * channel_blocks;
    let t_issue = tiles * (math + copies) / 2.4e13;
    let t_dram = min_bytes / 3.5e12;
    let halo = (geo.halo[0] * geo.halo[1] * geo.halo[2] * geo.ct) as f64 * es;
    let t_l2 = tiles * (halo + cfg.tile_m as f64 * cfg.tile_n as f64 * es) / 8e12;
    let slabs = geo.grid[0] as f64;
    let ctas = slabs * channel_blocks;
    let wave = device.wave(geo.smem_bytes, cfg.threads(), registers) as f64;
    let q = ((ctas / wave).ceil() * wave / ctas).max(1.0);
    let t_partials = if geo.grid[0] > 1 {
        let dw = problem.elements(gconv_problem::TensorRole::W) as f64;
        2.0 * slabs * dw * 4.0 / 3.5e12 + 2e-6
    } else {
        0.0
    };
    let measured = if problem.cpg() == 1 && problem.kpg() == 1 {
        SLAB_DEPTHWISE_FACTOR
    } else {
        1.0
    };
    (t_issue.max(t_dram).max(t_l2) * q + t_partials + 2e-6) * measured
}

/// The slab kernel's measured time over its model on depthwise layers: on the 14 bf16 N = 32
/// depthwise zoo layers of the H200 bench (best direct member, the brief of the streaming
/// kernel: 15–292 µs) the measured time is 1.85–4.4× the model's (its per-tap shared-memory
/// re-reads, conversions and per-tile barriers cost more than the model counts); the smallest
/// ratio corrects the model there, so that `auto` compares it fairly with the streaming kernel
/// ([`stream_cost_estimate`], not yet measured).
pub const SLAB_DEPTHWISE_FACTOR: f64 = 1.85;

/// Fraction of the output positions `0..out` whose input position `o·s − p + t·d` lies in
/// `0..input`, for each tap `t` of `f`, summed over the taps (the live tap rows of a dimension).
fn live_taps(input: u64, out: u64, f: u64, s: u64, p: u64, d: u64) -> f64 {
    let mut live = 0u64;
    for t in 0..f {
        for o in 0..out {
            let i = (o * s + t * d) as i64 - p as i64;
            if i >= 0 && (i as u64) < input {
                live += 1;
            }
        }
    }
    live as f64 / out.max(1) as f64
}

/// Estimated time in seconds of a streaming depthwise wgrad plan (`super::stream`) on `device`:
/// `max(t_issue, t_dram, t_l2) · q + t_partials + 2 µs`, where
/// - `t_issue`: per unit and channel lane, each of the `RGS` tap-row groups issues the dY strip
///   reads (`TW` reads + `TW·VEC` widenings for 16-bit data) and ~20 instructions of unit decode
///   and row checks; each *live* tap row (its X row inside the input: `live_taps` over the
///   depth and height taps, exact for the problem) issues `SPAN` X reads (+ `SPAN·VEC`
///   widenings) and `TW·FX·VEC` FMAs; at 2.4e13 thread-instructions per second (the forward
///   simt rate of [`cost_estimate`]);
/// - `t_dram`: the compulsory X, dY and dW bytes at 3.5 TB/s;
/// - `t_l2`: the bytes the loads move through L1/L2, dY once per row group, X once per live tap
///   row (the halo re-read factor `FZ·FY·SPAN / (TW·SW)` per pixel for dense filters), at 8 TB/s
///   (L1 absorbs part of it; the model charges it all to L2);
/// - `q`: the under-filled device, `wave / CTAs` of the `P × ⌈C/BN⌉` CTAs when they are fewer
///   than one wave (idle SMs), else 1 — the rule sizes P for two waves, and a rounded-up last
///   wave ranked the members against the H200's measurements (`results/h200/s7/README.md`);
/// - the live tap rows count as if every tap-row group held `rg` rows (the groups of a lane
///   run side by side: 7 rows in groups of 3 cost 9);
/// - `t_partials` (P > 1): the planes written and read back (`2·P·|dW|·4` bytes at 3.5 TB/s),
///   the reduction launch (2 µs) and its fixed-order sum, `P/(4·S)` dependent L2 round trips
///   of 0.15 µs per element (`split_reduce.cu` unrolls by 4 and gives each element S =
///   `crate::shared::reduce_slices` threads).
///
/// The constants are the hardware's and the forward model's rates; the two terms above were
/// chosen on the zoo wgrad bench and checked on the unseen layers (`auto` 1.094× → 1.124× cuDNN
/// on the zoo, 2.237× → 2.263× on the unseen set, scored offline with the `auto_vs_csv`
/// example).
pub fn stream_cost_estimate(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    device: &DeviceLimits,
) -> f64 {
    stream_cost_with(cfg, problem, geo, registers, device, problem.min_bytes())
}

/// [`stream_cost_estimate`], the problem's [`Problem::min_bytes`] given.
fn stream_cost_with(
    cfg: &KernelConfig,
    problem: &Problem,
    geo: &DirectGeometry,
    registers: u32,
    device: &DeviceLimits,
    min_bytes: f64,
) -> f64 {
    let es = problem.dtype.size_bytes() as f64;
    let (rg, rgs, lanes, _) = stream::thread_mapping(cfg, problem);
    let (vec, tw) = (cfg.vec_a as f64, geo.tw as f64);
    let unpack = if es == 2.0 { vec } else { 0.0 };
    let out = problem.output();
    let (f, s, p, d) = (
        problem.filter,
        problem.stride,
        problem.pad,
        problem.dilation,
    );
    let live_rows = live_taps(problem.input[0], out[0], f[0], s[0], p[0], d[0])
        * live_taps(problem.input[1], out[1], f[1], s[1], p[1], d[1]);
    let span = geo.halo[2] as f64;
    let fx = f[2] as f64;
    // The tap-row groups of a channel lane run side by side, so a CTA lasts as long as its
    // fullest group: the live rows count as if every group held `rg` rows (7 rows in groups of
    // 3 cost 9).
    let rows = (problem.filter[0] * problem.filter[1]).max(1) as f64;
    let balance = (rg * rgs) as f64 / rows;
    let per_unit = rgs as f64 * (tw * (1.0 + unpack) + 20.0)
        + live_rows * balance * (span * (1.0 + unpack) + tw * fx * vec);
    let units = stream::units(problem, geo.tw) as f64;
    let channel_blocks = geo.grid[1] as f64;
    let t_issue = units * channel_blocks * lanes as f64 * per_unit / 2.4e13;
    let t_dram = min_bytes / 3.5e12;
    let vec_bytes = channel_blocks * cfg.tile_n as f64 * es;
    let t_l2 = units * vec_bytes * (rgs as f64 * tw + live_rows * span) / 8e12;
    let slabs = geo.grid[0] as f64;
    let ctas = slabs * channel_blocks;
    let wave = device.wave(geo.smem_bytes, cfg.threads(), registers) as f64;
    let q = (wave / ctas).max(1.0);
    let t_partials = if geo.grid[0] > 1 {
        let dw = problem.elements(gconv_problem::TensorRole::W) as f64;
        let slices = crate::shared::reduce_slices(geo.grid[0], dw as u64) as f64;
        2.0 * slabs * dw * 4.0 / 3.5e12 + 2e-6 + slabs / slices / 4.0 * 0.15e-6
    } else {
        0.0
    };
    t_issue.max(t_dram).max(t_l2) * q + t_partials + 2e-6
}
