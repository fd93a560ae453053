//! Device specifications for roofline figures, and which one a device name reports.

use crate::problem::DType;

/// Peak rates of a device, used for roofline times and fractions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeviceSpec {
    /// Human-readable name.
    pub name: &'static str,
    /// DRAM bandwidth in bytes per second.
    pub bandwidth_bytes_per_s: f64,
    /// Dense tensor-core peak for f16/bf16 inputs with f32 accumulation, FLOP/s.
    pub half_flops: f64,
    /// FP32 CUDA-core peak, FLOP/s.
    pub f32_flops: f64,
}

impl DeviceSpec {
    /// NVIDIA H200 SXM: 4.8 TB/s HBM3e, 989 TFLOP/s dense f16/bf16, 67 TFLOP/s f32.
    pub const H200: DeviceSpec = DeviceSpec {
        name: "H200",
        bandwidth_bytes_per_s: 4.8e12,
        half_flops: 989e12,
        f32_flops: 67e12,
    };

    /// NVIDIA H100 SXM5 (80 GB HBM3): 3.35 TB/s, 989 TFLOP/s dense f16/bf16, 67 TFLOP/s f32 —
    /// the H200's compute with 70 % of its bandwidth.
    pub const H100_SXM: DeviceSpec = DeviceSpec {
        name: "H100 SXM",
        bandwidth_bytes_per_s: 3.35e12,
        half_flops: 989e12,
        f32_flops: 67e12,
    };

    /// NVIDIA H100 PCIe: 2.0 TB/s HBM2e, 756 TFLOP/s dense f16/bf16, 51 TFLOP/s f32.
    pub const H100_PCIE: DeviceSpec = DeviceSpec {
        name: "H100 PCIe",
        bandwidth_bytes_per_s: 2.0e12,
        half_flops: 756e12,
        f32_flops: 51e12,
    };

    /// The specification of the device the driver calls `name` (`NVIDIA H200`, `NVIDIA H100
    /// 80GB HBM3`, `NVIDIA H100 PCIe`), or `None` for a device without one here (NVL parts,
    /// other GPUs, `cpu`).
    pub fn of_name(name: &str) -> Option<DeviceSpec> {
        let n = name.to_ascii_uppercase();
        if n.contains("NVL") {
            return None;
        }
        if n.contains("H200") {
            Some(DeviceSpec::H200)
        } else if n.contains("H100") && n.contains("PCIE") {
            Some(DeviceSpec::H100_PCIE)
        } else if n.contains("H100") && (n.contains("HBM3") || n.contains("SXM")) {
            Some(DeviceSpec::H100_SXM)
        } else {
            None
        }
    }

    /// [`DeviceSpec::of_name`] of `name`, else `fallback` (the roofline a figure is stated
    /// against when the device is unknown, e.g. rows of the CPU backend).
    pub fn of_name_or(name: &str, fallback: DeviceSpec) -> DeviceSpec {
        DeviceSpec::of_name(name).unwrap_or(fallback)
    }

    /// Peak compute rate for a dtype.
    pub fn peak_flops(&self, dtype: DType) -> f64 {
        match dtype {
            DType::F32 => self.f32_flops,
            DType::F16 | DType::Bf16 => self.half_flops,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_pick_their_specification() {
        assert_eq!(DeviceSpec::of_name("NVIDIA H200"), Some(DeviceSpec::H200));
        assert_eq!(
            DeviceSpec::of_name("NVIDIA H100 80GB HBM3"),
            Some(DeviceSpec::H100_SXM)
        );
        assert_eq!(
            DeviceSpec::of_name("NVIDIA H100 PCIe"),
            Some(DeviceSpec::H100_PCIE)
        );
        assert_eq!(DeviceSpec::of_name("NVIDIA H100 NVL"), None);
        assert_eq!(DeviceSpec::of_name("NVIDIA H200 NVL"), None);
        assert_eq!(DeviceSpec::of_name("cpu"), None);
        assert_eq!(
            DeviceSpec::of_name_or("NVIDIA A100-SXM4-80GB", DeviceSpec::H200),
            DeviceSpec::H200
        );
    }
}
