//! Replays a finished bench or sweep CSV through the repeat policy of `gconv_problem::measure`
//! to estimate what timing costs on the device, without a device: every `ok` row's latency is
//! taken as the time of each of its runs, jobs run in the sweep's order (each problem's
//! baseline rows first, then its kernels in CSV order), and early stop compares with the best
//! verified latency so far as the worker would (kernels against every row, baselines against
//! their provider's). Prints the device time of timing (probe, warm-up, untimed lead replays,
//! rounds; the verification run counted separately) under the fixed method and under the given
//! policy, how many rows stop early, and whether any problem's best kernel would.
//!
//! ```text
//! cargo run --release -p gconv-tune --example timing_budget -- results/h200/s4/bench_zoo.csv.gz [FACTOR|off] [BUDGET_MS]
//! ```

use gconv_problem::measure::{run_session, Adaptive, EarlyStop, RepeatPolicy, Stop};
use gconv_tune::csv::read_rows;
use gconv_tune::SweepRow;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::process::ExitCode;

/// Device milliseconds of one measurement of a kernel whose every run takes `ms`: the
/// outcome's launches plus one untimed lead replay per batch of rounds (`gconv_cuda::timing`).
fn cost(policy: RepeatPolicy, best: Option<f64>, ms: f64) -> (f64, Option<Stop>, f64) {
    let o = run_session::<()>(policy, best, || Ok(ms), |_| Ok(()), |_| Ok(ms))
        .unwrap_or_else(|()| unreachable!());
    let batches = match o.stopped {
        Some(Stop::Probe { .. }) => 0,
        Some(Stop::Rounds { .. }) => 1,
        None if o.rounds > policy.first_rounds() => 2,
        None => 1,
    };
    let launches = o.launches() + batches * o.iters as u64;
    (launches as f64 * ms, o.stopped, o.latency_ms())
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next().map(PathBuf::from) else {
        eprintln!("usage: timing_budget CSV [FACTOR|off] [BUDGET_MS]");
        return ExitCode::from(2);
    };
    let early = match args.next().as_deref() {
        None => EarlyStop::with_factor(1.5),
        Some("off") => None,
        Some(k) => match k.parse::<f64>().ok().and_then(EarlyStop::with_factor) {
            Some(e) => Some(e),
            None => {
                eprintln!("bad early-stop factor {k:?}");
                return ExitCode::from(2);
            }
        },
    };
    let budget = args
        .next()
        .and_then(|b| b.parse::<f64>().ok())
        .unwrap_or(25.0);
    let rows = match read_rows(&path) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let fixed = RepeatPolicy::fixed(3, 10, 10);
    let policy = RepeatPolicy {
        adaptive: Some(Adaptive {
            budget_ms: budget,
            ..Adaptive::default()
        }),
        early_stop: early,
        ..fixed
    };
    // problem -> rows in sweep order (baselines first)
    let mut order: Vec<String> = Vec::new();
    let mut by: HashMap<String, Vec<&SweepRow>> = HashMap::new();
    for r in rows.iter().filter(|r| r.ok_latency_ms().is_some()) {
        let k = r.problem.to_string();
        if !by.contains_key(&k) {
            order.push(k.clone());
        }
        by.entry(k).or_default().push(r);
    }
    let (mut old_ms, mut new_ms, mut verify_ms) = (0.0, 0.0, 0.0);
    let (mut stopped_probe, mut stopped_rounds, mut n) = (0usize, 0usize, 0usize);
    let mut best_stopped = Vec::new();
    let mut per_kind: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for key in &order {
        let rs = &by[key];
        let pool_best = rs
            .iter()
            .filter(|r| !r.is_baseline())
            .filter_map(|r| r.ok_latency_ms())
            .fold(f64::INFINITY, f64::min);
        let (mut best_all, mut best_base): (Option<f64>, Option<f64>) = (None, None);
        let sorted = rs
            .iter()
            .filter(|r| r.is_baseline())
            .chain(rs.iter().filter(|r| !r.is_baseline()));
        for r in sorted {
            let ms = r.ok_latency_ms().unwrap_or(0.0);
            let best = if r.is_baseline() { best_base } else { best_all };
            let (c_old, _, _) = cost(fixed, None, ms);
            let (c_new, stop, lat) = cost(policy, best, ms);
            old_ms += c_old;
            new_ms += c_new;
            verify_ms += ms;
            n += 1;
            let kind = if r.is_baseline() {
                "baseline"
            } else {
                "kernels"
            };
            let e = per_kind.entry(kind).or_insert((0.0, 0.0));
            e.0 += c_old;
            e.1 += c_new;
            match stop {
                Some(Stop::Probe { .. }) => stopped_probe += 1,
                Some(Stop::Rounds { .. }) => stopped_rounds += 1,
                None => {}
            }
            if stop.is_some() && !r.is_baseline() && ms <= pool_best {
                best_stopped.push(format!("{} on {key}", r.kernel));
            }
            best_all = Some(best_all.map_or(lat, |b: f64| b.min(lat)));
            if r.is_baseline() {
                best_base = Some(best_base.map_or(lat, |b: f64| b.min(lat)));
            }
        }
    }
    println!(
        "{} ok rows over {} problems from {}",
        n,
        order.len(),
        path.display()
    );
    println!("policy: {}", policy.describe());
    println!(
        "device time of timing: fixed method {:.1} s, this policy {:.1} s ({:.1}x less)",
        old_ms / 1e3,
        new_ms / 1e3,
        old_ms / new_ms.max(1e-9)
    );
    for (k, (o, w)) in &per_kind {
        println!("  {k}: {:.1} s -> {:.1} s", o / 1e3, w / 1e3);
        // (session 4 already cut its cuDNN engines at 10x the best after one run)
    }
    println!(
        "verification runs (one per row, unchanged): {:.1} s",
        verify_ms / 1e3
    );
    println!(
        "stopped early: {stopped_probe} at the probe, {stopped_rounds} after the first rounds"
    );
    if best_stopped.is_empty() {
        println!("no problem's best kernel is stopped early");
    } else {
        println!("best kernels stopped early: {}", best_stopped.join("; "));
    }
    ExitCode::SUCCESS
}
