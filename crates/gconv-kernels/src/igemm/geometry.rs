//! The igemm family's geometry: shared memory, the wgmma shape, the register estimate, the
//! effective vector widths (the one place that clamps the vector caps), the k-tile count, the
//! launch grid, and the [`IgemmPlan`] that holds them for one admitted (kernel, problem) pair.

use crate::config::{FastPath, KernelConfig, Math, SplitKMode};
use crate::device::DeviceLimits;
use crate::shared::{largest_pow2_dividing, split_degree, split_degree_within};
use gconv_problem::{Direction, Problem};

/// The fragments a direction contributes to the kernel body (`super::emit::direction_parts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectionParts {
    /// Device helpers placed before the kernel (empty for the forward direction;
    /// `dgrad_helpers.cu` for backward-data).
    pub prologue: &'static str,
    /// The operand loaders (`fwd_loaders.cu`, `dgrad_loaders.cu`).
    pub loaders: &'static str,
}

/// Channels per group of the A operand's loads along the reduction: C/G forward, K/G
/// backward-data (backward-weight reduces over pixels; its header's CG is C/G as forward's).
pub fn reduction_cpg(problem: &Problem) -> u64 {
    match problem.direction {
        Direction::Dgrad => problem.kpg(),
        _ => problem.cpg(),
    }
}

