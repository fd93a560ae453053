//! The decision cache: what `gconv tune` measured, kept in one JSON file that can be shipped
//! with an application, and consulted by `auto` before the model.
//!
//! An entry says, for one problem on one kind of device, which candidate was fastest when the
//! model's first few were measured, how fast, and how fast the vendor (cuDNN) was. It is valid
//! only for the gconv version, the feature set and the pool that produced it
//! ([`CacheKey::current`]: the pool of the problem's own direction and dtype, so that a change
//! of the backward-weight pool leaves forward decisions valid): after an upgrade, a retrained
//! model or a changed pool, old entries are ignored (and counted as stale), never trusted. Writes go through a temporary file and a
//! rename, so a reader never sees half a file.

use crate::error::LearnError;
use crate::features::feature_hash;
use crate::model::pool_hash_of;
use gconv_problem::Problem;
use gconv_tune::SweepRow;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file format.
pub const FORMAT: u32 = 1;

/// What an entry must match to be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheKey {
    /// gconv's version.
    pub gconv: String,
    /// The feature hash of the model that ranked the candidates.
    pub features: String,
    /// The hash of the pool the candidates came from (`crate::model::pool_hash_of` of the
    /// problem's direction and dtype).
    pub pool: String,
}

impl CacheKey {
    /// This build's key for `problem` (its direction and dtype's pool).
    pub fn current(problem: &Problem) -> CacheKey {
        CacheKey {
            gconv: env!("CARGO_PKG_VERSION").to_string(),
            features: feature_hash(),
            pool: pool_hash_of(problem.direction, problem.dtype),
        }
    }
}

/// One measured decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The problem key.
    pub problem: String,
    /// The device's name (`NVIDIA H200`).
    pub device: String,
    /// What produced it.
    pub key: CacheKey,
    /// The fastest measured candidate (canonical name as it ran).
    pub kernel: String,
    /// Its latency, ms.
    pub kernel_ms: f64,
    /// Every candidate measured ok, with its latency (ms), in the model's order.
    pub measured: Vec<(String, f64)>,
    /// The fastest verified baseline engine and its latency (ms), when one was timed.
    pub vendor: Option<(String, f64)>,
}

impl Decision {
    /// Was the vendor measured faster than every candidate?
    pub fn vendor_faster(&self) -> bool {
        self.vendor
            .as_ref()
            .is_some_and(|(_, ms)| *ms < self.kernel_ms)
    }
}

