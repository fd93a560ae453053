//! The igemm family's pools and its baseline config.

use crate::config::{default_math, Family, FastPath, KernelConfig, Math, SplitKMode};
use gconv_problem::{DType, Direction};
use std::sync::OnceLock;

/// A 128×128×32, 2×2 warps, 3-stage igemm config for a direction and dtype, with the dtype's
/// natural math path and maximal vector caps (f32: 128×128×16 on 4×2 warps): the baseline every
/// trait-config field falls back to.
pub fn baseline(direction: Direction, dtype: DType) -> KernelConfig {
    let vec = (16 / dtype.size_bytes()) as u32;
    let f32_simt = dtype == DType::F32;
    KernelConfig {
        family: Family::Igemm,
        direction,
        dtype,
        tile_m: 128,
        tile_n: 128,
        tile_k: if f32_simt { 16 } else { 32 },
        warps_m: if f32_simt { 4 } else { 2 },
        warps_n: 2,
        stages: 3,
        vec_a: vec,
        vec_b: vec,
        group_merge: 1,
        split_k: 1,
        split_k_mode: SplitKMode::Deterministic,
        math: default_math(dtype),
        fast_path: FastPath::General,
    }
}

/// [`pool`], built once per process per direction and dtype: for the rules that read the
/// pool while deciding (`auto_considers`' backward-weight merge-degree policy asks it of every
/// member, on every decision).
pub fn cached(direction: Direction, dtype: DType) -> &'static [KernelConfig] {
    static POOLS: [OnceLock<Vec<KernelConfig>>; 9] = [const { OnceLock::new() }; 9];
    POOLS[crate::config::pool_slot(direction, dtype)].get_or_init(|| pool(direction, dtype))
}

/// The family's default pool for a direction and dtype.
pub fn pool(direction: Direction, dtype: DType) -> Vec<KernelConfig> {
    match direction {
        Direction::Fwd => forward_pool(dtype),
        Direction::Dgrad => dgrad_pool(dtype),
        Direction::Wgrad => wgrad_pool(dtype),
    }
}

