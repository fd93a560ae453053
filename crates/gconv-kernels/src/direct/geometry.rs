//! The direct family's geometry: the tile, the staged halo, vector widths, shared memory and
//! the launch grid of a (config, problem) pair ([`DirectGeometry`]), the merged problem of a
//! group-merged tensor-core config ([`kernel_problem`]), the forward problem of a backward-data
//! problem ([`forward_problem`]), the register estimate, and the [`DirectPlan`] that holds them
//! for one admitted pair. The backward-weight kernels' geometry is `super::wgrad`'s
//! ([`wgrad::geometry`]) and `super::stream`'s ([`stream::geometry`], `stages = 1`), dispatched
//! from here. [`DirectGeometry`] and [`W_REG_BUDGET`] live in `super::shape` (re-exported).

use super::banded;
use super::fwd_banded;
use super::mma;
use super::stream;
use super::strided;
use super::view::DirectView;
use super::wgrad;
use super::wgrad_mma;

use super::shape::{odd_chunk_stride, split_row};
pub use super::shape::{DirectGeometry, W_REG_BUDGET};
use crate::config::{KernelConfig, Math};
use crate::device::DeviceLimits;
use crate::shared::largest_pow2_dividing;
use gconv_problem::{Direction, Problem};

/// Registers per thread a persistent (2-stage) simt CTA keeps at least: its grid is one wave
/// of the CTAs that fit an SM by shared memory, threads and this budget, and its launch bound
/// (`MIN_CTAS`) holds ptxas to that count, so that every CTA is resident from the start and
/// walks its tiles with the next halo tile loading while it computes.
pub const PERSISTENT_REGS: u32 = 128;

/// At most this many persistent simt CTAs per SM (small CTAs: the wave stays a few tiles per
/// CTA rather than one).
pub const PERSISTENT_CTAS_PER_SM: u64 = 8;

/// CTAs per SM of a persistent simt launch: what fits by shared memory, threads and the
/// [`PERSISTENT_REGS`] budget, at most [`PERSISTENT_CTAS_PER_SM`].
fn persistent_simt_ctas(device: &DeviceLimits, smem: u64, threads: u32) -> u64 {
    device
        .ctas_per_sm(smem, threads, PERSISTENT_REGS)
        .min(PERSISTENT_CTAS_PER_SM)
}

/// The persistent CUDA-core grid: `spatial` tiles along x, `channel_blocks` along y, at most
/// `sms × ctas_per_sm` CTAs in all (one wave), tile counts per CTA equal up to one. Returns
/// the grid's x extent.
fn one_wave_grid_x(spatial: u64, channel_blocks: u64, sms: u64, ctas_per_sm: u64) -> u64 {
    let slots_x = (sms * ctas_per_sm / channel_blocks.max(1)).max(1);
    let per_cta = spatial.div_ceil(slots_x).max(1);
    spatial.div_ceil(per_cta)
}

/// The persistent tensor-core grid: `spatial` tiles along x, `channel_blocks` along y, one
/// wave of the CTAs the occupancy model fits (`smem` bytes, `threads`, `regs` per thread), each
/// CTA loading its weight tile once for all its tiles. Returns the grid's x extent.
fn persistent_mma_grid_x(
    spatial: u64,
    channel_blocks: u64,
    device: &DeviceLimits,
    smem: u64,
    threads: u32,
    regs: u32,
) -> u64 {
    let target = device.wave(smem, threads, regs);
    let per_cta = (spatial * channel_blocks).div_ceil(target).max(1);
    spatial.div_ceil(per_cta)
}

/// Output rows per thread (`PY`): a CTA's `tile_m / vec_b · tile_n / vec_a` work items
/// (output row, column group, channel lane) spread evenly over its threads, each thread taking
/// PY vertically adjacent rows (`validate` requires the division to be exact).
pub fn rows_per_thread(cfg: &KernelConfig) -> u64 {
    let items = (cfg.tile_m / cfg.vec_b.max(1)) as u64 * (cfg.tile_n / cfg.vec_a.max(1)) as u64;
    (items / cfg.threads().max(1) as u64).max(1)
}

/// True when a grouped problem (C/G > 1 or a channel multiplier) takes the vector path: the
/// thread's `vec_a` output channels lie in one group (`K/G` is a multiple of `vec_a`), so one
/// shared-memory read gives the group's C/G input channels for all of them.
pub fn group_vector_path(cfg: &KernelConfig, problem: &Problem) -> bool {
    !(problem.cpg() == 1 && problem.kpg() == 1)
        && problem.kpg().is_multiple_of(cfg.vec_a.max(1) as u64)
}

