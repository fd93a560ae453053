//! Verification on the device: [`gconv_problem::compare`] computed by a small generated kernel
//! next to the data, so that a sweep does not download every kernel's output and walk it on
//! one host core (about 60 ms for a 10-million-element output, against well under a
//! millisecond here).
//!
//! The reference values live on the device as f64 ([`DeviceReference`], uploaded once per
//! problem). One launch of [`COMPARE_SOURCE`] has each of its threads walk a grid-stride slice
//! of the elements in increasing index order and write one [`Partial`]; the host downloads
//! those (48 bytes each) and merges them ([`merge`]) into the same [`Comparison`] the host
//! comparison gives, field for field:
//!
//! - the arithmetic is the host's, in IEEE double with the rounding made explicit
//!   (`__dsub_rn`, `__dmul_rn`, `__dadd_rn`, `__ddiv_rn`: no fused multiply-add), on values
//!   converted exactly from the output's dtype;
//! - an element whose difference is NaN or whose output is not finite counts as a failure and
//!   makes both maxima infinite; the worst index is then the last such element;
//! - otherwise the worst index is the first element with the largest error-to-bound ratio.
//!
//! The source is header-free (no `cuda_fp16.h`/`cuda_bf16.h`): f16 and bf16 are decoded with
//! bit operations, so it also compiles with a host C++ compiler under a few definitions (the
//! crate's tests run it that way against the host comparison).

use crate::cache::compile_cached;
use crate::error::{driver_message, CudaError};
use crate::nvrtc::CompileOptions;
use crate::runtime::{DeviceTensor, GpuRuntime};
use cudarc::driver::{CudaFunction, CudaModule, CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use gconv_kernels::{Arch, KernelSource};
use gconv_problem::{Comparison, DType, Tolerance};
use std::sync::Arc;

/// Entry point of [`COMPARE_SOURCE`].
pub const COMPARE_ENTRY: &str = "gconv_compare";

/// Threads per block of a comparison launch.
pub const COMPARE_THREADS: u32 = 256;

/// Blocks of a comparison launch at most (fewer for short outputs).
pub const COMPARE_BLOCKS: u32 = 128;

/// Bytes of one [`Partial`] as the kernel writes it.
pub const PARTIAL_BYTES: usize = 48;

/// The comparison kernel. Arguments: output (f32, f16 or bf16 elements), reference (f64),
/// partials (one per thread), element count, rtol, atol, scale, dtype (0 f32, 1 f16, 2 bf16).
pub const COMPARE_SOURCE: &str = r#"// gconv: device comparison of an output with f64 reference values.
struct gconv_cmp_partial {
    double max_abs;
    double max_rel;
    double worst;
    unsigned long long worst_index;
    unsigned long long failures;
    long long last_bad;
};

__device__ __forceinline__ double gconv_abs(double x) {
    return __longlong_as_double(__double_as_longlong(x) & 0x7fffffffffffffffLL);
}

// 2^e for -1022 <= e <= 1023.
__device__ __forceinline__ double gconv_pow2(int e) {
    return __longlong_as_double((long long)(e + 1023) << 52);
}

__device__ __forceinline__ double gconv_load(const void* p, unsigned long long i, int dtype) {
    if (dtype == 0) {
        return (double)((const float*)p)[i];
    }
    unsigned int h = ((const unsigned short*)p)[i];
    if (dtype == 2) {
        return (double)__uint_as_float(h << 16);
    }
    unsigned int e = (h >> 10) & 0x1fu;
    unsigned int m = h & 0x3ffu;
    double v;
    if (e == 0u) {
        v = (double)m * gconv_pow2(-24);
    } else if (e == 31u) {
        v = m ? __longlong_as_double(0x7ff8000000000000LL) : __longlong_as_double(0x7ff0000000000000LL);
    } else {
        v = (double)(m | 0x400u) * gconv_pow2((int)e - 25);
    }
    return (h & 0x8000u) ? -v : v;
}

__device__ __forceinline__ void gconv_cmp_step(gconv_cmp_partial* p, double o, double r,
                                               unsigned long long i, double rtol, double atol,
                                               double scale) {
    double d = gconv_abs(__dsub_rn(o, r));
    if (d != d || !(gconv_abs(o) <= 1.7976931348623157e308)) {
        p->failures += 1ull;
        p->last_bad = (long long)i;
        return;
    }
    double ar = gconv_abs(r);
    double bound = __dadd_rn(__dmul_rn(rtol, ar), atol);
    if (d > bound) {
        p->failures += 1ull;
    }
    if (d > p->max_abs) {
        p->max_abs = d;
    }
    double rel = __ddiv_rn(d, ar > scale ? ar : scale);
    if (rel > p->max_rel) {
        p->max_rel = rel;
    }
    double ratio = __ddiv_rn(d, bound);
    if (ratio > p->worst) {
        p->worst = ratio;
        p->worst_index = i;
    }
}

extern "C" __global__ void gconv_compare(const void* out, const double* ref,
                                         gconv_cmp_partial* parts, unsigned long long n,
                                         double rtol, double atol, double scale, int dtype) {
    unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    gconv_cmp_partial p;
    p.max_abs = 0.0;
    p.max_rel = 0.0;
    p.worst = -1.0;
    p.worst_index = 0ull;
    p.failures = 0ull;
    p.last_bad = -1ll;
    for (unsigned long long i = tid; i < n; i += stride) {
        gconv_cmp_step(&p, gconv_load(out, i, dtype), ref[i], i, rtol, atol, scale);
    }
    parts[tid] = p;
}
"#;

/// What one thread of the comparison kernel found over its slice of the elements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Partial {
    /// Largest finite |out − ref|.
    pub max_abs: f64,
    /// Largest |out − ref| / max(|ref|, scale).
    pub max_rel: f64,
    /// Largest |out − ref| / bound (−1 when the slice was empty).
    pub worst: f64,
    /// First index of the slice with that ratio.
    pub worst_index: u64,
    /// Elements outside the tolerance (NaN and non-finite outputs included).
    pub failures: u64,
    /// Last index with a NaN difference or a non-finite output (−1: none).
    pub last_bad: i64,
}

