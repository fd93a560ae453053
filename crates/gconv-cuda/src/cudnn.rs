//! The cuDNN baseline provider, through cuDNN's graph (backend) API — the path PyTorch takes.
//!
//! For one [`Problem`] it builds an operation graph of a single convolution node (tensor
//! descriptors for X, W, Y in the gconv layouts, a cross-correlation descriptor with f32
//! compute), asks the engine heuristics (modes A, B and FALLBACK by default) for engine
//! configurations, finalizes an execution plan for each (configurations cuDNN refuses become
//! rows with their status), runs each plan on buffers the caller provides, times it with CUDA
//! events and keeps the fastest. Each row is named `cudnn:eng<id>_<knob><value>...` from the
//! engine's global index and its knob choices, e.g. `cudnn:eng62_tilesize3_stages4`.
//!
//! Layouts (ARCHITECTURE.md, problems): X is `N,[D,]H,W,G,C/G`, W is `G,K/G,[Z,]Y,X,C/G`, Y is
//! `N,[Do,]Ho,Wo,G,K/G`. cuDNN sees them as logical `N,C,(D,)H,W` / `K,C/G,(Z,)Y,X` /
//! `N,K,(D,)H,W` tensors with channels-last strides; the group count is implied by X's C
//! against W's C/G. 1D problems run as 2D with H = 1. With [`CudnnLayout::ChannelsFirst`] in
//! [`CudnnTiming::layouts`] the same buffers are also timed as PyTorch's contiguous NCHW
//! tensors (rows `cudnn:nchw:eng...`), for a best-of-layouts figure like the corpus's; only
//! channels-last plans produce gconv-layout outputs ([`CudnnBaseline::execute_best`] uses
//! those).
//!
//! Timing: one plain execution checks that the plan runs, then [`crate::timing::measure`] —
//! the same function that times gconv's kernels — times it: a probe, warm-up executions, then
//! rounds of `iters` executions replayed from one CUDA graph (plain launches on the stream when
//! capture fails), each round between two CUDA events; the figure is the median over rounds of
//! the time per execution. Graph replay keeps host launch overhead out of the figure, as in the
//! `cudnn_graph_ms` column of the corpus. With [`CudnnTiming::adaptive`] the counts follow the
//! measured duration; with [`CudnnTiming::early_stop`] a configuration clearly slower than the
//! best so far (the fastest configuration of this call, or [`CudnnTiming::best_ms`]) stops
//! after the probe (method `single`) or after its first rounds, which keeps a sweep over ~40
//! configurations per problem to about a second.
//!
//! Loading: the library is opened through cudarc's loader after checking it is present, and
//! every entry point is looked up by name into a typed function pointer whose status result
//! is a plain integer, so a status code unknown to the bindings can never become an invalid
//! enum value. The loader asks for `libcudnn.so` before `libcudnn.so.9`, so with only
//! PyTorch's `libcudnn.so.9` at the front of `LD_LIBRARY_PATH` a system `libcudnn.so` may
//! still win: link `libcudnn.so` to the wanted file in a folder of its own and put that
//! first; [`CudnnBaseline::version`] says which one loaded. Nothing here panics when cuDNN is
//! missing: [`CudnnBaseline::version`] and [`CudnnBaseline::new`] return
//! [`CudnnError::LibraryNotFound`].

use crate::timing::{Adaptive, EarlyStop, Stop, Timing, TimingOptions};
use cudarc::cudnn::sys::{
    cudnnBackendAttributeName_t as Attr, cudnnBackendAttributeType_t as AttrType,
    cudnnBackendDescriptorType_t as DescType, cudnnBackendHeurMode_t, cudnnConvolutionMode_t,
    cudnnDataType_t,
};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DriverError};
use gconv_problem::{DType, Direction, Problem, TensorRole};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Instant;
use thiserror::Error;

/// Every way the cuDNN baseline can fail as a whole. Per-engine outcomes (a configuration
/// cuDNN refuses, a plan that fails to run) are not errors: they are [`EngineStatus`] values
/// in the rows of [`CudnnBaseline::time_all`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CudnnError {
    /// `libcudnn.so.9` could not be opened.
    #[error("cuDNN library not found: could not load libcudnn.so.9 (install cuDNN 9, e.g. the nvidia-cudnn-cu13 wheel that PyTorch installs); looked in {searched}")]
    LibraryNotFound {
        /// Where it was looked for ([`crate::libs::describe_search`]).
        searched: String,
    },
    /// The library loaded but lacks an entry point.
    #[error("cuDNN library has no symbol {symbol}: {message}")]
    MissingSymbol {
        /// The entry point looked up.
        symbol: &'static str,
        /// The loader's message.
        message: String,
    },
    /// The loaded cuDNN is older than 9 (the backend enums used here are cuDNN 9's).
    #[error("cuDNN {version} loaded but cuDNN >= 9.0 is required")]
    VersionTooOld {
        /// `cudnnGetVersion()`, e.g. 8907.
        version: usize,
    },
    /// A cuDNN call failed.
    #[error(
        "cuDNN {call} failed on {context}: {status} ({code}){}",
        fmt_detail(detail)
    )]
    Status {
        /// The API function, e.g. `cudnnBackendFinalize`.
        call: &'static str,
        /// What it was applied to, e.g. `tensor X attribute CUDNN_ATTR_TENSOR_STRIDES`.
        context: String,
        /// The status name, e.g. `CUDNN_STATUS_BAD_PARAM`.
        status: String,
        /// The numeric status.
        code: i32,
        /// `cudnnGetLastErrorString`, when cuDNN had something to say.
        detail: String,
    },
    /// A CUDA driver call (events, graphs, allocation, synchronisation) failed.
    #[error("CUDA driver call {call} failed: {message}")]
    Driver {
        /// The operation.
        call: &'static str,
        /// Driver error name.
        message: String,
    },
    /// The shared timing module failed (a fault or a driver error while timing a plan).
    #[error("timing: {0}")]
    Timing(#[from] crate::error::CudaError),
    /// A device pointer handed in is null or not 16-byte aligned (the tensors are declared
    /// with 16-byte alignment).
    #[error("device pointer {which} = {ptr:#x} is null or not 16-byte aligned")]
    BadPointer {
        /// Which argument (`in0`, `in1`, `out`).
        which: &'static str,
        /// The pointer.
        ptr: u64,
    },
    /// A buffer handed in is smaller than its tensor.
    #[error("buffer {which} holds {got} bytes but problem {problem} needs {expected}")]
    BufferTooSmall {
        /// Which argument.
        which: &'static str,
        /// The problem key.
        problem: String,
        /// Bytes needed.
        expected: u64,
        /// Bytes given.
        got: u64,
    },
    /// Neither heuristic mode produced an engine configuration.
    #[error("cuDNN offers no engine configuration for {problem}: {reasons}")]
    NoEngineConfigs {
        /// The problem key.
        problem: String,
        /// What each heuristic mode answered.
        reasons: String,
    },
    /// Every engine configuration failed to finalize or to run.
    #[error("no cuDNN engine runs {problem} ({tried} configuration(s) tried): {summary}")]
    NoWorkingEngine {
        /// The problem key.
        problem: String,
        /// Configurations tried.
        tried: usize,
        /// The status of each.
        summary: String,
    },
    /// [`CudnnBaseline::execute_named`] was asked for a plan it does not hold.
    #[error("no finalized cuDNN plan {name:?} for {problem} (run time_all on this problem first)")]
    PlanNotCached {
        /// The problem key.
        problem: String,
        /// The plan name asked for.
        name: String,
    },
}

fn fmt_detail(detail: &str) -> String {
    if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    }
}

fn driver_err(call: &'static str) -> impl FnOnce(DriverError) -> CudnnError {
    move |e| CudnnError::Driver {
        call,
        message: format!("{:?}", e.0),
    }
}

/// The name of a cuDNN status code (cuDNN 9 numbering); unknown codes print as a number.
pub fn status_name(code: i32) -> String {
    let name = match code {
        0 => "CUDNN_STATUS_SUCCESS",
        1001 => "CUDNN_STATUS_NOT_INITIALIZED",
        1002 => "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
        1003 => "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH",
        1004 => "CUDNN_STATUS_DEPRECATED",
        1005 => "CUDNN_STATUS_LICENSE_ERROR",
        1006 => "CUDNN_STATUS_RUNTIME_IN_PROGRESS",
        1007 => "CUDNN_STATUS_RUNTIME_FP_OVERFLOW",
        1008 => "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED",
        2000 => "CUDNN_STATUS_BAD_PARAM",
        2001 => "CUDNN_STATUS_INVALID_VALUE",
        2002 => "CUDNN_STATUS_BAD_PARAM_NULL_POINTER",
        2003 => "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER",
        2004 => "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED",
        2005 => "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND",
        2006 => "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT",
        2007 => "CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH",
        2008 => "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH",
        2009 => "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES",
        2010 => "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE",
        2011 => "CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH",
        2012 => "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE",
        3000 => "CUDNN_STATUS_NOT_SUPPORTED",
        3001 => "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN",
        3002 => "CUDNN_STATUS_NOT_SUPPORTED_SHAPE",
        3003 => "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE",
        3004 => "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT",
        3005 => "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER",
        3006 => "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART",
        3007 => "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH",
        3008 => "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING",
        3009 => "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE",
        3010 => "CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT",
        3011 => "CUDNN_STATUS_NOT_SUPPORTED_PADDING",
        3012 => "CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM",
        3013 => "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API",
        3014 => "CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE",
        4000 => "CUDNN_STATUS_INTERNAL_ERROR",
        4001 => "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED",
        4002 => "CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE",
        4003 => "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED",
        4004 => "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED",
        4005 => "CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM",
        4006 => "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED",
        5000 => "CUDNN_STATUS_EXECUTION_FAILED",
        5001 => "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER",
        5002 => "CUDNN_STATUS_EXECUTION_FAILED_CUBLAS",
        5003 => "CUDNN_STATUS_EXECUTION_FAILED_CUDART",
        5004 => "CUDNN_STATUS_EXECUTION_FAILED_CURAND",
        _ => return format!("CUDNN_STATUS_{code}"),
    };
    name.to_string()
}

