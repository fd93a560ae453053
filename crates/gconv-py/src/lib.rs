//! The `gconv._gconv` extension module: `Problem` and `Runner` over `gconv_runner`, taking and
//! returning raw bytes (the pure-Python `gconv` package on top checks and converts NumPy
//! arrays). Every refusal is a Python exception carrying the Rust message: `ValueError` for
//! bad input (problem keys and fields, kernel and backend names, dtypes, shapes, byte counts),
//! `RuntimeError` for a run that fails.

use gconv_problem::problem::ProblemSpec;
use gconv_problem::{DType, Direction, Problem, TensorRole};
use gconv_runner::{BackendChoice, Runner, RunnerError};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Mutex;

/// The threads gconv's CPU work runs on in this process. rayon's global pool does not survive
/// `fork()`: its workers are not in the child, so a child's first parallel job would wait
/// forever (a `multiprocessing` pool or a data-loader worker forked after gconv ran). Each
/// process id gets its own pool; a forked child builds one and leaves the parent's (whose
/// threads it does not have) untouched.
fn threads() -> PyResult<&'static rayon::ThreadPool> {
    static POOL: Mutex<Option<(u32, &'static rayon::ThreadPool)>> = Mutex::new(None);
    let pid = std::process::id();
    let mut held = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((owner, pool)) = *held {
        if owner == pid {
            return Ok(pool);
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start gconv's CPU threads: {e}")))?;
    let pool: &'static rayon::ThreadPool = Box::leak(Box::new(pool));
    *held = Some((pid, pool));
    Ok(pool)
}

fn py_err(e: RunnerError) -> PyErr {
    match e {
        RunnerError::Run(m) => PyRuntimeError::new_err(m),
        other => PyValueError::new_err(other.to_string()),
    }
}

fn role(name: &str) -> PyResult<TensorRole> {
    match name {
        "x" | "X" => Ok(TensorRole::X),
        "w" | "W" => Ok(TensorRole::W),
        "y" | "Y" => Ok(TensorRole::Y),
        _ => Err(PyValueError::new_err(format!(
            "tensor {name:?}: expected \"x\", \"w\" or \"y\""
        ))),
    }
}

fn role_token(r: TensorRole) -> &'static str {
    match r {
        TensorRole::X => "x",
        TensorRole::W => "w",
        TensorRole::Y => "y",
    }
}

/// One grouped convolution (see gconv's README for keys and layouts).
#[pyclass(name = "Problem", module = "gconv._gconv", frozen, eq)]
#[derive(Clone, PartialEq)]
struct PyProblem {
    inner: Problem,
}

#[pymethods]
impl PyProblem {
    /// A problem from its key, e.g. `fwd_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1`.
    #[new]
    fn new(key: &str) -> PyResult<Self> {
        key.parse::<Problem>()
            .map(|inner| PyProblem { inner })
            .map_err(|e| PyValueError::new_err(format!("invalid problem key {key:?}: {e}")))
    }

    /// A problem from fields; spatial lists have the rank's length (D, H, W order).
    #[staticmethod]
    #[pyo3(signature = (direction, dtype, n, groups, in_channels, out_channels, input, filter, stride, padding, dilation))]
    #[allow(clippy::too_many_arguments)]
    fn from_fields(
        direction: &str,
        dtype: &str,
        n: i64,
        groups: i64,
        in_channels: i64,
        out_channels: i64,
        input: Vec<i64>,
        filter: Vec<i64>,
        stride: Vec<i64>,
        padding: Vec<i64>,
        dilation: Vec<i64>,
    ) -> PyResult<Self> {
        let direction =
            Direction::parse_any(direction).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let dtype = DType::from_token(dtype).ok_or_else(|| {
            PyValueError::new_err(format!("dtype {dtype:?}: expected f32, f16 or bf16"))
        })?;
        ProblemSpec {
            direction,
            dtype,
            n,
            g: groups,
            c: in_channels,
            k: out_channels,
            input,
            filter,
            stride,
            pad: padding,
            dilation,
        }
        .build()
        .map(|inner| PyProblem { inner })
        .map_err(|e| PyValueError::new_err(format!("invalid problem: {e}")))
    }

    /// The canonical key.
    #[getter]
    fn key(&self) -> String {
        self.inner.to_string()
    }

    /// `fwd`, `dgrad` or `wgrad`.
    #[getter]
    fn direction(&self) -> &'static str {
        self.inner.direction.token()
    }

    /// `f32`, `f16` or `bf16`.
    #[getter]
    fn dtype(&self) -> &'static str {
        self.inner.dtype.token()
    }

    /// Spatial rank (1, 2 or 3).
    #[getter]
    fn rank(&self) -> usize {
        self.inner.rank
    }

    /// Groups.
    #[getter]
    fn groups(&self) -> u64 {
        self.inner.g
    }

    /// Floating-point operations of the convolution (2 per multiply-add).
    #[getter]
    fn flops(&self) -> f64 {
        self.inner.flops()
    }

    /// The bytes every implementation must move at least (inputs read once, output written
    /// once).
    #[getter]
    fn min_bytes(&self) -> f64 {
        self.inner.min_bytes()
    }

    /// Seconds at the H200's roofline (the larger of compute and memory time).
    fn roofline_seconds(&self) -> f64 {
        self.inner
            .roofline_seconds(&gconv_problem::DeviceSpec::H200)
    }

    /// The shape of tensor `"x"`, `"w"` or `"y"` in gconv's (channels-last) layouts.
    fn shape(&self, tensor: &str) -> PyResult<Vec<u64>> {
        Ok(gconv_runner::shape(&self.inner, role(tensor)?))
    }

    /// The direction's input tensors in the runner contract's order: forward `("x", "w")`,
    /// backward-data `("y", "w")`, backward-weight `("x", "y")`.
    #[getter]
    fn inputs(&self) -> (&'static str, &'static str) {
        let ([a, b], _) = self.inner.roles();
        (role_token(a), role_token(b))
    }

    /// The direction's output tensor (`"y"`, `"x"` or `"w"`).
    #[getter]
    fn output(&self) -> &'static str {
        role_token(self.inner.roles().1)
    }

    /// The same problem in another direction.
    fn with_direction(&self, direction: &str) -> PyResult<Self> {
        let d =
            Direction::parse_any(direction).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyProblem {
            inner: self.inner.with_direction(d),
        })
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("gconv.Problem({:?})", self.inner.to_string())
    }

    /// Pickles as its key (`pickle`, `copy`, `multiprocessing`).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, pyo3::types::PyType>, (String,)) {
        (slf.get_type(), (slf.get().inner.to_string(),))
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.to_string().hash(&mut h);
        h.finish()
    }
}

