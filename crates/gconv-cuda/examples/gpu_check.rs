//! GPU check of the CUDA backend on a real device: probes it, runs the GPU reference kernels on
//! a matrix of small problems (every direction × dtype × rank, groups, depthwise, channel
//! multiplier, stride/pad/dilation) against the f64 CPU reference, exercises the runtime
//! (dynamic shared memory above 48 KiB, multi-launch modules with a workspace, launch errors,
//! 64-bit offsets, kernel faults) and times medium problems with CUDA events.
//!
//! Run on the GPU machine: `gpu_check` (no arguments). Ends with `N passed, N failed` and exits
//! non-zero when anything failed. Without a GPU it prints why and exits with status 2.

use gconv_cuda::cache::{compile_cached, CacheHit};
use gconv_cuda::runtime::{GpuRuntime, TimingOptions};
use gconv_cuda::{CompileOptions, CudaError};
use gconv_kernels::reference::reference_source;
use gconv_kernels::{Arch, KernelSource, Launch};
use gconv_problem::{
    compare, DType, DeviceSpec, Direction, HostTensor, Problem, TensorData, TensorRole, Tolerance,
};
use std::time::Instant;

struct Tally {
    passed: u32,
    failed: u32,
}

impl Tally {
    fn record(&mut self, ok: bool, line: String) {
        if ok {
            self.passed += 1;
            println!("PASS {line}");
        } else {
            self.failed += 1;
            println!("FAIL {line}");
        }
    }
}

/// The correctness matrix: base geometries, each run in every direction and dtype.
const BASES: &[&str] = &[
    "fwd_f32_n2_g2_c4_k6_i17_f3_s2_p1_d1",
    "fwd_f32_n1_g4_c8_k8_i20_f5_s1_p4_d2",
    "fwd_f32_n2_g1_c8_k16_i9x9_f3x3_s1x1_p1x1_d1x1",
    "fwd_f32_n2_g3_c12_k9_i11x10_f3x3_s2x2_p2x1_d2x1",
    "fwd_f32_n2_g16_c16_k16_i12x12_f5x5_s1x1_p2x2_d1x1",
    "fwd_f32_n1_g8_c8_k16_i7x7_f3x3_s2x2_p1x1_d1x1",
    "fwd_f32_n2_g2_c8_k8_i9x9_f1x1_s3x3_p0x0_d1x1",
    "fwd_f32_n1_g5_c15_k10_i4x4_f3x3_s1x1_p3x3_d1x1",
    "fwd_f32_n1_g2_c4_k4_i5x6x7_f3x3x3_s1x2x1_p1x1x1_d1x1x2",
    "fwd_f32_n2_g8_c8_k8_i6x6x6_f3x3x3_s2x2x2_p1x1x1_d1x1x1",
    "fwd_f32_n4_g4_c32_k32_i28x28_f3x3_s1x1_p1x1_d1x1",
];

fn check_problem(rt: &GpuRuntime, p: &Problem, t: &mut Tally) -> Result<(), CudaError> {
    let ([r0, r1], _) = p.roles();
    let in0 = HostTensor::random_for(p, r0, 1);
    let in1 = HostTensor::random_for(p, r1, 2);
    let src = reference_source(p);
    let (compiled, hit) = compile_cached(&src, &CompileOptions::default())?;
    let k = rt.load(&compiled, &src)?;
    let b = rt.buffers(p, &k, &in0, &in1)?;
    rt.launch(&k, &b)?;
    let out = rt.download(&b.out)?;
    let want = match gconv_reference::reference_tensors(p, &in0, &in1) {
        Ok(v) => v,
        Err(e) => {
            t.record(false, format!("{p}: CPU reference failed: {e}"));
            return Ok(());
        }
    };
    let c = compare(&out, &want, Tolerance::for_problem(p));
    let regs = compiled.max_regs();
    t.record(
        c.passed(),
        format!(
            "{p}: max_abs {:.3e} max_rel {:.3e} fails {}/{} | compile {:.1} ms ({}) regs {regs} spills {}",
            c.max_abs_err,
            c.max_rel_err,
            c.failures,
            c.count,
            compiled.compile_ms,
            hit_word(&hit),
            compiled.total_spills()
        ),
    );
    Ok(())
}

