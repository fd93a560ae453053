//! Admission: the one gate between a [`KernelConfig`] and a problem. [`validate`] says whether a
//! config is a kernel at all on an architecture (the shared arch rule, then the family's
//! structural rules); [`admit`] runs it, the shared problem rules (direction, dtype, 32-bit
//! offsets, grid limits) and the family's problem rules and geometry, once, and returns an
//! [`Admitted`] — the only value code generation ([`Admitted::emit`]), the cost model and
//! dispatch accept, so holding one proves the gates passed. No config is ever silently rewritten:
//! vector widths are caps that each family clamps in its plan.

use crate::config::KernelConfig;
use crate::device::DeviceLimits;
use crate::dispatch;
use crate::family::{KernelFamily, Plan, PlanSummary, ProblemFacts};
use crate::rejection::{Refused, Rejection};
use crate::source::{Arch, KernelSource};
use gconv_problem::{Problem, TensorRole};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// What a kernel is admitted for: the architecture its module may use and the device it is
/// planned on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    /// The architecture asked for (sm_90a admits the arch-specific math paths too).
    pub arch: Arch,
    /// The device's limits.
    pub device: DeviceLimits,
}

impl Target {
    /// An H200 compiled for sm_90a (every math path).
    pub const H200: Target = Target {
        arch: Arch::Sm90a,
        device: DeviceLimits::H200,
    };

    /// The H200 limits on an architecture.
    pub fn arch(arch: Arch) -> Target {
        Target {
            arch,
            ..Target::H200
        }
    }
}

impl Default for Target {
    fn default() -> Self {
        Target::H200
    }
}

/// The architecture a config's module is compiled for (its family decides: sm_90a for wgmma).
pub fn required_arch(cfg: &KernelConfig) -> Arch {
    dispatch::of(cfg.family).required_arch(cfg)
}

/// Is `cfg` a kernel at all on `arch`? The arch rule (a config whose module needs sm_90a is
/// refused on sm_90), then the family's structural rules.
pub fn validate(cfg: &KernelConfig, arch: Arch) -> Result<(), Rejection> {
    let fam = dispatch::of(cfg.family);
    let needs = fam.required_arch(cfg);
    if needs == Arch::Sm90a && arch != Arch::Sm90a {
        return Err(Rejection::ArchRequired {
            math: cfg.math.token(),
            needs: needs.nvrtc_arch(),
            arch: arch.nvrtc_arch(),
        });
    }
    fam.validate(cfg)
}

/// A config that passed [`validate`] on an architecture (only [`Validated::new`] makes one):
/// what the problem-independent half of the gate says, kept so that a pool validated once per
/// process ([`crate::catalogue::validated_pool`]) is admitted problem by problem without
/// re-validating every member ([`admit_validated`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Validated {
    cfg: KernelConfig,
    arch: Arch,
}

impl Validated {
    /// [`validate`]s `cfg` on `arch`.
    pub fn new(cfg: &KernelConfig, arch: Arch) -> Result<Validated, Rejection> {
        validate(cfg, arch)?;
        Ok(Validated { cfg: *cfg, arch })
    }

    /// The config.
    pub fn config(&self) -> &KernelConfig {
        &self.cfg
    }
}

/// What the gate says of a (kernel, problem) pair that passed it: the kernel that runs (the
/// config as its plan resolved it) and what its plan says of the launch (grid, shared memory,
/// registers) and of its time (the cost estimate, priced once), without the plan itself. Only a
/// [`Gate`] makes one, for its problem and target ([`Gate::screen`]); every [`Admitted`] holds
/// one. `auto` ranks a pool by these and admits only the member it chooses
/// (`gconv_learn::select`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gated {
    cfg: KernelConfig,
    grid: [u64; 3],
    smem_bytes: u64,
    registers: u32,
    /// `plan.cost(&target.device)`, priced once at admission: `auto` reads it three times per
    /// member (the pool's cheapest, the rule's pick, the features).
    cost: f64,
}

