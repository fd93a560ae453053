//! The `direct` family (forward, backward data and backward weight): a direct convolution over a shared-memory
//! halo tile per output tile for the memory-bound small-C/G regimes — depthwise (C = K = G),
//! channel multiplier (C = G, K = m·G) and C/G ≤ 4 on CUDA cores (`math = simt`, this module)
//! — in 1D/2D/3D with any stride, padding and dilation, f32/f16/bf16 storage and f32
//! accumulation, on the NHWC (NHWGC) layouts of `ARCHITECTURE.md`; and, on tensor cores
//! (`math = mma`, module [`mma`]), grouped layers whose C/G and K/G are multiples of 8. Both
//! paths share the tile walk and the halo copy (`common.cu`). Backward data and backward
//! weight: see the sections below.
//!
//! The family owns, in this folder: its rules ([`rules`]), geometry and plan ([`geometry`](mod@geometry)),
//! cost model ([`cost`]), pools ([`pool`]), code generation ([`emit`] and the `.cu` files), the
//! tensor-core path ([`mma`]), the stride-phase backward-data kernel ([`strided`]), the
//! backward-weight slab kernel ([`wgrad`]), its tensor-core twin ([`wgrad_mma`]) and the
//! depthwise register-streaming backward-weight kernel ([`stream`]) and its tensor-core
//! counterpart with a banded dY operand ([`banded`]), the depthwise forward / backward-data
//! tensor-core kernel with a banded filter operand ([`fwd_banded`]), behind
//! [`Direct`], its [`KernelFamily`] implementation; [`DirectView`] reads a config's fields in
//! the family's own words.
//!
//! # KernelConfig fields (how the shared fields are reused; simt path, see [`mma`] for the other;
//! [`DirectView`] names them in code)
//!
//! | field | direct meaning |
//! |---|---|
//! | `tile_m` | output pixels per CTA tile, `TH × TW` (one output depth slice per tile) |
//! | `tile_k` | `TW`, the tile width along W (`TH = tile_m / tile_k`) |
//! | `tile_n` | `BN`, output channels per CTA |
//! | `vec_a` | `VEC`, adjacent output channels per thread (a power of two ≤ 8) |
//! | `vec_b` | `PX`, adjacent output pixels along W per thread (1..=8, e.g. 7 for 7/14/28-wide outputs) |
//! | `warps_m` | warps per CTA (1..=8); `warps_n` is 1 |
//! | `stages` | 1: one tile per CTA; 2: persistent CTAs that walk several tiles with the next tile's halo in flight (double-buffered); 3 (tensor cores only): a column of tiles streamed over depth ([`mma`]) |
//! | `math` | `simt` (this table) or `mma` (the tensor-core path, [`mma`]) |
//! | `group_merge` | `1` on this path (the mma path merges groups, see [`mma`]) |
//! | `split_k`, `fast_path` | fixed: `1d`, `gen` |
//!
//! A tile has `TH × TW/PX × BN/VEC` work items (output row, column group, channel lane);
//! `validate` requires them to be exactly `threads × PY` with `PY` ≤ 16 dividing `TH`
//! ([`geometry::rows_per_thread`]): each thread computes a `PY × PX × VEC` block of outputs. Example:
//! `direct_fwd_bf16_t196x32x14_w7x1_s1_v2x7_gm1_sk1d_simt_gen` = 14×14 pixels × 32 channels,
//! 224 threads, each 2 rows × 7 pixels × 2 channels.
//!
//! # What one CTA does
//!
//! Grid = (spatial tiles, or fewer for persistent CTAs, ⌈K/BN⌉, 1); persistent CUDA-core CTAs
//! are one wave of what fits an SM under a 128-register budget (at most 8), and the kernel's
//! launch bound (`MIN_CTAS`) holds ptxas to it, so that every CTA is resident from the start
//! (`geometry::PERSISTENT_REGS`). CTA (x, y) owns output
//! channels `[y·BN, (y+1)·BN)`, which read the `CT = BN/(K/G)·(C/G)` input channels of the same
//! groups, and one or more output tiles `[oh0, oh0+TH) × [ow0, ow0+TW)` of one (n, od).
//!
//! 1. **Weights**, once per CTA: `BN × taps × C/G`, widened to f32, transposed to
//!    `[tap·C/G][BN]` in shared memory — plain reads, issued after the first tile's halo
//!    copies (step 2) so that they overlap them (`walk_tiles`' prologue, `common.cu`).
//! 2. **Input halo tile** per output tile: `FZ × ITH × ITW × CT` elements in shared memory,
//!    `ITH = (TH−1)·SH + (FY−1)·DH + 1`, `ITW = (TW−1)·SW + (FX−1)·DW + 1`; consecutive threads
//!    copy consecutive `VL`-channel chunks of one pixel (16 bytes when C allows) with `cp.async`
//!    zero-fill for padding and channels beyond C. With 2 stages the next tile's halo is issued
//!    into the second buffer before the current tile is computed.
//! 3. **Math**, f32 FMA, register sliding windows: a window row is the `SPAN = (PX−1)·SW +
//!    (FX−1)·DW + 1` input columns that feed the thread's PX outputs; each column read feeds
//!    every output that uses it. Four paths, chosen at generation time:
//!    - depthwise, filter in registers (rows-outer, [`geometry::weights_in_registers`]): the whole
//!      `FY × FX × VEC` filter of a depth slice in registers, each of the thread's
//!      `(PY−1)·SH + (FY−1)·DH + 1` input rows read once and applied to every output row it feeds;
//!    - depthwise, one filter row at a time (fy-outer) when the filter does not fit;
//!    - grouped vector ([`geometry::group_vector_path`], C/G > 1 or a channel multiplier with the thread's
//!      VEC channels in one group): one read gives the group's C/G input channels, feeding
//!      `C/G × VEC` FMAs per output;
//!    - scalar: any other small-C/G layout, one shared-memory read per FMA.
//! 4. **Stores** straight from registers, `SV` channels (16 bytes at most) per access.
//!
//! Shared memory = `stages · round16(FZ·ITH·XROW·esize) + taps·(C/G)·BN·4` bytes (checked
//! against the 227 KB limit by the admission), `XROW = ITW·CT` + 0–7 16-byte chunks of row
//! padding chosen by a bank model ([`geometry::smem_read_wavefronts`]) so that a warp whose lanes span
//! several row groups reads distinct banks.
//!
//! # Backward data (dgrad)
//!
//! At stride 1, dX is the forward convolution of dY with the filter flipped in space and
//! transposed in channels, `W'[g][c][tap][kk] = W[g][kk][taps−1−tap][c]`, on the dual problem
//! ([`gconv_problem::Problem::dgrad_dual`]: input = dY's spatial size, padding
//! `dil·(F−1) − pad`, C' = K, K' = C; its output is dX). A `direct_dgrad_…` kernel is the
//! forward kernel of that dual ([`forward_problem`]): the rules, geometry, registers, cost and
//! every generated constant but `DGRAD` are the dual's, and the body is the forward body; only
//! the weight staging differs (`dgrad.cu`'s `dgrad_w_index`, used by `dgrad_weights.cu` on CUDA
//! cores and `dgrad_mma_weights.cu` on tensor cores, group merge included): the flip and
//! transpose are in the load addressing of the once-per-CTA weight copy, with no extra pass
//! over W and no extra launch. The dgrad pool is the forward pool relabelled plus four persistent narrow-channel
//! tensor-core members for strided layers ([`pool::dgrad_pool`], [`pool::phase_mma_pool`]);
//! `auto` applies the forward rule to the dual.
//!
//! The channel rules apply to the dual, so they read swapped: the CUDA-core path needs K/G ≤ 4
//! (the dual's C/G) and whole groups of C/G channels (the dual's K/G) per channel tile; a
//! channel multiplier (C/G 1, K/G m) becomes a dual with C/G m and K/G 1, which sums its m dY
//! channels per output. The dual's padding can exceed the forward problem's usual range (pad 0
//! gives pad' = dil·(F−1)), so the halo covers more zero padding than the forward layer.
//!
//! Dgrad problems without a dual (any stride > 1, or a padding above `dil·(F−1)`) run on the
//! stride-phase kernels ([`strided`]): a CTA owns a tile of cells of `s_h × s_w` dX pixels
//! (all phases of a cell, and all depth phases of a 3D cell slice) and stages the dY halo they
//! read once. On CUDA cores (`dgrad_phases.cu`) each thread accumulates every phase of its cells
//! with the phase's taps resolved at compile time; on tensor cores (`dgrad_phases_mma.cu`) each
//! phase is an implicit GEMM of its own over the staged halo (only its taps in the reduction).
//! Phases no tap reaches store zeros. Rules: CUDA cores K/G ≤ 4 (`direct_dgrad_channels`);
//! tensor cores C/G and K/G multiples of 8, no group merge, no depth streaming, no banded
//! tile (`direct_phase_mma_scope`); whole C/G groups per channel tile. Cost models
//! [`cost::phase_cost_estimate`] and [`cost::phase_mma_cost_estimate`] (neither fitted). The
//! same pool serves it (its [`pool::phase_mma_pool`] members were chosen on strided layers);
//! the config fields count cells instead of pixels.
//!
//! # Backward weight (wgrad)
//!
//! `dW = Σ_{n,o} dY ⊗ X` on the slab kernel of [`wgrad`] (`wgrad.cu`, CUDA cores): a CTA owns a
//! channel vector of `tile_n` output channels (whole groups) and a slab of consecutive output
//! tiles of the forward tile walk, stages the X halo (`common.cu`'s `load_halo`) and the dY
//! tile per tile, double-buffered, keeps `vec_b` taps × `vec_a` channels (× C/G) of f32
//! accumulators per thread (taps split across warps for large filters, taps that read only
//! padding skipped), sums its pixel groups in a fixed order and writes one f32 partial plane
//! (or dW itself when there is one slab); the shared deterministic `_reduce` launch sums the P
//! planes. P is `split_k` (0: [`wgrad::slab_count`], the groups-aware `split_degree` of the
//! whole grid capped so that the partials add at most 10 % to the compulsory X + dY traffic;
//! the plan reports the resolved config, `sk{P}d`). Rules: `math = simt`, `stages = 2`, C/G and
//! K/G ≤ [`MAX_DIRECT_CPG`] (`direct_wgrad_channels`), lanes × tap groups ≤ threads
//! (`direct_wgrad_thread_mapping`), a fixed P ≤ the tiles (`direct_wgrad_slabs`); pool
//! [`pool::wgrad_pool`]; cost [`cost::wgrad_cost_estimate`] (not fitted; × its measured
//! depthwise factor [`cost::SLAB_DEPTHWISE_FACTOR`]). No atomics: dW is bit-identical across
//! runs.
//!
//! Depthwise layers (C/G = K/G = 1) also run on the register-streaming kernel of [`stream`]
//! (`wgrad_stream.cu`, configs with `stages = 1`): no shared-memory staging in the main loop; a
//! thread (channel lane, tap-row group, work slot) walks output row strips of its slab, reads
//! dY and X straight from global memory (coalesced `vec_a`-channel loads, each value widened
//! once) into f32 register accumulators, skips tap rows that only see padding, and the CTA
//! sums its slots in a fixed order before writing its partial plane (the same reduction). Its
//! field table, slab rule ([`stream::slab_count`]: two waves of the whole grid, up to
//! [`stream::MAX_STREAM_SLABS`], the same 10 % partial-traffic cap, never below one wave) and rules
//! (`direct_wgrad_stream_depthwise`, `direct_wgrad_stream_thread_mapping`,
//! `direct_wgrad_stream_accumulators`, `direct_wgrad_slabs`) are in [`stream`]; pool
//! [`pool::stream_pool`] (part of the wgrad pool); cost [`cost::stream_cost_estimate`] (not
//! fitted).
//!
//! Grouped layers with C/G and K/G multiples of 8 (16-bit) also run on the slab walk's
//! tensor-core twin, [`wgrad_mma`] (`wgrad_mma.cu`, `math = mma`, `stages = 2`): one GEMM per
//! group with M = (tap, c) in 8-channel chunks, N = K/G, K = the tile's pixels on
//! `mma.sync.m16n8k16`, both operands by `ldmatrix.trans` from the staged halo and dY tile; a
//! warp's units keep their accumulators for the whole slab and store them (no reduction between
//! warps); `vec_b` M slices (grid z) split a group's units across CTAs. Rules
//! `direct_mma_channels`, `direct_channel_tile`, `direct_wgrad_mma_m_slices`,
//! `direct_wgrad_mma_accumulators`, `direct_wgrad_slabs`; slab rule [`wgrad_mma::slab_count`] (one wave, no traffic cap); pool
//! [`pool::mma_wgrad_pool`]; cost [`wgrad_mma::cost_estimate`] (not fitted).
//!
//! Depthwise 2D layers of 16-bit data with C a multiple of 8, stride 1, dilation 1 and
//! filters up to 32 × 35 (tap blocks of 8 × 7) also run on tensor cores, on the banded kernel of [`banded`]
//! (`wgrad_banded.cu`, `math = mma`, `stages = 1`): per channel, one `mma.sync.m16n8k16` whose
//! A is the banded (Toeplitz) matrix of two dY rows and whose B is eight X rows covers two
//! output rows × every tap row × 16 input columns. Rules `direct_wgrad_banded_scope`,
//! `direct_wgrad_slabs`; the slab rule is [`stream::slab_count`]; cost
//! [`banded::cost_estimate`] (× a measured factor).
//!
//! Known limits: 3D problems stage `FZ` depth slices per output slice (L2, not DRAM, traffic);
//! C not a multiple of 2 falls back to 2-byte copies.

