//! The problem registry: named, deterministic problem sets generated from code, and
//! [`resolve_problems`], which turns a `--problems` argument (registry key, problem key or
//! problems file) into problems.
//!
//! Sets (every problem bf16 unless a dtype suffix is given, see [`resolve_problems`]):
//!
//! - `forward_{1d,2d,3d}`, `bwd_data_{1d,2d,3d}`, `bwd_weight_{1d,2d,3d}`: the training-grade
//!   sets. The same shapes in each direction: published-model layers (MobileNet v2/v3,
//!   EfficientNet, ConvNeXt, RepLKNet, ResNeXt, RegNet, ShuffleNet, Xception, DeepLab, AlexNet,
//!   MixNet; X3D, CSN, 3D ResNeXt, 3D UX-Net; Mamba, wav2vec 2.0, QuartzNet, Conv-TasNet) plus a
//!   stratified grid over channels per group (1..256) × groups (dense to depthwise) × spatial
//!   size, filter, stride and dilation.
//! - `*_test_validation`: small unseen shapes (odd sizes, odd channel counts, G not a power of
//!   two), disjoint from every training-grade set, quick to run on a GPU or the CPU.
//! - `validation_holdout`: 300 forward shapes (250 2D + 50 3D) drawn by a seeded generator from
//!   realistic distributions, disjoint from the training-grade and test sets.
//! - `model_zoo` (81 keys: 27 model-zoo layers × 3 directions, the public corpus) and its
//!   per-direction parts `model_zoo_fwd`, `model_zoo_dgrad`, `model_zoo_wgrad`.

use crate::error::TuneError;
use gconv_problem::tensor::SplitMix64;
use gconv_problem::{parse_problems_text, DType, Direction, Problem};
use std::collections::BTreeSet;
use std::path::Path;

/// The public model-zoo corpus (`crates/gconv-tune/data/model_zoo_public.txt`), embedded so
/// that it is available everywhere.
pub const MODEL_ZOO_TEXT: &str = include_str!("../data/model_zoo_public.txt");

/// One named problem set.
#[derive(Debug, Clone, Copy)]
pub struct RegistryEntry {
    /// The key, as given to `--problems`.
    pub name: &'static str,
    /// One line saying what the set holds.
    pub description: &'static str,
    build: fn() -> Vec<Problem>,
}

impl RegistryEntry {
    /// Generates the set's problems (deterministic; bf16).
    pub fn problems(&self) -> Vec<Problem> {
        (self.build)()
    }
}

macro_rules! entry {
    ($name:literal, $desc:literal, $build:expr) => {
        RegistryEntry {
            name: $name,
            description: $desc,
            build: $build,
        }
    };
}

static REGISTRY: [RegistryEntry; 23] = [
    entry!("forward_1d", "forward, 1D: published layers", || main_set(
        Direction::Fwd,
        1
    )),
    entry!(
        "forward_2d",
        "forward, 2D: published layers + stratified grid",
        || main_set(Direction::Fwd, 2)
    ),
    entry!(
        "forward_3d",
        "forward, 3D: published layers + stratified grid",
        || main_set(Direction::Fwd, 3)
    ),
    entry!("bwd_data_1d", "backward data, 1D: published layers", || {
        main_set(Direction::Dgrad, 1)
    }),
    entry!(
        "bwd_data_2d",
        "backward data, 2D: published layers + stratified grid",
        || main_set(Direction::Dgrad, 2)
    ),
    entry!(
        "bwd_data_3d",
        "backward data, 3D: published layers + stratified grid",
        || main_set(Direction::Dgrad, 3)
    ),
    entry!(
        "bwd_weight_1d",
        "backward weight, 1D: published layers",
        || main_set(Direction::Wgrad, 1)
    ),
    entry!(
        "bwd_weight_2d",
        "backward weight, 2D: published layers + stratified grid",
        || main_set(Direction::Wgrad, 2)
    ),
    entry!(
        "bwd_weight_3d",
        "backward weight, 3D: published layers + stratified grid",
        || main_set(Direction::Wgrad, 3)
    ),
    entry!(
        "forward_1d_test_validation",
        "forward, 1D: small unseen shapes",
        || test_set(Direction::Fwd, 1)
    ),
    entry!(
        "forward_2d_test_validation",
        "forward, 2D: small unseen shapes",
        || test_set(Direction::Fwd, 2)
    ),
    entry!(
        "forward_3d_test_validation",
        "forward, 3D: small unseen shapes",
        || test_set(Direction::Fwd, 3)
    ),
    entry!(
        "bwd_data_1d_test_validation",
        "backward data, 1D: small unseen shapes",
        || test_set(Direction::Dgrad, 1)
    ),
    entry!(
        "bwd_data_2d_test_validation",
        "backward data, 2D: small unseen shapes",
        || test_set(Direction::Dgrad, 2)
    ),
    entry!(
        "bwd_data_3d_test_validation",
        "backward data, 3D: small unseen shapes",
        || test_set(Direction::Dgrad, 3)
    ),
    entry!(
        "bwd_weight_1d_test_validation",
        "backward weight, 1D: small unseen shapes",
        || test_set(Direction::Wgrad, 1)
    ),
    entry!(
        "bwd_weight_2d_test_validation",
        "backward weight, 2D: small unseen shapes",
        || test_set(Direction::Wgrad, 2)
    ),
    entry!(
        "bwd_weight_3d_test_validation",
        "backward weight, 3D: small unseen shapes",
        || test_set(Direction::Wgrad, 3)
    ),
    entry!(
        "validation_holdout",
        "forward: 250 2D + 50 3D seeded holdout shapes",
        validation_holdout
    ),
    entry!(
        "model_zoo",
        "public corpus: 27 model-zoo layers x 3 directions",
        model_zoo
    ),
    entry!("model_zoo_fwd", "public corpus, forward part", || {
        model_zoo_dir(Direction::Fwd)
    }),
    entry!(
        "model_zoo_dgrad",
        "public corpus, backward-data part",
        || model_zoo_dir(Direction::Dgrad)
    ),
    entry!(
        "model_zoo_wgrad",
        "public corpus, backward-weight part",
        || model_zoo_dir(Direction::Wgrad)
    ),
];

