//! The ranking's second stage: a pairwise model that re-orders the first model's ranking in
//! places 2 to [`RERANKED`]; the first — `auto`'s choice — stays first.
//!
//! The first model regresses each candidate's slowdown on its own; where the oracle is not its
//! choice, it is mostly a neighbour (one more pipeline stage, the next tile) that the
//! regression ranks a few places down. The pairwise model is asked what a ranking needs — is
//! `a` faster than `b` on this problem? — from a *pair row*: the problem's columns of
//! [`FEATURES`] (`p_…`), `a`'s other columns, and those columns of `a` minus `b`'s. It is
//! trained with logistic loss on the ordered pairs of each training problem's
//! [`PAIRED_FASTEST`] fastest measured candidates and the first model's [`RERANKED`] first,
//! each pair weighted by how much its order matters (`|ln(t_a / t_b)|`, capped at [`WEIGHT_CAP`]: a
//! near-tie teaches nothing). The first candidates that pair are those of a first model that
//! never saw the problem's geometry ([`INNER_FOLDS`] inner folds), as at inference. The
//! candidates in places 2 to [`RERANKED`] are ordered by their mean probability of beating the
//! others of the first [`RERANKED`] (each pair read both ways and averaged; ties: the first
//! model's order).
//!
//! This is what `gconv tune` measures (the first five) and what the top-5 rate of `gconv
//! validate` scores; `auto`'s choice, and the time it takes, do not change. Re-ordering the
//! first as well (with the first model's prediction blended in) also raised the efficiency in
//! cross-validation, but costs `auto` the pair rows' walks on every decision
//! (`models/h200/README.md`, "Re-ranking").

use super::{column_major, FeatureMatrix, Forest, Model, TrainOptions};
use crate::dataset::Sample;
use crate::error::LearnError;
use crate::evaluate::geometry_key;
use crate::features::FEATURES;
use forust_ml::objective::ObjectiveType;
use forust_ml::{GradientBooster, Matrix};
use gconv_tune::shard::key_hash;
use std::collections::{BTreeMap, BTreeSet};

/// The pairwise model's file in a model directory.
pub(crate) const PAIRWISE: &str = "pairwise.json.gz";

/// Inner folds whose first models rank the candidates each training problem pairs.
pub const INNER_FOLDS: u64 = 5;

/// The fastest measured candidates of a training problem that are paired (with the first
/// model's [`RERANKED`] first).
pub const PAIRED_FASTEST: usize = 10;

/// The cap of a pair's weight `|ln(t_a / t_b)|`.
pub const WEIGHT_CAP: f64 = 0.7;

/// The first places of the ranking that are re-ordered (the first of them stays first).
pub const RERANKED: usize = 8;

/// Trees of the pairwise model (depth and rate: the first model's).
pub const TREES: usize = 300;

/// The columns of [`FEATURES`] a pair row takes: the problem's (shared by both members), and
/// the kernel's and plan's (written twice: `a`'s value, then `a`'s minus `b`'s).
fn columns() -> &'static (Vec<usize>, Vec<usize>) {
    static COLUMNS: std::sync::OnceLock<(Vec<usize>, Vec<usize>)> = std::sync::OnceLock::new();
    COLUMNS.get_or_init(|| {
        let problem = (0..FEATURES.len())
            .filter(|&i| FEATURES[i].starts_with("p_"))
            .collect();
        let kernel = (0..FEATURES.len())
            .filter(|&i| !FEATURES[i].starts_with("p_"))
            .collect();
        (problem, kernel)
    })
}

/// Columns of a pair row: the problem's, then the others twice.
pub(crate) fn width() -> usize {
    let (p, k) = columns();
    p.len() + 2 * k.len()
}

/// Writes the pair row of (`a`, `b`) into `out` (at least [`width`] long).
fn pair_row(a: &[f64], b: &[f64], out: &mut [f64]) {
    let (p, k) = columns();
    for (o, &i) in out.iter_mut().zip(p) {
        *o = a[i];
    }
    for (o, &i) in out[p.len()..].iter_mut().zip(k) {
        *o = a[i];
    }
    for (o, &i) in out[p.len() + k.len()..].iter_mut().zip(k) {
        *o = a[i] - b[i];
    }
}

/// The pairwise model.
pub(crate) struct Rerank {
    pub(crate) booster: GradientBooster,
    forest: Forest,
}

impl Rerank {
    /// From a trained or loaded booster.
    pub(crate) fn of(booster: GradientBooster) -> Rerank {
        Rerank {
            forest: Forest::of(&booster, width()),
            booster,
        }
    }

