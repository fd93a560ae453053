//! Kernel identity: [`KernelConfig`] (plain data, every field explicit), its enums and their
//! tokens, and the field accessors the tile engine's trait configs and filter language use.
//!
//! Nothing here knows what a family does with a field: the rules live in each family's module
//! (`crate::igemm`, `crate::direct`), admission in [`crate::admit`](mod@crate::admit), the canonical name in
//! [`crate::name`], the reasons a config is refused in [`crate::rejection`]. What the shared
//! fields mean for each family is in `ARCHITECTURE.md` at the repository root and in the family
//! module docs (the direct family has a typed view, `crate::direct::DirectView`).

use gconv_problem::{DType, Direction};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The index (0–8) of a direction and dtype among the nine pools, for the pools kept once per
/// process (`crate::catalogue::validated_pool`, `crate::igemm::pool::cached`).
pub(crate) fn pool_slot(direction: Direction, dtype: DType) -> usize {
    let d = Direction::ALL
        .iter()
        .position(|&x| x == direction)
        .unwrap_or(0);
    let t = DType::ALL.iter().position(|&x| x == dtype).unwrap_or(0);
    d * 3 + t
}

/// Kernel family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// Implicit GEMM (tensor cores for f16/bf16, FFMA for f32).
    Igemm,
    /// Direct convolution over shared-memory halo tiles (depthwise, channel multipliers, small
    /// C/G; CUDA cores or tensor cores).
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
    /// The slices of one output block (the streaming depthwise wgrad kernel's slabs of a
    /// channel block, igemm wgrad's split-K slices of a tile) are one thread-block cluster
    /// (sm_90) and sum their f32 partials through distributed shared memory in a fixed order
    /// inside the launch: no workspace, no second launch (bitwise reproducible). Backward
    /// weight: the streaming kernel 2–16 slabs (`DeviceLimits::MAX_CLUSTER`), igemm 2–8
    /// (`DeviceLimits::PORTABLE_CLUSTER`) or 0, the rule's degree clamped to 8.
    Cluster,
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
    /// `wgmma` with a warp-specialised schedule: two extra producer warpgroups (256 threads
    /// beyond `warps_m × warps_n`, [`Math::producer_threads`]) compute the loader addresses
    /// and fill the stages, each tracked by a pair of shared-memory barriers (full / empty);
    /// the consumer warpgroups only wait, issue wgmma batches and release stages. No CTA-wide
    /// barrier in the main loop.
    WgmmaWs,
    /// `wgmma` with the warp-specialised schedule fed by the Tensor Memory Accelerator: one
    /// producer warp (32 threads beyond `warps_m × warps_n`), one of whose lanes issues each
    /// stage's operand tiles as `cp.async.bulk.tensor` box copies (the backend's tensor maps,
    /// the 128-byte swizzle written by the copy engine) that complete the stage's full barrier
    /// by their bytes; no loader address arithmetic. Pointwise and general in the three
    /// directions, `tile_k = 64`, group merge in backward weight only (`crate::igemm` module
    /// docs).
    WgmmaTma,
}

/// Specialised code paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FastPath {
    /// Any filter, stride, padding, dilation.
    General,
    /// 1×1 filter, stride 1, no padding: A is a plain row-major matrix.
    Pointwise,
    /// Forward or backward data at stride 1 on wgmma: the CTA stages one halo of the A
    /// operand's rows (X or dY) per 64-channel block once, in the padded image's linear pixel
    /// order, and every tap's A tile is that halo read from a start shifted by the tap's pixel
    /// offset (`crate::igemm` module docs).
    Halo,
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
    pub const ALL: [SplitKMode; 3] = [
        SplitKMode::Deterministic,
        SplitKMode::Atomic,
        SplitKMode::Cluster,
    ];
    /// Name token (the suffix letter after `sk{n}`).
    pub fn token(self) -> &'static str {
        match self {
            SplitKMode::Deterministic => "d",
            SplitKMode::Atomic => "a",
            SplitKMode::Cluster => "c",
        }
    }
    /// Long token used by [`KernelConfig::set_field`] and serde.
    pub fn long_token(self) -> &'static str {
        match self {
            SplitKMode::Deterministic => "deterministic",
            SplitKMode::Atomic => "atomic",
            SplitKMode::Cluster => "cluster",
        }
    }
}

impl Math {
    /// All math kinds, in index order.
    pub const ALL: [Math; 6] = [
        Math::Mma,
        Math::Simt,
        Math::Tf32,
        Math::Wgmma,
        Math::WgmmaWs,
        Math::WgmmaTma,
    ];
    /// Name token.
    pub fn token(self) -> &'static str {
        match self {
            Math::Mma => "mma",
            Math::Simt => "simt",
            Math::Tf32 => "tf32",
            Math::Wgmma => "wgmma",
            Math::WgmmaWs => "wgmmaws",
            Math::WgmmaTma => "wgmmatma",
        }
    }
    /// Whether the math issues Hopper warpgroup MMAs (`wgmma`, `wgmmaws` or `wgmmatma`): the
    /// instruction shapes, the swizzled tiles and sm_90a are theirs.
    pub fn is_wgmma(self) -> bool {
        matches!(self, Math::Wgmma | Math::WgmmaWs | Math::WgmmaTma)
    }
    /// Whether the schedule is warp-specialised (producers beyond the math warps, full and
    /// empty barriers per stage): `wgmmaws` and `wgmmatma`.
    pub fn is_warp_specialised(self) -> bool {
        matches!(self, Math::WgmmaWs | Math::WgmmaTma)
    }
    /// Threads a kernel adds beyond its math warps: the producer warpgroups of `wgmmaws`, the
    /// producer warp of `wgmmatma`.
    pub fn producer_threads(self) -> u32 {
        match self {
            Math::WgmmaWs => 256,
            Math::WgmmaTma => 32,
            _ => 0,
        }
    }
}

