//! Audits of the gate's plans that need no GPU, for deciding what to measure next.
//!
//! - `persistence`: every double-buffered (`stages = 2`) CUDA-core direct member of the forward
//!   and backward-data pools on every model-zoo layer of those directions that it admits: its
//!   grid against the CTAs its launch bound keeps resident on the H200's 132 SMs (`MIN_CTAS` of
//!   the generated module: ptxas holds the registers to it) and against the plan's own
//!   occupancy estimate. A grid larger than that is launched in several waves, so that its CTAs
//!   do not walk several tiles with the next tile's halo in flight (what the second buffer is
//!   for); session 33 found 191 of 200 such pairs, which the one-wave grid of session 34 ended.
//! - `registers LOG`: the register estimate of each plan against what ptxas allocated, read
//!   from the `compiled KERNEL on PROBLEM: main: R regs, …` lines that
//!   `cargo test --release -p gconv-cuda --test compile_pool -- --nocapture` prints; the ratio
//!   per family, direction and math path (geometric mean, range, how often the estimate is
//!   below).
//!
//! `cargo run --release -p gconv-learn --example plan_audit -- persistence`
//! `cargo run --release -p gconv-learn --example plan_audit -- registers compile_pool.log`

use gconv_kernels::catalogue::{pool, Families};
use gconv_kernels::{admit, Family, KernelConfig, Target};
use gconv_problem::{Direction, Problem};
use std::collections::BTreeMap;

fn persistence() {
    let zoo = gconv_tune::registry::registry_problems("model_zoo").expect("the zoo set");
    let target = Target::H200;
    let (mut one_wave, mut waves) = (0, 0);
    for p in zoo.iter().filter(|p| p.direction != Direction::Wgrad) {
        for cfg in pool(p.direction, p.dtype, Families::Only(Family::Direct)) {
            let name = cfg.to_string();
            if cfg.stages != 2 || !name.ends_with("_simt_gen") {
                continue;
            }
            let Ok(a) = admit(&cfg, p, &target) else {
                continue;
            };
            let g = a.gated();
            let grid = g.grid();
            let ctas = grid[0] * grid[1] * grid[2];
            let per_sm = target
                .device
                .ctas_per_sm(g.smem_bytes(), cfg.threads(), g.registers());
            let estimated = per_sm * u64::from(target.device.sms);
            // The launch bound's CTAs per SM, as generated.
            let bound = a
                .emit()
                .code
                .lines()
                .find_map(|l| l.strip_prefix("constexpr int MIN_CTAS = "))
                .and_then(|v| v.trim_end_matches(';').parse::<u64>().ok())
                .unwrap_or(1);
            let resident = bound.max(per_sm) * u64::from(target.device.sms);
            if ctas > resident {
                waves += 1;
            } else {
                one_wave += 1;
            }
            println!(
                "{p} {name}: {ctas} CTAs, {resident} resident ({bound}/SM by the launch bound, {estimated} by the estimate of {} registers and {} B shared)",
                g.registers(),
                g.smem_bytes()
            );
        }
    }
    println!("double-buffered CUDA-core direct members on zoo layers: {one_wave} launch one wave or less, {waves} more");
}

fn registers(log: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(log).map_err(|e| format!("{log}: {e}"))?;
    let mut by: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("compiled ") else {
            continue;
        };
        let Some((kernel, rest)) = rest.split_once(" on ") else {
            continue;
        };
        let Some((problem, rest)) = rest.split_once(':') else {
            continue;
        };
        let Some(main) = rest.split("main: ").nth(1) else {
            continue;
        };
        let Some(regs) = main.split(' ').next().and_then(|r| r.parse::<f64>().ok()) else {
            continue;
        };
        let (Ok(cfg), Ok(p)) = (kernel.parse::<KernelConfig>(), problem.parse::<Problem>()) else {
            continue;
        };
        let Ok(a) = admit(&cfg, &p, &Target::H200) else {
            continue;
        };
        let key = format!(
            "{} {} {}",
            cfg.family.token(),
            p.direction.token(),
            cfg.math.token()
        );
        by.entry(key)
            .or_default()
            .push((regs, f64::from(a.gated().registers())));
    }
    for (key, v) in by {
        let ratios: Vec<f64> = v.iter().map(|(a, e)| a / e.max(1.0)).collect();
        let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(0.0, f64::max);
        let below = v.iter().filter(|(a, e)| a > e).count();
        println!(
            "{key}: {} kernels, allocated / estimated geomean {geo:.2} (min {lo:.2}, max {hi:.2}); estimate below the allocation on {below}",
            v.len()
        );
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["persistence"] => {
            persistence();
            Ok(())
        }
        ["registers", log] => registers(log),
        _ => Err("usage: plan_audit persistence | plan_audit registers COMPILE_POOL_LOG".into()),
    };
    if let Err(e) = run {
        eprintln!("plan_audit: {e}");
        std::process::exit(2);
    }
}
