//! Golden copies of generated kernels: every (kernel, problem) pair below is emitted (through
//! `gconv_kernels::admit` and `Admitted::emit`, which routes by family) and compared byte for byte with
//! `tests/golden/<kernel_name>__<problem_key>.cu`. The set covers both families (igemm,
//! direct), every math path and dtype, ranks 1–3, stride/padding/dilation, group merge
//! (including depthwise), the pointwise path, odd channels (2-byte loads), split-K, each stage
//! count, and for direct: depthwise, channel multiplier, 1D and 3D, forward, backward data and
//! backward weight (the slab kernel, with and without the split reduction, and the depthwise
//! streaming kernel, with and without it and with the cluster split, and the banded tensor-core kernel; the banded
//! tensor-core forward kernel, forward and backward data); igemm
//! backward-weight (split-K by the rule, atomic and cluster, merge, wgmma, CUDA cores,
//! pointwise 3D);
//! the warp-specialised wgmma schedule in all three directions.
//!
//! `GCONV_BLESS=1 cargo test -p gconv-kernels --test golden` rewrites the files (and removes
//! golden files no longer in the set); review the diff before committing.

use gconv_kernels::{admit, KernelConfig, Target};
use gconv_problem::Problem;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// (kernel name, problem key).
const CASES: &[(&str, &str)] = &[
    // backward-weight (a split-K degree left to the rule is resolved in the file's name)
    (
        "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm1_sk0d_mma_gen",
        "wgrad_bf16_n2_g2_c64_k64_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm8_sk0d_mma_gen",
        "wgrad_bf16_n2_g32_c32_k32_i14x14_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk0d_wgmma_gen",
        "wgrad_bf16_n8_g2_c256_k256_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_f32_t64x64x16_w2x2_s4_v4x4_gm1_sk0d_simt_gen",
        "wgrad_f32_n2_g3_c9_k6_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm1_sk4a_mma_gen",
        "wgrad_bf16_n2_g4_c64_k64_i70_f5_s1_p2_d1",
    ),
    (
        "igemm_wgrad_f16_t64x128x32_w2x2_s4_v8x8_gm1_sk0d_mma_pw",
        "wgrad_f16_n2_g4_c128_k128_i4x7x7_f1x1x1_s1x1x1_p0x0x0_d1x1x1",
    ),
    (
        "igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g1_c64_k64_i16x16_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_fwd_f16_t128x128x32_w2x2_s4_v8x8_gm1_sk1d_mma_gen",
        "fwd_f16_n2_g4_c128_k128_i12x12_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_fwd_bf16_t64x64x64_w2x2_s3_v8x8_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g2_c64_k128_i15x15_f3x3_s2x2_p2x2_d2x2",
    ),
    (
        "igemm_fwd_bf16_t256x128x32_w4x2_s3_v8x8_gm1_sk1d_mma_gen",
        "fwd_bf16_n4_g2_c256_k256_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_fwd_bf16_t128x32x32_w4x1_s4_v8x8_gm4_sk1d_mma_gen",
        "fwd_bf16_n2_g32_c256_k256_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_fwd_bf16_t128x16x16_w4x1_s4_v8x8_gm16_sk1d_mma_gen",
        "fwd_bf16_n2_g32_c32_k32_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_fwd_f16_t128x128x32_w2x2_s4_v8x8_gm1_sk1d_mma_pw",
        "fwd_f16_n2_g4_c512_k512_i7x7_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "igemm_fwd_bf16_t64x32x32_w2x1_s5_v8x8_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g3_c48_k96_i40_f5_s1_p2_d1",
    ),
    (
        "igemm_fwd_f16_t64x64x32_w2x2_s4_v8x8_gm1_sk1d_mma_gen",
        "fwd_f16_n1_g2_c64_k64_i6x10x10_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "igemm_fwd_bf16_t32x32x32_w1x1_s2_v8x8_gm1_sk1d_mma_gen",
        "fwd_bf16_n2_g1_c7_k9_i9x9_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "igemm_fwd_bf16_t64x64x32_w2x2_s4_v8x8_gm1_sk4d_mma_gen",
        "fwd_bf16_n1_g1_c256_k64_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_fwd_f32_t128x128x16_w4x2_s3_v4x4_gm1_sk1d_simt_gen",
        "fwd_f32_n2_g1_c64_k64_i16x16_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_fwd_f32_t128x32x32_w4x1_s3_v4x4_gm8_sk1d_simt_gen",
        "fwd_f32_n2_g16_c64_k64_i10x10_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_fwd_f32_t64x64x32_w2x2_s5_v4x4_gm1_sk1d_simt_pw",
        "fwd_f32_n2_g1_c96_k80_i9x9_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "igemm_fwd_f32_t64x64x16_w2x2_s4_v4x4_gm1_sk2d_simt_gen",
        "fwd_f32_n1_g1_c64_k32_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    // igemm backward-data (K-major weight tiles from transposed 4x4 blocks unless noted):
    // stride 1 (mma, the flipped and transposed filter), stride-2 phases
    // with dilation (mma), group merge with tap packing (depthwise), pointwise, f32 CUDA cores
    // with stride 2, wgmma with stride 2, 1D stride 3, 3D.
    (
        "igemm_dgrad_bf16_t128x128x32_w2x2_s3_v8x4_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g1_c64_k64_i16x16_f3x3_s1x1_p1x1_d1x1",
    ),
    // N-major weight tiles (8-aligned C/G and K/G, tile_n a multiple of 64): mma.sync reading B
    // through ldmatrix.trans, wgmma with imm-trans-b.
    (
        "igemm_dgrad_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g1_c64_k64_i16x16_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_gen",
        "dgrad_bf16_n2_g2_c256_k256_i14x14_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "igemm_dgrad_bf16_t64x64x64_w2x2_s3_v8x4_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g2_c64_k128_i15x15_f3x3_s2x2_p2x2_d2x2",
    ),
    (
        "igemm_dgrad_bf16_t128x16x16_w4x1_s4_v8x4_gm16_sk1d_mma_gen",
        "dgrad_bf16_n2_g32_c32_k32_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_dgrad_f16_t128x128x32_w2x2_s4_v8x4_gm1_sk1d_mma_pw",
        "dgrad_f16_n2_g4_c512_k256_i7x7_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "igemm_dgrad_f32_t128x128x16_w4x2_s3_v4x4_gm1_sk1d_simt_gen",
        "dgrad_f32_n2_g2_c64_k64_i16x16_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x4_gm1_sk1d_wgmma_gen",
        "dgrad_bf16_n2_g2_c256_k256_i14x14_f3x3_s2x2_p1x1_d1x1",
    ),
    // The halo path (stride 1, wgmma): one staged dY halo per 64-channel block, every tap's A
    // tile read at its row shift.
    (
        "igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_halo",
        "dgrad_bf16_n2_g2_c256_k256_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_dgrad_bf16_t64x32x32_w2x1_s5_v8x4_gm1_sk1d_mma_gen",
        "dgrad_bf16_n2_g3_c48_k96_i40_f5_s3_p2_d2",
    ),
    (
        "igemm_dgrad_f16_t64x64x32_w2x2_s4_v8x4_gm1_sk1d_mma_gen",
        "dgrad_f16_n1_g2_c64_k64_i6x10x10_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
    ),
    // direct: depthwise with the filter in registers (rows-outer) and one row at a time
    // (fy-outer), the grouped vector path, the scalar path, 1D, 3D, persistent (2 stages).
    (
        "direct_fwd_bf16_t196x32x14_w7x1_s1_v2x7_gm1_sk1d_simt_gen",
        "fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_fwd_bf16_t128x64x16_w8x1_s1_v4x4_gm1_sk1d_simt_gen",
        "fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "direct_fwd_bf16_t392x32x28_w7x1_s1_v4x7_gm1_sk1d_simt_gen",
        "fwd_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_fwd_f16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "fwd_f16_n2_g6_c6_k24_i7x8_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_fwd_bf16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "fwd_bf16_n2_g8_c16_k8_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_fwd_f32_t128x32x16_w4x1_s1_v4x4_gm1_sk1d_simt_gen",
        "fwd_f32_n4_g128_c128_k128_i16x32x32_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "direct_fwd_bf16_t64x64x64_w8x1_s1_v2x8_gm1_sk1d_simt_gen",
        "fwd_bf16_n2_g32_c32_k32_i100_f5_s2_p2_d2",
    ),
    (
        "direct_fwd_bf16_t196x32x14_w7x1_s2_v2x7_gm1_sk1d_simt_gen",
        "fwd_bf16_n32_g144_c144_k144_i56x56_f7x7_s1x1_p3x3_d1x1",
    ),
    // igemm on warpgroup MMA (sm_90a): two warpgroups, and the pointwise path (three
    // warpgroups: host emulation).
    (
        "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_gen",
        "fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_fwd_f16_t256x128x64_w8x1_s3_v8x8_gm1_sk1d_wgmma_pw",
        "fwd_f16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
    ),
    // the warp-specialised schedule (a producer warpgroup, barrier-tracked stages): forward,
    // backward-data on the N-major weight tile, backward-weight with the rule's split-K.
    // The halo path in forward (taps unflipped, X's halo).
    (
        "igemm_fwd_bf16_t128x64x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_halo",
        "fwd_bf16_n2_g2_c256_k128_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmaws_gen",
        "fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    // The TMA-fed warp-specialised schedule (one producer warp issuing box copies; the
    // entry's two tensor-map parameters), pointwise and through im2col copies in the three
    // directions.
    (
        "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_pw",
        "fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_pw",
        "dgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk0d_wgmmatma_pw",
        "wgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_gen",
        "fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmmatma_gen",
        "dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk0d_wgmmatma_gen",
        "wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    // ... and with group merge (backward weight): two C/G 32 groups a tile, no split.
    (
        "igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm2_sk1d_wgmmatma_gen",
        "wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    // ... with a tail: 49 groups of 16 merged by four (the last block of one group), split in
    // two (RegNetY-800MF's last stage).
    (
        "igemm_wgrad_bf16_t64x64x64_w4x1_s4_v8x8_gm4_sk2d_wgmmatma_gen",
        "wgrad_bf16_n64_g49_c784_k784_i14x14_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmaws_gen",
        "dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk0d_wgmmaws_gen",
        "wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    // direct on tensor cores: C/G 8 (odd chunk count, x2 B loads) and C/G 32 (x4 B loads).
    (
        "direct_fwd_bf16_t224x64x28_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_fwd_f16_t49x64x7_w4x1_s1_v32x1_gm1_sk1d_mma_gen",
        "fwd_f16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    // ... streaming over depth (stages 3: a ring of FZ + 1 input slices), forward and the dual
    // of backward data, on the zoo's 3D C/G 8 layer.
    (
        "direct_fwd_bf16_t64x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen",
        "fwd_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "direct_dgrad_bf16_t64x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    // ... and depthwise through block-diagonal group merge (gm 8).
    (
        "direct_fwd_bf16_t224x64x28_w8x1_s1_v8x2_gm8_sk1d_mma_gen",
        "fwd_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1",
    ),
    // direct backward data (the forward kernel on the stride-1 dual, weights gathered through
    // the flip and channel transpose): simt depthwise 2D, a channel multiplier (the dual's
    // scalar path), 3D, 1D with dilation; mma grouped and group-merged depthwise.
    (
        "direct_dgrad_bf16_t196x32x14_w7x1_s1_v2x7_gm1_sk1d_simt_gen",
        "dgrad_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_dgrad_f16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_f16_n2_g6_c6_k24_i7x8_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_dgrad_f32_t128x32x16_w4x1_s1_v4x4_gm1_sk1d_simt_gen",
        "dgrad_f32_n4_g128_c128_k128_i16x32x32_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "direct_dgrad_bf16_t64x64x64_w8x1_s1_v2x8_gm1_sk1d_simt_gen",
        "dgrad_bf16_n2_g32_c32_k32_i100_f5_s1_p2_d2",
    ),
    (
        "direct_dgrad_bf16_t224x64x28_w8x1_s1_v8x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    // The tensor-core stride-phase kernel (persistent), on the real client's G 4 112² stride-2
    // layer.
    (
        "direct_dgrad_bf16_t196x64x14_w8x1_s2_v16x2_gm1_sk1d_mma_gen",
        "dgrad_bf16_n64_g4_c64_k64_i112x112_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "direct_dgrad_bf16_t224x64x28_w8x1_s1_v8x2_gm8_sk1d_mma_gen",
        "dgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1",
    ),
    // ... and the stride-phase kernel (no dual): the depthwise s2 target layers (112², 14²), a
    // strided channel multiplier, 3D and 1D.
    (
        "direct_dgrad_bf16_t196x32x14_w7x1_s1_v2x7_gm1_sk1d_simt_gen",
        "dgrad_bf16_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "direct_dgrad_bf16_t49x64x7_w7x1_s1_v2x7_gm1_sk1d_simt_gen",
        "dgrad_bf16_n32_g576_c576_k576_i14x14_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "direct_dgrad_f16_t128x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "dgrad_f16_n2_g16_c16_k32_i11x11_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "direct_dgrad_f32_t128x32x16_w4x1_s1_v4x4_gm1_sk1d_simt_gen",
        "dgrad_f32_n2_g32_c32_k32_i8x16x16_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
    ),
    (
        "direct_dgrad_bf16_t64x64x64_w8x1_s1_v2x8_gm1_sk1d_simt_gen",
        "dgrad_bf16_n2_g32_c32_k32_i99_f5_s2_p2_d1",
    ),
    // direct backward weight (the slab kernel, names as resolved by the slab rule): depthwise
    // 3x3 bf16 with P > 1 partial planes and the reduction, depthwise 3D with a channel tail,
    // C/G = 4 in f32.
    (
        "direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk64d_simt_gen",
        "wgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_wgrad_bf16_t64x32x16_w8x1_s2_v8x9_gm1_sk64d_simt_gen",
        "wgrad_bf16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "direct_wgrad_f32_t128x32x16_w8x1_s2_v4x4_gm1_sk1d_simt_gen",
        "wgrad_f32_n2_g8_c32_k32_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    // direct backward weight, depthwise register streaming (stages 1): 3x3 bf16 with the
    // rule's slabs (P > 64) and the reduction; 7x7 f32 in one slab with tap-row groups of 4 + 3
    // and a channel tail; 3D bf16 with 4-channel lanes on C = 54 (4-byte reads).
    (
        "direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_wgrad_f32_t8x32x8_w8x1_s1_v2x4_gm1_sk1d_simt_gen",
        "wgrad_f32_n1_g20_c20_k20_i14x14_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "direct_wgrad_bf16_t8x128x8_w8x1_s1_v4x3_gm1_sk0d_simt_gen",
        "wgrad_bf16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    // ... and with the cluster split (`sk8c`: the slabs of a channel block one thread-block
    // cluster, no workspace, no second launch).
    (
        "direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x1_gm1_sk8c_simt_gen",
        "wgrad_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    // ... at 16 slabs (a non-portable cluster)
    (
        "direct_wgrad_bf16_t7x64x7_w8x1_s1_v2x3_gm1_sk16c_simt_gen",
        "wgrad_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    // igemm backward weight with the cluster split (`sk7c`: a tile's slices one cluster).
    (
        "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk7c_wgmmaws_gen",
        "wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    // direct backward weight on tensor cores: C/G 8 3x3 bf16 with the rule's slabs (two groups
    // per CTA, a half m16 block), C/G 16 f16 3D, C/G 32 on 14-wide tiles, C/G 4 merged by 2.
    (
        "direct_wgrad_bf16_t64x16x8_w4x1_s2_v2x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_wgrad_f16_t64x32x8_w8x1_s2_v3x1_gm1_sk0d_mma_gen",
        "wgrad_f16_n8_g16_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "direct_wgrad_bf16_t112x32x14_w8x1_s2_v3x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n32_g32_c1024_k1024_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    // ... with two groups of C/G 4 merged (only the diagonal stored).
    (
        "direct_wgrad_bf16_t64x16x8_w4x1_s2_v2x1_gm2_sk0d_mma_gen",
        "wgrad_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
    ),
    // ... with a C/G 64 group's units in 4 M slices (grid z).
    (
        "direct_wgrad_bf16_t64x64x8_w8x1_s2_v1x4_gm1_sk0d_mma_gen",
        "wgrad_bf16_n16_g8_c512_k512_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    // ... with the register stage (stages 3): C/G 24 on 7 x 16 tiles, the zoo's g14 layer.
    (
        "direct_wgrad_bf16_t112x24x16_w8x1_s3_v2x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n32_g14_c336_k336_i14x14_f3x3_s1x1_p1x1_d1x1",
    ),
    // direct depthwise forward and backward data on tensor cores with a banded filter operand:
    // 7x7 bf16 on 16 x 64 tiles, 3x3 f16 backward data (the dual, filter read flipped) on
    // 32 x 16 tiles.
    (
        "direct_fwd_bf16_t1024x16x64_w8x1_s1_v1x1_gm1_sk1d_mma_gen",
        "fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "direct_dgrad_f16_t512x8x16_w8x1_s1_v1x1_gm1_sk1d_mma_gen",
        "dgrad_f16_n8_g64_c64_k64_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    // direct depthwise backward weight on tensor cores with a banded dY operand: 7x7 bf16 with
    // the rule's slabs, 3x3 f16 in one slab, 5x5 on 32-wide tiles of 8 rows.
    (
        "direct_wgrad_bf16_t112x16x56_w4x1_s1_v8x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
    ),
    (
        "direct_wgrad_f16_t56x8x28_w2x1_s1_v8x1_gm1_sk1d_mma_gen",
        "wgrad_f16_n1_g8_c8_k8_i28x28_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "direct_wgrad_bf16_t256x16x32_w4x1_s1_v8x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n32_g240_c240_k240_i28x28_f5x5_s1x1_p2x2_d1x1",
    ),
    // ... with 2 x 2 tap blocks (13x13);
    (
        "direct_wgrad_bf16_t112x8x56_w8x1_s1_v8x1_gm1_sk0d_mma_gen",
        "wgrad_bf16_n16_g512_c512_k512_i28x28_f13x13_s1x1_p6x6_d1x1",
    ),
    // ... and the pipelined variant (vec_b 2) on 14 x 32 tiles.
    (
        "direct_wgrad_bf16_t448x16x32_w8x1_s1_v8x2_gm1_sk0d_mma_gen",
        "wgrad_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1",
    ),
];

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
}

#[test]
fn generated_kernels_match_golden_files() {
    let bless = std::env::var_os("GCONV_BLESS").is_some_and(|v| v == "1");
    let dir = golden_dir();
    let mut expected = BTreeSet::new();
    let mut mismatches = Vec::new();
    for (name, key) in CASES {
        let cfg: KernelConfig = name.parse().unwrap_or_else(|e| panic!("{e}"));
        let problem: Problem = key.parse().unwrap_or_else(|e| panic!("{e}"));
        let src = admit(&cfg, &problem, &Target::H200)
            .unwrap_or_else(|e| panic!("{name} on {key}: {e}"))
            .emit();
        // The module is named by what runs: a degree left to the rule (sk0) is resolved, and
        // nothing else of the name changes.
        let ran: KernelConfig = src.kernel_name.parse().unwrap_or_else(|e| panic!("{e}"));
        if cfg.split_k == 0 {
            assert!(ran.split_k >= 1, "{name}: {ran}");
            let mode = if ran.split_k == 1 {
                ran.split_k_mode
            } else {
                cfg.split_k_mode
            };
            assert_eq!(ran.split_k_mode, mode, "{name}: {ran}");
            assert_eq!(
                KernelConfig {
                    split_k: ran.split_k,
                    split_k_mode: mode,
                    ..cfg
                },
                ran,
                "{name}"
            );
        } else {
            assert_eq!(src.kernel_name, *name);
        }
        let order = src.launch_order_problems();
        assert!(order.is_empty(), "{name} on {key}: {order:?}");
        let file = format!("{}__{key}.cu", src.kernel_name);
        let path = dir.join(&file);
        expected.insert(file.clone());
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &src.code).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(old) if old == src.code => {}
            Ok(_) => mismatches.push(format!("{file}: differs")),
            Err(e) => mismatches.push(format!("{file}: {e}")),
        }
    }
    let present: BTreeSet<String> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|f| f.ends_with(".cu"))
                .collect()
        })
        .unwrap_or_default();
    for stale in present.difference(&expected) {
        if bless {
            std::fs::remove_file(dir.join(stale)).unwrap();
        } else {
            mismatches.push(format!("{stale}: not in the golden set"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "golden mismatches (rerun with GCONV_BLESS=1 to accept):\n{}",
        mismatches.join("\n")
    );
    assert_eq!(expected.len(), CASES.len(), "duplicate golden cases");
}

#[test]
fn golden_set_covers_every_path() {
    let cfgs: Vec<KernelConfig> = CASES.iter().map(|(n, _)| n.parse().unwrap()).collect();
    for stages in 2..=5 {
        assert!(cfgs.iter().any(|c| c.stages == stages), "stages {stages}");
    }
    for dt in gconv_problem::DType::ALL {
        assert!(cfgs.iter().any(|c| c.dtype == dt), "{dt}");
    }
    let probs: Vec<Problem> = CASES.iter().map(|(_, k)| k.parse().unwrap()).collect();
    for rank in 1..=3 {
        assert!(probs.iter().any(|p| p.rank == rank), "rank {rank}");
    }
    assert!(cfgs.iter().any(|c| c.group_merge > 1));
    for family in gconv_kernels::Family::ALL {
        assert!(cfgs.iter().any(|c| c.family == family), "{family:?}");
    }
    assert!(cfgs.iter().any(|c| c.split_k > 1));
    assert!(cfgs
        .iter()
        .any(|c| c.family == gconv_kernels::Family::Direct && c.math == gconv_kernels::Math::Mma));
    assert!(cfgs.iter().any(|c| c.math == gconv_kernels::Math::Wgmma));
    // Backward data on both direct math paths.
    for math in [gconv_kernels::Math::Simt, gconv_kernels::Math::Mma] {
        assert!(
            cfgs.iter()
                .any(|c| c.family == gconv_kernels::Family::Direct
                    && c.direction == gconv_problem::Direction::Dgrad
                    && c.math == math),
            "direct dgrad {math:?}"
        );
    }
    // Backward weight on the direct slab kernel, with and without partial planes.
    for one_slab in [true, false] {
        assert!(
            cfgs.iter()
                .any(|c| c.family == gconv_kernels::Family::Direct
                    && c.direction == gconv_problem::Direction::Wgrad
                    && (c.split_k == 1) == one_slab),
            "direct wgrad, one slab {one_slab}"
        );
    }
    // Backward weight on the direct streaming kernel (stages 1), with and without partial
    // planes (a rule-sized sk0 resolves to P > 1 on its layer).
    for one_slab in [true, false] {
        assert!(
            cfgs.iter()
                .any(|c| c.family == gconv_kernels::Family::Direct
                    && c.direction == gconv_problem::Direction::Wgrad
                    && c.stages == 1
                    && (c.split_k == 1) == one_slab),
            "direct streaming wgrad, one slab {one_slab}"
        );
    }
    assert!(CASES.iter().any(|(n, k)| n.starts_with("direct_dgrad")
        && k.parse::<Problem>().is_ok_and(|p| p.stride != [1, 1, 1])));
    for fast_path in gconv_kernels::FastPath::ALL {
        assert!(
            cfgs.iter().any(|c| c.fast_path == fast_path),
            "fast path {fast_path:?}"
        );
    }
}
