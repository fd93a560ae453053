//! The one interface every kernel family implements, and the one place that dispatches on
//! [`Family`] (`crate::dispatch::of`). A family owns its structural rules, its problem rules and geometry (the
//! [`Plan`], computed once per (kernel, problem)), its cost model, its pools and its code
//! generation; admission ([`crate::admit`](mod@crate::admit)), the pool catalogue ([`crate::catalogue`]) and
//! `auto` ([`crate::select`]) only ever talk to a family through [`KernelFamily`].
//!
//! Adding a direction to a family touches that family's folder (its rules, plan, emitter and
//! pool for the direction), the catalogue's tests and the family's tests — not the identity
//! files (`config.rs`, `name.rs`, `rejection.rs`).

use crate::config::{Family, KernelConfig};
use crate::device::DeviceLimits;
use crate::rejection::{Refused, Rejection};
use crate::source::{Arch, KernelSource};
use gconv_problem::{DType, Direction, Problem};
use std::fmt;
use std::sync::Arc;

/// What each family answers. Implemented by `crate::igemm::Igemm` and `crate::direct::Direct`.
pub trait KernelFamily: Sync {
    /// The family this implementation serves.
    fn family(&self) -> Family;

    /// The architecture a config's module is compiled for (sm_90a for arch-specific
    /// instructions such as wgmma, else sm_90).
    fn required_arch(&self, cfg: &KernelConfig) -> Arch;

    /// The family's structural rules: is `cfg` a kernel of this family at all (any problem)?
    fn validate(&self, cfg: &KernelConfig) -> Result<(), Rejection>;

    /// The family's problem rules and its geometry for `problem` on `device`, computed once.
    /// Called by [`crate::admit::admit`] after [`KernelFamily::validate`] and the shared
    /// direction and dtype checks; the shared index and grid limits are checked on the result.
    fn plan(
        &self,
        cfg: &KernelConfig,
        problem: &Problem,
        device: &DeviceLimits,
    ) -> Result<Arc<dyn Plan>, Rejection>;

    /// [`KernelFamily::plan`]'s answer as its [`PlanSummary`] on `device`, without keeping the
    /// plan: the same rules in the same order, the same rejection. `auto` gates its whole pool
    /// on every decision and reads only this of each member; the families plan on the stack
    /// instead of allocating a plan that is dropped at once.
    ///
    /// `facts` are the problem's ([`ProblemFacts::of`]), computed once by the gate for the
    /// whole pool rather than by every member's plan.
    fn plan_summary(
        &self,
        cfg: &KernelConfig,
        facts: &ProblemFacts,
        device: &DeviceLimits,
    ) -> Result<PlanSummary, Rejection> {
        self.plan(cfg, facts.problem(), device)
            .map(|plan| PlanSummary::of(plan.as_ref(), device))
    }

    /// [`KernelFamily::plan_summary`] where only whether the member passes is read (`auto`'s
    /// decisions): the same summary, or [`Refused`] where it answers a rejection (a family may
    /// then skip writing the rule's message).
    fn plan_summary_or_refused(
        &self,
        cfg: &KernelConfig,
        facts: &ProblemFacts,
        device: &DeviceLimits,
    ) -> Result<PlanSummary, Refused> {
        self.plan_summary(cfg, facts, device).map_err(Refused::from)
    }

    /// The family's default pool for a direction and dtype (empty when it has none). Every
    /// member passes [`KernelFamily::validate`].
    fn pool(&self, direction: Direction, dtype: DType) -> Vec<KernelConfig>;

    /// Whether `auto` considers pool member `cfg` for `problem` (the family's measured regimes).
    fn auto_considers(&self, cfg: &KernelConfig, problem: &Problem) -> bool {
        let _ = (cfg, problem);
        true
    }

    /// `auto`'s preference among the admitted members it considers (lower is preferred; the
    /// cheapest of the most preferred wins). Default: all equal.
    fn auto_preference(&self, cfg: &KernelConfig) -> u32 {
        let _ = cfg;
        0
    }
}

