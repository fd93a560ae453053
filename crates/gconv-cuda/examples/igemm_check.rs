//! GPU check and benchmark of the igemm forward family.
//!
//! 1. Correctness matrix: ~30 forward geometries (dense, grouped with C/G ∈ {1..64}, depthwise,
//!    channel multiplier, odd channels, G not a power of two, stride > filter, large padding,
//!    dilation, 1×1, N = 1, 1D, 3D) in bf16, f16 and f32. Every default-pool config (plus a few
//!    extra configs exercising split-K and narrow vector caps) that `can_implement` a problem is
//!    run and compared with the GPU reference kernel through `gconv_problem::compare`. Failures
//!    are printed in full; the section ends with `N passed, M failed`.
//! 2. Benchmark: the forward keys of the public model zoo. Every implementing pool config is
//!    verified against the GPU reference, then timed (CUDA events, warm L2, median of rounds);
//!    prints the best-in-pool and the `auto_select` choice with TFLOP/s and roofline fraction
//!    (DeviceSpec::H200), next to cuDNN's graph-timed figure from
//!    `corpus/cudnn_graph_h200_public.csv` (measured separately; for context only).
//!
//! Usage: `igemm_check [--skip-matrix] [--skip-bench] [--filter SUBSTR] [--threads N]
//! [--compile-only]` (`--compile-only`: emit and compile every kernel of both sections with NVRTC,
//! report errors and resources, touch no GPU).
//! Exit status: 0 all passed, 1 a failure, 2 no GPU.

use gconv_cuda::cache::compile_cached;
use gconv_cuda::runtime::{GpuRuntime, TimingOptions};
use gconv_cuda::{CompileOptions, CompiledKernel, CudaError};
use gconv_kernels::config::{auto_select, can_implement, default_forward_pool, KernelConfig};
use gconv_kernels::igemm::emit;
use gconv_kernels::reference::reference_source;
use gconv_kernels::KernelSource;
use gconv_problem::{compare, DType, DeviceSpec, HostTensor, Problem, Tolerance};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Forward geometries of the correctness matrix; `{dt}` becomes each dtype.
const MATRIX: &[&str] = &[
    "fwd_{dt}_n2_g1_c64_k64_i14x14_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g1_c128_k256_i16x16_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g2_c128_k128_i10x10_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g4_c128_k128_i14x14_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g8_c128_k128_i12x12_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g16_c128_k128_i12x12_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g32_c128_k128_i10x10_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g32_c64_k64_i10x10_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g64_c64_k64_i12x12_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g32_c32_k32_i15x15_f5x5_s2x2_p2x2_d1x1",
    "fwd_{dt}_n1_g32_c32_k32_i14x14_f7x7_s1x1_p3x3_d1x1",
    "fwd_{dt}_n2_g16_c16_k32_i10x10_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g1_c7_k9_i9x9_f3x3_s2x2_p1x1_d1x1",
    "fwd_{dt}_n2_g3_c15_k9_i11x10_f3x3_s2x2_p2x1_d2x1",
    "fwd_{dt}_n2_g6_c48_k48_i9x9_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g12_c48_k48_i9x9_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g2_c32_k32_i13x13_f1x1_s3x3_p0x0_d1x1",
    "fwd_{dt}_n1_g4_c32_k32_i6x6_f3x3_s1x1_p3x3_d1x1",
    "fwd_{dt}_n2_g2_c32_k64_i16x16_f3x3_s1x1_p2x2_d2x2",
    "fwd_{dt}_n2_g1_c64_k128_i10x10_f1x1_s1x1_p0x0_d1x1",
    "fwd_{dt}_n2_g4_c128_k128_i7x7_f1x1_s1x1_p0x0_d1x1",
    "fwd_{dt}_n1_g1_c116_k116_i9x9_f1x1_s1x1_p0x0_d1x1",
    "fwd_{dt}_n1_g1_c256_k128_i8x8_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g2_c32_k32_i40_f5_s1_p2_d1",
    "fwd_{dt}_n2_g4_c16_k16_i33_f3_s2_p1_d2",
    "fwd_{dt}_n1_g2_c32_k32_i6x8x8_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    "fwd_{dt}_n1_g16_c16_k16_i5x6x6_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
    "fwd_{dt}_n1_g1_c32_k300_i6x6_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n1_g2_c48_k40_i5x7_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n2_g2_c48_k48_i12x12_f3x3_s1x1_p1x1_d1x1",
    "fwd_{dt}_n1_g8_c448_k448_i7x7_f3x3_s1x1_p1x1_d1x1",
];

