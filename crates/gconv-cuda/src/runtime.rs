//! The GPU runtime: device probing, one context and stream, device tensors, loading compiled
//! modules, launching a [`KernelSource`]'s launches in order, and CUDA-event timing (through
//! [`crate::timing`]).
//!
//! Every missing piece (no `libcuda.so.1`, `cuInit` failure, no device, NVRTC missing or older
//! than 13) is a [`CudaError`] from [`probe`] or [`GpuRuntime::new`], never a panic. Kernel
//! launch errors and faults become errors naming the kernel.
//!
//! The runtime uses one non-blocking stream and turns cudarc's per-buffer event tracking off:
//! all work is ordered on that stream, so the tracking would only add events to every launch
//! (and to the timed intervals).

use crate::cache::{compile_cached, CacheHit};
use crate::error::{driver_message, guard, CudaError};
use crate::nvrtc::{nvrtc_version, CompileOptions, CompiledKernel};
use cudarc::driver::sys::{CUclusterSchedulingPolicy, CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{
    result as dres, sys as dsys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream,
    DevicePtr, LaunchConfig,
};
use cudarc::nvrtc::Ptx;
use gconv_kernels::{Arch, DeviceLimits, KernelSource, Launch};
use gconv_problem::{DType, HostTensor, Problem};
use std::sync::{Arc, Mutex};

/// What [`probe`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Device name, e.g. "NVIDIA H200".
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// CUDA driver API version (major, minor), e.g. (13, 0).
    pub driver_version: (i32, i32),
    /// NVRTC version (major, minor).
    pub nvrtc_version: (i32, i32),
    /// Global memory in bytes.
    pub mem_bytes: u64,
    /// L2 cache in bytes.
    pub l2_bytes: u64,
    /// Largest dynamic shared memory per block after opt-in, bytes.
    pub max_smem_optin: u32,
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "device {}: {} (sm_{}{}), {} SMs, {:.1} GiB, L2 {} MiB, smem opt-in {} KiB, driver CUDA {}.{}, NVRTC {}.{}",
            self.ordinal,
            self.name,
            self.compute_capability.0,
            self.compute_capability.1,
            self.sm_count,
            self.mem_bytes as f64 / (1u64 << 30) as f64,
            self.l2_bytes >> 20,
            self.max_smem_optin / 1024,
            self.driver_version.0,
            self.driver_version.1,
            self.nvrtc_version.0,
            self.nvrtc_version.1
        )
    }
}

fn driver_library() -> Result<(), CudaError> {
    let preloaded = crate::libs::preload(crate::libs::CudaLib::Driver);
    // SAFETY: `is_culib_present` only tries to dlopen candidate library names and drops the
    // handles; it has no other side effects.
    if preloaded.is_ok() && unsafe { dsys::is_culib_present() } {
        Ok(())
    } else {
        Err(CudaError::LibraryNotFound {
            what: "CUDA driver library",
            library: "libcuda.so.1",
            hint: "no NVIDIA driver on this machine; GPU commands need the GPU machine",
            searched: crate::libs::describe_search(&preloaded.err().unwrap_or_default()),
        })
    }
}

fn attr(dev: dsys::CUdevice, a: CUdevice_attribute) -> Result<i32, CudaError> {
    // SAFETY: `dev` is a device handle returned by `cuDeviceGet` after `cuInit` succeeded.
    unsafe { dres::device::get_attribute(dev, a) }
        .map_err(|e| CudaError::driver(format!("cuDeviceGetAttribute({a:?})"), e))
}

/// Probes device 0; see [`probe_device`].
pub fn probe() -> Result<DeviceInfo, CudaError> {
    probe_device(0)
}

/// Probes every device this process can see (after `CUDA_VISIBLE_DEVICES`), in ordinal
/// order; an error when there is none or one cannot be probed (see [`probe_device`]).
pub fn probe_all() -> Result<Vec<DeviceInfo>, CudaError> {
    let first = probe_device(0)?;
    let count = guard("device count", || {
        dres::device::get_count().map_err(|e| CudaError::driver("cuDeviceGetCount", e))
    })?;
    let mut all = vec![first];
    for ordinal in 1..count.max(1) as usize {
        all.push(probe_device(ordinal)?);
    }
    Ok(all)
}

