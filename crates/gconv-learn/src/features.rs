//! The features the selection model sees for one (problem, kernel) pair, in a fixed order with
//! fixed names ([`FEATURES`]): the problem's key fields and what follows from them, every field
//! of the kernel's canonical name, and what the kernel's own plan says about the pair (grid,
//! occupancy, waves, tile padding, the hand cost model's estimate, how far that estimate is
//! from the problem's cheapest candidate, and whether the hand rule picks this kernel).
//!
//! Features are computed from an [`Admitted`] kernel, or what the gate says of one ([`Gated`],
//! `auto`'s pool: the same values without the plan) — the one gate's answer — so a pair the
//! gate refuses has no features and can never be chosen. [`feature_hash`] fingerprints the
//! names and [`FEATURE_VERSION`]: a model trained on other features refuses to load.

use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::config::{KernelConfig, FIELDS};
use gconv_kernels::select::auto_select_among;
use gconv_kernels::{admit, direct, Admitted, DeviceLimits, Family, Gated, Target};
use gconv_problem::{DType, Direction, Problem};
use sha2::{Digest, Sha256};

/// Bumped whenever a feature's meaning changes without its name changing.
pub const FEATURE_VERSION: u32 = 1;

/// Problem features: the key's fields and derived sizes.
const PROBLEM: &[&str] = &[
    "p_direction",
    "p_dtype",
    "p_rank",
    "p_n",
    "p_g",
    "p_cpg",
    "p_kpg",
    "p_depthwise",
    "p_in_volume",
    "p_out_volume",
    "p_taps",
    "p_filter_max",
    "p_stride_max",
    "p_stride_prod",
    "p_pad_max",
    "p_dilation_max",
    "p_valid_tap_frac",
    "p_gemm_m",
    "p_gemm_n",
    "p_gemm_k",
    "p_log_flops",
    "p_log_bytes",
    "p_log_intensity",
    "p_log_roofline_us",
];

/// Problem × kernel features from the plan. The last seven (session 18) say what the plan's
/// grid and the hand cost model do not: resident warps per SM, outputs per thread, and for the
/// direct family's forward and backward-data kernels (whose `tile_m`/`tile_n` are an output
/// tile of `TH × TW` pixels and `BN` channels, not a GEMM tile) the padding waste of that tile
/// along the output image and the channels, the MACs per element staged in shared memory (the
/// halo's re-reads), and the tiles a persistent CTA walks; for the other kernels the GEMM
/// tile's utilisation, its MACs per staged element (`tm·tn / (tm + tn)` per k step) and one
/// tile per CTA. `x_cost_rank` is where the candidate's cost estimate ranks among the
/// problem's admitted members (0 = the cheapest; the fraction of members cheaper).
const PLAN: &[&str] = &[
    "x_ctas",
    "x_log_ctas",
    "x_ctas_per_sm",
    "x_waves",
    "x_wave_eff",
    "x_smem_kb",
    "x_regs",
    "x_threads",
    "x_log_cost_us",
    "x_cost_over_roofline",
    "x_m_util",
    "x_n_util",
    "x_k_tiles",
    "x_split",
    "x_merge_over_g",
    "x_log_cost_rel",
    "x_rule_pick",
    "x_warps_per_sm",
    "x_out_per_thread",
    "x_sp_util",
    "x_ch_util",
    "x_log_reuse",
    "x_tiles_per_cta",
    "x_cost_rank",
];

/// Every feature name, in column order: problem, kernel (`k_` + each name field), plan.
pub static FEATURES: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    PROBLEM
        .iter()
        .map(|s| s.to_string())
        .chain(FIELDS.iter().map(|f| format!("k_{f}")))
        .chain(PLAN.iter().map(|s| s.to_string()))
        .collect()
});

/// SHA-256 (hex, first 16 digits) of [`FEATURE_VERSION`] and the feature names.
pub fn feature_hash() -> String {
    let mut h = Sha256::new();
    h.update(FEATURE_VERSION.to_le_bytes());
    for f in FEATURES.iter() {
        h.update(f.as_bytes());
        h.update([0]);
    }
    hex16(&h.finalize())
}

