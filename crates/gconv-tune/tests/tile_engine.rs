//! End-to-end tests of the tile engine: the worker protocol against a scripted worker that
//! crashes, hangs, prints garbage and lies; resume; device pools, shards and merging; and a
//! full CPU sweep (enumerate a CPU
//! config, run it in worker subprocesses, verify, CSV, summary) with the planted wrong variant.

use gconv_kernels::Arch;
use gconv_problem::Problem;
use gconv_tune::csv::read_rows;
use gconv_tune::sweep::{DeviceSlot, KernelGate, SweepOptions};
use gconv_tune::worker::{Status, TimingOptions};
use gconv_tune::{
    build_instances, merge_csvs, resolve_problems, run_sweep, summarize, DeviceTag, Shard, SweepRow,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

const WORKER: &str = env!("CARGO_BIN_EXE_gconv-tune-test-worker");

/// Accepts every `fake_*` name, refuses `fake_rejected`, and leaves CPU names to `can_run`.
struct FakeGate;

impl KernelGate for FakeGate {
    fn known(&self, kernel: &str) -> Result<(), String> {
        if kernel.starts_with("fake_") || kernel.starts_with("cpu_") {
            Ok(())
        } else {
            Err(format!("{kernel} is not a fake kernel"))
        }
    }
    fn admit(&self, kernel: &str, _problem: &Problem) -> Result<String, (Status, String)> {
        if kernel == "fake_rejected" {
            Err((Status::Rejected, "refused by the fake gate".into()))
        } else {
            Ok(kernel.to_string())
        }
    }
}

fn opts(dir: &Path, name: &str) -> SweepOptions {
    let mut o = SweepOptions::new(WORKER, vec![], dir.join(name));
    o.gate = Some(Arc::new(FakeGate));
    o.kernel_timeout = Duration::from_secs(3);
    o.startup_timeout = Duration::from_secs(20);
    o.timing = TimingOptions {
        warmup: 0,
        repeats: 2,
        ..TimingOptions::default()
    };
    o.progress = false;
    o
}

fn problems() -> Vec<Problem> {
    [
        "fwd_f32_n1_g2_c4_k4_i6x6_f3x3_s1x1_p1x1_d1x1",
        "fwd_bf16_n2_g4_c8_k8_i5_f3_s1_p1_d1",
    ]
    .iter()
    .map(|k| k.parse().unwrap())
    .collect()
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn by_pair(rows: &[SweepRow]) -> BTreeMap<(String, String), Status> {
    let mut m = BTreeMap::new();
    for r in rows {
        let prev = m.insert((r.kernel.clone(), r.problem.to_string()), r.status);
        assert!(prev.is_none(), "duplicate row {} {}", r.kernel, r.problem);
    }
    m
}

fn worker_log(path: &Path) -> Vec<(String, Vec<u64>)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let (pid, ids) = l.split_once(' ').unwrap();
            (
                pid.to_string(),
                ids.split(',').map(|x| x.parse().unwrap()).collect(),
            )
        })
        .collect()
}