pub mod banded;
pub mod cost;
pub mod emit;
pub mod fragments;
pub mod fwd_banded;
pub mod geometry;
pub mod mma;
pub mod pool;
pub mod rules;
pub mod shape;
pub mod stream;
pub mod strided;
pub mod view;
pub mod wgrad;
pub mod wgrad_mma;

pub use geometry::{
    forward_problem, geometry, kernel_problem, register_estimate, DirectGeometry, DirectPlan,
    W_REG_BUDGET,
};
pub use pool::config;
pub use rules::{DirectRule, MAX_DIRECT_CPG};
pub use view::{DirectView, DirectWork};

use crate::config::{Family, KernelConfig, Math};
use crate::device::DeviceLimits;
use crate::family::{KernelFamily, Plan, PlanSummary, ProblemFacts};
use crate::rejection::{Refused, Rejection};
use crate::source::{Arch, KernelSource};
use gconv_problem::{DType, Direction, Problem};
use std::sync::Arc;

impl Plan for DirectPlan {
    fn grid(&self) -> [u64; 3] {
        self.geometry.grid
    }
    fn smem_bytes(&self) -> u64 {
        self.geometry.smem_bytes
    }
    fn registers(&self) -> u32 {
        self.registers
    }
    fn cost(&self, device: &DeviceLimits) -> f64 {
        cost::cost_estimate(self, device)
    }
    fn emit(&self) -> KernelSource {
        emit::emit(self)
    }
    fn resolved_config(&self) -> Option<KernelConfig> {
        self.resolved.then_some(self.cfg)
    }
}

