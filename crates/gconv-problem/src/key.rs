//! The canonical problem key (`Display`/`FromStr`, round-tripping) and problems files.
//!
//! Grammar: `{dir}_{dtype}_n{N}_g{G}_c{C}_k{K}_i{spatial}_f{filter}_s{stride}_p{pad}_d{dilation}`,
//! lists joined by `x` in D,H,W order. Numbers are plain decimal without sign or leading zeros,
//! so every accepted key prints back to itself.

use crate::error::ProblemError;
use crate::problem::{DType, Direction, Problem, ProblemSpec};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

fn join(v: &[u64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}_{}_n{}_g{}_c{}_k{}_i{}_f{}_s{}_p{}_d{}",
            self.direction,
            self.dtype,
            self.n,
            self.g,
            self.c,
            self.k,
            join(&self.spatial(self.input)),
            join(&self.spatial(self.filter)),
            join(&self.spatial(self.stride)),
            join(&self.spatial(self.pad)),
            join(&self.spatial(self.dilation)),
        )
    }
}

fn malformed(key: &str, reason: impl Into<String>) -> ProblemError {
    ProblemError::Malformed {
        key: key.to_string(),
        reason: reason.into(),
    }
}

/// Parses a canonical decimal number: optional `-`, digits, no leading zeros.
fn number(key: &str, field: &str, s: &str) -> Result<i64, ProblemError> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(malformed(
            key,
            format!("field {field} has value {s:?}, expected a decimal number"),
        ));
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return Err(malformed(
            key,
            format!("field {field} has value {s:?} with a leading zero"),
        ));
    }
    if neg && digits == "0" {
        return Err(malformed(key, format!("field {field} has value {s:?}")));
    }
    let v: i64 = digits.parse().map_err(|_| {
        malformed(
            key,
            format!("field {field} has value {s:?}, which is out of range"),
        )
    })?;
    Ok(if neg { -v } else { v })
}

fn list(key: &str, field: &str, s: &str) -> Result<Vec<i64>, ProblemError> {
    s.split('x').map(|t| number(key, field, t)).collect()
}

impl FromStr for Problem {
    type Err = ProblemError;

    fn from_str(key: &str) -> Result<Problem, ProblemError> {
        let parts: Vec<&str> = key.split('_').collect();
        if parts.len() != 11 {
            return Err(malformed(
                key,
                format!("expected 11 '_'-separated fields, found {}", parts.len()),
            ));
        }
        let direction = Direction::from_token(parts[0]).ok_or_else(|| {
            malformed(
                key,
                format!(
                    "unknown direction {:?} (expected fwd, dgrad or wgrad)",
                    parts[0]
                ),
            )
        })?;
        let dtype = DType::from_token(parts[1]).ok_or_else(|| {
            malformed(
                key,
                format!("unknown dtype {:?} (expected f32, f16 or bf16)", parts[1]),
            )
        })?;
        let prefixes = ["n", "g", "c", "k", "i", "f", "s", "p", "d"];
        let mut values: Vec<&str> = Vec::with_capacity(9);
        for (part, prefix) in parts[2..].iter().zip(prefixes) {
            let v = part.strip_prefix(prefix).ok_or_else(|| {
                malformed(key, format!("field {part:?} should start with {prefix:?}"))
            })?;
            values.push(v);
        }
        let spec = ProblemSpec {
            direction,
            dtype,
            n: number(key, "n", values[0])?,
            g: number(key, "g", values[1])?,
            c: number(key, "c", values[2])?,
            k: number(key, "k", values[3])?,
            input: list(key, "i", values[4])?,
            filter: list(key, "f", values[5])?,
            stride: list(key, "s", values[6])?,
            pad: list(key, "p", values[7])?,
            dilation: list(key, "d", values[8])?,
        };
        spec.build()
    }
}

