//! `auto`: the learned selection, with the hand rule (`gconv_kernels::select`) as the fallback.
//!
//! The model shipped in the binary (`models/h200/`, embedded at build time) ranks the
//! candidates — every deterministic member of the pools of the problem's direction and dtype
//! (of the allowed families) that the gate admits — and the lowest predicted slowdown wins
//! (ties: the earlier pool member). Split-K members with atomic reductions are never
//! candidates, so `auto` stays deterministic. The rule decides instead, and [`Choice::source`]
//! says why, when: `GCONV_AUTO=rule` is set; the model was not trained on the problem's
//! direction or dtype; the target is not the H200 the model was measured on (another SM count,
//! a MIG slice); or no candidate is admitted. `GCONV_AUTO=model` (or unset) uses the model
//! wherever it applies; any other value is refused by [`auto_mode`].

use crate::features::{features, Context};
use crate::model::Model;
use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::select::auto_select_in;
use gconv_kernels::{admit, Admitted, DeviceLimits, SplitKMode, Target};
use gconv_problem::Problem;
use std::sync::OnceLock;

/// Who made an `auto` choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The learned model.
    Model,
    /// The hand rule, and why the model did not decide.
    Rule(String),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Model => write!(f, "the learned model"),
            Source::Rule(why) => write!(f, "the rule ({why})"),
        }
    }
}

/// An `auto` choice.
#[derive(Debug, Clone)]
pub struct Choice {
    /// The admitted kernel.
    pub admitted: Admitted,
    /// Who chose it.
    pub source: Source,
}

/// What `GCONV_AUTO` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoMode {
    /// The model where it applies, else the rule (the default).
    Model,
    /// Always the rule.
    Rule,
}

/// `GCONV_AUTO`: `model` or unset → [`AutoMode::Model`], `rule` → [`AutoMode::Rule`]; any
/// other value is an error naming it.
pub fn auto_mode() -> Result<AutoMode, String> {
    match std::env::var("GCONV_AUTO").ok().as_deref() {
        None | Some("") | Some("model") => Ok(AutoMode::Model),
        Some("rule") => Ok(AutoMode::Rule),
        Some(other) => Err(format!(
            "GCONV_AUTO={other:?}: expected `model` (the default) or `rule`"
        )),
    }
}

static META: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../models/h200/meta.json"
));
static BOOSTER: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../models/h200/booster.json.gz"
));

/// The model shipped in the binary, or why it cannot be used (a test keeps it loadable).
pub fn shipped() -> Result<&'static Model, &'static str> {
    static MODEL: OnceLock<Result<Model, String>> = OnceLock::new();
    MODEL
        .get_or_init(|| Model::from_bytes(META, BOOSTER, "models/h200").map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| e.as_str())
}

/// Can `model` decide `problem` on `target`? `Err(reason)` when not.
pub fn covers(model: &Model, problem: &Problem, target: &Target) -> Result<(), String> {
    let d = problem.direction.token();
    let t = problem.dtype.token();
    if !model.meta.directions.iter().any(|x| x == d) {
        return Err(format!("the model was not trained on {d}"));
    }
    if !model.meta.dtypes.iter().any(|x| x == t) {
        return Err(format!("the model was not trained on {t}"));
    }
    if target.device != DeviceLimits::H200 {
        return Err(format!(
            "the model was measured on the H200's 132 SMs, this device has {}",
            target.device.sms
        ));
    }
    Ok(())
}

/// May `auto` choose this pool member at all? Deterministic reductions only.
pub fn eligible(cfg: &gconv_kernels::KernelConfig) -> bool {
    cfg.split_k_mode == SplitKMode::Deterministic
}

/// The model's choice among the eligible admitted members of the allowed pools.
pub fn model_choice(
    model: &Model,
    problem: &Problem,
    target: &Target,
    families: Families,
) -> Option<Admitted> {
    let allowed = families.list();
    let candidates: Vec<Admitted> = catalogue::pool(problem.direction, problem.dtype, families)
        .iter()
        .filter(|c| allowed.contains(&c.family) && eligible(c))
        .filter_map(|c| admit(c, problem, target).ok())
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let ctx = Context::of(problem, target);
    let rows: Vec<Vec<f64>> = candidates.iter().map(|a| features(a, &ctx)).collect();
    let refs: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
    let pred = model.predict(&refs);
    let best = (0..candidates.len()).reduce(|a, b| if pred[b] < pred[a] { b } else { a })?;
    candidates.into_iter().nth(best)
}

