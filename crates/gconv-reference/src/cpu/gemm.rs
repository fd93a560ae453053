//! The lowering CPU kernels: per group, the convolution becomes one GEMM on
//! `matrixmultiply::sgemm` (f32, one thread per product), with the groups, and blocks of a few
//! groups' products, run as rayon tasks. Strided matrix views read the gconv layouts in place;
//! only the im2col matrix (or, for dgrad, the column gradient) is materialised, in blocks of
//! output pixels that bound the work buffer. 1×1 unit-stride unpadded problems skip the
//! lowering entirely.
//!
//! - fwd:   `Y_g[M, K/G]     = col_g[M, T·C/G] · W_gᵀ`            (M = N·Do·Ho·Wo)
//! - dgrad: `dcol_g[M, T·C/G] = dY_g[M, K/G] · W_g`, then col2im adds dcol into dX
//! - wgrad: `dW_g[K/G, T·C/G] += dY_gᵀ[K/G, M] · col_g[M, T·C/G]`, block by block
//!
//! The im2col row of output pixel m is laid out `G, T, C/G`, so group g's columns are one
//! contiguous run of `T·C/G` floats at offset `g·T·C/G` and its rows are `G·T·C/G` apart.

use crate::geometry::Geom;
use rayon::prelude::*;

/// Floats in one block of the im2col / column-gradient buffer (16 MiB).
pub(crate) const COL_BUDGET: usize = 1 << 22;

/// Channels per col2im task (tasks split the channel dimension, so they never write the same
/// dX element).
const SCATTER_CHANNELS: usize = 16;

/// A read-only strided matrix: element (r, c) is `data[off + r·rs + c·cs]`.
#[derive(Clone, Copy)]
struct MatRef<'a> {
    data: &'a [f32],
    off: usize,
    rs: usize,
    cs: usize,
}

/// A writable strided matrix over a buffer shared by tasks that write disjoint elements.
#[derive(Clone, Copy)]
struct MatMut {
    ptr: *mut f32,
    len: usize,
    off: usize,
    rs: usize,
    cs: usize,
}

// SAFETY: a `MatMut` is only a pointer and bounds; the functions of this module hand copies to
// concurrent tasks only when those tasks write disjoint elements (distinct groups, distinct
// row or column blocks of one group's product, or distinct channel ranges) of a buffer that
// outlives the tasks and is not otherwise accessed meanwhile.
unsafe impl Send for MatMut {}
// SAFETY: as above; shared references to a `MatMut` only copy its fields.
unsafe impl Sync for MatMut {}

impl MatMut {
    /// A view of the whole buffer (offset 0, strides to be set with [`MatMut::at`]).
    fn new(buf: &mut [f32]) -> MatMut {
        MatMut {
            ptr: buf.as_mut_ptr(),
            len: buf.len(),
            off: 0,
            rs: 0,
            cs: 0,
        }
    }

    /// The `len` elements starting at `start` of the underlying buffer.
    ///
    /// # Safety
    /// No other live reference may access those elements while the returned slice lives.
    unsafe fn run_mut<'a>(&self, start: usize, len: usize) -> &'a mut [f32] {
        // Guards the raw access; holds by construction (a failure is a bug, not a user error).
        assert!(start + len <= self.len, "MatMut: run out of bounds");
        // SAFETY: in bounds (assert above) of a live buffer; exclusivity is the caller's
        // contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), len) }
    }

    /// The matrix starting at `off` with row stride `rs` and column stride `cs`.
    fn at(self, off: usize, rs: usize, cs: usize) -> MatMut {
        MatMut {
            off,
            rs,
            cs,
            ..self
        }
    }
}

/// Elements spanned by a rows × cols matrix with the given strides (0 when empty).
fn extent(rows: usize, cols: usize, rs: usize, cs: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        (rows - 1) * rs + (cols - 1) * cs + 1
    }
}

/// `C = A·B + beta·C` with A m×k, B k×n, C m×n.
fn sgemm(m: usize, k: usize, n: usize, a: MatRef, b: MatRef, beta: f32, c: MatMut) {
    if m == 0 || n == 0 {
        return;
    }
    // These bounds guard the raw-pointer call below; they hold by construction for every
    // validated problem, so a failure is a bug in this module, never a user error.
    assert!(
        a.off + extent(m, k, a.rs, a.cs) <= a.data.len(),
        "sgemm: A out of bounds"
    );
    assert!(
        b.off + extent(k, n, b.rs, b.cs) <= b.data.len(),
        "sgemm: B out of bounds"
    );
    assert!(
        c.off + extent(m, n, c.rs, c.cs) <= c.len,
        "sgemm: C out of bounds"
    );
    // SAFETY: the asserts above keep every element matrixmultiply touches inside A, B and C;
    // A and B are live shared slices; C is live and the caller guarantees that no other task
    // reads or writes this C matrix's elements during the call. Strides fit in isize because
    // they are bounded by slice lengths.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.data.as_ptr().add(a.off),
            a.rs as isize,
            a.cs as isize,
            b.data.as_ptr().add(b.off),
            b.rs as isize,
            b.cs as isize,
            beta,
            c.ptr.add(c.off),
            c.rs as isize,
            c.cs as isize,
        );
    }
}

