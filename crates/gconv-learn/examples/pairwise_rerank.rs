//! The experiment behind the pairwise re-ranking (`gconv_learn::model`'s `rerank`; the
//! numbers: `models/h200/README.md`, "Re-ranking"): a second, pairwise model that re-orders
//! the first model's K first candidates, in the variants that were compared. The library ships
//! one of them (K 8, the first kept first, every column, nested); this example keeps all of
//! them so the comparison can be run again.
//!
//! The first model regresses each candidate's slowdown on its own. The pairwise model is asked
//! whether `a` is faster than `b` on the problem, from the problem's columns, `a`'s kernel and
//! plan columns and their differences from `b`'s (`PCOLS=diff`: the problem's columns and the
//! differences only, 64 columns; `PCOLS=xown`: `a`'s plan columns and the differences), trained
//! with logistic loss on pairs of a training problem's `M` fastest measured members and the
//! first model's K first candidates (with `NESTED=N`, those of first models that never saw the
//! problem's geometry, N inner folds), each pair weighted by `|ln(t_a / t_b)|` capped at
//! `WCAP`. The K first candidates are ordered by their mean probability of beating the others,
//! less `b` times the first model's predicted slowdown over the lowest (`b` 0, 0.5, 1, 2), or
//! with the first kept first (`keep1`).
//!
//! ```sh
//! cargo run --release -p gconv-learn --example pairwise_rerank -- cv 5 TRAIN_LIST
//! cargo run --release -p gconv-learn --example pairwise_rerank -- holdout TRAIN_LIST VAL_LIST...
//! ```
//!
//! A list is a file of CSV paths (whitespace-separated). `holdout` leaves every training problem
//! whose geometry is in a validation list out of training and scores each validation list on
//! its own. Environment: `M` (default 10), `PTREES`, `PDEPTH`, `PLR`, `PMLW` (the pairwise
//! model's trees, depth, rate, minimum leaf weight), `WCAP` (default 0.7), `NESTED`, `PCOLS`,
//! `DEBUG` (list the problems whose choice K 8, `b` 1 moved by more than 5 %).