#[test]
fn misbehaving_workers_become_rows_and_the_sweep_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("workers.log");
    let mut o = opts(dir.path(), "fake.csv");
    o.batch_size = 4;
    o.baselines = vec!["fake".into()];
    o.messages = Some(dir.path().join("messages.jsonl"));
    o.worker_env = vec![("GCONV_TEST_WORKER_LOG".into(), log.display().to_string())];
    let kernels = names(&[
        "fake_ok_1",
        "fake_crash",
        "fake_ok_2",
        "fake_hang",
        "fake_garbage",
        "fake_incorrect",
        "fake_unverified",
        "fake_wrong_kernel",
        "fake_exit",
        "fake_ok_3",
        "fake_rejected",
        "fake_ok_1", // duplicate name: swept once
    ]);
    let ps = problems();
    let report = run_sweep(&kernels, &ps, &o).unwrap();

    let expected = [
        ("fake:fast", Status::Ok),
        ("fake:slow", Status::Crashed), // unverified: never ranked
        ("fake_ok_1", Status::Ok),
        ("fake_crash", Status::Crashed),
        ("fake_ok_2", Status::Ok),
        ("fake_hang", Status::Timeout),
        ("fake_garbage", Status::Crashed),
        ("fake_incorrect", Status::Incorrect),
        ("fake_unverified", Status::Crashed),
        ("fake_wrong_kernel", Status::Crashed),
        ("fake_exit", Status::Crashed),
        ("fake_ok_3", Status::Ok),
        ("fake_rejected", Status::Rejected),
    ];
    // The CSV on disk has exactly one row per pair, with the expected status.
    let rows = read_rows(&o.output).unwrap();
    assert_eq!(rows.len(), expected.len() * ps.len());
    let got = by_pair(&rows);
    for p in &ps {
        for (k, st) in expected {
            assert_eq!(
                got.get(&(k.to_string(), p.to_string())),
                Some(&st),
                "{k} on {p}"
            );
        }
    }
    assert_eq!(report.rows.len(), rows.len());
    // one baseline job and ten kernel jobs per problem: rejected pairs are not sent
    assert_eq!(report.jobs, 11 * ps.len());

    // Messages say what happened.
    let msg = |k: &str| {
        report
            .rows
            .iter()
            .find(|r| r.kernel == k)
            .and_then(|r| r.message.clone())
            .unwrap_or_default()
    };
    assert!(msg("fake_hang").contains("timeout"), "{}", msg("fake_hang"));
    assert!(
        msg("fake_crash").contains("aborting on purpose"),
        "{}",
        msg("fake_crash")
    );
    assert!(
        msg("fake_garbage").contains("this line is not a reply"),
        "{}",
        msg("fake_garbage")
    );
    assert!(
        msg("fake_wrong_kernel").contains("someone_else"),
        "{}",
        msg("fake_wrong_kernel")
    );
    assert!(
        msg("fake_unverified").contains("verification"),
        "{}",
        msg("fake_unverified")
    );
    assert!(msg("fake_rejected").contains("fake gate"));
    let jsonl = std::fs::read_to_string(o.messages.as_ref().unwrap()).unwrap();
    assert!(jsonl.lines().any(|l| l.contains("fake_hang")));

    // Error cells survive (incorrect rows keep their errors, inf included).
    let inc = rows.iter().find(|r| r.kernel == "fake_incorrect").unwrap();
    assert_eq!(inc.max_abs_err, Some(1.5));
    assert!(inc.max_rel_err.unwrap().is_infinite());

    // Each failure killed its worker and the rest of the batch ran in a fresh one; every job
    // was sent.
    let runs = worker_log(&log);
    assert!(report.workers_started >= 10, "{}", report.workers_started);
    assert_eq!(runs.len(), report.workers_started);
    let mut first_seen = BTreeMap::new();
    for (_, ids) in &runs {
        for id in ids {
            *first_seen.entry(*id).or_insert(0) += 1;
        }
    }
    assert_eq!(first_seen.len(), report.jobs);

    // The summary ranks only verified, ok kernels and compares with the best baseline.
    let s = summarize(&rows);
    for p in &s.problems {
        let top: Vec<&str> = p.top.iter().map(|r| r.kernel.as_str()).collect();
        assert_eq!(top, ["fake_ok_1", "fake_ok_2", "fake_ok_3"]);
        assert_eq!(p.best_baseline.as_ref().unwrap().kernel, "fake:fast");
        assert_eq!(p.speedup(), Some(1.0));
    }
    assert_eq!(s.kernel_status[&Status::Crashed], 5 * ps.len());
}

#[test]
fn a_worker_that_fails_in_prepare_blames_only_the_culprit() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path(), "prep.csv");
    o.startup_timeout = Duration::from_secs(3);
    let kernels = names(&["fake_ok_1", "fake_slow_prepare", "fake_ok_2"]);
    let ps = &problems()[..1];
    let report = run_sweep(&kernels, ps, &o).unwrap();
    let got = by_pair(&report.rows);
    let key = ps[0].to_string();
    assert_eq!(got[&("fake_ok_1".into(), key.clone())], Status::Ok);
    assert_eq!(
        got[&("fake_slow_prepare".into(), key.clone())],
        Status::Timeout
    );
    assert_eq!(got[&("fake_ok_2".into(), key)], Status::Ok);
    let slow = report
        .rows
        .iter()
        .find(|r| r.kernel == "fake_slow_prepare")
        .unwrap();
    assert!(
        slow.message.as_deref().unwrap_or("").contains("start-up"),
        "{:?}",
        slow.message
    );
    // one batch worker, then one worker per job
    assert_eq!(report.workers_started, 4);
}

