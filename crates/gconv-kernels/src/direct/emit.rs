//! Code generation of the direct family: the constants header of one plan, the shared device
//! prelude (`crate::PRELUDE`), then the part of the kernel both math paths share (`common.cu`:
//! the shared-memory copy, element conversions, derived tile constants, the tile walk
//! and the halo copy) and the body of the math path (`fwd.cu` on CUDA cores, `fwd_mma.cu` on
//! tensor cores, after the tensor-core PTX helpers), whose `@WEIGHTS@` line is the weight
//! staging of the direction.
//!
//! A backward-data module is the forward module of the dual problem
//! ([`super::geometry::forward_problem`]): the constants are the dual's, `dgrad.cu` (the index
//! of a dual weight in the original filter: the spatial flip and the channel transpose) follows
//! `common.cu`, and the staging is `dgrad_weights.cu` / `dgrad_mma_weights.cu` instead of
//! `fwd_weights.cu` / `fwd_mma_weights.cu`, and the `DGRAD` constant is 1 (0 in a forward
//! module): the tensor-core body then stages the gathered weights in `walk_tiles`' prologue
//! instead of before the walk. A backward-data problem without a dual is
//! the stride-phase module (`common.cu` + `dgrad_phases.cu`, or on tensor cores the mma PTX
//! helpers + `dgrad_phases_mma.cu`, [`super::strided`]); a
//! backward-weight problem the slab module (`common.cu` + `wgrad.cu` + the shared split
//! reduction, [`super::wgrad::emit`]).

use super::banded;
use super::fragments::{problem_constants, COMMON};
use super::fwd_banded;
use super::geometry::{DirectGeometry, DirectPlan, W_REG_BUDGET};
use super::mma;
use super::shape::halo_split;
use super::stream;
use super::strided;
use super::view::DirectView;
use super::wgrad;
use super::wgrad_mma;
use crate::config::{KernelConfig, Math};
use crate::source::{Arch, KernelSource, Launch};
use gconv_problem::{DType, Direction, Problem};
use std::fmt::Write;

/// The CUDA-core (simt) kernel body.
const FWD_BODY: &str = include_str!("fwd.cu");
/// The line of both bodies that the direction's weight staging replaces.
const WEIGHTS_SLOT: &str = "@WEIGHTS@\n";
/// Weight staging of the simt body: forward (contiguous rows) and backward data (gathered
/// through `dgrad_w_index`).
const FWD_WEIGHTS: &str = include_str!("fwd_weights.cu");
const DGRAD_WEIGHTS: &str = include_str!("dgrad_weights.cu");
/// Weight staging of the mma body, forward (16-byte copies) and backward data.
const FWD_MMA_WEIGHTS: &str = include_str!("fwd_mma_weights.cu");
const DGRAD_MMA_WEIGHTS: &str = include_str!("dgrad_mma_weights.cu");
/// The backward-data index function (after `common.cu`, which defines `TAPS`).
const DGRAD: &str = include_str!("dgrad.cu");

/// The direction as a word for the generated header.
fn direction_word(d: Direction) -> &'static str {
    match d {
        Direction::Fwd => "forward",
        Direction::Dgrad => "backward-data",
        Direction::Wgrad => "backward-weight",
    }
}

