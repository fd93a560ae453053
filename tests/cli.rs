//! End-to-end tests of the `gconv` binary on a machine without a GPU: exit codes and messages
//! for good and bad input, the CPU backend with verification, a CPU sweep with the planted
//! wrong and crashing variants, and the Slurm example scripts sharding a sweep and merging it.

use std::path::Path;
use std::process::{Command, Output};

fn gconv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gconv"))
        .args(args)
        // These tests describe a machine without a usable GPU, also when run on a GPU host,
        // and outside a Slurm job array (where sweeps would shard by default).
        .env("GCONV_DISABLE_CUDA", "1")
        .env_remove("SLURM_ARRAY_TASK_ID")
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
            "unknown kernel name",
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
        "configs/traits/forward_bf16.json",
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
        "configs/traits/cpu_forward.json",
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
        "kernel,problem,direction,dtype,N,G,C,K,Di,Hi,Wi,Z,Y,X,stride_d,stride_h,stride_w,pad_d,pad_h,pad_w,dil_d,dil_h,dil_w,status,latency_ms,tflops,gbps,roofline_frac,max_abs_err,max_rel_err,compile_ms,regs,spills,rounds,iters_per_round,stopped_early,device,device_index"
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
    // The summary says why rows are not ok and where every message is.
    let messages = format!("{}.messages.jsonl", out.display());
    assert!(t.contains(&format!("messages: {messages}")), "{t}");
    assert!(t.contains("not ok: crashed 14, incorrect 14"), "{t}");
    assert!(t.contains("  crashed: cpu_planted_crash on "), "{t}");
    assert!(t.contains("  incorrect: cpu_planted_wrong on "), "{t}");
    let jsonl = std::fs::read_to_string(&messages).expect("messages file");
    assert!(jsonl.contains("aborting the process on purpose"), "{jsonl}");
    // `report` gives the same digest, from the messages file next to the CSV.
    let o = gconv(&["report", out.to_str().expect("utf-8 path")]);
    let r = text(&o);
    assert_eq!(o.status.code(), Some(0), "{r}");
    assert!(r.contains("not ok: crashed 14, incorrect 14"), "{r}");
    assert!(r.contains("  crashed: cpu_planted_crash on "), "{r}");
    assert!(r.contains(&format!("messages: {messages}")), "{r}");
    // --pair on a sweep whose kernels are no configurations: refused with the reason (the
    // pairing itself is gconv_tune::pairs' unit test); a malformed request before any reading.
    let o = gconv(&[
        "report",
        out.to_str().expect("utf-8 path"),
        "--pair",
        "math=wgmma,wgmmaws",
    ]);
    let r = text(&o);
    assert_ne!(o.status.code(), Some(0), "{r}");
    assert!(r.contains("no ok row with math = wgmmaws"), "{r}");
    let o = gconv(&["report", "no_such.csv", "--pair", "stages=4"]);
    let r = text(&o);
    assert_ne!(o.status.code(), Some(0), "{r}");
    assert!(r.contains("expected FIELD=A,B"), "{r}");
    // A value the field does not take: its reason once.
    let o = gconv(&["report", "no_such.csv", "--pair", "tile_m=a,b"]);
    let r = text(&o);
    assert_ne!(o.status.code(), Some(0), "{r}");
    assert_eq!(
        r.matches("expected a non-negative integer").count(),
        1,
        "{r}"
    );
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
            "configs/traits/cpu_forward.json",
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

/// `selftest --cases TEXT` runs only the matrix cases whose label contains it (every line of
/// `--verbose` names such a case); a text no label contains is an error listing the labels.
#[test]
fn selftest_cases_filter_by_label() {
    let o = gconv(&["selftest", "--cases", "merged_tail", "--verbose"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    let ran: Vec<&str> = t.lines().filter(|l| l.starts_with("ok ")).collect();
    assert!(ran.len() >= 9, "{t}");
    assert!(ran.iter().all(|l| l.contains("merged_tail")), "{t}");
    let o = gconv(&["selftest", "--cases", "no_such_case"]);
    let t = text(&o);
    assert_ne!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("no case label") && t.contains("merged_tail_cpg16"),
        "{t}"
    );
    assert!(!t.contains("panicked"), "{t}");
}

/// `selftest --config` and `--kernels` choose GPU kernels: without `--gpu` they are an error
/// that says so; with `--gpu` on a machine without one, the backend's error (never a panic).
#[test]
fn selftest_gpu_options_need_the_gpu() {
    for args in [
        &[
            "selftest",
            "--config",
            "configs/traits/forward_tma_bf16.json",
        ][..],
        &["selftest", "--kernels", "_wgmmaws_"][..],
    ] {
        let o = gconv(args);
        let t = text(&o);
        assert_ne!(o.status.code(), Some(0), "{t}");
        assert!(t.contains("needs --gpu"), "{t}");
    }
    let o = gconv(&[
        "selftest",
        "--gpu",
        "--config",
        "configs/traits/forward_tma_bf16.json",
    ]);
    let t = text(&o);
    assert_ne!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("CUDA backend is not usable"), "{t}");
    assert!(!t.contains("panicked"), "{t}");
}

