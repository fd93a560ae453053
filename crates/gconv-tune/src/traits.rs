//! Trait-config JSON and the instance builder.
//!
//! # Format (GPU kernels)
//!
//! ```json
//! {
//!   "variant": "forward",
//!   "description": "optional free text",
//!   "trait_config": {
//!     "dtype":       {"values": ["bf16"]},
//!     "tile_m":      {"values": [64, 128, 256]},
//!     "stages":      {"values": [2, 3, 4]},
//!     "fast_path":   {"values": ["general", "pointwise"]}
//!   }
//! }
//! ```
//!
//! `variant` is the kernels' direction, as a key token (`fwd`, `dgrad`, `wgrad`) or its alias
//! (`forward`, `bwd_data`, `bwd_weight`), parsed by `Direction::parse_any` like every other input
//! that names a direction (so `direction` may not appear in `trait_config`). Every other field
//! of `KernelConfig` may be given, with a non-empty list of values: integers for numeric fields,
//! tokens (strings) for the others (`family`: `igemm`/`direct`; `dtype`: `f32`/`f16`/`bf16`;
//! `split_k_mode`: `deterministic`/`atomic`/`cluster`; `math`: `mma`/`simt`/`tf32`/`wgmma`/
//! `wgmmaws`; `fast_path`: `general`/`pointwise`/`halo`). A missing field takes its value from
//! `KernelConfig::baseline(direction, dtype)` for each dtype in the product (the dtype itself
//! defaults to bf16), so that f32 gets f32 defaults. An unknown field, an empty list, or a value
//! of the wrong type is an error naming the field and its position in the file.
//!
//! # Format (CPU variants)
//!
//! ```json
//! {"variant": "forward", "backend": "cpu",
//!  "trait_config": {"cpu_variant": {"values": ["cpu_direct", "cpu_im2col_gemm"]}}}
//! ```
//!
//! `cpu_variant` lists CPU backend variant names; when missing, the CPU pool (`cpu_direct`,
//! `cpu_im2col_gemm`: the two planted test variants run only when listed).
//!
//! # Building
//!
//! [`build_instances`] expands the cartesian product, keeps what `validate(cfg, arch)` accepts
//! and counts the rest by `Rejection::reason()`, removes duplicate names, applies the optional
//! `--filter` expression, and reports every count. A config that keeps no kernel is an error.

use crate::error::TuneError;
use crate::filter::{Filter, FilterSchema};
use gconv_kernels::config::{FieldError, KernelConfig, FIELDS};
use gconv_kernels::Arch;
use gconv_kernels::{validate, Rejection};
use gconv_problem::{DType, Direction};
use gconv_reference::CpuVariant;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// Largest cartesian product the builder expands.
pub const MAX_COMBINATIONS: u64 = 5_000_000;

/// `KernelConfig` fields whose values are tokens (strings) rather than integers.
pub const TOKEN_FIELDS: &[&str] = &[
    "family",
    "direction",
    "dtype",
    "split_k_mode",
    "math",
    "fast_path",
];

/// The `--filter` schema of kernel configs: the `KernelConfig` fields, the [`TOKEN_FIELDS`] as
/// enum fields. A value is resolved by `KernelConfig::set_field` (the token tables of kernel
/// names, e.g. `pw`/`pointwise`, `d`/`deterministic`, or an index) and read back as the index
/// `KernelConfig::field_value` gives the filter; `direction` values go through
/// `Direction::parse_any` first, so its aliases (`forward`, ...) work too.
#[derive(Debug, Clone, Copy, Default)]
pub struct KernelFilterSchema;

impl FilterSchema for KernelFilterSchema {
    fn fields(&self) -> &[&str] {
        FIELDS
    }

    fn enum_values(&self, field: &str) -> Option<String> {
        if !TOKEN_FIELDS.contains(&field) {
            return None;
        }
        if field == "direction" {
            let list = |f: fn(Direction) -> &'static str| Direction::ALL.map(f).join(", ");
            return Some(format!(
                "{} (or {})",
                list(Direction::token),
                list(Direction::alias)
            ));
        }
        // No token is empty, so this names what the field accepts.
        match KernelConfig::default().set_field(field, "") {
            Err(FieldError::BadValue { expected, .. }) => Some(expected),
            _ => Some(String::new()),
        }
    }

    fn enum_index(&self, field: &str, text: &str) -> Option<i64> {
        if !TOKEN_FIELDS.contains(&field) {
            return None;
        }
        let text = if field == "direction" && text.parse::<usize>().is_err() {
            Direction::parse_any(text).ok()?.token()
        } else {
            text
        };
        let mut c = KernelConfig::default();
        c.set_field(field, text).ok()?;
        c.field_value(field)
    }
}

/// Which backend a trait config enumerates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// GPU kernel configs.
    Gpu,
    /// CPU backend variants.
    Cpu,
}

