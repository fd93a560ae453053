//! Code generation of the direct family: the constants header of one plan, the shared device
//! prelude (`crate::PRELUDE`), then the part of the kernel both math paths share (`common.cu`:
//! the shared-memory copy, element conversions, derived tile constants, the tile walk
//! and the halo copy) and the body of the math path (`fwd.cu` on CUDA cores, `fwd_mma.cu` on
//! tensor cores, after the tensor-core PTX helpers).

use super::geometry::{DirectGeometry, DirectPlan, W_REG_BUDGET};
use super::mma;
use super::view::DirectView;
use crate::config::{KernelConfig, Math};
use crate::source::{Arch, KernelSource, Launch};
use gconv_problem::{DType, Problem};
use std::fmt::Write;

/// The part of the forward kernel both math paths share: the shared-memory copy, element
/// conversions, the derived tile constants, the tile walk and the halo copy.
const COMMON: &str = include_str!("common.cu");
/// The CUDA-core (simt) kernel body.
const FWD_BODY: &str = include_str!("fwd.cu");

/// Generates the module of an admitted plan.
pub fn emit(plan: &DirectPlan) -> KernelSource {
    let (cfg, problem, kp) = (&plan.cfg, &plan.problem, &plan.kernel_problem);
    let geo = &plan.geometry;
    let name = cfg.to_string();
    let view = DirectView::of(cfg);
    let out = problem.output();
    let mut h = String::new();
    let w = &mut h;
    // Writing to a String cannot fail.
    let _ = writeln!(w, "// gconv direct forward kernel: generated, do not edit");
    let _ = writeln!(w, "// kernel:  {name}");
    let _ = writeln!(w, "// problem: {problem}");
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
    let ints: [(&str, u64); 40] = [
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
        ("XROW", geo.xrow),
        ("XS_BYTES", geo.xs_bytes),
        ("WS_BYTES", geo.ws_bytes),
        ("RAW_BYTES", geo.raw_bytes),
        ("SMEM_BYTES", geo.smem_bytes),
        ("GRID_X", geo.grid[0]),
        ("W_REG_BUDGET", W_REG_BUDGET),
        ("STAGES", if view.persistent { 2 } else { 1 }),
    ];
    for (k, v) in ints {
        let _ = writeln!(w, "constexpr int {k} = {v};");
    }
    let code = if cfg.math == Math::Mma {
        for (k, v) in mma_constants(cfg, problem, kp, geo) {
            let _ = writeln!(w, "constexpr int {k} = {v};");
        }
        format!(
            "{h}\n{}\n{COMMON}\n{}\n{}",
            crate::PRELUDE,
            crate::MMA_PTX,
            mma::BODY.replace("@ENTRY@", &name)
        )
    } else {
        format!(
            "{h}\n{}\n{COMMON}\n{}",
            crate::PRELUDE,
            FWD_BODY.replace("@ENTRY@", &name)
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
        }],
        workspace_bytes: 0,
    }
}

/// The mma path's generated constants (after the shared ones, whose G_/CG/KG are the merged
/// groups of `kp` = [`super::kernel_problem`]): the unit shape, the weight row stride, and the
/// group merge with the real C/G and K/G (`CG0`, `KG0`) for the block-diagonal weight fill.
fn mma_constants(
    cfg: &KernelConfig,
    problem: &Problem,
    kp: &Problem,
    geo: &DirectGeometry,
) -> [(&'static str, u64); 6] {
    [
        ("NW", mma::unit_channels(cfg, kp)),
        ("MB", mma::unit_blocks(cfg)),
        ("WROW", geo.wrow),
        ("GM", problem.g / kp.g),
        ("CG0", problem.cpg()),
        ("KG0", problem.kpg()),
    ]
}
