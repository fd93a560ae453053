//! Training data from sweep CSVs: one [`Sample`] per verified `ok` kernel row, with its
//! features and its label, the log of its latency over the best kernel latency measured on the
//! same problem (0 for the problem's oracle, `ln 2` for a kernel twice as slow).
//!
//! Rows are joined on the problem key (never on a row index). Rows of one (kernel, problem) pair
//! that appear more than once (two CSVs, two runs) keep the fastest. A label is a ratio of two
//! latencies of one device, so [`Dataset::from_pool_rows`] (what `gconv train` and `validate`
//! read) keeps, for a problem measured on several devices, the rows of one: the device whose
//! rows cover the most of the problem's admitted pool (then the one with more `ok` rows); the
//! rows of the others are counted and left out (an H100 bench of a new member next to older
//! H200 rows of the rest would otherwise rank the member by the slower card). Baseline rows
//! (`cudnn:…`) are not samples, but the best baseline latency of each problem is kept for the
//! vendor comparison. A kernel name that no longer parses, or that the gate no longer admits on
//! the problem (a changed rule), is counted and left out, never guessed at. Problems with fewer
//! than two ok kernels have nothing to rank and are left out too.

use crate::features::{features, Context};
use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::{admit, KernelConfig, Target};
use gconv_problem::Problem;
use gconv_tune::SweepRow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One (kernel, problem) measurement with its features.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The problem.
    pub problem: Problem,
    /// The kernel (canonical name as it ran).
    pub kernel: String,
    /// Features ([`crate::features::FEATURES`] order).
    pub features: Vec<f64>,
    /// Measured latency, ms.
    pub latency_ms: f64,
    /// `ln(latency / best kernel latency on the problem)`.
    pub label: f64,
    /// May `auto` choose it (`crate::select::eligible`: a deterministic reduction)? Every
    /// sample trains the model; evaluation chooses among the eligible ones only, as `auto` does.
    pub eligible: bool,
}

/// Samples grouped by problem, and what was left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dataset {
    /// Per problem key: its samples (at least two).
    pub problems: BTreeMap<String, Vec<Sample>>,
    /// Per problem key: the best verified baseline latency, ms.
    pub baseline_ms: BTreeMap<String, f64>,
    /// Kernel rows whose name did not parse.
    pub unparsed: usize,
    /// Kernel rows the gate no longer admits.
    pub not_admitted: usize,
    /// Problems left out because fewer than two kernels were ok.
    pub too_few: usize,
    /// Repeated (kernel, problem) rows merged into one.
    pub repeated: usize,
    /// Problems left out by [`Dataset::from_pool_rows`] because their rows cover less than
    /// [`MIN_POOL_COVERAGE`] of the pool members the gate admits (a sweep cut by a timeout).
    pub incomplete: usize,
    /// Those problems, each with the admitted pool members that have no row there (what a
    /// bench or sweep of them would have to add for them to count again).
    pub uncovered: BTreeMap<String, Vec<String>>,
    /// Rows left out by [`Dataset::from_pool_rows`] because their problem's rows of another
    /// device were kept.
    pub other_device: usize,
}

/// The share of a problem's admitted pool members that must have a row (of any status) for
/// [`Dataset::from_pool_rows`] to keep it: below it, the problem's best is likely missing and
/// its labels and efficiencies would be measured against the wrong oracle. Older benches miss
/// the members added to the pools since (a few percent); a bench cut by a timeout can miss
/// nearly all of them.
pub const MIN_POOL_COVERAGE: f64 = 0.9;

/// The canonical names of `problem`'s default-pool members (every family) that the gate admits
/// on `target`: the pool a bench of the problem measures.
fn admitted_members(problem: &Problem, target: &Target) -> Vec<String> {
    catalogue::pool(problem.direction, problem.dtype, Families::All)
        .iter()
        .filter_map(|c| admit(c, problem, target).ok())
        .map(|a| a.config().to_string())
        .collect()
}

impl Dataset {
    /// Samples, problem by problem.
    pub fn samples(&self) -> impl Iterator<Item = &Sample> {
        self.problems.values().flatten()
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.problems.values().map(Vec::len).sum()
    }