fn hit_word(h: &CacheHit) -> String {
    match h {
        CacheHit::Hit => "cache hit".into(),
        CacheHit::Miss => "cache miss".into(),
        CacheHit::Replaced { reason } => format!("cache replaced: {reason}"),
        CacheHit::NotStored { reason } => format!("not cached: {reason}"),
    }
}

fn module(name: &str, code: &str, launches: Vec<Launch>, workspace_bytes: u64) -> KernelSource {
    KernelSource {
        kernel_name: name.to_string(),
        code: code.to_string(),
        arch: Arch::Sm90,
        launches,
        workspace_bytes,
    }
}

fn launch(entry: &str, grid: u32, block: u32, smem: u32) -> Launch {
    Launch {
        entry: entry.to_string(),
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        dynamic_smem_bytes: smem,
        overlaps_previous: false,
        cluster: 1,
        tensor_maps: Vec::new(),
    }
}

/// A problem of f32 elementwise work used by the runtime checks: in0, in1, out have 4096 f32.
fn elementwise_problem() -> Problem {
    // X = W = Y = 4096 elements: N1, 1D i1 f1, G1, C = K = 4096... W would be K*C; use depthwise.
    "fwd_f32_n1_g4096_c4096_k4096_i1_f1_s1_p0_d1"
        .parse()
        .expect("valid key")
}

/// Dynamic shared memory above 48 KiB, two launches in order through a workspace.
fn runtime_features(rt: &GpuRuntime, t: &mut Tally) -> Result<(), CudaError> {
    let p = elementwise_problem();
    let n = 4096usize;
    let a = HostTensor::random(DType::F32, n, 11);
    let bb = HostTensor::random(DType::F32, n, 12);
    // 1. 160 KiB of dynamic shared memory: each block stages its slice through the far end.
    let smem = 160 * 1024;
    let code = r#"
extern "C" __global__ void big_smem(const void* in0, const void* in1, void* out, void* ws) {
  extern __shared__ float s[];
  const float* a = (const float*)in0; const float* b = (const float*)in1; float* y = (float*)out;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int far = 160 * 1024 / 4 - blockDim.x;
  s[far + threadIdx.x] = a[i] * b[i];
  __syncthreads();
  y[i] = s[far + (blockDim.x - 1 - threadIdx.x)];
}
"#;
    let src = module(
        "check_big_smem",
        code,
        vec![launch("big_smem", 16, 256, smem)],
        0,
    );
    let (ck, _) = compile_cached(&src, &CompileOptions::default())?;
    let k = rt.load(&ck, &src)?;
    let b = rt.buffers(&p, &k, &a, &bb)?;
    rt.launch(&k, &b)?;
    let out = rt.download(&b.out)?.to_f64();
    let (av, bv) = (a.to_f64(), bb.to_f64());
    let ok = (0..n).all(|i| {
        let blk = i / 256;
        let j = blk * 256 + (255 - i % 256);
        out[i] == ((av[j] as f32) * (bv[j] as f32)) as f64
    });
    t.record(
        ok,
        format!("runtime: 160 KiB dynamic shared memory ({smem} B) launch"),
    );

    // 2. Two launches through a workspace: ws = 2*a, then out = ws + b.
    let code = r#"
extern "C" __global__ void stage1(const void* in0, const void* in1, void* out, void* ws) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  ((float*)ws)[i] = 2.0f * ((const float*)in0)[i];
}
extern "C" __global__ void stage2(const void* in0, const void* in1, void* out, void* ws) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  ((float*)out)[i] = ((const float*)ws)[i] + ((const float*)in1)[i];
}
"#;
    let src = module(
        "check_two_stage",
        code,
        vec![launch("stage1", 16, 256, 0), launch("stage2", 16, 256, 0)],
        (n * 4) as u64,
    );
    let (ck, _) = compile_cached(&src, &CompileOptions::default())?;
    let k = rt.load(&ck, &src)?;
    let b = rt.buffers(&p, &k, &a, &bb)?;
    rt.launch(&k, &b)?;
    let out = rt.download(&b.out)?.to_f64();
    let ok = (0..n).all(|i| out[i] == (2.0 * av[i] as f32 + bv[i] as f32) as f64);
    t.record(
        ok,
        "runtime: two launches in order through a workspace".into(),
    );

    // 3. A launch the driver must refuse (2048 threads per block) is a LaunchFailed error.
    let src = module(
        "check_bad_block",
        code,
        vec![launch("stage1", 1, 2048, 0)],
        64,
    );
    let (ck, _) = compile_cached(&src, &CompileOptions::default())?;
    let k = rt.load(&ck, &src)?;
    let b = rt.buffers(&p, &k, &a, &bb)?;
    match rt.launch(&k, &b) {
        Err(e @ CudaError::LaunchFailed { .. }) => {
            t.record(true, format!("runtime: bad launch reported: {e}"))
        }
        other => t.record(false, format!("runtime: bad launch gave {other:?}")),
    }
    // The context must still work after a refused launch.
    rt.synchronize()?;
    Ok(())
}