#[test]
fn directions_take_the_key_token_or_the_alias() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("d.csv");
    let out = out.to_str().expect("utf-8 path");
    let key = "fwd_f32_n1_g2_c4_k4_i5x5_f3x3_s1x1_p1x1_d1x1";
    for flag in ["--variant", "--direction"] {
        for spelling in ["fwd", "forward"] {
            let o = gconv(&[
                "sweep",
                flag,
                spelling,
                "--problems",
                key,
                "--config",
                "configs/traits/cpu_forward.json",
                "--backend",
                "cpu",
                "--output",
                out,
                "--overwrite",
            ]);
            let t = text(&o);
            assert_eq!(o.status.code(), Some(0), "{flag} {spelling}: {t}");
            // Outputs print the key token.
            assert!(t.contains("kernel(s) for fwd (cpu"), "{t}");
        }
    }
    let o = gconv(&[
        "sweep",
        "--variant",
        "bwd_data",
        "--problems",
        key,
        "--config",
        "configs/traits/cpu_forward.json",
        "--backend",
        "cpu",
        "--output",
        out,
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(
        t.contains(
            "--variant dgrad does not match the variant of configs/traits/cpu_forward.json (fwd)"
        ),
        "{t}"
    );
    // Without --variant the sweep takes the config's.
    let o = gconv(&[
        "sweep",
        "--problems",
        key,
        "--config",
        "configs/traits/cpu_forward.json",
        "--backend",
        "cpu",
        "--output",
        out,
        "--overwrite",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("kernel(s) for fwd (cpu"), "{t}");
    // bench: both spellings pass the parser (and then need a GPU); a bad one lists both.
    for spelling in ["fwd", "forward"] {
        let o = gconv(&["bench", "--direction", spelling, "--output", out]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{t}");
        assert!(t.contains("needs the CUDA backend"), "{spelling}: {t}");
    }
    let o = gconv(&["bench", "--direction", "backward", "--output", out]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    for want in [
        "\"backward\"",
        "fwd, dgrad or wgrad",
        "forward, bwd_data or bwd_weight",
    ] {
        assert!(t.contains(want), "{t}");
    }
}

/// Needs about 48,000 GiB of host memory: more than any test machine has.
const HUGE: &str = "fwd_bf16_n4096_g1_c4096_k4096_i512x512_f3x3_s1x1_p1x1_d1x1";

#[test]
fn sweep_refuses_a_problem_too_large_for_host_memory_like_run() {
    let o = gconv(&["run", "--problem", HUGE, "--backend", "cpu"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("GiB of host memory"), "{t}");

    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("huge.csv");
    let o = gconv(&[
        "sweep",
        "--variant",
        "fwd",
        "--problems",
        HUGE,
        "--config",
        "configs/traits/cpu_forward.json",
        "--backend",
        "cpu",
        "--vs",
        "reference",
        "--output",
        out.to_str().expect("utf-8 path"),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    let rows = read(&out);
    assert_eq!(rows.len() - 1, 5, "4 kernels and the baseline: {t}");
    assert!(rows[1..].iter().all(|r| r[23] == "unsupported"), "{rows:?}");
    assert!(t.contains("kernel rows: unsupported 4"), "{t}");
    assert!(t.contains("baseline rows: unsupported 1"), "{t}");
    let messages =
        std::fs::read_to_string(dir.path().join("huge.csv.messages.jsonl")).expect("messages file");
    assert_eq!(messages.lines().count(), 5, "{messages}");
    for line in messages.lines() {
        assert!(
            line.contains("GiB of host memory") && line.contains("are available"),
            "{line}"
        );
    }
    assert!(!messages.contains("memory allocation"), "{messages}");
}

#[test]
fn a_missing_file_is_a_short_error_with_the_cause_first_and_the_os_reason_once() {
    for args in [
        vec!["problems", "configs/nosuch.txt"],
        vec![
            "sweep",
            "--variant",
            "fwd",
            "--problems",
            "configs/nosuch.txt",
            "--config",
            "configs/traits/cpu_forward.json",
            "--backend",
            "cpu",
            "--output",
            "unused.csv",
        ],
    ] {
        let o = gconv(&args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "{err}");
        let at = err.find("error: ").expect("an error line");
        let msg = &err[at..];
        assert!(
            msg.starts_with("error: problems file configs/nosuch.txt not found\nhint: "),
            "{msg}"
        );
        assert!(msg.contains("gconv problems"), "{msg}");
        assert!(msg.len() < 200, "{} characters: {msg}", msg.len());
    }
    assert!(!Path::new("unused.csv").exists());
    let dir = tempfile::tempdir().expect("temp dir");
    let csv = dir.path().join("nosuch.csv");
    for args in [
        vec!["kernels", "configs/traits/nosuch.json"],
        vec!["report", csv.to_str().expect("utf-8 path")],
    ] {
        let o = gconv(&args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.matches("(os error 2)").count(), 1, "{err}");
        assert!(
            err.contains(": No such file or directory (os error 2)"),
            "{err}"
        );
    }
}

#[test]
fn report_and_resume_handle_a_csv_cut_mid_row() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("cut.csv");
    let out_s = out.to_str().expect("utf-8 path");
    let sweep_to = |output: &str, extra: &[&str]| {
        let mut args = vec![
            "sweep",
            "--variant",
            "fwd",
            "--problems",
            "forward_2d_test_validation",
            "--config",
            "configs/traits/cpu_forward.json",
            "--backend",
            "cpu",
            "--output",
            output,
        ];
        args.extend_from_slice(extra);
        gconv(&args)
    };
    let sweep = |extra: &[&str]| sweep_to(out_s, extra);
    let o = sweep(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let full = std::fs::read(&out).expect("csv");
    let lines = full.iter().filter(|&&b| b == b'\n').count();
    // The same command again is refused: the CSV and its rows stay as they were.
    let o = sweep(&[]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        err.contains(&format!("{out_s} already holds results; pass --resume")),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&out).expect("csv"),
        full,
        "the refused run wrote"
    );
    assert!(!sweep(&["--resume", "--overwrite"]).status.success());
    // Another kind of file given as the output by mistake is kept too.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "one line of someone's notes\n").expect("write");
    let o = sweep_to(notes.to_str().expect("utf-8 path"), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(&notes).expect("notes"),
        "one line of someone's notes\n"
    );
    // `--overwrite` replaces it: the same pairs, each once.
    let o = sweep(&["--overwrite"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(read(&out).len(), lines, "replaced, not appended");
    // Cut the last row in its middle, as an interrupt while writing it would.
    let cut = full.len() - 40;
    std::fs::write(&out, &full[..cut]).expect("write");
    let last = String::from_utf8_lossy(&full[..cut])
        .lines()
        .last()
        .expect("a last line")
        .to_string();
    let pair = last.split(',').take(2).collect::<Vec<_>>().join(",");

    let o = gconv(&["report", out_s]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        err.contains(&format!(
            "warning: {out_s}: skipped the incomplete last row (cut by an interrupt?), line {lines} ("
        )),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("kernel rows: "));

    let o = sweep(&["--resume"]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        err.contains(&format!(
            "note: --resume: dropped the incomplete last row of {out_s}, line {lines} ("
        )),
        "{err}"
    );
    assert!(err.contains("its pair runs again"), "{err}");
    assert!(text(&o).contains("wrote 1 rows"), "{}", text(&o));
    let rows = read(&out);
    assert_eq!(rows.len(), lines, "every pair once, the cut one re-run");
    let again = rows[1..]
        .iter()
        .filter(|r| format!("{},{}", r[0], r[1]) == pair)
        .count();
    assert_eq!(again, 1, "{pair}");
}

#[test]
fn a_closed_stdout_ends_list_commands_quietly_with_their_exit_code() {
    let dir = tempfile::tempdir().expect("temp dir");
    let csv = dir.path().join("s.csv");
    let csv = csv.to_str().expect("utf-8 path");
    let o = gconv(&[
        "sweep",
        "--variant",
        "fwd",
        "--problems",
        "fwd_f32_n1_g2_c4_k4_i5x5_f3x3_s1x1_p1x1_d1x1",
        "--config",
        "configs/traits/cpu_forward.json",
        "--backend",
        "cpu",
        "--output",
        csv,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    for args in [
        vec!["kernels", "configs/traits/forward_bf16.json", "--list"],
        vec![
            "kernels",
            "configs/traits/forward_bf16.json",
            "--count-only",
        ],
        vec!["problems"],
        vec!["problems", "forward_2d"],
        vec!["report", csv],
        vec!["info"],
    ] {
        // A pipe whose reader is already gone: the first write fails with a broken pipe, as
        // in `gconv kernels C --list | head -1` once `head` has exited.
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let o = Command::new(env!("CARGO_BIN_EXE_gconv"))
            .args(&args)
            .env("GCONV_DISABLE_CUDA", "1")
            .stdout(writer)
            .output()
            .expect("the gconv binary runs");
        let err = String::from_utf8_lossy(&o.stderr);
        // The exit code it has with an open stdout (`info` says 2 without a GPU).
        let open = gconv(&args).status.code();
        assert_eq!(o.status.code(), open, "{args:?}: {err}");
        assert!(matches!(open, Some(0 | 2)), "{args:?}: {open:?}");
        assert!(
            !err.contains("error") && !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
    }
}

/// `gconv` with standard output or standard error a pipe whose reader is gone (as in `… |
/// head -1` once `head` has exited).
fn gconv_into_closed(args: &[&str], close_stderr: bool) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gconv"));
    cmd.args(args).env("GCONV_DISABLE_CUDA", "1");
    if close_stderr {
        cmd.stderr(writer);
    } else {
        cmd.stdout(writer);
    }
    cmd.output().expect("the gconv binary runs")
}

#[test]
fn a_closed_stdout_does_not_lose_what_a_command_saves() {
    // `train` prints its cross-validation before it writes the model: the model is written.
    let dir = tempfile::tempdir().expect("temp dir");
    let model = dir.path().join("model");
    let o = gconv_into_closed(
        &[
            "train",
            "--data",
            "data/oracle/h200/wgrad_2d.shard-0-of-8.csv.gz",
            "--output",
            model.to_str().expect("utf-8"),
            "--folds",
            "2",
            "--trees",
            "10",
        ],
        false,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(model.join("meta.json").exists() && model.join("booster.json.gz").exists());
}

#[test]
fn a_closed_stderr_is_not_a_panic() {
    // The error line itself cannot be written: the exit code still says what happened.
    let o = gconv_into_closed(&["run", "--problem", "fwd_bf16_n2"], true);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = gconv_into_closed(
        &[
            "run",
            "--problem",
            "fwd_f32_n1_g1_c1_k1_i5_f3_s1_p1_d1",
            "--backend",
            "cpu",
            "--verify",
        ],
        true,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn filters_take_enum_tokens_and_refuse_values_a_field_does_not_have() {
    let count = |filter: &str| {
        let o = gconv(&[
            "kernels",
            "configs/traits/forward_bf16.json",
            "--count-only",
            "--filter",
            filter,
        ]);
        (o.status.code(), text(&o))
    };
    let (code, all) = count("dtype == bf16");
    assert_eq!(code, Some(0), "{all}");
    assert!(
        all.contains("removed by filter \"dtype == bf16\": 0"),
        "{all}"
    );
    let (code, t) = count("fast_path == pw");
    assert_eq!(code, Some(0), "{t}");
    let (code, by_index) = count("fast_path == 1");
    assert_eq!(code, Some(0), "{by_index}");
    let kept = |t: &str| t.split(" kernel(s)").next().map(str::to_string);
    assert_eq!(kept(&t), kept(&by_index), "{t}\n{by_index}");
    for (filter, wants) in [
        (
            "dtype == 7",
            &["no value with index 7", "f32, f16 or bf16"][..],
        ),
        (
            "dtype == bf17",
            &["`bf17` is not a value of `dtype`", "f32, f16 or bf16"],
        ),
        (
            "fast_path >= 1",
            &["enum field", "general (gen), pointwise (pw) or halo"],
        ),
    ] {
        let (code, t) = count(filter);
        assert_eq!(code, Some(2), "{filter}: {t}");
        for w in wants {
            assert!(t.contains(w), "{filter}: {t}");
        }
    }
}

#[test]
fn an_expansion_dropped_for_the_arch_hints_at_sm_90a() {
    let hint = "hint: every dropped combination needs --arch sm_90a (math wgmma); pass --arch sm_90a to keep them";
    let o = gconv(&[
        "kernels",
        "configs/traits/forward_wgmma_bf16.json",
        "--count-only",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("arch_required=1944"), "{t}");
    assert!(t.contains(hint), "{t}");
    let o = gconv(&[
        "sweep",
        "--variant",
        "fwd",
        "--problems",
        "configs/problems/dense_fwd.txt",
        "--config",
        "configs/traits/forward_wgmma_bf16.json",
        "--output",
        "unused.csv",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains(hint), "{t}");
    let o = gconv(&[
        "kernels",
        "configs/traits/forward_wgmma_bf16.json",
        "--arch",
        "sm_90a",
        "--count-only",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains(": 442 kernel(s) for fwd (gpu, sm_90a)"), "{t}");
    assert!(!t.contains("hint"), "{t}");
}

/// The Slurm example, run as three tasks of a stepped array (`--array=4-20:8`) on the CPU
/// backend: each task sweeps its shard, the merge script joins them, and the result has the
/// same pairs and statuses as one unsharded sweep (`gconv compare` exits 0). Merging again
/// without --force, comparing with one shard, --gpus on the CPU backend and an irregular array
/// without its index list are refused with a clear message.
#[test]
fn the_slurm_example_shards_a_sweep_and_merges_it_like_one_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = |n: &str| dir.path().join(n).to_str().expect("utf-8").to_string();
    let common = [
        "sweep",
        "--variant",
        "fwd",
        "--problems",
        "forward_2d_test_validation",
        "--config",
        "configs/traits/cpu_forward.json",
        "--backend",
        "cpu",
    ];
    let mut whole = common.to_vec();
    let all = p("all.csv");
    whole.extend(["--output", &all]);
    let o = gconv(&whole);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = p("sweeps/s.csv");
    let script = |name: &str, id: Option<&str>| {
        let mut c = Command::new("bash");
        c.arg(format!("scripts/slurm/{name}"))
            .env("GCONV", env!("CARGO_BIN_EXE_gconv"))
            .env("GCONV_DISABLE_CUDA", "1")
            .env("VARIANT", "fwd")
            .env("PROBLEMS", "forward_2d_test_validation")
            .env("CONFIG", "configs/traits/cpu_forward.json")
            .env("OUT", &out)
            .env("SHARDS", "3")
            .env("GCONV_SWEEP_ARGS", "--backend cpu");
        if let Some(id) = id {
            c.env("SLURM_ARRAY_TASK_ID", id)
                .env("SLURM_ARRAY_TASK_MIN", "4")
                .env("SLURM_ARRAY_TASK_MAX", "20")
                .env("SLURM_ARRAY_TASK_STEP", "8")
                .env("SLURM_ARRAY_TASK_COUNT", "3");
        }
        c.output().expect("bash runs")
    };
    for (rank, id) in ["4", "12", "20"].iter().enumerate() {
        let o = script("sweep_array.sbatch", Some(id));
        let t = text(&o);
        assert_eq!(o.status.code(), Some(0), "task {id}: {t}");
        assert!(
            t.contains(&format!("note: shard {rank}/3 from Slurm")),
            "{t}"
        );
        assert!(
            dir.path()
                .join(format!("sweeps/s.shard-{rank}-of-3.csv"))
                .exists(),
            "{t}"
        );
    }
    // The merge script refuses while a shard is missing.
    let s2 = dir.path().join("sweeps/s.shard-2-of-3.csv");
    let keep = std::fs::read(&s2).expect("shard 2");
    std::fs::remove_file(&s2).expect("rm");
    let o = script("merge.sbatch", None);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("shard 2 of 3 is missing"), "{}", text(&o));
    std::fs::write(&s2, keep).expect("restore");
    let o = script("merge.sbatch", None);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("merged") && t.contains("from 3 file(s)"), "{t}");
    let o = gconv(&["compare", &all, &out]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("0 only in A, 0 only in B, 0 with another status"),
        "{t}"
    );
    // Merging into an existing file needs --force.
    let shard0 = p("sweeps/s.shard-0-of-3.csv");
    let o = gconv(&["merge", "--output", &out, &shard0]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--force"), "{}", text(&o));
    // One shard is not the whole sweep.
    let o = gconv(&["compare", &all, &shard0]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("DIFFER"), "{}", text(&o));
    // --gpus is for the CUDA backend.
    let mut bad = common.to_vec();
    let x = p("x.csv");
    bad.extend(["--output", &x, "--gpus", "1"]);
    let o = gconv(&bad);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--gpus 1"), "{}", text(&o));
    // An index list that is not one stepped range, without --shard-indices.
    let o = Command::new(env!("CARGO_BIN_EXE_gconv"))
        .args(&bad[..bad.len() - 2])
        .env("GCONV_DISABLE_CUDA", "1")
        .env("SLURM_ARRAY_TASK_ID", "7")
        .env("SLURM_ARRAY_TASK_MIN", "1")
        .env("SLURM_ARRAY_TASK_MAX", "7")
        .env("SLURM_ARRAY_TASK_STEP", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--shard-indices"), "{}", text(&o));
    // ... and with it: task 7 of the list 1,2,7 is shard 2/3.
    let mut listed = bad[..bad.len() - 2].to_vec();
    listed.extend(["--shard-indices", "1,2,7"]);
    let o = Command::new(env!("CARGO_BIN_EXE_gconv"))
        .args(&listed)
        .env("GCONV_DISABLE_CUDA", "1")
        .env("SLURM_ARRAY_TASK_ID", "7")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .output()
        .expect("runs");
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("note: shard 2/3"), "{t}");
    // The same shard as the stepped array's third task: the same pairs.
    let o = gconv(&[
        "compare",
        s2.to_str().expect("utf-8"),
        &p("x.shard-2-of-3.csv"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// The learned selector's commands on committed data: `train` prints cross-validated metrics
/// and writes a model (and leaves out the geometries of `--holdout` files), `validate` scores
/// a measured oracle with the unseen geometries apart, `select` ranks the pool with the reasons
/// for refusals; bad input exits 2.
#[test]
fn train_options_out_of_range_are_refused_by_name() {
    for (option, value) in [
        ("--learning-rate", "NaN"),
        ("--learning-rate=-0.1", ""),
        ("--top-weight", "NaN"),
        ("--label-cap", "inf"),
        ("--trees", "0"),
        ("--depth", "0"),
        ("--subsample", "2"),
        ("--colsample", "0"),
        ("--folds", "4294967295"),
    ] {
        let o = gconv(
            &[
                "train",
                "--data",
                "data/oracle/h200/wgrad_2d.shard-0-of-8.csv.gz",
                "--output",
                "/nonexistent/model",
                option,
            ]
            .into_iter()
            .chain((!value.is_empty()).then_some(value))
            .collect::<Vec<_>>(),
        );
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{option} {value}: {t}");
        let named = option.split('=').next().unwrap_or(option);
        let named = if named == "--folds" { "folds" } else { named };
        assert!(
            t.contains(named) && !t.contains("panicked"),
            "{option} {value}: {t}"
        );
    }
}

#[test]
fn train_validate_and_select_run_on_committed_data() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = dir.path().join("model");
    let m = model.to_str().expect("utf-8");
    let o = gconv(&[
        "train",
        "--data",
        "data/oracle/h200/wgrad_2d.shard-0-of-8.csv.gz",
        "--output",
        m,
        "--folds",
        "2",
        "--trees",
        "30",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("cross-validation, 2 folds") && t.contains("efficiency geomean"),
        "{t}"
    );
    assert!(model.join("meta.json").exists() && model.join("booster.json.gz").exists());
    let o = gconv(&[
        "validate",
        "--oracle",
        "results/h200/s8/multi/all.csv.gz",
        "--model",
        m,
        "--misses",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("whose geometry it was not trained on")
            && t.contains("top-5")
            && t.contains("top-5 of the fastest candidate")
            && t.contains("top-5 misses: "),
        "{t}"
    );
    let o = gconv(&[
        "select",
        "--problem",
        "wgrad_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
        "--model",
        m,
        "--top",
        "3",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains(" 1. igemm_wgrad_") || t.contains(" 1. direct_wgrad_"),
        "{t}"
    );
    assert!(
        t.contains("not a candidate") && t.contains("pointwise_inapplicable"),
        "{t}"
    );
    // Without --model: the shipped model, which `auto` uses.
    let o = gconv(&[
        "select",
        "--problem",
        "wgrad_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("the shipped model"), "{t}");
    // Tune measures on the GPU: without one it says so.
    let out = dir.path().join("tune.csv");
    let o = gconv(&[
        "tune",
        "--problems",
        "model_zoo_fwd",
        "--output",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("needs the CUDA backend"), "{}", text(&o));
    // A bad GCONV_AUTO is refused before anything runs.
    let o = Command::new(env!("CARGO_BIN_EXE_gconv"))
        .args(["problems"])
        .env("GCONV_AUTO", "learned")
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("GCONV_AUTO"), "{}", text(&o));
    for bad in [
        vec!["select", "--problem", "wgrad_bf16_nope", "--model", m],
        vec![
            "select",
            "--problem",
            "fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1",
            "--model",
            "no/such/dir",
        ],
        vec!["train", "--data", "no/such.csv", "--output", m],
        vec![
            "train",
            "--data",
            "data/oracle/h200/wgrad_2d.shard-0-of-8.csv.gz",
            "--holdout",
            "no/such.csv",
            "--output",
            m,
        ],
    ] {
        let o = gconv(&bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", text(&o));
    }
    // --holdout: the training problems that share a geometry with the holdout files are left
    // out (every one, with the training file itself: nothing left to learn from).
    let shard = "data/oracle/h200/wgrad_2d.shard-0-of-8.csv.gz";
    let o = gconv(&[
        "train",
        "--data",
        shard,
        "--holdout",
        shard,
        "--output",
        m,
        "--folds",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("nothing to learn from"), "{}", text(&o));
    let o = gconv(&[
        "train",
        "--data",
        shard,
        "--holdout",
        "data/oracle/h200/dgrad_2d.shard-0-of-8.csv.gz",
        "--output",
        m,
        "--folds",
        "0",
        "--trees",
        "10",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    let line = t
        .lines()
        .find(|l| l.starts_with("holdout: "))
        .unwrap_or_else(|| panic!("no holdout line: {t}"));
    let n: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    // holdout: G geometries; L of P training problems share one and are left out (the
    // backward-data shard shares some geometries with the backward-weight one, not all).
    assert!(
        n.len() == 3 && n[0] > 0 && n[1] > 0 && n[1] < n[2],
        "{line}"
    );
}

/// NVRTC is found without `LD_LIBRARY_PATH`: from a folder in `GCONV_CUDA_LIB_DIRS` (the NVRTC
/// wheel's folder that `scripts/test.sh` installs into `.venv`), and `gconv info` names the file;
/// with only a folder that lacks it, the error names every folder looked in.
#[test]
fn info_finds_nvrtc_in_the_folders_it_is_given_and_names_them_when_it_cannot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wheel = std::fs::read_dir(root.join(".venv/lib"))
        .ok()
        .and_then(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path().join("site-packages/nvidia/cu13/lib"))
                .find(|p| p.join("libnvrtc.so.13").is_file())
        });
    let info = |dirs: &Path| {
        Command::new(env!("CARGO_BIN_EXE_gconv"))
            .arg("info")
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("CUDA_HOME")
            .env_remove("CUDA_PATH")
            .env_remove("VIRTUAL_ENV")
            .env("GCONV_CUDA_LIB_DIRS", dirs)
            .output()
            .expect("the gconv binary runs")
    };
    let empty = tempfile::tempdir().expect("a temporary folder");
    let t = text(&info(empty.path()));
    let system_nvrtc = Path::new("/usr/local/cuda/lib64/libnvrtc.so.13").is_file();
    if !system_nvrtc && !t.contains("found by the loader's search") {
        assert!(t.contains("NVRTC library not found"), "{t}");
        assert!(t.contains(&empty.path().display().to_string()), "{t}");
        assert!(t.contains("/usr/local/cuda/lib64"), "{t}");
    }
    match wheel {
        Some(dir) => {
            let t = text(&info(&dir));
            let want = format!("nvrtc    13.0 ({})", dir.join("libnvrtc.so.13").display());
            assert!(
                t.contains(&want) || t.contains("found by the loader's search"),
                "{t}"
            );
        }
        None => assert!(
            std::env::var_os("GCONV_REQUIRE_NVRTC").is_none(),
            "GCONV_REQUIRE_NVRTC is set but .venv holds no NVRTC wheel"
        ),
    }
}

/// `gconv cache build` compiles a set's kernels into the cache without a GPU (NVRTC only): a
/// second build of the same set finds every module cached; bad input is refused with an exit
/// code. Without a loadable NVRTC the compiling half prints SKIPPED.
#[test]
fn cache_build_compiles_ahead_of_time_without_a_gpu() {
    let dir = tempfile::tempdir().expect("a temporary cache directory");
    let build = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_gconv"))
            .args(["cache", "build"])
            .args(args)
            .env("GCONV_DISABLE_CUDA", "1")
            .env("GCONV_CACHE_DIR", dir.path())
            .output()
            .expect("the gconv binary runs")
    };
    // Bad input first (no NVRTC needed): an unknown problem, both kernel sources, neither.
    let o = build(&["--problems", "no_such_set", "--direction", "wgrad"]);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("no_such_set"), "{}", text(&o));
    let both = [
        "--problems",
        "model_zoo",
        "--direction",
        "wgrad",
        "--config",
        "configs/traits/bwd_weight_tma_bf16.json",
    ];
    assert_eq!(build(&both).status.code(), Some(2));
    assert_eq!(build(&["--problems", "model_zoo"]).status.code(), Some(2));
    // No compile threads at all is refused, not run on one.
    let o = build(&[
        "--problems",
        "model_zoo",
        "--direction",
        "wgrad",
        "--workers",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--workers"), "{}", text(&o));
    let o = build(&[
        "--problems",
        "fwd_bf16_n1_g2_c8_k8_i6x6_f3x3_s1x1_p1x1_d1x1",
        "--direction",
        "wgrad",
    ]);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("no wgrad problem"), "{}", text(&o));

    if !text(&gconv(&["info"])).contains("nvrtc    13") {
        println!("SKIPPED: cache_build_compiles_ahead_of_time_without_a_gpu: NVRTC not loadable");
        return;
    }
    let key = [
        "--problems",
        "wgrad_bf16_n1_g2_c64_k64_i6x6_f3x3_s1x1_p1x1_d1x1",
    ];
    let first = build(&[&key[..], &["--direction", "wgrad"]].concat());
    let t1 = text(&first);
    assert_eq!(first.status.code(), Some(0), "{t1}");
    let counted = |t: &str, what: &str| -> usize {
        t.split(", ")
            .find_map(|s| s.trim().strip_suffix(what))
            .and_then(|n| n.split_whitespace().last()?.parse().ok())
            .unwrap_or_else(|| panic!("no '{what}' count in {t}"))
    };
    let compiled = counted(&t1, " compiled");
    assert!(compiled > 1, "{t1}");
    // (members whose modules are the same text are compiled once: the later finds it cached)
    let modules = compiled + counted(&t1, " already cached");
    let second = build(&[&key[..], &["--direction", "wgrad"]].concat());
    let t2 = text(&second);
    assert_eq!(second.status.code(), Some(0), "{t2}");
    assert_eq!(counted(&t2, " compiled"), 0, "{t2}");
    assert_eq!(counted(&t2, " already cached"), modules, "{t2}");
}

/// A file of the right name that is not the CUDA library (here the zlib, as `libcuda.so.1` and
/// `libnvrtc.so.13`): one error naming the library, where it loaded from and the missing
/// symbol, never a panic or a backtrace; exit 2 where CUDA is required, the CPU with a one-line
/// note for `--backend auto`, one error (not one per module) for `cache build`.
#[test]
fn a_wrong_library_under_the_cuda_names_is_named_without_a_panic() {
    let Some(libz) = [
        "/lib/x86_64-linux-gnu/libz.so.1",
        "/usr/lib/x86_64-linux-gnu/libz.so.1",
        "/lib64/libz.so.1",
        "/usr/lib64/libz.so.1",
    ]
    .into_iter()
    .map(Path::new)
    .find(|p| p.is_file()) else {
        println!("SKIPPED: a_wrong_library_under_the_cuda_names_is_named_without_a_panic: no libz");
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    for name in ["libcuda.so.1", "libnvrtc.so.13"] {
        std::fs::copy(libz, dir.path().join(name)).expect("copy");
    }
    let cache = tempfile::tempdir().expect("temp dir");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_gconv"))
            .args(args)
            .env("LD_LIBRARY_PATH", dir.path())
            .env("RUST_BACKTRACE", "1")
            .env("GCONV_CACHE_DIR", cache.path())
            .env_remove("GCONV_DISABLE_CUDA")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .output()
            .expect("the gconv binary runs")
    };
    let driver = format!(
        "libcuda.so.1 at {} is not a usable CUDA driver library: missing symbol cuInit",
        dir.path().join("libcuda.so.1").display()
    );
    let nvrtc = format!(
        "libnvrtc.so.13 at {} is not a usable NVRTC library: missing symbol nvrtcVersion",
        dir.path().join("libnvrtc.so.13").display()
    );
    let key = "fwd_f32_n1_g1_c1_k1_i4x4_f3x3_s1x1_p1x1_d1x1";
    for (args, code, want) in [
        (&["info"][..], 2, &driver),
        (&["info"][..], 2, &nvrtc),
        (
            &["run", "--problem", key, "--backend", "cuda"][..],
            2,
            &driver,
        ),
        (&["selftest", "--gpu"][..], 2, &driver),
        (&["baseline", "--problems", key][..], 2, &driver),
        (&["run", "--problem", key][..], 0, &driver),
        (
            &["cache", "build", "--problems", key, "--direction", "fwd"][..],
            2,
            &nvrtc,
        ),
    ] {
        let o = run(args);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {t}");
        assert_eq!(t.matches(want.as_str()).count(), 1, "{args:?}: {t}");
        assert!(
            !t.contains("panicked") && !t.contains("stack backtrace"),
            "{args:?}: {t}"
        );
    }
}

/// Without any NVRTC, `cache build` says so once and exits 2 (an unusable backend), instead of
/// one failure per module and exit 1.
#[test]
fn cache_build_without_nvrtc_is_one_error() {
    let empty = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let o = Command::new(env!("CARGO_BIN_EXE_gconv"))
        .args([
            "cache",
            "build",
            "--problems",
            "fwd_f32_n1_g1_c1_k1_i4x4_f3x3_s1x1_p1x1_d1x1",
            "--direction",
            "fwd",
        ])
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("CUDA_HOME")
        .env_remove("CUDA_PATH")
        .env_remove("VIRTUAL_ENV")
        .env("GCONV_CUDA_LIB_DIRS", empty.path())
        .env("GCONV_DISABLE_CUDA", "1")
        .env("GCONV_CACHE_DIR", cache.path())
        .output()
        .expect("the gconv binary runs");
    let t = text(&o);
    if o.status.success() {
        println!("SKIPPED: cache_build_without_nvrtc_is_one_error: NVRTC found by the loader");
        return;
    }
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert_eq!(t.matches("NVRTC library not found").count(), 1, "{t}");
    assert!(!t.contains("failed:"), "{t}");
}

/// A small CPU sweep of one problem into `output`, with `extra` options.
fn cpu_sweep(problem: &str, output: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "sweep",
        "--problems",
        problem,
        "--config",
        "configs/traits/cpu_forward.json",
        "--backend",
        "cpu",
        "--output",
        output.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(extra);
    gconv(&args)
}

const SMALL_FWD: &str = "fwd_f32_n1_g1_c1_k1_i4x4_f3x3_s1x1_p1x1_d1x1";

/// Outputs that would lose or corrupt something are refused before anything is written:
/// `--resume` on a file that is not a sweep CSV (even one whose last line has no newline),
/// `--overwrite` whose messages file cannot be opened, a FIFO or directory as any command's
/// output, and a sweep whose set has no problem of the config's direction.
#[test]
fn outputs_are_checked_before_anything_is_modified() {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = |name: &str| dir.path().join(name);

    // --resume on notes with a cut last line: refused, untouched.
    let notes = p("notes.txt");
    let body = "my notes line 1\nmy notes line 2 without newline";
    std::fs::write(&notes, body).expect("write");
    let o = cpu_sweep(SMALL_FWD, &notes, &["--resume"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("not a gconv sweep CSV"), "{t}");
    assert!(!t.contains("dropped the incomplete"), "{t}");
    assert_eq!(std::fs::read_to_string(&notes).expect("notes"), body);

    // --overwrite with a messages file that cannot be opened: the old CSV stays whole.
    let out = p("out.csv");
    let o = cpu_sweep(SMALL_FWD, &out, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let before = std::fs::read(&out).expect("csv");
    let messages = p("out.csv.messages.jsonl");
    std::fs::remove_file(&messages).expect("remove");
    std::fs::create_dir(&messages).expect("mkdir");
    let o = cpu_sweep(SMALL_FWD, &out, &["--overwrite"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("is a directory, not a regular file"), "{t}");
    assert_eq!(std::fs::read(&out).expect("csv"), before, "{t}");
    std::fs::remove_dir(&messages).expect("rmdir");

    // No problem of the config's direction, no shard asked for: exit 2, no file.
    let none = p("none.csv");
    let o = cpu_sweep("dgrad_f32_n1_g1_c1_k1_i4x4_f3x3_s1x1_p1x1_d1x1", &none, &[]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("none of the 1 problem(s)"), "{t}");
    assert!(t.contains("is a fwd problem"), "{t}");
    assert!(!t.contains("shard"), "{t}");
    assert!(!none.exists());

    // A FIFO or a directory as an output: refused by kind, still what it was.
    let fifo = p("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        println!("SKIPPED: the FIFO half of outputs_are_checked_before_anything_is_modified");
        return;
    }
    let is_fifo = |path: &Path| {
        std::os::unix::fs::FileTypeExt::is_fifo(
            &std::fs::symlink_metadata(path).expect("exists").file_type(),
        )
    };
    let fifo_s = fifo.to_str().expect("utf-8 path");
    let out_s = out.to_str().expect("utf-8 path");
    let config = p("cf.json");
    std::fs::copy("configs/traits/cpu_forward.json", &config).expect("copy");
    let config_s = config.to_str().expect("utf-8 path");
    let dir_s = dir.path().to_str().expect("utf-8 path");
    for args in [
        &["merge", "--force", "--output", fifo_s, out_s][..],
        &["kernels", config_s, "--export-json", fifo_s][..],
        &["kernels", config_s, "--export-json", dir_s][..],
        &[
            "decide",
            "--problems",
            SMALL_FWD,
            "--from",
            out_s,
            "--decisions",
            fifo_s,
        ][..],
    ] {
        let o = gconv(args);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains("not a regular file"), "{args:?}: {t}");
    }
    let o = cpu_sweep(SMALL_FWD, &fifo, &["--overwrite"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(
        t.contains("is a FIFO (named pipe), not a regular file"),
        "{t}"
    );
    assert!(is_fifo(&fifo));
    assert!(!p("fifo.messages.jsonl").exists());
}

/// `kernels C --export-json C` would replace the config with its expansion: refused, by any
/// spelling of the same file; another file is written whole.
#[test]
fn kernels_export_refuses_its_own_config() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("victim.json");
    std::fs::copy("configs/traits/cpu_forward.json", &config).expect("copy");
    let before = std::fs::read(&config).expect("config");
    let config_s = config.to_str().expect("utf-8 path");
    let other = dir.path().join("sub/../victim.json");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    for out in [config_s, other.to_str().expect("utf-8 path")] {
        let o = gconv(&["kernels", config_s, "--export-json", out]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{t}");
        assert!(t.contains("the output is the input"), "{t}");
        assert_eq!(std::fs::read(&config).expect("config"), before);
    }
    let out = dir.path().join("kernels.json");
    let o = gconv(&[
        "kernels",
        config_s,
        "--export-json",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("export")).expect("json");
    assert!(v["count"].as_u64().is_some_and(|n| n > 0), "{v}");
}

/// Messages say what was wrong: a float too large for its f32 option is refused as out of
/// range with the text given (not as `inf`), and a top-level key of a trait config is called
/// that, not a `trait_config` field.
#[test]
fn messages_name_the_real_problem() {
    let o = gconv(&[
        "train",
        "--data",
        "data/oracle/h200/wgrad_2d.shard-0-of-8.csv.gz",
        "--output",
        "/nonexistent/model",
        "--top-weight",
        "1e300",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("1e300") && t.contains("out of range"), "{t}");
    assert!(!t.contains("--top-weight inf"), "{t}");
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("cf.json");
    std::fs::write(
        &config,
        r#"{"variant":"forward","backend":"cpu","arch":"sm_90","trait_config":{}}"#,
    )
    .expect("write");
    let o = gconv(&["kernels", config.to_str().expect("utf-8")]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("top-level key \"arch\""), "{t}");
    assert!(!t.contains("trait_config field"), "{t}");
}

/// A CSV concatenated by hand (a row repeated) is reported with a warning that says how many
/// rows repeat an earlier one; the sweep's own CSV gets none.
#[test]
fn repeated_rows_are_named_by_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let clean = dir.path().join("clean.csv");
    let o = gconv(&[
        "sweep",
        "--problems",
        "fwd_f32_n1_g2_c4_k4_i6x6_f3x3_s1x1_p1x1_d1x1",
        "--config",
        "configs/traits/cpu_forward.json",
        "--backend",
        "cpu",
        "--output",
        clean.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let csv = std::fs::read_to_string(&clean).expect("the sweep's CSV");
    let ok = csv
        .lines()
        .find(|l| l.contains(",ok,"))
        .expect("an ok row")
        .to_string();
    let doubled = dir.path().join("doubled.csv");
    std::fs::write(&doubled, csv + &ok + "\n").expect("write");
    let o = gconv(&["report", clean.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!text(&o).contains("repeat an earlier"), "{}", text(&o));
    let o = gconv(&["report", doubled.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("1 rows repeat an earlier row"),
        "{}",
        text(&o)
    );
}
