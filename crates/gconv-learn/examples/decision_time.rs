//! What one `auto` decision costs, excluding compilation: loading the shipped model (once per
//! process), then the model's choice (`select::model_choice`: admission of the pool, the rule's
//! pick as a feature, features, trees) on every model-zoo layer of the three directions, each
//! timed warm as the median of 21 (the per-process decision cache is bypassed), with a
//! breakdown for one key.
//! `cargo run --release -p gconv-learn --example decision_time [-- KEY]`

use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::{admit, Target};
use gconv_learn::features::{features, Context};
use gconv_learn::select::{model_choice, shipped};
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

fn main() {
    let t = Target::H200;
    let s = Instant::now();
    let model = shipped().expect("the shipped model loads");
    println!(
        "model load (once per process): {:.1} ms",
        s.elapsed().as_secs_f64() * 1e3
    );
    let key = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fwd_bf16_n16_g64_c64_k64_i56x56_f7x7_s1x1_p3x3_d1x1".into());
    let p: Problem = key.parse().expect("a problem key");
    let pool = catalogue::pool(p.direction, p.dtype, Families::All);
    let gate = time(&|| {
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
        "{key}: {} pool members, {} admitted; gate {gate:.0} µs, features {feats:.0} µs, \
         every tree for every row {all:.0} µs, the best row (pruned) {best:.0} µs; \
         the whole decision {whole:.0} µs",
        pool.len(),
        admitted.len()
    );
    let zoo = gconv_tune::registry::registry_problems("model_zoo").expect("the zoo set");
    let mut times: Vec<(f64, String)> = zoo
        .iter()
        .map(|p| {
            let us = time(&|| {
                std::hint::black_box(model_choice(model, p, &t, Families::All));
            });
            (us, p.to_string())
        })
        .collect();
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].0;
    let worst = times.last().expect("zoo layers");
    println!(
        "{} model-zoo decisions: median {:.0} µs, P90 {:.0} µs, worst {:.0} µs ({})",
        times.len(),
        at(0.5),
        at(0.9),
        worst.0,
        worst.1
    );
}
