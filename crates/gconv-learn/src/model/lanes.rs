//! The complete forest ([`Complete`]) walked [`WIDTH`] trees at a time for one row, with the
//! comparisons made on bytes: the same leaves, so the same sums, as the node-by-node walk.
//!
//! **Bins.** Every split value of feature `f` in the forest, sorted and deduplicated, is one
//! of its cuts `c_0 < c_1 < …` (at most 255). A row's value `v` becomes its bin, the number of
//! cuts `≤ v`, and a node splitting at cut `c_{q−1}` stores `q`; then `v ≥ c_{q−1}` exactly when
//! `bin(v) ≥ q` (the first `q` cuts are `≤ v` exactly when the `q`-th is), so every node sends
//! a row the way its `f64` comparison does. Rows with a missing (NaN) value are not binned:
//! they walk the `f64` layout. A bin is counted, not searched for ([`Cuts`]): the cuts in
//! blocks of 16, the last cut of each block compared with the value at once, then the 16 cuts
//! of its block; straight-line vector compares, with no branch on the value to mispredict.
//!
//! **Lanes.** Node `i` of every tree is stored as one byte per tree (its column, and its cut
//! index), trees side by side, so that [`WIDTH`] consecutive trees' node `i` are one vector.
//! A row's bins (64 bytes) are a table that a byte shuffle reads at 32 columns at once; at
//! depth `k` each lane (tree) selects its node among the `2^k` of that depth by the bits of
//! its path so far, compares, and appends the bit to its path, which ends as the leaf's
//! index. The selection needs no blend: each depth's nodes are stored XOR-transformed
//! (`butterfly`: the second half of a range XORed with the first, each half alike), so a
//! lane's node is the first node XORed, at each bit of its path that is set, with the pick of
//! the second half that bit chooses (an AND with the bit's mask and an XOR, cheaper than a
//! byte blend: the whole forest walked about a fifth faster on the build machine's Xeon). The
//! leaves are then added row by row in tree order, as the `f64` walk adds them. Where the CPU has no AVX2 ([`Lanes::available`]) the forest walks the
//! `f64` layout.

use super::Complete;

/// Trees walked side by side (the bytes of a 256-bit vector).
pub(super) const WIDTH: usize = 32;

/// Columns a row's bins hold (the table the shuffle reads: four 16-byte quarters).
pub(super) const COLUMNS: usize = 64;

/// Deepest forest walked in lanes (2^5 nodes at the last inner depth: the pick's widest
/// level).
const MAX_DEPTH: usize = 6;

/// One row's bins ([`Lanes::bins`]): column `f` holds the bin of feature `f`, zeros after the
/// forest's width.
pub(super) type Bins = [u8; COLUMNS];

/// The byte layout of a [`Complete`] forest (see the module documentation).
#[derive(Debug, Clone)]
pub(super) struct Lanes {
    depth: usize,
    trees: usize,
    /// Per feature, its cuts (none for a feature no node splits on).
    cuts: Vec<Cuts>,
    /// Blocks of [`WIDTH`] trees from every [`STEP`]-th tree (so that a cascade's stages,
    /// which cut at multiples of it, start at a block): block `b`, of trees
    /// `b · STEP .. b · STEP + WIDTH` (zeros past the last tree), holds for each inner node
    /// `i` at `(b · inner + i) · NODE` the trees' columns, then at `+ WIDTH` their cut
    /// indices `q` (the row goes right when its bin is `≥ q`).
    blocks: Vec<u8>,
    /// Blocks of [`STEP`] trees twice, in the layout of `blocks`: block `g` holds trees
    /// `g · STEP .. (g + 1) · STEP` in lanes `0..STEP` and again in lanes `STEP..WIDTH`, so
    /// that two rows walk them at once, one in each half ([`Lanes::add`]: a cascade's first
    /// stage walks 16 trees for every row).
    pairs: Vec<u8>,
    /// Each tree's leaf values, at the index of the leaf's path ([`LEAVES`] a tree: a leaf
    /// index of a forest of at most [`MAX_DEPTH`] is below it, so a masked index needs no
    /// check; the slots past `2^depth` are never read).
    leaves: Vec<[f64; LEAVES]>,
}