/// Output channels per group (the GEMM's N per group): K/G forward, C/G backward-data
/// (backward-weight: K/G, its GEMM rows).
pub fn output_kpg(problem: &Problem) -> u64 {
    match problem.direction {
        Direction::Dgrad => problem.cpg(),
        _ => problem.kpg(),
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Backward-data taps of one spatial dimension that reach stride phase `rho` (dX positions
/// with `hi + pad = rho (mod stride)`): the filter taps `y` with `y·dilation = rho (mod
/// stride)`. The generated `phase_dim` (`dgrad_helpers.cu`) computes the same on the GPU.
pub fn dgrad_phase_taps(stride: u64, dilation: u64, filter: u64, rho: u64) -> u64 {
    let g = gcd(stride, dilation).max(1);
    let ystep = stride / g;
    if !rho.is_multiple_of(g) {
        return 0;
    }
    match (0..ystep).find(|y| (y * dilation) % stride == rho) {
        Some(y0) if y0 < filter => (filter - y0).div_ceil(ystep),
        _ => 0,
    }
}

/// Backward-data stride phases (`stride_d · stride_h · stride_w`; one at stride 1).
pub fn dgrad_phases(problem: &Problem) -> u64 {
    problem.stride.iter().product::<u64>().max(1)
}

/// The padded image of the halo fast path (stride 1, 2D or 1D): output pixel (h, w) and filter
/// tap (y, x) read the A operand's padded pixel (h + y·DH, w + x·DW) in forward (X) and
/// (h + (FY−1−y)·DH, w + (FX−1−x)·DW) in backward data (dY, the filter walked backwards), which
/// is the A operand's pixel (· − `lh`, · − `lw`) where that is inside it and zero elsewhere. The
/// GEMM's rows are the padded image's pixels in linear order (`n·hp·wp + h·wp + w`; rows with
/// `h` or `w` past the output image are computed and not stored), so a tap's A rows are the
/// output rows shifted by at most `max_shift`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HaloDims {
    /// Padded rows and columns per image: dX's plus the filter's dilated extent less one.
    pub hp: u64,
    /// See `hp`.
    pub wp: u64,
    /// The A operand's offset in the padded image: `pad` forward, `(F−1)·dilation − pad`
    /// backward data (negative: the padding reaches beyond the filter, which the path refuses).
    pub lh: i64,
    /// See `lh`.
    pub lw: i64,
    /// The largest tap shift, in rows.
    pub max_shift: u64,
}

/// [`HaloDims`] of a forward or backward-data problem (any; the rules say where the path
/// applies).
pub fn halo_dims(problem: &Problem) -> HaloDims {
    let ext = |d: usize| (problem.filter[d].max(1) - 1) * problem.dilation[d];
    let (eh, ew) = (ext(1), ext(2));
    let pad = |d: usize| problem.pad[d] as i64;
    // The output image and where it starts in the padded rows: Y after the padding forward,
    // dX after the dual's padding (reach − padding) backward data.
    let (out, lh, lw) = if problem.direction == Direction::Dgrad {
        (problem.input, eh as i64 - pad(1), ew as i64 - pad(2))
    } else {
        (problem.output(), pad(1), pad(2))
    };
    let wp = out[2] + ew;
    HaloDims {
        hp: out[1] + eh,
        wp,
        lh,
        lw,
        max_shift: eh * wp + ew,
    }
}

/// Rows of one halo buffer of the halo fast path: the tile's rows and the largest shift,
/// rounded up to whole 8-row swizzle atoms.
pub fn halo_rows(cfg: &KernelConfig, problem: &Problem) -> u64 {
    (cfg.tile_m as u64 + halo_dims(problem).max_shift).div_ceil(8) * 8
}

/// M tiles of a halo plan: the padded images' rows (`N · hp · wp`) in tiles of `tile_m`.
pub fn halo_tiles(cfg: &KernelConfig, problem: &Problem) -> u64 {
    let h = halo_dims(problem);
    (problem.n * h.hp * h.wp).div_ceil(cfg.tile_m.max(1) as u64)
}

/// Shared memory of a halo plan: the B stages, one halo buffer (`halo_rows` × 128 bytes) per
/// 64-channel block of the reduction, at least the epilogue's staging, and the 1024-byte
/// alignment of wgmma.
pub fn halo_smem_bytes(cfg: &KernelConfig, problem: &Problem) -> u64 {
    let es = cfg.dtype.size_bytes();
    let row = cfg.tile_k as u64 * es;
    let blocks = reduction_cpg(problem).div_ceil(cfg.tile_k.max(1) as u64);
    let pipeline =
        cfg.stages as u64 * cfg.tile_n as u64 * row + blocks * halo_rows(cfg, problem) * row;
    pipeline.max(epilogue_bytes(cfg) as u64) + base_align(cfg) as u64
}

/// The epilogue's staging of the output tile in shared memory (f32 partials under split-K).
fn epilogue_bytes(cfg: &KernelConfig) -> u32 {
    let out_es = if cfg.split_k > 1 {
        4
    } else {
        cfg.dtype.size_bytes() as u32
    };
    cfg.tile_m
        .saturating_mul(cfg.tile_n.saturating_add(EPILOGUE_PAD))
        .saturating_mul(out_es)
}

/// Bytes in front of the pipeline's base. wgmma: the kernel rounds its shared-memory base up to
/// 1024 bytes (the 128-byte swizzle repeats every 8 rows of 128 bytes and is applied to
/// absolute addresses); wgmmaws and wgmmatma keep their two 8-byte barriers per stage (full,
/// empty) in front of that base.
fn base_align(cfg: &KernelConfig) -> u32 {
    match cfg.math {
        Math::Wgmma => 1024,
        Math::WgmmaWs | Math::WgmmaTma => 1024 + 16 * cfg.stages,
        _ => 0,
    }
}

/// Backward-data M tiles per phase: every phase gets the tiles of the largest one (N · Π ⌈dX
/// extent / stride⌉ rows); the surplus tiles of a smaller phase return at once. The halo fast
/// path (one phase) tiles the padded image's rows ([`HaloDims`]).
pub fn dgrad_tiles_per_phase(cfg: &KernelConfig, problem: &Problem) -> u64 {
    if cfg.fast_path == FastPath::Halo {
        return halo_tiles(cfg, problem);
    }
    let rows: u64 = (0..3)
        .map(|d| problem.input[d].div_ceil(problem.stride[d].max(1)))
        .product::<u64>()
        * problem.n;
    rows.div_ceil(cfg.tile_m.max(1) as u64)
}

/// Taps of every backward-data phase, in phase order (w fastest).
pub fn dgrad_taps_per_phase(problem: &Problem) -> Vec<u64> {
    dgrad_phase_taps_iter(problem).collect()
}

/// [`dgrad_taps_per_phase`] without the vector ([`k_tiles`] sums it for every member the gate
/// plans).
fn dgrad_phase_taps_iter(problem: &Problem) -> impl Iterator<Item = u64> + '_ {
    let [sd, sh, sw] = problem.stride;
    let dim = |d: usize, rho: u64| {
        dgrad_phase_taps(
            problem.stride[d],
            problem.dilation[d],
            problem.filter[d],
            rho,
        )
    };
    (0..sd).flat_map(move |rd| {
        (0..sh).flat_map(move |rh| (0..sw).map(move |rw| dim(0, rd) * dim(1, rh) * dim(2, rw)))
    })
}

/// Elements of padding added to each row of the epilogue's shared-memory staging tile.
pub const EPILOGUE_PAD: u32 = 8;

/// Warp tile (M, N): the block tile over the warp layout.
pub fn warp_tile(cfg: &KernelConfig) -> (u32, u32) {
    (
        cfg.tile_m / cfg.warps_m.max(1),
        cfg.tile_n / cfg.warps_n.max(1),
    )
}

/// Shared memory a config needs: the larger of the pipeline (`stages` × (A + B) tiles) and the
/// epilogue's staging tile (`tile_m` × (`tile_n` + [`EPILOGUE_PAD`]) output elements, f32 when
/// split-K writes partials). A backward-data plan whose weight tile is K-major needs
/// [`smem_bytes_with_raw`] (the check is the family's problem rule).
pub fn smem_bytes(cfg: &KernelConfig) -> u32 {
    smem_of(cfg, false)
}

/// [`smem_bytes`] plus the raw stage of a K-major backward-data weight tile: the weight blocks
/// as loaded, beside each B tile, before their transpose (a second B tile per stage).
pub fn smem_bytes_with_raw(cfg: &KernelConfig) -> u32 {
    smem_of(cfg, true)
}

fn smem_of(cfg: &KernelConfig, raw: bool) -> u32 {
    let es = cfg.dtype.size_bytes() as u32;
    let b_tiles = if raw { 2u32 } else { 1 };
    // Backward-weight tiles are MN-major: whole 128-byte panels along M and N.
    let panel = 128 / es;
    let (tm, tn) = if cfg.direction == Direction::Wgrad {
        (
            cfg.tile_m.div_ceil(panel).saturating_mul(panel),
            cfg.tile_n.div_ceil(panel).saturating_mul(panel),
        )
    } else {
        (cfg.tile_m, cfg.tile_n)
    };
    let pipeline = cfg
        .stages
        .saturating_mul(tm.saturating_add(tn.saturating_mul(b_tiles)))
        .saturating_mul(cfg.tile_k)
        .saturating_mul(es);
    pipeline
        .max(epilogue_bytes(cfg))
        .saturating_add(base_align(cfg))
}

/// wgmma geometry of a config: (warpgroups, m64 blocks per warpgroup, accumulators per thread
/// per m64 block).
pub fn wgmma_shape(cfg: &KernelConfig) -> (u32, u32, u32) {
    let wg = (cfg.warps_m * cfg.warps_n / 4).max(1);
    (wg, (cfg.tile_m / (64 * wg)).max(1), cfg.tile_n / 2)
}

/// Estimated registers per thread: accumulators, fragments (double-buffered for mma), loader
/// state and a fixed allowance for addresses and loop counters.
pub fn register_estimate(cfg: &KernelConfig) -> u32 {
    register_estimate_with(cfg, cfg.vec_b)
}

/// [`register_estimate`] with the B vector width a problem gives (backward-data: the side of
/// its weight blocks, which sets how many blocks a thread holds: 1×1 blocks of odd channel
/// counts are a block per element).
pub fn register_estimate_with(cfg: &KernelConfig, vec_b: u32) -> u32 {
    let (wm, wn) = warp_tile(cfg);
    // The threads that run the loaders: all of them, or the producers of wgmmaws (wgmmatma's
    // producer warp issues box copies and holds no loader state).
    let ws = cfg.math.is_warp_specialised();
    let threads = if ws {
        cfg.math.producer_threads()
    } else {
        cfg.threads().max(1)
    };
    let va = cfg.vec_a.max(1);
    let vb = vec_b.max(1);
    let ia = (cfg.tile_m * cfg.tile_k / va).div_ceil(threads);
    // Backward-data: four ints of state per weight block, and one block's rows while it is
    // transposed (between the copies and the barrier, when no fragments are live).
    let (ib, transient) = if cfg.direction == Direction::Wgrad {
        // Backward-weight: per B unit its k row, channel, tap displacement (5 ints), per A
        // unit 2 ints (the pixel decode is transient, per k-tile).
        let ua = (cfg.tile_m * cfg.tile_k / va).div_ceil(threads);
        let ub = (cfg.tile_n * cfg.tile_k / vb).div_ceil(threads);
        (2 * ua + 5 * ub, 0)
    } else if cfg.direction == Direction::Dgrad {
        let words = (vb * cfg.dtype.size_bytes() as u32).div_ceil(4);
        (
            ((cfg.tile_n / vb) * (cfg.tile_k / vb)).div_ceil(threads) * 4,
            vb * words,
        )
    } else {
        ((cfg.tile_n * cfg.tile_k / vb).div_ceil(threads), 0)
    };
    let loaders = if cfg.direction == Direction::Wgrad {
        ib
    } else {
        2 * ia + ib
    };
    let (acc, frags) = match cfg.math {
        Math::Simt => {
            let (tm, tn) = (wm / 4, wn / 8);
            (tm * tn, 4 * (tm + tn))
        }
        Math::Mma | Math::Tf32 => (wm * wn / 32, 2 * (wm / 16 * 4 + wn / 8 * 2)),
        Math::Wgmma | Math::WgmmaWs | Math::WgmmaTma => {
            let (_, mwg, nacc) = wgmma_shape(cfg);
            (mwg * nacc, 0)
        }
    };
    if cfg.math == Math::WgmmaTma {
        return acc + 28;
    }
    if ws {
        // One kernel, two roles: the accumulators live in the consumers, the loader state in
        // the producer.
        return acc.max(transient + loaders) + 28;
    }
    acc + frags.max(transient) + loaders + 28
}

/// Vector widths (elements) a config uses on a problem, after clamping the caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectiveVectors {
    /// A (activation) loads: divides the merged reduction channels (gm·C/G; dgrad gm·K/G).
    pub a: u32,
    /// B (weight) loads: divides C/G (dgrad: C/G and K/G, the side of a transposed block).
    pub b: u32,
    /// Output stores: divides the merged output channels (gm·K/G; dgrad gm·C/G), at most 16
    /// bytes.
    pub c: u32,
}