    /// Trains the pairwise model on `samples` (grouped by problem), the first-model rankings
    /// coming from inner-fold models trained with `options` (`whole`, the first model trained
    /// on every sample, where an inner fold would hold every problem: a tiny dataset).
    pub(crate) fn train(
        samples: &[&Sample],
        options: TrainOptions,
        whole: &Model,
    ) -> Result<Rerank, LearnError> {
        let mut problems: BTreeMap<String, Vec<&Sample>> = BTreeMap::new();
        for s in samples {
            problems.entry(s.problem.to_string()).or_default().push(s);
        }
        let inner_of =
            |s: &Sample| key_hash(&format!("inner {}", geometry_key(&s.problem))) % INNER_FOLDS;
        let inner: Vec<Option<Model>> = (0..INNER_FOLDS)
            .map(|f| {
                let train: Vec<&Sample> = samples
                    .iter()
                    .copied()
                    .filter(|s| inner_of(s) != f)
                    .collect();
                // A fold with every problem (a tiny dataset) pairs the whole model's ranking.
                (!train.is_empty() && train.len() < samples.len())
                    .then(|| Model::train_first(&train, options))
                    .transpose()
            })
            .collect::<Result<_, _>>()?;
        let w = width();
        let mut rows: Vec<Vec<f64>> = Vec::new();
        let mut y = Vec::new();
        let mut weight = Vec::new();
        for s in problems.values() {
            // The candidates `auto` may choose (every sample when none is).
            let any = s.iter().any(|x| x.eligible);
            let cand: Vec<&Sample> = s.iter().copied().filter(|x| x.eligible || !any).collect();
            if cand.len() < 2 {
                continue;
            }
            let model = inner[inner_of(cand[0]) as usize].as_ref().unwrap_or(whole);
            let feats: Vec<&[f64]> = cand.iter().map(|x| x.features.as_slice()).collect();
            let mut set: BTreeSet<usize> = model
                .ranking(&feats)
                .into_iter()
                .take(RERANKED)
                .map(|(i, _)| i)
                .collect();
            let mut fastest: Vec<usize> = (0..cand.len()).collect();
            fastest.sort_by(|&a, &b| {
                cand[a]
                    .latency_ms
                    .total_cmp(&cand[b].latency_ms)
                    .then(a.cmp(&b))
            });
            set.extend(fastest.into_iter().take(PAIRED_FASTEST));
            for &a in &set {
                for &b in &set {
                    if a == b {
                        continue;
                    }
                    let gap = (cand[a].latency_ms / cand[b].latency_ms).ln();
                    let mut row = vec![0.0; w];
                    pair_row(&cand[a].features, &cand[b].features, &mut row);
                    rows.push(row);
                    y.push(if gap < 0.0 { 1.0 } else { 0.0 });
                    weight.push(gap.abs().min(WEIGHT_CAP) + 1e-3);
                }
            }
        }
        if rows.is_empty() {
            return Err(LearnError::NoData(
                "no problem has two candidates to pair for the re-ranking".into(),
            ));
        }
        let refs: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
        let data = column_major(&refs, w);
        let matrix = Matrix::new(&data, refs.len(), w);
        let mut booster = GradientBooster::default()
            .set_objective_type(ObjectiveType::LogLoss)
            .set_iterations(TREES)
            .set_learning_rate(options.learning_rate)
            .set_max_depth(options.max_depth)
            .set_min_leaf_weight(1.0)
            .set_l2(options.l2)
            .set_seed(options.seed)
            .set_parallel(true);
        booster
            .fit(&matrix, &y, &weight, None)
            .map_err(|e| LearnError::Model(e.to_string()))?;
        Ok(Rerank::of(booster))
    }

    /// The rows `head` of `m` (the ranking's first, in its order) re-ordered after the first:
    /// the new order as positions into `head`, `0` first.
    pub(crate) fn reorder(&self, head: &[usize], m: &FeatureMatrix) -> Vec<usize> {
        let k = head.len();
        if k < 3 {
            return (0..k).collect();
        }
        let mut pairs = FeatureMatrix::for_width(width(), k * (k - 1));
        for &a in head {
            for &b in head {
                if a != b {
                    pair_row(m.row(a), m.row(b), pairs.push_row());
                }
            }
        }
        let margin = self
            .forest
            .predict_rows(&self.forest.rows(&pairs), usize::MAX);
        // Row of the ordered pair (i, j), i ≠ j.
        let at = |i: usize, j: usize| i * (k - 1) + if j < i { j } else { j - 1 };
        let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
        let score: Vec<f64> = (0..k)
            .map(|i| {
                (0..k)
                    .filter(|&j| j != i)
                    .map(|j| 0.5 * (sigmoid(margin[at(i, j)]) + 1.0 - sigmoid(margin[at(j, i)])))
                    .sum()
            })
            .collect();
        let mut order: Vec<usize> = (1..k).collect();
        order.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
        order.insert(0, 0);
        order
    }
}
