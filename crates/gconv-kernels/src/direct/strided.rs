//! Backward data without a forward dual (strided, or a padding above `dil·(F−1)`): the
//! stride-phase kernels, on CUDA cores (`dgrad_phases.cu`) and on tensor cores
//! (`dgrad_phases_mma.cu`, below).
//!
//! Along each spatial dimension dX row `hi` is cell `q = hi / s`, phase `p = hi mod s`; the taps
//! `y` that reach it are those with `p + pad − y·dil ≡ 0 (mod s)`, each reading dY row
//! `q + e(p, y)`, `e = (p + pad − y·dil) / s`. A CTA owns `TH × TW` cells (`tile_m / tile_k`
//! rows × `tile_k` columns, i.e. `s_h·TH × s_w·TW` dX pixels, of one cell depth slice with all
//! its `s_d` depth phases) and `BN = tile_n` dX channels (whole groups of C/G); it stages the dY
//! halo those cells read once in shared memory (`TH + e_max − e_min` rows, the same for
//! columns and depth; the shared tile walk and halo copy of `common.cu` on a stride-1 halo
//! with padding `−e_min`), the weights once as f32 `[tap·K/G][BN]`, and each thread computes
//! `PY × PX` cells × every phase × `VEC` channels, with each phase's taps known at compile
//! time (phases without taps write zeros). Every staged dY value a thread reads feeds all the
//! outputs of its strip that use it (register window); dY is read from global memory once per
//! tile. Depthwise layers take a vector path (`VEC` channels per read); other layers (channel
//! multipliers, C/G or K/G up to 4) read one dY channel per FMA and sum the group's K/G dY
//! channels per dX channel.
//!
//! Fields: as on the simt path ([`super`] module doc) with cells for pixels: `tile_m` cells of
//! `tile_k` columns, `vec_b` = `PX` adjacent cells per thread along W, `vec_a` = `VEC` dX
//! channels, `stages` 2 = persistent. Rules on CUDA cores: K/G ≤ [`super::MAX_DIRECT_CPG`]
//! (dY channels per group, the staged "input" of the kernel), `tile_n` a multiple of C/G.
//!
//! **Tensor cores** (`math = mma`, C/G and K/G multiples of 8: the ResNeXt/RegNet stride-2
//! layers whose dY the CUDA-core kernel cannot stage, K/G ≤ 4 there): the same cell tiles, dY
//! halo and tile walk, with the halo padded per cell to an odd number of 16-byte chunks as on
//! the forward mma path ([`super::mma`]). Each phase of a cell (`s_d·s_h·s_w` of them) is an
//! implicit GEMM of its own over the shared halo — rows the tile's cells, k the phase's taps ×
//! K/G dY channels, n the CTA's dX channels — so no MMA touches the zeros of a dilated dY, and
//! the phases run one after another on the same accumulators (a warp unit: `NW` dX channels ×
//! `MB` m16 blocks of cells, as on the forward path). The weights sit in shared memory as
//! `[BN][WROW]` rows, each phase's taps at a k16-aligned offset ([`mma_weight_row`]); a phase
//! no tap reaches stores zeros. Fields as on the forward mma path with cells for pixels; no
//! group merge, no depth streaming (stages 1 or 2).
//!
//! This module holds what the others read (which problems take the kernel, their [`Phases`],
//! the body); the geometry, register estimate and cost of a phase plan live with the other
//! paths' (`super::geometry::phase_geometry`; CUDA cores
//! `super::geometry::phase_register_estimate` and `super::cost::phase_cost_estimate`; tensor cores `super::mma::register_estimate` on the
//! [`channel_view`] and `super::cost::phase_mma_cost_estimate`), the rules in `super::rules`,
//! the constants in `super::emit`.

use crate::config::{KernelConfig, Math};
use gconv_problem::{Direction, Problem};

/// The stride-phase kernel body on CUDA cores (after `common.cu`).
pub(super) const BODY: &str = include_str!("dgrad_phases.cu");

/// The stride-phase kernel body on tensor cores (after `common.cu` and the mma PTX helpers).
pub(super) const MMA_BODY: &str = include_str!("dgrad_phases_mma.cu");

/// True when `problem` runs on the stride-phase kernel: a backward-data problem without a
/// forward dual ([`Problem::dgrad_dual`]).
pub fn applies(problem: &Problem) -> bool {
    problem.direction == Direction::Dgrad && problem.dgrad_dual().is_none()
}