/// Every registry entry, in listing order.
pub fn registry() -> &'static [RegistryEntry] {
    &REGISTRY
}

/// The problems of a registry key, `None` for an unknown key.
pub fn registry_problems(name: &str) -> Option<Vec<Problem>> {
    REGISTRY
        .iter()
        .find(|e| e.name == name)
        .map(RegistryEntry::problems)
}

/// `(key, problem count)` for every registry entry, in listing order.
pub fn registry_counts() -> Vec<(&'static str, usize)> {
    REGISTRY
        .iter()
        .map(|e| (e.name, e.problems().len()))
        .collect()
}

/// Resolves a `--problems` argument. Tried in order:
///
/// 1. a registry key (`forward_2d`), optionally with a dtype suffix (`forward_2d_f16`,
///    `model_zoo_f32`) that converts every problem to that dtype;
/// 2. a single problem key (`fwd_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1`);
/// 3. a problems file (one key per line, `#` comments).
///
/// A spec that looks like a path (it contains `/` or ends with `.txt`; no key does) is read as
/// a problems file only, so that a missing file is reported as such
/// ([`TuneError::ProblemsFileNotFound`]). Otherwise, when nothing matches, the error lists what
/// was tried and why each failed.
pub fn resolve_problems(spec: &str) -> Result<Vec<Problem>, TuneError> {
    if looks_like_path(spec) {
        let path = Path::new(spec);
        return match crate::outfile::read_input_string(path) {
            Ok(text) => Ok(parse_problems_text(spec, &text)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(TuneError::ProblemsFileNotFound {
                    path: path.to_path_buf(),
                })
            }
            Err(e) => Err(TuneError::io(path, e)),
        };
    }
    let mut tried = Vec::new();
    if let Some(ps) = registry_problems(spec) {
        return Ok(ps);
    }
    for dt in DType::ALL {
        if let Some(base) = spec.strip_suffix(&format!("_{}", dt.token())) {
            if let Some(ps) = registry_problems(base) {
                return Ok(ps.into_iter().map(|p| p.with_dtype(dt)).collect());
            }
        }
    }
    tried.push(format!(
        "registry key: not one of {} (a dtype suffix _f32, _f16 or _bf16 is accepted)",
        REGISTRY
            .iter()
            .map(|e| e.name)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    match spec.parse::<Problem>() {
        Ok(p) => return Ok(vec![p]),
        Err(e) => tried.push(format!("problem key: {e}")),
    }
    let path = Path::new(spec);
    match crate::outfile::read_input_string(path) {
        Ok(text) => return Ok(parse_problems_text(spec, &text)?),
        Err(e) => tried.push(format!("problems file: {e}")),
    }
    Err(TuneError::UnresolvedProblems {
        spec: spec.to_string(),
        tried,
    })
}

/// A `--problems` value that can only be a file name: registry keys and problem keys have no
/// `/` and no `.txt` suffix.
fn looks_like_path(spec: &str) -> bool {
    spec.contains('/') || spec.contains(std::path::MAIN_SEPARATOR) || spec.ends_with(".txt")
}

// ---------------------------------------------------------------------------------------------
// Shapes: direction-free descriptions of a convolution.

/// A direction-free convolution shape; spatial lists in D,H,W order of the rank.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shape {
    n: i64,
    g: i64,
    c: i64,
    k: i64,
    input: Vec<i64>,
    filter: Vec<i64>,
    stride: Vec<i64>,
    pad: Vec<i64>,
    dil: Vec<i64>,
}

impl Shape {
    fn problem(&self, dir: Direction) -> Option<Problem> {
        Problem::new(
            dir,
            DType::Bf16,
            self.n,
            self.g,
            self.c,
            self.k,
            &self.input,
            &self.filter,
            &self.stride,
            &self.pad,
            &self.dil,
        )
        .ok()
    }
}

/// Grouped conv with "same" padding for odd filters: pad = dil·(f−1)/2 per axis.
#[allow(clippy::too_many_arguments)]
fn conv(
    n: i64,
    g: i64,
    c: i64,
    k: i64,
    input: &[i64],
    filter: &[i64],
    stride: &[i64],
    dil: &[i64],
) -> Shape {
    let pad = filter
        .iter()
        .zip(dil)
        .map(|(&f, &d)| d * (f - 1) / 2)
        .collect();
    Shape {
        n,
        g,
        c,
        k,
        input: input.to_vec(),
        filter: filter.to_vec(),
        stride: stride.to_vec(),
        pad,
        dil: dil.to_vec(),
    }
}

/// 2D square grouped conv, same padding.
fn g2(n: i64, g: i64, c: i64, k: i64, hw: i64, f: i64, s: i64) -> Shape {
    conv(n, g, c, k, &[hw, hw], &[f, f], &[s, s], &[1, 1])
}

/// 2D square depthwise conv, same padding.
fn dw2(n: i64, c: i64, hw: i64, f: i64, s: i64) -> Shape {
    g2(n, c, c, c, hw, f, s)
}

/// 2D square depthwise conv with dilation.
fn dw2d(n: i64, c: i64, hw: i64, f: i64, d: i64) -> Shape {
    conv(n, c, c, c, &[hw, hw], &[f, f], &[1, 1], &[d, d])
}

/// 3D grouped conv, same padding.
fn g3(n: i64, g: i64, c: i64, k: i64, thw: [i64; 3], f: [i64; 3], s: [i64; 3]) -> Shape {
    conv(n, g, c, k, &thw, &f, &s, &[1, 1, 1])
}

/// 1D grouped conv, same padding.
fn g1(n: i64, g: i64, c: i64, k: i64, l: i64, f: i64, d: i64) -> Shape {
    conv(n, g, c, k, &[l], &[f], &[1], &[d])
}

/// Published-model layers, 2D.
fn published_2d() -> Vec<Shape> {
    let mut v = Vec::new();
    // MobileNetV2 (224): depthwise 3x3; also at inference batch 1.
    let mbv2 = [
        (32, 112, 1),
        (96, 112, 2),
        (144, 56, 1),
        (144, 56, 2),
        (192, 28, 1),
        (192, 28, 2),
        (384, 14, 1),
        (576, 14, 1),
        (576, 14, 2),
        (960, 7, 1),
    ];
    for (c, hw, s) in mbv2 {
        v.push(dw2(32, c, hw, 3, s));
        v.push(dw2(1, c, hw, 3, s));
    }
    // MobileNetV3-Large and -Small: depthwise 3x3 / 5x5.
    for (c, hw, f, s) in [
        (16, 112, 3, 1),
        (64, 112, 3, 2),
        (72, 56, 3, 1),
        (72, 56, 5, 2),
        (120, 28, 5, 1),
        (240, 28, 3, 2),
        (200, 14, 3, 1),
        (184, 14, 3, 1),
        (480, 14, 3, 1),
        (672, 14, 3, 1),
        (672, 14, 5, 2),
        (960, 7, 5, 1),
    ] {
        v.push(dw2(32, c, hw, f, s));
    }
    for (c, hw, f, s) in [
        (16, 112, 3, 2),
        (72, 56, 3, 2),
        (88, 28, 3, 1),
        (96, 28, 5, 2),
        (240, 14, 5, 1),
        (120, 14, 5, 1),
        (144, 14, 5, 1),
        (288, 14, 5, 2),
        (576, 7, 5, 1),
    ] {
        v.push(dw2(32, c, hw, f, s));
    }
    // EfficientNet-B0 (224), also at batch 1; EfficientNet-B4 (380) at batch 16.
    for (c, hw, f, s) in [
        (32, 112, 3, 1),
        (96, 112, 3, 2),
        (144, 56, 3, 1),
        (144, 56, 5, 2),
        (240, 28, 5, 1),
        (240, 28, 3, 2),
        (480, 14, 3, 1),
        (480, 14, 5, 1),
        (672, 14, 5, 1),
        (672, 14, 5, 2),
        (1152, 7, 5, 1),
        (1152, 7, 3, 1),
    ] {
        v.push(dw2(32, c, hw, f, s));
        v.push(dw2(1, c, hw, f, s));
    }
    for (c, hw, f) in [
        (48, 190, 3),
        (192, 95, 3),
        (336, 48, 5),
        (960, 24, 3),
        (1632, 12, 5),
    ] {
        v.push(dw2(16, c, hw, f, 1));
    }
    // ConvNeXt-T and -B: depthwise 7x7.
    for (c, hw) in [
        (96, 56),
        (192, 28),
        (384, 14),
        (768, 7),
        (128, 56),
        (256, 28),
        (512, 14),
        (1024, 7),
    ] {
        v.push(dw2(32, c, hw, 7, 1));
    }
    // RepLKNet-31B: large-kernel depthwise.
    for (c, hw, f) in [(128, 56, 31), (256, 28, 29), (512, 14, 27), (1024, 7, 13)] {
        v.push(dw2(32, c, hw, f, 1));
    }
    // MixNet-S: depthwise 9x9 groups.
    v.push(dw2(32, 60, 28, 9, 1));
    v.push(dw2(32, 120, 14, 9, 1));
    // ResNeXt-50 32x4d, ResNeXt-101 32x8d and 64x4d: grouped 3x3.
    for (c, hw, s) in [
        (128, 56, 1),
        (256, 56, 2),
        (256, 28, 1),
        (512, 28, 2),
        (512, 14, 1),
        (1024, 14, 2),
        (1024, 7, 1),
    ] {
        v.push(g2(32, 32, c, c, hw, 3, s));
    }
    for (c, hw, s) in [
        (256, 56, 1),
        (512, 56, 2),
        (512, 28, 1),
        (1024, 28, 2),
        (1024, 14, 1),
        (2048, 14, 2),
        (2048, 7, 1),
    ] {
        v.push(g2(32, 32, c, c, hw, 3, s));
    }
    for (c, hw) in [(256, 56), (512, 28), (1024, 14), (2048, 7)] {
        v.push(g2(32, 64, c, c, hw, 3, 1));
    }
    // RegNetX-400MF (gw 16), RegNetY-1.6GF (gw 24), RegNetX-3.2GF (gw 48), RegNetY-16GF (gw 112),
    // and the model-zoo RegNetX gw 56: stage blocks (stride 1) and stage entries (stride 2).
    for (gw, widths) in [(16, [32, 64, 160, 384]), (24, [48, 120, 336, 888])] {
        for (w, hw) in widths.into_iter().zip([56, 28, 14, 7]) {
            v.push(g2(32, w / gw, w, w, hw, 3, 1));
            v.push(g2(32, w / gw, w, w, hw * 2, 3, 2));
        }
    }
    for (gw, widths) in [
        (48, [96, 192, 432, 1008]),
        (112, [224, 448, 1232, 3024]),
        (56, [168, 392, 448, 1288]),
    ] {
        for (w, hw) in widths.into_iter().zip([56, 28, 14, 7]) {
            v.push(g2(32, w / gw, w, w, hw, 3, 1));
        }
    }
    // ShuffleNetV2 1.0x: depthwise 3x3; ShuffleNetV1 g3 / g8: grouped pointwise.
    for (c, hw, s) in [
        (24, 56, 2),
        (58, 56, 2),
        (58, 28, 1),
        (116, 28, 2),
        (116, 14, 1),
        (232, 14, 2),
        (232, 7, 1),
    ] {
        v.push(dw2(32, c, hw, 3, s));
    }
    for (g, c, k, hw) in [
        (3, 240, 60, 28),
        (3, 60, 240, 28),
        (3, 480, 120, 14),
        (3, 120, 480, 14),
        (8, 384, 96, 28),
        (8, 96, 384, 28),
        (8, 768, 192, 14),
        (8, 1536, 384, 7),
    ] {
        v.push(g2(32, g, c, k, hw, 1, 1));
    }
    // Xception (299): separable depthwise 3x3.
    for (c, hw) in [
        (128, 74),
        (256, 74),
        (256, 37),
        (728, 37),
        (728, 19),
        (1024, 10),
        (1536, 10),
    ] {
        v.push(dw2(32, c, hw, 3, 1));
    }
    // DeepLabv3+ (513, output stride 16 / 8): dilated depthwise.
    for (c, hw, d) in [
        (2048, 33, 6),
        (2048, 33, 12),
        (2048, 33, 18),
        (384, 65, 2),
        (576, 65, 2),
        (960, 65, 4),
    ] {
        v.push(dw2d(8, c, hw, 3, d));
    }
    // Depthwise with channel multiplier 2 (separable convs with depth_multiplier=2).
    for (c, hw) in [(32, 112), (64, 56), (128, 28)] {
        v.push(g2(32, c, c, 2 * c, hw, 3, 1));
    }
    // AlexNet: two groups.
    v.push(conv(32, 2, 96, 256, &[27, 27], &[5, 5], &[1, 1], &[1, 1]));
    v.push(g2(32, 2, 384, 384, 13, 3, 1));
    v.push(g2(32, 2, 384, 256, 13, 3, 1));
    v
}

/// Published-model layers, 3D.
fn published_3d() -> Vec<Shape> {
    let mut v = Vec::new();
    let k3 = [3, 3, 3];
    // X3D-M (16x224) and X3D-S (13x160): depthwise 3x3x3.
    for (c, t, hw, s) in [
        (54, 16, 112, 2),
        (54, 16, 56, 1),
        (108, 16, 56, 2),
        (108, 16, 28, 1),
        (216, 16, 28, 2),
        (216, 16, 14, 1),
        (432, 16, 14, 2),
        (432, 16, 7, 1),
        (54, 13, 40, 1),
        (108, 13, 20, 1),
        (216, 13, 10, 1),
        (432, 13, 5, 1),
    ] {
        v.push(g3(8, c, c, c, [t, hw, hw], k3, [1, s, s]));
    }
    // ir-CSN-152 (32x224): depthwise 3x3x3.
    for (c, t, hw, s) in [
        (64, 32, 56, 1),
        (128, 32, 56, 2),
        (128, 16, 28, 1),
        (256, 16, 28, 2),
        (256, 8, 14, 1),
        (512, 8, 14, 2),
        (512, 4, 7, 1),
    ] {
        v.push(g3(8, c, c, c, [t, hw, hw], k3, [s, s, s]));
    }
    // 3D ResNeXt-101 32x4d (16x112): grouped 3x3x3.
    for (c, t, hw, s) in [
        (128, 16, 56, 1),
        (256, 16, 56, 2),
        (256, 8, 28, 1),
        (512, 8, 28, 2),
        (512, 4, 14, 1),
        (1024, 4, 14, 2),
        (1024, 2, 7, 1),
    ] {
        v.push(g3(8, 32, c, c, [t, hw, hw], k3, [s, s, s]));
    }
    // Efficient 3D CNNs (MobileNetV2-3D, ShuffleNetV2-3D, 16x112): depthwise 3x3x3.
    for (c, t, hw, s) in [
        (96, 16, 56, 2),
        (144, 8, 28, 1),
        (192, 4, 14, 1),
        (384, 2, 7, 1),
        (58, 8, 28, 1),
        (116, 4, 14, 1),
        (232, 2, 7, 1),
    ] {
        v.push(g3(8, c, c, c, [t, hw, hw], k3, [s, s, s]));
    }
    // 3D UX-Net (96^3 volumes): depthwise 7x7x7.
    for (c, d) in [(48, 48), (96, 24), (192, 12), (384, 6)] {
        v.push(g3(2, c, c, c, [d, d, d], [7, 7, 7], [1, 1, 1]));
    }
    v
}

/// Published-model layers, 1D.
fn published_1d() -> Vec<Shape> {
    let mut v = Vec::new();
    // Mamba: causal depthwise conv1d, width 4 (pad 3 each side, trimmed by the model).
    for c in [1536, 2048, 3072, 5120] {
        v.push(Shape {
            n: 8,
            g: c,
            c,
            k: c,
            input: vec![2048],
            filter: vec![4],
            stride: vec![1],
            pad: vec![3],
            dil: vec![1],
        });
    }
    // wav2vec 2.0 positional conv: 16 groups, width 128, pad 64.
    for c in [768, 1024] {
        v.push(Shape {
            n: 8,
            g: 16,
            c,
            k: c,
            input: vec![499],
            filter: vec![128],
            stride: vec![1],
            pad: vec![64],
            dil: vec![1],
        });
    }
    // QuartzNet 15x5: time-channel separable (depthwise) convs; the last one dilated.
    for (c, f, d) in [
        (256, 33, 1),
        (256, 39, 1),
        (512, 51, 1),
        (512, 63, 1),
        (512, 75, 1),
        (512, 87, 2),
    ] {
        v.push(g1(32, c, c, c, 400, f, d));
    }
    // Conv-TasNet: depthwise conv1d, width 3, dilations 1..128.
    for d in [1, 2, 4, 8, 16, 32, 64, 128] {
        v.push(g1(4, 512, 512, 512, 3999, 3, d));
    }
    // Hyena: short depthwise conv on the 3·d projections.
    v.push(g1(8, 2304, 2304, 2304, 2048, 3, 1));
    v
}

/// Stratified 2D grid: channels per group 1..256 × groups from dense to depthwise; spatial size
/// follows the channel count as in real networks; filter, stride, dilation and batch rotate.
fn grid_2d() -> Vec<Shape> {
    let mut v = Vec::new();
    let filters = [3, 1, 5, 3, 7, 3];
    let batches = [32, 8, 32, 1, 16];
    let mut idx = 0usize;
    for cpg in [1i64, 2, 4, 8, 16, 32, 64, 128, 256] {
        for g in [1i64, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] {
            let c = cpg * g;
            if !(32..=2048).contains(&c) || (cpg == 1 && g < 32) {
                continue;
            }
            let sizes: [i64; 2] = match c {
                0..=64 => [112, 56],
                65..=256 => [56, 28],
                257..=512 => [28, 14],
                _ => [14, 7],
            };
            for hw in sizes.into_iter().flat_map(|hw| [hw, hw]) {
                let f = filters[idx % filters.len()];
                let s = if idx % 4 == 3 { 2 } else { 1 };
                let d = if f > 1 && idx % 7 == 5 { 2 } else { 1 };
                let n = batches[idx % batches.len()];
                // depthwise with multiplier 2 on every third depthwise point
                let k = if cpg == 1 && idx.is_multiple_of(3) {
                    2 * c
                } else {
                    c
                };
                v.push(conv(n, g, c, k, &[hw, hw], &[f, f], &[s, s], &[d, d]));
                idx += 1;
            }
        }
    }
    v
}

/// Stratified 3D grid: channels per group 1..64 × groups; (T, H, W), filter and stride rotate.
fn grid_3d() -> Vec<Shape> {
    let mut v = Vec::new();
    let spatial = [
        [8, 28, 28],
        [16, 14, 14],
        [4, 56, 56],
        [8, 14, 14],
        [16, 28, 28],
    ];
    let filters = [[3, 3, 3], [1, 3, 3], [3, 3, 3], [3, 1, 1], [5, 5, 5]];
    let strides = [[1, 1, 1], [1, 1, 1], [1, 2, 2], [1, 1, 1], [2, 2, 2]];
    let mut idx = 0usize;
    for cpg in [1i64, 2, 4, 8, 16, 32, 64] {
        for g in [1i64, 2, 4, 8, 16, 32, 64, 128, 256, 512] {
            let c = cpg * g;
            if !(32..=1024).contains(&c) || (cpg == 1 && g < 32) {
                continue;
            }
            let thw = spatial[idx % spatial.len()];
            let f = filters[(idx / 2) % filters.len()];
            let s = strides[(idx / 3) % strides.len()];
            let n = if c * thw.iter().product::<i64>() > 16 << 20 {
                2
            } else {
                8
            };
            v.push(g3(n, g, c, c, thw, f, s));
            idx += 1;
        }
    }
    v
}

fn to_problems(shapes: impl IntoIterator<Item = Shape>, dir: Direction) -> Vec<Problem> {
    let mut seen = BTreeSet::new();
    shapes
        .into_iter()
        .filter_map(|s| s.problem(dir))
        .filter(|p| seen.insert(p.to_string()))
        .collect()
}

fn main_shapes(rank: usize) -> Vec<Shape> {
    match rank {
        1 => published_1d(),
        2 => {
            let mut v = published_2d();
            v.extend(grid_2d());
            v
        }
        _ => {
            let mut v = published_3d();
            v.extend(grid_3d());
            v
        }
    }
}

fn main_set(dir: Direction, rank: usize) -> Vec<Problem> {
    to_problems(main_shapes(rank), dir)
}

/// Small unseen shapes: odd spatial sizes, odd per-group channels, G not a power of two,
/// stride larger than the filter, dilation, no padding, rectangular inputs.
fn test_shapes(rank: usize) -> Vec<Shape> {
    match rank {
        1 => vec![
            g1(2, 24, 24, 24, 37, 3, 1),
            g1(2, 24, 24, 24, 45, 4, 1),
            g1(2, 6, 36, 36, 29, 5, 1),
            g1(3, 4, 32, 48, 33, 3, 2),
            g1(2, 16, 16, 32, 41, 7, 1),
            g1(1, 3, 48, 48, 23, 9, 1),
            conv(2, 8, 64, 64, &[31], &[3], &[2], &[1]),
            conv(2, 40, 40, 40, &[50], &[15], &[1], &[3]),
        ],
        2 => vec![
            dw2(2, 24, 27, 3, 1),
            dw2(2, 48, 13, 5, 2),
            g2(2, 6, 36, 36, 17, 3, 1),
            g2(2, 3, 48, 96, 15, 3, 2),
            g2(2, 12, 12, 24, 20, 3, 1),
            g2(4, 2, 96, 96, 9, 3, 1),
            g2(2, 1, 40, 24, 13, 1, 1),
            conv(2, 8, 96, 96, &[17, 17], &[3, 3], &[1, 1], &[2, 2]),
            dw2(2, 40, 10, 7, 1),
            g2(3, 4, 64, 64, 13, 1, 2),
            Shape {
                n: 2,
                g: 24,
                c: 72,
                k: 72,
                input: vec![9, 9],
                filter: vec![3, 3],
                stride: vec![1, 1],
                pad: vec![0, 0],
                dil: vec![1, 1],
            },
            conv(2, 5, 40, 40, &[15, 15], &[3, 3], &[4, 4], &[1, 1]),
            conv(2, 32, 32, 32, &[11, 19], &[1, 7], &[1, 1], &[1, 1]),
            g2(1, 7, 56, 56, 11, 3, 1),
        ],
        _ => vec![
            g3(2, 24, 24, 24, [5, 9, 9], [3, 3, 3], [1, 1, 1]),
            g3(2, 4, 32, 32, [4, 11, 11], [3, 3, 3], [1, 2, 2]),
            g3(1, 12, 48, 48, [3, 13, 13], [1, 3, 3], [1, 1, 1]),
            g3(2, 3, 24, 48, [6, 9, 9], [3, 1, 1], [1, 1, 1]),
            g3(1, 40, 40, 40, [7, 7, 7], [5, 5, 5], [1, 1, 1]),
            g3(2, 6, 36, 36, [5, 10, 10], [3, 3, 3], [2, 2, 2]),
            conv(
                2,
                16,
                16,
                16,
                &[6, 9, 9],
                &[3, 3, 3],
                &[1, 1, 1],
                &[1, 2, 2],
            ),
            g3(1, 2, 64, 64, [3, 5, 5], [3, 3, 3], [1, 1, 1]),
        ],
    }
}

fn test_set(dir: Direction, rank: usize) -> Vec<Problem> {
    to_problems(test_shapes(rank), dir)
}

/// Keys (as forward problems) of every training-grade and test shape, for disjointness.
fn seen_forward_keys() -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for rank in 1..=3 {
        for s in main_shapes(rank).into_iter().chain(test_shapes(rank)) {
            if let Some(p) = s.problem(Direction::Fwd) {
                seen.insert(p.to_string());
            }
        }
    }
    seen
}