/// The family's problem rules and its plan of `cfg` on `problem` ([`KernelFamily::plan`]): the
/// rules that need no geometry first (a member they refuse is not planned), then the plan and
/// the rules that read it.
fn plan(
    cfg: &KernelConfig,
    problem: &Problem,
    device: &DeviceLimits,
) -> Result<DirectPlan, Rejection> {
    planned(cfg, problem, device, |plan| plan)
}

/// [`plan`]'s steps (the gate's summary takes the same steps in `summary`, without the plan).
fn planned<T>(
    cfg: &KernelConfig,
    problem: &Problem,
    device: &DeviceLimits,
    then: impl FnOnce(DirectPlan) -> T,
) -> Result<T, Rejection> {
    let fp = forward_problem(problem);
    let kp = geometry::merge_groups(cfg, &fp);
    rules::check_before_geometry::<Rejection>(cfg, problem, &fp, &kp)?;
    let plan = DirectPlan::of(cfg, problem, fp, kp, device);
    rules::check_after_geometry::<Rejection>(cfg, problem, &plan.geometry, plan.registers, device)?;
    Ok(then(plan))
}

/// [`planned`]'s steps summarised as [`PlanSummary::of`] the plan would be, without building
/// the plan (no problem is copied into one): the same rules in the same order on the same
/// derivations ([`geometry::PlanParts`]), the forward problem and its compulsory bytes read
/// from the gate's `facts` (a backward-data dual moves the problem's three tensors, dY as its
/// X and dX as its Y, so their bytes are the problem's: `cost::cost_of`).
/// `E` says how a broken rule answers ([`rules::Refusal`]: the rejection, or only that the
/// member was refused).
#[inline(always)]
fn summary<E: rules::Refusal>(
    cfg: &KernelConfig,
    facts: &ProblemFacts,
    device: &DeviceLimits,
) -> Result<PlanSummary, E> {
    let (problem, fp) = (facts.problem(), facts.forward());
    let merged = geometry::merged_groups(cfg, fp);
    let kp = merged.as_ref().unwrap_or(fp);
    rules::check_before_geometry::<E>(cfg, problem, fp, kp)?;
    let parts = geometry::PlanParts::of(cfg, problem, fp, kp, device);
    rules::check_after_geometry::<E>(cfg, problem, &parts.geometry, parts.registers, device)?;
    let cost = cost::cost_of(
        &parts.cfg,
        fp,
        kp,
        &parts.geometry,
        parts.registers,
        device,
        facts.min_bytes(),
    );
    Ok(PlanSummary {
        grid: parts.geometry.grid,
        smem_bytes: parts.geometry.smem_bytes,
        registers: parts.registers,
        cost,
        resolved: parts.resolved.then_some(parts.cfg),
    })
}

