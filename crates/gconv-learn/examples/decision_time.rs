//! What one `auto` decision costs a user, excluding compilation.
//!
//! - **Model load**: the shipped model, once per process (`select::shipped`).
//! - **First decision, fresh process**: for every model-zoo layer of the three directions, a
//!   new process (this example run with `--fresh KEY`) loads the model, then times its first
//!   `select::choose` on that layer once: what the first convolution of a program pays (cold
//!   caches and code pages, the per-process decision cache empty). Three processes per layer,
//!   their median.
//! - **First decision, same process**: every zoo layer decided once through `select::choose`
//!   in one process (a program meeting its layers one after the other).
//! - **Repeated decision**: `select::choose` again on a decided layer (the per-process cache).
//! - **Breakdown** for one layer (`KEY`, default the forward 7×7 g64 layer), each stage timed
//!   warm as the median of 21 runs: the gate over the pool as `auto` runs it (`Gate::screen`
//!   of the pool validated once per process; and, for comparison, every member admitted in
//!   full with its plan), the features, the trees.
//!
//! `cargo run --release -p gconv-learn --example decision_time [-- KEY]`
//!
//! For an instruction count, `--fresh KEY` (the first decision of a process) and `--warm KEY`
//! (the decision of `KEY` after every other zoo layer was decided) make their measured
//! decision in `measured`, so that callgrind counts it alone:
//! `valgrind --tool=callgrind --toggle-collect='*decision_time::measured*' \
//!   target/release/examples/decision_time --warm KEY`.
//!
//! For a sampling profiler, `--loop N` makes the model's choice (`select::model_choice`, no
//! per-process cache) on every zoo layer N times and prints the mean:
//! `perf record -e cpu-clock -g target/release/examples/decision_time --loop 100`.

use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::{admit, Gate, Target};
use gconv_learn::features::{features, Context};
use gconv_learn::select::{choose, model_choice, shipped};
use gconv_problem::Problem;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median microseconds of 21 runs of `f`.
fn time(f: &dyn Fn()) -> f64 {
    median(
        (0..21)
            .map(|_| {
                let s = Instant::now();
                f();
                s.elapsed().as_secs_f64() * 1e6
            })
            .collect(),
    )
}

/// Median, P90 and worst of `times` (µs, with the layer), as one line.
fn summary(what: &str, mut times: Vec<(f64, String)>) -> String {
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].0;
    let worst = times.last().expect("zoo layers");
    format!(
        "{} {what}: median {:.1} µs, P90 {:.1} µs, worst {:.1} µs ({})",
        times.len(),
        at(0.5),
        at(0.9),
        worst.0,
        worst.1
    )
}

/// The decision the child times (a function of its own, for `--toggle-collect`).
#[inline(never)]
fn measured(p: &Problem) -> Option<gconv_learn::select::Choice> {
    choose(p, &Target::H200, Families::All)
}

/// The child: load the model (with `warm`, then decide every other zoo layer), then time the
/// first decision of `key`; prints `load_ms decision_us`.
fn fresh(key: &str, warm: bool) {
    let p: Problem = match key.parse() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("decision_time: {key:?} is not a problem key: {e}");
            std::process::exit(2);
        }
    };
    let s = Instant::now();
    shipped().expect("the shipped model loads");
    let load = s.elapsed().as_secs_f64() * 1e3;
    if warm {
        for q in gconv_tune::registry::registry_problems("model_zoo").expect("the zoo set") {
            if q != p {
                std::hint::black_box(choose(&q, &Target::H200, Families::All));
            }
        }
    }
    let s = Instant::now();
    let choice = measured(&p);
    let us = s.elapsed().as_secs_f64() * 1e6;
    std::hint::black_box(choice);
    println!("{load} {us}");
}

