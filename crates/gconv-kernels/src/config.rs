//! Kernel identity: [`KernelConfig`] (plain data, every field explicit), the two gates
//! [`validate`] (is it a kernel at all) and [`can_implement`] (does it run this problem), the
//! canonical name (`Display` / `FromStr`, round-tripping), field accessors for the tile engine's
//! filter language, the default forward pool and the rule-based [`auto_select`].
//!
//! # One gate
//!
//! Enumeration, code generation ([`crate::emit`], routing to [`crate::igemm::emit`] and
//! [`crate::direct::emit`]), the CLI and dispatch all call
//! [`validate`] and [`can_implement`]; nothing else decides whether a config is usable, and no
//! config is ever silently rewritten. Vector widths (`vec_a`, `vec_b`) are *caps*: the one place
//! that clamps them to what a problem's channels allow is [`effective_vectors`].
//!
//! # Name grammar
//!
//! Eleven `_`-separated tokens, always all present, in this order:
//!
//! ```text
//! {family}_{dir}_{dtype}_t{tile_m}x{tile_n}x{tile_k}_w{warps_m}x{warps_n}_s{stages}
//!     _v{vec_a}x{vec_b}_gm{group_merge}_sk{split_k}{d|a}_{math}_{fast_path}
//! ```
//!
//! - `family`: `igemm` | `direct`; `dir`: `fwd` | `dgrad` | `wgrad`; `dtype`: `f32` | `f16` | `bf16`
//! - numbers are plain decimal (no sign, no leading zeros), so `print(parse(s)) == s`
//! - `sk{n}d` = deterministic split-K reduction (f32 workspace), `sk{n}a` = atomic
//! - `math`: `mma` (`mma.sync` tensor cores, f16/bf16) | `simt` (CUDA-core FFMA; the direct
//!   family's f16/bf16 path too) | `tf32` (grammar only) | `wgmma` (Hopper warpgroup MMA,
//!   f16/bf16, igemm only, compiled for sm_90a: [`required_arch`])
//! - `fast_path`: `gen` (general) | `pw` (pointwise: 1×1 filter, stride 1, no padding)
//!
//! Example: `igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen`.

use crate::source::Arch;
use gconv_problem::{DType, Direction, Problem, TensorRole};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// Kernel family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// Implicit GEMM (tensor cores for f16/bf16, FFMA for f32).
    Igemm,
    /// CUDA-core direct convolution (depthwise, tiny C/G).
    Direct,
}

/// How split-K partial sums are reduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SplitKMode {
    /// Two-stage: f32 partials in a workspace, reduced in a fixed order (bitwise reproducible).
    Deterministic,
    /// f32 atomics into a workspace (order of additions not fixed).
    Atomic,
}

/// The math units a kernel uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Math {
    /// `mma.sync` m16n8k16 on tensor cores, f32 accumulation (f16/bf16).
    Mma,
    /// CUDA-core FFMA (f32).
    Simt,
    /// `mma.sync` m16n8k8 TF32 (f32 data rounded to tf32; explicit opt-in).
    Tf32,
    /// Hopper `wgmma.mma_async` m64nNk16 (warpgroup MMA, operands read by the tensor cores
    /// from 128-byte-swizzled shared memory, f32 accumulation; f16/bf16; compiled for sm_90a).
    Wgmma,
}

/// Specialised code paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FastPath {
    /// Any filter, stride, padding, dilation.
    General,
    /// 1×1 filter, stride 1, no padding: A is a plain row-major matrix.
    Pointwise,
}

mod token_serde {
    //! Direction and dtype serialised as their key tokens (`fwd`, `bf16`).
    use gconv_problem::{DType, Direction};
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub mod direction {
        use super::*;
        pub fn serialize<S: Serializer>(d: &Direction, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(d.token())
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Direction, D::Error> {
            let s = String::deserialize(d)?;
            Direction::from_token(&s)
                .ok_or_else(|| D::Error::custom(format!("unknown direction {s:?}")))
        }
    }

    pub mod dtype {
        use super::*;
        pub fn serialize<S: Serializer>(d: &DType, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(d.token())
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DType, D::Error> {
            let s = String::deserialize(d)?;
            DType::from_token(&s).ok_or_else(|| D::Error::custom(format!("unknown dtype {s:?}")))
        }
    }
}

/// One kernel: plain data, every field explicit, named canonically by `Display`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KernelConfig {
    /// Kernel family.
    pub family: Family,
    /// Convolution direction.
    #[serde(with = "token_serde::direction")]
    pub direction: Direction,
    /// Element type of all tensors.
    #[serde(with = "token_serde::dtype")]
    pub dtype: DType,
    /// Block tile along GEMM-M (output pixels).
    pub tile_m: u32,
    /// Block tile along GEMM-N (output channels of the merged groups).
    pub tile_n: u32,
    /// Block tile along GEMM-K (input channels of one filter tap).
    pub tile_k: u32,
    /// Warps along M.
    pub warps_m: u32,
    /// Warps along N.
    pub warps_n: u32,
    /// Shared-memory pipeline stages (2..=5).
    pub stages: u32,
    /// Cap on the A (activation) load vector width, in elements.
    pub vec_a: u32,
    /// Cap on the B (weight) load vector width, in elements.
    pub vec_b: u32,
    /// Group merge `gm`: adjacent groups sharing one CTA tile (block-diagonal weights).
    pub group_merge: u32,
    /// Split-K degree (1 = none).
    pub split_k: u32,
    /// Split-K reduction.
    pub split_k_mode: SplitKMode,
    /// Math units.
    pub math: Math,
    /// Specialised path.
    pub fast_path: FastPath,
}

/// Field names accepted by [`KernelConfig::field_value`] and [`KernelConfig::set_field`], in
/// name order.
pub const FIELDS: &[&str] = &[
    "family",
    "direction",
    "dtype",
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
    "split_k_mode",
    "math",
    "fast_path",
];

impl Family {
    /// All families, in index order.
    pub const ALL: [Family; 2] = [Family::Igemm, Family::Direct];
    /// Name token.
    pub fn token(self) -> &'static str {
        match self {
            Family::Igemm => "igemm",
            Family::Direct => "direct",
        }
    }
}

impl SplitKMode {
    /// All modes, in index order.
    pub const ALL: [SplitKMode; 2] = [SplitKMode::Deterministic, SplitKMode::Atomic];
    /// Name token (the suffix letter after `sk{n}`).
    pub fn token(self) -> &'static str {
        match self {
            SplitKMode::Deterministic => "d",
            SplitKMode::Atomic => "a",
        }
    }
    /// Long token used by [`KernelConfig::set_field`] and serde.
    pub fn long_token(self) -> &'static str {
        match self {
            SplitKMode::Deterministic => "deterministic",
            SplitKMode::Atomic => "atomic",
        }
    }
}

impl Math {
    /// All math kinds, in index order.
    pub const ALL: [Math; 4] = [Math::Mma, Math::Simt, Math::Tf32, Math::Wgmma];
    /// Name token.
    pub fn token(self) -> &'static str {
        match self {
            Math::Mma => "mma",
            Math::Simt => "simt",
            Math::Tf32 => "tf32",
            Math::Wgmma => "wgmma",
        }
    }
}

impl FastPath {
    /// All fast paths, in index order.
    pub const ALL: [FastPath; 2] = [FastPath::General, FastPath::Pointwise];
    /// Name token.
    pub fn token(self) -> &'static str {
        match self {
            FastPath::General => "gen",
            FastPath::Pointwise => "pw",
        }
    }
    /// Long token used by [`KernelConfig::set_field`] and serde.
    pub fn long_token(self) -> &'static str {
        match self {
            FastPath::General => "general",
            FastPath::Pointwise => "pointwise",
        }
    }
}

/// The natural math path of a dtype (f16/bf16 → `Mma`, f32 → `Simt`).
pub fn default_math(dtype: DType) -> Math {
    match dtype {
        DType::F32 => Math::Simt,
        DType::F16 | DType::Bf16 => Math::Mma,
    }
}

/// A field could not be read or set by name.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FieldError {
    /// No such field.
    #[error("unknown kernel field {field:?} (known: {known})", known = FIELDS.join(", "))]
    UnknownField {
        /// The name given.
        field: String,
    },
    /// The value does not parse for the field.
    #[error("invalid value {value:?} for kernel field {field:?}: expected {expected}")]
    BadValue {
        /// The field.
        field: String,
        /// The value given.
        value: String,
        /// What would have been accepted.
        expected: &'static str,
    },
}

impl Default for KernelConfig {
    /// `igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen`: the baseline every trait
    /// config field falls back to.
    fn default() -> Self {
        KernelConfig::baseline(Direction::Fwd, DType::Bf16)
    }
}

impl KernelConfig {
    /// A 128×128×32, 2×2 warps, 3-stage igemm config for a direction and dtype, with the dtype's
    /// natural math path and maximal vector caps.
    pub fn baseline(direction: Direction, dtype: DType) -> KernelConfig {
        let vec = (16 / dtype.size_bytes()) as u32;
        let f32_simt = dtype == DType::F32;
        KernelConfig {
            family: Family::Igemm,
            direction,
            dtype,
            tile_m: 128,
            tile_n: 128,
            tile_k: if f32_simt { 16 } else { 32 },
            warps_m: if f32_simt { 4 } else { 2 },
            warps_n: 2,
            stages: 3,
            vec_a: vec,
            vec_b: vec,
            group_merge: 1,
            split_k: 1,
            split_k_mode: SplitKMode::Deterministic,
            math: default_math(dtype),
            fast_path: FastPath::General,
        }
    }

    /// Threads per CTA.
    pub fn threads(&self) -> u32 {
        32 * self.warps_m * self.warps_n
    }

    /// Warp tile (M, N).
    pub fn warp_tile(&self) -> (u32, u32) {
        (
            self.tile_m / self.warps_m.max(1),
            self.tile_n / self.warps_n.max(1),
        )
    }