/// True when the depthwise path keeps the whole filter of a depth slice in registers.
pub fn weights_in_registers(cfg: &KernelConfig, problem: &Problem) -> bool {
    let vec = cfg.vec_a as u64;
    problem.cpg() == 1
        && problem.kpg() == 1
        && problem.filter[1] * problem.filter[2] * vec
            + rows_per_thread(cfg) * cfg.vec_b as u64 * vec
            <= W_REG_BUDGET
}

/// The forward convolution a direct kernel computes for `problem`, before any group merge: the
/// problem itself for a forward problem; for a backward-data problem its stride-1 dual
/// ([`Problem::dgrad_dual`]: dX as the forward convolution of dY with the flipped,
/// channel-transposed filter), or the problem unchanged when it has none (strided, or a padding
/// above `dil·(F−1)`: the stride-phase kernels of [`super::strided`], CUDA cores or tensor
/// cores). Every quantity of a dual kernel (tile walk, halo, channels per group, registers,
/// cost) is that of this problem; only the weight staging reads the original filter
/// (`super::emit`).
pub fn forward_problem(problem: &Problem) -> Problem {
    match problem.direction {
        Direction::Dgrad => problem.dgrad_dual().unwrap_or(*problem),
        Direction::Fwd | Direction::Wgrad => *problem,
    }
}

/// The convolution the kernel computes: [`forward_problem`], and then, for a tensor-core
/// (`mma`) config with `group_merge`
/// gm > 1: the same convolution seen as G/gm merged groups of gm·C/G input and gm·K/G output
/// channels (adjacent groups are adjacent in the NHWC channel dimension) whose weights are
/// block-diagonal — output channel k of a merged group reads only the C/G channels of its own
/// group, the rest of the merged row is zero in shared memory. This is how depthwise and
/// C/G 1–4 layers reach the tensor cores (gm·C/G a multiple of 8). Otherwise the forward
/// problem itself. The `mma` module's functions take this problem (on the stride-phase path,
/// which has no group merge, its [`super::strided::channel_view`] instead); [`geometry`] and
/// [`register_estimate`] take the real one and convert once; [`DirectPlan`] holds both
/// conversions for the rules, the cost model and the emitter.
pub fn kernel_problem(cfg: &KernelConfig, problem: &Problem) -> Problem {
    merge_groups(cfg, &forward_problem(problem))
}

/// The group merge of [`kernel_problem`] on an already forward problem.
pub(crate) fn merge_groups(cfg: &KernelConfig, problem: &Problem) -> Problem {
    merged_groups(cfg, problem).unwrap_or(*problem)
}

/// [`merge_groups`] where it merges; `None` where the kernel problem is `problem` itself.
pub(crate) fn merged_groups(cfg: &KernelConfig, problem: &Problem) -> Option<Problem> {
    let gm = cfg.group_merge.max(1) as u64;
    (cfg.math == Math::Mma && gm > 1 && problem.g.is_multiple_of(gm)).then(|| Problem {
        g: problem.g / gm,
        ..*problem
    })
}

/// The derived geometry of `cfg` on `problem` on `device` (see the module doc; merged groups
/// per [`kernel_problem`]).
pub fn geometry(cfg: &KernelConfig, problem: &Problem, device: &DeviceLimits) -> DirectGeometry {
    geometry_of(cfg, &kernel_problem(cfg, problem), device)
}

