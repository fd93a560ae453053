//! The selection model: gradient-boosted regression trees (forust-ml, squared loss) predicting
//! a sample's label — the log of its latency over the problem's best — from its features. The
//! kernel with the smallest prediction is the choice.
//!
//! A model directory holds `booster.json.gz` (the trees, forust's own JSON, gzip-compressed:
//! forust writes node statistics too, about 10× what the trees need) and `meta.json`
//! ([`ModelMeta`]: format, the feature hash and names, the pool hash, what it was trained on and
//! with which options). [`Model::load`] refuses a directory whose feature hash is not this
//! build's ([`crate::features::feature_hash`]): its columns would mean other things. The pool
//! hash is recorded so that a decision cache keyed by it is invalidated when the pool changes.

use crate::dataset::Sample;
use crate::error::LearnError;
use crate::evaluate::geometry_key;
use crate::features::{feature_hash, hex16, FEATURES};
use forust_ml::objective::ObjectiveType;
use forust_ml::{GradientBooster, Matrix};
use gconv_kernels::catalogue::{self, Families};
use gconv_problem::{DType, Direction};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;

/// The model directory format.
pub const FORMAT: u32 = 1;

/// The trees' file in a model directory.
const BOOSTER: &str = "booster.json.gz";

/// Training options.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrainOptions {
    /// Trees.
    pub trees: usize,
    /// Learning rate (shrinkage).
    pub learning_rate: f32,
    /// Depth of each tree.
    pub max_depth: usize,
    /// Minimum hessian sum of a leaf (samples, for squared loss).
    pub min_leaf_weight: f32,
    /// L2 regularisation of leaf weights.
    pub l2: f32,
    /// Seed (forust's sampling; the defaults sample nothing, so training is deterministic).
    pub seed: u64,
    /// Emphasis on the fast kernels: a sample of label `l` weighs `1 / (1 + top_weight · l)`,
    /// so errors among the candidates that can win count more than errors on slow ones (0:
    /// every sample weighs 1).
    #[serde(default)]
    pub top_weight: f32,
    /// Labels above this are trained as this (0: no cap; the default 0.7 is a 2× slowdown): a
    /// kernel 3× slower than the best and one 12× slower are both out of the running, and a
    /// capped label keeps single disturbed measurements of hopeless kernels from pulling the
    /// trees (cross-validated on the H200 data: geomean efficiency 0.947 at 0.7, 0.945 at 0.5
    /// and 1.1, 0.935 uncapped).
    #[serde(default)]
    pub label_cap: f32,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            trees: 300,
            learning_rate: 0.1,
            max_depth: 6,
            min_leaf_weight: 3.0,
            l2: 1.0,
            seed: 0,
            top_weight: 0.0,
            label_cap: 0.7,
        }
    }
}

/// What a model was built from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelMeta {
    /// [`FORMAT`].
    pub format: u32,
    /// [`feature_hash`] at training time.
    pub feature_hash: String,
    /// The feature names, in column order.
    pub features: Vec<String>,
    /// [`pool_hash`] at training time.
    pub pool_hash: String,
    /// Samples trained on.
    pub samples: usize,
    /// Problems trained on.
    pub problems: usize,
    /// Directions present in the training data (tokens).
    pub directions: Vec<String>,
    /// Dtypes present in the training data (tokens).
    pub dtypes: Vec<String>,
    /// The problem geometries trained on (keys without direction and dtype, sorted), so that
    /// validation can tell problems the model has seen from those it has not.
    pub geometries: Vec<String>,
    /// The options.
    pub options: TrainOptions,
}

/// A trained model.
pub struct Model {
    booster: GradientBooster,
    forest: Forest,
    /// What it was built from.
    pub meta: ModelMeta,
}

/// One node of a forust tree, as [`Forest::walk`] reads it.
#[derive(Debug, Clone, Copy)]
struct FlatNode {
    feature: u32,
    split: f64,
    left: u32,
    right: u32,
    missing: u32,
    leaf: bool,
    value: f64,
}

