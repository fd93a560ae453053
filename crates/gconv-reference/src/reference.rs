//! The CPU reference convolution, ground truth of the project: all three directions, ranks 1–3
//! (as 3D through the neutral leading slots), groups, stride, padding and dilation, in the
//! gconv layouts (`gconv_problem` module docs), accumulating in f64. Straight loops that follow
//! the definitions; only the outer loop is parallel (rayon, one task per output row), so every
//! output element is one sequential f64 sum in a fixed order.
//!
//! Definitions (per group g, with `i = o·stride + f·dilation − pad` per axis, padding reads 0):
//! - fwd:   `Y[n,o,g,kk]  = Σ_{f,cc}   X[n,i(o,f),g,cc] · W[g,kk,f,cc]`
//! - dgrad: `dX[n,i,g,cc] = Σ_{f,kk}   dY[n,o,g,kk]     · W[g,kk,f,cc]` over (o, f) with i(o,f) = i
//! - wgrad: `dW[g,kk,f,cc] = Σ_{n,o}   X[n,i(o,f),g,cc] · dY[n,o,g,kk]`

use crate::error::{check_problem, runner_name, try_zeroed, RefError};
use crate::geometry::Geom;
use gconv_problem::{Direction, HostTensor, Problem};
use rayon::prelude::*;

/// Checks that `data` has the element count of `role` in `problem`.
pub(crate) fn check_len(
    problem: &Problem,
    role: gconv_problem::TensorRole,
    got: usize,
) -> Result<(), RefError> {
    let expected = problem.elements(role);
    if u64::try_from(got).ok() != Some(expected) {
        return Err(RefError::Length {
            tensor: runner_name(problem.direction, role),
            problem: problem.to_string(),
            expected,
            got,
        });
    }
    Ok(())
}

/// Runs the reference: `in0`, `in1` are the runner inputs in `problem.direction.roles()` order
/// (fwd: X, W; dgrad: dY, W; wgrad: X, dY); the result is the output tensor (fwd Y, dgrad dX,
/// wgrad dW) in its layout.
///
/// Errors: [`RefError::Invalid`] for a hand-built problem that validation rejects,
/// [`RefError::Length`] when an input has the wrong element count, [`RefError::TooLarge`] when
/// the output cannot be allocated.
pub fn reference(problem: &Problem, in0: &[f64], in1: &[f64]) -> Result<Vec<f64>, RefError> {
    check_problem(problem)?;
    let ([r0, r1], out_role) = problem.direction.roles();
    check_len(problem, r0, in0.len())?;
    check_len(problem, r1, in1.len())?;
    let what = match problem.direction {
        Direction::Fwd => "output Y",
        Direction::Dgrad => "output dX",
        Direction::Wgrad => "output dW",
    };
    let mut out = try_zeroed::<f64>(problem.elements(out_role), what, problem)?;
    let g = Geom::new(problem);
    match problem.direction {
        Direction::Fwd => fwd(&g, in0, in1, &mut out),
        Direction::Dgrad => dgrad(&g, in0, in1, &mut out),
        Direction::Wgrad => wgrad(&g, in0, in1, &mut out),
    }
    Ok(out)
}

/// [`reference()`] on host tensors of any dtype (widened to f64 first).
pub fn reference_tensors(
    problem: &Problem,
    in0: &HostTensor,
    in1: &HostTensor,
) -> Result<Vec<f64>, RefError> {
    check_problem(problem)?;
    let ([r0, r1], _) = problem.direction.roles();
    // Check before widening so that a wrong tensor costs no copy.
    check_len(problem, r0, in0.len())?;
    check_len(problem, r1, in1.len())?;
    reference(problem, &in0.to_f64(), &in1.to_f64())
}