impl Serialize for Problem {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Problem {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Problem, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Parses the text of a problems file: one key per line, `#` starts a comment, blank lines are
/// skipped. Errors name the source and the 1-based line. An empty set is an error.
pub fn parse_problems_text(source_name: &str, text: &str) -> Result<Vec<Problem>, ProblemError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let p: Problem = content.parse().map_err(|e| ProblemError::InFile {
            source_name: source_name.to_string(),
            line: i + 1,
            error: Box::new(e),
        })?;
        out.push(p);
    }
    if out.is_empty() {
        return Err(ProblemError::EmptyFile {
            source_name: source_name.to_string(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_examples() {
        for k in [
            "fwd_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1",
            "fwd_f32_n1_g2_c4_k6_i5x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
            "wgrad_f16_n2_g8_c8_k8_i33_f5_s2_p2_d2",
            "dgrad_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1",
        ] {
            let p: Problem = k.parse().unwrap();
            assert_eq!(p.to_string(), k);
        }
    }

    #[test]
    fn rejects_malformed_keys() {
        for (k, needle) in [
            ("", "11"),
            ("fwd_bf16", "11"),
            ("bwd_bf16_n1_g1_c1_k1_i3_f3_s1_p1_d1", "direction"),
            ("fwd_f64_n1_g1_c1_k1_i3_f3_s1_p1_d1", "dtype"),
            ("fwd_f32_x1_g1_c1_k1_i3_f3_s1_p1_d1", "\"n\""),
            ("fwd_f32_n01_g1_c1_k1_i3_f3_s1_p1_d1", "leading zero"),
            ("fwd_f32_n+1_g1_c1_k1_i3_f3_s1_p1_d1", "decimal"),
            ("fwd_f32_n1_g1_c1_k1_i3x_f3_s1_p1_d1", "decimal"),
            (
                "fwd_f32_n1_g1_c1_k1_i3_f3_s1_p1_d99999999999999999999",
                "range",
            ),
            ("fwd_f32_n1_g1_c1_k1_i3_f3_s1_p-0_d1", "-0"),
        ] {
            let e = k.parse::<Problem>().unwrap_err();
            assert!(matches!(e, ProblemError::Malformed { .. }), "{k}: {e:?}");
            assert!(e.to_string().contains(needle), "{k}: {e}");
        }
        // Well-formed but invalid: typed validation errors.
        assert!(matches!(
            "fwd_bf16_n2_g3_c16_k32_i9x9_f3x3_s1x1_p1x1_d1x1".parse::<Problem>(),
            Err(ProblemError::NotDivisible { field: "C", .. })
        ));
        assert!(matches!(
            "fwd_bf16_n-2_g4_c16_k32_i9x9_f3x3_s1x1_p1x1_d1x1".parse::<Problem>(),
            Err(ProblemError::NonPositive { .. })
        ));
        assert!(matches!(
            "fwd_bf16_n2_g4_c16_k32_i9x9_f3_s1x1_p1x1_d1x1".parse::<Problem>(),
            Err(ProblemError::Rank {
                field: "filter",
                ..
            })
        ));
    }

    #[test]
    fn problems_file() {
        let text = "# header\n\nfwd_f32_n1_g1_c1_k1_i3_f3_s1_p1_d1  # trailing\n  wgrad_f16_n2_g8_c8_k8_i33_f5_s2_p2_d2\n";
        let ps = parse_problems_text("t.txt", text).unwrap();
        assert_eq!(ps.len(), 2);
        let e = parse_problems_text("t.txt", "# c\nfwd_f32_n1\n").unwrap_err();
        assert!(e.to_string().starts_with("t.txt:2:"), "{e}");
        assert!(matches!(
            parse_problems_text("e.txt", "# only comments\n"),
            Err(ProblemError::EmptyFile { .. })
        ));
    }

    #[test]
    fn serde_as_key() {
        let p: Problem = "dgrad_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1"
            .parse()
            .unwrap();
        let j = serde_json_like(&p);
        assert_eq!(j, "dgrad_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1");
    }

    fn serde_json_like(p: &Problem) -> String {
        // Serialize through the Display impl that `Serialize` uses.
        format!("{p}")
    }

    fn arb_problem() -> impl Strategy<Value = Problem> {
        (
            0usize..3,
            0usize..3,
            1usize..=3,
            1i64..5,
            1i64..9,
            1i64..5,
            1i64..5,
            proptest::collection::vec((1i64..12, 1i64..5, 1i64..4, 0i64..3, 1i64..3), 3),
        )
            .prop_filter_map("invalid geometry", |(d, t, rank, n, g, cm, km, sp)| {
                let sp = &sp[..rank];
                Problem::new(
                    Direction::ALL[d],
                    DType::ALL[t],
                    n,
                    g,
                    g * cm,
                    g * km,
                    &sp.iter().map(|s| s.0).collect::<Vec<_>>(),
                    &sp.iter().map(|s| s.1).collect::<Vec<_>>(),
                    &sp.iter().map(|s| s.2).collect::<Vec<_>>(),
                    &sp.iter().map(|s| s.3).collect::<Vec<_>>(),
                    &sp.iter().map(|s| s.4).collect::<Vec<_>>(),
                )
                .ok()
            })
    }

    proptest! {
        #[test]
        fn key_round_trips(p in arb_problem()) {
            let s = p.to_string();
            let q: Problem = s.parse().unwrap();
            prop_assert_eq!(q, p);
            prop_assert_eq!(q.to_string(), s);
        }

        #[test]
        fn accepted_strings_print_back(s in "(fwd|dgrad|wgrad)_(f32|f16|bf16)_n[0-9]{1,2}_g[0-9]{1,2}_c[0-9]{1,2}_k[0-9]{1,2}_i[0-9]{1,2}(x[0-9]{1,2})?_f[0-9]_s[0-9]_p[0-9]_d[0-9]") {
            if let Ok(p) = s.parse::<Problem>() {
                prop_assert_eq!(p.to_string(), s);
            }
        }
    }
}
