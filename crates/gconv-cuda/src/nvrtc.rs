//! NVRTC compilation of generated CUDA C++ to an sm_90 CUBIN, without a GPU.
//!
//! The NVRTC library is loaded on first use (cudarc `dynamic-loading`); its absence, or an NVRTC
//! older than 13.0, is an error value, never a panic. Compilation always asks ptxas for its
//! verbose report (`--ptxas-options=-v`) and parses registers, spills, stack frame and static
//! shared memory per entry point from the log.
//!
//! NVRTC 13.0 as installed by the `nvidia-cuda-nvrtc` wheel ships no CUDA headers (neither
//! `cuda_fp16.h` nor `cuda_bf16.h`), and no include path is passed: generated kernels must be
//! header-free (f16/bf16 stored as `unsigned short`, converted with bit operations or inline
//! PTX), see `gconv_kernels::source`.

use crate::error::{guard, CudaError};
use cudarc::nvrtc::{result, sys};
use gconv_kernels::{Arch, KernelSource};
use serde::{Deserialize, Serialize};
use std::ffi::{c_char, CString};
use std::sync::OnceLock;
use std::time::Instant;

/// Options of one NVRTC compilation (beyond the fixed ones, see [`CompileOptions::args`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CompileOptions {
    /// `--maxrregcount=N` when set.
    pub max_registers: Option<u32>,
    /// `--generate-line-info` (for profilers).
    pub line_info: bool,
    /// Further NVRTC options, passed verbatim after the fixed ones.
    pub extra: Vec<String>,
}

impl CompileOptions {
    /// The full NVRTC argument list for an architecture: `--gpu-architecture=<arch>`,
    /// `-std=c++17`, `-default-device` (functions without an execution-space annotation are
    /// device functions), `--ptxas-options=-v`, then the optional ones. This list is part of the
    /// compile-cache key.
    pub fn args(&self, arch: Arch) -> Vec<String> {
        let mut v = vec![
            format!("--gpu-architecture={}", arch.nvrtc_arch()),
            "-std=c++17".to_string(),
            "-default-device".to_string(),
            "--ptxas-options=-v".to_string(),
        ];
        if let Some(r) = self.max_registers {
            v.push(format!("--maxrregcount={r}"));
        }
        if self.line_info {
            v.push("--generate-line-info".to_string());
        }
        v.extend(self.extra.iter().cloned());
        v
    }

    fn check(&self) -> Result<(), CudaError> {
        if let Some(r) = self.max_registers {
            if !(16..=255).contains(&r) {
                return Err(CudaError::InvalidOption {
                    option: "max_registers",
                    reason: format!("{r} is outside 16..=255"),
                });
            }
        }
        if let Some(bad) = self.extra.iter().find(|o| o.contains('\0')) {
            return Err(CudaError::InvalidOption {
                option: "extra",
                reason: format!("{bad:?} contains a NUL byte"),
            });
        }
        Ok(())
    }
}

/// Resource usage of one entry point as reported by ptxas.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Resources {
    /// Registers per thread.
    pub regs: u32,
    /// Bytes of spill stores.
    pub spill_stores: u64,
    /// Bytes of spill loads.
    pub spill_loads: u64,
    /// Bytes of stack frame.
    pub stack: u64,
    /// Bytes of static shared memory (dynamic shared memory is not included).
    pub smem: u64,
}

impl Resources {
    /// Spill bytes, stores plus loads.
    pub fn spills(&self) -> u64 {
        self.spill_stores + self.spill_loads
    }
}

/// A compiled module: the CUBIN plus what NVRTC and ptxas reported.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledKernel {
    /// The sm_90(a) CUBIN image.
    pub cubin: Vec<u8>,
    /// NVRTC's program log (the ptxas report on success).
    pub log: String,
    /// Wall time of `nvrtcCompileProgram` in milliseconds (of the original compilation when the
    /// kernel came from the cache).
    pub compile_ms: f64,
    /// Resources per entry point, in the order ptxas reported them.
    pub resources: Vec<(String, Resources)>,
}