/// Forward: one task per Y row (n, od, oh). For each output pixel the taps that land inside X
/// are listed once (X pixel, tap); every output element then sums over that list.
fn fwd(g: &Geom, x: &[f64], w: &[f64], y: &mut [f64]) {
    let row_len = g.output[2] * g.k;
    y.par_chunks_mut(row_len)
        .enumerate()
        .for_each(|(row, yrow)| {
            let (n, od, oh) = Geom::split_row(row, g.output);
            let mut taps: Vec<(usize, usize)> = Vec::with_capacity(g.taps);
            for ow in 0..g.output[2] {
                taps.clear();
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
                            taps.push((g.x_pixel(n, id, ih, iw), g.tap(fz, fy, fx)));
                        }
                    }
                }
                for gi in 0..g.g {
                    for kk in 0..g.kpg {
                        let mut acc = 0.0f64;
                        for &(px, t) in &taps {
                            let xo = px * g.c + gi * g.cpg;
                            let wo = g.w_offset(gi, kk, t, 0);
                            for cc in 0..g.cpg {
                                acc += x[xo + cc] * w[wo + cc];
                            }
                        }
                        yrow[ow * g.k + gi * g.kpg + kk] = acc;
                    }
                }
            }
        });
}

/// Backward data: one task per dX row (n, d, h); a direct gather over the outputs that read
/// each input position, listed once per input pixel as (Y pixel, tap).
fn dgrad(g: &Geom, dy: &[f64], w: &[f64], dx: &mut [f64]) {
    let row_len = g.input[2] * g.c;
    dx.par_chunks_mut(row_len)
        .enumerate()
        .for_each(|(row, dxrow)| {
            let (n, id, ih) = Geom::split_row(row, g.input);
            let mut taps: Vec<(usize, usize)> = Vec::with_capacity(g.taps);
            for iw in 0..g.input[2] {
                taps.clear();
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
                            taps.push((g.y_pixel(n, od, oh, ow), g.tap(fz, fy, fx)));
                        }
                    }
                }
                for gi in 0..g.g {
                    for cc in 0..g.cpg {
                        let mut acc = 0.0f64;
                        for &(px, t) in &taps {
                            let yo = px * g.k + gi * g.kpg;
                            for kk in 0..g.kpg {
                                acc += dy[yo + kk] * w[g.w_offset(gi, kk, t, cc)];
                            }
                        }
                        dxrow[iw * g.c + gi * g.cpg + cc] = acc;
                    }
                }
            }
        });
}

