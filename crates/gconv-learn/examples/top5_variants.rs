//! Re-orderings of the model's ranking beyond its first (`auto`'s choice, kept), scored by the
//! top-5 rate that issue #14 asks for: cross-validated on training data (the folds of
//! `gconv train --folds N`: the geometry key's hash modulo N), or on unseen problems with a
//! model directory, or with a model trained here on the training data and scored on unseen
//! problems. Each line: efficiency geomean, P10 and worst of the first choice (the same for
//! every re-ordering), the top-5 rate (the oracle is the fastest of every measured member), the
//! top-5 rate of the fastest candidate `auto` may choose (a different metric), tune mode's
//! geomean (the best of the five first over the oracle), and the top-5 hits per direction.
//!
//! The re-orderings start from `BASE`: `new` (the default), this build's `Model::ranking`
//! (the cascade's choice, then the rest by their full predictions), or `old`, the ranking
//! before it (the cascade's 8 finalists by full prediction, then the rows each stage dropped,
//! the last stage's first, by their partial sums at the cut). They are: a *diversified* top-5
//! (positions 2–5 filled in order with members whose key — some of the kernel name's fields —
//! is shared by fewer than `cap` members placed already; the members passed over follow),
//! a *hedge* (the hand rule's pick, or the hand cost model's cheapest, moved to 5th when it is
//! not among the first four), and the full forest's order after the first.
//!
//! ```sh
//! cargo run --release -p gconv-learn --example top5_variants -- cv 5 TRAIN_LIST
//! cargo run --release -p gconv-learn --example top5_variants -- unseen models/h200 UNSEEN_LIST
//! cargo run --release -p gconv-learn --example top5_variants -- fresh - TRAIN_LIST UNSEEN_LIST
//! ```
//!
//! A list is a file of CSV paths (whitespace-separated). The training options are
//! `gconv train`'s defaults with `--top-weight 2` (the shipped model's), changed by the
//! environment: `TW` (top weight), `CAP` (label cap), `DEPTH`, `TREES`, `LR`.

use gconv_kernels::Target;
use gconv_learn::dataset::Sample;
use gconv_learn::evaluate::geometry_key;
use gconv_learn::features::FEATURES;
use gconv_learn::model::SCREEN;
use gconv_learn::{Dataset, Model, TrainOptions};
use gconv_tune::shard::key_hash;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One problem: its samples, and the base ranking and the full forest's order of its
/// candidates (indices into `samples`).
struct Case {
    samples: Vec<Sample>,
    order: Vec<usize>,
    full: Vec<usize>,
}

fn col(name: &str) -> usize {
    FEATURES
        .iter()
        .position(|f| f == name)
        .unwrap_or_else(|| panic!("no feature {name}"))
}

fn key(s: &Sample, fields: &[usize]) -> Vec<i64> {
    fields.iter().map(|&c| s.features[c] as i64).collect()
}

/// The first kept; positions 2–5 filled with members whose key is shared by fewer than `cap`
/// members placed already; the members passed over follow, in order.
fn diversify(c: &Case, fields: &[usize], cap: usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let mut later = Vec::new();
    for &i in &c.order {
        let k = key(&c.samples[i], fields);
        let n = out
            .iter()
            .filter(|&&j| key(&c.samples[j], fields) == k)
            .count();
        if out.len() < 5 && (out.is_empty() || n < cap) {
            out.push(i);
        } else {
            later.push(i);
        }
    }
    out.extend(later);
    out
}

/// The member picked by `pick` moved to 5th when it is not among the first four.
fn hedge(c: &Case, pick: Option<usize>) -> Vec<usize> {
    let mut o = c.order.clone();
    if let Some(pos) = pick.and_then(|t| o.iter().position(|&i| i == t)) {
        if pos >= 5 {
            let t = o.remove(pos);
            o.insert(4, t);
        }
    }
    o
}

/// The ranking before this build's: the cascade's finalists by full prediction, then each
/// stage's dropped rows by their partial sums at the cut, the last stage's first.
fn old_ranking(model: &Model, rows: &[&[f64]]) -> Vec<usize> {
    let mut live: Vec<usize> = (0..rows.len()).collect();
    let mut dropped: Vec<Vec<usize>> = Vec::new();
    for st in SCREEN {
        if live.len() <= st.keep {
            continue;
        }
        let part = model.predict_first(rows, st.trees);
        live.sort_by(|&a, &b| part[a].total_cmp(&part[b]).then(a.cmp(&b)));
        dropped.push(live.split_off(st.keep));
    }
    let full = model.predict(rows);
    live.sort_by(|&a, &b| full[a].total_cmp(&full[b]).then(a.cmp(&b)));
    for d in dropped.into_iter().rev() {
        live.extend(d);
    }
    live
}

