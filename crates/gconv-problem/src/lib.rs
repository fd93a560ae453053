//! The problem model of gconv: one grouped convolution (direction, dtype, sizes), its canonical
//! key, validation with typed errors, derived sizes, FLOP and byte counts, the roofline, host
//! tensors in the gconv layouts, the host-memory check that refuses problems too large to run,
//! the dtype-aware comparison used to verify every result, and the repeat policy of every
//! latency measurement ([`measure`]).
//!
//! Layouts (ARCHITECTURE.md, problems): X is `N,[D,]H,W,G,C/G`; W is `G,K/G,[Z,]Y,X,C/G`; Y is
//! `N,[Do,]Ho,Wo,G,K/G`. C and K are total channels.

pub mod device;
pub mod error;
pub mod key;
pub mod measure;
pub mod memory;
pub mod problem;
pub mod tensor;
pub mod verify;

pub use device::DeviceSpec;
pub use error::ProblemError;
pub use key::parse_problems_text;
pub use memory::{check_host_memory, host_bytes_needed, HostMemoryLimit};
pub use problem::{DType, Direction, GemmView, Problem, TensorRole};
pub use tensor::{HostTensor, TensorData};
pub use verify::{compare, Comparison, Tolerance};
