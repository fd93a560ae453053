//! `gconv compare`: do two sweep CSVs say the same thing? Used to check that a sharded or
//! multi-GPU sweep reproduces a single-GPU one, and to compare two runs of one sweep.
//!
//! Rows are joined on (kernel, problem) — the device columns are ignored, since comparing runs
//! on different devices is the point (with `by_device`, on the full identity). Two CSVs *agree*
//! when they have the same pairs with the same statuses. Latencies of pairs `ok` in both are
//! compared as ratios B/A (geometric mean, median, P10, P90, extremes, and how many are within a
//! tolerance); rows whose measurement stopped early on either side are counted apart, because
//! their latency is from fewer rounds against a best-so-far that depends on the order of the
//! sweep.

use crate::csv::{DeviceTag, SweepRow};
use crate::worker::Status;
use std::collections::BTreeMap;
use std::fmt;

type Key = (String, String, Option<DeviceTag>);

/// The comparison of two sets of rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Rows (pairs) in A.
    pub rows_a: usize,
    /// Rows (pairs) in B.
    pub rows_b: usize,
    /// Pairs only in A (kernel, problem).
    pub only_a: Vec<(String, String)>,
    /// Pairs only in B.
    pub only_b: Vec<(String, String)>,
    /// Pairs whose status differs: (kernel, problem, status in A, status in B).
    pub status_changed: Vec<(String, String, Status, Status)>,
    /// Pairs that appear more than once on one side under the join key.
    pub repeated: Vec<(String, String)>,
    /// Latency ratios B/A of pairs ok in both and measured in full on both sides, sorted.
    pub ratios: Vec<f64>,
    /// The pair with the ratio farthest from 1 (in log), and that ratio.
    pub worst: Option<(String, String, f64)>,
    /// Pairs ok in both where either side stopped early.
    pub stopped_early: usize,
    /// The tolerance of [`Comparison::within`] (0.1 = ±10 %).
    pub tolerance: f64,
}

impl Comparison {
    /// Same pairs, same statuses, no repeated pair.
    pub fn agrees(&self) -> bool {
        self.only_a.is_empty()
            && self.only_b.is_empty()
            && self.status_changed.is_empty()
            && self.repeated.is_empty()
    }

    /// Ratios within `1 ± tolerance`.
    pub fn within(&self) -> usize {
        self.ratios
            .iter()
            .filter(|r| (**r - 1.0).abs() <= self.tolerance)
            .count()
    }

    /// Geometric mean of the ratios.
    pub fn geomean(&self) -> Option<f64> {
        if self.ratios.is_empty() {
            return None;
        }
        let s: f64 = self.ratios.iter().map(|r| r.ln()).sum();
        Some((s / self.ratios.len() as f64).exp())
    }

    /// The `q` quantile of the ratios (nearest rank), `0 ≤ q ≤ 1`.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.ratios.is_empty() {
            return None;
        }
        let i = ((self.ratios.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
        Some(self.ratios[i])
    }
}

