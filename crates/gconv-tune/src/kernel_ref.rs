//! What a kernel argument names, parsed once: `auto`, `ref`, a canonical kernel config name or
//! a CPU backend variant. `gconv run --kernel`, the sweep's kernel lists and gate, and the
//! worker all take a [`KernelRef`]; nothing downstream parses the text again.

use crate::error::TuneError;
use gconv_kernels::{Family, KernelConfig};
use gconv_reference::CpuVariant;
use std::fmt;
use std::str::FromStr;

/// A parsed kernel reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelRef {
    /// The documented rule-based selection (`gconv_kernels::select`).
    Auto,
    /// The naive GPU reference kernel of the problem.
    Reference,
    /// A generated kernel, by its canonical name.
    Named(KernelConfig),
    /// A CPU backend variant (`cpu_direct`, `cpu_im2col_gemm`).
    Cpu(CpuVariant),
}

impl FromStr for KernelRef {
    type Err = TuneError;

    /// `auto`, `ref`, a canonical kernel name (grammar only: whether it is a kernel at all is
    /// the admission's answer) or a CPU variant name; anything else is an error that says why
    /// it is neither.
    fn from_str(name: &str) -> Result<KernelRef, TuneError> {
        match name {
            "auto" => return Ok(KernelRef::Auto),
            "ref" => return Ok(KernelRef::Reference),
            _ => {}
        }
        let gpu = match name.parse::<KernelConfig>() {
            Ok(c) => return Ok(KernelRef::Named(c)),
            Err(e) => e,
        };
        let cpu = match name.parse::<CpuVariant>() {
            Ok(v) => return Ok(KernelRef::Cpu(v)),
            Err(e) => e,
        };
        // Say why in the words of what the name looks like.
        let reason = if name.starts_with("cpu_") {
            cpu.to_string()
        } else if Family::ALL.iter().any(|f| name.starts_with(f.token())) {
            gpu.to_string()
        } else {
            format!(
                "expected auto, ref, a kernel name (igemm_... or direct_..., see `gconv kernels`) or a CPU variant ({})",
                CpuVariant::POOL.map(|v| v.name()).join(", ")
            )
        };
        Err(TuneError::UnknownKernel {
            name: name.to_string(),
            reason,
        })
    }
}

impl fmt::Display for KernelRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelRef::Auto => f.write_str("auto"),
            KernelRef::Reference => f.write_str("ref"),
            KernelRef::Named(c) => write!(f, "{c}"),
            KernelRef::Cpu(v) => f.write_str(v.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_parses_and_prints_back() {
        let cfg = KernelConfig::default().to_string();
        for s in ["auto", "ref", "cpu_direct", "cpu_im2col_gemm", cfg.as_str()] {
            let r: KernelRef = s.parse().unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(r.to_string(), s);
        }
        assert!(matches!(
            "cpu_direct".parse::<KernelRef>(),
            Ok(KernelRef::Cpu(CpuVariant::Direct))
        ));
        let e = "nope".parse::<KernelRef>().unwrap_err().to_string();
        assert!(e.contains("\"nope\"") && e.contains("CPU variant"), "{e}");
        let e = "igemm_fwd_bf16"
            .parse::<KernelRef>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected 11"), "{e}");
        assert!(!e.contains("CPU variant"), "{e}");
        let e = "cpu_nope".parse::<KernelRef>().unwrap_err().to_string();
        assert!(
            e.contains("cpu_direct") && !e.contains("expected 11"),
            "{e}"
        );
    }
}
