//! `auto`: the learned selection, with the hand rule (`gconv_kernels::select`) as the fallback.
//!
//! The model shipped in the binary (`models/h200/`, embedded at build time) ranks the
//! candidates — every deterministic member of the pools of the problem's direction and dtype
//! (of the allowed families) that the gate admits — and the lowest predicted slowdown wins
//! (ties: the earlier pool member). Split-K members with atomic reductions are never
//! candidates, so `auto` stays deterministic. The rule decides instead, and [`Choice::source`]
//! says why, when: `GCONV_AUTO=rule` is set; the model was not trained on the problem's
//! direction or dtype (a bf16 model decides f16 too: [`Model::decides_dtype`]); the target
//! is not the H200 the model was measured on (another SM count, a MIG slice); or no candidate
//! is admitted. `GCONV_AUTO=model` (or unset) uses the model
//! wherever it applies; any other value is refused by [`auto_mode`]. With a decision cache
//! ([`choose_tuned`]; `gconv tune` fills it), a measured decision comes first.

use crate::decisions::DecisionCache;
use crate::features::{features_in_context, Context};
use crate::model::{FeatureMatrix, Model};
use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::select::auto_select_in;
use gconv_kernels::{
    admit, Admitted, DeviceLimits, Gate, Gated, KernelConfig, SplitKMode, Target, Validated,
};
use gconv_problem::Problem;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, OnceLock};

/// Who made an `auto` choice.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A measured decision of `gconv tune` (the decision cache), with the vendor's figure.
    Tuned {
        /// The measured latency of the kernel, ms.
        kernel_ms: f64,
        /// The vendor's best engine and latency (ms), when it was timed.
        vendor: Option<(String, f64)>,
    },
    /// The learned model.
    Model,
    /// The hand rule, and why the model did not decide.
    Rule(String),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Tuned { kernel_ms, vendor } => {
                write!(f, "the decision cache (measured {kernel_ms:.4} ms")?;
                match vendor {
                    Some((engine, ms)) if ms < kernel_ms => write!(
                        f,
                        "; the vendor's {engine} was measured faster, {ms:.4} ms)"
                    ),
                    Some((engine, ms)) => write!(f, "; {engine} {ms:.4} ms)"),
                    None => write!(f, ")"),
                }
            }
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

impl Choice {
    /// The vendor's engine where the dispatcher should run it instead of a gconv kernel: a
    /// measured decision ([`Source::Tuned`]) whose vendor figure beats the fastest gconv
    /// candidate, with an engine that produces gconv's layout (a cuDNN channels-last plan,
    /// `cudnn:eng…`; NCHW plans, `cudnn:nchw:…`, need other tensors).
    pub fn vendor_engine(&self) -> Option<&str> {
        match &self.source {
            Source::Tuned {
                kernel_ms,
                vendor: Some((engine, ms)),
            } if ms < kernel_ms
                && engine.starts_with("cudnn:")
                && !engine.starts_with("cudnn:nchw:") =>
            {
                Some(engine)
            }
            _ => None,
        }
    }
}

/// What `GCONV_AUTO` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
// The shipped model re-ranks (`meta.json`'s `options.rerank`); one trained with
// `--no-rerank` has no `pairwise.json.gz`, and `shipped` then passes `None` instead.
static PAIRWISE: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../models/h200/pairwise.json.gz"
));