/// The one place that clamps the vector caps: the largest power of two ≤ the cap that divides
/// the channels a vector must stay inside (gm·C/G for A, C/G for B, gm·K/G for the output;
/// with a merge tail, `rules::merge_tail`, gcd(gm, G) groups' channels instead of gm's, so
/// that no vector straddles the tail — the gate admits a tail only where that narrows no
/// vector, [`tail_narrows_vectors`]).
pub fn effective_vectors(cfg: &KernelConfig, problem: &Problem) -> EffectiveVectors {
    vectors_over(cfg, problem, gcd(cfg.group_merge.max(1) as u64, problem.g))
}

/// Would a merge tail narrow a vector ([`effective_vectors`] over gcd(gm, G) groups' channels
/// against gm groups')? The loaders and stores would then move more, narrower chunks than the
/// register estimate and the cost model assume (the estimate reads the config's vectors): a
/// depthwise layer merged by 16 over 54 groups loads 2-channel chunks where 48 groups load 8,
/// and ptxas gave it 165 registers against 121.
pub fn tail_narrows_vectors(cfg: &KernelConfig, problem: &Problem) -> bool {
    let gm = cfg.group_merge.max(1) as u64;
    !problem.g.is_multiple_of(gm)
        && vectors_over(cfg, problem, gm) != effective_vectors(cfg, problem)
}

