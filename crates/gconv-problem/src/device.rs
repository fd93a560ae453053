//! Device specifications for roofline figures.

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

    /// Peak compute rate for a dtype.
    pub fn peak_flops(&self, dtype: DType) -> f64 {
        match dtype {
            DType::F32 => self.f32_flops,
            DType::F16 | DType::Bf16 => self.half_flops,
        }
    }
}
