//! A typed view of a direct config: the direct family reuses [`KernelConfig`]'s field names
//! (which read as GEMM tiles) with meanings of its own; [`DirectView`] names them for what they
//! are, per math path, so that code and readers of this family never have to remember that
//! `tile_k` is a tile width or that `stages` means persistent (or, at 3, streaming over depth in
//! forward and backward data). It reads forward and
//! backward-data configs; backward-weight configs give their fields the meanings of their
//! kernel's table (`super::wgrad`: the slab kernel, `stages = 2`; `super::stream`: the
//! depthwise streaming kernel, `stages = 1`, where `vec_b` counts tap rows, not pixels).

use crate::config::{KernelConfig, Math};
use gconv_problem::Direction;

/// What a direct config's fields mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectView {
    /// Output pixels of a CTA tile, `TH × TW` (`tile_m`).
    pub tile_pixels: u32,
    /// `TW`, the tile width along W (`tile_k`); `TH = tile_pixels / tile_width`.
    pub tile_width: u32,
    /// `BN`, output channels of a CTA, whole (merged) groups (`tile_n`).
    pub tile_channels: u32,
    /// Warps of a CTA (`warps_m`; `warps_n` is 1).
    pub warps: u32,
    /// Persistent CTAs that walk several tiles with the next tile's halo in flight
    /// (`stages` = 2; 1 = one tile per CTA).
    pub persistent: bool,
    /// CTAs that walk one column of tiles over every output depth slice, staging each input
    /// slice once into a ring of FZ + 1 (forward and backward data with `stages` = 3, tensor
    /// cores, 3D; `common.cu`'s `walk_tiles`; a backward-weight `stages` = 3 is the register-
    /// pipelined tensor-core kernel instead, `super::wgrad_mma`).
    pub depth_stream: bool,
    /// Adjacent groups computed as one merged group with block-diagonal weights (`group_merge`;
    /// tensor-core path only).
    pub group_merge: u32,
    /// The per-thread (CUDA cores) or per-warp (tensor cores) work shape.
    pub work: DirectWork,
}

/// The work shape of a direct config, by math path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectWork {
    /// CUDA cores (`math = simt`): each thread computes `PY × pixels × channels` outputs.
    Simt {
        /// `VEC`, adjacent output channels per thread (`vec_a`, a power of two ≤ 8).
        channels: u32,
        /// `PX`, adjacent output pixels along W per thread (`vec_b`, 1..=8).
        pixels: u32,
    },
    /// Tensor cores (`math = mma`): a warp's unit is `NW` output channels × `MB` m16 blocks.
    Mma {
        /// Cap on `NW`, the channels of a warp unit (`vec_a`: 8, 16, 32 or 64).
        unit_channels_cap: u32,
        /// `MB`, m16 blocks (16 pixels each) of a warp unit (`vec_b`, 1..=8).
        unit_blocks: u32,
    },
}

impl DirectView {
    /// The view of a direct config (any field values; the rules decide what is valid).
    pub fn of(cfg: &KernelConfig) -> DirectView {
        DirectView {
            tile_pixels: cfg.tile_m,
            tile_width: cfg.tile_k,
            tile_channels: cfg.tile_n,
            warps: cfg.warps_m,
            persistent: cfg.stages == 2,
            depth_stream: cfg.stages == 3 && cfg.direction != Direction::Wgrad,
            group_merge: cfg.group_merge,
            work: if cfg.math == Math::Mma {
                DirectWork::Mma {
                    unit_channels_cap: cfg.vec_a,
                    unit_blocks: cfg.vec_b,
                }
            } else {
                DirectWork::Simt {
                    channels: cfg.vec_a,
                    pixels: cfg.vec_b,
                }
            },
        }
    }

    /// `TH`, output rows of a tile.
    pub fn tile_rows(&self) -> u32 {
        self.tile_pixels / self.tile_width.max(1)
    }
}

impl std::fmt::Display for DirectView {
    /// In words, e.g. `14x14 pixels x 32 channels, 7 warps, 2 channels x 7 pixels per thread`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{} pixels x {} channels, {} warps",
            self.tile_rows(),
            self.tile_width,
            self.tile_channels,
            self.warps
        )?;
        match self.work {
            DirectWork::Simt { channels, pixels } => {
                write!(f, ", {channels} channels x {pixels} pixels per thread")?
            }
            DirectWork::Mma {
                unit_channels_cap,
                unit_blocks,
            } => write!(
                f,
                ", warp units of up to {unit_channels_cap} channels x {unit_blocks} m16 blocks"
            )?,
        }
        if self.group_merge > 1 {
            write!(f, ", {} groups merged", self.group_merge)?;
        }
        if self.persistent {
            f.write_str(", persistent")?;
        }
        if self.depth_stream {
            f.write_str(", streaming over depth")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_names_the_fields() {
        let c: KernelConfig = "direct_fwd_bf16_t196x32x14_w7x1_s2_v2x7_gm1_sk1d_simt_gen"
            .parse()
            .unwrap();
        let v = DirectView::of(&c);
        assert_eq!((v.tile_rows(), v.tile_width, v.tile_channels), (14, 14, 32));
        assert!(v.persistent);
        assert_eq!(
            v.work,
            DirectWork::Simt {
                channels: 2,
                pixels: 7
            }
        );
        assert_eq!(
            v.to_string(),
            "14x14 pixels x 32 channels, 7 warps, 2 channels x 7 pixels per thread, persistent"
        );
        let m: KernelConfig = "direct_fwd_bf16_t224x64x28_w8x1_s1_v8x2_gm8_sk1d_mma_gen"
            .parse()
            .unwrap();
        assert_eq!(
            DirectView::of(&m).to_string(),
            "8x28 pixels x 64 channels, 8 warps, warp units of up to 8 channels x 2 m16 blocks, 8 groups merged"
        );
    }
}