/// Leaf slots per tree of [`Lanes`]`::leaves`.
const LEAVES: usize = 1 << MAX_DEPTH;

/// Trees between the first trees of consecutive blocks ([`Lanes`]`::blocks`).
const STEP: usize = 16;

/// Bytes per node of a block: the lanes' columns, then their cut indices.
const NODE: usize = 2 * WIDTH;

/// Cuts per block of [`Cuts`].
const BLOCK: usize = 16;

/// One feature's cuts laid out for counting ([`Cuts::bin`]): in blocks of [`BLOCK`] (the last
/// padded with +∞), and the last cut of every block (+∞ past the blocks).
#[derive(Debug, Clone)]
pub(super) struct Cuts {
    /// Cuts (at most 255).
    len: u8,
    /// The last cut of each block, then +∞.
    keys: [f64; BLOCK],
    /// The cuts, sorted, [`BLOCK`] a block.
    blocks: Vec<[f64; BLOCK]>,
}

impl Cuts {
    /// The layout of `cuts` (sorted, distinct, no NaN; [`Lanes::of`] refuses a feature of
    /// more than 255, and a longer list here keeps its first 255).
    fn of(cuts: &[f64]) -> Cuts {
        let cuts = &cuts[..cuts.len().min(usize::from(u8::MAX))];
        let blocks: Vec<[f64; BLOCK]> = cuts
            .chunks(BLOCK)
            .map(|c| {
                let mut b = [f64::INFINITY; BLOCK];
                b[..c.len()].copy_from_slice(c);
                b
            })
            .collect();
        let mut keys = [f64::INFINITY; BLOCK];
        for (k, b) in keys.iter_mut().zip(&blocks) {
            *k = b[BLOCK - 1];
        }
        Cuts {
            len: cuts.len() as u8,
            keys,
            blocks,
        }
    }

    /// The number of cuts `≤ v` (`v` not NaN): the blocks whose last cut is `≤ v` are wholly
    /// below it, and the next block is counted; a value past every block is past every cut.
    #[cfg(test)]
    fn bin(&self, v: f64) -> u8 {
        self.bin_by(v, count_at_or_below)
    }

    /// [`Cuts::bin`] with `count` counting the values of a block at or below `v`.
    #[inline(always)]
    fn bin_by(&self, v: f64, count: impl Fn(&[f64; BLOCK], f64) -> usize) -> u8 {
        let below = if self.blocks.len() > 1 {
            count(&self.keys, v)
        } else {
            0
        };
        match self.blocks.get(below) {
            Some(b) => (BLOCK * below + count(b, v)).min(usize::from(self.len)) as u8,
            None => self.len,
        }
    }
}

/// How many of `values` are `≤ v` (`v` not NaN; `avx2::count_at_or_below` where the CPU has
/// AVX2).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn count_at_or_below(values: &[f64; BLOCK], v: f64) -> usize {
    values.iter().map(|&c| usize::from(c <= v)).sum()
}

/// XOR-transforms `nodes` (a whole number of [`NODE`]-byte nodes, a power of two of them)
/// for a pick by path bits without blends: the second half, XORed with the first, then each
/// half transformed alike. A lane then picks node `p` (the bits of `p` from the highest) as
/// the first node's bytes, XORed at each bit set with the pick of the second half of the
/// range that bit splits (`avx2::walk`'s `pick`): the halves' picks differ by exactly that.
fn butterfly(nodes: &mut [u8]) {
    if nodes.len() <= NODE {
        return;
    }
    let (low, high) = nodes.split_at_mut(nodes.len() / 2);
    for (y, x) in high.iter_mut().zip(low.iter()) {
        *y ^= *x;
    }
    butterfly(low);
    butterfly(high);
}