/// [`geometry`] on the kernel's own problem ([`kernel_problem`], already merged).
pub(crate) fn geometry_of(
    cfg: &KernelConfig,
    problem: &Problem,
    device: &DeviceLimits,
) -> DirectGeometry {
    if strided::applies(problem) {
        return phase_geometry(cfg, problem, device);
    }
    if banded::applies(cfg, problem) {
        return banded::geometry(cfg, problem, device);
    }
    if fwd_banded::applies(cfg, problem) {
        return fwd_banded::geometry(cfg, problem);
    }
    if stream::applies(cfg, problem) {
        return stream::geometry(cfg, problem, device);
    }
    if wgrad_mma::applies(cfg, problem) {
        return wgrad_mma::geometry(cfg, problem, device);
    }
    if wgrad::applies(problem) {
        return wgrad::geometry(cfg, problem, device);
    }
    let es = problem.dtype.size_bytes();
    let view = DirectView::of(cfg);
    let tw = view.tile_width.max(1) as u64;
    let th = (view.tile_pixels as u64 / tw).max(1);
    let bn = view.tile_channels.max(1) as u64;
    let kpg = problem.kpg().max(1);
    let ct = (bn / kpg).max(1) * problem.cpg();
    let is_mma = cfg.math == Math::Mma;
    let cts = if is_mma { odd_chunk_stride(ct) } else { ct };
    let taps_c = problem.filter_volume() * problem.cpg();
    let wrow = if is_mma {
        taps_c.div_ceil(16) * 16 + 8
    } else {
        taps_c
    };
    let vmax = 16 / es;
    let out = problem.output();
    let halo = [
        problem.filter[0],
        (th - 1) * problem.stride[1] + (problem.filter[1] - 1) * problem.dilation[1] + 1,
        (tw - 1) * problem.stride[2] + (problem.filter[2] - 1) * problem.dilation[2] + 1,
    ];
    let vl = largest_pow2_dividing(problem.c, vmax.min(largest_pow2_dividing(ct, vmax)));
    let sv = largest_pow2_dividing(problem.k, vmax.min(cfg.vec_a.max(1) as u64));
    let base_row = halo[2] * cts;
    let pad_chunk = 16 / es; // elements per 16-byte chunk
    let xrow = if is_mma {
        split_row(halo[2], super::mma::halo_phases(cfg, problem), cts)
    } else {
        row_pitch(cfg, problem, th, ct, base_row, pad_chunk)
    };
    // Depth streaming (stages 3): each ring slot holds one input slice; FZ + 1 slots.
    let xs_bytes = if view.depth_stream {
        (halo[1] * xrow * es).div_ceil(16) * 16
    } else {
        (halo[0] * halo[1] * xrow * es).div_ceil(16) * 16
    };
    let ws_bytes = if is_mma {
        wrow * bn * es
    } else {
        taps_c * bn * 4
    };
    // Group merge (mma): `problem` is the merged one, its C/G is gm times the real C/G.
    let gm = view.group_merge.max(1) as u64;
    let raw_bytes = if is_mma && gm > 1 {
        (bn * problem.filter_volume() * (problem.cpg() / gm) * es).div_ceil(16) * 16
    } else {
        0
    };
    // Halo buffers: one tile's (1 stage), two (persistent), or the depth ring's FZ + 1 slices.
    let stages: u64 = if view.depth_stream {
        problem.filter[0] + 1
    } else if view.persistent {
        2
    } else {
        1
    };
    let columns = out[2].div_ceil(tw) * out[1].div_ceil(th) * problem.n;
    let spatial = columns * out[0];
    let channel_blocks = problem.k.div_ceil(bn);
    // Persistent CTAs (2 stages), equal tile counts: one wave of the CTAs that fit on the SMs
    // (mma: by the register estimate, each CTA loading its weight tile once for all its tiles;
    // simt: by the PERSISTENT_REGS budget its launch bound enforces).
    let smem = stages * xs_bytes + ws_bytes + raw_bytes;
    let simt_ctas = persistent_simt_ctas(device, smem, cfg.threads());
    let grid_x = if view.depth_stream {
        columns
    } else if stages == 1 {
        spatial
    } else if is_mma {
        let regs = mma::register_estimate(cfg, problem);
        persistent_mma_grid_x(spatial, channel_blocks, device, smem, cfg.threads(), regs)
    } else {
        one_wave_grid_x(spatial, channel_blocks, device.sms as u64, simt_ctas)
    };
    DirectGeometry {
        th,
        tw,
        ct,
        cts,
        wrow,
        halo,
        xrow,
        vl,
        sv,
        xs_bytes,
        ws_bytes,
        raw_bytes,
        smem_bytes: smem,
        grid: [grid_x, channel_blocks, 1],
        min_ctas: if stages == 2 && !is_mma { simt_ctas } else { 1 },
    }
}