/// [`effective_vectors`] with runs of `gm` groups' channels.
fn vectors_over(cfg: &KernelConfig, problem: &Problem, gm: u64) -> EffectiveVectors {
    let vmax = (16 / cfg.dtype.size_bytes()) as u32;
    let out_es = if cfg.split_k > 1 {
        4
    } else {
        cfg.dtype.size_bytes() as u32
    };
    // Backward-data weight blocks are square (VB channels × VB reduction channels, transposed
    // in registers): VB divides both C/G and K/G.
    let b_channels = match cfg.direction {
        Direction::Dgrad => gcd(problem.cpg(), problem.kpg()),
        _ => problem.cpg(),
    };
    if cfg.direction == Direction::Wgrad {
        // A = dY: runs of gm·K/G channels along M; B = X: runs of gm·C/G channels along N (one
        // tap each); stores: runs of C/G channels of dW (true per-group dims).
        return EffectiveVectors {
            a: largest_pow2_dividing(gm * problem.kpg(), cfg.vec_a.min(cfg.tile_m) as u64) as u32,
            b: largest_pow2_dividing(gm * problem.cpg(), cfg.vec_b.min(cfg.tile_n) as u64) as u32,
            c: largest_pow2_dividing(problem.cpg(), (16 / out_es).min(vmax * 2) as u64) as u32,
        };
    }
    EffectiveVectors {
        a: largest_pow2_dividing(
            gm * reduction_cpg(problem),
            cfg.vec_a.min(cfg.tile_k) as u64,
        ) as u32,
        b: largest_pow2_dividing(b_channels, cfg.vec_b.min(cfg.tile_k) as u64) as u32,
        c: largest_pow2_dividing(gm * output_kpg(problem), (16 / out_es).min(vmax * 2) as u64)
            as u32,
    }
}

