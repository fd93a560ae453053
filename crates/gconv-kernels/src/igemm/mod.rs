//! The `igemm` family: implicit GEMM per group with groups on the grid, one launch per grouped
//! convolution (plus the reduction launches of split-K). Forward, backward-data and
//! backward-weight; the GEMM view of each direction is `gconv_problem::Problem::gemm_view`.
//!
//! The family owns, in this folder: its rules ([`rules`]), its geometry and plan
//! ([`geometry`]), its cost model ([`cost`]), its pools ([`pool`]) and its code generation
//! ([`emit`] and the `.cu` fragments), behind [`Igemm`], its [`KernelFamily`] implementation.
//! How it is verified (host emulation in CI, `gconv selftest --gpu` on the H200) and what it
//! measured are in `ARCHITECTURE.md` and `results/`.
//!
//! For each group block of `gm` adjacent groups the GEMM is M = N·Do·Ho·Wo output pixels,
//! N = gm·K/G merged output channels, K = taps × gm·C/G, walked as filter taps outer and channel
//! blocks of `tile_k` inner. Grid = (⌈M/tile_m⌉, ⌈gm·K/G / tile_n⌉, ⌈G/gm⌉ · split_k); where gm
//! does not divide G the last block merges a tail of fewer groups ([`rules::merge_tail`]).
//!
//! Backward weight may split its reduction (N·Do·Ho·Wo) `split_k` ways: `sk{n}d` writes one f32
//! plane per slice and a second launch sums them in a fixed order (`crate::SPLIT_REDUCE`);
//! `sk{n}c` (n in 2..=8) makes the n slices of a tile one thread-block cluster, adjacent in x
//! (grid x = tiles · n, z = ⌈G/gm⌉): each stages its f32 tile in shared memory as the epilogue
//! does anyway, and after a cluster barrier rank r takes its share of the tile's chunks, reads
//! each from the n ranks (`ld_cluster_f32xn`), sums them in rank order and stores dW; one
//! launch, no workspace; `sk{n}a`
//! adds into one f32 plane with atomics (named, never chosen by `auto`). On the H200 the
//! cluster split ran at 0.815× of `sk{n}d` at the same tile and degree (44 pairs on 7 zoo keys,
//! 3 faster, 0.38× on a 7-slice 128×128 tile; `results/h200/s29/README.md`), so no pool holds
//! it. A cluster's CTAs are placed in one GPC together and wait for each other at the barrier;
//! the suspected cost is CTAs packed onto fewer SMs, so the launch now asks the driver to spread
//! them (`Launch::cluster`), not yet measured.
//!
//! What the generated CUDA C++ does (the fragments of [`emit`], specialised with compile-time
//! constants of the config and the problem):
//!
//! - **Loads**: `cp.async` with `src-size` zero-fill (16/8/4 bytes, the effective vector widths
//!   of [`geometry::effective_vectors`]) handles padding, out-of-range rows and channels
//!   without branches; 2-byte elements (odd channel counts in f16/bf16) are loaded into
//!   registers before the tile's math and stored to shared memory after it. Each thread decodes
//!   its A rows (n, d, h, w of the output pixel) once, before the K loop; per k-tile only the
//!   tap offset and three unsigned range tests remain. The pointwise fast path skips the decode
//!   (row m starts at m·C) and is numerically identical to the general path.
//! - **Group merge**: the A tile gathers gm·C/G contiguous channels; the weight tile is
//!   block-diagonal (chunks outside a row's own group are zero-filled, never loaded); every
//!   output channel of the merged block is a real output and stored, except a tail's missing
//!   groups' ([`rules::merge_tail`]: their channels and weight rows load as zeros).
//! - **Shared memory**: row-major `[row][k]` tiles with an XOR swizzle of the 16-byte chunks
//!   inside each 128-byte line, conflict-free for `ldmatrix` (x4) and for the SIMT 16-byte reads.
//! - **Pipeline**: `stages` (2..=5; wgmma 3..=5) buffers, prologue of `stages − 1` tiles
//!   (wgmma: `stages − 2`), one `cp.async.wait_group` + `__syncthreads` per k-tile, the next
//!   tile's copies issued before the current tile's math.
//! - **Math**: f16/bf16 `mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}` (f32 accumulation);
//!   f32 FFMA on CUDA cores with a 4×8 lane layout and 16-byte shared loads; or (`math =
//!   wgmma`, sm_90a) `wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}` with N = tile_n:
//!   one to three warpgroups stacked along M, each owning 64 or 128 rows of the tile, both
//!   operands read by the tensor cores from the shared-memory tiles through matrix descriptors
//!   (K-major, 128-byte swizzle — the loaders' XOR swizzle with 128-byte rows, tile_k = 64, is
//!   that layout once the tiles start 1024-byte aligned, which the kernel arranges).
//!   `fence.proxy.async` after each thread's copies land, one batch of 4 k16 steps committed per
//!   k-tile and retired one k-tile later (`wait_group 1`), prefetch distance `stages − 2` so
//!   that no stage is refilled while a batch may still read it. The asm of each N lists the
//!   accumulators as operands, so it is generated per config (in [`emit`]).
//! - **Warp-specialised schedule** (`math = wgmmaws`): the same tiles and wgmma math, plus two
//!   producer warpgroups that alone run the loaders; per stage a full and an empty
//!   shared-memory barrier replace the CTA barrier (copies-only directions arrive through
//!   `cp.async.mbarrier.arrive.noinc`; the others wait for their copies, restage and arrive
//!   `stages − 2` k-tiles later). ARCHITECTURE.md, "The warp-specialised schedule".
//! - **TMA-fed schedule** (`math = wgmmatma`; pointwise in the three directions, C/G — and
//!   outside forward K/G — a multiple of 8; group merge and split-K (deterministic) in backward
//!   weight only; and the general path in the three directions, below):
//!   the warp-specialised schedule with one producer warp instead of the loaders; per k-tile
//!   one of its lanes waits for the stage to be free, arrives on its full barrier expecting the
//!   stage's bytes (`mbarrier.arrive.expect_tx`) and issues the stage's `cp.async.bulk.tensor`
//!   box copies (each direction's `tma_fetch`; the MN-major tiles one box per 64-element
//!   panel), which land in the 128-byte swizzle and complete those bytes; channels, pixels and
//!   rows outside the tensors come in as zeros. Forward on the general path (1D/2D, C/G a
//!   multiple of 64) reads A through im2col copies: per (tap, channel block) k-tile, the
//!   tile's output pixels walked from the first one's filter corner with the tap's offsets
//!   (`source::Im2col`), padding and the edges of the image as zeros; backward data at stride
//!   1 (K/G a multiple of 64) walks dX's pixels over dY the same way with the taps' offsets
//!   flipped (the dual forward convolution); backward weight (C/G a multiple of 64) reads
//!   each 64-channel panel of X's tile (one tap's channels) as an im2col copy of the k-tile's
//!   pixels. The tensor maps
//!   ([`emit::tensor_maps`]) are the launch's `tensor_maps`, encoded by the backend over the
//!   buffers at each launch.
//! - **Epilogue**: accumulators are converted (`cvt.rn.bf16x2.f32` / `cvt.rn.f16x2.f32`) and
//!   restaged through shared memory, then written with coalesced stores of up to 16 bytes.
//! - **Split-K**: deterministic (each split writes f32 partials to its own workspace plane; a
//!   second launch sums the planes in slice order and converts) or, named `a`, atomic (one f32
//!   plane zeroed, `red.global.add`, converted); `crate::SPLIT_REDUCE` holds the launches; or,
//!   named `c`, through a thread-block cluster's shared memory (above).
//!
//! **Backward-data** (`dgrad_loaders.cu`, `dgrad_helpers.cu`; `ARCHITECTURE.md` has the
//! algebra): A = dY, B = W, C = dX. The grid's x covers every stride phase of dX (`phases ×`
//! [`geometry::dgrad_tiles_per_phase`]); each phase's GEMM-K holds only its own taps
//! ([`geometry::dgrad_phase_taps`], the gcd(stride, dilation) form), so no MMA runs on the
//! zeros of a dilated dY, and phases without taps store zeros. The filter is flipped and
//! transposed in the load addressing. W keeps c contiguous: on tensor cores with 8-aligned C/G
//! and K/G ([`geometry::b_nmajor`]) the B tile is kept N-major and read transposed
//! (`ldmatrix.trans`, wgmma imm-trans-b); otherwise B's rows are input channels c, its columns
//! (tap, kk), filled by VB × VB blocks copied raw with `cp.async` and transposed by their
//! copying thread in `land(stage)` (after its copies landed, before the k-tile's barrier). Group merge, the pointwise path and all three math paths carry over;
//! split-K does not (M = N·Hi·Wi fills the GPU).
//!
//! **The halo fast path** (`fast_path = halo`, `halo.cu`: forward and backward data at stride 1
//! on wgmma, 2D or 1D, the reduction's channels per group (C/G forward, K/G backward data) a
//! multiple of 64; [`rules`] says why a problem is refused): a 3×3 layer's general kernel
//! gathers each A pixel (X, or dY) nine times into shared memory (once per tap). Here the GEMM's
//! rows are the pixels of the output image (Y, or dX) padded by the filter's dilated extent
//! ([`geometry::HaloDims`], `n·Hp·Wp + h·Wp + w`; rows past the output image are computed and
//! not stored), so that tap (y, x) reads the rows shifted by `y·dil·Wp + x·dil` (backward data:
//! `(F−1−y)·dil·Wp + (F−1−x)·dil`, the filter walked backwards). The CTA stages, once before
//! its k-loop, one halo per 64-channel block of the reduction (the tile's rows and the largest
//! shift, the A operand or zero, 128-byte rows in the 128-byte swizzle after the B stages; block
//! b in the prologue's copy group b, its first reader's, the blocks past the prologue in its
//! last group, so the first k-tile waits for one block); each
//! k-tile's A descriptor is that buffer's start advanced by the tap's shift
//! (wgmma reads a swizzled tile correctly at any 128-byte row shift with the descriptor's base
//! offset 0: measured, `results/h200/s26/`). Only B (the weights) streams through the stages.
//! The padded rows cost MMA (15 % more rows on 28×28 3×3, 3.4× on 7×7 with a 7×7 filter), so
//! the path wins where the gathers cost more than that (`results/h200/s26/`: faster than the
//! best pool member on 21 of 49 registry layers in each direction, down to 0.53×, slower on the
//! others). Four halo tiles are members of the forward and backward-data pools (`pool.rs`);
//! the selection model, trained on their rows, decides where the path pays (`results/h200/s27/`).
//!
//! **Backward-weight** (`wgrad_loaders.cu`; `ARCHITECTURE.md` has the algebra): A = dY, B = X,
//! C = dW, M = gm·K/G, N = taps × gm·C/G, K = N·Do·Ho·Wo. Both tiles are MN-major (the
//! channels are contiguous in dY and X): `ldmatrix.trans`, wgmma imm-trans-a/b, outer products
//! on CUDA cores. Split-K over the pixels, its degree fixed by the config or left to the rule
//! ([`geometry::resolve_split`], `crate::shared::split_degree`); deterministic f32 planes and
//! a fixed-order reduction by default, the atomic option by name only; the merged tile stores
//! its block diagonal only.
//!
//! Everything is header-free (no `cuda_bf16.h`); the same config and problem give byte-identical
//! source. Golden copies live in `tests/golden/`; `GCONV_BLESS=1 cargo test -p gconv-kernels
//! --test golden` rewrites them on purpose.

