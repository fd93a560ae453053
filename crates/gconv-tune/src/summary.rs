//! The end-of-sweep summary: status counts, the top-k kernels of each problem by latency, the
//! ratio of the best baseline row to the best kernel, and geometric means per direction with
//! the tail (worst ratio, number of problems where a baseline is faster).

use crate::csv::{sig, SweepRow};
use crate::worker::Status;
use gconv_problem::{DeviceSpec, Direction, Problem};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// One ranked entry: a kernel (or baseline engine) and its latency.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// Kernel name or `<provider>:<engine>`.
    pub kernel: String,
    /// Median latency in ms.
    pub latency_ms: f64,
    /// Fraction of the device roofline.
    pub roofline_frac: f64,
}

/// What one problem's rows say.
#[derive(Debug, Clone, PartialEq)]
pub struct ProblemSummary {
    /// The problem.
    pub problem: Problem,
    /// Distinct kernels (not baselines) with a row.
    pub kernels: usize,
    /// Of those, kernels with an `ok` row.
    pub ok: usize,
    /// The fastest `ok` kernels, best first (at most `top_k`).
    pub top: Vec<Ranked>,
    /// The fastest `ok` baseline row, if any.
    pub best_baseline: Option<Ranked>,
}

impl ProblemSummary {
    /// Best baseline latency over best kernel latency (> 1: the kernel is faster).
    pub fn speedup(&self) -> Option<f64> {
        match (self.top.first(), &self.best_baseline) {
            (Some(k), Some(b)) => Some(b.latency_ms / k.latency_ms),
            _ => None,
        }
    }
}

/// Aggregates over the problems of one direction (or all).
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    /// Problems with at least one row.
    pub problems: usize,
    /// Problems with an `ok` kernel.
    pub with_ok: usize,
    /// Geometric mean of the best kernel's roofline fraction, over problems with an ok kernel.
    pub geomean_roofline: Option<f64>,
    /// Problems with both an ok kernel and an ok baseline.
    pub compared: usize,
    /// Geometric mean of [`ProblemSummary::speedup`] over the compared problems.
    pub geomean_speedup: Option<f64>,
    /// The smallest speedup (the tail).
    pub worst_speedup: Option<f64>,
    /// Compared problems where the best baseline is faster than the best kernel.
    pub slower: usize,
}

/// The summary of a set of sweep rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Status counts of kernel rows.
    pub kernel_status: BTreeMap<Status, usize>,
    /// Status counts of baseline rows.
    pub baseline_status: BTreeMap<Status, usize>,
    /// Per problem, in order of first appearance.
    pub problems: Vec<ProblemSummary>,
    /// How many kernels each problem lists.
    pub top_k: usize,
    /// Device of the roofline figures.
    pub device: DeviceSpec,
}

/// The rows that are not `ok`, counted by status, each status with its first messages: the
/// short "why" printed after a sweep (every message is in the sweep's messages file).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FailureDigest {
    /// Per status other than `ok`: the number of rows and up to the asked number of distinct
    /// examples, each `kernel on problem: message` (the message shortened).
    pub statuses: BTreeMap<Status, (usize, Vec<String>)>,
}

/// Longest message shown in a [`FailureDigest`] example, in characters.
pub const DIGEST_MESSAGE_CHARS: usize = 200;

/// The [`FailureDigest`] of `rows` with at most `examples` messages per status (rows without a
/// message are counted, not shown).
pub fn failure_digest(rows: &[SweepRow], examples: usize) -> FailureDigest {
    let mut d = FailureDigest::default();
    for r in rows.iter().filter(|r| r.status != Status::Ok) {
        let (n, shown) = d.statuses.entry(r.status).or_insert((0, Vec::new()));
        *n += 1;
        if let Some(msg) = &r.message {
            let line = format!(
                "{} on {}: {}",
                r.kernel,
                r.problem,
                crate::worker::truncate(msg.trim(), DIGEST_MESSAGE_CHARS)
            );
            if shown.len() < examples && !shown.iter().any(|s| s.ends_with(msg.trim())) {
                shown.push(line);
            }
        }
    }
    d
}

impl FailureDigest {
    /// True when every row is `ok`.
    pub fn is_empty(&self) -> bool {
        self.statuses.is_empty()
    }
}

impl fmt::Display for FailureDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let counts: BTreeMap<Status, usize> =
            self.statuses.iter().map(|(s, (n, _))| (*s, *n)).collect();
        write!(f, "not ok: {}", counts_text(&counts))?;
        for (status, (_, shown)) in &self.statuses {
            for line in shown {
                write!(f, "\n  {status}: {line}")?;
            }
        }
        Ok(())
    }
}