impl Gated {
    /// The answer of a plan of `cfg` summarised on the target's device.
    fn of(cfg: &KernelConfig, plan: PlanSummary) -> Gated {
        Gated {
            cfg: plan.resolved.unwrap_or(*cfg),
            grid: plan.grid,
            smem_bytes: plan.smem_bytes,
            registers: plan.registers,
            cost: plan.cost,
        }
    }
    /// The kernel that runs (a field the config left to a rule resolved by the plan).
    pub fn config(&self) -> &KernelConfig {
        &self.cfg
    }
    /// The main launch grid ([`Plan::grid`]).
    pub fn grid(&self) -> [u64; 3] {
        self.grid
    }
    /// Dynamic shared memory of the main launch, bytes ([`Plan::smem_bytes`]).
    pub fn smem_bytes(&self) -> u64 {
        self.smem_bytes
    }
    /// Estimated registers per thread ([`Plan::registers`]).
    pub fn registers(&self) -> u32 {
        self.registers
    }
    /// The family's estimated time in seconds on the target device ([`Plan::cost`], priced
    /// once at admission).
    pub fn cost_estimate(&self) -> f64 {
        self.cost
    }
}

impl AsRef<Gated> for Gated {
    fn as_ref(&self) -> &Gated {
        self
    }
}

/// A (kernel, problem) pair that passed every gate, with the family's plan for it. Only
/// [`admit`] (through a [`Gate`]) makes one.
#[derive(Clone)]
pub struct Admitted {
    gated: Gated,
    problem: Problem,
    target: Target,
    plan: Arc<dyn Plan>,
}

impl fmt::Debug for Admitted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Admitted")
            .field("kernel", &self.gated.cfg.to_string())
            .field("problem", &self.problem.to_string())
            .field("plan", &self.plan)
            .finish()
    }
}

impl Admitted {
    /// The kernel.
    pub fn config(&self) -> &KernelConfig {
        &self.gated.cfg
    }
    /// The problem it was admitted for.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }
    /// The target it was admitted on.
    pub fn target(&self) -> &Target {
        &self.target
    }
    /// The family's plan (grid, shared memory, registers).
    pub fn plan(&self) -> &dyn Plan {
        self.plan.as_ref()
    }
    /// What the gate says of it, without the plan.
    pub fn gated(&self) -> &Gated {
        &self.gated
    }
    /// The main launch grid.
    pub fn grid(&self) -> [u64; 3] {
        self.gated.grid
    }
    /// The family's estimated time in seconds on the target device (the plan's
    /// [`Plan::cost`], priced once at admission).
    pub fn cost_estimate(&self) -> f64 {
        self.gated.cost
    }
    /// The generated module.
    pub fn emit(&self) -> KernelSource {
        self.plan.emit()
    }
}

impl AsRef<Gated> for Admitted {
    fn as_ref(&self) -> &Gated {
        &self.gated
    }
}

/// The one admission step: [`validate`] on the target's architecture, the shared problem rules,
/// the family's problem rules and plan, the shared index and grid limits.
pub fn admit(
    cfg: &KernelConfig,
    problem: &Problem,
    target: &Target,
) -> Result<Admitted, Rejection> {
    admit_validated(&Validated::new(cfg, target.arch)?, problem, target)
}

/// [`admit`] of a config already [`validate`]d: the same answer, without validating it again
/// when it was validated on the target's architecture.
pub fn admit_validated(
    valid: &Validated,
    problem: &Problem,
    target: &Target,
) -> Result<Admitted, Rejection> {
    Gate::new(problem, target).admit(valid)
}

/// Admission of many configs on one problem and target: the rule that reads only the problem
/// (its 32-bit offsets) is checked once, by [`Gate::new`], and each config then pays for its own
/// rules and plan; the answers are [`admit_validated`]'s (which is one gate used once), the
/// same rejection included (the problem's rule still comes after the family's).
pub struct Gate {
    problem: Problem,
    /// What every member's summary reads of the problem alone, derived once, when a summary
    /// first asks ([`Gate::screen`], [`Gate::admits`]; [`Gate::admit`] never does, so that
    /// [`admit`] of one config pays nothing for it).
    facts: OnceLock<ProblemFacts>,
    target: Target,
    /// [`check_32bit_offsets`] of the problem.
    offsets: Result<(), Rejection>,
}

impl Gate {
    /// The gate of `problem` on `target`.
    pub fn new(problem: &Problem, target: &Target) -> Gate {
        Gate {
            problem: *problem,
            facts: OnceLock::new(),
            target: *target,
            offsets: check_32bit_offsets(problem),
        }
    }