/// A problem, a kernel and a backend, resolved once.
#[pyclass(name = "Runner", module = "gconv._gconv", frozen)]
struct PyRunner {
    inner: Runner,
}

#[pymethods]
impl PyRunner {
    /// Resolves `kernel` (`auto`, `ref`, a CPU variant) on `backend` (`auto`, `cpu`, `cuda`).
    #[new]
    #[pyo3(signature = (problem, kernel = "auto", backend = "auto"))]
    fn new(problem: &PyProblem, kernel: &str, backend: &str) -> PyResult<Self> {
        let backend: BackendChoice = backend.parse().map_err(py_err)?;
        Runner::new(problem.inner, kernel, backend)
            .map(|inner| PyRunner { inner })
            .map_err(py_err)
    }

    /// The problem.
    #[getter]
    fn problem(&self) -> PyProblem {
        PyProblem {
            inner: *self.inner.problem(),
        }
    }

    /// The kernel that runs (what `auto` resolved to).
    #[getter]
    fn kernel(&self) -> &'static str {
        self.inner.kernel()
    }

    /// The backend that runs it.
    #[getter]
    fn backend(&self) -> &'static str {
        self.inner.backend()
    }

    /// Checks input `index` (0 or 1): its dtype token and its shape.
    fn check_input(&self, index: usize, dtype: &str, shape: Vec<u64>) -> PyResult<()> {
        if index > 1 {
            return Err(PyValueError::new_err(format!(
                "input {index}: a runner takes two inputs (0 and 1)"
            )));
        }
        let dt = DType::from_token(dtype).ok_or_else(|| {
            PyValueError::new_err(format!("dtype {dtype:?}: expected f32, f16 or bf16"))
        })?;
        self.inner.check_input(index, dt, &shape).map_err(py_err)
    }

    /// Runs on the raw bytes of the two inputs; returns the output's bytes. The GIL is released
    /// while it runs.
    fn run_bytes<'py>(&self, py: Python<'py>, a: &[u8], b: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let pool = threads()?;
        let out = py
            .detach(|| pool.install(|| self.inner.run_bytes(a, b)))
            .map_err(py_err)?;
        // `new_with` answers an allocation that fails with MemoryError (`new` aborts).
        PyBytes::new_with(py, out.len(), |bytes| {
            bytes.copy_from_slice(&out);
            Ok(())
        })
    }

    /// Times `runs` whole runs (1 to 100,000) after one warm-up: `(median_ms, min_ms, runs,
    /// method)`. Python's signals are checked before every run, so Ctrl-C stops it with
    /// `KeyboardInterrupt`.
    #[pyo3(signature = (a, b, runs = 10))]
    fn benchmark_bytes(
        &self,
        py: Python<'_>,
        a: &[u8],
        b: &[u8],
        runs: i64,
    ) -> PyResult<(f64, f64, u32, String)> {
        let pool = threads()?;
        let mut signal: Option<PyErr> = None;
        let r = py.detach(|| {
            pool.install(|| {
                self.inner.benchmark_bytes(a, b, runs, &mut || {
                    signal = Python::attach(|py| py.check_signals().err());
                    signal.is_some()
                })
            })
        });
        if let Some(e) = signal {
            return Err(e);
        }
        let r = r.map_err(py_err)?;
        Ok((r.median_ms, r.min_ms, r.runs, r.method))
    }

    fn __repr__(&self) -> String {
        format!(
            "gconv.Runner({:?}, kernel={:?}, backend={:?})",
            self.inner.problem().to_string(),
            self.inner.kernel(),
            self.inner.backend()
        )
    }
}

