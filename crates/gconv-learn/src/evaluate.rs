//! A model against the measured oracle. For each problem the model ranks the kernels that were
//! measured on it as `auto` ranks candidates ([`Model::ranking`]: the screening cascade); its
//! choice is the first. *Efficiency* is the oracle's latency over
//! the chosen kernel's (1 when the model picks the fastest measured kernel); *top-k* says the
//! oracle was among the model's k best. The oracle is the fastest of every measured member,
//! those `auto` may not choose (atomic split-K) included, so an oracle that is not a candidate
//! counts as a miss; [`Outcome::eligible_oracle_rank`] ranks the fastest candidate instead (a
//! different, weaker metric, reported apart). [`Metrics`] summarise efficiencies with the tail
//! (P10, the worst problems), not only the mean.
//!
//! [`cross_validate`] holds out whole problem *geometries*: the fold of a problem is the stable
//! hash of its key without the direction and dtype ([`geometry_key`]), so the same layer in
//! another direction or dtype never trains the model that is scored on it. Every fold trains
//! with the same options and no early stopping on the held-out fold.

use crate::dataset::{Dataset, Sample};
use crate::error::LearnError;
use crate::features::regime;
use crate::model::{Model, TrainOptions};
use gconv_problem::Problem;
use gconv_tune::shard::key_hash;
use std::collections::BTreeMap;
use std::fmt;

/// What the model did on one problem.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The problem.
    pub problem: Problem,
    /// The kernel the model chose, and its measured latency (ms).
    pub chosen: (String, f64),
    /// The measured best kernel and its latency (ms).
    pub oracle: (String, f64),
    /// Where the oracle is in the model's ranking (1 = first).
    pub oracle_rank: usize,
    /// Kernels ranked.
    pub candidates: usize,
    /// The best baseline latency on the problem (ms), when measured.
    pub baseline_ms: Option<f64>,
    /// The hand rule's choice and its measured latency (ms), when it was measured.
    pub rule: Option<(String, f64)>,
    /// Tune mode: the fastest measured latency (ms) among the model's five first candidates.
    pub top5_best_ms: f64,
    /// May `auto` choose the oracle (`crate::select::eligible`)?
    pub oracle_eligible: bool,
    /// Where the fastest measured candidate — the fastest member `auto` may choose — is in the
    /// model's ranking (1 = first); `oracle_rank` when the oracle is a candidate.
    pub eligible_oracle_rank: usize,
    /// Measured members (candidates or not, the oracle included) within [`NEAR_TIE`] of the
    /// oracle's latency: more than one says the oracle is one of a near-tie that measurement
    /// noise could reorder.
    pub near_oracle: usize,
}

/// A latency within this share of the oracle's is a near-tie with it (2 %): a kernel name
/// measured on the same problem in two sessions differs by a median 0.2–0.7 % and a P90 of
/// 1.4–2.3 % (the H200 backward-weight benches of sessions 14 and 15, zoo and unseen layers:
/// `results/h200/s1{4,5}/call1/{zoo,unseen}_wgrad.csv.gz`, per family).
pub const NEAR_TIE: f64 = 0.02;

impl Outcome {
    /// Oracle latency over chosen latency (≤ 1).
    pub fn efficiency(&self) -> f64 {
        self.oracle.1 / self.chosen.1
    }

    /// Tune mode's efficiency: the oracle over the best of the model's five first candidates.
    pub fn tuned_efficiency(&self) -> f64 {
        self.oracle.1 / self.top5_best_ms
    }

    /// The same outcome with the hand rule's choice as the choice (`None` when the rule's
    /// kernel was not measured), for comparing the model with the rule on the same problems.
    pub fn of_rule(&self) -> Option<Outcome> {
        let (name, ms) = self.rule.clone()?;
        Some(Outcome {
            chosen: (name, ms),
            oracle_rank: if ms <= self.oracle.1 { 1 } else { usize::MAX },
            eligible_oracle_rank: if ms <= self.oracle.1 { 1 } else { usize::MAX },
            top5_best_ms: ms,
            ..self.clone()
        })
    }
}

/// The key of a problem without its direction and dtype: what cross-validation groups on.
pub fn geometry_key(p: &Problem) -> String {
    let key = p.to_string();
    key.splitn(3, '_').nth(2).unwrap_or(&key).to_string()
}

