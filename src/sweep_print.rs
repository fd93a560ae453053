//! What `sweep`, `bench` and `report` print from sweep rows: the bench table (best-in-pool,
//! `auto` — the dispatcher's pick and the model's alone — and the best baseline per problem,
//! with geomeans; `bench` and `report`), the
//! failure digest with the messages file (all three) and the throughput line (rows per
//! device-minute; `sweep` and `bench`).

use gconv_kernels::KernelConfig;
use gconv_problem::{DeviceSpec, Problem};
use gconv_tune::summary::failure_digest;
use gconv_tune::{SweepReport, SweepRow};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

/// After a sweep or bench: the devices it ran on and how many rows a device produced per
/// minute (rows that reached a worker, over the wall time times the devices).
pub fn print_throughput(out: &mut impl Write, report: &SweepReport) -> std::io::Result<()> {
    let ran = report.rows.iter().filter(|r| r.device.is_some()).count();
    let devices = report.devices.len().max(1);
    let minutes = report.elapsed.as_secs_f64() / 60.0;
    let names: Vec<String> = report.devices.iter().map(|d| d.to_string()).collect();
    writeln!(
        out,
        "throughput: {ran} rows run on {devices} device(s) [{}] in {:.1} s: {:.0} rows per device-minute",
        names.join(", "),
        report.elapsed.as_secs_f64(),
        if minutes > 0.0 {
            ran as f64 / (minutes * devices as f64)
        } else {
            0.0
        }
    )
}

/// After a sweep, bench or report: when a row is not ok, its status counts with the first
/// message or two of each; then where the messages file is (every message, one JSON line each).
pub fn print_failures(
    out: &mut impl Write,
    rows: &[SweepRow],
    messages: Option<&Path>,
) -> std::io::Result<()> {
    let digest = failure_digest(rows, 2);
    if !digest.is_empty() {
        writeln!(out, "{digest}")?;
    }
    if let Some(m) = messages {
        writeln!(
            out,
            "messages: {} (one JSON line per row with a message: why it was not ok, or the timing method)",
            m.display()
        )?;
    }
    Ok(())
}

fn best<'a>(rows: &'a [SweepRow], p: &Problem, baseline: bool) -> Option<&'a SweepRow> {
    rows.iter()
        .filter(|r| r.problem == *p && r.is_baseline() == baseline && r.ok_latency_ms().is_some())
        .min_by(|a, b| {
            a.ok_latency_ms()
                .unwrap_or(f64::INFINITY)
                .total_cmp(&b.ok_latency_ms().unwrap_or(f64::INFINITY))
        })
}

/// What `auto` picks for a problem whose rows ran on a device (its name, when the rows name
/// one): the dispatcher's choice (a measured decision for that device first, then the model,
/// then the rule: what `gconv run --kernel auto` runs there) and the model's alone (the rule
/// where the model does not decide).
#[derive(Debug, Clone, Copy, Default)]
pub struct AutoPicks {
    /// What `gconv run --kernel auto` runs on the rows' device with the shipped decisions
    /// (a user's own decision cache, which `run` consults first, left aside).
    pub dispatcher: Option<KernelConfig>,
    /// The model's choice without any measured decision.
    pub model: Option<KernelConfig>,
}

/// The selection whose picks the bench table shows as `auto` and `model`.
pub type AutoRule<'a> = &'a dyn Fn(&Problem, Option<&str>) -> AutoPicks;

/// `auto` as `bench` and `report` show it, on `target` over `families`.
pub fn auto_picks(
    target: gconv_kernels::Target,
    families: gconv_kernels::catalogue::Families,
) -> impl Fn(&Problem, Option<&str>) -> AutoPicks {
    move |p: &Problem, device: Option<&str>| {
        let model = gconv_learn::select::choose(p, &target, families).map(|c| *c.admitted.config());
        let dispatcher = match device {
            Some(d) => gconv_learn::select::choose_tuned(
                p,
                &target,
                families,
                d,
                &gconv_learn::decisions::DecisionCache::default(),
            )
            .map(|c| *c.admitted.config()),
            None => model,
        };
        AutoPicks { dispatcher, model }
    }
}