/// The model shipped in the binary, or why it cannot be used (a test keeps it loadable).
///
/// Loading it also prepares `auto`'s first decisions: it validates, once, the pools of the
/// directions and dtypes the model decides on the H200 ([`catalogue::validated_pool`]), and
/// makes one decision per direction on [`PRIMING`] (discarded; the per-process decisions are
/// left empty), so that the code a decision runs — the families' rules, geometry and cost
/// models, the features, the trees, and [`choose`]'s own steps around them (`prime_choose`)
/// — is paged in and cached by the load instead of by the program's first convolution
/// (`models/h200/README.md`, "Decision time", has what this moves).
pub fn shipped() -> Result<&'static Model, &'static str> {
    static MODEL: OnceLock<Result<Model, String>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let model = Model::from_bytes(META, BOOSTER, Some(PAIRWISE), "models/h200")
                .map_err(|e| e.to_string())?;
            for d in gconv_problem::Direction::ALL {
                for t in gconv_problem::DType::ALL {
                    if model.meta.directions.iter().any(|x| x == d.token())
                        && model.decides_dtype(t)
                    {
                        catalogue::validated_pool(d, t, Target::H200.arch);
                    }
                }
            }
            for d in gconv_problem::Direction::ALL {
                if let Ok(p) = PRIMING.parse::<Problem>() {
                    let p = p.with_direction(d);
                    if covers(&model, &p, &Target::H200).is_ok() {
                        std::hint::black_box(model_choice(
                            &model,
                            &p,
                            &Target::H200,
                            Families::All,
                        ));
                    }
                }
            }
            prime_choose();
            Ok(model)
        })
        .as_ref()
        .map_err(|e| e.as_str())
}

/// What [`choose`] does around a decision, done once while the model loads, so that a
/// program's first decision does not page it in (a first `GCONV_AUTO` read and a first insert
/// into a new table took about 5 µs of a first decision): reads `GCONV_AUTO`, gives the
/// per-process decisions room, and inserts and removes one entry (the decisions stay empty).
fn prime_choose() {
    let mode = auto_mode().unwrap_or(AutoMode::Rule);
    let Ok(p) = PRIMING.parse::<Problem>() else {
        return;
    };
    let mut decisions = decided().lock().unwrap_or_else(|e| e.into_inner());
    decisions.reserve(16);
    let key = (p, Families::All, Target::H200, mode);
    if let std::collections::hash_map::Entry::Vacant(e) = decisions.entry(key) {
        e.insert(None);
        decisions.remove(&key);
    }
}

/// The layer [`shipped`] decides once per direction while loading (a small depthwise 3×3
/// layer: both families plan it).
pub const PRIMING: &str = "fwd_bf16_n1_g32_c32_k32_i14x14_f3x3_s1x1_p1x1_d1x1";

static DECISIONS: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../models/h200/decisions.json"
));

/// The decision cache shipped in the binary (`models/h200/decisions.json`: what `gconv tune`
/// measured on the H200 for the public model-zoo layers), consulted after the user's own
/// cache. A test keeps it loadable and valid for this build.
pub fn shipped_decisions() -> &'static DecisionCache {
    static CACHE: OnceLock<DecisionCache> = OnceLock::new();
    CACHE.get_or_init(|| {
        DecisionCache::from_bytes(DECISIONS, "models/h200/decisions.json").unwrap_or_default()
    })
}

/// Can `model` decide `problem` on `target`? `Err(reason)` when not.
pub fn covers(model: &Model, problem: &Problem, target: &Target) -> Result<(), String> {
    let d = problem.direction.token();
    let t = problem.dtype.token();
    if !model.meta.directions.iter().any(|x| x == d) {
        return Err(format!("the model was not trained on {d}"));
    }
    if !model.decides_dtype(problem.dtype) {
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

/// May `auto` choose this pool member at all? Deterministic reductions only (the two-launch
/// split `d` and the cluster split `c`; never the atomic one).
pub fn eligible(cfg: &gconv_kernels::KernelConfig) -> bool {
    cfg.split_k_mode != SplitKMode::Atomic
}

/// A pool member the model ranked for a problem.
#[derive(Debug, Clone)]
pub struct Ranked {
    /// The admitted member.
    pub admitted: Admitted,
    /// Its predicted slowdown label (`ln` of latency over the problem's best).
    pub predicted: f64,
}

/// What the model makes of a problem's pool: the eligible admitted members of the allowed
/// families ranked by prediction (best first; ties keep pool order), and the members left out
/// with why (refused by the gate, or not eligible for `auto`).
#[derive(Debug, Clone, Default)]
pub struct Ranking {
    /// Ranked candidates, best first.
    pub ranked: Vec<Ranked>,
    /// `(name, reason)` of the members that are not candidates.
    pub left_out: Vec<(String, String)>,
}

/// Ranks the pool of `problem` with `model` (one admission of the whole pool; see
/// [`Ranking`]): in the order of [`Model::ranking`], so the first is `auto`'s choice (the
/// screening cascade's) and the rest follow by their full predictions, each candidate's
/// `predicted`.
pub fn rank(model: &Model, problem: &Problem, target: &Target, families: Families) -> Ranking {
    let pool = Pool::admit(problem, target, families, true);
    let rows = pool.rows();
    let candidates: Vec<usize> = pool.candidates().collect();
    let ranked: Vec<Ranked> = model
        .ranking_matrix(&rows)
        .into_iter()
        .filter_map(|(i, predicted)| {
            Some(Ranked {
                admitted: pool.admitted(candidates[i])?,
                predicted,
            })
        })
        .collect();
    Ranking {
        ranked,
        left_out: pool
            .left_out
            .iter()
            .map(|(c, why)| (c.to_string(), why.to_string()))
            .collect(),
    }
}

/// Why a pool member is not a candidate ([`Pool`] keeps it unformatted: only [`rank`] prints
/// it, and `auto`'s decisions need no strings).
enum LeftOut {
    Family,
    Atomic,
    Refused(gconv_kernels::Rejection),
}

impl std::fmt::Display for LeftOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LeftOut::Family => f.write_str("its family is not allowed here"),
            LeftOut::Atomic => {
                f.write_str("atomic split-K reduction: not deterministic, never chosen by auto")
            }
            LeftOut::Refused(r) => write!(f, "{}: {r}", r.reason()),
        }
    }
}

