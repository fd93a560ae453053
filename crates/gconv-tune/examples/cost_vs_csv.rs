//! Offline check of the families' cost models against a bench or sweep CSV: for every `ok` row
//! of a gconv kernel, the measured latency next to the cost estimate of the kernel's admitted
//! plan (the model `auto` minimises), per problem in measured order, with the rank the model
//! gives the fastest member and the Spearman correlation of model and measurement. A model
//! change can be scored on a past run's rows without the GPU.
//!
//! `cargo run --release -p gconv-tune --example cost_vs_csv -- results/h200/s7/final/zoo_wgrad.csv.gz [KERNEL_PREFIX]`

use std::collections::BTreeMap;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: cost_vs_csv BENCH.csv [KERNEL_PREFIX]");
        return ExitCode::from(2);
    };
    let prefix = args.next().unwrap_or_default();
    match run(&path, &prefix) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cost_vs_csv: {path}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Ranks of `v` (0 = smallest).
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    for (rank, i) in idx.into_iter().enumerate() {
        r[i] = rank as f64;
    }
    r
}

fn run(path: &str, prefix: &str) -> Result<(), Box<dyn std::error::Error>> {
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
    let mut rows: BTreeMap<String, Vec<(f64, f64, String)>> = BTreeMap::new();
    for r in rdr.records() {
        let r = r?;
        let kernel = &r[ck];
        if &r[cs] != "ok" || !kernel.starts_with(prefix) {
            continue;
        }
        let Ok(cfg) = kernel.parse::<gconv_kernels::KernelConfig>() else {
            continue; // baselines, reference kernels
        };
        let problem: gconv_problem::Problem = r[cp].parse()?;
        let Ok(a) = gconv_kernels::admit(&cfg, &problem, &gconv_kernels::Target::H200) else {
            continue;
        };
        let ms: f64 = r[cl].parse()?;
        rows.entry(r[cp].to_string()).or_default().push((
            ms,
            a.cost_estimate() * 1e3,
            kernel.to_string(),
        ));
    }
    let (mut rho_sum, mut n) = (0.0, 0u32);
    for (p, mut v) in rows {
        if v.len() < 2 {
            continue;
        }
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        let meas: Vec<f64> = v.iter().map(|x| x.0).collect();
        let model: Vec<f64> = v.iter().map(|x| x.1).collect();
        let (rm, rc) = (ranks(&meas), ranks(&model));
        let k = v.len() as f64;
        let d2: f64 = rm.iter().zip(&rc).map(|(a, b)| (a - b) * (a - b)).sum();
        let rho = 1.0 - 6.0 * d2 / (k * (k * k - 1.0));
        rho_sum += rho;
        n += 1;
        let pick = model
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0, |(i, _)| i);
        println!(
            "{p}  members {}  spearman {rho:.2}  model's pick runs {:.2}x the best ({})",
            v.len(),
            meas[pick] / meas[0],
            v[pick].2
        );
        for (ms, est, kernel) in &v {
            println!("    {ms:.4} ms  model {est:.4} ms  {kernel}");
        }
    }
    if n > 0 {
        println!("mean spearman {:.3} over {n} problems", rho_sum / n as f64);
    }
    Ok(())
}