/// Prints the bench table: per problem the best kernel, its roofline fraction (on the
/// roofline of the device its row ran on, `dev` when that has no specification), the `auto`
/// pick (the dispatcher's, with the decisions shipped for the rows' device), the best
/// baseline, and the model's pick alone; then the baselines present and the geomeans.
pub fn print_bench_table(
    out: &mut impl Write,
    problems: &[Problem],
    rows: &[SweepRow],
    dev: &DeviceSpec,
    auto: AutoRule<'_>,
) -> std::io::Result<()> {
    let mut specs: Vec<DeviceSpec> = Vec::new();
    for r in rows.iter().filter(|r| r.ok_latency_ms().is_some()) {
        let s = r.device_spec(dev);
        if !specs.contains(&s) {
            specs.push(s);
        }
    }
    let spec_text = |s: &DeviceSpec| {
        format!(
            "{} ({:.2} TB/s, {:.0} TFLOP/s f16/bf16, {:.0} TFLOP/s f32)",
            s.name,
            s.bandwidth_bytes_per_s / 1e12,
            s.half_flops / 1e12,
            s.f32_flops / 1e12
        )
    };
    match specs.as_slice() {
        [] => {}
        [one] => writeln!(out, "roofline: {}", spec_text(one))?,
        many => writeln!(
            out,
            "roofline: each row's own device's: {}",
            many.iter().map(spec_text).collect::<Vec<_>>().join("; ")
        )?,
    }
    writeln!(
        out,
        "{:<58} {:>9} {:>7} {:>9} {:>9} {:>8} {:>8} {:>9} {:>8}",
        "problem",
        "best ms",
        "roof",
        "auto ms",
        "base ms",
        "best/base",
        "auto/base",
        "model ms",
        "model/base"
    )?;
    let (mut r_best, mut r_auto, mut r_model, mut roof) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // Problems where `auto` (or the model alone) is below 0.97 of best-in-pool.
    let (mut auto_short, mut model_short) = (0usize, 0usize);
    let providers: BTreeSet<&str> = rows.iter().filter_map(|r| r.provider()).collect();
    let mut slower = 0usize;
    for p in problems {
        let b = best(rows, p, false);
        let cu = best(rows, p, true).and_then(|r| r.ok_latency_ms());
        let device = rows
            .iter()
            .filter(|r| r.problem == *p)
            .find_map(|r| r.device.as_ref().map(|d| d.name.as_str()));
        let picks = auto(p, device);
        let ms_of = |pick: Option<KernelConfig>| {
            let n = pick?.to_string();
            rows.iter()
                .find(|r| r.problem == *p && r.kernel == n)
                .and_then(|r| r.ok_latency_ms())
        };
        let auto_ms = ms_of(picks.dispatcher);
        let model_ms = ms_of(picks.model);
        let bms = b.and_then(|r| r.ok_latency_ms());
        let fmt = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.4}"));
        let ratio = |a: Option<f64>, c: Option<f64>| match (a, c) {
            (Some(a), Some(c)) => Some(c / a),
            _ => None,
        };
        let rb = ratio(bms, cu);
        let ra = ratio(auto_ms, cu);
        let rm = ratio(model_ms, cu);
        if let Some(b) = bms {
            auto_short += usize::from(auto_ms.is_some_and(|a| b / a < 0.97));
            model_short += usize::from(model_ms.is_some_and(|m| b / m < 0.97));
        }
        if let Some(x) = rb {
            r_best.push(x);
            if x < 1.0 {
                slower += 1;
            }
        }
        if let Some(x) = ra {
            r_auto.push(x);
        }
        if let Some(x) = rm {
            r_model.push(x);
        }
        let rf = b.and_then(|r| r.roofline_frac(dev));
        if let Some(f) = rf {
            roof.push(f);
        }
        writeln!(
            out,
            "{:<58} {:>9} {:>7} {:>9} {:>9} {:>8} {:>8} {:>9} {:>8}",
            p.to_string(),
            fmt(bms),
            rf.map_or("-".into(), |f| format!("{f:.3}")),
            fmt(auto_ms),
            fmt(cu),
            rb.map_or("-".into(), |x| format!("{x:.2}x")),
            ra.map_or("-".into(), |x| format!("{x:.2}x")),
            fmt(model_ms),
            rm.map_or("-".into(), |x| format!("{x:.2}x")),
        )?;
    }
    let g =
        |v: &[f64]| gconv_tune::summary::geomean(v).map_or("-".to_string(), |x| format!("{x:.3}x"));
    writeln!(
        out,
        "baseline: {}",
        if providers.is_empty() {
            "none in the rows".to_string()
        } else {
            providers.into_iter().collect::<Vec<_>>().join(", ")
        }
    )?;
    writeln!(out,
        "geomean: best-in-pool speedup over the best baseline {} ({} problems, {} slower than the baseline), auto {} ({} problems, {} below 0.97 of best-in-pool), the model alone {} ({} problems, {} below 0.97), best-in-pool roofline fraction {}",
        g(&r_best),
        r_best.len(),
        slower,
        g(&r_auto),
        r_auto.len(),
        auto_short,
        g(&r_model),
        r_model.len(),
        model_short,
        gconv_tune::summary::geomean(&roof).map_or("-".to_string(), |x| format!("{x:.3}"))
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gconv_tune::worker::Status;
    use gconv_tune::DeviceTag;

    fn row(kernel: &str, p: &Problem, ms: f64) -> SweepRow {
        let mut r = SweepRow::with_status(kernel, p, Status::Ok, String::new());
        r.latency_ms = Some(ms);
        r.device = Some(DeviceTag {
            name: "NVIDIA H100 80GB HBM3".into(),
            index: 0,
        });
        r
    }

    #[test]
    fn the_table_shows_the_dispatchers_pick_and_the_models_apart() {
        let p: Problem = "dgrad_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1"
            .parse()
            .expect("key");
        let fast: KernelConfig = "direct_dgrad_bf16_t196x32x14_w7x1_s1_v2x7_gm1_sk1d_simt_gen"
            .parse()
            .expect("name");
        let slow: KernelConfig = "direct_dgrad_bf16_t196x32x14_w7x1_s2_v2x7_gm1_sk1d_simt_gen"
            .parse()
            .expect("name");
        let rows = vec![
            row(&fast.to_string(), &p, 0.010),
            row(&slow.to_string(), &p, 0.020),
            row("cudnn:eng1", &p, 0.030),
        ];
        let seen = std::cell::RefCell::new(Vec::new());
        let rule = |q: &Problem, device: Option<&str>| {
            seen.borrow_mut().push((*q, device.map(str::to_string)));
            AutoPicks {
                dispatcher: Some(fast),
                model: Some(slow),
            }
        };
        let mut out = Vec::new();
        print_bench_table(&mut out, &[p], &rows, &DeviceSpec::H200, &rule).expect("write");
        let text = String::from_utf8(out).expect("utf-8");
        // The rule is asked with the device the rows ran on.
        assert_eq!(
            seen.into_inner(),
            vec![(p, Some("NVIDIA H100 80GB HBM3".to_string()))]
        );
        let line = text
            .lines()
            .find(|l| l.starts_with(&p.to_string()))
            .expect("the problem's line");
        let f: Vec<&str> = line.split_whitespace().collect();
        // best, roof, auto (the dispatcher's pick), base, best/base, auto/base, model, model/base.
        assert_eq!(f[1], "0.0100", "{line}");
        assert_eq!(f[3], "0.0100", "{line}");
        assert_eq!(f[4], "0.0300", "{line}");
        assert_eq!(&f[5..], ["3.00x", "3.00x", "0.0200", "1.50x"], "{line}");
        assert!(
            text.contains("auto 3.000x (1 problems, 0 below 0.97 of best-in-pool), the model alone 1.500x (1 problems, 1 below 0.97)"),
            "{text}"
        );
    }
}
