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