/// Generates the module of an admitted plan.
pub fn emit(plan: &DirectPlan) -> KernelSource {
    // Every constant is the forward problem's (the dual of a backward-data problem).
    let (cfg, real, problem, kp) = (
        &plan.cfg,
        &plan.problem,
        &plan.forward_problem,
        &plan.kernel_problem,
    );
    if strided::applies(real) {
        return emit_phases(plan);
    }
    if banded::applies(cfg, real) {
        return banded::emit(cfg, real, &plan.geometry);
    }
    if fwd_banded::applies(cfg, real) {
        return fwd_banded::emit(cfg, real, problem, &plan.geometry);
    }
    if stream::applies(cfg, real) {
        return stream::emit(cfg, real, &plan.geometry);
    }
    if wgrad_mma::applies(cfg, real) {
        return wgrad_mma::emit(cfg, real, kp, &plan.geometry);
    }
    if wgrad::applies(real) {
        return wgrad::emit(cfg, real, &plan.geometry);
    }
    let dgrad = real.direction == Direction::Dgrad;
    let geo = &plan.geometry;
    let name = cfg.to_string();
    let view = DirectView::of(cfg);
    let mut h = String::new();
    let w = &mut h;
    // Writing to a String cannot fail.
    let _ = writeln!(
        w,
        "// gconv direct {} kernel: generated, do not edit",
        direction_word(real.direction)
    );
    let _ = writeln!(w, "// kernel:  {name}");
    let _ = writeln!(w, "// problem: {real}");
    if dgrad {
        let _ = writeln!(
            w,
            "// computed as the forward problem {problem} (flipped, channel-transposed filter)"
        );
    }
    let _ = writeln!(
        w,
        "// tile {}x{} pixels x {} channels, halo {}x{}x{} x {} input channels, smem {} B",
        geo.th,
        geo.tw,
        view.tile_channels,
        geo.halo[0],
        geo.halo[1],
        geo.halo[2],
        geo.ct,
        geo.smem_bytes
    );
    let _ = writeln!(
        w,
        "#define ELEM {}",
        if problem.dtype == DType::F32 {
            "float"
        } else {
            "unsigned short"
        }
    );
    let _ = writeln!(
        w,
        "constexpr bool IS_BF16 = {};",
        problem.dtype == DType::Bf16
    );
    let ints: [(&str, u64); 23] = [
        ("G_", kp.g),
        ("CG", kp.cpg()),
        ("KG", kp.kpg()),
        ("TH", geo.th),
        ("TW", geo.tw),
        ("BN", view.tile_channels as u64),
        ("VEC", cfg.vec_a as u64),
        ("PX", cfg.vec_b as u64),
        ("THREADS", cfg.threads() as u64),
        ("VL", geo.vl),
        ("SV", geo.sv),
        ("CTS", geo.cts),
        (
            "XSPLIT",
            if cfg.math == Math::Mma {
                mma::halo_phases(cfg, kp)
            } else {
                halo_split(false, problem.stride[2])
            },
        ),
        ("XROW", geo.xrow),
        ("XS_BYTES", geo.xs_bytes),
        ("WS_BYTES", geo.ws_bytes),
        ("RAW_BYTES", geo.raw_bytes),
        ("SMEM_BYTES", geo.smem_bytes),
        ("GRID_X", geo.grid[0]),
        ("MIN_CTAS", geo.min_ctas),
        ("W_REG_BUDGET", W_REG_BUDGET),
        // 1: a tile per CTA; 2: persistent; 3: a column of tiles streamed over depth (the
        // forward and backward-data meanings, `DirectView`; validated to 1..=3).
        ("STAGES", cfg.stages as u64),
        // 1: a backward-data module (the dual's forward kernel; its weights are gathered).
        ("DGRAD", u64::from(dgrad)),
    ];
    for (k, v) in problem_constants(problem).into_iter().chain(ints) {
        let _ = writeln!(w, "constexpr int {k} = {v};");
    }
    let common = if dgrad {
        format!("{COMMON}{DGRAD}")
    } else {
        COMMON.to_string()
    };
    let code = if cfg.math == Math::Mma {
        for (k, v) in mma_constants(cfg, problem, kp, geo) {
            let _ = writeln!(w, "constexpr int {k} = {v};");
        }
        let weights = if dgrad {
            DGRAD_MMA_WEIGHTS
        } else {
            FWD_MMA_WEIGHTS
        };
        format!(
            "{h}\n{}\n{common}\n{}\n{}",
            crate::PRELUDE,
            crate::MMA_PTX,
            mma::BODY
                .replace("@ENTRY@", &name)
                .replace(WEIGHTS_SLOT, weights)
        )
    } else {
        let weights = if dgrad { DGRAD_WEIGHTS } else { FWD_WEIGHTS };
        format!(
            "{h}\n{}\n{common}\n{}",
            crate::PRELUDE,
            FWD_BODY
                .replace("@ENTRY@", &name)
                .replace(WEIGHTS_SLOT, weights)
        )
    };
    KernelSource {
        kernel_name: name.clone(),
        code,
        arch: Arch::Sm90,
        launches: vec![Launch {
            entry: name,
            grid: [geo.grid[0] as u32, geo.grid[1] as u32, geo.grid[2] as u32],
            block: [cfg.threads(), 1, 1],
            dynamic_smem_bytes: geo.smem_bytes as u32,
            overlaps_previous: false,
            cluster: 1,
            tensor_maps: Vec::new(),
        }],
        workspace_bytes: 0,
    }
}

