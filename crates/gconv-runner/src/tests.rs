//! The runner against the f64 reference in every direction and dtype, and its refusals.

use super::*;
use gconv_problem::{compare, Tolerance};

fn problem(key: &str) -> Problem {
    key.parse().expect("a problem key")
}

#[test]
fn every_direction_and_dtype_matches_the_reference() {
    let mut n = 0;
    for dir in ["fwd", "dgrad", "wgrad"] {
        for dt in ["f32", "f16", "bf16"] {
            for geo in [
                "n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1",
                "n1_g6_c6_k12_i7_f3_s1_p2_d2",
                "n2_g2_c4_k6_i3x5x5_f1x3x3_s1x2x1_p0x1x1_d1x1x1",
            ] {
                let p = problem(&format!("{dir}_{dt}_{geo}"));
                let ([r0, r1], _) = p.roles();
                let a = HostTensor::random_for(&p, r0, 3);
                let b = HostTensor::random_for(&p, r1, 4);
                let want = Runner::new(p, "ref", BackendChoice::Cpu)
                    .unwrap()
                    .run(&a, &b)
                    .unwrap();
                for kernel in ["auto", "cpu_direct", "cpu_im2col_gemm"] {
                    let r = Runner::new(p, kernel, BackendChoice::Auto).unwrap();
                    assert_eq!(r.backend(), "cpu");
                    let got = r.run(&a, &b).unwrap();
                    let c = compare(&got, &want.to_f64(), Tolerance::for_problem(&p));
                    assert!(c.passed(), "{p} {kernel}: {c:?}");
                    let bytes = r.run_bytes(&a.to_bytes(), &b.to_bytes()).unwrap();
                    assert_eq!(bytes, got.to_bytes(), "{p} {kernel}: bytes path");
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 81);
}

#[test]
fn shapes_follow_the_channels_last_layouts() {
    let p = problem("fwd_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1");
    assert_eq!(shape(&p, TensorRole::X), vec![2, 9, 9, 16]);
    assert_eq!(shape(&p, TensorRole::W), vec![32, 3, 3, 4]);
    assert_eq!(shape(&p, TensorRole::Y), vec![2, 5, 5, 32]);
    let q = problem("wgrad_f32_n2_g2_c4_k6_i3x5x5_f1x3x3_s1x2x1_p0x1x1_d1x1x1");
    assert_eq!(shape(&q, TensorRole::X), vec![2, 3, 5, 5, 4]);
    assert_eq!(shape(&q, TensorRole::W), vec![6, 1, 3, 3, 2]);
    assert_eq!(output_name(&q), "dW");
    for r in [TensorRole::X, TensorRole::W, TensorRole::Y] {
        assert_eq!(shape(&q, r).iter().product::<u64>(), q.elements(r));
    }
}

#[test]
fn bad_input_is_refused_with_what_was_wrong() {
    let p = problem("dgrad_f16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1");
    let err = |k: &str, b: BackendChoice| Runner::new(p, k, b).unwrap_err().to_string();
    assert!(err("igemm_nope", BackendChoice::Auto).contains("igemm_nope"));
    let gpu = "igemm_dgrad_f16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen";
    assert!(
        err(gpu, BackendChoice::Cpu).contains("a GPU kernel"),
        "{}",
        err(gpu, BackendChoice::Cpu)
    );
    assert!(err("cpu_planted_crash", BackendChoice::Cpu).contains("on purpose"));
    assert!(err("auto", BackendChoice::Cuda).contains("device memory"));
    assert!("gpu"
        .parse::<BackendChoice>()
        .unwrap_err()
        .to_string()
        .contains("auto, cpu or cuda"));
    let r = Runner::new(p, "auto", BackendChoice::Auto).unwrap();
    let ([r0, r1], _) = p.roles();
    let a = HostTensor::random_for(&p, r0, 1);
    let b = HostTensor::random_for(&p, r1, 2);
    // swapped inputs: dY first, W second
    let e = r.run(&b, &a).unwrap_err().to_string();
    assert!(
        e.contains("dY") && e.contains("expected [2, 5, 5, 32]"),
        "{e}"
    );
    let e = r
        .run(
            &HostTensor::random_for(&p.with_dtype(DType::F32), r0, 1),
            &b,
        )
        .unwrap_err();
    assert!(matches!(e, RunnerError::Dtype { tensor: "dY", .. }), "{e}");
    let e = r
        .check_input(1, DType::F16, &[32, 3, 3, 2])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("W of") && e.contains("[32, 3, 3, 4]") && e.contains("channels-last weight"),
        "{e}"
    );
    assert!(r.check_input(1, DType::F16, &[32, 3, 3, 4]).is_ok());
    let e = r
        .run_bytes(&[0u8; 3], &b.to_bytes())
        .unwrap_err()
        .to_string();
    assert!(e.contains("3 bytes"), "{e}");
}
