//! Compiles every config of the default igemm pools (every direction with a pool, all dtypes)
//! with NVRTC to an sm_90 CUBIN, each on a representative problem it can implement (the forward
//! keys below in the config's direction, plus a strided one), and every config of the direct
//! forward pool on each of the direct problems (depthwise 3×3 and 7×7, a channel multiplier,
//! C/G = 4, a 3D depthwise layer) that it can implement, printing registers, spills and compile
//! time per kernel and a count line; and every config of the direct backward-data pool on the
//! first two of the direct problems, as dgrad problems, that it can run, and every CUDA-core one
//! and every tensor-core one without group merge, depth streaming or a banded tile also on the
//! first strided dgrad problem it can run (the stride-phase kernels). Fails on any
//! compile error, when an igemm config runs none of its representative problems, or when a
//! direct config runs fewer than 2 of the direct problems (forward or dgrad), or when ptxas
//! reports a performance loss (wgmma serialised by the code around it). Kernels outside the
//! pools that are reachable by name (`OFF_POOL`: the banded depthwise forward kernel, a
//! depth-streaming kernel, halo tiles and problems beyond the pool's, the cluster split of the
//! streaming depthwise wgrad kernel and of igemm wgrad, the TMA-fed wgmma, with group merge in
//! backward weight too) are compiled on their
//! own problem.
//! Needs only NVRTC, no GPU.
//!
//! When libnvrtc cannot be loaded it prints `SKIPPED: ...` and passes; `GCONV_REQUIRE_NVRTC=1`
//! turns the skip into a failure. `GCONV_COMPILE_THREADS` sets the worker threads (default: the
//! available parallelism, at most 4).

use gconv_cuda::nvrtc::{compile_cubin, nvrtc_version, CompileOptions};
use gconv_kernels::catalogue::{directions_with_pools, pool, Families};
use gconv_kernels::{admit, Family, KernelConfig, KernelSource, Rejection, Target};
use gconv_problem::{DType, Direction, Problem};

/// Both gates, through the one admission step.
fn can_implement(cfg: &KernelConfig, p: &Problem) -> Result<(), Rejection> {
    admit(cfg, p, &Target::H200).map(|_| ())
}

/// The generated module of an admitted pair.
fn emit(cfg: &KernelConfig, p: &Problem) -> Result<KernelSource, Rejection> {
    admit(cfg, p, &Target::H200).map(|a| a.emit())
}
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Representative problems, tried in order; `{dt}` is replaced by the dtype token.
const CANDIDATES: &[&str] = &[
    "fwd_{dt}_n4_g1_c128_k128_i28x28_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n4_g1_c128_k128_i28x28_f1x1_s1x1_p0x0_d1x1",
    "fwd_{dt}_n4_g32_c32_k32_i28x28_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n4_g32_c128_k128_i28x28_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n4_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n4_g32_c512_k512_i28x28_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n4_g32_c1024_k1024_i14x14_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n4_g8_c256_k256_i28x28_f3x3_s2x2_p1x1_d1x1",
];

/// A forward key template in a direction (`fwd_` replaced by the direction's token).
fn in_direction(key: &str, dt: DType, direction: Direction) -> String {
    key.replace("{dt}", dt.token())
        .replacen("fwd_", &format!("{}_", direction.token()), 1)
}

/// Problems every direct pool config is compiled on when it can run them (each config must
/// run at least 2): depthwise 3×3 and 7×7, a channel multiplier, C/G = 4 3×3 and 5×5 (the
/// grouped vector path, and the group-merged tensor-core members), a 3D depthwise layer; for the tensor-core (mma) members C/G 8, 16, 24, 32 and 56
/// layers and two 3D C/G 8 layers (the depth-streaming members run only 3D layers).
const DIRECT_PROBLEMS: &[&str] = &[
    "fwd_{dt}_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n32_g144_c144_k144_i56x56_f7x7_s1x1_p3x3_d1x1",
    "fwd_{dt}_n8_g32_c32_k64_i56x56_f3x3_s2x2_p1x1_d1x1",
    "fwd_{dt}_n8_g32_c128_k128_i28x28_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n8_g16_c64_k64_i28x28_f5x5_s1x1_p2x2_d1x1",
    "fwd_{dt}_n4_g128_c128_k128_i16x32x32_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    "fwd_{dt}_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n32_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n32_g2_c48_k48_i56x56_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n32_g14_c336_k336_i14x14_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n32_g8_c448_k448_i14x14_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    "fwd_{dt}_n2_g16_c128_k128_i6x14x14_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
];