impl Partial {
    /// Decodes the kernel's 48-byte record (little endian).
    pub fn from_bytes(b: &[u8]) -> Option<Partial> {
        if b.len() < PARTIAL_BYTES {
            return None;
        }
        let w = |i: usize| -> [u8; 8] {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[8 * i..8 * i + 8]);
            a
        };
        Some(Partial {
            max_abs: f64::from_le_bytes(w(0)),
            max_rel: f64::from_le_bytes(w(1)),
            worst: f64::from_le_bytes(w(2)),
            worst_index: u64::from_le_bytes(w(3)),
            failures: u64::from_le_bytes(w(4)),
            last_bad: i64::from_le_bytes(w(5)),
        })
    }
}

/// Merges the threads' partials of a comparison of `count` elements into the comparison the
/// host would have computed (see the module documentation).
pub fn merge(parts: &[Partial], count: usize, tol: Tolerance) -> Comparison {
    let mut c = Comparison {
        max_abs_err: 0.0,
        max_rel_err: 0.0,
        failures: 0,
        count,
        worst_index: 0,
        tolerance: tol,
    };
    let mut last_bad: i64 = -1;
    let mut worst = -1.0f64;
    for p in parts {
        c.failures += p.failures as usize;
        last_bad = last_bad.max(p.last_bad);
        c.max_abs_err = c.max_abs_err.max(p.max_abs);
        c.max_rel_err = c.max_rel_err.max(p.max_rel);
        if p.worst < 0.0 {
            continue;
        }
        if p.worst > worst || (p.worst == worst && (p.worst_index as usize) < c.worst_index) {
            worst = p.worst;
            c.worst_index = p.worst_index as usize;
        }
    }
    if last_bad >= 0 {
        c.max_abs_err = f64::INFINITY;
        c.max_rel_err = f64::INFINITY;
        c.worst_index = last_bad as usize;
    }
    c
}

