//! How a latency is measured: the repeat policy (warm-up launches, timed rounds, launches per
//! round), its adaptive form and early stop, as pure functions of measured times.
//!
//! The GPU timing module (`gconv_cuda::timing`, for gconv's kernels and the cuDNN baseline
//! alike) and the CPU executor (`gconv_tune::cpu`) both drive a [`Session`]: it says what to
//! run next ([`Step`]) and is told what was measured, so that every decision (how many warm-up
//! launches, how many launches per round, how many rounds, whether to stop early) is made here,
//! once, and can be tested without a device.
//!
//! # The measurement
//!
//! 1. **Probe**: the first warm-up launch is timed on its own (`probe_ms`).
//! 2. **Early stop at the probe** (with [`EarlyStop`] and a known best): when
//!    `probe_ms > probe_factor × best`, the **confirmation** runs: one untimed launch, then
//!    as many launches as last a round ([`Adaptive::round_ms`]) at the probe's speed, back to
//!    back between two events (`Step::Confirm`), and the faster of the probe and their
//!    per-launch time becomes `probe_ms`; when it is still above, the measurement ends here
//!    and the latency is it (when not, the burst counts as warm-up). A
//!    single cold or disturbed launch must not condemn a kernel: an H200 sweep had a 4.4 µs
//!    kernel stopped at a 53 µs probe, and, with a second launch timed alone as the
//!    confirmation, a 6.7 µs kernel stopped at 158 µs twice (re-timed at 6.7 µs; the likely
//!    cause, a host thread descheduled between an event and its launch while every CPU
//!    compiles kernels, stalls a launch timed alone: the untimed lead launch keeps the device
//!    busy meanwhile, and a burst spreads a stall over its launches).
//! 3. **Warm-up**: the remaining warm-up launches, untimed. Fixed: `warmup − 1` more. Adaptive:
//!    only as many as fit in [`Adaptive::warmup_ms`] at the probe's speed (0 to `warmup − 1`).
//! 4. **Launches per round** (`iters`). Fixed: `iters`. Adaptive: enough for one round to last
//!    [`Adaptive::round_ms`] at the probe's speed, between 1 and `iters`.
//! 5. **First rounds**: `after_rounds` rounds with early stop, else (adaptive) `min_rounds`,
//!    else all `rounds`. With early stop and a known best, a median of these rounds above
//!    `factor × best` ends the measurement (the latency is that median).
//! 6. **Remaining rounds**. Fixed: up to `rounds`. Adaptive: up to the count whose time at the
//!    median so far fills [`Adaptive::budget_ms`], between `min_rounds` and `rounds`.
//!
//! The latency is the median of the rounds' per-launch times. A kernel within `factor` of the
//! best is never stopped early (1.5 by default: a kernel 50 % slower than the best verified one
//! so far cannot be the best, whatever the noise of three rounds); the best itself, and every
//! kernel close to it, is timed in full.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Adaptive repeats: the counts follow the measured duration, so that a 5-µs kernel and a
/// 5-ms kernel each cost a bounded time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Adaptive {
    /// Timed rounds at least (capped by the policy's `rounds`).
    pub min_rounds: u32,
    /// A round lasts at least this long when `iters` allows (milliseconds).
    pub round_ms: f64,
    /// Rounds beyond `min_rounds` are timed while their total stays within this (milliseconds
    /// of measured time, per kernel).
    pub budget_ms: f64,
    /// Warm-up launches after the probe stop once they would exceed this (milliseconds).
    pub warmup_ms: f64,
}

impl Default for Adaptive {
    fn default() -> Self {
        Adaptive {
            min_rounds: 5,
            round_ms: 1.0,
            budget_ms: 25.0,
            warmup_ms: 2.0,
        }
    }
}

/// Early stop: a kernel clearly slower than the best verified latency known on the same
/// problem is not timed further.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EarlyStop {
    /// Stop when the median of the first `after_rounds` rounds exceeds `factor × best`.
    pub factor: f64,
    /// Rounds timed before that check.
    pub after_rounds: u32,
    /// Stop right after the probe when the probe exceeds `probe_factor × best`.
    pub probe_factor: f64,
}

impl Default for EarlyStop {
    fn default() -> Self {
        EarlyStop {
            factor: DEFAULT_EARLY_STOP_FACTOR,
            after_rounds: 3,
            probe_factor: 10.0,
        }
    }
}