pub mod cost;
pub mod emit;
pub mod geometry;
pub mod pool;
pub mod rules;

pub use geometry::{
    effective_vectors, grid, k_tiles, register_estimate, smem_bytes, warp_tile, wgmma_shape,
    EffectiveVectors, IgemmPlan,
};

use crate::config::{Family, FastPath, KernelConfig, SplitKMode};
use crate::device::DeviceLimits;
use crate::family::{KernelFamily, Plan, PlanSummary, ProblemFacts};
use crate::rejection::Rejection;
use crate::source::{Arch, KernelSource};
use gconv_problem::{DType, Direction, Problem};
use std::sync::Arc;

impl Plan for IgemmPlan {
    fn grid(&self) -> [u64; 3] {
        self.grid
    }
    fn smem_bytes(&self) -> u64 {
        self.smem_bytes as u64
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
        Some(self.cfg)
    }
}

/// The family's problem rules and its plan of `cfg` on `problem` ([`KernelFamily::plan`]),
/// with a split-K degree left to the rule resolved first.
fn plan(
    cfg: &KernelConfig,
    problem: &Problem,
    device: &DeviceLimits,
) -> Result<IgemmPlan, Rejection> {
    planned(
        cfg,
        problem,
        device,
        || problem.n * problem.output_volume(),
        |plan| plan,
    )
}

/// [`plan`]'s steps, the plan handed to `then` where it was built (inlined: the gate's
/// summary reads the plan in place instead of moving it out).
#[inline(always)]
///
/// `out_pixels` gives the problem's `N · Do·Ho·Wo` (the gate's
/// [`ProblemFacts::out_pixels`], computed once per problem).
fn planned<T>(
    cfg: &KernelConfig,
    problem: &Problem,
    device: &DeviceLimits,
    out_pixels: impl Fn() -> u64 + Copy,
    then: impl FnOnce(IgemmPlan) -> T,
) -> Result<T, Rejection> {
    let parts = emit::direction_parts(cfg.direction).ok_or(Rejection::DirectionNotImplemented {
        family: cfg.family.token(),
        direction: cfg.direction.token(),
    })?;
    let resolved = geometry::resolve_split_of(cfg, problem, device, out_pixels);
    rules::check_problem(&resolved, problem)?;
    Ok(then(IgemmPlan::of(
        &resolved, problem, parts, device, out_pixels,
    )))
}

/// The igemm family's [`KernelFamily`] implementation.
#[derive(Debug, Clone, Copy, Default)]
pub struct Igemm;

/// The architecture an igemm config is compiled for: sm_90a for `wgmma`, else sm_90 (an sm_90
/// CUBIN also runs on sm_90a parts).
pub fn required_arch(cfg: &KernelConfig) -> Arch {
    if cfg.math.is_wgmma() {
        Arch::Sm90a
    } else {
        Arch::Sm90
    }
}

impl KernelFamily for Igemm {
    fn family(&self) -> Family {
        Family::Igemm
    }