/// Reference values on the device (f64), for [`DeviceComparer::compare`].
#[derive(Debug)]
pub struct DeviceReference {
    buf: CudaSlice<f64>,
    len: usize,
}

impl DeviceReference {
    /// Uploads reference values.
    pub fn upload(rt: &GpuRuntime, values: &[f64]) -> Result<DeviceReference, CudaError> {
        let buf = if values.is_empty() {
            rt.stream().alloc_zeros::<f64>(1)
        } else {
            rt.stream().clone_htod(values)
        }
        .map_err(|e| CudaError::driver(format!("upload {} reference values", values.len()), e))?;
        Ok(DeviceReference {
            buf,
            len: values.len(),
        })
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The comparison kernel, loaded, with its partials buffer.
pub struct DeviceComparer {
    function: CudaFunction,
    partials: CudaSlice<u8>,
    _module: Arc<CudaModule>,
}

impl std::fmt::Debug for DeviceComparer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceComparer").finish_non_exhaustive()
    }
}

/// The comparison kernel as a [`KernelSource`] (compiled through the cache like any kernel).
pub fn compare_source() -> KernelSource {
    KernelSource {
        kernel_name: COMPARE_ENTRY.to_string(),
        code: COMPARE_SOURCE.to_string(),
        arch: Arch::Sm90,
        launches: Vec::new(),
        workspace_bytes: 0,
    }
}

fn dtype_code(d: DType) -> i32 {
    match d {
        DType::F32 => 0,
        DType::F16 => 1,
        DType::Bf16 => 2,
    }
}

impl DeviceComparer {
    /// Compiles (through the cache) and loads the comparison kernel on `rt`'s device.
    pub fn new(rt: &GpuRuntime) -> Result<DeviceComparer, CudaError> {
        let (compiled, _) = compile_cached(&compare_source(), &CompileOptions::default())?;
        let load_err = |message: String| CudaError::LoadFailed {
            kernel: COMPARE_ENTRY.to_string(),
            entry: COMPARE_ENTRY.to_string(),
            message,
        };
        let module = rt
            .context()
            .load_module(Ptx::from_binary(compiled.cubin))
            .map_err(|e| load_err(driver_message(&e)))?;
        let function = module
            .load_function(COMPARE_ENTRY)
            .map_err(|e| load_err(driver_message(&e)))?;
        let bytes = (COMPARE_BLOCKS * COMPARE_THREADS) as usize * PARTIAL_BYTES;
        let partials = rt
            .stream()
            .alloc_zeros::<u8>(bytes)
            .map_err(|e| CudaError::driver("allocate comparison partials", e))?;
        Ok(DeviceComparer {
            function,
            partials,
            _module: module,
        })
    }