/// Number of k-tiles the generated kernel walks: taps × ⌈gm·C/G / tile_k⌉, or, when the
/// merged channels gm·C/G are fewer than `tile_k` and divide it (several taps packed into one
/// k-tile), ⌈taps / (tile_k / (gm·C/G))⌉. Backward-data (reduction channels gm·K/G): the mean
/// over the stride phases of each phase's k-tiles (its own taps), rounded up.
pub fn k_tiles(cfg: &KernelConfig, problem: &Problem) -> u64 {
    k_tiles_of(cfg, problem, || problem.n * problem.output_volume())
}

/// [`k_tiles`], the problem's `N · Do·Ho·Wo` given (`out_pixels`, asked only in backward
/// weight: [`crate::family::ProblemFacts::out_pixels`] in the gate).
fn k_tiles_of(cfg: &KernelConfig, problem: &Problem, out_pixels: impl FnOnce() -> u64) -> u64 {
    let ceff = cfg.group_merge.max(1) as u64 * reduction_cpg(problem);
    let bk = cfg.tile_k.max(1) as u64;
    let of_taps = |taps: u64| {
        if ceff < bk && bk.is_multiple_of(ceff) {
            taps.div_ceil(bk / ceff)
        } else {
            taps * ceff.div_ceil(bk)
        }
    };
    if problem.direction == Direction::Wgrad {
        // the reduction is over the N·Do·Ho·Wo output pixels, tile_k per k-tile
        return out_pixels().div_ceil(bk);
    }
    if problem.direction == Direction::Dgrad {
        let (sum, phases) = dgrad_phase_taps_iter(problem)
            .fold((0u64, 0u64), |(sum, n), t| (sum + of_taps(t), n + 1));
        sum.div_ceil(phases.max(1))
    } else {
        of_taps(problem.filter_volume())
    }
}

/// The launch grid: x = M tiles (backward-data: phases × tiles per phase), y = N tiles,
/// z = ⌈G/gm⌉ · split_k (a backward-weight tail block, `rules::merge_tail`, included; a split
/// degree of 0, left to the rule, counts as 1). The cluster split (`sk{n}c`, backward-weight)
/// puts the slices of a tile next to each other in x instead (x = M tiles · split_k,
/// z = ⌈G/gm⌉): they are one thread-block cluster.
pub fn grid(cfg: &KernelConfig, problem: &Problem) -> [u64; 3] {
    grid_of(cfg, problem, || problem.gemm_mnk().0)
}

