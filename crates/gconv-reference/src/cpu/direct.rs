//! The direct CPU kernels, vectorised across groups: X and dY are viewed (transposed once when
//! C/G or K/G exceeds 1) with the group index innermost, `pixel, c/g, G`, and the weights are
//! reordered to `tap, ·, ·, G`, so that every inner loop is an element-wise product of G-long
//! contiguous vectors. Per output element the taps (and the per-group channels) become a list
//! of (offset, offset) pairs reduced by [`simd::dot_pairs_add`] with register accumulators;
//! results are transposed back to the gconv layouts per pixel. f32 accumulation.
//!
//! This is the fast path for depthwise, channel-multiplier and tiny-C/G problems with many
//! groups (depthwise needs no transposes at all: G = C); it is correct for every problem.
//!
//! `skip_last_tap` exists only for [`super::CpuVariant::PlantedWrong`]: it drops the last
//! filter tap, producing a deliberately wrong result.

use super::simd;
use crate::geometry::Geom;
use rayon::prelude::*;
use std::borrow::Cow;

/// Views a tensor whose pixels hold `G, per` values as `per, G` (copying when `per > 1`).
fn group_minor(t: &[f32], groups: usize, per: usize) -> Cow<'_, [f32]> {
    if per == 1 || groups == 1 {
        return Cow::Borrowed(t);
    }
    let px = groups * per;
    let mut out = vec![0.0f32; t.len()];
    out.par_chunks_mut(px * 64)
        .zip(t.par_chunks(px * 64))
        .for_each(|(o, i)| {
            for (op, ip) in o.chunks_exact_mut(px).zip(i.chunks_exact(px)) {
                for gi in 0..groups {
                    for p in 0..per {
                        op[p * groups + gi] = ip[gi * per + p];
                    }
                }
            }
        });
    Cow::Owned(out)
}

/// Writes `acc` (`per, G`) into one pixel of a gconv tensor (`G, per`).
fn scatter_pixel(dst: &mut [f32], acc: &[f32], groups: usize, per: usize) {
    for gi in 0..groups {
        for p in 0..per {
            dst[gi * per + p] = acc[p * groups + gi];
        }
    }
}

/// Reorders W (`G,K/G,T,C/G`) into `T,C/G,K/G,G` (fwd) or `T,K/G,C/G,G` (dgrad).
fn weights_group_minor(g: &Geom, w: &[f32], cc_before_kk: bool) -> Vec<f32> {
    let mut out = vec![0.0f32; w.len()];
    for gi in 0..g.g {
        for kk in 0..g.kpg {
            for t in 0..g.taps {
                for cc in 0..g.cpg {
                    let mid = if cc_before_kk {
                        cc * g.kpg + kk
                    } else {
                        kk * g.cpg + cc
                    };
                    out[(t * g.cpg * g.kpg + mid) * g.g + gi] = w[g.w_offset(gi, kk, t, cc)];
                }
            }
        }
    }
    out
}

fn last_tap(g: &Geom, skip_last_tap: bool) -> usize {
    if skip_last_tap {
        g.taps - 1
    } else {
        usize::MAX
    }
}