pub(crate) fn hex16(bytes: &[u8]) -> String {
    bytes.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

fn ln1(x: f64) -> f64 {
    x.max(1e-300).ln()
}

/// Fraction of (output position, tap) pairs whose input falls inside the image, over the
/// spatial dimensions of a forward-view problem (1 when nothing reads padding).
pub fn valid_tap_fraction(p: &Problem) -> f64 {
    let out = p.output();
    let mut frac = 1.0;
    for (d, &o) in out.iter().enumerate() {
        let (i, f, s, pad, dil, o) = (
            p.input[d] as i64,
            p.filter[d] as i64,
            p.stride[d] as i64,
            p.pad[d] as i64,
            p.dilation[d] as i64,
            o as i64,
        );
        if f <= 1 && pad == 0 {
            continue;
        }
        let dil = dil.max(1);
        let mut valid = 0i64;
        if o <= f {
            // For output x the taps t in [0, f) with 0 <= x·s − pad + t·dil < i form one
            // interval: O(outputs) instead of O(outputs × taps).
            if dil == 1 {
                // The same count without a division per output (most layers are undilated).
                for x in 0..o {
                    let b = x * s - pad;
                    valid += ((i - 1 - b).min(f - 1) - (-b).max(0) + 1).max(0);
                }
            } else {
                for x in 0..o {
                    let b = x * s - pad;
                    // The first tap at or past the image's start: ceil(−b / dil), at least 0.
                    let lo = (-(b.div_euclid(dil))).max(0);
                    let hi = (i - 1 - b).div_euclid(dil).min(f - 1);
                    valid += (hi - lo + 1).max(0);
                }
            }
        } else {
            // Fewer taps than outputs (a large image, a user's key of billions of pixels): for
            // tap t the outputs x in [0, o) with 0 <= x·s − pad + t·dil < i form one interval,
            // O(taps), so that ranking never walks every output position.
            let s = s.max(1);
            for t in 0..f {
                let a = pad - t * dil;
                // ceil(a / s), at least 0; floor((i − 1 + a) / s), at most o − 1.
                let lo = (-((-a).div_euclid(s))).max(0);
                let hi = (i - 1 + a).div_euclid(s).min(o - 1);
                valid += (hi - lo + 1).max(0);
            }
        }
        frac *= valid as f64 / (o * f).max(1) as f64;
    }
    frac
}

fn direction_index(d: Direction) -> f64 {
    match d {
        Direction::Fwd => 0.0,
        Direction::Dgrad => 1.0,
        Direction::Wgrad => 2.0,
    }
}

fn dtype_index(d: DType) -> f64 {
    match d {
        DType::F32 => 0.0,
        DType::F16 => 1.0,
        DType::Bf16 => 2.0,
    }
}

/// The problem part of the features (the first names of [`FEATURES`]).
pub fn problem_features(p: &Problem) -> Vec<f64> {
    let (m, n, k) = p.gemm_mnk();
    let dev = gconv_problem::DeviceSpec::H200;
    let flops = p.flops();
    let bytes = p.min_bytes();
    let r = p.rank;
    let lead = 3 - r;
    let max_of = |a: [u64; 3]| a[lead..].iter().copied().max().unwrap_or(1) as f64;
    vec![
        direction_index(p.direction),
        dtype_index(p.dtype),
        r as f64,
        p.n as f64,
        p.g as f64,
        p.cpg() as f64,
        p.kpg() as f64,
        f64::from(u8::from(p.cpg() == 1 && p.kpg() == 1)),
        p.input_volume() as f64,
        p.output_volume() as f64,
        p.filter_volume() as f64,
        max_of(p.filter),
        max_of(p.stride),
        p.stride[lead..].iter().product::<u64>() as f64,
        max_of(p.pad),
        max_of(p.dilation),
        valid_tap_fraction(p),
        m as f64,
        n as f64,
        k as f64,
        ln1(flops),
        ln1(bytes),
        ln1(flops / bytes.max(1.0)),
        ln1(p.roofline_seconds(&dev) * 1e6),
    ]
}

/// What the features of one pair need to know about the problem's other candidates: the
/// smallest cost estimate among the admitted pool members, and the hand rule's choice
/// (`gconv_kernels::select::auto_select`), so that the model can learn where the rule is right
/// and by how much a candidate's estimate trails the best one's.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    /// Smallest cost estimate (s) of the admitted pool members (∞ when none is admitted).
    pub min_cost: f64,
    /// The rule's choice (its resolved config, as admission reports it).
    pub rule_pick: Option<KernelConfig>,
    /// The cost estimates (s) of the admitted pool members, for `x_cost_rank` (the share of
    /// them below a candidate's): in pool order, or sorted where one is NaN
    /// ([`Context::costs_sorted`]).
    pub costs: Vec<f64>,
    /// Is `costs` sorted (by `total_cmp`)? Only where some cost is NaN: the rank is then the
    /// sorted list's partition point, as it always was; without a NaN the count of the costs
    /// below is the same number, counted without sorting.
    pub costs_sorted: bool,
    /// The problem it describes.
    pub for_problem: Problem,
    /// [`problem_features`] of the problem, computed once for all its candidates.
    pub problem: Vec<f64>,
    /// What the plan features read of the problem, computed once for all its candidates.
    pub derived: Derived,
}

