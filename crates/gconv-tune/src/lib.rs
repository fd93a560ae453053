//! The gconv tile engine: trait-config JSON and the instance builder ([`traits`]), the
//! `--filter` language ([`filter`]), the problem registry ([`registry`]), the sweep
//! orchestrator ([`sweep`]) with its worker protocol ([`worker`]) and CSV files ([`csv`]),
//! problem shards for Slurm job arrays ([`shard`]), merging shard CSVs ([`merge`]), output
//! files ([`outfile`]: special files refused, atomic writes) and
//! comparing two sweeps ([`compare`]), paired comparisons of one kernel field inside a sweep
//! ([`pairs`]), the end-of-sweep summary ([`summary`]), the time split
//! ([`split`]), the CPU executor ([`cpu`]) and background work for workers ([`prefetch`]).

pub mod compare;
pub mod cpu;
pub mod csv;
pub mod error;
pub mod filter;
pub mod kernel_ref;
pub mod merge;
pub mod outfile;
pub mod pairs;
pub mod prefetch;
pub mod progress;
pub mod registry;
pub mod shard;
pub mod split;
pub mod summary;
pub mod sweep;
pub mod traits;
pub mod worker;

pub use crate::csv::{read_rows, DeviceTag, SweepRow, COLUMNS};
pub use error::TuneError;
pub use filter::{Filter, FilterError};
pub use kernel_ref::KernelRef;
pub use merge::{merge_csvs, MergeReport};
pub use progress::Progress;
pub use registry::{registry_counts, resolve_problems};
pub use shard::{Shard, ShardSpec};
pub use split::TimeSplit;
pub use summary::{summarize, Summary};
pub use sweep::{run_sweep, DeviceSlot, SweepOptions, SweepReport};
pub use traits::{build_instances, InstanceReport};
pub use worker::{
    worker_main, Executor, Job, JobKind, JobResult, PhaseTimes, Status, TimingOptions,
};
