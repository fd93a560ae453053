//! Host emulation of the generated `direct` and `igemm` kernels: the CUDA C++ of each (kernel, problem) pair
//! is compiled with g++ (C++20) against `tests/host_shim.h` (precompiled once per test run) —
//! one fiber per CUDA thread on one OS thread, switched in user space wherever a thread waits
//! (`__syncthreads`, a warp collective, an mbarrier), a wait that nothing can end aborted as a
//! deadlock, blocks run one at a time, shared memory poisoned with
//! NaN bytes before each block, inputs in exactly sized heap buffers under AddressSanitizer
//! when the toolchain has it — plus a generated `main` that reads the inputs from files, runs
//! the grid and writes the output (prefilled with NaN bytes, so unwritten outputs fail). The
//! output is compared with the f64 CPU reference (`gconv_reference::reference::reference_tensors`)
//! under `Tolerance::for_problem`.
//!
//! The matrix covers depthwise 3×3/5×5/7×7, stride 2, stride > filter, dilation 2, large
//! padding, odd sizes and channel counts (2-byte loads), channel tails inside a CTA, N = 1,
//! 1D and 3D, f32/f16/bf16, channel multipliers, C/G = 2 and 4, several tile shapes and work
//! items per thread, tiles partially outside the output. Five mutations must be detected: a
//! corrupted weight (the emulated kernel gets a changed W, the reference the original), a
//! broken shim that drops the grid's last block, and a persistent kernel that skips its halo
//! wait, the barrier after it (a read-after-write race between threads) or the barrier before a
//! halo buffer is refilled (a write-after-read race).
//!
//! `igemm_kernels_match_the_reference_under_host_emulation` runs the tensor-core family the same
//! way: the shim emulates `ldmatrix.x4/x2` and `mma.sync.m16n8k16` as warp collectives (a
//! per-warp barrier and staging area, the fragment layouts of the PTX ISA; every row address
//! checked for alignment and bounds), `wgmma.mma_async` from its shared-memory descriptors
//! (start address, stride, 128-byte swizzle decoded), `cp.async` as a synchronous copy or zero
//! fill; 21 cases cover every flag of the family (bf16/f16 mma, f32 FFMA, group merge 4/8/16
//! with tap packing, the pointwise path, split-K with its reduction launch, 1D/3D,
//! stride/padding/dilation, odd channels; wgmma with 1/2/3 warpgroups, 1/2 m64 blocks, N
//! 64/128/256; each wgmma case twice, with deferred and with eager copies), plus a
//! corrupted-weight mutation for mma.sync and one for wgmma and the two pipeline mutations.
//!
//! `direct_mma_kernels_match_the_reference_under_host_emulation` does the same for the direct
//! family's tensor-core path (19 cases: C/G 8–56, channel multiplier, odd k8-chunk counts,
//! padded m16 blocks, channel tails, stride/padding/dilation, 1D/3D, f16, persistent CTAs
//! walking 4 tiles; block-diagonal group merge on depthwise (gm 8/16), C/G 2/4 and channel
//! multiplier layers) plus corrupted weights and a merge mutation (`MergeFullRows`, on the
//! expansion's 16-bit path at gm 8 and its 32-bit path at C/G 4).
//!
//! Asynchronous operations: the shim performs each `cp.async` when the `cp.async.wait_group`
//! that covers it runs (the latest the hardware may land it), so a kernel that reads a stage
//! before waiting for it reads the NaN poison (planted mutations `SkipHaloWait` and
//! `ShortPipelineWait` are caught). A `wgmma` multiplies at issue, and the shim keeps a checksum
//! of its shared-memory operands until `wgmma.wait_group` retires its batch; every wgmma case
//! also runs with eager copies (`GCONV_SHIM_EAGER_COPIES`: copies land at issue), where a stage
//! refilled while a batch still reads it changes the checksum and aborts the run (planted
//! mutation `WgmmaEarlyRefill`). Missing proxy fences are only caught on the GPU
//! (`gconv selftest --gpu`).
//!
//! `direct_dgrad_kernels_match_the_reference_under_host_emulation` runs the direct family's
//! backward data against the f64 dgrad reference: the stride-1 dual path (the forward kernels
//! with the flipped, channel-transposed weight staging) on both math paths, and the
//! stride-phase kernel (strided, or padding above dil·(F−1)); planted faults: the flip dropped,
//! the channel transposition dropped, the phase rule shifted by one, the phase kernel's weight
//! transposition dropped, corrupted weights, a batch slot of the batched weight staging
//! (`stage_batched`) dropped.
//!
//! `every_pool_member_runs_under_host_emulation` runs every member of every bf16 and f32 pool
//! that no case table above names (about 290) on the first of `COVERAGE_PROBLEMS` it admits,
//! so that whatever `auto` or a user can pick from the pools has run its CUDA C++ on the CPU
//! before it costs device time; `every_pool_member_has_a_coverage_problem` (no g++ needed)
//! fails when a pool member admits none of those problems.
//!
//! `the_shim_aborts_deadlocks_and_turns_its_order_round` checks the shim's scheduling on
//! hand-written kernels: threads that leave before a barrier, and an mbarrier nobody arrives
//! at, abort as deadlocks; consecutive barrier phases run the threads in opposite orders.
//!
//! `host_conversions_are_bit_exact` checks the portable f32↔bf16/f16 conversions that stand in
//! for inline PTX under `GCONV_HOST_EMULATION` against the `half` crate, bit for bit. Three slow
//! `#[ignore]` tests widen the matrix (`-- --ignored`): every direct pool config on the forward
//! cases of `gconv selftest`'s matrix, the same as backward data, and the bf16 pool on the 16
//! depthwise zoo layers at N = 1.
//!
//! Without g++, or on a machine that is not x86-64 (the shim switches its fibers' stacks with
//! x86-64 code), each test prints `SKIPPED: ...` and passes; `GCONV_REQUIRE_HOST_CXX=1` turns
//! the skip into a failure. `GCONV_EMU_THREADS` sets the parallel compiles (default 2);
//! `GCONV_EMU_KERNELS=TEXT` keeps only the pool members whose name contains `TEXT` in
//! `every_pool_member_runs_under_host_emulation` (a new member checked alone).

use gconv_kernels::catalogue::{pool, Families};
use gconv_kernels::{
    admit, DeviceLimits, Family, KernelConfig, KernelSource, Rejection, SplitKMode, Target,
};
use gconv_problem::{DType, Direction};

/// Both gates, through the one admission step.
fn can_implement(cfg: &KernelConfig, p: &Problem) -> Result<(), Rejection> {
    admit(cfg, p, &Target::H200).map(|_| ())
}

/// The generated module of an admitted pair.
fn emit(cfg: &KernelConfig, p: &Problem) -> Result<KernelSource, Rejection> {
    admit(cfg, p, &Target::H200).map(|a| a.emit())
}

/// The catalogue's direct forward pool of a dtype.
fn direct_forward_pool(dt: DType) -> Vec<KernelConfig> {
    pool(Direction::Fwd, dt, Families::Only(Family::Direct))
}
use gconv_problem::{compare, HostTensor, Problem, Tolerance};
use gconv_reference::reference::reference_tensors;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

// PY = rows per thread; "regs" / "fy-outer" = where the depthwise path keeps its weights.
const A: &str = "direct_fwd_bf16_t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen"; // 16x16 px, PY 4
const A16: &str = "direct_fwd_f16_t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen";
const B: &str = "direct_fwd_bf16_t128x64x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen"; // 8x16, PY 4
const B16: &str = "direct_fwd_f16_t128x64x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen";
const C: &str = "direct_fwd_bf16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen"; // 8x16, PY 2
const C16: &str = "direct_fwd_f16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen";
const D: &str = "direct_fwd_bf16_t256x32x32_w4x1_s1_v2x8_gm1_sk1d_simt_gen"; // 8x32, PX 8
const E: &str = "direct_fwd_bf16_t196x32x14_w7x1_s1_v2x7_gm1_sk1d_simt_gen"; // 14x14, PX 7
const F: &str = "direct_fwd_bf16_t64x64x64_w8x1_s1_v2x8_gm1_sk1d_simt_gen"; // 1x64 (1D)
const F16: &str = "direct_fwd_f16_t64x64x64_w8x1_s1_v2x8_gm1_sk1d_simt_gen";
const G2: &str = "direct_fwd_bf16_t128x64x16_w8x1_s1_v4x4_gm1_sk1d_simt_gen"; // 4 ch, PY 2
const H: &str = "direct_fwd_bf16_t256x16x16_w4x1_s1_v2x4_gm1_sk1d_simt_gen";
const S7: &str = "direct_fwd_bf16_t49x64x7_w7x1_s1_v2x7_gm1_sk1d_simt_gen"; // 7x7, PY 1
const S7B: &str = "direct_fwd_bf16_t49x128x7_w2x1_s1_v2x7_gm1_sk1d_simt_gen"; // 7x7, PY 7
const T7: &str = "direct_fwd_f16_t784x16x28_w7x1_s1_v2x7_gm1_sk1d_simt_gen"; // 28x28, PY 4
const T32: &str = "direct_fwd_f32_t224x32x28_w4x1_s1_v2x7_gm1_sk1d_simt_gen"; // 8x28, PY 4
const U2: &str = "direct_fwd_bf16_t128x64x16_w8x1_s1_v8x4_gm1_sk1d_simt_gen"; // 16-byte, PY 1
const GV4: &str = "direct_fwd_bf16_t196x32x14_w7x1_s1_v4x7_gm1_sk1d_simt_gen"; // group vector
const GV4F: &str = "direct_fwd_f32_t128x32x16_w4x1_s1_v4x4_gm1_sk1d_simt_gen";
const PS2: &str = "direct_fwd_bf16_t2x64x2_w1x1_s2_v2x2_gm1_sk1d_simt_gen"; // persistent
const PS2B: &str = "direct_fwd_bf16_t196x32x14_w7x1_s2_v2x7_gm1_sk1d_simt_gen";
const PS2F: &str = "direct_fwd_f32_t224x32x28_w4x1_s2_v2x7_gm1_sk1d_simt_gen";
const V32: &str = "direct_fwd_f32_t196x32x14_w7x1_s1_v2x7_gm1_sk1d_simt_gen";
const P32: &str = "direct_fwd_f32_t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen";
const Q32: &str = "direct_fwd_f32_t128x64x16_w8x1_s1_v4x4_gm1_sk1d_simt_gen";
const R32: &str = "direct_fwd_f32_t64x32x64_w4x1_s1_v2x8_gm1_sk1d_simt_gen";

/// (label, kernel, problem).
const CASES: &[(&str, &str, &str)] = &[
    (
        "dw3x3_partial_tiles",
        A,
        "fwd_bf16_n2_g32_c32_k32_i20x20_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dw5x5_odd_hw",
        A,
        "fwd_bf16_n1_g64_c64_k64_i13x17_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "dw7x7_g144_slices",
        A,
        "fwd_bf16_n1_g144_c144_k144_i14x14_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "dw3x3_s2_f16",
        B16,
        "fwd_f16_n2_g24_c24_k24_i15x15_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dw3x3_dil2",
        B,
        "fwd_bf16_n1_g16_c16_k16_i12x12_f3x3_s1x1_p2x2_d2x2",
    ),
    (
        "dw3x3_large_pad",
        C,
        "fwd_bf16_n1_g8_c8_k8_i5x5_f3x3_s1x1_p3x3_d1x1",
    ),
    (
        "dw_odd_channels",
        C,
        "fwd_bf16_n2_g7_c7_k7_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dw3x3_px8",
        D,
        "fwd_bf16_n1_g64_c64_k64_i9x40_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dw3x3_partial_channel_tile",
        E,
        "fwd_bf16_n1_g144_c144_k144_i10x10_f3x3_s1x1_p1x1_d1x1",
    ),
    ("dw_1d", F, "fwd_bf16_n2_g32_c32_k32_i100_f5_s1_p2_d1"),
    (
        "dw_1d_s2_dil2_f16",
        F16,
        "fwd_f16_n1_g16_c16_k16_i70_f3_s2_p2_d2",
    ),
    (
        "dw_3d",
        A,
        "fwd_bf16_n1_g16_c16_k16_i5x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "dw_3d_s2_f16",
        B16,
        "fwd_f16_n2_g8_c8_k8_i6x7x7_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
    ),
    (
        "chan_mult2",
        A,
        "fwd_bf16_n1_g16_c16_k32_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "chan_mult4_odd_f16",
        C16,
        "fwd_f16_n2_g6_c6_k24_i7x8_f3x3_s1x1_p1x1_d1x1",
    ),
    ("cpg2", A, "fwd_bf16_n1_g8_c16_k16_i8x8_f3x3_s1x1_p1x1_d1x1"),
    (
        "cpg4_s2_f16",
        C16,
        "fwd_f16_n1_g4_c16_k16_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dw3x3_vec4",
        G2,
        "fwd_bf16_n2_g64_c64_k64_i16x16_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dw7x7_fy_outer",
        G2,
        "fwd_bf16_n1_g64_c64_k64_i13x21_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "cpg4_kpg4_group_vector",
        GV4,
        "fwd_bf16_n2_g8_c32_k32_i15x17_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "cpg2_kpg4_group_vector_s2",
        GV4,
        "fwd_bf16_n1_g8_c16_k32_i16x16_f5x5_s2x2_p2x2_d1x1",
    ),
    (
        "chan_mult4_group_vector_f32",
        GV4F,
        "fwd_f32_n1_g6_c6_k24_i9x10_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "cpg3_kpg4_group_vector_3d_f32",
        GV4F,
        "fwd_f32_n1_g4_c12_k16_i4x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "persistent_4_tiles_per_cta_uneven",
        PS2,
        "fwd_bf16_n1_g160_c160_k160_i47x49_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stages2_3d_cpg2_one_tile_per_cta",
        PS2B,
        "fwd_bf16_n2_g16_c32_k32_i3x15x15_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "stages2_dw5x5_f32_one_tile_per_cta",
        PS2F,
        "fwd_f32_n2_g40_c40_k40_i27x27_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "dw3x3_py7_s2",
        S7B,
        "fwd_bf16_n2_g128_c128_k128_i14x14_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "chan_mult2_py7",
        S7B,
        "fwd_bf16_n1_g32_c32_k64_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stride_gt_filter",
        H,
        "fwd_bf16_n1_g16_c16_k16_i11x11_f2x2_s3x3_p0x0_d1x1",
    ),
    (
        "dw7x7_s2_n1_f16",
        A16,
        "fwd_f16_n1_g32_c32_k32_i17x17_f7x7_s2x2_p3x3_d1x1",
    ),
    (
        "dw3x3_f32",
        P32,
        "fwd_f32_n2_g32_c32_k32_i11x13_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dw5x5_dil2_f32",
        Q32,
        "fwd_f32_n1_g20_c20_k20_i12x12_f5x5_s1x1_p4x4_d2x2",
    ),
    ("dw_1d_f32", R32, "fwd_f32_n2_g12_c12_k12_i50_f7_s1_p3_d1"),
    (
        "chan_mult_odd_f32",
        P32,
        "fwd_f32_n1_g5_c5_k10_i8x8_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dw_3d_asym_f32",
        P32,
        "fwd_f32_n1_g8_c8_k8_i4x5x6_f3x1x3_s1x1x1_p1x0x1_d1x1x1",
    ),
    (
        "dw7x1_asym",
        B,
        "fwd_bf16_n1_g16_c16_k16_i9x8_f7x1_s1x1_p3x0_d1x1",
    ),
    (
        "dw7x7_tile7x7",
        S7,
        "fwd_bf16_n2_g64_c64_k64_i7x7_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "dw5x5_tile28x28_f16",
        T7,
        "fwd_f16_n1_g72_c72_k72_i14x14_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "dw3x3_s2_tile8x28_f32",
        T32,
        "fwd_f32_n2_g40_c40_k40_i27x27_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dw5x5_vec8_s2",
        U2,
        "fwd_bf16_n2_g24_c24_k24_i19x21_f5x5_s2x2_p2x2_d1x1",
    ),
    (
        "dw3x3_px7_dil3_f32",
        V32,
        "fwd_f32_n1_g36_c36_k36_i13x15_f3x3_s1x1_p3x3_d3x3",
    ),
];

/// A deliberate fault the harness must detect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mutation {
    None,
    /// One weight of the emulated kernel's input is changed; the reference sees the original.
    CorruptWeight,
    /// The shim drops the last block of the grid.
    DropLastBlock,
    /// The wgmma pipeline prefetches one k-tile further (`stages - 1`), refilling the stage the
    /// batch still in flight reads: the shim's in-flight operand check must abort the run.
    WgmmaEarlyRefill,
    /// The persistent direct kernel computes a tile without waiting for its halo copies (the
    /// shim defers each cp.async to its wait_group): the comparison must fail.
    SkipHaloWait,
    /// The persistent direct kernel computes a tile without the barrier after its halo wait: a
    /// thread reads halo rows whose copies other threads have not yet landed (a race the shim's
    /// fiber order exposes deterministically): the comparison must fail.
    HaloBarrierDropped,
    /// The persistent direct kernel refills a halo buffer without the barrier that waits for
    /// every thread to finish reading it; run with copies that land at issue (the refill's
    /// earliest), it overwrites the tile other threads still read: the comparison must fail.
    TileReadBarrierDropped,
    /// The igemm pipeline waits for one k-tile less than it reads: the comparison must fail.
    ShortPipelineWait,
    /// The warp-specialised consumers issue a k-tile's wgmma batch without waiting for its
    /// stage to be full (the shim lands a copy only at the producer's wait_group, LAG k-tiles
    /// later): they multiply the NaN poison or a stale k-tile, or a stage whose copies land
    /// while their batch is in flight; the comparison or the shim's in-flight operand check
    /// must catch it.
    WsFullWaitDropped,
    /// The merged-group weight expansion puts every output channel's weights in the first
    /// group's block of its merged row (the block-diagonal offset dropped): the comparison must
    /// fail.
    MergeFullRows,
    /// Direct tensor-core path with resident B fragments: every warp loads the first channel
    /// unit's fragments (the warp's own unit dropped): must fail wherever a tile has more than
    /// one unit along the channels.
    ResidentBUnitDropped,
    /// Direct tensor-core path with sliding A fragments: rows g + 8 read the pixel of rows g
    /// (the pair's second pixel dropped from the slot offset): must fail.
    SlidePairDropped,
    /// Direct tensor-core path with sliding A fragments: a slot found in the previous step is
    /// taken from the next slot of it (the reuse off by one): must fail.
    SlideReuseShifted,
    /// Direct tensor-core path with sliding A fragments, whole-tap steps: the rows g + 8 loads
    /// of a step read the low channel chunk twice (the lane delta of the high chunk dropped):
    /// must fail.
    SlideChunkDeltaDropped,
    /// Direct mma, 3D C/G 8 (`tap_rows`): rows g + 8 read the matrix of rows g (the tap's
    /// pixel pair collapsed): must fail.
    TapPairShifted,
    /// `tap_rows`: every lane addresses the first matrix of a group (its column dropped).
    TapLaneMatrixDropped,
    /// `row_matrices`: the x2 group read at the row's first column instead of its own.
    TapGroupOffsetDropped,
    /// `row_matrices`: the x1 matrix read at the row's first column instead of its own.
    TapSingleOffsetDropped,
    /// `tap_rows`: the last partial sum never added into the accumulators.
    TapPartialDropped,
    /// `tap_rows` with depth streaming: every depth tap reads ring slot 0 (its slot offset
    /// dropped).
    TapRingSlotDropped,
    /// `stage_batched` (the direct kernels' batched weight staging): every element of a batch
    /// stored with the batch's first value: must fail wherever a thread stages two or more.
    StageBatchSlotDropped,
    /// igemm backward-data: every stride phase starts one dX position later (a phase offset
    /// off by one): the comparison must fail.
    IgemmDgradPhaseOffset,
    /// igemm backward-data: the filter is read unflipped against the dY walk (the flip of the
    /// transposed convolution dropped): the comparison must fail.
    IgemmDgradFlipDropped,
    /// igemm backward-data: a merged row's weights come from the next group's block (a merged
    /// block off the diagonal): the comparison must fail.
    IgemmDgradOffDiagonal,
    /// igemm backward-data, N-major weight tile: a merged channel chunk's weights come from the
    /// next group (off the diagonal): the comparison must fail.
    IgemmDgradNmajorOffDiagonal,
    /// igemm halo path (forward or backward data): every tap's A tile starts one row later in the
    /// halo (a shift off by one): the comparison must fail.
    IgemmHaloShift,
    /// igemm halo path (forward or backward data): the halo is staged one padded column off (the
    /// A operand's offset in the padded image wrong by one): the comparison must fail.
    IgemmHaloPadding,
    /// igemm halo path (forward or backward data): the prologue's halo blocks all join the
    /// last prologue copy group instead of their first reader's (block 0 lands after k-tile 0
    /// reads it; with eager copies the result would be right): the shim's in-flight operand
    /// check (the block lands under the batch that read it) or the comparison must catch it.
    IgemmHaloLateBlock,
    /// TMA-fed wgmma: the weight box's group coordinate dropped (every group reads group 0's
    /// weights): must fail wherever G > 1.
    TmaGroupDropped,
    /// TMA-fed wgmma: every k-tile's boxes taken at the split's first channel block: must fail
    /// wherever C/G spans two k-tiles or more.
    TmaKtileDropped,
    /// TMA-fed wgmma: the stage's arrival expects only the A box's bytes, so the B box
    /// completes more than expected (on the GPU, a phase that completes early or never):
    /// the shim aborts.
    TmaExpectTxShort,
    /// TMA-fed wgmma, im2col copies: the filter offsets along W and H swapped: must fail
    /// wherever the filter is not symmetric in its taps' reach (every 3×3 with data).
    TmaIm2colOffsetsSwapped,
    /// TMA-fed wgmma, im2col copies: the walk starts at the output pixel's position instead
    /// of its filter corner (the padding dropped): must fail wherever the padding is not 0.
    TmaIm2colPadDropped,
    /// TMA-fed wgmma, backward data on the general path: the taps' im2col offsets not flipped
    /// (dY read at w − PW + x·DW instead of w + PW − x·DW): must fail.
    TmaDgradIm2colFlipDropped,
    /// TMA-fed wgmma, backward weight on the general path: every panel's im2col copy read
    /// without its tap's offsets (every tap reads the first tap's pixels): must fail.
    TmaWgradTapOffsetsDropped,
    /// TMA-fed wgmma, backward data: every k-tile's boxes taken at channel 0: must fail
    /// wherever K/G spans two k-tiles or more.
    TmaDgradKtileDropped,
    /// TMA-fed wgmma, backward weight: every X panel lands on the first panel's place (the
    /// panel offset dropped): must fail wherever C/G > 64 at a 128-wide tile.
    TmaPanelDropped,
    /// TMA-fed wgmma, backward weight with group merge on the general path: the im2col
    /// copies start at group block gb's first channel as if unmerged (`gb·C/G` instead of
    /// `gb·GM·C/G`): every block past the first reads its neighbour's channels: must fail
    /// wherever G/GM > 1.
    TmaWgradMergeOffsetUnmerged,
    /// TMA-fed wgmma, backward weight with a merge tail (G not a multiple of GM, the maps
    /// `[K, 1, pixels]`): dY's boxes taken without their block's first channel (`gb·NEFF`
    /// dropped), so every block reads the first block's dY: must fail wherever ⌈G/GM⌉ > 1.
    TmaWgradTailOffsetDropped,
    /// igemm forward / backward data with a merge tail: the A channels' tail bound one vector
    /// short (a chunk's end tested against C), so the last real channels read as zeros: must
    /// fail.
    IgemmTailChannelsShort,
    /// igemm forward / backward data with a merge tail: the weight rows' tail bound one group
    /// short (`< G_ − 1`), so the last real group's weights read as zeros: must fail.
    IgemmTailRowsShort,
    /// igemm backward weight (cp.async loaders) with a merge tail: X's channel bound one group
    /// short: must fail.
    IgemmWgradTailChannelsShort,
    /// Backward data: the spatial flip of the dual filter dropped (`dgrad_w_index` reads tap
    /// `tap` instead of `TAPS − 1 − tap`): the comparison must fail.
    DgradFlipDropped,
    /// Backward data: the channel transposition dropped (`dgrad_w_index` reads W as if it were
    /// laid out in the dual's own [G][K'/G][taps][C'/G] order): must fail wherever C/G or K/G
    /// exceeds 1.
    DgradTransposeDropped,
    /// Backward data on tensor cores, the 16-byte weight gather (`dgrad_mma_weights.cu`,
    /// `dgrad_phases_mma.cu`: dX channels per group a multiple of 8): the eight dX channels of
    /// a read stored along the row (`store_column8`'s stride 1 instead of the row stride, as
    /// eight weights of one channel) instead of down the column: must fail.
    DgradVectorTransposeDropped,
    /// Backward data on tensor cores with merged groups, the raw weights gathered VW dual
    /// output channels per read (`copy_column`): the read's VW rows stored as one (the row
    /// index's VW factor dropped): must fail.
    DgradMergedColumnRowsDropped,
    /// Stride-phase dgrad: the tap-to-phase rule shifted by one (`p + P − y·D` read as
    /// `p + P + 1 − y·D`), so taps land on the neighbouring phase: the comparison must fail.
    DgradPhaseShifted,
    /// Stride-phase dgrad: the weight staging reads W as if its channels were the dX
    /// channel's outer index ([G][C/G][taps][K/G]): must fail wherever C/G ≠ K/G.
    DgradPhaseTransposeDropped,
    /// Tensor-core stride-phase dgrad: every phase reads the first phase's weights (the
    /// phase's offset in the weight row dropped from the B fragment address): must fail
    /// wherever a later phase has taps.
    PhaseMmaWeightOffsetDropped,
    /// Tensor-core stride-phase dgrad: the column phase dropped from the dX store address (each
    /// cell's phases stored over its first column): must fail wherever the column stride is
    /// above 1.
    PhaseMmaStorePhaseDropped,
    /// igemm backward-weight: the block-diagonal store mask dropped (a merged tile's
    /// off-diagonal group pairs stored over the diagonal ones): the comparison must fail.
    IgemmWgradDiagonalDropped,
    /// igemm backward-weight: the merged row bound reverted to the true per-group dims (K/G
    /// instead of gm·K/G): the rows of every merged group but the first are never stored.
    IgemmWgradMergedBoundsTrue,
    /// The shared split-K reduction (igemm split-K, direct wgrad slabs): the fixed-order pass
    /// skips the first partial plane of every plane slice: the comparison must fail wherever
    /// there are two planes or more.
    SplitReduceSliceSkipped,
    /// Depth streaming (direct tensor-core, stages 3): the next output slice's new input slice
    /// is staged one ring slot further than the walk reads it (`(od + FZ + 1) mod HALO_BUFS`),
    /// over a slot still in use: the comparison must fail.
    DepthRingSlotShifted,
    /// Depth streaming: every output slice reads its depth taps from ring slots 0, 1, … (the
    /// slot origin `od mod HALO_BUFS` dropped): must fail wherever OD ≥ 2.
    DepthSlotOriginDropped,
    /// Depth streaming with a per-thread slice plan (`common.cu`'s `slice_plan`): the copies'
    /// inside-the-input bits ignored, so halo rows and columns in the padding are read from the
    /// slice's first pixel instead of zero-filled: must fail wherever the halo meets padding.
    DepthPlanPaddingRead,
    /// The shared split-K reduction with several plane slices per element: the slice sums are
    /// added from the second slice on (the first slice's planes dropped): the comparison must
    /// fail.
    SplitReduceSliceSumDropped,
    /// Direct tensor-core wgrad with M slices: the store forgets its slice's offset (every
    /// slice stores at the first slice's rows): the other slices' rows stay NaN.
    DirectWgradMmaSliceOffsetDropped,
    /// Tensor-core direct paths at stride 2: the pixel addressing steps SW slots per output
    /// pixel as if the halo's columns were in natural order, while the copy de-interleaves
    /// them by stride phase: the comparison must fail.
    HaloPhaseIgnored,
    /// Direct wgrad: every tap reads the X column one pixel to the right (a tap offset off by
    /// one): the comparison must fail.
    DirectWgradTapShifted,
    /// Direct wgrad: the store bound of the output channels taken from C instead of K: rows of
    /// dW beyond C stay unwritten (NaN) wherever K > C.
    DirectWgradChannelBound,
    /// Streaming depthwise wgrad: every X column feeds the tap one to its left (tap tx reads
    /// column `ow·SW + tx·DW + 1`, a tap offset off by one): the comparison must fail.
    DirectWgradStreamTapShifted,
    /// Streaming wgrad, cluster split: the cluster's sum skips rank 0's partial: the comparison
    /// must fail.
    StreamClusterRankSkipped,
    /// Streaming wgrad, cluster split: every rank's sum reads its own shared memory S times
    /// instead of the cluster's (the distributed read dropped): the comparison must fail.
    StreamClusterOwnSmem,
    /// igemm wgrad, cluster split: every chunk's sum skips rank 0's partial: must fail.
    IgemmClusterRankSkipped,
    /// igemm wgrad, cluster split: each rank sums its own staged tile SPLIT times instead of
    /// the cluster's (the distributed read dropped): must fail.
    IgemmClusterOwnSmem,
    /// igemm wgrad, cluster split: every rank takes the chunks of rank 0 (the others' chunks
    /// stay unwritten, NaN): must fail.
    IgemmClusterChunksUnranked,
    /// Tensor-core wgrad: every A chunk reads the X column one pixel to the right (a tap
    /// offset off by one): the comparison must fail.
    DirectWgradMmaTapShifted,
    /// Tensor-core wgrad: the lanes of the second n8 block of a pair read the first block's
    /// output channels: must fail wherever K/G ≥ 16.
    DirectWgradMmaSecondBlockDropped,
    /// Tensor-core wgrad: a stored value's tap dropped from its dW offset: must fail.
    DirectWgradMmaStoreTapDropped,
    /// Register-pipelined tensor-core wgrad (`stages = 3`): the prefetch loads the current
    /// k16 step's fragments again instead of the next one's (step 0 counted twice, the last
    /// step never): must fail wherever a tile has two steps or more.
    DirectWgradMmaPrefetchStale,
    /// Tensor-core wgrad with merged groups: the off-diagonal products (an input channel of one
    /// real group with an output channel of another) stored too: must fail.
    DirectWgradMmaMergeDiagonalDropped,
    /// Streaming depthwise wgrad: the tap-row bound of the main loop taken as `⌊rows / RG⌋·RG`
    /// (the last, short group's rows dropped): must fail wherever RG does not divide FZ·FY.
    DirectWgradStreamRowGroupDropped,
    /// Streaming depthwise wgrad: the CTA's slot reduction skips slot 0: must fail wherever a
    /// CTA has two work slots or more.
    DirectWgradStreamSlotSkipped,
    /// Banded tensor-core wgrad: the shifted copy of a staged dY row is never written, so the
    /// lanes whose band offset is odd read stale words: the comparison must fail.
    BandedShiftedCopyDropped,
    /// Banded tensor-core wgrad: the top half of the MMA is read one tap row off (`n` for
    /// `ty` instead of `ty + 1`): the comparison must fail.
    BandedTopHalfShifted,
    /// Banded tensor-core wgrad: the staged dY row keeps the columns of the neighbouring
    /// column tile (the `[ox0, ox0 + TW)` mask dropped), so those products are counted twice:
    /// must fail wherever a row has two column tiles or more.
    BandedTileMaskDropped,
    /// Banded tensor-core wgrad, pipelined variant: the reads issued during a tile's MMAs are
    /// the current tile's again instead of the next one's (a stale prefetch): must fail
    /// wherever a slab has two tiles or more.
    BandedPrefetchStale,
    /// Banded tensor-core wgrad with tap blocks: every block along x reads the first block's
    /// band (the `4·bx`-word shift dropped): must fail wherever FX > 8.
    BandedBlockShiftDropped,
    /// Banded tensor-core wgrad with tap blocks: every block along y reads the first block's X
    /// rows (the `7·by`-row offset dropped): must fail wherever FY > 7.
    BandedBlockRowsDropped,
    /// Banded tensor-core wgrad: the MMA reads of the X planes leave out the shift between
    /// groups of 8 channels that the staging stores apply (`x_plane`): must fail wherever a
    /// CTA has two channel vectors or more.
    BandedXGroupShiftDropped,
    /// Banded tensor-core wgrad: as `BandedXGroupShiftDropped`, for the dY planes
    /// (`dy_plane`).
    BandedDyGroupShiftDropped,
    /// Banded tensor-core forward: the shifted copy of a staged X row is never written, so the
    /// lanes of odd columns read stale words: must fail.
    FwdBandedShiftedCopyDropped,
    /// Banded tensor-core forward: the MMA reads of the X planes leave out the shift between
    /// groups of 8 channels that the staging stores apply (`x_plane`): must fail wherever a
    /// CTA has two channel vectors or more.
    FwdBandedGroupShiftDropped,
    /// Banded tensor-core forward: the output stores that pack adjacent channels of a pixel put
    /// each pair's two channels the wrong way round: must fail wherever a warp holds two
    /// channels or more.
    FwdBandedPackSwapped,
    /// Banded tensor-core forward: the second row of each staged row pair is multiplied by the
    /// first row's filter taps (the band one tap row off): must fail.
    FwdBandedBandOffByOne,
    /// Banded tensor-core forward, pipelined variant: the reads issued during a tile's MMAs
    /// are the current tile's again instead of the next one's: must fail wherever a CTA walks
    /// two tiles or more.
    FwdBandedPrefetchStale,
    /// Banded tensor-core backward data: the filter read unflipped: must fail.
    FwdBandedFlipDropped,
    /// Banded tensor-core forward: every column tile stages the first tile's X columns (`ox0`
    /// dropped from the staging): must fail wherever a row has two column tiles or more. (The
    /// tail masks need no planted fault: without them a tail tile writes past Y, which
    /// AddressSanitizer reports, or over pixels the NaN-filled output check reads.)
    FwdBandedColumnTileIgnored,
}