/// Short knob names (`CUDNN_KNOB_TYPE_SPLIT_K` → `splitk`), indexed by the cuDNN 9 knob type.
const KNOB_NAMES: [&str; 44] = [
    "splitk",
    "swizzle",
    "tilesize",
    "usetex",
    "edge",
    "kblock",
    "ldga",
    "ldgb",
    "chunkk",
    "splith",
    "winotile",
    "multiply",
    "splitkbuf",
    "tilek",
    "stages",
    "reductionmode",
    "ctasplitkmode",
    "splitkslc",
    "idxmode",
    "sliced",
    "splitrs",
    "singlebuffer",
    "ldgc",
    "specfilt",
    "kernelcfg",
    "workspace",
    "tilecga",
    "tilecgam",
    "tilecgan",
    "blocksize",
    "occupancy",
    "arraysizeperthread",
    "numcperblock",
    "splitcols",
    "tilerows",
    "tilecols",
    "loadsize",
    "ctacount",
    "streamk",
    "splitpslc",
    "tilem",
    "tilen",
    "warpspeccfg",
    "swapab",
];

/// The short name of a knob type; types newer than the bindings print as `k<type>`.
pub fn knob_name(knob_type: u32) -> String {
    KNOB_NAMES
        .get(knob_type as usize)
        .map(|s| s.to_string())
        .unwrap_or_else(|| format!("k{knob_type}"))
}

const NUMERICAL_NOTES: [&str; 10] = [
    "tensor_core",
    "down_convert_inputs",
    "reduced_precision_reduction",
    "fft",
    "nondeterministic",
    "winograd",
    "winograd_tile_4x4",
    "winograd_tile_6x6",
    "winograd_tile_13x13",
    "strict_nan_prop",
];

const BEHAVIOR_NOTES: [&str; 5] = [
    "runtime_compilation",
    "requires_filter_int8x32_reorder",
    "requires_bias_int8x32_reorder",
    "supports_cuda_graph_native_api",
    "cublaslt_dependency",
];

fn note_name(table: &[&str], v: u32) -> String {
    table
        .get(v as usize)
        .map(|s| s.to_string())
        .unwrap_or_else(|| format!("note{v}"))
}