/// Deepest tree the complete layout takes (2^12 leaves a tree); deeper forests walk nodes.
const MAX_COMPLETE_DEPTH: usize = 12;

/// Rows walked side by side through one tree (independent chains of loads for the CPU).
const LANES: usize = 8;

/// Trees between two prunings of [`Forest::argmin`].
const PRUNE_EVERY: usize = 16;

/// The booster's trees for fast prediction, giving the same bits as forust's own `predict`
/// (the same traversal, and each row adds its trees' values in tree order from the base
/// score). Every tree is stored complete to the forest's depth `D`: internal node `i` has
/// children `2i + 1` and `2i + 2`, a leaf above depth `D` fills all the leaves below it, so a
/// walk is `D` branch-free steps. Forests that do not fit that form (deeper than
/// [`MAX_COMPLETE_DEPTH`], a separate missing-value branch, a damaged tree) keep forust's
/// node lists and are walked node by node.
#[derive(Debug, Clone, Default)]
struct Forest {
    base: f64,
    /// Features a row must have.
    width: usize,
    complete: Option<Complete>,
    /// The node lists (used when `complete` is `None`).
    trees: Vec<Vec<FlatNode>>,
}

/// Trees in the complete layout (see [`Forest`]).
#[derive(Debug, Clone, Default)]
struct Complete {
    depth: usize,
    trees: usize,
    /// `trees × (2^D − 1)` split values.
    splits: Vec<f64>,
    /// Split features; bit 31 set: a missing (NaN) value goes right.
    features: Vec<u32>,
    /// `trees × 2^D` leaf values.
    leaves: Vec<f64>,
    /// `spread[t]`: the sum over trees `t..` of (largest − smallest leaf): how much the trees
    /// from `t` on can still move one row's sum against another's.
    spread: Vec<f64>,
}

const NAN_RIGHT: u32 = 1 << 31;

/// Does some row have a missing (NaN) value?
fn has_missing(rows: &[&[f64]]) -> bool {
    rows.iter().any(|r| r.iter().any(|v| v.is_nan()))
}