    /// Numeric value of a field for the tile engine's filter language: numbers as themselves,
    /// enums as their index in the type's `ALL` order (direction and dtype as in
    /// `Direction::ALL` / `DType::ALL`). `None` for an unknown field.
    pub fn field_value(&self, field: &str) -> Option<i64> {
        fn idx<T: PartialEq>(all: &[T], v: &T) -> i64 {
            all.iter().position(|x| x == v).unwrap_or(0) as i64
        }
        Some(match field {
            "family" => idx(&Family::ALL, &self.family),
            "direction" => idx(&Direction::ALL, &self.direction),
            "dtype" => idx(&DType::ALL, &self.dtype),
            "tile_m" => self.tile_m as i64,
            "tile_n" => self.tile_n as i64,
            "tile_k" => self.tile_k as i64,
            "warps_m" => self.warps_m as i64,
            "warps_n" => self.warps_n as i64,
            "stages" => self.stages as i64,
            "vec_a" => self.vec_a as i64,
            "vec_b" => self.vec_b as i64,
            "group_merge" => self.group_merge as i64,
            "split_k" => self.split_k as i64,
            "split_k_mode" => idx(&SplitKMode::ALL, &self.split_k_mode),
            "math" => idx(&Math::ALL, &self.math),
            "fast_path" => idx(&FastPath::ALL, &self.fast_path),
            _ => return None,
        })
    }

    /// Sets a field from its textual value: numbers in decimal, enums by token (`igemm`,
    /// `fwd`, `bf16`, `deterministic`/`d`, `mma`, `general`/`gen`, ...) or by index.
    pub fn set_field(&mut self, field: &str, value: &str) -> Result<(), FieldError> {
        fn bad(field: &str, value: &str, expected: &'static str) -> FieldError {
            FieldError::BadValue {
                field: field.to_string(),
                value: value.to_string(),
                expected,
            }
        }
        fn pick<T: Copy>(
            all: &[T],
            tokens: &dyn Fn(T) -> [&'static str; 2],
            field: &str,
            value: &str,
            expected: &'static str,
        ) -> Result<T, FieldError> {
            if let Ok(i) = value.parse::<usize>() {
                return all
                    .get(i)
                    .copied()
                    .ok_or_else(|| bad(field, value, expected));
            }
            all.iter()
                .copied()
                .find(|&v| tokens(v).contains(&value))
                .ok_or_else(|| bad(field, value, expected))
        }
        let num = |expected| -> Result<u32, FieldError> {
            value
                .parse::<u32>()
                .map_err(|_| bad(field, value, expected))
        };
        match field {
            "family" => {
                self.family = pick(
                    &Family::ALL,
                    &|f: Family| [f.token(), f.token()],
                    field,
                    value,
                    "igemm or direct",
                )?
            }
            "direction" => {
                self.direction = pick(
                    &Direction::ALL,
                    &|d: Direction| [d.token(), d.token()],
                    field,
                    value,
                    "fwd, dgrad or wgrad",
                )?
            }
            "dtype" => {
                self.dtype = pick(
                    &DType::ALL,
                    &|d: DType| [d.token(), d.token()],
                    field,
                    value,
                    "f32, f16 or bf16",
                )?
            }
            "tile_m" => self.tile_m = num("a non-negative integer")?,
            "tile_n" => self.tile_n = num("a non-negative integer")?,
            "tile_k" => self.tile_k = num("a non-negative integer")?,
            "warps_m" => self.warps_m = num("a non-negative integer")?,
            "warps_n" => self.warps_n = num("a non-negative integer")?,
            "stages" => self.stages = num("a non-negative integer")?,
            "vec_a" => self.vec_a = num("a non-negative integer")?,
            "vec_b" => self.vec_b = num("a non-negative integer")?,
            "group_merge" => self.group_merge = num("a non-negative integer")?,
            "split_k" => self.split_k = num("a non-negative integer")?,
            "split_k_mode" => {
                self.split_k_mode = pick(
                    &SplitKMode::ALL,
                    &|m: SplitKMode| [m.token(), m.long_token()],
                    field,
                    value,
                    "deterministic (d) or atomic (a)",
                )?
            }
            "math" => {
                self.math = pick(
                    &Math::ALL,
                    &|m: Math| [m.token(), m.token()],
                    field,
                    value,
                    "mma, simt, tf32 or wgmma",
                )?
            }
            "fast_path" => {
                self.fast_path = pick(
                    &FastPath::ALL,
                    &|f: FastPath| [f.token(), f.long_token()],
                    field,
                    value,
                    "general (gen) or pointwise (pw)",
                )?
            }
            _ => {
                return Err(FieldError::UnknownField {
                    field: field.to_string(),
                })
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------

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
        expected: &'static str,
    },
    /// A numeric part is missing, malformed, out of range or has a leading zero.
    #[error("kernel name {name:?}: bad number {token:?} in the {field} token (plain decimal, no leading zeros)")]
    BadNumber {
        /// The name.
        name: String,
        /// Which field.
        field: &'static str,
        /// The offending text.
        token: String,
    },
}

const GRAMMAR: &str = "{family}_{dir}_{dtype}_t{M}x{N}x{K}_w{WM}x{WN}_s{stages}_v{A}x{B}_gm{gm}_sk{n}{d|a}_{math}_{gen|pw}";

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
    s.parse::<u32>().map_err(|_| err())
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
            },
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
            |field: &'static str, token: &str, expected: &'static str| NameError::UnknownToken {
                name: name.to_string(),
                field,
                token: token.to_string(),
                expected,
            };
        let family = Family::ALL
            .into_iter()
            .find(|f| f.token() == t[0])
            .ok_or_else(|| unknown("family", t[0], "igemm or direct"))?;
        let direction = Direction::from_token(t[1])
            .ok_or_else(|| unknown("direction", t[1], "fwd, dgrad or wgrad"))?;
        let dtype =
            DType::from_token(t[2]).ok_or_else(|| unknown("dtype", t[2], "f32, f16 or bf16"))?;
        let [tile_m, tile_n, tile_k] = parse_list::<3>(name, "tile", t[3], "t")?;
        let [warps_m, warps_n] = parse_list::<2>(name, "warps", t[4], "w")?;
        let stages = t[5]
            .strip_prefix('s')
            .ok_or_else(|| unknown("stages", t[5], "s{stages}"))
            .and_then(|s| parse_num(name, "stages", s))?;
        let [vec_a, vec_b] = parse_list::<2>(name, "vec", t[6], "v")?;
        let group_merge = t[7]
            .strip_prefix("gm")
            .ok_or_else(|| unknown("group_merge", t[7], "gm{n}"))
            .and_then(|s| parse_num(name, "group_merge", s))?;
        let sk = t[8]
            .strip_prefix("sk")
            .ok_or_else(|| unknown("split_k", t[8], "sk{n}d or sk{n}a"))?;
        let (digits, mode) = match sk.char_indices().last() {
            Some((i, 'd')) => (&sk[..i], SplitKMode::Deterministic),
            Some((i, 'a')) => (&sk[..i], SplitKMode::Atomic),
            _ => return Err(unknown("split_k", t[8], "sk{n}d or sk{n}a")),
        };
        let split_k = parse_num(name, "split_k", digits)?;
        let math = Math::ALL
            .into_iter()
            .find(|m| m.token() == t[9])
            .ok_or_else(|| unknown("math", t[9], "mma, simt, tf32 or wgmma"))?;
        let fast_path = FastPath::ALL
            .into_iter()
            .find(|f| f.token() == t[10])
            .ok_or_else(|| unknown("fast_path", t[10], "gen or pw"))?;
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

// ---------------------------------------------------------------------------------------------
// Gates
// ---------------------------------------------------------------------------------------------

/// Largest dynamic shared memory one CTA may use on sm_90 (227 KB).
pub const MAX_SMEM_BYTES: u32 = 232_448;
/// Register budget per thread the estimate must fit (ptxas maximum).
pub const MAX_REGISTERS: u32 = 255;
/// Largest split-K degree accepted.
pub const MAX_SPLIT_K: u32 = 64;
/// Largest group merge accepted.
pub const MAX_GROUP_MERGE: u32 = 16;
/// Elements of padding added to each row of the epilogue's shared-memory staging tile.
pub const EPILOGUE_PAD: u32 = 8;

/// Why a config is not a kernel, or cannot run a problem. [`Rejection::reason`] gives a short
/// stable key for counting; `Display` gives the details.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Rejection {
    /// The family has no generator yet.
    #[error("family {family} is not implemented")]
    FamilyNotImplemented {
        /// Family token.
        family: &'static str,
    },
    /// The family does not implement this direction yet.
    #[error("{family} does not implement direction {direction} yet")]
    DirectionNotImplemented {
        /// Family token.
        family: &'static str,
        /// Direction token.
        direction: &'static str,
    },
    /// The math path does not suit the dtype.
    #[error("math {math} does not match dtype {dtype} (f16/bf16 use mma; f32 uses simt or tf32)")]
    MathDtypeMismatch {
        /// Math token.
        math: &'static str,
        /// Dtype token.
        dtype: &'static str,
    },
    /// The math path exists in the grammar but has no generator yet.
    #[error("math {math} is not implemented yet")]
    MathNotImplemented {
        /// Math token.
        math: &'static str,
    },
    /// The math path needs another target architecture than the one asked for.
    #[error("math {math} needs --arch {needs} (asked for {arch})")]
    ArchRequired {
        /// Math token.
        math: &'static str,
        /// The architecture the math path needs.
        needs: &'static str,
        /// The architecture asked for.
        arch: &'static str,
    },
    /// Warp counts must be ≥ 1 with a product of 1, 2, 4 or 8.
    #[error("warp layout {warps_m}x{warps_n} is invalid (1, 2, 4 or 8 warps in all)")]
    BadWarpCount {
        /// Warps along M.
        warps_m: u32,
        /// Warps along N.
        warps_n: u32,
    },
    /// Block tile outside the supported range.
    #[error("block tile {tile_m}x{tile_n}x{tile_k} is outside the supported range ({limits})")]
    TileOutOfRange {
        /// Tile M.
        tile_m: u32,
        /// Tile N.
        tile_n: u32,
        /// Tile K.
        tile_k: u32,
        /// The accepted range, in words.
        limits: &'static str,
    },
    /// Block tile not divisible by the warp layout.
    #[error(
        "block tile {tile_m}x{tile_n} is not divisible by the warp layout {warps_m}x{warps_n}"
    )]
    TileNotMultipleOfWarps {
        /// Tile M.
        tile_m: u32,
        /// Tile N.
        tile_n: u32,
        /// Warps M.
        warps_m: u32,
        /// Warps N.
        warps_n: u32,
    },
    /// Warp tile not a multiple of the instruction shape.
    #[error("warp tile {warp_m}x{warp_n} (k {tile_k}) is not a multiple of the {math} instruction shape ({need})")]
    WarpTileNotMultipleOfInstruction {
        /// Warp tile M.
        warp_m: u32,
        /// Warp tile N.
        warp_n: u32,
        /// Tile K.
        tile_k: u32,
        /// Math token.
        math: &'static str,
        /// Requirement in words.
        need: &'static str,
    },
    /// Stage count outside 2..=5.
    #[error("stages {stages} outside 2..=5")]
    StagesOutOfRange {
        /// The stage count.
        stages: u32,
    },
    /// A vector cap that is zero, not a power of two, wider than 16 bytes or than tile_k.
    #[error("vector cap {operand}={value} is invalid (power of two, at most 16 bytes = {max} elements and at most tile_k)")]
    BadVectorWidth {
        /// `vec_a` or `vec_b`.
        operand: &'static str,
        /// The cap.
        value: u32,
        /// Largest allowed for the dtype.
        max: u32,
    },
    /// Group merge not a power of two in 1..=16.
    #[error("group_merge {gm} is invalid (power of two, 1..={MAX_GROUP_MERGE})")]
    BadGroupMerge {
        /// gm.
        gm: u32,
    },
    /// Split-K degree out of range or a mode given without split.
    #[error("split-K {split_k}{mode} is invalid ({why})")]
    BadSplitK {
        /// Degree.
        split_k: u32,
        /// Mode letter.
        mode: &'static str,
        /// Why.
        why: &'static str,
    },
    /// Split-K is not generated yet for this mode.
    #[error("split-K {split_k}{mode} is not implemented yet")]
    SplitKNotImplemented {
        /// Degree.
        split_k: u32,
        /// Mode letter.
        mode: &'static str,
    },
    /// Shared memory above the per-CTA limit.
    #[error("shared memory {bytes} B exceeds the limit {limit} B")]
    SmemExceedsLimit {
        /// Bytes needed.
        bytes: u32,
        /// Limit.
        limit: u32,
    },
    /// Estimated registers above the per-thread limit.
    #[error("estimated {estimate} registers per thread exceed {limit}")]
    RegistersExceedLimit {
        /// Estimate.
        estimate: u32,
        /// Limit.
        limit: u32,
    },
    /// The config's direction differs from the problem's.
    #[error("config direction {config} differs from problem direction {problem}")]
    DirectionMismatch {
        /// Config direction token.
        config: &'static str,
        /// Problem direction token.
        problem: &'static str,
    },
    /// The config's dtype differs from the problem's.
    #[error("config dtype {config} differs from problem dtype {problem}")]
    DtypeMismatch {
        /// Config dtype token.
        config: &'static str,
        /// Problem dtype token.
        problem: &'static str,
    },
    /// The pointwise path needs a 1×1 filter, unit stride and no padding.
    #[error("the pointwise path needs a 1x1 filter, stride 1 and pad 0 (problem: filter {filter:?}, stride {stride:?}, pad {pad:?})")]
    PointwiseInapplicable {
        /// Filter (D,H,W slots).
        filter: [u64; 3],
        /// Stride.
        stride: [u64; 3],
        /// Pad.
        pad: [u64; 3],
    },
    /// gm does not divide G.
    #[error("group_merge {gm} does not divide G={g}")]
    GroupMergeNotDivisor {
        /// gm.
        gm: u32,
        /// G.
        g: u64,
    },
    /// The merged groups do not fit one tile.
    #[error("group_merge {gm}: merged channels gm*C/G={merged_c} / gm*K/G={merged_k} do not fit tile_k={tile_k} / tile_n={tile_n}")]
    GroupMergeExceedsTile {
        /// gm.
        gm: u32,
        /// gm·C/G.
        merged_c: u64,
        /// gm·K/G.
        merged_k: u64,
        /// tile_k.
        tile_k: u32,
        /// tile_n.
        tile_n: u32,
    },
    /// Offsets would not fit the kernel's 32-bit index type.
    #[error(
        "unsupported: tensor {tensor} needs offsets up to {extent}, beyond the 32-bit index type"
    )]
    IndexExceeds32Bit {
        /// Tensor name.
        tensor: &'static str,
        /// Largest offset magnitude needed.
        extent: u64,
    },
    /// The launch grid would exceed a hardware limit.
    #[error("unsupported: grid dimension {axis} would be {size}, above the limit {limit}")]
    GridTooLarge {
        /// `x`, `y` or `z`.
        axis: &'static str,
        /// Size.
        size: u64,
        /// Limit.
        limit: u64,
    },
    /// Split-K degree above the number of k-tiles.
    #[error("split_k {split_k} exceeds the {ktiles} k-tiles of the reduction")]
    SplitKExceedsReduction {
        /// Degree.
        split_k: u32,
        /// k-tiles.
        ktiles: u64,
    },
    /// A field that the `direct` family fixes to one value has another.
    #[error("direct kernels need {field} = {expected} (got {value})")]
    DirectFieldFixed {
        /// Field name.
        field: &'static str,
        /// The value given, as text.
        value: String,
        /// The only accepted value.
        expected: &'static str,
    },
    /// The `direct` thread mapping does not divide: (tile_m / vec_b) pixel groups ×
    /// (tile_n / vec_a) channel lanes must be exactly threads × PY, with PY ≤ 16 output rows
    /// per thread dividing the tile height.
    #[error("direct work items {items} (tile rows x column groups x channel lanes) must be {threads} threads x PY, with PY <= 16 rows per thread dividing the tile height")]
    DirectThreadMapping {
        /// Work items of one CTA.
        items: u32,
        /// Threads of one CTA.
        threads: u32,
    },
    /// The `direct` family handles only small C/G.
    #[error("direct kernels need C/G <= {max} (problem C/G = {cpg})")]
    DirectChannelsPerGroup {
        /// C/G of the problem.
        cpg: u64,
        /// Largest accepted.
        max: u64,
    },
    /// The `direct` tensor-core path needs C/G and K/G (of the merged groups, gm·C/G and
    /// gm·K/G, with group merge) multiples of 8.
    #[error(
        "direct mma kernels need C/G and K/G multiples of 8, after group merge (merged C/G = {cpg}, K/G = {kpg}; a larger gm merges more groups)"
    )]
    DirectMmaChannels {
        /// C/G of the problem.
        cpg: u64,
        /// K/G of the problem.
        kpg: u64,
    },
    /// The `direct` channel tile must hold whole groups: K/G (gm·K/G with group merge) must
    /// divide tile_n.
    #[error("direct kernels need K/G={kpg} (gm·K/G with group merge) to divide tile_n={tile_n} (whole groups per CTA)")]
    DirectChannelTile {
        /// K/G of the (merged) groups.
        kpg: u64,
        /// tile_n.
        tile_n: u32,
    },
    /// Group merge on the direct tensor-core path only serves layers whose C/G or K/G is not
    /// a multiple of 8; merging groups that already are would multiply the MMA work by gm for
    /// nothing (zero blocks).
    #[error("direct mma group_merge {gm} is needless: C/G={cpg} and K/G={kpg} are already multiples of 8 (use gm1)")]
    DirectGroupMergeNeedless {
        /// gm.
        gm: u32,
        /// C/G of the problem.
        cpg: u64,
        /// K/G of the problem.
        kpg: u64,
    },
}