/// A family's geometry for one admitted (kernel, problem) pair, and what follows from it.
pub trait Plan: Send + Sync + fmt::Debug {
    /// The main launch grid (x, y, z).
    fn grid(&self) -> [u64; 3];
    /// Dynamic shared memory of the main launch, bytes.
    fn smem_bytes(&self) -> u64;
    /// Estimated registers per thread.
    fn registers(&self) -> u32;
    /// Estimated time in seconds on `device` (the family's cost model, behind `auto`).
    fn cost(&self, device: &DeviceLimits) -> f64;
    /// The generated module (deterministic: the same plan gives byte-identical source).
    fn emit(&self) -> KernelSource;
    /// The config that runs, when the plan resolved a field the config left to a rule (a
    /// split-K degree of 0, sized by `crate::shared::split_degree`); `None` when it runs as
    /// asked. Admission reports this config, so its name is what ran.
    fn resolved_config(&self) -> Option<KernelConfig> {
        None
    }
}

/// What admission and `auto` read of a [`Plan`] on a device: the grid, the shared memory and
/// registers (the occupancy), the cost estimate (priced once) and the resolved config.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlanSummary {
    /// [`Plan::grid`].
    pub grid: [u64; 3],
    /// [`Plan::smem_bytes`].
    pub smem_bytes: u64,
    /// [`Plan::registers`].
    pub registers: u32,
    /// [`Plan::cost`] on the device.
    pub cost: f64,
    /// [`Plan::resolved_config`].
    pub resolved: Option<KernelConfig>,
}

impl PlanSummary {
    /// The summary of `plan` on `device`.
    pub fn of<P: Plan + ?Sized>(plan: &P, device: &DeviceLimits) -> PlanSummary {
        PlanSummary::priced(plan, plan.cost(device))
    }

    /// The summary of `plan` whose [`Plan::cost`] on the device is `cost` (a family that
    /// prices its plan with the gate's [`ProblemFacts`] gives the same number).
    pub fn priced<P: Plan + ?Sized>(plan: &P, cost: f64) -> PlanSummary {
        PlanSummary {
            grid: plan.grid(),
            smem_bytes: plan.smem_bytes(),
            registers: plan.registers(),
            cost,
            resolved: plan.resolved_config(),
        }
    }
}

/// What every member's plan reads of the problem alone, computed once per problem: the gate
/// ([`crate::admit::Gate`]) makes it once and hands it to every member's
/// [`KernelFamily::plan_summary`], instead of each plan recomputing it (a pool has about 110
/// members). Each value is the [`Problem`] method's answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProblemFacts {
    problem: Problem,
    /// [`Problem::min_bytes`].
    min_bytes: f64,
    /// `N · Do·Ho·Wo`: the output pixels of every image (the forward GEMM's M, the
    /// backward-weight GEMM's K).
    out_pixels: u64,
    /// The forward convolution that computes the problem: a backward-data problem's
    /// [`Problem::dgrad_dual`] where it has one, else the problem itself.
    forward: Problem,
}

impl ProblemFacts {
    /// The facts of `problem`.
    pub fn of(problem: &Problem) -> ProblemFacts {
        ProblemFacts {
            problem: *problem,
            min_bytes: problem.min_bytes(),
            out_pixels: problem.n * problem.output_volume(),
            forward: match problem.direction {
                Direction::Dgrad => problem.dgrad_dual().unwrap_or(*problem),
                Direction::Fwd | Direction::Wgrad => *problem,
            },
        }
    }

    /// The problem.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// [`Problem::min_bytes`]: the compulsory bytes of the problem's three tensors.
    pub fn min_bytes(&self) -> f64 {
        self.min_bytes
    }

    /// `N · Do·Ho·Wo` ([`Problem::output_volume`] of every image).
    pub fn out_pixels(&self) -> u64 {
        self.out_pixels
    }

    /// The forward convolution that computes the problem: a backward-data problem's
    /// [`Problem::dgrad_dual`] where it has one, else the problem itself (the direct family's
    /// `forward_problem`).
    pub fn forward(&self) -> &Problem {
        &self.forward
    }
}