/// Extra configs beyond the pool: split-K and narrow vector caps (`{dt}` as above).
const EXTRA_HALF: &[&str] = &[
    "igemm_fwd_{dt}_t64x64x32_w2x2_s4_v8x8_gm1_sk4d_mma_gen",
    "igemm_fwd_{dt}_t128x64x32_w2x2_s3_v2x2_gm1_sk1d_mma_gen",
    "igemm_fwd_{dt}_t64x64x32_w2x2_s3_v1x1_gm1_sk1d_mma_gen",
    "igemm_fwd_{dt}_t64x32x32_w2x1_s3_v4x1_gm2_sk1d_mma_gen",
];
const EXTRA_F32: &[&str] = &[
    "igemm_fwd_f32_t64x64x16_w2x2_s4_v4x4_gm1_sk2d_simt_gen",
    "igemm_fwd_f32_t64x64x16_w2x2_s3_v1x1_gm1_sk1d_simt_gen",
    "igemm_fwd_f32_t64x64x32_w2x2_s3_v2x2_gm1_sk1d_simt_pw",
];

/// Forward keys of corpus/model_zoo_public.txt with cuDNN's graph-timed ms
/// (corpus/cudnn_graph_h200_public.csv, PyTorch 2.11 + cuDNN 9.19, CUDA-graph replay).
const ZOO: &[(&str, f64)] = &[
    (
        "fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
        0.0260,
    ),
    (
        "fwd_bf16_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
        0.0384,
    ),
    (
        "fwd_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1",
        0.0309,
    ),
    (
        "fwd_bf16_n32_g192_c192_k192_i28x28_f3x3_s1x1_p1x1_d1x1",
        0.0119,
    ),
    (
        "fwd_bf16_n32_g384_c384_k384_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0075,
    ),
    (
        "fwd_bf16_n32_g576_c576_k576_i14x14_f3x3_s2x2_p1x1_d1x1",
        0.0067,
    ),
    (
        "fwd_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1",
        0.0057,
    ),
    (
        "fwd_bf16_n32_g240_c240_k240_i28x28_f5x5_s1x1_p2x2_d1x1",
        0.0269,
    ),
    (
        "fwd_bf16_n32_g672_c672_k672_i14x14_f5x5_s1x1_p2x2_d1x1",
        0.0205,
    ),
    (
        "fwd_bf16_n32_g1152_c1152_k1152_i7x7_f5x5_s1x1_p2x2_d1x1",
        0.0129,
    ),
    (
        "fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
        0.0732,
    ),
    (
        "fwd_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1",
        0.0436,
    ),
    (
        "fwd_bf16_n32_g384_c384_k384_i14x14_f7x7_s1x1_p3x3_d1x1",
        0.0234,
    ),
    (
        "fwd_bf16_n32_g768_c768_k768_i7x7_f7x7_s1x1_p3x3_d1x1",
        0.0180,
    ),
    (
        "fwd_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
        0.0480,
    ),
    (
        "fwd_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
        0.0314,
    ),
    (
        "fwd_bf16_n32_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0149,
    ),
    (
        "fwd_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
        0.0088,
    ),
    ("fwd_bf16_n32_g2_c48_k48_i56x56_f3x3_s1x1_p1x1_d1x1", 0.0496),
    (
        "fwd_bf16_n32_g14_c336_k336_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0418,
    ),
    (
        "fwd_bf16_n32_g8_c448_k448_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0465,
    ),
    (
        "fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
        0.0304,
    ),
    (
        "fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
        0.0081,
    ),
    (
        "fwd_bf16_n32_g1_c116_k116_i28x28_f1x1_s1x1_p0x0_d1x1",
        0.0099,
    ),
    (
        "fwd_bf16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        0.4256,
    ),
    (
        "fwd_bf16_n8_g216_c216_k216_i16x14x14_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        0.1105,
    ),
    (
        "fwd_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        0.1464,
    ),
];