/// Fast deterministic bf16 fill (the generic generator goes through f64 and is slow at 2^30).
fn fill_bf16(len: usize, seed: u32) -> HostTensor {
    let mut s = seed.wrapping_mul(2_654_435_761).max(1);
    let v: Vec<half::bf16> = (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            half::bf16::from_f32(((s >> 8) as f32 / (1u32 << 24) as f32) * 2.0 - 1.0)
        })
        .collect();
    HostTensor {
        data: TensorData::Bf16(v),
    }
}

/// f64 value of one forward output element, straight from the definition.
fn fwd_element(p: &Problem, x: &dyn Fn(u64) -> f64, w: &dyn Fn(u64) -> f64, i: u64) -> f64 {
    let [_, od_n, oh_n, ow_n, g_n, k_n] = p.dims(TensorRole::Y);
    let [_, di, hi, wi, _, cpg] = p.dims(TensorRole::X);
    let mut r = i;
    let k = r % k_n;
    r /= k_n;
    let g = r % g_n;
    r /= g_n;
    let ow = r % ow_n;
    r /= ow_n;
    let oh = r % oh_n;
    r /= oh_n;
    let od = r % od_n;
    let n = r / od_n;
    let [fz, fy, fx] = p.filter;
    let mut acc = 0.0;
    for z in 0..fz {
        for y in 0..fy {
            for xx in 0..fx {
                let id = (od * p.stride[0] + z * p.dilation[0]) as i64 - p.pad[0] as i64;
                let ih = (oh * p.stride[1] + y * p.dilation[1]) as i64 - p.pad[1] as i64;
                let iw = (ow * p.stride[2] + xx * p.dilation[2]) as i64 - p.pad[2] as i64;
                if id < 0
                    || ih < 0
                    || iw < 0
                    || id >= di as i64
                    || ih >= hi as i64
                    || iw >= wi as i64
                {
                    continue;
                }
                for c in 0..cpg {
                    let xo = ((((n * di + id as u64) * hi + ih as u64) * wi + iw as u64) * g_n + g)
                        * cpg
                        + c;
                    let wo = ((((g * k_n + k) * fz + z) * fy + y) * fx + xx) * cpg + c;
                    acc += x(xo) * w(wo);
                }
            }
        }
    }
    acc
}