/// Compares rows `a` with rows `b` (see the module documentation).
pub fn compare_rows(a: &[SweepRow], b: &[SweepRow], by_device: bool, tolerance: f64) -> Comparison {
    let key = |r: &SweepRow| -> Key {
        let (k, p, d) = r.identity();
        (k, p, if by_device { d } else { None })
    };
    let mut repeated = Vec::new();
    let mut index = |rows: &[SweepRow]| {
        let mut m: BTreeMap<Key, SweepRow> = BTreeMap::new();
        for r in rows {
            let k = key(r);
            if m.insert(k.clone(), r.clone()).is_some() {
                repeated.push((k.0, k.1));
            }
        }
        m
    };
    let ma = index(a);
    let mb = index(b);
    let mut c = Comparison {
        rows_a: a.len(),
        rows_b: b.len(),
        only_a: Vec::new(),
        only_b: Vec::new(),
        status_changed: Vec::new(),
        repeated,
        ratios: Vec::new(),
        worst: None,
        stopped_early: 0,
        tolerance,
    };
    for (k, ra) in &ma {
        let Some(rb) = mb.get(k) else {
            c.only_a.push((k.0.clone(), k.1.clone()));
            continue;
        };
        if ra.status != rb.status {
            c.status_changed
                .push((k.0.clone(), k.1.clone(), ra.status, rb.status));
            continue;
        }
        if let (Some(ta), Some(tb)) = (ra.ok_latency_ms(), rb.ok_latency_ms()) {
            if ra.stopped_early == Some(true) || rb.stopped_early == Some(true) {
                c.stopped_early += 1;
                continue;
            }
            let r = tb / ta;
            if c.worst
                .as_ref()
                .is_none_or(|w| r.ln().abs() > w.2.ln().abs())
            {
                c.worst = Some((k.0.clone(), k.1.clone(), r));
            }
            c.ratios.push(r);
        }
    }
    for k in mb.keys().filter(|k| !ma.contains_key(*k)) {
        c.only_b.push((k.0.clone(), k.1.clone()));
    }
    c.ratios.sort_by(f64::total_cmp);
    c
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "rows: {} in A, {} in B; {} only in A, {} only in B, {} with another status, {} repeated",
            self.rows_a,
            self.rows_b,
            self.only_a.len(),
            self.only_b.len(),
            self.status_changed.len(),
            self.repeated.len()
        )?;
        let show = |f: &mut fmt::Formatter<'_>, what: &str, v: &[(String, String)]| {
            for (k, p) in v.iter().take(5) {
                writeln!(f, "  {what}: {k} on {p}")?;
            }
            if v.len() > 5 {
                writeln!(f, "  ... and {} more", v.len() - 5)?;
            }
            Ok(())
        };
        show(f, "only in A", &self.only_a)?;
        show(f, "only in B", &self.only_b)?;
        show(f, "repeated", &self.repeated)?;
        for (k, p, sa, sb) in self.status_changed.iter().take(5) {
            writeln!(f, "  status {} -> {}: {k} on {p}", sa.token(), sb.token())?;
        }
        match (
            self.geomean(),
            self.quantile(0.1),
            self.quantile(0.5),
            self.quantile(0.9),
        ) {
            (Some(g), Some(p10), Some(med), Some(p90)) => {
                writeln!(
                    f,
                    "latency B/A over {} pairs ok in both: geomean {g:.4}, median {med:.4}, P10 {p10:.4}, P90 {p90:.4}, min {:.4}, max {:.4}; {} within ±{:.0} %",
                    self.ratios.len(),
                    self.ratios[0],
                    self.ratios[self.ratios.len() - 1],
                    self.within(),
                    self.tolerance * 100.0
                )?;
                if let Some((k, p, r)) = &self.worst {
                    writeln!(f, "  farthest from 1: {r:.4} for {k} on {p}")?;
                }
            }
            _ => writeln!(f, "latency: no pair is ok and measured in full in both")?,
        }
        write!(
            f,
            "{} pairs ok in both stopped early on one side (not compared); {}",
            self.stopped_early,
            if self.agrees() {
                "A and B agree: same pairs, same statuses"
            } else {
                "A and B DIFFER"
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::JobResult;
    use gconv_problem::Problem;

    fn row(kernel: &str, ms: f64, status: Status) -> SweepRow {
        let p: Problem = "fwd_f32_n1_g1_c2_k3_i4_f3_s1_p1_d1".parse().unwrap();
        let mut r = if status == Status::Ok {
            SweepRow::from_result(kernel, &p, &JobResult::ok(ms, 0.0, 0.0))
        } else {
            SweepRow::with_status(kernel, &p, status, "x".into())
        };
        r.stopped_early = Some(false);
        r
    }

    #[test]
    fn same_pairs_and_statuses_agree_and_ratios_are_reported() {
        let a = vec![
            row("k1", 1.0, Status::Ok),
            row("k2", 2.0, Status::Ok),
            row("k3", 0.0, Status::Rejected),
        ];
        let b = vec![
            row("k3", 0.0, Status::Rejected),
            row("k2", 2.2, Status::Ok),
            row("k1", 0.95, Status::Ok),
        ];
        let c = compare_rows(&a, &b, false, 0.08);
        assert!(c.agrees(), "{c}");
        assert_eq!(c.ratios.len(), 2);
        assert_eq!(c.within(), 1, "1.1 is outside ±8 %");
        let w = c.worst.clone().unwrap();
        assert_eq!(w.0, "k2");
        assert!((c.geomean().unwrap() - (0.95f64 * 1.1).sqrt()).abs() < 1e-12);
        assert!(c.to_string().contains("agree"), "{c}");
    }

    #[test]
    fn missing_pairs_and_status_changes_differ() {
        let a = vec![row("k1", 1.0, Status::Ok), row("k2", 2.0, Status::Ok)];
        let mut early = row("k1", 5.0, Status::Ok);
        early.stopped_early = Some(true);
        let b = vec![
            early,
            row("k2", 0.0, Status::Crashed),
            row("k4", 1.0, Status::Ok),
        ];
        let c = compare_rows(&a, &b, false, 0.1);
        assert!(!c.agrees());
        assert_eq!(c.only_b, vec![("k4".to_string(), a[0].problem.to_string())]);
        assert_eq!(c.status_changed.len(), 1);
        assert_eq!((c.stopped_early, c.ratios.len()), (1, 0));
        assert!(c.to_string().contains("DIFFER"), "{c}");
        // A pair twice on one side.
        let c = compare_rows(
            &[row("k1", 1.0, Status::Ok), row("k1", 1.0, Status::Ok)],
            &a[..1],
            false,
            0.1,
        );
        assert_eq!(c.repeated.len(), 1);
        assert!(!c.agrees());
    }
}
