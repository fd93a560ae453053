//! Paired comparisons of one kernel field inside a sweep: every measured kernel whose field
//! holds value B against its twin (the same name with the field at value A) on the same
//! problem, both `ok`. The ratio of a pair is t(A) / t(B): above 1 when B is faster. What
//! `gconv report CSV --pair FIELD=A,B` prints: which value of a trait wins, everything else
//! equal (a schedule, a stage count, a vector width), per problem and over the whole sweep.

use crate::csv::SweepRow;
use gconv_kernels::KernelConfig;
use gconv_problem::Problem;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// A `--pair` request: the field and its two values, A (the reference) and B (the challenger).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairSpec {
    /// A field name of `gconv_kernels::config::FIELDS`.
    pub field: String,
    /// The reference value (as written in trait configs and names).
    pub a: String,
    /// The challenger value.
    pub b: String,
}

/// Why a `--pair` request or its comparison failed.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PairError {
    /// Not of the form `FIELD=A,B`.
    #[error("--pair {given:?}: expected FIELD=A,B (e.g. math=wgmma,wgmmaws or stages=3,4)")]
    Syntax {
        /// The text given.
        given: String,
    },
    /// A field or value the kernel configuration does not accept (its message is this
    /// error's: not also a source, which would print it twice).
    #[error("--pair: {0}")]
    Field(gconv_kernels::config::FieldError),
    /// The two values are the same.
    #[error("--pair {field}={value},{value}: the two values must differ")]
    SameValue {
        /// The field.
        field: String,
        /// The value given twice.
        value: String,
    },
    /// No kernel with the field at B has an `ok` twin with the field at A.
    #[error("--pair {field}={a},{b}: no ok row with {field} = {b} has an ok twin with {field} = {a} on the same problem")]
    NoPairs {
        /// The field.
        field: String,
        /// The reference value.
        a: String,
        /// The challenger value.
        b: String,
    },
}

impl From<gconv_kernels::config::FieldError> for PairError {
    fn from(e: gconv_kernels::config::FieldError) -> Self {
        PairError::Field(e)
    }
}

impl FromStr for PairSpec {
    type Err = PairError;

    fn from_str(s: &str) -> Result<PairSpec, PairError> {
        let syntax = || PairError::Syntax {
            given: s.to_string(),
        };
        let (field, values) = s.split_once('=').ok_or_else(syntax)?;
        let (a, b) = values.split_once(',').ok_or_else(syntax)?;
        let (field, a, b) = (field.trim(), a.trim(), b.trim());
        if field.is_empty() || a.is_empty() || b.is_empty() || b.contains(',') {
            return Err(syntax());
        }
        // Both values must be valid for the field (the same check a trait config gets).
        let mut probe = KernelConfig::default();
        probe.set_field(field, a)?;
        let va = probe.field_value(field);
        probe.set_field(field, b)?;
        if probe.field_value(field) == va {
            return Err(PairError::SameValue {
                field: field.to_string(),
                value: b.to_string(),
            });
        }
        Ok(PairSpec {
            field: field.to_string(),
            a: a.to_string(),
            b: b.to_string(),
        })
    }
}

/// The pairs of one problem.
#[derive(Debug, Clone, PartialEq)]
pub struct ProblemPairs {
    /// The problem.
    pub problem: Problem,
    /// t(A) / t(B) of each pair, in the order of the B kernels' rows.
    pub ratios: Vec<f64>,
    /// The fastest ok kernel with the field at A (name, ms), paired or not.
    pub best_a: Option<(String, f64)>,
    /// The fastest ok kernel with the field at B.
    pub best_b: Option<(String, f64)>,
}

/// Every problem's pairs, in the order the problems first appear in the rows.
#[derive(Debug, Clone, PartialEq)]
pub struct PairReport {
    /// What was compared.
    pub spec: PairSpec,
    /// Problems with at least one pair.
    pub problems: Vec<ProblemPairs>,
}

/// Geometric mean, minimum and maximum of positive ratios (1, 1, 1 for none).
fn stats(r: &[f64]) -> (f64, f64, f64) {
    if r.is_empty() {
        return (1.0, 1.0, 1.0);
    }
    let g = (r.iter().map(|x| x.ln()).sum::<f64>() / r.len() as f64).exp();
    let lo = r.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (g, lo, hi)
}