/// [`grid`], the problem's `N · Do·Ho·Wo` given (`out_pixels`, asked only in forward, where it
/// is the GEMM's M: [`crate::family::ProblemFacts::out_pixels`] in the gate).
fn grid_of(cfg: &KernelConfig, problem: &Problem, out_pixels: impl FnOnce() -> u64) -> [u64; 3] {
    let gm = cfg.group_merge.max(1) as u64;
    let split = cfg.split_k.max(1) as u64;
    if problem.direction == Direction::Wgrad {
        // rows: gm·K/G merged output channels; columns: taps × gm·C/G merged input channels
        let m_tiles = (gm * problem.kpg()).div_ceil(cfg.tile_m.max(1) as u64);
        let n_tiles =
            (problem.filter_volume() * gm * problem.cpg()).div_ceil(cfg.tile_n.max(1) as u64);
        return if cfg.split_k_mode == SplitKMode::Cluster {
            [m_tiles * split, n_tiles, problem.g.div_ceil(gm)]
        } else {
            [m_tiles, n_tiles, problem.g.div_ceil(gm) * split]
        };
    }
    let x = if problem.direction == Direction::Dgrad {
        dgrad_phases(problem) * dgrad_tiles_per_phase(cfg, problem)
    } else if cfg.fast_path == FastPath::Halo {
        halo_tiles(cfg, problem)
    } else {
        out_pixels().div_ceil(cfg.tile_m.max(1) as u64)
    };
    [
        x,
        (gm * output_kpg(problem)).div_ceil(cfg.tile_n.max(1) as u64),
        problem.g.div_ceil(gm) * split,
    ]
}

/// True when the B tile is N-major (k rows of N in 128-byte panels, read transposed:
/// `ldmatrix.trans`, wgmma imm-trans-b, outer products on CUDA cores): always in
/// backward-weight (B = X, channels contiguous); in backward-data when the weight tile can stay
/// as W stores it (channels contiguous): 16-bit elements, C/G and K/G multiples of 8 (8-channel
/// copies inside a group), `tile_n` a multiple of 64 (whole 128-byte panels) and tensor-core
/// math. Otherwise (backward-data) the tile is K-major, filled by blocks transposed in `land`.
pub fn b_nmajor(cfg: &KernelConfig, vectors: &EffectiveVectors) -> bool {
    cfg.direction == Direction::Wgrad || dgrad_weights_nmajor(cfg, vectors)
}

/// True when the A tile is MN-major (k rows of M, 128-byte panels; read with `ldmatrix.trans`,
/// wgmma imm-trans-a, or outer products on CUDA cores): backward-weight, whose A = dY keeps its
/// channels (the GEMM's M) contiguous. Its B = X is then N-major too ([`b_nmajor`]).
pub fn a_mmajor(cfg: &KernelConfig) -> bool {
    cfg.direction == Direction::Wgrad
}

fn dgrad_weights_nmajor(cfg: &KernelConfig, vectors: &EffectiveVectors) -> bool {
    cfg.direction == Direction::Dgrad
        && cfg.dtype.size_bytes() == 2
        && vectors.b == 8
        && cfg.tile_n.is_multiple_of(64)
        && matches!(
            cfg.math,
            Math::Mma | Math::Wgmma | Math::WgmmaWs | Math::WgmmaTma
        )
}

/// The igemm plan of one admitted (kernel, problem) pair: everything the emitter and the cost
/// model read, computed once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IgemmPlan {
    /// The kernel.
    pub cfg: KernelConfig,
    /// The problem.
    pub problem: Problem,
    /// Effective vector widths.
    pub vectors: EffectiveVectors,
    /// Main launch grid.
    pub grid: [u64; 3],
    /// k-tiles one CTA walks (of its split-K slice).
    pub k_tiles: u64,
    /// Dynamic shared memory of the main launch.
    pub smem_bytes: u32,
    /// Estimated registers per thread.
    pub registers: u32,
    /// The B tile is N-major ([`b_nmajor`]).
    pub b_nmajor: bool,
    /// The A tile is M-major ([`a_mmajor`]).
    pub a_mmajor: bool,
    /// The direction's fragments of the kernel body.
    pub parts: DirectionParts,
}

