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

/// One node of a [`Forest`] tree.
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

/// The booster's trees in flat arrays, for prediction one row at a time: the same traversal
/// and the same order of additions as forust's own `predict` (so the same bits), without its
/// per-tree allocations — a few microseconds per candidate instead of tens.
#[derive(Debug, Clone, Default)]
struct Forest {
    base: f64,
    trees: Vec<Vec<FlatNode>>,
}

impl Forest {
    fn of(b: &GradientBooster) -> Forest {
        let n = b
            .prediction_iteration
            .unwrap_or(b.trees.len())
            .min(b.trees.len());
        Forest {
            base: b.base_score,
            trees: b.trees[..n]
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
                .collect(),
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

    /// Predictions of many rows, tree by tree (each tree stays in cache while every row walks
    /// it); each row still adds its trees' values in tree order, so the sums are forust's.
    fn predict_rows(&self, rows: &[&[f64]]) -> Vec<f64> {
        let mut acc = vec![self.base; rows.len()];
        for t in &self.trees {
            for (a, row) in acc.iter_mut().zip(rows) {
                *a += Forest::walk(t, row);
            }
        }
        acc
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
        let y: Vec<f64> = samples.iter().map(|s| s.label).collect();
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