/// Backward weight. dW is split into rows (g, kk) of `T·C/G` elements and the rows into a few
/// contiguous ranges, one task each (a range reads adjacent channels of X and dY, so a pass over
/// the tensors serves many rows). Each task walks every image and output position once and adds
/// `X · dY` into each tap that lands inside X, so each dW element is the sum over
/// (n, od, oh, ow) in that order, whatever the number of tasks.
fn wgrad(g: &Geom, x: &[f64], dy: &[f64], dw: &mut [f64]) {
    let row_len = g.taps * g.cpg;
    let rows_per_task = (g.g * g.kpg).div_ceil(4 * rayon::current_num_threads());
    dw.par_chunks_mut(rows_per_task.max(1) * row_len)
        .enumerate()
        .for_each(|(task, acc)| {
            let r0 = task * rows_per_task;
            let rows = acc.len() / row_len;
            for n in 0..g.n {
                for od in 0..g.output[0] {
                    for oh in 0..g.output[1] {
                        for ow in 0..g.output[2] {
                            let yo = g.y_pixel(n, od, oh, ow) * g.k;
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
                                        let xp = g.x_pixel(n, id, ih, iw) * g.c;
                                        let t = g.tap(fz, fy, fx);
                                        // dW row r0 + r is (g, kk) = divmod(r0 + r, K/G),
                                        // which is also dY's channel index g·K/G + kk.
                                        let (mut gi, mut kk) = (r0 / g.kpg, r0 % g.kpg);
                                        for r in 0..rows {
                                            let d = dy[yo + r0 + r];
                                            let xs = &x[xp + gi * g.cpg..][..g.cpg];
                                            let a = &mut acc[(r * g.taps + t) * g.cpg..][..g.cpg];
                                            for (av, &xv) in a.iter_mut().zip(xs) {
                                                *av += xv * d;
                                            }
                                            kk += 1;
                                            if kk == g.kpg {
                                                kk = 0;
                                                gi += 1;
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use gconv_problem::tensor::SplitMix64;
    use gconv_problem::{DType, TensorRole};

    fn prob(key: &str) -> Problem {
        key.parse().unwrap_or_else(|e| panic!("{key}: {e}"))
    }

    fn run(key: &str, a: &[f64], b: &[f64]) -> Vec<f64> {
        reference(&prob(key), a, b).unwrap()
    }

    // ---- hand-checked cases -------------------------------------------------------------

    #[test]
    fn fwd_1d_three_taps_pad_one() {
        // Y[o] = X[o-1]·1 + X[o]·2 + X[o+1]·3 with zero padding.
        let y = run(
            "fwd_f32_n1_g1_c1_k1_i4_f3_s1_p1_d1",
            &[1., 2., 3., 4.],
            &[1., 2., 3.],
        );
        assert_eq!(y, vec![8., 14., 20., 11.]);
    }

    #[test]
    fn fwd_2d_3x3_stride_2() {
        // X = 1..9 in a 3×3 image, W has 1 at (0,0), 10 at the centre, 2 at (2,2); pad 1,
        // stride 2 → 2×2 output centred on the four corners of X.
        let x: Vec<f64> = (1..=9).map(f64::from).collect();
        let w = [1., 0., 0., 0., 10., 0., 0., 0., 2.];
        let y = run("fwd_f32_n1_g1_c1_k1_i3x3_f3x3_s2x2_p1x1_d1x1", &x, &w);
        // (0,0): 10·1 + 2·5 = 20; (0,1): 10·3 = 30; (1,0): 10·7 = 70; (1,1): 1·5 + 10·9 = 95.
        assert_eq!(y, vec![20., 30., 70., 95.]);
    }

    #[test]
    fn fwd_1d_dilation() {
        // Extent 4: Y[o] = X[o]·1 + X[o+3]·10.
        let y = run(
            "fwd_f32_n1_g1_c1_k1_i5_f2_s1_p0_d3",
            &[1., 2., 3., 4., 5.],
            &[1., 10.],
        );
        assert_eq!(y, vec![41., 52.]);
    }

    #[test]
    fn fwd_two_groups() {
        // G=2, C=4 (2 per group), K=2 (1 per group), width 2, 2 taps, no pad → width 1.
        // X[w][g][cc]: w0 = [1,2 | 3,4], w1 = [5,6 | 7,8].
        // W[g][k][t][cc]: g0 = t0 [1,0], t1 [0,1]; g1 = t0 [2,0], t1 [0,-1].
        let x = [1., 2., 3., 4., 5., 6., 7., 8.];
        let w = [1., 0., 0., 1., 2., 0., 0., -1.];
        let y = run("fwd_f32_n1_g2_c4_k2_i2_f2_s1_p0_d1", &x, &w);
        // g0: 1·1 + 6·1 = 7; g1: 3·2 + 8·(-1) = -2.
        assert_eq!(y, vec![7., -2.]);
    }

    #[test]
    fn fwd_channels_and_batch() {
        // N=2, C=2, K=2, one pixel, 1×1 filter: Y = W·X per image.
        // W[k][cc] = [[1,2],[3,4]].
        let y = run(
            "fwd_f32_n2_g1_c2_k2_i1_f1_s1_p0_d1",
            &[1., -1., 2., 0.5],
            &[1., 2., 3., 4.],
        );
        assert_eq!(y, vec![-1., -1., 3., 8.]);
    }

    #[test]
    fn dgrad_1d_pad_one() {
        // dX[i] = Σ_o dY[o]·W[i-o+1], the transpose of fwd_1d_three_taps_pad_one.
        let dx = run(
            "dgrad_f32_n1_g1_c1_k1_i4_f3_s1_p1_d1",
            &[1., -1., 0., 2.],
            &[1., 2., 3.],
        );
        assert_eq!(dx, vec![1., 1., -1., 4.]);
    }

    #[test]
    fn dgrad_1d_stride_two() {
        // Input 5, 3 taps, stride 2, pad 1 → 3 outputs reading i = 2o + t - 1.
        // dX[0] = dY0·W1; dX[1] = dY0·W2 + dY1·W0; dX[2] = dY1·W1; dX[3] = dY1·W2 + dY2·W0;
        // dX[4] = dY2·W1.
        let dx = run(
            "dgrad_f32_n1_g1_c1_k1_i5_f3_s2_p1_d1",
            &[1., 2., 3.],
            &[1., 2., 3.],
        );
        assert_eq!(dx, vec![2., 5., 4., 9., 6.]);
    }

    #[test]
    fn dgrad_two_groups_channel_multiplier() {
        // G=2, C=2, K=4 (multiplier 2), one pixel, 1×1: dX[g] = Σ_kk dY[g,kk]·W[g,kk].
        let dx = run(
            "dgrad_f32_n1_g2_c2_k4_i1_f1_s1_p0_d1",
            &[1., 2., 3., 4.],
            &[10., 100., -1., 2.],
        );
        assert_eq!(dx, vec![210., 5.]);
    }

    #[test]
    fn wgrad_1d_pad_one() {
        // dW[t] = Σ_o X[o+t-1]·dY[o] with X = [1,2,3,4], dY = [1,-1,0,2].
        let dw = run(
            "wgrad_f32_n1_g1_c1_k1_i4_f3_s1_p1_d1",
            &[1., 2., 3., 4.],
            &[1., -1., 0., 2.],
        );
        assert_eq!(dw, vec![5., 7., -1.]);
    }

    #[test]
    fn wgrad_2d_stride_two_two_groups() {
        // G=2 depthwise, 2×2 input, 1×1 filter, stride 2 → one output pixel per image (0,0);
        // N=2: dW[g] = Σ_n X[n,0,0,g]·dY[n,0,0,g].
        // X[n][h][w][g]: image 0 = [1,2, 3,4, 5,6, 7,8]; image 1 = all 10·(first).
        let mut x: Vec<f64> = (1..=8).map(f64::from).collect();
        x.extend((1..=8).map(|v| 10.0 * f64::from(v)));
        let dy = [1., -1., 0.5, 2.];
        let dw = run("wgrad_f32_n2_g2_c2_k2_i2x2_f1x1_s2x2_p0x0_d1x1", &x, &dy);
        // g0: 1·1 + 10·0.5 = 6; g1: 2·(-1) + 20·2 = 38.
        assert_eq!(dw, vec![6., 38.]);
    }

    #[test]
    fn three_d_sums_a_cube() {
        // 3×3×3 input of ones, 3×3×3 filter of ones, pad 1: corner outputs see 8 voxels,
        // the centre 27.
        let p = prob("fwd_f32_n1_g1_c1_k1_i3x3x3_f3x3x3_s1x1x1_p1x1x1_d1x1x1");
        let y = reference(&p, &[1.0; 27], &[1.0; 27]).unwrap();
        assert_eq!(y[0], 8.0);
        assert_eq!(y[13], 27.0);
        assert_eq!(y[1], 12.0); // edge-centre of a face row: 2·2·3
        assert_eq!(y[4], 18.0); // face centre: 2·3·3
    }

    #[test]
    fn length_errors_name_the_tensor() {
        let p = prob("dgrad_f32_n1_g1_c1_k1_i4_f3_s1_p1_d1");
        let e = reference(&p, &[0.0; 3], &[0.0; 3]).unwrap_err();
        assert_eq!(
            e,
            RefError::Length {
                tensor: "dY",
                problem: p.to_string(),
                expected: 4,
                got: 3
            }
        );
        let msg = e.to_string();
        assert!(
            msg.contains("dY") && msg.contains('3') && msg.contains('4'),
            "{msg}"
        );
        let e = reference(&p, &[0.0; 4], &[0.0; 2]).unwrap_err();
        assert!(matches!(
            e,
            RefError::Length {
                tensor: "W",
                expected: 3,
                got: 2,
                ..
            }
        ));
        let e = reference(&Problem { g: 0, ..p }, &[0.0; 4], &[0.0; 3]).unwrap_err();
        assert!(matches!(e, RefError::Invalid { .. }), "{e}");
        let t = HostTensor::zeros(DType::Bf16, 5);
        let e = reference_tensors(&p.with_direction(Direction::Wgrad), &t, &t).unwrap_err();
        assert!(matches!(
            e,
            RefError::Length {
                tensor: "X",
                expected: 4,
                got: 5,
                ..
            }
        ));
    }

    #[test]
    fn tensors_are_widened_exactly() {
        let p = prob("fwd_bf16_n1_g1_c1_k1_i4_f3_s1_p1_d1");
        let x = HostTensor::from_f64(DType::Bf16, &[1., 2., 3., 4.]);
        let w = HostTensor::from_f64(DType::Bf16, &[1., 2., 3.]);
        assert_eq!(
            reference_tensors(&p, &x, &w).unwrap(),
            vec![8., 14., 20., 11.]
        );
    }

    // ---- identities ---------------------------------------------------------------------

    fn random(len: u64, rng: &mut SplitMix64) -> Vec<f64> {
        (0..len).map(|_| rng.next_signed_unit()).collect()
    }

    fn dot(a: &[f64], b: &[f64]) -> (f64, f64) {
        assert_eq!(a.len(), b.len());
        let s = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let abs = a.iter().zip(b).map(|(x, y)| (x * y).abs()).sum();
        (s, abs)
    }

    /// Random valid problems covering ranks 1–3, groups, strides, pads and dilations, plus a
    /// fixed list of regimes that must always be present.
    fn identity_problems() -> Vec<Problem> {
        let mut v: Vec<Problem> = [
            // depthwise 2D, stride 2
            "fwd_f32_n2_g6_c6_k6_i7x6_f3x3_s2x2_p1x1_d1x1",
            // channel multiplier 3
            "fwd_f32_n1_g4_c4_k12_i5x5_f3x3_s1x1_p1x1_d1x1",
            // stride larger than the filter
            "fwd_f32_n2_g2_c4_k6_i9x8_f2x2_s3x4_p0x1_d1x1",
            // large pad and dilation
            "fwd_f32_n1_g3_c6_k3_i5x4_f3x2_s1x2_p3x2_d2x3",
            // 1D, N=1
            "fwd_f32_n1_g1_c3_k5_i11_f4_s2_p2_d2",
            // 3D grouped
            "fwd_f32_n2_g2_c4_k4_i4x5x3_f3x2x3_s2x1x1_p1x0x1_d1x2x1",
            // 1x1 strided dense
            "fwd_f32_n3_g1_c5_k7_i6x5_f1x1_s2x2_p0x0_d1x1",
        ]
        .iter()
        .map(|k| prob(k))
        .collect();
        let mut rng = SplitMix64::new(2024);
        let mut pick = |lo: u64, hi: u64| lo + rng.next_u64() % (hi - lo + 1);
        while v.len() < 56 {
            let rank = pick(1, 3) as usize;
            let g = pick(1, 4) as i64;
            let cpg = pick(1, 3) as i64;
            let kpg = pick(1, 3) as i64;
            let n = pick(1, 2) as i64;
            let mut input = vec![];
            let mut filter = vec![];
            let mut stride = vec![];
            let mut pad = vec![];
            let mut dil = vec![];
            for _ in 0..rank {
                let small = rank == 3;
                input.push(pick(1, if small { 5 } else { 9 }) as i64);
                filter.push(pick(1, 3) as i64);
                stride.push(pick(1, 3) as i64);
                pad.push(pick(0, 2) as i64);
                dil.push(pick(1, 2) as i64);
            }
            if let Ok(p) = Problem::new(
                Direction::Fwd,
                DType::F32,
                n,
                g,
                g * cpg,
                g * kpg,
                &input,
                &filter,
                &stride,
                &pad,
                &dil,
            ) {
                v.push(p);
            }
        }
        v
    }

    #[test]
    fn adjoint_identity_holds_on_random_problems() {
        let problems = identity_problems();
        let mut rng = SplitMix64::new(7);
        let mut nontrivial = 0;
        for p in &problems {
            let x = random(p.elements(TensorRole::X), &mut rng);
            let w = random(p.elements(TensorRole::W), &mut rng);
            let dy = random(p.elements(TensorRole::Y), &mut rng);
            let y = reference(&p.with_direction(Direction::Fwd), &x, &w).unwrap();
            let dx = reference(&p.with_direction(Direction::Dgrad), &dy, &w).unwrap();
            let dw = reference(&p.with_direction(Direction::Wgrad), &x, &dy).unwrap();
            let (a, sa) = dot(&dy, &y);
            let (b, sb) = dot(&dx, &x);
            let (c, sc) = dot(&dw, &w);
            let scale = sa.max(sb).max(sc).max(f64::MIN_POSITIVE);
            assert!(
                (a - b).abs() <= 1e-9 * scale,
                "{p}: <dY,fwd>={a} <dgrad,X>={b}"
            );
            assert!(
                (a - c).abs() <= 1e-9 * scale,
                "{p}: <dY,fwd>={a} <wgrad,W>={c}"
            );
            if sa > 0.0 {
                nontrivial += 1;
            }
        }
        assert!(
            nontrivial >= 50,
            "only {nontrivial} problems had a nonzero output"
        );
    }

    #[test]
    fn adjoint_check_detects_a_broken_direction() {
        // Guard for the test above: the identity must fail when one side is wrong.
        let p = prob("fwd_f32_n1_g2_c4_k4_i6x6_f3x3_s2x2_p1x1_d1x1");
        let mut rng = SplitMix64::new(3);
        let x = random(p.elements(TensorRole::X), &mut rng);
        let w = random(p.elements(TensorRole::W), &mut rng);
        let dy = random(p.elements(TensorRole::Y), &mut rng);
        let y = reference(&p, &x, &w).unwrap();
        let mut dx = reference(&p.with_direction(Direction::Dgrad), &dy, &w).unwrap();
        dx[5] += 0.01;
        let (a, sa) = dot(&dy, &y);
        let (b, _) = dot(&dx, &x);
        assert!((a - b).abs() > 1e-9 * sa);
    }

    /// Copies group `gi` out of a tensor whose innermost two dims are (G, per-group).
    fn slice_group(t: &[f64], groups: usize, per: usize, gi: usize) -> Vec<f64> {
        t.chunks(groups * per)
            .flat_map(|px| px[gi * per..(gi + 1) * per].iter().copied())
            .collect()
    }

    #[test]
    fn grouped_equals_per_group_convolutions_concatenated() {
        let keys = [
            "fwd_f32_n2_g3_c6_k9_i5x6_f3x3_s2x1_p1x1_d1x2",
            "fwd_f32_n1_g4_c4_k4_i7_f3_s1_p2_d2",
            "fwd_f32_n2_g2_c4_k2_i3x4x3_f2x2x2_s1x2x1_p1x0x1_d1x1x2",
            "fwd_f32_n1_g5_c5_k10_i6x6_f5x5_s3x3_p2x2_d1x1",
        ];
        let mut rng = SplitMix64::new(11);
        for key in keys {
            let p = prob(key);
            let (gs, cpg, kpg) = (p.g as usize, p.cpg() as usize, p.kpg() as usize);
            let x = random(p.elements(TensorRole::X), &mut rng);
            let w = random(p.elements(TensorRole::W), &mut rng);
            let dy = random(p.elements(TensorRole::Y), &mut rng);
            let y = reference(&p, &x, &w).unwrap();
            let dx = reference(&p.with_direction(Direction::Dgrad), &dy, &w).unwrap();
            let dw = reference(&p.with_direction(Direction::Wgrad), &x, &dy).unwrap();
            let single = Problem {
                g: 1,
                c: p.cpg(),
                k: p.kpg(),
                ..p
            };
            let wsize = w.len() / gs;
            let mut y_cat = vec![vec![]; gs];
            let mut dx_cat = vec![vec![]; gs];
            let mut dw_cat = vec![];
            for gi in 0..gs {
                let xg = slice_group(&x, gs, cpg, gi);
                let dyg = slice_group(&dy, gs, kpg, gi);
                let wg = &w[gi * wsize..(gi + 1) * wsize];
                y_cat[gi] = reference(&single, &xg, wg).unwrap();
                dx_cat[gi] = reference(&single.with_direction(Direction::Dgrad), &dyg, wg).unwrap();
                dw_cat.extend(
                    reference(&single.with_direction(Direction::Wgrad), &xg, &dyg).unwrap(),
                );
                // Exact equality: the same sums in the same order.
                assert_eq!(
                    y_cat[gi],
                    slice_group(&y, gs, kpg, gi),
                    "{key} fwd group {gi}"
                );
                assert_eq!(
                    dx_cat[gi],
                    slice_group(&dx, gs, cpg, gi),
                    "{key} dgrad group {gi}"
                );
            }
            assert_eq!(dw_cat, dw, "{key} wgrad");
            // The groups must really differ from a dense convolution of the same tensors.
            assert!(y_cat.iter().any(|v| v.iter().any(|&e| e != 0.0)));
        }
    }
}
