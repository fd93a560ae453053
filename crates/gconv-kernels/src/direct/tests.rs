//! Unit tests of the direct family: its rules, geometry, cost model, pools, emission and the
//! backward-data paths (the dual and the stride-phase kernel) and the backward-weight slab
//! and streaming kernels (their rules, slab rules, pools, costs and emission).

use super::*;
use crate::admit::{admit, validate, Target};
use crate::config::FastPath;
use crate::source::KernelSource;
use geometry::{row_pitch, rows_per_thread, smem_read_wavefronts, wavefronts_per_word};
use pool::forward_pool as direct_forward_pool;

fn prob(key: &str) -> Problem {
    key.parse().unwrap()
}

fn can_implement(c: &KernelConfig, p: &Problem) -> Result<(), Rejection> {
    admit(c, p, &Target::H200).map(|_| ())
}

fn emit(c: &KernelConfig, p: &Problem) -> Result<KernelSource, Rejection> {
    admit(c, p, &Target::H200).map(|a| a.emit())
}

fn geometry(c: &KernelConfig, p: &Problem) -> DirectGeometry {
    geometry::geometry(c, p, &DeviceLimits::H200)
}

/// A refused warp layout says which layouts the family takes (the direct family's 1-8 along M,
/// igemm's 1/2/4/8 in all, wgmma's whole warpgroups), not one family's rule for all.
#[test]
fn bad_warp_count_names_the_layouts_the_family_takes() {
    let message = |name: &str| {
        let c: KernelConfig = name.parse().expect("a kernel name");
        let e = validate(&c, Arch::Sm90a).expect_err("refused");
        assert_eq!(e.reason(), "bad_warp_count", "{name}");
        e.to_string()
    };
    let direct = message("direct_fwd_bf16_t128x64x16_w9x1_s2_v2x4_gm1_sk1d_simt_gen");
    assert!(direct.contains("1 to 8 warps along M"), "{direct}");
    let igemm = message("igemm_fwd_bf16_t128x64x32_w3x1_s3_v8x8_gm1_sk1d_mma_gen");
    assert!(igemm.contains("1, 2, 4 or 8 warps in all"), "{igemm}");
    let wgmma = message("igemm_fwd_bf16_t128x64x64_w2x2_s4_v8x8_gm1_sk1d_wgmma_gen");
    assert!(wgmma.contains("whole warpgroups"), "{wgmma}");
}

#[test]
fn validate_rules() {
    let base = config(DType::Bf16, [128, 64, 16], 8, [8, 4]);
    let r = |c: KernelConfig| validate(&c, Arch::Sm90).map_err(|e| e.reason());
    assert_eq!(r(base), Ok(()));
    assert_eq!(r(KernelConfig { stages: 2, ..base }), Ok(())); // persistent
    assert_eq!(
        r(KernelConfig { stages: 3, ..base }),
        Err("direct_field_fixed")
    );
    assert_eq!(
        r(KernelConfig {
            math: Math::Tf32,
            ..base
        }),
        Err("direct_field_fixed")
    );
    assert_eq!(
        r(KernelConfig {
            group_merge: 2,
            ..base
        }),
        Err("direct_field_fixed")
    );
    assert_eq!(
        r(KernelConfig {
            fast_path: FastPath::Pointwise,
            ..base
        }),
        Err("direct_field_fixed")
    );
    assert_eq!(
        r(KernelConfig {
            direction: Direction::Dgrad,
            ..base
        }),
        Ok(())
    );
    // Backward weight has its own rules (`wgrad_rules`, `stream_rules`): with 1 stage this is
    // a streaming config, whose VEC is at most 8 and whose unit is one output row (tile_m =
    // tile_k).
    assert_eq!(
        r(KernelConfig {
            direction: Direction::Wgrad,
            ..base
        }),
        Err("tile_out_of_range")
    );
    assert_eq!(
        r(KernelConfig {
            direction: Direction::Wgrad,
            vec_a: 16,
            ..base
        }),
        Err("bad_vector_width")
    );
    assert_eq!(
        r(KernelConfig { warps_n: 2, ..base }),
        Err("bad_warp_count")
    );
    assert_eq!(
        r(KernelConfig { vec_a: 3, ..base }),
        Err("bad_vector_width")
    );
    assert_eq!(
        r(KernelConfig { vec_b: 16, ..base }),
        Err("bad_vector_width")
    );
    assert_eq!(
        r(KernelConfig { tile_k: 24, ..base }),
        Err("tile_out_of_range")
    );
    // 8x16 pixels x 64 channels / (4 pixels x 8 channels) = 256 items: 1 row per thread on
    // 256 threads, 2 rows on 128, 4 rows on 64.
    assert_eq!(r(KernelConfig { warps_m: 4, ..base }), Ok(()));
    assert_eq!(rows_per_thread(&KernelConfig { warps_m: 4, ..base }), 2);
    assert_eq!(r(KernelConfig { warps_m: 2, ..base }), Ok(()));
    assert_eq!(
        r(KernelConfig { warps_m: 3, ..base }),
        Err("direct_thread_mapping")
    );
    // 7 rows x 1 column group x 32 lanes = 224 items: 7 warps give 1 row per thread, 1 warp
    // 7 rows; 2 warps (3.5 rows) and 4 warps (1.75) do not divide.
    let s7 = config(DType::Bf16, [49, 64, 7], 7, [2, 7]);
    assert_eq!(r(s7), Ok(()));
    assert_eq!(rows_per_thread(&s7), 1);
    assert_eq!(r(KernelConfig { warps_m: 1, ..s7 }), Ok(()));
    assert_eq!(rows_per_thread(&KernelConfig { warps_m: 1, ..s7 }), 7);
    assert_eq!(
        r(KernelConfig { warps_m: 2, ..s7 }),
        Err("direct_thread_mapping")
    );
    assert_eq!(
        r(KernelConfig { warps_m: 4, ..s7 }),
        Err("direct_thread_mapping")
    );
    // 8 rows, 1024 items on 64 threads: 16 rows per thread would not divide 8 rows.
    let t = config(DType::Bf16, [128, 64, 16], 2, [2, 4]);
    assert_eq!(r(t), Err("direct_thread_mapping"));
    // vec_b need not be a power of two (7-pixel strips), vec_a must.
    assert_eq!(r(config(DType::Bf16, [196, 32, 14], 7, [2, 7])), Ok(()));
    assert_eq!(
        r(config(DType::Bf16, [196, 48, 14], 7, [3, 7])),
        Err("bad_vector_width")
    );
}

#[test]
fn can_implement_rules() {
    let base = config(DType::Bf16, [128, 64, 16], 8, [8, 4]);
    let r = |c: &KernelConfig, k: &str| can_implement(c, &prob(k)).map_err(|e| e.reason());
    assert_eq!(
        r(&base, "fwd_bf16_n2_g32_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1"),
        Ok(())
    );
    assert_eq!(
        r(&base, "fwd_bf16_n2_g4_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1"),
        Err("direct_channels_per_group")
    );
    assert_eq!(
        r(&base, "fwd_bf16_n2_g8_c8_k24_i9x9_f3x3_s1x1_p1x1_d1x1"),
        Err("direct_channel_tile")
    );
    assert_eq!(
        r(&base, "fwd_f16_n2_g32_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1"),
        Err("dtype_mismatch")
    );
    assert_eq!(
        r(
            &base,
            "fwd_bf16_n1_g256_c256_k256_i64x64_f31x31_s1x1_p15x15_d1x1"
        ),
        Err("smem_exceeds_limit")
    );
    let big = config(DType::Bf16, [256, 8, 64], 1, [8, 8]);
    assert_eq!(
        r(&big, "fwd_bf16_n1_g8_c8_k8_i8x64_f1x21_s1x1_p0x10_d1x1"),
        Err("registers_exceed_limit")
    );
}

#[test]
fn geometry_of_a_depthwise_layer() {
    let c = config(DType::Bf16, [128, 64, 16], 8, [8, 4]);
    let g = geometry(
        &c,
        &prob("fwd_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1"),
    );
    assert_eq!((g.th, g.tw, g.ct), (8, 16, 64));
    assert_eq!(g.halo, [1, 10, 18]);
    assert_eq!((g.vl, g.sv), (8, 8));
    assert_eq!(g.xrow, 18 * 64); // 8 channel lanes: one row per quarter-warp, no padding
    assert_eq!(g.xs_bytes, 10 * 18 * 64 * 2);
    assert_eq!(g.ws_bytes, 9 * 64 * 4);
    assert_eq!(g.grid, [4 * 7 * 32, 3, 1]);
    // Persistent (2 stages): two input tiles (48 KB with the weights: 4 CTAs an SM by shared
    // memory, 2 by the 128-register budget of 256 threads), so one wave is 264 CTAs, 88 per
    // channel block: 896 tiles / 88 = 11 tiles per CTA, 82 CTAs along x, all resident.
    let p2 = KernelConfig { stages: 2, ..c };
    let g2 = geometry(
        &p2,
        &prob("fwd_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1"),
    );
    assert_eq!(g2.smem_bytes, 2 * g.xs_bytes + g.ws_bytes);
    assert_eq!(g2.grid, [82, 3, 1]);
    assert_eq!((g.min_ctas, g2.min_ctas), (1, 2));
    // Channel multiplier: 64 output channels = 32 groups of 2; odd C: 2-byte chunks.
    let g = geometry(&c, &prob("fwd_bf16_n1_g7_c7_k14_i9x9_f3x3_s2x2_p1x1_d1x1"));
    assert_eq!((g.ct, g.vl, g.sv), (32, 1, 2));
}

#[test]
fn row_padding_removes_bank_conflicts_of_narrow_channel_tiles() {
    let p = prob("fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1");
    // 4 channel lanes (32 channels x 2 bytes = 64 B per pixel): one quarter-warp reads two
    // rows; 18 pixels x 64 B = 1152 B rows collide, 19 pixels do not.
    let c = config(DType::Bf16, [128, 32, 16], 4, [8, 4]);
    let g = geometry(&c, &p);
    assert_eq!(g.xrow, 18 * 32 + 32);
    assert_eq!(smem_read_wavefronts(&c, &p, g.th, g.ct, 18 * 32), 8);
    assert_eq!(smem_read_wavefronts(&c, &p, g.th, g.ct, g.xrow), 4);
    // Stride 2: rows two apart; half a pixel (32 B) of padding.
    let p2 = prob("fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s2x2_p1x1_d1x1");
    let g2 = geometry(&c, &p2);
    assert_eq!(smem_read_wavefronts(&c, &p2, g2.th, g2.ct, g2.xrow), 4);
    // 2 channel lanes: four rows per quarter-warp.
    let c16 = config(DType::Bf16, [128, 16, 16], 2, [8, 4]);
    let p16 = prob("fwd_bf16_n32_g16_c16_k16_i56x56_f5x5_s1x1_p2x2_d1x1");
    let g16 = geometry(&c16, &p16);
    assert_eq!(
        smem_read_wavefronts(&c16, &p16, g16.th, g16.ct, g16.xrow),
        4
    );
}

/// The bank count by runs and bit planes gives what counting word by word gives, for every
/// direct pool member of every direction and dtype on depthwise layers (strides 1 and 2), the
/// member's own tile height and channel tile, at every row pitch from the tile's width in
/// channels to four times it plus 33 elements (odd pitches included), and on configs of every
/// channel vector, channel tile and thread count the bank model reads.
#[test]
fn bank_counts_by_runs_equal_the_word_by_word_count() {
    let mut n = 0;
    let mut check = |c: &KernelConfig, q: &Problem, th: u64, ct: u64| {
        for xrow in ct..=4 * ct + 33 {
            assert_eq!(
                smem_read_wavefronts(c, q, th, ct, xrow),
                wavefronts_per_word(c, q, th, ct, xrow),
                "{c} on {q}: th {th}, ct {ct}, row pitch {xrow}"
            );
            n += 1;
        }
    };
    for key in [
        "fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
        "fwd_bf16_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
        "fwd_bf16_n16_g64_c64_k64_i56x56_f7x7_s1x1_p3x3_d1x1",
        "fwd_f32_n8_g960_c960_k960_i7x7_f5x5_s1x1_p2x2_d1x1",
        "fwd_f16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ] {
        let p = prob(key);
        for dir in [Direction::Fwd, Direction::Dgrad] {
            for dt in DType::ALL {
                let q = p.with_direction(dir).with_dtype(dt);
                for c in Direct.pool(dir, dt) {
                    let g = geometry(&c, &q);
                    check(&c, &q, g.th, g.ct);
                }
            }
        }
    }
    let p = prob("fwd_bf16_n8_g64_c64_k64_i56x56_f3x3_s1x1_p1x1_d1x1");
    for dt in DType::ALL {
        let q = p.with_dtype(dt);
        for vec in [1, 2, 4, 8] {
            for tile_n in [8, 16, 32, 64] {
                for warps in [1, 2, 4] {
                    for vec_b in [1, 2] {
                        let c = config(dt, [64, tile_n, 16], warps, [vec, vec_b]);
                        for th in [1, 2, 4, 8] {
                            check(&c, &q, th, tile_n as u64);
                        }
                    }
                }
            }
        }
    }
    assert!(n > 50_000, "{n} counts");
}