/// The default backward-weight pool for a dtype. The GEMM is M = gm·K/G (small), N = taps ×
/// gm·C/G, K = N·Do·Ho·Wo (huge), so the tiles are short along M, tile_k is a run of output
/// pixels, and every member leaves its split-K degree to the rule (`sk0`, resolved at
/// admission: `geometry::resolve_split`) with the deterministic reduction. Group merge for
/// C/G 2–24 (the merged output channels fill tile_m). A few atomic twins (`sk0a`) exist so
/// that the cost of determinism can be measured; `auto` never picks them.
pub fn wgrad_pool(dtype: DType) -> Vec<KernelConfig> {
    use FastPath::{General as G, Pointwise as P};
    let w = |c: KernelConfig| KernelConfig {
        direction: Direction::Wgrad,
        split_k: 0,
        ..c
    };
    let atomic = |c: KernelConfig| KernelConfig {
        split_k_mode: SplitKMode::Atomic,
        ..c
    };
    let mut v = Vec::new();
    match dtype {
        DType::F16 | DType::Bf16 => {
            let d = dtype;
            for (t, w_, s, gm, fp) in [
                ([128, 128, 32], [2, 2], 3, 1, G),
                ([128, 64, 32], [2, 2], 4, 1, G),
                ([64, 128, 32], [2, 2], 4, 1, G),
                ([64, 64, 32], [2, 2], 4, 1, G),
                ([64, 64, 64], [2, 2], 3, 1, G),
                ([32, 128, 32], [1, 4], 4, 1, G),
                ([32, 64, 32], [1, 2], 4, 1, G),
                ([64, 64, 32], [2, 2], 4, 2, G),
                ([64, 64, 32], [2, 2], 4, 4, G),
                ([64, 64, 32], [2, 2], 4, 8, G),
                ([32, 64, 32], [1, 2], 4, 2, G),
                ([32, 64, 32], [1, 2], 4, 4, G),
                // the fastest of the H200 probe (results/h200/s7/probe) on C/G 8-32
                ([32, 64, 32], [2, 1], 3, 4, G),
                ([32, 64, 32], [2, 1], 3, 2, G),
                ([32, 64, 64], [2, 2], 3, 4, G),
                ([32, 64, 32], [2, 2], 4, 1, G),
                ([32, 64, 32], [2, 2], 3, 2, G),
                ([32, 128, 64], [2, 2], 3, 4, G),
                ([128, 128, 32], [2, 2], 3, 1, P),
                ([64, 128, 32], [2, 2], 4, 1, P),
            ] {
                v.push(w(cfg(d, t, w_, s, gm, fp)));
            }
            for (t, w_, s, gm, fp) in [
                ([64, 128, 64], [4, 1], 4, 1, G),
                ([64, 256, 64], [4, 1], 3, 1, G),
                ([128, 128, 64], [8, 1], 4, 1, G),
                ([128, 256, 64], [8, 1], 3, 1, G),
                ([64, 64, 64], [4, 1], 3, 1, G),
                ([64, 128, 64], [4, 1], 4, 2, G),
                ([64, 64, 64], [4, 1], 3, 4, G),
                ([64, 128, 64], [4, 1], 3, 4, G),
                ([128, 128, 64], [8, 1], 3, 1, G),
                ([128, 128, 64], [8, 1], 4, 1, P),
            ] {
                v.push(w(KernelConfig {
                    math: Math::Wgmma,
                    ..cfg(d, t, w_, s, gm, fp)
                }));
            }
            let twins: Vec<KernelConfig> = v
                .iter()
                .filter(|c| c.group_merge == 1 && c.fast_path == G)
                .filter(|c| matches!((c.tile_m, c.tile_n), (128, 128) | (64, 128) | (64, 64)))
                .map(|c| atomic(*c))
                .collect();
            v.extend(twins);
            // The warp-specialised schedule (two producer warpgroups feed the math
            // warpgroups through barrier-tracked stages), measured faster than the all-warps
            // twin on the H200 on every GEMM-heavy layer it ran (results/h200/s14/call4).
            for (t, w_, fp) in [
                ([128, 128, 64], [8, 1], G),
                ([64, 128, 64], [4, 1], G),
                ([64, 128, 64], [4, 1], P),
                // C/G 128 at stride 2 (results/h200/s14/call7: 12.9 µs against 16.2)
                ([128, 64, 64], [4, 1], G),
            ] {
                v.push(w(KernelConfig {
                    math: Math::WgmmaWs,
                    ..cfg(d, t, w_, 4, 1, fp)
                }));
            }
            // The TMA-fed schedule (one producer warp; X's k-tile pixels as im2col copies, dY's
            // as box copies), C/G a multiple of 64: on the H200 the best of these four tiles (at
            // the best split degree swept) beat the pool's best on 20 of 21 layers measured both
            // ways and tied on one, 1.57x in geometric mean; wgmmatma tiles beat their cp.async
            // twins by 1.76-1.84x (results/h200/s31/README.md).
            for (t, w_, s) in [
                ([64, 64, 64], [4, 1], 4),
                ([64, 64, 64], [4, 1], 5),
                ([128, 128, 64], [8, 1], 4),
                ([128, 256, 64], [8, 1], 4),
            ] {
                v.push(w(KernelConfig {
                    math: Math::WgmmaTma,
                    ..cfg(d, t, w_, s, 1, G)
                }));
            }
            // The TMA-fed schedule with group merge (a box spans a merged block's adjacent
            // groups, so gm × C/G reaches 64): C/G 32, 16, 8. On the H100 the 64×64×64 tile
            // beat its wgmma twin on 391 of 402 pairs (2.29× in geometric mean) over the C/G
            // 8–32 layers of the zoo and the real client, and took the zoo's C/G 32 7×7 layer
            // from 12.8 µs (the pool's best before) to 9.5 µs, cuDNN 10.0
            // (results/h100/s34/README.md).
            for gm in [2, 4, 8] {
                v.push(w(KernelConfig {
                    math: Math::WgmmaTma,
                    ..cfg(d, [64, 64, 64], [4, 1], 4, gm, G)
                }));
            }
        }
        DType::F32 => {
            let d = dtype;
            for (t, w_, s, gm, fp) in [
                ([128, 128, 16], [4, 2], 3, 1, G),
                ([64, 128, 16], [2, 2], 3, 1, G),
                ([64, 64, 16], [2, 2], 4, 1, G),
                ([32, 64, 16], [1, 2], 4, 1, G),
                ([64, 64, 16], [2, 2], 4, 4, G),
                ([32, 64, 16], [1, 2], 4, 2, G),
                ([64, 128, 16], [2, 2], 3, 1, P),
            ] {
                v.push(w(cfg(d, t, w_, s, gm, fp)));
            }
            v.push(atomic(v[1]));
        }
    }
    v.retain(|c| super::rules::validate(c).is_ok());
    v
}

