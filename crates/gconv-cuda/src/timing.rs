//! GPU timing, one code path for gconv's kernels ([`crate::GpuRuntime::time`]) and the cuDNN
//! baseline ([`crate::cudnn`]): both hand [`measure`] a closure that enqueues one execution on
//! the stream, so "timed the same way" is literally the same function.
//!
//! What [`measure`] does, driven by a [`gconv_problem::measure::Session`] (which makes every
//! decision: warm-up count, launches per round, rounds, early stop; see that module):
//!
//! 1. the **probe**: one execution between two CUDA events, then a synchronisation; where
//!    the probe would stop the measurement early, its **confirmation**: one untimed execution,
//!    then a burst of executions between two events (the faster of the two is what counts);
//! 2. the remaining **warm-up** executions, untimed;
//! 3. the **capture** of `iters` executions into one CUDA graph (with `use_graph`; when capture
//!    fails, or without it, the executions are enqueued on the stream and the method says so);
//! 4. **rounds**, each between its own pair of CUDA events, enqueued back to back with one
//!    synchronisation per batch of rounds. Each batch starts with one untimed replay, so that
//!    the device is busy while the host enqueues the timed rounds: a round never measures the
//!    host's submission of its own graph. A round's time is divided by `iters`; the latency is
//!    the median over rounds.
//!
//! `before_round` runs before each round's start event (outside the timed interval; the L2
//! flush uses it). The defaults ([`TimingOptions::default`]) are the fixed method: 5 warm-up
//! executions, 15 rounds × 10 graph-replayed executions, no early stop.

use crate::error::{driver_message, CudaError};
use cudarc::driver::sys::{CUevent_flags, CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaEvent, CudaGraph, CudaStream};
pub use gconv_problem::measure::{median, stats, Adaptive, EarlyStop, RepeatPolicy, Stats, Stop};
use gconv_problem::measure::{Outcome, Session, Step};
use std::sync::Arc;
use std::time::Instant;

/// How to time an execution (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimingOptions {
    /// Warm-up executions before the first round, the probe included (at most this many when
    /// adaptive).
    pub warmup: u32,
    /// Timed rounds; the result is the median over rounds (at most this many when adaptive).
    pub rounds: u32,
    /// Back-to-back executions per round; a round's time is divided by this (at most this
    /// many when adaptive).
    pub iters_per_round: u32,
    /// Overwrite a buffer larger than L2 before every round, outside the timed interval
    /// ([`crate::GpuRuntime::time`] only).
    pub flush_l2: bool,
    /// Capture each round's executions into a CUDA graph once and replay it per round, so that
    /// host launch cost stays out of the figure. Falls back to plain launches on the stream,
    /// and says so in the method, when capture fails.
    pub use_graph: bool,
    /// Adaptive repeats; `None`: the fixed counts above.
    pub adaptive: Option<Adaptive>,
    /// Early stop against the best latency passed to [`measure`]; `None`: never.
    pub early_stop: Option<EarlyStop>,
}

impl Default for TimingOptions {
    fn default() -> Self {
        TimingOptions {
            warmup: 5,
            rounds: 15,
            iters_per_round: 10,
            flush_l2: false,
            use_graph: true,
            adaptive: None,
            early_stop: None,
        }
    }
}

impl TimingOptions {
    /// The repeat policy of these options.
    pub fn policy(&self) -> RepeatPolicy {
        RepeatPolicy {
            warmup: self.warmup,
            rounds: self.rounds,
            iters: self.iters_per_round,
            adaptive: self.adaptive,
            early_stop: self.early_stop,
        }
    }

    fn check(&self) -> Result<(), CudaError> {
        if self.rounds == 0 || self.iters_per_round == 0 {
            return Err(CudaError::InvalidOption {
                option: "timing",
                reason: format!(
                    "rounds ({}) and iters_per_round ({}) must be at least 1",
                    self.rounds, self.iters_per_round
                ),
            });
        }
        Ok(())
    }
}