/// The default early-stop factor.
pub const DEFAULT_EARLY_STOP_FACTOR: f64 = 1.5;

/// The smallest early-stop factor accepted: below it, noise could stop a kernel that is within
/// a few percent of the best.
pub const MIN_EARLY_STOP_FACTOR: f64 = 1.1;

impl EarlyStop {
    /// Early stop with this factor and the default checks; `None` for a factor below
    /// [`MIN_EARLY_STOP_FACTOR`] or not finite.
    pub fn with_factor(factor: f64) -> Option<EarlyStop> {
        (factor.is_finite() && factor >= MIN_EARLY_STOP_FACTOR).then(|| EarlyStop {
            factor,
            probe_factor: EarlyStop::default().probe_factor.max(factor),
            ..EarlyStop::default()
        })
    }
}

/// How to measure one kernel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RepeatPolicy {
    /// Warm-up launches (the first is the probe); at most this many when adaptive.
    pub warmup: u32,
    /// Timed rounds; at most this many when adaptive.
    pub rounds: u32,
    /// Launches per round; at most this many when adaptive.
    pub iters: u32,
    /// Adaptive counts; `None`: exactly `warmup`, `rounds` × `iters`.
    pub adaptive: Option<Adaptive>,
    /// Early stop; `None`: never.
    pub early_stop: Option<EarlyStop>,
}

impl RepeatPolicy {
    /// A fixed policy (no adaptation, no early stop).
    pub fn fixed(warmup: u32, rounds: u32, iters: u32) -> RepeatPolicy {
        RepeatPolicy {
            warmup,
            rounds,
            iters,
            adaptive: None,
            early_stop: None,
        }
    }

    fn rounds_max(&self) -> u32 {
        self.rounds.max(1)
    }

    fn iters_max(&self) -> u32 {
        self.iters.max(1)
    }

    /// Whether the first warm-up launch is timed on its own: always, except for a fixed policy
    /// without warm-up.
    pub fn probes(&self) -> bool {
        self.warmup > 0 || self.adaptive.is_some() || self.early_stop.is_some()
    }

    /// Warm-up launches after the probe.
    pub fn extra_warmup(&self, probe_ms: f64) -> u32 {
        let rest = self.warmup.saturating_sub(1);
        match self.adaptive {
            None => rest,
            Some(a) => {
                let fit = if probe_ms > 0.0 && probe_ms.is_finite() {
                    (a.warmup_ms / probe_ms).ceil() - 1.0
                } else {
                    rest as f64
                };
                (fit.max(0.0) as u32).min(rest)
            }
        }
    }

    /// Launches per round for a probe of `probe_ms` (`None`: no probe ran).
    pub fn iters_for(&self, probe_ms: Option<f64>) -> u32 {
        match (self.adaptive, probe_ms) {
            (Some(a), Some(p)) if p > 0.0 && p.is_finite() => {
                let want = (a.round_ms / p).ceil();
                (want.max(1.0) as u32).clamp(1, self.iters_max())
            }
            _ => self.iters_max(),
        }
    }

    /// Launches of the probe's confirmation burst: as many as last a round
    /// ([`Adaptive::round_ms`], its default for a fixed policy) at the probe's speed, between 1
    /// and the launches per round at most (a kernel about to be stopped is not timed for long).
    pub fn confirm_launches(&self, probe_ms: f64) -> u32 {
        let round_ms = self.adaptive.unwrap_or_default().round_ms;
        if !(probe_ms > 0.0 && probe_ms.is_finite()) {
            return 1;
        }
        ((round_ms / probe_ms).ceil().max(1.0) as u32).clamp(1, self.iters_max().max(1))
    }

    /// Rounds timed before the first decision.
    pub fn first_rounds(&self) -> u32 {
        let n = match (self.early_stop, self.adaptive) {
            (Some(e), _) => e.after_rounds.max(1),
            (None, Some(a)) => a.min_rounds.max(1),
            (None, None) => self.rounds_max(),
        };
        n.min(self.rounds_max())
    }

    /// Total rounds once the first ones gave a median of `median_ms` per launch at `iters`
    /// launches per round.
    pub fn total_rounds(&self, median_ms: f64, iters: u32) -> u32 {
        let max = self.rounds_max();
        match self.adaptive {
            None => max,
            Some(a) => {
                let min = a.min_rounds.clamp(1, max);
                let round = median_ms * iters.max(1) as f64;
                let fit = if round > 0.0 && round.is_finite() {
                    (a.budget_ms / round).ceil()
                } else {
                    max as f64
                };
                (fit.max(0.0).min(max as f64) as u32).clamp(min, max)
            }
        }
    }