impl Complete {
    fn of(trees: &[Vec<FlatNode>], width: usize) -> Option<Complete> {
        fn depth(t: &[FlatNode], i: usize, level: usize) -> Option<usize> {
            let nd = t.get(i)?;
            if nd.leaf {
                return Some(level);
            }
            if level > MAX_COMPLETE_DEPTH {
                return None;
            }
            let l = depth(t, nd.left as usize, level + 1)?;
            let r = depth(t, nd.right as usize, level + 1)?;
            Some(l.max(r))
        }
        let d = trees
            .iter()
            .map(|t| depth(t, 0, 0))
            .try_fold(0usize, |m, x| x.map(|x| m.max(x)))?;
        if d > MAX_COMPLETE_DEPTH {
            return None;
        }
        let (inner, outer) = ((1usize << d) - 1, 1usize << d);
        let mut c = Complete {
            depth: d,
            trees: trees.len(),
            splits: vec![0.0; trees.len() * inner],
            features: vec![0; trees.len() * inner],
            leaves: vec![0.0; trees.len() * outer],
            spread: vec![0.0; trees.len() + 1],
        };
        /// Places forust node `i` at complete position `ci` of the tree at `base`.
        struct Fill<'a> {
            t: &'a [FlatNode],
            c: &'a mut Complete,
            t_index: usize,
            width: usize,
        }
        impl Fill<'_> {
            fn place(&mut self, i: usize, ci: usize, level: usize) -> Option<()> {
                let d = self.c.depth;
                let (inner, outer) = ((1usize << d) - 1, 1usize << d);
                let nd = *self.t.get(i)?;
                if nd.leaf {
                    // Every leaf below `ci` at depth D holds the value.
                    let span = 1usize << (d - level);
                    let first = (ci + 1) * span - 1 - inner;
                    let at = self.t_index * outer + first;
                    self.c.leaves[at..at + span].fill(nd.value);
                    return Some(());
                }
                if nd.feature as usize >= self.width
                    || (nd.missing != nd.left && nd.missing != nd.right)
                {
                    return None;
                }
                let at = self.t_index * inner + ci;
                self.c.splits[at] = nd.split;
                self.c.features[at] = nd.feature
                    | if nd.missing == nd.right && nd.missing != nd.left {
                        NAN_RIGHT
                    } else {
                        0
                    };
                self.place(nd.left as usize, 2 * ci + 1, level + 1)?;
                self.place(nd.right as usize, 2 * ci + 2, level + 1)
            }
        }
        for (ti, t) in trees.iter().enumerate() {
            Fill {
                t,
                c: &mut c,
                t_index: ti,
                width,
            }
            .place(0, 0, 0)?;
        }
        for ti in (0..trees.len()).rev() {
            let l = &c.leaves[ti * outer..(ti + 1) * outer];
            let (lo, hi) = l
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                    (lo.min(v), hi.max(v))
                });
            c.spread[ti] = c.spread[ti + 1] + (hi - lo);
        }
        Some(c)
    }

    /// Tree `t`'s split values, split features and leaf values.
    fn tree(&self, t: usize) -> (&[f64], &[u32], &[f64]) {
        let (inner, outer) = ((1usize << self.depth) - 1, 1usize << self.depth);
        (
            &self.splits[t * inner..(t + 1) * inner],
            &self.features[t * inner..(t + 1) * inner],
            &self.leaves[t * outer..(t + 1) * outer],
        )
    }

    /// Adds trees `from..to` to the sums `acc` of `rows` (each at least `width` long: see
    /// [`Forest::complete_for`]); `missing`: some row has a NaN value.
    fn add(&self, from: usize, to: usize, rows: &[&[f64]], acc: &mut [f64], missing: bool) {
        if missing {
            self.add_with_missing(from, to, rows, acc);
            return;
        }
        let (d, inner) = (self.depth, (1usize << self.depth) - 1);
        for t in from..to {
            let (splits, features, leaves) = self.tree(t);
            for (rows, acc) in rows.chunks(LANES).zip(acc.chunks_mut(LANES)) {
                let mut at = [0usize; LANES];
                for _ in 0..d {
                    for (i, row) in at.iter_mut().zip(rows) {
                        // SAFETY: after k < d steps `*i` < 2^k − 1 < inner = `splits.len()` =
                        // `features.len()`; a feature index (bit 31 masked) is below `width`
                        // (checked in `Complete::of`, 0 in the filler nodes) and every row is
                        // at least `width` long (`Forest::complete_for`).
                        let (split, v) = unsafe {
                            let f = *features.get_unchecked(*i);
                            (
                                *splits.get_unchecked(*i),
                                *row.get_unchecked((f & !NAN_RIGHT) as usize),
                            )
                        };
                        *i = 2 * *i + 1 + usize::from(v >= split);
                    }
                }
                for (a, i) in acc.iter_mut().zip(at) {
                    *a += leaves[i - inner];
                }
            }
        }
    }

    /// [`Complete::add`] for rows with missing (NaN) values: each node sends them the way
    /// forust's missing branch goes.
    fn add_with_missing(&self, from: usize, to: usize, rows: &[&[f64]], acc: &mut [f64]) {
        let (d, inner) = (self.depth, (1usize << self.depth) - 1);
        for t in from..to {
            let (splits, features, leaves) = self.tree(t);
            for (row, a) in rows.iter().zip(acc.iter_mut()) {
                let mut i = 0;
                for _ in 0..d {
                    let f = features[i];
                    let v = row[(f & !NAN_RIGHT) as usize];
                    let right = if v.is_nan() {
                        f >> 31
                    } else {
                        u32::from(v >= splits[i])
                    };
                    i = 2 * i + 1 + right as usize;
                }
                *a += leaves[i - inner];
            }
        }
    }
}