impl CompiledKernel {
    /// Resources of one entry point.
    pub fn resources_for(&self, entry: &str) -> Option<&Resources> {
        self.resources
            .iter()
            .find(|(e, _)| e == entry)
            .map(|(_, r)| r)
    }

    /// Largest register count over the entry points (0 when none were reported).
    pub fn max_regs(&self) -> u32 {
        self.resources
            .iter()
            .map(|(_, r)| r.regs)
            .max()
            .unwrap_or(0)
    }

    /// Total spill bytes (stores plus loads) over the entry points.
    pub fn total_spills(&self) -> u64 {
        self.resources.iter().map(|(_, r)| r.spills()).sum()
    }

    /// ptxas's performance advisories in the log, trimmed ("Potential Performance Loss", e.g.
    /// C7514: wgmma serialised by the code around it — correct, but silently slow).
    pub fn performance_advisories(&self) -> impl Iterator<Item = &str> {
        self.log
            .lines()
            .filter(|l| l.contains("Potential Performance Loss"))
            .map(str::trim)
    }
}

static NVRTC_VERSION: OnceLock<Result<(i32, i32), CudaError>> = OnceLock::new();

fn load_nvrtc() -> Result<(i32, i32), CudaError> {
    let not_found = |dirs: &[std::path::PathBuf]| CudaError::LibraryNotFound {
        what: "NVRTC library",
        library: "libnvrtc.so.13",
        hint:
            "install CUDA 13 NVRTC, e.g. the CUDA toolkit or pip install nvidia-cuda-nvrtc==13.0.88",
        searched: crate::libs::describe_search(dirs),
    };
    crate::libs::preload(crate::libs::CudaLib::Nvrtc).map_err(|dirs| not_found(&dirs))?;
    // SAFETY: `is_culib_present` only tries to dlopen candidate library names and drops the
    // handles; it has no other side effects.
    if !unsafe { sys::is_culib_present() } {
        return Err(not_found(&crate::libs::search_dirs()));
    }
    guard("nvrtcVersion", || {
        let (mut major, mut minor) = (0i32, 0i32);
        // SAFETY: the library is present (checked above); both pointers are valid for writes.
        unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
            .result()
            .map_err(|e| CudaError::Nvrtc {
                call: "nvrtcVersion",
                code: format!("{:?}", e.0),
            })?;
        if major < 13 {
            return Err(CudaError::NvrtcTooOld { major, minor });
        }
        Ok((major, minor))
    })
    .map_err(|e| crate::error::unusable_library(e, crate::libs::CudaLib::Nvrtc, "NVRTC library"))
}

/// The version of the NVRTC library that loads, as (major, minor). An error when no NVRTC can
/// be loaded or when it is older than 13.0. The answer is computed once per process.
pub fn nvrtc_version() -> Result<(i32, i32), CudaError> {
    NVRTC_VERSION.get_or_init(load_nvrtc).clone()
}

/// Destroys an NVRTC program on drop.
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created by `create_program` and is destroyed exactly once.
        let _ = unsafe { result::destroy_program(self.0) };
    }
}