use forust_ml::{GradientBooster, Matrix};
use gconv_kernels::Target;
use gconv_learn::dataset::Sample;
use gconv_learn::evaluate::geometry_key;
use gconv_learn::features::FEATURES;
use gconv_learn::{Dataset, Model, TrainOptions};
use gconv_tune::shard::key_hash;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn env(k: &str, d: f64) -> f64 {
    std::env::var(k)
        .map(|x| x.parse::<f64>().expect("a number"))
        .unwrap_or(d)
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

/// The columns of the problem (shared by both members of a pair) and of the kernel and plan.
fn columns() -> (Vec<usize>, Vec<usize>) {
    let p = (0..FEATURES.len())
        .filter(|&i| FEATURES[i].starts_with("p_"))
        .collect();
    let k = (0..FEATURES.len())
        .filter(|&i| !FEATURES[i].starts_with("p_"))
        .collect();
    (p, k)
}

/// `PCOLS=diff`: the problem's columns and the differences only (64 columns).
fn diff_only() -> bool {
    std::env::var("PCOLS").is_ok_and(|v| v == "diff" || v == "xown")
}

/// The pair row of (a, b).
fn pair_row(a: &[f64], b: &[f64], pc: &[usize], kc: &[usize], out: &mut Vec<f64>) {
    if std::env::var("PCOLS").is_ok_and(|v| v == "xown") {
        // The plan columns of `a` instead of the problem's: 24 + 40 = 64.
        out.extend(
            kc.iter()
                .filter(|&&i| FEATURES[i].starts_with("x_"))
                .map(|&i| a[i]),
        );
    } else {
        out.extend(pc.iter().map(|&i| a[i]));
    }
    if !diff_only() && !std::env::var("PCOLS").is_ok_and(|v| v == "xown") {
        out.extend(kc.iter().map(|&i| a[i]));
    }
    out.extend(kc.iter().map(|&i| a[i] - b[i]));
}

/// Candidates of a problem: the eligible samples (every sample when none is).
fn candidates(s: &[Sample]) -> Vec<usize> {
    let any = s.iter().any(|x| x.eligible);
    (0..s.len()).filter(|&i| s[i].eligible || !any).collect()
}

/// The first model's order of a problem's candidates (indices into its samples), with their
/// predicted slowdowns.
fn first_ranking(model: &Model, s: &[Sample]) -> Vec<(usize, f64)> {
    let cand = candidates(s);
    let rows: Vec<&[f64]> = cand.iter().map(|&i| s[i].features.as_slice()).collect();
    model
        .ranking(&rows)
        .into_iter()
        .map(|(j, p)| (cand[j], p))
        .collect()
}

fn first_order(model: &Model, s: &[Sample]) -> Vec<usize> {
    first_ranking(model, s).into_iter().map(|o| o.0).collect()
}

/// One way of re-ordering.
#[derive(Clone, Copy, Debug)]
struct Variant {
    k: usize,
    keep_first: bool,
    blend: f64,
}

fn variants() -> Vec<Variant> {
    let mut v = Vec::new();
    for k in [5, 8, 12] {
        for blend in [0.0, 0.5, 1.0, 2.0] {
            v.push(Variant {
                k,
                keep_first: false,
                blend,
            });
        }
        v.push(Variant {
            k,
            keep_first: true,
            blend: 0.0,
        });
    }
    v
}

struct Pairwise {
    booster: GradientBooster,
    pc: Vec<usize>,
    kc: Vec<usize>,
}

impl Pairwise {
    /// With `NESTED=N` (N ≥ 2), the first candidates each training problem pairs come from a
    /// first model that never saw its geometry (N inner folds), as at inference; otherwise
    /// from `model`, which saw it.
    fn train_nested(model: &Model, problems: &[&Vec<Sample>], options: TrainOptions) -> Pairwise {
        let inner = env("NESTED", 0.0) as u64;
        if inner < 2 {
            return Pairwise::train(&|_| model, problems);
        }
        let fold = |s: &Sample| key_hash(&format!("inner {}", geometry_key(&s.problem))) % inner;
        let models: Vec<Model> = (0..inner)
            .map(|f| {
                let train: Vec<&Sample> = problems
                    .iter()
                    .flat_map(|v| v.iter())
                    .filter(|s| fold(s) != f)
                    .collect();
                Model::train(&train, options).expect("an inner model")
            })
            .collect();
        Pairwise::train(&|s| &models[fold(&s[0]) as usize], problems)
    }

    fn train<'m>(model: &dyn Fn(&[Sample]) -> &'m Model, problems: &[&Vec<Sample>]) -> Pairwise {
        let (pc, kc) = columns();
        let k = env("K", 8.0) as usize;
        let m = env("M", 10.0) as usize;
        let wcap = env("WCAP", 0.7);
        let width = pc.len() + if diff_only() { 1 } else { 2 } * kc.len();
        let mut data: Vec<f64> = Vec::new();
        let mut y = Vec::new();
        let mut w = Vec::new();
        for s in problems {
            let cand = candidates(s);
            let mut fastest = cand.clone();
            fastest.sort_by(|&a, &b| s[a].latency_ms.total_cmp(&s[b].latency_ms));
            let mut set: BTreeSet<usize> = fastest.into_iter().take(m).collect();
            set.extend(first_order(model(s), s).into_iter().take(k));
            let set: Vec<usize> = set.into_iter().collect();
            for &a in &set {
                for &b in &set {
                    if a == b {
                        continue;
                    }
                    let gap = (s[a].latency_ms / s[b].latency_ms).ln();
                    pair_row(&s[a].features, &s[b].features, &pc, &kc, &mut data);
                    y.push(if gap < 0.0 { 1.0 } else { 0.0 });
                    w.push(gap.abs().min(wcap) + 1e-3);
                }
            }
        }
        let rows = y.len();
        // Column-major for forust.
        let mut cm = vec![0.0; rows * width];
        for r in 0..rows {
            for c in 0..width {
                cm[c * rows + r] = data[r * width + c];
            }
        }
        let matrix = Matrix::new(&cm, rows, width);
        let mut booster = GradientBooster::default()
            .set_objective_type(forust_ml::objective::ObjectiveType::LogLoss)
            .set_iterations(env("PTREES", 300.0) as usize)
            .set_learning_rate(env("PLR", 0.1) as f32)
            .set_max_depth(env("PDEPTH", 6.0) as usize)
            .set_min_leaf_weight(env("PMLW", 1.0) as f32)
            .set_l2(1.0)
            .set_parallel(true);
        booster
            .fit(&matrix, &y, &w, None)
            .expect("a pairwise model");
        eprintln!("pairwise model: {rows} pairs, {width} columns");
        Pairwise { booster, pc, kc }
    }

    /// `order` with its first `k` re-ordered by mean win probability less `blend` times the
    /// first model's predicted slowdown over its first's (ties: the first order); with
    /// `keep_first`, the first model's first stays first.
    fn rerank(&self, s: &[Sample], order: &[(usize, f64)], v: Variant) -> Vec<usize> {
        let k = v.k.min(order.len());
        let pred: Vec<f64> = order.iter().map(|o| o.1).collect();
        let order: Vec<usize> = order.iter().map(|o| o.0).collect();
        if k < 2 {
            return order;
        }
        let top = &order[..k];
        let width = self.pc.len() + if diff_only() { 1 } else { 2 } * self.kc.len();
        let mut data = Vec::new();
        for &a in top {
            for &b in top {
                pair_row(
                    &s[a].features,
                    &s[b].features,
                    &self.pc,
                    &self.kc,
                    &mut data,
                );
            }
        }
        let rows = k * k;
        let mut cm = vec![0.0; rows * width];
        for r in 0..rows {
            for c in 0..width {
                cm[c * rows + r] = data[r * width + c];
            }
        }
        let m = self.booster.predict(&Matrix::new(&cm, rows, width), false);
        let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
        let mut score = vec![0.0; k];
        for i in 0..k {
            for j in 0..k {
                if i != j {
                    score[i] += 0.5 * (sig(m[i * k + j]) + 1.0 - sig(m[j * k + i]));
                }
            }
        }
        let lo = pred[..k].iter().copied().fold(f64::INFINITY, f64::min);
        for i in 0..k {
            score[i] = score[i] / (k - 1) as f64 - v.blend * (pred[i] - lo);
        }
        if v.keep_first {
            score[0] = f64::INFINITY;
        }
        let mut idx: Vec<usize> = (0..k).collect();
        idx.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
        let mut out: Vec<usize> = idx.into_iter().map(|i| top[i]).collect();
        out.extend_from_slice(&order[k..]);
        out
    }
}

