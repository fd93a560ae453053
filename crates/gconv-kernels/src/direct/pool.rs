//! The direct family's pools (forward; backward data as the same members relabelled plus the
//! stride-phase tensor-core members of [`phase_mma_pool`]; backward weight) and its config
//! constructor.

use crate::config::{Family, FastPath, KernelConfig, Math, SplitKMode};
use gconv_problem::{DType, Direction};

/// The family's default pool for a direction and dtype: the forward pool; for backward data
/// the same members labelled `dgrad` and the stride-phase tensor-core members ([`dgrad_pool`]);
/// for backward weight the slab kernel's members ([`wgrad_pool`]).
pub fn pool(direction: Direction, dtype: DType) -> Vec<KernelConfig> {
    match direction {
        Direction::Fwd => forward_pool(dtype),
        Direction::Dgrad => dgrad_pool(dtype),
        Direction::Wgrad => wgrad_pool(dtype),
    }
}

/// The backward-data pool: every forward member with `direction: Dgrad`, then
/// [`phase_mma_pool`]. A dgrad kernel is the forward kernel on the problem's stride-1 dual
/// (`super::geometry::forward_problem`), so the members are admitted per problem through the
/// dual, by the forward rules; on a strided layer they run the stride-phase kernels of
/// [`super::strided`].
pub fn dgrad_pool(dtype: DType) -> Vec<KernelConfig> {
    forward_pool(dtype)
        .into_iter()
        .map(|c| KernelConfig {
            direction: Direction::Dgrad,
            ..c
        })
        .chain(phase_mma_pool(dtype))
        .collect()
}

/// Backward-data members for the tensor-core stride-phase kernel (`dgrad_phases_mma.cu`):
/// persistent (`stages = 2`) tiles of 16 or 32 dX channels, whose small shared-memory footprint
/// keeps more CTAs resident than the forward pool's 48–128-channel tiles (the kernel is
/// latency bound at two CTAs per SM). The winners of a sweep of
/// `configs/traits/bwd_data_direct_mma_phases_bf16.json` over the real client's seven stride-2
/// layers (ResNeXt-50 32×4d, RegNetY-800MF, C/G 8–32; H100, `results/h100/s37/README.md`):
/// against the best member of the whole pool on the same layers (`results/h100/s36`, call 1),
/// G 4 112² 74.5 → 64.0 µs, G 9 56² 55.8 → 43.3, G 20 28² 36.1 → 28.6, G 32 C512 28² 44.9 →
/// 40.6, G 49 14² 25.1 → 19.8 (igemm before); these four are each of those layers' best of the
/// sweep within 1 %. The sweep's best on the C/G 8 layer (G 32 C256 56², 77.1 µs against 99.8,
/// `t64x32x16 … v16x4`) is left out: 1.8–2× slower than these on the C/G 16–32 layers, and a
/// selection model without rows of it ranked it first on two of them. Dgrad only: the forward
/// pool (and its decisions) are unchanged. 16-bit only (tensor cores).
pub fn phase_mma_pool(dtype: DType) -> Vec<KernelConfig> {
    if dtype == DType::F32 {
        return Vec::new();
    }
    [
        ([64, 32, 8], 8, [16, 2]),
        ([112, 32, 16], 8, [16, 2]),
        ([112, 16, 16], 8, [16, 2]),
        ([49, 16, 7], 4, [16, 2]),
    ]
    .into_iter()
    .map(|(t, w, v)| KernelConfig {
        direction: Direction::Dgrad,
        math: Math::Mma,
        stages: 2,
        ..config(dtype, t, w, v)
    })
    .collect()
}