/// The module of a stride-phase dgrad plan (`super::strided`): the shared constants describe
/// the staged dY halo on a stride-1 walk over cells (common.cu's tile walk and halo copy), the
/// phase constants the real convolution; then `dgrad_phases.cu`, or on tensor cores the mma
/// constants, the PTX helpers and `dgrad_phases_mma.cu`.
fn emit_phases(plan: &DirectPlan) -> KernelSource {
    let (cfg, problem, geo) = (&plan.cfg, &plan.problem, &plan.geometry);
    let ph = strided::Phases::of(problem);
    let name = cfg.to_string();
    let view = DirectView::of(cfg);
    let dy = problem.output();
    let mut h = String::new();
    let w = &mut h;
    let _ = writeln!(
        w,
        "// gconv direct backward-data kernel: generated, do not edit"
    );
    let _ = writeln!(w, "// kernel:  {name}");
    let _ = writeln!(w, "// problem: {problem}");
    let _ = writeln!(
        w,
        "// stride phases: {}x{}x{} cells of {}x{}x{} dX pixels, tile {}x{} cells x {} channels, halo {}x{}x{} x {} dY channels, smem {} B",
        ph.cells[0],
        ph.cells[1],
        ph.cells[2],
        problem.stride[0],
        problem.stride[1],
        problem.stride[2],
        geo.th,
        geo.tw,
        view.tile_channels,
        geo.halo[0],
        geo.halo[1],
        geo.halo[2],
        geo.ct,
        geo.smem_bytes
    );
    let _ = writeln!(
        w,
        "#define ELEM {}",
        if problem.dtype == DType::F32 {
            "float"
        } else {
            "unsigned short"
        }
    );
    let _ = writeln!(
        w,
        "constexpr bool IS_BF16 = {};",
        problem.dtype == DType::Bf16
    );
    let int = |v: u64| v as i64;
    let ints: [(&str, i64); 60] = [
        ("ESZ", int(problem.dtype.size_bytes())),
        ("N_", int(problem.n)),
        ("ID", int(dy[0])),
        ("IH", int(dy[1])),
        ("IW", int(dy[2])),
        ("OD", int(ph.cells[0])),
        ("OH", int(ph.cells[1])),
        ("OW", int(ph.cells[2])),
        ("FZ", int(geo.halo[0])),
        ("FY", int(1 + ph.reach(1))),
        ("FX", int(1 + ph.reach(2))),
        ("SD", 1),
        ("SH", 1),
        ("SW", 1),
        ("PD", -ph.emin[0]),
        ("PH", -ph.emin[1]),
        ("PW", -ph.emin[2]),
        ("DD", 1),
        ("DH", 1),
        ("DW", 1),
        ("G_", int(problem.g)),
        ("CG", int(problem.kpg())),
        ("KG", int(problem.cpg())),
        ("TH", int(geo.th)),
        ("TW", int(geo.tw)),
        ("BN", int(view.tile_channels as u64)),
        ("VEC", int(cfg.vec_a as u64)),
        ("PX", int(cfg.vec_b as u64)),
        ("THREADS", int(cfg.threads() as u64)),
        ("VL", int(geo.vl)),
        ("SV", int(geo.sv)),
        ("CTS", int(geo.cts)),
        ("XSPLIT", 1),
        ("XROW", int(geo.xrow)),
        ("XS_BYTES", int(geo.xs_bytes)),
        ("WS_BYTES", int(geo.ws_bytes)),
        ("RAW_BYTES", int(geo.raw_bytes)),
        ("SMEM_BYTES", int(geo.smem_bytes)),
        ("GRID_X", int(geo.grid[0])),
        ("MIN_CTAS", int(geo.min_ctas)),
        ("W_REG_BUDGET", int(W_REG_BUDGET)),
        ("STAGES", if view.persistent { 2 } else { 1 }),
        ("XD", int(problem.input[0])),
        ("XH", int(problem.input[1])),
        ("XW", int(problem.input[2])),
        ("KZ", int(problem.filter[0])),
        ("KY", int(problem.filter[1])),
        ("KX", int(problem.filter[2])),
        ("NSD", int(problem.stride[0])),
        ("NSH", int(problem.stride[1])),
        ("NSW", int(problem.stride[2])),
        ("RPD", int(problem.pad[0])),
        ("RPH", int(problem.pad[1])),
        ("RPW", int(problem.pad[2])),
        ("RDD", int(problem.dilation[0])),
        ("RDH", int(problem.dilation[1])),
        ("RDW", int(problem.dilation[2])),
        ("EMIN_D", ph.emin[0]),
        ("EMIN_H", ph.emin[1]),
        ("EMIN_W", ph.emin[2]),
    ];
    for (k, v) in ints {
        let _ = writeln!(w, "constexpr int {k} = {v};");
    }
    let code = if cfg.math == Math::Mma {
        // Tensor cores: the warp units of the channel view (dX channels), the weight rows of
        // every phase's taps, no group merge (the rules refuse it here).
        let view = strided::channel_view(problem);
        let mma_ints: [(&str, u64); 6] = [
            ("NW", mma::unit_channels(cfg, &view)),
            ("MB", mma::unit_blocks(cfg)),
            ("WROW", geo.wrow),
            ("GM", 1),
            ("CG0", problem.kpg()),
            ("KG0", problem.cpg()),
        ];
        for (k, v) in mma_ints {
            let _ = writeln!(w, "constexpr int {k} = {v};");
        }
        format!(
            "{h}\n{}\n{COMMON}\n{}\n{}",
            crate::PRELUDE,
            crate::MMA_PTX,
            strided::MMA_BODY.replace("@ENTRY@", &name)
        )
    } else {
        format!(
            "{h}\n{}\n{COMMON}\n{}",
            crate::PRELUDE,
            strided::BODY.replace("@ENTRY@", &name)
        )
    };
    KernelSource {
        kernel_name: name.clone(),
        code,
        arch: Arch::Sm90,
        launches: vec![Launch {
            entry: name,
            grid: [geo.grid[0] as u32, geo.grid[1] as u32, geo.grid[2] as u32],
            block: [cfg.threads(), 1, 1],
            dynamic_smem_bytes: geo.smem_bytes as u32,
            overlaps_previous: false,
            cluster: 1,
            tensor_maps: Vec::new(),
        }],
        workspace_bytes: 0,
    }
}