impl Lanes {
    /// The byte layout of `c` over `width` features, or `None` where it does not fit (a
    /// forest deeper than [`MAX_DEPTH`], more than [`COLUMNS`] features, a feature with
    /// more than 255 cuts, a NaN split).
    pub(super) fn of(c: &Complete, width: usize) -> Option<Lanes> {
        let depth = c.depth;
        if depth == 0 || depth > MAX_DEPTH || width > COLUMNS {
            return None;
        }
        let inner = (1usize << depth) - 1;
        let mut cuts: Vec<Vec<f64>> = vec![Vec::new(); width];
        for (&f, &s) in c.columns.iter().zip(&c.splits) {
            if s.is_nan() {
                return None;
            }
            cuts.get_mut(f as usize)?.push(s);
        }
        for v in &mut cuts {
            v.sort_by(f64::total_cmp);
            // One cut per value (−0 and +0 compare equal, so they are one cut).
            v.dedup_by(|a, b| a == b);
            if v.len() > usize::from(u8::MAX) {
                return None;
            }
        }
        let n_blocks = c.trees.div_ceil(STEP);
        let mut blocks = vec![0u8; n_blocks * inner * NODE];
        let mut pairs = vec![0u8; n_blocks * inner * NODE];
        for t in 0..c.trees {
            for i in 0..inner {
                let f = c.columns[t * inner + i] as usize;
                let s = c.splits[t * inner + i];
                // 1 + the index of the cut equal to `s`.
                let q = cuts[f].partition_point(|&x| x < s) + 1;
                let (f, q) = (u8::try_from(f).ok()?, u8::try_from(q).ok()?);
                // Tree `t` is lane `t − b · STEP` of the blocks `b` that hold it.
                for b in (t + 1).saturating_sub(WIDTH).div_ceil(STEP)..=(t / STEP) {
                    let at = (b * inner + i) * NODE + t - b * STEP;
                    blocks[at] = f;
                    blocks[at + WIDTH] = q;
                }
                let (g, l) = (t / STEP, t % STEP);
                for lane in [l, l + STEP] {
                    let at = (g * inner + i) * NODE + lane;
                    pairs[at] = f;
                    pairs[at + WIDTH] = q;
                }
            }
        }
        // Each depth's nodes are stored XOR-transformed (`butterfly`), so that a walk picks a
        // lane's node by ANDs and XORs instead of blends (`avx2::walk`).
        for layout in [&mut blocks, &mut pairs] {
            for block in layout.chunks_exact_mut(inner * NODE) {
                for k in 1..depth {
                    butterfly(&mut block[((1 << k) - 1) * NODE..((2 << k) - 1) * NODE]);
                }
            }
        }
        let outer = 1usize << depth;
        let leaves = c
            .leaves
            .chunks_exact(outer)
            .map(|tree| {
                let mut l = [0.0; LEAVES];
                l[..outer].copy_from_slice(tree);
                l
            })
            .collect();
        Some(Lanes {
            depth,
            trees: c.trees,
            cuts: cuts.iter().map(|v| Cuts::of(v)).collect(),
            blocks,
            pairs,
            leaves,
        })
    }