/// The default backward-data pool for a dtype: the forward pool's tiles, merge degrees and
/// pointwise members, relabelled (the GEMM has the forward's shape class: M = N·Hi·Wi pixels,
/// N = C/G, K = taps·K/G) with the largest transposed weight blocks (`vec_b` 8: 8 × 8 blocks of
/// 16-bit elements, 16-byte copies; f32 4 × 4), keeping those that pass the family's
/// `validate`. With `vec_b` 8, 8-aligned C/G and K/G and tile_n a multiple of 64 the weight
/// tile is N-major (`geometry::b_nmajor`); measured on the H200 (`results/h200/s6/README.md`),
/// the C/G 128 zoo layer ran in 33 µs that way, 48 µs through 8 × 8 blocks transposed in
/// `land`, 61 µs through 4 × 4 blocks.
pub fn dgrad_pool(dtype: DType) -> Vec<KernelConfig> {
    let mut v: Vec<KernelConfig> = forward_pool(dtype)
        .into_iter()
        .map(|c| KernelConfig {
            direction: Direction::Dgrad,
            vec_b: if dtype == DType::F32 { 4 } else { 8 },
            ..c
        })
        // 128×64×64 with 16 merged groups spills 256 bytes under NVRTC (registers held by the
        // packed-tap decode and the weight blocks).
        .filter(|c| !(c.group_merge == 16 && c.tile_n == 64 && c.tile_k == 64))
        .collect();
    // The warp-specialised schedule on three math warpgroups, backward data only (forward ran
    // slower with it; results/h200/s14/call4: the C/G 56 g8 layer, 19.9 µs against 21.1 for
    // the all-warps twin).
    if dtype != DType::F32 {
        v.push(KernelConfig {
            direction: Direction::Dgrad,
            math: Math::WgmmaWs,
            ..cfg(dtype, [192, 128, 64], [12, 1], 4, 1, FastPath::General)
        });
        // The same tile fed by the TMA (dY through im2col copies; stride 1, K/G a multiple of
        // 64): the zoo's C/G 128 layer in 24.8 µs against cuDNN's 25.0 and the wgmma twin's
        // 27.3 (results/h200/s31).
        v.push(KernelConfig {
            direction: Direction::Dgrad,
            math: Math::WgmmaTma,
            ..cfg(dtype, [192, 128, 64], [12, 1], 4, 1, FastPath::General)
        });
    }
    v.retain(|c| super::rules::validate(c).is_ok());
    v
}

#[allow(clippy::too_many_arguments)]
fn cfg(
    dtype: DType,
    t: [u32; 3],
    w: [u32; 2],
    stages: u32,
    gm: u32,
    fast_path: FastPath,
) -> KernelConfig {
    let vec = (16 / dtype.size_bytes()) as u32;
    KernelConfig {
        family: Family::Igemm,
        direction: Direction::Fwd,
        dtype,
        tile_m: t[0],
        tile_n: t[1],
        tile_k: t[2],
        warps_m: w[0],
        warps_n: w[1],
        stages,
        vec_a: vec.min(t[2]),
        vec_b: vec.min(t[2]),
        group_merge: gm,
        split_k: 1,
        split_k_mode: SplitKMode::Deterministic,
        math: default_math(dtype),
        fast_path,
    }
}