/// Direct problems (as dgrad) each direct dgrad pool member is compiled on, and must run.
const DGRAD_PER_CONFIG: usize = 2;

/// Backward-data problems without a forward dual (the stride-phase kernel, CUDA cores): every
/// simt dgrad member is compiled on the first of them it can run, and must run one. The
/// depthwise s2 target layers, a strided channel multiplier, 1D and 3D.
const DGRAD_PHASE_PROBLEMS: &[&str] = &[
    "dgrad_{dt}_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
    "dgrad_{dt}_n32_g576_c576_k576_i14x14_f3x3_s2x2_p1x1_d1x1",
    "dgrad_{dt}_n8_g32_c32_k64_i56x56_f3x3_s2x2_p1x1_d1x1",
    "dgrad_{dt}_n8_g32_c32_k32_i99_f5_s2_p2_d1",
    "dgrad_{dt}_n4_g32_c32_k32_i8x16x16_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
];

/// Backward-data problems without a forward dual for the tensor-core stride-phase kernel:
/// every mma dgrad member without group merge, depth streaming or a banded tile is compiled
/// on the first it can run, and must run one. The real client's stride-2 layers (G 4 112²,
/// G 32 C512 28², G 9 56²), a 3D stride-2 C/G 8 layer, 1×1 stride 2.
const DGRAD_PHASE_MMA_PROBLEMS: &[&str] = &[
    "dgrad_{dt}_n64_g4_c64_k64_i112x112_f3x3_s2x2_p1x1_d1x1",
    "dgrad_{dt}_n64_g32_c512_k512_i28x28_f3x3_s2x2_p1x1_d1x1",
    "dgrad_{dt}_n64_g9_c144_k144_i56x56_f3x3_s2x2_p1x1_d1x1",
    "dgrad_{dt}_n8_g32_c256_k256_i8x28x28_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
    "dgrad_{dt}_n8_g8_c64_k64_i28x28_f1x1_s2x2_p0x0_d1x1",
];

/// Backward-weight problems each direct wgrad pool member is compiled on (the first
/// WGRAD_PER_CONFIG it can run, and it must run that many): the zoo's depthwise 3×3 (stride 1
/// and 2), 5×5, 7×7 and 3D layers, a large filter, a channel multiplier, C/G 4 (the zoo's and a
/// small strided one with tails), a 1D layer, and (the tensor-core members) the zoo's C/G 24, 8,
/// 16 and 32 layers and its 3D C/G 8 layer.
const WGRAD_DIRECT_PROBLEMS: &[&str] = &[
    "wgrad_{dt}_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1",
    "wgrad_{dt}_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
    "wgrad_{dt}_n32_g240_c240_k240_i28x28_f5x5_s1x1_p2x2_d1x1",
    "wgrad_{dt}_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1",
    "wgrad_{dt}_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    "wgrad_{dt}_n16_g256_c256_k256_i28x28_f13x13_s1x1_p6x6_d1x1",
    "wgrad_{dt}_n16_g64_c64_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
    "wgrad_{dt}_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
    "wgrad_{dt}_n4_g6_c24_k24_i13x10_f3x3_s2x1_p1x1_d1x1",
    "wgrad_{dt}_n16_g512_c512_k512_i2048_f4_s1_p3_d1",
    "wgrad_{dt}_n32_g14_c336_k336_i14x14_f3x3_s1x1_p1x1_d1x1",
    "wgrad_{dt}_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    "wgrad_{dt}_n32_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1",
    "wgrad_{dt}_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
    "wgrad_{dt}_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
];

