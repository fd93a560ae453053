//! Code generation of the igemm family: the constants header of one plan (the problem's and
//! the config's sizes as `constexpr`), the per-config wgmma helpers, the shared device prelude
//! (`crate::PRELUDE`), the tensor-core PTX helpers, and the kernel body assembled from fixed
//! CUDA C++ fragments:
//!
//! | fragment | what it holds | who provides it |
//! |---|---|---|
//! | `helpers.cu` | swizzle, wgmma descriptors and fences, vector copies (host-emulation alternatives) | the family |
//! | `dgrad_helpers.cu` | stride phases (`phase_dim`), block copies and transposes | backward-data |
//! | `constants.cu` | derived constants: GEMM sizes, tap packing, loader layouts | the family |
//! | `kernel_open.cu` | the entry point's signature, thread and tile indices, shared-memory bases | the family |
//! | `fwd_loaders.cu`, `dgrad_loaders.cu`, `wgrad_loaders.cu` | the operand loaders: A/B row decode, `fetch(stage)`, `flush(stage)`, `land(stage)`, the k-tile walk, the output map | the direction |
//! | `halo.cu` | the halo fast path's A operand: the staged halos (`fetch_halo`) and each k-tile's shift (`halo_a_off`), after the loaders | the family (forward and backward data) |
//! | `mainloop.cu` | the three math paths (`wgmma`, `mma.sync`, FFMA), the multistage pipeline and the warp-specialised schedule (`wgmmaws`) | the family |
//! | `epilogue.cu` | restaging through shared memory, coalesced stores (or the atomic adds) | the family |
//! | `crate::SPLIT_REDUCE` | the split-K reduction launches | shared by the families |
//!
//! A direction contributes its loaders fragment and device helpers ([`DirectionParts`]); the
//! contract is that the loaders define `m0` (the CTA's first GEMM row), `m_rows` and `n_cols`
//! (GEMM rows and columns of the CTA's output space), `out_off(m, n)` (the output element of
//! row m, column n in one output plane, negative for an element not stored: the off-diagonal
//! pairs of a merged backward-weight tile), `nkt` (k-tiles of this CTA's
//! split), `fetch(stage)` (issue the copies of the next k-tile into a stage and advance),
//! `flush(stage)` (store register-staged elements, after the math of the previous tile) and
//! `land(stage)` (restage a k-tile whose copies landed, before its barrier), with the tile
//! layout of `constants.cu`. For backward-data the header's names are the GEMM's: `I*` = dY's
//! dims, `O*` = dX's, `CG` = K/G, `KG` = C/G; backward-weight keeps the forward's names (`I*` =
//! X, `O*` = dY, `CG` = C/G, `KG` = K/G), its GEMM rows are gm·K/G and columns taps × gm·C/G.

use super::geometry::{
    dgrad_tiles_per_phase, output_kpg, reduction_cpg, DirectionParts, IgemmPlan, EPILOGUE_PAD,
};
use crate::config::{FastPath, KernelConfig, Math, SplitKMode};
use crate::source::{Im2col, KernelSource, Launch, TensorMap, TmaElem};
use gconv_problem::{DType, Direction, Problem};
use std::fmt::Write;

const HELPERS: &str = include_str!("helpers.cu");
const CONSTANTS: &str = include_str!("constants.cu");
const KERNEL_OPEN: &str = include_str!("kernel_open.cu");
const MAINLOOP: &str = include_str!("mainloop.cu");
const EPILOGUE: &str = include_str!("epilogue.cu");
const HALO: &str = include_str!("halo.cu");

/// The fragments of a direction, `None` for a direction the family does not generate yet.
pub fn direction_parts(direction: Direction) -> Option<DirectionParts> {
    match direction {
        Direction::Fwd => Some(DirectionParts {
            prologue: "",
            loaders: include_str!("fwd_loaders.cu"),
        }),
        Direction::Dgrad => Some(DirectionParts {
            prologue: include_str!("dgrad_helpers.cu"),
            loaders: include_str!("dgrad_loaders.cu"),
        }),
        Direction::Wgrad => Some(DirectionParts {
            prologue: "",
            loaders: include_str!("wgrad_loaders.cu"),
        }),
    }
}