/// The row name of an engine configuration: `cudnn:eng<id>` (channels last) or
/// `cudnn:nchw:eng<id>` (channels first), then `_<knob><value>` for each knob in knob-type
/// order. Only letters, digits, `:`, `_` and `-` occur (shell-safe).
pub fn engine_name(layout: CudnnLayout, engine_id: i64, knobs: &[(u32, i64)]) -> String {
    let mut sorted = knobs.to_vec();
    sorted.sort_unstable();
    let mut s = match layout {
        CudnnLayout::ChannelsLast => format!("cudnn:eng{engine_id}"),
        CudnnLayout::ChannelsFirst => format!("cudnn:nchw:eng{engine_id}"),
    };
    for (t, v) in sorted {
        s.push('_');
        s.push_str(&knob_name(t));
        s.push_str(&v.to_string());
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Library entry points
// ---------------------------------------------------------------------------------------------

type Raw = *mut c_void;

/// The cuDNN entry points used here, as typed function pointers. Statuses are `c_int` and
/// enum arguments `c_uint` (C enums are int-sized), so no foreign value is ever reinterpreted
/// as a Rust enum.
struct Api {
    get_version: unsafe extern "C" fn() -> usize,
    create: unsafe extern "C" fn(*mut Raw) -> c_int,
    destroy: unsafe extern "C" fn(Raw) -> c_int,
    set_stream: unsafe extern "C" fn(Raw, Raw) -> c_int,
    get_last_error_string: Option<unsafe extern "C" fn(*mut c_char, usize)>,
    create_descriptor: unsafe extern "C" fn(c_uint, *mut Raw) -> c_int,
    destroy_descriptor: unsafe extern "C" fn(Raw) -> c_int,
    finalize: unsafe extern "C" fn(Raw) -> c_int,
    set_attribute: unsafe extern "C" fn(Raw, c_uint, c_uint, i64, *const c_void) -> c_int,
    get_attribute: unsafe extern "C" fn(Raw, c_uint, c_uint, i64, *mut i64, Raw) -> c_int,
    execute: unsafe extern "C" fn(Raw, Raw, Raw) -> c_int,
}

fn api() -> Result<&'static Api, CudnnError> {
    static API: OnceLock<Result<Api, CudnnError>> = OnceLock::new();
    API.get_or_init(load_api).as_ref().map_err(Clone::clone)
}

fn load_api() -> Result<Api, CudnnError> {
    let preloaded = crate::libs::preload(crate::libs::CudaLib::Cudnn);
    // SAFETY: `is_culib_present` only tries to dlopen cudarc's candidate names for libcudnn
    // and drops whatever it opened; it touches no other state.
    if preloaded.is_err() || !unsafe { cudarc::cudnn::sys::is_culib_present() } {
        return Err(CudnnError::LibraryNotFound {
            searched: crate::libs::describe_search(&preloaded.err().unwrap_or_default()),
        });
    }
    // SAFETY: the library was just found on the same candidate list, so `culib` opens it
    // instead of panicking; opening libcudnn runs only its (side-effect free) initialisers.
    let lib = unsafe { cudarc::cudnn::sys::culib() };
    macro_rules! sym {
        ($name:literal, $ty:ty) => {{
            // SAFETY: `$ty` is the C signature of `$name` in cuDNN 9's headers (cudnn_graph.h,
            // cudnn_ops.h), with cudnnStatus_t as int, enums as unsigned int and handles and
            // descriptors as opaque pointers; the library outlives the program (static).
            let s = unsafe { lib.get::<$ty>($name.as_bytes()) };
            match s {
                Ok(f) => *f,
                Err(e) => {
                    return Err(CudnnError::MissingSymbol {
                        symbol: $name,
                        message: e.to_string(),
                    })
                }
            }
        }};
    }
    // SAFETY: as in `sym!`; this one is optional (cuDNN >= 9.0 has it).
    let last =
        unsafe { lib.get::<unsafe extern "C" fn(*mut c_char, usize)>(b"cudnnGetLastErrorString") }
            .ok()
            .map(|f| *f);
    let api = Api {
        get_version: sym!("cudnnGetVersion", unsafe extern "C" fn() -> usize),
        create: sym!("cudnnCreate", unsafe extern "C" fn(*mut Raw) -> c_int),
        destroy: sym!("cudnnDestroy", unsafe extern "C" fn(Raw) -> c_int),
        set_stream: sym!("cudnnSetStream", unsafe extern "C" fn(Raw, Raw) -> c_int),
        get_last_error_string: last,
        create_descriptor: sym!(
            "cudnnBackendCreateDescriptor",
            unsafe extern "C" fn(c_uint, *mut Raw) -> c_int
        ),
        destroy_descriptor: sym!(
            "cudnnBackendDestroyDescriptor",
            unsafe extern "C" fn(Raw) -> c_int
        ),
        finalize: sym!("cudnnBackendFinalize", unsafe extern "C" fn(Raw) -> c_int),
        set_attribute: sym!(
            "cudnnBackendSetAttribute",
            unsafe extern "C" fn(Raw, c_uint, c_uint, i64, *const c_void) -> c_int
        ),
        get_attribute: sym!(
            "cudnnBackendGetAttribute",
            unsafe extern "C" fn(Raw, c_uint, c_uint, i64, *mut i64, Raw) -> c_int
        ),
        execute: sym!(
            "cudnnBackendExecute",
            unsafe extern "C" fn(Raw, Raw, Raw) -> c_int
        ),
    };
    // SAFETY: cudnnGetVersion takes no arguments and only returns a constant.
    let version = unsafe { (api.get_version)() };
    if version < 9_00_00 {
        return Err(CudnnError::VersionTooOld { version });
    }
    Ok(api)
}

impl Api {
    /// cuDNN's message about the last failed call on this thread (empty when none).
    fn last_error(&self) -> String {
        let Some(f) = self.get_last_error_string else {
            return String::new();
        };
        let mut buf = vec![0 as c_char; 1024];
        // SAFETY: `buf` is writable for `buf.len()` bytes; cuDNN writes at most that many,
        // NUL-terminated.
        unsafe { f(buf.as_mut_ptr(), buf.len()) };
        if let Some(last) = buf.last_mut() {
            *last = 0;
        }
        // SAFETY: `buf` is NUL-terminated (forced above) and lives for the call.
        let s = unsafe { CStr::from_ptr(buf.as_ptr()) };
        s.to_string_lossy().trim().to_string()
    }

    /// Turns a status into a result naming the call and what it was applied to.
    fn check(
        &self,
        code: c_int,
        call: &'static str,
        context: impl FnOnce() -> String,
    ) -> Result<(), CudnnError> {
        if code == 0 {
            return Ok(());
        }
        Err(CudnnError::Status {
            call,
            context: context(),
            status: status_name(code),
            code,
            detail: self.last_error(),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Backend descriptors
// ---------------------------------------------------------------------------------------------

/// An owned backend descriptor, destroyed on drop.
struct Desc {
    raw: Raw,
    api: &'static Api,
    what: String,
}

fn attr_name(a: Attr) -> String {
    format!("{a:?}")
}

impl Desc {
    fn new(api: &'static Api, ty: DescType, what: impl Into<String>) -> Result<Desc, CudnnError> {
        let what = what.into();
        let mut raw: Raw = std::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; `ty` is a cuDNN 9 descriptor type.
        let code = unsafe { (api.create_descriptor)(ty as c_uint, &mut raw) };
        api.check(code, "cudnnBackendCreateDescriptor", || {
            format!("{what} ({ty:?})")
        })?;
        Ok(Desc { raw, api, what })
    }

    /// Sets an attribute from `count` elements at `ptr`.
    ///
    /// # Safety
    /// `ptr` must point to `count` readable elements of the C type that `ty` names.
    unsafe fn set_raw(
        &self,
        name: Attr,
        ty: AttrType,
        count: usize,
        ptr: *const c_void,
    ) -> Result<(), CudnnError> {
        // SAFETY: the caller guarantees `ptr`/`count`/`ty` agree; `self.raw` is a live
        // descriptor; cuDNN copies the values before returning.
        let code = unsafe {
            (self.api.set_attribute)(self.raw, name as c_uint, ty as c_uint, count as i64, ptr)
        };
        self.api.check(code, "cudnnBackendSetAttribute", || {
            format!("{} attribute {}", self.what, attr_name(name))
        })
    }

    fn set_i64s(&self, name: Attr, v: &[i64]) -> Result<(), CudnnError> {
        // SAFETY: `v` holds `v.len()` int64 values, the element type of CUDNN_TYPE_INT64.
        unsafe { self.set_raw(name, AttrType::CUDNN_TYPE_INT64, v.len(), v.as_ptr().cast()) }
    }

    fn set_f32(&self, name: Attr, v: f32) -> Result<(), CudnnError> {
        // SAFETY: one f32, the element type of CUDNN_TYPE_FLOAT.
        unsafe {
            self.set_raw(
                name,
                AttrType::CUDNN_TYPE_FLOAT,
                1,
                (&v as *const f32).cast(),
            )
        }
    }

    /// Sets an enum-valued attribute (data type, convolution mode, heuristic mode).
    fn set_enum(&self, name: Attr, ty: AttrType, v: u32) -> Result<(), CudnnError> {
        // SAFETY: one C enum value (int-sized, here `u32`) of the enum type `ty` names.
        unsafe { self.set_raw(name, ty, 1, (&v as *const u32).cast()) }
    }

    fn set_desc(&self, name: Attr, d: &Desc) -> Result<(), CudnnError> {
        let raw = d.raw;
        // SAFETY: one cudnnBackendDescriptor_t (a live, finalized descriptor), the element
        // type of CUDNN_TYPE_BACKEND_DESCRIPTOR.
        unsafe {
            self.set_raw(
                name,
                AttrType::CUDNN_TYPE_BACKEND_DESCRIPTOR,
                1,
                (&raw as *const Raw).cast(),
            )
        }
    }

    fn set_handle(&self, name: Attr, handle: Raw) -> Result<(), CudnnError> {
        // SAFETY: one cudnnHandle_t (live for the life of the owning CudnnBaseline), the
        // element type of CUDNN_TYPE_HANDLE.
        unsafe {
            self.set_raw(
                name,
                AttrType::CUDNN_TYPE_HANDLE,
                1,
                (&handle as *const Raw).cast(),
            )
        }
    }

    fn set_ptrs(&self, name: Attr, v: &[Raw]) -> Result<(), CudnnError> {
        // SAFETY: `v.len()` `void*` values, the element type of CUDNN_TYPE_VOID_PTR.
        unsafe {
            self.set_raw(
                name,
                AttrType::CUDNN_TYPE_VOID_PTR,
                v.len(),
                v.as_ptr().cast(),
            )
        }
    }

    fn finalize(&self) -> Result<(), CudnnError> {
        // SAFETY: `self.raw` is a live descriptor.
        let code = unsafe { (self.api.finalize)(self.raw) };
        self.api
            .check(code, "cudnnBackendFinalize", || self.what.clone())
    }

    /// Reads up to `cap` elements into `out` and returns how many cuDNN reported.
    ///
    /// # Safety
    /// `out` must be writable for `cap` elements of the C type that `ty` names (for
    /// CUDNN_TYPE_BACKEND_DESCRIPTOR: `cap` live descriptors of the right type).
    unsafe fn get_raw(
        &self,
        name: Attr,
        ty: AttrType,
        cap: usize,
        out: Raw,
    ) -> Result<usize, CudnnError> {
        let mut count: i64 = 0;
        // SAFETY: guaranteed by the caller for `out`; `count` is a valid out-pointer.
        let code = unsafe {
            (self.api.get_attribute)(
                self.raw,
                name as c_uint,
                ty as c_uint,
                cap as i64,
                &mut count,
                out,
            )
        };
        self.api.check(code, "cudnnBackendGetAttribute", || {
            format!("{} attribute {}", self.what, attr_name(name))
        })?;
        Ok(count.max(0) as usize)
    }

    fn get_i64(&self, name: Attr) -> Result<i64, CudnnError> {
        let mut v: i64 = 0;
        // SAFETY: room for one int64, the element type of CUDNN_TYPE_INT64.
        unsafe {
            self.get_raw(
                name,
                AttrType::CUDNN_TYPE_INT64,
                1,
                (&mut v as *mut i64).cast(),
            )?
        };
        Ok(v)
    }

    /// Reads an enum-array attribute (notes, knob type) as raw integers.
    fn get_enums(&self, name: Attr, ty: AttrType, cap: usize) -> Result<Vec<u32>, CudnnError> {
        let mut v = vec![0u32; cap];
        // SAFETY: room for `cap` int-sized C enum values.
        let n = unsafe { self.get_raw(name, ty, cap, v.as_mut_ptr().cast())? };
        v.truncate(n.min(cap));
        Ok(v)
    }

    /// Fills the descriptors of `out` (created by the caller with the right type) from a
    /// descriptor-array attribute; returns how many were filled.
    fn get_descs(&self, name: Attr, out: &[Desc]) -> Result<usize, CudnnError> {
        let mut raws: Vec<Raw> = out.iter().map(|d| d.raw).collect();
        // SAFETY: `raws` holds `out.len()` live descriptors of the type the attribute
        // yields; cuDNN fills them in place.
        let n = unsafe {
            self.get_raw(
                name,
                AttrType::CUDNN_TYPE_BACKEND_DESCRIPTOR,
                raws.len(),
                raws.as_mut_ptr().cast(),
            )?
        };
        Ok(n.min(out.len()))
    }

    /// How many elements a descriptor-array attribute holds.
    fn count_descs(&self, name: Attr) -> Result<usize, CudnnError> {
        // SAFETY: with a capacity of 0 cuDNN writes no element, only the count.
        unsafe {
            self.get_raw(
                name,
                AttrType::CUDNN_TYPE_BACKEND_DESCRIPTOR,
                0,
                std::ptr::null_mut(),
            )
        }
    }

    fn get_string(&self, name: Attr) -> Result<String, CudnnError> {
        // SAFETY: with a capacity of 0 cuDNN writes no element, only the count.
        let n = unsafe { self.get_raw(name, AttrType::CUDNN_TYPE_CHAR, 0, std::ptr::null_mut())? };
        let mut buf = vec![0u8; n + 1];
        // SAFETY: `buf` has room for `n` chars.
        let got =
            unsafe { self.get_raw(name, AttrType::CUDNN_TYPE_CHAR, n, buf.as_mut_ptr().cast())? };
        buf.truncate(got.min(n));
        while buf.last() == Some(&0) {
            buf.pop();
        }
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }
}

impl Drop for Desc {
    fn drop(&mut self) {
        // SAFETY: `self.raw` was created by cudnnBackendCreateDescriptor and is destroyed
        // exactly once, here; its status is of no use at this point.
        unsafe { (self.api.destroy_descriptor)(self.raw) };
    }
}

// ---------------------------------------------------------------------------------------------
// The operation graph of one problem
// ---------------------------------------------------------------------------------------------

const UID_X: i64 = 1;
const UID_W: i64 = 2;
const UID_Y: i64 = 3;

/// Indices of the spatial slots (of D, H, W) that cuDNN sees: H, W for ranks 1 and 2.
fn spatial_slots(p: &Problem) -> std::ops::Range<usize> {
    if p.rank == 3 {
        0..3
    } else {
        1..3
    }
}

/// Logical dims (outer, channel, spatial...) and channels-last strides.
fn channels_last(outer: u64, channels: u64, spatial: &[u64]) -> (Vec<i64>, Vec<i64>) {
    let mut dims = vec![outer as i64, channels as i64];
    dims.extend(spatial.iter().map(|&s| s as i64));
    let mut strides = vec![0i64; dims.len()];
    strides[1] = 1;
    let mut run = channels as i64;
    for i in (0..spatial.len()).rev() {
        strides[2 + i] = run;
        run *= spatial[i] as i64;
    }
    strides[0] = run;
    (dims, strides)
}

/// Logical dims (outer, channel, spatial...) and fully packed channels-first strides.
fn channels_first(outer: u64, channels: u64, spatial: &[u64]) -> (Vec<i64>, Vec<i64>) {
    let mut dims = vec![outer as i64, channels as i64];
    dims.extend(spatial.iter().map(|&s| s as i64));
    let mut strides = vec![0i64; dims.len()];
    let mut run = 1i64;
    for i in (1..dims.len()).rev() {
        strides[i] = run;
        run *= dims[i];
    }
    strides[0] = run;
    (dims, strides)
}

/// cuDNN's view of a tensor of `p`: logical dims `N,C,(D,)H,W` (X), `K,C/G,(Z,)Y,X` (W),
/// `N,K,(D,)H,W` (Y), with strides of the gconv layouts (channels last) or of PyTorch's
/// contiguous NCHW tensors (channels first).
fn tensor_layout(p: &Problem, role: TensorRole, layout: CudnnLayout) -> (Vec<i64>, Vec<i64>) {
    let sl = spatial_slots(p);
    let f = match layout {
        CudnnLayout::ChannelsLast => channels_last,
        CudnnLayout::ChannelsFirst => channels_first,
    };
    match role {
        TensorRole::X => f(p.n, p.c, &p.input[sl]),
        TensorRole::W => f(p.k, p.cpg(), &p.filter[sl]),
        TensorRole::Y => f(p.n, p.k, &p.output()[sl]),
    }
}

fn data_type(d: DType) -> cudnnDataType_t {
    match d {
        DType::F32 => cudnnDataType_t::CUDNN_DATA_FLOAT,
        DType::F16 => cudnnDataType_t::CUDNN_DATA_HALF,
        DType::Bf16 => cudnnDataType_t::CUDNN_DATA_BFLOAT16,
    }
}

fn uid(role: TensorRole) -> i64 {
    match role {
        TensorRole::X => UID_X,
        TensorRole::W => UID_W,
        TensorRole::Y => UID_Y,
    }
}

/// The descriptors of one single-node operation graph. Field order is drop order: the graph
/// goes before what it references.
struct ConvGraph {
    graph: Desc,
    _op: Desc,
    _conv: Desc,
    _tensors: Vec<Desc>,
}

fn build_tensor(
    api: &'static Api,
    p: &Problem,
    role: TensorRole,
    layout: CudnnLayout,
) -> Result<Desc, CudnnError> {
    let (dims, strides) = tensor_layout(p, role, layout);
    let t = Desc::new(
        api,
        DescType::CUDNN_BACKEND_TENSOR_DESCRIPTOR,
        format!("tensor {} dims {dims:?} strides {strides:?}", role.name()),
    )?;
    t.set_enum(
        Attr::CUDNN_ATTR_TENSOR_DATA_TYPE,
        AttrType::CUDNN_TYPE_DATA_TYPE,
        data_type(p.dtype) as u32,
    )?;
    t.set_i64s(Attr::CUDNN_ATTR_TENSOR_DIMENSIONS, &dims)?;
    t.set_i64s(Attr::CUDNN_ATTR_TENSOR_STRIDES, &strides)?;
    t.set_i64s(Attr::CUDNN_ATTR_TENSOR_UNIQUE_ID, &[uid(role)])?;
    t.set_i64s(Attr::CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, &[16])?;
    t.finalize()?;
    Ok(t)
}

fn build_graph(
    api: &'static Api,
    handle: Raw,
    p: &Problem,
    layout: CudnnLayout,
) -> Result<ConvGraph, CudnnError> {
    let x = build_tensor(api, p, TensorRole::X, layout)?;
    let w = build_tensor(api, p, TensorRole::W, layout)?;
    let y = build_tensor(api, p, TensorRole::Y, layout)?;

    let sl = spatial_slots(p);
    let list = |v: [u64; 3]| -> Vec<i64> { v[sl.clone()].iter().map(|&a| a as i64).collect() };
    let conv = Desc::new(
        api,
        DescType::CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR,
        "convolution",
    )?;
    conv.set_enum(
        Attr::CUDNN_ATTR_CONVOLUTION_COMP_TYPE,
        AttrType::CUDNN_TYPE_DATA_TYPE,
        cudnnDataType_t::CUDNN_DATA_FLOAT as u32,
    )?;
    conv.set_enum(
        Attr::CUDNN_ATTR_CONVOLUTION_CONV_MODE,
        AttrType::CUDNN_TYPE_CONVOLUTION_MODE,
        cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION as u32,
    )?;
    conv.set_i64s(
        Attr::CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS,
        &[sl.len() as i64],
    )?;
    conv.set_i64s(Attr::CUDNN_ATTR_CONVOLUTION_DILATIONS, &list(p.dilation))?;
    conv.set_i64s(Attr::CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, &list(p.stride))?;
    conv.set_i64s(Attr::CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, &list(p.pad))?;
    conv.set_i64s(Attr::CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, &list(p.pad))?;
    conv.finalize()?;

    use Attr::*;
    let (ty, what, a_alpha, a_beta, a_conv, slots) = match p.direction {
        Direction::Fwd => (
            DescType::CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
            "convolution forward operation",
            CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
            [
                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
            ],
        ),
        Direction::Dgrad => (
            DescType::CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
            "convolution backward-data operation",
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
            [
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
            ],
        ),
        Direction::Wgrad => (
            DescType::CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
            "convolution backward-filter operation",
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
            [
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
            ],
        ),
    };
    let op = Desc::new(api, ty, what)?;
    op.set_f32(a_alpha, 1.0)?;
    op.set_f32(a_beta, 0.0)?;
    op.set_desc(a_conv, &conv)?;
    op.set_desc(slots[0], &x)?;
    op.set_desc(slots[1], &w)?;
    op.set_desc(slots[2], &y)?;
    op.finalize()?;

    let graph = Desc::new(
        api,
        DescType::CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR,
        "operation graph",
    )?;
    graph.set_desc(CUDNN_ATTR_OPERATIONGRAPH_OPS, &op)?;
    graph.set_handle(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, handle)?;
    graph.finalize()?;
    Ok(ConvGraph {
        graph,
        _op: op,
        _conv: conv,
        _tensors: vec![x, w, y],
    })
}

// ---------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------

/// The memory layout cuDNN is told the tensors have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CudnnLayout {
    /// The gconv layouts (NHWC / NDHWC activations, KYXC weights): zero-copy with the
    /// caller's buffers, the only layout whose outputs can be verified as gconv tensors.
    ChannelsLast,
    /// PyTorch's contiguous NCHW / NCDHW activations and KCYX weights, for timing only: the
    /// same buffers are read as channels-first tensors of the same sizes, so the outputs of
    /// these plans are channels-first too. The corpus's `cudnn_graph_ms` is the best of both
    /// layouts.
    ChannelsFirst,
}

impl CudnnLayout {
    /// Token (`nhwc`, `nchw`).
    pub fn token(self) -> &'static str {
        match self {
            CudnnLayout::ChannelsLast => "nhwc",
            CudnnLayout::ChannelsFirst => "nchw",
        }
    }
}

/// A cuDNN engine-heuristics mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeurMode {
    /// `CUDNN_HEUR_MODE_A` (the fast decision-tree heuristics; PyTorch's first list).
    A,
    /// `CUDNN_HEUR_MODE_B` (the slower, more thorough heuristics).
    B,
    /// `CUDNN_HEUR_MODE_FALLBACK` (engines that support the graph at all, PyTorch's second
    /// list).
    Fallback,
}

impl HeurMode {
    fn raw(self) -> cudnnBackendHeurMode_t {
        match self {
            HeurMode::A => cudnnBackendHeurMode_t::CUDNN_HEUR_MODE_A,
            HeurMode::B => cudnnBackendHeurMode_t::CUDNN_HEUR_MODE_B,
            HeurMode::Fallback => cudnnBackendHeurMode_t::CUDNN_HEUR_MODE_FALLBACK,
        }
    }

    /// Short name (`A`, `B`, `FALLBACK`).
    pub fn token(self) -> &'static str {
        match self {
            HeurMode::A => "A",
            HeurMode::B => "B",
            HeurMode::Fallback => "FALLBACK",
        }
    }
}

/// Timing and selection options for [`CudnnBaseline::time_all`].
#[derive(Debug, Clone, PartialEq)]
pub struct CudnnTiming {
    /// Plain executions before timing (the first also checks the plan runs).
    pub warmup: usize,
    /// Timed rounds; the reported figure is their median.
    pub rounds: usize,
    /// Executions per round (captured into one CUDA graph when `use_graph`).
    pub iters: usize,
    /// Capture each round's executions into a CUDA graph (keeps host launch overhead out).
    pub use_graph: bool,
    /// Adaptive repeats (see [`crate::timing`]); `None`: exactly `warmup`, `rounds` × `iters`.
    pub adaptive: Option<Adaptive>,
    /// Early stop against the best so far; `None`: every configuration is timed in full.
    pub early_stop: Option<EarlyStop>,
    /// Best latency known before this call (for early stop), for example from an earlier
    /// measurement of the same provider on the same problem.
    pub best_ms: Option<f64>,
    /// Largest workspace a configuration may ask for.
    pub max_workspace_bytes: u64,
    /// Skip engines with the `down_convert_inputs` note (PyTorch always does).
    pub skip_down_convert: bool,
    /// Skip engines that compile kernels at plan time (`runtime_compilation` note).
    pub skip_runtime_compiled: bool,
    /// Try at most this many distinct configurations (in heuristics order).
    pub max_configs: Option<usize>,
    /// Heuristic modes to ask, in order; duplicates across modes are tried once. The default,
    /// A + B + FALLBACK, is a superset of PyTorch's lists (A and FALLBACK): on the H200 mode B
    /// added faster split-K configurations for a few wgrad layers (up to 1.4x), so the
    /// baseline is at least as strong as what PyTorch reaches.
    pub heur_modes: Vec<HeurMode>,
    /// Layouts to build graphs for, in order (each gets its own heuristics and rows).
    pub layouts: Vec<CudnnLayout>,
    /// Keep each finalized plan's JSON representation in its row (it embeds the kernel
    /// binary: tens of kilobytes).
    pub keep_plan_json: bool,
}

impl Default for CudnnTiming {
    fn default() -> Self {
        CudnnTiming {
            warmup: 3,
            rounds: 5,
            iters: 10,
            use_graph: true,
            adaptive: Some(Adaptive::default()),
            early_stop: Some(EarlyStop::default()),
            best_ms: None,
            max_workspace_bytes: 4 << 30,
            skip_down_convert: true,
            skip_runtime_compiled: false,
            max_configs: None,
            heur_modes: vec![HeurMode::A, HeurMode::B, HeurMode::Fallback],
            layouts: vec![CudnnLayout::ChannelsLast],
            keep_plan_json: false,
        }
    }
}

impl CudnnTiming {
    /// The shared timing options these fields describe (no L2 flush).
    pub fn timing_options(&self) -> TimingOptions {
        TimingOptions {
            warmup: self.warmup as u32,
            rounds: self.rounds.max(1) as u32,
            iters_per_round: self.iters.max(1) as u32,
            flush_l2: false,
            use_graph: self.use_graph,
            adaptive: self.adaptive,
            early_stop: self.early_stop,
        }
    }
}

/// What became of one engine configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineStatus {
    /// Finalized, ran and was timed.
    Ok,
    /// Not tried, by option (`reason` says which).
    Skipped {
        /// Why.
        reason: String,
    },
    /// cuDNN refused to finalize the execution plan (typically a NOT_SUPPORTED status).
    FinalizeFailed {
        /// Status name.
        status: String,
        /// cuDNN's message.
        detail: String,
    },
    /// The plan needs more workspace than allowed or than could be allocated.
    Workspace {
        /// Bytes asked for.
        bytes: u64,
        /// Why it was not given.
        reason: String,
    },
    /// `cudnnBackendExecute` returned an error.
    ExecuteFailed {
        /// Status name.
        status: String,
        /// cuDNN's message.
        detail: String,
    },
}