struct Job {
    label: String,
    cfg: KernelConfig,
    problem: Problem,
    mutation: Mutation,
    /// Compile the shim with `GCONV_SHIM_EAGER_COPIES`: each cp.async lands when it is issued
    /// (the earliest the hardware may complete it) instead of at its wait_group (the latest),
    /// so that a stage refilled while a wgmma batch still reads it changes that batch's
    /// operands.
    eager_copies: bool,
}

struct Outcome {
    label: String,
    kernel: String,
    problem: Problem,
    mutation: Mutation,
    /// Ok(passed, max_abs, max_rel, failures) or an error text (compile or run failure).
    result: Result<(bool, f64, f64, usize), String>,
}

fn shim_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// A work directory per test (tests of this binary may run concurrently).
fn work_dir(test: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("gconv_host_emulation")
        .join(test)
}

/// The flags every emulated module is compiled with (and its precompiled shim).
const CXX_FLAGS: [&str; 4] = ["-std=c++20", "-O1", "-pthread", "-fno-strict-aliasing"];

/// A directory holding `host_shim.h.gch`, the shim precompiled with [`CXX_FLAGS`] (and
/// AddressSanitizer when `asan`), built once per test process; `None` when g++ cannot build it
/// (the modules then parse the shim themselves). Put before [`shim_dir`] on the include path,
/// g++ takes the precompiled header for `#include "host_shim.h"` wherever it is valid for the
/// module's flags: about a third of a module's compile time is the shim's parsing.
fn precompiled_shim(asan: bool) -> Option<&'static Path> {
    static PCH: [OnceLock<Option<PathBuf>>; 2] = [OnceLock::new(), OnceLock::new()];
    PCH[usize::from(asan)]
        .get_or_init(|| {
            let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .join("gconv_host_emulation")
                .join(if asan { "pch_asan" } else { "pch" });
            std::fs::create_dir_all(&dir).ok()?;
            let gch = dir.join("host_shim.h.gch");
            let mut cmd = Command::new("g++");
            cmd.args(CXX_FLAGS);
            if asan {
                cmd.arg("-fsanitize=address");
            }
            let built = cmd
                .args(["-x", "c++-header"])
                .arg(shim_dir().join("host_shim.h"))
                .arg("-o")
                .arg(&gch)
                .output()
                .is_ok_and(|o| o.status.success());
            built.then_some(dir)
        })
        .as_deref()
}