    /// Early stop right after the probe?
    pub fn stop_at_probe(&self, probe_ms: f64, best_ms: Option<f64>) -> bool {
        match (self.early_stop, usable(best_ms)) {
            (Some(e), Some(b)) => probe_ms > e.probe_factor * b,
            _ => false,
        }
    }

    /// Early stop after the first rounds, whose median is `median_ms`?
    pub fn stop_after_rounds(&self, median_ms: f64, best_ms: Option<f64>) -> bool {
        match (self.early_stop, usable(best_ms)) {
            (Some(e), Some(b)) => median_ms > e.factor * b,
            _ => false,
        }
    }

    /// One line describing the policy, for `--help`-like messages and logs.
    pub fn describe(&self) -> String {
        let mut s = match self.adaptive {
            None => format!(
                "{} warm-up run(s), {} rounds × {} run(s)",
                self.warmup, self.rounds, self.iters
            ),
            Some(a) => format!(
                "adaptive: up to {} warm-up run(s) ({} ms), {}..{} rounds of up to {} run(s) ({} ms per round, {} ms per kernel)",
                self.warmup.max(1),
                a.warmup_ms,
                a.min_rounds.clamp(1, self.rounds_max()),
                self.rounds_max(),
                self.iters_max(),
                a.round_ms,
                a.budget_ms
            ),
        };
        match self.early_stop {
            Some(e) => s.push_str(&format!(
                "; early stop above {}x the best after {} round(s) ({}x after the probe)",
                e.factor, e.after_rounds, e.probe_factor
            )),
            None => s.push_str("; no early stop"),
        }
        s
    }
}

fn usable(best: Option<f64>) -> Option<f64> {
    best.filter(|b| *b > 0.0 && b.is_finite())
}

/// What the caller runs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// One launch, timed on its own; report it with [`Session::probe_done`].
    Probe,
    /// One untimed launch, then `launches` launches back to back, timed together; report
    /// their per-launch time with [`Session::confirm_done`].
    Confirm {
        /// The timed launches.
        launches: u32,
    },
    /// Untimed launches; report with [`Session::warmup_done`].
    Warmup {
        /// How many.
        launches: u32,
    },
    /// Timed rounds of `iters` launches each; report the per-launch time of each round with
    /// [`Session::rounds_done`].
    Rounds {
        /// How many rounds.
        rounds: u32,
        /// Launches per round (the same for every round of a measurement).
        iters: u32,
        /// True for the first batch of rounds (the caller may capture its graph then).
        first: bool,
    },
    /// Finished; read [`Session::outcome`].
    Done,
}

/// Why a measurement stopped early.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stop {
    /// Right after the probe.
    Probe {
        /// The probe's time.
        probe_ms: f64,
        /// The best known latency.
        best_ms: f64,
        /// The factor exceeded.
        factor: f64,
    },
    /// After the first rounds.
    Rounds {
        /// Rounds timed.
        rounds: u32,
        /// Their median.
        median_ms: f64,
        /// The best known latency.
        best_ms: f64,
        /// The factor exceeded.
        factor: f64,
    },
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Probe {
                probe_ms,
                best_ms,
                factor,
            } => write!(
                f,
                "stopped early after the probe: {} ms > {factor}x the best {} ms",
                sig4(*probe_ms),
                sig4(*best_ms)
            ),
            Stop::Rounds {
                rounds,
                median_ms,
                best_ms,
                factor,
            } => write!(
                f,
                "stopped early after {rounds} round(s): median {} ms > {factor}x the best {} ms",
                sig4(*median_ms),
                sig4(*best_ms)
            ),
        }
    }
}

fn sig4(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = (3 - mag).max(0) as usize;
    format!("{x:.decimals$}")
}

/// Summary statistics of per-launch round times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// Median (mean of the middle two for even counts).
    pub median: f64,
    /// Fastest.
    pub min: f64,
    /// Slowest.
    pub max: f64,
    /// Mean.
    pub mean: f64,
    /// 90th percentile (nearest rank).
    pub p90: f64,
}

/// Median of a list (mean of the middle two for even lengths); NaN for an empty list.
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    }
}