/// Pairs the ok kernel rows of `rows` by `spec` (baseline rows and names that are not kernel
/// configurations are ignored; a repeated (kernel, problem) keeps its fastest time).
pub fn pair(rows: &[SweepRow], spec: &PairSpec) -> Result<PairReport, PairError> {
    let mut order: Vec<Problem> = Vec::new();
    let mut times: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    for r in rows.iter().filter(|r| !r.is_baseline()) {
        let Some(t) = r.ok_latency_ms() else { continue };
        if !order.contains(&r.problem) {
            order.push(r.problem);
        }
        let e = times
            .entry(r.problem.to_string())
            .or_default()
            .entry(r.kernel.clone())
            .or_insert(t);
        *e = e.min(t);
    }
    let mut problems = Vec::new();
    for p in order {
        let Some(kernels) = times.get(&p.to_string()) else {
            continue;
        };
        let mut out = ProblemPairs {
            problem: p,
            ratios: Vec::new(),
            best_a: None,
            best_b: None,
        };
        for (name, &t) in kernels {
            let Ok(cfg) = name.parse::<KernelConfig>() else {
                continue;
            };
            let with = |v: &str| {
                let mut c = cfg;
                c.set_field(&spec.field, v).map(|_| c)
            };
            let (as_a, as_b) = (with(&spec.a)?, with(&spec.b)?);
            let better = |best: &mut Option<(String, f64)>| {
                if best.as_ref().is_none_or(|(_, bt)| t < *bt) {
                    *best = Some((name.clone(), t));
                }
            };
            if as_a == cfg {
                better(&mut out.best_a);
            } else if as_b == cfg {
                better(&mut out.best_b);
                if let Some(&ta) = kernels.get(&as_a.to_string()) {
                    out.ratios.push(ta / t);
                }
            }
        }
        if !out.ratios.is_empty() {
            problems.push(out);
        }
    }
    if problems.is_empty() {
        return Err(PairError::NoPairs {
            field: spec.field.clone(),
            a: spec.a.clone(),
            b: spec.b.clone(),
        });
    }
    Ok(PairReport {
        spec: spec.clone(),
        problems,
    })
}

impl PairReport {
    /// Every pair's ratio, over all problems.
    pub fn all_ratios(&self) -> Vec<f64> {
        self.problems
            .iter()
            .flat_map(|p| p.ratios.iter().copied())
            .collect()
    }
}