/// Loads the driver, initialises it, and describes the device `ordinal`; also checks NVRTC.
/// Every failure is an error saying what is missing. A non-empty `GCONV_DISABLE_CUDA` other
/// than `0` switches the backend off (for tests and for forcing the CPU path on a GPU host).
pub fn probe_device(ordinal: usize) -> Result<DeviceInfo, CudaError> {
    if let Ok(value) = std::env::var("GCONV_DISABLE_CUDA") {
        if !value.is_empty() && value != "0" {
            return Err(CudaError::Disabled { value });
        }
    }
    driver_library()?;
    let info = guard("device probe", || {
        dres::init().map_err(|e| CudaError::driver("cuInit", e))?;
        let count =
            dres::device::get_count().map_err(|e| CudaError::driver("cuDeviceGetCount", e))?;
        if count <= 0 || ordinal >= count as usize {
            return Err(CudaError::NoDevice { ordinal, count });
        }
        let dev = dres::device::get(ordinal as i32)
            .map_err(|e| CudaError::driver(format!("cuDeviceGet({ordinal})"), e))?;
        let name =
            dres::device::get_name(dev).map_err(|e| CudaError::driver("cuDeviceGetName", e))?;
        // SAFETY: `dev` is a valid device handle.
        let mem = unsafe { dres::device::total_mem(dev) }
            .map_err(|e| CudaError::driver("cuDeviceTotalMem", e))?;
        let mut dv = 0i32;
        // SAFETY: the driver library is loaded and `dv` is valid for writes.
        unsafe { dsys::cuDriverGetVersion(&mut dv) }
            .result()
            .map_err(|e| CudaError::driver("cuDriverGetVersion", e))?;
        use CUdevice_attribute::*;
        Ok(DeviceInfo {
            ordinal,
            name,
            compute_capability: (
                attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
                attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            ),
            sm_count: attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?.max(0) as u32,
            driver_version: (dv / 1000, (dv % 1000) / 10),
            nvrtc_version: (0, 0),
            mem_bytes: mem as u64,
            l2_bytes: attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?.max(0) as u64,
            max_smem_optin: attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?.max(0)
                as u32,
        })
    })
    .map_err(|e| {
        crate::error::unusable_library(e, crate::libs::CudaLib::Driver, "CUDA driver library")
    })?;
    let nv = nvrtc_version()?;
    Ok(DeviceInfo {
        nvrtc_version: nv,
        ..info
    })
}

/// A tensor in device memory: raw bytes tagged with dtype and element count.
#[derive(Debug)]
pub struct DeviceTensor {
    buf: CudaSlice<u8>,
    ptr: u64,
    dtype: DType,
    len: usize,
}

impl DeviceTensor {
    /// Element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Element count.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn bytes(&self) -> u64 {
        self.len as u64 * self.dtype.size_bytes()
    }

    /// The raw device address (for other CUDA libraries such as cuDNN).
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// The underlying cudarc buffer.
    pub fn slice(&self) -> &CudaSlice<u8> {
        &self.buf
    }

    /// The underlying cudarc buffer, for libraries that write it (the cuDNN baseline).
    pub fn slice_mut(&mut self) -> &mut CudaSlice<u8> {
        &mut self.buf
    }
}

/// A raw device workspace buffer.
#[derive(Debug)]
pub struct Workspace {
    buf: CudaSlice<u8>,
    ptr: u64,
    bytes: u64,
}

impl Workspace {
    /// Size in bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The raw device address.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// The underlying cudarc buffer.
    pub fn slice(&self) -> &CudaSlice<u8> {
        &self.buf
    }
}

/// The device buffers of one convolution: the two inputs, the output, the workspace.
#[derive(Debug)]
pub struct Buffers {
    /// First input of the direction (fwd X, dgrad dY, wgrad X).
    pub in0: DeviceTensor,
    /// Second input (fwd W, dgrad W, wgrad dY).
    pub in1: DeviceTensor,
    /// Output (fwd Y, dgrad dX, wgrad dW).
    pub out: DeviceTensor,
    /// Workspace, when the kernel needs one.
    pub workspace: Option<Workspace>,
}

/// A module loaded on the device with its entry points resolved, ready to launch.
#[derive(Debug, Clone)]
pub struct LoadedKernel {
    /// Canonical kernel name.
    pub name: String,
    /// Workspace bytes the launches need.
    pub workspace_bytes: u64,
    /// The launches, in order, with their functions.
    launches: Vec<(Launch, CudaFunction)>,
    _module: Arc<CudaModule>,
}

impl LoadedKernel {
    /// The launches, in order.
    pub fn launches(&self) -> impl Iterator<Item = &Launch> {
        self.launches.iter().map(|(l, _)| l)
    }

    /// Registers per thread of each entry as reported by the driver.
    pub fn num_regs(&self) -> Vec<(String, i32)> {
        self.launches
            .iter()
            .map(|(l, f)| (l.entry.clone(), f.num_regs().unwrap_or(-1)))
            .collect()
    }
}

pub use crate::timing::{median, Timing, TimingOptions};

