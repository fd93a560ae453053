//! The library facade of gconv: a [`Problem`], a kernel choice (`auto`, a name, `ref`) and a
//! backend, resolved once into a [`Runner`] that runs the problem on caller-owned memory. The
//! Python package (`crates/gconv-py`) is built on it.
//!
//! GPU kernel resolution lives in [`gpu`] (what `gconv run`, `sweep` and `bench` resolve
//! kernels with). What [`Runner`] runs today is the host-memory side: the CPU backend, on
//! which NumPy arrays run.
//! `auto` is the CPU backend's documented choice (`gconv_reference::cpu::choose`), `ref` the
//! f64 reference, and a CPU variant name (`cpu_direct`, `cpu_im2col_gemm`) runs that variant
//! (`cpu_planted_wrong`, wrong on purpose, runs too, so that a user's verification can be shown
//! to catch it; `cpu_planted_crash` is refused);
//! a GPU kernel name or the CUDA backend on host memory is refused with a message saying
//! where it runs (`gconv run --backend cuda`). Inputs follow the runner contract of the CLI
//! (forward `(X, W)`, backward-data `(dY, W)`, backward-weight `(X, dY)`), in the gconv layouts
//! ([`shape`]), and are checked before anything runs.

pub mod device;
pub mod gpu;

use gconv_problem::{DType, HostTensor, Problem, TensorRole};
use gconv_reference::cpu::{self, CpuVariant};
use gconv_tune::KernelRef;
use std::time::Instant;

/// Everything a runner can refuse or fail with; each message names what was wrong.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// The problem key or fields are not a valid problem.
    #[error("invalid problem: {0}")]
    Problem(String),
    /// The kernel name is not a kernel, or not one this backend runs.
    #[error("kernel {name:?}: {why}")]
    Kernel {
        /// The name given.
        name: String,
        /// Why it cannot run here.
        why: String,
    },
    /// The backend name is unknown, or the backend cannot run host memory.
    #[error("backend {name:?}: {why}")]
    Backend {
        /// The name given.
        name: String,
        /// Why.
        why: String,
    },
    /// An input has the wrong dtype.
    #[error("{tensor} of {problem}: dtype {got}, expected {expected}")]
    Dtype {
        /// The input (`X`, `W`, `dY`).
        tensor: &'static str,
        /// The problem key.
        problem: String,
        /// The problem's dtype.
        expected: DType,
        /// The input's.
        got: DType,
    },
    /// An input has the wrong shape.
    #[error("{tensor} of {problem}: shape {got:?}, expected {expected:?} ({layout})")]
    Shape {
        /// The input (`X`, `W`, `dY`).
        tensor: &'static str,
        /// The problem key.
        problem: String,
        /// The problem's shape for it.
        expected: Vec<u64>,
        /// The input's.
        got: Vec<u64>,
        /// The layout the shape is in.
        layout: &'static str,
    },
    /// An input's bytes are not a whole number of elements of its dtype.
    #[error("{tensor} of {problem}: {bytes} bytes is not a whole number of {dtype} elements")]
    Bytes {
        /// The input.
        tensor: &'static str,
        /// The problem key.
        problem: String,
        /// Bytes given.
        bytes: usize,
        /// The dtype.
        dtype: DType,
    },
    /// A benchmark's run count is outside `1..=`[`MAX_BENCH_RUNS`].
    #[error("runs {0}: a benchmark times 1 to {MAX_BENCH_RUNS} runs")]
    Runs(i64),
    /// The run itself failed (e.g. an output too large to allocate).
    #[error("{0}")]
    Run(String),
    /// The caller's interrupt check said stop (a benchmark stops between runs).
    #[error("interrupted")]
    Interrupted,
}

/// The most runs one benchmark times.
pub const MAX_BENCH_RUNS: u32 = 100_000;

/// Which backend a runner uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendChoice {
    /// Host memory runs on the CPU backend.
    Auto,
    /// The multi-threaded CPU backend.
    Cpu,
    /// The CUDA backend (device memory; not on host memory yet).
    Cuda,
}

impl std::str::FromStr for BackendChoice {
    type Err = RunnerError;

    fn from_str(s: &str) -> Result<Self, RunnerError> {
        match s {
            "auto" => Ok(BackendChoice::Auto),
            "cpu" => Ok(BackendChoice::Cpu),
            "cuda" => Ok(BackendChoice::Cuda),
            _ => Err(RunnerError::Backend {
                name: s.to_string(),
                why: "expected auto, cpu or cuda".to_string(),
            }),
        }
    }
}

/// The memory layout of a tensor role, as [`shape`] gives it.
pub fn layout(role: TensorRole) -> &'static str {
    match role {
        TensorRole::X => "N, [D, H,] W, C: channels-last",
        TensorRole::W => "K, [Z, Y,] X, C/G: a channels-last weight",
        TensorRole::Y => "N, [D, H,] W, K: channels-last",
    }
}