fn cases(model: &Model, ds: &Dataset, keep: &dyn Fn(&Sample) -> bool, old: bool) -> Vec<Case> {
    let mut v = Vec::new();
    for s in ds.problems.values().filter(|s| keep(&s[0])) {
        let any = s.iter().any(|x| x.eligible);
        let cand: Vec<usize> = (0..s.len()).filter(|&i| s[i].eligible || !any).collect();
        let rows: Vec<&[f64]> = cand.iter().map(|&i| s[i].features.as_slice()).collect();
        let order: Vec<usize> = if old {
            old_ranking(model, &rows)
        } else {
            model.ranking(&rows).into_iter().map(|(j, _)| j).collect()
        };
        let p = model.predict(&rows);
        let mut full: Vec<usize> = (0..cand.len()).collect();
        full.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
        v.push(Case {
            samples: s.clone(),
            order: order.into_iter().map(|j| cand[j]).collect(),
            full: full.into_iter().map(|j| cand[j]).collect(),
        });
    }
    v
}

fn score(cases: &[Case], f: &dyn Fn(&Case) -> Vec<usize>, label: &str) {
    let n = cases.len();
    let (mut strict, mut eligible, mut tuned, mut moved) = (0usize, 0usize, 0.0f64, 0usize);
    let mut dir = BTreeMap::<&str, (usize, usize)>::new();
    let mut eff: Vec<f64> = Vec::new();
    for c in cases {
        let o = f(c);
        moved += usize::from(o[0] != c.order[0]);
        let s = &c.samples;
        let by = |a: &usize, b: &usize| s[*a].latency_ms.total_cmp(&s[*b].latency_ms);
        let oracle = (0..s.len()).min_by(by).expect("samples");
        let best_candidate = c.order.iter().copied().min_by(by).expect("candidates");
        let top5 = &o[..o.len().min(5)];
        let hit = top5.contains(&oracle);
        strict += usize::from(hit);
        eligible += usize::from(top5.contains(&best_candidate));
        let t5 = top5
            .iter()
            .map(|&i| s[i].latency_ms)
            .fold(f64::INFINITY, f64::min);
        tuned += (s[oracle].latency_ms / t5).ln();
        eff.push(s[oracle].latency_ms / s[o[0]].latency_ms);
        let e = dir.entry(s[0].problem.direction.token()).or_default();
        e.0 += usize::from(hit);
        e.1 += 1;
    }
    eff.sort_by(f64::total_cmp);
    let geo = (eff.iter().map(|x| x.ln()).sum::<f64>() / n as f64).exp();
    let p10 = eff[((n - 1) as f64 * 0.1).round() as usize];
    let d: Vec<String> = dir
        .iter()
        .map(|(k, (h, t))| format!("{k} {h}/{t}"))
        .collect();
    println!(
        "{label:<34} geomean {geo:.3} P10 {p10:.3} worst {:.3}  top-5 {:.3} ({strict}/{n})  fastest-candidate top-5 {:.3}  tuned {:.4}  [{}]{}",
        eff[0],
        strict as f64 / n as f64,
        eligible as f64 / n as f64,
        (tuned / n as f64).exp(),
        d.join(", "),
        if moved > 0 {
            format!("  first moved on {moved}")
        } else {
            String::new()
        }
    );
}

