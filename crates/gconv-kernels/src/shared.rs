//! Arithmetic and limits every family's rules use (a leaf module: it imports nothing of the
//! crate, so families and admission can both depend on it).

/// Largest group merge any family accepts (a power of two).
pub const MAX_GROUP_MERGE: u32 = 16;

/// True when `v` is a power of two in `lo..=hi`.
pub fn pow2_in(v: u32, lo: u32, hi: u32) -> bool {
    v.is_power_of_two() && v >= lo && v <= hi
}

/// The largest power of two ≤ `cap` (at least 1) that divides `n`.
pub fn largest_pow2_dividing(n: u64, cap: u64) -> u64 {
    let mut v = cap.max(1);
    while v > 1 && !n.is_multiple_of(v) {
        v /= 2;
    }
    v
}

/// Largest split-K degree (reduction slices) any family accepts.
pub const MAX_SPLIT: u32 = 64;

/// The split-K degree rule, used when a config leaves the degree to the rule (`split_k = 0`,
/// printed `sk0`). Groups-aware: `base_ctas` is the whole grid of one slice (tiles × group
/// blocks), `wave` the CTAs of one full wave on the device. In this order:
///
/// 1. **size**: the most slices whose grid still fits one wave, `⌊wave / base_ctas⌋` (at
///    least 1; a grid that fills the device alone gets 1);
/// 2. **clamp**: to `k_tiles` (every slice reduces at least one k-tile), to the gridDim.z
///    limit `65535 / z_other` (`z_other`: the group blocks sharing z) and to [`MAX_SPLIT`];
/// 3. **snap**: down to `⌈k_tiles / ⌈k_tiles / d⌉⌉`, the fewest slices with the same k-tiles
///    per slice, so that no slice is empty or short by more than one tile. Snapping only
///    lowers the degree, so it cannot undo a clamp (the reverse order can, seed 002).
pub fn split_degree(base_ctas: u64, wave: u64, k_tiles: u64, z_other: u64) -> u32 {
    let sized = (wave / base_ctas.max(1)).max(1);
    let clamped = sized
        .min(k_tiles.max(1))
        .min(65_535 / z_other.max(1))
        .min(MAX_SPLIT as u64)
        .max(1);
    let per_slice = k_tiles.max(1).div_ceil(clamped);
    k_tiles.max(1).div_ceil(per_slice) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_degree_sizes_from_the_whole_grid_then_clamps_then_snaps() {
        // 18 CTAs per slice, a wave of 264: 14 slices fit; 100 k-tiles → 8 per slice → 13.
        assert_eq!(split_degree(18, 264, 100, 2), 13);
        // The groups are part of the grid: 960 group blocks fill the device alone.
        assert_eq!(split_degree(960, 264, 1000, 960), 1);
        // Clamped to the k-tiles first: 3 k-tiles give at most 3 slices.
        assert_eq!(split_degree(1, 264, 3, 1), 3);
        // Clamped to the gridDim.z limit, then snapped (never back above the clamp).
        let d = split_degree(1, 100_000, 1_000_000, 2048);
        assert!(d as u64 <= 65_535 / 2048, "{d}");
        // Snapping removes the short last slice: 10 k-tiles, 4 wanted → 3 per slice → 4;
        // 7 wanted → 2 per slice → 5.
        assert_eq!(split_degree(66, 264, 10, 1), 4);
        assert_eq!(split_degree(36, 264, 10, 1), 5);
        assert_eq!(split_degree(1, 10_000, 10_000, 1), MAX_SPLIT);
    }
}