/// The shape of a tensor role of `p` in gconv's layouts, outermost first, with the problem's
/// rank of spatial sizes: X is `N, [D, H,] W, C`, W is `K, [Z, Y,] X, C/G`, Y is
/// `N, [Do, Ho,] Wo, K` — the byte order of PyTorch's channels_last tensors (and of
/// `Problem::dims`, whose G and C/G (or K/G) are merged here into C (K)).
pub fn shape(p: &Problem, role: TensorRole) -> Vec<u64> {
    let (lead, spatial, last) = match role {
        TensorRole::X => (p.n, p.spatial(p.input), p.c),
        TensorRole::W => (p.k, p.spatial(p.filter), p.cpg()),
        TensorRole::Y => (p.n, p.spatial(p.output()), p.k),
    };
    let mut s = vec![lead];
    s.extend(spatial);
    s.push(last);
    s
}

/// The runner name of an input role: `dY` for Y (an input only of the backward directions),
/// else the role's name.
pub fn input_name(role: TensorRole) -> &'static str {
    match role {
        TensorRole::Y => "dY",
        r => r.name(),
    }
}

/// The runner name of a direction's output: `Y`, `dX` or `dW`.
pub fn output_name(p: &Problem) -> &'static str {
    match p.direction {
        gconv_problem::Direction::Fwd => "Y",
        gconv_problem::Direction::Dgrad => "dX",
        gconv_problem::Direction::Wgrad => "dW",
    }
}

/// A kernel reference (`auto`, `ref`, a kernel name, a CPU variant), or why `name` is none.
pub(crate) fn parse_kernel(name: &str) -> Result<KernelRef, RunnerError> {
    name.parse()
        .map_err(|e: gconv_tune::TuneError| RunnerError::Kernel {
            name: name.into(),
            why: e.to_string(),
        })
}

/// What a runner runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resolved {
    Cpu(CpuVariant),
    Reference,
}

/// A problem, a kernel and a backend, resolved once.
#[derive(Debug, Clone)]
pub struct Runner {
    problem: Problem,
    resolved: Resolved,
}

/// What [`Runner::benchmark`] measured: wall-clock time of whole runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Benchmark {
    /// Median, ms.
    pub median_ms: f64,
    /// Fastest, ms.
    pub min_ms: f64,
    /// Timed runs.
    pub runs: u32,
    /// How it was timed.
    pub method: String,
}

impl Runner {
    /// Resolves `kernel` (`auto`, `ref`, a CPU variant name) for `problem` on `backend`.
    pub fn new(
        problem: Problem,
        kernel: &str,
        backend: BackendChoice,
    ) -> Result<Runner, RunnerError> {
        problem
            .check_geometry()
            .map_err(|e| RunnerError::Problem(e.to_string()))?;
        if backend == BackendChoice::Cuda {
            return Err(RunnerError::Backend {
                name: "cuda".into(),
                why: "the CUDA backend runs on device memory, which this runner does not take \
                      yet; host arrays run on the CPU backend (backend=\"cpu\" or \"auto\"), GPU \
                      runs through the CLI (`gconv run --backend cuda`)"
                    .into(),
            });
        }
        let kref = parse_kernel(kernel)?;
        let resolved = match kref {
            KernelRef::Auto => Resolved::Cpu(cpu::choose(&problem)),
            KernelRef::Reference => Resolved::Reference,
            KernelRef::Cpu(CpuVariant::PlantedCrash) => {
                return Err(RunnerError::Kernel {
                    name: kernel.into(),
                    why: "aborts the process on purpose: a fixture of the sweep's crash isolation, not a kernel to run".into(),
                })
            }
            KernelRef::Cpu(v) => Resolved::Cpu(v),
            KernelRef::Named(_) => {
                return Err(RunnerError::Kernel {
                    name: kernel.into(),
                    why: format!(
                        "a GPU kernel; the CPU backend runs auto, ref or a CPU variant ({})",
                        CpuVariant::POOL.map(|v| v.name()).join(", ")
                    ),
                })
            }
        };
        Ok(Runner { problem, resolved })
    }