/// The backward-weight pool (`super::wgrad`): `(tile, warps, [VEC, TPT])`, every member with
/// the slab count left to the rule (`split_k = 0`, resolved per problem) and 2 stages. 16-bit:
/// 8 channels per thread (16-byte reads) with all 9 taps of a 3×3 per thread, or 25 / 27 taps
/// in 3 / 3 tap groups (5×5, 3×3×3); 4 channels × 7 taps (7×7 in 7 tap groups); 2 channels ×
/// 9 taps on 64-channel tiles; 4 channels × 16 taps on 16-channel tiles for 13×13 … 31×31
/// filters (11 … 61 tap groups across the warps; 8 channels × 16 taps spill); 4 channels × 4 taps for C/G = K/G = 4 (a
/// group's 4 × 4 block per tap); a 1 × 64 tile for 1D; a 4 × 16 × 32-channel tile for the larger halos of
/// strided and 3D layers. f32: 4 channels (16 bytes). Then the streaming members
/// ([`stream_pool`], depthwise), the tensor-core members ([`mma_wgrad_pool`], 16-bit, C/G and
/// K/G multiples of 8) and the banded tensor-core members ([`banded_pool`], 16-bit depthwise).
pub fn wgrad_pool(dtype: DType) -> Vec<KernelConfig> {
    let members: &[([u32; 3], u32, [u32; 2])] = match dtype {
        DType::F16 | DType::Bf16 => &[
            ([128, 64, 16], 8, [8, 9]),
            ([128, 64, 16], 8, [2, 9]),
            ([112, 32, 28], 8, [4, 7]),
            ([64, 16, 16], 8, [4, 16]),
            ([128, 32, 16], 8, [4, 4]),
            ([64, 64, 64], 8, [8, 9]),
            ([64, 32, 16], 8, [8, 9]),
        ],
        DType::F32 => &[
            ([128, 32, 16], 8, [4, 9]),
            ([112, 32, 28], 8, [4, 7]),
            ([64, 16, 16], 8, [4, 16]),
            ([128, 32, 16], 8, [4, 4]),
        ],
    };
    members
        .iter()
        .map(|&(t, w, v)| KernelConfig {
            direction: Direction::Wgrad,
            stages: 2,
            split_k: 0,
            ..config(dtype, t, w, v)
        })
        .chain(stream_pool(dtype))
        .chain(mma_wgrad_pool(dtype))
        .chain(banded_pool(dtype))
        .collect()
}

/// The banded tensor-core members of the backward-weight pool (`super::banded`, 16-bit
/// depthwise 2D layers, stride 1, filters up to 32 × 35; slabs from the rule). Chosen by the session-13 sweep of `bwd_weight_banded_bf16.json` over the zoo's
/// stride-1 depthwise layers (`results/h200/s13`): 2 × 56 tiles of 16 channels on 4 warps
/// (7×7 at 56²: 43.8 µs against the pool's 56.6 and cuDNN's 73.9) and 14 × 32 tiles on 8 warps
/// (7×7 at 28²: 22.1 µs against 28.2 and 33.3), and the pipelined variant (`vec_b` 2) on
/// 8 × 56 tiles (7×7 at 56²: 39.3 µs, `results/h200/s13/call5`): `(TH, TW, BN, warps, vec_b)`.
/// On 3×3 layers and 7-pixel maps the CUDA-core members stay faster. Those members hold 16
/// channels on 4 or 8 warps, so from 25×25 on (16 tap blocks) their accumulators exceed the
/// gate's limit and only the CUDA-core member ran; session 44 added three members of one
/// channel per warp (8 channels, 8 warps: 4 × 28, 8 × 14 and 4 × 56 tiles), chosen greedily
/// from its sweep of every such configuration over 65 depthwise layers with filters 3…31
/// (`results/h100/s44`, calls 3 and 4, H100): over the pool before them 1.56× at 25×25 and
/// 1.70× at 31×31 in geometric mean (up to 3.0×: 31×31 at 56², 0.817 → 0.274 ms), 1.23× at
/// 21×21, none at 7×7.
pub fn banded_pool(dtype: DType) -> Vec<KernelConfig> {
    if dtype == DType::F32 {
        return Vec::new();
    }
    let members: &[(u32, u32, u32, u32, u32)] = &[
        (2, 56, 16, 4, 1),
        (14, 32, 16, 8, 1),
        (8, 56, 16, 4, 2),
        (4, 28, 8, 8, 1),
        (8, 14, 8, 8, 1),
        (4, 56, 8, 8, 1),
    ];
    members
        .iter()
        .map(|&(th, tw, bn, w, pipe)| KernelConfig {
            direction: Direction::Wgrad,
            math: Math::Mma,
            stages: 1,
            split_k: 0,
            ..config(dtype, [th * tw, bn, tw], w, [8, pipe])
        })
        .collect()
}