/// `--loop N`: the model's choice on every zoo layer, N rounds, for a sampling profiler.
fn repeat(n: usize) {
    let model = shipped().expect("the shipped model");
    let zoo = gconv_tune::registry::registry_problems("model_zoo").expect("the zoo set");
    let start = Instant::now();
    let mut chosen = 0;
    for _ in 0..n {
        for p in &zoo {
            chosen += usize::from(model_choice(model, p, &Target::H200, Families::All).is_some());
        }
    }
    let us = start.elapsed().as_secs_f64() * 1e6 / (n * zoo.len()).max(1) as f64;
    println!(
        "{chosen} choices over {} zoo layers × {n}: {us:.1} µs each (mean)",
        zoo.len()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, key] = args.as_slice() {
        if flag == "--fresh" || flag == "--warm" {
            fresh(key, flag == "--warm");
            return;
        }
        if flag == "--loop" {
            let Ok(n) = key.parse::<usize>() else {
                eprintln!("decision_time: --loop takes a count, not {key:?}");
                std::process::exit(2);
            };
            repeat(n);
            return;
        }
    }
    // The breakdown's layer, checked before the long measurements (a bad key is a message).
    let key = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "fwd_bf16_n16_g64_c64_k64_i56x56_f7x7_s1x1_p3x3_d1x1".into());
    let p: Problem = match key.parse() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("decision_time: {key:?} is not a problem key: {e}");
            eprintln!("usage: decision_time [KEY] | --fresh KEY | --warm KEY");
            std::process::exit(2);
        }
    };
    let t = Target::H200;
    let zoo = gconv_tune::registry::registry_problems("model_zoo").expect("the zoo set");
    // Fresh processes first (nothing of this process warms theirs).
    let exe = std::env::current_exe().expect("this example's path");
    let mut loads = Vec::new();
    let mut firsts = Vec::new();
    for p in &zoo {
        // Three fresh processes per layer, the median of their first decisions (a process
        // preempted by another on this machine would otherwise set the worst case).
        let mut runs: Vec<(f64, f64)> = (0..3)
            .map(|_| {
                let out = std::process::Command::new(&exe)
                    .args(["--fresh", &p.to_string()])
                    .output()
                    .expect("the child runs");
                let text = String::from_utf8_lossy(&out.stdout);
                let v: Vec<f64> = text
                    .split_whitespace()
                    .map(|x| x.parse().expect("a number"))
                    .collect();
                (v[0], v[1])
            })
            .collect();
        runs.sort_by(|a, b| a.1.total_cmp(&b.1));
        loads.push(runs[1].0);
        firsts.push((runs[1].1, p.to_string()));
    }
    println!(
        "model load (once per process): median {:.1} ms over {} layers' processes",
        median(loads.clone()),
        loads.len()
    );
    println!(
        "{}",
        summary("first decisions, each in a fresh process", firsts)
    );
    let s = Instant::now();
    let model = shipped().expect("the shipped model loads");
    println!(
        "model load in this process: {:.1} ms",
        s.elapsed().as_secs_f64() * 1e3
    );
    // Each zoo layer decided once, in order: µs per decision with its problem.
    let decide_all = || -> Vec<(f64, String)> {
        zoo.iter()
            .map(|p| {
                let s = Instant::now();
                std::hint::black_box(choose(p, &t, Families::All));
                (s.elapsed().as_secs_f64() * 1e6, p.to_string())
            })
            .collect()
    };
    let same = decide_all();
    println!(
        "{}",
        summary("first decisions, one after the other in one process", same)
    );
    let repeated = decide_all();
    println!(
        "{}",
        summary("repeated decisions (kept per process)", repeated)
    );

    let pool = catalogue::pool(p.direction, p.dtype, Families::All);
    // The gate as `auto` runs it: the pool validated once per process, screened without plans.
    let valid = catalogue::validated_pool(p.direction, p.dtype, t.arch);
    let gate = time(&|| {
        let g = Gate::new(&p, &t);
        std::hint::black_box(
            valid
                .iter()
                .filter_map(|(_, v)| g.screen(v.as_ref().ok()?).ok())
                .count(),
        );
    });
    // Every member admitted in full (validated, planned, the plan kept), as `gconv select`
    // ranks.
    let full = time(&|| {
        std::hint::black_box(pool.iter().filter_map(|c| admit(c, &p, &t).ok()).count());
    });
    let ctx = Context::of(&p, &t);
    let admitted: Vec<_> = pool.iter().filter_map(|c| admit(c, &p, &t).ok()).collect();
    let feats = time(&|| {
        std::hint::black_box(
            admitted
                .iter()
                .map(|a| features(a, &ctx))
                .collect::<Vec<_>>(),
        );
    });
    let rows: Vec<Vec<f64>> = admitted.iter().map(|a| features(a, &ctx)).collect();
    let refs: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
    let all = time(&|| {
        std::hint::black_box(model.predict(&refs));
    });
    let best = time(&|| {
        std::hint::black_box(model.best(&refs));
    });
    let whole = time(&|| {
        std::hint::black_box(model_choice(model, &p, &t, Families::All));
    });
    println!(
        "{key} (warm, median of 21): {} pool members, {} admitted; gate {gate:.1} µs \
         (every member admitted in full {full:.1} µs), features {feats:.1} µs, every tree for every row {all:.1} µs, the best row \
         {best:.1} µs; the whole decision {whole:.1} µs",
        pool.len(),
        admitted.len()
    );
}
