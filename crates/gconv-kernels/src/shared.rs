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
    if v.is_power_of_two() {
        // Halving a power of two meets every smaller one: the first that divides `n` is the
        // cap or `n`'s own largest power-of-two factor, whichever is smaller (any, for n = 0),
        // found without a division per step (`auto` asks this three times per gated member).
        return if n == 0 {
            v
        } else {
            v.min(1 << n.trailing_zeros())
        };
    }
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
    split_degree_within(base_ctas, wave, k_tiles, z_other, MAX_SPLIT)
}

/// [`split_degree`] with `most` in place of [`MAX_SPLIT`] in the clamp: the cluster split
/// (`sk0c`) clamps to the portable cluster size, its slices being one cluster.
pub fn split_degree_within(
    base_ctas: u64,
    wave: u64,
    k_tiles: u64,
    z_other: u64,
    most: u32,
) -> u32 {
    let sized = (wave / base_ctas.max(1)).max(1);
    let clamped = sized
        .min(k_tiles.max(1))
        .min(65_535 / z_other.max(1))
        .min(most.clamp(1, MAX_SPLIT) as u64)
        .max(1);
    let per_slice = k_tiles.max(1).div_ceil(clamped);
    k_tiles.max(1).div_ceil(per_slice) as u32
}

/// Threads of one CTA of the deterministic split reduction (`split_reduce.cu`'s `_reduce`).
pub const REDUCE_THREADS: u64 = 256;

/// Threads the split reduction aims to have in flight: half of what the H200's 132 SMs hold
/// (2048 each).
pub const REDUCE_TARGET_THREADS: u64 = 132 * 1024;

/// Plane slices of the deterministic split reduction over `planes` f32 planes of `plane`
/// elements: each element is summed by `slices` threads of one CTA, thread `s` adding planes
/// `s, s + slices, …` in order, and the slices' sums are then added in slice order (a fixed
/// tree: bit-identical across runs). A power of two ≤ 32 and ≤ `planes`, the smallest that puts
/// [`REDUCE_TARGET_THREADS`] threads on the elements (`plane · slices`): 1 for large planes (one
/// thread per element, as a plain ordered sum), up to 32 for the small planes of depthwise
/// layers cut into many slabs, where one thread per element left a few CTAs summing hundreds
/// of planes each (15 µs of a 38 µs 3×3 layer on the H200, `results/h200/s12/README.md`).
pub fn reduce_slices(planes: u64, plane: u64) -> u64 {
    let want = REDUCE_TARGET_THREADS
        .div_ceil(plane.max(1))
        .next_power_of_two();
    let most = 1u64 << (planes.clamp(1, 32).ilog2());
    want.min(most).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A power-of-two cap's shortcut answers what halving the cap answers, for any `n` (0,
    /// odd, powers of two and their multiples, the largest) and any cap.
    #[test]
    fn largest_pow2_dividing_is_the_halving() {
        let halving = |n: u64, cap: u64| {
            let mut v = cap.max(1);
            while v > 1 && !n.is_multiple_of(v) {
                v /= 2;
            }
            v
        };
        for n in (0..300).chain([1 << 40, 3 << 20, u64::MAX, u64::MAX - 1]) {
            for cap in (0..70).chain([96, 128, 256, 1 << 20, 1 << 63]) {
                assert_eq!(largest_pow2_dividing(n, cap), halving(n, cap), "{n} {cap}");
            }
        }
    }

    #[test]
    fn reduce_slices_fill_the_device_within_the_planes() {
        // 256 planes of a depthwise 3x3 dW of 144 channels: 32 slices (the most).
        assert_eq!(reduce_slices(256, 1296), 32);
        // 41 planes of 3456 elements: 40 threads per element wanted → 64, capped at 32.
        assert_eq!(reduce_slices(41, 3456), 32);
        // 8 planes: at most 8 slices.
        assert_eq!(reduce_slices(8, 8640), 8);
        // Large planes keep one thread per element.
        assert_eq!(reduce_slices(8, 294_912), 1);
        assert_eq!(reduce_slices(4, 1 << 20), 1);
        // 3 planes: a power of two ≤ 3.
        assert_eq!(reduce_slices(3, 100), 2);
        assert_eq!(reduce_slices(1, 100), 1);
    }

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
        // the cluster split's clamp comes before the snap: 20 k-tiles at most 8 slices are
        // 7 slices of 3 (not 8 with an empty or short one)
        assert_eq!(split_degree_within(1, 10_000, 20, 1, 8), 7);
        assert_eq!(split_degree_within(66, 264, 10, 1, 8), 4);
    }
}