/// The geometry of `cfg` on a stride-phase dgrad `problem` ([`super::strided`]): `th × tw` cells, the halo of dY
/// they read, shared memory (halo stages and the weights: f32 of the real taps on CUDA cores,
/// 16-bit rows of every phase's taps on tensor cores) and the grid over cell tiles.
pub fn phase_geometry(
    cfg: &KernelConfig,
    problem: &Problem,
    device: &DeviceLimits,
) -> DirectGeometry {
    let es = problem.dtype.size_bytes();
    let ph = strided::Phases::of(problem);
    let view = DirectView::of(cfg);
    let tw = view.tile_width.max(1) as u64;
    let th = (view.tile_pixels as u64 / tw).max(1);
    let bn = view.tile_channels.max(1) as u64;
    // The kernel's staged "input" channels are dY's (K/G per group), its outputs dX's (C/G).
    let (cin, cout) = (problem.kpg(), problem.cpg().max(1));
    let ct = (bn / cout).max(1) * cin;
    let halo = [1 + ph.reach(0), th + ph.reach(1), tw + ph.reach(2)];
    let vmax = 16 / es;
    let vl = largest_pow2_dividing(problem.k, vmax.min(largest_pow2_dividing(ct, vmax)));
    let sv = largest_pow2_dividing(problem.c, vmax.min(cfg.vec_a.max(1) as u64));
    let stages: u64 = if view.persistent { 2 } else { 1 };
    let spatial = ph.cells[2].div_ceil(tw) * ph.cells[1].div_ceil(th) * ph.cells[0] * problem.n;
    let channel_blocks = problem.c.div_ceil(bn);
    if cfg.math == Math::Mma {
        // Tensor cores (`strided` module doc): cells padded to an odd number of 16-byte
        // chunks, halo rows in natural order (a stride-1 walk), 16-bit weight rows of every
        // phase's taps; a persistent grid is one wave by the occupancy model, as on the
        // forward mma path.
        let cts = odd_chunk_stride(ct);
        let xrow = split_row(halo[2], 1, cts);
        let xs_bytes = (halo[0] * halo[1] * xrow * es).div_ceil(16) * 16;
        let wrow = strided::mma_weight_row(problem);
        let ws_bytes = wrow * bn * es;
        let smem = stages * xs_bytes + ws_bytes;
        let grid_x = if stages == 1 {
            spatial
        } else {
            let regs = mma::register_estimate(cfg, &strided::channel_view(problem));
            persistent_mma_grid_x(spatial, channel_blocks, device, smem, cfg.threads(), regs)
        };
        return DirectGeometry {
            th,
            tw,
            ct,
            cts,
            wrow,
            halo,
            xrow,
            vl,
            sv,
            xs_bytes,
            ws_bytes,
            raw_bytes: 0,
            smem_bytes: smem,
            grid: [grid_x, channel_blocks, 1],
            min_ctas: 1,
        };
    }
    // Row padding by the forward path's bank model, on the stride-1 walk over cells.
    let cells_walk = Problem {
        stride: [1; 3],
        ..*problem
    };
    let xrow = row_pitch(cfg, &cells_walk, th, ct, halo[2] * ct, 16 / es);
    let xs_bytes = (halo[0] * halo[1] * xrow * es).div_ceil(16) * 16;
    let taps_c = problem.filter_volume() * cin;
    let ws_bytes = taps_c * bn * 4;
    let smem = stages * xs_bytes + ws_bytes;
    let simt_ctas = persistent_simt_ctas(device, smem, cfg.threads());
    let grid_x = if stages == 1 {
        spatial
    } else {
        one_wave_grid_x(spatial, channel_blocks, device.sms as u64, simt_ctas)
    };
    DirectGeometry {
        th,
        tw,
        ct,
        cts: ct,
        wrow: taps_c,
        halo,
        xrow,
        vl,
        sv,
        xs_bytes,
        ws_bytes,
        raw_bytes: 0,
        smem_bytes: smem,
        grid: [grid_x, channel_blocks, 1],
        min_ctas: if stages == 2 { simt_ctas } else { 1 },
    }
}

/// Estimated registers per thread: the accumulators of one depth phase (`PY × PX × s_h × s_w ×
/// VEC`), the depthwise path's filter slice (`FY × FX × VEC`) or one dY value per channel, and
/// a fixed allowance.
pub fn phase_register_estimate(cfg: &KernelConfig, problem: &Problem) -> u32 {
    let vec = cfg.vec_a as u64;
    let acc = rows_per_thread(cfg) * cfg.vec_b as u64 * problem.stride[1] * problem.stride[2] * vec;
    let other = if problem.cpg() == 1 && problem.kpg() == 1 {
        problem.filter[1] * problem.filter[2] * vec + vec
    } else {
        problem.kpg() * vec + 8
    };
    (acc + other + 32).min(u32::MAX as u64) as u32
}