/// A problem's GPU kernel, compiled and loaded on one device; launches on caller-owned device
/// memory on the caller's stream (what `gconv.torch` uses).
#[pyclass(name = "DeviceRunner", module = "gconv._gconv", frozen)]
struct PyDeviceRunner {
    inner: gconv_runner::device::DeviceRunner,
}

#[pymethods]
impl PyDeviceRunner {
    /// Resolves `kernel` (`auto`, `ref`, a kernel name) for `problem` on CUDA `device`,
    /// compiles it (through the compile cache) and loads it. The GIL is released meanwhile.
    #[new]
    #[pyo3(signature = (problem, kernel = "auto", device = 0))]
    fn new(py: Python<'_>, problem: &PyProblem, kernel: &str, device: usize) -> PyResult<Self> {
        let p = problem.inner;
        let kernel = kernel.to_string();
        let pool = threads()?;
        py.detach(move || {
            pool.install(|| gconv_runner::device::DeviceRunner::new(p, &kernel, device))
        })
        .map(|inner| PyDeviceRunner { inner })
        .map_err(py_err)
    }

    /// The kernel that runs.
    #[getter]
    fn kernel(&self) -> String {
        self.inner.kernel().to_string()
    }

    /// Who chose it (the decision cache, the model, the rule, or the caller).
    #[getter]
    fn chosen_by(&self) -> String {
        self.inner.chosen_by().to_string()
    }

    /// Workspace bytes a launch needs.
    #[getter]
    fn workspace_bytes(&self) -> u64 {
        self.inner.workspace_bytes()
    }

    /// Enqueues the kernel on `stream` (a `cudaStream_t` as an int) with device addresses of
    /// the two inputs, the output and the workspace (0 when none is needed); returns at once.
    ///
    /// The addresses must be of live device allocations on this runner's device, sized for the
    /// problem in gconv's layouts (what `gconv.torch` checks before it calls this).
    fn launch(&self, in0: u64, in1: u64, out: u64, workspace: u64, stream: u64) -> PyResult<()> {
        // SAFETY: the Python caller (gconv.torch) passes data pointers of CUDA tensors on this
        // device whose shapes, dtypes and layouts it checked against the problem, kept alive
        // by the caller until the stream's work completes (PyTorch's caching allocator and
        // stream semantics), and the current stream of that device.
        unsafe { self.inner.launch(in0, in1, out, workspace, stream) }.map_err(py_err)
    }

    fn __repr__(&self) -> String {
        format!(
            "gconv.DeviceRunner({:?}, kernel={:?})",
            self.inner.problem().to_string(),
            self.inner.kernel()
        )
    }
}

/// Adds folders to look in for the CUDA libraries (NVRTC, cuDNN, the driver) before
/// `CUDA_HOME` and `/usr/local/cuda`; the package adds its `sys.path`'s `nvidia/*/lib` folders.
#[pyfunction]
fn add_library_dirs(dirs: Vec<std::path::PathBuf>) {
    gconv_runner::device::add_library_dirs(dirs);
}

/// Resolves, compiles and loads the kernels of `problems` on CUDA `device` in parallel (the
/// GIL released); returns one `(DeviceRunner, None)` or `(None, why)` per problem, in order.
#[pyfunction]
#[pyo3(signature = (problems, kernel = "auto", device = 0))]
#[allow(clippy::type_complexity)]
fn precompile(
    py: Python<'_>,
    problems: Vec<PyProblem>,
    kernel: &str,
    device: usize,
) -> PyResult<Vec<(Option<PyDeviceRunner>, Option<String>)>> {
    let ps: Vec<_> = problems.iter().map(|p| p.inner).collect();
    let kernel = kernel.to_string();
    let pool = threads()?;
    Ok(py
        .detach(move || pool.install(|| gconv_runner::device::precompile(&ps, &kernel, device)))
        .into_iter()
        .map(|r| match r {
            Ok(inner) => (Some(PyDeviceRunner { inner }), None),
            Err(e) => (None, Some(e.to_string())),
        })
        .collect())
}

/// The extension module.
#[pymodule]
fn _gconv(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(add_library_dirs, m)?)?;
    m.add_function(wrap_pyfunction!(precompile, m)?)?;
    m.add_class::<PyProblem>()?;
    m.add_class::<PyRunner>()?;
    m.add_class::<PyDeviceRunner>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