impl Rejection {
    /// Short stable key for counting rejections by reason.
    pub fn reason(&self) -> &'static str {
        match self {
            Rejection::FamilyNotImplemented { .. } => "family_not_implemented",
            Rejection::DirectionNotImplemented { .. } => "direction_not_implemented",
            Rejection::MathDtypeMismatch { .. } => "math_dtype_mismatch",
            Rejection::MathNotImplemented { .. } => "math_not_implemented",
            Rejection::ArchRequired { .. } => "arch_required",
            Rejection::BadWarpCount { .. } => "bad_warp_count",
            Rejection::TileOutOfRange { .. } => "tile_out_of_range",
            Rejection::TileNotMultipleOfWarps { .. } => "tile_not_multiple_of_warps",
            Rejection::WarpTileNotMultipleOfInstruction { .. } => {
                "warp_tile_not_multiple_of_instruction"
            }
            Rejection::StagesOutOfRange { .. } => "stages_out_of_range",
            Rejection::BadVectorWidth { .. } => "bad_vector_width",
            Rejection::BadGroupMerge { .. } => "bad_group_merge",
            Rejection::BadSplitK { .. } => "bad_split_k",
            Rejection::SplitKNotImplemented { .. } => "split_k_not_implemented",
            Rejection::SmemExceedsLimit { .. } => "smem_exceeds_limit",
            Rejection::RegistersExceedLimit { .. } => "registers_exceed_limit",
            Rejection::DirectionMismatch { .. } => "direction_mismatch",
            Rejection::DtypeMismatch { .. } => "dtype_mismatch",
            Rejection::PointwiseInapplicable { .. } => "pointwise_inapplicable",
            Rejection::GroupMergeNotDivisor { .. } => "group_merge_not_divisor",
            Rejection::GroupMergeExceedsTile { .. } => "group_merge_exceeds_tile",
            Rejection::IndexExceeds32Bit { .. } => "index_exceeds_32bit",
            Rejection::GridTooLarge { .. } => "grid_too_large",
            Rejection::SplitKExceedsReduction { .. } => "split_k_exceeds_reduction",
            Rejection::DirectFieldFixed { .. } => "direct_field_fixed",
            Rejection::DirectThreadMapping { .. } => "direct_thread_mapping",
            Rejection::DirectChannelsPerGroup { .. } => "direct_channels_per_group",
            Rejection::DirectChannelTile { .. } => "direct_channel_tile",
            Rejection::DirectMmaChannels { .. } => "direct_mma_channels",
            Rejection::DirectGroupMergeNeedless { .. } => "direct_group_merge_needless",
        }
    }

    /// True for the problem-side answers that mean "valid kernel, unsupported problem size"
    /// (CSV status `unsupported` rather than `rejected`).
    pub fn is_unsupported(&self) -> bool {
        matches!(
            self,
            Rejection::IndexExceeds32Bit { .. } | Rejection::GridTooLarge { .. }
        )
    }
}