/// Statistics of a list; every field NaN for an empty list.
pub fn stats(v: &[f64]) -> Stats {
    if v.is_empty() {
        return Stats {
            median: f64::NAN,
            min: f64::NAN,
            max: f64::NAN,
            mean: f64::NAN,
            p90: f64::NAN,
        };
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let rank = ((0.9 * n as f64).ceil() as usize).clamp(1, n);
    Stats {
        median: median(&s),
        min: s[0],
        max: s[n - 1],
        mean: s.iter().sum::<f64>() / n as f64,
        p90: s[rank - 1],
    }
}

/// What a finished measurement found.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Per-launch time of each timed round, in order (the probe alone when stopped there).
    pub samples_ms: Vec<f64>,
    /// Statistics of `samples_ms`; `median` is the reported latency.
    pub stats: Stats,
    /// Launches per round (the confirmation's when stopped at the probe).
    pub iters: u32,
    /// Timed rounds (1, the confirmation, when stopped at the probe).
    pub rounds: u32,
    /// Warm-up launches run, the probe included (and the confirmation's untimed lead).
    pub warmup: u32,
    /// The probe's time, when one ran.
    pub probe_ms: Option<f64>,
    /// Why it stopped early, if it did.
    pub stopped: Option<Stop>,
    /// The policy used.
    pub policy: RepeatPolicy,
}

impl Outcome {
    /// The reported latency (median per-launch time), milliseconds.
    pub fn latency_ms(&self) -> f64 {
        self.stats.median
    }

    /// Launches run in all (warm-up and timed rounds).
    pub fn launches(&self) -> u64 {
        self.warmup as u64 + self.rounds as u64 * self.iters as u64
    }

    /// How it was measured, without the device-specific parts: warm-up, rounds × launches,
    /// adaptive or fixed, and the early stop if any (for example `3 warm-up run(s), median of
    /// 10 rounds × 10 back-to-back run(s), adaptive (probe 0.0123 ms)`).
    pub fn describe(&self) -> String {
        let mut s = match self.stopped {
            Some(Stop::Probe { .. }) => format!(
                "the faster of the probe (a run timed alone) and its confirmation ({} back-to-back \
                 run(s) after an untimed one)",
                self.iters
            ),
            _ => format!(
                "{} warm-up run(s), median of {} rounds × {} back-to-back run(s)",
                self.warmup, self.rounds, self.iters
            ),
        };
        match (self.policy.adaptive, self.probe_ms) {
            (Some(_), Some(p)) => s.push_str(&format!(", adaptive (probe {} ms)", sig4(p))),
            (Some(_), None) => s.push_str(", adaptive"),
            (None, _) => {}
        }
        if let Some(stop) = &self.stopped {
            s.push_str(&format!(", {stop}"));
        }
        s
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Start,
    Probed,
    /// The probe said stop; a confirmation burst ([`Step::Confirm`]) confirms it or not.
    Confirm,
    WarmedUp,
    FirstRounds,
    MoreRounds,
    Done,
}

/// One measurement in progress; see the module documentation for the sequence.
#[derive(Debug, Clone)]
pub struct Session {
    policy: RepeatPolicy,
    best_ms: Option<f64>,
    phase: Phase,
    probe_ms: Option<f64>,
    warmup: u32,
    iters: u32,
    samples: Vec<f64>,
    stopped: Option<Stop>,
}

impl Session {
    /// A measurement with `policy` against the best latency known on the problem (`None`, or a
    /// value that is not a positive finite number, disables early stop).
    pub fn new(policy: RepeatPolicy, best_ms: Option<f64>) -> Session {
        Session {
            policy,
            best_ms: usable(best_ms),
            phase: Phase::Start,
            probe_ms: None,
            warmup: 0,
            iters: policy.iters_max(),
            samples: Vec::new(),
            stopped: None,
        }
    }