/// Geometric mean; `None` for an empty list.
pub fn geomean(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        None
    } else {
        Some((v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
    }
}

/// Kernel name -> best ok latency (None: no ok row).
type KernelBest = BTreeMap<String, Option<f64>>;
/// Baseline label -> best ok latency.
type BaselineBest = BTreeMap<String, f64>;

/// Summarises rows with the top 5 kernels per problem and the roofline of the device they ran
/// on (`crate::csv::rows_device_spec`, the H200's when unknown or mixed).
pub fn summarize(rows: &[SweepRow]) -> Summary {
    summarize_with(
        rows,
        5,
        &crate::csv::rows_device_spec(rows, &DeviceSpec::H200),
    )
}

/// Summarises rows with `top_k` kernels per problem on `device`.
pub fn summarize_with(rows: &[SweepRow], top_k: usize, device: &DeviceSpec) -> Summary {
    let mut kernel_status = BTreeMap::new();
    let mut baseline_status = BTreeMap::new();
    let mut order: Vec<Problem> = Vec::new();
    // problem key -> (kernel -> best ok latency or None)
    let mut per: HashMap<String, (KernelBest, BaselineBest)> = HashMap::new();
    for r in rows {
        let key = r.problem.to_string();
        let entry = per.entry(key).or_insert_with(|| {
            order.push(r.problem);
            (BTreeMap::new(), BTreeMap::new())
        });
        if r.is_baseline() {
            *baseline_status.entry(r.status).or_insert(0) += 1;
            if let Some(t) = r.ok_latency_ms() {
                let b = entry.1.entry(r.kernel.clone()).or_insert(t);
                *b = b.min(t);
            }
        } else {
            *kernel_status.entry(r.status).or_insert(0) += 1;
            let k = entry.0.entry(r.kernel.clone()).or_insert(None);
            if let Some(t) = r.ok_latency_ms() {
                *k = Some(k.map_or(t, |old: f64| old.min(t)));
            }
        }
    }
    let rank = |p: &Problem, kernel: &str, t: f64| Ranked {
        kernel: kernel.to_string(),
        latency_ms: t,
        roofline_frac: p.roofline_fraction(device, t * 1e-3),
    };
    let problems = order
        .into_iter()
        .map(|p| {
            let (kernels, baselines) = &per[&p.to_string()];
            let mut ok: Vec<(&String, f64)> = kernels
                .iter()
                .filter_map(|(k, t)| t.map(|t| (k, t)))
                .collect();
            ok.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(b.0)));
            let best_baseline = baselines
                .iter()
                .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(b.0)))
                .map(|(k, t)| rank(&p, k, *t));
            ProblemSummary {
                problem: p,
                kernels: kernels.len(),
                ok: ok.len(),
                top: ok
                    .iter()
                    .take(top_k)
                    .map(|(k, t)| rank(&p, k, *t))
                    .collect(),
                best_baseline,
            }
        })
        .collect();
    Summary {
        kernel_status,
        baseline_status,
        problems,
        top_k,
        device: *device,
    }
}

impl Summary {
    /// Aggregates over the problems of one direction, or all when `None`.
    pub fn aggregate(&self, direction: Option<Direction>) -> Aggregate {
        let ps: Vec<&ProblemSummary> = self
            .problems
            .iter()
            .filter(|p| direction.is_none_or(|d| p.problem.direction == d))
            .collect();
        let roof: Vec<f64> = ps
            .iter()
            .filter_map(|p| p.top.first().map(|r| r.roofline_frac))
            .collect();
        let sp: Vec<f64> = ps.iter().filter_map(|p| p.speedup()).collect();
        Aggregate {
            problems: ps.len(),
            with_ok: roof.len(),
            geomean_roofline: geomean(&roof),
            compared: sp.len(),
            geomean_speedup: geomean(&sp),
            worst_speedup: sp.iter().copied().reduce(f64::min),
            slower: sp.iter().filter(|&&s| s < 1.0).count(),
        }
    }
}