/// The mma path's generated constants (after the shared ones, whose G_/CG/KG are the merged
/// groups of `kp` = [`super::kernel_problem`]): the unit shape, the weight row stride, the
/// group merge with the real C/G and K/G (`CG0`, `KG0`, of the forward problem `problem`) for
/// the block-diagonal weight fill, whether a warp keeps a tile's B fragments
/// ([`mma::b_resident`]) and whether the A fragments slide along the filter row
/// ([`mma::a_slide`]).
fn mma_constants(
    cfg: &KernelConfig,
    problem: &Problem,
    kp: &Problem,
    geo: &DirectGeometry,
) -> [(&'static str, u64); 8] {
    [
        ("NW", mma::unit_channels(cfg, kp)),
        ("MB", mma::unit_blocks(cfg)),
        ("WROW", geo.wrow),
        ("GM", problem.g / kp.g),
        ("CG0", problem.cpg()),
        ("KG0", problem.kpg()),
        ("B_RESIDENT", u64::from(mma::b_resident(cfg, kp))),
        ("A_SLIDE", u64::from(mma::a_slide(cfg, kp))),
    ]
}

/// Occurrences of the weight-staging slot in the (simt, mma) bodies (each must be 1).
#[cfg(test)]
pub(crate) fn slot_count() -> (usize, usize) {
    (
        FWD_BODY.matches(WEIGHTS_SLOT).count(),
        mma::BODY.matches(WEIGHTS_SLOT).count(),
    )
}
