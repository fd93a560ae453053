//! The device comparison kernel (`gconv_cuda::compare`) without a GPU:
//!
//! - its CUDA source compiles with NVRTC to an sm_90 CUBIN (skipped when libnvrtc cannot be
//!   loaded, unless `GCONV_REQUIRE_NVRTC=1`);
//! - the same source, compiled by g++ under a few definitions that stand for the CUDA built-ins
//!   (`-ffp-contract=off`, the explicit-rounding intrinsics as plain IEEE operations), run for
//!   every thread of the launch the device would make, merged by `compare::merge`, gives
//!   exactly the comparison `gconv_problem::compare` computes on the host: failures, both
//!   maxima, the worst index, for f32, f16 and bf16 outputs, with values inside and outside
//!   the tolerance, ties, NaN and infinities (skipped without g++, unless
//!   `GCONV_REQUIRE_HOST_CXX=1`).

use gconv_cuda::compare::{
    compare_source, merge, Partial, COMPARE_BLOCKS, COMPARE_SOURCE, COMPARE_THREADS, PARTIAL_BYTES,
};
use gconv_cuda::nvrtc::{compile_cubin, nvrtc_version, CompileOptions};
use gconv_problem::tensor::SplitMix64;
use gconv_problem::{compare, Comparison, DType, HostTensor, Tolerance};
use std::path::Path;
use std::process::Command;

#[test]
fn compare_kernel_compiles_with_nvrtc() {
    if let Err(e) = nvrtc_version() {
        if std::env::var_os("GCONV_REQUIRE_NVRTC").is_some_and(|v| v == "1") {
            panic!("NVRTC required (GCONV_REQUIRE_NVRTC=1) but unavailable: {e}");
        }
        println!("SKIPPED: compare_kernel_compiles_with_nvrtc: libnvrtc not loadable: {e}");
        return;
    }
    let k = compile_cubin(&compare_source(), &CompileOptions::default()).expect("compiles");
    assert!(!k.cubin.is_empty());
    assert_eq!(k.total_spills(), 0, "{}", k.log);
    println!("gconv_compare: {} registers", k.max_regs());
}

const PRELUDE: &str = r#"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
struct gconv_dim3 { unsigned int x, y, z; };
static gconv_dim3 blockIdx, threadIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
static inline double __longlong_as_double(long long v) { double d; std::memcpy(&d, &v, 8); return d; }
static inline long long __double_as_longlong(double d) { long long v; std::memcpy(&v, &d, 8); return v; }
static inline float __uint_as_float(unsigned int u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
"#;

const MAIN: &str = r#"
static std::vector<char> slurp(const char* path) {
    FILE* f = std::fopen(path, "rb");
    if (!f) { std::perror(path); std::exit(2); }
    std::fseek(f, 0, SEEK_END);
    long n = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    std::vector<char> v(n > 0 ? n : 1);
    if (n > 0 && std::fread(v.data(), 1, n, f) != (size_t)n) { std::exit(3); }
    std::fclose(f);
    return v;
}
// args: out.bin ref.bin parts.bin n dtype rtol atol scale blocks threads
int main(int argc, char** argv) {
    if (argc != 11) return 1;
    std::vector<char> out = slurp(argv[1]);
    std::vector<char> ref = slurp(argv[2]);
    unsigned long long n = std::strtoull(argv[4], nullptr, 10);
    int dtype = std::atoi(argv[5]);
    double rtol, atol, scale;
    unsigned long long b;
    b = std::strtoull(argv[6], nullptr, 16); std::memcpy(&rtol, &b, 8);
    b = std::strtoull(argv[7], nullptr, 16); std::memcpy(&atol, &b, 8);
    b = std::strtoull(argv[8], nullptr, 16); std::memcpy(&scale, &b, 8);
    unsigned int blocks = std::atoi(argv[9]), threads = std::atoi(argv[10]);
    std::vector<gconv_cmp_partial> parts((size_t)blocks * threads);
    gridDim.x = blocks; blockDim.x = threads;
    for (unsigned int bx = 0; bx < blocks; ++bx) {
        for (unsigned int tx = 0; tx < threads; ++tx) {
            blockIdx.x = bx; threadIdx.x = tx;
            gconv_compare(out.data(), (const double*)ref.data(), parts.data(), n, rtol, atol, scale, dtype);
        }
    }
    static_assert(sizeof(gconv_cmp_partial) == 48, "partial layout");
    FILE* f = std::fopen(argv[3], "wb");
    std::fwrite(parts.data(), sizeof(gconv_cmp_partial), parts.size(), f);
    std::fclose(f);
    return 0;
}
"#;

fn host_cxx_or_skip(test: &str) -> bool {
    let ok = Command::new("g++")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var_os("GCONV_REQUIRE_HOST_CXX").is_some_and(|v| v == "1") {
            panic!("{test}: g++ required (GCONV_REQUIRE_HOST_CXX=1) but not runnable");
        }
        println!("SKIPPED: {test}: g++ not runnable");
    }
    ok
}