impl IgemmPlan {
    /// The plan of `cfg` on `problem` (both already checked by the rules) with the direction's
    /// fragments, on `device` (which sizes a split-K degree left to the rule).
    pub fn new(
        cfg: &KernelConfig,
        problem: &Problem,
        parts: DirectionParts,
        device: &DeviceLimits,
    ) -> IgemmPlan {
        IgemmPlan::of(cfg, problem, parts, device, || {
            problem.n * problem.output_volume()
        })
    }

    /// [`IgemmPlan::new`], the problem's `N · Do·Ho·Wo` given (`out_pixels`:
    /// [`crate::family::ProblemFacts::out_pixels`] in the gate).
    #[inline(always)]
    pub(crate) fn of(
        cfg: &KernelConfig,
        problem: &Problem,
        parts: DirectionParts,
        device: &DeviceLimits,
        out_pixels: impl Fn() -> u64 + Copy,
    ) -> IgemmPlan {
        let cfg = &resolve_split_of(cfg, problem, device, out_pixels);
        let vectors = effective_vectors(cfg, problem);
        let nmajor = b_nmajor(cfg, &vectors);
        let smem = if cfg.fast_path == FastPath::Halo {
            halo_smem_bytes(cfg, problem).min(u32::MAX as u64) as u32
        } else if cfg.direction == Direction::Dgrad && !nmajor {
            smem_bytes_with_raw(cfg)
        } else {
            smem_bytes(cfg)
        };
        IgemmPlan {
            cfg: *cfg,
            problem: *problem,
            vectors,
            grid: grid_of(cfg, problem, out_pixels),
            k_tiles: k_tiles_of(cfg, problem, out_pixels).div_ceil(cfg.split_k.max(1) as u64),
            smem_bytes: smem,
            registers: if nmajor {
                register_estimate(cfg)
            } else {
                register_estimate_with(cfg, vectors.b)
            },
            b_nmajor: nmajor,
            a_mmajor: a_mmajor(cfg),
            parts,
        }
    }
}

/// `cfg` with a split-K degree left to the rule (`split_k = 0`) resolved on `problem` by
/// [`crate::shared::split_degree`]: the grid of one slice (tiles × group blocks) against one
/// wave of the device at the plan's occupancy, clamped to the k-tiles and to gridDim.z, then
/// snapped; with the cluster reduction (`sk0c`) clamped to the portable cluster size instead of
/// gridDim.z (its slices share x). A resolved degree of 1 reduces in place (mode `d`: one
/// kernel, one name). A config with a fixed degree is returned as it is.
pub fn resolve_split(cfg: &KernelConfig, problem: &Problem, device: &DeviceLimits) -> KernelConfig {
    resolve_split_of(cfg, problem, device, || problem.n * problem.output_volume())
}

/// [`resolve_split`], the problem's `N · Do·Ho·Wo` given (`out_pixels`, as [`grid`] and
/// [`k_tiles`] read it).
pub(crate) fn resolve_split_of(
    cfg: &KernelConfig,
    problem: &Problem,
    device: &DeviceLimits,
    out_pixels: impl Fn() -> u64 + Copy,
) -> KernelConfig {
    if cfg.split_k != 0 {
        return *cfg;
    }
    let one = KernelConfig { split_k: 1, ..*cfg };
    let g = grid_of(&one, problem, out_pixels);
    let smem = if cfg.direction == Direction::Dgrad {
        smem_bytes_with_raw(&one)
    } else {
        smem_bytes(&one)
    };
    let wave = device.wave(smem as u64, one.threads(), register_estimate(&one));
    let gm = cfg.group_merge.max(1) as u64;
    let k_tiles = k_tiles_of(&one, problem, out_pixels);
    let d = if cfg.split_k_mode == SplitKMode::Cluster {
        // the slices of a tile are one cluster (at most the portable size), adjacent in x
        split_degree_within(
            g[0] * g[1] * g[2],
            wave,
            k_tiles,
            1,
            DeviceLimits::PORTABLE_CLUSTER,
        )
    } else {
        split_degree(g[0] * g[1] * g[2], wave, k_tiles, problem.g.div_ceil(gm))
    };
    KernelConfig {
        split_k: d,
        split_k_mode: if d == 1 {
            SplitKMode::Deterministic
        } else {
            cfg.split_k_mode
        },
        ..*cfg
    }
}