/// A problem's pool gated once ([`Gate::screen`]: no member's plan is kept, or allocated):
/// every admitted member with its pool config (the context's rule pick needs them all), which
/// of them are candidates, and the members left out (kept only for a ranking: a choice does
/// not say why the others were not candidates). Only a member that is chosen or ranked is
/// admitted in full ([`Pool::admitted`]).
struct Pool {
    gate: Gate,
    members: Vec<(KernelConfig, Gated)>,
    /// Each member's validated config, to admit it in full.
    valid: Vec<&'static Validated>,
    is_candidate: Vec<bool>,
    left_out: Vec<(KernelConfig, LeftOut)>,
    ctx: Context,
}

impl Pool {
    /// The pool of `problem`; `keep`: keep the members left out, with why.
    fn admit(problem: &Problem, target: &Target, families: Families, keep: bool) -> Pool {
        let allowed = families.list();
        // The pool validated once per process: each member's answer is `admit`'s.
        let pool = catalogue::validated_pool(problem.direction, problem.dtype, target.arch);
        let gate = Gate::new(problem, target);
        let mut members = Vec::with_capacity(pool.len());
        let mut valid = Vec::with_capacity(pool.len());
        let mut left_out = Vec::new();
        let mut is_candidate = Vec::with_capacity(pool.len());
        for (c, v) in pool {
            let c = *c;
            // Why a member is refused is kept only for a ranking (`keep`); a decision asks only
            // whether it passes (`Gate::admits`: no rule message written).
            let gated = match v {
                Ok(v) if keep => gate.screen(v).map(|g| (v, g)).map_err(Some),
                Ok(v) => gate.admits(v).map(|g| (v, g)).ok_or(None),
                Err(r) => Err(keep.then(|| r.clone())),
            };
            match gated {
                Ok((v, g)) => {
                    let why = if !eligible(&c) {
                        Some(LeftOut::Atomic)
                    } else if !allowed.contains(&c.family) {
                        Some(LeftOut::Family)
                    } else {
                        None
                    };
                    is_candidate.push(why.is_none());
                    if let Some(why) = why.filter(|_| keep) {
                        left_out.push((c, why));
                    }
                    members.push((c, g));
                    valid.push(v);
                }
                Err(Some(r)) => left_out.push((c, LeftOut::Refused(r))),
                Err(None) => {}
            }
        }
        let ctx = Context::from_members(&members, problem);
        Pool {
            gate,
            members,
            valid,
            is_candidate,
            left_out,
            ctx,
        }
    }

