//! `gconv tune`: measure the model's first candidates of every problem of a set on the GPU and
//! keep the winner of each in the decision cache, which `gconv run --kernel auto` consults
//! before the model (`gconv_learn::decisions`). `gconv decide` keeps the winners of rows
//! already measured (a bench or sweep CSV of one device) without a GPU.
//!
//! Per problem the candidates are the shipped model's `--top` first deterministic pool members
//! (where the model does not cover the problem, the `--top` cheapest by the hand cost model).
//! They are swept like `gconv sweep` does (verified, timed, one CSV row each, `--vs cudnn` for
//! the vendor's figure), one problem after the other into one CSV with `--resume` semantics,
//! so an interrupted tune continues where it stopped. The fastest verified candidate of each
//! problem becomes its decision, with the vendor's best engine beside it, saved into the cache
//! as soon as the problem is measured (a tune stopped part-way keeps the problems it finished).
//! Where the cache already holds a valid decision whose kernel is not among the candidates and
//! still runs the problem, that kernel (the incumbent) is measured again beside them, so a
//! tune replaces a decision only with something measured faster in the same run.

use crate::sweep_args::{
    check_baseline, check_output, drop_cut_row, resolve_backend, shard_problems, sweep_options,
    RunnerArgs,
};
use anyhow::{bail, Context, Result};
use clap::Args;
use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::{admit, Arch, Target};
use gconv_learn::decisions::{decide_from_rows, Decision, DecisionCache};
use gconv_learn::select::{covers, eligible, rank, shipped};
use gconv_problem::Problem;
use gconv_tune::{read_rows, resolve_problems, run_sweep, SweepRow};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gconv tune`.
#[derive(Args, Debug)]
pub struct TuneArgs {
    /// Problem set: a registry key, a problem key or a problems file.
    #[arg(long)]
    pub problems: String,
    /// Candidates measured per problem.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub top: u32,
    /// The decision cache to update (default: GCONV_DECISIONS, else decisions.json in the
    /// compile cache's directory).
    #[arg(long)]
    pub decisions: Option<PathBuf>,
    #[command(flatten)]
    pub run: RunnerArgs,
}

/// Arguments of `gconv decide`.
#[derive(Args, Debug)]
pub struct DecideArgs {
    /// Problem set: a registry key, a problem key or a problems file.
    #[arg(long)]
    pub problems: String,
    /// A bench or sweep CSV (`.csv` or `.csv.gz`) measured on one device: its verified rows of
    /// deterministic pool members are the measurements, its baseline rows (`--vs cudnn`) the
    /// vendor's.
    #[arg(long, value_name = "CSV")]
    pub from: PathBuf,
    /// Fastest members kept per problem in the entry's measured list.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub top: u32,
    /// The decision cache to update (default: GCONV_DECISIONS, else decisions.json in the
    /// compile cache's directory).
    #[arg(long)]
    pub decisions: Option<PathBuf>,
}

/// The decision cache `auto` reads (`gconv_runner::gpu::decisions_path`).
pub fn decisions_path() -> Result<PathBuf> {
    Ok(gconv_runner::gpu::decisions_path()?)
}

/// The deterministic default-pool members (every family) that the gate admits on `p`, as
/// `tune` runs them (`Admitted::config`: split degrees resolved).
fn eligible_admitted(p: &Problem, target: &Target) -> Vec<gconv_kernels::Admitted> {
    catalogue::pool(p.direction, p.dtype, Families::All)
        .iter()
        .filter(|c| eligible(c))
        .filter_map(|c| admit(c, p, target).ok())
        .collect()
}

/// The candidates tune measures on `p`: the model's first `top`, or the hand cost model's
/// cheapest `top` where the model does not cover the problem.
fn candidates(p: &Problem, target: &Target, top: usize) -> Result<Vec<String>> {
    let model = shipped().map_err(|e| anyhow::anyhow!("the shipped model cannot be used: {e}"))?;
    if covers(model, p, target).is_ok() {
        return Ok(rank(model, p, target, Families::All)
            .ranked
            .into_iter()
            .take(top)
            .map(|r| r.admitted.config().to_string())
            .collect());
    }
    let mut by_cost: Vec<(f64, String)> = eligible_admitted(p, target)
        .into_iter()
        .map(|a| (a.cost_estimate(), a.config().to_string()))
        .collect();
    by_cost.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(by_cost.into_iter().take(top).map(|(_, n)| n).collect())
}

/// `names` and, after them, the incumbent: the kernel of `cache`'s valid decision for `p` on
/// `device` where it is not among `names` and the gate still admits it on `p` (else `names`
/// alone). Answers whether the incumbent was added.
fn with_incumbent(
    mut names: Vec<String>,
    cache: &DecisionCache,
    p: &Problem,
    device: &str,
    target: &Target,
) -> (Vec<String>, bool) {
    let incumbent = cache
        .lookup(p, device)
        .map(|d| d.kernel.clone())
        .filter(|k| !names.contains(k))
        .filter(|k| {
            k.parse::<gconv_kernels::KernelConfig>()
                .is_ok_and(|c| admit(&c, p, target).is_ok())
        });
    match incumbent {
        Some(k) => {
            names.push(k);
            (names, true)
        }
        None => (names, false),
    }
}

/// Runs `gconv tune`.
pub fn tune(mut a: TuneArgs) -> Result<ExitCode> {
    let problems = shard_problems(&mut a.run, resolve_problems(&a.problems)?)?;
    if problems.is_empty() {
        bail!("no problem to tune in {:?}", a.problems);
    }
    let backend = resolve_backend(a.run.backend)?;
    if backend != "cuda" {
        bail!("gconv tune measures GPU kernels; it needs the CUDA backend");
    }
    check_baseline(a.run.vs.as_deref(), backend)?;
    let device = gconv_cuda::runtime::probe()?.name;
    let path = match &a.decisions {
        Some(p) => p.clone(),
        None => decisions_path()?,
    };
    gconv_tune::outfile::check_output_file(&path)?;
    check_output(&a.run)?;
    let mut cache = DecisionCache::load(&path)?;
    let target = Target::H200;
    let mut o = sweep_options(&a.run, backend)?;
    o.arch = Arch::Sm90a;
    drop_cut_row(&o)?;
    let mut out = crate::output::stdout();
    // Per tuned problem: its candidates and its decision (none when no candidate verified).
    let mut decided: Vec<(Problem, Vec<String>, Option<Decision>)> = Vec::new();
    // Problems whose cached decision was measured again beside the model's candidates.
    let mut incumbents = 0usize;
    for (i, p) in problems.iter().enumerate() {
        let (names, again) = with_incumbent(
            candidates(p, &target, a.top as usize)?,
            &cache,
            p,
            &device,
            &target,
        );
        incumbents += usize::from(again);
        if names.is_empty() {
            writeln!(
                out,
                "[{}/{}] {p}: no eligible pool member runs it; skipped",
                i + 1,
                problems.len()
            )?;
            continue;
        }
        // One CSV for the whole tune: every problem after the first appends (and with
        // --resume, so does the first), skipping the pairs the CSV already has.
        o.resume = a.run.resume || i > 0;
        run_sweep(&names, std::slice::from_ref(p), &o).with_context(|| format!("tuning {p}"))?;
        // The problem's decision is saved at once, so that a tune stopped later (a time limit,
        // a lost machine) keeps every problem it finished.
        let d = decide_from_rows(&read_rows(&o.output)?, p, &names, &device);
        let saved = d.is_some();
        if let Some(d) = &d {
            cache.insert(d.clone());
            cache.save()?;
        }
        writeln!(
            out,
            "[{}/{}] {p}: {} candidates measured{}{}",
            i + 1,
            problems.len(),
            names.len(),
            if again {
                " (the cached decision among them)"
            } else {
                ""
            },
            if saved { ", decision saved" } else { "" }
        )?;
        decided.push((*p, names, d));
    }
    let (mut n, mut firsts, mut gain_log) = (0usize, 0usize, 0.0f64);
    let mut made: Vec<&Decision> = Vec::new();
    for (p, names, d) in &decided {
        let Some(d) = d else {
            writeln!(out, "{p}: no candidate ran and verified; no decision")?;
            continue;
        };
        n += 1;
        made.push(d);
        if let Some((_, first)) = d.measured.first().filter(|m| m.0 == names[0]) {
            firsts += 1;
            gain_log += (first / d.kernel_ms).ln();
        }
    }
    writeln!(
        out,
        "decisions: {n} problems into {} ({} entries, {} stale; {incumbents} cached decisions measured again beside the candidates); the tuned kernel over the model's first choice: {:.3}x faster in geometric mean ({firsts} problems)",
        cache.path().display(),
        cache.len(),
        cache.stale(),
        (gain_log / firsts.max(1) as f64).exp()
    )?;
    if let Some(line) = vendor_line(&made, a.run.vs.as_deref().unwrap_or("the baseline")) {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "rows in {}", o.output.display())?;
    Ok(ExitCode::SUCCESS)
}

/// The decisions against the vendor where it was measured: gconv's kernels alone and the
/// dispatcher (the faster of the two) in geometric mean, and on how many the vendor is faster;
/// `None` where no decision has a vendor time.
fn vendor_line(made: &[&Decision], vs: &str) -> Option<String> {
    let timed: Vec<(f64, f64)> = made
        .iter()
        .filter_map(|d| d.vendor.as_ref().map(|(_, v)| (d.kernel_ms, *v)))
        .collect();
    if timed.is_empty() {
        return None;
    }
    let geo = |f: &dyn Fn(f64, f64) -> f64| {
        (timed.iter().map(|&(k, v)| f(k, v).ln()).sum::<f64>() / timed.len() as f64).exp()
    };
    Some(format!(
        "against {vs} on {} problems: gconv kernels alone {:.3}x, the dispatcher (the faster of the two) {:.3}x; the vendor is faster on {} (`gconv run --kernel auto` dispatches those to it)",
        timed.len(),
        geo(&|k, v| v / k),
        geo(&|k, v| v / k.min(v)),
        timed.iter().filter(|&&(k, v)| v < k).count()
    ))
}

/// The `top` fastest verified `ok` rows on `p` of deterministic pool members that the gate
/// admits (named as `tune` runs them), fastest first; with how many such members the rows
/// measured and how many the pool has.
fn measured_candidates(
    rows: &[SweepRow],
    p: &Problem,
    target: &Target,
    top: usize,
) -> (Vec<String>, usize, usize) {
    let pool: HashSet<String> = eligible_admitted(p, target)
        .into_iter()
        .map(|a| a.config().to_string())
        .collect();
    let mut best: BTreeMap<&str, f64> = BTreeMap::new();
    for r in rows {
        let verified = r.max_abs_err.is_some() && r.max_rel_err.is_some();
        if r.problem != *p || r.is_baseline() || !verified || !pool.contains(&r.kernel) {
            continue;
        }
        if let Some(t) = r.ok_latency_ms() {
            let e = best.entry(r.kernel.as_str()).or_insert(t);
            *e = e.min(t);
        }
    }
    let mut ranked: Vec<(&str, f64)> = best.into_iter().collect();
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(b.0)));
    let measured = ranked.len();
    let names = ranked
        .into_iter()
        .take(top)
        .map(|(k, _)| k.to_string())
        .collect();
    (names, measured, pool.len())
}

/// The one device whose name the kernel rows of `rows` carry (decisions are kept per device).
fn rows_device(rows: &[SweepRow], origin: &std::path::Path) -> Result<String> {
    let names: BTreeSet<&str> = rows
        .iter()
        .filter(|r| !r.is_baseline())
        .filter_map(|r| r.device.as_ref().map(|d| d.name.as_str()))
        .collect();
    match names.into_iter().collect::<Vec<_>>().as_slice() {
        [] => bail!(
            "{}: no kernel row names the device it ran on; decisions are kept per device",
            origin.display()
        ),
        ["cpu"] => bail!(
            "{}: measured on the CPU backend; decisions are for a GPU",
            origin.display()
        ),
        [one] => Ok(one.to_string()),
        many => bail!(
            "{}: rows of {} devices ({}); decide from one device's rows",
            origin.display(),
            many.len(),
            many.join(", ")
        ),
    }
}

/// Runs `gconv decide`: per problem of the set, the fastest verified row of a deterministic
/// pool member in `--from` becomes its decision (with the `--top` fastest as its measured
/// list and the fastest verified baseline row as the vendor), saved into the decision cache.
/// Nothing is measured: the rows must come from the device the decisions are for.
pub fn decide(a: DecideArgs) -> Result<ExitCode> {
    let path = match &a.decisions {
        Some(p) => p.clone(),
        None => decisions_path()?,
    };
    // The decision file is replaced by a rename: never a device, FIFO or directory.
    gconv_tune::outfile::check_output_file(&path)?;
    let problems = resolve_problems(&a.problems)?;
    let rows = read_rows(&a.from)?;
    let repeated = gconv_tune::csv::repeated_rows(&rows);
    if repeated > 0 {
        crate::output::note!(
            "warning: {}: {repeated} rows repeat an earlier row's kernel, problem and device (CSVs concatenated by hand?); the fastest of each is kept",
            a.from.display()
        );
    }
    let device = rows_device(&rows, &a.from)?;
    let mut cache = DecisionCache::load(&path)?;
    let target = Target::H200;
    let mut out = crate::output::stdout();
    let mut made = Vec::new();
    for p in &problems {
        let (names, measured, pool) = measured_candidates(&rows, p, &target, a.top as usize);
        match decide_from_rows(&rows, p, &names, &device) {
            Some(d) => {
                writeln!(
                    out,
                    "{p}: {} {:.4} ms, the fastest of {measured} of the pool's {pool} admitted members{}",
                    d.kernel,
                    d.kernel_ms,
                    d.vendor
                        .as_ref()
                        .map(|(e, v)| format!("; {e} {v:.4} ms"))
                        .unwrap_or_default()
                )?;
                made.push(d);
            }
            None => writeln!(
                out,
                "{p}: no verified row of a deterministic pool member in {}; no decision",
                a.from.display()
            )?,
        }
    }
    for d in &made {
        cache.insert(d.clone());
    }
    cache.save()?;
    writeln!(
        out,
        "decisions: {} of {} problems into {} ({} entries, {} stale), measured on {device}",
        made.len(),
        problems.len(),
        cache.path().display(),
        cache.len(),
        cache.stale()
    )?;
    if let Some(line) = vendor_line(&made.iter().collect::<Vec<_>>(), "the baseline rows") {
        writeln!(out, "{line}")?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache of one decision for `problem` on `device`, kernel `kernel`, valid for this build.
    fn cache_of(problem: &Problem, device: &str, kernel: &str) -> DecisionCache {
        let d = Decision {
            problem: problem.to_string(),
            device: device.to_string(),
            key: gconv_learn::decisions::CacheKey::current(problem),
            kernel: kernel.to_string(),
            kernel_ms: 0.1,
            measured: vec![(kernel.to_string(), 0.1)],
            vendor: None,
        };
        let body = serde_json::json!({"format": gconv_learn::decisions::FORMAT, "decisions": [d]});
        DecisionCache::from_bytes(body.to_string().as_bytes(), "test").unwrap()
    }

    /// `gconv decide` keeps the fastest verified row of a deterministic pool member (not an
    /// unverified or failed faster one, nor a kernel outside the pool), the fastest verified
    /// baseline row as the vendor, and refuses rows of two devices or of none.
    #[test]
    fn decide_keeps_the_fastest_verified_pool_member_of_one_device() {
        let dir = tempfile::tempdir().unwrap();
        let key = "dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1";
        let p: Problem = key.parse().unwrap();
        let t = Target::H200;
        // Two admitted deterministic members, by the names tune would run.
        let mut pool: Vec<String> = eligible_admitted(&p, &t)
            .into_iter()
            .map(|a| a.config().to_string())
            .collect();
        pool.truncate(2);
        let (fast, slow) = (pool[0].clone(), pool[1].clone());
        let header = "kernel,problem,direction,dtype,N,G,C,K,Di,Hi,Wi,Z,Y,X,stride_d,stride_h,stride_w,pad_d,pad_h,pad_w,dil_d,dil_h,dil_w,status,latency_ms,tflops,gbps,roofline_frac,max_abs_err,max_rel_err,compile_ms,regs,spills,rounds,iters_per_round,stopped_early,device,device_index";
        let geo = "dgrad,bf16,32,2,256,256,1,28,28,1,3,3,1,1,1,0,1,1,1,1,1";
        let row = |k: &str, status: &str, ms: &str, err: &str, dev: &str| {
            format!("{k},{key},{geo},{status},{ms},1,1,0.5,{err},{err},1,64,0,10,10,false,{dev},0")
        };
        let dev = "NVIDIA H200";
        let body = [
            header.to_string(),
            row(&slow, "ok", "0.030", "0.25", dev),
            row(&fast, "ok", "0.020", "0.25", dev),
            // Faster but failed verification, and faster but not a pool member.
            row(&slow, "incorrect", "0.010", "", dev),
            row(
                "direct_dgrad_bf16_t8x8x8_w1x1_s1_v1x1_gm1_sk1d_simt_gen",
                "ok",
                "0.005",
                "0.25",
                dev,
            ),
            row("cudnn:eng1", "ok", "0.025", "0.25", dev),
        ]
        .join("\n");
        let csv = dir.path().join("bench.csv");
        std::fs::write(&csv, body + "\n").unwrap();
        let decisions = dir.path().join("decisions.json");
        let args = |from: &std::path::Path| DecideArgs {
            problems: key.to_string(),
            from: from.to_path_buf(),
            top: 8,
            decisions: Some(decisions.clone()),
        };
        decide(args(&csv)).unwrap();
        let cache = DecisionCache::load(&decisions).unwrap();
        let d = cache.lookup(&p, dev).expect("a decision for the H200");
        assert_eq!(d.kernel, fast);
        assert_eq!(d.kernel_ms, 0.020);
        assert_eq!(d.measured.len(), 2);
        assert_eq!(d.vendor, Some(("cudnn:eng1".to_string(), 0.025)));
        // Rows of two devices: refused, naming both.
        let mixed = dir.path().join("mixed.csv");
        let two = [
            header.to_string(),
            row(&fast, "ok", "0.020", "0.25", dev),
            row(&slow, "ok", "0.030", "0.25", "NVIDIA H100 80GB HBM3"),
        ]
        .join("\n");
        std::fs::write(&mixed, two + "\n").unwrap();
        let e = decide(args(&mixed)).unwrap_err().to_string();
        assert!(e.contains("2 devices") && e.contains(dev), "{e}");
    }

    /// The cached decision's kernel joins the candidates when it is not among them and still
    /// runs the problem; not when it is already a candidate, is cached for another device or
    /// does not run the problem.
    #[test]
    fn a_cached_decision_is_measured_again_beside_the_candidates() {
        let p: Problem = "dgrad_bf16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1"
            .parse()
            .unwrap();
        let t = Target::H200;
        let old = "direct_dgrad_bf16_t98x32x7_w7x1_s1_v2x7_gm1_sk1d_simt_gen";
        let new = "direct_dgrad_bf16_t196x32x14_w7x1_s1_v2x7_gm1_sk1d_simt_gen".to_string();
        let dev = "NVIDIA H100 80GB HBM3";
        let cache = cache_of(&p, dev, old);
        assert_eq!(
            with_incumbent(vec![new.clone()], &cache, &p, dev, &t),
            (vec![new.clone(), old.to_string()], true)
        );
        assert_eq!(
            with_incumbent(vec![new.clone(), old.to_string()], &cache, &p, dev, &t),
            (vec![new.clone(), old.to_string()], false)
        );
        assert_eq!(
            with_incumbent(vec![new.clone()], &cache, &p, "NVIDIA H200", &t),
            (vec![new.clone()], false)
        );
        // A forward kernel cached for a backward-data problem: the gate refuses it.
        let wrong = cache_of(
            &p,
            dev,
            "direct_fwd_bf16_t98x32x7_w7x1_s1_v2x7_gm1_sk1d_simt_gen",
        );
        assert_eq!(
            with_incumbent(vec![new.clone()], &wrong, &p, dev, &t),
            (vec![new], false)
        );
    }
}