fn pick<T: Copy>(rng: &mut SplitMix64, v: &[T]) -> T {
    v[(rng.next_u64() % v.len() as u64) as usize]
}

/// Largest tensor (bytes, bf16) and FLOP count a holdout problem may have.
const HOLDOUT_MAX_BYTES: f64 = 512.0 * 1024.0 * 1024.0;
const HOLDOUT_MAX_FLOPS: f64 = 5e11;

fn holdout_ok(p: &Problem, seen: &BTreeSet<String>) -> bool {
    use gconv_problem::TensorRole;
    let biggest = [TensorRole::X, TensorRole::W, TensorRole::Y]
        .iter()
        .map(|&r| p.elements(r) as f64 * 2.0)
        .fold(0.0, f64::max);
    biggest <= HOLDOUT_MAX_BYTES && p.flops() <= HOLDOUT_MAX_FLOPS && !seen.contains(&p.to_string())
}

fn holdout_channels(rng: &mut SplitMix64) -> Option<(i64, i64, i64)> {
    let cpg = pick(
        rng,
        &[
            1, 1, 1, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256,
        ],
    );
    let c = pick(
        rng,
        &[
            16, 24, 32, 48, 64, 72, 96, 120, 128, 144, 160, 192, 240, 256, 288, 320, 384, 448, 480,
            512, 576, 672, 768, 960, 1024, 1152, 1344, 1536, 2048,
        ],
    );
    if c % cpg != 0 {
        return None;
    }
    let g = c / cpg;
    let kpg = match rng.next_u64() % 8 {
        0 => 2 * cpg,
        1 if cpg % 2 == 0 => cpg / 2,
        _ => cpg,
    };
    Some((g, c, g * kpg))
}