struct Args {
    matrix: bool,
    bench: bool,
    filter: Option<String>,
    threads: usize,
    compile_only: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        matrix: true,
        bench: true,
        filter: None,
        compile_only: false,
        threads: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(4),
    };
    let mut it = std::env::args().skip(1);
    while let Some(s) = it.next() {
        match s.as_str() {
            "--skip-matrix" => a.matrix = false,
            "--skip-bench" => a.bench = false,
            "--compile-only" => a.compile_only = true,
            "--filter" => a.filter = Some(it.next().ok_or("--filter needs a value")?),
            "--threads" => {
                let v = it.next().ok_or("--threads needs a value")?;
                a.threads = v
                    .parse::<usize>()
                    .map_err(|_| format!("--threads: bad number {v:?}"))?
                    .max(1);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(a)
}

/// Compiles all sources in parallel; results in input order.
fn compile_all(srcs: &[KernelSource], threads: usize) -> Vec<Result<CompiledKernel, CudaError>> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Result<CompiledKernel, CudaError>>>> =
        Mutex::new((0..srcs.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(src) = srcs.get(i) else { break };
                let r = compile_cached(src, &CompileOptions::default()).map(|(k, _)| k);
                out.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| {
                Err(CudaError::InvalidOption {
                    option: "compile",
                    reason: "not compiled".into(),
                })
            })
        })
        .collect()
}

fn configs_for(dt: DType) -> Vec<KernelConfig> {
    let mut v = default_forward_pool(dt);
    let extra = if dt == DType::F32 {
        EXTRA_F32
    } else {
        EXTRA_HALF
    };
    for e in extra {
        match e.replace("{dt}", dt.token()).parse::<KernelConfig>() {
            Ok(c) => v.push(c),
            Err(err) => println!("BAD EXTRA CONFIG {e}: {err}"),
        }
    }
    v
}

/// Runs the GPU reference kernel; returns its output as f64.
fn reference_output(
    rt: &GpuRuntime,
    p: &Problem,
    in0: &HostTensor,
    in1: &HostTensor,
) -> Result<Vec<f64>, CudaError> {
    let src = reference_source(p);
    Ok(rt.run(p, &src, in0, in1)?.to_f64())
}

struct Outcome {
    max_abs: f64,
    max_rel: f64,
    failures: usize,
    count: usize,
}

fn run_one(
    rt: &GpuRuntime,
    p: &Problem,
    src: &KernelSource,
    compiled: &CompiledKernel,
    in0: &HostTensor,
    in1: &HostTensor,
    want: &[f64],
) -> Result<
    (
        Outcome,
        gconv_cuda::runtime::LoadedKernel,
        gconv_cuda::runtime::Buffers,
    ),
    CudaError,
> {
    let k = rt.load(compiled, src)?;
    let b = rt.buffers(p, &k, in0, in1)?;
    rt.launch(&k, &b)?;
    let out = rt.download(&b.out)?;
    let c = compare(&out, want, Tolerance::for_problem(p));
    Ok((
        Outcome {
            max_abs: c.max_abs_err,
            max_rel: c.max_rel_err,
            failures: c.failures,
            count: c.count,
        },
        k,
        b,
    ))
}