/// Multiply-adds below which a product is not cut into blocks.
const SPLIT_MACS: usize = 1 << 18;

/// `C_g = A_g·B_g + beta·C_g` for every group g, with A_g m×k, B_g k×n; `a`, `b`, `c` give
/// group g's views. The work runs as rayon tasks only: with fewer groups than about twice the
/// threads, each group's product is cut along the longer side of C into blocks of rows or
/// columns (disjoint parts of C), so that a dense layer uses every thread. matrixmultiply's
/// own thread pool is not used: it does not survive `fork()` (a process forked after a run
/// would wait forever on its first product), and the rayon pool the caller installs can be
/// replaced in a forked child.
#[allow(clippy::too_many_arguments)]
fn grouped_gemm<'a, 'b>(
    groups: usize,
    m: usize,
    k: usize,
    n: usize,
    a: impl Fn(usize) -> MatRef<'a> + Sync,
    b: impl Fn(usize) -> MatRef<'b> + Sync,
    c: impl Fn(usize) -> MatMut + Sync,
    beta: f32,
) {
    let tasks = 2 * rayon::current_num_threads();
    // Cut the longer side of C: rows (of A and C) or columns (of B and C).
    let long = m.max(n);
    let parts = if groups >= tasks || m * k * n < SPLIT_MACS {
        1
    } else {
        tasks.div_ceil(groups).min(long.div_ceil(8)).max(1)
    };
    let span = long.div_ceil(parts);
    let one = |task: usize| {
        let (gi, part) = (task / parts, task % parts);
        let i0 = part * span;
        let i1 = (i0 + span).min(long);
        if i0 >= i1 {
            return;
        }
        let (ag, bg, cg) = (a(gi), b(gi), c(gi));
        if m >= n {
            let ab = MatRef {
                off: ag.off + i0 * ag.rs,
                ..ag
            };
            let cb = cg.at(cg.off + i0 * cg.rs, cg.rs, cg.cs);
            sgemm(i1 - i0, k, n, ab, bg, beta, cb);
        } else {
            let bb = MatRef {
                off: bg.off + i0 * bg.cs,
                ..bg
            };
            let cb = cg.at(cg.off + i0 * cg.cs, cg.rs, cg.cs);
            sgemm(m, k, i1 - i0, ag, bb, beta, cb);
        }
    };
    if groups * parts == 1 {
        one(0);
    } else {
        (0..groups * parts).into_par_iter().for_each(one);
    }
}

/// Rows per block of a buffer of at most `budget` floats whose rows hold `row_len` floats.
fn block_rows(budget: usize, row_len: usize, total: usize) -> usize {
    (budget / row_len.max(1)).clamp(1, total.max(1))
}

/// Splits a flat output pixel index into (n, od, oh, ow).
fn split_out(g: &Geom, m: usize) -> (usize, usize, usize, usize) {
    let ow = m % g.output[2];
    let (n, od, oh) = Geom::split_row(m / g.output[2], g.output);
    (n, od, oh, ow)
}

/// Fills `col` (rows of `G·T·C/G` floats) with the im2col rows of output pixels `m0..`.
fn im2col(g: &Geom, x: &[f32], m0: usize, col: &mut [f32]) {
    let tc = g.taps * g.cpg;
    col.par_chunks_mut(g.g * tc)
        .enumerate()
        .with_min_len(16)
        .for_each(|(i, crow)| {
            let (n, od, oh, ow) = split_out(g, m0 + i);
            for fz in 0..g.filter[0] {
                let id = g.in_coord(0, od, fz);
                for fy in 0..g.filter[1] {
                    let ih = g.in_coord(1, oh, fy);
                    for fx in 0..g.filter[2] {
                        let iw = g.in_coord(2, ow, fx);
                        let t = g.tap(fz, fy, fx);
                        let src = match (id, ih, iw) {
                            (Some(d), Some(h), Some(w)) => {
                                let xo = g.x_pixel(n, d, h, w) * g.c;
                                Some(&x[xo..xo + g.c])
                            }
                            _ => None,
                        };
                        for gi in 0..g.g {
                            let dst = &mut crow[gi * tc + t * g.cpg..gi * tc + (t + 1) * g.cpg];
                            match src {
                                Some(s) => dst.copy_from_slice(&s[gi * g.cpg..(gi + 1) * g.cpg]),
                                None => dst.fill(0.0),
                            }
                        }
                    }
                }
            }
        });
}