impl Forest {
    fn of(b: &GradientBooster) -> Forest {
        let n = b
            .prediction_iteration
            .unwrap_or(b.trees.len())
            .min(b.trees.len());
        let trees: Vec<Vec<FlatNode>> = b.trees[..n]
            .iter()
            .map(|t| {
                t.nodes
                    .iter()
                    .map(|nd| FlatNode {
                        feature: nd.split_feature as u32,
                        split: nd.split_value,
                        left: nd.left_child as u32,
                        right: nd.right_child as u32,
                        missing: nd.missing_node as u32,
                        leaf: nd.is_leaf,
                        value: f64::from(nd.weight_value),
                    })
                    .collect()
            })
            .collect();
        let width = FEATURES.len();
        match Complete::of(&trees, width) {
            Some(c) => Forest {
                base: b.base_score,
                width,
                complete: Some(c),
                trees: Vec::new(),
            },
            None => Forest {
                base: b.base_score,
                width,
                complete: None,
                trees,
            },
        }
    }

    /// One tree's leaf value for `row` (0 for a damaged tree whose walk leaves its nodes or
    /// does not reach a leaf within as many steps as it has nodes).
    fn walk(t: &[FlatNode], row: &[f64]) -> f64 {
        let mut i = 0usize;
        for _ in 0..t.len() {
            let Some(nd) = t.get(i) else { break };
            if nd.leaf {
                return nd.value;
            }
            let v = row.get(nd.feature as usize).copied().unwrap_or(f64::NAN);
            i = if v.is_nan() {
                nd.missing
            } else if v < nd.split {
                nd.left
            } else {
                nd.right
            } as usize;
        }
        0.0
    }

    /// The complete layout, when it applies to these rows.
    fn complete_for(&self, rows: &[&[f64]]) -> Option<&Complete> {
        self.complete
            .as_ref()
            .filter(|_| rows.iter().all(|r| r.len() >= self.width))
    }

    /// Predictions of many rows, tree by tree (each tree stays in cache while every row walks
    /// it); each row still adds its trees' values in tree order, so the sums are forust's.
    fn predict_rows(&self, rows: &[&[f64]]) -> Vec<f64> {
        let mut acc = vec![self.base; rows.len()];
        if let Some(c) = self.complete_for(rows) {
            c.add(0, c.trees, rows, &mut acc, has_missing(rows));
            return acc;
        }
        for t in &self.trees {
            for (a, row) in acc.iter_mut().zip(rows) {
                *a += Forest::walk(t, row);
            }
        }
        acc
    }

    /// The row with the smallest prediction (the first of equal ones), as
    /// `predict_rows(rows)` would rank it, with the rows that cannot win any more dropped
    /// every [`PRUNE_EVERY`] trees: a row whose partial sum exceeds the best partial sum by
    /// more than the remaining trees' spread can only end above it.
    fn argmin(&self, rows: &[&[f64]]) -> Option<usize> {
        if rows.len() <= 1 {
            return (!rows.is_empty()).then_some(0);
        }
        let Some(c) = self.complete_for(rows) else {
            let p = self.predict_rows(rows);
            return (0..p.len()).reduce(|b, i| if p[i] < p[b] { i } else { b });
        };
        let missing = has_missing(rows);
        let mut alive: Vec<usize> = (0..rows.len()).collect();
        let mut live_rows: Vec<&[f64]> = rows.to_vec();
        let mut acc = vec![self.base; rows.len()];
        let mut t = 0;
        while t < c.trees && alive.len() > 1 {
            let to = (t + PRUNE_EVERY).min(c.trees);
            c.add(t, to, &live_rows, &mut acc, missing);
            t = to;
            let best = acc.iter().copied().fold(f64::INFINITY, f64::min);
            // A margin far above the rounding of a few hundred additions.
            let reach = c.spread[t] + 1e-9 * (1.0 + best.abs());
            let keep: Vec<bool> = acc.iter().map(|&a| a - best <= reach).collect();
            let mut k = 0;
            for (i, &kept) in keep.iter().enumerate() {
                if kept {
                    alive[k] = alive[i];
                    live_rows[k] = live_rows[i];
                    acc[k] = acc[i];
                    k += 1;
                }
            }
            alive.truncate(k);
            live_rows.truncate(k);
            acc.truncate(k);
        }
        if t < c.trees {
            c.add(t, c.trees, &live_rows, &mut acc, missing);
        }
        (0..acc.len())
            .reduce(|b, i| if acc[i] < acc[b] { i } else { b })
            .map(|i| alive[i])
    }
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model").field("meta", &self.meta).finish()
    }
}