/// Shared memory a config needs: the larger of the pipeline (`stages` × (A + B) tiles) and the
/// epilogue's staging tile (`tile_m` × (`tile_n` + [`EPILOGUE_PAD`]) output elements, f32 when
/// split-K writes partials).
pub fn smem_bytes(cfg: &KernelConfig) -> u32 {
    let es = cfg.dtype.size_bytes() as u32;
    let pipeline = cfg
        .stages
        .saturating_mul(cfg.tile_m.saturating_add(cfg.tile_n))
        .saturating_mul(cfg.tile_k)
        .saturating_mul(es);
    let out_es = if cfg.split_k > 1 { 4 } else { es };
    let epilogue = cfg
        .tile_m
        .saturating_mul(cfg.tile_n.saturating_add(EPILOGUE_PAD))
        .saturating_mul(out_es);
    // wgmma: the kernel rounds its shared-memory base up to 1024 bytes (the 128-byte swizzle
    // repeats every 8 rows of 128 bytes and is applied to absolute addresses).
    let align = if cfg.math == Math::Wgmma { 1024 } else { 0 };
    pipeline.max(epilogue).saturating_add(align)
}

/// wgmma geometry of a config: (warpgroups, m64 blocks per warpgroup, accumulators per thread
/// per m64 block).
pub fn wgmma_shape(cfg: &KernelConfig) -> (u32, u32, u32) {
    let wg = (cfg.warps_m * cfg.warps_n / 4).max(1);
    (wg, (cfg.tile_m / (64 * wg)).max(1), cfg.tile_n / 2)
}

/// Estimated registers per thread: accumulators, fragments (double-buffered for mma), loader
/// state and a fixed allowance for addresses and loop counters.
pub fn register_estimate(cfg: &KernelConfig) -> u32 {
    let (wm, wn) = cfg.warp_tile();
    let threads = cfg.threads().max(1);
    let va = cfg.vec_a.max(1);
    let vb = cfg.vec_b.max(1);
    let ia = (cfg.tile_m * cfg.tile_k / va).div_ceil(threads);
    let ib = (cfg.tile_n * cfg.tile_k / vb).div_ceil(threads);
    let loaders = 2 * ia + ib;
    let (acc, frags) = match cfg.math {
        Math::Simt => {
            let (tm, tn) = (wm / 4, wn / 8);
            (tm * tn, 4 * (tm + tn))
        }
        Math::Mma | Math::Tf32 => (wm * wn / 32, 2 * (wm / 16 * 4 + wn / 8 * 2)),
        Math::Wgmma => {
            let (_, mwg, nacc) = wgmma_shape(cfg);
            (mwg * nacc, 0)
        }
    };
    acc + frags + loaders + 28
}

pub(crate) fn pow2_in(v: u32, lo: u32, hi: u32) -> bool {
    v.is_power_of_two() && v >= lo && v <= hi
}

/// The architecture a config's module is compiled for: sm_90a for `wgmma` (arch-specific
/// instructions), sm_90 otherwise (an sm_90 CUBIN also runs on sm_90a parts).
pub fn required_arch(cfg: &KernelConfig) -> Arch {
    if cfg.math == Math::Wgmma {
        Arch::Sm90a
    } else {
        Arch::Sm90
    }
}

/// Is `cfg` a kernel at all on `arch`? The single structural gate. Every rule holds for sm_90
/// and sm_90a alike except that `wgmma` needs sm_90a ([`required_arch`]).
pub fn validate(cfg: &KernelConfig, arch: Arch) -> Result<(), Rejection> {
    if cfg.math == Math::Wgmma && arch != Arch::Sm90a {
        return Err(Rejection::ArchRequired {
            math: cfg.math.token(),
            needs: Arch::Sm90a.nvrtc_arch(),
            arch: arch.nvrtc_arch(),
        });
    }
    if cfg.family == Family::Direct {
        return crate::direct::validate_direct(cfg);
    }
    if cfg.direction != Direction::Fwd {
        return Err(Rejection::DirectionNotImplemented {
            family: cfg.family.token(),
            direction: cfg.direction.token(),
        });
    }
    let math_ok = matches!(
        (cfg.dtype, cfg.math),
        (DType::F16 | DType::Bf16, Math::Mma | Math::Wgmma) | (DType::F32, Math::Simt | Math::Tf32)
    );
    if !math_ok {
        return Err(Rejection::MathDtypeMismatch {
            math: cfg.math.token(),
            dtype: cfg.dtype.token(),
        });
    }
    if cfg.math == Math::Tf32 {
        return Err(Rejection::MathNotImplemented {
            math: cfg.math.token(),
        });
    }
    let warps = cfg.warps_m.saturating_mul(cfg.warps_n);
    // Three warpgroups (12 warps) exist for wgmma only (192-row tiles).
    let warps_ok = matches!(warps, 1 | 2 | 4 | 8) || (cfg.math == Math::Wgmma && warps == 12);
    if cfg.warps_m == 0 || cfg.warps_n == 0 || !warps_ok {
        return Err(Rejection::BadWarpCount {
            warps_m: cfg.warps_m,
            warps_n: cfg.warps_n,
        });
    }
    if cfg.math == Math::Wgmma {
        // One to three warpgroups stacked along M, each owning 64 or 128 rows and the whole
        // tile_n (m64nNk16 with N = tile_n); K-tiles of one 128-byte swizzle row. Three
        // warpgroups (384 threads, 168 registers each at most) own one m64 block of at most
        // 64 accumulators each.
        if cfg.warps_n != 1 || !matches!(cfg.warps_m, 4 | 8 | 12) {
            return Err(Rejection::BadWarpCount {
                warps_m: cfg.warps_m,
                warps_n: cfg.warps_n,
            });
        }
        let (wg, mwg, nacc) = wgmma_shape(cfg);
        let ok = cfg.tile_k == 64
            && cfg.stages >= 3
            && matches!(cfg.tile_n, 64 | 128 | 256)
            && (mwg == 1 || mwg == 2)
            && cfg.tile_m == 64 * wg * mwg
            && mwg * nacc <= 128
            && (wg < 3 || mwg * nacc <= 64);
        if !ok {
            return Err(Rejection::TileOutOfRange {
                tile_m: cfg.tile_m,
                tile_n: cfg.tile_n,
                tile_k: cfg.tile_k,
                limits: "wgmma: tile_k = 64, 3 or more stages, tile_n in {64, 128, 256}, tile_m = 64 or 128 rows per warpgroup, at most 128 accumulators per thread (64 with three warpgroups)",
            });
        }
    }
    let (k_lo, k_hi, limits) = match cfg.math {
        Math::Simt => (
            8,
            32,
            "tile_m and tile_n in 16..=256, tile_k a power of two in 8..=32",
        ),
        _ => (
            16,
            64,
            "tile_m and tile_n in 16..=256, tile_k a power of two in 16..=64",
        ),
    };
    if !(16..=256).contains(&cfg.tile_m)
        || !(16..=256).contains(&cfg.tile_n)
        || !pow2_in(cfg.tile_k, k_lo, k_hi)
    {
        return Err(Rejection::TileOutOfRange {
            tile_m: cfg.tile_m,
            tile_n: cfg.tile_n,
            tile_k: cfg.tile_k,
            limits,
        });
    }
    if !cfg.tile_m.is_multiple_of(cfg.warps_m) || !cfg.tile_n.is_multiple_of(cfg.warps_n) {
        return Err(Rejection::TileNotMultipleOfWarps {
            tile_m: cfg.tile_m,
            tile_n: cfg.tile_n,
            warps_m: cfg.warps_m,
            warps_n: cfg.warps_n,
        });
    }
    let (wm, wn) = cfg.warp_tile();
    let (ok, need) = match cfg.math {
        Math::Simt => (
            wm % 4 == 0 && wn % 8 == 0,
            "warp tile M multiple of 4, N multiple of 8 (4x8 lanes)",
        ),
        _ => (
            wm % 16 == 0 && wn % 16 == 0,
            "warp tile M and N multiples of 16 (m16n8k16, ldmatrix x4 pairs)",
        ),
    };
    if !ok {
        return Err(Rejection::WarpTileNotMultipleOfInstruction {
            warp_m: wm,
            warp_n: wn,
            tile_k: cfg.tile_k,
            math: cfg.math.token(),
            need,
        });
    }
    if !(2..=5).contains(&cfg.stages) {
        return Err(Rejection::StagesOutOfRange { stages: cfg.stages });
    }
    let vmax = (16 / cfg.dtype.size_bytes()) as u32;
    for (operand, value) in [("vec_a", cfg.vec_a), ("vec_b", cfg.vec_b)] {
        if !pow2_in(value, 1, vmax) || value > cfg.tile_k {
            return Err(Rejection::BadVectorWidth {
                operand,
                value,
                max: vmax,
            });
        }
    }
    if !pow2_in(cfg.group_merge, 1, MAX_GROUP_MERGE) {
        return Err(Rejection::BadGroupMerge {
            gm: cfg.group_merge,
        });
    }
    if cfg.split_k == 0 || cfg.split_k > MAX_SPLIT_K {
        return Err(Rejection::BadSplitK {
            split_k: cfg.split_k,
            mode: cfg.split_k_mode.token(),
            why: "degree must be in 1..=64",
        });
    }
    if cfg.split_k == 1 && cfg.split_k_mode != SplitKMode::Deterministic {
        return Err(Rejection::BadSplitK {
            split_k: cfg.split_k,
            mode: cfg.split_k_mode.token(),
            why: "without split-K the mode must be d, so that one kernel has one name",
        });
    }
    if cfg.split_k > 1 && cfg.split_k_mode == SplitKMode::Atomic {
        return Err(Rejection::SplitKNotImplemented {
            split_k: cfg.split_k,
            mode: cfg.split_k_mode.token(),
        });
    }
    let bytes = smem_bytes(cfg);
    if bytes > MAX_SMEM_BYTES {
        return Err(Rejection::SmemExceedsLimit {
            bytes,
            limit: MAX_SMEM_BYTES,
        });
    }
    let estimate = register_estimate(cfg);
    if estimate > MAX_REGISTERS {
        return Err(Rejection::RegistersExceedLimit {
            estimate,
            limit: MAX_REGISTERS,
        });
    }
    Ok(())
}

/// Vector widths (elements) a config uses on a problem, after clamping the caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectiveVectors {
    /// A (activation) loads: divides gm·C/G.
    pub a: u32,
    /// B (weight) loads: divides C/G.
    pub b: u32,
    /// Output stores: divides gm·K/G, at most 16 bytes.
    pub c: u32,
}

