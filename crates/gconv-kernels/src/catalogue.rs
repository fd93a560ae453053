//! The pool catalogue: every caller that needs "the kernels gconv ships" for a direction and
//! dtype (bench, selftest, `auto`, the compile test, host emulation, examples) asks here
//! instead of listing pools itself. Each family keeps its own pool ([`crate::family::KernelFamily::pool`]);
//! the catalogue concatenates them in [`Family::ALL`] order (igemm first, then direct). It also
//! holds the baseline config that every trait-config field falls back to.

use crate::admit::Validated;
use crate::config::{pool_slot, Family, KernelConfig};
use crate::dispatch;
use crate::rejection::Rejection;
use crate::source::Arch;
use gconv_problem::{DType, Direction};
use std::sync::OnceLock;

/// Which families' pools to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Families {
    /// Every family.
    #[default]
    All,
    /// One family.
    Only(Family),
}

impl Families {
    /// The families selected, in catalogue order.
    pub fn list(self) -> Vec<Family> {
        match self {
            Families::All => Family::ALL.to_vec(),
            Families::Only(f) => vec![f],
        }
    }
}

/// The default pool of the selected families for a direction and dtype, in catalogue order
/// (empty when no family has kernels for the direction yet).
pub fn pool(direction: Direction, dtype: DType, families: Families) -> Vec<KernelConfig> {
    families
        .list()
        .into_iter()
        .flat_map(|f| dispatch::of(f).pool(direction, dtype))
        .collect()
}

/// [`pool`] of every family, each member [`Validated`] on `arch` or refused with why, in pool
/// order: computed once per process per (direction, dtype, architecture), for the gate `auto`
/// runs over the whole pool on every decision (`gconv_learn::select`).
pub fn validated_pool(
    direction: Direction,
    dtype: DType,
    arch: Arch,
) -> &'static [(KernelConfig, Result<Validated, Rejection>)] {
    type Pools = [OnceLock<Vec<(KernelConfig, Result<Validated, Rejection>)>>; 18];
    static POOLS: Pools = [const { OnceLock::new() }; 18];
    let a = usize::from(arch == Arch::Sm90a);
    POOLS[pool_slot(direction, dtype) * 2 + a].get_or_init(|| {
        pool(direction, dtype, Families::All)
            .into_iter()
            .map(|c| (c, Validated::new(&c, arch)))
            .collect()
    })
}

/// The default pools of every dtype for a direction.
pub fn pool_all_dtypes(direction: Direction, families: Families) -> Vec<KernelConfig> {
    DType::ALL
        .into_iter()
        .flat_map(|d| pool(direction, d, families))
        .collect()
}

/// The directions for which some selected family has a pool.
pub fn directions_with_pools(families: Families) -> Vec<Direction> {
    Direction::ALL
        .into_iter()
        .filter(|&d| DType::ALL.iter().any(|&t| !pool(d, t, families).is_empty()))
        .collect()
}

impl KernelConfig {
    /// The baseline config for a direction and dtype (the igemm family's): what every field of a
    /// trait config falls back to.
    pub fn baseline(direction: Direction, dtype: DType) -> KernelConfig {
        crate::igemm::pool::baseline(direction, dtype)
    }
}

impl Default for KernelConfig {
    /// `igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen`: the forward bf16 baseline.
    fn default() -> Self {
        KernelConfig::baseline(Direction::Fwd, DType::Bf16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admit::{required_arch, validate};
    use std::collections::HashSet;

    #[test]
    fn default_name_matches_documented_example() {
        assert_eq!(
            KernelConfig::default().to_string(),
            "igemm_fwd_bf16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen"
        );
    }

    #[test]
    fn pool_members_validate_and_names_round_trip_uniquely() {
        for direction in Direction::ALL {
            let every = pool_all_dtypes(direction, Families::All);
            let mut names = HashSet::new();
            for c in &every {
                assert_eq!(c.direction, direction, "{c}");
                validate(c, required_arch(c)).unwrap_or_else(|e| panic!("{c}: {e}"));
                let name = c.to_string();
                assert_eq!(name.parse::<KernelConfig>().as_ref(), Ok(c), "{name}");
                assert!(names.insert(name.clone()), "duplicate {name}");
            }
            for dt in DType::ALL {
                let n = pool(direction, dt, Families::Only(Family::Igemm)).len();
                // backward-weight f32: a handful of CUDA-core tiles
                let lo = if direction == Direction::Wgrad { 6 } else { 20 };
                assert!((lo..=56).contains(&n), "igemm {direction} {dt}: {n}");
                let d = pool(direction, dt, Families::Only(Family::Direct)).len();
                // backward-weight: the slab kernel's few members (4 for f32)
                let dlo = if direction == Direction::Wgrad { 4 } else { 8 };
                assert!(d >= dlo, "direct {direction} {dt}: {d}");
                // Catalogue order: igemm members first.
                let all = pool(direction, dt, Families::All);
                assert_eq!(all.len(), n + d);
                assert!(all[..n].iter().all(|c| c.family == Family::Igemm));
            }
        }
        assert_eq!(
            directions_with_pools(Families::All),
            Direction::ALL.to_vec(),
            "a new direction's pool must be added to this test"
        );
    }
}
