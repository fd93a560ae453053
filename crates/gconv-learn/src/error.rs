//! The crate's error type.

use std::path::PathBuf;

/// What can go wrong while training, loading or evaluating a model.
#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    /// Nothing to train on or to evaluate.
    #[error("no data: {0}")]
    NoData(String),
    /// A training option outside its range (the message names it).
    #[error("training option {0}")]
    Option(String),
    /// The tree library refused.
    #[error("model: {0}")]
    Model(String),
    /// A model directory that cannot be used.
    #[error("unusable model: {0}")]
    BadModel(String),
    /// A decision cache file that cannot be used.
    #[error("unusable decision cache: {0}")]
    BadDecisions(String),
    /// A file could not be read or written.
    #[error("{}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A sweep CSV could not be read.
    #[error(transparent)]
    Tune(#[from] gconv_tune::TuneError),
}

impl LearnError {
    /// Wraps an I/O error with its path.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> LearnError {
        LearnError::Io {
            path: path.into(),
            source,
        }
    }
}
