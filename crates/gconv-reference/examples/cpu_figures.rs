//! Measures GFLOP/s of the f64 reference and of the CPU backend variants on problem keys.
//!
//! Usage: `cargo run --release -p gconv-reference --example cpu_figures -- [--n N]
//! [--no-reference | --reference-only] [--variant NAME] [KEY | FILE]...`. Without keys it uses a built-in sample of model-zoo
//! layers. `--n` replaces the batch size (default 1). Each CPU result is verified against the
//! reference (when it is run); times are the best of five runs (one for the reference).

use gconv_problem::verify::{compare, Tolerance};
use gconv_problem::{parse_problems_text, HostTensor, Problem};
use gconv_reference::cpu::{choose, run, CpuVariant};
use gconv_reference::{gflops, reference_tensors};
use std::time::Instant;

const SAMPLE: &[&str] = &[
    "fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
    "fwd_bf16_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
    "fwd_bf16_n32_g240_c240_k240_i28x28_f5x5_s1x1_p2x2_d1x1",
    "fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
    "fwd_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
    "fwd_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    "fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
    "fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
    "fwd_bf16_n32_g1_c116_k116_i28x28_f1x1_s1x1_p0x0_d1x1",
    "fwd_bf16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    "fwd_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
];

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(v);
    }
    (best, out.expect("runs >= 1"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut n = 1u64;
    let mut with_reference = true;
    let mut reference_only = false;
    let mut only: Option<CpuVariant> = None;
    let mut problems: Vec<Problem> = vec![];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--n" => n = args.next().ok_or("--n needs a value")?.parse()?,
            "--no-reference" => with_reference = false,
            "--reference-only" => reference_only = true,
            "--variant" => only = Some(args.next().ok_or("--variant needs a name")?.parse()?),
            s if std::path::Path::new(s).is_file() => {
                problems.extend(parse_problems_text(s, &std::fs::read_to_string(s)?)?)
            }
            s => problems.push(s.parse()?),
        }
    }
    if problems.is_empty() {
        for key in SAMPLE {
            let p: Problem = key.parse()?;
            for d in gconv_problem::Direction::ALL {
                problems.push(p.with_direction(d));
            }
        }
    }
    println!(
        "threads {}; N = {n}; GFLOP/s (best of 5; reference once)",
        rayon::current_num_threads()
    );
    println!(
        "{:<62} {:>8} {:>9} {:>9} {:>9} {:>16}",
        "problem", "GFLOP", "ref", "direct", "gemm", "auto"
    );
    for p in problems {
        let p = Problem { n, ..p };
        let ([r0, r1], _) = p.direction.roles();
        let a = HostTensor::random_for(&p, r0, 1);
        let b = HostTensor::random_for(&p, r1, 2);
        let want = if with_reference {
            let (t, r) = best_of(1, || reference_tensors(&p, &a, &b));
            Some((t, r?))
        } else {
            None
        };
        let mut cols = vec![];
        for v in CpuVariant::POOL {
            if reference_only || only.is_some_and(|o| o != v) {
                cols.push((v, f64::NAN));
                continue;
            }
            let (t, out) = best_of(5, || run(v, &p, &a, &b));
            let out = out?;
            if let Some((_, r)) = &want {
                let c = compare(&out, r, Tolerance::for_problem(&p));
                if !c.passed() {
                    return Err(format!("{v} failed verification on {p}: {c:?}").into());
                }
            }
            cols.push((v, gflops(&p, t)));
        }
        let auto = choose(&p);
        let auto_g = cols.iter().find(|c| c.0 == auto).map_or(0.0, |c| c.1);
        let fmt = |v: f64| {
            if v.is_nan() {
                "-".to_string()
            } else {
                format!("{v:.2}")
            }
        };
        println!(
            "{:<62} {:>8.3} {:>9} {:>9} {:>9} {:>7} ({})",
            p.to_string(),
            p.flops() / 1e9,
            want.as_ref()
                .map_or("-".to_string(), |(t, _)| fmt(gflops(&p, *t))),
            fmt(cols[0].1),
            fmt(cols[1].1),
            fmt(auto_g),
            if auto == CpuVariant::Direct {
                "direct"
            } else {
                "gemm"
            },
        );
    }
    Ok(())
}