    /// Can this CPU walk lanes (AVX2)?
    pub(super) fn available() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx2")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// The bins of `rows` (each at least the forest's width long), or `None` when a value is
    /// missing (NaN). Only the values that differ from the previous row's in the same column
    /// are binned again (the problem's features are every row's, and neighbouring pool
    /// members share most kernel fields). Only where [`Lanes::available`].
    pub(super) fn bins<'a>(&self, rows: impl Iterator<Item = &'a [f64]>) -> Option<Vec<Bins>> {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the forest bins rows only where `Lanes::available` found AVX2
            // (`Forest::rows`, and the tests check it first).
            unsafe { avx2::bins(self, rows) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.bins_with(rows, count_at_or_below)
        }
    }

    /// [`Lanes::bins`]' steps, a block's values at or below a value counted by `count`
    /// (compiled with AVX2 by `avx2::bins`, inlined there).
    #[inline(always)]
    fn bins_with<'a>(
        &self,
        rows: impl Iterator<Item = &'a [f64]>,
        count: impl Fn(&[f64; BLOCK], f64) -> usize + Copy,
    ) -> Option<Vec<Bins>> {
        let width = self.cuts.len();
        let mut out: Vec<Bins> = Vec::with_capacity(rows.size_hint().0);
        let mut last = [f64::NAN; COLUMNS];
        let mut b = [0u8; COLUMNS];
        for row in rows {
            let row = &row[..width];
            // The columns whose value differs from the previous row's (all of them in the
            // first row, and any NaN: NaN equals nothing).
            let mut changed = 0u64;
            for (f, (&v, l)) in row.iter().zip(&last).enumerate() {
                changed |= u64::from(v != *l) << f;
            }
            while changed != 0 {
                let f = changed.trailing_zeros() as usize;
                changed &= changed - 1;
                let v = row[f];
                if v.is_nan() {
                    return None;
                }
                last[f] = v;
                b[f] = self.cuts[f].bin_by(v, count);
            }
            out.push(b);
        }
        Some(out)
    }

    /// Adds trees `from..to` to the sums `acc` of the rows `bins`, each row adding its trees
    /// in tree order. Only where [`Lanes::available`].
    pub(super) fn add(&self, from: usize, to: usize, bins: &[Bins], acc: &mut [f64]) {
        let to = to.min(self.trees);
        let inner = (1usize << self.depth) - 1;
        let mut t = from;
        while t < to {
            // The block that starts at or before `t`, lane `o` of it.
            let b = t / STEP;
            let o = t - b * STEP;
            let n = (to - t).min(WIDTH - o);
            let trees = &self.leaves[t..t + n];
            // GROUP rows walked, then their leaves added side by side.
            if o == 0 && n <= STEP {
                // Two rows a walk, one in each half of a pair block.
                let block = &self.pairs[b * inner * NODE..(b + 1) * inner * NODE];
                for (rows, sums) in bins.chunks(GROUP).zip(acc.chunks_mut(GROUP)) {
                    let mut paths = [[0u8; WIDTH]; GROUP / 2];
                    for (two, path) in rows.chunks(2).zip(&mut paths) {
                        let (first, second) = (&two[0], two.last().unwrap_or(&two[0]));
                        self.walk(block, first, second, path);
                    }
                    // Row `r`'s leaves: half `r mod 2` of walk `r / 2`.
                    let at = |r: usize| &paths[r / 2][(r % 2) * STEP..(r % 2) * STEP + n];
                    add_leaves(trees, std::array::from_fn(at), sums);
                }
            } else {
                let block = &self.blocks[b * inner * NODE..(b + 1) * inner * NODE];
                for (rows, sums) in bins.chunks(GROUP).zip(acc.chunks_mut(GROUP)) {
                    let mut paths = [[0u8; WIDTH]; GROUP];
                    for (row, path) in rows.iter().zip(&mut paths) {
                        self.walk(block, row, row, path);
                    }
                    let at = |r: usize| &paths[r][o..o + n];
                    add_leaves(trees, std::array::from_fn(at), sums);
                }
            }
            t += n;
        }
    }

    /// The leaf index that the rows reach in each tree of `block` (of `blocks` or `pairs`):
    /// lanes `0..STEP` read the bins of `low`, lanes `STEP..WIDTH` those of `high` (lanes past
    /// the last tree walk zero nodes: their leaves are never read).
    fn walk(&self, block: &[u8], low: &Bins, high: &Bins, out: &mut [u8; WIDTH]) {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `Lanes::add` runs only where `Lanes::available` found AVX2.
            unsafe { avx2::walk(self.depth, block, low, high, out) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (block, low, high, out);
            unreachable!("lanes are walked only where AVX2 is available");
        }
    }
}

/// Rows whose leaves [`Lanes::add`] adds side by side: independent chains of additions
/// (each row still adds its trees in tree order, so its sum is the same).
const GROUP: usize = 4;