/// The tensor-core members of the backward-weight pool (`super::wgrad_mma`, 16-bit, C/G and
/// K/G multiples of 8, or 4 with two groups merged; slabs from the rule): `(tile pixels, TW,
/// BN, warps, MB, gm)`. 8×8-pixel tiles with two groups of 8 channels on 4 warps, one or two
/// groups of 16–32 channels on 8 warps in units of 2 or 3 m16 blocks, 8 groups of 8 per CTA,
/// 14-wide tiles for 14/28-wide outputs, 8×16 tiles for the large maps, 7×16 tiles of one
/// 24-channel group (C/G 24: 1.4–1.8× the igemm member on the H200) or of two 16-channel groups
/// (3D), and C/G 4 as pairs of merged groups (gm 2, 2× cuDNN where igemm was 0.8×). Four of
/// them also as the register-pipelined variant (`stages = 3`, `super::wgrad_mma::pipelined`):
/// on the H200 (session 22) it ran 4–20 % faster than its `stages = 2` twin on most of the
/// grouped layers those four win, and slower on some, so both are members; a fifth pipelined
/// member, 14×8-pixel tiles of merged C/G 4 pairs on 8 warps, only in that variant.
pub fn mma_wgrad_pool(dtype: DType) -> Vec<KernelConfig> {
    if dtype == DType::F32 {
        return Vec::new();
    }
    let members: &[(u32, u32, u32, u32, u32, u32)] = &[
        (64, 8, 16, 4, 2, 1),
        (64, 8, 32, 8, 3, 1),
        (64, 8, 32, 8, 2, 1),
        (64, 8, 64, 8, 2, 1),
        (112, 14, 32, 8, 3, 1),
        (128, 16, 16, 4, 2, 1),
        (112, 16, 24, 8, 2, 1),
        (112, 16, 32, 8, 3, 1),
        (64, 8, 32, 4, 5, 2),
    ];
    let pipelined: &[(u32, u32, u32, u32, u32, u32)] = &[
        (64, 8, 32, 8, 3, 1),
        (112, 16, 24, 8, 2, 1),
        (112, 16, 32, 8, 3, 1),
        (64, 8, 32, 4, 5, 2),
        // The fastest of 1,440 swept gm 2/4 configs on ResNeXt-50's C/G 4 layer at batch 64,
        // H100 (`results/h100/s48/call_f`): 64.7 → 53.1 µs against the gm 2 member above.
        (112, 8, 32, 8, 3, 2),
    ];
    let member = |stages: u32| {
        move |&(pixels, tw, bn, w, mb, gm): &(u32, u32, u32, u32, u32, u32)| KernelConfig {
            direction: Direction::Wgrad,
            math: Math::Mma,
            stages,
            split_k: 0,
            group_merge: gm,
            ..config(dtype, [pixels, bn, tw], w, [mb, 1])
        }
    };
    members
        .iter()
        .map(member(2))
        .chain(pipelined.iter().map(member(3)))
        .collect()
}