/// A timing result; `method` says how it was measured and is printed with the numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// Median per-execution time over rounds, milliseconds (the latency).
    pub median_ms: f64,
    /// Fastest round, per execution.
    pub min_ms: f64,
    /// Slowest round, per execution.
    pub max_ms: f64,
    /// 90th percentile of the rounds, per execution.
    pub p90_ms: f64,
    /// Rounds measured (1 when stopped at the probe).
    pub rounds: u32,
    /// Executions per round (1 when stopped at the probe).
    pub iters_per_round: u32,
    /// Warm-up executions, the probe included.
    pub warmup: u32,
    /// Per-round per-execution times, in round order.
    pub samples_ms: Vec<f64>,
    /// The probe's time, when one ran.
    pub probe_ms: Option<f64>,
    /// Why the measurement stopped early, if it did.
    pub stopped: Option<Stop>,
    /// Whether the rounds were replayed from a CUDA graph.
    pub graph: bool,
    /// Executions enqueued in all (probe, warm-up, untimed lead replays, rounds).
    pub executions: u64,
    /// Host wall time of the whole measurement, milliseconds.
    pub wall_ms: f64,
    /// Human-readable description of the method.
    pub method: String,
}

impl Timing {
    /// True when the measurement stopped early (the latency is then the median of the rounds
    /// that ran, or the probe).
    pub fn stopped_early(&self) -> bool {
        self.stopped.is_some()
    }
}

fn event(stream: &Arc<CudaStream>) -> Result<CudaEvent, CudaError> {
    stream
        .context()
        .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(|e| CudaError::driver("cuEventCreate", e))
}

fn record(e: &CudaEvent, stream: &Arc<CudaStream>) -> Result<(), CudaError> {
    e.record(stream)
        .map_err(|e| CudaError::driver("cuEventRecord", e))
}

/// Captures `iters` executions into a CUDA graph; `None` when the stream cannot be captured or
/// an execution fails during capture. The stream is never left capturing.
fn capture<E: From<CudaError>>(
    stream: &Arc<CudaStream>,
    iters: u32,
    enqueue: &mut impl FnMut() -> Result<(), E>,
) -> Result<Option<CudaGraph>, E> {
    if stream
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
        .is_err()
    {
        return Ok(None);
    }
    let mut ok = true;
    for _ in 0..iters {
        if enqueue().is_err() {
            ok = false;
            break;
        }
    }
    let graph = stream.end_capture(CUgraphInstantiate_flags(0));
    let status = stream
        .capture_status()
        .map_err(|e| CudaError::driver("cuStreamIsCapturing", e))?;
    if status != cudarc::driver::sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
        return Err(CudaError::Driver {
            call: "cuStreamEndCapture".to_string(),
            message: format!("the stream is still in capture state {status:?}"),
        }
        .into());
    }
    match graph {
        Ok(Some(g)) if ok => Ok(Some(g)),
        _ => Ok(None),
    }
}