/// Generates the module of an admitted plan: the generated constants header, the tensor-core
/// PTX helpers and the kernel body assembled from the family's fragments and the direction's
/// operand loaders.
pub fn emit(plan: &IgemmPlan) -> KernelSource {
    let (cfg, problem) = (&plan.cfg, &plan.problem);
    let name = cfg.to_string();
    let ev = plan.vectors;
    let es = problem.dtype.size_bytes();
    // The header names the GEMM's operands: I* = the A operand's spatial dims, O* = the
    // output's, CG = reduction channels per group, KG = output channels per group. Forward:
    // X, Y, C/G, K/G; backward-data: dY, dX, K/G, C/G.
    let dgrad = cfg.direction == Direction::Dgrad;
    let (a_dims, o_dims) = if dgrad {
        (problem.output(), problem.input)
    } else {
        (problem.input, problem.output())
    };
    let (od, oh, ow) = (o_dims[0], o_dims[1], o_dims[2]);
    let taps = problem.filter_volume();
    let pointwise = cfg.fast_path == FastPath::Pointwise;
    let mut h = String::new();
    let w = &mut h;
    // Writing to a String cannot fail.
    let _ = writeln!(
        w,
        "// gconv igemm {} kernel: generated, do not edit",
        direction_word(cfg.direction)
    );
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
        u8::from(cfg.math.is_wgmma())
    );
    let _ = writeln!(
        w,
        "#define GCONV_WS {}",
        u8::from(cfg.math.is_warp_specialised())
    );
    let tma = cfg.math == Math::WgmmaTma;
    let _ = writeln!(w, "#define GCONV_TMA {}", u8::from(tma));
    // The entry's tensor-map parameters after its four pointers (`Launch::tensor_maps`).
    let _ = writeln!(
        w,
        "#define GCONV_TMA_PARAMS{}",
        if tma {
            " , const __grid_constant__ gconv_tmap tmap_a, const __grid_constant__ gconv_tmap tmap_b"
        } else {
            ""
        }
    );
    let _ = writeln!(
        w,
        "#define GCONV_SPLIT_REDUCE {}",
        u8::from(cfg.split_k > 1 && cfg.split_k_mode == SplitKMode::Deterministic)
    );
    if cfg.split_k > 1 && cfg.split_k_mode == SplitKMode::Deterministic {
        w.push_str(&crate::split_reduce_define(
            cfg.split_k as u64,
            problem.elements(problem.roles().1),
        ));
    }
    let _ = writeln!(
        w,
        "#define GCONV_SPLIT_ATOMIC {}",
        u8::from(cfg.split_k > 1 && cfg.split_k_mode == SplitKMode::Atomic)
    );
    // `sk{n}c` (backward weight): the n slices of a tile are one thread-block cluster, adjacent
    // in x, and sum their f32 tiles through distributed shared memory (no workspace, no
    // `_reduce` launch).
    let cluster = cfg.split_k > 1 && cfg.split_k_mode == SplitKMode::Cluster;
    let cluster_size = if cluster { cfg.split_k } else { 1 };
    w.push_str(&crate::split_cluster_define(cluster_size));
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
    let ints: [(&str, u64); 34] = [
        ("N_", problem.n),
        ("ID", a_dims[0]),
        ("IH", a_dims[1]),
        ("IW", a_dims[2]),
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
        ("CG", reduction_cpg(problem)),
        ("KG", output_kpg(problem)),
        ("GM", cfg.group_merge as u64),
        ("BM", cfg.tile_m as u64),
        ("BN", cfg.tile_n as u64),
        ("BK", cfg.tile_k as u64),
        ("WARPS_M", cfg.warps_m as u64),
        ("WARPS_N", cfg.warps_n as u64),
        ("STAGES", cfg.stages as u64),
        ("PTHREADS", cfg.math.producer_threads() as u64),
        ("VA", ev.a as u64),
        ("VB", ev.b as u64),
        ("VC", ev.c as u64),
        ("SPLIT", cfg.split_k as u64),
    ];
    for (k, v) in ints {
        let _ = writeln!(w, "constexpr int {k} = {v};");
    }
    let _ = writeln!(w, "constexpr int CPAD = {EPILOGUE_PAD};");
    if dgrad {
        let _ = writeln!(
            w,
            "constexpr int DG_TILES = {};  // M tiles per stride phase",
            dgrad_tiles_per_phase(cfg, problem)
        );
    }
    let _ = writeln!(w, "constexpr bool POINTWISE = {pointwise};");
    let halo = cfg.fast_path == FastPath::Halo;
    let _ = writeln!(w, "#define GCONV_HALO {}", u8::from(halo));
    let _ = writeln!(w, "constexpr bool HALO = {halo};");
    // backward data walks the filter backwards over dY (the halo's tap shifts flipped)
    let _ = writeln!(w, "constexpr bool HALO_FLIP = {dgrad};");
    if halo {
        // The padded image of the halo path (geometry::HaloDims) and its buffers.
        let hd = super::geometry::halo_dims(problem);
        let rows = super::geometry::halo_rows(cfg, problem);
        let _ = writeln!(
            w,
            "constexpr int HP = {}, WP = {}, LH = {}, LW = {};  // padded image, dY's offset in it",
            hd.hp, hd.wp, hd.lh, hd.lw
        );
        let _ = writeln!(
            w,
            "constexpr int HALO_ROWS = {rows};  // rows of one halo buffer (tile_m + the largest shift)"
        );
    } else {
        // Declared in every igemm kernel: the other paths' discarded branches still name them.
        let _ = writeln!(
            w,
            "constexpr int HP = 1, WP = 1, LH = 0, LW = 0, HALO_ROWS = 0;  // (not the halo path)"
        );
    }
    let _ = writeln!(
        w,
        "constexpr bool WGRAD = {};",
        cfg.direction == Direction::Wgrad
    );
    let _ = writeln!(w, "constexpr bool A_MMAJOR = {};", plan.a_mmajor);
    let _ = writeln!(w, "constexpr bool B_NMAJOR = {};", plan.b_nmajor);
    // L1-allocating copies for A when taps re-read neighbouring pixels; L2-only otherwise.
    let _ = writeln!(w, "constexpr bool A_L1 = {};", taps > 1);
    if cfg.math.is_wgmma() {
        wgmma_helpers(w, cfg, problem.dtype, plan.a_mmajor, plan.b_nmajor);
    }
    let body = [
        HELPERS,
        plan.parts.prologue,
        CONSTANTS,
        KERNEL_OPEN,
        plan.parts.loaders,
        HALO,
        MAINLOOP,
        EPILOGUE,
        crate::SPLIT_REDUCE,
    ]
    .concat();
    let code = format!(
        "{h}\n{}\n{}\n{}",
        crate::PRELUDE,
        crate::MMA_PTX,
        body.replace("@ENTRY@", &name)
    );

    let g = plan.grid;
    let mut launches = vec![Launch {
        entry: name.clone(),
        grid: [g[0] as u32, g[1] as u32, g[2] as u32],
        block: [cfg.threads(), 1, 1],
        dynamic_smem_bytes: plan.smem_bytes,
        overlaps_previous: false,
        cluster: cluster_size,
        tensor_maps: if tma {
            tensor_maps(cfg, problem)
        } else {
            Vec::new()
        },
    }];
    let mut workspace_bytes = 0;
    if cfg.split_k > 1 {
        // f32 planes of the output (split_reduce.cu): one per slice, summed in slice order by
        // `_reduce`; or (atomic) one, zeroed by `_zero` before the slices add into it and
        // converted by `_convert`.
        let plane = problem.elements(problem.roles().1);
        let pass = |suffix: &str, overlaps_previous: bool| Launch {
            entry: format!("{name}_{suffix}"),
            grid: [plane.div_ceil(256) as u32, 1, 1],
            block: [256, 1, 1],
            dynamic_smem_bytes: 0,
            overlaps_previous,
            cluster: 1,
            tensor_maps: Vec::new(),
        };
        if cfg.split_k_mode == SplitKMode::Atomic {
            workspace_bytes = plane * 4;
            launches.insert(0, pass("zero", false));
            launches.push(pass("convert", true));
        } else if cfg.split_k_mode == SplitKMode::Cluster {
            // one launch: each cluster sums its slices itself
        } else {
            workspace_bytes = plane * cfg.split_k as u64 * 4;
            launches.push(crate::split_reduce_launch(&name, cfg.split_k as u64, plane));
        }
    }
    KernelSource {
        kernel_name: name,
        code,
        arch: super::required_arch(cfg),
        launches,
        workspace_bytes,
    }
}