/// The streaming members of the backward-weight pool (`super::stream`, depthwise only,
/// `stages = 1`, slabs from the rule): `(TW, BN, warps, [VEC, RG])`, 256 threads. 16-bit: 3×3
/// (and 3×3×3, 5×5 in two groups) on 2-channel (4-byte) and 4-channel (8-byte) lanes with
/// strips of 8 or 16 columns, a 7-column strip for 7/14/28-wide outputs, 16-channel CTAs for
/// layers of few channels (more channel blocks), 5 rows of a 5×5 per group, 7×7 in groups of 4
/// (and 3) rows on 7- and 8-column strips, one row per group for 13×13 … 31×31 filters, a
/// 144-channel CTA on 4-channel lanes (the widest rows a 3×3 of 144 channels reads) and
/// 14-column strips on 4-channel lanes of 32-channel CTAs. f32:
/// the same shapes at VEC 1, 2 and 4 (4/8/16-byte reads).
pub fn stream_pool(dtype: DType) -> Vec<KernelConfig> {
    let members: &[(u32, u32, u32, [u32; 2])] = match dtype {
        DType::F16 | DType::Bf16 => &[
            (8, 64, 8, [2, 3]),
            (16, 64, 8, [2, 3]),
            (8, 128, 8, [4, 3]),
            (7, 64, 8, [2, 3]),
            (8, 16, 8, [2, 3]),
            (8, 64, 8, [2, 5]),
            (7, 32, 8, [2, 4]),
            (8, 32, 8, [2, 4]),
            (8, 16, 8, [2, 1]),
            (8, 144, 8, [4, 3]),
            (14, 32, 8, [4, 3]),
        ],
        DType::F32 => &[
            (8, 32, 8, [1, 3]),
            (8, 64, 8, [2, 3]),
            (8, 128, 8, [4, 3]),
            (8, 32, 8, [2, 4]),
            (8, 16, 8, [2, 1]),
        ],
    };
    members
        .iter()
        .map(|&(tw, bn, w, v)| KernelConfig {
            direction: Direction::Wgrad,
            stages: 1,
            split_k: 0,
            ..config(dtype, [tw, bn, tw], w, v)
        })
        .collect()
}

/// A direct forward config: `tile` = [tile_m, tile_n, tile_k] (pixels, channels, tile width),
/// `warps` warps, `vec` = [channels, pixels] per thread.
pub fn config(dtype: DType, tile: [u32; 3], warps: u32, vec: [u32; 2]) -> KernelConfig {
    KernelConfig {
        family: Family::Direct,
        direction: Direction::Fwd,
        dtype,
        tile_m: tile[0],
        tile_n: tile[1],
        tile_k: tile[2],
        warps_m: warps,
        warps_n: 1,
        stages: 1,
        vec_a: vec[0],
        vec_b: vec[1],
        group_merge: 1,
        split_k: 1,
        split_k_mode: SplitKMode::Deterministic,
        math: Math::Simt,
        fast_path: FastPath::General,
    }
}