/// Direct wgrad problems per member.
const WGRAD_PER_CONFIG: usize = 2;

/// Kernels outside the pools that are reachable by name and trait config, each compiled on
/// its problem: the banded tensor-core depthwise forward kernel (`direct::fwd_banded`), plain
/// and pipelined, forward and backward data, bf16 and f16, one to four row blocks; and a
/// depth-streaming tensor-core kernel (`stages = 3`) outside the pool's: a 5-deep filter, merged
/// groups, f16; the cluster split of the streaming depthwise wgrad kernel and of igemm wgrad.
const OFF_POOL: &[(&str, &str)] = &[
    // The cluster split of igemm wgrad (`sk{n}c`): warp-specialised wgmma at 7 slices (the C/G
    // 128 zoo key), mma at 4 (C/G 32 7x7), f32 CUDA cores with merged groups at 2.
    (
        "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk7c_wgmmaws_gen",
        "wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t32x64x32_w2x2_s4_v8x8_gm1_sk4c_mma_gen",
        "wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_f32_t64x64x16_w2x2_s4_v4x4_gm4_sk2c_simt_gen",
        "wgrad_f32_n8_g64_c256_k256_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    // The cluster split of the streaming depthwise wgrad kernel (`sk{n}c`: the cluster
    // barrier and distributed shared-memory reads), bf16 at 8 slabs and f32 at 4.
    (
        "direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x1_gm1_sk8c_simt_gen",
        "wgrad_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_wgrad_f32_t7x32x7_w8x1_s1_v4x2_gm1_sk4c_simt_gen",
        "wgrad_f32_n8_g192_c192_k192_i14x14_f7x7_s1x1_p3x3_d1x1",
    ),
    // ... and at 16 slabs, a non-portable cluster
    (
        "direct_wgrad_bf16_t7x64x7_w8x1_s1_v2x3_gm1_sk16c_simt_gen",
        "wgrad_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_fwd_f16_t112x32x16_w8x1_s3_v8x4_gm2_sk1d_mma_gen",
        "fwd_f16_n2_g16_c64_k64_i6x14x14_f5x3x3_s1x1x1_p2x1x1_d1x1x1",
    ),
    (
        "direct_fwd_bf16_t1024x16x64_w8x1_s1_v1x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "direct_fwd_bf16_t512x16x64_w8x1_s1_v1x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n32_g240_c240_k240_i28x28_f5x5_s1x1_p2x2_d1x1",
    ),
    (
        "direct_fwd_f16_t512x8x16_w8x1_s1_v1x1_gm1_sk1d_mma_gen",
        "fwd_f16_n32_g384_c384_k384_i14x14_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "direct_dgrad_bf16_t256x16x32_w4x1_s1_v1x1_gm1_sk1d_mma_gen",
        "dgrad_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "direct_dgrad_f16_t128x16x16_w4x1_s1_v1x2_gm1_sk1d_mma_gen",
        "dgrad_f16_n8_g64_c64_k64_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    // The igemm halo path beyond the pool's tiles and representative problems (stride 1,
    // wgmma): backward data with three warpgroups on the zoo's C/G 128 layer and f16 5×5 with
    // dilation over four 64-channel blocks; forward on the zoo's C/G 128 layer.
    (
        "igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_halo",
        "dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_dgrad_f16_t128x64x64_w8x1_s3_v8x8_gm1_sk1d_wgmma_halo",
        "dgrad_f16_n4_g1_c128_k256_i14x14_f5x5_s1x1_p4x4_d2x2",
    ),
    (
        "igemm_fwd_bf16_t256x64x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_halo",
        "fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    // The TMA-fed wgmma (`wgmmatma`, pointwise): forward on the zoo's grouped 1×1 layer, a
    // dense one of the real client, f16 with three warpgroups;
    (
        "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_pw",
        "fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "igemm_fwd_bf16_t256x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_pw",
        "fwd_bf16_n64_g1_c256_k128_i56x56_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "igemm_fwd_f16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmmatma_pw",
        "fwd_f16_n32_g1_c160_k160_i28x28_f1x1_s1x1_p0x0_d1x1",
    ),
    // ... backward data (the N-major weight tile in panels) and backward weight (the rule's
    // split-K) on the zoo's grouped 1×1 layer.
    (
        "igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_pw",
        "dgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk0d_wgmmatma_pw",
        "wgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
    ),
    // ... and through im2col copies: forward on the zoo's C/G 128 3×3 layer and a strided
    // one, backward data and backward weight on the C/G 128 layer.
    (
        "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_gen",
        "fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_fwd_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmmatma_gen",
        "fwd_bf16_n32_g1_c128_k256_i56x56_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmmatma_gen",
        "dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk0d_wgmmatma_gen",
        "wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    // ... and with group merge (backward weight only; session 32, not pooled yet): the zoo's
    // C/G 32 7×7 layer two groups a tile without a split (cuDNN's shape there) and at the
    // rule's degree; the real client's C/G 16 layer four groups a tile.
    (
        "igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm2_sk1d_wgmmatma_gen",
        "wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t64x128x64_w4x1_s4_v8x8_gm2_sk0d_wgmmatma_gen",
        "wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm4_sk0d_wgmmatma_gen",
        "wgrad_bf16_n64_g20_c320_k320_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    // ... with a tail block (G not a multiple of gm, `rules::merge_tail`): the real client's
    // G 49 and G 9 layers four groups a tile, and f16 C/G 8 eight groups a tile over 7 groups
    // (pointwise); mma.sync tails in every direction (G 49, the N-major backward-data weight
    // tile) and f32 CUDA cores (forward, 15 groups of 4 by eight).
    (
        "igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm4_sk0d_wgmmatma_gen",
        "wgrad_bf16_n64_g49_c784_k784_i14x14_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm4_sk0d_wgmmatma_gen",
        "wgrad_bf16_n64_g9_c144_k144_i56x56_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_f16_t64x64x64_w4x1_s4_v8x8_gm8_sk0d_wgmmatma_pw",
        "wgrad_f16_n32_g7_c56_k56_i28x28_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm4_sk0d_mma_gen",
        "wgrad_bf16_n64_g49_c784_k784_i14x14_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "igemm_dgrad_bf16_t128x64x64_w2x2_s3_v8x8_gm4_sk1d_mma_gen",
        "dgrad_bf16_n64_g49_c784_k784_i14x14_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "igemm_fwd_bf16_t128x64x64_w2x2_s3_v8x8_gm4_sk1d_mma_gen",
        "fwd_bf16_n64_g49_c784_k784_i14x14_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "igemm_fwd_f32_t128x32x32_w4x1_s3_v4x4_gm8_sk1d_simt_gen",
        "fwd_f32_n32_g15_c60_k60_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
];

fn representative(cfg: &KernelConfig) -> Option<Problem> {
    CANDIDATES.iter().find_map(|k| {
        let p: Problem = in_direction(k, cfg.dtype, cfg.direction).parse().ok()?;
        can_implement(cfg, &p).ok().map(|_| p)
    })
}

#[test]
fn default_pools_compile() {
    if let Err(e) = nvrtc_version() {
        if std::env::var_os("GCONV_REQUIRE_NVRTC").is_some_and(|v| v == "1") {
            panic!("NVRTC required (GCONV_REQUIRE_NVRTC=1) but unavailable: {e}");
        }
        println!("SKIPPED: default_pools_compile: libnvrtc not loadable: {e}");
        return;
    }
    let mut jobs = Vec::new();
    let mut errors = Vec::new();
    let directions = directions_with_pools(Families::All);
    for (direction, dt) in directions.iter().flat_map(|&d| DType::ALL.map(|t| (d, t))) {
        for cfg in pool(direction, dt, Families::Only(Family::Igemm)) {
            match representative(&cfg) {
                Some(p) => match emit(&cfg, &p) {
                    Ok(src) => jobs.push((p, src)),
                    Err(e) => errors.push(format!("{cfg} on {p}: emit rejected: {e}")),
                },
                None => errors.push(format!("{cfg}: runs none of the representative problems")),
            }
        }
    }
    let mut skipped = 0usize;
    for dt in DType::ALL {
        for cfg in pool(Direction::Fwd, dt, Families::Only(Family::Direct)) {
            let mut implemented = 0usize;
            for key in DIRECT_PROBLEMS {
                let p: Problem = match key.replace("{dt}", dt.token()).parse() {
                    Ok(p) => p,
                    Err(e) => {
                        errors.push(format!("{key}: {e}"));
                        continue;
                    }
                };
                // A problem the config cannot run (e.g. a double-buffered f32 3D halo over the
                // shared-memory limit) is skipped.
                if can_implement(&cfg, &p).is_err() {
                    skipped += 1;
                    continue;
                }
                implemented += 1;
                match emit(&cfg, &p) {
                    Ok(src) => jobs.push((p, src)),
                    Err(e) => errors.push(format!("{cfg} on {p}: emit rejected: {e}")),
                }
            }
            if implemented < 2 {
                errors.push(format!(
                    "{cfg}: runs only {implemented} of the direct problems"
                ));
            }
        }
    }
    // Backward data: every direct dgrad member (the forward members relabelled and the
    // stride-phase members, run on the stride-1 dual) on the first DGRAD_PER_CONFIG of the
    // direct problems, as dgrad problems, that it can run (the dgrad modules differ from the
    // forward ones in the weight staging).
    for dt in DType::ALL {
        for cfg in pool(Direction::Dgrad, dt, Families::Only(Family::Direct)) {
            let mut implemented = 0usize;
            for key in DIRECT_PROBLEMS {
                let p: Problem = match key.replace("{dt}", dt.token()).parse::<Problem>() {
                    Ok(p) => p.with_direction(Direction::Dgrad),
                    Err(e) => {
                        errors.push(format!("{key}: {e}"));
                        continue;
                    }
                };
                if implemented == DGRAD_PER_CONFIG || can_implement(&cfg, &p).is_err() {
                    skipped += 1;
                    continue;
                }
                implemented += 1;
                match emit(&cfg, &p) {
                    Ok(src) => jobs.push((p, src)),
                    Err(e) => errors.push(format!("{cfg} on {p}: emit rejected: {e}")),
                }
            }
            if implemented < DGRAD_PER_CONFIG {
                errors.push(format!(
                    "{cfg}: runs only {implemented} of the direct problems as dgrad"
                ));
            }
            // The stride-phase kernels: CUDA cores on the problems above; tensor cores (the
            // members without group merge, depth streaming or a banded tile) on C/G ≥ 8 ones.
            let mma = cfg.math == gconv_kernels::Math::Mma;
            if mma && (cfg.group_merge > 1 || cfg.stages == 3 || cfg.vec_a == 1) {
                continue;
            }
            let problems = if mma {
                DGRAD_PHASE_MMA_PROBLEMS
            } else {
                DGRAD_PHASE_PROBLEMS
            };
            let phase = problems.iter().find_map(|key| {
                let p: Problem = key.replace("{dt}", dt.token()).parse().ok()?;
                can_implement(&cfg, &p).ok().map(|_| p)
            });
            match phase {
                Some(p) => match emit(&cfg, &p) {
                    Ok(src) => jobs.push((p, src)),
                    Err(e) => errors.push(format!("{cfg} on {p}: emit rejected: {e}")),
                },
                None => errors.push(format!(
                    "{cfg}: runs none of the stride-phase dgrad problems"
                )),
            }
        }
    }
    // Backward weight: every direct wgrad member on the first WGRAD_PER_CONFIG wgrad problems
    // it can run.
    for dt in DType::ALL {
        for cfg in pool(Direction::Wgrad, dt, Families::Only(Family::Direct)) {
            let mut implemented = 0usize;
            for key in WGRAD_DIRECT_PROBLEMS {
                let p: Problem = match key.replace("{dt}", dt.token()).parse() {
                    Ok(p) => p,
                    Err(e) => {
                        errors.push(format!("{key}: {e}"));
                        continue;
                    }
                };
                if implemented == WGRAD_PER_CONFIG || can_implement(&cfg, &p).is_err() {
                    skipped += 1;
                    continue;
                }
                implemented += 1;
                match emit(&cfg, &p) {
                    Ok(src) => jobs.push((p, src)),
                    Err(e) => errors.push(format!("{cfg} on {p}: emit rejected: {e}")),
                }
            }
            if implemented < WGRAD_PER_CONFIG {
                errors.push(format!(
                    "{cfg}: runs only {implemented} of the direct wgrad problems"
                ));
            }
        }
    }
    for (name, key) in OFF_POOL {
        let parsed = name
            .parse::<KernelConfig>()
            .map_err(|e| e.to_string())
            .and_then(|c| {
                key.parse::<Problem>()
                    .map(|p| (c, p))
                    .map_err(|e| e.to_string())
            });
        match parsed {
            Ok((cfg, p)) => match emit(&cfg, &p) {
                Ok(src) => jobs.push((p, src)),
                Err(e) => errors.push(format!("{cfg} on {p}: emit rejected: {e}")),
            },
            Err(e) => errors.push(format!("{name} on {key}: {e}")),
        }
    }
    let threads = std::env::var("GCONV_COMPILE_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
                .min(4)
        })
        .max(1);
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((p, src)) = jobs.get(i) else { break };
                let r = compile_cubin(src, &CompileOptions::default());
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((i, p, src, r));
            });
        }
    });
    let wall = t0.elapsed().as_secs_f64();
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|r| r.0);
    let (mut ok, mut spilled, mut total_ms) = (0usize, 0usize, 0.0f64);
    for (_, p, src, r) in &results {
        // An overlapping launch (the split reductions) must wait for the launch before it.
        for problem in src.launch_order_problems() {
            errors.push(format!("{} on {p}: {problem}", src.kernel_name));
        }
        match r {
            Ok(k) => {
                ok += 1;
                total_ms += k.compile_ms;
                let spills = k.total_spills();
                if spills > 0 {
                    spilled += 1;
                }
                // ptxas's performance advisories (C751x: wgmma serialised because of the
                // code around it) are silent slowdowns on the GPU: fail on them here.
                for line in k.performance_advisories() {
                    errors.push(format!("{} on {p}: ptxas: {line}", src.kernel_name));
                }
                let per_entry: Vec<String> = k
                    .resources
                    .iter()
                    .map(|(e, r)| {
                        let short = if e == &src.kernel_name {
                            "main"
                        } else {
                            e.as_str()
                        };
                        format!("{short}: {} regs, {} B spills", r.regs, r.spills())
                    })
                    .collect();
                println!(
                    "compiled {} on {p}: {} | {:.0} ms",
                    src.kernel_name,
                    per_entry.join("; "),
                    k.compile_ms
                );
            }
            Err(e) => errors.push(format!("{} on {p}: {e}", src.kernel_name)),
        }
    }
    println!(
        "compile_pool: {ok} of {} kernels compiled (the pools' and {} off-pool) ({} with spills), {} errors, {skipped} (direct config, problem) pairs the config cannot run; {:.1} s of NVRTC time on {threads} thread(s), {wall:.1} s wall",
        jobs.len(),
        OFF_POOL.len(),
        spilled,
        errors.len(),
        total_ms / 1e3
    );
    assert!(ok > 0, "no kernel compiled");
    assert!(errors.is_empty(), "errors:\n{}", errors.join("\n"));
}