/// 64-bit offsets: X and Y have more than 2^31 elements; spot-check outputs against f64.
fn wide_index(rt: &GpuRuntime, t: &mut Tally) -> Result<(), CudaError> {
    let p: Problem = "fwd_bf16_n1_g1_c16_k16_i11600x11600_f3x3_s1x1_p1x1_d1x1"
        .parse()
        .expect("valid key");
    let src = reference_source(&p);
    let wide = src.code.contains("typedef long long idx_t;");
    let t0 = Instant::now();
    let x = fill_bf16(p.elements(TensorRole::X) as usize, 3);
    let w = fill_bf16(p.elements(TensorRole::W) as usize, 4);
    let (ck, _) = compile_cached(&src, &CompileOptions::default())?;
    let k = rt.load(&ck, &src)?;
    let b = rt.buffers(&p, &k, &x, &w)?;
    rt.launch(&k, &b)?;
    let out = rt.download(&b.out)?;
    let bf16_at = |t: &HostTensor, i: u64| -> f64 {
        match &t.data {
            TensorData::Bf16(v) => v.get(i as usize).map_or(f64::NAN, |b| b.to_f64()),
            _ => f64::NAN,
        }
    };
    let xf = |i: u64| bf16_at(&x, i);
    let wf = |i: u64| bf16_at(&w, i);
    let total = p.elements(TensorRole::Y);
    let tol = Tolerance::for_problem(&p);
    let mut worst = 0.0f64;
    let mut bad = 0;
    let picks: Vec<u64> = (0..2000u64)
        .map(|j| (j * 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(j + 1)) % total)
        .chain([0, total - 1, total / 2, (1u64 << 31) + 5, total - 17])
        .filter(|&i| i < total)
        .collect();
    for &i in &picks {
        let r = fwd_element(&p, &xf, &wf, i);
        let d = (bf16_at(&out, i) - r).abs();
        worst = worst.max(d);
        if d.is_nan() || d > tol.rtol * r.abs() + tol.atol {
            bad += 1;
        }
    }
    t.record(
        wide && bad == 0,
        format!(
            "{p}: 64-bit offsets {wide}, {} elements of Y, {} spot checks, {bad} outside tolerance, max abs err {worst:.3e} ({:.1} s)",
            total,
            picks.len(),
            t0.elapsed().as_secs_f64()
        ),
    );
    Ok(())
}

fn time_problem(rt: &GpuRuntime, key: &str, verify: bool, t: &mut Tally) -> Result<(), CudaError> {
    let p: Problem = key.parse().expect("valid key");
    let ([r0, r1], _) = p.roles();
    let in0 = HostTensor::random_for(&p, r0, 5);
    let in1 = HostTensor::random_for(&p, r1, 6);
    let src = reference_source(&p);
    let (ck, _) = compile_cached(&src, &CompileOptions::default())?;
    let k = rt.load(&ck, &src)?;
    let b = rt.buffers(&p, &k, &in0, &in1)?;
    if verify {
        rt.launch(&k, &b)?;
        let out = rt.download(&b.out)?;
        let t0 = Instant::now();
        match gconv_reference::reference_tensors(&p, &in0, &in1) {
            Ok(want) => {
                let c = compare(&out, &want, Tolerance::for_problem(&p));
                t.record(
                    c.passed(),
                    format!(
                        "{p}: max_abs {:.3e} max_rel {:.3e} fails {}/{} (CPU reference {:.1} s)",
                        c.max_abs_err,
                        c.max_rel_err,
                        c.failures,
                        c.count,
                        t0.elapsed().as_secs_f64()
                    ),
                );
            }
            Err(e) => t.record(false, format!("{p}: CPU reference failed: {e}")),
        }
    }
    for flush in [false, true] {
        let opts = TimingOptions {
            warmup: 3,
            rounds: 11,
            iters_per_round: if flush { 1 } else { 5 },
            flush_l2: flush,
            use_graph: false,
            ..TimingOptions::default()
        };
        let tm = rt.time(&k, &b, &opts)?;
        let secs = tm.median_ms * 1e-3;
        println!(
            "TIME {p} [ref kernel]: median {:.4} ms (min {:.4}, max {:.4}) | {:.1} GB/s min-bytes, {:.2} TFLOP/s, roofline fraction {:.4}\n     method: {}",
            tm.median_ms,
            tm.min_ms,
            tm.max_ms,
            p.min_bytes() / secs * 1e-9,
            p.flops() / secs * 1e-12,
            p.roofline_fraction(&DeviceSpec::H200, secs),
            tm.method
        );
    }
    Ok(())
}