impl EngineStatus {
    /// A one-word token for CSV rows (`ok`, `skipped`, `unsupported`, `workspace`,
    /// `launch_error`).
    pub fn token(&self) -> &'static str {
        match self {
            EngineStatus::Ok => "ok",
            EngineStatus::Skipped { .. } => "skipped",
            EngineStatus::FinalizeFailed { .. } => "unsupported",
            EngineStatus::Workspace { .. } => "workspace",
            EngineStatus::ExecuteFailed { .. } => "launch_error",
        }
    }
}

impl fmt::Display for EngineStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineStatus::Ok => f.write_str("ok"),
            EngineStatus::Skipped { reason } => write!(f, "skipped ({reason})"),
            EngineStatus::FinalizeFailed { status, detail } => {
                write!(f, "finalize failed: {status}{}", fmt_detail(detail))
            }
            EngineStatus::Workspace { bytes, reason } => {
                write!(f, "workspace of {bytes} bytes: {reason}")
            }
            EngineStatus::ExecuteFailed { status, detail } => {
                write!(f, "execute failed: {status}{}", fmt_detail(detail))
            }
        }
    }
}

/// How a time was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimingMethod {
    /// CUDA-graph replay of `iters` executions per round.
    Graph,
    /// `iters` plain executions per round on the stream (graph capture failed or was off).
    Stream,
    /// One execution, the probe (stopped early as far slower than the best).
    Single,
}

