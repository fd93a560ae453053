//! The `.cu` fragments that several direct kernels share, and the problem constants every
//! direct module starts with ([`problem_constants`]), in a leaf module (the emitters of
//! `super::emit`, `super::wgrad` and `super::stream` include them; `tests/module_graph.rs`: no
//! import cycle).

/// The part of the forward kernel both math paths share: the shared-memory copy, element
/// conversions (`elem.cu`, also the streaming wgrad kernel's, `super::stream`), the derived
/// tile constants, the tile walk and the halo copy (`common.cu`).
pub const COMMON: &str = concat!(include_str!("elem.cu"), include_str!("common.cu"));
/// The element type, conversions and vector loads alone (`elem.cu`, the head of [`COMMON`]).
pub const ELEM: &str = include_str!("elem.cu");

/// The problem's shape as the first `constexpr int`s of a direct module, in the order every
/// direct emitter writes them: element size, N, the input and output extents (D, H, W), filter,
/// stride, padding and dilation (D, H, W).
pub fn problem_constants(problem: &gconv_problem::Problem) -> [(&'static str, u64); 20] {
    let out = problem.output();
    [
        ("ESZ", problem.dtype.size_bytes()),
        ("N_", problem.n),
        ("ID", problem.input[0]),
        ("IH", problem.input[1]),
        ("IW", problem.input[2]),
        ("OD", out[0]),
        ("OH", out[1]),
        ("OW", out[2]),
        ("FZ", problem.filter[0]),
        ("FY", problem.filter[1]),
        ("FX", problem.filter[2]),
        ("SD", problem.stride[0]),
        ("SH", problem.stride[1]),
        ("SW", problem.stride[2]),
        ("PD", problem.pad[0]),
        ("PH", problem.pad[1]),
        ("PW", problem.pad[2]),
        ("DD", problem.dilation[0]),
        ("DH", problem.dilation[1]),
        ("DW", problem.dilation[2]),
    ]
}