    /// What to run next. Calling it again without reporting returns the same step.
    pub fn next_step(&mut self) -> Step {
        loop {
            match self.phase {
                Phase::Start => {
                    if self.policy.probes() {
                        return Step::Probe;
                    }
                    self.phase = Phase::Probed;
                }
                Phase::Confirm => {
                    return Step::Confirm {
                        launches: self.iters,
                    }
                }
                Phase::Probed => {
                    // After the probe, less what already ran after it (a confirmation).
                    let extra = if self.probe_ms.is_some() {
                        self.policy
                            .extra_warmup(self.probe_ms.unwrap_or(0.0))
                            .saturating_sub(self.warmup.saturating_sub(1))
                    } else {
                        self.policy.warmup
                    };
                    if extra > 0 {
                        return Step::Warmup { launches: extra };
                    }
                    self.phase = Phase::WarmedUp;
                }
                Phase::WarmedUp => {
                    self.iters = self.policy.iters_for(self.probe_ms);
                    return Step::Rounds {
                        rounds: self.policy.first_rounds(),
                        iters: self.iters,
                        first: true,
                    };
                }
                Phase::FirstRounds => {
                    let med = median(&self.samples);
                    let total = self.policy.total_rounds(med, self.iters);
                    let done = self.samples.len() as u32;
                    if total > done {
                        return Step::Rounds {
                            rounds: total - done,
                            iters: self.iters,
                            first: false,
                        };
                    }
                    self.phase = Phase::Done;
                }
                Phase::MoreRounds | Phase::Done => {
                    self.phase = Phase::Done;
                    return Step::Done;
                }
            }
        }
    }

    /// Reports the probe's time (milliseconds).
    pub fn probe_done(&mut self, ms: f64) {
        if self.phase != Phase::Start {
            return;
        }
        self.warmup = 1;
        self.probe_ms = Some(ms);
        self.phase = Phase::Probed;
        if self.policy.stop_at_probe(ms, self.best_ms) {
            // Confirmed (or not) by as many launches as a round at the probe's speed.
            self.iters = self.policy.confirm_launches(ms);
            self.phase = Phase::Confirm;
        }
    }

    /// Reports the per-launch time of the confirmation burst ([`Step::Confirm`]).
    pub fn confirm_done(&mut self, per_launch_ms: f64) {
        if self.phase != Phase::Confirm {
            return;
        }
        // The probe and the untimed launch before the burst.
        self.warmup = 2;
        let ms = self
            .probe_ms
            .map_or(per_launch_ms, |p| p.min(per_launch_ms));
        self.probe_ms = Some(ms);
        self.phase = Phase::Probed;
        match self.best_ms {
            Some(best) if self.policy.stop_at_probe(ms, Some(best)) => {
                self.stopped = Some(Stop::Probe {
                    probe_ms: ms,
                    best_ms: best,
                    factor: self.policy.early_stop.map_or(0.0, |e| e.probe_factor),
                });
                self.samples = vec![ms];
                self.phase = Phase::Done;
            }
            _ => {
                // The burst warmed the kernel up too.
                self.warmup += self.iters;
                self.iters = self.policy.iters_max();
            }
        }
    }

    /// Reports that `launches` untimed warm-up launches ran.
    pub fn warmup_done(&mut self, launches: u32) {
        if self.phase != Phase::Probed {
            return;
        }
        self.warmup += launches;
        self.phase = Phase::WarmedUp;
    }

    /// Reports the per-launch time of each round of the last [`Step::Rounds`].
    pub fn rounds_done(&mut self, per_launch_ms: &[f64]) {
        match self.phase {
            Phase::WarmedUp => {
                self.samples.extend_from_slice(per_launch_ms);
                self.phase = Phase::FirstRounds;
                let med = median(&self.samples);
                if let Some(best) = self.best_ms {
                    if self.policy.stop_after_rounds(med, Some(best)) {
                        self.stopped = Some(Stop::Rounds {
                            rounds: self.samples.len() as u32,
                            median_ms: med,
                            best_ms: best,
                            factor: self.policy.early_stop.map_or(0.0, |e| e.factor),
                        });
                        self.phase = Phase::Done;
                    }
                }
            }
            Phase::FirstRounds => {
                self.samples.extend_from_slice(per_launch_ms);
                self.phase = Phase::MoreRounds;
            }
            _ => {}
        }
    }

