//! `auto`: the rule-based kernel selection every user gets until a learned heuristic exists.
//! For each family in priority order (direct, then igemm), take the family's pool members that
//! it wants `auto` to consider for the problem ([`crate::family::KernelFamily::auto_considers`]), admit them,
//! keep the most preferred ([`crate::family::KernelFamily::auto_preference`]; igemm prefers its pointwise
//! path in forward and backward-weight) and return the one with the smallest cost estimate (ties: the earlier pool member).
//! The first family with an admitted candidate wins. `None` when nothing in the pools runs the
//! problem. The rule is the same in every direction: each family's cost model prices a plan on
//! the direction's own GEMM (backward-data: the stride phases' taps,
//! `igemm::geometry::k_tiles`; backward-weight: the split-K slice a CTA reduces). In
//! backward-weight the families' `auto_considers` keep the direct family to C/G = 1 and igemm
//! to its deterministic members, the largest admitted merge of each tile and pointwise tiles
//! whose rows are at least half filled.

use crate::admit::{Admitted, Gate, Gated, Target, Validated};
use crate::catalogue::Families;
use crate::config::{Family, KernelConfig};
use crate::dispatch;
use gconv_problem::Problem;

/// The order in which `auto` asks the families: direct first (it serves the memory-bound
/// regimes it accepts better than igemm's group merge), then igemm (every regime).
pub const PRIORITY: [Family; 2] = [Family::Direct, Family::Igemm];

/// `auto` over every family.
pub fn auto_select(problem: &Problem, target: &Target) -> Option<Admitted> {
    auto_select_in(problem, target, Families::All)
}

/// `auto` restricted to some families (the bench's `--family`).
pub fn auto_select_in(problem: &Problem, target: &Target, families: Families) -> Option<Admitted> {
    let allowed = families.list();
    PRIORITY
        .into_iter()
        .filter(|f| allowed.contains(f))
        .find_map(|f| pick(f, problem, target))
}

/// The rule's pick among pool members already admitted for `problem`: `(pool member, its
/// admission)` pairs in pool order, e.g. every admitted member of
/// [`crate::catalogue::pool`] (the learned selection gates the pool once, [`Gated`] without
/// plans, and asks the rule for its pick as a feature). The same choice as [`auto_select_in`]
/// when `members` holds every admitted member of the families' pools.
pub fn auto_select_among<'a, A: AsRef<Gated>>(
    members: &[(KernelConfig, &'a A)],
    problem: &Problem,
    families: Families,
) -> Option<&'a A> {
    let allowed = families.list();
    PRIORITY
        .into_iter()
        .filter(|f| allowed.contains(f))
        .find_map(|f| {
            pick_among(
                f,
                problem,
                members
                    .iter()
                    .filter(|(c, _)| c.family == f)
                    .map(|(c, a)| (c, *a)),
            )
        })
}

/// Family `f`'s pick among admitted `(member, admission)` pairs, in pool order: the members
/// it wants `auto` to consider, the most preferred of them, the smallest cost estimate (ties:
/// the earlier member).
fn pick_among<'a, 'c, A: AsRef<Gated>>(
    f: Family,
    problem: &Problem,
    members: impl Iterator<Item = (&'c KernelConfig, &'a A)>,
) -> Option<&'a A> {
    let fam = dispatch::of(f);
    let considered: Vec<&A> = members
        .filter(|(c, _)| fam.auto_considers(c, problem))
        .map(|(_, a)| a)
        .collect();
    let best = considered
        .iter()
        .map(|a| fam.auto_preference(a.as_ref().config()))
        .min()?;
    considered
        .into_iter()
        .filter(|a| fam.auto_preference(a.as_ref().config()) == best)
        .map(|a| (a.as_ref().cost_estimate(), a))
        .reduce(|a, b| if a.0 <= b.0 { a } else { b })
        .map(|(_, a)| a)
}

/// Family `f`'s pick on `problem`: its considered pool members gated without plans, and
/// without why the refused ones were refused ([`Gate::admits`]), and only the pick admitted in
/// full.
fn pick(f: Family, problem: &Problem, target: &Target) -> Option<Admitted> {
    let fam = dispatch::of(f);
    let gate = Gate::new(problem, target);
    let screened: Vec<(KernelConfig, Screened)> = fam
        .pool(problem.direction, problem.dtype)
        .into_iter()
        .filter(|c| fam.auto_considers(c, problem))
        .filter_map(|c| {
            let valid = Validated::new(&c, target.arch).ok()?;
            let gated = gate.admits(&valid)?;
            Some((c, Screened { valid, gated }))
        })
        .collect();
    let chosen = pick_among(f, problem, screened.iter().map(|(c, s)| (c, s)))?;
    gate.admit(&chosen.valid).ok()
}

