//! The `igemm` family, forward direction: implicit GEMM per group with groups on the grid, one
//! launch per grouped convolution (plus a reduction launch for split-K).
//!
//! Verified on the H200 by `gconv selftest --gpu` (every default-pool member on every forward
//! case of the matrix; with the direct pool and the reference kernels 2826 passed, 0 failed —
//! `results/h200/s4/selftest.log`) and in CI by host emulation (`tests/host_emulation.rs`:
//! the same CUDA C++ on the CPU, with `ldmatrix`/`mma.sync` emulated as warp collectives and
//! `wgmma` computed from its shared-memory descriptors, `GCONV_HOST_EMULATION` branches of the
//! PTX helpers in `fwd.cu`).
//!
//! For each group block of `gm` adjacent groups the GEMM is M = N·Do·Ho·Wo output pixels,
//! N = gm·K/G merged output channels, K = taps × gm·C/G, walked as filter taps outer and channel
//! blocks of `tile_k` inner. Grid = (⌈M/tile_m⌉, ⌈gm·K/G / tile_n⌉, G/gm · split_k).
//!
//! What the generated CUDA C++ does (see `fwd.cu`, which [`emit`] specialises with compile-time
//! constants of the config and the problem):
//!
//! - **Loads**: `cp.async` with `src-size` zero-fill (16/8/4 bytes, the effective vector widths
//!   of [`crate::config::effective_vectors`]) handles padding, out-of-range rows and channels
//!   without branches; 2-byte elements (odd channel counts in f16/bf16) are loaded into
//!   registers before the tile's math and stored to shared memory after it. Each thread decodes
//!   its A rows (n, d, h, w of the output pixel) once, before the K loop; per k-tile only the
//!   tap offset and three unsigned range tests remain. The pointwise fast path skips the decode
//!   (row m starts at m·C) and is numerically identical to the general path.
//! - **Group merge**: the A tile gathers gm·C/G contiguous channels; the weight tile is
//!   block-diagonal (chunks outside a row's own group are zero-filled, never loaded); every
//!   output channel of the merged block is a real output, so all are stored.
//! - **Shared memory**: row-major `[row][k]` tiles with an XOR swizzle of the 16-byte chunks
//!   inside each 128-byte line, conflict-free for `ldmatrix` (x4) and for the SIMT 16-byte reads.
//! - **Pipeline**: `stages` (2..=5; wgmma 3..=5) buffers, prologue of `stages − 1` tiles
//!   (wgmma: `stages − 2`), one `cp.async.wait_group` + `__syncthreads` per k-tile, the next
//!   tile's copies issued before the current tile's math.
//! - **Math**: f16/bf16 `mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}` (f32 accumulation);
//!   f32 FFMA on CUDA cores with a 4×8 lane layout and 16-byte shared loads; or (`math =
//!   wgmma`, sm_90a) `wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}` with N = tile_n:
//!   one to three warpgroups stacked along M, each owning 64 or 128 rows of the tile, both
//!   operands read by the tensor cores from the shared-memory tiles through matrix descriptors
//!   (K-major, 128-byte swizzle — the loaders' XOR swizzle with 128-byte rows, tile_k = 64, is
//!   that layout once the tiles start 1024-byte aligned, which the kernel arranges).
//!   `fence.proxy.async` after each thread's copies land, one batch of 4 k16 steps committed per
//!   k-tile and retired one k-tile later (`wait_group 1`), prefetch distance `stages − 2` so
//!   that no stage is refilled while a batch may still read it. The asm of each N lists the
//!   accumulators as operands, so it is generated per config (`wgmma_helpers`).
//! - **Measured** (H200, `results/h200/s3/`, `s4/`): on the C/G 128 zoo layer (`g2_c256`) the
//!   192×128 tile (three warpgroups, 262 CTAs = two full waves on 132 SMs, 17 % fewer bytes per
//!   MAC than 128×128) takes 0.0285 ms = 519 TF/s (52 % of the 989 TF/s bf16 spec): 1.05×,
//!   1.006× and 1.001× cuDNN in three runs (its best engine measured 0.0285–0.0300 ms), so at
//!   par rather than ahead; 128×128 reached
//!   0.0293–0.0296 ms. A dense 256-channel 56×56 layer reaches 639–659 TF/s (0.82–0.85×
//!   cuDNN, whose best is at 79 %). Two merged C/G 32 groups in a 256×64 tile (`gm2`) are the fastest kernel on
//!   the 7×7 C/G 32 zoo layer (1.07×). A 128×128 tile with one CTA per SM moves 32 KB through
//!   L2 per 1 M MACs and issues copies and MMAs from the same warps behind one barrier per
//!   k-tile; warp-specialised TMA producers with mbarriers and cluster multicast of the weight
//!   tile are the next step.
//! - **Epilogue**: accumulators are converted (`cvt.rn.bf16x2.f32` / `cvt.rn.f16x2.f32`) and
//!   restaged through shared memory, then written with coalesced stores of up to 16 bytes.
//! - **Split-K** (deterministic): each split writes f32 partials to a workspace plane; a second
//!   launch sums the planes in a fixed order and converts.
//!
//! Everything is header-free (no `cuda_bf16.h`); the same config and problem give byte-identical
//! source. Golden copies live in `tests/golden/`; `GCONV_BLESS=1 cargo test -p gconv-kernels
//! --test golden` rewrites them on purpose.