/// The error of launch `l` of kernel `k` (both launch paths).
fn launch_failed(k: &LoadedKernel, l: &Launch, message: String) -> CudaError {
    CudaError::LaunchFailed {
        kernel: k.name.clone(),
        entry: l.entry.clone(),
        grid: l.grid,
        block: l.block,
        smem: l.dynamic_smem_bytes,
        message,
    }
}

/// A raw CUDA stream handle (`CUstream`), as foreign code (PyTorch) hands it over.
pub type RawStream = cudarc::driver::sys::CUstream;

/// Enqueues launch `l` of function `f` with the four 64-bit kernel arguments `args` on
/// `stream` (both launch paths). A launch that [`Launch::overlaps_previous`] goes through
/// `cuLaunchKernelEx` with programmatic stream serialization allowed, so that its CTAs may be
/// scheduled while the stream's previous launch drains (its entry waits for that grid before
/// reading its results); a driver that refuses the attribute gets the plain launch instead.
///
/// # Safety
/// `f` must be a live function of this context with the signature (const void*, const
/// void*, void*, void*) of `gconv_kernels::source`, `args` device addresses valid for it (or
/// 0 for an absent workspace) until the work completes, and `stream` a live stream of the
/// context (or 0).
unsafe fn enqueue(
    f: dsys::CUfunction,
    l: &Launch,
    mut args: [u64; 4],
    maps: &mut [dsys::CUtensorMap],
    stream: RawStream,
) -> Result<(), cudarc::driver::DriverError> {
    // The launch's tensor maps (encoded over this launch's buffers: they hold the addresses)
    // are passed by value after the four pointers.
    let mut params: Vec<*mut std::ffi::c_void> = Vec::with_capacity(4 + maps.len());
    for a in args.iter_mut() {
        params.push(a as *mut u64 as *mut std::ffi::c_void);
    }
    for m in maps.iter_mut() {
        params.push(m as *mut dsys::CUtensorMap as *mut std::ffi::c_void);
    }
    if l.overlaps_previous {
        // SAFETY: a zeroed attribute is a valid value (id 0 is CU_LAUNCH_ATTRIBUTE_IGNORE, the
        // value a C union of plain data); the field set is the one the id below selects.
        let mut attr: dsys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = dsys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.programmaticStreamSerializationAllowed = 1;
        let config = dsys::CUlaunchConfig {
            gridDimX: l.grid[0],
            gridDimY: l.grid[1],
            gridDimZ: l.grid[2],
            blockDimX: l.block[0],
            blockDimY: l.block[1],
            blockDimZ: l.block[2],
            sharedMemBytes: l.dynamic_smem_bytes,
            hStream: stream,
            attrs: &mut attr,
            numAttrs: 1,
        };
        // SAFETY: `config` and `attr` live for the call; `params` points at four live 64-bit
        // arguments (the driver copies them); `f` and `stream` per the function's contract.
        let r = unsafe {
            dsys::cuLaunchKernelEx(&config, f, params.as_mut_ptr(), std::ptr::null_mut())
        };
        match r {
            dsys::CUresult::CUDA_SUCCESS => return Ok(()),
            dsys::CUresult::CUDA_ERROR_NOT_SUPPORTED => {} // the plain launch below
            e => return Err(cudarc::driver::DriverError(e)),
        }
    }
    // SAFETY: as above.
    unsafe {
        dres::launch_kernel(
            f,
            (l.grid[0], l.grid[1], l.grid[2]),
            (l.block[0], l.block[1], l.block[2]),
            l.dynamic_smem_bytes,
            stream,
            &mut params,
        )
    }
}