impl TimingMethod {
    /// Token (`graph`, `stream`, `single`).
    pub fn token(self) -> &'static str {
        match self {
            TimingMethod::Graph => "graph",
            TimingMethod::Stream => "stream",
            TimingMethod::Single => "single",
        }
    }
}

/// One engine configuration tried by [`CudnnBaseline::time_all`].
#[derive(Debug, Clone, PartialEq)]
pub struct CudnnEngineResult {
    /// Row name, `cudnn:eng<id>_<knob><value>...` (`cudnn:nchw:eng...` for channels first).
    pub name: String,
    /// The layout the graph declared.
    pub layout: CudnnLayout,
    /// The engine's global index.
    pub engine_id: i64,
    /// Knob choices `(knob name, value)` in knob-type order.
    pub knobs: Vec<(String, i64)>,
    /// Heuristic modes that returned this configuration.
    pub sources: Vec<HeurMode>,
    /// Numerical notes of the engine (`tensor_core`, `nondeterministic`, ...).
    pub numerical_notes: Vec<String>,
    /// Behaviour notes of the engine (`runtime_compilation`, ...).
    pub behavior_notes: Vec<String>,
    /// Workspace of the finalized plan.
    pub workspace_bytes: Option<u64>,
    /// Outcome.
    pub status: EngineStatus,
    /// Median milliseconds per execution (status `Ok`).
    pub median_ms: Option<f64>,
    /// Fastest round, milliseconds per execution.
    pub min_ms: Option<f64>,
    /// How the time was measured.
    pub method: Option<TimingMethod>,
    /// The full measurement (rounds, executions per round, early stop, method string).
    pub timing: Option<Timing>,
    /// Host milliseconds spent finalizing the plan (runtime compilation shows here).
    pub finalize_ms: f64,
    /// The plan's JSON representation (when asked for).
    pub plan_json: Option<String>,
}

impl CudnnEngineResult {
    /// True when the engine compiles its kernel at plan time.
    pub fn is_runtime_compiled(&self) -> bool {
        self.behavior_notes
            .iter()
            .any(|n| n == "runtime_compilation")
    }
}

// ---------------------------------------------------------------------------------------------
// The provider
// ---------------------------------------------------------------------------------------------

struct EngineCfg {
    cfg: Desc,
    engine_id: i64,
    knobs: Vec<(u32, i64)>,
    numerical: Vec<String>,
    behavior: Vec<String>,
    sources: Vec<HeurMode>,
    name: String,
}

struct CachedPlan {
    name: String,
    layout: CudnnLayout,
    plan: Desc,
    workspace: u64,
}

/// Plans of the last problem timed; fields drop in order (plans before the graph).
struct Cached {
    problem: Problem,
    plans: Vec<CachedPlan>,
    _graphs: Vec<ConvGraph>,
}

/// The cuDNN graph-API baseline: a cuDNN handle bound to a stream, a growable workspace,
/// and the finalized plans of the last problem timed.
///
/// Not `Send`: a cuDNN handle belongs to the thread that uses it.
pub struct CudnnBaseline {
    api: &'static Api,
    handle: Raw,
    stream: Arc<CudaStream>,
    workspace: Option<CudaSlice<u8>>,
    cached: Option<Cached>,
}

impl fmt::Debug for CudnnBaseline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CudnnBaseline")
            .field("handle", &self.handle)
            .field(
                "cached",
                &self.cached.as_ref().map(|c| c.problem.to_string()),
            )
            .finish()
    }
}

impl CudnnBaseline {
    /// The loaded cuDNN's version number (`cudnnGetVersion()`, e.g. 91400 for 9.14.0).
    pub fn version() -> Result<usize, CudnnError> {
        let api = api()?;
        // SAFETY: cudnnGetVersion takes no arguments and only returns a constant.
        Ok(unsafe { (api.get_version)() })
    }

    /// `major.minor.patch` of a version number from [`CudnnBaseline::version`].
    pub fn version_string(v: usize) -> String {
        format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
    }

    /// Opens cuDNN and creates a handle that runs on `stream`. Use a stream created with
    /// `CudaContext::new_stream` for graph timing (the legacy default stream cannot be
    /// captured; timing then falls back to plain launches).
    pub fn new(stream: Arc<CudaStream>) -> Result<Self, CudnnError> {
        let api = api()?;
        stream
            .context()
            .bind_to_thread()
            .map_err(driver_err("cuCtxSetCurrent"))?;
        let mut handle: Raw = std::ptr::null_mut();
        // SAFETY: `handle` is a valid out-pointer; the stream's context is current.
        let code = unsafe { (api.create)(&mut handle) };
        api.check(code, "cudnnCreate", || "a new handle".to_string())?;
        // SAFETY: `handle` was just created; the stream is a live CUstream (the runtime and
        // driver stream types are the same object) that outlives the handle, since `self`
        // keeps the Arc.
        let code = unsafe { (api.set_stream)(handle, stream.cu_stream() as Raw) };
        if let Err(e) = api.check(code, "cudnnSetStream", || "the handle".to_string()) {
            // SAFETY: `handle` is live and is not used again.
            unsafe { (api.destroy)(handle) };
            return Err(e);
        }
        Ok(CudnnBaseline {
            api,
            handle,
            stream,
            workspace: None,
            cached: None,
        })
    }