/// True when `cfg` on `problem` is the tensor-core stride-phase kernel.
pub fn applies_mma(cfg: &KernelConfig, problem: &Problem) -> bool {
    cfg.math == Math::Mma && applies(problem)
}

/// The problem as the tensor-core phase kernel's channels see it: C and K swapped, so that
/// its C/G is the staged dY channels per group and its K/G the dX channels a warp unit
/// computes (what [`super::mma::unit_channels`] and [`super::mma::register_estimate`] read).
pub fn channel_view(problem: &Problem) -> Problem {
    Problem {
        c: problem.k,
        k: problem.c,
        ..*problem
    }
}

/// Real taps that reach each phase of a cell, phases in the kernel's order (depth phase
/// slowest, then row, then column phase): `s_d·s_h·s_w` counts.
pub fn phase_tap_counts(problem: &Problem) -> Vec<u64> {
    let reach = |i: usize, p: i64, y: i64| {
        let s = problem.stride[i].max(1) as i64;
        (p + problem.pad[i] as i64 - y * problem.dilation[i] as i64).rem_euclid(s) == 0
    };
    let per_dim = |i: usize| -> Vec<u64> {
        (0..problem.stride[i].max(1) as i64)
            .map(|p| {
                (0..problem.filter[i] as i64)
                    .filter(|&y| reach(i, p, y))
                    .count() as u64
            })
            .collect()
    };
    let (d, h, w) = (per_dim(0), per_dim(1), per_dim(2));
    let mut out = Vec::with_capacity(d.len() * h.len() * w.len());
    for &a in &d {
        for &b in &h {
            for &c in &w {
                out.push(a * b * c);
            }
        }
    }
    out
}

/// Elements of one weight row of the tensor-core phase kernel (`WROW`): each phase's taps ×
/// K/G rounded up to a k16 step, then 8 more (an odd number of 16-byte chunks, so the eight
/// rows of an `ldmatrix` phase start in eight bank groups).
pub fn mma_weight_row(problem: &Problem) -> u64 {
    let kpg = problem.kpg();
    phase_tap_counts(problem)
        .iter()
        .map(|&t| (t * kpg).div_ceil(16) * 16)
        .sum::<u64>()
        + 8
}

/// k16 steps of one warp unit over every phase of a cell (a phase of `t` taps takes
/// `⌈t·K/G / 16⌉`).
pub fn mma_ksteps(problem: &Problem) -> u64 {
    let kpg = problem.kpg();
    phase_tap_counts(problem)
        .iter()
        .map(|&t| (t * kpg).div_ceil(16))
        .sum()
}

/// The phase structure of one problem, per spatial dimension (D, H, W).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phases {
    /// Smallest dY row offset `e(p, y)` of any (phase, tap) pair that reaches a cell.
    pub emin: [i64; 3],
    /// Largest offset.
    pub emax: [i64; 3],
    /// Cells: `ceil(dX size / s)`.
    pub cells: [u64; 3],
}

impl Phases {
    /// The phases of `problem` (any direction; only dgrad problems use them).
    pub fn of(problem: &Problem) -> Phases {
        let mut ph = Phases {
            emin: [0; 3],
            emax: [0; 3],
            cells: [1; 3],
        };
        for i in 0..3 {
            let s = problem.stride[i].max(1) as i64;
            let (pad, dil) = (problem.pad[i] as i64, problem.dilation[i] as i64);
            let (mut lo, mut hi) = (i64::MAX, i64::MIN);
            for p in 0..s {
                for y in 0..problem.filter[i] as i64 {
                    let t = p + pad - y * dil;
                    if t.rem_euclid(s) == 0 {
                        lo = lo.min(t / s);
                        hi = hi.max(t / s);
                    }
                }
            }
            // Every tap reaches exactly one phase, so the range is never empty.
            ph.emin[i] = if lo == i64::MAX { 0 } else { lo };
            ph.emax[i] = if hi == i64::MIN { 0 } else { hi };
            ph.cells[i] = problem.input[i].div_ceil(s as u64);
        }
        ph
    }

    /// Staged dY rows per cell row of a tile beyond the tile's own (`e_max − e_min`).
    pub fn reach(&self, i: usize) -> u64 {
        (self.emax[i] - self.emin[i]).max(0) as u64
    }
}