/// A kernel that writes through a null pointer must come back as a KernelFault naming it.
fn fault(rt: &GpuRuntime, t: &mut Tally) -> Result<(), CudaError> {
    let p = elementwise_problem();
    let code = r#"
extern "C" __global__ void crash(const void* in0, const void* in1, void* out, void* ws) {
  ((volatile float*)0)[threadIdx.x + 1000] = 1.0f;
}
"#;
    let src = module("check_fault", code, vec![launch("crash", 1, 32, 0)], 0);
    let (ck, _) = compile_cached(&src, &CompileOptions::default())?;
    let k = rt.load(&ck, &src)?;
    let a = HostTensor::random(DType::F32, 4096, 1);
    let b = rt.buffers(&p, &k, &a, &a)?;
    match rt.launch(&k, &b) {
        Err(e @ CudaError::KernelFault { .. }) if e.to_string().contains("check_fault") => {
            t.record(true, format!("runtime: fault reported: {e}"))
        }
        other => t.record(false, format!("runtime: fault gave {other:?}")),
    }
    Ok(())
}

/// Runs one section; an error or a panic is a failure, and the next section still runs.
fn section(t: &mut Tally, name: &str, f: impl FnOnce(&mut Tally) -> Result<(), CudaError>) {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut *t)));
    match r {
        Ok(Ok(())) => {}
        Ok(Err(e)) => t.record(false, format!("{name}: {e}")),
        Err(_) => t.record(false, format!("{name}: panicked")),
    }
}

fn main() {
    let info = match gconv_cuda::probe() {
        Ok(i) => i,
        Err(e) => {
            println!("SKIPPED: no GPU: {e}");
            std::process::exit(2);
        }
    };
    println!("probe: {info}");
    match gconv_cuda::cache::cache_dir() {
        Ok(d) => println!("compile cache: {}", d.display()),
        Err(e) => println!("compile cache: {e}"),
    }
    let rt = match GpuRuntime::new(0) {
        Ok(r) => r,
        Err(e) => {
            println!("FAIL runtime: {e}");
            std::process::exit(1);
        }
    };
    let mut t = Tally {
        passed: 0,
        failed: 0,
    };
    let t0 = Instant::now();
    for key in BASES {
        let base: Problem = key.parse().expect("valid key");
        for dir in Direction::ALL {
            for dt in DType::ALL {
                let p = base.with_direction(dir).with_dtype(dt);
                if let Err(e) = check_problem(&rt, &p, &mut t) {
                    t.record(false, format!("{p}: {e}"));
                }
            }
        }
    }
    println!(
        "reference matrix: {} problems in {:.1} s",
        BASES.len() * 9,
        t0.elapsed().as_secs_f64()
    );
    // The compile cache on this machine: the same source again is a hit.
    let again: Problem = BASES[0].parse().expect("valid key");
    section(&mut t, "cache hit check", |t| check_problem(&rt, &again, t));
    section(&mut t, "runtime features", |t| runtime_features(&rt, t));
    for (key, verify) in [
        (
            "fwd_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1",
            true,
        ),
        (
            "fwd_bf16_n32_g384_c384_k384_i56x56_f3x3_s1x1_p1x1_d1x1",
            false,
        ),
        (
            "dgrad_bf16_n32_g384_c384_k384_i56x56_f3x3_s2x2_p1x1_d1x1",
            false,
        ),
        (
            "wgrad_bf16_n32_g384_c384_k384_i56x56_f3x3_s1x1_p1x1_d1x1",
            false,
        ),
    ] {
        section(&mut t, key, |t| time_problem(&rt, key, verify, t));
    }
    section(&mut t, "64-bit index check", |t| wide_index(&rt, t));
    // Last: a fault leaves the context unusable.
    section(&mut t, "fault check", |t| fault(&rt, t));
    println!("{} passed, {} failed", t.passed, t.failed);
    if t.failed > 0 {
        std::process::exit(1);
    }
}