#[test]
fn resume_skips_pairs_already_in_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("workers.log");
    let mut o = opts(dir.path(), "resume.csv");
    o.worker_env = vec![("GCONV_TEST_WORKER_LOG".into(), log.display().to_string())];
    o.baselines = vec!["fake".into()];
    let ps = problems();
    let first = run_sweep(&names(&["fake_ok_1", "fake_ok_2"]), &ps[..1], &o).unwrap();
    assert_eq!(first.rows.len(), 4, "two kernels and two baseline engines");

    // Simulate an interrupted write: a partial row at the end of the file.
    let mut text = std::fs::read_to_string(&o.output).unwrap();
    text.push_str("fake_ok_3,fwd_f32_n1");
    std::fs::write(&o.output, text).unwrap();

    o.resume = true;
    let kernels = names(&["fake_ok_1", "fake_ok_2", "fake_ok_3"]);
    let second = run_sweep(&kernels, &ps, &o).unwrap();
    assert_eq!(second.skipped, 3, "two kernel pairs and one baseline job");
    assert_eq!(second.previous.len(), 4);
    assert_eq!(second.rows.len(), 6, "the missing pairs only");
    assert!(second.rows.iter().all(|r| r.problem != ps[0]
        || !["fake_ok_1", "fake_ok_2", "fake:fast", "fake:slow"].contains(&r.kernel.as_str())));
    let rows = read_rows(&o.output).unwrap();
    assert_eq!(rows.len(), 10);
    by_pair(&rows); // no duplicates
    let text = std::fs::read_to_string(&o.output).unwrap();
    assert_eq!(text.matches("kernel,problem").count(), 1, "one header");

    // Resume again: nothing left to do, no worker started.
    let third = run_sweep(&kernels, &ps, &o).unwrap();
    assert_eq!(third.rows.len(), 0);
    assert_eq!(third.skipped, 8);
    assert_eq!(third.workers_started, 0);
    assert_eq!(third.all_rows().len(), 10);
    // the workers never saw a skipped job: 3 jobs in the first run, 5 in the second
    let sent: usize = worker_log(&log).iter().map(|(_, ids)| ids.len()).sum();
    assert_eq!(sent, 3 + 5);

    // Without resume the output starts over.
    o.resume = false;
    o.baselines.clear();
    let fresh = run_sweep(&names(&["fake_ok_1"]), &ps[..1], &o).unwrap();
    assert_eq!(fresh.rows.len(), 1);
    assert_eq!(read_rows(&o.output).unwrap().len(), 1);
}

/// Every output is checked before any is modified: a messages file that cannot be opened
/// leaves the old CSV whole (not cut to its header), and `resume` refuses a file that is not a
/// sweep CSV without dropping its cut last line.
#[test]
fn a_refused_output_leaves_the_old_files_intact() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path(), "keep.csv");
    o.messages = Some(dir.path().join("keep.csv.messages.jsonl"));
    let ps = problems();
    run_sweep(&names(&["fake_ok_1"]), &ps[..1], &o).unwrap();
    let before = std::fs::read(&o.output).unwrap();
    let m = o.messages.clone().unwrap();
    std::fs::remove_file(&m).unwrap();
    std::fs::create_dir(&m).unwrap();
    let e = run_sweep(&names(&["fake_ok_2"]), &ps[..1], &o).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
    assert_eq!(std::fs::read(&o.output).unwrap(), before);
    std::fs::remove_dir(&m).unwrap();

    let notes = "my notes line 1\nmy notes line 2 without newline";
    std::fs::write(&o.output, notes).unwrap();
    o.resume = true;
    let e = run_sweep(&names(&["fake_ok_1"]), &ps[..1], &o).unwrap_err();
    assert!(e.to_string().contains("not a gconv sweep CSV"), "{e}");
    assert_eq!(std::fs::read_to_string(&o.output).unwrap(), notes);
}

/// Early stop compares with the best verified latency known on the problem: within a batch
/// (the worker's own rows) and across batches (the orchestrator's figure sent with each job),
/// baselines included; a kernel close to the best is timed in full; stopped rows stay `ok`.
#[test]
fn early_stop_uses_the_best_so_far_within_and_across_batches() {
    let kernels = names(&[
        "fake_timed_1",
        "fake_timed_4",
        "fake_timed_30",
        "fake_timed_1.2",
        "fake_timed_0.5",
    ]);
    let p = &problems()[..1];
    for batch in [1, 10] {
        let dir = tempfile::tempdir().unwrap();
        let mut o = opts(dir.path(), "es.csv");
        o.batch_size = batch;
        o.timing = TimingOptions::adaptive_default();
        let report = run_sweep(&kernels, p, &o).unwrap();
        let rows = read_rows(&o.output).unwrap();
        let get = |k: &str| rows.iter().find(|r| r.kernel == k).unwrap().clone();
        for r in &rows {
            assert_eq!(r.status, Status::Ok, "{r:?}");
            assert!(r.max_abs_err.is_some());
        }
        let first = get("fake_timed_1");
        assert_eq!(first.stopped_early, Some(false), "nothing known yet");
        assert_eq!(first.rounds, Some(10));
        let four = get("fake_timed_4");
        assert_eq!(four.stopped_early, Some(true), "batch {batch}: {four:?}");
        assert_eq!((four.rounds, four.latency_ms), (Some(3), Some(4.0)));
        let slow = get("fake_timed_30");
        assert_eq!(slow.stopped_early, Some(true));
        assert_eq!(
            (slow.rounds, slow.iters),
            (Some(1), Some(1)),
            "at the probe"
        );
        let close = get("fake_timed_1.2");
        assert_eq!(
            close.stopped_early,
            Some(false),
            "within 1.5x: timed in full"
        );
        let fast = get("fake_timed_0.5");
        assert_eq!(fast.stopped_early, Some(false));
        assert_eq!(report.split.stopped_early, 2);
        assert_eq!(report.split.timed_rows, 5);
        assert_eq!(report.workers_started, if batch == 1 { 5 } else { 1 });
    }
    // A baseline that ran first sets the bar for the kernels, not for itself.
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path(), "es_base.csv");
    o.timing = TimingOptions::adaptive_default();
    o.baselines = vec!["fake".into()];
    run_sweep(&names(&["fake_timed_2", "fake_timed_1.1"]), p, &o).unwrap();
    let rows = read_rows(&o.output).unwrap();
    let get = |k: &str| rows.iter().find(|r| r.kernel == k).unwrap().clone();
    assert_eq!(
        get("fake_timed_2").stopped_early,
        Some(true),
        "2 > 1.5 x fake:fast (1 ms)"
    );
    assert_eq!(get("fake_timed_1.1").stopped_early, Some(false));
    // Resume: the CSV's rows count as known.
    o.resume = true;
    run_sweep(
        &names(&["fake_timed_2", "fake_timed_1.1", "fake_timed_3"]),
        p,
        &o,
    )
    .unwrap();
    let rows = read_rows(&o.output).unwrap();
    let three = rows.iter().find(|r| r.kernel == "fake_timed_3").unwrap();
    assert_eq!(three.stopped_early, Some(true));
}

