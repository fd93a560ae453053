//! The typed error of the CUDA backend: missing libraries, NVRTC failures, driver failures,
//! launch errors and kernel faults, cache I/O, and mismatched buffers.

use thiserror::Error;

/// Every way the CUDA backend can fail. Messages quote the offending input (kernel name, entry,
/// library, value) so that a failure in a sweep can be traced to its cause.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CudaError {
    /// A shared library could not be loaded (`libcuda.so.1`, `libnvrtc.so.13`, ...).
    #[error("{what} not found: could not load {library} ({hint}); looked in {searched}")]
    LibraryNotFound {
        /// Human name, e.g. "CUDA driver library".
        what: &'static str,
        /// The library looked for.
        library: &'static str,
        /// What to do about it.
        hint: &'static str,
        /// Where it was looked for ([`crate::libs::describe_search`]).
        searched: String,
    },
    /// The NVRTC that loaded is older than 13 (its PTX/CUBIN would not match the contract).
    #[error("NVRTC {major}.{minor} loaded but NVRTC >= 13.0 is required (put the CUDA 13 lib directory, which holds libnvrtc.so.13, first in LD_LIBRARY_PATH)")]
    NvrtcTooOld {
        /// Major version found.
        major: i32,
        /// Minor version found.
        minor: i32,
    },
    /// An NVRTC API call failed outside compilation proper.
    #[error("NVRTC call {call} failed: {code}")]
    Nvrtc {
        /// The API function.
        call: &'static str,
        /// The NVRTC result code.
        code: String,
    },
    /// The source did not compile; `log` is NVRTC's program log.
    #[error("NVRTC could not compile kernel {kernel:?} for {arch}: {code}\n{log}")]
    CompileFailed {
        /// Kernel name.
        kernel: String,
        /// Target architecture.
        arch: String,
        /// The NVRTC result code.
        code: String,
        /// NVRTC's log.
        log: String,
    },
    /// The source cannot be handed to NVRTC at all (e.g. it contains a NUL byte).
    #[error("kernel {kernel:?} has invalid source: {reason}")]
    InvalidSource {
        /// Kernel name.
        kernel: String,
        /// Why.
        reason: String,
    },
    /// A CUDA driver call failed.
    #[error("CUDA driver call {call} failed: {message}")]
    Driver {
        /// The operation.
        call: String,
        /// Driver error name and description.
        message: String,
    },
    /// No CUDA device with the requested ordinal.
    #[error("no CUDA device with ordinal {ordinal} ({count} device(s) visible)")]
    NoDevice {
        /// Requested ordinal.
        ordinal: usize,
        /// Devices visible.
        count: i32,
    },
    /// The device cannot run code for the kernel's architecture.
    #[error("kernel {kernel:?} targets {arch} but device {device:?} has compute capability {major}.{minor}")]
    ArchMismatch {
        /// Kernel name.
        kernel: String,
        /// Kernel arch.
        arch: String,
        /// Device name.
        device: String,
        /// Device major.
        major: i32,
        /// Device minor.
        minor: i32,
    },
    /// Loading the CUBIN or looking up an entry point failed.
    #[error("could not load kernel {kernel:?} (entry {entry:?}): {message}")]
    LoadFailed {
        /// Kernel name.
        kernel: String,
        /// Entry point (empty when the module itself failed).
        entry: String,
        /// Driver message.
        message: String,
    },
    /// A kernel launch was rejected by the driver (bad configuration, too much shared memory...).
    #[error("launch of kernel {kernel:?} entry {entry:?} (grid {grid:?}, block {block:?}, {smem} B dynamic smem) failed: {message}")]
    LaunchFailed {
        /// Kernel name.
        kernel: String,
        /// Entry point.
        entry: String,
        /// Grid.
        grid: [u32; 3],
        /// Block.
        block: [u32; 3],
        /// Dynamic shared memory.
        smem: u32,
        /// Driver message.
        message: String,
    },
    /// A kernel faulted while running (illegal address, trap, ...). The context is unusable
    /// afterwards: start a fresh process.
    #[error(
        "kernel {kernel:?} faulted while running: {message} (the CUDA context is now unusable)"
    )]
    KernelFault {
        /// Kernel name.
        kernel: String,
        /// Driver message.
        message: String,
    },
    /// A buffer does not have the dtype or length the operation needs.
    #[error("{what}: expected {expected}, got {got}")]
    BufferMismatch {
        /// Which buffer.
        what: String,
        /// Expected dtype/length.
        expected: String,
        /// Actual dtype/length.
        got: String,
    },
    /// A compile-cache file or directory could not be used.
    #[error("compile cache: {op} {path:?}: {message}")]
    CacheIo {
        /// The operation (read, write, create, remove, ...).
        op: &'static str,
        /// The path.
        path: String,
        /// The OS message.
        message: String,
    },
    /// No cache directory can be determined (no `GCONV_CACHE_DIR`, `XDG_CACHE_HOME` or `HOME`).
    #[error("no compile-cache directory: set GCONV_CACHE_DIR (or XDG_CACHE_HOME or HOME)")]
    NoCacheDir,
    /// Invalid option values.
    #[error("invalid option {option}: {reason}")]
    InvalidOption {
        /// The option.
        option: &'static str,
        /// Why.
        reason: String,
    },
    /// The CUDA backend was switched off with the environment variable `GCONV_DISABLE_CUDA`.
    #[error("the CUDA backend is disabled by GCONV_DISABLE_CUDA={value:?}")]
    Disabled {
        /// The variable's value.
        value: String,
    },
    /// A library call panicked inside cudarc (e.g. a missing symbol); converted to an error.
    #[error("cudarc panicked during {during}: {message}")]
    Panicked {
        /// What was being done.
        during: &'static str,
        /// The panic payload.
        message: String,
    },
    /// A library of the right name loaded but is not the library gconv needs (e.g. it lacks
    /// one of the API's symbols: another library under that name, or a stub).
    #[error("{library} at {location} is not a usable {what}: {reason}")]
    UnusableLibrary {
        /// Human name, e.g. "CUDA driver library".
        what: &'static str,
        /// The soname.
        library: &'static str,
        /// The file that loaded ([`crate::libs::location`]).
        location: String,
        /// What is wrong with it, e.g. "missing symbol cuInit".
        reason: String,
    },
}