/// 250 2D + 50 3D forward shapes from a fixed seed, unseen in every other set.
fn validation_holdout() -> Vec<Problem> {
    let seen = seen_forward_keys();
    let mut rng = SplitMix64::new(0x5EED_401D_2024);
    let mut out: Vec<Problem> = Vec::new();
    let mut chosen = BTreeSet::new();
    let mut attempts = 0u32;
    // 2D
    while out.len() < 250 && attempts < 1_000_000 {
        attempts += 1;
        let Some((g, c, k)) = holdout_channels(&mut rng) else {
            continue;
        };
        let h = pick(
            &mut rng,
            &[
                7, 8, 10, 12, 14, 16, 19, 20, 24, 28, 32, 38, 48, 56, 64, 75, 96, 112,
            ],
        );
        let w = if rng.next_u64().is_multiple_of(6) {
            h * 2
        } else {
            h
        };
        let f = pick(&mut rng, &[1, 3, 3, 3, 5, 5, 7, 9, 11]);
        let (fy, fx) = if f == 7 && rng.next_u64().is_multiple_of(4) {
            (1, 7)
        } else {
            (f, f)
        };
        let s = if rng.next_u64() % 10 < 3 { 2 } else { 1 };
        let d = if fy > 1 && rng.next_u64().is_multiple_of(10) {
            2
        } else {
            1
        };
        let n = pick(&mut rng, &[1, 2, 4, 8, 16, 32, 64]);
        let shape = conv(n, g, c, k, &[h, w], &[fy, fx], &[s, s], &[d, d]);
        if let Some(p) = shape.problem(Direction::Fwd) {
            if holdout_ok(&p, &seen) && chosen.insert(p.to_string()) {
                out.push(p);
            }
        }
    }
    // 3D
    let target = out.len() + 50;
    while out.len() < target && attempts < 2_000_000 {
        attempts += 1;
        let Some((g, c, k)) = holdout_channels(&mut rng) else {
            continue;
        };
        if c > 1024 {
            continue;
        }
        let t = pick(&mut rng, &[2, 4, 8, 13, 16, 32]);
        let h = pick(&mut rng, &[7, 10, 14, 20, 28, 40, 56]);
        let f = pick(
            &mut rng,
            &[
                [3, 3, 3],
                [3, 3, 3],
                [1, 3, 3],
                [3, 1, 1],
                [5, 5, 5],
                [7, 7, 7],
            ],
        );
        let s = if rng.next_u64().is_multiple_of(4) {
            [1, 2, 2]
        } else {
            [1, 1, 1]
        };
        let n = pick(&mut rng, &[1, 2, 4, 8]);
        let shape = g3(n, g, c, k, [t, h, h], f, s);
        if let Some(p) = shape.problem(Direction::Fwd) {
            if holdout_ok(&p, &seen) && chosen.insert(p.to_string()) {
                out.push(p);
            }
        }
    }
    out
}