fn largest_pow2_dividing(n: u64, cap: u32) -> u32 {
    let mut v = cap.max(1);
    while v > 1 && !n.is_multiple_of(v as u64) {
        v /= 2;
    }
    v
}

/// The one place that clamps the vector caps: the largest power of two ≤ the cap that divides
/// the channels a vector must stay inside (gm·C/G for A, C/G for B, gm·K/G for the output).
pub fn effective_vectors(cfg: &KernelConfig, problem: &Problem) -> EffectiveVectors {
    let gm = cfg.group_merge.max(1) as u64;
    let vmax = (16 / cfg.dtype.size_bytes()) as u32;
    let out_es = if cfg.split_k > 1 {
        4
    } else {
        cfg.dtype.size_bytes() as u32
    };
    EffectiveVectors {
        a: largest_pow2_dividing(gm * problem.cpg(), cfg.vec_a.min(cfg.tile_k)),
        b: largest_pow2_dividing(problem.cpg(), cfg.vec_b.min(cfg.tile_k)),
        c: largest_pow2_dividing(gm * problem.kpg(), (16 / out_es).min(vmax * 2)),
    }
}

/// Number of k-tiles the generated kernel walks: taps × ⌈gm·C/G / tile_k⌉, or, when the
/// merged channels gm·C/G are fewer than `tile_k` and divide it (several taps packed into one
/// k-tile), ⌈taps / (tile_k / (gm·C/G))⌉.
pub fn k_tiles(cfg: &KernelConfig, problem: &Problem) -> u64 {
    let ceff = cfg.group_merge.max(1) as u64 * problem.cpg();
    let bk = cfg.tile_k.max(1) as u64;
    if ceff < bk && bk.is_multiple_of(ceff) {
        problem.filter_volume().div_ceil(bk / ceff)
    } else {
        problem.filter_volume() * ceff.div_ceil(bk)
    }
}

/// The launch grid. igemm: x = M tiles, y = N tiles, z = G/gm · split_k; direct: see
/// [`crate::direct::geometry`] (x = spatial tiles × Do × N, y = channel slices, z = 1).
pub fn grid(cfg: &KernelConfig, problem: &Problem) -> [u64; 3] {
    if cfg.family == Family::Direct {
        return crate::direct::geometry(cfg, problem).grid;
    }
    let (m, _, _) = problem.gemm_mnk();
    let gm = cfg.group_merge.max(1) as u64;
    [
        m.div_ceil(cfg.tile_m.max(1) as u64),
        (gm * problem.kpg()).div_ceil(cfg.tile_n.max(1) as u64),
        problem.g / gm * cfg.split_k as u64,
    ]
}

/// Does `cfg` run `problem`? Calls [`validate`] first (for the config's [`required_arch`]),
/// then the problem rules.
pub fn can_implement(cfg: &KernelConfig, problem: &Problem) -> Result<(), Rejection> {
    validate(cfg, required_arch(cfg))?;
    if cfg.direction != problem.direction {
        return Err(Rejection::DirectionMismatch {
            config: cfg.direction.token(),
            problem: problem.direction.token(),
        });
    }
    if cfg.dtype != problem.dtype {
        return Err(Rejection::DtypeMismatch {
            config: cfg.dtype.token(),
            problem: problem.dtype.token(),
        });
    }
    if cfg.family == Family::Direct {
        crate::direct::can_implement_direct(cfg, problem)?;
        check_32bit_offsets(problem)?;
        return check_grid(grid(cfg, problem));
    }
    if cfg.fast_path == FastPath::Pointwise
        && !(problem.filter_volume() == 1
            && problem.stride == [1, 1, 1]
            && problem.pad == [0, 0, 0])
    {
        return Err(Rejection::PointwiseInapplicable {
            filter: problem.filter,
            stride: problem.stride,
            pad: problem.pad,
        });
    }
    let gm = cfg.group_merge as u64;
    if !problem.g.is_multiple_of(gm) {
        return Err(Rejection::GroupMergeNotDivisor {
            gm: cfg.group_merge,
            g: problem.g,
        });
    }
    if gm > 1 && (gm * problem.cpg() > cfg.tile_k as u64 || gm * problem.kpg() > cfg.tile_n as u64)
    {
        return Err(Rejection::GroupMergeExceedsTile {
            gm: cfg.group_merge,
            merged_c: gm * problem.cpg(),
            merged_k: gm * problem.kpg(),
            tile_k: cfg.tile_k,
            tile_n: cfg.tile_n,
        });
    }
    check_32bit_offsets(problem)?;
    let limit = i32::MAX as u64;
    if cfg.split_k > 1 {
        let ws = problem.elements(TensorRole::Y) * cfg.split_k as u64;
        if ws > limit {
            return Err(Rejection::IndexExceeds32Bit {
                tensor: "workspace",
                extent: ws,
            });
        }
        let kt = k_tiles(cfg, problem);
        if cfg.split_k as u64 > kt {
            return Err(Rejection::SplitKExceedsReduction {
                split_k: cfg.split_k,
                ktiles: kt,
            });
        }
    }
    check_grid(grid(cfg, problem))
}

/// 32-bit offsets (every family): X offsets range over [-(padding reach), elements); W and Y
/// over elements.
fn check_32bit_offsets(problem: &Problem) -> Result<(), Rejection> {
    let [_, h, w] = problem.input;
    let reach = (problem.pad[0] * h * w + problem.pad[1] * w + problem.pad[2]) * problem.c;
    let limit = i32::MAX as u64;
    let x_extent = problem.elements(TensorRole::X) + reach + problem.c;
    for (tensor, extent) in [
        ("X", x_extent),
        ("W", problem.elements(TensorRole::W)),
        ("Y", problem.elements(TensorRole::Y)),
    ] {
        if extent > limit {
            return Err(Rejection::IndexExceeds32Bit { tensor, extent });
        }
    }
    Ok(())
}