#[test]
fn a_missing_worker_program_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path(), "x.csv");
    o.worker_program = dir.path().join("no-such-worker");
    let e = run_sweep(&names(&["fake_ok_1"]), &problems(), &o).unwrap_err();
    assert!(e.to_string().contains("no-such-worker"), "{e}");
}

fn repo_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

#[test]
fn cpu_pipeline_end_to_end() {
    // Enumerate: the shipped CPU config, planted wrong and crashing variants included.
    let inst = build_instances(
        &repo_file("configs/traits/cpu_forward.json"),
        Arch::Sm90,
        None,
    )
    .unwrap();
    assert_eq!(
        inst.kernels,
        [
            "cpu_direct",
            "cpu_im2col_gemm",
            "cpu_planted_wrong",
            "cpu_planted_crash"
        ]
    );
    // Problems: a registry subset, bf16 and f32.
    let mut ps = resolve_problems("forward_2d_test_validation").unwrap();
    ps.extend(resolve_problems("forward_1d_test_validation_f32").unwrap());
    assert!(ps.len() >= 20);

    let dir = tempfile::tempdir().unwrap();
    let mut o = SweepOptions::new(WORKER, vec![], dir.path().join("cpu.csv"));
    o.timing = TimingOptions {
        warmup: 1,
        repeats: 3,
        ..TimingOptions::adaptive_default()
    };
    o.baselines = vec!["reference".into()];
    o.kernel_timeout = Duration::from_secs(120);
    o.progress = false;
    let report = run_sweep(&inst.kernels, &ps, &o).unwrap();

    let rows = read_rows(&o.output).unwrap();
    assert_eq!(
        rows.len(),
        ps.len() * 5,
        "4 kernels + 1 baseline row per problem"
    );
    for r in &rows {
        match r.kernel.as_str() {
            "cpu_planted_wrong" => {
                assert_eq!(r.status, Status::Incorrect, "{}", r.problem);
                assert!(r.latency_ms.is_none());
                assert!(r.max_abs_err.unwrap() > 0.0);
            }
            "cpu_planted_crash" => {
                assert_eq!(r.status, Status::Crashed, "{}", r.problem);
                assert!(r.latency_ms.is_none());
            }
            _ => {
                assert_eq!(r.status, Status::Ok, "{} on {}", r.kernel, r.problem);
                assert!(r.latency_ms.unwrap() > 0.0);
                assert!(r.max_abs_err.is_some() && r.max_rel_err.is_some());
            }
        }
    }
    // Derived columns are present exactly for ok rows.
    let text = std::fs::read_to_string(&o.output).unwrap();
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), 38, "{line}");
        let ok = cells[23] == "ok";
        assert_eq!(!cells[25].is_empty(), ok, "{line}");
        assert_eq!(!cells[27].is_empty(), ok, "{line}");
        assert_eq!(!cells[33].is_empty(), ok, "rounds: {line}");
        assert_eq!(!cells[35].is_empty(), ok, "stopped_early: {line}");
        if ok {
            assert_eq!(cells[34], "1", "the CPU runs one per round: {line}");
        }
    }
    // The time split: the CPU executor reports its phases, compiles nothing.
    let split = &report.split;
    // every job answered, except the crashing variant's (one per problem)
    assert_eq!(
        split.kernel_jobs + split.baseline_jobs + ps.len(),
        report.jobs
    );
    assert!(split.workers >= 1);
    assert!(split.startup_ms > 0.0);
    assert_eq!(
        split.kernel.compile_cpu_ms + split.kernel.compile_wait_ms,
        0.0
    );
    assert_eq!((split.compiled, split.cache_hits), (0, 0));
    assert!(split.baseline.inputs_ms + split.kernel.inputs_ms > 0.0);
    assert!(split.baseline.reference_cpu_ms + split.kernel.reference_cpu_ms > 0.0);
    assert!(split.kernel.verify_ms > 0.0 && split.kernel.timing_ms > 0.0);
    let total: f64 = split.lines().iter().map(|(_, ms)| ms).sum();
    assert!(
        (total - split.wall_ms).abs() < 1.0,
        "{total} vs {}",
        split.wall_ms
    );
    assert!(split
        .to_string()
        .contains("compile CPU time 0.0 s: 0 compiled"));

    let s = report.summary(3);
    assert_eq!(s.problems.len(), ps.len());
    for p in &s.problems {
        assert_eq!(p.ok, 2, "{}", p.problem);
        assert!(p.top.iter().all(|r| !r.kernel.starts_with("cpu_planted")));
        assert_eq!(p.best_baseline.as_ref().unwrap().kernel, "reference:f64");
        assert!(p.speedup().is_some());
    }
    assert_eq!(s.kernel_status[&Status::Incorrect], ps.len());
    assert_eq!(s.kernel_status[&Status::Crashed], ps.len());
    let text = s.to_string();
    assert!(text.contains("fwd:"), "{text}");
    assert!(text.contains("vs best baseline"), "{text}");
}