impl CudaError {
    /// A driver error from cudarc, with the call named.
    pub fn driver(call: impl Into<String>, e: cudarc::driver::DriverError) -> CudaError {
        CudaError::Driver {
            call: call.into(),
            message: driver_message(&e),
        }
    }
}

/// "CUDA_ERROR_X: description" for a cudarc driver error.
pub fn driver_message(e: &cudarc::driver::DriverError) -> String {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    match e.error_string() {
        Ok(s) => format!("{name}: {}", s.to_string_lossy()),
        Err(_) => name,
    }
}

/// Runs `f`, turning a panic inside cudarc (missing library symbol, ...) into an error. The
/// panic is expected and becomes the error's message, so the panic hook prints nothing for it
/// (no "thread 'main' panicked at ..." nor a backtrace on standard error); panics of other
/// threads, and of this thread outside `f`, print as before.
pub fn guard<T>(
    during: &'static str,
    f: impl FnOnce() -> Result<T, CudaError>,
) -> Result<T, CudaError> {
    let caught = quiet_panics(f);
    match caught {
        Ok(r) => r,
        Err(payload) => {
            let message = if let Some(s) = payload.downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "non-string panic payload".to_string()
            };
            Err(CudaError::Panicked { during, message })
        }
    }
}

std::thread_local! {
    /// How many [`quiet_panics`] calls this thread is inside.
    static QUIET: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// `catch_unwind(f)` without the panic hook's output for a panic of `f`. The hook is replaced
/// once per process by one that stays silent while the panicking thread is inside this
/// function and otherwise calls the hook it replaced, so that concurrent callers (compile
/// threads) and other threads never swap hooks under each other.
fn quiet_panics<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(|q| q.get()) == 0 {
                previous(info);
            }
        }));
    });
    struct Depth;
    impl Drop for Depth {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(q.get().saturating_sub(1)));
        }
    }
    QUIET.with(|q| q.set(q.get() + 1));
    let _depth = Depth;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
}

/// The missing symbol of a cudarc panic message ("Missing symbol cuInit: dlsym failed").
pub(crate) fn missing_symbol(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("Missing symbol ")?;
    Some(rest.split(':').next().unwrap_or(rest).trim())
}

/// Turns a cudarc panic about a missing symbol of `lib` into [`CudaError::UnusableLibrary`]
/// naming the library and the file that loaded; other errors pass through.
pub(crate) fn unusable_library(
    e: CudaError,
    lib: crate::libs::CudaLib,
    what: &'static str,
) -> CudaError {
    match &e {
        CudaError::Panicked { message, .. } => {
            let reason = match missing_symbol(message) {
                Some(sym) => format!("missing symbol {sym}"),
                None => format!("loading it failed ({message})"),
            };
            CudaError::UnusableLibrary {
                what,
                library: lib.soname(),
                location: crate::libs::location(lib),
                reason,
            }
        }
        _ => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guarded_panic_is_an_error_and_the_symbol_is_named() {
        let r: Result<(), CudaError> =
            guard("test", || panic!("Missing symbol cuInit: dlsym failed"));
        let e = r.unwrap_err();
        assert_eq!(
            e,
            CudaError::Panicked {
                during: "test",
                message: "Missing symbol cuInit: dlsym failed".to_string()
            }
        );
        assert_eq!(
            missing_symbol("Missing symbol cuInit: dlsym failed"),
            Some("cuInit")
        );
        assert_eq!(missing_symbol("something else"), None);
        let u = unusable_library(e, crate::libs::CudaLib::Driver, "CUDA driver library");
        let m = u.to_string();
        assert!(m.starts_with("libcuda.so.1 at "), "{m}");
        assert!(
            m.ends_with("is not a usable CUDA driver library: missing symbol cuInit"),
            "{m}"
        );
        // The depth counter is back at zero: a later panic on this thread is not silenced.
        assert_eq!(QUIET.with(|q| q.get()), 0);
    }
}
