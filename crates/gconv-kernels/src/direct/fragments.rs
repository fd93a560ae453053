//! The `.cu` fragments that several direct kernels share, in a leaf module (the emitters of
//! `super::emit`, `super::wgrad` and `super::stream` include them; `tests/module_graph.rs`: no
//! import cycle).

/// The part of the forward kernel both math paths share: the shared-memory copy, element
/// conversions (`elem.cu`, also the streaming wgrad kernel's, `super::stream`), the derived
/// tile constants, the tile walk and the halo copy (`common.cu`).
pub const COMMON: &str = concat!(include_str!("elem.cu"), include_str!("common.cu"));
/// The element type, conversions and vector loads alone (`elem.cu`, the head of [`COMMON`]).
pub const ELEM: &str = include_str!("elem.cu");