    fn required_arch(&self, cfg: &KernelConfig) -> Arch {
        required_arch(cfg)
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
        planned(
            cfg,
            facts.problem(),
            device,
            || facts.out_pixels(),
            |plan| {
                let cost = cost::cost_estimate_with(&plan, device, facts.min_bytes());
                PlanSummary::priced(&plan, cost)
            },
        )
    }

    fn pool(&self, direction: Direction, dtype: DType) -> Vec<KernelConfig> {
        pool::pool(direction, dtype)
    }

    /// The atomic split-K members exist to measure the cost of determinism; `auto` is
    /// deterministic. Backward-weight merge-degree policy (seed 002's): of the members that
    /// share a tile, only the one with the largest group merge the gate admits on the problem
    /// is considered (on the H200 probe, `results/h200/s7/README.md`, the largest admitted
    /// degree of a tile ran at 0.997 of that tile's best degree in geometric mean over 480
    /// tiles, 10th percentile 0.995, worst 0.925); the cost model then picks the tile. Only a
    /// degree that divides G outranks a smaller one: a larger degree with a tail
    /// (`rules::merge_tail`, not measured yet) does not hide the members below it.
    fn auto_considers(&self, cfg: &KernelConfig, problem: &Problem) -> bool {
        if cfg.split_k_mode != SplitKMode::Deterministic {
            return false;
        }
        if cfg.direction != Direction::Wgrad {
            return true;
        }
        // Backward-weight pointwise members are preferred (`auto_preference`) where their rows
        // are at least half filled (gm·K/G ≥ tile_m / 2): a 3D 1×1 layer with K/G 16 ran its
        // 128-row pointwise tile at 0.61 of the best general member (results/h200/s7).
        if cfg.fast_path == FastPath::Pointwise
            && 2 * cfg.group_merge as u64 * problem.kpg() < cfg.tile_m as u64
        {
            return false;
        }
        let merged = |c: &KernelConfig| {
            let r = geometry::resolve_split(c, problem, &DeviceLimits::H200);
            rules::validate(c).is_ok() && rules::check_problem(&r, problem).is_ok()
        };
        !pool::cached(cfg.direction, cfg.dtype).iter().any(|c| {
            c.group_merge > cfg.group_merge
                && KernelConfig {
                    group_merge: cfg.group_merge,
                    ..*c
                } == *cfg
                && problem.g.is_multiple_of(c.group_merge as u64)
                && merged(c)
        })
    }