/// The decision for `problem` from the rows of a tune sweep: the fastest verified `ok` row
/// among `candidates` (in their order: ties keep the earlier), and the fastest verified
/// baseline row as the vendor. `None` when no candidate ran and verified.
pub fn decide_from_rows(
    rows: &[SweepRow],
    problem: &Problem,
    candidates: &[String],
    device: &str,
) -> Option<Decision> {
    let verified =
        |r: &&SweepRow| r.problem == *problem && r.max_abs_err.is_some() && r.max_rel_err.is_some();
    let measured: Vec<(String, f64)> = candidates
        .iter()
        .filter_map(|k| {
            rows.iter()
                .filter(verified)
                .filter(|r| r.kernel == *k)
                .filter_map(|r| r.ok_latency_ms())
                .reduce(f64::min)
                .map(|t| (k.clone(), t))
        })
        .collect();
    let (kernel, kernel_ms) = measured
        .iter()
        .cloned()
        .reduce(|a, b| if b.1 < a.1 { b } else { a })?;
    let vendor = rows
        .iter()
        .filter(verified)
        .filter(|r| r.is_baseline())
        .filter_map(|r| r.ok_latency_ms().map(|t| (r.kernel.clone(), t)))
        .reduce(|a, b| if b.1 < a.1 { b } else { a });
    Some(Decision {
        problem: problem.to_string(),
        device: device.to_string(),
        key: CacheKey::current(problem),
        kernel,
        kernel_ms,
        measured,
        vendor,
    })
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct FileBody {
    format: u32,
    decisions: Vec<Decision>,
}

/// The decisions of one file, by (problem, device).
#[derive(Debug, Clone, Default)]
pub struct DecisionCache {
    path: PathBuf,
    entries: BTreeMap<(String, String), Decision>,
}

impl DecisionCache {
    /// Reads `path`; a missing file is an empty cache, a file that is not a decision cache is
    /// an error naming it.
    pub fn load(path: &Path) -> Result<DecisionCache, LearnError> {
        let mut c = DecisionCache {
            path: path.to_path_buf(),
            entries: BTreeMap::new(),
        };
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(c),
            Err(e) => return Err(LearnError::io(path, e)),
        };
        c.entries = DecisionCache::from_bytes(&bytes, &path.display().to_string())?.entries;
        Ok(c)
    }

    /// The decisions in the bytes of a decision cache file (`origin` names it in errors); no
    /// file to save to (what the binary ships: [`crate::select::shipped_decisions`]).
    pub fn from_bytes(bytes: &[u8], origin: &str) -> Result<DecisionCache, LearnError> {
        let body: FileBody = serde_json::from_slice(bytes).map_err(|e| {
            LearnError::BadDecisions(format!(
                "{origin}: not a gconv decision cache ({e}); move it away or pass another file"
            ))
        })?;
        if body.format != FORMAT {
            return Err(LearnError::BadDecisions(format!(
                "{origin}: decision cache format {} (this gconv reads format {FORMAT})",
                body.format
            )));
        }
        let mut c = DecisionCache::default();
        for d in body.decisions {
            c.entries.insert((d.problem.clone(), d.device.clone()), d);
        }
        Ok(c)
    }

    /// The file it reads from and saves to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Adds or replaces the entry of the decision's (problem, device).
    pub fn insert(&mut self, d: Decision) {
        self.entries
            .insert((d.problem.clone(), d.device.clone()), d);
    }

    /// Every entry (valid or stale), by problem then device.
    pub fn decisions(&self) -> impl Iterator<Item = &Decision> {
        self.entries.values()
    }

    /// Entries (valid or stale).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No entry at all.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries this build ignores (another version, feature set or pool).
    pub fn stale(&self) -> usize {
        self.entries
            .values()
            .filter(|d| {
                d.problem
                    .parse::<Problem>()
                    .map_or(true, |p| d.key != CacheKey::current(&p))
            })
            .count()
    }

    /// The valid entry of `problem` on `device`, if any.
    pub fn lookup(&self, problem: &Problem, device: &str) -> Option<&Decision> {
        self.entries
            .get(&(problem.to_string(), device.to_string()))
            .filter(|d| d.key == CacheKey::current(problem))
    }

    /// Writes the file (creating its directory), through a temporary file and a rename.
    pub fn save(&self) -> Result<(), LearnError> {
        let body = FileBody {
            format: FORMAT,
            decisions: self.entries.values().cloned().collect(),
        };
        let text =
            serde_json::to_string_pretty(&body).map_err(|e| LearnError::Model(e.to_string()))?;
        let dir = self
            .path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| LearnError::io(dir, e))?;
        // A failed write (a full disk) leaves the file as it was and no temporary file.
        gconv_tune::outfile::write_atomic(&self.path, (text + "\n").as_bytes())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(problem: &str, kernel: &str, key: CacheKey) -> Decision {
        Decision {
            problem: problem.into(),
            device: "NVIDIA H200".into(),
            key,
            kernel: kernel.into(),
            kernel_ms: 0.5,
            measured: vec![(kernel.into(), 0.5), ("other".into(), 0.7)],
            vendor: Some(("cudnn:eng1".into(), 0.6)),
        }
    }

    #[test]
    fn decisions_from_tune_rows_take_the_fastest_verified_candidate() {
        use gconv_tune::worker::{JobResult, Status};
        let p: Problem = "fwd_bf16_n8_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let ok = |k: &str, ms: f64| SweepRow::from_result(k, &p, &JobResult::ok(ms, 0.0, 0.0));
        let mut unverified = ok("c", 0.1);
        unverified.max_abs_err = None;
        let rows = vec![
            ok("a", 0.4),
            ok("b", 0.3),
            unverified,
            SweepRow::with_status("d", &p, Status::Incorrect, "wrong".into()),
            ok("cudnn:eng1", 0.35),
            ok("cudnn:eng2", 0.5),
            ok("z", 0.01), // not a candidate
        ];
        let names: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
        let d = decide_from_rows(&rows, &p, &names, "NVIDIA H200").unwrap();
        assert_eq!((d.kernel.as_str(), d.kernel_ms), ("b", 0.3));
        assert_eq!(
            d.measured.len(),
            2,
            "only verified ok candidates: {:?}",
            d.measured
        );
        assert_eq!(d.vendor, Some(("cudnn:eng1".to_string(), 0.35)));
        assert!(!d.vendor_faster());
        assert!(decide_from_rows(&rows, &p, &["d".to_string()], "x").is_none());
    }

    #[test]
    fn saved_decisions_load_and_stale_ones_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/decisions.json");
        let mut c = DecisionCache::load(&path).unwrap();
        assert!(c.is_empty(), "a missing file is an empty cache");
        let p: Problem = "fwd_bf16_n8_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let q: Problem = "fwd_bf16_n8_g32_c256_k256_i14x14_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        c.insert(decision(&p.to_string(), "k1", CacheKey::current(&p)));
        let mut old = CacheKey::current(&q);
        old.pool = "0000000000000000".into();
        c.insert(decision(&q.to_string(), "k2", old));
        c.save().unwrap();
        let back = DecisionCache::load(&path).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back.stale(), 1);
        let d = back.lookup(&p, "NVIDIA H200").expect("valid entry");
        assert_eq!(d.kernel, "k1");
        assert!(!d.vendor_faster());
        assert!(
            back.lookup(&q, "NVIDIA H200").is_none(),
            "another pool: ignored"
        );
        assert!(back.lookup(&p, "NVIDIA H100").is_none(), "another device");
        // Not a decision cache: an error naming the file.
        std::fs::write(&path, "{\"x\": 1}").unwrap();
        let e = DecisionCache::load(&path).unwrap_err().to_string();
        assert!(e.contains("decisions.json"), "{e}");
    }
}