/// The wgmma helpers of one config, generated because the instruction names its N and lists
/// every accumulator register as an operand: `wgmma_tile` (one m64nNk16, A and B from
/// shared-memory descriptors, accumulate) and `wgmma_hold` (an empty asm that keeps the
/// compiler from moving accumulator accesses across the asynchronous window). Under
/// `GCONV_HOST_EMULATION` the shim's `gconv_host_wgmma` computes the same product from the
/// descriptors.
fn wgmma_helpers(w: &mut String, cfg: &KernelConfig, dtype: DType, trans_a: bool, trans_b: bool) {
    let (ta, tb) = (u8::from(trans_a), u8::from(trans_b));
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
        "__device__ __forceinline__ void wgmma_tile(float (&d)[{nacc}], unsigned long long da, unsigned long long db) {{ gconv_host_wgmma(d, {nacc}, da, db, {}, {}, {}); }}",
        dtype == DType::Bf16,
        trans_a,
        trans_b
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
        "  asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{}, 0;\\nwgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty} {{{regs}}}, %{}, %{}, p, 1, 1, {ta}, {tb};\\n}}\\n\"",
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

/// The direction as a word for the generated header.
fn direction_word(d: Direction) -> &'static str {
    match d {
        Direction::Fwd => "forward",
        Direction::Dgrad => "backward-data",
        Direction::Wgrad => "backward-weight",
    }
}