/// The pitch search that stops at the first conflict-free pitch gives what pricing all eight
/// pitches and taking the first cheapest gives, for every direct pool member of every
/// direction and dtype on depthwise, multiplier and grouped layers (strides 1 and 2, both
/// pitch steps of the two call sites).
#[test]
fn row_pitch_equals_the_cheapest_of_all_eight_pitches() {
    let mut n = 0;
    for key in [
        "fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
        "fwd_bf16_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
        "fwd_bf16_n16_g64_c64_k64_i56x56_f7x7_s1x1_p3x3_d1x1",
        "fwd_f32_n8_g960_c960_k960_i7x7_f5x5_s1x1_p2x2_d1x1",
        "fwd_f16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        "fwd_bf16_n8_g32_c32_k64_i28x28_f3x3_s1x1_p1x1_d1x1",
        "fwd_bf16_n8_g32_c128_k128_i28x28_f3x3_s1x1_p1x1_d1x1",
    ] {
        let p = prob(key);
        for dir in [Direction::Fwd, Direction::Dgrad] {
            for dt in DType::ALL {
                let q = p.with_direction(dir).with_dtype(dt);
                for c in Direct.pool(dir, dt) {
                    let g = geometry(&c, &q);
                    for (base, step) in [(g.xrow, 8), (g.ct * 3, 16 / dt.size_bytes())] {
                        let brute = (0..8u64)
                            .map(|pad| base + pad * step)
                            .min_by_key(|&x| smem_read_wavefronts(&c, &q, g.th, g.ct, x))
                            .unwrap();
                        let fast = row_pitch(&c, &q, g.th, g.ct, base, step);
                        assert_eq!(fast, brute, "{c} on {q}: base {base}, step {step}");
                        n += 1;
                    }
                }
            }
        }
    }
    assert!(n > 500, "{n} searches");
}

#[test]
fn emit_is_deterministic_gated_and_header_free() {
    let p = prob("fwd_bf16_n2_g32_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1");
    let c = config(DType::Bf16, [128, 64, 16], 8, [8, 4]);
    let a = emit(&c, &p).unwrap();
    assert_eq!(a, emit(&c, &p).unwrap());
    assert!(!a.code.contains("#include"));
    assert!(!a.code.contains("@ENTRY@"));
    assert_eq!(a.launches[0].block, [256, 1, 1]);
    assert_eq!(a.launches[0].grid, [4, 1, 1]);
}

/// A config in the backward-data direction.
fn dgrad(c: KernelConfig) -> KernelConfig {
    KernelConfig {
        direction: Direction::Dgrad,
        ..c
    }
}

#[test]
fn dgrad_is_admitted_through_its_dual() {
    let simt = dgrad(config(DType::Bf16, [128, 64, 16], 8, [8, 4]));
    let r = |c: &KernelConfig, k: &str| can_implement(c, &prob(k)).map_err(|e| e.reason());
    // Depthwise, channel multiplier (C/G 1, K/G 2: the dual has C/G 2, K/G 1), C/G 4,
    // dilation, large padding up to dil·(F−1), 1D and 3D.
    for key in [
        "dgrad_bf16_n2_g32_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1",
        "dgrad_bf16_n2_g16_c16_k32_i9x9_f3x3_s1x1_p1x1_d1x1",
        "dgrad_bf16_n2_g8_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1",
        "dgrad_bf16_n1_g16_c16_k16_i12x12_f3x3_s1x1_p4x4_d2x2",
        "dgrad_bf16_n1_g8_c8_k8_i5x5_f3x3_s1x1_p2x2_d1x1",
        "dgrad_bf16_n2_g32_c32_k32_i100_f5_s1_p2_d1",
        "dgrad_bf16_n1_g16_c16_k16_i5x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ] {
        assert_eq!(r(&simt, key), Ok(()), "{key}");
    }
    // No dual (strided, or a padding above dil·(F−1)): the stride-phase kernel on CUDA
    // cores, never on tensor cores.
    let mma = dgrad(KernelConfig {
        math: Math::Mma,
        ..config(DType::Bf16, [128, 64, 16], 8, [8, 2])
    });
    for key in [
        "dgrad_bf16_n2_g32_c32_k32_i14x14_f3x3_s2x2_p1x1_d1x1",
        "dgrad_bf16_n2_g32_c32_k32_i100_f5_s2_p2_d1",
        "dgrad_bf16_n1_g8_c8_k8_i5x5_f3x3_s1x1_p3x3_d1x1",
    ] {
        assert!(strided::applies(&prob(key)), "{key}");
        assert_eq!(r(&simt, key), Ok(()), "{key}");
    }
    // Tensor cores: the mma stride-phase kernel, C/G and K/G multiples of 8, no group merge.
    let strided_mma = "dgrad_bf16_n2_g16_c128_k128_i10x18_f3x3_s2x2_p1x1_d1x1";
    assert!(strided::applies_mma(&mma, &prob(strided_mma)));
    assert_eq!(r(&mma, strided_mma), Ok(()));
    assert_eq!(
        r(&mma, "dgrad_bf16_n2_g16_c64_k64_i10x18_f3x3_s2x2_p1x1_d1x1"),
        Err("direct_mma_channels")
    );
    let merged = KernelConfig {
        group_merge: 2,
        ..mma
    };
    let e = can_implement(&merged, &prob(strided_mma)).unwrap_err();
    assert_eq!(e.reason(), "direct_phase_mma_scope");
    assert!(e.to_string().contains("group_merge 2"), "{e}");
    // Stride phases: dY's K/G feeds each dX channel (at most 4), whole C/G groups per tile.
    assert_eq!(
        r(&simt, "dgrad_bf16_n2_g8_c8_k64_i9x9_f3x3_s2x2_p1x1_d1x1"),
        Err("direct_dgrad_channels")
    );
    assert_eq!(
        r(&simt, "dgrad_bf16_n2_g8_c24_k8_i9x9_f3x3_s2x2_p1x1_d1x1"),
        Err("direct_channel_tile")
    );
    // Target layers: depthwise s2 3x3 on 112² and 14² (C 96 / 576, N 32) run on the pool.
    for key in [
        "dgrad_bf16_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
        "dgrad_bf16_n32_g576_c576_k576_i14x14_f3x3_s2x2_p1x1_d1x1",
        "dgrad_bf16_n32_g96_c96_k96_i112x112_f3x3_s1x1_p1x1_d1x1",
    ] {
        let p = prob(key);
        let n = pool::pool(Direction::Dgrad, DType::Bf16)
            .iter()
            .filter(|c| can_implement(c, &p).is_ok())
            .count();
        assert!(n >= 4, "{key}: {n} members");
        // `auto` picks a direct dgrad member (the igemm family has no dgrad pool yet).
        let a = crate::select::auto_select(&p, &Target::H200).expect("auto picks");
        assert_eq!(
            (a.config().family, a.config().direction),
            (Family::Direct, Direction::Dgrad),
            "{key}"
        );
        println!(
            "auto on {key}: {} ({:.1} us)",
            a.config(),
            a.cost_estimate() * 1e6
        );
    }
    // The phase geometry: 112² dX with s2, pad 1, 3x3 is 56² cells reading dY rows q and
    // q + 1 (e 0..1); a 14x14-cell tile stages 15x15 dY pixels.
    let s2 = prob("dgrad_bf16_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1");
    let ph = strided::Phases::of(&s2);
    assert_eq!(
        (ph.emin, ph.emax, ph.cells),
        ([0, 0, 0], [0, 1, 1], [1, 56, 56])
    );
    let t14 = dgrad(config(DType::Bf16, [196, 32, 14], 7, [2, 7]));
    let g = geometry(&t14, &s2);
    assert_eq!((g.th, g.tw, g.halo), (14, 14, [1, 15, 15]));
    assert_eq!(g.grid, [4 * 4 * 32, 3, 1]);
    assert_eq!(g.ws_bytes, 9 * 32 * 4);
    // The channel rules are the dual's: C/G of the dual is K/G of the problem, so a C/G 1,
    // K/G 8 dgrad layer is beyond the simt path (dual C/G 8) and C/G 8, K/G 1 is not.
    assert_eq!(
        r(&simt, "dgrad_bf16_n2_g8_c8_k64_i9x9_f3x3_s1x1_p1x1_d1x1"),
        Err("direct_channels_per_group")
    );
    let s8 = dgrad(config(DType::Bf16, [128, 64, 16], 8, [2, 4]));
    assert_eq!(
        r(&s8, "dgrad_bf16_n2_g8_c64_k8_i9x9_f3x3_s1x1_p1x1_d1x1"),
        Ok(())
    );
    // Direction mismatch is the shared gate's.
    assert_eq!(
        r(&simt, "fwd_bf16_n2_g32_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1"),
        Err("direction_mismatch")
    );
    // The mma path on a dual with C/G, K/G multiples of 8, and group merge.
    assert_eq!(
        r(
            &mma,
            "dgrad_bf16_n2_g16_c128_k128_i10x18_f3x3_s1x1_p1x1_d1x1"
        ),
        Ok(())
    );
    let gm8 = KernelConfig {
        group_merge: 8,
        ..mma
    };
    assert_eq!(
        r(&gm8, "dgrad_bf16_n2_g96_c96_k96_i9x30_f3x3_s1x1_p1x1_d1x1"),
        Ok(())
    );
    // The geometry and plan are those of the dual (input = dY, output = dX).
    let p = prob("dgrad_bf16_n2_g32_c32_k32_i13x17_f3x3_s1x1_p0x0_d1x1");
    let dual = p.dgrad_dual().unwrap();
    assert_eq!(forward_problem(&p), dual);
    assert_eq!(kernel_problem(&simt, &p), dual);
    assert_eq!(geometry(&simt, &p), geometry(&simt.with_fwd(), &dual));
    assert_eq!(
        register_estimate(&simt, &p),
        register_estimate(&simt.with_fwd(), &dual)
    );
    let a = admit(&simt, &p, &Target::H200).unwrap();
    let b = admit(&simt.with_fwd(), &dual, &Target::H200).unwrap();
    assert_eq!(a.cost_estimate(), b.cost_estimate());
    // auto: the mma members' rule on the dual (C/G 8 and K/G 16 of the dual).
    let q = prob("dgrad_bf16_n2_g8_c128_k64_i14x14_f3x3_s1x1_p1x1_d1x1");
    assert!(Direct.auto_considers(&mma, &q));
    let wide = prob("dgrad_bf16_n2_g2_c32_k256_i14x14_f3x3_s1x1_p1x1_d1x1");
    assert!(!Direct.auto_considers(&mma, &wide)); // dual C/G 128 > 56
    assert!(Direct.auto_considers(&simt, &wide));
}

trait WithFwd {
    fn with_fwd(&self) -> KernelConfig;
}
impl WithFwd for KernelConfig {
    fn with_fwd(&self) -> KernelConfig {
        KernelConfig {
            direction: Direction::Fwd,
            ..*self
        }
    }
}