/// The problem's values that every candidate's plan features read ([`features_into`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Derived {
    /// The roofline time (s) on the H200.
    pub roofline: f64,
    /// The per-group GEMM sizes (`Problem::gemm_mnk`).
    pub gemm_mnk: (u64, u64, u64),
}

impl Derived {
    /// The values of `p`.
    pub fn of(p: &Problem) -> Derived {
        Derived {
            roofline: p.roofline_seconds(&gconv_problem::DeviceSpec::H200),
            gemm_mnk: p.gemm_mnk(),
        }
    }
}

impl Context {
    /// The context of `p` on `target` (the pool of its direction and dtype, every family).
    pub fn of(p: &Problem, target: &Target) -> Context {
        let members: Vec<(KernelConfig, Admitted)> =
            catalogue::pool(p.direction, p.dtype, Families::All)
                .into_iter()
                .filter_map(|c| admit(&c, p, target).ok().map(|a| (c, a)))
                .collect();
        Context::from_members(&members, p)
    }

    /// The context from `(pool member, admission)` pairs of every admitted member of the
    /// whole pool of `p`'s direction and dtype, in pool order (what [`Context::of`] admits),
    /// saving a second admission: the rule's pick is taken among them
    /// ([`auto_select_among`], the same pick as `auto_select`).
    pub fn from_members<A: AsRef<Gated>>(members: &[(KernelConfig, A)], p: &Problem) -> Context {
        let refs: Vec<(KernelConfig, &A)> = members.iter().map(|(c, a)| (*c, a)).collect();
        let cost = |a: &A| a.as_ref().cost_estimate();
        let mut costs: Vec<f64> = members.iter().map(|(_, a)| cost(a)).collect();
        let costs_sorted = costs.iter().any(|c| c.is_nan());
        if costs_sorted {
            // Values equal under `total_cmp` have the same bits: unstable is the same.
            costs.sort_unstable_by(f64::total_cmp);
        }
        Context {
            min_cost: members
                .iter()
                .map(|(_, a)| cost(a))
                .fold(f64::INFINITY, f64::min),
            rule_pick: auto_select_among(&refs, p, Families::All).map(|a| *a.as_ref().config()),
            costs,
            costs_sorted,
            for_problem: *p,
            problem: problem_features(p),
            derived: Derived::of(p),
        }
    }
}

/// What a kernel's output tile does on a problem (the `x_sp_util` … `x_tiles_per_cta`
/// features): see [`PLAN`].
struct TileShape {
    spatial_util: f64,
    channel_util: f64,
    reuse: f64,
    tiles_per_cta: f64,
}