fn matrix_problems(args: &Args) -> Vec<Problem> {
    let mut problems = Vec::new();
    for dt in [DType::Bf16, DType::F16, DType::F32] {
        // f16 shares every code path with bf16 except the mma type and the conversions: run it
        // on every other geometry to keep the matrix within the device-time budget.
        for (i, key) in MATRIX.iter().enumerate() {
            if dt == DType::F16 && i % 2 == 1 {
                continue;
            }
            let key = key.replace("{dt}", dt.token());
            if args
                .filter
                .as_ref()
                .is_some_and(|f| !key.contains(f.as_str()))
            {
                continue;
            }
            match key.parse::<Problem>() {
                Ok(p) => problems.push(p),
                Err(e) => println!("BAD MATRIX KEY {key}: {e}"),
            }
        }
    }
    problems
}

fn matrix_jobs(problems: &[Problem]) -> Vec<(usize, KernelSource)> {
    let mut jobs: Vec<(usize, KernelSource)> = Vec::new();
    for (pi, p) in problems.iter().enumerate() {
        for c in configs_for(p.dtype) {
            if can_implement(&c, p).is_ok() {
                match emit(&c, p) {
                    Ok(s) => jobs.push((pi, s)),
                    Err(e) => println!("FAIL {c} on {p}: can_implement ok but emit rejected: {e}"),
                }
            }
        }
    }
    jobs
}

fn compile_only(args: &Args) -> bool {
    let problems = matrix_problems(args);
    let mut srcs: Vec<KernelSource> = matrix_jobs(&problems).into_iter().map(|(_, s)| s).collect();
    for (key, _) in ZOO {
        if let Ok(p) = key.parse::<Problem>() {
            srcs.extend(
                default_forward_pool(p.dtype)
                    .iter()
                    .filter_map(|c| emit(c, &p).ok()),
            );
        }
    }
    let t0 = Instant::now();
    let res = compile_all(&srcs, args.threads);
    let mut bad = 0;
    let (mut max_regs, mut spilled) = (0, 0);
    for (s, r) in srcs.iter().zip(&res) {
        match r {
            Ok(k) => {
                max_regs = max_regs.max(k.max_regs());
                if k.total_spills() > 0 {
                    spilled += 1;
                    println!("spills: {} {} B", s.kernel_name, k.total_spills());
                }
            }
            Err(e) => {
                bad += 1;
                println!("COMPILE FAIL {}: {e}", s.kernel_name);
            }
        }
    }
    println!(
        "compile-only: {} kernels, {bad} failed, {spilled} with spills, max regs {max_regs}, {:.1} s",
        srcs.len(),
        t0.elapsed().as_secs_f64()
    );
    bad == 0
}