/// A parsed trait config (not yet expanded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraitConfig {
    /// The file it came from (for messages).
    pub path: PathBuf,
    /// Direction of the kernels.
    pub variant: Direction,
    /// GPU or CPU.
    pub backend: Backend,
    /// GPU: `(field, textual values)` in `FIELDS` order; only fields present in the file.
    pub fields: Vec<(String, Vec<String>)>,
    /// CPU: the variants listed.
    pub cpu_variants: Vec<CpuVariant>,
}

/// 1-based line and column of the first `"key"` followed by `:` in `text`, if any.
fn locate(text: &str, key: &str) -> (usize, usize) {
    let needle = format!("\"{key}\"");
    let mut from = 0;
    while let Some(off) = text[from..].find(&needle) {
        let at = from + off;
        let after = text[at + needle.len()..].trim_start();
        if after.starts_with(':') {
            let before = &text[..at];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            return (line, col);
        }
        from = at + needle.len();
    }
    (0, 0)
}

fn field_err(path: &Path, text: &str, field: &str, message: String) -> TuneError {
    let (line, column) = locate(text, field);
    TuneError::ConfigField {
        path: path.to_path_buf(),
        line,
        column,
        field: field.to_string(),
        message,
    }
}

/// [`field_err`] for a key of the config's top level (`variant`, `backend`, `trait_config`,
/// an unknown key), which is no field of `trait_config`.
fn key_err(path: &Path, text: &str, key: &str, message: String) -> TuneError {
    let (line, column) = locate(text, key);
    TuneError::ConfigKey {
        path: path.to_path_buf(),
        line,
        column,
        key: key.to_string(),
        message,
    }
}