/// The row pitch of the staged halo (elements) that [`smem_read_wavefronts`] prices lowest
/// among `base_row + pad · step` for pads 0 to 7, the smallest pad of the lowest. The search
/// stops at the first pitch that costs one wavefront per phase (`ReadPhases::fewest`: none
/// can cost less), so it usually prices one or two pitches instead of eight, with the same
/// answer. Where the bank model applies (depthwise) the answer is kept per thread, keyed by
/// every value the search reads (`PitchKey`): the gate plans each direct member of every
/// problem `auto` decides, and layers of one network share their tiles' pitches.
pub fn row_pitch(
    cfg: &KernelConfig,
    problem: &Problem,
    th: u64,
    ct: u64,
    base_row: u64,
    step: u64,
) -> u64 {
    let Some(phases) = ReadPhases::of(cfg, problem) else {
        // Not modelled: every pitch prices 0, the first wins.
        return base_row;
    };
    let key = PitchKey([
        u64::from(cfg.vec_a),
        u64::from(cfg.vec_b),
        u64::from(cfg.tile_n),
        u64::from(cfg.threads()),
        rows_per_thread(cfg),
        problem.dtype.size_bytes(),
        problem.stride[1],
        problem.stride[2],
        th,
        ct,
        base_row,
        step,
    ]);
    PITCHES.with(|m| {
        if let Some(&x) = m.borrow().get(&key) {
            return x;
        }
        let x = search_row_pitch(cfg, problem, th, ct, base_row, step, phases.fewest());
        let mut m = m.borrow_mut();
        if m.len() >= MAX_PITCHES {
            m.clear();
        }
        m.insert(key, x);
        x
    })
}

/// Everything [`smem_read_wavefronts`] and [`row_pitch`]'s search read: `vec_a`, `vec_b`,
/// `tile_n`, threads, [`rows_per_thread`], the element size, the H and W strides, `th`, `ct`,
/// the base row and the step.
#[derive(PartialEq, Eq)]
struct PitchKey([u64; 12]);

impl std::hash::Hash for PitchKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for &x in &self.0 {
            state.write_u64(x);
        }
    }
}

/// The memo's hash: a multiply-rotate mix of the key's twelve words (FxHash's; the keys are
/// this process's own, so no protection against chosen collisions is needed, and SipHash cost
/// as much as a short search).
#[derive(Default)]
struct PitchHasher(u64);

impl std::hash::Hasher for PitchHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// Searches kept per thread at most (then the memo starts over).
const MAX_PITCHES: usize = 1 << 14;

type PitchMemo =
    std::collections::HashMap<PitchKey, u64, std::hash::BuildHasherDefault<PitchHasher>>;

thread_local! {
    static PITCHES: std::cell::RefCell<PitchMemo> = std::cell::RefCell::new(PitchMemo::default());
}

/// [`row_pitch`]'s search, priced pitch by pitch down to `floor` wavefronts.
fn search_row_pitch(
    cfg: &KernelConfig,
    problem: &Problem,
    th: u64,
    ct: u64,
    base_row: u64,
    step: u64,
    floor: u64,
) -> u64 {
    let mut best = (u64::MAX, base_row);
    for pad in 0..8u64 {
        let xrow = base_row + pad * step;
        // Priced only as far as it could still win (a pitch stopped at the best so far does
        // not: the best is above `floor`, or the search would have stopped).
        let w = wavefronts_up_to(cfg, problem, th, ct, xrow, best.0);
        if w < best.0 {
            best = (w, xrow);
        }
        if w <= floor {
            break;
        }
    }
    best.1
}

/// How the first warp's column reads split into phases ([`smem_read_wavefronts`]): `None`
/// where the bank model does not apply (not depthwise).
struct ReadPhases {
    /// Threads of the first warp.
    threads: u64,
    /// Threads per phase (128 bytes of requests).
    per_phase: u64,
    /// Bytes per thread's read.
    access: u64,
}

impl ReadPhases {
    fn of(cfg: &KernelConfig, problem: &Problem) -> Option<ReadPhases> {
        if problem.cpg() != 1 || problem.kpg() != 1 {
            return None;
        }
        let es = problem.dtype.size_bytes();
        let access = (cfg.vec_a.max(1) as u64 * es).min(16);
        Some(ReadPhases {
            threads: (cfg.threads() as u64).min(32),
            per_phase: (128 / access).min(32),
            access,
        })
    }

    /// The fewest wavefronts a read can cost: one per phase (every thread reads a word).
    fn fewest(&self) -> u64 {
        self.threads.div_ceil(self.per_phase)
    }
}

