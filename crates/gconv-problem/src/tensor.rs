//! Host tensors in the gconv layouts: typed storage, seeded random fill, conversions.

use crate::error::ProblemError;
use crate::problem::{DType, Problem, TensorRole};
use half::{bf16, f16};

/// Element storage of a host tensor.
#[derive(Debug, Clone, PartialEq)]
pub enum TensorData {
    /// f32 elements.
    F32(Vec<f32>),
    /// f16 elements.
    F16(Vec<f16>),
    /// bf16 elements.
    Bf16(Vec<bf16>),
}

/// A host tensor: dtype-tagged elements in the layout of its role (see the crate docs).
#[derive(Debug, Clone, PartialEq)]
pub struct HostTensor {
    /// The elements.
    pub data: TensorData,
}

/// SplitMix64: a small, well-mixed, reproducible generator for test inputs.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    pub fn next_signed_unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64) * (1.0 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

impl HostTensor {
    /// Zero tensor.
    pub fn zeros(dtype: DType, len: usize) -> HostTensor {
        HostTensor::from_f64(dtype, &vec![0.0; len])
    }

    /// Rounds f64 values to the dtype (round to nearest even).
    pub fn from_f64(dtype: DType, v: &[f64]) -> HostTensor {
        let data = match dtype {
            DType::F32 => TensorData::F32(v.iter().map(|&x| x as f32).collect()),
            DType::F16 => TensorData::F16(v.iter().map(|&x| f16::from_f64(x)).collect()),
            DType::Bf16 => TensorData::Bf16(v.iter().map(|&x| bf16::from_f64(x)).collect()),
        };
        HostTensor { data }
    }

    /// Rounds f32 values to the dtype.
    pub fn from_f32(dtype: DType, v: &[f32]) -> HostTensor {
        let data = match dtype {
            DType::F32 => TensorData::F32(v.to_vec()),
            DType::F16 => TensorData::F16(v.iter().map(|&x| f16::from_f32(x)).collect()),
            DType::Bf16 => TensorData::Bf16(v.iter().map(|&x| bf16::from_f32(x)).collect()),
        };
        HostTensor { data }
    }

    /// Seeded uniform values in [-1, 1), rounded to the dtype.
    pub fn random(dtype: DType, len: usize, seed: u64) -> HostTensor {
        let mut rng = SplitMix64::new(seed);
        let v: Vec<f64> = (0..len).map(|_| rng.next_signed_unit()).collect();
        HostTensor::from_f64(dtype, &v)
    }

    /// [`HostTensor::random`] without aborting the process when memory runs out: the storage
    /// is reserved first, and a failed reservation is [`ProblemError::HostMemory`]. The values
    /// are the same as `random`'s for the same seed.
    pub fn try_random(
        dtype: DType,
        len: usize,
        seed: u64,
        tensor: &'static str,
    ) -> Result<HostTensor, ProblemError> {
        let oom = || ProblemError::HostMemory {
            tensor,
            bytes: len as u64 * dtype.size_bytes(),
        };
        let mut rng = SplitMix64::new(seed);
        let data = match dtype {
            DType::F32 => {
                let mut v: Vec<f32> = Vec::new();
                v.try_reserve_exact(len).map_err(|_| oom())?;
                v.extend((0..len).map(|_| rng.next_signed_unit() as f32));
                TensorData::F32(v)
            }
            DType::F16 => {
                let mut v: Vec<f16> = Vec::new();
                v.try_reserve_exact(len).map_err(|_| oom())?;
                v.extend((0..len).map(|_| f16::from_f64(rng.next_signed_unit())));
                TensorData::F16(v)
            }
            DType::Bf16 => {
                let mut v: Vec<bf16> = Vec::new();
                v.try_reserve_exact(len).map_err(|_| oom())?;
                v.extend((0..len).map(|_| bf16::from_f64(rng.next_signed_unit())));
                TensorData::Bf16(v)
            }
        };
        Ok(HostTensor { data })
    }

    fn seed_for(role: TensorRole, seed: u64) -> u64 {
        let salt = match role {
            TensorRole::X => 0x58,
            TensorRole::W => 0x57,
            TensorRole::Y => 0x59,
        };
        seed.wrapping_mul(0x100_0000_01B3) ^ salt
    }

    /// Seeded random tensor for one role of a problem; the role is mixed into the seed so that
    /// the two inputs of a direction differ.
    pub fn random_for(problem: &Problem, role: TensorRole, seed: u64) -> HostTensor {
        HostTensor::random(
            problem.dtype,
            problem.elements(role) as usize,
            HostTensor::seed_for(role, seed),
        )
    }

    /// [`HostTensor::random_for`] that reports a failed allocation instead of aborting.
    pub fn try_random_for(
        problem: &Problem,
        role: TensorRole,
        seed: u64,
    ) -> Result<HostTensor, ProblemError> {
        let len =
            usize::try_from(problem.elements(role)).map_err(|_| ProblemError::HostMemory {
                tensor: role.name(),
                bytes: problem
                    .elements(role)
                    .saturating_mul(problem.dtype.size_bytes()),
            })?;
        HostTensor::try_random(
            problem.dtype,
            len,
            HostTensor::seed_for(role, seed),
            role.name(),
        )
    }