fn counts_text(m: &BTreeMap<Status, usize>) -> String {
    if m.is_empty() {
        return "none".into();
    }
    m.iter()
        .map(|(s, n)| format!("{s} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Aggregate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} problem(s), {} with an ok kernel",
            self.problems, self.with_ok
        )?;
        if let Some(g) = self.geomean_roofline {
            write!(
                f,
                "; geomean roofline fraction of the best kernel {}",
                sig(g, 3)
            )?;
        }
        if let (Some(g), Some(w)) = (self.geomean_speedup, self.worst_speedup) {
            write!(
                f,
                "; vs best baseline over {} problem(s): geomean {g:.3}x, worst {w:.3}x, baseline faster on {}",
                self.compared, self.slower
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "kernel rows: {}", counts_text(&self.kernel_status))?;
        if !self.baseline_status.is_empty() {
            writeln!(f, "baseline rows: {}", counts_text(&self.baseline_status))?;
        }
        writeln!(
            f,
            "top {} kernels per problem by median latency (roofline on {}; speedup = best baseline / kernel):",
            self.top_k, self.device.name
        )?;
        for p in &self.problems {
            writeln!(f, "{}  ({} of {} kernels ok)", p.problem, p.ok, p.kernels)?;
            if p.top.is_empty() {
                writeln!(f, "    no ok kernel")?;
            }
            for (i, r) in p.top.iter().enumerate() {
                write!(
                    f,
                    "    {:>2}. {:<60} {:>12.6} ms  roofline {}",
                    i + 1,
                    r.kernel,
                    r.latency_ms,
                    sig(r.roofline_frac, 3)
                )?;
                if let Some(b) = &p.best_baseline {
                    write!(f, "  {:.3}x", b.latency_ms / r.latency_ms)?;
                }
                writeln!(f)?;
            }
            if let Some(b) = &p.best_baseline {
                writeln!(
                    f,
                    "        {:<60} {:>12.6} ms  roofline {}  (best baseline)",
                    b.kernel,
                    b.latency_ms,
                    sig(b.roofline_frac, 3)
                )?;
            }
        }
        for d in Direction::ALL {
            let a = self.aggregate(Some(d));
            if a.problems > 0 {
                writeln!(f, "{d}: {a}")?;
            }
        }
        write!(f, "all: {}", self.aggregate(None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kernel: &str, key: &str, status: Status, lat: Option<f64>) -> SweepRow {
        SweepRow::bare(kernel, key, status, lat)
    }

    const P1: &str = "fwd_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1";
    const P2: &str = "dgrad_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1";

    #[test]
    fn ranks_and_ratios() {
        let rows = vec![
            row("a", P1, Status::Ok, Some(2.0)),
            row("b", P1, Status::Ok, Some(1.0)),
            row("c", P1, Status::Incorrect, Some(0.1)),
            row("cudnn:e1", P1, Status::Ok, Some(4.0)),
            row("cudnn:e2", P1, Status::Ok, Some(3.0)),
            row("a", P2, Status::Ok, Some(2.0)),
            row("cudnn:e1", P2, Status::Ok, Some(1.0)),
            row("b", P2, Status::Timeout, None),
        ];
        let s = summarize_with(&rows, 2, &DeviceSpec::H200);
        assert_eq!(s.kernel_status[&Status::Ok], 3);
        assert_eq!(s.kernel_status[&Status::Incorrect], 1);
        assert_eq!(s.baseline_status[&Status::Ok], 3);
        assert_eq!(s.problems.len(), 2);
        let p1 = &s.problems[0];
        assert_eq!(p1.kernels, 3);
        assert_eq!(p1.ok, 2);
        let names: Vec<&str> = p1.top.iter().map(|r| r.kernel.as_str()).collect();
        assert_eq!(names, ["b", "a"], "the incorrect kernel is never ranked");
        assert_eq!(p1.best_baseline.as_ref().unwrap().kernel, "cudnn:e2");
        assert_eq!(p1.speedup(), Some(3.0));
        assert_eq!(s.problems[1].speedup(), Some(0.5));
        let all = s.aggregate(None);
        assert_eq!(all.compared, 2);
        assert!((all.geomean_speedup.unwrap() - (1.5f64).sqrt()).abs() < 1e-12);
        assert_eq!(all.worst_speedup, Some(0.5));
        assert_eq!(all.slower, 1);
        let fwd = s.aggregate(Some(Direction::Fwd));
        assert_eq!(fwd.problems, 1);
        let text = s.to_string();
        assert!(text.contains("(best baseline)"), "{text}");
        assert!(text.contains("baseline faster on 1"), "{text}");
        assert!(text.contains("fwd:") && text.contains("dgrad:"), "{text}");
    }

    #[test]
    fn failure_digest_counts_and_shows_the_first_messages() {
        let with = |kernel: &str, status: Status, msg: &str| SweepRow {
            message: Some(msg.to_string()),
            ..row(kernel, P1, status, None)
        };
        let rows = vec![
            SweepRow {
                message: Some("timing method".into()),
                ..row("a", P1, Status::Ok, Some(1.0))
            },
            with("b", Status::Crashed, "worker exited (signal 6)"),
            with("c", Status::Crashed, "worker exited (signal 6)"),
            with("d", Status::Crashed, "worker exited (signal 9)"),
            with("e", Status::Crashed, "worker exited (signal 11)"),
            with("f", Status::Incorrect, &"x".repeat(1000)),
            row("g", P1, Status::Timeout, None),
        ];
        let d = failure_digest(&rows, 2);
        assert_eq!(d.statuses.len(), 3, "ok rows are not in the digest");
        let (n, shown) = &d.statuses[&Status::Crashed];
        assert_eq!(*n, 4);
        assert_eq!(
            shown,
            &[
                format!("b on {P1}: worker exited (signal 6)"),
                format!("d on {P1}: worker exited (signal 9)"),
            ],
            "two distinct messages"
        );
        let (_, shown) = &d.statuses[&Status::Incorrect];
        assert!(
            shown[0].chars().count() < DIGEST_MESSAGE_CHARS + 80,
            "shortened"
        );
        assert_eq!(d.statuses[&Status::Timeout], (1, vec![]));
        let text = d.to_string();
        assert!(
            text.starts_with("not ok: timeout 1, crashed 4, incorrect 1\n  crashed: b on"),
            "{text}"
        );
        assert!(failure_digest(&rows[..1], 2).is_empty());
    }

    #[test]
    fn no_ok_kernel() {
        let rows = vec![row("a", P1, Status::Crashed, None)];
        let s = summarize(&rows);
        assert!(s.problems[0].top.is_empty());
        assert_eq!(s.aggregate(None).geomean_roofline, None);
        assert!(s.to_string().contains("no ok kernel"));
    }
}