    /// No sample at all.
    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }

    /// [`Dataset::from_rows`] for rows of pool benches (what `gconv train` and `validate`
    /// read): a problem measured on several devices keeps the rows of one (the module
    /// documentation; the others counted in `other_device`), and problems whose kept rows cover
    /// less than [`MIN_POOL_COVERAGE`] of the admitted members of their default pool are left
    /// out, counted as `incomplete` and listed in `uncovered`.
    pub fn from_pool_rows(rows: &[SweepRow], target: &Target) -> Dataset {
        // Per problem: the kernels with a row of no device (gate refusals, which hold on
        // every device), and per device the kernels with a row there and its ok rows.
        type Named<'a> = BTreeSet<&'a str>;
        let mut shared: HashMap<Problem, Named> = HashMap::new();
        let mut by_device: HashMap<Problem, BTreeMap<&str, (Named, usize)>> = HashMap::new();
        for r in rows.iter().filter(|r| !r.is_baseline()) {
            let named = shared.entry(r.problem).or_default();
            match &r.device {
                None => {
                    named.insert(r.kernel.as_str());
                }
                Some(d) => {
                    let e = by_device
                        .entry(r.problem)
                        .or_default()
                        .entry(d.name.as_str())
                        .or_default();
                    e.0.insert(r.kernel.as_str());
                    e.1 += usize::from(r.ok_latency_ms().is_some());
                }
            }
        }
        // Per problem: the device kept (the most pool members covered, then the most ok
        // rows, then the name) and the admitted members without a row of it.
        let mut kept_device: HashMap<Problem, &str> = HashMap::new();
        let mut uncovered = BTreeMap::new();
        let none = Named::new();
        for (p, sh) in &shared {
            let members = admitted_members(p, target);
            let cov = |n: &Named| members.iter().filter(|m| n.contains(m.as_str())).count();
            let device = by_device.get(p).and_then(|devices| {
                devices
                    .iter()
                    .max_by_key(|(name, (named, ok))| (cov(named), *ok, std::cmp::Reverse(**name)))
            });
            let named = device.map_or(&none, |(_, (named, _))| named);
            let missing: Vec<String> = members
                .iter()
                .filter(|m| !sh.contains(m.as_str()) && !named.contains(m.as_str()))
                .cloned()
                .collect();
            if let Some((name, _)) = device {
                kept_device.insert(*p, name);
            }
            if ((members.len() - missing.len()) as f64) < MIN_POOL_COVERAGE * members.len() as f64 {
                uncovered.insert(p.to_string(), missing);
            }
        }
        let mut other_device = 0;
        let rows = rows.iter().filter(|r| {
            let keep = match (&r.device, kept_device.get(&r.problem)) {
                (Some(d), Some(k)) => d.name == *k,
                _ => true,
            };
            other_device += usize::from(!keep);
            keep
        });
        let mut ds = Dataset::build(rows, target);
        // Problems left out for another reason (fewer than two ok rows) are counted there.
        uncovered.retain(|key, _| ds.problems.contains_key(key));
        ds.problems.retain(|key, _| !uncovered.contains_key(key));
        ds.incomplete = uncovered.len();
        ds.uncovered = uncovered;
        ds.other_device = other_device;
        ds
    }

    /// Builds the dataset from sweep rows (see the module documentation).
    pub fn from_rows(rows: &[SweepRow], target: &Target) -> Dataset {
        Dataset::build(rows.iter(), target)
    }

    fn build<'a>(rows: impl Iterator<Item = &'a SweepRow>, target: &Target) -> Dataset {
        let mut ds = Dataset::default();
        let mut best: BTreeMap<(String, String), (Problem, f64)> = BTreeMap::new();
        for r in rows {
            let Some(ms) = r.ok_latency_ms() else {
                continue;
            };
            if r.max_abs_err.is_none() || r.max_rel_err.is_none() {
                continue;
            }
            let key = r.problem.to_string();
            if r.is_baseline() {
                let e = ds.baseline_ms.entry(key).or_insert(ms);
                *e = e.min(ms);
                continue;
            }
            match best.entry((key, r.kernel.clone())) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert((r.problem, ms));
                }
                std::collections::btree_map::Entry::Occupied(mut o) => {
                    ds.repeated += 1;
                    if ms < o.get().1 {
                        o.get_mut().1 = ms;
                    }
                }
            }
        }
        let mut by_problem: BTreeMap<String, Vec<Sample>> = BTreeMap::new();
        let mut contexts: BTreeMap<String, Context> = BTreeMap::new();
        for ((key, kernel), (problem, ms)) in best {
            let Ok(cfg) = kernel.parse::<KernelConfig>() else {
                ds.unparsed += 1;
                continue;
            };
            let Ok(a) = admit(&cfg, &problem, target) else {
                ds.not_admitted += 1;
                continue;
            };
            let ctx = contexts
                .entry(key.clone())
                .or_insert_with(|| Context::of(&problem, target));
            by_problem.entry(key).or_default().push(Sample {
                problem,
                kernel,
                features: features(&a, ctx),
                latency_ms: ms,
                label: 0.0,
                eligible: crate::select::eligible(&cfg),
            });
        }
        for (key, mut samples) in by_problem {
            if samples.len() < 2 {
                ds.too_few += 1;
                continue;
            }
            let best = samples
                .iter()
                .map(|s| s.latency_ms)
                .fold(f64::INFINITY, f64::min);
            for s in &mut samples {
                s.label = (s.latency_ms / best).ln();
            }
            ds.problems.insert(key, samples);
        }
        ds
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gconv_kernels::catalogue::{self, Families};
    use gconv_tune::worker::{JobResult, Status};

    #[test]
    fn labels_are_log_ratios_to_the_problem_best_and_bad_rows_are_counted() {
        let p: Problem = "fwd_bf16_n8_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let pool: Vec<String> = catalogue::pool(p.direction, p.dtype, Families::All)
            .into_iter()
            .filter(|c| admit(c, &p, &Target::H200).is_ok())
            .map(|c| c.to_string())
            .take(3)
            .collect();
        assert_eq!(pool.len(), 3);
        let ok = |k: &str, ms: f64| SweepRow::from_result(k, &p, &JobResult::ok(ms, 0.0, 0.0));
        let rows = vec![
            ok(&pool[0], 2.0),
            ok(&pool[1], 1.0),
            ok(&pool[1], 1.5), // repeated: the fastest stays
            ok(&pool[2], 4.0),
            ok("cudnn:eng1", 0.5),
            ok("igemm_not_a_name", 1.0),
            SweepRow::with_status(&pool[0], &p, Status::Crashed, "x".into()),
        ];
        let ds = Dataset::from_rows(&rows, &Target::H200);
        assert_eq!((ds.len(), ds.repeated, ds.unparsed), (3, 1, 1));
        let s = &ds.problems[&p.to_string()];
        let label = |k: &str| s.iter().find(|x| x.kernel == k).unwrap().label;
        assert_eq!(label(&pool[1]), 0.0);
        assert!((label(&pool[0]) - 2f64.ln()).abs() < 1e-12);
        assert!((label(&pool[2]) - 4f64.ln()).abs() < 1e-12);
        assert_eq!(ds.baseline_ms[&p.to_string()], 0.5);
    }

    /// A problem whose rows cover only part of its pool (a bench cut by a timeout) is left
    /// out of pool datasets and counted; with a row for every admitted member it stays.
    #[test]
    fn pool_datasets_leave_out_problems_cut_short() {
        let p: Problem = "wgrad_bf16_n8_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let admitted = admitted_members(&p, &Target::H200);
        assert!(admitted.len() > 10, "{}", admitted.len());
        let rows: Vec<SweepRow> = admitted
            .iter()
            .enumerate()
            .map(|(i, k)| SweepRow::from_result(k, &p, &JobResult::ok(1.0 + i as f64, 0.0, 0.0)))
            .collect();
        let full = Dataset::from_pool_rows(&rows, &Target::H200);
        assert_eq!((full.problems.len(), full.incomplete), (1, 0));
        assert_eq!(full.len(), admitted.len());
        let cut = Dataset::from_pool_rows(&rows[..admitted.len() / 2], &Target::H200);
        assert_eq!((cut.problems.len(), cut.incomplete), (0, 1));
        // What it misses is named: the members past the cut.
        assert_eq!(
            cut.uncovered[&p.to_string()],
            admitted[admitted.len() / 2..]
        );
        assert!(full.uncovered.is_empty());
        // from_rows keeps what it is given.
        assert_eq!(Dataset::from_rows(&rows[..3], &Target::H200).len(), 3);
    }

    /// A problem measured on two devices keeps the rows of the one that covers its pool: the
    /// other device's rows (a faster card's for the older members) never set a label.
    #[test]
    fn pool_datasets_keep_one_device_per_problem() {
        use gconv_tune::DeviceTag;
        let p: Problem = "dgrad_bf16_n8_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let admitted = admitted_members(&p, &Target::H200);
        let n = admitted.len();
        assert!(n > 10, "{n}");
        let on = |name: &str, k: &str, ms: f64| SweepRow {
            device: Some(DeviceTag {
                name: name.into(),
                index: 0,
            }),
            ..SweepRow::from_result(k, &p, &JobResult::ok(ms, 0.0, 0.0))
        };
        // The fast card: every member but the last at 1 ms. The slow card: every member, the
        // last (a new member) at 1.5 ms and the others at 2 ms.
        let mut rows: Vec<SweepRow> = admitted[..n - 1]
            .iter()
            .map(|k| on("fast", k, 1.0))
            .collect();
        rows.extend(
            admitted
                .iter()
                .enumerate()
                .map(|(i, k)| on("slow", k, if i == n - 1 { 1.5 } else { 2.0 })),
        );
        let ds = Dataset::from_pool_rows(&rows, &Target::H200);
        assert_eq!((ds.problems.len(), ds.other_device), (1, n - 1));
        let s = &ds.problems[&p.to_string()];
        assert_eq!(s.len(), n);
        let label = |k: &str| s.iter().find(|x| x.kernel == k).unwrap().label;
        // The new member is the slow card's best (label 0), not 1.5x the fast card's best.
        assert_eq!(label(&admitted[n - 1]), 0.0);
        assert!((label(&admitted[0]) - (2.0f64 / 1.5).ln()).abs() < 1e-12);
        // Equal coverage: the device with more ok rows is kept.
        let mut rows: Vec<SweepRow> = admitted.iter().map(|k| on("a", k, 1.0)).collect();
        rows.push(on("b", &admitted[0], 0.5));
        let ds = Dataset::from_pool_rows(&rows, &Target::H200);
        assert_eq!(ds.other_device, 1);
        assert_eq!(ds.problems[&p.to_string()].len(), n);
        // from_rows keeps every device's rows, the fastest of a pair.
        assert_eq!(Dataset::from_rows(&rows, &Target::H200).repeated, 1);
    }
}
