//! The igemm family's cost model: the estimated time of an [`IgemmPlan`] on a device, which
//! `auto` minimises over the pool. Its constants were fitted on H200 timings of the pool over the
//! forward model-zoo layers (`results/h200/README.md` lists the runs and their files).

use super::geometry::IgemmPlan;
use crate::config::{Math, SplitKMode};
use crate::device::DeviceLimits;

/// Estimated time in seconds of `plan` on `device`:
///
/// `max(t_math, t_l2, t_dram) + waves · (k_tiles · a + b) + 3 µs`, where
/// - `waves = ⌈CTAs / (SMs · CTAs per SM)⌉`, CTAs per SM from the device's occupancy model
///   ([`DeviceLimits::ctas_per_sm`]: shared memory, threads, the register estimate);
/// - `t_math = waves · min(CTAs per SM, ⌈CTAs/SMs⌉) · tile_m·tile_n·tile_k·k_tiles / R` with R
///   the sustained MAC rate of one SM (1.5e12 for mma, 1.4e11 for FFMA, 2.0e12 for wgmma, × 0.6
///   for a 3-stage wgmma pipeline, whose prefetch distance is one k-tile) — padded and
///   block-diagonal zeros count, since the hardware computes them;
/// - the per-wave overhead `a`, `b` = 0.1 µs, 3 µs (wgmma: 0, 0.5 µs);
/// - `t_l2 = CTAs · k_tiles · (tile_m + tile_n) · tile_k · bytes / 8 TB/s` (shared-memory fills);
/// - `t_dram` = the compulsory bytes of the problem's tensors at 3.5 TB/s;
/// - split-K adds its f32 planes (written and read back; atomic: one plane read-modified-written
///   and converted) at 3.5 TB/s and 2.5 µs for the extra launches. `k_tiles` is per slice.
pub fn cost_estimate(plan: &IgemmPlan, device: &DeviceLimits) -> f64 {
    cost_estimate_with(plan, device, plan.problem.min_bytes())
}

/// [`cost_estimate`], the problem's compulsory bytes given (`min_bytes`, its
/// [`gconv_problem::Problem::min_bytes`]: [`crate::family::ProblemFacts::min_bytes`] in the
/// gate).
pub(crate) fn cost_estimate_with(plan: &IgemmPlan, device: &DeviceLimits, min_bytes: f64) -> f64 {
    let (cfg, problem) = (&plan.cfg, &plan.problem);
    let g = plan.grid;
    let ctas = (g[0] * g[1] * g[2]) as f64;
    let es = cfg.dtype.size_bytes() as f64;
    let sms = device.sms as f64;
    let per_sm = device.ctas_per_sm(plan.smem_bytes as u64, cfg.threads(), plan.registers) as f64;
    let waves = (ctas / (sms * per_sm)).ceil().max(1.0);
    let share = per_sm.min((ctas / sms).ceil());
    let kt = plan.k_tiles as f64;
    let (bm, bn, bk) = (cfg.tile_m as f64, cfg.tile_n as f64, cfg.tile_k as f64);
    let rate = match cfg.math {
        Math::Simt => 1.4e11,
        Math::Wgmma | Math::WgmmaWs | Math::WgmmaTma if cfg.stages == 3 => 2.0e12 * 0.6,
        Math::Wgmma | Math::WgmmaWs | Math::WgmmaTma => 2.0e12,
        _ => 1.5e12,
    };
    let (per_ktile, per_wave) = if cfg.math.is_wgmma() {
        (0.0, 0.5e-6)
    } else {
        (0.1e-6, 3e-6)
    };
    let t_math = waves * share * bm * bn * bk * kt / rate;
    let t_l2 = ctas * kt * (bm + bn) * bk * es / 8e12;
    let t_dram = min_bytes / 3.5e12;
    // Split-K: the f32 planes written and read back (atomic: one plane, read-modify-write) and
    // the extra launches. The cluster split (`c`) has neither but is priced the same: on the
    // H200 it ran at 0.815× of the two-launch split (`results/h200/s29/README.md`).
    let split = cfg.split_k.max(1) as f64;
    let t_split = if cfg.split_k > 1 {
        let out = problem.elements(problem.roles().1) as f64 * 4.0;
        let planes = if cfg.split_k_mode == SplitKMode::Atomic {
            3.0
        } else {
            split + 1.0
        };
        planes * out / 3.5e12 + 2.5e-6
    } else {
        0.0
    };
    t_math.max(t_l2).max(t_dram) + waves * (kt * per_ktile + per_wave) + t_split + 3e-6
}