/// Ranks the samples of one problem with the model.
fn outcome(model: &Model, samples: &[Sample], baseline_ms: Option<f64>) -> Outcome {
    // `auto`'s candidates: the eligible samples (every sample when none is, which a pool
    // never gives), ranked as `auto` ranks them (`Model::ranking`: the screening cascade).
    let any_eligible = samples.iter().any(|s| s.eligible);
    let candidates: Vec<usize> = (0..samples.len())
        .filter(|&i| samples[i].eligible || !any_eligible)
        .collect();
    let rows: Vec<&[f64]> = candidates
        .iter()
        .map(|&i| samples[i].features.as_slice())
        .collect();
    let order: Vec<usize> = model
        .ranking(&rows)
        .into_iter()
        .map(|(j, _)| candidates[j])
        .collect();
    let by_latency =
        |a: &usize, b: &usize| samples[*a].latency_ms.total_cmp(&samples[*b].latency_ms);
    let oracle = (0..samples.len()).min_by(by_latency).unwrap_or(0);
    let best_candidate = candidates
        .iter()
        .copied()
        .min_by(by_latency)
        .unwrap_or(oracle);
    let rank_of = |k: usize| {
        order
            .iter()
            .position(|&i| i == k)
            .map_or(order.len() + 1, |p| p + 1)
    };
    let chosen = order[0];
    let top5_best_ms = order
        .iter()
        .take(5)
        .map(|&i| samples[i].latency_ms)
        .fold(f64::INFINITY, f64::min);
    // The rule's pick is a feature of every sample (set when the dataset was built), so it
    // is read back rather than decided again.
    let pick = crate::features::FEATURES
        .iter()
        .position(|f| f == "x_rule_pick");
    let rule = pick.and_then(|i| {
        samples
            .iter()
            .find(|s| s.features.get(i) == Some(&1.0))
            .map(|s| (s.kernel.clone(), s.latency_ms))
    });
    Outcome {
        problem: samples[0].problem,
        chosen: (samples[chosen].kernel.clone(), samples[chosen].latency_ms),
        oracle: (samples[oracle].kernel.clone(), samples[oracle].latency_ms),
        // Where the oracle is among the candidates (past the last when it is not one of them:
        // an atomic split-K member).
        oracle_rank: rank_of(oracle),
        candidates: samples.len(),
        baseline_ms,
        rule,
        top5_best_ms,
        oracle_eligible: samples[oracle].eligible,
        eligible_oracle_rank: rank_of(best_candidate),
        near_oracle: samples
            .iter()
            .filter(|s| s.latency_ms <= samples[oracle].latency_ms * (1.0 + NEAR_TIE))
            .count(),
    }
}

/// For every sample of `ds`: its measured slowdown (latency over the problem's best) and the
/// model's predicted slowdown relative to its lowest prediction on the problem (what the
/// ranking uses), for the scatter plot.
pub fn slowdowns(model: &Model, ds: &Dataset) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(ds.len());
    for samples in ds.problems.values() {
        let rows: Vec<&[f64]> = samples.iter().map(|s| s.features.as_slice()).collect();
        let pred = model.predict(&rows);
        let lo = pred.iter().copied().fold(f64::INFINITY, f64::min);
        for (s, p) in samples.iter().zip(&pred) {
            out.push((s.label.exp(), (p - lo).exp()));
        }
    }
    out
}

/// The model's outcome on every problem of `ds`.
pub fn evaluate(model: &Model, ds: &Dataset) -> Vec<Outcome> {
    ds.problems
        .iter()
        .map(|(k, s)| outcome(model, s, ds.baseline_ms.get(k).copied()))
        .collect()
}

/// Cross-validated outcomes: `folds` models, each trained without one fold of geometries and
/// scored on it.
pub fn cross_validate(
    ds: &Dataset,
    folds: u32,
    options: TrainOptions,
) -> Result<Vec<Outcome>, LearnError> {
    options.check()?;
    if folds < 2 {
        return Err(LearnError::NoData(format!(
            "cross-validation needs at least 2 folds, not {folds}"
        )));
    }
    // A fold per problem geometry at most (more would be empty folds, one training each).
    let geometries = ds
        .problems
        .values()
        .map(|s| geometry_key(&s[0].problem))
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    if folds as usize > geometries {
        return Err(LearnError::Option(format!(
            "--folds {folds}: more folds than the data's {geometries} problem geometries; give at most {geometries}"
        )));
    }
    let fold_of = |s: &Sample| (key_hash(&geometry_key(&s.problem)) % u64::from(folds)) as u32;
    let mut out = Vec::new();
    for f in 0..folds {
        let train: Vec<&Sample> = ds.samples().filter(|s| fold_of(s) != f).collect();
        let held: Vec<(&String, &Vec<Sample>)> = ds
            .problems
            .iter()
            .filter(|(_, s)| fold_of(&s[0]) == f)
            .collect();
        if held.is_empty() {
            continue;
        }
        if train.is_empty() {
            return Err(LearnError::NoData(format!(
                "fold {f} of {folds} holds every geometry; give more problems or fewer folds"
            )));
        }
        let model = Model::train(&train, options)?;
        for (k, s) in held {
            out.push(outcome(&model, s, ds.baseline_ms.get(k).copied()));
        }
    }
    Ok(out)
}

/// Summary of outcomes.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// Problems.
    pub problems: usize,
    /// Geometric mean of the efficiencies.
    pub geomean: f64,
    /// Median efficiency.
    pub median: f64,
    /// 10th percentile of the efficiencies (the tail).
    pub p10: f64,
    /// The smallest efficiency.
    pub worst: f64,
    /// Fraction of problems where the choice is the oracle.
    pub top1: f64,
    /// Fraction where the oracle is among the model's five best.
    pub top5: f64,
    /// Fraction where the fastest candidate `auto` may choose is among the model's five best
    /// ([`Outcome::eligible_oracle_rank`]; equal to `top5` where no oracle is an atomic
    /// split-K member, which `top5` counts as a miss).
    pub top5_eligible: f64,
    /// Geometric mean of tune mode's efficiency (the best measured of the five first).
    pub tuned_geomean: f64,
    /// Problems where the chosen kernel is slower than the best baseline, of those with one.
    pub slower_than_baseline: usize,
    /// Problems with a baseline.
    pub with_baseline: usize,
}