/// Launch-grid limits (x up to 2^31 − 1, y and z up to 65535).
fn check_grid(g: [u64; 3]) -> Result<(), Rejection> {
    for (axis, size, lim) in [
        ("x", g[0], i32::MAX as u64),
        ("y", g[1], 65_535),
        ("z", g[2], 65_535),
    ] {
        if size > lim {
            return Err(Rejection::GridTooLarge {
                axis,
                size,
                limit: lim,
            });
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Pool and selection
// ---------------------------------------------------------------------------------------------

#[allow(clippy::too_many_arguments)]
fn cfg(
    dtype: DType,
    t: [u32; 3],
    w: [u32; 2],
    stages: u32,
    gm: u32,
    fast_path: FastPath,
) -> KernelConfig {
    let vec = (16 / dtype.size_bytes()) as u32;
    KernelConfig {
        family: Family::Igemm,
        direction: Direction::Fwd,
        dtype,
        tile_m: t[0],
        tile_n: t[1],
        tile_k: t[2],
        warps_m: w[0],
        warps_n: w[1],
        stages,
        vec_a: vec.min(t[2]),
        vec_b: vec.min(t[2]),
        group_merge: gm,
        split_k: 1,
        split_k_mode: SplitKMode::Deterministic,
        math: default_math(dtype),
        fast_path,
    }
}

/// The default forward pool for a dtype: a modest set (about 30 configs) covering large and
/// small tiles, every stage count, group merge for small C/G (and depthwise) and the pointwise
/// path. Every member passes [`validate`].
pub fn default_forward_pool(dtype: DType) -> Vec<KernelConfig> {
    use FastPath::{General as G, Pointwise as P};
    let mut v = Vec::new();
    match dtype {
        DType::F16 | DType::Bf16 => {
            let d = dtype;
            for (t, w, s) in [
                ([128, 128, 32], [2, 2], 3),
                ([128, 128, 32], [2, 2], 4),
                ([128, 128, 32], [2, 2], 5),
                ([256, 128, 32], [4, 2], 3),
                ([256, 64, 32], [4, 2], 4),
                ([128, 64, 32], [2, 2], 4),
                ([128, 64, 64], [2, 2], 3),
                ([64, 128, 32], [2, 2], 4),
                ([64, 64, 32], [2, 2], 4),
                ([64, 64, 64], [2, 2], 3),
                ([128, 32, 32], [4, 1], 4),
                ([64, 32, 32], [2, 1], 5),
                ([128, 16, 32], [4, 1], 4),
                ([32, 32, 32], [1, 1], 2),
                ([64, 64, 16], [2, 2], 5),
            ] {
                v.push(cfg(d, t, w, s, 1, G));
            }
            for (t, w, s, gm) in [
                ([128, 32, 32], [4, 1], 4, 2),
                ([128, 32, 32], [4, 1], 4, 4),
                ([128, 32, 32], [4, 1], 4, 8),
                ([128, 64, 64], [2, 2], 3, 2),
                ([128, 64, 64], [2, 2], 3, 4),
                ([128, 64, 64], [2, 2], 3, 8),
                ([128, 64, 64], [2, 2], 3, 16),
                ([128, 16, 16], [4, 1], 4, 16),
                ([128, 16, 64], [4, 1], 3, 16),
                ([256, 16, 64], [8, 1], 2, 16),
                ([128, 16, 16], [4, 1], 4, 8),
                ([128, 16, 32], [4, 1], 4, 8),
                ([128, 16, 32], [4, 1], 4, 2),
            ] {
                v.push(cfg(d, t, w, s, gm, G));
            }
            for (t, w, s) in [
                ([128, 128, 32], [2, 2], 4),
                ([256, 128, 32], [4, 2], 3),
                ([128, 64, 32], [2, 2], 4),
                ([64, 64, 32], [2, 2], 3),
            ] {
                v.push(cfg(d, t, w, s, 1, P));
            }
            // Warpgroup MMA (sm_90a): one to three warpgroups along M, K-tiles of 64. The
            // 192-row tiles move 17 % fewer bytes per MAC than 128×128 and, for K/G = 128, fill
            // two waves where 256-row tiles leave the second half empty.
            for (t, w, s, fp) in [
                ([192, 128, 64], [12, 1], 4, G),
                ([192, 128, 64], [12, 1], 5, G),
                ([192, 64, 64], [12, 1], 5, G),
                ([256, 64, 64], [8, 1], 4, G),
                ([128, 128, 64], [8, 1], 4, G),
                ([128, 128, 64], [8, 1], 3, G),
                ([128, 128, 64], [4, 1], 4, G),
                ([256, 128, 64], [8, 1], 3, G),
                ([256, 128, 64], [8, 1], 4, G),
                ([128, 128, 64], [8, 1], 5, G),
                ([128, 256, 64], [8, 1], 3, G),
                ([64, 128, 64], [4, 1], 5, G),
                ([128, 64, 64], [8, 1], 5, G),
                ([128, 128, 64], [8, 1], 4, P),
                ([256, 128, 64], [8, 1], 3, P),
                ([256, 128, 64], [8, 1], 4, P),
            ] {
                v.push(KernelConfig {
                    math: Math::Wgmma,
                    ..cfg(d, t, w, s, 1, fp)
                });
            }
            // Two groups of C/G 32 merged into one 64-wide wgmma tile (block-diagonal weights;
            // the 7×7 C/G 32 zoo layer).
            v.push(KernelConfig {
                math: Math::Wgmma,
                ..cfg(d, [256, 64, 64], [8, 1], 4, 2, G)
            });
        }
        DType::F32 => {
            let d = dtype;
            for (t, w, s) in [
                ([128, 128, 16], [4, 2], 3),
                ([128, 128, 16], [4, 2], 4),
                ([128, 128, 16], [4, 2], 2),
                ([128, 64, 16], [4, 2], 3),
                ([64, 128, 16], [2, 2], 3),
                ([64, 64, 16], [2, 2], 4),
                ([64, 64, 32], [2, 2], 3),
                ([128, 32, 16], [4, 1], 4),
                ([64, 32, 32], [2, 1], 5),
                ([128, 16, 16], [4, 1], 4),
                ([32, 32, 32], [1, 1], 2),
            ] {
                v.push(cfg(d, t, w, s, 1, G));
            }
            for (t, w, s, gm) in [
                ([128, 32, 32], [4, 1], 3, 2),
                ([128, 32, 32], [4, 1], 3, 4),
                ([128, 32, 32], [4, 1], 3, 8),
                ([128, 16, 16], [4, 1], 4, 16),
                ([128, 16, 32], [4, 1], 3, 16),
                ([128, 16, 16], [4, 1], 4, 8),
                ([128, 16, 32], [4, 1], 3, 2),
            ] {
                v.push(cfg(d, t, w, s, gm, G));
            }
            for (t, w, s) in [
                ([128, 128, 16], [4, 2], 3),
                ([128, 64, 16], [4, 2], 3),
                ([64, 64, 32], [2, 2], 5),
            ] {
                v.push(cfg(d, t, w, s, 1, P));
            }
        }
    }
    v
}

/// The `direct` forward pool for a dtype (see [`crate::direct`] for the field mapping): tiles
/// shaped for the 112/56/28/14/7-pixel outputs of the model zoo (16×16, 8×16, 8×32, 8×56,
/// 8×28, 14×28, 28×28, 14×14, 7×14, 7×7 pixels) of 16–128 channels, a 1×64 tile for 1D
/// problems; mostly 2 channels per thread (one 4-byte bf16 pair) with a PY × PX block of
/// 4–49 outputs per thread, plus 4- and 8-channel variants (8- and 16-byte accesses); and
/// persistent double-buffered (2-stage) versions of six of them.
/// Every member passes [`validate`].
pub fn direct_forward_pool(dtype: DType) -> Vec<KernelConfig> {
    use crate::direct::config as d;
    match dtype {
        DType::F16 | DType::Bf16 => [
            // 2 channels (4 bytes) per thread, PY x PX outputs: the thread-level reuse tiles.
            ([256, 32, 16], 8, [2, 4]),
            ([128, 64, 16], 8, [2, 4]),
            ([128, 32, 16], 8, [2, 4]),
            ([256, 32, 32], 4, [2, 8]),
            ([256, 16, 16], 4, [2, 4]),
            ([448, 32, 56], 8, [2, 7]),
            ([224, 32, 28], 4, [2, 7]),
            ([392, 32, 28], 4, [2, 7]),
            ([784, 16, 28], 7, [2, 7]),
            ([196, 32, 14], 7, [2, 7]),
            ([196, 64, 14], 4, [2, 7]),
            ([98, 64, 14], 2, [2, 7]),
            ([49, 64, 7], 7, [2, 7]),
            ([49, 128, 7], 2, [2, 7]),
            // Wider channel vectors (8 and 16 bytes per access); 4 channels = one group of a
            // C/G = K/G = 4 layer (the grouped vector path).
            ([128, 64, 16], 8, [4, 4]),
            ([256, 32, 16], 8, [4, 4]),
            ([196, 32, 14], 7, [4, 7]),
            ([392, 32, 28], 7, [4, 7]),
            ([128, 64, 16], 8, [8, 4]),
            ([128, 32, 16], 8, [8, 2]),
            // One row of 64 pixels for 1D problems.
            ([64, 64, 64], 8, [2, 8]),
            // Winners of the session-4 sweep of the simt space on the weakest depthwise layers
            // (`results/h200/s4/sweep_dw.csv`: 112² stride 2 and 56² 3×3).
            ([98, 32, 7], 7, [2, 7]),
            ([196, 32, 14], 7, [2, 2]),
        ]
        .into_iter()
        .map(|(t, w, v)| d(dtype, t, w, v))
        .chain(
            // Persistent, double-buffered (2 stages): the next tile's halo loads during the math.
            [
                ([196, 32, 14], 7, [2, 7]),
                ([392, 32, 28], 4, [2, 7]),
                ([256, 32, 16], 8, [2, 4]),
                ([128, 32, 16], 8, [2, 4]),
                ([49, 64, 7], 7, [2, 7]),
                ([784, 16, 28], 7, [2, 7]),
            ]
            .into_iter()
            .map(|(t, w, v)| KernelConfig {
                stages: 2,
                ..d(dtype, t, w, v)
            }),
        )
        .chain(
            // Tensor cores (math = mma, C/G and K/G multiples of 8): vec = [unit channel
            // cap, m16 blocks per unit]. Channel tiles of 64 (and 48/56/96/112 for K/G = 24,
            // 48, 56), pixel tiles for 56/28/14/7-wide outputs.
            [
                ([224, 64, 28], 8, [8, 2]),
                ([224, 64, 28], 8, [32, 2]),
                ([112, 64, 28], 4, [16, 1]),
                ([112, 64, 28], 4, [64, 1]),
                ([128, 64, 16], 8, [8, 2]),
                ([256, 64, 16], 8, [16, 2]),
                ([196, 64, 14], 8, [16, 2]),
                ([112, 64, 14], 4, [32, 1]),
                ([98, 64, 14], 4, [16, 1]),
                ([196, 128, 14], 8, [64, 1]),
                ([49, 64, 7], 4, [32, 1]),
                ([49, 128, 7], 8, [32, 1]),
                ([128, 48, 16], 4, [32, 2]),
                ([196, 48, 14], 8, [32, 1]),
                ([196, 96, 14], 8, [32, 2]),
                ([196, 56, 14], 8, [64, 1]),
                ([112, 112, 14], 8, [64, 1]),
                ([64, 64, 64], 4, [16, 1]),
                ([256, 64, 16], 8, [8, 4]),
                ([128, 64, 16], 8, [16, 4]),
            ]
            .into_iter()
            .map(|(t, w, v)| KernelConfig {
                math: Math::Mma,
                ..d(dtype, t, w, v)
            }),
        )
        .chain(
            // Persistent double-buffered tensor-core members: the next tile's halo loads
            // during the current tile's MMAs.
            [
                ([196, 64, 14], 8, [16, 2]),
                ([224, 64, 28], 8, [8, 2]),
                ([256, 64, 16], 8, [16, 2]),
                ([128, 48, 16], 4, [32, 2]),
                ([196, 56, 14], 8, [64, 1]),
                ([49, 64, 7], 4, [32, 1]),
                ([49, 128, 7], 8, [32, 1]),
            ]
            .into_iter()
            .map(|(t, w, v)| KernelConfig {
                math: Math::Mma,
                stages: 2,
                ..d(dtype, t, w, v)
            }),
        )
        .chain(
            // Tensor cores for C/G 2–4 through block-diagonal group merge
            // (`direct::kernel_problem`): gm groups form one merged group of gm·C/G = 8
            // channels; (tile, warps, vec, gm, stages). Depthwise (gm 8) members were measured
            // and left out: at 8 merged channels the path is bound by its shared-memory pipe
            // (one ldmatrix per m16n8k16), 1.9–2.9× slower than the CUDA-core members on the 14
            // depthwise zoo layers (`results/h200/s4/bench_dw_gm.csv`).
            [
                ([224, 64, 28], 8, [8, 2], 2, 1),
                ([128, 64, 16], 8, [8, 2], 2, 1),
                ([224, 64, 28], 8, [8, 2], 4, 1),
            ]
            .into_iter()
            .map(|(t, w, v, gm, s)| KernelConfig {
                math: Math::Mma,
                group_merge: gm,
                stages: s,
                ..d(dtype, t, w, v)
            }),
        )
        .collect(),
        DType::F32 => [
            ([256, 32, 16], 8, [2, 4]),
            ([128, 32, 16], 4, [4, 4]),
            ([128, 64, 16], 8, [4, 4]),
            ([224, 32, 28], 4, [2, 7]),
            ([196, 32, 14], 7, [2, 7]),
            ([49, 64, 7], 7, [2, 7]),
            ([64, 32, 64], 4, [2, 8]),
        ]
        .into_iter()
        .map(|(t, w, v)| d(dtype, t, w, v))
        .chain(std::iter::once(KernelConfig {
            stages: 2,
            ..d(dtype, [224, 32, 28], 4, [2, 7])
        }))
        .collect(),
    }
}

/// Number of SMs assumed by the selection rule (H200).
const SMS: f64 = 132.0;

/// Estimated time in seconds of `cfg` on `problem` (H200), the rule behind [`auto_select`]:
///
/// `max(t_math, t_l2, t_dram) + waves · (k_tiles · a + b) + 3 µs`, where
/// - `waves = ⌈CTAs / (132 · CTAs per SM)⌉`, CTAs per SM limited by shared memory, threads and
///   [`register_estimate`];
/// - `t_math = waves · min(CTAs per SM, ⌈CTAs/132⌉) · tile_m·tile_n·tile_k·k_tiles / R` with R
///   the sustained MAC rate of one SM (1.5e12 for mma, 1.4e11 for FFMA, 2.0e12 for wgmma, × 0.6
///   for a 3-stage wgmma pipeline, whose prefetch distance is one k-tile) — padded and
///   block-diagonal zeros count, since the hardware computes them;
/// - the per-wave overhead `a`, `b` = 0.1 µs, 3 µs (wgmma: 0, 0.5 µs);
/// - `t_l2 = CTAs · k_tiles · (tile_m + tile_n) · tile_k · bytes / 8 TB/s` (shared-memory fills);
/// - `t_dram` = the compulsory bytes of X, W and Y at 3.5 TB/s.
///
/// The constants were fitted on the H200 timings of the whole default pool over the forward
/// model-zoo layers (on that set the chosen config reached about 0.97 of the in-pool best in
/// geometric mean, 0.80 at worst; ties go to the earlier pool member). The wgmma terms were
/// fitted afterwards by a grid search on the igemm-decided layers of
/// `results/h200/s3/bench_zoo_final.csv` and `bench_dense.csv` (4 layers with a row for every
/// pick: 0.96 of the in-pool best; in-sample, few points).
pub fn cost_estimate(cfg: &KernelConfig, problem: &Problem) -> f64 {
    let g = grid(cfg, problem);
    let ctas = (g[0] * g[1] * g[2]) as f64;
    let es = cfg.dtype.size_bytes() as f64;
    let smem = smem_bytes(cfg) as f64 + 1024.0;
    let threads = cfg.threads().max(1) as f64;
    let regs = register_estimate(cfg).clamp(1, MAX_REGISTERS) as f64;
    let per_sm = (233_472.0 / smem)
        .floor()
        .min((2048.0 / threads).floor())
        .min((65_536.0 / (regs * threads)).floor())
        .clamp(1.0, 32.0);
    let waves = (ctas / (SMS * per_sm)).ceil().max(1.0);
    let share = per_sm.min((ctas / SMS).ceil());
    let kt = k_tiles(cfg, problem) as f64;
    let (bm, bn, bk) = (cfg.tile_m as f64, cfg.tile_n as f64, cfg.tile_k as f64);
    let rate = match cfg.math {
        Math::Simt => 1.4e11,
        Math::Wgmma if cfg.stages == 3 => 2.0e12 * 0.6,
        Math::Wgmma => 2.0e12,
        _ => 1.5e12,
    };
    let (per_ktile, per_wave) = if cfg.math == Math::Wgmma {
        (0.0, 0.5e-6)
    } else {
        (0.1e-6, 3e-6)
    };
    let t_math = waves * share * bm * bn * bk * kt / rate;
    let t_l2 = ctas * kt * (bm + bn) * bk * es / 8e12;
    let t_dram = problem.min_bytes() / 3.5e12;
    t_math.max(t_l2).max(t_dram) + waves * (kt * per_ktile + per_wave) + 3e-6
}

/// Rule-based selection until a learned heuristic exists. Problems the `direct` family can run
/// (C/G ≤ 4 on CUDA cores; C/G and K/G multiples of 8 up to C/G 56 with a filter larger than
/// 1×1 on tensor cores, [`crate::direct::mma::auto_eligible`]; the group-merged tensor-core
/// members are not considered yet) get the direct pool member with
/// the smallest [`crate::direct::cost_estimate`]; the others: among the default (igemm) forward pool of the problem's dtype, keep the configs
/// that [`can_implement`] the problem, prefer the pointwise path when it applies, and return
/// the one with the smallest [`cost_estimate`]. Ties go to the earlier pool member. `None` when
/// nothing in the pools runs the problem.
pub fn auto_select(problem: &Problem) -> Option<KernelConfig> {
    auto_select_direct(problem).or_else(|| auto_select_igemm(problem))
}

/// The direct part of [`auto_select`]: the direct pool member that can run `problem` with the
/// smallest [`crate::direct::cost_estimate`] (ties: the earlier member).
pub fn auto_select_direct(problem: &Problem) -> Option<KernelConfig> {
    direct_forward_pool(problem.dtype)
        .into_iter()
        .filter(|c| {
            (c.math != Math::Mma
                || (c.group_merge == 1 && crate::direct::mma::auto_eligible(problem)))
                && can_implement(c, problem).is_ok()
        })
        .map(|c| (crate::direct::cost_estimate(&c, problem), c))
        .reduce(cheaper)
        .map(|(_, c)| c)
}

/// The cheaper of two (estimated cost, config) pairs; a tie keeps the first (the earlier pool
/// member).
fn cheaper(a: (f64, KernelConfig), b: (f64, KernelConfig)) -> (f64, KernelConfig) {
    if a.0 <= b.0 {
        a
    } else {
        b
    }
}

/// The igemm part of [`auto_select`].
pub fn auto_select_igemm(problem: &Problem) -> Option<KernelConfig> {
    let pool: Vec<KernelConfig> = default_forward_pool(problem.dtype)
        .into_iter()
        .filter(|c| can_implement(c, problem).is_ok())
        .collect();
    let pointwise_applies = pool.iter().any(|c| c.fast_path == FastPath::Pointwise);
    pool.into_iter()
        .filter(|c| !pointwise_applies || c.fast_path == FastPath::Pointwise)
        .map(|c| (cost_estimate(&c, problem), c))
        .reduce(cheaper)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    fn all_pools() -> Vec<KernelConfig> {
        DType::ALL
            .into_iter()
            .flat_map(default_forward_pool)
            .collect()
    }

    #[test]
    fn default_name_matches_documented_example() {
        assert_eq!(
            KernelConfig::default().to_string(),
            "igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen"
        );
    }

    #[test]
    fn pool_members_validate_and_names_round_trip_uniquely() {
        let pool = all_pools();
        assert!(pool.len() >= 60, "pool has {} configs", pool.len());
        let mut names = HashSet::new();
        for c in &pool {
            validate(c, required_arch(c)).unwrap_or_else(|e| panic!("{c}: {e}"));
            let name = c.to_string();
            assert_eq!(name.parse::<KernelConfig>().as_ref(), Ok(c), "{name}");
            assert!(names.insert(name.clone()), "duplicate {name}");
        }
        for dt in DType::ALL {
            let n = default_forward_pool(dt).len();
            assert!((20..=56).contains(&n), "{dt}: {n}");
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
                NameError::BadNumber {
                    field: "split_k",
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn validate_reasons() {
        let base = KernelConfig::default();
        let r = |c: KernelConfig| validate(&c, Arch::Sm90).map_err(|e| e.reason());
        assert_eq!(r(base), Ok(()));
        assert_eq!(
            r(KernelConfig { stages: 6, ..base }),
            Err("stages_out_of_range")
        );
        assert_eq!(
            r(KernelConfig {
                tile_k: 64,
                stages: 5,
                tile_m: 256,
                tile_n: 256,
                warps_m: 4,
                warps_n: 2,
                ..base
            }),
            Err("smem_exceeds_limit")
        );
        assert_eq!(
            r(KernelConfig {
                warps_m: 4,
                warps_n: 4,
                ..base
            }),
            Err("bad_warp_count")
        );
        assert_eq!(
            r(KernelConfig { vec_a: 16, ..base }),
            Err("bad_vector_width")
        );
        assert_eq!(
            r(KernelConfig { vec_b: 3, ..base }),
            Err("bad_vector_width")
        );
        assert_eq!(
            r(KernelConfig {
                math: Math::Simt,
                ..base
            }),
            Err("math_dtype_mismatch")
        );
        assert_eq!(
            r(KernelConfig {
                group_merge: 3,
                ..base
            }),
            Err("bad_group_merge")
        );
        assert_eq!(
            r(KernelConfig {
                split_k_mode: SplitKMode::Atomic,
                ..base
            }),
            Err("bad_split_k")
        );
        assert_eq!(
            r(KernelConfig {
                tile_n: 24,
                warps_n: 1,
                ..base
            }),
            Err("warp_tile_not_multiple_of_instruction")
        );
        assert_eq!(
            r(KernelConfig {
                tile_m: 256,
                warps_m: 2,
                ..base
            }),
            Err("registers_exceed_limit")
        );
        assert_eq!(
            r(KernelConfig {
                family: Family::Direct,
                ..base
            }),
            Err("direct_field_fixed")
        );
        assert_eq!(
            r(KernelConfig {
                direction: Direction::Wgrad,
                ..base
            }),
            Err("direction_not_implemented")
        );
        assert_eq!(
            r(KernelConfig { tile_k: 48, ..base }),
            Err("tile_out_of_range")
        );
    }

    fn prob(key: &str) -> Problem {
        key.parse().unwrap()
    }

    #[test]
    fn can_implement_rules() {
        let base = KernelConfig::default();
        let dense = prob("fwd_bf16_n2_g1_c64_k64_i8x8_f3x3_s1x1_p1x1_d1x1");
        let r = |c: KernelConfig, p: &Problem| can_implement(&c, p).map_err(|e| e.reason());
        assert_eq!(r(base, &dense), Ok(()));
        assert_eq!(
            r(base, &dense.with_dtype(DType::F16)),
            Err("dtype_mismatch")
        );
        assert_eq!(
            r(base, &dense.with_direction(Direction::Dgrad)),
            Err("direction_mismatch")
        );
        let pw = KernelConfig {
            fast_path: FastPath::Pointwise,
            ..base
        };
        assert_eq!(r(pw, &dense), Err("pointwise_inapplicable"));
        assert_eq!(
            r(pw, &prob("fwd_bf16_n2_g1_c64_k64_i8x8_f1x1_s1x1_p0x0_d1x1")),
            Ok(())
        );
        assert_eq!(
            r(pw, &prob("fwd_bf16_n2_g1_c64_k64_i8x8_f1x1_s2x2_p0x0_d1x1")),
            Err("pointwise_inapplicable")
        );
        let gm4 = KernelConfig {
            group_merge: 4,
            ..base
        };
        assert_eq!(
            r(
                gm4,
                &prob("fwd_bf16_n2_g6_c24_k24_i8x8_f3x3_s1x1_p1x1_d1x1")
            ),
            Err("group_merge_not_divisor")
        );
        assert_eq!(
            r(
                gm4,
                &prob("fwd_bf16_n2_g8_c64_k64_i8x8_f3x3_s1x1_p1x1_d1x1")
            ),
            Ok(())
        );
        assert_eq!(
            r(
                gm4,
                &prob("fwd_bf16_n2_g8_c128_k128_i8x8_f3x3_s1x1_p1x1_d1x1")
            ),
            Err("group_merge_exceeds_tile")
        );
        // 2^31 elements of X overflow the 32-bit offsets.
        let big = prob("fwd_bf16_n1024_g1_c256_k8_i128x64_f1x1_s1x1_p0x0_d1x1");
        let e = can_implement(&base, &big).unwrap_err();
        assert_eq!(e.reason(), "index_exceeds_32bit");
        assert!(e.is_unsupported());
    }

    #[test]
    fn effective_vectors_clamp() {
        let base = KernelConfig::default();
        let ev = |c: &KernelConfig, k: &str| effective_vectors(c, &prob(k));
        assert_eq!(
            ev(&base, "fwd_bf16_n1_g1_c64_k64_i8x8_f3x3_s1x1_p1x1_d1x1"),
            EffectiveVectors { a: 8, b: 8, c: 8 }
        );
        assert_eq!(
            ev(&base, "fwd_bf16_n1_g3_c12_k6_i8x8_f3x3_s1x1_p1x1_d1x1"),
            EffectiveVectors { a: 4, b: 4, c: 2 }
        );
        assert_eq!(
            ev(&base, "fwd_bf16_n1_g1_c7_k7_i8x8_f3x3_s1x1_p1x1_d1x1"),
            EffectiveVectors { a: 1, b: 1, c: 1 }
        );
        let gm = KernelConfig {
            group_merge: 16,
            tile_k: 16,
            tile_n: 16,
            warps_n: 1,
            ..base
        };
        assert_eq!(
            ev(&gm, "fwd_bf16_n1_g32_c32_k32_i8x8_f3x3_s1x1_p1x1_d1x1"),
            EffectiveVectors { a: 8, b: 1, c: 8 }
        );
    }

    #[test]
    fn field_accessors() {
        let c = KernelConfig::default();
        for f in FIELDS {
            assert!(c.field_value(f).is_some(), "{f}");
        }
        assert_eq!(c.field_value("tile_m"), Some(128));
        assert_eq!(c.field_value("dtype"), Some(2));
        assert_eq!(c.field_value("nope"), None);
        let mut d = c;
        d.set_field("math", "simt").unwrap();
        d.set_field("dtype", "f32").unwrap();
        d.set_field("fast_path", "pointwise").unwrap();
        d.set_field("split_k_mode", "a").unwrap();
        d.set_field("tile_k", "16").unwrap();
        assert_eq!(d.math, Math::Simt);
        assert_eq!(d.fast_path, FastPath::Pointwise);
        assert_eq!(d.split_k_mode, SplitKMode::Atomic);
        assert_eq!(d.tile_k, 16);
        assert!(matches!(
            d.set_field("tile_k", "-3"),
            Err(FieldError::BadValue { .. })
        ));
        assert!(matches!(
            d.set_field("bogus", "1"),
            Err(FieldError::UnknownField { .. })
        ));
    }

    #[test]
    fn serde_uses_snake_case_and_tokens() {
        let c = KernelConfig::default();
        let j = serde_json::to_string(&c).unwrap();
        assert!(j.contains("\"direction\":\"fwd\""), "{j}");
        assert!(j.contains("\"dtype\":\"bf16\""), "{j}");
        assert!(j.contains("\"split_k_mode\":\"deterministic\""), "{j}");
        assert!(j.contains("\"fast_path\":\"general\""), "{j}");
        assert!(j.contains("\"tile_m\":128"), "{j}");
        let back: KernelConfig = serde_json::from_str(&j).unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn wgmma_needs_sm90a_and_its_own_tile_rules() {
        let c: KernelConfig = "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_gen"
            .parse()
            .unwrap();
        assert_eq!(required_arch(&c), Arch::Sm90a);
        assert_eq!(validate(&c, Arch::Sm90a), Ok(()));
        let e = validate(&c, Arch::Sm90).unwrap_err();
        assert_eq!(e.reason(), "arch_required");
        assert!(e.to_string().contains("sm_90a"), "{e}");
        let r = |c: KernelConfig| validate(&c, Arch::Sm90a).map_err(|e| e.reason());
        assert_eq!(
            r(KernelConfig { tile_k: 32, ..c }),
            Err("tile_out_of_range")
        );
        assert_eq!(r(KernelConfig { stages: 2, ..c }), Err("tile_out_of_range"));
        assert_eq!(
            r(KernelConfig { tile_n: 96, ..c }),
            Err("tile_out_of_range")
        );
        assert_eq!(
            r(KernelConfig {
                warps_m: 4,
                warps_n: 2,
                ..c
            }),
            Err("bad_warp_count")
        );
        // 2 warpgroups x 2 m64 blocks x 256 columns = 256 accumulators per thread: too many.
        assert_eq!(
            r(KernelConfig {
                tile_m: 256,
                tile_n: 256,
                stages: 3,
                ..c
            }),
            Err("tile_out_of_range")
        );
        // Three warpgroups (12 warps, wgmma only): one m64 block each, at most 64 accumulators.
        let w12 = KernelConfig {
            tile_m: 192,
            warps_m: 12,
            ..c
        };
        assert_eq!(r(w12), Ok(()));
        assert_eq!(w12.threads(), 384);
        assert_eq!(wgmma_shape(&w12), (3, 1, 64));
        assert_eq!(
            r(KernelConfig {
                tile_n: 256,
                stages: 3,
                ..w12
            }),
            Err("tile_out_of_range")
        );
        assert_eq!(
            r(KernelConfig { tile_m: 384, ..w12 }),
            Err("tile_out_of_range")
        );
        assert_eq!(
            r(KernelConfig {
                math: Math::Mma,
                tile_k: 32,
                ..w12
            }),
            Err("bad_warp_count")
        );
        assert_eq!(
            r(KernelConfig {
                dtype: DType::F32,
                ..c
            }),
            Err("math_dtype_mismatch")
        );
        // can_implement uses the config's own architecture.
        let p: Problem = "fwd_bf16_n2_g2_c256_k256_i9x9_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        assert_eq!(can_implement(&c, &p), Ok(()));
    }

    #[test]
    fn auto_select_returns_admissible_configs() {
        for key in [
            "fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
            "fwd_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
            "fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
            "fwd_f32_n2_g3_c9_k6_i9x9_f3x3_s2x2_p1x1_d1x1",
            "fwd_f16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        ] {
            let p = prob(key);
            let c = auto_select(&p).unwrap_or_else(|| panic!("nothing for {key}"));
            assert_eq!(can_implement(&c, &p), Ok(()), "{key} -> {c}");
        }
        let pw = auto_select(&prob(
            "fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
        ))
        .unwrap();
        assert_eq!(pw.fast_path, FastPath::Pointwise);
        assert_eq!(
            auto_select(&prob("dgrad_bf16_n2_g1_c64_k64_i8x8_f3x3_s1x1_p1x1_d1x1")),
            None
        );
    }

    #[test]
    fn k_tiles_pack_taps_for_small_merged_channels() {
        let base = KernelConfig::default();
        let dw = prob("fwd_bf16_n1_g32_c32_k32_i8x8_f3x3_s1x1_p1x1_d1x1");
        let gm16 = KernelConfig {
            group_merge: 16,
            tile_k: 64,
            tile_n: 16,
            warps_n: 1,
            ..base
        };
        assert_eq!(k_tiles(&gm16, &dw), 3); // 4 taps of 16 channels per k-tile
        let c48 = prob("fwd_bf16_n1_g1_c48_k48_i8x8_f3x3_s1x1_p1x1_d1x1");
        assert_eq!(k_tiles(&base, &c48), 18); // 48 does not divide 32: 2 blocks per tap
        let c8 = prob("fwd_bf16_n1_g1_c8_k8_i8x8_f3x3_s1x1_p1x1_d1x1");
        assert_eq!(k_tiles(&base, &c8), 3); // 4 taps of 8 channels per k-tile
    }

    #[test]
    fn auto_select_follows_the_measured_regimes() {
        // Depthwise and C/G <= 4: the direct family (7-wide strips on 7/14/28-pixel outputs);
        // through igemm, depthwise merges 16 groups. Dense-ish grouped: no merge; 1x1: the
        // pointwise path.
        let key = "fwd_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1";
        let dw = auto_select(&prob(key)).unwrap();
        assert_eq!(dw.family, Family::Direct, "{dw}");
        let dw7 = auto_select(&prob(
            "fwd_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1",
        ))
        .unwrap();
        assert_eq!(
            (dw7.family, dw7.tile_k, dw7.vec_b),
            (Family::Direct, 7, 7),
            "{dw7}"
        );
        let cpg4 = auto_select(&prob(
            "fwd_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
        ))
        .unwrap();
        assert_eq!(cpg4.family, Family::Direct, "{cpg4}");
        let cpg8 = auto_select(&prob(
            "fwd_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
        ))
        .unwrap();
        assert_eq!(
            (cpg8.family, cpg8.math),
            (Family::Direct, Math::Mma),
            "{cpg8}"
        );
        // C/G 128 and 1x1 layers stay on igemm.
        let pw128 = auto_select(&prob(
            "fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
        ))
        .unwrap();
        assert_eq!(pw128.family, Family::Igemm, "{pw128}");
        let dw_igemm = auto_select_igemm(&prob(key)).unwrap();
        assert_eq!(dw_igemm.group_merge, 16, "{dw_igemm}");
        let dense = auto_select(&prob(
            "fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
        ))
        .unwrap();
        assert_eq!(dense.group_merge, 1, "{dense}");
        assert!(dense.tile_n >= 64, "{dense}");
        let pw = auto_select(&prob("fwd_f16_n8_g1_c64_k64_i14x14_f1x1_s1x1_p0x0_d1x1")).unwrap();
        assert_eq!(pw.fast_path, FastPath::Pointwise, "{pw}");
        let f32c = auto_select(&prob("fwd_f32_n2_g8_c64_k64_i14x14_f3x3_s1x1_p1x1_d1x1")).unwrap();
        assert_eq!(f32c.math, Math::Simt, "{f32c}");
    }

    fn arb_config() -> impl Strategy<Value = KernelConfig> {
        (
            (0usize..2, 0usize..3, 0usize..3),
            (1u32..300, 1u32..300, 1u32..100),
            (0u32..10, 0u32..10, 0u32..8),
            (0u32..20, 0u32..20, 0u32..40, 0u32..100),
            (0usize..2, 0usize..4, 0usize..2),
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