#[test]
fn shipped_tensor_core_configs_expand() {
    // The warpgroup-MMA space needs sm_90a; asked for sm_90 every combination is rejected with
    // the typed reason, not silently dropped or compiled for the wrong target.
    let wg = repo_file("configs/traits/forward_wgmma_bf16.json");
    let r = build_instances(&wg, Arch::Sm90a, None).unwrap();
    assert!(r.kernels.len() >= 100, "{}", r.kernels.len());
    assert!(r.kernels.iter().all(|k| k.ends_with("_wgmma_gen")
        || k.ends_with("_wgmma_pw")
        || k.ends_with("_wgmma_halo")));
    // the halo fast path is a trait of the space too
    assert!(r.kernels.iter().any(|k| k.ends_with("_wgmma_halo")));
    let e = build_instances(&wg, Arch::Sm90, None).unwrap_err();
    assert!(e.to_string().contains("arch_required"), "{e}");
    // The TMA-fed schedule beside its wgmma and wgmmaws twins, pointwise only: every wgmmaws
    // tile has its wgmmatma twin (whose one producer warp leaves more registers to the math
    // warps than two producer warpgroups), and every wgmmatma tile its wgmma twin.
    let tma = build_instances(
        &repo_file("configs/traits/forward_tma_bf16.json"),
        Arch::Sm90a,
        None,
    )
    .unwrap();
    let of = |m: &str| -> std::collections::BTreeSet<String> {
        tma.kernels
            .iter()
            .filter_map(|k| {
                k.strip_suffix(&format!("_{m}_pw"))
                    .or_else(|| k.strip_suffix(&format!("_{m}_gen")))
                    .map(str::to_string)
            })
            .collect()
    };
    assert!(of("wgmmatma").len() >= 20, "{}", of("wgmmatma").len());
    assert!(of("wgmmaws").is_subset(&of("wgmmatma")));
    assert!(of("wgmmatma").is_subset(&of("wgmma")));
    // ... and in backward data and backward weight (the rule's split-K)
    for (file, variant) in [
        ("configs/traits/bwd_data_tma_bf16.json", "_dgrad_"),
        ("configs/traits/bwd_weight_tma_bf16.json", "_wgrad_"),
    ] {
        let r = build_instances(&repo_file(file), Arch::Sm90a, None).unwrap();
        let tma: Vec<_> = r
            .kernels
            .iter()
            .filter(|k| k.ends_with("_wgmmatma_pw"))
            .collect();
        assert!(tma.len() >= 20, "{file}: {}", tma.len());
        assert!(r
            .kernels
            .iter()
            .all(|k| k.contains(variant) && (k.ends_with("_pw") || k.ends_with("_gen"))));
    }
    // ... and with group merge in backward weight (every kernel merged, the TMA-fed ones
    // beside their wgmma twins).
    let r = build_instances(
        &repo_file("configs/traits/bwd_weight_tma_merge_bf16.json"),
        Arch::Sm90a,
        None,
    )
    .unwrap();
    let merged = r
        .kernels
        .iter()
        .filter(|k| k.contains("_wgmmatma_"))
        .count();
    assert!(merged >= 100, "{merged}");
    assert!(r
        .kernels
        .iter()
        .all(|k| k.contains("_wgrad_") && !k.contains("_gm1_")));
    // The direct family on tensor cores (sm_90).
    let dm = build_instances(
        &repo_file("configs/traits/forward_direct_mma_bf16.json"),
        Arch::Sm90,
        None,
    )
    .unwrap();
    assert!(dm.kernels.len() >= 1000, "{}", dm.kernels.len());
    assert!(dm
        .kernels
        .iter()
        .all(|k| k.starts_with("direct_") && k.ends_with("_mma_gen")));
    // ... and with block-diagonal group merge (C/G 1-4 layers).
    let gm = build_instances(
        &repo_file("configs/traits/forward_direct_mma_gm_bf16.json"),
        Arch::Sm90,
        None,
    )
    .unwrap();
    assert!(gm.kernels.len() >= 1000, "{}", gm.kernels.len());
    assert!(gm
        .kernels
        .iter()
        .all(|k| k.starts_with("direct_") && k.ends_with("_mma_gen") && !k.contains("_gm1_")));
    // Backward weight on tensor cores (direct::wgrad_mma).
    let wm = build_instances(
        &repo_file("configs/traits/bwd_weight_direct_mma_bf16.json"),
        Arch::Sm90,
        None,
    )
    .unwrap();
    assert!(wm.kernels.len() >= 10_000, "{}", wm.kernels.len());
    assert!(wm.kernels.iter().any(|k| k.contains("_gm2_")));
    assert!(wm
        .kernels
        .iter()
        .all(|k| k.starts_with("direct_wgrad_bf16_") && k.ends_with("_mma_gen")));
    // Streaming over depth (stages 3), forward and backward data: the same kernels by name.
    let sf = build_instances(
        &repo_file("configs/traits/forward_direct_mma_stream_bf16.json"),
        Arch::Sm90,
        None,
    )
    .unwrap();
    let sd = build_instances(
        &repo_file("configs/traits/bwd_data_direct_mma_stream_bf16.json"),
        Arch::Sm90,
        None,
    )
    .unwrap();
    assert!(sf.kernels.len() >= 1000, "{}", sf.kernels.len());
    assert_eq!(sf.kernels.len(), sd.kernels.len());
    assert!(sf.kernels.iter().all(|k| k.starts_with("direct_fwd_bf16_")
        && k.contains("_s3_")
        && k.ends_with("_mma_gen")));
    assert!(sd
        .kernels
        .iter()
        .zip(&sf.kernels)
        .all(|(d, f)| *d == f.replacen("direct_fwd_", "direct_dgrad_", 1)));
    // The stride-phase backward-data space on tensor cores: one tile or persistent, never
    // depth streaming (the phase kernel refuses stages 3) nor merged groups.
    let ph = build_instances(
        &repo_file("configs/traits/bwd_data_direct_mma_phases_bf16.json"),
        Arch::Sm90,
        None,
    )
    .unwrap();
    assert!(ph.kernels.len() >= 5000, "{}", ph.kernels.len());
    assert!(ph
        .kernels
        .iter()
        .all(|k| k.starts_with("direct_dgrad_bf16_")
            && k.contains("_gm1_")
            && !k.contains("_s3_")
            && k.ends_with("_mma_gen")));
}