fn c_chars_to_string(v: &[c_char]) -> String {
    let bytes: Vec<u8> = v.iter().map(|&c| c as u8).take_while(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A file name for NVRTC messages derived from the kernel name (shell-safe characters only).
fn program_name(kernel: &str) -> String {
    let mut s: String = kernel
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        s.push_str("kernel");
    }
    s.push_str(".cu");
    s
}

/// Compiles a generated module to a CUBIN for `src.arch`.
///
/// On failure the error carries NVRTC's log. On success the ptxas report is parsed into
/// [`CompiledKernel::resources`].
pub fn compile_cubin(
    src: &KernelSource,
    opts: &CompileOptions,
) -> Result<CompiledKernel, CudaError> {
    nvrtc_version()?;
    opts.check()?;
    let code = CString::new(src.code.as_str()).map_err(|e| CudaError::InvalidSource {
        kernel: src.kernel_name.clone(),
        reason: format!("NUL byte at offset {}", e.nul_position()),
    })?;
    let name =
        CString::new(program_name(&src.kernel_name)).map_err(|_| CudaError::InvalidSource {
            kernel: src.kernel_name.clone(),
            reason: "kernel name contains a NUL byte".to_string(),
        })?;
    let args = opts.args(src.arch);
    guard("NVRTC compilation", || {
        let prog =
            Program(
                result::create_program(&code, Some(&name)).map_err(|e| CudaError::Nvrtc {
                    call: "nvrtcCreateProgram",
                    code: format!("{:?}", e.0),
                })?,
            );
        let t0 = Instant::now();
        // SAFETY: `prog` is a live program; the options contain no NUL bytes (checked).
        let rc = unsafe { result::compile_program(prog.0, &args) };
        let compile_ms = t0.elapsed().as_secs_f64() * 1e3;
        // SAFETY: `prog` is a live program.
        let log = match unsafe { result::get_program_log(prog.0) } {
            Ok(v) => c_chars_to_string(&v),
            Err(e) => format!("(no log: nvrtcGetProgramLog failed with {:?})", e.0),
        };
        if let Err(e) = rc {
            return Err(CudaError::CompileFailed {
                kernel: src.kernel_name.clone(),
                arch: src.arch.to_string(),
                code: format!("{:?}", e.0),
                log,
            });
        }
        // SAFETY: `prog` is a live, successfully compiled program.
        let cubin = unsafe { get_cubin(prog.0) }?;
        let resources = parse_ptxas_resources(&log);
        Ok(CompiledKernel {
            cubin,
            log,
            compile_ms,
            resources,
        })
    })
}

/// Reads the CUBIN of a compiled program.
///
/// # Safety
/// `prog` must be a live program on which compilation succeeded.
unsafe fn get_cubin(prog: sys::nvrtcProgram) -> Result<Vec<u8>, CudaError> {
    let mut size = 0usize;
    sys::nvrtcGetCUBINSize(prog, &mut size)
        .result()
        .map_err(|e| CudaError::Nvrtc {
            call: "nvrtcGetCUBINSize",
            code: format!("{:?}", e.0),
        })?;
    if size == 0 {
        return Err(CudaError::Nvrtc {
            call: "nvrtcGetCUBINSize",
            code: "empty CUBIN (was a virtual architecture such as compute_90 requested?)"
                .to_string(),
        });
    }
    let mut buf = vec![0u8; size];
    sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut c_char)
        .result()
        .map_err(|e| CudaError::Nvrtc {
            call: "nvrtcGetCUBIN",
            code: format!("{:?}", e.0),
        })?;
    Ok(buf)
}

/// The number right before `unit` in `line` (`"... 12 bytes spill stores"` → 12 for unit
/// `"bytes spill stores"`).
fn number_before(line: &str, unit: &str) -> Option<u64> {
    let pos = line.find(unit)?;
    line[..pos]
        .trim_end()
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|s| s.parse().ok())
}

fn quoted(line: &str) -> Option<&str> {
    let a = line.find('\'')?;
    let b = line[a + 1..].find('\'')?;
    Some(&line[a + 1..a + 1 + b])
}