fn matrix(rt: &GpuRuntime, args: &Args) -> (u32, u32) {
    let problems = matrix_problems(args);
    let jobs = matrix_jobs(&problems);
    let t0 = Instant::now();
    let srcs: Vec<KernelSource> = jobs.iter().map(|(_, s)| s.clone()).collect();
    let compiled = compile_all(&srcs, args.threads);
    println!(
        "matrix: {} problems, {} (config, problem) pairs compiled in {:.1} s on {} threads",
        problems.len(),
        srcs.len(),
        t0.elapsed().as_secs_f64(),
        args.threads
    );
    let (mut passed, mut failed) = (0u32, 0u32);
    let mut max_regs = 0u32;
    let mut spilled = 0usize;
    for (pi, p) in problems.iter().enumerate() {
        let ([r0, r1], _) = p.roles();
        let in0 = HostTensor::random_for(p, r0, 1);
        let in1 = HostTensor::random_for(p, r1, 2);
        let want = match reference_output(rt, p, &in0, &in1) {
            Ok(v) => v,
            Err(e) => {
                println!("FAIL {p}: GPU reference failed: {e}");
                failed += 1;
                continue;
            }
        };
        let (mut pp, mut pf, mut worst) = (0u32, 0u32, 0.0f64);
        for ((_, src), ck) in jobs.iter().zip(&compiled).filter(|((i, _), _)| *i == pi) {
            let ck = match ck {
                Ok(k) => k,
                Err(e) => {
                    println!("FAIL {} on {p}: compile: {e}", src.kernel_name);
                    pf += 1;
                    continue;
                }
            };
            max_regs = max_regs.max(ck.max_regs());
            if ck.total_spills() > 0 {
                spilled += 1;
            }
            match run_one(rt, p, src, ck, &in0, &in1, &want) {
                Ok((o, _, _)) if o.failures == 0 => {
                    pp += 1;
                    worst = worst.max(o.max_rel);
                }
                Ok((o, _, _)) => {
                    pf += 1;
                    println!(
                        "FAIL {} on {p}: {}/{} elements outside tolerance, max_abs {:.3e} max_rel {:.3e}",
                        src.kernel_name, o.failures, o.count, o.max_abs, o.max_rel
                    );
                }
                Err(e) => {
                    pf += 1;
                    println!("FAIL {} on {p}: {e}", src.kernel_name);
                    if matches!(e, CudaError::KernelFault { .. }) {
                        println!("kernel fault: the context is unusable; stopping the matrix");
                        return (passed + pp, failed + pf);
                    }
                }
            }
        }
        if pp + pf == 0 {
            println!("FAIL {p}: no config ran (vacuous)");
            failed += 1;
        }
        println!("problem {p}: {pp} passed, {pf} failed, worst max_rel {worst:.2e}");
        passed += pp;
        failed += pf;
    }
    println!("matrix: max registers {max_regs}, {spilled} kernels with spills");
    println!("{passed} passed, {failed} failed");
    (passed, failed)
}

fn geomean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