/// Compiles `cpp` (which includes the shim) to `exe` with [`CXX_FLAGS`], without
/// AddressSanitizer or the precompiled shim; panics with g++'s messages when it fails.
fn build_without_asan(cpp: &Path, exe: &Path) {
    let out = Command::new("g++")
        .args(CXX_FLAGS)
        .arg("-I")
        .arg(shim_dir())
        .arg("-o")
        .arg(exe)
        .arg(cpp)
        .output()
        .expect("run g++");
    assert!(
        out.status.success(),
        "g++ {}: {}",
        cpp.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn cxx_available() -> bool {
    Command::new("g++")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// True when `g++ -fsanitize=address` builds and runs a trivial program.
fn asan_available(dir: &Path) -> bool {
    let src = dir.join("asan_probe.cpp");
    let exe = dir.join("asan_probe");
    if std::fs::write(&src, "int main() { return 0; }\n").is_err() {
        return false;
    }
    let built = Command::new("g++")
        .args(["-fsanitize=address", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .is_ok_and(|o| o.status.success());
    built
        && Command::new(&exe)
            .output()
            .is_ok_and(|o| o.status.success())
}

/// The generated `main`: reads in0/in1 from files, runs every launch, writes the output.
fn host_main(src: &KernelSource, p: &Problem) -> String {
    let ([r0, r1], ro) = p.roles();
    let es = p.dtype.size_bytes();
    let mut m = String::new();
    let _ = writeln!(m, "\nint main(int argc, char** argv) {{");
    let _ = writeln!(
        m,
        "  if (argc != 4) {{ std::fprintf(stderr, \"usage: in0 in1 out\\n\"); return 2; }}"
    );
    let _ = writeln!(
        m,
        "  void* in0 = gconv_host_read(argv[1], {});",
        p.elements(r0) * es
    );
    let _ = writeln!(
        m,
        "  void* in1 = gconv_host_read(argv[2], {});",
        p.elements(r1) * es
    );
    let ob = p.elements(ro) * es;
    let _ = writeln!(m, "  void* out = std::malloc({ob});");
    let _ = writeln!(m, "  std::memset(out, 0xFF, {ob});");
    let _ = writeln!(
        m,
        "  void* ws = {};",
        if src.workspace_bytes > 0 {
            format!("std::malloc({})", src.workspace_bytes)
        } else {
            "nullptr".to_string()
        }
    );
    // A thread-block cluster launch (`Launch::cluster` CTAs along x) runs a cluster's CTAs
    // together.
    // A launch with tensor maps passes them after the four pointers (host maps over the same
    // buffers, built from `Launch::tensor_maps`).
    for l in &src.launches {
        let mut entry = l.entry.clone();
        if !l.tensor_maps.is_empty() {
            let _ = writeln!(m, "  {{");
            let mut names = Vec::new();
            for (i, t) in l.tensor_maps.iter().enumerate() {
                assert_eq!(t.problem(), None, "{}: tensor map {i}", l.entry);
                let list = |v: &[u64]| {
                    v.iter()
                        .map(|x| format!("{x}ull"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let boxes: Vec<u64> = t.boxdim.iter().map(|&b| u64::from(b)).collect();
                let _ = writeln!(
                    m,
                    "  const unsigned long long tm{i}_dims[] = {{{}}}, tm{i}_strides[] = {{{}0ull}};",
                    list(&t.dims),
                    if t.strides.is_empty() {
                        String::new()
                    } else {
                        format!("{}, ", list(&t.strides))
                    }
                );
                let _ = writeln!(
                    m,
                    "  const unsigned tm{i}_box[] = {{{}}};",
                    boxes
                        .iter()
                        .map(|b| b.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let buffer = ["in0", "in1", "out", "ws"][usize::from(t.buffer.min(3))];
                if let Some(ic) = &t.im2col {
                    let ints = |v: &[i32]| {
                        v.iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    let strides: Vec<i32> = ic.element_strides.iter().map(|&x| x as i32).collect();
                    let _ = writeln!(
                        m,
                        "  const int tm{i}_lo[] = {{{}}}, tm{i}_hi[] = {{{}}}; const unsigned tm{i}_es[] = {{{}}};",
                        ints(&ic.lower),
                        ints(&ic.upper),
                        ints(&strides)
                    );
                    let _ = writeln!(
                        m,
                        "  const gconv_tmap tm{i} = gconv_host_tmap_im2col({buffer}, {}, {}, tm{i}_dims, tm{i}_strides, tm{i}_lo, tm{i}_hi, tm{i}_es, {}, {}, {});",
                        t.elem.bytes(),
                        t.dims.len(),
                        ic.channels_per_pixel,
                        ic.pixels_per_column,
                        t.swizzle_128b
                    );
                } else {
                    let _ = writeln!(
                        m,
                        "  const gconv_tmap tm{i} = gconv_host_tmap({buffer}, {}, {}, tm{i}_dims, tm{i}_strides, tm{i}_box, {});",
                        t.elem.bytes(),
                        t.dims.len(),
                        t.swizzle_128b
                    );
                }
                names.push(format!("tm{i}"));
            }
            entry = format!(
                "[&](const void* a, const void* b, void* c, void* d) {{ {}(a, b, c, d, {}); }}",
                l.entry,
                names.join(", ")
            );
        }
        let _ = writeln!(
            m,
            "  gconv_host_launch({}, dim3{{{}, {}, {}}}, dim3{{{}, {}, {}}}, {}, in0, in1, out, ws, {});",
            entry,
            l.grid[0],
            l.grid[1],
            l.grid[2],
            l.block[0],
            l.block[1],
            l.block[2],
            l.dynamic_smem_bytes,
            l.cluster
        );
        if !l.tensor_maps.is_empty() {
            let _ = writeln!(m, "  }}");
        }
    }
    let _ = writeln!(m, "  gconv_host_write(argv[3], out, {ob});");
    let _ = writeln!(
        m,
        "  std::free(in0); std::free(in1); std::free(out); std::free(ws);\n  return 0;\n}}"
    );
    m
}

fn run_job(job: &Job, dir: &Path, asan: bool) -> Result<(bool, f64, f64, usize), String> {
    let (outputs, want) = emulate(job, dir, asan, 1)?;
    let bytes = outputs.first().ok_or("no output")?;
    let got =
        HostTensor::from_bytes(job.problem.dtype, bytes).ok_or("output size not whole elements")?;
    let c = compare(&got, &want, Tolerance::for_problem(&job.problem));
    Ok((c.passed(), c.max_abs_err, c.max_rel_err, c.failures))
}

/// Builds the job's module (mutation planted) with the shim and runs it `runs` times on the
/// same inputs: the output bytes of each run and the f64 reference.
fn emulate(
    job: &Job,
    dir: &Path,
    asan: bool,
    runs: usize,
) -> Result<(Vec<Vec<u8>>, Vec<f64>), String> {
    let p = &job.problem;
    let src = emit(&job.cfg, p).map_err(|e| format!("emit: {e}"))?;
    let stem = format!(
        "{}__{}__{:?}{}",
        src.kernel_name,
        p,
        job.mutation,
        if job.eager_copies { "__eager" } else { "" }
    );
    let cpp = dir.join(format!("{stem}.cpp"));
    let exe = dir.join(&stem);
    // Source mutations: (text in the generated code, its replacement).
    let planted = match job.mutation {
        Mutation::WgmmaEarlyRefill => Some((
            "constexpr int PF = STAGES - 2;",
            "constexpr int PF = STAGES - 1;",
        )),
        Mutation::SkipHaloWait => Some((
            "      cp_async_wait<1>();  // every group but the newest: tile t has landed",
            "",
        )),
        Mutation::HaloBarrierDropped => Some((
            "tile t has landed\n      __syncthreads();\n",
            "tile t has landed\n",
        )),
        Mutation::TileReadBarrierDropped => Some((
            "      __syncthreads();  // all reads of this buffer done before it is refilled\n",
            "",
        )),
        Mutation::WsFullWaitDropped => Some((
            "      mbar_wait(full_bar(s), (kt / STAGES) & 1);",
            "",
        )),
        Mutation::ShortPipelineWait => Some((
            "    cp_async_wait<STAGES - 2>();",
            "    cp_async_wait<STAGES - 1>();",
        )),
        Mutation::MergeFullRows => Some((
            "const int c0 = v * 8 - ((k0 + kl) % KG) / KG0 * CG0;",
            "const int c0 = v * 8;",
        )),
        Mutation::IgemmDgradPhaseOffset => Some((
            "d.hi0 = ((rho - P) % S + S) % S;",
            "d.hi0 = ((rho - P + 1) % S + S) % S;",
        )),
        Mutation::IgemmDgradFlipDropped => Some((
            "wtap = ((pd.y0 + jz * YSTEP_D) * FY + ph.y0 + jy * YSTEP_H) * FX + pw.y0 + jx * YSTEP_W;",
            "wtap = ((FZ - 1 - pd.y0 - jz * YSTEP_D) * FY + FY - 1 - ph.y0 - jy * YSTEP_H) * FX + FX - 1 - pw.y0 - jx * YSTEP_W;",
        )),
        Mutation::IgemmDgradOffDiagonal => Some((
            "b_lo[u] = ok ? gsub * CG : OFF_INVALID;",
            "b_lo[u] = ok ? ((gsub + 1) % GM) * CG : OFF_INVALID;",
        )),
        Mutation::IgemmHaloShift => Some((
            "(ty * DH * WP + tx * DW) * ROWB);",
            "(ty * DH * WP + tx * DW + 1) * ROWB);",
        )),
        Mutation::IgemmHaloPadding => Some((
            "const int iy = rem / WP - LH, ix = rem % WP - LW;",
            "const int iy = rem / WP - LH, ix = rem % WP - LW + 1;",
        )),
        Mutation::TmaGroupDropped => Some((
            "tma_load_3d(sbase_b + stage * B_STAGE, tmap_b, bar, k, n0, gb);",
            "tma_load_3d(sbase_b + stage * B_STAGE, tmap_b, bar, k, n0, 0);",
        )),
        Mutation::TmaKtileDropped => Some((
            "const int k = (kt_begin + kt) * BK;",
            "const int k = kt_begin * BK;",
        )),
        Mutation::TmaDgradKtileDropped => Some(("const int k = kt * BK;", "const int k = 0;")),
        Mutation::TmaWgradMergeOffsetUnmerged => Some((
            "gb * CEFF + col % CEFF : C_;",
            "gb * CG + col % CEFF : C_;",
        )),
        Mutation::TmaWgradTapOffsetsDropped => Some((
            "(t % FX) * DW, (t / FX) * DH);",
            "0, 0);",
        )),
        Mutation::TmaDgradIm2colFlipDropped => Some((
            "t_n, (FX - 1 - tx) * DW, (FY - 1 - ty) * DH);",
            "t_n, tx * DW, ty * DH);",
        )),
        Mutation::TmaIm2colOffsetsSwapped => Some((
            "(tap % FX) * DW, (tap / FX) * DH);",
            "(tap / FX) * DH, (tap % FX) * DW);",
        )),
        Mutation::TmaIm2colPadDropped => Some((
            "gb * CG + k, t_ow * SW - PW, t_oh * SH - PH, t_n,",
            "gb * CG + k, t_ow * SW, t_oh * SH, t_n,",
        )),
        Mutation::TmaPanelDropped => Some((
            "tma_load_3d(sbase_b + stage * B_STAGE + q * (BK * 128), tmap_b, bar, (GTAIL ? gb * CEFF : 0)",
            "tma_load_3d(sbase_b + stage * B_STAGE, tmap_b, bar, (GTAIL ? gb * CEFF : 0)",
        )),
        Mutation::TmaExpectTxShort => Some((
            "mbar_arrive_expect_tx(full_bar(s), A_STAGE + B_STAGE);",
            "mbar_arrive_expect_tx(full_bar(s), A_STAGE);",
        )),
        Mutation::IgemmHaloLateBlock => Some((
            "    if (s < CBLK) fetch_halo(s);",
            "    if (s == PF - 1) for (int b = 0; b < CBLK && b < PF; ++b) fetch_halo(b);",
        )),
        Mutation::IgemmDgradNmajorOffDiagonal => Some((
            "n_lo[u] = ok ? (nv / KG) * CG : OFF_INVALID;",
            "n_lo[u] = ok ? ((nv / KG + 1) % GM) * CG : OFF_INVALID;",
        )),
        Mutation::DgradFlipDropped => Some((
            "return ((g * CGW + kk) * TAPS + (TAPS - 1 - tap)) * KGW + c;",
            "return ((g * CGW + kk) * TAPS + tap) * KGW + c;",
        )),
        Mutation::DgradPhaseShifted => Some((
            "constexpr bool reaches(int p, int y, int S, int P, int D) { return (p + P - y * D) % S == 0; }",
            "constexpr bool reaches(int p, int y, int S, int P, int D) { return (p + P + 1 - y * D) % S == 0; }",
        )),
        Mutation::DirectWgradTapShifted => Some((
            "const elem_t* xt = xs + (tz * ITH + ty * DH) * XROW + tx * DW * CTS;",
            "const elem_t* xt = xs + (tz * ITH + ty * DH) * XROW + (tx * DW + 1) * CTS;",
        )),
        Mutation::BandedShiftedCopyDropped => Some((
            "dst[i * DPLANE + DSW] = e1 | (e2 << 16);",
            "",
        )),
        Mutation::BandedTopHalfShifted => Some((
            "const float v = s[t * 8 + r + 1] + s[(t + 8) * 8 + r];",
            "const float v = s[t * 8 + r] + s[(t + 8) * 8 + r];",
        )),
        Mutation::BandedTileMaskDropped => Some((
            "if (oy < OH && ox >= T.ox0 && ox < T.ox0 + TW && ox < OW && k < C_) {",
            "if (oy < OH && ox >= 0 && ox < OW && k < C_) {",
        )),
        Mutation::BandedPrefetchStale => Some((
            "if (u + 1 < u1) fetch(tile_of(u + 1));",
            "if (u + 1 < u1) fetch(tile_of(u));",
        )),
        Mutation::BandedBlockShiftDropped => Some((
            "const u32* top = dyc + (2 * j + 1) * 2 * DSW - 4 * bx;",
            "const u32* top = dyc + (2 * j + 1) * 2 * DSW;",
        )),
        Mutation::BandedBlockRowsDropped => Some((
            "ldsm_x2(b, xb + (u32)(((2 * j + 7 * by) * XRS + kc * 16) * 2));",
            "ldsm_x2(b, xb + (u32)(((2 * j) * XRS + kc * 16) * 2));",
        )),
        Mutation::BandedXGroupShiftDropped => Some((
            "const u32 xb = xs_a + (u32)(x_plane(c) * 2) + xrole;",
            "const u32 xb = xs_a + (u32)(c * XPLANE * 2) + xrole;",
        )),
        Mutation::BandedDyGroupShiftDropped => Some((
            "const u32* dyc = ds32 + dy_plane(c) + aword;",
            "const u32* dyc = ds32 + c * DPLANE + aword;",
        )),
        Mutation::FwdBandedShiftedCopyDropped => {
            Some((
                "dst[c * XPLANE + XCW] = pair(1, 2);",
                "",
            ))
        }
        Mutation::FwdBandedGroupShiftDropped => Some((
            "const u32* xc = xs32 + x_plane(c) + aword;",
            "const u32* xc = xs32 + c * XPLANE + aword;",
        )),
        Mutation::FwdBandedPackSwapped => Some((
            "w[h / 2] = (u32)to_half_bits(acc[ci + h][b][mc][i]) |\n                           ((u32)to_half_bits(acc[ci + h + 1][b][mc][i]) << 16);",
            "w[h / 2] = (u32)to_half_bits(acc[ci + h + 1][b][mc][i]) |\n                           ((u32)to_half_bits(acc[ci + h][b][mc][i]) << 16);",
        )),
        Mutation::FwdBandedBandOffByOne => Some((
            "bw[j][1] = w_tap(W, kc, 2 * j + 1 - g, 2 * q) | (w_tap(W, kc, 2 * j + 1 - g, 2 * q + 1) << 16);",
            "bw[j][1] = w_tap(W, kc, 2 * j - g, 2 * q) | (w_tap(W, kc, 2 * j - g, 2 * q + 1) << 16);",
        )),
        Mutation::FwdBandedPrefetchStale => Some((
            "if (u + (int)gridDim.x < UNITS) fetch(u + gridDim.x);",
            "if (u + (int)gridDim.x < UNITS) fetch(u);",
        )),
        Mutation::FwdBandedFlipDropped => Some((
            "return W[(long long)k * TAPS + (FY - 1 - ty) * FX + (FX - 1 - tx)];",
            "return W[(long long)k * TAPS + ty * FX + tx];",
        )),
        Mutation::FwdBandedColumnTileIgnored => Some((
            "const int ix = ox0 - PW + 2 * wd + j;",
            "const int ix = -PW + 2 * wd + j;",
        )),
        Mutation::DirectWgradStreamTapShifted => Some((
            "const int q = j - ow * SW;",
            "const int q = j - ow * SW - 1;",
        )),
        Mutation::DirectWgradStreamRowGroupDropped => Some((
            "live[h] = i0 + h < RG && row < ROWS &&",
            "live[h] = i0 + h < RG && row < ROWS / RG * RG &&",
        )),
        Mutation::StreamClusterRankSkipped => Some((
            "for (int q = 0; q < SLABS; ++q) s += ld_cluster_f32(red + e, (unsigned)q);",
            "for (int q = 1; q < SLABS; ++q) s += ld_cluster_f32(red + e, (unsigned)q);",
        )),
        Mutation::StreamClusterOwnSmem => Some((
            "s += ld_cluster_f32(red + e, (unsigned)q);",
            "s += ld_cluster_f32(red + e, blockIdx.x);",
        )),
        Mutation::IgemmClusterRankSkipped => Some((
            "for (int e = 0; e < VC; ++e) s[e] += part[q][e];",
            "for (int e = 0; e < VC; ++e) s[e] += q == 0 ? 0.f : part[q][e];",
        )),
        Mutation::IgemmClusterOwnSmem => Some((
            "ld_cluster_f32xn<VC>(src, (unsigned)q, part[q]);",
            "ld_cluster_f32xn<VC>(src, (unsigned)split, part[q]);",
        )),
        Mutation::IgemmClusterChunksUnranked => Some((
            "for (int idx = tid + split * THREADS; idx < C_CHUNKS; idx += THREADS * SPLIT) {",
            "for (int idx = tid; idx < C_CHUNKS; idx += THREADS * SPLIT) {",
        )),
        Mutation::DirectWgradMmaTapShifted => Some((
            "return (fz * ITH + fy * DH) * XROW + halo_col(fx * DW) * CTS + (j % CPT) * 8;",
            "return (fz * ITH + fy * DH) * XROW + (halo_col(fx * DW) + 1) * CTS + (j % CPT) * 8;",
        )),
        Mutation::DirectWgradMmaSecondBlockDropped => Some((
            "at.b[w] = (u32)((grp * KG + bblk * 8) * ESZ);",
            "at.b[w] = (u32)((grp * KG) * ESZ);",
        )),
        Mutation::DirectWgradMmaStoreTapDropped => Some((
            "const int e = (chunk / CPT) * CG0 + c % CG0;",
            "const int e = c % CG0;",
        )),
        Mutation::DirectWgradMmaPrefetchStale => Some((
            "load_step(f[(s + 1) & 1], s + 1, xs_a, dys_a, lane, at);",
            "load_step(f[(s + 1) & 1], s, xs_a, dys_a, lane, at);",
        )),
        Mutation::DirectWgradMmaMergeDiagonalDropped => Some((
            "(GM > 1 && c / CG0 != kk / KG0)",
            "(GM > 1 && false)",
        )),
        Mutation::DirectWgradStreamSlotSkipped => Some((
            "for (int p = 0; p < SLOTS; ++p) s += red[p * BN * TAPS + e];",
            "for (int p = 1; p < SLOTS; ++p) s += red[p * BN * TAPS + e];",
        )),
        Mutation::DirectWgradChannelBound => Some((
            "if (k0 + e / WPK < K_) {",
            "if (k0 + e / WPK < C_) {",
        )),
        Mutation::PhaseMmaWeightOffsetDropped => Some((
            "ldsm_x4(r, bbase + (u32)((j * 8 * WROW + woff + s * 16) * ESZ));",
            "ldsm_x4(r, bbase + (u32)((j * 8 * WROW + s * 16) * ESZ));",
        )),
        Mutation::PhaseMmaStorePhaseDropped => Some((
            "const int wi = (a.ow0 + tx) * NSW + phase_w(f);",
            "const int wi = (a.ow0 + tx) * NSW;",
        )),
        Mutation::DgradPhaseTransposeDropped => Some((
            "Wt[((g * CG + kk) * RTAPS + tap) * KG + (k - g * KG)]",
            "Wt[((g * KG + (k - g * KG)) * RTAPS + tap) * CG + kk]",
        )),
        Mutation::IgemmWgradDiagonalDropped => Some((
            "    if (gr != gc || (GTAIL && gb * GM + gr >= G_)) return -1;\n",
            "    if (GTAIL && gb * GM + gr >= G_) return -1;\n",
        )),
        Mutation::IgemmTailChannelsShort => Some((
            "cok = cok && gb * CEFF + ch < C_;",
            "cok = cok && gb * CEFF + ch + VA < C_;",
        )),
        Mutation::IgemmTailRowsShort => Some((
            "gb * GM + nn / KG < G_",
            "gb * GM + nn / KG < G_ - 1",
        )),
        Mutation::IgemmWgradTailChannelsShort => Some((
            "gb * CEFF + n % CEFF < C_)",
            "gb * CEFF + n % CEFF < C_ - CG)",
        )),
        Mutation::TmaWgradTailOffsetDropped => Some((
            "(GTAIL ? gb * NEFF : 0) + m0 + 64 * q",
            "m0 + 64 * q",
        )),
        Mutation::IgemmWgradMergedBoundsTrue => Some((
            "  const int m_rows = NEFF;\n  const int n_cols = TAPS * CEFF;",
            "  const int m_rows = KG;\n  const int n_cols = TAPS * CEFF;",
        )),
        Mutation::SplitReduceSliceSkipped => Some((
            "for (int p = q; p < RED_SPLIT; p += RS_) s += ws[p * RED_PLANE + i];",
            "for (int p = q + RS_; p < RED_SPLIT; p += RS_) s += ws[p * RED_PLANE + i];",
        )),
        Mutation::DepthRingSlotShifted => Some((
            "load_slice(xs0 + ((od + FZ) % HALO_BUFS) * SLOT, X, a, od + FZ - PD, c0, tid, pl);",
            "load_slice(xs0 + ((od + FZ + 1) % HALO_BUFS) * SLOT, X, a, od + FZ - PD, c0, tid, pl);",
        )),
        Mutation::ResidentBUnitDropped => Some((
            "const u32 bb = ws_a + (u32)((((warp % UN) * NW + brow) * WROW + bk) * ESZ);",
            "const u32 bb = ws_a + (u32)(((brow) * WROW + bk) * ESZ);",
        )),
        Mutation::SlidePairDropped => Some((
            "halo_col(tap % FX + (q & 1)) * CTS",
            "halo_col(tap % FX) * CTS",
        )),
        Mutation::SlideReuseShifted => Some((
            "if (same_matrix(step_at(i - 1), r, step_at(i), q)) return r;",
            "if (same_matrix(step_at(i - 1), r, step_at(i), q)) return (r + 1) % 4;",
        )),
        Mutation::SlideChunkDeltaDropped => Some((
            "const u32 d2 = (u32)((lm & 1) * 8 * ESZ);",
            "const u32 d2 = 0u;",
        )),
        Mutation::TapPairShifted => Some((
            "mma1688(part[b][j][fx % NA], p[fx], p[fx + 1], bt[fx][j]);",
            "mma1688(part[b][j][fx % NA], p[fx], p[fx], bt[fx][j]);",
        )),
        Mutation::TapLaneMatrixDropped => Some((
            "tap_rows(acc, abase, zoff, (u32)(halo_col(lm) * CTS * ESZ), bbase, bres);",
            "tap_rows(acc, abase, zoff, 0u, bbase, bres);",
        )),
        Mutation::TapGroupOffsetDropped => Some((
            "ldsm_x2(r, base + (u32)((N4 / 2) * CTS * ESZ));",
            "ldsm_x2(r, base);",
        )),
        Mutation::TapSingleOffsetDropped => Some((
            "ldsm_x1(p[N2], base + (u32)((N2 / 2) * CTS * ESZ));",
            "ldsm_x1(p[N2], base);",
        )),
        Mutation::TapPartialDropped => Some((
            "acc[b][j][e] += part[b][j][c][e];",
            "acc[b][j][e] += c == NA - 1 ? 0.0f : part[b][j][c][e];",
        )),
        Mutation::StageBatchSlotDropped => Some((
            "if (i < N) put(i, v[b]);",
            "if (i < N) put(i, v[0]);",
        )),
        Mutation::TapRingSlotDropped => Some((
            "* ESZ) + zoff[fz] + dl;",
            "* ESZ) + dl;",
        )),
        Mutation::DepthPlanPaddingRead => Some((
            "const bool ok = id_ok && ((pl.inside >> k) & 1u);",
            "const bool ok = id_ok;",
        )),
        Mutation::DepthSlotOriginDropped => {
            Some(("      a.zs = od % HALO_BUFS;\n", "      a.zs = 0;\n"))
        }
        Mutation::DirectWgradMmaSliceOffsetDropped => Some((
            "const int gu = u % UMS + (int)blockIdx.z * UMS;  // unit of the group (M slice blockIdx.z)",
            "const int gu = u % UMS;",
        )),
        Mutation::HaloPhaseIgnored => Some((
            "constexpr int TX_SLOTS = SW / XSPLIT;",
            "constexpr int TX_SLOTS = SW;",
        )),
        Mutation::SplitReduceSliceSumDropped => Some((
            "for (int r = 0; r < RS_; ++r) s += slice_sum[r * RE_ + t];",
            "for (int r = 1; r < RS_; ++r) s += slice_sum[r * RE_ + t];",
        )),
        Mutation::DgradTransposeDropped => Some((
            "return ((g * CGW + kk) * TAPS + (TAPS - 1 - tap)) * KGW + c;",
            "return ((g * KGW + c) * TAPS + (TAPS - 1 - tap)) * CGW + kk;",
        )),
        Mutation::DgradVectorTransposeDropped => Some((
            ", WROW, v); });",
            ", 1, v); });",
        )),
        Mutation::DgradMergedColumnRowsDropped => Some((
            "raw) + kv * VW * RW + r, RW,",
            "raw) + kv * RW + r, RW,",
        )),
        _ => None,
    };
    let code = match planted {
        Some((from, to)) if src.code.contains(from) => src.code.replace(from, to),
        Some((from, _)) => return Err(format!("mutation: {from:?} not found in the source")),
        None => src.code.clone(),
    };
    let text = format!("#include \"host_shim.h\"\n{}\n{}", code, host_main(&src, p));
    std::fs::write(&cpp, text).map_err(|e| format!("write {}: {e}", cpp.display()))?;
    let mut cmd = Command::new("g++");
    cmd.args(CXX_FLAGS);
    if asan {
        cmd.arg("-fsanitize=address");
    }
    // The shim's switches change what the header says: those modules parse it themselves.
    let switches: &[&str] = match (job.mutation == Mutation::DropLastBlock, job.eager_copies) {
        (true, true) => &["-DGCONV_SHIM_DROP_LAST_BLOCK", "-DGCONV_SHIM_EAGER_COPIES"],
        (true, false) => &["-DGCONV_SHIM_DROP_LAST_BLOCK"],
        (false, true) => &["-DGCONV_SHIM_EAGER_COPIES"],
        (false, false) => &[],
    };
    cmd.args(switches);
    if switches.is_empty() {
        if let Some(pch) = precompiled_shim(asan) {
            cmd.arg("-I").arg(pch);
        }
    }
    cmd.arg("-I").arg(shim_dir());
    let out = cmd
        .arg("-o")
        .arg(&exe)
        .arg(&cpp)
        .output()
        .map_err(|e| format!("g++: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "g++ failed:\n{}",
            err.lines().take(30).collect::<Vec<_>>().join("\n")
        ));
    }
    let ([r0, r1], _) = p.roles();
    let in0 = HostTensor::random_for(p, r0, 11);
    let in1 = HostTensor::random_for(p, r1, 11);
    let want = reference_tensors(p, &in0, &in1).map_err(|e| format!("reference: {e}"))?;
    let mut in1_emu = in1.clone();
    if job.mutation == Mutation::CorruptWeight {
        let mut w = in1.to_f64();
        let i = w.len() / 2;
        w[i] += 0.75;
        in1_emu = HostTensor::from_f64(p.dtype, &w);
    }
    let f0 = dir.join(format!("{stem}.in0"));
    let f1 = dir.join(format!("{stem}.in1"));
    let fo = dir.join(format!("{stem}.out"));
    for (f, t) in [(&f0, &in0), (&f1, &in1_emu)] {
        std::fs::write(f, t.to_bytes()).map_err(|e| format!("write {}: {e}", f.display()))?;
    }
    let mut outputs = Vec::new();
    for _ in 0..runs {
        let run = Command::new(&exe)
            .arg(&f0)
            .arg(&f1)
            .arg(&fo)
            .output()
            .map_err(|e| format!("run: {e}"))?;
        if !run.status.success() {
            let err = String::from_utf8_lossy(&run.stderr);
            return Err(format!(
                "emulated run failed ({}):\n{}",
                run.status,
                err.lines().take(30).collect::<Vec<_>>().join("\n")
            ));
        }
        outputs.push(std::fs::read(&fo).map_err(|e| format!("read output: {e}"))?);
        let _ = std::fs::remove_file(&fo);
    }
    for f in [&cpp, &exe, &f0, &f1] {
        let _ = std::fs::remove_file(f);
    }
    Ok((outputs, want))
}

/// Runs the jobs on `GCONV_EMU_THREADS` threads (default 2); outcomes in job order, the wall
/// time and the thread count.
fn run_all(jobs: &[Job], dir: &Path, asan: bool) -> (Vec<(usize, Outcome)>, f64, usize) {
    let threads = std::env::var("GCONV_EMU_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(2)
        .max(1);
    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(Vec::new());
    let t0 = std::time::Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let result = run_job(job, dir, asan);
                outcomes.lock().unwrap_or_else(|e| e.into_inner()).push((
                    i,
                    Outcome {
                        label: job.label.clone(),
                        kernel: job.cfg.to_string(),
                        problem: job.problem,
                        mutation: job.mutation,
                        result,
                    },
                ));
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap_or_else(|e| e.into_inner());
    outcomes.sort_by_key(|o| o.0);
    (outcomes, t0.elapsed().as_secs_f64(), threads)
}

/// True (after printing `SKIPPED: ...`) when g++ is missing or the machine is not x86-64 and
/// host emulation is not required; panics when `GCONV_REQUIRE_HOST_CXX=1` and it cannot run.
fn skip_without_cxx(test: &str) -> bool {
    // The shim switches its fibers' stacks with x86-64 code.
    let why = if !cfg!(target_arch = "x86_64") {
        "the host shim runs on x86-64 only"
    } else if !cxx_available() {
        "g++ not found"
    } else {
        return false;
    };
    if std::env::var_os("GCONV_REQUIRE_HOST_CXX").is_some_and(|v| v == "1") {
        panic!("{test}: host emulation required (GCONV_REQUIRE_HOST_CXX=1) but {why}");
    }
    println!("SKIPPED: {test}: {why}");
    true
}

#[test]
fn direct_kernels_match_the_reference_under_host_emulation() {
    if skip_without_cxx("direct_kernels_match_the_reference_under_host_emulation") {
        return;
    }
    let dir = work_dir("direct_kernels_match_the_reference_under_host_emulation");
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let mut jobs = case_jobs(CASES);
    for job in &jobs {
        if job.label.starts_with("persistent_") {
            let (label, cfg, problem) = (&job.label, job.cfg, job.problem);
            // The case must really walk several tiles per CTA (both buffers in turn).
            let g = gconv_kernels::direct::geometry(&cfg, &problem, &DeviceLimits::H200);
            let out = problem.output();
            let tiles = out[2].div_ceil(g.tw) * out[1].div_ceil(g.th) * out[0] * problem.n;
            assert!(
                tiles >= 3 * g.grid[0],
                "{label}: {tiles} tiles on {} CTAs",
                g.grid[0]
            );
        }
    }
    // Mutations, on cases whose clean run is in the matrix.
    for (label, mutation) in [
        ("dw3x3_partial_tiles", Mutation::CorruptWeight),
        ("dw7x7_g144_slices", Mutation::DropLastBlock),
        ("persistent_4_tiles_per_cta_uneven", Mutation::SkipHaloWait),
        (
            "persistent_4_tiles_per_cta_uneven",
            Mutation::HaloBarrierDropped,
        ),
        (
            "persistent_4_tiles_per_cta_uneven",
            Mutation::TileReadBarrierDropped,
        ),
    ] {
        let base = jobs
            .iter()
            .find(|j| j.label == label)
            .map(|j| (j.cfg, j.problem))
            .expect("mutation base case");
        jobs.push(Job {
            label: format!("{label}+{mutation:?}"),
            cfg: base.0,
            problem: base.1,
            mutation,
            eager_copies: mutation == Mutation::TileReadBarrierDropped,
        });
    }
    run_and_assert("host_emulation", &jobs, &dir, asan, (CASES.len(), 5));
}

/// Runs the jobs, prints a line per outcome and a summary, and asserts that no clean case
/// failed, that `expect.0` clean cases passed and that `expect.1` mutations were caught.
fn run_and_assert(name: &str, jobs: &[Job], dir: &Path, asan: bool, expect: (usize, usize)) {
    let (outcomes, secs, threads) = run_all(jobs, dir, asan);
    let t = tally(&outcomes);
    println!(
        "{name}: {} passed, {} failed, {} of {} mutation(s) detected; AddressSanitizer {}; {secs:.1} s on {threads} thread(s)",
        t.passed,
        t.failed,
        t.detected,
        expect.1,
        if asan { "on" } else { "unavailable" },
    );
    assert!(t.errors.is_empty(), "{name}:\n{}", t.errors.join("\n"));
    assert_eq!((t.passed, t.detected), expect);
}

/// Parses (label, kernel, problem) cases into clean jobs; every kernel must implement its problem.
fn case_jobs(cases: &[(&str, &str, &str)]) -> Vec<Job> {
    cases
        .iter()
        .map(|(label, name, key)| {
            let cfg: KernelConfig = name.parse().unwrap_or_else(|e| panic!("{e}"));
            let problem: Problem = key.parse().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                can_implement(&cfg, &problem),
                Ok(()),
                "{label}: {name} on {key}"
            );
            Job {
                label: label.to_string(),
                cfg,
                problem,
                mutation: Mutation::None,
                eager_copies: false,
            }
        })
        .collect()
}

/// Every wgmma case of `jobs` (label `wgmma_…`) again with eager copies (refills land at issue,
/// so a refill racing an in-flight batch changes its operands); deferred copies (the default)
/// catch reads of a stage before its wait_group.
fn eager_twins(jobs: &[Job]) -> Vec<Job> {
    jobs.iter()
        .filter(|j| j.label.starts_with("wgmma_"))
        .map(|j| Job {
            label: format!("{}@eager", j.label),
            cfg: j.cfg,
            problem: j.problem,
            mutation: Mutation::None,
            eager_copies: true,
        })
        .collect()
}

/// The jobs of planted (case label, mutation) pairs on the matrix's own cases.
fn planted_jobs(jobs: &[Job], mutations: &[(&str, Mutation)]) -> Vec<Job> {
    mutations
        .iter()
        .map(|(label, m)| {
            let j = jobs
                .iter()
                .find(|j| j.label == *label)
                .expect("a mutation's case is in the matrix");
            Job {
                label: format!("{label}+{m:?}"),
                cfg: j.cfg,
                problem: j.problem,
                mutation: *m,
                eager_copies: false,
            }
        })
        .collect()
}

/// Determinism: case `label` emulated twice must give the same output bytes.
fn assert_repeats(jobs: &[Job], label: &str, dir: &Path, asan: bool, what: &str) {
    let det = jobs
        .iter()
        .find(|j| j.label == label)
        .expect("determinism case");
    let (outputs, _) = emulate(det, dir, asan, 2).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outputs.len(), 2);
    assert!(outputs[0] == outputs[1], "two runs gave different dW bytes");
    println!(
        "{what} determinism: two runs, {} identical bytes",
        outputs[0].len()
    );
}

/// A case matrix under host emulation: every case (the wgmma ones also with eager copies) must
/// match the reference, and every planted (case label, mutation) must be caught.
fn run_matrix_with_mutations(
    test: &str,
    title: &str,
    cases: &[(&str, &str, &str)],
    mutations: &[(&str, Mutation)],
) {
    if skip_without_cxx(test) {
        return;
    }
    let dir = work_dir(test);
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let mut jobs = case_jobs(cases);
    let eager = eager_twins(&jobs);
    let n_eager = eager.len();
    jobs.extend(eager);
    let planted = planted_jobs(&jobs, mutations);
    jobs.extend(planted);
    run_and_assert(
        title,
        &jobs,
        &dir,
        asan,
        (cases.len() + n_eager, mutations.len()),
    );
}

/// Counts of a matrix run: clean cases passed/failed, mutations caught, and the lines of every
/// failure (a clean case that failed, or a mutation that was not caught by the comparison).
struct Tallied {
    passed: usize,
    failed: usize,
    detected: usize,
    errors: Vec<String>,
}

/// Prints one line per outcome and tallies them.
fn tally(outcomes: &[(usize, Outcome)]) -> Tallied {
    let mut t = Tallied {
        passed: 0,
        failed: 0,
        detected: 0,
        errors: Vec::new(),
    };
    for (_, o) in outcomes {
        let line = match &o.result {
            Ok((ok, abs, rel, bad)) => format!(
                "{:<32} {} {}  max_abs {abs:.2e} max_rel {rel:.2e} ({bad} bad){}",
                o.label,
                o.kernel,
                o.problem,
                if *ok { "" } else { " FAILED" }
            ),
            Err(e) => format!("{:<32} {} {}  ERROR {e}", o.label, o.kernel, o.problem),
        };
        println!("{line}");
        let ok = matches!(o.result, Ok((true, ..)));
        match o.mutation {
            Mutation::None if ok => t.passed += 1,
            Mutation::None => {
                t.failed += 1;
                t.errors.push(line);
            }
            // The early refill must be caught by the shim's in-flight operand check.
            Mutation::WgmmaEarlyRefill if matches!(&o.result, Err(e) if e.contains("changed while its batch was in flight")) => {
                t.detected += 1
            }
            Mutation::WgmmaEarlyRefill => t.errors.push(format!("mutation NOT detected: {line}")),
            // Consumers that do not wait for full multiply a stage while its copies land: the
            // in-flight operand check or the comparison catches it.
            Mutation::WsFullWaitDropped if matches!(&o.result, Err(e) if e.contains("changed while its batch was in flight")) => {
                t.detected += 1
            }
            // A halo block read before its copy group lands (or a shifted read straying into
            // the next block, which lands later): the in-flight operand check or the comparison.
            Mutation::IgemmHaloLateBlock | Mutation::IgemmHaloShift if matches!(&o.result, Err(e) if e.contains("changed while its batch was in flight")) => {
                t.detected += 1
            }
            // A stage whose expected bytes stop short of its B box: the consumers start on it
            // while the box lands (the in-flight operand check), or the box completes more bytes
            // than expected (the shim's transaction count).
            Mutation::TmaExpectTxShort if matches!(&o.result, Err(e) if e.contains("changed while its batch was in flight") || e.contains("more than expected")) => {
                t.detected += 1
            }
            // A mutation must be caught by the comparison (not by a crash of the harness).
            _ if matches!(o.result, Ok((false, ..))) => t.detected += 1,
            _ => t.errors.push(format!("mutation NOT detected: {line}")),
        }
    }
    t
}

/// igemm cases (label, kernel, problem): every flag of the family — bf16/f16 mma.sync, f32
/// CUDA-core math, group merge 4/8/16, the pointwise path, split-K (two launches through the
/// workspace), 1D/3D, stride/padding/dilation, partial M/N tiles, odd channels (2-byte loads),
/// tap packing — on problems small enough to emulate.
const IGEMM_CASES: &[(&str, &str, &str)] = &[
    (
        "dense_bf16",
        "igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g1_c64_k64_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "grouped_f16",
        "igemm_fwd_f16_t128x128x32_w2x2_s4_v8x8_gm1_sk1d_mma_gen",
        "fwd_f16_n1_g4_c128_k128_i7x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stride_pad_dil",
        "igemm_fwd_bf16_t64x64x64_w2x2_s3_v8x8_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g2_c64_k128_i11x13_f3x3_s2x2_p2x2_d2x2",
    ),
    (
        "gm4",
        "igemm_fwd_bf16_t128x32x32_w4x1_s4_v8x8_gm4_sk1d_mma_gen",
        "fwd_bf16_n1_g16_c128_k128_i8x8_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "gm16_depthwise_tap_packing",
        "igemm_fwd_bf16_t128x16x16_w4x1_s4_v8x8_gm16_sk1d_mma_gen",
        "fwd_bf16_n2_g32_c32_k32_i9x10_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "pointwise_f16",
        "igemm_fwd_f16_t128x128x32_w2x2_s4_v8x8_gm1_sk1d_mma_pw",
        "fwd_f16_n2_g4_c256_k256_i5x7_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "rank1",
        "igemm_fwd_bf16_t64x32x32_w2x1_s5_v8x8_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g3_c48_k96_i40_f5_s1_p2_d1",
    ),
    (
        "rank3_f16",
        "igemm_fwd_f16_t64x64x32_w2x2_s4_v8x8_gm1_sk1d_mma_gen",
        "fwd_f16_n1_g2_c64_k64_i4x6x6_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "odd_channels_s2",
        "igemm_fwd_bf16_t32x32x32_w1x1_s2_v8x8_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g1_c7_k9_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "split_k4",
        "igemm_fwd_bf16_t64x64x32_w2x2_s4_v8x8_gm1_sk4d_mma_gen",
        "fwd_bf16_n1_g1_c256_k64_i5x5_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "f32_simt",
        "igemm_fwd_f32_t128x128x16_w4x2_s3_v4x4_gm1_sk1d_simt_gen",
        "fwd_f32_n2_g1_c64_k64_i7x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "f32_simt_gm8",
        "igemm_fwd_f32_t128x32x32_w4x1_s3_v4x4_gm8_sk1d_simt_gen",
        "fwd_f32_n2_g16_c64_k64_i6x6_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "f32_pointwise",
        "igemm_fwd_f32_t64x64x32_w2x2_s5_v4x4_gm1_sk1d_simt_pw",
        "fwd_f32_n2_g1_c96_k80_i9x9_f1x1_s1x1_p0x0_d1x1",
    ),
    // Warpgroup MMA: descriptors over the 128-byte swizzled tiles, 1, 2 and 3 warpgroups, 1 and
    // 2 m64 blocks per warpgroup, N = 64/128/256 with partial tiles, tap packing, the 2-byte
    // register-staged loads, the pointwise path and split-K.
    (
        "wgmma_dense_2wg",
        "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_gen",
        "fwd_bf16_n2_g1_c128_k128_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_1wg_two_m64_f16_packed_taps",
        "igemm_fwd_f16_t128x128x64_w4x1_s4_v8x8_gm1_sk1d_wgmma_gen",
        "fwd_f16_n1_g2_c64_k256_i8x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_n256_partial",
        "igemm_fwd_bf16_t128x256x64_w8x1_s3_v8x8_gm1_sk1d_wgmma_gen",
        "fwd_bf16_n1_g1_c64_k192_i7x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_stride_pad_dil",
        "igemm_fwd_bf16_t64x128x64_w4x1_s5_v8x8_gm1_sk1d_wgmma_gen",
        "fwd_bf16_n2_g2_c128_k128_i11x13_f3x3_s2x2_p2x2_d2x2",
    ),
    (
        "wgmma_pointwise",
        "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_pw",
        "fwd_bf16_n2_g4_c256_k256_i5x7_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "wgmma_odd_channels",
        "igemm_fwd_bf16_t128x64x64_w8x1_s5_v8x8_gm1_sk1d_wgmma_gen",
        "fwd_bf16_n2_g1_c7_k9_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "wgmma_3wg_192_rows",
        "igemm_fwd_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_gen",
        "fwd_bf16_n2_g2_c256_k256_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_split_k4",
        "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk4d_wgmma_gen",
        "fwd_bf16_n1_g1_c256_k64_i5x5_f3x3_s1x1_p1x1_d1x1",
    ),
    // The warp-specialised schedule (producer warpgroups, barrier-tracked stages): 1, 2 and 3
    // consumer warpgroups, 3 and 5 stages, partial tiles, odd channels (2-byte
    // register-staged loads through the producer), split-K with a short slice.
    (
        "wgmma_ws_dense_2wg",
        "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmaws_gen",
        "fwd_bf16_n2_g1_c128_k128_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_ws_1wg_s3_f16",
        "igemm_fwd_f16_t64x128x64_w4x1_s3_v8x8_gm1_sk1d_wgmmaws_gen",
        "fwd_f16_n1_g2_c64_k256_i8x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "wgmma_ws_3wg_s5",
        "igemm_fwd_bf16_t192x128x64_w12x1_s5_v8x8_gm1_sk1d_wgmmaws_gen",
        "fwd_bf16_n2_g2_c256_k256_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_ws_odd_channels",
        "igemm_fwd_bf16_t128x64x64_w8x1_s4_v8x8_gm1_sk1d_wgmmaws_gen",
        "fwd_bf16_n2_g1_c7_k9_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "wgmma_ws_split_k3",
        "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk3d_wgmmaws_gen",
        "fwd_bf16_n1_g1_c256_k64_i5x5_f3x3_s1x1_p1x1_d1x1",
    ),
    // The halo path in forward (X's halo, taps unflipped): padded rows past the last image,
    // two channel blocks with dilation and padding wider than the reach, no padding (the
    // output smaller than X), f16 1D, K/G below tile_n.
    (
        "wgmma_halo_fwd_3wg_tail",
        "igemm_fwd_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_halo",
        "fwd_bf16_n2_g2_c128_k96_i9x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_halo_fwd_two_blocks_dil_pad",
        "igemm_fwd_bf16_t128x64x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_halo",
        "fwd_bf16_n1_g1_c128_k64_i10x13_f3x3_s1x1_p3x3_d2x2",
    ),
    (
        "wgmma_halo_fwd_valid",
        "igemm_fwd_bf16_t64x64x64_w4x1_s5_v8x8_gm1_sk1d_wgmma_halo",
        "fwd_bf16_n2_g1_c64_k64_i8x9_f3x3_s1x1_p0x0_d1x1",
    ),
    (
        "wgmma_halo_fwd_rank1_f16",
        "igemm_fwd_f16_t64x128x64_w4x1_s3_v8x8_gm1_sk1d_wgmma_halo",
        "fwd_f16_n3_g2_c128_k16_i50_f5_s1_p1_d1",
    ),
    // Group merge with a tail (G not a multiple of gm: the last block's missing groups read as
    // zeros, stored nowhere): C/G 8 merged by four over 7 groups (two blocks); C/G 8 merged by
    // two over 5 groups with two taps packed in a k-tile; f32 CUDA cores, C/G 4 by eight over
    // 15 groups at stride 2; wgmma (cp.async), C/G 32 by two over 3 groups.
    (
        "fwd_gm4_tail_cpg8",
        "igemm_fwd_bf16_t128x32x32_w4x1_s4_v8x8_gm4_sk1d_mma_gen",
        "fwd_bf16_n2_g7_c56_k56_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "fwd_gm2_tail_packed_taps",
        "igemm_fwd_bf16_t128x32x32_w4x1_s4_v8x8_gm2_sk1d_mma_gen",
        "fwd_bf16_n2_g5_c40_k40_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "fwd_f32_gm8_tail_s2",
        "igemm_fwd_f32_t128x32x32_w4x1_s3_v4x4_gm8_sk1d_simt_gen",
        "fwd_f32_n2_g15_c60_k60_i10x10_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "wgmma_fwd_gm2_tail",
        "igemm_fwd_bf16_t256x64x64_w8x1_s4_v8x8_gm2_sk1d_wgmma_gen",
        "fwd_bf16_n2_g3_c96_k96_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
];

/// The igemm family's CUDA C++ (mma.sync, ldmatrix, cp.async pipelines, swizzled shared memory,
/// split-K reduction) on the CPU through the shim's warp-collective emulation, against the f64
/// reference; plus a planted corrupted weight that must be caught.
#[test]
fn igemm_kernels_match_the_reference_under_host_emulation() {
    if skip_without_cxx("igemm_kernels_match_the_reference_under_host_emulation") {
        return;
    }
    let dir = work_dir("igemm_kernels_match_the_reference_under_host_emulation");
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let mut jobs = case_jobs(IGEMM_CASES);
    let base = jobs[0].cfg;
    let base_p = jobs[0].problem;
    jobs.push(Job {
        label: "dense_bf16+CorruptWeight".to_string(),
        cfg: base,
        problem: base_p,
        mutation: Mutation::CorruptWeight,
        eager_copies: false,
    });
    let eager = eager_twins(&jobs);
    let n_eager = eager.len();
    jobs.extend(eager);
    let wg = jobs
        .iter()
        .find(|j| j.label == "wgmma_dense_2wg")
        .map(|j| (j.cfg, j.problem))
        .expect("wgmma case");
    jobs.push(Job {
        label: "wgmma_dense_2wg+CorruptWeight".to_string(),
        cfg: wg.0,
        problem: wg.1,
        mutation: Mutation::CorruptWeight,
        eager_copies: false,
    });
    jobs.push(Job {
        label: "wgmma_dense_2wg+WgmmaEarlyRefill".to_string(),
        cfg: wg.0,
        problem: wg.1,
        mutation: Mutation::WgmmaEarlyRefill,
        eager_copies: true,
    });
    let ws = planted_jobs(
        &jobs,
        &[
            ("wgmma_ws_dense_2wg", Mutation::WsFullWaitDropped),
            (
                "wgmma_halo_fwd_two_blocks_dil_pad",
                Mutation::IgemmHaloShift,
            ),
            ("wgmma_halo_fwd_3wg_tail", Mutation::IgemmHaloPadding),
            (
                "wgmma_halo_fwd_two_blocks_dil_pad",
                Mutation::IgemmHaloLateBlock,
            ),
            ("fwd_gm4_tail_cpg8", Mutation::IgemmTailChannelsShort),
            ("fwd_gm2_tail_packed_taps", Mutation::IgemmTailChannelsShort),
            ("fwd_f32_gm8_tail_s2", Mutation::IgemmTailRowsShort),
            ("wgmma_fwd_gm2_tail", Mutation::IgemmTailRowsShort),
        ],
    );
    jobs.extend(ws);
    jobs.push(Job {
        label: "dense_bf16+ShortPipelineWait".to_string(),
        cfg: base,
        problem: base_p,
        mutation: Mutation::ShortPipelineWait,
        eager_copies: false,
    });
    run_and_assert(
        "igemm host_emulation",
        &jobs,
        &dir,
        asan,
        (IGEMM_CASES.len() + n_eager, 12),
    );
}

/// The TMA-fed wgmma kernels (`math = wgmmatma`, pointwise): (label, kernel, problem).
/// Forward: pixel tails (the last M tile past the image), C/G of five k-tiles with a
/// three-stage ring (the producer waits for stages to be released), a partial last k-tile (C/G
/// 72) and K/G below tile_n (boxes past the tensor filled with zeros), three groups, tap-packed
/// C/G 8 in f16, three warpgroups with five stages; backward data and weight below.
const IGEMM_TMA_CASES: &[(&str, &str, &str)] = &[
    (
        "tma_dense_five_ktiles_s3",
        "igemm_fwd_bf16_t128x128x64_w8x1_s3_v8x8_gm1_sk1d_wgmmatma_pw",
        "fwd_bf16_n2_g1_c320_k128_i9x9_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "tma_grouped_cg72_kg32",
        "igemm_fwd_bf16_t128x64x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_pw",
        "fwd_bf16_n1_g3_c216_k96_i7x9_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "tma_cg8_f16",
        "igemm_fwd_f16_t64x128x64_w4x1_s3_v8x8_gm1_sk1d_wgmmatma_pw",
        "fwd_f16_n2_g4_c32_k512_i5x6_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "tma_3wg_s5",
        "igemm_fwd_bf16_t192x128x64_w12x1_s5_v8x8_gm1_sk1d_wgmmatma_pw",
        "fwd_bf16_n1_g2_c256_k256_i10x10_f1x1_s1x1_p0x0_d1x1",
    ),
    // Forward general (im2col copies, 2D and 1D): 3×3 with a tile across two images and K/G
    // below tile_n; stride 2 with dilation 2 over two channel blocks; an asymmetric 5×3 filter
    // without W padding (a negative upper corner) in f16; 1D.
    (
        "tma_im2col_3x3_two_images",
        "igemm_fwd_bf16_t128x128x64_w8x1_s3_v8x8_gm1_sk1d_wgmmatma_gen",
        "fwd_bf16_n2_g2_c128_k192_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "tma_im2col_s2_d2",
        "igemm_fwd_bf16_t64x64x64_w4x1_s4_v8x8_gm1_sk1d_wgmmatma_gen",
        "fwd_bf16_n2_g1_c128_k64_i13x12_f3x3_s2x2_p2x2_d2x2",
    ),
    (
        "tma_im2col_5x3_f16",
        "igemm_fwd_f16_t128x64x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_gen",
        "fwd_f16_n1_g1_c64_k64_i10x14_f5x3_s1x1_p2x0_d1x1",
    ),
    (
        "tma_im2col_1d",
        "igemm_fwd_bf16_t64x64x64_w4x1_s3_v8x8_gm1_sk1d_wgmmatma_gen",
        "fwd_bf16_n3_g2_c128_k64_i50_f5_s1_p2_d1",
    ),
    // Backward data: the N-major weight tile in 64-channel panels (C/G 96: the second panel
    // half past the tensor), K/G 160 over three k-tiles, pixel tails; f16 with three
    // warpgroups and eight k-tiles through four stages.
    (
        "tma_dgrad_panels_tails",
        "igemm_dgrad_bf16_t128x128x64_w8x1_s3_v8x8_gm1_sk1d_wgmmatma_pw",
        "dgrad_bf16_n2_g2_c192_k320_i9x9_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "tma_dgrad_f16_3wg",
        "igemm_dgrad_f16_t192x64x64_w12x1_s4_v8x8_gm1_sk1d_wgmmatma_pw",
        "dgrad_f16_n1_g1_c64_k512_i10x10_f1x1_s1x1_p0x0_d1x1",
    ),
    // Backward data on the general path (stride 1, im2col copies of dY with the flipped taps):
    // 3×3 across two images with C/G 96 (the second weight panel past the tensor); dilation 2
    // with paddings unlike the filter's reach; an asymmetric 5×3 filter in f16.
    (
        "tma_dgrad_im2col_3x3",
        "igemm_dgrad_bf16_t128x128x64_w8x1_s3_v8x8_gm1_sk1d_wgmmatma_gen",
        "dgrad_bf16_n2_g2_c192_k128_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "tma_dgrad_im2col_dil_pad",
        "igemm_dgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm1_sk1d_wgmmatma_gen",
        "dgrad_bf16_n1_g1_c64_k128_i10x13_f3x3_s1x1_p3x2_d2x2",
    ),
    (
        "tma_dgrad_im2col_5x3_f16",
        "igemm_dgrad_f16_t128x64x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_gen",
        "dgrad_f16_n2_g1_c64_k64_i8x9_f5x3_s1x1_p2x1_d1x1",
    ),
    // Backward weight: both MN-major tiles in panels (K/G 160 over two M tiles, C/G 96), the
    // pixels split three ways; the rule's degree; five k-tiles in four splits of two (the
    // last split empty: it writes a zero plane).
    (
        "tma_wgrad_split3_tails",
        "igemm_wgrad_bf16_t128x128x64_w8x1_s3_v8x8_gm1_sk3d_wgmmatma_pw",
        "wgrad_bf16_n2_g2_c192_k320_i9x9_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "tma_wgrad_rule_degree",
        "igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm1_sk0d_wgmmatma_pw",
        "wgrad_bf16_n4_g1_c64_k64_i12x12_f1x1_s1x1_p0x0_d1x1",
    ),
    // Backward weight on the general path (im2col copies of X, one per 64-channel panel of a
    // tap): 3×3 with the last N tile's second panel past the last tap and K/G 96 below the
    // tile, split three ways; stride 2 with dilation 2, C/G 128 (two panels per tap), the rule's
    // degree; 1D in f16 split in two.
    (
        "tma_wgrad_im2col_3x3_split",
        "igemm_wgrad_bf16_t128x128x64_w8x1_s3_v8x8_gm1_sk3d_wgmmatma_gen",
        "wgrad_bf16_n2_g2_c128_k192_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "tma_wgrad_im2col_s2_d2",
        "igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm1_sk0d_wgmmatma_gen",
        "wgrad_bf16_n2_g1_c128_k64_i13x12_f3x3_s2x2_p2x2_d2x2",
    ),
    (
        "tma_wgrad_im2col_1d_f16",
        "igemm_wgrad_f16_t64x128x64_w4x1_s3_v8x8_gm1_sk2d_wgmmatma_gen",
        "wgrad_f16_n3_g2_c128_k64_i50_f5_s1_p2_d1",
    ),
    (
        "tma_wgrad_empty_splits_f16",
        "igemm_wgrad_f16_t64x128x64_w4x1_s3_v8x8_gm1_sk4d_wgmmatma_pw",
        "wgrad_f16_n2_g3_c24_k48_i12x12_f1x1_s1x1_p0x0_d1x1",
    ),
    // Two pool members as the pools hold them: backward data on three warpgroups (180 dX
    // pixels in a 192-row tile, C/G 64 in a 128-wide tile: the second weight panel past the
    // tensor), and backward weight with a 256-wide N tile (576 = 64 channels × 9 taps in three
    // N tiles, the last one a quarter full; K/G 96 in a 128-row tile) at the rule's degree.
    (
        "tma_dgrad_pool_3wg",
        "igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmmatma_gen",
        "dgrad_bf16_n2_g2_c64_k128_i9x10_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "tma_wgrad_pool_n256",
        "igemm_wgrad_bf16_t128x256x64_w8x1_s4_v8x8_gm1_sk0d_wgmmatma_gen",
        "wgrad_bf16_n2_g1_c64_k96_i8x9_f3x3_s1x1_p1x1_d1x1",
    ),
    // Backward weight with group merge (a merged block's adjacent groups in one 64-channel
    // box of each tensor, every group pair computed, the diagonal stored): C/G 32 merged by two
    // on the general path at the rule's degree (four groups: two blocks); C/G 16 merged by four
    // on the pointwise path split in two (eight groups); f16, K/G 24 (a merged block of 48
    // rows in a 64-row tile) at stride 2, split in two.
    (
        "tma_wgrad_gm2_cg32_im2col",
        "igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm2_sk0d_wgmmatma_gen",
        "wgrad_bf16_n2_g4_c128_k128_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "tma_wgrad_gm4_cg16_pw_split",
        "igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm4_sk2d_wgmmatma_pw",
        "wgrad_bf16_n2_g8_c128_k128_i8x8_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "tma_wgrad_gm2_f16_kg24_s2",
        "igemm_wgrad_f16_t64x128x64_w4x1_s3_v8x8_gm2_sk2d_wgmmatma_gen",
        "wgrad_f16_n2_g4_c128_k96_i17x19_f3x3_s2x2_p1x1_d1x1",
    ),
    // Group merge with a tail (G not a multiple of GM: the maps [K, 1, pixels] and [C, 1,
    // pixels], the last block's missing groups past the tensors): C/G 32 merged by two over
    // three groups on the general path at the rule's degree; C/G 16 merged by four over nine
    // groups on the pointwise path split in two; f16 C/G 8 merged by eight over seven groups
    // (one block, one group missing) at stride 2 without split.
    (
        "tma_wgrad_gm2_tail_im2col",
        "igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm2_sk0d_wgmmatma_gen",
        "wgrad_bf16_n2_g3_c96_k96_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "tma_wgrad_gm4_tail_pw_split",
        "igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm4_sk2d_wgmmatma_pw",
        "wgrad_bf16_n2_g9_c144_k144_i8x8_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "tma_wgrad_gm8_tail_f16_s2",
        "igemm_wgrad_f16_t64x64x64_w4x1_s4_v8x8_gm8_sk1d_wgmmatma_gen",
        "wgrad_f16_n2_g7_c56_k56_i11x9_f3x3_s2x2_p1x1_d1x1",
    ),
];

/// The TMA-fed wgmma kernels under host emulation (the shim performs each box copy from a host
/// tensor map built from the launch's `tensor_maps`, with the 128-byte swizzle, and makes the
/// producer's arrival once the expected bytes have landed) against the f64 reference; their
/// tensor maps are ones the hardware can encode; planted faults: the weight box's group
/// coordinate dropped, the k-tile offset dropped, the expected bytes short by the B box, and
/// the backward-weight ones of the table (merge offsets, the diagonal mask, a tail block's
/// first channel).
#[test]
fn igemm_tma_kernels_match_the_reference_under_host_emulation() {
    let name = "igemm_tma_kernels_match_the_reference_under_host_emulation";
    if skip_without_cxx(name) {
        return;
    }
    let dir = work_dir(name);
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let mut jobs = case_jobs(IGEMM_TMA_CASES);
    for job in &jobs {
        let a = admit(&job.cfg, &job.problem, &Target::H200).expect("admitted");
        let src = a.emit();
        let maps = &src.launches[0].tensor_maps;
        assert_eq!(maps.len(), 2, "{}: A and B maps", job.label);
        for t in maps {
            assert_eq!(t.problem(), None, "{}", job.label);
        }
        assert!(src.code.contains("UTMA") || src.code.contains("cp.async.bulk.tensor"));
    }
    let planted = planted_jobs(
        &jobs,
        &[
            ("tma_grouped_cg72_kg32", Mutation::TmaGroupDropped),
            ("tma_3wg_s5", Mutation::TmaGroupDropped),
            ("tma_dense_five_ktiles_s3", Mutation::TmaKtileDropped),
            ("tma_grouped_cg72_kg32", Mutation::TmaKtileDropped),
            ("tma_cg8_f16", Mutation::TmaExpectTxShort),
            ("tma_dgrad_panels_tails", Mutation::TmaDgradKtileDropped),
            ("tma_wgrad_split3_tails", Mutation::TmaPanelDropped),
            ("tma_im2col_5x3_f16", Mutation::TmaIm2colOffsetsSwapped),
            ("tma_im2col_3x3_two_images", Mutation::TmaIm2colPadDropped),
            ("tma_im2col_s2_d2", Mutation::TmaIm2colPadDropped),
            ("tma_dgrad_im2col_3x3", Mutation::TmaDgradIm2colFlipDropped),
            (
                "tma_dgrad_im2col_5x3_f16",
                Mutation::TmaDgradIm2colFlipDropped,
            ),
            (
                "tma_wgrad_im2col_3x3_split",
                Mutation::TmaWgradTapOffsetsDropped,
            ),
            (
                "tma_wgrad_im2col_1d_f16",
                Mutation::TmaWgradTapOffsetsDropped,
            ),
            (
                "tma_wgrad_gm2_cg32_im2col",
                Mutation::TmaWgradMergeOffsetUnmerged,
            ),
            (
                "tma_wgrad_gm2_f16_kg24_s2",
                Mutation::TmaWgradMergeOffsetUnmerged,
            ),
            (
                "tma_wgrad_gm2_cg32_im2col",
                Mutation::IgemmWgradDiagonalDropped,
            ),
            (
                "tma_wgrad_gm4_cg16_pw_split",
                Mutation::IgemmWgradDiagonalDropped,
            ),
            (
                "tma_wgrad_gm2_tail_im2col",
                Mutation::TmaWgradTailOffsetDropped,
            ),
            (
                "tma_wgrad_gm4_tail_pw_split",
                Mutation::TmaWgradTailOffsetDropped,
            ),
            (
                "tma_wgrad_gm4_tail_pw_split",
                Mutation::IgemmWgradDiagonalDropped,
            ),
        ],
    );
    jobs.extend(planted);
    run_and_assert(
        "igemm TMA host_emulation",
        &jobs,
        &dir,
        asan,
        (IGEMM_TMA_CASES.len(), 21),
    );
}

/// igemm backward-data cases (label, kernel, problem): stride 1 (one phase, the flipped and
/// transposed filter), stride 2 and 3 phases with uneven phase sizes (tails), stride with
/// dilation (gcd(stride, dilation) > 1: phases without taps) and 1×1 stride 2 (zero phases),
/// dX extents smaller than the stride (empty phases), padding beyond dil·(F−1), C/G ≠ K/G,
/// group merge (C/G 8, depthwise with tap packing, a channel multiplier, C/G 32 on the N-major
/// weight tile), the pointwise path,
/// odd channels (2-byte loads, scalar weight blocks), f32 CUDA cores, wgmma, 1D and 3D; both
/// weight tiles: N-major (8-aligned C/G and K/G, tile_n a multiple of 64, read transposed by
/// ldmatrix.trans or wgmma imm-trans-b) and K-major from transposed blocks (4×4, 8×8 with
/// tile_n 32, 1×1).
const IGEMM_DGRAD_CASES: &[(&str, &str, &str)] = &[
    (
        "dgrad_dense_s1",
        "igemm_dgrad_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g1_c64_k64_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_grouped_f16_c_ne_k",
        "igemm_dgrad_f16_t128x128x32_w2x2_s4_v8x4_gm1_sk1d_mma_gen",
        "dgrad_f16_n1_g4_c64_k128_i7x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_s2_tails",
        "igemm_dgrad_bf16_t64x64x64_w2x2_s3_v8x8_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g2_c64_k128_i11x13_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_s2_dil2_tapless_phases",
        "igemm_dgrad_bf16_t64x64x32_w2x2_s4_v8x4_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g2_c32_k32_i13x15_f3x3_s2x2_p2x2_d2x2",
    ),
    (
        "dgrad_rank1_s3_d2_f5",
        "igemm_dgrad_bf16_t64x32x32_w2x1_s5_v8x4_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g3_c48_k96_i40_f5_s3_p2_d2",
    ),
    (
        "dgrad_1x1_s2_zero_phases",
        "igemm_dgrad_bf16_t64x64x32_w2x2_s4_v8x4_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g2_c64_k64_i9x11_f1x1_s2x2_p0x0_d1x1",
    ),
    (
        "dgrad_pointwise_f16",
        "igemm_dgrad_f16_t128x128x32_w2x2_s4_v8x8_gm1_sk1d_mma_pw",
        "dgrad_f16_n2_g4_c256_k128_i5x7_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "dgrad_gm4_cpg8",
        "igemm_dgrad_bf16_t128x32x32_w4x1_s4_v8x8_gm4_sk1d_mma_gen",
        "dgrad_bf16_n1_g16_c128_k128_i8x8_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_gm2_nmajor_s2",
        "igemm_dgrad_bf16_t128x64x64_w2x2_s3_v8x8_gm2_sk1d_mma_gen",
        "dgrad_bf16_n1_g4_c128_k128_i9x11_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_gm16_depthwise_tap_packing",
        "igemm_dgrad_bf16_t128x16x16_w4x1_s4_v8x4_gm16_sk1d_mma_gen",
        "dgrad_bf16_n2_g32_c32_k32_i9x10_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_gm8_chan_mult_s2",
        "igemm_dgrad_bf16_t128x16x16_w4x1_s4_v8x4_gm8_sk1d_mma_gen",
        "dgrad_bf16_n1_g16_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_rank3_f16_s2",
        "igemm_dgrad_f16_t64x64x32_w2x2_s4_v8x4_gm1_sk1d_mma_gen",
        "dgrad_f16_n1_g2_c64_k64_i5x6x6_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
    ),
    (
        "dgrad_f32_simt_s2",
        "igemm_dgrad_f32_t128x128x16_w4x2_s3_v4x4_gm1_sk1d_simt_gen",
        "dgrad_f32_n2_g2_c24_k40_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_odd_channels",
        "igemm_dgrad_bf16_t64x32x32_w2x1_s5_v8x4_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g3_c9_k15_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_large_pad",
        "igemm_dgrad_bf16_t64x64x32_w2x2_s4_v8x4_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g2_c32_k32_i6x6_f3x3_s1x1_p3x3_d1x1",
    ),
    (
        "dgrad_extent_below_stride",
        "igemm_dgrad_bf16_t64x64x32_w2x2_s4_v8x4_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g2_c32_k32_i1x3_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "wgmma_dgrad_3wg_s1",
        "igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_gen",
        "dgrad_bf16_n1_g2_c256_k256_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_dgrad_s2",
        "igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_gen",
        "dgrad_bf16_n1_g2_c128_k128_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "wgmma_ws_dgrad_s1",
        "igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmaws_gen",
        "dgrad_bf16_n1_g2_c256_k256_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_ws_dgrad_s2_k_major",
        "igemm_dgrad_bf16_t128x64x64_w8x1_s4_v8x4_gm1_sk1d_wgmmaws_gen",
        "dgrad_bf16_n1_g2_c128_k128_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    // The halo path: one staged dY halo per 64-channel block, every tap read at its row shift;
    // padded rows past the last image (a tile crossing it), C/G below tile_n, two channel
    // blocks with dilation and padding below the filter's reach, 1D in f16, a 1×1 filter (no
    // shift), and 5×5 with 3 warpgroups over several images.
    (
        "wgmma_dgrad_halo_3wg_tail",
        "igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_halo",
        "dgrad_bf16_n2_g2_c64_k128_i9x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_dgrad_halo_two_blocks_dil",
        "igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_halo",
        "dgrad_bf16_n1_g1_c128_k128_i10x13_f3x3_s1x1_p2x2_d2x2",
    ),
    (
        "wgmma_dgrad_halo_rank1_f16",
        "igemm_dgrad_f16_t64x64x64_w4x1_s3_v8x8_gm1_sk1d_wgmma_halo",
        "dgrad_f16_n3_g2_c16_k128_i50_f5_s1_p1_d1",
    ),
    (
        "wgmma_dgrad_halo_1x1",
        "igemm_dgrad_bf16_t64x128x64_w4x1_s3_v8x8_gm1_sk1d_wgmma_halo",
        "dgrad_bf16_n2_g1_c64_k64_i5x6_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "wgmma_dgrad_halo_5x5_images",
        "igemm_dgrad_bf16_t192x64x64_w12x1_s5_v8x8_gm1_sk1d_wgmma_halo",
        "dgrad_bf16_n3_g1_c64_k64_i6x8_f5x5_s1x1_p2x2_d1x1",
    ),
    // Group merge with a tail: C/G 16 merged by four over 9 groups at stride 2 (the N-major
    // weight tile, three blocks); depthwise merged by sixteen over 40 groups (runs of 8 groups);
    // C/G 8 by two over 5 groups at stride 2 with two taps packed in a k-tile; wgmma (cp.async),
    // C/G 32 by two over 3 groups at stride 2.
    (
        "dgrad_gm4_tail_nmajor_s2",
        "igemm_dgrad_bf16_t128x64x64_w2x2_s3_v8x8_gm4_sk1d_mma_gen",
        "dgrad_bf16_n2_g9_c144_k144_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_gm16_tail_depthwise",
        "igemm_dgrad_bf16_t128x16x16_w4x1_s4_v8x4_gm16_sk1d_mma_gen",
        "dgrad_bf16_n2_g40_c40_k40_i10x10_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_gm2_tail_packed_taps_s2",
        "igemm_dgrad_bf16_t128x32x32_w4x1_s4_v8x8_gm2_sk1d_mma_gen",
        "dgrad_bf16_n2_g5_c40_k40_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "wgmma_dgrad_gm2_tail_s2",
        "igemm_dgrad_bf16_t256x64x64_w8x1_s4_v8x8_gm2_sk1d_wgmma_gen",
        "dgrad_bf16_n2_g3_c96_k96_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
];

/// The igemm family's backward-data kernels under host emulation against the f64 reference,
/// with planted mutations (a phase offset off by one, the flip dropped, a merged block off the
/// diagonal, a corrupted weight) that must be caught.
#[test]
fn igemm_dgrad_kernels_match_the_reference_under_host_emulation() {
    run_matrix_with_mutations(
        "igemm_dgrad_kernels_match_the_reference_under_host_emulation",
        "igemm dgrad host_emulation",
        IGEMM_DGRAD_CASES,
        &[
            ("dgrad_s2_tails", Mutation::IgemmDgradPhaseOffset),
            ("dgrad_dense_s1", Mutation::IgemmDgradFlipDropped),
            ("dgrad_rank1_s3_d2_f5", Mutation::IgemmDgradFlipDropped),
            ("dgrad_gm4_cpg8", Mutation::IgemmDgradOffDiagonal),
            ("dgrad_gm2_nmajor_s2", Mutation::IgemmDgradNmajorOffDiagonal),
            ("dgrad_s2_tails", Mutation::CorruptWeight),
            ("wgmma_dgrad_halo_two_blocks_dil", Mutation::IgemmHaloShift),
            ("wgmma_dgrad_halo_3wg_tail", Mutation::IgemmHaloPadding),
            (
                "wgmma_dgrad_halo_two_blocks_dil",
                Mutation::IgemmHaloLateBlock,
            ),
            ("dgrad_gm4_tail_nmajor_s2", Mutation::IgemmTailChannelsShort),
            ("dgrad_gm4_tail_nmajor_s2", Mutation::IgemmTailRowsShort),
            ("dgrad_gm16_tail_depthwise", Mutation::IgemmTailRowsShort),
            (
                "dgrad_gm16_tail_depthwise",
                Mutation::IgemmTailChannelsShort,
            ),
            (
                "dgrad_gm2_tail_packed_taps_s2",
                Mutation::IgemmTailChannelsShort,
            ),
            ("wgmma_dgrad_gm2_tail_s2", Mutation::IgemmTailRowsShort),
        ],
    );
}

/// igemm backward-weight cases (label, kernel, problem): split-K left to the rule (`sk0`) and
/// fixed with a short and an empty last slice, the atomic option, group merge (depthwise with
/// tap packing along N, C/G 3 and 24, on wgmma), stride/padding/dilation with tails, padding
/// wider than the filter reach, stride > filter, odd channels (2-byte register-staged loads on
/// both operands), the pointwise path, 1D and 3D, f16, f32 CUDA cores, wgmma (M-major A and
/// N-major B descriptors).
const IGEMM_WGRAD_CASES: &[(&str, &str, &str)] = &[
    (
        "wgrad_dense_rule_split",
        "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g1_c64_k64_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_split4_empty_last_slice",
        "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm1_sk4d_mma_gen",
        "wgrad_bf16_n2_g1_c64_k64_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_split3_short_slice_tails",
        "igemm_wgrad_bf16_t32x64x32_w1x2_s4_v8x8_gm1_sk3d_mma_gen",
        "wgrad_bf16_n2_g2_c32_k64_i13x15_f3x3_s2x2_p2x2_d2x2",
    ),
    (
        "wgrad_atomic",
        "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm1_sk4a_mma_gen",
        "wgrad_bf16_n2_g2_c64_k64_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_gm2_cpg24",
        "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm2_sk0d_mma_gen",
        "wgrad_bf16_n2_g6_c144_k144_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_gm8_depthwise_packed_taps",
        "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm8_sk0d_mma_gen",
        "wgrad_bf16_n2_g16_c16_k16_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_gm4_odd_cpg3_multiplier",
        "igemm_wgrad_bf16_t32x64x32_w1x2_s4_v8x8_gm4_sk2d_mma_gen",
        "wgrad_bf16_n2_g8_c24_k48_i7x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_odd_channels_2byte",
        "igemm_wgrad_bf16_t32x64x32_w1x2_s4_v8x8_gm1_sk0d_mma_gen",
        "wgrad_bf16_n1_g1_c5_k7_i6x7_f3x3_s1x1_p3x3_d1x1",
    ),
    (
        "wgrad_stride_gt_filter",
        "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g2_c32_k32_i9x11_f1x1_s2x2_p0x0_d1x1",
    ),
    (
        "wgrad_7x7_cpg8",
        "igemm_wgrad_bf16_t64x128x32_w2x2_s4_v8x8_gm1_sk0d_mma_gen",
        "wgrad_bf16_n1_g4_c32_k32_i14x14_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "wgrad_pointwise",
        "igemm_wgrad_bf16_t64x128x32_w2x2_s4_v8x8_gm1_sk0d_mma_pw",
        "wgrad_bf16_n2_g4_c128_k128_i7x7_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "wgrad_rank1",
        "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g4_c64_k64_i70_f5_s1_p2_d1",
    ),
    (
        "wgrad_rank3_f16",
        "igemm_wgrad_f16_t64x64x32_w2x2_s4_v8x8_gm1_sk0d_mma_gen",
        "wgrad_f16_n1_g8_c64_k64_i4x6x6_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "wgrad_f32_simt_strided_odd",
        "igemm_wgrad_f32_t64x64x16_w2x2_s4_v4x4_gm1_sk0d_simt_gen",
        "wgrad_f32_n2_g3_c9_k6_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "wgrad_f32_simt_gm4",
        "igemm_wgrad_f32_t64x64x16_w2x2_s4_v4x4_gm4_sk0d_simt_gen",
        "wgrad_f32_n2_g8_c32_k32_i8x8_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_wgrad_m64",
        "igemm_wgrad_bf16_t64x128x64_w4x1_s4_v8x8_gm1_sk0d_wgmma_gen",
        "wgrad_bf16_n2_g2_c128_k128_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_wgrad_m128_split2",
        "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk2d_wgmma_gen",
        "wgrad_bf16_n2_g1_c128_k128_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_wgrad_gm2_cpg32",
        "igemm_wgrad_bf16_t64x128x64_w4x1_s4_v8x8_gm2_sk0d_wgmma_gen",
        "wgrad_bf16_n1_g4_c128_k128_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_ws_wgrad_m128_split2",
        "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk2d_wgmmaws_gen",
        "wgrad_bf16_n2_g1_c128_k128_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_ws_wgrad_gm2_cpg32",
        "igemm_wgrad_bf16_t64x128x64_w4x1_s3_v8x8_gm2_sk0d_wgmmaws_gen",
        "wgrad_bf16_n1_g4_c128_k128_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    // Group merge with a tail: C/G 16 merged by four over 9 groups at stride 2, the rule's
    // split; f32 CUDA cores, C/G 4 merged by two over 5 groups, split in two.
    (
        "wgrad_gm4_tail_rule_split",
        "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm4_sk0d_mma_gen",
        "wgrad_bf16_n2_g9_c144_k144_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "wgrad_f32_gm2_tail",
        "igemm_wgrad_f32_t64x64x16_w2x2_s4_v4x4_gm2_sk2d_simt_gen",
        "wgrad_f32_n2_g5_c20_k20_i8x8_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgmma_ws_wgrad_gm2_tail",
        "igemm_wgrad_bf16_t64x128x64_w4x1_s3_v8x8_gm2_sk0d_wgmmaws_gen",
        "wgrad_bf16_n1_g3_c96_k96_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
];

/// The igemm backward-weight kernels under host emulation (every dW element compared; the
/// output starts NaN-poisoned, so an element no CTA stores fails), the wgmma cases also with
/// eager copies, and planted mutations that must be caught: the block-diagonal mask dropped,
/// the merged bounds reverted to the true dims, a partial plane skipped by the reduction, a
/// corrupted dY.
#[test]
fn igemm_wgrad_kernels_match_the_reference_under_host_emulation() {
    run_matrix_with_mutations(
        "igemm_wgrad_kernels_match_the_reference_under_host_emulation",
        "igemm wgrad host_emulation",
        IGEMM_WGRAD_CASES,
        &[
            ("wgrad_gm2_cpg24", Mutation::IgemmWgradDiagonalDropped),
            (
                "wgrad_gm8_depthwise_packed_taps",
                Mutation::IgemmWgradDiagonalDropped,
            ),
            (
                "wgrad_gm4_odd_cpg3_multiplier",
                Mutation::IgemmWgradMergedBoundsTrue,
            ),
            (
                "wgmma_wgrad_gm2_cpg32",
                Mutation::IgemmWgradMergedBoundsTrue,
            ),
            (
                "wgrad_split3_short_slice_tails",
                Mutation::SplitReduceSliceSkipped,
            ),
            ("wgrad_dense_rule_split", Mutation::SplitReduceSliceSkipped),
            ("wgrad_f32_simt_strided_odd", Mutation::CorruptWeight),
            ("wgmma_wgrad_m64", Mutation::CorruptWeight),
            (
                "wgrad_gm4_tail_rule_split",
                Mutation::IgemmWgradTailChannelsShort,
            ),
            ("wgrad_f32_gm2_tail", Mutation::IgemmWgradTailChannelsShort),
            (
                "wgrad_gm4_tail_rule_split",
                Mutation::IgemmWgradDiagonalDropped,
            ),
            (
                "wgmma_ws_wgrad_gm2_tail",
                Mutation::IgemmWgradTailChannelsShort,
            ),
        ],
    );
}

/// igemm backward-weight with the cluster split (`sk{P}c`: the P slices of a tile one
/// thread-block cluster, adjacent in x, summing their staged f32 tiles through distributed
/// shared memory): mma with M and N tails and an empty last slice (stride, padding, dilation),
/// warp-specialised wgmma over two M tiles, plain wgmma with merged groups, f32 CUDA cores with
/// merged groups, f16 3D at the portable cluster's 8 slices.
const IGEMM_WGRAD_CLUSTER_CASES: &[(&str, &str, &str)] = &[
    (
        "cluster_mma_p3_tails_empty_slice",
        "igemm_wgrad_bf16_t32x64x32_w1x2_s4_v8x8_gm1_sk3c_mma_gen",
        "wgrad_bf16_n2_g2_c40_k72_i13x15_f3x3_s2x2_p2x2_d2x2",
    ),
    (
        "cluster_wgmmaws_p4_two_mtiles",
        "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk4c_wgmmaws_gen",
        "wgrad_bf16_n2_g1_c32_k256_i16x16_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "cluster_wgmma_gm2_p2",
        "igemm_wgrad_bf16_t64x128x64_w4x1_s4_v8x8_gm2_sk2c_wgmma_gen",
        "wgrad_bf16_n1_g4_c128_k128_i12x12_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "cluster_simt_f32_gm4_p2",
        "igemm_wgrad_f32_t64x64x16_w2x2_s4_v4x4_gm4_sk2c_simt_gen",
        "wgrad_f32_n2_g8_c32_k32_i8x8_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "cluster_mma_f16_p8_3d",
        "igemm_wgrad_f16_t64x64x32_w2x2_s4_v8x8_gm1_sk8c_mma_gen",
        "wgrad_f16_n1_g8_c64_k64_i4x8x8_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    // ... and with a merge tail: f32, C/G 4 merged by four over 10 groups (three blocks).
    (
        "cluster_simt_f32_gm4_tail",
        "igemm_wgrad_f32_t64x64x16_w2x2_s4_v4x4_gm4_sk2c_simt_gen",
        "wgrad_f32_n2_g10_c40_k40_i8x8_f3x3_s1x1_p1x1_d1x1",
    ),
];

/// The igemm cluster split under host emulation (the shim runs a cluster's CTAs at once):
/// every dW element against the f64 reference (NaN-poisoned output), the wgmma cases also with
/// eager copies; structure (one launch, no workspace, `__cluster_dims__(P, 1, 1)`, P slices
/// adjacent in x, the grid of the two-launch twin `sk{P}d` otherwise); two runs give the same
/// bytes; planted faults: a rank skipped in the sum, each rank reading its own
/// tile, every rank taking rank 0's chunks, the last cluster dropped.
#[test]
fn igemm_wgrad_cluster_kernels_match_the_reference_under_host_emulation() {
    let name = "igemm_wgrad_cluster_kernels_match_the_reference_under_host_emulation";
    if skip_without_cxx(name) {
        return;
    }
    let dir = work_dir(name);
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let jobs = case_jobs(IGEMM_WGRAD_CLUSTER_CASES);
    for job in &jobs {
        let a = admit(&job.cfg, &job.problem, &Target::H200).expect("admitted");
        let p = job.cfg.split_k;
        let twin = KernelConfig {
            split_k_mode: SplitKMode::Deterministic,
            ..job.cfg
        };
        let d = admit(&twin, &job.problem, &Target::H200).expect("the d twin is admitted");
        let src = a.emit();
        assert_eq!(src.launches.len(), 1, "{}: one launch", job.label);
        assert_eq!(
            src.launches[0].cluster, p,
            "{}: a launch of clusters",
            job.label
        );
        assert_eq!(src.workspace_bytes, 0, "{}: no workspace", job.label);
        assert!(
            src.code.contains(&format!("__cluster_dims__({p}, 1, 1)")),
            "{}: a cluster of the slices",
            job.label
        );
        let (gc, gd) = (a.grid(), d.grid());
        assert_eq!(
            gc,
            [gd[0] * p as u64, gd[1], gd[2] / p as u64],
            "{}: the slices move from z to x",
            job.label
        );
    }
    assert_repeats(
        &jobs,
        "cluster_wgmmaws_p4_two_mtiles",
        &dir,
        asan,
        "igemm wgrad cluster",
    );
    drop(jobs);
    run_matrix_with_mutations(
        name,
        "igemm wgrad cluster host_emulation",
        IGEMM_WGRAD_CLUSTER_CASES,
        &[
            // (the valid rows of this case span more chunks than one rank's first pass)
            (
                "cluster_mma_p3_tails_empty_slice",
                Mutation::IgemmClusterChunksUnranked,
            ),
            ("cluster_simt_f32_gm4_p2", Mutation::IgemmClusterRankSkipped),
            ("cluster_mma_f16_p8_3d", Mutation::IgemmClusterRankSkipped),
            (
                "cluster_wgmmaws_p4_two_mtiles",
                Mutation::IgemmClusterOwnSmem,
            ),
            ("cluster_wgmma_gm2_p2", Mutation::DropLastBlock),
            (
                "cluster_simt_f32_gm4_tail",
                Mutation::IgemmWgradTailChannelsShort,
            ),
        ],
    );
}

/// Tensor-core direct cases (label, kernel, problem): C/G 8/16/24/32/56, channel multiplier,
/// odd and even k8-chunk counts (a half last k16 step), NW with an odd number of n8 blocks
/// (`ldmatrix.x2` for B), padded m16 blocks past the tile, channel tails inside a CTA, stride/
/// padding/dilation, 1D/3D, f16, a persistent CTA walking 4 tiles, B fragments resident for
/// a tile (`mma::b_resident`, two n8 blocks), A fragments sliding along the filter row
/// (`mma::a_slide`: units of 8 channels at C/G 8, 16, 32 and merged groups, even tile widths;
/// wider units, C/G 24 and 56 and odd widths keep the x4 loads); and group merge (depthwise, C/G 2 and 4, channel multiplier
/// on tensor cores through block-diagonal merged groups).
const MMA_CASES: &[(&str, &str, &str)] = &[
    (
        "mma_cg16_slide_nw8",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v8x4_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g4_c64_k64_i10x18_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_cg32_slide_5x5_persistent",
        "direct_fwd_f16_t112x32x16_w8x1_s2_v8x2_gm1_sk1d_mma_gen",
        "fwd_f16_n1_g2_c64_k64_i12x20_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "mma_cg8_two_channel_blocks",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g16_c128_k128_i10x18_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_cg16_f16_padded_blocks",
        "direct_fwd_f16_t196x64x14_w8x1_s1_v16x2_gm1_sk1d_mma_gen",
        "fwd_f16_n2_g8_c128_k128_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_cg32_7x7",
        "direct_fwd_bf16_t49x64x7_w4x1_s1_v32x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g4_c128_k128_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_cg24_x2_b_fragments",
        "direct_fwd_bf16_t196x48x14_w8x1_s1_v32x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g4_c96_k96_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_cg56",
        "direct_fwd_bf16_t196x56x14_w8x1_s1_v64x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g2_c112_k112_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_chan_mult",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v16x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g4_c32_k64_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_stride_pad_dil_tail",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g4_c32_k32_i13x15_f3x3_s2x2_p2x2_d2x2",
    ),
    // Stride-phase halo columns (direct/shape.rs `halo_split`): stride 2 with tap columns in
    // both phases and a row tail (7 output columns of a 16-wide tile); stride 3 with dilation
    // 2 (tap columns 0, 2, 4 in phases 0, 2, 1) on a persistent CTA.
    (
        "mma_s2_phases",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v16x4_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g4_c64_k64_i10x14_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "mma_s3_d2_phases_persistent",
        "direct_fwd_bf16_t112x32x16_w8x1_s2_v8x4_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g4_c32_k32_i22x40_f3x3_s3x3_p2x2_d2x2",
    ),
    (
        "mma_rank1",
        "direct_fwd_bf16_t64x64x64_w4x1_s1_v16x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g4_c64_k64_i70_f5_s1_p2_d1",
    ),
    (
        "mma_rank3_f16",
        "direct_fwd_f16_t128x64x16_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "fwd_f16_n1_g8_c64_k64_i4x6x6_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    // 3D C/G 8 (fwd_mma.cu's tap_rows, one m16n8k8 per tap): a filter row's FX + 1 matrices
    // in ldmatrix groups of four, two and one — 5 columns (x4 + x2), 7 (x4 + x4), 4 (x4 + x1)
    // and 2 (x2 + x1), with tails, padding on one side only and f16.
    (
        "mma_cg8_3d_taps_5",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g16_c128_k128_i3x6x12_f2x3x5_s1x1x1_p1x1x2_d1x1x1",
    ),
    (
        "mma_cg8_3d_taps_7_f16",
        "direct_fwd_f16_t128x64x16_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "fwd_f16_n1_g8_c64_k64_i2x5x11_f2x3x7_s1x1x1_p1x1x3_d1x1x1",
    ),
    (
        "mma_cg8_3d_taps_4",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g8_c64_k64_i3x5x10_f2x2x4_s1x1x1_p0x1x2_d1x1x1",
    ),
    (
        "mma_cg8_3d_taps_2",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g8_c64_k64_i3x4x9_f3x1x2_s1x1x1_p1x0x1_d1x1x1",
    ),
    (
        "mma_5x5_multi_unit",
        "direct_fwd_bf16_t224x64x28_w8x1_s1_v32x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g2_c32_k64_i12x30_f5x5_s1x1_p2x2_d1x1",
    ),
    // Group merge (block-diagonal merged groups): depthwise gm 8 and 16, stride 2, 5x5, C/G 2
    // and 4, a channel multiplier, f16, 3D, and a persistent CTA.
    (
        "mma_gm8_depthwise",
        "direct_fwd_bf16_t224x64x28_w8x1_s1_v8x2_gm8_sk1d_mma_gen",
        "fwd_bf16_n2_g96_c96_k96_i9x30_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_gm16_depthwise_s2_tail",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v16x2_gm16_sk1d_mma_gen",
        "fwd_bf16_n1_g80_c80_k80_i15x21_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "mma_gm8_depthwise_5x5_f16",
        "direct_fwd_f16_t196x64x14_w8x1_s1_v8x2_gm8_sk1d_mma_gen",
        "fwd_f16_n1_g64_c64_k64_i14x14_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "mma_gm2_cpg4",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v8x2_gm2_sk1d_mma_gen",
        "fwd_bf16_n2_g16_c64_k64_i10x18_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_gm4_cpg2_dil",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v8x2_gm4_sk1d_mma_gen",
        "fwd_bf16_n1_g16_c32_k32_i12x12_f3x3_s1x1_p2x2_d2x2",
    ),
    (
        "mma_gm8_chan_mult",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v16x2_gm8_sk1d_mma_gen",
        "fwd_bf16_n1_g16_c16_k32_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_gm8_rank3",
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v8x2_gm8_sk1d_mma_gen",
        "fwd_bf16_n1_g32_c32_k32_i4x6x6_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        // 83 KB of shared memory: two CTAs per SM, 264 CTAs for 800 tiles.
        "persistent_mma_gm8_depthwise",
        "direct_fwd_bf16_t16x256x4_w1x1_s2_v8x1_gm8_sk1d_mma_gen",
        "fwd_bf16_n2_g256_c256_k256_i80x80_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        // 127 KB of shared memory: one CTA per SM, 132 CTAs for 400 tiles.
        "persistent_mma_4_tiles_per_cta",
        "direct_fwd_bf16_t16x64x4_w1x1_s2_v64x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g1_c96_k64_i80x80_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_resident_b_nb2",
        "direct_fwd_bf16_t224x64x28_w8x1_s1_v16x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g4_c64_k64_i9x30_f3x3_s1x1_p1x1_d1x1",
    ),
];

/// Depth-streaming tensor-core cases (`stages = 3`: a column of tiles walked over every output
/// slice, a ring of FZ + 1 staged input slices): C/G 8 with tiles partial in H and W, a 5-deep
/// filter over fewer output slices than taps, no depth padding with K/G 16, stride 2 in H and W
/// (the de-interleaved halo), merged C/G 4 groups, one output slice (an input of one slice),
/// backward data on its dual (f16; merged C/G 4 groups), the pool's 3D tile shape, and the
/// zoo's 3D C/G 8 backward-data member with resident B fragments (`mma::b_resident`).
const DEPTH_STREAM_CASES: &[(&str, &str, &str)] = &[
    (
        "stream_fwd_cg8_tails",
        "direct_fwd_bf16_t112x32x16_w8x1_s3_v8x4_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g4_c32_k32_i5x9x18_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "stream_fwd_f5_fewer_slices",
        "direct_fwd_bf16_t112x32x16_w8x1_s3_v8x4_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g4_c32_k32_i3x6x8_f5x3x3_s1x1x1_p2x1x1_d1x1x1",
    ),
    (
        "stream_fwd_pd0_kg16",
        "direct_fwd_bf16_t112x32x16_w8x1_s3_v16x4_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g2_c16_k32_i5x6x8_f3x3x3_s1x1x1_p0x1x1_d1x1x1",
    ),
    (
        "stream_fwd_s2_hw",
        "direct_fwd_bf16_t64x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g4_c32_k32_i4x10x10_f3x3x3_s1x2x2_p1x1x1_d1x1x1",
    ),
    (
        "stream_fwd_gm2_cpg4",
        "direct_fwd_bf16_t112x32x16_w8x1_s3_v8x4_gm2_sk1d_mma_gen",
        "fwd_bf16_n1_g8_c32_k32_i4x7x9_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "stream_dgrad_f16",
        "direct_dgrad_f16_t112x32x16_w8x1_s3_v8x4_gm1_sk1d_mma_gen",
        "dgrad_f16_n1_g4_c32_k32_i4x7x9_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "stream_fwd_one_slice",
        "direct_fwd_bf16_t112x32x16_w8x1_s3_v8x4_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g4_c32_k32_i1x7x9_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "stream_dgrad_gm2_cpg4",
        "direct_dgrad_bf16_t112x32x16_w8x1_s3_v8x4_gm2_sk1d_mma_gen",
        "dgrad_bf16_n1_g8_c32_k32_i4x7x9_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "stream_fwd_pool_tile",
        "direct_fwd_bf16_t112x64x28_w8x1_s3_v8x4_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g8_c64_k64_i4x9x30_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "stream_dgrad_cg8_resident_b",
        "direct_dgrad_bf16_t224x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g4_c32_k32_i3x9x17_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
];

/// The depth-streaming tensor-core kernels under host emulation against the f64 reference
/// (every output element compared; the output starts NaN-poisoned), with planted faults that
/// must be caught: the new slice staged one slot off, the slot origin dropped, the resident B
/// unit dropped, a padding read, and the per-tap walk's ring slot dropped.
#[test]
fn direct_depth_stream_kernels_match_the_reference_under_host_emulation() {
    run_matrix_with_mutations(
        "direct_depth_stream_kernels_match_the_reference_under_host_emulation",
        "direct depth-stream host_emulation",
        DEPTH_STREAM_CASES,
        &[
            ("stream_fwd_cg8_tails", Mutation::DepthRingSlotShifted),
            ("stream_dgrad_f16", Mutation::DepthSlotOriginDropped),
            (
                "stream_fwd_f5_fewer_slices",
                Mutation::DepthSlotOriginDropped,
            ),
            (
                "stream_dgrad_cg8_resident_b",
                Mutation::ResidentBUnitDropped,
            ),
            ("stream_fwd_cg8_tails", Mutation::DepthPlanPaddingRead),
            ("stream_fwd_cg8_tails", Mutation::TapRingSlotDropped),
        ],
    );
}

/// The tensor-core direct path under the shim's ldmatrix/mma emulation (shared-memory row
/// addresses checked for alignment and bounds), against the f64 reference; plus a planted
/// corrupted weight that must be caught.
#[test]
fn direct_mma_kernels_match_the_reference_under_host_emulation() {
    if skip_without_cxx("direct_mma_kernels_match_the_reference_under_host_emulation") {
        return;
    }
    let dir = work_dir("direct_mma_kernels_match_the_reference_under_host_emulation");
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let mut jobs = case_jobs(MMA_CASES);
    for job in &jobs {
        if job.label.starts_with("persistent_") {
            let g = gconv_kernels::direct::geometry(&job.cfg, &job.problem, &DeviceLimits::H200);
            let out = job.problem.output();
            let tiles = out[2].div_ceil(g.tw) * out[1].div_ceil(g.th) * out[0] * job.problem.n;
            assert!(
                tiles >= 3 * g.grid[0],
                "{}: {tiles} tiles on {} CTAs",
                job.label,
                g.grid[0]
            );
        }
    }
    let (cfg, problem) = jobs
        .iter()
        .find(|j| j.label == "mma_cg8_two_channel_blocks")
        .map(|j| (j.cfg, j.problem))
        .expect("the C/G 8 case");
    jobs.push(Job {
        label: "mma_cg8+CorruptWeight".to_string(),
        cfg,
        problem,
        mutation: Mutation::CorruptWeight,
        eager_copies: false,
    });
    let gm = jobs
        .iter()
        .find(|j| j.label == "mma_gm8_depthwise")
        .map(|j| (j.cfg, j.problem))
        .expect("group-merge case");
    for mutation in [Mutation::CorruptWeight, Mutation::MergeFullRows] {
        jobs.push(Job {
            label: format!("mma_gm8_depthwise+{mutation:?}"),
            cfg: gm.0,
            problem: gm.1,
            mutation,
            eager_copies: false,
        });
    }
    let planted = planted_jobs(
        &jobs,
        &[
            ("mma_s2_phases", Mutation::HaloPhaseIgnored),
            // The merge expansion's 32-bit path (C/G 4: channel pairs), beside the 16-bit
            // path's case above (depthwise, gm 8).
            ("mma_gm2_cpg4", Mutation::MergeFullRows),
            ("mma_cg8_two_channel_blocks", Mutation::SlidePairDropped),
            ("mma_cg8_two_channel_blocks", Mutation::SlideReuseShifted),
            ("mma_cg16_slide_nw8", Mutation::SlideReuseShifted),
            ("mma_rank3_f16", Mutation::TapLaneMatrixDropped),
            ("mma_cg8_3d_taps_5", Mutation::TapPairShifted),
            ("mma_cg8_3d_taps_5", Mutation::TapGroupOffsetDropped),
            ("mma_cg8_3d_taps_4", Mutation::TapSingleOffsetDropped),
            ("mma_cg8_3d_taps_7_f16", Mutation::TapPartialDropped),
            (
                "mma_cg32_slide_5x5_persistent",
                Mutation::SlideChunkDeltaDropped,
            ),
        ],
    );
    jobs.extend(planted);
    run_and_assert(
        "direct mma host_emulation",
        &jobs,
        &dir,
        asan,
        (MMA_CASES.len(), 14),
    );
}

/// Backward-data cases (label, kernel, problem): the forward kernel on the stride-1 dual
/// (`Problem::dgrad_dual`) with the flip and channel transpose in the weight staging. CUDA
/// cores: depthwise 3×3/5×5/7×7 with odd sizes and partial tiles, the filter in registers and
/// fy-outer, an asymmetric 7×1 filter, channel multipliers (a dual with C/G 2 or 4, K/G 1),
/// C/G 2/3/4 with G = 3/5/6, C/G ≠ K/G both ways (the grouped vector path), dilation 2/3,
/// padding from 0 (the dual pads by dil·(F−1)) to dil·(F−1) (the dual pads by 0), 1D, 3D,
/// N = 1, a persistent CTA walking several tiles, f32/f16/bf16; tensor cores: C/G 8/16 with
/// C/G ≠ K/G, group merge on depthwise, C/G 2/4 and C/G 8 with K/G 2 layers, 3D f16.
const DGRAD_CASES: &[(&str, &str, &str)] = &[
    (
        "dgrad_dw3x3_odd_tails",
        "direct_dgrad_bf16_t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n2_g40_c40_k40_i13x19_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_dw7x7_fy_outer",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v4x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g64_c64_k64_i13x21_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "dgrad_dw7x7_tile7x7_regs",
        "direct_dgrad_bf16_t49x64x7_w7x1_s1_v2x7_gm1_sk1d_simt_gen",
        "dgrad_bf16_n2_g64_c64_k64_i9x11_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "dgrad_dw5x5_f16_n1",
        "direct_dgrad_f16_t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_f16_n1_g24_c24_k24_i11x15_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "dgrad_dw7x1_asym",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g16_c16_k16_i9x8_f7x1_s1x1_p3x0_d1x1",
    ),
    (
        "dgrad_chan_mult2",
        "direct_dgrad_bf16_t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g16_c16_k32_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_chan_mult4_odd_f16",
        "direct_dgrad_f16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_f16_n2_g6_c6_k24_i7x8_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_cpg2_g6",
        "direct_dgrad_bf16_t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g6_c12_k12_i8x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_cpg3_g5_f32",
        // C/G 3 is the dual's K/G: a 48-channel tile (16 whole groups), off the pool.
        "direct_dgrad_f32_t128x48x16_w6x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_f32_n1_g5_c15_k15_i7x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_cpg4_g3_group_vector",
        "direct_dgrad_bf16_t196x32x14_w7x1_s1_v4x7_gm1_sk1d_simt_gen",
        "dgrad_bf16_n2_g3_c12_k12_i9x10_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_cpg2_kpg4_scalar",
        "direct_dgrad_bf16_t196x32x14_w7x1_s1_v4x7_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g6_c12_k24_i10x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_cpg4_kpg2_group_vector_f32",
        "direct_dgrad_f32_t128x32x16_w4x1_s1_v4x4_gm1_sk1d_simt_gen",
        "dgrad_f32_n1_g3_c12_k6_i9x7_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "dgrad_dw3x3_dil2",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g16_c16_k16_i12x12_f3x3_s1x1_p2x2_d2x2",
    ),
    (
        "dgrad_dw3x3_dil3_f32",
        "direct_dgrad_f32_t196x32x14_w7x1_s1_v2x7_gm1_sk1d_simt_gen",
        "dgrad_f32_n1_g36_c36_k36_i13x15_f3x3_s1x1_p3x3_d3x3",
    ),
    (
        "dgrad_pad0_dual_pads_2",
        "direct_dgrad_bf16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g8_c8_k8_i7x9_f3x3_s1x1_p0x0_d1x1",
    ),
    (
        "dgrad_pad_max_dual_pads_0",
        "direct_dgrad_bf16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g8_c8_k8_i5x5_f3x3_s1x1_p2x2_d1x1",
    ),
    (
        "dgrad_dw_1d",
        "direct_dgrad_bf16_t64x64x64_w8x1_s1_v2x8_gm1_sk1d_simt_gen",
        "dgrad_bf16_n2_g32_c32_k32_i100_f5_s1_p2_d1",
    ),
    (
        "dgrad_dw_1d_dil2_f16",
        "direct_dgrad_f16_t64x64x64_w8x1_s1_v2x8_gm1_sk1d_simt_gen",
        "dgrad_f16_n1_g16_c16_k16_i70_f3_s1_p1_d2",
    ),
    (
        "dgrad_dw_3d",
        "direct_dgrad_bf16_t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g16_c16_k16_i5x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "dgrad_3d_cpg4_kpg3_f32",
        "direct_dgrad_f32_t128x32x16_w4x1_s1_v4x4_gm1_sk1d_simt_gen",
        "dgrad_f32_n1_g4_c16_k12_i4x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "dgrad_3d_asym_f32",
        "direct_dgrad_f32_t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_f32_n1_g8_c8_k8_i4x5x6_f3x1x3_s1x1x1_p1x0x1_d1x1x1",
    ),
    (
        "dgrad_persistent_tiles",
        "direct_dgrad_bf16_t2x64x2_w1x1_s2_v2x2_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g160_c160_k160_i47x49_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_mma_cg8",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g16_c128_k128_i10x18_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_mma_cpg16_kpg8",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v16x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g4_c64_k32_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_mma_rank3_f16",
        "direct_dgrad_f16_t128x64x16_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "dgrad_f16_n1_g8_c64_k64_i4x6x6_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "dgrad_mma_gm8_depthwise",
        "direct_dgrad_bf16_t224x64x28_w8x1_s1_v8x2_gm8_sk1d_mma_gen",
        "dgrad_bf16_n2_g96_c96_k96_i9x30_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_mma_gm2_cpg4",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v8x2_gm2_sk1d_mma_gen",
        "dgrad_bf16_n2_g16_c64_k64_i10x18_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "dgrad_mma_gm4_cpg2_kpg4",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v8x2_gm4_sk1d_mma_gen",
        "dgrad_bf16_n1_g16_c32_k64_i12x12_f3x3_s1x1_p2x2_d2x2",
    ),
    // C/G 8 with K/G 2 merged by four: the dual's K/G 8, so the merged gather's 16-byte column
    // reads (copy_column<8>).
    (
        "dgrad_mma_gm4_cpg8_kpg2",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v8x2_gm4_sk1d_mma_gen",
        "dgrad_bf16_n1_g8_c64_k16_i10x12_f3x3_s1x1_p1x1_d1x1",
    ),
    // Stride phases (no dual; direct/strided.rs): depthwise s2 3x3 with odd sizes and partial
    // cell tiles, the target shapes (scaled: 28² C 96, 14² C 576), 5x5 f16, stride 3 > filter
    // (phases no tap reaches write zeros), dilation 2, mixed strides, stride 1 with a padding
    // above dil·(F−1), channel multiplier, C/G 2/3 with K/G 4/2 (G 3, 5), 1D, 3D (all depth
    // phases of a cell in one CTA), persistent CTAs, f32/f16/bf16.
    (
        "dgrad_s2_dw3x3_odd",
        "direct_dgrad_bf16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n2_g40_c40_k40_i15x17_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_s2_dw3x3_28x28_c96",
        "direct_dgrad_bf16_t196x32x14_w7x1_s1_v2x7_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g96_c96_k96_i28x28_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_s2_dw3x3_14x14_c576",
        "direct_dgrad_bf16_t49x64x7_w7x1_s1_v2x7_gm1_sk1d_simt_gen",
        "dgrad_bf16_n2_g576_c576_k576_i14x14_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        // auto's pick on the 112² target layer (16x16 cells, 4 cell rows per thread).
        "dgrad_s2_dw3x3_py4_c96",
        "direct_dgrad_bf16_t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g96_c96_k96_i40x38_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        // auto's pick on the 14² target layer (8 channels per thread, 16-byte reads).
        "dgrad_s2_dw3x3_vec8_c576",
        "direct_dgrad_bf16_t128x32x16_w8x1_s1_v8x2_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g576_c576_k576_i14x14_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_s2_dw5x5_f16",
        "direct_dgrad_f16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_f16_n1_g24_c24_k24_i19x21_f5x5_s2x2_p2x2_d1x1",
    ),
    (
        "dgrad_s3_gt_filter",
        "direct_dgrad_bf16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g16_c16_k16_i12x11_f2x2_s3x3_p0x0_d1x1",
    ),
    (
        "dgrad_s2_dil2",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g16_c16_k16_i13x13_f3x3_s2x2_p2x2_d2x2",
    ),
    (
        "dgrad_s1x2_mixed",
        "direct_dgrad_bf16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g16_c16_k16_i9x14_f3x3_s1x2_p1x1_d1x1",
    ),
    (
        "dgrad_s1_pad_above_reach",
        "direct_dgrad_bf16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g8_c8_k8_i5x5_f3x3_s1x1_p3x3_d1x1",
    ),
    (
        "dgrad_s2_chan_mult2",
        "direct_dgrad_bf16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g16_c16_k32_i11x11_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_s2_cpg2_kpg4_g3_f32",
        "direct_dgrad_f32_t128x32x16_w4x1_s1_v4x4_gm1_sk1d_simt_gen",
        "dgrad_f32_n1_g3_c6_k12_i9x10_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_s2_cpg3_kpg2_g5_f32",
        "direct_dgrad_f32_t128x48x16_w6x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_f32_n1_g5_c15_k10_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_s2_1d",
        "direct_dgrad_bf16_t64x64x64_w8x1_s1_v2x8_gm1_sk1d_simt_gen",
        "dgrad_bf16_n2_g32_c32_k32_i99_f5_s2_p2_d1",
    ),
    (
        "dgrad_s2_1d_dil2_f16",
        "direct_dgrad_f16_t64x64x64_w8x1_s1_v2x8_gm1_sk1d_simt_gen",
        "dgrad_f16_n1_g16_c16_k16_i70_f3_s2_p2_d2",
    ),
    (
        "dgrad_s2_3d",
        "direct_dgrad_bf16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g16_c16_k16_i7x8x9_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
    ),
    (
        "dgrad_s122_3d_f32",
        "direct_dgrad_f32_t128x32x16_w4x1_s1_v4x4_gm1_sk1d_simt_gen",
        "dgrad_f32_n1_g8_c8_k8_i4x7x7_f3x3x3_s1x2x2_p1x1x1_d1x1x1",
    ),
    (
        "dgrad_s2_persistent_tiles",
        "direct_dgrad_bf16_t2x64x2_w1x1_s2_v2x2_gm1_sk1d_simt_gen",
        "dgrad_bf16_n1_g160_c160_k160_i95x97_f3x3_s2x2_p1x1_d1x1",
    ),
    // Stride phases on tensor cores (direct/strided.rs, `dgrad_phases_mma.cu`): the real
    // client's C/G 16 stride-2 layers (scaled, odd dX sizes: partial cell tiles and phases cut
    // at the edge), C/G 8 with K/G 16 in f16 (one n8 block per unit), 1×1 stride 2 (phases no
    // tap reaches store zeros), stride 2 with dilation 2 (gcd 2: one phase holds every tap),
    // 5×5 (phases of 9, 6, 6, 4 taps: an odd k8 count leaves half a k16 step), mixed strides,
    // stride 1 with a padding above dil·(F−1), 3D stride 2 (eight phases), a persistent CTA.
    (
        "dgrad_s2_mma_cpg16",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v16x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g4_c64_k64_i15x17_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_s2_mma_cpg8_kpg16_f16",
        "direct_dgrad_f16_t128x64x16_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "dgrad_f16_n1_g4_c32_k64_i13x12_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_1x1_s2_mma_zero_phases",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v16x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g2_c32_k32_i9x10_f1x1_s2x2_p0x0_d1x1",
    ),
    (
        "dgrad_s2_d2_mma",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g2_c32_k32_i13x13_f3x3_s2x2_p2x2_d2x2",
    ),
    (
        "dgrad_s2_5x5_mma_half_steps",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g2_c16_k16_i11x12_f5x5_s2x2_p2x2_d1x1",
    ),
    (
        "dgrad_s1x2_mma_mixed",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v16x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g2_c32_k32_i9x14_f3x3_s1x2_p1x1_d1x1",
    ),
    (
        "dgrad_s1_pad_above_reach_mma",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v16x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g2_c32_k32_i6x5_f3x3_s1x1_p3x3_d1x1",
    ),
    (
        "dgrad_s2_3d_mma",
        "direct_dgrad_bf16_t128x64x16_w8x1_s1_v16x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g2_c32_k32_i5x7x6_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
    ),
    (
        "dgrad_s2_mma_persistent",
        "direct_dgrad_bf16_t112x64x28_w8x1_s2_v8x4_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g2_c32_k32_i29x60_f3x3_s2x2_p1x1_d1x1",
    ),
    // The backward-data pool's narrow persistent members (`direct::pool::phase_mma_pool`):
    // 16 dX channels per CTA (one C/G 16 group per channel block, a 7-wide cell tile with
    // a partial m16 block), 32 per CTA over C/G 8 groups (four groups of one unit each) with
    // 8-cell-wide tiles, and 32 per CTA over two C/G 16 groups with 16-cell-wide tiles.
    (
        "dgrad_s2_mma_narrow_g16",
        "direct_dgrad_bf16_t49x16x7_w4x1_s2_v16x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g3_c48_k48_i15x13_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_s2_mma_narrow_cpg8",
        "direct_dgrad_bf16_t64x32x8_w8x1_s2_v16x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g8_c64_k64_i21x19_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "dgrad_s2_mma_narrow_two_groups",
        "direct_dgrad_bf16_t112x32x16_w8x1_s2_v16x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g4_c64_k64_i18x35_f3x3_s2x2_p1x1_d1x1",
    ),
];

/// Backward data under host emulation (both math paths, and the stride-phase kernel), against
/// the f64 dgrad reference; plus planted faults that must be caught: the spatial flip dropped
/// (simt depthwise, simt 7×1, mma, mma group merge), the channel transposition dropped (simt
/// C/G ≠ K/G, mma, mma group merge), the stride-phase tap rule shifted by one phase (2D, 1D),
/// the stride-phase weight transposition dropped (C/G 2 K/G 4, channel multiplier) and
/// corrupted weights (dual and stride-phase kernels).
#[test]
fn direct_dgrad_kernels_match_the_reference_under_host_emulation() {
    if skip_without_cxx("direct_dgrad_kernels_match_the_reference_under_host_emulation") {
        return;
    }
    let dir = work_dir("direct_dgrad_kernels_match_the_reference_under_host_emulation");
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let mut jobs = case_jobs(DGRAD_CASES);
    for job in &jobs {
        assert_eq!(job.problem.direction, Direction::Dgrad, "{}", job.label);
        if job.label.ends_with("persistent_tiles") {
            // The dual's tiles (or the stride-phase cells' tiles): several per CTA, both buffers
            // in turn.
            let g = gconv_kernels::direct::geometry(&job.cfg, &job.problem, &DeviceLimits::H200);
            let out = gconv_kernels::direct::strided::Phases::of(&job.problem).cells;
            let tiles = out[2].div_ceil(g.tw) * out[1].div_ceil(g.th) * out[0] * job.problem.n;
            assert!(
                tiles >= 3 * g.grid[0],
                "{tiles} tiles on {} CTAs",
                g.grid[0]
            );
        }
    }
    let mutations = [
        ("dgrad_dw3x3_odd_tails", Mutation::DgradFlipDropped),
        ("dgrad_dw7x1_asym", Mutation::DgradFlipDropped),
        ("dgrad_mma_cg8", Mutation::DgradFlipDropped),
        ("dgrad_cpg2_kpg4_scalar", Mutation::DgradTransposeDropped),
        (
            "dgrad_cpg4_kpg2_group_vector_f32",
            Mutation::DgradTransposeDropped,
        ),
        // The 16-byte gather (dual K/G 16): the index's transpose dropped would read misaligned
        // vectors (a crash, not a wrong value), so the planted fault is the gather's own.
        (
            "dgrad_mma_cpg16_kpg8",
            Mutation::DgradVectorTransposeDropped,
        ),
        ("dgrad_mma_gm4_cpg2_kpg4", Mutation::DgradTransposeDropped),
        ("dgrad_mma_gm2_cpg4", Mutation::DgradMergedColumnRowsDropped),
        (
            "dgrad_mma_gm4_cpg8_kpg2",
            Mutation::DgradMergedColumnRowsDropped,
        ),
        ("dgrad_mma_gm8_depthwise", Mutation::DgradFlipDropped),
        ("dgrad_chan_mult2", Mutation::CorruptWeight),
        ("dgrad_s2_dw3x3_odd", Mutation::DgradPhaseShifted),
        ("dgrad_s2_1d", Mutation::DgradPhaseShifted),
        (
            "dgrad_s2_cpg2_kpg4_g3_f32",
            Mutation::DgradPhaseTransposeDropped,
        ),
        ("dgrad_s2_chan_mult2", Mutation::DgradPhaseTransposeDropped),
        ("dgrad_s2_3d", Mutation::CorruptWeight),
        ("dgrad_s2_mma_cpg16", Mutation::DgradPhaseShifted),
        ("dgrad_s2_mma_cpg16", Mutation::PhaseMmaWeightOffsetDropped),
        ("dgrad_s2_3d_mma", Mutation::PhaseMmaWeightOffsetDropped),
        (
            "dgrad_s2_mma_narrow_g16",
            Mutation::PhaseMmaWeightOffsetDropped,
        ),
        (
            "dgrad_s2_mma_cpg8_kpg16_f16",
            Mutation::PhaseMmaStorePhaseDropped,
        ),
        // The tensor-core phase kernel gathers W in 16-byte reads: its planted transpose
        // fault is the gather's own (as for dgrad_mma_cpg16_kpg8).
        (
            "dgrad_s2_mma_cpg8_kpg16_f16",
            Mutation::DgradVectorTransposeDropped,
        ),
        ("dgrad_s2_5x5_mma_half_steps", Mutation::CorruptWeight),
        // The batched weight staging of the CUDA-core, tensor-core and stride-phase paths.
        ("dgrad_dw3x3_odd_tails", Mutation::StageBatchSlotDropped),
        ("dgrad_mma_cg8", Mutation::StageBatchSlotDropped),
        ("dgrad_s2_mma_cpg16", Mutation::StageBatchSlotDropped),
        ("dgrad_s2_dw3x3_odd", Mutation::StageBatchSlotDropped),
    ];
    let planted = planted_jobs(&jobs, &mutations);
    jobs.extend(planted);
    run_and_assert(
        "direct dgrad host_emulation",
        &jobs,
        &dir,
        asan,
        (DGRAD_CASES.len(), mutations.len()),
    );
}

/// Direct backward-weight cases (label, kernel, problem): the slab kernel of
/// `direct::wgrad` on depthwise 3x3 (stride 1/2) to 31x31 (taps split across warps, taps that
/// read only padding), channel multipliers, C/G 2-4 with G = 3/5/7, odd channels, dilation,
/// large padding, stride > filter, N = 1, 1D, 3D, tails of every dimension, P = 1 and P > 1
/// (rule-sized and fixed, with a short last slab), f32/f16/bf16.
const WGRAD_CASES: &[(&str, &str, &str)] = &[
    (
        "wgrad_dw3x3_s1_p1",
        "direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g16_c16_k16_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_dw3x3_s1_slabs",
        "direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g8_c8_k8_i33x40_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_dw3x3_s2_tails",
        "direct_wgrad_bf16_t128x64x16_w8x1_s2_v2x9_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g72_c72_k72_i19x23_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "wgrad_dw5x5_f16",
        "direct_wgrad_f16_t128x64x16_w8x1_s2_v8x9_gm1_sk0d_simt_gen",
        "wgrad_f16_n2_g24_c24_k24_i17x19_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "wgrad_dw7x7_taps_split",
        "direct_wgrad_bf16_t112x32x28_w8x1_s2_v4x7_gm1_sk0d_simt_gen",
        "wgrad_bf16_n1_g32_c32_k32_i14x30_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "wgrad_dw13x13_large",
        "direct_wgrad_bf16_t64x16x16_w8x1_s2_v4x16_gm1_sk0d_simt_gen",
        "wgrad_bf16_n1_g16_c16_k16_i20x21_f13x13_s1x1_p6x6_d1x1",
    ),
    (
        "wgrad_dw31x31_padding_taps",
        "direct_wgrad_bf16_t64x16x16_w8x1_s2_v4x16_gm1_sk0d_simt_gen",
        "wgrad_bf16_n1_g8_c8_k8_i12x14_f31x31_s1x1_p15x15_d1x1",
    ),
    (
        "wgrad_chan_mult2",
        "direct_wgrad_bf16_t128x64x16_w8x1_s2_v2x9_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g6_c6_k12_i11x13_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_cpg2_g3",
        "direct_wgrad_bf16_t128x32x16_w8x1_s2_v4x4_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g3_c6_k6_i10x12_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_cpg4_g5",
        "direct_wgrad_bf16_t128x32x16_w8x1_s2_v4x4_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g5_c20_k20_i9x10_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "wgrad_cpg3_g5_f32",
        "direct_wgrad_f32_t128x24x16_w8x1_s2_v4x4_gm1_sk0d_simt_gen",
        "wgrad_f32_n1_g5_c15_k15_i8x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_odd_channels_g7",
        "direct_wgrad_bf16_t128x64x16_w8x1_s2_v2x9_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g7_c7_k7_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_dilation2",
        "direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g16_c16_k16_i13x15_f3x3_s1x1_p2x2_d2x2",
    ),
    (
        "wgrad_large_pad",
        "direct_wgrad_f16_t128x64x16_w8x1_s2_v2x9_gm1_sk0d_simt_gen",
        "wgrad_f16_n1_g32_c32_k32_i6x7_f3x3_s1x1_p4x4_d1x1",
    ),
    (
        "wgrad_stride_gt_filter",
        "direct_wgrad_bf16_t64x64x16_w8x1_s2_v8x9_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g16_c16_k16_i17x19_f2x2_s3x3_p0x0_d1x1",
    ),
    (
        "wgrad_n1_f32",
        "direct_wgrad_f32_t128x32x16_w8x1_s2_v4x9_gm1_sk0d_simt_gen",
        "wgrad_f32_n1_g20_c20_k20_i10x18_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_1d",
        "direct_wgrad_bf16_t64x64x64_w8x1_s2_v8x9_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g16_c16_k16_i150_f5_s1_p2_d1",
    ),
    (
        "wgrad_3d",
        "direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk0d_simt_gen",
        "wgrad_bf16_n1_g8_c8_k8_i4x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "wgrad_3d_strided_f16",
        "direct_wgrad_f16_t64x32x16_w8x1_s2_v8x9_gm1_sk0d_simt_gen",
        "wgrad_f16_n2_g8_c8_k8_i5x7x6_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
    ),
    (
        "wgrad_fixed_p1",
        "direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk1d_simt_gen",
        "wgrad_bf16_n2_g8_c8_k8_i33x40_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_fixed_p4_short_last",
        "direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk4d_simt_gen",
        "wgrad_bf16_n1_g80_c80_k80_i13x70_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "wgrad_f32_5x5_slabs",
        "direct_wgrad_f32_t128x32x16_w8x1_s2_v4x9_gm1_sk0d_simt_gen",
        "wgrad_f32_n2_g4_c4_k4_i30x32_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "wgrad_coverage_guard",
        "direct_wgrad_bf16_t128x24x16_w8x1_s2_v2x5_gm1_sk3d_simt_gen",
        "wgrad_bf16_n2_g5_c5_k10_i13x18_f3x4_s1x1_p1x2_d1x1",
    ),
];

/// The direct family's backward weight under host emulation against the f64 wgrad reference:
/// every element of dW compared (the output starts as NaN bytes, so an unwritten row or column
/// fails); coverage guards: the slab counts the matrix must exercise, and a case whose dW
/// extents (K = 10, C = 5, taps = 12, Y = 3, X = 4, K/G = 2) are all distinct, so a bound taken from
/// the wrong extent leaves rows or columns unwritten. Planted faults: a partial plane skipped
/// by the reduction, a tap offset off by one, the output-channel bound taken from C, corrupted
/// dY. Determinism: a P > 1 case run twice gives identical bytes.
#[test]
fn direct_wgrad_kernels_match_the_reference_under_host_emulation() {
    if skip_without_cxx("direct_wgrad_kernels_match_the_reference_under_host_emulation") {
        return;
    }
    let dir = work_dir("direct_wgrad_kernels_match_the_reference_under_host_emulation");
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let mut jobs = case_jobs(WGRAD_CASES);
    let slabs = |label: &str| {
        let job = jobs.iter().find(|j| j.label == label).expect("case");
        let a = admit(&job.cfg, &job.problem, &Target::H200).expect("admitted");
        let src = a.emit();
        (
            a.grid()[0],
            a.config().split_k,
            src.launches.len(),
            src.workspace_bytes,
        )
    };
    for job in &jobs {
        assert_eq!(job.problem.direction, Direction::Wgrad, "{}", job.label);
    }
    // Coverage guards: P = 1 writes dW in one launch; the rule sizes P > 1 where the partial
    // traffic allows it, and the resolved name says what ran; a fixed P with a short last slab.
    assert_eq!(slabs("wgrad_dw3x3_s1_p1"), (1, 1, 1, 0));
    assert_eq!(slabs("wgrad_fixed_p1"), (1, 1, 1, 0));
    let (p, sk, launches, ws) = slabs("wgrad_dw3x3_s1_slabs");
    assert!(
        p > 1 && sk as u64 == p && launches == 2 && ws == p * 8 * 9 * 4,
        "{p} {sk}"
    );
    let (p, _, launches, _) = slabs("wgrad_f32_5x5_slabs");
    assert!(p > 1 && launches == 2, "{p}");
    {
        let job = jobs
            .iter()
            .find(|j| j.label == "wgrad_fixed_p4_short_last")
            .expect("case");
        let g = gconv_kernels::direct::geometry(&job.cfg, &job.problem, &DeviceLimits::H200);
        let tiles = gconv_kernels::direct::wgrad::tiles(&job.problem, g.th, g.tw);
        assert_eq!(g.grid[0], 4);
        assert!(
            !tiles.is_multiple_of(4) && tiles.div_ceil(4) * 3 < tiles,
            "{tiles} tiles"
        );
    }
    {
        let job = jobs
            .iter()
            .find(|j| j.label == "wgrad_coverage_guard")
            .expect("case");
        let p = job.problem;
        let extents = [
            p.k,
            p.c,
            p.filter_volume(),
            p.filter[1],
            p.filter[2],
            p.kpg(),
        ];
        for (i, a) in extents.iter().enumerate() {
            for b in &extents[i + 1..] {
                assert_ne!(a, b, "coverage guard extents must be distinct: {extents:?}");
            }
        }
        assert!(
            !(job.cfg.tile_n as u64).is_multiple_of(p.k),
            "channel tail in the CTA"
        );
    }
    let mutations = [
        ("wgrad_dw3x3_s1_slabs", Mutation::SplitReduceSliceSkipped),
        ("wgrad_f32_5x5_slabs", Mutation::SplitReduceSliceSkipped),
        (
            "wgrad_fixed_p4_short_last",
            Mutation::SplitReduceSliceSkipped,
        ),
        ("wgrad_dw3x3_s1_p1", Mutation::DirectWgradTapShifted),
        ("wgrad_cpg4_g5", Mutation::DirectWgradTapShifted),
        ("wgrad_dw13x13_large", Mutation::DirectWgradTapShifted),
        ("wgrad_coverage_guard", Mutation::DirectWgradChannelBound),
        ("wgrad_chan_mult2", Mutation::DirectWgradChannelBound),
        ("wgrad_3d", Mutation::CorruptWeight),
    ];
    let planted = planted_jobs(&jobs, &mutations);
    jobs.extend(planted);
    // Determinism: the default kernel (rule-sized P > 1, fixed-order reduction) twice.
    assert_repeats(&jobs, "wgrad_dw3x3_s1_slabs", &dir, asan, "wgrad");
    run_and_assert(
        "direct wgrad host_emulation",
        &jobs,
        &dir,
        asan,
        (WGRAD_CASES.len(), mutations.len()),
    );
}

/// The tensor-core wgrad kernel's matrix (`direct::wgrad_mma`): (label, kernel, problem). C/G 8,
/// 16 and 32; K/G 8, 24 (an odd number of n8 blocks) and 32; merged groups (C/G 4 with gm2,
/// C/G 2 and K/G 4 with gm4); odd chunk counts (a half m16
/// block); strides, dilation, padding, tile tails; 1D and 3D; f16; fixed and rule slab counts;
/// a channel block with a group past K.
const WGRAD_MMA_CASES: &[(&str, &str, &str)] = &[
    // Stride-phase halo columns (direct/shape.rs `halo_split`): stride 2, and stride 2 with
    // dilation 3 (tap columns 0, 3, 6 in phases 0, 1, 0).
    (
        "mma_s2_phases",
        "direct_wgrad_bf16_t112x32x16_w8x1_s2_v3x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g4_c32_k32_i14x22_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "mma_s2_d3_phases",
        "direct_wgrad_bf16_t64x16x8_w4x1_s2_v2x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n1_g2_c16_k16_i12x19_f3x3_s2x2_p3x3_d3x3",
    ),
    (
        "mma_cpg8_3x3_tails",
        "direct_wgrad_bf16_t64x16x8_w4x1_s2_v2x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g4_c32_k32_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_cpg16_kpg24_s2_f16",
        "direct_wgrad_f16_t32x24x8_w4x1_s2_v3x1_gm1_sk0d_mma_gen",
        "wgrad_f16_n2_g2_c32_k48_i13x15_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "mma_cpg8_dilation2",
        "direct_wgrad_bf16_t64x24x8_w4x1_s2_v2x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n1_g3_c24_k24_i12x13_f3x3_s1x1_p2x2_d2x2",
    ),
    (
        "mma_3d",
        "direct_wgrad_bf16_t32x16x8_w4x1_s2_v3x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n1_g2_c16_k16_i4x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "mma_fixed_p3_short_last",
        "direct_wgrad_bf16_t64x16x8_w4x1_s2_v2x1_gm1_sk3d_mma_gen",
        "wgrad_bf16_n2_g2_c16_k16_i10x21_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_one_slab",
        "direct_wgrad_bf16_t64x16x8_w4x1_s2_v2x1_gm1_sk1d_mma_gen",
        "wgrad_bf16_n1_g2_c16_k16_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_group_past_k",
        "direct_wgrad_bf16_t64x16x8_w4x1_s2_v2x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g3_c24_k24_i8x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_1d_5",
        "direct_wgrad_bf16_t32x16x32_w2x1_s2_v2x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g2_c16_k16_i70_f5_s1_p2_d1",
    ),
    (
        "mma_gm2_cpg4",
        "direct_wgrad_bf16_t64x16x8_w4x1_s2_v2x1_gm2_sk0d_mma_gen",
        "wgrad_bf16_n2_g8_c32_k32_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_gm4_cpg2_kpg4_f16",
        "direct_wgrad_f16_t64x32x8_w4x1_s2_v2x1_gm4_sk0d_mma_gen",
        "wgrad_f16_n1_g8_c16_k32_i10x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_cpg24_th7_tw16_tails",
        "direct_wgrad_bf16_t112x24x16_w8x1_s2_v2x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g2_c48_k48_i9x20_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_gm2_cpg4_mb5",
        "direct_wgrad_bf16_t64x32x8_w4x1_s2_v5x1_gm2_sk0d_mma_gen",
        "wgrad_bf16_n2_g8_c32_k32_i11x10_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_mslices_3_dead_unit_between",
        "direct_wgrad_bf16_t64x16x8_w1x1_s2_v1x3_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g4_c32_k32_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_mslices_3_cpg32",
        "direct_wgrad_bf16_t64x32x8_w4x1_s2_v2x3_gm1_sk0d_mma_gen",
        "wgrad_bf16_n1_g2_c64_k64_i10x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_mslices_4_cpg64_f16",
        "direct_wgrad_f16_t64x64x8_w8x1_s2_v1x4_gm1_sk0d_mma_gen",
        "wgrad_f16_n1_g2_c128_k128_i9x10_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_cpg32_3x3",
        "direct_wgrad_bf16_t64x32x8_w8x1_s2_v3x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n1_g1_c32_k32_i10x9_f3x3_s1x1_p1x1_d1x1",
    ),
    // The register-pipelined variant (stages 3, K/G <= 24, no depth taps): 2, 4 and 7 k16 steps
    // a tile, an odd n8 block count, merged groups, 1D, 3D pointwise, stride 2, one slab, M
    // slices with a dead unit.
    (
        "mma_piped_cpg8_3x3_tails",
        "direct_wgrad_bf16_t64x16x8_w4x1_s3_v2x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g4_c32_k32_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_piped_cpg16_kpg24_s2_f16",
        "direct_wgrad_f16_t32x24x8_w4x1_s3_v3x1_gm1_sk0d_mma_gen",
        "wgrad_f16_n2_g2_c32_k48_i13x15_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "mma_piped_cpg24_th7_tw16_tails",
        "direct_wgrad_bf16_t112x24x16_w8x1_s3_v2x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g2_c48_k48_i9x20_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_piped_gm2_cpg4_mb5",
        "direct_wgrad_bf16_t64x32x8_w4x1_s3_v5x1_gm2_sk0d_mma_gen",
        "wgrad_bf16_n2_g8_c32_k32_i11x10_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_piped_1d_5",
        "direct_wgrad_bf16_t32x16x32_w2x1_s3_v2x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g2_c16_k16_i70_f5_s1_p2_d1",
    ),
    (
        "mma_piped_3d_pointwise",
        "direct_wgrad_bf16_t32x16x8_w4x1_s3_v3x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n1_g2_c16_k16_i4x6x7_f1x1x1_s1x1x1_p0x0x0_d1x1x1",
    ),
    (
        "mma_piped_cpg16_one_slab",
        "direct_wgrad_bf16_t64x16x8_w8x1_s3_v3x1_gm1_sk1d_mma_gen",
        "wgrad_bf16_n1_g1_c16_k16_i10x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "mma_piped_mslices_3_dead_unit_between",
        "direct_wgrad_bf16_t64x16x8_w1x1_s3_v1x3_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g4_c32_k32_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
];

/// The tensor-core wgrad kernel under host emulation against the f64 wgrad reference: every
/// element of dW compared (the output starts as NaN bytes). Coverage guards: a case with one
/// slab (dW written by the kernel), rule-sized and fixed slab counts (a short last slab), a
/// channel block whose second group is past K; the register-pipelined variant (`stages = 3`) on
/// the same kinds of layer. Planted faults: a tap offset off by one, the second n8 block
/// reading the first's channels, a store without its tap, a partial plane skipped by the
/// reduction, a stale prefetch of the pipelined variant. Determinism: a P > 1 case run twice
/// gives identical bytes.
#[test]
fn direct_wgrad_mma_kernels_match_the_reference_under_host_emulation() {
    if skip_without_cxx("direct_wgrad_mma_kernels_match_the_reference_under_host_emulation") {
        return;
    }
    let dir = work_dir("direct_wgrad_mma_kernels_match_the_reference_under_host_emulation");
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let mut jobs = case_jobs(WGRAD_MMA_CASES);
    let grid = |label: &str| {
        let job = jobs.iter().find(|j| j.label == label).expect("case");
        let a = admit(&job.cfg, &job.problem, &Target::H200).expect("admitted");
        (a.grid(), a.emit().launches.len())
    };
    for job in &jobs {
        assert_eq!(job.problem.direction, Direction::Wgrad, "{}", job.label);
        assert!(
            gconv_kernels::direct::wgrad_mma::applies(&job.cfg, &job.problem),
            "{}",
            job.label
        );
    }
    assert_eq!(grid("mma_one_slab"), ([1, 1, 1], 1));
    let (g, launches) = grid("mma_fixed_p3_short_last");
    assert_eq!((g[0], launches), (3, 2));
    let (g, launches) = grid("mma_cpg8_3x3_tails");
    assert!(g[0] > 1 && launches == 2, "{g:?}");
    let (g, _) = grid("mma_group_past_k");
    assert_eq!(g[1], 2, "two channel blocks, the second with one group");
    let mutations = [
        ("mma_cpg8_3x3_tails", Mutation::DirectWgradMmaTapShifted),
        ("mma_3d", Mutation::DirectWgradMmaTapShifted),
        (
            "mma_cpg16_kpg24_s2_f16",
            Mutation::DirectWgradMmaSecondBlockDropped,
        ),
        ("mma_cpg32_3x3", Mutation::DirectWgradMmaSecondBlockDropped),
        ("mma_one_slab", Mutation::DirectWgradMmaStoreTapDropped),
        ("mma_gm2_cpg4", Mutation::DirectWgradMmaMergeDiagonalDropped),
        (
            "mma_gm4_cpg2_kpg4_f16",
            Mutation::DirectWgradMmaMergeDiagonalDropped,
        ),
        ("mma_gm2_cpg4", Mutation::DirectWgradMmaTapShifted),
        ("mma_fixed_p3_short_last", Mutation::SplitReduceSliceSkipped),
        ("mma_s2_phases", Mutation::HaloPhaseIgnored),
        (
            "mma_mslices_3_cpg32",
            Mutation::DirectWgradMmaSliceOffsetDropped,
        ),
        (
            "mma_mslices_3_dead_unit_between",
            Mutation::DirectWgradMmaSliceOffsetDropped,
        ),
        (
            "mma_piped_cpg8_3x3_tails",
            Mutation::DirectWgradMmaPrefetchStale,
        ),
        (
            "mma_piped_cpg24_th7_tw16_tails",
            Mutation::DirectWgradMmaPrefetchStale,
        ),
        ("mma_piped_1d_5", Mutation::DirectWgradMmaTapShifted),
        (
            "mma_piped_cpg16_one_slab",
            Mutation::DirectWgradMmaStoreTapDropped,
        ),
        (
            "mma_piped_cpg16_kpg24_s2_f16",
            Mutation::DirectWgradMmaSecondBlockDropped,
        ),
        (
            "mma_piped_mslices_3_dead_unit_between",
            Mutation::DirectWgradMmaSliceOffsetDropped,
        ),
    ];
    let planted = planted_jobs(&jobs, &mutations);
    jobs.extend(planted);
    assert_repeats(&jobs, "mma_cpg8_3x3_tails", &dir, asan, "wgrad_mma");
    run_and_assert(
        "direct tensor-core wgrad host_emulation",
        &jobs,
        &dir,
        asan,
        (WGRAD_MMA_CASES.len(), mutations.len()),
    );
}

/// The banded tensor-core depthwise wgrad kernel's matrix (`direct::banded`, `math = mma`,
/// `stages = 1`): (label, kernel, problem).
const WGRAD_BANDED_CASES: &[(&str, &str, &str)] = &[
    (
        "banded_7x7_tails",
        "direct_wgrad_bf16_t32x16x16_w2x1_s1_v8x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g16_c16_k16_i11x21_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "banded_3x3_one_slab",
        "direct_wgrad_bf16_t32x8x16_w1x1_s1_v8x1_gm1_sk1d_mma_gen",
        "wgrad_bf16_n1_g8_c8_k8_i9x10_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "banded_5x5_f16_th4_past_c",
        "direct_wgrad_f16_t64x16x16_w4x1_s1_v8x1_gm1_sk0d_mma_gen",
        "wgrad_f16_n2_g24_c24_k24_i13x17_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "banded_two_rows_f2x4",
        "direct_wgrad_bf16_t32x16x16_w2x1_s1_v8x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g16_c16_k16_i2x40_f2x4_s1x1_p0x3_d1x1",
    ),
    (
        "banded_7x7_no_pad_fixed_p3",
        "direct_wgrad_bf16_t16x8x8_w1x1_s1_v8x1_gm1_sk3d_mma_gen",
        "wgrad_bf16_n1_g8_c8_k8_i12x12_f7x7_s1x1_p0x0_d1x1",
    ),
    (
        "banded_5x8_asym_pad_th6",
        "direct_wgrad_bf16_t144x32x24_w8x1_s1_v8x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g32_c32_k32_i10x14_f5x8_s1x1_p2x3_d1x1",
    ),
    (
        "banded_piped_7x7_tails_p2",
        "direct_wgrad_bf16_t32x16x16_w2x1_s1_v8x2_gm1_sk2d_mma_gen",
        "wgrad_bf16_n2_g16_c16_k16_i11x21_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "banded_piped_5x5_f16_past_c_one_slab",
        "direct_wgrad_f16_t64x16x16_w4x1_s1_v8x2_gm1_sk1d_mma_gen",
        "wgrad_f16_n2_g24_c24_k24_i13x17_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "banded_9x9_blocks_2x2",
        "direct_wgrad_bf16_t32x16x16_w4x1_s1_v8x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g16_c16_k16_i13x19_f9x9_s1x1_p4x4_d1x1",
    ),
    (
        "banded_13x13_f16_piped",
        "direct_wgrad_f16_t64x8x16_w4x1_s1_v8x2_gm1_sk0d_mma_gen",
        "wgrad_f16_n1_g8_c8_k8_i17x20_f13x13_s1x1_p6x6_d1x1",
    ),
    (
        "banded_15x10_blocks_2x3",
        "direct_wgrad_bf16_t32x16x16_w8x1_s1_v8x1_gm1_sk2d_mma_gen",
        "wgrad_bf16_n1_g16_c16_k16_i18x21_f15x10_s1x1_p7x4_d1x1",
    ),
    (
        "banded_31x31_blocks_4x5",
        "direct_wgrad_bf16_t32x8x16_w8x1_s1_v8x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n1_g8_c8_k8_i35x33_f31x31_s1x1_p15x15_d1x1",
    ),
    (
        "banded_7x7_three_vectors",
        "direct_wgrad_bf16_t32x24x16_w4x1_s1_v8x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g48_c48_k48_i11x21_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "banded_piped_5x5_eight_vectors_past_c",
        "direct_wgrad_bf16_t32x64x16_w8x1_s1_v8x2_gm1_sk0d_mma_gen",
        "wgrad_bf16_n1_g72_c72_k72_i9x20_f5x5_s1x1_p2x2_d1x1",
    ),
];

/// The banded tensor-core depthwise wgrad kernel under host emulation against the f64 wgrad
/// reference: every element of dW compared (the output starts as NaN bytes). Coverage
/// guards: one slab (dW written by the kernel), rule-sized and fixed slab counts (a short last
/// slab), a channel block half past C, a last row pair whose top row is past Ho, column tiles
/// with a tail, a layer of two rows, an 8-wide filter, odd and even band offsets, the
/// pipelined variant (`vec_b` 2) with several tiles per slab and with one slab, tap blocks
/// (9×9, 13×13, 15×10, 31×31), one to eight channel vectors per CTA (the planes of each group
/// of 8 channels shifted apart). Planted faults: the shifted dY copy never written, the top
/// half read one tap row off, the column-tile mask dropped, a stale prefetch, a tap block's
/// band shift or X-row offset dropped, the reads without the group shift of the X or dY
/// planes. Determinism: a P > 1 case run twice gives identical bytes.
#[test]
fn direct_wgrad_banded_kernels_match_the_reference_under_host_emulation() {
    let name = "direct_wgrad_banded_kernels_match_the_reference_under_host_emulation";
    if skip_without_cxx(name) {
        return;
    }
    let dir = work_dir(name);
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let mut jobs = case_jobs(WGRAD_BANDED_CASES);
    let grid = |label: &str| {
        let job = jobs.iter().find(|j| j.label == label).expect("case");
        assert!(
            gconv_kernels::direct::banded::applies(&job.cfg, &job.problem),
            "{label}"
        );
        let a = admit(&job.cfg, &job.problem, &Target::H200).expect("admitted");
        let src = a.emit();
        assert!(src.code.contains("banded dY"), "{label}: the banded module");
        (a.grid(), src.launches.len())
    };
    assert_eq!(grid("banded_3x3_one_slab"), ([1, 1, 1], 1));
    let (g, launches) = grid("banded_7x7_no_pad_fixed_p3");
    assert_eq!((g[0], launches), (3, 2));
    let (g, launches) = grid("banded_7x7_tails");
    assert!(g[0] > 1 && launches == 2, "{g:?}");
    let (g, _) = grid("banded_5x5_f16_th4_past_c");
    assert_eq!(g[1], 2, "two channel blocks, the second half past C");
    for (label, ..) in WGRAD_BANDED_CASES {
        grid(label);
    }
    let mutations = [
        ("banded_7x7_tails", Mutation::BandedShiftedCopyDropped),
        ("banded_3x3_one_slab", Mutation::BandedShiftedCopyDropped),
        ("banded_7x7_tails", Mutation::BandedTopHalfShifted),
        ("banded_3x3_one_slab", Mutation::BandedTopHalfShifted),
        ("banded_5x8_asym_pad_th6", Mutation::BandedTopHalfShifted),
        ("banded_7x7_tails", Mutation::BandedTileMaskDropped),
        ("banded_5x5_f16_th4_past_c", Mutation::BandedTileMaskDropped),
        (
            "banded_7x7_no_pad_fixed_p3",
            Mutation::SplitReduceSliceSkipped,
        ),
        ("banded_piped_7x7_tails_p2", Mutation::BandedPrefetchStale),
        (
            "banded_piped_5x5_f16_past_c_one_slab",
            Mutation::BandedPrefetchStale,
        ),
        ("banded_piped_7x7_tails_p2", Mutation::BandedTileMaskDropped),
        ("banded_9x9_blocks_2x2", Mutation::BandedBlockShiftDropped),
        ("banded_31x31_blocks_4x5", Mutation::BandedBlockShiftDropped),
        ("banded_9x9_blocks_2x2", Mutation::BandedBlockRowsDropped),
        ("banded_15x10_blocks_2x3", Mutation::BandedBlockRowsDropped),
        ("banded_13x13_f16_piped", Mutation::BandedTopHalfShifted),
        ("banded_7x7_tails", Mutation::BandedXGroupShiftDropped),
        (
            "banded_7x7_three_vectors",
            Mutation::BandedXGroupShiftDropped,
        ),
        ("banded_7x7_tails", Mutation::BandedDyGroupShiftDropped),
        (
            "banded_piped_5x5_eight_vectors_past_c",
            Mutation::BandedDyGroupShiftDropped,
        ),
    ];
    let planted = planted_jobs(&jobs, &mutations);
    jobs.extend(planted);
    assert_repeats(&jobs, "banded_7x7_tails", &dir, asan, "banded wgrad");
    run_and_assert(
        "direct banded tensor-core wgrad host_emulation",
        &jobs,
        &dir,
        asan,
        (WGRAD_BANDED_CASES.len(), mutations.len()),
    );
}

/// The banded tensor-core depthwise forward kernel's matrix (`direct::fwd_banded`, `math =
/// mma`, `vec_a = 1`), forward and backward data (its dual): (label, kernel, problem).
const FWD_BANDED_CASES: &[(&str, &str, &str)] = &[
    (
        "fwd_banded_7x7_tails",
        "direct_fwd_bf16_t128x16x16_w2x1_s1_v1x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g16_c16_k16_i11x21_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "fwd_banded_3x3_th16_tw32_past_c",
        "direct_fwd_bf16_t512x16x32_w4x1_s1_v1x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g24_c24_k24_i19x35_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "fwd_banded_5x4_f16_asym_pad",
        "direct_fwd_f16_t128x8x16_w1x1_s1_v1x1_gm1_sk1d_mma_gen",
        "fwd_f16_n2_g8_c8_k8_i9x13_f5x4_s1x1_p2x1_d1x1",
    ),
    (
        "fwd_banded_3x8_no_pad",
        "direct_fwd_bf16_t256x16x32_w2x1_s1_v1x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g16_c16_k16_i12x40_f3x8_s1x1_p0x0_d1x1",
    ),
    (
        "fwd_banded_15x7_tall",
        "direct_fwd_bf16_t128x8x16_w1x1_s1_v1x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g8_c8_k8_i20x18_f15x7_s1x1_p7x3_d1x1",
    ),
    (
        "fwd_banded_7x7_th32_four_blocks",
        "direct_fwd_bf16_t512x8x16_w8x1_s1_v1x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n1_g8_c8_k8_i37x20_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "fwd_banded_1x1_n3",
        "direct_fwd_bf16_t128x16x16_w4x1_s1_v1x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n3_g16_c16_k16_i5x6_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "fwd_banded_piped_7x7_walk",
        "direct_fwd_bf16_t128x16x16_w2x1_s1_v1x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n3_g16_c16_k16_i19x37_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "dgrad_banded_piped_5x5_walk",
        "direct_dgrad_bf16_t256x16x32_w4x1_s1_v1x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g24_c24_k24_i20x40_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "dgrad_banded_7x7_tails",
        "direct_dgrad_bf16_t128x16x16_w2x1_s1_v1x1_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g16_c16_k16_i11x21_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "dgrad_banded_5x3_asym_pad_past_c",
        "direct_dgrad_bf16_t256x16x32_w4x1_s1_v1x1_gm1_sk1d_mma_gen",
        "dgrad_bf16_n1_g24_c24_k24_i13x10_f5x3_s1x1_p1x0_d1x1",
    ),
    (
        "dgrad_banded_7x6_f16_th16",
        "direct_dgrad_f16_t256x8x16_w1x1_s1_v1x1_gm1_sk1d_mma_gen",
        "dgrad_f16_n1_g8_c8_k8_i17x15_f7x6_s1x1_p3x2_d1x1",
    ),
    (
        "fwd_banded_7x7_four_vectors_two_per_warp",
        "direct_fwd_bf16_t128x32x16_w8x1_s1_v1x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g40_c40_k40_i11x21_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "dgrad_banded_piped_5x5_three_vectors",
        "direct_dgrad_bf16_t128x24x16_w4x1_s1_v1x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g24_c24_k24_i20x19_f5x5_s1x1_p2x2_d1x1",
    ),
];

/// The banded tensor-core depthwise forward kernel (and backward data on its dual) under host
/// emulation against the f64 reference: every output element compared (the output starts as
/// NaN bytes). Coverage: tiles with row and column tails, two row blocks and two column chunks
/// per tile, a channel block half past C, odd and even column parities, filters 1×1 to 15×7
/// and 8 wide, asymmetric padding, f16, no padding, several images; backward data with the
/// flipped filter and its dual's padding; the pipelined variant with CTAs that walk several
/// tiles (a short last walk), forward and backward data; one to four channel vectors per CTA
/// and one, two, four or eight channels per warp (the output stores packing 1, 2, 4 or 8
/// channels). Planted faults: the shifted X copy never written, the band one tap row off, the
/// flip dropped (backward data), the column tile's origin dropped from the staging, a stale
/// prefetch, the reads without the planes' group shift, a packed channel pair swapped.
#[test]
fn direct_fwd_banded_kernels_match_the_reference_under_host_emulation() {
    let name = "direct_fwd_banded_kernels_match_the_reference_under_host_emulation";
    if skip_without_cxx(name) {
        return;
    }
    let dir = work_dir(name);
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let mut jobs = case_jobs(FWD_BANDED_CASES);
    for (label, walk) in [
        ("fwd_banded_piped_7x7_walk", [7, 1, 1]),
        ("dgrad_banded_piped_5x5_walk", [3, 2, 1]),
    ] {
        let job = jobs.iter().find(|j| j.label == label).expect("case");
        let a = admit(&job.cfg, &job.problem, &Target::H200).expect("admitted");
        assert_eq!(a.grid(), walk, "{label}: CTAs that walk several tiles");
    }
    for job in &jobs {
        assert!(
            gconv_kernels::direct::fwd_banded::applies(&job.cfg, &job.problem),
            "{}",
            job.label
        );
        let a = admit(&job.cfg, &job.problem, &Target::H200).expect("admitted");
        let src = a.emit();
        assert!(
            src.code.contains("banded filter") && src.launches.len() == 1,
            "{}: the banded forward module",
            job.label
        );
    }
    let mutations = [
        (
            "fwd_banded_7x7_tails",
            Mutation::FwdBandedShiftedCopyDropped,
        ),
        (
            "dgrad_banded_7x7_tails",
            Mutation::FwdBandedShiftedCopyDropped,
        ),
        ("fwd_banded_7x7_tails", Mutation::FwdBandedBandOffByOne),
        ("fwd_banded_15x7_tall", Mutation::FwdBandedBandOffByOne),
        (
            "fwd_banded_7x7_th32_four_blocks",
            Mutation::FwdBandedBandOffByOne,
        ),
        ("dgrad_banded_7x6_f16_th16", Mutation::FwdBandedBandOffByOne),
        ("dgrad_banded_7x7_tails", Mutation::FwdBandedFlipDropped),
        (
            "fwd_banded_piped_7x7_walk",
            Mutation::FwdBandedPrefetchStale,
        ),
        (
            "dgrad_banded_piped_5x5_walk",
            Mutation::FwdBandedPrefetchStale,
        ),
        (
            "dgrad_banded_5x3_asym_pad_past_c",
            Mutation::FwdBandedFlipDropped,
        ),
        ("fwd_banded_7x7_tails", Mutation::FwdBandedColumnTileIgnored),
        (
            "fwd_banded_3x3_th16_tw32_past_c",
            Mutation::FwdBandedColumnTileIgnored,
        ),
        ("fwd_banded_7x7_tails", Mutation::FwdBandedGroupShiftDropped),
        (
            "fwd_banded_7x7_four_vectors_two_per_warp",
            Mutation::FwdBandedGroupShiftDropped,
        ),
        ("fwd_banded_7x7_tails", Mutation::FwdBandedPackSwapped),
        (
            "fwd_banded_7x7_four_vectors_two_per_warp",
            Mutation::FwdBandedPackSwapped,
        ),
        (
            "dgrad_banded_piped_5x5_three_vectors",
            Mutation::FwdBandedPackSwapped,
        ),
    ];
    let planted = planted_jobs(&jobs, &mutations);
    jobs.extend(planted);
    run_and_assert(
        "direct banded tensor-core forward host_emulation",
        &jobs,
        &dir,
        asan,
        (FWD_BANDED_CASES.len(), mutations.len()),
    );
}

/// The streaming depthwise wgrad kernel's matrix (`direct::stream`, `stages = 1`): (label,
/// kernel, problem).
const WGRAD_STREAM_CASES: &[(&str, &str, &str)] = &[
    // Cluster splits (`sk{n}c`): the slabs of a channel block sum through the cluster's shared
    // memory; channel tails (40 and 36 channels in blocks of 16 and 32), 3D, f32.
    (
        "stream_cluster_p4_tail",
        "direct_wgrad_bf16_t8x16x8_w4x1_s1_v2x1_gm1_sk4c_simt_gen",
        "wgrad_bf16_n2_g40_c40_k40_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stream_cluster_p3_f32_7x7",
        "direct_wgrad_f32_t7x32x7_w2x1_s1_v4x2_gm1_sk3c_simt_gen",
        "wgrad_f32_n1_g36_c36_k36_i10x9_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "stream_cluster_p2_3d",
        "direct_wgrad_bf16_t8x16x8_w4x1_s1_v2x3_gm1_sk2c_simt_gen",
        "wgrad_bf16_n1_g16_c16_k16_i4x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        // a non-portable cluster (16 slabs), f16, 5x5
        "stream_cluster_p16_f16",
        "direct_wgrad_f16_t8x16x8_w2x1_s1_v2x1_gm1_sk16c_simt_gen",
        "wgrad_f16_n2_g24_c24_k24_i17x12_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "stream_3x3_s1",
        "direct_wgrad_bf16_t8x64x8_w8x1_s1_v2x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g16_c16_k16_i9x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stream_3x3_one_slab",
        "direct_wgrad_bf16_t8x64x8_w8x1_s1_v2x3_gm1_sk1d_simt_gen",
        "wgrad_bf16_n2_g40_c40_k40_i10x12_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stream_3x3_s2_tails",
        "direct_wgrad_bf16_t16x64x16_w8x1_s1_v2x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g72_c72_k72_i19x23_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "stream_5x5_f16",
        "direct_wgrad_f16_t8x64x8_w8x1_s1_v2x5_gm1_sk0d_simt_gen",
        "wgrad_f16_n2_g24_c24_k24_i17x19_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "stream_7x7_groups_4_3",
        "direct_wgrad_bf16_t8x32x8_w8x1_s1_v2x4_gm1_sk0d_simt_gen",
        "wgrad_bf16_n1_g32_c32_k32_i14x30_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "stream_7x7_tw7_groups_3_3_1_tail",
        "direct_wgrad_bf16_t7x64x7_w8x1_s1_v2x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g20_c20_k20_i14x14_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "stream_13x13",
        "direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x1_gm1_sk0d_simt_gen",
        "wgrad_bf16_n1_g16_c16_k16_i20x21_f13x13_s1x1_p6x6_d1x1",
    ),
    (
        "stream_31x31_padding_rows",
        "direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x1_gm1_sk0d_simt_gen",
        "wgrad_bf16_n1_g8_c8_k8_i12x14_f31x31_s1x1_p15x15_d1x1",
    ),
    (
        "stream_dilation2",
        "direct_wgrad_bf16_t8x64x8_w8x1_s1_v2x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g16_c16_k16_i13x15_f3x3_s1x1_p2x2_d2x2",
    ),
    (
        "stream_large_pad",
        "direct_wgrad_f16_t8x64x8_w8x1_s1_v2x3_gm1_sk0d_simt_gen",
        "wgrad_f16_n1_g32_c32_k32_i6x7_f3x3_s1x1_p4x4_d1x1",
    ),
    (
        "stream_stride_gt_filter",
        "direct_wgrad_bf16_t8x64x8_w8x1_s1_v2x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g16_c16_k16_i17x19_f2x2_s3x3_p0x0_d1x1",
    ),
    (
        "stream_odd_channels_g7",
        "direct_wgrad_bf16_t8x64x8_w8x1_s1_v2x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g7_c7_k7_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stream_g3_f32_vec4",
        "direct_wgrad_f32_t8x128x8_w8x1_s1_v4x3_gm1_sk0d_simt_gen",
        "wgrad_f32_n2_g3_c3_k3_i8x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stream_g5_vec4",
        "direct_wgrad_bf16_t8x128x8_w8x1_s1_v4x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g5_c5_k5_i10x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stream_n1_f32_vec1",
        "direct_wgrad_f32_t8x32x8_w8x1_s1_v1x3_gm1_sk0d_simt_gen",
        "wgrad_f32_n1_g20_c20_k20_i10x18_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stream_1d",
        "direct_wgrad_bf16_t16x64x16_w8x1_s1_v2x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g24_c24_k24_i70_f5_s1_p2_d1",
    ),
    (
        "stream_3d_s2_f16",
        "direct_wgrad_f16_t8x64x8_w8x1_s1_v2x3_gm1_sk0d_simt_gen",
        "wgrad_f16_n2_g8_c8_k8_i5x7x6_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
    ),
    (
        "stream_3d_vec4",
        "direct_wgrad_bf16_t8x128x8_w8x1_s1_v4x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n1_g12_c12_k12_i4x6x9_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "stream_fixed_p6_short_last",
        "direct_wgrad_bf16_t8x64x8_w8x1_s1_v2x3_gm1_sk6d_simt_gen",
        "wgrad_bf16_n1_g16_c16_k16_i13x20_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stream_f32_5x5_groups_4_1",
        "direct_wgrad_f32_t8x32x8_w8x1_s1_v2x4_gm1_sk0d_simt_gen",
        "wgrad_f32_n2_g4_c4_k4_i30x32_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "stream_vec8_16byte_reads",
        "direct_wgrad_bf16_t8x64x8_w8x1_s1_v8x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g24_c24_k24_i9x13_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stream_vec8_f32_two_reads_row_groups",
        "direct_wgrad_f32_t4x32x4_w4x1_s1_v8x1_gm1_sk0d_simt_gen",
        "wgrad_f32_n2_g40_c40_k40_i7x10_f3x3_s2x1_p1x1_d1x1",
    ),
    (
        "stream_vec8_c12_half_reads",
        "direct_wgrad_f16_t8x48x8_w8x1_s1_v8x3_gm1_sk0d_simt_gen",
        "wgrad_f16_n1_g12_c12_k12_i8x11_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stream_rule_slabs",
        "direct_wgrad_bf16_t8x64x8_w8x1_s1_v2x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n2_g8_c8_k8_i33x40_f3x3_s1x1_p1x1_d1x1",
    ),
];

/// The streaming depthwise wgrad kernel under host emulation against the f64 wgrad reference:
/// every element of dW compared (the output starts as NaN bytes). Coverage guards: one slab
/// writes dW in one launch; the rule sizes P > 1 and the resolved name says what ran; a fixed
/// P with a short last slab; the tap-row groups of the mutation cases do not divide the rows.
/// The cluster split (`sk{P}c`, the P slabs of a channel block one cluster summing through
/// distributed shared memory; P = 16 a non-portable cluster): one launch, no workspace,
/// `__cluster_dims__(P, 1, 1)` and `Launch::cluster` = P; run with the cluster's blocks at once
/// (the shim's `cluster_x`).
/// Planted faults: a tap offset off by one, the last (short) tap-row group dropped, the slot
/// reduction skipping slot 0, a partial plane skipped by the shared reduction, corrupted dY, a
/// cluster rank skipped in the sum, each rank reading its own memory, the last cluster dropped.
/// Determinism: a rule-sized P > 1 case run twice gives identical bytes.
#[test]
fn direct_wgrad_stream_kernels_match_the_reference_under_host_emulation() {
    let name = "direct_wgrad_stream_kernels_match_the_reference_under_host_emulation";
    if skip_without_cxx(name) {
        return;
    }
    let dir = work_dir(name);
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let mut jobs = case_jobs(WGRAD_STREAM_CASES);
    let slabs = |label: &str| {
        let job = jobs.iter().find(|j| j.label == label).expect("case");
        assert_eq!(job.cfg.stages, 1, "{label}: a streaming config");
        let a = admit(&job.cfg, &job.problem, &Target::H200).expect("admitted");
        let src = a.emit();
        assert!(
            src.code.contains("register streaming"),
            "{label}: the streaming module"
        );
        (
            a.grid()[0],
            a.config().split_k,
            src.launches.len(),
            src.workspace_bytes,
        )
    };
    assert_eq!(slabs("stream_3x3_one_slab"), (1, 1, 1, 0));
    for (label, p) in [
        ("stream_cluster_p4_tail", 4),
        ("stream_cluster_p3_f32_7x7", 3),
        ("stream_cluster_p2_3d", 2),
        ("stream_cluster_p16_f16", 16),
    ] {
        assert_eq!(
            slabs(label),
            (p, p as u32, 1, 0),
            "{label}: one launch, no workspace"
        );
        let job = jobs.iter().find(|j| j.label == label).expect("case");
        let src = admit(&job.cfg, &job.problem, &Target::H200)
            .expect("admitted")
            .emit();
        assert!(
            src.code.contains(&format!("__cluster_dims__({p}, 1, 1)")),
            "{label}: a cluster of the slabs"
        );
        assert_eq!(
            src.launches[0].cluster, p as u32,
            "{label}: a launch of clusters"
        );
    }
    let (p, sk, launches, ws) = slabs("stream_rule_slabs");
    assert!(
        p > 1 && sk as u64 == p && launches == 2 && ws == p * 8 * 9 * 4,
        "{p} {sk}"
    );
    let mut many = 0;
    for (label, _, _) in WGRAD_STREAM_CASES {
        let (p, ..) = slabs(label);
        println!("{label}: {p} slab(s)");
        if p > 1 {
            many += 1;
        }
    }
    assert!(many >= 6, "{many} cases with several slabs");
    {
        let job = jobs
            .iter()
            .find(|j| j.label == "stream_fixed_p6_short_last")
            .expect("case");
        let g = gconv_kernels::direct::geometry(&job.cfg, &job.problem, &DeviceLimits::H200);
        let units = gconv_kernels::direct::stream::units(&job.problem, g.tw);
        assert_eq!(g.grid[0], 6);
        assert!(
            !units.is_multiple_of(6) && units.div_ceil(6) * 5 < units,
            "{units} units"
        );
    }
    for label in ["stream_7x7_groups_4_3", "stream_f32_5x5_groups_4_1"] {
        let job = jobs.iter().find(|j| j.label == label).expect("case");
        let rows = job.problem.filter[0] * job.problem.filter[1];
        assert!(!rows.is_multiple_of(job.cfg.vec_b as u64), "{label}");
    }
    let mutations = [
        ("stream_3x3_s1", Mutation::DirectWgradStreamTapShifted),
        (
            "stream_7x7_groups_4_3",
            Mutation::DirectWgradStreamTapShifted,
        ),
        (
            "stream_31x31_padding_rows",
            Mutation::DirectWgradStreamTapShifted,
        ),
        ("stream_3d_s2_f16", Mutation::DirectWgradStreamTapShifted),
        (
            "stream_7x7_groups_4_3",
            Mutation::DirectWgradStreamRowGroupDropped,
        ),
        (
            "stream_f32_5x5_groups_4_1",
            Mutation::DirectWgradStreamRowGroupDropped,
        ),
        (
            "stream_7x7_tw7_groups_3_3_1_tail",
            Mutation::DirectWgradStreamRowGroupDropped,
        ),
        (
            "stream_3x3_one_slab",
            Mutation::DirectWgradStreamSlotSkipped,
        ),
        ("stream_rule_slabs", Mutation::DirectWgradStreamSlotSkipped),
        ("stream_rule_slabs", Mutation::SplitReduceSliceSkipped),
        ("stream_rule_slabs", Mutation::SplitReduceSliceSumDropped),
        (
            "stream_fixed_p6_short_last",
            Mutation::SplitReduceSliceSkipped,
        ),
        ("stream_3d_vec4", Mutation::CorruptWeight),
        ("stream_cluster_p4_tail", Mutation::StreamClusterRankSkipped),
        ("stream_cluster_p3_f32_7x7", Mutation::StreamClusterOwnSmem),
        ("stream_cluster_p2_3d", Mutation::StreamClusterRankSkipped),
        ("stream_cluster_p16_f16", Mutation::StreamClusterOwnSmem),
        ("stream_cluster_p4_tail", Mutation::DropLastBlock),
    ];
    let planted = planted_jobs(&jobs, &mutations);
    jobs.extend(planted);
    assert_repeats(&jobs, "stream_rule_slabs", &dir, asan, "stream wgrad");
    run_and_assert(
        "direct wgrad stream host_emulation",
        &jobs,
        &dir,
        asan,
        (WGRAD_STREAM_CASES.len(), mutations.len()),
    );
}

/// The forward cases of `gconv selftest`'s matrix that a direct kernel can run (C/G <= 4),
/// as (label, N, G, C, K, spatial rows (input, filter, stride, pad, dilation) in D,H,W order).
type SelftestCase = (&'static str, [i64; 4], &'static [[i64; 5]]);
const SELFTEST_CASES: &[SelftestCase] = &[
    (
        "small_cpg",
        [2, 8, 16, 16],
        &[[8, 3, 1, 1, 1], [7, 3, 1, 1, 1]],
    ),
    (
        "depthwise",
        [2, 12, 12, 12],
        &[[8, 3, 1, 1, 1], [7, 3, 1, 1, 1]],
    ),
    (
        "chan_mult",
        [2, 6, 6, 12],
        &[[8, 3, 1, 1, 1], [7, 3, 1, 1, 1]],
    ),
    ("g3", [2, 3, 12, 9], &[[6, 3, 1, 1, 1], [7, 3, 1, 1, 1]]),
    (
        "stride_gt_filter",
        [2, 4, 16, 16],
        &[[9, 2, 3, 0, 1], [9, 2, 3, 0, 1]],
    ),
    (
        "large_pad",
        [1, 2, 8, 8],
        &[[5, 3, 1, 3, 1], [5, 3, 1, 3, 1]],
    ),
    (
        "dilation",
        [2, 4, 16, 16],
        &[[9, 3, 1, 2, 2], [10, 3, 1, 2, 2]],
    ),
    (
        "strided_s2",
        [2, 4, 16, 32],
        &[[9, 3, 2, 1, 1], [9, 3, 2, 1, 1]],
    ),
    ("rank1", [2, 8, 8, 8], &[[33, 5, 2, 2, 2]]),
    (
        "rank3",
        [1, 2, 4, 6],
        &[[5, 3, 1, 1, 1], [6, 3, 1, 1, 1], [7, 3, 1, 1, 1]],
    ),
    (
        "rank3_dw_strided",
        [2, 8, 8, 8],
        &[[6, 3, 2, 1, 1], [7, 3, 2, 1, 1], [7, 3, 2, 1, 1]],
    ),
    (
        "rank3_cpg8",
        [2, 4, 32, 32],
        &[[5, 3, 1, 1, 1], [9, 3, 1, 1, 1], [10, 3, 1, 1, 1]],
    ),
    (
        "asym_7x1",
        [2, 4, 16, 8],
        &[[9, 7, 1, 3, 1], [8, 1, 1, 0, 1]],
    ),
];

/// Small problems (forward-view fields; each direction runs them as its own) from which every
/// pool member takes the first it admits for [`every_pool_member_runs_under_host_emulation`]:
/// every group regime from depthwise to dense, channel multipliers, pointwise, stride 2,
/// 7×7, 1D and 3D, ordered from the cheapest to emulate.
const COVERAGE_PROBLEMS: &[&str] = &[
    "n1_g16_c16_k16_i9x10_f3x3_s1x1_p1x1_d1x1",
    "n1_g16_c16_k16_i13x14_f3x3_s2x2_p1x1_d1x1",
    "n1_g16_c16_k32_i9x9_f3x3_s1x1_p1x1_d1x1",
    "n1_g8_c16_k16_i9x9_f3x3_s1x1_p1x1_d1x1",
    "n1_g4_c16_k16_i9x9_f3x3_s1x1_p1x1_d1x1",
    "n1_g16_c16_k16_i40_f5_s1_p2_d1",
    "n1_g16_c16_k16_i14x14_f7x7_s1x1_p3x3_d1x1",
    "n1_g16_c16_k16_i12x12_f5x5_s2x2_p2x2_d1x1",
    "n1_g16_c16_k16_i4x6x6_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    "n1_g4_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1",
    "n1_g4_c32_k32_i12x12_f3x3_s2x2_p1x1_d1x1",
    "n1_g4_c32_k32_i4x6x6_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    "n1_g2_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1",
    "n1_g2_c64_k64_i9x9_f3x3_s1x1_p1x1_d1x1",
    "n1_g2_c64_k64_i12x12_f3x3_s2x2_p1x1_d1x1",
    "n1_g1_c64_k64_i8x8_f3x3_s1x1_p1x1_d1x1",
    "n1_g2_c128_k128_i8x8_f1x1_s1x1_p0x0_d1x1",
    "n1_g1_c128_k128_i8x8_f1x1_s1x1_p0x0_d1x1",
    "n1_g2_c128_k128_i8x8_f3x3_s1x1_p1x1_d1x1",
    "n1_g2_c256_k256_i8x8_f1x1_s1x1_p0x0_d1x1",
    "n1_g2_c256_k256_i8x8_f3x3_s1x1_p1x1_d1x1",
    "n1_g1_c256_k256_i8x8_f3x3_s1x1_p1x1_d1x1",
    "n2_g16_c16_k16_i30x60_f3x3_s1x1_p1x1_d1x1",
    "n2_g16_c16_k16_i56x56_f7x7_s1x1_p3x3_d1x1",
    "n2_g32_c32_k32_i12x12x12_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    "n2_g1_c256_k512_i16x16_f3x3_s1x1_p1x1_d1x1",
    // C/G 16 and 8 in blocks of 64 channels: the TMA-fed merged backward-weight tiles (gm4, gm8)
    "n1_g8_c128_k128_i8x8_f3x3_s1x1_p1x1_d1x1",
    "n1_g16_c128_k128_i8x8_f3x3_s1x1_p1x1_d1x1",
];

/// The kernels the case tables of the other tests run (clean, each on its own problems).
fn kernels_of_the_case_tables() -> std::collections::HashSet<&'static str> {
    [
        CASES,
        IGEMM_CASES,
        IGEMM_TMA_CASES,
        IGEMM_DGRAD_CASES,
        IGEMM_WGRAD_CASES,
        IGEMM_WGRAD_CLUSTER_CASES,
        MMA_CASES,
        DEPTH_STREAM_CASES,
        DGRAD_CASES,
        WGRAD_CASES,
        WGRAD_MMA_CASES,
        WGRAD_BANDED_CASES,
        FWD_BANDED_CASES,
        WGRAD_STREAM_CASES,
    ]
    .iter()
    .flat_map(|table| table.iter().map(|(_, kernel, _)| *kernel))
    .collect()
}

/// For every member of every pool (bf16 and f32, each direction; the f16 members are their
/// bf16 twins with another element type, which the cases above run) that no case table runs
/// already, a job on the first of [`COVERAGE_PROBLEMS`] in that direction that it admits; the
/// members (of all of them) that admit none; and how many members there are.
fn pool_coverage_jobs() -> (Vec<Job>, Vec<String>, usize) {
    let named = kernels_of_the_case_tables();
    let mut jobs = Vec::new();
    let mut uncovered = Vec::new();
    let mut members = 0;
    for direction in Direction::ALL {
        for dtype in [DType::Bf16, DType::F32] {
            let problems: Vec<Problem> = COVERAGE_PROBLEMS
                .iter()
                .map(|fields| {
                    format!("{}_{}_{fields}", direction.token(), dtype.token())
                        .parse()
                        .unwrap_or_else(|e| panic!("{fields}: {e}"))
                })
                .collect();
            for cfg in pool(direction, dtype, Families::All) {
                members += 1;
                match problems.iter().find(|p| can_implement(&cfg, p).is_ok()) {
                    Some(_) if named.contains(cfg.to_string().as_str()) => {}
                    Some(p) => jobs.push(Job {
                        label: "pool".into(),
                        cfg,
                        problem: *p,
                        mutation: Mutation::None,
                        eager_copies: false,
                    }),
                    None => uncovered.push(cfg.to_string()),
                }
            }
        }
    }
    (jobs, uncovered, members)
}

/// Every pool member admits one of the coverage problems, so that
/// [`every_pool_member_runs_under_host_emulation`] leaves none out (no g++ needed).
#[test]
fn every_pool_member_has_a_coverage_problem() {
    let (jobs, uncovered, members) = pool_coverage_jobs();
    assert!(
        uncovered.is_empty(),
        "{} pool member(s) admit none of COVERAGE_PROBLEMS (add a problem they run):\n{}",
        uncovered.len(),
        uncovered.join("\n")
    );
    assert!(members > 300, "only {members} bf16 and f32 pool members");
    println!(
        "{members} bf16 and f32 pool members: {} emulated here, the rest by the case tables",
        jobs.len()
    );
    let mut per_problem = std::collections::BTreeMap::<String, usize>::new();
    for j in &jobs {
        *per_problem.entry(j.problem.to_string()).or_default() += 1;
    }
    for (p, n) in per_problem {
        println!("{n:4} members on {p}");
    }
}

/// Every member of every bf16 and f32 pool, emulated on the first coverage problem it admits
/// and compared with the reference: whatever `auto` or a user can pick from the pools has run
/// its CUDA C++ at least once before it costs device time.
#[test]
fn every_pool_member_runs_under_host_emulation() {
    let test = "every_pool_member_runs_under_host_emulation";
    if skip_without_cxx(test) {
        return;
    }
    let dir = work_dir(test);
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let (mut jobs, ..) = pool_coverage_jobs();
    // A developer's filter for one new member: the default (unset) runs every member.
    if let Ok(only) = std::env::var("GCONV_EMU_KERNELS") {
        jobs.retain(|j| j.cfg.to_string().contains(&only));
        println!("GCONV_EMU_KERNELS={only}: {} member(s)", jobs.len());
    }
    run_and_assert("every pool member", &jobs, &dir, asan, (jobs.len(), 0));
}

/// Every config of `direct_forward_pool` (all dtypes) on every selftest forward case it can
/// implement: the cases `gconv selftest --gpu` will run on the H200. Slow (a few hundred
/// compiles): `cargo test --release -p gconv-kernels --test host_emulation -- --ignored`.
#[test]
#[ignore]
fn direct_pool_on_the_selftest_matrix() {
    direct_pool_on_selftest_cases(Direction::Fwd, "direct_pool_on_the_selftest_matrix", 100);
}

/// The same matrix as backward data: every config of the direct dgrad pool (all dtypes) on
/// every selftest case, as a dgrad problem, that it can implement (stride-1 cases through the
/// dual, strided ones on the stride-phase kernel). Slow, `--ignored`.
#[test]
#[ignore]
fn direct_dgrad_pool_on_the_selftest_matrix() {
    direct_pool_on_selftest_cases(
        Direction::Dgrad,
        "direct_dgrad_pool_on_the_selftest_matrix",
        100,
    );
}

/// Every direct pool config of `direction` (all dtypes) on every [`SELFTEST_CASES`] case, in
/// that direction, that it can implement; at least `min_jobs` pairs.
fn direct_pool_on_selftest_cases(direction: Direction, test: &str, min_jobs: usize) {
    if skip_without_cxx(test) {
        return;
    }
    let dir = work_dir(test);
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let col = |rows: &[[i64; 5]], i: usize| rows.iter().map(|r| r[i]).collect::<Vec<i64>>();
    let mut jobs = Vec::new();
    for dt in DType::ALL {
        for (label, [n, g, c, k], rows) in SELFTEST_CASES {
            let p = Problem::new(
                direction,
                dt,
                *n,
                *g,
                *c,
                *k,
                &col(rows, 0),
                &col(rows, 1),
                &col(rows, 2),
                &col(rows, 3),
                &col(rows, 4),
            )
            .unwrap_or_else(|e| panic!("{label}: {e}"));
            for cfg in pool(direction, dt, Families::Only(Family::Direct)) {
                if can_implement(&cfg, &p).is_ok() {
                    jobs.push(Job {
                        label: label.to_string(),
                        cfg,
                        problem: p,
                        mutation: Mutation::None,
                        eager_copies: false,
                    });
                }
            }
        }
    }
    assert!(
        jobs.len() >= min_jobs,
        "only {} jobs: the direct pool no longer covers the matrix",
        jobs.len()
    );
    let (outcomes, secs, threads) = run_all(&jobs, &dir, asan);
    let mut errors = Vec::new();
    for (_, o) in &outcomes {
        match &o.result {
            Ok((true, ..)) => {}
            Ok((false, abs, rel, bad)) => errors.push(format!(
                "{} {} {}  max_abs {abs:.2e} max_rel {rel:.2e} ({bad} bad)",
                o.label, o.kernel, o.problem
            )),
            Err(e) => errors.push(format!("{} {} {}  ERROR {e}", o.label, o.kernel, o.problem)),
        }
    }
    let worst = outcomes
        .iter()
        .filter_map(|(_, o)| o.result.as_ref().ok().map(|r| r.2))
        .fold(0.0f64, f64::max);
    println!(
        "{test}: {} of {} passed (worst max_rel {worst:.2e}); AddressSanitizer {}; {secs:.1} s on {threads} thread(s)",
        outcomes.len() - errors.len(),
        outcomes.len(),
        if asan { "on" } else { "unavailable" },
    );
    assert!(errors.is_empty(), "failures:\n{}", errors.join("\n"));
}

/// Builds a hand-written kernel (`body` defines `kernel` and `report`) against the shim, runs
/// one block of `threads` threads with `smem` bytes of shared memory, then `report()`; returns
/// whether the program succeeded, its stdout and its stderr. A program still running after
/// 60 s (a hang, not an abort) fails the test.
fn build_and_run_kernel(
    dir: &Path,
    name: &str,
    body: &str,
    threads: u32,
    smem: usize,
) -> (bool, String, String) {
    let cpp = dir.join(format!("{name}.cpp"));
    let exe = dir.join(name);
    let text = format!(
        "#include \"host_shim.h\"\n{body}\nint main() {{\n  \
         gconv_host_launch(kernel, dim3{{1, 1, 1}}, dim3{{{threads}, 1, 1}}, {smem}, nullptr, \
         nullptr, nullptr, nullptr);\n  report();\n  return 0;\n}}\n"
    );
    std::fs::write(&cpp, text).expect("write the source");
    build_without_asan(&cpp, &exe);
    let mut child = Command::new(&exe)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run the program");
    let start = std::time::Instant::now();
    while child.try_wait().expect("poll the program").is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{name}: still running after 60 s (a hang, not an abort)");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let run = child.wait_with_output().expect("collect the output");
    (
        run.status.success(),
        String::from_utf8_lossy(&run.stdout).into_owned(),
        String::from_utf8_lossy(&run.stderr).into_owned(),
    )
}

/// The shim's wgmma without swizzle (K-major core matrices of 8 rows x 16 bytes): one
/// `m64n8k16` whose A rows are consecutive 16-byte "pixels" of a plane and whose two k8 halves
/// are 28 pixels apart (a tap pair's descriptor in the C/G 8 prototype of
/// `results/h100/s41/proto`, verified on an H100), against a product computed here from the
/// same values; and the two byte offsets exchanged, which must read other values (the test can
/// fail).
#[test]
fn the_shim_reads_unswizzled_wgmma_operands_as_the_hardware_does() {
    let test = "the_shim_reads_unswizzled_wgmma_operands_as_the_hardware_does";
    if skip_without_cxx(test) {
        return;
    }
    let dir = work_dir(test);
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    // Plane: 1200 pixels of 8 bf16 at byte 0; B: two core matrices (k 0-7, k 8-15) at byte
    // 19200. Small integers, so every product and sum is exact in f32.
    let body = |lbo: &str, sbo: &str| {
        format!(
            "static float out[64 * 8];\n\
             static float plane(int i) {{ return (float)((i * 7) % 13 - 6); }}\n\
             static float wmat(int i) {{ return (float)((i * 5) % 11 - 5); }}\n\
             static unsigned long long desc(unsigned start, unsigned lbo, unsigned sbo) {{\n  \
             return (unsigned long long)(start >> 4) | ((unsigned long long)(lbo >> 4) << 16) |\n    \
             ((unsigned long long)(sbo >> 4) << 32);\n}}\n\
             void kernel(const void*, const void*, void*, void*) {{\n  \
             const unsigned t = threadIdx.x, w = t / 32, l = t % 32;\n  \
             if (t == 0) {{\n    \
             for (int i = 0; i < 1200 * 8; ++i) {{\n      \
             unsigned short v = gconv_host_f32_to_bf16(plane(i));\n      \
             std::memcpy(gconv_host_smem + 2 * i, &v, 2);\n    }}\n    \
             for (int i = 0; i < 128; ++i) {{\n      \
             unsigned short v = gconv_host_f32_to_bf16(wmat(i));\n      \
             std::memcpy(gconv_host_smem + 19200 + 2 * i, &v, 2);\n    }}\n  }}\n  \
             __syncthreads();\n  \
             float d[4] = {{0.f, 0.f, 0.f, 0.f}};\n  \
             gconv_host_wgmma(d, 4, desc(100 * 16, {lbo}, {sbo}), desc(19200, 128, 128), true, false, false);\n  \
             gconv_host_wgmma_commit();\n  gconv_host_wgmma_wait(0);\n  \
             for (int e = 0; e < 4; ++e) out[(16 * w + l / 4 + (e >= 2 ? 8 : 0)) * 8 + 2 * (l % 4) + e % 2] = d[e];\n}}\n\
             void report() {{\n  int bad = 0;\n  \
             for (int m = 0; m < 64; ++m) {{\n    for (int n = 0; n < 8; ++n) {{\n      \
             float s = 0.f;\n      \
             for (int k = 0; k < 16; ++k) s += plane((100 + m + (k / 8) * 28) * 8 + k % 8) * wmat((k / 8) * 64 + n * 8 + k % 8);\n      \
             if (out[m * 8 + n] != s) ++bad;\n    }}\n  }}\n  \
             std::printf(\"bad %d\\n\", bad);\n}}"
        )
    };
    let (ok, out, err) =
        build_and_run_kernel(&dir, "unswizzled", &body("28 * 16", "128"), 128, 20000);
    assert!(ok, "unswizzled wgmma: {err}");
    assert_eq!(
        out.trim(),
        "bad 0",
        "the unswizzled operands as verified on the hardware"
    );
    let (ok, out, err) = build_and_run_kernel(
        &dir,
        "unswizzled_swapped",
        &body("128", "28 * 16"),
        128,
        20000,
    );
    assert!(ok, "unswizzled wgmma, offsets exchanged: {err}");
    assert_ne!(
        out.trim(),
        "bad 0",
        "exchanged offsets must read other values: {out}"
    );
}

/// The shim's own scheduling, on hand-written kernels: a launch where some threads leave
/// before a `__syncthreads` the others wait at, and one whose threads wait on an mbarrier
/// nobody arrives at, abort naming a deadlock (instead of hanging); and between two barriers
/// the threads run in ascending, then descending order (a kernel records the order in which
/// its threads pass two phases), so that a missing barrier is caught whichever side of it the
/// writing thread is on.
#[test]
fn the_shim_aborts_deadlocks_and_turns_its_order_round() {
    let test = "the_shim_aborts_deadlocks_and_turns_its_order_round";
    if skip_without_cxx(test) {
        return;
    }
    let dir = work_dir(test);
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let build_and_run = |name: &str, body: &str| build_and_run_kernel(&dir, name, body, 64, 64);
    let (ok, _, err) = build_and_run(
        "early_exit",
        "void kernel(const void*, const void*, void*, void*) {\n  \
         if (threadIdx.x >= 16) return;\n  __syncthreads();\n}\nvoid report() {}",
    );
    assert!(
        !ok && err.contains("deadlock"),
        "threads left before a barrier: {err}"
    );
    let (ok, _, err) = build_and_run(
        "mbarrier_never_arrived",
        "void kernel(const void*, const void*, void*, void*) {\n  \
         if (threadIdx.x == 0) gconv_host_mbar_init(0, 1);\n  __syncthreads();\n  \
         gconv_host_mbar_wait(0, 0);\n}\nvoid report() {}",
    );
    assert!(
        !ok && err.contains("deadlock"),
        "a wait on an mbarrier nobody arrives at: {err}"
    );
    let (ok, out, err) = build_and_run(
        "order",
        "static unsigned order[2][64];\nstatic unsigned next[2];\n\
         void kernel(const void*, const void*, void*, void*) {\n  \
         __syncthreads();\n  order[0][next[0]++] = threadIdx.x;\n  \
         __syncthreads();\n  order[1][next[1]++] = threadIdx.x;\n}\n\
         void report() {\n  for (int p = 0; p < 2; ++p) {\n    \
         for (int i = 0; i < 64; ++i) std::printf(\"%u \", order[p][i]);\n    \
         std::printf(\"\\n\");\n  }\n}",
    );
    assert!(ok, "order: {err}");
    let phases: Vec<Vec<u32>> = out
        .lines()
        .map(|l| {
            l.split_whitespace()
                .map(|v| v.parse().expect("a thread index"))
                .collect()
        })
        .collect();
    assert_eq!(phases.len(), 2, "{out}");
    // Each phase starts from the thread the barrier released, then walks one way round.
    let walks = |p: &[u32], step: i64| {
        p.windows(2)
            .all(|w| (i64::from(w[1]) - i64::from(w[0]) - step).rem_euclid(64) == 0)
    };
    let (first, second) = (&phases[0], &phases[1]);
    assert!(
        walks(first, 1) != walks(first, -1) && walks(second, 1) != walks(second, -1),
        "each phase in one thread order: {out}"
    );
    assert_ne!(
        walks(first, 1),
        walks(second, 1),
        "the order turns round between phases: {out}"
    );
}

/// Every config of `direct_forward_pool(bf16)` on every forward depthwise layer of the model zoo
/// (`configs/problems/depthwise_fwd.txt`) with the batch cut to N = 1: real spatial extents and
/// channel counts (up to 18 channel slices), emulated. Slow:
/// `cargo test --release -p gconv-kernels --test host_emulation -- --ignored`.
#[test]
#[ignore]
fn direct_pool_on_the_depthwise_zoo_layers_n1() {
    if skip_without_cxx("direct_pool_on_the_depthwise_zoo_layers_n1") {
        return;
    }
    let dir = work_dir("direct_pool_on_the_depthwise_zoo_layers_n1");
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    let asan = asan_available(&dir);
    let text = include_str!("../../../configs/problems/depthwise_fwd.txt");
    let problems = gconv_problem::parse_problems_text("problems_depthwise_fwd", text)
        .expect("configs/problems/depthwise_fwd.txt parses");
    let mut jobs = Vec::new();
    for p in problems {
        let p = Problem { n: 1, ..p };
        for cfg in direct_forward_pool(p.dtype) {
            if can_implement(&cfg, &p).is_ok() {
                jobs.push(Job {
                    label: "zoo_n1".to_string(),
                    cfg,
                    problem: p,
                    mutation: Mutation::None,
                    eager_copies: false,
                });
            }
        }
    }
    assert!(
        jobs.len() >= 100,
        "only {} jobs: the direct pool no longer covers the matrix",
        jobs.len()
    );
    let (outcomes, secs, threads) = run_all(&jobs, &dir, asan);
    let mut errors = Vec::new();
    for (_, o) in &outcomes {
        match &o.result {
            Ok((true, ..)) => {}
            Ok((false, abs, rel, bad)) => errors.push(format!(
                "{} {}  max_abs {abs:.2e} max_rel {rel:.2e} ({bad} bad)",
                o.kernel, o.problem
            )),
            Err(e) => errors.push(format!("{} {}  ERROR {e}", o.kernel, o.problem)),
        }
    }
    let worst = outcomes
        .iter()
        .filter_map(|(_, o)| o.result.as_ref().ok().map(|r| r.2))
        .fold(0.0f64, f64::max);
    println!(
        "direct pool on the depthwise zoo layers (N=1): {} of {} passed (worst max_rel {worst:.2e}); AddressSanitizer {}; {secs:.1} s on {threads} thread(s)",
        outcomes.len() - errors.len(),
        outcomes.len(),
        if asan { "on" } else { "unavailable" },
    );
    assert!(errors.is_empty(), "failures:\n{}", errors.join("\n"));
}

/// The portable conversions that replace inline PTX under `GCONV_HOST_EMULATION`
/// (`f32_to_bf16`, `f32_to_f16`: round to nearest even; `f16_to_f32`: exact) are bit-exact
/// against the `half` crate (through `HostTensor`): every f16 bit pattern, special and
/// boundary f32 values (zeros, infinities, NaN, f16 overflow and subnormal thresholds, ties)
/// and 200k random f32 bit patterns. NaN only has to stay NaN.
#[test]
fn host_conversions_are_bit_exact() {
    use gconv_problem::tensor::SplitMix64;
    use gconv_problem::DType;
    if skip_without_cxx("host_conversions_are_bit_exact") {
        return;
    }
    let dir = work_dir("host_conversions_are_bit_exact");
    std::fs::create_dir_all(&dir).expect("create the emulation work directory");
    // Any direct kernel source carries the helpers.
    let cfg: KernelConfig = A.parse().expect("kernel name");
    let p: Problem = "fwd_bf16_n1_g8_c8_k8_i4x4_f3x3_s1x1_p1x1_d1x1"
        .parse()
        .expect("problem key");
    let src = emit(&cfg, &p).expect("emit");
    let main = r#"
int main(int argc, char** argv) {
  if (argc != 4) return 2;
  FILE* f = std::fopen(argv[1], "rb");
  if (!f) return 2;
  std::fseek(f, 0, SEEK_END);
  const long n = std::ftell(f) / 4;
  std::fseek(f, 0, SEEK_SET);
  std::vector<u32> in(n);
  if (std::fread(in.data(), 4, n, f) != (size_t)n) return 2;
  std::fclose(f);
  std::vector<u16> bf(n), hf(n);
  for (long i = 0; i < n; ++i) {
    bf[i] = f32_to_bf16(bits_f32(in[i]));
    hf[i] = f32_to_f16(bits_f32(in[i]));
  }
  std::vector<u32> widened(65536);
  for (u32 h = 0; h < 65536; ++h) widened[h] = f32_bits(f16_to_f32((u16)h));
  FILE* o = std::fopen(argv[2], "wb");
  std::fwrite(bf.data(), 2, n, o);
  std::fwrite(hf.data(), 2, n, o);
  std::fclose(o);
  FILE* w = std::fopen(argv[3], "wb");
  std::fwrite(widened.data(), 4, 65536, w);
  std::fclose(w);
  return 0;
}
"#;
    let cpp = dir.join("conversions.cpp");
    let exe = dir.join("conversions");
    std::fs::write(
        &cpp,
        format!("#include \"host_shim.h\"\n{}\n{main}", src.code),
    )
    .expect("write source");
    build_without_asan(&cpp, &exe);
    let mut bits: Vec<u32> = vec![
        0x0000_0000,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0xffc0_1234,
        0x7f7f_ffff,
        0x0000_0001,
        0x0080_0000,
        0x477f_e000,
        0x477f_efff,
        0x477f_f000,
        0x477f_f001,
        0x4780_0000,
        0x3880_0000,
        0x387f_ffff,
        0x3300_0000,
        0x3300_0001,
        0x3280_0000,
        0x3380_0000,
        0x33c0_0000,
        0x3f80_8000,
        0x3f81_8000,
        0x3f80_7fff,
        0x3f80_8001,
        0x3f80_1000,
        0x3f80_3000,
        0xbf80_1000,
        0x7f7f_8000,
    ];
    // Ties and neighbours at every exponent: f16 (13 dropped bits) and bf16 (16 dropped bits).
    for e in 0u32..255 {
        for m in [
            0x1000u32, 0x3000, 0x0fff, 0x1001, 0x8000, 0x1_8000, 0x7fff, 0x8001,
        ] {
            bits.push((e << 23) | m);
            bits.push(0x8000_0000 | (e << 23) | m);
        }
    }
    let mut rng = SplitMix64::new(0x5eed);
    for _ in 0..200_000 {
        bits.push(rng.next_u64() as u32);
    }
    let fin = dir.join("conversions.in");
    let fout = dir.join("conversions.out");
    let fwide = dir.join("conversions.wide");
    std::fs::write(
        &fin,
        bits.iter()
            .flat_map(|b| b.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .expect("write input");
    let run = Command::new(&exe)
        .arg(&fin)
        .arg(&fout)
        .arg(&fwide)
        .status()
        .expect("run");
    assert!(run.success(), "conversion program failed");
    let got = std::fs::read(&fout).expect("read output");
    let n = bits.len();
    assert_eq!(got.len(), 4 * n);
    let u16s = |b: &[u8]| -> Vec<u16> {
        b.chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect()
    };
    let (got_bf, got_hf) = (u16s(&got[..2 * n]), u16s(&got[2 * n..]));
    let floats: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
    let mut bad = Vec::new();
    for (dt, got, exp_nan, mant) in [
        (DType::Bf16, &got_bf, 0x7f80u16, 0x007fu16),
        (DType::F16, &got_hf, 0x7c00u16, 0x03ffu16),
    ] {
        let want = u16s(&HostTensor::from_f32(dt, &floats).to_bytes());
        for i in 0..n {
            let is_nan = |h: u16| h & exp_nan == exp_nan && h & mant != 0;
            let ok = if floats[i].is_nan() {
                is_nan(got[i])
            } else {
                got[i] == want[i]
            };
            if !ok && bad.len() < 20 {
                bad.push(format!(
                    "{dt}: {:#010x} -> {:#06x}, want {:#06x}",
                    bits[i], got[i], want[i]
                ));
            }
        }
    }
    let wide = std::fs::read(&fwide).expect("read widened");
    let all_f16: Vec<u8> = (0..=u16::MAX).flat_map(|h| h.to_le_bytes()).collect();
    let want = HostTensor::from_bytes(DType::F16, &all_f16)
        .expect("f16 bytes")
        .to_f32();
    for (h, w) in want.iter().enumerate() {
        let g = u32::from_le_bytes([
            wide[4 * h],
            wide[4 * h + 1],
            wide[4 * h + 2],
            wide[4 * h + 3],
        ]);
        let ok = if w.is_nan() {
            f32::from_bits(g).is_nan()
        } else {
            g == w.to_bits()
        };
        if !ok && bad.len() < 40 {
            bad.push(format!(
                "f16 {h:#06x} -> {g:#010x}, want {:#010x}",
                w.to_bits()
            ));
        }
    }
    println!(
        "host conversions: {} f32 values to bf16 and f16, 65536 f16 values to f32: {} mismatches",
        n,
        bad.len()
    );
    assert!(bad.is_empty(), "mismatches:\n{}", bad.join("\n"));
}