    /// The problem it admits for.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// The problem's facts, derived on the first call.
    fn facts(&self) -> &ProblemFacts {
        self.facts.get_or_init(|| ProblemFacts::of(&self.problem))
    }

    /// The target it admits on.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// [`admit_validated`] on the gate's problem and target.
    pub fn admit(&self, valid: &Validated) -> Result<Admitted, Rejection> {
        let device = &self.target.device;
        let plan = self.pass(
            valid,
            |fam, cfg| fam.plan(cfg, self.problem(), device),
            |p| p.grid(),
        )?;
        Ok(Admitted {
            gated: Gated::of(&valid.cfg, PlanSummary::of(plan.as_ref(), device)),
            problem: *self.problem(),
            target: self.target,
            plan,
        })
    }

    /// What [`Gate::admit`] would admit, without keeping the plan (which is never allocated):
    /// the same rejection, or the admitted pair's [`Admitted::gated`].
    pub fn screen(&self, valid: &Validated) -> Result<Gated, Rejection> {
        let device = &self.target.device;
        let summary = self.pass(
            valid,
            |fam, cfg| fam.plan_summary(cfg, self.facts(), device),
            |s| s.grid,
        )?;
        Ok(Gated::of(&valid.cfg, summary))
    }

    /// Whether [`Gate::screen`] admits `valid`, and its answer where it does: the same
    /// [`Gated`], without writing why a member is refused (`auto` reads only the members
    /// that pass, unless it builds a ranking).
    pub fn admits(&self, valid: &Validated) -> Option<Gated> {
        let device = &self.target.device;
        let summary: Result<PlanSummary, Refused> = self.pass(
            valid,
            |fam, cfg| fam.plan_summary_or_refused(cfg, self.facts(), device),
            |s| s.grid,
        );
        Some(Gated::of(&valid.cfg, summary.ok()?))
    }