impl FastPath {
    /// All fast paths, in index order.
    pub const ALL: [FastPath; 3] = [FastPath::General, FastPath::Pointwise, FastPath::Halo];
    /// Name token.
    pub fn token(self) -> &'static str {
        match self {
            FastPath::General => "gen",
            FastPath::Pointwise => "pw",
            FastPath::Halo => "halo",
        }
    }
    /// Long token used by [`KernelConfig::set_field`] and serde.
    pub fn long_token(self) -> &'static str {
        match self {
            FastPath::General => "general",
            FastPath::Pointwise => "pointwise",
            FastPath::Halo => "halo",
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
        expected: String,
    },
}

/// `"a, b or c"`: accepted words in their order (the enum fields' parse messages list their
/// type's `ALL` through this, so a new variant is named without editing a message).
pub(crate) fn one_of(words: impl IntoIterator<Item = String>) -> String {
    let words: Vec<String> = words.into_iter().collect();
    match words.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

impl KernelConfig {
    /// Threads per CTA: the math warps, and the producers of `wgmmaws` and `wgmmatma`.
    pub fn threads(&self) -> u32 {
        32 * self.warps_m * self.warps_n + self.math.producer_threads()
    }

    /// Numeric value of a field for the tile engine's filter language: numbers as themselves,
    /// enums as their index in the type's `ALL` order (direction and dtype as in
    /// `Direction::ALL` / `DType::ALL`). `None` for an unknown field.
    pub fn field_value(&self, field: &str) -> Option<i64> {
        FIELDS
            .iter()
            .position(|f| *f == field)
            .map(|i| self.field_values()[i])
    }

    /// Every field's [`KernelConfig::field_value`], in [`FIELDS`] order (no name lookups: the
    /// learned selection reads all of them for every candidate).
    pub fn field_values(&self) -> [i64; FIELDS.len()] {
        fn idx<T: PartialEq>(all: &[T], v: &T) -> i64 {
            all.iter().position(|x| x == v).unwrap_or(0) as i64
        }
        [
            idx(&Family::ALL, &self.family),
            idx(&Direction::ALL, &self.direction),
            idx(&DType::ALL, &self.dtype),
            self.tile_m as i64,
            self.tile_n as i64,
            self.tile_k as i64,
            self.warps_m as i64,
            self.warps_n as i64,
            self.stages as i64,
            self.vec_a as i64,
            self.vec_b as i64,
            self.group_merge as i64,
            self.split_k as i64,
            idx(&SplitKMode::ALL, &self.split_k_mode),
            idx(&Math::ALL, &self.math),
            idx(&FastPath::ALL, &self.fast_path),
        ]
    }

    /// Sets a field from its textual value: numbers in decimal, enums by token (`igemm`,
    /// `fwd`, `bf16`, `deterministic`/`d`, `mma`, `general`/`gen`, ...) or by index.
    pub fn set_field(&mut self, field: &str, value: &str) -> Result<(), FieldError> {
        fn bad(field: &str, value: &str, expected: String) -> FieldError {
            FieldError::BadValue {
                field: field.to_string(),
                value: value.to_string(),
                expected,
            }
        }
        // An enum field by token (short or long) or by index into `all`; the message lists
        // every value of `all` as "long (short)", or the token alone where they are one.
        fn pick<T: Copy>(
            all: &[T],
            tokens: &dyn Fn(T) -> [&'static str; 2],
            field: &str,
            value: &str,
        ) -> Result<T, FieldError> {
            let expected = || {
                one_of(all.iter().map(|&v| match tokens(v) {
                    [short, long] if short == long => short.to_string(),
                    [short, long] => format!("{long} ({short})"),
                }))
            };
            if let Ok(i) = value.parse::<usize>() {
                return all
                    .get(i)
                    .copied()
                    .ok_or_else(|| bad(field, value, expected()));
            }
            all.iter()
                .copied()
                .find(|&v| tokens(v).contains(&value))
                .ok_or_else(|| bad(field, value, expected()))
        }
        let num = |expected: &str| -> Result<u32, FieldError> {
            value
                .parse::<u32>()
                .map_err(|_| bad(field, value, expected.to_string()))
        };
        match field {
            "family" => {
                self.family = pick(
                    &Family::ALL,
                    &|f: Family| [f.token(), f.token()],
                    field,
                    value,
                )?
            }
            "direction" => {
                self.direction = pick(
                    &Direction::ALL,
                    &|d: Direction| [d.token(), d.token()],
                    field,
                    value,
                )?
            }
            "dtype" => {
                self.dtype = pick(
                    &DType::ALL,
                    &|d: DType| [d.token(), d.token()],
                    field,
                    value,
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
                )?
            }
            "math" => {
                self.math = pick(&Math::ALL, &|m: Math| [m.token(), m.token()], field, value)?
            }
            "fast_path" => {
                self.fast_path = pick(
                    &FastPath::ALL,
                    &|f: FastPath| [f.token(), f.long_token()],
                    field,
                    value,
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