fn model_zoo() -> Vec<Problem> {
    // The embedded file is checked by a test; an unreadable copy yields an empty set, which
    // `run_sweep` refuses loudly.
    parse_problems_text("model_zoo_public.txt", MODEL_ZOO_TEXT).unwrap_or_default()
}

fn model_zoo_dir(dir: Direction) -> Vec<Problem> {
    model_zoo()
        .into_iter()
        .filter(|p| p.direction == dir)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn keys(ps: &[Problem]) -> BTreeSet<String> {
        ps.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn every_hand_written_shape_is_valid() {
        for rank in 1..=3 {
            for s in main_shapes(rank).into_iter().chain(test_shapes(rank)) {
                for dir in Direction::ALL {
                    assert!(s.problem(dir).is_some(), "invalid shape {s:?}");
                }
                assert_eq!(s.input.len(), rank, "{s:?}");
            }
        }
    }

    #[test]
    fn counts_and_ranks() {
        let counts: BTreeMap<_, _> = registry_counts().into_iter().collect();
        assert_eq!(counts.len(), REGISTRY.len());
        assert_eq!(counts["model_zoo"], 81);
        assert_eq!(counts["model_zoo_fwd"], 27);
        assert_eq!(counts["validation_holdout"], 300);
        assert!(counts["forward_2d"] >= 300, "{}", counts["forward_2d"]);
        assert!(counts["forward_3d"] >= 60, "{}", counts["forward_3d"]);
        for (name, n) in &counts {
            if name.ends_with("_test_validation") {
                assert!((8..=16).contains(n), "{name}: {n}");
            }
        }
        for e in registry() {
            let ps = e.problems();
            assert!(!ps.is_empty(), "{}", e.name);
            assert_eq!(keys(&ps).len(), ps.len(), "{} has duplicates", e.name);
            let want_rank = ["_1d", "_2d", "_3d"]
                .iter()
                .position(|r| e.name.contains(r))
                .map(|i| i + 1);
            let want_dir = if e.name.starts_with("forward") || e.name == "validation_holdout" {
                Some(Direction::Fwd)
            } else if e.name.starts_with("bwd_data") {
                Some(Direction::Dgrad)
            } else if e.name.starts_with("bwd_weight") {
                Some(Direction::Wgrad)
            } else {
                None
            };
            for p in &ps {
                if let Some(r) = want_rank {
                    assert_eq!(p.rank, r, "{}: {p}", e.name);
                }
                if let Some(d) = want_dir {
                    assert_eq!(p.direction, d, "{}: {p}", e.name);
                }
                assert_eq!(p.dtype, DType::Bf16);
            }
        }
    }

    #[test]
    fn directions_share_shapes() {
        let f = main_set(Direction::Fwd, 2);
        let d = main_set(Direction::Dgrad, 2);
        assert_eq!(f.len(), d.len());
        for (a, b) in f.iter().zip(&d) {
            assert_eq!(a.with_direction(Direction::Dgrad), *b);
        }
    }

    #[test]
    fn holdout_and_test_sets_are_disjoint_from_training_sets() {
        let mut training = BTreeSet::new();
        for name in ["forward", "bwd_data", "bwd_weight"] {
            for r in ["1d", "2d", "3d"] {
                training.extend(keys(&registry_problems(&format!("{name}_{r}")).unwrap()));
            }
        }
        let mut held = BTreeSet::new();
        for e in registry()
            .iter()
            .filter(|e| e.name.ends_with("_test_validation"))
        {
            let k = keys(&e.problems());
            assert!(
                k.is_disjoint(&training),
                "{} overlaps the training sets",
                e.name
            );
            held.extend(k);
        }
        let hold = keys(&validation_holdout());
        assert!(hold.is_disjoint(&training));
        assert!(hold.is_disjoint(&held));
        let ranks: Vec<usize> = validation_holdout().iter().map(|p| p.rank).collect();
        assert_eq!(ranks.iter().filter(|&&r| r == 2).count(), 250);
        assert_eq!(ranks.iter().filter(|&&r| r == 3).count(), 50);
    }

    #[test]
    fn test_sets_are_small() {
        for e in registry()
            .iter()
            .filter(|e| e.name.ends_with("_test_validation"))
        {
            for p in e.problems() {
                assert!(p.flops() <= 2e8, "{}: {p} has {} flops", e.name, p.flops());
            }
        }
    }

    #[test]
    fn deterministic() {
        assert_eq!(validation_holdout(), validation_holdout());
        assert_eq!(main_set(Direction::Fwd, 2), main_set(Direction::Fwd, 2));
    }

    #[test]
    fn grid_covers_regimes() {
        let ps = main_set(Direction::Fwd, 2);
        let cpgs: BTreeSet<u64> = ps.iter().map(|p| p.cpg()).collect();
        for c in [1, 2, 4, 8, 16, 32, 64, 128, 256] {
            assert!(cpgs.contains(&c), "missing C/G={c}");
        }
        assert!(ps.iter().any(|p| p.g == 1), "dense");
        assert!(ps.iter().any(|p| p.is_depthwise()), "depthwise");
        assert!(
            ps.iter().any(|p| p.c == p.g && p.k == 2 * p.g),
            "multiplier"
        );
        assert!(ps.iter().any(|p| p.dilation[2] > 1), "dilation");
        assert!(ps.iter().any(|p| p.stride[2] > 1), "stride");
        assert!(ps.iter().any(|p| p.filter[2] == 1), "pointwise");
    }

    #[test]
    fn model_zoo_is_embedded() {
        let zoo = registry_problems("model_zoo").unwrap();
        assert_eq!(zoo.len(), 81);
        for d in Direction::ALL {
            assert_eq!(zoo.iter().filter(|p| p.direction == d).count(), 27);
        }
    }

    #[test]
    fn resolve_in_order() {
        assert_eq!(
            resolve_problems("forward_2d").unwrap(),
            main_set(Direction::Fwd, 2)
        );
        let f32s = resolve_problems("forward_2d_test_validation_f32").unwrap();
        assert_eq!(f32s.len(), test_set(Direction::Fwd, 2).len());
        assert!(f32s.iter().all(|p| p.dtype == DType::F32));
        let key = "fwd_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1";
        assert_eq!(resolve_problems(key).unwrap()[0].to_string(), key);

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.txt");
        std::fs::write(&path, format!("# one\n{key}\n")).unwrap();
        let ps = resolve_problems(path.to_str().unwrap()).unwrap();
        assert_eq!(ps.len(), 1);

        // a file with a bad key reports the file and the line
        std::fs::write(&path, "fwd_bf16_n1\n").unwrap();
        let e = resolve_problems(path.to_str().unwrap()).unwrap_err();
        assert!(e.to_string().contains("p.txt:1"), "{e}");

        let e = resolve_problems("forward_9d").unwrap_err();
        let TuneError::UnresolvedProblems { tried, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(tried.len(), 3);
        let msg = e.to_string();
        assert!(
            msg.contains("registry key")
                && msg.contains("problem key")
                && msg.contains("problems file"),
            "{msg}"
        );
    }

    #[test]
    fn a_missing_problems_file_is_named_first_and_briefly() {
        for spec in ["configs/nosuch.txt", "nosuch.txt", "some/dir/keys"] {
            let e = resolve_problems(spec).unwrap_err();
            assert!(
                matches!(&e, TuneError::ProblemsFileNotFound { path } if path == Path::new(spec)),
                "{e:?}"
            );
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!("problems file {spec} not found")),
                "{msg}"
            );
            assert!(msg.contains("gconv problems"), "{msg}");
            assert!(msg.lines().count() == 2 && msg.len() < 200, "{msg}");
            assert!(
                !msg.contains("forward_1d") && !msg.contains("os error"),
                "{msg}"
            );
        }
        // Another I/O error names the file and keeps the OS reason (once, as the source).
        let dir = tempfile::tempdir().unwrap();
        let spec = dir.path().to_str().unwrap().to_string();
        let e = resolve_problems(&spec).unwrap_err();
        assert!(matches!(e, TuneError::Io { .. }), "{e:?}");
        assert!(std::error::Error::source(&e).is_some());
        assert!(!e.to_string().contains("os error"), "{e}");
    }
}