/// Adds to each of `sums` (at most [`GROUP`]), in tree order, the leaf of each of `trees` at
/// its row's index in `paths` (each as long as `trees`; the rows past `sums` are added to
/// nothing).
#[inline(always)]
fn add_leaves(trees: &[[f64; LEAVES]], paths: [&[u8]; GROUP], sums: &mut [f64]) {
    let n = trees.len();
    let paths = paths.map(|p| &p[..n]);
    // Element by element (at most GROUP: a copy of the slice would call `memcpy`).
    let mut s: [f64; GROUP] = std::array::from_fn(|r| sums.get(r).copied().unwrap_or(0.0));
    for (l, tree) in trees.iter().enumerate() {
        for (sum, path) in s.iter_mut().zip(&paths) {
            *sum += tree[usize::from(path[l]) & (LEAVES - 1)];
        }
    }
    for (r, &x) in s.iter().enumerate() {
        if let Some(y) = sums.get_mut(r) {
            *y = x;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Bins, Lanes, BLOCK, MAX_DEPTH, NODE, WIDTH};
    use std::arch::x86_64::*;

    /// Each lane's node among the `N` (a literal: 1, 2, 4, 8, 16 or 32) consecutive nodes
    /// `$j..$j + N` of one depth, read by `$load` (stored by `butterfly`): the lanes whose bit
    /// `$b` (`$bits[$b]`, all ones: right) is set take it from the second half, the others
    /// from the first, down to one node (`N − 1` AND-XOR pairs, unrolled).
    macro_rules! pick {
        ($load:ident, $bits:ident, 1, $j:expr, $b:expr) => {
            $load($j)
        };
        ($load:ident, $bits:ident, 2, $j:expr, $b:expr) => {
            pick!(@ $load, $bits, 1, $j, $b)
        };
        ($load:ident, $bits:ident, 4, $j:expr, $b:expr) => {
            pick!(@ $load, $bits, 2, $j, $b)
        };
        ($load:ident, $bits:ident, 8, $j:expr, $b:expr) => {
            pick!(@ $load, $bits, 4, $j, $b)
        };
        ($load:ident, $bits:ident, 16, $j:expr, $b:expr) => {
            pick!(@ $load, $bits, 8, $j, $b)
        };
        ($load:ident, $bits:ident, 32, $j:expr, $b:expr) => {
            pick!(@ $load, $bits, 16, $j, $b)
        };
        // Two halves of `2 · $half` nodes: the second half is stored XORed with the first
        // (`butterfly`), so its pick is the difference of the two halves' picks, which the
        // lanes whose bit is set XOR in.
        (@ $load:ident, $bits:ident, $half:tt, $j:expr, $b:expr) => {
            _mm256_xor_si256(
                pick!($load, $bits, $half, $j, $b + 1),
                _mm256_and_si256(pick!($load, $bits, $half, $j + $half, $b + 1), $bits[$b]),
            )
        };
    }

    /// One depth of the walk, of `$n` nodes (a literal) from node `$n − 1`: each lane's node
    /// ([`pick`]), the bin of its column (bits 0–3 pick a byte of each quarter of the row's
    /// table, bits 4 and 5 the quarter: a blend reads each byte's top bit), compared with its
    /// cut; the lane's bit (all ones: right) is appended to `$bits` (at `$k`) and to `$path`.
    macro_rules! step {
        ($block:ident, $table:ident, $bits:ident, $path:ident, $n:tt, $k:expr) => {{
            let first = $n - 1;
            let column = |j: usize| {
                // SAFETY: node `first + j` < inner (`$n` nodes from `$n − 1` at a depth below
                // the forest's), so its NODE bytes are inside `$block`; unaligned loads.
                unsafe { _mm256_loadu_si256($block.as_ptr().add((first + j) * NODE).cast()) }
            };
            let cut_of = |j: usize| {
                // SAFETY: as for `column`, the node's second half.
                unsafe {
                    _mm256_loadu_si256($block.as_ptr().add((first + j) * NODE + WIDTH).cast())
                }
            };
            let c = pick!(column, $bits, $n, 0, 0);
            let cut = pick!(cut_of, $bits, $n, 0, 0);
            let lo4 = _mm256_slli_epi16::<3>(c);
            let hi5 = _mm256_slli_epi16::<2>(c);
            let low = _mm256_blendv_epi8(
                _mm256_shuffle_epi8($table[0], c),
                _mm256_shuffle_epi8($table[1], c),
                lo4,
            );
            let high = _mm256_blendv_epi8(
                _mm256_shuffle_epi8($table[2], c),
                _mm256_shuffle_epi8($table[3], c),
                lo4,
            );
            let v = _mm256_blendv_epi8(low, high, hi5);
            // All ones where bin ≥ cut (unsigned): the row goes right.
            let right = _mm256_cmpeq_epi8(_mm256_max_epu8(v, cut), v);
            $bits[$k] = right;
            $path = _mm256_sub_epi8(_mm256_add_epi8($path, $path), right);
        }};
    }

    /// [`Lanes::bins`] compiled with AVX2, the counts of `Cuts::bin` by
    /// [`count_at_or_below`].
    #[target_feature(enable = "avx2")]
    pub(super) fn bins<'a>(
        lanes: &Lanes,
        rows: impl Iterator<Item = &'a [f64]>,
    ) -> Option<Vec<Bins>> {
        lanes.bins_with(rows, |values, v| count_at_or_below(values, v))
    }

    /// How many of `values` are `≤ v` (`v` not NaN): four compares of four values, whose
    /// masks (−1 where true) are summed as integers.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn count_at_or_below(values: &[f64; BLOCK], v: f64) -> usize {
        let v = _mm256_set1_pd(v);
        let at = |i: usize| {
            // SAFETY: `values` holds BLOCK = 16 values, so the four from `i` (0, 4, 8 or 12)
            // are readable; the load is unaligned.
            let x = unsafe { _mm256_loadu_pd(values.as_ptr().add(i)) };
            _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_LE_OQ>(x, v))
        };
        let s = _mm256_add_epi64(
            _mm256_add_epi64(at(0), at(4)),
            _mm256_add_epi64(at(8), at(12)),
        );
        let h = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
        let h = _mm_add_epi64(h, _mm_unpackhi_epi64(h, h));
        // Each true compare added −1.
        _mm_cvtsi128_si64(h).unsigned_abs() as usize
    }

    /// [`Lanes::walk`] with AVX2.
    // The deepest step's bit is written and never read (no depth below it picks by it).
    #[allow(unused_assignments)]
    #[target_feature(enable = "avx2")]
    pub(super) fn walk(d: usize, block: &[u8], low: &Bins, high: &Bins, out: &mut [u8; WIDTH]) {
        assert!(
            (1..=MAX_DEPTH).contains(&d) && block.len() >= ((1 << d) - 1) * NODE,
            "a block of the forest's depth"
        );
        // Quarter `i` of the table: 16 bytes of `low`'s bins, then the same of `high`'s.
        let quarter = |i: usize| {
            let (l, h) = (&low[16 * i..16 * (i + 1)], &high[16 * i..16 * (i + 1)]);
            // SAFETY: `l` and `h` are 16 readable bytes each; the loads are unaligned.
            unsafe { _mm256_loadu2_m128i(h.as_ptr().cast(), l.as_ptr().cast()) }
        };
        let table = [quarter(0), quarter(1), quarter(2), quarter(3)];
        let mut path = _mm256_setzero_si256();
        let mut bits = [_mm256_setzero_si256(); MAX_DEPTH];
        step!(block, table, bits, path, 1, 0);
        if d > 1 {
            step!(block, table, bits, path, 2, 1);
        }
        if d > 2 {
            step!(block, table, bits, path, 4, 2);
        }
        if d > 3 {
            step!(block, table, bits, path, 8, 3);
        }
        if d > 4 {
            step!(block, table, bits, path, 16, 4);
        }
        if d > 5 {
            step!(block, table, bits, path, 32, 5);
        }
        // SAFETY: `out` is 32 writable bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), path) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FeatureMatrix, Rows};
    use super::*;
    use std::borrow::Cow;

    /// The lanes add exactly the leaves that the `f64` walk adds: on committed oracle rows,
    /// and on those rows with one value moved onto a cut, just below it and just above it
    /// (every cut of the shipped forest, in turn), every row's sum after 16, 48, 128 and all
    /// trees has the same bits, and the cascade keeps the same rows with the same sums.
    #[test]
    fn lanes_sum_what_the_f64_walk_sums() {
        if !Lanes::available() {
            return;
        }
        let model = crate::select::shipped().expect("the shipped model");
        let forest = &model.forest;
        let lanes = forest
            .lanes
            .as_ref()
            .expect("the shipped forest fits lanes");
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../data/oracle/h200/fwd_2d.shard-0-of-8.csv.gz");
        let oracle = gconv_tune::read_rows(&root).expect("committed data");
        let ds = crate::Dataset::from_rows(&oracle, &gconv_kernels::Target::H200);
        let base: Vec<Vec<f64>> = ds.samples().take(400).map(|s| s.features.clone()).collect();
        assert!(base.len() >= 100, "{} rows", base.len());
        let mut rows = base.clone();
        let mut k = 0;
        for (f, cuts) in lanes.cuts.iter().enumerate() {
            let cuts = cuts.blocks.iter().flatten().take(usize::from(cuts.len));
            for &c in cuts {
                for v in [c, c.next_down(), c.next_up()] {
                    let mut r = base[k % base.len()].clone();
                    r[f] = v;
                    rows.push(r);
                    k += 1;
                }
            }
        }
        let refs: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
        let m = FeatureMatrix::from_rows(&refs);
        let bins = match forest.rows(&m) {
            Rows::Bins(b) => b,
            Rows::Matrix(..) => panic!("rows without missing values are binned"),
        };
        let matrix = Rows::Matrix(Cow::Borrowed(&m), false);
        for trees in [16, 48, 128, usize::MAX] {
            let a = forest.predict_rows(&Rows::Bins(bins.clone()), trees);
            let b = forest.predict_rows(&matrix, trees);
            let same = a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same, "{trees} trees");
        }
        for chunk in [71, 40, 9] {
            for (b, m) in bins.chunks(chunk).zip(refs.chunks(chunk)).take(20) {
                let m = FeatureMatrix::from_rows(m);
                let x = forest.screen(Rows::Bins(b.to_vec()));
                let y = forest.screen(Rows::Matrix(Cow::Borrowed(&m), false));
                assert_eq!(x.finalists, y.finalists);
            }
        }
        // A missing value walks the f64 layout.
        let mut r = base[0].clone();
        r[3] = f64::NAN;
        let m = FeatureMatrix::from_rows(&[r.as_slice()]);
        assert!(matches!(forest.rows(&m), Rows::Matrix(_, true)));
    }

    /// A bin is the number of cuts at or below the value, for every count of cuts up to 255
    /// (one block, several, a partial last block, full ones), on values at, between, below
    /// and above the cuts, and ±∞; counted plainly and with AVX2.
    #[test]
    fn a_bin_counts_the_cuts_at_or_below() {
        for n in (0..40usize).chain([47, 48, 49, 127, 128, 200, 240, 255]) {
            let list: Vec<f64> = (0..n).map(|i| i as f64 * 2.0).collect();
            let cuts = Cuts::of(&list);
            let values = (-2..(2 * n as i32 + 2)).map(f64::from).chain([
                f64::NEG_INFINITY,
                f64::INFINITY,
                -0.0,
                0.5,
                1e300,
            ]);
            for v in values {
                let want = list.iter().filter(|&&c| c <= v).count();
                assert_eq!(usize::from(cuts.bin(v)), want, "{n} cuts, {v}");
                #[cfg(target_arch = "x86_64")]
                if Lanes::available() {
                    // SAFETY: AVX2 is available.
                    let by = |b: &[f64; BLOCK], v| unsafe { avx2::count_at_or_below(b, v) };
                    assert_eq!(usize::from(cuts.bin_by(v, by)), want, "{n} cuts, {v}, AVX2");
                }
            }
        }
    }
}