/// The default forward pool for a dtype: a modest set (53 configs for f16/bf16, 21 for f32)
/// covering large and small tiles, every stage count, group merge for small C/G (and
/// depthwise), the pointwise path and the halo path. Every member passes the family's
/// `validate`.
pub fn forward_pool(dtype: DType) -> Vec<KernelConfig> {
    use FastPath::{General as G, Halo as H, Pointwise as P};
    let mut v = Vec::new();
    match dtype {
        DType::F16 | DType::Bf16 => {
            let d = dtype;
            for (t, w, s) in [
                ([128, 128, 32], [2, 2], 3),
                ([128, 128, 32], [2, 2], 4),
                ([128, 128, 32], [2, 2], 5),
                ([256, 128, 32], [4, 2], 3),
                ([256, 64, 32], [4, 2], 4),
                ([128, 64, 32], [2, 2], 4),
                ([128, 64, 64], [2, 2], 3),
                ([64, 128, 32], [2, 2], 4),
                ([64, 64, 32], [2, 2], 4),
                ([64, 64, 64], [2, 2], 3),
                ([128, 32, 32], [4, 1], 4),
                ([64, 32, 32], [2, 1], 5),
                ([128, 16, 32], [4, 1], 4),
                ([32, 32, 32], [1, 1], 2),
                ([64, 64, 16], [2, 2], 5),
            ] {
                v.push(cfg(d, t, w, s, 1, G));
            }
            for (t, w, s, gm) in [
                ([128, 32, 32], [4, 1], 4, 2),
                ([128, 32, 32], [4, 1], 4, 4),
                ([128, 32, 32], [4, 1], 4, 8),
                ([128, 64, 64], [2, 2], 3, 2),
                ([128, 64, 64], [2, 2], 3, 4),
                ([128, 64, 64], [2, 2], 3, 8),
                ([128, 64, 64], [2, 2], 3, 16),
                ([128, 16, 16], [4, 1], 4, 16),
                ([128, 16, 64], [4, 1], 3, 16),
                ([256, 16, 64], [8, 1], 2, 16),
                ([128, 16, 16], [4, 1], 4, 8),
                ([128, 16, 32], [4, 1], 4, 8),
                ([128, 16, 32], [4, 1], 4, 2),
            ] {
                v.push(cfg(d, t, w, s, gm, G));
            }
            for (t, w, s) in [
                ([128, 128, 32], [2, 2], 4),
                ([256, 128, 32], [4, 2], 3),
                ([128, 64, 32], [2, 2], 4),
                ([64, 64, 32], [2, 2], 3),
            ] {
                v.push(cfg(d, t, w, s, 1, P));
            }
            // Warpgroup MMA (sm_90a): one to three warpgroups along M, K-tiles of 64. The
            // 192-row tiles move 17 % fewer bytes per MAC than 128×128 and, for K/G = 128, fill
            // two waves where 256-row tiles leave the second half empty.
            for (t, w, s, fp) in [
                ([192, 128, 64], [12, 1], 4, G),
                ([192, 128, 64], [12, 1], 5, G),
                ([192, 64, 64], [12, 1], 5, G),
                ([256, 64, 64], [8, 1], 4, G),
                ([128, 128, 64], [8, 1], 4, G),
                ([128, 128, 64], [8, 1], 3, G),
                ([128, 128, 64], [4, 1], 4, G),
                ([256, 128, 64], [8, 1], 3, G),
                ([256, 128, 64], [8, 1], 4, G),
                ([128, 128, 64], [8, 1], 5, G),
                ([128, 256, 64], [8, 1], 3, G),
                ([64, 128, 64], [4, 1], 5, G),
                ([128, 64, 64], [8, 1], 5, G),
                ([128, 128, 64], [8, 1], 4, P),
                ([256, 128, 64], [8, 1], 3, P),
                ([256, 128, 64], [8, 1], 4, P),
                // The halo path (stride 1, channels per group a multiple of 64): one staged
                // halo of the A operand per 64-channel block, shifted per tap. On 49 stride-1
                // backward-data layers these four tiles held 0.974 of the best of 34 halo
                // tiles in geometric mean (results/h200/s26/README.md, calls g-h); the model
                // learns where the padded rows cost more than the halo saves (large filters
                // over small images).
                ([128, 64, 64], [8, 1], 4, H),
                ([128, 128, 64], [8, 1], 4, H),
                ([64, 64, 64], [4, 1], 5, H),
                ([256, 64, 64], [8, 1], 4, H),
            ] {
                v.push(KernelConfig {
                    math: Math::Wgmma,
                    ..cfg(d, t, w, s, 1, fp)
                });
            }
            // Two groups of C/G 32 merged into one 64-wide wgmma tile (block-diagonal weights;
            // the 7×7 C/G 32 zoo layer).
            v.push(KernelConfig {
                math: Math::Wgmma,
                ..cfg(d, [256, 64, 64], [8, 1], 4, 2, G)
            });
        }
        DType::F32 => {
            let d = dtype;
            for (t, w, s) in [
                ([128, 128, 16], [4, 2], 3),
                ([128, 128, 16], [4, 2], 4),
                ([128, 128, 16], [4, 2], 2),
                ([128, 64, 16], [4, 2], 3),
                ([64, 128, 16], [2, 2], 3),
                ([64, 64, 16], [2, 2], 4),
                ([64, 64, 32], [2, 2], 3),
                ([128, 32, 16], [4, 1], 4),
                ([64, 32, 32], [2, 1], 5),
                ([128, 16, 16], [4, 1], 4),
                ([32, 32, 32], [1, 1], 2),
            ] {
                v.push(cfg(d, t, w, s, 1, G));
            }
            for (t, w, s, gm) in [
                ([128, 32, 32], [4, 1], 3, 2),
                ([128, 32, 32], [4, 1], 3, 4),
                ([128, 32, 32], [4, 1], 3, 8),
                ([128, 16, 16], [4, 1], 4, 16),
                ([128, 16, 32], [4, 1], 3, 16),
                ([128, 16, 16], [4, 1], 4, 8),
                ([128, 16, 32], [4, 1], 3, 2),
            ] {
                v.push(cfg(d, t, w, s, gm, G));
            }
            for (t, w, s) in [
                ([128, 128, 16], [4, 2], 3),
                ([128, 64, 16], [4, 2], 3),
                ([64, 64, 32], [2, 2], 5),
            ] {
                v.push(cfg(d, t, w, s, 1, P));
            }
        }
    }
    v
}