/// Forward into a zeroed `y`: one task per Y row (n, od, oh).
///
/// `acc[kk][g] = Σ_{t, cc} Xt[i(o,t)][cc][g] · Wt[t][cc][kk][g]`.
pub(crate) fn fwd(g: &Geom, x: &[f32], w: &[f32], y: &mut [f32], skip_last_tap: bool) {
    let xt = group_minor(x, g.g, g.cpg);
    let wt = weights_group_minor(g, w, true);
    let last = last_tap(g, skip_last_tap);
    let direct_out = g.kpg == 1;
    y.par_chunks_mut(g.output[2] * g.k)
        .enumerate()
        .for_each(|(row, yrow)| {
            let (n, od, oh) = Geom::split_row(row, g.output);
            let mut pairs = Vec::with_capacity(g.taps * g.cpg);
            let mut acc = vec![0.0f32; if direct_out { 0 } else { g.k }];
            for (ow, ypx) in yrow.chunks_exact_mut(g.k).enumerate() {
                pairs.clear();
                for fz in 0..g.filter[0] {
                    let Some(id) = g.in_coord(0, od, fz) else {
                        continue;
                    };
                    for fy in 0..g.filter[1] {
                        let Some(ih) = g.in_coord(1, oh, fy) else {
                            continue;
                        };
                        for fx in 0..g.filter[2] {
                            let Some(iw) = g.in_coord(2, ow, fx) else {
                                continue;
                            };
                            let t = g.tap(fz, fy, fx);
                            if t == last {
                                continue;
                            }
                            let xo = g.x_pixel(n, id, ih, iw) * g.c;
                            for cc in 0..g.cpg {
                                pairs.push((xo + cc * g.g, (t * g.cpg + cc) * g.kpg * g.g));
                            }
                        }
                    }
                }
                if direct_out {
                    simd::dot_pairs_add(ypx, &xt, &wt, &pairs);
                } else {
                    acc.fill(0.0);
                    for kk in 0..g.kpg {
                        let out = &mut acc[kk * g.g..(kk + 1) * g.g];
                        simd::dot_pairs_add(out, &xt, &wt[kk * g.g..], &pairs);
                    }
                    scatter_pixel(ypx, &acc, g.g, g.kpg);
                }
            }
        });
}

/// Backward data into a zeroed `dx`: one task per dX row (n, d, h), gathering over the
/// outputs that read each input position.
///
/// `acc[cc][g] = Σ_{t, kk} dYt[o(i,t)][kk][g] · Wd[t][kk][cc][g]`.
pub(crate) fn dgrad(g: &Geom, dy: &[f32], w: &[f32], dx: &mut [f32], skip_last_tap: bool) {
    let dyt = group_minor(dy, g.g, g.kpg);
    let wd = weights_group_minor(g, w, false);
    let last = last_tap(g, skip_last_tap);
    let direct_out = g.cpg == 1;
    dx.par_chunks_mut(g.input[2] * g.c)
        .enumerate()
        .for_each(|(row, dxrow)| {
            let (n, id, ih) = Geom::split_row(row, g.input);
            let mut pairs = Vec::with_capacity(g.taps * g.kpg);
            let mut acc = vec![0.0f32; if direct_out { 0 } else { g.c }];
            for (iw, dxpx) in dxrow.chunks_exact_mut(g.c).enumerate() {
                pairs.clear();
                for fz in 0..g.filter[0] {
                    let Some(od) = g.out_coord(0, id, fz) else {
                        continue;
                    };
                    for fy in 0..g.filter[1] {
                        let Some(oh) = g.out_coord(1, ih, fy) else {
                            continue;
                        };
                        for fx in 0..g.filter[2] {
                            let Some(ow) = g.out_coord(2, iw, fx) else {
                                continue;
                            };
                            let t = g.tap(fz, fy, fx);
                            if t == last {
                                continue;
                            }
                            let yo = g.y_pixel(n, od, oh, ow) * g.k;
                            for kk in 0..g.kpg {
                                pairs.push((yo + kk * g.g, (t * g.kpg + kk) * g.cpg * g.g));
                            }
                        }
                    }
                }
                if direct_out {
                    simd::dot_pairs_add(dxpx, &dyt, &wd, &pairs);
                } else {
                    acc.fill(0.0);
                    for cc in 0..g.cpg {
                        let out = &mut acc[cc * g.g..(cc + 1) * g.g];
                        simd::dot_pairs_add(out, &dyt, &wd[cc * g.g..], &pairs);
                    }
                    scatter_pixel(dxpx, &acc, g.g, g.cpg);
                }
            }
        });
}

