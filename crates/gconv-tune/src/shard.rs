//! Problem shards: which problems of a set one of `n` sweeps takes, so that a sweep can be
//! spread over many hosts (a Slurm job array) and merged back (`crate::merge`).
//!
//! # Assignment
//!
//! A problem belongs to shard `key_hash(key) % n`, where `key` is its canonical problem key and
//! [`key_hash`] is 64-bit FNV-1a over the key's bytes followed by the SplitMix64 finaliser. The
//! assignment depends only on the key and `n`: it is the same on every machine and every run,
//! does not depend on the order of the problem file, and adding a problem to a set never moves
//! another one to a different shard (so a resumed shard never re-runs a problem that another
//! shard has). Every problem is in exactly one shard. Shards are balanced in expectation, not
//! exactly: on small sets some may get a few more problems than others, or none.
//!
//! # Slurm job arrays
//!
//! [`ShardSpec::Slurm`] (the CLI's default when `SLURM_ARRAY_TASK_ID` is set) takes the shard
//! from the job-array variables: with `sbatch --array=MIN-MAX:STEP`, Slurm sets
//! `SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_MAX`,
//! `SLURM_ARRAY_TASK_STEP` and `SLURM_ARRAY_TASK_COUNT`; the task is shard
//! `(ID − MIN) / STEP` of `COUNT`. Indices need not start at 0 and may be stepped
//! (`--array=4-28:8` gives shards 0..3 of 4 to tasks 4, 12, 20, 28). An index list that is not
//! one evenly stepped range (`--array=1,2,7`) cannot be ranked from the variables alone: give
//! the same list with [`ShardSpec::SlurmList`] (`--shard-indices 1,2,7`), and the task's shard
//! is its position in the list. Variables that disagree with each other or with the list are an
//! error naming them, never a guess: a wrong guess would lose or duplicate problems.

use crate::error::TuneError;
use gconv_problem::Problem;
use std::path::{Path, PathBuf};

/// Shard `index` of `count` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shard {
    /// This shard, `0 ≤ index < count`.
    pub index: u32,
    /// Number of shards, at least 1.
    pub count: u32,
}

