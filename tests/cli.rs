//! End-to-end tests of the `gconv` binary on a machine without a GPU: exit codes and messages
//! for good and bad input, the CPU backend with verification, and a CPU sweep with the planted
//! wrong and crashing variants.

use std::path::Path;
use std::process::{Command, Output};

fn gconv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gconv"))
        .args(args)
        // These tests describe a machine without a usable GPU, also when run on a GPU host.
        .env("GCONV_DISABLE_CUDA", "1")
        .output()
        .expect("the gconv binary runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn run_verifies_on_the_cpu_for_issue_keys() {
    for key in [
        "fwd_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1",
        "dgrad_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1",
        "wgrad_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1",
        "fwd_f32_n1_g2_c4_k6_i5x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        "wgrad_f16_n2_g8_c8_k8_i33_f5_s2_p2_d2",
        "dgrad_f16_n1_g3_c9_k6_i7x5_f3x2_s3x1_p2x0_d1x2",
    ] {
        let o = gconv(&["run", "--problem", key, "--backend", "cpu", "--verify"]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(0), "{key}: {t}");
        assert!(t.contains("PASS") && !t.contains("FAIL"), "{key}: {t}");
        assert!(t.contains("max_abs_err"), "{key}: {t}");
    }
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let o = gconv(&[
        "run",
        "--problem",
        "fwd_bf16_n2_g3_c16_k32_i9x9_f3x3_s1x1_p1x1_d1x1",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("C=16") && t.contains("G=3"), "{t}");
    assert!(!t.contains("panicked"), "{t}");
    for (key, needle) in [
        ("fwd_bf16_n2", "malformed"),
        (
            "fwd_bf16_n0_g1_c1_k1_i3_f3_s1_p1_d1",
            "N must be at least 1",
        ),
        (
            "fwd_bf16_n1_g1_c1_k1_i3_f9_s1_p1_d1",
            "larger than the padded input",
        ),
        (
            "fwd_bf16_n1_g1_c1_k1_i3x3_f3_s1x1_p1x1_d1x1",
            "rank mismatch",
        ),
    ] {
        let o = gconv(&["run", "--problem", key, "--backend", "cpu"]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{key}: {t}");
        assert!(t.contains(needle), "{key}: {t}");
        assert!(!t.contains("panicked"), "{key}: {t}");
    }
    let o = gconv(&[
        "run",
        "--problem",
        "fwd_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1",
        "--backend",
        "cpu",
        "--kernel",
        "cpu_fast",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("\"cpu_fast\""));
}

#[test]
fn cuda_without_a_gpu_is_a_clear_error_and_auto_falls_back() {
    let key = "fwd_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1";
    let o = gconv(&["run", "--problem", key, "--backend", "cuda"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("CUDA backend is not usable"), "{t}");
    assert!(!t.contains("panicked"), "{t}");
    let o = gconv(&["run", "--problem", key, "--verify"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("using the CPU backend because"), "{t}");
    assert!(t.contains("PASS"), "{t}");
}

#[test]
fn invalid_kernel_names_are_rejected_with_the_reason() {
    let key = "fwd_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1";
    for (kernel, needle) in [
        (
            "igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1",
            "invalid kernel name",
        ),
        (
            "igemm_fwd_bf16_t128x128x32_w2x2_s9_v8x8_gm1_sk1d_mma_gen",
            "rejected by validate",
        ),
        (
            "igemm_fwd_f16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen",
            "cannot run",
        ),
        ("cpu_planted_crash", "aborts on purpose"),
    ] {
        let o = gconv(&["run", "--problem", key, "--kernel", kernel]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{kernel}: {t}");
        assert!(t.contains(needle), "{kernel}: {t}");
        assert!(!t.contains("panicked"), "{kernel}: {t}");
    }
}

#[test]
fn malformed_filters_exit_2_with_the_position() {
    let o = gconv(&[
        "kernels",
        "configs/forward_bf16.json",
        "--count-only",
        "--filter",
        "tile_n >= 128 && (stages == 3",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("byte"), "{t}");
}

#[test]
fn cpu_sweep_survives_planted_failures() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("sweep.csv");
    let o = gconv(&[
        "sweep",
        "--variant",
        "forward",
        "--problems",
        "forward_2d_test_validation",
        "--config",
        "configs/cpu_forward.json",
        "--backend",
        "cpu",
        "--batch-size",
        "8",
        "--output",
        out.to_str().expect("utf-8 path"),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    let rows = read(&out);
    let header = &rows[0];
    assert_eq!(
        header.join(","),
        "kernel,problem,direction,dtype,N,G,C,K,Di,Hi,Wi,Z,Y,X,stride_d,stride_h,stride_w,pad_d,pad_h,pad_w,dil_d,dil_h,dil_w,status,latency_ms,tflops,gbps,roofline_frac,max_abs_err,max_rel_err,compile_ms,regs,spills,rounds,iters_per_round,stopped_early"
    );
    // The time split is printed at the end; the CPU executor compiles nothing.
    let stdout = String::from_utf8_lossy(&o.stdout);
    let split = stdout
        .split("time split:")
        .nth(1)
        .unwrap_or_else(|| panic!("no time split in: {t}"));
    for phase in [
        "worker start-up",
        "compile, waited for",
        "inputs",
        "reference (CPU f64)",
        "verification",
        "timing",
        "other",
    ] {
        assert!(split.contains(phase), "{phase}: {split}");
    }
    let compile = split
        .lines()
        .find(|l| l.trim_start().starts_with("compile, waited for"))
        .unwrap_or_default();
    assert!(compile.contains(" 0.00 "), "{compile}");
    assert!(
        split.contains("compile CPU time 0.0 s: 0 compiled"),
        "{split}"
    );
    assert!(t.contains("note: timing: adaptive"), "{t}");
    let problems = 14; // forward_2d_test_validation
    assert_eq!(rows.len() - 1, 4 * problems, "{t}");
    let status = |kernel: &str| -> Vec<String> {
        rows[1..]
            .iter()
            .filter(|r| r[0] == kernel)
            .map(|r| r[23].clone())
            .collect()
    };
    for (kernel, want) in [
        ("cpu_direct", "ok"),
        ("cpu_im2col_gemm", "ok"),
        ("cpu_planted_wrong", "incorrect"),
        ("cpu_planted_crash", "crashed"),
    ] {
        let got = status(kernel);
        assert_eq!(got.len(), problems, "{kernel}: {t}");
        assert!(got.iter().all(|s| s == want), "{kernel}: {got:?}");
    }
}

#[test]
fn early_stop_factors_below_the_floor_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("s.csv");
    for (value, needle) in [("1.0", "below 1.1"), ("fast", "neither a factor nor `off`")] {
        let o = gconv(&[
            "sweep",
            "--variant",
            "forward",
            "--problems",
            "forward_2d_test_validation",
            "--config",
            "configs/cpu_forward.json",
            "--backend",
            "cpu",
            "--early-stop",
            value,
            "--output",
            out.to_str().expect("utf-8 path"),
        ]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{value}: {t}");
        assert!(t.contains(needle), "{value}: {t}");
    }
}

fn read(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .expect("csv readable");
    r.records()
        .map(|x| x.expect("row").iter().map(str::to_string).collect())
        .collect()
}

#[test]
fn selftest_on_the_cpu_passes_and_counts() {
    let o = gconv(&["selftest"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    let last = t.lines().rev().find(|l| l.contains("passed")).unwrap_or("");
    assert!(last.ends_with(" 0 failed"), "{t}");
    let n: usize = last.split(' ').next().unwrap_or("0").parse().unwrap_or(0);
    assert!(n > 100, "{t}");
}
