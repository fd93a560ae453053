//! Problem geometry in host index arithmetic (`usize`): sizes, flat offsets in the gconv
//! layouts and the coordinate maps between input and output positions. Shared by the reference
//! and the CPU backend; every problem is treated as 3D through the neutral leading slots.

use gconv_problem::Problem;

/// Sizes of a validated problem as `usize`, in the D, H, W slots.
///
/// A validated [`Problem`] has every tensor below `i64::MAX` bytes, so all element counts and
/// offsets fit in `usize` on the 64-bit hosts this crate supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Geom {
    pub n: usize,
    pub g: usize,
    /// C/G.
    pub cpg: usize,
    /// K/G.
    pub kpg: usize,
    /// Total C.
    pub c: usize,
    /// Total K.
    pub k: usize,
    pub input: [usize; 3],
    pub filter: [usize; 3],
    pub stride: [usize; 3],
    pub pad: [usize; 3],
    pub dilation: [usize; 3],
    pub output: [usize; 3],
    /// Filter volume Z·Y·X.
    pub taps: usize,
}

fn us(v: u64) -> usize {
    // Validated problems fit (see the type docs); saturate rather than wrap otherwise.
    usize::try_from(v).unwrap_or(usize::MAX)
}

fn us3(v: [u64; 3]) -> [usize; 3] {
    [us(v[0]), us(v[1]), us(v[2])]
}

impl Geom {
    /// Geometry of a problem.
    pub fn new(p: &Problem) -> Geom {
        let filter = us3(p.filter);
        Geom {
            n: us(p.n),
            g: us(p.g),
            cpg: us(p.cpg()),
            kpg: us(p.kpg()),
            c: us(p.c),
            k: us(p.k),
            input: us3(p.input),
            filter,
            stride: us3(p.stride),
            pad: us3(p.pad),
            dilation: us3(p.dilation),
            output: us3(p.output()),
            taps: filter.iter().product(),
        }
    }

    /// Input position along `axis` read by output position `o` through filter tap `f`
    /// (`o·stride + f·dilation − pad`), or `None` when it falls into the padding.
    #[inline]
    pub fn in_coord(&self, axis: usize, o: usize, f: usize) -> Option<usize> {
        let i = (o * self.stride[axis] + f * self.dilation[axis]).checked_sub(self.pad[axis])?;
        (i < self.input[axis]).then_some(i)
    }

    /// Output position along `axis` that reads input position `i` through filter tap `f`
    /// (the inverse of [`Geom::in_coord`]), or `None` when no output does.
    #[inline]
    pub fn out_coord(&self, axis: usize, i: usize, f: usize) -> Option<usize> {
        let num = (i + self.pad[axis]).checked_sub(f * self.dilation[axis])?;
        if num % self.stride[axis] != 0 {
            return None;
        }
        let o = num / self.stride[axis];
        (o < self.output[axis]).then_some(o)
    }

    /// Number of output pixels per image (Do·Ho·Wo).
    pub fn out_pixels(&self) -> usize {
        self.output.iter().product()
    }

    /// Pixel index of X position (n, d, h, w); the element offset is `pixel·C + g·C/G + cc`.
    #[inline]
    pub fn x_pixel(&self, n: usize, d: usize, h: usize, w: usize) -> usize {
        ((n * self.input[0] + d) * self.input[1] + h) * self.input[2] + w
    }

    /// Pixel index of Y position (n, od, oh, ow); the element offset is `pixel·K + g·K/G + kk`.
    #[inline]
    pub fn y_pixel(&self, n: usize, d: usize, h: usize, w: usize) -> usize {
        ((n * self.output[0] + d) * self.output[1] + h) * self.output[2] + w
    }

    /// Tap index of filter position (z, y, x).
    #[inline]
    pub fn tap(&self, z: usize, y: usize, x: usize) -> usize {
        (z * self.filter[1] + y) * self.filter[2] + x
    }

    /// Offset of W element (g, kk, z, y, x, cc) in `G,K/G,Z,Y,X,C/G`.
    #[inline]
    pub fn w_offset(&self, g: usize, kk: usize, t: usize, cc: usize) -> usize {
        ((g * self.kpg + kk) * self.taps + t) * self.cpg + cc
    }

    /// Splits a flat (n, d, h) row index of a tensor with spatial sizes `sp` into its parts.
    #[inline]
    pub fn split_row(row: usize, sp: [usize; 3]) -> (usize, usize, usize) {
        let h = row % sp[1];
        let rest = row / sp[1];
        (rest / sp[0], rest % sp[0], h)
    }

    /// True for a 1×1×1 filter with unit stride and no padding: X is then its own im2col matrix.
    pub fn is_pointwise_unit(&self) -> bool {
        self.taps == 1 && self.stride == [1, 1, 1] && self.pad == [0, 0, 0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geom(key: &str) -> Geom {
        Geom::new(&key.parse::<Problem>().unwrap())
    }

    #[test]
    fn coordinates_follow_stride_pad_dilation() {
        // W axis: input 7, filter 3, stride 2, pad 2, dilation 2 → extent 5, output (7+4-5)/2+1 = 4.
        let g = geom("fwd_f32_n1_g1_c1_k1_i7_f3_s2_p2_d2");
        assert_eq!(g.output, [1, 1, 4]);
        assert_eq!(g.in_coord(2, 0, 0), None); // 0 - 2
        assert_eq!(g.in_coord(2, 0, 1), Some(0)); // 0 + 2 - 2
        assert_eq!(g.in_coord(2, 3, 2), None); // 6 + 4 - 2 = 8 ≥ 7
        assert_eq!(g.in_coord(2, 3, 1), Some(6));
        for o in 0..4 {
            for f in 0..3 {
                if let Some(i) = g.in_coord(2, o, f) {
                    assert_eq!(g.out_coord(2, i, f), Some(o));
                }
            }
        }
        // Input 1 is read by no output through tap 0 (1 + 2 - 0 = 3 is odd).
        assert_eq!(g.out_coord(2, 1, 0), None);
        assert_eq!(g.out_coord(2, 0, 2), None); // 0 + 2 - 4 < 0
    }

    #[test]
    fn offsets_follow_the_layouts() {
        let g = geom("fwd_f32_n2_g3_c6_k9_i4x5x6_f1x2x3_s1x1x1_p0x0x0_d1x1x1");
        assert_eq!(g.x_pixel(1, 2, 3, 4), ((4 + 2) * 5 + 3) * 6 + 4);
        assert_eq!(g.y_pixel(1, 0, 0, 0), 4 * 4 * 4);
        assert_eq!(g.tap(0, 1, 2), 5);
        assert_eq!(g.w_offset(2, 1, 5, 1), ((2 * 3 + 1) * 6 + 5) * 2 + 1);
        assert_eq!(Geom::split_row(2 * 4 * 5 + 3 * 5 + 4, [4, 5, 6]), (2, 3, 4));
        assert!(!g.is_pointwise_unit());
        assert!(geom("fwd_f32_n1_g1_c1_k1_i4x4_f1x1_s1x1_p0x0_d3x3").is_pointwise_unit());
    }
}
