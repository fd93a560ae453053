//! `gconv tune`: measure the model's first candidates of every problem of a set on the GPU and
//! keep the winner of each in the decision cache, which `gconv run --kernel auto` consults
//! before the model (`gconv_learn::decisions`).
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
    check_baseline, drop_cut_row, resolve_backend, shard_problems, sweep_options, RunnerArgs,
};
use anyhow::{bail, Context, Result};
use clap::Args;
use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::{admit, Arch, Target};
use gconv_learn::decisions::{decide_from_rows, Decision, DecisionCache};
use gconv_learn::select::{covers, eligible, rank, shipped};
use gconv_problem::Problem;
use gconv_tune::{read_rows, resolve_problems, run_sweep};
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

/// The decision cache `auto` reads (`gconv_runner::gpu::decisions_path`).
pub fn decisions_path() -> Result<PathBuf> {
    Ok(gconv_runner::gpu::decisions_path()?)
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
    let mut by_cost: Vec<(f64, String)> = catalogue::pool(p.direction, p.dtype, Families::All)
        .iter()
        .filter(|c| eligible(c))
        .filter_map(|c| admit(c, p, target).ok())
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
    let mut cache = DecisionCache::load(&path)?;
    let target = Target::H200;
    let mut o = sweep_options(&a.run, backend)?;
    o.arch = Arch::Sm90a;
    drop_cut_row(&o)?;
    let mut out = std::io::stdout().lock();
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
    let (mut gconv_log, mut dispatch_log, mut vendor_wins, mut compared) =
        (0.0f64, 0.0f64, 0usize, 0usize);
    for (p, names, d) in &decided {
        let Some(d) = d else {
            writeln!(out, "{p}: no candidate ran and verified; no decision")?;
            continue;
        };
        let kernel_ms = d.kernel_ms;
        n += 1;
        if let Some((_, first)) = d.measured.first().filter(|m| m.0 == names[0]) {
            firsts += 1;
            gain_log += (first / kernel_ms).ln();
        }
        if let Some((_, v)) = &d.vendor {
            compared += 1;
            gconv_log += (v / kernel_ms).ln();
            dispatch_log += (v / kernel_ms.min(*v)).ln();
            vendor_wins += usize::from(*v < kernel_ms);
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
    if compared > 0 {
        writeln!(
            out,
            "against {} on {compared} problems: gconv kernels alone {:.3}x, the dispatcher (the faster of the two) {:.3}x; the vendor is faster on {vendor_wins} (`gconv run --kernel auto` dispatches those to it)",
            a.run.vs.as_deref().unwrap_or("the baseline"),
            (gconv_log / compared as f64).exp(),
            (dispatch_log / compared as f64).exp()
        )?;
    }
    writeln!(out, "rows in {}", o.output.display())?;
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