/// Shared-memory wavefronts of one column read by the first warp of a CTA on the depthwise
/// path (the math loop's shared loads), for a row stride of `xrow` elements: threads are
/// grouped into phases of 128 bytes of requests (8 threads for 16-byte reads), and each phase
/// costs as many wavefronts as the most distinct 4-byte words that fall into one of the 32
/// banks. The channel-multiplier path (scalar reads) is not modelled (0).
pub fn smem_read_wavefronts(
    cfg: &KernelConfig,
    problem: &Problem,
    th: u64,
    ct: u64,
    xrow: u64,
) -> u64 {
    wavefronts_up_to(cfg, problem, th, ct, xrow, u64::MAX)
}

/// [`smem_read_wavefronts`], priced phase by phase until the count reaches `limit` (then some
/// count at least `limit`): the row-pitch search needs only to know whether a pitch beats the
/// best so far.
fn wavefronts_up_to(
    cfg: &KernelConfig,
    problem: &Problem,
    th: u64,
    ct: u64,
    xrow: u64,
    limit: u64,
) -> u64 {
    let Some(ReadPhases {
        threads,
        per_phase,
        access,
    }) = ReadPhases::of(cfg, problem)
    else {
        return 0;
    };
    let es = problem.dtype.size_bytes();
    let vec = cfg.vec_a.max(1) as u64;
    let lanes = (cfg.tile_n as u64 / vec).max(1);
    let py = rows_per_thread(cfg);
    let rgh = (th / py).max(1);
    // Thread t reads at lane · vec + rg · (py rows) + txg · (vec_b columns), with lane =
    // t mod lanes, rg = (t / lanes) mod rgh, txg = t / (lanes · rgh): counters and addresses
    // that step with t instead of divisions and products.
    let row_bytes = py * problem.stride[1] * xrow * es;
    let column_bytes = cfg.vec_b as u64 * problem.stride[2] * ct * es;
    let lane_bytes = vec * es;
    let (mut lane, mut rg) = (0u64, 0u64);
    // The byte address of thread t, of its row group's lane 0 and of its column group's.
    let (mut a, mut row_a, mut column_a) = (0u64, 0u64, 0u64);
    // Allocation-free (the gate calls this for every candidate row pitch of every direct
    // member): a thread reads the words [a/4, (a + access)/4⌉, so a phase's distinct words are
    // the union of at most 32 such ranges. Where a thread reads its whole lane (`access` =
    // `lane_bytes`: at most 16 bytes), the threads of one row group in a phase read one
    // contiguous byte range, taken as one range. In the threads' order (their starts
    // ascending, as they mostly are) the union is merged into runs as the ranges come; a phase
    // whose starts descend somewhere is sorted and merged again.
    let whole_lanes = access == lane_bytes;
    let mut ranges = [(0u64, 0u64); 32];
    let mut total = 0;
    let mut t0 = 0;
    while t0 < threads && total < limit {
        let t1 = (t0 + per_phase).min(threads);
        let mut banks = BankCounts::default();
        let mut run = (a / 4, a / 4);
        let mut sorted = true;
        let mut n = 0;
        let mut t = t0;
        while t < t1 {
            // Threads t..t + k: lanes lane..lane + k of one row group.
            let k = if whole_lanes {
                (lanes - lane).min(t1 - t)
            } else {
                1
            };
            let (lo, hi) = (a / 4, (a + (k - 1) * lane_bytes + access).div_ceil(4));
            ranges[n] = (lo, hi);
            n += 1;
            sorted &= lo >= run.0;
            if lo <= run.1 {
                run.1 = run.1.max(hi);
            } else {
                banks.add_run(run.0, run.1);
                run = (lo, hi);
            }
            t += k;
            lane += k;
            a += k * lane_bytes;
            if lane == lanes {
                lane = 0;
                rg += 1;
                row_a += row_bytes;
                if rg == rgh {
                    rg = 0;
                    column_a += column_bytes;
                    row_a = column_a;
                }
                a = row_a;
            }
        }
        if sorted {
            banks.add_run(run.0, run.1);
        } else {
            let ranges = &mut ranges[..n];
            ranges.sort_unstable();
            banks = BankCounts::default();
            let mut run = ranges[0];
            for &(lo, hi) in &ranges[1..] {
                if lo <= run.1 {
                    run.1 = run.1.max(hi);
                } else {
                    banks.add_run(run.0, run.1);
                    run = (lo, hi);
                }
            }
            banks.add_run(run.0, run.1);
        }
        total += banks.most();
        t0 = t1;
    }
    total
}