    /// The problem.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// The kernel that runs: a CPU variant's name or `ref`.
    pub fn kernel(&self) -> &'static str {
        match self.resolved {
            Resolved::Cpu(v) => v.name(),
            Resolved::Reference => "ref",
        }
    }

    /// The backend that runs it.
    pub fn backend(&self) -> &'static str {
        "cpu"
    }

    /// Checks one input: its dtype and its shape in the gconv layout.
    pub fn check_input(
        &self,
        index: usize,
        dtype: DType,
        shape_given: &[u64],
    ) -> Result<(), RunnerError> {
        let p = &self.problem;
        let ([r0, r1], _) = p.roles();
        let role = if index == 0 { r0 } else { r1 };
        let tensor = input_name(role);
        if dtype != p.dtype {
            return Err(RunnerError::Dtype {
                tensor,
                problem: p.to_string(),
                expected: p.dtype,
                got: dtype,
            });
        }
        let want = shape(p, role);
        if shape_given != want.as_slice() {
            return Err(RunnerError::Shape {
                tensor,
                problem: p.to_string(),
                expected: want,
                got: shape_given.to_vec(),
                layout: layout(role),
            });
        }
        Ok(())
    }

    /// Runs on two host tensors in the contract's order; returns the output.
    pub fn run(&self, a: &HostTensor, b: &HostTensor) -> Result<HostTensor, RunnerError> {
        let p = &self.problem;
        let ([r0, r1], _) = p.roles();
        for (t, role) in [(a, r0), (b, r1)] {
            if t.dtype() != p.dtype {
                return Err(RunnerError::Dtype {
                    tensor: input_name(role),
                    problem: p.to_string(),
                    expected: p.dtype,
                    got: t.dtype(),
                });
            }
            if t.len() as u64 != p.elements(role) {
                return Err(RunnerError::Shape {
                    tensor: input_name(role),
                    problem: p.to_string(),
                    expected: shape(p, role),
                    got: vec![t.len() as u64],
                    layout: layout(role),
                });
            }
        }
        match self.resolved {
            Resolved::Cpu(v) => cpu::run(v, p, a, b).map_err(|e| RunnerError::Run(e.to_string())),
            Resolved::Reference => gconv_reference::reference::reference_tensors(p, a, b)
                .map(|v| HostTensor::from_f64(p.dtype, &v))
                .map_err(|e| RunnerError::Run(e.to_string())),
        }
    }

    /// [`Runner::run`] on raw little-endian bytes of the problem's dtype.
    pub fn run_bytes(&self, a: &[u8], b: &[u8]) -> Result<Vec<u8>, RunnerError> {
        let (x, y) = (self.tensor(0, a)?, self.tensor(1, b)?);
        let out = self.run(&x, &y)?;
        out.try_to_bytes().map_err(|e| {
            RunnerError::Run(format!(
                "{}: cannot allocate the output's {} bytes: {e}",
                self.problem,
                out.len() * self.problem.dtype.size_bytes() as usize
            ))
        })
    }

    /// Times `runs` whole runs after one warm-up (wall clock; the CPU backend's figure, as
    /// `gconv run --backend cpu` prints it). `runs` is 1 to [`MAX_BENCH_RUNS`];
    /// `interrupted` is asked before every run and stops the benchmark when it says so.
    pub fn benchmark(
        &self,
        a: &HostTensor,
        b: &HostTensor,
        runs: i64,
        interrupted: &mut dyn FnMut() -> bool,
    ) -> Result<Benchmark, RunnerError> {
        let runs = u32::try_from(runs)
            .ok()
            .filter(|r| (1..=MAX_BENCH_RUNS).contains(r))
            .ok_or(RunnerError::Runs(runs))?;
        self.run(a, b)?;
        let mut t: Vec<f64> = Vec::with_capacity(runs.min(1024) as usize);
        for _ in 0..runs {
            if interrupted() {
                return Err(RunnerError::Interrupted);
            }
            let s = Instant::now();
            self.run(a, b)?;
            t.push(s.elapsed().as_secs_f64() * 1e3);
        }
        t.sort_by(f64::total_cmp);
        Ok(Benchmark {
            median_ms: t[t.len() / 2],
            min_ms: t[0],
            runs,
            method: format!("wall clock, median of {runs} runs after 1 warm-up"),
        })
    }

    /// [`Runner::benchmark`] on raw bytes.
    pub fn benchmark_bytes(
        &self,
        a: &[u8],
        b: &[u8],
        runs: i64,
        interrupted: &mut dyn FnMut() -> bool,
    ) -> Result<Benchmark, RunnerError> {
        let (x, y) = (self.tensor(0, a)?, self.tensor(1, b)?);
        self.benchmark(&x, &y, runs, interrupted)
    }

    /// Input `index` from raw bytes, its length checked.
    fn tensor(&self, index: usize, bytes: &[u8]) -> Result<HostTensor, RunnerError> {
        let p = &self.problem;
        let ([r0, r1], _) = p.roles();
        let role = if index == 0 { r0 } else { r1 };
        let tensor = input_name(role);
        let es = p.dtype.size_bytes() as usize;
        if !bytes.len().is_multiple_of(es) {
            return Err(RunnerError::Bytes {
                tensor,
                problem: p.to_string(),
                bytes: bytes.len(),
                dtype: p.dtype,
            });
        }
        let n = (bytes.len() / es) as u64;
        if n != p.elements(role) {
            return Err(RunnerError::Shape {
                tensor,
                problem: p.to_string(),
                expected: shape(p, role),
                got: vec![n],
                layout: layout(role),
            });
        }
        HostTensor::from_bytes(p.dtype, bytes).ok_or_else(|| RunnerError::Bytes {
            tensor,
            problem: p.to_string(),
            bytes: bytes.len(),
            dtype: p.dtype,
        })
    }
}

#[cfg(test)]
mod tests;