/// The direct family's [`KernelFamily`] implementation.
#[derive(Debug, Clone, Copy, Default)]
pub struct Direct;

impl KernelFamily for Direct {
    fn family(&self) -> Family {
        Family::Direct
    }

    /// Every direct module is plain sm_90 (`mma.sync`, `ldmatrix`, `cp.async`).
    fn required_arch(&self, _cfg: &KernelConfig) -> Arch {
        Arch::Sm90
    }

    fn validate(&self, cfg: &KernelConfig) -> Result<(), Rejection> {
        rules::validate(cfg)
    }

    fn plan(
        &self,
        cfg: &KernelConfig,
        problem: &Problem,
        device: &DeviceLimits,
    ) -> Result<Arc<dyn Plan>, Rejection> {
        Ok(Arc::new(plan(cfg, problem, device)?))
    }

    fn plan_summary(
        &self,
        cfg: &KernelConfig,
        facts: &ProblemFacts,
        device: &DeviceLimits,
    ) -> Result<PlanSummary, Rejection> {
        summary(cfg, facts, device)
    }

    /// The direct summary (`summary`) answering only that a member was refused: no rule message is written.
    fn plan_summary_or_refused(
        &self,
        cfg: &KernelConfig,
        facts: &ProblemFacts,
        device: &DeviceLimits,
    ) -> Result<PlanSummary, Refused> {
        summary(cfg, facts, device)
    }

