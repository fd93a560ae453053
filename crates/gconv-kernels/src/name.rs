//! The canonical kernel name: `Display` and `FromStr` for [`KernelConfig`], total and
//! round-tripping (`print(parse(s)) == s` for every accepted `s`, `parse(print(c)) == c` for
//! every config, valid or not), so that a name can key the compile cache, CSV rows, golden files
//! and test names. Whether a named config is a kernel at all is [`crate::admit::validate`]'s
//! business, not the grammar's.
//!
//! # Grammar
//!
//! Eleven `_`-separated tokens, always all present, in this order:
//!
//! ```text
//! {family}_{dir}_{dtype}_t{tile_m}x{tile_n}x{tile_k}_w{warps_m}x{warps_n}_s{stages}
//!     _v{vec_a}x{vec_b}_gm{group_merge}_sk{split_k}{d|a|c}_{math}_{fast_path}
//! ```
//!
//! - `family`: `igemm` | `direct`; `dir`: `fwd` | `dgrad` | `wgrad`; `dtype`: `f32` | `f16` | `bf16`
//! - numbers are plain decimal (no sign, no leading zeros), so `print(parse(s)) == s`
//! - `sk{n}d` = deterministic split-K reduction (f32 workspace), `sk{n}a` = atomic, `sk{n}c` =
//!   deterministic through a thread-block cluster's shared memory (no workspace); `sk0…` leaves
//!   the degree to the family's rule (backward weight), and the admitted kernel's name carries
//!   the degree that runs
//! - `math`: `mma` | `simt` | `tf32` (grammar only) | `wgmma` | `wgmmaws` (warp-specialised wgmma)
//!   | `wgmmatma` (warp-specialised wgmma fed by TMA box copies)
//! - `fast_path`: `gen` (general) | `pw` (pointwise: 1×1 filter, stride 1, no padding) | `halo`
//!   (forward and backward data at stride 1 on wgmma: one staged halo of the A operand read at
//!   every tap's shift)
//!
//! Example: `igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen`. The fields keep their
//! names in every family; what they mean per family is documented in the family modules
//! (`crate::direct::DirectView` reads a direct config in its own words).

use crate::config::{one_of, Family, FastPath, KernelConfig, Math, SplitKMode};
use gconv_problem::{DType, Direction};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

impl fmt::Display for KernelConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}_{}_{}_t{}x{}x{}_w{}x{}_s{}_v{}x{}_gm{}_sk{}{}_{}_{}",
            self.family.token(),
            self.direction.token(),
            self.dtype.token(),
            self.tile_m,
            self.tile_n,
            self.tile_k,
            self.warps_m,
            self.warps_n,
            self.stages,
            self.vec_a,
            self.vec_b,
            self.group_merge,
            self.split_k,
            self.split_k_mode.token(),
            self.math.token(),
            self.fast_path.token(),
        )
    }
}

/// A kernel name that does not follow the grammar.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NameError {
    /// Not eleven `_`-separated tokens.
    #[error("kernel name {name:?} has {found} '_'-separated tokens, expected 11 ({GRAMMAR})")]
    TokenCount {
        /// The name.
        name: String,
        /// Tokens found.
        found: usize,
    },
    /// A token that is not one of the accepted words for its position.
    #[error("kernel name {name:?}: unknown {field} token {token:?} (expected {expected})")]
    UnknownToken {
        /// The name.
        name: String,
        /// Which field the position holds.
        field: &'static str,
        /// The token.
        token: String,
        /// Accepted values.
        expected: String,
    },
    /// A numeric part is missing, malformed or has a leading zero.
    #[error("kernel name {name:?}: bad number {token:?} in the {field} token (plain decimal, no leading zeros)")]
    BadNumber {
        /// The name.
        name: String,
        /// Which field.
        field: &'static str,
        /// The offending text.
        token: String,
    },
    /// A well-formed number too large for any field (above `u32::MAX`).
    #[error(
        "kernel name {name:?}: number {token} in the {field} token is out of range (at most {})",
        u32::MAX
    )]
    NumberOutOfRange {
        /// The name.
        name: String,
        /// Which field.
        field: &'static str,
        /// The offending text.
        token: String,
    },
}

const GRAMMAR: &str = "{family}_{dir}_{dtype}_t{M}x{N}x{K}_w{WM}x{WN}_s{stages}_v{A}x{B}_gm{gm}_sk{n}{d|a|c}_{math}_{gen|pw|halo}";

fn parse_num(name: &str, field: &'static str, s: &str) -> Result<u32, NameError> {
    let err = || NameError::BadNumber {
        name: name.to_string(),
        field,
        token: s.to_string(),
    };
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0'))
    {
        return Err(err());
    }
    // Only digits remain, so the one way to fail is a number above u32::MAX.
    s.parse::<u32>().map_err(|_| NameError::NumberOutOfRange {
        name: name.to_string(),
        field,
        token: s.to_string(),
    })
}

