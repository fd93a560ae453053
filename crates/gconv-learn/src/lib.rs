//! Learned kernel selection for gconv: the features of a (problem, kernel) pair
//! ([`features`]), training data from sweep CSVs ([`dataset`]), a gradient-boosted tree model
//! that predicts each kernel's slowdown against the problem's best ([`model`]), and its
//! evaluation against the measured oracle — efficiency, top-k, cross-validation grouped by
//! problem geometry ([`mod@evaluate`]) with its plots ([`plots`]) — and `auto` itself: the shipped model's choice with the
//! hand rule as the fallback ([`select`]), after the measured decisions of `gconv tune`
//! ([`decisions`]).

pub mod dataset;
pub mod decisions;
pub mod error;
pub mod evaluate;
pub mod features;
pub mod model;
pub mod plots;
pub mod select;

pub use dataset::{Dataset, Sample};
pub use error::LearnError;
pub use evaluate::{cross_validate, evaluate, Metrics, Outcome};
pub use model::{Model, ModelMeta, TrainOptions};
