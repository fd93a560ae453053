//! Integration tests of the CPU backend against the f64 reference: every variant of the pool
//! and `run_auto` on a matrix of direction × dtype × regime × edge case, checked with the
//! project's verification policy; and the planted wrong variant, which must fail that check.

use gconv_problem::verify::{compare, Tolerance};
use gconv_problem::{DType, Direction, HostTensor, Problem};
use gconv_reference::cpu::{run, run_auto, CpuVariant};
use gconv_reference::reference_tensors;
use proptest::prelude::*;

/// Forward keys (dtype f32); each runs in every direction and dtype.
const MATRIX: &[(&str, &str)] = &[
    ("dense", "fwd_f32_n2_g1_c8_k12_i7x6_f3x3_s1x1_p1x1_d1x1"),
    (
        "dense odd channels, stride 2",
        "fwd_f32_n1_g1_c19_k13_i9x7_f3x3_s2x2_p1x1_d1x1",
    ),
    (
        "grouped C/G=8",
        "fwd_f32_n2_g4_c32_k16_i6x6_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "grouped G=3 odd",
        "fwd_f32_n1_g3_c21_k15_i5x6_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "C/G=1 K/G=2",
        "fwd_f32_n1_g6_c6_k12_i6x5_f3x3_s1x1_p1x1_d1x1",
    ),
    ("C/G=2", "fwd_f32_n2_g5_c10_k10_i5x5_f3x3_s1x1_p1x1_d1x1"),
    ("C/G=3", "fwd_f32_n1_g3_c9_k6_i6x6_f3x3_s2x2_p1x1_d1x1"),
    ("C/G=4", "fwd_f32_n1_g4_c16_k8_i5x7_f3x3_s1x1_p1x1_d1x1"),
    (
        "depthwise",
        "fwd_f32_n2_g24_c24_k24_i9x9_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "depthwise 5x5 stride 2, G=7",
        "fwd_f32_n1_g7_c7_k7_i11x10_f5x5_s2x2_p2x2_d1x1",
    ),
    (
        "channel multiplier 3",
        "fwd_f32_n1_g8_c8_k24_i7x7_f3x3_s1x1_p1x1_d1x1",
    ),
    (
        "stride > filter",
        "fwd_f32_n2_g2_c6_k4_i10x9_f2x2_s3x3_p0x1_d1x1",
    ),
    ("large pad", "fwd_f32_n1_g2_c10_k6_i4x5_f3x3_s1x1_p3x3_d1x1"),
    ("dilation", "fwd_f32_n1_g2_c12_k8_i9x9_f3x3_s1x2_p2x1_d2x3"),
    (
        "1x1 unit stride",
        "fwd_f32_n2_g1_c16_k24_i5x5_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "1x1 grouped",
        "fwd_f32_n1_g4_c32_k16_i4x6_f1x1_s1x1_p0x0_d1x1",
    ),
    (
        "1x1 stride 2",
        "fwd_f32_n1_g2_c12_k10_i7x7_f1x1_s2x2_p0x0_d1x1",
    ),
    ("1D", "fwd_f32_n2_g3_c15_k9_i17_f5_s2_p2_d2"),
    ("1D depthwise", "fwd_f32_n1_g16_c16_k16_i20_f7_s1_p3_d1"),
    (
        "3D grouped",
        "fwd_f32_n1_g2_c12_k8_i4x5x6_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    ),
    (
        "3D depthwise stride 2",
        "fwd_f32_n2_g8_c8_k8_i5x6x5_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
    ),
    (
        "3D dense dilated",
        "fwd_f32_n1_g1_c6_k5_i5x5x5_f2x3x2_s1x2x1_p1x1x0_d2x1x2",
    ),
];

fn inputs(p: &Problem, seed: u64) -> (HostTensor, HostTensor) {
    let ([r0, r1], _) = p.direction.roles();
    (
        HostTensor::random_for(p, r0, seed),
        HostTensor::random_for(p, r1, seed + 1),
    )
}

#[test]
fn every_pool_variant_and_run_auto_match_the_reference() {
    let mut checked = 0;
    for (regime, key) in MATRIX {
        let base: Problem = key.parse().unwrap_or_else(|e| panic!("{key}: {e}"));
        for dir in Direction::ALL {
            for dt in DType::ALL {
                let p = base.with_direction(dir).with_dtype(dt);
                let (a, b) = inputs(&p, 17);
                let want = reference_tensors(&p, &a, &b).unwrap();
                assert!(
                    want.iter().any(|&v| v.abs() > 1e-3),
                    "{p}: reference output is trivially small"
                );
                let tol = Tolerance::for_problem(&p);
                for v in CpuVariant::POOL {
                    assert!(v.can_run(&p));
                    let got = run(v, &p, &a, &b).unwrap();
                    assert_eq!(got.dtype(), dt);
                    let c = compare(&got, &want, tol);
                    assert!(c.passed(), "{v} on {p} ({regime}): {c:?}");
                    checked += 1;
                }
                let c = compare(&run_auto(&p, &a, &b).unwrap(), &want, tol);
                assert!(c.passed(), "run_auto on {p} ({regime}): {c:?}");
            }
        }
    }
    assert_eq!(checked, MATRIX.len() * 3 * 3 * CpuVariant::POOL.len());
}

#[test]
fn the_planted_variant_fails_verification() {
    let keys = [
        "fwd_f32_n1_g4_c16_k8_i6x6_f3x3_s1x1_p1x1_d1x1",
        "fwd_f32_n2_g8_c8_k8_i7x7_f3x3_s2x2_p1x1_d1x1",
        "fwd_f32_n1_g1_c8_k8_i5x5_f1x1_s1x1_p0x0_d1x1",
        "fwd_f32_n1_g2_c4_k6_i9_f5_s1_p2_d1",
    ];
    let mut failed = 0;
    for key in keys {
        let base: Problem = key.parse().unwrap();
        for dir in Direction::ALL {
            for dt in DType::ALL {
                let p = base.with_direction(dir).with_dtype(dt);
                let (a, b) = inputs(&p, 3);
                let want = reference_tensors(&p, &a, &b).unwrap();
                let got = run(CpuVariant::PlantedWrong, &p, &a, &b).unwrap();
                let c = compare(&got, &want, Tolerance::for_problem(&p));
                assert!(!c.passed(), "planted variant passed on {p}: {c:?}");
                // The same inputs through a correct variant pass: the failure is the kernel's.
                let ok = run(CpuVariant::Direct, &p, &a, &b).unwrap();
                assert!(compare(&ok, &want, Tolerance::for_problem(&p)).passed());
                failed += 1;
            }
        }
    }
    assert_eq!(failed, 4 * 3 * 3);
}

fn small_problem() -> impl Strategy<Value = Problem> {
    (
        1usize..=3,
        1i64..=2,
        1i64..=4,
        1i64..=3,
        1i64..=3,
        prop::collection::vec((1i64..=6, 1i64..=3, 1i64..=3, 0i64..=2, 1i64..=2), 3),
        0usize..3,
    )
        .prop_filter_map("invalid geometry", |(rank, n, g, cpg, kpg, axes, dir)| {
            let axes = &axes[3 - rank..];
            Problem::new(
                Direction::ALL[dir],
                DType::F32,
                n,
                g,
                g * cpg,
                g * kpg,
                &axes.iter().map(|a| a.0).collect::<Vec<_>>(),
                &axes.iter().map(|a| a.1).collect::<Vec<_>>(),
                &axes.iter().map(|a| a.2).collect::<Vec<_>>(),
                &axes.iter().map(|a| a.3).collect::<Vec<_>>(),
                &axes.iter().map(|a| a.4).collect::<Vec<_>>(),
            )
            .ok()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn pool_variants_match_the_reference_on_random_problems(p in small_problem(), seed in 0u64..1000) {
        let (a, b) = inputs(&p, seed);
        let want = reference_tensors(&p, &a, &b).unwrap();
        for v in CpuVariant::POOL {
            let c = compare(&run(v, &p, &a, &b).unwrap(), &want, Tolerance::for_problem(&p));
            prop_assert!(c.passed(), "{} on {}: {:?}", v, p, c);
        }
    }
}