use crate::config::{
    can_implement, effective_vectors, grid, smem_bytes, validate, Family, FastPath, KernelConfig,
    Math, Rejection, EPILOGUE_PAD,
};
use crate::source::{Arch, KernelSource, Launch};
use gconv_problem::{DType, Problem, TensorRole};
use std::fmt::Write;

/// The fixed part of the forward kernel (helpers, derived constants, kernel bodies).
const FWD_BODY: &str = include_str!("fwd.cu");

/// Generates the module for `cfg` on `problem`: both gates are checked first, and a config that
/// fails either is returned as the [`Rejection`], never generated.
pub fn emit(cfg: &KernelConfig, problem: &Problem) -> Result<KernelSource, Rejection> {
    if cfg.family != Family::Igemm {
        return Err(Rejection::FamilyNotImplemented {
            family: cfg.family.token(),
        });
    }
    validate(cfg, crate::config::required_arch(cfg))?;
    can_implement(cfg, problem)?;
    let name = cfg.to_string();
    let ev = effective_vectors(cfg, problem);
    let es = problem.dtype.size_bytes();
    let (od, oh, ow) = {
        let o = problem.output();
        (o[0], o[1], o[2])
    };
    let taps = problem.filter_volume();
    let pointwise = cfg.fast_path == FastPath::Pointwise;
    let mut h = String::new();
    let w = &mut h;
    // Writing to a String cannot fail.
    let _ = writeln!(w, "// gconv igemm forward kernel: generated, do not edit");
    let _ = writeln!(w, "// kernel:  {name}");
    let _ = writeln!(w, "// problem: {problem}");
    let _ = writeln!(
        w,
        "// effective vector widths (elements): A {}, B {}, C {}",
        ev.a, ev.b, ev.c
    );
    let _ = writeln!(
        w,
        "#define GCONV_MATH_MMA {}",
        u8::from(cfg.math == Math::Mma)
    );
    let _ = writeln!(
        w,
        "#define GCONV_MATH_WGMMA {}",
        u8::from(cfg.math == Math::Wgmma)
    );
    let _ = writeln!(
        w,
        "#define GCONV_SPLIT_REDUCE {}",
        u8::from(cfg.split_k > 1)
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
    let _ = writeln!(w, "constexpr int ESZ = {es};");
    let ints: [(&str, u64); 33] = [
        ("N_", problem.n),
        ("ID", problem.input[0]),
        ("IH", problem.input[1]),
        ("IW", problem.input[2]),
        ("OD", od),
        ("OH", oh),
        ("OW", ow),
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
        ("G_", problem.g),
        ("CG", problem.cpg()),
        ("KG", problem.kpg()),
        ("GM", cfg.group_merge as u64),
        ("BM", cfg.tile_m as u64),
        ("BN", cfg.tile_n as u64),
        ("BK", cfg.tile_k as u64),
        ("WARPS_M", cfg.warps_m as u64),
        ("WARPS_N", cfg.warps_n as u64),
        ("STAGES", cfg.stages as u64),
        ("VA", ev.a as u64),
        ("VB", ev.b as u64),
        ("VC", ev.c as u64),
        ("SPLIT", cfg.split_k as u64),
    ];
    for (k, v) in ints {
        let _ = writeln!(w, "constexpr int {k} = {v};");
    }
    let _ = writeln!(w, "constexpr int CPAD = {EPILOGUE_PAD};");
    let _ = writeln!(w, "constexpr bool POINTWISE = {pointwise};");
    // L1-allocating copies for A when taps re-read neighbouring pixels; L2-only otherwise.
    let _ = writeln!(w, "constexpr bool A_L1 = {};", taps > 1);
    if cfg.math == Math::Wgmma {
        wgmma_helpers(w, cfg, problem.dtype);
    }
    let code = format!(
        "{h}\n{}\n{}",
        crate::MMA_PTX,
        FWD_BODY.replace("@ENTRY@", &name)
    );

    let g = grid(cfg, problem);
    let mut launches = vec![Launch {
        entry: name.clone(),
        grid: [g[0] as u32, g[1] as u32, g[2] as u32],
        block: [cfg.threads(), 1, 1],
        dynamic_smem_bytes: smem_bytes(cfg),
    }];
    let mut workspace_bytes = 0;
    if cfg.split_k > 1 {
        let y = problem.elements(TensorRole::Y);
        workspace_bytes = y * cfg.split_k as u64 * 4;
        launches.push(Launch {
            entry: format!("{name}_reduce"),
            grid: [y.div_ceil(256) as u32, 1, 1],
            block: [256, 1, 1],
            dynamic_smem_bytes: 0,
        });
    }
    Ok(KernelSource {
        kernel_name: name,
        code,
        arch: if cfg.math == Math::Wgmma {
            Arch::Sm90a
        } else {
            Arch::Sm90
        },
        launches,
        workspace_bytes,
    })
}

/// The wgmma helpers of one config, generated because the instruction names its N and lists
/// every accumulator register as an operand: `wgmma_tile` (one m64nNk16, A and B from
/// shared-memory descriptors, accumulate) and `wgmma_hold` (an empty asm that keeps the
/// compiler from moving accumulator accesses across the asynchronous window). Under
/// `GCONV_HOST_EMULATION` the shim's `gconv_host_wgmma` computes the same product from the
/// descriptors.
fn wgmma_helpers(w: &mut String, cfg: &KernelConfig, dtype: DType) {
    let n = cfg.tile_n;
    let nacc = n / 2;
    let ty = if dtype == DType::Bf16 { "bf16" } else { "f16" };
    let regs = (0..nacc)
        .map(|i| format!("%{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let outs = (0..nacc)
        .map(|i| format!("\"+f\"(d[{i}])"))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(w, "constexpr int WG_NACC = {nacc};");
    let _ = writeln!(w, "#ifdef GCONV_HOST_EMULATION");
    let _ = writeln!(
        w,
        "__device__ __forceinline__ void wgmma_tile(float (&d)[{nacc}], unsigned long long da, unsigned long long db) {{ gconv_host_wgmma(d, {nacc}, da, db, {}); }}",
        dtype == DType::Bf16
    );
    let _ = writeln!(
        w,
        "__device__ __forceinline__ void wgmma_hold(float (&d)[{nacc}]) {{ (void)d; }}"
    );
    let _ = writeln!(w, "#else");
    let _ = writeln!(
        w,
        "__device__ __forceinline__ void wgmma_tile(float (&d)[{nacc}], unsigned long long da, unsigned long long db) {{"
    );
    let _ = writeln!(
        w,
        "  asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{}, 0;\\nwgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty} {{{regs}}}, %{}, %{}, p, 1, 1, 0, 0;\\n}}\\n\"",
        nacc + 2,
        nacc,
        nacc + 1
    );
    let _ = writeln!(w, "               : {outs}");
    let _ = writeln!(w, "               : \"l\"(da), \"l\"(db), \"r\"(1));");
    let _ = writeln!(w, "}}");
    let _ = writeln!(
        w,
        "__device__ __forceinline__ void wgmma_hold(float (&d)[{nacc}]) {{ asm volatile(\"\" : {outs} :: \"memory\"); }}"
    );
    let _ = writeln!(w, "#endif");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::default_forward_pool;

    fn prob(key: &str) -> Problem {
        key.parse().unwrap()
    }

    #[test]
    fn emit_is_deterministic_and_gated() {
        let p = prob("fwd_bf16_n2_g4_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1");
        let c = KernelConfig::default();
        let a = emit(&c, &p).unwrap();
        let b = emit(&c, &p).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.kernel_name, c.to_string());
        assert_eq!(a.launches.len(), 1);
        assert_eq!(a.launches[0].grid, [2, 1, 4]);
        assert!(!a.code.contains("#include"));
        assert!(!a.code.contains("@ENTRY@"));
        let bad = KernelConfig { stages: 9, ..c };
        assert_eq!(emit(&bad, &p).unwrap_err().reason(), "stages_out_of_range");
        let pw = KernelConfig {
            fast_path: FastPath::Pointwise,
            ..c
        };
        assert_eq!(
            emit(&pw, &p).unwrap_err().reason(),
            "pointwise_inapplicable"
        );
    }

    #[test]
    fn every_pool_config_emits_on_a_problem_it_accepts() {
        let keys = [
            "fwd_{dt}_n2_g32_c64_k64_i10x10_f3x3_s1x1_p1x1_d1x1",
            "fwd_{dt}_n2_g32_c32_k32_i10x10_f3x3_s1x1_p1x1_d1x1",
            "fwd_{dt}_n2_g4_c256_k256_i6x6_f1x1_s1x1_p0x0_d1x1",
            "fwd_{dt}_n2_g16_c256_k256_i10x10_f3x3_s1x1_p1x1_d1x1",
            "fwd_{dt}_n2_g2_c512_k512_i7x7_f3x3_s1x1_p1x1_d1x1",
        ];
        for dt in DType::ALL {
            for c in default_forward_pool(dt) {
                let ok = keys.iter().any(|k| {
                    let p = prob(&k.replace("{dt}", dt.token()));
                    emit(&c, &p).is_ok()
                });
                assert!(ok, "{c} emits on none of the test problems");
            }
        }
    }

    #[test]
    fn split_k_adds_a_reduction_launch() {
        let p = prob("fwd_f16_n1_g1_c256_k64_i7x7_f3x3_s1x1_p1x1_d1x1");
        let c = KernelConfig {
            dtype: DType::F16,
            split_k: 4,
            ..KernelConfig::default()
        };
        let s = emit(&c, &p).unwrap();
        assert_eq!(s.launches.len(), 2);
        assert_eq!(s.launches[0].grid[2], 4);
        assert_eq!(s.workspace_bytes, 49 * 64 * 4 * 4);
        assert!(s.code.contains(&format!("{}_reduce", s.kernel_name)));
    }
}