/// The direct forward pool for a dtype (see [`super::DirectView`] for the field mapping): tiles
/// shaped for the 112/56/28/14/7-pixel outputs of the model zoo (16×16, 8×16, 8×32, 8×56,
/// 8×28, 14×28, 28×28, 14×14, 7×14, 7×7 pixels) of 16–128 channels, a 1×64 tile for 1D
/// problems; mostly 2 channels per thread (one 4-byte bf16 pair) with a PY × PX block of
/// 4–49 outputs per thread, plus 4- and 8-channel variants (8- and 16-byte accesses); and
/// persistent double-buffered (2-stage) versions of six of them; then the tensor-core members
/// (one-shot, persistent, depth-streaming and group-merged).
/// Every member passes the family's `validate`.
pub fn forward_pool(dtype: DType) -> Vec<KernelConfig> {
    use config as d;
    match dtype {
        DType::F16 | DType::Bf16 => [
            // 2 channels (4 bytes) per thread, PY x PX outputs: the thread-level reuse tiles.
            ([256, 32, 16], 8, [2, 4]),
            ([128, 64, 16], 8, [2, 4]),
            ([128, 32, 16], 8, [2, 4]),
            ([256, 32, 32], 4, [2, 8]),
            ([256, 16, 16], 4, [2, 4]),
            ([448, 32, 56], 8, [2, 7]),
            ([224, 32, 28], 4, [2, 7]),
            ([392, 32, 28], 4, [2, 7]),
            ([784, 16, 28], 7, [2, 7]),
            ([196, 32, 14], 7, [2, 7]),
            ([196, 64, 14], 4, [2, 7]),
            ([98, 64, 14], 2, [2, 7]),
            ([49, 64, 7], 7, [2, 7]),
            ([49, 128, 7], 2, [2, 7]),
            // Wider channel vectors (8 and 16 bytes per access); 4 channels = one group of a
            // C/G = K/G = 4 layer (the grouped vector path).
            ([128, 64, 16], 8, [4, 4]),
            ([256, 32, 16], 8, [4, 4]),
            ([196, 32, 14], 7, [4, 7]),
            ([392, 32, 28], 7, [4, 7]),
            ([128, 64, 16], 8, [8, 4]),
            ([128, 32, 16], 8, [8, 2]),
            // One row of 64 pixels for 1D problems.
            ([64, 64, 64], 8, [2, 8]),
            // Winners of a sweep of the simt space on the weakest depthwise layers (112² stride 2
            // and 56² 3×3; `results/h200/s4/sweep_dw.csv.gz`).
            ([98, 32, 7], 7, [2, 7]),
            ([196, 32, 14], 7, [2, 2]),
        ]
        .into_iter()
        .map(|(t, w, v)| d(dtype, t, w, v))
        .chain(
            // Persistent, double-buffered (2 stages): the next tile's halo loads during the math.
            [
                ([196, 32, 14], 7, [2, 7]),
                ([392, 32, 28], 4, [2, 7]),
                ([256, 32, 16], 8, [2, 4]),
                ([128, 32, 16], 8, [2, 4]),
                ([49, 64, 7], 7, [2, 7]),
                ([784, 16, 28], 7, [2, 7]),
            ]
            .into_iter()
            .map(|(t, w, v)| KernelConfig {
                stages: 2,
                ..d(dtype, t, w, v)
            }),
        )
        .chain(
            // Tensor cores (math = mma, C/G and K/G multiples of 8): vec = [unit channel
            // cap, m16 blocks per unit]. Channel tiles of 64 (and 48/56/96/112 for K/G = 24,
            // 48, 56), pixel tiles for 56/28/14/7-wide outputs.
            [
                ([224, 64, 28], 8, [8, 2]),
                ([224, 64, 28], 8, [32, 2]),
                ([112, 64, 28], 4, [16, 1]),
                ([112, 64, 28], 4, [64, 1]),
                ([128, 64, 16], 8, [8, 2]),
                ([256, 64, 16], 8, [16, 2]),
                ([196, 64, 14], 8, [16, 2]),
                ([112, 64, 14], 4, [32, 1]),
                ([98, 64, 14], 4, [16, 1]),
                ([196, 128, 14], 8, [64, 1]),
                ([49, 64, 7], 4, [32, 1]),
                ([49, 128, 7], 8, [32, 1]),
                ([128, 48, 16], 4, [32, 2]),
                ([196, 48, 14], 8, [32, 1]),
                ([196, 96, 14], 8, [32, 2]),
                ([196, 56, 14], 8, [64, 1]),
                ([112, 112, 14], 8, [64, 1]),
                ([64, 64, 64], 4, [16, 1]),
                ([256, 64, 16], 8, [8, 4]),
                ([128, 64, 16], 8, [16, 4]),
                // Small tiles for stride-2 grouped layers, whose halo is four times the
                // output tile (H200, `results/h200/s20` calls c and d: on the five stride-2
                // 3×3 layers of ResNeXt-50/RegNetY-800MF at batch 64, C/G 8–16, best-in-pool
                // 0.89 → 1.00 of cuDNN in geomean).
                ([64, 64, 8], 8, [16, 2]),
                ([64, 32, 16], 8, [16, 2]),
            ]
            .into_iter()
            .map(|(t, w, v)| KernelConfig {
                math: Math::Mma,
                ..d(dtype, t, w, v)
            }),
        )
        .chain(
            // Persistent double-buffered tensor-core members: the next tile's halo loads
            // during the current tile's MMAs. The two 112-pixel members with four m16 blocks
            // per 8-channel unit are for C/G 8 3D layers (H200, `results/h200/s19`: the zoo's
            // 3×3×3 C/G 8 layer 104.5 → 71.6 µs backward data, 71.8 → 65.7 µs forward).
            [
                ([112, 32, 16], 8, [8, 4]),
                ([112, 64, 28], 8, [8, 4]),
                ([196, 64, 14], 8, [16, 2]),
                ([224, 64, 28], 8, [8, 2]),
                ([256, 64, 16], 8, [16, 2]),
                ([128, 48, 16], 4, [32, 2]),
                ([196, 56, 14], 8, [64, 1]),
                ([49, 64, 7], 4, [32, 1]),
                ([49, 128, 7], 8, [32, 1]),
            ]
            .into_iter()
            .map(|(t, w, v)| KernelConfig {
                math: Math::Mma,
                stages: 2,
                ..d(dtype, t, w, v)
            }),
        )
        .chain(
            // Tensor cores streaming over depth (`stages = 3`, `super::mma`: 3D layers with
            // depth taps, depth stride and dilation 1): a CTA walks one column of 64- or
            // 224-pixel tiles over every output depth slice, staging each input slice once
            // (H200, `results/h200/s23` call g: the best of 152 configs on four 3D layers; the
            // zoo's 3×3×3 C/G 8 layer 71.4 → 66.5 µs backward data, 66.1 → 59.1 µs forward).
            [
                ([64, 32, 16], 8, [16, 2]),
                ([64, 64, 16], 8, [16, 4]),
                ([224, 32, 16], 8, [16, 2]),
            ]
            .into_iter()
            .map(|(t, w, v)| KernelConfig {
                math: Math::Mma,
                stages: 3,
                ..d(dtype, t, w, v)
            }),
        )
        .chain(
            // Tensor cores for C/G 2–4 through block-diagonal group merge
            // (`direct::kernel_problem`): gm groups form one merged group of gm·C/G (8 or 16)
            // channels; (tile, warps, vec, gm, stages). Depthwise (gm 8) members were measured
            // and left out: at 8 merged channels the path is bound by its shared-memory pipe
            // (one ldmatrix per m16n8k16), 1.9–2.9× slower than the CUDA-core members on the 14
            // depthwise zoo layers (`results/h200/s4/bench_dw_gm.csv.gz`).
            [
                ([224, 64, 28], 8, [8, 2], 2, 1),
                ([128, 64, 16], 8, [8, 2], 2, 1),
                ([224, 64, 28], 8, [8, 2], 4, 1),
                // Persistent members with eight-row tiles and seven or eight m16 blocks per
                // 16-channel unit: the fastest swept configs (gm 2 and 4; 6,184 forward, 6,720
                // backward data) on ResNeXt-50's C/G 4 layer at batch 64, H100
                // (`results/h100/s48/call_c`): backward data 46.5 µs, forward 46.1 µs, against
                // 53.8 and 47.5 µs for the members above.
                ([112, 64, 8], 8, [16, 7], 4, 2),
                ([112, 64, 8], 8, [16, 8], 4, 2),
            ]
            .into_iter()
            .map(|(t, w, v, gm, s)| KernelConfig {
                math: Math::Mma,
                group_merge: gm,
                stages: s,
                ..d(dtype, t, w, v)
            }),
        )
        .collect(),
        DType::F32 => [
            ([256, 32, 16], 8, [2, 4]),
            ([128, 32, 16], 4, [4, 4]),
            ([128, 64, 16], 8, [4, 4]),
            ([224, 32, 28], 4, [2, 7]),
            ([196, 32, 14], 7, [2, 7]),
            ([49, 64, 7], 7, [2, 7]),
            ([64, 32, 64], 4, [2, 8]),
        ]
        .into_iter()
        .map(|(t, w, v)| d(dtype, t, w, v))
        .chain(std::iter::once(KernelConfig {
            stages: 2,
            ..d(dtype, [224, 32, 28], 4, [2, 7])
        }))
        .collect(),
    }
}