    /// Forward and backward-weight: the pointwise fast path first (when a pointwise member is
    /// admitted and considered, `auto` picks among the pointwise members only; on the zoo's two
    /// wgrad 1×1 layers the pointwise wgmma member was the best, `results/h200/s7/README.md`).
    /// Backward-data: no preference, the cost model decides (on the zoo's two dgrad 1×1 layers
    /// the general wgmma 192×128 member beat every pointwise member,
    /// `results/h200/s6/README.md`).
    fn auto_preference(&self, cfg: &KernelConfig) -> u32 {
        u32::from(cfg.fast_path != FastPath::Pointwise && cfg.direction != Direction::Dgrad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admit::{admit, validate, Target};
    use crate::config::Math;
    use crate::source::KernelSource;
    use pool::forward_pool as default_forward_pool;

    #[test]
    fn the_halo_path_runs_stride_one_forward_and_backward_data_on_wgmma_only() {
        use crate::rejection::Rejection;
        let name = "igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_halo";
        let cfg: KernelConfig = name.parse().expect("a halo name parses");
        assert_eq!(cfg.to_string(), name);
        let key = |k: &str| -> Problem { k.parse().expect("a key") };
        let ok = key("dgrad_bf16_n2_g2_c256_k256_i14x14_f3x3_s1x1_p1x1_d1x1");
        rules::check_problem(&cfg, &ok).expect("stride 1, K/G 128");
        // the padded image and the plan: 16×16 per image, 512 rows, 4 tiles of 128
        let h = geometry::halo_dims(&ok);
        assert_eq!((h.hp, h.wp, h.lh, h.lw, h.max_shift), (16, 16, 1, 1, 34));
        assert_eq!(geometry::dgrad_tiles_per_phase(&cfg, &ok), 4);
        let refused = |k: &str, cfg: &KernelConfig| match rules::check_problem(cfg, &key(k)) {
            Err(Rejection::Family(r)) => (r.reason, r.message.to_string()),
            other => panic!("{k}: {other:?}"),
        };
        for (k, says) in [
            (
                "dgrad_bf16_n2_g2_c256_k256_i14x14_f3x3_s2x2_p1x1_d1x1",
                "stride",
            ),
            (
                "dgrad_bf16_n2_g2_c256_k192_i14x14_f3x3_s1x1_p1x1_d1x1",
                "K/G = 96",
            ),
            (
                "dgrad_bf16_n2_g2_c256_k256_i14x14_f3x3_s1x1_p3x3_d1x1",
                "padding",
            ),
            (
                "dgrad_bf16_n2_g2_c12_k256_i14x14_f3x3_s1x1_p1x1_d1x1",
                "C/G = 6",
            ),
            (
                "dgrad_bf16_n2_g2_c256_k256_i4x14x14_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
                "3D",
            ),
        ] {
            let (reason, message) = refused(k, &cfg);
            assert_eq!(reason, "halo_inapplicable", "{k}");
            assert!(message.contains(says), "{k}: {message}");
        }
        // forward too: C/G in 64-channel blocks, the padding any (X's offset is the padding)
        let fwd: KernelConfig = "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_halo"
            .parse()
            .expect("parses");
        let f = key("fwd_bf16_n2_g2_c256_k64_i14x14_f3x3_s1x1_p2x2_d1x1");
        rules::check_problem(&fwd, &f).expect("forward, C/G 128");
        let h = geometry::halo_dims(&f);
        assert_eq!((h.hp, h.wp, h.lh, h.lw), (18, 18, 2, 2)); // 16×16 output, 3×3 reach
        assert_eq!(geometry::grid(&fwd, &f)[0], (2 * 18 * 18u64).div_ceil(128));
        let (reason, message) = refused("fwd_bf16_n2_g2_c192_k64_i14x14_f3x3_s1x1_p1x1_d1x1", &fwd);
        assert_eq!(reason, "halo_inapplicable");
        assert!(message.contains("C/G = 96"), "{message}");
        // structural: forward or backward data on wgmma, not warp-specialised, no merge or split
        for other in [
            "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_halo",
            "igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmaws_halo",
            "igemm_dgrad_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_halo",
            "igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm2_sk1d_wgmma_halo",
        ] {
            let c: KernelConfig = other.parse().expect("parses");
            match rules::validate(&c) {
                Err(Rejection::Family(r)) => assert_eq!(r.reason, "halo_inapplicable", "{other}"),
                res => panic!("{other}: {res:?}"),
            }
        }
    }

    #[test]
    fn wgmmaws_adds_the_producers_and_shares_the_register_file() {
        let ws: KernelConfig = "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk0d_wgmmaws_gen"
            .parse()
            .expect("a wgmmaws name parses");
        assert!(ws.math.is_wgmma() && Math::Wgmma.is_wgmma() && !Math::Mma.is_wgmma());
        assert_eq!(ws.threads(), 8 * 32 + ws.math.producer_threads());
        assert_eq!(ws.math.producer_threads(), 256);
        assert_eq!(required_arch(&ws), Arch::Sm90a);
        assert!(validate(&ws, Arch::Sm90a).is_ok());
        // The all-warps twin's barriers-free shared memory is smaller: the producer's barriers
        // sit in front of the tiles.
        let twin = KernelConfig {
            math: Math::Wgmma,
            ..ws
        };
        assert_eq!(
            geometry::smem_bytes(&ws),
            geometry::smem_bytes(&twin) + 16 * ws.stages
        );
        // 128x256 needs 128 accumulators per math thread: the all-warps twin (256 threads) is
        // valid, the warp-specialised one (512 threads, 128 registers each) is not.
        let wide_twin = KernelConfig {
            tile_n: 256,
            stages: 3,
            ..twin
        };
        assert!(validate(&wide_twin, Arch::Sm90a).is_ok());
        let wide = KernelConfig {
            math: Math::WgmmaWs,
            ..wide_twin
        };
        assert!(matches!(
            validate(&wide, Arch::Sm90a),
            Err(Rejection::RegistersExceedLimit { limit: 128, .. })
        ));
    }

    /// `wgmmatma`: one producer warp on top of the math warps, the barriers of the
    /// warp-specialised schedule, pointwise without merge (split-K only in backward weight,
    /// deterministic), C/G (and outside forward K/G) a multiple of 8, or forward general
    /// through im2col copies (flat layers, C/G a multiple of 64); its two tensor maps are
    /// ones the hardware encodes, their boxes fill a stage exactly in every direction, and
    /// every module without TMA declares no tensor-map parameter.
    #[test]
    fn wgmmatma_is_pointwise_with_encodable_maps() {
        let name = "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_pw";
        let tma: KernelConfig = name.parse().expect("a wgmmatma name parses");
        assert_eq!(tma.to_string(), name);
        assert!(tma.math.is_wgmma() && tma.math.is_warp_specialised());
        assert_eq!(tma.threads(), 8 * 32 + 32);
        assert_eq!(required_arch(&tma), Arch::Sm90a);
        assert!(validate(&tma, Arch::Sm90a).is_ok());
        let reason = |c: &KernelConfig| validate(c, Arch::Sm90a).map_err(|e| e.reason());
        for bad in [
            KernelConfig {
                fast_path: FastPath::Halo,
                ..tma
            },
            KernelConfig {
                group_merge: 2,
                ..tma
            },
            KernelConfig { split_k: 2, ..tma },
            KernelConfig {
                direction: Direction::Wgrad,
                split_k: 4,
                split_k_mode: SplitKMode::Atomic,
                ..tma
            },
        ] {
            assert_eq!(reason(&bad), Err("tma_inapplicable"), "{bad}");
        }
        // Backward weight may merge groups (a merged block's groups are adjacent channels of
        // both tensors, so one box spans them).
        let merged = KernelConfig {
            direction: Direction::Wgrad,
            group_merge: 2,
            split_k: 2,
            ..tma
        };
        assert!(validate(&merged, Arch::Sm90a).is_ok(), "{merged}");
        // Backward data and backward weight (split-K, deterministic): every map encodable, the
        // boxes of a stage (64-channel panels on the MN-major tiles) fill it exactly.
        for (name, key) in [
            (
                "igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_pw",
                "dgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
            ),
            (
                "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk8d_wgmmatma_pw",
                "wgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
            ),
        ] {
            let c: KernelConfig = name.parse().expect("a wgmmatma name");
            let q: Problem = key.parse().unwrap();
            let src = crate::admit(&c, &q, &crate::Target::H200)
                .expect("admitted")
                .emit();
            let maps = &src.launches[0].tensor_maps;
            assert!(maps.iter().all(|m| m.problem().is_none()), "{name}");
            let panels = |extent: u32, m: &crate::TensorMap| {
                let per_box = m.box_bytes();
                (u64::from(extent) * 64 * 2).div_ceil(per_box) * per_box
            };
            let stage = if c.direction == Direction::Wgrad {
                panels(c.tile_m, &maps[0]) + panels(c.tile_n, &maps[1])
            } else {
                maps[0].box_bytes() + panels(c.tile_n, &maps[1])
            };
            assert_eq!(stage, u64::from(c.tile_m + c.tile_n) * 64 * 2, "{name}");
        }
        let p: Problem = "fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1"
            .parse()
            .unwrap();
        let a = crate::admit(&tma, &p, &crate::Target::H200).expect("admitted");
        let src = a.emit();
        let maps = &src.launches[0].tensor_maps;
        assert_eq!(maps.len(), 2);
        assert!(maps.iter().all(|m| m.problem().is_none() && m.swizzle_128b));
        assert_eq!(maps[0].dims, vec![128, 4, 32 * 14 * 14]);
        assert_eq!(maps[0].strides, vec![256, 1024]);
        assert_eq!(maps[1].dims, vec![128, 128, 4]);
        assert_eq!(
            maps[0].box_bytes() + maps[1].box_bytes(),
            (128 + 128) * 64 * 2,
            "one stage"
        );
        assert!(src.code.contains("#define GCONV_TMA 1"));
        let odd: Problem = "fwd_bf16_n32_g4_c500_k512_i14x14_f1x1_s1x1_p0x0_d1x1"
            .parse()
            .unwrap();
        let refused = crate::admit(&tma, &odd, &crate::Target::H200).map(|_| ());
        let dg = KernelConfig {
            direction: Direction::Dgrad,
            ..tma
        };
        let odd_k: Problem = "dgrad_bf16_n32_g4_c512_k500_i14x14_f1x1_s1x1_p0x0_d1x1"
            .parse()
            .unwrap();
        assert_eq!(
            crate::admit(&dg, &odd_k, &crate::Target::H200)
                .map(|_| ())
                .map_err(|e| e.reason()),
            Err("tma_inapplicable"),
            "K/G 125 in backward data"
        );
        assert_eq!(
            refused.map_err(|e| e.reason()),
            Err("tma_inapplicable"),
            "C/G 125"
        );
        let ws = KernelConfig {
            math: Math::WgmmaWs,
            ..tma
        };
        let plain = crate::admit(&ws, &p, &crate::Target::H200)
            .expect("admitted")
            .emit();
        assert!(plain.launches.iter().all(|l| l.tensor_maps.is_empty()));
        assert!(plain.code.contains("#define GCONV_TMA_PARAMS\n"));
        // Forward general: an im2col view of X (the corners −pad and pad − (F−1)·dil, the
        // strides as element strides) and W as [C/G, taps, K/G, G]; C/G a multiple of 64 and a
        // flat (1D or 2D) layer.
        let gen = KernelConfig {
            fast_path: FastPath::General,
            ..tma
        };
        let g2: Problem = "fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s2x2_p2x2_d2x2"
            .parse()
            .unwrap();
        let gsrc = crate::admit(&gen, &g2, &crate::Target::H200)
            .expect("admitted")
            .emit();
        let gmaps = &gsrc.launches[0].tensor_maps;
        let ic = gmaps[0].im2col.as_ref().expect("an im2col map");
        assert_eq!(gmaps[0].dims, vec![256, 28, 28, 32]);
        assert_eq!(
            (ic.lower.clone(), ic.upper.clone()),
            (vec![-2, -2], vec![-2, -2])
        );
        assert_eq!(ic.element_strides, vec![1, 2, 2, 1]);
        assert_eq!((ic.channels_per_pixel, ic.pixels_per_column), (64, 128));
        assert_eq!(gmaps[1].dims, vec![128, 9, 128, 2]);
        assert!(gmaps.iter().all(|m| m.problem().is_none()));
        assert_eq!(
            gmaps[0].box_bytes() + gmaps[1].box_bytes(),
            (128 + 128) * 64 * 2
        );
        // ... and backward data at stride 1: dY as [K, Wo, Ho, N] with the corners
        // pad − (F−1)·dil and −pad (the dual forward walk).
        let dgen = KernelConfig {
            direction: Direction::Dgrad,
            ..gen
        };
        let d2: Problem = "dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let dsrc = crate::admit(&dgen, &d2, &crate::Target::H200)
            .expect("admitted")
            .emit();
        let dmaps = &dsrc.launches[0].tensor_maps;
        let dic = dmaps[0].im2col.as_ref().expect("an im2col map");
        assert_eq!(
            (dic.lower.clone(), dic.upper.clone()),
            (vec![-1, -1], vec![-1, -1])
        );
        assert!(dmaps.iter().all(|m| m.problem().is_none()));
        let strided: Problem = "dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s2x2_p1x1_d1x1"
            .parse()
            .unwrap();
        assert!(crate::admit(&dgen, &strided, &crate::Target::H200).is_err());
        // ... and backward weight: X in im2col copies of one 64-channel panel of a tap each.
        let wgen = KernelConfig {
            direction: Direction::Wgrad,
            split_k: 0,
            ..gen
        };
        let w2: Problem = "wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let wsrc = crate::admit(&wgen, &w2, &crate::Target::H200)
            .expect("admitted")
            .emit();
        let wmaps = &wsrc.launches[0].tensor_maps;
        let wic = wmaps[1].im2col.as_ref().expect("X as an im2col map");
        assert_eq!((wic.channels_per_pixel, wic.pixels_per_column), (64, 64));
        assert!(wmaps.iter().all(|m| m.problem().is_none()));
        for key in [
            "fwd_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
            "fwd_bf16_n2_g1_c128_k128_i4x9x9_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        ] {
            let q: Problem = key.parse().unwrap();
            assert_eq!(
                crate::admit(&gen, &q, &crate::Target::H200)
                    .map(|_| ())
                    .map_err(|e| e.reason()),
                Err("tma_inapplicable"),
                "{key}"
            );
        }
        // A map the hardware cannot encode says why.
        let mut bad = maps[0].clone();
        bad.strides[0] = 250;
        assert!(bad.problem().is_some());
        bad = maps[0].clone();
        bad.boxdim[0] = 128;
        assert!(
            bad.problem().is_some(),
            "256 bytes wide with the 128-byte swizzle"
        );
    }

    #[test]
    fn dgrad_phases_partition_the_taps_and_cover_dx() {
        // Every filter tap reaches exactly one stride phase: the phases' tap counts add up to the
        // filter, in the gcd(stride, dilation) form too (stride 2, dilation 2: the odd phases
        // have no tap).
        for s in 1..=4u64 {
            for d in 1..=3u64 {
                for f in 1..=7u64 {
                    let sum: u64 = (0..s).map(|r| geometry::dgrad_phase_taps(s, d, f, r)).sum();
                    assert_eq!(sum, f, "stride {s} dilation {d} filter {f}");
                }
            }
        }
        assert_eq!(geometry::dgrad_phase_taps(2, 2, 3, 1), 0);
        assert_eq!(geometry::dgrad_phase_taps(2, 1, 1, 1), 0); // 1x1 stride 2
                                                               // The grid holds every phase with the tiles of the largest one; k-tiles are the phases'
                                                               // mean (a 1x1 stride-2 layer: one phase of four has the tap).
        let cfg = KernelConfig {
            direction: Direction::Dgrad,
            ..pool::baseline(Direction::Dgrad, DType::Bf16)
        };
        let p: Problem = "dgrad_bf16_n2_g2_c64_k64_i9x11_f1x1_s2x2_p0x0_d1x1"
            .parse()
            .unwrap();
        assert_eq!(geometry::dgrad_phases(&p), 4);
        let rows = 2 * 5 * 6; // N · ⌈9/2⌉ · ⌈11/2⌉
        let tiles = geometry::dgrad_tiles_per_phase(&cfg, &p);
        assert_eq!(tiles, (rows as u64).div_ceil(cfg.tile_m as u64));
        assert_eq!(geometry::grid(&cfg, &p)[0], 4 * tiles);
        assert_eq!(geometry::dgrad_taps_per_phase(&p), vec![1, 0, 0, 0]);
        assert_eq!(geometry::k_tiles(&cfg, &p), 1);
        // Stride 1: one phase with every tap, the same k-tiles as the forward GEMM of the dual.
        let p1: Problem = "dgrad_bf16_n2_g1_c64_k64_i9x9_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        assert_eq!(geometry::dgrad_taps_per_phase(&p1), vec![9]);
        assert_eq!(geometry::k_tiles(&cfg, &p1), 9 * 2);
    }

    fn prob(key: &str) -> Problem {
        key.parse().unwrap()
    }

    /// G not a multiple of gm: every path merges a tail of at most a third of the launch's
    /// merged groups that narrows no vector (grid z ⌈G/gm⌉ per slice; the TMA-fed maps of a
    /// tail).
    #[test]
    fn a_merge_tail_is_admitted_while_small() {
        let tma = |gm: u32| -> KernelConfig {
            format!("igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm{gm}_sk1d_wgmmatma_gen")
                .parse()
                .unwrap()
        };
        assert_eq!(rules::merge_tail(49, 4), 3);
        assert_eq!(rules::merge_tail(48, 4), 0);
        // 49 groups of 16 by four: 13 blocks, 3 of 52 merged groups missing.
        let g49 = prob("wgrad_bf16_n64_g49_c784_k784_i14x14_f3x3_s2x2_p1x1_d1x1");
        let a = admit(&tma(4), &g49, &Target::H200).expect("a tail of 3 of 52");
        assert_eq!(a.plan().grid()[2], 13);
        let maps = &a.emit().launches[0].tensor_maps;
        assert_eq!(
            maps[0].dims,
            vec![784, 1, 64 * 7 * 7],
            "dY as [K, 1, pixels]"
        );
        // 9 groups of 16 by four: 3 of 12 missing (a quarter) is admitted; 5 groups of 16 by
        // four (3 of 8) and 9 groups of 8 by eight (7 of 16) are not.
        let g9 = prob("wgrad_bf16_n64_g9_c144_k144_i28x28_f3x3_s1x1_p1x1_d1x1");
        assert!(admit(&tma(4), &g9, &Target::H200).is_ok());
        for (key, gm) in [
            ("wgrad_bf16_n64_g5_c80_k80_i28x28_f3x3_s1x1_p1x1_d1x1", 4),
            ("wgrad_bf16_n64_g9_c72_k72_i28x28_f3x3_s1x1_p1x1_d1x1", 8),
        ] {
            match admit(&tma(gm), &prob(key), &Target::H200) {
                Err(r) => assert_eq!(r.reason(), "group_merge_tail", "{key}: {r}"),
                Ok(_) => panic!("{key}: a tail of more than a third admitted"),
            }
        }
        // mma.sync in every direction, on the same 49 groups of 16 by four.
        for (name, key) in [
            (
                "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm4_sk0d_mma_gen",
                "wgrad_bf16_n64_g49_c784_k784_i14x14_f3x3_s2x2_p1x1_d1x1",
            ),
            (
                "igemm_fwd_bf16_t128x64x64_w2x2_s3_v8x8_gm4_sk1d_mma_gen",
                "fwd_bf16_n64_g49_c784_k784_i14x14_f3x3_s2x2_p1x1_d1x1",
            ),
            (
                "igemm_dgrad_bf16_t128x64x64_w2x2_s3_v8x8_gm4_sk1d_mma_gen",
                "dgrad_bf16_n64_g49_c784_k784_i14x14_f3x3_s2x2_p1x1_d1x1",
            ),
        ] {
            let cfg: KernelConfig = name.parse().unwrap();
            let p = prob(key);
            let a = admit(&cfg, &p, &Target::H200).unwrap_or_else(|r| panic!("{name}: {r}"));
            let split = u64::from(a.config().split_k.max(1));
            assert_eq!(
                a.plan().grid()[2],
                49u64.div_ceil(cfg.group_merge as u64) * split
            );
        }
        // C/G 4 by eight over 49 groups: a vector of 8 channels would straddle the tail (runs
        // of one group's 4 channels): refused, where 48 groups take vectors of 8.
        let gm8: KernelConfig = "igemm_fwd_bf16_t128x32x32_w4x1_s4_v8x8_gm8_sk1d_mma_gen"
            .parse()
            .unwrap();
        let f49 = prob("fwd_bf16_n64_g49_c196_k196_i14x14_f3x3_s1x1_p1x1_d1x1");
        assert!(geometry::tail_narrows_vectors(&gm8, &f49));
        let v = geometry::effective_vectors(&gm8, &f49);
        assert_eq!((v.a, v.c), (4, 4), "vectors within one group of 4 channels");
        match admit(&gm8, &f49, &Target::H200) {
            Err(r) => assert_eq!(r.reason(), "group_merge_tail", "{r}"),
            Ok(_) => panic!("a tail that narrows the vectors admitted"),
        }
        let f48 = prob("fwd_bf16_n64_g48_c192_k192_i14x14_f3x3_s1x1_p1x1_d1x1");
        assert!(!geometry::tail_narrows_vectors(&gm8, &f48));
        let v = geometry::effective_vectors(&gm8, &f48);
        assert_eq!(
            (v.a, v.c),
            (8, 8),
            "without a tail, runs of 32 merged channels"
        );
        assert!(admit(&gm8, &f48, &Target::H200).is_ok());
    }

    #[test]
    fn wgrad_auto_takes_the_largest_admitted_merge_of_a_tile() {
        let p = prob("wgrad_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1");
        let gm = |g: u32| -> KernelConfig {
            format!("igemm_wgrad_bf16_t32x64x32_w2x1_s3_v8x8_gm{g}_sk0d_mma_gen")
                .parse()
                .unwrap()
        };
        // K/G 8 on 32 rows: gm 4 is the largest the gate admits; gm 2 of the same tile is not
        // considered, gm 4 is.
        assert!(admit(&gm(4), &p, &Target::H200).is_ok());
        assert!(admit(
            &KernelConfig {
                group_merge: 8,
                ..gm(4)
            },
            &p,
            &Target::H200
        )
        .is_err());
        assert!(!Igemm.auto_considers(&gm(2), &p));
        assert!(Igemm.auto_considers(&gm(4), &p));
        // C/G 128: nothing merges, the unmerged member is considered; atomic members never.
        let dense = prob("wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1");
        assert!(Igemm.auto_considers(&gm(1), &dense));
        let a = KernelConfig {
            split_k_mode: SplitKMode::Atomic,
            ..gm(1)
        };
        assert!(!Igemm.auto_considers(&a, &dense));
        // The pointwise path where its rows are at least half filled: K/G 128 yes, K/G 16 no.
        let pw: KernelConfig = "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk0d_wgmma_pw"
            .parse()
            .unwrap();
        let p128 = prob("wgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1");
        let p16 = prob("wgrad_bf16_n8_g16_c256_k256_i8x14x14_f1x1x1_s1x1x1_p0x0x0_d1x1x1");
        assert!(Igemm.auto_considers(&pw, &p128));
        assert!(!Igemm.auto_considers(&pw, &p16));
    }

    #[test]
    fn wgrad_split_is_sized_from_the_whole_grid_and_reported() {
        // C/G 128, two groups: 1 x 9 tiles per group block at 128 x 128, 18 CTAs per slice;
        // the rule fills a wave and the admitted config (and the module) names the degree.
        let c: KernelConfig = "igemm_wgrad_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk0d_mma_gen"
            .parse()
            .unwrap();
        let p = prob("wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1");
        let a = admit(&c, &p, &Target::H200).unwrap();
        let d = a.config().split_k;
        let per_slice = 18;
        let wave =
            DeviceLimits::H200.wave(a.plan().smem_bytes(), c.threads(), a.plan().registers());
        assert!(d > 1 && d as u64 * per_slice <= wave.max(per_slice), "{d}");
        assert_eq!(a.grid(), [1, 9, 2 * d as u64]);
        assert_eq!(a.emit().kernel_name, a.config().to_string());
        assert!(a.emit().kernel_name.contains(&format!("_sk{d}d_")));
        assert_eq!(a.emit().launches.len(), 2);
        // 960 depthwise groups merged 8 at a time: 120 group blocks x 9 tap tiles fill the GPU
        // with few slices; the groups are part of the grid.
        let m: KernelConfig = "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm8_sk0d_mma_gen"
            .parse()
            .unwrap();
        let dw = prob("wgrad_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1");
        let am = admit(&m, &dw, &Target::H200).unwrap();
        assert!(am.config().split_k <= 4, "{}", am.config());
        // A fixed degree runs as asked; an atomic degree-1 resolution is deterministic.
        let f = KernelConfig { split_k: 4, ..c };
        assert_eq!(admit(&f, &p, &Target::H200).unwrap().config(), &f);
        let tiny = prob("wgrad_bf16_n1_g1_c64_k64_i4x4_f3x3_s1x1_p1x1_d1x1");
        let at = KernelConfig {
            split_k_mode: SplitKMode::Atomic,
            ..c
        };
        let r = admit(&at, &tiny, &Target::H200).unwrap();
        assert_eq!(
            (r.config().split_k, r.config().split_k_mode),
            (1, SplitKMode::Deterministic)
        );
        assert_eq!(r.emit().launches.len(), 1);
        // The atomic option: zero, main, convert, one f32 plane of workspace.
        let a4 = KernelConfig {
            split_k: 4,
            split_k_mode: SplitKMode::Atomic,
            ..c
        };
        let s4 = admit(&a4, &p, &Target::H200).unwrap().emit();
        assert_eq!(s4.launches.len(), 3);
        assert_eq!(s4.workspace_bytes, p.elements(p.roles().1) * 4);
        let d4 = admit(&f, &p, &Target::H200).unwrap().emit();
        assert_eq!(d4.workspace_bytes, p.elements(p.roles().1) * 4 * 4);
    }

    fn can_implement(c: &KernelConfig, p: &Problem) -> Result<(), Rejection> {
        admit(c, p, &Target::H200).map(|_| ())
    }

    fn emit(c: &KernelConfig, p: &Problem) -> Result<KernelSource, Rejection> {
        admit(c, p, &Target::H200).map(|a| a.emit())
    }

    #[test]
    fn emit_is_deterministic_and_gated() {
        let p = prob("fwd_bf16_n2_g4_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1");
        let c = KernelConfig::default();
        let a = emit(&c, &p).unwrap();
        let b = emit(&c, &p).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.kernel_name, c.to_string());
        assert_eq!(a.launches.len(), 1);
        assert_eq!(a.launches[0].grid, [2, 1, 4]);
        assert!(!a.code.contains("#include"));
        assert!(!a.code.contains("@ENTRY@"));
        let bad = KernelConfig { stages: 9, ..c };
        assert_eq!(emit(&bad, &p).unwrap_err().reason(), "stages_out_of_range");
        let pw = KernelConfig {
            fast_path: FastPath::Pointwise,
            ..c
        };
        assert_eq!(
            emit(&pw, &p).unwrap_err().reason(),
            "pointwise_inapplicable"
        );
    }

    #[test]
    fn every_pool_config_emits_on_a_problem_it_accepts() {
        let keys = [
            "fwd_{dt}_n2_g32_c64_k64_i10x10_f3x3_s1x1_p1x1_d1x1",
            "fwd_{dt}_n2_g32_c32_k32_i10x10_f3x3_s1x1_p1x1_d1x1",
            "fwd_{dt}_n2_g4_c256_k256_i6x6_f1x1_s1x1_p0x0_d1x1",
            "fwd_{dt}_n2_g16_c256_k256_i10x10_f3x3_s1x1_p1x1_d1x1",
            "fwd_{dt}_n2_g2_c512_k512_i7x7_f3x3_s1x1_p1x1_d1x1",
        ];
        for dt in DType::ALL {
            for c in default_forward_pool(dt) {
                let ok = keys.iter().any(|k| {
                    let p = prob(&k.replace("{dt}", dt.token()));
                    emit(&c, &p).is_ok()
                });
                assert!(ok, "{c} emits on none of the test problems");
            }
        }
    }

    #[test]
    fn split_k_adds_a_reduction_launch() {
        let p = prob("fwd_f16_n1_g1_c256_k64_i7x7_f3x3_s1x1_p1x1_d1x1");
        let c = KernelConfig {
            dtype: DType::F16,
            split_k: 4,
            ..KernelConfig::default()
        };
        let s = emit(&c, &p).unwrap();
        assert_eq!(s.launches.len(), 2);
        assert_eq!(s.launches[0].grid[2], 4);
        assert_eq!(s.workspace_bytes, 49 * 64 * 4 * 4);
        assert!(s.code.contains(&format!("{}_reduce", s.kernel_name)));
    }

    #[test]
    fn cluster_split_is_one_launch_with_the_slices_adjacent_in_x() {
        let p = prob("wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1");
        let d: KernelConfig = "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk7d_wgmmaws_gen"
            .parse()
            .unwrap();
        let c = KernelConfig {
            split_k_mode: SplitKMode::Cluster,
            ..d
        };
        let (sd, sc) = (emit(&d, &p).unwrap(), emit(&c, &p).unwrap());
        assert_eq!(sd.launches.len(), 2);
        assert_eq!(sd.launches[0].grid, [1, 9, 14]);
        assert_eq!(sc.launches.len(), 1);
        assert_eq!(sc.launches[0].grid, [7, 9, 2]);
        assert_eq!((sd.launches[0].cluster, sc.launches[0].cluster), (1, 7));
        assert_eq!(sc.workspace_bytes, 0);
        assert!(sc.code.contains("__cluster_dims__(7, 1, 1)"));
        assert!(sc.code.contains("#define GCONV_SPLIT_REDUCE 0\n"));
        // backward weight only, 2..=8 slices (or 0, the rule's: below)
        let r = |c: KernelConfig| validate(&c, Arch::Sm90a).map_err(|e| e.reason());
        for bad in [
            KernelConfig { split_k: 9, ..c },
            KernelConfig { split_k: 1, ..c },
            KernelConfig {
                direction: Direction::Fwd,
                ..c
            },
        ] {
            assert_eq!(r(bad), Err("bad_split_k"), "{bad}");
        }
        assert_eq!(r(KernelConfig { split_k: 8, ..c }), Ok(()));
        // `sk0c`: the rule's degree clamped to the portable cluster (the same key resolves
        // sk0d past 8), the resolved name says what runs
        let rule = |mode, key: &str| {
            let cfg = KernelConfig {
                split_k: 0,
                split_k_mode: mode,
                ..d
            };
            *admit(&cfg, &prob(key), &Target::H200).unwrap().config()
        };
        let wide = "wgrad_bf16_n32_g1_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1";
        let key = p.to_string();
        let rd = rule(SplitKMode::Deterministic, wide);
        assert!(rd.split_k > 8, "{rd}");
        let rc = rule(SplitKMode::Cluster, wide);
        assert_eq!(
            (rc.split_k, rc.split_k_mode),
            (8, SplitKMode::Cluster),
            "{rc}"
        );
        let rc = rule(SplitKMode::Cluster, &key);
        assert_eq!(
            (rc.split_k, rc.split_k_mode),
            (7, SplitKMode::Cluster),
            "{rc}"
        );
        let tiny = prob("wgrad_bf16_n1_g2_c256_k256_i4x4_f3x3_s1x1_p1x1_d1x1");
        let cfg = KernelConfig { split_k: 0, ..c };
        let one = *admit(&cfg, &tiny, &Target::H200).unwrap().config();
        assert_eq!(
            (one.split_k, one.split_k_mode),
            (1, SplitKMode::Deterministic),
            "{one}"
        );
    }

    #[test]
    fn validate_reasons() {
        let base = KernelConfig::default();
        let r = |c: KernelConfig| validate(&c, Arch::Sm90).map_err(|e| e.reason());
        assert_eq!(r(base), Ok(()));
        assert_eq!(
            r(KernelConfig { stages: 6, ..base }),
            Err("stages_out_of_range")
        );
        assert_eq!(
            r(KernelConfig {
                tile_k: 64,
                stages: 5,
                tile_m: 256,
                tile_n: 256,
                warps_m: 4,
                warps_n: 2,
                ..base
            }),
            Err("smem_exceeds_limit")
        );
        assert_eq!(
            r(KernelConfig {
                warps_m: 4,
                warps_n: 4,
                ..base
            }),
            Err("bad_warp_count")
        );
        assert_eq!(
            r(KernelConfig { vec_a: 16, ..base }),
            Err("bad_vector_width")
        );
        assert_eq!(
            r(KernelConfig { vec_b: 3, ..base }),
            Err("bad_vector_width")
        );
        assert_eq!(
            r(KernelConfig {
                math: Math::Simt,
                ..base
            }),
            Err("math_dtype_mismatch")
        );
        assert_eq!(
            r(KernelConfig {
                group_merge: 3,
                ..base
            }),
            Err("bad_group_merge")
        );
        assert_eq!(
            r(KernelConfig {
                split_k_mode: SplitKMode::Atomic,
                ..base
            }),
            Err("bad_split_k")
        );
        assert_eq!(
            r(KernelConfig {
                tile_n: 24,
                warps_n: 1,
                ..base
            }),
            Err("warp_tile_not_multiple_of_instruction")
        );
        assert_eq!(
            r(KernelConfig {
                tile_m: 256,
                warps_m: 2,
                ..base
            }),
            Err("registers_exceed_limit")
        );
        // The igemm default as a direct config: its 3 stages are the direct tensor-core
        // kernels' depth streaming, its 2 x 2 warps are not a direct CTA (warps_n is 1).
        assert_eq!(
            r(KernelConfig {
                family: Family::Direct,
                ..base
            }),
            Err("bad_warp_count")
        );
        assert_eq!(
            r(KernelConfig {
                family: Family::Direct,
                stages: 4,
                ..base
            }),
            Err("direct_field_fixed")
        );
        // A split-K degree left to the rule exists for backward-weight only.
        assert_eq!(r(KernelConfig { split_k: 0, ..base }), Err("bad_split_k"));
        let wg = KernelConfig {
            direction: Direction::Wgrad,
            split_k: 0,
            ..base
        };
        assert_eq!(r(wg), Ok(()));
        // Merged groups never take the atomic reduction.
        assert_eq!(
            r(KernelConfig {
                group_merge: 2,
                split_k_mode: SplitKMode::Atomic,
                ..wg
            }),
            Err("bad_split_k")
        );
        // Backward-weight CUDA cores: 4x4 outer products per lane need warp tiles of 16 x 32.
        assert_eq!(
            r(KernelConfig {
                dtype: DType::F32,
                math: Math::Simt,
                tile_m: 64,
                tile_n: 32,
                tile_k: 16,
                warps_m: 2,
                warps_n: 2,
                vec_a: 4,
                vec_b: 4,
                ..wg
            }),
            Err("warp_tile_not_multiple_of_instruction")
        );
        assert_eq!(
            r(KernelConfig { tile_k: 48, ..base }),
            Err("tile_out_of_range")
        );
    }

    #[test]
    fn effective_vectors_clamp() {
        let base = KernelConfig::default();
        let ev = |c: &KernelConfig, k: &str| effective_vectors(c, &prob(k));
        assert_eq!(
            ev(&base, "fwd_bf16_n1_g1_c64_k64_i8x8_f3x3_s1x1_p1x1_d1x1"),
            EffectiveVectors { a: 8, b: 8, c: 8 }
        );
        assert_eq!(
            ev(&base, "fwd_bf16_n1_g3_c12_k6_i8x8_f3x3_s1x1_p1x1_d1x1"),
            EffectiveVectors { a: 4, b: 4, c: 2 }
        );
        assert_eq!(
            ev(&base, "fwd_bf16_n1_g1_c7_k7_i8x8_f3x3_s1x1_p1x1_d1x1"),
            EffectiveVectors { a: 1, b: 1, c: 1 }
        );
        let gm = KernelConfig {
            group_merge: 16,
            tile_k: 16,
            tile_n: 16,
            warps_n: 1,
            ..base
        };
        assert_eq!(
            ev(&gm, "fwd_bf16_n1_g32_c32_k32_i8x8_f3x3_s1x1_p1x1_d1x1"),
            EffectiveVectors { a: 8, b: 1, c: 8 }
        );
    }

    #[test]
    fn wgmma_needs_sm90a_and_its_own_tile_rules() {
        let c: KernelConfig = "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_gen"
            .parse()
            .unwrap();
        assert_eq!(required_arch(&c), Arch::Sm90a);
        assert_eq!(validate(&c, Arch::Sm90a), Ok(()));
        let e = validate(&c, Arch::Sm90).unwrap_err();
        assert_eq!(e.reason(), "arch_required");
        assert!(e.to_string().contains("sm_90a"), "{e}");
        let r = |c: KernelConfig| validate(&c, Arch::Sm90a).map_err(|e| e.reason());
        assert_eq!(
            r(KernelConfig { tile_k: 32, ..c }),
            Err("tile_out_of_range")
        );
        assert_eq!(r(KernelConfig { stages: 2, ..c }), Err("tile_out_of_range"));
        assert_eq!(
            r(KernelConfig { tile_n: 96, ..c }),
            Err("tile_out_of_range")
        );
        assert_eq!(
            r(KernelConfig {
                warps_m: 4,
                warps_n: 2,
                ..c
            }),
            Err("bad_warp_count")
        );
        // 2 warpgroups x 2 m64 blocks x 256 columns = 256 accumulators per thread: too many.
        assert_eq!(
            r(KernelConfig {
                tile_m: 256,
                tile_n: 256,
                stages: 3,
                ..c
            }),
            Err("tile_out_of_range")
        );
        // Three warpgroups (12 warps, wgmma only): one m64 block each, at most 64 accumulators.
        let w12 = KernelConfig {
            tile_m: 192,
            warps_m: 12,
            ..c
        };
        assert_eq!(r(w12), Ok(()));
        assert_eq!(w12.threads(), 384);
        assert_eq!(wgmma_shape(&w12), (3, 1, 64));
        assert_eq!(
            r(KernelConfig {
                tile_n: 256,
                stages: 3,
                ..w12
            }),
            Err("tile_out_of_range")
        );
        assert_eq!(
            r(KernelConfig { tile_m: 384, ..w12 }),
            Err("tile_out_of_range")
        );
        assert_eq!(
            r(KernelConfig {
                math: Math::Mma,
                tile_k: 32,
                ..w12
            }),
            Err("bad_warp_count")
        );
        assert_eq!(
            r(KernelConfig {
                dtype: DType::F32,
                ..c
            }),
            Err("math_dtype_mismatch")
        );
        // admission on the H200 target (sm_90a) admits it.
        let p: Problem = "fwd_bf16_n2_g2_c256_k256_i9x9_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        assert_eq!(can_implement(&c, &p), Ok(()));
    }

    #[test]
    fn k_tiles_pack_taps_for_small_merged_channels() {
        let base = KernelConfig::default();
        let dw = prob("fwd_bf16_n1_g32_c32_k32_i8x8_f3x3_s1x1_p1x1_d1x1");
        let gm16 = KernelConfig {
            group_merge: 16,
            tile_k: 64,
            tile_n: 16,
            warps_n: 1,
            ..base
        };
        assert_eq!(k_tiles(&gm16, &dw), 3); // 4 taps of 16 channels per k-tile
        let c48 = prob("fwd_bf16_n1_g1_c48_k48_i8x8_f3x3_s1x1_p1x1_d1x1");
        assert_eq!(k_tiles(&base, &c48), 18); // 48 does not divide 32: 2 blocks per tap
        let c8 = prob("fwd_bf16_n1_g1_c8_k8_i8x8_f3x3_s1x1_p1x1_d1x1");
        assert_eq!(k_tiles(&base, &c8), 3); // 4 taps of 8 channels per k-tile
    }
}
