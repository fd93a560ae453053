//! The direct CPU kernels: straight loops over output (fwd, wgrad) or input (dgrad) pixels
//! whose innermost loop runs over contiguous channels, so that depthwise and tiny-C/G problems
//! vectorise across the channel dimension. f32 accumulation; the weights are reordered once so
//! that the taps are outermost.
//!
//! `skip_last_tap` exists only for [`super::CpuVariant::PlantedWrong`]: it drops the last
//! filter tap, producing a deliberately wrong result.

use crate::geometry::Geom;
use rayon::prelude::*;

/// Reorders W (`G,K/G,T,C/G`) into `T,G,C/G,K/G` (fwd) or `T,G,K/G,C/G` (dgrad, wgrad).
fn taps_outer(g: &Geom, w: &[f32], cc_before_kk: bool) -> Vec<f32> {
    let mut out = vec![0.0f32; w.len()];
    for gi in 0..g.g {
        for kk in 0..g.kpg {
            for t in 0..g.taps {
                for cc in 0..g.cpg {
                    let inner = if cc_before_kk {
                        cc * g.kpg + kk
                    } else {
                        kk * g.cpg + cc
                    };
                    out[(t * g.g + gi) * g.kpg * g.cpg + inner] = w[g.w_offset(gi, kk, t, cc)];
                }
            }
        }
    }
    out
}

/// `acc[i] += a[i] * b[i]` over the common length.
#[inline]
fn fma_rows(acc: &mut [f32], a: &[f32], b: &[f32]) {
    for ((s, &x), &y) in acc.iter_mut().zip(a).zip(b) {
        *s += x * y;
    }
}

/// `acc[i] += s * b[i]`.
#[inline]
fn axpy(acc: &mut [f32], s: f32, b: &[f32]) {
    for (a, &y) in acc.iter_mut().zip(b) {
        *a += s * y;
    }
}

/// Forward into a zeroed `y`: one task per Y row (n, od, oh).
pub(crate) fn fwd(g: &Geom, x: &[f32], w: &[f32], y: &mut [f32], skip_last_tap: bool) {
    let wt = taps_outer(g, w, true);
    let per_tap = g.g * g.cpg * g.kpg;
    let depthwise = g.cpg == 1 && g.kpg == 1;
    let last = if skip_last_tap {
        g.taps - 1
    } else {
        usize::MAX
    };
    y.par_chunks_mut(g.output[2] * g.k)
        .enumerate()
        .for_each(|(row, yrow)| {
            let (n, od, oh) = Geom::split_row(row, g.output);
            for (ow, acc) in yrow.chunks_exact_mut(g.k).enumerate() {
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
                            let xin = &x[xo..xo + g.c];
                            let wtt = &wt[t * per_tap..(t + 1) * per_tap];
                            if depthwise {
                                fma_rows(acc, xin, wtt);
                                continue;
                            }
                            for gi in 0..g.g {
                                let a = &mut acc[gi * g.kpg..(gi + 1) * g.kpg];
                                for cc in 0..g.cpg {
                                    let r = (gi * g.cpg + cc) * g.kpg;
                                    axpy(a, xin[gi * g.cpg + cc], &wtt[r..r + g.kpg]);
                                }
                            }
                        }
                    }
                }
            }
        });
}

/// Backward data into a zeroed `dx`: one task per dX row (n, d, h), gathering over the
/// outputs that read each input position.
pub(crate) fn dgrad(g: &Geom, dy: &[f32], w: &[f32], dx: &mut [f32], skip_last_tap: bool) {
    let wd = taps_outer(g, w, false);
    let per_tap = g.g * g.cpg * g.kpg;
    let depthwise = g.cpg == 1 && g.kpg == 1;
    let last = if skip_last_tap {
        g.taps - 1
    } else {
        usize::MAX
    };
    dx.par_chunks_mut(g.input[2] * g.c)
        .enumerate()
        .for_each(|(row, dxrow)| {
            let (n, id, ih) = Geom::split_row(row, g.input);
            for (iw, acc) in dxrow.chunks_exact_mut(g.c).enumerate() {
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
                            let dyv = &dy[yo..yo + g.k];
                            let wdt = &wd[t * per_tap..(t + 1) * per_tap];
                            if depthwise {
                                fma_rows(acc, dyv, wdt);
                                continue;
                            }
                            for gi in 0..g.g {
                                let a = &mut acc[gi * g.cpg..(gi + 1) * g.cpg];
                                for kk in 0..g.kpg {
                                    let r = (gi * g.kpg + kk) * g.cpg;
                                    axpy(a, dyv[gi * g.kpg + kk], &wdt[r..r + g.cpg]);
                                }
                            }
                        }
                    }
                }
            }
        });
}

/// Adds the contribution of Y row (n, od, oh) to `acc` (layout `T,G,K/G,C/G`).
fn wgrad_row(g: &Geom, x: &[f32], dy: &[f32], row: usize, acc: &mut [f32], last: usize) {
    let per_tap = g.g * g.cpg * g.kpg;
    let depthwise = g.cpg == 1 && g.kpg == 1;
    let (n, od, oh) = Geom::split_row(row, g.output);
    for ow in 0..g.output[2] {
        let yo = g.y_pixel(n, od, oh, ow) * g.k;
        let dyv = &dy[yo..yo + g.k];
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
                    let xin = &x[xo..xo + g.c];
                    let at = &mut acc[t * per_tap..(t + 1) * per_tap];
                    if depthwise {
                        fma_rows(at, xin, dyv);
                        continue;
                    }
                    for gi in 0..g.g {
                        let xg = &xin[gi * g.cpg..(gi + 1) * g.cpg];
                        for kk in 0..g.kpg {
                            let r = (gi * g.kpg + kk) * g.cpg;
                            axpy(&mut at[r..r + g.cpg], dyv[gi * g.kpg + kk], xg);
                        }
                    }
                }
            }
        }
    }
}

/// Backward weight into `dw`: the Y rows are split among tasks, each summing into its own
/// f32 partial (one row at a time into a fresh row buffer, then added, which keeps the f32
/// summation error small), and the partials are added at the end.
pub(crate) fn wgrad(g: &Geom, x: &[f32], dy: &[f32], dw: &mut [f32], skip_last_tap: bool) {
    let size = dw.len();
    let last = if skip_last_tap {
        g.taps - 1
    } else {
        usize::MAX
    };
    let rows = g.n * g.output[0] * g.output[1];
    let min_len = (rows / (8 * rayon::current_num_threads())).max(1);
    let total = (0..rows)
        .into_par_iter()
        .with_min_len(min_len)
        .fold(
            || (vec![0.0f32; size], vec![0.0f32; size]),
            |(mut tot, mut rowacc), row| {
                rowacc.fill(0.0);
                wgrad_row(g, x, dy, row, &mut rowacc, last);
                for (a, r) in tot.iter_mut().zip(&rowacc) {
                    *a += r;
                }
                (tot, rowacc)
            },
        )
        .map(|(tot, _)| tot)
        .reduce(
            || vec![0.0f32; size],
            |mut a, b| {
                for (s, v) in a.iter_mut().zip(&b) {
                    *s += v;
                }
                a
            },
        );
    // `total` is T,G,K/G,C/G; dW is G,K/G,T,C/G.
    for gi in 0..g.g {
        for kk in 0..g.kpg {
            for t in 0..g.taps {
                let src = (t * g.g + gi) * g.kpg * g.cpg + kk * g.cpg;
                let dst = g.w_offset(gi, kk, t, 0);
                dw[dst..dst + g.cpg].copy_from_slice(&total[src..src + g.cpg]);
            }
        }
    }
}