    /// The result so far (complete once [`Session::next_step`] returned [`Step::Done`]).
    pub fn outcome(&self) -> Outcome {
        Outcome {
            samples_ms: self.samples.clone(),
            stats: stats(&self.samples),
            iters: self.iters,
            rounds: self.samples.len() as u32,
            warmup: self.warmup,
            probe_ms: self.probe_ms,
            stopped: self.stopped,
            policy: self.policy,
        }
    }
}

/// Runs a whole [`Session`] with closures, for callers that measure synchronously (the CPU
/// executor, tests): `probe()` times one launch, `warmup(n)` runs `n` launches, `round(iters)`
/// times one round of `iters` launches and returns its per-launch time. The first error stops
/// the measurement.
pub fn run_session<E>(
    policy: RepeatPolicy,
    best_ms: Option<f64>,
    mut probe: impl FnMut() -> Result<f64, E>,
    mut warmup: impl FnMut(u32) -> Result<(), E>,
    mut round: impl FnMut(u32) -> Result<f64, E>,
) -> Result<Outcome, E> {
    let mut s = Session::new(policy, best_ms);
    loop {
        match s.next_step() {
            Step::Probe => {
                let ms = probe()?;
                s.probe_done(ms);
            }
            Step::Confirm { launches } => {
                warmup(1)?;
                let ms = round(launches)?;
                s.confirm_done(ms);
            }
            Step::Warmup { launches } => {
                warmup(launches)?;
                s.warmup_done(launches);
            }
            Step::Rounds { rounds, iters, .. } => {
                let mut v = Vec::with_capacity(rounds as usize);
                for _ in 0..rounds {
                    v.push(round(iters)?);
                }
                s.rounds_done(&v);
            }
            Step::Done => return Ok(s.outcome()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adaptive(rounds: u32) -> RepeatPolicy {
        RepeatPolicy {
            warmup: 3,
            rounds,
            iters: 10,
            adaptive: Some(Adaptive::default()),
            early_stop: Some(EarlyStop::default()),
        }
    }

    /// Runs a session on a kernel whose every launch takes `ms`; returns the outcome and the
    /// launches run.
    fn simulate(policy: RepeatPolicy, best: Option<f64>, ms: f64) -> (Outcome, u64) {
        let o = run_session::<()>(policy, best, || Ok(ms), |_| Ok(()), |_| Ok(ms)).unwrap();
        let launches = o.launches();
        (o, launches)
    }

    #[test]
    fn median_and_stats() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        let s = stats(&[5.0, 1.0, 4.0, 2.0, 3.0, 6.0, 7.0, 8.0, 9.0, 10.0]);
        assert_eq!(
            (s.min, s.max, s.median, s.mean, s.p90),
            (1.0, 10.0, 5.5, 5.5, 9.0)
        );
        assert!(stats(&[]).p90.is_nan());
    }

    #[test]
    fn fixed_policy_is_the_old_method() {
        // warm-up 3, 10 rounds × 10 launches, no matter how long the kernel takes
        for ms in [0.004, 0.5, 20.0] {
            let (o, _) = simulate(RepeatPolicy::fixed(3, 10, 10), Some(ms / 100.0), ms);
            assert_eq!((o.warmup, o.rounds, o.iters), (3, 10, 10), "{ms}");
            assert!(o.stopped.is_none(), "no early stop without the option");
            assert_eq!(o.latency_ms(), ms);
            assert_eq!(o.launches(), 103);
        }
        // no warm-up: no probe either
        let (o, _) = simulate(RepeatPolicy::fixed(0, 4, 2), None, 1.0);
        assert_eq!((o.warmup, o.rounds, o.iters, o.probe_ms), (0, 4, 2, None));
    }

    #[test]
    fn adaptive_repeats_bound_the_cost() {
        let p = adaptive(10);
        // a 5-µs kernel: full warm-up, 10 launches per round, every round
        let (o, _) = simulate(p, None, 0.005);
        assert_eq!((o.warmup, o.iters, o.rounds), (3, 10, 10));
        // a 0.5-ms kernel: 2 launches per round (1 ms rounds), rounds up to the cap
        let (o, _) = simulate(p, None, 0.5);
        assert_eq!((o.warmup, o.iters, o.rounds), (3, 2, 10));
        // a 5-ms kernel: 1 warm-up (the probe), 1 launch per round, 5 rounds (the minimum)
        let (o, _) = simulate(p, None, 5.0);
        assert_eq!((o.warmup, o.iters, o.rounds), (1, 1, 5));
        // the timed cost of a long kernel is min_rounds launches, of a short one the fixed
        // method's at most
        for ms in [0.001, 0.01, 0.1, 1.0, 10.0, 100.0] {
            let (o, _) = simulate(p, None, ms);
            let timed = o.rounds as f64 * o.iters as f64 * ms;
            assert!(
                timed <= (Adaptive::default().budget_ms + o.iters as f64 * ms).max(5.0 * ms) + 1e-9,
                "{ms}: {timed}"
            );
            assert!(o.rounds >= 5 && o.rounds <= 10, "{ms}: {}", o.rounds);
            assert!(o.describe().contains("adaptive"), "{}", o.describe());
        }
    }

    #[test]
    fn pure_decisions() {
        let p = adaptive(10);
        assert_eq!(p.iters_for(Some(0.004)), 10);
        assert_eq!(p.iters_for(Some(0.3)), 4);
        assert_eq!(p.iters_for(Some(3.0)), 1);
        assert_eq!(p.iters_for(None), 10);
        assert_eq!(p.iters_for(Some(f64::NAN)), 10);
        assert_eq!(p.extra_warmup(0.001), 2);
        assert_eq!(p.extra_warmup(1.0), 1);
        assert_eq!(p.extra_warmup(3.0), 0);
        assert_eq!(p.first_rounds(), 3);
        assert_eq!(p.total_rounds(0.004, 10), 10);
        assert_eq!(p.total_rounds(1.0, 1), 10);
        assert_eq!(p.total_rounds(4.0, 1), 7);
        assert_eq!(p.total_rounds(100.0, 1), 5);
        assert_eq!(p.total_rounds(f64::NAN, 1), 10);
        // rounds cap below min_rounds
        assert_eq!(adaptive(2).first_rounds(), 2);
        assert_eq!(adaptive(2).total_rounds(100.0, 1), 2);
        assert!(!p.stop_at_probe(0.1, None));
        assert!(!p.stop_at_probe(0.1, Some(0.0)));
        assert!(p.stop_at_probe(0.11, Some(0.01)));
        assert!(!p.stop_at_probe(0.1, Some(0.01)));
        assert!(p.stop_after_rounds(0.0151, Some(0.01)));
        assert!(!p.stop_after_rounds(0.015, Some(0.01)));
        assert!(!RepeatPolicy::fixed(3, 10, 10).stop_after_rounds(1.0, Some(0.01)));
        assert!(EarlyStop::with_factor(1.05).is_none());
        assert!(EarlyStop::with_factor(f64::INFINITY).is_none());
        assert_eq!(EarlyStop::with_factor(20.0).unwrap().probe_factor, 20.0);
        assert!(
            p.describe().contains("early stop above 1.5x"),
            "{}",
            p.describe()
        );
    }

    #[test]
    fn early_stop_never_stops_a_kernel_close_to_the_best() {
        let p = adaptive(10);
        for ms in [0.004, 0.05, 1.0, 30.0] {
            for ratio in [0.5, 1.0, 1.03, 1.2, 1.49] {
                let (o, _) = simulate(p, Some(ms / ratio), ms);
                assert!(o.stopped.is_none(), "{ms} at {ratio}x the best: {o:?}");
                assert!(o.rounds >= 5);
            }
        }
    }

    #[test]
    fn early_stop_after_rounds_and_at_the_probe() {
        let p = adaptive(10);
        // 2x the best: stopped after 3 rounds, latency = their median, row honest about it
        let (o, _) = simulate(p, Some(0.01), 0.02);
        assert_eq!(o.rounds, 3);
        assert_eq!(o.latency_ms(), 0.02);
        assert!(matches!(o.stopped, Some(Stop::Rounds { rounds: 3, .. })));
        assert!(
            o.describe().contains("stopped early after 3 round(s)"),
            "{}",
            o.describe()
        );
        // 20x the best: stopped at the probe once the confirmation (an untimed launch, then
        // as many back to back as a round of 1 ms at the probe's speed: 5) confirms it,
        // latency = the faster of the two
        let (o, launches) = simulate(p, Some(0.01), 0.2);
        assert!(matches!(o.stopped, Some(Stop::Probe { .. })));
        assert_eq!((o.rounds, o.iters, o.warmup), (1, 5, 2));
        assert_eq!(o.latency_ms(), 0.2);
        assert_eq!(launches, 7);
        assert!(
            o.describe()
                .contains("the faster of the probe (a run timed alone) and its confirmation (5 "),
            "{}",
            o.describe()
        );
        let mut bursts = vec![];
        let o = run_session::<()>(
            p,
            Some(0.01),
            || Ok(0.25),
            |_| Ok(()),
            |n| {
                bursts.push(n);
                Ok(0.2)
            },
        )
        .unwrap();
        assert!(matches!(o.stopped, Some(Stop::Probe { probe_ms, .. }) if probe_ms == 0.2));
        assert_eq!(bursts, [4], "a burst of ceil(1 ms / 0.25 ms) launches");
        // A disturbed first launch (12x) confirmed at par is measured in full.
        let mut per_launch = [0.0101].into_iter();
        let o = run_session::<()>(
            p,
            Some(0.01),
            || Ok(0.12),
            |_| Ok(()),
            |_| Ok(per_launch.next().unwrap_or(0.01)),
        )
        .unwrap();
        assert!(o.stopped.is_none(), "{o:?}");
        assert_eq!(o.probe_ms, Some(0.0101));
        assert_eq!(o.rounds, 10);
        assert_eq!(o.latency_ms(), 0.01);
        // the probe, the lead launch and the burst of ceil(1 ms / 0.12 ms) = 9 launches are
        // the warm-up (already past the 3 the policy asks for: none more)
        assert_eq!(o.warmup, 11);
        // Without adaptive repeats the burst lasts about 1 ms too: a 50-ms kernel stopped at
        // its probe runs one more launch timed, not a whole round of 10.
        let q = RepeatPolicy {
            early_stop: Some(EarlyStop::default()),
            ..RepeatPolicy::fixed(3, 10, 10)
        };
        let (o, launches) = simulate(q, Some(1.0), 50.0);
        assert!(matches!(o.stopped, Some(Stop::Probe { .. })), "{o:?}");
        assert_eq!((o.rounds, o.iters, launches), (1, 1, 3));
        assert_eq!(q.confirm_launches(0.05), 10);
        assert_eq!(q.confirm_launches(f64::NAN), 1);
        // A slow probe on a problem without a known best runs no confirmation.
        let mut bursts = 0;
        let o = run_session::<()>(
            p,
            None,
            || Ok(0.2),
            |_| Ok(()),
            |n| {
                bursts += u32::from(n < 5);
                Ok(0.2)
            },
        )
        .unwrap();
        assert!(o.stopped.is_none() && o.rounds >= 5, "{o:?}");
        assert_eq!(bursts, 0);
        // early stop without adaptation: 3 rounds then the rest
        let q = RepeatPolicy {
            early_stop: Some(EarlyStop::default()),
            ..RepeatPolicy::fixed(3, 10, 10)
        };
        let (o, _) = simulate(q, Some(1.0), 1.0);
        assert_eq!((o.rounds, o.iters), (10, 10));
        let (o, _) = simulate(q, Some(1.0), 2.0);
        assert_eq!(o.rounds, 3);
    }

    #[test]
    fn the_median_of_the_first_rounds_decides() {
        // one slow first round (noise) does not stop a kernel at par
        let p = adaptive(10);
        let times = [
            0.05, 0.01, 0.0101, 0.0099, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01,
        ];
        let mut i = 0;
        let o = run_session::<()>(
            p,
            Some(0.0098),
            || Ok(0.012),
            |_| Ok(()),
            |_| {
                i += 1;
                Ok(times[i - 1])
            },
        )
        .unwrap();
        assert!(o.stopped.is_none());
        assert_eq!(o.rounds, 10);
        assert_eq!(o.latency_ms(), 0.01);
        assert_eq!(o.stats.max, 0.05);
    }

    #[test]
    fn errors_stop_the_session() {
        let r = run_session(adaptive(10), None, || Ok(1.0), |_| Ok(()), |_| Err("boom"));
        assert_eq!(r, Err("boom"));
    }

    #[test]
    fn session_reports_out_of_order_are_ignored() {
        let mut s = Session::new(adaptive(10), None);
        s.rounds_done(&[1.0]);
        s.warmup_done(5);
        assert_eq!(s.next_step(), Step::Probe);
        s.probe_done(0.1);
        s.probe_done(9.0);
        assert_eq!(s.outcome().probe_ms, Some(0.1));
    }

    #[test]
    fn serde_defaults() {
        let a: Adaptive = serde_json::from_str("{}").unwrap();
        assert_eq!(a, Adaptive::default());
        let e: EarlyStop = serde_json::from_str(r#"{"factor": 2.0}"#).unwrap();
        assert_eq!(e.factor, 2.0);
        assert_eq!(e.after_rounds, 3);
    }
}