fn parse_list<const L: usize>(
    name: &str,
    field: &'static str,
    tok: &str,
    prefix: &str,
) -> Result<[u32; L], NameError> {
    let body = tok
        .strip_prefix(prefix)
        .ok_or_else(|| NameError::UnknownToken {
            name: name.to_string(),
            field,
            token: tok.to_string(),
            expected: match L {
                3 => "t{M}x{N}x{K}",
                _ => "a list such as w2x2 / v8x8",
            }
            .to_string(),
        })?;
    let parts: Vec<&str> = body.split('x').collect();
    if parts.len() != L {
        return Err(NameError::BadNumber {
            name: name.to_string(),
            field,
            token: tok.to_string(),
        });
    }
    let mut out = [0u32; L];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = parse_num(name, field, p)?;
    }
    Ok(out)
}

impl FromStr for KernelConfig {
    type Err = NameError;

    fn from_str(name: &str) -> Result<KernelConfig, NameError> {
        let t: Vec<&str> = name.split('_').collect();
        if t.len() != 11 {
            return Err(NameError::TokenCount {
                name: name.to_string(),
                found: t.len(),
            });
        }
        let unknown =
            |field: &'static str, token: &str, expected: String| NameError::UnknownToken {
                name: name.to_string(),
                field,
                token: token.to_string(),
                expected,
            };
        // The accepted tokens of an enum field, in its type's `ALL` order.
        let tokens = |words: &[&'static str]| one_of(words.iter().map(|w| w.to_string()));
        let split_forms = || one_of(SplitKMode::ALL.map(|m| format!("sk{{n}}{}", m.token())));
        let family = Family::ALL
            .into_iter()
            .find(|f| f.token() == t[0])
            .ok_or_else(|| unknown("family", t[0], tokens(&Family::ALL.map(|f| f.token()))))?;
        let direction = Direction::from_token(t[1]).ok_or_else(|| {
            unknown(
                "direction",
                t[1],
                tokens(&Direction::ALL.map(|d| d.token())),
            )
        })?;
        let dtype = DType::from_token(t[2])
            .ok_or_else(|| unknown("dtype", t[2], tokens(&DType::ALL.map(|d| d.token()))))?;
        let [tile_m, tile_n, tile_k] = parse_list::<3>(name, "tile", t[3], "t")?;
        let [warps_m, warps_n] = parse_list::<2>(name, "warps", t[4], "w")?;
        let stages = t[5]
            .strip_prefix('s')
            .ok_or_else(|| unknown("stages", t[5], "s{stages}".to_string()))
            .and_then(|s| parse_num(name, "stages", s))?;
        let [vec_a, vec_b] = parse_list::<2>(name, "vec", t[6], "v")?;
        let group_merge = t[7]
            .strip_prefix("gm")
            .ok_or_else(|| unknown("group_merge", t[7], "gm{n}".to_string()))
            .and_then(|s| parse_num(name, "group_merge", s))?;
        let sk = t[8]
            .strip_prefix("sk")
            .ok_or_else(|| unknown("split_k", t[8], split_forms()))?;
        let (digits, mode) = match sk.char_indices().last() {
            Some((i, 'd')) => (&sk[..i], SplitKMode::Deterministic),
            Some((i, 'a')) => (&sk[..i], SplitKMode::Atomic),
            Some((i, 'c')) => (&sk[..i], SplitKMode::Cluster),
            _ => return Err(unknown("split_k", t[8], split_forms())),
        };
        let split_k = parse_num(name, "split_k", digits)?;
        let math = Math::ALL
            .into_iter()
            .find(|m| m.token() == t[9])
            .ok_or_else(|| unknown("math", t[9], tokens(&Math::ALL.map(|m| m.token()))))?;
        let fast_path = FastPath::ALL
            .into_iter()
            .find(|f| f.token() == t[10])
            .ok_or_else(|| {
                unknown(
                    "fast_path",
                    t[10],
                    tokens(&FastPath::ALL.map(|f| f.token())),
                )
            })?;
        Ok(KernelConfig {
            family,
            direction,
            dtype,
            tile_m,
            tile_n,
            tile_k,
            warps_m,
            warps_n,
            stages,
            vec_a,
            vec_b,
            group_merge,
            split_k,
            split_k_mode: mode,
            math,
            fast_path,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The lists of valid tokens in the parse messages (kernel names and trait-config fields)
    /// are written by hand: every token of every enum field must be in them (a new math path
    /// or fast path once left both lists stale).
    #[test]
    fn parse_messages_list_every_token() {
        use crate::config::{Family, FastPath, Math, SplitKMode};
        use gconv_problem::{DType, Direction};
        let good = "igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen";
        // (field, its token index in the name, every valid token)
        let fields: [(&str, usize, Vec<&str>); 5] = [
            ("family", 0, Family::ALL.iter().map(|f| f.token()).collect()),
            (
                "direction",
                1,
                Direction::ALL.iter().map(|d| d.token()).collect(),
            ),
            ("dtype", 2, DType::ALL.iter().map(|d| d.token()).collect()),
            ("math", 9, Math::ALL.iter().map(|m| m.token()).collect()),
            (
                "fast_path",
                10,
                FastPath::ALL.iter().map(|f| f.token()).collect(),
            ),
        ];
        for (field, at, tokens) in fields {
            let mut t: Vec<&str> = good.split('_').collect();
            t[at] = "bogus";
            let e = t.join("_").parse::<KernelConfig>().unwrap_err().to_string();
            let mut cfg: KernelConfig = good.parse().expect("a good name");
            let f = cfg.set_field(field, "bogus").unwrap_err().to_string();
            for tok in &tokens {
                assert!(e.contains(tok), "name, {field}: {tok:?} missing from {e}");
                assert!(
                    f.contains(tok),
                    "trait config, {field}: {tok:?} missing from {f}"
                );
            }
        }
        let mut cfg: KernelConfig = good.parse().expect("a good name");
        let f = cfg
            .set_field("split_k_mode", "bogus")
            .unwrap_err()
            .to_string();
        for m in SplitKMode::ALL {
            assert!(
                f.contains(m.long_token()),
                "split_k_mode: {m:?} missing from {f}"
            );
        }
    }

    #[test]
    fn parse_errors_quote_the_token() {
        let e = "igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma"
            .parse::<KernelConfig>()
            .unwrap_err();
        assert!(matches!(e, NameError::TokenCount { found: 10, .. }), "{e}");
        let e = "igemm_fwd_bf17_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen"
            .parse::<KernelConfig>()
            .unwrap_err();
        assert!(
            matches!(e, NameError::UnknownToken { field: "dtype", ref token, .. } if token == "bf17")
        );
        assert!(e.to_string().contains("\"bf17\""), "{e}");
        let e = "igemm_fwd_bf16_t128x128_w2x2_s3_v8x8_gm1_sk1d_mma_gen"
            .parse::<KernelConfig>()
            .unwrap_err();
        assert!(
            matches!(e, NameError::BadNumber { field: "tile", .. }),
            "{e}"
        );
        let e = "igemm_fwd_bf16_t4294967296x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen"
            .parse::<KernelConfig>()
            .unwrap_err();
        assert!(
            matches!(e, NameError::NumberOutOfRange { field: "tile", ref token, .. } if token == "4294967296"),
            "{e}"
        );
        assert!(e.to_string().contains("out of range"), "{e}");
        let e = "igemm_fwd_bf16_t128x128x32_w2x2_s03_v8x8_gm1_sk1d_mma_gen"
            .parse::<KernelConfig>()
            .unwrap_err();
        assert!(
            matches!(
                e,
                NameError::BadNumber {
                    field: "stages",
                    ..
                }
            ),
            "{e}"
        );
        let e = "igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1x_mma_gen"
            .parse::<KernelConfig>()
            .unwrap_err();
        assert!(
            matches!(
                e,
                NameError::UnknownToken {
                    field: "split_k",
                    ..
                }
            ),
            "{e}"
        );
        let e = "igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_fast"
            .parse::<KernelConfig>()
            .unwrap_err();
        assert!(
            matches!(e, NameError::UnknownToken { field: "fast_path", ref token, .. } if token == "fast")
        );
        let e = "igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk99999999999d_mma_gen"
            .parse::<KernelConfig>()
            .unwrap_err();
        assert!(
            matches!(
                e,
                NameError::NumberOutOfRange {
                    field: "split_k",
                    ..
                }
            ),
            "{e}"
        );
    }

    fn arb_config() -> impl Strategy<Value = KernelConfig> {
        (
            (
                0usize..Family::ALL.len(),
                0usize..Direction::ALL.len(),
                0usize..DType::ALL.len(),
            ),
            (1u32..300, 1u32..300, 1u32..100),
            (0u32..10, 0u32..10, 0u32..8),
            (0u32..20, 0u32..20, 0u32..40, 0u32..100),
            (
                0usize..SplitKMode::ALL.len(),
                0usize..Math::ALL.len(),
                0usize..FastPath::ALL.len(),
            ),
        )
            .prop_map(|(a, b, c, d, e)| KernelConfig {
                family: Family::ALL[a.0],
                direction: Direction::ALL[a.1],
                dtype: DType::ALL[a.2],
                tile_m: b.0,
                tile_n: b.1,
                tile_k: b.2,
                warps_m: c.0,
                warps_n: c.1,
                stages: c.2,
                vec_a: d.0,
                vec_b: d.1,
                group_merge: d.2,
                split_k: d.3,
                split_k_mode: SplitKMode::ALL[e.0],
                math: Math::ALL[e.1],
                fast_path: FastPath::ALL[e.2],
            })
    }

    proptest! {
        #[test]
        fn names_round_trip(c in arb_config()) {
            let name = c.to_string();
            prop_assert_eq!(name.parse::<KernelConfig>(), Ok(c));
        }

        #[test]
        fn distinct_configs_have_distinct_names(a in arb_config(), b in arb_config()) {
            if a != b {
                prop_assert_ne!(a.to_string(), b.to_string());
            }
        }

        #[test]
        fn garbage_never_panics(s in "[a-z0-9_x]{0,80}") {
            let _ = s.parse::<KernelConfig>();
        }
    }
}