/// Adds the column gradient `dcol` of output pixels `m0..m0+rows` into dX. Tasks own disjoint
/// channel ranges of dX.
fn col2im(g: &Geom, dcol: &[f32], m0: usize, rows: usize, dx: MatMut) {
    let tc = g.taps * g.cpg;
    let chunks_per_group = g.cpg.div_ceil(SCATTER_CHANNELS);
    (0..g.g * chunks_per_group)
        .into_par_iter()
        .for_each(|task| {
            let gi = task / chunks_per_group;
            let c0 = (task % chunks_per_group) * SCATTER_CHANNELS;
            let c1 = (c0 + SCATTER_CHANNELS).min(g.cpg);
            let width = c1 - c0;
            for i in 0..rows {
                let (n, od, oh, ow) = split_out(g, m0 + i);
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
                            let s = i * g.g * tc + gi * tc + t * g.cpg + c0;
                            let src = &dcol[s..s + width];
                            let d = g.x_pixel(n, id, ih, iw) * g.c + gi * g.cpg + c0;
                            // SAFETY: `d..d+width` lies in channel range [c0, c1) of group
                            // gi, which only this task writes, and `dst` is dropped before the
                            // next one is made, so no two live `&mut` alias.
                            let dst = unsafe { dx.run_mut(d, width) };
                            for (a, &v) in dst.iter_mut().zip(src) {
                                *a += v;
                            }
                        }
                    }
                }
            }
        });
}

/// Forward into `y`, lowering at most `budget` floats of im2col at a time.
pub(crate) fn fwd(g: &Geom, x: &[f32], w: &[f32], y: &mut [f32], budget: usize) {
    let tc = g.taps * g.cpg;
    let m_total = g.n * g.out_pixels();
    let yc = MatMut::new(y);
    // B_g[(t, cc), kk] = W[g, kk, t, cc].
    let wg = |gi: usize| MatRef {
        data: w,
        off: gi * g.kpg * tc,
        rs: 1,
        cs: tc,
    };
    if g.is_pointwise_unit() {
        // X itself is the im2col matrix: row m is pixel m.
        let xg = |gi: usize| MatRef {
            data: x,
            off: gi * g.cpg,
            rs: g.c,
            cs: 1,
        };
        let yg = |gi: usize| yc.at(gi * g.kpg, g.k, 1);
        grouped_gemm(g.g, m_total, tc, g.kpg, xg, wg, yg, 0.0);
        return;
    }
    let row = g.g * tc;
    let mb = block_rows(budget, row, m_total);
    let mut col = vec![0.0f32; mb * row];
    for m0 in (0..m_total).step_by(mb) {
        let rows = mb.min(m_total - m0);
        let col = &mut col[..rows * row];
        im2col(g, x, m0, col);
        let col = &*col;
        let colg = |gi: usize| MatRef {
            data: col,
            off: gi * tc,
            rs: row,
            cs: 1,
        };
        let yg = |gi: usize| yc.at(m0 * g.k + gi * g.kpg, g.k, 1);
        grouped_gemm(g.g, rows, tc, g.kpg, colg, wg, yg, 0.0);
    }
}

/// Backward data into a zeroed `dx`, at most `budget` floats of column gradient at a time.
pub(crate) fn dgrad(g: &Geom, dy: &[f32], w: &[f32], dx: &mut [f32], budget: usize) {
    let tc = g.taps * g.cpg;
    let m_total = g.n * g.out_pixels();
    let dxc = MatMut::new(dx);
    // B_g[kk, (t, cc)] = W[g, kk, t, cc].
    let wg = |gi: usize| MatRef {
        data: w,
        off: gi * g.kpg * tc,
        rs: tc,
        cs: 1,
    };
    if g.is_pointwise_unit() {
        let dyg = |gi: usize| MatRef {
            data: dy,
            off: gi * g.kpg,
            rs: g.k,
            cs: 1,
        };
        let dxg = |gi: usize| dxc.at(gi * g.cpg, g.c, 1);
        grouped_gemm(g.g, m_total, g.kpg, tc, dyg, wg, dxg, 0.0);
        return;
    }
    let row = g.g * tc;
    let mb = block_rows(budget, row, m_total);
    let mut dcol = vec![0.0f32; mb * row];
    for m0 in (0..m_total).step_by(mb) {
        let rows = mb.min(m_total - m0);
        let dcol = &mut dcol[..rows * row];
        let dcolc = MatMut::new(dcol);
        let dyg = |gi: usize| MatRef {
            data: dy,
            off: m0 * g.k + gi * g.kpg,
            rs: g.k,
            cs: 1,
        };
        let dcolg = |gi: usize| dcolc.at(gi * tc, row, 1);
        grouped_gemm(g.g, rows, g.kpg, tc, dyg, wg, dcolg, 0.0);
        col2im(g, dcol, m0, rows, dxc);
    }
}