/// The depthwise streaming wgrad space (direct::stream): only tile_m = tile_k passes the gate,
/// 8-channel (16-byte) lanes included.
#[test]
fn shipped_stream_wgrad_config_expands() {
    let st = build_instances(
        &repo_file("configs/traits/bwd_weight_stream_bf16.json"),
        Arch::Sm90,
        None,
    )
    .unwrap();
    assert_eq!(
        st.kernels.len(),
        5 * 9 * 2 * 3 * 3 * 3,
        "{}",
        st.kernels.len()
    );
    assert!(st.kernels.iter().any(|k| k.contains("_v8x3_")));
    assert!(st.kernels.iter().all(|k| {
        let t = k.split('_').nth(3).unwrap_or("");
        let dims: Vec<&str> = t.trim_start_matches('t').split('x').collect();
        k.starts_with("direct_wgrad_bf16_") && k.contains("_s1_") && dims.first() == dims.last()
    }));
}

/// The streaming wgrad space at fixed splits, each as the two-launch split (d) and the cluster
/// split (c): 4 tiles (tile_m = tile_k) x 3 widths x 3 tap-row groups x 4 splits x 2 modes, a
/// cluster name for every deterministic one; the gate refuses c past 16 slabs, on the slab
/// kernel, and on igemm outside backward weight or past 8 slices.
#[test]
fn shipped_stream_cluster_wgrad_config_expands() {
    let st = build_instances(
        &repo_file("configs/traits/bwd_weight_stream_cluster_bf16.json"),
        Arch::Sm90,
        None,
    )
    .unwrap();
    assert_eq!(st.kernels.len(), 4 * 3 * 3 * 4 * 2, "{}", st.kernels.len());
    let clusters: Vec<&String> = st
        .kernels
        .iter()
        .filter(|k| k.contains("c_simt_"))
        .collect();
    assert_eq!(clusters.len(), st.kernels.len() / 2);
    for c in &clusters {
        let twin = c.replace("c_simt_", "d_simt_");
        assert!(st.kernels.contains(&twin), "{c} without its d twin");
    }
    for refused in [
        "direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x1_gm1_sk32c_simt_gen",
        "direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x1_gm1_sk0c_simt_gen",
        "igemm_wgrad_bf16_t32x64x32_w2x2_s4_v8x8_gm1_sk16c_mma_gen",
        "igemm_fwd_bf16_t128x128x32_w2x2_s4_v8x8_gm1_sk4c_mma_gen",
        "direct_wgrad_bf16_t128x64x16_w8x1_s2_v8x9_gm1_sk4c_simt_gen",
    ] {
        let cfg: gconv_kernels::KernelConfig = refused.parse().unwrap();
        // refused for its split, not for something else
        let why = gconv_kernels::validate(&cfg, Arch::Sm90)
            .expect_err(refused)
            .to_string();
        assert!(why.contains("split"), "{refused}: {why}");
    }
}