#[test]
fn dgrad_modules_are_the_dual_forward_module_with_gathered_weights() {
    // Every body has exactly one weight-staging slot, and both staging fragments of a path
    // write the same shared-memory layout.
    assert_eq!(emit::slot_count(), (1, 1));
    for (simt, key) in [
        (
            config(DType::Bf16, [128, 64, 16], 8, [2, 4]),
            "dgrad_bf16_n2_g4_c8_k12_i9x10_f3x3_s1x1_p1x1_d1x1",
        ),
        (
            KernelConfig {
                math: Math::Mma,
                ..config(DType::Bf16, [128, 64, 16], 8, [8, 2])
            },
            "dgrad_bf16_n2_g16_c128_k128_i10x18_f3x3_s1x1_p1x1_d1x1",
        ),
        (
            KernelConfig {
                math: Math::Mma,
                group_merge: 8,
                ..config(DType::Bf16, [128, 64, 16], 8, [8, 2])
            },
            "dgrad_bf16_n2_g96_c96_k96_i9x30_f3x3_s1x1_p1x1_d1x1",
        ),
    ] {
        let p = prob(key);
        let d = emit(&dgrad(simt), &p).unwrap();
        let f = emit(&simt, &p.dgrad_dual().unwrap()).unwrap();
        assert!(d.code.starts_with("// gconv direct backward-data kernel"));
        assert!(f.code.starts_with("// gconv direct forward kernel"));
        assert!(d.code.contains(&format!("// problem: {p}\n")));
        assert!(d.code.contains("dgrad_w_index<"), "{key}");
        assert!(!f.code.contains("dgrad_w_index"), "{key}");
        assert!(!d.code.contains("@WEIGHTS@") && !f.code.contains("@WEIGHTS@"));
        // Same launch, same constants (the dual's).
        assert_eq!(d.launches[0].grid, f.launches[0].grid);
        assert_eq!(
            d.launches[0].dynamic_smem_bytes,
            f.launches[0].dynamic_smem_bytes
        );
        // Same constants (the dual's) but the direction flag, which moves the gathered
        // weights into walk_tiles' prologue.
        assert!(d.code.contains("constexpr int DGRAD = 1;\n"), "{key}");
        assert!(f.code.contains("constexpr int DGRAD = 0;\n"), "{key}");
        let consts = |code: &str| -> Vec<String> {
            code.lines()
                .filter(|l| {
                    l.starts_with("constexpr int ") && !l.starts_with("constexpr int DGRAD ")
                })
                .map(str::to_string)
                .collect()
        };
        assert_eq!(consts(&d.code), consts(&f.code), "{key}");
    }
}

#[test]
fn the_dgrad_pool_is_the_forward_pool_relabelled_then_the_phase_members() {
    for dt in DType::ALL {
        let f = direct_forward_pool(dt);
        let d = pool::pool(Direction::Dgrad, dt);
        let extra = pool::phase_mma_pool(dt);
        assert_eq!(d.len(), f.len() + extra.len());
        assert_eq!(extra.is_empty(), dt == DType::F32);
        for (a, b) in d.iter().zip(&f) {
            assert_eq!(a.direction, Direction::Dgrad);
            assert_eq!(a.with_fwd(), *b);
            assert!(a.to_string().starts_with("direct_dgrad_"));
            validate(a, Arch::Sm90).unwrap_or_else(|e| panic!("{a}: {e}"));
        }
        // Then the stride-phase members: persistent tensor-core tiles that the forward pool
        // does not hold, each running the stride-phase kernel on the real client's G 4 112²
        // stride-2 layer.
        let strided: gconv_problem::Problem =
            "dgrad_bf16_n64_g4_c64_k64_i112x112_f3x3_s2x2_p1x1_d1x1"
                .parse()
                .unwrap();
        let strided = Problem {
            dtype: dt,
            ..strided
        };
        assert!(strided::applies(&strided));
        for a in &d[f.len()..] {
            assert_eq!(
                (a.direction, a.math, a.stages),
                (Direction::Dgrad, Math::Mma, 2)
            );
            assert!(!f.contains(&a.with_fwd()), "{a} is a forward member too");
            validate(a, Arch::Sm90).unwrap_or_else(|e| panic!("{a}: {e}"));
            can_implement(a, &strided).unwrap_or_else(|e| panic!("{a}: {e}"));
        }
    }
    // Every depthwise zoo layer, as dgrad, runs on several members: the stride-1 ones
    // through the dual, the strided ones on the stride-phase kernel.
    let text = include_str!("../../../../configs/problems/depthwise_fwd.txt");
    let problems = gconv_problem::parse_problems_text("problems_depthwise_fwd", text).unwrap();
    let mut strided_layers = 0;
    for p in &problems {
        let p = p.with_direction(Direction::Dgrad);
        strided_layers += usize::from(strided::applies(&p));
        let n = pool::pool(Direction::Dgrad, p.dtype)
            .iter()
            .filter(|c| can_implement(c, &p).is_ok())
            .count();
        assert!(n >= 6, "{p}: {n} configs");
    }
    assert!(strided_layers >= 2, "{strided_layers} strided layers");
}

#[test]
fn the_depthwise_zoo_layers_are_covered() {
    // configs/problems/depthwise_fwd.txt: every layer runs on several pool configs.
    let text = include_str!("../../../../configs/problems/depthwise_fwd.txt");
    let problems = gconv_problem::parse_problems_text("problems_depthwise_fwd", text).unwrap();
    assert_eq!(problems.len(), 16);
    for p in problems {
        let n = direct_forward_pool(p.dtype)
            .iter()
            .filter(|c| can_implement(c, &p).is_ok())
            .count();
        assert!(n >= 6, "{p}: {n} configs");
    }
}