    /// The stream the handle runs on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    fn bind(&self) -> Result<(), CudnnError> {
        self.stream
            .context()
            .bind_to_thread()
            .map_err(driver_err("cuCtxSetCurrent"))
    }

    /// Heuristic engine configurations of `graph`, deduplicated across modes, with their
    /// engine id, knobs and notes. Returns them and one line per mode that failed.
    fn engine_configs(
        &self,
        graph: &ConvGraph,
        layout: CudnnLayout,
        opts: &CudnnTiming,
    ) -> Result<(Vec<EngineCfg>, Vec<String>), CudnnError> {
        let mut out: Vec<EngineCfg> = Vec::new();
        let mut problems = Vec::new();
        for &mode in &opts.heur_modes {
            match self.heuristics(graph, mode) {
                Ok(cfgs) => {
                    if cfgs.is_empty() {
                        problems.push(format!(
                            "{} mode {}: no configurations",
                            layout.token(),
                            mode.token()
                        ));
                    }
                    for cfg in cfgs {
                        let info = self.describe(cfg, mode, layout)?;
                        if let Some(prev) = out.iter_mut().find(|e| e.name == info.name) {
                            if !prev.sources.contains(&mode) {
                                prev.sources.push(mode);
                            }
                        } else {
                            out.push(info);
                        }
                    }
                }
                Err(e) => problems.push(format!("{} mode {}: {e}", layout.token(), mode.token())),
            }
        }
        Ok((out, problems))
    }

    fn heuristics(&self, graph: &ConvGraph, mode: HeurMode) -> Result<Vec<Desc>, CudnnError> {
        let heur = Desc::new(
            self.api,
            DescType::CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR,
            format!("engine heuristics mode {}", mode.token()),
        )?;
        heur.set_desc(Attr::CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, &graph.graph)?;
        heur.set_enum(
            Attr::CUDNN_ATTR_ENGINEHEUR_MODE,
            AttrType::CUDNN_TYPE_HEUR_MODE,
            mode.raw() as u32,
        )?;
        heur.finalize()?;
        let n = heur.count_descs(Attr::CUDNN_ATTR_ENGINEHEUR_RESULTS)?;
        let cfgs = (0..n)
            .map(|i| {
                Desc::new(
                    self.api,
                    DescType::CUDNN_BACKEND_ENGINECFG_DESCRIPTOR,
                    format!("engine config {i} of mode {}", mode.token()),
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let got = heur.get_descs(Attr::CUDNN_ATTR_ENGINEHEUR_RESULTS, &cfgs)?;
        let mut cfgs = cfgs;
        cfgs.truncate(got);
        Ok(cfgs)
    }

    fn describe(
        &self,
        cfg: Desc,
        mode: HeurMode,
        layout: CudnnLayout,
    ) -> Result<EngineCfg, CudnnError> {
        let engine = Desc::new(
            self.api,
            DescType::CUDNN_BACKEND_ENGINE_DESCRIPTOR,
            format!("engine of {}", cfg.what),
        )?;
        cfg.get_descs(
            Attr::CUDNN_ATTR_ENGINECFG_ENGINE,
            std::slice::from_ref(&engine),
        )?;
        let engine_id = engine.get_i64(Attr::CUDNN_ATTR_ENGINE_GLOBAL_INDEX)?;
        let numerical = engine
            .get_enums(
                Attr::CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                AttrType::CUDNN_TYPE_NUMERICAL_NOTE,
                32,
            )
            .unwrap_or_default()
            .into_iter()
            .map(|v| note_name(&NUMERICAL_NOTES, v))
            .collect();
        let behavior = engine
            .get_enums(
                Attr::CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
                AttrType::CUDNN_TYPE_BEHAVIOR_NOTE,
                32,
            )
            .unwrap_or_default()
            .into_iter()
            .map(|v| note_name(&BEHAVIOR_NOTES, v))
            .collect();
        const KNOB_CAP: usize = 64;
        let choices = (0..KNOB_CAP)
            .map(|i| {
                Desc::new(
                    self.api,
                    DescType::CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR,
                    format!("knob choice {i} of {}", cfg.what),
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let n = cfg.get_descs(Attr::CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, &choices)?;
        let mut knobs = Vec::with_capacity(n);
        for c in &choices[..n] {
            let t = c.get_enums(
                Attr::CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                AttrType::CUDNN_TYPE_KNOB_TYPE,
                1,
            )?;
            let v = c.get_i64(Attr::CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE)?;
            if let Some(&t) = t.first() {
                knobs.push((t, v));
            }
        }
        knobs.sort_unstable();
        let name = engine_name(layout, engine_id, &knobs);
        Ok(EngineCfg {
            cfg,
            engine_id,
            knobs,
            numerical,
            behavior,
            sources: vec![mode],
            name,
        })
    }

    fn make_plan(&self, cfg: &Desc, name: &str) -> Result<Desc, CudnnError> {
        let plan = Desc::new(
            self.api,
            DescType::CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR,
            format!("execution plan {name}"),
        )?;
        plan.set_handle(Attr::CUDNN_ATTR_EXECUTION_PLAN_HANDLE, self.handle)?;
        plan.set_desc(Attr::CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, cfg)?;
        plan.finalize()?;
        Ok(plan)
    }

    /// Makes sure the workspace holds `bytes`; returns its device pointer (0 for none).
    fn workspace_ptr(&mut self, bytes: u64) -> Result<u64, DriverError> {
        if bytes == 0 {
            return Ok(0);
        }
        if let Some(ws) = self.workspace.as_ref().filter(|w| w.len() as u64 >= bytes) {
            let (ptr, _sync) = ws.device_ptr(&self.stream);
            return Ok(ptr);
        }
        self.workspace = None;
        // Round up to 1 MiB so that small growth does not reallocate each time.
        let want = bytes.div_ceil(1 << 20) << 20;
        let ws = self.stream.alloc_zeros::<u8>(want as usize)?;
        let ptr = {
            let (ptr, _sync) = ws.device_ptr(&self.stream);
            ptr
        };
        self.workspace = Some(ws);
        Ok(ptr)
    }

    fn variant_pack(&self, p: &Problem, ptrs: [u64; 3], ws: u64) -> Result<Desc, CudnnError> {
        let ([r0, r1], ro) = p.direction.roles();
        let vp = Desc::new(
            self.api,
            DescType::CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR,
            "variant pack",
        )?;
        let data: Vec<Raw> = ptrs.iter().map(|&a| a as usize as Raw).collect();
        vp.set_ptrs(Attr::CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, &data)?;
        vp.set_i64s(
            Attr::CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
            &[uid(r0), uid(r1), uid(ro)],
        )?;
        vp.set_ptrs(
            Attr::CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
            &[ws as usize as Raw],
        )?;
        vp.finalize()?;
        Ok(vp)
    }

    /// Enqueues one execution; returns the raw status.
    fn execute(&self, plan: &Desc, vp: &Desc) -> c_int {
        // SAFETY: handle, plan and variant pack are live; the variant pack's pointers were
        // checked by the public entry points (device allocations of the problem's sizes, per
        // their contracts) and the workspace holds the plan's workspace size.
        unsafe { (self.api.execute)(self.handle, plan.raw, vp.raw) }
    }

    fn exec_status(&self, code: c_int) -> EngineStatus {
        EngineStatus::ExecuteFailed {
            status: status_name(code),
            detail: self.api.last_error(),
        }
    }

    /// Times one finalized plan with the shared timing module. `Err` is fatal (the context
    /// may be unusable); a plan that merely fails to run comes back as `Ok(Err(status))`.
    fn time_plan(
        &self,
        plan: &Desc,
        vp: &Desc,
        name: &str,
        opts: &CudnnTiming,
        best: Option<f64>,
    ) -> Result<Result<Timing, EngineStatus>, CudnnError> {
        let code = self.execute(plan, vp);
        if code != 0 {
            let st = self.exec_status(code);
            self.stream
                .synchronize()
                .map_err(driver_err("cuStreamSynchronize"))?;
            return Ok(Err(st));
        }
        self.stream
            .synchronize()
            .map_err(driver_err("cuStreamSynchronize after the first execution"))?;
        let t = crate::timing::measure(
            &self.stream,
            &opts.timing_options(),
            best,
            name,
            1,
            || {
                let code = self.execute(plan, vp);
                if code != 0 {
                    return Err(CudnnError::Status {
                        call: "cudnnBackendExecute",
                        context: "a plan that ran once already".into(),
                        status: status_name(code),
                        code,
                        detail: self.api.last_error(),
                    });
                }
                Ok(())
            },
            |_| Ok(()),
        )?;
        Ok(Ok(t))
    }

    fn check_ptrs(in0: u64, in1: u64, out: u64) -> Result<(), CudnnError> {
        for (which, ptr) in [("in0", in0), ("in1", in1), ("out", out)] {
            if ptr == 0 || ptr % 16 != 0 {
                return Err(CudnnError::BadPointer { which, ptr });
            }
        }
        Ok(())
    }

    /// Builds the graph for `problem` in each layout of `opts`, tries every engine
    /// configuration from the heuristic modes of `opts`, times each on the given buffers and
    /// returns one row per configuration: rows with status `Ok` first, fastest first, then the
    /// others in heuristics order. The finalized plans are kept for [`CudnnBaseline::execute_best`]
    /// and [`CudnnBaseline::execute_named`] until another problem is timed.
    ///
    /// Buffers are the runner's (ARCHITECTURE.md, problems): `in0`, `in1` are the direction's inputs
    /// (fwd X, W; dgrad dY, W; wgrad X, dY) and `out` its output, in the gconv layouts. `out`
    /// is overwritten (beta = 0).
    ///
    /// Errors: cuDNN missing pieces, a graph cuDNN cannot describe, no configuration at all
    /// ([`CudnnError::NoEngineConfigs`]), none that runs ([`CudnnError::NoWorkingEngine`]),
    /// or a driver failure while timing.
    ///
    /// # Safety
    /// `in0`, `in1` and `out` must be device allocations in the stream's context of at least
    /// the problem's tensor sizes (`problem.elements(role) * dtype size` bytes), not freed
    /// or written by other work until the stream has finished the enqueued executions.
    pub unsafe fn time_all(
        &mut self,
        problem: &Problem,
        in0: u64,
        in1: u64,
        out: u64,
        opts: &CudnnTiming,
    ) -> Result<Vec<CudnnEngineResult>, CudnnError> {
        Self::check_ptrs(in0, in1, out)?;
        self.bind()?;
        self.cached = None;
        let mut graphs = Vec::new();
        let mut rows = Vec::new();
        let mut plans = Vec::new();
        let mut reasons = Vec::new();
        let mut best: Option<f64> = opts.best_ms.filter(|b| *b > 0.0 && b.is_finite());
        for &layout in &opts.layouts {
            let graph = match build_graph(self.api, self.handle, problem, layout) {
                Ok(g) => g,
                Err(e) => {
                    reasons.push(format!("{} graph: {e}", layout.token()));
                    continue;
                }
            };
            let (cfgs, heur_problems) = self.engine_configs(&graph, layout, opts)?;
            reasons.extend(heur_problems);
            for (i, c) in cfgs.into_iter().enumerate() {
                let skip = if opts.max_configs.is_some_and(|m| i >= m) {
                    Some("max_configs")
                } else if opts.skip_down_convert
                    && c.numerical.iter().any(|n| n == "down_convert_inputs")
                {
                    Some("down_convert_inputs")
                } else if opts.skip_runtime_compiled
                    && c.behavior.iter().any(|n| n == "runtime_compilation")
                {
                    Some("runtime_compilation")
                } else {
                    None
                };
                let (row, plan) =
                    self.try_config(problem, layout, c, skip, [in0, in1, out], opts, &mut best)?;
                rows.push(row);
                plans.extend(plan);
            }
            graphs.push(graph);
        }
        if rows.is_empty() {
            return Err(CudnnError::NoEngineConfigs {
                problem: problem.to_string(),
                reasons: reasons.join("; "),
            });
        }
        let tried = rows.len();
        if plans.is_empty() {
            let summary = rows
                .iter()
                .map(|r| format!("{}: {}", r.name, r.status))
                .collect::<Vec<_>>()
                .join("; ");
            return Err(CudnnError::NoWorkingEngine {
                problem: problem.to_string(),
                tried,
                summary,
            });
        }
        // Ok rows fastest first, then the rest in heuristics order (stable sort).
        rows.sort_by(|a, b| match (a.median_ms, b.median_ms) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        let order: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        plans.sort_by_key(|p| order.iter().position(|n| *n == p.name));
        self.cached = Some(Cached {
            problem: *problem,
            plans,
            _graphs: graphs,
        });
        Ok(rows)
    }

    /// Finalizes, checks and times one engine configuration (unless `skip` says why not).
    #[allow(clippy::too_many_arguments)]
    fn try_config(
        &mut self,
        problem: &Problem,
        layout: CudnnLayout,
        c: EngineCfg,
        skip: Option<&str>,
        ptrs: [u64; 3],
        opts: &CudnnTiming,
        best: &mut Option<f64>,
    ) -> Result<(CudnnEngineResult, Option<CachedPlan>), CudnnError> {
        let mut row = CudnnEngineResult {
            name: c.name.clone(),
            layout,
            engine_id: c.engine_id,
            knobs: c.knobs.iter().map(|&(t, v)| (knob_name(t), v)).collect(),
            sources: c.sources.clone(),
            numerical_notes: c.numerical.clone(),
            behavior_notes: c.behavior.clone(),
            workspace_bytes: None,
            status: EngineStatus::Ok,
            median_ms: None,
            min_ms: None,
            method: None,
            timing: None,
            finalize_ms: 0.0,
            plan_json: None,
        };
        if let Some(reason) = skip {
            row.status = EngineStatus::Skipped {
                reason: reason.to_string(),
            };
            return Ok((row, None));
        }
        let t0 = Instant::now();
        let plan = self.make_plan(&c.cfg, &c.name);
        row.finalize_ms = t0.elapsed().as_secs_f64() * 1e3;
        let plan = match plan {
            Ok(p) => p,
            Err(CudnnError::Status { status, detail, .. }) => {
                row.status = EngineStatus::FinalizeFailed { status, detail };
                return Ok((row, None));
            }
            Err(e) => return Err(e),
        };
        let ws = plan.get_i64(Attr::CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE)?;
        let ws = ws.max(0) as u64;
        row.workspace_bytes = Some(ws);
        if opts.keep_plan_json {
            row.plan_json = plan
                .get_string(Attr::CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION)
                .ok();
        }
        if ws > opts.max_workspace_bytes {
            row.status = EngineStatus::Workspace {
                bytes: ws,
                reason: format!("over the limit of {} bytes", opts.max_workspace_bytes),
            };
            return Ok((row, None));
        }
        let ws_ptr = match self.workspace_ptr(ws) {
            Ok(p) => p,
            Err(e) => {
                row.status = EngineStatus::Workspace {
                    bytes: ws,
                    reason: format!("allocation failed: {:?}", e.0),
                };
                return Ok((row, None));
            }
        };
        let vp = self.variant_pack(problem, ptrs, ws_ptr)?;
        match self.time_plan(&plan, &vp, &c.name, opts, *best)? {
            Ok(t) => {
                let med = t.median_ms;
                row.median_ms = Some(med);
                row.min_ms = Some(t.min_ms);
                row.method = Some(if matches!(t.stopped, Some(Stop::Probe { .. })) {
                    TimingMethod::Single
                } else if t.graph {
                    TimingMethod::Graph
                } else {
                    TimingMethod::Stream
                });
                if t.stopped.is_none() {
                    *best = Some(best.map_or(med, |b| b.min(med)));
                }
                row.timing = Some(t);
                let cached = CachedPlan {
                    name: c.name,
                    layout,
                    plan,
                    workspace: ws,
                };
                Ok((row, Some(cached)))
            }
            Err(st) => {
                row.status = st;
                Ok((row, None))
            }
        }
    }

    /// Runs the fastest channels-last plan of `problem` once (timing all configurations first
    /// when the plans held are for another problem), waits for it, and returns the plan's
    /// name. Its output is in the gconv layout.
    ///
    /// # Safety
    /// As for [`CudnnBaseline::time_all`].
    pub unsafe fn execute_best(
        &mut self,
        problem: &Problem,
        in0: u64,
        in1: u64,
        out: u64,
        opts: &CudnnTiming,
    ) -> Result<String, CudnnError> {
        if self.cached.as_ref().map(|c| c.problem) != Some(*problem) {
            // SAFETY: the caller's guarantees are those of time_all.
            unsafe { self.time_all(problem, in0, in1, out, opts)? };
        }
        let name = self
            .cached
            .as_ref()
            .and_then(|c| {
                c.plans
                    .iter()
                    .find(|p| p.layout == CudnnLayout::ChannelsLast)
            })
            .map(|p| p.name.clone())
            .ok_or_else(|| CudnnError::PlanNotCached {
                problem: problem.to_string(),
                name: "(fastest channels-last)".into(),
            })?;
        // SAFETY: as above.
        unsafe { self.execute_named(problem, &name, in0, in1, out)? };
        Ok(name)
    }

    /// Names of the finalized plans held for `problem`, fastest first (empty when the plans
    /// held are for another problem).
    pub fn plan_names(&self, problem: &Problem) -> Vec<String> {
        match &self.cached {
            Some(c) if c.problem == *problem => c.plans.iter().map(|p| p.name.clone()).collect(),
            _ => Vec::new(),
        }
    }

    /// Runs the held plan `name` of `problem` once and waits for it.
    ///
    /// # Safety
    /// As for [`CudnnBaseline::time_all`].
    pub unsafe fn execute_named(
        &mut self,
        problem: &Problem,
        name: &str,
        in0: u64,
        in1: u64,
        out: u64,
    ) -> Result<(), CudnnError> {
        Self::check_ptrs(in0, in1, out)?;
        self.bind()?;
        let not_cached = || CudnnError::PlanNotCached {
            problem: problem.to_string(),
            name: name.to_string(),
        };
        let ws = match &self.cached {
            Some(c) if c.problem == *problem => c
                .plans
                .iter()
                .find(|p| p.name == name)
                .map(|p| p.workspace)
                .ok_or_else(not_cached)?,
            _ => return Err(not_cached()),
        };
        let ws_ptr = self
            .workspace_ptr(ws)
            .map_err(driver_err("workspace allocation"))?;
        let vp = self.variant_pack(problem, [in0, in1, out], ws_ptr)?;
        let plan = &self
            .cached
            .as_ref()
            .and_then(|c| c.plans.iter().find(|p| p.name == name))
            .ok_or_else(not_cached)?
            .plan;
        let code = self.execute(plan, &vp);
        self.api
            .check(code, "cudnnBackendExecute", || format!("plan {name}"))?;
        self.stream
            .synchronize()
            .map_err(driver_err("cuStreamSynchronize"))
    }

    /// [`CudnnBaseline::time_all`] on byte buffers, with their sizes checked.
    pub fn time_all_slices(
        &mut self,
        problem: &Problem,
        in0: &CudaSlice<u8>,
        in1: &CudaSlice<u8>,
        out: &mut CudaSlice<u8>,
        opts: &CudnnTiming,
    ) -> Result<Vec<CudnnEngineResult>, CudnnError> {
        check_sizes(problem, in0.len(), in1.len(), out.len())?;
        let stream = self.stream.clone();
        let (p0, _g0) = in0.device_ptr(&stream);
        let (p1, _g1) = in1.device_ptr(&stream);
        let (po, _go) = out.device_ptr_mut(&stream);
        // SAFETY: the three slices are live allocations of the checked sizes, borrowed (out
        // mutably) until the guards drop after every execution has been enqueued on `stream`;
        // the guards order later uses of the slices after that work.
        unsafe { self.time_all(problem, p0, p1, po, opts) }
    }

    /// [`CudnnBaseline::execute_named`] on byte buffers, with their sizes checked.
    pub fn execute_named_slices(
        &mut self,
        problem: &Problem,
        name: &str,
        in0: &CudaSlice<u8>,
        in1: &CudaSlice<u8>,
        out: &mut CudaSlice<u8>,
    ) -> Result<(), CudnnError> {
        check_sizes(problem, in0.len(), in1.len(), out.len())?;
        let stream = self.stream.clone();
        let (p0, _g0) = in0.device_ptr(&stream);
        let (p1, _g1) = in1.device_ptr(&stream);
        let (po, _go) = out.device_ptr_mut(&stream);
        // SAFETY: as in time_all_slices; execute_named also waits for the execution.
        unsafe { self.execute_named(problem, name, p0, p1, po) }
    }

    /// [`CudnnBaseline::execute_best`] on byte buffers, with their sizes checked.
    pub fn execute_best_slices(
        &mut self,
        problem: &Problem,
        in0: &CudaSlice<u8>,
        in1: &CudaSlice<u8>,
        out: &mut CudaSlice<u8>,
        opts: &CudnnTiming,
    ) -> Result<String, CudnnError> {
        check_sizes(problem, in0.len(), in1.len(), out.len())?;
        let stream = self.stream.clone();
        let (p0, _g0) = in0.device_ptr(&stream);
        let (p1, _g1) = in1.device_ptr(&stream);
        let (po, _go) = out.device_ptr_mut(&stream);
        // SAFETY: as in time_all_slices.
        unsafe { self.execute_best(problem, p0, p1, po, opts) }
    }
}

fn check_sizes(p: &Problem, in0: usize, in1: usize, out: usize) -> Result<(), CudnnError> {
    let ([r0, r1], ro) = p.direction.roles();
    for (which, role, got) in [("in0", r0, in0), ("in1", r1, in1), ("out", ro, out)] {
        let expected = p.elements(role) * p.dtype.size_bytes();
        if (got as u64) < expected {
            return Err(CudnnError::BufferTooSmall {
                which,
                problem: p.to_string(),
                expected,
                got: got as u64,
            });
        }
    }
    Ok(())
}

impl Drop for CudnnBaseline {
    fn drop(&mut self) {
        // Plans and graphs reference the handle: destroy them first.
        self.cached = None;
        let _ = self.stream.synchronize();
        // SAFETY: the handle was created in `new`, is destroyed exactly once, here, and
        // nothing that references it is left.
        unsafe { (self.api.destroy)(self.handle) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> Problem {
        s.parse().unwrap()
    }

    #[test]
    fn layouts_are_channels_last() {
        let p = key("fwd_bf16_n2_g4_c16_k32_i9x11_f3x5_s2x1_p1x2_d1x1");
        let (d, s) = tensor_layout(&p, TensorRole::X, CudnnLayout::ChannelsLast);
        assert_eq!(d, vec![2, 16, 9, 11]);
        assert_eq!(s, vec![9 * 11 * 16, 1, 11 * 16, 16]);
        let (d, s) = tensor_layout(&p, TensorRole::W, CudnnLayout::ChannelsLast);
        assert_eq!(d, vec![32, 4, 3, 5]);
        assert_eq!(s, vec![3 * 5 * 4, 1, 5 * 4, 4]);
        let [_, oh, ow] = p.output();
        let (d, s) = tensor_layout(&p, TensorRole::Y, CudnnLayout::ChannelsLast);
        assert_eq!(d, vec![2, 32, oh as i64, ow as i64]);
        assert_eq!(s, vec![(oh * ow * 32) as i64, 1, (ow * 32) as i64, 32]);
    }

    #[test]
    fn layouts_3d_and_1d() {
        let p = key("wgrad_f16_n1_g8_c8_k8_i4x5x6_f3x3x3_s1x1x1_p1x1x1_d1x1x1");
        let (d, s) = tensor_layout(&p, TensorRole::X, CudnnLayout::ChannelsLast);
        assert_eq!(d, vec![1, 8, 4, 5, 6]);
        assert_eq!(s, vec![4 * 5 * 6 * 8, 1, 5 * 6 * 8, 6 * 8, 8]);
        let (d, s) = tensor_layout(&p, TensorRole::W, CudnnLayout::ChannelsLast);
        assert_eq!(d, vec![8, 1, 3, 3, 3]);
        assert_eq!(s, vec![27, 1, 9, 3, 1]);
        // 1D runs as 2D with H = 1.
        let p = key("dgrad_f32_n3_g2_c4_k6_i10_f3_s1_p1_d2");
        let (d, s) = tensor_layout(&p, TensorRole::X, CudnnLayout::ChannelsLast);
        assert_eq!(d, vec![3, 4, 1, 10]);
        assert_eq!(s, vec![40, 1, 40, 4]);
        assert_eq!(spatial_slots(&p), 1..3);
    }

    #[test]
    fn channels_first_layouts_are_packed() {
        let p = key("fwd_bf16_n2_g4_c16_k32_i9x11_f3x5_s2x1_p1x2_d1x1");
        let cf = CudnnLayout::ChannelsFirst;
        let (d, s) = tensor_layout(&p, TensorRole::X, cf);
        assert_eq!(d, vec![2, 16, 9, 11]);
        assert_eq!(s, vec![16 * 99, 99, 11, 1]);
        let (d, s) = tensor_layout(&p, TensorRole::W, cf);
        assert_eq!(d, vec![32, 4, 3, 5]);
        assert_eq!(s, vec![60, 15, 5, 1]);
        let p = key("dgrad_f16_n1_g8_c8_k8_i4x5x6_f3x3x3_s1x1x1_p1x1x1_d1x1x1");
        let (_, s) = tensor_layout(&p, TensorRole::Y, cf);
        assert_eq!(s, vec![8 * 120, 120, 30, 6, 1]);
    }

    #[test]
    fn engine_names_are_canonical_and_shell_safe() {
        let a = engine_name(CudnnLayout::ChannelsLast, 62, &[(14, 4), (2, 3)]);
        assert_eq!(a, "cudnn:eng62_tilesize3_stages4");
        assert_eq!(
            a,
            engine_name(CudnnLayout::ChannelsLast, 62, &[(2, 3), (14, 4)])
        );
        assert_eq!(engine_name(CudnnLayout::ChannelsLast, 7, &[]), "cudnn:eng7");
        let b = engine_name(CudnnLayout::ChannelsFirst, 1, &[(99, -1), (27, 2)]);
        assert_eq!(b, "cudnn:nchw:eng1_tilecgam2_k99-1");
        assert!(b
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-')));
    }

    #[test]
    fn status_names() {
        assert_eq!(status_name(3000), "CUDNN_STATUS_NOT_SUPPORTED");
        assert_eq!(
            status_name(2003),
            "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER"
        );
        assert_eq!(status_name(7777), "CUDNN_STATUS_7777");
    }

    #[test]
    fn missing_library_is_an_error_not_a_panic() {
        // Either cuDNN is installed (a version >= 9) or the call says it is not found.
        match CudnnBaseline::version() {
            Ok(v) => assert!(v >= 90000),
            Err(e) => assert!(matches!(
                e,
                CudnnError::LibraryNotFound { .. }
                    | CudnnError::MissingSymbol { .. }
                    | CudnnError::VersionTooOld { .. }
            )),
        }
    }

    #[test]
    fn size_check_names_the_buffer() {
        let p = key("dgrad_bf16_n2_g4_c16_k32_i8x8_f3x3_s1x1_p1x1_d1x1");
        let e = check_sizes(&p, 2 * 8 * 8 * 32 * 2, 32 * 4 * 9 * 2, 10).unwrap_err();
        assert!(
            matches!(e, CudnnError::BufferTooSmall { which: "out", .. }),
            "{e}"
        );
        assert!(check_sizes(&p, 2 * 8 * 8 * 32 * 2, 32 * 4 * 9 * 2, 2 * 8 * 8 * 16 * 2).is_ok());
        assert!(matches!(
            CudnnBaseline::check_ptrs(256, 8, 512),
            Err(CudnnError::BadPointer { which: "in1", .. })
        ));
    }
}