    /// The members that are candidates (their indices), in pool order.
    fn candidates(&self) -> impl Iterator<Item = usize> + '_ {
        self.is_candidate
            .iter()
            .enumerate()
            .filter_map(|(i, &ok)| ok.then_some(i))
    }

    /// Member `i` admitted in full (with its plan): the gate's answer again, so never `None`.
    fn admitted(&self, i: usize) -> Option<Admitted> {
        self.gate.admit(self.valid[i]).ok()
    }

    /// The candidates' feature rows, in pool order.
    fn rows(&self) -> FeatureMatrix {
        let mut m = FeatureMatrix::with_capacity(self.members.len());
        // The context was made for the gate's problem (`Pool::admit`).
        let device = &self.gate.target().device;
        for i in self.candidates() {
            features_in_context(&self.members[i].1, device, &self.ctx, m.push_row());
        }
        m
    }
}

/// The candidates' feature rows of `problem`, as `auto` ranks them (for tests of the trees).
#[cfg(test)]
pub(crate) fn candidate_rows(
    problem: &Problem,
    target: &Target,
    families: Families,
) -> FeatureMatrix {
    Pool::admit(problem, target, families, false).rows()
}

/// The model's choice among the eligible admitted members of the allowed pools: the first of
/// [`rank`]'s ranking ([`Model::best`]: the screening cascade, without the ranking's
/// predictions of every candidate), the only member admitted in full.
pub fn model_choice(
    model: &Model,
    problem: &Problem,
    target: &Target,
    families: Families,
) -> Option<Admitted> {
    let pool = Pool::admit(problem, target, families, false);
    let best = model.best_matrix(&pool.rows())?;
    let chosen = pool.candidates().nth(best)?;
    pool.admitted(chosen)
}

type DecisionKey = (Problem, Families, Target, AutoMode);

/// The per-process decisions, hashed by [`KeyHasher`].
type Decisions = HashMap<DecisionKey, Option<Choice>, BuildHasherDefault<KeyHasher>>;

/// Decisions made in this process, so that a layer met again (every training step) costs a
/// lookup instead of a ranking.
fn decided() -> &'static Mutex<Decisions> {
    static CACHE: OnceLock<Mutex<Decisions>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(Decisions::default()))
}

/// The decisions' hasher: a multiply-rotate over the key's words (FxHash's step). A key is a
/// problem, a target and two small enums, about 60 words that the standard SipHash took about
/// 2,700 instructions to hash, twice per decision (the lookup and the insertion); these keys
/// are the program's own layers, so the table needs no defence against chosen collisions.
#[derive(Default)]
struct KeyHasher(u64);

impl KeyHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    fn write_u8(&mut self, v: u8) {
        self.add(v as u64);
    }
    fn write_u16(&mut self, v: u16) {
        self.add(v as u64);
    }
    fn write_u32(&mut self, v: u32) {
        self.add(v as u64);
    }
    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// `auto` over `families`: the model where it applies, else the rule (see the module
/// documentation). `None` when nothing in the pools runs the problem. Decisions are kept for
/// the life of the process (per problem, families, target and `GCONV_AUTO`).
pub fn choose(problem: &Problem, target: &Target, families: Families) -> Option<Choice> {
    let mode = auto_mode();
    let key = (
        *problem,
        families,
        *target,
        mode.clone().unwrap_or(AutoMode::Rule),
    );
    if mode.is_ok() {
        if let Some(hit) = decided()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return hit.clone();
        }
    }
    let keep = mode.is_ok();
    let choice = decide(problem, target, families, mode);
    if keep {
        decided()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, choice.clone());
    }
    choice
}

/// `auto` with a decision cache: a valid measured decision for `problem` on `device` — from
/// `cache`, else from the [`shipped_decisions`] — whose kernel is an allowed, eligible member
/// the gate still admits wins; otherwise [`choose`].
pub fn choose_tuned(
    problem: &Problem,
    target: &Target,
    families: Families,
    device: &str,
    cache: &DecisionCache,
) -> Option<Choice> {
    let measured = cache
        .lookup(problem, device)
        .or_else(|| shipped_decisions().lookup(problem, device));
    if let Some(d) = measured {
        if let Ok(cfg) = d.kernel.parse::<gconv_kernels::KernelConfig>() {
            if families.list().contains(&cfg.family) && eligible(&cfg) {
                if let Ok(admitted) = admit(&cfg, problem, target) {
                    return Some(Choice {
                        admitted,
                        source: Source::Tuned {
                            kernel_ms: d.kernel_ms,
                            vendor: d.vendor.clone(),
                        },
                    });
                }
            }
        }
    }
    choose(problem, target, families)
}