/// The banded tensor-core depthwise space of forward and backward data (direct::fwd_banded):
/// every kept config has `vec_a = 1`, TH a multiple of 8 and TW a multiple of 16; the same 90
/// tiles in both directions, each plain and pipelined (`vec_b` 1 and 2).
#[test]
fn shipped_fwd_banded_configs_expand() {
    for (file, prefix) in [
        (
            "configs/traits/forward_banded_bf16.json",
            "direct_fwd_bf16_",
        ),
        (
            "configs/traits/bwd_data_banded_bf16.json",
            "direct_dgrad_bf16_",
        ),
    ] {
        let r = build_instances(&repo_file(file), Arch::Sm90, None).unwrap();
        assert_eq!(r.kernels.len(), 180, "{file}");
        assert!(r.kernels.iter().all(|k| {
            let t = k.split('_').nth(3).unwrap_or("");
            let dims: Vec<u32> = t
                .trim_start_matches('t')
                .split('x')
                .filter_map(|d| d.parse().ok())
                .collect();
            let (m, w) = (dims[0], dims[2]);
            k.starts_with(prefix)
                && (k.ends_with("_s1_v1x1_gm1_sk1d_mma_gen")
                    || k.ends_with("_s1_v1x2_gm1_sk1d_mma_gen"))
                && w % 16 == 0
                && m % w == 0
                && (m / w) % 8 == 0
        }));
    }
}

fn two_devices() -> Vec<DeviceSlot> {
    (0..2u32)
        .map(|i| DeviceSlot {
            tag: Some(DeviceTag {
                name: "test device".into(),
                index: i,
            }),
            worker_args: vec!["--device".into(), i.to_string()],
        })
        .collect()
}

/// (device, job id, start µs, end µs) lines of `GCONV_TEST_WORKER_JOBS`.
fn job_log(path: &Path) -> Vec<(String, u64, u128, u128)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let v: Vec<&str> = l.split(' ').collect();
            assert_eq!(v.len(), 4, "job log line {l:?}");
            (
                v[0].to_string(),
                v[1].parse()
                    .unwrap_or_else(|e| panic!("job log line {l:?}: {e}")),
                v[2].parse()
                    .unwrap_or_else(|e| panic!("job log line {l:?}: {e}")),
                v[3].parse()
                    .unwrap_or_else(|e| panic!("job log line {l:?}: {e}")),
            )
        })
        .collect()
}

/// Two device pools: every pair has one row, rows name the device they ran on (refused rows
/// none), a crash on one device does not stop either pool, both devices work at the same time,
/// and no two jobs ever overlap on one device.
#[test]
fn device_pools_share_the_queue_and_never_share_a_device() {
    let dir = tempfile::tempdir().unwrap();
    let jobs_log = dir.path().join("jobs.log");
    let mut o = opts(dir.path(), "two.csv");
    o.devices = two_devices();
    o.batch_size = 1;
    o.worker_env = vec![(
        "GCONV_TEST_WORKER_JOBS".into(),
        jobs_log.display().to_string(),
    )];
    let kernels = names(&[
        "fake_sleep_150",
        "fake_sleep_151",
        "fake_sleep_152",
        "fake_crash",
        "fake_sleep_153",
        "fake_rejected",
    ]);
    let ps = problems();
    let report = run_sweep(&kernels, &ps, &o).unwrap();
    let rows = read_rows(&o.output).unwrap();
    let pairs = by_pair(&rows);
    assert_eq!(pairs.len(), kernels.len() * ps.len(), "one row per pair");
    assert_eq!(report.devices.len(), 2);
    assert_eq!(report.split.devices, 2);
    let mut on = BTreeMap::new();
    for r in &rows {
        match r.kernel.as_str() {
            "fake_rejected" => assert_eq!(r.device, None, "never ran: {r:?}"),
            "fake_crash" => {
                assert_eq!(r.status, Status::Crashed);
                assert!(r.device.is_some(), "a crash names its device: {r:?}");
            }
            _ => {
                assert_eq!(r.status, Status::Ok, "{r:?}");
                let d = r.device.clone().expect("ran on a device");
                *on.entry(d.index).or_insert(0) += 1;
            }
        }
    }
    assert_eq!(on.len(), 2, "both devices ran jobs: {on:?}");
    // Per device, the worker's jobs never overlap; across devices, some do.
    let log = job_log(&jobs_log);
    assert_eq!(
        log.len(),
        8,
        "8 sleeps executed (a crash aborts before it logs): {log:?}"
    );
    let mut overlap_across = false;
    for (i, a) in log.iter().enumerate() {
        for b in &log[i + 1..] {
            let overlaps = a.2 < b.3 && b.2 < a.3;
            if a.0 == b.0 {
                assert!(!overlaps, "two jobs at once on device {}: {a:?} {b:?}", a.0);
            } else {
                overlap_across |= overlaps;
            }
        }
    }
    assert!(
        overlap_across,
        "the two pools never ran at the same time: {log:?}"
    );
    // The device pools' jobs are the CSV's rows: device by device.
    for (dev, id, ..) in &log {
        assert!(dev == "0" || dev == "1", "worker got --device: {dev} {id}");
    }
}