/// The stable 64-bit hash of a problem key that shards are assigned by (see the module
/// documentation).
pub fn key_hash(key: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // SplitMix64 finaliser: FNV's low bits alone are poorly mixed for short, similar keys.
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

impl Shard {
    /// Shard `index` of `count`; `index < count` and `count ≥ 1`.
    pub fn new(index: u32, count: u32) -> Result<Shard, TuneError> {
        if count == 0 || index >= count {
            return Err(shard_err(format!(
                "shard {index}/{count}: need 0 <= index < count and count >= 1"
            )));
        }
        Ok(Shard { index, count })
    }

    /// Parses `I/N` (0-based index, count).
    pub fn parse(s: &str) -> Result<Shard, TuneError> {
        let (i, n) = s.split_once('/').ok_or_else(|| {
            shard_err(format!(
                "{s:?} is not INDEX/COUNT (e.g. 0/4: the first of four shards)"
            ))
        })?;
        let num = |t: &str, what: &str| {
            t.trim().parse::<u32>().map_err(|_| {
                shard_err(format!("{s:?}: {what} {t:?} is not a non-negative integer"))
            })
        };
        Shard::new(num(i, "index")?, num(n, "count")?)
    }

    /// Does this shard own `problem`?
    pub fn owns(&self, problem: &Problem) -> bool {
        key_hash(&problem.to_string()) % u64::from(self.count) == u64::from(self.index)
    }

    /// The problems of `problems` this shard owns, in their order.
    pub fn select(&self, problems: Vec<Problem>) -> Vec<Problem> {
        problems.into_iter().filter(|p| self.owns(p)).collect()
    }

    /// This shard's output file: `bench.csv` → `bench.shard-2-of-4.csv` (the name before the
    /// last extension gets the shard; one shard of one keeps the name, and so does a name that
    /// already ends in this shard's tag, so that `--output bench.shard-2-of-4.csv --resume`
    /// resumes that file instead of starting `bench.shard-2-of-4.shard-2-of-4.csv`).
    pub fn output_path(&self, base: &Path) -> PathBuf {
        if self.count == 1 {
            return base.to_path_buf();
        }
        let tag = format!("shard-{}-of-{}", self.index, self.count);
        let stem = base
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if stem.ends_with(&format!(".{tag}")) {
            return base.to_path_buf();
        }
        let name = match base.extension() {
            Some(ext) => format!("{stem}.{tag}.{}", ext.to_string_lossy()),
            None => format!("{stem}.{tag}"),
        };
        base.with_file_name(name)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

fn shard_err(message: String) -> TuneError {
    TuneError::Option {
        option: "shard",
        message,
    }
}

/// Where a sweep's shard comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardSpec {
    /// The whole problem set.
    None,
    /// An explicit shard (`--shard I/N`).
    Explicit(Shard),
    /// From the Slurm job-array variables (an evenly stepped range of indices).
    Slurm,
    /// From `SLURM_ARRAY_TASK_ID` and the array's index list, in `sbatch --array` syntax
    /// (`1,2,7`, `0-15:4,20`; a `%` throttle suffix is ignored).
    SlurmList(String),
}

/// A resolved shard and where it came from (for the note the CLI prints).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedShard {
    /// The shard.
    pub shard: Shard,
    /// How it was found, e.g. `SLURM_ARRAY_TASK_ID=12 of --array 4-28:8`.
    pub origin: String,
}

impl ShardSpec {
    /// The default: [`ShardSpec::Slurm`] inside a Slurm job array (`SLURM_ARRAY_TASK_ID` is
    /// set), else [`ShardSpec::None`].
    pub fn default_from(env: &dyn Fn(&str) -> Option<String>) -> ShardSpec {
        if env("SLURM_ARRAY_TASK_ID").is_some() {
            ShardSpec::Slurm
        } else {
            ShardSpec::None
        }
    }

    /// Resolves the shard, reading Slurm variables through `env` (`std::env::var` in the CLI).
    pub fn resolve(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<ResolvedShard>, TuneError> {
        match self {
            ShardSpec::None => Ok(None),
            ShardSpec::Explicit(s) => Ok(Some(ResolvedShard {
                shard: *s,
                origin: format!("--shard {s}"),
            })),
            ShardSpec::Slurm => slurm_range(env).map(Some),
            ShardSpec::SlurmList(list) => slurm_list(env, list).map(Some),
        }
    }
}

/// A Slurm variable as a number; `Ok(None)` when unset.
fn slurm_var(env: &dyn Fn(&str) -> Option<String>, name: &str) -> Result<Option<u64>, TuneError> {
    match env(name) {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|_| shard_err(format!("{name}={v:?} is not a non-negative integer"))),
    }
}

fn slurm_required(env: &dyn Fn(&str) -> Option<String>, name: &str) -> Result<u64, TuneError> {
    slurm_var(env, name)?.ok_or_else(|| {
        shard_err(format!(
            "{name} is not set, so the job-array shard cannot be found; pass --shard INDEX/COUNT (or --shard none)"
        ))
    })
}

fn to_u32(v: u64, what: &str) -> Result<u32, TuneError> {
    u32::try_from(v).map_err(|_| shard_err(format!("{what} {v} is too large")))
}

/// The shard of an evenly stepped job array.
fn slurm_range(env: &dyn Fn(&str) -> Option<String>) -> Result<ResolvedShard, TuneError> {
    let id = slurm_required(env, "SLURM_ARRAY_TASK_ID")?;
    let count = slurm_required(env, "SLURM_ARRAY_TASK_COUNT")?;
    let min = slurm_var(env, "SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
    let step = slurm_var(env, "SLURM_ARRAY_TASK_STEP")?.unwrap_or(1);
    let max = slurm_var(env, "SLURM_ARRAY_TASK_MAX")?;
    let seen = format!(
        "SLURM_ARRAY_TASK_ID={id}, _MIN={min}, _MAX={}, _STEP={step}, _COUNT={count}",
        max.map(|m| m.to_string()).unwrap_or_else(|| "unset".into())
    );
    let regular = step >= 1
        && count >= 1
        && id >= min
        && (id - min) % step == 0
        && (id - min) / step < count
        && max.is_none_or(|m| {
            Some(m)
                == (count - 1)
                    .checked_mul(step)
                    .and_then(|d| d.checked_add(min))
        });
    if !regular {
        return Err(shard_err(format!(
            "the Slurm job array is not one evenly stepped range of indices ({seen}), so this task's shard cannot be told from the variables; give the array's index list with --shard-indices (the value of sbatch --array), or --shard INDEX/COUNT"
        )));
    }
    let shard = Shard::new(
        to_u32((id - min) / step, "shard index")?,
        to_u32(count, "shard count")?,
    )?;
    Ok(ResolvedShard {
        shard,
        origin: format!("Slurm job array ({seen})"),
    })
}

/// Parses a job array's index list in `sbatch --array` syntax into sorted, distinct indices.
pub fn parse_array_indices(list: &str) -> Result<Vec<u64>, TuneError> {
    let spec = list.split('%').next().unwrap_or("");
    let bad =
        |part: &str, why: &str| shard_err(format!("--shard-indices {list:?}: {part:?} {why}"));
    let num = |t: &str, part: &str| {
        t.trim().parse::<u64>().map_err(|_| {
            bad(
                part,
                "is not an index, a range A-B or a stepped range A-B:S",
            )
        })
    };
    let mut v = Vec::new();
    for part in spec.split(',') {
        if part.trim().is_empty() {
            return Err(bad(part, "is empty"));
        }
        let (range, step) = match part.split_once(':') {
            Some((r, s)) => (r, num(s, part)?),
            None => (part, 1),
        };
        if step == 0 {
            return Err(bad(part, "has step 0"));
        }
        let (a, b) = match range.split_once('-') {
            Some((a, b)) => (num(a, part)?, num(b, part)?),
            None => {
                let a = num(range, part)?;
                (a, a)
            }
        };
        if b < a {
            return Err(bad(part, "ends before it starts"));
        }
        if (b - a) / step >= 1 << 20 {
            return Err(bad(part, "has more than a million indices"));
        }
        v.extend((a..=b).step_by(step as usize));
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// The shard of a job array given by its index list.
fn slurm_list(
    env: &dyn Fn(&str) -> Option<String>,
    list: &str,
) -> Result<ResolvedShard, TuneError> {
    let id = slurm_required(env, "SLURM_ARRAY_TASK_ID")?;
    let indices = parse_array_indices(list)?;
    let rank = indices.iter().position(|&i| i == id).ok_or_else(|| {
        shard_err(format!(
            "SLURM_ARRAY_TASK_ID={id} is not in --shard-indices {list:?}; give the same list as sbatch --array"
        ))
    })?;
    if let Some(count) = slurm_var(env, "SLURM_ARRAY_TASK_COUNT")? {
        if count != indices.len() as u64 {
            return Err(shard_err(format!(
                "SLURM_ARRAY_TASK_COUNT={count} but --shard-indices {list:?} has {} indices; give the same list as sbatch --array",
                indices.len()
            )));
        }
    }
    let shard = Shard::new(
        to_u32(rank as u64, "shard index")?,
        to_u32(indices.len() as u64, "shard count")?,
    )?;
    Ok(ResolvedShard {
        shard,
        origin: format!("SLURM_ARRAY_TASK_ID={id} in --shard-indices {list}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn problems() -> Vec<Problem> {
        let mut v = Vec::new();
        for g in [1, 2, 4, 8, 32] {
            for hw in [7, 14, 28, 56] {
                for dir in ["fwd", "dgrad", "wgrad"] {
                    v.push(
                        format!("{dir}_bf16_n8_g{g}_c64_k64_i{hw}x{hw}_f3x3_s1x1_p1x1_d1x1")
                            .parse()
                            .unwrap(),
                    );
                }
            }
        }
        v
    }

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| m.get(k).cloned()
    }

    /// Every problem lands in exactly one shard, for every count.
    #[test]
    fn shards_partition_the_set() {
        let ps = problems();
        for n in 1..=9u32 {
            let mut seen: HashMap<String, u32> = HashMap::new();
            for i in 0..n {
                for p in Shard::new(i, n).unwrap().select(ps.clone()) {
                    *seen.entry(p.to_string()).or_default() += 1;
                }
            }
            assert_eq!(seen.len(), ps.len(), "n={n}: every problem in a shard");
            assert!(seen.values().all(|&c| c == 1), "n={n}: exactly once");
        }
        // Balanced in expectation: 60 problems over 3 shards, none empty.
        let sizes: Vec<usize> = (0..3)
            .map(|i| Shard::new(i, 3).unwrap().select(ps.clone()).len())
            .collect();
        assert!(sizes.iter().all(|&s| s >= 10), "{sizes:?}");
    }

    /// The assignment depends on the key only: not on order, not on the other problems.
    #[test]
    fn assignment_is_stable() {
        let ps = problems();
        let s = Shard::new(1, 4).unwrap();
        let mut rev = ps.clone();
        rev.reverse();
        let mut a: Vec<String> = s.select(ps.clone()).iter().map(|p| p.to_string()).collect();
        let mut b: Vec<String> = s.select(rev).iter().map(|p| p.to_string()).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
        let half: Vec<Problem> = ps.iter().step_by(2).copied().collect();
        for p in s.select(half) {
            assert!(a.contains(&p.to_string()));
        }
        // Fixed values, so that a change of the hash (which would re-shard every sweep in
        // flight) fails here.
        assert_eq!(
            key_hash("fwd_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1"),
            HASH_OF_KEY
        );
        assert_ne!(key_hash("a"), key_hash("b"));
    }

    /// Computed independently (a Python transcription of FNV-1a + SplitMix64).
    const HASH_OF_KEY: u64 = 9_238_033_164_332_887_223;

    #[test]
    fn parse_and_paths() {
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
        for bad in ["4/4", "0/0", "1", "a/2", "-1/2", "1/2/3"] {
            let e = Shard::parse(bad).unwrap_err().to_string();
            assert!(e.contains("shard"), "{bad}: {e}");
        }
        let s = Shard::new(2, 4).unwrap();
        assert_eq!(
            s.output_path(Path::new("out/bench.csv")),
            PathBuf::from("out/bench.shard-2-of-4.csv")
        );
        assert_eq!(
            s.output_path(Path::new("bench")),
            PathBuf::from("bench.shard-2-of-4")
        );
        assert_eq!(
            Shard::new(0, 1).unwrap().output_path(Path::new("b.csv")),
            PathBuf::from("b.csv")
        );
        // A name that already carries this shard's tag (a shard file given back to resume).
        assert_eq!(
            s.output_path(Path::new("out/bench.shard-2-of-4.csv")),
            PathBuf::from("out/bench.shard-2-of-4.csv")
        );
        // Another shard's tag is only a name: the shard's own tag is appended.
        assert_eq!(
            s.output_path(Path::new("bench.shard-1-of-4.csv")),
            PathBuf::from("bench.shard-1-of-4.shard-2-of-4.csv")
        );
    }

    /// A stepped array that does not start at 0: the tasks are the shards 0..COUNT, once each,
    /// and together they cover every problem once.
    #[test]
    fn slurm_stepped_arrays_cover_every_problem_once() {
        let ps = problems();
        for (min, step, count) in [
            (0u64, 1u64, 4u64),
            (4, 8, 4),
            (1, 2, 5),
            (7, 1, 1),
            (100, 3, 6),
        ] {
            let max = min + (count - 1) * step;
            let mut seen: HashMap<String, u32> = HashMap::new();
            let mut shards = Vec::new();
            for id in (min..=max).step_by(step as usize) {
                let (id, min, max, step, count) = (
                    id.to_string(),
                    min.to_string(),
                    max.to_string(),
                    step.to_string(),
                    count.to_string(),
                );
                let env = env_of(&[
                    ("SLURM_ARRAY_TASK_ID", &id),
                    ("SLURM_ARRAY_TASK_MIN", &min),
                    ("SLURM_ARRAY_TASK_MAX", &max),
                    ("SLURM_ARRAY_TASK_STEP", &step),
                    ("SLURM_ARRAY_TASK_COUNT", &count),
                ]);
                assert_eq!(ShardSpec::default_from(&env), ShardSpec::Slurm);
                let r = ShardSpec::Slurm.resolve(&env).unwrap().unwrap();
                assert!(r.origin.contains("SLURM_ARRAY_TASK_ID"), "{}", r.origin);
                shards.push(r.shard);
                for p in r.shard.select(ps.clone()) {
                    *seen.entry(p.to_string()).or_default() += 1;
                }
            }
            let idx: Vec<u32> = shards.iter().map(|s| s.index).collect();
            assert_eq!(idx, (0..count as u32).collect::<Vec<_>>());
            assert_eq!(seen.len(), ps.len());
            assert!(seen.values().all(|&c| c == 1));
        }
    }

    #[test]
    fn slurm_variables_that_disagree_are_errors() {
        // Not on the grid, beyond COUNT, MAX inconsistent, a sparse list's variables, missing
        // COUNT, garbage.
        let cases: [&[(&str, &str)]; 6] = [
            &[
                ("SLURM_ARRAY_TASK_ID", "5"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_STEP", "4"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
            &[
                ("SLURM_ARRAY_TASK_ID", "4"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
            &[
                ("SLURM_ARRAY_TASK_ID", "1"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_MAX", "9"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
            // --array=1,2,7: Slurm's step does not describe the list.
            &[
                ("SLURM_ARRAY_TASK_ID", "7"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "7"),
                ("SLURM_ARRAY_TASK_STEP", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
            ],
            &[("SLURM_ARRAY_TASK_ID", "0")],
            &[
                ("SLURM_ARRAY_TASK_ID", "x"),
                ("SLURM_ARRAY_TASK_COUNT", "2"),
            ],
        ];
        for env in cases {
            let e = ShardSpec::Slurm
                .resolve(&env_of(env))
                .unwrap_err()
                .to_string();
            assert!(e.contains("SLURM_ARRAY_TASK"), "{env:?}: {e}");
        }
        // No Slurm: no shard by default.
        assert_eq!(ShardSpec::default_from(&env_of(&[])), ShardSpec::None);
        assert_eq!(ShardSpec::None.resolve(&env_of(&[])).unwrap(), None);
    }

    /// A sparse index list, given as sbatch's --array value: each task's shard is its position.
    #[test]
    fn slurm_index_lists_cover_every_problem_once() {
        assert_eq!(
            parse_array_indices("0-15:4,20,3%2").unwrap(),
            vec![0, 3, 4, 8, 12, 20]
        );
        for bad in ["", "1,,2", "3-1", "a", "1-4:0"] {
            assert!(parse_array_indices(bad).is_err(), "{bad}");
        }
        let ps = problems();
        let list = "1,2,7,30-40:10";
        let ids = parse_array_indices(list).unwrap();
        assert_eq!(ids, vec![1, 2, 7, 30, 40]);
        let mut seen: HashMap<String, u32> = HashMap::new();
        for (rank, id) in ids.iter().enumerate() {
            let id = id.to_string();
            let env = env_of(&[
                ("SLURM_ARRAY_TASK_ID", &id),
                ("SLURM_ARRAY_TASK_COUNT", "5"),
            ]);
            let r = ShardSpec::SlurmList(list.into())
                .resolve(&env)
                .unwrap()
                .unwrap();
            assert_eq!(r.shard, Shard::new(rank as u32, 5).unwrap());
            for p in r.shard.select(ps.clone()) {
                *seen.entry(p.to_string()).or_default() += 1;
            }
        }
        assert_eq!(seen.len(), ps.len());
        assert!(seen.values().all(|&c| c == 1));
        // An id outside the list, or a COUNT that disagrees with it.
        for env in [
            env_of(&[("SLURM_ARRAY_TASK_ID", "3")]),
            env_of(&[
                ("SLURM_ARRAY_TASK_ID", "2"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ]),
        ] {
            assert!(ShardSpec::SlurmList(list.into()).resolve(&env).is_err());
        }
    }
}