#[test]
fn group_merge_rules() {
    let mma = KernelConfig {
        math: Math::Mma,
        group_merge: 8,
        ..config(DType::Bf16, [224, 64, 28], 8, [8, 2])
    };
    let v = |c: KernelConfig| validate(&c, Arch::Sm90).map_err(|e| e.reason());
    assert_eq!(v(mma), Ok(()));
    for gm in [3, 32] {
        assert_eq!(
            v(KernelConfig {
                group_merge: gm,
                ..mma
            }),
            Err("bad_group_merge"),
            "gm {gm}"
        );
    }
    let simt = KernelConfig {
        group_merge: 2,
        ..config(DType::Bf16, [224, 32, 28], 4, [2, 7])
    };
    assert_eq!(v(simt), Err("direct_field_fixed"));
    let ci = |c: &KernelConfig, k: &str| can_implement(c, &prob(k)).map_err(|e| e.reason());
    // Depthwise: 8 merged groups of one channel are one group of 8 (block-diagonal).
    let dw = prob("fwd_bf16_n2_g96_c96_k96_i28x28_f3x3_s1x1_p1x1_d1x1");
    assert_eq!(
        ci(&mma, "fwd_bf16_n2_g96_c96_k96_i28x28_f3x3_s1x1_p1x1_d1x1"),
        Ok(())
    );
    let kp = kernel_problem(&mma, &dw);
    assert_eq!((kp.g, kp.cpg(), kp.kpg(), kp.c, kp.k), (12, 8, 8, 96, 96));
    assert_eq!(kernel_problem(&simt, &dw), dw);
    assert_eq!(
        ci(&mma, "fwd_bf16_n2_g60_c60_k60_i28x28_f3x3_s1x1_p1x1_d1x1"),
        Err("group_merge_not_divisor")
    );
    let gm2 = KernelConfig {
        group_merge: 2,
        ..mma
    };
    assert_eq!(
        ci(&gm2, "fwd_bf16_n2_g96_c96_k96_i28x28_f3x3_s1x1_p1x1_d1x1"),
        Err("direct_mma_channels")
    );
    assert_eq!(
        ci(&gm2, "fwd_bf16_n2_g32_c128_k128_i14x14_f3x3_s1x1_p1x1_d1x1"),
        Ok(())
    );
    // Groups whose channels already fill whole k8 chunks are not merged.
    assert_eq!(
        ci(&gm2, "fwd_bf16_n2_g32_c256_k256_i14x14_f3x3_s1x1_p1x1_d1x1"),
        Err("direct_group_merge_needless")
    );
    let e = can_implement(
        &gm2,
        &prob("fwd_bf16_n2_g32_c256_k256_i14x14_f3x3_s1x1_p1x1_d1x1"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("gm1"), "{e}");
    // The merged geometry: 64 output channels per CTA = 8 merged groups of 8 channels.
    let g = geometry(&mma, &dw);
    assert_eq!((g.ct, g.grid[1]), (64, 2));
    let e = emit(&mma, &dw).expect("emits");
    for line in [
        "constexpr int G_ = 12;",
        "constexpr int CG = 8;",
        "constexpr int GM = 8;",
        "constexpr int CG0 = 1;",
        "constexpr int KG0 = 1;",
    ] {
        assert!(e.code.contains(line), "{line}");
    }
}

#[test]
fn every_pool_config_emits_on_its_layers() {
    // simt members on depthwise layers; mma members on C/G 8/16/24/32/56 layers, (group
    // merge) C/G 2 and 4 layers and 3D layers (each member runs at least two of them, every
    // layer has at least two members).
    let mma_keys = [
        "fwd_{dt}_n2_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
        "fwd_{dt}_n2_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1",
        "fwd_{dt}_n2_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
        "fwd_{dt}_n2_g2_c48_k48_i56x56_f3x3_s1x1_p1x1_d1x1",
        "fwd_{dt}_n2_g14_c336_k336_i14x14_f3x3_s1x1_p1x1_d1x1",
        "fwd_{dt}_n2_g8_c448_k448_i14x14_f3x3_s1x1_p1x1_d1x1",
        "fwd_{dt}_n2_g16_c32_k32_i28x28_f3x3_s1x1_p1x1_d1x1",
        "fwd_{dt}_n2_g32_c128_k128_i14x14_f3x3_s2x2_p1x1_d1x1",
        "fwd_{dt}_n2_g8_c32_k32_i28x28_f5x5_s1x1_p2x2_d1x1",
        // 3D C/G 8 and 16 (the depth-streaming members run only 3D layers with depth taps).
        "fwd_{dt}_n2_g32_c256_k256_i4x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        "fwd_{dt}_n2_g16_c256_k256_i6x14x14_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ];
    let mut per_key = [0usize; 11];
    for dt in DType::ALL {
        for c in direct_forward_pool(dt) {
            if c.math == Math::Mma {
                let mut n = 0;
                for (i, key) in mma_keys.iter().enumerate() {
                    let p = prob(&key.replace("{dt}", dt.token()));
                    if can_implement(&c, &p).is_ok() {
                        emit(&c, &p).unwrap_or_else(|e| panic!("{c} on {p}: {e}"));
                        n += 1;
                        per_key[i] += 1;
                    }
                }
                assert!(n >= 2, "{c}: {n} layers");
                continue;
            }
            for key in [
                "fwd_{dt}_n2_g32_c32_k32_i10x10_f3x3_s1x1_p1x1_d1x1",
                "fwd_{dt}_n2_g144_c144_k144_i14x14_f7x7_s1x1_p3x3_d1x1",
            ] {
                let p = prob(&key.replace("{dt}", dt.token()));
                emit(&c, &p).unwrap_or_else(|e| panic!("{c} on {p}: {e}"));
            }
        }
    }
    assert!(per_key.iter().all(|&n| n >= 2), "{per_key:?}");
}

#[test]
fn wgrad_rules() {
    let base = KernelConfig {
        direction: Direction::Wgrad,
        stages: 2,
        split_k: 0,
        ..config(DType::Bf16, [128, 64, 16], 8, [8, 9])
    };
    let r = |c: KernelConfig| validate(&c, Arch::Sm90).map_err(|e| e.reason());
    assert_eq!(r(base), Ok(()));
    assert_eq!(r(KernelConfig { split_k: 7, ..base }), Ok(()));
    assert_eq!(
        r(KernelConfig {
            split_k: 65,
            ..base
        }),
        Err("direct_field_fixed")
    );
    assert_eq!(
        r(KernelConfig {
            split_k_mode: crate::config::SplitKMode::Atomic,
            ..base
        }),
        Err("direct_field_fixed")
    );
    // The tensor-core twin reads vec_b as its M slices (at most 16).
    assert_eq!(
        r(KernelConfig {
            math: Math::Mma,
            vec_b: 17,
            ..base
        }),
        Err("bad_vector_width")
    );
    assert_eq!(
        r(KernelConfig { vec_b: 33, ..base }),
        Err("bad_vector_width")
    );
    assert_eq!(
        r(KernelConfig { tile_n: 60, ..base }),
        Err("tile_out_of_range")
    );
    let reason = |c: &KernelConfig, key: &str| can_implement(c, &prob(key)).map_err(|e| e.reason());
    // C/G and K/G at most 4; whole groups per channel tile.
    assert_eq!(
        reason(&base, "wgrad_bf16_n2_g4_c32_k32_i8x8_f3x3_s1x1_p1x1_d1x1"),
        Err("direct_wgrad_channels")
    );
    assert_eq!(
        reason(&base, "wgrad_bf16_n2_g8_c8_k48_i8x8_f3x3_s1x1_p1x1_d1x1"),
        Err("direct_wgrad_channels")
    );
    assert_eq!(
        reason(&base, "wgrad_bf16_n2_g8_c8_k24_i8x8_f3x3_s1x1_p1x1_d1x1"),
        Err("direct_channel_tile")
    );
    // 31x31 = 961 taps in 107 groups of 9 x 8 lanes: more than 256 threads.
    assert_eq!(
        reason(
            &base,
            "wgrad_bf16_n1_g64_c64_k64_i32x32_f31x31_s1x1_p15x15_d1x1"
        ),
        Err("direct_wgrad_thread_mapping")
    );
    // A fixed slab count above the tiles (2 tiles here).
    assert_eq!(
        reason(
            &KernelConfig { split_k: 3, ..base },
            "wgrad_bf16_n2_g8_c8_k8_i8x16_f3x3_s1x1_p1x1_d1x1"
        ),
        Err("direct_wgrad_slabs")
    );
}

/// The slab rule: sized from the whole grid (channel blocks) and the wave, clamped to the tiles
/// and `MAX_SPLIT`, snapped (no slab short by more than one tile), and capped by the 10 %
/// partial-traffic bound.
#[test]
fn wgrad_slab_rule_clamps_snaps_and_bounds_the_partial_traffic() {
    let cfg = KernelConfig {
        direction: Direction::Wgrad,
        stages: 2,
        split_k: 0,
        ..config(DType::Bf16, [128, 64, 16], 8, [8, 9])
    };
    let traffic = |p: &Problem, slabs: u64| {
        let dw = p.elements(gconv_problem::TensorRole::W) as f64;
        let xy = (p.elements(gconv_problem::TensorRole::X)
            + p.elements(gconv_problem::TensorRole::Y)) as f64
            * p.dtype.size_bytes() as f64;
        2.0 * slabs as f64 * dw * 4.0 / xy
    };
    // The 10 % bound: |X| + |dY| = 2·N·H·W·C·2 bytes, a plane 2·C·9·4 bytes per slab.
    let p = prob("wgrad_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1");
    let cap = wgrad::traffic_cap(&p);
    assert_eq!(
        cap,
        (0.1 * (2.0 * 32.0 * 112.0 * 112.0 * 32.0 * 2.0) / (2.0 * 32.0 * 9.0 * 4.0)) as u64
    );
    // Sized by the grid: 1 channel block, a wave of several hundred CTAs: clamped to MAX_SPLIT.
    assert_eq!(
        wgrad::slab_count(&cfg, &p, 1, 528, 7 * 14 * 32),
        crate::shared::MAX_SPLIT as u64
    );
    // Clamped to the tiles and snapped: 10 tiles, 7 wanted -> 2 tiles per slab -> 5 slabs.
    assert_eq!(wgrad::slab_count(&cfg, &p, 75, 528, 10), 5);
    assert_eq!(wgrad::slab_count(&cfg, &p, 1, 528, 3), 3);
    // The traffic cap wins on a small spatial extent with a large filter: 1 slab.
    let big = prob("wgrad_bf16_n1_g16_c16_k16_i20x21_f13x13_s1x1_p6x6_d1x1");
    assert_eq!(wgrad::traffic_cap(&big), 1);
    assert_eq!(wgrad::slab_count(&cfg, &big, 1, 528, 4), 1);
    // A cap of 14 on 30 tiles snaps to 10 slabs of 3 tiles (not 14 with a short last slab).
    let mid = prob("wgrad_bf16_n2_g8_c8_k8_i33x40_f3x3_s1x1_p1x1_d1x1");
    assert_eq!(wgrad::traffic_cap(&mid), 14);
    assert_eq!(wgrad::slab_count(&cfg, &mid, 1, 528, 30), 10);
    // A fixed count is taken as given.
    assert_eq!(
        wgrad::slab_count(&KernelConfig { split_k: 6, ..cfg }, &mid, 1, 528, 30),
        6
    );
    // On every admitted zoo layer the plan's P keeps the partials within 10 % and the
    // resolved config names it.
    for key in WGRAD_ZOO {
        let p = prob(key);
        let mut admitted = 0;
        for c in pool::pool(Direction::Wgrad, DType::Bf16) {
            let Ok(a) = admit(&c, &p, &Target::H200) else {
                continue;
            };
            admitted += 1;
            let slabs = a.grid()[0];
            assert_eq!(a.config().split_k as u64, slabs, "{c} on {key}");
            // Within 10 %, or (streaming and banded members, the streaming slab rule) no more
            // slabs than one wave of the grid.
            let one_wave = if stream::applies(&c, &p) {
                let g = stream::geometry(&c, &p, &DeviceLimits::H200);
                let regs = stream::register_estimate(&c, &p);
                DeviceLimits::H200.wave(g.smem_bytes, c.threads(), regs) / g.grid[1]
            } else if banded::applies(&c, &p) {
                let g = banded::geometry(&c, &p, &DeviceLimits::H200);
                let regs = banded::register_estimate(&c, &p);
                DeviceLimits::H200.wave(g.smem_bytes, c.threads(), regs) / g.grid[1]
            } else {
                0
            };
            assert!(
                slabs == 1 || traffic(&p, slabs) <= 0.1 + 1e-12 || slabs <= one_wave,
                "{c} on {key}: {slabs}"
            );
            let src = a.emit();
            assert_eq!(src.launches.len(), if slabs > 1 { 2 } else { 1 });
            assert!(
                src.kernel_name.contains(&format!("_sk{slabs}d_")),
                "{}",
                src.kernel_name
            );
        }
        assert!(admitted >= 2, "{key}: {admitted} members");
    }
}

/// The bf16 backward-weight model-zoo layers the direct family serves: 14 depthwise 2D, 2
/// depthwise 3D and the one with C/G = K/G = 4 (its C/G 8–32 siblings are igemm's: the
/// direct family rejects them, `wgrad_rules`).
const WGRAD_ZOO: &[&str] = &[
    "wgrad_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
    "wgrad_bf16_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
    "wgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1",
    "wgrad_bf16_n32_g192_c192_k192_i28x28_f3x3_s1x1_p1x1_d1x1",
    "wgrad_bf16_n32_g384_c384_k384_i14x14_f3x3_s1x1_p1x1_d1x1",
    "wgrad_bf16_n32_g576_c576_k576_i14x14_f3x3_s2x2_p1x1_d1x1",
    "wgrad_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1",
    "wgrad_bf16_n32_g240_c240_k240_i28x28_f5x5_s1x1_p2x2_d1x1",
    "wgrad_bf16_n32_g672_c672_k672_i14x14_f5x5_s1x1_p2x2_d1x1",
    "wgrad_bf16_n32_g1152_c1152_k1152_i7x7_f5x5_s1x1_p2x2_d1x1",
    "wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
    "wgrad_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1",
    "wgrad_bf16_n32_g384_c384_k384_i14x14_f7x7_s1x1_p3x3_d1x1",
    "wgrad_bf16_n32_g768_c768_k768_i7x7_f7x7_s1x1_p3x3_d1x1",
    "wgrad_bf16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    "wgrad_bf16_n8_g216_c216_k216_i16x14x14_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    "wgrad_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
];

#[test]
fn the_wgrad_pool_validates_and_emits_without_workspace_at_one_slab() {
    for dt in DType::ALL {
        let members = pool::pool(Direction::Wgrad, dt);
        assert!(members.len() >= 4, "{dt:?}");
        assert!(
            members.iter().filter(|c| c.stages == 1).count() >= 5,
            "{dt:?}"
        );
        for c in &members {
            assert_eq!((c.direction, c.split_k), (Direction::Wgrad, 0));
            // 3: the register-pipelined tensor-core members.
            assert!((1..=3).contains(&c.stages), "{c}");
            validate(c, Arch::Sm90).unwrap_or_else(|e| panic!("{c}: {e}"));
        }
    }
    // One slab: one launch, no workspace, dW written by the main kernel; the module is
    // deterministic text.
    let c = KernelConfig {
        direction: Direction::Wgrad,
        stages: 2,
        split_k: 1,
        ..config(DType::F32, [128, 32, 16], 8, [4, 9])
    };
    let p = prob("wgrad_f32_n1_g20_c20_k20_i10x18_f3x3_s1x1_p1x1_d1x1");
    let a = emit(&c, &p).unwrap();
    assert_eq!((a.launches.len(), a.workspace_bytes), (1, 0));
    assert!(a.code.contains("#define GCONV_SPLIT_REDUCE 0"));
    assert_eq!(a, emit(&c, &p).unwrap());
    // Several slabs: the reduction over |dW| follows, with P planes of f32 partials.
    let c4 = KernelConfig { split_k: 4, ..c };
    let p4 = prob("wgrad_f32_n4_g20_c20_k20_i10x18_f3x3_s1x1_p1x1_d1x1");
    let a4 = emit(&c4, &p4).unwrap();
    assert_eq!(a4.launches.len(), 2);
    assert_eq!(a4.launches[1].entry, format!("{c4}_reduce"));
    assert_eq!(a4.workspace_bytes, 4 * 20 * 9 * 4);
    // 180 elements of 4 planes: 4 slices per element (the most), 64 elements per CTA.
    assert!(a4.code.contains("#define GCONV_RED_SLICES 4"));
    assert_eq!(a4.launches[1].grid[0], (20u32 * 9).div_ceil(64));
    assert_eq!(a4.launches[1].block, [256, 1, 1]);
}

fn stream_cfg(dtype: DType, tw: u32, bn: u32, vec: [u32; 2]) -> KernelConfig {
    KernelConfig {
        direction: Direction::Wgrad,
        stages: 1,
        split_k: 0,
        ..config(dtype, [tw, bn, tw], 8, vec)
    }
}

#[test]
fn stream_rules() {
    let base = stream_cfg(DType::Bf16, 8, 64, [2, 3]);
    assert_eq!(
        base.to_string(),
        "direct_wgrad_bf16_t8x64x8_w8x1_s1_v2x3_gm1_sk0d_simt_gen"
    );
    let r = |c: KernelConfig| validate(&c, Arch::Sm90).map_err(|e| e.reason());
    assert_eq!(r(base), Ok(()));
    // More slabs than the shared MAX_SPLIT are allowed (tiny partial planes), up to 256.
    assert_eq!(
        r(KernelConfig {
            split_k: 200,
            ..base
        }),
        Ok(())
    );
    assert_eq!(
        r(KernelConfig {
            split_k: 257,
            ..base
        }),
        Err("direct_field_fixed")
    );
    assert_eq!(
        r(KernelConfig { stages: 3, ..base }),
        Err("direct_field_fixed")
    );
    assert_eq!(
        r(KernelConfig {
            group_merge: 2,
            ..base
        }),
        Err("direct_field_fixed")
    );
    assert_eq!(r(KernelConfig { vec_a: 8, ..base }), Ok(()));
    assert_eq!(
        r(KernelConfig { vec_a: 16, ..base }),
        Err("bad_vector_width")
    );
    assert_eq!(
        r(KernelConfig { vec_a: 3, ..base }),
        Err("bad_vector_width")
    );
    assert_eq!(
        r(KernelConfig { vec_b: 17, ..base }),
        Err("bad_vector_width")
    );
    assert_eq!(
        r(KernelConfig { vec_b: 0, ..base }),
        Err("bad_vector_width")
    );
    assert_eq!(
        r(KernelConfig { tile_m: 16, ..base }),
        Err("tile_out_of_range")
    );
    assert_eq!(
        r(KernelConfig {
            tile_m: 33,
            tile_k: 33,
            ..base
        }),
        Err("tile_out_of_range")
    );
    assert_eq!(
        r(KernelConfig { tile_n: 63, ..base }),
        Err("tile_out_of_range")
    );
    // Names round-trip for every streaming member and a resolved slab count.
    for dt in DType::ALL {
        for c in pool::stream_pool(dt) {
            assert_eq!(c.to_string().parse::<KernelConfig>().unwrap(), c);
            assert_eq!(r(c), Ok(()), "{c}");
        }
    }
    let resolved = KernelConfig {
        split_k: 158,
        ..base
    };
    assert_eq!(
        resolved.to_string().parse::<KernelConfig>().unwrap(),
        resolved
    );
    let reason = |c: &KernelConfig, key: &str| can_implement(c, &prob(key)).map_err(|e| e.reason());
    assert_eq!(
        reason(&base, "wgrad_bf16_n2_g16_c16_k16_i9x11_f3x3_s1x1_p1x1_d1x1"),
        Ok(())
    );
    // Depthwise only: a channel multiplier and C/G = 2 take the slab kernel.
    assert_eq!(
        reason(&base, "wgrad_bf16_n2_g6_c6_k12_i11x13_f3x3_s1x1_p1x1_d1x1"),
        Err("direct_wgrad_stream_depthwise")
    );
    assert_eq!(
        reason(&base, "wgrad_bf16_n2_g3_c6_k6_i10x12_f3x3_s1x1_p1x1_d1x1"),
        Err("direct_wgrad_stream_depthwise")
    );
    // 31 tap-row groups of one row x 32 lanes: more than 256 threads.
    let rows1 = stream_cfg(DType::Bf16, 8, 64, [2, 1]);
    assert_eq!(
        reason(
            &rows1,
            "wgrad_bf16_n1_g64_c64_k64_i32x32_f31x31_s1x1_p15x15_d1x1"
        ),
        Err("direct_wgrad_stream_thread_mapping")
    );
    // 16 channels (8 lanes) x 31 groups fit: 62 accumulators.
    assert_eq!(
        reason(
            &stream_cfg(DType::Bf16, 8, 16, [2, 1]),
            "wgrad_bf16_n1_g64_c64_k64_i32x32_f31x31_s1x1_p15x15_d1x1"
        ),
        Ok(())
    );
    // 3 rows x 7 taps x 4 channels = 84 accumulators > 64; the group clamps to the rows
    // (a 1D filter has one tap row: 1 x 5 x 4 = 20).
    let v4 = stream_cfg(DType::Bf16, 8, 128, [4, 3]);
    assert_eq!(
        reason(&v4, "wgrad_bf16_n2_g32_c32_k32_i14x14_f7x7_s1x1_p3x3_d1x1"),
        Err("direct_wgrad_stream_accumulators")
    );
    assert_eq!(
        reason(&v4, "wgrad_bf16_n2_g24_c24_k24_i70_f5_s1_p2_d1"),
        Ok(())
    );
    assert_eq!(
        stream::thread_mapping(&v4, &prob("wgrad_bf16_n2_g24_c24_k24_i70_f5_s1_p2_d1")),
        (1, 1, 32, 8)
    );
    // A fixed slab count above the units (2 x 8 x 2 strips = 32 here).
    assert_eq!(
        reason(
            &KernelConfig {
                split_k: 33,
                ..base
            },
            "wgrad_bf16_n2_g8_c8_k8_i8x16_f3x3_s1x1_p1x1_d1x1"
        ),
        Err("direct_wgrad_slabs")
    );
    assert_eq!(
        reason(
            &KernelConfig {
                split_k: 32,
                ..base
            },
            "wgrad_bf16_n2_g8_c8_k8_i8x16_f3x3_s1x1_p1x1_d1x1"
        ),
        Ok(())
    );
}

/// The streaming slab rule: sized for two waves of the whole grid, clamped to the units,
/// `MAX_STREAM_SLABS` and the 10 % partial-traffic cap (never below one wave), snapped (no
/// slab short by more than one unit).
#[test]
fn stream_slab_rule_sizes_two_waves_clamps_and_snaps() {
    let cfg = stream_cfg(DType::Bf16, 8, 64, [2, 3]);
    let p = prob("wgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1");
    let units = stream::units(&p, 8);
    assert_eq!(units, 32 * 56 * 7);
    // 3 channel blocks on a wave of 528 CTAs: 2 waves want 352 slabs; clamped to 256.
    assert_eq!(stream::slab_count(&cfg, &p, 3, 528, units), 256);
    // 9 channel blocks: 118 slabs wanted; 12544 units snap to 12544 / 107 -> 118.
    let want = (2 * 528u64).div_ceil(9);
    let snapped = units.div_ceil(units.div_ceil(want));
    assert_eq!(stream::slab_count(&cfg, &p, 9, 528, units), snapped);
    assert!(snapped <= want);
    // Clamped to the units and snapped: 10 units, 7 wanted -> 2 per slab -> 5 slabs.
    assert_eq!(stream::slab_count(&cfg, &p, 151, 528, 10), 5);
    // The traffic cap (10 %) never leaves less than one wave: a small map with a large filter
    // has a cap of 1 slab, but one channel block on a wave of 528 CTAs takes its 60 units as
    // 60 slabs (one CTA on 132 SMs would be bound by idle SMs, not by the planes' bytes).
    let big = prob("wgrad_bf16_n1_g16_c16_k16_i20x21_f13x13_s1x1_p6x6_d1x1");
    assert_eq!(wgrad::traffic_cap(&big), 1);
    assert_eq!(stream::slab_count(&cfg, &big, 1, 528, 60), 60);
    // Where one wave is below the cap, the cap holds: 330 units, cap 14, one wave of 12 CTAs
    // in 1 channel block -> 24 units per slab -> 14 slabs.
    let mid = prob("wgrad_bf16_n2_g8_c8_k8_i33x40_f3x3_s1x1_p1x1_d1x1");
    assert_eq!(wgrad::traffic_cap(&mid), 14);
    assert_eq!(stream::slab_count(&cfg, &mid, 1, 12, 330), 14);
    // A wave of 264 CTAs over 6 channel blocks lifts a cap of 25 to 44 slabs (the 7×7 layer
    // of 28² pixels: 264 CTAs, one per SM pair, instead of 150).
    let seven = prob("wgrad_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1");
    assert_eq!(wgrad::traffic_cap(&seven), 25);
    let u7 = stream::units(&seven, 7);
    assert_eq!(stream::slab_count(&cfg, &seven, 6, 264, u7), 44);
    assert_eq!(
        stream::slab_count(&KernelConfig { split_k: 6, ..cfg }, &mid, 1, 528, 330),
        6
    );
    // The plan: grid [P, channel blocks, 1], P from the rule, resolved in the name.
    let a = admit(&cfg, &p, &Target::H200).unwrap();
    let g = a.grid();
    assert_eq!(g[1], 3);
    assert!(g[0] > crate::shared::MAX_SPLIT as u64, "{g:?}");
    assert_eq!(a.config().split_k as u64, g[0]);
}

/// On every depthwise zoo layer `auto`'s cost model prefers a streaming member to every slab
/// member (the slab model carries its measured depthwise factor); the C/G = 4 layer has no
/// streaming member. Printed: the best of each kind.
#[test]
fn auto_prefers_the_streaming_kernel_on_depthwise_layers() {
    for key in WGRAD_ZOO {
        let p = prob(key);
        let mut best = [f64::INFINITY; 2];
        for c in pool::pool(Direction::Wgrad, DType::Bf16) {
            let Ok(a) = admit(&c, &p, &Target::H200) else {
                continue;
            };
            let i = usize::from(c.stages >= 2);
            best[i] = best[i].min(a.cost_estimate());
        }
        println!(
            "{key}: stream {:.1} us, slab {:.1} us",
            best[0] * 1e6,
            best[1] * 1e6
        );
        if p.cpg() == 1 && p.kpg() == 1 {
            assert!(best[0] < best[1], "{key}: {best:?}");
        } else {
            assert!(best[0].is_infinite() && best[1].is_finite(), "{key}");
        }
    }
}

#[test]
fn stream_modules_are_deterministic_and_launch_the_reduction_with_slabs() {
    let c = KernelConfig {
        split_k: 1,
        ..stream_cfg(DType::F32, 8, 32, [1, 3])
    };
    let p = prob("wgrad_f32_n1_g20_c20_k20_i10x18_f3x3_s1x1_p1x1_d1x1");
    let a = emit(&c, &p).unwrap();
    assert_eq!((a.launches.len(), a.workspace_bytes), (1, 0));
    assert!(a.code.contains("register streaming"));
    assert!(a.code.contains("#define GCONV_SPLIT_REDUCE 0"));
    assert_eq!(a.launches[0].grid, [1, 1, 1]);
    assert_eq!(a, emit(&c, &p).unwrap());
    let c4 = KernelConfig { split_k: 4, ..c };
    let a4 = emit(&c4, &p).unwrap();
    assert_eq!(a4.launches.len(), 2);
    assert_eq!(a4.launches[1].entry, format!("{c4}_reduce"));
    assert_eq!(a4.workspace_bytes, 4 * 20 * 9 * 4);
    // The shared memory is the slot reduction alone: 8 slots x 32 channels x 9 taps x 4 B.
    assert_eq!(a4.launches[0].dynamic_smem_bytes, 8 * 32 * 9 * 4);
}

/// The tensor-core wgrad members: their names parse back, the structural rules refuse f32,
/// `vec_b` ≠ 1 and tiles off whole k16 steps, the problem rules refuse C/G or K/G off a
/// multiple of 8, partial groups per CTA and too many accumulators, and the slab rule fills one
/// wave without the 10 % traffic cap.
#[test]
fn wgrad_mma_rules_names_and_slabs() {
    let v = |c: KernelConfig| validate(&c, Arch::Sm90).map_err(|e| e.reason());
    let r = |c: &KernelConfig, k: &str| can_implement(c, &prob(k)).map_err(|e| e.reason());
    let pool16 = pool::mma_wgrad_pool(DType::Bf16);
    assert_eq!(pool16.len(), 14);
    // The register-pipelined members (stages 3) are twins of step-by-step ones (stages 2),
    // but the merged C/G 4 member of session 48's sweep, which has none.
    for c in pool16.iter().filter(|c| c.stages == 3) {
        assert!(wgrad_mma::pipelined(c));
        let solo = c.group_merge == 2 && c.tile_m == 112;
        assert_eq!(
            pool16.contains(&KernelConfig { stages: 2, ..*c }),
            !solo,
            "{c}"
        );
    }
    assert_eq!(pool16.iter().filter(|c| c.stages == 3).count(), 5);
    assert!(pool::mma_wgrad_pool(DType::F32).is_empty());
    for c in &pool16 {
        assert_eq!(v(*c), Ok(()), "{c}");
        assert_eq!(c.to_string().parse::<KernelConfig>().as_ref(), Ok(c));
        assert!(wgrad_mma::applies(
            c,
            &prob("wgrad_bf16_n2_g4_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1")
        ));
    }
    let base = pool16[0];
    assert_eq!(
        v(KernelConfig {
            dtype: DType::F32,
            ..base
        }),
        Err("direct_field_fixed")
    );
    // vec_b is the M slice count, 1..=MAX_M_SLICES.
    assert_eq!(v(KernelConfig { vec_b: 2, ..base }), Ok(()));
    assert_eq!(
        v(KernelConfig {
            vec_b: wgrad_mma::MAX_M_SLICES + 1,
            ..base
        }),
        Err("bad_vector_width")
    );
    assert_eq!(
        v(KernelConfig { tile_m: 56, ..base }),
        Err("tile_out_of_range")
    );
    // C/G 4: no 8-channel chunk of one group.
    assert_eq!(
        r(&base, "wgrad_bf16_n2_g8_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1"),
        Err("direct_mma_channels")
    );
    // K/G 32 does not divide tile_n 16.
    assert_eq!(
        r(&base, "wgrad_bf16_n2_g1_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1"),
        Err("direct_channel_tile")
    );
    // C/G 32 5×5 on 8 warps with 2-block units: 4 units per warp × 2 × 4 n8 × 4 > 96.
    let wide = pool16[2];
    assert_eq!(
        r(&wide, "wgrad_bf16_n1_g1_c32_k32_i10x9_f5x5_s1x1_p2x2_d1x1"),
        Err("direct_wgrad_mma_accumulators")
    );
    // M slices: the same layer fits in 2 slices (13 units of 25, 2 per warp), on a grid of z, with
    // the slices' CTAs counted by the slab rule; a slice without a unit is refused (C/G 8 3×3:
    // 5 units of one block, 4 slices of 2 would leave the last empty).
    let sliced = KernelConfig { vec_b: 2, ..wide };
    let c32 = "wgrad_bf16_n1_g1_c32_k32_i10x9_f5x5_s1x1_p2x2_d1x1";
    assert_eq!(r(&sliced, c32), Ok(()));
    let (_, units, upw, _, acc) = wgrad_mma::work(&sliced, &prob(c32));
    assert_eq!((units, upw, acc), (13, 2, 64));
    let sliced = KernelConfig { vec_b: 4, ..wide };
    assert_eq!(wgrad_mma::work(&sliced, &prob(c32)).4, 32);
    assert_eq!(
        admit(&sliced, &prob(c32), &Target::H200).unwrap().grid()[2],
        4
    );
    let one_block = KernelConfig { vec_a: 1, ..base };
    let c8 = "wgrad_bf16_n2_g4_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1";
    assert_eq!(
        r(
            &KernelConfig {
                vec_b: 3,
                ..one_block
            },
            c8
        ),
        Ok(())
    );
    assert_eq!(
        r(
            &KernelConfig {
                vec_b: 4,
                ..one_block
            },
            c8
        ),
        Err("direct_wgrad_mma_m_slices")
    );
    assert_eq!(
        r(
            &KernelConfig {
                vec_b: 6,
                ..one_block
            },
            c8
        ),
        Err("direct_wgrad_mma_m_slices")
    );
    // The slab rule: the zoo C/G 8 layer's traffic cap is 17 slabs; the rule fills one wave.
    let p = prob("wgrad_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1");
    assert_eq!(wgrad::traffic_cap(&p), 17);
    let a = admit(&base, &p, &Target::H200).unwrap();
    let g = a.grid();
    let geo = wgrad_mma::geometry(&base, &p, &DeviceLimits::H200);
    let wave = DeviceLimits::H200.wave(
        geo.smem_bytes,
        base.threads(),
        wgrad_mma::register_estimate(&base, &p),
    );
    assert_eq!(g[1], 16, "two groups of 8 per CTA");
    assert!(
        g[0] > 17 && g[0] * g[1] <= wave,
        "{g:?} on a wave of {wave}"
    );
    assert_eq!(a.config().split_k as u64, g[0]);
    assert!(a
        .emit()
        .kernel_name
        .contains(&format!("_sk{}d_mma_gen", g[0])));
    assert_eq!(a.emit().launches.len(), 2);
    // The register stage: stages 3 is the pipelined kernel (its fragments' second register
    // set in the estimate, within the launch bounds' two CTAs per SM), stages 4 nothing.
    let piped = KernelConfig { stages: 3, ..base };
    assert_eq!(v(piped), Ok(()));
    assert_eq!(
        v(KernelConfig { stages: 4, ..base }),
        Err("direct_field_fixed")
    );
    let (_, _, upw, nb, _) = wgrad_mma::work(&base, &p);
    let mb = base.vec_a as u64;
    assert_eq!(
        u64::from(wgrad_mma::register_estimate(&piped, &p)),
        (u64::from(wgrad_mma::register_estimate(&base, &p)) + upw * (4 * mb + 2 * nb))
            .min(65536 / (2 * u64::from(base.threads())) / 8 * 8)
    );
    let src = admit(&piped, &p, &Target::H200).unwrap().emit();
    assert!(src.code.contains("constexpr int FRAG_PIPE = 1;"));
    assert!(src.code.contains("__launch_bounds__(THREADS, 2)"));
    // Its scope: K/G <= 24 (merged) and no depth taps.
    assert_eq!(
        r(
            &KernelConfig {
                tile_n: 32,
                ..piped
            },
            "wgrad_bf16_n2_g2_c64_k64_i9x9_f3x3_s1x1_p1x1_d1x1"
        ),
        Err("direct_wgrad_mma_pipelined_scope")
    );
    assert_eq!(
        r(
            &piped,
            "wgrad_bf16_n1_g2_c32_k32_i4x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1"
        ),
        Err("direct_wgrad_mma_pipelined_scope")
    );
    assert_eq!(
        r(
            &piped,
            "wgrad_bf16_n1_g2_c32_k32_i4x6x7_f1x3x3_s1x1x1_p0x1x1_d1x1x1"
        ),
        Ok(())
    );
    let src2 = a.emit();
    assert!(src2.code.contains("constexpr int FRAG_PIPE = 0;"));
    assert!(src2.code.contains("__launch_bounds__(THREADS) "));
    // Group merge: gm2 makes C/G = K/G = 4 whole 8-channel groups; it is refused where it is
    // not needed or does not divide G.
    let gm2 = KernelConfig {
        group_merge: 2,
        ..base
    };
    assert_eq!(v(gm2), Ok(()));
    let c4 = "wgrad_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1";
    assert_eq!(r(&base, c4), Err("direct_mma_channels"));
    assert_eq!(r(&gm2, c4), Ok(()));
    assert_eq!(
        r(
            &gm2,
            "wgrad_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
        ),
        Err("direct_group_merge_needless")
    );
    assert_eq!(
        r(&gm2, "wgrad_bf16_n2_g3_c12_k12_i9x9_f3x3_s1x1_p1x1_d1x1"),
        Err("group_merge_not_divisor")
    );
    // The merged kernel's planes hold the real |dW|.
    let a = admit(&gm2, &prob(c4), &Target::H200).unwrap();
    let src = a.emit();
    assert_eq!(src.workspace_bytes, a.grid()[0] * 128 * 9 * 4 * 4);
    assert!(src.code.contains("constexpr int GM = 2;"));
}

/// The banded wgrad kernel's staging stores (`x_store`, `dy_store` in `wgrad_banded.cu`): the
/// lanes of a warp that stage one row take `32 / VECS` consecutive words of each of the VECS
/// channel vectors of their pixels, and every lane's word falls in a bank of its own, because
/// the planes of consecutive groups of 8 channels sit [`banded::plane_group_shift`] words
/// apart (without it, the groups of 16-channel tiles met in one bank: two wavefronts per store,
/// eight at 64 channels). The X planes keep 16-byte `ldmatrix` rows.
#[test]
fn banded_staging_lanes_store_to_distinct_banks() {
    let mut checked = 0;
    for (name, key) in [
        (
            "direct_wgrad_bf16_t448x16x56_w4x1_s1_v8x2_gm1_sk0d_mma_gen",
            "wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
        ),
        (
            "direct_wgrad_bf16_t448x16x32_w8x1_s1_v8x1_gm1_sk0d_mma_gen",
            "wgrad_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1",
        ),
        (
            "direct_wgrad_bf16_t144x32x24_w8x1_s1_v8x1_gm1_sk0d_mma_gen",
            "wgrad_bf16_n2_g64_c64_k64_i10x14_f5x8_s1x1_p2x3_d1x1",
        ),
        (
            "direct_wgrad_bf16_t64x64x16_w8x1_s1_v8x2_gm1_sk0d_mma_gen",
            "wgrad_bf16_n2_g128_c128_k128_i28x28_f5x5_s1x1_p2x2_d1x1",
        ),
        (
            "direct_wgrad_bf16_t32x8x16_w1x1_s1_v8x1_gm1_sk0d_mma_gen",
            "wgrad_bf16_n2_g8_c8_k8_i28x28_f3x3_s1x1_p1x1_d1x1",
        ),
    ] {
        let c: KernelConfig = name.parse().expect("a banded name");
        let p = prob(key);
        assert_eq!(
            can_implement(&c, &p).map_err(|e| e.reason()),
            Ok(()),
            "{name}"
        );
        let g = geometry(&c, &p);
        let vecs = (c.tile_n / 8) as u64;
        let lanes = 32 / vecs;
        let shift = banded::plane_group_shift(&c);
        // Words: an X plane holds halo rows × xrow elements, a dY plane TH rows × 2 copies.
        let x_plane = g.halo[1] * g.xrow / 2;
        let dy_plane = g.th * 2 * banded::dy_copy_words(banded::dy_row(&c, &p));
        for (what, plane, group_shift) in [("X", x_plane, shift), ("dY", dy_plane, shift)] {
            let mut banks: Vec<u64> = (0..vecs)
                .flat_map(|v| (0..lanes).map(move |w| (8 * v * plane + v * group_shift + w) % 32))
                .collect();
            banks.sort_unstable();
            banks.dedup();
            assert_eq!(banks.len() as u64, vecs * lanes, "{name} {what}: {banks:?}");
            checked += 1;
        }
        assert_eq!(
            (2 * shift * 2) % 16,
            0,
            "{name}: X plane groups 16-byte aligned"
        );
        assert_eq!(
            (g.halo[1] * g.xrow * 2) % 16,
            0,
            "{name}: X planes 16-byte aligned"
        );
    }
    // The banded forward kernel's staging (`x_store` in `fwd_banded.cu`): the same lanes, over
    // its X planes of `x_rows` rows of two copies.
    for (name, key) in [
        (
            "direct_fwd_bf16_t512x16x64_w4x1_s1_v1x1_gm1_sk1d_mma_gen",
            "fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
        ),
        (
            "direct_fwd_bf16_t128x32x16_w8x1_s1_v1x1_gm1_sk1d_mma_gen",
            "fwd_bf16_n2_g64_c64_k64_i28x28_f7x7_s1x1_p3x3_d1x1",
        ),
        (
            "direct_dgrad_bf16_t256x64x32_w8x1_s1_v1x1_gm1_sk1d_mma_gen",
            "dgrad_bf16_n2_g128_c128_k128_i28x28_f5x5_s1x1_p2x2_d1x1",
        ),
    ] {
        let c: KernelConfig = name.parse().expect("a banded forward name");
        let p = prob(key);
        assert_eq!(
            can_implement(&c, &p).map_err(|e| e.reason()),
            Ok(()),
            "{name}"
        );
        let f = p.dgrad_dual().unwrap_or(p);
        let vecs = (c.tile_n / 8) as u64;
        let lanes = 32 / vecs;
        let shift = banded::plane_group_shift(&c);
        let plane = fwd_banded::x_rows(&c, &f) * 2 * fwd_banded::copy_words(&c);
        let mut banks: Vec<u64> = (0..vecs)
            .flat_map(|v| (0..lanes).map(move |w| (8 * v * plane + v * shift + w) % 32))
            .collect();
        banks.sort_unstable();
        banks.dedup();
        assert_eq!(banks.len() as u64, vecs * lanes, "{name}: {banks:?}");
        checked += 1;
    }
    assert_eq!(checked, 13);
}

/// The banded tensor-core wgrad kernel (`math = mma`, `stages = 1`): its names parse back and
/// route to it alone; the structural rules refuse f32, an odd or too tall TH, another staging
/// vector, `vec_b` beyond 2 and too many channels per warp; the problem rules refuse every layer
/// outside its scope with its own reason; the dY copies sit 8–24 words apart mod 32; a fixed
/// slab count beyond the tiles is refused.
#[test]
fn banded_rules_names_and_geometry() {
    let v = |c: KernelConfig| validate(&c, Arch::Sm90).map_err(|e| e.reason());
    let r = |c: &KernelConfig, k: &str| can_implement(c, &prob(k)).map_err(|e| e.reason());
    let dw7 = "wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1";
    let name = "direct_wgrad_bf16_t112x16x56_w4x1_s1_v8x1_gm1_sk0d_mma_gen";
    let c: KernelConfig = name.parse().expect("a banded name");
    assert_eq!(c.to_string(), name);
    assert_eq!(v(c), Ok(()));
    assert!(banded::applies(&c, &prob(dw7)));
    assert!(!stream::applies(&c, &prob(dw7)) && !wgrad_mma::applies(&c, &prob(dw7)));
    assert_eq!(r(&c, dw7), Ok(()));
    // vec_b 2: the pipelined variant, with its staging registers in the estimate.
    let piped = KernelConfig { vec_b: 2, ..c };
    assert_eq!(v(piped), Ok(()));
    assert!(banded::pipelined(&piped) && !banded::pipelined(&c));
    let (xt, dt) = banded::staging_tasks(&piped, &prob(dw7));
    assert_eq!((xt, dt), (4, 2));
    assert_eq!(
        banded::register_estimate(&piped, &prob(dw7)),
        banded::register_estimate(&c, &prob(dw7)) + 8 * 4 + 12 * 2
    );
    for bad in [
        KernelConfig {
            dtype: DType::F32,
            ..c
        },
        KernelConfig { tile_m: 168, ..c },
        KernelConfig {
            tile_m: 56 * 18,
            ..c
        },
        KernelConfig { vec_a: 4, ..c },
        KernelConfig { vec_b: 3, ..c },
        KernelConfig {
            tile_n: 64,
            warps_m: 4,
            ..c
        },
        KernelConfig { tile_n: 12, ..c },
    ] {
        assert!(v(bad).is_err(), "{bad}");
    }
    let scope = Err("direct_wgrad_banded_scope");
    for key in [
        "wgrad_bf16_n2_g8_c16_k16_i9x9_f3x3_s1x1_p1x1_d1x1",
        "wgrad_bf16_n2_g12_c12_k12_i9x9_f3x3_s1x1_p1x1_d1x1",
        "wgrad_bf16_n2_g16_c16_k16_i9x9_f3x3_s2x2_p1x1_d1x1",
        "wgrad_bf16_n2_g16_c16_k16_i9x9_f3x3_s1x1_p2x2_d2x2",
        "wgrad_bf16_n2_g16_c16_k16_i4x9x9_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        "wgrad_bf16_n2_g16_c16_k16_i39x39_f33x33_s1x1_p16x16_d1x1",
        "wgrad_bf16_n2_g16_c16_k16_i39x39_f36x5_s1x1_p17x2_d1x1",
    ] {
        assert_eq!(r(&c, key), scope, "{key}");
    }
    // A 7-high, 8-wide filter is one tap block; 9×9 is 2 × 2; 31×31 is 4 × 5 blocks, 80
    // accumulators for one channel per warp and refused for two; a 1D layer is out of scope.
    assert_eq!(
        r(&c, "wgrad_bf16_n2_g16_c16_k16_i19x19_f7x8_s1x1_p3x4_d1x1"),
        Ok(())
    );
    let big = "wgrad_bf16_n2_g16_c16_k16_i39x39_f31x31_s1x1_p15x15_d1x1";
    assert_eq!(banded::tap_blocks(&prob(big)), (4, 5));
    assert_eq!(
        banded::tap_blocks(&prob(
            "wgrad_bf16_n2_g16_c16_k16_i19x19_f9x9_s1x1_p4x4_d1x1"
        )),
        (2, 2)
    );
    let one_per_warp = KernelConfig {
        tile_n: 8,
        warps_m: 8,
        ..c
    };
    assert_eq!(banded::accumulators(&one_per_warp, &prob(big)), 80);
    assert_eq!(r(&one_per_warp, big), Ok(()));
    assert_eq!(r(&c, big), Err("direct_wgrad_banded_accumulators"));
    assert_eq!(r(&c, "wgrad_bf16_n2_g16_c16_k16_i99_f5_s1_p2_d1"), scope);
    assert_eq!(banded::dy_copy_words(72), 40);
    assert_eq!(banded::dy_copy_words(24), 12);
    for row in (24..=200).step_by(8) {
        let w = banded::dy_copy_words(row);
        assert!(2 * w >= row && (8..=24).contains(&(w % 32)), "{row}: {w}");
    }
    let p = prob(dw7);
    assert_eq!(banded::k_chunks(&c, &p), 4);
    assert_eq!(banded::units(&c, &p), 32 * 28);
    let g = geometry(&c, &p);
    assert_eq!((g.th, g.tw, g.halo, g.xrow), (2, 56, [1, 8, 64], 72));
    assert_eq!(banded::dy_row(&c, &p), 72);
    let gb = geometry(&one_per_warp, &prob(big));
    assert_eq!(
        (gb.halo[1], banded::dy_row(&one_per_warp, &prob(big))),
        (2 + 6 + 28, 96 + 32)
    );
    assert_eq!(g.grid[1], 6);
    assert_eq!(
        r(
            &KernelConfig { split_k: 200, ..c },
            "wgrad_bf16_n1_g16_c16_k16_i8x8_f3x3_s1x1_p1x1_d1x1"
        ),
        Err("direct_wgrad_slabs")
    );
}

/// The banded tensor-core forward / backward-data kernel (`math = mma`, `vec_a = 1`): its
/// names parse back and route to it alone (never to the channel path of `mma`); the
/// structural rules refuse f32, group merge, two stages, `vec_b` beyond 2, a TW that is not a
/// multiple of 16, a TH that is not a multiple of 8 and too many accumulators; the problem
/// rules refuse every layer outside its scope with its own reason, and backward data without
/// a dual with the stride-1 rule; the geometry, the copies' distance and the pipelined grid.
#[test]
fn fwd_banded_rules_names_and_geometry() {
    let v = |c: KernelConfig| validate(&c, Arch::Sm90).map_err(|e| e.reason());
    let r = |c: &KernelConfig, k: &str| can_implement(c, &prob(k)).map_err(|e| e.reason());
    let dw7 = "fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1";
    let name = "direct_fwd_bf16_t1024x16x64_w8x1_s1_v1x1_gm1_sk1d_mma_gen";
    let c: KernelConfig = name.parse().expect("a banded forward name");
    assert_eq!(c.to_string(), name);
    assert_eq!(v(c), Ok(()));
    assert!(fwd_banded::applies(&c, &prob(dw7)));
    assert!(!banded::applies(&c, &prob(dw7)) && !stream::applies(&c, &prob(dw7)));
    assert_eq!(r(&c, dw7), Ok(()));
    let dgrad: KernelConfig = "direct_dgrad_bf16_t1024x16x64_w8x1_s1_v1x1_gm1_sk1d_mma_gen"
        .parse()
        .expect("a banded backward-data name");
    assert_eq!(
        r(
            &dgrad,
            "dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1"
        ),
        Ok(())
    );
    // No dual (stride 2): the tensor-core stride-phase kernel has no banded tile.
    assert_eq!(
        r(
            &dgrad,
            "dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s2x2_p3x3_d1x1"
        ),
        Err("direct_phase_mma_scope")
    );
    for bad in [
        KernelConfig {
            dtype: DType::F32,
            ..c
        },
        KernelConfig {
            group_merge: 2,
            ..c
        },
        KernelConfig { stages: 2, ..c },
        KernelConfig { vec_b: 3, ..c },
        KernelConfig {
            tile_k: 56,
            tile_m: 16 * 56,
            ..c
        },
        KernelConfig {
            tile_m: 12 * 64,
            ..c
        },
        KernelConfig {
            tile_n: 64,
            warps_m: 4,
            ..c
        },
    ] {
        assert!(v(bad).is_err(), "{bad}");
    }
    // A channel-path vec_a stays on the channel path: refused on a depthwise layer for its
    // channels, not for the banded scope.
    assert_eq!(
        r(&KernelConfig { vec_a: 8, ..c }, dw7),
        Err("direct_mma_channels")
    );
    let scope = Err("direct_fwd_banded_scope");
    for key in [
        "fwd_bf16_n2_g8_c16_k16_i9x9_f3x3_s1x1_p1x1_d1x1",
        "fwd_bf16_n2_g12_c12_k12_i9x9_f3x3_s1x1_p1x1_d1x1",
        "fwd_bf16_n2_g16_c16_k16_i9x9_f3x3_s2x2_p1x1_d1x1",
        "fwd_bf16_n2_g16_c16_k16_i9x9_f3x3_s1x1_p2x2_d2x2",
        "fwd_bf16_n2_g16_c16_k16_i4x9x9_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        "fwd_bf16_n2_g16_c16_k16_i19x19_f3x9_s1x1_p1x4_d1x1",
        "fwd_bf16_n2_g16_c16_k16_i19x19_f17x3_s1x1_p8x1_d1x1",
    ] {
        assert_eq!(r(&c, key), scope, "{key}");
    }
    let p = prob(dw7);
    assert_eq!(fwd_banded::row_pairs(&p), 7);
    assert_eq!(fwd_banded::x_rows(&c, &p), 8 + 14);
    assert_eq!(fwd_banded::accumulators(&c), 4 * 2 * 2 * 4);
    let g = geometry(&c, &p);
    assert_eq!((g.th, g.tw, g.halo), (16, 64, [1, 22, 72]));
    assert_eq!(g.grid, [32 * 4, 6, 1]);
    for tw in (16..=128).step_by(16) {
        let w = fwd_banded::copy_words(&KernelConfig { tile_k: tw, ..c });
        assert!(
            2 * w > tw as u64 + 8 && w.is_multiple_of(4) && (8..=24).contains(&(w % 32)),
            "{tw}: {w}"
        );
    }
    // The pipelined variant walks up to TILES_PER_CTA tiles per CTA.
    let piped = KernelConfig { vec_b: 2, ..c };
    assert_eq!(v(piped), Ok(()));
    assert_eq!(
        geometry(&piped, &p).grid,
        [(32 * 4u64).div_ceil(fwd_banded::TILES_PER_CTA), 6, 1]
    );
    assert!(fwd_banded::register_estimate(&piped, &p) > fwd_banded::register_estimate(&c, &p));
}

/// Depth streaming (`stages = 3`, tensor cores): the names parse back; the structural rules
/// refuse it on CUDA cores; the problem rules refuse every layer without depth taps, with a
/// depth stride or a depth dilation (their own reason); on a 3D layer, forward and the dual of
/// backward data, the plan launches one CTA per tile column and channel block with a ring of
/// FZ + 1 one-slice buffers, and the module says so.
#[test]
fn depth_streaming_rules_geometry_and_module() {
    let c: KernelConfig = "direct_fwd_bf16_t112x32x16_w8x1_s3_v8x4_gm1_sk1d_mma_gen"
        .parse()
        .unwrap();
    assert_eq!(
        c.to_string(),
        "direct_fwd_bf16_t112x32x16_w8x1_s3_v8x4_gm1_sk1d_mma_gen"
    );
    assert!(validate(&c, Arch::Sm90).is_ok());
    assert_eq!(
        view::DirectView::of(&c).to_string(),
        "7x16 pixels x 32 channels, 8 warps, warp units of up to 8 channels x 4 m16 blocks, streaming over depth"
    );
    let simt: KernelConfig = "direct_fwd_bf16_t196x32x14_w7x1_s3_v2x7_gm1_sk1d_simt_gen"
        .parse()
        .unwrap();
    assert_eq!(
        validate(&simt, Arch::Sm90).unwrap_err().reason(),
        "direct_field_fixed"
    );
    let p3 = prob("fwd_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1");
    assert!(can_implement(&c, &p3).is_ok());
    for refused in [
        "fwd_bf16_n8_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
        "fwd_bf16_n8_g32_c256_k256_i8x28x28_f1x3x3_s1x1x1_p0x1x1_d1x1x1",
        "fwd_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s2x1x1_p1x1x1_d1x1x1",
        "fwd_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p2x1x1_d2x1x1",
    ] {
        assert_eq!(
            can_implement(&c, &prob(refused)).unwrap_err().reason(),
            "direct_depth_stream_scope",
            "{refused}"
        );
    }
    // 28x28 in 7x16 tiles: 4 x 2 columns per image, 8 images; 8 channel blocks of 32.
    let g = geometry(&c, &p3);
    assert_eq!(g.grid, [64, 8, 1]);
    assert_eq!(g.halo, [3, 9, 18]);
    assert_eq!(g.xs_bytes, (9 * g.xrow * 2).div_ceil(16) * 16);
    assert_eq!(g.smem_bytes, 4 * g.xs_bytes + g.ws_bytes + g.raw_bytes);
    let m = emit(&c, &p3).unwrap();
    assert!(m.code.contains("constexpr int STAGES = 3;"));
    assert_eq!(m.launches[0].grid, [64, 8, 1]);
    assert_eq!(m.launches[0].dynamic_smem_bytes as u64, g.smem_bytes);
    // Backward data at stride 1 runs the forward module of its dual, streamed the same way.
    let d = dgrad(c);
    let pd = prob("dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1");
    assert!(can_implement(&d, &pd).is_ok());
    assert!(emit(&d, &pd)
        .unwrap()
        .code
        .contains("constexpr int STAGES = 3;"));
    assert_eq!(
        can_implement(
            &d,
            &prob("dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s2x1x1_p1x1x1_d1x1x1")
        )
        .unwrap_err()
        .reason(),
        "direct_phase_mma_scope"
    );
}

#[test]
fn a_persistent_cuda_core_grid_is_one_resident_wave() {
    use crate::catalogue::{pool, Families};
    let dev = DeviceLimits::H200;
    let mut checked = 0;
    for key in [
        "dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
        "dgrad_bf16_n32_g768_c768_k768_i7x7_f7x7_s1x1_p3x3_d1x1",
        "dgrad_bf16_n32_g240_c240_k240_i28x28_f5x5_s2x2_p2x2_d1x1",
        "fwd_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1",
        "fwd_f32_n8_g64_c64_k64_i28x28_f3x3_s1x1_p1x1_d1x1",
    ] {
        let p = prob(key);
        for c in pool(p.direction, p.dtype, Families::Only(Family::Direct)) {
            if c.stages != 2 || c.math != Math::Simt || admit(&c, &p, &Target::H200).is_err() {
                continue;
            }
            let g = DirectPlan::new(&c, &p, &dev).geometry;
            let ctas = g.grid[0] * g.grid[1] * g.grid[2];
            assert!(g.min_ctas >= 1, "{c} on {key}: no launch bound");
            assert!(
                ctas <= dev.sms as u64 * g.min_ctas || g.grid[0] == 1,
                "{c} on {key}: {ctas} CTAs, more than one wave of {} per SM",
                g.min_ctas
            );
            // The launch bound leaves ptxas at least the register budget.
            assert!(dev.regs_per_sm as u64 / (g.min_ctas * c.threads() as u64) >= 128);
            checked += 1;
        }
    }
    assert!(
        checked >= 5,
        "only {checked} persistent CUDA-core pairs checked"
    );
}

#[test]
fn the_tensor_core_phase_kernel_sizes_its_weight_rows_by_each_phase_s_taps() {
    // 3×3 stride 2 padding 1: phases of 1, 2, 2 and 4 taps (row phase 0 takes filter row 1,
    // phase 1 rows 0 and 2: p + 1 − y even; the same for columns).
    let p = prob("dgrad_bf16_n2_g4_c64_k64_i15x17_f3x3_s2x2_p1x1_d1x1");
    assert_eq!(strided::phase_tap_counts(&p), vec![1, 2, 2, 4]);
    // K/G 16: 16, 32, 32, 64 weights, each a whole number of k16 steps, then 8.
    assert_eq!(strided::mma_weight_row(&p), 16 + 32 + 32 + 64 + 8);
    assert_eq!(strided::mma_ksteps(&p), 1 + 2 + 2 + 4);
    // 5×5 stride 2 padding 2, K/G 8: 9, 6, 6, 4 taps; 72, 48, 48, 32 weights (odd k8 counts
    // round up to a whole k16 step: 80, 48, 48, 32).
    let p = prob("dgrad_bf16_n1_g2_c16_k16_i11x12_f5x5_s2x2_p2x2_d1x1");
    assert_eq!(strided::phase_tap_counts(&p), vec![9, 6, 6, 4]);
    assert_eq!(strided::mma_weight_row(&p), 80 + 48 + 48 + 32 + 8);
    assert_eq!(strided::mma_ksteps(&p), 5 + 3 + 3 + 2);
    // 1×1 stride 2: only phase (0, 0) has a tap.
    let p = prob("dgrad_bf16_n1_g2_c32_k32_i9x10_f1x1_s2x2_p0x0_d1x1");
    assert_eq!(strided::phase_tap_counts(&p), vec![1, 0, 0, 0]);
    // 3D stride 2: eight phases, 27 taps in all; stride 2 dilation 2 padding 2: every tap
    // reaches phase 0 along each dimension.
    let p = prob("dgrad_bf16_n1_g2_c32_k32_i5x7x6_f3x3x3_s2x2x2_p1x1x1_d1x1x1");
    let t = strided::phase_tap_counts(&p);
    assert_eq!((t.len(), t.iter().sum::<u64>()), (8, 27));
    let p = prob("dgrad_bf16_n1_g2_c32_k32_i13x13_f3x3_s2x2_p2x2_d2x2");
    assert_eq!(strided::phase_tap_counts(&p), vec![9, 0, 0, 0]);
    // The geometry holds those rows: BN × WROW 16-bit weights after the halo stages, the cell
    // stride an odd number of 16-byte chunks, and the channel view's warp units divide C/G.
    let cfg: KernelConfig = "direct_dgrad_bf16_t128x64x16_w8x1_s1_v16x2_gm1_sk1d_mma_gen"
        .parse()
        .expect("a direct mma dgrad name");
    let p = prob("dgrad_bf16_n2_g4_c64_k64_i15x17_f3x3_s2x2_p1x1_d1x1");
    let g = geometry(&cfg, &p);
    assert_eq!(g.wrow, strided::mma_weight_row(&p));
    assert_eq!(g.ws_bytes, g.wrow * 64 * 2);
    assert_eq!((g.cts / 8) % 2, 1);
    assert_eq!(g.smem_bytes, g.xs_bytes + g.ws_bytes);
    let nw = mma::unit_channels(&cfg, &strided::channel_view(&p));
    assert!(
        nw.is_multiple_of(8) && p.cpg().is_multiple_of(nw),
        "NW {nw}"
    );
}

/// A warp keeps a tile's B fragments only where every unit it owns has the same channels and
/// it owns more than one, and they fit: the zoo's 3D C/G 8 backward-data member (28 units, 8
/// warps, 4 units along the channels, 14 k16 steps) keeps them; its 64-pixel twin (one unit
/// per warp), a tile whose units along the channels do not divide the warps, and C/G 32 (too
/// many steps) load them per unit. The emitted module says which, and the register estimate
/// counts them.
#[test]
fn b_fragments_stay_resident_only_where_every_unit_of_a_warp_shares_them() {
    let cfg = |n: &str| n.parse::<KernelConfig>().unwrap();
    let dual = |key: &str| prob(key).dgrad_dual().unwrap();
    let p3d = dual("dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1");
    let fwd = |n: &str| cfg(n).with_fwd();
    let resident = fwd("direct_dgrad_bf16_t224x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen");
    let one_unit = fwd("direct_dgrad_bf16_t64x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen");
    assert!(mma::b_resident(&resident, &p3d));
    assert!(!mma::b_resident(&one_unit, &p3d));
    assert_eq!(
        mma::register_estimate(&resident, &p3d) - mma::register_estimate(&one_unit, &p3d),
        2 * 13,
        "14 steps of one n8 block resident instead of one step's"
    );
    // Units along the channels (BN / NW = 3) that do not divide 8 warps.
    let p24 = prob("fwd_bf16_n8_g8_c192_k192_i28x28_f3x3_s1x1_p1x1_d1x1");
    assert!(!mma::b_resident(
        &cfg("direct_fwd_bf16_t224x72x28_w8x1_s1_v8x2_gm1_sk1d_mma_gen"),
        &p24
    ));
    // C/G 32 3×3: 18 k16 steps of 4 n8 blocks.
    let p32 = prob("fwd_bf16_n8_g8_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1");
    assert!(!mma::b_resident(
        &cfg("direct_fwd_bf16_t224x64x28_w8x1_s1_v32x2_gm1_sk1d_mma_gen"),
        &p32
    ));
    let src = |c: &KernelConfig, p: &Problem| emit(c, p).unwrap().code;
    let pd = prob("dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1");
    let d = |n: &str| cfg(n);
    assert!(src(
        &d("direct_dgrad_bf16_t224x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen"),
        &pd
    )
    .contains("constexpr int B_RESIDENT = 1;"));
    assert!(src(
        &d("direct_dgrad_bf16_t64x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen"),
        &pd
    )
    .contains("constexpr int B_RESIDENT = 0;"));
}

/// The A fragments slide along the filter row only for units of one n8 block at column stride
/// and dilation 1, an even tile width, a filter wider than one column and C/G 8 or a multiple
/// of 16: the zoo's 3D C/G 8 backward-data member (its stride-1 dual) and a C/G 16 forward
/// member of 8-channel units slide; its 16-channel twin, an odd tile width, C/G 24, column
/// stride 2 and a 3×1 filter do not. Where they slide the halo is split
/// by column parity (XSPLIT 2), the module says so, and the register estimate counts the
/// previous step's four registers per m16 block.
#[test]
fn a_fragments_slide_only_at_unit_column_stride_with_pixel_pairs() {
    let cfg = |n: &str| n.parse::<KernelConfig>().unwrap();
    let p3d = prob("dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1")
        .dgrad_dual()
        .unwrap();
    let slide3d = cfg("direct_dgrad_bf16_t224x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen").with_fwd();
    assert!(mma::a_slide(&slide3d, &p3d));
    assert_eq!(mma::halo_phases(&slide3d, &p3d), 2);
    let p16 = prob("fwd_bf16_n8_g8_c128_k128_i28x28_f3x3_s1x1_p1x1_d1x1");
    let c16 = cfg("direct_fwd_bf16_t224x64x28_w8x1_s1_v8x2_gm1_sk1d_mma_gen");
    assert!(mma::a_slide(&c16, &p16));
    // Units of two n8 blocks: each A fragment feeds two MMAs.
    assert!(!mma::a_slide(
        &cfg("direct_fwd_bf16_t224x64x28_w8x1_s1_v16x2_gm1_sk1d_mma_gen"),
        &p16
    ));
    // Odd tile width (7): pixel pairs would straddle tile rows.
    assert!(!mma::a_slide(
        &cfg("direct_fwd_bf16_t49x64x7_w4x1_s1_v8x2_gm1_sk1d_mma_gen"),
        &p16
    ));
    // C/G 24: three k8 chunks per tap, a k16 step straddles taps.
    let p24 = prob("fwd_bf16_n8_g8_c192_k192_i28x28_f3x3_s1x1_p1x1_d1x1");
    assert!(!mma::a_slide(
        &cfg("direct_fwd_bf16_t224x72x28_w8x1_s1_v8x2_gm1_sk1d_mma_gen"),
        &p24
    ));
    // Column stride 2 (the stride-phase split stays) and a one-column filter.
    let s2 = prob("fwd_bf16_n8_g8_c128_k128_i56x56_f3x3_s2x2_p1x1_d1x1");
    assert!(!mma::a_slide(&c16, &s2));
    assert_eq!(mma::halo_phases(&c16, &s2), 2);
    let f31 = prob("fwd_bf16_n8_g8_c128_k128_i28x28_f3x1_s1x1_p1x0_d1x1");
    assert!(!mma::a_slide(&c16, &f31));
    assert_eq!(mma::halo_phases(&c16, &f31), 1);
    // The same tile at dilation 2 (the same work, no sliding): four registers per m16 block less.
    let d2 = prob("fwd_bf16_n8_g8_c128_k128_i28x28_f3x3_s1x1_p2x2_d2x2");
    assert!(!mma::a_slide(&c16, &d2));
    let (_, _, mb, _) = mma::tile_work(&c16, &p16);
    assert_eq!(
        mma::register_estimate(&c16, &p16) - mma::register_estimate(&c16, &d2),
        4 * mb as u32
    );
    let src = |c: &KernelConfig, p: &Problem| emit(c, p).unwrap().code;
    let code = src(&c16, &p16);
    assert!(
        code.contains("constexpr int A_SLIDE = 1;") && code.contains("constexpr int XSPLIT = 2;")
    );
    let code24 = src(
        &cfg("direct_fwd_bf16_t224x72x28_w8x1_s1_v8x2_gm1_sk1d_mma_gen"),
        &p24,
    );
    assert!(
        code24.contains("constexpr int A_SLIDE = 0;")
            && code24.contains("constexpr int XSPLIT = 1;")
    );
}