/// Adds the contribution of Y row (n, od, oh) to `acc` (layout `T,K/G,C/G,G`): per tap, the
/// (X, dY) pixel pairs of the row are reduced with register accumulators.
#[allow(clippy::too_many_arguments)]
fn wgrad_row(
    g: &Geom,
    xt: &[f32],
    dyt: &[f32],
    row: usize,
    acc: &mut [f32],
    pairs: &mut Vec<(usize, usize)>,
    last: usize,
) {
    let (n, od, oh) = Geom::split_row(row, g.output);
    for fz in 0..g.filter[0] {
        let Some(id) = g.in_coord(0, od, fz) else {
            continue;
        };
        for fy in 0..g.filter[1] {
            let Some(ih) = g.in_coord(1, oh, fy) else {
                continue;
            };
            for fx in 0..g.filter[2] {
                let t = g.tap(fz, fy, fx);
                if t == last {
                    continue;
                }
                pairs.clear();
                for ow in 0..g.output[2] {
                    if let Some(iw) = g.in_coord(2, ow, fx) {
                        pairs.push((
                            g.x_pixel(n, id, ih, iw) * g.c,
                            g.y_pixel(n, od, oh, ow) * g.k,
                        ));
                    }
                }
                for kk in 0..g.kpg {
                    for cc in 0..g.cpg {
                        let o = ((t * g.kpg + kk) * g.cpg + cc) * g.g;
                        simd::dot_pairs_add(
                            &mut acc[o..o + g.g],
                            &xt[cc * g.g..],
                            &dyt[kk * g.g..],
                            pairs,
                        );
                    }
                }
            }
        }
    }
}

/// Floats the backward weight's per-task buffers may take together (1 GiB).
const WGRAD_PARTIALS: usize = 1 << 28;

/// Backward weight into `dw`: the Y rows are split into one run per thread (fewer where the
/// runs' buffers would pass [`WGRAD_PARTIALS`]), each summing into its own f32 partial (one row
/// at a time into a fresh row buffer, then added, which keeps the f32 summation error small),
/// and the partials are added at the end in run order. Each run holds two dW-sized buffers, so
/// memory is bounded by the thread count, not by how rayon splits the rows.
///
/// `acc[t][kk][cc][g] = Σ_{n, o} Xt[i(o,t)][cc][g] · dYt[o][kk][g]`.
pub(crate) fn wgrad(g: &Geom, x: &[f32], dy: &[f32], dw: &mut [f32], skip_last_tap: bool) {
    let xt = group_minor(x, g.g, g.cpg);
    let dyt = group_minor(dy, g.g, g.kpg);
    let size = dw.len();
    let last = last_tap(g, skip_last_tap);
    let rows = g.n * g.output[0] * g.output[1];
    let runs = rayon::current_num_threads()
        .min(WGRAD_PARTIALS / (2 * size).max(1))
        .min(rows)
        .max(1);
    let per = rows.div_ceil(runs);
    let partials: Vec<Vec<f32>> = (0..runs)
        .into_par_iter()
        .map(|run| {
            let (mut tot, mut rowacc, mut pairs) =
                (vec![0.0f32; size], vec![0.0f32; size], Vec::new());
            for row in run * per..((run + 1) * per).min(rows) {
                rowacc.fill(0.0);
                wgrad_row(g, &xt, &dyt, row, &mut rowacc, &mut pairs, last);
                for (a, r) in tot.iter_mut().zip(&rowacc) {
                    *a += r;
                }
            }
            tot
        })
        .collect();
    let mut partials = partials.into_iter();
    let mut total = partials.next().unwrap_or_else(|| vec![0.0f32; size]);
    for p in partials {
        for (s, v) in total.iter_mut().zip(&p) {
            *s += v;
        }
    }
    // `total` is T,K/G,C/G,G; dW is G,K/G,T,C/G.
    for gi in 0..g.g {
        for kk in 0..g.kpg {
            for t in 0..g.taps {
                for cc in 0..g.cpg {
                    dw[g.w_offset(gi, kk, t, cc)] =
                        total[((t * g.kpg + kk) * g.cpg + cc) * g.g + gi];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_minor_transposes_each_pixel() {
        // Two pixels of G=3 groups × 2 values: (g, p) -> 10·g + p (+100 for pixel 1).
        let t: Vec<f32> = (0..2)
            .flat_map(|px| {
                (0..3).flat_map(move |g| (0..2).map(move |p| (100 * px + 10 * g + p) as f32))
            })
            .collect();
        let m = group_minor(&t, 3, 2);
        assert_eq!(&m[..6], &[0., 10., 20., 1., 11., 21.]);
        assert_eq!(&m[6..], &[100., 110., 120., 101., 111., 121.]);
        let mut back = vec![0.0; 6];
        scatter_pixel(&mut back, &m[..6], 3, 2);
        assert_eq!(back, t[..6]);
        assert!(matches!(group_minor(&t, 6, 1), Cow::Borrowed(_)));
    }
}