    /// The gates in their order around the family's plan (`plan`, whose launch grid `grid`
    /// reads): the arch rule when the config was validated on another architecture, the
    /// direction and dtype, the family's rules and plan, the problem's 32-bit offsets, the grid
    /// limits.
    ///
    /// `E` is how a refusal answers: the [`Rejection`], or [`Refused`] alone.
    fn pass<T, E: From<Rejection>>(
        &self,
        valid: &Validated,
        plan: impl FnOnce(&'static dyn KernelFamily, &KernelConfig) -> Result<T, E>,
        grid: impl FnOnce(&T) -> [u64; 3],
    ) -> Result<T, E> {
        let (cfg, problem) = (&valid.cfg, self.problem());
        if valid.arch != self.target.arch {
            validate(cfg, self.target.arch)?;
        }
        if cfg.direction != problem.direction {
            return Err(Rejection::DirectionMismatch {
                config: cfg.direction.token(),
                problem: problem.direction.token(),
            }
            .into());
        }
        if cfg.dtype != problem.dtype {
            return Err(Rejection::DtypeMismatch {
                config: cfg.dtype.token(),
                problem: problem.dtype.token(),
            }
            .into());
        }
        let planned = plan(dispatch::of(cfg.family), cfg)?;
        if let Err(r) = &self.offsets {
            return Err(r.clone().into());
        }
        check_grid(grid(&planned))?;
        Ok(planned)
    }
}

/// 32-bit offsets (every family indexes with `int`): X offsets range over
/// [-(padding reach), elements); W and Y over elements.
fn check_32bit_offsets(problem: &Problem) -> Result<(), Rejection> {
    let [_, h, w] = problem.input;
    let reach = (problem.pad[0] * h * w + problem.pad[1] * w + problem.pad[2]) * problem.c;
    let limit = i32::MAX as u64;
    let x_extent = problem.elements(TensorRole::X) + reach + problem.c;
    for (tensor, extent) in [
        ("X", x_extent),
        ("W", problem.elements(TensorRole::W)),
        ("Y", problem.elements(TensorRole::Y)),
    ] {
        if extent > limit {
            return Err(Rejection::IndexExceeds32Bit { tensor, extent });
        }
    }
    Ok(())
}

/// Launch-grid limits (x up to 2^31 − 1, y and z up to 65535).
fn check_grid(g: [u64; 3]) -> Result<(), Rejection> {
    for (axis, size, lim) in [
        ("x", g[0], i32::MAX as u64),
        ("y", g[1], 65_535),
        ("z", g[2], 65_535),
    ] {
        if size > lim {
            return Err(Rejection::GridTooLarge {
                axis,
                size,
                limit: lim,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FastPath;
    use gconv_problem::{DType, Direction};

    fn prob(key: &str) -> Problem {
        key.parse().unwrap()
    }

    fn can_implement(c: &KernelConfig, p: &Problem) -> Result<(), Rejection> {
        admit(c, p, &Target::H200).map(|_| ())
    }

    #[test]
    fn can_implement_rules() {
        let base = KernelConfig::default();
        let dense = prob("fwd_bf16_n2_g1_c64_k64_i8x8_f3x3_s1x1_p1x1_d1x1");
        let r = |c: KernelConfig, p: &Problem| can_implement(&c, p).map_err(|e| e.reason());
        assert_eq!(r(base, &dense), Ok(()));
        assert_eq!(
            r(base, &dense.with_dtype(DType::F16)),
            Err("dtype_mismatch")
        );
        assert_eq!(
            r(base, &dense.with_direction(Direction::Dgrad)),
            Err("direction_mismatch")
        );
        let pw = KernelConfig {
            fast_path: FastPath::Pointwise,
            ..base
        };
        assert_eq!(r(pw, &dense), Err("pointwise_inapplicable"));
        assert_eq!(
            r(pw, &prob("fwd_bf16_n2_g1_c64_k64_i8x8_f1x1_s1x1_p0x0_d1x1")),
            Ok(())
        );
        assert_eq!(
            r(pw, &prob("fwd_bf16_n2_g1_c64_k64_i8x8_f1x1_s2x2_p0x0_d1x1")),
            Err("pointwise_inapplicable")
        );
        let gm4 = KernelConfig {
            group_merge: 4,
            ..base
        };
        // gm 4 over 6 groups: a tail of 2 of 8 merged groups; over 5 groups, 3 of 8 (more than
        // a third) is refused.
        assert_eq!(
            r(
                gm4,
                &prob("fwd_bf16_n2_g6_c24_k24_i8x8_f3x3_s1x1_p1x1_d1x1")
            ),
            Ok(())
        );
        assert_eq!(
            r(
                gm4,
                &prob("fwd_bf16_n2_g5_c20_k20_i8x8_f3x3_s1x1_p1x1_d1x1")
            ),
            Err("group_merge_tail")
        );
        assert_eq!(
            r(
                gm4,
                &prob("fwd_bf16_n2_g8_c64_k64_i8x8_f3x3_s1x1_p1x1_d1x1")
            ),
            Ok(())
        );
        assert_eq!(
            r(
                gm4,
                &prob("fwd_bf16_n2_g8_c128_k128_i8x8_f3x3_s1x1_p1x1_d1x1")
            ),
            Err("group_merge_exceeds_tile")
        );
        // 2^31 elements of X overflow the 32-bit offsets.
        let big = prob("fwd_bf16_n1024_g1_c256_k8_i128x64_f1x1_s1x1_p0x0_d1x1");
        let e = can_implement(&base, &big).unwrap_err();
        assert_eq!(e.reason(), "index_exceeds_32bit");
        assert!(e.is_unsupported());
    }

    #[test]
    fn admission_is_the_gate_and_the_plan() {
        let c = KernelConfig::default();
        let p = prob("fwd_bf16_n2_g4_c32_k32_i9x9_f3x3_s1x1_p1x1_d1x1");
        let a = admit(&c, &p, &Target::H200).unwrap();
        assert_eq!((a.config(), a.problem()), (&c, &p));
        assert_eq!(a.grid(), [2, 1, 4]);
        assert_eq!(a.emit(), a.emit());
        assert!(a.cost_estimate() > 0.0);
        // The architecture asked for is the target's: wgmma needs sm_90a.
        let w: KernelConfig = "igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_gen"
            .parse()
            .unwrap();
        let p2 = prob("fwd_bf16_n2_g2_c256_k256_i9x9_f3x3_s1x1_p1x1_d1x1");
        assert!(admit(&w, &p2, &Target::H200).is_ok());
        assert_eq!(
            admit(&w, &p2, &Target::arch(Arch::Sm90))
                .unwrap_err()
                .reason(),
            "arch_required"
        );
        // A family rule keeps its key through the shared type.
        let d = crate::direct::config(DType::Bf16, [128, 64, 16], 3, [8, 4]);
        let e = validate(&d, Arch::Sm90).unwrap_err();
        assert_eq!(e.reason(), "direct_thread_mapping");
        assert!(!e.is_unsupported());
    }

    /// The pools validated once per process, admitted with `admit_validated`, answer what
    /// `admit` answers member by member (the same config, plan and cost, or the same
    /// rejection), in every direction and dtype, on both architectures, and with a config
    /// validated on the other architecture than the target's; `Gate::screen` answers the same
    /// without a plan (the admitted pair's grid, shared memory, registers and cost).
    #[test]
    fn admitting_a_validated_pool_is_admit() {
        let mut n = 0;
        for key in [
            "fwd_bf16_n8_g32_c32_k32_i28x28_f3x3_s1x1_p1x1_d1x1",
            "fwd_bf16_n8_g4_c256_k256_i14x14_f1x1_s1x1_p0x0_d1x1",
            "fwd_bf16_n4_g8_c64_k128_i9x9_f5x5_s2x2_p2x2_d1x1",
            "fwd_bf16_n2_g16_c16_k16_i6x10x10_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        ] {
            for dir in Direction::ALL {
                for dt in DType::ALL {
                    let p = prob(key).with_direction(dir).with_dtype(dt);
                    for arch in [Arch::Sm90, Arch::Sm90a] {
                        let t = Target::arch(arch);
                        let other = if arch == Arch::Sm90 {
                            Arch::Sm90a
                        } else {
                            Arch::Sm90
                        };
                        for (c, valid) in crate::catalogue::validated_pool(dir, dt, arch) {
                            let want = admit(c, &p, &t);
                            let got = match valid {
                                Ok(v) => admit_validated(v, &p, &t),
                                Err(r) => Err(r.clone()),
                            };
                            let across = Validated::new(c, other)
                                .map_or_else(|_| admit(c, &p, &t), |v| admit_validated(&v, &p, &t));
                            // Screened without a plan: the admitted pair's summary, or the
                            // same rejection.
                            let screened = match valid {
                                Ok(v) => Gate::new(&p, &t).screen(v),
                                Err(r) => Err(r.clone()),
                            };
                            // Without why: the same answer where it passes, and a refusal
                            // where it does not.
                            if let Ok(v) = valid {
                                assert_eq!(
                                    Gate::new(&p, &t).admits(v),
                                    screened.as_ref().ok().copied(),
                                    "{c} on {p}"
                                );
                            }
                            match (&want, &screened) {
                                (Ok(w), Ok(s)) => {
                                    assert_eq!(w.gated(), s, "{c} on {p}");
                                    let plan = w.plan();
                                    assert_eq!(
                                        (s.grid(), s.smem_bytes(), s.registers()),
                                        (plan.grid(), plan.smem_bytes(), plan.registers()),
                                        "{c} on {p}"
                                    );
                                    assert_eq!(
                                        s.cost_estimate().to_bits(),
                                        plan.cost(&t.device).to_bits(),
                                        "{c} on {p}"
                                    );
                                }
                                (Err(w), Err(s)) => {
                                    assert_eq!(w, s, "{c} on {p}");
                                    assert_eq!(w.to_string(), s.to_string(), "{c} on {p}");
                                }
                                _ => panic!("{c} on {p}: admit {want:?}, screened {screened:?}"),
                            }
                            for got in [got, across] {
                                match (&want, &got) {
                                    (Ok(w), Ok(g)) => {
                                        assert_eq!(w.config(), g.config(), "{c} on {p}");
                                        assert_eq!(w.grid(), g.grid(), "{c} on {p}");
                                        assert_eq!(
                                            w.cost_estimate().to_bits(),
                                            g.cost_estimate().to_bits(),
                                            "{c} on {p}"
                                        );
                                    }
                                    (Err(w), Err(g)) => {
                                        assert_eq!(w, g, "{c} on {p}");
                                        assert_eq!(w.to_string(), g.to_string(), "{c} on {p}");
                                    }
                                    _ => panic!("{c} on {p}: admit {want:?}, validated {got:?}"),
                                }
                                n += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(n > 5000, "{n} pairs");
    }
}
