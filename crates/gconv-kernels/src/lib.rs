//! gconv's kernels: kernel identity, admission, the kernel families and their code generation.
//!
//! - **Identity** (knows no family): [`config`] (`KernelConfig`, plain data), [`name`] (the
//!   canonical name, `Display`/`FromStr`), [`rejection`] (why a config is refused).
//! - **Admission**: [`admit::validate`] (is a config a kernel at all on an architecture) and
//!   [`admit::admit`] (does it run this problem; returns the [`Admitted`] plan that code
//!   generation, the cost model and dispatch take, so each gate runs once per pair).
//! - **Families**, each in its own folder behind [`family::KernelFamily`] (the one dispatch
//!   point, [`dispatch::of`]): [`igemm`] (implicit GEMM) and [`direct`] (halo-tile direct
//!   convolution); [`reference`](mod@reference) holds the naive `ref` kernels used only for verification.
//! - **Pools and `auto`**: [`catalogue`] (every family's pool by direction and dtype) and
//!   [`select`] (the rule-based `auto`).
//! - [`device`] (the SM count and limits planning uses, the one occupancy model) and [`source`]
//!   (the module/launch contract with the CUDA runtime).
//!
//! `ARCHITECTURE.md` at the repository root describes how these fit into `run`, `sweep` and
//! `bench`.

pub mod admit;
pub mod catalogue;
pub mod config;
pub mod device;
pub mod direct;
pub mod dispatch;
pub mod family;
pub mod igemm;
pub mod name;
pub mod reference;
pub mod rejection;
pub mod select;
pub mod shared;
pub mod source;

pub use admit::{
    admit, admit_validated, required_arch, validate, Admitted, Gate, Gated, Target, Validated,
};
pub use config::{Family, FastPath, KernelConfig, Math, SplitKMode};
pub use device::DeviceLimits;
pub use name::NameError;
pub use rejection::{FamilyRule, Rejection, RuleMessage};
pub use source::{Arch, Im2col, KernelSource, Launch, TensorMap, TmaElem};

/// The device helpers every generated kernel shares (16-bit types, conversions, `cp.async`,
/// shared-memory addresses), each with its host-emulation alternative; emitted first.
pub(crate) const PRELUDE: &str = include_str!("prelude.cu");

/// Tensor-core PTX helpers (`smem_u32`, `ldmatrix` x4/x2, `mma.sync` m16n8k16) with their
/// host-emulation alternatives, emitted into every igemm and direct-mma module.
pub(crate) const MMA_PTX: &str = include_str!("mma_ptx.cu");

/// The split-K reduction launches every family shares (`@ENTRY@_reduce`, deterministic, and
/// the atomic option's `@ENTRY@_zero` / `@ENTRY@_convert` with `red_add_f32`), enabled by
/// `GCONV_SPLIT_REDUCE` / `GCONV_SPLIT_ATOMIC` and sized by the module's `RED_PLANE` (f32
/// elements of one partial plane), `RED_SPLIT` (planes), `GCONV_RED_SLICES` (plane slices of
/// `_reduce`, [`split_reduce_define`]) and `ESZ` (output element bytes).
pub(crate) const SPLIT_REDUCE: &str = include_str!("split_reduce.cu");

/// The line defining `GCONV_RED_SLICES` of a deterministic split over `planes` f32 planes of
/// `plane` elements ([`shared::reduce_slices`]), written with the module's constants; empty
/// when there is no split (`planes` ≤ 1: no `_reduce` in the module).
pub(crate) fn split_reduce_define(planes: u64, plane: u64) -> String {
    if planes <= 1 {
        return String::new();
    }
    format!(
        "#define GCONV_RED_SLICES {}\n",
        shared::reduce_slices(planes, plane)
    )
}

/// The cluster split's defines (`SplitKMode::Cluster`): `GCONV_SPLIT_CLUSTER` (the prelude's
/// `cluster_sync` and distributed shared-memory reads) and `GCONV_CLUSTER_ATTR`, which the
/// entry carries: `__cluster_dims__(cluster, 1, 1)`, empty for a plain launch (`cluster` ≤ 1).
pub(crate) fn split_cluster_define(cluster: u32) -> String {
    if cluster > 1 {
        format!(
            "#define GCONV_SPLIT_CLUSTER 1\n#define GCONV_CLUSTER_ATTR __cluster_dims__({cluster}, 1, 1)\n"
        )
    } else {
        "#define GCONV_SPLIT_CLUSTER 0\n#define GCONV_CLUSTER_ATTR\n".to_string()
    }
}

/// The `{name}_reduce` launch of a deterministic split over `planes` f32 planes of `plane`
/// elements: [`shared::REDUCE_THREADS`] threads per CTA, each CTA summing `REDUCE_THREADS /
/// slices` elements.
pub(crate) fn split_reduce_launch(name: &str, planes: u64, plane: u64) -> Launch {
    let per_cta = shared::REDUCE_THREADS / shared::reduce_slices(planes, plane);
    Launch {
        entry: format!("{name}_reduce"),
        grid: [plane.div_ceil(per_cta) as u32, 1, 1],
        block: [shared::REDUCE_THREADS as u32, 1, 1],
        dynamic_smem_bytes: 0,
        overlaps_previous: true,
        cluster: 1,
        tensor_maps: Vec::new(),
    }
}