/// Nearest-rank quantile of sorted values.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i]
}

impl Metrics {
    /// Summarises `outcomes`; `None` when there is none.
    pub fn of(outcomes: &[&Outcome]) -> Option<Metrics> {
        if outcomes.is_empty() {
            return None;
        }
        let mut e: Vec<f64> = outcomes.iter().map(|o| o.efficiency()).collect();
        e.sort_by(f64::total_cmp);
        let n = e.len() as f64;
        let with: Vec<&&Outcome> = outcomes
            .iter()
            .filter(|o| o.baseline_ms.is_some())
            .collect();
        Some(Metrics {
            problems: e.len(),
            geomean: (e.iter().map(|x| x.ln()).sum::<f64>() / n).exp(),
            median: quantile(&e, 0.5),
            p10: quantile(&e, 0.1),
            worst: e[0],
            top1: outcomes.iter().filter(|o| o.oracle_rank == 1).count() as f64 / n,
            top5: outcomes.iter().filter(|o| o.oracle_rank <= 5).count() as f64 / n,
            top5_eligible: outcomes
                .iter()
                .filter(|o| o.eligible_oracle_rank <= 5)
                .count() as f64
                / n,
            tuned_geomean: (outcomes
                .iter()
                .map(|o| o.tuned_efficiency().ln())
                .sum::<f64>()
                / n)
                .exp(),
            slower_than_baseline: with
                .iter()
                .filter(|o| o.baseline_ms.is_some_and(|b| o.chosen.1 > b))
                .count(),
            with_baseline: with.len(),
        })
    }
}

impl fmt::Display for Metrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:>4} problems  efficiency geomean {:.3}  median {:.3}  P10 {:.3}  worst {:.3}  top-1 {:.3}  top-5 {:.3}  tuned {:.3}  slower than the baseline {}/{}  (top-5 of the fastest candidate {:.3})",
            self.problems,
            self.geomean,
            self.median,
            self.p10,
            self.worst,
            self.top1,
            self.top5,
            self.tuned_geomean,
            self.slower_than_baseline,
            self.with_baseline,
            self.top5_eligible
        )
    }
}

/// Metrics over all outcomes, per direction and per regime (`(label, metrics)` rows), for
/// printing.
pub fn breakdown(outcomes: &[Outcome]) -> Vec<(String, Metrics)> {
    let mut groups: BTreeMap<String, Vec<&Outcome>> = BTreeMap::new();
    for o in outcomes {
        groups.entry("all".into()).or_default().push(o);
        groups
            .entry(format!("direction {}", o.problem.direction.token()))
            .or_default()
            .push(o);
        groups
            .entry(format!("regime {}", regime(&o.problem)))
            .or_default()
            .push(o);
    }
    let mut rows: Vec<(String, Metrics)> = groups
        .into_iter()
        .filter_map(|(k, v)| Metrics::of(&v).map(|m| (k, m)))
        .collect();
    rows.sort_by_key(|(k, _)| (k != "all", k.clone()));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_keys_drop_direction_and_dtype() {
        let a: Problem = "fwd_bf16_n8_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let b = a.with_direction(gconv_problem::Direction::Wgrad);
        assert_eq!(geometry_key(&a), geometry_key(&b));
        assert_eq!(
            geometry_key(&a),
            "n8_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
        );
    }

    #[test]
    fn metrics_report_the_tail() {
        let p: Problem = "fwd_bf16_n8_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let o = |chosen: f64, rank: usize| Outcome {
            problem: p,
            chosen: ("a".into(), chosen),
            oracle: ("b".into(), 1.0),
            oracle_rank: rank,
            candidates: 10,
            baseline_ms: Some(1.5),
            rule: None,
            top5_best_ms: 1.0,
            oracle_eligible: rank <= 10,
            eligible_oracle_rank: rank.min(4),
            near_oracle: 1,
        };
        // The last: an oracle `auto` cannot choose (ranked past the candidates), whose fastest
        // candidate is ranked 4th.
        let v = [o(1.0, 1), o(2.0, 3), o(1.25, 7), o(1.0, 1), o(1.1, 11)];
        let m = Metrics::of(&v.iter().collect::<Vec<_>>()).unwrap();
        assert_eq!(m.problems, 5);
        assert!((m.geomean - (0.5f64 * 0.8 / 1.1).powf(0.2)).abs() < 1e-12);
        assert_eq!(m.worst, 0.5);
        assert_eq!((m.top1, m.top5, m.top5_eligible), (0.4, 0.6, 1.0));
        assert_eq!((m.slower_than_baseline, m.with_baseline), (1, 5));
        assert!(Metrics::of(&[]).is_none());
    }
}