/// The distinct 4-byte words per bank of a phase, added as disjoint runs of words: a run of
/// `L` words from word `s` puts `L / 32` words into every bank (whole turns) and one more into
/// the `L mod 32` banks from bank `s mod 32` on (a rotated mask). The masks are summed per
/// bank in bit planes (a carry-save counter over the 32 banks at once), so a run costs a
/// handful of instructions instead of a count per word.
#[derive(Default)]
struct BankCounts {
    /// Bit k of plane j: bit j of bank k's count of partial runs (at most 32 runs a phase, so
    /// at most 32: 6 planes).
    planes: [u32; 6],
    /// Whole turns of the 32 banks.
    turns: u64,
}

impl BankCounts {
    /// Adds the words `[lo, hi)` (none counted before).
    fn add_run(&mut self, lo: u64, hi: u64) {
        let len = hi - lo;
        self.turns += len / 32;
        let rem = (len % 32) as u32;
        if rem == 0 {
            return;
        }
        let mut carry = ((1u32 << rem) - 1).rotate_left((lo % 32) as u32);
        for plane in self.planes.iter_mut() {
            let next = *plane & carry;
            *plane ^= carry;
            carry = next;
            if carry == 0 {
                break;
            }
        }
    }

    /// The most words of one bank: the whole turns and the largest column of the planes
    /// (highest plane first: the banks whose count has each bit, among those that had the
    /// higher ones).
    fn most(&self) -> u64 {
        let mut banks = u32::MAX;
        let mut most = 0u64;
        for (j, &plane) in self.planes.iter().enumerate().rev() {
            if plane & banks != 0 {
                banks &= plane;
                most |= 1 << j;
            }
        }
        self.turns + most
    }
}

/// [`wavefronts_up_to`]'s first form, a count per word (the reference of a test).
#[cfg(test)]
pub(crate) fn wavefronts_per_word(
    cfg: &KernelConfig,
    problem: &Problem,
    th: u64,
    ct: u64,
    xrow: u64,
) -> u64 {
    let Some(ReadPhases {
        threads,
        per_phase,
        access,
    }) = ReadPhases::of(cfg, problem)
    else {
        return 0;
    };
    let es = problem.dtype.size_bytes();
    let vec = cfg.vec_a.max(1) as u64;
    let lanes = (cfg.tile_n as u64 / vec).max(1);
    let py = rows_per_thread(cfg);
    let rgh = (th / py).max(1);
    let mut total = 0;
    let mut t0 = 0;
    while t0 < threads {
        let t1 = (t0 + per_phase).min(threads);
        let mut words = std::collections::BTreeSet::new();
        for t in t0..t1 {
            let (lane, rg, txg) = (t % lanes, (t / lanes) % rgh, t / (lanes * rgh));
            let a = rg * py * problem.stride[1] * xrow * es
                + txg * cfg.vec_b as u64 * problem.stride[2] * ct * es
                + lane * vec * es;
            words.extend(a / 4..(a + access).div_ceil(4));
        }
        let mut per_bank = [0u64; 32];
        for w in words {
            per_bank[(w % 32) as usize] += 1;
        }
        total += per_bank.iter().max().copied().unwrap_or(0);
        t0 = t1;
    }
    total
}

/// Estimated registers per thread on a problem: accumulators (`PY × PX × VEC`), one input
/// column, the depthwise path's weights (the slice's `FY × FX × VEC` filter when
/// [`weights_in_registers`], else one row of `FX × VEC`) and a fixed allowance (of the
/// [`forward_problem`] of a backward-data problem).
pub fn register_estimate(cfg: &KernelConfig, problem: &Problem) -> u32 {
    let fp = forward_problem(problem);
    registers_on(cfg, &fp, &merge_groups(cfg, &fp))
}