impl fmt::Display for PairReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let PairSpec { field, a, b } = &self.spec;
        writeln!(
            f,
            "pairs by {field}: each kernel with {field} = {b} against its twin with {field} = {a} (t({a}) / t({b}): above 1 when {b} is faster)"
        )?;
        writeln!(
            f,
            "{:<60} {:>5} {:>8} {:>7} {:>7} {:>12} {:>12}",
            "problem",
            "pairs",
            "geomean",
            "min",
            "max",
            format!("best {a} ms"),
            format!("best {b} ms")
        )?;
        let ms = |x: &Option<(String, f64)>| {
            x.as_ref()
                .map_or_else(|| "-".to_string(), |(_, t)| format!("{t:.4}"))
        };
        for p in &self.problems {
            let (g, lo, hi) = stats(&p.ratios);
            writeln!(
                f,
                "{:<60} {:>5} {:>7.3}x {:>6.2}x {:>6.2}x {:>12} {:>12}",
                p.problem.to_string(),
                p.ratios.len(),
                g,
                lo,
                hi,
                ms(&p.best_a),
                ms(&p.best_b)
            )?;
        }
        let all = self.all_ratios();
        let (g, lo, hi) = stats(&all);
        let wins = all.iter().filter(|&&r| r > 1.0).count();
        write!(
            f,
            "all: {} pairs on {} problems, geomean {g:.3}x (min {lo:.2}x, max {hi:.2}x); {b} faster in {wins} of {}",
            all.len(),
            self.problems.len(),
            all.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::Status;

    fn row(kernel: &str, key: &str, status: Status, lat: Option<f64>) -> SweepRow {
        SweepRow::bare(kernel, key, status, lat)
    }

    const P1: &str = "wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1";
    const P2: &str = "wgrad_bf16_n32_g8_c448_k448_i14x14_f3x3_s1x1_p1x1_d1x1";
    const K: &str = "igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk7d";

    #[test]
    fn pairs_twins_and_ignores_the_rest() {
        let ok = Status::Ok;
        let rows = vec![
            row(&format!("{K}_wgmma_gen"), P1, ok, Some(0.047)),
            row(&format!("{K}_wgmmaws_gen"), P1, ok, Some(0.045)),
            // a repeated row keeps the faster time
            row(&format!("{K}_wgmmaws_gen"), P1, ok, Some(0.050)),
            // a challenger without a measured twin: counted for its best, not paired
            row(
                "igemm_wgrad_bf16_t64x128x64_w4x1_s4_v8x8_gm1_sk7d_wgmmaws_gen",
                P1,
                ok,
                Some(0.044),
            ),
            // a twin that failed: no pair
            row(
                &format!("{K}_wgmma_gen"),
                P2,
                Status::Incorrect,
                Some(0.020),
            ),
            row(&format!("{K}_wgmmaws_gen"), P2, ok, Some(0.018)),
            // neither value of the field, a baseline, a name that is no configuration
            row(&format!("{K}_mma_gen"), P1, ok, Some(0.030)),
            row("cudnn:eng1", P1, ok, Some(0.042)),
            row("ref", P1, ok, Some(1.0)),
        ];
        let spec: PairSpec = "math=wgmma,wgmmaws".parse().unwrap();
        let r = pair(&rows, &spec).unwrap();
        assert_eq!(r.problems.len(), 1, "{r}");
        let p = &r.problems[0];
        assert_eq!(p.problem.to_string(), P1);
        assert_eq!(p.ratios.len(), 1);
        assert!((p.ratios[0] - 0.047 / 0.045).abs() < 1e-12);
        assert_eq!(p.best_a.as_ref().map(|x| x.1), Some(0.047));
        assert_eq!(p.best_b.as_ref().map(|x| x.1), Some(0.044));
        let text = r.to_string();
        assert!(
            text.contains("1 pairs on 1 problems, geomean 1.044x"),
            "{text}"
        );
        assert!(text.contains("wgmmaws faster in 1 of 1"), "{text}");
        // The other way round, the ratio inverts.
        let back = pair(&rows, &"math=wgmmaws,wgmma".parse().unwrap()).unwrap();
        assert!((back.all_ratios()[0] - 0.045 / 0.047).abs() < 1e-12);
        // Numeric fields pair the same way.
        let rows = vec![
            row(&format!("{K}_wgmma_gen"), P1, ok, Some(0.047)),
            row(
                "igemm_wgrad_bf16_t128x128x64_w8x1_s5_v8x8_gm1_sk7d_wgmma_gen",
                P1,
                ok,
                Some(0.0472),
            ),
        ];
        let r = pair(&rows, &"stages=4,5".parse().unwrap()).unwrap();
        assert_eq!(r.all_ratios().len(), 1);
        assert!(r.all_ratios()[0] < 1.0);
    }

    #[test]
    fn bad_requests_are_refused_with_the_reason() {
        for (given, want) in [
            ("math", "expected FIELD=A,B"),
            ("math=wgmma", "expected FIELD=A,B"),
            ("math=wgmma,wgmmaws,mma", "expected FIELD=A,B"),
            ("=a,b", "expected FIELD=A,B"),
            ("colour=red,blue", "unknown kernel field"),
            ("math=wgmma,quantum", "invalid value"),
            ("stages=4,4", "must differ"),
        ] {
            let e = given.parse::<PairSpec>().unwrap_err().to_string();
            assert!(e.contains(want), "{given}: {e}");
        }
        let rows = vec![row(&format!("{K}_wgmma_gen"), P1, Status::Ok, Some(0.047))];
        let e = pair(&rows, &"math=wgmma,wgmmaws".parse().unwrap()).unwrap_err();
        assert!(
            e.to_string().contains("no ok row with math = wgmmaws"),
            "{e}"
        );
    }
}