/// SHA-256 (first 16 hex digits) of the default pools' kernel names, every direction × dtype.
pub fn pool_hash() -> String {
    let mut h = Sha256::new();
    for d in [Direction::Fwd, Direction::Dgrad, Direction::Wgrad] {
        for t in [DType::F32, DType::F16, DType::Bf16] {
            for c in catalogue::pool(d, t, Families::All) {
                h.update(c.to_string().as_bytes());
                h.update([0]);
            }
        }
    }
    hex16(&h.finalize())
}

/// Column-major feature matrix of `rows`.
fn column_major(rows: &[&[f64]]) -> Vec<f64> {
    let cols = FEATURES.len();
    let mut data = vec![0.0; rows.len() * cols];
    for (i, r) in rows.iter().enumerate() {
        for (j, x) in r.iter().enumerate().take(cols) {
            data[j * rows.len() + i] = *x;
        }
    }
    data
}

impl Model {
    /// Trains on `samples` (at least one).
    pub fn train(samples: &[&Sample], options: TrainOptions) -> Result<Model, LearnError> {
        if samples.is_empty() {
            return Err(LearnError::NoData("no samples to train on".into()));
        }
        let rows: Vec<&[f64]> = samples.iter().map(|s| s.features.as_slice()).collect();
        let data = column_major(&rows);
        let matrix = Matrix::new(&data, rows.len(), FEATURES.len());
        let cap = if options.label_cap > 0.0 {
            f64::from(options.label_cap)
        } else {
            f64::INFINITY
        };
        let y: Vec<f64> = samples.iter().map(|s| s.label.min(cap)).collect();
        let mut booster = GradientBooster::default()
            .set_objective_type(ObjectiveType::SquaredLoss)
            .set_iterations(options.trees)
            .set_learning_rate(options.learning_rate)
            .set_max_depth(options.max_depth)
            .set_min_leaf_weight(options.min_leaf_weight)
            .set_l2(options.l2)
            .set_seed(options.seed)
            .set_parallel(true);
        let weights: Vec<f64> = samples
            .iter()
            .map(|s| 1.0 / (1.0 + f64::from(options.top_weight.max(0.0)) * s.label.max(0.0)))
            .collect();
        booster
            .fit(&matrix, &y, &weights, None)
            .map_err(|e| LearnError::Model(e.to_string()))?;
        let distinct = |f: &dyn Fn(&Sample) -> String| {
            let v: std::collections::BTreeSet<String> = samples.iter().map(|s| f(s)).collect();
            v.into_iter().collect::<Vec<String>>()
        };
        let directions = distinct(&|s| s.problem.direction.token().to_string());
        let dtypes = distinct(&|s| s.problem.dtype.token().to_string());
        let problems = distinct(&|s| s.problem.to_string());
        let geometries = distinct(&|s| geometry_key(&s.problem));
        Ok(Model {
            forest: Forest::of(&booster),
            booster,
            meta: ModelMeta {
                format: FORMAT,
                feature_hash: feature_hash(),
                features: FEATURES.clone(),
                pool_hash: pool_hash(),
                samples: samples.len(),
                problems: problems.len(),
                directions,
                dtypes,
                geometries,
                options,
            },
        })
    }