/// The tensor maps of a `wgmmatma` kernel (`gm1`; the loaders' `tma_fetch`), each a view of one
/// buffer in the 128-byte swizzle of the wgmma tiles, innermost first:
/// - forward, general path: A over X as `[C, W, H, N]` in im2col mode (`tile_k` channels of
///   `tile_m` output pixels per copy: the corners −pad and pad − (F − 1)·dil, the strides as
///   element strides), B over W as `[C/G, taps, K/G, G]` (boxes `tile_k × 1 × tile_n × 1`);
/// - forward: A over X as `[C/G, G, pixels]` (boxes `tile_k × 1 × tile_m`), B over W as
///   `[C/G, K/G, G]` (boxes `tile_k × tile_n × 1`);
/// - backward data: A over dY as `[K/G, G, pixels]` (`tile_k × 1 × tile_m`), B over W as
///   `[C/G, K/G, G]` in 64-channel panels (`64 × tile_k × 1`); on the general path (stride 1)
///   A over dY as `[K, Wo, Ho, N]` in im2col mode (the dual forward walk: corners
///   pad − (F − 1)·dil and −pad, the taps' offsets flipped) and B over W as `[C/G, taps, K/G,
///   G]` in panels;
/// - backward weight: A over dY as `[K/G, G, pixels]` and B over X as `[C/G, G, pixels]`, both
///   in 64-channel panels of `tile_k` pixels (`64 × 1 × tile_k`); on the general path B over X
///   as `[C, W, H, N]` in im2col mode, one copy per 64-channel panel (a tap's channels) of the
///   k-tile's `tile_k` output pixels. With group merge `gm` the rows are a merged block's:
///   `[gm·K/G, G/gm, pixels]` and `[gm·C/G, G/gm, pixels]`; where gm does not divide G (a
///   tail, `rules::merge_tail`) `[K, 1, pixels]` and `[C, 1, pixels]`, each box from its
///   block's first channel, so that the missing groups are channels past the tensor (forward
///   and backward data take `wgmmatma` without merge only: `rules`).
pub fn tensor_maps(cfg: &KernelConfig, problem: &Problem) -> Vec<TensorMap> {
    let elem = match problem.dtype {
        DType::Bf16 => TmaElem::Bf16,
        DType::F16 => TmaElem::F16,
        DType::F32 => TmaElem::F32,
    };
    let es = problem.dtype.size_bytes();
    let (cg, kg, g) = (problem.cpg(), problem.kpg(), problem.g);
    let pixels = problem.n * problem.output().iter().product::<u64>();
    // a dense tensor, innermost first: each stride the product of the dimensions inside it
    let map = |buffer: u8, dims: &[u64], boxdim: &[u32]| TensorMap {
        buffer,
        elem,
        dims: dims.to_vec(),
        strides: (1..dims.len())
            .map(|d| dims[..d].iter().product::<u64>() * es)
            .collect(),
        boxdim: boxdim.to_vec(),
        swizzle_128b: true,
        im2col: None,
    };
    // per-group rows viewed with the group as the middle dimension: [channels, G, pixels];
    // with group merge (backward weight only) a merged block's adjacent groups are one row:
    // [GM·channels, G/GM, pixels]
    // (backward weight with a tail, `rules::merge_tail`: [G·channels, 1, pixels], a block's
    // box starting at its first channel, so that the missing groups fall past the tensor)
    let gm = u64::from(cfg.group_merge.max(1));
    let rows = |buffer: u8, channels: u64, boxdim: [u32; 3]| {
        if g.is_multiple_of(gm) {
            map(buffer, &[channels * gm, g / gm, pixels], &boxdim)
        } else {
            map(buffer, &[channels * g, 1, pixels], &boxdim)
        }
    };
    let (bm, bn, bk) = (cfg.tile_m, cfg.tile_n, cfg.tile_k);
    let taps = problem.filter_volume();
    match problem.direction {
        Direction::Fwd if cfg.fast_path == FastPath::General => vec![
            // A: X in im2col mode, BK channels of BM output pixels per copy; B: W as [C/G, taps,
            // K/G, G] (boxes tile_k × 1 tap × tile_n × 1 group).
            im2col_map(problem, elem, false, bk, bm),
            map(1, &[cg, taps, kg, g], &[bk, 1, bn, 1]),
        ],
        Direction::Fwd => vec![rows(0, cg, [bk, 1, bm]), map(1, &[cg, kg, g], &[bk, bn, 1])],
        Direction::Dgrad if cfg.fast_path == FastPath::General => vec![
            // A: dY in im2col mode, the dual forward walk over dX's pixels (the corner of dX
            // pixel (h, w) is (w + pad − (F−1)·dil, …), tap (y, x) read at offsets
            // ((F−1−x)·dil, …): dY at w + pad − x·dil); B: W as [C/G, taps, K/G, G] in
            // 64-channel panels (boxes 64 × 1 tap × tile_k rows × 1 group).
            im2col_map(problem, elem, true, bk, bm),
            map(1, &[cg, taps, kg, g], &[64, 1, bk, 1]),
        ],
        Direction::Dgrad => vec![rows(0, kg, [bk, 1, bm]), map(1, &[cg, kg, g], &[64, bk, 1])],
        Direction::Wgrad if cfg.fast_path == FastPath::General => vec![
            // A: dY as in the pointwise boxes; B: X in im2col mode, 64 channels (one panel, a
            // tap's) of the k-tile's tile_k output pixels per copy.
            rows(1, kg, [64, 1, bk]),
            im2col_map(problem, elem, false, 64, bk),
        ],
        Direction::Wgrad => vec![rows(1, kg, [64, 1, bk]), rows(0, cg, [64, 1, bk])],
    }
}