/// Times executions enqueued by `enqueue` on `stream` (see the module documentation).
///
/// `label` names what is timed in fault messages (a kernel fault during timing is
/// [`CudaError::KernelFault`] with that name); `launches_each` is how many kernel launches one
/// execution makes (for the method string). `best_ms` is the best verified latency known on the
/// same problem, for early stop (ignored without [`TimingOptions::early_stop`]).
pub fn measure<E: From<CudaError>>(
    stream: &Arc<CudaStream>,
    opts: &TimingOptions,
    best_ms: Option<f64>,
    label: &str,
    launches_each: usize,
    mut enqueue: impl FnMut() -> Result<(), E>,
    mut before_round: impl FnMut(u32) -> Result<(), E>,
) -> Result<Timing, E> {
    opts.check()?;
    let t0 = Instant::now();
    let fault = |e: cudarc::driver::DriverError| CudaError::KernelFault {
        kernel: label.to_string(),
        message: driver_message(&e),
    };
    let sync = |stream: &Arc<CudaStream>| stream.synchronize().map_err(fault);
    let mut session = Session::new(opts.policy(), best_ms);
    let mut graph: Option<CudaGraph> = None;
    let mut captured = false;
    let mut executions = 0u64;
    let mut round_index = 0u32;
    loop {
        match session.next_step() {
            Step::Probe => {
                let (a, b) = (event(stream)?, event(stream)?);
                record(&a, stream)?;
                enqueue()?;
                record(&b, stream)?;
                sync(stream)?;
                executions += 1;
                let ms = a
                    .elapsed_ms(&b)
                    .map_err(|e| CudaError::driver("cuEventElapsedTime", e))?;
                session.probe_done(ms as f64);
            }
            Step::Confirm { launches } => {
                // The lead launch keeps the device busy while the events and the burst are
                // enqueued: a stalled host thread no longer counts as the kernel's time.
                let (a, b) = (event(stream)?, event(stream)?);
                enqueue()?;
                record(&a, stream)?;
                for _ in 0..launches {
                    enqueue()?;
                }
                record(&b, stream)?;
                sync(stream)?;
                executions += 1 + launches as u64;
                let ms = a
                    .elapsed_ms(&b)
                    .map_err(|e| CudaError::driver("cuEventElapsedTime", e))?;
                session.confirm_done(ms as f64 / launches.max(1) as f64);
            }
            Step::Warmup { launches } => {
                for _ in 0..launches {
                    enqueue()?;
                }
                executions += launches as u64;
                session.warmup_done(launches);
            }
            Step::Rounds { rounds, iters, .. } => {
                if !captured {
                    captured = true;
                    if opts.use_graph {
                        graph = capture(stream, iters, &mut enqueue)?;
                    }
                }
                // One untimed replay first: the device works on it while the rounds are
                // enqueued (and the first one uploads the graph).
                let replay = |enqueue: &mut dyn FnMut() -> Result<(), E>| -> Result<(), E> {
                    match &graph {
                        Some(g) => g.launch().map_err(|e| E::from(fault(e))),
                        None => {
                            for _ in 0..iters {
                                enqueue()?;
                            }
                            Ok(())
                        }
                    }
                };
                // Events first, so that enqueueing a round is only two records and a replay.
                let mut events = Vec::with_capacity(rounds as usize);
                for _ in 0..rounds {
                    events.push((event(stream)?, event(stream)?));
                }
                replay(&mut enqueue)?;
                for (a, b) in &events {
                    before_round(round_index)?;
                    round_index += 1;
                    record(a, stream)?;
                    replay(&mut enqueue)?;
                    record(b, stream)?;
                }
                sync(stream)?;
                executions += (rounds as u64 + 1) * iters as u64;
                let mut per_launch = Vec::with_capacity(events.len());
                for (a, b) in &events {
                    let ms = a
                        .elapsed_ms(b)
                        .map_err(|e| CudaError::driver("cuEventElapsedTime", e))?;
                    per_launch.push(ms as f64 / iters as f64);
                }
                session.rounds_done(&per_launch);
            }
            Step::Done => break,
        }
    }
    let o = session.outcome();
    let method = describe(&o, opts, graph.is_some(), launches_each);
    Ok(Timing {
        median_ms: o.stats.median,
        min_ms: o.stats.min,
        max_ms: o.stats.max,
        p90_ms: o.stats.p90,
        rounds: o.rounds,
        iters_per_round: o.iters,
        warmup: o.warmup,
        samples_ms: o.samples_ms.clone(),
        probe_ms: o.probe_ms,
        stopped: o.stopped,
        graph: graph.is_some(),
        executions,
        wall_ms: t0.elapsed().as_secs_f64() * 1e3,
        method,
    })
}

