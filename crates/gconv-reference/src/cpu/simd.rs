//! Run-time CPU dispatch for the hot loops of the direct kernels: each function is compiled
//! twice, portable (SSE2 on x86-64) and with AVX2, and the AVX2 copy runs when the CPU has it.
//! The loops themselves are plain Rust that the compiler vectorises; nothing here changes the
//! arithmetic (no FMA contraction), so both copies give bit-identical results.

/// Defines `fn $name(args)` that calls `$imp(args)` compiled for AVX2 when available.
macro_rules! avx2_dispatch {
    ($(#[$m:meta])* $vis:vis fn $name:ident => $avx:ident, $imp:ident ($($arg:ident : $ty:ty),* $(,)?)) => {
        $(#[$m])*
        #[allow(clippy::too_many_arguments)]
        $vis fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked just above), the only requirement of
                // this target-feature function.
                return unsafe { $avx($($arg),*) };
            }
            $imp($($arg),*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        #[allow(clippy::too_many_arguments)]
        unsafe fn $avx($($arg: $ty),*) {
            $imp($($arg),*)
        }
    };
}

avx2_dispatch! {
    /// `out[l] += Σ_{(pa, pb) ∈ pairs} a[pa + l] · b[pb + l]` for every `l < out.len()`.
    ///
    /// The channel range is cut into blocks of 64/32/16/8 whose accumulators stay in registers
    /// across all pairs (the dot products over taps of depthwise convolutions).
    pub(crate) fn dot_pairs_add => dot_pairs_add_avx2, dot_pairs_add_impl(
        out: &mut [f32],
        a: &[f32],
        b: &[f32],
        pairs: &[(usize, usize)],
    )
}

#[inline(always)]
fn dot_pairs_add_impl(out: &mut [f32], a: &[f32], b: &[f32], pairs: &[(usize, usize)]) {
    let c = out.len();
    let mut cb = 0;
    while c - cb >= 64 {
        block::<64>(out, a, b, pairs, cb);
        cb += 64;
    }
    if c - cb >= 32 {
        block::<32>(out, a, b, pairs, cb);
        cb += 32;
    }
    if c - cb >= 16 {
        block::<16>(out, a, b, pairs, cb);
        cb += 16;
    }
    if c - cb >= 8 {
        block::<8>(out, a, b, pairs, cb);
        cb += 8;
    }
    if cb < c {
        // Fewer than 8 channels left: run 8 lanes wherever both inputs extend that far (the
        // extra lanes are discarded), scalar lanes otherwise; each kept lane sums the same
        // products in the same order either way.
        let w = c - cb;
        let mut acc = [0.0f32; 8];
        for &(pa, pb) in pairs {
            if pa + cb + 8 <= a.len() && pb + cb + 8 <= b.len() {
                let xa = &a[pa + cb..][..8];
                let xb = &b[pb + cb..][..8];
                for ((s, &u), &v) in acc.iter_mut().zip(xa).zip(xb) {
                    *s += u * v;
                }
            } else {
                let xa = &a[pa + cb..][..w];
                let xb = &b[pb + cb..][..w];
                for ((s, &u), &v) in acc.iter_mut().zip(xa).zip(xb) {
                    *s += u * v;
                }
            }
        }
        for (o, v) in out[cb..].iter_mut().zip(acc) {
            *o += v;
        }
    }
}

#[inline(always)]
fn block<const B: usize>(
    out: &mut [f32],
    a: &[f32],
    b: &[f32],
    pairs: &[(usize, usize)],
    cb: usize,
) {
    let mut acc = [0.0f32; B];
    for &(pa, pb) in pairs {
        let xa = &a[pa + cb..][..B];
        let xb = &b[pb + cb..][..B];
        for ((s, &u), &v) in acc.iter_mut().zip(xa).zip(xb) {
            *s += u * v;
        }
    }
    for (o, v) in out[cb..cb + B].iter_mut().zip(acc) {
        *o += v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_pairs_add_matches_a_scalar_loop_for_every_width() {
        for c in [1usize, 7, 8, 9, 16, 31, 64, 100, 129] {
            let a: Vec<f32> = (0..4 * c).map(|i| (i % 13) as f32 - 6.0).collect();
            let b: Vec<f32> = (0..3 * c).map(|i| (i % 7) as f32 * 0.5).collect();
            // The last pair ends exactly at the ends of `a` and `b` (tail lanes run scalar).
            let pairs = [(0, c), (2 * c, 0), (3 * c, 2 * c)];
            let mut out = vec![1.0f32; c];
            dot_pairs_add(&mut out, &a, &b, &pairs);
            for l in 0..c {
                let want: f32 = 1.0
                    + pairs
                        .iter()
                        .map(|&(pa, pb)| a[pa + l] * b[pb + l])
                        .sum::<f32>();
                assert_eq!(out[l], want, "width {c} lane {l}");
            }
        }
    }
}