/// Parses a trait config from its text; `path` is used in messages only.
pub fn parse_trait_config(path: &Path, text: &str) -> Result<TraitConfig, TuneError> {
    let root: Value = serde_json::from_str(text).map_err(|e| TuneError::ConfigSyntax {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let Value::Object(top) = root else {
        return Err(TuneError::ConfigSyntax {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            message: "the config must be a JSON object with \"variant\" and \"trait_config\""
                .into(),
        });
    };
    for k in top.keys() {
        if !["variant", "backend", "trait_config", "description"].contains(&k.as_str()) {
            return Err(key_err(
                path,
                text,
                k,
                "unknown key (expected variant, backend, trait_config, description)".into(),
            ));
        }
    }
    let variant = match top.get("variant") {
        Some(Value::String(s)) => {
            Direction::parse_any(s).map_err(|error| TuneError::UnknownVariant {
                path: path.to_path_buf(),
                error,
            })?
        }
        Some(other) => {
            return Err(key_err(
                path,
                text,
                "variant",
                format!("expected a direction string (fwd, dgrad, wgrad or forward, bwd_data, bwd_weight), found {other}"),
            ))
        }
        None => {
            return Err(TuneError::ConfigSyntax {
                path: path.to_path_buf(),
                line: 0,
                column: 0,
                message: "missing \"variant\" (fwd, dgrad, wgrad or forward, bwd_data, bwd_weight)".into(),
            })
        }
    };
    let backend = match top.get("backend") {
        None => Backend::Gpu,
        Some(Value::String(s)) if s == "gpu" => Backend::Gpu,
        Some(Value::String(s)) if s == "cpu" => Backend::Cpu,
        Some(other) => {
            return Err(key_err(
                path,
                text,
                "backend",
                format!("expected \"gpu\" or \"cpu\", found {other}"),
            ))
        }
    };
    let tc = match top.get("trait_config") {
        Some(Value::Object(m)) => m.clone(),
        Some(other) => {
            return Err(key_err(
                path,
                text,
                "trait_config",
                format!("expected an object of fields, found {other}"),
            ))
        }
        None => {
            return Err(TuneError::ConfigSyntax {
                path: path.to_path_buf(),
                line: 0,
                column: 0,
                message: "missing \"trait_config\" (use {} for all defaults)".into(),
            })
        }
    };
    // Every field: {"values": [non-empty list]}.
    let mut lists: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (field, spec) in &tc {
        let values = match spec {
            Value::Object(o) if o.len() == 1 && o.contains_key("values") => &o["values"],
            _ => {
                return Err(field_err(
                    path,
                    text,
                    field,
                    format!("expected {{\"values\": [...]}}, found {spec}"),
                ))
            }
        };
        match values {
            Value::Array(a) if !a.is_empty() => {
                lists.insert(field.clone(), a.clone());
            }
            _ => {
                return Err(field_err(
                    path,
                    text,
                    field,
                    format!("\"values\" must be a non-empty list, found {values}"),
                ))
            }
        }
    }
    match backend {
        Backend::Cpu => {
            let mut cpu_variants = Vec::new();
            for (field, values) in &lists {
                if field != "cpu_variant" {
                    return Err(field_err(
                        path,
                        text,
                        field,
                        "unknown field for a CPU config (the only field is cpu_variant)".into(),
                    ));
                }
                for v in values {
                    let Value::String(s) = v else {
                        return Err(field_err(
                            path,
                            text,
                            field,
                            format!("expected a CPU variant name (string), found {v}"),
                        ));
                    };
                    let cv: CpuVariant = s
                        .parse()
                        .map_err(|e| field_err(path, text, field, format!("{e}")))?;
                    cpu_variants.push(cv);
                }
            }
            if !lists.contains_key("cpu_variant") {
                cpu_variants = CpuVariant::POOL.to_vec();
            }
            Ok(TraitConfig {
                path: path.to_path_buf(),
                variant,
                backend,
                fields: Vec::new(),
                cpu_variants,
            })
        }
        Backend::Gpu => {
            for field in lists.keys() {
                if field == "direction" {
                    return Err(field_err(
                        path,
                        text,
                        field,
                        "the direction is set by \"variant\"".into(),
                    ));
                }
                if !FIELDS.contains(&field.as_str()) {
                    return Err(field_err(
                        path,
                        text,
                        field,
                        format!("unknown field (known: {})", FIELDS.join(", ")),
                    ));
                }
            }
            let mut fields = Vec::new();
            for &field in FIELDS {
                let Some(values) = lists.get(field) else {
                    continue;
                };
                let token = TOKEN_FIELDS.contains(&field);
                let mut texts = Vec::new();
                for v in values {
                    let t = match (token, v) {
                        (true, Value::String(s)) => s.clone(),
                        (false, Value::Number(n))
                            if n.as_u64().is_some_and(|x| x <= u32::MAX as u64) =>
                        {
                            n.to_string()
                        }
                        (true, _) => {
                            return Err(field_err(
                                path,
                                text,
                                field,
                                format!("expected a token (string), found {v}"),
                            ))
                        }
                        (false, _) => {
                            return Err(field_err(
                                path,
                                text,
                                field,
                                format!("expected a non-negative 32-bit integer, found {v}"),
                            ))
                        }
                    };
                    let mut scratch = KernelConfig::default();
                    scratch
                        .set_field(field, &t)
                        .map_err(|e| field_err(path, text, field, e.to_string()))?;
                    texts.push(t);
                }
                fields.push((field.to_string(), texts));
            }
            Ok(TraitConfig {
                path: path.to_path_buf(),
                variant,
                backend,
                fields,
                cpu_variants: Vec::new(),
            })
        }
    }
}

/// Reads and parses a trait-config file.
pub fn load_trait_config(path: &Path) -> Result<TraitConfig, TuneError> {
    let text = crate::outfile::read_input_string(path).map_err(|e| TuneError::io(path, e))?;
    parse_trait_config(path, &text)
}

/// What the instance builder produced, with every count.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceReport {
    /// The config file.
    pub path: PathBuf,
    /// Direction of the kernels.
    pub variant: Direction,
    /// GPU or CPU.
    pub backend: Backend,
    /// Architecture used by `validate`.
    pub arch: Arch,
    /// Kept kernel names, in expansion order.
    pub kernels: Vec<String>,
    /// The kept GPU configs (same order as `kernels`; empty for CPU).
    pub configs: Vec<KernelConfig>,
    /// Combinations in the cartesian product.
    pub total: usize,
    /// Combinations `validate` refused, by `Rejection::reason()`.
    pub dropped: BTreeMap<String, usize>,
    /// Valid combinations whose name was already kept.
    pub duplicates: usize,
    /// Valid, distinct kernels the filter removed.
    pub filtered_out: usize,
    /// The filter text, if any.
    pub filter: Option<String>,
    /// The architecture and math path of the first `arch_required` drop (`("sm_90a", "wgmma")`).
    pub arch_needed: Option<(&'static str, &'static str)>,
}

fn dropped_text(dropped: &BTreeMap<String, usize>) -> String {
    if dropped.is_empty() {
        "none".into()
    } else {
        dropped
            .iter()
            .map(|(r, n)| format!("{r}={n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for InstanceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} kernel(s) for {} ({}, {}) from {} combination(s)",
            self.path.display(),
            self.kernels.len(),
            self.variant.token(),
            match self.backend {
                Backend::Gpu => "gpu",
                Backend::Cpu => "cpu",
            },
            self.arch.nvrtc_arch(),
            self.total
        )?;
        writeln!(f, "  dropped by validate: {}", dropped_text(&self.dropped))?;
        write!(f, "  duplicates: {}", self.duplicates)?;
        if let Some(flt) = &self.filter {
            write!(f, "\n  removed by filter {flt:?}: {}", self.filtered_out)?;
        }
        if let Some(hint) = self.arch_hint() {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}

impl InstanceReport {
    /// When `validate` dropped combinations as `arch_required`, the `--arch` that keeps them
    /// (`every dropped combination needs --arch sm_90a ...` when they are all there is).
    pub fn arch_hint(&self) -> Option<String> {
        let (needs, math) = self.arch_needed?;
        let n = self.dropped.get("arch_required").copied().unwrap_or(0);
        let which = if self.dropped.len() == 1 {
            "every dropped combination needs".to_string()
        } else {
            format!("{n} dropped combination(s) need")
        };
        Some(format!(
            "{which} --arch {needs} (math {math}); pass --arch {needs} to keep them"
        ))
    }

    /// The kernel list as JSON (for `--export-json`): variant, backend, arch, counts, and each
    /// kernel's name with its config.
    pub fn to_json(&self) -> Value {
        let kernels: Vec<Value> = if self.configs.is_empty() {
            self.kernels.iter().map(|k| json!({ "name": k })).collect()
        } else {
            self.kernels
                .iter()
                .zip(&self.configs)
                .map(|(k, c)| json!({ "name": k, "config": c }))
                .collect()
        };
        json!({
            "variant": self.variant.token(),
            "backend": match self.backend { Backend::Gpu => "gpu", Backend::Cpu => "cpu" },
            "arch": self.arch.nvrtc_arch(),
            "source": self.path.display().to_string(),
            "total": self.total,
            "dropped": self.dropped,
            "duplicates": self.duplicates,
            "filter": self.filter,
            "filtered_out": self.filtered_out,
            "count": self.kernels.len(),
            "kernels": kernels,
        })
    }

    /// Writes [`InstanceReport::to_json`] to a file, pretty-printed, through a temporary file
    /// and a rename ([`crate::outfile::write_atomic`]). The config the report was built from is
    /// never the output: that is refused, as is a target that is not a regular file.
    pub fn export_json(&self, path: &Path) -> Result<(), TuneError> {
        if let (Ok(out), Ok(config)) = (path.canonicalize(), self.path.canonicalize()) {
            if out == config {
                return Err(TuneError::OutputIsInput {
                    output: path.to_path_buf(),
                    input: self.path.clone(),
                });
            }
        }
        let text = serde_json::to_string_pretty(&self.to_json())
            .map_err(|e| TuneError::io(path, std::io::Error::other(e)))?;
        crate::outfile::write_atomic(path, (text + "\n").as_bytes())
    }
}

/// Steps an odometer over `lens` (last position fastest); false after the last combination.
fn advance(idx: &mut [usize], lens: &[usize]) -> bool {
    for k in (0..idx.len()).rev() {
        idx[k] += 1;
        if idx[k] < lens[k] {
            return true;
        }
        idx[k] = 0;
    }
    false
}

/// Expands a parsed trait config; see the module documentation.
pub fn expand(
    cfg: &TraitConfig,
    arch: Arch,
    filter: Option<&str>,
) -> Result<InstanceReport, TuneError> {
    let mut report = InstanceReport {
        path: cfg.path.clone(),
        variant: cfg.variant,
        backend: cfg.backend,
        arch,
        kernels: Vec::new(),
        configs: Vec::new(),
        total: 0,
        dropped: BTreeMap::new(),
        duplicates: 0,
        filtered_out: 0,
        filter: filter.map(str::to_string),
        arch_needed: None,
    };
    match cfg.backend {
        Backend::Cpu => {
            if filter.is_some() {
                return Err(TuneError::Option {
                    option: "--filter",
                    message: "filters apply to GPU kernel fields; a CPU config has none".into(),
                });
            }
            let mut seen = HashSet::new();
            report.total = cfg.cpu_variants.len();
            for v in &cfg.cpu_variants {
                if seen.insert(*v) {
                    report.kernels.push(v.name().to_string());
                } else {
                    report.duplicates += 1;
                }
            }
        }
        Backend::Gpu => {
            let flt = filter
                .map(|f| Filter::parse_with(f, &KernelFilterSchema))
                .transpose()?;
            let dtypes: Vec<DType> = match cfg.fields.iter().find(|(f, _)| f == "dtype") {
                Some((_, vs)) => vs
                    .iter()
                    .filter_map(|v| {
                        let mut c = KernelConfig::default();
                        c.set_field("dtype", v).ok().map(|_| c.dtype)
                    })
                    .collect(),
                None => vec![DType::Bf16],
            };
            let others: Vec<&(String, Vec<String>)> =
                cfg.fields.iter().filter(|(f, _)| f != "dtype").collect();
            let total: u64 = others
                .iter()
                .try_fold(dtypes.len() as u64, |acc, (_, v)| {
                    acc.checked_mul(v.len() as u64)
                })
                .unwrap_or(u64::MAX);
            if total > MAX_COMBINATIONS {
                return Err(TuneError::ConfigField {
                    path: cfg.path.clone(),
                    line: 0,
                    column: 0,
                    field: "trait_config".into(),
                    message: format!(
                        "the cartesian product has {total} combinations, more than the limit {MAX_COMBINATIONS}; narrow some value lists"
                    ),
                });
            }
            report.total = total as usize;
            let lens: Vec<usize> = others.iter().map(|(_, v)| v.len()).collect();
            let mut seen = HashSet::new();
            for &dt in &dtypes {
                let base = KernelConfig::baseline(cfg.variant, dt);
                let mut idx = vec![0usize; others.len()];
                loop {
                    let mut c = base;
                    for (k, (field, values)) in others.iter().enumerate() {
                        c.set_field(field, &values[idx[k]]).map_err(|e| {
                            TuneError::ConfigField {
                                path: cfg.path.clone(),
                                line: 0,
                                column: 0,
                                field: field.clone(),
                                message: e.to_string(),
                            }
                        })?;
                    }
                    match validate(&c, arch) {
                        Err(r) => {
                            if let Rejection::ArchRequired { needs, math, .. } = r {
                                report.arch_needed.get_or_insert((needs, math));
                            }
                            *report.dropped.entry(r.reason().to_string()).or_insert(0) += 1
                        }
                        Ok(()) => {
                            let name = c.to_string();
                            if !seen.insert(name.clone()) {
                                report.duplicates += 1;
                            } else if let Some(f) = &flt {
                                if f.eval(&|field| c.field_value(field))? {
                                    report.kernels.push(name);
                                    report.configs.push(c);
                                } else {
                                    report.filtered_out += 1;
                                }
                            } else {
                                report.kernels.push(name);
                                report.configs.push(c);
                            }
                        }
                    }
                    if !advance(&mut idx, &lens) {
                        break;
                    }
                }
            }
        }
    }
    if report.kernels.is_empty() {
        let mut dropped = dropped_text(&report.dropped);
        if report.filtered_out > 0 {
            dropped.push_str(&format!("; filter removed {}", report.filtered_out));
        }
        return Err(TuneError::EmptyCatalogue {
            path: cfg.path.clone(),
            total: report.total,
            dropped,
            hint: report.arch_hint(),
        });
    }
    Ok(report)
}

/// Loads a trait config and expands it: the library side of `gconv kernels CONFIG.json`.
pub fn build_instances(
    path: &Path,
    arch: Arch,
    filter: Option<&str>,
) -> Result<InstanceReport, TuneError> {
    expand(&load_trait_config(path)?, arch, filter)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TraitConfig, TuneError> {
        parse_trait_config(Path::new("t.json"), text)
    }

    fn build(text: &str, filter: Option<&str>) -> Result<InstanceReport, TuneError> {
        expand(&parse(text)?, Arch::Sm90, filter)
    }

    #[test]
    fn token_fields_are_exactly_the_non_numeric_ones() {
        for &f in FIELDS {
            let mut c = KernelConfig::default();
            let numeric = c.set_field(f, "7").is_ok() && c.field_value(f) == Some(7);
            let mut c = KernelConfig::default();
            let bogus_token = c.set_field(f, "bogus").is_ok();
            assert!(!bogus_token, "{f}");
            assert_eq!(
                TOKEN_FIELDS.contains(&f),
                !numeric,
                "field {f}: update TOKEN_FIELDS"
            );
        }
    }

    #[test]
    fn variant_takes_either_direction_spelling() {
        for (spelling, d) in [
            ("forward", Direction::Fwd),
            ("fwd", Direction::Fwd),
            ("bwd_data", Direction::Dgrad),
            ("dgrad", Direction::Dgrad),
            ("bwd_weight", Direction::Wgrad),
            ("wgrad", Direction::Wgrad),
        ] {
            // GPU kernels exist for fwd only; the CPU variants run every direction.
            let text =
                format!(r#"{{"variant": "{spelling}", "backend": "cpu", "trait_config": {{}}}}"#);
            let r = build(&text, None).unwrap_or_else(|e| panic!("{spelling}: {e}"));
            assert_eq!(r.variant, d);
            // Outputs print the key token.
            assert!(
                r.to_string().contains(&format!("for {} (cpu", d.token())),
                "{r}"
            );
            assert_eq!(r.to_json()["variant"], d.token());
            assert_eq!(
                parse(&text.replace(r#""backend": "cpu", "#, ""))
                    .unwrap()
                    .variant,
                d
            );
        }
        let e = parse(r#"{"variant": "backward", "trait_config": {}}"#).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, TuneError::UnknownVariant { .. }), "{msg}");
        for want in ["t.json", "\"backward\"", "fwd", "forward", "bwd_weight"] {
            assert!(msg.contains(want), "{msg}");
        }
    }

    #[test]
    fn empty_trait_config_is_the_baseline() {
        let r = build(r#"{"variant": "forward", "trait_config": {}}"#, None).unwrap();
        assert_eq!(r.total, 1);
        assert_eq!(r.kernels, vec![KernelConfig::default().to_string()]);
    }

    #[test]
    fn product_counts_and_drops() {
        let text = r#"{"variant": "forward", "trait_config": {
            "tile_m": {"values": [64, 128, 999]},
            "stages": {"values": [2, 3, 3, 9]}
        }}"#;
        let r = build(text, None).unwrap();
        assert_eq!(r.total, 12);
        // 999 is out of range (4 combos), stage 9 out of range (2 more with valid tiles)
        assert_eq!(r.dropped.values().sum::<usize>(), 6, "{r}");
        assert_eq!(r.dropped["tile_out_of_range"], 4);
        assert_eq!(r.dropped["stages_out_of_range"], 2);
        assert_eq!(r.duplicates, 2, "stage 3 listed twice");
        assert_eq!(r.kernels.len(), 4);
        assert_eq!(
            r.kernels.len() + r.duplicates + r.dropped.values().sum::<usize>(),
            r.total
        );
        // every kept kernel is valid and round-trips
        for (k, c) in r.kernels.iter().zip(&r.configs) {
            assert_eq!(k.parse::<KernelConfig>().unwrap(), *c);
            assert!(validate(c, Arch::Sm90).is_ok());
        }
        let s = r.to_string();
        assert!(s.contains("tile_out_of_range=4"), "{s}");
    }

    #[test]
    fn dtype_sets_the_defaults() {
        let r = build(
            r#"{"variant": "forward", "trait_config": {"dtype": {"values": ["f32", "bf16"]}}}"#,
            None,
        )
        .unwrap();
        assert_eq!(r.configs.len(), 2);
        assert_eq!(
            r.configs[0],
            KernelConfig::baseline(Direction::Fwd, DType::F32)
        );
        assert_eq!(
            r.configs[1],
            KernelConfig::baseline(Direction::Fwd, DType::Bf16)
        );
    }

    #[test]
    fn filter_applies() {
        let text = r#"{"variant": "forward", "trait_config": {
            "tile_n": {"values": [64, 128]}, "stages": {"values": [2, 3, 4]}}}"#;
        let r = build(text, Some("tile_n >= 128 && stages == 3")).unwrap();
        assert_eq!(r.kernels.len(), 1);
        assert_eq!(r.filtered_out, 5);
        let e = build(text, Some("tile_n >= ")).unwrap_err();
        assert!(matches!(e, TuneError::Filter(_)), "{e}");
        let e = build(text, Some("stages == 7")).unwrap_err();
        assert!(
            matches!(&e, TuneError::EmptyCatalogue { dropped, .. } if dropped.contains("filter removed 6")),
            "{e}"
        );
    }

    #[test]
    fn filters_resolve_enum_tokens_through_the_kernel_token_tables() {
        let schema = KernelFilterSchema;
        let c = KernelConfig::default(); // igemm fwd bf16 mma gen sk1d
        for (src, holds) in [
            ("dtype == bf16", true),
            ("dtype == f32", false),
            ("dtype == 2", true),
            ("math == mma", true),
            ("math == wgmma", false),
            ("family == igemm", true),
            ("family == direct", false),
            ("fast_path == gen", true),
            ("fast_path == general", true),
            ("fast_path == pw", false),
            ("fast_path != pointwise", true),
            ("split_k_mode == d", true),
            ("split_k_mode == deterministic", true),
            ("split_k_mode == atomic", false),
            ("direction == fwd", true),
            ("direction == forward", true),
            ("direction == bwd_data", false),
            ("direction == wgrad", false),
        ] {
            let f = Filter::parse_with(src, &schema).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                f.eval(&|field| c.field_value(field)).unwrap(),
                holds,
                "{src}"
            );
        }
        for (src, wants) in [
            ("dtype == bf17", &["`bf17`", "f32, f16 or bf16"][..]),
            ("dtype == 3", &["index 3", "f32, f16 or bf16"]),
            ("math == -1", &["index -1", "wgmma"]),
            ("fast_path == 3", &["pointwise (pw)", "halo"]),
            (
                "direction == backward",
                &["fwd, dgrad, wgrad", "bwd_weight"],
            ),
            ("fast_path < 1", &["enum field", "`==` or `!=`"]),
            ("stages == bf16", &["unknown field `bf16`"]),
        ] {
            let e = Filter::parse_with(src, &schema).unwrap_err();
            for w in wants {
                assert!(e.message.contains(w), "{src}: {e}");
            }
        }
        // Through the builder, as `--filter` uses it.
        let text = r#"{"variant": "forward", "trait_config": {
            "fast_path": {"values": ["general", "pointwise"]}, "stages": {"values": [2, 3]}}}"#;
        let r = build(text, Some("fast_path == pw && stages == 3")).unwrap();
        assert_eq!(r.kernels.len(), 1, "{r}");
        assert!(r.kernels[0].ends_with("_pw"), "{r:?}");
        assert!(matches!(
            build(text, Some("dtype == 7")),
            Err(TuneError::Filter(_))
        ));
    }

    #[test]
    fn arch_required_drops_hint_at_the_arch_that_keeps_them() {
        let wgmma = r#"{"variant": "forward", "trait_config": {
            "math": {"values": ["wgmma"]}, "tile_m": {"values": [128]}, "tile_n": {"values": [128]},
            "tile_k": {"values": [64]}, "warps_m": {"values": [4]}, "warps_n": {"values": [1]},
            "stages": {"values": [3, 4]}}}"#;
        let e = build(wgmma, None).unwrap_err();
        let TuneError::EmptyCatalogue { hint, .. } = &e else {
            panic!("{e:?}")
        };
        let hint = hint.as_deref().unwrap_or("");
        assert!(
            hint.starts_with("every dropped combination needs --arch sm_90a (math wgmma)"),
            "{e}"
        );
        assert!(
            e.to_string().ends_with("pass --arch sm_90a to keep them"),
            "{e}"
        );
        let r = expand(&parse(wgmma).unwrap(), Arch::Sm90a, None).unwrap();
        assert!(
            r.arch_hint().is_none() && !r.to_string().contains("hint"),
            "{r}"
        );
        // Mixed: the mma combinations are kept, the wgmma ones dropped, with another reason.
        let mixed = r#"{"variant": "forward", "trait_config": {
            "math": {"values": ["mma", "wgmma"]}, "stages": {"values": [3, 9]}}}"#;
        let r = build(mixed, None).unwrap();
        assert_eq!(r.dropped["arch_required"], 2, "{r}");
        let text = r.to_string();
        assert!(
            text.ends_with("\nhint: 2 dropped combination(s) need --arch sm_90a (math wgmma); pass --arch sm_90a to keep them"),
            "{text}"
        );
        // No arch_required drop, no hint.
        let r = build(
            r#"{"variant": "forward", "trait_config": {"stages": {"values": [3, 9]}}}"#,
            None,
        )
        .unwrap();
        assert!(r.arch_hint().is_none(), "{r}");
    }

    #[test]
    fn errors_name_field_and_position() {
        let text = "{\"variant\": \"forward\",\n \"trait_config\": {\n   \"tile_mm\": {\"values\": [64]}}}";
        let e = parse(text).unwrap_err();
        let TuneError::ConfigField {
            field,
            line,
            column,
            ..
        } = &e
        else {
            panic!("{e:?}")
        };
        assert_eq!((field.as_str(), *line, *column), ("tile_mm", 3, 4));
        assert!(e.to_string().starts_with("t.json:3:4:"), "{e}");
        // A key beside trait_config is a top-level key, not a trait_config field.
        for text in [
            r#"{"variant": "forward", "arch": "sm_90", "trait_config": {}}"#,
            r#"{"variant": "forward", "backend": 1, "trait_config": {}}"#,
        ] {
            let e = parse(text).unwrap_err();
            assert!(matches!(&e, TuneError::ConfigKey { .. }), "{e:?}");
            assert!(e.to_string().contains("top-level key"), "{e}");
            assert!(!e.to_string().contains("trait_config field"), "{e}");
        }

        let e = parse(r#"{"variant": "forward", "trait_config": {"tile_m": {"values": ["64"]}}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("integer"), "{e}");
        let e = parse(r#"{"variant": "forward", "trait_config": {"tile_m": {"values": [-1]}}}"#)
            .unwrap_err();
        assert!(matches!(&e, TuneError::ConfigField { field, .. } if field == "tile_m"));
        let e = parse(r#"{"variant": "forward", "trait_config": {"tile_m": {"values": [1.5]}}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("1.5"), "{e}");
        let e = parse(r#"{"variant": "forward", "trait_config": {"math": {"values": [1]}}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("token"), "{e}");
        let e = parse(r#"{"variant": "forward", "trait_config": {"math": {"values": ["fast"]}}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("fast"), "{e}");
        let e = parse(r#"{"variant": "forward", "trait_config": {"stages": {"values": []}}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("non-empty"), "{e}");
        let e = parse(r#"{"variant": "forward", "trait_config": {"stages": [2, 3]}}"#).unwrap_err();
        assert!(e.to_string().contains("values"), "{e}");
        let e =
            parse(r#"{"variant": "forward", "trait_config": {"direction": {"values": ["fwd"]}}}"#)
                .unwrap_err();
        assert!(e.to_string().contains("variant"), "{e}");
        let e = parse(r#"{"variant": "sideways", "trait_config": {}}"#).unwrap_err();
        assert!(matches!(e, TuneError::UnknownVariant { .. }), "{e}");
        let e = parse(r#"{"variant": "forward", "trait_config": {}, "extra": 1}"#).unwrap_err();
        assert!(e.to_string().contains("extra"), "{e}");
        let e = parse("{\"variant\": \"forward\",\n \"trait_config\": {,}}").unwrap_err();
        assert!(
            matches!(e, TuneError::ConfigSyntax { line: 2, .. }),
            "{e:?}"
        );
    }

    #[test]
    fn cpu_configs() {
        let r = build(
            r#"{"variant": "forward", "backend": "cpu", "trait_config": {
                "cpu_variant": {"values": ["cpu_direct", "cpu_planted_wrong", "cpu_direct"]}}}"#,
            None,
        )
        .unwrap();
        assert_eq!(r.kernels, vec!["cpu_direct", "cpu_planted_wrong"]);
        assert_eq!(r.duplicates, 1);
        let r = build(
            r#"{"variant": "forward", "backend": "cpu", "trait_config": {}}"#,
            None,
        )
        .unwrap();
        assert_eq!(r.kernels.len(), CpuVariant::POOL.len());
        let e = build(
            r#"{"variant": "forward", "backend": "cpu", "trait_config": {"cpu_variant": {"values": ["cpu_gpu"]}}}"#,
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("cpu_gpu"), "{e}");
        assert!(build(
            r#"{"variant": "forward", "backend": "cpu", "trait_config": {}}"#,
            Some("stages == 3")
        )
        .is_err());
    }

    #[test]
    fn json_export() {
        let r = build(r#"{"variant": "forward", "trait_config": {}}"#, None).unwrap();
        let v = r.to_json();
        assert_eq!(v["count"], 1);
        assert_eq!(v["kernels"][0]["name"], KernelConfig::default().to_string());
        assert_eq!(v["kernels"][0]["config"]["tile_m"], 128);
    }

    fn shipped(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../configs/traits")
            .join(name)
    }

    #[test]
    fn shipped_configs_build() {
        for (file, dtype, direction) in [
            ("forward_bf16_smoke.json", DType::Bf16, Direction::Fwd),
            ("forward_bf16.json", DType::Bf16, Direction::Fwd),
            ("forward_f16.json", DType::F16, Direction::Fwd),
            ("forward_f32.json", DType::F32, Direction::Fwd),
            ("bwd_data_bf16.json", DType::Bf16, Direction::Dgrad),
            ("bwd_data_f16.json", DType::F16, Direction::Dgrad),
            ("bwd_data_f32.json", DType::F32, Direction::Dgrad),
            ("bwd_weight_bf16.json", DType::Bf16, Direction::Wgrad),
            ("bwd_weight_f16.json", DType::F16, Direction::Wgrad),
            ("bwd_weight_f32.json", DType::F32, Direction::Wgrad),
        ] {
            let r = build_instances(&shipped(file), Arch::Sm90, None)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            assert!(
                (20..=5000).contains(&r.kernels.len()),
                "{file}: {} kernels",
                r.kernels.len()
            );
            assert!(r
                .configs
                .iter()
                .all(|c| c.dtype == dtype && c.direction == direction));
        }
        let r = build_instances(&shipped("bwd_data_wgmma_bf16.json"), Arch::Sm90a, None)
            .unwrap_or_else(|e| panic!("bwd_data_wgmma_bf16.json: {e}"));
        assert!(r.kernels.len() >= 50, "{}", r.kernels.len());
        assert!(r
            .kernels
            .iter()
            .all(|k| k.starts_with("igemm_dgrad_") && k.contains("_wgmma_")));
        let r = build_instances(&shipped("bwd_weight_wgmma_bf16.json"), Arch::Sm90a, None)
            .unwrap_or_else(|e| panic!("bwd_weight_wgmma_bf16.json: {e}"));
        assert!(r.kernels.len() >= 50, "{}", r.kernels.len());
        // The split-K degree and the reduction mode are traits: the rule (sk0), fixed degrees,
        // both modes.
        for token in ["_sk0d_", "_sk4d_", "_sk4a_", "_sk0a_"] {
            assert!(r.kernels.iter().any(|k| k.contains(token)), "{token}");
        }
        // The schedule comparison configs: both wgmma schedules of every tile, per direction.
        for (file, prefix) in [
            ("forward_wgmmaws_bf16.json", "igemm_fwd_"),
            ("bwd_data_wgmmaws_bf16.json", "igemm_dgrad_"),
            ("bwd_weight_wgmmaws_bf16.json", "igemm_wgrad_"),
        ] {
            let r = build_instances(&shipped(file), Arch::Sm90a, None)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            assert!(r.kernels.iter().all(|k| k.starts_with(prefix)), "{file}");
            let ws: Vec<&String> = r
                .kernels
                .iter()
                .filter(|k| k.contains("_wgmmaws_"))
                .collect();
            assert!(ws.len() >= 50, "{file}: {} wgmmaws kernels", ws.len());
            for k in ws {
                let twin = k.replace("_wgmmaws_", "_wgmma_");
                assert!(r.kernels.contains(&twin), "{file}: {k} without {twin}");
            }
        }
        let r = build_instances(&shipped("cpu_forward.json"), Arch::Sm90, None).unwrap();
        assert!(r.kernels.iter().any(|k| k == "cpu_planted_wrong"));
    }
}