/// A launch's tensor map (`gconv_kernels::TensorMap`) encoded over the buffer at device
/// address `address` (`cuTensorMapEncodeTiled`, or `cuTensorMapEncodeIm2col` for an im2col
/// view: interleave none, L2 promotion 128 bytes, zeros outside the tensor). A map that
/// `TensorMap::problem` refuses is an error before the driver is asked; the driver refuses
/// anything else with an error too, never a fault.
fn encode_tensor_map(
    t: &gconv_kernels::TensorMap,
    address: u64,
) -> Result<dsys::CUtensorMap, cudarc::driver::DriverError> {
    use dsys::{
        CUtensorMapDataType as D, CUtensorMapFloatOOBfill as O, CUtensorMapInterleave as I,
        CUtensorMapL2promotion as P, CUtensorMapSwizzle as S,
    };
    if t.problem().is_some() {
        return Err(cudarc::driver::DriverError(
            dsys::CUresult::CUDA_ERROR_INVALID_VALUE,
        ));
    }
    let dtype = match t.elem {
        gconv_kernels::TmaElem::Bf16 => D::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        gconv_kernels::TmaElem::F16 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        gconv_kernels::TmaElem::F32 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
    };
    let rank = t.dims.len();
    let element_strides = [1u32; 5];
    // SAFETY: a zeroed CUtensorMap is plain data the call below overwrites.
    let mut map: dsys::CUtensorMap = unsafe { std::mem::zeroed() };
    let swizzle = if t.swizzle_128b {
        S::CU_TENSOR_MAP_SWIZZLE_128B
    } else {
        S::CU_TENSOR_MAP_SWIZZLE_NONE
    };
    if let Some(i) = &t.im2col {
        // SAFETY: `map` is writable; `dims` holds rank values, `strides` rank - 1, `lower` and
        // `upper` rank - 2 and `element_strides` rank (`TensorMap::problem` checked the
        // lengths); the address is only recorded in the map.
        let r = unsafe {
            dsys::cuTensorMapEncodeIm2col(
                &mut map,
                dtype,
                rank as u32,
                address as usize as *mut std::ffi::c_void,
                t.dims.as_ptr(),
                t.strides.as_ptr(),
                i.lower.as_ptr(),
                i.upper.as_ptr(),
                i.channels_per_pixel,
                i.pixels_per_column,
                i.element_strides.as_ptr(),
                I::CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle,
                P::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                O::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        return match r {
            dsys::CUresult::CUDA_SUCCESS => Ok(map),
            e => Err(cudarc::driver::DriverError(e)),
        };
    }
    // SAFETY: `map` is writable; `dims`, `strides` (rank - 1 entries), `boxdim` and
    // `element_strides` hold at least `rank` (resp. rank - 1) values (`TensorMap::problem`
    // checked the lengths); the address is only recorded in the map.
    let r = unsafe {
        dsys::cuTensorMapEncodeTiled(
            &mut map,
            dtype,
            rank as u32,
            address as usize as *mut std::ffi::c_void,
            t.dims.as_ptr(),
            t.strides.as_ptr(),
            t.boxdim.as_ptr(),
            element_strides.as_ptr(),
            I::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            P::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            O::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    match r {
        dsys::CUresult::CUDA_SUCCESS => Ok(map),
        e => Err(cudarc::driver::DriverError(e)),
    }
}

/// Smallest L2 flush buffer.
const MIN_FLUSH_BYTES: u64 = 256 << 20;

/// The byte outputs and workspaces are filled with before a kernel runs: 0xFF bytes are NaN
/// in f32, f16 and bf16 (see [`GpuRuntime::poison`]).
pub const POISON_BYTE: u8 = 0xFF;

/// One CUDA context and stream on one device.
pub struct GpuRuntime {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
    flush: Mutex<Option<CudaSlice<u8>>>,
}

impl std::fmt::Debug for GpuRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuRuntime")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl GpuRuntime {
    /// Probes the device (see [`probe_device`]) and creates a context and a stream on it.
    pub fn new(ordinal: usize) -> Result<GpuRuntime, CudaError> {
        let info = probe_device(ordinal)?;
        guard("context creation", || {
            let ctx =
                CudaContext::new(ordinal).map_err(|e| CudaError::driver("cuCtx (primary)", e))?;
            // SAFETY: every buffer of this runtime is used only on its single stream, in
            // stream order; buffers are freed only after the stream has been synchronised
            // (every public operation that reads results synchronises).
            unsafe { ctx.disable_event_tracking() };
            let stream = ctx
                .new_stream()
                .map_err(|e| CudaError::driver("cuStreamCreate", e))?;
            Ok(GpuRuntime {
                ctx,
                stream,
                info,
                flush: Mutex::new(None),
            })
        })
    }

    /// What [`probe_device`] found for this runtime's device.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The cudarc context (for other libraries on the same device, e.g. cuDNN).
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream all work of this runtime runs on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Waits for all work on the stream; an error here means a kernel faulted.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        self.stream
            .synchronize()
            .map_err(|e| CudaError::driver("cuStreamSynchronize", e))
    }

    fn raw_ptr(&self, s: &CudaSlice<u8>) -> u64 {
        let (p, _sync) = s.device_ptr(&self.stream);
        p
    }

    fn alloc_bytes(&self, bytes: u64, what: &str) -> Result<CudaSlice<u8>, CudaError> {
        let n = usize::try_from(bytes.max(1)).map_err(|_| CudaError::BufferMismatch {
            what: what.to_string(),
            expected: "a size that fits in usize".to_string(),
            got: format!("{bytes} bytes"),
        })?;
        self.stream
            .alloc_zeros::<u8>(n)
            .map_err(|e| CudaError::driver(format!("allocate {bytes} bytes for {what}"), e))
    }

    /// Copies a host tensor to a new device tensor.
    pub fn upload(&self, t: &HostTensor) -> Result<DeviceTensor, CudaError> {
        let bytes = t.to_bytes();
        let buf = if bytes.is_empty() {
            self.alloc_bytes(1, "empty tensor")?
        } else {
            self.stream
                .clone_htod(&bytes)
                .map_err(|e| CudaError::driver(format!("upload {} bytes", bytes.len()), e))?
        };
        let ptr = self.raw_ptr(&buf);
        Ok(DeviceTensor {
            buf,
            ptr,
            dtype: t.dtype(),
            len: t.len(),
        })
    }

    /// A zero-filled device tensor of `len` elements.
    pub fn alloc(&self, dtype: DType, len: usize) -> Result<DeviceTensor, CudaError> {
        let bytes = (len as u64)
            .checked_mul(dtype.size_bytes())
            .ok_or_else(|| CudaError::BufferMismatch {
                what: "device tensor".to_string(),
                expected: "a byte size that fits in u64".to_string(),
                got: format!("{len} elements of {dtype}"),
            })?;
        let buf = self.alloc_bytes(bytes, "device tensor")?;
        let ptr = self.raw_ptr(&buf);
        Ok(DeviceTensor {
            buf,
            ptr,
            dtype,
            len,
        })
    }

    /// Sets every byte of `t` to zero (enqueued on the stream; ordered before later work).
    pub fn zero(&self, t: &mut DeviceTensor) -> Result<(), CudaError> {
        let bytes = t.bytes();
        self.stream
            .memset_zeros(&mut t.buf)
            .map_err(|e| CudaError::driver(format!("cuMemsetD8Async ({bytes} bytes)"), e))
    }

    /// Fills every byte of `t` with [`POISON_BYTE`] (enqueued on the stream): an output a
    /// kernel must overwrite completely. Every element reads as NaN in f32, f16 and bf16, so an
    /// element a kernel leaves unwritten fails verification instead of passing as a zero.
    pub fn poison(&self, t: &mut DeviceTensor) -> Result<(), CudaError> {
        let bytes = t.bytes();
        self.fill(t.ptr, bytes, POISON_BYTE)
            .map_err(|e| CudaError::driver(format!("cuMemsetD8Async ({bytes} bytes)"), e))
    }

    fn fill(&self, ptr: u64, bytes: u64, value: u8) -> Result<(), cudarc::driver::DriverError> {
        // SAFETY: callers pass the start and length of a live allocation of this context
        // (a device tensor or a workspace), written on this runtime's stream only.
        unsafe { dres::memset_d8_async(ptr, value, bytes as usize, self.stream.cu_stream()) }
    }

    /// A workspace of `bytes` bytes (at least one byte is allocated) filled with
    /// [`POISON_BYTE`], as callers' workspaces come (PyTorch's allocator hands out memory as it
    /// was left): a kernel must not rely on it being zero.
    pub fn alloc_workspace(&self, bytes: u64) -> Result<Workspace, CudaError> {
        let buf = self.alloc_bytes(bytes, "workspace")?;
        let ptr = self.raw_ptr(&buf);
        self.fill(ptr, bytes.max(1), POISON_BYTE).map_err(|e| {
            CudaError::driver(format!("cuMemsetD8Async (workspace, {bytes} bytes)"), e)
        })?;
        Ok(Workspace { buf, ptr, bytes })
    }

    /// Copies a device tensor back to the host (synchronises the stream first, so a kernel
    /// fault shows up here as an error).
    pub fn download(&self, t: &DeviceTensor) -> Result<HostTensor, CudaError> {
        self.synchronize()?;
        let n = t.bytes() as usize;
        let mut v = self
            .stream
            .clone_dtoh(&t.buf)
            .map_err(|e| CudaError::driver(format!("download {n} bytes"), e))?;
        self.synchronize()?;
        v.truncate(n);
        HostTensor::from_bytes(t.dtype, &v).ok_or_else(|| CudaError::BufferMismatch {
            what: "downloaded tensor".to_string(),
            expected: format!("a multiple of {} bytes", t.dtype.size_bytes()),
            got: format!("{} bytes", v.len()),
        })
    }

    /// Uploads the inputs, allocates the output and the workspace for `problem` and `kernel`.
    /// Checks the inputs' dtypes and lengths against the problem's roles.
    pub fn buffers(
        &self,
        problem: &Problem,
        kernel: &LoadedKernel,
        in0: &HostTensor,
        in1: &HostTensor,
    ) -> Result<Buffers, CudaError> {
        let ([r0, r1], ro) = problem.roles();
        for (t, role, which) in [(in0, r0, "in0"), (in1, r1, "in1")] {
            let want = problem.elements(role) as usize;
            if t.dtype() != problem.dtype || t.len() != want {
                return Err(CudaError::BufferMismatch {
                    what: format!("{which} ({}) of {problem}", role.name()),
                    expected: format!("{want} elements of {}", problem.dtype),
                    got: format!("{} elements of {}", t.len(), t.dtype()),
                });
            }
        }
        Ok(Buffers {
            in0: self.upload(in0)?,
            in1: self.upload(in1)?,
            out: {
                let mut out = self.alloc(problem.dtype, problem.elements(ro) as usize)?;
                self.poison(&mut out)?;
                out
            },
            workspace: if kernel.workspace_bytes > 0 {
                Some(self.alloc_workspace(kernel.workspace_bytes)?)
            } else {
                None
            },
        })
    }

    /// Loads a compiled module and resolves the entry point of every launch. Sets the
    /// function's dynamic shared memory limit when a launch needs more than 48 KiB; for a
    /// cluster launch (`Launch::cluster` > 1), the non-portable cluster opt-in above 8 CTAs and
    /// the preference to spread a cluster's CTAs over separate SMs (a hint: a driver that
    /// refuses it leaves the default placement).
    pub fn load(
        &self,
        compiled: &CompiledKernel,
        src: &KernelSource,
    ) -> Result<LoadedKernel, CudaError> {
        let (major, minor) = self.info.compute_capability;
        let ok = match src.arch {
            Arch::Sm90 => major == 9,
            Arch::Sm90a => (major, minor) == (9, 0),
        };
        if !ok {
            return Err(CudaError::ArchMismatch {
                kernel: src.kernel_name.clone(),
                arch: src.arch.to_string(),
                device: self.info.name.clone(),
                major,
                minor,
            });
        }
        if src.launches.is_empty() {
            return Err(CudaError::LoadFailed {
                kernel: src.kernel_name.clone(),
                entry: String::new(),
                message: "the kernel source has no launches".to_string(),
            });
        }
        let load_err = |entry: &str, message: String| CudaError::LoadFailed {
            kernel: src.kernel_name.clone(),
            entry: entry.to_string(),
            message,
        };
        let module = self
            .ctx
            .load_module(Ptx::from_binary(compiled.cubin.clone()))
            .map_err(|e| load_err("", driver_message(&e)))?;
        let mut launches = Vec::with_capacity(src.launches.len());
        for l in &src.launches {
            let f = module
                .load_function(&l.entry)
                .map_err(|e| load_err(&l.entry, driver_message(&e)))?;
            if l.dynamic_smem_bytes > 48 * 1024 {
                if l.dynamic_smem_bytes > self.info.max_smem_optin {
                    return Err(load_err(
                        &l.entry,
                        format!(
                            "{} bytes of dynamic shared memory requested, the device allows {}",
                            l.dynamic_smem_bytes, self.info.max_smem_optin
                        ),
                    ));
                }
                f.set_attribute(
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    l.dynamic_smem_bytes as i32,
                )
                .map_err(|e| {
                    load_err(
                        &l.entry,
                        format!(
                            "setting MAX_DYNAMIC_SHARED_SIZE_BYTES={}: {}",
                            l.dynamic_smem_bytes,
                            driver_message(&e)
                        ),
                    )
                })?;
            }
            if l.cluster > 1 {
                // A cluster's CTAs (the `sk{n}c` split) wait for each other at its barriers:
                // ask the driver to place them on separate SMs rather than pack them.
                if l.grid[0] % l.cluster != 0 {
                    return Err(load_err(
                        &l.entry,
                        format!(
                            "grid x {} is not a multiple of the cluster size {}",
                            l.grid[0], l.cluster
                        ),
                    ));
                }
                if l.cluster > DeviceLimits::PORTABLE_CLUSTER {
                    f.set_attribute(
                        CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                        1,
                    )
                    .map_err(|e| {
                        load_err(
                            &l.entry,
                            format!(
                                "allowing a non-portable cluster of {} CTAs: {}",
                                l.cluster,
                                driver_message(&e)
                            ),
                        )
                    })?;
                }
                // A placement preference only: if the driver refuses it, the cluster runs with
                // the default placement (the results are the same).
                let _ = f.set_attribute(
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
                    CUclusterSchedulingPolicy::CU_CLUSTER_SCHEDULING_POLICY_SPREAD as i32,
                );
                // A cluster whose CTAs cannot all be resident in one GPC at once never starts:
                // say so here rather than as a launch failure. (A query the driver cannot
                // answer is left to the launch.)
                let config = LaunchConfig {
                    grid_dim: (l.grid[0], l.grid[1], l.grid[2]),
                    block_dim: (l.block[0], l.block[1], l.block[2]),
                    shared_mem_bytes: l.dynamic_smem_bytes,
                };
                if let Ok(0) = f.occupancy_max_active_clusters(config, &self.stream) {
                    return Err(load_err(
                        &l.entry,
                        format!(
                            "a cluster of {} CTAs ({} threads, {} bytes of dynamic shared memory \
                             each) does not fit on the device at once",
                            l.cluster,
                            l.block[0] * l.block[1] * l.block[2],
                            l.dynamic_smem_bytes
                        ),
                    ));
                }
            }
            launches.push((l.clone(), f));
        }
        Ok(LoadedKernel {
            name: src.kernel_name.clone(),
            workspace_bytes: src.workspace_bytes,
            launches,
            _module: module,
        })
    }

    /// Enqueues every launch of `k` in order without waiting. Launch-configuration errors are
    /// reported here; faults show up at the next synchronisation.
    pub fn launch_async(&self, k: &LoadedKernel, b: &Buffers) -> Result<(), CudaError> {
        let ws = match (&b.workspace, k.workspace_bytes) {
            (_, 0) => b.workspace.as_ref().map(|w| w.ptr).unwrap_or(0),
            (Some(w), need) if w.bytes >= need => w.ptr,
            (w, need) => {
                return Err(CudaError::BufferMismatch {
                    what: format!("workspace of kernel {:?}", k.name),
                    expected: format!("at least {need} bytes"),
                    got: match w {
                        Some(w) => format!("{} bytes", w.bytes),
                        None => "none".to_string(),
                    },
                })
            }
        };
        let ptrs = [b.in0.ptr, b.in1.ptr, b.out.ptr, ws];
        // SAFETY: the stream is this runtime's own; the addresses are live buffers of this
        // context sized for the problem the module was generated for (checked by `buffers`,
        // the workspace above).
        unsafe { self.launch_on(k, ptrs, self.stream.cu_stream()) }
    }

    /// Enqueues every launch of `k` in order on a foreign `stream` (e.g. PyTorch's current
    /// stream) with the raw device addresses `ptrs` (first input, second input, output,
    /// workspace or 0), without waiting and without touching this runtime's own stream.
    ///
    /// # Safety
    /// `stream` must be a live stream of this runtime's context (the device's primary context,
    /// which PyTorch's streams belong to), or 0 (the legacy default stream); `ptrs` must be
    /// device addresses of allocations sized for the problem `k` was generated for (the
    /// workspace at least `k.workspace_bytes`, or 0 when that is 0), live until the enqueued
    /// work completes.
    pub unsafe fn launch_on(
        &self,
        k: &LoadedKernel,
        ptrs: [u64; 4],
        stream: RawStream,
    ) -> Result<(), CudaError> {
        if k.workspace_bytes > 0 && ptrs[3] == 0 {
            return Err(CudaError::BufferMismatch {
                what: format!("workspace of kernel {:?}", k.name),
                expected: format!("at least {} bytes", k.workspace_bytes),
                got: "none".to_string(),
            });
        }
        self.ctx
            .bind_to_thread()
            .map_err(|e| CudaError::driver("cuCtxSetCurrent", e))?;
        for (l, f) in &k.launches {
            let fail = |message: String| launch_failed(k, l, message);
            if l.grid.contains(&0) || l.block.contains(&0) {
                return Err(fail("a grid or block dimension is 0".to_string()));
            }
            // The launch's tensor maps over this launch's buffers; a map the driver cannot
            // encode is an error naming it, before anything is enqueued.
            let mut maps = Vec::with_capacity(l.tensor_maps.len());
            for (i, t) in l.tensor_maps.iter().enumerate() {
                if let Some(why) = t.problem() {
                    return Err(fail(format!("tensor map {i}: {why}")));
                }
                let address = ptrs[usize::from(t.buffer.min(3))];
                maps.push(encode_tensor_map(t, address).map_err(|e| {
                    fail(format!(
                        "tensor map {i} (buffer {}, dims {:?}): {}",
                        t.buffer,
                        t.dims,
                        driver_message(&e)
                    ))
                })?);
            }
            // SAFETY: every entry has the fixed signature (const void*, const void*, void*,
            // void*) of `gconv_kernels::source`, followed by the launch's tensor maps as
            // `gconv_tmap` values (encoded above, one per `Launch::tensor_maps` entry); the
            // caller guarantees the addresses and the stream (see the function's contract).
            unsafe { enqueue(f.cu_function(), l, ptrs, &mut maps, stream) }
                .map_err(|e| fail(driver_message(&e)))?;
        }
        Ok(())
    }

    /// Runs every launch of `k` in order and waits; a fault is a [`CudaError::KernelFault`]
    /// naming the kernel.
    pub fn launch(&self, k: &LoadedKernel, b: &Buffers) -> Result<(), CudaError> {
        self.launch_async(k, b)?;
        self.stream
            .synchronize()
            .map_err(|e| CudaError::KernelFault {
                kernel: k.name.clone(),
                message: driver_message(&e),
            })
    }

    /// Compiles (through the cache), loads, uploads, launches and downloads: the output of
    /// `src` for `problem` on inputs `in0`, `in1`.
    pub fn run(
        &self,
        problem: &Problem,
        src: &KernelSource,
        in0: &HostTensor,
        in1: &HostTensor,
    ) -> Result<HostTensor, CudaError> {
        let (compiled, _hit): (CompiledKernel, CacheHit) =
            compile_cached(src, &CompileOptions::default())?;
        let k = self.load(&compiled, src)?;
        let b = self.buffers(problem, &k, in0, in1)?;
        self.launch(&k, &b)?;
        self.download(&b.out)
    }

    fn flush_l2(&self, round: u32) -> Result<(), CudaError> {
        let mut guard = self.flush.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            let bytes = (2 * self.info.l2_bytes).max(MIN_FLUSH_BYTES);
            *guard = Some(self.alloc_bytes(bytes, "L2 flush buffer")?);
        }
        if let Some(buf) = guard.as_ref() {
            let ptr = self.raw_ptr(buf);
            // A different non-zero byte each round, so that every line is really rewritten.
            let value = (round % 251 + 1) as u8;
            // SAFETY: `ptr` is the start of a live allocation of `buf.len()` bytes of this
            // context, written on this runtime's stream only.
            unsafe { dres::memset_d8_async(ptr, value, buf.len(), self.stream.cu_stream()) }
                .map_err(|e| CudaError::driver("cuMemsetD8Async (L2 flush)", e))?;
        }
        Ok(())
    }

    /// Times `k` on `b` with [`crate::timing::measure`] (CUDA events; warm-up launches, then
    /// rounds of `iters_per_round` back-to-back launches replayed from one CUDA graph with
    /// `use_graph`; the median over rounds). With `flush_l2`, a buffer of max(2·L2, 256 MiB)
    /// is overwritten before each round, outside the timed interval.
    pub fn time(
        &self,
        k: &LoadedKernel,
        b: &Buffers,
        opts: &TimingOptions,
    ) -> Result<Timing, CudaError> {
        self.time_against(k, b, opts, None)
    }

    /// [`GpuRuntime::time`] with early stop against `best_ms`, the best verified latency known
    /// on the same problem (used only with `opts.early_stop`).
    pub fn time_against(
        &self,
        k: &LoadedKernel,
        b: &Buffers,
        opts: &TimingOptions,
        best_ms: Option<f64>,
    ) -> Result<Timing, CudaError> {
        crate::timing::measure(
            &self.stream,
            opts,
            best_ms,
            &k.name,
            k.launches.len(),
            || self.launch_async(k, b),
            |round| {
                if opts.flush_l2 {
                    self.flush_l2(round)
                } else {
                    Ok(())
                }
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// A tensor map the driver could not encode is refused before the driver is asked (no
    /// GPU or driver needed): a stride off the 16-byte grid, an im2col view whose corners do
    /// not fit its rank.
    #[test]
    fn unencodable_tensor_maps_are_refused_before_the_driver() {
        let tiled = gconv_kernels::TensorMap {
            buffer: 0,
            elem: gconv_kernels::TmaElem::Bf16,
            dims: vec![100, 4, 64],
            strides: vec![200, 800],
            boxdim: vec![64, 1, 128],
            swizzle_128b: true,
            im2col: None,
        };
        assert!(tiled.problem().is_some());
        assert!(encode_tensor_map(&tiled, 0).is_err());
        let im2col = gconv_kernels::TensorMap {
            dims: vec![64, 28, 28, 8],
            strides: vec![128, 128 * 28, 128 * 28 * 28],
            boxdim: vec![64, 1, 1, 1],
            im2col: Some(gconv_kernels::Im2col {
                lower: vec![-200, -1],
                upper: vec![-1, -1],
                element_strides: vec![1, 1, 1, 1],
                channels_per_pixel: 64,
                pixels_per_column: 128,
            }),
            ..tiled
        };
        assert!(im2col.problem().unwrap().contains("corner -200"));
        assert!(encode_tensor_map(&im2col, 0).is_err());
    }

    #[test]
    fn probe_never_panics() {
        // On a machine without a GPU this is an error value; on the GPU machine a description.
        match probe() {
            Ok(info) => println!("probe: {info}"),
            Err(e) => println!("SKIPPED: no GPU: probe said: {e}"),
        }
    }
}