/// `auto` over `families`: the model where it applies, else the rule (see the module
/// documentation). `None` when nothing in the pools runs the problem.
pub fn choose(problem: &Problem, target: &Target, families: Families) -> Option<Choice> {
    let why_not = match auto_mode() {
        Ok(AutoMode::Rule) => Err("GCONV_AUTO=rule".to_string()),
        Err(e) => Err(e),
        Ok(AutoMode::Model) => shipped()
            .map_err(|e| format!("the shipped model cannot be used: {e}"))
            .and_then(|m| covers(m, problem, target).map(|_| m)),
    };
    let why = match why_not {
        Ok(model) => match model_choice(model, problem, target, families) {
            Some(admitted) => {
                return Some(Choice {
                    admitted,
                    source: Source::Model,
                })
            }
            None => "no deterministic pool member is admitted".to_string(),
        },
        Err(why) => why,
    };
    auto_select_in(problem, target, families).map(|admitted| Choice {
        admitted,
        source: Source::Rule(why),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gconv_problem::{DType, Direction};

    /// The shipped model loads (its features are this build's), and every choice it makes on
    /// a spread of problems is a pool member the real gate admits (replayed through `admit`),
    /// deterministic, and of an allowed family.
    #[test]
    fn every_choice_is_admissible() {
        let model = shipped().expect("the shipped model loads");
        let mut by_model = 0;
        let mut n = 0;
        for dir in ["fwd", "dgrad", "wgrad"] {
            for (g, c, k, hw, f, s) in [
                (1, 64, 64, 28, 3, 1),
                (32, 256, 256, 28, 3, 1),
                (64, 64, 64, 56, 7, 1),
                (4, 64, 128, 14, 1, 1),
                (96, 96, 96, 56, 3, 2),
                (2, 48, 48, 56, 3, 1),
                (512, 512, 512, 7, 5, 1),
            ] {
                for dt in ["bf16", "f16", "f32"] {
                    let pad = f / 2;
                    let key = format!(
                        "{dir}_{dt}_n8_g{g}_c{c}_k{k}_i{hw}x{hw}_f{f}x{f}_s{s}x{s}_p{pad}x{pad}_d1x1"
                    );
                    let p: Problem = key.parse().unwrap();
                    for fam in [Families::All, Families::Only(gconv_kernels::Family::Igemm)] {
                        let Some(choice) = choose(&p, &Target::H200, fam) else {
                            continue;
                        };
                        n += 1;
                        let cfg = *choice.admitted.config();
                        assert!(eligible(&cfg), "{key}: {cfg}");
                        assert!(fam.list().contains(&cfg.family), "{key}: {cfg}");
                        admit(&cfg, &p, &Target::H200)
                            .unwrap_or_else(|r| panic!("{key}: {cfg} refused by the gate: {r}"));
                        if choice.source == Source::Model {
                            by_model += 1;
                            assert!(covers(model, &p, &Target::H200).is_ok());
                        } else {
                            assert!(
                                p.dtype != DType::Bf16
                                    || !model
                                        .meta
                                        .directions
                                        .contains(&p.direction.token().to_string()),
                                "{key}: the rule decided a covered problem: {}",
                                choice.source
                            );
                        }
                    }
                }
            }
        }
        assert!(n > 100, "only {n} choices");
        assert!(by_model > 20, "the model decided only {by_model}");
        // A smaller device is left to the rule.
        let p: Problem = "fwd_bf16_n8_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let small = Target {
            device: DeviceLimits::H200.with_sms(66),
            ..Target::H200
        };
        let c = choose(&p, &small, Families::All).unwrap();
        assert!(
            matches!(c.source, Source::Rule(ref w) if w.contains("66")),
            "{:?}",
            c.source
        );
        assert_eq!(p.direction, Direction::Fwd);
    }
}
