//! Where the time of one `auto` ranking goes (gate, rule, features, model), warm, median of 51.
//! `cargo run --release -p gconv-learn --example decision_time -- KEY`

use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::select::auto_select;
use gconv_kernels::{admit, Target};
use gconv_learn::features::{features, Context};
use gconv_learn::select::shipped;
use gconv_problem::Problem;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let key = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fwd_bf16_n16_g64_c64_k64_i56x56_f7x7_s1x1_p3x3_d1x1".into());
    let p: Problem = key.parse().expect("a problem key");
    let t = Target::H200;
    let model = shipped().expect("model");
    let pool = catalogue::pool(p.direction, p.dtype, Families::All);
    let time = |f: &dyn Fn()| {
        median(
            (0..51)
                .map(|_| {
                    let s = Instant::now();
                    f();
                    s.elapsed().as_secs_f64() * 1e6
                })
                .collect(),
        )
    };
    let gate = time(&|| {
        std::hint::black_box(pool.iter().filter_map(|c| admit(c, &p, &t).ok()).count());
    });
    let rule = time(&|| {
        std::hint::black_box(auto_select(&p, &t));
    });
    let admitted: Vec<_> = pool.iter().filter_map(|c| admit(c, &p, &t).ok()).collect();
    let ctx = Context::from_admitted(&admitted, &p, &t);
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
    let pred = time(&|| {
        std::hint::black_box(model.predict(&refs));
    });
    println!(
        "{key}: {} pool members, {} admitted; gate {gate:.0} µs, rule {rule:.0} µs, features {feats:.0} µs, model {pred:.0} µs",
        pool.len(),
        admitted.len()
    );
}