    /// The dtype.
    pub fn dtype(&self) -> DType {
        match self.data {
            TensorData::F32(_) => DType::F32,
            TensorData::F16(_) => DType::F16,
            TensorData::Bf16(_) => DType::Bf16,
        }
    }

    /// Element count.
    pub fn len(&self) -> usize {
        match &self.data {
            TensorData::F32(v) => v.len(),
            TensorData::F16(v) => v.len(),
            TensorData::Bf16(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Widened copy as f64.
    pub fn to_f64(&self) -> Vec<f64> {
        match &self.data {
            TensorData::F32(v) => v.iter().map(|&x| x as f64).collect(),
            TensorData::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
            TensorData::Bf16(v) => v.iter().map(|x| x.to_f64()).collect(),
        }
    }

    /// Widened copy as f32.
    pub fn to_f32(&self) -> Vec<f32> {
        match &self.data {
            TensorData::F32(v) => v.clone(),
            TensorData::F16(v) => v.iter().map(|x| x.to_f32()).collect(),
            TensorData::Bf16(v) => v.iter().map(|x| x.to_f32()).collect(),
        }
    }

    /// Raw little-endian bytes (for device upload); a buffer that cannot be allocated aborts,
    /// as any allocation does ([`HostTensor::try_to_bytes`] returns the error instead).
    pub fn to_bytes(&self) -> Vec<u8> {
        let bytes = self.len() * self.dtype().size_bytes() as usize;
        self.try_to_bytes().unwrap_or_else(|_| {
            std::alloc::handle_alloc_error(
                std::alloc::Layout::from_size_align(bytes, 1)
                    .unwrap_or(std::alloc::Layout::new::<u8>()),
            )
        })
    }

    /// Raw little-endian bytes into a buffer reserved first, so that one that cannot be
    /// allocated is an error for the caller (the Python runner's output) and not an abort.
    pub fn try_to_bytes(&self) -> Result<Vec<u8>, std::collections::TryReserveError> {
        let mut out = Vec::new();
        out.try_reserve_exact(self.len() * self.dtype().size_bytes() as usize)?;
        match &self.data {
            TensorData::F32(v) => out.extend(v.iter().flat_map(|x| x.to_le_bytes())),
            TensorData::F16(v) => out.extend(v.iter().flat_map(|x| x.to_le_bytes())),
            TensorData::Bf16(v) => out.extend(v.iter().flat_map(|x| x.to_le_bytes())),
        }
        Ok(out)
    }

    /// From raw little-endian bytes; `None` when the length is not a multiple of the element size.
    pub fn from_bytes(dtype: DType, bytes: &[u8]) -> Option<HostTensor> {
        let es = dtype.size_bytes() as usize;
        if !bytes.len().is_multiple_of(es) {
            return None;
        }
        let data = match dtype {
            DType::F32 => TensorData::F32(
                bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            ),
            DType::F16 => TensorData::F16(
                bytes
                    .chunks_exact(2)
                    .map(|c| f16::from_le_bytes([c[0], c[1]]))
                    .collect(),
            ),
            DType::Bf16 => TensorData::Bf16(
                bytes
                    .chunks_exact(2)
                    .map(|c| bf16::from_le_bytes([c[0], c[1]]))
                    .collect(),
            ),
        };
        Some(HostTensor { data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_is_seeded_and_rounded() {
        let a = HostTensor::random(DType::Bf16, 100, 7);
        let b = HostTensor::random(DType::Bf16, 100, 7);
        let c = HostTensor::random(DType::Bf16, 100, 8);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let v = a.to_f64();
        assert!(v.iter().all(|x| (-1.0..=1.0).contains(x)));
        // bf16 values have at most 8 significant bits.
        assert!(v.iter().all(|&x| bf16::from_f64(x).to_f64() == x));
    }

    #[test]
    fn try_random_matches_random_and_reports_oom() {
        for dt in DType::ALL {
            assert_eq!(
                HostTensor::try_random(dt, 77, 5, "X").unwrap(),
                HostTensor::random(dt, 77, 5)
            );
        }
        let e = HostTensor::try_random(DType::F32, usize::MAX / 8, 1, "X").unwrap_err();
        assert!(
            matches!(e, ProblemError::HostMemory { tensor: "X", .. }),
            "{e}"
        );
    }

    #[test]
    fn bytes_round_trip() {
        for dt in DType::ALL {
            let a = HostTensor::random(dt, 33, 1);
            let b = HostTensor::from_bytes(dt, &a.to_bytes()).unwrap();
            assert_eq!(a, b);
        }
        assert!(HostTensor::from_bytes(DType::F32, &[0u8; 3]).is_none());
    }
}
