//! Offline check of `auto` against a bench or sweep CSV: for every problem of the CSV, the kernel
//! `auto` picks with this build's rule, its measured time in the CSV (when the CSV timed it),
//! the best measured gconv kernel and the best baseline, and the geomean speedups over the
//! baseline of `auto` and of the best kernel. Because `gconv bench` times every pool member,
//! a rule change can be scored on a past run's rows without the GPU.
//!
//! `cargo run --release -p gconv-tune --example auto_vs_csv -- results/h200/s6/final/zoo_dgrad.csv.gz`

use std::collections::HashMap;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: auto_vs_csv BENCH.csv");
        return ExitCode::from(2);
    };
    match run(&path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("auto_vs_csv: {path}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let mut rdr = csv::Reader::from_path(path)?;
    let headers = rdr.headers()?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("no column {name:?}"))
    };
    let (ck, cp, cs, cl) = (
        col("kernel")?,
        col("problem")?,
        col("status")?,
        col("latency_ms")?,
    );
    let mut timed: HashMap<(String, String), f64> = HashMap::new();
    let mut best: HashMap<String, (f64, String)> = HashMap::new();
    let mut base: HashMap<String, f64> = HashMap::new();
    for r in rdr.records() {
        let r = r?;
        if &r[cs] != "ok" {
            continue;
        }
        let (k, p) = (r[ck].to_string(), r[cp].to_string());
        let ms: f64 = r[cl].parse()?;
        if k.starts_with("cudnn") || k.starts_with("reference") {
            let e = base.entry(p).or_insert(f64::MAX);
            *e = e.min(ms);
            continue;
        }
        let e = best.entry(p.clone()).or_insert((f64::MAX, String::new()));
        if ms < e.0 {
            *e = (ms, k.clone());
        }
        timed.insert((k, p), ms);
    }
    let mut keys: Vec<_> = best.keys().cloned().collect();
    keys.sort();
    let (mut log_auto, mut log_best, mut n) = (0.0, 0.0, 0u32);
    for p in keys {
        let prob: gconv_problem::Problem = p.parse()?;
        let pick = gconv_kernels::select::auto_select(&prob, &gconv_kernels::Target::H200)
            .map(|a| a.config().to_string())
            .unwrap_or_default();
        let auto_ms = timed.get(&(pick.clone(), p.clone())).copied();
        let (best_ms, best_kernel) = &best[&p];
        let base_ms = base.get(&p).copied();
        if let (Some(a), Some(b)) = (auto_ms, base_ms) {
            log_auto += (b / a).ln();
            log_best += (b / best_ms).ln();
            n += 1;
        }
        println!(
            "{p:<62} auto {:>8} best {best_ms:.4} base {:>8} auto/best {:>5}  {pick}  (best {best_kernel})",
            auto_ms.map_or("-".into(), |v| format!("{v:.4}")),
            base_ms.map_or("-".into(), |v| format!("{v:.4}")),
            auto_ms.map_or("-".into(), |v| format!("{:.2}", best_ms / v)),
        );
    }
    if n > 0 {
        let n = f64::from(n);
        println!(
            "geomean vs baseline: auto {:.3}x best {:.3}x over {n} problems",
            (log_auto / n).exp(),
            (log_best / n).exp()
        );
    }
    Ok(())
}