/// The im2col view of a 1D/2D activation for `wgmmatma`'s copies, `channels` channels of
/// `pixels` walked pixels per copy, in the 128-byte swizzle: X as `[C, W, H, N]` with the
/// corners −pad and pad − (F − 1)·dil and the strides as element strides (the forward walk);
/// with `dual`, dY as `[K, Wo, Ho, N]` with the corners pad − (F − 1)·dil and −pad and unit
/// steps (backward data at stride 1: the dual forward convolution's walk over dX's pixels).
fn im2col_map(
    problem: &Problem,
    elem: TmaElem,
    dual: bool,
    channels: u32,
    pixels: u32,
) -> TensorMap {
    let es = problem.dtype.size_bytes();
    let (c, dims) = if dual {
        (problem.k, problem.output())
    } else {
        (problem.c, problem.input)
    };
    let (w, h) = (dims[2], dims[1]);
    let corner = |d: usize| {
        let pad = problem.pad[d] as i32;
        let span = ((problem.filter[d] - 1) * problem.dilation[d]) as i32;
        if dual {
            (pad - span, -pad)
        } else {
            (-pad, pad - span)
        }
    };
    let ((lw, uw), (lh, uh)) = (corner(2), corner(1));
    let step = |d: usize| if dual { 1 } else { problem.stride[d] as u32 };
    TensorMap {
        buffer: 0,
        elem,
        dims: vec![c, w, h, problem.n],
        strides: vec![c * es, w * c * es, h * w * c * es],
        boxdim: vec![channels, 1, 1, 1],
        swizzle_128b: true,
        im2col: Some(Im2col {
            lower: vec![lw, lh],
            upper: vec![uw, uh],
            element_strides: vec![1, step(2), step(1), 1],
            channels_per_pixel: channels,
            pixels_per_column: pixels,
        }),
    }
}