    /// Compares `out` with `reference` under `tol` on the device; waits for the result.
    pub fn compare(
        &mut self,
        rt: &GpuRuntime,
        out: &DeviceTensor,
        reference: &DeviceReference,
        tol: Tolerance,
    ) -> Result<Comparison, CudaError> {
        if out.len() != reference.len() {
            return Ok(Comparison {
                max_abs_err: f64::INFINITY,
                max_rel_err: f64::INFINITY,
                failures: out.len().max(reference.len()),
                count: reference.len(),
                worst_index: 0,
                tolerance: tol,
            });
        }
        let n = out.len() as u64;
        let blocks = (n.div_ceil(COMPARE_THREADS as u64) as u32).clamp(1, COMPARE_BLOCKS);
        let threads = (blocks * COMPARE_THREADS) as usize;
        let stream = rt.stream();
        let out_ptr = out.device_ptr();
        let (ref_ptr, _r) = reference.buf.device_ptr(stream);
        let (parts_ptr, _p) = self.partials.device_ptr(stream);
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (COMPARE_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let dtype = dtype_code(out.dtype());
        let mut b = stream.launch_builder(&self.function);
        b.arg(&out_ptr)
            .arg(&ref_ptr)
            .arg(&parts_ptr)
            .arg(&n)
            .arg(&tol.rtol)
            .arg(&tol.atol)
            .arg(&tol.scale)
            .arg(&dtype);
        let fail = |message: String| CudaError::LaunchFailed {
            kernel: COMPARE_ENTRY.to_string(),
            entry: COMPARE_ENTRY.to_string(),
            grid: [blocks, 1, 1],
            block: [COMPARE_THREADS, 1, 1],
            smem: 0,
            message,
        };
        // SAFETY: the signature is (const void*, const double*, gconv_cmp_partial*, u64, f64,
        // f64, f64, int) as in COMPARE_SOURCE; `out` holds `n` elements of its dtype (the code
        // passed), the reference `n` f64 values, the partials buffer 48 bytes for each of the
        // `blocks × COMPARE_THREADS` threads; all are live allocations of this context, used
        // on this stream only.
        unsafe { b.launch(cfg) }.map_err(|e| fail(driver_message(&e)))?;
        rt.synchronize().map_err(|e| CudaError::KernelFault {
            kernel: COMPARE_ENTRY.to_string(),
            message: e.to_string(),
        })?;
        let bytes = stream
            .clone_dtoh(&self.partials)
            .map_err(|e| CudaError::driver("download comparison partials", e))?;
        rt.synchronize()?;
        let parts: Vec<Partial> = bytes
            .chunks_exact(PARTIAL_BYTES)
            .take(threads)
            .filter_map(Partial::from_bytes)
            .collect();
        Ok(merge(&parts, out.len(), tol))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(max_abs: f64, worst: f64, worst_index: u64, failures: u64, last_bad: i64) -> Partial {
        Partial {
            max_abs,
            max_rel: max_abs / 2.0,
            worst,
            worst_index,
            failures,
            last_bad,
        }
    }

    #[test]
    fn merge_takes_the_first_worst_and_the_last_bad() {
        let tol = Tolerance::for_dtype(DType::Bf16, 9);
        let c = merge(
            &[
                part(0.5, 2.0, 7, 1, -1),
                part(0.25, 2.0, 3, 0, -1),
                part(0.0, -1.0, 0, 0, -1),
                part(0.1, 1.0, 1, 2, -1),
            ],
            100,
            tol,
        );
        assert_eq!((c.failures, c.worst_index, c.count), (3, 3, 100));
        assert_eq!((c.max_abs_err, c.max_rel_err), (0.5, 0.25));
        let c = merge(
            &[part(0.5, 2.0, 7, 1, 40), part(0.1, 1.0, 1, 1, 12)],
            100,
            tol,
        );
        assert_eq!(c.worst_index, 40);
        assert!(c.max_abs_err.is_infinite() && c.max_rel_err.is_infinite());
        let c = merge(&[], 0, tol);
        assert!(c.passed());
        assert_eq!(c.worst_index, 0);
    }

    #[test]
    fn partial_bytes_round_trip() {
        let p = part(0.5, 2.0, 7, 1, -1);
        let mut b = Vec::new();
        for x in [p.max_abs, p.max_rel, p.worst] {
            b.extend_from_slice(&x.to_le_bytes());
        }
        b.extend_from_slice(&p.worst_index.to_le_bytes());
        b.extend_from_slice(&p.failures.to_le_bytes());
        b.extend_from_slice(&p.last_bad.to_le_bytes());
        assert_eq!(Partial::from_bytes(&b), Some(p));
        assert_eq!(Partial::from_bytes(&b[..40]), None);
    }
}