impl TileShape {
    /// The tile of `cfg` on `p`: the direct family's output tile for forward and backward-data
    /// kernels (on the convolution the kernel computes, `direct::kernel_problem`: the
    /// backward-data dual, the merged groups), else the GEMM tile (`m_util`, `n_util`: its
    /// utilisation; `ctas`: the launch's CTAs).
    fn of(cfg: &KernelConfig, p: &Problem, m_util: f64, n_util: f64, ctas: f64) -> TileShape {
        let tm = u64::from(cfg.tile_m.max(1));
        let tn = u64::from(cfg.tile_n.max(1));
        if cfg.family != Family::Direct || p.direction == Direction::Wgrad {
            return TileShape {
                spatial_util: m_util,
                channel_util: n_util,
                reuse: (tm * tn) as f64 / (tm + tn) as f64,
                tiles_per_cta: 1.0,
            };
        }
        let kp = direct::kernel_problem(cfg, p);
        let view = direct::DirectView::of(cfg);
        let tw = u64::from(view.tile_width.max(1));
        let th = (u64::from(view.tile_pixels) / tw).max(1);
        let bn = u64::from(view.tile_channels.max(1));
        let out = kp.output();
        let util = |o: u64, t: u64| o as f64 / (o.div_ceil(t) * t).max(1) as f64;
        let halo_h = (th - 1) * kp.stride[1] + (kp.filter[1] - 1) * kp.dilation[1] + 1;
        let halo_w = (tw - 1) * kp.stride[2] + (kp.filter[2] - 1) * kp.dilation[2] + 1;
        let ct = (bn / kp.kpg().max(1)).max(1) * kp.cpg();
        let weights = bn * kp.filter_volume() * kp.cpg();
        let macs = (th * tw * weights) as f64;
        // A depth-streaming tile stages one new input slice, others every depth tap's.
        let slices = if view.depth_stream { 1 } else { kp.filter[0] };
        let staged = (slices * halo_h * halo_w * ct + weights) as f64;
        let tiles = out[2].div_ceil(tw) * out[1].div_ceil(th) * out[0] * kp.n * kp.k.div_ceil(bn);
        TileShape {
            spatial_util: util(out[1], th) * util(out[2], tw),
            channel_util: util(kp.k, bn),
            reuse: macs / staged.max(1.0),
            tiles_per_cta: tiles as f64 / ctas.max(1.0),
        }
    }
}

/// Every feature of an admitted (kernel, problem) pair, in [`FEATURES`] order.
pub fn features(a: &Admitted, ctx: &Context) -> Vec<f64> {
    let mut v = vec![0.0; FEATURES.len()];
    features_into(a.gated(), a.problem(), &a.target().device, ctx, &mut v);
    v
}

/// [`features`] of what the gate says of a pair (`a`, gated for problem `p` on a target with
/// the device `dev`: [`Admitted::gated`], or `auto`'s pool, which keeps no plans), written into
/// the first [`FEATURES`] values of `out` (`auto` fills its feature matrix in place; `out` must
/// be at least that long).
pub fn features_into(a: &Gated, p: &Problem, dev: &DeviceLimits, ctx: &Context, out: &mut [f64]) {
    if ctx.for_problem == *p {
        features_in_context(a, dev, ctx, out);
        return;
    }
    // A context made for another problem: its pool's part only.
    let (head, rest) = out.split_at_mut(PROBLEM.len());
    head.copy_from_slice(&problem_features(p));
    kernel_part_into(a, p, dev, ctx, Derived::of(p), rest);
}

/// [`features_into`] for a pair gated for the context's own problem (`auto`'s pool: the
/// problem is not compared with the context's once per candidate).
pub fn features_in_context(a: &Gated, dev: &DeviceLimits, ctx: &Context, out: &mut [f64]) {
    let (head, rest) = out.split_at_mut(PROBLEM.len());
    head.copy_from_slice(&ctx.problem);
    kernel_part_into(a, &ctx.for_problem, dev, ctx, ctx.derived, rest);
}