fn dataset(list: &str) -> Dataset {
    let text = std::fs::read_to_string(list).unwrap_or_else(|e| panic!("{list}: {e}"));
    let mut rows = Vec::new();
    for p in text.split_whitespace() {
        let (r, _) = gconv_tune::csv::read_rows_lenient(&PathBuf::from(p))
            .unwrap_or_else(|e| panic!("{p}: {e}"));
        rows.extend(r);
    }
    Dataset::from_pool_rows(&rows, &Target::H200)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 || !["cv", "unseen", "fresh"].contains(&args[0].as_str()) {
        eprintln!("usage: top5_variants cv FOLDS TRAIN_LIST | unseen MODEL_DIR UNSEEN_LIST | fresh - TRAIN_LIST UNSEEN_LIST");
        std::process::exit(2);
    }
    let old = std::env::var("BASE").is_ok_and(|b| b == "old");
    let env = |k: &str, d: f64| {
        std::env::var(k)
            .map(|x| x.parse::<f64>().expect("a number"))
            .unwrap_or(d)
    };
    let options = TrainOptions {
        top_weight: env("TW", 2.0) as f32,
        label_cap: env("CAP", 0.7) as f32,
        max_depth: env("DEPTH", 6.0) as usize,
        trees: env("TREES", 300.0) as usize,
        learning_rate: env("LR", 0.1) as f32,
        ..TrainOptions::default()
    };
    let all = match args[0].as_str() {
        "cv" => {
            let ds = dataset(&args[2]);
            let folds: u64 = args[1].parse().expect("a fold count");
            let fold_of = |s: &Sample| key_hash(&geometry_key(&s.problem)) % folds;
            let mut all = Vec::new();
            for f in 0..folds {
                let train: Vec<&Sample> = ds.samples().filter(|s| fold_of(s) != f).collect();
                let m = Model::train(&train, options).expect("a model");
                all.extend(cases(&m, &ds, &|s| fold_of(s) == f, old));
            }
            all
        }
        "unseen" => {
            let m = Model::load(&PathBuf::from(&args[1])).expect("a model directory");
            cases(&m, &dataset(&args[2]), &|s| !m.trained_on(&s.problem), old)
        }
        _ => {
            let ds = dataset(&args[2]);
            let m = Model::train(&ds.samples().collect::<Vec<_>>(), options).expect("a model");
            let unseen = dataset(args.get(3).expect("an unseen list"));
            cases(&m, &unseen, &|s| !m.trained_on(&s.problem), old)
        }
    };
    let f =
        |names: &[&str]| -> Vec<usize> { names.iter().map(|n| col(&format!("k_{n}"))).collect() };
    let fields = [
        "family",
        "tile_m",
        "tile_n",
        "tile_k",
        "warps_m",
        "warps_n",
        "stages",
        "vec_a",
        "vec_b",
        "group_merge",
        "split_k",
        "math",
        "fast_path",
    ];
    let without = |drop: &[&str]| -> Vec<usize> {
        f(&fields
            .iter()
            .copied()
            .filter(|x| !drop.contains(x))
            .collect::<Vec<_>>())
    };
    score(
        &all,
        &|c| c.order.clone(),
        if old { "ranking (old)" } else { "ranking" },
    );
    let keys: Vec<(&str, Vec<usize>)> = vec![
        ("no-stage-twins", without(&["stages"])),
        ("no-stage/vec-twins", without(&["stages", "vec_a", "vec_b"])),
        ("no-vec-twins", without(&["vec_a", "vec_b"])),
        (
            "no-stage/vec/gm/sk",
            without(&["stages", "vec_a", "vec_b", "group_merge", "split_k"]),
        ),
        (
            "tile+warps+math",
            f(&[
                "family", "tile_m", "tile_n", "tile_k", "warps_m", "warps_n", "math",
            ]),
        ),
        (
            "tile+math",
            f(&["family", "tile_m", "tile_n", "tile_k", "math"]),
        ),
        ("tile_mn", f(&["family", "tile_m", "tile_n"])),
        ("family+math", f(&["family", "math", "fast_path"])),
        ("family", f(&["family"])),
    ];
    for (name, fields) in &keys {
        for cap in 1..=3 {
            score(
                &all,
                &|c| diversify(c, fields, cap),
                &format!("{name} cap {cap}"),
            );
        }
    }
    score(&all, &|c| c.full.clone(), "full forest (first may move)");
    score(
        &all,
        &|c| {
            let mut o = vec![c.order[0]];
            o.extend(c.full.iter().copied().filter(|&i| i != c.order[0]));
            o
        },
        "first, then the full forest",
    );
    let rule = col("x_rule_pick");
    score(
        &all,
        &|c| {
            hedge(
                c,
                c.order
                    .iter()
                    .copied()
                    .find(|&i| c.samples[i].features[rule] == 1.0),
            )
        },
        "hedge: rule's pick at 5",
    );
    let cost = col("x_log_cost_us");
    score(
        &all,
        &|c| {
            let s = &c.samples;
            let cheapest = c.order.iter().copied().min_by(|&a, &b| {
                s[a].features[cost]
                    .total_cmp(&s[b].features[cost])
                    .then(a.cmp(&b))
            });
            hedge(c, cheapest)
        },
        "hedge: cheapest by cost at 5",
    );
}