/// A pool member the rule's pick gated: its validated config (to admit the pick in full) and
/// what the gate says of it.
struct Screened {
    valid: Validated,
    gated: Gated,
}

impl AsRef<Gated> for Screened {
    fn as_ref(&self) -> &Gated {
        &self.gated
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admit::admit;
    use crate::config::{FastPath, Math};

    fn prob(key: &str) -> Problem {
        key.parse().unwrap()
    }

    fn auto(key: &str) -> crate::config::KernelConfig {
        *auto_select(&prob(key), &Target::H200)
            .unwrap_or_else(|| panic!("nothing for {key}"))
            .config()
    }

    #[test]
    fn auto_select_returns_admitted_kernels() {
        for key in [
            "fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
            "fwd_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
            "fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
            "fwd_f32_n2_g3_c9_k6_i9x9_f3x3_s2x2_p1x1_d1x1",
            "fwd_f16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
            "dgrad_bf16_n2_g1_c64_k64_i8x8_f3x3_s1x1_p1x1_d1x1",
            "dgrad_bf16_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
            "dgrad_f32_n2_g3_c9_k6_i9x9_f3x3_s2x2_p1x1_d1x1",
            "dgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
        ] {
            let p = prob(key);
            let a = auto_select(&p, &Target::H200).unwrap_or_else(|| panic!("nothing for {key}"));
            assert_eq!(a.problem(), &p);
            assert!(admit(a.config(), &p, &Target::H200).is_ok(), "{key}");
        }
        assert_eq!(
            auto("fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1").fast_path,
            FastPath::Pointwise
        );
        // Backward-data 1x1: no pointwise preference, the cost model picks the wgmma tile.
        assert_eq!(
            auto("dgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1").math,
            Math::Wgmma
        );
        // Backward-weight: a deterministic member whose split-K degree the rule resolved (the
        // name says what runs).
        for key in [
            "wgrad_bf16_n2_g1_c64_k64_i8x8_f3x3_s1x1_p1x1_d1x1",
            "wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
            "wgrad_bf16_n32_g14_c336_k336_i14x14_f3x3_s1x1_p1x1_d1x1",
            "wgrad_f32_n2_g3_c9_k6_i9x9_f3x3_s2x2_p1x1_d1x1",
        ] {
            let c = auto(key);
            assert_eq!(
                c.split_k_mode,
                crate::config::SplitKMode::Deterministic,
                "{c}"
            );
            assert!(c.split_k >= 1, "{c}");
            assert!(!c.to_string().contains("_sk0"), "{c}");
        }
        assert!(auto("wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1").split_k > 1);
    }

    #[test]
    fn auto_select_follows_the_measured_regimes() {
        // Depthwise and C/G <= 4: the direct family (7-wide strips on 7/14/28-pixel outputs);
        // through igemm, depthwise merges 16 groups. Dense-ish grouped: no merge; 1x1: the
        // pointwise path.
        let key = "fwd_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1";
        assert_eq!(auto(key).family, Family::Direct);
        let dw7 = auto("fwd_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1");
        assert_eq!(
            (dw7.family, dw7.tile_k, dw7.vec_b),
            (Family::Direct, 7, 7),
            "{dw7}"
        );
        let cpg4 = auto("fwd_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1");
        assert_eq!(cpg4.family, Family::Direct, "{cpg4}");
        let cpg8 = auto("fwd_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1");
        assert_eq!(
            (cpg8.family, cpg8.math),
            (Family::Direct, Math::Mma),
            "{cpg8}"
        );
        // C/G 128 and 1x1 layers stay on igemm.
        let pw128 = auto("fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1");
        assert_eq!(pw128.family, Family::Igemm, "{pw128}");
        let dw_igemm =
            auto_select_in(&prob(key), &Target::H200, Families::Only(Family::Igemm)).unwrap();
        assert_eq!(dw_igemm.config().group_merge, 16, "{dw_igemm:?}");
        let dense = auto("fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1");
        assert_eq!(dense.group_merge, 1, "{dense}");
        assert!(dense.tile_n >= 64, "{dense}");
        let pw = auto("fwd_f16_n8_g1_c64_k64_i14x14_f1x1_s1x1_p0x0_d1x1");
        assert_eq!(pw.fast_path, FastPath::Pointwise, "{pw}");
        let f32c = auto("fwd_f32_n2_g8_c64_k64_i14x14_f3x3_s1x1_p1x1_d1x1");
        assert_eq!(f32c.math, Math::Simt, "{f32c}");
    }
}
