//! The gconv tile engine: trait-config JSON and the instance builder ([`traits`]), the
//! `--filter` language ([`filter`]), the problem registry ([`registry`]), the sweep
//! orchestrator ([`sweep`]) with its worker protocol ([`worker`]) and CSV files ([`csv`]), the
//! end-of-sweep summary ([`summary`]) and the CPU executor ([`cpu`]).

pub mod error;
pub mod filter;
pub mod registry;

pub use error::TuneError;
pub use filter::{Filter, FilterError};
pub use registry::{registry_counts, resolve_problems};