    /// Was the geometry of `p` in the training data?
    pub fn trained_on(&self, p: &gconv_problem::Problem) -> bool {
        self.meta.geometries.binary_search(&geometry_key(p)).is_ok()
    }

    /// Predicted labels of feature rows.
    pub fn predict(&self, rows: &[&[f64]]) -> Vec<f64> {
        self.forest.predict_rows(rows)
    }

    /// The index of the row with the smallest prediction (the first of equal ones): what
    /// ranking by [`Model::predict`] puts first, usually without walking every tree for every
    /// row (rows that can no longer win are dropped along the way). `None` for no rows.
    pub fn best(&self, rows: &[&[f64]]) -> Option<usize> {
        self.forest.argmin(rows)
    }

    /// The same predictions through forust's own `predict` (a check of the flat forest).
    pub fn predict_with_booster(&self, rows: &[&[f64]]) -> Vec<f64> {
        if rows.is_empty() {
            return Vec::new();
        }
        let data = column_major(rows);
        let matrix = Matrix::new(&data, rows.len(), FEATURES.len());
        self.booster.predict(&matrix, false)
    }

    /// Writes `dir/booster.json.gz` and `dir/meta.json` (creating `dir`).
    pub fn save(&self, dir: &Path) -> Result<(), LearnError> {
        std::fs::create_dir_all(dir).map_err(|e| LearnError::io(dir, e))?;
        let trees = self
            .booster
            .json_dump()
            .map_err(|e| LearnError::Model(e.to_string()))?;
        let b = dir.join(BOOSTER);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut gz, trees.as_bytes()).map_err(|e| LearnError::io(&b, e))?;
        let bytes = gz.finish().map_err(|e| LearnError::io(&b, e))?;
        std::fs::write(&b, bytes).map_err(|e| LearnError::io(&b, e))?;
        let m = dir.join("meta.json");
        let meta = serde_json::to_string_pretty(&self.meta)
            .map_err(|e| LearnError::Model(e.to_string()))?;
        std::fs::write(&m, meta + "\n").map_err(|e| LearnError::io(&m, e))
    }

    /// Reads a model directory written by [`Model::save`]; refuses another format or feature
    /// set.
    pub fn load(dir: &Path) -> Result<Model, LearnError> {
        let m = dir.join("meta.json");
        let meta = std::fs::read(&m).map_err(|e| LearnError::io(&m, e))?;
        let b = dir.join(BOOSTER);
        let booster = std::fs::read(&b).map_err(|e| LearnError::io(&b, e))?;
        Model::from_bytes(&meta, &booster, &dir.display().to_string())
    }

    /// A model from the bytes of its `meta.json` and `booster.json.gz` (`origin` names them in
    /// errors); what [`Model::load`] and the model shipped in the binary use.
    pub fn from_bytes(meta: &[u8], booster: &[u8], origin: &str) -> Result<Model, LearnError> {
        let meta: ModelMeta = serde_json::from_slice(meta)
            .map_err(|e| LearnError::BadModel(format!("{origin}/meta.json: {e}")))?;
        if meta.format != FORMAT {
            return Err(LearnError::BadModel(format!(
                "{origin}/meta.json: format {} (this gconv reads format {FORMAT})",
                meta.format
            )));
        }
        if meta.feature_hash != feature_hash() || meta.features != *FEATURES {
            return Err(LearnError::BadModel(format!(
                "{origin}/meta.json: trained on features {} but this gconv computes features {}; retrain with `gconv train`",
                meta.feature_hash,
                feature_hash()
            )));
        }
        let mut text = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(booster), &mut text)
            .map_err(|e| {
                LearnError::BadModel(format!("{origin}/{BOOSTER}: not a gzip JSON file: {e}"))
            })?;
        let booster = GradientBooster::from_json(&text)
            .map_err(|e| LearnError::BadModel(format!("{origin}/{BOOSTER}: {e}")))?;
        Ok(Model {
            forest: Forest::of(&booster),
            booster,
            meta,
        })
    }
}