fn bench(rt: &GpuRuntime, args: &Args) -> u32 {
    let dev = DeviceSpec::H200;
    let opts = TimingOptions {
        warmup: 3,
        rounds: 7,
        iters_per_round: 5,
        flush_l2: false,
        use_graph: false,
        ..TimingOptions::default()
    };
    let mut problems = Vec::new();
    for (key, cudnn_ms) in ZOO {
        if args
            .filter
            .as_ref()
            .is_some_and(|f| !key.contains(f.as_str()))
        {
            continue;
        }
        match key.parse::<Problem>() {
            Ok(p) => problems.push((p, *cudnn_ms)),
            Err(e) => println!("BAD ZOO KEY {key}: {e}"),
        }
    }
    let mut jobs = Vec::new();
    for (pi, (p, _)) in problems.iter().enumerate() {
        for c in default_forward_pool(p.dtype) {
            if let Ok(s) = emit(&c, p) {
                jobs.push((pi, c, s));
            }
        }
    }
    let t0 = Instant::now();
    let srcs: Vec<KernelSource> = jobs.iter().map(|(_, _, s)| s.clone()).collect();
    let compiled = compile_all(&srcs, args.threads);
    println!(
        "bench: {} zoo problems, {} kernels compiled in {:.1} s; timing: {:?}",
        problems.len(),
        srcs.len(),
        t0.elapsed().as_secs_f64(),
        opts
    );
    let mut failures = 0u32;
    let (mut best_fracs, mut auto_fracs, mut best_vs, mut auto_vs, mut cudnn_fracs) =
        (vec![], vec![], vec![], vec![], vec![]);
    let mut method = String::new();
    for (pi, (p, cudnn_ms)) in problems.iter().enumerate() {
        let ([r0, r1], _) = p.roles();
        let in0 = HostTensor::random_for(p, r0, 1);
        let in1 = HostTensor::random_for(p, r1, 2);
        let want = match reference_output(rt, p, &in0, &in1) {
            Ok(v) => v,
            Err(e) => {
                println!("FAIL {p}: GPU reference failed: {e}");
                failures += 1;
                continue;
            }
        };
        let auto = auto_select(p);
        let mut times: HashMap<String, f64> = HashMap::new();
        for ((_, c, src), ck) in jobs.iter().zip(&compiled).filter(|((i, _, _), _)| *i == pi) {
            let ck = match ck {
                Ok(k) => k,
                Err(e) => {
                    println!("FAIL {c} on {p}: compile: {e}");
                    failures += 1;
                    continue;
                }
            };
            match run_one(rt, p, src, ck, &in0, &in1, &want) {
                Ok((o, k, b)) if o.failures == 0 => match rt.time(&k, &b, &opts) {
                    Ok(t) => {
                        if method.is_empty() {
                            method = t.method.clone();
                        }
                        times.insert(c.to_string(), t.median_ms);
                    }
                    Err(e) => println!("timing {c} on {p}: {e}"),
                },
                Ok((o, _, _)) => {
                    failures += 1;
                    println!(
                        "FAIL {c} on {p}: {}/{} outside tolerance, max_abs {:.3e} max_rel {:.3e}",
                        o.failures, o.count, o.max_abs, o.max_rel
                    );
                }
                Err(e) => {
                    failures += 1;
                    println!("FAIL {c} on {p}: {e}");
                    if matches!(e, CudaError::KernelFault { .. }) {
                        return failures;
                    }
                }
            }
        }
        let Some((best_name, best_ms)) = times
            .iter()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map(|(n, t)| (n.clone(), *t))
        else {
            println!("bench {p}: no kernel timed");
            continue;
        };
        let mut all: Vec<(&String, &f64)> = times.iter().collect();
        all.sort_by(|a, b| a.1.total_cmp(b.1));
        let all: Vec<String> = all.iter().map(|(n, t)| format!("{n}={t:.4}")).collect();
        println!("times {p}: {}", all.join(" "));
        let roof = p.roofline_seconds(&dev) * 1e3;
        let tflops = |ms: f64| p.flops() / (ms * 1e-3) / 1e12;
        best_fracs.push(roof / best_ms);
        best_vs.push(cudnn_ms / best_ms);
        cudnn_fracs.push(roof / cudnn_ms);
        let auto_part = match auto.map(|c| c.to_string()) {
            Some(n) => match times.get(&n) {
                Some(&ms) => {
                    auto_fracs.push(roof / ms);
                    auto_vs.push(cudnn_ms / ms);
                    format!(
                        "auto {n} {ms:.4} ms ({:.3} roof, {:.2}x best)",
                        roof / ms,
                        ms / best_ms
                    )
                }
                None => format!("auto {n} not timed"),
            },
            None => "auto: none".into(),
        };
        println!(
            "bench {p}: best {best_name} {best_ms:.4} ms {:.1} TFLOP/s {:.3} roof | {auto_part} | cuDNN graph {cudnn_ms:.4} ms ({:.3} roof) -> best/cuDNN speedup {:.2}x",
            tflops(best_ms),
            roof / best_ms,
            roof / cudnn_ms,
            cudnn_ms / best_ms
        );
    }
    println!("timing method: {method}");
    println!(
        "bench summary over {} problems: geomean roofline fraction best {:.3}, auto {:.3} (n={}), cuDNN graph {:.3}; geomean speedup vs cuDNN graph: best {:.2}x, auto {:.2}x",
        best_fracs.len(),
        geomean(&best_fracs),
        geomean(&auto_fracs),
        auto_fracs.len(),
        geomean(&cudnn_fracs),
        geomean(&best_vs),
        geomean(&auto_vs)
    );
    println!("bench: {failures} verification failures");
    failures
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("igemm_check: {e}");
            std::process::exit(2);
        }
    };
    if args.compile_only {
        std::process::exit(i32::from(!compile_only(&args)));
    }
    let rt = match GpuRuntime::new(0) {
        Ok(rt) => rt,
        Err(e) => {
            println!("igemm_check: no usable GPU: {e}");
            std::process::exit(2);
        }
    };
    println!("device: {}", rt.info());
    let mut bad = false;
    if args.matrix {
        let (_, failed) = matrix(&rt, &args);
        bad |= failed > 0;
    }
    if args.bench {
        bad |= bench(&rt, &args) > 0;
    }
    std::process::exit(i32::from(bad));
}