/// Efficiency geomean, P10, worst, top-5, tuned, per direction top-5.
fn score(label: &str, cases: &[(&Vec<Sample>, Vec<usize>)]) {
    let n = cases.len();
    if n == 0 {
        println!("{label:<28} no problems");
        return;
    }
    let mut eff = Vec::new();
    let (mut hit, mut tuned) = (0usize, 0.0f64);
    let mut dir = BTreeMap::<&str, (usize, usize, f64)>::new();
    for (s, o) in cases {
        let oracle = (0..s.len())
            .min_by(|&a, &b| s[a].latency_ms.total_cmp(&s[b].latency_ms))
            .expect("samples");
        let top5 = &o[..o.len().min(5)];
        let h = top5.contains(&oracle);
        hit += usize::from(h);
        let t5 = top5
            .iter()
            .map(|&i| s[i].latency_ms)
            .fold(f64::INFINITY, f64::min);
        tuned += (s[oracle].latency_ms / t5).ln();
        let e = s[oracle].latency_ms / s[o[0]].latency_ms;
        eff.push(e);
        let d = dir.entry(s[0].problem.direction.token()).or_default();
        d.0 += usize::from(h);
        d.1 += 1;
        d.2 += e.ln();
    }
    eff.sort_by(f64::total_cmp);
    let geo = (eff.iter().map(|x| x.ln()).sum::<f64>() / n as f64).exp();
    let p10 = eff[((n - 1) as f64 * 0.1).round() as usize];
    let d: Vec<String> = dir
        .iter()
        .map(|(k, (h, t, l))| format!("{k} {:.3} {h}/{t}", (l / *t as f64).exp()))
        .collect();
    println!(
        "{label:<28} {n:>4} problems  geomean {geo:.3}  P10 {p10:.3}  worst {:.3}  top-5 {:.3}  tuned {:.4}  [{}]",
        eff[0],
        hit as f64 / n as f64,
        (tuned / n as f64).exp(),
        d.join(", ")
    );
}

/// A problem's samples and the first model's ranking of its candidates.
type Ranked<'a> = (&'a Vec<Sample>, Vec<(usize, f64)>);