/// [`register_estimate`] given the problem's [`forward_problem`] `fp` and [`kernel_problem`]
/// `kp` (the plan has them already; a backward-data dual costs a geometry check to derive).
fn registers_on(cfg: &KernelConfig, fp: &Problem, kp: &Problem) -> u32 {
    if banded::applies(cfg, fp) {
        return banded::register_estimate(cfg, fp);
    }
    if wgrad_mma::applies(cfg, fp) {
        return wgrad_mma::register_estimate(cfg, kp);
    }
    if fwd_banded::applies(cfg, fp) {
        return fwd_banded::register_estimate(cfg, fp);
    }
    if cfg.math == Math::Mma {
        // The phase kernel's warp units are dX channels: its channel view's K/G.
        if strided::applies(fp) {
            return mma::register_estimate(cfg, &strided::channel_view(fp));
        }
        return mma::register_estimate(cfg, kp);
    }
    let problem = fp;
    if strided::applies(problem) {
        return phase_register_estimate(cfg, problem);
    }
    if stream::applies(cfg, problem) {
        return stream::register_estimate(cfg, problem);
    }
    if wgrad::applies(problem) {
        return wgrad::register_estimate(cfg, problem);
    }
    let vec = cfg.vec_a as u64;
    let px = cfg.vec_b as u64;
    let (weights, column) = if weights_in_registers(cfg, problem) {
        (problem.filter[1] * problem.filter[2] * vec, vec)
    } else if problem.cpg() == 1 && problem.kpg() == 1 {
        (problem.filter[2] * vec, vec)
    } else if group_vector_path(cfg, problem) {
        (problem.filter[2] * problem.cpg() * vec, problem.cpg())
    } else {
        (0, vec)
    };
    let est = rows_per_thread(cfg) * vec * px + column + weights + 32;
    est.min(u32::MAX as u64) as u32
}

/// The direct plan of one admitted (kernel, problem) pair: everything the emitter and the cost
/// model read, computed once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectPlan {
    /// The kernel that runs: the config, with a backward-weight slab count left to the rule
    /// (`split_k = 0`) resolved to the plan's ([`wgrad::slab_count`]).
    pub cfg: KernelConfig,
    /// True when `cfg` holds a resolved rule field (then `Plan::resolved_config` reports it).
    pub resolved: bool,
    /// The problem.
    pub problem: Problem,
    /// The forward convolution the kernel computes ([`forward_problem`]: the problem, or the
    /// dual of a backward-data problem), before group merge.
    pub forward_problem: Problem,
    /// The problem the kernel computes ([`kernel_problem`]: merged groups for group merge).
    pub kernel_problem: Problem,
    /// The geometry.
    pub geometry: DirectGeometry,
    /// Estimated registers per thread.
    pub registers: u32,
}

impl DirectPlan {
    /// The plan of `cfg` on `problem` on `device` (the rules are checked on it afterwards).
    pub fn new(cfg: &KernelConfig, problem: &Problem, device: &DeviceLimits) -> DirectPlan {
        let fp = forward_problem(problem);
        let kp = merge_groups(cfg, &fp);
        DirectPlan::of(cfg, problem, fp, kp, device)
    }

    /// [`DirectPlan::new`] given the problem's [`forward_problem`] `fp` and [`kernel_problem`]
    /// `kp` (the gate derived them for the rules it checks first).
    pub(crate) fn of(
        cfg: &KernelConfig,
        problem: &Problem,
        fp: Problem,
        kp: Problem,
        device: &DeviceLimits,
    ) -> DirectPlan {
        let parts = PlanParts::of(cfg, problem, &fp, &kp, device);
        DirectPlan {
            cfg: parts.cfg,
            resolved: parts.resolved,
            problem: *problem,
            forward_problem: fp,
            kernel_problem: kp,
            geometry: parts.geometry,
            registers: parts.registers,
        }
    }
}

/// What [`DirectPlan::of`] derives (its fields other than the problems): the gate's summary
/// reads these where they were derived, with the problems borrowed, instead of copying three
/// problems into a plan it drops at once.
pub(crate) struct PlanParts {
    /// [`DirectPlan::cfg`].
    pub cfg: KernelConfig,
    /// [`DirectPlan::resolved`].
    pub resolved: bool,
    /// [`DirectPlan::geometry`].
    pub geometry: DirectGeometry,
    /// [`DirectPlan::registers`].
    pub registers: u32,
}

impl PlanParts {
    /// [`DirectPlan::of`]'s derivations of `cfg` on `problem`, its forward problem `fp` and
    /// kernel problem `kp`.
    #[inline(always)]
    pub(crate) fn of(
        cfg: &KernelConfig,
        problem: &Problem,
        fp: &Problem,
        kp: &Problem,
        device: &DeviceLimits,
    ) -> PlanParts {
        let geometry = geometry_of(cfg, kp, device);
        let resolved = wgrad::applies(problem) && cfg.split_k == 0;
        let cfg = if resolved {
            KernelConfig {
                split_k: geometry.grid[0].min(u32::MAX as u64) as u32,
                ..*cfg
            }
        } else {
            *cfg
        };
        PlanParts {
            cfg,
            resolved,
            geometry,
            registers: registers_on(&cfg, fp, kp),
        }
    }
}