/// Shards of one problem set, swept one after the other (one of them interrupted and resumed,
/// one on two device pools), merge to the rows of one unsharded sweep; overlapping shards are
/// refused by the merge.
#[test]
fn shards_resume_and_merge_to_the_unsharded_result() {
    let dir = tempfile::tempdir().unwrap();
    let ps: Vec<Problem> = [
        "fwd_f32_n1_g2_c4_k4_i6x6_f3x3_s1x1_p1x1_d1x1",
        "fwd_bf16_n2_g4_c8_k8_i5_f3_s1_p1_d1",
        "fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1",
        "fwd_f16_n1_g2_c2_k2_i7x5_f3x3_s2x2_p1x1_d1x1",
        "fwd_f32_n2_g3_c3_k6_i4x4x4_f1x1x1_s1x1x1_p0x0x0_d1x1x1",
        "fwd_bf16_n1_g8_c8_k8_i9_f5_s1_p2_d1",
    ]
    .iter()
    .map(|k| k.parse().unwrap())
    .collect();
    let kernels = names(&["fake_ok_1", "fake_ok_2", "fake_incorrect", "fake_rejected"]);
    let mut o = opts(dir.path(), "all.csv");
    o.baselines = vec!["fake".into()];
    run_sweep(&kernels, &ps, &o).unwrap();
    let whole = read_rows(&o.output).unwrap();

    let base = dir.path().join("s.csv");
    let mut outs = Vec::new();
    let mut owned = 0;
    for i in 0..3 {
        let shard = Shard::new(i, 3).unwrap();
        let mine = shard.select(ps.clone());
        owned += mine.len();
        let mut so = o.clone();
        so.output = shard.output_path(&base);
        if i == 2 {
            so.devices = two_devices();
        }
        if mine.is_empty() {
            std::fs::write(&so.output, format!("{}\n", gconv_tune::COLUMNS.join(","))).unwrap();
        } else {
            run_sweep(&kernels, &mine, &so).unwrap();
        }
        if i == 1 && !mine.is_empty() {
            // Interrupted mid-row: the merge refuses it until --resume finishes it.
            let text = std::fs::read_to_string(&so.output).unwrap();
            let mut lines: Vec<&str> = text.lines().collect();
            let last = lines.pop().unwrap().to_string();
            let cut = format!("{}\n{}", lines.join("\n"), &last[..last.len() / 2]);
            std::fs::write(&so.output, cut).unwrap();
            outs.push(so.output.clone());
            let e = merge_csvs(&outs, &dir.path().join("early.csv"), false).unwrap_err();
            assert!(e.to_string().contains("--resume"), "{e}");
            outs.pop();
            so.resume = true;
            let r = run_sweep(&kernels, &mine, &so).unwrap();
            assert_eq!(r.rows.len(), 1, "only the cut row runs again");
        }
        outs.push(so.output.clone());
    }
    assert_eq!(owned, ps.len(), "the shards cover the set");
    let merged = dir.path().join("merged.csv");
    let report = merge_csvs(&outs, &merged, false).unwrap();
    assert_eq!(report.rows, whole.len());
    assert_eq!(report.problems, ps.len());
    let rows = read_rows(&merged).unwrap();
    let c = gconv_tune::compare::compare_rows(&whole, &rows, false, 0.0);
    assert!(c.agrees(), "{c}");
    assert_eq!(by_pair(&rows), by_pair(&whole));
    // A shard swept twice into two files overlaps the first: refused.
    let again = dir.path().join("again.csv");
    let first = Shard::new(0, 3).unwrap().select(ps.clone());
    if !first.is_empty() {
        let mut so = o.clone();
        so.output = again.clone();
        run_sweep(&kernels, &first, &so).unwrap();
        let mut with_dup = outs.clone();
        with_dup.push(again);
        let e = merge_csvs(&with_dup, &dir.path().join("dup.csv"), false).unwrap_err();
        assert!(e.to_string().contains("must not overlap"), "{e}");
    }
}