/// Parses the ptxas verbose report in an NVRTC log into per-entry resources.
///
/// Recognised lines: `Compiling entry function 'E' for 'sm_90'`, `Function properties for F`,
/// `N bytes stack frame, N bytes spill stores, N bytes spill loads` (applies to the last
/// `Function properties` function) and `Used N registers, ... N bytes smem` (applies to the
/// entry being compiled). Non-entry functions are not reported.
pub fn parse_ptxas_resources(log: &str) -> Vec<(String, Resources)> {
    let mut out: Vec<(String, Resources)> = Vec::new();
    let mut current_entry: Option<usize> = None;
    let mut props_target: Option<usize> = None;
    for line in log.lines() {
        if line.contains("Compiling entry function") {
            if let Some(name) = quoted(line) {
                let idx = match out.iter().position(|(e, _)| e == name) {
                    Some(i) => i,
                    None => {
                        out.push((name.to_string(), Resources::default()));
                        out.len() - 1
                    }
                };
                current_entry = Some(idx);
            }
        } else if let Some(pos) = line.find("Function properties for ") {
            let name = line[pos + "Function properties for ".len()..].trim();
            props_target = out.iter().position(|(e, _)| e == name);
        } else if line.contains("bytes stack frame") {
            if let Some(i) = props_target {
                let r = &mut out[i].1;
                r.stack = number_before(line, "bytes stack frame").unwrap_or(0);
                r.spill_stores = number_before(line, "bytes spill stores").unwrap_or(0);
                r.spill_loads = number_before(line, "bytes spill loads").unwrap_or(0);
            }
        } else if line.contains("Used ") && line.contains(" registers") {
            if let Some(i) = current_entry {
                let r = &mut out[i].1;
                r.regs = number_before(line, "registers").unwrap_or(0) as u32;
                r.smem = number_before(line, "bytes smem").unwrap_or(0);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'gconv_main' for 'sm_90'\n\
ptxas info    : Function properties for gconv_main\n\
ptxas         .     16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n\
ptxas info    : Used 168 registers, used 1 barriers, 2048 bytes smem, 400 bytes cmem[0]\n\
ptxas info    : Compiling entry function 'gconv_reduce' for 'sm_90'\n\
ptxas info    : Function properties for gconv_reduce\n\
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 18 registers, used 0 barriers\n\
ptxas info    : Compile time = 3.333 ms\n";

    #[test]
    fn performance_advisories_are_the_log_lines_that_report_one() {
        let mut k = CompiledKernel {
            cubin: Vec::new(),
            log: LOG.to_string(),
            compile_ms: 0.0,
            resources: parse_ptxas_resources(LOG),
        };
        assert_eq!(k.performance_advisories().count(), 0);
        // the line ptxas printed for a planted accumulator write behind a wgmma commit
        k.log.push_str(
            "ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions \
             are serialized due to non wgmma instructions reading accumulator registers\n",
        );
        let a: Vec<&str> = k.performance_advisories().collect();
        assert_eq!(a.len(), 1);
        assert!(a[0].starts_with("ptxas info    : (C7514) Potential Performance Loss"));
    }

    #[test]
    fn parses_ptxas_report() {
        let r = parse_ptxas_resources(LOG);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].0, "gconv_main");
        assert_eq!(
            r[0].1,
            Resources {
                regs: 168,
                spill_stores: 8,
                spill_loads: 12,
                stack: 16,
                smem: 2048
            }
        );
        assert_eq!(r[1].0, "gconv_reduce");
        assert_eq!(r[1].1.regs, 18);
        assert_eq!(r[1].1.smem, 0);
        assert_eq!(r[1].1.spills(), 0);
    }

    #[test]
    fn args_are_fixed_and_ordered() {
        let o = CompileOptions {
            max_registers: Some(128),
            line_info: true,
            extra: vec!["-DX=1".into()],
        };
        assert_eq!(
            o.args(Arch::Sm90a),
            vec![
                "--gpu-architecture=sm_90a",
                "-std=c++17",
                "-default-device",
                "--ptxas-options=-v",
                "--maxrregcount=128",
                "--generate-line-info",
                "-DX=1"
            ]
        );
        assert!(CompileOptions {
            max_registers: Some(7),
            ..Default::default()
        }
        .check()
        .is_err());
        assert!(CompileOptions {
            extra: vec!["a\0b".into()],
            ..Default::default()
        }
        .check()
        .is_err());
    }

    #[test]
    fn program_names_are_safe() {
        assert_eq!(program_name("ref_fwd_f32_n1"), "ref_fwd_f32_n1.cu");
        assert_eq!(program_name("a b/c"), "a_b_c.cu");
        assert_eq!(program_name(""), "kernel.cu");
    }
}