/// Backward weight into a zeroed `dw`, accumulated block by block (beta = 1) over blocks of at
/// most `budget` floats of im2col.
pub(crate) fn wgrad(g: &Geom, x: &[f32], dy: &[f32], dw: &mut [f32], budget: usize) {
    let tc = g.taps * g.cpg;
    let m_total = g.n * g.out_pixels();
    let dwc = MatMut::new(dw);
    // C_g[kk, (t, cc)] = dW[g, kk, t, cc].
    let dwg = |gi: usize| dwc.at(gi * g.kpg * tc, tc, 1);
    if g.is_pointwise_unit() {
        let dyt = |gi: usize| MatRef {
            data: dy,
            off: gi * g.kpg,
            rs: 1,
            cs: g.k,
        };
        let xg = |gi: usize| MatRef {
            data: x,
            off: gi * g.cpg,
            rs: g.c,
            cs: 1,
        };
        grouped_gemm(g.g, g.kpg, m_total, tc, dyt, xg, dwg, 1.0);
        return;
    }
    let row = g.g * tc;
    let mb = block_rows(budget, row, m_total);
    let mut col = vec![0.0f32; mb * row];
    for m0 in (0..m_total).step_by(mb) {
        let rows = mb.min(m_total - m0);
        let col = &mut col[..rows * row];
        im2col(g, x, m0, col);
        let col = &*col;
        let dyt = |gi: usize| MatRef {
            data: dy,
            off: m0 * g.k + gi * g.kpg,
            rs: 1,
            cs: g.k,
        };
        let colg = |gi: usize| MatRef {
            data: col,
            off: gi * tc,
            rs: row,
            cs: 1,
        };
        grouped_gemm(g.g, g.kpg, rows, tc, dyt, colg, dwg, 1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::reference;
    use gconv_problem::tensor::SplitMix64;
    use gconv_problem::{Direction, Problem};

    /// Runs the GEMM path with a budget of a few im2col rows, so that a small problem crosses
    /// many block boundaries (ragged last block included), and compares with the reference.
    #[test]
    fn small_blocks_match_the_reference() {
        let keys = [
            "fwd_f32_n2_g3_c12_k6_i5x7_f3x2_s2x1_p1x1_d1x2",
            "fwd_f32_n1_g1_c5_k3_i3x4x5_f2x3x2_s1x2x1_p1x1x0_d2x1x1",
            "fwd_f32_n3_g2_c6_k4_i11_f3_s3_p2_d1",
        ];
        let mut rng = SplitMix64::new(5);
        for key in keys {
            let base: Problem = key.parse().unwrap();
            for dir in Direction::ALL {
                let p = base.with_direction(dir);
                let g = Geom::new(&p);
                let ([r0, r1], out) = dir.roles();
                let a: Vec<f64> = (0..p.elements(r0))
                    .map(|_| rng.next_signed_unit())
                    .collect();
                let b: Vec<f64> = (0..p.elements(r1))
                    .map(|_| rng.next_signed_unit())
                    .collect();
                let want = reference(&p, &a, &b).unwrap();
                let a32: Vec<f32> = a.iter().map(|&v| v as f32).collect();
                let b32: Vec<f32> = b.iter().map(|&v| v as f32).collect();
                for rows in [1, 3, 7] {
                    let budget = rows * g.g * g.taps * g.cpg;
                    let mut got = vec![0.0f32; p.elements(out) as usize];
                    match dir {
                        Direction::Fwd => fwd(&g, &a32, &b32, &mut got, budget),
                        Direction::Dgrad => dgrad(&g, &a32, &b32, &mut got, budget),
                        Direction::Wgrad => wgrad(&g, &a32, &b32, &mut got, budget),
                    }
                    let err = got
                        .iter()
                        .zip(&want)
                        .map(|(&x, &y)| (x as f64 - y).abs())
                        .fold(0.0, f64::max);
                    assert!(err < 1e-4, "{p} rows/block {rows}: max abs err {err}");
                }
            }
        }
    }

    #[test]
    fn block_rows_bounds_the_buffer() {
        assert_eq!(block_rows(100, 10, 1000), 10);
        assert_eq!(block_rows(100, 10, 4), 4);
        assert_eq!(block_rows(5, 10, 1000), 1);
        assert_eq!(extent(3, 4, 10, 1), 24);
        assert_eq!(extent(0, 4, 10, 1), 0);
    }
}