    fn pool(&self, direction: Direction, dtype: DType) -> Vec<KernelConfig> {
        pool::pool(direction, dtype)
    }

    /// The CUDA-core members always; the tensor-core members without group merge where the
    /// measured regime favours them ([`mma::auto_eligible`] on the forward problem, the dual of
    /// a backward-data problem, whose C/G must also be at most [`mma::MAX_AUTO_CPG_DGRAD`]; a
    /// strided one is its own "forward problem", so the tensor-core stride-phase kernel enters
    /// the rule under the same bounds, which were measured on the dual path only; the
    /// group-merged members are not considered yet). Backward weight: depthwise and channel
    /// multipliers (C/G = 1) only.
    fn auto_considers(&self, cfg: &KernelConfig, problem: &Problem) -> bool {
        // Backward weight with C/G 2-4: the slab kernel lost to igemm's merged tiles on the
        // H200 (zoo C/G 4: 158 vs 95 µs, `results/h200/s7/README.md`); `auto` leaves those
        // layers to igemm and keeps depthwise and channel multipliers here. The tensor-core
        // members (C/G 8 and up, `wgrad_mma`) are ranked by the learned model only: this rule's
        // cost model was never compared with them on the device.
        if problem.direction == Direction::Wgrad {
            return problem.cpg() == 1;
        }
        // The regime is asked only of the tensor-core members (the rule's pick asks this of
        // every member).
        let eligible = || {
            let fwd = forward_problem(problem);
            if problem.direction == Direction::Dgrad {
                mma::auto_eligible_dgrad(problem, &fwd)
            } else {
                mma::auto_eligible(&fwd)
            }
        };
        cfg.math != Math::Mma || (cfg.group_merge == 1 && eligible())
    }
}

#[cfg(test)]
mod tests;