/// The features after the problem's ([`FIELDS`], then [`PLAN`]) into the first values of
/// `rest`; `derived` is [`Derived::of`] `p`.
fn kernel_part_into(
    a: &Gated,
    p: &Problem,
    dev: &DeviceLimits,
    ctx: &Context,
    derived: Derived,
    rest: &mut [f64],
) {
    let cfg = a.config();
    let (fields, rest) = rest.split_at_mut(FIELDS.len());
    for (o, v) in fields.iter_mut().zip(cfg.field_values()) {
        *o = v as f64;
    }
    let grid = a.grid();
    let ctas = (grid[0] * grid[1] * grid[2]) as f64;
    let threads = cfg.threads();
    let per_sm = dev.ctas_per_sm(a.smem_bytes(), threads, a.registers()) as f64;
    let wave = per_sm * dev.sms as f64;
    let waves = ctas / wave.max(1.0);
    let cost = a.cost_estimate();
    let roof = derived.roofline;
    let (m, n, k) = derived.gemm_mnk;
    let util = |size: u64, tile: u32| {
        let t = u64::from(tile.max(1));
        size as f64 / (size.div_ceil(t) * t) as f64
    };
    let gm = u64::from(cfg.group_merge.max(1));
    let m_util = util(
        m * if p.direction == Direction::Wgrad {
            gm
        } else {
            1
        },
        cfg.tile_m,
    );
    let n_util = util(
        n * if p.direction == Direction::Wgrad {
            1
        } else {
            gm
        },
        cfg.tile_n,
    );
    let tile = TileShape::of(cfg, p, m_util, n_util, ctas);
    // Sorted without NaN, the costs below `cost` are a prefix: its length is the count.
    let below = if ctx.costs_sorted {
        ctx.costs.partition_point(|&c| c < cost)
    } else {
        ctx.costs.iter().filter(|&&c| c < cost).count()
    };
    let rank = below as f64 / ctx.costs.len().max(1) as f64;
    let plan_part = [
        ctas,
        ln1(ctas),
        per_sm,
        waves,
        waves / waves.ceil().max(1.0),
        a.smem_bytes() as f64 / 1024.0,
        f64::from(a.registers()),
        f64::from(threads),
        ln1(cost * 1e6),
        cost / roof.max(1e-12),
        m_util,
        n_util,
        k.div_ceil(u64::from(cfg.tile_k.max(1))) as f64,
        f64::from(cfg.split_k),
        gm as f64 / p.g as f64,
        if ctx.min_cost.is_finite() {
            ln1(cost / ctx.min_cost.max(1e-300))
        } else {
            0.0
        },
        f64::from(u8::from(ctx.rule_pick.as_ref() == Some(cfg))),
        per_sm * f64::from(threads) / 32.0,
        f64::from(cfg.tile_m) * f64::from(cfg.tile_n) / f64::from(threads.max(1)),
        tile.spatial_util,
        tile.channel_util,
        ln1(tile.reuse),
        tile.tiles_per_cta,
        rank,
    ];
    rest[..PLAN.len()].copy_from_slice(&plan_part);
}