fn decide(
    problem: &Problem,
    target: &Target,
    families: Families,
    mode: Result<AutoMode, String>,
) -> Option<Choice> {
    let why_not = match mode {
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

    /// The shipped decision cache loads, every entry is valid for this build (a changed pool
    /// or feature set needs a new `gconv tune`), and every decided kernel is an eligible
    /// member the real gate admits for its problem; `choose_tuned` takes it.
    #[test]
    fn shipped_decisions_are_current_and_admissible() {
        let c = DecisionCache::from_bytes(DECISIONS, "models/h200/decisions.json")
            .expect("the shipped decisions load");
        assert_eq!(shipped_decisions().len(), c.len());
        assert_eq!(c.stale(), 0, "stale shipped decisions: re-run gconv tune");
        for d in c.decisions() {
            let p: Problem = d.problem.parse().expect("a problem key");
            let cfg: gconv_kernels::KernelConfig = d.kernel.parse().expect("a kernel name");
            assert!(eligible(&cfg), "{}: {}", d.problem, d.kernel);
            admit(&cfg, &p, &Target::H200)
                .unwrap_or_else(|r| panic!("{}: {} refused by the gate: {r}", d.problem, d.kernel));
            let empty = DecisionCache::default();
            let chosen = choose_tuned(&p, &Target::H200, Families::All, &d.device, &empty)
                .expect("a choice");
            assert!(
                matches!(chosen.source, Source::Tuned { .. }),
                "{}",
                d.problem
            );
            assert_eq!(chosen.admitted.config().to_string(), d.kernel);
        }
    }

    /// The f16 pools are the bf16 pools with the other 16-bit type (what lets a bf16 model
    /// decide f16: `Model::decides_dtype`), and the shipped model decides f16 but not f32.
    #[test]
    fn the_f16_pools_are_the_bf16_pools_and_the_model_decides_them() {
        for d in Direction::ALL {
            let names = |t: DType| -> Vec<String> {
                catalogue::pool(d, t, Families::All)
                    .iter()
                    .map(|c| c.to_string().replacen(t.token(), "DT", 1))
                    .collect()
            };
            let bf16 = names(DType::Bf16);
            assert!(!bf16.is_empty(), "{d}");
            assert_eq!(bf16, names(DType::F16), "{d}");
        }
        let model = shipped().expect("the shipped model loads");
        assert!(model.decides_dtype(DType::F16));
        assert!(!model.decides_dtype(DType::F32));
    }

    /// The load's priming layer parses and the shipped model covers it in every direction
    /// (else `shipped` would skip priming without a word).
    #[test]
    fn the_priming_layer_is_decided_by_the_model() {
        let model = shipped().expect("the shipped model loads");
        let p: Problem = PRIMING.parse().expect("the priming layer parses");
        for d in Direction::ALL {
            let p = p.with_direction(d);
            covers(model, &p, &Target::H200).expect("covered");
            assert!(
                model_choice(model, &p, &Target::H200, Families::All).is_some(),
                "{p}"
            );
        }
    }

    /// The dispatcher hands a problem to the vendor only on a measured decision where the
    /// vendor's channels-last engine beat every gconv candidate.
    #[test]
    fn the_vendor_runs_only_where_it_was_measured_faster() {
        let p: Problem = "fwd_bf16_n8_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .unwrap();
        let admitted = choose(&p, &Target::H200, Families::All).unwrap().admitted;
        let with = |source| Choice {
            admitted: admitted.clone(),
            source,
        };
        let tuned = |vendor: Option<(&str, f64)>| {
            with(Source::Tuned {
                kernel_ms: 0.010,
                vendor: vendor.map(|(e, ms)| (e.to_string(), ms)),
            })
        };
        assert_eq!(
            tuned(Some(("cudnn:eng1_k2", 0.008))).vendor_engine(),
            Some("cudnn:eng1_k2")
        );
        assert!(tuned(Some(("cudnn:eng1_k2", 0.012)))
            .source
            .to_string()
            .contains("cudnn:eng1_k2 0.0120 ms"));
        for c in [
            tuned(Some(("cudnn:eng1_k2", 0.010))),
            tuned(Some(("cudnn:eng1_k2", 0.012))),
            tuned(Some(("cudnn:nchw:eng1_k2", 0.008))),
            tuned(Some(("reference", 0.008))),
            tuned(None),
            with(Source::Model),
            with(Source::Rule("GCONV_AUTO=rule".into())),
        ] {
            assert_eq!(c.vendor_engine(), None, "{}", c.source);
        }
    }

    /// Where the ranking is in the order of the full predictions from: after the choice, or,
    /// with a pairwise model, after the places it re-orders.
    fn sorted_from(model: &crate::Model) -> usize {
        if model.reranks() {
            crate::model::RERANKED
        } else {
            1
        }
    }

    /// Where the screening cascade cut the member of the lowest full prediction before its last
    /// trees, `rank` still puts `auto`'s choice (the cascade's) first and the rest by their full
    /// predictions (after the places a pairwise model re-orders), that member after the first: on every registry problem in bf16, at its own batch and
    /// at batch 1 and 64 (so that a retrained model, which may cut that way on other problems
    /// than its predecessor, still meets some), of which the shipped model ranks a few so.
    #[test]
    fn the_ranking_keeps_the_cascade_choice_first_where_the_full_forest_differs() {
        let model = shipped().expect("the shipped model loads");
        let keys: std::collections::BTreeSet<String> = gconv_tune::registry::registry()
            .iter()
            .flat_map(|e| e.problems())
            .map(|p| p.to_string())
            .collect();
        let (mut ranked, mut differ) = (0, 0);
        let problems = keys.iter().flat_map(|k| {
            let p: Problem = k.parse().expect("a registry key parses");
            [p.n, 1, 64].map(|n| Problem {
                dtype: DType::Bf16,
                n,
                ..p
            })
        });
        for p in problems {
            let r = rank(model, &p, &Target::H200, Families::All);
            let Some(first) = r.ranked.first() else {
                continue;
            };
            let chosen = model_choice(model, &p, &Target::H200, Families::All).expect("a choice");
            assert_eq!(chosen.config(), first.admitted.config(), "{p}");
            assert!(
                r.ranked[sorted_from(model).min(r.ranked.len())..]
                    .windows(2)
                    .all(|w| w[0].predicted <= w[1].predicted),
                "{p}"
            );
            ranked += 1;
            differ += usize::from(r.ranked[1..].iter().any(|c| c.predicted < first.predicted));
        }
        assert!(ranked > 1000, "{ranked}");
        assert!(
            differ > 0,
            "no registry problem exercises a cascade that cut the full forest's best ({differ} of {ranked})"
        );
    }

    /// `auto`'s choice (`model_choice`, through `Model::best`) is the first of `rank` on every
    /// model-zoo layer, and `rank` lists every eligible admitted member once, the others after
    /// the choice by their full predictions.
    #[test]
    fn the_choice_is_the_first_of_the_ranking() {
        let model = shipped().expect("the shipped model loads");
        let zoo = gconv_tune::registry::registry_problems("model_zoo").unwrap();
        assert_eq!(zoo.len(), 81);
        for p in &zoo {
            let r = rank(model, p, &Target::H200, Families::All);
            let chosen = model_choice(model, p, &Target::H200, Families::All).expect("a choice");
            assert_eq!(chosen.config(), r.ranked[0].admitted.config(), "{p}");
            let admitted = catalogue::pool(p.direction, p.dtype, Families::All)
                .iter()
                .filter(|c| eligible(c) && admit(c, p, &Target::H200).is_ok())
                .count();
            assert_eq!(r.ranked.len(), admitted, "{p}");
            assert!(
                r.ranked[sorted_from(model).min(r.ranked.len())..]
                    .windows(2)
                    .all(|w| w[0].predicted <= w[1].predicted),
                "{p}"
            );
        }
    }

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