/// The method string: `CUDA events: <warm-up>, median of <rounds> rounds × <iters>
/// back-to-back run(s) (<n> launch(es) each) <replay>, <L2>[, adaptive (probe ..)][, stopped
/// early ...]`.
fn describe(o: &Outcome, opts: &TimingOptions, graph: bool, launches_each: usize) -> String {
    let l2 = if opts.flush_l2 {
        format!(
            "L2 flushed before each round (untimed){}",
            if o.iters > 1 {
                "; only the first launch of a round starts cold"
            } else {
                ""
            }
        )
    } else {
        "L2 warm".to_string()
    };
    let adaptive = match (opts.adaptive, o.probe_ms) {
        (Some(a), Some(p)) => format!(
            ", adaptive (probe {p:.4} ms; rounds of ≥ {} ms, {} ms per kernel, {}..{} rounds)",
            a.round_ms,
            a.budget_ms,
            a.min_rounds.clamp(1, opts.rounds.max(1)),
            opts.rounds
        ),
        (Some(_), None) => ", adaptive".to_string(),
        (None, _) => String::new(),
    };
    let stop = o
        .stopped
        .as_ref()
        .map_or(String::new(), |s| format!(", {s}"));
    if matches!(o.stopped, Some(Stop::Probe { .. })) {
        return format!(
            "CUDA events: the faster of the probe (a run timed alone) and its confirmation ({} back-to-back run(s) on the stream after an untimed one; {launches_each} launch(es) each), {l2}{adaptive}{stop}",
            o.iters
        );
    }
    let replay = match (graph, opts.use_graph) {
        (true, _) => "replayed from one CUDA graph (no host launch cost)",
        (false, true) => "launched on the stream because graph capture failed (host launch cost included when the kernel is shorter)",
        (false, false) => "launched on the stream (host launch cost included when the kernel is shorter)",
    };
    format!(
        "CUDA events: {} warm-up run(s), median of {} rounds × {} back-to-back run(s) ({launches_each} launch(es) each) {replay}, {l2}{adaptive}{stop}",
        o.warmup, o.rounds, o.iters
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(policy: RepeatPolicy, best: Option<f64>, ms: f64) -> Outcome {
        gconv_problem::measure::run_session::<()>(policy, best, || Ok(ms), |_| Ok(()), |_| Ok(ms))
            .unwrap()
    }

    #[test]
    fn default_is_the_fixed_graph_method() {
        let o = TimingOptions::default();
        assert_eq!((o.warmup, o.rounds, o.iters_per_round), (5, 15, 10));
        assert!(o.use_graph && !o.flush_l2);
        assert!(o.adaptive.is_none() && o.early_stop.is_none());
        let out = outcome(o.policy(), Some(1e-6), 0.01);
        assert_eq!(
            describe(&out, &o, true, 1),
            "CUDA events: 5 warm-up run(s), median of 15 rounds × 10 back-to-back run(s) (1 launch(es) each) replayed from one CUDA graph (no host launch cost), L2 warm"
        );
    }

    #[test]
    fn method_says_what_was_done() {
        let o = TimingOptions {
            warmup: 3,
            rounds: 10,
            adaptive: Some(Adaptive::default()),
            early_stop: Some(EarlyStop::default()),
            ..TimingOptions::default()
        };
        let out = outcome(o.policy(), Some(0.01), 0.02);
        let m = describe(&out, &o, true, 2);
        assert!(m.contains("median of 3 rounds × 10"), "{m}");
        assert!(m.contains("(2 launch(es) each)"), "{m}");
        assert!(m.contains("adaptive (probe 0.0200 ms"), "{m}");
        assert!(m.contains("stopped early after 3 round(s)"), "{m}");
        let out = outcome(o.policy(), Some(0.01), 0.5);
        let m = describe(&out, &o, true, 1);
        assert!(
            m.starts_with(
                "CUDA events: the faster of the probe (a run timed alone) and its confirmation (2 back-to-back run(s) on the stream after an untimed one; 1 launch(es) each)"
            ),
            "{m}"
        );
        assert!(m.contains("stopped early after the probe"), "{m}");
        let out = outcome(o.policy(), None, 0.5);
        let m = describe(&out, &o, false, 1);
        assert!(m.contains("median of 10 rounds × 2 back-to-back"), "{m}");
        assert!(m.contains("graph capture failed"), "{m}");
    }

    #[test]
    fn zero_counts_are_refused() {
        let o = TimingOptions {
            rounds: 0,
            ..TimingOptions::default()
        };
        assert!(matches!(
            o.check(),
            Err(CudaError::InvalidOption {
                option: "timing",
                ..
            })
        ));
    }
}