fn evaluate(label: &str, model: &Model, pw: &Pairwise, problems: &[&Vec<Sample>]) {
    let ranked: Vec<Ranked> = problems
        .iter()
        .map(|s| (*s, first_ranking(model, s)))
        .collect();
    let base: Vec<(&Vec<Sample>, Vec<usize>)> = ranked
        .iter()
        .map(|(s, r)| (*s, r.iter().map(|o| o.0).collect()))
        .collect();
    score(&format!("{label} first model"), &base);
    for v in variants() {
        let re: Vec<(&Vec<Sample>, Vec<usize>)> = ranked
            .iter()
            .map(|(s, r)| (*s, pw.rerank(s, r, v)))
            .collect();
        if std::env::var("DEBUG").is_ok() && v.k == 8 && v.blend == 1.0 && !v.keep_first {
            for ((s, r), (_, o)) in ranked.iter().zip(&re) {
                let (a, b) = (&s[r[0].0], &s[o[0]]);
                if (a.latency_ms / b.latency_ms - 1.0).abs() > 0.05 {
                    let best = s.iter().map(|x| x.latency_ms).fold(f64::INFINITY, f64::min);
                    println!(
                        "  moved {} : {} {:.4} -> {} {:.4} (best {:.4})",
                        s[0].problem, a.kernel, a.latency_ms, b.kernel, b.latency_ms, best
                    );
                }
            }
        }
        score(
            &format!(
                "{label} k{} b{} {}",
                v.k,
                v.blend,
                if v.keep_first { "keep1" } else { "" }
            ),
            &re,
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 || !["cv", "holdout"].contains(&args[0].as_str()) {
        eprintln!("usage: pairwise_rerank cv FOLDS TRAIN_LIST | holdout TRAIN_LIST VAL_LIST...");
        std::process::exit(2);
    }
    let options = TrainOptions {
        top_weight: env("TW", 2.0) as f32,
        label_cap: env("CAP", 1.4) as f32,
        // The first model alone: the variants below are this example's own.
        rerank: false,
        ..TrainOptions::default()
    };
    if args[0] == "cv" {
        let folds: u64 = args[1].parse().expect("a fold count");
        let ds = dataset(&args[2]);
        let fold_of = |s: &Sample| key_hash(&geometry_key(&s.problem)) % folds;
        let mut models = Vec::new();
        for f in 0..folds {
            let train: Vec<&Sample> = ds.samples().filter(|s| fold_of(s) != f).collect();
            let model = Model::train(&train, options).expect("a model");
            let tp: Vec<&Vec<Sample>> = ds
                .problems
                .values()
                .filter(|s| fold_of(&s[0]) != f)
                .collect();
            let pw = Pairwise::train_nested(&model, &tp, options);
            models.push((model, pw));
            eprintln!("fold {f} trained");
        }
        // Every variant over every fold: one line per variant over all problems.
        let held = |f: u64| -> Vec<&Vec<Sample>> {
            ds.problems
                .values()
                .filter(|s| fold_of(&s[0]) == f)
                .collect()
        };
        let mut base = Vec::new();
        let mut per_variant: Vec<Vec<(&Vec<Sample>, Vec<usize>)>> =
            vec![Vec::new(); variants().len()];
        for (f, (model, pw)) in models.iter().enumerate() {
            for s in held(f as u64) {
                let r = first_ranking(model, s);
                base.push((s, r.iter().map(|o| o.0).collect::<Vec<usize>>()));
                for (vi, v) in variants().into_iter().enumerate() {
                    per_variant[vi].push((s, pw.rerank(s, &r, v)));
                }
            }
        }
        score("cv first model", &base);
        for (vi, v) in variants().into_iter().enumerate() {
            score(
                &format!(
                    "cv k{} b{} {}",
                    v.k,
                    v.blend,
                    if v.keep_first { "keep1" } else { "" }
                ),
                &per_variant[vi],
            );
        }
        return;
    }
    let ds = dataset(&args[1]);
    let vals: Vec<(String, Dataset)> = args[2..].iter().map(|l| (l.clone(), dataset(l))).collect();
    let held: BTreeSet<String> = vals
        .iter()
        .flat_map(|(_, d)| d.problems.values().map(|s| geometry_key(&s[0].problem)))
        .collect();
    let train: Vec<&Sample> = ds
        .samples()
        .filter(|s| !held.contains(&geometry_key(&s.problem)))
        .collect();
    let tp: Vec<&Vec<Sample>> = ds
        .problems
        .values()
        .filter(|s| !held.contains(&geometry_key(&s[0].problem)))
        .collect();
    eprintln!(
        "training on {} samples of {} problems",
        train.len(),
        tp.len()
    );
    let model = Model::train(&train, options).expect("a model");
    let pw = Pairwise::train_nested(&model, &tp, options);
    let mut all: Vec<&Vec<Sample>> = Vec::new();
    for (name, d) in &vals {
        let probs: Vec<&Vec<Sample>> = d.problems.values().collect();
        evaluate(name, &model, &pw, &probs);
        all.extend(probs);
    }
    evaluate("all validation", &model, &pw, &all);
}