fn build(dir: &Path) -> std::path::PathBuf {
    let src = dir.join("compare.cpp");
    std::fs::write(&src, format!("{PRELUDE}\n{COMPARE_SOURCE}\n{MAIN}")).unwrap();
    let exe = dir.join("compare");
    let o = Command::new("g++")
        .args(["-std=c++17", "-O2", "-ffp-contract=off", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("g++ runs");
    assert!(
        o.status.success(),
        "g++ failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    exe
}

/// Runs the emulated launch the device would make for `out` against `reference`.
fn emulate(
    exe: &Path,
    dir: &Path,
    out: &HostTensor,
    reference: &[f64],
    tol: Tolerance,
) -> Comparison {
    let n = out.len() as u64;
    let blocks = (n.div_ceil(COMPARE_THREADS as u64) as u32).clamp(1, COMPARE_BLOCKS);
    std::fs::write(dir.join("out.bin"), out.to_bytes()).unwrap();
    let rb: Vec<u8> = reference.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(dir.join("ref.bin"), rb).unwrap();
    let dtype = match out.dtype() {
        DType::F32 => 0,
        DType::F16 => 1,
        DType::Bf16 => 2,
    };
    let hex = |x: f64| format!("{:x}", x.to_bits());
    let o = Command::new(exe)
        .arg(dir.join("out.bin"))
        .arg(dir.join("ref.bin"))
        .arg(dir.join("parts.bin"))
        .arg(n.to_string())
        .arg(dtype.to_string())
        .args([hex(tol.rtol), hex(tol.atol), hex(tol.scale)])
        .arg(blocks.to_string())
        .arg(COMPARE_THREADS.to_string())
        .output()
        .expect("emulation runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(dir.join("parts.bin")).unwrap();
    let parts: Vec<Partial> = bytes
        .chunks_exact(PARTIAL_BYTES)
        .filter_map(Partial::from_bytes)
        .collect();
    assert_eq!(parts.len(), (blocks * COMPARE_THREADS) as usize);
    merge(&parts, out.len(), tol)
}

fn same(a: &Comparison, b: &Comparison) -> bool {
    let eq = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
    a.failures == b.failures
        && a.count == b.count
        && a.worst_index == b.worst_index
        && eq(a.max_abs_err, b.max_abs_err)
        && eq(a.max_rel_err, b.max_rel_err)
}

/// A reference of `n` values of a sum of `l` products (magnitude ~ sqrt(l)/3) and an output
/// that is the reference rounded to `dtype`, then perturbed per `mode`.
fn case(dtype: DType, n: usize, l: u64, mode: u32, seed: u64) -> (HostTensor, Vec<f64>, Tolerance) {
    let tol = Tolerance::for_dtype(dtype, l);
    let mut rng = SplitMix64::new(seed);
    let reference: Vec<f64> = (0..n)
        .map(|_| rng.next_signed_unit() * tol.scale * 3.0)
        .collect();
    let mut out: Vec<f64> = reference.clone();
    match mode {
        // rounding only: passes
        0 => {}
        // noise around the tolerance: some fail, many ties in the ratio after rounding
        1 => {
            for (i, v) in out.iter_mut().enumerate() {
                let b = tol.rtol * reference[i].abs() + tol.atol;
                *v += b * 1.5 * rng.next_signed_unit();
            }
        }
        // the same error everywhere (ties: the first index must win) plus exact zeros
        2 => {
            for (i, v) in out.iter_mut().enumerate() {
                *v = if i % 5 == 0 { 0.0 } else { reference[i] + 0.25 };
            }
        }
        // NaN and infinities in the output
        3 => {
            for i in [3usize, n / 2, n - 2] {
                out[i] = f64::NAN;
            }
            out[7] = f64::INFINITY;
            out[n / 3] = f64::NEG_INFINITY;
        }
        // subnormal-range and huge values (f16 subnormals, bf16/f32 large exponents)
        _ => {
            for (i, v) in out.iter_mut().enumerate() {
                *v = match i % 4 {
                    0 => 3e-8 * (i as f64 % 7.0),
                    1 => -6.1e-5,
                    2 => 6.0e4,
                    _ => *v,
                };
            }
        }
    }
    (HostTensor::from_f64(dtype, &out), reference, tol)
}

#[test]
fn emulated_device_comparison_equals_the_host_comparison() {
    if !host_cxx_or_skip("emulated_device_comparison_equals_the_host_comparison") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = build(dir.path());
    let mut checked = 0;
    for dtype in DType::ALL {
        // sizes below one thread per element, exactly one block, and several elements per
        // thread of the full launch
        for n in [1usize, 37, 256, 70_001, 100_000] {
            for mode in 0..5 {
                if mode == 3 && n < 8 {
                    continue;
                }
                let (out, reference, tol) = case(dtype, n, 144, mode, 11 + mode as u64);
                let host = compare(&out, &reference, tol);
                let dev = emulate(&exe, dir.path(), &out, &reference, tol);
                assert!(
                    same(&host, &dev),
                    "{dtype} n={n} mode={mode}:\nhost   {host:?}\ndevice {dev:?}"
                );
                if mode == 0 {
                    assert!(host.passed(), "{dtype} n={n}: rounding alone passes");
                }
                if mode >= 2 && n > 8 {
                    assert!(!host.passed(), "{dtype} n={n} mode={mode} must fail");
                }
                checked += 1;
            }
        }
    }
    println!("{checked} comparisons identical");
}

/// Every finite f16 and bf16 value (and a spread of f32 bit patterns) against its exact value:
/// the device's decoding must give difference 0 everywhere. Then equal errors everywhere: the
/// first index must be the worst.
#[test]
fn emulated_decoding_is_exact_and_ties_go_to_the_first_index() {
    if !host_cxx_or_skip("emulated_decoding_is_exact_and_ties_go_to_the_first_index") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = build(dir.path());
    for dtype in DType::ALL {
        let bytes: Vec<u8> = match dtype {
            DType::F32 => {
                let mut rng = SplitMix64::new(3);
                (0..200_000)
                    .map(|_| rng.next_u64() as u32)
                    .filter(|b| (b >> 23) & 0xff != 0xff)
                    .flat_map(|b| b.to_le_bytes())
                    .collect()
            }
            DType::F16 => (0..=u16::MAX)
                .filter(|b| (b >> 10) & 0x1f != 0x1f)
                .flat_map(|b| b.to_le_bytes())
                .collect(),
            DType::Bf16 => (0..=u16::MAX)
                .filter(|b| (b >> 7) & 0xff != 0xff)
                .flat_map(|b| b.to_le_bytes())
                .collect(),
        };
        let out = HostTensor::from_bytes(dtype, &bytes).unwrap();
        let exact = out.to_f64();
        let tol = Tolerance::for_dtype(dtype, 9);
        let host = compare(&out, &exact, tol);
        assert_eq!((host.max_abs_err, host.failures), (0.0, 0), "{dtype}");
        let dev = emulate(&exe, dir.path(), &out, &exact, tol);
        assert!(
            same(&host, &dev),
            "{dtype}:\nhost   {host:?}\ndevice {dev:?}"
        );
        // ties: the same value and the same error everywhere
        let n = 50_000;
        let reference = vec![1.0; n];
        let out = HostTensor::from_f64(dtype, &vec![1.5; n]);
        let host = compare(&out, &reference, tol);
        assert_eq!(host.worst_index, 0);
        let dev = emulate(&exe, dir.path(), &out, &reference, tol);
        assert!(
            same(&host, &dev),
            "{dtype} ties:\nhost   {host:?}\ndevice {dev:?}"
        );
    }
}