/// The regime of a problem, for per-regime metrics: `depthwise` (C/G = K/G = 1), `multiplier`
/// (C/G = 1, K/G > 1), `small` (C/G ≤ 4), `grouped` (G > 1), `dense` (G = 1).
pub fn regime(p: &Problem) -> &'static str {
    match (p.g, p.cpg(), p.kpg()) {
        (1, _, _) => "dense",
        (_, 1, 1) => "depthwise",
        (_, 1, _) => "multiplier",
        (_, c, _) if c <= 4 => "small",
        _ => "grouped",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule's pick taken among the admitted pool (`Context::of`, what `rank` does) is the
    /// pick `auto_select` makes by admitting on its own, on the model-zoo layers and every
    /// 9th layer of the 2D and 3D training sets, in every dtype.
    #[test]
    fn the_rule_pick_among_admitted_members_is_auto_select() {
        let mut problems = gconv_tune::registry::registry_problems("model_zoo").unwrap();
        for set in [
            "forward_2d",
            "bwd_data_2d",
            "bwd_weight_2d",
            "bwd_weight_3d",
        ] {
            problems.extend(
                gconv_tune::registry::registry_problems(set)
                    .unwrap()
                    .into_iter()
                    .step_by(9),
            );
        }
        let mut n = 0;
        for p in problems {
            for dtype in [DType::Bf16, DType::F16, DType::F32] {
                let p = Problem { dtype, ..p };
                let want =
                    gconv_kernels::select::auto_select(&p, &Target::H200).map(|a| *a.config());
                assert_eq!(Context::of(&p, &Target::H200).rule_pick, want, "{p}");
                n += usize::from(want.is_some());
            }
        }
        assert!(n > 300, "{n}");
    }

    #[test]
    fn every_pool_member_gives_one_finite_value_per_name() {
        let p: Problem = "wgrad_bf16_n8_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let mut n = 0;
        let ctx = Context::of(&p, &Target::H200);
        let mut picks = 0;
        for cfg in catalogue::pool(p.direction, p.dtype, Families::All) {
            if let Ok(a) = admit(&cfg, &p, &Target::H200) {
                let f = features(&a, &ctx);
                let at = |name: &str| f[FEATURES.iter().position(|x| x == name).unwrap()];
                picks += usize::from(at("x_rule_pick") == 1.0);
                assert!(at("x_log_cost_rel") >= 0.0, "cost relative to the cheapest");
                assert!((0.0..1.0).contains(&at("x_cost_rank")), "{cfg}");
                for u in ["x_sp_util", "x_ch_util"] {
                    assert!(at(u) > 0.0 && at(u) <= 1.0, "{cfg}: {u} {}", at(u));
                }
                assert_eq!(f.len(), FEATURES.len());
                assert!(f.iter().all(|x| x.is_finite()), "{cfg}: {f:?}");
                n += 1;
            }
        }
        assert!(n > 5, "only {n} pool members admitted");
        assert_eq!(picks, 1, "the rule's choice is one pool member");
        assert_eq!(feature_hash().len(), 16);
    }

    /// The interval count agrees with counting every (output, tap) pair.
    #[test]
    fn valid_taps_match_the_brute_force_count() {
        let brute = |p: &Problem| {
            let out = p.output();
            let mut frac = 1.0;
            for (d, &o) in out.iter().enumerate() {
                let (i, f, s, pad, dil) = (
                    p.input[d] as i64,
                    p.filter[d] as i64,
                    p.stride[d] as i64,
                    p.pad[d] as i64,
                    p.dilation[d] as i64,
                );
                let o = o as i64;
                let mut valid = 0;
                for x in 0..o {
                    for t in 0..f {
                        valid += i64::from((0..i).contains(&(x * s - pad + t * dil)));
                    }
                }
                frac *= valid as f64 / (o * f).max(1) as f64;
            }
            frac
        };
        let mut n = 0;
        // Both counts: over outputs (no more outputs than taps) and over taps (more outputs).
        for i in [1u64, 4, 7, 16, 31] {
            for f in [1u64, 2, 3, 5, 7, 9] {
                for s in [1u64, 2, 3] {
                    for pad in [0u64, 1, 2, 4] {
                        for dil in [1u64, 2, 3] {
                            let key = format!("fwd_f32_n1_g1_c1_k1_i{i}_f{f}_s{s}_p{pad}_d{dil}");
                            let Ok(p) = key.parse::<Problem>() else {
                                continue;
                            };
                            assert_eq!(valid_tap_fraction(&p), brute(&p), "{key}");
                            n += 1;
                        }
                    }
                }
            }
        }
        assert!(n > 300, "{n} problems");
    }

    #[test]
    fn valid_taps_of_a_huge_image_are_counted_per_tap() {
        // 2^31 − 1 outputs a dimension: counted over the 3 taps, not over every output (a
        // count per output took longer than a minute for `gconv select` on this key).
        let p: Problem = "fwd_bf16_n1_g1_c1_k1_i2147483647x2147483647_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let o = 2147483647.0f64;
        let per_dim = (3.0 * o - 2.0) / (3.0 * o);
        assert!((valid_tap_fraction(&p) - per_dim * per_dim).abs() < 1e-12);
    }

    #[test]
    fn valid_taps_count_padding() {
        let p: Problem = "fwd_f32_n1_g1_c1_k1_i4_f3_s1_p1_d1".parse().unwrap();
        // 4 outputs × 3 taps, the first and last output each read one padded tap.
        assert!((valid_tap_fraction(&p) - 10.0 / 12.0).abs() < 1e-12);
        let q: Problem = "fwd_f32_n1_g1_c1_k1_i4_f1_s1_p0_d1".parse().unwrap();
        assert_eq!(valid_tap_fraction(&q), 1.0);
        assert_eq!(regime(&p), "dense");
        let dw: Problem = "fwd_f32_n1_g4_c4_k4_i4_f3_s1_p1_d1".parse().unwrap();
        assert_eq!(regime(&dw), "depthwise");
    }
}
